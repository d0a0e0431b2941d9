/* transfer-float.cpp -- the hip backend's multigrid transfer kernels in float precision,
 * degrees 1..TS_MAX_DEGREE, 2D and 3D: instances of backends/gpu/gpu-transfer.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-transfer.h"

TS_GPU_TRANSFER_INSTANTIATE(float)
