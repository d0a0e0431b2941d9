/* gpu-mapped.h -- the GPU operator on mapped cells (issue 13), written once for CUDA and HIP:
 * y = A x and y += A x for -div(kappa grad u) + c u on Q_k with the geometric factors of
 * ts_mapped_plan (stored per quadrature point by lib/op/mapped.c), templates over the
 * precision R, the dimension and the degree K.  Included by backends/cuda/mapped-*.cu,
 * which instantiate it (TS_GPU_MAPPED_INSTANTIATE).
 *
 * Algorithm.  One thread block holds CPB cells; in 3D thread (i, j) of a cell owns the
 * column (i, j) along direction 2 and keeps it in registers (2D: thread i, the column along
 * direction 1).  S and D are the 1D basis values and derivatives at the K+1 Gauss points, C
 * the collocation derivative there (ts_mapped_plan.collocation_1d, D = C S).
 *   3D, by collocation (ts_gpu_mapped3_kernel): u_q = S_0 S_1 S_2 u at the points (S_2 in
 *   registers, S_1 and S_0 via shared memory), the reference gradient there by C_0, C_1 (shared)
 *   and C_2 (registers), v = G_q grad u_q and w = m_q u_q per point, then back with C^T and
 *   S^T.  Twelve sweeps of N^4 multiply-adds per cell, where S and D from the DoFs take
 *   eighteen, and two shared arrays per cell instead of four.
 *   2D (ts_gpu_mapped2_kernel), from the DoFs: a = S_1 u, b = D_1 u in registers, then via
 *   shared memory g_0 = D_0 a, g_1 = S_0 b (and S_0 a, the value, for c u), the point work,
 *   and the transposed sweeps back.
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
 * for, per degree: the faster of the two as measured (bench/results/2026-11-27-h100-kershaw-
 * collocation.md: each wins at some degrees).  In 3D a trilinear cell's J is cheap per
 * point: column b of J does not depend on xi_b, so along a thread's column two columns of J
 * are linear in z and the third is constant (ts_gpu_mapped_column_jacobian). */
#ifndef TESSERA_GPU_MAPPED_H
#define TESSERA_GPU_MAPPED_H

#include "gpu-laplace.h"

/* Cells per block: about 128 threads, and the shared arrays of N^DIM values per cell (two
 * in 3D, four in 2D) within 48 KiB (the static limit). */
template <typename R, int DIM, int K>
struct ts_gpu_mapped_shape {
  static constexpr int N = K + 1;
  static constexpr int NP = DIM == 3 ? N * N * N : N * N;   /* points (and DoFs) per cell */
  static constexpr int TPC = DIM == 3 ? N * N : N;          /* threads per cell */
  static constexpr int BY_THREADS = (128 + TPC / 2) / TPC;
  static constexpr int ARRAYS = DIM == 3 ? 2 : 4;
  static constexpr int BY_SHARED = 49152 / (ARRAYS * NP * (int)sizeof(R));
  static constexpr int CPB0 = BY_THREADS < BY_SHARED ? BY_THREADS : BY_SHARED;
  static constexpr int CPB = CPB0 < 1 ? 1 : CPB0;
  static constexpr int THREADS = CPB * TPC;
};

template <typename R, int K>
struct ts_gpu_mapped_args {
  R S[(K + 1) * (K + 1)]; /* S[q][j]: basis function j at Gauss point q */
  R D[(K + 1) * (K + 1)]; /* D[q][j]: its derivative */
  R C[(K + 1) * (K + 1)]; /* C[q][l]: the collocation derivative at the points (3D) */
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

/* The thread's part of a trilinear cell's Jacobian in 3D.  Column b of J = dx/dxi is
 * independent of xi_b and bilinear in the other two coordinates, so for the points
 * (p0, p1, z) of one thread's column: J[:][2] is one vector, and J[:][0], J[:][1] are
 * linear in z, c + z e.  Vertex v = v0 + 2 v1 + 4 v2. */
template <typename R>
struct ts_gpu_mapped_column_jacobian {
  R c0[3], e0[3], c1[3], e1[3], j2[3];
};

template <typename R>
__device__ __forceinline__ void ts_gpu_mapped_column_jacobian_init(const ts_gpu_mapped_cell<R> &cd,
                                                                   R p0, R p1,
                                                                   ts_gpu_mapped_column_jacobian<R> &cj) {
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    /* edges along 0 at (v1, v2), along 1 at (v0, v2), along 2 at (v0, v1) */
    const R lo0 = (R(1) - p1) * (cd.X[1][a] - cd.X[0][a]) + p1 * (cd.X[3][a] - cd.X[2][a]);
    const R hi0 = (R(1) - p1) * (cd.X[5][a] - cd.X[4][a]) + p1 * (cd.X[7][a] - cd.X[6][a]);
    const R lo1 = (R(1) - p0) * (cd.X[2][a] - cd.X[0][a]) + p0 * (cd.X[3][a] - cd.X[1][a]);
    const R hi1 = (R(1) - p0) * (cd.X[6][a] - cd.X[4][a]) + p0 * (cd.X[7][a] - cd.X[5][a]);
    cj.c0[a] = lo0;
    cj.e0[a] = hi0 - lo0;
    cj.c1[a] = lo1;
    cj.e1[a] = hi1 - lo1;
    cj.j2[a] = (R(1) - p1) * ((R(1) - p0) * (cd.X[4][a] - cd.X[0][a]) + p0 * (cd.X[5][a] - cd.X[1][a])) +
               p1 * ((R(1) - p0) * (cd.X[6][a] - cd.X[2][a]) + p0 * (cd.X[7][a] - cd.X[3][a]));
  }
}

/* G (upper triangle 00 01 02 11 12 22) and m at the point (p0, p1, z) of the thread's
 * column, with weight w: J from the column's part, A = adj(J) = det(J) J^{-1},
 * G = w A kappa A^T / det(J), m = w det(J) c. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_point3(const ts_gpu_mapped_args<R, K> &g,
                                                     const ts_gpu_mapped_cell<R> &cd,
                                                     const ts_gpu_mapped_column_jacobian<R> &cj,
                                                     R z, R w, R *G, R &m) {
  R J[3][3];
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    J[a][0] = cj.c0[a] + z * cj.e0[a];
    J[a][1] = cj.c1[a] + z * cj.e1[a];
    J[a][2] = cj.j2[a];
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
  m = g.has_reaction ? w * det * cd.kc[g.kappa_components] : R(0);
  if (g.kappa_components == 6) { /* the tensor: G = s A (kappa A^T) */
    const R k[3][3] = {{cd.kc[0], cd.kc[1], cd.kc[2]}, {cd.kc[1], cd.kc[3], cd.kc[4]},
                       {cd.kc[2], cd.kc[4], cd.kc[5]}};
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
    return;
  }
  /* kappa = 1 or a scalar: G = (w kappa / det) A A^T */
  const R s = (g.kappa_components == 1 ? w * cd.kc[0] : w) / det;
  G[0] = s * (A[0][0] * A[0][0] + A[0][1] * A[0][1] + A[0][2] * A[0][2]);
  G[1] = s * (A[0][0] * A[1][0] + A[0][1] * A[1][1] + A[0][2] * A[1][2]);
  G[2] = s * (A[0][0] * A[2][0] + A[0][1] * A[2][1] + A[0][2] * A[2][2]);
  G[3] = s * (A[1][0] * A[1][0] + A[1][1] * A[1][1] + A[1][2] * A[1][2]);
  G[4] = s * (A[1][0] * A[2][0] + A[1][1] * A[2][1] + A[1][2] * A[2][2]);
  G[5] = s * (A[2][0] * A[2][0] + A[2][1] * A[2][1] + A[2][2] * A[2][2]);
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

/* 2D: the thread's column along direction 1, gathered (Dirichlet DoFs and inactive threads
 * as zero) and taken to the points in registers: a = S u, b = D u. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_column_in(const ts_gpu_mapped_args<R, K> &g, bool active,
                                                        int64_t c0, int64_t c1, int i,
                                                        const R *__restrict__ x, R *a, R *b) {
  constexpr int N = K + 1;
  R u[N];
#pragma unroll
  for (int l = 0; l < N; ++l) {
    const int64_t d = active ? ts_gpu_mapped_dof<R, K>(g, c0, c1, 0, i, l, 0, 2) : -1;
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

/* 2D: direction 1 transposed in registers, out = S^T a + D^T b, added into y (not the
 * Dirichlet DoFs). */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_mapped_column_out(const ts_gpu_mapped_args<R, K> &g,
                                                         int64_t c0, int64_t c1, int i,
                                                         const R *a, const R *b, R *__restrict__ y) {
  constexpr int N = K + 1;
#pragma unroll
  for (int l = 0; l < N; ++l) {
    R out = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) out += g.S[q * N + l] * a[q] + g.D[q * N + l] * b[q];
    const int64_t d = ts_gpu_mapped_dof<R, K>(g, c0, c1, 0, i, l, 0, 2);
    if (d >= 0) ts_gpu_atomic_add(&y[d], out);
  }
}

/* One sweep of a 1D matrix over the cell's shared array s ([z][y][x], N per direction) for
 * the thread's (i, j), every z: out[z] = sum_l M[r][l] s[z][y(l)][x(l)] with (x, y) = (l, j)
 * along direction 0 and (i, l) along direction 1; M row r (T = false) or column r (T = true,
 * the transposed matrix). */
template <typename R, int N, int DIR, bool T>
__device__ __forceinline__ void ts_gpu_mapped_sweep(const R *M, int r, const R *s, int i, int j,
                                                    R *out) {
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R sum = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      const R m = T ? M[l * N + r] : M[r * N + l];
      sum += m * (DIR == 0 ? s[(z * N + j) * N + l] : s[(z * N + l) * N + i]);
    }
    out[z] = sum;
  }
}

/* The thread's column of N values into the cell's shared array at [z][j][i]. */
template <typename R, int N>
__device__ __forceinline__ void ts_gpu_mapped_put(R *s, int i, int j, const R *a) {
#pragma unroll
  for (int z = 0; z < N; ++z) s[(z * N + j) * N + i] = a[z];
}

/* 3D, by collocation at the Gauss points (ts_mapped_plan.collocation_1d): the values u_q at
 * the points by S in each direction, the reference gradient there by C = collocation_1d in
 * each direction, v = G_q grad u_q, w = m_q u_q, and back: C^T in each direction, then S^T.
 * Twelve sweeps of N^4 multiply-adds per cell (six forward, six back) where S and D from the
 * DoFs take eighteen, and only two shared arrays.  Thread (i, j) of a cell keeps direction
 * 2 in registers: its column of DoFs, then of points (i, j, z). */
template <typename R, int K, bool V>
__global__ void __launch_bounds__((ts_gpu_mapped_shape<R, 3, K>::THREADS))
ts_gpu_mapped3_kernel(const ts_gpu_mapped_args<R, K> g, const R *__restrict__ factors,
                      const R *__restrict__ vertices, const R *__restrict__ values,
                      const R *__restrict__ x, R *__restrict__ y) {
  using Sh = ts_gpu_mapped_shape<R, 3, K>;
  constexpr int N = K + 1, NP = Sh::NP;
  __shared__ R sh[Sh::CPB][2][NP];
  __shared__ ts_gpu_mapped_cell<R> geo[V ? Sh::CPB : 1];
  const int t = threadIdx.x, c = t / (N * N), j = (t / N) % N, i = t % N;
  const int64_t cell = (int64_t)blockIdx.x * Sh::CPB + c;
  const bool active = cell < g.n_cells;
  const int64_t c0 = active ? cell % g.cells0 : 0, c1 = active ? cell / g.cells0 % g.cells1 : 0,
                c2 = active ? cell / g.cells0 / g.cells1 : 0;
  R *s0 = sh[c][0], *s1 = sh[c][1];
  if (V && active) /* N^2 >= 4 threads a cell, up to 24 + 7 values to load */
    for (int l = j * N + i; l < 24 + 7; l += N * N)
      ts_gpu_mapped_load_cell<R, K>(g, 3, c0, c1, c2, cell, l, vertices, values, geo[V ? c : 0]);
  /* the column of DoFs (i, j, l), then direction 2 to the points in registers */
  R u[N], v[N];
#pragma unroll
  for (int l = 0; l < N; ++l) {
    const int64_t d = active ? ts_gpu_mapped_dof<R, K>(g, c0, c1, c2, i, j, l, 3) : -1;
    u[l] = d < 0 ? R(0) : x[d];
  }
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R sum = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) sum += g.S[z * N + l] * u[l];
    v[z] = sum;
  }
  ts_gpu_mapped_put<R, N>(s0, i, j, v);
  __syncthreads();
  ts_gpu_mapped_sweep<R, N, 1, false>(g.S, j, s0, i, j, u); /* thread (i, point j) */
  ts_gpu_mapped_put<R, N>(s1, i, j, u);
  __syncthreads();
  ts_gpu_mapped_sweep<R, N, 0, false>(g.S, i, s1, i, j, v); /* point (i, j): v = u_q */
  ts_gpu_mapped_put<R, N>(s0, i, j, v); /* s0 was last read before the barrier above */
  __syncthreads();
  /* the reference gradient at the points (i, j, z), G_q and m_q, in place: w0, w1, w2 */
  R w0[N], w1[N], w2[N];
  ts_gpu_mapped_sweep<R, N, 0, false>(g.C, i, s0, i, j, w0);
  ts_gpu_mapped_sweep<R, N, 1, false>(g.C, j, s0, i, j, w1);
  ts_gpu_mapped_column_jacobian<R> cj;
  if (V && active) ts_gpu_mapped_column_jacobian_init<R>(geo[V ? c : 0], g.P[i], g.P[j], cj);
  const R *F = V ? factors : factors + (active ? cell : 0) * (int64_t)g.n_factors * NP;
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R g2 = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) g2 += g.C[z * N + l] * v[l];
    const int p = (z * N + j) * N + i;
    R f[6], m = 0;
    if (!active) {
#pragma unroll
      for (int e = 0; e < 6; ++e) f[e] = 0;
    } else if (V) {
      ts_gpu_mapped_point3<R, K>(g, geo[V ? c : 0], cj, g.P[z], g.W[i] * g.W[j] * g.W[z], f, m);
    } else {
#pragma unroll
      for (int e = 0; e < 6; ++e) f[e] = F[e * NP + p];
      m = g.has_reaction ? F[6 * NP + p] : R(0);
    }
    const R g0 = w0[z], g1 = w1[z];
    w0[z] = f[0] * g0 + f[1] * g1 + f[2] * g2;
    w1[z] = f[1] * g0 + f[3] * g1 + f[4] * g2;
    w2[z] = f[2] * g0 + f[4] * g1 + f[5] * g2;
    u[z] = m; /* m_q, until v is no longer needed for g2 */
  }
  /* back: r = m u_q + C_2^T w2 (registers) + C_0^T w0 + C_1^T w1 (shared) */
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R sum = u[z] * v[z];
#pragma unroll
    for (int l = 0; l < N; ++l) sum += g.C[l * N + z] * w2[l];
    u[z] = sum;
  }
  __syncthreads(); /* every read of s0 and s1 is done */
  ts_gpu_mapped_put<R, N>(s0, i, j, w0);
  ts_gpu_mapped_put<R, N>(s1, i, j, w1);
  __syncthreads();
  ts_gpu_mapped_sweep<R, N, 0, true>(g.C, i, s0, i, j, w0);
  ts_gpu_mapped_sweep<R, N, 1, true>(g.C, j, s1, i, j, w1);
#pragma unroll
  for (int z = 0; z < N; ++z) u[z] += w0[z] + w1[z];
  __syncthreads();
  ts_gpu_mapped_put<R, N>(s0, i, j, u);
  __syncthreads();
  ts_gpu_mapped_sweep<R, N, 0, true>(g.S, i, s0, i, j, v); /* DoF i, point j */
  ts_gpu_mapped_put<R, N>(s1, i, j, v); /* s1 was last read before the barrier above */
  __syncthreads();
  ts_gpu_mapped_sweep<R, N, 1, true>(g.S, j, s1, i, j, u); /* DoFs (i, j), point z */
  /* direction 2 transposed in registers, and the scatter */
  if (!active) return;
#pragma unroll
  for (int l = 0; l < N; ++l) {
    R out = 0;
#pragma unroll
    for (int z = 0; z < N; ++z) out += g.S[z * N + l] * u[z];
    const int64_t d = ts_gpu_mapped_dof<R, K>(g, c0, c1, c2, i, j, l, 3);
    if (d >= 0) ts_gpu_atomic_add(&y[d], out);
  }
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
  ts_gpu_mapped_column_in<R, K>(g, active, c0, c1, i, x, a, b);
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
  if (active) ts_gpu_mapped_column_out<R, K>(g, c0, c1, i, a, b, y);
}

template <typename R, int K>
int ts_gpu_mapped_cells(const ts_mapped_plan *pl, const R *x, R *y, char *err) {
  constexpr int N = K + 1;
  ts_gpu_mapped_args<R, K> g;
  for (int q = 0; q < N * N; ++q) {
    g.S[q] = (R)pl->shape_1d[q];
    g.D[q] = (R)pl->gradient_1d[q];
    g.C[q] = pl->dim == 3 ? (R)pl->collocation_1d[q] : R(0);
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
  if (pl->dim == 3 && !pl->collocation_1d) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s mapped apply: a 3D plan without collocation_1d",
             TS_GPU_NAME);
    return TS_ERR_ARG;
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
