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

/* 0, or TS_ERR_ARG naming the plan field that is out of range. */
static int check_plan(const ts_stokes_plan *pl, ts_precision p, char *err, size_t errlen) {
  if (!pl) {
    snprintf(err, errlen, "omp stokes: plan is NULL");
    return TS_ERR_ARG;
  }
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(err, errlen, "omp stokes: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", (int)p);
    return TS_ERR_ARG;
  }
  if (pl->dim != 2 && pl->dim != 3) {
    snprintf(err, errlen, "omp stokes: plan->dim = %d, expected 2 or 3", pl->dim);
    return TS_ERR_ARG;
  }
  if (pl->degree < 0 || pl->degree > TS_MAX_DEGREE - 1) {
    snprintf(err, errlen, "omp stokes: plan->degree = %d, expected 0..%d", pl->degree,
             TS_MAX_DEGREE - 1);
    return TS_ERR_ARG;
  }
  for (int d = 0; d < pl->dim; ++d)
    if (pl->cells[d] < 1) {
      snprintf(err, errlen, "omp stokes: plan->cells[%d] = %lld, expected >= 1", d,
               (long long)pl->cells[d]);
      return TS_ERR_ARG;
    }
  return 0;
}

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
  int ierr = check_plan(plan, p, err, errlen);
  if (ierr) return ierr;
  int64_t largest = 0; /* the largest velocity component: the size of z and t */
  for (int i = 0; i < plan->dim; ++i)
    if (plan->offset[i + 1] - plan->offset[i] > largest) largest = plan->offset[i + 1] - plan->offset[i];
  const size_t scalar = p == TS_SINGLE ? sizeof(float) : sizeof(double);
  ierr = work_reserve(work, 2 * (size_t)largest * scalar, err, errlen);
  if (ierr) return ierr;
  if (p == TS_SINGLE)
    stokes_apply_f(plan, x, y, add, work->ptr, largest);
  else
    stokes_apply_d(plan, x, y, add, work->ptr, largest);
  return 0;
}
