/* t-poly-quadrature.c -- Gauss and Gauss-Lobatto rules on [0,1]: exactness for monomials
 * up to their degree, symmetry, and known nodes and weights. */
#include <math.h>
#include "tap.h"
#include "tessera-impl.h"

/* Largest error of sum_q w_q x_q^p against 1/(p+1) for p = 0..pmax. */
static double monomial_error(int n, const double *x, const double *w, int pmax) {
  double worst = 0.0;
  for (int p = 0; p <= pmax; ++p) {
    double s = 0.0;
    for (int q = 0; q < n; ++q) s += w[q] * pow(x[q], p);
    worst = fmax(worst, fabs(s - 1.0 / (p + 1)));
  }
  return worst;
}

static double symmetry_error(int n, const double *x, const double *w) {
  double worst = 0.0;
  for (int q = 0; q < n; ++q)
    worst = fmax(worst, fmax(fabs(x[q] + x[n - 1 - q] - 1.0), fabs(w[q] - w[n - 1 - q])));
  return worst;
}

int main(void) {
  double x[TS_MAX_POINTS], w[TS_MAX_POINTS];
  plan(20 * 2 + 19 * 2 + 4 + 2);
  for (int n = 1; n <= 20; ++n) {
    int ierr = ts_gauss_rule(n, x, w);
    double err = ierr ? 1.0 : monomial_error(n, x, w, 2 * n - 1);
    ok(err < 1e-14, "Gauss %2d points integrates degree %d exactly (error %.1e)", n, 2 * n - 1, err);
    ok(!ierr && symmetry_error(n, x, w) < 1e-15, "Gauss %2d points symmetric", n);
  }
  for (int n = 2; n <= 20; ++n) {
    int ierr = ts_gauss_lobatto_rule(n, x, w);
    double err = ierr ? 1.0 : monomial_error(n, x, w, 2 * n - 3);
    ok(err < 1e-14, "Gauss-Lobatto %2d points integrates degree %d exactly (error %.1e)", n,
       2 * n - 3, err);
    ok(!ierr && symmetry_error(n, x, w) < 1e-15 && x[0] == 0.0 && x[n - 1] == 1.0,
       "Gauss-Lobatto %2d points symmetric with end points", n);
  }
  ts_gauss_rule(3, x, w);
  ok(fabs(x[0] - (0.5 - 0.5 * sqrt(0.6))) < 1e-16 && fabs(w[0] - 5.0 / 18) < 1e-16 &&
         fabs(w[1] - 8.0 / 18) < 1e-16,
     "Gauss 3 points: 1/2 - sqrt(3/5)/2, weights 5/18 and 8/18");
  ts_gauss_lobatto_rule(4, x, w);
  ok(fabs(x[1] - (0.5 - 0.5 / sqrt(5.0))) < 1e-16 && fabs(w[0] - 1.0 / 12) < 1e-16 &&
         fabs(w[1] - 5.0 / 12) < 1e-16,
     "Gauss-Lobatto 4 points: 1/2 - 1/(2 sqrt 5), weights 1/12 and 5/12");
  /* a non-polynomial integrand converges quickly: int_0^1 exp(x) = e - 1 */
  ts_gauss_rule(10, x, w);
  double s = 0.0;
  for (int q = 0; q < 10; ++q) s += w[q] * exp(x[q]);
  ok(fabs(s - (exp(1.0) - 1.0)) < 1e-15, "Gauss 10 points integrates exp to 1e-15");
  ok(ts_gauss_rule(0, x, w) == TS_ERR_ARG && strstr(ts_error_message(), "allowed 1.."),
     "0 Gauss points rejected: %s", ts_error_message());
  ok(ts_gauss_lobatto_rule(1, x, w) == TS_ERR_ARG, "1 Gauss-Lobatto point rejected");
  ok(ts_gauss_rule(TS_MAX_POINTS + 1, x, w) == TS_ERR_ARG, "too many Gauss points rejected");
  return exit_status();
}
