/* fake-backend.c -- two deliberately broken backend modules for t-backend: built with
 * FAKE_BAD_ABI it claims a future ABI version; without, it registers but cannot start. */
#include <stdio.h>
#include "tessera/backend.h"

static int fake_init(ts_backend_ops *ops) {
  snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "no device found (fake backend for tests)");
  return TS_ERR_BACKEND;
}

int tessera_backend_register(ts_backend_ops *ops);
int tessera_backend_register(ts_backend_ops *ops) {
#ifdef FAKE_BAD_ABI
  ops->abi_version = TS_BACKEND_ABI_VERSION + 1000;
#else
  ops->abi_version = TS_BACKEND_ABI_VERSION;
#endif
  ops->struct_size = sizeof(ts_backend_ops);
  ops->name = "fake";
  ops->init = fake_init;
  return 0;
}
