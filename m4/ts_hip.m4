# ts_hip.m4 -- the optional hip backend: --with-hip[=DIR] finds hipcc (DIR/bin, else PATH,
# else /opt/rocm/bin) and hipSPARSE; --with-hip-arch=LIST (default gfx90a) becomes
# --offload-arch flags.
# Ends in AM_CONDITIONAL([TS_HIP]).
AC_DEFUN([TS_CHECK_HIP], [
  AC_ARG_WITH([hip],
    [AS_HELP_STRING([--with-hip@<:@=DIR@:>@], [build the hip backend (DIR: the ROCm/HIP installation; default: hipcc on PATH, then /opt/rocm)])],
    [], [with_hip=no])
  AC_ARG_WITH([hip-arch],
    [AS_HELP_STRING([--with-hip-arch=LIST], [AMD GPU architectures for the hip backend (default "gfx90a")])],
    [], [with_hip_arch="gfx90a"])
  ts_hip=no
  AS_IF([test "x$with_hip" != xno], [
    AS_IF([test "x$with_hip" = xyes],
      [ts_hip_search="$PATH$PATH_SEPARATOR/opt/rocm/bin"],
      [ts_hip_search="$with_hip/bin"])
    AC_PATH_PROG([HIPCC], [hipcc], [], [$ts_hip_search])
    AS_IF([test "x$HIPCC" = x],
      [AC_MSG_ERROR([--with-hip: hipcc was not found in $ts_hip_search (Debian: apt-get install hipcc); or give --with-hip=DIR (DIR/bin/hipcc)])])
    HIPCC_ARCH=
    for ts_arch in `echo "$with_hip_arch" | tr ',' ' '`; do
      AS_CASE([$ts_arch], [gfx*], [], [AC_MSG_ERROR([--with-hip-arch: '$ts_arch' is not an AMD architecture of the form gfxNNN (e.g. gfx90a)])])
      HIPCC_ARCH="$HIPCC_ARCH --offload-arch=$ts_arch"
    done
    HIPCC_FLAGS="-O3 -std=c++17 $HIPCC_ARCH"
    AC_MSG_CHECKING([that $HIPCC compiles for$HIPCC_ARCH])
    cat > conftest.cpp <<TSEOF
#include <hip/hip_runtime.h>
__global__ void k(double *x) { x[[threadIdx.x]] += 1.0; }
int main(void) { hipLaunchKernelGGL(k, 1, 1, 0, 0, (double *)0); return 0; }
TSEOF
    AS_IF([$HIPCC $HIPCC_FLAGS -fPIC -c conftest.cpp -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([$HIPCC cannot compile for$HIPCC_ARCH (see config.log); check --with-hip-arch])])
    rm -f conftest.cpp conftest.$OBJEXT
    ts_hip_lib=`$HIPCC --version >/dev/null 2>&1; for d in /usr/lib/x86_64-linux-gnu /opt/rocm/lib; do test -f $d/libamdhip64.so && echo $d && break; done`
    # hipSPARSE (the CSR sparse matrix-vector product), as cuSPARSE is for the cuda backend
    AC_MSG_CHECKING([for hipSPARSE (hipsparse/hipsparse.h, libhipsparse.so)])
    ts_hipsparse_lib=
    for d in $ts_hip_lib ${with_hip:+$with_hip/lib} /usr/lib/x86_64-linux-gnu /opt/rocm/lib; do
      test -f $d/libhipsparse.so && ts_hipsparse_lib=$d && break
    done
    cat > conftest.cpp <<TSEOF
#include <hipsparse/hipsparse.h>
int main(void) { hipsparseHandle_t h; return hipsparseCreate(&h) == HIPSPARSE_STATUS_SUCCESS ? 0 : 1; }
TSEOF
    AS_IF([test -n "$ts_hipsparse_lib" && $HIPCC $HIPCC_FLAGS -fPIC -c conftest.cpp -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([$ts_hipsparse_lib])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--with-hip: hipSPARSE (hipsparse/hipsparse.h, libhipsparse.so) was not found; Debian: apt-get install libhipsparse-dev])])
    rm -f conftest.cpp conftest.$OBJEXT
    HIP_LIBS="${ts_hip_lib:+-L$ts_hip_lib} ${ts_hipsparse_lib:+-L$ts_hipsparse_lib} -lhipsparse -lamdhip64 -lstdc++"
    ts_hip=yes
  ])
  AC_SUBST([HIPCC])
  AC_SUBST([HIPCC_FLAGS])
  AC_SUBST([HIP_LIBS])
  AM_CONDITIONAL([TS_HIP], [test "x$ts_hip" = xyes])
])
