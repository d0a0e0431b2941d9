/* t-operator-assemble.c -- sparse matrices of matrix-free operators (ts_operator_assemble):
 * for the Q_k Laplacian and mass in 2D and 3D, Jacobi, sums, products, block operators and
 * their transposes, the Taylor-Hood operator and the Stokes blocks, the assembled matrix applied by the
 * backend (ts_operator_create_matrix) gives what the operator gives on random vectors, to
 * 1e-13 of the result's largest entry; so does the RT_k x DGQ_k Stokes operator (2D k = 0, 2,
 * 3D k = 1); the operator on mapped cells, alone or inside a sum, is refused naming it, and
 * the dense coarse LU of such a sum probes it instead.  ts_matrix_add and ts_matrix_create_block against their definitions on
 * the host, and their refusals.  Backend-generic: TESSERA_TEST_BACKEND (default omp). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "mg/mg-impl.h"

#define TOLERANCE 1e-13

typedef struct setup {
  ts_backend be;
  ts_mesh mesh2, mesh3;
} setup;

/* max_i |(A x)_i - (M x)_i| / max_i |(A x)_i| over two random x; INFINITY on failure */
static double difference(ts_backend be, ts_operator A, ts_matrix M) {
  const int64_t rows = ts_operator_size(A), cols = ts_operator_columns(A);
  ts_operator Mop = NULL;
  ts_vec x = NULL, y = NULL, z = NULL;
  double *hy = malloc((size_t)rows * sizeof *hy), *hz = malloc((size_t)rows * sizeof *hz);
  double diff = 0.0, largest = 0.0;
  int ierr = !hy || !hz ? TS_ERR_MEMORY : ts_operator_create_matrix(be, M, TS_DOUBLE, &Mop);
  if (!ierr) ierr = ts_vec_create(be, cols, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, rows, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(be, rows, TS_DOUBLE, &z);
  for (uint64_t seed = 1; seed <= 2 && !ierr; ++seed) {
    ierr = ts_vec_set_random(x, seed);
    if (!ierr) ierr = ts_operator_apply(A, x, y);
    if (!ierr) ierr = ts_operator_apply(Mop, x, z);
    if (!ierr) ierr = ts_vec_get_to_host(y, hy);
    if (!ierr) ierr = ts_vec_get_to_host(z, hz);
    for (int64_t i = 0; i < rows && !ierr; ++i) {
      diff = fmax(diff, fabs(hy[i] - hz[i]));
      largest = fmax(largest, fabs(hy[i]));
    }
  }
  if (ierr) diag("%s", ts_error_message());
  free(hy);
  free(hz);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&z);
  ts_operator_destroy(&Mop);
  return ierr || largest == 0.0 ? INFINITY : diff / largest;
}

/* ts_operator_assemble(A) against A */
static void check_assembly(ts_backend be, ts_operator A, const char *what) {
  ts_matrix M = NULL;
  const int ierr = A ? ts_operator_assemble(A, &M) : TS_ERR_ARG;
  if (ierr) diag("%s: %s", what, ts_error_message());
  const double d = ierr ? INFINITY : difference(be, A, M);
  ok(d <= TOLERANCE, "%s: the assembled matrix (%lld nonzeros) applies the operator "
     "(difference %.1e)", what, M ? (long long)ts_matrix_nonzeros(M) : -1LL, d);
  ts_matrix_destroy(&M);
}

static void laplace_and_mass(const setup *s, ts_mesh mesh, int dim, int k) {
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator L = NULL, M = NULL;
  char what[64];
  int ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(s->be, dofs, TS_DOUBLE, &L);
  if (!ierr) ierr = ts_operator_create_mass(s->be, dofs, TS_DOUBLE, &M);
  if (ierr) diag("setup: %s", ts_error_message());
  snprintf(what, sizeof what, "%dD Q%d Laplacian", dim, k);
  check_assembly(s->be, L, what);
  snprintf(what, sizeof what, "%dD Q%d mass", dim, k);
  check_assembly(s->be, M, what);
  ts_operator_destroy(&L);
  ts_operator_destroy(&M);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
}

/* Jacobi, 2 L - 0.5 M, L M, [L J; 0 L] and its transpose, on 2D Q2 */
static void compositions(const setup *s) {
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator L = NULL, M = NULL, J = NULL, sum = NULL, product = NULL, block = NULL, t = NULL;
  int ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_dofs_create(s->mesh2, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(s->be, dofs, TS_DOUBLE, &L);
  if (!ierr) ierr = ts_operator_create_mass(s->be, dofs, TS_DOUBLE, &M);
  if (!ierr) ierr = ts_operator_create_jacobi(L, &J);
  if (!ierr) ierr = ts_operator_create_sum(2.0, L, -0.5, M, &sum);
  if (!ierr) ierr = ts_operator_create_product(L, M, &product);
  const ts_operator blocks[4] = {L, J, NULL, L};
  if (!ierr) ierr = ts_operator_create_block(2, 2, blocks, &block);
  if (!ierr) ierr = ts_operator_create_transpose(block, &t);
  if (ierr) diag("setup: %s", ts_error_message());
  check_assembly(s->be, J, "Jacobi of the 2D Q2 Laplacian");
  check_assembly(s->be, sum, "2 L - 0.5 M");
  check_assembly(s->be, product, "L M");
  check_assembly(s->be, block, "[L J; 0 L]");
  check_assembly(s->be, t, "[L J; 0 L]^T");
  ts_operator_destroy(&t);
  ts_operator_destroy(&block);
  ts_operator_destroy(&product);
  ts_operator_destroy(&sum);
  ts_operator_destroy(&J);
  ts_operator_destroy(&M);
  ts_operator_destroy(&L);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
}

/* the Stokes blocks A, B^T, -B and the symmetric form of S */
static void stokes_parts(const setup *s, ts_operator S, const char *name) {
  const int rows[3] = {0, 0, 1}, cols[3] = {0, 1, 0};
  const char *blocks[3] = {"block A", "block B^T", "block -B"};
  char what[96];
  for (int b = 0; b < 3; ++b) {
    ts_operator block = NULL;
    if (S && ts_operator_create_stokes_block(S, rows[b], cols[b], &block))
      diag("%s", ts_error_message());
    snprintf(what, sizeof what, "%s, %s", name, blocks[b]);
    check_assembly(s->be, block, what);
    ts_operator_destroy(&block);
  }
  ts_operator symmetric = NULL;
  if (S && ts_operator_create_stokes_symmetric(S, &symmetric)) diag("%s", ts_error_message());
  snprintf(what, sizeof what, "%s, the symmetric form", name);
  check_assembly(s->be, symmetric, what);
  ts_operator_destroy(&symmetric);
}

static void taylor_hood(const setup *s, ts_mesh mesh, int dim) {
  ts_fe fu = NULL, fp = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_operator A = NULL;
  char what[64];
  int ierr = ts_fe_create_q(dim, 2, &fu);
  if (!ierr) ierr = ts_fe_create_q(dim, 1, &fp);
  if (!ierr) ierr = ts_dofs_create(mesh, fu, 1, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, fp, 1, &p);
  if (!ierr) ierr = ts_operator_create_taylor_hood(s->be, u, p, TS_DOUBLE, &A);
  if (ierr) diag("setup: %s", ts_error_message());
  snprintf(what, sizeof what, "%dD Taylor-Hood Q2 x Q1", dim);
  check_assembly(s->be, A, what);
  if (dim == 2) stokes_parts(s, A, what);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&fu);
  ts_fe_destroy(&fp);
}

/* the RT_k x DGQ_k Stokes operator (its constrained normal velocity: identity rows and
 * columns) */
static void stokes_rt(const setup *s, ts_mesh mesh, int dim, int k) {
  ts_fe fu = NULL, fp = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_operator S = NULL;
  char what[64];
  int ierr = ts_fe_create_rt(dim, k, &fu);
  if (!ierr) ierr = ts_fe_create_dgq(dim, k, &fp);
  if (!ierr) ierr = ts_dofs_create(mesh, fu, 1, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, fp, 1, &p);
  if (!ierr) ierr = ts_operator_create_stokes(s->be, u, p, TS_STOKES_DEFAULT_PENALTY, TS_DOUBLE, &S);
  if (ierr) diag("setup: %s", ts_error_message());
  snprintf(what, sizeof what, "%dD Stokes RT_%d x DGQ_%d", dim, k, k);
  check_assembly(s->be, S, what);
  if (dim == 2 && k == 2) stokes_parts(s, S, what);
  ts_operator_destroy(&S);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&fu);
  ts_fe_destroy(&fp);
}

/* the operator on mapped cells has no assembly: refused alone and inside a sum */
static void refusals(const setup *s) {
  const int cells[2] = {2, 2};
  ts_mesh sine = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL, sum = NULL;
  ts_matrix M = NULL;
  int ierr = ts_mesh_create_sine(2, cells, 1, 0.05, &sine);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_dofs_create(sine, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_mapped(s->be, dofs, NULL, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_operator_create_sum(1.0, A, 1.0, A, &sum);
  if (ierr) diag("setup: %s", ts_error_message());
  ierr = ts_operator_assemble(A, &M);
  ok(ierr == TS_ERR_UNSUPPORTED && !M && strstr(ts_error_message(), "operator 'mapped' has no"),
     "the operator on mapped cells is refused: %s", ts_error_message());
  ierr = ts_operator_assemble(sum, &M);
  ok(ierr == TS_ERR_UNSUPPORTED && !M && strstr(ts_error_message(), "operator 'mapped' has no"),
     "a sum with it is refused naming it: %s", ts_error_message());
  ok(ts_operator_assemble(NULL, &M) == TS_ERR_ARG && ts_operator_assemble(A, NULL) == TS_ERR_ARG,
     "NULL arguments are refused");
  /* the coarse LU takes a composition whose part has no assembly by probing it instead */
  ts_operator inverse = NULL;
  ts_vec x = NULL, y = NULL, z = NULL;
  double *hx = NULL, *hz = NULL, worst = INFINITY;
  const int64_t n = ts_operator_size(A);
  ierr = sum ? ts_mg_dense_inverse_create(sum, NULL, &inverse) : TS_ERR_ARG;
  if (!ierr) ierr = ts_vec_create(s->be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(s->be, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(s->be, n, TS_DOUBLE, &z);
  if (!ierr) ierr = ts_vec_set_random(x, 7);
  if (!ierr) ierr = ts_operator_apply(sum, x, y);
  if (!ierr) ierr = ts_operator_apply(inverse, y, z);
  if (!ierr) ierr = (hx = malloc((size_t)n * sizeof *hx)) && (hz = malloc((size_t)n * sizeof *hz))
                        ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_get_to_host(x, hx);
  if (!ierr) ierr = ts_vec_get_to_host(z, hz);
  for (int64_t i = 0; i < n && !ierr; ++i) worst = i ? fmax(worst, fabs(hx[i] - hz[i])) : fabs(hx[0] - hz[0]);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && worst <= 1e-10, "the dense coarse LU of a sum with a mapped part falls back to "
     "probing: |(A + A)^{-1} (A + A) x - x| = %.1e", worst);
  free(hx);
  free(hz);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&z);
  ts_operator_destroy(&inverse);
  ts_operator_destroy(&sum);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&sine);
}

/* entry (i, j) of A (0 if not stored) */
static double entry(ts_matrix A, int64_t i, int64_t j) {
  const int64_t *ro, *col;
  const double *v;
  if (ts_matrix_csr(A, &ro, &col, &v)) return NAN;
  for (int64_t e = ro[i]; e < ro[i + 1]; ++e)
    if (col[e] == j) return v[e];
  return 0.0;
}

/* ts_matrix_add and ts_matrix_create_block entry by entry on small matrices */
static void matrix_algebra(void) {
  const int64_t ar[4] = {0, 0, 1, 2}, ac[4] = {0, 2, 1, 0}, br[3] = {0, 1, 2}, bc[3] = {1, 1, 2};
  const double av[4] = {1, 2, 3, 4}, bv[3] = {5, 6, 7};
  ts_matrix A = NULL, B = NULL, C = NULL, D = NULL, wide = NULL;
  int ierr = ts_matrix_create_triplets(3, 3, 4, ar, ac, av, &A);
  if (!ierr) ierr = ts_matrix_create_triplets(3, 3, 3, br, bc, bv, &B);
  if (!ierr) ierr = ts_matrix_create_triplets(3, 4, 3, br, bc, bv, &wide);
  if (!ierr) ierr = ts_matrix_add(2.0, A, -1.0, B, &C);
  double worst = ierr ? INFINITY : 0.0;
  for (int64_t i = 0; i < 3 && !ierr; ++i)
    for (int64_t j = 0; j < 3; ++j)
      worst = fmax(worst, fabs(entry(C, i, j) - (2.0 * entry(A, i, j) - entry(B, i, j))));
  ok(!ierr && worst == 0.0 && ts_matrix_nonzeros(C) == 6,
     "ts_matrix_add: 2 A - B entry by entry, %lld stored entries (the union of the patterns)",
     C ? (long long)ts_matrix_nonzeros(C) : -1LL);
  const ts_matrix grid[4] = {A, NULL, B, A};
  if (!ierr) ierr = ts_matrix_create_block(2, 2, grid, &D);
  worst = ierr ? INFINITY : 0.0;
  for (int64_t i = 0; i < 6 && !ierr; ++i)
    for (int64_t j = 0; j < 6; ++j) {
      const ts_matrix b = grid[(i / 3) * 2 + j / 3];
      worst = fmax(worst, fabs(entry(D, i, j) - (b ? entry(b, i % 3, j % 3) : 0.0)));
    }
  ok(!ierr && worst == 0.0 && ts_matrix_rows(D) == 6 && ts_matrix_columns(D) == 6,
     "ts_matrix_create_block: [A 0; B A] entry by entry");
  ts_matrix E = NULL;
  ok(ts_matrix_add(1.0, A, 1.0, wide, &E) == TS_ERR_ARG && !E &&
         strstr(ts_error_message(), "the sizes must agree"),
     "ts_matrix_add refuses 3 x 3 + 3 x 4: %s", ts_error_message());
  ok(ts_matrix_add(NAN, A, 1.0, B, &E) == TS_ERR_ARG && !E, "ts_matrix_add refuses alpha NaN");
  const ts_matrix empty_row[4] = {NULL, NULL, A, B}, clash[4] = {A, wide, B, A};
  ok(ts_matrix_create_block(2, 2, empty_row, &E) == TS_ERR_ARG && !E &&
         strstr(ts_error_message(), "block row 0 has only NULL blocks"),
     "ts_matrix_create_block refuses an empty block row: %s", ts_error_message());
  ok(ts_matrix_create_block(2, 2, clash, &E) == TS_ERR_ARG && !E &&
         strstr(ts_error_message(), "block (1,1)"),
     "ts_matrix_create_block refuses blocks that disagree: %s", ts_error_message());
  ts_matrix_destroy(&A);
  ts_matrix_destroy(&B);
  ts_matrix_destroy(&C);
  ts_matrix_destroy(&D);
  ts_matrix_destroy(&wide);
}

int main(void) {
  setup s = {0};
  if (ts_backend_open(tap_backend(), &s.be)) {
    plan(1);
    ok(0, "backend %s opens: %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  plan(4 + 5 + 2 + 4 + 3 + 4 + 4 + 6);
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 2, 1.5};
  const int cells2[2] = {3, 2}, cells3[3] = {2, 1, 2};
  if (ts_mesh_create_box(2, lower, upper, cells2, 1, &s.mesh2) ||
      ts_mesh_create_box(3, lower, upper, cells3, 1, &s.mesh3))
    diag("meshes: %s", ts_error_message());
  laplace_and_mass(&s, s.mesh2, 2, 3);
  laplace_and_mass(&s, s.mesh3, 3, 2);
  compositions(&s);
  taylor_hood(&s, s.mesh2, 2);
  taylor_hood(&s, s.mesh3, 3);
  stokes_rt(&s, s.mesh2, 2, 0);
  stokes_rt(&s, s.mesh2, 2, 2);
  stokes_rt(&s, s.mesh3, 3, 1);
  refusals(&s);
  matrix_algebra();
  ts_mesh_destroy(&s.mesh2);
  ts_mesh_destroy(&s.mesh3);
  ts_backend_destroy(&s.be);
  return exit_status();
}
