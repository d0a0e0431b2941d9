/* hdiv-mass-double.cpp -- the hip backend's H(div) (RT_k) mass in double precision, degrees
 * 0..8, 2D and 3D: instances of backends/gpu/gpu-hdiv-mass.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-hdiv-mass.h"

TS_GPU_HDIV_MASS_INSTANTIATE
