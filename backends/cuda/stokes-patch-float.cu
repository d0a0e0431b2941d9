/* stokes-patch-float.cu -- the cuda backend's Stokes vertex-patch smoother (SOLVE stage) in float
 * precision, k = 0..4, 2D and 3D: instances of backends/gpu/gpu-stokes-patch.h. */
#include "../gpu/gpu-stokes-patch.h"

TS_GPU_STOKES_PATCH_INSTANTIATE(float)
