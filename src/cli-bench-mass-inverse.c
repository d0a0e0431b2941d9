/* cli-bench-mass-inverse.c -- `tessera bench --problem mass-inverse`: Table 1 of paper 003
 * (section 3.1), the DG mass inverse W^{-1} of DGQ_k (Gauss-Legendre nodal basis,
 * ts_fe_create_dgq) on Kershaw's mesh (epsilon --kershaw, default 0.5) of about --dofs DoFs
 * (default 1.7e6), per method and degree: the setup time (ts_operator_create_l2_mass_inverse),
 * the local CG iterations (mean and largest over the cells), the time of 100 applications
 * after one untimed warm-up, their sum, GDoF/s (100 DoFs counts per application / solve
 * time) and |W (W^{-1} x) - x| / |x| for the random x, with the forward mass
 * (ts_operator_create_l2_mass).  Methods the backend lacks (Cholesky off omp) and dense
 * methods above --dense-max-degree, or whose n^2 values per cell would not fit the device's
 * available memory, print a dash, as the paper's p = 8 explicit inverse. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

#define APPLICATIONS 100

typedef struct mi_problem {
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs dofs;
  ts_operator W;
  ts_vec x, y, z;
} mi_problem;

static void mi_problem_free(mi_problem *m) {
  ts_vec_destroy(&m->x);
  ts_vec_destroy(&m->y);
  ts_vec_destroy(&m->z);
  ts_operator_destroy(&m->W);
  ts_dofs_destroy(&m->dofs);
  ts_fe_destroy(&m->fe);
  ts_mesh_destroy(&m->mesh);
}

/* Kershaw's mesh with about target DoFs of DGQ_k: c cells per direction, c_0 a multiple of 6
 * and the others of 2 (the map's kinks). */
static int mi_problem_create(ts_backend b, const cli_bench_mass_inverse_config *c, int k,
                             mi_problem *m) {
  const double per_cell = pow(k + 1, c->dim), side = pow(c->target_dofs / per_cell, 1.0 / c->dim);
  int coarse[3] = {6 * (int)fmax(1.0, round(side / 6.0)), 2 * (int)fmax(1.0, round(side / 2.0)),
                   2 * (int)fmax(1.0, round(side / 2.0))};
  int ierr = ts_mesh_create_kershaw(c->dim, coarse, 0, c->kershaw, &m->mesh);
  if (!ierr) ierr = ts_fe_create_dgq(c->dim, k, &m->fe);
  if (!ierr) ierr = ts_dofs_create(m->mesh, m->fe, 0, &m->dofs);
  if (!ierr) ierr = ts_operator_create_l2_mass(b, m->dofs, NULL, &m->W);
  const int64_t n = ierr ? 0 : ts_dofs_count(m->dofs);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &m->x);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &m->y);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &m->z);
  if (!ierr) ierr = ts_vec_set_random(m->x, 2024);
  return ierr;
}

/* Waits for the device (asynchronous backends): a dot product returns a scalar to the host. */
static int wait_device(ts_vec v) {
  double dummy;
  return ts_vec_dot(v, v, &dummy);
}

/* Whether a dense method is measured: degree and memory (n^2 doubles per cell, twice with
 * the host copy during setup). */
static int dense_fits(ts_backend b, const cli_bench_mass_inverse_config *c, const mi_problem *m,
                      int k) {
  if (k > c->dense_max_degree) return 0;
  const double n = pow(k + 1, c->dim), bytes = (double)ts_dofs_count(m->dofs) * n * 8.0;
  size_t available = 0;
  return !ts_backend_memory_available(b, &available) && 2.0 * bytes < 0.8 * (double)available;
}

/* Setup, 100 applications and the check of one method; r->measured = 0 for a dash. */
static int mi_measure(ts_backend b, const cli_bench_mass_inverse_config *c, mi_problem *m,
                      ts_mass_inverse_method method, int k, cli_bench_mass_inverse_row *r) {
  const int dense = method == TS_MASS_INVERSE_EXPLICIT || method == TS_MASS_INVERSE_CHOLESKY;
  r->measured = 0;
  if (dense && !dense_fits(b, c, m, k)) return 0;
  ts_mass_inverse_options o;
  ts_mass_inverse_options_default(&o);
  o.method = method;
  o.tolerance = c->tolerance;
  ts_operator W_inv = NULL;
  TS_CALL(wait_device(m->x));
  double t0 = ts_wtime();
  int ierr = ts_operator_create_l2_mass_inverse(b, m->dofs, NULL, &o, &W_inv);
  if (ierr == TS_ERR_UNSUPPORTED) return 0; /* a method this backend lacks: a dash */
  if (!ierr) ierr = wait_device(m->x);
  r->setup_seconds = ts_wtime() - t0;
  if (!ierr) ierr = ts_operator_apply(W_inv, m->x, m->y); /* warm-up */
  if (!ierr) ierr = wait_device(m->y);
  t0 = ts_wtime();
  for (int a = 0; a < APPLICATIONS && !ierr; ++a) ierr = ts_operator_apply(W_inv, m->x, m->y);
  if (!ierr) ierr = wait_device(m->y);
  r->solve_seconds = ts_wtime() - t0;
  if (!ierr) ierr = ts_operator_l2_mass_inverse_iterations(W_inv, &r->max_iterations, &r->mean_iterations);
  double diff = 0.0, norm = 0.0;
  if (!ierr) ierr = ts_operator_apply(m->W, m->y, m->z);
  if (!ierr) ierr = ts_vec_axpby(-1.0, m->x, 1.0, m->z);
  if (!ierr) ierr = ts_vec_norm(m->z, &diff);
  if (!ierr) ierr = ts_vec_norm(m->x, &norm);
  ts_operator_destroy(&W_inv);
  if (ierr) return ierr;
  r->residual = diff / norm;
  r->measured = 1;
  return 0;
}

int cli_bench_mass_inverse_degree(ts_backend b, const cli_bench_mass_inverse_config *c, int k,
                                  cli_bench_mass_inverse_row rows[CLI_MASS_INVERSE_METHODS],
                                  int64_t *dofs) {
  mi_problem m = {0};
  int ierr = mi_problem_create(b, c, k, &m);
  *dofs = ierr ? 0 : ts_dofs_count(m.dofs);
  for (int i = 0; i < CLI_MASS_INVERSE_METHODS && !ierr; ++i)
    ierr = mi_measure(b, c, &m, (ts_mass_inverse_method)(i + 1), k, &rows[i]);
  mi_problem_free(&m);
  return ierr;
}
