/* gpu-runtime.h -- the thin macro layer that lets the GPU kernels and the backend glue be
 * written once for CUDA (nvcc) and HIP (hipcc): gpuXxx names map to cudaXxx or hipXxx.
 * Define TS_GPU_HIP before including it to compile for HIP; CUDA otherwise. */
#ifndef TESSERA_GPU_RUNTIME_H
#define TESSERA_GPU_RUNTIME_H

#ifdef TS_GPU_HIP
#include <hip/hip_runtime.h>
#define TS_GPU_NAME "hip"
#define TS_GPU_RUNTIME "HIP"
#define gpuError_t hipError_t
#define gpuSuccess hipSuccess
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuHostAlloc(p, bytes) hipHostMalloc((p), (bytes), hipHostMallocDefault)
#define gpuFreeHost hipHostFree
#define gpuGetDevice hipGetDevice
#define gpuDeviceProp hipDeviceProp_t
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemGetInfo hipMemGetInfo
#define gpuMemcpy hipMemcpy
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuMemsetAsync hipMemsetAsync
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuFuncSetAttribute(f, a, v) hipFuncSetAttribute((const void *)(f), a, v)
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuEvent_t hipEvent_t
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuEventCreateWithFlags hipEventCreateWithFlags
#define gpuEventDisableTiming hipEventDisableTiming
#define gpuStream_t hipStream_t
#define gpuStreamCreateWithPriority hipStreamCreateWithPriority
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuStreamDefault hipStreamDefault
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#else
#include <cuda_runtime.h>
#define TS_GPU_NAME "cuda"
#define TS_GPU_RUNTIME "CUDA"
#define gpuError_t cudaError_t
#define gpuSuccess cudaSuccess
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuHostAlloc(p, bytes) cudaHostAlloc((p), (bytes), cudaHostAllocDefault)
#define gpuFreeHost cudaFreeHost
#define gpuGetDevice cudaGetDevice
#define gpuDeviceProp cudaDeviceProp
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuMemsetAsync cudaMemsetAsync
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuEvent_t cudaEvent_t
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuEventCreateWithFlags cudaEventCreateWithFlags
#define gpuEventDisableTiming cudaEventDisableTiming
#define gpuStream_t cudaStream_t
#define gpuStreamCreateWithPriority cudaStreamCreateWithPriority
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuStreamDefault cudaStreamDefault
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuDeviceGetStreamPriorityRange cudaDeviceGetStreamPriorityRange
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#endif

#include <stdio.h>
#include "tessera/backend.h"

/* Check a runtime call; on failure write "<backend>: <what>: <call> failed: <reason>" into
 * err (TS_BACKEND_ERROR_SIZE bytes) and return TS_ERR_BACKEND from the calling function. */
#define GPU_CHECK(err, what, call)                                                        \
  do {                                                                                    \
    gpuError_t gpu_e_ = (call);                                                           \
    if (gpu_e_ != gpuSuccess) {                                                           \
      snprintf((err), TS_BACKEND_ERROR_SIZE, "%s: %s: %s failed: %s", TS_GPU_NAME, (what), \
               #call, gpuGetErrorString(gpu_e_));                                         \
      return TS_ERR_BACKEND;                                                              \
    }                                                                                     \
  } while (0)

/* Check the launch of kernel `name` just issued (configuration and earlier asynchronous
 * errors); with TESSERA_GPU_SYNC set in the environment also wait for it to finish. */
#define GPU_CHECK_LAUNCH(err, name)                                                       \
  do {                                                                                    \
    gpuError_t gpu_e_ = gpuGetLastError();                                                \
    if (gpu_e_ == gpuSuccess && ts_gpu_sync_launches()) gpu_e_ = gpuDeviceSynchronize();  \
    if (gpu_e_ != gpuSuccess) {                                                           \
      snprintf((err), TS_BACKEND_ERROR_SIZE, "%s: kernel %s failed: %s", TS_GPU_NAME,     \
               (name), gpuGetErrorString(gpu_e_));                                        \
      return TS_ERR_BACKEND;                                                              \
    }                                                                                     \
  } while (0)

/** 1 when TESSERA_GPU_SYNC is set: every launch is followed by a synchronization, so an
 *  error is reported with the name of the kernel that caused it. */
int ts_gpu_sync_launches(void);

#endif
