/* gpu-mapped.h -- the GPU operator on mapped cells (issue 13), written once for CUDA and HIP:
 * y = A x and y += A x for -div(kappa grad u) + c u on Q_k with the geometric factors of
 * ts_mapped_plan (stored per quadrature point by lib/op/mapped.c), templates over the
 * precision R, the dimension and the degree K.  Included by backends/cuda/mapped-*.cu,
 * which instantiate it (TS_GPU_MAPPED_INSTANTIATE).
 *
 * Algorithm: the omp kernel's (backends/omp/mapped.c) on the GPU.  One thread block holds CPB
 * cells; in 3D thread (i, j) of a cell owns the column (i, j) along direction 2 and keeps it
 * in registers (2D: thread i, the column along direction 1).  With S and D the 1D basis
 * values and derivatives at the K+1 Gauss points:
 *   direction 2 in registers:        a = S_2 u, b = D_2 u
 *   direction 1 via shared memory:   S_1 a, D_1 a, S_1 b
 *   direction 0 via shared memory:   g_0 = D_0 S_1 a, g_1 = S_0 D_1 a, g_2 = S_0 S_1 b
 *                                    (and S_0 S_1 a, the value, for c u)
 *   per point (in registers):        v = G_q g, w = m_q u  (G_q: the upper triangle of the
 *                                    symmetric dim x dim factor, then m_q; plan layout)
 * and the transposed sweeps back, the value term joining the direction-0 derivative's.
 * Shared memory is [z][y][x] per cell, x fastest: a warp's loads and stores are consecutive
 * words.  The cells' results are added into y with atomics (y zeroed first when add = 0);
 * Dirichlet DoFs (plan->constrained) are read as zero and skipped, and the box Laplacian's
 * Dirichlet kernel then sets their rows to y = x (y += x): the DoF layout is the box's.
 *
 * Geometry (template V).  V = false reads G_q and m_q stored per point (TS_MAPPED_FACTORS);
 * V = true computes them at the point from the cell's 2^dim vertices and its kappa and c
 * (TS_MAPPED_VERTICES, multilinear cells): J = dx/dxi of x(xi) = sum_v X_v prod_d L_v_d(xi_d),
 * A = adj(J) = det(J) J^{-1}, G = w A kappa A^T / det(J), m = w det(J) c, in the kernel's
 * precision.  gpu_mapped_geometry (gpu-backend.h) says which the backend asks the library
 * for, per degree: the faster of the two as measured (bench/results/2026-11-26-h100-kershaw-
 * recomputed.md: with this kernel neither form is bandwidth-bound, and each wins at some
 * degrees). */
#ifndef TESSERA_GPU_MAPPED_H
#define TESSERA_GPU_MAPPED_H

#include "gpu-laplace.h"

/* Cells per block: about 128 threads, and the four shared arrays of N^DIM values per cell
 * within 48 KiB (the static limit). */
template <typename R, int DIM, int K>
struct ts_gpu_mapped_shape {
  static constexpr int N = K + 1;
  static constexpr int NP = DIM == 3 ? N * N * N : N * N;   /* points (and DoFs) per cell */
  static constexpr int TPC = DIM == 3 ? N * N : N;          /* threads per cell */
  static constexpr int BY_THREADS = (128 + TPC / 2) / TPC;
  static constexpr int BY_SHARED = 49152 / (4 * NP * (int)sizeof(R));
  static constexpr int CPB0 = BY_THREADS < BY_SHARED ? BY_THREADS : BY_SHARED;
  static constexpr int CPB = CPB0 < 1 ? 1 : CPB0;
  static constexpr int THREADS = CPB * TPC;
};

template <typename R, int K>
struct ts_gpu_mapped_args {
  R S[(K + 1) * (K + 1)]; /* S[q][j]: basis function j at Gauss point q */
  R D[(K + 1) * (K + 1)]; /* D[q][j]: its derivative */
  R P[K + 1], W[K + 1];    /* Gauss points and weights on [0,1] (vertices) */
  int64_t cells0, cells1, cells2, n0, n1, n2, n_cells;
  int constrained, has_reaction, n_factors;
  int kappa_components, per_cell; /* vertices: the cell values (kappa, then c) */
};

/* The cell's data for the vertex path, in shared memory: 2^dim vertices (dim coordinates
 * each, vertex v = v0 + 2 v1 + 4 v2) and the cell's kappa components and c. */
template <typename R>
struct ts_gpu_mapped_cell {
  R X[8][3];
  R kc[7];
};

/* Load the cell's vertices and values: thread l (< 24 + 7) of the cell loads one. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_load_cell(const ts_gpu_mapped_args<R, K> &g, int dim,
                                                        int64_t c0, int64_t c1, int64_t c2,
                                                        int64_t cell, int l, const R *vertices,
                                                        const R *values,
                                                        ts_gpu_mapped_cell<R> &cd) {
  const int nvert = 1 << dim;
  if (l < nvert * dim) {
    const int v = l / dim, d = l % dim;
    const int64_t v0 = c0 + (v & 1), v1 = c1 + (v >> 1 & 1), v2 = c2 + (v >> 2 & 1);
    cd.X[v][d] = vertices[(v0 + (g.cells0 + 1) * (v1 + (g.cells1 + 1) * v2)) * dim + d];
  } else if (l < nvert * dim + g.per_cell) {
    const int j = l - nvert * dim;
    cd.kc[j] = values[cell * g.per_cell + j];
  }
}

/* G (upper triangle 00 01 02 11 12 22) and m at the 3D point (p0, p1, p2) with weight w. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_point3(const ts_gpu_mapped_args<R, K> &g,
                                                     const ts_gpu_mapped_cell<R> &cd, R p0, R p1,
                                                     R p2, R w, R *G, R &m) {
  R J[3][3];
  const R t[3] = {p0, p1, p2};
#pragma unroll
  for (int b = 0; b < 3; ++b) {   /* d x / d xi_b: differences along b, weighted in the others */
    const int e = (b + 1) % 3, f = (b + 2) % 3;
#pragma unroll
    for (int a = 0; a < 3; ++a) {
      R sum = 0;
#pragma unroll
      for (int v = 0; v < 8; ++v) {
        if (v >> b & 1) continue;
        const int u = v | (1 << b);
        const R le = (v >> e & 1) ? t[e] : R(1) - t[e], lf = (v >> f & 1) ? t[f] : R(1) - t[f];
        sum += (cd.X[u][a] - cd.X[v][a]) * le * lf;
      }
      J[a][b] = sum;
    }
  }
  /* A = adj(J): A[i][j] = cofactor of J[j][i] */
  R A[3][3];
  A[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  A[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  A[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  A[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  A[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  A[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  A[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  A[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  A[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  const R det = J[0][0] * A[0][0] + J[0][1] * A[1][0] + J[0][2] * A[2][0];
  /* kappa (identity, scalar or the upper triangle) times A^T, then A (kappa A^T) */
  R k[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  if (g.kappa_components == 1) {
    k[0][0] = k[1][1] = k[2][2] = cd.kc[0];
  } else if (g.kappa_components == 6) {
    k[0][0] = cd.kc[0]; k[0][1] = k[1][0] = cd.kc[1]; k[0][2] = k[2][0] = cd.kc[2];
    k[1][1] = cd.kc[3]; k[1][2] = k[2][1] = cd.kc[4]; k[2][2] = cd.kc[5];
  }
  R KA[3][3]; /* kappa A^T */
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j) KA[i][j] = k[i][0] * A[j][0] + k[i][1] * A[j][1] + k[i][2] * A[j][2];
  const R s = w / det;
  G[0] = s * (A[0][0] * KA[0][0] + A[0][1] * KA[1][0] + A[0][2] * KA[2][0]);
  G[1] = s * (A[0][0] * KA[0][1] + A[0][1] * KA[1][1] + A[0][2] * KA[2][1]);
  G[2] = s * (A[0][0] * KA[0][2] + A[0][1] * KA[1][2] + A[0][2] * KA[2][2]);
  G[3] = s * (A[1][0] * KA[0][1] + A[1][1] * KA[1][1] + A[1][2] * KA[2][1]);
  G[4] = s * (A[1][0] * KA[0][2] + A[1][1] * KA[1][2] + A[1][2] * KA[2][2]);
  G[5] = s * (A[2][0] * KA[0][2] + A[2][1] * KA[1][2] + A[2][2] * KA[2][2]);
  m = g.has_reaction ? w * det * cd.kc[g.kappa_components] : R(0);
}

/* The same in 2D: G (00 01 11) and m at (p0, p1). */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_point2(const ts_gpu_mapped_args<R, K> &g,
                                                     const ts_gpu_mapped_cell<R> &cd, R p0, R p1,
                                                     R w, R *G, R &m) {
  R J[2][2];
#pragma unroll
  for (int a = 0; a < 2; ++a) {
    J[a][0] = (cd.X[1][a] - cd.X[0][a]) * (R(1) - p1) + (cd.X[3][a] - cd.X[2][a]) * p1;
    J[a][1] = (cd.X[2][a] - cd.X[0][a]) * (R(1) - p0) + (cd.X[3][a] - cd.X[1][a]) * p0;
  }
  const R A[2][2] = {{J[1][1], -J[0][1]}, {-J[1][0], J[0][0]}};
  const R det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  R k[2][2] = {{1, 0}, {0, 1}};
  if (g.kappa_components == 1) {
    k[0][0] = k[1][1] = cd.kc[0];
  } else if (g.kappa_components == 3) {
    k[0][0] = cd.kc[0]; k[0][1] = k[1][0] = cd.kc[1]; k[1][1] = cd.kc[2];
  }
  R KA[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) KA[i][j] = k[i][0] * A[j][0] + k[i][1] * A[j][1];
  const R s = w / det;
  G[0] = s * (A[0][0] * KA[0][0] + A[0][1] * KA[1][0]);
  G[1] = s * (A[0][0] * KA[0][1] + A[0][1] * KA[1][1]);
  G[2] = s * (A[1][0] * KA[0][1] + A[1][1] * KA[1][1]);
  m = g.has_reaction ? w * det * cd.kc[g.kappa_components] : R(0);
}

/* Global index of the cell's DoF (i, j, z), or -1 for a Dirichlet DoF when constrained. */
template <typename R, int K>
__device__ __forceinline__ int64_t ts_gpu_mapped_dof(const ts_gpu_mapped_args<R, K> &g,
                                                     int64_t c0, int64_t c1, int64_t c2, int i,
                                                     int j, int z, int dim) {
  const int64_t g0 = c0 * K + i, g1 = c1 * K + j, g2 = dim == 3 ? c2 * K + z : 0;
  const bool bnd = g0 == 0 || g0 == g.n0 - 1 || g1 == 0 || g1 == g.n1 - 1 ||
                   (dim == 3 && (g2 == 0 || g2 == g.n2 - 1));
  return g.constrained && bnd ? -1 : g0 + g.n0 * (g1 + g.n1 * g2);
}

/* The thread's column in the last direction, gathered (Dirichlet DoFs and inactive threads
 * as zero) and taken to the points in registers: a = S u, b = D u. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_column_in(const ts_gpu_mapped_args<R, K> &g, bool active,
                                                        int dim, int64_t c0, int64_t c1, int64_t c2,
                                                        int i, int j, const R *__restrict__ x,
                                                        R *a, R *b) {
  constexpr int N = K + 1;
  R u[N];
#pragma unroll
  for (int l = 0; l < N; ++l) {
    const int64_t d = !active ? -1
                      : dim == 3 ? ts_gpu_mapped_dof<R, K>(g, c0, c1, c2, i, j, l, 3)
                                 : ts_gpu_mapped_dof<R, K>(g, c0, c1, 0, i, l, 0, 2);
    u[l] = d < 0 ? R(0) : x[d];
  }
#pragma unroll
  for (int q = 0; q < N; ++q) {
    R sa = 0, sb = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      sa += g.S[q * N + l] * u[l];
      sb += g.D[q * N + l] * u[l];
    }
    a[q] = sa;
    b[q] = sb;
  }
}

/* Up to four register arrays of the thread's column (i, j), one value per z, into the
 * cell's shared arrays 0..3 at [z][j][i] (NULL: that array is not stored). */
template <typename R, int N, int NP>
__device__ __forceinline__ void ts_gpu_mapped_store(R (*s)[NP], int i, int j, const R *a0,
                                                    const R *a1, const R *a2 = nullptr,
                                                    const R *a3 = nullptr) {
#pragma unroll
  for (int q = 0; q < N; ++q) {
    const int p = (q * N + j) * N + i;
    s[0][p] = a0[q];
    s[1][p] = a1[q];
    if (a2) s[2][p] = a2[q];
    if (a3) s[3][p] = a3[q];
  }
}

/* The transposed last direction in registers, out = S^T a + D^T b, added into y (not the
 * Dirichlet DoFs). */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_column_out(const ts_gpu_mapped_args<R, K> &g, int dim,
                                                         int64_t c0, int64_t c1, int64_t c2, int i,
                                                         int j, const R *a, const R *b,
                                                         R *__restrict__ y) {
  constexpr int N = K + 1;
#pragma unroll
  for (int l = 0; l < N; ++l) {
    R out = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) out += g.S[q * N + l] * a[q] + g.D[q * N + l] * b[q];
    const int64_t d = dim == 3 ? ts_gpu_mapped_dof<R, K>(g, c0, c1, c2, i, j, l, 3)
                               : ts_gpu_mapped_dof<R, K>(g, c0, c1, 0, i, l, 0, 2);
    if (d >= 0) ts_gpu_atomic_add(&y[d], out);
  }
}

template <typename R, int K, bool V>
__global__ void __launch_bounds__((ts_gpu_mapped_shape<R, 3, K>::THREADS))
ts_gpu_mapped3_kernel(const ts_gpu_mapped_args<R, K> g, const R *__restrict__ factors,
                      const R *__restrict__ vertices, const R *__restrict__ values,
                      const R *__restrict__ x, R *__restrict__ y) {
  using Sh = ts_gpu_mapped_shape<R, 3, K>;
  constexpr int N = K + 1, NP = Sh::NP;
  __shared__ R sh[Sh::CPB][4][NP];
  __shared__ ts_gpu_mapped_cell<R> geo[V ? Sh::CPB : 1];
  const int t = threadIdx.x, c = t / (N * N), j = (t / N) % N, i = t % N;
  const int64_t cell = (int64_t)blockIdx.x * Sh::CPB + c;
  const bool active = cell < g.n_cells;
  const int64_t c0 = active ? cell % g.cells0 : 0, c1 = active ? cell / g.cells0 % g.cells1 : 0,
                c2 = active ? cell / g.cells0 / g.cells1 : 0;
  R(*s)[NP] = sh[c];
  if (V && active) /* N^2 >= 4 threads a cell, up to 24 + 7 values to load */
    for (int l = j * N + i; l < 24 + 7; l += N * N)
      ts_gpu_mapped_load_cell<R, K>(g, 3, c0, c1, c2, cell, l, vertices, values, geo[V ? c : 0]);
  /* gather the column, direction 2 in registers */
  R a[N], b[N];
  ts_gpu_mapped_column_in<R, K>(g, active, 3, c0, c1, c2, i, j, x, a, b);
  ts_gpu_mapped_store<R, N, NP>(s, i, j, a, b);
  __syncthreads();
  /* direction 1: thread (i, qy = j) */
  R sa[N], da[N], sb[N];
#pragma unroll
  for (int q = 0; q < N; ++q) {
    R x0 = 0, x1 = 0, x2 = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      const R av = s[0][(q * N + l) * N + i], bv = s[1][(q * N + l) * N + i];
      x0 += g.S[j * N + l] * av;
      x1 += g.D[j * N + l] * av;
      x2 += g.S[j * N + l] * bv;
    }
    sa[q] = x0;
    da[q] = x1;
    sb[q] = x2;
  }
  __syncthreads();
  ts_gpu_mapped_store<R, N, NP>(s, i, j, sa, da, sb);
  __syncthreads();
  /* direction 0: thread (qx = i, qy = j); then the point work, in place in sa, da, sb, a */
  const R *F = V ? factors : factors + (active ? cell : 0) * (int64_t)g.n_factors * NP;
#pragma unroll
  for (int q = 0; q < N; ++q) {
    R g0 = 0, g1 = 0, g2 = 0, val = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      const R v0 = s[0][(q * N + j) * N + l], v1 = s[1][(q * N + j) * N + l],
              v2 = s[2][(q * N + j) * N + l];
      g0 += g.D[i * N + l] * v0;
      val += g.S[i * N + l] * v0;
      g1 += g.S[i * N + l] * v1;
      g2 += g.S[i * N + l] * v2;
    }
    const int p = (q * N + j) * N + i;
    if (active) {
      R f[6], m;
      if (V) {
        ts_gpu_mapped_point3<R, K>(g, geo[V ? c : 0], g.P[i], g.P[j], g.P[q],
                                   g.W[i] * g.W[j] * g.W[q], f, m);
      } else {
#pragma unroll
        for (int e = 0; e < 6; ++e) f[e] = F[e * NP + p];
        m = g.has_reaction ? F[6 * NP + p] : R(0);
      }
      sa[q] = f[0] * g0 + f[1] * g1 + f[2] * g2;
      da[q] = f[1] * g0 + f[3] * g1 + f[4] * g2;
      sb[q] = f[2] * g0 + f[4] * g1 + f[5] * g2;
      a[q] = m * val;
    } else {
      sa[q] = da[q] = sb[q] = a[q] = 0;
    }
  }
  __syncthreads();
  ts_gpu_mapped_store<R, N, NP>(s, i, j, sa, da, sb, a);
  __syncthreads();
  /* direction 0 transposed: thread (i, qy = j): P = D_0^T v0 + S_0^T w, Q = S_0^T v1,
   * W = S_0^T v2 */
#pragma unroll
  for (int q = 0; q < N; ++q) {
    R P = 0, Q = 0, W = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      const int p = (q * N + j) * N + l;
      P += g.D[l * N + i] * s[0][p] + g.S[l * N + i] * s[3][p];
      Q += g.S[l * N + i] * s[1][p];
      W += g.S[l * N + i] * s[2][p];
    }
    sa[q] = P;
    da[q] = Q;
    sb[q] = W;
  }
  __syncthreads();
  ts_gpu_mapped_store<R, N, NP>(s, i, j, sa, da, sb);
  __syncthreads();
  /* direction 1 transposed: thread (i, j): A = S_1^T P + D_1^T Q (then S_2^T), B = S_1^T W
   * (then D_2^T) */
#pragma unroll
  for (int q = 0; q < N; ++q) {
    R A = 0, B = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      const int p = (q * N + l) * N + i;
      A += g.S[l * N + j] * s[0][p] + g.D[l * N + j] * s[1][p];
      B += g.S[l * N + j] * s[2][p];
    }
    a[q] = A;
    b[q] = B;
  }
  /* direction 2 transposed in registers, and the scatter */
  if (active) ts_gpu_mapped_column_out<R, K>(g, 3, c0, c1, c2, i, j, a, b, y);
}

template <typename R, int K, bool V>
__global__ void __launch_bounds__((ts_gpu_mapped_shape<R, 2, K>::THREADS))
ts_gpu_mapped2_kernel(const ts_gpu_mapped_args<R, K> g, const R *__restrict__ factors,
                      const R *__restrict__ vertices, const R *__restrict__ values,
                      const R *__restrict__ x, R *__restrict__ y) {
  using Sh = ts_gpu_mapped_shape<R, 2, K>;
  constexpr int N = K + 1, NP = Sh::NP;
  __shared__ R sh[Sh::CPB][4][NP];
  __shared__ ts_gpu_mapped_cell<R> geo[V ? Sh::CPB : 1];
  const int t = threadIdx.x, c = t / N, i = t % N;
  const int64_t cell = (int64_t)blockIdx.x * Sh::CPB + c;
  const bool active = cell < g.n_cells;
  const int64_t c0 = active ? cell % g.cells0 : 0, c1 = active ? cell / g.cells0 : 0;
  R(*s)[NP] = sh[c];
  if (V && active) {  /* 2D: N >= 2 threads a cell, up to 8 + 4 values to load */
    for (int l = i; l < 8 + 4; l += N)
      ts_gpu_mapped_load_cell<R, K>(g, 2, c0, c1, 0, cell, l, vertices, values, geo[V ? c : 0]);
  }
  R a[N], b[N];
  ts_gpu_mapped_column_in<R, K>(g, active, 2, c0, c1, 0, i, 0, x, a, b);
#pragma unroll
  for (int q = 0; q < N; ++q) {
    s[0][q * N + i] = a[q];
    s[1][q * N + i] = b[q];
  }
  __syncthreads();
  /* direction 0: thread qx = i; the point work */
  const R *F = V ? factors : factors + (active ? cell : 0) * (int64_t)g.n_factors * NP;
#pragma unroll
  for (int q = 0; q < N; ++q) {
    R g0 = 0, g1 = 0, val = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      const R v0 = s[0][q * N + l], v1 = s[1][q * N + l];
      g0 += g.D[i * N + l] * v0;
      val += g.S[i * N + l] * v0;
      g1 += g.S[i * N + l] * v1;
    }
    const int p = q * N + i;
    if (active) {
      R f[3], m;
      if (V) {
        ts_gpu_mapped_point2<R, K>(g, geo[V ? c : 0], g.P[i], g.P[q], g.W[i] * g.W[q], f, m);
      } else {
        f[0] = F[p];
        f[1] = F[NP + p];
        f[2] = F[2 * NP + p];
        m = g.has_reaction ? F[3 * NP + p] : R(0);
      }
      a[q] = f[0] * g0 + f[1] * g1;
      b[q] = f[1] * g0 + f[2] * g1;
      val = m * val;
    } else {
      a[q] = b[q] = val = 0;
    }
    s[2][p] = val; /* s[2], s[3] are not read before this point */
    s[3][p] = a[q];
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < N; ++q) s[1][q * N + i] = b[q];
  __syncthreads();
  /* direction 0 transposed: thread i: P = D_0^T v0 + S_0^T w, Q = S_0^T v1 */
#pragma unroll
  for (int q = 0; q < N; ++q) {
    R P = 0, Q = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      const int p = q * N + l;
      P += g.D[l * N + i] * s[3][p] + g.S[l * N + i] * s[2][p];
      Q += g.S[l * N + i] * s[1][p];
    }
    a[q] = P;
    b[q] = Q;
  }
  /* direction 1 transposed in registers, and the scatter */
  if (active) ts_gpu_mapped_column_out<R, K>(g, 2, c0, c1, 0, i, 0, a, b, y);
}

template <typename R, int K>
int ts_gpu_mapped_cells(const ts_mapped_plan *pl, const R *x, R *y, char *err) {
  constexpr int N = K + 1;
  ts_gpu_mapped_args<R, K> g;
  for (int q = 0; q < N * N; ++q) {
    g.S[q] = (R)pl->shape_1d[q];
    g.D[q] = (R)pl->gradient_1d[q];
  }
  g.cells0 = pl->cells[0];
  g.cells1 = pl->cells[1];
  g.cells2 = pl->cells[2];
  g.n0 = pl->n[0];
  g.n1 = pl->n[1];
  g.n2 = pl->n[2];
  g.n_cells = pl->cells[0] * pl->cells[1] * pl->cells[2];
  g.constrained = pl->constrained != 0;
  g.has_reaction = pl->has_reaction != 0;
  g.n_factors = pl->n_factors;
  const bool vert = pl->geometry == TS_MAPPED_VERTICES;
  g.kappa_components = vert ? pl->kappa_components : 0;
  g.per_cell = vert ? pl->kappa_components + g.has_reaction : 0;
  for (int q = 0; q < N; ++q) {
    g.P[q] = vert ? (R)pl->points_1d[q] : R(0);
    g.W[q] = vert ? (R)pl->weights_1d[q] : R(0);
  }
  const R *factors = (const R *)pl->factors, *vertices = (const R *)pl->vertices,
          *values = (const R *)pl->cell_values;
  if (pl->dim == 3) {
    using Sh = ts_gpu_mapped_shape<R, 3, K>;
    const int64_t blocks = (g.n_cells + Sh::CPB - 1) / Sh::CPB;
    if (vert)
      ts_gpu_mapped3_kernel<R, K, true><<<(unsigned)blocks, Sh::THREADS>>>(g, factors, vertices, values, x, y);
    else
      ts_gpu_mapped3_kernel<R, K, false><<<(unsigned)blocks, Sh::THREADS>>>(g, factors, vertices, values, x, y);
    GPU_CHECK_LAUNCH(err, "ts_gpu_mapped3_kernel");
  } else {
    using Sh = ts_gpu_mapped_shape<R, 2, K>;
    const int64_t blocks = (g.n_cells + Sh::CPB - 1) / Sh::CPB;
    if (vert)
      ts_gpu_mapped2_kernel<R, K, true><<<(unsigned)blocks, Sh::THREADS>>>(g, factors, vertices, values, x, y);
    else
      ts_gpu_mapped2_kernel<R, K, false><<<(unsigned)blocks, Sh::THREADS>>>(g, factors, vertices, values, x, y);
    GPU_CHECK_LAUNCH(err, "ts_gpu_mapped2_kernel");
  }
  return 0;
}

/** y = A x (add = 0) or y += A x (add = 1) on device vectors of precision R; the plan is
 *  checked by the library (sizes, tables); here what is the GPU's own: the rule (K+1 Gauss
 *  points), the launch size, x != y. */
template <typename R>
int ts_gpu_mapped_apply(const ts_mapped_plan *pl, const R *x, R *y, int add, char *err) {
  const int64_t n_cells = pl->cells[0] * pl->cells[1] * pl->cells[2];
  if (pl->n_q != pl->degree + 1) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s mapped apply: n_q = %d quadrature points per "
             "direction; the GPU kernel takes degree + 1 = %d", TS_GPU_NAME, pl->n_q, pl->degree + 1);
    return TS_ERR_UNSUPPORTED;
  }
  if (pl->geometry == TS_MAPPED_VERTICES &&
      (!pl->vertices || !pl->points_1d || !pl->weights_1d ||
       (pl->kappa_components + pl->has_reaction > 0 && !pl->cell_values))) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s mapped apply: a TS_MAPPED_VERTICES plan without its "
             "vertices, Gauss rule or cell values", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  if (n_cells > 2147483647LL || pl->n[1] * pl->n[2] > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s mapped apply: %lld cells exceed the 2^31-1 blocks "
             "of one launch", TS_GPU_NAME, (long long)n_cells);
    return TS_ERR_ARG;
  }
  if (x == y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s mapped apply: x and y are the same vector "
             "(in-place apply is not supported)", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  if (!add) GPU_CHECK(err, "mapped apply (zero y)", gpuMemsetAsync(y, 0, (size_t)pl->n_dofs * sizeof(R), 0));
  int rc = 0;
  switch (pl->degree) {
    case 1: rc = ts_gpu_mapped_cells<R, 1>(pl, x, y, err); break;
    case 2: rc = ts_gpu_mapped_cells<R, 2>(pl, x, y, err); break;
    case 3: rc = ts_gpu_mapped_cells<R, 3>(pl, x, y, err); break;
    case 4: rc = ts_gpu_mapped_cells<R, 4>(pl, x, y, err); break;
    case 5: rc = ts_gpu_mapped_cells<R, 5>(pl, x, y, err); break;
    case 6: rc = ts_gpu_mapped_cells<R, 6>(pl, x, y, err); break;
    case 7: rc = ts_gpu_mapped_cells<R, 7>(pl, x, y, err); break;
    case 8: rc = ts_gpu_mapped_cells<R, 8>(pl, x, y, err); break;
    default:
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s mapped apply: degree %d not compiled (the GPU "
               "kernel is instantiated for k = 1..8)", TS_GPU_NAME, pl->degree);
      return TS_ERR_UNSUPPORTED;
  }
  if (rc) return rc;
  if (pl->constrained) {
    const int64_t rows = pl->n[1] * pl->n[2];
    ts_gpu_laplace_dirichlet_kernel<R><<<(unsigned)rows, 128>>>(pl->dim, pl->n[0], pl->n[1],
                                                                pl->n[2], x, y, add);
    GPU_CHECK_LAUNCH(err, "ts_gpu_laplace_dirichlet_kernel (mapped)");
  }
  return 0;
}

#define TS_GPU_MAPPED_INSTANTIATE(R) \
  template int ts_gpu_mapped_apply<R>(const ts_mapped_plan *, const R *, R *, int, char *);

#endif
