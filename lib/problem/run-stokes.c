/* run-stokes.c -- solving a Stokes problem description (paper 000): on each level of the
 * study the multigrid hierarchy of RT_k x DGQ_k (operator, vertex-patch smoother with the
 * chosen local solver, transfers), the right side of the manufactured solution (11)-(13),
 * GMRES preconditioned by one V-cycle (or not at all) or the solver and preconditioner tree of
 * the problem (MINRES on the symmetric form), the pressure mean removed, and the
 * L2 errors of velocity and pressure; on the finest level the .vtu output asked for. */
#include <math.h>
#include <string.h>
#include "problem-impl.h"

/* Everything one level's solve owns; stokes_level_free releases whatever was created. */
typedef struct stokes_level {
  ts_mg mg;                     /* owns the DoF handlers and the operator */
  ts_operator symmetric;        /* MINRES: [A B^T; B 0] */
  ts_pc_built pcs;              /* the problem's preconditioner tree */
  ts_vec b, x;
  ts_solver solver;
  double *host;
} stokes_level;

static void stokes_level_free(stokes_level *o) {
  ts_solver_destroy(&o->solver);
  ts_pc_built_destroy(&o->pcs);
  ts_operator_destroy(&o->symmetric);
  ts_vec_destroy(&o->b);
  ts_vec_destroy(&o->x);
  ts_mg_destroy(&o->mg);
  ts_free(&o->host);
}

void ts_problem_mg_options(ts_problem p, ts_mg_options *options) {
  *options = p->mg;
  if (!p->stokes) return;
  options->stokes_solver = p->stokes_direct ? TS_STOKES_PATCH_DIRECT : TS_STOKES_PATCH_SCHUR;
  options->stokes_penalty = p->penalty;
}

/* MINRES solves the symmetric form [A B^T; B 0] x = diag(I, -I) b, the same solution as
 * Acal x = b since [A B^T; B 0] = diag(I, -I) Acal (doc/stokes.md section 12): the pressure
 * rows of the right side b_host change sign. */
static int use_symmetric_form(stokes_level *o, double *b_host) {
  TS_CALL(ts_operator_create_stokes_symmetric(ts_mg_operator(o->mg), &o->symmetric));
  const int64_t n = ts_operator_size(o->symmetric);
  for (int64_t i = ts_dofs_count(ts_mg_dofs(o->mg)); i < n; ++i) b_host[i] = -b_host[i];
  return 0;
}

static int setup_stokes_level(ts_problem p, ts_backend backend, ts_mesh mesh, int level,
                              const ts_stokes_solution *s, stokes_level *o, double *phase_seconds) {
  double *t = phase_seconds;
  ts_mg_options options;
  ts_problem_mg_options(p, &options);
  TS_CALL(ts_mg_create_stokes(backend, mesh, p->degree, level, &options, &o->mg));
  TS_CALL(ts_problem_add_mg_phases(o->mg, t));
  ts_operator stokes = ts_mg_operator(o->mg);
  const int64_t n = ts_operator_size(stokes);
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE], ts_calloc((size_t)n, sizeof(double),
                                                   "Stokes right side on the host", &o->host));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE], ts_stokes_assemble_rhs(ts_mg_dofs(o->mg),
                                                                ts_mg_pressure_dofs(o->mg), s, o->host));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(backend, n, TS_DOUBLE, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(backend, n, TS_DOUBLE, &o->x));
  if (p->solver == TS_SOLVER_MINRES)
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS], use_symmetric_form(o, o->host));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE], ts_vec_set_from_host(o->b, o->host));
  TS_CALL_TIMED(&t[TS_SETUP_SMOOTHERS], ts_pc_built_create(p, stokes, NULL, o->mg, &o->pcs));
  TS_CALL(ts_solver_create(p->solver, &o->solver));
  TS_CALL(ts_solver_set_operator(o->solver, o->symmetric ? o->symmetric : stokes));
  TS_CALL(ts_solver_set_pc(o->solver, o->pcs.pc[0]));
  TS_CALL(ts_solver_set_tolerances(o->solver, p->rtol, p->max_iterations));
  TS_CALL(ts_solver_set_restart(o->solver, p->restart));
  TS_CALL(ts_solver_set_side(o->solver, p->side));
  return 0;
}

/* Solve, remove the pressure mean (doc/stokes.md section 6), and measure the errors. */
static int solve_stokes_level(const ts_stokes_solution *s, stokes_level *o, FILE *log,
                              ts_level_report *r) {
  ts_problem_monitor monitor = {log, r->level, -1};
  if (log) TS_CALL(ts_solver_set_monitor(o->solver, ts_problem_print_iteration, &monitor));
  ts_mg_reset_timings(o->mg);
  const double t0 = ts_wtime();
  const int solve_error = ts_solver_solve(o->solver, o->b, o->x);
  r->solve_seconds = ts_wtime() - t0;
  r->iterations = ts_solver_iterations(o->solver);
  r->relative_residual = ts_solver_relative_residual(o->solver);
  if (!ts_results_kept(solve_error)) return ts_error_trace(solve_error, __FILE__, __LINE__, "solve");
  TS_CALL(ts_stokes_pressure_mean_remove(ts_mg_operator(o->mg), o->x));
  TS_CALL(ts_vec_get_to_host(o->x, o->host));
  TS_CALL(ts_stokes_compute_errors(ts_mg_dofs(o->mg), ts_mg_pressure_dofs(o->mg), o->host, s,
                                   &r->l2_error, &r->pressure_l2_error));
  r->converged = !solve_error;
  return solve_error ? ts_error_trace(solve_error, __FILE__, __LINE__, "solve") : 0;
}

/* DoFs of RT_k x DGQ_k on a level (doc/stokes.md section 2): per velocity component
 * prod_d (cells_d (k+1) + [d == i]), and prod_d cells_d (k+1) pressure DoFs. */
static int64_t stokes_dofs(ts_problem p, ts_mesh mesh, int level) {
  int64_t cells[3], pressure = 1, total = 0;
  ts_mesh_cells(mesh, level, cells);
  for (int d = 0; d < p->dim; ++d) pressure *= cells[d] * (p->degree + 1);
  for (int i = 0; i < p->dim; ++i) {
    int64_t component = 1;
    for (int d = 0; d < p->dim; ++d) component *= cells[d] * (p->degree + 1) + (d == i);
    total += component;
  }
  return total + pressure;
}

static void print_stokes_header(ts_problem p, ts_backend backend, ts_mesh mesh, FILE *log) {
  fprintf(log, "Tessera %s: problem '%s'%s%s\n", ts_version(), p->name, *p->source ? " from " : "",
          p->source);
  fprintf(log, "  Stokes, manufactured solution '%s'; %dD box [", p->solution, p->dim);
  for (int d = 0; d < p->dim; ++d)
    fprintf(log, "%s%g,%g", d ? "]x[" : "", p->lower[d], p->upper[d]);
  fprintf(log, "], coarse cells");
  for (int d = 0; d < p->dim; ++d) fprintf(log, "%s%d", d ? "x" : " ", p->coarse[d]);
  fprintf(log, ", RT%d x DGQ%d, interior penalty eta = %g\n  DoFs per level:", p->degree,
          p->degree, p->penalty);
  for (int l = p->first_level; l <= p->levels; ++l)
    fprintf(log, " %d: %lld%s", l, (long long)stokes_dofs(p, mesh, l), l < p->levels ? "," : "\n");
  fprintf(log, "  solver %s(%d), preconditioner %s (%s), rtol %.1e\n", ts_solver_label(p->solver), p->restart,
          p->preconditioner, p->side == TS_SIDE_LEFT ? "left" : "right", p->rtol);
  if (p->use_mg)
    fprintf(log, "  multigrid: levels %d..finest, V(1,1), vertex-patch smoother with the %s local "
            "solver, %s precision V-cycle\n", p->mg.coarse_level,
            p->stokes_direct ? "direct" : "Schur complement",
            p->mg.precision == TS_SINGLE ? "single (mixed)" : "double");
  fprintf(log, "  backend %s: %s\n", ts_backend_name(backend), ts_backend_description(backend));
}

static void print_stokes_summary(const ts_report *report, FILE *log) {
  fprintf(log, "\n level        DoFs  iters   rel.resid   u L2 error  rate   p L2 error  rate   setup s   solve s    MDoF/s\n");
  for (int i = 0; i < report->n_levels; ++i) {
    const ts_level_report *r = &report->levels[i];
    char u_rate[16], p_rate[16];
    fprintf(log, " %5d %11lld %6d%c %.3e   %.4e  %s   %.4e  %s  %8.3f  %8.3f  %8.2f\n",
            r->level, (long long)r->dofs, r->iterations, r->converged ? ' ' : '*',
            r->relative_residual, r->l2_error, ts_rate_text(r->l2_rate, u_rate, sizeof u_rate),
            r->pressure_l2_error, ts_rate_text(r->pressure_l2_rate, p_rate, sizeof p_rate),
            r->setup_seconds, r->solve_seconds,
            r->solve_seconds > 0 ? 1e-6 * (double)r->dofs / r->solve_seconds : 0.0);
  }
  ts_problem_print_unconverged(report, log);
}

/* The <output vtu=...> of the solution in o->host (doc/stokes.md section 10). */
static int write_stokes_output(ts_problem p, const ts_stokes_solution *s, stokes_level *o,
                               FILE *log) {
  TS_CALL(ts_stokes_write_vtu(p->vtu_path, ts_mg_dofs(o->mg), ts_mg_pressure_dofs(o->mg), o->host,
                              s, p->vtu_subdivisions));
  if (log) ts_problem_print_written(log, p->vtu_path);
  return 0;
}

/* Set up and solve one level; the solution into `solution` unless it is NULL, the
 * multigrid timings into report unless it is NULL. */
static int run_stokes_level(ts_problem p, ts_backend backend, ts_mesh mesh, int level,
                            const ts_stokes_solution *s, FILE *log, ts_level_report *r,
                            ts_report *report, double *solution) {
  stokes_level o = {0};
  ts_level_report_start(r, level);
  const double t0 = ts_wtime();
  int ierr = setup_stokes_level(p, backend, mesh, level, s, &o, r->setup_phase_seconds);
  r->setup_seconds = ts_wtime() - t0;
  if (!ierr) {
    r->dofs = ts_operator_size(ts_mg_operator(o.mg));
    ierr = solve_stokes_level(s, &o, log, r);
  }
  const int kept = ts_results_kept(ierr);
  if (kept && solution) memcpy(solution, o.host, (size_t)r->dofs * sizeof(double));
  if (kept && report) { /* per-level timings of this solve */
    report->mg_levels = 0;
    for (int l = ts_mg_coarse_level(o.mg); l <= level; ++l)
      ts_mg_level_timing_get(o.mg, l, &report->mg_timing[report->mg_levels++]);
  }
  if (!ierr && level == p->levels && *p->vtu_path) ierr = write_stokes_output(p, s, &o, log);
  stokes_level_free(&o);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "Stokes level solve") : 0;
}

int ts_problem_solve_stokes(ts_problem p, ts_backend backend, ts_mesh mesh, FILE *log,
                            ts_report *report) {
  const ts_stokes_solution *s;
  TS_CALL(ts_stokes_solution_by_name(p->solution, &s));
  if (log) print_stokes_header(p, backend, mesh, log);
  int unconverged = 0;
  for (int level = p->first_level; level <= p->levels; ++level) {
    ts_level_report *r = &report->levels[report->n_levels];
    const int ierr = run_stokes_level(p, backend, mesh, level, s, log, r, report, NULL);
    if (!ts_results_kept(ierr)) return ts_error_trace(ierr, __FILE__, __LINE__, "level solve");
    if (report->n_levels > 0) {
      const ts_level_report *prev = r - 1;
      r->l2_rate = log2(prev->l2_error / r->l2_error);
      r->pressure_l2_rate = log2(prev->pressure_l2_error / r->pressure_l2_error);
    }
    report->n_levels++;
    unconverged |= ierr != 0; /* the row is kept and the study goes on (run.c) */
  }
  if (log) print_stokes_summary(report, log);
  return unconverged ? TS_ERR_NOT_CONVERGED : 0;
}

int ts_problem_solve_stokes_level(ts_problem p, ts_backend backend, ts_mesh mesh, int level,
                                  ts_level_report *r, double *solution) {
  const ts_stokes_solution *s;
  TS_CALL(ts_stokes_solution_by_name(p->solution, &s));
  TS_CALL(run_stokes_level(p, backend, mesh, level, s, NULL, r, NULL, solution));
  return 0;
}
