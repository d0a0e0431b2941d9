/* rhs-errors.c -- the right-hand side (f, phi_i) with the Dirichlet lifting, and the L2 and
 * H1-seminorm errors against a manufactured solution; both by Gauss quadrature with
 * degree+2 points per direction and sum factorization on the host (setup and
 * post-processing work, done once per solve).  A separable f (ts_solution.rhs_factor) with
 * zero boundary values skips the host loop over the cells: the same quadrature factors
 * into one 1D load vector per direction, and the backend forms their tensor product
 * (ts_vec_set_tensor), so that no host vector of the full size is made or copied.  The
 * error integrals are compensated sums over cells (ts_cell_sums), so that errors down to
 * 1e-16 can be measured. */
#include <math.h>
#include <stdlib.h>
#include "../tessera-impl.h"

#define MAX_Q TS_BASIS_1D_MAX_Q /* quadrature points per direction */
#define MAX_Q3 (MAX_Q * MAX_Q * MAX_Q)

typedef ts_basis_1d quadrature_1d;

/* degree+2 Gauss points per direction */
static int quadrature_init(ts_dofs dofs, quadrature_1d *q) {
  return ts_basis_1d_init(dofs, dofs->degree + 2, q);
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
    const double w = ts_basis_1d_point(dofs, q, c, m, x);
    t0[m] = -u->laplacian(dim, x) * w;
  }
  double *in = t0, *out = t1;
  for (int d = 0; d < dim; ++d) {
    ts_tensor_contract(dim, shape, d, q->value, q->n1, 1, in, out);
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

typedef struct load_ctx {
  ts_dofs dofs;
  const quadrature_1d *q;
  const ts_solution *u;
  double *b;
} load_ctx;

static void load_cell(void *ctx, int64_t cell) {
  const load_ctx *l = ctx;
  int64_t c[3];
  ts_cell_from_index(l->dofs, cell, c);
  cell_rhs(l->dofs, l->q, l->u, c, l->b);
}

/* The cells in race-free layers (ts_cell_layers_for). */
static void assemble_load(ts_dofs dofs, const quadrature_1d *q, const ts_solution *u, double *b) {
  load_ctx ctx = {dofs, q, u, b};
  ts_cell_layers_for(dofs, load_cell, &ctx);
}

/* The boundary values of u at the boundary DoFs into xh (zero inside), then the lifting. */
static int lift_dirichlet(ts_operator A, ts_dofs dofs, const ts_solution *u, ts_vec x0,
                          double *bh, double *xh) {
  int nonzero = 0;
#pragma omp parallel for schedule(static) reduction(| : nonzero)
  for (int64_t i = 0; i < dofs->count; ++i) {
    xh[i] = 0.0;
    if (ts_dofs_is_boundary(dofs, i)) {
      double x[3];
      ts_dofs_point(dofs, i, x);
      xh[i] = u->value(dofs->dim, x);
      nonzero |= xh[i] != 0.0;
    }
  }
  return ts_lift_dirichlet(A, dofs, x0, bh, xh, nonzero);
}

int ts_lift_dirichlet(ts_operator A, ts_dofs dofs, ts_vec x0, double *bh, double *xh, int nonzero) {
  TS_CALL(ts_vec_set_from_host(x0, xh));
  if (nonzero) { /* b -= A_unconstrained x0: the lifting of the boundary data */
    ts_vec t;
    TS_CALL(ts_vec_create(A->backend, A->n, A->precision, &t));
    int ierr = ts_operator_apply_unconstrained(A, x0, t);
    if (!ierr) ierr = ts_vec_get_to_host(t, xh);
    ts_vec_destroy(&t);
    if (ierr) return ts_error_trace(ierr, __FILE__, __LINE__, "Dirichlet lifting");
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < dofs->count; ++i) bh[i] -= xh[i];
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < dofs->count; ++i)
    if (ts_dofs_is_dirichlet(dofs, i)) bh[i] = 0.0; /* the constrained rows solve x_i = 0 */
  return 0;
}

/* Whether u is zero at every boundary DoF: the rows (i_1, i_2) of DoFs along direction 0
 * that lie on the boundary entirely, and the two ends of the others (O(n^((dim-1)/dim))). */
static int boundary_values_zero(ts_dofs dofs, const ts_solution *u) {
  const int64_t n0 = dofs->n[0], n1 = dofs->n[1], n2 = dofs->n[2], rows = n1 * n2;
  int nonzero = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(| : nonzero)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i1 = r % n1, i2 = r / n1;
    const int whole = i1 == 0 || i1 == n1 - 1 || (dofs->dim == 3 && (i2 == 0 || i2 == n2 - 1));
    const int64_t step = whole || n0 < 2 ? 1 : n0 - 1;
    for (int64_t i0 = 0; i0 < n0 && !nonzero; i0 += step) {
      double x[3];
      ts_dofs_point(dofs, i0 + n0 * r, x);
      nonzero |= u->value(dofs->dim, x) != 0.0;
    }
  }
  return !nonzero;
}

/* The 1D load vector of direction d for the factor f_d of a separable f: the Gauss sums of
 * cell_rhs along one line of cells (b[c k + i] += w_m h f_d(x_m) phi_i(x_m)), so that the
 * tensor product of the dim vectors is the load vector cell_rhs assembles; the two end
 * entries, which belong to boundary DoFs only, are zero (the constrained rows). */
static void load_1d(ts_dofs dofs, const quadrature_1d *q, const ts_solution *u, int d, double *b) {
  const int k = dofs->degree;
  for (int64_t i = 0; i < dofs->n[d]; ++i) b[i] = 0.0;
  for (int64_t c = 0; c < dofs->cells[d]; ++c)
    for (int m = 0; m < q->nq; ++m) {
      const double x = dofs->lower[d] + dofs->h[d] * ((double)c + q->points[m]);
      const double w = q->weights[m] * dofs->h[d] * u->rhs_factor(dofs->dim, d, x);
      for (int i = 0; i < q->n1; ++i) b[c * k + i] += w * q->value[m * q->n1 + i];
    }
  b[0] = b[dofs->n[d] - 1] = 0.0;
}

int ts_rhs_separable(ts_dofs dofs, const ts_solution *u, ts_backend backend) {
  return u->rhs_factor && backend->ops.vec_tensor && boundary_values_zero(dofs, u);
}

int ts_assemble_rhs_separable_block(ts_dofs whole, const int64_t *offset, const int64_t *n,
                                    const ts_solution *u, ts_vec b) {
  quadrature_1d q;
  double *line = NULL;
  TS_CALL(quadrature_init(whole, &q));
  const int64_t total = whole->n[0] + whole->n[1] + whole->n[2];
  TS_CALL(ts_calloc((size_t)total, sizeof *line, "1D load vectors", &line));
  const double *factors[3];
  int64_t start = 0;
  for (int d = 0; d < 3; start += whole->n[d], ++d) {
    if (d < whole->dim) load_1d(whole, &q, u, d, line + start);
    factors[d] = line + start + offset[d];
  }
  const int ierr = ts_vec_set_tensor(b, whole->dim, n, factors);
  free(line);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "separable right side") : 0;
}

/* The right side of a separable f with zero boundary values on the device: b from the 1D
 * load vectors (ts_vec_set_tensor), x0 = 0.  No host vector of the full size. */
static int assemble_separable(ts_dofs dofs, const ts_solution *u, ts_vec b, ts_vec x0) {
  static const int64_t origin[3] = {0, 0, 0};
  TS_CALL(ts_assemble_rhs_separable_block(dofs, origin, dofs->n, u, b));
  TS_CALL(ts_vec_set(x0, 0.0));
  return 0;
}

int ts_assemble_load(ts_dofs dofs, const ts_solution *u, double *b) {
  quadrature_1d q;
  TS_CALL(quadrature_init(dofs, &q));
  assemble_load(dofs, &q, u, b);
  return 0;
}

int ts_assemble_rhs(ts_operator A, ts_dofs dofs, const ts_solution *u, ts_vec b, ts_vec x0) {
  double phases[TS_SETUP_PHASES] = {0};
  return ts_assemble_rhs_timed(A, dofs, u, b, x0, phases);
}

int ts_assemble_rhs_timed(ts_operator A, ts_dofs dofs, const ts_solution *u, ts_vec b, ts_vec x0,
                          double *phase_seconds) {
  quadrature_1d q;
  double *bh = NULL, *xh = NULL;
  TS_CHECK_ARG(A && dofs && u && b && x0, "ts_assemble_rhs: NULL argument");
  TS_CALL(ts_dofs_require_q(dofs, "ts_assemble_rhs"));
  TS_CALL(ts_dofs_require_mapped(dofs, 0, "ts_assemble_rhs"));
  TS_CHECK_ARG(b->n == dofs->count && x0->n == dofs->count && A->n == dofs->count,
               "ts_assemble_rhs: vectors and operator must have %lld entries (the DoFs)",
               (long long)dofs->count);
  double t = ts_wtime();
  TS_CALL(quadrature_init(dofs, &q));
  if (ts_rhs_separable(dofs, u, b->backend)) {
    phase_seconds[TS_SETUP_BOUNDARY] += ts_wtime() - t;
    t = ts_wtime();
    TS_CALL(assemble_separable(dofs, u, b, x0));
    phase_seconds[TS_SETUP_RIGHT_SIDE] += ts_wtime() - t;
    return 0;
  }
  TS_CALL(ts_calloc((size_t)dofs->count, sizeof *bh, "right-hand side", &bh));
  int ierr = ts_calloc((size_t)dofs->count, sizeof *xh, "boundary values", &xh);
  if (!ierr) {
    assemble_load(dofs, &q, u, bh);
    phase_seconds[TS_SETUP_RIGHT_SIDE] += ts_wtime() - t;
    t = ts_wtime();
    ierr = lift_dirichlet(A, dofs, u, x0, bh, xh);
    phase_seconds[TS_SETUP_BOUNDARY] += ts_wtime() - t;
  }
  t = ts_wtime();
  if (!ierr) ierr = ts_vec_set_from_host(b, bh);
  free(bh);
  free(xh);
  phase_seconds[TS_SETUP_RIGHT_SIDE] += ts_wtime() - t;
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "right-hand side") : 0;
}

/* What the error integrals over the cells read. */
typedef struct errors_ctx {
  ts_dofs dofs;
  const quadrature_1d *q;
  const double *values;
  const ts_solution *u;
} errors_ctx;

/* Squared L2 and H1-seminorm errors on one cell: out[0], out[1].  The cell's first value c is
 * subtracted before the contractions and added back to the values: the basis values sum to
 * exactly 1 and the derivatives to exactly 0 (lagrange.c), so nothing changes but the
 * rounding, which is then relative to u - c (of size h |grad u|) instead of u. */
static void cell_errors(const void *ctx, int64_t cell, double *out) {
  const errors_ctx *e = ctx;
  ts_dofs dofs = e->dofs;
  const quadrature_1d *q = e->q;
  double local[TS_MAX_CELL_DOFS], val[MAX_Q3], grad[3][MAX_Q3];
  int64_t idx[TS_MAX_CELL_DOFS], c[3];
  const int dim = dofs->dim;
  int ndofs = 1, npts = 1;
  for (int d = 0; d < dim; ++d) {
    ndofs *= q->n1;
    npts *= q->nq;
  }
  ts_cell_from_index(dofs, cell, c);
  ts_cell_dof_indices(dofs, c, idx);
  const double shift = e->values[idx[0]];
  for (int i = 0; i < ndofs; ++i) local[i] = e->values[idx[i]] - shift;
  /* component g < dim: derivative in direction g; g == dim: values */
  for (int g = 0; g <= dim; ++g) {
    const double *factor[3] = {q->value, q->value, q->value};
    if (g < dim) factor[g] = q->derivative;
    ts_basis_1d_contract(dim, q, factor, 0, local, g == dim ? val : grad[g]);
  }
  ts_sum l2 = {0.0, 0.0}, h1 = {0.0, 0.0};
  for (int m = 0; m < npts; ++m) {
    double x[3], gu[3];
    const double w = ts_basis_1d_point(dofs, q, c, m, x);
    /* u - c is exact where u and c are within a factor 2 of each other (Sterbenz) */
    const double err = val[m] - (e->u->value(dim, x) - shift);
    ts_sum_add(&l2, w * err * err);
    e->u->gradient(dim, x, gu);
    for (int d = 0; d < dim; ++d) {
      const double eg = grad[d][m] / dofs->h[d] - gu[d];
      ts_sum_add(&h1, w * eg * eg);
    }
  }
  out[0] = ts_sum_value(&l2);
  out[1] = ts_sum_value(&h1);
}

int ts_compute_error_sums(ts_dofs dofs, const double *values, const ts_solution *u,
                          double *sums) {
  quadrature_1d q;
  TS_CALL(quadrature_init(dofs, &q));
  const errors_ctx ctx = {dofs, &q, values, u};
  TS_CALL(ts_cell_sums(ts_cell_count(dofs), 2, cell_errors, &ctx, sums));
  return 0;
}

int ts_compute_errors(ts_dofs dofs, const double *values, const ts_solution *u, double *l2_error,
                      double *h1_error) {
  TS_CHECK_ARG(dofs && values && u && l2_error && h1_error, "ts_compute_errors: NULL argument");
  TS_CALL(ts_dofs_require_q(dofs, "ts_compute_errors"));
  TS_CALL(ts_dofs_require_mapped(dofs, 0, "ts_compute_errors"));
  double sums[2];
  TS_CALL(ts_compute_error_sums(dofs, values, u, sums));
  *l2_error = sqrt(sums[0]);
  *h1_error = sqrt(sums[1]);
  return 0;
}
