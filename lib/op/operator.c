/* operator.c -- ts_operator: a linear operator given by an implementation table
 * (apply, diagonal, flop count); the operator families live in their own files. */
#include <math.h>
#include "../tessera-impl.h"

int ts_operator_create_shell(ts_backend backend, const ts_operator_ops *ops, int64_t n,
                             ts_precision p, void *data, ts_operator *op) {
  return ts_operator_create_shell_rect(backend, ops, n, n, p, data, op);
}

int ts_operator_create_shell_rect(ts_backend backend, const ts_operator_ops *ops, int64_t rows,
                                  int64_t cols, ts_precision p, void *data, ts_operator *op) {
  ts_operator o;
  TS_CALL(ts_calloc(1, sizeof *o, "operator", &o));
  o->ops = ops;
  o->backend = backend;
  o->n = rows;
  o->cols = cols;
  o->precision = p;
  o->data = data;
  *op = o;
  return 0;
}

int ts_operator_vec_create(ts_operator op, ts_vec *v) {
  TS_CALL(ts_vec_create(op->backend, op->n, op->precision, v));
  if (op->layout) {
    (*v)->layout = *op->layout;
    (*v)->layout.standalone = 0;
  }
  return 0;
}

int ts_operator_destroy(ts_operator *op) {
  if (!op || !*op) return 0;
  if ((*op)->ops->destroy) (*op)->ops->destroy(*op);
  ts_free(op);
  return 0;
}

/* v fits op as its input (is_input: entries = columns) or as its output or diagonal (rows) */
static int check_vector(ts_operator op, ts_vec v, const char *which, int is_input) {
  const char *name = op->ops->name;
  const int64_t want = is_input ? op->cols : op->n;
  TS_CHECK_ARG(v, "operator '%s': %s vector is NULL", name, which);
  TS_CHECK_ARG(v->n == want, "operator '%s': %s vector has %lld entries, the operator %lld %s",
               name, which, (long long)v->n, (long long)want, is_input ? "columns" : "rows");
  TS_CHECK_ARG(v->backend == op->backend,
               "operator '%s': %s vector lives on backend %s, the operator on backend %s (use "
               "one ts_backend for objects that work together)",
               name, which, v->backend->label, op->backend->label);
  TS_CHECK_ARG(v->precision == op->precision,
               "operator '%s': %s vector is %s precision, the operator is %s", name, which,
               ts_precision_name(v->precision), ts_precision_name(op->precision));
  return 0;
}

int ts_operator_check_vectors(ts_operator op, ts_vec x, ts_vec y) {
  TS_CALL(check_vector(op, x, "input", 1));
  TS_CALL(check_vector(op, y, "output", 0));
  TS_CHECK_ARG(x != y && (x->data != y->data || !x->n || !y->n),
               "operator '%s': input and output must be different vectors", op->ops->name);
  return 0;
}

int ts_operator_apply(ts_operator op, ts_vec x, ts_vec y) {
  TS_CHECK_NOT_NULL(op);
  TS_CALL(ts_operator_check_vectors(op, x, y));
  TS_CALL(op->ops->apply(op, x, y, 0));
  return 0;
}

int ts_operator_apply_add(ts_operator op, ts_vec x, ts_vec y) {
  TS_CHECK_NOT_NULL(op);
  TS_CALL(ts_operator_check_vectors(op, x, y));
  TS_CALL(op->ops->apply(op, x, y, 1));
  return 0;
}

int ts_operator_apply_unconstrained(ts_operator op, ts_vec x, ts_vec y) {
  TS_CHECK_NOT_NULL(op);
  TS_CALL(ts_operator_check_vectors(op, x, y));
  if (!op->ops->apply_unconstrained)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "operator '%s' has no unconstrained form", op->ops->name);
  TS_CALL(op->ops->apply_unconstrained(op, x, y));
  return 0;
}

int ts_operator_diagonal(ts_operator op, ts_vec d) {
  TS_CHECK_NOT_NULL(op);
  TS_CHECK_ARG(op->n == op->cols, "operator '%s' has %lld rows and %lld columns: a diagonal "
               "needs a square operator", op->ops->name, (long long)op->n, (long long)op->cols);
  TS_CALL(check_vector(op, d, "diagonal", 0));
  if (!op->ops->diagonal)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "operator '%s' cannot compute its diagonal",
                    op->ops->name);
  TS_CALL(op->ops->diagonal(op, d));
  return 0;
}

int ts_operator_assemble(ts_operator op, ts_matrix *A) {
  TS_CHECK_NOT_NULL(A);
  *A = NULL;
  TS_CHECK_NOT_NULL(op);
  if (!op->ops->assemble)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "operator '%s' has no sparse assembly; assembled are "
                    "the Q_k Laplacian and mass, the RT and Taylor-Hood Stokes operators, "
                    "their blocks, Jacobi, and sums, products, transposes and block operators of "
                    "such", op->ops->name);
  TS_CALL(op->ops->assemble(op, A));
  return 0;
}

int64_t ts_operator_size(ts_operator op) {
  TS_GETTER_NOT_NULL(op, -1);
  return op->n;
}

int64_t ts_operator_columns(ts_operator op) {
  TS_GETTER_NOT_NULL(op, -1);
  return op->cols;
}

ts_precision ts_operator_precision(ts_operator op) {
  TS_GETTER_NOT_NULL(op, TS_PRECISION_INVALID);
  return op->precision;
}

double ts_operator_flops(ts_operator op) {
  TS_GETTER_NOT_NULL(op, NAN);
  return op->ops->flops ? op->ops->flops(op) : 0.0;
}

const char *ts_operator_name(ts_operator op) {
  TS_GETTER_NOT_NULL(op, "");
  return op->ops->name;
}

int ts_operator_apply_part(ts_operator a, int transpose, ts_vec x, ts_vec y, int add) {
  TS_CALL(transpose ? a->ops->apply_transpose(a, x, y, add) : a->ops->apply(a, x, y, add));
  return 0;
}
