/* t-hdiv-spectrum.c -- paper 003's Propositions 1 and 2 on the assembled H(div) system: for
 * the transformed saddle-point matrix Acal = [M_beta D^T; D -W_alpha^{-1}] (eq. 11) and the
 * block-diagonal preconditioner B = diag(tau M_beta, S) with the exact Schur complement
 * S = W_alpha^{-1} + D M_beta^{-1} D^T, the eigenvalues of B^{-1} Acal (dense, LAPACK dsygv
 * through ts_generalized_eigen) lie in
 *   tau = 1:  [-1, (1 - sqrt 5)/2] u [1, (1 + sqrt 5)/2],  kappa <= (sqrt 5 + 1)/(sqrt 5 - 1),
 *   tau = 2:  [-1, -1/2] u [1/2, 1],                        kappa <= 2,
 * to 1e-10 (rounding), and both signs occur.  2D RT_0..RT_2 and 3D RT_0 on small meshes,
 * alpha = beta = 1 and alpha = 0.01, beta = 3; every flux an unknown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera-impl.h"

#define EPS 1e-10

/* A (rows x cols) into the dense row-major array a with leading dimension ld at (r0, c0),
 * times s */
static int to_dense(ts_matrix A, double s, int transpose, double *a, int64_t ld, int64_t r0,
                    int64_t c0) {
  const int64_t *ro, *col;
  const double *v;
  TS_CALL(ts_matrix_csr(A, &ro, &col, &v));
  for (int64_t i = 0; i < ts_matrix_rows(A); ++i)
    for (int64_t e = ro[i]; e < ro[i + 1]; ++e) {
      const int64_t r = transpose ? col[e] : i, c = transpose ? i : col[e];
      a[(r0 + r) * ld + c0 + c] = s * v[e];
    }
  return 0;
}

typedef struct spectrum {
  double neg_low, neg_high, pos_low, pos_high; /* the extreme negative and positive eigenvalues */
  int negatives, positives;
} spectrum;

/* eigenvalues of K x = lambda B x, n x n */
static int spectrum_of(int n, const double *K, const double *B, spectrum *s) {
  double *S = malloc((size_t)n * n * sizeof *S), *lambda = malloc((size_t)n * sizeof *lambda);
  int ierr = S && lambda ? ts_generalized_eigen(n, K, B, S, lambda) : TS_ERR_MEMORY;
  *s = (spectrum){INFINITY, -INFINITY, INFINITY, -INFINITY, 0, 0};
  for (int i = 0; i < n && !ierr; ++i) {
    if (lambda[i] < 0) {
      s->negatives++;
      s->neg_low = fmin(s->neg_low, lambda[i]);
      s->neg_high = fmax(s->neg_high, lambda[i]);
    } else {
      s->positives++;
      s->pos_low = fmin(s->pos_low, lambda[i]);
      s->pos_high = fmax(s->pos_high, lambda[i]);
    }
  }
  free(S);
  free(lambda);
  return ierr;
}

/* M^{-1} (n x n, symmetric positive definite) by its eigen-decomposition M = V L V^T */
static int inverse_spd(int n, const double *M, double *inverse) {
  double *I = calloc((size_t)n * n, sizeof *I), *V = malloc((size_t)n * n * sizeof *V);
  double *l = malloc((size_t)n * sizeof *l);
  int ierr = I && V && l ? 0 : TS_ERR_MEMORY;
  for (int i = 0; i < n && !ierr; ++i) I[i * n + i] = 1.0;
  if (!ierr) ierr = ts_generalized_eigen(n, M, I, V, l); /* V orthonormal */
  for (int i = 0; i < n && !ierr; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int m = 0; m < n; ++m) s += V[i * n + m] * V[j * n + m] / l[m];
      inverse[i * n + j] = s;
    }
  free(I);
  free(V);
  free(l);
  return ierr;
}

typedef struct system {
  int nu, np, n;
  double *K, *Mu, *S; /* Acal (n x n), M_beta (nu x nu), S (np x np) */
} system_t;

static void system_free(system_t *s) {
  free(s->K);
  free(s->Mu);
  free(s->S);
}

/* the dense Acal, M_beta and exact S of RT_k on `cells` refined `level` times */
static int build(int dim, int k, const int *cells, int level, double alpha, double beta,
                 system_t *s) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1.5, 1};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_matrix M = NULL, D = NULL, Winv = NULL;
  double *Minv = NULL, *Dd = NULL;
  memset(s, 0, sizeof *s);
  int ierr = ts_mesh_create_box(dim, lower, upper, cells, level, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
  if (!ierr) ierr = ts_matrix_assemble_mass(u, beta, NULL, &M);
  if (!ierr) ierr = ts_matrix_assemble_divergence(u, p, &D);
  if (!ierr) ierr = ts_matrix_assemble_mass_inverse(p, alpha, NULL, &Winv);
  if (!ierr) {
    s->nu = (int)ts_dofs_count(u);
    s->np = (int)ts_dofs_count(p);
    s->n = s->nu + s->np;
    s->K = calloc((size_t)s->n * s->n, sizeof *s->K);
    s->Mu = calloc((size_t)s->nu * s->nu, sizeof *s->Mu);
    s->S = calloc((size_t)s->np * s->np, sizeof *s->S);
    Minv = calloc((size_t)s->nu * s->nu, sizeof *Minv);
    Dd = calloc((size_t)s->np * s->nu, sizeof *Dd);
    ierr = s->K && s->Mu && s->S && Minv && Dd ? 0 : TS_ERR_MEMORY;
  }
  if (!ierr) ierr = to_dense(M, 1.0, 0, s->K, s->n, 0, 0);
  if (!ierr) ierr = to_dense(D, 1.0, 1, s->K, s->n, 0, s->nu);     /* D^T */
  if (!ierr) ierr = to_dense(D, 1.0, 0, s->K, s->n, s->nu, 0);     /* D */
  if (!ierr) ierr = to_dense(Winv, -1.0, 0, s->K, s->n, s->nu, s->nu);
  if (!ierr) ierr = to_dense(M, 1.0, 0, s->Mu, s->nu, 0, 0);
  if (!ierr) ierr = to_dense(D, 1.0, 0, Dd, s->nu, 0, 0);
  if (!ierr) ierr = to_dense(Winv, 1.0, 0, s->S, s->np, 0, 0);
  if (!ierr) ierr = inverse_spd(s->nu, s->Mu, Minv);
  for (int i = 0; i < s->np && !ierr; ++i) /* S += D M^{-1} D^T */
    for (int j = 0; j < s->np; ++j) {
      double sum = 0.0;
      for (int a = 0; a < s->nu; ++a) {
        if (Dd[i * s->nu + a] == 0.0) continue;
        for (int b = 0; b < s->nu; ++b) sum += Dd[i * s->nu + a] * Minv[a * s->nu + b] * Dd[j * s->nu + b];
      }
      s->S[i * s->np + j] += sum;
    }
  free(Minv);
  free(Dd);
  ts_matrix_destroy(&M);
  ts_matrix_destroy(&D);
  ts_matrix_destroy(&Winv);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
  if (ierr) system_free(s);
  return ierr;
}

/* B = diag(tau M, S) */
static double *preconditioner(const system_t *s, double tau) {
  double *B = calloc((size_t)s->n * s->n, sizeof *B);
  if (!B) return NULL;
  for (int i = 0; i < s->nu; ++i)
    for (int j = 0; j < s->nu; ++j) B[i * s->n + j] = tau * s->Mu[i * s->nu + j];
  for (int i = 0; i < s->np; ++i)
    for (int j = 0; j < s->np; ++j) B[(s->nu + i) * s->n + s->nu + j] = s->S[i * s->np + j];
  return B;
}

static void propositions(int dim, int k, const int *cells, int level, double alpha, double beta) {
  system_t s;
  int ierr = build(dim, k, cells, level, alpha, beta, &s);
  const double golden_low = (1.0 - sqrt(5.0)) / 2.0, golden_high = (1.0 + sqrt(5.0)) / 2.0;
  for (int tau = 1; tau <= 2; ++tau) {
    spectrum sp = {0};
    double *B = ierr ? NULL : preconditioner(&s, tau);
    const int e = ierr ? ierr : B ? spectrum_of(s.n, s.K, B, &sp) : TS_ERR_MEMORY;
    free(B);
    if (e) diag("%s", ts_error_message());
    const double neg_high = tau == 1 ? golden_low : -0.5, pos_low = tau == 1 ? 1.0 : 0.5;
    const double pos_high = tau == 1 ? golden_high : 1.0;
    const double kappa = fmax(-sp.neg_low, sp.pos_high) / fmin(-sp.neg_high, sp.pos_low);
    const double kappa_bound = tau == 1 ? (sqrt(5.0) + 1.0) / (sqrt(5.0) - 1.0) : 2.0;
    ok(!e && sp.negatives > 0 && sp.positives > 0 && sp.neg_low >= -1.0 - EPS &&
           sp.neg_high <= neg_high + EPS && sp.pos_low >= pos_low - EPS &&
           sp.pos_high <= pos_high + EPS && kappa <= kappa_bound + EPS,
       "Proposition %d: %dD RT_%d, %d DoFs, alpha %g, beta %g: eigenvalues [%.6f, %.6f] u "
       "[%.6f, %.6f] (%d and %d), kappa %.4f <= %.4f", tau, dim, k, s.n, alpha, beta, sp.neg_low,
       sp.neg_high, sp.pos_low, sp.pos_high, sp.negatives, sp.positives, kappa, kappa_bound);
  }
  if (!ierr) system_free(&s);
}

int main(void) {
  plan(2 * 5);
  const int c2[2] = {2, 3}, c3[3] = {2, 2, 1};
  propositions(2, 0, c2, 1, 1.0, 1.0);
  propositions(2, 1, c2, 1, 1.0, 1.0);
  propositions(2, 2, c2, 0, 1.0, 1.0);
  propositions(2, 1, c2, 1, 0.01, 3.0);
  propositions(3, 0, c3, 1, 1.0, 1.0);
  return exit_status();
}
