/* gpu-csr.h -- the GPU backends' CSR sparse matrix, written once for cuSPARSE (cuda:
 * backends/cuda/csr.cu) and hipSPARSE (hip: backends/hip/csr.cpp): device copies of the row
 * offsets, column indices (64-bit) and values made once by ts_gpu_csr_create, and y = A x
 * by the generic SpMV (CSR descriptor, the SPMV_CSR_ALG2 algorithm: on cuSPARSE bit-wise
 * the same result on every run, where the default CSR_ALG1 is not guaranteed to be) on the
 * default stream, in double or single precision.  Every runtime and sparse-library call is
 * checked.  The gpusparse names map to cusparse or hipsparse as gpu-runtime.h's gpu names
 * do (TS_GPU_HIP). */
#ifndef TESSERA_GPU_CSR_H
#define TESSERA_GPU_CSR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* record the first failure of the teardown in rc and err */
static void keep_first(int *rc, char *err, const char *call, const char *message) {
  if (*rc) return;
  snprintf(err, TS_BACKEND_ERROR_SIZE, "%s: csr_destroy: %s failed: %s", TS_GPU_NAME, call, message);
  *rc = TS_ERR_BACKEND;
}

static void free_device(void *ptr, const char *what, int *rc, char *err) {
  if (!ptr) return;
  const gpuError_t e = gpuFree(ptr);
  if (e != gpuSuccess) keep_first(rc, err, what, gpuGetErrorString(e));
}

int ts_gpu_csr_destroy(void *handle, char *err) {
  gpu_csr *a = (gpu_csr *)handle;
  if (!a) return 0;
  int rc = 0;
  gpusparseStatus_t s;
  if (a->x && (s = gpusparseDestroyDnVec(a->x)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "gpusparseDestroyDnVec", gpusparseGetErrorString(s));
  if (a->y && (s = gpusparseDestroyDnVec(a->y)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "gpusparseDestroyDnVec", gpusparseGetErrorString(s));
  if (a->matrix && (s = gpusparseDestroySpMat(a->matrix)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "gpusparseDestroySpMat", gpusparseGetErrorString(s));
  if (a->sparse && (s = gpusparseDestroy(a->sparse)) != GPUSPARSE_STATUS_SUCCESS)
    keep_first(&rc, err, "gpusparseDestroy", gpusparseGetErrorString(s));
  free_device(a->buffer, "gpuFree (SpMV work space)", &rc, err);
  free_device(a->values, "gpuFree (values)", &rc, err);
  free_device(a->columns, "gpuFree (columns)", &rc, err);
  free_device(a->row_offsets, "gpuFree (row offsets)", &rc, err);
  free(a);
  return rc;
}

#endif
