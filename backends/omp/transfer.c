/* transfer.c -- the omp backend's multigrid transfer between two levels of a Q_k box
 * hierarchy (ts_transfer_plan): prolongation fine = P coarse and restriction
 * coarse = P^T fine, for double and float.
 *
 * Algorithm.  Per coarse cell, the cell's (k+1)^dim coarse values are mapped to the
 * (2k+1)^dim fine values of its 2^dim children by three (two in 2D) one-dimensional
 * contractions with the (2k+1)x(k+1) matrix of the plan (sum factorization).  Prolongation
 * writes only the fine nodes the cell owns (each fine node has exactly one owner), so cells
 * run in parallel.  Restriction reads only owned fine nodes (so shared nodes count once),
 * applies the transposed contractions and adds into the coarse nodes; cells that share
 * coarse nodes lie in neighbouring layers along the last direction, so layers of one
 * parity run in parallel.  Dirichlet DoFs (plan->constrained) are read and written as
 * zero. */
#include <stdio.h>
#include "omp-transfer.h"
#include "omp-threads.h"

#define REAL double
#define TR(name) transfer_##name##_double
#include "transfer-kernel.h"
#undef REAL
#undef TR
#define REAL float
#define TR(name) transfer_##name##_float
#include "transfer-kernel.h"
#undef REAL
#undef TR

int ts_omp_transfer(const ts_transfer_plan *plan, ts_precision p, int restrict_, const void *in,
                    void *out, int add, char *err, size_t errlen) {
  if (plan->dim < 2 || plan->dim > 3 || plan->degree < 1 || plan->degree > TS_MAX_DEGREE) {
    snprintf(err, errlen, "transfer: dim %d and degree %d, allowed dim 2..3 and degree 1..%d",
             plan->dim, plan->degree, TS_MAX_DEGREE);
    return TS_ERR_ARG;
  }
  for (int d = 0; d < plan->dim; ++d)
    if (plan->coarse_cells[d] < 1 || plan->coarse_n[d] != plan->degree * plan->coarse_cells[d] + 1 ||
        plan->fine_n[d] != 2 * plan->degree * plan->coarse_cells[d] + 1) {
      snprintf(err, errlen, "transfer: direction %d has %lld coarse cells, %lld coarse and %lld "
               "fine DoFs: inconsistent for degree %d", d, (long long)plan->coarse_cells[d],
               (long long)plan->coarse_n[d], (long long)plan->fine_n[d], plan->degree);
      return TS_ERR_ARG;
    }
  if (p == TS_SINGLE) {
    if (restrict_) transfer_restriction_float(plan, in, out, add);
    else transfer_prolongate_float(plan, in, out, add);
  } else {
    if (restrict_) transfer_restriction_double(plan, in, out, add);
    else transfer_prolongate_double(plan, in, out, add);
  }
  return 0;
}
