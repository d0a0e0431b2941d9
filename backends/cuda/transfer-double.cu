/* transfer-double.cu -- the cuda backend's multigrid transfer kernels in double precision,
 * degrees 1..TS_MAX_DEGREE, 2D and 3D: instances of backends/gpu/gpu-transfer.h. */
#include "../gpu/gpu-transfer.h"

TS_GPU_TRANSFER_INSTANTIATE(double)
