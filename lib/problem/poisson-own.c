/* poisson-own.c -- the builder of your own Poisson problem from a problem file:
 * -div(kappa grad u) + c u = f with u = g on the Dirichlet faces and kappa grad u . n = h on
 * the Neumann faces, the data as expressions of the point (<poisson f g kappa c u grad-u h
 * neumann>, ts_expression), on a mapped mesh (<mesh map>; the box as the affine image of the
 * unit box).  A pure Neumann problem (every face Neumann, no c) has its right side made
 * compatible (ts_remove_null_space) and its solution shifted to the exact solution's mean,
 * or to mean zero without one.  The operator, right side and errors are those
 * of mapped cells (ts_operator_create_mapped, ts_assemble_rhs_mapped,
 * ts_compute_errors_mapped), multigrid that of ts_mg_create_mapped (Chebyshev smoother on
 * D^{-1} A, or on the additive vertex patches);
 * kappa and c are sampled at the image of each cell's centre (piecewise constant per cell,
 * as ts_coefficients holds them). */
#include <stdlib.h>
#include <string.h>
#include "equation.h"

/* The parsed data, owned by the study (NULL for an attribute not given). */
typedef struct own_data {
  ts_expression f, g, kappa, c, u, grad_u, h;
} own_data;

static void own_data_free(own_data *d) {
  if (!d) return;
  ts_expression *all[] = {&d->f, &d->g, &d->kappa, &d->c, &d->u, &d->grad_u, &d->h};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) ts_expression_destroy(all[i]);
  free(d);
}

static int parse_optional(const char *text, int dim, int components, ts_expression *e) {
  *e = NULL;
  return text[0] ? ts_expression_create(text, dim, components, e) : 0;
}

static int own_data_create(ts_problem p, own_data **out) {
  own_data *d = NULL;
  TS_CALL(ts_calloc(1, sizeof *d, "problem data", &d));
  int ierr = parse_optional(p->f, p->dim, 1, &d->f);
  if (!ierr) ierr = parse_optional(p->g, p->dim, 1, &d->g);
  if (!ierr) ierr = parse_optional(p->kappa, p->dim, 1, &d->kappa);
  if (!ierr) ierr = parse_optional(p->c, p->dim, 1, &d->c);
  if (!ierr) ierr = parse_optional(p->u, p->dim, 1, &d->u);
  if (!ierr) ierr = parse_optional(p->grad_u, p->dim, p->dim, &d->grad_u);
  if (!ierr) ierr = parse_optional(p->h, p->dim, 1, &d->h);
  if (ierr) {
    own_data_free(d);
    return ierr;
  }
  *out = d;
  return 0;
}

/* ts_assemble_rhs_mapped and ts_compute_errors_mapped take one context for two functions:
 * these route each call to its expression (ctx: the own_data). */
static int eval_f(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((own_data *)ctx)->f, dim, n, x, v);
}
static int eval_g(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((own_data *)ctx)->g, dim, n, x, v);
}
static int eval_u(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((own_data *)ctx)->u, dim, n, x, v);
}
static int eval_grad_u(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((own_data *)ctx)->grad_u, dim, n, x, v);
}
static int eval_h(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((own_data *)ctx)->h, dim, n, x, v);
}

static int own_study_create(ts_study *s) {
  own_data *d = NULL;
  TS_CALL(own_data_create(s->p, &d));
  s->data = d;
  return ts_fe_create_q(s->p->dim, s->p->degree, &s->fe[0]);
}

static void own_study_free(ts_study *s) {
  own_data_free(s->data);
  s->data = NULL;
}

static void own_print_problem(ts_problem p, FILE *log) {
  fprintf(log, "  Poisson, your own data: f = %s", p->f);
  if (p->g[0]) fprintf(log, ", g = %s", p->g);
  if (p->kappa[0]) fprintf(log, ", kappa = %s", p->kappa);
  if (p->c[0]) fprintf(log, ", c = %s", p->c);
  if (p->kappa_file[0]) fprintf(log, ", kappa from %s", p->kappa_file);
  if (p->c_file[0]) fprintf(log, ", c from %s", p->c_file);
  if (p->coefficients_at_points && (p->kappa[0] || p->c[0])) fprintf(log, " (at every quadrature point)");
  for (int face = 0, first = 1; face < 2 * p->dim; ++face)
    if (p->neumann_faces >> face & 1) {
      fprintf(log, "%s%s", first ? ",\n  Neumann faces " : " ", ts_face_names[face]);
      first = 0;
    }
  if (p->neumann_faces) fprintf(log, " with h = %s", p->h[0] ? p->h : "0");
  fprintf(log, p->u[0] ? ",\n  exact solution u = %s" : ", no exact solution", p->u);
}

static void own_print_element(ts_problem p, FILE *log) {
  fprintf(log, ", element Q%d\n", p->degree);
}

static void own_print_solver(ts_problem p, FILE *log) {
  if (p->fmg) fprintf(log, "  solver full multigrid, rtol %.1e\n", p->rtol);
  else
    fprintf(log, "  solver %s, preconditioner %s, rtol %.1e, %s precision\n",
            ts_solver_label(p->solver), p->preconditioner, p->rtol, ts_precision_name(p->precision));
  if (p->use_mg)
    fprintf(log, "  multigrid on mapped cells: levels %d..finest rediscretized (kappa, c "
            "averaged), V(1,1), Chebyshev degree %d on %s, %s precision V-cycle\n",
            p->mg.coarse_level, p->mg.chebyshev_degree,
            p->mg.smoother == TS_MG_SMOOTHER_VERTEX_PATCH ? "the additive vertex patches" : "D^-1 A",
            p->mg.precision == TS_SINGLE ? "single (mixed)" : "double");
}

static void own_mg_options(ts_problem p, ts_mg_options *options) {
  *options = p->mg;
  options->neumann_faces = p->neumann_faces;
}

int ts_study_file_coefficients(const ts_study *s, const char *path, int components, int level,
                             double **out) {
  const ts_mesh mesh = s->mesh;
  const int finest = s->p->levels;
  int64_t cells[3] = {1, 1, 1};
  TS_CALL(ts_mesh_cells(mesh, finest, cells));
  int64_t n = cells[0] * cells[1] * (mesh->dim == 3 ? cells[2] : 1);
  double *values = NULL, *coarser = NULL;
  TS_CALL(ts_calloc((size_t)(n * components), sizeof *values, "coefficients from a file", &values));
  int ierr = ts_cell_values_read(path, n, components, values);
  for (int l = finest - 1; l >= level && !ierr; --l) { /* the mean of the children */
    ierr = ts_mesh_cells(mesh, l + 1, cells);
    n >>= mesh->dim;
    if (!ierr) ierr = ts_calloc((size_t)(n * components), sizeof *coarser, "coefficients", &coarser);
    if (!ierr) ts_cell_values_coarsen(mesh->dim, cells, components, values, coarser);
    ts_free(&values);
    values = coarser;
    coarser = NULL;
  }
  if (ierr) ts_free(&values);
  *out = values;
  return ierr;
}

/* kappa and c at the image of each cell's centre (the level's cells, ts_coefficients'
 * numbering), or from the files; NULL arrays for the defaults kappa = 1, c = 0. */
static int cell_coefficients(const ts_study *s, int level, double **kappa, double **c) {
  const own_data *d = s->data;
  const ts_mesh mesh = s->mesh;
  const int dim = mesh->dim;
  int64_t cells[3] = {1, 1, 1};
  *kappa = *c = NULL;
  ts_problem p = s->p;
  if (p->kappa_file[0]) TS_CALL(ts_study_file_coefficients(s, p->kappa_file, p->kappa_file_components, level, kappa));
  const int ierr_c = p->c_file[0] ? ts_study_file_coefficients(s, p->c_file, 1, level, c) : 0;
  if (ierr_c) {
    ts_free(kappa);
    return ierr_c;
  }
  if (!d->kappa && !d->c) return 0;
  TS_CALL(ts_mesh_cells(mesh, level, cells));
  const int64_t n = cells[0] * cells[1] * (dim == 3 ? cells[2] : 1);
  double *centres = NULL;
  TS_CALL(ts_calloc((size_t)(n * dim), sizeof(double), "cell centres", &centres));
  int ierr = 0;
  for (int64_t cell = 0; cell < n; ++cell) {
    const int64_t index[3] = {cell % cells[0], cell / cells[0] % cells[1], cell / cells[0] / cells[1]};
    for (int k = 0; k < dim; ++k) centres[cell * dim + k] = (index[k] + 0.5) / (double)cells[k];
  }
  /* the reference centres mapped in place, one call per batch */
  double xi[3 * 64];
  for (int64_t first = 0; first < n && !ierr; first += 64) {
    const int64_t count = n - first < 64 ? n - first : 64;
    memcpy(xi, centres + first * dim, sizeof(double) * (size_t)(count * dim));
    if (mesh->map(mesh->map_ctx, dim, count, xi, centres + first * dim))
      ierr = TS_ERROR(TS_ERR_INPUT, "the mesh's map failed at the centres of cells %lld..%lld",
                      (long long)first, (long long)(first + count - 1));
  }
  if (!ierr && d->kappa) ierr = ts_calloc((size_t)n, sizeof(double), "kappa per cell", kappa);
  if (!ierr && d->kappa && ts_expression_evaluate(d->kappa, dim, n, centres, *kappa))
    ierr = TS_ERROR(TS_ERR_INPUT, "kappa = \"%s\" could not be evaluated", ts_expression_text(d->kappa));
  if (!ierr && d->c) ierr = ts_calloc((size_t)n, sizeof(double), "c per cell", c);
  if (!ierr && d->c && ts_expression_evaluate(d->c, dim, n, centres, *c))
    ierr = TS_ERROR(TS_ERR_INPUT, "c = \"%s\" could not be evaluated", ts_expression_text(d->c));
  ts_free(&centres);
  if (ierr) {
    ts_free(kappa);
    ts_free(c);
  }
  return ierr;
}

/* kappa's values per cell: a file's (1 or a tensor's), an expression's 1, or 0 (kappa = 1) */
static int kappa_components(ts_problem p, const double *kappa) {
  return !kappa ? 0 : p->kappa_file[0] ? p->kappa_file_components : 1;
}

static int eval_kappa(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((own_data *)ctx)->kappa, dim, n, x, v);
}
static int eval_c(void *ctx, int dim, int64_t n, const double *x, double *v) {
  return ts_expression_evaluate(((own_data *)ctx)->c, dim, n, x, v);
}

/* The level's coefficients: per cell (kappa and c arrays, owned by the caller), or with
 * <poisson sample="points"> the expressions at the quadrature points (no arrays). */
int ts_poisson_own_coefficients(const ts_study *s, int level, double **kappa, double **c,
                                ts_coefficients *co) {
  own_data *d = s->data;
  *kappa = *c = NULL;
  if (s->p->coefficients_at_points) {
    *co = (ts_coefficients){.kappa_components = d->kappa ? 1 : 0,
                            .kappa_at = d->kappa ? eval_kappa : NULL,
                            .reaction_at = d->c ? eval_c : NULL, .ctx = d};
    return 0;
  }
  TS_CALL(cell_coefficients(s, level, kappa, c));
  *co = (ts_coefficients){.kappa_components = kappa_components(s->p, *kappa), .kappa = *kappa,
                          .reaction = *c};
  return 0;
}

static int own_operator_on_level(const ts_study *s, ts_backend backend, ts_dofs dofs, int level,
                                 ts_precision precision, ts_operator *A) {
  double *kappa = NULL, *c = NULL;
  ts_coefficients coefficients;
  TS_CALL(ts_poisson_own_coefficients(s, level, &kappa, &c, &coefficients));
  const int ierr = ts_operator_create_mapped(backend, dofs, &coefficients, precision, A);
  ts_free(&kappa);
  ts_free(&c);
  return ierr;
}

static int own_operator_create(const ts_study *s, ts_backend backend, const ts_dofs *dofs,
                               ts_precision precision, ts_operator *A) {
  TS_CALL(ts_dofs_set_neumann_faces(dofs[0], s->p->neumann_faces));
  return own_operator_on_level(s, backend, dofs[0], dofs[0]->level, precision, A);
}

static int own_mg_create(const ts_study *s, ts_backend backend, int level,
                         const ts_mg_options *options, ts_mg *mg) {
  double *kappa = NULL, *c = NULL;
  ts_mg_options o = *options;
  o.neumann_faces = s->p->neumann_faces;
  ts_coefficients coefficients;
  TS_CALL(ts_poisson_own_coefficients(s, level, &kappa, &c, &coefficients));
  const int ierr = ts_mg_create_mapped(backend, s->mesh, s->fe[0], level, &coefficients, &o, mg);
  ts_free(&kappa);
  ts_free(&c);
  return ierr;
}

/* A pure Neumann problem's data must satisfy (f, 1) + (h, 1)_N = 0; beyond quadrature
 * error (below 1e-12 relative in the tests) a defect this large is a mistake in the data. */
#define INCOMPATIBLE_DEFECT 1e-3

void ts_poisson_own_functions_of(const ts_study *s, ts_poisson_own_functions *fns) {
  const own_data *d = s->data;
  *fns = (ts_poisson_own_functions){.f = d->f ? eval_f : NULL, .g = d->g ? eval_g : NULL,
                                    .u = d->u ? eval_u : NULL,
                                    .grad_u = d->grad_u ? eval_grad_u : NULL, .ctx = s->data};
}

/* The operator on the mapped cells, b = (f, phi_i) + (h, phi_i)_N lifted for g, x0 = g on
 * the Dirichlet faces; for a pure Neumann problem b made compatible. */
static int own_setup(const ts_study *s, ts_level_objects *o, double *t) {
  own_data *d = s->data;
  TS_CALL(ts_poisson_space_operator(s, o, t));
  const int64_t n = ts_dofs_count(o->dofs[0]);
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, TS_DOUBLE, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, TS_DOUBLE, &o->x));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, TS_DOUBLE, &o->lift));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE],
                ts_assemble_rhs_mapped(o->A, eval_f, d->g ? eval_g : NULL, d, o->b, o->lift));
  if (d->h) TS_CALL_TIMED(&t[TS_SETUP_BOUNDARY], ts_assemble_neumann_mapped(o->A, eval_h, d, o->b));
  double defect = 0.0;
  TS_CALL(ts_remove_null_space(o->A, o->b, &defect));
  if (defect > INCOMPATIBLE_DEFECT)
    return TS_ERROR(TS_ERR_INPUT, "a pure Neumann problem (every face Neumann, c = 0) needs "
                    "(f, 1) + (h, 1) = 0 over the domain and its boundary; here |sum b_i| / sum "
                    "|b_i| = %.3g: check f = %s and h = %s (the outward flux kappa grad u . n)",
                    defect, s->p->f, s->p->h[0] ? s->p->h : "0");
  return 0;
}

/* The boundary values added back; a pure Neumann solution shifted to u's mean (or zero). */
static int own_complete(const ts_study *s, ts_level_objects *o) {
  own_data *d = s->data;
  TS_CALL(ts_poisson_complete(s, o));
  if (!ts_operator_mapped_singular(o->A)) return 0;
  const int64_t n = ts_dofs_count(o->dofs[0]);
  double *x, mean = 0.0, u_mean = 0.0;
  TS_CALL(ts_calloc((size_t)n, sizeof *x, "solution", &x));
  int ierr = ts_vec_get_to_host(o->x, x);
  if (!ierr) ierr = ts_mean_mapped(o->dofs[0], x, d->u ? eval_u : NULL, d, &mean, &u_mean);
  for (int64_t i = 0; !ierr && i < n; ++i) x[i] += u_mean - mean;
  if (!ierr) ierr = ts_vec_set_from_host(o->x, x);
  free(x);
  return ierr;
}

static int own_errors(const ts_study *s, const ts_level_objects *o, ts_level_report *r) {
  own_data *d = s->data;
  if (!d->u) return 0; /* no exact solution */
  return ts_compute_errors_mapped(o->dofs[0], o->host, eval_u, eval_grad_u, d, &r->l2_error,
                                  &r->h1_error);
}

static int own_check_output(const ts_study *s, const int64_t *cells) {
  ts_problem p = s->p;
  return ts_vtu_check_output(p->vtu_path, p->dim, cells, p->vtu_subdivisions,
                             ((own_data *)s->data)->u != NULL);
}

/* the finest level's <output vtu>: the mapped lattice, with the error where u is known */
static int own_write_output(const ts_study *s, const ts_level_objects *o) {
  ts_problem p = s->p;
  own_data *d = s->data;
  return ts_write_vtu_mapped(p->vtu_path, o->dofs[0], o->host, d->u ? eval_u : NULL, d,
                             p->vtu_subdivisions);
}

static void own_print_errors(const ts_study *s, const ts_level_report *r, char *buf, size_t len) {
  ts_poisson_error_columns(((own_data *)s->data)->u != NULL, r, buf, len);
}

/* the data are expressions (own_data), no built-in solution */
static int own_solution_settings(ts_problem p, ts_problem_settings *settings) {
  (void)p;
  settings->solution = NULL;
  return 0;
}

const ts_equation ts_equation_poisson_own = {
    .name = "poisson-own",
    .fields = 1,
    .element = "poisson",
    .family = "Q",
    .fe_family = TS_FE_Q,
    .lowest_degree = 1,
    .highest_degree = TS_MAX_DEGREE,
    .selects = ts_poisson_own_selects,
    .read = ts_poisson_read,
    .default_solver = TS_SOLVER_CG,
    .default_preconditioner = "jacobi",
    .check_problem = ts_poisson_own_check,
    .pc_place = TS_PC_PLACE_POISSON,
    .jacobi_places = 1u << TS_PC_PLACE_POISSON,
    .mapped = 1,
    .dofs_bound = ts_poisson_dofs_bound,
    .solution_settings = own_solution_settings,
    .fe_create = ts_fe_create_q,
    .error_heading = "     L2 error  rate     H1 error  rate",
    .dofs = ts_poisson_dofs,
    .study_create = own_study_create,
    .study_free = own_study_free,
    .check_output = own_check_output,
    .print_problem = own_print_problem,
    .print_element = own_print_element,
    .print_solver = own_print_solver,
    .mg_options = own_mg_options,
    .operator_create = own_operator_create,
    .mg_create = own_mg_create,
    .setup = own_setup,
    .complete = own_complete,
    .errors = own_errors,
    .write_output = own_write_output,
    .print_errors = own_print_errors,
};
