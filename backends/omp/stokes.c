/* stokes.c -- the omp backend's matrix-free Stokes operator (paper 000, eq. 3-4; the
 * factorization of doc/stokes.md section 4) for double and float: plan checks, the work
 * space (kept by the backend between calls), and the kernel body instantiated per precision
 * from stokes-kernel.h. */
#include <stdio.h>
#include <stdlib.h>
#include "omp-stokes.h"
#include "omp-threads.h"

#define REAL double
#define FN(name) name##_d
#include "stokes-kernel.h"
#undef REAL
#undef FN
#define REAL float
#define FN(name) name##_f
#include "stokes-kernel.h"
#undef REAL
#undef FN

void ts_omp_work_free(ts_omp_work *work) {
  free(work->ptr);
  work->ptr = NULL;
  work->bytes = 0;
}

/* Grow work to at least bytes (its content is not kept). */
static int work_reserve(ts_omp_work *work, size_t bytes, char *err, size_t errlen) {
  if (work->bytes >= bytes) return 0;
  ts_omp_work_free(work);
  work->ptr = malloc(bytes);
  if (!work->ptr) {
    snprintf(err, errlen, "omp stokes: could not allocate %zu bytes of work space", bytes);
    return TS_ERR_MEMORY;
  }
  work->bytes = bytes;
  return 0;
}

int ts_omp_stokes_apply(const ts_stokes_plan *plan, ts_precision p, const void *x, void *y,
                        int add, ts_omp_work *work, char *err, size_t errlen) {
  int64_t largest = 0; /* the largest velocity component: the size of z and t */
  for (int i = 0; i < plan->dim; ++i)
    if (plan->offset[i + 1] - plan->offset[i] > largest) largest = plan->offset[i + 1] - plan->offset[i];
  const size_t scalar = p == TS_SINGLE ? sizeof(float) : sizeof(double);
  const int ierr = work_reserve(work, 2 * (size_t)largest * scalar, err, errlen);
  if (ierr) return ierr;
  if (p == TS_SINGLE)
    stokes_apply_f(plan, x, y, add, work->ptr, largest);
  else
    stokes_apply_d(plan, x, y, add, work->ptr, largest);
  return 0;
}
