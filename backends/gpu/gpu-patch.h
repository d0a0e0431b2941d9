/* gpu-patch.h -- the GPU vertex-patch smoother (paper 002, Algorithm 2.3 and Table 4) on a
 * structured box, written once for CUDA and HIP: one pass of ts_patch_plan's stage over the
 * patches of one color, templates over the precision R, the dimension and the degree K.
 * Included by backends/cuda/patch-*.cu and backends/hip/patch-*.cpp, which instantiate it
 * (TS_GPU_PATCH_INSTANTIATE), one precision per translation unit.
 *
 * Algorithm (paper 002, sections 3-4).  A thread block holds PPB patches (about 256 threads;
 * one patch from degree 6 on in 3D); N = 2K+1 closed-patch and M = 2K-1 interior DoFs per
 * direction.  In 3D thread t = i0 + N i1 of a patch owns the column (i0, i1) of the closed
 * patch along direction 2, in 2D thread i0 the column along direction 1.  The residual
 * r = b - Abar x on the interior, Abar = s0 K0 M1 M2 + s1 M0 K1 M2 + s2 M0 M1 K2 (Kronecker
 * factors), is evaluated by sum factorization in three sweeps:
 *   direction 2, in registers from x:  a = M2 x,  b = (s2/s1) K2 x   (rows 1..M only)
 *   direction 1, via shared memory:    P = s1 (K1 a + M1 b),  Q = s0 M1 a
 *   direction 0, via shared memory:    r = b - (M0 P + K0 Q)
 * (2D: a = M1 x, b = (s1/s0) K1 x in registers, r = b - s0 (K0 a + M0 b)).  The 1D patch
 * matrices couple the 2 cells only through the middle DoF k: column c < k has no entry in
 * rows g > k and column c > k none in rows g < k; these products are skipped at compile
 * time.  The local solve by fast diagonalization (eq. 2.13-2.15),
 * t = (x)_d S_d  diag(1 / sum_d s_d lambda_d)  (x)_d S_d^T r, takes 1D sweeps: S0^T in
 * registers on the residual's lines along direction 0, then S2^T, then S1^T, the diagonal
 * and S1 on one line along direction 1, then S0, and last S2 on lines along direction 2,
 * whose threads add t to x with coalesced accesses (2D: S0^T; S1^T, diagonal, S1; S0).
 * Patches of one color share no interior DoF and none lies in another's closed patch: x is
 * updated in place without atomics.
 *
 * Threads and shared memory.  Every sweep is one pass: each thread reads its whole line
 * (streamed, one shared load per input, all outputs of the line accumulated in registers),
 * the block synchronizes, and the outputs overwrite the inputs in place.  Shared memory per
 * patch is the two arrays a, b (M N^2 entries each in 3D), reused for P, Q and r; lines of
 * consecutive threads are consecutive words or have the odd stride N or M apart: no bank
 * conflicts.  3D at high degree needs more than 48 KB (K = 10, double: 134 KB): dynamic
 * shared memory with the attribute set once per instance.
 *
 * Coefficients.  The 1D matrices M_d, K_d (N x N) and the eigenvectors S_d (M x M) are in
 * constant memory (one image per translation unit, ts_gpu_patch_coef) and are read with
 * compile-time offsets, so a multiply-add takes its coefficient from the constant bank.  The
 * image and the inverse eigenvalue sums are uploaded to device buffers once per distinct
 * plan content (gpu-patch-cache.h); a call copies the image into constant memory device to
 * device only when the entry differs from the one loaded (a level switch). */
#ifndef TESSERA_GPU_PATCH_H
#define TESSERA_GPU_PATCH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gpu-runtime.h"
#include "gpu-patch-cache.h"
#include "gpu-laplace.h" /* ts_gpu_laplace_dirichlet_kernel: x = b on the Dirichlet DoFs */

#ifdef TS_GPU_HIP
#define TS_GPU_PATCH_TO_SYMBOL(sym, src, bytes) \
  hipMemcpyToSymbolAsync(HIP_SYMBOL(sym), src, bytes, 0, hipMemcpyDeviceToDevice, 0)
#else
#define TS_GPU_PATCH_TO_SYMBOL(sym, src, bytes) \
  cudaMemcpyToSymbolAsync(sym, src, bytes, 0, cudaMemcpyDeviceToDevice, 0)
#endif

/* The constant-memory image: per direction d, at d * (2 N^2 + M^2) entries of R: M_d, K_d
 * (N x N, row-major) and S_d (M x M, row-major: entry (i, j) is component i of vector j). */
#define TS_GPU_PATCH_NMAX (2 * TS_MAX_DEGREE + 1)
#define TS_GPU_PATCH_COEF_DOUBLES \
  (3 * (2 * TS_GPU_PATCH_NMAX * TS_GPU_PATCH_NMAX + (TS_GPU_PATCH_NMAX - 2) * (TS_GPU_PATCH_NMAX - 2)))
static __constant__ double ts_gpu_patch_coef[TS_GPU_PATCH_COEF_DOUBLES];
/* the cache entry whose image is in ts_gpu_patch_coef now, and the next entry id (per
 * translation unit, as the constant memory; ids are never reused) */
static uint64_t ts_gpu_patch_loaded_id = 0;
static uint64_t ts_gpu_patch_next_id = 0;

template <int DIM, int K>
struct ts_gpu_patch_shape {
  static constexpr int N = 2 * K + 1, M = 2 * K - 1;
  static constexpr int TP = DIM == 3 ? N * N : N; /* threads per patch */
  static constexpr int PPB0 = 256 / TP;
  static constexpr int PPB = PPB0 < 1 ? 1 : PPB0; /* patches per block */
  static constexpr int THREADS = PPB * TP;
  static constexpr int SHARED = 2 * M * TP; /* entries of shared memory per patch: a, b */
  static constexpr int DS = 2 * N * N + M * M; /* coefficient image stride per direction */
};

/* Blocks per SM the 3D kernel is compiled for (its __launch_bounds__ minimum).  In float: as
 * many as the register file holds at about 8 M + 8 registers per thread (the line arrays of the
 * sweeps, two of M values live at a time, plus addressing); without a minimum nvcc gives float
 * K = 7 150 registers (one block of 8 warps per SM), with it 110, no spills, two blocks.  In
 * double the same estimate (16 M) asks for one block at K >= 6, which lets nvcc take up to 254
 * registers: K = 5..8 then ran 1.2-1.9x slower than with no minimum (H100, 2026-11-25).  So
 * double K = 5..8 use the best of 0 (none), 2 and 3 measured on the H100 there
 * (bench/results/2026-11-25-h100-patch-minblocks.md, smoothing step ns/DoF, 57-135 M DoFs):
 * K = 5: 3 (0.153; none 0.157), 6: 3 (0.216; none 0.290), 7: 3 (0.252; none 0.267),
 * 8: 2 (0.232; none 0.246; 3 spills, 0.428); the other degrees keep the estimate. */
template <typename R, int DIM, int K>
struct ts_gpu_patch_minb {
  static constexpr int M = 2 * K - 1;
  static constexpr int WARPS = (ts_gpu_patch_shape<DIM, K>::THREADS + 31) / 32;
  static constexpr int NEED = sizeof(R) == 4 ? 8 * M + 8 : 16 * M;
  static constexpr int B = 65536 / (WARPS * 32 * NEED);
  static constexpr int ESTIMATE = B < 1 ? 1 : B > 8 ? 8 : B;
  static constexpr int MEASURED_DOUBLE = K >= 5 && K <= 7 ? 3 : K == 8 ? 2 : 0;
#ifdef TS_GPU_HIP /* hip's second bound counts waves per execution unit: left to hipcc */
  static constexpr int value = 1;
#else
  static constexpr int value = sizeof(R) == 8 && MEASURED_DOUBLE ? MEASURED_DOUBLE : ESTIMATE;
#endif
};


/* Kernel parameters: the color's patches and the scalings (ratio: s2/s1 in 3D, s1/s0 in
 * 2D); linv: 1 / sum_d s_d lambda_{d,i_d}, index i0 + M (i1 + M i2). */
template <typename R>
struct ts_gpu_patch_args {
  int64_t n0, n01;
  int64_t cells[3], first[3], count[3], npatch;
  int stride, stage, constrained;
  R s0, s1, ratio;
  const R *linv;
};

/* acc[a] += A(a + R0, c) v for a < NA, with A(g, c) = A[g LDA + c] (TRANS: A[c LDA + g]).
 * BAND = k > 0: A is a 1D patch matrix over 2 cells, zero where c < k < g or g < k < c
 * (skipped at compile time: c is a constant of the caller's unrolled loop). */
template <typename R, int NA, int LDA, int R0, int BAND, bool TRANS>
__device__ __forceinline__ void ts_gpu_patch_fma(R (&acc)[NA], const R *A, const int c,
                                                 const R v) {
#pragma unroll
  for (int a = 0; a < NA; ++a) {
    const int g = a + R0;
    if (BAND > 0 && ((c < BAND && g > BAND) || (c > BAND && g < BAND))) continue;
    acc[a] += (TRANS ? A[c * LDA + g] : A[g * LDA + c]) * v;
  }
}

template <typename R, int NA>
__device__ __forceinline__ void ts_gpu_patch_zero(R (&acc)[NA]) {
#pragma unroll
  for (int a = 0; a < NA; ++a) acc[a] = R(0);
}

/* The patch of block slot p: its global base index (first closed-patch DoF) and which of
 * its closed-patch faces lie on the Dirichlet boundary (bit 2d: low face of direction d,
 * bit 2d+1: high face).  False for the padding slots of the last block. */
template <typename R, int K>
__device__ __forceinline__ bool ts_gpu_patch_where(const ts_gpu_patch_args<R> &g, int64_t P,
                                                   int dim, int64_t &base, int &faces) {
  if (P >= g.npatch) return false;
  const int64_t j0 = P % g.count[0], rest = P / g.count[0];
  const int64_t j[3] = {j0, rest % g.count[1], rest / g.count[1]};
  base = 0;
  faces = 0;
  const int64_t st[3] = {1, g.n0, g.n01};
  for (int d = 0; d < dim; ++d) {
    const int64_t v = g.first[d] + (int64_t)g.stride * j[d];
    base += (v - 1) * K * st[d];
    if (g.constrained && v == 1) faces |= 1 << (2 * d);
    if (g.constrained && v == g.cells[d] - 1) faces |= 2 << (2 * d);
  }
  return true;
}

/* Whether closed-patch index i of direction d is a Dirichlet DoF. */
template <int N>
__device__ __forceinline__ bool ts_gpu_patch_dirichlet(int faces, int d, int i) {
  return (i == 0 && (faces >> (2 * d) & 1)) || (i == N - 1 && (faces >> (2 * d) & 2));
}

template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_patch_shape<3, K>::THREADS), (ts_gpu_patch_minb<R, 3, K>::value))
    ts_gpu_patch3_kernel(const ts_gpu_patch_args<R> g, const R *__restrict__ b,
                         R *__restrict__ x, R *__restrict__ rv) {
  using S = ts_gpu_patch_shape<3, K>;
  constexpr int N = S::N, M = S::M, NN = N * N, MM = M * M, DS = S::DS;
  const R *C = reinterpret_cast<const R *>(ts_gpu_patch_coef);
  const R *M0 = C, *K0 = C + NN, *S0 = C + 2 * NN;
  const R *M1 = C + DS, *K1 = C + DS + NN, *S1 = C + DS + 2 * NN;
  const R *M2 = C + 2 * DS, *K2 = C + 2 * DS + NN, *S2 = C + 2 * DS + 2 * NN;
  extern __shared__ double ts_gpu_patch_smem[];
  const int p = threadIdx.x / S::TP, t = threadIdx.x % S::TP;
  R *sA = reinterpret_cast<R *>(ts_gpu_patch_smem) + p * S::SHARED, *sB = sA + M * NN;
  R *sR = sA; /* the interior's M^3 entries, [i2][i1][i0] */
  int64_t base = 0;
  int faces = 0;
  const bool active = ts_gpu_patch_where<R, K>(g, (int64_t)blockIdx.x * S::PPB + p, 3, base, faces);
  R line[M], w[M];
  /* the residual line (a1, a2) = (t % M, t / M) along direction 0, DoFs gl + a0 */
  const int64_t gl = base + 1 + g.n0 * (t % M + 1) + g.n01 * (t / M + 1);
  if (g.stage != TS_PATCH_STAGE_SOLVE) {
    { /* direction 2 in registers: a = M2 x, b = (s2/s1) K2 x on the column (i0, i1) */
      const int i0 = t % N, i1 = t / N;
      R ca[M], cb[M];
      ts_gpu_patch_zero(ca);
      ts_gpu_patch_zero(cb);
      if (active) {
        const bool zc = ts_gpu_patch_dirichlet<N>(faces, 0, i0) ||
                        ts_gpu_patch_dirichlet<N>(faces, 1, i1);
        const R *xc = x + base + i0 + g.n0 * i1;
#pragma unroll
        for (int z = 0; z < N; ++z) {
          R v = xc[z * g.n01];
          if (zc || ts_gpu_patch_dirichlet<N>(faces, 2, z)) v = R(0);
          ts_gpu_patch_fma<R, M, N, 1, K, false>(ca, M2, z, v);
          ts_gpu_patch_fma<R, M, N, 1, K, false>(cb, K2, z, v);
        }
      }
#pragma unroll
      for (int a = 0; a < M; ++a) {
        sA[a * NN + t] = ca[a];
        sB[a * NN + t] = g.ratio * cb[a];
      }
    }
    __syncthreads();
    { /* direction 1 on the lines (i0, a2): P = s1 (K1 a + M1 b), Q = s0 M1 a */
      const int i0 = t % N, a2 = t / N;
      R cp[M], cq[M];
      ts_gpu_patch_zero(cp);
      ts_gpu_patch_zero(cq);
      if (t < M * N) {
#pragma unroll
        for (int j = 0; j < N; ++j) {
          const R u = sA[a2 * NN + j * N + i0], v = sB[a2 * NN + j * N + i0];
          ts_gpu_patch_fma<R, M, N, 1, K, false>(cp, K1, j, u);
          ts_gpu_patch_fma<R, M, N, 1, K, false>(cp, M1, j, v);
          ts_gpu_patch_fma<R, M, N, 1, K, false>(cq, M1, j, u);
        }
      }
      __syncthreads();
      if (t < M * N)
#pragma unroll
        for (int a = 0; a < M; ++a) {
          sA[a2 * NN + a * N + i0] = g.s1 * cp[a];
          sB[a2 * NN + a * N + i0] = g.s0 * cq[a];
        }
    }
    __syncthreads();
    /* direction 0 on the lines (a1, a2): r = b - (M0 P + K0 Q) */
    if (t < MM) {
      const int a1 = t % M, a2 = t / M;
      ts_gpu_patch_zero(line);
#pragma unroll
      for (int i = 0; i < N; ++i) {
        const R u = sA[a2 * NN + a1 * N + i], v = sB[a2 * NN + a1 * N + i];
        ts_gpu_patch_fma<R, M, N, 1, K, false>(line, M0, i, u);
        ts_gpu_patch_fma<R, M, N, 1, K, false>(line, K0, i, v);
      }
      if (active)
#pragma unroll
        for (int a = 0; a < M; ++a) line[a] = b[gl + a] - line[a];
      if (g.stage == TS_PATCH_STAGE_RESIDUAL && active)
#pragma unroll
        for (int a = 0; a < M; ++a) rv[gl + a] = line[a];
    }
    if (g.stage == TS_PATCH_STAGE_RESIDUAL) return;
  } else if (t < MM && active) {
#pragma unroll
    for (int a = 0; a < M; ++a) line[a] = rv[gl + a];
  }
  /* fast diagonalization: S0^T in registers on the lines (a1, a2) */
  if (t < MM) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int a = 0; a < M; ++a) ts_gpu_patch_fma<R, M, M, 0, 0, true>(w, S0, a, line[a]);
  }
  __syncthreads(); /* sR aliases sA, read by the residual sweep */
  if (t < MM)
#pragma unroll
    for (int c = 0; c < M; ++c) sR[t * M + c] = w[c];
  __syncthreads();
  /* S2^T on the lines (c0, a1) along direction 2 */
  const int lo = t % M, hi = t / M;
  if (t < MM) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int j = 0; j < M; ++j) ts_gpu_patch_fma<R, M, M, 0, 0, true>(w, S2, j, sR[(j * M + hi) * M + lo]);
  }
  __syncthreads();
  if (t < MM)
#pragma unroll
    for (int c = 0; c < M; ++c) sR[(c * M + hi) * M + lo] = w[c];
  __syncthreads();
  /* S1^T, the diagonal 1 / sum_d s_d lambda_d and S1 on the lines (c0, c2) along direction 1 */
  if (t < MM) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int j = 0; j < M; ++j) ts_gpu_patch_fma<R, M, M, 0, 0, true>(w, S1, j, sR[(hi * M + j) * M + lo]);
#pragma unroll
    for (int c = 0; c < M; ++c) w[c] *= g.linv[(hi * M + c) * M + lo];
    ts_gpu_patch_zero(line);
#pragma unroll
    for (int c = 0; c < M; ++c) ts_gpu_patch_fma<R, M, M, 0, 0, false>(line, S1, c, w[c]);
  }
  __syncthreads();
  if (t < MM)
#pragma unroll
    for (int a = 0; a < M; ++a) sR[(hi * M + a) * M + lo] = line[a];
  __syncthreads();
  /* S0 on the lines (a1, c2) along direction 0 */
  if (t < MM) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int c = 0; c < M; ++c) ts_gpu_patch_fma<R, M, M, 0, 0, false>(w, S0, c, sR[t * M + c]);
  }
  __syncthreads();
  if (t < MM)
#pragma unroll
    for (int a = 0; a < M; ++a) sR[t * M + a] = w[a];
  __syncthreads();
  /* S2 on the lines (a0, a1) along direction 2; x += t (coalesced along a0) */
  if (t < MM && active) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int c = 0; c < M; ++c) ts_gpu_patch_fma<R, M, M, 0, 0, false>(w, S2, c, sR[(c * M + hi) * M + lo]);
    R *xl = x + base + 1 + lo + g.n0 * (hi + 1) + g.n01;
#pragma unroll
    for (int a = 0; a < M; ++a) xl[a * g.n01] += w[a];
  }
}

template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_patch_shape<2, K>::THREADS))
    ts_gpu_patch2_kernel(const ts_gpu_patch_args<R> g, const R *__restrict__ b,
                         R *__restrict__ x, R *__restrict__ rv) {
  using S = ts_gpu_patch_shape<2, K>;
  constexpr int N = S::N, M = S::M, DS = S::DS;
  const R *C = reinterpret_cast<const R *>(ts_gpu_patch_coef);
  const R *M0 = C, *K0 = C + N * N, *S0 = C + 2 * N * N;
  const R *M1 = C + DS, *K1 = C + DS + N * N, *S1 = C + DS + 2 * N * N;
  extern __shared__ double ts_gpu_patch_smem[];
  const int p = threadIdx.x / S::TP, t = threadIdx.x % S::TP;
  R *sA = reinterpret_cast<R *>(ts_gpu_patch_smem) + p * S::SHARED, *sB = sA + M * N;
  R *sR = sA; /* the interior's M^2 entries, [i1][i0] */
  int64_t base = 0;
  int faces = 0;
  const bool active = ts_gpu_patch_where<R, K>(g, (int64_t)blockIdx.x * S::PPB + p, 2, base, faces);
  R line[M], w[M];
  /* the residual line a1 = t along direction 0, DoFs gl + a0 */
  const int64_t gl = base + 1 + g.n0 * (t + 1);
  if (g.stage != TS_PATCH_STAGE_SOLVE) {
    { /* direction 1 in registers: a = M1 x, b = (s1/s0) K1 x on the column i0 = t */
      R ca[M], cb[M];
      ts_gpu_patch_zero(ca);
      ts_gpu_patch_zero(cb);
      if (active) {
        const bool zc = ts_gpu_patch_dirichlet<N>(faces, 0, t);
        const R *xc = x + base + t;
#pragma unroll
        for (int z = 0; z < N; ++z) {
          R v = xc[z * g.n0];
          if (zc || ts_gpu_patch_dirichlet<N>(faces, 1, z)) v = R(0);
          ts_gpu_patch_fma<R, M, N, 1, K, false>(ca, M1, z, v);
          ts_gpu_patch_fma<R, M, N, 1, K, false>(cb, K1, z, v);
        }
      }
#pragma unroll
      for (int a = 0; a < M; ++a) {
        sA[a * N + t] = ca[a];
        sB[a * N + t] = g.ratio * cb[a];
      }
    }
    __syncthreads();
    /* direction 0 on the lines a1: r = b - s0 (K0 a + M0 b) */
    if (t < M) {
      ts_gpu_patch_zero(line);
#pragma unroll
      for (int i = 0; i < N; ++i) {
        ts_gpu_patch_fma<R, M, N, 1, K, false>(line, K0, i, sA[t * N + i]);
        ts_gpu_patch_fma<R, M, N, 1, K, false>(line, M0, i, sB[t * N + i]);
      }
      if (active)
#pragma unroll
        for (int a = 0; a < M; ++a) line[a] = b[gl + a] - g.s0 * line[a];
      if (g.stage == TS_PATCH_STAGE_RESIDUAL && active)
#pragma unroll
        for (int a = 0; a < M; ++a) rv[gl + a] = line[a];
    }
    if (g.stage == TS_PATCH_STAGE_RESIDUAL) return;
  } else if (t < M && active) {
#pragma unroll
    for (int a = 0; a < M; ++a) line[a] = rv[gl + a];
  }
  /* fast diagonalization: S0^T in registers on the lines a1 */
  if (t < M) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int a = 0; a < M; ++a) ts_gpu_patch_fma<R, M, M, 0, 0, true>(w, S0, a, line[a]);
  }
  __syncthreads(); /* sR aliases sA, read by the residual sweep */
  if (t < M)
#pragma unroll
    for (int c = 0; c < M; ++c) sR[t * M + c] = w[c];
  __syncthreads();
  /* S1^T, the diagonal and S1 on the lines c0 = t along direction 1 */
  if (t < M) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int j = 0; j < M; ++j) ts_gpu_patch_fma<R, M, M, 0, 0, true>(w, S1, j, sR[j * M + t]);
#pragma unroll
    for (int c = 0; c < M; ++c) w[c] *= g.linv[c * M + t];
    ts_gpu_patch_zero(line);
#pragma unroll
    for (int c = 0; c < M; ++c) ts_gpu_patch_fma<R, M, M, 0, 0, false>(line, S1, c, w[c]);
  }
  __syncthreads();
  if (t < M)
#pragma unroll
    for (int a = 0; a < M; ++a) sR[a * M + t] = line[a];
  __syncthreads();
  /* S0 on the lines a1 = t along direction 0; x += t */
  if (t < M && active) {
    ts_gpu_patch_zero(w);
#pragma unroll
    for (int c = 0; c < M; ++c) ts_gpu_patch_fma<R, M, M, 0, 0, false>(w, S0, c, sR[t * M + c]);
#pragma unroll
    for (int a = 0; a < M; ++a) x[gl + a] += w[a];
  }
}

/* The kernel of dimension DIM and degree K (overloads on the dimension, so that only the
 * kernel of that dimension is instantiated). */
template <typename R>
using ts_gpu_patch_kernel_t = void (*)(const ts_gpu_patch_args<R>, const R *, R *, R *);
template <int DIM>
struct ts_gpu_patch_dim {};
template <typename R, int K>
static ts_gpu_patch_kernel_t<R> ts_gpu_patch_kernel(ts_gpu_patch_dim<3>) {
  return ts_gpu_patch3_kernel<R, K>;
}
template <typename R, int K>
static ts_gpu_patch_kernel_t<R> ts_gpu_patch_kernel(ts_gpu_patch_dim<2>) {
  return ts_gpu_patch2_kernel<R, K>;
}

/* Launch the kernel of dimension DIM and degree K over the color's patches. */
template <typename R, int DIM, int K>
static int ts_gpu_patch_launch(const ts_gpu_patch_args<R> &g, const R *b, R *x, R *r, char *err) {
  using S = ts_gpu_patch_shape<DIM, K>;
  const size_t bytes = (size_t)S::PPB * S::SHARED * sizeof(R);
  const ts_gpu_patch_kernel_t<R> kernel = ts_gpu_patch_kernel<R, K>(ts_gpu_patch_dim<DIM>());
  static bool attribute_set = false; /* per instance */
  if (bytes > 48 * 1024 && !attribute_set) {
    GPU_CHECK(err, "patch_smooth (dynamic shared memory above 48 KB)",
              gpuFuncSetAttribute(kernel, gpuFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    attribute_set = true;
  }
  const int64_t blocks = (g.npatch + S::PPB - 1) / S::PPB;
  if (blocks > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s patch_smooth: %lld patches of one color exceed the 2^31-1 blocks of one launch",
             TS_GPU_NAME, (long long)g.npatch);
    return TS_ERR_ARG;
  }
  kernel<<<(unsigned)blocks, S::THREADS, bytes>>>(g, b, x, r);
  GPU_CHECK_LAUNCH(err, DIM == 3 ? "ts_gpu_patch3_kernel" : "ts_gpu_patch2_kernel");
  return 0;
}

#define TS_GPU_PATCH_FAIL(...)                                 \
  do {                                                         \
    snprintf(err, TS_BACKEND_ERROR_SIZE, __VA_ARGS__);         \
    return TS_ERR_ARG;                                         \
  } while (0)

/* The plan (valid: lib/plan-check.c) fits the launches: its rows of DoFs are grid blocks
 * of the boundary stage, at most 2^31-1; 0 or TS_ERR_ARG with a message. */
static inline int ts_gpu_patch_check(const ts_patch_plan *pl, char *err) {
  if (pl->n[1] * pl->n[2] > 2147483647LL)
    TS_GPU_PATCH_FAIL("%s patch_smooth: %lld rows of DoFs exceed the 2^31-1 blocks of one launch",
                      TS_GPU_NAME, (long long)(pl->n[1] * pl->n[2]));
  return 0;
}

/* The cache key of the plan in c->scratch: precision, sizes, scales, then per direction
 * M_d, K_d, S_d, lambda_d.  Returns its length (0: out of host memory). */
static inline size_t ts_gpu_patch_key(ts_gpu_patch_cache *c, const ts_patch_plan *pl, int prec) {
  const size_t N = (size_t)pl->nbar, M = (size_t)pl->m;
  const size_t len = 7 + (size_t)pl->dim * (2 * N * N + M * M + M);
  if (c->scratch_len < len) {
    double *s = (double *)realloc(c->scratch, len * sizeof(double));
    if (!s) return 0;
    c->scratch = s;
    c->scratch_len = len;
  }
  double *k = c->scratch;
  k[0] = prec;
  k[1] = pl->dim;
  k[2] = (double)N;
  k[3] = (double)M;
  for (int d = 0; d < 3; ++d) k[4 + d] = d < pl->dim ? pl->scale[d] : 0.0;
  double *at = k + 7;
  for (int d = 0; d < pl->dim; ++d) {
    memcpy(at, pl->mass_1d[d], N * N * sizeof(double));
    memcpy(at + N * N, pl->stiffness_1d[d], N * N * sizeof(double));
    memcpy(at + 2 * N * N, pl->eigenvectors[d], M * M * sizeof(double));
    memcpy(at + 2 * N * N + M * M, pl->eigenvalues[d], M * sizeof(double));
    at += 2 * N * N + M * M + M;
  }
  return len;
}

/* A new cache entry for the plan: the coefficient image and the inverse eigenvalue sums in
 * precision R, uploaded to device buffers (once per distinct plan content). */
template <typename R>
static int ts_gpu_patch_upload(ts_gpu_patch_entry *e, const ts_patch_plan *pl, char *err) {
  const int dim = pl->dim, N = pl->nbar, M = pl->m, DS = 2 * N * N + M * M;
  const int m2 = dim == 3 ? M : 1;
  const size_t nc = (size_t)3 * DS, nl = (size_t)M * M * m2;
  R *h = (R *)calloc(nc + nl, sizeof(R));
  if (!h) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s patch_smooth: out of host memory", TS_GPU_NAME);
    return TS_ERR_MEMORY;
  }
  for (int d = 0; d < dim; ++d) {
    R *at = h + d * DS;
    for (int i = 0; i < N * N; ++i) {
      at[i] = (R)pl->mass_1d[d][i];
      at[N * N + i] = (R)pl->stiffness_1d[d][i];
    }
    for (int i = 0; i < M * M; ++i) at[2 * N * N + i] = (R)pl->eigenvectors[d][i];
  }
  R *L = h + nc; /* 1 / sum_d s_d lambda_{d,i_d} at i0 + M (i1 + M i2) */
  for (int i2 = 0; i2 < m2; ++i2)
    for (int i1 = 0; i1 < M; ++i1)
      for (int i0 = 0; i0 < M; ++i0) {
        double den = pl->scale[0] * pl->eigenvalues[0][i0] + pl->scale[1] * pl->eigenvalues[1][i1];
        if (dim == 3) den += pl->scale[2] * pl->eigenvalues[2][i2];
        L[(i2 * M + i1) * M + i0] = (R)(1.0 / den);
      }
  e->coef_bytes = nc * sizeof(R);
  gpuError_t ec = gpuMalloc(&e->coef, e->coef_bytes);
  if (ec == gpuSuccess) ec = gpuMalloc(&e->linv, nl * sizeof(R));
  if (ec == gpuSuccess) ec = gpuMemcpy(e->coef, h, e->coef_bytes, gpuMemcpyHostToDevice);
  if (ec == gpuSuccess) ec = gpuMemcpy(e->linv, L, nl * sizeof(R), gpuMemcpyHostToDevice);
  free(h);
  GPU_CHECK(err, "patch_smooth (upload of the plan's matrices)", ec);
  return 0;
}

/* The cache entry of the plan in precision R: found by content or created and uploaded. */
template <typename R>
static int ts_gpu_patch_entry_get(ts_gpu_patch_cache *c, const ts_patch_plan *pl,
                                  ts_gpu_patch_entry **out, char *err) {
  const int prec = sizeof(R) == sizeof(double) ? TS_DOUBLE : TS_SINGLE;
  const size_t len = ts_gpu_patch_key(c, pl, prec);
  if (!len) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s patch_smooth: out of host memory", TS_GPU_NAME);
    return TS_ERR_MEMORY;
  }
  const uint64_t hash = ts_gpu_patch_hash(c->scratch, len);
  ts_gpu_patch_entry *e = ts_gpu_patch_cache_find(c, c->scratch, len, hash);
  if (!e) {
    e = (ts_gpu_patch_entry *)calloc(1, sizeof *e);
    double *key = (double *)malloc(len * sizeof(double));
    if (!e || !key) {
      free(e);
      free(key);
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s patch_smooth: out of host memory", TS_GPU_NAME);
      return TS_ERR_MEMORY;
    }
    memcpy(key, c->scratch, len * sizeof(double));
    e->key = key;
    e->key_len = len;
    e->hash = hash;
    e->id = ++ts_gpu_patch_next_id;
    e->next = c->head;
    c->head = e; /* freed with the cache also when the upload fails */
    const int rc = ts_gpu_patch_upload<R>(e, pl, err);
    if (rc) {
      e->hash = ~hash; /* never found again */
      return rc;
    }
  }
  if (e->id != ts_gpu_patch_loaded_id) {
    GPU_CHECK(err, "patch_smooth (coefficients into constant memory)",
              TS_GPU_PATCH_TO_SYMBOL(ts_gpu_patch_coef, e->coef, e->coef_bytes));
    ts_gpu_patch_loaded_id = e->id;
  }
  *out = e;
  return 0;
}

#define TS_GPU_PATCH_CASE(DIM, K) \
  case DIM * 16 + K: return ts_gpu_patch_launch<R, DIM, K>(g, b, x, r, err);

/** One pass of plan->stage over the patches of plan->color (BOUNDARY: x = b on the
 *  Dirichlet DoFs) on device vectors of precision R; r: the residual vector (Separate). */
template <typename R>
int ts_gpu_patch_smooth(ts_gpu_patch_cache *cache, const ts_patch_plan *pl, const R *b, R *x,
                        R *r, char *err) {
  int rc = ts_gpu_patch_check(pl, err);
  if (rc) return rc;
  const int need_r = pl->stage == TS_PATCH_STAGE_RESIDUAL || pl->stage == TS_PATCH_STAGE_SOLVE;
  if (!b || !x || (need_r && !r))
    TS_GPU_PATCH_FAIL("%s patch_smooth: %s is NULL", TS_GPU_NAME,
                      !b ? "b" : !x ? "x" : "r (the residual vector)");
  if ((const void *)b == (const void *)x || (need_r && (r == x || (const R *)r == b)))
    TS_GPU_PATCH_FAIL("%s patch_smooth: b, x and r must be different vectors", TS_GPU_NAME);
  if (pl->stage == TS_PATCH_STAGE_BOUNDARY) {
    if (!pl->constrained) return 0;
    const int64_t rows = pl->n[1] * pl->n[2];
    ts_gpu_laplace_dirichlet_kernel<R><<<(unsigned)rows, 128>>>(pl->dim, pl->n[0], pl->n[1],
                                                                pl->n[2], b, x, 0);
    GPU_CHECK_LAUNCH(err, "ts_gpu_laplace_dirichlet_kernel (patch_smooth boundary)");
    return 0;
  }
  ts_gpu_patch_args<R> g;
  memset(&g, 0, sizeof g);
  g.npatch = 1;
  for (int d = 0; d < 3; ++d) {
    g.cells[d] = pl->cells[d];
    g.first[d] = d < pl->dim ? pl->first_vertex[d] : 1;
    g.count[d] = d < pl->dim ? pl->vertex_count[d] : 1;
    g.npatch *= g.count[d];
  }
  if (g.npatch == 0) return 0;
  ts_gpu_patch_entry *e;
  rc = ts_gpu_patch_entry_get<R>(cache, pl, &e, err);
  if (rc) return rc;
  g.n0 = pl->n[0];
  g.n01 = pl->n[0] * pl->n[1];
  g.stride = pl->vertex_stride;
  g.stage = pl->stage;
  g.constrained = pl->constrained != 0;
  g.s0 = (R)pl->scale[0];
  g.s1 = (R)pl->scale[1];
  g.ratio = (R)(pl->dim == 3 ? pl->scale[2] / pl->scale[1] : pl->scale[1] / pl->scale[0]);
  g.linv = (const R *)e->linv;
  switch (pl->dim * 16 + pl->dofs_per_cell) {
    TS_GPU_PATCH_CASE(2, 1) TS_GPU_PATCH_CASE(2, 2) TS_GPU_PATCH_CASE(2, 3)
    TS_GPU_PATCH_CASE(2, 4) TS_GPU_PATCH_CASE(2, 5) TS_GPU_PATCH_CASE(2, 6)
    TS_GPU_PATCH_CASE(2, 7) TS_GPU_PATCH_CASE(2, 8) TS_GPU_PATCH_CASE(2, 9)
    TS_GPU_PATCH_CASE(2, 10)
    TS_GPU_PATCH_CASE(3, 1) TS_GPU_PATCH_CASE(3, 2) TS_GPU_PATCH_CASE(3, 3)
    TS_GPU_PATCH_CASE(3, 4) TS_GPU_PATCH_CASE(3, 5) TS_GPU_PATCH_CASE(3, 6)
    TS_GPU_PATCH_CASE(3, 7) TS_GPU_PATCH_CASE(3, 8) TS_GPU_PATCH_CASE(3, 9)
    TS_GPU_PATCH_CASE(3, 10)
  }
  TS_GPU_PATCH_FAIL("%s patch_smooth: dimension %d, degree %d: no kernel (expected 2 or 3, "
                    "1..%d)", TS_GPU_NAME, pl->dim, pl->dofs_per_cell, TS_MAX_DEGREE);
}
#undef TS_GPU_PATCH_CASE

/* Instantiate the entry point for one precision (one translation unit each: the constant
 * memory image ts_gpu_patch_coef is per translation unit). */
#define TS_GPU_PATCH_INSTANTIATE(R)                                                          \
  template int ts_gpu_patch_smooth<R>(ts_gpu_patch_cache *, const ts_patch_plan *, const R *, \
                                      R *, R *, char *);

#endif
