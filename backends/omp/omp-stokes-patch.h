/* omp-stokes-patch.h -- the omp backend's Stokes vertex-patch smoother kernel
 * (stokes-patch.c): the SOLVE stage over the patches of plan->color. */
#ifndef TESSERA_OMP_STOKES_PATCH_H
#define TESSERA_OMP_STOKES_PATCH_H

#include <stddef.h>
#include "tessera/backend.h"

/** x += R_j^T Acal_j^{+} R_j r on every patch of the plan's color, b unused (the residual r
 *  is computed by the caller), vectors of precision p.  Returns 0, or TS_ERR_ARG /
 *  TS_ERR_MEMORY with a message in err. */
int ts_omp_stokes_patch_smooth(const ts_stokes_patch_plan *plan, ts_precision p, const void *b,
                               void *x, void *r, char *err, size_t errlen);

#endif
