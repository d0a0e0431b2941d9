/* csr.cpp -- the hip backend's CSR sparse matrix on hipSPARSE: backends/gpu/gpu-csr.h. */
#define TS_GPU_HIP 1
#include "../gpu/gpu-csr.h"
