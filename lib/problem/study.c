/* study.c -- solving a problem description through its equation's builder (equation.h): on
 * each level of the study the equation sets up its objects, the preconditioner tree and the
 * solver are made from the problem, the solution is completed and its errors measured; then
 * the convergence rates and the summary are reported and the requested output written. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "equation.h"

int ts_study_create(ts_problem p, ts_backend backend, ts_study *s) {
  memset(s, 0, sizeof *s);
  s->p = p;
  s->eq = ts_equation_of(p);
  s->backend = backend;
  int ierr = ts_problem_mesh_create(p, &s->mesh);
  if (!ierr) ierr = s->eq->study_create(s);
  if (ierr) ts_study_free(s);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "study setup") : 0;
}

void ts_study_free(ts_study *s) {
  if (s->eq && s->eq->study_free) s->eq->study_free(s);
  for (int f = 0; f < TS_FIELDS_MAX; ++f) ts_fe_destroy(&s->fe[f]);
  ts_mesh_destroy(&s->mesh);
}

void ts_level_free(ts_level_objects *o) {
  ts_solver_destroy(&o->solver);
  ts_pc_built_destroy(&o->pcs);
  if (o->hdiv) { /* its operator is the system's */
    if (o->A == ts_hdiv_system_operator(o->hdiv)) o->A = NULL;
    ts_hdiv_system_destroy(&o->hdiv);
  }
  ts_operator_destroy(&o->form);
  ts_vec_destroy(&o->b);
  ts_vec_destroy(&o->x);
  ts_vec_destroy(&o->lift);
  if (o->mg) { /* what is the hierarchy's is borrowed: its operator, its DoF handlers */
    if (o->A == ts_mg_operator(o->mg)) o->A = NULL;
    for (int f = 0; f < TS_FIELDS_MAX; ++f)
      if (o->dofs[f] == ts_mg_dofs(o->mg) || o->dofs[f] == ts_mg_pressure_dofs(o->mg))
        o->dofs[f] = NULL;
    ts_mg_destroy(&o->mg);
  }
  ts_operator_destroy(&o->A);
  for (int f = 0; f < TS_FIELDS_MAX; ++f) ts_dofs_destroy(&o->dofs[f]);
  ts_free(&o->host);
}

int ts_problem_solver_create(ts_problem p, ts_operator A, ts_pc pc, ts_solver *solver) {
  TS_CALL(ts_solver_create(p->solver, solver));
  TS_CALL(ts_solver_set_operator(*solver, A));
  TS_CALL(ts_solver_set_pc(*solver, pc));
  TS_CALL(ts_solver_set_tolerances(*solver, p->rtol, p->max_iterations));
  TS_CALL(ts_solver_set_restart(*solver, p->restart));
  TS_CALL(ts_solver_set_side(*solver, p->side));
  return 0;
}

/* The solver of the problem on the equation's form (A unless it made another), with the
 * preconditioner tree's root. */
static int solver_create(ts_problem p, ts_level_objects *o) {
  return ts_problem_solver_create(p, o->form ? o->form : o->A, o->pcs.pc[0], &o->solver);
}

int ts_level_setup(const ts_study *s, int level, ts_level_objects *o, double *phase_seconds) {
  o->level = level;
  TS_CALL(s->eq->setup(s, o, phase_seconds));
  if (s->p->fmg) return 0; /* full multigrid is the hierarchy's own solve */
  TS_CALL_TIMED(&phase_seconds[TS_SETUP_SMOOTHERS],
                s->eq->pc_create ? s->eq->pc_create(s, o)
                                 : ts_pc_built_create(s->p, o->A, o->dofs, o->mg, &o->pcs));
  TS_CALL(solver_create(s->p, o));
  return 0;
}

int ts_problem_print_iteration(void *ctx, int iteration, double relative_residual) {
  ts_problem_monitor *m = ctx;
  const int repeated = iteration == m->last_iteration;
  fprintf(m->log, "  level %d  iteration %5d  %s %.6e\n", m->level, iteration,
          repeated ? "true relative residual" : "relative residual", relative_residual);
  m->last_iteration = iteration;
  return 0;
}

/* The multigrid hierarchy's setup phases, added to phase_seconds. */
int ts_problem_add_mg_phases(ts_mg mg, double *phase_seconds) {
  for (int ph = 0; ph < TS_SETUP_PHASES; ++ph) {
    double seconds;
    TS_CALL(ts_mg_setup_seconds(mg, (ts_setup_phase)ph, &seconds));
    phase_seconds[ph] += seconds;
  }
  return 0;
}

/* Full multigrid, or the Krylov solver; the iterations, residual and time into r. */
static int run_solver(ts_problem p, ts_level_objects *o, FILE *log, ts_level_report *r) {
  ts_problem_monitor monitor = {log, r->level, -1};
  int solve_error;
  if (o->mg) ts_mg_reset_timings(o->mg); /* time the solve only */
  const double t0 = ts_wtime();
  if (p->fmg) {
    if (log) TS_CALL(ts_mg_set_monitor(o->mg, ts_problem_print_iteration, &monitor));
    solve_error = ts_mg_fmg_solve(o->mg, o->b, o->x, p->rtol, p->max_iterations, &r->iterations,
                                  &r->relative_residual);
    r->solve_seconds = ts_wtime() - t0;
    return solve_error;
  }
  if (log) TS_CALL(ts_solver_set_monitor(o->solver, ts_problem_print_iteration, &monitor));
  solve_error = ts_solver_solve(o->solver, o->b, o->x);
  r->solve_seconds = ts_wtime() - t0;
  r->iterations = ts_solver_iterations(o->solver);
  r->relative_residual = ts_solver_relative_residual(o->solver);
  return solve_error;
}

/* Solve, complete the solution, copy it to the host and measure its errors. */
static int solve_level(const ts_study *s, ts_level_objects *o, FILE *log, ts_level_report *r) {
  const int solve_error = run_solver(s->p, o, log, r);
  if (!ts_results_kept(solve_error)) return ts_error_trace(solve_error, __FILE__, __LINE__, "solve");
  TS_CALL(s->eq->complete(s, o));
  if (!o->host) /* unless the setup made it for the right side */
    TS_CALL(ts_calloc((size_t)r->dofs, sizeof(double), "solution on the host", &o->host));
  TS_CALL(ts_vec_get_to_host(o->x, o->host));
  TS_CALL(s->eq->errors(s, o, r));
  r->converged = !solve_error;
  return solve_error ? ts_error_trace(solve_error, __FILE__, __LINE__, "solve") : 0;
}

void ts_study_print_header(const ts_study *s, FILE *log) {
  ts_problem p = s->p;
  fprintf(log, "Tessera %s: problem '%s'%s%s\n", ts_version(), p->name, *p->source ? " from " : "",
          p->source);
  s->eq->print_problem(p, log);
  ts_problem_print_domain(p, log);
  fprintf(log, ", coarse cells");
  for (int d = 0; d < p->dim; ++d) fprintf(log, "%s%d", d ? "x" : " ", p->coarse[d]);
  s->eq->print_element(p, log);
  fprintf(log, "  DoFs per level:");
  for (int l = p->first_level; l <= p->levels; ++l) {
    int64_t cells[3];
    ts_mesh_cells(s->mesh, l, cells);
    fprintf(log, " %d: %lld%s", l, (long long)s->eq->dofs(p->dim, p->degree, cells),
            l < p->levels ? "," : "\n");
  }
  s->eq->print_solver(p, log);
  fprintf(log, "  backend %s: %s\n", ts_backend_name(s->backend),
          ts_backend_description(s->backend));
  if (ts_pc_tree_has(p, "boomeramg") && strcmp(ts_backend_name(s->backend), "omp") != 0)
    fprintf(log, "  BoomerAMG (hypre %s) runs on the host: each application copies its vector "
            "from the %s device and back\n", ts_hypre_version(), ts_backend_name(s->backend));
}

void ts_level_report_start(ts_level_report *r, int level) {
  memset(r, 0, sizeof *r);
  r->level = level;
  r->l2_error = r->h1_error = r->pressure_l2_error = NAN;
  r->l2_rate = r->h1_rate = r->pressure_l2_rate = NAN;
}

const char *ts_rate_text(double rate, char *buf, size_t len) {
  if (isnan(rate)) snprintf(buf, len, "%4s", "-");
  else snprintf(buf, len, "%4.2f", rate);
  return buf;
}

void ts_level_rates(const ts_level_report *prev, ts_level_report *r) {
  r->l2_rate = log2(prev->l2_error / r->l2_error);
  r->h1_rate = log2(prev->h1_error / r->h1_error);
  r->pressure_l2_rate = log2(prev->pressure_l2_error / r->pressure_l2_error);
}

void ts_study_print_summary(const ts_study *s, const ts_report *report, FILE *log) {
  fprintf(log, "\n level        DoFs  iters   rel.resid%s   setup s   solve s    MDoF/s\n",
          s->eq->error_heading);
  for (int i = 0; i < report->n_levels; ++i) {
    const ts_level_report *r = &report->levels[i];
    char errors[96];
    s->eq->print_errors(s, r, errors, sizeof errors);
    fprintf(log, " %5d %11lld %6d%c %.3e%s  %8.3f  %8.3f  %8.2f\n", r->level,
            (long long)r->dofs, r->iterations, r->converged ? ' ' : '*', r->relative_residual,
            errors, r->setup_seconds, r->solve_seconds,
            r->solve_seconds > 0 ? 1e-6 * (double)r->dofs / r->solve_seconds : 0.0);
  }
  ts_problem_print_unconverged(report, log);
}

void ts_problem_print_unconverged(const ts_report *report, FILE *log) {
  for (int i = 0; i < report->n_levels; ++i)
    if (!report->levels[i].converged) {
      fprintf(log, " * rtol not reached: the row is the iterate the solver stopped at\n");
      return;
    }
}

void ts_problem_print_written(FILE *log, const char *path) {
  char *resolved = realpath(path, NULL);
  fprintf(log, "  wrote %s\n", resolved ? resolved : path);
  free(resolved);
}

/* The hierarchy's per-level timings of this solve into report. */
static void record_mg_timings(ts_mg mg, int level, ts_report *report) {
  report->mg_levels = 0;
  for (int l = ts_mg_coarse_level(mg); l <= level; ++l)
    ts_mg_level_timing_get(mg, l, &report->mg_timing[report->mg_levels++]);
}

/* Set up and solve one level; the solution into `solution` unless it is NULL, the
 * multigrid timings into report unless it is NULL; the <output> if write_output. */
static int run_level(const ts_study *s, int level, FILE *log, ts_level_report *r,
                     int write_output, ts_report *report, double *solution) {
  ts_level_objects o = {0};
  ts_level_report_start(r, level);
  const double t0 = ts_wtime();
  int ierr = ts_level_setup(s, level, &o, r->setup_phase_seconds);
  r->setup_seconds = ts_wtime() - t0;
  if (!ierr) {
    r->dofs = ts_operator_size(o.A);
    ierr = solve_level(s, &o, log, r);
  }
  const int kept = ts_results_kept(ierr);
  if (kept && solution) memcpy(solution, o.host, (size_t)r->dofs * sizeof(double));
  if (kept && o.mg && report) record_mg_timings(o.mg, level, report);
  if (!ierr && write_output && *s->p->vtu_path) {
    ierr = s->eq->write_output(s, &o);
    if (!ierr && log) ts_problem_print_written(log, s->p->vtu_path);
  }
  ts_level_free(&o);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "level solve") : 0;
}

/* The finest level's <output>, checked before anything is solved: a file can be created in
 * its directory and its size is within ts_max_output_size(). */
static int check_output(const ts_study *s) {
  int64_t cells[3] = {1, 1, 1};
  if (!*s->p->vtu_path) return 0;
  if (!s->eq->check_output)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "<output vtu=\"%s\">: this problem writes no .vtu output",
                    s->p->vtu_path);
  TS_CALL(ts_mesh_cells(s->mesh, s->p->levels, cells));
  TS_CALL(s->eq->check_output(s, cells));
  return 0;
}

/* The levels of the study, their rates and the summary. */
static int run_study(const ts_study *s, FILE *log, ts_report *report) {
  ts_problem p = s->p;
  int unconverged = 0;
  if (log) ts_study_print_header(s, log);
  for (int level = p->first_level; level <= p->levels; ++level) {
    ts_level_report *r = &report->levels[report->n_levels];
    const int ierr = run_level(s, level, log, r, level == p->levels, report, NULL);
    if (!ts_results_kept(ierr)) return ts_error_trace(ierr, __FILE__, __LINE__, "level solve");
    if (report->n_levels > 0) ts_level_rates(r - 1, r);
    report->n_levels++;
    /* a level that stopped short of rtol keeps its row; the study goes on, and the solve
     * ends in TS_ERR_NOT_CONVERGED (the message: the last such level's) */
    unconverged |= ierr != 0;
  }
  if (log) ts_study_print_summary(s, report, log);
  return unconverged ? TS_ERR_NOT_CONVERGED : 0;
}

int ts_problem_solve(ts_problem p, ts_backend backend, FILE *log, ts_report *report) {
  ts_study s;
  size_t available;
  TS_CHECK_ARG(p && backend && report, "ts_problem_solve: NULL argument");
  memset(report, 0, sizeof *report);
  report->threads = omp_get_max_threads();
  report->stokes = p->equation->fields == 2; /* the pressure errors are reported */
  TS_CALL(ts_backend_memory_available(backend, &available));
  TS_CALL(ts_problem_check_memory(p, available));
  TS_CHECK_ARG(p->levels - p->first_level < 32, "convergence study: at most 32 levels");
  TS_CALL(ts_study_create(p, backend, &s));
  int ierr = check_output(&s);
  if (!ierr) ierr = run_study(&s, log, report);
  ts_study_free(&s);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "problem solve") : 0;
}

int ts_problem_solve_finest(ts_problem p, ts_backend backend, ts_level_report *report,
                            double *solution) {
  ts_study s;
  size_t available;
  TS_CHECK_ARG(p && backend && report, "ts_problem_solve_finest: NULL argument");
  TS_CALL(ts_backend_memory_available(backend, &available));
  TS_CALL(ts_problem_check_memory(p, available));
  TS_CALL(ts_study_create(p, backend, &s));
  const int ierr = run_level(&s, p->levels, NULL, report, 0, NULL, solution);
  ts_study_free(&s);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "finest level solve") : 0;
}
