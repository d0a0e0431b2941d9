/* rhs-mapped.c -- your own problem on mapped cells: the right side (f, phi_i) with the
 * Dirichlet lifting of g, and the L2 and H1-seminorm errors against an exact solution, all
 * from user callbacks (ts_point_fn, one call per cell or batch of boundary points) on the
 * cells' geometry (lib/mesh/geometry.c), by the Gauss rule of k+2 points per direction:
 *   (f, phi_i)_K = sum_q w_q det(J_q) f(x(xi_q)) phi_i(xi_q),
 *   |u - u_h|_{1,K}^2 = sum_q w_q det(J_q) |grad u(x_q) - J_q^{-T} grad_xi u_h(xi_q)|^2.
 * The error integrals are compensated sums over cells (ts_cell_sums), so that errors down to
 * 1e-15 are measurable. */
#include <math.h>
#include <stdlib.h>
#include "../tessera-impl.h"

#define MAX_N1 (TS_MAX_DEGREE + 1)
#define MAX_Q (TS_MAX_DEGREE + 2)
#define MAX_Q3 (MAX_Q * MAX_Q * MAX_Q)
#define BOUNDARY_BATCH 1024 /* DoFs per call of the Dirichlet data */

/* The Gauss rule of k+2 points and the Q_k basis at it. */
typedef struct rule {
  int n1, nq, np;
  double weights[MAX_Q];
  double shape[MAX_Q * MAX_N1], grad[MAX_Q * MAX_N1];
} rule;

static int rule_init(ts_dofs dofs, rule *r) {
  double points[MAX_Q];
  r->n1 = dofs->degree + 1;
  r->nq = dofs->degree + 2;
  r->np = dofs->dim == 3 ? r->nq * r->nq * r->nq : r->nq * r->nq;
  TS_CALL(ts_gauss_rule(r->nq, points, r->weights));
  ts_lagrange_tabulate(r->n1, dofs->fe->points, r->nq, points, r->shape, r->grad);
  return 0;
}

/* w_q det(J_q) at every point of a cell, and the points x (n_points x dim); J^{-1} into inv
 * (9 per point) if inv is not NULL. */
static void cell_measure(ts_dofs dofs, const rule *r, int64_t cell, double *x, double *wdet, double *inv) {
  double J[MAX_Q3 * 9], scratch[9];
  const int dim = dofs->dim;
  ts_cell_geometry(dofs, cell, r->nq, r->shape, r->grad, x, J);
  for (int q = 0; q < r->np; ++q) {
    double w = 1.0;
    for (int d = 0, m = q; d < dim; ++d, m /= r->nq) w *= r->weights[m % r->nq];
    wdet[q] = w * ts_jacobian_inverse(dim, J + q * dim * dim, inv ? inv + q * 9 : scratch);
  }
}

/* ---------------------------------------------------------------- right side */

typedef struct load_ctx {
  ts_dofs dofs;
  const rule *r;
  ts_point_fn f;
  void *user;
  double *b;
  ts_cell_failure failure;
} load_ctx;

/* b_cell = (S^T (x) .. (x) S^T) (w det J f) for one cell, added into b. */
static void load_cell(void *ctx, int64_t cell) {
  load_ctx *l = ctx;
  ts_dofs dofs = l->dofs;
  const rule *r = l->r;
  double x[MAX_Q3 * 3], wdet[MAX_Q3], t0[MAX_Q3], t1[MAX_Q3];
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  cell_measure(dofs, r, cell, x, wdet, NULL);
  if (!ts_call_point_fn(l->f, l->user, dofs, cell, "right side", r->np, 1, x, t0, &l->failure)) return;
  for (int q = 0; q < r->np; ++q) t0[q] *= wdet[q];
  int shape[3] = {r->nq, r->nq, r->nq};
  double *in = t0, *out = t1;
  for (int d = 0; d < dofs->dim; ++d) {
    ts_tensor_contract(dofs->dim, shape, d, r->shape, r->n1, 1, in, out);
    shape[d] = r->n1;
    double *t = in;
    in = out;
    out = t;
  }
  ts_cell_from_index(dofs, cell, c);
  ts_cell_dof_indices(dofs, c, idx);
  const int nd = dofs->dim == 3 ? r->n1 * r->n1 * r->n1 : r->n1 * r->n1;
  for (int i = 0; i < nd; ++i) l->b[idx[i]] += in[i];
}

/* xh = g at the boundary DoFs (zero inside), g called per batch of BOUNDARY_BATCH DoFs with
 * the batch's boundary points; *nonzero: whether any value is not zero. */
static int boundary_values(ts_dofs dofs, ts_point_fn g, void *user, double *xh, int *nonzero) {
  const int dim = dofs->dim;
  const int64_t batches = (dofs->count + BOUNDARY_BATCH - 1) / BOUNDARY_BATCH;
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  int any = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : any)
  for (int64_t batch = 0; batch < batches; ++batch) {
    double x[BOUNDARY_BATCH * 3], values[BOUNDARY_BATCH];
    int64_t index[BOUNDARY_BATCH], n = 0;
    const int64_t end = (batch + 1) * BOUNDARY_BATCH < dofs->count ? (batch + 1) * BOUNDARY_BATCH : dofs->count;
    for (int64_t i = batch * BOUNDARY_BATCH; i < end; ++i) {
      xh[i] = 0.0;
      if (ts_dofs_is_dirichlet(dofs, i)) {
        ts_dofs_point(dofs, i, x + n * dim);
        index[n++] = i;
      }
    }
    if (n == 0) continue;
    const int rc = g(user, dim, n, x, values);
    for (int64_t j = 0; j < n && !rc; ++j) {
      if (!isfinite(values[j])) {
        ts_cell_failure_set(&failure, batch, TS_ERR_ARG, "the Dirichlet data callback gave %g (not "
                            "finite) at DoF %lld", values[j], (long long)index[j]);
        break;
      }
      xh[index[j]] = values[j];
      any |= values[j] != 0.0;
    }
    if (rc)
      ts_cell_failure_set(&failure, batch, TS_ERR_ARG, "the Dirichlet data callback returned %d for "
                          "the boundary DoFs %lld..%lld", rc, (long long)index[0], (long long)index[n - 1]);
  }
  *nonzero = any;
  return ts_cell_failure_report(&failure, "ts_assemble_rhs_mapped");
}

int ts_assemble_load_mapped(ts_dofs dofs, ts_point_fn f, void *ctx, double *b) {
  rule r;
  TS_CALL(rule_init(dofs, &r));
  load_ctx l = {dofs, &r, f, ctx, b, {0}};
  ts_cell_failure_init(&l.failure);
  ts_cell_layers_for(dofs, load_cell, &l);
  return ts_cell_failure_report(&l.failure, "ts_assemble_rhs_mapped");
}

static int assemble(ts_operator A, ts_dofs dofs, ts_point_fn f, ts_point_fn g, void *user,
                    ts_vec x0, double *bh, double *xh) {
  if (f) TS_CALL(ts_assemble_load_mapped(dofs, f, user, bh));
  int nonzero = 0;
  if (g) TS_CALL(boundary_values(dofs, g, user, xh, &nonzero));
  return ts_lift_dirichlet(A, dofs, x0, bh, xh, nonzero);
}

int ts_assemble_rhs_mapped(ts_operator A, ts_point_fn f, ts_point_fn g, void *ctx, ts_vec b,
                           ts_vec x0) {
  ts_dofs dofs;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(b);
  TS_CHECK_NOT_NULL(x0);
  TS_CALL(ts_operator_mapped_dofs(A, "ts_assemble_rhs_mapped", &dofs));
  TS_CHECK_ARG(b->n == dofs->count && x0->n == dofs->count && b->backend == A->backend &&
               x0->backend == A->backend,
               "ts_assemble_rhs_mapped: b (%lld entries) and x0 (%lld) must have the operator's "
               "%lld entries, on its backend", (long long)b->n, (long long)x0->n, (long long)dofs->count);
  double *bh = NULL, *xh = NULL;
  TS_CALL(ts_calloc((size_t)dofs->count, sizeof *bh, "right-hand side", &bh));
  int ierr = ts_calloc((size_t)dofs->count, sizeof *xh, "boundary values", &xh);
  if (!ierr) ierr = assemble(A, dofs, f, g, ctx, x0, bh, xh);
  if (!ierr) ierr = ts_vec_set_from_host(b, bh);
  free(bh);
  free(xh);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "right-hand side on mapped cells") : 0;
}

/* ---------------------------------------------------------------- errors */

typedef struct errors_ctx {
  ts_dofs dofs;
  const rule *r;
  const double *values;
  ts_point_fn u, grad_u;
  void *user;
  ts_cell_failure *failure;
} errors_ctx;

/* Squared L2 and H1-seminorm errors on one cell: out[0], out[1].  As in rhs-errors.c, the
 * cell's first value is subtracted before the contractions (the basis sums to exactly 1),
 * so that the rounding is relative to the variation of u over the cell. */
static void cell_errors(const void *ctx, int64_t cell, double *out) {
  const errors_ctx *e = ctx;
  ts_dofs dofs = e->dofs;
  const rule *r = e->r;
  const int dim = dofs->dim, nd = dim == 3 ? r->n1 * r->n1 * r->n1 : r->n1 * r->n1;
  double local[TS_MAX_CELL_DOFS], val[MAX_Q3], ref[3][MAX_Q3], x[MAX_Q3 * 3], wdet[MAX_Q3],
      inv[MAX_Q3 * 9], u[MAX_Q3], gu[MAX_Q3 * 3];
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  out[0] = out[1] = 0.0;
  ts_cell_from_index(dofs, cell, c);
  ts_cell_dof_indices(dofs, c, idx);
  const double shift = e->values[idx[0]];
  for (int i = 0; i < nd; ++i) local[i] = e->values[idx[i]] - shift;
  for (int g = -1; g < dim; ++g) { /* g = -1: values; else the derivative in direction g */
    const double *tables[3] = {g == 0 ? r->grad : r->shape, g == 1 ? r->grad : r->shape,
                               g == 2 ? r->grad : r->shape};
    ts_tensor_to_points(dim, r->n1, r->nq, tables, local, g < 0 ? val : ref[g]);
  }
  cell_measure(dofs, r, cell, x, wdet, inv);
  if (!ts_call_point_fn(e->u, e->user, dofs, cell, "exact solution", r->np, 1, x, u, e->failure) ||
      !ts_call_point_fn(e->grad_u, e->user, dofs, cell, "exact gradient", r->np, dim, x, gu, e->failure))
    return;
  ts_sum l2 = {0.0, 0.0}, h1 = {0.0, 0.0};
  for (int q = 0; q < r->np; ++q) {
    /* u - shift is exact where u and shift are within a factor 2 of each other (Sterbenz) */
    const double err = val[q] - (u[q] - shift);
    ts_sum_add(&l2, wdet[q] * err * err);
    for (int i = 0; i < dim; ++i) { /* grad_x u_h = J^{-T} grad_xi u_h */
      double gh = 0.0;
      for (int d = 0; d < dim; ++d) gh += inv[q * 9 + d * dim + i] * ref[d][q];
      const double eg = gh - gu[q * dim + i];
      ts_sum_add(&h1, wdet[q] * eg * eg);
    }
  }
  out[0] = ts_sum_value(&l2);
  out[1] = ts_sum_value(&h1);
}

/* sums[0..count-1] of fn over the cells (compensated), with the errors' context; `what` names
 * the caller in errors. */
static int cell_integrals(ts_dofs dofs, const double *values, ts_point_fn u, ts_point_fn grad_u,
                          void *ctx, ts_cell_values_fn fn, int count, const char *what, double *sums) {
  TS_CALL(ts_dofs_require_q(dofs, what));
  TS_CALL(ts_dofs_require_mapped(dofs, 1, what));
  rule r;
  TS_CALL(rule_init(dofs, &r));
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  const errors_ctx e = {dofs, &r, values, u, grad_u, ctx, &failure};
  TS_CALL(ts_cell_sums(ts_cell_count(dofs), count, fn, &e, sums));
  return ts_cell_failure_report(&failure, what);
}

int ts_compute_error_sums_mapped(ts_dofs dofs, const double *values, ts_point_fn u,
                                 ts_point_fn grad_u, void *ctx, double *sums) {
  return cell_integrals(dofs, values, u, grad_u, ctx, cell_errors, 2, "ts_compute_errors_mapped",
                        sums);
}

int ts_compute_errors_mapped(ts_dofs dofs, const double *values, ts_point_fn u, ts_point_fn grad_u,
                             void *ctx, double *l2_error, double *h1_error) {
  TS_CHECK_NOT_NULL(dofs);
  TS_CHECK_NOT_NULL(values);
  TS_CHECK_NOT_NULL(u);
  TS_CHECK_NOT_NULL(grad_u);
  TS_CHECK_NOT_NULL(l2_error);
  TS_CHECK_NOT_NULL(h1_error);
  double sums[2];
  TS_CALL(ts_compute_error_sums_mapped(dofs, values, u, grad_u, ctx, sums));
  *l2_error = sqrt(sums[0]);
  *h1_error = sqrt(sums[1]);
  return 0;
}

/* ---------------------------------------------------------------- Neumann faces */

/* On the face xi_d = side of a cell, parametrized by the other directions t[0] (< t[1]),
 * (h, phi_j)_F = sum_q w_q |ds_q| h(x_q) phi_j(xi_q) with ds = dx/dxi_t0 (2D) or
 * dx/dxi_t0 x dx/dxi_t1 (3D): tangential derivatives of the geometry x = sum_j X_j phi_j,
 * which depend on the face's nodes X_j only (the other basis functions vanish on F). */
typedef struct neumann_ctx {
  ts_dofs dofs;
  const rule *r;
  ts_point_fn h;
  void *user;
  int d, side, t[2];
  int64_t face_cells[2];        /* cells along t[0], t[1] (1 in 2D) */
  double *local;                /* per face cell, the face's n1^(dim-1) values */
  int64_t *index;               /* and their DoFs */
  ts_cell_failure failure;
} neumann_ctx;

/* The cell index of face cell f of the face. */
static int64_t face_cell(const neumann_ctx *nc, int64_t f) {
  int64_t c[3] = {0, 0, 0};
  const int64_t *cells = nc->dofs->cells;
  c[nc->d] = nc->side ? cells[nc->d] - 1 : 0;
  c[nc->t[0]] = f % nc->face_cells[0];
  if (nc->dofs->dim == 3) c[nc->t[1]] = f / nc->face_cells[0];
  return c[0] + cells[0] * (c[1] + cells[1] * c[2]);
}

static void face_load(neumann_ctx *nc, int64_t f) {
  ts_dofs dofs = nc->dofs;
  const rule *r = nc->r;
  const int dim = dofs->dim, n1 = r->n1, nq = r->nq, d = nc->d;
  const int nf = dim == 3 ? n1 * n1 : n1, npf = dim == 3 ? nq * nq : nq;
  const int64_t cell = face_cell(nc, f);
  int64_t c[3], idx[TS_MAX_CELL_DOFS], *index = nc->index + f * nf;
  double x[MAX_Q * MAX_Q * 3], T[MAX_Q * MAX_Q * 6], wds[MAX_Q * MAX_Q], h[MAX_Q * MAX_Q];
  double *out = nc->local + f * nf;
  ts_cell_from_index(dofs, cell, c);
  ts_cell_dof_indices(dofs, c, idx);
  for (int j = 0; j < nf; ++j) {
    int a[3] = {0, 0, 0};
    a[d] = nc->side ? n1 - 1 : 0;
    a[nc->t[0]] = j % n1;
    if (dim == 3) a[nc->t[1]] = j / n1;
    index[j] = idx[a[0] + n1 * (a[1] + n1 * a[2])];
  }
  ts_face_geometry(dofs, cell, d, nc->side, nq, r->shape, r->grad, x, T);
  for (int q = 0; q < npf; ++q) {
    const int q0 = q % nq, q1 = q / nq;
    const double *T0 = T + q * (dim - 1) * dim, *T1 = T0 + dim;
    double ds = hypot(T0[0], T0[1]);
    if (dim == 3) {
      const double n[3] = {T0[1] * T1[2] - T0[2] * T1[1], T0[2] * T1[0] - T0[0] * T1[2],
                           T0[0] * T1[1] - T0[1] * T1[0]};
      ds = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    wds[q] = r->weights[q0] * (dim == 3 ? r->weights[q1] : 1.0) * ds;
  }
  for (int j = 0; j < nf; ++j) out[j] = 0.0;
  if (!ts_call_point_fn(nc->h, nc->user, dofs, cell, "Neumann flux", npf, 1, x, h, &nc->failure)) return;
  for (int j = 0; j < nf; ++j) {
    const int j0 = j % n1, j1 = j / n1;
    double s = 0.0;
    for (int q = 0; q < npf; ++q)
      s += wds[q] * h[q] * r->shape[q % nq * n1 + j0] * (dim == 3 ? r->shape[q / nq * n1 + j1] : 1.0);
    out[j] = s;
  }
}

/* b += (h, phi_i) over the face (d, side), its Dirichlet rows left alone: the face cells in
 * parallel into local values, then added in order. */
static int neumann_face(ts_dofs dofs, const rule *r, int d, int side, ts_point_fn h, void *user,
                        double *b) {
  neumann_ctx nc = {dofs, r, h, user, d, side, {-1, -1}, {1, 1}, NULL, NULL, {0}};
  for (int e = 0, m = 0; e < dofs->dim; ++e)
    if (e != d) nc.face_cells[m] = dofs->cells[e], nc.t[m++] = e;
  const int64_t n_face = nc.face_cells[0] * nc.face_cells[1];
  const int nf = dofs->dim == 3 ? r->n1 * r->n1 : r->n1;
  ts_cell_failure_init(&nc.failure);
  TS_CALL(ts_calloc((size_t)(n_face * nf), sizeof *nc.local, "Neumann face values", &nc.local));
  int ierr = ts_calloc((size_t)(n_face * nf), sizeof *nc.index, "Neumann face DoFs", &nc.index);
  if (!ierr) {
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t f = 0; f < n_face; ++f) face_load(&nc, f);
    ierr = ts_cell_failure_report(&nc.failure, "ts_assemble_neumann_mapped");
  }
  for (int64_t v = 0; !ierr && v < n_face * nf; ++v)
    if (!ts_dofs_is_dirichlet(dofs, nc.index[v])) b[nc.index[v]] += nc.local[v];
  free(nc.local);
  free(nc.index);
  return ierr;
}

int ts_assemble_neumann_mapped(ts_operator A, ts_point_fn h, void *ctx, ts_vec b) {
  ts_dofs dofs;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(h);
  TS_CHECK_NOT_NULL(b);
  TS_CALL(ts_operator_mapped_dofs(A, "ts_assemble_neumann_mapped", &dofs));
  TS_CHECK_ARG(b->n == dofs->count && b->backend == A->backend, "ts_assemble_neumann_mapped: b "
               "(%lld entries) must have the operator's %lld entries, on its backend",
               (long long)b->n, (long long)dofs->count);
  TS_CHECK_ARG(dofs->neumann_faces, "ts_assemble_neumann_mapped: the operator's DoFs have no "
               "Neumann face (ts_dofs_set_neumann_faces before the operator is made)");
  rule r;
  TS_CALL(rule_init(dofs, &r));
  double *bh;
  TS_CALL(ts_calloc((size_t)dofs->count, sizeof *bh, "right-hand side", &bh));
  int ierr = ts_vec_get_to_host(b, bh);
  for (int face = 0; !ierr && face < 2 * dofs->dim; ++face)
    if (dofs->neumann_faces >> face & 1) ierr = neumann_face(dofs, &r, face / 2, face % 2, h, ctx, bh);
  if (!ierr) ierr = ts_vec_set_from_host(b, bh);
  free(bh);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "Neumann data on mapped cells") : 0;
}

/* ---------------------------------------------------------------- pure Neumann problems */

int ts_remove_null_space(ts_operator A, ts_vec b, double *defect) {
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(b);
  TS_CHECK_ARG(b->n == A->n && b->backend == A->backend, "ts_remove_null_space: b (%lld "
               "entries) must have the operator's %lld entries, on its backend", (long long)b->n,
               (long long)A->n);
  if (defect) *defect = 0.0;
  if (!ts_operator_mapped_singular(A)) return 0;
  double *bh;
  TS_CALL(ts_calloc((size_t)b->n, sizeof *bh, "right-hand side", &bh));
  int ierr = ts_vec_get_to_host(b, bh);
  ts_sum sum = {0.0, 0.0}, size = {0.0, 0.0};
  for (int64_t i = 0; !ierr && i < b->n; ++i) {
    ts_sum_add(&sum, bh[i]);
    ts_sum_add(&size, fabs(bh[i]));
  }
  const double mean = ts_sum_value(&sum) / (double)b->n;
  for (int64_t i = 0; !ierr && i < b->n; ++i) bh[i] -= mean;
  if (!ierr) ierr = ts_vec_set_from_host(b, bh);
  if (!ierr && defect) *defect = ts_sum_value(&size) > 0 ? fabs(ts_sum_value(&sum)) / ts_sum_value(&size) : 0.0;
  free(bh);
  return ierr;
}

/* out[0] = (u_h, 1)_K, out[1] = (u, 1)_K (0 without u), out[2] = |K| (the errors' context,
 * its grad_u unused). */
static void cell_means(const void *ctx, int64_t cell, double *out) {
  const errors_ctx *m = ctx;
  ts_dofs dofs = m->dofs;
  const rule *r = m->r;
  const int nd = dofs->dim == 3 ? r->n1 * r->n1 * r->n1 : r->n1 * r->n1;
  double local[TS_MAX_CELL_DOFS], val[MAX_Q3], x[MAX_Q3 * 3], wdet[MAX_Q3], u[MAX_Q3];
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  const double *tables[3] = {r->shape, r->shape, r->shape};
  ts_cell_from_index(dofs, cell, c);
  ts_cell_dof_indices(dofs, c, idx);
  for (int i = 0; i < nd; ++i) local[i] = m->values[idx[i]];
  ts_tensor_to_points(dofs->dim, r->n1, r->nq, tables, local, val);
  cell_measure(dofs, r, cell, x, wdet, NULL);
  out[0] = out[1] = out[2] = 0.0;
  if (m->u && !ts_call_point_fn(m->u, m->user, dofs, cell, "exact solution", r->np, 1, x, u, m->failure)) return;
  for (int q = 0; q < r->np; ++q) {
    out[0] += wdet[q] * val[q];
    out[1] += m->u ? wdet[q] * u[q] : 0.0;
    out[2] += wdet[q];
  }
}

int ts_mean_mapped(ts_dofs dofs, const double *values, ts_point_fn u, void *ctx, double *mean,
                   double *u_mean) {
  TS_CHECK_NOT_NULL(dofs);
  TS_CHECK_NOT_NULL(values);
  TS_CHECK_NOT_NULL(mean);
  TS_CHECK_ARG(!u || u_mean, "ts_mean_mapped: u_mean is NULL with u given");
  double sums[3];
  TS_CALL(cell_integrals(dofs, values, u, NULL, ctx, cell_means, 3, "ts_mean_mapped", sums));
  *mean = sums[0] / sums[2];
  if (u) *u_mean = sums[1] / sums[2];
  return 0;
}
