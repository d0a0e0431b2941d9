/* eigen.c -- symmetric-definite generalized eigenproblems K s = lambda M s by LAPACK dsygv,
 * the ingredient of the fast diagonalization of tensor-product local solvers (paper 002,
 * eq. 2.15), and the assembly of 1D matrices over a few consecutive cells. */
#include <math.h>
#include <stdlib.h>
#include "../tessera-impl.h"

/* LAPACK: generalized symmetric-definite eigenproblem (itype 1: A x = lambda B x). */
void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
            const int *lda, double *b, const int *ldb, double *w, double *work,
            const int *lwork, int *info);

int ts_generalized_eigen(int n, const double *K, const double *M, double *S, double *lambda) {
  TS_CHECK_ARG(n >= 1 && n <= 4096, "generalized eigenproblem: size %d, allowed 1..4096", n);
  TS_CHECK_ARG(K && M && S && lambda, "generalized eigenproblem: NULL argument");
  for (int i = 0; i < n * n; ++i)
    TS_CHECK_ARG(isfinite(K[i]) && isfinite(M[i]),
                 "generalized eigenproblem: entry %d of %s is not finite", i,
                 isfinite(K[i]) ? "M" : "K");
  const int lwork = 66 * n, itype = 1;
  double *a, *b, *work;
  TS_CALL(ts_calloc((size_t)n * n * 2 + (size_t)lwork, sizeof(double), "dsygv work space", &a));
  b = a + (size_t)n * n;
  work = b + (size_t)n * n;
  /* symmetric: row-major and column-major storage agree; symmetrize against rounding */
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      a[i * n + j] = 0.5 * (K[i * n + j] + K[j * n + i]);
      b[i * n + j] = 0.5 * (M[i * n + j] + M[j * n + i]);
    }
  int info = 0;
  dsygv_(&itype, "V", "U", &n, a, &n, b, &n, lambda, work, &lwork, &info);
  if (info) {
    ts_free(&a);
    if (info > n)
      return TS_ERROR(TS_ERR_LAPACK,
                      "dsygv: the mass matrix (size %d) is not positive definite (leading minor "
                      "%d); info = %d",
                      n, info - n, info);
    return TS_ERROR(TS_ERR_LAPACK, "dsygv failed for a %dx%d problem: info = %d", n, n, info);
  }
  /* column j of the column-major result is eigenvector j */
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) S[i * n + j] = a[j * n + i];
  ts_free(&a);
  return 0;
}

void ts_matrix_1d_assemble(int cells, int n, const double *cell, double *out) {
  const int N = cells * (n - 1) + 1;
  for (int i = 0; i < N * N; ++i) out[i] = 0.0;
  for (int c = 0; c < cells; ++c)
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) out[(c * (n - 1) + a) * N + c * (n - 1) + b] += cell[a * n + b];
}
