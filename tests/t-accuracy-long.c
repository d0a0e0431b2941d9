/* t-accuracy-long.c -- the slow cases of issue 19 (doc/accuracy.md, bench/results/
 * 2026-11-25-accuracy-omp.md), run when TESSERA_TEST_LONG is set (a SKIP otherwise; 40 s to
 * a few minutes on 2 cores): u = prod sin(pi x_d) on the unit box (accuracy-solve.h)
 *  - 2D Q6, levels 5..8 (37249 to 2362369 DoFs): the L2 error never grows from one level to
 *    the next (or stays at round-off) and stays below 1e-14 (before: 3.1e-11 on level 8);
 *  - 2D Q3, levels 7..9: the rate 4 down to level 9 (>= 3.9; before: the error grew from
 *    6.2e-12 to 1.3e-11), level 9 at about 3.3e-13;
 *  - 3D Q6, levels 2..5: rates >= 6.95 from level 2 to 4 (before: 6.79 to level 4), level 5
 *    (7189057 DoFs) below 1e-14 (before: 3.6e-13). */
#include <math.h>
#include <stdlib.h>
#include "accuracy-solve.h"
#include "tap.h"

/* The errors of Q_k on levels first..first+count-1 into e; 0 or the first failure. */
static int study(ts_backend be, int dim, int k, int first, int count, double *e) {
  for (int i = 0; i < count; ++i) {
    const int ierr = accuracy_solve(be, dim, k, first + i, &e[i]);
    if (ierr) {
      diag("%dD Q%d level %d: %s", dim, k, first + i, ts_error_message());
      return ierr;
    }
  }
  return 0;
}

int main(void) {
  if (!getenv("TESSERA_TEST_LONG")) {
    plan_skip_all("the long accuracy cases run with TESSERA_TEST_LONG=1");
    return exit_status();
  }
  ts_backend be;
  plan(3 + 3 + 3);
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  double q6[4], q3[3], d3[4];
  int ierr = study(be, 2, 6, 5, 4, q6);
  for (int i = 1; i < 4; ++i)
    ok(!ierr && q6[i] < 1e-14 && (q6[i] <= q6[i - 1] || q6[i] <= ACCURACY_ROUNDOFF),
       "2D Q6 level %d: L2 error %.3e below 1e-14, not above level %d's %.3e", 5 + i, q6[i],
       4 + i, q6[i - 1]);
  ierr = study(be, 2, 3, 7, 3, q3);
  for (int i = 1; i < 3; ++i)
    ok(!ierr && log2(q3[i - 1] / q3[i]) >= 3.9, "2D Q3 level %d: L2 error %.3e, rate %.2f (>= 3.9)",
       7 + i, q3[i], log2(q3[i - 1] / q3[i]));
  ok(!ierr && q3[2] < 4e-13, "2D Q3 level 9: L2 error %.3e (about 3.3e-13, < 4e-13)", q3[2]);
  ierr = study(be, 3, 6, 2, 4, d3);
  for (int i = 1; i < 3; ++i)
    ok(!ierr && log2(d3[i - 1] / d3[i]) >= 6.95, "3D Q6 level %d: L2 error %.3e, rate %.2f (>= 6.95)",
       2 + i, d3[i], log2(d3[i - 1] / d3[i]));
  ok(!ierr && d3[3] < 1e-14, "3D Q6 level 5: L2 error %.3e below 1e-14", d3[3]);
  ts_backend_destroy(&be);
  return exit_status();
}
