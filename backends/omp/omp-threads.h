/* omp-threads.h -- how many threads a parallel loop of the omp backend runs on.  Starting
 * a loop on T threads costs each of them a wake-up (microseconds, far more on a loaded
 * machine, where a woken thread waits for a core), so a loop gets one thread per GRAIN
 * units of work, at least one and at most omp_get_max_threads() (OMP_NUM_THREADS,
 * ts_set_threads) and TS_MAX_THREADS_PER_PROCESSOR x the processors.  The grains were
 * measured (doc/user-guide.md, "Threads"): below them a second thread did not pay for its
 * wake-up.  -DOMP_VECTOR_GRAIN=1 -DOMP_OPERATOR_GRAIN=1 restore all threads everywhere. */
#ifndef TESSERA_OMP_THREADS_H
#define TESSERA_OMP_THREADS_H

#include <omp.h>
#include <stdint.h>
#include "tessera.h"

#ifndef OMP_VECTOR_GRAIN
#define OMP_VECTOR_GRAIN 262144   /* vector entries per thread (copy, axpby, dot, ...) */
#endif
#ifndef OMP_OPERATOR_GRAIN
#define OMP_OPERATOR_GRAIN 16384  /* DoFs per thread (operators, smoothers, transfers) */
#endif

static inline int omp_threads_for(int64_t work, int64_t grain) {
  int64_t threads = work / grain;
  const int64_t max = omp_get_max_threads(),
                limit = (int64_t)TS_MAX_THREADS_PER_PROCESSOR * omp_get_num_procs();
  if (threads > max) threads = max;
  if (threads > limit) threads = limit;
  return threads < 1 ? 1 : (int)threads;
}

/* the threads of a vector loop over n entries, and of an operator loop over n DoFs */
static inline int omp_vector_threads(int64_t n) { return omp_threads_for(n, OMP_VECTOR_GRAIN); }
static inline int omp_operator_threads(int64_t n) { return omp_threads_for(n, OMP_OPERATOR_GRAIN); }

#endif
