/* transfer.c -- the omp backend's multigrid transfer between two levels of a box hierarchy
 * (ts_transfer_plan: Q_k on the next coarser mesh, or a lower degree on the same mesh):
 * prolongation fine = P coarse and restriction coarse = P^T fine, for double and float.
 *
 * Algorithm.  Per coarse cell, the cell's (kc+1)^dim coarse values are mapped to its
 * (m+1)^dim fine values (m = fine_per_cell: 2k for the 2^dim children of one degree, kf for
 * the same cell of degree kf) by three (two in 2D) one-dimensional contractions with the
 * (m+1)x(kc+1) matrix of the plan (sum factorization).  Prolongation
 * writes only the fine nodes the cell owns (each fine node has exactly one owner), so cells
 * run in parallel.  Restriction reads only owned fine nodes (so shared nodes count once),
 * applies the transposed contractions and adds into the coarse nodes; cells that share
 * coarse nodes lie in neighbouring layers along the last direction, so layers of one
 * parity run in parallel.  Dirichlet DoFs (plan->constrained) are read and written as
 * zero. */
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

void ts_omp_transfer(const ts_transfer_plan *plan, ts_precision p, int restrict_, const void *in,
                     void *out, int add) {
  if (p == TS_SINGLE) {
    if (restrict_) transfer_restriction_float(plan, in, out, add);
    else transfer_prolongate_float(plan, in, out, add);
  } else {
    if (restrict_) transfer_restriction_double(plan, in, out, add);
    else transfer_prolongate_double(plan, in, out, add);
  }
}
