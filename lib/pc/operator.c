/* operator.c -- any square operator as a preconditioner, z = P r (borrowed). */
#include "pc-impl.h"

static int operator_apply(ts_pc pc, ts_vec r, ts_vec z) {
  TS_CALL(ts_operator_apply(pc->data, r, z));
  return 0;
}

const ts_pc_ops ts_pc_operator_ops = {.name = "operator", .apply = operator_apply};

int ts_pc_create_operator(ts_operator P, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(P);
  TS_CALL(ts_pc_check_square(P, __func__));
  TS_CALL(ts_pc_create_shell(&ts_pc_operator_ops, P->backend, P->n, P->precision, P, pc));
  return 0;
}
