/* boomeramg.c -- algebraic multigrid as a preconditioner: one BoomerAMG V-cycle (hypre, on
 * the host) on an assembled matrix, the operator of lib/sparse/boomeramg.c, which copies the
 * matrix into hypre: the caller's matrix is not kept. */
#include "pc-impl.h"

static int boomeramg_apply(ts_pc pc, ts_vec r, ts_vec z) {
  TS_CALL(ts_operator_apply(pc->data, r, z));
  return 0;
}

static void boomeramg_destroy(ts_pc pc) {
  ts_operator amg = pc->data;
  ts_operator_destroy(&amg);
  pc->data = NULL;
}

const ts_pc_ops ts_pc_boomeramg_ops = {
    .name = "boomeramg", .apply = boomeramg_apply, .destroy = boomeramg_destroy};

int ts_pc_create_boomeramg(ts_backend backend, ts_matrix A, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(A);
  ts_operator amg = NULL;
  TS_CALL(ts_operator_create_boomeramg(backend, A, &amg));
  TS_CALL(ts_pc_create_shell(&ts_pc_boomeramg_ops, backend, amg->n, amg->precision, amg, pc));
  return 0;
}
