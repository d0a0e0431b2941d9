/* cli-bench-parallel.c -- `mpirun -np N tessera bench [--mg]`: the distributed Q_k Laplacian
 * (doc/parallel.md) per degree, with the total and each process's figures.  With --problem
 * stokes the distributed Stokes operator of RT_k x DGQ_k (its ghost refreshes timed as the
 * halo), or with --mg GMRES(--restart) + its V-cycle (coarse level 1) to --rtol from x = 0 for
 * b = A u, u one V-cycle of a random vector (the time to solution, as one process's
 * `bench --problem stokes --mg`).  The box [0,1]^dim
 * has one level-0 cell per process and direction (the grid of MPI_Dims_create), refined to
 * the level whose DoFs are nearest --dofs, so that the blocks nest for multigrid.  Without
 * --mg: one application of the operator and, of it, the interface sums
 * (ts_parallel_vec_sum_shared); with --mg: the hierarchy's setup and full multigrid to 1e-9
 * from a random right side with the V-cycle of vertex patches (--smoother, the default) or
 * Chebyshev(3) smoothing and the gathered coarse LU (--mg-precision mixed: single-precision
 * V-cycles, ts_parallel_mg_set_precision), after one
 * untimed solve, then one more solve with the communication timed (ts_parallel_timing: each
 * halo exchange, reduction and coarse solve waits for the device before and after it) and the
 * shares of that solve spent in them.  The calls are collective, so every process makes as
 * many: the count is fixed from a first call's time on the slowest process.  Each process's
 * figure is its own clock's; the total is the slowest process's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define FMG_RTOL 1e-9
#define FMG_MAX_VCYCLES 50
#define CHEBYSHEV_DEGREE 3

/* One degree's figures on one process (seconds: per call of the operator, per solve). */
typedef struct par_row {
  int degree, level, vcycles;   /* vcycles: FMG's, or Stokes' GMRES steps */
  int64_t dofs, owned, block;   /* the whole mesh's; owned by and in the block of the process */
  double apply, halo;           /* without --mg */
  double setup, solve;          /* with --mg */
  double timed;                 /* --mg: the solve with ts_parallel_timing on */
  double spent[TS_PARALLEL_TIMES]; /* of it: halo, reductions, coarse solves (all levels) */
} par_row;

/* The objects of one degree. */
typedef struct par_objects {
  ts_mesh mesh;
  ts_fe fe;
  ts_parallel_mg mg;            /* --mg: owns pd and A */
  ts_parallel_dofs pd;          /* the finest level's */
  ts_operator A;
  ts_pc pc;                     /* --mg: the V-cycle */
  ts_vec x, y;                  /* random input (right side), output (solution) */
  ts_solver gmres;              /* Stokes --mg: GMRES + V-cycle */
} par_objects;

static void objects_free(par_objects *q) {
  ts_solver_destroy(&q->gmres);
  ts_vec_destroy(&q->x);
  ts_vec_destroy(&q->y);
  ts_pc_destroy(&q->pc);
  if (q->mg) {
    ts_parallel_mg_destroy(&q->mg);
  } else {
    ts_operator_destroy(&q->A);
    ts_parallel_dofs_destroy(&q->pd);
  }
  ts_fe_destroy(&q->fe);
  ts_mesh_destroy(&q->mesh);
}

/* the DoFs of the box of procs_d 2^level cells per direction: Q_k's, or RT_k x DGQ_k's */
static double level_dofs(const cli_bench_parallel_config *c, const int *procs, int k, int level) {
  double n = 1.0, pressure = 1.0, velocity = 0.0;
  for (int d = 0; d < c->dim; ++d) n *= ldexp(procs[d], level) * k + 1.0;
  if (!c->stokes) return n;
  for (int d = 0; d < c->dim; ++d) pressure *= ldexp(procs[d], level) * (k + 1);
  for (int i = 0; i < c->dim; ++i) {
    double component = 1.0;
    for (int d = 0; d < c->dim; ++d) component *= ldexp(procs[d], level) * (k + 1) + (d == i);
    velocity += component;
  }
  return velocity + pressure;
}

/* the level whose DoFs are nearest c->dofs (in ratio), at least `lowest` */
static int nearest_level(const cli_bench_parallel_config *c, const int *procs, int k, int lowest) {
  int best = lowest;
  double best_distance = INFINITY;
  for (int level = lowest; level <= 20; ++level) {
    const double distance = fabs(log(level_dofs(c, procs, k, level) / c->dofs));
    if (distance < best_distance) best = level, best_distance = distance;
  }
  return best;
}

/* Stokes: the hierarchy of levels 1..level and its V-cycle, or the level's operator; the
 * right side of --mg, b = A u with u one V-cycle of a random vector (mean-free pressure) */
static int setup_stokes(const cli_bench_parallel_config *c, ts_parallel par, int k,
                        par_objects *q, par_row *r) {
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 1; /* 2 cells per process and direction: at least 2, as Stokes needs */
  o.stokes_solver = c->stokes_solver;
  if (!c->mg) {
    TS_CALL(ts_parallel_dofs_create_stokes(c->backend, par, q->mesh, k, r->level, &q->pd));
    return ts_parallel_operator_create_stokes(q->pd, 0.0, &q->A);
  }
  TS_CALL(ts_parallel_mg_create_stokes(c->backend, par, q->mesh, k, r->level, &o, &q->mg));
  TS_CALL(ts_parallel_pc_create_mg_stokes(q->mg, &q->pc));
  q->pd = ts_parallel_mg_dofs(q->mg, r->level);
  q->A = ts_parallel_mg_operator(q->mg, r->level);
  TS_CALL(ts_solver_create(TS_SOLVER_GMRES, &q->gmres));
  TS_CALL(ts_solver_set_operator(q->gmres, q->A));
  TS_CALL(ts_solver_set_pc(q->gmres, q->pc));
  TS_CALL(ts_solver_set_restart(q->gmres, c->restart));
  return ts_solver_set_tolerances(q->gmres, c->rtol, 500);
}

static int stokes_rhs(par_objects *q) {
  TS_CALL(ts_pc_apply(q->pc, q->x, q->y)); /* u = V(random): zero on the boundary's normal DoFs */
  TS_CALL(ts_stokes_pressure_mean_remove(q->A, q->y));
  return ts_operator_apply(q->A, q->y, q->x);
}

static int setup_degree(const cli_bench_parallel_config *c, ts_parallel par, int k,
                        par_objects *q, par_row *r) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  int procs[3] = {1, 1, 1};
  int ierr = ts_parallel_procs(par, procs);
  r->degree = k;
  /* Stokes: blocks of 2 cells and more to refresh; the V-cycle a level above coarse level 1 */
  r->level = nearest_level(c, procs, k, c->stokes ? 1 + c->mg : 0);
  if (!ierr) ierr = ts_mesh_create_box(c->dim, lower, upper, procs, r->level, &q->mesh);
  if (!ierr && !c->stokes) ierr = ts_fe_create_q(c->dim, k, &q->fe);
  const double t0 = ts_wtime();
  if (!ierr && c->stokes) {
    ierr = setup_stokes(c, par, k, q, r);
  } else if (!ierr && c->mg) {
    ierr = ts_parallel_mg_create(c->backend, par, q->mesh, q->fe, 0, r->level, &q->mg);
    if (!ierr) ierr = ts_parallel_mg_set_precision(q->mg, c->mg_precision);
    if (!ierr) ierr = c->smoother == TS_MG_SMOOTHER_VERTEX_PATCH
                          ? ts_parallel_pc_create_mg_patch(q->mg, c->variant, 1, &q->pc)
                          : ts_parallel_pc_create_mg_chebyshev(q->mg, CHEBYSHEV_DEGREE, 1, &q->pc);
    q->pd = ierr ? NULL : ts_parallel_mg_dofs(q->mg, r->level);
    q->A = ierr ? NULL : ts_parallel_mg_operator(q->mg, r->level);
  } else if (!ierr) {
    ierr = ts_parallel_dofs_create(c->backend, par, q->mesh, q->fe, r->level, &q->pd);
    if (!ierr) ierr = ts_parallel_operator_create_laplace(q->pd, &q->A);
  }
  r->setup = ts_wtime() - t0;
  if (!ierr) ierr = ts_parallel_vec_create(q->pd, &q->x);
  if (!ierr) ierr = ts_parallel_vec_create(q->pd, &q->y);
  if (!ierr) ierr = ts_vec_set_random(q->x, 42);
  if (!ierr && c->stokes && c->mg) ierr = stokes_rhs(q);
  if (ierr) return ierr;
  const ts_layout l = ts_vec_layout(q->x);
  r->dofs = ts_layout_global_size(l);
  r->owned = ts_layout_end(l) - ts_layout_begin(l);
  r->block = ts_vec_size(q->x); /* owned and ghost */
  return 0;
}

/* a scalar back from every process: the work queued before it is done */
static int drain(ts_vec v) {
  double norm;
  return ts_vec_norm(v, &norm);
}

typedef int (*par_call)(par_objects *q);
static int apply_operator(par_objects *q) { return ts_operator_apply(q->A, q->x, q->y); }
static int sum_interfaces(par_objects *q) { return ts_parallel_vec_sum_shared(q->pd, q->y); }

/* Stokes: the ghost refresh of one application, timed within it (ts_parallel_timing) */
static int refresh_share(const cli_bench_parallel_config *c, ts_parallel par, par_objects *q,
                         par_row *r) {
  double seconds = 0.0;
  int64_t calls = 0;
  TS_CALL(ts_parallel_timing(par, 1));
  for (int i = 0; i < 5 * c->repeat; ++i) TS_CALL(apply_operator(q));
  TS_CALL(drain(q->y));
  TS_CALL(ts_parallel_dofs_time(q->pd, TS_PARALLEL_TIME_HALO, &seconds, &calls));
  TS_CALL(ts_parallel_timing(par, 0));
  r->halo = calls ? seconds / (double)calls : 0.0;
  return 0;
}

/* Seconds per call on this process: the best of c->repeat windows of as many calls as fill
 * c->min_seconds on the slowest process (at least 5). */
static int time_calls(const cli_bench_parallel_config *c, const cli_mpi *m, par_objects *q,
                      par_call call, double *seconds) {
  double t0 = ts_wtime();
  int ierr = call(q);
  if (!ierr) ierr = drain(q->y);
  const double once = cli_mpi_max(m, ts_wtime() - t0);
  const int calls = (int)fmin(1e6, fmax(5.0, ceil(c->min_seconds / fmax(once, 1e-9))));
  *seconds = INFINITY;
  for (int w = 0; !ierr && w < c->repeat; ++w) {
    ierr = drain(q->x);
    t0 = ts_wtime();
    for (int i = 0; !ierr && i < calls; ++i) ierr = call(q);
    if (!ierr) ierr = drain(q->y);
    *seconds = fmin(*seconds, (ts_wtime() - t0) / calls);
  }
  return ierr;
}

/* one solve from q->y = 0 (the caller's, outside the clock): full multigrid, or Stokes' GMRES
 * + V-cycle; its iterations */
static int solve_once(par_objects *q, int *iterations) {
  if (!q->gmres)
    return ts_pc_multigrid_fmg_solve(q->pc, q->x, q->y, FMG_RTOL, FMG_MAX_VCYCLES, iterations);
  const int ierr = ts_solver_solve(q->gmres, q->x, q->y);
  *iterations = ts_solver_iterations(q->gmres);
  return ierr;
}

/* the solve, the best of c->repeat after an untimed one */
static int time_solve(const cli_bench_parallel_config *c, par_objects *q, par_row *r) {
  int ierr = ts_vec_set(q->y, 0.0);
  if (!ierr) ierr = solve_once(q, &r->vcycles);
  r->solve = INFINITY;
  for (int w = 0; !ierr && w < c->repeat; ++w) {
    ierr = ts_vec_set(q->y, 0.0);
    if (!ierr) ierr = drain(q->x);
    const double t0 = ts_wtime();
    if (!ierr) ierr = solve_once(q, &r->vcycles);
    if (!ierr) ierr = drain(q->y);
    r->solve = fmin(r->solve, ts_wtime() - t0);
  }
  return ierr;
}

/* one more solve with ts_parallel_timing on: its seconds and, summed over the levels, the
 * seconds of each ts_parallel_time */
static int time_communication(ts_parallel par, par_objects *q, par_row *r) {
  int ierr = ts_vec_set(q->y, 0.0);
  if (!ierr) ierr = drain(q->x);
  if (!ierr) ierr = ts_parallel_timing(par, 1);
  const double t0 = ts_wtime();
  int vcycles = 0;
  if (!ierr) ierr = solve_once(q, &vcycles);
  if (!ierr) ierr = drain(q->y);
  r->timed = ts_wtime() - t0;
  if (!ierr) ierr = ts_parallel_timing(par, 0);
  for (int w = 0; w < TS_PARALLEL_TIMES && !ierr; ++w)
    ierr = ts_parallel_mg_time(q->mg, w, &r->spent[w], NULL);
  return ierr;
}

/* One degree on every process (an error agreed: every process stops with it). */
static int measure_degree(const cli_bench_parallel_config *c, const cli_mpi *m, ts_parallel par,
                          int k, par_row *r) {
  par_objects q = {0};
  int ierr = cli_mpi_agree(m, setup_degree(c, par, k, &q, r));
  if (!ierr && c->mg) ierr = cli_mpi_agree(m, time_solve(c, &q, r));
  if (!ierr && c->mg) ierr = cli_mpi_agree(m, time_communication(par, &q, r));
  if (!ierr && !c->mg) ierr = cli_mpi_agree(m, time_calls(c, m, &q, apply_operator, &r->apply));
  if (!ierr && !c->mg)
    ierr = cli_mpi_agree(m, c->stokes ? refresh_share(c, par, &q, r)
                                      : time_calls(c, m, &q, sum_interfaces, &r->halo));
  objects_free(&q);
  return ierr;
}

/* the slowest process's figures: the whole run's */
static par_row slowest(const par_row *all, int processes) {
  par_row t = all[0];
  for (int p = 1; p < processes; ++p) {
    t.apply = fmax(t.apply, all[p].apply);
    t.halo = fmax(t.halo, all[p].halo);
    t.setup = fmax(t.setup, all[p].setup);
    t.solve = fmax(t.solve, all[p].solve);
    t.timed = fmax(t.timed, all[p].timed);
    for (int w = 0; w < TS_PARALLEL_TIMES; ++w) t.spent[w] = fmax(t.spent[w], all[p].spent[w]);
  }
  t.owned = t.dofs;
  return t;
}

/* One row of the table: the total (process < 0) or a process's share. */
static void print_row(const cli_bench_parallel_config *c, const par_row *r, int process) {
  char who[16];
  snprintf(who, sizeof who, process < 0 ? "total" : "%d", process);
  const double seconds = c->mg ? r->solve : r->apply;
  printf(" %2d %5d %11lld %7s %11lld", r->degree, r->level, (long long)r->dofs, who,
         (long long)r->owned);
  if (c->mg)
    printf(" %9.3f %9.4f %8d %6.1f %7.1f %7.1f", r->setup, r->solve, r->vcycles,
           100.0 * r->spent[TS_PARALLEL_TIME_HALO] / r->timed,
           100.0 * r->spent[TS_PARALLEL_TIME_REDUCTION] / r->timed,
           100.0 * r->spent[TS_PARALLEL_TIME_COARSE] / r->timed);
  else printf(" %9.4f %9.4f %6.1f", 1e3 * r->apply, 1e3 * r->halo, 100.0 * r->halo / r->apply);
  printf(" %10.2f\n", 1e-6 * (double)r->owned / seconds);
}

/* the V-cycle's smoother, as --smoother names it */
static const char *smoother_name(const cli_bench_parallel_config *c) {
  return c->smoother == TS_MG_SMOOTHER_VERTEX_PATCH ? "vertex-patch" : "chebyshev";
}

static void print_header(const cli_bench_parallel_config *c, const int *procs, int processes) {
  char mg[128] = "";
  if (c->mg && c->stokes)
    snprintf(mg, sizeof mg, ", GMRES(%d) + V-cycle to %.0e (Stokes vertex patches, %s local "
             "solver, coarse LU)", c->restart, c->rtol,
             c->stokes_solver == TS_STOKES_PATCH_DIRECT ? "direct" : "Schur");
  else if (c->mg)
    snprintf(mg, sizeof mg, ", full multigrid to 1e-9 (%s V-cycle of %s, coarse LU)",
             c->mg_precision == TS_SINGLE ? "mixed-precision" : "double",
             c->smoother != TS_MG_SMOOTHER_VERTEX_PATCH ? "Chebyshev(3)"
             : c->variant == TS_PATCH_FUSED            ? "vertex patches (fused)"
                                                        : "vertex patches (separate)");
  printf("tessera bench: the distributed %s%s, %dD, on %d processes (grid",
         c->stokes ? "Stokes operator of RT_k x DGQ_k" : "Q_k Laplacian", mg, c->dim, processes);
  for (int d = 0; d < c->dim; ++d) printf("%s%d", d ? "x" : " ", procs[d]);
  printf("), backend %s: %s\n", ts_backend_name(c->backend), ts_backend_description(c->backend));
  printf(" each process: the DoFs it owns and its own time; total: the slowest process's time\n");
  if (c->mg)
    printf(" halo, reduce, coarse: %% of one more solve timed with ts_parallel_timing\n"
           "  k level        DoFs process        DoFs   setup s   solve s %s  halo%% reduce%% "
           "coarse%%     MDoF/s\n", c->stokes ? "   steps" : "V-cycles");
  else
    printf("  k level        DoFs process        DoFs  apply ms   halo ms halo %%     MDoF/s\n");
}

static void print_json_row(const cli_bench_parallel_config *c, const par_row *all, int processes,
                           const int *procs) {
  const par_row t = slowest(all, processes);
  const char *kernel = c->stokes ? (c->mg ? "parallel-stokes-gmres" : "parallel-stokes")
                                  : (c->mg ? "parallel-fmg" : "parallel-laplace");
  printf("{\"kernel\": \"%s\", \"backend\": ", kernel);
  cli_json_string(stdout, ts_backend_name(c->backend));
  printf(", \"dim\": %d, \"degree\": %d, \"level\": %d, \"processes\": %d, \"process_grid\": [",
         c->dim, t.degree, t.level, processes);
  for (int d = 0; d < c->dim; ++d) printf("%s%d", d ? ", " : "", procs[d]);
  printf("], \"dofs\": %lld", (long long)t.dofs);
  if (c->mg && !c->stokes)
    printf(", \"smoother\": \"%s\", \"mg_precision\": \"%s\"", smoother_name(c),
           c->mg_precision == TS_SINGLE ? "mixed" : "double");
  if (c->mg)
    printf(", \"setup_seconds\": %.6e, \"solve_seconds\": %.6e, \"%s\": %d, "
           "\"timed_solve_seconds\": %.6e, \"halo_seconds\": %.6e, \"reduction_seconds\": %.6e, "
           "\"coarse_seconds\": %.6e", t.setup, t.solve, c->stokes ? "iterations" : "vcycles",
           t.vcycles, t.timed,
           t.spent[TS_PARALLEL_TIME_HALO], t.spent[TS_PARALLEL_TIME_REDUCTION],
           t.spent[TS_PARALLEL_TIME_COARSE]);
  else
    printf(", \"apply_seconds\": %.6e, \"halo_seconds\": %.6e", t.apply, t.halo);
  printf(", \"dofs_per_second\": %.6e, \"per_process\": [",
         (double)t.dofs / (c->mg ? t.solve : t.apply));
  for (int p = 0; p < processes; ++p) {
    const par_row *r = &all[p];
    printf("%s{\"rank\": %d, \"dofs\": %lld, \"block_dofs\": %lld", p ? ", " : "", p,
           (long long)r->owned, (long long)r->block);
    if (c->mg) printf(", \"setup_seconds\": %.6e, \"solve_seconds\": %.6e}", r->setup, r->solve);
    else printf(", \"apply_seconds\": %.6e, \"halo_seconds\": %.6e}", r->apply, r->halo);
  }
  printf("]}\n");
}

static int run_degrees(const cli_bench_parallel_config *c, const cli_mpi *m, ts_parallel par,
                       par_row *all) {
  int procs[3] = {1, 1, 1};
  ts_parallel_procs(par, procs);
  if (!m->rank && !c->json) print_header(c, procs, m->size);
  for (int i = 0; i < c->n_degrees; ++i) {
    par_row mine = {0};
    const int ierr = measure_degree(c, m, par, c->degrees[i], &mine);
    if (ierr) return cli_exit_code(ierr);
    if (cli_mpi_gather(m, &mine, (int)sizeof mine, all) != CLI_OK) return CLI_ERROR;
    if (m->rank) continue;
    if (c->json) {
      print_json_row(c, all, m->size, procs);
      continue;
    }
    const par_row total = slowest(all, m->size);
    print_row(c, &total, -1);
    for (int p = 0; p < m->size; ++p) print_row(c, &all[p], p);
  }
  return CLI_OK;
}

int cli_bench_parallel(const cli_bench_parallel_config *c, const cli_mpi *m) {
  ts_parallel par = NULL;
  par_row *all = calloc((size_t)m->size, sizeof *all);
  int status = all ? CLI_OK : CLI_ERROR;
  const int ierr = status ? 0 : cli_mpi_agree(m, ts_parallel_create(cli_mpi_comm(), c->dim, NULL, &par));
  if (ierr) status = cli_exit_code(ierr);
  if (!status) status = run_degrees(c, m, par, all);
  ts_parallel_destroy(&par);
  free(all);
  return status;
}
