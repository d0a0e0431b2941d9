/* gpu-ceilings.h -- measure the device's ceilings in the same run as a benchmark: copy
 * bandwidth (a large device-to-device copy with 16-byte accesses, read + write counted)
 * and the FP64 and FP32 FMA throughput (independent FMA chains in registers).  Best of a
 * few repetitions, timed with events.  Written once for CUDA and HIP. */
#ifndef TESSERA_GPU_CEILINGS_H
#define TESSERA_GPU_CEILINGS_H

#include "gpu-runtime.h"

__global__ void ts_gpu_copy_kernel(int64_t n, const double2 *__restrict__ a,
                                   double2 *__restrict__ b) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    b[i] = a[i];
}

#define TS_GPU_FMA_CHAINS 8
#define TS_GPU_FMA_ITERS 4096

template <typename R>
__global__ void ts_gpu_fma_kernel(R m, R c, R *sink) {
  R v[TS_GPU_FMA_CHAINS];
#pragma unroll
  for (int q = 0; q < TS_GPU_FMA_CHAINS; ++q) v[q] = (R)(threadIdx.x + q);
  for (int it = 0; it < TS_GPU_FMA_ITERS; ++it)
#pragma unroll
    for (int q = 0; q < TS_GPU_FMA_CHAINS; ++q) v[q] = v[q] * m + c;
  R s = 0;
#pragma unroll
  for (int q = 0; q < TS_GPU_FMA_CHAINS; ++q) s += v[q];
  if (s == (R)-12345.678) sink[0] = s; /* keeps the chains alive */
}

/* Milliseconds of the fastest of `reps` runs of the launch statement L. */
#define TS_GPU_TIME_BEST(err, what, reps, best_ms, L)                                     \
  do {                                                                                    \
    gpuEvent_t t0_, t1_;                                                                  \
    GPU_CHECK(err, what, gpuEventCreate(&t0_));                                           \
    GPU_CHECK(err, what, gpuEventCreate(&t1_));                                           \
    best_ms = 1e30f;                                                                      \
    for (int r_ = 0; r_ <= (reps); ++r_) { /* run 0 warms up */                           \
      GPU_CHECK(err, what, gpuEventRecord(t0_, 0));                                       \
      L;                                                                                  \
      GPU_CHECK_LAUNCH(err, what);                                                        \
      GPU_CHECK(err, what, gpuEventRecord(t1_, 0));                                       \
      GPU_CHECK(err, what, gpuEventSynchronize(t1_));                                     \
      float ms_ = 0;                                                                      \
      GPU_CHECK(err, what, gpuEventElapsedTime(&ms_, t0_, t1_));                          \
      if (r_ > 0 && ms_ < best_ms) best_ms = ms_;                                         \
    }                                                                                     \
    (void)gpuEventDestroy(t0_);                                                           \
    (void)gpuEventDestroy(t1_);                                                                 \
  } while (0)

/* The three measurements on the buffers a and b of `bytes` bytes each. */
static int ts_gpu_ceilings_run(ts_backend_ceilings *c, char *err, void *a, void *b, size_t bytes,
                               int sms) {
  const int64_t n = (int64_t)(bytes / sizeof(double2));
  const unsigned blocks = (unsigned)sms * 8;
  float ms = 0;
  GPU_CHECK(err, "measure_ceilings (zero)", gpuMemsetAsync(a, 0, bytes, 0));
  TS_GPU_TIME_BEST(err, "ts_gpu_copy_kernel", 5, ms,
                   (ts_gpu_copy_kernel<<<blocks, 512>>>(n, (const double2 *)a, (double2 *)b)));
  c->copy_bytes_per_second = 2.0 * (double)bytes / (ms * 1e-3);
  const unsigned fblocks = (unsigned)sms * 16;
  const double flops = 2.0 * TS_GPU_FMA_CHAINS * TS_GPU_FMA_ITERS * 256.0 * fblocks;
  TS_GPU_TIME_BEST(err, "ts_gpu_fma_kernel<double>", 3, ms,
                   (ts_gpu_fma_kernel<double><<<fblocks, 256>>>(0.999999, 1e-7, (double *)b)));
  c->fp64_flops_per_second = flops / (ms * 1e-3);
  TS_GPU_TIME_BEST(err, "ts_gpu_fma_kernel<float>", 3, ms,
                   (ts_gpu_fma_kernel<float><<<fblocks, 256>>>(0.9999f, 1e-4f, (float *)b)));
  c->fp32_flops_per_second = flops / (ms * 1e-3);
  return 0;
}

/** Measure the ceilings of the current device into c; 0 or TS_ERR_BACKEND with a message. */
static int ts_gpu_measure_ceilings(ts_backend_ceilings *c, char *err) {
  int dev = 0;
  gpuDeviceProp prop;
  GPU_CHECK(err, "measure_ceilings", gpuGetDevice(&dev));
  GPU_CHECK(err, "measure_ceilings", gpuGetDeviceProperties(&prop, dev));
  size_t fr = 0, tot = 0;
  GPU_CHECK(err, "measure_ceilings", gpuMemGetInfo(&fr, &tot));
  /* two buffers of up to 1 GiB each, well beyond the L2 cache */
  size_t bytes = (size_t)1 << 30;
  while (bytes > ((size_t)16 << 20) && 2 * bytes > fr / 2) bytes /= 2;
  void *a = NULL, *b = NULL;
  GPU_CHECK(err, "measure_ceilings (copy buffers)", gpuMalloc(&a, bytes));
  gpuError_t e = gpuMalloc(&b, bytes);
  if (e != gpuSuccess) {
    (void)gpuFree(a);
    GPU_CHECK(err, "measure_ceilings (copy buffers)", e);
  }
  const int rc = ts_gpu_ceilings_run(c, err, a, b, bytes, prop.multiProcessorCount);
  (void)gpuFree(a);
  (void)gpuFree(b);
  return rc;
}

#endif
