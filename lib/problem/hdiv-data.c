/* hdiv-data.c -- right sides and errors of the RT_k and DGQ_k fields of paper 003 in the
 * interpolation-histopolation bases, on the cells of a box or a mapped level: the load vector
 * b_j = (f, phi_j) and the L2 error of a discrete field against a function; on the boundary
 * faces the prescribed fluxes (the DoFs of the boundary sub-faces) and the pressure term
 * (p, phi_j . n) of the natural condition.
 *
 * The maps are the operators' (lib/op/hdiv-mass.c, l2-mass.c).  On the reference cell [0,1]^dim
 * the basis function of an RT_k DoF of component i (a flux through a sub-face) is
 *   phi^ = e_i l_a(xi_i) prod_{d != i} h_{b_d}(xi_d),
 * that of a DGQ_k DoF (an integral over a sub-cell) psi^ = prod_d h_{b_d}(xi_d), l the Lagrange
 * polynomials of the k+2 Gauss-Lobatto points and h their histopolation basis; on a cell with
 * Jacobian J (J = diag(h) on a box) the integral-preserving maps
 *   phi = J phi^ / det J  (contravariant Piola: the fluxes through the sub-faces are kept),
 *   psi = psi^ / det J    (the integrals over the sub-cells are kept)
 * give them.  With the Gauss rule of k+3 points per direction (weights w_q at xi_q, x_q their
 * images) (f, phi_j) = sum_q w_q (J_q^T f(x_q)) . phi^_j(xi_q) and (g, psi_j) = sum_q w_q g(x_q)
 * psi^_j(xi_q), and the L2 error sums w_q det J_q |u_h(x_q) - u(x_q)|^2 with u_h = J u^_h / det J
 * (RT_k) or u^_h / det J (DGQ_k).
 *
 * On the face xi_i = side of a cell, cut into sub-faces by the Gauss-Lobatto points, each
 * integrated by the Gauss rule of k+3 points per tangential direction, n dS = N ds with the area
 * vector N = adj(J)^T e_i = det J J^{-T} e_i, which points to growing xi_i (the orientation of
 * every flux DoF) and depends on the tangents of the face only: 2D N = s (dy/dt, -dx/dt), 3D N =
 * s t_0 x t_1 (t_0, t_1 the tangents along the tangential directions in increasing order; s = -1
 * for i = 1, else 1).  So a flux DoF is sum_q w_q N_q . u(x_q) over its sub-face, and the pressure
 * term is (p, phi_j . n) = +-sum_q w_q p(x_q) phi^_j,i(xi_q) (phi . n dS = +-phi^_i ds: the
 * geometry only in the points; + on the side 1 faces, where N points out).  The geometry of a
 * mapped level is its operators': the Q_g interpolant of the map (ts_mass_geometry_dofs).
 *
 * The functions are called once per cell or boundary cell face (from the calling thread) with
 * all its points; a failure or a value that is not finite names the cell and the point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "problem-impl.h"

#define HDIV_Q (TS_MAX_DEGREE + 4) /* Gauss points per direction, at most */
#define GEOMETRY_N1 (TS_MAX_DEGREE + 1) /* nodes per direction of the geometry, at most */
#define FACE_M ((TS_MAX_DEGREE + 1) * HDIV_Q) /* 1D points of a face rule, at most */

/* The geometry of a mapped level: the Q_g DoFs whose nodes are its cells' (NULL on a box). */
typedef struct hdiv_geometry {
  ts_fe fe;
  ts_dofs dofs;
} hdiv_geometry;

static int geometry_create(ts_dofs u, hdiv_geometry *g) {
  memset(g, 0, sizeof *g);
  if (!u->mesh || !u->mesh->map) return 0;
  return ts_mass_geometry_dofs(u, &g->fe, &g->dofs);
}

static void geometry_destroy(hdiv_geometry *g) {
  ts_dofs_destroy(&g->dofs);
  ts_fe_destroy(&g->fe);
}

/* The 1D tables of one degree: Gauss points and weights on [0,1], the values of the k+2
 * interpolation and k+1 histopolation polynomials there ([q][a]), and on a mapped level the
 * geometry's Lagrange polynomials and their derivatives ([q][j], g+1 per point). */
typedef struct hdiv_tables {
  int nq, k;
  double x[HDIV_Q], w[HDIV_Q];
  double l[HDIV_Q][TS_MAX_POINTS], h[HDIV_Q][TS_MAX_POINTS];
  double shape[HDIV_Q * GEOMETRY_N1], grad[HDIV_Q * GEOMETRY_N1];
} hdiv_tables;

static int tables_create(ts_dofs u, const hdiv_geometry *g, hdiv_tables *t) {
  const int k = u->degree;
  t->k = k;
  t->nq = k + 3;
  TS_CALL(ts_gauss_rule(t->nq, t->x, t->w));
  for (int q = 0; q < t->nq; ++q) {
    double dl[TS_MAX_POINTS];
    ts_lagrange_eval(k + 2, u->fe->normal_points, t->x[q], t->l[q], dl);
    ts_histopolation_eval(k + 2, u->fe->normal_points, t->x[q], t->h[q]);
  }
  if (g->dofs)
    ts_lagrange_tabulate(g->dofs->degree + 1, g->fe->points, t->nq, t->x, t->shape, t->grad);
  return 0;
}

/* fn at the n points x of the cell (per_point values each): 0, or TS_ERR_ARG from `what`
 * naming the callback, the cell and the point (ts_call_point_fn). */
static int call(ts_point_fn fn, void *ctx, ts_dofs u, const int64_t *cell, const char *callback,
                int64_t n, int per_point, const double *x, double *values, const char *what) {
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  const int64_t index = cell[0] + u->cells[0] * (cell[1] + u->cells[1] * cell[2]);
  if (ts_call_point_fn(fn, ctx, u, index, callback, n, per_point, x, values, &failure)) return 0;
  return ts_cell_failure_report(&failure, what);
}

/* ---------------------------------------------------------------- the cells */

/* One cell's quadrature: per point (q0 fastest) the physical point, the reference weight,
 * J and det J. */
typedef struct cell_points {
  int64_t cell[3];
  int n;
  double *x, *w, *J, *det;            /* n dim, n, n dim dim, n */
  int q[3][HDIV_Q * HDIV_Q * HDIV_Q]; /* the 1D index of point p in direction d */
} cell_points;

/* The points and Jacobians of the box's Cartesian cell: x = lower + h (cell + xi), J = diag(h). */
static void box_geometry(ts_dofs u, const hdiv_tables *t, cell_points *c) {
  const int dim = u->dim;
  for (int p = 0; p < c->n; ++p)
    for (int d = 0; d < dim; ++d) {
      c->x[p * dim + d] = u->lower[d] + u->h[d] * ((double)c->cell[d] + t->x[c->q[d][p]]);
      for (int e = 0; e < dim; ++e) c->J[(p * dim + d) * dim + e] = d == e ? u->h[d] : 0.0;
    }
}

/* The cell's points, weights and geometry; TS_ERR_ARG from `what` for an inverted or
 * degenerate cell. */
static int cell_points_fill(ts_dofs u, const hdiv_tables *t, const hdiv_geometry *g,
                            cell_points *c, const char *what) {
  const int dim = u->dim;
  int p = 0, idx[3] = {0, 0, 0};
  for (idx[2] = 0; idx[2] < (dim == 3 ? t->nq : 1); ++idx[2])
    for (idx[1] = 0; idx[1] < t->nq; ++idx[1])
      for (idx[0] = 0; idx[0] < t->nq; ++idx[0], ++p) {
        c->w[p] = 1.0;
        for (int d = 0; d < dim; ++d) {
          c->q[d][p] = idx[d];
          c->w[p] *= t->w[idx[d]];
        }
      }
  c->n = p;
  const int64_t index = c->cell[0] + u->cells[0] * (c->cell[1] + u->cells[1] * c->cell[2]);
  if (g->dofs) ts_cell_geometry(g->dofs, index, t->nq, t->shape, t->grad, c->x, c->J);
  else box_geometry(u, t, c);
  for (p = 0; p < c->n; ++p) {
    double inverse[9];
    c->det[p] = ts_jacobian_inverse(dim, c->J + p * dim * dim, inverse);
    if (!(c->det[p] > 0.0) || !isfinite(c->det[p])) {
      char name[96];
      ts_cell_name(u, index, name, sizeof name);
      return TS_ERROR(TS_ERR_ARG, "%s: %s is inverted or degenerate: det J = %g at its "
                      "quadrature point %d (the map must have a positive Jacobian determinant)",
                      what, name, c->det[p], p);
    }
  }
  return 0;
}

/* The components of the field: dim for RT_k, 1 for DGQ_k. */
static int components(ts_dofs u) { return u->fe->family == TS_FE_RT_IH ? u->dim : 1; }

/* The reference basis function of the DoF of component i with cell-local indices a[] at point
 * p of the cell: l along the component's direction for RT_k, h along the others (all for
 * DGQ_k); its component i of phi^ (the others vanish) */
static double basis(ts_dofs u, const hdiv_tables *t, const cell_points *c, int i, const int *a,
                    int p) {
  const int normal = u->fe->family == TS_FE_RT_IH ? i : -1;
  double v = 1.0;
  for (int d = 0; d < u->dim; ++d)
    v *= d == normal ? t->l[c->q[d][p]][a[d]] : t->h[c->q[d][p]][a[d]];
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

/* The values of f at the points pulled back to the reference cell, weighted: w_q J_q^T f(x_q)
 * for RT_k, w_q f(x_q) for DGQ_k (in place). */
static void pull_back(ts_dofs u, const cell_points *c, double *f) {
  const int dim = u->dim;
  for (int p = 0; p < c->n; ++p) {
    if (components(u) == 1) {
      f[p] *= c->w[p];
      continue;
    }
    const double *J = c->J + p * dim * dim;
    double v[3];
    for (int i = 0; i < dim; ++i) {
      v[i] = 0.0;
      for (int r = 0; r < dim; ++r) v[i] += J[r * dim + i] * f[p * dim + r];
    }
    for (int i = 0; i < dim; ++i) f[p * dim + i] = c->w[p] * v[i];
  }
}

/* b_index += sum_p F_i(x_p) phi^(x_p), F the pulled-back values */
static void add_load(ts_dofs u, const hdiv_tables *t, const cell_points *c, const double *F,
                     int i, const int *a, int64_t index, void *data) {
  double *b = data;
  long double s = 0.0L;
  for (int p = 0; p < c->n; ++p) s += (long double)F[p * components(u) + i] * basis(u, t, c, i, a, p);
  b[index] += (double)s;
}

/* uh[p dim + i] += U_index phi^_i(x_p): the reference field */
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
  return 0;
}

/* Visits every cell: its points, f there (components values per point), the transform of
 * those values (if any), then the visitor per DoF, and after the cell `done` (if any). */
typedef void (*cell_transform)(ts_dofs u, const cell_points *c, double *values);
typedef int (*cell_done)(ts_dofs u, const cell_points *c, const double *values, void *data);

typedef struct cell_loop {
  ts_point_fn f;
  void *ctx;
  const char *callback, *what;  /* the callback's name in errors; the caller */
  cell_transform transform;
  dof_visit visit;
  cell_done done;
  void *data;
} cell_loop;

/* The loop over the cells with the tables t, the geometry g and the point arrays of c. */
static int visit_cells(ts_dofs u, const hdiv_tables *t, const hdiv_geometry *g, cell_points *c,
                       double *values, const cell_loop *l) {
  int ierr = 0;
  for (c->cell[2] = 0; !ierr && c->cell[2] < u->cells[2]; ++c->cell[2])
    for (c->cell[1] = 0; !ierr && c->cell[1] < u->cells[1]; ++c->cell[1])
      for (c->cell[0] = 0; !ierr && c->cell[0] < u->cells[0]; ++c->cell[0]) {
        ierr = cell_points_fill(u, t, g, c, l->what);
        if (!ierr)
          ierr = call(l->f, l->ctx, u, c->cell, l->callback, c->n, components(u), c->x, values,
                      l->what);
        if (!ierr && l->transform) l->transform(u, c, values);
        if (!ierr && l->visit) for_cell_dofs(u, t, c, values, l->visit, l->data);
        if (!ierr && l->done) ierr = l->done(u, c, values, l->data);
      }
  return ierr;
}

static int for_cells(ts_dofs u, const cell_loop *l) {
  hdiv_geometry g;
  hdiv_tables t;
  cell_points *c = NULL;
  TS_CALL(geometry_create(u, &g));
  int ierr = tables_create(u, &g, &t);
  const int dim = u->dim, nq = dim == 3 ? t.nq * t.nq * t.nq : t.nq * t.nq;
  double *values = NULL;
  if (!ierr) ierr = ts_calloc(1, sizeof *c, "cell points", &c);
  if (!ierr) ierr = ts_calloc((size_t)nq * dim, sizeof *c->x, "cell points", &c->x);
  if (!ierr) ierr = ts_calloc((size_t)nq, sizeof *c->w, "cell weights", &c->w);
  if (!ierr) ierr = ts_calloc((size_t)nq * dim * dim, sizeof *c->J, "cell Jacobians", &c->J);
  if (!ierr) ierr = ts_calloc((size_t)nq, sizeof *c->det, "cell determinants", &c->det);
  if (!ierr)
    ierr = ts_calloc((size_t)nq * components(u), sizeof *values, "function values", &values);
  if (!ierr) ierr = visit_cells(u, &t, &g, c, values, l);
  if (c) {
    ts_free(&c->x);
    ts_free(&c->w);
    ts_free(&c->J);
    ts_free(&c->det);
  }
  ts_free(&c);
  ts_free(&values);
  geometry_destroy(&g);
  return ierr;
}

int ts_hdiv_load_vector(ts_dofs dofs, ts_point_fn f, void *ctx, double *b) {
  TS_CALL(check_space("ts_hdiv_load_vector", dofs, f, b));
  for (int64_t j = 0; j < dofs->count; ++j) b[j] = 0.0;
  const cell_loop l = {.f = f, .ctx = ctx, .callback = "f", .what = "ts_hdiv_load_vector",
                       .transform = pull_back, .visit = add_load, .data = b};
  return for_cells(dofs, &l);
}

/* The error integral of one cell: u_h = J u^_h / det J (RT_k) or u^_h / det J (DGQ_k) from the
 * reference field, then sum w det J |u_h - u|^2.  field comes first: add_value reads the
 * visitor's data as a field_values. */
typedef struct error_sum {
  field_values field;
  long double sum;
} error_sum;

static int add_error(ts_dofs u, const cell_points *c, const double *exact, void *data) {
  error_sum *e = data;
  const int nc = components(u), dim = u->dim;
  for (int p = 0; p < c->n; ++p) {
    double *uh = e->field.uh + p * nc;
    const double *J = c->J + p * dim * dim;
    for (int i = 0; i < nc; ++i) {
      double v = nc == 1 ? uh[0] : 0.0;
      for (int r = 0; r < dim && nc > 1; ++r) v += J[i * dim + r] * uh[r];
      const double diff = v / c->det[p] - exact[p * nc + i];
      e->sum += (long double)c->w[p] * c->det[p] * diff * diff;
    }
    for (int i = 0; i < nc; ++i) uh[i] = 0.0; /* ready for the next cell */
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
  const cell_loop l = {.f = u, .ctx = ctx, .callback = "u", .what = "ts_hdiv_l2_error",
                       .visit = add_value, .done = add_error, .data = &e};
  const int ierr = for_cells(dofs, &l);
  ts_free(&e.field.uh);
  TS_CALL(ierr);
  *l2_error = sqrtl(e.sum);
  return 0;
}

/* ---------------------------------------------------------------- the boundary faces */

/* The composite 1D rule on [0,1]: the Gauss rule of k+3 points on each of the k+1
 * sub-intervals of the Gauss-Lobatto cut (sub[j] the sub-interval of point j), the
 * histopolation polynomials at its points, and on a mapped level the geometry's Lagrange
 * polynomials and their derivatives there ([j][node]). */
typedef struct face_rule {
  int m;
  double x[FACE_M], w[FACE_M], h[FACE_M][TS_MAX_POINTS];
  double shape[FACE_M * GEOMETRY_N1], grad[FACE_M * GEOMETRY_N1];
  int sub[FACE_M];
} face_rule;

static int face_rule_create(ts_dofs u, const hdiv_geometry *g, face_rule *r) {
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
  if (g->dofs)
    ts_lagrange_tabulate(g->dofs->degree + 1, g->fe->points, r->m, r->x, r->shape, r->grad);
  return 0;
}

/* One boundary face of a cell: its normal direction and side, its tangential directions,
 * the points (m^(dim-1), the first tangential direction fastest), their reference weights
 * and area vectors N (dim each), and the global index of its first flux DoF with the strides
 * of the tangential directions. */
typedef struct face_cell {
  int normal, side, tangential[2], tangents, n;
  int64_t cell;                 /* the cell's linear index */
  double *x, *w, *N, *T;        /* T: the tangents of a mapped face (ts_face_geometry) */
  int64_t first, stride[2];
} face_cell;

/* The box's face: x = lower + h (cell + xi), N = e_normal prod_t h_t. */
static void box_face(ts_dofs u, const face_rule *r, const int64_t *cell, face_cell *f) {
  double area = 1.0;
  for (int t = 0; t < f->tangents; ++t) area *= u->h[f->tangential[t]];
  for (int p = 0; p < f->n; ++p) {
    const int j[2] = {p % r->m, p / r->m};
    double *x = f->x + (int64_t)p * u->dim;
    for (int t = 0; t < f->tangents; ++t) {
      const int d = f->tangential[t];
      x[d] = u->lower[d] + u->h[d] * ((double)cell[d] + r->x[j[t]]);
    }
    x[f->normal] = u->lower[f->normal] + u->h[f->normal] * (double)(cell[f->normal] + f->side);
    for (int d = 0; d < u->dim; ++d) f->N[p * u->dim + d] = d == f->normal ? area : 0.0;
  }
}

/* The mapped face: x and the tangents from the geometry, N = s (t_y, -t_x) in 2D and
 * s t_0 x t_1 in 3D (s = -1 for the normal direction 1: N = adj(J)^T e_normal). */
static void mapped_face(ts_dofs u, const face_rule *r, const hdiv_geometry *g, face_cell *f) {
  const int dim = u->dim;
  const double s = f->normal == 1 ? -1.0 : 1.0;
  ts_face_geometry(g->dofs, f->cell, f->normal, f->side, r->m, r->shape, r->grad, f->x, f->T);
  for (int p = 0; p < f->n; ++p) {
    const double *t0 = f->T + p * (dim - 1) * dim, *t1 = t0 + dim;
    double *N = f->N + p * dim;
    if (dim == 2) {
      N[0] = s * t0[1];
      N[1] = -s * t0[0];
      continue;
    }
    N[0] = s * (t0[1] * t1[2] - t0[2] * t1[1]);
    N[1] = s * (t0[2] * t1[0] - t0[0] * t1[2]);
    N[2] = s * (t0[0] * t1[1] - t0[1] * t1[0]);
  }
}

static void face_cell_fill(ts_dofs u, const face_rule *r, const hdiv_geometry *g,
                           const int64_t *cell, face_cell *f) {
  const int64_t k1 = u->degree + 1, *n = u->comp_n[f->normal];
  int64_t a[3] = {0, 0, 0};
  for (int d = 0; d < u->dim; ++d) a[d] = d == f->normal ? (f->side ? n[d] - 1 : 0) : cell[d] * k1;
  f->first = u->comp_offset[f->normal] + a[0] + n[0] * (a[1] + n[1] * a[2]);
  f->cell = cell[0] + u->cells[0] * (cell[1] + u->cells[1] * cell[2]);
  const int64_t strides[3] = {1, n[0], n[0] * n[1]};
  for (int t = 0; t < f->tangents; ++t) f->stride[t] = strides[f->tangential[t]];
  f->n = f->tangents > 1 ? r->m * r->m : r->m;
  for (int p = 0; p < f->n; ++p)
    f->w[p] = r->w[p % r->m] * (f->tangents > 1 ? r->w[p / r->m] : 1.0);
  if (g->dofs) mapped_face(u, r, g, f);
  else box_face(u, r, cell, f);
}

/* Called per flux DoF of a boundary face: its tangential sub-interval indices a[], its index,
 * the function's values at the face's points. */
typedef void (*face_visit)(ts_dofs u, const face_rule *r, const face_cell *f, const int *a,
                           int64_t index, const double *values, void *data);

/* What a loop over the boundary faces does: fn at the points of each cell face
 * (values_per_point each), then visit for each of its (k+1)^(dim-1) flux DoFs. */
typedef struct face_loop {
  unsigned faces;
  ts_point_fn fn;
  void *ctx;
  int values_per_point;
  const char *callback, *what;
  face_visit visit;
  void *data;
} face_loop;

/* Every boundary cell face of the face f->normal, f->side. */
static int for_faces_cells(ts_dofs u, const face_rule *r, const hdiv_geometry *g, face_cell *f,
                           double *values, const face_loop *l) {
  const int k1 = u->degree + 1;
  char callback[64];
  snprintf(callback, sizeof callback, "%s (%s face)", l->callback,
           ts_face_names[2 * f->normal + f->side]);
  int64_t cell[3] = {0, 0, 0};
  cell[f->normal] = f->side ? u->cells[f->normal] - 1 : 0;
  const int t0 = f->tangential[0], t1 = f->tangential[1];
  for (int64_t c1 = 0; c1 < (f->tangents > 1 ? u->cells[t1] : 1); ++c1)
    for (int64_t c0 = 0; c0 < u->cells[t0]; ++c0) {
      cell[t0] = c0;
      if (f->tangents > 1) cell[t1] = c1;
      face_cell_fill(u, r, g, cell, f);
      TS_CALL(call(l->fn, l->ctx, u, cell, callback, f->n, l->values_per_point, f->x, values,
                   l->what));
      for (int a1 = 0; a1 < (f->tangents > 1 ? k1 : 1); ++a1)
        for (int a0 = 0; a0 < k1; ++a0) {
          const int a[2] = {a0, a1};
          const int64_t index =
              f->first + a0 * f->stride[0] + (f->tangents > 1 ? a1 * f->stride[1] : 0);
          l->visit(u, r, f, a, index, values, l->data);
        }
    }
  return 0;
}

/* The loop over the faces l->faces with the rule, geometry and point arrays given. */
static int visit_faces(ts_dofs u, const face_rule *r, const hdiv_geometry *g, face_cell *f,
                       double *values, const face_loop *l) {
  for (int b = 0; b < 2 * u->dim; ++b) {
    if (!(l->faces & (1u << b))) continue;
    f->normal = b / 2;
    f->side = b % 2;
    f->tangents = 0;
    for (int d = 0; d < u->dim; ++d)
      if (d != f->normal) f->tangential[f->tangents++] = d;
    TS_CALL(for_faces_cells(u, r, g, f, values, l));
  }
  return 0;
}

static int for_faces(ts_dofs u, const face_loop *l) {
  hdiv_geometry g;
  face_rule *r = NULL;
  face_cell f = {0};
  double *values = NULL;
  TS_CALL(geometry_create(u, &g));
  int ierr = ts_calloc(1, sizeof *r, "face rule", &r);
  if (!ierr) ierr = face_rule_create(u, &g, r);
  const int dim = u->dim, n = ierr ? 0 : dim == 3 ? r->m * r->m : r->m;
  if (!ierr) ierr = ts_calloc((size_t)n * dim, sizeof *f.x, "face points", &f.x);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *f.w, "face weights", &f.w);
  if (!ierr) ierr = ts_calloc((size_t)n * dim, sizeof *f.N, "face area vectors", &f.N);
  if (!ierr) ierr = ts_calloc((size_t)n * (dim - 1) * dim, sizeof *f.T, "face tangents", &f.T);
  if (!ierr)
    ierr = ts_calloc((size_t)n * l->values_per_point, sizeof *values, "function values", &values);
  if (!ierr) ierr = visit_faces(u, r, &g, &f, values, l);
  ts_free(&f.x);
  ts_free(&f.w);
  ts_free(&f.N);
  ts_free(&f.T);
  ts_free(&values);
  ts_free(&r);
  geometry_destroy(&g);
  return ierr;
}

/* the flux DoF: sum w N . u over the points of its sub-face (of its sub-intervals) */
static void set_flux(ts_dofs u, const face_rule *r, const face_cell *f, const int *a,
                     int64_t index, const double *values, void *data) {
  double *fluxes = data;
  long double s = 0.0L;
  for (int p = 0; p < f->n; ++p) {
    const int j0 = p % r->m, j1 = p / r->m;
    if (r->sub[j0] != a[0] || (f->tangents > 1 && r->sub[j1] != a[1])) continue;
    double flux = 0.0;
    for (int d = 0; d < u->dim; ++d) flux += f->N[p * u->dim + d] * values[p * u->dim + d];
    s += (long double)f->w[p] * flux;
  }
  fluxes[index] = (double)s;
}

/* b_index += (p, phi . n) over the face: phi . n dS = +-prod_t h_{a_t} ds there */
static void add_pressure(ts_dofs u, const face_rule *r, const face_cell *f, const int *a,
                         int64_t index, const double *values, void *data) {
  (void)u;
  double *b = data;
  long double s = 0.0L;
  for (int p = 0; p < f->n; ++p) {
    const int j[2] = {p % r->m, p / r->m};
    double phi = 1.0;
    for (int t = 0; t < f->tangents; ++t) phi *= r->h[j[t]][a[t]];
    s += (long double)f->w[p] * values[p] * phi;
  }
  b[index] += f->side ? (double)s : -(double)s;
}

static int check_faces(const char *fn, ts_dofs u, unsigned faces, ts_point_fn f, const double *a) {
  TS_CHECK_ARG(u && f && a, "%s: NULL argument ('velocity', the function or the array)", fn);
  TS_CHECK_ARG(u->fe->family == TS_FE_RT_IH, "%s: argument 'velocity' is not of RT_k in the "
               "interpolation-histopolation basis (ts_fe_create_rt_ih)", fn);
  return ts_check_faces(fn, "faces", u->dim, faces);
}

int ts_hdiv_boundary_fluxes(ts_dofs velocity, unsigned faces, ts_point_fn u, void *ctx,
                            double *values) {
  TS_CALL(check_faces("ts_hdiv_boundary_fluxes", velocity, faces, u, values));
  const face_loop l = {faces, u, ctx, velocity->dim, "u", "ts_hdiv_boundary_fluxes", set_flux,
                       values};
  return for_faces(velocity, &l);
}

int ts_hdiv_boundary_pressure(ts_dofs velocity, unsigned faces, ts_point_fn p, void *ctx,
                              double *b) {
  TS_CALL(check_faces("ts_hdiv_boundary_pressure", velocity, faces, p, b));
  const face_loop l = {faces, p, ctx, 1, "p", "ts_hdiv_boundary_pressure", add_pressure, b};
  return for_faces(velocity, &l);
}
