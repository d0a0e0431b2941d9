# ts_cuda.m4 -- the optional cuda backend: --with-cuda[=DIR] finds nvcc (DIR/bin, else PATH,
# else /usr/local/cuda/bin) and the CUDA runtime; --with-cuda-arch=LIST (default
# "sm_90 sm_80") becomes -gencode pairs.  Ends in AM_CONDITIONAL([TS_CUDA]).
AC_DEFUN([TS_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@], [build the cuda backend (DIR: the CUDA toolkit; default: nvcc on PATH, then /usr/local/cuda)])],
    [], [with_cuda=no])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST], [GPU architectures for the cuda backend (default "sm_90 sm_80")])],
    [], [with_cuda_arch="sm_90 sm_80"])
  ts_cuda=no
  AS_IF([test "x$with_cuda" != xno], [
    AS_IF([test "x$with_cuda" = xyes],
      [ts_cuda_search="$PATH$PATH_SEPARATOR/usr/local/cuda/bin"],
      [ts_cuda_search="$with_cuda/bin"])
    AC_PATH_PROG([NVCC], [nvcc], [], [$ts_cuda_search])
    AS_IF([test "x$NVCC" = x],
      [AC_MSG_ERROR([--with-cuda: nvcc was not found in $ts_cuda_search; give the toolkit with --with-cuda=DIR (DIR/bin/nvcc)])])
    ts_cuda_home=`dirname "$NVCC"`
    ts_cuda_home=`dirname "$ts_cuda_home"`
    NVCC_GENCODE=
    for ts_arch in `echo "$with_cuda_arch" | tr ',' ' '`; do
      ts_cc=`echo "$ts_arch" | sed -n 's/^sm_\([[0-9]][[0-9]]*[[a-z]]*\)$/\1/p'`
      AS_IF([test "x$ts_cc" = x],
        [AC_MSG_ERROR([--with-cuda-arch: '$ts_arch' is not an architecture of the form sm_NN (e.g. "sm_90 sm_80")])])
      NVCC_GENCODE="$NVCC_GENCODE -gencode=arch=compute_$ts_cc,code=sm_$ts_cc"
    done
    AS_IF([test "x$NVCC_GENCODE" = x], [AC_MSG_ERROR([--with-cuda-arch: empty list])])
    NVCC_FLAGS="-O3 -std=c++17 -lineinfo --expt-relaxed-constexpr $NVCC_GENCODE"
    AC_MSG_CHECKING([that $NVCC compiles for$NVCC_GENCODE])
    cat > conftest.cu <<TSEOF
__global__ void k(double *x) { x[[threadIdx.x]] += 1.0; }
int main(void) { k<<<1, 1>>>(0); return 0; }
TSEOF
    AS_IF([$NVCC $NVCC_FLAGS -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([$NVCC cannot compile for$NVCC_GENCODE (see config.log); check --with-cuda-arch])])
    rm -f conftest.cu conftest.$OBJEXT
    # nvcc may be a wrapper script outside the toolkit (/usr/local/bin/nvcc exec'ing
    # /usr/local/cuda-13.0/bin/nvcc): nvcc itself names its toolkit as TOP in a dry run
    echo '__global__ void k(void) {}' > conftest.cu
    ts_cuda_top=`$NVCC --dryrun -c conftest.cu 2>&1 | sed -n 's/^#\$ TOP=//p' | sed 1q`
    rm -f conftest.cu
    AC_MSG_CHECKING([for the CUDA runtime library (libcudart_static.a)])
    ts_cuda_libdir=
    for ts_h in "$ts_cuda_home" "$ts_cuda_top"; do
      test -n "$ts_h" || continue
      for ts_d in "$ts_h/lib64" "$ts_h/lib" "$ts_h/targets/x86_64-linux/lib"; do
        AS_IF([test -z "$ts_cuda_libdir" && test -f "$ts_d/libcudart_static.a"], [ts_cuda_libdir=$ts_d])
      done
    done
    AS_IF([test "x$ts_cuda_libdir" = x],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--with-cuda: libcudart_static.a not found under $ts_cuda_home or $ts_cuda_top (lib64, lib, targets/x86_64-linux/lib); give the toolkit with --with-cuda=DIR])])
    AC_MSG_RESULT([$ts_cuda_libdir])
    # the static runtime: the module then needs only the driver (libcuda.so) at run time
    CUDA_LIBS="-L$ts_cuda_libdir -lcudart_static -lrt -lpthread -ldl -lstdc++"
    # cuSPARSE (the CSR sparse matrix-vector product) is linked as a shared library from
    # the same folder, with a run path to it (Makefile.am)
    AC_MSG_CHECKING([for cuSPARSE (libcusparse.so) in $ts_cuda_libdir])
    AS_IF([test -f "$ts_cuda_libdir/libcusparse.so" && test -f "$ts_cuda_home/include/cusparse.h" -o -f "$ts_cuda_top/include/cusparse.h"],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--with-cuda: cuSPARSE (libcusparse.so, cusparse.h) not found in the toolkit; install the toolkit's cusparse development package (cuda-toolkit includes it)])])
    CUDA_LIBDIR=$ts_cuda_libdir
    ts_cuda=yes
  ])
  AC_SUBST([NVCC])
  AC_SUBST([NVCC_FLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([CUDA_LIBDIR])
  AM_CONDITIONAL([TS_CUDA], [test "x$ts_cuda" = xyes])
])
