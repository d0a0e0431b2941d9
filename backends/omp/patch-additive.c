/* patch-additive.c -- the omp backend's pass of the additive vertex-patch preconditioner on
 * mapped levels (ts_patch_additive_plan): for every patch of one color, gather r on the
 * patch's m^dim interior DoFs, apply its own scaled fast diagonalization
 *   t = D (x)_d S_d  diag(1 / sum_d L_{d,i_d})  (x)_d S_d^T  D r_I
 * (2 dim contractions of m x m matrices along the directions of the m^dim array) and add t
 * into y.  The patches of a color share no interior DoF: one OpenMP loop over them, without
 * atomics.  Degree and dimension are run-time values here; the arithmetic is in double for
 * both precisions (the local data are stored in the call's precision). */
#include <stdio.h>
#include "omp-patch-additive.h"
#include "omp-threads.h"

#define MAX_M (2 * TS_MAX_DEGREE - 1)

/* out = S^T in (transpose) or S in along direction d of an m^dim array (index 0 fastest) */
static void contract(int dim, int m, int d, const double *S, int transpose, const double *in,
                     double *out) {
  const int inner = d == 0 ? 1 : d == 1 ? m : m * m;
  const int outer = dim == 2 ? (d == 0 ? m : 1) : (d == 2 ? 1 : d == 1 ? m : m * m);
  for (int o = 0; o < outer; ++o)
    for (int l = 0; l < inner; ++l) {
      const double *line = in + (size_t)o * m * inner + l;
      double *res = out + (size_t)o * m * inner + l;
      for (int j = 0; j < m; ++j) {
        double s = 0.0;
        for (int i = 0; i < m; ++i) s += (transpose ? S[i * m + j] : S[j * m + i]) * line[i * inner];
        res[j * inner] = s;
      }
    }
}

#define PATCH_ADDITIVE(REAL, NAME)                                                             \
  static void NAME(const ts_patch_additive_plan *pl, const REAL *r, REAL *y) {                \
    const int dim = pl->dim, m = pl->m, k = pl->dofs_per_cell;                               \
    const int64_t count = pl->vertex_count[0] * pl->vertex_count[1] * pl->vertex_count[2];   \
    const int size = dim == 3 ? m * m * m : m * m, block = dim * (m * m + m) + (dim == 3 ? 27 : 9); \
    int region[MAX_M];                                                                        \
    for (int i = 0; i < m; ++i) region[i] = i < k - 1 ? 0 : i == k - 1 ? 1 : 2;                \
    const int64_t n0 = pl->n[0], n01 = pl->n[0] * pl->n[1];                                   \
    const REAL *local = pl->local;                                                            \
    _Pragma("omp parallel for schedule(dynamic, 4) num_threads(omp_threads_for(count * size, OMP_OPERATOR_GRAIN))") \
    for (int64_t j = 0; j < count; ++j) {                                                     \
      double u[MAX_M * MAX_M * MAX_M], v[MAX_M * MAX_M * MAX_M];                              \
      double S[3][MAX_M * MAX_M], L[3][MAX_M], D[27];                                         \
      const int64_t j0 = j % pl->vertex_count[0], j1 = j / pl->vertex_count[0] % pl->vertex_count[1], \
                    j2 = j / pl->vertex_count[0] / pl->vertex_count[1];                       \
      const int64_t v0 = pl->first_vertex[0] + pl->vertex_stride * j0,                       \
                    v1 = pl->first_vertex[1] + pl->vertex_stride * j1,                       \
                    v2 = dim == 3 ? pl->first_vertex[2] + pl->vertex_stride * j2 : 1;        \
      const int64_t patch = (v0 - 1) + (pl->cells[0] - 1) * ((v1 - 1) + (pl->cells[1] - 1) * (v2 - 1)); \
      const REAL *data = local + patch * block;                                               \
      for (int d = 0; d < dim; ++d) {                                                         \
        for (int i = 0; i < m * m; ++i) S[d][i] = data[d * (m * m + m) + i];                  \
        for (int i = 0; i < m; ++i) L[d][i] = data[d * (m * m + m) + m * m + i];              \
      }                                                                                       \
      for (int i = 0; i < (dim == 3 ? 27 : 9); ++i) D[i] = data[dim * (m * m + m) + i];     \
      const int64_t base = (v0 - 1) * k + 1 + n0 * ((v1 - 1) * k + 1) +                      \
                           (dim == 3 ? n01 * ((v2 - 1) * k + 1) : 0);                         \
      const int m2 = dim == 3 ? m : 1;                                                        \
      for (int i2 = 0, q = 0; i2 < m2; ++i2)                                                  \
        for (int i1 = 0; i1 < m; ++i1)                                                        \
          for (int i0 = 0; i0 < m; ++i0, ++q)                                                 \
            u[q] = D[region[i0] + 3 * region[i1] + (dim == 3 ? 9 * region[i2] : 0)] * r[base + i0 + n0 * i1 + n01 * i2]; \
      for (int d = 0; d < dim; ++d) {                                                         \
        contract(dim, m, d, S[d], 1, d % 2 ? v : u, d % 2 ? u : v);                          \
      }                                                                                       \
      double *t = dim % 2 ? v : u; /* after dim contractions */                               \
      for (int i2 = 0, q = 0; i2 < m2; ++i2)                                                  \
        for (int i1 = 0; i1 < m; ++i1)                                                        \
          for (int i0 = 0; i0 < m; ++i0, ++q)                                                 \
            t[q] /= L[0][i0] + L[1][i1] + (dim == 3 ? L[2][i2] : 0.0);                       \
      double *w = t == u ? v : u;                                                             \
      for (int d = 0; d < dim; ++d) {                                                         \
        contract(dim, m, d, S[d], 0, d % 2 ? w : t, d % 2 ? t : w);                          \
      }                                                                                       \
      const double *res = dim % 2 ? w : t;                                                    \
      for (int i2 = 0, q = 0; i2 < m2; ++i2)                                                  \
        for (int i1 = 0; i1 < m; ++i1)                                                        \
          for (int i0 = 0; i0 < m; ++i0, ++q)                                                 \
            y[base + i0 + n0 * i1 + n01 * i2] += (REAL)(D[region[i0] + 3 * region[i1] + (dim == 3 ? 9 * region[i2] : 0)] * res[q]); \
    }                                                                                         \
  }

PATCH_ADDITIVE(double, patch_additive_d)
PATCH_ADDITIVE(float, patch_additive_f)

int ts_omp_patch_additive(const ts_patch_additive_plan *plan, ts_precision p, const void *r,
                          void *y, char *err, size_t errlen) {
  if (!r || !y || r == y) {
    snprintf(err, errlen, "omp patch_additive: %s", !r ? "r is NULL" : !y ? "y is NULL"
                                                                          : "r and y are the same vector");
    return TS_ERR_ARG;
  }
  if (p == TS_DOUBLE) patch_additive_d(plan, r, y);
  else patch_additive_f(plan, r, y);
  return 0;
}
