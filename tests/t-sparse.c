/* t-sparse.c -- CSR sparse matrices (ts_matrix): triplets with duplicates summed, the CSR
 * arrays and the product on the backend against a dense reference (double and single); the
 * Q_k Laplacian assembled from its cell matrix against the matrix-free operator (apply,
 * apply_add, diagonal) on random vectors, 2D and 3D, k = 1..4, on a non-cubic box, and its
 * exact symmetry; bad arguments (TS_ERR_ARG naming the argument) and a backend without the
 * CSR kernels (TS_ERR_UNSUPPORTED).  Backend-generic: TESSERA_TEST_BACKEND (default omp). */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"

static double relative_difference(int64_t n, const double *a, const double *b) {
  double num = 0.0, den = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return sqrt(num / den);
}

/* ---------------------------------------------------------------- triplets */

/* a 3 x 4 matrix given with duplicates, out of order, with an explicit zero and an empty
 * row:  [ 1+2   0    0   -4  ]
 *       [ 0     0    0    0  ]
 *       [ 5     0.5  0   3+2 ]   entry (2,2) given as an explicit 0 */
#define T_COUNT 8
static const int64_t t_rows[T_COUNT] = {0, 2, 0, 2, 2, 0, 2, 2};
static const int64_t t_cols[T_COUNT] = {0, 3, 3, 0, 2, 0, 3, 1};
static const double t_vals[T_COUNT] = {1.0, 3.0, -4.0, 5.0, 0.0, 2.0, 2.0, 0.5};
static const double t_dense[3][4] = {{3, 0, 0, -4}, {0, 0, 0, 0}, {5, 0.5, 0, 5}};

static void test_triplets(ts_backend b) {
  ts_matrix A = NULL;
  int ierr = ts_matrix_create_triplets(3, 4, T_COUNT, t_rows, t_cols, t_vals, &A);
  if (!ok(!ierr, "triplets: created")) {
    diag("%s", ts_error_message());
    return;
  }
  ok(ts_matrix_rows(A) == 3 && ts_matrix_columns(A) == 4 && ts_matrix_nonzeros(A) == 6,
     "triplets: 3 x 4 with 6 entries (duplicates merged, explicit zero kept): %lld x %lld, %lld",
     (long long)ts_matrix_rows(A), (long long)ts_matrix_columns(A),
     (long long)ts_matrix_nonzeros(A));
  const int64_t *offsets, *columns;
  const double *values;
  ts_matrix_csr(A, &offsets, &columns, &values);
  static const int64_t want_offsets[4] = {0, 2, 2, 6}, want_columns[6] = {0, 3, 0, 1, 2, 3};
  static const double want_values[6] = {3.0, -4.0, 5.0, 0.5, 0.0, 5.0};
  int same = 1;
  for (int i = 0; i < 4; ++i) same &= offsets[i] == want_offsets[i];
  for (int e = 0; e < 6; ++e) same &= columns[e] == want_columns[e] && values[e] == want_values[e];
  ok(same, "triplets: CSR row offsets, ascending columns and summed values exact");

  for (int single = 0; single <= 1; ++single) {
    const ts_precision p = single ? TS_SINGLE : TS_DOUBLE;
    ts_operator op = NULL;
    ts_vec x = NULL, y = NULL;
    double hx[4] = {0.25, -1.5, 2.0, 0.75}, hy[3], ref[3];
    ierr = ts_operator_create_matrix(b, A, p, &op);
    if (!ierr) ierr = ts_vec_create(b, 4, p, &x);
    if (!ierr) ierr = ts_vec_create(b, 3, p, &y);
    if (!ierr) ierr = ts_vec_set_from_host(x, hx);
    if (!ierr) ierr = ts_operator_apply(op, x, y);
    if (!ierr) ierr = ts_vec_get_to_host(y, hy);
    for (int i = 0; i < 3; ++i) {
      ref[i] = 0.0;
      for (int j = 0; j < 4; ++j) ref[i] += t_dense[i][j] * hx[j];
    }
    /* every product and sum here is exact in both precisions */
    ok(!ierr && hy[0] == ref[0] && hy[1] == ref[1] && hy[2] == ref[2],
       "triplets: y = A x on '%s' in %s equals the dense product exactly (%g %g %g)",
       ts_backend_name(b), ts_precision_name(p), hy[0], hy[1], hy[2]);
    if (ierr) diag("%s", ts_error_message());
    ok(ts_operator_size(op) == 3 && ts_operator_columns(op) == 4,
       "triplets: the operator is 3 x 4 in %s", ts_precision_name(p));
    ts_vec_destroy(&x);
    ts_vec_destroy(&y);
    ts_operator_destroy(&op);
  }
  ts_matrix_destroy(&A);
  ok(A == NULL, "ts_matrix_destroy sets the handle to NULL");
}

/* ---------------------------------------------------------------- bad arguments */

/* the call failed with TS_ERR_ARG and the message names the argument */
static void check_arg_error(int ierr, const char *argument, const char *what) {
  const char *msg = ts_error_message();
  char quoted[64];
  snprintf(quoted, sizeof quoted, "'%s'", argument);
  ok(ierr == TS_ERR_ARG && strstr(msg, quoted), "%s: TS_ERR_ARG naming %s: %s", what, quoted, msg);
}

static void test_bad_arguments(ts_backend b) {
  ts_matrix A = (ts_matrix)&A; /* not NULL: a failing create must set it to NULL */
  const int64_t bad_row[1] = {3}, bad_col[1] = {-1}, good[1] = {0};
  const double nan_value[1] = {NAN}, one[1] = {1.0};
  check_arg_error(ts_matrix_create_triplets(0, 4, 0, NULL, NULL, NULL, &A), "rows", "rows = 0");
  ok(A == NULL, "a failed create sets the matrix to NULL");
  check_arg_error(ts_matrix_create_triplets(3, (int64_t)INT32_MAX + 1, 0, NULL, NULL, NULL, &A),
                  "cols", "cols = 2^31");
  check_arg_error(ts_matrix_create_triplets(3, 4, -1, NULL, NULL, NULL, &A), "count", "count = -1");
  check_arg_error(ts_matrix_create_triplets(3, 4, 1, NULL, good, one, &A), "row_indices",
                  "row_indices NULL");
  check_arg_error(ts_matrix_create_triplets(3, 4, 1, bad_row, good, one, &A), "row_indices",
                  "row index 3 of 3 rows");
  check_arg_error(ts_matrix_create_triplets(3, 4, 1, good, bad_col, one, &A), "col_indices",
                  "column index -1");
  check_arg_error(ts_matrix_create_triplets(3, 4, 1, good, good, nan_value, &A), "values",
                  "a NaN value");
  check_arg_error(ts_matrix_create_triplets(3, 4, 1, good, good, one, NULL), "A", "A NULL");
  ts_matrix M = NULL;
  ts_operator op = NULL;
  if (ts_matrix_create_triplets(3, 4, 1, good, good, one, &M)) diag("%s", ts_error_message());
  check_arg_error(ts_operator_create_matrix(NULL, M, TS_DOUBLE, &op), "backend", "backend NULL");
  check_arg_error(ts_operator_create_matrix(b, NULL, TS_DOUBLE, &op), "A", "matrix NULL");
  check_arg_error(ts_operator_create_matrix(b, M, (ts_precision)7, &op), "p", "precision 7");
  check_arg_error(ts_matrix_assemble_laplace(NULL, &A), "dofs", "dofs NULL");
  ts_error_clear();
  ok(ts_matrix_rows(NULL) == -1 && ts_error_code() == TS_ERR_ARG,
     "ts_matrix_rows(NULL) is -1 with TS_ERR_ARG");

  /* a backend without the CSR kernels: the kernels are optional members of the table */
  ts_backend_ops saved = b->ops;
  b->ops.csr_apply = NULL;
  const int ierr = ts_operator_create_matrix(b, M, TS_DOUBLE, &op);
  b->ops = saved;
  ok(ierr == TS_ERR_UNSUPPORTED && strstr(ts_error_message(), "csr_apply") && op == NULL,
     "a backend without csr_apply: TS_ERR_UNSUPPORTED naming the kernels: %s",
     ts_error_message());
  ts_matrix_destroy(&M);
}

/* ---------------------------------------------------------------- the assembled Laplacian */

/* max |A_ij - A_ji| over the stored entries (the pattern is symmetric by construction) */
static double asymmetry(ts_matrix A) {
  const int64_t *r, *c;
  const double *v;
  ts_matrix_csr(A, &r, &c, &v);
  double worst = 0.0;
  for (int64_t i = 0; i < ts_matrix_rows(A); ++i)
    for (int64_t e = r[i]; e < r[i + 1]; ++e) {
      const int64_t j = c[e];
      double transposed = NAN;
      for (int64_t f = r[j]; f < r[j + 1]; ++f)
        if (c[f] == i) transposed = v[f];
      const double difference = fabs(v[e] - transposed);
      if (!(difference <= worst)) worst = difference;
    }
  return worst;
}

/* mode 0: apply, 1: apply_add onto a random y, 2: diagonal; the relative difference between
 * the matrix-free Laplacian and the assembled matrix */
static double compare(ts_backend b, ts_operator free_op, ts_operator matrix_op, int mode) {
  const int64_t n = ts_operator_size(free_op);
  double *y1 = malloc(sizeof(double) * n), *y2 = malloc(sizeof(double) * n);
  ts_vec x = NULL, v1 = NULL, v2 = NULL;
  int ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &v1);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &v2);
  if (!ierr) ierr = ts_vec_set_random(x, 17);
  if (!ierr) ierr = ts_vec_set_random(v1, 23);
  if (!ierr) ierr = ts_vec_copy(v1, v2);
  if (!ierr && mode == 0) ierr = ts_operator_apply(free_op, x, v1);
  if (!ierr && mode == 0) ierr = ts_operator_apply(matrix_op, x, v2);
  if (!ierr && mode == 1) ierr = ts_operator_apply_add(free_op, x, v1);
  if (!ierr && mode == 1) ierr = ts_operator_apply_add(matrix_op, x, v2);
  if (!ierr && mode == 2) ierr = ts_operator_diagonal(free_op, v1);
  if (!ierr && mode == 2) ierr = ts_operator_diagonal(matrix_op, v2);
  if (!ierr) ierr = ts_vec_get_to_host(v1, y1);
  if (!ierr) ierr = ts_vec_get_to_host(v2, y2);
  const double result = ierr ? INFINITY : relative_difference(n, y2, y1);
  if (ierr) diag("%s", ts_error_message());
  ts_vec_destroy(&x);
  ts_vec_destroy(&v1);
  ts_vec_destroy(&v2);
  free(y1);
  free(y2);
  return result;
}

static void test_laplace(ts_backend b, int dim, int k) {
  static const char *const modes[] = {"apply", "apply_add", "diagonal"};
  const double lower[3] = {-1, 0, 0.5}, upper[3] = {2, 2, 1.5};
  const int coarse[3] = {3, 2, 2};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_matrix A = NULL;
  ts_operator free_op = NULL, matrix_op = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(b, dofs, TS_DOUBLE, &free_op);
  if (!ierr) ierr = ts_matrix_assemble_laplace(dofs, &A);
  if (!ierr) ierr = ts_operator_create_matrix(b, A, TS_DOUBLE, &matrix_op);
  if (ierr) diag("%s", ts_error_message());
  for (int mode = 0; mode < 3; ++mode) {
    const double difference = ierr ? INFINITY : compare(b, free_op, matrix_op, mode);
    ok(difference <= 1e-13, "Laplacian %dD Q%d on '%s', %s: assembled vs matrix-free %.2e",
       dim, k, ts_backend_name(b), modes[mode], difference);
  }
  /* at most (2k+1)^dim entries in a row, and the boundary rows hold one */
  const int64_t n = ierr ? 0 : ts_dofs_count(dofs);
  const int64_t boundary = ierr ? 0 : ts_dofs_boundary_count(dofs);
  int64_t widest = 1;
  for (int d = 0; d < dim; ++d) widest *= 2 * k + 1;
  const int64_t *offsets = NULL;
  if (!ierr) ts_matrix_csr(A, &offsets, NULL, NULL);
  int64_t longest = 0, single_rows = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t length = offsets[i + 1] - offsets[i];
    if (length > longest) longest = length;
    single_rows += length == 1;
  }
  ok(!ierr && longest <= widest && single_rows >= boundary && asymmetry(A) == 0.0,
     "Laplacian %dD Q%d: exactly symmetric, rows of at most %lld entries (%lld), %lld boundary "
     "rows of one", dim, k, (long long)widest, (long long)longest, (long long)boundary);
  ts_operator_destroy(&matrix_op);
  ts_operator_destroy(&free_op);
  ts_matrix_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend b = NULL;
  if (ts_backend_open(tap_backend(), &b)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  test_triplets(b);
  test_bad_arguments(b);
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= 4; ++k) test_laplace(b, dim, k);
  done_testing();
  ts_backend_destroy(&b);
  return exit_status();
}
