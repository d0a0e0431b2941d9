/* dofs.c -- lexicographic DoF numbering on one level of a box mesh, per vector component.
 *
 * Q_k (one component): DoF (i0,i1,i2) has index i0 + n0*(i1 + n1*i2) with n_d = cells_d*k + 1;
 * cell c owns DoFs c_d*k + a_d, a_d = 0..k; boundary DoFs have some i_d in {0, n_d-1}.
 * DGQ_k (one component): n_d = cells_d*(k+1), cell c owns c_d*(k+1) + a_d, a_d = 0..k; no
 * DoF is constrained.  RT_k (dim components, doc/stokes.md section 2): component i has
 * comp_n[i][d] = cells_d*(k+1) + (d == i) DoFs per direction in its own block starting at
 * comp_offset[i]; its constrained (boundary) DoFs are the normal ones, a_i in {0, n_i - 1}.
 * For RT_k, n[] holds component 0's sizes (the per-component sizes are comp_n).  The
 * interpolation-histopolation elements (RT_k and DGQ_k of paper 003) are numbered as RT_k and
 * DGQ_k: index a_d along direction d of a cell counts its Gauss-Lobatto sub-cells (or, in
 * component i's own direction, their faces). */
#include <string.h>
#include "../tessera-impl.h"

static const char *family_name(ts_fe_family family) {
  switch (family) {
  case TS_FE_Q: return "Q_k";
  case TS_FE_RT: return "RT_k";
  case TS_FE_RT_IH: return "RT_k (interpolation-histopolation)";
  case TS_FE_L2_IH: return "DGQ_k (histopolation)";
  default: return "DGQ_k";
  }
}

/* RT_k in either basis: the same DoFs, numbered alike */
static int is_rt(ts_fe_family family) { return family == TS_FE_RT || family == TS_FE_RT_IH; }

/* DGQ_k and RT_k in either basis: on a mapped mesh without nodes of their own (the L2 and
 * H(div) masses take the cells' geometry from Q_k DoFs, lib/op/l2-mass.c, hdiv-mass.c) */
static int has_no_nodes(ts_fe_family family) {
  return family == TS_FE_DGQ || family == TS_FE_L2_IH || is_rt(family);
}

/* Is direction d of component i continuous (shared cell ends): every direction of Q_k, the
 * component's own direction of RT_k, none of DGQ_k. */
static int continuous_direction(ts_dofs dofs, int component, int d) {
  return dofs->fe->family == TS_FE_Q || (is_rt(dofs->fe->family) && d == component);
}

/* Index distance between the first DoFs of neighbouring cells in direction d: k where cells
 * share their end DoFs, k+1 where they do not. */
static int cell_stride(ts_dofs dofs, int component, int d) {
  return continuous_direction(dofs, component, d) && dofs->fe->family == TS_FE_Q
             ? dofs->degree
             : dofs->degree + 1;
}

/* DoFs of component i in direction d < dim */
static int64_t component_size(ts_dofs dofs, int component, int d) {
  return dofs->cells[d] * cell_stride(dofs, component, d) +
         (continuous_direction(dofs, component, d) ? 1 : 0);
}

/* Fill components, comp_n, comp_offset, n and count; TS_ERR_MEMORY if it overflows. */
static int number_components(ts_dofs h) {
  h->components = ts_fe_components(h->fe);
  h->count = 0;
  for (int i = 0; i < h->components; ++i) {
    int64_t size = 1;
    for (int d = 0; d < 3; ++d) {
      h->comp_n[i][d] = d < h->dim ? component_size(h, i, d) : 1;
      if (size > INT64_MAX / h->comp_n[i][d] || h->count > INT64_MAX - size * h->comp_n[i][d])
        return TS_ERROR(TS_ERR_MEMORY, "DoFs: the level-%d space has more than 2^63 DoFs",
                        h->level);
      size *= h->comp_n[i][d];
    }
    h->comp_offset[i] = h->count;
    h->count += size;
  }
  h->comp_offset[h->components] = h->count;
  for (int d = 0; d < 3; ++d) h->n[d] = h->comp_n[0][d];
  return 0;
}

int ts_dofs_create(ts_mesh mesh, ts_fe fe, int level, ts_dofs *dofs) {
  TS_CHECK_NOT_NULL(dofs);
  *dofs = NULL;
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(fe);
  TS_CHECK_ARG(mesh->dim == fe->dim, "DoFs: mesh is %dD but the element is %dD", mesh->dim,
               fe->dim);
  ts_dofs h;
  TS_CALL(ts_calloc(1, sizeof *h, "DoF handler", &h));
  h->mesh = mesh;
  h->fe = fe;
  h->level = level;
  h->dim = mesh->dim;
  h->degree = fe->degree;
  int ierr = ts_mesh_cells(mesh, level, h->cells);
  if (!ierr) ierr = ts_mesh_cell_size(mesh, level, h->h);
  if (!ierr) {
    for (int d = 0; d < 3; ++d) {
      if (d >= h->dim) {
        h->cells[d] = 1;
        h->h[d] = 1.0;
      }
      h->lower[d] = mesh->lower[d];
    }
    ierr = number_components(h);
  }
  if (!ierr && mesh->map && !has_no_nodes(fe->family)) {
    ierr = ts_dofs_require_q(h, "DoFs on a mapped mesh");
    if (!ierr) ierr = ts_geometry_nodes_init(h);
  }
  if (ierr) {
    ts_free(&h->nodes);
    ts_free(&h);
    return ts_error_trace(ierr, __FILE__, __LINE__, "DoF numbering");
  }
  *dofs = h;
  return 0;
}

int ts_dofs_destroy(ts_dofs *dofs) {
  if (dofs && *dofs) ts_free(&(*dofs)->nodes);
  if (dofs) ts_free(dofs);
  return 0;
}

int64_t ts_dofs_count(ts_dofs dofs) {
  TS_GETTER_NOT_NULL(dofs, -1);
  return dofs->count;
}

int ts_dofs_per_direction(ts_dofs dofs, int64_t *n) {
  TS_CHECK_NOT_NULL(dofs);
  TS_CHECK_NOT_NULL(n);
  for (int d = 0; d < dofs->dim; ++d) n[d] = dofs->n[d];
  return 0;
}

int ts_dofs_require_q(ts_dofs dofs, const char *what) {
  TS_CHECK_ARG(dofs->fe->family == TS_FE_Q, "%s: the DoFs are of a %s element, only Q_k is allowed",
               what, family_name(dofs->fe->family));
  return 0;
}

int ts_dof_position(ts_dofs dofs, int64_t index, int64_t *a) {
  int c = 0;
  while (index >= dofs->comp_offset[c + 1]) ++c;
  const int64_t local = index - dofs->comp_offset[c], *n = dofs->comp_n[c];
  a[0] = local % n[0];
  a[1] = (local / n[0]) % n[1];
  a[2] = local / (n[0] * n[1]);
  return c;
}

int ts_dofs_point(ts_dofs dofs, int64_t index, double *x) {
  int64_t a[3];
  TS_CHECK_NOT_NULL(dofs);
  TS_CHECK_NOT_NULL(x);
  TS_CHECK_ARG(index >= 0 && index < dofs->count, "DoF index %lld out of range 0..%lld",
               (long long)index, (long long)dofs->count - 1);
  if (dofs->nodes) { /* a mapped mesh: the geometry's node */
    for (int d = 0; d < dofs->dim; ++d) x[d] = dofs->nodes[index * dofs->dim + d];
    return 0;
  }
  const int c = ts_dof_position(dofs, index, a);
  for (int d = 0; d < dofs->dim; ++d) {
    const int stride = cell_stride(dofs, c, d);
    /* the last DoF of a continuous direction is the right end of the last cell */
    const int64_t cell = a[d] / stride < dofs->cells[d] ? a[d] / stride : dofs->cells[d] - 1;
    const int local = (int)(a[d] - cell * stride);
    const double *points =
        is_rt(dofs->fe->family) && d == c ? dofs->fe->normal_points : dofs->fe->points;
    x[d] = dofs->lower[d] + dofs->h[d] * ((double)cell + points[local]);
  }
  return 0;
}

int ts_dofs_is_boundary(ts_dofs dofs, int64_t index) {
  int64_t a[3];
  TS_GETTER_NOT_NULL(dofs, -1);
  TS_GETTER_CHECK(index >= 0 && index < dofs->count, -1,
                  "ts_dofs_is_boundary: DoF index %lld out of range 0..%lld", (long long)index,
                  (long long)dofs->count - 1);
  const int c = ts_dof_position(dofs, index, a);
  const int64_t *n = dofs->comp_n[c];
  switch (dofs->fe->family) {
  case TS_FE_Q:
    for (int d = 0; d < dofs->dim; ++d)
      if (a[d] == 0 || a[d] == n[d] - 1) return 1;
    return 0;
  case TS_FE_RT: /* the normal velocity on the box boundary (doc/stokes.md section 2) */
  case TS_FE_RT_IH:
    return a[c] == 0 || a[c] == n[c] - 1;
  default:
    return 0;
  }
}

unsigned ts_dofs_flux_face(ts_dofs dofs, int64_t index) {
  int64_t a[3];
  const int c = ts_dof_position(dofs, index, a);
  if (a[c] == 0) return 1u << (2 * c);
  return a[c] == dofs->comp_n[c][c] - 1 ? 1u << (2 * c + 1) : 0u;
}

/* The faces of the box that DoF position a (of a Q_k field with n per direction) lies on. */
static unsigned q_faces_of(ts_dofs dofs, const int64_t *a, const int64_t *n) {
  unsigned faces = 0;
  for (int d = 0; d < dofs->dim; ++d) {
    if (a[d] == 0) faces |= 1u << (2 * d);
    if (a[d] == n[d] - 1) faces |= 1u << (2 * d + 1);
  }
  return faces;
}

int ts_dofs_is_dirichlet(ts_dofs dofs, int64_t index) {
  int64_t a[3];
  TS_GETTER_NOT_NULL(dofs, -1);
  TS_GETTER_CHECK(index >= 0 && index < dofs->count, -1,
                  "ts_dofs_is_dirichlet: DoF index %lld out of range 0..%lld", (long long)index,
                  (long long)dofs->count - 1);
  if (dofs->fe->family != TS_FE_Q || !dofs->neumann_faces) return ts_dofs_is_boundary(dofs, index);
  const int c = ts_dof_position(dofs, index, a);
  return (q_faces_of(dofs, a, dofs->comp_n[c]) & ~dofs->neumann_faces) != 0;
}

int ts_check_faces(const char *fn, const char *name, int dim, unsigned faces) {
  TS_CHECK_ARG((faces & ~TS_FACES_ALL(dim)) == 0, "%s: %s = %#x has bits beyond the %d faces of a "
               "%dD box (allowed: TS_FACE_* bits within %#x)", fn, name, faces, 2 * dim, dim,
               TS_FACES_ALL(dim));
  return 0;
}

int ts_dofs_set_neumann_faces(ts_dofs dofs, unsigned faces) {
  TS_CHECK_NOT_NULL(dofs);
  TS_CALL(ts_dofs_require_q(dofs, "ts_dofs_set_neumann_faces"));
  TS_CALL(ts_check_faces("ts_dofs_set_neumann_faces", "faces", dofs->dim, faces));
  dofs->neumann_faces = faces;
  return 0;
}

unsigned ts_dofs_neumann_faces(ts_dofs dofs) { return dofs ? dofs->neumann_faces : 0; }

ts_mesh ts_dofs_mesh(ts_dofs dofs) { return dofs ? dofs->mesh : NULL; }
ts_fe ts_dofs_fe(ts_dofs dofs) { return dofs ? dofs->fe : NULL; }
int ts_dofs_level(ts_dofs dofs) { return dofs ? dofs->level : -1; }

const char *const ts_face_names[6] = {"left", "right", "bottom", "top", "front", "back"};

int ts_faces_from_names(const char *names, int dim, unsigned *faces) {
  TS_CHECK_NOT_NULL(names);
  TS_CHECK_NOT_NULL(faces);
  TS_CHECK_ARG(dim == 2 || dim == 3, "ts_faces_from_names: dim = %d, allowed 2 or 3", dim);
  unsigned set = 0;
  for (const char *p = names; *p;) {
    const size_t skip = strspn(p, " \t\n,"), len = strcspn(p + skip, " \t\n,");
    const char *word = p + skip;
    p = word + len;
    if (len == 0) continue;
    int found = -1;
    for (int f = 0; f < 2 * dim && found < 0; ++f)
      if (strlen(ts_face_names[f]) == len && strncmp(word, ts_face_names[f], len) == 0) found = f;
    if (found >= 0) set |= 1u << found;
    else if (len == 3 && strncmp(word, "all", 3) == 0) set |= TS_FACES_ALL(dim);
    else if (!(len == 4 && strncmp(word, "none", 4) == 0))
      return TS_ERROR(TS_ERR_ARG, "face '%.*s' unknown in %dD, allowed: %s, all, none", (int)len,
                      word, dim, dim == 3 ? "left, right, bottom, top, front, back"
                                          : "left, right, bottom, top");
  }
  *faces = set;
  return 0;
}

int64_t ts_dofs_boundary_count(ts_dofs dofs) {
  int64_t count = 0;
  TS_GETTER_NOT_NULL(dofs, -1);
  for (int c = 0; c < dofs->components; ++c) {
    const int64_t *n = dofs->comp_n[c];
    const int64_t size = n[0] * n[1] * n[2];
    if (dofs->fe->family == TS_FE_Q) {
      int64_t interior = 1;
      for (int d = 0; d < dofs->dim; ++d) interior *= n[d] - 2;
      count += size - interior;
    } else if (is_rt(dofs->fe->family)) {
      count += 2 * (size / n[c]);
    }
  }
  return count;
}
