/* minres.c -- preconditioned MINRES (Paige and Saunders 1975) for a symmetric, possibly
 * indefinite A (saddle-point systems, paper 003) with a symmetric positive definite P.
 * The preconditioned Lanczos process builds v_j (unscaled) and z_j = P v_j / gamma_j with
 * gamma_j = sqrt(v_j . P v_j); Givens rotations turn its tridiagonal matrix into an upper
 * one, and x is updated along directions w_j by a three-term recurrence, so the iteration
 * keeps 7 vectors whatever its length (the form of Elman, Silvester and Wathen, "Finite
 * Elements and Fast Iterative Solvers", Algorithm 4.1).  MINRES minimizes the residual in
 * the norm ||r||_P = sqrt(r . P r) over x0 + K_j(P A, P r0); |eta| is that norm, updated
 * without forming r, and the solve stops when ||r||_P <= rtol ||r0||_P.
 *
 * As in CG (cg.c), the updated |eta| keeps falling after the true residual has reached the
 * floor rounding sets, so a claim of convergence is confirmed with r = b - A x
 * (ts_solver_confirm): if the true norm is above the tolerance the recurrence restarts from
 * it, and a second claim that has not halved it ends the solve with the attainable residual. */
#include <math.h>
#include "solver-impl.h"

/* The Lanczos and rotation scalars of the current step j (paper: gamma_j, c_j, s_j), the
 * previous step's, and eta = +-||r_j||_P. */
typedef struct minres_scalars {
  double gamma, gamma_prev, c, c_prev, s, s_prev, eta;
} minres_scalars;

/* z = P v and ||v||_P = sqrt(v . z); a breakdown if P is not positive definite */
static int p_norm(ts_solver s, ts_vec v, ts_vec z, int it, double *norm) {
  double vz;
  TS_CALL(ts_solver_precondition(s, v, z));
  TS_CALL(ts_vec_dot(v, z, &vz));
  if (!(vz >= 0.0))
    return TS_ERROR(isfinite(vz) ? TS_ERR_BREAKDOWN : TS_ERR_NAN,
                    "MINRES breakdown at iteration %d: v.Pv = %g, the preconditioner is not "
                    "positive definite", it, vz);
  *norm = sqrt(vz);
  return 0;
}

/* v = b - A x, z = P v and ||v||_P */
static int residual_p_norm(ts_solver s, ts_vec b, ts_vec x, ts_vec v, ts_vec z, int it,
                           double *norm) {
  TS_CALL(ts_operator_apply(s->A, x, v));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, v));
  return p_norm(s, v, z, it, norm);
}

/* The start of the recurrence from v_1 = r (unscaled) with ||r||_P = gamma. */
static int restart(ts_vec v_prev, ts_vec w_prev, ts_vec w, double gamma, minres_scalars *k) {
  TS_CALL(ts_vec_set(v_prev, 0.0));
  TS_CALL(ts_vec_set(w_prev, 0.0));
  TS_CALL(ts_vec_set(w, 0.0));
  *k = (minres_scalars){.gamma = gamma, .gamma_prev = 1.0, .c = 1.0, .c_prev = 1.0, .eta = gamma};
  return 0;
}

static void swap(ts_vec *a, ts_vec *b) {
  ts_vec t = *a;
  *a = *b;
  *b = t;
}

int ts_minres_solve(ts_solver s, ts_vec b, ts_vec x) {
  double bnorm, r0;
  TS_CALL(ts_solver_work(s, b, 7));
  ts_vec v_prev = s->work[0], v = s->work[1], z = s->work[2], z_next = s->work[3];
  ts_vec q = s->work[4], w_prev = s->work[5], w = s->work[6];

  TS_CALL(ts_vec_norm(b, &bnorm));
  if (bnorm == 0.0) { /* the solution of A x = 0 is x = 0 */
    TS_CALL(ts_vec_set(x, 0.0));
    TS_CALL(ts_solver_record(s, 0, 0.0));
    return 0;
  }
  TS_CALL(residual_p_norm(s, b, x, v, z, 0, &r0));
  if (r0 == 0.0) return ts_solver_record(s, 0, 0.0);
  TS_CALL(ts_solver_record(s, 0, 1.0));
  minres_scalars k;
  TS_CALL(restart(v_prev, w_prev, w, r0, &k));
  ts_claim claim = ts_claim_start(s, r0);

  for (int it = 1; it <= s->max_iterations; ++it) {
    double delta, gamma_next = 0.0;
    TS_CALL(ts_vec_axpby(0.0, z, 1.0 / k.gamma, z)); /* z_j = P v_j / gamma_j */
    TS_CALL(ts_operator_apply(s->A, z, q));
    TS_CALL(ts_vec_dot(q, z, &delta));
    /* v_{j+1} = A z_j - (delta_j / gamma_j) v_j - (gamma_j / gamma_{j-1}) v_{j-1} */
    TS_CALL(ts_vec_axpby(-delta / k.gamma, v, 1.0, q));
    TS_CALL(ts_vec_axpby(-k.gamma / k.gamma_prev, v_prev, 1.0, q));
    swap(&v_prev, &v); /* v_prev = v_j, v = v_{j+1}, q free */
    swap(&v, &q);
    TS_CALL(p_norm(s, v, z_next, it, &gamma_next));
    /* the new column of the tridiagonal matrix, rotated by the two previous rotations */
    const double a0 = k.c * delta - k.c_prev * k.s * k.gamma;
    const double a1 = hypot(a0, gamma_next);
    const double a2 = k.s * delta + k.c_prev * k.c * k.gamma;
    const double a3 = k.s_prev * k.gamma;
    if (!(a1 > 0.0))
      return TS_ERROR(isfinite(a1) ? TS_ERR_BREAKDOWN : TS_ERR_NAN,
                      "MINRES breakdown at iteration %d: the Lanczos matrix is singular (A is "
                      "singular on the Krylov space)", it);
    const double c_next = a0 / a1, s_next = gamma_next / a1;
    /* w_{j+1} = (z_j - a3 w_{j-1} - a2 w_j) / a1, in the place of w_{j-1} */
    TS_CALL(ts_vec_axpby(1.0 / a1, z, -a3 / a1, w_prev));
    TS_CALL(ts_vec_axpby(-a2 / a1, w, 1.0, w_prev));
    swap(&w_prev, &w);
    TS_CALL(ts_vec_axpby(c_next * k.eta, w, 1.0, x));
    k = (minres_scalars){.gamma = gamma_next, .gamma_prev = k.gamma, .c = c_next,
                         .c_prev = k.c, .s = s_next, .s_prev = k.s, .eta = -s_next * k.eta};
    swap(&z, &z_next);
    TS_CALL(ts_solver_record(s, it, fabs(k.eta) / r0));
    if (fabs(k.eta) > claim.level && gamma_next > 0.0) continue;
    /* claimed (or the Krylov space is invariant): confirm with the true residual */
    double rnorm;
    int converged;
    TS_CALL(residual_p_norm(s, b, x, v, z, it, &rnorm));
    TS_CALL(ts_solver_confirm(s, it, rnorm, &claim, &converged));
    if (converged) return 0;
    TS_CALL(restart(v_prev, w_prev, w, rnorm, &k));
  }
  double rnorm;
  TS_CALL(residual_p_norm(s, b, x, v, z, s->max_iterations, &rnorm));
  TS_CALL(ts_solver_record_true(s, s->max_iterations, rnorm / r0));
  return TS_ERROR(TS_ERR_NOT_CONVERGED,
                  "MINRES did not converge in %d iterations: relative residual ||r||_P / "
                  "||r0||_P %.3e, asked for %.3e", s->max_iterations, rnorm / r0, s->rtol);
}
