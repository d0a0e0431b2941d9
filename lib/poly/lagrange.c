/* lagrange.c -- 1D Lagrange bases on arbitrary nodes: values, derivatives, and the 1D
 * reference mass and stiffness matrices on [0,1] from which every tensor-product operator
 * on Cartesian cells is built. */
#include "../tessera-impl.h"

void ts_lagrange_eval(int n, const double *nodes, double x, double *values, double *dvalues) {
  for (int j = 0; j < n; ++j) {
    double v = 1.0, dv = 0.0;
    for (int m = 0; m < n; ++m) {
      if (m == j) continue;
      const double inv = 1.0 / (nodes[j] - nodes[m]);
      /* product rule: (v * (x - x_m) inv)' = dv (x - x_m) inv + v inv */
      dv = dv * (x - nodes[m]) * inv + v * inv;
      v *= (x - nodes[m]) * inv;
    }
    values[j] = v;
    if (dvalues) dvalues[j] = dv;
  }
}

void ts_lagrange_tabulate(int n, const double *nodes, int n_q, const double *points,
                          double *values, double *derivatives) {
  for (int q = 0; q < n_q; ++q)
    ts_lagrange_eval(n, nodes, points[q], values + q * n, derivatives ? derivatives + q * n : NULL);
}

int ts_lagrange_mass_stiffness(int n, const double *nodes, double *mass, double *stiffness) {
  double qp[TS_MAX_POINTS], qw[TS_MAX_POINTS];
  double val[TS_MAX_POINTS * TS_MAX_POINTS], der[TS_MAX_POINTS * TS_MAX_POINTS];
  TS_CHECK_ARG(n >= 1 && n <= TS_MAX_POINTS, "1D matrices: %d nodes, allowed 1..%d", n,
               TS_MAX_POINTS);
  TS_CALL(ts_gauss_rule(n, qp, qw));
  ts_lagrange_tabulate(n, nodes, n, qp, val, der);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double m = 0.0, k = 0.0;
      for (int q = 0; q < n; ++q) {
        m += qw[q] * val[q * n + i] * val[q * n + j];
        k += qw[q] * der[q * n + i] * der[q * n + j];
      }
      mass[i * n + j] = m;
      stiffness[i * n + j] = k;
    }
  return 0;
}
