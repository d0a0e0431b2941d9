/* solver.c -- the Krylov solver object: settings, work vectors, residual history and the
 * checks common to every method (NaN, iteration limit, monitor). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solver-impl.h"

int ts_solver_create(ts_solver_type type, ts_solver *solver) {
  TS_CHECK_NOT_NULL(solver);
  *solver = NULL;
  const ts_krylov_method *method = ts_krylov_method_of(type);
  TS_CHECK_ARG(method, "solver: type %d unknown, allowed TS_SOLVER_CG, TS_SOLVER_GMRES, "
               "TS_SOLVER_FGMRES or TS_SOLVER_MINRES (%s)", (int)type, ts_solver_type_names());
  ts_solver s;
  TS_CALL(ts_calloc(1, sizeof *s, "solver", &s));
  s->method = method;
  s->rtol = 1e-10;
  s->max_iterations = 10000;
  s->restart = 50;
  *solver = s;
  return 0;
}

static void free_work(ts_solver s) {
  for (int i = 0; i < s->n_work; ++i) ts_vec_destroy(&s->work[i]);
  ts_free(&s->work);
  s->n_work = 0;
}

int ts_solver_destroy(ts_solver *solver) {
  if (!solver || !*solver) return 0;
  free_work(*solver);
  ts_free(&(*solver)->history);
  ts_free(solver);
  return 0;
}

int ts_solver_set_operator(ts_solver s, ts_operator A) {
  TS_CHECK_NOT_NULL(s);
  TS_CHECK_ARG(A, "solver: operator is NULL");
  TS_CHECK_ARG(A->n == A->cols, "solver: operator '%s' has %lld rows and %lld columns, a "
               "solver needs a square one", A->ops->name, (long long)A->n, (long long)A->cols);
  s->A = A;
  return 0;
}

int ts_solver_set_preconditioner(ts_solver s, ts_operator P) {
  TS_CHECK_NOT_NULL(s);
  TS_CHECK_ARG(!P || P->n == P->cols, "solver: preconditioner '%s' has %lld rows and %lld "
               "columns, it must be square", P ? P->ops->name : "", (long long)(P ? P->n : 0),
               (long long)(P ? P->cols : 0));
  s->P = P;
  return 0;
}

int ts_solver_set_side(ts_solver s, ts_side side) {
  TS_CHECK_NOT_NULL(s);
  TS_CHECK_ARG(side == TS_SIDE_RIGHT || side == TS_SIDE_LEFT,
               "solver: preconditioner side %d unknown, allowed right (%d) or left (%d)", (int)side,
               (int)TS_SIDE_RIGHT, (int)TS_SIDE_LEFT);
  TS_CHECK_ARG(side == TS_SIDE_RIGHT || s->method->left_side,
               "%s: preconditioner side left is not available for this method, allowed: right "
               "(left preconditioning: solver type gmres)", s->method->label);
  s->side = side;
  return 0;
}

int ts_side_from_name(const char *name, ts_side *side) {
  TS_CHECK_NOT_NULL(side);
  if (name && strcmp(name, "right") == 0) *side = TS_SIDE_RIGHT;
  else if (name && strcmp(name, "left") == 0) *side = TS_SIDE_LEFT;
  else return TS_ERROR(TS_ERR_ARG, "preconditioner side '%s' unknown, allowed: left, right",
                       name ? name : "(null)");
  return 0;
}

int ts_solver_set_tolerances(ts_solver s, double rtol, int max_iterations) {
  TS_CHECK_NOT_NULL(s);
  TS_CHECK_ARG(rtol > 0.0 && rtol < 1.0, "solver: rtol = %g, allowed 0 < rtol < 1", rtol);
  TS_CHECK_ARG(max_iterations >= 1, "solver: max_iterations = %d, need at least 1", max_iterations);
  s->rtol = rtol;
  s->max_iterations = max_iterations;
  return 0;
}

int ts_solver_set_restart(ts_solver s, int restart) {
  TS_CHECK_NOT_NULL(s);
  TS_CHECK_ARG(restart >= 1 && restart <= 1000, "GMRES: restart = %d, allowed 1..1000", restart);
  s->restart = restart;
  return 0;
}

int ts_solver_set_monitor(ts_solver s, ts_monitor_fn fn, void *ctx) {
  TS_CHECK_NOT_NULL(s);
  s->monitor = fn;
  s->monitor_ctx = ctx;
  return 0;
}

int ts_solver_work(ts_solver s, ts_vec b, int count) {
  if (s->n_work && (s->work[0]->n != b->n || s->work[0]->precision != b->precision ||
                    s->work[0]->backend != b->backend || s->n_work < count ||
                    s->work[0]->layout.dist != b->layout.dist))
    free_work(s);
  if (s->n_work) return 0;
  TS_CALL(ts_calloc((size_t)count, sizeof *s->work, "solver work vectors", &s->work));
  for (; s->n_work < count; ++s->n_work)
    TS_CALL(ts_vec_create_like(b, &s->work[s->n_work])); /* distributed like b */
  return 0;
}

int ts_solver_record(ts_solver s, int iteration, double relative_residual) {
  if (s->history_count == s->history_capacity) {
    int capacity = s->history_capacity ? 2 * s->history_capacity : 64;
    double *h = realloc(s->history, (size_t)capacity * sizeof *h);
    if (!h) return TS_ERROR(TS_ERR_MEMORY, "solver: no memory for the residual history");
    s->history = h;
    s->history_capacity = capacity;
  }
  s->history[s->history_count++] = relative_residual;
  s->iterations = iteration;
  s->relative_residual = relative_residual;
  if (!isfinite(relative_residual))
    return TS_ERROR(TS_ERR_NAN, "%s: the residual is %g at iteration %d (NaN or overflow: is "
                    "the operator or preconditioner broken?)",
                    s->method->label, relative_residual, iteration);
  if (s->monitor && s->monitor(s->monitor_ctx, iteration, relative_residual))
    return TS_ERROR(TS_ERR_ARG, "solve stopped by the monitor at iteration %d", iteration);
  return 0;
}

int ts_solver_record_true(ts_solver s, int iteration, double relative_residual) {
  s->history_count--; /* ts_solver_record appends it again */
  return ts_solver_record(s, iteration, relative_residual);
}

int ts_solver_unreachable(ts_solver s, int iteration, double attainable) {
  return ts_error_unreachable(s->method->label, iteration, s->rtol,
                              attainable);
}

ts_claim ts_claim_start(ts_solver s, double reference) {
  return (ts_claim){.reference = reference, .level = s->rtol * reference, .parted = INFINITY};
}

int ts_solver_confirm(ts_solver s, int it, double true_norm, ts_claim *claim, int *converged) {
  const double ref = claim->reference;
  TS_CALL(ts_solver_record_true(s, it, true_norm / ref));
  *converged = true_norm <= s->rtol * ref;
  if (*converged) return 0;
  if (true_norm > 0.5 * claim->parted)
    return ts_solver_unreachable(s, it, fmin(true_norm, claim->parted) / ref);
  claim->parted = true_norm;
  claim->level = fmax(s->rtol * ref, 0.1 * true_norm);
  return 0;
}

int ts_error_unreachable(const char *method, int iteration, double rtol, double attainable) {
  /* twice the attainable residual, rounded up to one significant digit */
  const double twice = 2.0 * attainable, unit = pow(10.0, floor(log10(twice)));
  const double suggested = ceil(twice / unit) * unit;
  return TS_ERROR(TS_ERR_NOT_CONVERGED,
                  "%s cannot reach rtol = %.1e: the true relative residual stopped improving "
                  "at %.3e (iteration %d; rounding in the operator and in x limits it, "
                  "doc/accuracy.md); ask for rtol >= %.0e",
                  method, rtol, attainable, iteration, suggested);
}

int ts_solver_precondition(ts_solver s, ts_vec x, ts_vec y) {
  if (s->P) TS_CALL(ts_operator_apply(s->P, x, y));
  else TS_CALL(ts_vec_copy(x, y));
  return 0;
}

int ts_solver_solve(ts_solver s, ts_vec b, ts_vec x) {
  TS_CHECK_NOT_NULL(s);
  TS_CHECK_ARG(s->A, "solver: no operator set (call ts_solver_set_operator)");
  TS_CALL(ts_operator_check_vectors(s->A, b, x));
  s->history_count = 0;
  s->iterations = 0;
  s->relative_residual = 0.0;
  TS_CALL(s->method->solve(s, b, x));
  return 0;
}

int ts_solver_iterations(ts_solver s) {
  TS_GETTER_NOT_NULL(s, -1);
  return s->iterations;
}
double ts_solver_relative_residual(ts_solver s) {
  TS_GETTER_NOT_NULL(s, NAN);
  return s->relative_residual;
}
const double *ts_solver_history(ts_solver s, int *count) {
  TS_GETTER_NOT_NULL(count, NULL);
  *count = 0;
  TS_GETTER_NOT_NULL(s, NULL);
  *count = s->history_count;
  return s->history;
}
