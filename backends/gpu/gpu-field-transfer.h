/* gpu-field-transfer.h -- the GPU transfer between two levels of a multi-field tensor-product
 * space (ts_field_transfer_plan, e.g. RT_k x DGQ_k, doc/stokes.md section 5), written once for
 * CUDA and HIP, templated over the precision R: prolongation fine = P coarse and restriction
 * coarse = P^T fine (add: +=).  Included by backends/cuda/field-transfer-*.cu and
 * backends/hip/field-transfer-*.cpp (TS_GPU_FIELD_TRANSFER_INSTANTIATE).
 *
 * Algorithm: the gather formulation of the omp kernel (backends/omp/field-transfer.c).  Per
 * field P = P_0 (x) P_1 (x) P_2 with the global 1D prolongations P_d; every output entry
 * (fine in prolongation, coarse in restriction) is the tensor-product gather over its 1D row
 * (prolongation: the m coarse DoFs of the coarse cell that owns the fine index) or column
 * (restriction: the fine indices of the one or two coarse cells containing the coarse index,
 * each fine index counted once, by its owner) of the P_d.  One thread per output entry, so
 * there are no races and restriction is deterministic; one kernel serves every field,
 * continuous and discontinuous directions alike (they differ only by the overlap c in the
 * cell step s = m - c and the 2m - c rows per cell), one launch per field.  The per-thread
 * stencils of directions 1 and 2 are the same for a whole line of outputs and those of
 * direction 0 are recomputed per entry (a few integer operations); the 1D matrices travel as
 * a kernel parameter.  Cost per output: m^dim (prolongation) or up to (2m)^dim
 * (restriction) multiply-adds.  End DoFs of constrained continuous directions are read and
 * written as zero (left unchanged with add). */
#ifndef TESSERA_GPU_FIELD_TRANSFER_H
#define TESSERA_GPU_FIELD_TRANSFER_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"

/* Compiled cell DoFs per direction: m <= TS_GPU_FIELD_TRANSFER_MAX_M (RT_k x DGQ_k for
 * k <= 4 has m = k+2 <= 6, the degrees of the GPU Stokes kernel). */
#define TS_GPU_FIELD_TRANSFER_MAX_M 6
#define TS_GPU_FIELD_TRANSFER_TX 128

template <typename R>
struct ts_gpu_field_transfer_args {
  R P[3][2 * TS_GPU_FIELD_TRANSFER_MAX_M * TS_GPU_FIELD_TRANSFER_MAX_M]; /* (2m-c) x m */
  int64_t cells[3];           /* coarse cells (1 beyond dim) */
  int64_t n_in[3], n_out[3];  /* DoFs per direction of input and output */
  int64_t nc[3], nf[3];       /* coarse and fine DoFs per direction */
  int m[3], c[3];
  int dim, constrained, restrict_, add;
};

template <typename R>
__device__ __forceinline__ bool ts_gpu_ft_zero(const ts_gpu_field_transfer_args<R> &g, int d,
                                               int64_t a, int64_t n) {
  return g.constrained && g.c[d] && (a == 0 || a == n - 1);
}

/* Fills index[] and weight[] with the stencil of output a in direction d; returns the count. */
template <typename R>
__device__ __forceinline__ int ts_gpu_ft_stencil(const ts_gpu_field_transfer_args<R> &g, int d,
                                                 int64_t a, int64_t *index, R *weight) {
  if (d >= g.dim) {
    index[0] = a;
    weight[0] = 1;
    return 1;
  }
  const int m = g.m[d], c = g.c[d], step = m - c, rows = 2 * m - c;
  const int64_t last_cell = g.cells[d] - 1;
  const R *P = g.P[d];
  int count = 0;
  if (!g.restrict_) { /* row a of P_d */
    const int64_t cell = a / (2 * step) < last_cell ? a / (2 * step) : last_cell;
    const int r = (int)(a - 2 * step * cell);
    for (int b = 0; b < m; ++b)
      if (!ts_gpu_ft_zero(g, d, step * cell + b, g.nc[d])) {
        index[count] = step * cell + b;
        weight[count++] = P[r * m + b];
      }
    return count;
  }
  /* column a of P_d: the fine indices owned by the coarse cells containing a */
  const int64_t first = a - m + 1 <= 0 ? 0 : (a - m + step) / step;
  const int64_t last = a / step < last_cell ? a / step : last_cell;
  for (int64_t cell = first; cell <= last; ++cell) {
    const int b = (int)(a - step * cell);
    const int owned = c && cell < last_cell ? rows - 1 : rows;
    for (int r = 0; r < owned; ++r) {
      const int64_t fine = 2 * step * cell + r;
      if (!ts_gpu_ft_zero(g, d, fine, g.nf[d])) {
        index[count] = fine;
        weight[count++] = P[r * m + b];
      }
    }
  }
  return count;
}

template <typename R>
__global__ void __launch_bounds__(TS_GPU_FIELD_TRANSFER_TX)
    ts_gpu_field_transfer_kernel(const ts_gpu_field_transfer_args<R> g, const R *__restrict__ in,
                                 R *__restrict__ out) {
  constexpr int S = 4 * TS_GPU_FIELD_TRANSFER_MAX_M;
  const int64_t a0 = (int64_t)blockIdx.x * TS_GPU_FIELD_TRANSFER_TX + threadIdx.x;
  if (a0 >= g.n_out[0]) return;
  int64_t i0[S], i1[S], i2[S];
  R w0[S], w1[S], w2[S];
  const int s0 = ts_gpu_ft_stencil<R>(g, 0, a0, i0, w0);
  const bool zero0 = ts_gpu_ft_zero(g, 0, a0, g.n_out[0]);
  for (int64_t a2 = blockIdx.z; a2 < g.n_out[2]; a2 += gridDim.z) {
    const int s2 = ts_gpu_ft_stencil<R>(g, 2, a2, i2, w2);
    for (int64_t a1 = blockIdx.y; a1 < g.n_out[1]; a1 += gridDim.y) {
      const int64_t idx = a0 + g.n_out[0] * (a1 + g.n_out[1] * a2);
      if (zero0 || ts_gpu_ft_zero(g, 1, a1, g.n_out[1]) || ts_gpu_ft_zero(g, 2, a2, g.n_out[2])) {
        if (!g.add) out[idx] = 0;
        continue;
      }
      const int s1 = ts_gpu_ft_stencil<R>(g, 1, a1, i1, w1);
      R sum = 0;
      for (int t2 = 0; t2 < s2; ++t2)
        for (int t1 = 0; t1 < s1; ++t1) {
          const R *row = in + g.n_in[0] * (i1[t1] + g.n_in[1] * i2[t2]);
          R partial = 0;
          for (int t0 = 0; t0 < s0; ++t0) partial += w0[t0] * __ldg(row + i0[t0]);
          sum += w1[t1] * w2[t2] * partial;
        }
      out[idx] = g.add ? (R)(out[idx] + sum) : sum;
    }
  }
}

/* The plan (valid: lib/plan-check.c) has no more cell DoFs than this backend was compiled
 * for; 0 or TS_ERR_UNSUPPORTED with a message. */
static inline int ts_gpu_field_transfer_check(const ts_field_transfer_plan *pl, char *err) {
  for (int i = 0; i < pl->n_fields; ++i)
    for (int d = 0; d < pl->dim; ++d)
      if (pl->field[i].cell_dofs[d] > TS_GPU_FIELD_TRANSFER_MAX_M) {
        snprintf(err, TS_BACKEND_ERROR_SIZE,
                 "%s field_transfer: field %d direction %d has %d cell DoFs: not compiled (the GPU "
                 "kernel has at most %d, degree k <= %d of RT_k x DGQ_k)", TS_GPU_NAME, i, d,
                 pl->field[i].cell_dofs[d], TS_GPU_FIELD_TRANSFER_MAX_M,
                 TS_GPU_FIELD_TRANSFER_MAX_M - 2);
        return TS_ERR_UNSUPPORTED;
      }
  return 0;
}

/** restrict_ = 0: out (fine) = P in (coarse); 1: out (coarse) = P^T in (fine); add: +=. */
template <typename R>
int ts_gpu_field_transfer(const ts_field_transfer_plan *pl, int restrict_, const R *in, R *out,
                          int add, char *err) {
  const int rc = ts_gpu_field_transfer_check(pl, err);
  if (rc) return rc;
  if ((const void *)in == (const void *)out) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "%s field_transfer: input and output are the same vector", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  for (int i = 0; i < pl->n_fields; ++i) {
    const ts_field_transfer_field *f = &pl->field[i];
    ts_gpu_field_transfer_args<R> g;
    g.dim = pl->dim;
    g.constrained = f->constrained;
    g.restrict_ = restrict_;
    g.add = add;
    for (int d = 0; d < 3; ++d) {
      g.cells[d] = pl->coarse_cells[d];
      g.nc[d] = f->coarse_n[d];
      g.nf[d] = f->fine_n[d];
      g.n_in[d] = restrict_ ? f->fine_n[d] : f->coarse_n[d];
      g.n_out[d] = restrict_ ? f->coarse_n[d] : f->fine_n[d];
      g.m[d] = d < pl->dim ? f->cell_dofs[d] : 1;
      g.c[d] = d < pl->dim ? f->continuous[d] : 0;
      if (d < pl->dim)
        for (int e = 0; e < (2 * g.m[d] - g.c[d]) * g.m[d]; ++e)
          g.P[d][e] = (R)f->prolongation_1d[d][e];
    }
    const int64_t gx = (g.n_out[0] + TS_GPU_FIELD_TRANSFER_TX - 1) / TS_GPU_FIELD_TRANSFER_TX;
    const dim3 grid((unsigned)gx, (unsigned)(g.n_out[1] < 65535 ? g.n_out[1] : 65535),
                    (unsigned)(g.n_out[2] < 65535 ? g.n_out[2] : 65535));
    const R *src = in + (restrict_ ? f->fine_offset : f->coarse_offset);
    R *dst = out + (restrict_ ? f->coarse_offset : f->fine_offset);
    ts_gpu_field_transfer_kernel<R><<<grid, TS_GPU_FIELD_TRANSFER_TX>>>(g, src, dst);
    GPU_CHECK_LAUNCH(err, "field_transfer");
  }
  return 0;
}

#define TS_GPU_FIELD_TRANSFER_INSTANTIATE(R)                                                   \
  template int ts_gpu_field_transfer<R>(const ts_field_transfer_plan *, int, const R *, R *, int, \
                                        char *);

#endif
