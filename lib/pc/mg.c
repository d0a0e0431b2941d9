/* mg.c -- the multigrid preconditioner: one V-cycle from a zero initial guess, the operator
 * ts_mg_preconditioner of lib/mg/mg.c (borrowed from the hierarchy). */
#include "pc-impl.h"

static int mg_apply(ts_pc pc, ts_vec r, ts_vec z) {
  TS_CALL(ts_operator_apply(ts_mg_preconditioner(pc->data), r, z));
  return 0;
}

const ts_pc_ops ts_pc_mg_ops = {.name = "mg", .apply = mg_apply};

int ts_pc_create_mg(ts_mg mg, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(mg);
  ts_operator vcycle = ts_mg_preconditioner(mg);
  TS_CALL(ts_pc_create_shell(&ts_pc_mg_ops, vcycle->backend, vcycle->n, vcycle->precision, mg, pc));
  return 0;
}
