/* cuda-csr.h -- the cuda backend's CSR sparse matrix on the device (csr.cu, cuSPARSE). */
#ifndef TESSERA_CUDA_CSR_H
#define TESSERA_CUDA_CSR_H

#include "tessera/backend.h"

/* Copy the plan's arrays to the device once (the values in precision p) and prepare the
 * cuSPARSE descriptors and work buffer of y = A x; *handle is NULL on failure. */
int ts_cuda_csr_create(const ts_csr_plan *plan, ts_precision p, void **handle, char *err);
/* y = A x (add = 1: y += A x) by cusparseSpMV, x and y device vectors of the handle's precision */
int ts_cuda_csr_apply(void *handle, const void *x, void *y, int add, char *err);
/* Free a handle (NULL allowed); the first failing call is reported. */
int ts_cuda_csr_destroy(void *handle, char *err);

#endif
