/* mapped-float.cu -- the cuda backend's operator on mapped cells in float precision, degrees
 * 1..8, 2D and 3D: instances of backends/gpu/gpu-mapped.h. */
#include "../gpu/gpu-mapped.h"

TS_GPU_MAPPED_INSTANTIATE(float)
