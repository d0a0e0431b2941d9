/* ceilings.c -- the omp backend's ceilings, measured in the same run as a benchmark: copy
 * bandwidth of two 256 MiB arrays (read + write counted) and the FMA throughput of
 * independent vector chains per thread, double and single.  A simple measurement: the FMA
 * loops are compiled for the same instruction set as the kernels (target_clones where
 * available), best of three. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "omp-laplace.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(TS_OMP_NO_CLONES)
#define TS_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TS_CLONES
#endif

#define CHAINS 64
#define ITERS 200000

TS_CLONES static double fma_double(void) {
  double s = 0;
#pragma omp parallel reduction(+ : s)
  {
    double v[CHAINS];
    for (int q = 0; q < CHAINS; ++q) v[q] = omp_get_thread_num() + q;
    for (int it = 0; it < ITERS; ++it)
#pragma omp simd
      for (int q = 0; q < CHAINS; ++q) v[q] = v[q] * 0.999999 + 1e-7;
    for (int q = 0; q < CHAINS; ++q) s += v[q];
  }
  return s;
}

TS_CLONES static float fma_float(void) {
  float s = 0;
#pragma omp parallel reduction(+ : s)
  {
    float v[2 * CHAINS];
    for (int q = 0; q < 2 * CHAINS; ++q) v[q] = (float)(omp_get_thread_num() + q);
    for (int it = 0; it < ITERS; ++it)
#pragma omp simd
      for (int q = 0; q < 2 * CHAINS; ++q) v[q] = v[q] * 0.9999f + 1e-4f;
    for (int q = 0; q < 2 * CHAINS; ++q) s += v[q];
  }
  return s;
}

int ts_omp_measure_ceilings(ts_backend_ceilings *c, char *err, size_t errlen) {
  const size_t n = (size_t)32 << 20; /* 32 Mi doubles = 256 MiB per array */
  double *a = aligned_alloc(64, n * sizeof(double)), *b = aligned_alloc(64, n * sizeof(double));
  if (!a || !b) {
    free(a);
    free(b);
    snprintf(err, errlen, "omp measure_ceilings: could not allocate 2 x 256 MiB");
    return TS_ERR_MEMORY;
  }
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = (double)i;
    b[i] = 0.0;
  }
  double best = 1e30;
  for (int r = 0; r < 4; ++r) {
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
    const double t = omp_get_wtime() - t0;
    if (r > 0 && t < best) best = t;
  }
  c->copy_bytes_per_second = 2.0 * (double)n * sizeof(double) / best;
  free(a);
  free(b);
  const double flops = 2.0 * CHAINS * (double)ITERS * omp_get_max_threads();
  volatile double sink = 0;
  best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const double t0 = omp_get_wtime();
    sink += fma_double();
    const double t = omp_get_wtime() - t0;
    if (t < best) best = t;
  }
  c->fp64_flops_per_second = flops / best;
  best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const double t0 = omp_get_wtime();
    sink += fma_float();
    const double t = omp_get_wtime() - t0;
    if (t < best) best = t;
  }
  c->fp32_flops_per_second = 2.0 * flops / best;
  (void)sink;
  return 0;
}
