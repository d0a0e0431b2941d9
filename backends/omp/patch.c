/* patch.c -- the omp backend's vertex-patch smoother kernel (paper 002, Algorithm 2.3 and
 * Table 4) on a structured box: one pass over the patches of one color, for double and
 * float.
 *
 * Algorithm.  The patches of the color are numbered lexicographically by their vertex and
 * taken VL at a time (8 doubles or 16 floats: one 64-byte vector), one patch per vector
 * lane, so every operation below is a full-width vector operation with scalar coefficients
 * and no shuffles.  Per group: gather the closed patch of x ((2k+1)^dim values per lane;
 * zero on Dirichlet DoFs) and the interior of b; compute the local residual
 * r = b - Abar x on the (2k-1)^dim interior DoFs by sum factorization with the 1D patch
 * matrices (P = M0 x, Q = K0 x, then E = s0 M1 Q + s1 K1 P, F = s2 M1 P, Abar x = M2 E + K2 F
 * in 3D), skipping the zero blocks of the 2-cell 1D matrices; solve by fast diagonalization,
 * t = (x) S  L^{-1}  (x) S^T r (six 1D contractions in 3D); add t to x on the interior.
 * Stages: Fused does all of it; Residual stores r into the residual vector; Solve reads r
 * from it and updates x; Boundary sets x = b on the Dirichlet DoFs.
 *
 * Threads.  Patches of one color share no interior DoF and none lies in another's closed
 * patch, so the groups are independent: an OpenMP loop with dynamic scheduling.  The degree
 * and dimension are compile-time constants in the hot loops (a switch over always-inline
 * instances compiled for x86-64-v4, see TS_FAST); the contractions keep all outputs of a
 * line in registers.  The gathers and scatters are scalar per lane: the next lever for
 * low degrees (a VL x VL transpose of row segments). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp-patch.h"
#include "omp-threads.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

/* The compile-time-degree instances are compiled for AVX-512 (x86-64-v4) only and picked at
 * run time when the processor has it; elsewhere a run-time-degree instance runs (one
 * instance per precision and dimension: target_clones of all instances took over 10 minutes
 * to compile).  With TS_OMP_NO_CLONES the fast instances are compiled for the -march given
 * and always used. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(TS_OMP_NO_CLONES)
#define TS_FAST __attribute__((target("arch=x86-64-v4")))
#define TS_FAST_OK()                                                                     \
  (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&           \
   __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&         \
   __builtin_cpu_supports("avx512vl"))
#else
#define TS_FAST
#define TS_FAST_OK() 1
#endif

typedef double pd8 __attribute__((vector_size(64)));
typedef float pf16 __attribute__((vector_size(64)));

#define REAL double
#define V pd8
#define VL 8
#define FN(name) patch_##name##_d
#include "patch-kernel.h"
#undef REAL
#undef V
#undef VL
#undef FN
#define REAL float
#define V pf16
#define VL 16
#define FN(name) patch_##name##_f
#include "patch-kernel.h"
#undef REAL
#undef V
#undef VL
#undef FN

/* the work space cache of the calling thread: grown, never shrunk */
static _Thread_local void *patch_work = NULL;
static _Thread_local size_t patch_work_bytes = 0;

int ts_omp_patch_smooth(const ts_patch_plan *plan, ts_precision p, const void *b, void *x,
                        void *r, char *err, size_t errlen) {
  const int need_r = plan->stage == TS_PATCH_STAGE_RESIDUAL || plan->stage == TS_PATCH_STAGE_SOLVE;
  if (!b || !x || (need_r && !r)) {
    snprintf(err, errlen, "omp patch_smooth: %s is NULL", !b ? "b" : !x ? "x" : "r (the residual vector)");
    return TS_ERR_ARG;
  }
  if (b == x || (need_r && (r == x || r == b))) {
    snprintf(err, errlen, "omp patch_smooth: b, x and r must be different vectors");
    return TS_ERR_ARG;
  }
  /* TESSERA_OMP_PATCH_GENERIC=1 forces the run-time-degree path (to test it) */
  const char *generic = getenv("TESSERA_OMP_PATCH_GENERIC");
  const int fast = TS_FAST_OK() && !(generic && generic[0] == '1');
  const int rc = p == TS_DOUBLE
                     ? patch_smooth_d(plan, b, x, r, fast, &patch_work, &patch_work_bytes)
                     : patch_smooth_f(plan, b, x, r, fast, &patch_work, &patch_work_bytes);
  if (rc) snprintf(err, errlen, "omp patch_smooth: could not allocate the work space");
  return rc;
}
