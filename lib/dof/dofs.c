/* dofs.c -- lexicographic DoF numbering of a Q_k space on one level of a box mesh:
 * DoF (i0,i1,i2) has index i0 + n0*(i1 + n1*i2) with n_d = cells_d*k + 1, and cell c owns
 * DoFs c_d*k + a_d, a_d = 0..k.  Boundary DoFs are those with some i_d in {0, n_d-1}. */
#include "../tessera-impl.h"

int ts_dofs_create(ts_mesh mesh, ts_fe fe, int level, ts_dofs *dofs) {
  TS_CHECK_ARG(dofs && mesh && fe, "ts_dofs_create: NULL argument");
  *dofs = NULL;
  TS_CHECK_ARG(mesh->dim == fe->dim, "DoFs: mesh is %dD but the element is %dD", mesh->dim,
               fe->dim);
  ts_dofs h;
  TS_CALL(ts_calloc(1, sizeof *h, "DoF handler", &h));
  h->mesh = mesh;
  h->fe = fe;
  h->level = level;
  h->dim = mesh->dim;
  h->degree = fe->degree;
  h->count = 1;
  int ierr = ts_mesh_cells(mesh, level, h->cells);
  if (!ierr) ierr = ts_mesh_cell_size(mesh, level, h->h);
  if (ierr) {
    ts_free(&h);
    return ts_error_trace(ierr, __FILE__, __LINE__, "mesh level");
  }
  for (int d = 0; d < 3; ++d) {
    if (d >= h->dim) {
      h->cells[d] = 1;
      h->n[d] = 1;
      h->h[d] = 1.0;
    } else {
      h->n[d] = h->cells[d] * h->degree + 1;
    }
    h->lower[d] = mesh->lower[d];
    if (h->count > INT64_MAX / h->n[d]) {
      ts_free(&h);
      return TS_ERROR(TS_ERR_MEMORY, "DoFs: the level-%d space has more than 2^63 DoFs", level);
    }
    h->count *= h->n[d];
  }
  *dofs = h;
  return 0;
}

int ts_dofs_destroy(ts_dofs *dofs) {
  if (dofs) ts_free(dofs);
  return 0;
}

int64_t ts_dofs_count(ts_dofs dofs) { return dofs->count; }

int ts_dofs_per_direction(ts_dofs dofs, int64_t *n) {
  for (int d = 0; d < dofs->dim; ++d) n[d] = dofs->n[d];
  return 0;
}

static void dof_indices(ts_dofs dofs, int64_t index, int64_t *i) {
  i[0] = index % dofs->n[0];
  i[1] = (index / dofs->n[0]) % dofs->n[1];
  i[2] = index / (dofs->n[0] * dofs->n[1]);
}

int ts_dofs_point(ts_dofs dofs, int64_t index, double *x) {
  int64_t i[3];
  TS_CHECK_ARG(index >= 0 && index < dofs->count, "DoF index %lld out of range 0..%lld",
               (long long)index, (long long)dofs->count - 1);
  dof_indices(dofs, index, i);
  const int k = dofs->degree;
  for (int d = 0; d < dofs->dim; ++d) {
    const int64_t cell = i[d] == dofs->n[d] - 1 ? i[d] / k - 1 : i[d] / k;
    const int local = (int)(i[d] - cell * k);
    x[d] = dofs->lower[d] + dofs->h[d] * ((double)cell + dofs->fe->points[local]);
  }
  return 0;
}

int ts_dofs_is_boundary(ts_dofs dofs, int64_t index) {
  int64_t i[3];
  dof_indices(dofs, index, i);
  for (int d = 0; d < dofs->dim; ++d)
    if (i[d] == 0 || i[d] == dofs->n[d] - 1) return 1;
  return 0;
}

int64_t ts_dofs_boundary_count(ts_dofs dofs) {
  int64_t interior = 1;
  for (int d = 0; d < dofs->dim; ++d) interior *= dofs->n[d] - 2;
  return dofs->count - interior;
}
