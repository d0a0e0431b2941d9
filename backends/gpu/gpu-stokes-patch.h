/* gpu-stokes-patch.h -- the GPU Stokes vertex-patch smoother (paper 000, sections 3.1-3.2 and
 * 4.2; doc/stokes.md section 7): the SOLVE stage of ts_stokes_patch_plan (tessera/backend.h)
 * on a structured box, written once for CUDA and HIP, templates over the precision R, the
 * dimension and the degree K = 0..4.  Included by backends/cuda/stokes-patch-*.cu and
 * backends/hip/stokes-patch-*.cpp, which instantiate it (TS_GPU_STOKES_PATCH_INSTANTIATE).
 *
 * Algorithm: one thread block per patch of the color.  The block gathers the residual r on
 * the patch's n_local DoFs into shared memory, solves Acal_j t = r_j there and adds t to x
 * (patches of one color touch disjoint DoFs: no atomics).  The local solve follows the host
 * one of lib/mg/stokes-patch-local.h (omp and the library's reference) step by step, each
 * step spread over the block, with the plan's tables as they are (nothing re-derived):
 *  - SCHUR: A_i^{-1} by fast diagonalization (1D sweeps with the plan's eigenvectors of the
 *    patch kind, the division by sum_d scale_d lambda_d in double as in omp), the pressure
 *    by CG on B A^{-1} B^T preconditioned by the inverse pressure mass, from the zero-mean
 *    right side (cg_tolerance raised to 10 eps of R, cg_max_iterations), the dot products and
 *    means by block-wide tree reductions in R;
 *    then U = A^{-1}(F - B^T P).  Every sweep output entry is one thread's sequential sum
 *    over the line in the omp order, so results agree with omp to rounding (the only
 *    differences: fused multiply-adds and the order of the block reductions).
 *  - DIRECT: t = pseudo_inverse[kind] r_j, one warp-strided dot product per row.
 * Shared memory per block (entries of R): r, t (n_local), a (n_pressure), b, v, z
 * (n_velocity), rhs, res, dir, q, pz (n_pressure) and the reduction buffer (THREADS): at K = 4
 * in 3D 129 KB in double, dynamic with the attribute set once per instance.
 *
 * Plan data: the eigenvectors, the patch divergence and DG mass and (DIRECT) the
 * pseudo-inverses of the kinds that occur are converted to R and uploaded once per distinct
 * plan content to a device buffer (gpu-patch-cache.h: content key, hash, lookup and free are
 * shared with the Q_k smoother; the Stokes plans have their own cache in the backend state
 * and their keys start with a tag), the eigenvalues in double into a second buffer. */
#ifndef TESSERA_GPU_STOKES_PATCH_H
#define TESSERA_GPU_STOKES_PATCH_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gpu-runtime.h"
#include "gpu-patch-cache.h"
#include "tessera.h"

#define TS_GPU_STOKES_PATCH_MAX_K 4 /* instantiated degrees 0..4 */

template <int DIM, int K>
struct ts_gpu_spatch_shape {
  static constexpr int NC = 2 * K + 1, ND = 2 * (K + 1);
  static constexpr int NV = NC * ND * (DIM == 3 ? ND : 1);
  static constexpr int NP = ND * ND * (DIM == 3 ? ND : 1);
  static constexpr int NL = DIM * NV + NP;
  /* a power of two (tree reductions), at most 256 */
  static constexpr int THREADS = NP <= 32 ? 32 : NP <= 64 ? 64 : NP <= 128 ? 128 : 256;
  static constexpr int RED = THREADS < 64 ? 64 : THREADS; /* reduction buffer */
  /* entries of R: the vectors, the reduction buffer, the patch's matrices (S_cont, S_dg per
   * direction, divergence, mass) and the denominators of the DIM velocity inverses */
  static constexpr int SHARED = 2 * NL + 6 * NP + 3 * NV + RED + NC * NC + 3 * ND * ND +
                                ND * NC + ND + DIM * NV;
  /* offsets in the coefficient buffer (R): S_cont, S_dg[4], divergence, dg_mass */
  static constexpr int O_SC = 0, O_SD = NC * NC, O_DIV = NC * NC + 4 * ND * ND;
  static constexpr int O_MASS = O_DIV + ND * NC, COEF = O_MASS + ND;
};

template <typename R>
struct ts_gpu_spatch_args {
  int64_t first[3], count[3], cells[3];
  int64_t offset[4], n[4][3]; /* first index and DoFs per direction of u_0.., p */
  int stride, solver, cg_max;
  R cg_tol2;                  /* (max(cg_tolerance, 10 eps))^2 */
  double scale[3];
  R div_scale[3];
  const R *coef;              /* ts_gpu_spatch_shape offsets, then the pseudo-inverses */
  const double *lambda;       /* cont (NC), then dg[kind] (ND each) */
  int64_t pinv[TS_STOKES_PATCH_MAX_KINDS]; /* offset in coef, -1: absent */
};

/* Shape of field I (component I < DIM, the pressure for I == DIM): S0, S1, S2 DoFs per
 * direction (S2 = 1 in 2D). */
template <int DIM, int K, int I>
struct ts_gpu_spatch_field {
  static constexpr int NC = 2 * K + 1, ND = 2 * (K + 1);
  static constexpr int S0 = I == 0 ? NC : ND, S1 = I == 1 ? NC : ND;
  static constexpr int S2 = DIM == 3 ? (I == 2 ? NC : ND) : 1;
};

/* One 1D sweep along direction D of the shape (S0, S1, S2), all sizes compile-time:
 * out[(o ROWS + r) inner + i] = sum_j B(r, j) in[(o n + j) inner + i], B row-major ROWS x n
 * (TR: B is n x ROWS and B^T is applied); one output entry per thread step, the sum over j
 * sequential as in omp's contract. */
template <typename R, int S0, int S1, int S2, int D, int ROWS, bool TR>
__device__ __forceinline__ void ts_gpu_spatch_sweep(const R *B, const R *in, R *out) {
  constexpr int N = D == 0 ? S0 : D == 1 ? S1 : S2;
  constexpr int INNER = D == 0 ? 1 : D == 1 ? S0 : S0 * S1;
  constexpr int OUTER = D == 2 ? 1 : D == 1 ? S2 : S1 * S2;
  constexpr int TOTAL = OUTER * ROWS * INNER;
  for (int idx = threadIdx.x; idx < TOTAL; idx += blockDim.x) {
    const int i = idx % INNER, r = (idx / INNER) % ROWS, o = idx / (INNER * ROWS);
    const R *ip = in + o * N * INNER + i;
    const R *bp = TR ? B + r : B + r * N;
    R sum = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) sum += (TR ? bp[j * ROWS] : bp[j]) * ip[j * INNER];
    out[idx] = sum;
  }
  __syncthreads();
}

/* The block-wide sum of a[idx] b[idx] (b NULL: of a[idx]), idx < n; red: at least
 * max(64, blockDim.x) entries; blockDim.x a power of two. */
template <typename R>
__device__ __forceinline__ R ts_gpu_spatch_sum(int n, const R *a, const R *b, R *red) {
  R s = 0;
  for (int idx = threadIdx.x; idx < n; idx += blockDim.x) s += b ? a[idx] * b[idx] : a[idx];
#ifdef TS_GPU_HIP /* tree in shared memory (no assumption on the wavefront size) */
  red[threadIdx.x] = s;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if ((int)threadIdx.x < off) red[threadIdx.x] += red[threadIdx.x + off];
    __syncthreads();
  }
  const R res = red[0];
  __syncthreads();
  return res;
#else /* warp shuffles, the warp sums through shared memory: two barriers */
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < (int)(blockDim.x / 32) ? red[lane] : R(0);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) red[32] = s;
  }
  __syncthreads();
  return red[32]; /* rewritten only after the next call's first barrier */
#endif
}

template <typename R>
__device__ __forceinline__ void ts_gpu_spatch_remove_mean(int n, R *a, R *red) {
  const R mean = ts_gpu_spatch_sum<R>(n, a, (const R *)0, red) / (R)n;
  for (int idx = threadIdx.x; idx < n; idx += blockDim.x) a[idx] -= mean;
  __syncthreads();
}

/* The shared work space of one patch (entries of R): vectors, then the patch's matrices. */
template <typename R>
struct ts_gpu_spatch_work {
  R *r, *t, *a, *b, *v, *z, *rhs, *res, *dir, *q, *pz, *red;
  R *sc, *sd[3], *div, *mass; /* S_cont, S_dg of the kind of each direction, B, DG mass */
  R *rden;                    /* per component: (R)(sum_d scale_d lambda_d), NV each */
};

/* val times the patch DG mass of pressure entry idx in every direction but SKIP (SKIP = DIM:
 * all), (x)_d diag(dg_mass), multiplied direction by direction in the omp kernel's order */
template <typename R, int DIM, int K, int SKIP>
__device__ __forceinline__ R ts_gpu_spatch_mass_scale(const R *mass, int idx, R val) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  const int c[3] = {idx % S::ND, (idx / S::ND) % S::ND, idx / (S::ND * S::ND)};
#pragma unroll
  for (int d = 0; d < DIM; ++d)
    if (d != SKIP) val *= mass[c[d]];
  return val;
}

/* out += B_I u (uses w.a) */
template <typename R, int DIM, int K, int I>
__device__ void ts_gpu_spatch_div_add(const ts_gpu_spatch_args<R> &g, const R *u, R *out,
                                      ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  typedef ts_gpu_spatch_field<DIM, K, I> F;
  ts_gpu_spatch_sweep<R, F::S0, F::S1, F::S2, I, S::ND, false>(w.div, u, w.a);
  const R ds = g.div_scale[I];
  for (int idx = threadIdx.x; idx < S::NP; idx += blockDim.x)
    out[idx] += ds * ts_gpu_spatch_mass_scale<R, DIM, K, I>(w.mass, idx, w.a[idx]);
  __syncthreads();
}

/* out = B_I^T p (uses w.a) */
template <typename R, int DIM, int K, int I>
__device__ void ts_gpu_spatch_div_t(const ts_gpu_spatch_args<R> &g, const R *p, R *out,
                                    ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  typedef ts_gpu_spatch_field<DIM, K, DIM> P;
  for (int idx = threadIdx.x; idx < S::NP; idx += blockDim.x)
    w.a[idx] = ts_gpu_spatch_mass_scale<R, DIM, K, I>(w.mass, idx, p[idx]);
  __syncthreads();
  ts_gpu_spatch_sweep<R, P::S0, P::S1, P::S2, I, S::NC, true>(w.div, w.a, out);
  const R ds = g.div_scale[I];
  for (int idx = threadIdx.x; idx < S::NV; idx += blockDim.x) out[idx] *= ds;
  __syncthreads();
}

/* out = A_I^{-1} in by fast diagonalization (uses w.b; out != in, out != w.b) */
template <typename R, int DIM, int K, int I>
__device__ void ts_gpu_spatch_vinv(const R *in, R *out, ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  typedef ts_gpu_spatch_field<DIM, K, I> F;
  const R *S0m = I == 0 ? w.sc : w.sd[0], *S1m = I == 1 ? w.sc : w.sd[1];
  const R *S2m = I == 2 ? w.sc : w.sd[2];
  R *from = w.b, *to = out, *sw;
  for (int idx = threadIdx.x; idx < S::NV; idx += blockDim.x) from[idx] = in[idx];
  __syncthreads();
  ts_gpu_spatch_sweep<R, F::S0, F::S1, F::S2, 0, F::S0, true>(S0m, from, to);
  sw = from; from = to; to = sw;
  ts_gpu_spatch_sweep<R, F::S0, F::S1, F::S2, 1, F::S1, true>(S1m, from, to);
  sw = from; from = to; to = sw;
  if constexpr (DIM == 3) {
    ts_gpu_spatch_sweep<R, F::S0, F::S1, F::S2, 2, F::S2, true>(S2m, from, to);
    sw = from; from = to; to = sw;
  }
  const R *den = w.rden + I * S::NV;
  for (int idx = threadIdx.x; idx < S::NV; idx += blockDim.x) from[idx] /= den[idx];
  __syncthreads();
  ts_gpu_spatch_sweep<R, F::S0, F::S1, F::S2, 0, F::S0, false>(S0m, from, to);
  sw = from; from = to; to = sw;
  ts_gpu_spatch_sweep<R, F::S0, F::S1, F::S2, 1, F::S1, false>(S1m, from, to);
  sw = from; from = to; to = sw;
  if constexpr (DIM == 3) {
    ts_gpu_spatch_sweep<R, F::S0, F::S1, F::S2, 2, F::S2, false>(S2m, from, to);
    sw = from; from = to; to = sw;
  }
  if (from != out) {
    for (int idx = threadIdx.x; idx < S::NV; idx += blockDim.x) out[idx] = from[idx];
    __syncthreads();
  }
}

/* out += B A_I^{-1} B_I^T p for component I */
template <typename R, int DIM, int K, int I>
__device__ __forceinline__ void ts_gpu_spatch_schur_term(const ts_gpu_spatch_args<R> &g,
                                                         const R *p, R *out,
                                                         ts_gpu_spatch_work<R> &w) {
  ts_gpu_spatch_div_t<R, DIM, K, I>(g, p, w.v, w);
  ts_gpu_spatch_vinv<R, DIM, K, I>(w.v, w.z, w);
  ts_gpu_spatch_div_add<R, DIM, K, I>(g, w.z, out, w);
}

/* out = B A^{-1} B^T p */
template <typename R, int DIM, int K>
__device__ void ts_gpu_spatch_schur_apply(const ts_gpu_spatch_args<R> &g, const R *p, R *out,
                                          ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  for (int idx = threadIdx.x; idx < S::NP; idx += blockDim.x) out[idx] = 0;
  __syncthreads();
  ts_gpu_spatch_schur_term<R, DIM, K, 0>(g, p, out, w);
  ts_gpu_spatch_schur_term<R, DIM, K, 1>(g, p, out, w);
  if constexpr (DIM == 3) ts_gpu_spatch_schur_term<R, DIM, K, 2>(g, p, out, w);
}

/* rhs += B_I A_I^{-1} F_I */
template <typename R, int DIM, int K, int I>
__device__ __forceinline__ void ts_gpu_spatch_rhs_term(const ts_gpu_spatch_args<R> &g,
                                                       ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  ts_gpu_spatch_vinv<R, DIM, K, I>(w.r + I * S::NV, w.z, w);
  ts_gpu_spatch_div_add<R, DIM, K, I>(g, w.z, w.rhs, w);
}

/* U_I = A_I^{-1} (F_I - B_I^T P) */
template <typename R, int DIM, int K, int I>
__device__ __forceinline__ void ts_gpu_spatch_velocity(const ts_gpu_spatch_args<R> &g,
                                                       const R *P, ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  ts_gpu_spatch_div_t<R, DIM, K, I>(g, P, w.z, w);
  for (int idx = threadIdx.x; idx < S::NV; idx += blockDim.x)
    w.v[idx] = w.r[I * S::NV + idx] - w.z[idx];
  __syncthreads();
  ts_gpu_spatch_vinv<R, DIM, K, I>(w.v, w.t + I * S::NV, w);
}

/* out = M_p^{-1} in, M_p = (x)_d diag(dg_mass) the patch pressure mass (the CG preconditioner) */
template <typename R, int DIM, int K>
__device__ __forceinline__ void ts_gpu_spatch_mass_inverse(const R *in, R *out,
                                                           ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  for (int idx = threadIdx.x; idx < S::NP; idx += blockDim.x)
    out[idx] = in[idx] / ts_gpu_spatch_mass_scale<R, DIM, K, DIM>(w.mass, idx, R(1));
  __syncthreads();
}

/* w.t = Acal_j^+ w.r by the Schur complement */
template <typename R, int DIM, int K>
__device__ void ts_gpu_spatch_schur(const ts_gpu_spatch_args<R> &g, ts_gpu_spatch_work<R> &w) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  const int n = S::NP;
  R *P = w.t + DIM * S::NV;
  for (int idx = threadIdx.x; idx < n; idx += blockDim.x) w.rhs[idx] = w.r[DIM * S::NV + idx];
  __syncthreads();
  ts_gpu_spatch_rhs_term<R, DIM, K, 0>(g, w); /* rhs = G + B A^{-1} F */
  ts_gpu_spatch_rhs_term<R, DIM, K, 1>(g, w);
  if constexpr (DIM == 3) ts_gpu_spatch_rhs_term<R, DIM, K, 2>(g, w);
  ts_gpu_spatch_remove_mean<R>(n, w.rhs, w.red);
  /* CG preconditioned by M_p^{-1} from P = 0 */
  for (int idx = threadIdx.x; idx < n; idx += blockDim.x) {
    P[idx] = 0;
    w.res[idx] = w.rhs[idx];
  }
  ts_gpu_spatch_mass_inverse<R, DIM, K>(w.res, w.dir, w);
  R rz = ts_gpu_spatch_sum<R>(n, w.res, w.dir, w.red);
  const R stop = g.cg_tol2 * rz;
  for (int it = 0; it < g.cg_max && rz > stop; ++it) {
    ts_gpu_spatch_schur_apply<R, DIM, K>(g, w.dir, w.q, w);
    const R alpha = rz / ts_gpu_spatch_sum<R>(n, w.dir, w.q, w.red);
    for (int idx = threadIdx.x; idx < n; idx += blockDim.x) {
      P[idx] += alpha * w.dir[idx];
      w.res[idx] -= alpha * w.q[idx];
    }
    __syncthreads();
    ts_gpu_spatch_mass_inverse<R, DIM, K>(w.res, w.pz, w);
    const R rz_new = ts_gpu_spatch_sum<R>(n, w.res, w.pz, w.red), beta = rz_new / rz;
    rz = rz_new;
    for (int idx = threadIdx.x; idx < n; idx += blockDim.x)
      w.dir[idx] = w.pz[idx] + beta * w.dir[idx];
    __syncthreads();
  }
  ts_gpu_spatch_remove_mean<R>(n, P, w.red);
  ts_gpu_spatch_velocity<R, DIM, K, 0>(g, P, w); /* U = A^{-1} (F - B^T P) */
  ts_gpu_spatch_velocity<R, DIM, K, 1>(g, P, w);
  if constexpr (DIM == 3) ts_gpu_spatch_velocity<R, DIM, K, 2>(g, P, w);
}

/* the global index of local DoF l of the patch at vertex v (the local order of backend.h) */
template <typename R, int DIM, int K>
__device__ __forceinline__ int64_t ts_gpu_spatch_index(const ts_gpu_spatch_args<R> &g,
                                                       const int64_t *v, int l) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  const int i = l < DIM * S::NV ? l / S::NV : DIM;
  const int loc = l - i * S::NV;
  const int s0 = i == 0 ? S::NC : S::ND, s1 = i == 1 ? S::NC : S::ND;
  const int a[3] = {loc % s0, (loc / s0) % s1, loc / (s0 * s1)};
  int64_t f[3];
  for (int d = 0; d < 3; ++d) f[d] = d < DIM ? (v[d] - 1) * (K + 1) + (d == i ? 1 : 0) + a[d] : 0;
  return g.offset[i] + f[0] + g.n[i][0] * (f[1] + g.n[i][1] * f[2]);
}

template <typename R, int DIM, int K>
__global__ void __launch_bounds__((ts_gpu_spatch_shape<DIM, K>::THREADS))
    ts_gpu_stokes_patch_kernel(const ts_gpu_spatch_args<R> g, const R *__restrict__ r, R *x) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  extern __shared__ double ts_gpu_spatch_smem[]; /* one type for all instances; aligned */
  R *sm = (R *)ts_gpu_spatch_smem;
  ts_gpu_spatch_work<R> w;
  w.r = sm;
  w.t = w.r + S::NL;
  w.a = w.t + S::NL;
  w.b = w.a + S::NP;
  w.v = w.b + S::NV;
  w.z = w.v + S::NV;
  w.rhs = w.z + S::NV;
  w.res = w.rhs + S::NP;
  w.dir = w.res + S::NP;
  w.q = w.dir + S::NP;
  w.pz = w.q + S::NP;
  w.red = w.pz + S::NP;
  w.sc = w.red + S::RED;
  w.sd[0] = w.sc + S::NC * S::NC;
  w.sd[1] = w.sd[0] + S::ND * S::ND;
  w.sd[2] = w.sd[1] + S::ND * S::ND;
  w.div = w.sd[2] + S::ND * S::ND;
  w.mass = w.div + S::ND * S::NC;
  w.rden = w.mass + S::ND;
  const int64_t P = blockIdx.x;
  const int64_t jd[3] = {P % g.count[0], P / g.count[0] % g.count[1],
                         P / (g.count[0] * g.count[1])};
  int64_t v[3] = {0, 0, 0};
  int kinds[3] = {0, 0, 0}, kind = 0;
  for (int d = 0; d < DIM; ++d) {
    v[d] = g.first[d] + g.stride * jd[d];
    kinds[d] = (v[d] == 1 ? 1 : 0) | (v[d] == g.cells[d] - 1 ? 2 : 0);
    kind += kinds[d] << (2 * d);
  }
  for (int l = threadIdx.x; l < S::NL; l += blockDim.x)
    w.r[l] = r[ts_gpu_spatch_index<R, DIM, K>(g, v, l)];
  if (g.solver == TS_STOKES_PATCH_SCHUR) {
    /* the patch's matrices into shared memory: the eigenvectors of the kinds, B, the mass */
    for (int e = threadIdx.x; e < S::NC * S::NC; e += blockDim.x) w.sc[e] = g.coef[S::O_SC + e];
    for (int e = threadIdx.x; e < 3 * S::ND * S::ND; e += blockDim.x) {
      const int d = e / (S::ND * S::ND);
      w.sd[0][e] = d < DIM ? g.coef[S::O_SD + kinds[d] * S::ND * S::ND + e % (S::ND * S::ND)] : R(0);
    }
    for (int e = threadIdx.x; e < S::ND * S::NC; e += blockDim.x) w.div[e] = g.coef[S::O_DIV + e];
    for (int e = threadIdx.x; e < S::ND; e += blockDim.x) w.mass[e] = g.coef[S::O_MASS + e];
    /* (R)(sum_d scale_d lambda_{d,a_d}) per component, summed in double as omp does */
    for (int e = threadIdx.x; e < DIM * S::NV; e += blockDim.x) {
      const int i = e / S::NV, idx = e % S::NV;
      const int s0 = i == 0 ? S::NC : S::ND, s1 = i == 1 ? S::NC : S::ND;
      const int a[3] = {idx % s0, (idx / s0) % s1, idx / (s0 * s1)};
      const double *lam[3];
      for (int d = 0; d < DIM; ++d) lam[d] = d == i ? g.lambda : g.lambda + S::NC + kinds[d] * S::ND;
      double den = g.scale[0] * lam[0][a[0]] + g.scale[1] * lam[1][a[1]];
      if (DIM == 3) den += g.scale[2] * lam[2][a[2]];
      w.rden[e] = (R)den;
    }
    __syncthreads();
    ts_gpu_spatch_schur<R, DIM, K>(g, w);
  } else { /* t = pinv r: a warp per row, lanes strided over the columns */
    __syncthreads();
    const R *pinv = g.coef + g.pinv[kind];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    for (int row0 = 0; row0 < S::NL; row0 += warps) { /* uniform trip count: block syncs */
      const int row = row0 + warp;
      R sum = 0;
      if (row < S::NL) {
        const R *pr = pinv + (int64_t)row * S::NL;
        for (int j = lane; j < S::NL; j += 32) sum += pr[j] * w.r[j];
      }
      w.red[threadIdx.x] = sum;
      __syncthreads();
      if (lane == 0 && row < S::NL) {
        R total = 0;
        for (int q = 0; q < 32; ++q) total += w.red[threadIdx.x + q];
        w.t[row] = total;
      }
      __syncthreads();
    }
  }
  for (int l = threadIdx.x; l < S::NL; l += blockDim.x)
    x[ts_gpu_spatch_index<R, DIM, K>(g, v, l)] += w.t[l];
}

#define TS_GPU_SPATCH_FAIL(...)                             \
  do {                                                      \
    snprintf(err, TS_BACKEND_ERROR_SIZE, __VA_ARGS__);      \
    return TS_ERR_ARG;                                      \
  } while (0)

/* The plan (valid: lib/plan-check.c) has a degree this backend was compiled for; 0 or
 * TS_ERR_ARG with a message. */
static inline int ts_gpu_spatch_check(const ts_stokes_patch_plan *pl, char *err) {
  if (pl->global.degree > TS_GPU_STOKES_PATCH_MAX_K)
    TS_GPU_SPATCH_FAIL("%s stokes_patch_smooth: degree %d not compiled (kernels for k = 0..%d)",
                       TS_GPU_NAME, pl->global.degree, TS_GPU_STOKES_PATCH_MAX_K);
  return 0;
}

/* The cache key in c->scratch: a tag, precision, sizes, solver, then the matrices of the
 * solver (SCHUR: eigen-decompositions; DIRECT: per kind a flag and the pseudo-inverse), the
 * divergence and the DG mass.  Returns its length (0: out of host memory). */
static inline size_t ts_gpu_spatch_key(ts_gpu_patch_cache *c, const ts_stokes_patch_plan *pl,
                                       int prec) {
  const size_t NC = (size_t)pl->n_cont, ND = (size_t)pl->n_dg, NL = (size_t)pl->n_local;
  const int schur = pl->solver == TS_STOKES_PATCH_SCHUR;
  size_t len = 6 + ND * NC + ND;
  if (schur)
    len += NC * NC + NC + TS_STOKES_PATCH_KINDS * (ND * ND + ND);
  else
    for (int kind = 0; kind < TS_STOKES_PATCH_MAX_KINDS; ++kind)
      len += 1 + (pl->pseudo_inverse[kind] ? NL * NL : 0);
  if (c->scratch_len < len) {
    double *s = (double *)realloc(c->scratch, len * sizeof(double));
    if (!s) return 0;
    c->scratch = s;
    c->scratch_len = len;
  }
  double *k = c->scratch, *at = k + 6;
  k[0] = -1234.5; /* tag: a Stokes patch plan */
  k[1] = prec;
  k[2] = pl->global.dim;
  k[3] = pl->global.degree;
  k[4] = (double)NL;
  k[5] = pl->solver;
#define TS_GPU_SPATCH_PUT(src, n) (memcpy(at, (src), (n) * sizeof(double)), at += (n))
  TS_GPU_SPATCH_PUT(pl->divergence, ND * NC);
  TS_GPU_SPATCH_PUT(pl->dg_mass, ND);
  if (schur) {
    TS_GPU_SPATCH_PUT(pl->cont_eigenvectors, NC * NC);
    TS_GPU_SPATCH_PUT(pl->cont_eigenvalues, NC);
    for (int kind = 0; kind < TS_STOKES_PATCH_KINDS; ++kind) {
      TS_GPU_SPATCH_PUT(pl->dg_eigenvectors[kind], ND * ND);
      TS_GPU_SPATCH_PUT(pl->dg_eigenvalues[kind], ND);
    }
  } else {
    for (int kind = 0; kind < TS_STOKES_PATCH_MAX_KINDS; ++kind) {
      *at++ = pl->pseudo_inverse[kind] ? 1.0 : 0.0;
      if (pl->pseudo_inverse[kind]) TS_GPU_SPATCH_PUT(pl->pseudo_inverse[kind], NL * NL);
    }
  }
#undef TS_GPU_SPATCH_PUT
  return len;
}

/* Uploads the entry's data in precision R: e->coef the matrices (ts_gpu_spatch_shape offsets,
 * then the pseudo-inverses in kind order), e->linv the eigenvalues in double. */
template <typename R>
static int ts_gpu_spatch_upload(ts_gpu_patch_entry *e, const ts_stokes_patch_plan *pl,
                                char *err) {
  const size_t NC = (size_t)pl->n_cont, ND = (size_t)pl->n_dg, NL = (size_t)pl->n_local;
  const size_t base = NC * NC + 4 * ND * ND + ND * NC + ND;
  size_t n = base;
  if (pl->solver == TS_STOKES_PATCH_DIRECT)
    for (int kind = 0; kind < TS_STOKES_PATCH_MAX_KINDS; ++kind)
      if (pl->pseudo_inverse[kind]) n += NL * NL;
  const size_t nl = NC + 4 * ND;
  R *h = (R *)calloc(n, sizeof(R));
  double *L = (double *)calloc(nl, sizeof(double));
  if (!h || !L) {
    free(h);
    free(L);
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s stokes_patch_smooth: out of host memory",
             TS_GPU_NAME);
    return TS_ERR_MEMORY;
  }
  if (pl->solver == TS_STOKES_PATCH_SCHUR) {
    for (size_t i = 0; i < NC * NC; ++i) h[i] = (R)pl->cont_eigenvectors[i];
    for (int kind = 0; kind < TS_STOKES_PATCH_KINDS; ++kind)
      for (size_t i = 0; i < ND * ND; ++i)
        h[NC * NC + kind * ND * ND + i] = (R)pl->dg_eigenvectors[kind][i];
    for (size_t i = 0; i < NC; ++i) L[i] = pl->cont_eigenvalues[i];
    for (int kind = 0; kind < TS_STOKES_PATCH_KINDS; ++kind)
      for (size_t i = 0; i < ND; ++i) L[NC + kind * ND + i] = pl->dg_eigenvalues[kind][i];
  }
  for (size_t i = 0; i < ND * NC; ++i) h[NC * NC + 4 * ND * ND + i] = (R)pl->divergence[i];
  for (size_t i = 0; i < ND; ++i) h[NC * NC + 4 * ND * ND + ND * NC + i] = (R)pl->dg_mass[i];
  if (pl->solver == TS_STOKES_PATCH_DIRECT) {
    size_t at = base;
    for (int kind = 0; kind < TS_STOKES_PATCH_MAX_KINDS; ++kind)
      if (pl->pseudo_inverse[kind]) {
        for (size_t i = 0; i < NL * NL; ++i) h[at + i] = (R)pl->pseudo_inverse[kind][i];
        at += NL * NL;
      }
  }
  e->coef_bytes = n * sizeof(R);
  gpuError_t ec = gpuMalloc(&e->coef, e->coef_bytes);
  if (ec == gpuSuccess) ec = gpuMalloc(&e->linv, nl * sizeof(double));
  if (ec == gpuSuccess) ec = gpuMemcpy(e->coef, h, e->coef_bytes, gpuMemcpyHostToDevice);
  if (ec == gpuSuccess) ec = gpuMemcpy(e->linv, L, nl * sizeof(double), gpuMemcpyHostToDevice);
  free(h);
  free(L);
  GPU_CHECK(err, "stokes_patch_smooth (upload of the plan's matrices)", ec);
  return 0;
}

/* The cache entry of the plan in precision R: found by content or created and uploaded. */
template <typename R>
static int ts_gpu_spatch_entry_get(ts_gpu_patch_cache *c, const ts_stokes_patch_plan *pl,
                                   ts_gpu_patch_entry **out, char *err) {
  const int prec = sizeof(R) == sizeof(double) ? TS_DOUBLE : TS_SINGLE;
  const size_t len = ts_gpu_spatch_key(c, pl, prec);
  if (!len) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s stokes_patch_smooth: out of host memory",
             TS_GPU_NAME);
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
      snprintf(err, TS_BACKEND_ERROR_SIZE, "%s stokes_patch_smooth: out of host memory",
               TS_GPU_NAME);
      return TS_ERR_MEMORY;
    }
    memcpy(key, c->scratch, len * sizeof(double));
    e->key = key;
    e->key_len = len;
    e->hash = hash;
    e->next = c->head;
    c->head = e; /* freed with the cache also when the upload fails */
    const int rc = ts_gpu_spatch_upload<R>(e, pl, err);
    if (rc) {
      e->hash = ~hash; /* never found again */
      return rc;
    }
  }
  *out = e;
  return 0;
}

template <typename R, int DIM, int K>
static int ts_gpu_spatch_launch(const ts_gpu_spatch_args<R> &g, int64_t npatch, const R *r,
                                R *x, char *err) {
  typedef ts_gpu_spatch_shape<DIM, K> S;
  const size_t bytes = (size_t)S::SHARED * sizeof(R);
  static int attribute_set = 0;
  void (*kernel)(const ts_gpu_spatch_args<R>, const R *, R *) = ts_gpu_stokes_patch_kernel<R, DIM, K>;
  if (bytes > 48 * 1024 && !attribute_set) {
    GPU_CHECK(err, "stokes_patch_smooth (shared memory attribute of ts_gpu_stokes_patch_kernel)",
              gpuFuncSetAttribute(kernel, gpuFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    attribute_set = 1;
  }
  ts_gpu_stokes_patch_kernel<R, DIM, K><<<(unsigned)npatch, S::THREADS, bytes>>>(g, r, x);
  GPU_CHECK_LAUNCH(err, "ts_gpu_stokes_patch_kernel (stokes_patch_smooth)");
  return 0;
}

#define TS_GPU_SPATCH_CASE(DIM, K) \
  case DIM * 16 + K: return ts_gpu_spatch_launch<R, DIM, K>(g, npatch, r, x, err);

/** One SOLVE pass over the patches of plan->color: x += R_j^T Acal_j^+ R_j r, device vectors
 *  of precision R (b unused, as in omp). */
template <typename R>
int ts_gpu_stokes_patch_smooth(ts_gpu_patch_cache *cache, const ts_stokes_patch_plan *pl,
                               const R *b, R *x, R *r, char *err) {
  (void)b;
  int rc = ts_gpu_spatch_check(pl, err);
  if (rc) return rc;
  if (!x || !r || x == r)
    TS_GPU_SPATCH_FAIL("%s stokes_patch_smooth: x and r must be two different vectors",
                       TS_GPU_NAME);
  const ts_stokes_plan *gl = &pl->global;
  const int dim = gl->dim;
  ts_gpu_spatch_args<R> g;
  memset(&g, 0, sizeof g);
  int64_t npatch = 1;
  for (int d = 0; d < 3; ++d) {
    g.first[d] = d < dim ? pl->first_vertex[d] : 0;
    g.count[d] = d < dim ? pl->vertex_count[d] : 1;
    g.cells[d] = gl->cells[d];
    npatch *= g.count[d];
    g.scale[d] = d < dim ? gl->scale[d] : 0.0;
    g.div_scale[d] = (R)(d < dim ? gl->div_scale[d] : 0.0);
  }
  if (npatch == 0) return 0;
  if (npatch > 2147483647LL)
    TS_GPU_SPATCH_FAIL("%s stokes_patch_smooth: %lld patches exceed the grid limit",
                       TS_GPU_NAME, (long long)npatch);
  for (int i = 0; i <= dim; ++i) {
    g.offset[i] = gl->offset[i];
    for (int d = 0; d < 3; ++d) g.n[i][d] = i < dim ? gl->n_u[i][d] : gl->n_p[d];
  }
  g.stride = pl->vertex_stride;
  g.solver = (int)pl->solver;
  g.cg_max = pl->cg_max_iterations;
  const double eps = sizeof(R) == sizeof(double) ? DBL_EPSILON : FLT_EPSILON;
  const double tol = pl->cg_tolerance > 10 * eps ? pl->cg_tolerance : 10 * eps;
  g.cg_tol2 = (R)(tol * tol);
  ts_gpu_patch_entry *e;
  rc = ts_gpu_spatch_entry_get<R>(cache, pl, &e, err);
  if (rc) return rc;
  g.coef = (const R *)e->coef;
  g.lambda = (const double *)e->linv;
  const size_t NL = (size_t)pl->n_local;
  size_t at = (size_t)pl->n_cont * pl->n_cont + 4 * (size_t)pl->n_dg * pl->n_dg +
              (size_t)pl->n_dg * pl->n_cont + pl->n_dg;
  for (int kind = 0; kind < TS_STOKES_PATCH_MAX_KINDS; ++kind) {
    g.pinv[kind] = -1;
    if (pl->solver == TS_STOKES_PATCH_DIRECT && pl->pseudo_inverse[kind]) {
      g.pinv[kind] = (int64_t)at;
      at += NL * NL;
    }
  }
  switch (dim * 16 + gl->degree) {
    TS_GPU_SPATCH_CASE(2, 0) TS_GPU_SPATCH_CASE(2, 1) TS_GPU_SPATCH_CASE(2, 2)
    TS_GPU_SPATCH_CASE(2, 3) TS_GPU_SPATCH_CASE(2, 4)
    TS_GPU_SPATCH_CASE(3, 0) TS_GPU_SPATCH_CASE(3, 1) TS_GPU_SPATCH_CASE(3, 2)
    TS_GPU_SPATCH_CASE(3, 3) TS_GPU_SPATCH_CASE(3, 4)
  }
  TS_GPU_SPATCH_FAIL("%s stokes_patch_smooth: dimension %d, degree %d not compiled (kernels for "
                     "k = 0..%d)", TS_GPU_NAME, dim, gl->degree, TS_GPU_STOKES_PATCH_MAX_K);
}
#undef TS_GPU_SPATCH_CASE

#define TS_GPU_STOKES_PATCH_INSTANTIATE(R)                                                     \
  template int ts_gpu_stokes_patch_smooth<R>(ts_gpu_patch_cache *, const ts_stokes_patch_plan *, \
                                             const R *, R *, R *, char *);

#endif
