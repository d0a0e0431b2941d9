/* algebra.c -- products and scalings of CSR matrices on the host (as PETSc's MatTranspose,
 * MatMatMult, MatDiagonalScale, MatDiagonalSet with ADD_VALUES and MatSeqAIJKron): what the
 * assembled Schur complements of paper 003 are made of (S~ = W~^{-1} + D M~^{-1} D^T, eq. 16)
 * and the tensor-product mass matrices of Cartesian cells (hdiv-mass.c).
 * The product is Gustavson's row-by-row algorithm; every sum is taken in the order of the
 * rows' entries, so the same inputs give the same matrix bit for bit.  ts_matrix_multiply_on
 * hands the product to a backend's csr_multiply where it has one (cuSPARSE's or hipSPARSE's
 * SpGEMM): the same pattern, the sums in the library's order. */
#include <math.h>
#include <stdlib.h>
#include "sparse-impl.h"

int ts_matrix_transpose(ts_matrix A, ts_matrix *T) {
  TS_CHECK_NOT_NULL(T);
  *T = NULL;
  TS_CHECK_NOT_NULL(A);
  ts_matrix t;
  TS_CALL(ts_matrix_alloc(A->cols, A->rows, &t));
  for (int64_t e = 0; e < A->nonzeros; ++e) ++t->row_offsets[A->columns[e] + 1];
  for (int64_t j = 0; j < A->cols; ++j) t->row_offsets[j + 1] += t->row_offsets[j];
  int64_t *fill = NULL;
  int ierr = ts_matrix_alloc_entries(t);
  if (!ierr) ierr = ts_calloc((size_t)A->cols, sizeof *fill, "transpose fill pointers", &fill);
  if (ierr) {
    ts_matrix_destroy(&t);
    return ts_error_trace(ierr, __FILE__, __LINE__, "sparse transpose");
  }
  for (int64_t j = 0; j < A->cols; ++j) fill[j] = t->row_offsets[j];
  for (int64_t i = 0; i < A->rows; ++i) /* rows in order: each row of T comes out sorted */
    for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; ++e) {
      const int64_t out = fill[A->columns[e]]++;
      t->columns[out] = i;
      t->values[out] = A->values[e];
    }
  free(fill);
  t->dim = A->dim;
  *T = t;
  return 0;
}

static int compare_columns(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Gustavson's work arrays: per column of B the position of its entry in the row being
 * formed (-1: none yet), the row's columns, and its sums. */
typedef struct product_work {
  int64_t *where, *row_columns;
  double *row_values;
} product_work;

/* The distinct columns of row i of A B, sorted, into w->row_columns; their count. */
static int64_t row_pattern(ts_matrix A, ts_matrix B, int64_t i, product_work *w) {
  int64_t count = 0;
  for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; ++e) {
    const int64_t k = A->columns[e];
    for (int64_t f = B->row_offsets[k]; f < B->row_offsets[k + 1]; ++f)
      if (w->where[B->columns[f]] < 0) {
        w->where[B->columns[f]] = count;
        w->row_columns[count++] = B->columns[f];
      }
  }
  for (int64_t c = 0; c < count; ++c) w->where[w->row_columns[c]] = -1;
  qsort(w->row_columns, (size_t)count, sizeof *w->row_columns, compare_columns);
  return count;
}

/* Row i of C = A B, its pattern set (C->row_offsets[i], row_pattern's sorted columns). */
static void row_values(ts_matrix A, ts_matrix B, int64_t i, ts_matrix C, product_work *w) {
  const int64_t start = C->row_offsets[i], count = C->row_offsets[i + 1] - start;
  for (int64_t c = 0; c < count; ++c) {
    w->where[C->columns[start + c]] = c;
    w->row_values[c] = 0.0;
  }
  for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; ++e) {
    const int64_t k = A->columns[e];
    for (int64_t f = B->row_offsets[k]; f < B->row_offsets[k + 1]; ++f)
      w->row_values[w->where[B->columns[f]]] += A->values[e] * B->values[f];
  }
  for (int64_t c = 0; c < count; ++c) {
    C->values[start + c] = w->row_values[c];
    w->where[C->columns[start + c]] = -1;
  }
}

/* C's row offsets (a first pass over the patterns), then its columns and values. */
static int multiply(ts_matrix A, ts_matrix B, ts_matrix C, product_work *w) {
  for (int64_t i = 0; i < A->rows; ++i)
    C->row_offsets[i + 1] = C->row_offsets[i] + row_pattern(A, B, i, w);
  TS_CALL(ts_matrix_alloc_entries(C));
  for (int64_t i = 0; i < A->rows; ++i) {
    const int64_t count = row_pattern(A, B, i, w);
    for (int64_t c = 0; c < count; ++c) C->columns[C->row_offsets[i] + c] = w->row_columns[c];
    row_values(A, B, i, C, w);
  }
  return 0;
}

/* fn's A and B can be multiplied */
static int check_product_sizes(const char *fn, ts_matrix A, ts_matrix B) {
  TS_CHECK_ARG(A->cols == B->rows,
               "%s: A is %lld x %lld and B %lld x %lld: A's columns must be B's rows", fn,
               (long long)A->rows, (long long)A->cols, (long long)B->rows, (long long)B->cols);
  return 0;
}

int ts_matrix_multiply(ts_matrix A, ts_matrix B, ts_matrix *C) {
  TS_CHECK_NOT_NULL(C);
  *C = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(B);
  TS_CALL(check_product_sizes("ts_matrix_multiply", A, B));
  product_work w = {0};
  ts_matrix c = NULL;
  int ierr = ts_matrix_alloc(A->rows, B->cols, &c);
  if (!ierr) ierr = ts_calloc((size_t)B->cols, sizeof *w.where, "product work", &w.where);
  if (!ierr) ierr = ts_calloc((size_t)B->cols, sizeof *w.row_columns, "product work", &w.row_columns);
  if (!ierr) ierr = ts_calloc((size_t)B->cols, sizeof *w.row_values, "product work", &w.row_values);
  if (!ierr) {
    for (int64_t j = 0; j < B->cols; ++j) w.where[j] = -1;
    ierr = multiply(A, B, c, &w);
  }
  free(w.where);
  free(w.row_columns);
  free(w.row_values);
  if (ierr) {
    ts_matrix_destroy(&c);
    return ts_error_trace(ierr, __FILE__, __LINE__, "sparse product");
  }
  c->dim = A->dim;
  *C = c;
  return 0;
}

/* The backend's product of A and B into *C: the host arrays csr_multiply hands over become
 * C's (ts_csr_product), after a check of their sizes. */
static int backend_multiply(ts_backend backend, ts_matrix A, ts_matrix B, ts_matrix *C) {
  ts_csr_plan a, b;
  ts_matrix_csr_plan(A, &a);
  ts_matrix_csr_plan(B, &b);
  ts_csr_product p = {0};
  TS_BACKEND_CALL(backend, csr_multiply, &a, &b, &p);
  int ierr = p.rows == A->rows && p.cols == B->cols && p.nonzeros >= 0 && p.row_offsets &&
                     p.columns && p.values && p.row_offsets[p.rows] == p.nonzeros
                 ? 0
                 : TS_ERROR(TS_ERR_BACKEND, "backend '%s': csr_multiply returned a %lld x %lld "
                            "product with %lld entries for a %lld x %lld matrix", backend->name,
                            (long long)p.rows, (long long)p.cols, (long long)p.nonzeros,
                            (long long)A->rows, (long long)B->cols);
  ts_matrix c = NULL;
  if (!ierr) ierr = ts_calloc(1, sizeof *c, "sparse matrix", &c);
  if (ierr) {
    free(p.row_offsets);
    free(p.columns);
    free(p.values);
    return ierr;
  }
  c->rows = p.rows;
  c->cols = p.cols;
  c->nonzeros = p.nonzeros;
  c->row_offsets = p.row_offsets;
  c->columns = p.columns;
  c->values = p.values;
  c->dim = A->dim;
  *C = c;
  return 0;
}

int ts_matrix_multiply_on(ts_backend backend, ts_matrix A, ts_matrix B, ts_matrix *C) {
  TS_CHECK_NOT_NULL(C);
  *C = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(B);
  TS_CALL(check_product_sizes("ts_matrix_multiply_on", A, B));
  if (!backend || !backend->ops.csr_multiply) return ts_matrix_multiply(A, B, C);
  const int ierr = backend_multiply(backend, A, B, C);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "sparse product on a backend") : 0;
}

/* every entry of the n values finite */
static int check_finite(const char *what, int64_t n, const double *v) {
  for (int64_t i = 0; i < n; ++i)
    TS_CHECK_ARG(isfinite(v[i]), "%s: entry %lld is %g, a finite value is required", what,
                 (long long)i, v[i]);
  return 0;
}

int ts_matrix_scale(ts_matrix A, const double *row_scale, const double *column_scale) {
  TS_CHECK_NOT_NULL(A);
  if (row_scale) TS_CALL(check_finite("ts_matrix_scale: argument 'row_scale'", A->rows, row_scale));
  if (column_scale)
    TS_CALL(check_finite("ts_matrix_scale: argument 'column_scale'", A->cols, column_scale));
  for (int64_t i = 0; i < A->rows; ++i)
    for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; ++e) {
      if (row_scale) A->values[e] *= row_scale[i];
      if (column_scale) A->values[e] *= column_scale[A->columns[e]];
    }
  return 0;
}

/* the position of A_ii among row i's entries, -1 if it is not stored */
static int64_t diagonal_position(ts_matrix A, int64_t i) {
  for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; ++e)
    if (A->columns[e] == i) return e;
  return -1;
}

int ts_matrix_add_diagonal(ts_matrix A, const double *d) {
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(d);
  TS_CHECK_ARG(A->rows == A->cols, "ts_matrix_add_diagonal: A is %lld x %lld, not square",
               (long long)A->rows, (long long)A->cols);
  TS_CALL(check_finite("ts_matrix_add_diagonal: argument 'd'", A->rows, d));
  for (int64_t i = 0; i < A->rows; ++i)
    TS_CHECK_ARG(diagonal_position(A, i) >= 0 || d[i] == 0.0,
                 "ts_matrix_add_diagonal: row %lld stores no diagonal entry (the pattern is "
                 "kept: only stored entries change)", (long long)i);
  for (int64_t i = 0; i < A->rows; ++i)
    if (d[i] != 0.0) A->values[diagonal_position(A, i)] += d[i];
  return 0;
}

int ts_matrix_kronecker(ts_matrix A, ts_matrix B, ts_matrix *C) {
  TS_CHECK_NOT_NULL(C);
  *C = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(B);
  TS_CHECK_ARG(A->rows <= TS_MATRIX_MAX_SIZE / B->rows && A->cols <= TS_MATRIX_MAX_SIZE / B->cols,
               "ts_matrix_kronecker: %lld x %lld times %lld x %lld: more than %d rows or "
               "columns", (long long)A->rows, (long long)A->cols, (long long)B->rows,
               (long long)B->cols, TS_MATRIX_MAX_SIZE);
  ts_matrix c;
  TS_CALL(ts_matrix_alloc(A->rows * B->rows, A->cols * B->cols, &c));
  for (int64_t ia = 0; ia < A->rows; ++ia)
    for (int64_t ib = 0; ib < B->rows; ++ib) {
      const int64_t row = ia * B->rows + ib;
      c->row_offsets[row + 1] = c->row_offsets[row] +
                                (A->row_offsets[ia + 1] - A->row_offsets[ia]) *
                                    (B->row_offsets[ib + 1] - B->row_offsets[ib]);
    }
  const int ierr = ts_matrix_alloc_entries(c);
  if (ierr) {
    ts_matrix_destroy(&c);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Kronecker product");
  }
  int64_t out = 0; /* A's columns ascending, then B's: the row comes out sorted */
  for (int64_t ia = 0; ia < A->rows; ++ia)
    for (int64_t ib = 0; ib < B->rows; ++ib)
      for (int64_t e = A->row_offsets[ia]; e < A->row_offsets[ia + 1]; ++e)
        for (int64_t f = B->row_offsets[ib]; f < B->row_offsets[ib + 1]; ++f, ++out) {
          c->columns[out] = A->columns[e] * B->cols + B->columns[f];
          c->values[out] = A->values[e] * B->values[f];
        }
  *C = c;
  return 0;
}

int ts_matrix_kronecker_chain(int dim, const ts_matrix *F, double s, ts_matrix *out) {
  *out = NULL;
  ts_matrix product = NULL;
  int ierr = ts_matrix_kronecker(F[dim - 1], F[dim - 2], &product);
  for (int d = dim - 3; d >= 0 && !ierr; --d) {
    ts_matrix next = NULL;
    ierr = ts_matrix_kronecker(product, F[d], &next);
    ts_matrix_destroy(&product);
    product = next;
  }
  if (ierr) {
    ts_matrix_destroy(&product);
    return ierr;
  }
  for (int64_t e = 0; e < product->nonzeros; ++e) product->values[e] *= s;
  *out = product;
  return 0;
}

/* the entries of row i of alpha A + beta B into C's row (columns ascending; positions
 * from out), both rows merged; returns the entries written.  With values == 0 only counts. */
static int64_t merge_row(double alpha, ts_matrix A, double beta, ts_matrix B, int64_t i,
                         ts_matrix C, int64_t out, int values) {
  int64_t e = A->row_offsets[i], f = B->row_offsets[i];
  const int64_t e_end = A->row_offsets[i + 1], f_end = B->row_offsets[i + 1], start = out;
  while (e < e_end || f < f_end) {
    const int take_a = f == f_end || (e < e_end && A->columns[e] <= B->columns[f]);
    const int take_b = e == e_end || (f < f_end && B->columns[f] <= A->columns[e]);
    if (values) {
      C->columns[out] = take_a ? A->columns[e] : B->columns[f];
      C->values[out] = (take_a ? alpha * A->values[e] : 0.0) + (take_b ? beta * B->values[f] : 0.0);
    }
    ++out;
    e += take_a;
    f += take_b;
  }
  return out - start;
}

int ts_matrix_add(double alpha, ts_matrix A, double beta, ts_matrix B, ts_matrix *C) {
  TS_CHECK_NOT_NULL(C);
  *C = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(B);
  TS_CHECK_ARG(A->rows == B->rows && A->cols == B->cols,
               "ts_matrix_add: A is %lld x %lld and B %lld x %lld: the sizes must agree",
               (long long)A->rows, (long long)A->cols, (long long)B->rows, (long long)B->cols);
  TS_CHECK_ARG(isfinite(alpha) && isfinite(beta),
               "ts_matrix_add: alpha = %g and beta = %g, both must be finite", alpha, beta);
  ts_matrix c;
  TS_CALL(ts_matrix_alloc(A->rows, A->cols, &c));
  for (int64_t i = 0; i < A->rows; ++i)
    c->row_offsets[i + 1] = c->row_offsets[i] + merge_row(alpha, A, beta, B, i, c, 0, 0);
  const int ierr = ts_matrix_alloc_entries(c);
  if (ierr) {
    ts_matrix_destroy(&c);
    return ts_error_trace(ierr, __FILE__, __LINE__, "sparse sum");
  }
  for (int64_t i = 0; i < A->rows; ++i) merge_row(alpha, A, beta, B, i, c, c->row_offsets[i], 1);
  c->dim = A->dim ? A->dim : B->dim;
  *C = c;
  return 0;
}

/* the block sizes of a rows x cols grid (NULL blocks give none; every block row and column
 * needs one matrix that says it, and the others must agree) */
static int grid_sizes(int rows, int cols, const ts_matrix *blocks, int64_t *row_size,
                      int64_t *col_size) {
  for (int i = 0; i < rows; ++i) row_size[i] = -1;
  for (int j = 0; j < cols; ++j) col_size[j] = -1;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const ts_matrix b = blocks[i * cols + j];
      if (!b) continue;
      TS_CHECK_ARG((row_size[i] < 0 || row_size[i] == b->rows) &&
                       (col_size[j] < 0 || col_size[j] == b->cols),
                   "ts_matrix_create_block: block (%d,%d) is %lld x %lld, other blocks of its "
                   "row or column have %lld rows or %lld columns", i, j, (long long)b->rows,
                   (long long)b->cols, (long long)row_size[i], (long long)col_size[j]);
      row_size[i] = b->rows;
      col_size[j] = b->cols;
    }
  for (int i = 0; i < rows; ++i)
    TS_CHECK_ARG(row_size[i] >= 0, "ts_matrix_create_block: block row %d has only NULL blocks "
                 "(its size is unknown)", i);
  for (int j = 0; j < cols; ++j)
    TS_CHECK_ARG(col_size[j] >= 0, "ts_matrix_create_block: block column %d has only NULL "
                 "blocks (its size is unknown)", j);
  return 0;
}

int ts_matrix_create_block(int rows, int cols, const ts_matrix *blocks, ts_matrix *C) {
  TS_CHECK_NOT_NULL(C);
  *C = NULL;
  TS_CHECK_NOT_NULL(blocks);
  TS_CHECK_ARG(rows >= 1 && rows <= TS_BLOCK_MAX && cols >= 1 && cols <= TS_BLOCK_MAX,
               "ts_matrix_create_block: %d x %d blocks, allowed 1..%d each", rows, cols,
               TS_BLOCK_MAX);
  int64_t row_size[TS_BLOCK_MAX], col_size[TS_BLOCK_MAX], col_start[TS_BLOCK_MAX + 1] = {0};
  TS_CALL(grid_sizes(rows, cols, blocks, row_size, col_size));
  int64_t n_rows = 0;
  for (int i = 0; i < rows; ++i) n_rows += row_size[i];
  for (int j = 0; j < cols; ++j) col_start[j + 1] = col_start[j] + col_size[j];
  TS_CHECK_ARG(n_rows <= TS_MATRIX_MAX_SIZE && col_start[cols] <= TS_MATRIX_MAX_SIZE,
               "ts_matrix_create_block: %lld x %lld, more than %d rows or columns",
               (long long)n_rows, (long long)col_start[cols], TS_MATRIX_MAX_SIZE);
  ts_matrix c;
  TS_CALL(ts_matrix_alloc(n_rows, col_start[cols], &c));
  for (int i = 0, row = 0; i < rows; row += (int)row_size[i], ++i)
    for (int64_t r = 0; r < row_size[i]; ++r) {
      int64_t count = 0;
      for (int j = 0; j < cols; ++j) {
        const ts_matrix b = blocks[i * cols + j];
        if (b) count += b->row_offsets[r + 1] - b->row_offsets[r];
      }
      c->row_offsets[row + r + 1] = c->row_offsets[row + r] + count;
    }
  const int ierr = ts_matrix_alloc_entries(c);
  if (ierr) {
    ts_matrix_destroy(&c);
    return ts_error_trace(ierr, __FILE__, __LINE__, "block matrix");
  }
  for (int i = 0, row = 0; i < rows; row += (int)row_size[i], ++i)
    for (int64_t r = 0; r < row_size[i]; ++r) {
      int64_t out = c->row_offsets[row + r];
      for (int j = 0; j < cols; ++j) { /* block columns in order: the row stays ascending */
        const ts_matrix b = blocks[i * cols + j];
        for (int64_t e = b ? b->row_offsets[r] : 0; b && e < b->row_offsets[r + 1]; ++e, ++out) {
          c->columns[out] = col_start[j] + b->columns[e];
          c->values[out] = b->values[e];
        }
      }
    }
  for (int e = 0; e < rows * cols && !c->dim; ++e)
    if (blocks[e]) c->dim = blocks[e]->dim;
  *C = c;
  return 0;
}

int ts_matrix_extract_block(ts_matrix A, int64_t row0, int64_t rows, int64_t col0,
                            int64_t cols, double factor, ts_matrix *B) {
  *B = NULL;
  TS_CHECK_ARG(row0 >= 0 && rows >= 1 && row0 + rows <= A->rows && col0 >= 0 && cols >= 1 &&
                   col0 + cols <= A->cols,
               "matrix block: rows %lld..%lld and columns %lld..%lld of a %lld x %lld matrix",
               (long long)row0, (long long)(row0 + rows - 1), (long long)col0,
               (long long)(col0 + cols - 1), (long long)A->rows, (long long)A->cols);
  ts_matrix b;
  TS_CALL(ts_matrix_alloc(rows, cols, &b));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t count = 0;
    for (int64_t e = A->row_offsets[row0 + r]; e < A->row_offsets[row0 + r + 1]; ++e)
      count += A->columns[e] >= col0 && A->columns[e] < col0 + cols;
    b->row_offsets[r + 1] = b->row_offsets[r] + count;
  }
  const int ierr = ts_matrix_alloc_entries(b);
  if (ierr) {
    ts_matrix_destroy(&b);
    return ts_error_trace(ierr, __FILE__, __LINE__, "matrix block");
  }
  for (int64_t r = 0, out = 0; r < rows; ++r)
    for (int64_t e = A->row_offsets[row0 + r]; e < A->row_offsets[row0 + r + 1]; ++e)
      if (A->columns[e] >= col0 && A->columns[e] < col0 + cols) {
        b->columns[out] = A->columns[e] - col0;
        b->values[out++] = factor * A->values[e];
      }
  b->dim = A->dim;
  *B = b;
  return 0;
}
