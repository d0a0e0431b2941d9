/* check-poisson.c -- `tessera check`'s checks of Poisson (check.h).
 * Poisson (Q_k on the box): the Laplacian (apply, apply_add, diagonal, unconstrained), one
 * step of each smoother (vertex patch Fused and Separate, Chebyshev), the transfers between
 * the finest level and the one below it, and one V-cycle of the problem's multigrid
 * (double, and mixed precision: single-precision levels).
 * Your own problem (<poisson f=...>, a mapped mesh): its operator (apply, apply_add,
 * diagonal, unconstrained), the Chebyshev smoother on D^{-1} A and on the additive vertex
 * patches, the transfers and the V-cycle of its multigrid (ts_mg_create_mapped); not the
 * box's patch smoothers. */
#include <stdio.h>
#include "check.h"

static int make_fused(const check_context *c, ts_operator A, ts_operator *P, ts_smoother *s) {
  (void)P;
  return ts_smoother_create_vertex_patch(A, c->dofs, TS_PATCH_FUSED, s);
}
static int make_separate(const check_context *c, ts_operator A, ts_operator *P,
                         ts_smoother *s) {
  (void)P;
  return ts_smoother_create_vertex_patch(A, c->dofs, TS_PATCH_SEPARATE, s);
}
static int make_chebyshev(const check_context *c, ts_operator A, ts_operator *P,
                          ts_smoother *s) {
  (void)P;
  return ts_smoother_create_chebyshev(A, c->set.mg.chebyshev_degree, s);
}
/* mapped cells: Chebyshev on the additive vertex patches */
static int make_additive(const check_context *c, ts_operator A, ts_operator *P,
                         ts_smoother *s) {
  TS_CALL(ts_operator_create_patch_additive(A, P));
  return ts_smoother_create_chebyshev_preconditioned(A, *P, c->set.mg.chebyshev_degree, s);
}

static int smooth_fused(const check_context *c, ts_backend b, ts_precision p, double *out,
                        int64_t *count) {
  return check_smoother(c, b, p, out, count, make_fused);
}
static int smooth_separate(const check_context *c, ts_backend b, ts_precision p, double *out,
                           int64_t *count) {
  return check_smoother(c, b, p, out, count, make_separate);
}
static int smooth_chebyshev(const check_context *c, ts_backend b, ts_precision p, double *out,
                            int64_t *count) {
  return check_smoother(c, b, p, out, count, make_chebyshev);
}
static int smooth_additive(const check_context *c, ts_backend b, ts_precision p, double *out,
                           int64_t *count) {
  return check_smoother(c, b, p, out, count, make_additive);
}

static void print_q(const check_context *c) {
  printf("Q%d, level %d, %lld DoFs\n", c->set.degree, c->set.level, (long long)c->n);
}

/* The rows both Poisson tables share, in their order: the operator, then (between them) the
 * smoothers, then the transfers and the V-cycle. */
#define OPERATOR_ROWS                                                     \
  {"laplace apply", TS_DOUBLE, check_op_apply, NULL, NULL},               \
  {"laplace apply", TS_SINGLE, check_op_apply, NULL, NULL},               \
  {"laplace apply_add", TS_DOUBLE, check_op_apply_add, NULL, NULL},       \
  {"laplace apply_add", TS_SINGLE, check_op_apply_add, NULL, NULL},       \
  {"laplace diagonal", TS_DOUBLE, check_op_diagonal, NULL, NULL},         \
  {"laplace diagonal", TS_SINGLE, check_op_diagonal, NULL, NULL},         \
  {"laplace unconstrained", TS_DOUBLE, check_op_unconstrained, NULL, NULL}, \
  {"laplace unconstrained", TS_SINGLE, check_op_unconstrained, NULL, NULL}
#define CHEBYSHEV_ROWS                                               \
  {"smoother chebyshev", TS_DOUBLE, smooth_chebyshev, NULL, NULL},   \
  {"smoother chebyshev", TS_SINGLE, smooth_chebyshev, NULL, NULL}
#define MULTIGRID_ROWS                                                               \
  {"prolongation", TS_DOUBLE, check_prolongate, check_needs_coarser_level, NULL},    \
  {"prolongation", TS_SINGLE, check_prolongate, check_needs_coarser_level, NULL},    \
  {"restriction", TS_DOUBLE, check_restrict, check_needs_coarser_level, NULL},       \
  {"restriction", TS_SINGLE, check_restrict, check_needs_coarser_level, NULL},       \
  {"v-cycle", TS_DOUBLE, check_vcycle, check_needs_multigrid, NULL},                 \
  {"v-cycle mixed", TS_SINGLE, check_vcycle, check_needs_multigrid, NULL}

static const check_entry poisson_checks[] = {
    OPERATOR_ROWS,
    {"smoother patch fused", TS_DOUBLE, smooth_fused, NULL, NULL},
    {"smoother patch fused", TS_SINGLE, smooth_fused, NULL, NULL},
    {"smoother patch separate", TS_DOUBLE, smooth_separate, NULL, NULL},
    {"smoother patch separate", TS_SINGLE, smooth_separate, NULL, NULL},
    CHEBYSHEV_ROWS,
    MULTIGRID_ROWS,
};

static const check_entry own_checks[] = {
    OPERATOR_ROWS,
    CHEBYSHEV_ROWS,
    /* (patches need 2 cells per direction: a finest level above the coarse one) */
    {"smoother patch additive", TS_DOUBLE, smooth_additive, check_needs_multigrid, NULL},
    {"smoother patch additive", TS_SINGLE, smooth_additive, check_needs_multigrid, NULL},
    MULTIGRID_ROWS,
};

const check_equation check_poisson = {
    .equation = "poisson",
    .checks = poisson_checks,
    .n_checks = sizeof poisson_checks / sizeof poisson_checks[0],
    .solution_parts = {"solve solution"},
    .degree_levels = 1,
    .print_discretization = print_q,
};

const check_equation check_poisson_own = {
    .equation = "poisson-own",
    .checks = own_checks,
    .n_checks = sizeof own_checks / sizeof own_checks[0],
    .solution_parts = {"solve solution"},
    .degree_levels = 1,
    .print_discretization = print_q,
};
