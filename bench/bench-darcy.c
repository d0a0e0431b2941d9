/* bench-darcy.c -- MINRES iteration counts of paper 003's Darcy and grad-div test problems on
 * box meshes (doc/hdiv.md), with MINRES + diag(Jacobi(M_beta), BoomerAMG(S~)) to 1e-12 in the
 * preconditioned norm; prints markdown table rows.
 *   bench-darcy cartesian DIM KMIN-KMAX LEVELS  Figure 7: the smooth Darcy solution, every
 *                                 flux prescribed, 2^dim coarse cells, levels 0..LEVELS
 *   bench-darcy pipe DIM KMIN-KMAX LEVEL        Tables 2-3: the crooked-pipe grad-div problem
 *   bench-darcy spe10 KMIN-KMAX NX NY NZ        section 4.3: SPE10-like Darcy, NX x NY x NZ cells
 * (Figure 8, the parts of an iteration, is `tessera bench --problem darcy`.)  The backend
 * is TESSERA_BENCH_BACKEND's (default omp).
 * KMIN-KMAX are RT degrees k (the paper's p = k + 1).  M_beta is matrix-free unless
 * TESSERA_BENCH_MASS=assembled (the CSR matrix, ts_hdiv_system_set_assembled_mass); the
 * cartesian rows give the whole time and the MINRES solve's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench-common.h"

typedef struct problem {
  ts_hdiv_coefficients coefficients;
  ts_hdiv_data data;
  unsigned flux_faces;
} problem;

static double solve_seconds; /* the last solve's MINRES alone */

/* one solve on level `level`: MINRES iterations (-1 on failure), DoFs and seconds */
static int solve(ts_backend b, ts_mesh mesh, int level, int k, const problem *pr, int64_t *dofs,
                 double *seconds) {
  const int dim = ts_mesh_dim(mesh);
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_hdiv_system s = NULL;
  double *rhs = NULL, *x = NULL, *x0 = NULL;
  int iterations = -1;
  const double t0 = ts_wtime();
  int ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
  if (!ierr) ierr = ts_hdiv_system_create(b, u, p, &pr->coefficients, pr->flux_faces, &s);
  const char *mass = getenv("TESSERA_BENCH_MASS");
  if (!ierr && mass && !strcmp(mass, "assembled")) ierr = ts_hdiv_system_set_assembled_mass(s, 1);
  const int64_t n = ierr ? 0 : ts_dofs_count(u) + ts_dofs_count(p);
  if (!ierr) {
    rhs = calloc((size_t)n, sizeof *rhs);
    x = calloc((size_t)n, sizeof *x);
    x0 = calloc((size_t)n, sizeof *x0);
    ierr = rhs && x && x0 ? 0 : TS_ERR_MEMORY;
  }
  if (!ierr) ierr = ts_hdiv_system_rhs(s, &pr->data, rhs, x0);
  const double t1 = ts_wtime();
  if (!ierr) ierr = ts_hdiv_system_solve(s, TS_SOLVER_MINRES, 1e-12, 5000, rhs, x, &iterations);
  solve_seconds = ts_wtime() - t1;
  *seconds = ts_wtime() - t0;
  *dofs = n;
  if (ierr) fprintf(stderr, "bench-darcy: %s\n", ts_error_message());
  free(rhs);
  free(x);
  free(x0);
  ts_hdiv_system_destroy(&s);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  return ierr ? -1 : iterations;
}

static double beta_one = 1.0;

static int cartesian(ts_backend b, int dim, int kmin, int kmax, int levels) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse[3] = {2, 2, 2};
  const problem pr = {{INFINITY, 1.0, NULL, NULL},
                      {.g = ts_darcy_smooth_divergence, .u_boundary = ts_darcy_smooth_velocity,
                       .ctx = &beta_one},
                      TS_FACES_ALL(dim)};
  ts_mesh mesh = NULL;
  if (ts_mesh_create_box(dim, lower, upper, coarse, levels, &mesh)) return 1;
  for (int k = kmin; k <= kmax; ++k) {
    printf("| %dD p = %d |", dim, k + 1);
    for (int level = 0; level <= levels; ++level) {
      int64_t n;
      double t;
      const int its = solve(b, mesh, level, k, &pr, &n, &t);
      printf(" %d (%lld DoFs, %.2f s, MINRES %.2f s) |", its, (long long)n, t, solve_seconds);
      fflush(stdout);
    }
    printf("\n");
  }
  ts_mesh_destroy(&mesh);
  return 0;
}

/* the constant vector *ctx (dim values) at every point */
static int constant_vector(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)x;
  for (int64_t q = 0; q < count; ++q)
    for (int d = 0; d < dim; ++d) v[q * dim + d] = ((const double *)ctx)[d];
  return 0;
}

/* the values per cell of a level: crooked-pipe materials or a log-normal permeability */
static double *cell_array(ts_mesh mesh, int level) {
  int64_t cells[3] = {1, 1, 1};
  if (ts_mesh_cells(mesh, level, cells)) return NULL;
  return malloc((size_t)(cells[0] * cells[1] * cells[2]) * sizeof(double));
}

/* grad-div, beta u - grad(alpha div u) = (1, 0, 0), every flux an unknown (natural
 * condition div u = 0), alpha and beta of the two materials */
static int pipe(ts_backend b, int dim, int kmin, int kmax, int level) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {7, 2, 1};
  static const int coarse[3] = {14, 4, 2};
  static double f_x[3] = {1, 0, 0};
  ts_mesh mesh = NULL;
  if (ts_mesh_create_box(dim, lower, upper, coarse, level, &mesh)) return 1;
  double *alpha = cell_array(mesh, level), *beta = cell_array(mesh, level);
  int ierr = alpha && beta ? ts_cell_values_crooked_pipe(mesh, level, 1.641, 1.88e-3, alpha) : 1;
  if (!ierr) ierr = ts_cell_values_crooked_pipe(mesh, level, 0.2, 2000.0, beta);
  const problem pr = {{1.0, 1.0, alpha, beta}, {.f = constant_vector, .ctx = f_x}, 0};
  for (int k = kmin; !ierr && k <= kmax; ++k) {
    int64_t dofs;
    double t;
    const int its = solve(b, mesh, level, k, &pr, &dofs, &t);
    printf("| %dD pipe p = %d | %d | %lld | %.2f s |\n", dim, k + 1, its, (long long)dofs, t);
    fflush(stdout);
  }
  free(alpha);
  free(beta);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* Darcy kappa u + grad p = 0, div u = 0 on [0,1200] x [0,2200] x [0,170], kappa = 1 / K the
 * inverse of a log-normal permeability of contrast 1e7, u . n = (1, 0, 0) . n on every face
 * (section 4.3: S~ singular, orthogonalized) */
static int spe10(ts_backend b, int kmin, int kmax, const int *coarse) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1200, 2200, 170};
  static double u_x[3] = {1, 0, 0};
  ts_mesh mesh = NULL;
  int64_t cells[3] = {coarse[0], coarse[1], coarse[2]};
  if (ts_mesh_create_box(3, lower, upper, coarse, 0, &mesh)) return 1;
  double *kappa = cell_array(mesh, 0);
  int ierr = kappa ? ts_cell_values_lognormal(3, cells, 1e7, 2026, kappa) : 1;
  for (int64_t c = 0; !ierr && c < cells[0] * cells[1] * cells[2]; ++c) kappa[c] = 1.0 / kappa[c];
  const problem pr = {{INFINITY, 1.0, NULL, kappa}, {.u_boundary = constant_vector, .ctx = u_x},
                      TS_FACES_ALL(3)};
  for (int k = kmin; !ierr && k <= kmax; ++k) {
    int64_t dofs;
    double t;
    const int its = solve(b, mesh, 0, k, &pr, &dofs, &t);
    printf("| SPE10-like %dx%dx%d p = %d | %d | %lld | %.2f s |\n", coarse[0], coarse[1],
           coarse[2], k + 1, its, (long long)dofs, t);
    fflush(stdout);
  }
  free(kappa);
  ts_mesh_destroy(&mesh);
  return ierr;
}

static int usage(void) {
  fprintf(stderr, "usage: bench-darcy cartesian DIM KMIN-KMAX LEVELS | pipe DIM KMIN-KMAX LEVEL | "
                  "spe10 KMIN-KMAX NX NY NZ\n");
  return 2;
}

int main(int argc, char **argv) {
  ts_backend b = NULL;
  int kmin = 0, kmax = 0;
  if (argc < 4) return usage();
  const char *backend = getenv("TESSERA_BENCH_BACKEND");
  if (ts_backend_open(backend ? backend : "omp", &b)) {
    fprintf(stderr, "bench-darcy: %s\n", ts_error_message());
    return 1;
  }
  int ierr = 2;
  if (!strcmp(argv[1], "spe10") && argc == 6) {
    bench_parse_degrees(argv[2], &kmin, &kmax);
    const int coarse[3] = {atoi(argv[3]), atoi(argv[4]), atoi(argv[5])};
    ierr = spe10(b, kmin, kmax, coarse);
  } else if (argc == 5) {
    bench_parse_degrees(argv[3], &kmin, &kmax);
    if (!strcmp(argv[1], "cartesian"))
      ierr = cartesian(b, atoi(argv[2]), kmin, kmax, atoi(argv[4]));
    if (!strcmp(argv[1], "pipe")) ierr = pipe(b, atoi(argv[2]), kmin, kmax, atoi(argv[4]));
  }
  ts_backend_destroy(&b);
  return ierr == 2 ? usage() : ierr;
}
