/* stokes-solve.h -- the manufactured Stokes problem of paper 000 (eq. 11-13) on the unit box
 * refined from one cell, solved by GMRES (restart 30, lib/solve/gmres.c) preconditioned by
 * the Stokes multigrid V-cycle (ts_mg_create_stokes): the shared driver of t-stokes-mg and
 * t-stokes-mg-3d.
 *
 * Fractional iteration count (paper 000, section 3.3): with rbar = (||r_n|| / ||r_0||)^(1/n)
 * the average reduction per step, nu is the number of steps that reduce the residual by
 * 1e-8 at that rate, nu = -8 / log10(rbar) (printed in the paper as -8 log10 rbar; only the
 * quotient gives counts near n, as in Table 1). */
#ifndef TESSERA_TESTS_STOKES_SOLVE_H
#define TESSERA_TESTS_STOKES_SOLVE_H

#include "tessera.h"

typedef struct stokes_case {
  int dim, degree, level;          /* k of RT_k x DGQ_k, finest mesh level */
  ts_stokes_patch_solver solver;
  ts_precision precision;          /* of the V-cycle */
  double rtol;                     /* of GMRES */
  ts_side side;                    /* of GMRES's preconditioner (0: right) */
  double cg_tolerance;             /* of the Schur solver's patch CG (0: the default) */
} stokes_case;

typedef struct stokes_result {
  int iterations;
  double relative_residual, nu;    /* final ||r_n|| / ||r_0||, fractional count */
  double velocity_l2, pressure_l2; /* after the pressure mean is removed */
} stokes_result;

/** Solve the case with coarse level 1 (paper 000's T_0: 2^dim cells). */
int stokes_solve(ts_backend be, const stokes_case *c, stokes_result *res);

/** Solve the Schur-complement case (dim, k) on mesh levels level and level+1 to 1e-10 and
 *  give the L2 orders log2(e_level / e_level+1) of velocity and pressure (Figure 5). */
int stokes_convergence(ts_backend be, int dim, int k, int level, stokes_result r[2],
                       double *velocity_order, double *pressure_order);

#endif
