/* vanka.c -- the omp backend's Vanka pass of Taylor-Hood Q2 x Q1 (ts_vanka_plan): for every
 * patch of one color, gather r on the patch's DoFs inside the mesh (zero outside), multiply
 * by the matrix of the patch's kind and add the product into y.  The patches of a color share
 * no DoF: one OpenMP loop over them, without atomics.  The products are summed in double for
 * both precisions (the matrices are stored in the call's precision). */
#include <stdio.h>
#include "omp-threads.h"
#include "omp-vanka.h"

#define MAX_PATCH (3 * 125 + 1)

/* the kind of vertex v of a direction with `cells` cells (ts_vanka_plan.class_map) */
static int vertex_kind(const int *map, int64_t v, int64_t cells) {
  const int64_t low = v < 2 ? v : 2, high = cells - v < 2 ? cells - v : 2;
  return map[3 * low + high];
}

/* The global indices of patch v's DoFs (-1 outside the mesh), the pressure last. */
static void patch_indices(const ts_vanka_plan *pl, const int64_t *v, int64_t *index) {
  const int dim = pl->dim, a2_count = dim == 3 ? 5 : 1, nodes = dim == 3 ? 125 : 25;
  for (int a2 = 0, q = 0; a2 < a2_count; ++a2)
    for (int a1 = 0; a1 < 5; ++a1)
      for (int a0 = 0; a0 < 5; ++a0, ++q) {
        const int64_t i0 = 2 * v[0] - 2 + a0, i1 = 2 * v[1] - 2 + a1,
                      i2 = dim == 3 ? 2 * v[2] - 2 + a2 : 0;
        const int inside = i0 >= 0 && i0 < pl->n_u[0] && i1 >= 0 && i1 < pl->n_u[1] && i2 >= 0 &&
                           i2 < pl->n_u[2];
        const int64_t node = i0 + pl->n_u[0] * (i1 + pl->n_u[1] * i2);
        for (int c = 0; c < dim; ++c) index[c * nodes + q] = inside ? c * pl->n_velocity + node : -1;
      }
  index[dim * nodes] = pl->pressure_offset + v[0] + pl->n_p[0] * (v[1] + pl->n_p[1] * v[2]);
}

#define VANKA(REAL, NAME)                                                                       \
  static void NAME(const ts_vanka_plan *pl, const REAL *r, REAL *y) {                          \
    const int64_t count = pl->vertex_count[0] * pl->vertex_count[1] * pl->vertex_count[2];    \
    const int P = pl->patch_size;                                                              \
    const REAL *matrices = pl->matrices;                                                       \
    _Pragma("omp parallel for schedule(static) num_threads(omp_threads_for(count * P * P / 8, OMP_OPERATOR_GRAIN))") \
    for (int64_t j = 0; j < count; ++j) {                                                      \
      int64_t index[MAX_PATCH];                                                                \
      double local[MAX_PATCH];                                                                 \
      const int64_t j_d[3] = {j % pl->vertex_count[0], j / pl->vertex_count[0] % pl->vertex_count[1], \
                              j / pl->vertex_count[0] / pl->vertex_count[1]};                  \
      int64_t v[3];                                                                            \
      int slot = 0;                                                                            \
      for (int d = 2; d >= 0; --d) {                                                           \
        v[d] = pl->first_vertex[d] + pl->vertex_stride * j_d[d];                               \
        slot = slot * pl->class_count[d] + (d < pl->dim ? vertex_kind(pl->class_map[d], v[d], pl->cells[d]) : 0); \
      }                                                                                        \
      patch_indices(pl, v, index);                                                             \
      for (int i = 0; i < P; ++i) local[i] = index[i] >= 0 ? (double)r[index[i]] : 0.0;       \
      const REAL *M = matrices + (int64_t)slot * P * P; /* column-major */                    \
      double sum[MAX_PATCH] = {0};                                                             \
      for (int l = 0; l < P; ++l) {                                                            \
        if (local[l] == 0.0) continue;                                                         \
        for (int i = 0; i < P; ++i) sum[i] += (double)M[(int64_t)l * P + i] * local[l];       \
      }                                                                                        \
      for (int i = 0; i < P; ++i)                                                              \
        if (index[i] >= 0) y[index[i]] += (REAL)sum[i];                                        \
    }                                                                                          \
  }

VANKA(double, vanka_d)
VANKA(float, vanka_f)

int ts_omp_vanka_apply(const ts_vanka_plan *plan, ts_precision p, const void *r, void *y,
                       char *err, size_t errlen) {
  if (!plan || !r || !y || r == y || plan->patch_size > MAX_PATCH) {
    snprintf(err, errlen, "omp vanka_apply: %s",
             !plan ? "plan is NULL" : !r ? "r is NULL" : !y ? "y is NULL"
             : r == y ? "r and y are the same vector" : "patch larger than 3 5^3 + 1 DoFs");
    return TS_ERR_ARG;
  }
  if (p == TS_DOUBLE) vanka_d(plan, r, y);
  else vanka_f(plan, r, y);
  return 0;
}
