/* fmg.c -- full multigrid (paper 002, Algorithm 2.2): the right side is restricted down the
 * hierarchy (for nested spaces R b_l = (f, phi_i^{l-1}), the coarse right side), the coarse
 * problem is solved exactly, each finer level starts from the prolongated coarser solution
 * and takes one V-cycle; then V-cycles on the finest level repeat while
 * ||b - A x|| > rtol ||b||, at least once (line 5 of the algorithm sets delta = ||b||).  The iteration count is the number of those repetitions.
 * The residual and the update of x are in double; under mixed precision the V-cycles run
 * in single precision on the residual (x <- x + VCYCLE(A, 0, r), which equals the V-cycle
 * from x for the linear smoothers used here).
 *
 * Under mixed precision the nested iteration takes the same form on every level: the right
 * sides are restricted, the iterates prolongated and the residuals computed in double (the
 * level's double Laplacian), and only the V-cycle on the residual runs in single.  An
 * iterate stored in single would carry rounding noise of relative size 2^-24 at every DoF,
 * whose residual grows as k^4 / h^2 (about 1e-3 of ||b|| for Q7 at 5e8 DoF); the V-cycles
 * of the finer levels reduce noise from the level below only by their contraction each, so
 * the float nested iteration left the finest residual far above the double one and FMG
 * needed 3 V-cycles where double needs 1.  In correction form the noise is relative to the
 * correction, not to the solution.
 *
 * The residual is the true one in double; it cannot fall below the floor rounding sets
 * (about eps ||A|| ||x||, doc/accuracy.md).  When three V-cycles together have not reduced
 * it by a tenth the solve stops with TS_ERR_NOT_CONVERGED naming the attainable residual
 * (ts_error_unreachable) instead of cycling to max_iterations.  (Halving was the rule once:
 * it stopped converging cycles that contract by 0.8 a cycle, as the Chebyshev V-cycle does
 * on Kershaw's meshes, long before the floor.) */
#include <math.h>
#include "mg-impl.h"

static int residual(ts_mg mg, ts_vec b, ts_vec x, double *norm) {
  TS_CALL(ts_operator_apply(mg->A, x, mg->r));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, mg->r));
  TS_CALL(ts_vec_norm(mg->r, norm));
  return 0;
}

/* lines 1-4: nested iteration from the coarsest level up to the finest */
static int nested_iteration(ts_mg mg, ts_vec b, ts_vec x) {
  const int top = mg->n_levels - 1;
  TS_CALL(ts_vec_copy(b, mg->levels[top].b));
  for (int i = top; i > 0; --i) {
    ts_mg_level *l = &mg->levels[i];
    const double t0 = ts_wtime();
    TS_CALL(ts_mg_transfer(mg, i, 1, l->b, mg->levels[i - 1].b, 0));
    l->timing.transfer_seconds += ts_wtime() - t0;
  }
  TS_CALL(ts_mg_coarse_solve(mg, mg->levels[0].b, mg->levels[0].x));
  for (int i = 1; i <= top; ++i) {
    ts_mg_level *l = &mg->levels[i];
    const double t0 = ts_wtime();
    TS_CALL(ts_mg_transfer(mg, i, 0, mg->levels[i - 1].x, l->x, 0));
    l->timing.transfer_seconds += ts_wtime() - t0;
    TS_CALL(ts_mg_vcycle(mg, i));
  }
  TS_CALL(ts_vec_copy(mg->levels[top].x, x));
  return 0;
}

/* the same under mixed precision, in double with single-precision V-cycles on the residual:
 * x_i = P x_{i-1}, x_i += VCYCLE_i(0, b_i - A_i x_i) */
static int nested_iteration_mixed(ts_mg mg, ts_vec b, ts_vec x) {
  const int top = mg->n_levels - 1;
  for (int i = top; i > 0; --i) {
    ts_mg_level *l = &mg->levels[i];
    const double t0 = ts_wtime();
    TS_CALL(ts_mg_transfer(mg, i, 1, i == top ? b : l->bd, mg->levels[i - 1].bd, 0));
    l->timing.transfer_seconds += ts_wtime() - t0;
  }
  TS_CALL(ts_mg_coarse_solve(mg, mg->levels[0].bd, mg->levels[0].xd));
  for (int i = 1; i <= top; ++i) {
    ts_mg_level *l = &mg->levels[i];
    ts_vec bi = i == top ? b : l->bd, xi = i == top ? x : l->xd, ri = i == top ? mg->r : l->rd;
    ts_operator Ai = i == top ? mg->A : l->Ad;
    double t0 = ts_wtime();
    TS_CALL(ts_mg_transfer(mg, i, 0, mg->levels[i - 1].xd, xi, 0));
    l->timing.transfer_seconds += ts_wtime() - t0;
    t0 = ts_wtime();
    TS_CALL(ts_operator_apply(Ai, xi, ri));
    TS_CALL(ts_vec_axpby(1.0, bi, -1.0, ri));
    TS_CALL(ts_vec_copy(ri, l->b));
    TS_CALL(ts_vec_set(l->x, 0.0));
    l->timing.residual_seconds += ts_wtime() - t0;
    TS_CALL(ts_mg_vcycle(mg, i));
    TS_CALL(ts_vec_copy(l->x, ri));
    TS_CALL(ts_vec_axpby(1.0, ri, 1.0, xi));
  }
  return 0;
}

int ts_mg_fmg_solve(ts_mg mg, ts_vec b, ts_vec x, double rtol, int max_iterations,
                    int *iterations, double *relative_residual) {
  TS_CHECK_ARG(mg, "ts_mg_fmg_solve: multigrid object is NULL");
  TS_CHECK_ARG(rtol > 0.0 && rtol < 1.0, "full multigrid: rtol = %g, allowed 0 < rtol < 1", rtol);
  TS_CHECK_ARG(max_iterations >= 0, "full multigrid: max_iterations = %d, need at least 0",
               max_iterations);
  TS_CALL(ts_operator_check_vectors(mg->A, b, x));
  if (iterations) *iterations = 0;
  if (relative_residual) *relative_residual = 0.0;
  double bnorm, rnorm;
  TS_CALL(ts_vec_norm(b, &bnorm));
  if (bnorm == 0.0) {
    TS_CALL(ts_vec_set(x, 0.0));
    return 0;
  }
  if (mg->options.precision == TS_DOUBLE) TS_CALL(nested_iteration(mg, b, x));
  else TS_CALL(nested_iteration_mixed(mg, b, x));
  TS_CALL(residual(mg, b, x, &rnorm));
  ts_mg_level *top = &mg->levels[mg->n_levels - 1];
  int it = 0;
  /* the residuals 3, 2 and 1 V-cycles back, and the least one */
  double back[3] = {INFINITY, INFINITY, rnorm}, best = rnorm;
  /* Algorithm 2.2 sets delta = ||b|| before the loop (line 5), so the loop runs at least once */
  for (; it == 0 || rnorm > rtol * bnorm; ++it) {
    if (relative_residual) *relative_residual = rnorm / bnorm;
    if (!isfinite(rnorm))
      return TS_ERROR(TS_ERR_NAN, "full multigrid: the residual is %g after %d V-cycles", rnorm, it);
    if (it == max_iterations)
      return TS_ERROR(TS_ERR_NOT_CONVERGED, "full multigrid did not converge in %d V-cycles: "
                      "relative residual %.3e, asked for %.3e", max_iterations, rnorm / bnorm, rtol);
    TS_CALL(ts_vec_copy(mg->r, top->b));       /* to the V-cycle precision */
    TS_CALL(ts_vec_set(top->x, 0.0));
    TS_CALL(ts_mg_vcycle(mg, mg->n_levels - 1));
    TS_CALL(ts_vec_copy(top->x, mg->e));       /* back to double */
    TS_CALL(ts_vec_axpby(1.0, mg->e, 1.0, x));
    TS_CALL(residual(mg, b, x, &rnorm));
    if (iterations) *iterations = it + 1;
    if (mg->monitor && mg->monitor(mg->monitor_ctx, it + 1, rnorm / bnorm))
      return TS_ERROR(TS_ERR_ARG, "full multigrid stopped by the monitor at iteration %d", it + 1);
    /* three V-cycles that together did not reduce the residual by a tenth: the floor rounding
     * sets for the residual (of the double operator and of x) is reached */
    best = fmin(best, rnorm);
    if (rnorm > rtol * bnorm && rnorm > 0.9 * back[0]) {
      if (relative_residual) *relative_residual = rnorm / bnorm;
      return ts_error_unreachable("full multigrid", it + 1, rtol, best / bnorm);
    }
    back[0] = back[1];
    back[1] = back[2];
    back[2] = rnorm;
  }
  if (iterations) *iterations = it;
  if (relative_residual) *relative_residual = rnorm / bnorm;
  return 0;
}
