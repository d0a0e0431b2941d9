/* t-stokes-mg-3d.c -- the Stokes multigrid V-cycle as the preconditioner of GMRES (restart
 * 30) in 3D on the manufactured problem of paper 000 (eq. 12-13; driver: stokes-solve.c):
 *  (b) Figure 4: at most 3 GMRES steps for RT_3 (mesh level 2; level 3 takes some 30 s
 *      here, beyond a unit test), and, as the affordable check of level independence, the
 *      fractional counts of RT_1 and RT_2 on mesh levels 2 and 3 agree within 0.5;
 *  (c) Figure 5: L2 errors of velocity and pressure decrease with order >= k+1 - 0.3 for
 *      RT_1 and RT_2 between mesh levels 2 and 3 (RT_3 needs level 3 too: not affordable). */
#include <math.h>
#include "stokes-solve.h"
#include "tap.h"
#include "tessera-impl.h"

/* Figure 4: at most 3 GMRES steps to 1e-8 for RT_3 */
static void figure4_steps(ts_backend be, int level) {
  const stokes_case c = {3, 3, level, TS_STOKES_PATCH_SCHUR, TS_DOUBLE, 1e-8};
  stokes_result r = {0};
  const int ierr = stokes_solve(be, &c, &r);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && r.iterations <= 3, "Figure 4, 3D RT_3, mesh level %d: %d GMRES steps (nu = %.2f), "
     "at most 3", level, r.iterations, r.nu);
}

/* Figure 4: nu on two consecutive levels within 0.5 (level independence) */
static void figure4_level_independence(ts_backend be, int k, int level) {
  stokes_result r[2] = {{0}};
  int ierr = 0;
  for (int i = 0; i < 2 && !ierr; ++i) {
    const stokes_case c = {3, k, level + i, TS_STOKES_PATCH_SCHUR, TS_DOUBLE, 1e-8};
    ierr = stokes_solve(be, &c, &r[i]);
  }
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && fabs(r[1].nu - r[0].nu) <= 0.5,
     "Figure 4, 3D RT_%d: nu = %.2f (mesh level %d) and %.2f (level %d), level independent "
     "within 0.5", k, r[0].nu, level, r[1].nu, level + 1);
}

/* Figure 5: L2 orders of velocity and pressure between two levels, >= k+1 - 0.3 */
static void convergence(ts_backend be, int dim, int k, int level) {
  stokes_result r[2] = {{0}};
  double ou = 0.0, op = 0.0;
  const int ierr = stokes_convergence(be, dim, k, level, r, &ou, &op);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && ou >= k + 1 - 0.3 && op >= k + 1 - 0.3,
     "Figure 5, %dD RT_%d, levels %d-%d: L2 errors u %.3e -> %.3e (order %.2f), p %.3e -> %.3e "
     "(order %.2f), need >= %.1f", dim, k, level, level + 1, r[0].velocity_l2, r[1].velocity_l2,
     ou, r[0].pressure_l2, r[1].pressure_l2, op, k + 1 - 0.3);
}

int main(void) {
  ts_backend be;
  plan(1 + 1 + 2 + 2);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  figure4_steps(be, 2);
  for (int k = 1; k <= 2; ++k) figure4_level_independence(be, k, 2);
  for (int k = 1; k <= 2; ++k) convergence(be, 3, k, 2);
  ts_backend_destroy(&be);
  return exit_status();
}
