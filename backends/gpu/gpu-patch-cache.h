/* gpu-patch-cache.h -- the device copies of the vertex-patch smoother's plan data (1D patch
 * matrices, eigenvectors, the inverse eigenvalue sums), host code shared by the backend glue
 * (gpu-backend.h: the cache lives in the backend state and is freed in finalize) and the
 * kernels (gpu-patch.h: entries are looked up per call and uploaded on first use).
 *
 * The plan hands host pointers; the smoother runs inside every V-cycle, so the data is
 * uploaded once per distinct content and reused.  An entry is keyed by the content itself:
 * a key of doubles (precision, sizes, scales, matrices, eigenvalues) is built per call into
 * a scratch buffer, hashed (FNV-1a on words) and compared byte by byte with the host copy of
 * each entry of the same hash.  Entries are few (one per level and precision) and live until
 * the backend is finalized. */
#ifndef TESSERA_GPU_PATCH_CACHE_H
#define TESSERA_GPU_PATCH_CACHE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gpu-runtime.h"

/* One uploaded plan: coef is the image of the constant-memory coefficients (precision of
 * the entry), linv the inverse eigenvalue sums 1 / sum_d scale_d lambda_{d,i_d}. */
typedef struct ts_gpu_patch_entry {
  struct ts_gpu_patch_entry *next;
  uint64_t hash;
  uint64_t id;      /* unique per translation unit of the kernels (see gpu-patch.h) */
  size_t key_len;   /* doubles */
  double *key;      /* host copy of the key */
  void *coef;       /* device */
  size_t coef_bytes;
  void *linv;       /* device */
} ts_gpu_patch_entry;

typedef struct ts_gpu_patch_cache {
  ts_gpu_patch_entry *head;
  double *scratch; /* the key of the current call */
  size_t scratch_len;
} ts_gpu_patch_cache;

/* FNV-1a over the 64-bit words of n doubles (a word per step: the key has thousands). */
static inline uint64_t ts_gpu_patch_hash(const double *a, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    uint64_t w;
    memcpy(&w, a + i, sizeof w);
    h = (h ^ w) * 1099511628211ULL;
  }
  return h;
}

/* The entry with this key, or NULL. */
static inline ts_gpu_patch_entry *ts_gpu_patch_cache_find(ts_gpu_patch_cache *c,
                                                          const double *key, size_t len,
                                                          uint64_t hash) {
  for (ts_gpu_patch_entry *e = c->head; e; e = e->next)
    if (e->hash == hash && e->key_len == len && !memcmp(e->key, key, len * sizeof(double)))
      return e;
  return NULL;
}

/* Frees the device buffers and host copies of all entries (backend finalize). */
static inline void ts_gpu_patch_cache_free(ts_gpu_patch_cache *c) {
  while (c->head) {
    ts_gpu_patch_entry *e = c->head;
    c->head = e->next;
    if (e->coef) (void)gpuFree(e->coef);
    if (e->linv) (void)gpuFree(e->linv);
    free(e->key);
    free(e);
  }
  free(c->scratch);
  c->scratch = NULL;
  c->scratch_len = 0;
}

#endif
