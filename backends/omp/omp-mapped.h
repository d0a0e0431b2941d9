/* omp-mapped.h -- the omp backend's operator on mapped cells (mapped.c): y = A x and
 * y += A x for -div(kappa grad u) + c u on Q_k, as ts_mapped_plan describes it. */
#ifndef TESSERA_OMP_MAPPED_H
#define TESSERA_OMP_MAPPED_H

#include <stddef.h>
#include "tessera/backend.h"

/** y = A x (add = 0) or y += A x (add = 1), x, y and plan->factors of precision p.
 *  Returns 0, or TS_ERR_ARG / TS_ERR_MEMORY with a message in err. */
int ts_omp_mapped_apply(const ts_mapped_plan *plan, ts_precision p, const void *x, void *y,
                        int add, char *err, size_t errlen);

#endif
