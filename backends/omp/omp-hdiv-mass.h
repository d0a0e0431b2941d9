/* omp-hdiv-mass.h -- the omp backend's H(div) (RT_k) mass (hdiv-mass.c): y = M x or y += M x
 * (ts_hdiv_mass_plan), in double precision. */
#ifndef TESSERA_OMP_HDIV_MASS_H
#define TESSERA_OMP_HDIV_MASS_H

#include <stddef.h>
#include "tessera/backend.h"

/** y = M x (add = 0) or y += M x (add = 1), x, y and the plan's tensors of precision p
 *  (TS_DOUBLE).  Returns 0, or TS_ERR_ARG / TS_ERR_UNSUPPORTED with a message in err. */
int ts_omp_hdiv_mass_apply(const ts_hdiv_mass_plan *plan, ts_precision p, const void *x, void *y,
                           int add, char *err, size_t errlen);

#endif
