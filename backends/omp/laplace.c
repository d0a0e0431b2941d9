/* laplace.c -- the omp backend's matrix-free Laplacian on a structured box (Q_k, 2D/3D):
 * y = A x, y += A x and diag(A), for double and float.
 *
 * Algorithm.  With equal cells the assembled operator is a Kronecker sum of assembled 1D
 * matrices, A = s0 K0 M1 M2 + s1 M0 K1 M2 + s2 M0 M1 K2, so it can be applied piece by
 * piece.  The unit of work is a tile: one cell in directions 1 and 2 (a pencil of (k+1)^2
 * rows of DoFs, contiguous along direction 0) times TL points (a multiple of k and of the
 * vector length, about 64) along direction 0.  Per row, P = M0 x and Q = K0 x with the
 * globally assembled 1D matrices in periodic diagonal storage (exact values, so tiles of a
 * pencil do not overlap; vectors along direction 0 read straight from x, only the vectors
 * next to the ends of the box read a masked copy).  Then, per strip of VL points (8 doubles
 * or 16 floats, one 64-byte vector), directions 1 and 2 as line operations on whole
 * vectors in even-odd form (M and K on Gauss-Lobatto nodes are centro-symmetric):
 * E = s0 M1 Q + s1 K1 P, F = s2 M1 P, Y = M2 E + K2 F, and Y goes to y.  Degree and
 * dimension are compile-time constants in the hot loops (a switch over always-inline
 * instances); the next tile's rows of x are prefetched.
 *
 * Threads.  Pencils are numbered p = c1 + cells1 c2; two pencils share rows of y only when
 * their numbers differ by at most G = cells1 + 1 (2D: 1).  Each thread takes a contiguous
 * range of pencils, first all but the last G of them, then (after a barrier) the last G:
 * within a phase no two threads touch the same row.  With add = 0 there is no zeroing
 * pass: the first pencil touching a row stores, the others add; only the few rows shared
 * by two threads are zeroed first.  The hot worker is compiled for x86-64-v4 (AVX-512),
 * x86-64-v3 (AVX2) and baseline x86-64, picked at load time (target_clones; define
 * TS_OMP_NO_CLONES to compile one version for the -march given).  On a processor with AVX2
 * but no AVX-512 a half-width instance runs instead (VL = 4 doubles or 8 floats, one
 * 32-byte register per V): with 64-byte vectors every V takes two of the 16 AVX2
 * registers, and the coefficients of step 1 and the even-odd halves of a line no longer
 * fit (see bench/results/2026-11-26-omp-2core-dealii.md).
 *
 * Dirichlet rows (plan->constrained): x is read as zero there, their rows are skipped and
 * finally set to y = x (y += x).  The even-odd forms come with the plan (lib/op/laplace.c);
 * if the plan's 1D matrices are not centro-symmetric, a plain (not even-odd) path with
 * run-time degree is used. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp-laplace.h"
#include "omp-threads.h"

#if defined(__GNUC__) && !defined(__clang__)
/* the kernels are written as a*b + c on vectors: let them become FMAs under -std=c11 */
#pragma GCC optimize("fp-contract=fast")
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(TS_OMP_NO_CLONES)
#define TS_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define TS_HALF_WIDTH 1
#else
#define TS_CLONES
#define TS_HALF_WIDTH 0
#endif

#define HMAX ((TS_MAX_DEGREE + 1) / 2) /* h = (k+1)/2 <= 5 */
#define XPAD 16                         /* zero padding around a row copy, >= TS_MAX_DEGREE */
/* target number of points of a tile along direction 0 */
#define TILE_POINTS(k) (64)
/* software prefetch of the next tile's rows of x: the locality hint (0 measured best on Zen5), or -1 for none */
#ifndef PF_LOC
#define PF_LOC 0
#endif

typedef double vd8 __attribute__((vector_size(64)));
typedef double vd8u __attribute__((vector_size(64), aligned(8), may_alias));
typedef float vf16 __attribute__((vector_size(64)));
typedef float vf16u __attribute__((vector_size(64), aligned(4), may_alias));

#define WORKER_ATTR TS_CLONES
#define REAL double
#define V vd8
#define VU vd8u
#define VL 8
#define FN(name) name##_d
#include "laplace-kernel.h"
#undef REAL
#undef V
#undef VU
#undef VL
#undef FN
#define REAL float
#define V vf16
#define VU vf16u
#define VL 16
#define FN(name) name##_f
#include "laplace-kernel.h"
#undef REAL
#undef V
#undef VU
#undef VL
#undef FN
#undef WORKER_ATTR

#if TS_HALF_WIDTH
typedef double vd4 __attribute__((vector_size(32)));
typedef double vd4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf8u __attribute__((vector_size(32), aligned(4), may_alias));

#define WORKER_ATTR __attribute__((target("arch=x86-64-v3")))
#define LAPLACE_APPLY_ONLY
#define REAL double
#define V vd4
#define VU vd4u
#define VL 4
#define FN(name) name##_d4
#include "laplace-kernel.h"
#undef REAL
#undef V
#undef VU
#undef VL
#undef FN
#define REAL float
#define V vf8
#define VU vf8u
#define VL 8
#define FN(name) name##_f8
#include "laplace-kernel.h"
#undef REAL
#undef V
#undef VU
#undef VL
#undef FN
#undef LAPLACE_APPLY_ONLY
#undef WORKER_ATTR

/* The half-width instances: on AVX2 and FMA without AVX-512.  TESSERA_OMP_LAPLACE_WIDE=1
 * asks for the 64-byte ones, =0 for the half-width ones wherever AVX2 and FMA are there (to
 * compare and cross-check the two). */
static int use_half_width(void) {
  const char *wide = getenv("TESSERA_OMP_LAPLACE_WIDE");
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
  if (wide && (wide[0] == '0' || wide[0] == '1')) return wide[0] == '0';
  return !__builtin_cpu_supports("avx512f");
}
#endif

/* the work space cache of the calling thread: grown, never shrunk */
static _Thread_local void *laplace_work = NULL;
static _Thread_local size_t laplace_work_bytes = 0;

int ts_omp_laplace_apply(const ts_laplace_plan *plan, ts_precision p, const void *x, void *y,
                         int add, char *err, size_t errlen) {
  const int centro = plan->centro_symmetric;
  int rc;
  if (!x || !y) {
    snprintf(err, errlen, "omp laplace apply: %s is NULL", x ? "y" : "x");
    return TS_ERR_ARG;
  }
  if (x == y) {
    snprintf(err, errlen, "omp laplace apply: x and y are the same vector (in-place apply is not supported)");
    return TS_ERR_ARG;
  }
#if TS_HALF_WIDTH
  if (use_half_width()) {
    if (p == TS_DOUBLE)
      rc = apply_d4(plan, (const double *)x, (double *)y, add, centro, &laplace_work, &laplace_work_bytes);
    else
      rc = apply_f8(plan, (const float *)x, (float *)y, add, centro, &laplace_work, &laplace_work_bytes);
  } else
#endif
  if (p == TS_DOUBLE)
    rc = apply_d(plan, (const double *)x, (double *)y, add, centro, &laplace_work, &laplace_work_bytes);
  else
    rc = apply_f(plan, (const float *)x, (float *)y, add, centro, &laplace_work, &laplace_work_bytes);
  if (rc) snprintf(err, errlen, "omp laplace apply: could not allocate the work space");
  return rc;
}

int ts_omp_laplace_diagonal(const ts_laplace_plan *plan, ts_precision p, void *d, char *err,
                            size_t errlen) {
  int rc = 0;
  if (!d) {
    snprintf(err, errlen, "omp laplace diagonal: d is NULL");
    return TS_ERR_ARG;
  }
  const int k = plan->degree;
  double *dm[3] = {NULL, NULL, NULL}, *dk[3] = {NULL, NULL, NULL};
  for (int e = 0; e < plan->dim && !rc; ++e) {
    dm[e] = calloc((size_t)plan->n[e], sizeof(double));
    dk[e] = calloc((size_t)plan->n[e], sizeof(double));
    if (!dm[e] || !dk[e]) {
      snprintf(err, errlen, "omp laplace diagonal: could not allocate %lld doubles",
               (long long)plan->n[e]);
      rc = TS_ERR_MEMORY;
      break;
    }
    for (int64_t c = 0; c < plan->cells[e]; ++c)
      for (int a = 0; a <= k; ++a) {
        dm[e][c * k + a] += plan->mass_1d[a * (k + 1) + a];
        dk[e][c * k + a] += plan->stiffness_1d[a * (k + 1) + a];
      }
  }
  if (!rc) {
    if (p == TS_DOUBLE)
      diagonal_d(plan, dm, dk, (double *)d);
    else
      diagonal_f(plan, dm, dk, (float *)d);
  }
  for (int e = 0; e < 3; ++e) {
    free(dm[e]);
    free(dk[e]);
  }
  return rc;
}
