/* mg-stokes.c -- the Stokes system of RT_k x DGQ_k (doc/stokes.md; paper 000, section 3) as
 * a multigrid discretization: per level an RT_k and a DGQ_k DoF handler, the matrix-free
 * Stokes operator, the embedding of X_{l-1} = V_{l-1} x Q_{l-1} into X_l and its transpose
 * (doc/stokes.md section 5), the Stokes vertex-patch smoother (section 7), and as the exact
 * coarse solve the LU factorization of the assembled coarse matrix bordered by the constant
 * pressure, by which alone the system is singular (section 3; coarse-dense.c).  The V-cycle
 * output has its pressure mean removed (section 6). */
#include "mg-impl.h"

static const ts_mg_discretization stokes_discretization;

static int create_operator(ts_mg mg, int i, ts_precision p, ts_operator *A) {
  const ts_mg_level *l = &mg->levels[i];
  TS_CALL(ts_operator_create_stokes(mg->backend, l->dofs, l->pressure_dofs,
                                    mg->options.stokes_penalty, p, A));
  return 0;
}

static int create_smoother(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  TS_CALL(ts_smoother_create_stokes_patch(l->A, l->dofs, l->pressure_dofs,
                                          mg->options.stokes_solver, &l->smoother));
  if (mg->options.stokes_solver == TS_STOKES_PATCH_SCHUR)
    TS_CALL(ts_smoother_stokes_patch_set_cg_tolerance(l->smoother, mg->options.stokes_cg_tolerance));
  return 0;
}

static int create_transfer(ts_mg mg, int i) {
  return ts_mg_saddle_create_transfer(mg, i, ts_field_transfer_plan_init_stokes);
}

/* the Stokes transfer is block diagonal in (u, p): fields 0..dim-1 map velocity to velocity
 * (offsets inside the velocity block), field dim pressure to pressure; without that last
 * field and with the velocity counts the plan is the velocity block P_u */
int ts_mg_stokes_velocity_plan(ts_mg mg, int i, const char *caller, ts_field_transfer_plan *plan) {
  TS_CHECK_ARG(mg->discretization == &stokes_discretization,
               "%s: the hierarchy is '%s', a Stokes one (ts_mg_create_stokes) is required",
               caller, mg->discretization->name);
  const ts_mg_field_transfer *t = mg->levels[i].transfer;
  *plan = t->plan;
  plan->n_fields = plan->dim;
  plan->coarse_count = ts_dofs_count(mg->levels[i - 1].dofs);
  plan->fine_count = ts_dofs_count(mg->levels[i].dofs);
  return 0;
}

static const ts_mg_discretization stokes_discretization = {
    .name = "stokes",
    .create_dofs = ts_mg_saddle_create_dofs,
    .create_operator = create_operator,
    .create_smoother = create_smoother,
    .create_transfer = create_transfer,
    .transfer_apply = ts_mg_saddle_transfer_apply,
    .create_coarse_inverse = ts_mg_saddle_coarse_inverse,
    .postprocess = ts_mg_saddle_postprocess,
    .destroy = ts_mg_saddle_data_destroy,
};

int ts_mg_stokes_check_options(ts_mesh mesh, int degree, int finest, const ts_mg_options *o) {
  TS_CHECK_ARG(degree >= 0 && degree <= TS_STOKES_MAX_DEGREE,
               "Stokes multigrid: degree k = %d, allowed 0..%d (RT_k x DGQ_k)", degree,
               TS_STOKES_MAX_DEGREE);
  TS_CHECK_ARG(o->stokes_solver == TS_STOKES_PATCH_SCHUR || o->stokes_solver == TS_STOKES_PATCH_DIRECT,
               "Stokes multigrid: patch local solver %d unknown, allowed Schur complement (%d) or "
               "direct (%d)", (int)o->stokes_solver, (int)TS_STOKES_PATCH_SCHUR,
               (int)TS_STOKES_PATCH_DIRECT);
  TS_CHECK_ARG(o->stokes_penalty > 0.0, "Stokes multigrid: penalty factor eta = %g, need eta > 0",
               o->stokes_penalty);
  TS_CHECK_ARG(o->stokes_cg_tolerance > 0.0 && o->stokes_cg_tolerance < 1.0,
               "Stokes multigrid: stokes_cg_tolerance = %g (the patch pressure CG), allowed "
               "0 < tolerance < 1", o->stokes_cg_tolerance);
  TS_CHECK_ARG(o->coarse_degree == TS_MG_COARSE_DEGREE_AUTO,
               "Stokes multigrid: coarse_degree = %d, allowed only TS_MG_COARSE_DEGREE_AUTO (%d): "
               "the degree levels are built for Q_k only", o->coarse_degree,
               TS_MG_COARSE_DEGREE_AUTO);
  TS_CALL(ts_mg_check_common_options(mesh, finest, o));
  TS_CALL(ts_mg_saddle_check_coarse_level(mesh, o, "Stokes multigrid"));
  return 0;
}

int ts_mg_create_stokes(ts_backend backend, ts_mesh mesh, int degree, int finest_level,
                        const ts_mg_options *options, ts_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(mesh);
  ts_mg_options o;
  if (options) o = *options;
  else ts_mg_options_default(&o);
  TS_CALL(ts_mg_stokes_check_options(mesh, degree, finest_level, &o));
  ts_fe velocity = NULL, pressure = NULL;
  int ierr = ts_fe_create_rt(ts_mesh_dim(mesh), degree, &velocity);
  if (!ierr) ierr = ts_fe_create_dgq(ts_mesh_dim(mesh), degree, &pressure);
  ts_mg_saddle_data *data = NULL;
  if (!ierr) ierr = ts_mg_saddle_data_create(velocity, pressure, &data);
  else ts_fe_destroy(&velocity);
  TS_CALL(ierr);
  TS_CALL(ts_mg_create_hierarchy(backend, mesh, data->velocity_fe, finest_level, &o, 0, NULL,
                                 &stokes_discretization, data, mg));
  return 0;
}
