/* chebyshev.c -- the Chebyshev preconditioner z = S(0, r): one step of the Chebyshev smoother
 * of lib/mg/chebyshev.c from a zero initial guess, a fixed polynomial in D^{-1} A times
 * D^{-1}; setup remakes the smoother (its eigenvalue estimate). */
#include "pc-impl.h"

typedef struct chebyshev_pc {
  ts_operator A;          /* borrowed */
  int degree;
  ts_smoother smoother;   /* owned */
} chebyshev_pc;

static int chebyshev_setup(ts_pc pc) {
  chebyshev_pc *c = pc->data;
  ts_smoother_destroy(&c->smoother);
  TS_CALL(ts_smoother_create_chebyshev(c->A, c->degree, &c->smoother));
  return 0;
}

static int chebyshev_apply(ts_pc pc, ts_vec r, ts_vec z) {
  chebyshev_pc *c = pc->data;
  TS_CALL(ts_vec_set(z, 0.0));
  TS_CALL(ts_smoother_apply(c->smoother, r, z));
  return 0;
}

static void chebyshev_destroy(ts_pc pc) {
  chebyshev_pc *c = pc->data;
  ts_smoother_destroy(&c->smoother);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_chebyshev_ops = {.name = "chebyshev",
                                       .setup = chebyshev_setup,
                                       .apply = chebyshev_apply,
                                       .destroy = chebyshev_destroy};

int ts_pc_create_chebyshev(ts_operator A, int degree, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CALL(ts_pc_check_square(A, __func__));
  TS_CHECK_ARG(degree >= 1 && degree <= 20, "%s: degree = %d, allowed 1..20", __func__, degree);
  chebyshev_pc *c;
  TS_CALL(ts_calloc(1, sizeof *c, "Chebyshev preconditioner", &c));
  c->A = A;
  c->degree = degree;
  TS_CALL(ts_pc_create_shell(&ts_pc_chebyshev_ops, A->backend, A->n, A->precision, c, pc));
  (*pc)->op->layout = A->layout; /* its vectors are distributed as A's (lib/parallel) */
  return 0;
}
