/* expect-error.h -- one TAP line for a refused call: the return code is `code` and the error
 * message names `words` (the message is printed as a diagnostic otherwise), for the mass
 * operator tests (t-l2-mass-inverse, t-hdiv-mass).  Static: include it in one test program
 * per executable. */
#ifndef TESSERA_TESTS_EXPECT_ERROR_H
#define TESSERA_TESTS_EXPECT_ERROR_H

#include <string.h>
#include "tessera.h"
#include "tap.h"

static void expect_error(int rc, int code, const char *words, const char *what) {
  const char *msg = ts_error_message();
  const int matched = rc == code && msg && strstr(msg, words);
  ok(matched, "%s is refused (code %d, '%s')", what, rc, words);
  if (!matched) diag("message: %s", msg ? msg : "(none)");
}

#endif
