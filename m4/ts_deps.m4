# ts_deps.m4 -- checks for Tessera's required dependencies.  Each failure says which
# Debian/Ubuntu package provides what is missing.

# TS_CHECK_C11: the compiler accepts C11 (_Thread_local, anonymous unions).
AC_DEFUN([TS_CHECK_C11], [
  AC_MSG_CHECKING([whether $CC accepts -std=c11])
  ts_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -std=c11"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[static _Thread_local int x;]], [[return x;]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([a C11 compiler is required (Debian/Ubuntu: apt-get install gcc)])])
  CFLAGS=$ts_save_CFLAGS
  AC_SUBST([TS_STD_CFLAGS], ["-std=c11 -D_GNU_SOURCE"])
])

# TS_CHECK_OPENMP: OpenMP for the omp backend and the host-side setup loops.
AC_DEFUN([TS_CHECK_OPENMP], [
  AC_OPENMP
  AS_IF([test "x$ac_cv_prog_c_openmp" = "xunsupported" || test "x$ac_cv_prog_c_openmp" = "x"],
    [AC_MSG_ERROR([OpenMP is required for the omp backend: use gcc (Debian/Ubuntu: apt-get install gcc) or a compiler with -fopenmp])])
  AC_SUBST([OPENMP_CFLAGS])
])

# TS_CHECK_LIBXML2: libxml2 for the XML problem files, found with pkg-config.
AC_DEFUN([TS_CHECK_LIBXML2], [
  PKG_CHECK_MODULES([XML], [libxml-2.0 >= 2.9], [],
    [AC_MSG_ERROR([libxml2 (>= 2.9) was not found with pkg-config: install it with
      apt-get install libxml2-dev pkg-config
    or point PKG_CONFIG_PATH at its libxml-2.0.pc.  ($XML_PKG_ERRORS)])])
])

# TS_CHECK_MUPARSER: muparser (its C interface, muParserDLL.h) for the expressions of problem
# files and ts_expression_create, found with pkg-config.
AC_DEFUN([TS_CHECK_MUPARSER], [
  PKG_CHECK_MODULES([MUPARSER], [muparser >= 2.2], [],
    [AC_MSG_ERROR([muparser (>= 2.2) was not found with pkg-config: install it with
      apt-get install libmuparser-dev pkg-config
    or point PKG_CONFIG_PATH at its muparser.pc.  ($MUPARSER_PKG_ERRORS)])])
])

# TS_CHECK_LAPACK: LAPACK (dsygv for the fast-diagonalization eigenproblems, dgetrf for the
# dense coarse solves), by pkg-config: OpenBLAS first (optimized and threaded: the Stokes
# coarse LU of 3,300 unknowns takes 1 s instead of 27 s with the reference LAPACK), then
# lapack, then the symbol in -llapack.
AC_DEFUN([TS_CHECK_LAPACK], [
  AC_ARG_WITH([lapack],
    [AS_HELP_STRING([--with-lapack=LIBS], [LAPACK libraries to link (default: pkg-config openblas, then lapack, then -llapack)])],
    [LAPACK_LIBS=$withval], [])
  AS_IF([test "x$LAPACK_LIBS" = "x"],
    [PKG_CHECK_MODULES([LAPACK], [openblas], [],
    [PKG_CHECK_MODULES([LAPACK], [lapack], [],
      [AC_CHECK_LIB([lapack], [dsygv_], [LAPACK_LIBS="-llapack"],
        [AC_MSG_ERROR([LAPACK was not found: install it with
      apt-get install liblapack-dev
    or give its libraries with --with-lapack="-L/path -llapack -lblas"])], [-lm])])])])
  ts_save_LIBS=$LIBS
  LIBS="$LAPACK_LIBS $LIBS"
  AC_MSG_CHECKING([that LAPACK provides dsygv_])
  AC_LINK_IFELSE([AC_LANG_CALL([], [dsygv_])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([the LAPACK libraries "$LAPACK_LIBS" do not provide dsygv_ (apt-get install liblapack-dev)])])
  LIBS=$ts_save_LIBS
  AC_SUBST([LAPACK_LIBS])
])
