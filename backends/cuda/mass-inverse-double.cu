/* mass-inverse-double.cu -- the cuda backend's L2 (DGQ_k) mass and its inverse in double
 * precision, degrees 0..8, 2D and 3D: instances of backends/gpu/gpu-mass-inverse.h. */
#include "../gpu/gpu-mass-inverse.h"

TS_GPU_MASS_INVERSE_INSTANTIATE
