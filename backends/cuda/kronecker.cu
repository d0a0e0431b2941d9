/* kronecker.cu -- the cuda backend's Kronecker product of banded 1D matrices, double and
 * float, 2D and 3D: instances of backends/gpu/gpu-kronecker.h. */
#include "../gpu/gpu-kronecker.h"

TS_GPU_KRONECKER_INSTANTIATE(double)
TS_GPU_KRONECKER_INSTANTIATE(float)
