/* gpu-laplace.h -- the GPU matrix-free Laplacian (Q_k, structured box, 2D/3D), written once
 * for CUDA and HIP: y = A x, y += A x and diag(A) for ts_laplace_plan, templates over the
 * precision R and the degree K.  Included by backends/cuda/laplace-*.cu and
 * backends/hip/laplace-*.cpp, which instantiate it (TS_GPU_LAPLACE_INSTANTIATE).
 *
 * Algorithm (paper 002, sections 3-4).  One thread block holds CPB(K) consecutive cells of
 * a row of cells along direction 0; linear thread t = i + N (c + CPB j) (N = K+1) owns the
 * column (i, j) of cell c along the last direction and keeps it in registers.  The cell
 * matrix A_K = s0 M2 M1 K0 + s1 M2 K1 M0 + s2 K2 M1 M0 (Kronecker factors, direction 2
 * outermost) is applied by sum factorization in three sweeps:
 *   direction 2, in registers:       a = M2 x,  b = K2 x
 *   direction 1, via shared memory:  P = s1 K1 a + s2 M1 b,  Q = s0 M1 a
 *   direction 0, via shared memory:  y = M0 P + K0 Q
 * (2D: a = M1 x, b = K1 x in registers, y = s0 K0 a + s1 M0 b via shared memory.)  Shared
 * memory is laid out [z][j][c][i], the order of the linear thread index, so a warp's stores
 * and the direction-1 loads hit consecutive words and the direction-0 loads are broadcasts:
 * no bank conflicts.  The 1D matrices are kernel parameters (constant bank, uniform
 * loads).  The cells' results are added into y with atomics (y is zeroed first when
 * add = 0); Dirichlet DoFs (plan->constrained) are read as zero and skipped, and a second
 * kernel sets their rows to y = x (y += x).  In 3D at K <= 2 a block instead walks a chunk
 * of cells along direction 2 and writes most results with plain stores
 * (ts_gpu_laplace3_col_kernel).
 *
 * Accuracy (doc/accuracy.md).  The rows of the 1D stiffness matrices sum to exactly 0
 * (lib/poly/exact-sums.c), so K v = K (v - c) for any constant c.  In double precision and
 * from degree TS_GPU_LAPLACE_DIFFERENCE_MIN_DEGREE on, every stiffness sweep is applied to
 * v - v_0 (the first entry of the line): its rounding is then relative to the variation of v
 * over the cell, not to v, which removes an error floor that grows like h^-2 (issue 19; the
 * omp backend does the same, backends/omp/laplace-kernel.h).  Single precision only serves
 * the mixed-precision V-cycle, whose rounding (1e-7) is far above that floor and whose
 * result the outer double residual corrects, so it keeps the plain form. */
#ifndef TESSERA_GPU_LAPLACE_H
#define TESSERA_GPU_LAPLACE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gpu-runtime.h"

/* Cells per thread block: about 128 threads ((K+1)^2 per cell in 3D, K+1 in 2D). */
template <int DIM, int K>
struct ts_gpu_lap_shape {
  static constexpr int N = K + 1;
  static constexpr int TPC = DIM == 3 ? N * N : N; /* threads per cell */
  static constexpr int CPB0 = (128 + TPC / 2) / TPC;
  static constexpr int CPB = CPB0 < 1 ? 1 : CPB0;
  static constexpr int THREADS = CPB * TPC;
};

/* The kernel parameters: 1D reference matrices (row-major) and the scales, in precision R. */
template <typename R, int K>
struct ts_gpu_lap_args {
  R M[(K + 1) * (K + 1)];
  R S[(K + 1) * (K + 1)];
  /* even-odd forms (rows j <= K/2): e[j][b] = (A[j][b] + A[j][K-b]) / 2 for b < (K+1)/2,
   * e[j][(K+1)/2] = A[j][K/2] when K+1 is odd, o[j][b] = (A[j][b] - A[j][K-b]) / 2; then
   * (A v)_j = E + O and (A v)_{K-j} = E - O with E = e ve, O = o vo (ve = v_b + v_{K-b},
   * vo = v_b - v_{K-b}; the middle entry once).  Valid for centro-symmetric A.  Copied
   * from the plan's ts_even_odd_1d forms (lib/op/laplace.c). */
  R eM[(K + 2) / 2][(K + 1) / 2 + 1], oM[(K + 2) / 2][(K + 1) / 2 + 1];
  R eS[(K + 2) / 2][(K + 1) / 2 + 1], oS[(K + 2) / 2][(K + 1) / 2 + 1];
  R s0, s1, s2;
  int64_t cells0, cells1, cells2, n0, n1, n2;
  int constrained;
  int add; /* column kernel: y += A x (else y = A x) */
  int zc;  /* column kernel: cells per column chunk along direction 2 */
};

template <typename R>
__device__ __forceinline__ void ts_gpu_atomic_add(R *p, R v) {
  atomicAdd(p, v);
}

#ifndef TS_GPU_LAPLACE_DIFFERENCE_MIN_DEGREE
#define TS_GPU_LAPLACE_DIFFERENCE_MIN_DEGREE 3
#endif

/* Whether the stiffness sweeps of degree K in precision R use differences (see the top). */
template <typename R, int K>
struct ts_gpu_lap_diff {
  static constexpr bool on = sizeof(R) == 8 && K >= TS_GPU_LAPLACE_DIFFERENCE_MIN_DEGREE;
};

/* v - c where differences are used (D), else v. */
template <bool D, typename R>
__device__ __forceinline__ R ts_gpu_dif(R v, R c) {
  if constexpr (D) return v - c;
  else return v;
}

template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_lap_shape<3, K>::THREADS))
    ts_gpu_laplace3_kernel(const ts_gpu_lap_args<R, K> g, const R *__restrict__ x,
                           R *__restrict__ y) {
  using S = ts_gpu_lap_shape<3, K>;
  constexpr int N = S::N, CPB = S::CPB;
  __shared__ R sa[N * N * CPB * N], sb[N * N * CPB * N];
  const int t = threadIdx.x;
  const int i = t % N, c = (t / N) % CPB, j = t / (N * CPB);
  const int64_t rowblocks = (g.cells0 + CPB - 1) / CPB;
  const int64_t b = blockIdx.x;
  const int64_t c0 = (b % rowblocks) * CPB + c, rest = b / rowblocks;
  const int64_t c1 = rest % g.cells1, c2 = rest / g.cells1;
  const bool active = c0 < g.cells0;
  const int64_t g0 = c0 * K + i, g1 = c1 * K + j;
  const int64_t base = g0 + g.n0 * (g1 + g.n1 * (c2 * K));
  const int64_t zs = g.n0 * g.n1;
  const bool bnd01 = g.constrained && (g0 == 0 || g0 == g.n0 - 1 || g1 == 0 || g1 == g.n1 - 1);
  constexpr bool D = ts_gpu_lap_diff<R, K>::on;
  R u[N], a[N], bb[N];
#pragma unroll
  for (int z = 0; z < N; ++z) u[z] = active ? x[base + z * zs] : R(0);
  if (g.constrained) {
    if (bnd01)
#pragma unroll
      for (int z = 0; z < N; ++z) u[z] = R(0);
    if (c2 == 0) u[0] = R(0);
    if (c2 == g.cells2 - 1) u[K] = R(0);
  }
  /* direction 2 in registers */
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R sm = 0, sk = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) {
      sm += g.M[z * N + q] * u[q];
      sk += g.S[z * N + q] * ts_gpu_dif<D>(u[q], u[0]);
    }
    a[z] = sm;
    bb[z] = sk;
  }
  constexpr int ZS = N * CPB * N; /* shared stride between z planes */
  const int me = t;              /* = i + N (c + CPB j): [z][j][c][i] */
#pragma unroll
  for (int z = 0; z < N; ++z) {
    sa[z * ZS + me] = a[z];
    sb[z * ZS + me] = bb[z];
  }
  __syncthreads();
  /* direction 1: P = s1 K1 a + s2 M1 b, Q = s0 M1 a, with the rows j of the 1D matrices
   * in registers (a run-time row of the constant bank would serialize the warp) */
  const int col = i + N * c; /* (c, i) part of the index */
  R mr[N], sr[N];
#pragma unroll
  for (int q = 0; q < N; ++q) {
    mr[q] = g.M[j * N + q];
    sr[q] = g.S[j * N + q];
  }
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R p = 0, q = 0, r = 0;
    const R a0 = sa[z * ZS + col];
#pragma unroll
    for (int jj = 0; jj < N; ++jj) {
      const R av = sa[z * ZS + jj * N * CPB + col], bv = sb[z * ZS + jj * N * CPB + col];
      p += sr[jj] * ts_gpu_dif<D>(av, a0);
      r += mr[jj] * bv;
      q += mr[jj] * av;
    }
    a[z] = g.s1 * p + g.s2 * r;
    bb[z] = g.s0 * q;
  }
  __syncthreads();
#pragma unroll
  for (int z = 0; z < N; ++z) {
    sa[z * ZS + me] = a[z];
    sb[z * ZS + me] = bb[z];
  }
  __syncthreads();
  /* direction 0: y = M0 P + K0 Q (rows i of the 1D matrices in registers) */
  const int row = N * (c + CPB * j);
#pragma unroll
  for (int q = 0; q < N; ++q) {
    mr[q] = g.M[i * N + q];
    sr[q] = g.S[i * N + q];
  }
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R s = 0;
    const R q0 = sb[z * ZS + row];
#pragma unroll
    for (int ii = 0; ii < N; ++ii)
      s += mr[ii] * sa[z * ZS + row + ii] + sr[ii] * ts_gpu_dif<D>(sb[z * ZS + row + ii], q0);
    u[z] = s;
  }
  if (!active || bnd01) return;
#pragma unroll
  for (int z = 0; z < N; ++z) {
    if (g.constrained && ((z == 0 && c2 == 0) || (z == K && c2 == g.cells2 - 1))) continue;
    ts_gpu_atomic_add(y + base + z * zs, u[z]);
  }
}

/* Even-odd line operation: from v (N values, compile-time indices) the pair of outputs
 * (A v)_j (returned in lo) and (A v)_{K-j} (in hi) for the rows e, o of the even-odd form. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_eo_pair(const R *e, const R *o, const R *ve, const R *vo,
                                               R vm, R &lo, R &hi) {
  constexpr int H = (K + 1) / 2;
  R E = 0, O = 0;
#pragma unroll
  for (int b = 0; b < H; ++b) {
    E += e[b] * ve[b];
    O += o[b] * vo[b];
  }
  if ((K + 1) & 1) E += e[H] * vm;
  lo = E + O;
  hi = E - O;
}

/* The rows a of the even-odd forms in registers (a run-time row of the constant bank read
 * directly in the sweep would serialize the warp). */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_eo_rows(const ts_gpu_lap_args<R, K> &g, int a, R *em,
                                               R *om, R *es, R *os) {
#pragma unroll
  for (int q = 0; q <= K / 2; ++q) {
    em[q] = g.eM[a][q];
    om[q] = g.oM[a][q];
    es[q] = g.eS[a][q];
    os[q] = g.oS[a][q];
  }
}

/* Direction 2 of the 3D even-odd kernels, in registers: a = M2 u, b = K2 u (uniform
 * constant-bank rows) into the thread's slot t of every plane of sa, sb; the even part of
 * the differences u - u_0 for K2 (the odd part is the same). */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_eo_sweep2(const ts_gpu_lap_args<R, K> &g, const R *u,
                                                 R *sa, R *sb, int t) {
  using S = ts_gpu_lap_shape<3, K>;
  constexpr int N = S::N, H = N / 2, HE = (N + 1) / 2, ZS = N * S::CPB * N;
  constexpr bool D = ts_gpu_lap_diff<R, K>::on;
  R ue[H + 1], uo[H + 1], ud[H + 1];
#pragma unroll
  for (int q = 0; q < H; ++q) {
    ue[q] = u[q] + u[K - q];
    uo[q] = u[q] - u[K - q];
    ud[q] = ts_gpu_dif<D>(u[q], u[0]) + ts_gpu_dif<D>(u[K - q], u[0]);
  }
  const R um = u[H], umd = ts_gpu_dif<D>(u[H], u[0]);
#pragma unroll
  for (int z = 0; z < HE; ++z) {
    R lo, hi;
    ts_gpu_eo_pair<R, K>(g.eM[z], g.oM[z], ue, uo, um, lo, hi);
    sa[z * ZS + t] = lo;
    sa[(K - z) * ZS + t] = hi;
    ts_gpu_eo_pair<R, K>(g.eS[z], g.oS[z], ud, uo, umd, lo, hi);
    sb[z * ZS + t] = lo;
    sb[(K - z) * ZS + t] = hi;
  }
}

/* Direction 1 of the 3D even-odd kernels by the thread (i, c, j < HE) (col = i + N c):
 * P = s1 K1 a + s2 M1 b, Q = s0 M1 a at the rows j and K-j of every plane, into sp, sq. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_eo_sweep1(const ts_gpu_lap_args<R, K> &g, const R *sa,
                                                 const R *sb, R *sp, R *sq, int col, int j) {
  using S = ts_gpu_lap_shape<3, K>;
  constexpr int N = S::N, CPB = S::CPB, H = N / 2, ZS = N * CPB * N;
  constexpr bool D = ts_gpu_lap_diff<R, K>::on;
  R em[H + 1], om[H + 1], es[H + 1], os[H + 1];
  ts_gpu_eo_rows<R, K>(g, j, em, om, es, os);
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R ae[H + 1], ao[H + 1], ad[H + 1], be[H + 1], bo[H + 1];
    const R ac = sa[z * ZS + col]; /* a_0, for the differences of K1 a */
#pragma unroll
    for (int q = 0; q < H; ++q) {
      const R a0 = sa[z * ZS + q * N * CPB + col], a1 = sa[z * ZS + (K - q) * N * CPB + col];
      const R b0 = sb[z * ZS + q * N * CPB + col], b1 = sb[z * ZS + (K - q) * N * CPB + col];
      ae[q] = a0 + a1;
      ao[q] = a0 - a1;
      ad[q] = ts_gpu_dif<D>(a0, ac) + ts_gpu_dif<D>(a1, ac);
      be[q] = b0 + b1;
      bo[q] = b0 - b1;
    }
    const R am = (N & 1) ? sa[z * ZS + H * N * CPB + col] : R(0);
    const R bm = (N & 1) ? sb[z * ZS + H * N * CPB + col] : R(0);
    R sl, sh, ml, mh, ql, qh;
    ts_gpu_eo_pair<R, K>(es, os, ad, ao, ts_gpu_dif<D>(am, ac), sl, sh); /* K1 a */
    ts_gpu_eo_pair<R, K>(em, om, be, bo, bm, ml, mh); /* M1 b */
    ts_gpu_eo_pair<R, K>(em, om, ae, ao, am, ql, qh); /* M1 a */
    const int lo = z * ZS + j * N * CPB + col, hi = z * ZS + (K - j) * N * CPB + col;
    sp[lo] = g.s1 * sl + g.s2 * ml;
    sq[lo] = g.s0 * ql;
    sp[hi] = g.s1 * sh + g.s2 * mh; /* the middle row (j = K-j) writes the same value */
    sq[hi] = g.s0 * qh;
  }
}

/* Direction 0 of the 3D even-odd kernels on one line (P, Q: its N values in shared
 * memory), with the rows p of the even-odd forms: y = M0 P + K0 Q at i = p (lo) and
 * i = K-p (hi). */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_eo_line0(const R *em, const R *om, const R *es,
                                                const R *os, const R *P, const R *Q, R &lo,
                                                R &hi) {
  constexpr int N = K + 1, H = N / 2;
  constexpr bool D = ts_gpu_lap_diff<R, K>::on;
  R pe[H + 1], po[H + 1], qe[H + 1], qo[H + 1];
  const R qc = Q[0]; /* Q_0, for the differences of K0 Q */
#pragma unroll
  for (int q = 0; q < H; ++q) {
    const R p0 = P[q], p1 = P[K - q], q0 = Q[q], q1 = Q[K - q];
    pe[q] = p0 + p1;
    po[q] = p0 - p1;
    qe[q] = ts_gpu_dif<D>(q0, qc) + ts_gpu_dif<D>(q1, qc);
    qo[q] = q0 - q1;
  }
  const R pm = (N & 1) ? P[H] : R(0);
  const R qm = (N & 1) ? ts_gpu_dif<D>(Q[H], qc) : R(0);
  R ml, mh, kl, kh;
  ts_gpu_eo_pair<R, K>(em, om, pe, po, pm, ml, mh); /* M0 P */
  ts_gpu_eo_pair<R, K>(es, os, qe, qo, qm, kl, kh); /* K0 Q */
  lo = ml + kl;
  hi = mh + kh;
}

/* The 3D kernel with the even-odd decomposition (centro-symmetric 1D matrices, the
 * Gauss-Lobatto case): direction 2 in registers with half the multiply-adds; direction 1
 * by the threads j <= K/2 only, each producing the outputs j and K-j from one pass over
 * the column (half the shared-memory loads, which bound this kernel, and half the
 * multiply-adds), written to a second pair of shared arrays; direction 0 by the
 * threads packed as (p, c, j), p <= K/2, each producing the outputs i = p and i = K-p
 * (half the load instructions and multiply-adds of that sweep too). */
template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_lap_shape<3, K>::THREADS))
    ts_gpu_laplace3_eo_kernel(const ts_gpu_lap_args<R, K> g, const R *__restrict__ x,
                              R *__restrict__ y) {
  using S = ts_gpu_lap_shape<3, K>;
  constexpr int N = S::N, CPB = S::CPB, H = N / 2, HE = (N + 1) / 2;
  constexpr int ZS = N * CPB * N; /* shared stride between z planes */
  __shared__ R sa[N * N * CPB * N], sb[N * N * CPB * N], sp[N * N * CPB * N],
      sq[N * N * CPB * N];
  const int t = threadIdx.x;
  const int i = t % N, c = (t / N) % CPB, j = t / (N * CPB);
  const int64_t rowblocks = (g.cells0 + CPB - 1) / CPB;
  const int64_t b = blockIdx.x;
  const int64_t c0 = (b % rowblocks) * CPB + c, rest = b / rowblocks;
  const int64_t c1 = rest % g.cells1, c2 = rest / g.cells1;
  const bool active = c0 < g.cells0;
  const int64_t g0 = c0 * K + i, g1 = c1 * K + j;
  const int64_t base = g0 + g.n0 * (g1 + g.n1 * (c2 * K));
  const int64_t zs = g.n0 * g.n1;
  const bool bnd01 = g.constrained && (g0 == 0 || g0 == g.n0 - 1 || g1 == 0 || g1 == g.n1 - 1);
  R u[N];
#pragma unroll
  for (int z = 0; z < N; ++z) u[z] = active ? x[base + z * zs] : R(0);
  if (g.constrained) {
    if (bnd01)
#pragma unroll
      for (int z = 0; z < N; ++z) u[z] = R(0);
    if (c2 == 0) u[0] = R(0);
    if (c2 == g.cells2 - 1) u[K] = R(0);
  }
  ts_gpu_eo_sweep2<R, K>(g, u, sa, sb, t);
  __syncthreads();
  if (j < HE) ts_gpu_eo_sweep1<R, K>(g, sa, sb, sp, sq, i + N * c, j);
  __syncthreads();
  /* direction 0, even-odd, by the first HE N CPB threads (packed into as few warps as
   * possible): thread (p, c, j) produces y at i = p and i = K-p for every z */
  if (t >= HE * N * CPB) return;
  {
    const int p = t % HE, r = t / HE, cc = r % CPB, jj = r / CPB;
    const int64_t cc0 = (b % rowblocks) * CPB + cc;
    if (cc0 >= g.cells0) return;
    const int64_t gj = c1 * K + jj;
    const bool bj = g.constrained && (gj == 0 || gj == g.n1 - 1);
    if (bj) return;
    R em[H + 1], om[H + 1], es[H + 1], os[H + 1];
    ts_gpu_eo_rows<R, K>(g, p, em, om, es, os);
    const int row = N * (cc + CPB * jj);
    const int64_t glo = cc0 * K + p, ghi = cc0 * K + (K - p);
    const bool wlo = !(g.constrained && (glo == 0 || glo == g.n0 - 1));
    const bool whi = p != K - p && !(g.constrained && (ghi == 0 || ghi == g.n0 - 1));
    const int64_t rbase = g.n0 * (gj + g.n1 * (c2 * K));
#pragma unroll
    for (int z = 0; z < N; ++z) {
      if (g.constrained && ((z == 0 && c2 == 0) || (z == K && c2 == g.cells2 - 1))) continue;
      R lo, hi;
      ts_gpu_eo_line0<R, K>(em, om, es, os, sp + z * ZS + row, sq + z * ZS + row, lo, hi);
      R *yz = y + rbase + z * zs;
      if (wlo) ts_gpu_atomic_add(yz + glo, lo);
      if (whi) ts_gpu_atomic_add(yz + ghi, hi);
    }
  }
}

/* Adds v into y[q] with an atomic (shared is set: another block adds into q too; y[q] was
 * zeroed first when add = 0) or with a plain store (this block is q's only writer). */
template <typename R>
__device__ __forceinline__ void ts_gpu_put(R *q, R v, bool shared, int add) {
  if (shared) ts_gpu_atomic_add(q, v);
  else if (add) *q += v;
  else *q = v;
}

/* The column kernel serves the degrees K <= TS_GPU_LAPLACE_COLUMN_MAX_DEGREE, where a DoF
 * receives many cell contributions ((K+1)^3 / K^3 atomics on average: 8 at K = 1, 3.4 at
 * K = 2); from K = 3 on the one-layer kernel above is faster (its atomics and the zeroing
 * of y are not what bounds it: shared memory and latency are; H200, 2026-11-26,
 * bench/results/2026-11-26-h200-laplace-column.md).  TS_GPU_LAPLACE_COLUMN_CELLS: the
 * chunk walked by one block (8 beat 4, 16 and the whole column there). */
#define TS_GPU_LAPLACE_COLUMN_MAX_DEGREE 2
#define TS_GPU_LAPLACE_COLUMN_CELLS 8

/* The 3D even-odd kernel walking a column of cells: the block holds CPB cells along
 * direction 0 (threads and sweeps as in ts_gpu_laplace3_eo_kernel) and walks g.zc cells
 * along direction 2, so that most results are written once with a plain store:
 *  - z-faces: the top plane (z = K) of a cell's result stays in the direction-0 threads'
 *    registers (clo, chi) and is added into the bottom plane (z = 0) of the next cell; the
 *    x values of that plane are kept too (u[K] becomes the next u[0]);
 *  - x-faces inside the block: the thread (p = 0, cc) passes its column i = K through
 *    shared memory (sx) to (p = 0, cc + 1), which adds it to its column i = 0;
 *  - only the DoFs that other blocks write too are added with atomics: the block's
 *    y-faces (j = 0, K towards another row of cells), its first and last x-face, and the
 *    bottom and top planes of the chunk.  ts_gpu_laplace_zero_faces_kernel zeroes those (and
 *    little more) when add = 0, instead of all of y. */
template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_lap_shape<3, K>::THREADS))
    ts_gpu_laplace3_col_kernel(const ts_gpu_lap_args<R, K> g, const R *__restrict__ x,
                               R *__restrict__ y) {
  using S = ts_gpu_lap_shape<3, K>;
  constexpr int N = S::N, CPB = S::CPB, H = N / 2, HE = (N + 1) / 2;
  constexpr int ZS = N * CPB * N; /* shared stride between z planes */
  __shared__ R sa[N * ZS], sb[N * ZS], sp[N * ZS], sq[N * ZS], sx[N * N * CPB];
  const int t = threadIdx.x;
  const int i = t % N, c = (t / N) % CPB, j = t / (N * CPB);
  /* cell and DoF coordinates in int (a launch has fewer than 2^31 blocks, a direction fewer
   * than 2^31 DoFs), only the flat DoF indices in int64_t */
  const int cells0 = (int)g.cells0, cells1 = (int)g.cells1, cells2 = (int)g.cells2;
  const int n0 = (int)g.n0, n1 = (int)g.n1, n2 = (int)g.n2;
  const int rowblocks = (cells0 + CPB - 1) / CPB;
  const int b = blockIdx.x, cb = b % rowblocks, rest = b / rowblocks;
  const int c1 = rest % cells1, z0 = rest / cells1 * g.zc;
  const int z1 = z0 + g.zc < cells2 ? z0 + g.zc : cells2;
  const int64_t zs = g.n0 * g.n1;
  /* direction-2 role: the column (i, j) of cell c */
  const int c0 = cb * CPB + c, g0 = c0 * K + i, g1 = c1 * K + j;
  const bool bnd01 = g.constrained && (g0 == 0 || g0 == n0 - 1 || g1 == 0 || g1 == n1 - 1);
  const bool load = c0 < cells0 && !bnd01; /* else the column is read as zero */
  const R *xc = x + g0 + g.n0 * (g1 + g.n1 * ((int64_t)z0 * K));
  /* direction-0 role (the first HE N CPB threads): the columns i = p and i = K-p of the
   * row (cc, jj), as in ts_gpu_laplace3_eo_kernel */
  const int p = t % HE, r = t / HE, cc = r % CPB, jj = r / CPB;
  const int cc0 = cb * CPB + cc, gj = c1 * K + jj;
  const bool w0 = t < HE * N * CPB && cc0 < cells0 && !(g.constrained && (gj == 0 || gj == n1 - 1));
  const int glo = cc0 * K + p, ghi = cc0 * K + (K - p);
  /* i = K of a cell followed by another of the block goes to that cell (sx) */
  const bool handed = p == 0 && cc < CPB - 1 && cc0 < cells0 - 1;
  const bool wlo = w0 && !(g.constrained && (glo == 0 || glo == n0 - 1));
  const bool whi = w0 && p != K - p && !handed && !(g.constrained && (ghi == 0 || ghi == n0 - 1));
  /* shared with the block before / after along direction 0, or along direction 1 */
  const bool alo = p == 0 && cc == 0 && cb > 0;
  const bool ahi = p == 0 && cc == CPB - 1 && cc0 < cells0 - 1;
  const bool yface = (jj == 0 && c1 > 0) || (jj == K && c1 < cells1 - 1);
  R u[N];
#pragma unroll
  for (int z = 0; z < N; ++z) u[z] = load ? xc[z * zs] : R(0);
  R clo = R(0), chi = R(0); /* the previous cell's plane z = K (columns lo, hi) */
  for (int c2 = z0; c2 < z1; ++c2) {
    if (g.constrained) {
      if (c2 == 0) u[0] = R(0);
      if (c2 == cells2 - 1) u[K] = R(0); /* the last cell: no next u[0] */
    }
    ts_gpu_eo_sweep2<R, K>(g, u, sa, sb, t);
    __syncthreads();
    if (j < HE) ts_gpu_eo_sweep1<R, K>(g, sa, sb, sp, sq, i + N * c, j);
    /* the next cell's column, loaded while this cell's direction-0 sweep runs (its plane
     * z = 0 is this one's z = K, which is zeroed above only in the box's last cell) */
    if (c2 + 1 < z1) {
      xc += K * zs;
      u[0] = u[K];
#pragma unroll
      for (int z = 1; z < N; ++z) u[z] = load ? xc[z * zs] : R(0);
    }
    __syncthreads();
    /* direction 0: the cell's results of the columns lo (i = p) and hi (i = K-p), written
     * at once except the column i = 0 of a cell after another one of the block, which waits
     * for that cell's column i = K (sx) */
    const bool last = c2 == z1 - 1;
    R ylo[N]; /* the waiting column (p = 0, cc > 0) */
    if (w0) {
      R em[H + 1], om[H + 1], es[H + 1], os[H + 1];
      ts_gpu_eo_rows<R, K>(g, p, em, om, es, os);
      const int row = N * (cc + CPB * jj);
      R *yr = y + g.n0 * (gj + g.n1 * ((int64_t)c2 * K));
#pragma unroll
      for (int z = 0; z < N; ++z) {
        R lo, hi;
        ts_gpu_eo_line0<R, K>(em, om, es, os, sp + z * ZS + row, sq + z * ZS + row, lo, hi);
        /* the z-face: add the previous cell's top plane; keep this one's for the next
         * cell (the top plane is written here only at the end of the chunk) */
        if (z == 0) {
          lo += clo;
          hi += chi;
        }
        if (z == K) {
          clo = lo;
          chi = hi;
        }
        if (p == 0) sx[(z * N + jj) * CPB + cc] = hi;
        ylo[z] = lo;
        const int gz = c2 * K + z;
        if ((z == K && !last) || (g.constrained && (gz == 0 || gz == n2 - 1))) continue;
        /* the chunk's bottom and top planes are shared with the chunks below and above */
        const bool sh = yface || (z == 0 && c2 == z0 && c2 > 0) || (z == K && c2 < cells2 - 1);
        if (wlo && !(p == 0 && cc > 0)) ts_gpu_put(yr + z * zs + glo, lo, sh || alo, g.add);
        if (whi) ts_gpu_put(yr + z * zs + ghi, hi, sh || ahi, g.add);
      }
    }
    __syncthreads();
    if (wlo && p == 0 && cc > 0) {
      /* the x-face: add the column i = K of the cell before in the block */
      R *yr = y + g.n0 * (gj + g.n1 * ((int64_t)c2 * K));
#pragma unroll
      for (int z = 0; z < N; ++z) {
        const int gz = c2 * K + z;
        if ((z == K && !last) || (g.constrained && (gz == 0 || gz == n2 - 1))) continue;
        const bool sh = yface || (z == 0 && c2 == z0 && c2 > 0) || (z == K && c2 < cells2 - 1);
        ts_gpu_put(yr + z * zs + glo, ylo[z] + sx[(z * N + jj) * CPB + cc - 1], sh, g.add);
      }
    }
  }
}

/* Zeroes the DoFs that ts_gpu_laplace3_col_kernel adds into with atomics (for y = A x):
 * one warp per row of DoFs along direction 0 (r = g1 + n1 g2); whole rows on the y-faces
 * (g1 a multiple of K) and on the chunks' z-planes (g2 a multiple of zk = zc K), else the
 * block boundaries g0 = m xk (xk = CPB K). */
template <typename R>
__global__ void ts_gpu_laplace_zero_faces_kernel(int64_t n0, int64_t n1, int64_t rows, int K,
                                                 int64_t xk, int64_t zk, R *__restrict__ y) {
  const int lane = threadIdx.x % 32;
  for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += (int64_t)gridDim.x * blockDim.x / 32) {
    R *yr = y + r * n0;
    if ((r % n1) % K == 0 || (r / n1) % zk == 0)
      for (int64_t i = lane; i < n0; i += 32) yr[i] = R(0);
    else
      for (int64_t i = (lane + 1) * xk; i < n0; i += 32 * xk) yr[i] = R(0);
  }
}

template <typename R, int K>
__global__ void __launch_bounds__((ts_gpu_lap_shape<2, K>::THREADS))
    ts_gpu_laplace2_kernel(const ts_gpu_lap_args<R, K> g, const R *__restrict__ x,
                           R *__restrict__ y) {
  using S = ts_gpu_lap_shape<2, K>;
  constexpr int N = S::N, CPB = S::CPB;
  constexpr bool D = ts_gpu_lap_diff<R, K>::on;
  __shared__ R sa[N * CPB * N], sb[N * CPB * N];
  const int t = threadIdx.x;
  const int i = t % N, c = t / N;
  const int64_t rowblocks = (g.cells0 + CPB - 1) / CPB;
  const int64_t b = blockIdx.x;
  const int64_t c0 = (b % rowblocks) * CPB + c, c1 = b / rowblocks;
  const bool active = c0 < g.cells0;
  const int64_t g0 = c0 * K + i;
  const int64_t base = g0 + g.n0 * (c1 * K);
  const int64_t js = g.n0;
  const bool bnd0 = g.constrained && (g0 == 0 || g0 == g.n0 - 1);
  R u[N], a[N], bb[N];
#pragma unroll
  for (int z = 0; z < N; ++z) u[z] = active ? x[base + z * js] : R(0);
  if (g.constrained) {
    if (bnd0)
#pragma unroll
      for (int z = 0; z < N; ++z) u[z] = R(0);
    if (c1 == 0) u[0] = R(0);
    if (c1 == g.cells1 - 1) u[K] = R(0);
  }
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R sm = 0, sk = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) {
      sm += g.M[z * N + q] * u[q];
      sk += g.S[z * N + q] * ts_gpu_dif<D>(u[q], u[0]);
    }
    a[z] = g.s0 * sm; /* gets K0 */
    bb[z] = g.s1 * sk; /* gets M0 */
  }
  constexpr int ZS = N * CPB;
#pragma unroll
  for (int z = 0; z < N; ++z) {
    sa[z * ZS + t] = a[z];
    sb[z * ZS + t] = bb[z];
  }
  __syncthreads();
  const int row = N * c;
  R mr[N], sr[N]; /* rows i of the 1D matrices in registers */
#pragma unroll
  for (int q = 0; q < N; ++q) {
    mr[q] = g.M[i * N + q];
    sr[q] = g.S[i * N + q];
  }
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R s = 0;
    const R a0 = sa[z * ZS + row];
#pragma unroll
    for (int ii = 0; ii < N; ++ii)
      s += sr[ii] * ts_gpu_dif<D>(sa[z * ZS + row + ii], a0) + mr[ii] * sb[z * ZS + row + ii];
    u[z] = s;
  }
  if (!active || bnd0) return;
#pragma unroll
  for (int z = 0; z < N; ++z) {
    if (g.constrained && ((z == 0 && c1 == 0) || (z == K && c1 == g.cells1 - 1))) continue;
    ts_gpu_atomic_add(y + base + z * js, u[z]);
  }
}

/* Dirichlet rows: y = x (add: y += x) on the DoFs of the box boundary.  One block per row
 * of DoFs along direction 0 (rows r = i1 + n1 i2). */
template <typename R>
__global__ void ts_gpu_laplace_dirichlet_kernel(int dim, int64_t n0, int64_t n1, int64_t n2,
                                                const R *__restrict__ x, R *__restrict__ y,
                                                int add) {
  const int64_t r = blockIdx.x;
  const int64_t i1 = r % n1, i2 = r / n1;
  const bool brow = i1 == 0 || i1 == n1 - 1 || (dim == 3 && (i2 == 0 || i2 == n2 - 1));
  const int64_t off = r * n0;
  if (brow) {
    for (int64_t i = threadIdx.x; i < n0; i += blockDim.x)
      y[off + i] = add ? y[off + i] + x[off + i] : x[off + i];
  } else if (threadIdx.x < 2) {
    const int64_t i = threadIdx.x == 0 ? 0 : n0 - 1;
    y[off + i] = add ? y[off + i] + x[off + i] : x[off + i];
  }
}

/* Entry of the assembled 1D matrix's diagonal at point g of a line of `cells` cells. */
__device__ __forceinline__ double ts_gpu_assembled_diag(const double *A, int K, int64_t g,
                                                        int64_t cells) {
  const int N = K + 1;
  const int64_t cell = g / K;
  const int l = (int)(g % K);
  if (l) return A[l * N + l];
  return (cell < cells ? A[0] : 0.0) + (cell > 0 ? A[K * N + K] : 0.0);
}

struct ts_gpu_diag_args {
  double M[(TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  double S[(TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  double s[3];
  int64_t cells[3], n[3], n_dofs;
  int dim, K, constrained;
};

/* d = diag(A) = sum_d s_d (x)_e (e == d ? diag K_e : diag M_e), 1 on Dirichlet rows. */
template <typename R>
__global__ void ts_gpu_laplace_diagonal_kernel(const ts_gpu_diag_args g, R *__restrict__ d) {
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < g.n_dofs;
       idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i0 = idx % g.n[0], r = idx / g.n[0], i1 = r % g.n[1], i2 = r / g.n[1];
    const bool bnd = g.constrained && (i0 == 0 || i0 == g.n[0] - 1 || i1 == 0 ||
                                       i1 == g.n[1] - 1 ||
                                       (g.dim == 3 && (i2 == 0 || i2 == g.n[2] - 1)));
    double v = 1.0;
    if (!bnd) {
      const double m0 = ts_gpu_assembled_diag(g.M, g.K, i0, g.cells[0]);
      const double k0 = ts_gpu_assembled_diag(g.S, g.K, i0, g.cells[0]);
      const double m1 = ts_gpu_assembled_diag(g.M, g.K, i1, g.cells[1]);
      const double k1 = ts_gpu_assembled_diag(g.S, g.K, i1, g.cells[1]);
      if (g.dim == 3) {
        const double m2 = ts_gpu_assembled_diag(g.M, g.K, i2, g.cells[2]);
        const double k2 = ts_gpu_assembled_diag(g.S, g.K, i2, g.cells[2]);
        v = g.s[0] * k0 * m1 * m2 + g.s[1] * m0 * k1 * m2 + g.s[2] * m0 * m1 * k2;
      } else {
        v = g.s[0] * k0 * m1 + g.s[1] * m0 * k1;
      }
    }
    d[idx] = (R)v;
  }
}

/* TESSERA_GPU_LAPLACE=plain selects the plain 3D kernel (no even-odd decomposition), to
 * compare the two variants and to check one against the other. */
static inline bool ts_gpu_laplace_plain(void) {
  static int cached = -1;
  if (cached < 0) {
    const char *v = getenv("TESSERA_GPU_LAPLACE");
    cached = v && !strcmp(v, "plain");
  }
  return cached != 0;
}

/* Host side: launch the cell kernel of degree K on `stream` (y zeroed first when add = 0). */
template <typename R, int K>
static int ts_gpu_laplace_cells(const ts_laplace_plan *pl, const R *x, R *y, int add,
                                gpuStream_t stream, char *err) {
  ts_gpu_lap_args<R, K> g;
  constexpr int N = K + 1;
  for (int q = 0; q < N * N; ++q) {
    g.M[q] = (R)pl->mass_1d[q];
    g.S[q] = (R)pl->stiffness_1d[q];
  }
  /* the even-odd forms lib prepared (valid when pl->centro_symmetric) */
  constexpr int H = N / 2;
  const bool centro = pl->centro_symmetric != 0;
  memset(g.eM, 0, sizeof g.eM);
  memset(g.oM, 0, sizeof g.oM);
  memset(g.eS, 0, sizeof g.eS);
  memset(g.oS, 0, sizeof g.oS);
  for (int a = 0; a < (N + 1) / 2; ++a)
    for (int q = 0; q < H + (N & 1); ++q) {
      g.eM[a][q] = (R)pl->mass_even_odd.even[a][q];
      g.oM[a][q] = (R)pl->mass_even_odd.odd[a][q];
      g.eS[a][q] = (R)pl->stiffness_even_odd.even[a][q];
      g.oS[a][q] = (R)pl->stiffness_even_odd.odd[a][q];
    }
  g.s0 = (R)pl->scale[0];
  g.s1 = (R)pl->scale[1];
  g.s2 = (R)pl->scale[2];
  g.cells0 = pl->cells[0];
  g.cells1 = pl->cells[1];
  g.cells2 = pl->cells[2];
  g.n0 = pl->n[0];
  g.n1 = pl->n[1];
  g.n2 = pl->n[2];
  g.constrained = pl->constrained != 0;
  g.add = add;
  const size_t bytes = (size_t)pl->n_dofs * sizeof(R);
  if constexpr (K <= TS_GPU_LAPLACE_COLUMN_MAX_DEGREE) {
    if (pl->dim == 3 && centro && !ts_gpu_laplace_plain()) {
      using S = ts_gpu_lap_shape<3, K>;
      g.zc = pl->cells[2] < TS_GPU_LAPLACE_COLUMN_CELLS ? (int)pl->cells[2]
                                                        : TS_GPU_LAPLACE_COLUMN_CELLS;
      const int64_t rowblocks = (pl->cells[0] + S::CPB - 1) / S::CPB;
      const int64_t blocks = rowblocks * pl->cells[1] * ((pl->cells[2] + g.zc - 1) / g.zc);
      if (!add) {
        const int64_t rows = pl->n[1] * pl->n[2];
        ts_gpu_laplace_zero_faces_kernel<R><<<(unsigned)((rows + 7) / 8), 256, 0, stream>>>(
            pl->n[0], pl->n[1], rows, K, (int64_t)S::CPB * K, (int64_t)g.zc * K, y);
        GPU_CHECK_LAUNCH(err, "ts_gpu_laplace_zero_faces_kernel");
      }
      ts_gpu_laplace3_col_kernel<R, K><<<(unsigned)blocks, S::THREADS, 0, stream>>>(g, x, y);
      GPU_CHECK_LAUNCH(err, "ts_gpu_laplace3_col_kernel");
      return 0;
    }
  }
  if (!add) GPU_CHECK(err, "laplace apply (zero y)", gpuMemsetAsync(y, 0, bytes, stream));
  if (pl->dim == 3) {
    using S = ts_gpu_lap_shape<3, K>;
    const int64_t blocks = (pl->cells[0] + S::CPB - 1) / S::CPB * pl->cells[1] * pl->cells[2];
    if constexpr (K > TS_GPU_LAPLACE_COLUMN_MAX_DEGREE) {
      if (centro && !ts_gpu_laplace_plain()) {
        ts_gpu_laplace3_eo_kernel<R, K><<<(unsigned)blocks, S::THREADS, 0, stream>>>(g, x, y);
        GPU_CHECK_LAUNCH(err, "ts_gpu_laplace3_eo_kernel");
        return 0;
      }
    }
    ts_gpu_laplace3_kernel<R, K><<<(unsigned)blocks, S::THREADS, 0, stream>>>(g, x, y);
    GPU_CHECK_LAUNCH(err, "ts_gpu_laplace3_kernel");
  } else {
    using S = ts_gpu_lap_shape<2, K>;
    const int64_t blocks = (pl->cells[0] + S::CPB - 1) / S::CPB * pl->cells[1];
    ts_gpu_laplace2_kernel<R, K><<<(unsigned)blocks, S::THREADS, 0, stream>>>(g, x, y);
    GPU_CHECK_LAUNCH(err, "ts_gpu_laplace2_kernel");
  }
  return 0;
}

/* The plan (valid: lib/plan-check.c) fits the launches: its rows of DoFs and its cells are
 * grid blocks, at most 2^31-1; 0 or TS_ERR_ARG with a message. */
static inline int ts_gpu_laplace_check(const ts_laplace_plan *pl, char *err) {
  const int64_t rows = pl->n[1] * pl->n[2];
  const int64_t blocks = (pl->cells[0] + 1) * pl->cells[1] * pl->cells[2];
  if (rows > 2147483647LL || blocks > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s laplace: %lld rows of DoFs / %lld cells exceed the 2^31-1 blocks of one launch",
             TS_GPU_NAME, (long long)rows, (long long)blocks);
    return TS_ERR_ARG;
  }
  return 0;
}

/** y = A x (add = 0) or y += A x (add = 1) on device vectors of precision R, queued on
 *  `stream`.  With lo and hi (backend ABI 20, laplace_apply_cells) only the cells
 *  [lo[d], hi[d]) of the unconstrained plan add their element matrices (add = 1): the plan of
 *  that box of cells with the whole plan's strides n[], at its first DoF. */
template <typename R>
int ts_gpu_laplace_apply(const ts_laplace_plan *pl, const int64_t *lo, const int64_t *hi,
                         const R *x, R *y, int add, gpuStream_t stream, char *err) {
  int rc = ts_gpu_laplace_check(pl, err);
  if (rc) return rc;
  if (x == y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s laplace apply: x and y are the same vector (in-place apply is not supported)",
             TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  ts_laplace_plan box = *pl;
  if (lo) {
    if (!add || pl->constrained) {
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s laplace apply on cells: needs add = 1 and an "
               "unconstrained plan (add %d, constrained %d)", TS_GPU_NAME, add, pl->constrained);
      return TS_ERR_ARG;
    }
    int64_t first = 0, stride = 1;
    for (int d = 0; d < 3; ++d) {
      box.cells[d] = hi[d] - lo[d];
      first += lo[d] * pl->degree * stride;
      stride *= pl->n[d];
    }
    x += first;
    y += first;
  }
  switch (pl->degree) {
    case 1: rc = ts_gpu_laplace_cells<R, 1>(&box, x, y, add, stream, err); break;
    case 2: rc = ts_gpu_laplace_cells<R, 2>(&box, x, y, add, stream, err); break;
    case 3: rc = ts_gpu_laplace_cells<R, 3>(&box, x, y, add, stream, err); break;
    case 4: rc = ts_gpu_laplace_cells<R, 4>(&box, x, y, add, stream, err); break;
    case 5: rc = ts_gpu_laplace_cells<R, 5>(&box, x, y, add, stream, err); break;
    case 6: rc = ts_gpu_laplace_cells<R, 6>(&box, x, y, add, stream, err); break;
    case 7: rc = ts_gpu_laplace_cells<R, 7>(&box, x, y, add, stream, err); break;
    case 8: rc = ts_gpu_laplace_cells<R, 8>(&box, x, y, add, stream, err); break;
    case 9: rc = ts_gpu_laplace_cells<R, 9>(&box, x, y, add, stream, err); break;
    case 10: rc = ts_gpu_laplace_cells<R, 10>(&box, x, y, add, stream, err); break;
  }
  if (rc) return rc;
  if (pl->constrained) {
    const int64_t rows = pl->n[1] * pl->n[2];
    ts_gpu_laplace_dirichlet_kernel<R><<<(unsigned)rows, 128, 0, stream>>>(
        pl->dim, pl->n[0], pl->n[1], pl->n[2], x, y, add);
    GPU_CHECK_LAUNCH(err, "ts_gpu_laplace_dirichlet_kernel");
  }
  return 0;
}

/** d = diag(A) (1 on Dirichlet rows when constrained), precision R. */
template <typename R>
int ts_gpu_laplace_diagonal(const ts_laplace_plan *pl, R *d, char *err) {
  int rc = ts_gpu_laplace_check(pl, err);
  if (rc) return rc;
  ts_gpu_diag_args g;
  const int N = pl->degree + 1;
  for (int q = 0; q < N * N; ++q) {
    g.M[q] = pl->mass_1d[q];
    g.S[q] = pl->stiffness_1d[q];
  }
  for (int e = 0; e < 3; ++e) {
    g.s[e] = pl->scale[e];
    g.cells[e] = pl->cells[e];
    g.n[e] = pl->n[e];
  }
  g.n_dofs = pl->n_dofs;
  g.dim = pl->dim;
  g.K = pl->degree;
  g.constrained = pl->constrained != 0;
  int64_t blocks = (pl->n_dofs + 255) / 256;
  if (blocks > 65536) blocks = 65536;
  if (blocks < 1) blocks = 1;
  ts_gpu_laplace_diagonal_kernel<R><<<(unsigned)blocks, 256>>>(g, d);
  GPU_CHECK_LAUNCH(err, "ts_gpu_laplace_diagonal_kernel");
  return 0;
}

/* Instantiate the entry points for one precision (in one translation unit each, so that
 * the two precisions compile in parallel). */
#define TS_GPU_LAPLACE_INSTANTIATE(R)                                                       \
  template int ts_gpu_laplace_apply<R>(const ts_laplace_plan *, const int64_t *,              \
                                       const int64_t *, const R *, R *, int, gpuStream_t, char *); \
  template int ts_gpu_laplace_diagonal<R>(const ts_laplace_plan *, R *, char *);

#endif
