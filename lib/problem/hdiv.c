/* hdiv.c -- the Darcy and grad-div equations of paper 003 in problem files (doc/hdiv.md):
 * RT_k x DGQ_k in the interpolation-histopolation bases, the saddle-point system
 * ts_hdiv_system (on a box or a mapped mesh, <mesh map=...>; alpha and beta constant per
 * cell), its right side from the built-in exact solution or your own expressions, MINRES with the
 * block-diagonal preconditioner or GMRES with the block-triangular one (the AMG on S~ the
 * tree's S~ node names), the L2 errors of u and p when the exact solution is known. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "equation.h"

/* The paper's crooked-pipe materials (section 4.2): inside the pipe, outside it. */
#define PIPE_ALPHA_INSIDE 1.641
#define PIPE_ALPHA_OUTSIDE 1.88e-3
#define PIPE_BETA_INSIDE 0.2
#define PIPE_BETA_OUTSIDE 2000.0

/* The study's data: your expressions (NULL: zero) or the built-in solution's constants. */
typedef struct hdiv_data {
  ts_expression f, g, u, p;
  double alpha, beta;           /* the constants (built-in solutions: of the whole box) */
} hdiv_data;

static void hdiv_data_free(hdiv_data *d) {
  if (!d) return;
  ts_expression *all[] = {&d->f, &d->g, &d->u, &d->p};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) ts_expression_destroy(all[i]);
  free(d);
}

static int parse_optional(const char *text, int dim, int components, ts_expression *e) {
  *e = NULL;
  return text[0] ? ts_expression_create(text, dim, components, e) : 0;
}

/* ---------------------------------------------------------------- the data as functions */

static int eval_f(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((hdiv_data *)ctx)->f, dim, n, x, v);
}
static int eval_g(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((hdiv_data *)ctx)->g, dim, n, x, v);
}
static int eval_u(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((hdiv_data *)ctx)->u, dim, n, x, v);
}
static int eval_p(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((hdiv_data *)ctx)->p, dim, n, x, v);
}

/* Darcy "smooth": ts_darcy_smooth_* with the constant beta */
static int smooth_pressure(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_darcy_smooth_pressure(&((hdiv_data *)ctx)->beta, dim, n, x, v);
}
static int smooth_velocity(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_darcy_smooth_velocity(&((hdiv_data *)ctx)->beta, dim, n, x, v);
}
static int smooth_divergence(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_darcy_smooth_divergence(&((hdiv_data *)ctx)->beta, dim, n, x, v);
}

/* Grad-div "sine" (tests/t-hdiv.c's): with S = prod_d sin(pi x_d), u = grad phi for
 * phi = -S / (dim pi^2), so div u = Laplace phi = S (Laplace S = -dim pi^2 S), p = -alpha div
 * u = -alpha S vanishes on the boundary (the natural condition), and f = beta u - grad(alpha
 * div u) = -(beta / (dim pi^2) + alpha) grad S. */
static void sine_gradient(int dim, const double *x, double *grad) {
  for (int d = 0; d < dim; ++d) {
    grad[d] = M_PI * cos(M_PI * x[d]);
    for (int e = 0; e < dim; ++e)
      if (e != d) grad[d] *= sin(M_PI * x[e]);
  }
}
static int sine_scaled_gradient(int dim, int64_t n, const double *x, double scale, double *v) {
  for (int64_t i = 0; i < n; ++i) {
    sine_gradient(dim, x + i * dim, v + i * dim);
    for (int d = 0; d < dim; ++d) v[i * dim + d] *= scale;
  }
  return 0;
}
static int sine_velocity(void *ctx, int dim, int64_t n, const double *x, double *v) {
  (void)ctx;
  return sine_scaled_gradient(dim, n, x, -1.0 / (dim * M_PI * M_PI), v);
}
static int sine_rhs(void *ctx, int dim, int64_t n, const double *x, double *v) {
  const hdiv_data *d = ctx;
  return sine_scaled_gradient(dim, n, x, -(d->beta / (dim * M_PI * M_PI) + d->alpha), v);
}
static int sine_pressure(void *ctx, int dim, int64_t n, const double *x, double *v) {
  const hdiv_data *d = ctx;
  for (int64_t i = 0; i < n; ++i) {
    v[i] = -d->alpha;
    for (int e = 0; e < dim; ++e) v[i] *= sin(M_PI * x[i * dim + e]);
  }
  return 0;
}

/* The exact solution: u and p, NULL when none is known. */
typedef struct hdiv_exact {
  ts_point_fn u, p;
} hdiv_exact;

/* The problem's data for ts_hdiv_system_rhs and its exact solution (ctx: the hdiv_data). */
static void problem_data(ts_problem p, hdiv_data *d, ts_hdiv_data *data, hdiv_exact *exact) {
  memset(data, 0, sizeof *data);
  memset(exact, 0, sizeof *exact);
  data->ctx = d;
  if (!strcmp(p->solution, "smooth")) {
    *data = (ts_hdiv_data){NULL, smooth_divergence, smooth_pressure, smooth_velocity, d};
    *exact = (hdiv_exact){smooth_velocity, smooth_pressure};
  } else if (!strcmp(p->solution, "sine")) {
    *data = (ts_hdiv_data){sine_rhs, NULL, NULL, sine_velocity, d};
    *exact = (hdiv_exact){sine_velocity, sine_pressure};
  } else {
    data->f = d->f ? eval_f : NULL;
    data->g = d->g ? eval_g : NULL;
    data->u_boundary = d->u ? eval_u : NULL;
    data->p_boundary = d->p ? eval_p : NULL;
  }
}

/* ---------------------------------------------------------------- coefficients per cell */

/* The values per cell of one coefficient on level (NULL: the constant alone): from the file,
 * the crooked pipe's materials, or beta = 1/K of the log-normal permeability K. */
static int cell_values(const ts_study *s, int level, const char *kind, const char *file,
                       double inside, double outside, double **out) {
  ts_problem p = s->p;
  int64_t cells[3] = {1, 1, 1};
  *out = NULL;
  if (!kind[0]) return 0;
  if (!strcmp(kind, "file")) return ts_study_file_coefficients(s, file, 1, level, out);
  TS_CALL(ts_mesh_cells(s->mesh, level, cells));
  const int64_t n = cells[0] * cells[1] * cells[2];
  TS_CALL(ts_calloc((size_t)n, sizeof **out, "coefficients per cell", out));
  int ierr;
  if (!strcmp(kind, "crooked-pipe")) {
    ierr = ts_cell_values_crooked_pipe(s->mesh, level, inside, outside, *out);
  } else { /* lognormal: the inverse permeability */
    ierr = ts_cell_values_lognormal(p->dim, cells, p->contrast, p->seed, *out);
    for (int64_t c = 0; !ierr && c < n; ++c) (*out)[c] = 1.0 / (*out)[c];
  }
  if (ierr) ts_free(out);
  return ierr;
}

/* The system on level's DoF handlers and backend with the problem's coefficients. */
static int system_create(const ts_study *s, ts_backend backend, int level, const ts_dofs *dofs,
                         ts_hdiv_system *system) {
  ts_problem p = s->p;
  double *alpha = NULL, *beta = NULL;
  int ierr = cell_values(s, level, p->beta_cells, p->beta_file, PIPE_BETA_INSIDE,
                         PIPE_BETA_OUTSIDE, &beta);
  if (!ierr && !isinf(p->alpha))
    ierr = cell_values(s, level, p->alpha_cells, p->alpha_file, PIPE_ALPHA_INSIDE,
                       PIPE_ALPHA_OUTSIDE, &alpha);
  const ts_hdiv_coefficients k = {p->alpha, p->beta, alpha, beta};
  if (!ierr)
    ierr = ts_hdiv_system_create_with_amg(backend, dofs[0], dofs[1], &k, p->flux_faces,
                                          p->schur_amg, system);
  ts_free(&alpha);
  ts_free(&beta);
  return ierr;
}

/* ---------------------------------------------------------------- the equation's hooks */

static int hdiv_study_create(ts_study *s) {
  ts_problem p = s->p;
  hdiv_data *d = NULL;
  TS_CALL(ts_calloc(1, sizeof *d, "H(div) problem data", &d));
  s->data = d;
  d->alpha = p->alpha;
  d->beta = p->beta;
  TS_CALL(parse_optional(p->f, p->dim, p->dim, &d->f));
  TS_CALL(parse_optional(p->g, p->dim, 1, &d->g));
  TS_CALL(parse_optional(p->u, p->dim, p->dim, &d->u));
  TS_CALL(parse_optional(p->pressure, p->dim, 1, &d->p));
  TS_CALL(ts_fe_create_rt_ih(p->dim, p->degree, &s->fe[0]));
  TS_CALL(ts_fe_create_l2_ih(p->dim, p->degree, &s->fe[1]));
  return 0;
}

static void hdiv_study_free(ts_study *s) {
  hdiv_data_free(s->data);
  s->data = NULL;
}

static void print_cells(const char *name, const char *kind, const char *file, FILE *log) {
  if (!strcmp(kind, "file")) fprintf(log, " x (%s per cell from %s)", name, file);
  else if (kind[0]) fprintf(log, " x (%s per cell: %s)", name, kind);
}

static void print_faces(unsigned faces, int dim, FILE *log) {
  fprintf(log, ", flux faces");
  if (!faces) fprintf(log, " none");
  for (int face = 0; face < 2 * dim; ++face)
    if (faces >> face & 1) fprintf(log, " %s", ts_face_names[face]);
}

static void hdiv_print_problem(ts_problem p, FILE *log) {
  const int darcy = isinf(p->alpha);
  fprintf(log, "  %s (paper 003), ", darcy ? "Darcy" : "grad-div");
  if (strcmp(p->solution, "none")) fprintf(log, "exact solution '%s'", p->solution);
  else {
    fprintf(log, "your own data: f = (%s)", p->f[0] ? p->f : "0");
    if (darcy) fprintf(log, ", g = %s", p->g[0] ? p->g : "0");
    fprintf(log, ", u = (%s), p = %s", p->u[0] ? p->u : "0", p->pressure[0] ? p->pressure : "0");
  }
  fprintf(log, ",\n  beta = %g", p->beta);
  print_cells("beta", p->beta_cells, p->beta_file, log);
  if (!strcmp(p->beta_cells, "lognormal"))
    fprintf(log, " (1/K, contrast %g, seed %llu)", p->contrast, (unsigned long long)p->seed);
  if (!darcy) {
    fprintf(log, ", alpha = %g", p->alpha);
    print_cells("alpha", p->alpha_cells, p->alpha_file, log);
  }
  print_faces(p->flux_faces, p->dim, log);
}

static void hdiv_print_element(ts_problem p, FILE *log) {
  fprintf(log, ", RT%d x DGQ%d (interpolation-histopolation; paper p = %d)\n", p->degree,
          p->degree, p->degree + 1);
}

static const char *amg_name(ts_hdiv_amg amg) {
  return amg == TS_HDIV_AMG_OURS        ? "amg"
         : amg == TS_HDIV_AMG_BOOMERAMG ? "boomeramg"
                                        : "(BoomerAMG on omp and for a singular S~, else ours)";
}

static void hdiv_print_solver(ts_problem p, FILE *log) {
  fprintf(log, "  solver %s", ts_solver_label(p->solver));
  if (p->solver != TS_SOLVER_MINRES) fprintf(log, "(%d)", p->restart);
  fprintf(log, ", preconditioner %s (Jacobi of M_beta, AMG %s on S~), rtol %.1e\n",
          p->triangular ? "block-triangular" : "block-diagonal", amg_name(p->schur_amg), p->rtol);
}

static void hdiv_mg_options(ts_problem p, ts_mg_options *options) { *options = p->mg; }

/* An operator that owns its system: the system operator of `tessera check` on a backend. */
static int owning_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  const ts_operator A = ts_hdiv_system_operator(op->data);
  return add ? ts_operator_apply_add(A, x, y) : ts_operator_apply(A, x, y);
}
static void owning_destroy(ts_operator op) {
  ts_hdiv_system system = op->data;
  ts_hdiv_system_destroy(&system);
  op->data = NULL;
}
static const ts_operator_ops owning_ops = {.name = "hdiv-system", .apply = owning_apply,
                                           .destroy = owning_destroy};

static int hdiv_operator_create(const ts_study *s, ts_backend backend, const ts_dofs *dofs,
                                ts_precision precision, ts_operator *A) {
  *A = NULL;
  TS_CHECK_ARG(precision == TS_DOUBLE, "the %s system: precision %s; allowed double (its "
               "matrices are assembled in double)", s->eq->name, ts_precision_name(precision));
  ts_hdiv_system system = NULL;
  TS_CALL(system_create(s, backend, dofs[0]->level, dofs, &system));
  const int64_t n = ts_operator_size(ts_hdiv_system_operator(system));
  const int ierr = ts_operator_create_shell(backend, &owning_ops, n, TS_DOUBLE, system, A);
  if (ierr) ts_hdiv_system_destroy(&system);
  return ierr;
}

static int hdiv_mg_create(const ts_study *s, ts_backend backend, int level,
                          const ts_mg_options *options, ts_mg *mg) {
  (void)backend, (void)level, (void)options, (void)mg;
  return TS_ERROR(TS_ERR_UNSUPPORTED, "the %s equation has no geometric multigrid hierarchy: "
                  "its preconditioner is block-diagonal or block-triangular with an AMG "
                  "V-cycle on S~ (doc/hdiv.md)", s->eq->name);
}

/* The DoF handlers, the system, its right side b and lifting (o->lift, added after the
 * solve); the right side on the host stays in o->host, where the solution comes back. */
static int hdiv_setup(const ts_study *s, ts_level_objects *o, double *t) {
  hdiv_data *d = s->data;
  ts_hdiv_data data;
  hdiv_exact exact;
  problem_data(s->p, d, &data, &exact);
  TS_CALL_TIMED(&t[TS_SETUP_DOFS], ts_dofs_create(s->mesh, s->fe[0], o->level, &o->dofs[0]));
  TS_CALL_TIMED(&t[TS_SETUP_DOFS], ts_dofs_create(s->mesh, s->fe[1], o->level, &o->dofs[1]));
  TS_CALL_TIMED(&t[TS_SETUP_OPERATORS],
                system_create(s, s->backend, o->level, o->dofs, &o->hdiv));
  o->A = ts_hdiv_system_operator(o->hdiv);
  const int64_t n = ts_operator_size(o->A);
  double *x0 = NULL;
  TS_CALL(ts_calloc((size_t)n, sizeof(double), "H(div) right side on the host", &o->host));
  TS_CALL(ts_calloc((size_t)n, sizeof(double), "H(div) lifting on the host", &x0));
  const double t0 = ts_wtime();
  int ierr = ts_hdiv_system_rhs(o->hdiv, &data, o->host, x0);
  t[TS_SETUP_RIGHT_SIDE] += ts_wtime() - t0;
  if (!ierr) ierr = ts_vec_create(s->backend, n, TS_DOUBLE, &o->b);
  if (!ierr) ierr = ts_vec_create(s->backend, n, TS_DOUBLE, &o->x);
  if (!ierr) ierr = ts_vec_create(s->backend, n, TS_DOUBLE, &o->lift);
  if (!ierr) ierr = ts_vec_set_from_host(o->b, o->host);
  if (!ierr) ierr = ts_vec_set_from_host(o->lift, x0);
  ts_free(&x0);
  return ierr;
}

static int hdiv_pc_create(const ts_study *s, ts_level_objects *o) {
  memset(&o->pcs, 0, sizeof o->pcs);
  return ts_hdiv_system_create_pc(o->hdiv, s->p->triangular, &o->pcs.pc[0]);
}

/* x += x0; in the singular case the pressure block's mean removed (x_p = 1 spans the null
 * space), so that every backend reports the same solution */
static int hdiv_complete(const ts_study *s, ts_level_objects *o) {
  (void)s;
  TS_CALL(ts_vec_axpby(1.0, o->lift, 1.0, o->x));
  if (!ts_hdiv_system_is_singular(o->hdiv)) return 0;
  const int64_t nu = ts_dofs_count(o->dofs[0]), np = ts_dofs_count(o->dofs[1]);
  TS_CALL(ts_vec_get_to_host(o->x, o->host));
  long double sum = 0.0L;
  for (int64_t i = 0; i < np; ++i) sum += o->host[nu + i];
  for (int64_t i = 0; i < np; ++i) o->host[nu + i] -= (double)(sum / np);
  return ts_vec_set_from_host(o->x, o->host);
}

/* y = W^{-1} v for the pressure DoFs, by ts_hdiv_system_pressure (p = -W^{-1} x_p) on the
 * system vector work = [0; v] */
static int w_inverse(ts_hdiv_system system, int64_t nu, int64_t np, const double *v,
                     double *work, double *y) {
  memset(work, 0, (size_t)nu * sizeof *work);
  for (int64_t i = 0; i < np; ++i) work[nu + i] = -v[i];
  return ts_hdiv_system_pressure(system, work, y);
}

/* The singular case: ph shifted by a constant to the mean of p.  The DoFs are the integrals
 * over the sub-cells, so int ph = sum ph; int p = sum of the DoFs of its L2 projection
 * W^{-1} (p, psi) (the space holds the constants); the constant c has the DoFs c W^{-1} (1,
 * psi) = c |s_i|. */
static int match_mean(const ts_study *s, const ts_level_objects *o, ts_point_fn p_exact,
                      double *ph) {
  const int64_t nu = ts_dofs_count(o->dofs[0]), np = ts_dofs_count(o->dofs[1]);
  double *work = NULL, *load = NULL, *w = NULL;
  int ierr = ts_calloc((size_t)(nu + np), sizeof *work, "mean of p", &work);
  if (!ierr) ierr = ts_calloc((size_t)np, sizeof *load, "mean of p", &load);
  if (!ierr) ierr = ts_calloc((size_t)np, sizeof *w, "mean of p", &w);
  if (!ierr) ierr = ts_hdiv_load_vector(o->dofs[1], p_exact, s->data, load);
  if (!ierr) ierr = w_inverse(o->hdiv, nu, np, load, work, w);
  long double difference = 0.0L, volume = 0.0L;
  for (int64_t i = 0; !ierr && i < np; ++i) difference += w[i] - ph[i];
  for (int64_t i = 0; !ierr && i < np; ++i) load[i] = 1.0;
  if (!ierr) ierr = w_inverse(o->hdiv, nu, np, load, work, w);
  for (int64_t i = 0; !ierr && i < np; ++i) volume += w[i];
  for (int64_t i = 0; !ierr && i < np; ++i) ph[i] += (double)(difference / volume) * w[i];
  ts_free(&work);
  ts_free(&load);
  ts_free(&w);
  return ierr;
}

/* The pressure p = -W^{-1} x_p of o->host into the new array *ph; in the singular case
 * shifted to the mean of the exact pressure when one is known */
static int pressure_values(const ts_study *s, const ts_level_objects *o,
                           const hdiv_exact *exact, double **ph) {
  TS_CALL(ts_calloc((size_t)ts_dofs_count(o->dofs[1]), sizeof **ph, "pressure", ph));
  int ierr = ts_hdiv_system_pressure(o->hdiv, o->host, *ph);
  if (!ierr && exact->p && ts_hdiv_system_is_singular(o->hdiv))
    ierr = match_mean(s, o, exact->p, *ph);
  if (ierr) ts_free(ph);
  return ierr;
}

/* The L2 errors of u and p = -W^{-1} x_p against the built-in solution (none: NaN) */
static int hdiv_errors(const ts_study *s, const ts_level_objects *o, ts_level_report *r) {
  ts_hdiv_data data;
  hdiv_exact exact;
  problem_data(s->p, s->data, &data, &exact);
  if (!exact.u) return 0;
  double *ph = NULL;
  TS_CALL(pressure_values(s, o, &exact, &ph));
  int ierr = ts_hdiv_l2_error(o->dofs[0], o->host, exact.u, s->data, &r->l2_error);
  if (!ierr) ierr = ts_hdiv_l2_error(o->dofs[1], ph, exact.p, s->data, &r->pressure_l2_error);
  ts_free(&ph);
  return ierr;
}

/* <output vtu>: the lattice of the Stokes files (the same fields) */
static int hdiv_check_output(const ts_study *s, const int64_t *cells) {
  ts_problem p = s->p;
  if (p->vtu_path[0] && p->map != TS_MAP_BOX)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "<output vtu=\"%s\"> on <mesh map=\"%s\">: the H(div) "
                    "output (ts_hdiv_write_vtu) writes the box's lattice; allowed on map=\"box\" "
                    "only", p->vtu_path, ts_reader_map_name(p->map));
  return ts_stokes_vtu_check_output(p->vtu_path, p->dim, cells, p->vtu_subdivisions);
}

static int hdiv_write_output(const ts_study *s, const ts_level_objects *o) {
  ts_hdiv_data data;
  hdiv_exact exact;
  problem_data(s->p, s->data, &data, &exact);
  double *ph = NULL;
  TS_CALL(pressure_values(s, o, &exact, &ph));
  const int ierr = ts_hdiv_write_vtu(s->p->vtu_path, o->dofs[0], o->dofs[1], o->host, ph,
                                     exact.u, exact.p, s->data, s->p->vtu_subdivisions);
  ts_free(&ph);
  return ierr;
}

static void hdiv_print_errors(const ts_study *s, const ts_level_report *r, char *buf,
                              size_t len) {
  (void)s;
  char u_rate[16], p_rate[16];
  if (isnan(r->l2_error)) {
    snprintf(buf, len, "   %10s  %4s   %10s  %4s", "-", "-", "-", "-");
    return;
  }
  snprintf(buf, len, "   %.4e  %s   %.4e  %s", r->l2_error,
           ts_rate_text(r->l2_rate, u_rate, sizeof u_rate), r->pressure_l2_error,
           ts_rate_text(r->pressure_l2_rate, p_rate, sizeof p_rate));
}

static int hdiv_solution_settings(ts_problem p, ts_problem_settings *settings) {
  (void)p, (void)settings;
  return 0;
}

/* A bound of the finest level's assembled matrices besides its vectors: a row of M_beta
 * (the largest block) has at most (2k+3)(k+1)^(dim-1) < (2k+3)^dim entries of 12 bytes
 * (value and column), counted for every DoF, and as much again for D, D^T, S~ and the AMG. */
static uint64_t hdiv_extra_bytes(const struct ts_problem_s *p) {
  uint64_t per_row = 1;
  for (int d = 0; d < p->dim; ++d) per_row *= (uint64_t)(2 * p->degree + 3);
  return ts_stokes_dofs_bound(p) * per_row * 12 * 2;
}

#define HDIV_TABLE(NAME, ELEMENT)                                                            \
  .name = NAME, .fields = 2, .element = ELEMENT, .family = "RT", .fe_family = TS_FE_RT,      \
  .lowest_degree = 0, .highest_degree = TS_MAX_DEGREE - 1, .read = ts_hdiv_read,            \
  .default_solver = TS_SOLVER_MINRES, .default_preconditioner = "block-diagonal",           \
  .check_solver = ts_hdiv_check_solver, .pc_place = TS_PC_PLACE_HDIV,                       \
  .dofs_bound = ts_stokes_dofs_bound, .extra_bytes = hdiv_extra_bytes,                      \
  .solution_settings = hdiv_solution_settings, .fe_create = ts_fe_create_rt_ih,             \
  .error_heading = "   u L2 error  rate   p L2 error  rate", .dofs = ts_stokes_dofs,        \
  .study_create = hdiv_study_create, .study_free = hdiv_study_free,                         \
  .print_problem = hdiv_print_problem, .print_element = hdiv_print_element,                 \
  .print_solver = hdiv_print_solver, .mg_options = hdiv_mg_options,                         \
  .operator_create = hdiv_operator_create, .mg_create = hdiv_mg_create,                     \
  .setup = hdiv_setup, .pc_create = hdiv_pc_create, .complete = hdiv_complete,              \
  .errors = hdiv_errors, .print_errors = hdiv_print_errors, .output_degree_extra = 1,          \
  .check_output = hdiv_check_output, .write_output = hdiv_write_output

const ts_equation ts_equation_darcy = {HDIV_TABLE("darcy", "darcy")};
const ts_equation ts_equation_grad_div = {HDIV_TABLE("grad-div", "grad-div")};
