/* cg-count.h -- CG's iteration count on A x = 1 (A an assembled matrix applied on the backend,
 * x = 0 first, relative tolerance 1e-10, at most 500 iterations) with the preconditioner P,
 * for the tests that compare algebraic multigrids (t-amg, t-hdiv-schur).  Static inline:
 * include it in one test program per executable. */
#ifndef TESSERA_TESTS_CG_COUNT_H
#define TESSERA_TESTS_CG_COUNT_H

#include "tessera.h"
#include "tap.h"

/* the iterations, or -1 (the error is printed as a diagnostic) */
static inline int cg_count(ts_backend b, ts_matrix M, ts_operator P) {
  ts_operator A = NULL;
  ts_solver cg = NULL;
  ts_vec rhs = NULL, x = NULL;
  const int64_t n = ts_matrix_rows(M);
  int ierr = ts_operator_create_matrix(b, M, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &rhs);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_set(rhs, 1.0);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_CG, &cg);
  if (!ierr) ierr = ts_solver_set_operator(cg, A);
  if (!ierr) ierr = ts_solver_set_preconditioner(cg, P);
  if (!ierr) ierr = ts_solver_set_tolerances(cg, 1e-10, 500);
  if (!ierr) ierr = ts_solver_solve(cg, rhs, x);
  const int iterations = ierr ? -1 : ts_solver_iterations(cg);
  if (ierr) diag("%s", ts_error_message());
  ts_solver_destroy(&cg);
  ts_vec_destroy(&rhs);
  ts_vec_destroy(&x);
  ts_operator_destroy(&A);
  return iterations;
}

#endif
