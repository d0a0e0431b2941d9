/* gpu-kronecker.h -- the GPU Kronecker product of banded 1D matrices (ts_kronecker_plan;
 * lib/op/kronecker.c), written once for CUDA and HIP: one thread per output entry sums the
 * products of its rows' band entries over the bands' columns, x read there (the neighbours'
 * reads overlap and hit the caches).  Included by backends/cuda/kronecker.cu (and
 * hip/kronecker.cpp), which instantiate it (TS_GPU_KRONECKER_INSTANTIATE). */
#ifndef TESSERA_GPU_KRONECKER_H
#define TESSERA_GPU_KRONECKER_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

#define TS_GPU_KRONECKER_THREADS 256

struct ts_gpu_kronecker_args {
  int64_t rows0, rows1, cols0, cols1, cols2, n_rows;
  int row_step0, row_step1, row_step2, col_step0, col_step1, col_step2;
  int width0, width1, width2;
  double scale;
};

template <typename R, int DIM>
__global__ void __launch_bounds__(TS_GPU_KRONECKER_THREADS)
ts_gpu_kronecker_kernel(const ts_gpu_kronecker_args g, const R *__restrict__ v0,
                        const R *__restrict__ v1, const R *__restrict__ v2,
                        const R *__restrict__ x, R *__restrict__ y, int add) {
  const int64_t r = (int64_t)blockIdx.x * TS_GPU_KRONECKER_THREADS + threadIdx.x;
  if (r >= g.n_rows) return;
  const int64_t r0 = r % g.rows0, r1 = r / g.rows0 % g.rows1, r2 = r / (g.rows0 * g.rows1);
  const int64_t s0 = (r0 / g.row_step0 - 1) * g.col_step0;
  const int64_t s1 = (r1 / g.row_step1 - 1) * g.col_step1;
  const int64_t s2 = DIM == 3 ? (r2 / g.row_step2 - 1) * g.col_step2 : 0;
  R sum = 0;
  for (int a2 = 0; a2 < (DIM == 3 ? g.width2 : 1); ++a2) {
    const int64_t c2 = s2 + a2;
    if (c2 < 0 || c2 >= g.cols2) continue;
    const R f2 = DIM == 3 ? v2[r2 * g.width2 + a2] : R(1);
    for (int a1 = 0; a1 < g.width1; ++a1) {
      const int64_t c1 = s1 + a1;
      if (c1 < 0 || c1 >= g.cols1) continue;
      const R f21 = f2 * v1[r1 * g.width1 + a1];
      const R *line = x + g.cols0 * (c1 + g.cols1 * c2);
      R inner = 0;
      for (int a0 = 0; a0 < g.width0; ++a0) {
        const int64_t c0 = s0 + a0;
        if (c0 >= 0 && c0 < g.cols0) inner += v0[r0 * g.width0 + a0] * line[c0];
      }
      sum += f21 * inner;
    }
  }
  sum *= (R)g.scale;
  y[r] = add ? y[r] + sum : sum;
}

/** y (+)= scale (F_{dim-1} (x) .. (x) F_0) x, device vectors of precision R; the plan is
 *  checked by the library; here what is the GPU's own: x != y, the launch size. */
template <typename R>
int ts_gpu_kronecker_apply(const ts_kronecker_plan *pl, const R *x, R *y, int add, char *err) {
  if (x == y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s kronecker_apply: x and y are the same vector",
             TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  ts_gpu_kronecker_args g;
  g.rows0 = pl->rows[0];
  g.rows1 = pl->rows[1];
  g.cols0 = pl->cols[0];
  g.cols1 = pl->cols[1];
  g.cols2 = pl->cols[2];
  g.n_rows = pl->n_rows;
  g.row_step0 = pl->row_step[0];
  g.row_step1 = pl->row_step[1];
  g.row_step2 = pl->row_step[2];
  g.col_step0 = pl->col_step[0];
  g.col_step1 = pl->col_step[1];
  g.col_step2 = pl->col_step[2];
  g.width0 = pl->width[0];
  g.width1 = pl->width[1];
  g.width2 = pl->width[2];
  g.scale = pl->scale;
  const int64_t blocks = (g.n_rows + TS_GPU_KRONECKER_THREADS - 1) / TS_GPU_KRONECKER_THREADS;
  if (blocks > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s kronecker_apply: %lld rows exceed one launch",
             TS_GPU_NAME, (long long)g.n_rows);
    return TS_ERR_ARG;
  }
  if (blocks == 0) return 0;
  const R *v0 = (const R *)pl->values[0], *v1 = (const R *)pl->values[1],
          *v2 = (const R *)pl->values[2];
  if (pl->dim == 3)
    ts_gpu_kronecker_kernel<R, 3><<<(unsigned)blocks, TS_GPU_KRONECKER_THREADS>>>(g, v0, v1, v2, x, y, add);
  else
    ts_gpu_kronecker_kernel<R, 2><<<(unsigned)blocks, TS_GPU_KRONECKER_THREADS>>>(g, v0, v1, v2, x, y, add);
  GPU_CHECK_LAUNCH(err, "ts_gpu_kronecker_kernel");
  return 0;
}

#define TS_GPU_KRONECKER_INSTANTIATE(R)                                                 \
  template int ts_gpu_kronecker_apply<R>(const ts_kronecker_plan *, const R *, R *, int, \
                                         char *);

#endif
