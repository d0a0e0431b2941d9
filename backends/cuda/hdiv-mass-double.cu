/* hdiv-mass-double.cu -- the cuda backend's H(div) (RT_k) mass in double precision, degrees
 * 0..8, 2D and 3D: instances of backends/gpu/gpu-hdiv-mass.h. */
#include "../gpu/gpu-hdiv-mass.h"

TS_GPU_HDIV_MASS_INSTANTIATE
