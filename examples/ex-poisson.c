/* ex-poisson.c -- solve -Laplace(u) = f on the unit cube with Q_k elements through the
 * public API, and watch the error fall as the mesh is refined.
 *
 *   usage: ex-poisson [degree (default 2)] [finest level (default 4)] [backend (default omp)]
 *
 * The steps are those of every Tessera program: a backend (where the numbers live), a mesh
 * (a box with a hierarchy of levels), an element, a DoF numbering on one level, an operator
 * (here the matrix-free Laplacian), a right-hand side, and a Krylov solver. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

/* Stop on the first error, printing what went wrong (every call returns 0 on success). */
#define CHECK(call)                                                  \
  do {                                                               \
    if (call) {                                                      \
      fprintf(stderr, "ex-poisson: %s\n", ts_error_message());       \
      exit(1);                                                       \
    }                                                                \
  } while (0)

/* Solve on one level; return the L2 and H1-seminorm errors against the exact solution. */
static void solve_on_level(ts_backend backend, ts_mesh mesh, ts_fe fe, int level,
                           const ts_solution *exact, double *l2, double *h1) {
  ts_dofs dofs;
  ts_operator A, jacobi;
  ts_vec b, x, boundary_values;
  ts_solver cg;
  CHECK(ts_dofs_create(mesh, fe, level, &dofs));
  const int64_t n = ts_dofs_count(dofs);

  /* The Laplacian with Dirichlet rows on the boundary, and its diagonal as preconditioner. */
  CHECK(ts_operator_create_laplace(backend, dofs, TS_DOUBLE, &A));
  CHECK(ts_operator_create_jacobi(A, &jacobi));

  /* b = (f, phi_i) with f = -Laplace(u); the boundary values of u are lifted into b and
   * returned in boundary_values, to be added to the solution of A x = b. */
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &b));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &x));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &boundary_values));
  CHECK(ts_assemble_rhs(A, dofs, exact, b, boundary_values));

  CHECK(ts_solver_create(TS_SOLVER_CG, &cg));
  CHECK(ts_solver_set_operator(cg, A));
  CHECK(ts_solver_set_preconditioner(cg, jacobi));
  CHECK(ts_solver_set_tolerances(cg, 1e-12, 10000));
  CHECK(ts_solver_solve(cg, b, x));
  CHECK(ts_vec_axpby(1.0, boundary_values, 1.0, x));

  /* Errors are measured on the host by quadrature. */
  double *values = malloc(sizeof(double) * (size_t)n);
  if (!values) exit(1);
  CHECK(ts_vec_get_to_host(x, values));
  CHECK(ts_compute_errors(dofs, values, exact, l2, h1));
  printf("level %d: %9lld DoFs, %4d CG iterations, L2 error %.4e, H1 error %.4e", level,
         (long long)n, ts_solver_iterations(cg), *l2, *h1);
  free(values);

  ts_solver_destroy(&cg);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&boundary_values);
  ts_operator_destroy(&jacobi);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
}

int main(int argc, char **argv) {
  const int degree = argc > 1 ? atoi(argv[1]) : 2;
  const int finest = argc > 2 ? atoi(argv[2]) : 4;
  const char *backend_name = argc > 3 ? argv[3] : "omp";
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  const ts_solution *exact;
  ts_backend backend;
  ts_mesh mesh;
  ts_fe fe;

  CHECK(ts_backend_open(backend_name, &backend));
  CHECK(ts_mesh_create_box(3, lower, upper, coarse, finest, &mesh));
  CHECK(ts_fe_create_q(3, degree, &fe));
  CHECK(ts_solution_by_name("sine", &exact)); /* u = sin(pi x) sin(pi y) sin(pi z) */
  printf("Q%d on the unit cube, backend %s\n", degree, ts_backend_name(backend));

  double l2_prev = 0, h1_prev = 0;
  for (int level = 1; level <= finest; ++level) {
    double l2, h1;
    solve_on_level(backend, mesh, fe, level, exact, &l2, &h1);
    if (level > 1) /* halving h should divide the errors by 2^(k+1) and 2^k */
      printf(", rates %.2f %.2f", log2(l2_prev / l2), log2(h1_prev / h1));
    printf("\n");
    l2_prev = l2;
    h1_prev = h1;
  }
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&backend);
  return 0;
}
