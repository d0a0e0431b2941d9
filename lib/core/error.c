/* error.c -- per-thread error recording: the failing call writes "file:line: message",
 * callers that propagate with TS_CALL append "  called from file:line (expr)". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tessera-impl.h"

#define TS_ERROR_LENGTH 4096

static _Thread_local char error_message[TS_ERROR_LENGTH];
static _Thread_local int error_code;

/* Source locations are appended to messages only when TESSERA_TRACE is set: users see
 * what went wrong, developers can ask for where. */
static int getenv_trace_enabled(void) {
  const char *v = getenv("TESSERA_TRACE");
  return v && *v && strcmp(v, "0") != 0;
}

static const char *basename_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int ts_error_set(int code, const char *file, int line, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(error_message, sizeof error_message, fmt, args);
  va_end(args);
  if (getenv_trace_enabled()) {
    size_t used = strlen(error_message);
    if (used + 1 < sizeof error_message)
      snprintf(error_message + used, sizeof error_message - used, "\n  at %s:%d",
               basename_of(file), line);
  }
  error_code = code;
  return code;
}

int ts_error_trace(int code, const char *file, int line, const char *expr) {
  size_t used = strlen(error_message);
  if (!file) file = "(unknown file)";
  if (!expr) expr = "(unknown call)";
  if (!error_code) error_code = code;
  if (getenv_trace_enabled() && used + 1 < sizeof error_message)
    snprintf(error_message + used, sizeof error_message - used, "\n  called from %s:%d (%s)",
             basename_of(file), line, expr);
  return code;
}

const char *ts_error_message(void) { return error_code ? error_message : "no error"; }
int ts_error_code(void) { return error_code; }
void ts_error_clear(void) {
  error_code = 0;
  error_message[0] = 0;
}

const char *ts_error_name(int code) {
  static const char *const names[] = {
      "TS_SUCCESS",   "TS_ERR_ARG",    "TS_ERR_MEMORY",        "TS_ERR_BACKEND",
      "TS_ERR_UNSUPPORTED", "TS_ERR_IO", "TS_ERR_INPUT",       "TS_ERR_LAPACK",
      "TS_ERR_NOT_CONVERGED", "TS_ERR_BREAKDOWN", "TS_ERR_NAN", "TS_ERR_INTERNAL"};
  if (code < 0 || code >= (int)(sizeof names / sizeof names[0])) return "TS_ERR_UNKNOWN";
  return names[code];
}
