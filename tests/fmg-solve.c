/* fmg-solve.c -- see fmg-solve.h */
#include <stdlib.h>
#include "fmg-solve.h"

int fmg_sine_solve(ts_backend be, int dim, int k, const int *cells, int levels,
                   const ts_mg_options *o, fmg_result *res) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const ts_solution *u;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  ts_vec b = NULL, x = NULL, x0 = NULL;
  double *host = NULL, rel, h1;
  int ierr = ts_solution_by_name("sine", &u);
  if (!ierr) ierr = ts_mesh_create_box(dim, lower, upper, cells, levels, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_mg_create(be, mesh, fe, levels, o, &mg);
  const int64_t n = ierr ? 0 : ts_dofs_count(ts_mg_dofs(mg));
  if (!ierr) ierr = (host = malloc((size_t)n * sizeof *host)) ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_assemble_rhs(ts_mg_operator(mg), ts_mg_dofs(mg), u, b, x0);
  if (!ierr) ierr = ts_mg_fmg_solve(mg, b, x, 1e-9, 30, &res->iterations, &rel);
  ts_mg_level_timing t = {0};
  if (!ierr) res->lowest = ts_mg_coarse_level(mg);
  if (!ierr) ierr = ts_mg_level_timing_get(mg, res->lowest, &t);
  res->lowest_degree = t.degree;
  res->coarse_solves = t.smoothing_steps;
  res->coarse_iterations = t.coarse_iterations;
  if (!ierr) ierr = ts_vec_get_to_host(x, host);
  if (!ierr) ierr = ts_compute_errors(ts_mg_dofs(mg), host, u, &res->l2, &h1);
  free(host);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}
