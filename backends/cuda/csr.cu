/* csr.cu -- the cuda backend's CSR sparse matrix on cuSPARSE: backends/gpu/gpu-csr.h. */
#include "../gpu/gpu-csr.h"
