/* gpu-stokes.h -- the GPU Stokes operator y = Acal x (add: y += Acal x) of paper 000 (eq. 3-4)
 * for RT_k x DGQ_k on a box (ts_stokes_plan, doc/stokes.md section 4), written once for
 * CUDA and HIP: templates over the precision R, the dimension DIM, the degree K and, for the
 * velocity rows, the component I.  Included by backends/cuda/stokes-*.cu and
 * backends/hip/stokes-*.cpp, which instantiate it (TS_GPU_STOKES_INSTANTIATE) for
 * k = 0..TS_GPU_STOKES_MAX_DEGREE; a larger degree is refused with "degree not compiled".
 *
 * Math (doc/stokes.md section 4).  With z = u_I with its constrained (normal boundary) entries
 * zeroed and W_{!S}(a) = prod_{e not in S} dg_mass[a_e mod (k+1)]:
 *   y_{u_I}(a) = scale[I] W_{!I} (Kc z)_I(a) + sum_{d != I} scale[d] W_{!I,!d} (L_d Mc_I z)(a)
 *              + div_scale[I] W_{!I} (D^T p)_I(a),
 *   y_p(q)    = - sum_i div_scale[i] W_{!i}(q) (D z_i)_i(q),
 * where ( )_I is the 1D operator along direction I (the continuous one: Kc, Mc assembled
 * with shared end DoFs, D^T), and L_d the block-tridiagonal SIPG matrix along d.  Since all
 * other-direction masses are diagonal, every output entry needs only the DoFs on the lines
 * through it: the own continuous line (Kc, D^T, up to 2(k+2) entries) and, per DG
 * direction d, the 3(k+1) lines along I through the DG DoFs of its cell and the two
 * neighbour cells along d, each contracted with the output's row of Mc (t = Mc_I z,
 * computed once per component, see below).
 *
 * Algorithm.  Gather formulation, one thread per output DoF, so every output entry is
 * written once, by one thread, without atomics (the continuous direction's shared end DoF
 * is one row, a gather over both of its cells, so no ownership split is needed).  Per
 * velocity component I (a template parameter, as are the dimension and the degree, so all
 * index arithmetic is resolved at compile time): a mass pass t = Mc_I z into the backend's
 * work space (ts_gpu_stokes_work, one component, grown once and kept), then the velocity
 * rows (Kc and D^T along the own line from x, the SIPG terms from the 3(k+1) entries of t
 * along each DG direction); finally one pressure pass (all components summed in
 * registers).  The 1D matrices are copied per block into shared memory (a few hundred
 * words); the input is read through the read-only path and its reuse between neighbouring
 * threads (lines, SIPG neighbours) is served by L1/L2.  Without work space (allocation
 * failed, or TESSERA_GPU_STOKES_RECOMPUTE=1) the velocity rows recompute t on the fly (the
 * same kernel, template flag T = false).
 * Cost (3D, double, n DoFs, 3n/4 velocity): DRAM per component pass reads u_I twice and p,
 * writes and reads t, writes y_I; the pressure pass rereads u and writes y_p: about 44
 * bytes per DoF against the minimum 16 (read x, write y) if nothing stays in L2; loads from L1/L2 per
 * velocity row (k+2) + (k+1) + 2 * 3(k+1) = 41 (and k+2 for t), per pressure row 3(k+2);
 * about twice as many flops.  The recomputing variant needs (k+2) + (k+1) +
 * 2 * 3(k+1)(k+2) = 191 loads per velocity row and is instruction bound (H100 3D k = 4:
 * 0.25 ns/DoF against 0.055 with t, bench/results/2026-11-23-h100-stokes-operator*).
 * Constrained rows: y = x (add: y += x), their entries read as zero elsewhere. */
#ifndef TESSERA_GPU_STOKES_H
#define TESSERA_GPU_STOKES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu-runtime.h"
#include "gpu-stokes-work.h"

/* the compiled degrees: k = 0..TS_GPU_STOKES_MAX_DEGREE (CI compile time; see Makefile.am) */
#define TS_GPU_STOKES_MAX_DEGREE 4

/* Thread block: TS_GPU_STOKES_TX outputs along direction 0 (coalesced), TY along 1. */
#define TS_GPU_STOKES_TX 32
#define TS_GPU_STOKES_TY 8

/* The 1D matrices in precision R (kernel parameter; copied to shared memory per block). */
template <typename R, int K>
struct ts_gpu_stokes_mats {
  static constexpr int K1 = K + 1, K2 = K + 2;
  R mc[K2 * K2], kc[K2 * K2]; /* continuous mass and stiffness, row-major */
  R md[K1];                   /* DG mass (diagonal) */
  R ld[4][K1 * K1], lu[K1 * K1];
  R div[K1 * K2];             /* D: (k+1) x (k+2) */
  R scale[3], div_scale[3];
};

template <typename R, int K>
struct ts_gpu_stokes_args {
  ts_gpu_stokes_mats<R, K> m;
  int64_t cells[3];
  int64_t n[3][3];    /* n_u[i][d] (1 beyond dim) */
  int64_t np[3];
  int64_t offset[4];
  int constrained, add;
};

/* The words of ts_gpu_stokes_mats copied into shared memory by the block. */
template <typename R, int K>
__device__ __forceinline__ void ts_gpu_stokes_load_mats(const ts_gpu_stokes_mats<R, K> &g,
                                                        ts_gpu_stokes_mats<R, K> &s) {
  constexpr int words = sizeof(ts_gpu_stokes_mats<R, K>) / sizeof(R);
  const R *src = (const R *)&g;
  R *dst = (R *)&s;
  const int t = threadIdx.x + blockDim.x * threadIdx.y;
  for (int i = t; i < words; i += blockDim.x * blockDim.y) dst[i] = src[i];
  __syncthreads();
}

/* The taps of the continuous gather at 1D index a along a line of n = cells (k+1) + 1 DoFs:
 * row r of the cell c = a / (k+1) (if c < cells) and, for an end point r = 0 with c > 0, row
 * k+1 of cell c-1.  Entries read as zero (constrained ends) get weight 0; base indices are
 * clamped into the line. */
template <int K>
struct ts_gpu_stokes_taps {
  int64_t left, right; /* first line index of the left / right cell */
  int r;               /* the row in the right cell (unused if !has_right) */
  bool has_left, has_right;
  bool zero_first, zero_last; /* line index 0 / n-1 reads as zero */
};

template <int K>
__device__ __forceinline__ ts_gpu_stokes_taps<K> ts_gpu_stokes_make_taps(int64_t a, int64_t cells,
                                                                         int constrained) {
  constexpr int K1 = K + 1;
  ts_gpu_stokes_taps<K> t;
  const int64_t c = a / K1;
  t.r = (int)(a - c * K1);
  t.has_right = c < cells;
  t.has_left = t.r == 0 && c > 0;
  t.right = (c < cells ? c : cells - 1) * K1;
  t.left = (c > 0 ? c - 1 : 0) * K1;
  t.zero_first = constrained;
  t.zero_last = constrained;
  return t;
}

/* sum_j C(row, j) z(line[j * stride]) over the taps; C is (k+2) x (k+2). */
template <typename R, int K>
__device__ __forceinline__ R ts_gpu_stokes_cont(const R *__restrict__ C, const ts_gpu_stokes_taps<K> &t,
                                                const R *__restrict__ line, int64_t stride,
                                                int64_t last) {
  constexpr int K1 = K + 1, K2 = K + 2;
  R s = 0;
  if (t.has_right) {
#pragma unroll
    for (int b = 0; b < K2; ++b) {
      const int64_t j = t.right + b;
      R v = __ldg(line + j * stride);
      if ((t.zero_first && j == 0) || (t.zero_last && j == last)) v = 0;
      s += C[t.r * K2 + b] * v;
    }
  }
  if (t.has_left) {
#pragma unroll
    for (int b = 0; b < K2; ++b) {
      const int64_t j = t.left + b;
      R v = __ldg(line + j * stride);
      if ((t.zero_first && j == 0) || (t.zero_last && j == last)) v = 0;
      s += C[K1 * K2 + b] * v;
    }
  }
  return s;
}

/* t = Mc_I z for component I (the mass along the continuous direction of the masked
 * velocity), stored like u_I: the input of the SIPG terms of the velocity rows. */
template <typename R, int DIM, int K, int I>
__global__ void __launch_bounds__(TS_GPU_STOKES_TX *TS_GPU_STOKES_TY)
    ts_gpu_stokes_mass_kernel(const ts_gpu_stokes_args<R, K> g, const R *__restrict__ x,
                              R *__restrict__ t) {
  __shared__ ts_gpu_stokes_mats<R, K> m;
  ts_gpu_stokes_load_mats<R, K>(g.m, m);
  const int64_t n0 = g.n[I][0], n1 = g.n[I][1], n2 = DIM == 3 ? g.n[I][2] : 1;
  const int64_t stride[3] = {1, n0, n0 * n1};
  const int64_t last = g.n[I][I] - 1;
  const R *xi = x + g.offset[I];
  const int64_t a0 = (int64_t)blockIdx.x * TS_GPU_STOKES_TX + threadIdx.x;
  if (a0 >= n0) return;
  for (int64_t a2 = blockIdx.z; a2 < n2; a2 += gridDim.z)
    for (int64_t a1 = (int64_t)blockIdx.y * TS_GPU_STOKES_TY + threadIdx.y; a1 < n1;
         a1 += (int64_t)gridDim.y * TS_GPU_STOKES_TY) {
      const int64_t a[3] = {a0, a1, a2};
      const int64_t idx = a0 + stride[1] * a1 + stride[2] * a2;
      const ts_gpu_stokes_taps<K> tp = ts_gpu_stokes_make_taps<K>(a[I], g.cells[I], g.constrained);
      t[idx] = ts_gpu_stokes_cont<R, K>(m.mc, tp, xi + idx - a[I] * stride[I], stride[I], last);
    }
}

/* The velocity rows of component I.  T: the SIPG terms read t = Mc_I z from tm (written by
 * ts_gpu_stokes_mass_kernel); !T: they recompute it from x (no work space). */
template <typename R, int DIM, int K, int I, bool T>
__global__ void __launch_bounds__(TS_GPU_STOKES_TX *TS_GPU_STOKES_TY)
    ts_gpu_stokes_velocity_kernel(const ts_gpu_stokes_args<R, K> g, const R *__restrict__ x,
                                  const R *__restrict__ tm, R *__restrict__ y) {
  constexpr int K1 = K + 1;
  __shared__ ts_gpu_stokes_mats<R, K> m;
  ts_gpu_stokes_load_mats<R, K>(g.m, m);
  const int64_t n0 = g.n[I][0], n1 = g.n[I][1], n2 = DIM == 3 ? g.n[I][2] : 1;
  const int64_t stride[3] = {1, n0, n0 * n1};
  const int64_t pstride[3] = {1, g.np[0], g.np[0] * g.np[1]};
  const int64_t nI = g.n[I][I], cellsI = g.cells[I], last = nI - 1;
  const R *xi = x + g.offset[I];
  const R *p = x + g.offset[DIM];
  R *yi = y + g.offset[I];
  const int64_t a0 = (int64_t)blockIdx.x * TS_GPU_STOKES_TX + threadIdx.x;
  if (a0 >= n0) return;
  for (int64_t a2 = blockIdx.z; a2 < n2; a2 += gridDim.z)
    for (int64_t a1 = (int64_t)blockIdx.y * TS_GPU_STOKES_TY + threadIdx.y; a1 < n1;
         a1 += (int64_t)gridDim.y * TS_GPU_STOKES_TY) {
      const int64_t a[3] = {a0, a1, a2};
      const int64_t idx = a0 + stride[1] * a1 + stride[2] * a2;
      R value;
      if (g.constrained && (a[I] == 0 || a[I] == last)) {
        value = xi[idx];
      } else {
        R w[3];
#pragma unroll
        for (int d = 0; d < 3; ++d) w[d] = d == I || d >= DIM ? (R)1 : m.md[a[d] % K1];
        const R w_others = w[0] * w[1] * w[2];
        const ts_gpu_stokes_taps<K> t = ts_gpu_stokes_make_taps<K>(a[I], cellsI, g.constrained);
        const R *line_i = xi + idx - a[I] * stride[I];
        value = m.scale[I] * w_others * ts_gpu_stokes_cont<R, K>(m.kc, t, line_i, stride[I], last);
#pragma unroll
        for (int d = 0; d < DIM; ++d) {
          if (d == I) continue;
          const int64_t cd = a[d] / K1, cells_d = g.cells[d];
          const int r = (int)(a[d] - cd * K1);
          const int kind = (cd == 0 ? 1 : 0) + (cd == cells_d - 1 ? 2 : 0);
          const R *L = m.ld[kind];
          const R *base = line_i - a[d] * stride[d]; /* the line at a_d = 0 */
          const R *tbase = tm + idx - a[d] * stride[d]; /* t at a_d = 0 (T) */
          /* t at 1D index j along d of the line through a */
          auto tval = [&](int64_t j) -> R {
            if (T) return __ldg(tbase + j * stride[d]);
            return ts_gpu_stokes_cont<R, K>(m.mc, t, base + j * stride[d], stride[I], last);
          };
          R s = 0;
#pragma unroll
          for (int b = 0; b < K1; ++b) s += L[r * K1 + b] * tval(cd * K1 + b);
          if (cd + 1 < cells_d) {
#pragma unroll
            for (int b = 0; b < K1; ++b) s += m.lu[r * K1 + b] * tval((cd + 1) * K1 + b);
          }
          if (cd > 0) { /* block (c, c-1) = Lu^T */
#pragma unroll
            for (int b = 0; b < K1; ++b) s += m.lu[b * K1 + r] * tval((cd - 1) * K1 + b);
          }
          R w_d = 1; /* W_{!I,!d}: the DG masses of the directions other than I and d */
#pragma unroll
          for (int e = 0; e < 3; ++e)
            if (e != d) w_d *= w[e];
          value += m.scale[d] * w_d * s;
        }
        /* (D^T p)_I: the pressure line through a along I (the same DG indices elsewhere) */
        int64_t pline = 0;
#pragma unroll
        for (int d = 0; d < DIM; ++d)
          if (d != I) pline += a[d] * pstride[d];
        const R *pl = p + pline;
        R s = 0;
        if (t.has_right) {
          const int64_t c = t.right / K1;
#pragma unroll
          for (int b = 0; b < K1; ++b) s += m.div[b * (K + 2) + t.r] * __ldg(pl + (c * K1 + b) * pstride[I]);
        }
        if (t.has_left) {
          const int64_t c = t.left / K1;
#pragma unroll
          for (int b = 0; b < K1; ++b) s += m.div[b * (K + 2) + K1] * __ldg(pl + (c * K1 + b) * pstride[I]);
        }
        value += m.div_scale[I] * w_others * s;
      }
      yi[idx] = g.add ? (R)(yi[idx] + value) : value;
    }
}

/* The pressure rows: y_p = - sum_i B_i z_i (add: y_p -= ...). */
template <typename R, int DIM, int K>
__global__ void __launch_bounds__(TS_GPU_STOKES_TX *TS_GPU_STOKES_TY)
    ts_gpu_stokes_pressure_kernel(const ts_gpu_stokes_args<R, K> g, const R *__restrict__ x,
                                  R *__restrict__ y) {
  constexpr int K1 = K + 1, K2 = K + 2;
  __shared__ ts_gpu_stokes_mats<R, K> m;
  ts_gpu_stokes_load_mats<R, K>(g.m, m);
  const int64_t n0 = g.np[0], n1 = g.np[1], n2 = DIM == 3 ? g.np[2] : 1;
  R *yp = y + g.offset[DIM];
  const int64_t q0 = (int64_t)blockIdx.x * TS_GPU_STOKES_TX + threadIdx.x;
  if (q0 >= n0) return;
  for (int64_t q2 = blockIdx.z; q2 < n2; q2 += gridDim.z)
    for (int64_t q1 = (int64_t)blockIdx.y * TS_GPU_STOKES_TY + threadIdx.y; q1 < n1;
         q1 += (int64_t)gridDim.y * TS_GPU_STOKES_TY) {
      const int64_t q[3] = {q0, q1, q2};
      R w[3];
#pragma unroll
      for (int d = 0; d < 3; ++d) w[d] = d < DIM ? m.md[q[d] % K1] : (R)1;
      R value = 0;
#pragma unroll
      for (int i = 0; i < DIM; ++i) {
        const int64_t stride[3] = {1, g.n[i][0], g.n[i][0] * g.n[i][1]};
        int64_t line = 0;
        R w_others = 1;
#pragma unroll
        for (int d = 0; d < DIM; ++d)
          if (d != i) {
            line += q[d] * stride[d];
            w_others *= w[d];
          }
        const R *z = x + g.offset[i] + line;
        const int64_t c = q[i] / K1, last = g.n[i][i] - 1;
        const int r = (int)(q[i] - c * K1);
        R s = 0;
#pragma unroll
        for (int b = 0; b < K2; ++b) {
          const int64_t j = c * K1 + b;
          R v = __ldg(z + j * stride[i]);
          if (g.constrained && (j == 0 || j == last)) v = 0;
          s += m.div[r * K2 + b] * v;
        }
        value -= m.div_scale[i] * w_others * s;
      }
      const int64_t idx = q0 + n0 * (q1 + n1 * q2);
      yp[idx] = g.add ? (R)(yp[idx] + value) : value;
    }
}

/* The launch grid of a box of n0 x n1 x n2 outputs (grid-stride beyond the grid limits). */
static inline dim3 ts_gpu_stokes_grid(int64_t n0, int64_t n1, int64_t n2) {
  const int64_t gx = (n0 + TS_GPU_STOKES_TX - 1) / TS_GPU_STOKES_TX;
  int64_t gy = (n1 + TS_GPU_STOKES_TY - 1) / TS_GPU_STOKES_TY;
  int64_t gz = n2;
  if (gy > 65535) gy = 65535;
  if (gz > 65535) gz = 65535;
  return dim3((unsigned)gx, (unsigned)gy, (unsigned)gz);
}

template <typename R, int DIM, int K, int I>
static int ts_gpu_stokes_launch_velocity(const ts_gpu_stokes_args<R, K> &g, const R *x, R *t,
                                         R *y, char *err) {
  const dim3 block(TS_GPU_STOKES_TX, TS_GPU_STOKES_TY);
  const dim3 grid = ts_gpu_stokes_grid(g.n[I][0], g.n[I][1], DIM == 3 ? g.n[I][2] : 1);
  static const char *mass_names[3] = {"stokes_mass (component 0)", "stokes_mass (component 1)",
                                      "stokes_mass (component 2)"};
  static const char *names[3] = {"stokes_velocity (component 0)", "stokes_velocity (component 1)",
                                 "stokes_velocity (component 2)"};
  if (t) {
    ts_gpu_stokes_mass_kernel<R, DIM, K, I><<<grid, block>>>(g, x, t);
    GPU_CHECK_LAUNCH(err, mass_names[I]);
    ts_gpu_stokes_velocity_kernel<R, DIM, K, I, true><<<grid, block>>>(g, x, t, y);
  } else {
    ts_gpu_stokes_velocity_kernel<R, DIM, K, I, false><<<grid, block>>>(g, x, t, y);
  }
  GPU_CHECK_LAUNCH(err, names[I]);
  return 0;
}

template <typename R, int DIM, int K>
static int ts_gpu_stokes_launch(const ts_stokes_plan *pl, const R *x, R *t, R *y, int add,
                                char *err) {
  typedef ts_gpu_stokes_args<R, K> A;
  constexpr int K1 = K + 1, K2 = K + 2;
  A g;
  for (int i = 0; i < K2 * K2; ++i) {
    g.m.mc[i] = (R)pl->continuous_mass[i];
    g.m.kc[i] = (R)pl->continuous_stiffness[i];
  }
  for (int i = 0; i < K1; ++i) g.m.md[i] = (R)pl->dg_mass[i];
  for (int i = 0; i < K1 * K1; ++i) {
    for (int s = 0; s < 4; ++s) g.m.ld[s][i] = (R)pl->sipg_diag[s][i];
    g.m.lu[i] = (R)pl->sipg_upper[i];
  }
  for (int i = 0; i < K1 * K2; ++i) g.m.div[i] = (R)pl->divergence[i];
  for (int d = 0; d < 3; ++d) {
    g.m.scale[d] = (R)pl->scale[d];
    g.m.div_scale[d] = (R)pl->div_scale[d];
    g.cells[d] = pl->cells[d];
    g.np[d] = pl->n_p[d];
    for (int i = 0; i < 3; ++i) g.n[i][d] = pl->n_u[i][d];
  }
  for (int i = 0; i < 4; ++i) g.offset[i] = pl->offset[i];
  g.constrained = pl->constrained;
  g.add = add;
  int rc = ts_gpu_stokes_launch_velocity<R, DIM, K, 0>(g, x, t, y, err);
  if (!rc) rc = ts_gpu_stokes_launch_velocity<R, DIM, K, 1>(g, x, t, y, err);
  /* component 2 in 3D (DIM - 1 keeps the 2D instance to the existing I = 1) */
  if (!rc && DIM == 3) rc = ts_gpu_stokes_launch_velocity<R, DIM, K, DIM - 1>(g, x, t, y, err);
  if (rc) return rc;
  const dim3 block(TS_GPU_STOKES_TX, TS_GPU_STOKES_TY);
  ts_gpu_stokes_pressure_kernel<R, DIM, K>
      <<<ts_gpu_stokes_grid(pl->n_p[0], pl->n_p[1], DIM == 3 ? pl->n_p[2] : 1), block>>>(g, x, y);
  GPU_CHECK_LAUNCH(err, "stokes_pressure");
  return 0;
}

template <typename R, int K>
static int ts_gpu_stokes_degree(const ts_stokes_plan *pl, const R *x, R *t, R *y, int add,
                                char *err) {
  if (pl->dim == 3) return ts_gpu_stokes_launch<R, 3, K>(pl, x, t, y, add, err);
  return ts_gpu_stokes_launch<R, 2, K>(pl, x, t, y, add, err);
}

/* The plan (valid: lib/plan-check.c) has a degree this backend was compiled for; 0 or
 * TS_ERR_UNSUPPORTED with a message. */
static inline int ts_gpu_stokes_check(const ts_stokes_plan *pl, char *err) {
  if (pl->degree > TS_GPU_STOKES_MAX_DEGREE) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s stokes: degree %d not compiled (the GPU Stokes kernel is instantiated for k = "
             "0..%d; raise TS_GPU_STOKES_MAX_DEGREE in backends/gpu/gpu-stokes.h)",
             TS_GPU_NAME, pl->degree, TS_GPU_STOKES_MAX_DEGREE);
    return TS_ERR_UNSUPPORTED;
  }
  return 0;
}

/** y = Acal x (add = 1: y += Acal x); device vectors of precision R, x != y.  work: the
 *  backend's work space for t = Mc_I z (one velocity component), grown here as needed; when
 *  it cannot be allocated the kernel recomputes t (slower, no extra memory). */
template <typename R>
int ts_gpu_stokes_apply(ts_gpu_stokes_work *work, const ts_stokes_plan *pl, const R *x, R *y,
                        int add, char *err) {
  const int rc = ts_gpu_stokes_check(pl, err);
  if (rc) return rc;
  size_t need = 0; /* the largest velocity component */
  for (int i = 0; i < pl->dim; ++i)
    if ((size_t)(pl->offset[i + 1] - pl->offset[i]) * sizeof(R) > need)
      need = (size_t)(pl->offset[i + 1] - pl->offset[i]) * sizeof(R);
  /* TESSERA_GPU_STOKES_RECOMPUTE=1 selects the variant without work space (tests, timings) */
  const char *recompute = getenv("TESSERA_GPU_STOKES_RECOMPUTE");
  if (recompute && *recompute && strcmp(recompute, "0") != 0) need = 0;
  if (need && work->bytes < need) {
    if (work->ptr) GPU_CHECK(err, "stokes work space", gpuFree(work->ptr));
    work->ptr = NULL;
    work->bytes = 0;
    if (gpuMalloc(&work->ptr, need) == gpuSuccess) {
      work->bytes = need;
    } else {
      (void)gpuGetLastError(); /* clear the allocation error: fall back to recomputing t */
      work->ptr = NULL;
    }
  }
  R *t = need && work->bytes >= need ? (R *)work->ptr : NULL;
  if ((const void *)x == (const void *)y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s stokes: x and y are the same vector (they must be distinct)", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  switch (pl->degree) {
    case 0: return ts_gpu_stokes_degree<R, 0>(pl, x, t, y, add, err);
    case 1: return ts_gpu_stokes_degree<R, 1>(pl, x, t, y, add, err);
    case 2: return ts_gpu_stokes_degree<R, 2>(pl, x, t, y, add, err);
    case 3: return ts_gpu_stokes_degree<R, 3>(pl, x, t, y, add, err);
    default: return ts_gpu_stokes_degree<R, 4>(pl, x, t, y, add, err);
  }
}

#define TS_GPU_STOKES_INSTANTIATE(R)                                                       \
  template int ts_gpu_stokes_apply<R>(ts_gpu_stokes_work *, const ts_stokes_plan *, const R *, \
                                      R *, int, char *);

#endif
