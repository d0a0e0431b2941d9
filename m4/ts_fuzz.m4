# ts_fuzz.m4 -- ./configure --enable-fuzz: the libFuzzer target fuzz/fuzz-problem (the XML
# problem reader under AddressSanitizer and UndefinedBehaviorSanitizer), built with clang
# beside the normal build.

# TS_CHECK_FUZZ: sets FUZZ_CC to a clang that links a libFuzzer program with ASan and UBSan,
# and the conditional TS_FUZZ.
AC_DEFUN([TS_CHECK_FUZZ], [
  AC_ARG_ENABLE([fuzz],
    [AS_HELP_STRING([--enable-fuzz],
      [build fuzz/fuzz-problem, the problem reader under libFuzzer, ASan and UBSan (needs clang with libFuzzer; FUZZ_CC names it); run it with fuzz/run-fuzz.sh SECONDS])],
    [], [enable_fuzz=no])
  AC_ARG_VAR([FUZZ_CC], [clang for --enable-fuzz (default: clang, then clang-19 ... clang-14)])
  AS_IF([test "x$enable_fuzz" != xno], [
    AS_IF([test "x$FUZZ_CC" = x],
      [AC_CHECK_PROGS([FUZZ_CC], [clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14])])
    AC_MSG_CHECKING([whether ${FUZZ_CC:-clang} links a libFuzzer program with ASan and UBSan])
    cat > conftest-fuzz.c <<_TS_EOF
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return data && size ? 0 : 0; }
_TS_EOF
    AS_IF([test "x$FUZZ_CC" != x &&
           $FUZZ_CC -fsanitize=fuzzer,address,undefined conftest-fuzz.c -o conftest-fuzz \
             >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       rm -f conftest-fuzz.c conftest-fuzz
       AC_MSG_ERROR([--enable-fuzz needs clang with libFuzzer (-fsanitize=fuzzer): install it
    (Debian/Ubuntu: apt-get install clang libclang-rt-dev, or clang-14 libclang-rt-14-dev) or set
    FUZZ_CC to one])])
    rm -f conftest-fuzz.c conftest-fuzz
  ])
  AM_CONDITIONAL([TS_FUZZ], [test "x$enable_fuzz" != xno])
])
