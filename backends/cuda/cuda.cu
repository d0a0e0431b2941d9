/* cuda.cu -- the cuda backend module: runtime glue, vectors, ceilings and registration,
 * all written once in backends/gpu/gpu-backend.h (shared with the other GPU backend). */
#include "../gpu/gpu-backend.h"
