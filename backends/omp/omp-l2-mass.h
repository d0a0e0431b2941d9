/* omp-l2-mass.h -- the omp backend's L2 (DGQ_k) mass and its inverse (l2-mass.c): y = W x
 * or y = W^{-1} x as ts_l2_mass_plan's action says, in double precision. */
#ifndef TESSERA_OMP_L2_MASS_H
#define TESSERA_OMP_L2_MASS_H

#include <stddef.h>
#include "tessera/backend.h"

/** y = W x or W^{-1} x (plan->action), x, y and the plan's vectors of precision p (TS_DOUBLE).
 *  Returns 0, or TS_ERR_ARG / TS_ERR_UNSUPPORTED with a message in err. */
int ts_omp_l2_mass_apply(const ts_l2_mass_plan *plan, ts_precision p, const void *x, void *y,
                         char *err, size_t errlen);

#endif
