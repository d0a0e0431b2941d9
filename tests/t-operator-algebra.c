/* t-operator-algebra.c -- sums, products and transposes of operators (lib/op/combine.c)
 * against the same computation written out with the parts, on random vectors: the sum and
 * its diagonal, square and rectangular products, a nested composition A + B^T B, the
 * transposes of the Stokes blocks (the transpose of B^T is B = -(block (1,0)), and
 * x.(B^T y) = (B x).y for the blocks themselves), of a block operator and of the Laplacian;
 * then what is refused (no transpose, sizes, precisions, coefficients).  Runs on the backend
 * of tap_backend(). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera.h"

typedef struct algebra_fixture {
  ts_backend be;
  ts_mesh mesh;
  ts_fe q, rt, dgq;
  ts_dofs dofs, vel, pres;
  ts_operator L, L_single, J, S, Au, Bt, mB; /* mB = block (1,0) = -B */
  int64_t n, nu, np;
} algebra_fixture;

static int fixture_create(algebra_fixture *f) {
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int coarse[2] = {2, 1};
  TS_CALL(ts_backend_open(tap_backend(), &f->be));
  TS_CALL(ts_mesh_create_box(2, lower, upper, coarse, 2, &f->mesh));
  TS_CALL(ts_fe_create_q(2, 3, &f->q));
  TS_CALL(ts_fe_create_rt(2, 2, &f->rt));
  TS_CALL(ts_fe_create_dgq(2, 2, &f->dgq));
  TS_CALL(ts_dofs_create(f->mesh, f->q, 2, &f->dofs));
  TS_CALL(ts_dofs_create(f->mesh, f->rt, 1, &f->vel));
  TS_CALL(ts_dofs_create(f->mesh, f->dgq, 1, &f->pres));
  TS_CALL(ts_operator_create_laplace(f->be, f->dofs, TS_DOUBLE, &f->L));
  TS_CALL(ts_operator_create_laplace(f->be, f->dofs, TS_SINGLE, &f->L_single));
  TS_CALL(ts_operator_create_jacobi(f->L, &f->J));
  TS_CALL(ts_operator_create_stokes(f->be, f->vel, f->pres, 0.0, TS_DOUBLE, &f->S));
  TS_CALL(ts_operator_create_stokes_block(f->S, 0, 0, &f->Au));
  TS_CALL(ts_operator_create_stokes_block(f->S, 0, 1, &f->Bt));
  TS_CALL(ts_operator_create_stokes_block(f->S, 1, 0, &f->mB));
  f->n = ts_operator_size(f->L);
  f->nu = ts_operator_size(f->Au);
  f->np = ts_operator_size(f->mB);
  return 0;
}

static void fixture_destroy(algebra_fixture *f) {
  ts_operator *ops[] = {&f->mB, &f->Bt, &f->Au, &f->S, &f->J, &f->L_single, &f->L};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; ++i) ts_operator_destroy(ops[i]);
  ts_dofs_destroy(&f->pres);
  ts_dofs_destroy(&f->vel);
  ts_dofs_destroy(&f->dofs);
  ts_fe_destroy(&f->dgq);
  ts_fe_destroy(&f->rt);
  ts_fe_destroy(&f->q);
  ts_mesh_destroy(&f->mesh);
  ts_backend_destroy(&f->be);
}

/* A double vector of n entries on the fixture's backend, random from seed (0: zero). */
static ts_vec vec(const algebra_fixture *f, int64_t n, uint64_t seed) {
  ts_vec v = NULL;
  if (ts_vec_create(f->be, n, TS_DOUBLE, &v) == 0 && seed) ts_vec_set_random(v, seed);
  return v;
}

/* ||a - b|| / ||b|| (a is changed) */
static double relative_error(ts_vec a, ts_vec b) {
  double diff = NAN, norm = NAN;
  ts_vec_axpby(-1.0, b, 1.0, a);
  ts_vec_norm(a, &diff);
  ts_vec_norm(b, &norm);
  return diff / norm;
}

static double dot(ts_vec a, ts_vec b) {
  double d = NAN;
  ts_vec_dot(a, b, &d);
  return d;
}

/* |x.(A y) - (T x).y| / (||x|| ||A y||): T is the transpose of A (x: A's rows, y: its
 * columns) */
static double adjoint_error(const algebra_fixture *f, ts_operator A, ts_operator T) {
  ts_vec x = vec(f, ts_operator_size(A), 11), y = vec(f, ts_operator_columns(A), 12);
  ts_vec Ay = vec(f, ts_operator_size(A), 0), Tx = vec(f, ts_operator_columns(A), 0);
  ts_operator_apply(A, y, Ay);
  ts_operator_apply(T, x, Tx);
  const double error = fabs(dot(x, Ay) - dot(Tx, y)) / (sqrt(dot(x, x)) * sqrt(dot(Ay, Ay)));
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&Ay);
  ts_vec_destroy(&Tx);
  return error;
}

/* ||T x - A x|| / ||A x|| on a random x (T and A of the same shape) */
static double same_operator_error(const algebra_fixture *f, ts_operator T, ts_operator A) {
  ts_vec x = vec(f, ts_operator_columns(A), 5), Tx = vec(f, ts_operator_size(A), 0),
         Ax = vec(f, ts_operator_size(A), 0);
  ts_operator_apply(T, x, Tx);
  ts_operator_apply(A, x, Ax);
  const double error = relative_error(Tx, Ax);
  ts_vec_destroy(&x);
  ts_vec_destroy(&Tx);
  ts_vec_destroy(&Ax);
  return error;
}

/* 2.5 L - 0.75 J: apply, apply_add and diagonal against the parts */
static void sum(const algebra_fixture *f) {
  ts_operator op = NULL;
  int ierr = ts_operator_create_sum(2.5, f->L, -0.75, f->J, &op);
  ts_vec x = vec(f, f->n, 1), y = vec(f, f->n, 0), ref = vec(f, f->n, 0), t = vec(f, f->n, 0);
  ts_operator_apply(op, x, y);
  ts_operator_apply(f->L, x, ref);
  ts_operator_apply(f->J, x, t);
  ts_vec_axpby(-0.75, t, 2.5, ref);
  ts_vec_axpby(1.0, ref, 0.0, t); /* t = 2.5 L x - 0.75 J x */
  ok(!ierr && !strcmp(ts_operator_name(op), "sum") && relative_error(y, ref) <= 1e-15,
     "(2.5 L - 0.75 J) x = 2.5 L x - 0.75 J x (%s)", ts_error_message());
  ts_vec_set(y, 1.0);
  ts_operator_apply_add(op, x, y);
  ts_vec_set(ref, 1.0);
  ts_vec_axpby(1.0, t, 1.0, ref);
  ok(relative_error(y, ref) <= 1e-15, "y += (2.5 L - 0.75 J) x adds");
  ierr = ts_operator_diagonal(op, y);
  ts_operator_diagonal(f->L, ref);
  ts_operator_diagonal(f->J, t);
  ts_vec_axpby(-0.75, t, 2.5, ref);
  ok(!ierr && relative_error(y, ref) <= 1e-15, "diag(2.5 L - 0.75 J) = 2.5 diag(L) - 0.75 diag(J)");
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&ref);
  ts_vec_destroy(&t);
  ts_operator_destroy(&op);
}

/* L J (square) and B^T (-B) (velocity x velocity through the pressure) against the parts */
static void products(const algebra_fixture *f) {
  ts_operator LJ = NULL, BtB = NULL;
  int ierr = ts_operator_create_product(f->L, f->J, &LJ);
  ts_vec x = vec(f, f->n, 2), y = vec(f, f->n, 0), ref = vec(f, f->n, 0), t = vec(f, f->n, 0);
  ts_operator_apply(LJ, x, y);
  ts_operator_apply(f->J, x, t);
  ts_operator_apply(f->L, t, ref);
  ok(!ierr && relative_error(y, ref) <= 1e-15, "(L J) x = L (J x) (%s)", ts_error_message());
  ierr = ts_operator_diagonal(LJ, y);
  ok(ierr == TS_ERR_UNSUPPORTED, "a product has no diagonal: %s", ts_error_message());

  ierr = ts_operator_create_product(f->Bt, f->mB, &BtB);
  ts_vec u = vec(f, f->nu, 3), v = vec(f, f->nu, 0), vref = vec(f, f->nu, 0),
         p = vec(f, f->np, 0);
  ts_operator_apply(BtB, u, v);
  ts_operator_apply(f->mB, u, p);
  ts_operator_apply(f->Bt, p, vref);
  ok(!ierr && ts_operator_size(BtB) == f->nu && ts_operator_columns(BtB) == f->nu &&
         relative_error(v, vref) <= 1e-15,
     "B^T (-B): %lld x %lld through %lld pressure DoFs, = the blocks one after the other",
     (long long)ts_operator_size(BtB), (long long)ts_operator_columns(BtB), (long long)f->np);
  ts_vec_destroy(&u);
  ts_vec_destroy(&v);
  ts_vec_destroy(&vref);
  ts_vec_destroy(&p);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&ref);
  ts_vec_destroy(&t);
  ts_operator_destroy(&BtB);
  ts_operator_destroy(&LJ);
}

/* N = A - B^T (-B) = A + B^T B: a sum of a product, against the parts; symmetric, so its
 * transpose (B^T B's through the Stokes blocks' transposes) is itself */
static void nested(const algebra_fixture *f) {
  ts_operator BtB = NULL, N = NULL, Nt = NULL;
  ts_operator_create_product(f->Bt, f->mB, &BtB);
  int ierr = ts_operator_create_sum(1.0, f->Au, -1.0, BtB, &N);
  ts_vec u = vec(f, f->nu, 4), v = vec(f, f->nu, 0), ref = vec(f, f->nu, 0),
         w = vec(f, f->nu, 0), p = vec(f, f->np, 0);
  ts_operator_apply(N, u, v);
  ts_operator_apply(f->mB, u, p);
  ts_operator_apply(f->Bt, p, w);
  ts_operator_apply(f->Au, u, ref);
  ts_vec_axpby(-1.0, w, 1.0, ref);
  const double direct = relative_error(v, ref);
  ok(!ierr && direct <= 1e-15, "(A + B^T B) u = A u - B^T (-B u) (%.1e)", direct);
  ierr = ts_operator_create_transpose(N, &Nt);
  const double same = same_operator_error(f, Nt, N), adjoint = adjoint_error(f, N, N);
  ok(!ierr && same <= 1e-13 && adjoint <= 1e-13,
     "(A + B^T B)^T = A + B^T B (%.1e), and it is symmetric: u.(N v) = (N u).v (%.1e)", same,
     adjoint);
  ts_vec_destroy(&u);
  ts_vec_destroy(&v);
  ts_vec_destroy(&ref);
  ts_vec_destroy(&w);
  ts_vec_destroy(&p);
  ts_operator_destroy(&Nt);
  ts_operator_destroy(&N);
  ts_operator_destroy(&BtB);
}

/* -1.5 L: apply, apply_add and diagonal against L (1e-15: a GPU Laplacian adds with atomics,
 * in no fixed order); the multiple of a rectangular operator
 * with a transpose: -(-B) against the sum -(-B) + 0 (-B), and its transpose -(-B)^T through
 * a work vector of the columns */
static void multiple(const algebra_fixture *f) {
  ts_operator op = NULL, B = NULL, sum = NULL, T = NULL, sum_t = NULL;
  int ierr = ts_operator_create_multiple(-1.5, f->L, &op);
  ts_vec x = vec(f, f->n, 3), y = vec(f, f->n, 0), ref = vec(f, f->n, 0);
  ts_operator_apply(op, x, y);
  ts_operator_apply(f->L, x, ref);
  ts_vec_axpby(0.0, ref, -1.5, ref);
  ok(!ierr && !strcmp(ts_operator_name(op), "multiple") && relative_error(y, ref) <= 1e-15,
     "(-1.5 L) x = -1.5 (L x) (%s)", ts_error_message());
  ts_vec_set(y, 2.0);
  ts_operator_apply_add(op, x, y);
  ts_vec_set(x, 2.0);
  ts_vec_axpby(1.0, ref, 1.0, x);
  ok(relative_error(y, x) <= 1e-15, "y += (-1.5 L) x adds");
  ierr = ts_operator_diagonal(op, y);
  ts_operator_diagonal(f->L, ref);
  ts_vec_axpby(0.0, ref, -1.5, ref);
  ok(!ierr && relative_error(y, ref) <= 1e-15, "diag(-1.5 L) = -1.5 diag(L)");
  ierr = ts_operator_create_multiple(-1.0, f->mB, &B);
  ts_operator_create_sum(-1.0, f->mB, 0.0, f->mB, &sum);
  double err = same_operator_error(f, B, sum);
  if (!ierr) ierr = ts_operator_create_transpose(B, &T);
  ts_operator_create_transpose(sum, &sum_t);
  const double err_t = same_operator_error(f, T, sum_t);
  ok(!ierr && ts_operator_size(T) == f->nu && ts_operator_columns(T) == f->np && err <= 1e-15 &&
     err_t <= 1e-15, "-(-B) and its transpose, %lld x %lld, as the sum's (%.1e, %.1e)",
     (long long)ts_operator_size(T), (long long)ts_operator_columns(T), err, err_t);
  ts_operator *ops[] = {&sum_t, &T, &sum, &B, &op};
  for (int i = 0; i < 5; ++i) ts_operator_destroy(ops[i]);
  op = (ts_operator)1;
  ierr = ts_operator_create_multiple(NAN, f->L, &op);
  ok(ierr == TS_ERR_ARG && !op && strstr(ts_error_message(), "alpha = nan"),
     "a multiple by NaN is refused: %s", ts_error_message());
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&ref);
}

/* The Stokes blocks: x.(B^T y) = (B x).y for the blocks themselves, the transpose of B^T is
 * B = -(block (1,0)), the transpose of that is B^T again, and of a rectangular sum */
static void stokes_transposes(const algebra_fixture *f) {
  ts_operator B = NULL, T = NULL, TT = NULL, mBt = NULL, sum = NULL, sum_t = NULL, B3 = NULL;
  ts_operator_create_sum(-1.0, f->mB, 0.0, f->mB, &B); /* B = -(-B) */
  const double blocks = adjoint_error(f, f->Bt, B);
  ok(blocks <= 1e-13, "the Stokes blocks: u.(B^T p) = (B u).p with B = -(block (1,0)) (%.1e)",
     blocks);
  int ierr = ts_operator_create_transpose(f->Bt, &T);
  double err = same_operator_error(f, T, B);
  ok(!ierr && ts_operator_size(T) == f->np && ts_operator_columns(T) == f->nu && err <= 1e-13,
     "transpose of B^T is B: %lld x %lld (%.1e)", (long long)ts_operator_size(T),
     (long long)ts_operator_columns(T), err);
  ierr = ts_operator_create_transpose(T, &TT);
  err = same_operator_error(f, TT, f->Bt);
  ok(!ierr && err <= 1e-13, "the transpose of the transpose of B^T is B^T (%.1e)", err);
  ierr = ts_operator_create_transpose(f->mB, &mBt);
  const double minus = adjoint_error(f, f->mB, mBt);
  ts_operator_create_sum(-1.0, f->Bt, 0.0, f->Bt, &B3); /* -B^T */
  err = same_operator_error(f, mBt, B3);
  ok(!ierr && err <= 1e-13 && minus <= 1e-13,
     "transpose of -B is -B^T (%.1e), p.(-B u) = ((-B)^T p).u (%.1e)", err, minus);
  ts_operator_destroy(&B3);
  ts_operator_create_sum(1.0, f->Bt, 2.0, f->Bt, &sum);
  ierr = ts_operator_create_transpose(sum, &sum_t);
  ts_operator_create_sum(3.0, B, 0.0, B, &B3);
  err = same_operator_error(f, sum_t, B3);
  ok(!ierr && err <= 1e-13, "(B^T + 2 B^T)^T = 3 B, through a work vector of the columns (%.1e)",
     err);
  ts_operator_destroy(&B3);
  ts_operator_destroy(&sum_t);
  ts_operator_destroy(&sum);
  ts_operator_destroy(&mBt);
  ts_operator_destroy(&TT);
  ts_operator_destroy(&T);
  ts_operator_destroy(&B);
}

/* K = [A B^T; -B 0] as a block operator: K^T = [A -B^T; B 0] = [A_ji^T] written out with
 * views, and y.(K x) = (K^T y).x */
static void block_transpose(const algebra_fixture *f) {
  ts_operator K = NULL, Kt = NULL, blocks[4] = {f->Au, f->Bt, f->mB, NULL};
  ts_operator_create_block(2, 2, blocks, &K);
  int ierr = ts_operator_create_transpose(K, &Kt);
  const int64_t n = f->nu + f->np;
  ts_vec x = vec(f, n, 6), y = vec(f, n, 0), ref = vec(f, n, 0), xu, xp, ru, rp;
  ts_vec_create_view(x, 0, f->nu, &xu);
  ts_vec_create_view(x, f->nu, f->np, &xp);
  ts_vec_create_view(ref, 0, f->nu, &ru);
  ts_vec_create_view(ref, f->nu, f->np, &rp);
  ts_operator_apply(Kt, x, y);
  ts_operator_apply(f->Bt, xp, ru);
  ts_vec_axpby(0.0, xu, -1.0, ru);     /* -B^T p */
  ts_operator_apply_add(f->Au, xu, ru); /* A u - B^T p */
  ts_operator_apply(f->mB, xu, rp);
  ts_vec_axpby(0.0, xp, -1.0, rp);     /* B u */
  const double err = relative_error(y, ref), adjoint = adjoint_error(f, K, Kt);
  ok(!ierr && err <= 1e-13 && adjoint <= 1e-13,
     "[A B^T; -B 0]^T = [A -B^T; B 0] (%.1e), y.(K x) = (K^T y).x (%.1e)", err, adjoint);
  ts_vec_destroy(&xu);
  ts_vec_destroy(&xp);
  ts_vec_destroy(&ru);
  ts_vec_destroy(&rp);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&ref);
  ts_operator_destroy(&Kt);
  ts_operator_destroy(&K);
}

/* The Laplacian's transpose is itself (and the Laplacian is symmetric), with its diagonal */
static void laplace_transpose(const algebra_fixture *f) {
  ts_operator T = NULL;
  int ierr = ts_operator_create_transpose(f->L, &T);
  const double same = same_operator_error(f, T, f->L), adjoint = adjoint_error(f, f->L, f->L);
  /* the same arithmetic twice: identical on omp; a GPU Laplacian sums faces with atomics,
   * so two applications may differ in the last bits (cuda: 3.5e-18 seen on an H100) */
  const double repeat = strcmp(tap_backend(), "omp") ? 1e-14 : 0.0;
  ok(!ierr && same <= repeat && adjoint <= 1e-13,
     "L^T x = L x (%.1e), and L is symmetric: x.(L y) = (L x).y (%.1e)", same, adjoint);
  ts_vec d = vec(f, f->n, 0), dref = vec(f, f->n, 0);
  ierr = ts_operator_diagonal(T, d);
  ts_operator_diagonal(f->L, dref);
  ok(!ierr && relative_error(d, dref) == 0.0, "diag(L^T) = diag(L)");
  ts_vec_destroy(&d);
  ts_vec_destroy(&dref);
  ts_operator_destroy(&T);
}

/* what has no transpose, and arguments that do not fit */
static void refusals(const algebra_fixture *f) {
  ts_operator op = (ts_operator)1, sum = NULL, block = NULL, blocks[2] = {f->S, f->S};
  int ierr = ts_operator_create_transpose(f->S, &op);
  ok(ierr == TS_ERR_UNSUPPORTED && !op && strstr(ts_error_message(), "operator 'stokes' has no "
     "transpose") && strstr(ts_error_message(), "the Laplacian"),
     "the Stokes operator has no transpose: %s", ts_error_message());
  ts_operator_create_sum(1.0, f->L, 1.0, f->L, &sum);
  ts_operator_destroy(&sum);
  ts_operator_create_sum(1.0, f->S, 1.0, f->S, &sum);
  ierr = ts_operator_create_transpose(sum, &op);
  ok(ierr == TS_ERR_UNSUPPORTED && !op && strstr(ts_error_message(), "'sum'"),
     "a sum of operators without a transpose has none: %s", ts_error_message());
  ts_operator_create_block(1, 2, blocks, &block);
  ierr = ts_operator_create_transpose(block, &op);
  ok(ierr == TS_ERR_UNSUPPORTED && !op && strstr(ts_error_message(), "'block'"),
     "a block operator with such a block has none: %s", ts_error_message());
  op = (ts_operator)1;
  ierr = ts_operator_create_sum(1.0, f->L, 1.0, f->Au, &op);
  ok(ierr == TS_ERR_ARG && !op && strstr(ts_error_message(), "same rows and columns"),
     "a sum of different sizes is refused: %s", ts_error_message());
  op = (ts_operator)1;
  ierr = ts_operator_create_sum(1.0, f->L, 1.0, f->L_single, &op);
  ok(ierr == TS_ERR_ARG && !op && strstr(ts_error_message(), "single precision"),
     "a sum of two precisions is refused: %s", ts_error_message());
  op = (ts_operator)1;
  ierr = ts_operator_create_sum(INFINITY, f->L, 1.0, f->L, &op);
  ok(ierr == TS_ERR_ARG && !op && strstr(ts_error_message(), "alpha = inf"),
     "an infinite coefficient is refused: %s", ts_error_message());
  op = (ts_operator)1;
  ierr = ts_operator_create_product(f->Bt, f->Bt, &op);
  ok(ierr == TS_ERR_ARG && !op && strstr(ts_error_message(), "B's rows = A's columns"),
     "B^T B^T is refused: %s", ts_error_message());
  ts_operator_destroy(&block);
  ts_operator_destroy(&sum);
}

int main(void) {
  algebra_fixture f = {0};
  plan(28);
  if (fixture_create(&f)) {
    diag("%s", ts_error_message());
    return 1;
  }
  sum(&f);
  multiple(&f);
  products(&f);
  nested(&f);
  stokes_transposes(&f);
  block_transpose(&f);
  laplace_transpose(&f);
  refusals(&f);
  fixture_destroy(&f);
  return exit_status();
}
