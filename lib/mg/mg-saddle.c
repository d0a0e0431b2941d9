/* mg-saddle.c -- what the saddle-point hierarchies share (RT_k x DGQ_k Stokes, mg-stokes.c;
 * Taylor-Hood Q_k x Q_{k-1}, mg-taylor-hood.c): a velocity and a pressure DoF handler per
 * level, a multi-field transfer, the coarse level's interior vertex, the exact coarse solve
 * of the system singular by the constant pressure, and the V-cycle output's pressure mean
 * removed. */
#include "mg-impl.h"

int ts_mg_saddle_data_create(ts_fe velocity, ts_fe pressure, ts_mg_saddle_data **data) {
  ts_mg_saddle_data *d = NULL;
  const int ierr = ts_calloc(1, sizeof *d, "saddle-point multigrid data", &d);
  if (ierr) {
    ts_fe_destroy(&velocity);
    ts_fe_destroy(&pressure);
    return ierr;
  }
  d->velocity_fe = velocity;
  d->pressure_fe = pressure;
  *data = d;
  return 0;
}

void ts_mg_saddle_data_destroy(void *data) {
  ts_mg_saddle_data *d = data;
  if (!d) return;
  ts_fe_destroy(&d->velocity_fe);
  ts_fe_destroy(&d->pressure_fe);
  ts_free(&d);
}

int ts_mg_saddle_create_dofs(ts_mg mg, int i) {
  ts_mg_saddle_data *data = mg->discretization_data;
  ts_mg_level *l = &mg->levels[i];
  TS_CALL(ts_dofs_create(mg->mesh, data->velocity_fe, l->mesh_level, &l->dofs));
  TS_CALL(ts_dofs_create(mg->mesh, data->pressure_fe, l->mesh_level, &l->pressure_dofs));
  return 0;
}

int ts_mg_saddle_create_transfer(ts_mg mg, int i, ts_mg_field_transfer_init init) {
  ts_mg_level *l = &mg->levels[i], *c = &mg->levels[i - 1];
  ts_mg_field_transfer *t;
  TS_CALL(ts_calloc(1, sizeof *t, "multigrid field transfer", &t));
  l->transfer = t;
  TS_CALL(init(c->dofs, c->pressure_dofs, l->dofs, l->pressure_dofs, &t->plan, t->storage));
  if (!mg->backend->ops.field_transfer)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'field_transfer'",
                    mg->backend->name);
  return 0;
}

int ts_mg_saddle_transfer_apply(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add) {
  const ts_mg_field_transfer *t = mg->levels[i].transfer;
  TS_CALL(ts_field_transfer_apply(mg->backend, &t->plan, restrict_, in, out, add));
  return 0;
}

/* The coarsest level needs at least 2 cells per direction (an interior vertex in every
 * direction): paper 000 starts from T_0 = 2^dim cells; on a single cell RT_k's normal
 * velocity has only the k interior Lobatto DoFs per direction (none for k = 0), and Q2's
 * velocity a single interior node for 2^dim pressure DoFs: too poor a coarse space. */
int ts_mg_saddle_check_coarse_level(ts_mesh mesh, const ts_mg_options *o, const char *who) {
  TS_CHECK_ARG(o->coarse_solver == TS_MG_COARSE_AUTO || o->coarse_solver == TS_MG_COARSE_DENSE,
               "%s: coarse solver '%s'; the saddle-point coarse level is solved by the LU of "
               "its bordered matrix: allowed auto, dense", who,
               ts_mg_coarse_solver_word(o->coarse_solver));
  int64_t cells[3];
  TS_CALL(ts_mesh_cells(mesh, o->coarse_level, cells));
  for (int d = 0; d < ts_mesh_dim(mesh); ++d)
    TS_CHECK_ARG(cells[d] >= 2,
                 "%s: coarse level %d has %lld cell(s) in direction %d; the coarse level needs "
                 "an interior vertex in every direction (at least 2 cells): choose coarse_level "
                 ">= %d", who, o->coarse_level, (long long)cells[d], d, o->coarse_level + 1);
  return 0;
}

/* A_0^{-1} bordered by z = the constant coarse pressure (Acal_0 z = 0 and Acal_0^T z = 0:
 * B^T 1 = 0 for RT, doc/stokes.md section 3, and for Taylor-Hood, whose velocity vanishes on
 * the boundary: (1, div v) = 0) */
int ts_mg_saddle_coarse_inverse(ts_mg mg, ts_operator A0, ts_operator *inverse) {
  (void)mg;
  const ts_saddle *saddle;
  TS_CALL(ts_saddle_of(A0, "saddle-point coarse solve", &saddle));
  const int64_t nu = saddle->velocity_count, n = A0->n;
  double *z;
  TS_CALL(ts_calloc((size_t)n, sizeof *z, "coarse pressure constant", &z));
  for (int64_t j = nu; j < n; ++j) z[j] = 1.0;
  const int ierr = ts_mg_dense_inverse_create(A0, z, inverse);
  ts_free(&z);
  return ierr;
}

/* doc/stokes.md section 6: the V-cycle output has zero pressure mean */
int ts_mg_saddle_postprocess(ts_mg mg, ts_vec x) {
  TS_CALL(ts_stokes_pressure_mean_remove(mg->A, x));
  return 0;
}
