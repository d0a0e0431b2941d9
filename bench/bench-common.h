/* bench-common.h -- what the benchmark programs share: the timing loop (best time per step,
 * the device drained before every clock reading) and the --degrees a-b option. */
#ifndef TESSERA_BENCH_COMMON_H
#define TESSERA_BENCH_COMMON_H

#include <math.h>
#include <stdio.h>
#include "tessera.h"

/** One timed step (an operator application, a smoothing step, a transfer): 0 on success. */
typedef int (*bench_step_fn)(void *ctx);

/** Best time per step over 3 rounds of about seconds/3 each, after one warm-up step. Steps
 *  are issued in batches of `batch`; before each clock reading the device is waited for by
 *  the dot product of `one`, a one-entry vector (asynchronous backends). NAN if a step
 *  fails. */
static inline double bench_best_time(bench_step_fn step, void *ctx, int batch, ts_vec one,
                                     double seconds) {
  double dummy;
  if (step(ctx) || ts_vec_dot(one, one, &dummy)) return NAN;
  double best = INFINITY;
  for (int rep = 0; rep < 3; ++rep) {
    int count = 0;
    const double t0 = ts_wtime();
    double t;
    do {
      for (int i = 0; i < batch; ++i)
        if (step(ctx)) return NAN;
      count += batch;
      if (ts_vec_dot(one, one, &dummy)) return NAN;
      t = ts_wtime() - t0;
    } while (t < seconds / 3);
    if (t / count < best) best = t / count;
  }
  return best;
}

/** --degrees "a-b" or "a": the range kmin..kmax. */
static inline void bench_parse_degrees(const char *v, int *kmin, int *kmax) {
  if (sscanf(v, "%d-%d", kmin, kmax) < 2) *kmax = *kmin;
}

#endif
