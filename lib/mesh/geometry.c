/* geometry.c -- the geometry of the cells of a mapped level: the map sampled once per cell
 * into the nodes of a Q_k space (dofs->nodes: TS_GEOMETRY_QK, phi at the cell's Q_k nodes;
 * TS_GEOMETRY_MULTILINEAR, phi at its 2^dim vertices and the multilinear interpolant at the
 * nodes), and from those nodes the points and Jacobians at any tensor rule
 * (ts_cell_geometry): x(xi) = sum_j X_j phi_j(xi), the Q_k interpolant of the map, as in
 * deal.II's MappingQ.  Also the record of the first failure of a parallel loop over cells,
 * so that a message names the cell whatever the threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "../tessera-impl.h"

#define MAX_N1 (TS_MAX_DEGREE + 1)
#define MAX_NQ (TS_MAX_DEGREE + 2)
#define MAX_NQ3 (MAX_NQ * MAX_NQ * MAX_NQ)

void ts_cell_failure_init(ts_cell_failure *f) {
  f->cell = INT64_MAX;
  f->code = 0;
  f->message[0] = 0;
}

void ts_cell_failure_set(ts_cell_failure *f, int64_t cell, int code, const char *fmt, ...) {
#pragma omp critical(ts_cell_failure)
  if (cell < f->cell) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, args);
    va_end(args);
    f->cell = cell;
    f->code = code;
  }
}

int ts_cell_failure_report(const ts_cell_failure *f, const char *what) {
  if (f->cell == INT64_MAX) return 0;
  return TS_ERROR(f->code, "%s: %s", what, f->message);
}

void ts_cell_name(ts_dofs dofs, int64_t cell, char *buf, size_t len) {
  int64_t c[3];
  ts_cell_from_index(dofs, cell, c);
  if (dofs->dim == 2)
    snprintf(buf, len, "cell %lld = (%lld, %lld) of level %d", (long long)cell, (long long)c[0],
             (long long)c[1], dofs->level);
  else
    snprintf(buf, len, "cell %lld = (%lld, %lld, %lld) of level %d", (long long)cell,
             (long long)c[0], (long long)c[1], (long long)c[2], dofs->level);
}

int ts_dofs_require_mapped(ts_dofs dofs, int need, const char *what) {
  const int mapped = dofs->mesh && dofs->mesh->map; /* DoFs built without a mesh are Cartesian */
  if (need && !mapped)
    return TS_ERROR(TS_ERR_ARG, "%s: the DoFs are on a box mesh; it takes a mapped mesh "
                    "(ts_mesh_create_mapped, _vertices, _kershaw, _sine, _shell)", what);
  if (!need && mapped)
    return TS_ERROR(TS_ERR_ARG, "%s: the DoFs are on a mapped mesh; it takes a box mesh "
                    "(on mapped cells: ts_operator_create_mapped, ts_assemble_rhs_mapped, "
                    "ts_compute_errors_mapped)", what);
  if (!need && dofs->neumann_faces)
    return TS_ERROR(TS_ERR_ARG, "%s: the DoFs have Neumann faces (%#x); only the operators on "
                    "mapped cells take them (a box is the mapped mesh of an affine map: "
                    "ts_mesh_create_mapped)", what, dofs->neumann_faces);
  return 0;
}

/* Where a level's cells lie in the reference box: cell c of the DoFs is cell first[d] + c[d]
 * of the grid of spacing dofs->h from lower (the DoFs' own cells: lower = dofs->lower,
 * first = 0; a block of a distributed level: the whole mesh's lower and the block's first
 * cell, so that the map is sampled at the bits of the whole mesh's points). */
typedef struct reference_grid {
  const double *lower;
  const int64_t *first;
} reference_grid;

/* The reference points of a cell's n^dim nodes (1D points p[0..n-1] on [0,1]), lexicographic. */
static void cell_reference_points(ts_dofs dofs, const reference_grid *grid, const int64_t *c, int n,
                                  const double *p, double *xi) {
  const int dim = dofs->dim, total = dim == 3 ? n * n * n : n * n;
  for (int l = 0; l < total; ++l) {
    int m = l;
    for (int d = 0; d < dim; ++d, m /= n)
      xi[l * dim + d] = grid->lower[d] + dofs->h[d] * ((double)(grid->first[d] + c[d]) + p[m % n]);
  }
}

/* x at the Q_k nodes from the 2^dim vertex values v (lexicographic): multilinear. */
static void multilinear_nodes(int dim, int n1, const double *p, const double *v, double *x) {
  const int total = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  for (int l = 0; l < total; ++l) {
    double t[3];
    for (int d = 0, m = l; d < dim; ++d, m /= n1) t[d] = p[m % n1];
    for (int i = 0; i < dim; ++i) x[l * dim + i] = 0.0;
    for (int corner = 0; corner < (1 << dim); ++corner) {
      double w = 1.0;
      for (int d = 0; d < dim; ++d) w *= (corner >> d) & 1 ? t[d] : 1.0 - t[d];
      for (int i = 0; i < dim; ++i) x[l * dim + i] += w * v[corner * dim + i];
    }
  }
}

/* The nodes of one cell from the map; the cell writes the nodes it owns (a_d < k, or the
 * last cell of a direction), so that no two cells write one node. */
static void cell_nodes(ts_dofs dofs, const reference_grid *grid, int64_t cell,
                       ts_cell_failure *failure) {
  const int dim = dofs->dim, n1 = dofs->degree + 1, k = dofs->degree;
  const int qk = dofs->mesh->geometry == TS_GEOMETRY_QK, n = qk ? n1 : 2;
  const double ends[2] = {0.0, 1.0};
  double xi[TS_MAX_CELL_DOFS * 3], mapped[TS_MAX_CELL_DOFS * 3], x[TS_MAX_CELL_DOFS * 3];
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  ts_cell_from_index(dofs, cell, c);
  cell_reference_points(dofs, grid, c, n, qk ? dofs->fe->points : ends, xi);
  const int count = dim == 3 ? n * n * n : n * n;
  const int rc = dofs->mesh->map(dofs->mesh->map_ctx, dim, count, xi, mapped);
  char name[96];
  for (int v = 0; v < count * dim && !rc; ++v)
    if (!isfinite(mapped[v])) {
      ts_cell_name(dofs, cell, name, sizeof name);
      ts_cell_failure_set(failure, cell, TS_ERR_ARG, "the map returned x[%d] = %g at point %d of %s "
                          "(values must be finite)", v % dim, mapped[v], v / dim, name);
      return;
    }
  if (rc) {
    ts_cell_name(dofs, cell, name, sizeof name);
    ts_cell_failure_set(failure, cell, TS_ERR_ARG, "the map callback returned %d for %s", rc, name);
    return;
  }
  if (!qk) multilinear_nodes(dim, n1, dofs->fe->points, mapped, x);
  const double *nodes = qk ? mapped : x;
  ts_cell_dof_indices(dofs, c, idx);
  const int total = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  for (int l = 0; l < total; ++l) {
    int owned = 1;
    for (int d = 0, m = l; d < dim; ++d, m /= n1) owned &= m % n1 < k || c[d] == dofs->cells[d] - 1;
    if (owned)
      for (int i = 0; i < dim; ++i) dofs->nodes[idx[l] * dim + i] = nodes[l * dim + i];
  }
}

int ts_geometry_nodes_init_block(ts_dofs dofs, const double *lower, const int64_t *first_cell) {
  TS_CALL(ts_calloc((size_t)dofs->count * (size_t)dofs->dim, sizeof(double), "mapped DoF points",
                    &dofs->nodes));
  const reference_grid grid = {lower, first_cell};
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  const int64_t cells = ts_cell_count(dofs);
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t cell = 0; cell < cells; ++cell) cell_nodes(dofs, &grid, cell, &failure);
  return ts_cell_failure_report(&failure, "mapped mesh");
}

int ts_geometry_nodes_init(ts_dofs dofs) {
  static const int64_t none[3] = {0, 0, 0};
  return ts_geometry_nodes_init_block(dofs, dofs->lower, none);
}

void ts_tensor_to_points(int dim, int n1, int nq, const double *const *tables, const double *in, double *out) {
  double t0[MAX_NQ3], t1[MAX_NQ3];
  int shape[3] = {n1, n1, n1};
  const double *src = in;
  for (int d = 0; d < dim; ++d) {
    double *dst = d == dim - 1 ? out : d % 2 ? t1 : t0;
    ts_tensor_contract(dim, shape, d, tables[d], nq, 0, src, dst);
    shape[d] = nq;
    src = dst;
  }
}

void ts_cell_geometry(ts_dofs dofs, int64_t cell, int n_q, const double *shape, const double *grad,
                      double *x, double *J) {
  const int dim = dofs->dim, n1 = dofs->degree + 1;
  const int nodes = dim == 3 ? n1 * n1 * n1 : n1 * n1, points = dim == 3 ? n_q * n_q * n_q : n_q * n_q;
  double X[TS_MAX_CELL_DOFS], out[MAX_NQ3];
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  ts_cell_from_index(dofs, cell, c);
  ts_cell_dof_indices(dofs, c, idx);
  for (int i = 0; i < dim; ++i) {
    for (int l = 0; l < nodes; ++l) X[l] = dofs->nodes[idx[l] * dim + i];
    for (int d = -1; d < dim; ++d) { /* d = -1: the values */
      if (d < 0 && !x) continue;
      const double *tables[3] = {d == 0 ? grad : shape, d == 1 ? grad : shape, d == 2 ? grad : shape};
      ts_tensor_to_points(dim, n1, n_q, tables, X, out);
      for (int q = 0; q < points; ++q) {
        if (d < 0)
          x[q * dim + i] = out[q];
        else
          J[(q * dim + i) * dim + d] = out[q];
      }
    }
  }
}

void ts_face_geometry(ts_dofs dofs, int64_t cell, int normal, int side, int n_q, const double *shape,
                      const double *grad, double *x, double *T) {
  const int dim = dofs->dim, n1 = dofs->degree + 1, nf = dim == 3 ? n1 * n1 : n1;
  const int npf = dim == 3 ? n_q * n_q : n_q;
  int tangential[2] = {0, 0};
  for (int e = 0, m = 0; e < dim; ++e)
    if (e != normal) tangential[m++] = e;
  double X[MAX_N1 * MAX_N1 * 3];
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  ts_cell_from_index(dofs, cell, c);
  ts_cell_dof_indices(dofs, c, idx);
  for (int j = 0; j < nf; ++j) { /* the face's nodes, the first tangential direction fastest */
    int a[3] = {0, 0, 0};
    a[normal] = side ? n1 - 1 : 0;
    a[tangential[0]] = j % n1;
    if (dim == 3) a[tangential[1]] = j / n1;
    for (int e = 0; e < dim; ++e) X[j * dim + e] = dofs->nodes[idx[a[0] + n1 * (a[1] + n1 * a[2])] * dim + e];
  }
  for (int q = 0; q < npf; ++q) {
    const int q0 = q % n_q, q1 = q / n_q;
    double *xq = x + q * dim, *T0 = T + q * (dim - 1) * dim, *T1 = T0 + dim;
    for (int e = 0; e < dim; ++e) xq[e] = T0[e] = 0.0;
    for (int e = 0; e < dim && dim == 3; ++e) T1[e] = 0.0;
    for (int j = 0; j < nf; ++j) {
      const int j0 = j % n1, j1 = j / n1;
      const double s0 = shape[q0 * n1 + j0], g0 = grad[q0 * n1 + j0];
      const double s1 = dim == 3 ? shape[q1 * n1 + j1] : 1.0, g1 = dim == 3 ? grad[q1 * n1 + j1] : 0.0;
      for (int e = 0; e < dim; ++e) {
        xq[e] += X[j * dim + e] * s0 * s1;
        T0[e] += X[j * dim + e] * g0 * s1;
        if (dim == 3) T1[e] += X[j * dim + e] * s0 * g1;
      }
    }
  }
}

int ts_call_point_fn(ts_point_fn fn, void *ctx, ts_dofs dofs, int64_t cell, const char *what,
                     int64_t n, int per_point, const double *x, double *values,
                     ts_cell_failure *failure) {
  char name[96];
  const int rc = fn(ctx, dofs->dim, n, x, values);
  int64_t bad = -1;
  for (int64_t v = 0; v < n * per_point && !rc && bad < 0; ++v)
    if (!isfinite(values[v])) bad = v;
  if (!rc && bad < 0) return 1;
  ts_cell_name(dofs, cell, name, sizeof name);
  if (rc)
    ts_cell_failure_set(failure, cell, TS_ERR_ARG, "the %s callback returned %d for %s", what, rc, name);
  else
    ts_cell_failure_set(failure, cell, TS_ERR_ARG, "the %s callback gave %g (not finite) at point "
                        "%lld of %s", what, values[bad], (long long)(bad / per_point), name);
  return 0;
}

double ts_jacobian_inverse(int dim, const double *J, double *inverse) {
  if (dim == 2) {
    const double det = J[0] * J[3] - J[1] * J[2];
    inverse[0] = J[3] / det;
    inverse[1] = -J[1] / det;
    inverse[2] = -J[2] / det;
    inverse[3] = J[0] / det;
    return det;
  }
  /* the cofactors: inverse = adj(J) / det */
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
      inverse[i * 3 + j] = J[r0 * 3 + c0] * J[r1 * 3 + c1] - J[r0 * 3 + c1] * J[r1 * 3 + c0];
    }
  const double det = J[0] * inverse[0] + J[1] * inverse[3] + J[2] * inverse[6];
  for (int i = 0; i < 9; ++i) inverse[i] /= det;
  return det;
}
