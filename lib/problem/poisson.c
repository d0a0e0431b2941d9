/* poisson.c -- the Poisson equation's builder: Q_k, the matrix-free Laplacian (or the
 * multigrid hierarchy that holds it), the right side of the manufactured solution (or f = 1)
 * with the boundary values lifted out of the system, the L2 and H1 errors, the .vtu output. */
#include "equation.h"

/* prod_d (cells_d k + 1) */
int64_t ts_poisson_dofs(int dim, int degree, const int64_t *cells) {
  int64_t n = 1;
  for (int d = 0; d < dim; ++d) n *= cells[d] * degree + 1;
  return n;
}

/* Q_k, and the manufactured solution (f = 1: ts_rhs_one, no exact solution) */
static int poisson_study_create(ts_study *s) {
  const ts_solution *u = ts_rhs_one();
  if (!s->p->rhs_one) TS_CALL(ts_solution_by_name(s->p->solution, &u));
  s->exact = u;
  TS_CALL(ts_fe_create_q(s->p->dim, s->p->degree, &s->fe[0]));
  return 0;
}

static int poisson_check_output(const ts_study *s, const int64_t *cells) {
  ts_problem p = s->p;
  return ts_vtu_check_output(p->vtu_path, p->dim, cells, p->vtu_subdivisions, !p->rhs_one);
}

static void poisson_print_problem(ts_problem p, FILE *log) {
  if (p->rhs_one) fprintf(log, "  Poisson, right side f = 1, zero boundary values");
  else fprintf(log, "  Poisson, manufactured solution '%s'", p->solution);
}

static void poisson_print_element(ts_problem p, FILE *log) {
  fprintf(log, ", element Q%d\n", p->degree);
}

/* "auto" or the coarse degree of the multigrid options */
static const char *coarse_degree_text(const ts_mg_options *o, char *buf, size_t len) {
  if (o->coarse_degree == TS_MG_COARSE_DEGREE_AUTO) snprintf(buf, len, "auto");
  else snprintf(buf, len, "%d", o->coarse_degree);
  return buf;
}

static const char *smoother_text(const ts_mg_options *o) {
  if (o->smoother == TS_MG_SMOOTHER_CHEBYSHEV) return "chebyshev";
  return o->variant == TS_PATCH_FUSED ? "vertex-patch (fused)" : "vertex-patch (separate)";
}

static void poisson_print_solver(ts_problem p, FILE *log) {
  char degree[16];
  if (p->fmg) fprintf(log, "  solver full multigrid, rtol %.1e\n", p->rtol);
  else
    fprintf(log, "  solver %s, preconditioner %s, rtol %.1e, %s precision\n",
            ts_solver_label(p->solver), p->preconditioner, p->rtol,
            ts_precision_name(p->precision));
  if (p->use_mg)
    fprintf(log, "  multigrid: levels %d..finest, coarse degree %s, coarse solver %s, V(1,1), "
            "smoother %s, %s precision V-cycle\n", p->mg.coarse_level,
            coarse_degree_text(&p->mg, degree, sizeof degree),
            ts_mg_coarse_solver_word(p->mg.coarse_solver), smoother_text(&p->mg),
            p->mg.precision == TS_SINGLE ? "single (mixed)" : "double");
}

static void poisson_mg_options(ts_problem p, ts_mg_options *options) { *options = p->mg; }

static int poisson_operator_create(const ts_study *s, ts_backend backend, const ts_dofs *dofs,
                                   ts_precision precision, ts_operator *A) {
  (void)s;
  return ts_operator_create_laplace(backend, dofs[0], precision, A);
}

static int poisson_mg_create(const ts_study *s, ts_backend backend, int level,
                             const ts_mg_options *options, ts_mg *mg) {
  return ts_mg_create(backend, s->mesh, s->fe[0], level, options, mg);
}

/* The DoFs and the operator of the equation (its mg_create and operator_create): the
 * hierarchy's finest level when the problem uses multigrid. */
int ts_poisson_space_operator(const ts_study *s, ts_level_objects *o, double *t) {
  ts_problem p = s->p;
  if (p->use_mg) {
    TS_CALL(s->eq->mg_create(s, s->backend, o->level, &p->mg, &o->mg));
    TS_CALL(ts_problem_add_mg_phases(o->mg, t));
    o->dofs[0] = ts_mg_dofs(o->mg);
    o->A = ts_mg_operator(o->mg);
    return 0;
  }
  TS_CALL_TIMED(&t[TS_SETUP_DOFS], ts_dofs_create(s->mesh, s->fe[0], o->level, &o->dofs[0]));
  TS_CALL_TIMED(&t[TS_SETUP_OPERATORS],
                s->eq->operator_create(s, s->backend, o->dofs, p->precision, &o->A));
  return 0;
}

/* The Laplacian, b = f - A u_D on the interior and x0 = u_D (the lift) on the boundary. */
static int poisson_setup(const ts_study *s, ts_level_objects *o, double *t) {
  ts_problem p = s->p;
  TS_CALL(ts_poisson_space_operator(s, o, t));
  const int64_t n = ts_dofs_count(o->dofs[0]);
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, p->precision, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, p->precision, &o->x));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, p->precision, &o->lift));
  TS_CALL(ts_assemble_rhs_timed(o->A, o->dofs[0], s->exact, o->b, o->lift, t));
  return 0;
}

/* the boundary values added back */
int ts_poisson_complete(const ts_study *s, ts_level_objects *o) {
  (void)s;
  return ts_vec_axpby(1.0, o->lift, 1.0, o->x);
}

static int poisson_errors(const ts_study *s, const ts_level_objects *o, ts_level_report *r) {
  if (s->p->rhs_one) return 0; /* no exact solution */
  return ts_compute_errors(o->dofs[0], o->host, s->exact, &r->l2_error, &r->h1_error);
}

static int poisson_write_output(const ts_study *s, const ts_level_objects *o) {
  ts_problem p = s->p;
  return ts_write_vtu(p->vtu_path, o->dofs[0], o->host, p->rhs_one ? NULL : s->exact,
                      p->vtu_subdivisions);
}

/* The L2 and H1 columns; without an exact solution they show "-". */
void ts_poisson_error_columns(int exact, const ts_level_report *r, char *buf, size_t len) {
  char l2_rate[16], h1_rate[16];
  if (!exact) snprintf(buf, len, "  %10s  %4s  %10s  %4s", "-", "-", "-", "-");
  else
    snprintf(buf, len, "  %.4e  %s  %.4e  %s", r->l2_error,
             ts_rate_text(r->l2_rate, l2_rate, sizeof l2_rate), r->h1_error,
             ts_rate_text(r->h1_rate, h1_rate, sizeof h1_rate));
}

/* Without an exact solution (f = 1) the error columns show "-". */
static void poisson_print_errors(const ts_study *s, const ts_level_report *r, char *buf,
                                 size_t len) {
  ts_poisson_error_columns(!s->p->rhs_one, r, buf, len);
}

uint64_t ts_poisson_dofs_bound(const struct ts_problem_s *p) {
  return ts_reader_grid_dofs(p, (uint64_t)p->degree, 1);
}

/* the built-in solution, or f = 1 without one (rhs="one") */
static int poisson_solution_settings(ts_problem p, ts_problem_settings *settings) {
  if (p->rhs_one) {
    settings->solution = ts_rhs_one();
    return 0;
  }
  return ts_solution_by_name(p->solution, &settings->solution);
}

const ts_equation ts_equation_poisson = {
    .name = "poisson",
    .fields = 1,
    .element = "poisson",
    .family = "Q",
    .fe_family = TS_FE_Q,
    .lowest_degree = 1,
    .highest_degree = TS_MAX_DEGREE,
    .read = ts_poisson_read,
    .default_solver = TS_SOLVER_CG,
    .default_preconditioner = "jacobi",
    .pc_place = TS_PC_PLACE_POISSON,
    .jacobi_places = 1u << TS_PC_PLACE_POISSON,
    .dofs_bound = ts_poisson_dofs_bound,
    .solution_settings = poisson_solution_settings,
    .fe_create = ts_fe_create_q,
    .error_heading = "     L2 error  rate     H1 error  rate",
    .dofs = ts_poisson_dofs,
    .study_create = poisson_study_create,
    .check_output = poisson_check_output,
    .print_problem = poisson_print_problem,
    .print_element = poisson_print_element,
    .print_solver = poisson_print_solver,
    .mg_options = poisson_mg_options,
    .operator_create = poisson_operator_create,
    .mg_create = poisson_mg_create,
    .setup = poisson_setup,
    .complete = ts_poisson_complete,
    .errors = poisson_errors,
    .write_output = poisson_write_output,
    .print_errors = poisson_print_errors,
};
