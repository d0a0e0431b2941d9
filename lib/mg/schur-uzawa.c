/* schur-uzawa.c -- Schur-Uzawa relaxation of the Taylor-Hood system (paper 004, Algorithm 4):
 * the block lower-triangular approximation of eq. (22), du = (t D)^{-1} r_u, dp from weighted
 * Jacobi sweeps on S dp = r_p + B du, and x += (du, dp), unweighted.  Eq. (24) of the paper
 * writes the right side with the opposite sign; (22), from which it is derived, gives this
 * one (doc/taylor-hood.md section 8). */
#include "saddle-relaxation.h"

typedef struct schur_uzawa {
  ts_schur_jacobi schur;
} schur_uzawa;

static int su_smooth(ts_smoother s, ts_vec b, ts_vec x) {
  schur_uzawa *su = s->data;
  ts_schur_jacobi *sj = &su->schur;
  TS_CHECK_ARG(b != x, "Schur-Uzawa smoother: b and x must be different vectors");
  TS_CALL(ts_schur_jacobi_prepare(sj, b, x)); /* du = (t D)^{-1} r_u, rhs = r_p + B du */
  TS_CALL(ts_schur_jacobi_solve(sj));
  struct ts_vec_s x_u, x_p;
  ts_schur_jacobi_blocks(sj, x, &x_u, &x_p);
  TS_CALL(ts_vec_axpby(1.0, sj->du, 1.0, &x_u));
  TS_CALL(ts_vec_axpby(1.0, sj->dp, 1.0, &x_p));
  return 0;
}

static void su_destroy(ts_smoother s) {
  schur_uzawa *su = s->data;
  if (!su) return;
  ts_schur_jacobi_free(&su->schur);
  ts_free(&s->data);
}

static const ts_smoother_ops schur_uzawa_ops = {
    .name = "schur-uzawa",
    .apply = su_smooth,
    .destroy = su_destroy,
};

int ts_smoother_create_schur_uzawa(ts_operator stokes, const ts_saddle_relaxation *params,
                                   ts_smoother *smoother) {
  TS_CHECK_NOT_NULL(smoother);
  *smoother = NULL;
  TS_CHECK_NOT_NULL(stokes);
  ts_taylor_hood_layout layout;
  TS_CALL(ts_taylor_hood_layout_of(stokes, "ts_smoother_create_schur_uzawa", &layout));
  ts_saddle_relaxation r;
  TS_CALL(ts_saddle_relaxation_resolve(TS_MG_SMOOTHER_SCHUR_UZAWA, layout.degree, params, &r));
  schur_uzawa *su;
  TS_CALL(ts_calloc(1, sizeof *su, "Schur-Uzawa smoother", &su));
  int ierr = ts_schur_jacobi_init(stokes, &r, "Schur-Uzawa smoother", &su->schur);
  if (!ierr) ierr = ts_smoother_create_shell(stokes, &schur_uzawa_ops, su, smoother);
  if (ierr) {
    ts_schur_jacobi_free(&su->schur);
    ts_free(&su);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Schur-Uzawa smoother setup");
  }
  return 0;
}
