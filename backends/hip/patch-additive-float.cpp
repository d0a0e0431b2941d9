/* patch-additive-float.cpp -- the hip backend's additive vertex-patch pass on mapped levels in
 * float precision, degrees 1..8, 2D and 3D: instances of backends/gpu/gpu-patch-additive.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-patch-additive.h"

TS_GPU_PATCH_ADDITIVE_INSTANTIATE(float)
