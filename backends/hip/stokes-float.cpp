/* stokes-float.cpp -- the hip backend's Stokes operator in float precision, k = 0..4, 2D and 3D:
 * instances of backends/gpu/gpu-stokes.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-stokes.h"

TS_GPU_STOKES_INSTANTIATE(float)
