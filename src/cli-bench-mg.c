/* cli-bench-mg.c -- `tessera bench --mg`: the multigrid solver per degree on the unit box
 * with f = 1: time per DoF of one smoothing step on the finest level, of one V-cycle (the
 * preconditioner application, all levels) and of the whole full multigrid solve to a
 * relative residual of 1e-9 (paper 002, Algorithm 2.2), with its iteration count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

/* Repeat fn until min_seconds have passed (at least 3 times); seconds per call. */
#define TIME_LOOP(min_seconds, seconds, ierr, call)                          \
  do {                                                                       \
    int reps_ = 0;                                                           \
    const double t0_ = ts_wtime();                                           \
    while (!(ierr) && (ts_wtime() - t0_ < (min_seconds) || reps_ < 3)) {     \
      (ierr) = (call);                                                       \
      ++reps_;                                                               \
    }                                                                        \
    (seconds) = (ts_wtime() - t0_) / reps_;                                  \
  } while (0)

int cli_bench_mg_degree(ts_backend b, int dim, int k, double target_dofs, double min_seconds,
                        const ts_mg_options *options, cli_bench_mg_result *r) {
  /* the finest level L with (2^L k + 1)^dim closest to the target */
  const double per_dir = pow(target_dofs, 1.0 / dim);
  int L = (int)fmax(1.0, round(log2(fmax(1.0, (per_dir - 1.0) / k))));
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  ts_vec b_vec = NULL, x = NULL, x0 = NULL, y = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, L, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_mg_create(b, mesh, fe, L, options, &mg);
  const int64_t n = ierr ? 0 : ts_dofs_count(ts_mg_dofs(mg));
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &b_vec);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_assemble_rhs(ts_mg_operator(mg), ts_mg_dofs(mg), ts_rhs_one(), b_vec, x0);
  r->level = L;
  r->dofs = n;
  /* one smoothing step on the finest level, in the V-cycle precision */
  ts_vec bs = NULL, xs = NULL;
  if (!ierr) ierr = ts_vec_create(b, n, options->precision, &bs);
  if (!ierr) ierr = ts_vec_create(b, n, options->precision, &xs);
  if (!ierr) ierr = ts_vec_copy(b_vec, bs);
  if (!ierr) ierr = ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs); /* warm up */
  if (!ierr) TIME_LOOP(min_seconds, r->smooth_seconds, ierr, ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs));
  ts_vec_destroy(&bs);
  ts_vec_destroy(&xs);
  /* one V-cycle */
  if (!ierr) ierr = ts_operator_apply(ts_mg_preconditioner(mg), b_vec, y);
  if (!ierr) TIME_LOOP(min_seconds, r->vcycle_seconds, ierr, ts_operator_apply(ts_mg_preconditioner(mg), b_vec, y));
  /* the whole solve */
  double rel = 0.0;
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_mg_fmg_solve(mg, b_vec, x, 1e-9, 100, &r->iterations, &rel);
  if (!ierr) TIME_LOOP(min_seconds, r->solve_seconds, ierr,
                       ts_mg_fmg_solve(mg, b_vec, x, 1e-9, 100, &r->iterations, &rel));
  ts_vec_destroy(&b_vec);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  ts_vec_destroy(&y);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}
