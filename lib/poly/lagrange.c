/* lagrange.c -- 1D Lagrange bases on arbitrary nodes: values, derivatives, and the 1D
 * reference mass and stiffness matrices on [0,1] from which every tensor-product operator
 * on Cartesian cells is built.  Everything is computed in long double and rounded once;
 * the values sum to exactly 1, the derivatives and the stiffness rows to exactly 0
 * (exact-sums.c), so constants are reproduced and annihilated in every cell alike. */
#include <float.h>
#include <math.h>
#include "../tessera-impl.h"

/* Values and derivatives in long double; nodes must be distinct. */
static void lagrange_eval_long(int n, const double *nodes, long double x, long double *values,
                               long double *dvalues) {
  for (int j = 0; j < n; ++j) {
    long double v = 1.0L, dv = 0.0L;
    for (int m = 0; m < n; ++m) {
      if (m == j) continue;
      const long double den = (long double)nodes[j] - nodes[m], num = x - nodes[m];
      /* product rule: (v * num / den)' = (dv * num + v) / den; num / den is exactly 1 at
       * x = nodes[j] and 0 at the other nodes */
      dv = (dv * num + v) / den;
      v *= num / den;
    }
    values[j] = v;
    dvalues[j] = dv;
  }
}

void ts_lagrange_eval(int n, const double *nodes, double x, double *values, double *dvalues) {
  long double v[TS_MAX_POINTS], dv[TS_MAX_POINTS];
  lagrange_eval_long(n, nodes, x, v, dv);
  for (int j = 0; j < n; ++j) values[j] = (double)v[j];
  ts_exact_row_sum(n, values, 1.0); /* partition of unity */
  if (!dvalues) return;
  for (int j = 0; j < n; ++j) dvalues[j] = (double)dv[j];
  ts_exact_row_sum(n, dvalues, 0.0); /* the derivative of a constant */
}

void ts_lagrange_tabulate(int n, const double *nodes, int n_q, const double *points,
                          double *values, double *derivatives) {
  for (int q = 0; q < n_q; ++q)
    ts_lagrange_eval(n, nodes, points[q], values + q * n, derivatives ? derivatives + q * n : NULL);
}

/* Nodes symmetric about 1/2 up to rounding: the 1D matrices are then centro-symmetric
 * (A[i][j] = A[n-1-i][n-1-j]), the form the backends' even-odd kernels apply. */
static int symmetric_nodes(int n, const double *nodes) {
  for (int i = 0; i < n; ++i)
    if (fabs(nodes[i] + nodes[n - 1 - i] - 1.0) > 4.0 * DBL_EPSILON) return 0;
  return 1;
}

/* A[i][j] and A[n-1-i][n-1-j] both set to their mean */
static void make_centro_symmetric(int n, long double *A) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const long double mean = 0.5L * (A[i * n + j] + A[(n - 1 - i) * n + n - 1 - j]);
      A[i * n + j] = A[(n - 1 - i) * n + n - 1 - j] = mean;
    }
}

int ts_lagrange_mass_stiffness(int n, const double *nodes, double *mass, double *stiffness) {
  double qp[TS_MAX_POINTS], qw[TS_MAX_POINTS];
  long double val[TS_MAX_POINTS * TS_MAX_POINTS], der[TS_MAX_POINTS * TS_MAX_POINTS];
  long double m[TS_MAX_POINTS * TS_MAX_POINTS], k[TS_MAX_POINTS * TS_MAX_POINTS];
  TS_CHECK_ARG(n >= 1 && n <= TS_MAX_POINTS, "1D matrices: %d nodes, allowed 1..%d", n,
               TS_MAX_POINTS);
  TS_CALL(ts_gauss_rule(n, qp, qw));
  for (int q = 0; q < n; ++q) lagrange_eval_long(n, nodes, qp[q], val + q * n, der + q * n);
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) {
      long double mij = 0.0L, kij = 0.0L;
      for (int q = 0; q < n; ++q) {
        mij += qw[q] * val[q * n + i] * val[q * n + j];
        kij += qw[q] * der[q * n + i] * der[q * n + j];
      }
      m[i * n + j] = m[j * n + i] = mij;
      k[i * n + j] = k[j * n + i] = kij;
    }
  if (symmetric_nodes(n, nodes)) {
    make_centro_symmetric(n, m);
    make_centro_symmetric(n, k);
  }
  for (int i = 0; i < n * n; ++i) {
    mass[i] = (double)m[i];
    stiffness[i] = (double)k[i];
  }
  /* K 1 = 0 exactly and x^T K x = int 1 = 1 as nearly as the grid allows; the bound lets
   * two entries (assembly, even-odd forms) add exactly */
  const double bound = 2.0 * ts_max_abs(n * n, stiffness);
  ts_exact_zero_rows(n, stiffness, bound);
  ts_exact_energy(n, nodes, stiffness, 1.0, bound);
  return 0;
}

/* ---------------------------------------------------------------- histopolation */

/* The histopolation basis of the n nodes x_0 < ... < x_{n-1} (paper 003, section 2.1): the
 * n-1 polynomials h_0..h_{n-2} of degree n-2 with int_{x_i}^{x_{i+1}} h_j = delta_ij.  With
 * the Lagrange basis l_m of the nodes, h_j = sum_{m > j} l_m': its integral over
 * [x_i, x_{i+1}] is sum_{m > j} (delta_{m,i+1} - delta_{m,i}) = [i+1 > j] - [i > j] =
 * delta_ij.  The pair commutes with d/dx (the 1D de Rham property):
 * (sum_m u_m l_m)' = sum_i (u_{i+1} - u_i) h_i, since sum_m l_m' = 0; so the derivative
 * from the interpolation to the histopolation basis is the difference matrix (-1, +1), for
 * every degree.  The suffix sums are formed in long double and rounded once. */
void ts_histopolation_eval(int n, const double *nodes, double x, double *values) {
  long double v[TS_MAX_POINTS], dv[TS_MAX_POINTS], suffix = 0.0L;
  lagrange_eval_long(n, nodes, x, v, dv);
  for (int j = n - 2; j >= 0; --j) {
    suffix += dv[j + 1];
    values[j] = (double)suffix;
  }
}

void ts_histopolation_tabulate(int n, const double *nodes, int n_q, const double *points,
                               double *values) {
  for (int q = 0; q < n_q; ++q) ts_histopolation_eval(n, nodes, points[q], values + q * (n - 1));
}

int ts_histopolation_mass(int n, const double *nodes, double *mass) {
  double qp[TS_MAX_POINTS], qw[TS_MAX_POINTS], h[TS_MAX_POINTS * TS_MAX_POINTS];
  TS_CHECK_ARG(n >= 2 && n <= TS_MAX_POINTS, "histopolation mass: %d nodes, allowed 2..%d", n,
               TS_MAX_POINTS);
  TS_CALL(ts_gauss_rule(n, qp, qw)); /* exact for degree 2n-1 >= 2(n-2) */
  ts_histopolation_tabulate(n, nodes, n, qp, h);
  const int m = n - 1;
  for (int i = 0; i < m; ++i)
    for (int j = i; j < m; ++j) {
      long double s = 0.0L;
      for (int q = 0; q < n; ++q) s += (long double)qw[q] * h[q * m + i] * h[q * m + j];
      mass[i * m + j] = mass[j * m + i] = (double)s;
    }
  return 0;
}
