/* stokes-solve.c -- the shared Stokes driver of the multigrid tests (stokes-solve.h). */
#include <math.h>
#include <stdlib.h>
#include "stokes-solve.h"
#include "tessera-impl.h"

/* nu = -8 / log10(rbar), rbar = (||r_n|| / ||r_0||)^(1/n) (see the top of the file) */
static double fractional_iterations(int n, double relative_residual) {
  return n > 0 ? -8.0 * n / log10(relative_residual) : 0.0;
}

static int run_gmres(ts_backend be, ts_mg mg, const double *b_host, const stokes_case *c,
                     double *x_host, stokes_result *res) {
  ts_operator A = ts_mg_operator(mg);
  const int64_t n = ts_operator_size(A);
  ts_vec b, x;
  ts_solver s;
  TS_CALL(ts_vec_create(be, n, TS_DOUBLE, &b));
  TS_CALL(ts_vec_create(be, n, TS_DOUBLE, &x));
  TS_CALL(ts_vec_set_from_host(b, b_host));
  TS_CALL(ts_vec_set(x, 0.0));
  TS_CALL(ts_solver_create(TS_SOLVER_GMRES, &s));
  TS_CALL(ts_solver_set_operator(s, A));
  TS_CALL(ts_solver_set_preconditioner(s, ts_mg_preconditioner(mg)));
  TS_CALL(ts_solver_set_restart(s, 30));
  TS_CALL(ts_solver_set_tolerances(s, c->rtol, 100));
  TS_CALL(ts_solver_set_side(s, c->side));
  int ierr = ts_solver_solve(s, b, x);
  if (!ierr) {
    res->iterations = ts_solver_iterations(s);
    int count;
    const double *history = ts_solver_history(s, &count);
    res->relative_residual = history[count - 1];
    res->nu = fractional_iterations(res->iterations, res->relative_residual);
    ierr = ts_stokes_pressure_mean_remove(A, x);  /* doc/stokes.md section 6 */
  }
  if (!ierr) ierr = ts_vec_get_to_host(x, x_host);
  ts_solver_destroy(&s);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  return ierr;
}

int stokes_solve(ts_backend be, const stokes_case *c, stokes_result *res) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int cells[3] = {1, 1, 1};
  const ts_stokes_solution *sol;
  ts_mesh mesh;
  ts_mg mg;
  ts_mg_options o;
  TS_CALL(ts_stokes_solution_by_name("paper000", &sol));
  TS_CALL(ts_mesh_create_box(c->dim, lower, upper, cells, c->level, &mesh));
  ts_mg_options_default(&o);
  o.coarse_level = 1;                    /* T_0: 2^dim cells */
  o.stokes_solver = c->solver;
  o.precision = c->precision;
  if (c->cg_tolerance > 0.0) o.stokes_cg_tolerance = c->cg_tolerance;
  int ierr = ts_mg_create_stokes(be, mesh, c->degree, c->level, &o, &mg);
  if (ierr) {
    ts_mesh_destroy(&mesh);
    return ierr;
  }
  ts_dofs velocity = ts_mg_dofs(mg), pressure = ts_mg_pressure_dofs(mg);
  const int64_t n = ts_dofs_count(velocity) + ts_dofs_count(pressure);
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
  ierr = b && x ? 0 : TS_ERROR(TS_ERR_MEMORY, "t-stokes-mg: %lld host values", (long long)n);
  if (!ierr) ierr = ts_stokes_assemble_rhs(velocity, pressure, sol, b);
  if (!ierr) ierr = run_gmres(be, mg, b, c, x, res);
  if (!ierr)
    ierr = ts_stokes_compute_errors(velocity, pressure, x, sol, &res->velocity_l2, &res->pressure_l2);
  free(b);
  free(x);
  ts_mg_destroy(&mg);
  ts_mesh_destroy(&mesh);
  return ierr;
}


int stokes_convergence(ts_backend be, int dim, int k, int level, stokes_result r[2],
                       double *velocity_order, double *pressure_order) {
  for (int i = 0; i < 2; ++i) {
    const stokes_case c = {.dim = dim, .degree = k, .level = level + i,
                           .solver = TS_STOKES_PATCH_SCHUR, .precision = TS_DOUBLE, .rtol = 1e-10};
    TS_CALL(stokes_solve(be, &c, &r[i]));
  }
  *velocity_order = log2(r[0].velocity_l2 / r[1].velocity_l2);
  *pressure_order = log2(r[0].pressure_l2 / r[1].pressure_l2);
  return 0;
}
