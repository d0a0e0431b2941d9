/* omp-kronecker.h -- the omp backend's Kronecker product of banded 1D matrices
 * (kronecker.c), as ts_kronecker_plan describes it. */
#ifndef TESSERA_OMP_KRONECKER_H
#define TESSERA_OMP_KRONECKER_H

#include <stddef.h>
#include "tessera/backend.h"

/** y (+)= scale (F_{dim-1} (x) .. (x) F_0) x; x, y and the plan's values of precision p.
 *  Returns 0, or TS_ERR_ARG with a message in err. */
int ts_omp_kronecker_apply(const ts_kronecker_plan *plan, ts_precision p, const void *x, void *y,
                           int add, char *err, size_t errlen);

#endif
