/* vtu.c -- VTK output (.vtu) of a Q_k solution.  The field is sampled on a lattice of
 * `subdivisions` sub-cells per cell and direction over the whole box; the lattice points on
 * cell faces are shared, so the output is as continuous as the field.  Point data:
 * "solution", and with an exact solution also "exact" and "error" (solution - exact).  On a
 * mapped mesh (ts_write_vtu_mapped) the lattice points are the cells' geometry at them: the
 * Q_k interpolant of the geometry's nodes, as the operator sees the cells.  The file itself
 * is written by vtu-file.c. */
#include <math.h>
#include "vtu-file.h"

/* What the point and field callbacks read. */
typedef struct q_sampler {
  ts_q_lattice lattice;
  const double *values;
  const ts_solution *u;         /* the box's exact solution, or NULL */
  ts_point_fn exact;            /* a mapped mesh's exact solution (ctx exact_ctx), or NULL */
  void *exact_ctx;
} q_sampler;

int ts_q_lattice_init(ts_dofs dofs, int subdivisions, ts_q_lattice *l) {
  double positions[TS_VTU_MAX_SUBDIVISIONS + 1];
  TS_CHECK_ARG(subdivisions >= 1 && subdivisions <= TS_VTU_MAX_SUBDIVISIONS,
               "VTU output: subdivisions = %d, allowed 1..%d", subdivisions,
               TS_VTU_MAX_SUBDIVISIONS);
  l->dofs = dofs;
  l->s = subdivisions;
  for (int i = 0; i <= subdivisions; ++i) positions[i] = (double)i / subdivisions;
  ts_lagrange_tabulate(dofs->degree + 1, dofs->fe->points, subdivisions + 1, positions,
                       l->basis, NULL);
  for (int d = 0; d < 3; ++d) l->np[d] = d < dofs->dim ? dofs->cells[d] * subdivisions + 1 : 1;
  return 0;
}

static void lattice_index(const ts_q_lattice *l, int64_t p, int64_t *j) {
  j[0] = p % l->np[0];
  j[1] = (p / l->np[0]) % l->np[1];
  j[2] = p / (l->np[0] * l->np[1]);
}

/* In the cell that contains lattice point p, a tensor product of the 1D Lagrange values
 * tabulated for the s+1 positions. */
double ts_q_lattice_value(const ts_q_lattice *l, int64_t p, const double *data, int stride,
                          int c) {
  ts_dofs dofs = l->dofs;
  const int n1 = dofs->degree + 1, s = l->s;
  int64_t j[3], cell[3] = {0, 0, 0}, idx[TS_MAX_CELL_DOFS];
  int local[3] = {0, 0, 0};
  lattice_index(l, p, j);
  for (int d = 0; d < dofs->dim; ++d) {
    cell[d] = j[d] / s;
    if (cell[d] == dofs->cells[d]) cell[d] -= 1;
    local[d] = (int)(j[d] - cell[d] * s);
  }
  ts_cell_dof_indices(dofs, cell, idx);
  double v = 0.0;
  int m = 0;
  const int n2 = dofs->dim == 3 ? n1 : 1;
  for (int a2 = 0; a2 < n2; ++a2)
    for (int a1 = 0; a1 < n1; ++a1)
      for (int a0 = 0; a0 < n1; ++a0, ++m) {
        double w = l->basis[local[0] * n1 + a0] * l->basis[local[1] * n1 + a1];
        if (dofs->dim == 3) w *= l->basis[local[2] * n1 + a2];
        v += w * data[idx[m] * stride + c];
      }
  return v;
}

void ts_q_lattice_point(const ts_q_lattice *l, int64_t p, double *x) {
  const int dim = l->dofs->dim;
  int64_t j[3];
  lattice_index(l, p, j);
  x[2] = 0.0;
  for (int d = 0; d < dim; ++d)
    x[d] = l->dofs->nodes ? ts_q_lattice_value(l, p, l->dofs->nodes, dim, d)
                          : l->dofs->lower[d] + l->dofs->h[d] * (double)j[d] / l->s;
}

static void point_coordinates(const void *ctx, int64_t p, double *x) {
  const q_sampler *q = ctx;
  ts_q_lattice_point(&q->lattice, p, x);
}

static double discrete_at(const q_sampler *q, int64_t p) {
  return ts_q_lattice_value(&q->lattice, p, q->values, 1, 0);
}

/* The exact solution at lattice point p (NaN where a point function fails). */
static double exact_at(const q_sampler *q, int64_t p) {
  double x[3], v = NAN;
  ts_q_lattice_point(&q->lattice, p, x);
  const int dim = q->lattice.dofs->dim;
  if (q->u) return q->u->value(dim, x);
  if (q->exact(q->exact_ctx, dim, 1, x, &v)) v = NAN;
  return v;
}

static void solution_value(const void *ctx, int64_t p, double *v) { v[0] = discrete_at(ctx, p); }
static void exact_value(const void *ctx, int64_t p, double *v) { v[0] = exact_at(ctx, p); }
static void error_value(const void *ctx, int64_t p, double *v) {
  v[0] = discrete_at(ctx, p) - exact_at(ctx, p);
}

static const ts_vtu_field q_fields[] = {
    {"solution", 1, solution_value}, {"exact", 1, exact_value}, {"error", 1, error_value}};

/* The file's lattice over the box of cells[0..dim-1] cells, s sub-cells per cell and
 * direction, with "exact" and "error" if exact; the writer sets the callbacks' context. */
static ts_vtu_grid q_grid(int dim, const int64_t *cells, int s, int exact) {
  ts_vtu_grid g = {.dim = dim, .blocks = 1, .np = {1, 1, 1}, .point = point_coordinates,
                   .n_fields = exact ? 3 : 1, .fields = q_fields, .scalars = "solution"};
  for (int d = 0; d < dim; ++d) g.np[d] = cells[d] * s + 1;
  return g;
}

int ts_vtu_check_output(const char *path, int dim, const int64_t *cells, int subdivisions,
                        int exact) {
  const ts_vtu_grid grid = q_grid(dim, cells, subdivisions, exact);
  TS_CALL(ts_vtu_check(path, &grid));
  return 0;
}

int ts_write_pvtu(const char *path, int dim, int exact, int n_pieces,
                  const char *const *pieces) {
  static const int64_t one_cell[3] = {1, 1, 1};
  const ts_vtu_grid grid = q_grid(dim, one_cell, 1, exact); /* its fields only */
  TS_CALL(ts_vtu_write_index(path, &grid, n_pieces, pieces));
  return 0;
}

/* The file of the sampler q (its values and exact solution set) for dofs. */
static int write_sampled(const char *path, ts_dofs dofs, q_sampler *q, int subdivisions) {
  TS_CALL(ts_q_lattice_init(dofs, subdivisions, &q->lattice));
  ts_vtu_grid grid = q_grid(dofs->dim, dofs->cells, subdivisions, q->u || q->exact);
  grid.ctx = q;
  TS_CALL(ts_vtu_write(path, &grid));
  return 0;
}

int ts_write_vtu(const char *path, ts_dofs dofs, const double *values, const ts_solution *u,
                 int subdivisions) {
  q_sampler q = {.values = values, .u = u};
  TS_CHECK_ARG(path && *path && dofs && values, "ts_write_vtu: NULL or empty argument");
  TS_CALL(ts_dofs_require_q(dofs, "ts_write_vtu"));
  TS_CALL(ts_dofs_require_mapped(dofs, 0, "ts_write_vtu"));
  return write_sampled(path, dofs, &q, subdivisions);
}

int ts_write_vtu_mapped(const char *path, ts_dofs dofs, const double *values, ts_point_fn u,
                        void *ctx, int subdivisions) {
  q_sampler q = {.values = values, .exact = u, .exact_ctx = ctx};
  TS_CHECK_ARG(path && *path && dofs && values, "ts_write_vtu_mapped: NULL or empty argument");
  TS_CALL(ts_dofs_require_q(dofs, "ts_write_vtu_mapped"));
  TS_CALL(ts_dofs_require_mapped(dofs, 1, "ts_write_vtu_mapped"));
  return write_sampled(path, dofs, &q, subdivisions);
}
