/* omp-vanka.h -- the omp backend's Vanka pass of Taylor-Hood Q2 x Q1 (vanka.c), as
 * ts_vanka_plan describes it. */
#ifndef TESSERA_OMP_VANKA_H
#define TESSERA_OMP_VANKA_H

#include <stddef.h>
#include "tessera/backend.h"

/** y += M r on the patches of plan's color; r, y and plan->matrices of precision p.
 *  Returns 0, or TS_ERR_ARG with a message in err. */
int ts_omp_vanka_apply(const ts_vanka_plan *plan, ts_precision p, const void *r, void *y,
                       char *err, size_t errlen);

#endif
