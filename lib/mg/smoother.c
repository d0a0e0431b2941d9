/* smoother.c -- ts_smoother: a smoothing step S(x, b) given by an implementation table; the
 * smoother families (vertex patch, Chebyshev) live in their own files. */
#include "../tessera-impl.h"

int ts_smoother_create_shell(ts_operator A, const ts_smoother_ops *ops, void *data,
                             ts_smoother *smoother) {
  ts_smoother s;
  TS_CALL(ts_calloc(1, sizeof *s, "smoother", &s));
  s->ops = ops;
  s->A = A;
  s->data = data;
  *smoother = s;
  return 0;
}

int ts_smoother_apply(ts_smoother smoother, ts_vec b, ts_vec x) {
  TS_CHECK_NOT_NULL(smoother);
  TS_CALL(ts_operator_check_vectors(smoother->A, b, x));
  TS_CALL(smoother->ops->apply(smoother, b, x));
  return 0;
}

const char *ts_smoother_name(ts_smoother smoother) {
  TS_GETTER_NOT_NULL(smoother, "");
  return smoother->ops->name;
}

int ts_smoother_destroy(ts_smoother *smoother) {
  if (!smoother || !*smoother) return 0;
  if ((*smoother)->ops->destroy) (*smoother)->ops->destroy(*smoother);
  ts_free(smoother);
  return 0;
}
