/* laplace-float.cu -- the cuda backend's Laplacian kernels in float precision, degrees
 * 1..TS_MAX_DEGREE, 2D and 3D: instances of backends/gpu/gpu-laplace.h. */
#include "../gpu/gpu-laplace.h"

TS_GPU_LAPLACE_INSTANTIATE(float)
