/* omp-patch.h -- the omp backend's vertex-patch smoother kernel (patch.c): one pass of
 * plan->stage over the patches of plan->color, described by ts_patch_plan. */
#ifndef TESSERA_OMP_PATCH_H
#define TESSERA_OMP_PATCH_H

#include <stddef.h>
#include "tessera/backend.h"

/** One pass of the vertex-patch smoother on b, x, r of precision p (float: computed in
 *  float).  Returns 0, or TS_ERR_ARG / TS_ERR_MEMORY with a message in err. */
int ts_omp_patch_smooth(const ts_patch_plan *plan, ts_precision p, const void *b, void *x,
                        void *r, char *err, size_t errlen);

#endif
