/* braess-sarazin.c -- inexact Braess-Sarazin relaxation of the Taylor-Hood system (paper
 * 004, Algorithm 2, eqs. (17)-(18); Zulehner's inexact variant): A replaced by t D,
 * D = diag(A); dp from weighted Jacobi sweeps on S dp = r_p + B (t D)^{-1} r_u (our signs,
 * saddle-relaxation.c), du = (t D)^{-1} (r_u - B^T dp), and x += omega_BS (du, dp). */
#include "saddle-relaxation.h"

typedef struct braess_sarazin {
  ts_schur_jacobi schur;
  double weight;                /* omega_BS */
} braess_sarazin;

static int bs_smooth(ts_smoother s, ts_vec b, ts_vec x) {
  braess_sarazin *bs = s->data;
  ts_schur_jacobi *sj = &bs->schur;
  TS_CHECK_ARG(b != x, "Braess-Sarazin smoother: b and x must be different vectors");
  TS_CALL(ts_schur_jacobi_prepare(sj, b, x));
  TS_CALL(ts_schur_jacobi_solve(sj));
  struct ts_vec_s r_u, r_p, x_u, x_p;
  ts_schur_jacobi_blocks(sj, sj->r, &r_u, &r_p);
  ts_schur_jacobi_blocks(sj, x, &x_u, &x_p);
  /* du = (t D)^{-1} (r_u - B^T dp), B^T = Acal_01 */
  TS_CALL(sj->saddle->apply_block(sj->stokes, 0, 1, sj->dp, sj->tu, 0));
  TS_CALL(ts_vec_axpby(1.0, &r_u, -1.0, sj->tu));
  TS_CALL(ts_vec_pointwise_mult(sj->velocity_inverse, sj->tu, sj->du));
  TS_CALL(ts_vec_axpby(bs->weight, sj->du, 1.0, &x_u));
  TS_CALL(ts_vec_axpby(bs->weight, sj->dp, 1.0, &x_p));
  return 0;
}

static void bs_destroy(ts_smoother s) {
  braess_sarazin *bs = s->data;
  if (!bs) return;
  ts_schur_jacobi_free(&bs->schur);
  ts_free(&s->data);
}

static const ts_smoother_ops braess_sarazin_ops = {
    .name = "braess-sarazin",
    .apply = bs_smooth,
    .destroy = bs_destroy,
};

int ts_smoother_create_braess_sarazin(ts_operator stokes, const ts_saddle_relaxation *params,
                                      ts_smoother *smoother) {
  TS_CHECK_NOT_NULL(smoother);
  *smoother = NULL;
  TS_CHECK_NOT_NULL(stokes);
  ts_taylor_hood_layout layout;
  TS_CALL(ts_taylor_hood_layout_of(stokes, "ts_smoother_create_braess_sarazin", &layout));
  ts_saddle_relaxation r;
  TS_CALL(ts_saddle_relaxation_resolve(TS_MG_SMOOTHER_BRAESS_SARAZIN, layout.degree, params, &r));
  TS_CHECK_ARG(r.weight > 0.0 && r.weight <= 2.0,
               "Braess-Sarazin smoother: weight = %g, allowed 0 < weight <= 2", r.weight);
  braess_sarazin *bs;
  TS_CALL(ts_calloc(1, sizeof *bs, "Braess-Sarazin smoother", &bs));
  bs->weight = r.weight;
  int ierr = ts_schur_jacobi_init(stokes, &r, "Braess-Sarazin smoother", &bs->schur);
  if (!ierr) ierr = ts_smoother_create_shell(stokes, &braess_sarazin_ops, bs, smoother);
  if (ierr) {
    ts_schur_jacobi_free(&bs->schur);
    ts_free(&bs);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Braess-Sarazin smoother setup");
  }
  return 0;
}
