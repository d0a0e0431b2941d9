/* krylov.c -- an inner Krylov solve as a preconditioner: z ~ A^{-1} r by a ts_solver from
 * z = 0 to a tolerance.  Stopping at the iteration limit is accepted (the iterate is z): an
 * inner solve is an approximation by design. */
#include "pc-impl.h"

typedef struct krylov_pc {
  ts_solver solver;     /* owned; its operator and preconditioner are borrowed */
} krylov_pc;

static int krylov_apply(ts_pc pc, ts_vec r, ts_vec z) {
  krylov_pc *k = pc->data;
  TS_CALL(ts_vec_set(z, 0.0));
  const int ierr = ts_solver_solve(k->solver, r, z);
  if (ierr == TS_ERR_NOT_CONVERGED) {
    ts_error_clear();
    return 0;
  }
  if (ierr) return ts_error_trace(ierr, __FILE__, __LINE__, "inner Krylov solve");
  return 0;
}

static void krylov_destroy(ts_pc pc) {
  krylov_pc *k = pc->data;
  ts_solver_destroy(&k->solver);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_krylov_ops = {.name = "krylov", .apply = krylov_apply,
                                    .destroy = krylov_destroy};

int ts_pc_create_krylov(ts_operator A, ts_solver_type type, ts_pc inner, double rtol,
                        int max_iterations, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CALL(ts_pc_check_square(A, __func__));
  TS_CHECK_ARG(!inner || (inner->op->n == A->n && inner->op->backend == A->backend &&
                          inner->op->precision == A->precision),
               "%s: inner preconditioner '%s' has %lld entries (%s), the operator '%s' %lld "
               "(%s) on %s: they must agree in size, backend and precision", __func__,
               inner ? inner->ops->name : "", (long long)(inner ? inner->op->n : 0),
               inner ? ts_precision_name(inner->op->precision) : "", A->ops->name,
               (long long)A->n, ts_precision_name(A->precision), A->backend->label);
  krylov_pc *k;
  TS_CALL(ts_calloc(1, sizeof *k, "Krylov preconditioner", &k));
  int ierr = ts_solver_create(type, &k->solver);
  if (!ierr) ierr = ts_solver_set_operator(k->solver, A);
  if (!ierr) ierr = ts_solver_set_pc(k->solver, inner);
  if (!ierr) ierr = ts_solver_set_tolerances(k->solver, rtol, max_iterations);
  if (ierr) {
    ts_solver_destroy(&k->solver);
    ts_free(&k);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Krylov preconditioner");
  }
  TS_CALL(ts_pc_create_shell(&ts_pc_krylov_ops, A->backend, A->n, A->precision, k, pc));
  return 0;
}
