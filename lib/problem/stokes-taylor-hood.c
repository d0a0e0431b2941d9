/* stokes-taylor-hood.c -- the Taylor-Hood Stokes builder (papers 001/004, doc/taylor-hood.md):
 * <stokes> with <element family="taylor-hood" degree="k">: velocity Q_k per component and
 * pressure Q_{k-1}, the Taylor-Hood operator, the right side of the manufactured solution
 * with the Dirichlet velocity lifted, for MINRES the symmetric form, the pressure mean
 * removed and the lift added after the solve, the L2 and H1 errors of u and the L2 error of
 * p.  Where the preconditioner tree uses mg, the hierarchy is the Q_k Laplacian's (the
 * velocity block's V-cycle, one per component); the coupled multigrid is not built yet. */
#include "equation.h"

/* dim prod_d (cells_d k + 1) velocity and prod_d (cells_d (k-1) + 1) pressure DoFs */
static int64_t taylor_hood_dofs(int dim, int degree, const int64_t *cells) {
  return dim * ts_poisson_dofs(dim, degree, cells) + ts_poisson_dofs(dim, degree - 1, cells);
}

static int taylor_hood_study_create(ts_study *s) {
  const ts_stokes_solution *solution;
  TS_CALL(ts_stokes_solution_by_name(s->p->solution, &solution));
  s->exact = solution;
  TS_CALL(ts_fe_create_q(s->p->dim, s->p->degree, &s->fe[0]));
  TS_CALL(ts_fe_create_q(s->p->dim, s->p->degree - 1, &s->fe[1]));
  return 0;
}

static void taylor_hood_print_problem(ts_problem p, FILE *log) {
  fprintf(log, "  Stokes, manufactured solution '%s'", p->solution);
}

static void taylor_hood_print_element(ts_problem p, FILE *log) {
  fprintf(log, ", Taylor-Hood Q%d x Q%d\n", p->degree, p->degree - 1);
}

/* the coupled multigrid (a relaxation of the saddle-point system as the smoother), else the
 * velocity Laplacian's */
static int coupled(ts_problem p) { return ts_mg_smoother_is_saddle(p->mg.smoother); }

static void taylor_hood_print_solver(ts_problem p, FILE *log) {
  fprintf(log, "  solver %s(%d), preconditioner %s (%s), rtol %.1e\n", ts_solver_label(p->solver),
          p->restart, p->preconditioner, p->side == TS_SIDE_LEFT ? "left" : "right", p->rtol);
  const char *precision = p->mg.precision == TS_SINGLE ? "single (mixed)" : "double";
  if (p->use_mg && coupled(p)) {
    ts_saddle_relaxation r;
    (void)ts_saddle_relaxation_resolve(p->mg.smoother, p->degree, &p->mg.relaxation, &r);
    fprintf(log, "  coupled multigrid V(1,1), levels %d..finest, %s precision, ",
            p->mg.coarse_level, precision);
    if (p->mg.smoother == TS_MG_SMOOTHER_VANKA)
      fprintf(log, "%s Vanka, weight %g\n", r.multiplicative ? "multiplicative" : "additive",
              r.weight);
    else if (p->mg.smoother == TS_MG_SMOOTHER_BRAESS_SARAZIN)
      fprintf(log, "Braess-Sarazin, weight %g, t = %g, %d Jacobi sweep(s) on S with weight %g\n",
              r.weight, r.t, r.schur_sweeps, r.schur_weight);
    else
      fprintf(log, "Schur-Uzawa, t = %g, %d Jacobi sweep(s) on S with weight %g\n", r.t,
              r.schur_sweeps, r.schur_weight);
  } else if (p->use_mg) {
    fprintf(log, "  multigrid on the velocity block: the Q%d Laplacian's V(1,1) per component, "
            "levels %d..finest, %s smoother, %s precision\n", p->degree, p->mg.coarse_level,
            ts_mg_smoother_word(p->mg.smoother), precision);
  }
}

static void taylor_hood_mg_options(ts_problem p, ts_mg_options *options) {
  *options = p->mg;
}

static int taylor_hood_operator_create(const ts_study *s, ts_backend backend, const ts_dofs *dofs,
                                       ts_precision precision, ts_operator *A) {
  (void)s;
  return ts_operator_create_taylor_hood(backend, dofs[0], dofs[1], precision, A);
}

/* the coupled hierarchy, or the velocity Laplacian's (Q_k, one component) */
static int taylor_hood_mg_create(const ts_study *s, ts_backend backend, int level,
                                 const ts_mg_options *options, ts_mg *mg) {
  if (coupled(s->p))
    return ts_mg_create_taylor_hood(backend, s->mesh, s->p->degree, level, options, mg);
  return ts_mg_create(backend, s->mesh, s->fe[0], level, options, mg);
}

/* MINRES solves [A B^T; B 0] x = diag(I, -I) b (doc/stokes.md section 12) */
static int use_symmetric_form(ts_level_objects *o) {
  TS_CALL(ts_operator_create_stokes_symmetric(o->A, &o->form));
  const int64_t n = ts_operator_size(o->A), n_p = ts_dofs_count(o->dofs[1]);
  ts_vec b_p = NULL;
  TS_CALL(ts_vec_create_view(o->b, n - n_p, n_p, &b_p));
  const int ierr = ts_vec_axpby(0.0, b_p, -1.0, b_p);
  ts_vec_destroy(&b_p);
  return ierr;
}

/* the DoF handlers (the velocity's from the hierarchy where there is one), the operator, the
 * right side with the boundary velocity lifted into o->lift */
static int taylor_hood_setup(const ts_study *s, ts_level_objects *o, double *t) {
  ts_problem p = s->p;
  if (p->use_mg) {
    ts_mg_options options;
    taylor_hood_mg_options(p, &options);
    TS_CALL(taylor_hood_mg_create(s, s->backend, o->level, &options, &o->mg));
    TS_CALL(ts_problem_add_mg_phases(o->mg, t));
    o->dofs[0] = ts_mg_dofs(o->mg);
  } else {
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS], ts_dofs_create(s->mesh, s->fe[0], o->level, &o->dofs[0]));
  }
  if (p->use_mg && coupled(p)) { /* the hierarchy's pressure DoFs and operator */
    o->dofs[1] = ts_mg_pressure_dofs(o->mg);
    o->A = ts_mg_operator(o->mg);
  } else {
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS], ts_dofs_create(s->mesh, s->fe[1], o->level, &o->dofs[1]));
    /* in <solver precision> (double with multigrid: the reader sees to it) */
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS],
                  taylor_hood_operator_create(s, s->backend, o->dofs, p->precision, &o->A));
  }
  const int64_t n = ts_operator_size(o->A);
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, p->precision, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, p->precision, &o->x));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(s->backend, n, p->precision, &o->lift));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE],
                ts_taylor_hood_assemble_rhs(o->A, o->dofs[0], o->dofs[1], s->exact, o->b, o->lift));
  if (p->solver == TS_SOLVER_MINRES) TS_CALL_TIMED(&t[TS_SETUP_OPERATORS], use_symmetric_form(o));
  return 0;
}

/* the pressure mean removed, the boundary velocity added */
static int taylor_hood_complete(const ts_study *s, ts_level_objects *o) {
  (void)s;
  TS_CALL(ts_stokes_pressure_mean_remove(o->A, o->x));
  TS_CALL(ts_vec_axpby(1.0, o->lift, 1.0, o->x));
  return 0;
}

static int taylor_hood_errors(const ts_study *s, const ts_level_objects *o, ts_level_report *r) {
  double u_l2, u_h1, p_l2;
  TS_CALL(ts_taylor_hood_compute_errors(o->dofs[0], o->dofs[1], o->host, s->exact, &u_l2, &u_h1,
                                        &p_l2));
  r->l2_error = u_l2;
  r->h1_error = u_h1;
  r->pressure_l2_error = p_l2;
  return 0;
}

static void taylor_hood_print_errors(const ts_study *s, const ts_level_report *r, char *buf,
                                     size_t len) {
  (void)s;
  char u_rate[16], h1_rate[16], p_rate[16];
  snprintf(buf, len, "   %.4e  %s   %.4e  %s   %.4e  %s", r->l2_error,
           ts_rate_text(r->l2_rate, u_rate, sizeof u_rate), r->h1_error,
           ts_rate_text(r->h1_rate, h1_rate, sizeof h1_rate), r->pressure_l2_error,
           ts_rate_text(r->pressure_l2_rate, p_rate, sizeof p_rate));
}

static int taylor_hood_check_output(const ts_study *s, const int64_t *cells) {
  const ts_problem p = s->p;
  return ts_taylor_hood_vtu_check_output(p->vtu_path, p->dim, cells, p->vtu_subdivisions);
}

static int taylor_hood_write_output(const ts_study *s, const ts_level_objects *o) {
  const ts_problem p = s->p;
  return ts_taylor_hood_write_vtu(p->vtu_path, o->dofs[0], o->dofs[1], o->host, s->exact,
                                  p->vtu_subdivisions);
}

/* DoFs on the finest level: dim prod_d (cells_d k + 1) + prod_d (cells_d (k-1) + 1) */
static uint64_t taylor_hood_dofs_bound(const struct ts_problem_s *p) {
  const uint64_t k = (uint64_t)p->degree;
  const uint64_t u = ts_reader_grid_dofs(p, k, (uint64_t)p->dim), q = ts_reader_grid_dofs(p, k - 1, 1);
  return u && q && u <= TS_PROBLEM_MAX_DOFS - q ? u + q : 0;
}

/* Taylor-Hood: the device bytes of the sparse boundary parts of the coupling blocks
 * (lib/op/taylor-hood.c; the blocks themselves are Kronecker products of 1D factors), D_c and
 * B_c^T per velocity component restricted to the boundary velocity nodes: at most
 * (2k-1)^dim entries per column, 12 bytes each (a 32-bit index and a double) */
static uint64_t coupling_bytes(const struct ts_problem_s *p) {
  uint64_t nodes = 1, interior = 1, column = 1;
  for (int d = 0; d < p->dim; d++) {
    const uint64_t n = ((uint64_t)p->coarse[d] << p->levels) * (uint64_t)p->degree + 1;
    nodes *= n;
    interior *= n - 2;
    column *= 2 * (uint64_t)p->degree - 1;
  }
  return 2 * (uint64_t)p->dim * (nodes - interior) * column * 12;
}

const ts_equation ts_equation_taylor_hood = {
    .name = "taylor-hood",
    .fields = 2,
    .element = "stokes",
    .family = "taylor-hood",
    .fe_family = TS_FE_Q,
    .lowest_degree = 2,
    .highest_degree = TS_MAX_DEGREE,
    .read = ts_taylor_hood_read,
    .default_solver = TS_SOLVER_GMRES,
    .default_preconditioner = "mg",
    .check_solver = ts_stokes_check_solver,
    .pc_place = TS_PC_PLACE_STOKES,
    .jacobi_places = 1u << TS_PC_PLACE_VELOCITY | 1u << TS_PC_PLACE_PRESSURE,
    .saddle_point_mg = 1,
    .component_velocity = 1,
    .consistent_pressure_mass = 1,
    .dofs_bound = taylor_hood_dofs_bound,
    .extra_bytes = coupling_bytes,
    .solution_settings = ts_stokes_solution_settings,
    .fe_create = ts_fe_create_q,
    .error_heading = "   u L2 error  rate   u H1 error  rate   p L2 error  rate",
    .dofs = taylor_hood_dofs,
    .study_create = taylor_hood_study_create,
    .print_problem = taylor_hood_print_problem,
    .print_element = taylor_hood_print_element,
    .print_solver = taylor_hood_print_solver,
    .mg_options = taylor_hood_mg_options,
    .operator_create = taylor_hood_operator_create,
    .mg_create = taylor_hood_mg_create,
    .setup = taylor_hood_setup,
    .complete = taylor_hood_complete,
    .errors = taylor_hood_errors,
    .print_errors = taylor_hood_print_errors,
    .check_output = taylor_hood_check_output,
    .write_output = taylor_hood_write_output,
};
