/* t-mg-coarse.c -- the coarse solvers of a Q_k hierarchy (ts_mg_options.coarse_solver,
 * doc/multigrid.md "The coarse level"): on coarse levels of 1,681 (2D) and 2,197 (3D) DoFs,
 * full multigrid to 1e-9 takes the same V-cycles and reaches the same L2 error of the
 * manufactured solution "sine" with each exact coarse solve (LU, CG with Jacobi, CG with
 * BoomerAMG, and auto, which picks CG above TS_MG_COARSE_DENSE_DOFS); the LU does no coarse
 * iterations, and BoomerAMG needs at most half of Jacobi's (and at most 20 per solve;
 * measured: 9.2 against 76.2 in 2D, 9.5 against 25.3 in 3D).
 * Refused: an unknown solver, amg on mapped cells, CG for the saddle-point coarse level, a
 * dense coarse level above 16,000 DoFs (8000 on the host backend), and unknown names.  Built
 * without hypre, the amg rows are skipped.  Backend-generic: TESSERA_TEST_BACKEND (default omp). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fmg-solve.h"
#include "tap.h"

#define MAX_AMG_ITERATIONS_PER_SOLVE 20

static const ts_mg_coarse_solver solvers[] = {TS_MG_COARSE_AUTO, TS_MG_COARSE_DENSE,
                                              TS_MG_COARSE_CG_JACOBI, TS_MG_COARSE_CG_AMG};
static const char *const names[] = {"auto", "dense", "cg", "amg"};
#define SOLVERS 4

/* FMG to 1e-9 with no degree levels below the coarse mesh level and the given coarse solver */
static int fmg_run(ts_backend be, int dim, int k, const int *cells, int levels,
                   ts_mg_coarse_solver solver, fmg_result *res) {
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_degree = k;
  o.coarse_solver = solver;
  return fmg_sine_solve(be, dim, k, cells, levels, &o, res);
}

static double per_solve(const fmg_result *r) {
  return r->coarse_solves ? (double)r->coarse_iterations / (double)r->coarse_solves : INFINITY;
}

static void compare(ts_backend be, int dim, int k, const int *cells, int levels) {
  const int amg = ts_hypre_version()[0] != '\0';
  fmg_result r[SOLVERS] = {{0}};
  int failed[SOLVERS] = {0};
  for (int s = 0; s < SOLVERS; ++s) {
    if (solvers[s] == TS_MG_COARSE_CG_AMG && !amg) continue;
    failed[s] = fmg_run(be, dim, k, cells, levels, solvers[s], &r[s]);
    if (failed[s]) diag("coarse solver %s: %s", names[s], ts_error_message());
  }
  const fmg_result *dense = &r[1];
  for (int s = 0; s < SOLVERS; ++s) {
    if (solvers[s] == TS_MG_COARSE_CG_AMG && !amg) {
      skip(1, "built without hypre: no coarse solver amg");
      continue;
    }
    const int same = !failed[s] && !failed[1] && r[s].iterations == dense->iterations &&
                     fabs(r[s].l2 - dense->l2) <= 1e-6 * dense->l2;
    int kind_ok = 0;
    switch (solvers[s]) {
      case TS_MG_COARSE_DENSE: kind_ok = r[s].coarse_iterations == 0; break;
      case TS_MG_COARSE_AUTO: /* above TS_MG_COARSE_DENSE_DOFS: CG */
      case TS_MG_COARSE_CG_JACOBI: kind_ok = r[s].coarse_iterations > 0; break;
      case TS_MG_COARSE_CG_AMG:
        kind_ok = per_solve(&r[s]) <= MAX_AMG_ITERATIONS_PER_SOLVE &&
                  2.0 * per_solve(&r[s]) <= per_solve(&r[2]);
        break;
    }
    ok(same && kind_ok && r[s].coarse_solves > 0,
       "%dD Q%d on %d^%d coarse cells, %d level(s), coarse solver %s: FMG %d V-cycle(s) (LU %d), "
       "L2 error %.6e (LU %.6e), %.1f coarse iterations per solve (%ld solves)",
       dim, k, cells[0], dim, levels, names[s], r[s].iterations, dense->iterations, r[s].l2,
       dense->l2, per_solve(&r[s]), r[s].coarse_solves);
  }
}

/* ts_mg_create* fails with TS_ERR_ARG and a message containing `expected` */
static void refused(int ierr, const char *expected, const char *what) {
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), expected), "refused: %s (%s)", what,
     ierr ? ts_error_message() : "accepted");
}

static void refusals(ts_backend be) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int small[2] = {4, 4}, large[2] = {70, 70};
  ts_mesh box = NULL, big = NULL, sine = NULL;
  ts_fe q2 = NULL;
  ts_mg mg = NULL;
  ts_mg_options o;
  int ierr = ts_mesh_create_box(2, lower, upper, small, 1, &box);
  if (!ierr) ierr = ts_mesh_create_box(2, lower, upper, large, 0, &big);
  if (!ierr) ierr = ts_mesh_create_sine(2, small, 1, 0.05, &sine);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &q2);
  if (ierr) diag("setup: %s", ts_error_message());
  ts_mg_options_default(&o);
  o.coarse_solver = (ts_mg_coarse_solver)9;
  refused(ts_mg_create(be, box, q2, 1, &o, &mg), "coarse solver 9 unknown", "coarse solver 9");
  o.coarse_solver = TS_MG_COARSE_CG_AMG;
  refused(ts_mg_create_mapped(be, sine, q2, 1, NULL, &o, &mg), "needs a box mesh",
          "amg on mapped cells");
  o.coarse_solver = TS_MG_COARSE_CG_JACOBI;
  o.coarse_level = 1;
  refused(ts_mg_create_stokes(be, box, 1, 1, &o, &mg), "allowed auto, dense",
          "cg for the Stokes coarse level");
  o.coarse_level = 0;
  o.coarse_solver = TS_MG_COARSE_DENSE;
  o.coarse_degree = 2;
  refused(ts_mg_create(be, big, q2, 0, &o, &mg), "19881 coarse DoFs, at most",
          "dense coarse level of 19,881 DoFs");
  ts_mg_destroy(&mg);
  ts_fe_destroy(&q2);
  ts_mesh_destroy(&box);
  ts_mesh_destroy(&big);
  ts_mesh_destroy(&sine);
}

static void name_table(void) {
  int all = 1;
  for (int s = 0; s < SOLVERS; ++s) {
    ts_mg_coarse_solver got = (ts_mg_coarse_solver)-1;
    all = all && !ts_mg_coarse_solver_from_name(names[s], &got) && got == solvers[s];
  }
  ok(all, "ts_mg_coarse_solver_from_name knows auto, dense, cg, amg");
  ts_mg_coarse_solver got;
  const int ierr = ts_mg_coarse_solver_from_name("lu", &got);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "'lu' unknown, allowed: auto, dense, cg, amg"),
     "an unknown name is refused: %s", ts_error_message());
  ok(ts_mg_coarse_solver_from_name("amg", NULL) == TS_ERR_ARG, "a NULL result pointer is refused");
}

int main(void) {
  ts_backend be;
  if (ts_backend_open(tap_backend(), &be)) {
    plan(1);
    ok(0, "backend %s opens: %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  plan(2 * SOLVERS + 4 + 3);
  const int cells2[2] = {20, 20}, cells3[3] = {6, 6, 6};
  compare(be, 2, 2, cells2, 2); /* coarse: 41^2 = 1,681 DoFs */
  compare(be, 3, 2, cells3, 1); /* coarse: 13^3 = 2,197 DoFs */
  refusals(be);
  name_table();
  ts_backend_destroy(&be);
  return exit_status();
}
