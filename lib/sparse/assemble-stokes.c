/* assemble-stokes.c -- the CSR matrix of the RT_k x DGQ_k Stokes operator
 * (ts_operator_create_stokes) from its plan's 1D matrices.
 *
 * On Cartesian cells the operator is a sum of Kronecker products of global 1D matrices
 * (doc/stokes.md section 4; index 0 fastest, so direction 0 is the last factor):
 *   A_i = scale[i] (Kc along i) (x) (Md others)
 *       + sum_{d != i} scale[d] (SIPG along d) (x) (Mc along i) (x) (Md the rest),
 *   B_i = div_scale[i] (D along i) (x) (Md others),
 * and Acal = [A_0 .. B_0^T; ..; -B_0 .. 0] with the constrained normal velocity DoFs (the
 * two ends of component i along direction i) as identity rows and columns: the operator reads
 * them as zero and returns y = x there.  Kc and Mc are assembled continuously (cells share
 * their end DoFs), SIPG is block tridiagonal with the boundary variants of its diagonal
 * block, Md is diagonal: the same matrices the backends' kernels apply. */
#include <stdlib.h>
#include "sparse-impl.h"

/* The global 1D matrices of one direction with `cells` cells. */
typedef enum { ONE_D_MC, ONE_D_KC, ONE_D_MD, ONE_D_SIPG, ONE_D_DIV } one_d_kind;

/* triplet storage for one 1D matrix */
typedef struct triplets {
  int64_t count, *row, *col;
  double *value;
} triplets;

static void put(triplets *t, int64_t r, int64_t c, double v) {
  t->row[t->count] = r;
  t->col[t->count] = c;
  t->value[t->count++] = v;
}

/* block (rows x cols, row-major, transposed when asked) at (r0, c0) */
static void put_block(triplets *t, const double *B, int rows, int cols, int transpose,
                      int64_t r0, int64_t c0) {
  for (int a = 0; a < rows; ++a)
    for (int b = 0; b < cols; ++b)
      put(t, r0 + a, c0 + b, transpose ? B[b * rows + a] : B[a * cols + b]);
}

/* the SIPG diagonal block of cell c: [0] both faces interior, [1] left on the boundary,
 * [2] right, [3] both */
static int sipg_variant(int64_t c, int64_t cells) {
  return (c == 0 ? 1 : 0) + (c == cells - 1 ? 2 : 0);
}

static int one_d(const ts_stokes_plan *p, one_d_kind kind, int64_t cells, ts_matrix *M) {
  const int k1 = p->degree + 1, k2 = p->degree + 2;
  const int64_t continuous = cells * k1 + 1, dg = cells * k1;
  const int64_t rows = kind == ONE_D_MC || kind == ONE_D_KC ? continuous : dg;
  const int64_t cols = kind == ONE_D_MC || kind == ONE_D_KC || kind == ONE_D_DIV ? continuous : dg;
  const int64_t most = cells * 3 * (int64_t)k2 * k2;
  triplets t = {0};
  int ierr = ts_calloc((size_t)most, sizeof *t.row, "Stokes 1D matrix", &t.row);
  if (!ierr) ierr = ts_calloc((size_t)most, sizeof *t.col, "Stokes 1D matrix", &t.col);
  if (!ierr) ierr = ts_calloc((size_t)most, sizeof *t.value, "Stokes 1D matrix", &t.value);
  for (int64_t c = 0; c < cells && !ierr; ++c) {
    const int64_t o = c * k1;
    switch (kind) {
      case ONE_D_MC: put_block(&t, p->continuous_mass, k2, k2, 0, o, o); break;
      case ONE_D_KC: put_block(&t, p->continuous_stiffness, k2, k2, 0, o, o); break;
      case ONE_D_MD:
        for (int a = 0; a < k1; ++a) put(&t, o + a, o + a, p->dg_mass[a]);
        break;
      case ONE_D_SIPG:
        put_block(&t, p->sipg_diag[sipg_variant(c, cells)], k1, k1, 0, o, o);
        if (c + 1 < cells) {
          put_block(&t, p->sipg_upper, k1, k1, 0, o, o + k1);
          put_block(&t, p->sipg_upper, k1, k1, 1, o + k1, o);
        }
        break;
      case ONE_D_DIV: put_block(&t, p->divergence, k1, k2, 0, o, o); break;
    }
  }
  if (!ierr) ierr = ts_matrix_create_triplets(rows, cols, t.count, t.row, t.col, t.value, M);
  free(t.row);
  free(t.col);
  free(t.value);
  return ierr;
}

/* the 1D matrices of every direction: [d][kind] */
typedef struct stokes_1d {
  ts_matrix m[3][5];
} stokes_1d;

static void stokes_1d_free(stokes_1d *s) {
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 5; ++k) ts_matrix_destroy(&s->m[d][k]);
}

/* A_i, the velocity block of component i */
static int velocity_block(const ts_stokes_plan *p, const stokes_1d *s, int i, ts_matrix *A) {
  ts_matrix F[3];
  for (int e = 0; e < p->dim; ++e) F[e] = e == i ? s->m[e][ONE_D_KC] : s->m[e][ONE_D_MD];
  int ierr = ts_matrix_kronecker_chain(p->dim, F, p->scale[i], A);
  for (int d = 0; d < p->dim && !ierr; ++d) {
    if (d == i) continue;
    for (int e = 0; e < p->dim; ++e)
      F[e] = e == d ? s->m[e][ONE_D_SIPG] : e == i ? s->m[e][ONE_D_MC] : s->m[e][ONE_D_MD];
    ts_matrix term = NULL, sum = NULL;
    ierr = ts_matrix_kronecker_chain(p->dim, F, p->scale[d], &term);
    if (!ierr) ierr = ts_matrix_add(1.0, *A, 1.0, term, &sum);
    ts_matrix_destroy(&term);
    ts_matrix_destroy(A);
    *A = sum;
  }
  return ierr;
}

/* sign B_i, the coupling of component i (pressure rows) */
static int coupling_block(const ts_stokes_plan *p, const stokes_1d *s, int i, double sign,
                          ts_matrix *B) {
  ts_matrix F[3];
  for (int e = 0; e < p->dim; ++e) F[e] = e == i ? s->m[e][ONE_D_DIV] : s->m[e][ONE_D_MD];
  return ts_matrix_kronecker_chain(p->dim, F, sign * p->div_scale[i], B);
}

/* 1 for the constrained normal velocity DoFs of the plan */
static int constrained_mask(const ts_stokes_plan *p, char **mask) {
  TS_CALL(ts_calloc((size_t)p->n_dofs, 1, "Stokes constrained DoFs", mask));
  for (int i = 0; i < p->dim && p->constrained; ++i) {
    const int64_t *n = p->n_u[i], stride = i == 0 ? 1 : i == 1 ? n[0] : n[0] * n[1];
    for (int64_t j = 0; j < n[0] * n[1] * n[2]; ++j) {
      const int64_t a = j / stride % n[i];
      if (a == 0 || a == n[i] - 1) (*mask)[p->offset[i] + j] = 1;
    }
  }
  return 0;
}

/* M with the masked rows and columns replaced by those of the identity */
static int constrain(ts_matrix M, const char *mask, ts_matrix *out) {
  triplets t = {0};
  const size_t most = (size_t)(M->nonzeros + M->rows);
  int ierr = ts_calloc(most, sizeof *t.row, "constrained Stokes matrix", &t.row);
  if (!ierr) ierr = ts_calloc(most, sizeof *t.col, "constrained Stokes matrix", &t.col);
  if (!ierr) ierr = ts_calloc(most, sizeof *t.value, "constrained Stokes matrix", &t.value);
  for (int64_t r = 0; r < M->rows && !ierr; ++r) {
    if (mask[r]) {
      put(&t, r, r, 1.0);
      continue;
    }
    for (int64_t e = M->row_offsets[r]; e < M->row_offsets[r + 1]; ++e)
      if (!mask[M->columns[e]]) put(&t, r, M->columns[e], M->values[e]);
  }
  if (!ierr) ierr = ts_matrix_create_triplets(M->rows, M->cols, t.count, t.row, t.col, t.value, out);
  free(t.row);
  free(t.col);
  free(t.value);
  return ierr;
}

int ts_matrix_assemble_stokes_plan(const ts_stokes_plan *p, ts_matrix *A) {
  *A = NULL;
  TS_CHECK_ARG(p->n_dofs <= TS_MATRIX_MAX_SIZE, "Stokes assembly: %lld DoFs, at most %d fit a "
               "sparse matrix", (long long)p->n_dofs, TS_MATRIX_MAX_SIZE);
  const int dim = p->dim, n = dim + 1;
  stokes_1d s = {{{NULL}}};
  ts_matrix grid[4 * 4] = {NULL}, full = NULL;
  char *mask = NULL;
  int ierr = 0;
  for (int d = 0; d < dim && !ierr; ++d)
    for (int k = ONE_D_MC; k <= ONE_D_DIV && !ierr; ++k)
      ierr = one_d(p, (one_d_kind)k, p->cells[d], &s.m[d][k]);
  for (int i = 0; i < dim && !ierr; ++i) {
    ts_matrix B = NULL;
    ierr = velocity_block(p, &s, i, &grid[i * n + i]);
    if (!ierr) ierr = coupling_block(p, &s, i, -1.0, &grid[dim * n + i]);
    if (!ierr) ierr = coupling_block(p, &s, i, 1.0, &B);
    if (!ierr) ierr = ts_matrix_transpose(B, &grid[i * n + dim]);
    ts_matrix_destroy(&B);
  }
  if (!ierr) ierr = ts_matrix_create_block(n, n, grid, &full);
  if (!ierr) ierr = constrained_mask(p, &mask);
  if (!ierr) ierr = constrain(full, mask, A);
  if (!ierr) (*A)->dim = dim;
  free(mask);
  ts_matrix_destroy(&full);
  for (int e = 0; e < n * n; ++e) ts_matrix_destroy(&grid[e]);
  stokes_1d_free(&s);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "Stokes assembly") : 0;
}
