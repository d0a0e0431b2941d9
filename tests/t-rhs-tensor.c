/* t-rhs-tensor.c -- the right side of a separable f from 1D load vectors on the backend
 * (ts_vec_set_tensor) against the quadrature over every cell on the host (the same solution
 * without rhs_factor): the same vectors to a few ulp of their largest entry, for f = 1,
 * "sine" and a non-symmetric product, in 2D and 3D, k = 1..6; "exp" (non-zero boundary
 * values) keeps the host path; ts_vec_set_tensor itself and its argument checks.  Runs on
 * $TESSERA_TEST_BACKEND (tests/t-gpu-check.sh: on each GPU backend too). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera-impl.h"

/* f = (1 + x) (2 - y^2) exp(z): separable, not symmetric, and u = 0 on the boundary (u
 * itself is not needed: the right side only reads f and the boundary values). */
static double zero_value(int dim, const double *x) {
  (void)dim;
  (void)x;
  return 0.0;
}
static double product_minus_f(int dim, const double *x) {
  double f = (1.0 + x[0]) * (2.0 - x[1] * x[1]);
  if (dim == 3) f *= exp(x[2]);
  return -f;
}
static double product_factor(int dim, int d, double x) {
  (void)dim;
  return d == 0 ? 1.0 + x : d == 1 ? 2.0 - x * x : exp(x);
}
static const ts_solution product = {"product", zero_value, NULL, product_minus_f, product_factor};

/* max |b_tensor - b_host| / max |b_host| for u, with the host path forced by a copy of u
 * without rhs_factor; *x0_max: max |x0| of the tensor path. */
static int compare(ts_backend be, ts_dofs dofs, const ts_solution *u, double *rel, double *x0_max) {
  ts_solution host_u = *u;
  host_u.rhs_factor = NULL;
  const int64_t n = ts_dofs_count(dofs);
  ts_operator A = NULL;
  ts_vec b = NULL, x0 = NULL;
  double *bt = malloc(sizeof(double) * (size_t)n), *bh = malloc(sizeof(double) * (size_t)n);
  int ierr = bt && bh ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_operator_create_laplace(be, dofs, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_vec_set(x0, 7.0); /* the tensor path must zero it */
  if (!ierr) ierr = ts_assemble_rhs(A, dofs, u, b, x0);
  if (!ierr) ierr = ts_vec_get_to_host(b, bt);
  if (!ierr) ierr = ts_vec_norm(x0, x0_max);
  if (!ierr) ierr = ts_assemble_rhs(A, dofs, &host_u, b, x0);
  if (!ierr) ierr = ts_vec_get_to_host(b, bh);
  if (!ierr) {
    double diff = 0.0, scale = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      diff = fmax(diff, fabs(bt[i] - bh[i]));
      scale = fmax(scale, fabs(bh[i]));
    }
    *rel = diff / scale;
  }
  if (ierr) diag("%s", ts_error_message());
  free(bt);
  free(bh);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x0);
  ts_operator_destroy(&A);
  return ierr;
}

static void check_solutions(ts_backend be, int dim, int k) {
  /* a box with integer corners: "sine" is zero on its boundary */
  const double lower[3] = {-1, 0, 1}, upper[3] = {1, 1, 2};
  const int coarse[3] = {2, 1, 1};
  const int level = dim == 3 ? 1 : 2;
  const ts_solution *sine;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  int ierr = ts_solution_by_name("sine", &sine);
  if (!ierr) ierr = ts_mesh_create_box(dim, lower, upper, coarse, level, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, level, &dofs);
  const ts_solution *cases[3] = {ts_rhs_one(), sine, &product};
  for (int c = 0; c < 3; ++c) {
    double rel = NAN, x0 = NAN;
    const int e = ierr ? ierr : compare(be, dofs, cases[c], &rel, &x0);
    ok(!e && rel <= 8 * DBL_EPSILON && x0 == 0.0,
       "%dD Q%d f of '%s': tensor-product load vector = host quadrature (rel. difference %.1e "
       "<= 8 eps), x0 = 0", dim, k, cases[c]->name, rel);
  }
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* "exp" has non-zero boundary values: the host path with its lifting (x0 = u there). */
static void check_exp_keeps_lifting(ts_backend be) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  const ts_solution *u;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  ts_vec b = NULL, x0 = NULL;
  double norm = 0.0;
  int ierr = ts_solution_by_name("exp", &u);
  if (!ierr) ierr = ts_mesh_create_box(3, lower, upper, coarse, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_q(3, 2, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(be, dofs, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(dofs), TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(dofs), TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_assemble_rhs(A, dofs, u, b, x0);
  if (!ierr) ierr = ts_vec_norm(x0, &norm);
  ok(!ierr && norm > 1.0, "'exp' (non-zero boundary values): x0 holds them (|x0| = %.3f)", norm);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x0);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ts_vec_set_tensor on its own, single precision included, and its argument checks. */
static void check_set_tensor(ts_backend be) {
  const double f0[3] = {1, 2, 3}, f1[2] = {-1, 0.5}, f2[2] = {2, 4};
  const double *factors[3] = {f0, f1, f2};
  const int64_t n[3] = {3, 2, 2};
  for (int p = 0; p < 2; ++p) {
    const ts_precision prec = p ? TS_SINGLE : TS_DOUBLE;
    ts_vec x = NULL;
    double h[12];
    int ierr = ts_vec_create(be, 12, prec, &x);
    if (!ierr) ierr = ts_vec_set_tensor(x, 3, n, factors);
    if (!ierr) ierr = ts_vec_get_to_host(x, h);
    int good = !ierr;
    for (int i = 0; good && i < 12; ++i)
      good = h[i] == f0[i % 3] * f1[(i / 3) % 2] * f2[i / 6];
    ok(good, "ts_vec_set_tensor, 3D, %s precision: x[i0 + 3 (i1 + 2 i2)] = f0 f1 f2 exactly",
       ts_precision_name(prec));
    ts_vec_destroy(&x);
  }
  ts_vec x = NULL;
  const int64_t bad_n[3] = {3, 3, 2}, zero_n[3] = {0, 2, 2};
  const double *null_factor[3] = {f0, NULL, f2};
  int ierr = ts_vec_create(be, 12, TS_DOUBLE, &x);
  ok(!ierr && ts_vec_set_tensor(x, 3, bad_n, factors) == TS_ERR_ARG &&
         strstr(ts_error_message(), "make 18 entries, the vector has 12"),
     "ts_vec_set_tensor: a size mismatch names both sizes");
  ok(ts_vec_set_tensor(x, 4, n, factors) == TS_ERR_ARG && strstr(ts_error_message(), "dim 4"),
     "ts_vec_set_tensor: dim 4 refused");
  ok(ts_vec_set_tensor(x, 3, zero_n, factors) == TS_ERR_ARG && strstr(ts_error_message(), "n[0] = 0"),
     "ts_vec_set_tensor: n[0] = 0 refused");
  ok(ts_vec_set_tensor(x, 3, n, null_factor) == TS_ERR_ARG &&
         strstr(ts_error_message(), "factors[1] is NULL"),
     "ts_vec_set_tensor: a NULL factor named");
  ok(ts_vec_set_tensor(NULL, 3, n, factors) == TS_ERR_ARG, "ts_vec_set_tensor: NULL vector refused");
  ts_vec_destroy(&x);
}

int main(void) {
  ts_backend be = NULL;
  if (ts_backend_open(tap_backend(), &be)) {
    plan_skip_all(ts_error_message());
    return 0;
  }
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= 6; ++k) check_solutions(be, dim, k);
  check_exp_keeps_lifting(be);
  check_set_tensor(be);
  ts_backend_destroy(&be);
  done_testing();
  return exit_status();
}
