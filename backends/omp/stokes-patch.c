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

#define PLAN_FAIL(...)                  \
  do {                                  \
    snprintf(err, errlen, __VA_ARGS__); \
    return TS_ERR_ARG;                  \
  } while (0)

/* The local solver's data for the kinds the plan's patches can have. */
static int check_solver(const ts_stokes_patch_plan *pl, char *err, size_t errlen) {
  if (pl->solver == TS_STOKES_PATCH_SCHUR) {
    if (!pl->cont_eigenvectors || !pl->cont_eigenvalues)
      PLAN_FAIL("omp stokes_patch_smooth: the continuous eigen-decomposition is NULL");
    for (int kind = 0; kind < TS_STOKES_PATCH_KINDS; ++kind)
      if (!pl->dg_eigenvectors[kind] || !pl->dg_eigenvalues[kind])
        PLAN_FAIL("omp stokes_patch_smooth: the DG eigen-decomposition of kind %d is NULL", kind);
    if (pl->cg_max_iterations < 1 || !(pl->cg_tolerance >= 0))
      PLAN_FAIL("omp stokes_patch_smooth: cg_max_iterations = %d, cg_tolerance = %g; expected "
                ">= 1 and >= 0", pl->cg_max_iterations, pl->cg_tolerance);
    return 0;
  }
  if (pl->solver != TS_STOKES_PATCH_DIRECT)
    PLAN_FAIL("omp stokes_patch_smooth: plan->solver = %d, expected SCHUR (0) or DIRECT (1)",
              (int)pl->solver);
  for (int d = 0; d < pl->global.dim; ++d) /* the first and last vertex decide the kinds */
    for (int end = 0; end < 2; ++end) {
      int kind = 0;
      for (int e = 0; e < pl->global.dim; ++e) {
        const int64_t v = pl->first_vertex[e] + (e == d && end ? pl->vertex_stride * (pl->vertex_count[e] - 1) : 0);
        kind += ((v == 1 ? 1 : 0) | (v == pl->global.cells[e] - 1 ? 2 : 0)) << (2 * e);
      }
      if (!pl->pseudo_inverse[kind])
        PLAN_FAIL("omp stokes_patch_smooth: the pseudo-inverse of patch kind %d is NULL", kind);
    }
  return 0;
}

/* Checks the plan; 0 or TS_ERR_ARG with a message. */
static int check_plan(const ts_stokes_patch_plan *pl, ts_precision p, char *err, size_t errlen) {
  if (!pl) PLAN_FAIL("omp stokes_patch_smooth: plan is NULL");
  if (p != TS_DOUBLE && p != TS_SINGLE)
    PLAN_FAIL("omp stokes_patch_smooth: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", (int)p);
  const ts_stokes_plan *g = &pl->global;
  if (g->dim != 2 && g->dim != 3) PLAN_FAIL("omp stokes_patch_smooth: dim = %d, expected 2 or 3", g->dim);
  if (pl->stage != TS_PATCH_STAGE_SOLVE)
    PLAN_FAIL("omp stokes_patch_smooth: stage = %d, only TS_PATCH_STAGE_SOLVE (%d) applies to "
              "Stokes (the residual is computed with the Stokes operator)",
              (int)pl->stage, (int)TS_PATCH_STAGE_SOLVE);
  const int k = g->degree;
  if (k < 0 || k > TS_MAX_DEGREE - 1) PLAN_FAIL("omp stokes_patch_smooth: degree = %d, expected 0..%d", k, TS_MAX_DEGREE - 1);
  int nv = 2 * k + 1, np = 1;
  for (int d = 1; d < g->dim; ++d) nv *= 2 * (k + 1);
  for (int d = 0; d < g->dim; ++d) np *= 2 * (k + 1);
  if (pl->n_cont != 2 * k + 1 || pl->n_dg != 2 * (k + 1) || pl->n_velocity != nv ||
      pl->n_pressure != np || pl->n_local != g->dim * nv + np)
    PLAN_FAIL("omp stokes_patch_smooth: local sizes n_cont %d, n_dg %d, n_velocity %d, "
              "n_pressure %d, n_local %d; expected %d, %d, %d, %d, %d for degree %d",
              pl->n_cont, pl->n_dg, pl->n_velocity, pl->n_pressure, pl->n_local, 2 * k + 1,
              2 * (k + 1), nv, np, g->dim * nv + np, k);
  if (pl->vertex_stride < 2)
    PLAN_FAIL("omp stokes_patch_smooth: vertex_stride = %d, patches of one color need >= 2",
              pl->vertex_stride);
  for (int d = 0; d < g->dim; ++d) {
    const int64_t f = pl->first_vertex[d], c = pl->vertex_count[d];
    if (c < 1 || f < 1 || f + pl->vertex_stride * (c - 1) > g->cells[d] - 1)
      PLAN_FAIL("omp stokes_patch_smooth: direction %d: vertices %lld + %d j, j < %lld, leave "
                "the interior vertices 1..%lld", d, (long long)f, pl->vertex_stride,
                (long long)c, (long long)g->cells[d] - 1);
    if (!(g->scale[d] > 0) || !(g->div_scale[d] > 0))
      PLAN_FAIL("omp stokes_patch_smooth: scale[%d] = %g, div_scale[%d] = %g; expected > 0", d,
                g->scale[d], d, g->div_scale[d]);
  }
  if (!pl->divergence || !pl->dg_mass)
    PLAN_FAIL("omp stokes_patch_smooth: the patch divergence or DG mass is NULL");
  return check_solver(pl, err, errlen);
}

int ts_omp_stokes_patch_smooth(const ts_stokes_patch_plan *plan, ts_precision p, const void *b,
                               void *x, void *r, char *err, size_t errlen) {
  (void)b;
  int rc = check_plan(plan, p, err, errlen);
  if (rc) return rc;
  if (!x || !r || x == r) PLAN_FAIL("omp stokes_patch_smooth: x and r must be two different vectors");
  if (p == TS_DOUBLE)
    rc = stokes_stokes_patch_solve_d(plan, r, x);
  else
    rc = stokes_stokes_patch_solve_f(plan, r, x);
  if (rc) snprintf(err, errlen, "omp stokes_patch_smooth: could not allocate the work space");
  return rc;
}
