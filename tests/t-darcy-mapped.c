/* t-darcy-mapped.c -- exploration */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera-impl.h"
#include "darcy-solve.h"

static double beta_smooth = 2.0;
static const ts_hdiv_coefficients darcy_smooth = {INFINITY, 2.0, NULL, NULL};
static const ts_hdiv_data smooth_data = {.g = ts_darcy_smooth_divergence,
                                         .p_boundary = ts_darcy_smooth_pressure,
                                         .u_boundary = ts_darcy_smooth_velocity,
                                         .ctx = &beta_smooth};

static int make_mesh(int dim, double epsilon, int levels, ts_mesh *mesh) {
  static const int coarse[3] = {6, 2, 2};
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  if (epsilon <= 0) return ts_mesh_create_box(dim, lower, upper, coarse, levels, mesh);
  return ts_mesh_create_kershaw(dim, coarse, levels, epsilon, mesh);
}

int main(int argc, char **argv) {
  ts_backend b = NULL;
  if (ts_backend_open(tap_backend(), &b)) return 1;
  const int dim = argc > 1 ? atoi(argv[1]) : 2, k = argc > 2 ? atoi(argv[2]) : 1;
  const double eps = argc > 3 ? atof(argv[3]) : 0.3;
  const int levels = argc > 4 ? atoi(argv[4]) : 3;
  const unsigned faces = argc > 5 ? (unsigned)atoi(argv[5]) : (TS_FACE_LEFT | TS_FACE_TOP);
  ts_mesh mesh = NULL;
  int ierr = make_mesh(dim, eps, levels, &mesh);
  double prev[2] = {NAN, NAN};
  for (int level = 0; !ierr && level <= levels; ++level) {
    darcy_result r = {0};
    double t0 = ts_wtime();
    ierr = darcy_solve(b, mesh, level, k, &darcy_smooth, faces, &smooth_data,
                       ts_darcy_smooth_velocity, ts_darcy_smooth_pressure, TS_SOLVER_MINRES, 1e-12, &r);
    printf("%dD k=%d eps=%g level %d: u %.4e (%.2f) p %.4e (%.2f) its %d  %.1fs\n", dim, k, eps,
           level, r.error_u, log2(prev[0] / r.error_u), r.error_p, log2(prev[1] / r.error_p),
           r.iterations, ts_wtime() - t0);
    fflush(stdout);
    prev[0] = r.error_u;
    prev[1] = r.error_p;
  }
  if (ierr) printf("error: %s\n", ts_error_message());
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&b);
  return 0;
}
