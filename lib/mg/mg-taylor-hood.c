/* mg-taylor-hood.c -- the Taylor-Hood Stokes system Q_k x Q_{k-1} (papers 001/004, Algorithm
 * 1; doc/taylor-hood.md section 7) as a multigrid discretization: per level a Q_k velocity and
 * a Q_{k-1} pressure DoF handler and the Taylor-Hood operator (rediscretized), the Q_k and
 * Q_{k-1} interpolations per field as the prolongation (the paper's "finite-element
 * interpolation operators"), its transpose as the restriction, one of the paper's
 * relaxations as the smoother, and as the exact coarse solve the LU factorization of the
 * coarse matrix bordered by the constant pressure.  The V-cycle output has its pressure mean
 * removed. */
#include "mg-impl.h"

static int create_operator(ts_mg mg, int i, ts_precision p, ts_operator *A) {
  const ts_mg_level *l = &mg->levels[i];
  TS_CALL(ts_operator_create_taylor_hood(mg->backend, l->dofs, l->pressure_dofs, p, A));
  return 0;
}

static int create_smoother(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  const ts_saddle_relaxation *r = &mg->options.relaxation;
  switch (mg->options.smoother) {
  case TS_MG_SMOOTHER_VANKA:
    TS_CALL(ts_smoother_create_vanka(l->A, r, &l->smoother));
    break;
  case TS_MG_SMOOTHER_BRAESS_SARAZIN:
    TS_CALL(ts_smoother_create_braess_sarazin(l->A, r, &l->smoother));
    break;
  default:
    TS_CALL(ts_smoother_create_schur_uzawa(l->A, r, &l->smoother));
    break;
  }
  return 0;
}

static int create_transfer(ts_mg mg, int i) {
  return ts_mg_saddle_create_transfer(mg, i, ts_field_transfer_plan_init_taylor_hood);
}

static const ts_mg_discretization taylor_hood_discretization = {
    .name = "taylor-hood",
    .create_dofs = ts_mg_saddle_create_dofs,
    .create_operator = create_operator,
    .create_smoother = create_smoother,
    .create_transfer = create_transfer,
    .transfer_apply = ts_mg_saddle_transfer_apply,
    .create_coarse_inverse = ts_mg_saddle_coarse_inverse,
    .postprocess = ts_mg_saddle_postprocess,
    .destroy = ts_mg_saddle_data_destroy,
};

static int check_options(ts_mesh mesh, int degree, int finest, const ts_mg_options *o) {
  TS_CHECK_ARG(degree >= 2 && degree <= TS_MAX_DEGREE,
               "Taylor-Hood multigrid: degree k = %d, allowed 2..%d (Q_k x Q_{k-1})", degree,
               TS_MAX_DEGREE);
  TS_CHECK_ARG(ts_mg_smoother_is_saddle(o->smoother),
               "Taylor-Hood multigrid: smoother %d, allowed vanka (%d), braess-sarazin (%d) or "
               "schur-uzawa (%d)", (int)o->smoother, (int)TS_MG_SMOOTHER_VANKA,
               (int)TS_MG_SMOOTHER_BRAESS_SARAZIN, (int)TS_MG_SMOOTHER_SCHUR_UZAWA);
  TS_CHECK_ARG(o->smoother != TS_MG_SMOOTHER_VANKA || degree == 2,
               "Taylor-Hood multigrid: the Vanka smoother is for Q2 x Q1 (degree 2), not degree "
               "%d; use braess-sarazin or schur-uzawa", degree);
  TS_CHECK_ARG(o->coarse_degree == TS_MG_COARSE_DEGREE_AUTO,
               "Taylor-Hood multigrid: coarse_degree = %d, allowed only TS_MG_COARSE_DEGREE_AUTO "
               "(%d)", o->coarse_degree, TS_MG_COARSE_DEGREE_AUTO);
  TS_CALL(ts_mg_check_common_options(mesh, finest, o));
  TS_CALL(ts_mg_saddle_check_coarse_level(mesh, o, "Taylor-Hood multigrid"));
  return 0;
}

int ts_mg_create_taylor_hood(ts_backend backend, ts_mesh mesh, int degree, int finest_level,
                             const ts_mg_options *options, ts_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(mesh);
  ts_mg_options o;
  if (options) o = *options;
  else {
    ts_mg_options_default(&o);
    o.smoother = TS_MG_SMOOTHER_VANKA;
  }
  TS_CALL(check_options(mesh, degree, finest_level, &o));
  ts_fe velocity = NULL, pressure = NULL;
  int ierr = ts_fe_create_q(ts_mesh_dim(mesh), degree, &velocity);
  if (!ierr) ierr = ts_fe_create_q(ts_mesh_dim(mesh), degree - 1, &pressure);
  ts_mg_saddle_data *data = NULL;
  if (!ierr) ierr = ts_mg_saddle_data_create(velocity, pressure, &data);
  else ts_fe_destroy(&velocity);
  TS_CALL(ierr);
  TS_CALL(ts_mg_create_hierarchy(backend, mesh, data->velocity_fe, finest_level, &o, 0, NULL,
                                 &taylor_hood_discretization, data, mg));
  return 0;
}
