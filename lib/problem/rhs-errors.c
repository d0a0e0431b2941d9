/* rhs-errors.c -- the right-hand side (f, phi_i) with the Dirichlet lifting, and the L2 and
 * H1-seminorm errors against a manufactured solution; both by Gauss quadrature with
 * degree+2 points per direction and sum factorization on the host (setup and
 * post-processing work, done once per solve). */
#include <math.h>
#include <stdlib.h>
#include "../tessera-impl.h"

/* The 1D ingredients on the reference interval: Gauss points and weights, the Lagrange
 * basis (on the element's support points) and its derivative at those points. */
#define MAX_Q (TS_MAX_DEGREE + 2) /* quadrature points per direction */
#define MAX_Q3 (MAX_Q * MAX_Q * MAX_Q)

typedef struct quadrature_1d {
  int n1, nq;
  double points[MAX_Q], weights[MAX_Q];
  double shape[MAX_Q * (TS_MAX_DEGREE + 1)], grad[MAX_Q * (TS_MAX_DEGREE + 1)];
} quadrature_1d;

static int quadrature_init(ts_dofs dofs, quadrature_1d *q) {
  q->n1 = dofs->degree + 1;
  q->nq = dofs->degree + 2;
  TS_CALL(ts_gauss_rule(q->nq, q->points, q->weights));
  ts_lagrange_tabulate(q->n1, dofs->fe->points, q->nq, q->points, q->shape, q->grad);
  return 0;
}

/* The physical coordinates of quadrature point m (lexicographic) of cell c. */
static void quadrature_point(ts_dofs dofs, const quadrature_1d *q, const int64_t *c, int m, double *x) {
  for (int d = 0; d < dofs->dim; ++d) {
    const int qd = m % q->nq;
    m /= q->nq;
    x[d] = dofs->lower[d] + dofs->h[d] * ((double)c[d] + q->points[qd]);
  }
}

static double quadrature_weight(ts_dofs dofs, const quadrature_1d *q, int m) {
  double w = 1.0;
  for (int d = 0; d < dofs->dim; ++d) {
    w *= q->weights[m % q->nq] * dofs->h[d];
    m /= q->nq;
  }
  return w;
}

/* b_cell = (S^T (x) ... (x) S^T) (w f) for one cell, added into b. */
static void cell_rhs(ts_dofs dofs, const quadrature_1d *q, const ts_solution *u, const int64_t *c,
                     double *b) {
  double t0[MAX_Q3], t1[MAX_Q3];
  int64_t idx[TS_MAX_CELL_DOFS];
  int shape[3] = {q->nq, q->nq, q->nq}, npts = 1;
  const int dim = dofs->dim;
  for (int d = 0; d < dim; ++d) npts *= q->nq;
  for (int m = 0; m < npts; ++m) {
    double x[3];
    quadrature_point(dofs, q, c, m, x);
    t0[m] = -u->laplacian(dim, x) * quadrature_weight(dofs, q, m);
  }
  double *in = t0, *out = t1;
  for (int d = 0; d < dim; ++d) {
    ts_tensor_contract(dim, shape, d, q->shape, q->n1, 1, in, out);
    shape[d] = q->n1;
    double *t = in;
    in = out;
    out = t;
  }
  ts_cell_dof_indices(dofs, c, idx);
  int ndofs = 1;
  for (int d = 0; d < dim; ++d) ndofs *= q->n1;
  for (int i = 0; i < ndofs; ++i) b[idx[i]] += in[i];
}

/* Layers of cells along the last direction: two layers of the same parity share no DoF, so
 * each parity is a race-free parallel loop over whole layers. */
static void assemble_load(ts_dofs dofs, const quadrature_1d *q, const ts_solution *u, double *b) {
  const int last = dofs->dim - 1;
  const int64_t layers = dofs->cells[last], per_layer = ts_cell_count(dofs) / layers;
  for (int parity = 0; parity < 2; ++parity) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t layer = parity; layer < layers; layer += 2)
      for (int64_t i = layer * per_layer; i < (layer + 1) * per_layer; ++i) {
        int64_t c[3];
        ts_cell_from_index(dofs, i, c);
        cell_rhs(dofs, q, u, c, b);
      }
  }
}

static int lift_dirichlet(ts_operator A, ts_dofs dofs, const ts_solution *u, ts_vec x0,
                          double *bh, double *xh) {
  int nonzero = 0;
  for (int64_t i = 0; i < dofs->count; ++i) {
    xh[i] = 0.0;
    if (ts_dofs_is_boundary(dofs, i)) {
      double x[3];
      ts_dofs_point(dofs, i, x);
      xh[i] = u->value(dofs->dim, x);
      nonzero |= xh[i] != 0.0;
    }
  }
  TS_CALL(ts_vec_set_from_host(x0, xh));
  if (nonzero) { /* b -= A_unconstrained x0: the lifting of the boundary data */
    ts_vec t;
    TS_CALL(ts_vec_create(A->backend, A->n, A->precision, &t));
    int ierr = ts_operator_apply_unconstrained(A, x0, t);
    if (!ierr) ierr = ts_vec_get_to_host(t, xh);
    ts_vec_destroy(&t);
    if (ierr) return ts_error_trace(ierr, __FILE__, __LINE__, "Dirichlet lifting");
    for (int64_t i = 0; i < dofs->count; ++i) bh[i] -= xh[i];
  }
  for (int64_t i = 0; i < dofs->count; ++i)
    if (ts_dofs_is_boundary(dofs, i)) bh[i] = 0.0; /* the constrained rows solve x_i = 0 */
  return 0;
}

int ts_assemble_rhs(ts_operator A, ts_dofs dofs, const ts_solution *u, ts_vec b, ts_vec x0) {
  quadrature_1d q;
  double *bh = NULL, *xh = NULL;
  TS_CHECK_ARG(A && dofs && u && b && x0, "ts_assemble_rhs: NULL argument");
  TS_CALL(ts_dofs_require_q(dofs, "ts_assemble_rhs"));
  TS_CHECK_ARG(b->n == dofs->count && x0->n == dofs->count && A->n == dofs->count,
               "ts_assemble_rhs: vectors and operator must have %lld entries (the DoFs)",
               (long long)dofs->count);
  TS_CALL(quadrature_init(dofs, &q));
  TS_CALL(ts_calloc((size_t)dofs->count, sizeof *bh, "right-hand side", &bh));
  int ierr = ts_calloc((size_t)dofs->count, sizeof *xh, "boundary values", &xh);
  if (!ierr) {
    assemble_load(dofs, &q, u, bh);
    ierr = lift_dirichlet(A, dofs, u, x0, bh, xh);
  }
  if (!ierr) ierr = ts_vec_set_from_host(b, bh);
  free(bh);
  free(xh);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "right-hand side") : 0;
}

/* Squared L2 and H1-seminorm errors on one cell. */
static void cell_errors(ts_dofs dofs, const quadrature_1d *q, const double *values,
                        const ts_solution *u, const int64_t *c, double *l2, double *h1) {
  double local[TS_MAX_CELL_DOFS], val[MAX_Q3], grad[3][MAX_Q3], t0[MAX_Q3], t1[MAX_Q3];
  int64_t idx[TS_MAX_CELL_DOFS];
  const int dim = dofs->dim;
  int ndofs = 1, npts = 1;
  for (int d = 0; d < dim; ++d) {
    ndofs *= q->n1;
    npts *= q->nq;
  }
  ts_cell_dof_indices(dofs, c, idx);
  for (int i = 0; i < ndofs; ++i) local[i] = values[idx[i]];
  /* component g < dim: derivative in direction g; g == dim: values */
  for (int g = 0; g <= dim; ++g) {
    int shape[3] = {q->n1, q->n1, q->n1};
    const double *in = local;
    double *out = t0;
    for (int d = 0; d < dim; ++d) {
      double *target = d == dim - 1 ? (g == dim ? val : grad[g]) : out;
      ts_tensor_contract(dim, shape, d, d == g ? q->grad : q->shape, q->nq, 0, in, target);
      shape[d] = q->nq;
      in = target;
      out = out == t0 ? t1 : t0;
    }
  }
  for (int m = 0; m < npts; ++m) {
    double x[3], gu[3];
    quadrature_point(dofs, q, c, m, x);
    const double w = quadrature_weight(dofs, q, m);
    const double e = val[m] - u->value(dim, x);
    *l2 += w * e * e;
    u->gradient(dim, x, gu);
    for (int d = 0; d < dim; ++d) {
      const double eg = grad[d][m] / dofs->h[d] - gu[d];
      *h1 += w * eg * eg;
    }
  }
}

int ts_compute_errors(ts_dofs dofs, const double *values, const ts_solution *u, double *l2_error,
                      double *h1_error) {
  quadrature_1d q;
  TS_CHECK_ARG(dofs && values && u && l2_error && h1_error, "ts_compute_errors: NULL argument");
  TS_CALL(ts_dofs_require_q(dofs, "ts_compute_errors"));
  TS_CALL(quadrature_init(dofs, &q));
  const int64_t ncells = ts_cell_count(dofs);
  double l2 = 0.0, h1 = 0.0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : l2, h1)
  for (int64_t i = 0; i < ncells; ++i) {
    int64_t c[3];
    ts_cell_from_index(dofs, i, c);
    cell_errors(dofs, &q, values, u, c, &l2, &h1);
  }
  *l2_error = sqrt(l2);
  *h1_error = sqrt(h1);
  return 0;
}
