/* block-triangular.c -- the 2x2 block-triangular preconditioner (Elman, Silvester and
 * Wathen, "Finite Elements and Fast Iterative Solvers", section 4.2; tessera.h,
 * ts_pc_create_block_triangular):
 *   lower: z_0 = A~^{-1} r_0,  z_1 = S~^{-1} (r_1 - C z_0);
 *   upper: z_1 = S~^{-1} r_1,  z_0 = A~^{-1} (r_0 - C z_1);
 * the inverse of [A~ 0; C S~] or [A~ C; 0 S~], applied on views of the block vectors. */
#include "pc-impl.h"

typedef struct block_triangular_pc {
  ts_pc_shape shape;
  ts_pc a_inverse, s_inverse;   /* borrowed */
  ts_operator coupling;         /* borrowed */
  ts_vec t;                     /* the second solve's right side, size of its block */
} block_triangular_pc;

static int block_triangular_setup(ts_pc pc) {
  block_triangular_pc *b = pc->data;
  TS_CALL(ts_pc_setup(b->a_inverse));
  TS_CALL(ts_pc_setup(b->s_inverse));
  return 0;
}

/* z_first = P_first r_first; t = r_second - C z_first; z_second = P_second t */
static int block_triangular_apply(ts_pc pc, ts_vec r, ts_vec z) {
  block_triangular_pc *b = pc->data;
  const int64_t n0 = b->a_inverse->op->n, n1 = b->s_inverse->op->n;
  struct ts_vec_s r0, r1, z0, z1;
  ts_vec_view_init(&r0, r, 0, n0);
  ts_vec_view_init(&r1, r, n0, n1);
  ts_vec_view_init(&z0, z, 0, n0);
  ts_vec_view_init(&z1, z, n0, n1);
  const int lower = b->shape == TS_PC_LOWER;
  ts_pc first = lower ? b->a_inverse : b->s_inverse, second = lower ? b->s_inverse : b->a_inverse;
  ts_vec r_second = lower ? &r1 : &r0, z_first = lower ? &z0 : &z1;
  ts_vec z_second = lower ? &z1 : &z0;
  TS_CALL(ts_operator_apply(first->op, lower ? &r0 : &r1, z_first));
  TS_CALL(ts_operator_apply(b->coupling, z_first, b->t));
  TS_CALL(ts_vec_axpby(1.0, r_second, -1.0, b->t));
  TS_CALL(ts_operator_apply(second->op, b->t, z_second));
  return 0;
}

static void block_triangular_destroy(ts_pc pc) {
  block_triangular_pc *b = pc->data;
  ts_vec_destroy(&b->t);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_block_triangular_ops = {.name = "block-triangular",
                                              .setup = block_triangular_setup,
                                              .apply = block_triangular_apply,
                                              .destroy = block_triangular_destroy};

/* C maps the first solve's block to the second's; all share backend and precision */
static int check_blocks(ts_pc_shape shape, ts_pc a_inverse, ts_operator coupling, ts_pc s_inverse) {
  const int lower = shape == TS_PC_LOWER;
  const int64_t n0 = a_inverse->op->n, n1 = s_inverse->op->n;
  const int64_t rows = lower ? n1 : n0, cols = lower ? n0 : n1;
  TS_CHECK_ARG(coupling->n == rows && coupling->cols == cols,
               "ts_pc_create_block_triangular: coupling '%s' is %lld x %lld, the %s shape needs "
               "%lld x %lld (a_inverse has %lld entries, s_inverse %lld)", coupling->ops->name,
               (long long)coupling->n, (long long)coupling->cols, lower ? "lower" : "upper",
               (long long)rows, (long long)cols, (long long)n0, (long long)n1);
  const ts_operator ops[3] = {a_inverse->op, coupling, s_inverse->op};
  const char *names[3] = {"a_inverse", "coupling", "s_inverse"};
  for (int i = 1; i < 3; ++i)
    TS_CHECK_ARG(ops[i]->backend == ops[0]->backend && ops[i]->precision == ops[0]->precision,
                 "ts_pc_create_block_triangular: %s is %s precision on backend %s, a_inverse %s "
                 "on %s: all need one backend and precision", names[i],
                 ts_precision_name(ops[i]->precision), ops[i]->backend->label,
                 ts_precision_name(ops[0]->precision), ops[0]->backend->label);
  return 0;
}

int ts_pc_create_block_triangular(ts_pc_shape shape, ts_pc a_inverse, ts_operator coupling,
                                  ts_pc s_inverse, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_ARG(shape == TS_PC_LOWER || shape == TS_PC_UPPER, "%s: shape = %d, allowed "
               "TS_PC_LOWER (%d) or TS_PC_UPPER (%d)", __func__, (int)shape, (int)TS_PC_LOWER,
               (int)TS_PC_UPPER);
  TS_CHECK_NOT_NULL(a_inverse);
  TS_CHECK_NOT_NULL(coupling);
  TS_CHECK_NOT_NULL(s_inverse);
  TS_CALL(check_blocks(shape, a_inverse, coupling, s_inverse));
  block_triangular_pc *b;
  TS_CALL(ts_calloc(1, sizeof *b, "block-triangular preconditioner", &b));
  *b = (block_triangular_pc){.shape = shape, .a_inverse = a_inverse, .s_inverse = s_inverse,
                             .coupling = coupling};
  const ts_operator second = (shape == TS_PC_LOWER ? s_inverse : a_inverse)->op;
  int ierr = ts_vec_create(second->backend, second->n, second->precision, &b->t);
  if (ierr) {
    ts_free(&b);
    return ts_error_trace(ierr, __FILE__, __LINE__, "block-triangular preconditioner");
  }
  const ts_operator a = a_inverse->op;
  TS_CALL(ts_pc_create_shell(&ts_pc_block_triangular_ops, a->backend, a->n + s_inverse->op->n,
                             a->precision, b, pc));
  return 0;
}
