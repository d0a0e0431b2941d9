/* field-transfer-float.cu -- the cuda backend's multi-field (RT_k x DGQ_k) transfer in float
 * precision: instances of backends/gpu/gpu-field-transfer.h. */
#include "../gpu/gpu-field-transfer.h"

TS_GPU_FIELD_TRANSFER_INSTANTIATE(float)
