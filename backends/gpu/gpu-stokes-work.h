/* gpu-stokes-work.h -- the Stokes operator's device work space (t = Mc_I z of one velocity
 * component, gpu-stokes.h), kept in the backend state (gpu-backend.h) so that no allocation
 * happens inside an iteration: grown by ts_gpu_stokes_apply, freed in finalize. */
#ifndef TESSERA_GPU_STOKES_WORK_H
#define TESSERA_GPU_STOKES_WORK_H

#include <stddef.h>

typedef struct ts_gpu_stokes_work {
  void *ptr;    /* device */
  size_t bytes; /* allocated */
} ts_gpu_stokes_work;

#endif
