/* saddle-relaxation.c -- the defaults of the Taylor-Hood relaxations and the pieces that
 * Braess-Sarazin and Schur-Uzawa share (saddle-relaxation.h).  With Acal = [A B^T; -B 0]
 * (doc/taylor-hood.md section 2) the paper's symmetric form [A B^T; B 0] has the second
 * residual row -r_p, and its S = -(1/t) B D^{-1} B^T is minus ours. */
#include "saddle-relaxation.h"

int ts_saddle_relaxation_default(ts_mg_smoother_type type, int degree,
                                 ts_saddle_relaxation *params) {
  TS_CHECK_NOT_NULL(params);
  *params = (ts_saddle_relaxation){0};
  TS_CHECK_ARG(degree >= 2, "ts_saddle_relaxation_default: degree %d, allowed k >= 2 (Q_k x "
               "Q_{k-1})", degree);
  const int high = degree >= 3;
  switch (type) {
  case TS_MG_SMOOTHER_VANKA:
    params->weight = TS_VANKA_WEIGHT;
    return 0;
  case TS_MG_SMOOTHER_BRAESS_SARAZIN:
    *params = (ts_saddle_relaxation){
        .weight = high ? TS_BRAESS_SARAZIN_HIGH_ORDER_WEIGHT : TS_BRAESS_SARAZIN_WEIGHT,
        .t = TS_BRAESS_SARAZIN_T, .schur_sweeps = TS_BRAESS_SARAZIN_SWEEPS,
        .schur_weight = high ? TS_BRAESS_SARAZIN_HIGH_ORDER_SCHUR_WEIGHT
                             : TS_BRAESS_SARAZIN_SCHUR_WEIGHT};
    return 0;
  case TS_MG_SMOOTHER_SCHUR_UZAWA:
    *params = (ts_saddle_relaxation){.weight = 1.0, .t = TS_SCHUR_UZAWA_T,
                                     .schur_sweeps = TS_SCHUR_UZAWA_SWEEPS,
                                     .schur_weight = TS_SCHUR_UZAWA_SCHUR_WEIGHT};
    return 0;
  default:
    return TS_ERROR(TS_ERR_ARG, "ts_saddle_relaxation_default: smoother type %d is no relaxation "
                    "of a saddle-point system, allowed %d (vanka), %d (braess-sarazin), %d "
                    "(schur-uzawa)", (int)type, (int)TS_MG_SMOOTHER_VANKA,
                    (int)TS_MG_SMOOTHER_BRAESS_SARAZIN, (int)TS_MG_SMOOTHER_SCHUR_UZAWA);
  }
}

int ts_saddle_relaxation_resolve(ts_mg_smoother_type type, int degree,
                                 const ts_saddle_relaxation *given, ts_saddle_relaxation *r) {
  TS_CALL(ts_saddle_relaxation_default(type, degree, r));
  if (!given) return 0;
  if (type == TS_MG_SMOOTHER_VANKA) {
    r->multiplicative = given->multiplicative;
    if (given->multiplicative == 1) r->weight = TS_VANKA_MULTIPLICATIVE_WEIGHT;
  }
  if (given->weight != 0.0) r->weight = given->weight;
  if (given->t != 0.0) r->t = given->t;
  if (given->schur_sweeps != 0) r->schur_sweeps = given->schur_sweeps;
  if (given->schur_weight != 0.0) r->schur_weight = given->schur_weight;
  return 0;
}

void ts_schur_jacobi_blocks(const ts_schur_jacobi *s, ts_vec x, struct ts_vec_s *u,
                            struct ts_vec_s *p) {
  ts_vec_view_init(u, x, 0, s->n_u);
  ts_vec_view_init(p, x, s->n_u, s->n_p);
}

/* 1 / (t D) and weight / diag(S), S = B (t D)^{-1} B^T (assembled on the host) */
static int diagonals(ts_schur_jacobi *s, double t) {
  double *w = NULL, *d = NULL;
  int ierr = ts_calloc((size_t)s->n_u, sizeof *w, "velocity diagonal", &w);
  if (!ierr) ierr = ts_calloc((size_t)s->n_p, sizeof *d, "Schur diagonal", &d);
  if (!ierr) ierr = s->saddle->velocity_diagonal(s->stokes, s->velocity_inverse);
  if (!ierr) ierr = ts_vec_get_to_host(s->velocity_inverse, w);
  for (int64_t i = 0; !ierr && i < s->n_u; ++i) w[i] = 1.0 / (t * w[i]);
  if (!ierr) ierr = ts_vec_set_from_host(s->velocity_inverse, w);
  if (!ierr) ierr = ts_taylor_hood_schur_diagonal(s->stokes, w, d);
  for (int64_t q = 0; !ierr && q < s->n_p; ++q) {
    if (!(d[q] > 0.0))
      ierr = TS_ERROR(TS_ERR_ARG, "Schur complement diagonal: entry %lld is %g, not positive",
                      (long long)q, d[q]);
    else d[q] = s->weight / d[q];
  }
  if (!ierr) ierr = ts_vec_set_from_host(s->schur_inverse, d);
  ts_free(&w);
  ts_free(&d);
  return ierr;
}

int ts_schur_jacobi_init(ts_operator stokes, const ts_saddle_relaxation *params, const char *who,
                         ts_schur_jacobi *s) {
  *s = (ts_schur_jacobi){0};
  TS_CHECK_ARG(params->t > 0.0, "%s: t = %g, allowed t > 0", who, params->t);
  TS_CHECK_ARG(params->schur_sweeps >= 1 && params->schur_sweeps <= 100,
               "%s: schur_sweeps = %d, allowed 1..100", who, params->schur_sweeps);
  TS_CHECK_ARG(params->schur_weight > 0.0 && params->schur_weight < 2.0,
               "%s: schur_weight = %g, allowed 0 < weight < 2", who, params->schur_weight);
  ts_taylor_hood_layout layout;
  TS_CALL(ts_taylor_hood_layout_of(stokes, who, &layout));
  TS_CALL(ts_saddle_of(stokes, who, &s->saddle));
  s->stokes = stokes;
  s->n_u = s->saddle->velocity_count;
  s->n_p = s->saddle->pressure_count;
  s->sweeps = params->schur_sweeps;
  s->weight = params->schur_weight;
  ts_backend be = stokes->backend;
  const ts_precision p = stokes->precision;
  int ierr = ts_vec_create(be, stokes->n, p, &s->r);
  if (!ierr) ierr = ts_vec_create(be, s->n_u, p, &s->velocity_inverse);
  if (!ierr) ierr = ts_vec_create(be, s->n_p, p, &s->schur_inverse);
  if (!ierr) ierr = ts_vec_create(be, s->n_u, p, &s->du);
  if (!ierr) ierr = ts_vec_create(be, s->n_u, p, &s->tu);
  if (!ierr) ierr = ts_vec_create(be, s->n_p, p, &s->dp);
  if (!ierr) ierr = ts_vec_create(be, s->n_p, p, &s->rhs);
  if (!ierr) ierr = ts_vec_create(be, s->n_p, p, &s->tp);
  if (!ierr) ierr = diagonals(s, params->t);
  if (ierr) {
    ts_schur_jacobi_free(s);
    return ts_error_trace(ierr, __FILE__, __LINE__, who);
  }
  return 0;
}

void ts_schur_jacobi_free(ts_schur_jacobi *s) {
  ts_vec_destroy(&s->r);
  ts_vec_destroy(&s->velocity_inverse);
  ts_vec_destroy(&s->schur_inverse);
  ts_vec_destroy(&s->du);
  ts_vec_destroy(&s->tu);
  ts_vec_destroy(&s->dp);
  ts_vec_destroy(&s->rhs);
  ts_vec_destroy(&s->tp);
}

int ts_schur_jacobi_prepare(ts_schur_jacobi *s, ts_vec b, ts_vec x) {
  TS_CALL(ts_operator_apply(s->stokes, x, s->r));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, s->r));
  struct ts_vec_s r_u, r_p;
  ts_schur_jacobi_blocks(s, s->r, &r_u, &r_p);
  TS_CALL(ts_vec_pointwise_mult(s->velocity_inverse, &r_u, s->du));
  TS_CALL(ts_vec_copy(&r_p, s->rhs));
  /* -B du = the operator's block (1,0): rhs = r_p - Acal_10 du */
  TS_CALL(s->saddle->apply_block(s->stokes, 1, 0, s->du, s->tp, 0));
  TS_CALL(ts_vec_axpby(-1.0, s->tp, 1.0, s->rhs));
  return 0;
}

/* tp = -S dp, S dp = B (t D)^{-1} B^T dp = -Acal_10 ((t D)^{-1} Acal_01 dp) */
static int schur_apply_negated(ts_schur_jacobi *s) {
  TS_CALL(s->saddle->apply_block(s->stokes, 0, 1, s->dp, s->tu, 0));
  TS_CALL(ts_vec_pointwise_mult(s->velocity_inverse, s->tu, s->tu));
  TS_CALL(s->saddle->apply_block(s->stokes, 1, 0, s->tu, s->tp, 0));
  return 0;
}

int ts_schur_jacobi_solve(ts_schur_jacobi *s) {
  /* the first sweep from zero: dp = weight diag(S)^{-1} rhs */
  TS_CALL(ts_vec_pointwise_mult(s->schur_inverse, s->rhs, s->dp));
  for (int sweep = 1; sweep < s->sweeps; ++sweep) {
    TS_CALL(schur_apply_negated(s)); /* dp += weight diag(S)^{-1} (rhs - S dp) */
    TS_CALL(ts_vec_axpby(1.0, s->rhs, 1.0, s->tp));
    TS_CALL(ts_vec_pointwise_mult(s->schur_inverse, s->tp, s->tp));
    TS_CALL(ts_vec_axpby(1.0, s->tp, 1.0, s->dp));
  }
  return 0;
}
