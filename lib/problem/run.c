/* run.c -- solving a problem description: on each level of the study, set up the space,
 * the operator and the preconditioner, assemble the right side, solve, measure the errors;
 * then report the convergence rates and write the requested output. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "problem-impl.h"

/* Everything one level's solve owns; level_free releases whatever was created. */
typedef struct level_objects {
  ts_mg mg;                     /* the hierarchy (owns dofs and A then) */
  ts_dofs dofs;
  ts_operator A;
  ts_pc_built pcs;              /* the problem's preconditioner tree */
  ts_vec b, x, x0;
  ts_solver solver;
  double *host;
} level_objects;

static void level_free(level_objects *o) {
  ts_solver_destroy(&o->solver);
  ts_pc_built_destroy(&o->pcs);
  ts_vec_destroy(&o->b);
  ts_vec_destroy(&o->x);
  ts_vec_destroy(&o->x0);
  if (o->mg) { /* borrowed from the hierarchy */
    o->A = NULL;
    o->dofs = NULL;
    ts_mg_destroy(&o->mg);
  }
  ts_operator_destroy(&o->A);
  ts_dofs_destroy(&o->dofs);
  ts_free(&o->host);
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

/* The level's objects and right side; the time of each phase into phase_seconds. */
static int setup_level(ts_problem p, ts_backend backend, ts_mesh mesh, ts_fe fe, int level,
                       const ts_solution *u, level_objects *o, double *phase_seconds) {
  double *t = phase_seconds;
  if (p->use_mg) {
    TS_CALL(ts_mg_create(backend, mesh, fe, level, &p->mg, &o->mg));
    TS_CALL(ts_problem_add_mg_phases(o->mg, t));
    o->dofs = ts_mg_dofs(o->mg);
    o->A = ts_mg_operator(o->mg);
  } else {
    TS_CALL_TIMED(&t[TS_SETUP_DOFS], ts_dofs_create(mesh, fe, level, &o->dofs));
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS],
                  ts_operator_create_laplace(backend, o->dofs, p->precision, &o->A));
  }
  const int64_t n = ts_dofs_count(o->dofs);
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(backend, n, p->precision, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(backend, n, p->precision, &o->x));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_vec_create(backend, n, p->precision, &o->x0));
  TS_CALL(ts_assemble_rhs_timed(o->A, o->dofs, u, o->b, o->x0, t));
  if (p->fmg) return 0;
  TS_CALL_TIMED(&t[TS_SETUP_SMOOTHERS], ts_pc_built_create(p, o->A, o->dofs, o->mg, &o->pcs));
  TS_CALL(ts_solver_create(p->solver, &o->solver));
  TS_CALL(ts_solver_set_operator(o->solver, o->A));
  TS_CALL(ts_solver_set_pc(o->solver, o->pcs.pc[0]));
  TS_CALL(ts_solver_set_tolerances(o->solver, p->rtol, p->max_iterations));
  TS_CALL(ts_solver_set_restart(o->solver, p->restart));
  TS_CALL(ts_solver_set_side(o->solver, p->side));
  return 0;
}

/* Solve, add the boundary values back, and measure the errors on the host. */
static int solve_level(ts_problem p, const ts_solution *u, level_objects *o, FILE *log,
                       ts_level_report *r) {
  ts_problem_monitor mc = {log, r->level, -1};
  int solve_error;
  double t0;
  if (o->mg) ts_mg_reset_timings(o->mg); /* time the solve only */
  if (p->fmg) {
    if (log) TS_CALL(ts_mg_set_monitor(o->mg, ts_problem_print_iteration, &mc));
    t0 = ts_wtime();
    solve_error = ts_mg_fmg_solve(o->mg, o->b, o->x, p->rtol, p->max_iterations, &r->iterations,
                                  &r->relative_residual);
    r->solve_seconds = ts_wtime() - t0;
  } else {
    if (log) TS_CALL(ts_solver_set_monitor(o->solver, ts_problem_print_iteration, &mc));
    t0 = ts_wtime();
    solve_error = ts_solver_solve(o->solver, o->b, o->x);
    r->solve_seconds = ts_wtime() - t0;
    r->iterations = ts_solver_iterations(o->solver);
    r->relative_residual = ts_solver_relative_residual(o->solver);
  }
  if (!ts_results_kept(solve_error)) return ts_error_trace(solve_error, __FILE__, __LINE__, "solve");
  TS_CALL(ts_vec_axpby(1.0, o->x0, 1.0, o->x));
  TS_CALL(ts_calloc((size_t)r->dofs, sizeof(double), "solution on the host", &o->host));
  TS_CALL(ts_vec_get_to_host(o->x, o->host));
  if (!p->rhs_one) TS_CALL(ts_compute_errors(o->dofs, o->host, u, &r->l2_error, &r->h1_error));
  r->converged = !solve_error;
  return solve_error ? ts_error_trace(solve_error, __FILE__, __LINE__, "solve") : 0;
}

/* "auto" or the coarse degree of the multigrid options */
static const char *coarse_degree_text(const ts_mg_options *o, char *buf, size_t len) {
  if (o->coarse_degree == TS_MG_COARSE_DEGREE_AUTO) snprintf(buf, len, "auto");
  else snprintf(buf, len, "%d", o->coarse_degree);
  return buf;
}

static void print_header(ts_problem p, ts_backend backend, ts_mesh mesh, FILE *log) {
  char degree[16];
  fprintf(log, "Tessera %s: problem '%s'%s%s\n", ts_version(), p->name, *p->source ? " from " : "",
          p->source);
  if (p->rhs_one) fprintf(log, "  Poisson, right side f = 1, zero boundary values; %dD box [", p->dim);
  else
  fprintf(log, "  Poisson, manufactured solution '%s'; %dD box [", p->solution, p->dim);
  for (int d = 0; d < p->dim; ++d)
    fprintf(log, "%s%g,%g", d ? "]x[" : "", p->lower[d], p->upper[d]);
  fprintf(log, "], coarse cells");
  for (int d = 0; d < p->dim; ++d) fprintf(log, "%s%d", d ? "x" : " ", p->coarse[d]);
  fprintf(log, ", element Q%d\n  DoFs per level:", p->degree);
  for (int l = p->first_level; l <= p->levels; ++l) {
    int64_t cells[3], dofs = 1;
    ts_mesh_cells(mesh, l, cells);
    for (int d = 0; d < p->dim; ++d) dofs *= cells[d] * p->degree + 1;
    fprintf(log, " %d: %lld%s", l, (long long)dofs, l < p->levels ? "," : "\n");
  }
  if (p->fmg) fprintf(log, "  solver full multigrid, rtol %.1e\n", p->rtol);
  else
  fprintf(log, "  solver %s, preconditioner %s, rtol %.1e, %s precision\n",
          ts_solver_label(p->solver), p->preconditioner, p->rtol,
          ts_precision_name(p->precision));
  if (p->use_mg)
    fprintf(log, "  multigrid: levels %d..finest, coarse degree %s, V(1,1), smoother %s, %s "
            "precision V-cycle\n", p->mg.coarse_level, coarse_degree_text(&p->mg, degree, sizeof degree),
            p->mg.smoother == TS_MG_SMOOTHER_CHEBYSHEV ? "chebyshev"
            : p->mg.variant == TS_PATCH_FUSED          ? "vertex-patch (fused)"
                                                       : "vertex-patch (separate)",
            p->mg.precision == TS_SINGLE ? "single (mixed)" : "double");
  fprintf(log, "  backend %s: %s\n", ts_backend_name(backend), ts_backend_description(backend));
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

/* Without an exact solution (f = 1) the error columns show "-", and so do the rates of the
 * first level; a level whose solve stopped short of rtol is marked. */
static void print_summary(const ts_report *report, int has_exact, FILE *log) {
  fprintf(log, "\n level        DoFs  iters   rel.resid     L2 error  rate     H1 error  rate   setup s   solve s    MDoF/s\n");
  for (int i = 0; i < report->n_levels; ++i) {
    const ts_level_report *r = &report->levels[i];
    char errors[64], l2_rate[16], h1_rate[16];
    if (has_exact)
      snprintf(errors, sizeof errors, "%.4e  %s  %.4e  %s", r->l2_error,
               ts_rate_text(r->l2_rate, l2_rate, sizeof l2_rate), r->h1_error,
               ts_rate_text(r->h1_rate, h1_rate, sizeof h1_rate));
    else
      snprintf(errors, sizeof errors, "%10s  %4s  %10s  %4s", "-", "-", "-", "-");
    fprintf(log, " %5d %11lld %6d%c %.3e  %s  %8.3f  %8.3f  %8.2f\n", r->level,
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

/* Set up and solve one level; the solution into `solution` unless it is NULL, the
 * multigrid timings into report unless it is NULL. */
static int run_level(ts_problem p, ts_backend backend, ts_mesh mesh, ts_fe fe, int level,
                     const ts_solution *u, FILE *log, ts_level_report *r, int write_output,
                     ts_report *report, double *solution) {
  level_objects o = {0};
  ts_level_report_start(r, level);
  const double t0 = ts_wtime();
  int ierr = setup_level(p, backend, mesh, fe, level, u, &o, r->setup_phase_seconds);
  r->setup_seconds = ts_wtime() - t0;
  if (!ierr) {
    r->dofs = ts_dofs_count(o.dofs);
    ierr = solve_level(p, u, &o, log, r);
  }
  const int kept = ts_results_kept(ierr);
  if (kept && solution) memcpy(solution, o.host, (size_t)r->dofs * sizeof(double));
  if (kept && o.mg && report) { /* per-level timings of this solve */
    report->mg_levels = 0;
    for (int l = ts_mg_coarse_level(o.mg); l <= level; ++l)
      ts_mg_level_timing_get(o.mg, l, &report->mg_timing[report->mg_levels++]);
  }
  if (!ierr && write_output && *p->vtu_path) {
    ierr = ts_write_vtu(p->vtu_path, o.dofs, o.host, p->rhs_one ? NULL : u, p->vtu_subdivisions);
    if (!ierr && log) ts_problem_print_written(log, p->vtu_path);
  }
  level_free(&o);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "level solve") : 0;
}

void ts_problem_print_written(FILE *log, const char *path) {
  char *resolved = realpath(path, NULL);
  fprintf(log, "  wrote %s\n", resolved ? resolved : path);
  free(resolved);
}

/* The finest level's <output>, checked before anything is solved: a file can be created in
 * its directory and its size is within ts_max_output_size(). */
static int check_output(ts_problem p, ts_mesh mesh) {
  int64_t cells[3] = {1, 1, 1};
  if (!*p->vtu_path) return 0;
  TS_CALL(ts_mesh_cells(mesh, p->levels, cells));
  if (p->stokes)
    TS_CALL(ts_stokes_vtu_check_output(p->vtu_path, p->dim, cells, p->vtu_subdivisions));
  else
    TS_CALL(ts_vtu_check_output(p->vtu_path, p->dim, cells, p->vtu_subdivisions, !p->rhs_one));
  return 0;
}

int ts_problem_solve(ts_problem p, ts_backend backend, FILE *log, ts_report *report) {
  const ts_solution *u = NULL;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  size_t available;
  TS_CHECK_ARG(p && backend && report, "ts_problem_solve: NULL argument");
  memset(report, 0, sizeof *report);
  report->threads = omp_get_max_threads();
  report->stokes = p->stokes;
  if (p->rhs_one) u = ts_rhs_one(); /* f = 1 */
  else if (!p->stokes) TS_CALL(ts_solution_by_name(p->solution, &u));
  TS_CALL(ts_backend_memory_available(backend, &available));
  TS_CALL(ts_problem_check_memory(p, available));
  TS_CHECK_ARG(p->levels - p->first_level < 32, "convergence study: at most 32 levels");
  TS_CALL(ts_mesh_create_box(p->dim, p->lower, p->upper, p->coarse, p->levels, &mesh));
  const int output_error = check_output(p, mesh);
  if (output_error) {
    ts_mesh_destroy(&mesh);
    return ts_error_trace(output_error, __FILE__, __LINE__, "check_output");
  }
  if (p->stokes) {
    const int ierr = ts_problem_solve_stokes(p, backend, mesh, log, report);
    ts_mesh_destroy(&mesh);
    return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "Stokes problem solve") : 0;
  }
  int ierr = ts_fe_create_q(p->dim, p->degree, &fe), unconverged = 0;
  if (!ierr && log) print_header(p, backend, mesh, log);
  for (int level = p->first_level; !ierr && level <= p->levels; ++level) {
    ts_level_report *r = &report->levels[report->n_levels];
    ierr = run_level(p, backend, mesh, fe, level, u, log, r, level == p->levels, report, NULL);
    if (!ts_results_kept(ierr)) break;
    if (report->n_levels > 0 && !p->rhs_one) {
      const ts_level_report *prev = r - 1;
      r->l2_rate = log2(prev->l2_error / r->l2_error);
      r->h1_rate = log2(prev->h1_error / r->h1_error);
    }
    report->n_levels++;
    /* a level that stopped short of rtol keeps its row; the study goes on, and the solve
     * ends in TS_ERR_NOT_CONVERGED (the message: the last such level's) */
    unconverged |= ierr != 0;
    ierr = 0;
  }
  if (!ierr && log) print_summary(report, !p->rhs_one, log);
  if (!ierr && unconverged) ierr = TS_ERR_NOT_CONVERGED;
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "problem solve") : 0;
}

int ts_problem_solve_finest(ts_problem p, ts_backend backend, ts_level_report *report,
                            double *solution) {
  const ts_solution *u = NULL;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  size_t available;
  TS_CHECK_ARG(p && backend && report, "ts_problem_solve_finest: NULL argument");
  if (p->rhs_one) u = ts_rhs_one();
  else if (!p->stokes) TS_CALL(ts_solution_by_name(p->solution, &u));
  TS_CALL(ts_backend_memory_available(backend, &available));
  TS_CALL(ts_problem_check_memory(p, available));
  TS_CALL(ts_mesh_create_box(p->dim, p->lower, p->upper, p->coarse, p->levels, &mesh));
  int ierr = 0;
  if (p->stokes) {
    ierr = ts_problem_solve_stokes_level(p, backend, mesh, p->levels, report, solution);
  } else {
    ierr = ts_fe_create_q(p->dim, p->degree, &fe);
    if (!ierr) ierr = run_level(p, backend, mesh, fe, p->levels, u, NULL, report, 0, NULL, solution);
  }
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "finest level solve") : 0;
}
