/* fmg-solve.h -- full multigrid on the Poisson problem with the manufactured solution "sine"
 * (ts_solution_by_name), Q_k on the unit box: the shared driver of t-mg-pcoarse and
 * t-mg-coarse, which compare hierarchies built with different options. */
#ifndef TESSERA_TESTS_FMG_SOLVE_H
#define TESSERA_TESTS_FMG_SOLVE_H

#include "tessera.h"

typedef struct fmg_result {
  int iterations;               /* FMG iterations to rtol 1e-9 */
  int lowest, lowest_degree;    /* the coarsest level of the hierarchy and its degree */
  long coarse_solves, coarse_iterations; /* its timing: solves and CG iterations */
  double l2;                    /* the L2 error against "sine" */
} fmg_result;

/** FMG to 1e-9 with the options o on `cells` coarse cells refined `levels` times. */
int fmg_sine_solve(ts_backend be, int dim, int k, const int *cells, int levels,
                   const ts_mg_options *o, fmg_result *res);

#endif
