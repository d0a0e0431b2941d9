/* gpu-csr.h -- the GPU backends' CSR sparse matrix, written once for cuSPARSE (cuda:
 * backends/cuda/csr.cu) and hipSPARSE (hip: backends/hip/csr.cpp): device copies of the row
 * offsets, column indices (64-bit) and values made once by ts_gpu_csr_create, and y = A x
 * by the generic SpMV (CSR descriptor, the SPMV_CSR_ALG2 algorithm: on cuSPARSE bit-wise
 * the same result on every run, where the default CSR_ALG1 is not guaranteed to be) on the
 * default stream, in double or single precision; the product C = A B of two host matrices
 * by the generic SpGEMM (ts_gpu_csr_multiply, at the end).  Every runtime and sparse-library
 * call is checked.  The gpusparse names map to cusparse or hipsparse as gpu-runtime.h's gpu names
 * do (TS_GPU_HIP). */
#ifndef TESSERA_GPU_CSR_H
#define TESSERA_GPU_CSR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include "gpu-runtime.h"
#include "tessera/backend.h"

#ifdef TS_GPU_HIP
#include <hipsparse/hipsparse.h>
#define gpusparseStatus_t hipsparseStatus_t
#define GPUSPARSE_STATUS_SUCCESS HIPSPARSE_STATUS_SUCCESS
#define gpusparseHandle_t hipsparseHandle_t
#define gpusparseSpMatDescr_t hipsparseSpMatDescr_t
#define gpusparseDnVecDescr_t hipsparseDnVecDescr_t
#define gpusparseCreate hipsparseCreate
#define gpusparseDestroy hipsparseDestroy
#define gpusparseCreateCsr hipsparseCreateCsr
#define gpusparseDestroySpMat hipsparseDestroySpMat
#define gpusparseCreateDnVec hipsparseCreateDnVec
#define gpusparseDnVecSetValues hipsparseDnVecSetValues
#define gpusparseDestroyDnVec hipsparseDestroyDnVec
#define gpusparseSpMV_bufferSize hipsparseSpMV_bufferSize
#define gpusparseSpMV hipsparseSpMV
#define gpusparseOperation_t hipsparseOperation_t
#define gpusparseSpGEMMDescr_t hipsparseSpGEMMDescr_t
#define gpusparseSpGEMM_createDescr hipsparseSpGEMM_createDescr
#define gpusparseSpGEMM_destroyDescr hipsparseSpGEMM_destroyDescr
#define gpusparseSpGEMM_workEstimation hipsparseSpGEMM_workEstimation
#define gpusparseSpGEMM_compute hipsparseSpGEMM_compute
#define gpusparseSpGEMM_copy hipsparseSpGEMM_copy
#define gpusparseSpMatGetSize hipsparseSpMatGetSize
#define gpusparseCsrSetPointers hipsparseCsrSetPointers
#define GPUSPARSE_SPGEMM_DEFAULT HIPSPARSE_SPGEMM_DEFAULT
#define GPUSPARSE_INDEX_32I HIPSPARSE_INDEX_32I
#define GPUSPARSE_OPERATION_NON_TRANSPOSE HIPSPARSE_OPERATION_NON_TRANSPOSE
#define GPUSPARSE_INDEX_64I HIPSPARSE_INDEX_64I
#define GPUSPARSE_INDEX_BASE_ZERO HIPSPARSE_INDEX_BASE_ZERO
#define GPUSPARSE_SPMV_CSR_ALG2 HIPSPARSE_SPMV_CSR_ALG2
#define gpuDataType hipDataType
#define GPU_R_64F HIP_R_64F
#define GPU_R_32F HIP_R_32F
/* hipSPARSE has no message function: the status's name */
static inline const char *gpusparseGetErrorString(hipsparseStatus_t s) {
  static const char *const names[] = {
      "HIPSPARSE_STATUS_SUCCESS",          "HIPSPARSE_STATUS_NOT_INITIALIZED",
      "HIPSPARSE_STATUS_ALLOC_FAILED",     "HIPSPARSE_STATUS_INVALID_VALUE",
      "HIPSPARSE_STATUS_ARCH_MISMATCH",    "HIPSPARSE_STATUS_MAPPING_ERROR",
      "HIPSPARSE_STATUS_EXECUTION_FAILED", "HIPSPARSE_STATUS_INTERNAL_ERROR",
      "HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "HIPSPARSE_STATUS_ZERO_PIVOT",
      "HIPSPARSE_STATUS_NOT_SUPPORTED",    "HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES"};
  const int i = (int)s;
  return i >= 0 && i < (int)(sizeof names / sizeof *names) ? names[i] : "unknown hipSPARSE status";
}
#else
#include <cusparse.h>
#define gpusparseStatus_t cusparseStatus_t
#define GPUSPARSE_STATUS_SUCCESS CUSPARSE_STATUS_SUCCESS
#define gpusparseHandle_t cusparseHandle_t
#define gpusparseSpMatDescr_t cusparseSpMatDescr_t
#define gpusparseDnVecDescr_t cusparseDnVecDescr_t
#define gpusparseCreate cusparseCreate
#define gpusparseDestroy cusparseDestroy
#define gpusparseCreateCsr cusparseCreateCsr
#define gpusparseDestroySpMat cusparseDestroySpMat
#define gpusparseCreateDnVec cusparseCreateDnVec
#define gpusparseDnVecSetValues cusparseDnVecSetValues
#define gpusparseDestroyDnVec cusparseDestroyDnVec
#define gpusparseSpMV_bufferSize cusparseSpMV_bufferSize
#define gpusparseSpMV cusparseSpMV
#define gpusparseOperation_t cusparseOperation_t
#define gpusparseSpGEMMDescr_t cusparseSpGEMMDescr_t
#define gpusparseSpGEMM_createDescr cusparseSpGEMM_createDescr
#define gpusparseSpGEMM_destroyDescr cusparseSpGEMM_destroyDescr
#define gpusparseSpGEMM_workEstimation cusparseSpGEMM_workEstimation
#define gpusparseSpGEMM_compute cusparseSpGEMM_compute
#define gpusparseSpGEMM_copy cusparseSpGEMM_copy
#define gpusparseSpMatGetSize cusparseSpMatGetSize
#define gpusparseCsrSetPointers cusparseCsrSetPointers
#define GPUSPARSE_SPGEMM_DEFAULT CUSPARSE_SPGEMM_DEFAULT
#define GPUSPARSE_INDEX_32I CUSPARSE_INDEX_32I
#define GPUSPARSE_OPERATION_NON_TRANSPOSE CUSPARSE_OPERATION_NON_TRANSPOSE
#define GPUSPARSE_INDEX_64I CUSPARSE_INDEX_64I
#define GPUSPARSE_INDEX_BASE_ZERO CUSPARSE_INDEX_BASE_ZERO
#define GPUSPARSE_SPMV_CSR_ALG2 CUSPARSE_SPMV_CSR_ALG2
#define gpuDataType cudaDataType
#define GPU_R_64F CUDA_R_64F
#define GPU_R_32F CUDA_R_32F
#define gpusparseGetErrorString cusparseGetErrorString
#endif

#define GPUSPARSE_CHECK(err, what, call)                                                  \
  do {                                                                                    \
    gpusparseStatus_t gpusparse_s_ = (call);                                              \
    if (gpusparse_s_ != GPUSPARSE_STATUS_SUCCESS) {                                       \
      snprintf((err), TS_BACKEND_ERROR_SIZE, "%s: %s: %s failed: %s", TS_GPU_NAME, (what), \
               #call, gpusparseGetErrorString(gpusparse_s_));                             \
      return TS_ERR_BACKEND;                                                              \
    }                                                                                     \
  } while (0)

typedef struct gpu_csr {
  ts_precision precision;
  int64_t rows, cols, nonzeros;
  int64_t *row_offsets, *columns; /* device */
  void *values;                   /* device, doubles or floats */
  gpusparseHandle_t sparse;
  gpusparseSpMatDescr_t matrix;
  gpusparseDnVecDescr_t x, y;      /* their values are set per application */
  void *buffer;                   /* SpMV work space (may stay NULL) */
} gpu_csr;

static gpuDataType value_type(ts_precision p) { return p == TS_SINGLE ? GPU_R_32F : GPU_R_64F; }
static size_t value_size(ts_precision p) { return p == TS_SINGLE ? sizeof(float) : sizeof(double); }

/* the values on the device in the handle's precision (singles rounded on the host first) */
static int copy_values(gpu_csr *a, const ts_csr_plan *plan, char *err) {
  const size_t n = (size_t)plan->nonzeros;
  if (a->precision == TS_DOUBLE) {
    GPU_CHECK(err, "csr_create (values)",
              gpuMemcpy(a->values, plan->values, n * sizeof(double), gpuMemcpyHostToDevice));
    return 0;
  }
  float *h = (float *)malloc(n ? n * sizeof(float) : 1);
  if (!h) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_create: out of host memory (%zu floats)", TS_GPU_NAME, n);
    return TS_ERR_MEMORY;
  }
  for (size_t e = 0; e < n; ++e) h[e] = (float)plan->values[e];
  const gpuError_t e = gpuMemcpy(a->values, h, n * sizeof(float), gpuMemcpyHostToDevice);
  free(h);
  GPU_CHECK(err, "csr_create (values)", e);
  return 0;
}

static int copy_arrays(gpu_csr *a, const ts_csr_plan *plan, char *err) {
  const size_t offsets = ((size_t)plan->rows + 1) * sizeof(int64_t);
  const size_t entries = (size_t)(plan->nonzeros ? plan->nonzeros : 1);
  GPU_CHECK(err, "csr_create (row offsets)", gpuMalloc((void **)&a->row_offsets, offsets));
  GPU_CHECK(err, "csr_create (columns)", gpuMalloc((void **)&a->columns, entries * sizeof(int64_t)));
  GPU_CHECK(err, "csr_create (values)", gpuMalloc(&a->values, entries * value_size(a->precision)));
  GPU_CHECK(err, "csr_create (row offsets)",
            gpuMemcpy(a->row_offsets, plan->row_offsets, offsets, gpuMemcpyHostToDevice));
  GPU_CHECK(err, "csr_create (columns)",
            gpuMemcpy(a->columns, plan->columns, (size_t)plan->nonzeros * sizeof(int64_t),
                      gpuMemcpyHostToDevice));
  return copy_values(a, plan, err);
}

/* The SpMV work space: its size is asked with temporary vectors of the right sizes (the
 * dense descriptors get the caller's vectors at each application). */
static int prepare_spmv(gpu_csr *a, char *err) {
  const gpuDataType t = value_type(a->precision);
  const size_t bytes = value_size(a->precision);
  void *x = NULL, *y = NULL;
  GPU_CHECK(err, "csr_create (probe vectors)", gpuMalloc(&x, (size_t)a->cols * bytes));
  gpuError_t e = gpuMalloc(&y, (size_t)a->rows * bytes);
  if (e != gpuSuccess) {
    (void)gpuFree(x);
    GPU_CHECK(err, "csr_create (probe vectors)", e);
  }
  gpusparseStatus_t s = gpusparseCreateDnVec(&a->x, a->cols, x, t);
  if (s == GPUSPARSE_STATUS_SUCCESS) s = gpusparseCreateDnVec(&a->y, a->rows, y, t);
  size_t buffer_bytes = 0;
  const double one = 1.0, zero = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const void *alpha = a->precision == TS_SINGLE ? (const void *)&one_f : (const void *)&one;
  const void *beta = a->precision == TS_SINGLE ? (const void *)&zero_f : (const void *)&zero;
  if (s == GPUSPARSE_STATUS_SUCCESS)
    s = gpusparseSpMV_bufferSize(a->sparse, GPUSPARSE_OPERATION_NON_TRANSPOSE, alpha, a->matrix,
                                a->x, beta, a->y, t, GPUSPARSE_SPMV_CSR_ALG2, &buffer_bytes);
  e = gpuFree(x);
  const gpuError_t e2 = gpuFree(y);
  GPUSPARSE_CHECK(err, "csr_create (SpMV work space size)", s);
  GPU_CHECK(err, "csr_create (probe vectors)", e);
  GPU_CHECK(err, "csr_create (probe vectors)", e2);
  if (buffer_bytes) GPU_CHECK(err, "csr_create (SpMV work space)", gpuMalloc(&a->buffer, buffer_bytes));
  return 0;
}

static int setup(gpu_csr *a, const ts_csr_plan *plan, char *err) {
  const int rc = copy_arrays(a, plan, err);
  if (rc) return rc;
  GPUSPARSE_CHECK(err, "csr_create", gpusparseCreate(&a->sparse));
  GPUSPARSE_CHECK(err, "csr_create",
                 gpusparseCreateCsr(&a->matrix, a->rows, a->cols, a->nonzeros, a->row_offsets,
                                   a->columns, a->values, GPUSPARSE_INDEX_64I, GPUSPARSE_INDEX_64I,
                                   GPUSPARSE_INDEX_BASE_ZERO, value_type(a->precision)));
  return prepare_spmv(a, err);
}

int ts_gpu_csr_destroy(void *handle, char *err); /* below; declared in gpu-backend.h */

int ts_gpu_csr_create(const ts_csr_plan *plan, ts_precision p, void **handle, char *err) {
  *handle = NULL;
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s csr_create: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", TS_GPU_NAME, (int)p);
    return TS_ERR_ARG;
  }
  gpu_csr *a = (gpu_csr *)calloc(1, sizeof *a);
  if (!a) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_create: out of host memory", TS_GPU_NAME);
    return TS_ERR_MEMORY;
  }
  a->precision = p;
  a->rows = plan->rows;
  a->cols = plan->cols;
  a->nonzeros = plan->nonzeros;
  const int rc = setup(a, plan, err);
  if (rc) {
    char ignored[TS_BACKEND_ERROR_SIZE];
    (void)ts_gpu_csr_destroy(a, ignored); /* keep the setup's message */
    return rc;
  }
  *handle = a;
  return 0;
}

int ts_gpu_csr_apply(void *handle, const void *x, void *y, int add, char *err) {
  gpu_csr *a = (gpu_csr *)handle;
  const gpuDataType t = value_type(a->precision);
  const double one = 1.0, beta = add ? 1.0 : 0.0;
  const float one_f = 1.0f, beta_f = add ? 1.0f : 0.0f;
  const int single = a->precision == TS_SINGLE;
  GPUSPARSE_CHECK(err, "csr_apply", gpusparseDnVecSetValues(a->x, (void *)x));
  GPUSPARSE_CHECK(err, "csr_apply", gpusparseDnVecSetValues(a->y, y));
  GPUSPARSE_CHECK(err, "csr_apply",
                 gpusparseSpMV(a->sparse, GPUSPARSE_OPERATION_NON_TRANSPOSE,
                              single ? (const void *)&one_f : (const void *)&one, a->matrix, a->x,
                              single ? (const void *)&beta_f : (const void *)&beta, a->y, t,
                              GPUSPARSE_SPMV_CSR_ALG2, a->buffer));
  GPU_CHECK_LAUNCH(err, "SpMV");
  return 0;
}

/* record the first failure of kernel's teardown in rc and err */
static void keep_first(int *rc, char *err, const char *kernel, const char *call,
                       const char *message) {
  if (*rc) return;
  snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: %s: %s failed: %s", TS_GPU_NAME, kernel, call, message);
  *rc = TS_ERR_BACKEND;
}

static void free_device(const char *kernel, void *ptr, const char *what, int *rc, char *err) {
  if (!ptr) return;
  const gpuError_t e = gpuFree(ptr);
  if (e != gpuSuccess) keep_first(rc, err, kernel, what, gpuGetErrorString(e));
}

int ts_gpu_csr_destroy(void *handle, char *err) {
  gpu_csr *a = (gpu_csr *)handle;
  if (!a) return 0;
  int rc = 0;
  gpusparseStatus_t s;
  if (a->x && (s = gpusparseDestroyDnVec(a->x)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "csr_destroy", "gpusparseDestroyDnVec", gpusparseGetErrorString(s));
  if (a->y && (s = gpusparseDestroyDnVec(a->y)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "csr_destroy", "gpusparseDestroyDnVec", gpusparseGetErrorString(s));
  if (a->matrix && (s = gpusparseDestroySpMat(a->matrix)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "csr_destroy", "gpusparseDestroySpMat", gpusparseGetErrorString(s));
  if (a->sparse && (s = gpusparseDestroy(a->sparse)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "csr_destroy", "gpusparseDestroy", gpusparseGetErrorString(s));
  free_device("csr_destroy", a->buffer, "gpuFree (SpMV work space)", &rc, err);
  free_device("csr_destroy", a->values, "gpuFree (values)", &rc, err);
  free_device("csr_destroy", a->columns, "gpuFree (columns)", &rc, err);
  free_device("csr_destroy", a->row_offsets, "gpuFree (row offsets)", &rc, err);
  free(a);
  return rc;
}

/* ---------------------------------------------------------------- C = A B (SpGEMM, ABI 15)
 * The generic SpGEMM in double: work estimation and compute, each called once for its buffer
 * size and once with the buffer, C's size read from its descriptor, C's columns and values
 * allocated and filled by SpGEMM_copy.  cuSPARSE's SpGEMM is documented for 32-bit indices
 * (CUSPARSE_INDEX_32I) only, so A's and B's indices go to the device as int32_t (their sizes
 * and C's checked) and C's come back widened to int64_t.  Neither library promises C's rows
 * sorted by column: they are sorted on the host, the form ts_csr_product asks for.  The
 * pattern is the symbolic product's: entries that cancel to zero stay stored. */

enum { SPGEMM_A = 0, SPGEMM_B = 1, SPGEMM_C = 2 };

/* everything one product holds on the device, released by spgemm_release on every path */
typedef struct gpu_spgemm {
  gpusparseHandle_t sparse;
  gpusparseSpMatDescr_t matrix[3]; /* A, B, C */
  gpusparseSpGEMMDescr_t descr;
  int32_t *offsets[3], *columns[3]; /* device */
  double *values[3];                /* device */
  void *buffer[2];                  /* work estimation, compute */
} gpu_spgemm;

static int spgemm_fits(const ts_csr_plan *m, const char *name, char *err) {
  if (m->rows <= INT32_MAX && m->cols <= INT32_MAX && m->nonzeros <= INT32_MAX) return 0;
  snprintf(err, TS_BACKEND_ERROR_SIZE,
           "%s: csr_multiply: %s is %lld x %lld with %lld entries: the sparse library's SpGEMM "
           "takes 32-bit indices (at most %d each)", TS_GPU_NAME, name, (long long)m->rows,
           (long long)m->cols, (long long)m->nonzeros, (int)INT32_MAX);
  return TS_ERR_UNSUPPORTED;
}

/* n entries (at least one) of device memory into *ptr (NULL on failure) */
static gpuError_t spgemm_malloc(void **ptr, int64_t n, size_t size) {
  void *p = NULL;
  const gpuError_t e = gpuMalloc(&p, (size_t)(n > 0 ? n : 1) * size);
  *ptr = e == gpuSuccess ? p : NULL;
  return e;
}

/* the n 64-bit indices as int32_t on the device (they fit: spgemm_fits) */
static int spgemm_upload_indices(const int64_t *host, int64_t n, int32_t **device, char *err) {
  int32_t *narrow = (int32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  if (!narrow) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_multiply: out of host memory (%lld indices)",
             TS_GPU_NAME, (long long)n);
    return TS_ERR_MEMORY;
  }
  for (int64_t i = 0; i < n; ++i) narrow[i] = (int32_t)host[i];
  gpuError_t e = spgemm_malloc((void **)device, n, sizeof(int32_t));
  if (e == gpuSuccess)
    e = gpuMemcpy(*device, narrow, (size_t)n * sizeof(int32_t), gpuMemcpyHostToDevice);
  free(narrow);
  GPU_CHECK(err, "csr_multiply (indices to the device)", e);
  return 0;
}

/* operand m (A or B) on the device and its descriptor */
static int spgemm_upload(gpu_spgemm *s, int which, const ts_csr_plan *m, char *err) {
  int rc = spgemm_upload_indices(m->row_offsets, m->rows + 1, &s->offsets[which], err);
  if (!rc) rc = spgemm_upload_indices(m->columns, m->nonzeros, &s->columns[which], err);
  if (rc) return rc;
  GPU_CHECK(err, "csr_multiply (values)",
            spgemm_malloc((void **)&s->values[which], m->nonzeros, sizeof(double)));
  GPU_CHECK(err, "csr_multiply (values)",
            gpuMemcpy(s->values[which], m->values, (size_t)m->nonzeros * sizeof(double),
                      gpuMemcpyHostToDevice));
  GPUSPARSE_CHECK(err, "csr_multiply",
                  gpusparseCreateCsr(&s->matrix[which], m->rows, m->cols, m->nonzeros,
                                     s->offsets[which], s->columns[which], s->values[which],
                                     GPUSPARSE_INDEX_32I, GPUSPARSE_INDEX_32I,
                                     GPUSPARSE_INDEX_BASE_ZERO, GPU_R_64F));
  return 0;
}

/* the symbolic and numeric product into the SpGEMM descriptor; C's row offsets on the device */
static int spgemm_compute(gpu_spgemm *s, int64_t rows, int64_t cols, char *err) {
  const double one = 1.0, zero = 0.0;
  const gpusparseOperation_t n = GPUSPARSE_OPERATION_NON_TRANSPOSE;
  GPU_CHECK(err, "csr_multiply (row offsets of C)",
            spgemm_malloc((void **)&s->offsets[SPGEMM_C], rows + 1, sizeof(int32_t)));
  GPUSPARSE_CHECK(err, "csr_multiply",
                  gpusparseCreateCsr(&s->matrix[SPGEMM_C], rows, cols, 0, s->offsets[SPGEMM_C],
                                     NULL, NULL, GPUSPARSE_INDEX_32I, GPUSPARSE_INDEX_32I,
                                     GPUSPARSE_INDEX_BASE_ZERO, GPU_R_64F));
  GPUSPARSE_CHECK(err, "csr_multiply", gpusparseSpGEMM_createDescr(&s->descr));
  gpusparseSpMatDescr_t *m = s->matrix;
  size_t bytes[2] = {0, 0};
  for (int pass = 0; pass < 2; ++pass) { /* the size, then the work with a buffer of it */
    GPUSPARSE_CHECK(err, "csr_multiply (SpGEMM work estimation)",
                    gpusparseSpGEMM_workEstimation(s->sparse, n, n, &one, m[SPGEMM_A],
                                                   m[SPGEMM_B], &zero, m[SPGEMM_C], GPU_R_64F,
                                                   GPUSPARSE_SPGEMM_DEFAULT, s->descr, &bytes[0],
                                                   s->buffer[0]));
    if (!pass)
      GPU_CHECK(err, "csr_multiply (SpGEMM buffer 1)",
                spgemm_malloc(&s->buffer[0], (int64_t)bytes[0], 1));
  }
  for (int pass = 0; pass < 2; ++pass) {
    GPUSPARSE_CHECK(err, "csr_multiply (SpGEMM compute)",
                    gpusparseSpGEMM_compute(s->sparse, n, n, &one, m[SPGEMM_A], m[SPGEMM_B],
                                            &zero, m[SPGEMM_C], GPU_R_64F,
                                            GPUSPARSE_SPGEMM_DEFAULT, s->descr, &bytes[1],
                                            s->buffer[1]));
    if (!pass)
      GPU_CHECK(err, "csr_multiply (SpGEMM buffer 2)",
                spgemm_malloc(&s->buffer[1], (int64_t)bytes[1], 1));
  }
  return 0;
}

/* C's columns and values on the device (SpGEMM_copy); its entry count in *nonzeros */
static int spgemm_copy(gpu_spgemm *s, int64_t *nonzeros, char *err) {
  const double one = 1.0, zero = 0.0;
  const gpusparseOperation_t n = GPUSPARSE_OPERATION_NON_TRANSPOSE;
  int64_t rows = 0, cols = 0;
  GPUSPARSE_CHECK(err, "csr_multiply",
                  gpusparseSpMatGetSize(s->matrix[SPGEMM_C], &rows, &cols, nonzeros));
  if (*nonzeros < 0 || *nonzeros > INT32_MAX) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s: csr_multiply: the product has %lld entries: the sparse library's SpGEMM takes "
             "32-bit indices (at most %d)", TS_GPU_NAME, (long long)*nonzeros, (int)INT32_MAX);
    return TS_ERR_UNSUPPORTED;
  }
  GPU_CHECK(err, "csr_multiply (columns of C)",
            spgemm_malloc((void **)&s->columns[SPGEMM_C], *nonzeros, sizeof(int32_t)));
  GPU_CHECK(err, "csr_multiply (values of C)",
            spgemm_malloc((void **)&s->values[SPGEMM_C], *nonzeros, sizeof(double)));
  GPUSPARSE_CHECK(err, "csr_multiply",
                  gpusparseCsrSetPointers(s->matrix[SPGEMM_C], s->offsets[SPGEMM_C],
                                          s->columns[SPGEMM_C], s->values[SPGEMM_C]));
  GPUSPARSE_CHECK(err, "csr_multiply (SpGEMM copy)",
                  gpusparseSpGEMM_copy(s->sparse, n, n, &one, s->matrix[SPGEMM_A],
                                       s->matrix[SPGEMM_B], &zero, s->matrix[SPGEMM_C], GPU_R_64F,
                                       GPUSPARSE_SPGEMM_DEFAULT, s->descr));
  return 0;
}

/* n int32_t of the device into the int64_t array `to` (host) */
static int spgemm_download_indices(const int32_t *device, int64_t n, int64_t *to, char *err) {
  int32_t *narrow = (int32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  if (!narrow) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_multiply: out of host memory (%lld indices)",
             TS_GPU_NAME, (long long)n);
    return TS_ERR_MEMORY;
  }
  const gpuError_t e =
      gpuMemcpy(narrow, device, (size_t)n * sizeof(int32_t), gpuMemcpyDeviceToHost);
  for (int64_t i = 0; e == gpuSuccess && i < n; ++i) to[i] = narrow[i];
  free(narrow);
  GPU_CHECK(err, "csr_multiply (indices to the host)", e);
  return 0;
}

/* each row of C ascending by column (values moved with their columns) */
static int spgemm_sort_rows(ts_csr_product *C, char *err) {
  int64_t longest = 0;
  for (int64_t i = 0; i < C->rows; ++i)
    longest = std::max(longest, C->row_offsets[i + 1] - C->row_offsets[i]);
  std::pair<int64_t, double> *row =
      (std::pair<int64_t, double> *)malloc((size_t)(longest > 0 ? longest : 1) * sizeof *row);
  if (!row) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_multiply: out of host memory (row of %lld)",
             TS_GPU_NAME, (long long)longest);
    return TS_ERR_MEMORY;
  }
  for (int64_t i = 0; i < C->rows; ++i) {
    const int64_t start = C->row_offsets[i], count = C->row_offsets[i + 1] - start;
    if (std::is_sorted(C->columns + start, C->columns + start + count)) continue;
    for (int64_t e = 0; e < count; ++e)
      row[e] = std::make_pair(C->columns[start + e], C->values[start + e]);
    std::sort(row, row + count); /* columns are distinct: the values never decide */
    for (int64_t e = 0; e < count; ++e) {
      C->columns[start + e] = row[e].first;
      C->values[start + e] = row[e].second;
    }
  }
  free(row);
  return 0;
}

/* C's host arrays from the device, rows sorted */
static int spgemm_download(gpu_spgemm *s, ts_csr_product *C, char *err) {
  const size_t entries = (size_t)(C->nonzeros > 0 ? C->nonzeros : 1);
  C->row_offsets = (int64_t *)malloc(((size_t)C->rows + 1) * sizeof(int64_t));
  C->columns = (int64_t *)malloc(entries * sizeof(int64_t));
  C->values = (double *)malloc(entries * sizeof(double));
  if (!C->row_offsets || !C->columns || !C->values) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_multiply: out of host memory (a %lld x %lld "
             "product with %lld entries)", TS_GPU_NAME, (long long)C->rows, (long long)C->cols,
             (long long)C->nonzeros);
    return TS_ERR_MEMORY;
  }
  int rc = spgemm_download_indices(s->offsets[SPGEMM_C], C->rows + 1, C->row_offsets, err);
  if (!rc) rc = spgemm_download_indices(s->columns[SPGEMM_C], C->nonzeros, C->columns, err);
  if (rc) return rc;
  GPU_CHECK(err, "csr_multiply (values to the host)",
            gpuMemcpy(C->values, s->values[SPGEMM_C], (size_t)C->nonzeros * sizeof(double),
                      gpuMemcpyDeviceToHost));
  return spgemm_sort_rows(C, err);
}

static int spgemm_run(gpu_spgemm *s, const ts_csr_plan *A, const ts_csr_plan *B,
                      ts_csr_product *C, char *err) {
  int rc = spgemm_fits(A, "A", err);
  if (!rc) rc = spgemm_fits(B, "B", err);
  if (!rc) rc = spgemm_upload(s, SPGEMM_A, A, err);
  if (!rc) rc = spgemm_upload(s, SPGEMM_B, B, err);
  if (rc) return rc;
  GPUSPARSE_CHECK(err, "csr_multiply", gpusparseCreate(&s->sparse));
  rc = spgemm_compute(s, A->rows, B->cols, err);
  if (!rc) rc = spgemm_copy(s, &C->nonzeros, err);
  if (!rc) rc = spgemm_download(s, C, err);
  return rc;
}

/* free everything s holds; the first failure into rc and err */
static void spgemm_release(gpu_spgemm *s, int *rc, char *err) {
  gpusparseStatus_t st;
  if (s->descr && (st = gpusparseSpGEMM_destroyDescr(s->descr)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(rc, err, "csr_multiply", "gpusparseSpGEMM_destroyDescr",
               gpusparseGetErrorString(st));
  for (int m = 0; m < 3; ++m)
    if (s->matrix[m] && (st = gpusparseDestroySpMat(s->matrix[m])) != GPUSPARSE_STATUS_SUCCESS)
      keep_first(rc, err, "csr_multiply", "gpusparseDestroySpMat", gpusparseGetErrorString(st));
  if (s->sparse && (st = gpusparseDestroy(s->sparse)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(rc, err, "csr_multiply", "gpusparseDestroy", gpusparseGetErrorString(st));
  for (int b = 0; b < 2; ++b)
    free_device("csr_multiply", s->buffer[b], "gpuFree (SpGEMM buffer)", rc, err);
  for (int m = 0; m < 3; ++m) {
    free_device("csr_multiply", s->offsets[m], "gpuFree (row offsets)", rc, err);
    free_device("csr_multiply", s->columns[m], "gpuFree (columns)", rc, err);
    free_device("csr_multiply", s->values[m], "gpuFree (values)", rc, err);
  }
}

/* C = A B on the device.  A product without entries (A or B empty) needs no library call. */
int ts_gpu_csr_multiply(const ts_csr_plan *A, const ts_csr_plan *B, ts_csr_product *C, char *err) {
  memset(C, 0, sizeof *C);
  C->rows = A->rows;
  C->cols = B->cols;
  gpu_spgemm s;
  memset(&s, 0, sizeof s);
  int rc = 0;
  if (A->nonzeros == 0 || B->nonzeros == 0) {
    C->row_offsets = (int64_t *)calloc((size_t)C->rows + 1, sizeof(int64_t));
    C->columns = (int64_t *)calloc(1, sizeof(int64_t));
    C->values = (double *)calloc(1, sizeof(double));
    if (!C->row_offsets || !C->columns || !C->values) {
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_multiply: out of host memory", TS_GPU_NAME);
      rc = TS_ERR_MEMORY;
    }
  } else {
    rc = spgemm_run(&s, A, B, C, err);
    spgemm_release(&s, &rc, err); /* a failure's own message stays (keep_first) */
  }
  if (rc) {
    free(C->row_offsets);
    free(C->columns);
    free(C->values);
    C->row_offsets = C->columns = NULL;
    C->values = NULL;
  }
  return rc;
}

#endif
