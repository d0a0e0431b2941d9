# ts_hypre.m4 -- hypre (BoomerAMG algebraic multigrid, lib/sparse/boomeramg.c), optional.
#
# --with-hypre[=DIR]: require hypre (DIR: the prefix holding include/ or include/hypre/, and
# lib/); --without-hypre: build without it; default: use it when found.  Looked up with
# pkg-config (HYPRE.pc, as hypre's CMake build installs it) and otherwise in Debian's layout
# (/usr/include/hypre, -lHYPRE: apt-get install libhypre-dev).  hypre's Debian build is an MPI
# build: mpi.h and MPI_Init come from pkg-config mpi-c (Debian's mpi-default-dev), ompi-c or
# mpich.  Defines HAVE_HYPRE and substitutes HYPRE_CFLAGS, HYPRE_LIBS (hypre and MPI).
AC_DEFUN([TS_CHECK_HYPRE], [
  AC_ARG_WITH([hypre],
    [AS_HELP_STRING([--with-hypre@<:@=DIR@:>@],
      [hypre's BoomerAMG preconditioner (default: use it if found; DIR: its prefix)])],
    [], [with_hypre=check])
  ts_hypre=no
  ts_hypre_version=
  AS_IF([test "x$with_hypre" != xno], [
    AS_CASE([$with_hypre],
      [yes|check],
        [PKG_CHECK_MODULES([HYPRE], [HYPRE], [],
          [HYPRE_CFLAGS="-I/usr/include/hypre"
           HYPRE_LIBS="-lHYPRE"])],
      [HYPRE_CFLAGS="-I$with_hypre/include -I$with_hypre/include/hypre"
       HYPRE_LIBS="-L$with_hypre/lib -Wl,-rpath,$with_hypre/lib -lHYPRE"])
    PKG_CHECK_MODULES([MPI], [mpi-c], [],
      [PKG_CHECK_MODULES([MPI], [ompi-c], [],
        [PKG_CHECK_MODULES([MPI], [mpich], [], [MPI_CFLAGS= ; MPI_LIBS=-lmpi])])])
    ts_save_CPPFLAGS=$CPPFLAGS
    ts_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $HYPRE_CFLAGS $MPI_CFLAGS"
    LIBS="$HYPRE_LIBS $MPI_LIBS $LIBS"
    AC_MSG_CHECKING([for hypre's BoomerAMG (HYPRE_parcsr_ls.h, HYPRE_BoomerAMGCreate) with MPI])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#include <HYPRE_parcsr_ls.h>]], [[
      HYPRE_Solver s;
      int initialized;
      MPI_Initialized(&initialized);
      return (int)HYPRE_BoomerAMGCreate(&s);]])],
      [ts_hypre=yes], [ts_hypre=no])
    AC_MSG_RESULT([$ts_hypre])
    AS_IF([test $ts_hypre = yes],
      [AC_MSG_CHECKING([hypre's version])
       ts_hypre_version=`echo '#include <HYPRE_config.h>
HYPRE_RELEASE_VERSION' | $CC -E $CPPFLAGS - 2>/dev/null | sed -n 's/^"\(.*\)"$/\1/p' | sed 1q`
       AC_MSG_RESULT([$ts_hypre_version])])
    CPPFLAGS=$ts_save_CPPFLAGS
    LIBS=$ts_save_LIBS
    AS_IF([test $ts_hypre = no && test "x$with_hypre" != xcheck],
      [AC_MSG_ERROR([--with-hypre: hypre with MPI was not found (HYPRE_parcsr_ls.h, -lHYPRE, mpi.h): install it with
      apt-get install libhypre-dev mpi-default-dev pkg-config
    or give its prefix with --with-hypre=DIR, or configure --without-hypre])])
  ])
  AS_IF([test $ts_hypre = yes],
    [AC_DEFINE([HAVE_HYPRE], [1], [Define to 1 to build the BoomerAMG preconditioner with hypre])
     HYPRE_CFLAGS="$HYPRE_CFLAGS $MPI_CFLAGS"
     HYPRE_LIBS="$HYPRE_LIBS $MPI_LIBS"
     ts_hypre_summary="hypre $ts_hypre_version ($HYPRE_LIBS)"],
    [HYPRE_CFLAGS=
     HYPRE_LIBS=
     ts_hypre_summary="no (ts_operator_create_boomeramg reports TS_ERR_UNSUPPORTED; apt-get install libhypre-dev)"])
  AC_SUBST([HYPRE_CFLAGS])
  AC_SUBST([HYPRE_LIBS])
])
