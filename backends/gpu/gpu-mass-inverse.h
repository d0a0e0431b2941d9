/* gpu-mass-inverse.h -- the GPU L2 (DGQ_k) mass and its inverse (ts_l2_mass_plan; paper 003,
 * sections 2.5 and 3.1), written once for CUDA and HIP as templates over the dimension and
 * the degree K, in double precision.  Included by backends/cuda/mass-inverse-double.cu (and
 * hip/mass-inverse-double.cpp), which instantiate it (TS_GPU_MASS_INVERSE_INSTANTIATE).
 *
 * One thread block per cell: W is block diagonal, so every cell is solved by its own block
 * and nothing is reduced across blocks.
 *   CG (ts_gpu_l2_cg_kernel): the cell's N^DIM values (N = K+1) are gathered into shared
 *   memory with its point weights D (NQ^DIM, NQ = K+2) and its inverse diagonal; then the
 *   change of basis b = C^T x, the whole Jacobi-preconditioned CG on S^T D S z = b (the
 *   local mass by sum factorization: S in each direction to the points, D, S^T back; the two
 *   dot products of an iteration as block reductions in shared memory) and x = C z, and the
 *   scatter.  The iteration count goes to iterations[cell].
 *   Apply (the same kernel's mass step): y = U^T D U x with the user's table U.
 *   Dense (ts_gpu_l2_dense_kernel): y_K = M_K x_K, thread i forming row i; the explicit
 *   inverse is symmetric, so it reads column i (M_K[j][i], j = 0..n-1): consecutive threads
 *   read consecutive words.
 * Cholesky's triangular solves are sequential per cell and are left to omp (the library
 * documents the method as omp only); this backend refuses them. */
#ifndef TESSERA_GPU_MASS_INVERSE_H
#define TESSERA_GPU_MASS_INVERSE_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

/* The smallest power of two >= n and >= 32 (a block of whole warps whose tree reduction
 * halves evenly). */
__host__ __device__ constexpr int ts_gpu_l2_pow2(int n) { return n <= 32 ? 32 : 2 * ts_gpu_l2_pow2((n + 1) / 2); }

template <int DIM, int K>
struct ts_gpu_l2_shape {
  static constexpr int N = K + 1, NQ = K + 2;
  static constexpr int NC = DIM == 3 ? N * N * N : N * N;     /* values per cell */
  static constexpr int NP = DIM == 3 ? NQ * NQ * NQ : NQ * NQ; /* points per cell */
  static constexpr int NT = DIM == 3 ? N * NQ * NQ : N * NQ;   /* the sweeps' intermediates */
  static constexpr int THREADS = ts_gpu_l2_pow2(NP) > 256 ? 256 : ts_gpu_l2_pow2(NP);
  static constexpr int PER_C = (NC + THREADS - 1) / THREADS;   /* cell values per thread */
  static constexpr int PER_P = (NP + THREADS - 1) / THREADS;   /* points per thread */
};

/* The plan's 1D tables and sizes, passed by value (the launch's parameter space). */
template <int K>
struct ts_gpu_l2_args {
  double B[(K + 2) * (K + 1)];   /* CG: the solve basis S; apply: the user's U (NQ x N) */
  double C[(K + 1) * (K + 1)];   /* CG: the change of basis (N x N) */
  int64_t cells0, cells1, n0, n1;
  double tol2;                   /* CG: tolerance^2 */
  int max_iterations;            /* CG */
};

/* out = M applied along direction DIR of an array of extents (E0, E1, E2) (index 0 fastest),
 * M(o, i) = T ? A[i OUT + o] : A[o IN + i], IN = E_DIR, the output's extent OUT in DIR. */
template <int DIM, int DIR, int IN, int OUT, int E0, int E1, int E2, bool T>
__device__ __forceinline__ void ts_gpu_l2_sweep(const double *A, const double *in, double *out) {
  constexpr int O0 = DIR == 0 ? OUT : E0, O1 = DIR == 1 ? OUT : E1, O2 = DIM == 3 ? (DIR == 2 ? OUT : E2) : 1;
  constexpr int in_stride = DIR == 0 ? 1 : DIR == 1 ? E0 : E0 * E1;
  for (int t = threadIdx.x; t < O0 * O1 * O2; t += blockDim.x) {
    const int a0 = t % O0, a1 = t / O0 % O1, a2 = t / (O0 * O1);
    const int o = DIR == 0 ? a0 : DIR == 1 ? a1 : a2;
    const int i0 = DIR == 0 ? 0 : a0, i1 = DIR == 1 ? 0 : a1, i2 = DIR == 2 ? 0 : a2;
    const double *line = in + i0 + E0 * (i1 + E1 * i2);
    double s = 0.0;
#pragma unroll
    for (int i = 0; i < IN; ++i) s += (T ? A[i * OUT + o] : A[o * IN + i]) * line[i * in_stride];
    out[t] = s;
  }
  __syncthreads();
}

/* out (NQ^DIM) = (x)_d B in (N^DIM), or back with B^T (to_points = false). */
template <int DIM, int K, bool TO_POINTS>
__device__ __forceinline__ void ts_gpu_l2_tensor(const double *B, const double *in, double *out,
                                                 double *t0, double *t1) {
  constexpr int N = K + 1, NQ = K + 2, A = TO_POINTS ? N : NQ, Z = TO_POINTS ? NQ : N;
  constexpr int A2 = DIM == 3 ? A : 1, Z1 = Z;
  if (DIM == 2) {
    ts_gpu_l2_sweep<2, 0, A, Z, A, A, 1, !TO_POINTS>(B, in, t0);
    ts_gpu_l2_sweep<2, 1, A, Z, Z, A, 1, !TO_POINTS>(B, t0, out);
  } else {
    ts_gpu_l2_sweep<3, 0, A, Z, A, A, A2, !TO_POINTS>(B, in, t0);
    ts_gpu_l2_sweep<3, 1, A, Z, Z, A, A2, !TO_POINTS>(B, t0, t1);
    ts_gpu_l2_sweep<3, 2, A, Z, Z, Z1, A2, !TO_POINTS>(B, t1, out);
  }
}

/* The change of basis (x)_d C (T = false) or (x)_d C^T (T = true) on N^DIM values. */
template <int DIM, int K, bool T>
__device__ __forceinline__ void ts_gpu_l2_change(const double *C, const double *in, double *out,
                                                 double *t0, double *t1) {
  constexpr int N = K + 1, N2 = DIM == 3 ? N : 1;
  if (DIM == 2) {
    ts_gpu_l2_sweep<2, 0, N, N, N, N, 1, T>(C, in, t0);
    ts_gpu_l2_sweep<2, 1, N, N, N, N, 1, T>(C, t0, out);
  } else {
    ts_gpu_l2_sweep<3, 0, N, N, N, N, N2, T>(C, in, t0);
    ts_gpu_l2_sweep<3, 1, N, N, N, N, N2, T>(C, t0, t1);
    ts_gpu_l2_sweep<3, 2, N, N, N, N, N2, T>(C, t1, out);
  }
}

/* The sum over the block of each thread's v, returned to every thread; red: one value per
 * warp of shared memory, which the caller alternates between consecutive sums (the barriers
 * between two uses of one buffer keep its readers ahead of its next writers).  CUDA: the warps
 * reduce by shuffles, then every thread adds the warps' sums in one order (the result does not
 * vary by run); HIP: a tree in shared memory (red: blockDim values). */
__device__ __forceinline__ double ts_gpu_l2_block_sum(double v, double *red) {
#ifdef TS_GPU_HIP
  red[threadIdx.x] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if ((int)threadIdx.x < half) red[threadIdx.x] += red[threadIdx.x + half];
    __syncthreads();
  }
  return red[0];
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  double s = 0.0;
  for (int w = 0; w < (int)blockDim.x / 32; ++w) s += red[w];
  return s;
#endif
}

/* The cell's local index l = a0 + N (a1 + N a2) to its global DoF. */
template <int DIM, int K>
__device__ __forceinline__ int64_t ts_gpu_l2_dof(const ts_gpu_l2_args<K> &g, int64_t cell, int l) {
  constexpr int N = K + 1;
  const int64_t c0 = cell % g.cells0, c1 = cell / g.cells0 % g.cells1, c2 = cell / g.cells0 / g.cells1;
  const int a0 = l % N, a1 = l / N % N, a2 = DIM == 3 ? l / (N * N) : 0;
  return c0 * N + a0 + g.n0 * (c1 * N + a1 + g.n1 * (c2 * N + a2));
}

/* y_K = U^T D_K U x_K, one block per cell. */
template <int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_l2_shape<DIM, K>::THREADS))
ts_gpu_l2_mass_kernel(const ts_gpu_l2_args<K> g, const double *__restrict__ weights,
                      const double *__restrict__ x, double *__restrict__ y) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  __shared__ double u[Sh::NC], v[Sh::NC], t0[Sh::NT], t1[Sh::NT], w[Sh::NP];
  const int64_t cell = blockIdx.x;
  for (int l = threadIdx.x; l < Sh::NC; l += blockDim.x) u[l] = x[ts_gpu_l2_dof<DIM, K>(g, cell, l)];
  __syncthreads();
  ts_gpu_l2_tensor<DIM, K, true>(g.B, u, w, t0, t1);
  for (int l = threadIdx.x; l < Sh::NP; l += blockDim.x) w[l] *= weights[cell * Sh::NP + l];
  __syncthreads();
  ts_gpu_l2_tensor<DIM, K, false>(g.B, w, v, t0, t1);
  for (int l = threadIdx.x; l < Sh::NC; l += blockDim.x) y[ts_gpu_l2_dof<DIM, K>(g, cell, l)] = v[l];
}

/* y_K = C z, z = (S^T D_K S)^{-1} C^T x_K by Jacobi-preconditioned CG from 0, one block per
 * cell (the local CG of paper 003, section 3.1).  Thread t holds the cell values t + j THREADS
 * (j < PER_C) of z, r and the inverse diagonal, and the point weights t + j THREADS (j <
 * PER_P), in registers; p, q and the sweeps' arrays are shared. */
template <int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_l2_shape<DIM, K>::THREADS))
ts_gpu_l2_cg_kernel(const ts_gpu_l2_args<K> g, const double *__restrict__ weights,
                    const double *__restrict__ inverse_diagonal, const double *__restrict__ x,
                    double *__restrict__ y, double *__restrict__ iterations) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int NC = Sh::NC, NP = Sh::NP, T = Sh::THREADS;
  __shared__ double p[NC], q[NC], t0[Sh::NT], t1[Sh::NT], w[NP], red_pq[T], red_rz[T];
  double z[Sh::PER_C], r[Sh::PER_C], id[Sh::PER_C], D[Sh::PER_P];
  const int64_t cell = blockIdx.x;
  const int t = threadIdx.x;
#pragma unroll
  for (int j = 0; j < Sh::PER_P; ++j) D[j] = t + j * T < NP ? weights[cell * NP + t + j * T] : 0.0;
#pragma unroll
  for (int j = 0; j < Sh::PER_C; ++j) {
    const int l = t + j * T;
    id[j] = l < NC ? inverse_diagonal[cell * NC + l] : 0.0;
    if (l < NC) p[l] = x[ts_gpu_l2_dof<DIM, K>(g, cell, l)];
  }
  __syncthreads();
  ts_gpu_l2_change<DIM, K, true>(g.C, p, q, t0, t1); /* b = C^T x */
  double rz_local = 0.0;
#pragma unroll
  for (int j = 0; j < Sh::PER_C; ++j) {
    const int l = t + j * T;
    r[j] = l < NC ? q[l] : 0.0;
    z[j] = 0.0;
    rz_local += id[j] * r[j] * r[j];
  }
  __syncthreads(); /* q read by all before p is written */
#pragma unroll
  for (int j = 0; j < Sh::PER_C; ++j)
    if (t + j * T < NC) p[t + j * T] = id[j] * r[j];
  double rz = ts_gpu_l2_block_sum(rz_local, red_rz); /* its barrier publishes p */
  const double stop = g.tol2 * rz;
  int it = 0;
  while (rz > stop && it < g.max_iterations) {
    ts_gpu_l2_tensor<DIM, K, true>(g.B, p, w, t0, t1); /* q = S^T D S p */
#pragma unroll
    for (int j = 0; j < Sh::PER_P; ++j)
      if (t + j * T < NP) w[t + j * T] *= D[j];
    __syncthreads();
    ts_gpu_l2_tensor<DIM, K, false>(g.B, w, q, t0, t1);
    double pq_local = 0.0;
#pragma unroll
    for (int j = 0; j < Sh::PER_C; ++j)
      if (t + j * T < NC) pq_local += p[t + j * T] * q[t + j * T];
    const double alpha = rz / ts_gpu_l2_block_sum(pq_local, red_pq);
    rz_local = 0.0;
#pragma unroll
    for (int j = 0; j < Sh::PER_C; ++j)
      if (t + j * T < NC) {
        z[j] += alpha * p[t + j * T];
        r[j] -= alpha * q[t + j * T];
        rz_local += id[j] * r[j] * r[j];
      }
    const double rz_new = ts_gpu_l2_block_sum(rz_local, red_rz), beta = rz_new / rz;
#pragma unroll
    for (int j = 0; j < Sh::PER_C; ++j)
      if (t + j * T < NC) p[t + j * T] = id[j] * r[j] + beta * p[t + j * T];
    __syncthreads();
    rz = rz_new;
    ++it;
  }
#pragma unroll
  for (int j = 0; j < Sh::PER_C; ++j)
    if (t + j * T < NC) p[t + j * T] = z[j];
  __syncthreads();
  ts_gpu_l2_change<DIM, K, false>(g.C, p, q, t0, t1); /* y = C z */
  for (int l = t; l < NC; l += T) y[ts_gpu_l2_dof<DIM, K>(g, cell, l)] = q[l];
  if (t == 0) iterations[cell] = (double)it;
}

/* y_K = M_K x_K with M_K symmetric (the explicit inverse): thread i forms row i from column
 * i, M_K[j][i], so that a warp reads consecutive words; one block per cell. */
template <int DIM, int K>
__global__ void __launch_bounds__(256)
ts_gpu_l2_dense_kernel(const ts_gpu_l2_args<K> g, const double *__restrict__ matrices,
                       const double *__restrict__ x, double *__restrict__ y) {
  constexpr int NC = ts_gpu_l2_shape<DIM, K>::NC;
  __shared__ double u[NC];
  const int64_t cell = blockIdx.x;
  for (int l = threadIdx.x; l < NC; l += blockDim.x) u[l] = x[ts_gpu_l2_dof<DIM, K>(g, cell, l)];
  __syncthreads();
  const double *M = matrices + cell * (int64_t)NC * NC;
  for (int i = threadIdx.x; i < NC; i += blockDim.x) {
    double s = 0.0;
    for (int j = 0; j < NC; ++j) s += M[(int64_t)j * NC + i] * u[j];
    y[ts_gpu_l2_dof<DIM, K>(g, cell, i)] = s;
  }
}

/* One launch of the plan's action for degree K. */
template <int DIM, int K>
int ts_gpu_l2_cells(const ts_l2_mass_plan *pl, const double *x, double *y, char *err) {
  using Sh = ts_gpu_l2_shape<DIM, K>;
  constexpr int N = K + 1, NQ = K + 2;
  ts_gpu_l2_args<K> g;
  const double *table = pl->action == TS_L2_MASS_CG ? pl->solve_1d : pl->user_1d;
  for (int i = 0; i < NQ * N; ++i) g.B[i] = table ? table[i] : 0.0;
  for (int i = 0; i < N * N; ++i) g.C[i] = pl->change_1d ? pl->change_1d[i] : 0.0;
  g.cells0 = pl->cells[0];
  g.cells1 = pl->cells[1];
  g.n0 = pl->n[0];
  g.n1 = pl->n[1];
  g.tol2 = pl->tolerance * pl->tolerance;
  g.max_iterations = pl->max_iterations;
  const unsigned blocks = (unsigned)(pl->cells[0] * pl->cells[1] * pl->cells[2]);
  const double *weights = (const double *)pl->point_weights;
  switch (pl->action) {
    case TS_L2_MASS_APPLY:
      ts_gpu_l2_mass_kernel<DIM, K><<<blocks, Sh::THREADS>>>(g, weights, x, y);
      GPU_CHECK_LAUNCH(err, "ts_gpu_l2_mass_kernel");
      return 0;
    case TS_L2_MASS_DENSE:
      ts_gpu_l2_dense_kernel<DIM, K><<<blocks, Sh::NC < 256 ? (Sh::NC + 31) / 32 * 32 : 256>>>(
          g, (const double *)pl->matrices, x, y);
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
