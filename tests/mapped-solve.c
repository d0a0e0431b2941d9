/* mapped-solve.c -- see mapped-solve.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mapped-solve.h"

static const double pi = 3.14159265358979323846;

double mapped_u_value(int dim, const double *x) {
  return exp(x[0]) * sin(pi * x[1] / 2) * (dim == 3 ? cos(pi * x[2] / 3) : 1.0);
}

double mapped_u_laplace_factor(int dim) { return 1.0 - pi * pi / 4 - (dim == 3 ? pi * pi / 9 : 0.0); }

int mapped_u(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)ctx;
  for (int64_t p = 0; p < count; ++p) v[p] = mapped_u_value(dim, x + p * dim);
  return 0;
}

int mapped_u_gradient(void *ctx, int dim, int64_t count, const double *x, double *g) {
  (void)ctx;
  for (int64_t p = 0; p < count; ++p) {
    const double *y = x + p * dim, e = exp(y[0]), s = sin(pi * y[1] / 2), c = cos(pi * y[1] / 2);
    const double z = dim == 3 ? cos(pi * y[2] / 3) : 1.0, dz = dim == 3 ? -pi / 3 * sin(pi * y[2] / 3) : 0.0;
    g[p * dim] = e * s * z;
    g[p * dim + 1] = e * pi / 2 * c * z;
    if (dim == 3) g[p * dim + 2] = e * s * dz;
  }
  return 0;
}

/* x = A^{-1} b by CG preconditioned by Jacobi */
static int cg_jacobi(ts_operator A, ts_vec b, ts_vec x, double rtol, int *iterations) {
  ts_pc jacobi = NULL;
  ts_solver cg = NULL;
  int ierr = ts_pc_create_jacobi(A, &jacobi);
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_CG, &cg);
  if (!ierr) ierr = ts_solver_set_operator(cg, A);
  if (!ierr) ierr = ts_solver_set_pc(cg, jacobi);
  if (!ierr) ierr = ts_solver_set_tolerances(cg, rtol, 50000);
  if (!ierr) ierr = ts_solver_solve(cg, b, x);
  *iterations = ts_solver_iterations(cg);
  ts_solver_destroy(&cg);
  ts_pc_destroy(&jacobi);
  return ierr;
}

int mapped_solve(ts_backend be, ts_dofs dofs, const mapped_problem *p, mapped_result *r) {
  const int64_t n = ts_dofs_count(dofs);
  ts_operator A = NULL;
  ts_vec v[3] = {NULL, NULL, NULL}; /* b, x, x0 */
  double *values = malloc(sizeof(double) * (size_t)n);
  int ierr = values ? ts_operator_create_mapped(be, dofs, p->coefficients, TS_DOUBLE, &A) : 1;
  for (int i = 0; i < 3 && !ierr; ++i) ierr = ts_vec_create(be, n, TS_DOUBLE, &v[i]);
  if (!ierr) ierr = ts_assemble_rhs_mapped(A, p->f, p->g, p->ctx, v[0], v[2]);
  if (!ierr) ierr = cg_jacobi(A, v[0], v[1], p->rtol, &r->iterations);
  if (!ierr) ierr = ts_vec_axpby(1.0, v[2], 1.0, v[1]); /* x + x0: the boundary values */
  if (!ierr) ierr = ts_vec_get_to_host(v[1], values);
  if (!ierr) ierr = ts_compute_errors_mapped(dofs, values, p->u, p->grad_u, p->ctx, &r->l2, &r->h1);
  if (ierr) printf("# %s\n", ts_error_message());
  for (int i = 0; i < 3; ++i) ts_vec_destroy(&v[i]);
  ts_operator_destroy(&A);
  free(values);
  return ierr;
}
