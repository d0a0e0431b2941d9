/* gpu-vanka.h -- the GPU Vanka pass of Taylor-Hood Q2 x Q1 (ts_vanka_plan; lib/mg/vanka.c),
 * written once for CUDA and HIP: for every patch of one color y_I += M r_I, M the weighted
 * patch inverse of the patch's kind.  Included by backends/cuda/vanka.cu (and hip/vanka.cpp),
 * which instantiate it (TS_GPU_VANKA_INSTANTIATE).
 *
 * Algorithm.  A patch is handled by TPP threads (64 in 2D for its 51 DoFs, two patches per
 * block; 384 in 3D for 376): thread t finds the global index of local DoF t (or none, outside
 * the mesh), gathers r there into shared memory, then forms row t of M r_I, reading column
 * l of M at t (the matrices are column-major: consecutive threads read consecutive values),
 * and adds it into y.  The patches of one color share no DoF: plain stores, no atomics.  The
 * matrices (25 kinds in 2D, 125 in 3D) stay in the caches. */
#ifndef TESSERA_GPU_VANKA_H
#define TESSERA_GPU_VANKA_H

#include <stdint.h>
#include <stdio.h>
#include "gpu-runtime.h"
#include "tessera/backend.h"

template <int DIM>
struct ts_gpu_vanka_shape {
  static constexpr int NODES = DIM == 3 ? 125 : 25;          /* Q2 nodes of 2^dim cells */
  static constexpr int P = DIM * NODES + 1;                    /* DoFs per patch */
  static constexpr int TPP = (P + 31) / 32 * 32;               /* threads per patch */
  static constexpr int PPB = TPP >= 128 ? 1 : 128 / TPP;       /* patches per block */
  static constexpr int THREADS = PPB * TPP;
};

struct ts_gpu_vanka_args {
  int64_t cells[3], n_u[3], n_p[3], first[3], count[3];
  int64_t n_velocity, pressure_offset, npatch;
  int class_count[3], class_map[3][9];
  int stride;
};

/* vertex j of the color and the slot of its patch's kind */
template <int DIM>
__device__ __forceinline__ int ts_gpu_vanka_locate(const ts_gpu_vanka_args &g, int64_t j,
                                                   int64_t *v) {
  const int64_t jd[3] = {j % g.count[0], j / g.count[0] % g.count[1], j / g.count[0] / g.count[1]};
  int slot = 0;
#pragma unroll
  for (int d = 2; d >= 0; --d) {
    v[d] = d < DIM ? g.first[d] + g.stride * jd[d] : 0;
    int kind = 0;
    if (d < DIM) {
      const int64_t low = v[d] < 2 ? v[d] : 2, high = g.cells[d] - v[d] < 2 ? g.cells[d] - v[d] : 2;
      kind = g.class_map[d][3 * low + high];
    }
    slot = slot * g.class_count[d] + kind;
  }
  return slot;
}

/* the global index of local DoF t of vertex v's patch, -1 outside the mesh */
template <int DIM>
__device__ __forceinline__ int64_t ts_gpu_vanka_index(const ts_gpu_vanka_args &g, const int64_t *v,
                                                      int t) {
  using S = ts_gpu_vanka_shape<DIM>;
  if (t == S::P - 1) return g.pressure_offset + v[0] + g.n_p[0] * (v[1] + g.n_p[1] * v[2]);
  const int c = t / S::NODES, a = t % S::NODES;
  const int64_t i0 = 2 * v[0] - 2 + a % 5, i1 = 2 * v[1] - 2 + a / 5 % 5,
                i2 = DIM == 3 ? 2 * v[2] - 2 + a / 25 : 0;
  if (i0 < 0 || i0 >= g.n_u[0] || i1 < 0 || i1 >= g.n_u[1] || i2 < 0 || i2 >= g.n_u[2]) return -1;
  return c * g.n_velocity + i0 + g.n_u[0] * (i1 + g.n_u[1] * i2);
}

template <typename R, int DIM>
__global__ void __launch_bounds__((ts_gpu_vanka_shape<DIM>::THREADS))
ts_gpu_vanka_kernel(const ts_gpu_vanka_args g, const R *__restrict__ matrices,
                    const R *__restrict__ r, R *__restrict__ y) {
  using S = ts_gpu_vanka_shape<DIM>;
  __shared__ R local[S::PPB][S::P];
  const int which = threadIdx.x / S::TPP, t = threadIdx.x % S::TPP;
  const int64_t j = (int64_t)blockIdx.x * S::PPB + which;
  const bool live = j < g.npatch && t < S::P;
  int64_t v[3] = {0, 0, 0}, index = -1;
  int slot = 0;
  if (j < g.npatch) slot = ts_gpu_vanka_locate<DIM>(g, j, v);
  if (live) {
    index = ts_gpu_vanka_index<DIM>(g, v, t);
    local[which][t] = index >= 0 ? r[index] : R(0);
  }
  __syncthreads();
  if (!live || index < 0) return;
  const R *M = matrices + (int64_t)slot * S::P * S::P + t;
  R s = 0;
  for (int l = 0; l < S::P; ++l) s += M[(int64_t)l * S::P] * local[which][l];
  y[index] += s;
}

/** y += M r on the patches of the plan's color, device vectors of precision R; the plan is
 *  checked by the library; here what is the GPU's own: r != y, the launch size. */
template <typename R>
int ts_gpu_vanka_apply(const ts_vanka_plan *pl, const R *r, R *y, char *err) {
  if (r == y) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s vanka_apply: r and y are the same vector", TS_GPU_NAME);
    return TS_ERR_ARG;
  }
  ts_gpu_vanka_args g;
  g.npatch = 1;
  for (int d = 0; d < 3; ++d) {
    g.cells[d] = pl->cells[d];
    g.n_u[d] = pl->n_u[d];
    g.n_p[d] = pl->n_p[d];
    g.first[d] = pl->first_vertex[d];
    g.count[d] = pl->vertex_count[d];
    g.npatch *= pl->vertex_count[d];
    g.class_count[d] = pl->class_count[d];
    for (int key = 0; key < 9; ++key) g.class_map[d][key] = pl->class_map[d][key];
  }
  g.n_velocity = pl->n_velocity;
  g.pressure_offset = pl->pressure_offset;
  g.stride = pl->vertex_stride;
  if (g.npatch == 0) return 0;
  const R *matrices = (const R *)pl->matrices;
  const int ppb = pl->dim == 3 ? ts_gpu_vanka_shape<3>::PPB : ts_gpu_vanka_shape<2>::PPB;
  const int64_t blocks = (g.npatch + ppb - 1) / ppb;
  if (blocks > 2147483647LL) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "%s vanka_apply: %lld patches of one color exceed the "
             "2^31-1 blocks of one launch", TS_GPU_NAME, (long long)g.npatch);
    return TS_ERR_ARG;
  }
  if (pl->dim == 3)
    ts_gpu_vanka_kernel<R, 3><<<(unsigned)blocks, ts_gpu_vanka_shape<3>::THREADS>>>(g, matrices, r, y);
  else
    ts_gpu_vanka_kernel<R, 2><<<(unsigned)blocks, ts_gpu_vanka_shape<2>::THREADS>>>(g, matrices, r, y);
  GPU_CHECK_LAUNCH(err, "ts_gpu_vanka_kernel");
  return 0;
}

#define TS_GPU_VANKA_INSTANTIATE(R) \
  template int ts_gpu_vanka_apply<R>(const ts_vanka_plan *, const R *, R *, char *);

#endif
