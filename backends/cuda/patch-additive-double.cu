/* patch-additive-double.cu -- the cuda backend's additive vertex-patch pass on mapped levels in
 * double precision, degrees 1..8, 2D and 3D: instances of backends/gpu/gpu-patch-additive.h. */
#include "../gpu/gpu-patch-additive.h"

TS_GPU_PATCH_ADDITIVE_INSTANTIATE(double)
