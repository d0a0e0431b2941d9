/* csr.c -- ts_matrix: a sparse matrix in compressed sparse row form on the host, built from
 * triplets (duplicates summed), and ts_operator_create_matrix, its product y = A x on a
 * backend (the backend's csr_* kernels; the diagonal is taken here, on the host). */
#include <math.h>
#include <stdlib.h>
#include "sparse-impl.h"

int ts_matrix_alloc(int64_t rows, int64_t cols, ts_matrix *A) {
  ts_matrix m;
  TS_CALL(ts_calloc(1, sizeof *m, "sparse matrix", &m));
  m->rows = rows;
  m->cols = cols;
  const int ierr = ts_calloc((size_t)rows + 1, sizeof *m->row_offsets, "sparse matrix row offsets",
                             &m->row_offsets);
  if (ierr) {
    ts_free(&m);
    return ierr;
  }
  *A = m;
  return 0;
}

int ts_matrix_alloc_entries(ts_matrix A) {
  A->nonzeros = A->row_offsets[A->rows];
  const size_t count = A->nonzeros ? (size_t)A->nonzeros : 1;
  TS_CALL(ts_calloc(count, sizeof *A->columns, "sparse matrix column indices", &A->columns));
  TS_CALL(ts_calloc(count, sizeof *A->values, "sparse matrix values", &A->values));
  return 0;
}

int ts_matrix_destroy(ts_matrix *A) {
  if (!A || !*A) return 0;
  ts_free(&(*A)->row_offsets);
  ts_free(&(*A)->columns);
  ts_free(&(*A)->values);
  ts_free(A);
  return 0;
}

/* ---------------------------------------------------------------- from triplets */

/* One triplet of a row while the row is sorted: its column and its position in the input,
 * so that duplicates are summed in input order (the same matrix on every run). */
typedef struct row_entry {
  int64_t column, triplet;
} row_entry;

static int compare_row_entries(const void *a, const void *b) {
  const row_entry *x = a, *y = b;
  if (x->column != y->column) return x->column < y->column ? -1 : 1;
  return (x->triplet > y->triplet) - (x->triplet < y->triplet);
}

static int check_triplets(int64_t rows, int64_t cols, int64_t count, const int64_t *row_indices,
                          const int64_t *col_indices, const double *values) {
  for (int64_t t = 0; t < count; ++t) {
    TS_CHECK_ARG(row_indices[t] >= 0 && row_indices[t] < rows,
                 "ts_matrix_create_triplets: argument 'row_indices': entry %lld is %lld, "
                 "allowed 0..%lld", (long long)t, (long long)row_indices[t], (long long)rows - 1);
    TS_CHECK_ARG(col_indices[t] >= 0 && col_indices[t] < cols,
                 "ts_matrix_create_triplets: argument 'col_indices': entry %lld is %lld, "
                 "allowed 0..%lld", (long long)t, (long long)col_indices[t], (long long)cols - 1);
    TS_CHECK_ARG(isfinite(values[t]),
                 "ts_matrix_create_triplets: argument 'values': entry %lld is %g, a finite "
                 "value is required", (long long)t, values[t]);
  }
  return 0;
}

/* The triplets of each row in input order (a stable counting sort by row): row i's are
 * entries[start[i] .. start[i+1]-1].  A's row offsets serve as the buckets' fill pointers. */
static void bucket_by_row(ts_matrix A, int64_t count, const int64_t *row_indices,
                          const int64_t *col_indices, int64_t *start, row_entry *entries) {
  for (int64_t t = 0; t < count; ++t) ++start[row_indices[t] + 1];
  for (int64_t i = 0; i < A->rows; ++i) start[i + 1] += start[i];
  int64_t *fill = A->row_offsets;
  for (int64_t i = 0; i < A->rows; ++i) fill[i] = start[i];
  for (int64_t t = 0; t < count; ++t) {
    row_entry *e = &entries[fill[row_indices[t]]++];
    e->column = col_indices[t];
    e->triplet = t;
  }
}

/* Sort each row's triplets by column and set A's row offsets to the merged rows' lengths
 * (one entry per distinct column). */
static void sort_rows(ts_matrix A, const int64_t *start, row_entry *entries) {
  A->row_offsets[0] = 0;
  for (int64_t i = 0; i < A->rows; ++i) {
    row_entry *row = entries + start[i];
    const int64_t length = start[i + 1] - start[i];
    qsort(row, (size_t)length, sizeof *row, compare_row_entries);
    int64_t distinct = 0;
    for (int64_t e = 0; e < length; ++e) distinct += e == 0 || row[e].column != row[e - 1].column;
    A->row_offsets[i + 1] = A->row_offsets[i] + distinct;
  }
}

/* A's columns and values: the triplets of one column summed (in input order) */
static void merge_rows(ts_matrix A, const int64_t *start, const row_entry *entries,
                       const double *values) {
  for (int64_t i = 0; i < A->rows; ++i) {
    int64_t out = A->row_offsets[i] - 1;
    for (int64_t e = start[i]; e < start[i + 1]; ++e) {
      if (e == start[i] || entries[e].column != entries[e - 1].column) {
        A->columns[++out] = entries[e].column;
        A->values[out] = 0.0;
      }
      A->values[out] += values[entries[e].triplet];
    }
  }
}

static int build_from_triplets(ts_matrix A, int64_t count, const int64_t *row_indices,
                               const int64_t *col_indices, const double *values) {
  int64_t *start;
  row_entry *entries = NULL;
  TS_CALL(ts_calloc((size_t)A->rows + 1, sizeof *start, "triplet row starts", &start));
  int ierr = ts_calloc(count ? (size_t)count : 1, sizeof *entries, "triplet sort", &entries);
  if (!ierr) {
    bucket_by_row(A, count, row_indices, col_indices, start, entries);
    sort_rows(A, start, entries);
    ierr = ts_matrix_alloc_entries(A);
  }
  if (!ierr) merge_rows(A, start, entries, values);
  free(start);
  free(entries);
  return ierr;
}

int ts_matrix_create_triplets(int64_t rows, int64_t cols, int64_t count,
                              const int64_t *row_indices, const int64_t *col_indices,
                              const double *values, ts_matrix *A) {
  TS_CHECK_NOT_NULL(A);
  *A = NULL;
  TS_CHECK_ARG(rows >= 1 && rows <= TS_MATRIX_MAX_SIZE,
               "ts_matrix_create_triplets: argument 'rows' is %lld, allowed 1..%d",
               (long long)rows, TS_MATRIX_MAX_SIZE);
  TS_CHECK_ARG(cols >= 1 && cols <= TS_MATRIX_MAX_SIZE,
               "ts_matrix_create_triplets: argument 'cols' is %lld, allowed 1..%d",
               (long long)cols, TS_MATRIX_MAX_SIZE);
  TS_CHECK_ARG(count >= 0, "ts_matrix_create_triplets: argument 'count' is %lld, must be >= 0",
               (long long)count);
  if (count > 0) {
    TS_CHECK_NOT_NULL(row_indices);
    TS_CHECK_NOT_NULL(col_indices);
    TS_CHECK_NOT_NULL(values);
    TS_CALL(check_triplets(rows, cols, count, row_indices, col_indices, values));
  }
  ts_matrix m;
  TS_CALL(ts_matrix_alloc(rows, cols, &m));
  const int ierr = build_from_triplets(m, count, row_indices, col_indices, values);
  if (ierr) {
    ts_matrix_destroy(&m);
    return ts_error_trace(ierr, __FILE__, __LINE__, "sparse matrix from triplets");
  }
  *A = m;
  return 0;
}

/* ---------------------------------------------------------------- queries */

int64_t ts_matrix_rows(ts_matrix A) {
  TS_GETTER_NOT_NULL(A, -1);
  return A->rows;
}

int64_t ts_matrix_columns(ts_matrix A) {
  TS_GETTER_NOT_NULL(A, -1);
  return A->cols;
}

int64_t ts_matrix_nonzeros(ts_matrix A) {
  TS_GETTER_NOT_NULL(A, -1);
  return A->nonzeros;
}

int ts_matrix_csr(ts_matrix A, const int64_t **row_offsets, const int64_t **columns,
                  const double **values) {
  TS_CHECK_NOT_NULL(A);
  if (row_offsets) *row_offsets = A->row_offsets;
  if (columns) *columns = A->columns;
  if (values) *values = A->values;
  return 0;
}

void ts_matrix_csr_plan(ts_matrix A, ts_csr_plan *plan) {
  plan->rows = A->rows;
  plan->cols = A->cols;
  plan->nonzeros = A->nonzeros;
  plan->row_offsets = A->row_offsets;
  plan->columns = A->columns;
  plan->values = A->values;
}

/* ---------------------------------------------------------------- the operator y = A x */

typedef struct matrix_data {
  void *handle;                 /* the backend's copy (csr_create) */
  void *transpose;              /* the backend's copy of A^T, or NULL */
  double *diagonal;             /* rows entries (0 where no diagonal entry is stored) */
  int64_t nonzeros;
} matrix_data;

static int matrix_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  matrix_data *data = op->data;
  TS_BACKEND_CALL(op->backend, csr_apply, data->handle, x->data, y->data, add);
  return 0;
}

static int matrix_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  matrix_data *data = op->data;
  TS_BACKEND_CALL(op->backend, csr_apply, data->transpose, x->data, y->data, add);
  return 0;
}

static int matrix_diagonal(ts_operator op, ts_vec d) {
  const matrix_data *data = op->data;
  TS_CALL(ts_vec_set_from_host(d, data->diagonal));
  return 0;
}

/* one multiply and one add per stored entry */
static double matrix_flops(ts_operator op) {
  const matrix_data *data = op->data;
  return 2.0 * (double)data->nonzeros;
}

static void matrix_destroy(ts_operator op) {
  matrix_data *data = op->data;
  if (data->handle) op->backend->ops.csr_destroy(&op->backend->ops, data->handle);
  if (data->transpose) op->backend->ops.csr_destroy(&op->backend->ops, data->transpose);
  ts_free(&data->diagonal);
  ts_free(&op->data);
}

static const ts_operator_ops matrix_ops = {
    .name = "matrix",
    .apply = matrix_apply,
    .diagonal = matrix_diagonal,
    .flops = matrix_flops,
    .destroy = matrix_destroy,
};

static const ts_operator_ops matrix_transposable_ops = {
    .name = "matrix",
    .apply = matrix_apply,
    .apply_transpose = matrix_apply_transpose,
    .diagonal = matrix_diagonal,
    .flops = matrix_flops,
    .destroy = matrix_destroy,
};

/* the diagonal entries a_ii of a square or rectangular A (i < min(rows, cols)) */
static void extract_diagonal(ts_matrix A, double *diagonal) {
  for (int64_t i = 0; i < A->rows; ++i)
    for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; ++e)
      if (A->columns[e] == i) diagonal[i] = A->values[e];
}

static int require_csr_kernels(ts_backend backend) {
  const ts_backend_ops *ops = &backend->ops;
  if (!ops->csr_create || !ops->csr_apply || !ops->csr_destroy)
    return TS_ERROR(TS_ERR_UNSUPPORTED,
                    "backend '%s' has no sparse matrix kernels (csr_create, csr_apply, "
                    "csr_destroy): use a backend that has them (omp, cuda)", backend->name);
  return 0;
}

static int create_backend_copy(ts_backend backend, ts_matrix A, ts_precision p, void **handle) {
  ts_csr_plan plan;
  ts_matrix_csr_plan(A, &plan);
  TS_BACKEND_CALL(backend, csr_create, &plan, p, handle);
  return 0;
}

/* the backend copies of A (and of A^T when transposable) */
static int create_backend_copies(ts_backend backend, ts_matrix A, ts_precision p,
                                 int transposable, matrix_data *data) {
  TS_CALL(create_backend_copy(backend, A, p, &data->handle));
  if (!transposable) return 0;
  ts_matrix T;
  TS_CALL(ts_matrix_transpose(A, &T));
  const int ierr = create_backend_copy(backend, T, p, &data->transpose);
  ts_matrix_destroy(&T);
  return ierr;
}

static int create_matrix_operator(ts_backend backend, ts_matrix A, ts_precision p,
                                  int transposable, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_ARG(p == TS_DOUBLE || p == TS_SINGLE,
               "ts_operator_create_matrix: argument 'p' is %d, allowed TS_DOUBLE (0) or "
               "TS_SINGLE (1)", (int)p);
  TS_CALL(require_csr_kernels(backend));
  matrix_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "matrix operator", &data));
  data->nonzeros = A->nonzeros;
  int ierr = ts_calloc((size_t)A->rows, sizeof *data->diagonal, "matrix diagonal", &data->diagonal);
  if (!ierr) {
    extract_diagonal(A, data->diagonal);
    ierr = create_backend_copies(backend, A, p, transposable, data);
  }
  if (!ierr)
    ierr = ts_operator_create_shell_rect(backend, transposable ? &matrix_transposable_ops
                                                               : &matrix_ops,
                                         A->rows, A->cols, p, data, op);
  if (ierr) {
    if (data->handle) backend->ops.csr_destroy(&backend->ops, data->handle);
    if (data->transpose) backend->ops.csr_destroy(&backend->ops, data->transpose);
    ts_free(&data->diagonal);
    ts_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "matrix operator setup");
  }
  return 0;
}

int ts_operator_create_matrix(ts_backend backend, ts_matrix A, ts_precision p, ts_operator *op) {
  TS_CALL(create_matrix_operator(backend, A, p, 0, op));
  return 0;
}

int ts_operator_create_matrix_transposable(ts_backend backend, ts_matrix A, ts_precision p,
                                           ts_operator *op) {
  TS_CALL(create_matrix_operator(backend, A, p, 1, op));
  return 0;
}
