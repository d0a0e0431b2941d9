/* t-l2-mass-inverse.c -- the L2 (DGQ_k) mass and its inverse of paper 003, sections 2.5 and
 * 3.1 (ts_operator_create_l2_mass, ts_operator_create_l2_mass_inverse).  For every method
 * (explicit, Cholesky where the backend has it, CG in the Gauss-Legendre and Gauss-Lobatto
 * bases), k = 1..8 in 3D and 2D, on a box, on Kershaw's mesh (epsilon 0.5) and on one skewed
 * multilinear cell: W (W^{-1} x) = x for random x to 100 times the CG tolerance (the direct
 * methods to 1e-12); the explicit inverse and the Cholesky solves agree to 1e-12; the
 * histopolation basis (ts_fe_create_l2_ih) through the change of basis; 1^T W 1 = |Omega| = 1
 * on Kershaw's unit box; on the box the histopolation mass equals the assembled
 * ts_matrix_assemble_mass and the Gauss-Legendre mass is diagonal (CG-Legendre: 1 iteration
 * on every cell); the Legendre CG iterations on Kershaw's mesh within the bounds measured
 * (doc/hdiv.md, "DG mass inverse") and fewer than the Lobatto ones; the refusals of bad
 * arguments.  Backend-generic: TESSERA_TEST_BACKEND. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "expect-error.h"
#include "tessera.h"

static ts_backend backend;
static int is_omp;

/* ---------------------------------------------------------------- meshes */

enum { BOX, KERSHAW, SKEWED };
static const char *const mesh_names[] = {"box", "Kershaw 0.5", "skewed cell"};

/* A small mesh of each kind: the box [0,1] x [0,2] (x [0,1]) of 2 x 1 (x 1) cells, Kershaw's
 * mesh of 6 x 2 (x 2) cells, one trilinear (bilinear) cell with non-constant det J. */
static int make_mesh(int dim, int kind, ts_mesh *mesh) {
  static const int coarse_box[3] = {2, 1, 1}, coarse_kershaw[3] = {6, 2, 2}, one[3] = {1, 1, 1};
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 2, 1};
  static const double skewed2[8] = {0, 0, 1, 0.1, 0.2, 1.1, 1.4, 1.6};
  static const double skewed3[24] = {0, 0, 0, 1, 0.1, 0, 0.2, 1.1, 0.1, 1.4, 1.6, 0.2,
                                     0.1, 0, 1, 1.2, 0.2, 0.9, 0.3, 1.2, 1.3, 1.5, 1.4, 1.6};
  if (kind == BOX) return ts_mesh_create_box(dim, lower, upper, coarse_box, 0, mesh);
  if (kind == KERSHAW) return ts_mesh_create_kershaw(dim, coarse_kershaw, 0, 0.5, mesh);
  return ts_mesh_create_vertices(dim, one, 0, dim == 3 ? skewed3 : skewed2, mesh);
}

/* ---------------------------------------------------------------- helpers */

static double relative_difference(ts_vec a, ts_vec b) {
  const int64_t n = ts_vec_size(a);
  double *ha = malloc((size_t)n * sizeof *ha), *hb = malloc((size_t)n * sizeof *hb);
  double diff = 0.0, norm = 0.0;
  if (ha && hb && !ts_vec_get_to_host(a, ha) && !ts_vec_get_to_host(b, hb))
    for (int64_t i = 0; i < n; ++i) {
      diff += (ha[i] - hb[i]) * (ha[i] - hb[i]);
      norm += hb[i] * hb[i];
    }
  else
    diff = INFINITY;
  free(ha);
  free(hb);
  return sqrt(diff / norm);
}

static ts_operator make_inverse(ts_dofs dofs, ts_mass_inverse_method method, double tol) {
  ts_mass_inverse_options o;
  ts_mass_inverse_options_default(&o);
  o.method = method;
  o.tolerance = tol;
  ts_operator W_inv = NULL;
  if (ts_operator_create_l2_mass_inverse(backend, dofs, NULL, &o, &W_inv))
    diag("%s: %s", ts_mass_inverse_method_name(method), ts_error_message());
  return W_inv;
}

/* ---------------------------------------------------------------- W W^{-1} = I */

/* Every method's W (W^{-1} x) = x on one mesh, degree and element; the explicit inverse
 * against the Cholesky solves. */
static void test_identity(int dim, int kind, int k, int histopolation) {
  const double tol = 1e-12;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator W = NULL;
  ts_vec x = NULL, y = NULL, z = NULL, y_explicit = NULL;
  int ierr = make_mesh(dim, kind, &mesh);
  if (!ierr) ierr = histopolation ? ts_fe_create_l2_ih(dim, k, &fe) : ts_fe_create_dgq(dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  if (!ierr) ierr = ts_operator_create_l2_mass(backend, dofs, NULL, &W);
  const int64_t n = ierr ? 1 : ts_dofs_count(dofs);
  ts_vec *vecs[] = {&x, &y, &z, &y_explicit};
  for (int v = 0; v < 4 && !ierr; ++v) ierr = ts_vec_create(backend, n, TS_DOUBLE, vecs[v]);
  if (!ierr) ierr = ts_vec_set_random(x, 17 + k);
  if (ierr) diag("setup: %s", ts_error_message());
  /* the direct methods with 1e-11 only where the blocks are large (k >= 6 in 3D: n >= 343) */
  const int dense_ok = dim == 2 || k <= 4 || kind != KERSHAW;
  for (int m = TS_MASS_INVERSE_EXPLICIT; m <= TS_MASS_INVERSE_CG_LOBATTO; ++m) {
    const int direct = m == TS_MASS_INVERSE_EXPLICIT || m == TS_MASS_INVERSE_CHOLESKY;
    if (direct && !dense_ok) continue; /* 24 dense blocks of 729^2: seconds, not a unit test */
    if (m == TS_MASS_INVERSE_CHOLESKY && !is_omp) continue; /* test_arguments: refused */
    ts_operator W_inv = ierr ? NULL : make_inverse(dofs, (ts_mass_inverse_method)m, tol);
    ts_vec out = m == TS_MASS_INVERSE_EXPLICIT ? y_explicit : y;
    int rc = !W_inv || ts_operator_apply(W_inv, x, out) || ts_operator_apply(W, out, z);
    const double err = rc ? INFINITY : relative_difference(z, x);
    const double bound = direct ? 1e-12 : 100.0 * tol;
    ok(err <= bound, "%dD %s%s k = %d, %s: |W W^-1 x - x| / |x| = %.2e <= %.0e", dim,
       mesh_names[kind], histopolation ? " (histopolation basis)" : "", k,
       ts_mass_inverse_method_name((ts_mass_inverse_method)m), err, bound);
    if (m == TS_MASS_INVERSE_CHOLESKY) {
      const double d = rc ? INFINITY : relative_difference(y, y_explicit);
      ok(d <= 1e-12, "%dD %s k = %d: explicit inverse and Cholesky agree: %.2e <= 1e-12", dim,
         mesh_names[kind], k, d);
    }
    ts_operator_destroy(&W_inv);
  }
  for (int v = 0; v < 4; ++v) ts_vec_destroy(vecs[v]);
  ts_operator_destroy(&W);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- exactness */

/* 1^T W 1 = alpha |Omega| for the Gauss-Legendre nodal DGQ_k (the constant 1 has all its
 * values 1): on Kershaw's mesh of the unit box, with alpha = 2 on every cell. */
static void test_volume(int dim, int k) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator W = NULL;
  ts_vec one = NULL, w = NULL;
  double alpha[24], volume = NAN;
  for (int c = 0; c < 24; ++c) alpha[c] = 2.0;
  int ierr = make_mesh(dim, KERSHAW, &mesh);
  if (!ierr) ierr = ts_fe_create_dgq(dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  if (!ierr) ierr = ts_operator_create_l2_mass(backend, dofs, alpha, &W);
  if (!ierr) ierr = ts_vec_create(backend, ts_dofs_count(dofs), TS_DOUBLE, &one);
  if (!ierr) ierr = ts_vec_create(backend, ts_dofs_count(dofs), TS_DOUBLE, &w);
  if (!ierr) ierr = ts_vec_set(one, 1.0);
  if (!ierr) ierr = ts_operator_apply(W, one, w);
  if (!ierr) ierr = ts_vec_dot(one, w, &volume);
  if (ierr) diag("%s", ts_error_message());
  ok(fabs(volume - 2.0) <= 1e-13, "%dD Kershaw k = %d: 1^T W_alpha 1 = %.15f = alpha |Omega| = 2",
     dim, k, volume);
  ts_vec_destroy(&one);
  ts_vec_destroy(&w);
  ts_operator_destroy(&W);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* On the box: the histopolation mass equals ts_matrix_assemble_mass (applied on the
 * backend), and the Gauss-Legendre mass is diagonal, so CG-Legendre takes one iteration on
 * every cell. */
static void test_box(int dim, int k) {
  ts_mesh mesh = NULL;
  ts_fe ih = NULL, dgq = NULL;
  ts_dofs dofs_ih = NULL, dofs_dgq = NULL;
  ts_matrix M = NULL;
  ts_operator W = NULL, A = NULL, W_inv = NULL;
  ts_vec x = NULL, y = NULL, z = NULL, u = NULL;
  int ierr = make_mesh(dim, BOX, &mesh);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &ih);
  if (!ierr) ierr = ts_fe_create_dgq(dim, k, &dgq);
  if (!ierr) ierr = ts_dofs_create(mesh, ih, 0, &dofs_ih);
  if (!ierr) ierr = ts_dofs_create(mesh, dgq, 0, &dofs_dgq);
  if (!ierr) ierr = ts_operator_create_l2_mass(backend, dofs_ih, NULL, &W);
  if (!ierr) ierr = ts_matrix_assemble_mass(dofs_ih, 1.0, NULL, &M);
  if (!ierr) ierr = ts_operator_create_matrix(backend, M, TS_DOUBLE, &A);
  const int64_t n = ierr ? 1 : ts_dofs_count(dofs_ih);
  ts_vec *vecs[] = {&x, &y, &z, &u};
  for (int v = 0; v < 4 && !ierr; ++v) ierr = ts_vec_create(backend, n, TS_DOUBLE, vecs[v]);
  if (!ierr) ierr = ts_vec_set_random(x, 5);
  if (!ierr) ierr = ts_operator_apply(W, x, y);
  if (!ierr) ierr = ts_operator_apply(A, x, z);
  if (ierr) diag("%s", ts_error_message());
  const double d = ierr ? INFINITY : relative_difference(y, z);
  ok(d <= 1e-13, "%dD box k = %d: the histopolation W equals ts_matrix_assemble_mass: %.2e", dim,
     k, d);
  W_inv = ierr ? NULL : make_inverse(dofs_dgq, TS_MASS_INVERSE_CG_LEGENDRE, 1e-12);
  int largest = -1;
  double mean = -1.0;
  ierr = !W_inv || ts_operator_apply(W_inv, x, u) ||
         ts_operator_l2_mass_inverse_iterations(W_inv, &largest, &mean);
  ok(!ierr && largest == 1 && mean == 1.0, "%dD box k = %d: CG-Legendre takes 1 iteration on "
     "every cell (diagonal mass): max %d, mean %g", dim, k, largest, mean);
  for (int v = 0; v < 4; ++v) ts_vec_destroy(vecs[v]);
  ts_operator_destroy(&W_inv);
  ts_operator_destroy(&A);
  ts_operator_destroy(&W);
  ts_matrix_destroy(&M);
  ts_dofs_destroy(&dofs_ih);
  ts_dofs_destroy(&dofs_dgq);
  ts_fe_destroy(&ih);
  ts_fe_destroy(&dgq);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- iterations */

/* The local CG iterations on Kershaw's mesh (epsilon 0.5, 3D, 6 x 2 x 2 cells refined once),
 * tolerance 1e-12: Legendre within the measured bounds (doc/hdiv.md: largest 2..5, mean
 * 1.67..3.38 on omp for k = 1..8: at most 5 and 3.5 asserted), Lobatto more on average. */
static void test_iterations(int k) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_vec x = NULL, y = NULL;
  static const int coarse[3] = {6, 2, 2};
  int ierr = ts_mesh_create_kershaw(3, coarse, 1, 0.5, &mesh);
  if (!ierr) ierr = ts_fe_create_dgq(3, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_vec_create(backend, ts_dofs_count(dofs), TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(backend, ts_dofs_count(dofs), TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_set_random(x, 3);
  int largest[2] = {-1, -1};
  double mean[2] = {-1, -1};
  for (int b = 0; b < 2 && !ierr; ++b) {
    ts_operator W_inv = make_inverse(dofs, b ? TS_MASS_INVERSE_CG_LOBATTO : TS_MASS_INVERSE_CG_LEGENDRE, 1e-12);
    ierr = !W_inv || ts_operator_apply(W_inv, x, y) ||
           ts_operator_l2_mass_inverse_iterations(W_inv, &largest[b], &mean[b]);
    ts_operator_destroy(&W_inv);
  }
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && largest[0] >= 1 && largest[0] <= 5 && mean[0] <= 3.5 && mean[0] < mean[1],
     "3D Kershaw 0.5 k = %d: CG-Legendre iterations max %d <= 5, mean %.2f <= 3.5, fewer than "
     "CG-Lobatto's (max %d, mean %.2f)", k, largest[0], mean[0], largest[1], mean[1]);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- arguments */

static void test_arguments(void) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL, q = NULL;
  ts_dofs dofs = NULL, dofs_q = NULL;
  ts_operator W_inv = NULL, W = NULL;
  int ierr = make_mesh(3, KERSHAW, &mesh);
  if (!ierr) ierr = ts_fe_create_dgq(3, 2, &fe);
  if (!ierr) ierr = ts_fe_create_q(3, 2, &q);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  if (!ierr) ierr = ts_dofs_create(mesh, q, 0, &dofs_q);
  if (ierr) diag("%s", ts_error_message());
  ts_mass_inverse_options o;
  ts_mass_inverse_options_default(&o);
  expect_error(ts_operator_create_l2_mass_inverse(backend, NULL, NULL, &o, &W_inv), TS_ERR_ARG,
               "'dofs' is NULL", "NULL dofs");
  expect_error(ts_operator_create_l2_mass_inverse(backend, dofs_q, NULL, &o, &W_inv), TS_ERR_ARG,
               "Q_k element; allowed DGQ_k", "Q_k DoFs");
  double alpha[24];
  for (int c = 0; c < 24; ++c) alpha[c] = c == 13 ? -1.0 : 1.0;
  expect_error(ts_operator_create_l2_mass(backend, dofs, alpha, &W), TS_ERR_ARG,
               "alpha[13]", "a negative alpha of cell 13");
  o.tolerance = 0.0;
  expect_error(ts_operator_create_l2_mass_inverse(backend, dofs, NULL, &o, &W_inv), TS_ERR_ARG,
               "options->tolerance = 0", "tolerance 0");
  ts_mass_inverse_options_default(&o);
  o.max_iterations = 0;
  expect_error(ts_operator_create_l2_mass_inverse(backend, dofs, NULL, &o, &W_inv), TS_ERR_ARG,
               "options->max_iterations = 0", "max_iterations 0");
  ts_mass_inverse_options_default(&o);
  o.method = (ts_mass_inverse_method)9;
  expect_error(ts_operator_create_l2_mass_inverse(backend, dofs, NULL, &o, &W_inv), TS_ERR_ARG,
               "options->method = 9", "method 9");
  ts_mass_inverse_method m;
  expect_error(ts_mass_inverse_method_from_name("lu", &m), TS_ERR_ARG, "'lu' unknown",
               "the method name 'lu'");
  if (!is_omp) {
    o.method = TS_MASS_INVERSE_CHOLESKY;
    expect_error(ts_operator_create_l2_mass_inverse(backend, dofs, NULL, &o, &W_inv),
                 TS_ERR_UNSUPPORTED, "Cholesky", "Cholesky on a GPU backend");
  }
  ierr = ts_operator_create_l2_mass(backend, dofs, NULL, &W);
  int largest;
  double mean;
  expect_error(ierr ? -1 : ts_operator_l2_mass_inverse_iterations(W, &largest, &mean), TS_ERR_ARG,
               "ts_operator_create_l2_mass_inverse is required", "the iterations of a forward mass");
  o.method = TS_MASS_INVERSE_AUTO;
  ierr = ts_operator_create_l2_mass_inverse(backend, dofs, NULL, &o, &W_inv);
  ierr = ierr || ts_operator_l2_mass_inverse_method(W_inv, &m);
  ok(!ierr && m != TS_MASS_INVERSE_AUTO, "auto resolves to a method (%s at k = 2)",
     ierr ? "?" : ts_mass_inverse_method_name(m));
  ts_operator_destroy(&W_inv);
  ts_operator_destroy(&W);
  ts_dofs_destroy(&dofs);
  ts_dofs_destroy(&dofs_q);
  ts_fe_destroy(&fe);
  ts_fe_destroy(&q);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  if (ts_backend_open(tap_backend(), &backend)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  is_omp = !strcmp(tap_backend(), "omp");
  for (int dim = 2; dim <= 3; ++dim)
    for (int kind = BOX; kind <= SKEWED; ++kind)
      for (int k = 1; k <= 8; ++k) test_identity(dim, kind, k, 0);
  for (int k = 0; k <= 3; ++k) test_identity(3, KERSHAW, k, 1);
  test_identity(2, SKEWED, 5, 1);
  for (int dim = 2; dim <= 3; ++dim) test_identity(dim, KERSHAW, 9, 1); /* RT_9's pressure */
  for (int k = 1; k <= 4; ++k) test_volume(3, k);
  test_volume(2, 3);
  for (int k = 1; k <= 6; k += 5) {
    test_box(2, k);
    test_box(3, k);
  }
  for (int k = 1; k <= 8; ++k) test_iterations(k);
  test_arguments();
  done_testing();
  ts_backend_destroy(&backend);
  return exit_status();
}
