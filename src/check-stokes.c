/* check-stokes.c -- `tessera check`'s checks of Stokes, RT_k x DGQ_k (doc/stokes.md;
 * check.h): the Stokes operator (apply, apply_add), one step of the Stokes vertex-patch
 * smoother with each local solver (Schur complement, direct), the multi-field transfers
 * between the finest level and the one below it, one V-cycle of ts_mg_create_stokes (double
 * and mixed); the solutions compare velocity and pressure apart (the pressure with its mean
 * removed, as `tessera run` leaves it). */
#include <stdio.h>
#include "check.h"

static int make_schur(const check_context *c, ts_operator A, ts_operator *P, ts_smoother *s) {
  (void)P;
  return ts_smoother_create_stokes_patch(A, c->dofs, c->pressure, TS_STOKES_PATCH_SCHUR, s);
}
/* the direct (pseudo-inverse) local solver */
static int make_direct(const check_context *c, ts_operator A, ts_operator *P, ts_smoother *s) {
  (void)P;
  return ts_smoother_create_stokes_patch(A, c->dofs, c->pressure, TS_STOKES_PATCH_DIRECT, s);
}

static int smooth_schur(const check_context *c, ts_backend b, ts_precision p, double *out,
                        int64_t *count) {
  return check_smoother(c, b, p, out, count, make_schur);
}
static int smooth_direct(const check_context *c, ts_backend b, ts_precision p, double *out,
                         int64_t *count) {
  return check_smoother(c, b, p, out, count, make_direct);
}

/* a degree the direct local solver takes */
static const char *needs_direct_degree(const check_context *c, char *buf, size_t len) {
  const int max = ts_stokes_patch_solver_max_degree(c->set.dim, TS_STOKES_PATCH_DIRECT);
  if (c->set.degree <= max) return NULL;
  snprintf(buf, len, "the direct local solver takes degree <= %d in %dD, the problem has %d",
           max, c->set.dim, c->set.degree);
  return buf;
}

static void print_rt(const check_context *c) {
  printf("Stokes RT%d x DGQ%d, level %d, %lld DoFs (velocity %lld + pressure %lld)\n",
         c->set.degree, c->set.degree, c->set.level, (long long)c->n, (long long)c->n_velocity,
         (long long)(c->n - c->n_velocity));
}

static const check_entry checks[] = {
    {"stokes apply", TS_DOUBLE, check_op_apply, NULL, NULL},
    {"stokes apply", TS_SINGLE, check_op_apply, NULL, NULL},
    {"stokes apply_add", TS_DOUBLE, check_op_apply_add, NULL, NULL},
    {"stokes apply_add", TS_SINGLE, check_op_apply_add, NULL, NULL},
    {"stokes smoother schur", TS_DOUBLE, smooth_schur, NULL, NULL},
    {"stokes smoother schur", TS_SINGLE, smooth_schur, NULL, NULL},
    {"stokes smoother direct", TS_DOUBLE, smooth_direct, needs_direct_degree, NULL},
    {"stokes smoother direct", TS_SINGLE, smooth_direct, needs_direct_degree, NULL},
    {"stokes prolongation", TS_DOUBLE, check_prolongate, check_needs_coarser_level, NULL},
    {"stokes prolongation", TS_SINGLE, check_prolongate, check_needs_coarser_level, NULL},
    {"stokes restriction", TS_DOUBLE, check_restrict, check_needs_coarser_level, NULL},
    {"stokes restriction", TS_SINGLE, check_restrict, check_needs_coarser_level, NULL},
    {"stokes v-cycle", TS_DOUBLE, check_vcycle, check_needs_multigrid, NULL},
    {"stokes v-cycle mixed", TS_SINGLE, check_vcycle, check_needs_multigrid, NULL},
};

const check_equation check_stokes = {
    .equation = "stokes",
    .checks = checks,
    .n_checks = sizeof checks / sizeof checks[0],
    .solution_parts = {"solve velocity", "solve pressure"},
    .transfers_from_coarse_level = 1,
    .print_discretization = print_rt,
};
