/* memory.c -- host allocation with recorded errors and overflow-checked sizes. */
#include <stdlib.h>
#include "../tessera-impl.h"

int ts_size_mul(size_t count, size_t size, const char *what, size_t *bytes) {
  if (size && count > SIZE_MAX / size)
    return TS_ERROR(TS_ERR_MEMORY, "%s: %zu x %zu bytes overflows the address space", what,
                    count, size);
  *bytes = count * size;
  return 0;
}

int ts_calloc(size_t count, size_t size, const char *what, void *ptr_out) {
  size_t bytes;
  TS_CALL(ts_size_mul(count, size, what, &bytes));
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) return TS_ERROR(TS_ERR_MEMORY, "could not allocate %zu bytes for %s", bytes, what);
  *(void **)ptr_out = p;
  return 0;
}

void ts_free(void *ptr_address) {
  void **p = (void **)ptr_address;
  free(*p);
  *p = NULL;
}
