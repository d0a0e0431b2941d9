/* omp-patch-additive.h -- the omp backend's additive vertex-patch pass on mapped levels
 * (patch-additive.c), as ts_patch_additive_plan describes it. */
#ifndef TESSERA_OMP_PATCH_ADDITIVE_H
#define TESSERA_OMP_PATCH_ADDITIVE_H

#include <stddef.h>
#include "tessera/backend.h"

/** y += the local solutions of the patches of plan's color; r, y and plan->local of
 *  precision p.  Returns 0, or TS_ERR_ARG with a message in err. */
int ts_omp_patch_additive(const ts_patch_additive_plan *plan, ts_precision p, const void *r,
                          void *y, char *err, size_t errlen);

#endif
