/* csr.cu -- the cuda backend's CSR sparse matrix: device copies of the row offsets, column
 * indices (64-bit) and values made once by ts_cuda_csr_create, and y = A x by cuSPARSE's
 * generic SpMV (CSR descriptor, CUSPARSE_SPMV_CSR_ALG2: bit-wise the same result on every
 * run, where the default CSR_ALG1 is not guaranteed to be) on the default
 * stream, in double or single precision.  Every CUDA and cuSPARSE call is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cusparse.h>
#include "../gpu/gpu-runtime.h"
#include "cuda-csr.h"

#define CUSPARSE_CHECK(err, what, call)                                                   \
  do {                                                                                    \
    cusparseStatus_t cusparse_s_ = (call);                                                \
    if (cusparse_s_ != CUSPARSE_STATUS_SUCCESS) {                                         \
      snprintf((err), TS_BACKEND_ERROR_SIZE, "cuda: %s: %s failed: %s", (what), #call,    \
               cusparseGetErrorString(cusparse_s_));                                      \
      return TS_ERR_BACKEND;                                                              \
    }                                                                                     \
  } while (0)

typedef struct cuda_csr {
  ts_precision precision;
  int64_t rows, cols, nonzeros;
  int64_t *row_offsets, *columns; /* device */
  void *values;                   /* device, doubles or floats */
  cusparseHandle_t cusparse;
  cusparseSpMatDescr_t matrix;
  cusparseDnVecDescr_t x, y;      /* their values are set per application */
  void *buffer;                   /* SpMV work space (may stay NULL) */
} cuda_csr;

static cudaDataType value_type(ts_precision p) { return p == TS_SINGLE ? CUDA_R_32F : CUDA_R_64F; }
static size_t value_size(ts_precision p) { return p == TS_SINGLE ? sizeof(float) : sizeof(double); }

/* the values on the device in the handle's precision (singles rounded on the host first) */
static int copy_values(cuda_csr *a, const ts_csr_plan *plan, char *err) {
  const size_t n = (size_t)plan->nonzeros;
  if (a->precision == TS_DOUBLE) {
    GPU_CHECK(err, "csr_create (values)",
              gpuMemcpy(a->values, plan->values, n * sizeof(double), gpuMemcpyHostToDevice));
    return 0;
  }
  float *h = (float *)malloc(n ? n * sizeof(float) : 1);
  if (!h) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "cuda: csr_create: out of host memory (%zu floats)", n);
    return TS_ERR_MEMORY;
  }
  for (size_t e = 0; e < n; ++e) h[e] = (float)plan->values[e];
  const gpuError_t e = gpuMemcpy(a->values, h, n * sizeof(float), gpuMemcpyHostToDevice);
  free(h);
  GPU_CHECK(err, "csr_create (values)", e);
  return 0;
}

static int copy_arrays(cuda_csr *a, const ts_csr_plan *plan, char *err) {
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
static int prepare_spmv(cuda_csr *a, char *err) {
  const cudaDataType t = value_type(a->precision);
  const size_t bytes = value_size(a->precision);
  void *x = NULL, *y = NULL;
  GPU_CHECK(err, "csr_create (probe vectors)", gpuMalloc(&x, (size_t)a->cols * bytes));
  gpuError_t e = gpuMalloc(&y, (size_t)a->rows * bytes);
  if (e != gpuSuccess) {
    (void)gpuFree(x);
    GPU_CHECK(err, "csr_create (probe vectors)", e);
  }
  cusparseStatus_t s = cusparseCreateDnVec(&a->x, a->cols, x, t);
  if (s == CUSPARSE_STATUS_SUCCESS) s = cusparseCreateDnVec(&a->y, a->rows, y, t);
  size_t buffer_bytes = 0;
  const double one = 1.0, zero = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const void *alpha = a->precision == TS_SINGLE ? (const void *)&one_f : (const void *)&one;
  const void *beta = a->precision == TS_SINGLE ? (const void *)&zero_f : (const void *)&zero;
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = cusparseSpMV_bufferSize(a->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, a->matrix,
                                a->x, beta, a->y, t, CUSPARSE_SPMV_CSR_ALG2, &buffer_bytes);
  e = gpuFree(x);
  const gpuError_t e2 = gpuFree(y);
  CUSPARSE_CHECK(err, "csr_create (SpMV work space size)", s);
  GPU_CHECK(err, "csr_create (probe vectors)", e);
  GPU_CHECK(err, "csr_create (probe vectors)", e2);
  if (buffer_bytes) GPU_CHECK(err, "csr_create (SpMV work space)", gpuMalloc(&a->buffer, buffer_bytes));
  return 0;
}

static int setup(cuda_csr *a, const ts_csr_plan *plan, char *err) {
  const int rc = copy_arrays(a, plan, err);
  if (rc) return rc;
  CUSPARSE_CHECK(err, "csr_create", cusparseCreate(&a->cusparse));
  CUSPARSE_CHECK(err, "csr_create",
                 cusparseCreateCsr(&a->matrix, a->rows, a->cols, a->nonzeros, a->row_offsets,
                                   a->columns, a->values, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I,
                                   CUSPARSE_INDEX_BASE_ZERO, value_type(a->precision)));
  return prepare_spmv(a, err);
}

int ts_cuda_csr_create(const ts_csr_plan *plan, ts_precision p, void **handle, char *err) {
  *handle = NULL;
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "cuda csr_create: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", (int)p);
    return TS_ERR_ARG;
  }
  cuda_csr *a = (cuda_csr *)calloc(1, sizeof *a);
  if (!a) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "cuda: csr_create: out of host memory");
    return TS_ERR_MEMORY;
  }
  a->precision = p;
  a->rows = plan->rows;
  a->cols = plan->cols;
  a->nonzeros = plan->nonzeros;
  const int rc = setup(a, plan, err);
  if (rc) {
    char ignored[TS_BACKEND_ERROR_SIZE];
    (void)ts_cuda_csr_destroy(a, ignored); /* keep the setup's message */
    return rc;
  }
  *handle = a;
  return 0;
}

int ts_cuda_csr_apply(void *handle, const void *x, void *y, int add, char *err) {
  cuda_csr *a = (cuda_csr *)handle;
  const cudaDataType t = value_type(a->precision);
  const double one = 1.0, beta = add ? 1.0 : 0.0;
  const float one_f = 1.0f, beta_f = add ? 1.0f : 0.0f;
  const int single = a->precision == TS_SINGLE;
  CUSPARSE_CHECK(err, "csr_apply", cusparseDnVecSetValues(a->x, (void *)x));
  CUSPARSE_CHECK(err, "csr_apply", cusparseDnVecSetValues(a->y, y));
  CUSPARSE_CHECK(err, "csr_apply",
                 cusparseSpMV(a->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              single ? (const void *)&one_f : (const void *)&one, a->matrix, a->x,
                              single ? (const void *)&beta_f : (const void *)&beta, a->y, t,
                              CUSPARSE_SPMV_CSR_ALG2, a->buffer));
  GPU_CHECK_LAUNCH(err, "cusparseSpMV");
  return 0;
}

/* record the first failure of the teardown in rc and err */
static void keep_first(int *rc, char *err, const char *call, const char *message) {
  if (*rc) return;
  snprintf(err, TS_BACKEND_ERROR_SIZE, "cuda: csr_destroy: %s failed: %s", call, message);
  *rc = TS_ERR_BACKEND;
}

static void free_device(void *ptr, const char *what, int *rc, char *err) {
  if (!ptr) return;
  const gpuError_t e = gpuFree(ptr);
  if (e != gpuSuccess) keep_first(rc, err, what, gpuGetErrorString(e));
}

int ts_cuda_csr_destroy(void *handle, char *err) {
  cuda_csr *a = (cuda_csr *)handle;
  if (!a) return 0;
  int rc = 0;
  cusparseStatus_t s;
  if (a->x && (s = cusparseDestroyDnVec(a->x)) != CUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "cusparseDestroyDnVec", cusparseGetErrorString(s));
  if (a->y && (s = cusparseDestroyDnVec(a->y)) != CUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "cusparseDestroyDnVec", cusparseGetErrorString(s));
  if (a->matrix && (s = cusparseDestroySpMat(a->matrix)) != CUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "cusparseDestroySpMat", cusparseGetErrorString(s));
  if (a->cusparse && (s = cusparseDestroy(a->cusparse)) != CUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "cusparseDestroy", cusparseGetErrorString(s));
  free_device(a->buffer, "cudaFree (SpMV work space)", &rc, err);
  free_device(a->values, "cudaFree (values)", &rc, err);
  free_device(a->columns, "cudaFree (columns)", &rc, err);
  free_device(a->row_offsets, "cudaFree (row offsets)", &rc, err);
  free(a);
  return rc;
}
