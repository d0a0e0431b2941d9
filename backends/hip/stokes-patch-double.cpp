/* stokes-patch-double.cpp -- the hip backend's Stokes vertex-patch smoother (SOLVE stage) in double
 * precision, k = 0..4, 2D and 3D: instances of backends/gpu/gpu-stokes-patch.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-stokes-patch.h"

TS_GPU_STOKES_PATCH_INSTANTIATE(double)
