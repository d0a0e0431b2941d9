/* richardson.c -- the stationary (Richardson) iteration z += B (r - A z) from z = 0 with an
 * inner preconditioner B, a fixed number of times (ts_pc_create_richardson): m steps give
 * z = (I - (I - B A)^m) A^{-1} r, a fixed linear operator, symmetric when B is (PETSc's
 * KSPRICHARDSON with a fixed count inside PCKSP).  Papers 001/004 solve the blocks of their
 * block-triangular preconditioner by 3 V-cycles this way. */
#include "pc-impl.h"

typedef struct richardson_pc {
  ts_operator A;       /* borrowed */
  ts_pc inner;         /* borrowed */
  int iterations;
  ts_vec residual, correction;
} richardson_pc;

static int richardson_apply(ts_pc pc, ts_vec r, ts_vec z) {
  richardson_pc *s = pc->data;
  TS_CALL(ts_pc_apply(s->inner, r, z)); /* the first step from z = 0 */
  for (int i = 1; i < s->iterations; ++i) {
    TS_CALL(ts_operator_apply(s->A, z, s->residual));
    TS_CALL(ts_vec_axpby(1.0, r, -1.0, s->residual));
    TS_CALL(ts_pc_apply(s->inner, s->residual, s->correction));
    TS_CALL(ts_vec_axpby(1.0, s->correction, 1.0, z));
  }
  return 0;
}

static void richardson_destroy(ts_pc pc) {
  richardson_pc *s = pc->data;
  if (!s) return;
  ts_vec_destroy(&s->residual);
  ts_vec_destroy(&s->correction);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_richardson_ops = {.name = "richardson",
                                        .apply = richardson_apply,
                                        .destroy = richardson_destroy};

int ts_pc_create_richardson(ts_operator A, ts_pc inner, int iterations, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CALL(ts_pc_check_square(A, __func__));
  TS_CALL(ts_pc_check(inner, __func__, "inner"));
  TS_CHECK_ARG(iterations >= 1 && iterations <= 100,
               "%s: iterations = %d, allowed 1..100", __func__, iterations);
  const ts_operator b = ts_pc_operator(inner);
  TS_CHECK_ARG(b->n == A->n && b->backend == A->backend && b->precision == A->precision,
               "%s: inner ('%s') has %lld entries on '%s' in precision %d, A %lld on '%s' in %d: "
               "they must agree", __func__, ts_pc_name(inner), (long long)b->n, b->backend->name,
               (int)b->precision, (long long)A->n, A->backend->name, (int)A->precision);
  richardson_pc *s;
  TS_CALL(ts_calloc(1, sizeof *s, "Richardson preconditioner", &s));
  *s = (richardson_pc){.A = A, .inner = inner, .iterations = iterations};
  int ierr = ts_vec_create(A->backend, A->n, A->precision, &s->residual);
  if (!ierr) ierr = ts_vec_create(A->backend, A->n, A->precision, &s->correction);
  if (ierr) {
    richardson_destroy(&(struct ts_pc_s){.data = s});
    return ts_error_trace(ierr, __FILE__, __LINE__, "Richardson preconditioner");
  }
  TS_CALL(ts_pc_create_shell(&ts_pc_richardson_ops, A->backend, A->n, A->precision, s, pc));
  return 0;
}
