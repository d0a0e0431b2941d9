/* mg-stokes.c -- the Stokes system of RT_k x DGQ_k (doc/stokes.md; paper 000, section 3) as
 * a multigrid discretization: per level an RT_k and a DGQ_k DoF handler, the matrix-free
 * Stokes operator, the embedding of X_{l-1} = V_{l-1} x Q_{l-1} into X_l and its transpose
 * (doc/stokes.md section 5), the Stokes vertex-patch smoother (section 7), and as the exact
 * coarse solve the LU factorization of the assembled coarse matrix bordered by the constant
 * pressure, by which alone the system is singular (section 3; coarse-dense.c).  The V-cycle
 * output has its pressure mean removed (section 6). */
#include "mg-impl.h"

typedef struct stokes_data {
  ts_fe velocity_fe, pressure_fe;  /* owned; mg->fe is velocity_fe */
} stokes_data;

static const ts_mg_discretization stokes_discretization;

/* the transfer block of a level: the plan and its 1D prolongation matrices */
typedef struct stokes_transfer {
  ts_field_transfer_plan plan;
  double storage[TS_FIELD_TRANSFER_STOKES_STORAGE];
} stokes_transfer;

static int create_dofs(ts_mg mg, int i) {
  stokes_data *data = mg->discretization_data;
  ts_mg_level *l = &mg->levels[i];
  TS_CALL(ts_dofs_create(mg->mesh, data->velocity_fe, l->mesh_level, &l->dofs));
  TS_CALL(ts_dofs_create(mg->mesh, data->pressure_fe, l->mesh_level, &l->pressure_dofs));
  return 0;
}

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
  ts_mg_level *l = &mg->levels[i], *c = &mg->levels[i - 1];
  stokes_transfer *t;
  TS_CALL(ts_calloc(1, sizeof *t, "Stokes multigrid transfer", &t));
  l->transfer = t;
  TS_CALL(ts_field_transfer_plan_init_stokes(c->dofs, c->pressure_dofs, l->dofs, l->pressure_dofs,
                                             &t->plan, t->storage));
  if (!mg->backend->ops.field_transfer)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'field_transfer'",
                    mg->backend->name);
  return 0;
}

static int transfer_apply(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add) {
  const stokes_transfer *t = mg->levels[i].transfer;
  TS_CALL(ts_field_transfer_apply(mg->backend, &t->plan, restrict_, in, out, add));
  return 0;
}

/* the Stokes transfer is block diagonal in (u, p): fields 0..dim-1 map velocity to velocity
 * (offsets inside the velocity block), field dim pressure to pressure; without that last
 * field and with the velocity counts the plan is the velocity block P_u */
int ts_mg_stokes_velocity_plan(ts_mg mg, int i, const char *caller, ts_field_transfer_plan *plan) {
  TS_CHECK_ARG(mg->discretization == &stokes_discretization,
               "%s: the hierarchy is '%s', a Stokes one (ts_mg_create_stokes) is required",
               caller, mg->discretization->name);
  const stokes_transfer *t = mg->levels[i].transfer;
  *plan = t->plan;
  plan->n_fields = plan->dim;
  plan->coarse_count = ts_dofs_count(mg->levels[i - 1].dofs);
  plan->fine_count = ts_dofs_count(mg->levels[i].dofs);
  return 0;
}

/* A_0^{-1} bordered by z = the constant coarse pressure (Acal_0 z = 0 and Acal_0^T z = 0:
 * B^T 1 = 0, doc/stokes.md section 3) */
static int create_coarse_inverse(ts_mg mg, ts_operator A0, ts_operator *inverse) {
  const ts_mg_level *l = &mg->levels[0];
  const int64_t nu = ts_dofs_count(l->dofs), n = A0->n;
  double *z;
  TS_CALL(ts_calloc((size_t)n, sizeof *z, "coarse pressure constant", &z));
  for (int64_t j = nu; j < n; ++j) z[j] = 1.0;
  const int ierr = ts_mg_dense_inverse_create(A0, z, inverse);
  ts_free(&z);
  return ierr;
}

/* doc/stokes.md section 6: the V-cycle output has zero pressure mean */
static int postprocess(ts_mg mg, ts_vec x) {
  TS_CALL(ts_stokes_pressure_mean_remove(mg->A, x));
  return 0;
}

static void destroy(void *d) {
  stokes_data *data = d;
  if (!data) return;
  ts_fe_destroy(&data->velocity_fe);
  ts_fe_destroy(&data->pressure_fe);
  ts_free(&data);
}

static const ts_mg_discretization stokes_discretization = {
    .name = "stokes",
    .create_dofs = create_dofs,
    .create_operator = create_operator,
    .create_smoother = create_smoother,
    .create_transfer = create_transfer,
    .transfer_apply = transfer_apply,
    .create_coarse_inverse = create_coarse_inverse,
    .postprocess = postprocess,
    .destroy = destroy,
};

/* The coarsest level needs at least 2 cells per direction (an interior vertex in every
 * direction): paper 000 starts from T_0 = 2^dim cells, and on a single cell the normal
 * velocity has only the k interior Lobatto DoFs of each direction (none for k = 0), too
 * poor a coarse space for the V-cycle. */
static int check_options(ts_mesh mesh, int degree, int finest, const ts_mg_options *o) {
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
  int64_t cells[3];
  TS_CALL(ts_mesh_cells(mesh, o->coarse_level, cells));
  for (int d = 0; d < ts_mesh_dim(mesh); ++d)
    TS_CHECK_ARG(cells[d] >= 2,
                 "Stokes multigrid: coarse level %d has %lld cell(s) in direction %d; the coarse "
                 "level needs an interior vertex in every direction (at least 2 cells): choose "
                 "coarse_level >= %d", o->coarse_level, (long long)cells[d], d, o->coarse_level + 1);
  return 0;
}

static int create_data(int dim, int degree, stokes_data **data) {
  stokes_data *d;
  TS_CALL(ts_calloc(1, sizeof *d, "Stokes multigrid data", &d));
  int ierr = ts_fe_create_rt(dim, degree, &d->velocity_fe);
  if (!ierr) ierr = ts_fe_create_dgq(dim, degree, &d->pressure_fe);
  if (ierr) {
    destroy(d);
    return ierr;
  }
  *data = d;
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
  TS_CALL(check_options(mesh, degree, finest_level, &o));
  stokes_data *data = NULL;
  TS_CALL(create_data(ts_mesh_dim(mesh), degree, &data));
  TS_CALL(ts_mg_create_hierarchy(backend, mesh, data->velocity_fe, finest_level, &o, 0, NULL,
                                 &stokes_discretization, data, mg));
  return 0;
}
