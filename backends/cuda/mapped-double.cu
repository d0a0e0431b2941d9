/* mapped-double.cu -- the cuda backend's operator on mapped cells in double precision, degrees
 * 1..8, 2D and 3D: instances of backends/gpu/gpu-mapped.h. */
#include "../gpu/gpu-mapped.h"

TS_GPU_MAPPED_INSTANTIATE(double)
