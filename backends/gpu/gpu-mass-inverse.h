/* gpu-mass-inverse.h -- the GPU L2 (DGQ_k) mass and its inverse (ts_l2_mass_plan; paper 003,
 * sections 2.5 and 3.1), written once for CUDA and HIP as templates over the dimension and
 * the degree K, in double precision.  Included by backends/cuda/mass-inverse-double.cu (and
 * hip/mass-inverse-double.cpp), which instantiate it (TS_GPU_MASS_INVERSE_INSTANTIATE).
 *
 * W is block diagonal, so every cell is solved on its own and nothing is reduced across cells
 * (no global reduction).  A thread block holds several whole cells (about 128 threads): with
 * N = K+1 values and NQ = K+2 points per direction, NQ^(DIM-1) threads per cell, each holding
 * a column of values along the last direction in registers (ts_gpu_l2_shape); the last
 * direction is contracted in registers, the others through shared memory.
 *   CG (ts_gpu_l2_cg_kernel): the change of basis b = C^T x, then the Jacobi-preconditioned
 *   CG on S^T D S z = b (the local mass by sum factorization, the two dot products of an
 *   iteration as sums over the cell's threads in shared memory), each cell with its own
 *   stopping test (the block iterates while one of its cells does), then y = C z.  The
 *   iteration count goes to iterations[cell].
 *   Apply (ts_gpu_l2_mass_kernel): y = U^T D U x with the user's table U.
 *   Dense (ts_gpu_l2_dense_kernel): y_K = M_K x_K, thread i of a cell forming row i; the
 *   explicit inverse is symmetric, so it reads column i (M_K[j][i], j = 0..n-1): consecutive
 *   threads read consecutive words.
 * Measured against one block per cell (bench/results/2026-11-27-h100-mass-inverse-blocks.md):
 * CG 2.3 to 3.5 times faster (k = 1..8), the dense product 2.7 times at k = 1.
 * Cholesky's triangular solves are sequential per cell and are left to omp (the library
 * documents the method as omp only); this backend refuses them. */
#ifndef TESSERA_GPU_MASS_INVERSE_H
#define TESSERA_GPU_MASS_INVERSE_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

/* Several cells per thread block, P = NQ^(DIM-1) threads per cell: thread t = t0 + NQ t1 of a
 * cell (3D; 2D: t0 alone) holds the column of the cell's values along the last direction,
 * x[i0 + E (i1 + E i2)] for i2 = 0..E-1 (E = N for DoF values, NQ for point values; threads with
 * t0 or t1 >= E hold nothing), in registers.  The last direction is contracted in registers, the
 * others through the cell's two shared buffers. */
template <int DIM, int K>
struct ts_gpu_l2_shape {
  static constexpr int N = K + 1, NQ = K + 2;
  static constexpr int NC = DIM == 3 ? N * N * N : N * N;     /* values per cell */
  static constexpr int NP = DIM == 3 ? NQ * NQ * NQ : NQ * NQ; /* points per cell */
  static constexpr int P = DIM == 3 ? NQ * NQ : NQ;            /* threads per cell */
  static constexpr int CELLS = P >= 128 ? 1 : 128 / P;         /* cells per block */
  static constexpr int THREADS = CELLS * P;
  static constexpr int BUF = DIM == 3 ? N * NQ * NQ : N * NQ;  /* a shared buffer per cell */
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

#define TS_L2_M(o, i) (T ? A[(i) * OUT + (o)] : A[(o) * IN + (i)])
/* The last direction in registers: buf[first + stride o] = sum_i M(o, i) in[i], o < OUT. */
template <int IN, int OUT, bool T>
__device__ __forceinline__ void ts_gpu_l2_to_shared(const double *A, const double (&in)[IN],
                                                    double *buf, int first, int stride) {
#pragma unroll
  for (int o = 0; o < OUT; ++o) {
    double s = 0.0;
#pragma unroll
    for (int i = 0; i < IN; ++i) s += TS_L2_M(o, i) * in[i];
    buf[first + stride * o] = s;
  }
}

/* Back to a register column: out[o] = sum_i M(row, i) buf[first + si i + so o] where the thread
 * holds a column (holds), zeros elsewhere. */
template <int IN, int OUT, bool T>
__device__ __forceinline__ void ts_gpu_l2_from_shared(const double *A, const double *buf, int row,
                                                      int first, int si, int so, bool holds,
                                                      double (&out)[OUT]) {
  if (!holds) {
#pragma unroll
    for (int o = 0; o < OUT; ++o) out[o] = 0.0;
    return;
  }
  double m[IN];
#pragma unroll
  for (int i = 0; i < IN; ++i) m[i] = TS_L2_M(row, i);
#pragma unroll
  for (int o = 0; o < OUT; ++o) {
    double s = 0.0;
#pragma unroll
    for (int i = 0; i < IN; ++i) s += m[i] * buf[first + si * i + so * o];
    out[o] = s;
  }
}

/* out = (x)_d M in, M(o, i) = T ? A[i OUT + o] : A[o IN + i] (A in shared memory), from the
 * column form of extent IN to that of extent OUT (see ts_gpu_l2_shape).  3D: the last direction
 * in registers, then direction 0 into sh2 and direction 1 back to registers; two barriers, after
 * which sh1 and sh2 may be written again.  2D: direction 1 in registers, direction 0 through sh1;
 * the closing barrier lets the next contraction write sh1. */
template <int DIM, int IN, int OUT, bool T>
__device__ __forceinline__ void ts_gpu_l2_contract(const double *A, const double (&in)[IN],
                                                   double (&out)[OUT], double *sh1, double *sh2,
                                                   int t0, int t1) {
  if (DIM == 3) {
    if (t0 < IN && t1 < IN) ts_gpu_l2_to_shared<IN, OUT, T>(A, in, sh1, t0 + IN * t1, IN * IN);
    __syncthreads();
    if (t0 < OUT && t1 < IN) {
      double m[IN];
#pragma unroll
      for (int i = 0; i < IN; ++i) m[i] = TS_L2_M(t0, i);
#pragma unroll
      for (int o = 0; o < OUT; ++o) {
        double s = 0.0;
#pragma unroll
        for (int i = 0; i < IN; ++i) s += m[i] * sh1[i + IN * (t1 + IN * o)];
        sh2[t0 + OUT * (t1 + IN * o)] = s;
      }
    }
    __syncthreads();
    ts_gpu_l2_from_shared<IN, OUT, T>(A, sh2, t1, t0, OUT, OUT * IN, t0 < OUT && t1 < OUT, out);
  } else {
    if (t0 < IN) ts_gpu_l2_to_shared<IN, OUT, T>(A, in, sh1, t0, IN);
    __syncthreads();
    ts_gpu_l2_from_shared<IN, OUT, T>(A, sh1, t0, 0, 1, IN, t0 < OUT, out);
    __syncthreads();
  }
}
#undef TS_L2_M

/* The sum of v over the threads of the calling thread's cell, of which only those holding DoF
 * values (t0, t1 < N) contribute, returned to each of them, in one order (the result does not
 * vary by run).  red (a value per thread of the block) and rows (NQ per cell) alternate
 * between consecutive sums: the barriers of the sum in between keep the readers of one ahead
 * of its next writers.  3D: the first thread of each row of the cell adds the row's N values,
 * then every thread the N row sums (k = 1: the four values at once); 2D: the N values.
 * Against every thread adding all of the cell's values: 8-16 % faster for k >= 2 on an H100. */
template <int DIM, int K>
__device__ __forceinline__ double ts_gpu_l2_cell_sum(double v, double *red, double *rows,
                                                     int local, int t0, int t1) {
  constexpr int N = K + 1, NQ = K + 2, P = DIM == 3 ? NQ * NQ : NQ;
  const int cell_first = local * P;
  red[threadIdx.x] = v;
  __syncthreads();
  double s = 0.0;
  if (DIM == 2) {
#pragma unroll
    for (int i = 0; i < N; ++i) s += red[cell_first + i];
    return s;
  }
  if (N <= 2) { /* four values: no second stage */
#pragma unroll
    for (int i = 0; i < N * N; ++i) s += red[cell_first + i % N + NQ * (i / N)];
    return s;
  }
  if (t0 == 0 && t1 < N) {
#pragma unroll
    for (int i = 0; i < N; ++i) s += red[cell_first + NQ * t1 + i];
    rows[local * NQ + t1] = s;
  }
  __syncthreads();
  s = 0.0;
#pragma unroll
  for (int j = 0; j < N; ++j) s += rows[local * NQ + j];
  return s;
}

/* The block's cell (-1 past the last) and the thread's place (t0, t1) in it. */
template <int DIM, int K>
struct ts_gpu_l2_place {
  int64_t cell;
  int local, t0, t1;
  __device__ __forceinline__ ts_gpu_l2_place(const ts_gpu_l2_args<K> &g) {
    using Sh = ts_gpu_l2_shape<DIM, K>;
    local = threadIdx.x / Sh::P;
    const int t = threadIdx.x % Sh::P;
    t0 = t % Sh::NQ;
    t1 = DIM == 3 ? t / Sh::NQ : 0;
    cell = (int64_t)blockIdx.x * Sh::CELLS + local;
    if (cell >= g.n_cells) cell = -1;
  }
  /* whether the thread holds a column of DoF values */
  __device__ __forceinline__ bool holds_dofs() const {
    return cell >= 0 && t0 < K + 1 && (DIM == 2 || t1 < K + 1);
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
    return c0 * N + at.t0 + g.n0 * (c1 * N);
  }
  const int64_t c2 = at.cell / g.cells0 / g.cells1;
  *stride = g.n0 * g.n1;
  return c0 * N + at.t0 + g.n0 * (c1 * N + at.t1 + g.n1 * (c2 * N));
}

/* The cell-local index of the thread's column entry j (a0 + N (a1 + N a2)). */
template <int DIM, int K>
__device__ __forceinline__ int ts_gpu_l2_local(const ts_gpu_l2_place<DIM, K> &at, int j) {
  constexpr int N = K + 1;
  return DIM == 3 ? at.t0 + N * (at.t1 + N * j) : at.t0 + N * j;
}

/* The 1D tables into shared memory (indexed by threads: the parameter space serializes
 * divergent reads). */
template <int K>
__device__ __forceinline__ void ts_gpu_l2_tables(const ts_gpu_l2_args<K> &g, double *B, double *C,
                                                 bool with_change) {
  for (int i = threadIdx.x; i < (K + 2) * (K + 1); i += blockDim.x) B[i] = g.B[i];
  if (with_change)
    for (int i = threadIdx.x; i < (K + 1) * (K + 1); i += blockDim.x) C[i] = g.C[i];
}

/* q = S^T D S p on the thread's columns: to the points, D (the thread's point column), back. */
template <int DIM, int K>
__device__ __forceinline__ void ts_gpu_l2_local_mass(const double *B, const double (&D)[K + 2],
                                                     const double (&p)[K + 1], double (&q)[K + 1],
                                                     double *sh1, double *sh2, int t0, int t1) {
  double w[K + 2];
  ts_gpu_l2_contract<DIM, K + 1, K + 2, false>(B, p, w, sh1, sh2, t0, t1);
#pragma unroll
  for (int j = 0; j < K + 2; ++j) w[j] *= D[j];
  ts_gpu_l2_contract<DIM, K + 2, K + 1, true>(B, w, q, sh1, sh2, t0, t1);
}

/* The thread's column of point weights (zeros where it holds no point column). */
template <int DIM, int K>
__device__ __forceinline__ void ts_gpu_l2_point_column(const double *__restrict__ weights,
                                                       const ts_gpu_l2_place<DIM, K> &at,
                                                       double (&D)[K + 2]) {
  constexpr int NQ = K + 2, NP = ts_gpu_l2_shape<DIM, K>::NP, P = ts_gpu_l2_shape<DIM, K>::P;
  const bool holds = at.cell >= 0 && at.t0 < NQ && at.t1 < NQ;
#pragma unroll
  for (int j = 0; j < NQ; ++j)
    D[j] = holds ? weights[at.cell * NP + at.t0 + NQ * at.t1 + (int64_t)P * j] : 0.0;
}

/* y_K = U^T D_K U x_K on Sh::CELLS cells per block. */
template <int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_l2_shape<DIM, K>::THREADS), 4)
ts_gpu_l2_mass_kernel(const ts_gpu_l2_args<K> g, const double *__restrict__ weights,
                      const double *__restrict__ x, double *__restrict__ y) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = K + 1;
  __shared__ double B[(K + 2) * N], buffers[2 * Sh::CELLS * Sh::BUF];
  const ts_gpu_l2_place<DIM, K> at(g);
  double *sh1 = buffers + 2 * at.local * Sh::BUF, *sh2 = sh1 + Sh::BUF;
  ts_gpu_l2_tables<K>(g, B, nullptr, false);
  double D[K + 2], u[N], v[N];
  ts_gpu_l2_point_column<DIM, K>(weights, at, D);
  int64_t stride = 0, first = at.holds_dofs() ? ts_gpu_l2_column<DIM, K>(g, at, &stride) : 0;
#pragma unroll
  for (int j = 0; j < N; ++j) u[j] = at.holds_dofs() ? x[first + stride * j] : 0.0;
  __syncthreads(); /* the table */
  ts_gpu_l2_local_mass<DIM, K>(B, D, u, v, sh1, sh2, at.t0, at.t1);
  if (at.holds_dofs())
#pragma unroll
    for (int j = 0; j < N; ++j) y[first + stride * j] = v[j];
}

/* y_K = C z, z = (S^T D_K S)^{-1} C^T x_K by Jacobi-preconditioned CG from 0 (the local CG of
 * paper 003, section 3.1) on Sh::CELLS cells per block: z, r, p and the inverse diagonal live
 * in the threads' columns; each cell stops on its own test, and the block iterates while one
 * of its cells does (a stopped cell's updates are skipped). */
template <int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_l2_shape<DIM, K>::THREADS), 4)
ts_gpu_l2_cg_kernel(const ts_gpu_l2_args<K> g, const double *__restrict__ weights,
                    const double *__restrict__ inverse_diagonal, const double *__restrict__ x,
                    double *__restrict__ y, double *__restrict__ iterations) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = K + 1;
  __shared__ double B[(K + 2) * N], C[N * N], buffers[2 * Sh::CELLS * Sh::BUF];
  __shared__ double red_pq[Sh::THREADS], red_rz[Sh::THREADS];
  __shared__ double rows_pq[Sh::CELLS * (K + 2)], rows_rz[Sh::CELLS * (K + 2)];
  const ts_gpu_l2_place<DIM, K> at(g);
  double *sh1 = buffers + 2 * at.local * Sh::BUF, *sh2 = sh1 + Sh::BUF;
  ts_gpu_l2_tables<K>(g, B, C, true);
  const bool holds = at.holds_dofs();
  double D[K + 2], z[N], r[N], p[N], q[N], id[N];
  ts_gpu_l2_point_column<DIM, K>(weights, at, D);
  int64_t stride = 0, first = holds ? ts_gpu_l2_column<DIM, K>(g, at, &stride) : 0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    p[j] = holds ? x[first + stride * j] : 0.0;
    id[j] = holds ? inverse_diagonal[at.cell * Sh::NC + ts_gpu_l2_local<DIM, K>(at, j)] : 0.0;
  }
  __syncthreads(); /* the tables */
  ts_gpu_l2_contract<DIM, N, N, true>(C, p, r, sh1, sh2, at.t0, at.t1); /* b = C^T x */
  double rz_local = 0.0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (!holds) r[j] = 0.0;
    z[j] = 0.0;
    p[j] = id[j] * r[j];
    rz_local += p[j] * r[j];
  }
  double rz = ts_gpu_l2_cell_sum<DIM, K>(rz_local, red_rz, rows_rz, at.local, at.t0, at.t1);
  const double stop = g.tol2 * rz;
  int it = 0;
  bool active = at.cell >= 0 && rz > stop && it < g.max_iterations;
  while (__syncthreads_or(active)) {
    ts_gpu_l2_local_mass<DIM, K>(B, D, p, q, sh1, sh2, at.t0, at.t1);
    double pq_local = 0.0;
#pragma unroll
    for (int j = 0; j < N; ++j) pq_local += holds ? p[j] * q[j] : 0.0;
    const double pq = ts_gpu_l2_cell_sum<DIM, K>(pq_local, red_pq, rows_pq, at.local, at.t0, at.t1);
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
    const double rz_new = ts_gpu_l2_cell_sum<DIM, K>(rz_local, red_rz, rows_rz, at.local, at.t0, at.t1);
    if (active) {
      const double beta = rz_new / rz;
#pragma unroll
      for (int j = 0; j < N; ++j) p[j] = id[j] * r[j] + beta * p[j];
      rz = rz_new;
      ++it;
      active = rz > stop && it < g.max_iterations;
    }
  }
  ts_gpu_l2_contract<DIM, N, N, false>(C, z, q, sh1, sh2, at.t0, at.t1); /* y = C z */
  if (holds)
#pragma unroll
    for (int j = 0; j < N; ++j) y[first + stride * j] = q[j];
  if (at.cell >= 0 && at.t0 == 0 && at.t1 == 0) iterations[at.cell] = (double)it;
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
    default:
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s l2 mass: degree %d not compiled (the GPU kernels "
               "are instantiated for k = 0..8)", TS_GPU_NAME, pl->degree);
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
