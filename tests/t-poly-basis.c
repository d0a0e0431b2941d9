/* t-poly-basis.c -- 1D Lagrange bases on Gauss-Lobatto nodes: interpolation property,
 * reproduction of polynomials and their derivatives, and the 1D mass and stiffness
 * matrices (symmetry, known integrals). */
#include <math.h>
#include "tap.h"
#include "tessera-impl.h"

int main(void) {
  double nodes[TS_MAX_POINTS], w[TS_MAX_POINTS], v[TS_MAX_POINTS], dv[TS_MAX_POINTS];
  double M[TS_MAX_POINTS * TS_MAX_POINTS], K[TS_MAX_POINTS * TS_MAX_POINTS];
  plan(10 * 4);
  for (int k = 1; k <= 10; ++k) {
    const int n = k + 1;
    ts_gauss_lobatto_rule(n, nodes, w);
    double delta = 0.0, reproduce = 0.0;
    for (int i = 0; i < n; ++i) {
      ts_lagrange_eval(n, nodes, nodes[i], v, NULL);
      for (int j = 0; j < n; ++j) delta = fmax(delta, fabs(v[j] - (i == j)));
    }
    ok(delta < 1e-13, "k=%d: L_j(x_i) = delta_ij (error %.1e)", k, delta);
    /* sum_j x_j^p L_j(x) = x^p and its derivative p x^(p-1), at points between the nodes */
    for (int p = 0; p <= k; ++p)
      for (double x = 0.03; x < 1.0; x += 0.097) {
        ts_lagrange_eval(n, nodes, x, v, dv);
        double s = 0.0, ds = 0.0;
        for (int j = 0; j < n; ++j) {
          s += pow(nodes[j], p) * v[j];
          ds += pow(nodes[j], p) * dv[j];
        }
        reproduce = fmax(reproduce, fmax(fabs(s - pow(x, p)), fabs(ds - (p ? p * pow(x, p - 1) : 0.0))));
      }
    ok(reproduce < 1e-11, "k=%d: reproduces x^p and its derivative, p <= k (error %.1e)", k, reproduce);
    ts_lagrange_mass_stiffness(n, nodes, M, K);
    double sym = 0.0, total = 0.0, krow = 0.0;
    for (int i = 0; i < n; ++i) {
      double row = 0.0;
      for (int j = 0; j < n; ++j) {
        sym = fmax(sym, fmax(fabs(M[i * n + j] - M[j * n + i]), fabs(K[i * n + j] - K[j * n + i])));
        total += M[i * n + j];
        row += K[i * n + j];
      }
      krow = fmax(krow, fabs(row));
    }
    ok(sym < 1e-14 && fabs(total - 1.0) < 1e-13 && krow < 1e-10,
       "k=%d: M, K symmetric, sum(M) = |[0,1]| = 1, K 1 = 0", k);
    /* with u = x (nodal values x_j): u^T M u = int x^2 = 1/3 and u^T K u = int 1 = 1 */
    double uMu = 0.0, uKu = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        uMu += nodes[i] * M[i * n + j] * nodes[j];
        uKu += nodes[i] * K[i * n + j] * nodes[j];
      }
    ok(fabs(uMu - 1.0 / 3.0) < 1e-13 && fabs(uKu - 1.0) < 1e-11,
       "k=%d: x^T M x = 1/3 and x^T K x = 1 (%.16f, %.16f)", k, uMu, uKu);
  }
  return exit_status();
}
