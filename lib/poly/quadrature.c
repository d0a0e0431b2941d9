/* quadrature.c -- Gauss-Legendre and Gauss-Lobatto rules on [0,1], by Newton's method on
 * the Legendre polynomials in long double (nodes and weights accurate to ~1e-16). */
#include <math.h>
#include "../tessera-impl.h"

/* P_n(x) and P_n'(x) on [-1,1] by the three-term recurrence. */
static void legendre(int n, long double x, long double *p, long double *dp) {
  long double p0 = 1.0L, p1 = x;
  if (n == 0) {
    *p = 1.0L;
    *dp = 0.0L;
    return;
  }
  for (int k = 2; k <= n; ++k) {
    long double pk = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  *p = p1;
  /* P_n' = n (x P_n - P_{n-1}) / (x^2 - 1), valid away from x = +-1 */
  *dp = n * (x * p1 - p0) / (x * x - 1.0L);
}

int ts_gauss_rule(int n, double *points, double *weights) {
  TS_CHECK_ARG(n >= 1 && n <= TS_MAX_POINTS, "Gauss rule: %d points requested, allowed 1..%d",
               n, TS_MAX_POINTS);
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int i = 0; i < n; ++i) {
    /* Chebyshev-like initial guess, the i-th root counted from -1 */
    long double x = -cosl(pi * (i + 0.75L) / (n + 0.5L)), p, dp;
    for (int it = 0; it < 100; ++it) {
      legendre(n, x, &p, &dp);
      long double dx = p / dp;
      x -= dx;
      if (fabsl(dx) < 1e-19L) break;
    }
    legendre(n, x, &p, &dp);
    points[i] = (double)(0.5L * (x + 1.0L));
    weights[i] = (double)(1.0L / ((1.0L - x * x) * dp * dp)); /* 2/((1-x^2)P'^2) on [-1,1], /2 */
  }
  return 0;
}

int ts_gauss_lobatto_rule(int n, double *points, double *weights) {
  TS_CHECK_ARG(n >= 2 && n <= TS_MAX_POINTS,
               "Gauss-Lobatto rule: %d points requested, allowed 2..%d", n, TS_MAX_POINTS);
  const long double pi = 3.141592653589793238462643383279502884L;
  const int m = n - 1; /* interior nodes are the roots of P_m' */
  points[0] = 0.0;
  points[n - 1] = 1.0;
  weights[0] = weights[n - 1] = 1.0 / (n * (n - 1.0));
  for (int i = 1; i < n - 1; ++i) {
    long double x = -cosl(pi * i / m), p, dp;
    for (int it = 0; it < 100; ++it) {
      /* Newton on q = P_m'(x): q' = (2x P_m' - m(m+1) P_m) / (1 - x^2) */
      legendre(m, x, &p, &dp);
      long double ddp = (2.0L * x * dp - m * (m + 1.0L) * p) / (1.0L - x * x);
      long double dx = dp / ddp;
      x -= dx;
      if (fabsl(dx) < 1e-19L) break;
    }
    legendre(m, x, &p, &dp);
    points[i] = (double)(0.5L * (x + 1.0L));
    weights[i] = (double)(1.0L / (m * (m + 1.0L) * p * p)); /* 2/(m(m+1)P_m^2), halved */
  }
  return 0;
}
