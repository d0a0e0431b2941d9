/* omp-stokes.h -- the omp backend's matrix-free Stokes kernel (stokes.c): y = Acal x and
 * y += Acal x for RT_k x DGQ_k on a structured box, described by ts_stokes_plan. */
#ifndef TESSERA_OMP_STOKES_H
#define TESSERA_OMP_STOKES_H

#include <stddef.h>
#include "tessera/backend.h"

/** y = Acal x (add = 0) or y += Acal x (add = 1), x and y of precision p (float: computed
 *  in float).  Returns 0, or TS_ERR_ARG / TS_ERR_MEMORY with a message in err. */
int ts_omp_stokes_apply(const ts_stokes_plan *plan, ts_precision p, const void *x, void *y,
                        int add, char *err, size_t errlen);

#endif
