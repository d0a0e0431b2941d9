/* gpu-hdiv-mass.h -- the GPU H(div) (RT_k) mass (ts_hdiv_mass_plan; paper 003, sections 2-3),
 * written once for CUDA and HIP as templates over the dimension and the degree K = 0..8, in
 * double precision.  Included by backends/cuda/hdiv-mass-double.cu (and
 * hip/hdiv-mass-double.cpp), which instantiate it (TS_GPU_HDIV_MASS_INSTANTIATE).
 *
 * One thread block per cell: the block gathers each component's (K+2)(K+1)^(DIM-1) values into
 * shared memory, interpolates them to the NQ^DIM Gauss points (NQ = K+2) by sum factorization
 * (ts_gpu_hdiv_sweep, one direction at a time, every thread a share of the
 * outputs), applies the point tensors G_q (one thread per point: the DIM components at once)
 * and integrates back with the transposed tables; then it adds the cell's values into y.
 *
 * Shared DoFs.  Two cells share DoFs only through a face, and cells that share a face have
 * c_0 + c_1 + c_2 of different parity: the cells are added in two launches, the even ones,
 * then the odd ones (a checkerboard), so no two blocks of a launch write one DoF and no
 * atomics are needed; y is zeroed first unless add.  Shared memory: (DIM + 2) NQ^DIM doubles
 * and the tables, 41 KB at K = 8 in 3D (K = 9 would exceed the 48 KB of a block). */
#ifndef TESSERA_GPU_HDIV_MASS_H
#define TESSERA_GPU_HDIV_MASS_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

/* The smallest power of two >= n and >= 32 (a block of whole warps whose tree reduction
 * halves evenly). */
__host__ __device__ constexpr int ts_gpu_hdiv_pow2(int n) { return n <= 32 ? 32 : 2 * ts_gpu_hdiv_pow2((n + 1) / 2); }

/* out = M applied along direction DIR of an array of extents (E0, E1, E2) (index 0 fastest),
 * M(o, i) = T ? A[i OUT + o] : A[o IN + i], IN = E_DIR, the output's extent OUT in DIR. */
template <int DIM, int DIR, int IN, int OUT, int E0, int E1, int E2, bool T>
__device__ __forceinline__ void ts_gpu_hdiv_sweep(const double *A, const double *in, double *out) {
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

template <int DIM, int K>
struct ts_gpu_hdiv_shape {
  static constexpr int N1 = K + 1, N2 = K + 2, NQ = K + 2;
  static constexpr int NP = DIM == 3 ? NQ * NQ * NQ : NQ * NQ;   /* points per cell */
  static constexpr int THREADS = ts_gpu_hdiv_pow2(NP) > 256 ? 256 : ts_gpu_hdiv_pow2(NP);
};

/* The plan's 1D tables and the numbering, passed by value (the launch's parameter space). */
template <int K>
struct ts_gpu_hdiv_args {
  double normal[(K + 2) * (K + 2)];     /* NQ x (K+2) */
  double tangential[(K + 2) * (K + 1)]; /* NQ x (K+1) */
  double weights[K + 2];
  int64_t cells[3], n_u[3][3], offset[3];
  int cartesian, color;
};

/* The extent of component I's cell values in direction D. */
template <int K, int I, int D>
struct ts_gpu_hdiv_extent {
  static constexpr int value = K + 1 + (I == D ? 1 : 0);
};

/* out (NQ^DIM) = (x)_d B_d in, B_d the normal table for d == I, the tangential one else;
 * TO_POINTS = false: back, in (NQ^DIM) to out (the cell's values) with the transposes. */
template <int DIM, int K, int I, bool TO_POINTS>
__device__ __forceinline__ void ts_gpu_hdiv_tensor(const double *normal, const double *tangential,
                                                   const double *in, double *out, double *t0,
                                                   double *t1) {
  constexpr int NQ = K + 2, M0 = ts_gpu_hdiv_extent<K, I, 0>::value,
                M1 = ts_gpu_hdiv_extent<K, I, 1>::value,
                M2 = DIM == 3 ? ts_gpu_hdiv_extent<K, I, 2>::value : 1;
  const double *B0 = I == 0 ? normal : tangential, *B1 = I == 1 ? normal : tangential,
               *B2 = I == 2 ? normal : tangential;
  if (TO_POINTS && DIM == 2) {
    ts_gpu_hdiv_sweep<2, 0, M0, NQ, M0, M1, 1, false>(B0, in, t0);
    ts_gpu_hdiv_sweep<2, 1, M1, NQ, NQ, M1, 1, false>(B1, t0, out);
  } else if (TO_POINTS) {
    ts_gpu_hdiv_sweep<3, 0, M0, NQ, M0, M1, M2, false>(B0, in, t0);
    ts_gpu_hdiv_sweep<3, 1, M1, NQ, NQ, M1, M2, false>(B1, t0, t1);
    ts_gpu_hdiv_sweep<3, 2, M2, NQ, NQ, NQ, M2, false>(B2, t1, out);
  } else if (DIM == 2) {
    ts_gpu_hdiv_sweep<2, 0, NQ, M0, NQ, NQ, 1, true>(B0, in, t0);
    ts_gpu_hdiv_sweep<2, 1, NQ, M1, M0, NQ, 1, true>(B1, t0, out);
  } else {
    ts_gpu_hdiv_sweep<3, 0, NQ, M0, NQ, NQ, NQ, true>(B0, in, t0);
    ts_gpu_hdiv_sweep<3, 1, NQ, M1, M0, NQ, NQ, true>(B1, t0, t1);
    ts_gpu_hdiv_sweep<3, 2, NQ, M2, M0, M1, NQ, true>(B2, t1, out);
  }
}

/* The global index of component I's local value l in the cell (c0, c1, c2). */
template <int DIM, int K, int I>
__device__ __forceinline__ int64_t ts_gpu_hdiv_dof(const ts_gpu_hdiv_args<K> &g, int64_t c0,
                                                   int64_t c1, int64_t c2, int l) {
  constexpr int M0 = ts_gpu_hdiv_extent<K, I, 0>::value, M1 = ts_gpu_hdiv_extent<K, I, 1>::value;
  const int r0 = l % M0, r1 = l / M0 % M1, r2 = DIM == 3 ? l / (M0 * M1) : 0;
  return g.offset[I] + c0 * (K + 1) + r0 +
         g.n_u[I][0] * (c1 * (K + 1) + r1 + g.n_u[I][1] * (c2 * (K + 1) + r2));
}

/* Component I of x to the points: u (NP) = B_I x_K,I; the gather goes into t1, which the
 * first sweep reads before the second writes it. */
template <int DIM, int K, int I>
__device__ __forceinline__ void ts_gpu_hdiv_gather(const ts_gpu_hdiv_args<K> &g, const double *tables,
                                                   int64_t c0, int64_t c1, int64_t c2,
                                                   const double *__restrict__ x, double *u,
                                                   double *t0, double *t1) {
  constexpr int M = ts_gpu_hdiv_extent<K, I, 0>::value * ts_gpu_hdiv_extent<K, I, 1>::value *
                    (DIM == 3 ? ts_gpu_hdiv_extent<K, I, 2>::value : 1);
  for (int l = threadIdx.x; l < M; l += blockDim.x) t1[l] = x[ts_gpu_hdiv_dof<DIM, K, I>(g, c0, c1, c2, l)];
  __syncthreads();
  ts_gpu_hdiv_tensor<DIM, K, I, true>(tables, tables + (K + 2) * (K + 2), t1, u, t0, t1);
}

/* y_K,I += B_I^T v (v: the point values of component I); the result lands in t1 (the last
 * sweep reads t0: 2D, or writes t1 after reading t1's predecessor t0: 3D reads t1 and writes
 * out = t0, so out is t0 in 3D and t1 in 2D). */
template <int DIM, int K, int I>
__device__ __forceinline__ void ts_gpu_hdiv_scatter(const ts_gpu_hdiv_args<K> &g, const double *tables,
                                                    int64_t c0, int64_t c1, int64_t c2,
                                                    const double *v, double *t0, double *t1,
                                                    double *__restrict__ y) {
  constexpr int M = ts_gpu_hdiv_extent<K, I, 0>::value * ts_gpu_hdiv_extent<K, I, 1>::value *
                    (DIM == 3 ? ts_gpu_hdiv_extent<K, I, 2>::value : 1);
  double *out = DIM == 3 ? t0 : t1;
  ts_gpu_hdiv_tensor<DIM, K, I, false>(tables, tables + (K + 2) * (K + 2), v, out, t0, t1);
  for (int l = threadIdx.x; l < M; l += blockDim.x) y[ts_gpu_hdiv_dof<DIM, K, I>(g, c0, c1, c2, l)] += out[l];
  __syncthreads();
}

/* v_i = sum_j G_ij u_j at the cell's points (u in place). */
template <int DIM, int K>
__device__ __forceinline__ void ts_gpu_hdiv_point_tensors(const ts_gpu_hdiv_args<K> &g, int64_t cell,
                                                          const double *__restrict__ G, double *u) {
  constexpr int NQ = K + 2, NP = ts_gpu_hdiv_shape<DIM, K>::NP;
  for (int q = threadIdx.x; q < NP; q += blockDim.x) {
    if (g.cartesian) {
      double w = g.weights[q % NQ] * g.weights[q / NQ % NQ];
      if (DIM == 3) w *= g.weights[q / (NQ * NQ)];
      for (int i = 0; i < DIM; ++i) u[i * NP + q] *= w * G[cell * DIM + i];
    } else if (DIM == 2) {
      const double *t = G + cell * 3 * NP + q, u0 = u[q], u1 = u[NP + q];
      u[q] = t[0] * u0 + t[2 * NP] * u1;
      u[NP + q] = t[2 * NP] * u0 + t[NP] * u1;
    } else {
      const double *t = G + cell * 6 * NP + q, u0 = u[q], u1 = u[NP + q], u2 = u[2 * NP + q];
      const double g01 = t[3 * NP], g02 = t[4 * NP], g12 = t[5 * NP];
      u[q] = t[0] * u0 + g01 * u1 + g02 * u2;
      u[NP + q] = g01 * u0 + t[NP] * u1 + g12 * u2;
      u[2 * NP + q] = g02 * u0 + g12 * u1 + t[2 * NP] * u2;
    }
  }
  __syncthreads();
}

/* y += M_K x_K for the cells of one color, one block per cell: block b is cell j = b % half
 * of the line b / half along direction 0, c_0 = 2 j + (color + c_1 + c_2) % 2. */
template <int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_hdiv_shape<DIM, K>::THREADS))
ts_gpu_hdiv_mass_kernel(const ts_gpu_hdiv_args<K> g, const double *__restrict__ G,
                        const double *__restrict__ x, double *__restrict__ y) {
  using Sh = ts_gpu_hdiv_shape<DIM, K>;
  constexpr int NP = Sh::NP, TABLES = (K + 2) * (K + 2) + (K + 2) * (K + 1);
  __shared__ double u[DIM * NP], t0[NP], t1[NP], tables[TABLES];
  const int64_t half = (g.cells[0] + 1) / 2, line = blockIdx.x / half;
  const int64_t c1 = line % g.cells[1], c2 = line / g.cells[1];
  const int64_t c0 = 2 * ((int64_t)blockIdx.x % half) + ((g.color + c1 + c2) & 1);
  if (c0 >= g.cells[0]) return; /* the whole block */
  for (int i = threadIdx.x; i < TABLES; i += blockDim.x)
    tables[i] = i < (K + 2) * (K + 2) ? g.normal[i] : g.tangential[i - (K + 2) * (K + 2)];
  const int64_t cell = c0 + g.cells[0] * (c1 + g.cells[1] * c2);
  ts_gpu_hdiv_gather<DIM, K, 0>(g, tables, c0, c1, c2, x, u, t0, t1);
  ts_gpu_hdiv_gather<DIM, K, 1>(g, tables, c0, c1, c2, x, u + NP, t0, t1);
  if (DIM == 3) ts_gpu_hdiv_gather<DIM, K, DIM == 3 ? 2 : 1>(g, tables, c0, c1, c2, x, u + 2 * NP, t0, t1);
  ts_gpu_hdiv_point_tensors<DIM, K>(g, cell, G, u);
  ts_gpu_hdiv_scatter<DIM, K, 0>(g, tables, c0, c1, c2, u, t0, t1, y);
  ts_gpu_hdiv_scatter<DIM, K, 1>(g, tables, c0, c1, c2, u + NP, t0, t1, y);
  if (DIM == 3) ts_gpu_hdiv_scatter<DIM, K, DIM == 3 ? 2 : 1>(g, tables, c0, c1, c2, u + 2 * NP, t0, t1, y);
}

/* The two launches (colors) for degree K. */
template <int DIM, int K>
int ts_gpu_hdiv_cells(const ts_hdiv_mass_plan *pl, const double *x, double *y, char *err) {
  ts_gpu_hdiv_args<K> g;
  for (int i = 0; i < (K + 2) * (K + 2); ++i) g.normal[i] = pl->normal_1d[i];
  for (int i = 0; i < (K + 2) * (K + 1); ++i) g.tangential[i] = pl->tangential_1d[i];
  for (int i = 0; i < K + 2; ++i) g.weights[i] = pl->weights_1d[i];
  for (int d = 0; d < 3; ++d) {
    g.cells[d] = pl->cells[d];
    g.offset[d] = pl->offset[d];
    for (int e = 0; e < 3; ++e) g.n_u[d][e] = pl->n_u[d][e];
  }
  g.cartesian = pl->cartesian;
  const unsigned blocks = (unsigned)((pl->cells[0] + 1) / 2 * pl->cells[1] * pl->cells[2]);
  for (int color = 0; color < 2; ++color) {
    g.color = color;
    ts_gpu_hdiv_mass_kernel<DIM, K><<<blocks, ts_gpu_hdiv_shape<DIM, K>::THREADS>>>(
        g, (const double *)pl->tensors, x, y);
    GPU_CHECK_LAUNCH(err, "ts_gpu_hdiv_mass_kernel");
  }
  return 0;
}

template <int DIM>
int ts_gpu_hdiv_degree(const ts_hdiv_mass_plan *pl, const double *x, double *y, char *err) {
  switch (pl->degree) {
    case 0: return ts_gpu_hdiv_cells<DIM, 0>(pl, x, y, err);
    case 1: return ts_gpu_hdiv_cells<DIM, 1>(pl, x, y, err);
    case 2: return ts_gpu_hdiv_cells<DIM, 2>(pl, x, y, err);
    case 3: return ts_gpu_hdiv_cells<DIM, 3>(pl, x, y, err);
    case 4: return ts_gpu_hdiv_cells<DIM, 4>(pl, x, y, err);
    case 5: return ts_gpu_hdiv_cells<DIM, 5>(pl, x, y, err);
    case 6: return ts_gpu_hdiv_cells<DIM, 6>(pl, x, y, err);
    case 7: return ts_gpu_hdiv_cells<DIM, 7>(pl, x, y, err);
    case 8: return ts_gpu_hdiv_cells<DIM, 8>(pl, x, y, err);
    default:
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s hdiv mass: degree %d not compiled (the GPU kernels "
               "are instantiated for k = 0..8: k = 9 needs more than a block's 48 KB of shared "
               "memory)", TS_GPU_NAME, pl->degree);
      return TS_ERR_UNSUPPORTED;
  }
}

/** y = M x (add = 0) or y += M x on device vectors; the plan is checked by the library, here
 *  what is the GPU's own: the rule (n_q = k + 2), the launch size, x != y. */
inline int ts_gpu_hdiv_mass_apply(const ts_hdiv_mass_plan *pl, const double *x, double *y, int add,
                                  char *err) {
  const int64_t blocks = (pl->cells[0] + 1) / 2 * pl->cells[1] * pl->cells[2];
  if (pl->n_q != pl->degree + 2) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s hdiv mass: n_q = %d quadrature points per "
             "direction; the GPU kernels take degree + 2 = %d", TS_GPU_NAME, pl->n_q, pl->degree + 2);
    return TS_ERR_UNSUPPORTED;
  }
  if (blocks > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s hdiv mass: %lld cells of one color exceed the "
             "2^31-1 blocks of one launch", TS_GPU_NAME, (long long)blocks);
    return TS_ERR_ARG;
  }
  if (x == y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s hdiv mass: x and y are the same vector (in-place "
             "apply is not supported)", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  if (!add) GPU_CHECK(err, "hdiv mass (zero y)", gpuMemsetAsync(y, 0, (size_t)pl->n_dofs * sizeof(double), 0));
  return pl->dim == 3 ? ts_gpu_hdiv_degree<3>(pl, x, y, err) : ts_gpu_hdiv_degree<2>(pl, x, y, err);
}

#define TS_GPU_HDIV_MASS_INSTANTIATE                                                          \
  int ts_gpu_hdiv_mass_apply_double(const ts_hdiv_mass_plan *pl, const double *x, double *y,   \
                                    int add, char *err) {                                      \
    return ts_gpu_hdiv_mass_apply(pl, x, y, add, err);                                         \
  }

#endif
