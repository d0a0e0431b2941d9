/* gpu-mass-inverse.h -- the GPU L2 (DGQ_k) mass and its inverse (ts_l2_mass_plan; paper 003,
 * sections 2.5 and 3.1), written once for CUDA and HIP as templates over the dimension and
 * the degree K, in double precision.  Included by backends/cuda/mass-inverse-double.cu (and
 * hip/mass-inverse-double.cpp), which instantiate it (TS_GPU_MASS_INVERSE_INSTANTIATE).
 *
 * W is block diagonal, so every cell is solved on its own and nothing is reduced across cells
 * (no global reduction).  A thread block holds several whole cells (about 128 threads),
 * NQ^(DIM-1) threads per cell (N = K+1 values and NQ = K+2 points per direction).  Every 1D
 * contraction is done by threads that each hold a whole line of the direction in registers
 * ("line" stages, ts_gpu_l2_line): a thread reads its line from shared memory once, and the
 * 1D matrix entries, the same for every thread at every step, come from the launch's
 * parameter space (constant-bank operands of the multiply-adds, no shared-memory reads).
 * Between stages the values are handed over through the cell's two shared buffers.
 *   CG (ts_gpu_l2_cg_kernel): the change of basis b = C^T x, then the Jacobi-preconditioned
 *   CG on S^T D S z = b (the local mass by sum factorization, the two dot products of an
 *   iteration as sums over the cell's threads in shared memory), each cell with its own
 *   stopping test (the block iterates while one of its cells does), then y = C z.  The
 *   iteration count goes to iterations[cell].
 *   Apply (ts_gpu_l2_mass_kernel): y = U^T D U x with the user's table U.
 *   Dense (ts_gpu_l2_dense_kernel): y_K = M_K x_K, thread i of a cell forming row i; the
 *   explicit inverse is symmetric, so it reads column i (M_K[j][i], j = 0..n-1): consecutive
 *   threads read consecutive words.
 * Measured against the previous kernel (each thread one row of the 1D matrix, its entries and
 * the lines in shared memory): bench/results/2026-11-27-h100-mass-inverse-lines.md.
 * Cholesky's triangular solves are sequential per cell and are left to omp (the library
 * documents the method as omp only); this backend refuses them. */
#ifndef TESSERA_GPU_MASS_INVERSE_H
#define TESSERA_GPU_MASS_INVERSE_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

#ifndef __grid_constant__
#define __grid_constant__
#endif

/* Several cells per thread block, P = NQ^(DIM-1) threads per cell; thread t of a cell (0..P-1)
 * takes a different line at each stage.  Between stages, shared values are laid out with odd
 * strides SN (for N) and S (for NQ), so that the threads of a warp reading or writing 8-byte
 * words at those strides hit distinct banks.  The CG's vectors live in the DoF column layout:
 * thread t = a0 + N a1 < N^(DIM-1) holds x[a0 + N (a1 + N a2)], a2 = 0..N-1 (2D: t = a0,
 * x[a0 + N a1], a1 = 0..N-1). */
template <int DIM, int K>
struct ts_gpu_l2_shape {
  static constexpr int N = K + 1, NQ = K + 2;
  static constexpr int SN = N | 1, S = NQ | 1;                   /* padded strides */
  static constexpr int NC = DIM == 3 ? N * N * N : N * N;       /* values per cell */
  static constexpr int NP = DIM == 3 ? NQ * NQ * NQ : NQ * NQ;  /* points per cell */
  static constexpr int P = DIM == 3 ? NQ * NQ : NQ;             /* threads per cell */
  static constexpr int COLUMNS = DIM == 3 ? N * N : N;          /* threads holding DoFs */
  static constexpr int CELLS = P >= 128 ? 1 : 128 / P;          /* cells per block */
  static constexpr int THREADS = CELLS * P;
  static constexpr int BUF = DIM == 3 ? S * N * NQ : S * NQ;    /* a shared buffer per cell */
  /* blocks per multiprocessor the registers must allow: the compiler keeps the NQ x N table
   * in registers across the CG loop; at K = 8 (3D: 254 registers) 2 blocks beat 3 and 4,
   * which spill (16.0, 14.9 and 10.9 GDoF/s; 2026-11-27-h100-mass-inverse-lines.md) */
  static constexpr int MIN_BLOCKS = K >= 8 ? 2 : 4;
};

/* The plan's 1D tables and sizes, passed by value (the launch's parameter space). */
template <int K>
struct ts_gpu_l2_args {
  double B[(K + 2) * (K + 1)];   /* CG: the solve basis S; apply: the user's U (NQ x N) */
  double C[(K + 1) * (K + 1)];   /* CG: the change of basis (N x N) */
  int64_t n_cells, cells0, cells1, n0, n1;
  double tol2;                   /* CG: tolerance^2 */
  int max_iterations;            /* CG */
};

/* A line in registers: out[o] = sum_i M(o, i) in[i], M(o, i) = T ? A[i OUT + o] : A[o IN + i].
 * A is a table of the launch's parameters: the indices are the same for all threads and
 * known at compile time, so the entries are constant-bank operands. */
template <int IN, int OUT, bool T>
__device__ __forceinline__ void ts_gpu_l2_line(const double *A, const double (&in)[IN],
                                               double (&out)[OUT]) {
#pragma unroll
  for (int o = 0; o < OUT; ++o) {
    double s = 0.0;
#pragma unroll
    for (int i = 0; i < IN; ++i) s += (T ? A[i * OUT + o] : A[o * IN + i]) * in[i];
    out[o] = s;
  }
}

/* v[i] = buf[first + stride i], i < E. */
template <int E>
__device__ __forceinline__ void ts_gpu_l2_read(const double *buf, int first, int stride,
                                               double (&v)[E]) {
#pragma unroll
  for (int i = 0; i < E; ++i) v[i] = buf[first + stride * i];
}

/* buf[first + stride i] = v[i], i < E. */
template <int E>
__device__ __forceinline__ void ts_gpu_l2_write(const double (&v)[E], double *buf, int first,
                                                int stride) {
#pragma unroll
  for (int i = 0; i < E; ++i) buf[first + stride * i] = v[i];
}

/* out = (x)_d M in for N x N tables (the change of basis), from the column layout back to
 * it: the last direction in registers, then direction 0, then 1, then the columns read back;
 * three barriers.  The buffers may be written again after the caller's next barrier. */
template <int DIM, int K, bool T>
__device__ __forceinline__ void ts_gpu_l2_change(const double *C, const double (&in)[K + 1],
                                                 double (&out)[K + 1], double *sh1, double *sh2,
                                                 int t) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = Sh::N, SN = Sh::SN;
  double u[N], w[N];
  if (DIM == 3) {
    const int a = t % N, b = t / N; /* every stage: line (a, b) of the N x N lines */
    if (t < N * N) {
      ts_gpu_l2_line<N, N, T>(C, in, w);
      ts_gpu_l2_write<N>(w, sh1, a + SN * b, SN * N); /* (a0, a1, b2) */
    }
    __syncthreads();
    if (t < N * N) { /* the lines along direction 0: (a1, b2) = (a, b) */
      ts_gpu_l2_read<N>(sh1, SN * t, 1, u);
      ts_gpu_l2_line<N, N, T>(C, u, w);
      ts_gpu_l2_write<N>(w, sh2, SN * t, 1); /* (b0, a1, b2) */
    }
    __syncthreads();
    if (t < N * N) { /* along direction 1: (b0, b2) = (a, b) */
      ts_gpu_l2_read<N>(sh2, a + SN * N * b, SN, u);
      ts_gpu_l2_line<N, N, T>(C, u, w);
      ts_gpu_l2_write<N>(w, sh1, a + SN * N * b, SN); /* (b0, b1, b2) */
    }
    __syncthreads();
    if (t < N * N) ts_gpu_l2_read<N>(sh1, a + SN * b, SN * N, out); /* the column (b0, b1) */
  } else {
    if (t < N) {
      ts_gpu_l2_line<N, N, T>(C, in, w);
      ts_gpu_l2_write<N>(w, sh1, t, SN); /* (a0, b1) */
    }
    __syncthreads();
    if (t < N) { /* the line along direction 0 at b1 = t */
      ts_gpu_l2_read<N>(sh1, SN * t, 1, u);
      ts_gpu_l2_line<N, N, T>(C, u, w);
      ts_gpu_l2_write<N>(w, sh2, t, SN); /* (b0, b1) at b1 + SN b0 */
    }
    __syncthreads();
    if (t < N) ts_gpu_l2_read<N>(sh2, SN * t, 1, out); /* the column b0 = t */
  }
  if (t >= Sh::COLUMNS)
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = 0.0;
}

/* q = B^T D B p from the column layout back to it, B = (x)_d the NQ x N table.  3D: the last
 * direction in registers; direction 0 by the lines (a1, q2); direction 1 by the lines (q0, q2),
 * which multiply by the point weights D (the thread's line, D[q1]) and go back along direction
 * 1 at once; direction 0 back by the lines (a1, q2); the last direction back by the columns.
 * Four barriers (2D: two).  Before the next call writes a buffer, the reads of it have passed
 * one of the call's barriers, so consecutive calls need none in between. */
template <int DIM, int K>
__device__ __forceinline__ void ts_gpu_l2_local_mass(const double *B, const double (&D)[K + 2],
                                                     const double (&p)[K + 1], double (&q)[K + 1],
                                                     double *sh1, double *sh2, int t) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = Sh::N, NQ = Sh::NQ, SN = Sh::SN, S = Sh::S;
  double u[NQ], w[NQ], v[N];
  if (DIM == 3) {
    if (t < N * N) { /* the column (a0, a1) = (t % N, t / N) to the points q2 */
      ts_gpu_l2_line<N, NQ, false>(B, p, w);
      ts_gpu_l2_write<NQ>(w, sh1, t % N + SN * (t / N), SN * N); /* (a0, a1, q2) */
    }
    __syncthreads();
    if (t < N * NQ) { /* the line along direction 0 at (a1, q2) = (t % N, t / N) */
      ts_gpu_l2_read<N>(sh1, SN * t, 1, v);
      ts_gpu_l2_line<N, NQ, false>(B, v, w);
      ts_gpu_l2_write<NQ>(w, sh2, S * t, 1); /* (q0, a1, q2) at q0 + S (a1 + N q2) */
    }
    __syncthreads();
    { /* the line along direction 1 at (q0, q2) = (t % NQ, t / NQ), every thread */
      const int first = t % NQ + S * N * (t / NQ);
      ts_gpu_l2_read<N>(sh2, first, S, v);
      ts_gpu_l2_line<N, NQ, false>(B, v, w);
#pragma unroll
      for (int i = 0; i < NQ; ++i) w[i] *= D[i];
      ts_gpu_l2_line<NQ, N, true>(B, w, v);
      ts_gpu_l2_write<N>(v, sh1, first, S); /* (q0, a1, q2) */
    }
    __syncthreads();
    if (t < N * NQ) { /* back along direction 0 at (a1, q2) */
      ts_gpu_l2_read<NQ>(sh1, S * t, 1, u);
      ts_gpu_l2_line<NQ, N, true>(B, u, v);
      ts_gpu_l2_write<N>(v, sh2, SN * t, 1); /* (a0, a1, q2) at a0 + SN (a1 + N q2) */
    }
    __syncthreads();
    if (t < N * N) { /* the column (a0, a1) back from the points q2 */
      ts_gpu_l2_read<NQ>(sh2, t % N + SN * (t / N), SN * N, u);
      ts_gpu_l2_line<NQ, N, true>(B, u, q);
    }
  } else {
    if (t < N) { /* the column a0 = t to the points q1 */
      ts_gpu_l2_line<N, NQ, false>(B, p, w);
      ts_gpu_l2_write<NQ>(w, sh1, t, SN); /* (a0, q1) at a0 + SN q1 */
    }
    __syncthreads();
    { /* the line along direction 0 at q1 = t: to the points, D, back */
      ts_gpu_l2_read<N>(sh1, SN * t, 1, v);
      ts_gpu_l2_line<N, NQ, false>(B, v, w);
#pragma unroll
      for (int i = 0; i < NQ; ++i) w[i] *= D[i];
      ts_gpu_l2_line<NQ, N, true>(B, w, v);
      ts_gpu_l2_write<N>(v, sh2, t, S); /* (a0, q1) at q1 + S a0 */
    }
    __syncthreads();
    if (t < N) { /* the column a0 = t back from the points q1 */
      ts_gpu_l2_read<NQ>(sh2, S * t, 1, u);
      ts_gpu_l2_line<NQ, N, true>(B, u, q);
    }
  }
  if (t >= Sh::COLUMNS)
#pragma unroll
    for (int i = 0; i < N; ++i) q[i] = 0.0;
}

/* The sum of v over the threads of the calling thread's cell, of which only those holding
 * DoF columns (t < COLUMNS) contribute, returned to each of them, in one order (the result
 * does not vary by run).  red (a value per thread of the block) and rows (N per cell)
 * alternate between consecutive sums: the barriers of the sum in between keep the readers of
 * one ahead of its next writers.  3D: the first N threads of the cell add N values each, then
 * every thread the N row sums (k = 1: the four values at once); 2D: the N values. */
template <int DIM, int K>
__device__ __forceinline__ double ts_gpu_l2_cell_sum(double v, double *red, double *rows,
                                                     int local, int t) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = Sh::N;
  const int cell_first = local * Sh::P;
  red[threadIdx.x] = v;
  __syncthreads();
  double s = 0.0;
  if (DIM == 2 || N <= 2) { /* at most four values: no second stage */
#pragma unroll
    for (int i = 0; i < Sh::COLUMNS; ++i) s += red[cell_first + i];
    return s;
  }
  if (t < N) {
#pragma unroll
    for (int i = 0; i < N; ++i) s += red[cell_first + N * t + i];
    rows[local * N + t] = s;
  }
  __syncthreads();
  s = 0.0;
#pragma unroll
  for (int j = 0; j < N; ++j) s += rows[local * N + j];
  return s;
}

/* The block's cell (-1 past the last) and the thread's place t in it. */
template <int DIM, int K>
struct ts_gpu_l2_place {
  int64_t cell;
  int local, t;
  __device__ __forceinline__ ts_gpu_l2_place(const ts_gpu_l2_args<K> &g) {
    using Sh = ts_gpu_l2_shape<DIM, K>;
    local = threadIdx.x / Sh::P;
    t = threadIdx.x % Sh::P;
    cell = (int64_t)blockIdx.x * Sh::CELLS + local;
    if (cell >= g.n_cells) cell = -1;
  }
  /* whether the thread holds a column of DoF values */
  __device__ __forceinline__ bool holds_dofs() const {
    return cell >= 0 && t < ts_gpu_l2_shape<DIM, K>::COLUMNS;
  }
};

/* The global DoF of the thread's column entry 0 and the stride between its entries. */
template <int DIM, int K>
__device__ __forceinline__ int64_t ts_gpu_l2_column(const ts_gpu_l2_args<K> &g,
                                                    const ts_gpu_l2_place<DIM, K> &at,
                                                    int64_t *stride) {
  constexpr int N = K + 1;
  const int64_t c0 = at.cell % g.cells0, c1 = at.cell / g.cells0 % g.cells1;
  if (DIM == 2) {
    *stride = g.n0;
    return c0 * N + at.t + g.n0 * (c1 * N);
  }
  const int64_t c2 = at.cell / g.cells0 / g.cells1;
  *stride = g.n0 * g.n1;
  return c0 * N + at.t % N + g.n0 * (c1 * N + at.t / N + g.n1 * (c2 * N));
}

/* The thread's point weights for ts_gpu_l2_local_mass: the line along direction 1 at
 * (q0, q2) = (t % NQ, t / NQ) (3D), along direction 0 at q1 = t (2D); zeros past the last cell. */
template <int DIM, int K>
__device__ __forceinline__ void ts_gpu_l2_point_line(const double *__restrict__ weights,
                                                     const ts_gpu_l2_place<DIM, K> &at,
                                                     double (&D)[K + 2]) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int NQ = Sh::NQ;
  const int64_t first = at.cell * Sh::NP +
                        (DIM == 3 ? at.t % NQ + NQ * NQ * (at.t / NQ) : NQ * at.t);
  const int stride = DIM == 3 ? NQ : 1;
#pragma unroll
  for (int j = 0; j < NQ; ++j) D[j] = at.cell >= 0 ? weights[first + stride * j] : 0.0;
}

/* y_K = U^T D_K U x_K on Sh::CELLS cells per block. */
template <int DIM, int K>
__global__ void
__launch_bounds__((ts_gpu_l2_shape<DIM, K>::THREADS), (ts_gpu_l2_shape<DIM, K>::MIN_BLOCKS))
ts_gpu_l2_mass_kernel(const __grid_constant__ ts_gpu_l2_args<K> g,
                      const double *__restrict__ weights, const double *__restrict__ x,
                      double *__restrict__ y) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = K + 1;
  __shared__ double buffers[2 * Sh::CELLS * Sh::BUF];
  const ts_gpu_l2_place<DIM, K> at(g);
  double *sh1 = buffers + 2 * at.local * Sh::BUF, *sh2 = sh1 + Sh::BUF;
  double D[K + 2], u[N], v[N];
  ts_gpu_l2_point_line<DIM, K>(weights, at, D);
  int64_t stride = 0, first = at.holds_dofs() ? ts_gpu_l2_column<DIM, K>(g, at, &stride) : 0;
#pragma unroll
  for (int j = 0; j < N; ++j) u[j] = at.holds_dofs() ? x[first + stride * j] : 0.0;
  ts_gpu_l2_local_mass<DIM, K>(g.B, D, u, v, sh1, sh2, at.t);
  if (at.holds_dofs())
#pragma unroll
    for (int j = 0; j < N; ++j) y[first + stride * j] = v[j];
}

/* y_K = C z, z = (S^T D_K S)^{-1} C^T x_K by Jacobi-preconditioned CG from 0 (the local CG of
 * paper 003, section 3.1) on Sh::CELLS cells per block: z, r, p and the inverse diagonal live
 * in the threads' columns; each cell stops on its own test, and the block iterates while one
 * of its cells does (a stopped cell's updates are skipped). */
template <int DIM, int K>
__global__ void
__launch_bounds__((ts_gpu_l2_shape<DIM, K>::THREADS), (ts_gpu_l2_shape<DIM, K>::MIN_BLOCKS))
ts_gpu_l2_cg_kernel(const __grid_constant__ ts_gpu_l2_args<K> g,
                    const double *__restrict__ weights,
                    const double *__restrict__ inverse_diagonal, const double *__restrict__ x,
                    double *__restrict__ y, double *__restrict__ iterations) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = K + 1;
  __shared__ double buffers[2 * Sh::CELLS * Sh::BUF];
  __shared__ double red_pq[Sh::THREADS], red_rz[Sh::THREADS];
  __shared__ double rows_pq[Sh::CELLS * N], rows_rz[Sh::CELLS * N];
  const ts_gpu_l2_place<DIM, K> at(g);
  double *sh1 = buffers + 2 * at.local * Sh::BUF, *sh2 = sh1 + Sh::BUF;
  const bool holds = at.holds_dofs();
  double D[K + 2], z[N], r[N], p[N], q[N], id[N];
  ts_gpu_l2_point_line<DIM, K>(weights, at, D);
  int64_t stride = 0, first = holds ? ts_gpu_l2_column<DIM, K>(g, at, &stride) : 0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    p[j] = holds ? x[first + stride * j] : 0.0;
    id[j] = holds ? inverse_diagonal[at.cell * Sh::NC + at.t + Sh::COLUMNS * j] : 0.0;
  }
  ts_gpu_l2_change<DIM, K, true>(g.C, p, r, sh1, sh2, at.t); /* b = C^T x */
  double rz_local = 0.0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (!holds) r[j] = 0.0;
    z[j] = 0.0;
    p[j] = id[j] * r[j];
    rz_local += p[j] * r[j];
  }
  double rz = ts_gpu_l2_cell_sum<DIM, K>(rz_local, red_rz, rows_rz, at.local, at.t);
  const double stop = g.tol2 * rz;
  int it = 0;
  bool active = at.cell >= 0 && rz > stop && it < g.max_iterations;
  while (__syncthreads_or(active)) {
    ts_gpu_l2_local_mass<DIM, K>(g.B, D, p, q, sh1, sh2, at.t);
    double pq_local = 0.0;
#pragma unroll
    for (int j = 0; j < N; ++j) pq_local += holds ? p[j] * q[j] : 0.0;
    const double pq = ts_gpu_l2_cell_sum<DIM, K>(pq_local, red_pq, rows_pq, at.local, at.t);
    rz_local = 0.0;
    if (active) {
      const double alpha = rz / pq;
#pragma unroll
      for (int j = 0; j < N; ++j) {
        z[j] += alpha * p[j];
        r[j] -= alpha * q[j];
      }
    }
#pragma unroll
    for (int j = 0; j < N; ++j) rz_local += id[j] * r[j] * r[j];
    const double rz_new = ts_gpu_l2_cell_sum<DIM, K>(rz_local, red_rz, rows_rz, at.local, at.t);
    if (active) {
      const double beta = rz_new / rz;
#pragma unroll
      for (int j = 0; j < N; ++j) p[j] = id[j] * r[j] + beta * p[j];
      rz = rz_new;
      ++it;
      active = rz > stop && it < g.max_iterations;
    }
  }
  ts_gpu_l2_change<DIM, K, false>(g.C, z, q, sh1, sh2, at.t); /* y = C z */
  if (holds)
#pragma unroll
    for (int j = 0; j < N; ++j) y[first + stride * j] = q[j];
  if (at.cell >= 0 && at.t == 0) iterations[at.cell] = (double)it;
}

/* The global DoF of local index l = a0 + N (a1 + N a2) of cell. */
template <int DIM, int K>
__device__ __forceinline__ int64_t ts_gpu_l2_dof(const ts_gpu_l2_args<K> &g, int64_t cell, int l) {
  constexpr int N = K + 1;
  const int64_t c0 = cell % g.cells0, c1 = cell / g.cells0 % g.cells1, c2 = cell / g.cells0 / g.cells1;
  const int a0 = l % N, a1 = l / N % N, a2 = DIM == 3 ? l / (N * N) : 0;
  return c0 * N + a0 + g.n0 * (c1 * N + a1 + g.n1 * (c2 * N + a2));
}

/* y_K = M_K x_K with M_K symmetric (the explicit inverse), DENSE_CELLS cells per block: thread
 * (cell, i) forms row i from column i, M_K[j][i], so that a warp reads consecutive words. */
template <int DIM, int K>
struct ts_gpu_l2_dense_shape {
  static constexpr int NC = ts_gpu_l2_shape<DIM, K>::NC;
  static constexpr int CELLS = NC >= 256 ? 1 : 256 / NC;
  static constexpr int THREADS = CELLS * NC < 256 ? CELLS * NC : 256;
};

template <int DIM, int K>
__global__ void __launch_bounds__(256)
ts_gpu_l2_dense_kernel(const ts_gpu_l2_args<K> g, const double *__restrict__ matrices,
                       const double *__restrict__ x, double *__restrict__ y) {
  using Sh = ts_gpu_l2_dense_shape<DIM, K>;
  constexpr int NC = Sh::NC;
  __shared__ double u[Sh::CELLS * NC];
  const int64_t first_cell = (int64_t)blockIdx.x * Sh::CELLS;
  for (int l = threadIdx.x; l < Sh::CELLS * NC; l += blockDim.x) {
    const int64_t cell = first_cell + l / NC;
    u[l] = cell < g.n_cells ? x[ts_gpu_l2_dof<DIM, K>(g, cell, l % NC)] : 0.0;
  }
  __syncthreads();
  for (int l = threadIdx.x; l < Sh::CELLS * NC; l += blockDim.x) {
    const int64_t cell = first_cell + l / NC;
    if (cell >= g.n_cells) continue;
    const int i = l % NC;
    const double *M = matrices + cell * (int64_t)NC * NC, *v = u + (l / NC) * NC;
    double s = 0.0;
    for (int j = 0; j < NC; ++j) s += M[(int64_t)j * NC + i] * v[j];
    y[ts_gpu_l2_dof<DIM, K>(g, cell, i)] = s;
  }
}

/* One launch of the plan's action for degree K. */
template <int DIM, int K>
int ts_gpu_l2_cells(const ts_l2_mass_plan *pl, const double *x, double *y, char *err) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  using Dense = ts_gpu_l2_dense_shape<DIM, K>;
  constexpr int N = K + 1, NQ = K + 2;
  ts_gpu_l2_args<K> g;
  const double *table = pl->action == TS_L2_MASS_CG ? pl->solve_1d : pl->user_1d;
  for (int i = 0; i < NQ * N; ++i) g.B[i] = table ? table[i] : 0.0;
  for (int i = 0; i < N * N; ++i) g.C[i] = pl->change_1d ? pl->change_1d[i] : 0.0;
  g.n_cells = pl->cells[0] * pl->cells[1] * pl->cells[2];
  g.cells0 = pl->cells[0];
  g.cells1 = pl->cells[1];
  g.n0 = pl->n[0];
  g.n1 = pl->n[1];
  g.tol2 = pl->tolerance * pl->tolerance;
  g.max_iterations = pl->max_iterations;
  const unsigned blocks = (unsigned)((g.n_cells + Sh::CELLS - 1) / Sh::CELLS);
  const double *weights = (const double *)pl->point_weights;
  switch (pl->action) {
    case TS_L2_MASS_APPLY:
      ts_gpu_l2_mass_kernel<DIM, K><<<blocks, Sh::THREADS>>>(g, weights, x, y);
      GPU_CHECK_LAUNCH(err, "ts_gpu_l2_mass_kernel");
      return 0;
    case TS_L2_MASS_DENSE:
      ts_gpu_l2_dense_kernel<DIM, K><<<(unsigned)((g.n_cells + Dense::CELLS - 1) / Dense::CELLS),
                                      Dense::THREADS>>>(g, (const double *)pl->matrices, x, y);
      GPU_CHECK_LAUNCH(err, "ts_gpu_l2_dense_kernel");
      return 0;
    default:
      ts_gpu_l2_cg_kernel<DIM, K><<<blocks, Sh::THREADS>>>(g, weights, (const double *)pl->inverse_diagonal,
                                                           x, y, (double *)pl->iterations);
      GPU_CHECK_LAUNCH(err, "ts_gpu_l2_cg_kernel");
      return 0;
  }
}

template <int DIM>
int ts_gpu_l2_degree(const ts_l2_mass_plan *pl, const double *x, double *y, char *err) {
  switch (pl->degree) {
    case 0: return ts_gpu_l2_cells<DIM, 0>(pl, x, y, err);
    case 1: return ts_gpu_l2_cells<DIM, 1>(pl, x, y, err);
    case 2: return ts_gpu_l2_cells<DIM, 2>(pl, x, y, err);
    case 3: return ts_gpu_l2_cells<DIM, 3>(pl, x, y, err);
    case 4: return ts_gpu_l2_cells<DIM, 4>(pl, x, y, err);
    case 5: return ts_gpu_l2_cells<DIM, 5>(pl, x, y, err);
    case 6: return ts_gpu_l2_cells<DIM, 6>(pl, x, y, err);
    case 7: return ts_gpu_l2_cells<DIM, 7>(pl, x, y, err);
    case 8: return ts_gpu_l2_cells<DIM, 8>(pl, x, y, err);
    case 9: return ts_gpu_l2_cells<DIM, 9>(pl, x, y, err);
    default:
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s l2 mass: degree %d not compiled (the GPU kernels "
               "are instantiated for k = 0..9)", TS_GPU_NAME, pl->degree);
      return TS_ERR_UNSUPPORTED;
  }
}

/** y = W x or W^{-1} x (plan->action) on device vectors; the plan is checked by the library,
 *  here what is the GPU's own: the rule (n_q = k + 2), the action (no Cholesky), the launch
 *  size, x != y. */
inline int ts_gpu_l2_mass_apply(const ts_l2_mass_plan *pl, const double *x, double *y, char *err) {
  const int64_t n_cells = pl->cells[0] * pl->cells[1] * pl->cells[2];
  if (pl->action == TS_L2_MASS_CHOLESKY) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s l2 mass: the Cholesky method (triangular solves) "
             "is not implemented on the GPU; use the explicit inverse or CG", TS_GPU_NAME);
    return TS_ERR_UNSUPPORTED;
  }
  if (pl->n_q != pl->degree + 2) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s l2 mass: n_q = %d quadrature points per direction; "
             "the GPU kernels take degree + 2 = %d", TS_GPU_NAME, pl->n_q, pl->degree + 2);
    return TS_ERR_UNSUPPORTED;
  }
  if (n_cells > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s l2 mass: %lld cells exceed the 2^31-1 blocks of one "
             "launch", TS_GPU_NAME, (long long)n_cells);
    return TS_ERR_ARG;
  }
  if (x == y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s l2 mass: x and y are the same vector (in-place "
             "apply is not supported)", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  return pl->dim == 3 ? ts_gpu_l2_degree<3>(pl, x, y, err) : ts_gpu_l2_degree<2>(pl, x, y, err);
}

#define TS_GPU_MASS_INVERSE_INSTANTIATE                                                     \
  int ts_gpu_l2_mass_apply_double(const ts_l2_mass_plan *pl, const double *x, double *y,     \
                                  char *err) {                                               \
    return ts_gpu_l2_mass_apply(pl, x, y, err);                                              \
  }

#endif
