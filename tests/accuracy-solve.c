/* accuracy-solve.c -- see accuracy-solve.h. */
#include <stdlib.h>
#include <string.h>
#include "accuracy-solve.h"

int accuracy_solve(ts_backend be, int dim, int k, int level, double *l2) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  const ts_solution *u = NULL;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  ts_vec b = NULL, x = NULL, x0 = NULL;
  ts_solver cg = NULL;
  double *host = NULL, h1;
  int64_t n = 0;
  *l2 = 0.0;
  int ierr = ts_solution_by_name("sine", &u);
  if (!ierr) ierr = ts_mesh_create_box(dim, lower, upper, coarse, level, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_mg_create(be, mesh, fe, level, NULL, &mg);
  if (!ierr) n = ts_dofs_count(ts_mg_dofs(mg));
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_assemble_rhs(ts_mg_operator(mg), ts_mg_dofs(mg), u, b, x0);
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_CG, &cg);
  if (!ierr) ierr = ts_solver_set_operator(cg, ts_mg_operator(mg));
  if (!ierr) ierr = ts_solver_set_preconditioner(cg, ts_mg_preconditioner(mg));
  if (!ierr) ierr = ts_solver_set_tolerances(cg, 1e-15, 100);
  if (!ierr) {
    ierr = ts_solver_solve(cg, b, x);
    if (ierr == TS_ERR_NOT_CONVERGED && strstr(ts_error_message(), "cannot reach")) ierr = 0;
  }
  if (!ierr) ierr = ts_vec_axpby(1.0, x0, 1.0, x);
  if (!ierr && !(host = malloc(sizeof(double) * (size_t)n))) ierr = TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_get_to_host(x, host);
  if (!ierr) ierr = ts_compute_errors(ts_mg_dofs(mg), host, u, l2, &h1);
  free(host);
  ts_solver_destroy(&cg);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}
