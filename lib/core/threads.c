/* threads.c -- the number of host threads: the limit on OMP_NUM_THREADS, applied when the
 * library is loaded, and ts_set_threads. */
#include <omp.h>
#include <stdio.h>
#include "../tessera-impl.h"

int ts_threads_max(void) { return TS_MAX_THREADS_PER_PROCESSOR * omp_get_num_procs(); }

int ts_set_threads(int threads) {
  const int max = ts_threads_max();
  TS_CHECK_ARG(threads >= 1 && threads <= max, "ts_set_threads: threads = %d, allowed 1..%d (%d per processor, "
               "%d processors)", threads, max, TS_MAX_THREADS_PER_PROCESSOR, omp_get_num_procs());
  omp_set_num_threads(threads);
  return 0;
}

/* libgomp starts the threads OMP_NUM_THREADS asks for at the first parallel region, and
 * crashes on absurd numbers (200000): lower it before any region, when the library is
 * loaded (libgomp, a dependency, has read the environment by then). */
__attribute__((constructor)) static void limit_environment_threads(void) {
  const int asked = omp_get_max_threads(), max = ts_threads_max();
  if (asked <= max) return;
  fprintf(stderr, "tessera: warning: OMP_NUM_THREADS asks for %d threads, more than %d (%d per "
          "processor, %d processors); using %d\n", asked, max, TS_MAX_THREADS_PER_PROCESSOR,
          omp_get_num_procs(), max);
  omp_set_num_threads(max);
}
