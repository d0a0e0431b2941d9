/* cg.c -- preconditioned conjugate gradients (Hestenes-Stiefel), for symmetric positive
 * definite A and P.  Stops when ||b - A x|| <= rtol ||b||.
 *
 * The residual r the iteration updates (r -= alpha A p) keeps falling geometrically after
 * the true residual b - A x has reached the floor set by rounding (about eps ||A|| ||x||),
 * so when r claims convergence the true residual is computed.  If it is above the
 * tolerance the two have parted: r is replaced by the true residual and the iteration
 * restarts from it (steepest descent direction); if the next claim finds the true residual
 * not at least halved, the tolerance is out of reach and the solve stops, naming the
 * attainable residual (ts_solver_unreachable) instead of iterating to the limit. */
#include <math.h>
#include "solver-impl.h"

/* r = b - A x and its norm */
static int true_residual(ts_solver s, ts_vec b, ts_vec x, ts_vec r, double *rnorm) {
  TS_CALL(ts_operator_apply(s->A, x, r));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, r));
  TS_CALL(ts_vec_norm(r, rnorm));
  return 0;
}

/* z = P r, p = z, rz = r.z: the start of the iteration from the residual r */
static int start_directions(ts_solver s, ts_vec r, ts_vec z, ts_vec p, double *rz) {
  TS_CALL(ts_solver_precondition(s, r, z));
  TS_CALL(ts_vec_copy(z, p));
  TS_CALL(ts_vec_dot(r, z, rz));
  return 0;
}

int ts_cg_solve(ts_solver s, ts_vec b, ts_vec x) {
  double bnorm, rnorm, rz, rz_old, pq;
  TS_CALL(ts_solver_work(s, b, 4));
  ts_vec r = s->work[0], z = s->work[1], p = s->work[2], q = s->work[3];

  TS_CALL(ts_vec_norm(b, &bnorm));
  if (bnorm == 0.0) { /* the solution of A x = 0 is x = 0 */
    TS_CALL(ts_vec_set(x, 0.0));
    TS_CALL(ts_solver_record(s, 0, 0.0));
    return 0;
  }
  TS_CALL(true_residual(s, b, x, r, &rnorm));
  TS_CALL(ts_solver_record(s, 0, rnorm / bnorm));
  if (rnorm <= s->rtol * bnorm) return 0;
  TS_CALL(start_directions(s, r, z, p, &rz));
  ts_claim claim = ts_claim_start(s, bnorm);

  for (int it = 1; it <= s->max_iterations; ++it) {
    if (!(rz > 0.0))
      return TS_ERROR(isfinite(rz) ? TS_ERR_BREAKDOWN : TS_ERR_NAN,
                      "CG breakdown at iteration %d: r.Pr = %g, the preconditioner is not "
                      "positive definite", it, rz);
    TS_CALL(ts_operator_apply(s->A, p, q));
    TS_CALL(ts_vec_dot(p, q, &pq));
    if (!(pq > 0.0))
      return TS_ERROR(isfinite(pq) ? TS_ERR_BREAKDOWN : TS_ERR_NAN,
                      "CG breakdown at iteration %d: p.Ap = %g, the operator is not positive "
                      "definite", it, pq);
    const double alpha = rz / pq;
    TS_CALL(ts_vec_axpby(alpha, p, 1.0, x));
    TS_CALL(ts_vec_axpby(-alpha, q, 1.0, r));
    TS_CALL(ts_vec_norm(r, &rnorm));
    TS_CALL(ts_solver_record(s, it, rnorm / bnorm));
    if (rnorm <= claim.level) { /* claimed: confirm with the true residual */
      int converged;
      TS_CALL(true_residual(s, b, x, r, &rnorm));
      TS_CALL(ts_solver_confirm(s, it, rnorm, &claim, &converged));
      if (converged) return 0;
      TS_CALL(start_directions(s, r, z, p, &rz));
      continue;
    }
    TS_CALL(ts_solver_precondition(s, r, z));
    rz_old = rz;
    TS_CALL(ts_vec_dot(r, z, &rz));
    TS_CALL(ts_vec_axpby(1.0, z, rz / rz_old, p)); /* p = z + beta p */
  }
  TS_CALL(true_residual(s, b, x, r, &rnorm)); /* the verdict names the true residual */
  TS_CALL(ts_solver_record_true(s, s->max_iterations, rnorm / bnorm));
  return TS_ERROR(TS_ERR_NOT_CONVERGED,
                  "CG did not converge in %d iterations: relative residual %.3e, asked for %.3e",
                  s->max_iterations, rnorm / bnorm, s->rtol);
}
