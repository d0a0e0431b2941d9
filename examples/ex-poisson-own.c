/* ex-poisson-own.c -- your own problem: -div(kappa grad u) + c u = f on Kershaw's mesh (the
 * unit square deformed, epsilon = 0.3), with kappa, c, f, the boundary values g on the left
 * and bottom faces and the flux h = kappa grad u . n on the right and top faces (Neumann
 * faces) your own, given as C callbacks with a context pointer; the error against the exact
 * solution falls with the optimal rates as the mesh is refined.
 *
 *   usage: ex-poisson-own [degree (default 2)] [finest level (default 4)] [epsilon (0.3)]
 *
 * The steps: a mapped mesh, an element and its DoFs on a level with their Neumann faces,
 * the coefficients per cell, the operator on the mapped cells, the right side from f, g and
 * h, CG with Jacobi, and the errors.  doc/user-guide.md, "Your own problem". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

#define CHECK(call)                                                  \
  do {                                                               \
    if (call) {                                                      \
      fprintf(stderr, "ex-poisson-own: %s\n", ts_error_message());   \
      exit(1);                                                       \
    }                                                                \
  } while (0)

/* The problem, the context of every callback: u = sin(pi x) exp(y), so
 * -div(kappa grad u) + c u = (kappa (pi^2 - 1) + c) u. */
typedef struct problem {
  double kappa, c;
} problem;

static const double pi = 3.14159265358979323846;

/* Callbacks get a batch of points (count of them, dim coordinates each) and must be safe to
 * call from several threads at once: they only read the problem. */
static int exact(void *ctx, int dim, int64_t count, const double *x, double *u) {
  for (int64_t i = 0; i < count; ++i) u[i] = sin(pi * x[i * dim]) * exp(x[i * dim + 1]);
  return 0;
}

static int exact_gradient(void *ctx, int dim, int64_t count, const double *x, double *g) {
  for (int64_t i = 0; i < count; ++i) {
    const double e = exp(x[i * dim + 1]);
    g[i * dim] = pi * cos(pi * x[i * dim]) * e;
    g[i * dim + 1] = sin(pi * x[i * dim]) * e;
  }
  return 0;
}

static int rhs(void *ctx, int dim, int64_t count, const double *x, double *f) {
  const problem *p = ctx;
  exact(ctx, dim, count, x, f);
  for (int64_t i = 0; i < count; ++i) f[i] *= p->kappa * (pi * pi - 1.0) + p->c;
  return 0;
}

/* The outward flux kappa grad u . n on the Neumann faces: Kershaw's map keeps the square's
 * sides, so a point with x = 1 is on the right face (n = (1, 0)), else on the top (y = 1). */
static int flux(void *ctx, int dim, int64_t count, const double *x, double *h) {
  const problem *p = ctx;
  for (int64_t i = 0; i < count; ++i) {
    const double *y = x + i * dim, e = exp(y[1]);
    h[i] = p->kappa * (fabs(y[0] - 1.0) < 1e-12 ? pi * cos(pi * y[0]) * e : sin(pi * y[0]) * e);
  }
  return 0;
}

static void solve_on_level(ts_backend backend, ts_mesh mesh, ts_fe fe, int level, problem *p,
                           double *l2, double *h1) {
  ts_dofs dofs;
  ts_operator A;
  ts_pc jacobi;
  ts_vec b, x, boundary_values;
  ts_solver cg;
  int64_t cells[2];
  CHECK(ts_dofs_create(mesh, fe, level, &dofs));
  CHECK(ts_dofs_set_neumann_faces(dofs, TS_FACE_RIGHT | TS_FACE_TOP)); /* Dirichlet elsewhere */
  CHECK(ts_mesh_cells(mesh, level, cells));
  const int64_t n = ts_dofs_count(dofs), count = cells[0] * cells[1];

  /* kappa and c per cell (here the same in every cell; any positive values work) */
  double *kappa = malloc(sizeof(double) * (size_t)count), *c = malloc(sizeof(double) * (size_t)count);
  double *values = malloc(sizeof(double) * (size_t)n);
  if (!kappa || !c || !values) exit(1);
  for (int64_t i = 0; i < count; ++i) {
    kappa[i] = p->kappa;
    c[i] = p->c;
  }
  const ts_coefficients coefficients = {.kappa_components = 1, .kappa = kappa, .reaction = c};
  CHECK(ts_operator_create_mapped(backend, dofs, &coefficients, TS_DOUBLE, &A));
  CHECK(ts_pc_create_jacobi(A, &jacobi));

  /* b = (f, phi_i) on the mapped cells, the boundary values g = u on the Dirichlet faces
   * lifted into b, and (h, phi_i) on the Neumann faces */
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &b));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &x));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &boundary_values));
  CHECK(ts_assemble_rhs_mapped(A, rhs, exact, p, b, boundary_values));
  CHECK(ts_assemble_neumann_mapped(A, flux, p, b));

  CHECK(ts_solver_create(TS_SOLVER_CG, &cg));
  CHECK(ts_solver_set_operator(cg, A));
  CHECK(ts_solver_set_pc(cg, jacobi));
  CHECK(ts_solver_set_tolerances(cg, 1e-12, 20000));
  CHECK(ts_solver_solve(cg, b, x));
  CHECK(ts_vec_axpby(1.0, boundary_values, 1.0, x));

  CHECK(ts_vec_get_to_host(x, values));
  CHECK(ts_compute_errors_mapped(dofs, values, exact, exact_gradient, p, l2, h1));
  printf("level %d: %7lld DoFs, %4d CG iterations, L2 error %.4e, H1 error %.4e", level,
         (long long)n, ts_solver_iterations(cg), *l2, *h1);
  /* everything in the reverse order of its creation */
  ts_solver_destroy(&cg);
  ts_vec_destroy(&boundary_values);
  ts_vec_destroy(&x);
  ts_vec_destroy(&b);
  ts_pc_destroy(&jacobi);
  ts_operator_destroy(&A);
  free(values);
  free(c);
  free(kappa);
  ts_dofs_destroy(&dofs);
}

int main(int argc, char **argv) {
  const int degree = argc > 1 ? atoi(argv[1]) : 2;
  const int finest = argc > 2 ? atoi(argv[2]) : 4;
  const double epsilon = argc > 3 ? atof(argv[3]) : 0.3;
  const int coarse[2] = {6, 2}; /* Kershaw's map needs 6m x 2m cells */
  problem p = {3.0, 1.0};
  ts_backend backend;
  ts_mesh mesh;
  ts_fe fe;

  CHECK(ts_backend_open("omp", &backend));
  CHECK(ts_mesh_create_kershaw(2, coarse, finest, epsilon, &mesh));
  CHECK(ts_fe_create_q(2, degree, &fe));
  printf("Q%d on Kershaw's mesh, epsilon %g, kappa %g, c %g\n", degree, epsilon, p.kappa, p.c);
  double l2[31], h1[31]; /* per level (a mesh has at most 30 refinements) */
  for (int level = 1; level <= finest; ++level) {
    solve_on_level(backend, mesh, fe, level, &p, &l2[level], &h1[level]);
    if (level > 1) /* halving h divides the errors by 2^(k+1) and 2^k */
      printf(", rates %.2f %.2f", log2(l2[level - 1] / l2[level]), log2(h1[level - 1] / h1[level]));
    printf("\n");
  }
  ts_mesh_destroy(&mesh);
  ts_fe_destroy(&fe);
  ts_backend_destroy(&backend);
  return 0;
}
