/* problem.c -- a problem file solved over the processes of a communicator (doc/parallel.md,
 * "Running a problem file under mpirun"): the convergence study of ts_problem_solve
 * (lib/problem/study.c) with the distributed parts.  On each level the mesh is split into
 * blocks (dofs.c), the operator is the distributed Laplacian - or, for your own data
 * (<poisson f=...>, on a mapped mesh or the box as one), the distributed operator on mapped
 * cells with the level's kappa and c (laplace.c) - or the finest of a distributed hierarchy
 * (mg.c), the right side is assembled block by block and summed over the interfaces, the
 * problem's solver and preconditioner run unchanged on the distributed vectors, and the
 * errors are summed over the processes in rank order.  The output is one .vtu piece per
 * process, the block's cells, and the .pvtu index that names the pieces.
 *
 * What the processes do differently (a file one cannot write, memory one lacks) is agreed
 * on after each phase (ts_parallel_agree): every process then stops with the same error. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "problem-impl.h"

/* whether the errors are measured: a built-in solution but rhs="one", or your own u */
static int has_exact(const dist_study *d) {
  if (d->stokes) return 1; /* a built-in solution */
  return d->own ? d->fns.u != NULL : !d->s.p->rhs_one;
}

static void level_free(dist_level *o) {
  ts_solver_destroy(&o->solver);
  ts_pc_destroy(&o->pc);
  ts_vec_destroy(&o->b);
  ts_vec_destroy(&o->x);
  ts_vec_destroy(&o->lift);
  if (o->mg) {
    ts_parallel_mg_destroy(&o->mg);
  } else {
    ts_operator_destroy(&o->A);
    ts_parallel_dofs_destroy(&o->pd);
  }
  ts_free(&o->host);
}

/* the DoFs and the operator (the Laplacian, or with your own data the operator on mapped
 * cells with the coefficients co), of the hierarchy when the problem uses multigrid */
static int create_space(const dist_study *d, int level, const ts_coefficients *co,
                        dist_level *o, double *t) {
  const ts_study *s = &d->s;
  if (s->p->use_mg) {
    const int coarse = s->p->mg.coarse_level;
    TS_CALL_TIMED(&t[TS_SETUP_OPERATORS],
                  d->own ? ts_parallel_mg_create_mapped(s->backend, d->par, s->mesh, s->fe[0],
                                                        coarse, level, co, &o->mg)
                         : ts_parallel_mg_create(s->backend, d->par, s->mesh, s->fe[0], coarse,
                                                 level, &o->mg));
    /* the degree levels of the one-process hierarchy (coarse-degree, auto as there) */
    TS_CALL(ts_parallel_mg_set_coarse_degree(
        o->mg, ts_mg_laplace_coarse_degree(s->mesh, s->fe[0]->degree, &s->p->mg)));
    o->pd = ts_parallel_mg_dofs(o->mg, level);
    o->A = ts_parallel_mg_operator(o->mg, level);
    return 0;
  }
  TS_CALL_TIMED(&t[TS_SETUP_DOFS],
                ts_parallel_dofs_create(s->backend, d->par, s->mesh, s->fe[0], level, &o->pd));
  TS_CALL_TIMED(&t[TS_SETUP_OPERATORS],
                d->own ? ts_parallel_operator_create_mapped(o->pd, co, &o->A)
                       : ts_parallel_operator_create_laplace(o->pd, &o->A));
  return 0;
}

/* create_space with your own data's coefficients of the level (as the one-process study
 * gives its operator or hierarchy: over the whole level's cells, or per point) */
static int level_space(const dist_study *d, int level, dist_level *o, double *t) {
  double *kappa = NULL, *c = NULL;
  ts_coefficients co = {0};
  int ierr = d->own ? ts_poisson_own_coefficients(&d->s, level, &kappa, &c, &co) : 0;
  if (!ierr) ierr = create_space(d, level, &co, o, t);
  ts_free(&kappa);
  ts_free(&c);
  return ierr;
}

/* The boundary value at the point x of DoF i: the built-in solution's, or your own g (zero
 * without it). */
static int boundary_value(const dist_study *d, int dim, int64_t i, const double *x, double *v) {
  if (!d->own) {
    *v = ((const ts_solution *)d->s.exact)->value(dim, x);
    return 0;
  }
  *v = 0.0;
  const ts_poisson_own_functions *f = &d->fns;
  const int rc = f->g ? f->g(f->ctx, dim, 1, x, v) : 0;
  TS_CHECK_ARG(!rc && isfinite(*v), "the Dirichlet data g %s at the block's DoF %lld (%g, %g%s)",
               rc ? "failed" : "is not finite", (long long)i, x[0], x[1],
               dim == 3 ? ", ..." : "");
  return 0;
}

/* The lift: the boundary values at the box's boundary DoFs of the block (zero inside), each
 * DoF its owner's value (the sum over the blocks of owned .* lift).  xh: host work of the
 * block's size. */
static int boundary_values(const dist_study *d, dist_level *o, double *xh) {
  ts_parallel_dofs pd = o->pd;
  ts_parallel_dirichlet_mask_host(pd, xh);
  for (int64_t i = 0; i < pd->dofs->count; ++i)
    if (xh[i] != 0.0) {
      double x[3];
      TS_CALL(ts_dofs_point(pd->dofs, i, x));
      TS_CALL(boundary_value(d, pd->dofs->dim, i, x, &xh[i]));
    }
  TS_CALL(ts_vec_set_from_host(o->lift, xh));
  TS_CALL(ts_parallel_planes_clear(pd, TS_PLANES_GHOST, o->lift)); /* owned .* lift */
  TS_CALL(ts_parallel_vec_sum_shared(pd, o->lift));
  return 0;
}

/* b = f - A u_D on the free rows, 0 on the Dirichlet rows: each block's load of its cells
 * minus its cells' part of A_unconstrained u_D, summed over the interfaces (bh, xh: host
 * work of the block's size). */
static int lifted_rhs(const dist_study *d, dist_level *o, double *bh, double *xh, double *t) {
  ts_parallel_dofs pd = o->pd;
  double t0 = ts_wtime();
  if (d->own) TS_CALL(ts_assemble_load_mapped(pd->dofs, d->fns.f, d->fns.ctx, bh));
  else TS_CALL(ts_assemble_load(pd->dofs, d->s.exact, bh));
  t[TS_SETUP_RIGHT_SIDE] += ts_wtime() - t0;
  t0 = ts_wtime();
  TS_CALL(boundary_values(d, o, xh));
  TS_CALL(ts_parallel_laplace_apply_block(o->A, o->lift, o->x));
  TS_CALL(ts_vec_get_to_host(o->x, xh));
  for (int64_t i = 0; i < pd->dofs->count; ++i) bh[i] -= xh[i];
  TS_CALL(ts_vec_set_from_host(o->b, bh));
  TS_CALL(ts_parallel_vec_sum_shared(pd, o->b));
  TS_CALL(ts_parallel_planes_clear(pd, TS_PLANES_DIRICHLET, o->b)); /* free .* b */
  TS_CALL(ts_vec_set(o->x, 0.0));
  t[TS_SETUP_BOUNDARY] += ts_wtime() - t0;
  return 0;
}

/* On a box, for a separable f with zero boundary values, the block's part of the one-process
 * right side (its bits; *done = 1). */
static int separable_rhs(const dist_study *d, dist_level *o, double *t, int *done) {
  ts_parallel_dofs pd = o->pd;
  ts_dofs whole = NULL;
  const double t0 = ts_wtime();
  TS_CALL(ts_dofs_create(d->s.mesh, d->s.fe[0], pd->level, &whole));
  *done = ts_rhs_separable(whole, d->s.exact, d->s.backend);
  const int ierr = *done ? ts_assemble_rhs_separable_block(whole, pd->offset, pd->n,
                                                           d->s.exact, o->b)
                         : 0;
  ts_dofs_destroy(&whole);
  t[TS_SETUP_RIGHT_SIDE] += ts_wtime() - t0;
  return ierr;
}

/* The right side as ts_assemble_rhs (ts_assemble_rhs_mapped for your own data) makes it on
 * the whole mesh: separable_rhs where it applies, else lifted_rhs. */
static int assemble_rhs(const dist_study *d, dist_level *o, double *t) {
  ts_parallel_dofs pd = o->pd;
  double *bh = NULL, *xh = NULL;
  int done = 0;
  if (!d->own) TS_CALL(separable_rhs(d, o, t, &done));
  if (done) return 0;
  const size_t n = (size_t)pd->dofs->count;
  int ierr = ts_calloc(n, sizeof *bh, "right-hand side", &bh);
  if (!ierr) ierr = ts_calloc(n, sizeof *xh, "boundary values", &xh);
  if (!ierr) ierr = lifted_rhs(d, o, bh, xh, t);
  ts_free(&bh);
  ts_free(&xh);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "distributed right side") : 0;
}

/* the V-cycle of <multigrid>: its smoother (vertex patches or Chebyshev) and precision as the
 * one-process hierarchy's, V(1,1) */
static int create_vcycle(ts_problem p, dist_level *o) {
  TS_CALL(ts_parallel_mg_set_precision(o->mg, p->mg.precision));
  if (p->mg.smoother == TS_MG_SMOOTHER_VERTEX_PATCH)
    return ts_parallel_pc_create_mg_patch(o->mg, p->mg.variant, 1, &o->pc);
  return ts_parallel_pc_create_mg_chebyshev(o->mg, p->mg.chebyshev_degree, 1, &o->pc);
}

/* The problem's preconditioner (ts_problem_parallel_check allows these), or full
 * multigrid's V-cycle. */
static int create_pc(const dist_study *d, dist_level *o) {
  ts_problem p = d->s.p;
  if (p->fmg) return create_vcycle(p, o);
  if (!p->pc_nodes) return 0;
  const ts_pc_node *n = &p->pc_tree[0];
  if (!strcmp(n->kind, "jacobi")) return ts_pc_create_jacobi(o->A, &o->pc);
  if (!strcmp(n->kind, "chebyshev")) return ts_pc_create_chebyshev(o->A, n->degree, &o->pc);
  if (n->jacobi)
    return ts_parallel_pc_create_mg_jacobi(o->mg, n->weight, n->smoothing_steps, &o->pc);
  return create_vcycle(p, o);
}

static int level_setup(const dist_study *d, int level, dist_level *o, double *t) {
  if (d->stokes) return ts_parallel_stokes_level_setup(d, level, o, t);
  TS_CALL(level_space(d, level, o, t));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_parallel_vec_create(o->pd, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_parallel_vec_create(o->pd, &o->x));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_parallel_vec_create(o->pd, &o->lift));
  TS_CALL(assemble_rhs(d, o, t));
  TS_CALL_TIMED(&t[TS_SETUP_SMOOTHERS], create_pc(d, o));
  if (!d->s.p->fmg) TS_CALL(ts_problem_solver_create(d->s.p, o->A, o->pc, &o->solver));
  return 0;
}

/* Full multigrid's monitor: the log's line, and the last relative residual for the report. */
typedef struct fmg_monitor {
  ts_problem_monitor print;
  double relative_residual;
} fmg_monitor;

static int fmg_record(void *ctx, int iteration, double relative_residual) {
  fmg_monitor *m = ctx;
  m->relative_residual = relative_residual;
  return m->print.log ? ts_problem_print_iteration(&m->print, iteration, relative_residual) : 0;
}

/* Full multigrid or the Krylov solver; the iterations, residual and time into r. */
static int run_solver(ts_problem p, dist_level *o, FILE *log, ts_level_report *r) {
  ts_problem_monitor monitor = {log, r->level, -1};
  const double t0 = ts_wtime();
  int solve_error;
  if (p->fmg) {
    fmg_monitor m = {{log, r->level, -1}, NAN};
    TS_CALL(ts_pc_multigrid_set_monitor(o->pc, fmg_record, &m));
    solve_error = ts_pc_multigrid_fmg_solve(o->pc, o->b, o->x, p->rtol, p->max_iterations,
                                            &r->iterations);
    r->relative_residual = m.relative_residual;
  } else {
    if (log) TS_CALL(ts_solver_set_monitor(o->solver, ts_problem_print_iteration, &monitor));
    solve_error = ts_solver_solve(o->solver, o->b, o->x);
    r->iterations = ts_solver_iterations(o->solver);
    r->relative_residual = ts_solver_relative_residual(o->solver);
  }
  r->solve_seconds = ts_wtime() - t0;
  return solve_error;
}

/* the boundary values added back, the block's solution on the host, its error integrals */
static int complete_local(const dist_study *d, dist_level *o, double *sums) {
  TS_CALL(ts_vec_axpby(1.0, o->lift, 1.0, o->x));
  TS_CALL(ts_calloc((size_t)o->pd->dofs->count, sizeof *o->host, "solution on the host",
                    &o->host));
  TS_CALL(ts_vec_get_to_host(o->x, o->host));
  if (!has_exact(d)) return 0;
  if (d->own)
    TS_CALL(ts_compute_error_sums_mapped(o->pd->dofs, o->host, d->fns.u, d->fns.grad_u,
                                         d->fns.ctx, sums));
  else
    TS_CALL(ts_compute_error_sums(o->pd->dofs, o->host, d->s.exact, sums));
  return 0;
}

/* The errors: the blocks' integrals summed in rank order (the cells of a block are its own). */
static int measure(const dist_study *d, dist_level *o, ts_level_report *r) {
  if (d->stokes) return ts_parallel_stokes_measure(d, o, r);
  double sums[2] = {0.0, 0.0}, total[2];
  TS_CALL(ts_parallel_agree(d->par, complete_local(d, o, sums)));
  if (!has_exact(d)) return 0; /* no exact solution */
  for (int k = 0; k < 2; ++k) TS_CALL(ts_parallel_sum(d->par, sums[k], &total[k]));
  r->l2_error = sqrt(total[0]);
  r->h1_error = sqrt(total[1]);
  return 0;
}

/* <output vtu="NAME.vtu">: this process's piece NAME-RANK.vtu and the index NAME.pvtu (a path
 * without ".vtu" is the NAME) */
static int output_paths(const dist_study *d, int rank, char *piece, char *index, size_t cap) {
  const char *path = d->s.p->vtu_path;
  size_t stem = strlen(path);
  if (stem > 4 && !strcmp(path + stem - 4, ".vtu")) stem -= 4;
  const int a = snprintf(piece, cap, "%.*s-%d.vtu", (int)stem, path, rank);
  const int b = snprintf(index, cap, "%.*s.pvtu", (int)stem, path);
  TS_CHECK_ARG(a > 0 && b > 0 && (size_t)a < cap && (size_t)b < cap,
               "<output vtu=\"%s\">: the path is too long for the pieces' names", path);
  return 0;
}

#define PATH_CAP 1100

/* Before any solve: each process's piece of the finest level can be written. */
static int check_output(const dist_study *d) {
  ts_problem p = d->s.p;
  char piece[PATH_CAP], index[PATH_CAP];
  int64_t cells[3];
  if (!*p->vtu_path) return 0;
  TS_CALL(output_paths(d, d->par->rank, piece, index, sizeof piece));
  if (d->stokes) {
    TS_CALL(ts_parallel_stokes_block_cells(d, cells));
    return ts_stokes_vtu_check_output(piece, p->dim, cells, p->vtu_subdivisions);
  }
  const int split = p->use_mg ? ts_parallel_split_level(d->par, d->s.mesh, p->mg.coarse_level,
                                                        p->levels) : 0;
  TS_CALL(ts_parallel_block_cells(d->par, d->s.mesh, p->levels, split, cells));
  TS_CALL(ts_vtu_check_output(piece, p->dim, cells, p->vtu_subdivisions, has_exact(d)));
  return 0;
}

/* rank 0: the index naming every process's piece, relative to the index's folder */
static int write_index(const dist_study *d, const char *index) {
  ts_problem p = d->s.p;
  const int size = d->par->size;
  char (*names)[PATH_CAP] = NULL, unused[PATH_CAP];
  const char **pieces = NULL;
  int ierr = ts_calloc((size_t)size, sizeof *names, "piece names", &names);
  if (!ierr) ierr = ts_calloc((size_t)size, sizeof *pieces, "piece names", &pieces);
  for (int r = 0; !ierr && r < size; ++r) {
    ierr = output_paths(d, r, names[r], unused, PATH_CAP);
    const char *slash = strrchr(names[r], '/');
    pieces[r] = slash ? slash + 1 : names[r];
  }
  if (!ierr) ierr = d->stokes ? ts_stokes_write_pvtu(index, p->dim, 1, size, pieces)
                              : ts_write_pvtu(index, p->dim, has_exact(d), size, pieces);
  ts_free(&names);
  ts_free(&pieces);
  return ierr;
}

/* this process's piece: its block's cells, the exact solution where it is known */
static int write_piece(const dist_study *d, const dist_level *o, const char *piece) {
  const int s = d->s.p->vtu_subdivisions;
  if (d->stokes) return ts_parallel_stokes_write_piece(d, o, piece);
  if (d->own) return ts_write_vtu_mapped(piece, o->pd->dofs, o->host, d->fns.u, d->fns.ctx, s);
  return ts_write_vtu(piece, o->pd->dofs, o->host, has_exact(d) ? d->s.exact : NULL, s);
}

/* the pieces, then (rank 0) the index */
static int write_output(const dist_study *d, const dist_level *o, FILE *log) {
  char piece[PATH_CAP], index[PATH_CAP];
  TS_CALL(output_paths(d, d->par->rank, piece, index, sizeof piece));
  TS_CALL(ts_parallel_agree(d->par, write_piece(d, o, piece)));
  TS_CALL(ts_parallel_agree(d->par, d->par->rank ? 0 : write_index(d, index)));
  if (!log) return 0;
  char first[PATH_CAP], last[PATH_CAP];
  TS_CALL(output_paths(d, 0, first, index, sizeof first));
  TS_CALL(output_paths(d, d->par->size - 1, last, index, sizeof last));
  ts_problem_print_written(log, index);
  fprintf(log, "    its pieces, one per process: %s .. %s\n", first, last);
  return 0;
}

/* this process's figures of the finest level */
static void record_figures(const dist_study *d, const dist_level *o, const ts_level_report *r,
                           ts_parallel_figures *f) {
  ts_parallel_dofs pd = o->pd;
  *f = (ts_parallel_figures){.rank = d->par->rank, .processes = d->par->size,
                             .owned_dofs = pd->layout.end - pd->layout.begin,
                             .block_dofs = pd->count, .setup_seconds = r->setup_seconds,
                             .solve_seconds = r->solve_seconds};
  for (int dd = 0; dd < 3; ++dd) {
    f->procs[dd] = d->par->procs[dd];
    f->cells[dd] = pd->cell_end[dd] - pd->cell_start[dd];
  }
}

/* the report's times: the slowest process's */
static int slowest(const dist_study *d, ts_level_report *r) {
  double t[TS_SETUP_PHASES + 2];
  memcpy(t, r->setup_phase_seconds, sizeof r->setup_phase_seconds);
  t[TS_SETUP_PHASES] = r->setup_seconds;
  t[TS_SETUP_PHASES + 1] = r->solve_seconds;
  TS_MPI_CALL("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, t, TS_SETUP_PHASES + 2, MPI_DOUBLE,
                                             MPI_MAX, d->par->cart));
  memcpy(r->setup_phase_seconds, t, sizeof r->setup_phase_seconds);
  r->setup_seconds = t[TS_SETUP_PHASES];
  r->solve_seconds = t[TS_SETUP_PHASES + 1];
  return 0;
}

/* Set up, solve and measure one level (the finest: its output and figures). */
static int solve_level(const dist_study *d, dist_level *o, FILE *log, ts_level_report *r,
                       int finest, ts_parallel_figures *f) {
  const double t0 = ts_wtime();
  TS_CALL(ts_parallel_agree(d->par, level_setup(d, r->level, o, r->setup_phase_seconds)));
  r->setup_seconds = ts_wtime() - t0;
  r->dofs = ts_parallel_dofs_global_count(o->pd);
  const int solve_error = ts_parallel_agree(d->par, run_solver(d->s.p, o, log, r));
  if (!ts_results_kept(solve_error)) return solve_error;
  TS_CALL(measure(d, o, r));
  r->converged = !solve_error;
  if (finest && f) record_figures(d, o, r, f);
  TS_CALL(slowest(d, r));
  if (!solve_error && finest && *d->s.p->vtu_path) TS_CALL(write_output(d, o, log));
  return solve_error;
}

static int run_level(const dist_study *d, int level, FILE *log, ts_level_report *r, int finest,
                     ts_parallel_figures *f) {
  dist_level o = {0};
  ts_level_report_start(r, level);
  const int ierr = solve_level(d, &o, log, r, finest, f);
  level_free(&o);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "distributed level solve") : 0;
}

/* The levels of the study, their rates and the summary (as study.c's run_study). */
static int run_study(const dist_study *d, FILE *log, ts_report *report, ts_parallel_figures *f) {
  ts_problem p = d->s.p;
  int unconverged = 0;
  if (log) {
    ts_study_print_header(&d->s, log);
    fprintf(log, "  distributed over %d processes, grid", d->par->size);
    for (int k = 0; k < p->dim; ++k) fprintf(log, "%s%d", k ? "x" : " ", d->par->procs[k]);
    fprintf(log, " (doc/parallel.md)\n");
  }
  for (int level = p->first_level; level <= p->levels; ++level) {
    ts_level_report *r = &report->levels[report->n_levels];
    const int ierr = run_level(d, level, log, r, level == p->levels, f);
    if (!ts_results_kept(ierr)) return ts_error_trace(ierr, __FILE__, __LINE__, "level solve");
    if (report->n_levels > 0) ts_level_rates(r - 1, r);
    report->n_levels++;
    unconverged |= ierr != 0;
  }
  if (log) ts_study_print_summary(&d->s, report, log);
  return unconverged ? TS_ERR_NOT_CONVERGED : 0;
}

/* the whole problem's memory estimate against the processes' memory together */
static int check_memory(ts_problem p, ts_backend backend, int size) {
  size_t available;
  TS_CALL(ts_backend_memory_available(backend, &available));
  TS_CALL(ts_problem_check_memory(p, available > SIZE_MAX / (size_t)size ? SIZE_MAX
                                                                         : available * (size_t)size));
  return 0;
}

int ts_problem_solve_parallel(ts_problem p, ts_backend backend, int comm, const int *procs,
                              FILE *log, ts_report *report, ts_parallel_figures *figures) {
  dist_study d;
  TS_CHECK_ARG(p && backend && report, "ts_problem_solve_parallel: NULL argument");
  memset(report, 0, sizeof *report);
  memset(&d, 0, sizeof d);
  if (figures) memset(figures, 0, sizeof *figures);
  report->threads = omp_get_max_threads();
  TS_CALL(ts_problem_parallel_check(p));
  TS_CHECK_ARG(p->levels - p->first_level < 32, "convergence study: at most 32 levels");
  TS_CALL(ts_parallel_create(comm, p->dim, procs, &d.par));
  d.par->agglomerate_cells = p->mg_agglomerate; /* <multigrid agglomerate>, checked: >= 0 */
  int ierr = ts_parallel_agree(d.par, check_memory(p, backend, d.par->size));
  if (!ierr) ierr = ts_parallel_agree(d.par, ts_study_create(p, backend, &d.s));
  d.own = !ierr && d.s.eq == &ts_equation_poisson_own;
  d.stokes = !ierr && d.s.eq == &ts_equation_stokes;
  report->stokes = d.stokes; /* the pressure errors are reported */
  if (d.own) ts_poisson_own_functions_of(&d.s, &d.fns);
  if (!ierr) ierr = ts_parallel_agree(d.par, check_output(&d));
  if (!ierr) ierr = run_study(&d, log, report, figures);
  ts_study_free(&d.s);
  ts_parallel_destroy(&d.par);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "distributed problem solve") : 0;
}

/* ---------------------------------------------------------------- reading on rank 0 */

/* On rank 0 the file's bytes (or its error: *code and the message); on every process then
 * the code and size, the message of a failure, or the bytes.  *bytes is the caller's. */
static int broadcast_file(MPI_Comm c, int rank, const char *path, char **bytes, size_t *size) {
  long long header[2] = {0, 0}; /* rank 0's code and size */
  if (rank == 0) {
    header[0] = ts_problem_file_bytes(path, bytes, size);
    header[1] = (long long)*size;
  }
  TS_MPI_CALL("MPI_Bcast", MPI_Bcast(header, 2, MPI_LONG_LONG, 0, c));
  if (header[0]) {
    char message[4096] = "";
    if (rank == 0) snprintf(message, sizeof message, "%s", ts_error_message());
    TS_MPI_CALL("MPI_Bcast", MPI_Bcast(message, sizeof message, MPI_CHAR, 0, c));
    if (rank == 0) return (int)header[0];
    return ts_error_set((int)header[0], __FILE__, __LINE__, "process 0: %s", message);
  }
  *size = (size_t)header[1]; /* at most TS_PROBLEM_MAX_BYTES: an int count */
  if (rank) TS_CALL(ts_calloc(*size + 1, 1, "the broadcast problem file", bytes));
  TS_MPI_CALL("MPI_Bcast", MPI_Bcast(*bytes, (int)*size, MPI_CHAR, 0, c));
  return 0;
}

int ts_problem_read_xml_parallel(int comm, const char *path, int n_overrides,
                                 const char *const *overrides, ts_problem *problem) {
  int initialized = 0, rank = 0;
  TS_CHECK_NOT_NULL(problem);
  *problem = NULL;
  TS_CHECK_ARG(path && *path, "ts_problem_read_xml_parallel: the path is %s",
               path ? "empty" : "NULL");
  MPI_Initialized(&initialized);
  TS_CHECK_ARG(initialized, "ts_problem_read_xml_parallel: MPI is not initialized (call "
               "MPI_Init first)");
  const MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
  TS_CHECK_ARG(c != MPI_COMM_NULL, "ts_problem_read_xml_parallel: comm = %d is MPI_COMM_NULL",
               comm);
  TS_MPI_CALL("MPI_Comm_rank", MPI_Comm_rank(c, &rank));
  char *bytes = NULL;
  size_t size = 0;
  int ierr = broadcast_file(c, rank, path, &bytes, &size);
  if (!ierr) ierr = ts_problem_read_memory(path, bytes, size, n_overrides, overrides, problem);
  free(bytes);
  return ierr;
}
