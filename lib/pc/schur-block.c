/* schur-block.c -- the Schur-complement block of the H(div) saddle-point preconditioners
 * (paper 003, Figure 4): z = scale P r with P ~ S~^{-1} (one AMG V-cycle), scale = 1 for the
 * block-diagonal preconditioner and -1 for the block-triangular one (the Schur complement of
 * [M D^T; D -C] is -(C + D M^{-1} D^T)); and, when S~ is singular with the constants as its
 * null space (every flux prescribed, no (2,2) block: section 4.3), z orthogonalized against
 * the constants after every application, z -= (1^T z / n) 1. */
#include "pc-impl.h"

typedef struct schur_block_pc {
  ts_pc inner;        /* borrowed */
  double scale;
  ts_vec ones;        /* owned; NULL: no orthogonalization */
} schur_block_pc;

static int schur_block_apply(ts_pc pc, ts_vec r, ts_vec z) {
  schur_block_pc *s = pc->data;
  TS_CALL(ts_pc_apply(s->inner, r, z));
  if (s->scale != 1.0) TS_CALL(ts_vec_axpby(0.0, z, s->scale, z));
  if (!s->ones) return 0;
  double sum = 0.0;
  TS_CALL(ts_vec_dot(s->ones, z, &sum));
  TS_CALL(ts_vec_axpby(-sum / (double)z->n, s->ones, 1.0, z));
  return 0;
}

static void schur_block_destroy(ts_pc pc) {
  schur_block_pc *s = pc->data;
  if (s) ts_vec_destroy(&s->ones);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_schur_block_ops = {.name = "schur-block", .apply = schur_block_apply,
                                         .destroy = schur_block_destroy};

int ts_pc_create_schur_block(ts_pc inner, double scale, int orthogonalize, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CALL(ts_pc_check(inner, __func__, "inner"));
  TS_CHECK_ARG(scale == 1.0 || scale == -1.0, "%s: scale = %g, allowed 1 or -1", __func__, scale);
  const ts_operator op = inner->op;
  schur_block_pc *s;
  TS_CALL(ts_calloc(1, sizeof *s, "Schur-block preconditioner", &s));
  s->inner = inner;
  s->scale = scale;
  int ierr = orthogonalize ? ts_vec_create(op->backend, op->n, op->precision, &s->ones) : 0;
  if (!ierr && s->ones) ierr = ts_vec_set(s->ones, 1.0);
  if (ierr) {
    ts_vec_destroy(&s->ones);
    ts_free(&s);
    return ierr;
  }
  TS_CALL(ts_pc_create_shell(&ts_pc_schur_block_ops, op->backend, op->n, op->precision, s, pc));
  return 0;
}
