/* ex-darcy.c -- solve the Darcy problem beta u + grad p = f, div u = g on the unit square or
 * cube (paper 003, eq. 2), with Raviart-Thomas velocities RT_k and discontinuous pressures
 * DGQ_k in the interpolation-histopolation bases, and watch the errors of velocity and
 * pressure fall as the mesh is refined.
 *
 *   usage: ex-darcy [dim (2)] [degree k (2)] [finest level (5 in 2D, 3 in 3D)] [backend (omp)]
 *
 * The exact solution is the smooth one of doc/hdiv.md (ts_darcy_smooth_*, beta = 1): p =
 * sin(2x + 1/2) cos(3y/2 + 1/4) [cos(z + 1/3)], u = -grad p.  The normal flux u . n is
 * prescribed on the left and the top face, the pressure p on the others (the natural
 * condition).  The system is the transformed saddle-point system [M D^T; D 0] of paper 003
 * (eq. 20), solved by MINRES with the block-diagonal preconditioner diag(diag(M), one
 * BoomerAMG V-cycle on the approximate Schur complement S~) to 1e-12. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

/* Stop on the first error, printing what went wrong (every call returns 0 on success). */
#define CHECK(call)                                                  \
  do {                                                               \
    if (call) {                                                      \
      fprintf(stderr, "ex-darcy: %s\n", ts_error_message());         \
      exit(1);                                                       \
    }                                                                \
  } while (0)

static double beta = 1.0;

/* Solve on one level of the mesh; return the L2 errors of velocity and pressure. */
static void solve_on_level(ts_backend backend, ts_mesh mesh, int degree, int level,
                           double *velocity_error, double *pressure_error) {
  const int dim = ts_mesh_dim(mesh);
  ts_fe rt, l2;
  ts_dofs velocity, pressure;
  CHECK(ts_fe_create_rt_ih(dim, degree, &rt));
  CHECK(ts_fe_create_l2_ih(dim, degree, &l2));
  CHECK(ts_dofs_create(mesh, rt, level, &velocity));
  CHECK(ts_dofs_create(mesh, l2, level, &pressure));

  /* The system: alpha = INFINITY is the Darcy problem (no (2,2) block), beta = 1. */
  const ts_hdiv_coefficients coefficients = {INFINITY, beta, NULL, NULL};
  const ts_hdiv_data data = {.g = ts_darcy_smooth_divergence,
                             .p_boundary = ts_darcy_smooth_pressure,
                             .u_boundary = ts_darcy_smooth_velocity,
                             .ctx = &beta};
  ts_hdiv_system system;
  CHECK(ts_hdiv_system_create(backend, velocity, pressure, &coefficients,
                              TS_FACE_LEFT | TS_FACE_TOP, &system));

  /* b and the lifting x0 of the prescribed fluxes; solve, add x0, recover p = -W^{-1} x_p. */
  const int64_t nu = ts_dofs_count(velocity), np = ts_dofs_count(pressure);
  double *b = calloc((size_t)(nu + np), sizeof *b), *x = calloc((size_t)(nu + np), sizeof *x);
  double *x0 = calloc((size_t)(nu + np), sizeof *x0), *p = calloc((size_t)np, sizeof *p);
  if (!b || !x || !x0 || !p) exit(1);
  int iterations;
  CHECK(ts_hdiv_system_rhs(system, &data, b, x0));
  CHECK(ts_hdiv_system_solve(system, TS_SOLVER_MINRES, 1e-12, 1000, b, x, &iterations));
  for (int64_t i = 0; i < nu + np; ++i) x[i] += x0[i];
  CHECK(ts_hdiv_system_pressure(system, x, p));

  CHECK(ts_hdiv_l2_error(velocity, x, ts_darcy_smooth_velocity, &beta, velocity_error));
  CHECK(ts_hdiv_l2_error(pressure, p, ts_darcy_smooth_pressure, &beta, pressure_error));
  printf("level %d: %9lld DoFs, %3d MINRES iterations, L2 errors: velocity %.4e, pressure %.4e",
         level, (long long)(nu + np), iterations, *velocity_error, *pressure_error);

  free(b);
  free(x);
  free(x0);
  free(p);
  ts_hdiv_system_destroy(&system);
  ts_dofs_destroy(&velocity);
  ts_dofs_destroy(&pressure);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
}

int main(int argc, char **argv) {
  const int dim = argc > 1 ? atoi(argv[1]) : 2;
  const int degree = argc > 2 ? atoi(argv[2]) : 2;
  const int finest = argc > 3 ? atoi(argv[3]) : (dim == 2 ? 5 : 3);
  const char *backend_name = argc > 4 ? argv[4] : "omp";
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  ts_backend backend;
  ts_mesh mesh;

  CHECK(ts_backend_open(backend_name, &backend));
  CHECK(ts_mesh_create_box(dim, lower, upper, coarse, finest, &mesh));
  printf("Darcy, RT%d x DGQ%d on the unit %s, backend %s\n", degree, degree,
         dim == 2 ? "square" : "cube", ts_backend_name(backend));

  double velocity_prev = 0, pressure_prev = 0;
  for (int level = 2; level <= finest; ++level) {
    double velocity_error, pressure_error;
    solve_on_level(backend, mesh, degree, level, &velocity_error, &pressure_error);
    if (level > 2) /* halving h should divide both errors by 2^(k+1) */
      printf(", rates %.2f %.2f", log2(velocity_prev / velocity_error),
             log2(pressure_prev / pressure_error));
    printf("\n");
    velocity_prev = velocity_error;
    pressure_prev = pressure_error;
  }
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&backend);
  return 0;
}
