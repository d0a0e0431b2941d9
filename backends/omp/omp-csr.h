/* omp-csr.h -- the omp backend's CSR sparse matrix: a host copy and its product (csr.c). */
#ifndef TESSERA_OMP_CSR_H
#define TESSERA_OMP_CSR_H

#include <stddef.h>
#include "tessera/backend.h"

/** Copy the plan's arrays, the values rounded to precision p, into a new *handle.
 *  Returns 0, or TS_ERR_ARG / TS_ERR_MEMORY with a message in err. */
int ts_omp_csr_create(const ts_csr_plan *plan, ts_precision p, void **handle, char *err,
                      size_t errlen);
/** y = A x (add = 1: y += A x) in the handle's precision, rows on OpenMP threads. */
int ts_omp_csr_apply(const void *handle, const void *x, void *y, int add);
/** Free a handle (NULL allowed). */
void ts_omp_csr_destroy(void *handle);

#endif
