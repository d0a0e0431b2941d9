/* t-stokes-reference.c -- self-test of the dense reference Stokes matrix
 * (tests/stokes-reference.c) on anisotropic boxes, 2D and 3D, several k:
 *   1. structure: A symmetric, the pressure blocks +B^T / -B, zero pressure-pressure block;
 *   2. B^T 1 = 0 on the unconstrained velocity rows (int div v = 0, doc/stokes.md section 3);
 *   3. -B u = -(q, div u) for the linear fields u = a.x componentwise (in RT_k for every k):
 *      zero for a divergence-free a, -(sum a) int q otherwise (unconstrained matrix);
 *   4. the energy u^T A u of a product field u_i = prod_d f_id(x_d), zero normal component on
 *      the boundary, jumping across interior faces in its tangential directions, against the
 *      same energy computed by 1D integration: a_h(u,u) = sum_i sum_d E_id prod_{e!=d} M_ie
 *      (E: the 1D interior penalty energy of f_id, M = int f_ie^2), which any wrong sign or
 *      factor of a face term changes. */
#include <math.h>
#include <stdlib.h>
#include "stokes-reference.h"
#include "tap.h"
#include "tessera-impl.h"

typedef struct test_case {
  int dim, k;
  int64_t cells[3];
  double h[3];
} test_case;

static const double eta = 2.0;

static double max_abs(const double *v, int64_t n) {
  double m = 0.0;
  for (int64_t j = 0; j < n; ++j) m = fmax(m, fabs(v[j]));
  return m;
}

static void check_structure(const test_case *t, const double *A, int64_t n, int64_t n_u) {
  double asym = 0.0, pblock = 0.0, scale = max_abs(A, n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      if (i < n_u && j < n_u) asym = fmax(asym, fabs(A[i * n + j] - A[j * n + i]));
      if (i < n_u && j >= n_u) asym = fmax(asym, fabs(A[i * n + j] + A[j * n + i]));
      if (i >= n_u && j >= n_u) pblock = fmax(pblock, fabs(A[i * n + j]));
    }
  ok(asym <= 1e-13 * scale && pblock == 0.0,
     "%dD k=%d: A symmetric, pressure blocks B^T and -B, zero pressure block (%.2e, %.2e)",
     t->dim, t->k, asym / scale, pblock);
}

static void check_constant_pressure(const test_case *t, const double *A, int64_t n, int64_t n_u) {
  double worst = 0.0, scale = max_abs(A, n * n);
  for (int64_t i = 0; i < n_u; ++i) {
    double s = 0.0;
    for (int64_t j = n_u; j < n; ++j) s += A[i * n + j];
    worst = fmax(worst, fabs(s));
  }
  ok(worst <= 1e-12 * scale, "%dD k=%d: B^T 1 = 0 (%.2e)", t->dim, t->k, worst / scale);
}

/* y_p of the unconstrained matrix for u_i = a_i x_i against -(sum a) int q_p, where
 * int q_p = prod_d h_d w_{r_d} for the Gauss-Lagrange basis (w: the Gauss weights). */
static void check_divergence(const test_case *t, int64_t n, int64_t n_u) {
  double *A = malloc(sizeof(double) * (size_t)(n * n)), *u = calloc((size_t)n, sizeof(double));
  const double slopes[2][3] = {{1.0, -1.0, 0.0}, {1.0, 2.0, 4.0}};
  double worst = 0.0, gp[TS_MAX_POINTS], gw[TS_MAX_POINTS];
  int failed = stokes_reference_matrix_unconstrained(t->dim, t->k, t->cells, t->h, eta, A, n);
  ts_gauss_rule(t->k + 1, gp, gw);
  for (int s = 0; s < 2 && !failed; ++s) {
    double div = 0.0;
    for (int d = 0; d < t->dim; ++d) div += slopes[s][d];
    for (int64_t j = 0; j < n_u; ++j) {
      int f;
      double x[3];
      stokes_reference_support_point(t->dim, t->k, t->cells, t->h, j, &f, x);
      u[j] = slopes[s][f] * x[f];
    }
    for (int64_t i = n_u; i < n; ++i) {
      int f;
      double x[3], y = 0.0, integral = 1.0;
      for (int64_t j = 0; j < n_u; ++j) y += A[i * n + j] * u[j];
      stokes_reference_support_point(t->dim, t->k, t->cells, t->h, i, &f, x);
      for (int d = 0; d < t->dim; ++d) {
        const double r = x[d] / t->h[d] - floor(x[d] / t->h[d]);
        for (int m = 0; m <= t->k; ++m)
          if (fabs(gp[m] - r) < 1e-12) integral *= t->h[d] * gw[m];
      }
      worst = fmax(worst, fabs(y + div * integral));
    }
  }
  ok(!failed && worst <= 1e-13, "%dD k=%d: -B u = -(q, div u) for linear u, divergence-free or not (%.2e)",
     t->dim, t->k, worst);
  free(A);
  free(u);
}

/* The factor f_id of the energy field and its derivative at x in cell c of direction d:
 * in the own direction (d == i) X (1 - X), X = x / L (continuous, zero at both ends: the
 * normal component vanishes on the boundary); elsewhere 1 + alpha X + beta (x - x_c) / h
 * (x_c: the cell's center), which jumps by beta across every interior face. Degrees 2 and 1:
 * in RT_k for k >= 1. */
static double factor(int i, int d, double L, double h, int64_t c, double x, double *deriv) {
  if (d == i) {
    *deriv = (1.0 - 2.0 * x / L) / L;
    return x / L * (1.0 - x / L);
  }
  const double alpha = 0.5 + 0.25 * i + 0.125 * d, beta = 0.3 + 0.1 * (i + 2 * d);
  *deriv = alpha / L + beta / h;
  return 1.0 + alpha * x / L + beta * (x - h * ((double)c + 0.5)) / h;
}

/* E_id (the 1D interior penalty energy of f_id, paper 000 eq. (3) in 1D) and M_id = int f^2,
 * by an 8-point Gauss rule per cell (exact: f is quadratic per cell). */
static void factor_integrals(const test_case *t, int i, int d, double *E, double *M) {
  const double h = t->h[d], L = t->cells[d] * h, gamma = eta * (t->k + 1) * (t->k + 2) / h;
  double qx[8], qw[8], f, df, fm, dfm;
  ts_gauss_rule(8, qx, qw);
  *E = *M = 0.0;
  for (int64_t c = 0; c < t->cells[d]; ++c) {
    for (int q = 0; q < 8; ++q) {
      f = factor(i, d, L, h, c, h * ((double)c + qx[q]), &df);
      *E += h * qw[q] * df * df;
      *M += h * qw[q] * f * f;
    }
    f = factor(i, d, L, h, c, h * (double)c, &df); /* the cell's left face */
    if (c == 0) {
      *E += 2.0 * gamma * f * f + 2.0 * df * f; /* n = -1: - 2 d_n f f = + 2 f' f */
    } else {                                     /* K^- = cell c-1, K^+ = cell c */
      fm = factor(i, d, L, h, c - 1, h * (double)c, &dfm);
      const double jump = fm - f, average = 0.5 * (dfm + df);
      *E += gamma * jump * jump - 2.0 * average * jump;
    }
  }
  f = factor(i, d, L, h, t->cells[d] - 1, L, &df);
  *E += 2.0 * gamma * f * f - 2.0 * df * f; /* n = +1 */
}

static double energy_by_1d_integrals(const test_case *t) {
  double total = 0.0, E[3][3], M[3][3];
  for (int i = 0; i < t->dim; ++i)
    for (int d = 0; d < t->dim; ++d) factor_integrals(t, i, d, &E[i][d], &M[i][d]);
  for (int i = 0; i < t->dim; ++i)
    for (int d = 0; d < t->dim; ++d) {
      double term = E[i][d];
      for (int e = 0; e < t->dim; ++e)
        if (e != d) term *= M[i][e];
      total += term;
    }
  return total;
}

/* u^T A u with u the nodal interpolant of the product field (constrained matrix). */
static void check_energy(const test_case *t, const double *A, int64_t n, int64_t n_u) {
  if (t->k < 1) {
    skip(1, "the energy field is quadratic in its own direction: k >= 1");
    return;
  }
  double *u = calloc((size_t)n_u, sizeof(double));
  for (int64_t j = 0; j < n_u; ++j) {
    int i;
    double x[3], unused;
    stokes_reference_support_point(t->dim, t->k, t->cells, t->h, j, &i, x);
    u[j] = 1.0;
    for (int d = 0; d < t->dim; ++d) {
      const double L = t->cells[d] * t->h[d];
      int64_t c = (int64_t)floor(x[d] / t->h[d]);
      if (c == t->cells[d]) c -= 1; /* the right end of a continuous factor */
      u[j] *= factor(i, d, L, t->h[d], c, x[d], &unused);
    }
  }
  double energy = 0.0;
  for (int64_t a = 0; a < n_u; ++a)
    for (int64_t b = 0; b < n_u; ++b) energy += u[a] * A[a * n + b] * u[b];
  const double expected = energy_by_1d_integrals(t);
  ok(fabs(energy - expected) <= 1e-11 * fabs(expected),
     "%dD k=%d: u^T A u = %.12g, by 1D integrals %.12g", t->dim, t->k, energy, expected);
  free(u);
}

int main(void) {
  const test_case cases[] = {
      {2, 0, {3, 2, 1}, {0.5, 0.25, 1}}, {2, 1, {3, 2, 1}, {0.5, 0.25, 1}},
      {2, 2, {3, 2, 1}, {0.5, 0.25, 1}}, {2, 3, {2, 3, 1}, {0.2, 0.7, 1}},
      {3, 0, {2, 2, 3}, {0.5, 0.25, 0.4}}, {3, 1, {2, 2, 3}, {0.5, 0.25, 0.4}},
      {3, 2, {2, 2, 2}, {0.3, 0.5, 0.2}},
  };
  const int ncases = sizeof cases / sizeof cases[0];
  plan(4 * ncases + 1);
  for (int c = 0; c < ncases; ++c) {
    const test_case *t = &cases[c];
    const int64_t n = stokes_reference_size(t->dim, t->k, t->cells);
    int64_t n_u = 0;
    while (n_u < n) {
      int f;
      double x[3];
      stokes_reference_support_point(t->dim, t->k, t->cells, t->h, n_u, &f, x);
      if (f == t->dim) break;
      ++n_u;
    }
    double *A = malloc(sizeof(double) * (size_t)(n * n));
    if (!A || stokes_reference_matrix(t->dim, t->k, t->cells, t->h, eta, A, n)) {
      ok(0, "%dD k=%d: assembly", t->dim, t->k);
      skip(3, "no matrix");
      free(A);
      continue;
    }
    check_structure(t, A, n, n_u);
    check_constant_pressure(t, A, n, n_u);
    check_divergence(t, n, n_u);
    check_energy(t, A, n, n_u);
    free(A);
  }
  double A1[1];
  ok(stokes_reference_matrix(2, 1, cases[1].cells, cases[1].h, eta, A1, 1) != 0,
     "a wrong size n is refused");
  return exit_status();
}
