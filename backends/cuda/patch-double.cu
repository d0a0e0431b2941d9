/* patch-double.cu -- the cuda backend's vertex-patch smoother kernels in double precision,
 * degrees 1..TS_MAX_DEGREE, 2D and 3D: instances of backends/gpu/gpu-patch.h. */
#include "../gpu/gpu-patch.h"

TS_GPU_PATCH_INSTANTIATE(double)
