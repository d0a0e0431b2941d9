/* kronecker.c -- the omp backend's Kronecker product of banded 1D matrices
 * (ts_kronecker_plan): every output entry y[r] sums the products of the factors' band
 * entries of its rows r_d over the columns of the bands, x read there (one OpenMP loop over
 * the outputs; products and sums in double for both precisions). */
#include <stdio.h>
#include "omp-kronecker.h"
#include "omp-threads.h"

#define KRONECKER(REAL, NAME)                                                                  \
  static void NAME(const ts_kronecker_plan *pl, const REAL *x, REAL *y, int add) {            \
    const REAL *v0 = pl->values[0], *v1 = pl->values[1], *v2 = pl->values[2];                \
    const int64_t r0n = pl->rows[0], r1n = pl->rows[1];                                      \
    const int64_t c0n = pl->cols[0], c1n = pl->cols[1], c2n = pl->cols[2];                   \
    const int w0 = pl->width[0], w1 = pl->width[1], w2 = pl->width[2];                       \
    _Pragma("omp parallel for schedule(static) num_threads(omp_operator_threads(pl->n_rows))") \
    for (int64_t r = 0; r < pl->n_rows; ++r) {                                               \
      const int64_t r0 = r % r0n, r1 = r / r0n % r1n, r2 = r / (r0n * r1n);                  \
      const int64_t s0 = (r0 / pl->row_step[0] - 1) * pl->col_step[0];                       \
      const int64_t s1 = (r1 / pl->row_step[1] - 1) * pl->col_step[1];                       \
      const int64_t s2 = pl->dim == 3 ? (r2 / pl->row_step[2] - 1) * pl->col_step[2] : 0;   \
      double sum = 0.0;                                                                      \
      for (int a2 = 0; a2 < w2; ++a2) {                                                      \
        const int64_t c2 = s2 + a2;                                                          \
        if (c2 < 0 || c2 >= c2n) continue;                                                   \
        const double f2 = pl->dim == 3 ? (double)v2[r2 * w2 + a2] : 1.0;                     \
        for (int a1 = 0; a1 < w1; ++a1) {                                                    \
          const int64_t c1 = s1 + a1;                                                        \
          if (c1 < 0 || c1 >= c1n) continue;                                                 \
          const double f21 = f2 * (double)v1[r1 * w1 + a1];                                  \
          const REAL *line = x + c0n * (c1 + c1n * c2);                                      \
          for (int a0 = 0; a0 < w0; ++a0) {                                                  \
            const int64_t c0 = s0 + a0;                                                      \
            if (c0 >= 0 && c0 < c0n) sum += f21 * (double)v0[r0 * w0 + a0] * (double)line[c0]; \
          }                                                                                  \
        }                                                                                    \
      }                                                                                      \
      sum *= pl->scale;                                                                      \
      y[r] = add ? (REAL)(y[r] + sum) : (REAL)sum;                                           \
    }                                                                                        \
  }

KRONECKER(double, kronecker_d)
KRONECKER(float, kronecker_f)

int ts_omp_kronecker_apply(const ts_kronecker_plan *plan, ts_precision p, const void *x, void *y,
                           int add, char *err, size_t errlen) {
  if (!plan || !x || !y || x == y) {
    snprintf(err, errlen, "omp kronecker_apply: %s",
             !plan ? "plan is NULL" : !x ? "x is NULL" : !y ? "y is NULL"
                                         : "x and y are the same vector");
    return TS_ERR_ARG;
  }
  if (p == TS_DOUBLE) kronecker_d(plan, x, y, add);
  else kronecker_f(plan, x, y, add);
  return 0;
}
