/* stokes-double.cu -- the cuda backend's Stokes operator in double precision, k = 0..4, 2D and 3D:
 * instances of backends/gpu/gpu-stokes.h. */
#include "../gpu/gpu-stokes.h"

TS_GPU_STOKES_INSTANTIATE(double)
