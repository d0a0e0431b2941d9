/* tap.h -- a tiny Test Anything Protocol helper for the test programs (after liburcu's):
 *   plan(n);  ok(cond, "what %d", i);  diag("detail %s", s);  skip(n, "why");
 *   done_testing();  (instead of plan(n) first: the plan after the tests)
 *   return exit_status();
 * Output goes to stdout for Automake's tap-driver.sh: "1..N", "ok i - what",
 * "not ok i - what", "# diagnostics".  Everything is static inline: include it in one
 * test program per executable. */
#ifndef TESSERA_TAP_H
#define TESSERA_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_planned_ = -1, tap_run_ = 0, tap_failed_ = 0;

/** Announce n tests ("1..n"). */
static inline void plan(int n) {
  tap_planned_ = n;
  printf("1..%d\n", n);
  fflush(stdout);
}

/** Announce, after the last test, the number of tests run ("1..n" at the end: TAP allows a
 *  trailing plan; a program that dies before it has no plan and fails). */
static inline void done_testing(void) { plan(tap_run_); }

/** Skip the whole program ("1..0 # SKIP reason"); return exit_status() afterwards. */
static inline void plan_skip_all(const char *reason) {
  tap_planned_ = 0;
  printf("1..0 # SKIP %s\n", reason);
  fflush(stdout);
}

/** Print a diagnostic; every line of it is prefixed with "# ". */
static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...) {
  char buf[8192];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  const char *line = buf;
  for (;;) {
    const char *nl = strchr(line, '\n');
    int n = nl ? (int)(nl - line) : (int)strlen(line);
    printf("# %.*s\n", n, line);
    if (!nl) break;
    line = nl + 1;
  }
  fflush(stdout);
}

/** Record one test: "ok i - description" if cond holds, else "not ok i - description".
 *  Returns cond, so that a failure can be followed by diag(). */
static inline int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ok(int cond, const char *fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  for (char *c = buf; *c; c++)
    if (*c == '\n' || *c == '#') *c = ' ';  /* keep the description on one line */
  tap_run_++;
  if (!cond) tap_failed_++;
  printf("%sok %d - %s\n", cond ? "" : "not ", tap_run_, buf);
  fflush(stdout);
  return cond;
}

/** Record a check of a known, documented gap: "not ok i - description # TODO why" when cond
 *  fails (the tap driver reports XFAIL, not a failure) and "ok i - description # TODO why"
 *  when it holds (XPASS, which fails the suite: the gap is closed and the TODO must go).
 *  The check keeps its real condition and tolerance. */
static inline int ok_todo(int cond, const char *why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int ok_todo(int cond, const char *why, const char *fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  for (char *c = buf; *c; c++)
    if (*c == '\n' || *c == '#') *c = ' ';
  tap_run_++;
  printf("%sok %d - %s # TODO %s\n", cond ? "" : "not ", tap_run_, buf, why);
  fflush(stdout);
  return cond;
}

/** Record n skipped tests with a reason. */
static inline void skip(int n, const char *reason) {
  for (int i = 0; i < n; i++) {
    tap_run_++;
    printf("ok %d # SKIP %s\n", tap_run_, reason);
  }
  fflush(stdout);
}

/** 0 if every planned test ran and passed, else 1 (diagnosing why). */
static inline int exit_status(void) {
  if (tap_planned_ >= 0 && tap_run_ != tap_planned_) {
    diag("planned %d tests but ran %d", tap_planned_, tap_run_);
    return 1;
  }
  if (tap_failed_) diag("failed %d of %d tests", tap_failed_, tap_run_);
  return tap_failed_ ? 1 : 0;
}

/** Whether to run the long cases too: $TESSERA_TEST_LONG is set and not "0".  `make check`
 *  runs the fast cases; `make check-long` runs the programs that have long cases with
 *  TESSERA_TEST_LONG=1 (Makefile.am, long_tests). */
static inline int tap_long(void) {
  const char *v = getenv("TESSERA_TEST_LONG");
  return v && *v && strcmp(v, "0") != 0;
}

/** The backend the backend-generic tests run on: $TESSERA_TEST_BACKEND, default "omp"
 *  (tests/t-gpu-check.sh runs them once per built GPU backend). */
static inline const char *tap_backend(void) {
  const char *b = getenv("TESSERA_TEST_BACKEND");
  return b && *b ? b : "omp";
}

#endif
