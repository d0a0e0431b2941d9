/* darcy-solve.h -- one solve of an H(div) saddle-point system by ts_hdiv_system on a level of a
 * box or a mapped mesh, with the L2 errors of u and p against an exact solution, for the Darcy
 * tests (t-darcy, t-darcy-mapped).  Static inline: include it in one test program per
 * executable. */
#ifndef TESSERA_TESTS_DARCY_SOLVE_H
#define TESSERA_TESTS_DARCY_SOLVE_H

#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera.h"

/* The smooth Darcy solution (ts_darcy_smooth_*) with beta = 2: coefficients and data */
static double darcy_beta_smooth = 2.0;
static const ts_hdiv_coefficients darcy_smooth = {INFINITY, 2.0, NULL, NULL};
static const ts_hdiv_data darcy_smooth_data = {.g = ts_darcy_smooth_divergence,
                                               .p_boundary = ts_darcy_smooth_pressure,
                                               .u_boundary = ts_darcy_smooth_velocity,
                                               .ctx = &darcy_beta_smooth};

typedef struct darcy_result {
  int iterations;
  double error_u, error_p;
  ts_hdiv_amg amg;              /* the AMG the system built on S~ */
} darcy_result;

/* y = W^{-1} v (W the L2 mass of the pressure DoFs without coefficient, the system's: on a
 * mapped level with its Piola map) by ts_hdiv_system_pressure, p = -W^{-1} x_p, on x =
 * [0; -v]; work: nu + np values */
static inline int darcy_w_inverse(ts_hdiv_system s, int64_t nu, int64_t np, const double *v,
                                  double *work, double *y) {
  for (int64_t i = 0; i < nu; ++i) work[i] = 0.0;
  for (int64_t i = 0; i < np; ++i) work[nu + i] = -v[i];
  return ts_hdiv_system_pressure(s, work, y);
}

/* Shift the DGQ_k field p_h (DoFs: sub-cell integrals, which sum to its integral) by the null
 * space's direction W^{-1} 1 (the pressure of x_p = 1; the L2 projection of the constant 1,
 * since (1, psi_i) = 1) so that its integral is that of the L2 projection W^{-1} (p, psi) of p
 * (that of p itself wherever the space holds the constants: on boxes and parallelograms). */
static inline int darcy_match_mean(ts_hdiv_system s, ts_dofs u, ts_dofs pressure, ts_point_fn p,
                                   void *ctx, double *ph) {
  const int64_t nu = ts_dofs_count(u), n = ts_dofs_count(pressure);
  double *b = calloc((size_t)n, sizeof *b), *w = calloc((size_t)n, sizeof *w);
  double *work = calloc((size_t)(nu + n), sizeof *work);
  int ierr = b && w && work ? ts_hdiv_load_vector(pressure, p, ctx, b) : TS_ERR_MEMORY;
  if (!ierr) ierr = darcy_w_inverse(s, nu, n, b, work, w);
  long double difference = 0.0L, volume = 0.0L;
  for (int64_t i = 0; !ierr && i < n; ++i) difference += w[i] - ph[i];
  for (int64_t i = 0; !ierr && i < n; ++i) b[i] = 1.0;
  if (!ierr) ierr = darcy_w_inverse(s, nu, n, b, work, w);
  for (int64_t i = 0; !ierr && i < n; ++i) volume += w[i];
  for (int64_t i = 0; !ierr && i < n; ++i) ph[i] += (double)(difference / volume) * w[i];
  free(b);
  free(w);
  free(work);
  return ierr;
}

/* Solve on level `level` of mesh by `type` with the AMG `amg` on S~; errors of u and p (p
 * compared after matching the means when the system is singular; no errors for p_exact NULL). */
static inline int darcy_solve_amg(ts_backend b, ts_mesh mesh, int level, int k,
                                  const ts_hdiv_coefficients *co, unsigned flux_faces,
                                  const ts_hdiv_data *data, ts_point_fn u_exact,
                                  ts_point_fn p_exact, ts_solver_type type, double rtol,
                                  ts_hdiv_amg amg, darcy_result *r) {
  const int dim = ts_mesh_dim(mesh);
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_hdiv_system s = NULL;
  double *rhs = NULL, *x = NULL, *x0 = NULL, *ph = NULL;
  int ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
  if (!ierr) ierr = ts_hdiv_system_create_with_amg(b, u, p, co, flux_faces, amg, &s);
  r->amg = ts_hdiv_system_amg(s);
  const int64_t nu = ierr ? 0 : ts_dofs_count(u), np = ierr ? 0 : ts_dofs_count(p);
  if (!ierr) {
    rhs = calloc((size_t)(nu + np), sizeof *rhs);
    x = calloc((size_t)(nu + np), sizeof *x);
    x0 = calloc((size_t)(nu + np), sizeof *x0);
    ph = calloc((size_t)np, sizeof *ph);
    ierr = rhs && x && x0 && ph ? 0 : TS_ERR_MEMORY;
  }
  if (!ierr) ierr = ts_hdiv_system_rhs(s, data, rhs, x0);
  if (!ierr) ierr = ts_hdiv_system_solve(s, type, rtol, 3000, rhs, x, &r->iterations);
  for (int64_t i = 0; !ierr && i < nu + np; ++i) x[i] += x0[i];
  if (!ierr) ierr = ts_hdiv_system_pressure(s, x, ph);
  if (p_exact) { /* NULL: no exact solution, iterations only */
    if (!ierr && ts_hdiv_system_is_singular(s))
      ierr = darcy_match_mean(s, u, p, p_exact, data->ctx, ph);
    if (!ierr) ierr = ts_hdiv_l2_error(u, x, u_exact, data->ctx, &r->error_u);
    if (!ierr) ierr = ts_hdiv_l2_error(p, ph, p_exact, data->ctx, &r->error_p);
  }
  if (ierr) diag("%s", ts_error_message());
  free(rhs);
  free(x);
  free(x0);
  free(ph);
  ts_hdiv_system_destroy(&s);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  return ierr;
}

/* darcy_solve_amg with ts_hdiv_system_create's choice of the AMG */
static inline int darcy_solve(ts_backend b, ts_mesh mesh, int level, int k,
                              const ts_hdiv_coefficients *co, unsigned flux_faces,
                              const ts_hdiv_data *data, ts_point_fn u_exact, ts_point_fn p_exact,
                              ts_solver_type type, double rtol, darcy_result *r) {
  return darcy_solve_amg(b, mesh, level, k, co, flux_faces, data, u_exact, p_exact, type, rtol,
                         TS_HDIV_AMG_AUTO, r);
}

#endif
