/* accuracy-solve.h -- the Poisson problem of issue 19 and doc/accuracy.md: u = prod sin(pi
 * x_d) on the unit box refined from one cell, Q_k, CG preconditioned by one V-cycle of the
 * vertex-patch multigrid, asked for rtol = 1e-15.  That is below the floor rounding sets
 * for the true residual on these levels, so CG ends at its most accurate iterate with
 * TS_ERR_NOT_CONVERGED naming the attainable residual; the error is measured there.  The
 * shared driver of t-accuracy and t-accuracy-long. */
#ifndef TESSERA_TESTS_ACCURACY_SOLVE_H
#define TESSERA_TESTS_ACCURACY_SOLVE_H

#include "tessera.h"

/** The L2 error of the solution on mesh level `level` of the dim-dimensional unit box with
 *  Q_k; 0 or the error of a failure other than the unreachable tolerance. */
int accuracy_solve(ts_backend be, int dim, int k, int level, double *l2);

/** The measured error of a solution that is exact to round-off: the error integral of the
 *  rounded solution values themselves (about eps |u|).  Below it a floor cannot grow. */
#define ACCURACY_ROUNDOFF 2e-16

#endif
