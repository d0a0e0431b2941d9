/* mg.c -- the geometric multigrid hierarchy on a box (paper 002, section 2.1; paper 000,
 * section 3): per level the DoF handler(s), system operator, transfer, smoother and three
 * work vectors, all supplied by a discretization table (mg-impl.h; mg-laplace.c for the
 * Q_k Laplacian, mg-stokes.c for Stokes); the V-cycle of Algorithm 2.1 (one pre- and one
 * post-smoothing step, exact coarse solve) and the V-cycle as a preconditioner operator.
 * Under mixed precision (options.precision = TS_SINGLE) every level lives in single
 * precision and the preconditioner converts at entry and exit (paper 002 section 4.2,
 * paper 000 section 4.3); the finest double operator is kept for the outer iteration (and,
 * for the nested iteration of full multigrid, every coarser level's operator with a right
 * side, iterate and residual in double: 1/7 of the finest level's size in all).
 * Full multigrid is in fmg.c. */
#include <string.h>
#include "mg-impl.h"

void ts_mg_options_default(ts_mg_options *o) {
  if (!o) {
    TS_ERROR(TS_ERR_ARG,
             "ts_mg_options_default: argument 'options' is NULL, a valid pointer is required");
    return;
  }
  memset(o, 0, sizeof *o);
  o->smoother = TS_MG_SMOOTHER_VERTEX_PATCH;
  o->variant = TS_PATCH_FUSED;
  o->chebyshev_degree = 3;
  o->precision = TS_DOUBLE;
  o->coarse_level = 0;
  o->stokes_solver = TS_STOKES_PATCH_SCHUR;
  o->stokes_penalty = TS_STOKES_DEFAULT_PENALTY;
  o->stokes_cg_tolerance = TS_STOKES_PATCH_CG_TOLERANCE;
  o->coarse_tolerance = TS_MG_COARSE_TOLERANCE;
  o->coarse_degree = TS_MG_COARSE_DEGREE_AUTO;
  o->coarse_solver = TS_MG_COARSE_AUTO;
}

/* the coarse solvers' names in problem files and on the command line */
static const struct {
  const char *name;
  ts_mg_coarse_solver solver;
} coarse_solvers[] = {{"auto", TS_MG_COARSE_AUTO},
                      {"dense", TS_MG_COARSE_DENSE},
                      {"cg", TS_MG_COARSE_CG_JACOBI},
                      {"amg", TS_MG_COARSE_CG_AMG}};

const char *ts_mg_coarse_solver_word(ts_mg_coarse_solver solver) {
  for (size_t i = 0; i < sizeof coarse_solvers / sizeof coarse_solvers[0]; ++i)
    if (coarse_solvers[i].solver == solver) return coarse_solvers[i].name;
  return "?";
}

int ts_mg_coarse_solver_from_name(const char *name, ts_mg_coarse_solver *solver) {
  TS_CHECK_NOT_NULL(solver);
  for (size_t i = 0; name && i < sizeof coarse_solvers / sizeof coarse_solvers[0]; ++i)
    if (strcmp(name, coarse_solvers[i].name) == 0) {
      *solver = coarse_solvers[i].solver;
      return 0;
    }
  return TS_ERROR(TS_ERR_ARG, "multigrid coarse solver '%s' unknown, allowed: auto, dense, cg, amg",
                  name ? name : "(null)");
}

/* the smoothers' names in problem files and on the command line */
static const struct {
  const char *name;
  ts_mg_smoother_type type;
} smoothers[] = {{"vertex-patch", TS_MG_SMOOTHER_VERTEX_PATCH},
                 {"chebyshev", TS_MG_SMOOTHER_CHEBYSHEV},
                 {"vanka", TS_MG_SMOOTHER_VANKA},
                 {"braess-sarazin", TS_MG_SMOOTHER_BRAESS_SARAZIN},
                 {"schur-uzawa", TS_MG_SMOOTHER_SCHUR_UZAWA}};

const char *ts_mg_smoother_word(ts_mg_smoother_type type) {
  for (size_t i = 0; i < sizeof smoothers / sizeof smoothers[0]; ++i)
    if (smoothers[i].type == type) return smoothers[i].name;
  return "?";
}

int ts_mg_smoother_is_saddle(ts_mg_smoother_type type) {
  return type == TS_MG_SMOOTHER_VANKA || type == TS_MG_SMOOTHER_BRAESS_SARAZIN ||
         type == TS_MG_SMOOTHER_SCHUR_UZAWA;
}

int ts_mg_smoother_from_name(const char *name, ts_mg_smoother_type *type) {
  TS_CHECK_NOT_NULL(type);
  for (size_t i = 0; name && i < sizeof smoothers / sizeof smoothers[0]; ++i)
    if (strcmp(name, smoothers[i].name) == 0) {
      *type = smoothers[i].type;
      return 0;
    }
  return TS_ERROR(TS_ERR_ARG, "multigrid smoother '%s' unknown, allowed: vertex-patch, chebyshev, "
                  "vanka, braess-sarazin, schur-uzawa (the last three for Taylor-Hood)",
                  name ? name : "(null)");
}

/* ---------------------------------------------------------------- coarse solve */

int ts_mg_coarse_solve(ts_mg mg, ts_vec b, ts_vec x) {
  ts_mg_level *l = &mg->levels[0];
  const double t0 = ts_wtime();
  TS_CALL(ts_vec_copy(b, mg->coarse_b));
  if (mg->coarse_inverse) {
    TS_CALL(ts_operator_apply(mg->coarse_inverse, mg->coarse_b, mg->coarse_x));
  } else {
    TS_CALL(ts_vec_set(mg->coarse_x, 0.0));
    TS_CALL(ts_solver_solve(mg->coarse_solver, mg->coarse_b, mg->coarse_x));
    l->timing.coarse_iterations += ts_solver_iterations(mg->coarse_solver);
  }
  TS_CALL(ts_vec_copy(mg->coarse_x, x));
  l->timing.coarse_seconds += ts_wtime() - t0;
  l->timing.smoothing_steps++;
  return 0;
}

/* ---------------------------------------------------------------- V-cycle */

int ts_mg_transfer(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add) {
  TS_CALL(mg->discretization->transfer_apply(mg, i, restrict_, in, out, add));
  return 0;
}

int ts_mg_vcycle(ts_mg mg, int i) {
  if (i == 0) {
    TS_CALL(ts_mg_coarse_solve(mg, mg->levels[0].b, mg->levels[0].x));
    return 0;
  }
  ts_mg_level *l = &mg->levels[i], *c = &mg->levels[i - 1];
  double t0 = ts_wtime();
  TS_CALL(ts_smoother_apply(l->smoother, l->b, l->x));         /* pre-smoothing */
  double t1 = ts_wtime();
  TS_CALL(ts_operator_apply(l->A, l->x, l->r));                /* r = b - A x */
  TS_CALL(ts_vec_axpby(1.0, l->b, -1.0, l->r));
  double t2 = ts_wtime();
  TS_CALL(ts_mg_transfer(mg, i, 1, l->r, c->b, 0));          /* coarsen */
  TS_CALL(ts_vec_set(c->x, 0.0));
  double t3 = ts_wtime();
  l->timing.smooth_seconds += t1 - t0;
  l->timing.residual_seconds += t2 - t1;
  l->timing.transfer_seconds += t3 - t2;
  TS_CALL(ts_mg_vcycle(mg, i - 1));
  t0 = ts_wtime();
  TS_CALL(ts_mg_transfer(mg, i, 0, c->x, l->x, 1));          /* x += P x_c */
  t1 = ts_wtime();
  TS_CALL(ts_smoother_apply(l->smoother, l->b, l->x));         /* post-smoothing */
  t2 = ts_wtime();
  l->timing.transfer_seconds += t1 - t0;
  l->timing.smooth_seconds += t2 - t1;
  l->timing.smoothing_steps += 2;
  return 0;
}

/* ---------------------------------------------------------------- the preconditioner */

/* y = VCYCLE(A, 0, x) (add: y += ...), x and y double vectors of the finest level; the
 * discretization's post-processing (Stokes: pressure mean removed) applies to the output */
static int vcycle_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  ts_mg mg = op->data;
  ts_mg_level *l = &mg->levels[mg->n_levels - 1];
  TS_CALL(ts_vec_copy(x, l->b));
  TS_CALL(ts_vec_set(l->x, 0.0));
  TS_CALL(ts_mg_vcycle(mg, mg->n_levels - 1));
  ts_vec out = add ? mg->e : y;
  TS_CALL(ts_vec_copy(l->x, out));
  if (mg->discretization->postprocess) TS_CALL(mg->discretization->postprocess(mg, out));
  if (add) TS_CALL(ts_vec_axpby(1.0, mg->e, 1.0, y));
  return 0;
}

static const ts_operator_ops vcycle_ops = {
    .name = "mg-vcycle",
    .apply = vcycle_apply,
};

/* ---------------------------------------------------------------- setup */

/* Level i's vectors b, x, r in precision p (and bd, xd, rd in double for a mixed level). */
static int create_level_vectors(ts_mg mg, int i, ts_precision p, int64_t n) {
  ts_mg_level *l = &mg->levels[i];
  TS_CALL(ts_vec_create(mg->backend, n, p, &l->b));
  TS_CALL(ts_vec_create(mg->backend, n, p, &l->x));
  TS_CALL(ts_vec_create(mg->backend, n, p, &l->r));
  if (p == TS_DOUBLE || i == mg->n_levels - 1) return 0;
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &l->bd));
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &l->xd));
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &l->rd));
  return 0;
}

static int setup_level(ts_mg mg, int i) {
  const ts_mg_discretization *disc = mg->discretization;
  ts_mg_level *l = &mg->levels[i];
  const ts_precision p = mg->options.precision;
  double *t = mg->setup_seconds;
  TS_CALL_TIMED(&t[TS_SETUP_DOFS], disc->create_dofs(mg, i));
  TS_CALL_TIMED(&t[TS_SETUP_OPERATORS], disc->create_operator(mg, i, p, &l->A));
  const int64_t n = l->A->n;
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], create_level_vectors(mg, i, p, n));
  l->timing.level = mg->lowest + i;
  l->timing.degree = l->degree;
  l->timing.dofs = n;
  if (p != TS_DOUBLE && i < mg->n_levels - 1)
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS], disc->create_operator(mg, i, TS_DOUBLE, &l->Ad));
  if (i == 0) return 0;
  TS_CALL_TIMED(&t[TS_SETUP_TRANSFERS], disc->create_transfer(mg, i));
  TS_CALL_TIMED(&t[TS_SETUP_SMOOTHERS], disc->create_smoother(mg, i));
  return 0;
}

/* The double-precision operator of level i: the level's own in double precision, else a new
 * one (*own = 1). */
static int double_operator(ts_mg mg, int i, ts_operator *A, int *own) {
  if (mg->options.precision == TS_DOUBLE) {
    *A = mg->levels[i].A;
    return 0;
  }
  TS_CALL_TIMED(&mg->setup_seconds[TS_SETUP_OPERATORS],
                mg->discretization->create_operator(mg, i, TS_DOUBLE, A));
  *own = 1;
  return 0;
}

/* The exact coarse solve in double: the discretization's coarse inverse, or a Krylov solver
 * with the discretization's preconditioner (Jacobi where it makes none) */
static int setup_coarse_solver(ts_mg mg) {
  const ts_mg_discretization *disc = mg->discretization;
  TS_CALL(double_operator(mg, 0, &mg->coarse_A, &mg->own_coarse_A));
  const int64_t n = mg->coarse_A->n;
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->coarse_b));
  TS_CALL(ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->coarse_x));
  if (disc->create_coarse_inverse) {
    TS_CALL_TIMED(&mg->setup_seconds[TS_SETUP_COARSE],
                  disc->create_coarse_inverse(mg, mg->coarse_A, &mg->coarse_inverse));
    if (mg->coarse_inverse) return 0;
  }
  if (disc->create_coarse_preconditioner)
    TS_CALL_TIMED(&mg->setup_seconds[TS_SETUP_COARSE],
                  disc->create_coarse_preconditioner(mg, mg->coarse_A, &mg->coarse_P));
  if (!mg->coarse_P)
    TS_CALL_TIMED(&mg->setup_seconds[TS_SETUP_COARSE],
                  ts_operator_create_jacobi(mg->coarse_A, &mg->coarse_P));
  TS_CALL(ts_solver_create(disc->coarse_solver, &mg->coarse_solver));
  TS_CALL(ts_solver_set_operator(mg->coarse_solver, mg->coarse_A));
  TS_CALL(ts_solver_set_preconditioner(mg->coarse_solver, mg->coarse_P));
  TS_CALL(ts_solver_set_tolerances(mg->coarse_solver, mg->options.coarse_tolerance,
                                   (int)(10 * n + 100)));
  return 0;
}

int ts_mg_check_common_options(ts_mesh mesh, int finest, const ts_mg_options *o) {
  TS_CHECK_ARG(o->precision == TS_DOUBLE || o->precision == TS_SINGLE,
               "multigrid: precision %d unknown, allowed double or single (mixed)", (int)o->precision);
  TS_CHECK_ARG(finest >= 0 && finest <= ts_mesh_finest_level(mesh),
               "multigrid: finest level %d, the mesh has levels 0..%d", finest,
               ts_mesh_finest_level(mesh));
  TS_CHECK_ARG(o->coarse_level >= 0 && o->coarse_level <= finest,
               "multigrid: coarse level %d, allowed 0..%d (the finest level)", o->coarse_level, finest);
  TS_CHECK_ARG(finest - o->coarse_level < TS_MG_MAX_LEVELS, "multigrid: %d levels, at most %d",
               finest - o->coarse_level + 1, TS_MG_MAX_LEVELS);
  TS_CHECK_ARG(o->coarse_tolerance > 0.0 && o->coarse_tolerance < 1.0,
               "multigrid: coarse tolerance %g, allowed 0 < tolerance < 1", o->coarse_tolerance);
  TS_CHECK_ARG(o->coarse_solver >= TS_MG_COARSE_AUTO && o->coarse_solver <= TS_MG_COARSE_CG_AMG,
               "multigrid: coarse solver %d unknown, allowed TS_MG_COARSE_AUTO (%d), _DENSE "
               "(%d), _CG_JACOBI (%d) or _CG_AMG (%d)", (int)o->coarse_solver, TS_MG_COARSE_AUTO,
               TS_MG_COARSE_DENSE, TS_MG_COARSE_CG_JACOBI, TS_MG_COARSE_CG_AMG);
  TS_CALL(ts_check_faces("multigrid", "neumann_faces", mesh->dim, o->neumann_faces));
  TS_CHECK_ARG(o->neumann_faces == 0 || mesh->map, "multigrid: Neumann faces (neumann_faces = "
               "%#x) are taken on mapped meshes only (a box is the mapped mesh of an affine map: "
               "ts_mesh_create_mapped)", o->neumann_faces);
  return 0;
}

static int mg_setup(ts_mg mg) {
  for (int i = 0; i < mg->n_levels; ++i) TS_CALL(setup_level(mg, i));
  TS_CALL(setup_coarse_solver(mg));
  TS_CALL(double_operator(mg, mg->n_levels - 1, &mg->A, &mg->own_A));
  const int64_t n = mg->A->n;
  double *vectors = &mg->setup_seconds[TS_SETUP_VECTORS];
  TS_CALL_TIMED(vectors, ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->r));
  TS_CALL_TIMED(vectors, ts_vec_create(mg->backend, n, TS_DOUBLE, &mg->e));
  TS_CALL(ts_operator_create_shell(mg->backend, &vcycle_ops, n, TS_DOUBLE, mg, &mg->preconditioner));
  return 0;
}

/* Which mesh level and degree each level of the hierarchy has. */
static void assign_levels(ts_mg m, int n_degrees, const int *degrees) {
  for (int i = 0; i < m->n_levels; ++i) {
    ts_mg_level *l = &m->levels[i];
    l->mesh_level = m->coarse + (i < n_degrees ? 0 : i - n_degrees);
    l->degree = i < n_degrees ? degrees[i] : m->fe->degree;
  }
}

int ts_mg_create_hierarchy(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest,
                           const ts_mg_options *options, int n_degrees, const int *degrees,
                           const ts_mg_discretization *disc, void *data, ts_mg *mg) {
  ts_mg m;
  int ierr = ts_calloc(1, sizeof *m, "multigrid hierarchy", &m);
  if (ierr) {
    if (disc->destroy) disc->destroy(data);
    return ierr;
  }
  m->backend = backend;
  m->mesh = mesh;
  m->fe = fe;
  m->discretization = disc;
  m->discretization_data = data;
  m->options = *options;
  m->coarse = options->coarse_level;
  m->finest = finest;
  m->degree_levels = n_degrees;
  m->lowest = m->coarse - n_degrees;
  m->n_levels = finest - options->coarse_level + 1 + n_degrees;
  assign_levels(m, n_degrees, degrees);
  ierr = mg_setup(m);
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
  ts_operator_destroy(&m->coarse_inverse);
  ts_vec_destroy(&m->coarse_b);
  ts_vec_destroy(&m->coarse_x);
  ts_operator_destroy(&m->coarse_P);
  if (m->own_coarse_A) ts_operator_destroy(&m->coarse_A);
  for (int i = m->n_levels - 1; i >= 0; --i) {
    ts_mg_level *l = &m->levels[i];
    ts_smoother_destroy(&l->smoother);
    if (l->transfer && m->discretization->transfer_destroy) m->discretization->transfer_destroy(m, i);
    ts_free(&l->transfer);
    ts_vec_destroy(&l->b);
    ts_vec_destroy(&l->x);
    ts_vec_destroy(&l->r);
    ts_vec_destroy(&l->bd);
    ts_vec_destroy(&l->xd);
    ts_vec_destroy(&l->rd);
    ts_operator_destroy(&l->Ad);
    ts_operator_destroy(&l->A);
    ts_dofs_destroy(&l->dofs);
    ts_dofs_destroy(&l->pressure_dofs);
    ts_fe_destroy(&l->own_fe);
  }
  if (m->discretization->destroy) m->discretization->destroy(m->discretization_data);
  ts_free(mg);
  return 0;
}

/* ---------------------------------------------------------------- queries */

ts_dofs ts_mg_dofs(ts_mg mg) {
  TS_GETTER_NOT_NULL(mg, NULL);
  return mg->levels[mg->n_levels - 1].dofs;
}

ts_dofs ts_mg_pressure_dofs(ts_mg mg) {
  TS_GETTER_NOT_NULL(mg, NULL);
  return mg->levels[mg->n_levels - 1].pressure_dofs;
}

ts_operator ts_mg_operator(ts_mg mg) {
  TS_GETTER_NOT_NULL(mg, NULL);
  return mg->A;
}

ts_operator ts_mg_preconditioner(ts_mg mg) {
  TS_GETTER_NOT_NULL(mg, NULL);
  return mg->preconditioner;
}

int ts_mg_coarse_level(ts_mg mg) {
  TS_GETTER_NOT_NULL(mg, -1);
  return mg->lowest;
}

int ts_mg_check_level(ts_mg mg, int level, const char *what, int lowest) {
  if (!mg) return TS_ERROR(TS_ERR_ARG, "%s: multigrid object is NULL", what);
  if (level < mg->lowest + lowest || level > mg->finest)
    return TS_ERROR(TS_ERR_ARG, "%s: level %d, allowed %d..%d", what, level, mg->lowest + lowest,
                    mg->finest);
  return 0;
}

ts_smoother ts_mg_smoother(ts_mg mg, int level) {
  if (ts_mg_check_level(mg, level, "ts_mg_smoother", 0)) return NULL; /* TS_ERR_ARG recorded */
  return mg->levels[level - mg->lowest].smoother;
}

ts_operator ts_mg_level_operator(ts_mg mg, int level) {
  if (ts_mg_check_level(mg, level, "ts_mg_level_operator", 0)) return NULL; /* TS_ERR_ARG recorded */
  return mg->levels[level - mg->lowest].A;
}

int ts_mg_prolongate(ts_mg mg, int level, ts_vec coarse, ts_vec fine) {
  TS_CALL(ts_mg_check_level(mg, level, "ts_mg_prolongate", 1));
  TS_CALL(ts_mg_transfer(mg, level - mg->lowest, 0, coarse, fine, 0));
  return 0;
}

int ts_mg_restrict(ts_mg mg, int level, ts_vec fine, ts_vec coarse) {
  TS_CALL(ts_mg_check_level(mg, level, "ts_mg_restrict", 1));
  TS_CALL(ts_mg_transfer(mg, level - mg->lowest, 1, fine, coarse, 0));
  return 0;
}

int ts_mg_level_timing_get(ts_mg mg, int level, ts_mg_level_timing *timing) {
  TS_CHECK_NOT_NULL(timing);
  TS_CALL(ts_mg_check_level(mg, level, "ts_mg_level_timing_get", 0));
  *timing = mg->levels[level - mg->lowest].timing;
  return 0;
}

int ts_mg_setup_seconds(ts_mg mg, ts_setup_phase phase, double *seconds) {
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_NOT_NULL(seconds);
  TS_CHECK_ARG(phase >= 0 && phase < TS_SETUP_PHASES,
               "ts_mg_setup_seconds: phase %d, allowed 0..%d", (int)phase, TS_SETUP_PHASES - 1);
  *seconds = mg->setup_seconds[phase];
  return 0;
}

void ts_mg_reset_timings(ts_mg mg) {
  if (!mg) {
    TS_ERROR(TS_ERR_ARG, "ts_mg_reset_timings: argument 'mg' is NULL, a valid handle is required");
    return;
  }
  for (int i = 0; i < mg->n_levels; ++i) {
    ts_mg_level_timing *t = &mg->levels[i].timing;
    const int level = t->level, degree = t->degree;
    const int64_t dofs = t->dofs;
    memset(t, 0, sizeof *t);
    t->level = level;
    t->degree = degree;
    t->dofs = dofs;
  }
}

int ts_mg_set_monitor(ts_mg mg, ts_monitor_fn fn, void *ctx) {
  TS_CHECK_ARG(mg, "ts_mg_set_monitor: multigrid object is NULL");
  mg->monitor = fn;
  mg->monitor_ctx = ctx;
  return 0;
}
