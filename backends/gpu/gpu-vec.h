/* gpu-vec.h -- the GPU vector kernels (set, random, convert, axpby, pointwise product,
 * dot), written once for CUDA and HIP as templates over the precision.  Grid-stride loops
 * with 64-bit indices; the dot product is a deterministic two-stage reduction accumulated
 * in double (fixed grid, fixed tree order), whose only copy to the host is the scalar. */
#ifndef TESSERA_GPU_VEC_H
#define TESSERA_GPU_VEC_H

#include <stdint.h>
#include "gpu-runtime.h"

#define TS_GPU_VEC_THREADS 256
#define TS_GPU_DOT_BLOCKS 1024 /* partial sums of the first stage (fixed: deterministic) */

/* Blocks for a grid-stride loop over n entries. */
static inline unsigned ts_gpu_blocks(int64_t n) {
  int64_t b = (n + TS_GPU_VEC_THREADS - 1) / TS_GPU_VEC_THREADS;
  if (b > 65536) b = 65536;
  return (unsigned)(b < 1 ? 1 : b);
}

#define TS_GPU_FOR(i, n)                                                                   \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                \
       i += (int64_t)gridDim.x * blockDim.x)

/* splitmix64 of (seed, index): the same formula as ts_random_entry (tessera/backend.h), so that every
 * backend draws the same vectors. */
__device__ __forceinline__ double ts_gpu_random_entry(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * (double)(z >> 11) * 0x1.0p-53 - 1.0;
}

template <typename R>
__global__ void ts_gpu_vec_set_kernel(int64_t n, double alpha, R *x) {
  const R a = (R)alpha;
  TS_GPU_FOR(i, n) x[i] = a;
}

/* x[i0 + n0 (i1 + n1 i2)] = f0[i0] f1[i1] f2[i2] (f = f0, f1, f2 concatenated), the product
 * in double and rounded once. */
template <typename R>
__global__ void ts_gpu_vec_tensor_kernel(int64_t n0, int64_t n1, int64_t n2,
                                         const double *__restrict__ f, R *__restrict__ x) {
  const double *f1 = f + n0, *f2 = f1 + n1;
  TS_GPU_FOR(i, n0 * n1 * n2) {
    const int64_t r = i / n0;
    x[i] = (R)(f[i - r * n0] * (f1[r % n1] * f2[r / n1]));
  }
}

template <typename R>
__global__ void ts_gpu_vec_random_kernel(int64_t n, uint64_t seed, R *x) {
  TS_GPU_FOR(i, n) x[i] = (R)ts_gpu_random_entry(seed, (uint64_t)i);
}

template <typename RX, typename RY>
__global__ void ts_gpu_vec_convert_kernel(int64_t n, const RX *x, RY *y) {
  TS_GPU_FOR(i, n) y[i] = (RY)x[i];
}

template <typename R>
__global__ void ts_gpu_vec_axpby_kernel(int64_t n, double alpha, const R *__restrict__ x,
                                        double beta, R *__restrict__ y) {
  const R a = (R)alpha, b = (R)beta;
  if (beta == 0.0) { /* y = a x, also when y holds NaN or garbage */
    TS_GPU_FOR(i, n) y[i] = a * x[i];
  } else {
    TS_GPU_FOR(i, n) y[i] = a * x[i] + b * y[i];
  }
}

template <typename R>
__global__ void ts_gpu_vec_pointwise_mult_kernel(int64_t n, const R *x, const R *y, R *w) {
  TS_GPU_FOR(i, n) w[i] = x[i] * y[i];
}

/* Planes of a vector (tessera/backend.h, vec_plane_pack), up to TS_MAX_PLANES in one launch:
 * entry i of the packed buffer is plane p's entry i - start[p] (start: the prefix sums of the
 * planes' sizes, start[count] the total). */
struct ts_gpu_planes {
  ts_plane plane[TS_MAX_PLANES];
  int64_t start[TS_MAX_PLANES + 1];
  int count;
};

/* the entry of x that entry i of the packed planes is */
__device__ __forceinline__ int64_t ts_gpu_plane_entry(const ts_gpu_planes &q, int64_t i) {
  int p = 0;
  while (p + 1 < q.count && i >= q.start[p + 1]) ++p;
  const ts_plane pl = q.plane[p];
  const int64_t j = i - q.start[p], r = j / pl.width;
  return pl.offset + r * pl.pitch + (j - r * pl.width);
}

template <typename R>
__global__ void ts_gpu_plane_pack_kernel(const ts_gpu_planes q, const R *__restrict__ x,
                                         R *__restrict__ buf) {
  TS_GPU_FOR(i, q.start[q.count]) buf[i] = x[ts_gpu_plane_entry(q, i)];
}

/* the planes = buf (add = 0; buf NULL: = 0) or += buf (add = 1) */
template <typename R>
__global__ void ts_gpu_plane_unpack_kernel(const ts_gpu_planes q, int add,
                                           const R *__restrict__ buf, R *__restrict__ x) {
  TS_GPU_FOR(i, q.start[q.count]) {
    R *v = x + ts_gpu_plane_entry(q, i);
    const R in = buf ? buf[i] : R(0);
    *v = add ? *v + in : in;
  }
}

/* In-block tree sum of s (blockDim.x = TS_GPU_VEC_THREADS threads), fixed order. */
__device__ __forceinline__ double ts_gpu_block_sum(double s) {
  __shared__ double sh[TS_GPU_VEC_THREADS];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int w = TS_GPU_VEC_THREADS / 2; w > 0; w >>= 1) {
    if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  return sh[0];
}

/* Stage 1: partial[b] = sum over block b's grid-stride share of x[i] y[i], in double. */
template <typename R>
__global__ void ts_gpu_vec_dot_kernel(int64_t n, const R *__restrict__ x,
                                      const R *__restrict__ y, double *partial) {
  double s = 0.0;
  TS_GPU_FOR(i, n) s += (double)x[i] * (double)y[i];
  s = ts_gpu_block_sum(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

/* Stage 2: partial[TS_GPU_DOT_BLOCKS] = sum of the first `count` partial sums. */
__global__ void ts_gpu_sum_partials_kernel(int count, double *partial) {
  double s = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) s += partial[i];
  s = ts_gpu_block_sum(s);
  if (threadIdx.x == 0) partial[TS_GPU_DOT_BLOCKS] = s;
}

#endif
