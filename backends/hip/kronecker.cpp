/* kronecker.cpp -- the hip backend's Kronecker product of banded 1D matrices, double and
 * float, 2D and 3D: instances of backends/gpu/gpu-kronecker.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-kronecker.h"

TS_GPU_KRONECKER_INSTANTIATE(double)
TS_GPU_KRONECKER_INSTANTIATE(float)
