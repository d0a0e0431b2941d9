/* fake-backend.c -- deliberately broken backend modules for t-backend, one per build:
 *   FAKE_BAD_ABI          exports a future ABI version; its register function aborts, so
 *                         the loader must refuse it before calling into it;
 *   FAKE_MISSING_MEMBERS  leaves the required members mem_free and vec_set NULL: the loader
 *                         must refuse it at load time, naming the file and both members;
 *   (neither)             registers every required member but cannot start. */
#include <stdio.h>
#include <stdlib.h>
#include "tessera/backend.h"

#ifdef FAKE_BAD_ABI
const ts_backend_abi tessera_backend_abi = {TS_BACKEND_ABI_VERSION + 1000, sizeof(ts_backend_ops)};
#else
TS_BACKEND_DEFINE_ABI;
#endif

static int fake_init(ts_backend_ops *ops) {
  snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "no device found (fake backend for tests)");
  return TS_ERR_BACKEND;
}

/* Every required member, failing: the fake backend never gets as far as using them. */
static int fake_failure(ts_backend_ops *ops) {
  snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "fake backend: not implemented");
  return TS_ERR_UNSUPPORTED;
}
static int fake_mem_alloc(ts_backend_ops *ops, size_t bytes, void **ptr) { return fake_failure(ops); }
static int fake_mem_available(ts_backend_ops *ops, size_t *bytes) { return fake_failure(ops); }
static int fake_vec_from_host(ts_backend_ops *ops, ts_precision p, int64_t n, const double *h,
                              void *x) {
  return fake_failure(ops);
}
static int fake_vec_to_host(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                            double *h) {
  return fake_failure(ops);
}
static int fake_vec_random(ts_backend_ops *ops, ts_precision p, int64_t n, uint64_t seed,
                           void *x) {
  return fake_failure(ops);
}
static int fake_vec_convert(ts_backend_ops *ops, int64_t n, ts_precision px, const void *x,
                            ts_precision py, void *y) {
  return fake_failure(ops);
}
static int fake_vec_axpby(ts_backend_ops *ops, ts_precision p, int64_t n, double alpha,
                          const void *x, double beta, void *y) {
  return fake_failure(ops);
}
static int fake_vec_pointwise_mult(ts_backend_ops *ops, ts_precision p, int64_t n,
                                   const void *x, const void *y, void *w) {
  return fake_failure(ops);
}
static int fake_vec_dot(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                        const void *y, double *result) {
  return fake_failure(ops);
}
#ifndef FAKE_MISSING_MEMBERS
static int fake_mem_free(ts_backend_ops *ops, void *ptr) { return fake_failure(ops); }
static int fake_vec_set(ts_backend_ops *ops, ts_precision p, int64_t n, double alpha, void *x) {
  return fake_failure(ops);
}
#endif

int tessera_backend_register(ts_backend_ops *ops);
int tessera_backend_register(ts_backend_ops *ops) {
#ifdef FAKE_BAD_ABI
  abort(); /* the loader must read tessera_backend_abi and stop before calling this */
#endif
  ops->abi_version = TS_BACKEND_ABI_VERSION;
  ops->struct_size = sizeof(ts_backend_ops);
  ops->name = "fake";
  ops->init = fake_init;
  ops->mem_alloc = fake_mem_alloc;
  ops->mem_available = fake_mem_available;
  ops->vec_from_host = fake_vec_from_host;
  ops->vec_to_host = fake_vec_to_host;
  ops->vec_random = fake_vec_random;
  ops->vec_convert = fake_vec_convert;
  ops->vec_axpby = fake_vec_axpby;
  ops->vec_pointwise_mult = fake_vec_pointwise_mult;
  ops->vec_dot = fake_vec_dot;
#ifndef FAKE_MISSING_MEMBERS
  ops->mem_free = fake_mem_free;
  ops->vec_set = fake_vec_set;
#endif
  return 0;
}
