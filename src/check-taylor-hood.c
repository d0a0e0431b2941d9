/* check-taylor-hood.c -- `tessera check`'s checks of Taylor-Hood, Q_k x Q_{k-1}
 * (<element family="taylor-hood">, doc/taylor-hood.md; check.h): its operator (apply,
 * apply_add, unconstrained); with the coupled multigrid one step of each relaxation (Vanka
 * additive and multiplicative for Q2 x Q1, Braess-Sarazin, Schur-Uzawa), the transfers and
 * one V-cycle of ts_mg_create_taylor_hood (double and mixed); with mg at the velocity block
 * one V-cycle of the velocity Laplacian's hierarchy; then the solve as for Stokes. */
#include <stdio.h>
#include "check.h"

static int make_vanka(const check_context *c, ts_operator A, ts_operator *P, ts_smoother *s) {
  (void)c, (void)P;
  return ts_smoother_create_vanka(A, NULL, s);
}
static int make_vanka_multiplicative(const check_context *c, ts_operator A, ts_operator *P,
                                     ts_smoother *s) {
  (void)c, (void)P;
  const ts_saddle_relaxation r = {.multiplicative = 1};
  return ts_smoother_create_vanka(A, &r, s);
}
static int make_braess_sarazin(const check_context *c, ts_operator A, ts_operator *P,
                               ts_smoother *s) {
  (void)c, (void)P;
  return ts_smoother_create_braess_sarazin(A, NULL, s);
}
static int make_schur_uzawa(const check_context *c, ts_operator A, ts_operator *P,
                            ts_smoother *s) {
  (void)c, (void)P;
  return ts_smoother_create_schur_uzawa(A, NULL, s);
}

static int smooth_vanka(const check_context *c, ts_backend b, ts_precision p, double *out,
                        int64_t *count) {
  return check_smoother(c, b, p, out, count, make_vanka);
}
static int smooth_vanka_multiplicative(const check_context *c, ts_backend b, ts_precision p,
                                       double *out, int64_t *count) {
  return check_smoother(c, b, p, out, count, make_vanka_multiplicative);
}
static int smooth_braess_sarazin(const check_context *c, ts_backend b, ts_precision p,
                                 double *out, int64_t *count) {
  return check_smoother(c, b, p, out, count, make_braess_sarazin);
}
static int smooth_schur_uzawa(const check_context *c, ts_backend b, ts_precision p, double *out,
                              int64_t *count) {
  return check_smoother(c, b, p, out, count, make_schur_uzawa);
}

/* the velocity Laplacian's hierarchy (mg at the velocity block), on one component */
static int component_vcycle(const check_context *c, ts_backend b, ts_precision p, double *out,
                            int64_t *count) {
  return check_vcycle_of(c, b, p, ts_dofs_count(c->dofs), out, count);
}

/* Vanka's patches: Q2 x Q1 */
static const char *needs_q2(const check_context *c, char *buf, size_t len) {
  if (c->set.degree == 2) return NULL;
  snprintf(buf, len, "Vanka is for Q2 x Q1, the problem has Q%d x Q%d", c->set.degree,
           c->set.degree - 1);
  return buf;
}

/* the coupled multigrid (mg of the whole system, a relaxation of the saddle-point system as
 * its smoother), or mg at the velocity block (the Laplacian's) */
static int coupled(const check_context *c) {
  const ts_mg_smoother_type t = c->set.mg.smoother;
  return t == TS_MG_SMOOTHER_VANKA || t == TS_MG_SMOOTHER_BRAESS_SARAZIN ||
         t == TS_MG_SMOOTHER_SCHUR_UZAWA;
}
static int velocity_block(const check_context *c) { return !coupled(c); }

static void print_taylor_hood(const check_context *c) {
  printf("Stokes Taylor-Hood Q%d x Q%d, level %d, %lld DoFs (velocity %lld + pressure %lld)\n",
         c->set.degree, c->set.degree - 1, c->set.level, (long long)c->n,
         (long long)c->n_velocity, (long long)(c->n - c->n_velocity));
}

static const check_entry checks[] = {
    {"taylor-hood apply", TS_DOUBLE, check_op_apply, NULL, NULL},
    {"taylor-hood apply", TS_SINGLE, check_op_apply, NULL, NULL},
    {"taylor-hood apply_add", TS_DOUBLE, check_op_apply_add, NULL, NULL},
    {"taylor-hood apply_add", TS_SINGLE, check_op_apply_add, NULL, NULL},
    {"taylor-hood unconstrained", TS_DOUBLE, check_op_unconstrained, NULL, NULL},
    {"taylor-hood unconstrained", TS_SINGLE, check_op_unconstrained, NULL, NULL},
    {"velocity v-cycle", TS_DOUBLE, component_vcycle, check_needs_multigrid, velocity_block},
    {"velocity v-cycle mixed", TS_SINGLE, component_vcycle, check_needs_multigrid,
     velocity_block},
    {"taylor-hood smoother vanka", TS_DOUBLE, smooth_vanka, needs_q2, coupled},
    {"taylor-hood smoother vanka", TS_SINGLE, smooth_vanka, needs_q2, coupled},
    {"taylor-hood smoother vanka mult.", TS_DOUBLE, smooth_vanka_multiplicative, needs_q2,
     coupled},
    {"taylor-hood smoother vanka mult.", TS_SINGLE, smooth_vanka_multiplicative, needs_q2,
     coupled},
    {"taylor-hood smoother braess-sar.", TS_DOUBLE, smooth_braess_sarazin, NULL, coupled},
    {"taylor-hood smoother braess-sar.", TS_SINGLE, smooth_braess_sarazin, NULL, coupled},
    {"taylor-hood smoother schur-uzawa", TS_DOUBLE, smooth_schur_uzawa, NULL, coupled},
    {"taylor-hood smoother schur-uzawa", TS_SINGLE, smooth_schur_uzawa, NULL, coupled},
    {"taylor-hood prolongation", TS_DOUBLE, check_prolongate, check_needs_coarser_level, coupled},
    {"taylor-hood prolongation", TS_SINGLE, check_prolongate, check_needs_coarser_level, coupled},
    {"taylor-hood restriction", TS_DOUBLE, check_restrict, check_needs_coarser_level, coupled},
    {"taylor-hood restriction", TS_SINGLE, check_restrict, check_needs_coarser_level, coupled},
    {"taylor-hood v-cycle", TS_DOUBLE, check_vcycle, check_needs_multigrid, coupled},
    {"taylor-hood v-cycle mixed", TS_SINGLE, check_vcycle, check_needs_multigrid, coupled},
};

const check_equation check_taylor_hood = {
    .equation = "taylor-hood",
    .checks = checks,
    .n_checks = sizeof checks / sizeof checks[0],
    .solution_parts = {"solve velocity", "solve pressure"},
    .transfers_from_coarse_level = 1,
    .print_discretization = print_taylor_hood,
};
