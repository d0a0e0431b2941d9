/* stokes-patch.c -- the omp backend's Stokes vertex-patch smoother kernel (paper 000,
 * sections 3.1-3.2, Algorithm 2; doc/stokes.md section 7): the SOLVE stage of the Separate
 * scheme for double and float (stokes-patch-kernel.h).  Patches of one color touch disjoint
 * DoFs, so an OpenMP loop over them updates x without conflicts; each thread keeps the work
 * space of one patch solve.  Scalar reference code: the vectorized and GPU versions come
 * later. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp-stokes-patch.h"
#include "omp-threads.h"

#define REAL double
#define REAL_EPSILON DBL_EPSILON
#define FN(name) stokes_##name##_d
#include "stokes-patch-kernel.h"
#undef REAL
#undef REAL_EPSILON
#undef FN
#define REAL float
#define REAL_EPSILON FLT_EPSILON
#define FN(name) stokes_##name##_f
#include "stokes-patch-kernel.h"
#undef REAL
#undef REAL_EPSILON
#undef FN

int ts_omp_stokes_patch_smooth(const ts_stokes_patch_plan *plan, ts_precision p, const void *b,
                               void *x, void *r, char *err, size_t errlen) {
  (void)b;
  if (!x || !r || x == r) {
    snprintf(err, errlen, "omp stokes_patch_smooth: x and r must be two different vectors");
    return TS_ERR_ARG;
  }
  int rc;
  if (p == TS_DOUBLE)
    rc = stokes_stokes_patch_solve_d(plan, r, x);
  else
    rc = stokes_stokes_patch_solve_f(plan, r, x);
  if (rc) snprintf(err, errlen, "omp stokes_patch_smooth: could not allocate the work space");
  return rc;
}
