/* laplace.c -- the matrix-free Laplacian (grad u, grad v) on Q_k, Cartesian cells.
 *
 * With a constant diagonal Jacobian the cell matrix is a sum of Kronecker products of the
 * 1D reference matrices (paper 002, section 2.1):
 *   A_K = sum_d (prod_e h_e / h_d^2) * (K in direction d) (x) (M in the others),
 * where M and K are the 1D mass and stiffness matrices on [0,1], computed here with the
 * (k+1)-point Gauss rule, which is exact for them.  The backend applies A_K by sum
 * factorization (one-dimensional sweeps); this file only prepares the plan. */
#include <math.h>
#include <string.h>
#include "../tessera-impl.h"

typedef struct laplace_data {
  ts_laplace_plan plan;
  double matrices[2 * (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
} laplace_data;

/* Whether the (k+1)x(k+1) matrix A is centro-symmetric, A[a][b] = A[k-a][k-b], to 1e-12 of
 * its largest entry (symmetric nodes give that: ts_lagrange_mass_stiffness). */
static int centro_symmetric(const double *A, int k) {
  const int n1 = k + 1;
  double largest = 0.0, deviation = 0.0;
  for (int i = 0; i < n1 * n1; ++i) largest = fmax(largest, fabs(A[i]));
  for (int a = 0; a < n1; ++a)
    for (int b = 0; b < n1; ++b)
      deviation = fmax(deviation, fabs(A[a * n1 + b] - A[(k - a) * n1 + (k - b)]));
  return deviation <= 1e-12 * largest;
}

/* The even-odd form of A (include/tessera/backend.h, ts_even_odd_1d): rows a = 0..k/2. */
static void even_odd_form(const double *A, int k, ts_even_odd_1d *f) {
  const int n1 = k + 1, h = n1 / 2;
  memset(f, 0, sizeof *f);
  for (int a = 0; a <= k / 2; ++a) {
    for (int b = 0; b < h; ++b) {
      f->even[a][b] = 0.5 * (A[a * n1 + b] + A[a * n1 + k - b]);
      f->odd[a][b] = 0.5 * (A[a * n1 + b] - A[a * n1 + k - b]);
    }
    if (k % 2 == 0) f->even[a][h] = A[a * n1 + h];
  }
}

int ts_laplace_plan_init(ts_dofs dofs, ts_laplace_plan *plan, double *storage) {
  const int k = dofs->degree, n1 = k + 1;
  plan->dim = dofs->dim;
  plan->degree = k;
  plan->n_dofs = dofs->count;
  for (int d = 0; d < 3; ++d) {
    plan->cells[d] = dofs->cells[d];
    plan->n[d] = dofs->n[d];
  }
  double volume = 1.0;
  for (int d = 0; d < dofs->dim; ++d) volume *= dofs->h[d];
  for (int d = 0; d < 3; ++d) plan->scale[d] = d < dofs->dim ? volume / (dofs->h[d] * dofs->h[d]) : 0.0;
  plan->mass_1d = storage;
  plan->stiffness_1d = storage + n1 * n1;
  plan->constrained = 1;
  TS_CALL(ts_lagrange_mass_stiffness(n1, dofs->fe->points, storage, storage + n1 * n1));
  plan->centro_symmetric = centro_symmetric(plan->mass_1d, k) && centro_symmetric(plan->stiffness_1d, k);
  even_odd_form(plan->mass_1d, k, &plan->mass_even_odd);
  even_odd_form(plan->stiffness_1d, k, &plan->stiffness_even_odd);
  return 0;
}

static int laplace_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  laplace_data *data = op->data;
  TS_CALL(ts_backend_laplace_apply(op->backend, &data->plan, op->precision, x->data, y->data, add));
  return 0;
}

static int laplace_apply_unconstrained(ts_operator op, ts_vec x, ts_vec y) {
  laplace_data *data = op->data;
  ts_laplace_plan plan = data->plan;
  plan.constrained = 0;
  TS_CALL(ts_backend_laplace_apply(op->backend, &plan, op->precision, x->data, y->data, 0));
  return 0;
}

static int laplace_diagonal(ts_operator op, ts_vec d) {
  laplace_data *data = op->data;
  TS_CALL(ts_backend_laplace_diagonal(op->backend, &data->plan, op->precision, d->data));
  return 0;
}

/* the CSR matrix of the plan (lib/sparse/assemble-laplace.c) */
static int laplace_assemble(ts_operator op, ts_matrix *M) {
  const laplace_data *data = op->data;
  TS_CALL(ts_matrix_assemble_laplace_plan(&data->plan, M));
  return 0;
}

/* Counted operations of the backends' sum factorization: per cell, the seven 1D sweeps of
 * (k+1)^(dim+1) multiply-adds in 3D (five in 2D) without the even-odd decomposition. */
double ts_laplace_plan_flops(const ts_laplace_plan *p) {
  const double n1 = p->degree + 1;
  double cells = 1.0, per_cell = 1.0;
  for (int d = 0; d < p->dim; ++d) {
    cells *= (double)p->cells[d];
    per_cell *= n1;
  }
  const double sweeps = p->dim == 3 ? 7.0 : 4.0;
  return cells * (2.0 * sweeps * per_cell * n1 + (p->dim + 1.0) * per_cell);
}

static double laplace_flops(ts_operator op) {
  const laplace_data *data = op->data;
  return ts_laplace_plan_flops(&data->plan);
}

static void laplace_destroy(ts_operator op) { ts_free(&op->data); }

static const ts_operator_ops laplace_ops = {
    .name = "laplace",
    .apply = laplace_apply,
    .apply_unconstrained = laplace_apply_unconstrained,
    .diagonal = laplace_diagonal,
    .flops = laplace_flops,
    .destroy = laplace_destroy,
    .apply_transpose = laplace_apply, /* symmetric: identity rows and columns */
    .assemble = laplace_assemble,
};

int ts_operator_create_laplace(ts_backend backend, ts_dofs dofs, ts_precision p, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(dofs);
  TS_CALL(ts_dofs_require_q(dofs, "Laplacian"));
  TS_CALL(ts_dofs_require_mapped(dofs, 0, "Laplacian"));
  TS_CHECK_ARG(p == TS_DOUBLE || p == TS_SINGLE, "Laplacian: precision %d unknown", (int)p);
  if (!backend->ops.laplace_apply)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'laplace_apply'", backend->name);
  laplace_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "Laplacian plan", &data));
  int ierr = ts_laplace_plan_init(dofs, &data->plan, data->matrices);
  if (!ierr) ierr = ts_operator_create_shell(backend, &laplace_ops, dofs->count, p, data, op);
  if (ierr) {
    ts_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Laplacian setup");
  }
  return 0;
}
