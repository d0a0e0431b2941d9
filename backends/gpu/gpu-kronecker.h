/* gpu-kronecker.h -- the GPU Kronecker product of banded 1D matrices (ts_kronecker_plan;
 * lib/op/kronecker.c), written once for CUDA and HIP: one thread per output entry sums the
 * products of its rows' band entries over the bands' columns, x read there (the neighbours'
 * reads overlap and hit the caches).  The launch grid is the output's index space (x: r0 in
 * warps of 32, y: r1 in 8s, z: r2), so a thread finds its row indices without the 64-bit
 * divisions of a flat index (those made the kernel integer-bound: 0.5 TB/s for B^T at
 * 1024^2).  Included by backends/cuda/kronecker.cu (and hip/kronecker.cpp), which
 * instantiate it (TS_GPU_KRONECKER_INSTANTIATE). */
#ifndef TESSERA_GPU_KRONECKER_H
#define TESSERA_GPU_KRONECKER_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

#define TS_GPU_KRONECKER_BLOCK_X 32 /* r0 per block: one warp */
#define TS_GPU_KRONECKER_BLOCK_Y 8  /* r1 per block */
#define TS_GPU_KRONECKER_GRID_MAX 65535 /* the grid's y and z limit */

/* the per-direction sizes, checked at launch to fit int and the grid's y and z limits */
struct ts_gpu_kronecker_args {
  int rows0, rows1, cols0, cols1, cols2;
  int row_step0, row_step1, row_step2, col_step0, col_step1, col_step2;
  int width0, width1, width2;
  double scale;
};

/* RS, CS > 0: every direction's row_step and col_step, known at compile time (the loops
 * unrolled, no division); 0: read from g.  Taylor-Hood Q2 x Q1 has (2, 1) for B_c^T and (1, 2)
 * for D_c. */
template <typename R, int DIM, int RS, int CS>
__global__ void __launch_bounds__(TS_GPU_KRONECKER_BLOCK_X * TS_GPU_KRONECKER_BLOCK_Y)
ts_gpu_kronecker_kernel(const ts_gpu_kronecker_args g, const R *__restrict__ v0,
                        const R *__restrict__ v1, const R *__restrict__ v2,
                        const R *__restrict__ x, R *__restrict__ y, int add) {
  const int r0 = blockIdx.x * TS_GPU_KRONECKER_BLOCK_X + threadIdx.x;
  const int r1 = blockIdx.y * TS_GPU_KRONECKER_BLOCK_Y + threadIdx.y;
  const int r2 = blockIdx.z;
  if (r0 >= g.rows0 || r1 >= g.rows1) return;
  const int w0 = CS ? 2 * CS + 1 : g.width0, w1 = CS ? 2 * CS + 1 : g.width1;
  const int w2 = DIM == 3 ? (CS ? 2 * CS + 1 : g.width2) : 1;
  const int s0 = (r0 / (RS ? RS : g.row_step0) - 1) * (CS ? CS : g.col_step0);
  const int s1 = (r1 / (RS ? RS : g.row_step1) - 1) * (CS ? CS : g.col_step1);
  const int s2 = DIM == 3 ? (r2 / (RS ? RS : g.row_step2) - 1) * (CS ? CS : g.col_step2) : 0;
  R sum = 0;
#pragma unroll
  for (int a2 = 0; a2 < w2; ++a2) {
    const int c2 = s2 + a2;
    if (c2 < 0 || c2 >= g.cols2) continue;
    const R f2 = DIM == 3 ? v2[r2 * w2 + a2] : R(1);
#pragma unroll
    for (int a1 = 0; a1 < w1; ++a1) {
      const int c1 = s1 + a1;
      if (c1 < 0 || c1 >= g.cols1) continue;
      const R f21 = f2 * v1[r1 * w1 + a1];
      const R *line = x + (int64_t)g.cols0 * (c1 + (int64_t)g.cols1 * c2);
      R inner = 0;
#pragma unroll
      for (int a0 = 0; a0 < w0; ++a0) {
        const int c0 = s0 + a0;
        if (c0 >= 0 && c0 < g.cols0) inner += v0[r0 * w0 + a0] * line[c0];
      }
      sum += f21 * inner;
    }
  }
  sum *= (R)g.scale;
  const int64_t r = r0 + (int64_t)g.rows0 * (r1 + (int64_t)g.rows1 * r2);
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
  if (pl->n_rows == 0) return 0;
  if (pl->rows[1] > TS_GPU_KRONECKER_GRID_MAX * (int64_t)TS_GPU_KRONECKER_BLOCK_Y ||
      pl->rows[2] > TS_GPU_KRONECKER_GRID_MAX || pl->rows[0] > 2147483647LL - 64 ||
      pl->cols[0] > 2147483647LL || pl->cols[1] > 2147483647LL || pl->cols[2] > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s kronecker_apply: %lld x %lld x %lld rows exceed "
             "one launch (at most %d in the last direction)", TS_GPU_NAME,
             (long long)pl->rows[0], (long long)pl->rows[1], (long long)pl->rows[2],
             TS_GPU_KRONECKER_GRID_MAX);
    return TS_ERR_ARG;
  }
  ts_gpu_kronecker_args g;
  g.rows0 = (int)pl->rows[0];
  g.rows1 = (int)pl->rows[1];
  g.cols0 = (int)pl->cols[0];
  g.cols1 = (int)pl->cols[1];
  g.cols2 = (int)pl->cols[2];
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
  const dim3 block(TS_GPU_KRONECKER_BLOCK_X, TS_GPU_KRONECKER_BLOCK_Y, 1);
  const dim3 grid((unsigned)((g.rows0 + TS_GPU_KRONECKER_BLOCK_X - 1) / TS_GPU_KRONECKER_BLOCK_X),
                  (unsigned)((g.rows1 + TS_GPU_KRONECKER_BLOCK_Y - 1) / TS_GPU_KRONECKER_BLOCK_Y),
                  (unsigned)pl->rows[2]);
  const R *v0 = (const R *)pl->values[0], *v1 = (const R *)pl->values[1],
          *v2 = (const R *)pl->values[2];
  int rs = pl->row_step[0], cs = pl->col_step[0]; /* every direction's, else 0 */
  for (int d = 1; d < pl->dim; ++d)
    if (pl->row_step[d] != rs || pl->col_step[d] != cs) rs = cs = 0;
  const int steps = rs == 2 && cs == 1 ? 21 : rs == 1 && cs == 2 ? 12 : 0; /* compiled pairs */
  if (pl->dim == 3 && steps == 21)
    ts_gpu_kronecker_kernel<R, 3, 2, 1><<<grid, block>>>(g, v0, v1, v2, x, y, add);
  else if (pl->dim == 3 && steps == 12)
    ts_gpu_kronecker_kernel<R, 3, 1, 2><<<grid, block>>>(g, v0, v1, v2, x, y, add);
  else if (pl->dim == 3)
    ts_gpu_kronecker_kernel<R, 3, 0, 0><<<grid, block>>>(g, v0, v1, v2, x, y, add);
  else if (steps == 21)
    ts_gpu_kronecker_kernel<R, 2, 2, 1><<<grid, block>>>(g, v0, v1, v2, x, y, add);
  else if (steps == 12)
    ts_gpu_kronecker_kernel<R, 2, 1, 2><<<grid, block>>>(g, v0, v1, v2, x, y, add);
  else
    ts_gpu_kronecker_kernel<R, 2, 0, 0><<<grid, block>>>(g, v0, v1, v2, x, y, add);
  GPU_CHECK_LAUNCH(err, "ts_gpu_kronecker_kernel");
  return 0;
}

#define TS_GPU_KRONECKER_INSTANTIATE(R)                                                 \
  template int ts_gpu_kronecker_apply<R>(const ts_kronecker_plan *, const R *, R *, int, \
                                         char *);

#endif
