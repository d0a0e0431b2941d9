/* gmres.c -- restarted GMRES(m), Arnoldi by modified Gram-Schmidt, least squares by Givens
 * rotations, with the preconditioner on either side (ts_side):
 *  - right (default): minimizes ||b - A x|| over x0 + P K_m(A P, r0); the residual the
 *    iteration reports is the true one, relative to ||b||.  With a preconditioner the
 *    vectors z_j = P v_j are kept and the update is x += Z y (the flexible form, FGMRES):
 *    identical for a linear P, and exact for a P that is linear only up to rounding, such as
 *    a single-precision multigrid V-cycle, whose re-application to V y would otherwise limit
 *    each restart cycle to single-precision accuracy.
 *  - left: minimizes ||P (b - A x)|| over x0 + K_m(P A, P r0) (deal.II's and PETSc's
 *    default); the residual reported is the preconditioned one, relative to ||P r0||, and
 *    the update is x += V y.
 * The residual of the iteration is the Arnoldi estimate |g_{j+1}|; the true one is computed
 * at each restart, and a cycle ends early when the estimate claims convergence.  The
 * estimate keeps falling below the floor that rounding sets for the true residual (about
 * eps ||A|| ||x||); a cycle that claimed convergence without halving the true residual
 * ends the solve with the attainable residual named (ts_solver_unreachable), instead of
 * short cycles up to the iteration limit. */
#include <math.h>
#include <stdlib.h>
#include "solver-impl.h"

typedef struct gmres_workspace {
  int m;
  double *h;   /* (m+1) x m Hessenberg matrix, column-major: h[j*(m+1) + i] */
  double *cs, *sn, *g, *y;
} gmres_workspace;

static void workspace_free(gmres_workspace *w) {
  ts_free(&w->h);
  ts_free(&w->cs);
  ts_free(&w->sn);
  ts_free(&w->g);
  ts_free(&w->y);
}

static int workspace_init(gmres_workspace *w, int m) {
  w->m = m;
  int ierr = ts_calloc((size_t)(m + 1) * m, sizeof(double), "GMRES Hessenberg matrix", &w->h);
  if (!ierr) ierr = ts_calloc((size_t)m, sizeof(double), "GMRES rotations", &w->cs);
  if (!ierr) ierr = ts_calloc((size_t)m, sizeof(double), "GMRES rotations", &w->sn);
  if (!ierr) ierr = ts_calloc((size_t)m + 1, sizeof(double), "GMRES right side", &w->g);
  if (!ierr) ierr = ts_calloc((size_t)m, sizeof(double), "GMRES coefficients", &w->y);
  return ierr;
}

/* Apply the previous rotations to column j of H, then make the rotation that zeroes
 * H(j+1,j) and apply it to H and g. */
static void givens_update(gmres_workspace *w, int j) {
  double *col = w->h + (size_t)j * (w->m + 1);
  for (int i = 0; i < j; ++i) {
    const double t = w->cs[i] * col[i] + w->sn[i] * col[i + 1];
    col[i + 1] = -w->sn[i] * col[i] + w->cs[i] * col[i + 1];
    col[i] = t;
  }
  const double r = hypot(col[j], col[j + 1]);
  w->cs[j] = r > 0.0 ? col[j] / r : 1.0;
  w->sn[j] = r > 0.0 ? col[j + 1] / r : 0.0;
  col[j] = r;
  col[j + 1] = 0.0;
  w->g[j + 1] = -w->sn[j] * w->g[j];
  w->g[j] = w->cs[j] * w->g[j];
}

/* x += P V y (right), Z y (right, the z_j = P v_j kept) or V y (left), y from R y = g. */
static int update_solution(ts_solver s, gmres_workspace *w, int k, ts_vec *v, ts_vec *z, ts_vec t,
                           ts_vec pt, ts_vec x) {
  for (int i = k - 1; i >= 0; --i) {
    double sum = w->g[i];
    for (int j = i + 1; j < k; ++j) sum -= w->h[(size_t)j * (w->m + 1) + i] * w->y[j];
    const double diag = w->h[(size_t)i * (w->m + 1) + i];
    if (diag == 0.0)
      return TS_ERROR(TS_ERR_BREAKDOWN, "GMRES breakdown: the Hessenberg matrix is singular at "
                      "column %d (A P is singular on the Krylov space)", i);
    w->y[i] = sum / diag;
  }
  if (z || s->side == TS_SIDE_LEFT) {
    for (int j = 0; j < k; ++j) TS_CALL(ts_vec_axpby(w->y[j], z ? z[j] : v[j], 1.0, x));
    return 0;
  }
  TS_CALL(ts_vec_set(t, 0.0));
  for (int j = 0; j < k; ++j) TS_CALL(ts_vec_axpby(w->y[j], v[j], 1.0, t));
  TS_CALL(ts_solver_precondition(s, t, pt));
  TS_CALL(ts_vec_axpby(1.0, pt, 1.0, x));
  return 0;
}

/* One restart cycle: at most m Arnoldi steps from the residual r = v[0] * beta.
 * Sets *converged; *it counts the total iterations. */
static int gmres_cycle(ts_solver s, gmres_workspace *w, ts_vec *v, ts_vec *z, ts_vec t, ts_vec pt,
                       ts_vec x, double beta, double bnorm, int *it, int *converged) {
  int k = 0;
  for (int i = 0; i <= w->m; ++i) w->g[i] = 0.0;
  w->g[0] = beta;
  for (int j = 0; j < w->m && *it < s->max_iterations; ++j) {
    double *col = w->h + (size_t)j * (w->m + 1);
    if (s->side == TS_SIDE_LEFT) { /* v[j+1] = P A v[j] */
      TS_CALL(ts_operator_apply(s->A, v[j], t));
      TS_CALL(ts_solver_precondition(s, t, v[j + 1]));
    } else { /* v[j+1] = A P v[j] */
      ts_vec zj = z ? z[j] : t;
      TS_CALL(ts_solver_precondition(s, v[j], zj));
      TS_CALL(ts_operator_apply(s->A, zj, v[j + 1]));
    }
    for (int i = 0; i <= j; ++i) {
      TS_CALL(ts_vec_dot(v[j + 1], v[i], &col[i]));
      TS_CALL(ts_vec_axpby(-col[i], v[i], 1.0, v[j + 1]));
    }
    TS_CALL(ts_vec_norm(v[j + 1], &col[j + 1]));
    const double next = col[j + 1];
    if (next > 0.0) TS_CALL(ts_vec_axpby(0.0, v[j + 1], 1.0 / next, v[j + 1]));
    givens_update(w, j);
    k = j + 1;
    ++*it;
    const double relres = fabs(w->g[j + 1]) / bnorm;
    TS_CALL(ts_solver_record(s, *it, relres));
    if (relres <= s->rtol || next == 0.0) { /* converged, or the Krylov space is invariant */
      *converged = 1;
      break;
    }
  }
  TS_CALL(update_solution(s, w, k, v, z, t, pt, x));
  return 0;
}

/* v0 = b - A x (right), or P (b - A x) (left; t as scratch), and its norm */
static int initial_residual(ts_solver s, ts_vec b, ts_vec x, ts_vec t, ts_vec v0, double *beta) {
  ts_vec r = s->side == TS_SIDE_LEFT ? t : v0;
  TS_CALL(ts_operator_apply(s->A, x, r));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, r));
  if (s->side == TS_SIDE_LEFT) TS_CALL(ts_solver_precondition(s, r, v0));
  TS_CALL(ts_vec_norm(v0, beta));
  return 0;
}

static int gmres_run(ts_solver s, gmres_workspace *w, ts_vec b, ts_vec x) {
  double bnorm, beta;
  ts_vec *v = s->work, t = s->work[w->m + 1], pt = s->work[w->m + 2];
  ts_vec *z = s->P && s->side == TS_SIDE_RIGHT ? s->work + w->m + 3 : NULL;
  TS_CALL(ts_vec_norm(b, &bnorm));
  if (bnorm == 0.0) {
    TS_CALL(ts_vec_set(x, 0.0));
    TS_CALL(ts_solver_record(s, 0, 0.0));
    return 0;
  }
  int it = 0, claimed = 0;
  double previous = INFINITY; /* the true residual at the previous restart */
  for (;;) {
    /* the true residual at each restart: it confirms a converged estimate, and it is what
     * the log shows last for the iteration (ts_solver_record_true) */
    TS_CALL(initial_residual(s, b, x, t, v[0], &beta));
    if (it == 0 && s->side == TS_SIDE_LEFT) bnorm = beta > 0.0 ? beta : bnorm; /* ||P r0|| */
    if (it == 0) TS_CALL(ts_solver_record(s, 0, beta / bnorm));
    else TS_CALL(ts_solver_record_true(s, it, beta / bnorm));
    if (beta <= s->rtol * bnorm) return 0;
    /* the estimate claimed convergence, yet a whole cycle did not halve the true residual:
     * rounding, not the Krylov space, limits it */
    if (claimed && beta > 0.5 * previous) return ts_solver_unreachable(s, it, fmin(beta, previous) / bnorm);
    previous = beta;
    if (it >= s->max_iterations) break;
    TS_CALL(ts_vec_axpby(0.0, v[0], 1.0 / beta, v[0]));
    claimed = 0;
    TS_CALL(gmres_cycle(s, w, v, z, t, pt, x, beta, bnorm, &it, &claimed));
  }
  return TS_ERROR(TS_ERR_NOT_CONVERGED,
                  "GMRES(%d) did not converge in %d iterations: relative residual %.3e, asked "
                  "for %.3e", w->m, s->max_iterations, beta / bnorm, s->rtol);
}

int ts_gmres_solve(ts_solver s, ts_vec b, ts_vec x) {
  gmres_workspace w = {0};
  const int m = s->restart;
  const int keep_z = s->P && s->side == TS_SIDE_RIGHT;
  TS_CALL(ts_solver_work(s, b, keep_z ? 2 * m + 3 : m + 3)); /* v[0..m], t, pt (, z[0..m-1]) */
  int ierr = workspace_init(&w, m);
  if (!ierr) ierr = gmres_run(s, &w, b, x);
  workspace_free(&w);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "GMRES") : 0;
}
