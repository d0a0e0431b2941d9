/* smoother-pc.c -- a smoother as a preconditioner: z = S(0, r), one step of the smoother
 * from a zero initial guess (for a stationary smoother x <- x + B (b - A x), z = B r), so
 * that ts_pc_create_multigrid takes any smoother, as PETSc's PCMG takes a KSP/PC pair per
 * level.  The pc owns the smoother. */
#include "pc-impl.h"

static int smoother_pc_apply(ts_pc pc, ts_vec r, ts_vec z) {
  ts_smoother s = pc->data;
  if (s->ops->apply_zero) return s->ops->apply_zero(s, r, z);
  TS_CALL(ts_vec_set(z, 0.0));
  return ts_smoother_apply(s, r, z);
}

static void smoother_pc_destroy(ts_pc pc) {
  ts_smoother s = pc->data;
  ts_smoother_destroy(&s);
  pc->data = NULL;
}

const ts_pc_ops ts_pc_smoother_ops = {.name = "smoother",
                                      .apply = smoother_pc_apply,
                                      .destroy = smoother_pc_destroy};

int ts_pc_create_smoother(ts_smoother smoother, ts_pc *pc) {
  if (!pc) {
    ts_smoother_destroy(&smoother);
    return TS_ERROR(TS_ERR_ARG, "%s: pc is NULL", __func__);
  }
  *pc = NULL;
  TS_CHECK_NOT_NULL(smoother);
  const ts_operator A = smoother->A;
  TS_CALL(ts_pc_create_shell(&ts_pc_smoother_ops, A->backend, A->n, A->precision, smoother, pc));
  (*pc)->op->layout = A->layout; /* its vectors are distributed as A's (lib/parallel) */
  return 0;
}
