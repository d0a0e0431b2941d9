/* omp-transfer.h -- the omp backend's multigrid transfer kernel (transfer.c). */
#ifndef TESSERA_OMP_TRANSFER_H
#define TESSERA_OMP_TRANSFER_H

#include <stddef.h>
#include "tessera/backend.h"

/** restrict_ = 0: out (fine) = P in (coarse), or += with add; restrict_ = 1: out (coarse) =
 *  P^T in (fine), or += with add; precision p.  The plan is valid (the library checked it). */
void ts_omp_transfer(const ts_transfer_plan *plan, ts_precision p, int restrict_, const void *in,
                     void *out, int add);

#endif
