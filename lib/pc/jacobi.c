/* jacobi.c -- the Jacobi preconditioner z = omega D^{-1} r (omega = 1 unless weighted): the
 * Jacobi operator of lib/op/jacobi.c (its diagonal checks), remade by setup. */
#include "pc-impl.h"

typedef struct jacobi_pc {
  ts_operator A;       /* borrowed */
  double weight;
  ts_operator jacobi;  /* owned */
} jacobi_pc;

static int jacobi_setup(ts_pc pc) {
  jacobi_pc *j = pc->data;
  ts_operator_destroy(&j->jacobi);
  TS_CALL(ts_operator_create_jacobi_weighted(j->A, j->weight, &j->jacobi));
  return 0;
}

static int jacobi_apply(ts_pc pc, ts_vec r, ts_vec z) {
  jacobi_pc *j = pc->data;
  TS_CALL(ts_operator_apply(j->jacobi, r, z));
  return 0;
}

static void jacobi_destroy(ts_pc pc) {
  jacobi_pc *j = pc->data;
  ts_operator_destroy(&j->jacobi);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_jacobi_ops = {.name = "jacobi",
                                    .setup = jacobi_setup,
                                    .apply = jacobi_apply,
                                    .destroy = jacobi_destroy};

int ts_pc_create_jacobi(ts_operator A, ts_pc *pc) {
  return ts_pc_create_jacobi_weighted(A, 1.0, pc);
}

int ts_pc_create_jacobi_weighted(ts_operator A, double weight, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CALL(ts_pc_check_square(A, __func__));
  TS_CHECK_ARG(weight > 0.0 && weight <= 2.0,
               "ts_pc_create_jacobi_weighted: weight = %g, allowed 0 < weight <= 2", weight);
  jacobi_pc *j;
  TS_CALL(ts_calloc(1, sizeof *j, "Jacobi preconditioner", &j));
  j->A = A;
  j->weight = weight;
  TS_CALL(ts_pc_create_shell(&ts_pc_jacobi_ops, A->backend, A->n, A->precision, j, pc));
  (*pc)->op->layout = A->layout; /* its vectors are distributed as A's (lib/parallel) */
  return 0;
}
