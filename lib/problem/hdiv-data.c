/* hdiv-data.c -- right sides and errors of the RT_k and DGQ_k fields of paper 003 in the
 * interpolation-histopolation bases, on the box mesh's Cartesian cells: the load vector
 * b_j = (f, phi_j) and the L2 error of a discrete field against a function; on the box's
 * faces the prescribed fluxes (the DoFs of the boundary sub-faces) and the pressure term
 * (p, phi_j . n) of the natural condition.
 *
 * On a cell with sizes h_d the basis function of a DoF of component i (a flux) is
 *   phi_i = l_a(xi_i) prod_{d != i} h_{b_d}(xi_d) / prod_{d != i} h_d
 * (hdiv-schur.c), l the Lagrange polynomials of the k+2 Gauss-Lobatto points and h their
 * histopolation basis; that of a DGQ_k DoF (a sub-cell integral) prod_d h_{b_d}(xi_d) / h_d.
 * The cell integrals use the Gauss rule of k+3 points per direction, the face integrals that
 * rule on each sub-interval of the face's Gauss-Lobatto cut; the functions are called once
 * per cell or boundary face (from the calling thread) with all its points. */
#include <math.h>
#include <stdlib.h>
#include "problem-impl.h"

#define HDIV_Q (TS_MAX_DEGREE + 4) /* Gauss points per direction, at most */

/* The 1D tables of one degree: Gauss points and weights on [0,1], and the values of the
 * k+2 interpolation and k+1 histopolation polynomials there ([q][a]). */
typedef struct hdiv_tables {
  int nq, k;
  double x[HDIV_Q], w[HDIV_Q];
  double l[HDIV_Q][TS_MAX_POINTS], h[HDIV_Q][TS_MAX_POINTS];
} hdiv_tables;

static int tables_create(ts_dofs u, hdiv_tables *t) {
  const int k = u->degree;
  t->k = k;
  t->nq = k + 3;
  TS_CALL(ts_gauss_rule(t->nq, t->x, t->w));
  for (int q = 0; q < t->nq; ++q) {
    double dl[TS_MAX_POINTS];
    ts_lagrange_eval(k + 2, u->fe->normal_points, t->x[q], t->l[q], dl);
    ts_histopolation_eval(k + 2, u->fe->normal_points, t->x[q], t->h[q]);
  }
  return 0;
}

/* One cell's quadrature: its points (physical, q0 fastest) and weights times the volume. */
typedef struct cell_points {
  int64_t cell[3];
  int n;
  double *x, *w;                /* n dim, n */
  int q[3][HDIV_Q * HDIV_Q * HDIV_Q]; /* the 1D index of point p in direction d */
} cell_points;

static void cell_points_fill(ts_dofs u, const hdiv_tables *t, cell_points *c) {
  double volume = 1.0;
  for (int d = 0; d < u->dim; ++d) volume *= u->h[d];
  int p = 0, idx[3] = {0, 0, 0};
  for (idx[2] = 0; idx[2] < (u->dim == 3 ? t->nq : 1); ++idx[2])
    for (idx[1] = 0; idx[1] < t->nq; ++idx[1])
      for (idx[0] = 0; idx[0] < t->nq; ++idx[0], ++p) {
        c->w[p] = volume;
        for (int d = 0; d < u->dim; ++d) {
          c->q[d][p] = idx[d];
          c->x[p * u->dim + d] = u->lower[d] + u->h[d] * ((double)c->cell[d] + t->x[idx[d]]);
          c->w[p] *= t->w[idx[d]];
        }
      }
  c->n = p;
}

/* The components of the field: dim for RT_k, 1 for DGQ_k. */
static int components(ts_dofs u) { return u->fe->family == TS_FE_RT_IH ? u->dim : 1; }

/* phi of the DoF of component i with cell-local indices a[] at point p of the cell: l along
 * the component's direction for RT_k, h along the others (all for DGQ_k) */
static double basis(ts_dofs u, const hdiv_tables *t, const cell_points *c, int i,
                    const int *a, int p) {
  const int normal = u->fe->family == TS_FE_RT_IH ? i : -1;
  double v = 1.0;
  for (int d = 0; d < u->dim; ++d)
    v *= d == normal ? t->l[c->q[d][p]][a[d]] : t->h[c->q[d][p]][a[d]] / u->h[d];
  return v;
}

/* the global index of component i's DoF with cell-local indices a[] in cell c->cell */
static int64_t global_index(ts_dofs u, const cell_points *c, int i, const int *a) {
  const int64_t *n = u->comp_n[i];
  int64_t g[3] = {0, 0, 0};
  for (int d = 0; d < u->dim; ++d) g[d] = c->cell[d] * (u->degree + 1) + a[d];
  return u->comp_offset[i] + g[0] + n[0] * (g[1] + n[1] * g[2]);
}

/* Calls fn(u, t, c, values, i, a, index, data) for every DoF of every component of the
 * cell, values: the function's values per point (one per component). */
typedef void (*dof_visit)(ts_dofs u, const hdiv_tables *t, const cell_points *c,
                          const double *values, int i, const int *a, int64_t index, void *data);

static void for_cell_dofs(ts_dofs u, const hdiv_tables *t, const cell_points *c,
                          const double *values, dof_visit visit, void *data) {
  const int k = u->degree, rt = u->fe->family == TS_FE_RT_IH;
  for (int i = 0; i < components(u); ++i) {
    int a[3] = {0, 0, 0}, n[3] = {1, 1, 1};
    for (int d = 0; d < u->dim; ++d) n[d] = rt && d == i ? k + 2 : k + 1;
    for (a[2] = 0; a[2] < n[2]; ++a[2])
      for (a[1] = 0; a[1] < n[1]; ++a[1])
        for (a[0] = 0; a[0] < n[0]; ++a[0])
          visit(u, t, c, values, i, a, global_index(u, c, i, a), data);
  }
}

/* b_index += sum_p w_p f_i(x_p) phi(x_p) */
static void add_load(ts_dofs u, const hdiv_tables *t, const cell_points *c, const double *f,
                     int i, const int *a, int64_t index, void *data) {
  double *b = data;
  long double s = 0.0L;
  for (int p = 0; p < c->n; ++p)
    s += (long double)c->w[p] * f[p * components(u) + i] * basis(u, t, c, i, a, p);
  b[index] += (double)s;
}

/* uh[p dim + i] += U_index phi(x_p) */
typedef struct field_values {
  const double *U;
  double *uh;
} field_values;

static void add_value(ts_dofs u, const hdiv_tables *t, const cell_points *c, const double *f,
                      int i, const int *a, int64_t index, void *data) {
  (void)f;
  field_values *v = data;
  for (int p = 0; p < c->n; ++p)
    v->uh[p * components(u) + i] += v->U[index] * basis(u, t, c, i, a, p);
}

static int check_space(const char *fn, ts_dofs u, ts_point_fn f, const double *array) {
  TS_CHECK_ARG(u && f && array, "%s: NULL argument ('dofs', the function or the array)", fn);
  TS_CHECK_ARG(u->fe->family == TS_FE_RT_IH || u->fe->family == TS_FE_L2_IH,
               "%s: argument 'dofs' is not of RT_k or DGQ_k in the interpolation-histopolation "
               "bases (ts_fe_create_rt_ih, ts_fe_create_l2_ih)", fn);
  return ts_dofs_require_mapped(u, 0, fn); /* Cartesian cells only */
}

/* Visits every cell: its points, f there (components values per point), then the visitor per DoF,
 * and after the cell `done` (if any). */
typedef int (*cell_done)(ts_dofs u, const cell_points *c, const double *values, void *data);

static int for_cells(ts_dofs u, ts_point_fn f, void *ctx, dof_visit visit, cell_done done,
                     void *data, const char *what) {
  hdiv_tables t;
  TS_CALL(tables_create(u, &t));
  cell_points c;
  const int nq = u->dim == 3 ? t.nq * t.nq * t.nq : t.nq * t.nq;
  double *x = NULL, *w = NULL, *values = NULL;
  int ierr = ts_calloc((size_t)nq * u->dim, sizeof *x, "cell points", &x);
  if (!ierr) ierr = ts_calloc((size_t)nq, sizeof *w, "cell weights", &w);
  if (!ierr)
    ierr = ts_calloc((size_t)nq * components(u), sizeof *values, "function values", &values);
  c.x = x;
  c.w = w;
  for (c.cell[2] = 0; !ierr && c.cell[2] < u->cells[2]; ++c.cell[2])
    for (c.cell[1] = 0; !ierr && c.cell[1] < u->cells[1]; ++c.cell[1])
      for (c.cell[0] = 0; !ierr && c.cell[0] < u->cells[0]; ++c.cell[0]) {
        cell_points_fill(u, &t, &c);
        if (f(ctx, u->dim, c.n, c.x, values))
          ierr = TS_ERROR(TS_ERR_ARG, "%s: the function failed at cell (%lld, %lld, %lld)", what,
                          (long long)c.cell[0], (long long)c.cell[1], (long long)c.cell[2]);
        if (!ierr && visit) for_cell_dofs(u, &t, &c, values, visit, data);
        if (!ierr && done) ierr = done(u, &c, values, data);
      }
  ts_free(&x);
  ts_free(&w);
  ts_free(&values);
  return ierr;
}

int ts_hdiv_load_vector(ts_dofs dofs, ts_point_fn f, void *ctx, double *b) {
  TS_CALL(check_space("ts_hdiv_load_vector", dofs, f, b));
  for (int64_t j = 0; j < dofs->count; ++j) b[j] = 0.0;
  TS_CALL(for_cells(dofs, f, ctx, add_load, NULL, b, "ts_hdiv_load_vector"));
  return 0;
}

/* The error integral of one cell: uh from the DoFs, then sum w |uh - u|^2.  field comes
 * first: add_value reads the visitor's data as a field_values. */
typedef struct error_sum {
  field_values field;
  long double sum;
} error_sum;

static int add_error(ts_dofs u, const cell_points *c, const double *exact, void *data) {
  error_sum *e = data;
  const int nc = components(u);
  for (int p = 0; p < c->n; ++p)
    for (int i = 0; i < nc; ++i) {
      const double diff = e->field.uh[p * nc + i] - exact[p * nc + i];
      e->sum += (long double)c->w[p] * diff * diff;
      e->field.uh[p * nc + i] = 0.0; /* ready for the next cell */
    }
  return 0;
}

int ts_hdiv_l2_error(ts_dofs dofs, const double *values, ts_point_fn u, void *ctx,
                     double *l2_error) {
  TS_CALL(check_space("ts_hdiv_l2_error", dofs, u, values));
  TS_CHECK_NOT_NULL(l2_error);
  const int nq = (dofs->degree + 3) * (dofs->degree + 3) * (dofs->dim == 3 ? dofs->degree + 3 : 1);
  error_sum e = {.field = {.U = values}, .sum = 0.0L};
  TS_CALL(ts_calloc((size_t)nq * components(dofs), sizeof *e.field.uh, "discrete field values",
                    &e.field.uh));
  const int ierr = for_cells(dofs, u, ctx, add_value, add_error, &e, "ts_hdiv_l2_error");
  ts_free(&e.field.uh);
  TS_CALL(ierr);
  *l2_error = sqrtl(e.sum);
  return 0;
}

/* ---------------------------------------------------------------- the box's faces */

#define FACE_M ((TS_MAX_DEGREE + 1) * HDIV_Q) /* 1D points of a face rule, at most */

/* The composite 1D rule on [0,1]: the Gauss rule of k+3 points on each of the k+1
 * sub-intervals of the Gauss-Lobatto cut (sub[j] the sub-interval of point j), and the
 * histopolation polynomials at its points. */
typedef struct face_rule {
  int m;
  double x[FACE_M], w[FACE_M], h[FACE_M][TS_MAX_POINTS];
  int sub[FACE_M];
} face_rule;

static int face_rule_create(ts_dofs u, face_rule *r) {
  const int k = u->degree, nq = k + 3;
  const double *gl = u->fe->normal_points;
  double x[HDIV_Q], w[HDIV_Q];
  TS_CALL(ts_gauss_rule(nq, x, w));
  r->m = (k + 1) * nq;
  for (int s = 0, j = 0; s <= k; ++s)
    for (int q = 0; q < nq; ++q, ++j) {
      r->x[j] = gl[s] + (gl[s + 1] - gl[s]) * x[q];
      r->w[j] = (gl[s + 1] - gl[s]) * w[q];
      r->sub[j] = s;
      ts_histopolation_eval(k + 2, gl, r->x[j], r->h[j]);
    }
  return 0;
}

/* One boundary face of a cell: its normal direction and side, its tangential directions,
 * the points (m^(dim-1), the first tangential direction fastest) and weights, and the
 * global index of its first flux DoF with the strides of the tangential directions. */
typedef struct face_cell {
  int normal, side, tangential[2], tangents, n;
  double *x, *w;
  int64_t first, stride[2];
} face_cell;

static void face_cell_fill(ts_dofs u, const face_rule *r, const int64_t *cell, face_cell *f) {
  const int64_t k1 = u->degree + 1, *n = u->comp_n[f->normal];
  int64_t g[3] = {0, 0, 0};
  for (int d = 0; d < u->dim; ++d) g[d] = d == f->normal ? (f->side ? n[d] - 1 : 0) : cell[d] * k1;
  f->first = u->comp_offset[f->normal] + g[0] + n[0] * (g[1] + n[1] * g[2]);
  const int64_t strides[3] = {1, n[0], n[0] * n[1]};
  const int m1 = f->tangents > 1 ? r->m : 1;
  f->n = 0;
  for (int j1 = 0; j1 < m1; ++j1)
    for (int j0 = 0; j0 < r->m; ++j0, ++f->n) {
      const int j[2] = {j0, j1};
      double *x = f->x + (int64_t)f->n * u->dim;
      f->w[f->n] = 1.0;
      for (int t = 0; t < f->tangents; ++t) {
        const int d = f->tangential[t];
        x[d] = u->lower[d] + u->h[d] * ((double)cell[d] + r->x[j[t]]);
        f->w[f->n] *= u->h[d] * r->w[j[t]];
      }
      x[f->normal] = u->lower[f->normal] + u->h[f->normal] * (double)(cell[f->normal] + f->side);
    }
  for (int t = 0; t < f->tangents; ++t) f->stride[t] = strides[f->tangential[t]];
}

/* Called per flux DoF of a boundary face: its tangential sub-interval indices a[], its index,
 * the function's values at the face's points. */
typedef void (*face_visit)(ts_dofs u, const face_rule *r, const face_cell *f, const int *a,
                           int64_t index, const double *values, void *data);

/* Every boundary cell face on `faces`: fn at its points (values_per_point each), then visit
 * for each of its (k+1)^(dim-1) flux DoFs. */
static int for_faces_cells(ts_dofs u, const face_rule *r, face_cell *f, ts_point_fn fn,
                           void *ctx, double *values, face_visit visit, void *data,
                           const char *what) {
  const int k1 = u->degree + 1;
  int64_t cell[3] = {0, 0, 0};
  cell[f->normal] = f->side ? u->cells[f->normal] - 1 : 0;
  const int t0 = f->tangential[0], t1 = f->tangential[1];
  for (int64_t c1 = 0; c1 < (f->tangents > 1 ? u->cells[t1] : 1); ++c1)
    for (int64_t c0 = 0; c0 < u->cells[t0]; ++c0) {
      cell[t0] = c0;
      if (f->tangents > 1) cell[t1] = c1;
      face_cell_fill(u, r, cell, f);
      if (fn(ctx, u->dim, f->n, f->x, values))
        return TS_ERROR(TS_ERR_ARG, "%s: the function failed on the %s face at cell (%lld, %lld, "
                        "%lld)", what, ts_face_names[2 * f->normal + f->side],
                        (long long)cell[0], (long long)cell[1], (long long)cell[2]);
      for (int a1 = 0; a1 < (f->tangents > 1 ? k1 : 1); ++a1)
        for (int a0 = 0; a0 < k1; ++a0) {
          const int a[2] = {a0, a1};
          const int64_t index =
              f->first + a0 * f->stride[0] + (f->tangents > 1 ? a1 * f->stride[1] : 0);
          visit(u, r, f, a, index, values, data);
        }
    }
  return 0;
}

static int for_faces(ts_dofs u, unsigned faces, ts_point_fn fn, void *ctx, int values_per_point,
                     face_visit visit, void *data, const char *what) {
  face_rule r;
  TS_CALL(face_rule_create(u, &r));
  const int n = u->dim == 3 ? r.m * r.m : r.m;
  face_cell f = {0};
  double *values = NULL;
  int ierr = ts_calloc((size_t)n * u->dim, sizeof *f.x, "face points", &f.x);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *f.w, "face weights", &f.w);
  if (!ierr)
    ierr = ts_calloc((size_t)n * values_per_point, sizeof *values, "function values", &values);
  for (int b = 0; !ierr && b < 2 * u->dim; ++b) {
    if (!(faces & (1u << b))) continue;
    f.normal = b / 2;
    f.side = b % 2;
    f.tangents = 0;
    for (int d = 0; d < u->dim; ++d)
      if (d != f.normal) f.tangential[f.tangents++] = d;
    ierr = for_faces_cells(u, &r, &f, fn, ctx, values, visit, data, what);
  }
  ts_free(&f.x);
  ts_free(&f.w);
  ts_free(&values);
  return ierr;
}

/* the flux DoF: the integral of u_normal over its sub-face (the points of its sub-intervals) */
static void set_flux(ts_dofs u, const face_rule *r, const face_cell *f, const int *a,
                     int64_t index, const double *values, void *data) {
  double *fluxes = data;
  long double s = 0.0L;
  for (int p = 0; p < f->n; ++p) {
    const int j0 = p % r->m, j1 = p / r->m;
    if (r->sub[j0] == a[0] && (f->tangents == 1 || r->sub[j1] == a[1]))
      s += (long double)f->w[p] * values[p * u->dim + f->normal];
  }
  fluxes[index] = (double)s;
}

/* b_index += (p, phi . n) over the face: phi . e_normal = prod_t h_{a_t} / h_t there */
static void add_pressure(ts_dofs u, const face_rule *r, const face_cell *f, const int *a,
                         int64_t index, const double *values, void *data) {
  double *b = data;
  long double s = 0.0L;
  for (int p = 0; p < f->n; ++p) {
    const int j[2] = {p % r->m, p / r->m};
    double phi = 1.0;
    for (int t = 0; t < f->tangents; ++t) phi *= r->h[j[t]][a[t]] / u->h[f->tangential[t]];
    s += (long double)f->w[p] * values[p] * phi;
  }
  b[index] += f->side ? (double)s : -(double)s;
}

static int check_faces(const char *fn, ts_dofs u, unsigned faces, ts_point_fn f, const double *a) {
  TS_CHECK_ARG(u && f && a, "%s: NULL argument ('velocity', the function or the array)", fn);
  TS_CHECK_ARG(u->fe->family == TS_FE_RT_IH, "%s: argument 'velocity' is not of RT_k in the "
               "interpolation-histopolation basis (ts_fe_create_rt_ih)", fn);
  TS_CALL(ts_dofs_require_mapped(u, 0, fn)); /* Cartesian cells only */
  return ts_check_faces(fn, "faces", u->dim, faces);
}

int ts_hdiv_boundary_fluxes(ts_dofs velocity, unsigned faces, ts_point_fn u, void *ctx,
                            double *values) {
  TS_CALL(check_faces("ts_hdiv_boundary_fluxes", velocity, faces, u, values));
  return for_faces(velocity, faces, u, ctx, velocity->dim, set_flux, values,
                   "ts_hdiv_boundary_fluxes");
}

int ts_hdiv_boundary_pressure(ts_dofs velocity, unsigned faces, ts_point_fn p, void *ctx,
                              double *b) {
  TS_CALL(check_faces("ts_hdiv_boundary_pressure", velocity, faces, p, b));
  return for_faces(velocity, faces, p, ctx, 1, add_pressure, b, "ts_hdiv_boundary_pressure");
}
