/* cli-bench-mg.c -- `tessera bench --mg`: the multigrid solver per degree on the unit box
 * with f = 1 (paper 002, section 5): time of one smoothing step on the finest level, of one
 * V-cycle (the preconditioner application, all levels), of GMRES preconditioned by the
 * V-cycle to a relative residual of 1e-6, and of full multigrid to 1e-9 (Algorithm 2.2),
 * with counted operations and memory traffic for the fractions of the ceilings.
 *
 * Counted operations (FMAs count 2 flops) of one vertex-patch step, per patch with
 * N = 2k+1 closed-patch and m = 2k-1 interior points per direction, the 1D products dense:
 *   3D  residual 2 m N^3 + 3 m^2 N^2 + 2 m^3 N FMAs, fast diagonalization 6 m^4 + m^3;
 *   2D  residual 2 m N^2 + 2 m^2 N FMAs,             fast diagonalization 4 m^3 + m^2;
 * counted traffic per patch: the closed patch of x read, b and x on the interior read and
 * written ((N^d + 2 m^d) scalars).  A Chebyshev step of degree s counts s Laplacians and 5
 * vector accesses per DoF and product.  A V-cycle counts, per level below the coarsest, two
 * smoothing steps, the residual (one Laplacian, 3 vector accesses per DoF) and both
 * transfers (coarse and fine vector read and written once each). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"


/* Waits for the device (asynchronous backends): a dot product returns a scalar to the host. */
static int wait_device(ts_vec one) {
  double dummy;
  return ts_vec_dot(one, one, &dummy);
}

/* Seconds per call of `call`, repeated until min_seconds have passed (at least 3 times),
 * the device drained before the clock starts and before it is read. */
#define TIME_LOOP(min_seconds, one, seconds, ierr, call)                     \
  do {                                                                       \
    int reps_ = 0;                                                           \
    if (!(ierr)) (ierr) = wait_device(one);                                  \
    const double t0_ = ts_wtime();                                           \
    while (!(ierr) && (ts_wtime() - t0_ < (min_seconds) || reps_ < 3)) {     \
      (ierr) = (call);                                                       \
      ++reps_;                                                               \
    }                                                                        \
    if (!(ierr)) (ierr) = wait_device(one);                                  \
    (seconds) = (ts_wtime() - t0_) / (reps_ ? reps_ : 1);                    \
  } while (0)

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

/* Counted flops and bytes of one smoothing step on the finest level and of one V-cycle. */
static void vcycle_counts(ts_mg mg, int dim, int k, const ts_mg_options *o, cli_bench_mg_result *r) {
  const double size = (double)ts_precision_size(o->precision);
  const int coarse = ts_mg_coarse_level(mg);
  r->vcycle_flops = r->vcycle_bytes = 0;
  for (int l = coarse + 1; l <= r->level; ++l) {
    ts_operator A = ts_mg_level_operator(mg, l);
    const int64_t n = ts_operator_size(A), cells = (int64_t)1 << l;
    const int64_t nc = ts_operator_size(ts_mg_level_operator(mg, l - 1));
    double f, b;
    smoothing_counts(dim, k, cells, n, ts_operator_flops(A), o, &f, &b);
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
static double memory_need(int dim, int64_t n, const ts_mg_options *o) {
  const double levels = dim == 3 ? 8.0 / 7.0 : 4.0 / 3.0;
  const double coarser = o->precision == TS_DOUBLE ? 0.0 : 3.0 * (levels - 1.0) * sizeof(double);
  return (double)n * (levels * 6.0 * (double)ts_precision_size(o->precision) + coarser +
                      (6.0 + 2 * CLI_BENCH_GMRES_RESTART + 1) * sizeof(double));
}

/* TS_ERR_MEMORY, with the message printed here (r->reported), when it does not fit. */
static int check_memory(ts_backend b, int dim, int k, const ts_mg_options *o,
                        cli_bench_mg_result *r) {
  size_t avail = 0;
  int ierr = ts_backend_memory_available(b, &avail);
  const double need = memory_need(dim, r->dofs, o);
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

/* GMRES(CLI_BENCH_GMRES_RESTART) preconditioned by one V-cycle, from x = 0 to 1e-6. */
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

int cli_bench_mg_degree(ts_backend b, int dim, int k, double target_dofs, double min_seconds,
                        const ts_mg_options *options, cli_bench_mg_result *r) {
  /* the finest level L with (2^L k + 1)^dim closest to the target */
  const double per_dir = pow(target_dofs, 1.0 / dim);
  const int L = (int)fmax(1.0, round(log2(fmax(1.0, (per_dir - 1.0) / k))));
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  ts_solver s = NULL;
  ts_vec b_vec = NULL, x = NULL, x0 = NULL, y = NULL, one = NULL, bs = NULL, xs = NULL;
  r->level = L;
  r->dofs = (int64_t)pow(k * pow(2.0, L) + 1.0, dim);
  int ierr = check_memory(b, dim, k, options, r);
  if (!ierr) ierr = ts_mesh_create_box(dim, lower, upper, coarse, L, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_mg_create(b, mesh, fe, L, options, &mg);
  const int64_t n = ierr ? 0 : ts_dofs_count(ts_mg_dofs(mg));
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &b_vec);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(b, 1, TS_DOUBLE, &one);
  if (!ierr) ierr = ts_assemble_rhs(ts_mg_operator(mg), ts_mg_dofs(mg), ts_rhs_one(), b_vec, x0);
  ts_vec_destroy(&x0);
  if (!ierr) vcycle_counts(mg, dim, k, options, r);
  /* one smoothing step on the finest level, in the V-cycle precision */
  if (!ierr) ierr = ts_vec_create(b, n, options->precision, &bs);
  if (!ierr) ierr = ts_vec_create(b, n, options->precision, &xs);
  if (!ierr) ierr = ts_vec_copy(b_vec, bs);
  if (!ierr) ierr = ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs); /* warm up */
  if (!ierr) TIME_LOOP(min_seconds, one, r->smooth_seconds, ierr, ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs));
  ts_vec_destroy(&bs);
  ts_vec_destroy(&xs);
  /* one V-cycle */
  if (!ierr) ierr = ts_operator_apply(ts_mg_preconditioner(mg), b_vec, y);
  if (!ierr) TIME_LOOP(min_seconds, one, r->vcycle_seconds, ierr, ts_operator_apply(ts_mg_preconditioner(mg), b_vec, y));
  /* GMRES + V-cycle to 1e-6 */
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_GMRES, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, ts_mg_operator(mg));
  if (!ierr) ierr = ts_solver_set_preconditioner(s, ts_mg_preconditioner(mg));
  if (!ierr) ierr = ts_solver_set_tolerances(s, 1e-6, 100);
  if (!ierr) ierr = ts_solver_set_restart(s, CLI_BENCH_GMRES_RESTART);
  if (!ierr) ierr = gmres_solve(s, b_vec, x, &r->gmres_iterations);
  if (!ierr) TIME_LOOP(min_seconds, one, r->gmres_seconds, ierr, gmres_solve(s, b_vec, x, &r->gmres_iterations));
  /* full multigrid to 1e-9 */
  if (!ierr) ierr = fmg_solve(mg, b_vec, x, &r->iterations);
  if (!ierr) TIME_LOOP(min_seconds, one, r->solve_seconds, ierr, fmg_solve(mg, b_vec, x, &r->iterations));
  ts_solver_destroy(&s);
  ts_vec_destroy(&b_vec);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&one);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}
