/* mapped.c -- the omp backend's operator on mapped cells: y = A x and y += A x for
 * -div(kappa grad u) + c u on Q_k with the geometric factors of ts_mapped_plan, in double
 * and float.
 *
 * Algorithm.  Per cell, by sum factorization (the 1D tables S = basis values and D =
 * derivatives at the n_q Gauss points): the reference gradient at the points, direction d
 * by D in direction d and S in the others, sharing the partial sweeps (3D: 9 sweeps forward
 * with the values, 2D: 5); then v = G_q grad u and m_q u per point; then the transposed
 * sweeps integrate v and m u back against the basis.  With n_q = k+1 (the library's rule)
 * on VB / sizeof(REAL) consecutive cells of a layer at once, one vector lane per cell (GCC
 * vector types), so that every sweep is a vector operation whatever its direction; and in
 * 3D by collocation, as the GPU kernel: S in each direction takes u to the points, the
 * collocation derivative C (plan->collocation_1d) in each direction gives the gradient
 * there, and C^T and S^T take it back, 12 sweeps instead of 18 (TESSERA_OMP_MAPPED=dofs
 * runs S and D cell by cell, to compare).  The sweeps run along the middle index
 * of an array with the contiguous index innermost, so that the compiler vectorizes them;
 * the cells' factors are stored point by point (ts_mapped_plan), so the point loop is
 * contiguous too.  Unlike the box Laplacian (laplace.c) nothing here is a Kronecker sum:
 * every cell has its own G_q.
 *
 * Threads.  Cells are taken by layers along the last direction, first the even layers in
 * parallel, then the odd ones: layers of one parity share no DoF, so y is written without
 * atomics, and each entry receives its contributions in an order that does not depend on
 * the number of threads (the result is the same bits for any OMP_NUM_THREADS).
 *
 * Dirichlet rows (plan->constrained): x is read as zero there, their rows are skipped and
 * finally set to y = x (y += x). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp-mapped.h"
#include "omp-threads.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

#define MN (TS_MAX_DEGREE + 1) /* DoFs per cell and direction, at most */
#define MQ (TS_MAX_DEGREE + 2) /* quadrature points per direction, at most */
#define MQ3 (MQ * MQ * MQ)
#define MKAI static inline __attribute__((always_inline))
#define VB 32 /* bytes of the vectors of the 3D batches: 4 doubles or 8 floats a batch */
/* The 3D batches are compiled for x86-64-v3 (AVX2 and FMA) and baseline x86-64, picked at
 * load time (target_clones; TS_OMP_NO_CLONES compiles one version for the -march given;
 * bench/results/2026-11-27-omp-2core-kershaw-collocation.md). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(TS_OMP_NO_CLONES)
#define TS_BATCH_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TS_BATCH_CLONES
#endif

/* The work space of the calling thread (its OpenMP threads' parts side by side): grown,
 * never shrunk, so that an application allocates nothing once the largest level has run;
 * NULL when it cannot grow. */
static _Thread_local void *mapped_work = NULL;
static _Thread_local size_t mapped_work_bytes = 0;
static void *mapped_work_space(size_t bytes) {
  if (mapped_work_bytes < bytes) {
    free(mapped_work);
    mapped_work = aligned_alloc(VB, (bytes + VB - 1) / VB * VB);
    mapped_work_bytes = mapped_work ? bytes : 0;
  }
  return mapped_work;
}

#define REAL double
#define FN(name) name##_d
#include "mapped-kernel.h"
#undef REAL
#undef FN
#define REAL float
#define FN(name) name##_f
#include "mapped-kernel.h"
#undef REAL
#undef FN

static int plan_error(char *err, size_t errlen, const char *field, long long value,
                      const char *allowed) {
  snprintf(err, errlen, "omp mapped apply: %s = %lld, %s", field, value, allowed);
  return TS_ERR_ARG;
}

/* The sizes of the plan: 0 or TS_ERR_ARG naming the field, its value and what is allowed. */
static int check_sizes(const ts_mapped_plan *pl, char *err, size_t errlen) {
  if (pl->dim != 2 && pl->dim != 3) return plan_error(err, errlen, "plan->dim", pl->dim, "expected 2 or 3");
  if (pl->degree < 1 || pl->degree > TS_MAX_DEGREE)
    return plan_error(err, errlen, "plan->degree", pl->degree, "expected 1..TS_MAX_DEGREE");
  if (pl->n_q < 1 || pl->n_q > MQ)
    return plan_error(err, errlen, "plan->n_q", pl->n_q, "expected 1..TS_MAX_DEGREE+2");
  int64_t nd = 1;
  for (int d = 0; d < 3; ++d) {
    const int64_t want_cells = d < pl->dim ? pl->cells[d] : 1;
    if (want_cells < 1 || (d >= pl->dim && pl->cells[d] != 1))
      return plan_error(err, errlen, d == 0 ? "plan->cells[0]" : d == 1 ? "plan->cells[1]" : "plan->cells[2]",
                        (long long)pl->cells[d], "expected >= 1 (1 beyond dim)");
    const int64_t want_n = d < pl->dim ? pl->cells[d] * pl->degree + 1 : 1;
    if (pl->n[d] != want_n)
      return plan_error(err, errlen, d == 0 ? "plan->n[0]" : d == 1 ? "plan->n[1]" : "plan->n[2]",
                        (long long)pl->n[d], "expected cells[d]*degree+1 (1 beyond dim)");
    nd *= pl->n[d];
  }
  if (pl->n_dofs != nd)
    return plan_error(err, errlen, "plan->n_dofs", (long long)pl->n_dofs, "expected prod n[d]");
  if (pl->has_reaction != 0 && pl->has_reaction != 1)
    return plan_error(err, errlen, "plan->has_reaction", pl->has_reaction, "expected 0 or 1");
  if (pl->n_factors != pl->dim * (pl->dim + 1) / 2 + pl->has_reaction)
    return plan_error(err, errlen, "plan->n_factors", pl->n_factors,
                      "expected dim(dim+1)/2 + has_reaction");
  return 0;
}

static int check_plan(const ts_mapped_plan *pl, ts_precision p, char *err, size_t errlen) {
  if (!pl) {
    snprintf(err, errlen, "omp mapped apply: the plan is NULL");
    return TS_ERR_ARG;
  }
  if (p != TS_DOUBLE && p != TS_SINGLE)
    return plan_error(err, errlen, "precision", (long long)p, "expected TS_DOUBLE (0) or TS_SINGLE (1)");
  int rc = check_sizes(pl, err, errlen);
  if (rc) return rc;
  if (pl->geometry != TS_MAPPED_FACTORS)
    return plan_error(err, errlen, "plan->geometry", pl->geometry,
                      "expected TS_MAPPED_FACTORS (0): the omp backend reads stored factors (it "
                      "has no mapped_geometry)");
  if (!pl->shape_1d || !pl->gradient_1d || !pl->factors) {
    snprintf(err, errlen, "omp mapped apply: plan->%s is NULL",
             !pl->shape_1d ? "shape_1d" : !pl->gradient_1d ? "gradient_1d" : "factors");
    return TS_ERR_ARG;
  }
  for (int i = 0; i < pl->n_q * (pl->degree + 1); ++i)
    if (!isfinite(pl->shape_1d[i]) || !isfinite(pl->gradient_1d[i])) {
      snprintf(err, errlen, "omp mapped apply: plan->%s[%d] is not finite",
               isfinite(pl->shape_1d[i]) ? "gradient_1d" : "shape_1d", i);
      return TS_ERR_ARG;
    }
  return 0;
}

int ts_omp_mapped_apply(const ts_mapped_plan *plan, ts_precision p, const void *x, void *y,
                        int add, char *err, size_t errlen) {
  int rc = check_plan(plan, p, err, errlen);
  if (rc) return rc;
  if (!x || !y || x == y) {
    snprintf(err, errlen, "omp mapped apply: %s", !x ? "x is NULL" : !y ? "y is NULL"
             : "x and y are the same vector (in-place apply is not supported)");
    return TS_ERR_ARG;
  }
  rc = p == TS_DOUBLE ? mapped_apply_d(plan, x, y, add) : mapped_apply_f(plan, x, y, add);
  if (rc) snprintf(err, errlen, "omp mapped apply: could not allocate the work space");
  return rc;
}
