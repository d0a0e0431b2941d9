/* gpu-patch-additive.h -- the GPU pass of the additive vertex-patch preconditioner on mapped
 * levels (ts_patch_additive_plan; lib/mg/patch-additive.c), written once for CUDA and HIP:
 * for every patch of one color
 *   y_I += D (x)_d S_d  diag(1 / sum_d L_{d,i_d})  (x)_d S_d^T  D r_I
 * with the patch's own S_d, L_d and region scalings D.  Templates over the precision R and
 * the degree K (m = 2K - 1 DoFs per direction); included by backends/cuda/patch-additive-*.cu,
 * which instantiate it (TS_GPU_PATCH_ADDITIVE_INSTANTIATE).
 *
 * Algorithm.  A patch is handled by m^2 threads in 3D (m in 2D); a block holds PPB patches
 * (about 128 threads).  In 3D thread (a, b) gathers the column (i0, i1) = (a, b) of D r
 * (consecutive threads read consecutive DoFs), contracts it with S_2^T in registers and
 * stores it in shared memory; then the lines along direction 1 (thread (a, b): i0 = a,
 * j2 = b) with S_1^T; then the lines along direction 0 (thread (a, b): j1 = a, j2 = b): S_0^T,
 * the division by sum_d L_d, S_0 in registers; then back along direction 1 with S_1 and
 * along direction 2 with S_2, scaled by D and added into y.  Patches of one color share no
 * interior DoF: plain stores, no atomics.  The patch's S_d, L_d and D are copied to shared
 * memory first (they are read m^2 times each). */
#ifndef TESSERA_GPU_PATCH_ADDITIVE_H
#define TESSERA_GPU_PATCH_ADDITIVE_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

template <int DIM, int K>
struct ts_gpu_patch_additive_shape {
  static constexpr int M = 2 * K - 1;
  static constexpr int TPP = DIM == 3 ? M * M : M;              /* threads per patch */
  static constexpr int PPB = TPP >= 128 ? 1 : 128 / TPP;         /* patches per block */
  static constexpr int THREADS = PPB * TPP;
  static constexpr int SIZE = DIM == 3 ? M * M * M : M * M;      /* DoFs per patch */
  static constexpr int REGIONS = DIM == 3 ? 27 : 9;
  static constexpr int LOCAL = DIM * (M * M + M) + REGIONS;      /* the plan's block */
  static constexpr int SHARED = SIZE + LOCAL;                    /* per patch, values */
};

struct ts_gpu_patch_additive_args {
  int64_t cells0, cells1, n0, n01;
  int64_t first0, first1, first2, count0, count1, npatch;
  int stride;
};

/* region of index i along a direction: the first cell's interior, the middle plane, the
 * second cell's interior */
template <int K>
__device__ __forceinline__ int ts_gpu_patch_region(int i) {
  return i < K - 1 ? 0 : i == K - 1 ? 1 : 2;
}

/* The patch's vertex and the first global index of its interior; false past the last. */
template <int DIM, int K>
__device__ __forceinline__ bool ts_gpu_patch_additive_locate(const ts_gpu_patch_additive_args &g,
                                                             int64_t j, int64_t *patch, int64_t *base) {
  if (j >= g.npatch) return false;
  const int64_t j0 = j % g.count0, j1 = j / g.count0 % g.count1, j2 = j / g.count0 / g.count1;
  const int64_t v0 = g.first0 + g.stride * j0, v1 = g.first1 + g.stride * j1;
  const int64_t v2 = DIM == 3 ? g.first2 + g.stride * j2 : 1;
  *patch = (v0 - 1) + (g.cells0 - 1) * ((v1 - 1) + (g.cells1 - 1) * (v2 - 1));
  *base = (v0 - 1) * K + 1 + g.n0 * ((v1 - 1) * K + 1) + (DIM == 3 ? g.n01 * ((v2 - 1) * K + 1) : 0);
  return true;
}

template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_patch_additive_shape<3, K>::THREADS))
ts_gpu_patch_additive3_kernel(ts_gpu_patch_additive_args g, const R *__restrict__ local,
                              const R *__restrict__ r, R *__restrict__ y) {
  using S = ts_gpu_patch_additive_shape<3, K>;
  constexpr int M = S::M;
  extern __shared__ __align__(16) unsigned char ts_gpu_patch_additive_smem[];
  R *smem = reinterpret_cast<R *>(ts_gpu_patch_additive_smem);
  const int p = threadIdx.x / S::TPP, t = threadIdx.x % S::TPP, a = t % M, b = t / M;
  R *u = smem + p * S::SHARED, *data = u + S::SIZE;
  const R *S0 = data, *L0 = S0 + M * M, *S1 = L0 + M, *L1 = S1 + M * M, *S2 = L1 + M,
          *L2 = S2 + M * M, *D = L2 + M;
  int64_t patch = 0, base = 0;
  const bool active = ts_gpu_patch_additive_locate<3, K>(g, (int64_t)blockIdx.x * S::PPB + p, &patch, &base);
  if (active)
    for (int i = t; i < S::LOCAL; i += S::TPP) data[i] = local[patch * S::LOCAL + i];
  __syncthreads();
  R w[M], o[M];
  /* column (i0, i1) = (a, b): D r, then S_2^T along direction 2 */
  if (active) {
    const int ra = ts_gpu_patch_region<K>(a), rb = 3 * ts_gpu_patch_region<K>(b);
#pragma unroll
    for (int i = 0; i < M; ++i)
      w[i] = D[ra + rb + 9 * ts_gpu_patch_region<K>(i)] * r[base + a + g.n0 * b + g.n01 * i];
#pragma unroll
    for (int j = 0; j < M; ++j) {
      R s = 0;
#pragma unroll
      for (int i = 0; i < M; ++i) s += S2[i * M + j] * w[i];
      u[(j * M + b) * M + a] = s;
    }
  }
  __syncthreads();
  /* line (i0, j2) = (a, b) along direction 1: S_1^T */
  if (active) {
#pragma unroll
    for (int i = 0; i < M; ++i) w[i] = u[(b * M + i) * M + a];
#pragma unroll
    for (int j = 0; j < M; ++j) {
      R s = 0;
#pragma unroll
      for (int i = 0; i < M; ++i) s += S1[i * M + j] * w[i];
      o[j] = s;
    }
  }
  __syncthreads();
  if (active)
#pragma unroll
    for (int j = 0; j < M; ++j) u[(b * M + j) * M + a] = o[j];
  __syncthreads();
  /* line (j1, j2) = (a, b) along direction 0: S_0^T, the eigenvalues, S_0 */
  if (active) {
#pragma unroll
    for (int i = 0; i < M; ++i) w[i] = u[(b * M + a) * M + i];
    const R l12 = L1[a] + L2[b];
#pragma unroll
    for (int j = 0; j < M; ++j) {
      R s = 0;
#pragma unroll
      for (int i = 0; i < M; ++i) s += S0[i * M + j] * w[i];
      o[j] = s / (L0[j] + l12);
    }
#pragma unroll
    for (int i = 0; i < M; ++i) {
      R s = 0;
#pragma unroll
      for (int j = 0; j < M; ++j) s += S0[i * M + j] * o[j];
      u[(b * M + a) * M + i] = s;
    }
  }
  __syncthreads();
  /* line (i0, j2) = (a, b) along direction 1: S_1 */
  if (active) {
#pragma unroll
    for (int j = 0; j < M; ++j) w[j] = u[(b * M + j) * M + a];
#pragma unroll
    for (int i = 0; i < M; ++i) {
      R s = 0;
#pragma unroll
      for (int j = 0; j < M; ++j) s += S1[i * M + j] * w[j];
      o[i] = s;
    }
  }
  __syncthreads();
  if (active)
#pragma unroll
    for (int i = 0; i < M; ++i) u[(b * M + i) * M + a] = o[i];
  __syncthreads();
  /* column (i0, i1) = (a, b) along direction 2: S_2, D, added into y */
  if (active) {
#pragma unroll
    for (int j = 0; j < M; ++j) w[j] = u[(j * M + b) * M + a];
    const int ra = ts_gpu_patch_region<K>(a), rb = 3 * ts_gpu_patch_region<K>(b);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      R s = 0;
#pragma unroll
      for (int j = 0; j < M; ++j) s += S2[i * M + j] * w[j];
      y[base + a + g.n0 * b + g.n01 * i] += D[ra + rb + 9 * ts_gpu_patch_region<K>(i)] * s;
    }
  }
}

template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_patch_additive_shape<2, K>::THREADS))
ts_gpu_patch_additive2_kernel(ts_gpu_patch_additive_args g, const R *__restrict__ local,
                              const R *__restrict__ r, R *__restrict__ y) {
  using S = ts_gpu_patch_additive_shape<2, K>;
  constexpr int M = S::M;
  extern __shared__ __align__(16) unsigned char ts_gpu_patch_additive_smem[];
  R *smem = reinterpret_cast<R *>(ts_gpu_patch_additive_smem);
  const int p = threadIdx.x / S::TPP, a = threadIdx.x % S::TPP;
  R *u = smem + p * S::SHARED, *data = u + S::SIZE;
  const R *S0 = data, *L0 = S0 + M * M, *S1 = L0 + M, *L1 = S1 + M * M, *D = L1 + M;
  int64_t patch = 0, base = 0;
  const bool active = ts_gpu_patch_additive_locate<2, K>(g, (int64_t)blockIdx.x * S::PPB + p, &patch, &base);
  if (active)
    for (int i = a; i < S::LOCAL; i += S::TPP) data[i] = local[patch * S::LOCAL + i];
  __syncthreads();
  R w[M], o[M];
  /* column i0 = a: D r, S_1^T along direction 1 */
  if (active) {
    const int ra = ts_gpu_patch_region<K>(a);
#pragma unroll
    for (int i = 0; i < M; ++i) w[i] = D[ra + 3 * ts_gpu_patch_region<K>(i)] * r[base + a + g.n0 * i];
#pragma unroll
    for (int j = 0; j < M; ++j) {
      R s = 0;
#pragma unroll
      for (int i = 0; i < M; ++i) s += S1[i * M + j] * w[i];
      u[j * M + a] = s;
    }
  }
  __syncthreads();
  /* row j1 = a along direction 0: S_0^T, the eigenvalues, S_0 */
  if (active) {
#pragma unroll
    for (int i = 0; i < M; ++i) w[i] = u[a * M + i];
#pragma unroll
    for (int j = 0; j < M; ++j) {
      R s = 0;
#pragma unroll
      for (int i = 0; i < M; ++i) s += S0[i * M + j] * w[i];
      o[j] = s / (L0[j] + L1[a]);
    }
#pragma unroll
    for (int i = 0; i < M; ++i) {
      R s = 0;
#pragma unroll
      for (int j = 0; j < M; ++j) s += S0[i * M + j] * o[j];
      w[i] = s;
    }
  }
  __syncthreads();
  if (active)
#pragma unroll
    for (int i = 0; i < M; ++i) u[a * M + i] = w[i];
  __syncthreads();
  /* column i0 = a along direction 1: S_1, D, added into y */
  if (active) {
    const int ra = ts_gpu_patch_region<K>(a);
#pragma unroll
    for (int j = 0; j < M; ++j) w[j] = u[j * M + a];
#pragma unroll
    for (int i = 0; i < M; ++i) {
      R s = 0;
#pragma unroll
      for (int j = 0; j < M; ++j) s += S1[i * M + j] * w[j];
      y[base + a + g.n0 * i] += D[ra + 3 * ts_gpu_patch_region<K>(i)] * s;
    }
  }
}

template <typename R, int DIM, int K>
static int ts_gpu_patch_additive_launch(const ts_gpu_patch_additive_args &g, const R *local,
                                        const R *r, R *y, char *err) {
  using S = ts_gpu_patch_additive_shape<DIM, K>;
  const size_t bytes = (size_t)S::PPB * S::SHARED * sizeof(R);
  const int64_t blocks = (g.npatch + S::PPB - 1) / S::PPB;
  if (blocks > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s patch_additive: %lld patches of one color exceed "
             "the 2^31-1 blocks of one launch", TS_GPU_NAME, (long long)g.npatch);
    return TS_ERR_ARG;
  }
  if (DIM == 3)
    ts_gpu_patch_additive3_kernel<R, K><<<(unsigned)blocks, S::THREADS, bytes>>>(g, local, r, y);
  else
    ts_gpu_patch_additive2_kernel<R, K><<<(unsigned)blocks, S::THREADS, bytes>>>(g, local, r, y);
  GPU_CHECK_LAUNCH(err, "ts_gpu_patch_additive_kernel");
  return 0;
}

/** y += the local solutions of the patches of the plan's color, device vectors of precision
 *  R; the plan is checked by the library; here what is the GPU's own: the degrees compiled
 *  (1..8), r != y, the launch size. */
template <typename R>
int ts_gpu_patch_additive(const ts_patch_additive_plan *pl, const R *r, R *y, char *err) {
  if (r == y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s patch_additive: r and y are the same vector", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  ts_gpu_patch_additive_args g;
  g.cells0 = pl->cells[0];
  g.cells1 = pl->cells[1];
  g.n0 = pl->n[0];
  g.n01 = pl->n[0] * pl->n[1];
  g.first0 = pl->first_vertex[0];
  g.first1 = pl->first_vertex[1];
  g.first2 = pl->first_vertex[2];
  g.count0 = pl->vertex_count[0];
  g.count1 = pl->vertex_count[1];
  g.npatch = pl->vertex_count[0] * pl->vertex_count[1] * pl->vertex_count[2];
  g.stride = pl->vertex_stride;
  if (g.npatch == 0) return 0;
  const R *local = (const R *)pl->local;
#define TS_GPU_PA_CASE(KK)                                                                  \
  case KK:                                                                                 \
    return pl->dim == 3 ? ts_gpu_patch_additive_launch<R, 3, KK>(g, local, r, y, err)      \
                        : ts_gpu_patch_additive_launch<R, 2, KK>(g, local, r, y, err);
  switch (pl->dofs_per_cell) {
    TS_GPU_PA_CASE(1)
    TS_GPU_PA_CASE(2)
    TS_GPU_PA_CASE(3)
    TS_GPU_PA_CASE(4)
    TS_GPU_PA_CASE(5)
    TS_GPU_PA_CASE(6)
    TS_GPU_PA_CASE(7)
    TS_GPU_PA_CASE(8)
    default:
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s patch_additive: degree %d not compiled (the GPU "
               "kernel is instantiated for k = 1..8)", TS_GPU_NAME, pl->dofs_per_cell);
      return TS_ERR_UNSUPPORTED;
  }
#undef TS_GPU_PA_CASE
}

#define TS_GPU_PATCH_ADDITIVE_INSTANTIATE(R) \
  template int ts_gpu_patch_additive<R>(const ts_patch_additive_plan *, const R *, R *, char *);

#endif
