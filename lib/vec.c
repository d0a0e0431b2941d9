/* vec.c -- ts_vec: a vector in a backend's memory; every operation is a backend kernel. */
#include <math.h>
#include "tessera-impl.h"

int ts_vec_create(ts_backend backend, int64_t n, ts_precision p, ts_vec *v) {
  size_t bytes;
  TS_CHECK_NOT_NULL(v);
  *v = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_ARG(n >= 0, "ts_vec_create: size %lld is negative", (long long)n);
  TS_CHECK_ARG(p == TS_DOUBLE || p == TS_SINGLE, "ts_vec_create: precision %d unknown", (int)p);
  TS_CALL(ts_size_mul((size_t)n, ts_precision_size(p), "vector", &bytes));
  ts_vec x;
  TS_CALL(ts_calloc(1, sizeof *x, "vector", &x));
  x->backend = backend;
  x->n = n;
  x->precision = p;
  ts_layout_serial_init(&x->layout, n);
  int ierr = 0;
  if (backend->ops.mem_alloc(&backend->ops, bytes, &x->data)) /* required: checked at load */
    ierr = ts_backend_error(backend, TS_ERR_MEMORY, "mem_alloc", __FILE__, __LINE__);
  else if (backend->ops.vec_set(&backend->ops, p, n, 0.0, x->data))
    ierr = ts_backend_error(backend, TS_ERR_BACKEND, "vec_set", __FILE__, __LINE__);
  if (ierr) {
    if (x->data) backend->ops.mem_free(&backend->ops, x->data);
    ts_free(&x);
    return ierr;
  }
  *v = x;
  return 0;
}

int ts_vec_create_like(ts_vec x, ts_vec *y) {
  TS_CALL(ts_vec_create(x->backend, x->n, x->precision, y));
  (*y)->layout = x->layout;
  (*y)->layout.standalone = 0;
  return 0;
}

int ts_vec_destroy(ts_vec *v) {
  if (!v || !*v) return 0;
  ts_backend b = (*v)->backend;
  if ((*v)->data && !(*v)->is_view) b->ops.mem_free(&b->ops, (*v)->data);
  ts_free(v);
  return 0;
}

/* Backend memory is addressed by byte offsets (include/tessera/backend.h, mem_alloc). */
void ts_vec_view_init(struct ts_vec_s *view, ts_vec x, int64_t offset, int64_t n) {
  const int64_t bytes = offset * (int64_t)ts_precision_size(x->precision);
  *view = (struct ts_vec_s){.backend = x->backend, .n = n, .precision = x->precision,
                            .data = x->data ? (char *)x->data + bytes : NULL, /* empty x */
                            .is_view = 1};
  ts_layout_serial_init(&view->layout, n);
}

int ts_vec_create_view(ts_vec x, int64_t offset, int64_t n, ts_vec *view) {
  TS_CHECK_NOT_NULL(view);
  *view = NULL;
  TS_CHECK_NOT_NULL(x);
  TS_CHECK_ARG(offset >= 0 && n >= 0 && offset <= x->n - n,
               "ts_vec_create_view: offset %lld and size %lld do not fit inside the vector's "
               "%lld entries (allowed: offset >= 0, size >= 0, offset + size <= %lld)",
               (long long)offset, (long long)n, (long long)x->n, (long long)x->n);
  ts_vec v;
  TS_CALL(ts_calloc(1, sizeof *v, "vector view", &v));
  ts_vec_view_init(v, x, offset, n);
  *view = v;
  return 0;
}

int64_t ts_vec_size(ts_vec v) {
  TS_GETTER_NOT_NULL(v, -1);
  return v->n;
}

ts_precision ts_vec_precision(ts_vec v) {
  TS_GETTER_NOT_NULL(v, TS_PRECISION_INVALID);
  return v->precision;
}

static int check_pair(ts_vec x, ts_vec y, const char *what) {
  TS_CHECK_ARG(x && y, "%s: NULL vector", what);
  TS_CHECK_ARG(x->n == y->n, "%s: vector sizes differ (%lld and %lld)", what, (long long)x->n,
               (long long)y->n);
  TS_CHECK_ARG(x->backend == y->backend,
               "%s: the vectors live on different backend instances, %s and %s (use one "
               "ts_backend for objects that work together)",
               what, x->backend->label, y->backend->label);
  return 0;
}

static int check_same_precision(ts_vec x, ts_vec y, const char *what) {
  TS_CALL(check_pair(x, y, what));
  TS_CHECK_ARG(x->precision == y->precision, "%s: vector precisions differ (%s and %s)", what,
               ts_precision_name(x->precision), ts_precision_name(y->precision));
  return 0;
}

int ts_vec_set_from_host(ts_vec v, const double *values) {
  TS_CHECK_NOT_NULL(v);
  TS_CHECK_NOT_NULL(values);
  TS_BACKEND_CALL(v->backend, vec_from_host, v->precision, v->n, values, v->data);
  return 0;
}

int ts_vec_get_to_host(ts_vec v, double *values) {
  TS_CHECK_NOT_NULL(v);
  TS_CHECK_NOT_NULL(values);
  TS_BACKEND_CALL(v->backend, vec_to_host, v->precision, v->n, v->data, values);
  return 0;
}

int ts_vec_set(ts_vec v, double alpha) {
  TS_CHECK_NOT_NULL(v);
  TS_BACKEND_CALL(v->backend, vec_set, v->precision, v->n, alpha, v->data);
  return 0;
}

int ts_vec_set_random(ts_vec v, uint64_t seed) {
  TS_CHECK_NOT_NULL(v);
  if (v->layout.dist) return ts_parallel_random(v, seed); /* the one-process vector's entries */
  TS_BACKEND_CALL(v->backend, vec_random, v->precision, v->n, seed, v->data);
  return 0;
}

int ts_vec_copy(ts_vec x, ts_vec y) {
  TS_CALL(check_pair(x, y, "ts_vec_copy"));
  TS_BACKEND_CALL(x->backend, vec_convert, x->n, x->precision, x->data, y->precision, y->data);
  return 0;
}

int ts_vec_axpby(double alpha, ts_vec x, double beta, ts_vec y) {
  TS_CALL(check_same_precision(x, y, "ts_vec_axpby"));
  TS_BACKEND_CALL(x->backend, vec_axpby, x->precision, x->n, alpha, x->data, beta, y->data);
  return 0;
}

int ts_vec_pointwise_mult(ts_vec x, ts_vec y, ts_vec w) {
  TS_CALL(check_same_precision(x, y, "ts_vec_pointwise_mult"));
  TS_CALL(check_same_precision(x, w, "ts_vec_pointwise_mult"));
  TS_BACKEND_CALL(x->backend, vec_pointwise_mult, x->precision, x->n, x->data, y->data, w->data);
  return 0;
}

int ts_vec_set_tensor(ts_vec x, int dim, const int64_t *n, const double *const *factors) {
  TS_CHECK_NOT_NULL(x);
  TS_CHECK_NOT_NULL(n);
  TS_CHECK_NOT_NULL(factors);
  TS_CHECK_ARG(dim == 2 || dim == 3, "ts_vec_set_tensor: dim %d, allowed 2 or 3", dim);
  int64_t size = 1;
  for (int d = 0; d < dim; ++d) {
    TS_CHECK_ARG(n[d] >= 1 && n[d] <= x->n, "ts_vec_set_tensor: n[%d] = %lld, allowed 1..%lld",
                 d, (long long)n[d], (long long)x->n);
    TS_CHECK_ARG(factors[d], "ts_vec_set_tensor: factors[%d] is NULL", d);
    size *= n[d];
  }
  TS_CHECK_ARG(size == x->n, "ts_vec_set_tensor: the factors make %lld entries, the vector has %lld",
               (long long)size, (long long)x->n);
  TS_BACKEND_CALL(x->backend, vec_tensor, x->precision, dim, n, factors, x->data);
  return 0;
}

int ts_vec_dot(ts_vec x, ts_vec y, double *result) {
  TS_CALL(check_same_precision(x, y, "ts_vec_dot"));
  TS_CHECK_NOT_NULL(result);
  if (x->layout.dist || y->layout.dist) return ts_parallel_dot(x, y, result);
  TS_BACKEND_CALL(x->backend, vec_dot, x->precision, x->n, x->data, y->data, result);
  return 0;
}

int ts_vec_norm(ts_vec x, double *result) {
  double d;
  TS_CHECK_NOT_NULL(x);
  TS_CHECK_NOT_NULL(result);
  TS_CALL(ts_vec_dot(x, x, &d));
  *result = sqrt(d);
  return 0;
}
