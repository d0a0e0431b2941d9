/* hdiv-data.c -- right sides and errors of the RT_k fields of paper 003 in the
 * interpolation-histopolation basis, on the box mesh's Cartesian cells: the load vector
 * b_j = (f, phi_j) and the L2 error of a discrete field against a vector function.
 *
 * On a cell with sizes h_d the basis function of a DoF of component i (a flux) is
 *   phi_i = l_a(xi_i) prod_{d != i} h_{b_d}(xi_d) / prod_{d != i} h_d
 * (hdiv-schur.c), l the Lagrange polynomials of the k+2 Gauss-Lobatto points and h their
 * histopolation basis.  Both integrals use the Gauss rule of k+3 points per direction, f
 * and u called once per cell (from the calling thread) with the cell's points. */
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

/* phi of the DoF of component i with cell-local indices a[] at point p of the cell */
static double basis(ts_dofs u, const hdiv_tables *t, const cell_points *c, int i,
                    const int *a, int p) {
  double v = 1.0;
  for (int d = 0; d < u->dim; ++d)
    v *= d == i ? t->l[c->q[d][p]][a[d]] : t->h[c->q[d][p]][a[d]] / u->h[d];
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
 * cell, values: the function's dim values per point. */
typedef void (*dof_visit)(ts_dofs u, const hdiv_tables *t, const cell_points *c,
                          const double *values, int i, const int *a, int64_t index, void *data);

static void for_cell_dofs(ts_dofs u, const hdiv_tables *t, const cell_points *c,
                          const double *values, dof_visit visit, void *data) {
  const int k = u->degree;
  for (int i = 0; i < u->dim; ++i) {
    int a[3] = {0, 0, 0}, n[3] = {1, 1, 1};
    for (int d = 0; d < u->dim; ++d) n[d] = d == i ? k + 2 : k + 1;
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
  for (int p = 0; p < c->n; ++p) s += (long double)c->w[p] * f[p * u->dim + i] * basis(u, t, c, i, a, p);
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
  for (int p = 0; p < c->n; ++p) v->uh[p * u->dim + i] += v->U[index] * basis(u, t, c, i, a, p);
}

static int check_velocity(const char *fn, ts_dofs u, ts_point_fn f, const double *array) {
  TS_CHECK_ARG(u && f && array, "%s: NULL argument ('velocity', the function or the array)", fn);
  TS_CHECK_ARG(u->fe->family == TS_FE_RT_IH,
               "%s: argument 'velocity' is not of RT_k in the interpolation-histopolation basis "
               "(ts_fe_create_rt_ih)", fn);
  return 0;
}

/* Visits every cell: its points, f there (dim values per point), then the visitor per DoF,
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
  if (!ierr) ierr = ts_calloc((size_t)nq * u->dim, sizeof *values, "function values", &values);
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

int ts_hdiv_load_vector(ts_dofs velocity, ts_point_fn f, void *ctx, double *b) {
  TS_CALL(check_velocity("ts_hdiv_load_vector", velocity, f, b));
  for (int64_t j = 0; j < velocity->count; ++j) b[j] = 0.0;
  TS_CALL(for_cells(velocity, f, ctx, add_load, NULL, b, "ts_hdiv_load_vector"));
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
  for (int p = 0; p < c->n; ++p)
    for (int i = 0; i < u->dim; ++i) {
      const double diff = e->field.uh[p * u->dim + i] - exact[p * u->dim + i];
      e->sum += (long double)c->w[p] * diff * diff;
      e->field.uh[p * u->dim + i] = 0.0; /* ready for the next cell */
    }
  return 0;
}

int ts_hdiv_l2_error(ts_dofs velocity, const double *values, ts_point_fn u, void *ctx,
                     double *l2_error) {
  TS_CALL(check_velocity("ts_hdiv_l2_error", velocity, u, values));
  TS_CHECK_NOT_NULL(l2_error);
  const int nq = (velocity->degree + 3) * (velocity->degree + 3) * (velocity->dim == 3 ? velocity->degree + 3 : 1);
  error_sum e = {.field = {.U = values}, .sum = 0.0L};
  TS_CALL(ts_calloc((size_t)nq * velocity->dim, sizeof *e.field.uh, "discrete field values",
                    &e.field.uh));
  const int ierr = for_cells(velocity, u, ctx, add_value, add_error, &e, "ts_hdiv_l2_error");
  ts_free(&e.field.uh);
  TS_CALL(ierr);
  *l2_error = sqrtl(e.sum);
  return 0;
}
