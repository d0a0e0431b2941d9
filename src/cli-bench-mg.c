/* cli-bench-mg.c -- `tessera bench --mg`: the multigrid solver per degree on the unit box,
 * with one coarse cell refined L times.  Poisson (paper 002, section 5): f = 1; the time of
 * one smoothing step on the finest level, of one V-cycle (the preconditioner application,
 * all levels), of GMRES preconditioned by the V-cycle to a relative residual of 1e-6, and of
 * full multigrid to 1e-9 (Algorithm 2.2).  Stokes (--problem stokes; paper 000, RT_k x
 * DGQ_k, doc/stokes.md): the manufactured solution "paper000", coarse level 1; one step of
 * the Stokes vertex-patch smoother, one V-cycle, and GMRES(30) + V-cycle to 1e-8 (the time
 * to solution; no FMG).  With counted operations and memory traffic for the fractions of
 * the ceilings.
 *
 * Counted operations (FMAs count 2 flops) of one vertex-patch step, per patch with
 * N = 2k+1 closed-patch and m = 2k-1 interior points per direction, the 1D products dense:
 *   3D  residual 2 m N^3 + 3 m^2 N^2 + 2 m^3 N FMAs, fast diagonalization 6 m^4 + m^3;
 *   2D  residual 2 m N^2 + 2 m^2 N FMAs,             fast diagonalization 4 m^3 + m^2;
 * counted traffic per patch: the closed patch of x read, b and x on the interior read and
 * written ((N^d + 2 m^d) scalars).  A Chebyshev step of degree s counts s Laplacians and 5
 * vector accesses per DoF and product.  A Stokes patch step counts lower bounds (as
 * bench/bench-stokes.c): the 2^dim applications of the Stokes operator for the residual of
 * each color (its local solves, whose pressure CG runs a data-dependent number of steps,
 * are not counted), and per color the operator's and the patch pass's minimum traffic (read
 * x and b, write r; read r, read and write x: 6 n scalars).  A V-cycle counts, per level
 * below the coarsest, two smoothing steps, the residual (one operator application, 3 vector
 * accesses per DoF) and both transfers (coarse and fine vector read and written once each). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"


/* Waits for the device (asynchronous backends): a dot product returns a scalar to the host. */
static int wait_device(ts_vec one) {
  double dummy;
  return ts_vec_dot(one, one, &dummy);
}


/* Counted flops and bytes of one smoothing step on a level with `cells` cells per
 * direction and n DoFs (see the header). */
static void smoothing_counts(int dim, int k, int64_t cells, int64_t n, double laplace_flops,
                             const ts_mg_options *o, double *flops, double *bytes) {
  const double size = (double)ts_precision_size(o->precision);
  if (o->smoother == TS_MG_SMOOTHER_CHEBYSHEV) {
    *flops = o->chebyshev_degree * (laplace_flops + 6.0 * (double)n);
    *bytes = o->chebyshev_degree * 5.0 * (double)n * size;
    return;
  }
  const double N = 2 * k + 1, m = 2 * k - 1;
  const double patches = pow((double)(cells - 1), dim);
  const double fma = dim == 3 ? 2 * m * N * N * N + 3 * m * m * N * N + 2 * m * m * m * N +
                                    6 * m * m * m * m + m * m * m
                              : 2 * m * N * N + 2 * m * m * N + 4 * m * m * m + m * m;
  *flops = 2.0 * fma * patches;
  *bytes = (pow(N, dim) + 2.0 * pow(m, dim)) * patches * size;
}

/* Lower bounds of the flops and bytes of one Stokes smoothing step on a level with n DoFs
 * whose operator application counts operator_flops (see the header). */
static void stokes_smoothing_counts(int dim, int64_t n, double operator_flops,
                                    const ts_mg_options *o, double *flops, double *bytes) {
  const double colors = dim == 3 ? 8.0 : 4.0;
  *flops = colors * operator_flops;
  *bytes = colors * 6.0 * (double)n * (double)ts_precision_size(o->precision);
}

/* Counted flops and bytes of one smoothing step on the finest level and of one V-cycle. */
static void vcycle_counts(ts_mg mg, const cli_bench_mg_config *c, int k, cli_bench_mg_result *r) {
  const ts_mg_options *o = &c->options;
  const double size = (double)ts_precision_size(o->precision);
  const int coarse = o->coarse_level; /* the mesh levels (degree levels below it not counted) */
  r->vcycle_flops = r->vcycle_bytes = 0;
  for (int l = coarse + 1; l <= r->level; ++l) {
    ts_operator A = ts_mg_level_operator(mg, l);
    const int64_t n = ts_operator_size(A), cells = (int64_t)1 << l;
    const int64_t nc = ts_operator_size(ts_mg_level_operator(mg, l - 1));
    double f, b;
    if (c->problem == CLI_PROBLEM_STOKES)
      stokes_smoothing_counts(c->dim, n, ts_operator_flops(A), o, &f, &b);
    else
      smoothing_counts(c->dim, k, cells, n, ts_operator_flops(A), o, &f, &b);
    if (l == r->level) {
      r->smooth_flops = f;
      r->smooth_bytes = b;
    }
    r->vcycle_flops += 2 * f + ts_operator_flops(A);
    r->vcycle_bytes += 2 * b + (3.0 * (double)n + 2.0 * (double)(n + nc)) * size;
  }
}

/* Device memory the benchmark allocates, estimated before it does: the hierarchy (about
 * 8/7 of the finest level in 3D, 4/3 in 2D, 6 vectors per level in the level precision;
 * under mixed precision 3 double vectors on the coarser levels, 1/7 or 1/3 of the finest),
 * the finest level's double vectors (multigrid 2, benchmark 4, flexible GMRES 2 restart + 1). */
static double memory_need(const cli_bench_mg_config *c, int64_t n) {
  const ts_mg_options *o = &c->options;
  const double levels = c->dim == 3 ? 8.0 / 7.0 : 4.0 / 3.0;
  const double coarser = o->precision == TS_DOUBLE ? 0.0 : 3.0 * (levels - 1.0) * sizeof(double);
  return (double)n * (levels * 6.0 * (double)ts_precision_size(o->precision) + coarser +
                      (6.0 + 2 * c->restart + 1) * sizeof(double));
}

/* TS_ERR_MEMORY, with the message printed here (r->reported), when it does not fit. */
static int check_memory(ts_backend b, const cli_bench_mg_config *c, int k, cli_bench_mg_result *r) {
  size_t avail = 0;
  int ierr = ts_backend_memory_available(b, &avail);
  const double need = memory_need(c, r->dofs);
  if (!ierr && need > 0.9 * (double)avail) {
    fprintf(stderr,
            "tessera: error: bench --mg: degree %d with %lld DoFs needs about %.3g GiB but "
            "backend '%s' has %.3g GiB available; lower --dofs\n",
            k, (long long)r->dofs, need / 1073741824.0, ts_backend_name(b),
            (double)avail / 1073741824.0);
    r->reported = 1;
    return TS_ERR_MEMORY;
  }
  return ierr;
}

/* The DoFs of RT_k x DGQ_k (velocity + pressure, doc/stokes.md section 2) on a box with
 * `cells` cells in each of dim directions, known before the mesh is made (memory check). */
static int64_t stokes_dofs(int dim, int k, int64_t cells) {
  int64_t pressure = 1, total = 0;
  for (int d = 0; d < dim; ++d) pressure *= cells * (k + 1);
  for (int i = 0; i < dim; ++i) {
    int64_t component = 1;
    for (int d = 0; d < dim; ++d) component *= cells * (k + 1) + (d == i);
    total += component;
  }
  return total + pressure;
}

/* DoFs of the finest level L of the benchmark's mesh (one coarse cell). */
static int64_t level_dofs(const cli_bench_mg_config *c, int k, int L) {
  if (c->problem == CLI_PROBLEM_STOKES) return stokes_dofs(c->dim, k, (int64_t)1 << L);
  return (int64_t)pow(k * pow(2.0, L) + 1.0, c->dim);
}

/* The finest level L whose size per direction is closest to the target's (in log2): at
 * least 1 (Poisson), or 2 (Stokes: the coarse level is 1, and the finest needs a level to
 * smooth on). */
static int finest_level(const cli_bench_mg_config *c, int k) {
  if (c->problem == CLI_PROBLEM_STOKES) {
    const double per_dir = pow(c->target_dofs / (c->dim + 1), 1.0 / c->dim);
    return (int)fmax(2.0, round(log2(fmax(1.0, per_dir / (k + 1)))));
  }
  const double per_dir = pow(c->target_dofs, 1.0 / c->dim);
  return (int)fmax(1.0, round(log2(fmax(1.0, (per_dir - 1.0) / k))));
}

/* What the benchmark solves: the mesh, the hierarchy and the right side (double, finest). */
typedef struct mg_system {
  ts_mesh mesh;
  ts_fe fe;
  ts_mg mg;
  ts_vec b;
} mg_system;

static void mg_system_free(mg_system *s) {
  ts_vec_destroy(&s->b);
  ts_mg_destroy(&s->mg);
  ts_fe_destroy(&s->fe);
  ts_mesh_destroy(&s->mesh);
}

/* Poisson: Q_k, f = 1 with zero boundary values. */
static int poisson_system(ts_backend b, const cli_bench_mg_config *c, int k, int L, mg_system *s) {
  ts_vec x0 = NULL;
  TS_CALL(ts_fe_create_q(c->dim, k, &s->fe));
  TS_CALL(ts_mg_create(b, s->mesh, s->fe, L, &c->options, &s->mg));
  const int64_t n = ts_dofs_count(ts_mg_dofs(s->mg));
  TS_CALL(ts_vec_create(b, n, TS_DOUBLE, &s->b));
  TS_CALL(ts_vec_create(b, n, TS_DOUBLE, &x0));
  const int ierr = ts_assemble_rhs(ts_mg_operator(s->mg), ts_mg_dofs(s->mg), ts_rhs_one(), s->b, x0);
  ts_vec_destroy(&x0);
  return ierr;
}

/* Stokes: RT_k x DGQ_k, the force of the manufactured solution "paper000", coarse level at
 * least 1 (one coarse cell has no interior vertex). */
static int stokes_system(ts_backend b, const cli_bench_mg_config *c, int k, int L, mg_system *s) {
  const ts_stokes_solution *solution;
  ts_mg_options o = c->options;
  double *host = NULL;
  if (o.coarse_level < 1) o.coarse_level = 1;
  TS_CALL(ts_stokes_solution_by_name("paper000", &solution));
  TS_CALL(ts_mg_create_stokes(b, s->mesh, k, L, &o, &s->mg));
  const int64_t n = ts_operator_size(ts_mg_operator(s->mg));
  TS_CALL(ts_vec_create(b, n, TS_DOUBLE, &s->b));
  host = calloc((size_t)n, sizeof(double));
  if (!host) {
    fprintf(stderr, "tessera: error: bench --mg: out of host memory for %lld doubles\n", (long long)n);
    return TS_ERR_MEMORY;
  }
  int ierr = ts_stokes_assemble_rhs(ts_mg_dofs(s->mg), ts_mg_pressure_dofs(s->mg), solution, host);
  if (!ierr) ierr = ts_vec_set_from_host(s->b, host);
  free(host);
  return ierr;
}

/* GMRES(restart) preconditioned by one V-cycle, from x = 0 to the configured rtol. */
static int gmres_solve(ts_solver s, ts_vec b, ts_vec x, int *iterations) {
  int ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_solve(s, b, x);
  *iterations = ts_solver_iterations(s);
  return ierr;
}

static int fmg_solve(ts_mg mg, ts_vec b, ts_vec x, int *iterations) {
  double rel;
  int ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_mg_fmg_solve(mg, b, x, 1e-9, 100, iterations, &rel);
  return ierr;
}

/* --verbose: the phase that just ended and the seconds since t0 on stderr */
static void progress(const cli_bench_mg_config *c, int k, const char *phase, double t0) {
  if (!c->verbose) return;
  fprintf(stderr, "# k %d: %s done after %.1f s\n", k, phase, ts_wtime() - t0);
  fflush(stderr);
}

/* Time a smoothing step, a V-cycle, GMRES + V-cycle and (Poisson) FMG on the system. */
static int time_system(ts_backend b, const cli_bench_mg_config *c, int k, const mg_system *sys,
                       cli_bench_mg_result *r, double t0) {
  const ts_precision level_precision = c->options.precision;
  const int L = r->level;
  ts_mg mg = sys->mg;
  ts_solver s = NULL;
  ts_vec x = NULL, y = NULL, one = NULL, bs = NULL, xs = NULL;
  const int64_t n = ts_operator_size(ts_mg_operator(mg));
  int ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(b, 1, TS_DOUBLE, &one);
  /* one smoothing step on the finest level, in the V-cycle precision */
  if (!ierr) ierr = ts_vec_create(b, n, level_precision, &bs);
  if (!ierr) ierr = ts_vec_create(b, n, level_precision, &xs);
  if (!ierr) ierr = ts_vec_copy(sys->b, bs);
  if (!ierr) ierr = ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs); /* warm up */
  if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->smooth_seconds, ierr,
                             ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs));
  ts_vec_destroy(&bs);
  ts_vec_destroy(&xs);
  progress(c, k, "smoothing steps", t0);
  /* one V-cycle */
  if (!ierr) ierr = ts_operator_apply(ts_mg_preconditioner(mg), sys->b, y);
  if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->vcycle_seconds, ierr,
                             ts_operator_apply(ts_mg_preconditioner(mg), sys->b, y));
  progress(c, k, "V-cycles", t0);
  /* GMRES + V-cycle to rtol */
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_GMRES, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, ts_mg_operator(mg));
  if (!ierr) ierr = ts_solver_set_preconditioner(s, ts_mg_preconditioner(mg));
  if (!ierr) ierr = ts_solver_set_tolerances(s, c->rtol, 100);
  if (!ierr) ierr = ts_solver_set_restart(s, c->restart);
  if (!ierr) ierr = gmres_solve(s, sys->b, x, &r->gmres_iterations);
  if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->gmres_seconds, ierr,
                             gmres_solve(s, sys->b, x, &r->gmres_iterations));
  progress(c, k, "GMRES solves", t0);
  /* full multigrid to 1e-9 (Poisson) */
  if (!ierr && c->problem == CLI_PROBLEM_POISSON) {
    ierr = fmg_solve(mg, sys->b, x, &r->iterations);
    if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->solve_seconds, ierr,
                             fmg_solve(mg, sys->b, x, &r->iterations));
  }
  ts_solver_destroy(&s);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&one);
  return ierr;
}

int cli_bench_mg_degree(ts_backend b, const cli_bench_mg_config *c, int k,
                        cli_bench_mg_result *r) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  mg_system sys = {0};
  const double t0 = ts_wtime();
  r->level = finest_level(c, k);
  r->dofs = level_dofs(c, k, r->level);
  int ierr = check_memory(b, c, k, r);
  if (!ierr) ierr = ts_mesh_create_box(c->dim, lower, upper, coarse, r->level, &sys.mesh);
  if (!ierr) ierr = c->problem == CLI_PROBLEM_STOKES ? stokes_system(b, c, k, r->level, &sys)
                                                     : poisson_system(b, c, k, r->level, &sys);
  if (!ierr) {
    progress(c, k, "setup (hierarchy and right side)", t0);
    r->dofs = ts_operator_size(ts_mg_operator(sys.mg));
    vcycle_counts(sys.mg, c, k, r);
    ierr = time_system(b, c, k, &sys, r, t0);
  }
  mg_system_free(&sys);
  return ierr;
}
