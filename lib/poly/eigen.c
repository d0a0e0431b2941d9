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

/* The same problem by the cyclic Jacobi method, for the many small problems of per-patch
 * local solvers set up from OpenMP threads (lib/mg/patch-additive.c): no allocation, no
 * BLAS.  Debian's OpenBLAS serializes LAPACK calls made from several threads at once
 * (measured: the per-patch setup 11x slower than with one BLAS thread), and for n <= 21 a
 * dsygv call costs more in its overhead than in its arithmetic.  With M = L L^T (Cholesky),
 * C = L^{-1} K L^{-T} is diagonalized by plane rotations, C = V Lambda V^T (sweeps until
 * the off-diagonal part is below 1e-17 of the norm: the eigenvectors to rounding, as dsygv),
 * then S = L^{-T} V, so S^T M S = I and S^T K S = Lambda; eigenvalues ascending. */
#define JACOBI_MAX 21
#define JACOBI_SWEEPS 50

/* C = L^{-1} K L^{-T} for the lower Cholesky factor L (row-major n x n); 0 or the failing
 * column + 1 when M is not positive definite. */
static int cholesky_reduce(int n, const double *K, const double *M, double *L, double *C) {
  for (int j = 0; j < n; ++j) {
    double d = M[j * n + j];
    for (int k = 0; k < j; ++k) d -= L[j * n + k] * L[j * n + k];
    if (!(d > 0.0)) return j + 1;
    L[j * n + j] = sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = 0.5 * (M[i * n + j] + M[j * n + i]);
      for (int k = 0; k < j; ++k) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / L[j * n + j];
    }
    for (int i = 0; i < j; ++i) L[i * n + j] = 0.0;
  }
  double T[JACOBI_MAX * JACOBI_MAX]; /* T = L^{-1} K (forward substitution per column) */
  for (int c = 0; c < n; ++c)
    for (int i = 0; i < n; ++i) {
      double s = 0.5 * (K[i * n + c] + K[c * n + i]);
      for (int k = 0; k < i; ++k) s -= L[i * n + k] * T[k * n + c];
      T[i * n + c] = s / L[i * n + i];
    }
  for (int r = 0; r < n; ++r) /* C = T L^{-T}: row r of C solves L C[r]^T = T[r]^T */
    for (int i = 0; i < n; ++i) {
      double s = T[r * n + i];
      for (int k = 0; k < i; ++k) s -= L[i * n + k] * C[r * n + k];
      C[r * n + i] = s / L[i * n + i];
    }
  for (int i = 0; i < n; ++i) /* symmetric up to rounding */
    for (int j = 0; j < i; ++j) C[i * n + j] = C[j * n + i] = 0.5 * (C[i * n + j] + C[j * n + i]);
  return 0;
}

/* C (symmetric) = V diag(C) V^T by cyclic Jacobi rotations; V row-major, column j vector j. */
static void jacobi_rotations(int n, double *C, double *V) {
  for (int i = 0; i < n * n; ++i) V[i] = i % (n + 1) == 0 ? 1.0 : 0.0;
  double norm = 0.0;
  for (int i = 0; i < n * n; ++i) norm += C[i] * C[i];
  for (int sweep = 0; sweep < JACOBI_SWEEPS; ++sweep) {
    double off = 0.0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += 2.0 * C[p * n + q] * C[p * n + q];
    if (off <= 1e-34 * norm) return;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        const double apq = C[p * n + q];
        if (apq == 0.0) continue;
        const double theta = 0.5 * (C[q * n + q] - C[p * n + p]) / apq;
        const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
        const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; ++k) { /* columns p, q */
          const double kp = C[k * n + p], kq = C[k * n + q];
          C[k * n + p] = c * kp - s * kq;
          C[k * n + q] = s * kp + c * kq;
        }
        for (int k = 0; k < n; ++k) { /* rows p, q */
          const double pk = C[p * n + k], qk = C[q * n + k];
          C[p * n + k] = c * pk - s * qk;
          C[q * n + k] = s * pk + c * qk;
        }
        for (int k = 0; k < n; ++k) {
          const double vp = V[k * n + p], vq = V[k * n + q];
          V[k * n + p] = c * vp - s * vq;
          V[k * n + q] = s * vp + c * vq;
        }
      }
  }
}

int ts_generalized_eigen_small(int n, const double *K, const double *M, double *S, double *lambda) {
  TS_CHECK_ARG(n >= 1 && n <= JACOBI_MAX, "small generalized eigenproblem: size %d, allowed 1..%d",
               n, JACOBI_MAX);
  TS_CHECK_ARG(K && M && S && lambda, "small generalized eigenproblem: NULL argument");
  for (int i = 0; i < n * n; ++i)
    TS_CHECK_ARG(isfinite(K[i]) && isfinite(M[i]),
                 "small generalized eigenproblem: entry %d of %s is not finite", i,
                 isfinite(K[i]) ? "M" : "K");
  double L[JACOBI_MAX * JACOBI_MAX], C[JACOBI_MAX * JACOBI_MAX], V[JACOBI_MAX * JACOBI_MAX];
  const int failed = cholesky_reduce(n, K, M, L, C);
  if (failed)
    return TS_ERROR(TS_ERR_ARG, "small generalized eigenproblem: the mass matrix (size %d) is "
                    "not positive definite (column %d)", n, failed - 1);
  jacobi_rotations(n, C, V);
  int order[JACOBI_MAX];
  for (int i = 0; i < n; ++i) order[i] = i;
  for (int i = 1; i < n; ++i) /* ascending (insertion sort) */
    for (int j = i; j > 0 && C[order[j] * (n + 1)] < C[order[j - 1] * (n + 1)]; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int j = 0; j < n; ++j) {
    lambda[j] = C[order[j] * (n + 1)];
    for (int i = n - 1; i >= 0; --i) { /* column j of S = L^{-T} V: back substitution */
      double s = V[i * n + order[j]];
      for (int k = i + 1; k < n; ++k) s -= L[k * n + i] * S[k * n + j];
      S[i * n + j] = s / L[i * n + i];
    }
  }
  return 0;
}

void ts_matrix_1d_assemble(int cells, int n, const double *cell, double *out) {
  const int N = cells * (n - 1) + 1;
  for (int i = 0; i < N * N; ++i) out[i] = 0.0;
  for (int c = 0; c < cells; ++c)
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) out[(c * (n - 1) + a) * N + c * (n - 1) + b] += cell[a * n + b];
}
