/* stokes.c -- the Stokes equation's builder (paper 000, doc/stokes.md): RT_k x DGQ_k, the
 * multigrid hierarchy that holds the Stokes operator (vertex-patch smoother with the chosen
 * local solver, transfers), the right side of the manufactured solution (11)-(13), for MINRES
 * the symmetric form, the pressure mean removed after the solve, the L2 errors of velocity
 * and pressure and the .vtu output. */
#include "equation.h"

/* DoFs of RT_k x DGQ_k (doc/stokes.md section 2): per velocity component
 * prod_d (cells_d (k+1) + [d == i]), and prod_d cells_d (k+1) pressure DoFs. */
int64_t ts_stokes_dofs(int dim, int degree, const int64_t *cells) {
  int64_t pressure = 1, total = 0;
  for (int d = 0; d < dim; ++d) pressure *= cells[d] * (degree + 1);
  for (int i = 0; i < dim; ++i) {
    int64_t component = 1;
    for (int d = 0; d < dim; ++d) component *= cells[d] * (degree + 1) + (d == i);
    total += component;
  }
  return total + pressure;
}

/* RT_k and DGQ_k, and the manufactured solution */
static int stokes_study_create(ts_study *s) {
  const ts_stokes_solution *solution;
  TS_CALL(ts_stokes_solution_by_name(s->p->solution, &solution));
  s->exact = solution;
  TS_CALL(ts_fe_create_rt(s->p->dim, s->p->degree, &s->fe[0]));
  TS_CALL(ts_fe_create_dgq(s->p->dim, s->p->degree, &s->fe[1]));
  return 0;
}

static int stokes_check_output(const ts_study *s, const int64_t *cells) {
  ts_problem p = s->p;
  return ts_stokes_vtu_check_output(p->vtu_path, p->dim, cells, p->vtu_subdivisions);
}

static void stokes_print_problem(ts_problem p, FILE *log) {
  fprintf(log, "  Stokes, manufactured solution '%s'", p->solution);
}

static void stokes_print_element(ts_problem p, FILE *log) {
  fprintf(log, ", RT%d x DGQ%d, interior penalty eta = %g\n", p->degree, p->degree, p->penalty);
}

static void stokes_print_solver(ts_problem p, FILE *log) {
  fprintf(log, "  solver %s(%d), preconditioner %s (%s), rtol %.1e\n", ts_solver_label(p->solver),
          p->restart, p->preconditioner, p->side == TS_SIDE_LEFT ? "left" : "right", p->rtol);
  if (p->use_mg)
    fprintf(log, "  multigrid: levels %d..finest, V(1,1), vertex-patch smoother with the %s local "
            "solver, %s precision V-cycle\n", p->mg.coarse_level,
            p->stokes_direct ? "direct" : "Schur complement",
            p->mg.precision == TS_SINGLE ? "single (mixed)" : "double");
}

/* the problem's multigrid options with the local solver and the penalty */
static void stokes_mg_options(ts_problem p, ts_mg_options *options) {
  *options = p->mg;
  options->stokes_solver = p->stokes_direct ? TS_STOKES_PATCH_DIRECT : TS_STOKES_PATCH_SCHUR;
  options->stokes_penalty = p->penalty;
}

static int stokes_operator_create(const ts_study *s, ts_backend backend, const ts_dofs *dofs,
                                  ts_precision precision, ts_operator *A) {
  return ts_operator_create_stokes(backend, dofs[0], dofs[1], s->p->penalty, precision, A);
}

static int stokes_mg_create(const ts_study *s, ts_backend backend, int level,
                            const ts_mg_options *options, ts_mg *mg) {
  return ts_mg_create_stokes(backend, s->mesh, s->p->degree, level, options, mg);
}

/* MINRES solves the symmetric form [A B^T; B 0] x = diag(I, -I) b, the same solution as
 * Acal x = b since [A B^T; B 0] = diag(I, -I) Acal (doc/stokes.md section 12): the pressure
 * rows of the right side b_host change sign. */
static int use_symmetric_form(ts_level_objects *o, double *b_host) {
  TS_CALL(ts_operator_create_stokes_symmetric(o->A, &o->form));
  const int64_t n = ts_operator_size(o->form);
  for (int64_t i = ts_dofs_count(o->dofs[0]); i < n; ++i) b_host[i] = -b_host[i];
  return 0;
}

/* The hierarchy (the Stokes operator is its finest level's), and the right side assembled
 * on the host (o->host, where the solution comes back) */
static int stokes_setup(const ts_study *s, ts_level_objects *o, double *t) {
  ts_mg_options options;
  stokes_mg_options(s->p, &options);
  TS_CALL(stokes_mg_create(s, s->backend, o->level, &options, &o->mg));
  TS_CALL(ts_problem_add_mg_phases(o->mg, t));
  o->dofs[0] = ts_mg_dofs(o->mg);
  o->dofs[1] = ts_mg_pressure_dofs(o->mg);
  o->A = ts_mg_operator(o->mg);
  const int64_t n = ts_operator_size(o->A);
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE], ts_calloc((size_t)n, sizeof(double),
                                                   "Stokes right side on the host", &o->host));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE],
                ts_stokes_assemble_rhs(o->dofs[0], o->dofs[1], s->exact, o->host));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, TS_DOUBLE, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, TS_DOUBLE, &o->x));
  if (s->p->solver == TS_SOLVER_MINRES)
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS], use_symmetric_form(o, o->host));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE], ts_vec_set_from_host(o->b, o->host));
  return 0;
}

/* the pressure mean removed (doc/stokes.md section 6) */
static int stokes_complete(const ts_study *s, ts_level_objects *o) {
  (void)s;
  return ts_stokes_pressure_mean_remove(o->A, o->x);
}

static int stokes_errors(const ts_study *s, const ts_level_objects *o, ts_level_report *r) {
  return ts_stokes_compute_errors(o->dofs[0], o->dofs[1], o->host, s->exact, &r->l2_error,
                                  &r->pressure_l2_error);
}

/* doc/stokes.md section 10 */
static int stokes_write_output(const ts_study *s, const ts_level_objects *o) {
  ts_problem p = s->p;
  return ts_stokes_write_vtu(p->vtu_path, o->dofs[0], o->dofs[1], o->host, s->exact,
                             p->vtu_subdivisions);
}

static void stokes_print_errors(const ts_study *s, const ts_level_report *r, char *buf,
                                size_t len) {
  (void)s;
  char u_rate[16], p_rate[16];
  snprintf(buf, len, "   %.4e  %s   %.4e  %s", r->l2_error,
           ts_rate_text(r->l2_rate, u_rate, sizeof u_rate), r->pressure_l2_error,
           ts_rate_text(r->pressure_l2_rate, p_rate, sizeof p_rate));
}

/* An upper bound of the DoFs on the finest level: (dim + 1) prod_d (cells_d (k+1) + 1)
 * (section 2: dim velocity components and the pressure, each at most that size). */
uint64_t ts_stokes_dofs_bound(const struct ts_problem_s *p) {
  return ts_reader_grid_dofs(p, (uint64_t)p->degree + 1, (uint64_t)p->dim + 1);
}

int ts_stokes_solution_settings(ts_problem p, ts_problem_settings *settings) {
  return ts_stokes_solution_by_name(p->solution, &settings->stokes_solution);
}

const ts_equation ts_equation_stokes = {
    .name = "stokes",
    .fields = 2,
    .element = "stokes",
    .family = "RT",
    .fe_family = TS_FE_RT,
    .lowest_degree = 0,
    .highest_degree = TS_MAX_DEGREE - 1,
    .read = ts_stokes_read,
    .default_solver = TS_SOLVER_GMRES,
    .default_preconditioner = "mg",
    .check_solver = ts_stokes_check_solver,
    .pc_place = TS_PC_PLACE_STOKES,
    .stokes_patch_mg = 1,
    .output_degree_extra = 1,
    .dofs_bound = ts_stokes_dofs_bound,
    .solution_settings = ts_stokes_solution_settings,
    .fe_create = ts_fe_create_rt,
    .error_heading = "   u L2 error  rate   p L2 error  rate",
    .dofs = ts_stokes_dofs,
    .study_create = stokes_study_create,
    .check_output = stokes_check_output,
    .print_problem = stokes_print_problem,
    .print_element = stokes_print_element,
    .print_solver = stokes_print_solver,
    .mg_options = stokes_mg_options,
    .operator_create = stokes_operator_create,
    .mg_create = stokes_mg_create,
    .setup = stokes_setup,
    .complete = stokes_complete,
    .errors = stokes_errors,
    .write_output = stokes_write_output,
    .print_errors = stokes_print_errors,
};
