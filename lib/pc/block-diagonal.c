/* block-diagonal.c -- z_i = P_i r_i: the block operator (lib/op/block.c) with the blocks'
 * preconditioner operators on its diagonal and zero blocks elsewhere. */
#include "pc-impl.h"

#define TS_PC_BLOCKS_MAX 16

typedef struct block_diagonal_pc {
  int n;
  ts_pc diagonal[TS_PC_BLOCKS_MAX];   /* borrowed */
  ts_operator block;                  /* owned */
} block_diagonal_pc;

static int block_diagonal_setup(ts_pc pc) {
  block_diagonal_pc *b = pc->data;
  for (int i = 0; i < b->n; ++i) TS_CALL(ts_pc_setup(b->diagonal[i]));
  return 0;
}

static int block_diagonal_apply(ts_pc pc, ts_vec r, ts_vec z) {
  block_diagonal_pc *b = pc->data;
  TS_CALL(ts_operator_apply(b->block, r, z));
  return 0;
}

static void block_diagonal_destroy(ts_pc pc) {
  block_diagonal_pc *b = pc->data;
  ts_operator_destroy(&b->block);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_block_diagonal_ops = {.name = "block-diagonal",
                                            .setup = block_diagonal_setup,
                                            .apply = block_diagonal_apply,
                                            .destroy = block_diagonal_destroy};

/* the n x n block operator diag(P_0, .., P_{n-1}) */
static int create_block(block_diagonal_pc *b) {
  ts_operator blocks[TS_PC_BLOCKS_MAX * TS_PC_BLOCKS_MAX] = {NULL};
  for (int i = 0; i < b->n; ++i) blocks[i * b->n + i] = b->diagonal[i]->op;
  TS_CALL(ts_operator_create_block(b->n, b->n, blocks, &b->block));
  return 0;
}

int ts_pc_create_block_diagonal(int n, const ts_pc *diagonal, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(diagonal);
  TS_CHECK_ARG(n >= 1 && n <= TS_PC_BLOCKS_MAX, "%s: n = %d blocks, allowed 1..%d", __func__, n,
               TS_PC_BLOCKS_MAX);
  for (int i = 0; i < n; ++i)
    TS_CHECK_ARG(diagonal[i], "%s: diagonal[%d] is NULL, a preconditioner is required",
                 __func__, i);
  block_diagonal_pc *b;
  TS_CALL(ts_calloc(1, sizeof *b, "block-diagonal preconditioner", &b));
  b->n = n;
  for (int i = 0; i < n; ++i) b->diagonal[i] = diagonal[i];
  const int ierr = create_block(b);
  if (ierr) {
    ts_free(&b);
    return ts_error_trace(ierr, __FILE__, __LINE__, "block-diagonal preconditioner");
  }
  ts_operator block = b->block;
  TS_CALL(ts_pc_create_shell(&ts_pc_block_diagonal_ops, block->backend, block->n,
                             block->precision, b, pc));
  return 0;
}
