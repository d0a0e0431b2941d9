/* converted.c -- a preconditioner applied in another precision: z = convert(B round(r)), the
 * input rounded (or widened) to the inner preconditioner B's precision and B's output
 * converted back.  Mixed-precision distributed multigrid (lib/parallel/mg.c) applies its
 * double-precision gathered coarse cycle to the single-precision V-cycle's vectors this way;
 * the coarse levels are small, so the two conversions cost next to nothing. */
#include "pc-impl.h"

typedef struct converted_pc {
  ts_pc inner;                  /* owned */
  ts_vec in, out;               /* the inner precision */
} converted_pc;

static int converted_apply(ts_pc pc, ts_vec r, ts_vec z) {
  converted_pc *c = pc->data;
  TS_CALL(ts_vec_copy(r, c->in));
  TS_CALL(ts_pc_apply(c->inner, c->in, c->out));
  return ts_vec_copy(c->out, z);
}

static int converted_setup(ts_pc pc) {
  converted_pc *c = pc->data;
  return ts_pc_setup(c->inner);
}

static void converted_free(converted_pc *c) {
  if (!c) return;
  ts_pc_destroy(&c->inner);
  ts_vec_destroy(&c->in);
  ts_vec_destroy(&c->out);
  ts_free(&c);
}

static void converted_destroy(ts_pc pc) {
  converted_free(pc->data);
  pc->data = NULL;
}

static const ts_pc_ops converted_ops = {.name = "converted",
                                        .setup = converted_setup,
                                        .apply = converted_apply,
                                        .destroy = converted_destroy};

int ts_pc_create_converted(ts_pc inner, ts_precision p, ts_pc *pc) {
  *pc = NULL;
  TS_CALL(ts_pc_check(inner, __func__, "inner"));
  converted_pc *c;
  int ierr = ts_calloc(1, sizeof *c, "converted preconditioner", &c);
  if (ierr) {
    ts_pc_destroy(&inner);
    return ierr;
  }
  c->inner = inner;
  ierr = ts_operator_vec_create(inner->op, &c->in);
  if (!ierr) ierr = ts_operator_vec_create(inner->op, &c->out);
  if (!ierr) ierr = ts_pc_create_shell(&converted_ops, inner->op->backend, inner->op->n, p, c, pc);
  if (ierr) {
    converted_free(c);
    return ts_error_trace(ierr, __FILE__, __LINE__, "converted preconditioner");
  }
  (*pc)->op->layout = inner->op->layout;
  return 0;
}
