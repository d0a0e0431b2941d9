/* t-block.c -- vector views and block operators (the first pieces of the block layer):
 * a view writes through to its vector; a block operator [A_ij] applies its blocks to views
 * of the input and output and equals the blocks applied one by one; its diagonal and
 * Jacobi come from the diagonal blocks; sizes, backends and empty rows are checked; and
 * MINRES with a block-diagonal preconditioner solves the symmetric saddle-point system
 * [A E^T; E 0] built from a Laplacian A and a selection E. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera-impl.h"

/* E: the first `rows` entries of the input (rows <= cols); E^T: x into the first entries
 * of the output, zero (or unchanged, add) elsewhere.  Written with views. */
static int select_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  struct ts_vec_s head;
  ts_vec_view_init(&head, x, 0, op->n);
  return ts_vec_axpby(1.0, &head, add ? 1.0 : 0.0, y);
}
static int extend_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  struct ts_vec_s head, tail;
  ts_vec_view_init(&head, y, 0, op->cols);
  ts_vec_view_init(&tail, y, op->cols, op->n - op->cols);
  if (!add) TS_CALL(ts_vec_set(&tail, 0.0));
  return ts_vec_axpby(1.0, x, add ? 1.0 : 0.0, &head);
}
static int identity_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  (void)op;
  return ts_vec_axpby(1.0, x, add ? 1.0 : 0.0, y);
}
static const ts_operator_ops select_ops = {.name = "select", .apply = select_apply};
static const ts_operator_ops extend_ops = {.name = "extend", .apply = extend_apply};
static const ts_operator_ops identity_ops = {.name = "identity", .apply = identity_apply};

static double max_diff(ts_vec a, ts_vec b, int64_t n) {
  double *ha = malloc((size_t)n * sizeof *ha), *hb = malloc((size_t)n * sizeof *hb), m = 0, s = 0;
  ts_vec_get_to_host(a, ha);
  ts_vec_get_to_host(b, hb);
  for (int64_t i = 0; i < n; ++i) {
    m = fmax(m, fabs(ha[i] - hb[i]));
    s = fmax(s, fabs(ha[i]));
  }
  free(ha);
  free(hb);
  return s > 0 ? m / s : m;
}

static void views(ts_backend be) {
  ts_vec x, v = NULL, w = NULL;
  double h[10];
  ts_vec_create(be, 10, TS_DOUBLE, &x);
  ts_vec_set(x, 1.0);
  int ierr = ts_vec_create_view(x, 3, 5, &v);
  if (!ierr) ierr = ts_vec_set(v, 2.0);
  if (!ierr) ierr = ts_vec_create_view(v, 4, 1, &w); /* entry 7 of x */
  if (!ierr) ierr = ts_vec_set(w, 3.0);
  ts_vec_get_to_host(x, h);
  int right = !ierr && ts_vec_size(v) == 5 && ts_vec_size(w) == 1;
  for (int i = 0; i < 10; ++i) right &= h[i] == (i == 7 ? 3.0 : i >= 3 && i < 8 ? 2.0 : 1.0);
  ok(right, "a view and a view of it write through to the vector");
  ts_vec_destroy(&w);
  ts_vec_destroy(&v);
  ts_vec_get_to_host(x, h);
  ok(h[0] == 1.0 && h[5] == 2.0, "destroying the views leaves the vector");
  ierr = ts_vec_create_view(x, 6, 5, &v);
  ok(ierr == TS_ERR_ARG && !v && strstr(ts_error_message(), "offset 6 and size 5") &&
         strstr(ts_error_message(), "10 entries"),
     "a range outside the vector is refused: %s", ts_error_message());
  ts_vec_destroy(&x);
}

int main(void) {
  ts_backend be;
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs d1, d2;
  ts_operator A1, A2, E, Et, I, P1;
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int coarse[2] = {2, 3};
  plan(12);
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  views(be);
  ts_mesh_create_box(2, lower, upper, coarse, 2, &mesh);
  ts_fe_create_q(2, 2, &fe);
  ts_dofs_create(mesh, fe, 2, &d1);
  ts_dofs_create(mesh, fe, 1, &d2);
  const int64_t n1 = ts_dofs_count(d1), n2 = ts_dofs_count(d2), n = n1 + n2;
  ts_operator_create_laplace(be, d1, TS_DOUBLE, &A1);
  ts_operator_create_laplace(be, d2, TS_DOUBLE, &A2);
  ts_operator_create_shell_rect(be, &select_ops, n2, n1, TS_DOUBLE, NULL, &E);
  ts_operator_create_shell_rect(be, &extend_ops, n1, n2, TS_DOUBLE, NULL, &Et);
  ts_operator_create_shell(be, &identity_ops, n2, TS_DOUBLE, NULL, &I);
  ts_operator_create_jacobi(A1, &P1);

  /* K = [A1 E^T; E A2] against its blocks applied one by one */
  ts_operator K = NULL, blocks[4] = {A1, Et, E, A2};
  int ierr = ts_operator_create_block(2, 2, blocks, &K);
  ok(!ierr && ts_operator_size(K) == n && ts_operator_columns(K) == n &&
         !strcmp(ts_operator_name(K), "block"),
     "[A1 E^T; E A2]: %lld x %lld (%lld + %lld)", (long long)ts_operator_size(K),
     (long long)ts_operator_columns(K), (long long)n1, (long long)n2);
  ts_vec x, y, z, x1, x2, z1, z2;
  ts_vec_create(be, n, TS_DOUBLE, &x);
  ts_vec_create(be, n, TS_DOUBLE, &y);
  ts_vec_create(be, n, TS_DOUBLE, &z);
  ts_vec_set_random(x, 7);
  ts_vec_create_view(x, 0, n1, &x1);
  ts_vec_create_view(x, n1, n2, &x2);
  ts_vec_create_view(z, 0, n1, &z1);
  ts_vec_create_view(z, n1, n2, &z2);
  ts_operator_apply(K, x, y);
  ts_operator_apply(A1, x1, z1);
  ts_operator_apply_add(Et, x2, z1);
  ts_operator_apply(E, x1, z2);
  ts_operator_apply_add(A2, x2, z2);
  ok(max_diff(y, z, n) <= 1e-14, "K x = the blocks applied one by one (%.1e)", max_diff(y, z, n));
  ts_vec_set(y, 1.0);
  ts_operator_apply_add(K, x, y); /* y = 1 + K x */
  ts_vec_set(x, 1.0);
  ts_vec_axpby(1.0, x, 1.0, z);   /* z = K x + 1 */
  ok(max_diff(y, z, n) <= 1e-14, "y += K x adds (%.1e)", max_diff(y, z, n));

  /* diagonal and Jacobi of the block-diagonal [A1 0; 0 A2] */
  ts_operator D = NULL, J = NULL, dblocks[4] = {A1, NULL, NULL, A2};
  ts_operator_create_block(2, 2, dblocks, &D);
  ts_operator_diagonal(D, y);
  ts_operator_diagonal(A1, z1);
  ts_operator_diagonal(A2, z2);
  ierr = ts_operator_create_jacobi(D, &J);
  ok(!ierr && max_diff(y, z, n) == 0.0, "the diagonal of [A1 0; 0 A2] is the blocks' diagonals, "
     "and Jacobi takes it");
  ts_operator S = NULL, sblocks[4] = {A1, Et, E, NULL};
  ts_operator_create_block(2, 2, sblocks, &S);
  ierr = ts_operator_diagonal(S, y);
  ok(ierr == TS_ERR_UNSUPPORTED, "[A1 E^T; E 0] has no diagonal: %s", ts_error_message());

  /* what does not fit */
  ts_operator bad = NULL, wrong_row[2] = {A1, A2}, empty[4] = {A1, NULL, NULL, NULL};
  ierr = ts_operator_create_block(1, 2, wrong_row, &bad);
  const int rows_differ = ierr == TS_ERR_ARG && !bad && strstr(ts_error_message(), "block (0,1)");
  ok(rows_differ, "a block row whose operators differ in rows is refused: %s", ts_error_message());
  ierr = ts_operator_create_block(2, 2, empty, &bad);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "block row 1 has no operator"),
     "an all-zero block row is refused: %s", ts_error_message());
  ts_solver s;
  ts_solver_create(TS_SOLVER_MINRES, &s);
  ierr = ts_solver_set_operator(s, E);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "square"),
     "a solver refuses a rectangular operator: %s", ts_error_message());

  /* MINRES on the saddle point [A1 E^T; E 0] with the block-diagonal SPD preconditioner
   * [Jacobi(A1) 0; 0 I] */
  ts_operator Pb = NULL, pblocks[4] = {P1, NULL, NULL, I};
  ts_operator_create_block(2, 2, pblocks, &Pb);
  ts_solver_set_operator(s, S);
  ts_solver_set_preconditioner(s, Pb);
  ts_solver_set_tolerances(s, 1e-10, 5000);
  ts_vec_set_random(z, 3); /* right side */
  ts_vec_set(x, 0.0);
  ierr = ts_solver_solve(s, z, x);
  double r, b;
  ts_operator_apply(S, x, y);
  ts_vec_axpby(1.0, z, -1.0, y);
  ts_vec_norm(y, &r);
  ts_vec_norm(z, &b);
  ok(!ierr && r / b <= 1e-8, "MINRES + block-diagonal preconditioner on [A1 E^T; E 0]: %d "
     "iterations, ||b - K x|| / ||b|| = %.2e", ts_solver_iterations(s), r / b);

  ts_solver_destroy(&s);
  ts_vec_destroy(&x1);
  ts_vec_destroy(&x2);
  ts_vec_destroy(&z1);
  ts_vec_destroy(&z2);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&z);
  ts_operator_destroy(&Pb);
  ts_operator_destroy(&S);
  ts_operator_destroy(&J);
  ts_operator_destroy(&D);
  ts_operator_destroy(&K);
  ts_operator_destroy(&P1);
  ts_operator_destroy(&I);
  ts_operator_destroy(&Et);
  ts_operator_destroy(&E);
  ts_operator_destroy(&A2);
  ts_operator_destroy(&A1);
  ts_dofs_destroy(&d2);
  ts_dofs_destroy(&d1);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&be);
  return exit_status();
}
