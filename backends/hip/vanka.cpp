/* vanka.cpp -- the hip backend's Vanka pass of Taylor-Hood Q2 x Q1, double and float, 2D and
 * 3D: instances of backends/gpu/gpu-vanka.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-vanka.h"

TS_GPU_VANKA_INSTANTIATE(double)
TS_GPU_VANKA_INSTANTIATE(float)
