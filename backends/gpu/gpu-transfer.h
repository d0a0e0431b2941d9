/* gpu-transfer.h -- the GPU multigrid transfer between two levels of a Q_k box hierarchy
 * (ts_transfer_plan), written once for CUDA and HIP: prolongation fine = P coarse and
 * restriction coarse = P^T fine (add: +=), 2D and 3D, templates over the precision R and
 * the degree K.  Included by backends/cuda/transfer-*.cu and backends/hip/transfer-*.cpp,
 * which instantiate it (TS_GPU_TRANSFER_INSTANTIATE).
 *
 * Two kernels.  A plan with m = fine_per_cell = 2 kc (the levels of one degree, and degree
 * levels Q_2kc -> Q_kc on one mesh) runs the tiled kernel below, templated on K = kc.  Any
 * other plan (degree levels such as Q7 -> Q3 -> Q1 on one mesh: small, latency-bound levels
 * below the coarse mesh level) runs the plain kernel at the end of the file, with kc and m
 * at run time: one thread per output entry.
 *
 * Math of the tiled kernel.  P = P_{dim-1} (x) ... (x) P_0 with the global 1D matrices P_d: fine point
 * f = 2K c + r of coarse cell c (r = 0..2K; the last cell owns r = 2K) has the value
 * sum_b I[r][b] u[K c + b], I = plan->interpolation_1d ((2K+1) x (K+1)).  A fine point on
 * a cell boundary is one row of P_d (I[0] and I[2K] are unit rows, so both cells give the
 * same value).  P^T = P_{dim-1}^T (x) ... (x) P_0^T: coarse node j gathers the fine points
 * of the cells c with K c <= j <= K c + K, each fine point counted once (cell c owns its
 * r = 0..2K-1, the last cell also r = 2K).
 *
 * Algorithm.  One kernel per call.  A thread block owns a tile of T0 x T1 coarse cells of
 * the plane directions (x, and y in 3D) and a chunk of consecutive cells along the last
 * direction ("march" direction, z in 3D, y in 2D), and walks the chunk's fine planes in
 * order.  Thread t owns the coarse column (j0, j1) of the tile's plane window and does the
 * march-direction contraction in registers: prolongation keeps the K+1 coarse values of the
 * current cell (u) and forms one fine plane X_r = sum_b I[r][b] u_b at a time; restriction
 * accumulates acc_b += I[r][b] X_r over the fine planes, the partial sum of the cell's right
 * vertex (acc_K) carried into the next cell.  The plane directions go through shared memory
 * (prolongation: y then x, the x expansion written straight to global memory; restriction:
 * x then y from a fine-plane window that reaches 2K-1 points into the left neighbour cells,
 * whose fine points also feed the tile's first vertex).  A restriction chunk that does not
 * start at the box boundary first walks the planes r = 1..2K-1 of the cell before it for
 * the carry.  The input of the next cell (prolongation) or fine plane (restriction) is
 * loaded into registers while the current one is processed.  So every coarse and every
 * fine entry is read once from global memory (up to the halos of the tiles, mostly served
 * by the L2 cache) and written once, with no atomics.
 * Dirichlet DoFs (plan->constrained) are read as zero and written as zero (left unchanged
 * when add = 1). */
#ifndef TESSERA_GPU_TRANSFER_H
#define TESSERA_GPU_TRANSFER_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"

/* The tile of a thread block: T0 x T1 coarse cells in the plane (fine extent 2K T0 about
 * 32 along x, 2K T1 about 16 along y, at least 2 cells each to keep the restriction's
 * halo small), C0 x C1 coarse plane nodes (one column per thread), F0 x F1 fine plane
 * nodes (prolongation) and the W0 x W1 fine window of the restriction. */
template <int DIM, int K>
struct ts_gpu_transfer_tile {
  static constexpr int T0 = 16 / K > 2 ? 16 / K : 2;
  static constexpr int T1 = DIM == 3 ? (8 / K > 2 ? 8 / K : 2) : 1;
  static constexpr int C0 = K * T0 + 1, C1 = DIM == 3 ? K * T1 + 1 : 1;
  static constexpr int F0 = 2 * K * T0 + 1, F1 = DIM == 3 ? 2 * K * T1 + 1 : 1;
  static constexpr int W0 = 2 * K * T0 + 2 * K, W1 = DIM == 3 ? 2 * K * T1 + 2 * K : 1;
  static constexpr int THREADS = (C0 * C1 + 31) / 32 * 32;
};

/* Cells of the march direction per thread block (H100, 3D, k = 2..7: restriction 5-10%
 * faster with 8 than with 4 or 16, whose chunks repeat fewer halo planes; prolongation,
 * without halo, 3-7% faster with 4, whose grids have more blocks). */
#define TS_GPU_TRANSFER_CHUNK_PROLONGATE 4
#define TS_GPU_TRANSFER_CHUNK_RESTRICT 8

/* The kernel parameters: the 1D matrix in precision R and the level sizes. */
template <typename R, int K>
struct ts_gpu_transfer_args {
  R I[(2 * K + 1) * (K + 1)];
  int64_t cells[3], nc[3], nf[3];
  int64_t chunk;
  int constrained, add;
};

/* Prolongation along one plane direction of a tile of T cells: fine point f (0..2KT) of the
 * tile from the coarse values v[j * stride], j = 0..KT, of its window.  sIt is I transposed
 * ((K+1) x (2K+1)): the threads of a warp read different rows r of I, which are then
 * consecutive words (the rows of I are K+1 words apart, 8-way bank conflicts for K = 7). */
template <typename R, int K, int T>
__device__ __forceinline__ R ts_gpu_prolongate_line(const R *sIt, const R *v, int stride, int f) {
  const int lt = min(f / (2 * K), T - 1), r = f - 2 * K * lt;
  const R *in = v + K * lt * stride;
  R s = 0;
#pragma unroll
  for (int b = 0; b <= K; ++b) s += sIt[b * (2 * K + 1) + r] * in[b * stride];
  return s;
}

/* Restriction along one plane direction, the part of one cell: sum over the fine points
 * r the cell owns of I[r][b] v[(2K lc + r - 1) stride], for window cell lc and its local
 * coarse node b (r = 0 only when lc > 0, r = 2K only when the cell is the last one). */
template <typename R, int K>
__device__ __forceinline__ R ts_gpu_restrict_cell(const R *sI, const R *v, int stride, int lc,
                                                  int b, bool last) {
  R s = 0;
#pragma unroll
  for (int r = 1; r < 2 * K; ++r) s += sI[r * (K + 1) + b] * v[(2 * K * lc + r - 1) * stride];
  if (lc > 0) s += sI[b] * v[(2 * K * lc - 1) * stride];
  if (last) s += sI[2 * K * (K + 1) + b] * v[(2 * K * lc + 2 * K - 1) * stride];
  return s;
}

/* Restriction along one plane direction of a tile of T cells starting at cell t0 (of
 * `cells`): coarse node j = K q + b (0..KT, global K t0 + j) from the fine window
 * v[w * stride], w = 0..2K(T+1)-1 at the global fine points 2K (t0-1) + 1 + w (window cell
 * lc = global cell - t0 + 1).  The node gathers from its right cell (t0 + q, local node b)
 * and, a vertex (b = 0), from its left cell (t0 + q - 1, local node K); each cell counts
 * the fine points it owns.  For j = KT the right cell is outside the window: a partial
 * value, used only when the left cell is the last one. */
template <typename R, int K, int T>
__device__ __forceinline__ R ts_gpu_restrict_line(const R *sI, const R *v, int stride, int j,
                                                  int64_t t0, int64_t cells) {
  const int q = j / K, b = j - K * q;
  R s = 0;
  if (q < T && t0 + q < cells) s = ts_gpu_restrict_cell<R, K>(sI, v, stride, q + 1, b, t0 + q == cells - 1);
  if (b == 0 && t0 + q >= 1)
    s += ts_gpu_restrict_cell<R, K>(sI, v, stride, q, K, t0 + q - 1 == cells - 1);
  return s;
}

/* The block's tile: first cells (t0, s0) of the plane directions and the march cells
 * [z0, z1).  Tiles along x vary fastest (neighbouring blocks share the halos in L2). */
template <int DIM, int K, typename A>
__device__ __forceinline__ void ts_gpu_transfer_block(const A &g, int64_t &t0, int64_t &s0,
                                                      int64_t &z0, int64_t &z1) {
  using S = ts_gpu_transfer_tile<DIM, K>;
  const int64_t tiles0 = (g.cells[0] + S::T0 - 1) / S::T0;
  const int64_t tiles1 = DIM == 3 ? (g.cells[1] + S::T1 - 1) / S::T1 : 1;
  int64_t b = blockIdx.x;
  t0 = (b % tiles0) * S::T0;
  b /= tiles0;
  s0 = (b % tiles1) * S::T1;
  b /= tiles1;
  z0 = b * g.chunk;
  z1 = min(z0 + g.chunk, g.cells[DIM - 1]);
}

/* fine = P coarse (add: fine += P coarse). */
template <typename R, int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_transfer_tile<DIM, K>::THREADS))
    ts_gpu_prolongate_kernel(const ts_gpu_transfer_args<R, K> g, const R *__restrict__ in,
                             R *__restrict__ out) {
  using S = ts_gpu_transfer_tile<DIM, K>;
  constexpr int N = K + 1, M = DIM - 1;
  __shared__ R sIt[N * (2 * K + 1)], sX[S::C0 * S::C1], sY[S::C0 * S::F1];
  const int t = threadIdx.x;
  for (int i = t; i < (2 * K + 1) * N; i += S::THREADS) sIt[i % N * (2 * K + 1) + i / N] = g.I[i];
  int64_t t0, s0, z0, z1;
  ts_gpu_transfer_block<DIM, K>(g, t0, s0, z0, z1);
  /* my coarse column (j0, j1): global plane node (c0, c1) */
  const int j0 = t % S::C0, j1 = t / S::C0;
  const bool col = t < S::C0 * S::C1;
  const int64_t c0 = K * t0 + j0, c1 = DIM == 3 ? K * s0 + j1 : 0;
  const bool in_box = col && c0 < g.nc[0] && (DIM == 2 || c1 < g.nc[1]);
  const bool dirichlet = g.constrained && (c0 == 0 || c0 == g.nc[0] - 1 ||
                                           (DIM == 3 && (c1 == 0 || c1 == g.nc[1] - 1)));
  const int64_t cplane = DIM == 3 ? g.nc[0] * g.nc[1] : g.nc[0];
  const int64_t fplane = DIM == 3 ? g.nf[0] * g.nf[1] : g.nf[0];
  const R *column = in + c0 + (DIM == 3 ? g.nc[0] * c1 : 0);
  /* coarse plane gz of my column, Dirichlet DoFs and points outside the box as zero */
  auto coarse = [&](int64_t gz) {
    const bool zero = !in_box || dirichlet || (g.constrained && (gz == 0 || gz == g.nc[M] - 1));
    return zero ? R(0) : column[gz * cplane];
  };
  /* u: the current cell's K+1 coarse planes; un: planes 1..K of the next cell, loaded one
   * cell ahead so that the loads overlap the current cell's work */
  R u[N], un[N];
#pragma unroll
  for (int b = 0; b <= K; ++b) un[b] = coarse(K * z0 + b);
  __syncthreads();
  for (int64_t c = z0; c < z1; ++c) {
#pragma unroll
    for (int b = 0; b <= K; ++b) u[b] = b == 0 && c > z0 ? u[K] : un[b];
    if (c + 1 < z1)
#pragma unroll
      for (int b = 1; b <= K; ++b) un[b] = coarse(K * (c + 1) + b);
    const int rend = c == g.cells[M] - 1 ? 2 * K : 2 * K - 1;
    for (int r = 0; r <= rend; ++r) {
      /* march direction in registers: X_r = sum_b I[r][b] u_b */
      if (col) {
        R x = 0;
#pragma unroll
        for (int b = 0; b <= K; ++b) x += sIt[b * (2 * K + 1) + r] * u[b];
        sX[t] = x;
      }
      __syncthreads();
      if (DIM == 3) { /* y: sY[f1][i0] = (P_1 X)[f1][i0] */
        for (int i = t; i < S::C0 * S::F1; i += S::THREADS)
          sY[i] = ts_gpu_prolongate_line<R, K, S::T1>(sIt, sX + i % S::C0, S::C0, i / S::C0);
        __syncthreads();
      }
      const R *src = DIM == 3 ? sY : sX;
      const int64_t gz = 2 * K * c + r;
      const bool zb = g.constrained && (gz == 0 || gz == g.nf[M] - 1);
      /* x, written to the fine points the tile owns */
      for (int i = t; i < S::F0 * S::F1; i += S::THREADS) {
        const int f0 = i % S::F0, f1 = i / S::F0;
        const int64_t gx = 2 * K * t0 + f0, gy = DIM == 3 ? 2 * K * s0 + f1 : 0;
        const bool owned = gx < g.nf[0] && (f0 < 2 * K * S::T0 || gx == g.nf[0] - 1) &&
                           (DIM == 2 || (gy < g.nf[1] && (f1 < 2 * K * S::T1 || gy == g.nf[1] - 1)));
        if (!owned) continue;
        const R v = ts_gpu_prolongate_line<R, K, S::T0>(sIt, src + f1 * S::C0, 1, f0);
        const int64_t idx = gx + g.nf[0] * gy + fplane * gz;
        const bool bnd = zb || (g.constrained && (gx == 0 || gx == g.nf[0] - 1 ||
                                                  (DIM == 3 && (gy == 0 || gy == g.nf[1] - 1))));
        if (bnd) {
          if (!g.add) out[idx] = 0;
        } else {
          out[idx] = g.add ? out[idx] + v : v;
        }
      }
      if (DIM == 2) __syncthreads(); /* sX is read above and written next */
    }
  }
}

/* coarse = P^T fine (add: coarse += P^T fine). */
template <typename R, int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_transfer_tile<DIM, K>::THREADS))
    ts_gpu_restrict_kernel(const ts_gpu_transfer_args<R, K> g, const R *__restrict__ in,
                           R *__restrict__ out) {
  using S = ts_gpu_transfer_tile<DIM, K>;
  constexpr int N = K + 1, M = DIM - 1;
  __shared__ R sI[(2 * K + 1) * N], sF[S::W0 * S::W1], sXr[S::C0 * S::W1];
  const int t = threadIdx.x;
  for (int i = t; i < (2 * K + 1) * N; i += S::THREADS) sI[i] = g.I[i];
  int64_t t0, s0, z0, z1;
  ts_gpu_transfer_block<DIM, K>(g, t0, s0, z0, z1);
  /* my coarse column (j0, j1): global plane node (c0, c1), written if the tile owns it */
  const int j0 = t % S::C0, j1 = t / S::C0;
  const bool col = t < S::C0 * S::C1;
  const int64_t c0 = K * t0 + j0, c1 = DIM == 3 ? K * s0 + j1 : 0;
  const bool owned = col && c0 < g.nc[0] && (j0 < K * S::T0 || c0 == g.nc[0] - 1) &&
                     (DIM == 2 || (c1 < g.nc[1] && (j1 < K * S::T1 || c1 == g.nc[1] - 1)));
  const bool dirichlet = g.constrained && (c0 == 0 || c0 == g.nc[0] - 1 ||
                                           (DIM == 3 && (c1 == 0 || c1 == g.nc[1] - 1)));
  const int64_t cplane = DIM == 3 ? g.nc[0] * g.nc[1] : g.nc[0];
  const int64_t fplane = DIM == 3 ? g.nf[0] * g.nf[1] : g.nf[0];
  R *column = out + c0 + (DIM == 3 ? g.nc[0] * c1 : 0);
  /* the fine plane gz's window, Dirichlet DoFs and points outside the box as zero, into
   * registers (pre[q] for window point t + q THREADS): loaded one plane ahead so that the
   * loads overlap the current plane's work.  The in-plane offsets from the window's first
   * point (gx0, gy0) and which points are read (bit q of `reads`) are the same on every
   * plane. */
  constexpr int LOADS = (S::W0 * S::W1 + S::THREADS - 1) / S::THREADS;
  static_assert(LOADS <= 32, "one bit per load in `reads`");
  const int64_t gx0 = 2 * K * (t0 - 1) + 1, gy0 = DIM == 3 ? 2 * K * (s0 - 1) + 1 : 0;
  int off[LOADS];
  unsigned reads = 0;
#pragma unroll
  for (int q = 0; q < LOADS; ++q) {
    const int i = t + q * S::THREADS, w0 = i % S::W0, w1 = i / S::W0;
    const int64_t gx = gx0 + w0, gy = gy0 + w1;
    const bool inside = i < S::W0 * S::W1 && gx >= 0 && gx < g.nf[0] &&
                        (DIM == 2 || (gy >= 0 && gy < g.nf[1]));
    const bool bnd = g.constrained && (gx == 0 || gx == g.nf[0] - 1 ||
                                       (DIM == 3 && (gy == 0 || gy == g.nf[1] - 1)));
    off[q] = w0 + (int)g.nf[0] * w1;
    if (inside && !bnd) reads |= 1u << q;
  }
  R pre[LOADS];
  auto fetch = [&](int64_t gz) {
    const bool zb = g.constrained && (gz == 0 || gz == g.nf[M] - 1);
    const int64_t plane = gx0 + g.nf[0] * gy0 + fplane * gz;
#pragma unroll
    for (int q = 0; q < LOADS; ++q) pre[q] = !zb && (reads >> q & 1u) ? in[plane + off[q]] : R(0);
  };
  R acc[N];
#pragma unroll
  for (int b = 0; b <= K; ++b) acc[b] = 0;
  /* the planes walked: r = 1..2K-1 of the cell before the chunk (only its contribution to
   * the chunk's first vertex, the carry), then r = 0..2K-1 of each cell of the chunk and
   * r = 2K of the last cell of the box */
  const int64_t last = g.cells[M] - 1;
  int64_t c = z0 > 0 ? z0 - 1 : z0;
  int r = z0 > 0 ? 1 : 0;
  fetch(2 * K * c + r);
  __syncthreads();
  while (c < z1) {
    const int rend = c == last ? 2 * K : 2 * K - 1;
    const int64_t cn = r < rend ? c : c + 1;
    const int rn = r < rend ? r + 1 : 0;
#pragma unroll
    for (int q = 0; q < LOADS; ++q)
      if (t + q * S::THREADS < S::W0 * S::W1) sF[t + q * S::THREADS] = pre[q];
    __syncthreads();
    if (cn < z1) fetch(2 * K * cn + rn);
    /* x: sXr[w1][j] = (P_0^T F)[w1][j] */
    for (int i = t; i < S::C0 * S::W1; i += S::THREADS)
      sXr[i] = ts_gpu_restrict_line<R, K, S::T0>(sI, sF + (i / S::C0) * S::W0, 1, i % S::C0, t0,
                                                 g.cells[0]);
    __syncthreads();
    /* y, then the march direction in registers: acc_b += I[r][b] X_r */
    if (col) {
      const R x = DIM == 3 ? ts_gpu_restrict_line<R, K, S::T1>(sI, sXr + j0, S::C0, j1, s0,
                                                               g.cells[1])
                           : sXr[j0];
#pragma unroll
      for (int b = 0; b <= K; ++b) acc[b] += sI[r * N + b] * x;
    }
    if (cn != c) { /* cell c done */
      if (c >= z0 && owned) { /* coarse planes K c .. K c + K-1 complete, K c + K if last */
#pragma unroll
        for (int b = 0; b <= K; ++b) {
          const int64_t gz = K * c + b;
          if (b == K && c != last) break;
          const int64_t idx = gz * cplane;
          if (dirichlet || (g.constrained && (gz == 0 || gz == g.nc[M] - 1))) {
            if (!g.add) column[idx] = 0;
          } else {
            column[idx] = g.add ? column[idx] + acc[b] : acc[b];
          }
        }
      }
      /* carry the partial sum of the right vertex into the next cell */
      acc[0] = acc[K];
#pragma unroll
      for (int b = 1; b <= K; ++b) acc[b] = 0;
    }
    c = cn;
    r = rn;
  }
}

/* Launch one kernel for degree K and dimension DIM. */
template <typename R, int DIM, int K>
static int ts_gpu_transfer_launch(const ts_transfer_plan *pl, int restrict_, const R *in, R *out,
                                  int add, char *err) {
  using S = ts_gpu_transfer_tile<DIM, K>;
  ts_gpu_transfer_args<R, K> g;
  for (int i = 0; i < (2 * K + 1) * (K + 1); ++i) g.I[i] = (R)pl->interpolation_1d[i];
  for (int d = 0; d < 3; ++d) {
    g.cells[d] = d < DIM ? pl->coarse_cells[d] : 1;
    g.nc[d] = d < DIM ? pl->coarse_n[d] : 1;
    g.nf[d] = d < DIM ? pl->fine_n[d] : 1;
  }
  g.chunk = restrict_ ? TS_GPU_TRANSFER_CHUNK_RESTRICT : TS_GPU_TRANSFER_CHUNK_PROLONGATE;
  g.constrained = pl->constrained != 0;
  g.add = add != 0;
  const int64_t blocks = (g.cells[0] + S::T0 - 1) / S::T0 *
                         (DIM == 3 ? (g.cells[1] + S::T1 - 1) / S::T1 : 1) *
                         ((g.cells[DIM - 1] + g.chunk - 1) / g.chunk);
  if (blocks > 2147483647LL || g.nf[0] * S::W1 > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s transfer: %lld thread blocks or %lld fine DoFs along x exceed the 2^31-1 blocks "
             "of one launch or the 32-bit window offsets", TS_GPU_NAME, (long long)blocks,
             (long long)g.nf[0]);
    return TS_ERR_ARG;
  }
  if (restrict_) {
    ts_gpu_restrict_kernel<R, DIM, K><<<(unsigned)blocks, S::THREADS>>>(g, in, out);
    GPU_CHECK_LAUNCH(err, "ts_gpu_restrict_kernel");
  } else {
    ts_gpu_prolongate_kernel<R, DIM, K><<<(unsigned)blocks, S::THREADS>>>(g, in, out);
    GPU_CHECK_LAUNCH(err, "ts_gpu_prolongate_kernel");
  }
  return 0;
}

template <typename R, int K>
static int ts_gpu_transfer_degree(const ts_transfer_plan *pl, int restrict_, const R *in, R *out,
                                  int add, char *err) {
  if (pl->dim == 3) return ts_gpu_transfer_launch<R, 3, K>(pl, restrict_, in, out, add, err);
  return ts_gpu_transfer_launch<R, 2, K>(pl, restrict_, in, out, add, err);
}

/* ---------------------------------------------------------------- any kc and m */

/* The kernel parameters of the plain kernel: the (m+1) x (kc+1) matrix in precision R,
 * kc, m and the level sizes. */
template <typename R>
struct ts_gpu_transfer_any_args {
  R I[(2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  int kc, m;
  int64_t cells[3], nc[3], nf[3];
  int constrained, add;
};

#define TS_GPU_TRANSFER_ANY_THREADS 256

/* Entry (f, j) of the global 1D prolongation of one direction: fine point f belongs to cell
 * c = min(f / m, cells - 1) as its row r = f - m c; coarse node j is its column b = j - kc c
 * if 0 <= b <= kc, else the entry is zero. */
template <typename R>
__device__ __forceinline__ R ts_gpu_transfer_weight(const R *sI, int kc, int m, int64_t cells,
                                                    int64_t f, int64_t j) {
  const int64_t c = min(f / m, cells - 1), b = j - kc * c;
  return b >= 0 && b <= kc ? sI[(f - m * c) * (kc + 1) + b] : R(0);
}

/* (i0, i1, i2) of linear index i in an array of n[] entries per direction; sets *boundary
 * when an index is the first or the last of its direction (d < DIM) */
template <int DIM>
__device__ __forceinline__ void ts_gpu_transfer_split(int64_t i, const int64_t *n, int64_t *x,
                                                      bool *boundary) {
  *boundary = false;
  for (int d = 0; d < 3; ++d) {
    x[d] = d < DIM ? i % n[d] : 0;
    if (d < DIM) {
      i /= n[d];
      *boundary = *boundary || x[d] == 0 || x[d] == n[d] - 1;
    }
  }
}

/* fine = P coarse (add: +=), one thread per fine entry: the (kc+1)^DIM coarse nodes of the
 * owner cell, Dirichlet entries read and written as zero. */
template <typename R, int DIM>
__global__ void __launch_bounds__(TS_GPU_TRANSFER_ANY_THREADS)
    ts_gpu_prolongate_any_kernel(const ts_gpu_transfer_any_args<R> g, const R *__restrict__ in,
                                 R *__restrict__ out) {
  __shared__ R sI[(2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  const int kc = g.kc, m = g.m, N = kc + 1;
  for (int i = threadIdx.x; i < (m + 1) * N; i += blockDim.x) sI[i] = g.I[i];
  __syncthreads();
  const int64_t total = g.nf[0] * g.nf[1] * g.nf[2];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t f[3], c[3];
    bool fine_boundary;
    ts_gpu_transfer_split<DIM>(i, g.nf, f, &fine_boundary);
    if (g.constrained && fine_boundary) {
      if (!g.add) out[i] = 0;
      continue;
    }
    for (int d = 0; d < 3; ++d) c[d] = d < DIM ? min(f[d] / m, g.cells[d] - 1) : 0;
    R s = 0;
    for (int b2 = 0; b2 < (DIM == 3 ? N : 1); ++b2)
      for (int b1 = 0; b1 < N; ++b1)
        for (int b0 = 0; b0 < N; ++b0) {
          const int64_t j[3] = {kc * c[0] + b0, kc * c[1] + b1, DIM == 3 ? kc * c[2] + b2 : 0};
          bool zero = false;
          R w = 1;
          for (int d = 0; d < DIM; ++d) {
            zero = zero || (g.constrained && (j[d] == 0 || j[d] == g.nc[d] - 1));
            w *= ts_gpu_transfer_weight(sI, kc, m, g.cells[d], f[d], j[d]);
          }
          if (!zero) s += w * in[j[0] + g.nc[0] * (j[1] + g.nc[1] * j[2])];
        }
    out[i] = g.add ? out[i] + s : s;
  }
}

/* coarse = P^T fine (add: +=), one thread per coarse entry: the fine points of the cells
 * around the coarse node (each fine point counted once, by its owner cell), Dirichlet
 * entries read and written as zero. */
template <typename R, int DIM>
__global__ void __launch_bounds__(TS_GPU_TRANSFER_ANY_THREADS)
    ts_gpu_restrict_any_kernel(const ts_gpu_transfer_any_args<R> g, const R *__restrict__ in,
                               R *__restrict__ out) {
  __shared__ R sI[(2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  const int kc = g.kc, m = g.m;
  for (int i = threadIdx.x; i < (m + 1) * (kc + 1); i += blockDim.x) sI[i] = g.I[i];
  __syncthreads();
  const int64_t total = g.nc[0] * g.nc[1] * g.nc[2];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t j[3], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    bool coarse_boundary;
    ts_gpu_transfer_split<DIM>(i, g.nc, j, &coarse_boundary);
    if (g.constrained && coarse_boundary) {
      if (!g.add) out[i] = 0;
      continue;
    }
    /* the fine points of the cells that hold node j: cells (j-1)/kc .. j/kc */
    for (int d = 0; d < DIM; ++d) {
      lo[d] = m * (j[d] == 0 ? 0 : (j[d] - 1) / kc);
      hi[d] = m * (min(j[d] / kc, g.cells[d] - 1) + 1);
    }
    R s = 0;
    for (int64_t f2 = lo[2]; f2 <= hi[2]; ++f2)
      for (int64_t f1 = lo[1]; f1 <= hi[1]; ++f1)
        for (int64_t f0 = lo[0]; f0 <= hi[0]; ++f0) {
          const int64_t f[3] = {f0, f1, f2};
          bool zero = false;
          R w = 1;
          for (int d = 0; d < DIM; ++d) {
            zero = zero || (g.constrained && (f[d] == 0 || f[d] == g.nf[d] - 1));
            w *= ts_gpu_transfer_weight(sI, kc, m, g.cells[d], f[d], j[d]);
          }
          if (!zero && w != R(0)) s += w * in[f0 + g.nf[0] * (f1 + g.nf[1] * f2)];
        }
    out[i] = g.add ? out[i] + s : s;
  }
}

/* Launch the plain kernel for dimension DIM. */
template <typename R, int DIM>
static int ts_gpu_transfer_any_launch(const ts_transfer_plan *pl, int restrict_, const R *in,
                                      R *out, int add, char *err) {
  ts_gpu_transfer_any_args<R> g;
  g.kc = pl->coarse_degree;
  g.m = pl->fine_per_cell;
  for (int i = 0; i < (g.m + 1) * (g.kc + 1); ++i) g.I[i] = (R)pl->interpolation_1d[i];
  for (int d = 0; d < 3; ++d) {
    g.cells[d] = d < DIM ? pl->coarse_cells[d] : 1;
    g.nc[d] = d < DIM ? pl->coarse_n[d] : 1;
    g.nf[d] = d < DIM ? pl->fine_n[d] : 1;
  }
  g.constrained = pl->constrained != 0;
  g.add = add != 0;
  const int64_t n = restrict_ ? g.nc[0] * g.nc[1] * g.nc[2] : g.nf[0] * g.nf[1] * g.nf[2];
  const int64_t blocks = (n + TS_GPU_TRANSFER_ANY_THREADS - 1) / TS_GPU_TRANSFER_ANY_THREADS;
  const unsigned grid = (unsigned)(blocks < 65535 ? blocks : 65535); /* grid-stride loops */
  if (restrict_) {
    ts_gpu_restrict_any_kernel<R, DIM><<<grid, TS_GPU_TRANSFER_ANY_THREADS>>>(g, in, out);
    GPU_CHECK_LAUNCH(err, "ts_gpu_restrict_any_kernel");
  } else {
    ts_gpu_prolongate_any_kernel<R, DIM><<<grid, TS_GPU_TRANSFER_ANY_THREADS>>>(g, in, out);
    GPU_CHECK_LAUNCH(err, "ts_gpu_prolongate_any_kernel");
  }
  return 0;
}

/** restrict_ = 0: out (fine) = P in (coarse); 1: out (coarse) = P^T in (fine); add = 1: +=.
 *  Device vectors of precision R. */
template <typename R>
int ts_gpu_transfer(const ts_transfer_plan *pl, int restrict_, const R *in, R *out, int add,
                    char *err) {
  if ((const void *)in == (const void *)out) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s transfer: input and output are the same vector (they must be distinct)",
             TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  if (pl->fine_per_cell != 2 * pl->coarse_degree) {
    if (pl->dim == 3) return ts_gpu_transfer_any_launch<R, 3>(pl, restrict_, in, out, add, err);
    return ts_gpu_transfer_any_launch<R, 2>(pl, restrict_, in, out, add, err);
  }
  switch (pl->coarse_degree) {
    case 1: return ts_gpu_transfer_degree<R, 1>(pl, restrict_, in, out, add, err);
    case 2: return ts_gpu_transfer_degree<R, 2>(pl, restrict_, in, out, add, err);
    case 3: return ts_gpu_transfer_degree<R, 3>(pl, restrict_, in, out, add, err);
    case 4: return ts_gpu_transfer_degree<R, 4>(pl, restrict_, in, out, add, err);
    case 5: return ts_gpu_transfer_degree<R, 5>(pl, restrict_, in, out, add, err);
    case 6: return ts_gpu_transfer_degree<R, 6>(pl, restrict_, in, out, add, err);
    case 7: return ts_gpu_transfer_degree<R, 7>(pl, restrict_, in, out, add, err);
    case 8: return ts_gpu_transfer_degree<R, 8>(pl, restrict_, in, out, add, err);
    case 9: return ts_gpu_transfer_degree<R, 9>(pl, restrict_, in, out, add, err);
    default: return ts_gpu_transfer_degree<R, 10>(pl, restrict_, in, out, add, err);
  }
}

/* Instantiate the entry point for one precision (one translation unit each). */
#define TS_GPU_TRANSFER_INSTANTIATE(R) \
  template int ts_gpu_transfer<R>(const ts_transfer_plan *, int, const R *, R *, int, char *);

#endif
