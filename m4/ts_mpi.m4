# ts_mpi.m4 -- MPI for the domain decomposition of lib/parallel (doc/parallel.md), optional.
#
# --with-mpi: require it; --without-mpi: build without it (the ts_parallel_* functions then
# report TS_ERR_UNSUPPORTED); default: use it when found.  Looked up with pkg-config (ompi-c,
# mpi-c, mpi, mpich: Debian's mpi-default-dev) and otherwise with the flags of the compiler
# wrapper (mpicc -showme:compile / -showme:link for OpenMPI, -compile_info for MPICH).
# Defines HAVE_MPI, substitutes TS_MPI_CFLAGS, TS_MPI_LIBS and MPIEXEC (the launcher the tests
# use, empty if none), sets the conditional TS_MPI.
AC_DEFUN([TS_CHECK_MPI], [
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--with-mpi],
      [MPI domain decomposition, lib/parallel (default: use it if found)])],
    [], [with_mpi=check])
  ts_mpi=no
  AS_IF([test "x$with_mpi" != xno], [
    PKG_CHECK_MODULES([TS_MPI], [ompi-c], [],
      [PKG_CHECK_MODULES([TS_MPI], [mpi-c], [],
        [PKG_CHECK_MODULES([TS_MPI], [mpi], [],
          [PKG_CHECK_MODULES([TS_MPI], [mpich], [],
            [AC_CHECK_PROGS([TS_MPICC], [mpicc])
             AS_IF([test -n "$TS_MPICC"],
               [TS_MPI_CFLAGS=`$TS_MPICC -showme:compile 2>/dev/null || $TS_MPICC -compile_info 2>/dev/null | cut -d' ' -f2-`
                TS_MPI_LIBS=`$TS_MPICC -showme:link 2>/dev/null || $TS_MPICC -link_info 2>/dev/null | cut -d' ' -f2-`])])])])])
    ts_save_CPPFLAGS=$CPPFLAGS
    ts_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $TS_MPI_CFLAGS"
    LIBS="$TS_MPI_LIBS $LIBS"
    AC_MSG_CHECKING([for MPI (mpi.h, MPI_Cart_create, MPI_Comm_split_type)])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[
      MPI_Comm cart, node;
      int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0};
      MPI_Dims_create(1, 3, dims);
      MPI_Cart_create(MPI_Comm_f2c(0), 3, dims, periods, 0, &cart);
      return MPI_Comm_split_type(cart, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);]])],
      [ts_mpi=yes], [ts_mpi=no])
    AC_MSG_RESULT([$ts_mpi])
    CPPFLAGS=$ts_save_CPPFLAGS
    LIBS=$ts_save_LIBS
    AS_IF([test $ts_mpi = no && test "x$with_mpi" = xyes],
      [AC_MSG_ERROR([--with-mpi: MPI was not found (mpi.h and its library): install it with
      apt-get install mpi-default-dev pkg-config
    or configure --without-mpi])])
  ])
  MPIEXEC=
  AS_IF([test $ts_mpi = yes],
    [AC_DEFINE([HAVE_MPI], [1], [Define to 1 to build the MPI domain decomposition (lib/parallel)])
     AC_PATH_PROGS([MPIEXEC], [mpirun mpiexec])
     ts_mpi_summary="yes ($TS_MPI_LIBS; tests run with ${MPIEXEC:-no launcher found})"],
    [TS_MPI_CFLAGS=
     TS_MPI_LIBS=
     ts_mpi_summary="no (ts_parallel_* report TS_ERR_UNSUPPORTED; apt-get install mpi-default-dev)"])
  AC_SUBST([TS_MPI_CFLAGS])
  AC_SUBST([TS_MPI_LIBS])
  AC_SUBST([MPIEXEC])
  AM_CONDITIONAL([TS_MPI], [test $ts_mpi = yes])
])
