/* laplace-float.cpp -- the hip backend's Laplacian kernels in float precision, degrees
 * 1..TS_MAX_DEGREE, 2D and 3D: instances of backends/gpu/gpu-laplace.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-laplace.h"

TS_GPU_LAPLACE_INSTANTIATE(float)
