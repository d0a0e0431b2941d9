/* mg.c -- the geometric multigrid hierarchy for the Q_k Laplacian on a box (paper 002,
 * section 2.1): one DoF handler, Laplacian, transfer plan, smoother and three work vectors
 * per level; the V-cycle of Algorithm 2.1 (one pre- and one post-smoothing step, exact
 * coarse solve) and the V-cycle as a preconditioner operator.  Under mixed precision
 * (options.precision = TS_SINGLE) every level lives in single precision and the
 * preconditioner converts at entry and exit (section 4.2); the finest double Laplacian is
 * kept for the outer iteration (and, for the nested iteration of full multigrid, every
 * coarser level's Laplacian with a right side, iterate and residual in double: 1/7 of the
 * finest level's size in all).  Full multigrid is in fmg.c. */
#include <string.h>
#include "mg-impl.h"

#define COARSE_RTOL 1e-13

void ts_mg_options_default(ts_mg_options *o) {
  memset(o, 0, sizeof *o);
  o->smoother = TS_MG_SMOOTHER_VERTEX_PATCH;
  o->variant = TS_PATCH_FUSED;
  o->chebyshev_degree = 3;
  o->precision = TS_DOUBLE;
  o->coarse_level = 0;
}

int ts_mg_smoother_from_name(const char *name, ts_mg_smoother_type *type) {
  if (name && strcmp(name, "vertex-patch") == 0) *type = TS_MG_SMOOTHER_VERTEX_PATCH;
  else if (name && strcmp(name, "chebyshev") == 0) *type = TS_MG_SMOOTHER_CHEBYSHEV;
  else return TS_ERROR(TS_ERR_ARG, "multigrid smoother '%s' unknown, allowed: vertex-patch, chebyshev",
                       name ? name : "(null)");
  return 0;
}

/* ---------------------------------------------------------------- coarse solve */

int ts_mg_coarse_solve(ts_mg mg) {
  ts_mg_level *l = &mg->levels[0];
  const double t0 = ts_wtime();
  TS_CALL(ts_vec_copy(l->b, mg->coarse_b));
  TS_CALL(ts_vec_set(mg->coarse_x, 0.0));
  TS_CALL(ts_solver_solve(mg->coarse_solver, mg->coarse_b, mg->coarse_x));
  TS_CALL(ts_vec_copy(mg->coarse_x, l->x));
  l->timing.coarse_seconds += ts_wtime() - t0;
  l->timing.smoothing_steps++;
  return 0;
}

/* ---------------------------------------------------------------- V-cycle */

int ts_mg_vcycle(ts_mg mg, int i) {
  if (i == 0) {
    TS_CALL(ts_mg_coarse_solve(mg));
    return 0;
  }
  ts_mg_level *l = &mg->levels[i], *c = &mg->levels[i - 1];
  double t0 = ts_wtime();
  TS_CALL(ts_smoother_apply(l->smoother, l->b, l->x));         /* pre-smoothing */
  double t1 = ts_wtime();
  TS_CALL(ts_operator_apply(l->A, l->x, l->r));                /* r = b - A x */
  TS_CALL(ts_vec_axpby(1.0, l->b, -1.0, l->r));
  double t2 = ts_wtime();
  TS_CALL(ts_transfer_apply(mg->backend, &l->transfer, 1, l->r, c->b, 0)); /* coarsen */
  TS_CALL(ts_vec_set(c->x, 0.0));
  double t3 = ts_wtime();
  l->timing.smooth_seconds += t1 - t0;
  l->timing.residual_seconds += t2 - t1;
  l->timing.transfer_seconds += t3 - t2;
  TS_CALL(ts_mg_vcycle(mg, i - 1));
  t0 = ts_wtime();
  TS_CALL(ts_transfer_apply(mg->backend, &l->transfer, 0, c->x, l->x, 1)); /* x += P x_c */
  t1 = ts_wtime();
  TS_CALL(ts_smoother_apply(l->smoother, l->b, l->x));         /* post-smoothing */
  t2 = ts_wtime();
  l->timing.transfer_seconds += t1 - t0;
  l->timing.smooth_seconds += t2 - t1;
  l->timing.smoothing_steps += 2;
  return 0;
}

/* ---------------------------------------------------------------- the preconditioner */

/* y = VCYCLE(A, 0, x) (add: y += ...), x and y double vectors of the finest level */
static int vcycle_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  ts_mg mg = op->data;
  ts_mg_level *l = &mg->levels[mg->n_levels - 1];
  TS_CALL(ts_vec_copy(x, l->b));
  TS_CALL(ts_vec_set(l->x, 0.0));
  TS_CALL(ts_mg_vcycle(mg, mg->n_levels - 1));
  if (!add) {
    TS_CALL(ts_vec_copy(l->x, y));
  } else {
    TS_CALL(ts_vec_copy(l->x, mg->e));
    TS_CALL(ts_vec_axpby(1.0, mg->e, 1.0, y));
  }
  return 0;
}

static const ts_operator_ops vcycle_ops = {
    .name = "mg-vcycle",
    .apply = vcycle_apply,
};

/* ---------------------------------------------------------------- setup */

static int setup_level(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  const ts_mg_options *o = &mg->options;
  const int level = mg->coarse + i;
  TS_CALL(ts_dofs_create(mg->mesh, mg->fe, level, &l->dofs));
  const int64_t n = ts_dofs_count(l->dofs);
  TS_CALL(ts_operator_create_laplace(mg->backend, l->dofs, o->precision, &l->A));
  TS_CALL(ts_vec_create(mg->backend, n, o->precision, &l->b));
  TS_CALL(ts_vec_create(mg->backend, n, o->precision, &l->x));
  TS_CALL(ts_vec_create(mg->backend, n, o->precision, &l->r));
  l->timing.level = level;
  l->timing.dofs = n;
  if (o->precision != TS_DOUBLE && i < mg->n_levels - 1) {
    TS_CALL(ts_operator_create_laplace(mg->backend, l->dofs, TS_DOUBLE, &l->Ad));
    TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &l->bd));
    TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &l->xd));
    TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &l->rd));
  }
  if (i == 0) return 0;
  TS_CALL(ts_transfer_plan_init(mg->levels[i - 1].dofs, l->dofs, &l->transfer, l->interpolation));
  if (!mg->backend->ops.transfer)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'transfer'", mg->backend->name);
  if (o->smoother == TS_MG_SMOOTHER_CHEBYSHEV)
    TS_CALL(ts_smoother_create_chebyshev(l->A, o->chebyshev_degree, &l->smoother));
  else
    TS_CALL(ts_smoother_create_vertex_patch(l->A, l->dofs, o->variant, &l->smoother));
  return 0;
}

static int setup_coarse_solver(ts_mg mg) {
  ts_mg_level *l = &mg->levels[0];
  const int64_t n = ts_dofs_count(l->dofs);
  if (mg->options.precision == TS_DOUBLE) {
    mg->coarse_A = l->A;
  } else {
    TS_CALL(ts_operator_create_laplace(mg->backend, l->dofs, TS_DOUBLE, &mg->coarse_A));
    mg->own_coarse_A = 1;
  }
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->coarse_b));
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->coarse_x));
  TS_CALL(ts_solver_create(TS_SOLVER_CG, &mg->coarse_solver));
  TS_CALL(ts_solver_set_operator(mg->coarse_solver, mg->coarse_A));
  TS_CALL(ts_solver_set_tolerances(mg->coarse_solver, COARSE_RTOL, (int)(10 * n + 100)));
  return 0;
}

static int check_options(ts_mesh mesh, ts_fe fe, int finest, const ts_mg_options *o) {
  TS_CHECK_ARG(o->smoother == TS_MG_SMOOTHER_VERTEX_PATCH || o->smoother == TS_MG_SMOOTHER_CHEBYSHEV,
               "multigrid: smoother %d unknown, allowed vertex-patch or chebyshev", (int)o->smoother);
  TS_CHECK_ARG(o->variant == TS_PATCH_SEPARATE || o->variant == TS_PATCH_FUSED,
               "multigrid: patch variant %d unknown, allowed separate or fused", (int)o->variant);
  TS_CHECK_ARG(o->chebyshev_degree >= 1 && o->chebyshev_degree <= 20,
               "multigrid: Chebyshev degree %d, allowed 1..20", o->chebyshev_degree);
  TS_CHECK_ARG(o->precision == TS_DOUBLE || o->precision == TS_SINGLE,
               "multigrid: precision %d unknown, allowed double or single (mixed)", (int)o->precision);
  TS_CHECK_ARG(finest >= 0 && finest <= ts_mesh_finest_level(mesh),
               "multigrid: finest level %d, the mesh has levels 0..%d", finest,
               ts_mesh_finest_level(mesh));
  TS_CHECK_ARG(o->coarse_level >= 0 && o->coarse_level <= finest,
               "multigrid: coarse level %d, allowed 0..%d (the finest level)", o->coarse_level, finest);
  TS_CHECK_ARG(finest - o->coarse_level < TS_MG_MAX_LEVELS, "multigrid: %d levels, at most %d",
               finest - o->coarse_level + 1, TS_MG_MAX_LEVELS);
  TS_CHECK_ARG(fe->family == TS_FE_Q, "multigrid: only Q_k elements are supported");
  TS_CHECK_ARG(fe->dim == ts_mesh_dim(mesh), "multigrid: %dD element on a %dD mesh", fe->dim,
               ts_mesh_dim(mesh));
  return 0;
}

static int mg_setup(ts_mg mg) {
  for (int i = 0; i < mg->n_levels; ++i) TS_CALL(setup_level(mg, i));
  TS_CALL(setup_coarse_solver(mg));
  ts_mg_level *fine = &mg->levels[mg->n_levels - 1];
  const int64_t n = ts_dofs_count(fine->dofs);
  if (mg->options.precision == TS_DOUBLE) {
    mg->A = fine->A;
  } else {
    TS_CALL(ts_operator_create_laplace(mg->backend, fine->dofs, TS_DOUBLE, &mg->A));
    mg->own_A = 1;
  }
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->r));
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->e));
  TS_CALL(ts_operator_create_shell(mg->backend, &vcycle_ops, n, TS_DOUBLE, mg, &mg->preconditioner));
  return 0;
}

int ts_mg_create(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest_level,
                 const ts_mg_options *options, ts_mg *mg) {
  TS_CHECK_ARG(backend && mesh && fe && mg, "ts_mg_create: NULL argument");
  *mg = NULL;
  ts_mg_options o;
  if (options) o = *options;
  else ts_mg_options_default(&o);
  TS_CALL(check_options(mesh, fe, finest_level, &o));
  ts_mg m;
  TS_CALL(ts_calloc(1, sizeof *m, "multigrid hierarchy", &m));
  m->backend = backend;
  m->mesh = mesh;
  m->fe = fe;
  m->options = o;
  m->coarse = o.coarse_level;
  m->finest = finest_level;
  m->n_levels = finest_level - o.coarse_level + 1;
  const int ierr = mg_setup(m);
  if (ierr) {
    ts_mg_destroy(&m);
    return ts_error_trace(ierr, __FILE__, __LINE__, "multigrid setup");
  }
  *mg = m;
  return 0;
}

int ts_mg_destroy(ts_mg *mg) {
  if (!mg || !*mg) return 0;
  ts_mg m = *mg;
  ts_operator_destroy(&m->preconditioner);
  ts_vec_destroy(&m->r);
  ts_vec_destroy(&m->e);
  if (m->own_A) ts_operator_destroy(&m->A);
  ts_solver_destroy(&m->coarse_solver);
  ts_vec_destroy(&m->coarse_b);
  ts_vec_destroy(&m->coarse_x);
  if (m->own_coarse_A) ts_operator_destroy(&m->coarse_A);
  for (int i = m->n_levels - 1; i >= 0; --i) {
    ts_mg_level *l = &m->levels[i];
    ts_smoother_destroy(&l->smoother);
    ts_vec_destroy(&l->b);
    ts_vec_destroy(&l->x);
    ts_vec_destroy(&l->r);
    ts_vec_destroy(&l->bd);
    ts_vec_destroy(&l->xd);
    ts_vec_destroy(&l->rd);
    ts_operator_destroy(&l->Ad);
    ts_operator_destroy(&l->A);
    ts_dofs_destroy(&l->dofs);
  }
  ts_free(mg);
  return 0;
}

/* ---------------------------------------------------------------- queries */

ts_dofs ts_mg_dofs(ts_mg mg) { return mg ? mg->levels[mg->n_levels - 1].dofs : NULL; }
ts_operator ts_mg_operator(ts_mg mg) { return mg ? mg->A : NULL; }
ts_operator ts_mg_preconditioner(ts_mg mg) { return mg ? mg->preconditioner : NULL; }
int ts_mg_coarse_level(ts_mg mg) { return mg ? mg->coarse : -1; }

static int level_index(ts_mg mg, int level, const char *what, int lowest) {
  if (!mg) return TS_ERROR(TS_ERR_ARG, "%s: multigrid object is NULL", what);
  if (level < mg->coarse + lowest || level > mg->finest)
    return TS_ERROR(TS_ERR_ARG, "%s: level %d, allowed %d..%d", what, level, mg->coarse + lowest,
                    mg->finest);
  return 0;
}

ts_smoother ts_mg_smoother(ts_mg mg, int level) {
  if (!mg || level <= mg->coarse || level > mg->finest) return NULL;
  return mg->levels[level - mg->coarse].smoother;
}

ts_operator ts_mg_level_operator(ts_mg mg, int level) {
  if (!mg || level < mg->coarse || level > mg->finest) return NULL;
  return mg->levels[level - mg->coarse].A;
}

int ts_mg_prolongate(ts_mg mg, int level, ts_vec coarse, ts_vec fine) {
  TS_CALL(level_index(mg, level, "ts_mg_prolongate", 1));
  ts_mg_level *l = &mg->levels[level - mg->coarse];
  TS_CALL(ts_transfer_apply(mg->backend, &l->transfer, 0, coarse, fine, 0));
  return 0;
}

int ts_mg_restrict(ts_mg mg, int level, ts_vec fine, ts_vec coarse) {
  TS_CALL(level_index(mg, level, "ts_mg_restrict", 1));
  ts_mg_level *l = &mg->levels[level - mg->coarse];
  TS_CALL(ts_transfer_apply(mg->backend, &l->transfer, 1, fine, coarse, 0));
  return 0;
}

int ts_mg_level_timing_get(ts_mg mg, int level, ts_mg_level_timing *timing) {
  TS_CALL(level_index(mg, level, "ts_mg_level_timing_get", 0));
  *timing = mg->levels[level - mg->coarse].timing;
  return 0;
}

void ts_mg_reset_timings(ts_mg mg) {
  if (!mg) return;
  for (int i = 0; i < mg->n_levels; ++i) {
    ts_mg_level_timing *t = &mg->levels[i].timing;
    const int level = t->level;
    const int64_t dofs = t->dofs;
    memset(t, 0, sizeof *t);
    t->level = level;
    t->dofs = dofs;
  }
}

int ts_mg_set_monitor(ts_mg mg, ts_monitor_fn fn, void *ctx) {
  TS_CHECK_ARG(mg, "ts_mg_set_monitor: multigrid object is NULL");
  mg->monitor = fn;
  mg->monitor_ctx = ctx;
  return 0;
}
