/* patch.c -- the omp backend's vertex-patch smoother kernel (paper 002, Algorithm 2.3 and
 * Table 4) on a structured box: one pass over the patches of one color, for double and
 * float.
 *
 * Algorithm.  The patches of the color are numbered lexicographically by their vertex and
 * taken VL at a time (8 doubles or 16 floats: one 64-byte vector), one patch per vector
 * lane, so every operation below is a full-width vector operation with scalar coefficients
 * and no shuffles.  Per group: gather the closed patch of x ((2k+1)^dim values per lane;
 * zero on Dirichlet DoFs) and the interior of b; compute the local residual
 * r = b - Abar x on the (2k-1)^dim interior DoFs by sum factorization with the 1D patch
 * matrices (P = M0 x, Q = K0 x, then E = s0 M1 Q + s1 K1 P, F = s2 M1 P, Abar x = M2 E + K2 F
 * in 3D), skipping the zero blocks of the 2-cell 1D matrices; solve by fast diagonalization,
 * t = (x) S  L^{-1}  (x) S^T r (six 1D contractions in 3D); add t to x on the interior.
 * Stages: Fused does all of it; Residual stores r into the residual vector; Solve reads r
 * from it and updates x; Boundary sets x = b on the Dirichlet DoFs.
 *
 * Threads.  Patches of one color share no interior DoF and none lies in another's closed
 * patch, so the groups are independent: an OpenMP loop with dynamic scheduling.  The degree
 * and dimension are compile-time constants in the hot loops (a switch over always-inline
 * instances compiled for x86-64-v4, see TS_FAST); the contractions keep all outputs of a
 * line in registers.  The gathers and scatters are scalar per lane: the next lever for
 * low degrees (a VL x VL transpose of row segments). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp-patch.h"
#include "omp-threads.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

/* The compile-time-degree instances are compiled for AVX-512 (x86-64-v4) only and picked at
 * run time when the processor has it; elsewhere a run-time-degree instance runs (one
 * instance per precision and dimension: target_clones of all instances took over 10 minutes
 * to compile).  With TS_OMP_NO_CLONES the fast instances are compiled for the -march given
 * and always used. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(TS_OMP_NO_CLONES)
#define TS_FAST __attribute__((target("arch=x86-64-v4")))
#define TS_FAST_OK()                                                                     \
  (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&           \
   __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&         \
   __builtin_cpu_supports("avx512vl"))
#else
#define TS_FAST
#define TS_FAST_OK() 1
#endif

typedef double pd8 __attribute__((vector_size(64)));
typedef float pf16 __attribute__((vector_size(64)));

#define REAL double
#define V pd8
#define VL 8
#define FN(name) patch_##name##_d
#include "patch-kernel.h"
#undef REAL
#undef V
#undef VL
#undef FN
#define REAL float
#define V pf16
#define VL 16
#define FN(name) patch_##name##_f
#include "patch-kernel.h"
#undef REAL
#undef V
#undef VL
#undef FN

/* the work space cache of the calling thread: grown, never shrunk */
static _Thread_local void *patch_work = NULL;
static _Thread_local size_t patch_work_bytes = 0;

#define PLAN_FAIL(...)                     \
  do {                                     \
    snprintf(err, errlen, __VA_ARGS__);    \
    return TS_ERR_ARG;                     \
  } while (0)

static int finite_array(const double *a, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(a[i])) return 0;
  return 1;
}

/* Checks the plan and the precision; 0 or TS_ERR_ARG with a message. */
static int check_plan(const ts_patch_plan *pl, ts_precision p, char *err, size_t errlen) {
  if (!pl) PLAN_FAIL("omp patch_smooth: plan is NULL");
  if (p != TS_DOUBLE && p != TS_SINGLE)
    PLAN_FAIL("omp patch_smooth: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", (int)p);
  if (pl->dim != 2 && pl->dim != 3) PLAN_FAIL("omp patch_smooth: plan->dim = %d, expected 2 or 3", pl->dim);
  if (pl->stage < TS_PATCH_STAGE_FUSED || pl->stage > TS_PATCH_STAGE_BOUNDARY)
    PLAN_FAIL("omp patch_smooth: plan->stage = %d, expected 0..3", (int)pl->stage);
  const int k = pl->dofs_per_cell;
  if (k < 1 || k > TS_MAX_DEGREE)
    PLAN_FAIL("omp patch_smooth: plan->dofs_per_cell = %d, expected 1..%d", k, TS_MAX_DEGREE);
  int64_t nd = 1;
  for (int d = 0; d < 3; ++d) {
    if (d < pl->dim && pl->cells[d] < 1)
      PLAN_FAIL("omp patch_smooth: plan->cells[%d] = %lld, expected >= 1", d, (long long)pl->cells[d]);
    const int64_t want = d < pl->dim ? pl->cells[d] * k + 1 : 1;
    if (pl->n[d] != want)
      PLAN_FAIL("omp patch_smooth: plan->n[%d] = %lld, expected cells[%d]*dofs_per_cell+1 = %lld",
                d, (long long)pl->n[d], d, (long long)want);
    nd *= pl->n[d];
  }
  if (pl->n_dofs != nd)
    PLAN_FAIL("omp patch_smooth: plan->n_dofs = %lld, expected prod n[d] = %lld",
              (long long)pl->n_dofs, (long long)nd);
  if (pl->stage == TS_PATCH_STAGE_BOUNDARY) return 0;
  if (pl->nbar != 2 * k + 1 || pl->m != pl->nbar - 2)
    PLAN_FAIL("omp patch_smooth: plan->nbar = %d and plan->m = %d, expected %d and %d", pl->nbar,
              pl->m, 2 * k + 1, 2 * k - 1);
  if (pl->color < 0 || pl->color >= 1 << pl->dim)
    PLAN_FAIL("omp patch_smooth: plan->color = %d, expected 0..%d", pl->color, (1 << pl->dim) - 1);
  if (pl->vertex_stride < 2)
    PLAN_FAIL("omp patch_smooth: plan->vertex_stride = %d, patches of one color need >= 2",
              pl->vertex_stride);
  for (int d = 0; d < pl->dim; ++d) {
    const int64_t f = pl->first_vertex[d], c = pl->vertex_count[d];
    if (c < 0 || (c > 0 && (f < 1 || f + pl->vertex_stride * (c - 1) > pl->cells[d] - 1)))
      PLAN_FAIL("omp patch_smooth: direction %d: vertices %lld + %d j, j < %lld, leave the "
                "interior vertices 1..%lld",
                d, (long long)f, pl->vertex_stride, (long long)c, (long long)pl->cells[d] - 1);
  }
  if (pl->solver != TS_PATCH_SOLVER_FAST_DIAGONALIZATION)
    PLAN_FAIL("omp patch_smooth: plan->solver = %d, only fast diagonalization (0) is implemented",
              (int)pl->solver);
  const int N = pl->nbar, m = pl->m;
  for (int d = 0; d < pl->dim; ++d) {
    if (!pl->mass_1d[d] || !pl->stiffness_1d[d] || !pl->eigenvectors[d] || !pl->eigenvalues[d])
      PLAN_FAIL("omp patch_smooth: a 1D matrix or the eigen-decomposition of direction %d is NULL", d);
    if (!finite_array(pl->mass_1d[d], N * N) || !finite_array(pl->stiffness_1d[d], N * N) ||
        !finite_array(pl->eigenvectors[d], m * m) || !finite_array(pl->eigenvalues[d], m))
      PLAN_FAIL("omp patch_smooth: a 1D matrix or the eigen-decomposition of direction %d is not finite", d);
    for (int i = 0; i < m; ++i)
      if (!(pl->eigenvalues[d][i] > 0))
        PLAN_FAIL("omp patch_smooth: plan->eigenvalues[%d][%d] = %g, expected > 0", d, i,
                  pl->eigenvalues[d][i]);
    if (!(pl->scale[d] > 0) || !isfinite(pl->scale[d]))
      PLAN_FAIL("omp patch_smooth: plan->scale[%d] = %g, expected finite and > 0", d, pl->scale[d]);
  }
  return 0;
}

int ts_omp_patch_smooth(const ts_patch_plan *plan, ts_precision p, const void *b, void *x,
                        void *r, char *err, size_t errlen) {
  int rc = check_plan(plan, p, err, errlen);
  if (rc) return rc;
  const int need_r = plan->stage == TS_PATCH_STAGE_RESIDUAL || plan->stage == TS_PATCH_STAGE_SOLVE;
  if (!b || !x || (need_r && !r)) {
    snprintf(err, errlen, "omp patch_smooth: %s is NULL", !b ? "b" : !x ? "x" : "r (the residual vector)");
    return TS_ERR_ARG;
  }
  if (b == x || (need_r && (r == x || r == b))) {
    snprintf(err, errlen, "omp patch_smooth: b, x and r must be different vectors");
    return TS_ERR_ARG;
  }
  /* TESSERA_OMP_PATCH_GENERIC=1 forces the run-time-degree path (to test it) */
  const char *generic = getenv("TESSERA_OMP_PATCH_GENERIC");
  const int fast = TS_FAST_OK() && !(generic && generic[0] == '1');
  if (p == TS_DOUBLE)
    rc = patch_smooth_d(plan, b, x, r, fast, &patch_work, &patch_work_bytes);
  else
    rc = patch_smooth_f(plan, b, x, r, fast, &patch_work, &patch_work_bytes);
  if (rc) snprintf(err, errlen, "omp patch_smooth: could not allocate the work space");
  return rc;
}
