/* coarse-dense.c -- an exact coarse solve by LU factorization of the assembled coarse
 * matrix (LAPACK dgetrf/dgetrs on the host), for systems too indefinite for CG and too slow
 * for unrestarted GMRES (paper 000, section 3: P_0^{-1} = Acal_0^{-1}).  The matrix is the
 * operator's sparse assembly where it has one (ts_operator_assemble: the Q_k Laplacian,
 * the RT and Taylor-Hood Stokes operators), else assembled column by column by applying the
 * operator to unit vectors (mapped cells).  A system singular
 * by one known vector z (Stokes: the constant pressure, null vector of Acal and of Acal^T,
 * doc/stokes.md section 3) is solved through the bordered matrix [Acal z; z^T 0], which is
 * then regular: for a right side b it returns the x with z^T x = 0 that solves
 * Acal x = b - (z^T b / z^T z) z, the exact solution when b is consistent.
 *
 * On a device backend (one with page-locked host memory: cuda, hip) the solve is not sent to
 * the host: the factors give the explicit inverse once (dgetri), whose leading n x n block -
 * for a right side with a zero border entry, the bordered solve - becomes a dense CSR
 * matrix applied by the backend's sparse product (cuSPARSE): n^2 entries read at the
 * device's bandwidth instead of a vector's round trip and dgetrs's n^2 at the host's: a
 * distributed hierarchy's coarse solve of 4,851 rows 23 ms -> 0.3 ms, 26 % -> 0.5 % of a
 * 4-GPU Poisson FMG (bench/results/2026-11-28-h200x4-agglomeration.md); dgetri adds about
 * 2 s to that hierarchy's setup (4/3 n^3 flops on the host, once).  The inverse is as
 * accurate as the factors' solve for these well-conditioned coarse matrices (both about
 * cond(A) eps). */
#include <string.h>
#include "mg-impl.h"
#include "../sparse/sparse-impl.h"

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info);
void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
             const int *lwork, int *info);

/* the largest coarse system the dense solve accepts: an n^2 matrix on the host (8000: 512 MB
 * of factors); on a device backend, whose solve reads the inverse at the device's bandwidth,
 * 16,000 (2 GB of factors on the host while it is made, 4 GB of CSR on the device) */
#define COARSE_DENSE_MAX 8000
#define COARSE_DENSE_MAX_DEVICE 16000

typedef struct dense_inverse {
  int n, m;                     /* operator size, bordered size (n or n + 1) */
  double *lu;                   /* m x m, column-major, LU factors */
  int *pivots;
  double *work;                 /* m */
  ts_operator device;           /* a device backend: the inverse's n x n block, applied there */
} dense_inverse;

/* the matrix M (n x n) into lu (leading dimension m) */
static int fill_from_matrix(ts_matrix M, dense_inverse *d) {
  const int64_t *row_offsets, *columns;
  const double *values;
  TS_CALL(ts_matrix_csr(M, &row_offsets, &columns, &values));
  for (int i = 0; i < d->n; ++i)
    for (int64_t e = row_offsets[i]; e < row_offsets[i + 1]; ++e)
      d->lu[(size_t)columns[e] * d->m + i] = values[e];
  return 0;
}

/* the operator's sparse assembly (ts_operator_assemble) into lu */
static int assemble_sparse(ts_operator A, dense_inverse *d) {
  ts_matrix M;
  TS_CALL(ts_operator_assemble(A, &M));
  const int ierr = fill_from_matrix(M, d);
  ts_matrix_destroy(&M);
  return ierr;
}

/* the operator's matrix into lu (leading dimension m): from its sparse assembly where it has
 * one (a composition whose parts lack one says so: TS_ERR_UNSUPPORTED), else column by
 * column, the operator applied to unit vectors */
static int assemble(ts_operator A, dense_inverse *d) {
  if (A->ops->assemble) {
    const int ierr = assemble_sparse(A, d);
    if (ierr != TS_ERR_UNSUPPORTED) return ierr;
    ts_error_clear(); /* not an error here: probe instead */
    memset(d->lu, 0, (size_t)d->m * d->m * sizeof *d->lu);
  }
  const int n = d->n;
  ts_vec e, col;
  TS_CALL(ts_vec_create(A->backend, n, TS_DOUBLE, &e));
  int ierr = ts_vec_create(A->backend, n, TS_DOUBLE, &col);
  for (int j = 0; j < n && !ierr; ++j) {
    memset(d->work, 0, (size_t)n * sizeof *d->work);
    d->work[j] = 1.0;
    ierr = ts_vec_set_from_host(e, d->work);
    if (!ierr) ierr = ts_operator_apply(A, e, col);
    if (!ierr) ierr = ts_vec_get_to_host(col, d->lu + (size_t)j * d->m);
  }
  ts_vec_destroy(&e);
  ts_vec_destroy(&col);
  return ierr;
}

/* the border [z; z^T 0] of the bordered matrix */
static void border(dense_inverse *d, const double *z) {
  const int n = d->n, m = d->m;
  for (int i = 0; i < n; ++i) {
    d->lu[(size_t)n * m + i] = z[i];   /* last column */
    d->lu[(size_t)i * m + n] = z[i];   /* last row */
  }
  d->lu[(size_t)n * m + n] = 0.0;
}

static int dense_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  dense_inverse *d = op->data;
  TS_CHECK_ARG(!add, "dense coarse solve: y += A^{-1} x is not provided");
  if (d->device) return ts_operator_apply(d->device, x, y);
  TS_CALL(ts_vec_get_to_host(x, d->work));
  if (d->m > d->n) d->work[d->n] = 0.0;
  int one = 1, info = 0;
  dgetrs_("N", &d->m, &one, d->lu, &d->m, d->pivots, d->work, &d->m, &info);
  if (info) return TS_ERROR(TS_ERR_LAPACK, "dgetrs failed for the %dx%d coarse matrix: info = %d",
                            d->m, d->m, info);
  TS_CALL(ts_vec_set_from_host(y, d->work));
  return 0;
}

static void dense_destroy(ts_operator op) {
  dense_inverse *d = op->data;
  if (!d) return;
  ts_operator_destroy(&d->device);
  ts_free(&d->lu);
  ts_free(&d->pivots);
  ts_free(&d->work);
  ts_free(&op->data);
}

static const ts_operator_ops dense_inverse_ops = {
    .name = "dense-inverse",
    .apply = dense_apply,
    .destroy = dense_destroy,
};

/* the operator shell of n rows (bordered by null_vector when given) with its arrays; the
 * matrix is filled by the caller, then factored by factor() */
static int dense_create(ts_backend backend, int64_t n, const double *null_vector,
                        ts_operator *inverse, dense_inverse **dense) {
  *inverse = NULL;
  const int limit = backend->ops.host_alloc ? COARSE_DENSE_MAX_DEVICE : COARSE_DENSE_MAX;
  TS_CHECK_ARG(n <= limit, "dense coarse solve: %lld coarse DoFs, at most %d on backend '%s' "
               "(%d on a GPU): choose a coarser coarse_level", (long long)n, limit,
               backend->name, COARSE_DENSE_MAX_DEVICE);
  dense_inverse *d;
  TS_CALL(ts_calloc(1, sizeof *d, "dense coarse solve", &d));
  const int ierr = ts_operator_create_shell(backend, &dense_inverse_ops, n, TS_DOUBLE, d, inverse);
  if (ierr) {
    ts_free(&d);
    return ierr;
  }
  d->n = (int)n;
  d->m = d->n + (null_vector ? 1 : 0);
  TS_CALL(ts_calloc((size_t)d->m * d->m, sizeof *d->lu, "dense coarse matrix", &d->lu));
  TS_CALL(ts_calloc((size_t)d->m, sizeof *d->pivots, "dense coarse pivots", &d->pivots));
  TS_CALL(ts_calloc((size_t)d->m, sizeof *d->work, "dense coarse work vector", &d->work));
  *dense = d;
  return 0;
}

/* the border (when null_vector is given) and the LU factors */
static int factor(dense_inverse *d, const double *null_vector) {
  if (null_vector) border(d, null_vector);
  int info = 0;
  dgetrf_(&d->m, &d->m, d->lu, &d->m, d->pivots, &info);
  if (info)
    return TS_ERROR(TS_ERR_LAPACK, "dgetrf: the %dx%d coarse matrix is singular (info = %d)",
                    d->m, d->m, info);
  return 0;
}

/* The inverse's leading n x n block from the factors (dgetri) as a dense CSR matrix on the
 * backend; the factors are freed */
static int device_inverse(ts_backend backend, dense_inverse *d) {
  int lwork = -1, info = 0;
  double size = 0.0;
  dgetri_(&d->m, d->lu, &d->m, d->pivots, &size, &lwork, &info); /* the workspace's size */
  lwork = info ? d->m : (int)size;
  double *work;
  TS_CALL(ts_calloc((size_t)lwork, sizeof *work, "dense coarse inverse workspace", &work));
  dgetri_(&d->m, d->lu, &d->m, d->pivots, work, &lwork, &info);
  ts_free(&work);
  if (info) return TS_ERROR(TS_ERR_LAPACK, "dgetri failed for the %dx%d coarse matrix: info = %d",
                            d->m, d->m, info);
  const int64_t n = d->n;
  ts_matrix M;
  TS_CALL(ts_matrix_alloc(n, n, &M));
  for (int64_t i = 0; i <= n; ++i) M->row_offsets[i] = i * n;
  int ierr = ts_matrix_alloc_entries(M);
  for (int64_t i = 0; i < n && !ierr; ++i)
    for (int64_t j = 0; j < n; ++j) {
      M->columns[i * n + j] = j;
      M->values[i * n + j] = d->lu[(size_t)j * d->m + i]; /* column-major */
    }
  if (!ierr) ierr = ts_operator_create_matrix(backend, M, TS_DOUBLE, &d->device);
  ts_matrix_destroy(&M);
  if (!ierr) ts_free(&d->lu);
  return ierr;
}

/* the factors, and on a device backend the inverse there (device_inverse) */
static int finish(ts_backend backend, dense_inverse *d, const double *null_vector) {
  TS_CALL(factor(d, null_vector));
  return backend->ops.host_alloc ? device_inverse(backend, d) : 0;
}

int ts_mg_dense_inverse_create(ts_operator A, const double *null_vector, ts_operator *inverse) {
  TS_CHECK_ARG(A->precision == TS_DOUBLE, "dense coarse solve: the operator must be double");
  dense_inverse *d = NULL;
  int ierr = dense_create(A->backend, A->n, null_vector, inverse, &d);
  if (!ierr) ierr = assemble(A, d);
  if (!ierr) ierr = finish(A->backend, d, null_vector);
  if (ierr) ts_operator_destroy(inverse);
  return ierr;
}

int ts_mg_dense_inverse_create_matrix(ts_backend backend, ts_matrix M, const double *null_vector,
                                      ts_operator *inverse) {
  TS_CHECK_ARG(ts_matrix_rows(M) == ts_matrix_columns(M),
               "dense coarse solve: the matrix is %lld x %lld, a square one is required",
               (long long)ts_matrix_rows(M), (long long)ts_matrix_columns(M));
  dense_inverse *d = NULL;
  int ierr = dense_create(backend, ts_matrix_rows(M), null_vector, inverse, &d);
  if (!ierr) ierr = fill_from_matrix(M, d);
  if (!ierr) ierr = finish(backend, d, null_vector);
  if (ierr) ts_operator_destroy(inverse);
  return ierr;
}
