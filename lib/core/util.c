/* util.c -- version, precision names and the wall-clock timer. */
#include <time.h>
#include "../tessera-impl.h"

#define TS_STRINGIFY2(x) #x
#define TS_STRINGIFY(x) TS_STRINGIFY2(x)

const char *ts_version(void) {
  return TS_STRINGIFY(TESSERA_VERSION_MAJOR) "." TS_STRINGIFY(TESSERA_VERSION_MINOR) "." TS_STRINGIFY(
      TESSERA_VERSION_PATCH);
}

static int valid_precision(ts_precision p) { return p == TS_DOUBLE || p == TS_SINGLE; }

const char *ts_precision_name(ts_precision p) {
  TS_GETTER_CHECK(valid_precision(p), "",
                  "ts_precision_name: precision %d, allowed %d (double) or %d (single)", (int)p,
                  (int)TS_DOUBLE, (int)TS_SINGLE);
  return p == TS_SINGLE ? "single" : "double";
}

size_t ts_precision_size(ts_precision p) {
  TS_GETTER_CHECK(valid_precision(p), 0,
                  "ts_precision_size: precision %d, allowed %d (double) or %d (single)", (int)p,
                  (int)TS_DOUBLE, (int)TS_SINGLE);
  return p == TS_SINGLE ? sizeof(float) : sizeof(double);
}

const char *ts_setup_phase_name(ts_setup_phase phase) {
  static const char *const names[TS_SETUP_PHASES] = {
      "dofs", "operators", "vectors", "transfers", "smoothers", "coarse", "right_side", "boundary"};
  TS_GETTER_CHECK(phase >= 0 && phase < TS_SETUP_PHASES, NULL,
                  "ts_setup_phase_name: phase %d, allowed 0..%d", (int)phase, TS_SETUP_PHASES - 1);
  return names[phase];
}

double ts_wtime(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
