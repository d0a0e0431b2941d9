/* t-mg-vcycle.c -- the V-cycle with the Chebyshev smoother: full multigrid converges at a
 * level-independent rate (2D and 3D), the V-cycle preconditions CG and GMRES with
 * level-independent iteration counts, and mixed precision (V-cycle in single, outer
 * iteration in double) gives the same final L2 error as double precision. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"

typedef struct history {
  int n;
  double r[64];
} history;

static int record(void *ctx, int it, double rel) {
  history *h = ctx;
  if (h->n < 64) h->r[h->n++] = rel;
  return 0;
}

typedef struct result {
  int iterations;
  double rate, l2;
} result;

/* Solve -Laplace u = f on [0,1]^dim with level `finest`: method 0 = FMG, 1 = CG + V-cycle,
 * 2 = GMRES + V-cycle; f from the sine solution (L2 error measured) */
static int solve(ts_backend be, int dim, int k, int finest, int method, ts_precision p,
                 result *res) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  ts_mesh mesh;
  ts_fe fe;
  ts_mg mg;
  ts_mg_options o;
  const ts_solution *u;
  ts_solution_by_name("sine", &u);
  TS_CALL(ts_mesh_create_box(dim, lower, upper, coarse, finest, &mesh));
  TS_CALL(ts_fe_create_q(dim, k, &fe));
  ts_mg_options_default(&o);
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  o.chebyshev_degree = 3;
  o.precision = p;
  TS_CALL(ts_mg_create(be, mesh, fe, finest, &o, &mg));
  ts_dofs dofs = ts_mg_dofs(mg);
  ts_operator A = ts_mg_operator(mg);
  const int64_t n = ts_dofs_count(dofs);
  ts_vec b, x, x0;
  TS_CALL(ts_vec_create(be, n, TS_DOUBLE, &b));
  TS_CALL(ts_vec_create(be, n, TS_DOUBLE, &x));
  TS_CALL(ts_vec_create(be, n, TS_DOUBLE, &x0));
  TS_CALL(ts_assemble_rhs(A, dofs, u, b, x0));
  history h = {0};
  double rel = 0.0;
  if (method == 0) {
    TS_CALL(ts_mg_set_monitor(mg, record, &h));
    TS_CALL(ts_mg_fmg_solve(mg, b, x, 1e-9, 50, &res->iterations, &rel));
  } else {
    ts_solver s;
    TS_CALL(ts_solver_create(method == 1 ? TS_SOLVER_CG : TS_SOLVER_GMRES, &s));
    ts_solver_set_operator(s, A);
    ts_solver_set_preconditioner(s, ts_mg_preconditioner(mg));
    ts_solver_set_tolerances(s, 1e-9, 100);
    ts_solver_set_monitor(s, record, &h);
    TS_CALL(ts_solver_solve(s, b, x));
    res->iterations = ts_solver_iterations(s);
    ts_solver_destroy(&s);
  }
  /* average contraction per V-cycle after the first one */
  res->rate = h.n >= 2 ? pow(h.r[h.n - 1] / h.r[0], 1.0 / (h.n - 1)) : 0.0;
  ts_vec_axpby(1.0, x0, 1.0, x);
  double *host = malloc(n * sizeof *host), h1;
  ts_vec_get_to_host(x, host);
  TS_CALL(ts_compute_errors(dofs, host, u, &res->l2, &h1));
  free(host);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return 0;
}

static void level_independence(ts_backend be, int dim, int k, int first, int last, int method) {
  const char *names[] = {"FMG", "CG + V-cycle", "GMRES + V-cycle"};
  int lo = 1000, hi = 0, failed = 0;
  double rmin = 1.0, rmax = 0.0;
  for (int L = first; L <= last; ++L) {
    result r = {0};
    if (solve(be, dim, k, L, method, TS_DOUBLE, &r)) {
      diag("%s", ts_error_message());
      failed = 1;
      break;
    }
    diag("%dD Q%d %s level %d: %d iterations, rate %.3f, L2 error %.3e", dim, k, names[method], L,
         r.iterations, r.rate, r.l2);
    lo = r.iterations < lo ? r.iterations : lo;
    hi = r.iterations > hi ? r.iterations : hi;
    if (L > first) { /* the rate from the second-coarsest level on */
      rmin = fmin(rmin, r.rate);
      rmax = fmax(rmax, r.rate);
    }
  }
  ok(!failed && hi - lo <= 1 && hi <= (method ? 12 : 10),
     "%dD Q%d %s, levels %d..%d: iterations %d..%d (level independent)", dim, k, names[method],
     first, last, lo, hi);
  if (method == 0)
    ok(!failed && rmax < 0.2 && rmax - rmin < 0.05,
       "%dD Q%d FMG: V-cycle contraction %.3f..%.3f (below 0.2, level independent)", dim, k, rmin, rmax);
}

int main(void) {
  ts_backend be;
  plan(1 + 4 + 3 + 4);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  level_independence(be, 2, 2, 3, 7, 0);
  level_independence(be, 3, 2, 2, 4, 0);
  level_independence(be, 2, 4, 3, 6, 1);
  level_independence(be, 3, 3, 1, 3, 2);
  level_independence(be, 2, 1, 4, 8, 1);

  /* mixed precision: the same final L2 error as double (GMRES + V-cycle and FMG) */
  for (int method = 0; method <= 2; method += 2) {
    for (int k = 1; k <= 3; k += 2) {
      result d = {0}, m = {0};
      int ierr = solve(be, 3, k, k == 1 ? 4 : 3, method, TS_DOUBLE, &d);
      if (!ierr) ierr = solve(be, 3, k, k == 1 ? 4 : 3, method, TS_SINGLE, &m);
      if (ierr) diag("%s", ts_error_message());
      ok(!ierr && fabs(d.l2 - m.l2) <= 1e-3 * d.l2 && d.iterations == m.iterations,
         "3D Q%d %s: L2 error %.6e (double, %d its) and %.6e (mixed, %d its)", k,
         method ? "GMRES + V-cycle" : "FMG", d.l2, d.iterations, m.l2, m.iterations);
    }
  }
  ts_backend_destroy(&be);
  return exit_status();
}
