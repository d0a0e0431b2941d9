/* cli-bench-darcy.c -- `tessera bench --problem darcy`: paper 003's Figure 8, the parts of a
 * MINRES iteration on the smooth Darcy problem (doc/hdiv.md: beta = 2, the fluxes prescribed
 * on the left and top (3D: left and back) faces, the pressure elsewhere, so that S~ is
 * regular and a GPU backend takes its own AMG), RT_k x DGQ_k in the interpolation-
 * histopolation bases on [0,1]^dim, 2^dim coarse cells refined to the level whose DoFs are
 * nearest --dofs.  Per degree: one MINRES solve with the block-diagonal preconditioner
 * diag(Jacobi(M_beta), AMG(S~)) to 1e-12 (its iterations and time from host arrays to host
 * arrays, and the setup: ts_hdiv_system_create and the right side), then each part alone,
 * the best of --repeat windows of --seconds: Acal (ts_hdiv_system_operator) and its blocks
 * M_beta, D, D^T (ts_hdiv_system_block), the preconditioner and its AMG V-cycle on S~
 * (ts_hdiv_system_schur_pc). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

static double beta_two = 2.0;

/* DoFs of RT_k x DGQ_k on [0,1]^dim with 2^dim cells refined level times */
static double darcy_dofs(int dim, int k, int level) {
  const double n = (double)(2 << level) * (k + 1); /* sub-cells per direction */
  return dim * (n + 1) * pow(n, dim - 1) + pow(n, dim);
}

/* the level whose DoFs are nearest target (in ratio) */
static int darcy_level(int dim, int k, double target) {
  int level = 0;
  while (level < 12 && fabs(log(darcy_dofs(dim, k, level + 1) / target)) <
                           fabs(log(darcy_dofs(dim, k, level) / target)))
    ++level;
  return level;
}

/* Waits for the device: a dot product returns a scalar to the host. */
static int wait_device(ts_vec v) {
  double dummy;
  return ts_vec_dot(v, v, &dummy);
}

/* best seconds per application of op (or pc) on a random vector of n entries into m */
static int time_part(const cli_bench_darcy_config *c, ts_backend b, ts_operator op, ts_pc pc,
                     int64_t m, int64_t n, double *seconds) {
  ts_vec x = NULL, y = NULL;
  int ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(b, m, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_set_random(x, 7);
  if (!ierr) ierr = op ? ts_operator_apply(op, x, y) : ts_pc_apply(pc, x, y); /* warm-up */
  CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(y), *seconds, ierr,
                op ? ts_operator_apply(op, x, y) : ts_pc_apply(pc, x, y));
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  return ierr;
}

static int time_parts(const cli_bench_darcy_config *c, ts_backend b, ts_hdiv_system s,
                      int64_t nu, int64_t np, cli_bench_darcy_row *r) {
  ts_pc pc = NULL;
  int ierr = ts_hdiv_system_create_pc(s, 0, &pc);
  if (!ierr) ierr = time_part(c, b, ts_hdiv_system_operator(s), NULL, nu + np, nu + np, &r->system);
  if (!ierr) ierr = time_part(c, b, NULL, pc, nu + np, nu + np, &r->pc);
  if (!ierr) ierr = time_part(c, b, ts_hdiv_system_block(s, 0, 0), NULL, nu, nu, &r->mass);
  if (!ierr) ierr = time_part(c, b, ts_hdiv_system_block(s, 1, 0), NULL, np, nu, &r->div);
  if (!ierr) ierr = time_part(c, b, ts_hdiv_system_block(s, 0, 1), NULL, nu, np, &r->div_t);
  if (!ierr) ierr = time_part(c, b, NULL, ts_hdiv_system_schur_pc(s), np, np, &r->schur);
  ts_pc_destroy(&pc);
  return ierr;
}

int cli_bench_darcy_degree(ts_backend b, const cli_bench_darcy_config *c, int k,
                           cli_bench_darcy_row *r) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse[3] = {2, 2, 2};
  const ts_hdiv_coefficients coefficients = {INFINITY, beta_two, NULL, NULL};
  const ts_hdiv_data data = {.g = ts_darcy_smooth_divergence, .p_boundary = ts_darcy_smooth_pressure,
                             .u_boundary = ts_darcy_smooth_velocity, .ctx = &beta_two};
  const unsigned flux_faces = c->dim == 3 ? TS_FACE_LEFT | TS_FACE_BACK : TS_FACE_LEFT | TS_FACE_TOP;
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_hdiv_system s = NULL;
  double *rhs = NULL, *x = NULL, *x0 = NULL;
  *r = (cli_bench_darcy_row){.level = darcy_level(c->dim, k, c->target_dofs)};
  const double t0 = ts_wtime();
  int ierr = ts_mesh_create_box(c->dim, lower, upper, coarse, r->level, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(c->dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(c->dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, r->level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, r->level, &p);
  if (!ierr) ierr = ts_hdiv_system_create(b, u, p, &coefficients, flux_faces, &s);
  const int64_t nu = ierr ? 0 : ts_dofs_count(u), np = ierr ? 0 : ts_dofs_count(p);
  r->dofs = nu + np;
  if (!ierr) {
    rhs = calloc((size_t)r->dofs, sizeof *rhs);
    x = calloc((size_t)r->dofs, sizeof *x);
    x0 = calloc((size_t)r->dofs, sizeof *x0);
    if (!rhs || !x || !x0) {
      fprintf(stderr, "tessera: error: bench --problem darcy: no host memory for the right side "
              "and solution of %lld DoFs; lower --dofs\n", (long long)r->dofs);
      r->reported = 1;
      ierr = TS_ERR_MEMORY;
    }
  }
  if (!ierr) ierr = ts_hdiv_system_rhs(s, &data, rhs, x0);
  r->setup_seconds = ts_wtime() - t0;
  const double t1 = ts_wtime();
  if (!ierr) ierr = ts_hdiv_system_solve(s, TS_SOLVER_MINRES, 1e-12, 5000, rhs, x, &r->iterations);
  r->solve_seconds = ts_wtime() - t1;
  if (!ierr) ierr = time_parts(c, b, s, nu, np, r);
  free(rhs);
  free(x);
  free(x0);
  ts_hdiv_system_destroy(&s);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
  return ierr;
}
