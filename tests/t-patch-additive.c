/* t-patch-additive.c -- the additive vertex-patch preconditioner of mapped levels
 * (ts_operator_create_patch_additive, lib/mg/patch-additive.c; issue 13):
 * (a) exact where its Cartesian fit is exact: on a non-uniform Cartesian mesh of 2 cells
 *     per direction (one patch holds every interior DoF) with kappa a product of one factor
 *     per direction and c = 2 kappa, P A x = x to rounding, Q1..Q8 in 2D, Q1..Q4 in 3D;
 * (b) on Kershaw's mesh with a 1e6 checkerboard (where the fit is not exact) P is symmetric
 *     and positive, and its float application agrees with the double one;
 * (c) the Chebyshev smoother on P A reduces the energy norm of a random error;
 * (d) refusals: the box Laplacian, a level with 1 cell in a direction, NULL arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera.h"

/* kappa of cell (i, j, l) of a 2 x 2 (x 2) mesh: a product of one factor per direction */
static double separable_kappa(int64_t cell) {
  const double f[2] = {1.0, 100.0}, g[2] = {1.0, 0.01}, h[2] = {3.0, 1.0};
  return f[cell % 2] * g[cell / 2 % 2] * h[cell / 4 % 2];
}

/* (a) */
static void test_exact(ts_backend be, int dim, int degree) {
  const int coarse[3] = {2, 2, 2};
  const double xs[3][3] = {{0.0, 0.3, 1.0}, {0.0, 1.2, 2.0}, {0.0, 0.2, 0.5}};
  double vertices[27 * 3];
  const int nv = dim == 3 ? 27 : 9;
  for (int v = 0; v < nv; ++v)
    for (int d = 0; d < dim; ++d) vertices[v * dim + d] = xs[d][v / (d == 0 ? 1 : d == 1 ? 3 : 9) % 3];
  double kappa[8], c[8];
  for (int cell = 0; cell < 8; ++cell) {
    kappa[cell] = separable_kappa(cell);
    c[cell] = 2.0 * kappa[cell];
  }
  const ts_coefficients co = {.kappa_components = 1, .kappa = kappa, .reaction = c};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL, P = NULL;
  ts_vec x = NULL, y = NULL, z = NULL;
  double error = INFINITY, norm = 0.0;
  int ierr = ts_mesh_create_vertices(dim, coarse, 0, vertices, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, degree, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_operator_create_patch_additive(A, &P);
  const int64_t n = ierr ? 1 : ts_dofs_count(dofs);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &z);
  if (!ierr) ierr = ts_vec_set_random(x, 7);
  if (!ierr) ierr = ts_operator_apply(A, x, y);
  if (!ierr) ierr = ts_operator_apply(P, y, z);
  if (!ierr) ierr = ts_vec_axpby(-1.0, x, 1.0, z);
  if (!ierr) ierr = ts_vec_norm(z, &error);
  if (!ierr) ierr = ts_vec_norm(x, &norm);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && error <= 1e-12 * norm, "%dD Q%d, one patch of non-uniform Cartesian cells, kappa "
     "a product per direction, c = 2 kappa: |P A x - x| / |x| = %.2e", dim, degree, error / norm);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&z);
  ts_operator_destroy(&P);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* kappa = 1e6 on a checkerboard of the level's cells (blocks of 2 cells), else 1 */
static double *checkerboard(ts_mesh mesh, int level) {
  int64_t cells[3] = {1, 1, 1};
  ts_mesh_cells(mesh, level, cells);
  const int64_t n = cells[0] * cells[1] * cells[2];
  double *a = malloc(sizeof(double) * (size_t)n);
  for (int64_t cell = 0; cell < n; ++cell) {
    const int64_t i = cell % cells[0], j = cell / cells[0] % cells[1], l = cell / cells[0] / cells[1];
    a[cell] = (i / 2 + j / 2 + l / 2) % 2 ? 1e6 : 1.0;
  }
  return a;
}

/* (b) and (c) */
static void test_kershaw(ts_backend be, int dim, int degree, int level) {
  const int coarse[3] = {6, 2, 2};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL, P = NULL, Af = NULL, Pf = NULL;
  ts_smoother s = NULL;
  ts_vec x = NULL, y = NULL, px = NULL, py = NULL, xf = NULL, pf = NULL, b = NULL;
  int ierr = ts_mesh_create_kershaw(dim, coarse, level, 0.3, &mesh);
  double *kappa = ierr ? NULL : checkerboard(mesh, level);
  const ts_coefficients co = {.kappa_components = 1, .kappa = kappa};
  if (!ierr) ierr = ts_fe_create_q(dim, degree, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, level, &dofs);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_operator_create_patch_additive(A, &P);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, &co, TS_SINGLE, &Af);
  if (!ierr) ierr = ts_operator_create_patch_additive(Af, &Pf);
  const int64_t n = ierr ? 1 : ts_dofs_count(dofs);
  ts_vec *dv[] = {&x, &y, &px, &py, &pf, &b};
  for (int i = 0; i < 6 && !ierr; ++i) ierr = ts_vec_create(be, n, TS_DOUBLE, dv[i]);
  if (!ierr) ierr = ts_vec_create(be, n, TS_SINGLE, &xf);
  if (!ierr) ierr = ts_vec_set_random(x, 1);
  if (!ierr) ierr = ts_vec_set_random(y, 2);
  if (!ierr) ierr = ts_operator_apply(P, x, px);
  if (!ierr) ierr = ts_operator_apply(P, y, py);
  double xpy = 0, ypx = 0, xpx = 0, scale = 0, ppx = 0;
  if (!ierr) ierr = ts_vec_dot(x, py, &xpy);
  if (!ierr) ierr = ts_vec_dot(y, px, &ypx);
  if (!ierr) ierr = ts_vec_dot(x, px, &xpx);
  if (!ierr) ierr = ts_vec_norm(px, &ppx);
  if (!ierr) ierr = ts_vec_norm(x, &scale);
  ok(!ierr && fabs(xpy - ypx) <= 1e-12 * scale * ppx && xpx > 0,
     "%dD Q%d Kershaw 0.3, 1e6 checkerboard, level %d: x.Py - y.Px = %.2e (|x| |Px| = %.2e), "
     "x.Px = %.3e > 0", dim, degree, level, xpy - ypx, scale * ppx, xpx);
  /* the float application (float local data and vectors) against the double one */
  double diff = INFINITY;
  ts_vec xf2 = NULL;
  if (!ierr) ierr = ts_vec_create(be, n, TS_SINGLE, &xf2);
  if (!ierr) ierr = ts_vec_copy(x, xf);
  if (!ierr) ierr = ts_operator_apply(Pf, xf, xf2);
  if (!ierr) ierr = ts_vec_copy(xf2, pf);
  if (!ierr) ierr = ts_vec_axpby(-1.0, px, 1.0, pf);
  if (!ierr) ierr = ts_vec_norm(pf, &diff);
  ok(!ierr && diff <= 1e-5 * ppx, "%dD Q%d: float P x against double: |difference| / |P x| = %.2e",
     dim, degree, diff / ppx);
  /* (c) Chebyshev(3) on P A from a random start, b = 0: the error (x) shrinks */
  double before = 0, after = INFINITY;
  if (!ierr) ierr = ts_smoother_create_chebyshev_preconditioned(A, P, 3, &s);
  if (!ierr) ierr = ts_vec_set(b, 0.0);
  if (!ierr) ierr = ts_operator_apply(A, x, y);
  if (!ierr) ierr = ts_vec_dot(x, y, &before);
  for (int i = 0; i < 5 && !ierr; ++i) ierr = ts_smoother_apply(s, b, x);
  if (!ierr) ierr = ts_operator_apply(A, x, y);
  if (!ierr) ierr = ts_vec_dot(x, y, &after);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && sqrt(after) < 0.1 * sqrt(before), "%dD Q%d: 5 Chebyshev(3) steps on P A reduce the "
     "energy norm of a random error by %.3f (< 0.1)", dim, degree, sqrt(after / before));
  ok(!ierr && !strcmp(ts_smoother_name(s), "chebyshev"), "the smoother is named chebyshev");
  ts_smoother_destroy(&s);
  ts_vec_destroy(&xf2);
  for (int i = 0; i < 6; ++i) ts_vec_destroy(dv[i]);
  ts_vec_destroy(&xf);
  ts_operator_destroy(&Pf);
  ts_operator_destroy(&Af);
  ts_operator_destroy(&P);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  free(kappa);
}

/* (d) */
static void test_refusals(ts_backend be) {
  const int coarse[2] = {1, 2};
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  ts_mesh mesh = NULL, box = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL, box_dofs = NULL;
  ts_operator A = NULL, L = NULL, P = (ts_operator)1;
  ts_mesh_create_kershaw(2, (const int[2]){6, 2}, 0, 0.3, &mesh);
  ts_mesh_create_box(2, lower, upper, (const int[2]){2, 2}, 0, &box);
  ts_fe_create_q(2, 2, &fe);
  ts_dofs_create(box, fe, 0, &box_dofs);
  ts_operator_create_laplace(be, box_dofs, TS_DOUBLE, &L);
  int code = ts_operator_create_patch_additive(L, &P);
  ok(code == TS_ERR_ARG && P == NULL && strstr(ts_error_message(), "ts_operator_create_mapped is required"),
     "the box Laplacian is refused: %s", ts_error_message());
  ts_mesh_destroy(&mesh);
  /* one cell in direction 0: no interior vertex */
  const double line[2 * 2 * 3] = {0, 0, 1, 0, 0, 0.5, 1, 0.5, 0, 1, 1, 1};
  ts_mesh_create_vertices(2, coarse, 0, line, &mesh);
  ts_dofs_create(mesh, fe, 0, &dofs);
  ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &A);
  code = ts_operator_create_patch_additive(A, &P);
  ok(code == TS_ERR_ARG && strstr(ts_error_message(), "1 cell(s) in direction 0"),
     "a level of 1 cell in a direction is refused: %s", ts_error_message());
  ok(ts_operator_create_patch_additive(NULL, &P) == TS_ERR_ARG &&
         ts_operator_create_patch_additive(A, NULL) == TS_ERR_ARG,
     "NULL arguments are refused");
  ts_smoother s = (ts_smoother)1;
  ok(ts_smoother_create_chebyshev_preconditioned(A, NULL, 3, &s) == TS_ERR_ARG && s == NULL &&
         ts_smoother_create_chebyshev_preconditioned(A, L, 3, &s) == TS_ERR_ARG &&
         strstr(ts_error_message(), "does not fit the operator"),
     "Chebyshev refuses a NULL preconditioner and one of another size: %s", ts_error_message());
  ts_operator_destroy(&A);
  ts_operator_destroy(&L);
  ts_dofs_destroy(&dofs);
  ts_dofs_destroy(&box_dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&box);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be = NULL;
  plan(8 + 4 + 2 * 4 + 4);
  if (ts_backend_open(tap_backend(), &be)) {
    plan_skip_all("the backend does not open");
    return 0;
  }
  for (int k = 1; k <= 8; ++k) test_exact(be, 2, k);
  for (int k = 1; k <= 4; ++k) test_exact(be, 3, k);
  test_kershaw(be, 2, 3, 2);
  test_kershaw(be, 3, 2, 1);
  test_refusals(be);
  ts_backend_destroy(&be);
  return exit_status();
}
