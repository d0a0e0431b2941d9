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

/* x = A^{-1} b by CG preconditioned by pc */
static int cg(ts_operator A, ts_pc pc, ts_vec b, ts_vec x, double rtol, int *iterations) {
  ts_solver cg = NULL;
  int ierr = ts_solver_create(TS_SOLVER_CG, &cg);
  if (!ierr) ierr = ts_solver_set_operator(cg, A);
  if (!ierr) ierr = ts_solver_set_pc(cg, pc);
  if (!ierr) ierr = ts_solver_set_tolerances(cg, rtol, 50000);
  if (!ierr) ierr = ts_solver_solve(cg, b, x);
  *iterations = ts_solver_iterations(cg);
  ts_solver_destroy(&cg);
  return ierr;
}

/* The operator and its preconditioner: Jacobi, or the V-cycle of the level's hierarchy
 * (whose finest operator is borrowed as A) */
static int operator_pc(ts_backend be, ts_dofs dofs, const mapped_problem *p, ts_mg *mg,
                       ts_operator *A, ts_pc *pc) {
  if (!p->multigrid) {
    int ierr = ts_operator_create_mapped(be, dofs, p->coefficients, TS_DOUBLE, A);
    return ierr ? ierr : ts_pc_create_jacobi(*A, pc);
  }
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  o.neumann_faces = p->neumann_faces;
  int ierr = ts_mg_create_mapped(be, ts_dofs_mesh(dofs), ts_dofs_fe(dofs), ts_dofs_level(dofs),
                                 p->coefficients, &o, mg);
  if (!ierr) *A = ts_mg_operator(*mg);
  return ierr ? ierr : ts_pc_create_mg(*mg, pc);
}

int mapped_solve(ts_backend be, ts_dofs dofs, const mapped_problem *p, mapped_result *r) {
  const int64_t n = ts_dofs_count(dofs);
  ts_operator A = NULL;
  ts_pc pc = NULL;
  ts_mg mg = NULL;
  ts_vec v[3] = {NULL, NULL, NULL}; /* b, x, x0 */
  double *values = malloc(sizeof(double) * (size_t)n), mean = 0.0, u_mean = 0.0;
  int ierr = values ? ts_dofs_set_neumann_faces(dofs, p->neumann_faces) : 1;
  if (!ierr) ierr = operator_pc(be, dofs, p, &mg, &A, &pc);
  for (int i = 0; i < 3 && !ierr; ++i) ierr = ts_vec_create(be, n, TS_DOUBLE, &v[i]);
  if (!ierr) ierr = ts_assemble_rhs_mapped(A, p->f, p->g, p->ctx, v[0], v[2]);
  if (!ierr && p->neumann_faces && p->h) ierr = ts_assemble_neumann_mapped(A, p->h, p->ctx, v[0]);
  if (!ierr) ierr = ts_remove_null_space(A, v[0], &r->defect);
  if (!ierr) ierr = cg(A, pc, v[0], v[1], p->rtol, &r->iterations);
  if (!ierr) ierr = ts_vec_axpby(1.0, v[2], 1.0, v[1]); /* x + x0: the boundary values */
  if (!ierr) ierr = ts_vec_get_to_host(v[1], values);
  if (!ierr) ierr = ts_mean_mapped(dofs, values, p->u, p->ctx, &mean, &u_mean);
  if (!ierr && p->neumann_faces == TS_FACES_ALL(ts_mesh_dim(ts_dofs_mesh(dofs))))
    for (int64_t i = 0; i < n; ++i) values[i] += u_mean - mean; /* defined up to a constant */
  if (!ierr) ierr = ts_compute_errors_mapped(dofs, values, p->u, p->grad_u, p->ctx, &r->l2, &r->h1);
  if (ierr) printf("# %s\n", ts_error_message());
  for (int i = 0; i < 3; ++i) ts_vec_destroy(&v[i]);
  ts_pc_destroy(&pc);
  if (mg) ts_mg_destroy(&mg);
  else ts_operator_destroy(&A);
  free(values);
  return ierr;
}
