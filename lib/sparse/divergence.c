/* divergence.c -- the divergence D from RT_k to DGQ_k in the interpolation-histopolation
 * bases of paper 003 (section 2.1), assembled as a sparse matrix.
 *
 * Both bases cut every cell at the k+2 Gauss-Lobatto points per direction into (k+1)^dim
 * sub-cells; the level is then a grid of n_d = cells_d (k+1) sub-cells per direction.  A
 * DGQ_k DoF is the integral over one sub-cell s = (s_0, s_1, s_2), an RT_k DoF of component
 * i the flux of u_i through one sub-face normal to direction i.  By the divergence theorem
 *   int_s div u = sum_i (flux through the face s_i + 1 of s) - (flux through the face s_i),
 * so (D u)_s has the entries +1 and -1 per direction, for every degree and every cell size:
 * D is the lowest-order divergence of the sub-cell grid (paper 003, section 3.2).  In the
 * DoF numbering (lib/dof/dofs.c) component i's faces along direction i are numbered
 * 0..n_i, its sub-cells across 0..n_d - 1, as the pressure's; the columns of a row are
 * ascending (component blocks in order, face s_i before s_i + 1). */
#include "sparse-impl.h"

/* the index of component i's DoF at the sub-cell s shifted by `face` (0 or 1) along i */
static int64_t face_index(ts_dofs u, int i, const int64_t *s, int face) {
  int64_t a[3] = {s[0], s[1], s[2]};
  a[i] += face;
  const int64_t *n = u->comp_n[i];
  return u->comp_offset[i] + a[0] + n[0] * (a[1] + n[1] * a[2]);
}

/* the rows of D in CSR: row s (DGQ_k numbering) holds -1, +1 per direction */
static void fill(ts_dofs u, ts_dofs p, ts_matrix D) {
  const int per_row = 2 * p->dim;
  for (int64_t r = 0; r <= p->count; ++r) D->row_offsets[r] = r * per_row;
  int64_t s[3] = {0, 0, 0};
  for (s[2] = 0; s[2] < p->n[2]; ++s[2])
    for (s[1] = 0; s[1] < p->n[1]; ++s[1])
      for (s[0] = 0; s[0] < p->n[0]; ++s[0]) {
        const int64_t row = s[0] + p->n[0] * (s[1] + p->n[1] * s[2]);
        int64_t *columns = D->columns + row * per_row;
        double *values = D->values + row * per_row;
        for (int i = 0; i < p->dim; ++i) {
          columns[2 * i] = face_index(u, i, s, 0);
          values[2 * i] = -1.0;
          columns[2 * i + 1] = face_index(u, i, s, 1);
          values[2 * i + 1] = 1.0;
        }
      }
}

/* the two spaces fit: RT_k and DGQ_k of the interpolation-histopolation family on one grid */
static int check_spaces(ts_dofs u, ts_dofs p) {
  TS_CHECK_ARG(u->fe->family == TS_FE_RT_IH,
               "ts_matrix_assemble_divergence: argument 'velocity' is not of RT_k in the "
               "interpolation-histopolation basis (ts_fe_create_rt_ih)");
  TS_CHECK_ARG(p->fe->family == TS_FE_L2_IH,
               "ts_matrix_assemble_divergence: argument 'pressure' is not of DGQ_k in the "
               "histopolation basis (ts_fe_create_l2_ih)");
  TS_CHECK_ARG(u->mesh == p->mesh && u->level == p->level,
               "ts_matrix_assemble_divergence: 'velocity' (level %d) and 'pressure' (level %d) "
               "are not DoFs of the same mesh level", u->level, p->level);
  TS_CHECK_ARG(u->degree == p->degree && u->dim == p->dim,
               "ts_matrix_assemble_divergence: 'velocity' is of degree %d in %dD, 'pressure' of "
               "degree %d in %dD: they must agree", u->degree, u->dim, p->degree, p->dim);
  TS_CHECK_ARG(u->count <= TS_MATRIX_MAX_SIZE && p->count <= TS_MATRIX_MAX_SIZE,
               "ts_matrix_assemble_divergence: %lld x %lld DoFs, at most %d per side fit a "
               "sparse matrix", (long long)p->count, (long long)u->count, TS_MATRIX_MAX_SIZE);
  return 0;
}

int ts_matrix_assemble_divergence(ts_dofs velocity, ts_dofs pressure, ts_matrix *D) {
  TS_CHECK_NOT_NULL(D);
  *D = NULL;
  TS_CHECK_NOT_NULL(velocity);
  TS_CHECK_NOT_NULL(pressure);
  TS_CALL(check_spaces(velocity, pressure));
  ts_matrix m;
  TS_CALL(ts_matrix_alloc(pressure->count, velocity->count, &m));
  m->row_offsets[pressure->count] = pressure->count * 2 * pressure->dim;
  int ierr = ts_matrix_alloc_entries(m);
  if (ierr) {
    ts_matrix_destroy(&m);
    return ts_error_trace(ierr, __FILE__, __LINE__, "divergence matrix");
  }
  fill(velocity, pressure, m);
  m->dim = pressure->dim;
  *D = m;
  return 0;
}
