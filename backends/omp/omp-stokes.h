/* omp-stokes.h -- the omp backend's matrix-free Stokes kernel (stokes.c): y = Acal x and
 * y += Acal x for RT_k x DGQ_k on a structured box, described by ts_stokes_plan. */
#ifndef TESSERA_OMP_STOKES_H
#define TESSERA_OMP_STOKES_H

#include <stddef.h>
#include "tessera/backend.h"

/** Work space kept by the backend between calls: grown when a call needs more, freed by
 *  ts_omp_work_free (the backend is driven by one host thread). */
typedef struct ts_omp_work {
  void *ptr;
  size_t bytes;
} ts_omp_work;
void ts_omp_work_free(ts_omp_work *work);

/** y = Acal x (add = 0) or y += Acal x (add = 1), x and y of precision p (float: computed
 *  in float), with the work space `work` (two velocity components).  Returns 0, or
 *  TS_ERR_MEMORY with a message in err. */
int ts_omp_stokes_apply(const ts_stokes_plan *plan, ts_precision p, const void *x, void *y,
                        int add, ts_omp_work *work, char *err, size_t errlen);

#endif
