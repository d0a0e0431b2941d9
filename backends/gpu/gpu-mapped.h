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
 * Dirichlet kernel then sets their rows to y = x (y += x): the DoF layout is the box's. */
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
  int64_t cells0, cells1, cells2, n0, n1, n2, n_cells;
  int constrained, has_reaction, n_factors;
};

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

template <typename R, int K>
__global__ void __launch_bounds__(ts_gpu_mapped_shape<R, 3, K>::THREADS)
ts_gpu_mapped3_kernel(const ts_gpu_mapped_args<R, K> g, const R *__restrict__ factors,
                      const R *__restrict__ x, R *__restrict__ y) {
  using Sh = ts_gpu_mapped_shape<R, 3, K>;
  constexpr int N = K + 1, NP = Sh::NP;
  __shared__ R sh[Sh::CPB][4][NP];
  const int t = threadIdx.x, c = t / (N * N), j = (t / N) % N, i = t % N;
  const int64_t cell = (int64_t)blockIdx.x * Sh::CPB + c;
  const bool active = cell < g.n_cells;
  const int64_t c0 = active ? cell % g.cells0 : 0, c1 = active ? cell / g.cells0 % g.cells1 : 0,
                c2 = active ? cell / g.cells0 / g.cells1 : 0;
  R(*s)[NP] = sh[c];
  /* gather the column, direction 2 in registers */
  R a[N], b[N];
  {
    R u[N];
#pragma unroll
    for (int z = 0; z < N; ++z) {
      const int64_t d = active ? ts_gpu_mapped_dof<R, K>(g, c0, c1, c2, i, j, z, 3) : -1;
      u[z] = d < 0 ? R(0) : x[d];
    }
#pragma unroll
    for (int q = 0; q < N; ++q) {
      R sa = 0, sb = 0;
#pragma unroll
      for (int z = 0; z < N; ++z) {
        sa += g.S[q * N + z] * u[z];
        sb += g.D[q * N + z] * u[z];
      }
      a[q] = sa;
      b[q] = sb;
    }
  }
#pragma unroll
  for (int q = 0; q < N; ++q) {
    s[0][(q * N + j) * N + i] = a[q];
    s[1][(q * N + j) * N + i] = b[q];
  }
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
#pragma unroll
  for (int q = 0; q < N; ++q) {
    s[0][(q * N + j) * N + i] = sa[q];
    s[1][(q * N + j) * N + i] = da[q];
    s[2][(q * N + j) * N + i] = sb[q];
  }
  __syncthreads();
  /* direction 0: thread (qx = i, qy = j); then the point work, in place in sa, da, sb, a */
  const R *F = factors + (active ? cell : 0) * (int64_t)g.n_factors * NP;
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
      const R f00 = F[p], f01 = F[NP + p], f02 = F[2 * NP + p], f11 = F[3 * NP + p],
              f12 = F[4 * NP + p], f22 = F[5 * NP + p];
      sa[q] = f00 * g0 + f01 * g1 + f02 * g2;
      da[q] = f01 * g0 + f11 * g1 + f12 * g2;
      sb[q] = f02 * g0 + f12 * g1 + f22 * g2;
      a[q] = g.has_reaction ? F[6 * NP + p] * val : R(0);
    } else {
      sa[q] = da[q] = sb[q] = a[q] = 0;
    }
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < N; ++q) {
    const int p = (q * N + j) * N + i;
    s[0][p] = sa[q];
    s[1][p] = da[q];
    s[2][p] = sb[q];
    s[3][p] = a[q];
  }
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
#pragma unroll
  for (int q = 0; q < N; ++q) {
    s[0][(q * N + j) * N + i] = sa[q];
    s[1][(q * N + j) * N + i] = da[q];
    s[2][(q * N + j) * N + i] = sb[q];
  }
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
  if (!active) return;
#pragma unroll
  for (int z = 0; z < N; ++z) {
    R out = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) out += g.S[q * N + z] * a[q] + g.D[q * N + z] * b[q];
    const int64_t d = ts_gpu_mapped_dof<R, K>(g, c0, c1, c2, i, j, z, 3);
    if (d >= 0) ts_gpu_atomic_add(&y[d], out);
  }
}

template <typename R, int K>
__global__ void __launch_bounds__(ts_gpu_mapped_shape<R, 2, K>::THREADS)
ts_gpu_mapped2_kernel(const ts_gpu_mapped_args<R, K> g, const R *__restrict__ factors,
                      const R *__restrict__ x, R *__restrict__ y) {
  using Sh = ts_gpu_mapped_shape<R, 2, K>;
  constexpr int N = K + 1, NP = Sh::NP;
  __shared__ R sh[Sh::CPB][4][NP];
  const int t = threadIdx.x, c = t / N, i = t % N;
  const int64_t cell = (int64_t)blockIdx.x * Sh::CPB + c;
  const bool active = cell < g.n_cells;
  const int64_t c0 = active ? cell % g.cells0 : 0, c1 = active ? cell / g.cells0 : 0;
  R(*s)[NP] = sh[c];
  R a[N], b[N];
  {
    R u[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const int64_t d = active ? ts_gpu_mapped_dof<R, K>(g, c0, c1, 0, i, j, 0, 2) : -1;
      u[j] = d < 0 ? R(0) : x[d];
    }
#pragma unroll
    for (int q = 0; q < N; ++q) {
      R sa = 0, sb = 0;
#pragma unroll
      for (int j = 0; j < N; ++j) {
        sa += g.S[q * N + j] * u[j];
        sb += g.D[q * N + j] * u[j];
      }
      a[q] = sa;
      b[q] = sb;
    }
  }
#pragma unroll
  for (int q = 0; q < N; ++q) {
    s[0][q * N + i] = a[q];
    s[1][q * N + i] = b[q];
  }
  __syncthreads();
  /* direction 0: thread qx = i; the point work */
  const R *F = factors + (active ? cell : 0) * (int64_t)g.n_factors * NP;
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
      const R f00 = F[p], f01 = F[NP + p], f11 = F[2 * NP + p];
      a[q] = f00 * g0 + f01 * g1;
      b[q] = f01 * g0 + f11 * g1;
      val = g.has_reaction ? F[3 * NP + p] * val : R(0);
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
  if (!active) return;
  /* direction 1 transposed in registers, and the scatter */
#pragma unroll
  for (int j = 0; j < N; ++j) {
    R out = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) out += g.S[q * N + j] * a[q] + g.D[q * N + j] * b[q];
    const int64_t d = ts_gpu_mapped_dof<R, K>(g, c0, c1, 0, i, j, 0, 2);
    if (d >= 0) ts_gpu_atomic_add(&y[d], out);
  }
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
  const R *factors = (const R *)pl->factors;
  if (pl->dim == 3) {
    using Sh = ts_gpu_mapped_shape<R, 3, K>;
    const int64_t blocks = (g.n_cells + Sh::CPB - 1) / Sh::CPB;
    ts_gpu_mapped3_kernel<R, K><<<(unsigned)blocks, Sh::THREADS>>>(g, factors, x, y);
    GPU_CHECK_LAUNCH(err, "ts_gpu_mapped3_kernel");
  } else {
    using Sh = ts_gpu_mapped_shape<R, 2, K>;
    const int64_t blocks = (g.n_cells + Sh::CPB - 1) / Sh::CPB;
    ts_gpu_mapped2_kernel<R, K><<<(unsigned)blocks, Sh::THREADS>>>(g, factors, x, y);
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
