/* t-boomeramg.c -- hypre's BoomerAMG as a preconditioner (ts_operator_create_boomeramg) for
 * CG on the Poisson problem, Q1 assembled (ts_matrix_assemble_laplace) on the unit square and
 * cube with f = 1, refined over four levels: the CG iterations stay bounded (at most 15, growing by at
 * most 2 from one level to the next), and the solution equals the one of CG with Jacobi to
 * the tolerance; the V-cycle is a symmetric operator (x . P y = y . P x); a non-square matrix
 * is refused.  Built without hypre: the function reports TS_ERR_UNSUPPORTED and the rest is
 * skipped.  Backend-generic: TESSERA_TEST_BACKEND (default omp). */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera.h"

#define LEVELS 4
#define RTOL 1e-12
#define MAX_ITERATIONS_AMG 15
#define MAX_GROWTH_AMG 2

/* CG on A x = b from x = 0 with preconditioner P; the iterations, or -1 on failure */
static int solve(ts_operator A, ts_operator P, ts_vec b, ts_vec x) {
  ts_solver cg = NULL;
  int ierr = ts_solver_create(TS_SOLVER_CG, &cg);
  if (!ierr) ierr = ts_solver_set_operator(cg, A);
  if (!ierr) ierr = ts_solver_set_preconditioner(cg, P);
  if (!ierr) ierr = ts_solver_set_tolerances(cg, RTOL, 2000);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_solve(cg, b, x);
  const int iterations = ierr ? -1 : ts_solver_iterations(cg);
  if (ierr) diag("%s", ts_error_message());
  ts_solver_destroy(&cg);
  return iterations;
}

static double relative_difference(ts_vec a, ts_vec b) {
  const int64_t n = ts_vec_size(a);
  double *ha = malloc(sizeof(double) * n), *hb = malloc(sizeof(double) * n);
  double num = 0.0, den = 0.0;
  if (!ts_vec_get_to_host(a, ha) && !ts_vec_get_to_host(b, hb))
    for (int64_t i = 0; i < n; ++i) {
      num += (ha[i] - hb[i]) * (ha[i] - hb[i]);
      den += hb[i] * hb[i];
    }
  free(ha);
  free(hb);
  return den > 0.0 ? sqrt(num / den) : INFINITY;
}

/* |x . P y - y . P x| / (|x| |P y|) for random x, y */
static double asymmetry(ts_backend backend, ts_operator P) {
  const int64_t n = ts_operator_size(P);
  ts_vec x = NULL, y = NULL, px = NULL, py = NULL;
  double xpy = 0, ypx = 0, nx = 0, npy = 0;
  int ierr = ts_vec_create(backend, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &px);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &py);
  if (!ierr) ierr = ts_vec_set_random(x, 3);
  if (!ierr) ierr = ts_vec_set_random(y, 5);
  if (!ierr) ierr = ts_operator_apply(P, x, px);
  if (!ierr) ierr = ts_operator_apply(P, y, py);
  if (!ierr) ierr = ts_vec_dot(x, py, &xpy);
  if (!ierr) ierr = ts_vec_dot(y, px, &ypx);
  if (!ierr) ierr = ts_vec_norm(x, &nx);
  if (!ierr) ierr = ts_vec_norm(py, &npy);
  if (ierr) diag("%s", ts_error_message());
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&px);
  ts_vec_destroy(&py);
  return ierr ? INFINITY : fabs(xpy - ypx) / (nx * npy);
}

/* One level: CG + BoomerAMG and CG + Jacobi on the matrix-free Q1 Laplacian; returns the
 * BoomerAMG iterations (-1 on failure). */
static int run_level(ts_backend backend, ts_mesh mesh, ts_fe fe, int dim, int level) {
  ts_dofs dofs = NULL;
  ts_matrix A = NULL;
  ts_operator laplace = NULL, amg = NULL, jacobi = NULL;
  ts_vec b = NULL, x0 = NULL, x_amg = NULL, x_jacobi = NULL;
  int ierr = ts_dofs_create(mesh, fe, level, &dofs);
  const int64_t n = ierr ? 0 : ts_dofs_count(dofs);
  if (!ierr) ierr = ts_operator_create_laplace(backend, dofs, TS_DOUBLE, &laplace);
  if (!ierr) ierr = ts_matrix_assemble_laplace(dofs, &A);
  if (!ierr) ierr = ts_operator_create_boomeramg(backend, A, &amg);
  if (!ierr) ierr = ts_operator_create_jacobi(laplace, &jacobi);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &x_amg);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &x_jacobi);
  /* f = 1 (not the sine, whose load vector is an eigenvector of the Q1 matrix on a uniform
   * mesh: CG + Jacobi would converge in one step) */
  if (!ierr) ierr = ts_assemble_rhs(laplace, dofs, ts_rhs_one(), b, x0);
  if (ierr) diag("%dD level %d: %s", dim, level, ts_error_message());
  const int iterations = ierr ? -1 : solve(laplace, amg, b, x_amg);
  const int jacobi_iterations = ierr ? -1 : solve(laplace, jacobi, b, x_jacobi);
  const double difference = ierr ? INFINITY : relative_difference(x_amg, x_jacobi);
  /* both solves reach RTOL: the solutions differ by at most about cond(A) RTOL, and cond(A)
   * < 1000 on these levels (4 / (pi h)^2, h >= 1/32) */
  ok(iterations > 0 && jacobi_iterations > 0 && difference <= 1000 * RTOL,
     "%dD Q1 level %d (%lld DoFs): CG + BoomerAMG %d iterations, CG + Jacobi %d, solutions "
     "differ by %.2e", dim, level, (long long)n, iterations, jacobi_iterations, difference);
  if (level == 2) {
    const double a = amg ? asymmetry(backend, amg) : INFINITY;
    ok(a <= 1e-12, "%dD: the V-cycle is symmetric: |x.Py - y.Px| / (|x| |Py|) = %.2e", dim, a);
  }
  ts_vec_destroy(&b);
  ts_vec_destroy(&x0);
  ts_vec_destroy(&x_amg);
  ts_vec_destroy(&x_jacobi);
  ts_operator_destroy(&jacobi);
  ts_operator_destroy(&amg);
  ts_operator_destroy(&laplace);
  ts_matrix_destroy(&A);
  ts_dofs_destroy(&dofs);
  return iterations;
}

static void test_poisson(ts_backend backend, int dim) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {2, 2, 2};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, LEVELS, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, 1, &fe);
  if (ierr) diag("%s", ts_error_message());
  int previous = -1;
  for (int level = 1; level <= LEVELS; ++level) {
    const int iterations = ierr ? -1 : run_level(backend, mesh, fe, dim, level);
    ok(iterations > 0 && iterations <= MAX_ITERATIONS_AMG &&
           (previous < 0 || iterations <= previous + MAX_GROWTH_AMG),
       "%dD level %d: %d BoomerAMG iterations, at most %d and at most %d more than the "
       "previous level's %d", dim, level, iterations, MAX_ITERATIONS_AMG, MAX_GROWTH_AMG,
       previous);
    previous = iterations;
  }
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

static void test_not_square(ts_backend backend) {
  const int64_t i[1] = {0}, j[1] = {1};
  const double v[1] = {1.0};
  ts_matrix A = NULL;
  ts_operator P = NULL;
  if (ts_matrix_create_triplets(2, 3, 1, i, j, v, &A)) diag("%s", ts_error_message());
  const int ierr = ts_operator_create_boomeramg(backend, A, &P);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "'A'") && P == NULL,
     "a 2 x 3 matrix: TS_ERR_ARG naming 'A': %s", ts_error_message());
  ts_matrix_destroy(&A);
}

int main(void) {
  ts_backend backend = NULL;
  if (ts_backend_open(tap_backend(), &backend)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  if (!*ts_hypre_version()) {
    const int64_t i[1] = {0};
    const double v[1] = {1.0};
    ts_matrix A = NULL;
    ts_operator P = NULL;
    plan(2);
    const int created = ts_matrix_create_triplets(1, 1, 1, i, i, v, &A);
    const int ierr = created ? created : ts_operator_create_boomeramg(backend, A, &P);
    ok(ierr == TS_ERR_UNSUPPORTED && strstr(ts_error_message(), "--with-hypre"),
       "built without hypre: TS_ERR_UNSUPPORTED saying configure --with-hypre: %s",
       ts_error_message());
    skip(1, "the BoomerAMG solves: built without hypre (configure --with-hypre)");
    ts_matrix_destroy(&A);
    ts_backend_destroy(&backend);
    return exit_status();
  }
  diag("hypre %s", ts_hypre_version());
  test_not_square(backend);
  test_poisson(backend, 2);
  test_poisson(backend, 3);
  done_testing();
  ts_backend_destroy(&backend);
  return exit_status();
}
