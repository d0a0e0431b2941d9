/* stokes-eval.c -- RT_k x DGQ_k functions at points of a cell (doc/stokes.md sections 1-2):
 * the 1D bases tabulated at reference points (RT_k component i: Gauss-Lobatto k+2 nodes in
 * direction i, Gauss k+1 nodes elsewhere; DGQ_k: Gauss), the cell's functions at a point as
 * tensor products of the tables, and the values of the discrete velocity and pressure. */
#include "stokes-eval.h"

int ts_stokes_check_dofs(ts_dofs velocity, ts_dofs pressure, const char *fn) {
  TS_CHECK_ARG(velocity && pressure && velocity->fe && pressure->fe,
               "%s: NULL velocity or pressure DoFs", fn);
  const int dim = velocity->dim, k = velocity->degree;
  TS_CALL(ts_dofs_require_mapped(velocity, 0, fn)); /* Cartesian cells only */
  TS_CHECK_ARG(velocity->components == dim && pressure->components == 1,
               "%s: components = %d (velocity) and %d (pressure); allowed %d (RT_k) and 1 (DGQ_k)",
               fn, velocity->components, pressure->components, dim);
  TS_CHECK_ARG(k >= 0 && k <= TS_STOKES_MAX_DEGREE && pressure->degree == k && pressure->dim == dim,
               "%s: degree %d (velocity), %d (pressure), dim %d and %d; allowed equal degrees "
               "0..%d and equal dimensions", fn, k, pressure->degree, dim, pressure->dim,
               TS_STOKES_MAX_DEGREE);
  for (int d = 0; d < dim; ++d)
    TS_CHECK_ARG(pressure->cells[d] == velocity->cells[d] &&
                     pressure->comp_n[0][d] == velocity->cells[d] * (k + 1),
                 "%s: direction %d: pressure cells %lld and DoFs %lld, velocity cells %lld; "
                 "allowed the same cells and cells (k+1) DoFs (doc/stokes.md section 2)",
                 fn, d, (long long)pressure->cells[d], (long long)pressure->comp_n[0][d],
                 (long long)velocity->cells[d]);
  return 0;
}

int ts_stokes_tables_init(ts_dofs velocity, int n, const double *points, ts_stokes_tables *t) {
  TS_CHECK_ARG(n >= 1 && n <= TS_STOKES_TABLE_POINTS,
               "Stokes point evaluation: %d points per direction, allowed 1..%d", n,
               TS_STOKES_TABLE_POINTS);
  t->dim = velocity->dim;
  t->k = velocity->degree;
  t->n = n;
  for (int m = 0; m < n; ++m) {
    t->points[m] = points[m];
    ts_lagrange_eval(t->k + 1, velocity->fe->points, points[m], t->gauss[m], NULL);
    ts_lagrange_eval(t->k + 2, velocity->fe->normal_points, points[m], t->lobatto[m], NULL);
  }
  return 0;
}

void ts_stokes_point_indices(const ts_stokes_tables *t, int m, int *qi) {
  for (int d = 0; d < t->dim; ++d) {
    qi[d] = m % t->n;
    m /= t->n;
  }
}

/* The 1D functions per direction on a cell of field i (i == dim: the pressure). */
static int local_count(const ts_stokes_tables *t, int i, int d) {
  return d < t->dim ? t->k + 1 + (d == i) : 1;
}

int ts_stokes_cell_functions(ts_dofs dofs, const ts_stokes_tables *t, int i, const int64_t *c,
                             const int *qi, int64_t *idx, double *val) {
  const int n0 = local_count(t, i, 0), n1 = local_count(t, i, 1), n2 = local_count(t, i, 2);
  const int comp = i < t->dim ? i : 0;
  int a = 0;
  for (int r2 = 0; r2 < n2; ++r2)
    for (int r1 = 0; r1 < n1; ++r1)
      for (int r0 = 0; r0 < n0; ++r0, ++a) {
        const int r[3] = {r0, r1, r2};
        int64_t g = 0, stride = 1;
        val[a] = 1.0;
        for (int d = 0; d < t->dim; ++d) {
          g += stride * (c[d] * (t->k + 1) + r[d]);
          stride *= dofs->comp_n[comp][d];
          val[a] *= d == i ? t->lobatto[qi[d]][r[d]] : t->gauss[qi[d]][r[d]];
        }
        idx[a] = dofs->comp_offset[comp] + g;
      }
  return a;
}

/* sum_a values[idx[a]] val[a] over field i's functions of cell c at point qi. */
static double field_at(ts_dofs dofs, const ts_stokes_tables *t, const double *values, int i,
                       const int64_t *c, const int *qi) {
  int64_t idx[TS_STOKES_CELL_FUNCTIONS];
  double val[TS_STOKES_CELL_FUNCTIONS], sum = 0.0;
  const int n = ts_stokes_cell_functions(dofs, t, i, c, qi, idx, val);
  for (int a = 0; a < n; ++a) sum += values[idx[a]] * val[a];
  return sum;
}

void ts_stokes_velocity_at(ts_dofs velocity, const ts_stokes_tables *t, const double *x,
                           const int64_t *c, const int *qi, double *u) {
  for (int i = 0; i < t->dim; ++i) u[i] = field_at(velocity, t, x, i, c, qi);
}

double ts_stokes_pressure_at(ts_dofs velocity, ts_dofs pressure, const ts_stokes_tables *t,
                             const double *x, const int64_t *c, const int *qi) {
  return field_at(pressure, t, x + velocity->count, t->dim, c, qi);
}
