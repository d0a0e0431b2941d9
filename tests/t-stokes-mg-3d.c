/* t-stokes-mg-3d.c -- the Stokes multigrid V-cycle as the preconditioner of GMRES (restart
 * 30) in 3D on the manufactured problem of paper 000 (eq. 12-13; driver: stokes-solve.c):
 *  (b) Figure 4, with the solver of Table 1 (GMRES preconditioned from the left, the
 *      Schur solver's patch CG to 1e-8: t-stokes-mg.c says why): at most 3 GMRES steps to
 *      1e-8 for RT_3 on mesh levels 2 and 3, and the fractional counts level independent
 *      within 0.5 between two levels for RT_1 (mesh levels 3, 4), RT_2 (3, 4) and RT_3
 *      (2, 3).  Between mesh levels 2 and 3, RT_1 and RT_2 still grow (4.95 -> 6.35,
 *      3.19 -> 3.70: 2x2x2 coarse cells, pre-asymptotic); from level 3 on they settle
 *      (6.35 -> 6.68, 3.70 -> 3.93; doc/stokes.md section 9).
 *  (c) Figure 5: L2 errors of velocity and pressure decrease with order >= k+1 - 0.3 for
 *      RT_1, RT_2 and RT_3 between mesh levels 2 and 3 (right-preconditioned GMRES to
 *      1e-10 with the default, inexact patch CG).
 * The RT_1 and RT_2 cases of (b), on mesh level 4, are long (minutes on 2 cores): they run
 * with TESSERA_TEST_LONG=1 (make check-long). */
#include <math.h>
#include "stokes-solve.h"
#include "tap.h"
#include "tessera-impl.h"

/* The solver of Table 1 and Figure 4 on mesh level `level`, to 1e-8. */
static int figure4_solve(ts_backend be, int k, int level, stokes_result *r) {
  const stokes_case c = {.dim = 3, .degree = k, .level = level, .solver = TS_STOKES_PATCH_SCHUR,
                         .precision = TS_DOUBLE, .rtol = 1e-8, .side = TS_SIDE_LEFT,
                         .cg_tolerance = 1e-8};
  const int ierr = stokes_solve(be, &c, r);
  if (ierr) diag("%s", ts_error_message());
  return ierr;
}

/* Figure 4: nu on mesh levels level and level+1 within 0.5; with max_steps > 0 also at most
 * that many GMRES steps on both */
static void figure4_levels(ts_backend be, int k, int level, int max_steps) {
  stokes_result r[2] = {{0}};
  const int ierr = figure4_solve(be, k, level, &r[0]) || figure4_solve(be, k, level + 1, &r[1]);
  ok(!ierr && fabs(r[1].nu - r[0].nu) <= 0.5,
     "Figure 4, 3D RT_%d: nu = %.2f (mesh level %d) and %.2f (level %d), level independent "
     "within 0.5", k, r[0].nu, level, r[1].nu, level + 1);
  if (max_steps > 0)
    ok(!ierr && r[0].iterations <= max_steps && r[1].iterations <= max_steps,
       "Figure 4, 3D RT_%d: %d and %d GMRES steps on mesh levels %d and %d, at most %d", k,
       r[0].iterations, r[1].iterations, level, level + 1, max_steps);
}

/* Figure 5: L2 orders between mesh levels level and level+1, >= k+1 - 0.3 */
static void figure5_orders(ts_backend be, int k, int level) {
  stokes_result r[2] = {{0}};
  double ou = 0.0, op = 0.0;
  const int ierr = stokes_convergence(be, 3, k, level, r, &ou, &op);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && ou >= k + 1 - 0.3 && op >= k + 1 - 0.3,
     "Figure 5, 3D RT_%d, levels %d-%d: L2 errors u %.3e -> %.3e (order %.2f), p %.3e -> %.3e "
     "(order %.2f), need >= %.1f", k, level, level + 1, r[0].velocity_l2, r[1].velocity_l2, ou,
     r[0].pressure_l2, r[1].pressure_l2, op, k + 1 - 0.3);
}

int main(void) {
  ts_backend be;
  plan(1 + 2 + 3 + (tap_long() ? 2 : 0));
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  figure4_levels(be, 3, 2, 3);
  if (tap_long()) {
    figure4_levels(be, 1, 3, 0);
    figure4_levels(be, 2, 3, 0);
  }
  for (int k = 1; k <= 3; ++k) figure5_orders(be, k, 2);
  ts_backend_destroy(&be);
  return exit_status();
}
