/* omp-laplace.h -- the omp backend's matrix-free Laplacian kernels (laplace.c): y = A x,
 * y += A x and diag(A) for the structured-box Q_k Laplacian described by ts_laplace_plan. */
#ifndef TESSERA_OMP_LAPLACE_H
#define TESSERA_OMP_LAPLACE_H

#include <stddef.h>
#include "tessera/backend.h"

/** y = A x (add = 0) or y += A x (add = 1), x and y of precision p (float: computed in float).
 *  Returns 0, or TS_ERR_ARG / TS_ERR_MEMORY with a message in err. */
int ts_omp_laplace_apply(const ts_laplace_plan *plan, ts_precision p, const void *x, void *y,
                         int add, char *err, size_t errlen);

/** d = diag(A) (1 on Dirichlet rows when plan->constrained), precision p.
 *  Returns 0, or TS_ERR_ARG / TS_ERR_MEMORY with a message in err. */
int ts_omp_laplace_diagonal(const ts_laplace_plan *plan, ts_precision p, void *d, char *err,
                            size_t errlen);

/** Measure the host's copy bandwidth and FP64/FP32 FMA throughput (ceilings.c).
 *  Returns 0, or TS_ERR_MEMORY with a message in err. */
int ts_omp_measure_ceilings(ts_backend_ceilings *c, char *err, size_t errlen);

#endif
