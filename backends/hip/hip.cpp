/* hip.cpp -- the hip backend module: runtime glue, vectors, ceilings and registration,
 * all written once in backends/gpu/gpu-backend.h (shared with the other GPU backend). */
#define TS_GPU_HIP 1
#include "../gpu/gpu-backend.h"
