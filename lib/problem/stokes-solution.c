/* stokes-solution.c -- built-in manufactured Stokes solutions (u, p) with the force
 * f = -Laplace(u) + grad(p) (doc/stokes.md section 8).
 *
 * "paper000": paper 000, eq. (11)-(13), on the unit box: u_i = sum_j C_ij d_j psi with
 * psi = prod_d phi(x_d), C = [[0, 1], [-1, 0]] in 2D (eq. 11) and
 * C = [[0, 1, 1], [-1, 0, -1], [-1, 1, 0]] in 3D (eq. 12); C is antisymmetric, so div u =
 * sum_ij C_ij d_i d_j psi = 0. phi(x) = x^2 (x-1)^2 / sqrt(2 pi sigma^2) exp(-(x-mu)^2 / sigma^2)
 * with mu = 0.5 and sigma = 0.5 (the paper leaves them open); phi and phi' vanish at 0 and
 * 1, so u = 0 on the boundary. p = prod_d cos(2 pi x_d) has zero mean. */
#include <math.h>
#include <string.h>
#include "../tessera-impl.h"

static const double pi = 3.14159265358979323846;
static const double mu = 0.5, sigma = 0.5;

/* phi and its derivatives up to the third at x: phi = c g e with g = x^2 (x-1)^2,
 * e = exp(-(x-mu)^2 / sigma^2), c = 1 / sqrt(2 pi sigma^2), by Leibniz's rule; e^(n) = E_n e
 * with s = -2 (x-mu) / sigma^2, s' = -2 / sigma^2: E_1 = s, E_2 = s^2 + s', E_3 = s^3 + 3 s s'. */
static void phi_derivatives(double x, double phi[4]) {
  /* factored, so that the values near the roots 0, 1/2 and 1 keep their relative accuracy */
  const double g[4] = {x * x * (x - 1) * (x - 1), 2 * x * (x - 1) * (2 * x - 1),
                       12 * x * (x - 1) + 2, 12 * (2 * x - 1)};
  const double s = -2.0 * (x - mu) / (sigma * sigma), ds = -2.0 / (sigma * sigma);
  const double E[4] = {1.0, s, s * s + ds, s * s * s + 3.0 * s * ds};
  const double binomial[4][4] = {{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}};
  const double ce = exp(-(x - mu) * (x - mu) / (sigma * sigma)) / sqrt(2.0 * pi * sigma * sigma);
  for (int n = 0; n < 4; ++n) {
    phi[n] = 0.0;
    for (int j = 0; j <= n; ++j) phi[n] += binomial[n][j] * g[j] * E[n - j];
    phi[n] *= ce;
  }
}

/* The coefficients C_ij of eq. (11) (2D) and (12) (3D). */
static double curl_coefficient(int dim, int i, int j) {
  static const double c2[2][2] = {{0, 1}, {-1, 0}};
  static const double c3[3][3] = {{0, 1, 1}, {-1, 0, -1}, {-1, 1, 0}};
  return dim == 2 ? c2[i][j] : c3[i][j];
}

/* d^{order_0}_0 d^{order_1}_1 (d^{order_2}_2) psi from the tabulated phi derivatives. */
static double psi_derivative(int dim, double phi[3][4], const int order[3]) {
  double v = 1.0;
  for (int d = 0; d < dim; ++d) v *= phi[d][order[d]];
  return v;
}

static void tabulate_phi(int dim, const double *x, double phi[3][4]) {
  for (int d = 0; d < dim; ++d) phi_derivatives(x[d], phi[d]);
}

static void paper000_velocity(int dim, const double *x, double *u) {
  double phi[3][4];
  tabulate_phi(dim, x, phi);
  for (int i = 0; i < dim; ++i) {
    u[i] = 0.0;
    for (int j = 0; j < dim; ++j) {
      int order[3] = {0, 0, 0};
      order[j] = 1;
      u[i] += curl_coefficient(dim, i, j) * psi_derivative(dim, phi, order);
    }
  }
}

static double paper000_pressure(int dim, const double *x) {
  double p = 1.0;
  for (int d = 0; d < dim; ++d) p *= ts_cos_pi(2.0 * x[d]);
  return p;
}

/* f_i = -sum_j C_ij d_j Laplace(psi) + d_i p, d_j Laplace(psi) = sum_m d_j d_m d_m psi. */
static void paper000_force(int dim, const double *x, double *f) {
  double phi[3][4];
  tabulate_phi(dim, x, phi);
  for (int i = 0; i < dim; ++i) {
    double laplace_u = 0.0;
    for (int j = 0; j < dim; ++j)
      for (int m = 0; m < dim; ++m) {
        int order[3] = {0, 0, 0};
        order[j] += 1;
        order[m] += 2;
        laplace_u += curl_coefficient(dim, i, j) * psi_derivative(dim, phi, order);
      }
    double grad_p = -2.0 * pi * ts_sin_pi(2.0 * x[i]);
    for (int d = 0; d < dim; ++d)
      if (d != i) grad_p *= ts_cos_pi(2.0 * x[d]);
    f[i] = -laplace_u + grad_p;
  }
}

/* Papers 001/004 (section 6): a(t) = t(1-t)(2t-1), b(t) = 6t^2-6t+1 = -a'(t).  2D:
 * u = (a(x) b(y), -a(y) b(x)), div u = a'(x) b(y) - a'(y) b(x) = 0.  3D (ours, the same
 * pattern): u_i = a(x_i) (b(x_{i+1}) - b(x_{i+2})), indices mod 3, div u = sum_i -b(x_i)
 * (b(x_{i+1}) - b(x_{i+2})) = 0.  The normal velocity vanishes on the unit box's faces
 * (a(0) = a(1) = 0), the tangential does not. */
static double th_a(double t) { return t * (1.0 - t) * (2.0 * t - 1.0); }
static double th_b(double t) { return 6.0 * t * t - 6.0 * t + 1.0; }

static void paper004_velocity(int dim, const double *x, double *u) {
  if (dim == 2) {
    u[0] = th_a(x[0]) * th_b(x[1]);
    u[1] = -th_a(x[1]) * th_b(x[0]);
    return;
  }
  for (int i = 0; i < 3; ++i) u[i] = th_a(x[i]) * (th_b(x[(i + 1) % 3]) - th_b(x[(i + 2) % 3]));
}

/* g[i dim + d] = d u_i / d x_d, with a' = -b and b' = 12t - 6 */
static void paper004_gradient(int dim, const double *x, double *g) {
  if (dim == 2) {
    g[0] = -th_b(x[0]) * th_b(x[1]);
    g[1] = th_a(x[0]) * (12.0 * x[1] - 6.0);
    g[2] = -th_a(x[1]) * (12.0 * x[0] - 6.0);
    g[3] = th_b(x[1]) * th_b(x[0]);
    return;
  }
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, l = (i + 2) % 3;
    g[3 * i + i] = -th_b(x[i]) * (th_b(x[j]) - th_b(x[l]));
    g[3 * i + j] = th_a(x[i]) * (12.0 * x[j] - 6.0);
    g[3 * i + l] = -th_a(x[i]) * (12.0 * x[l] - 6.0);
  }
}

static double paper004_pressure(int dim, const double *x) {
  const double p = x[0] * x[0] - 3.0 * x[1] * x[1] + 8.0 / 3.0 * x[0] * x[1];
  return dim == 2 ? p : p + x[2] * x[2] - 1.0 / 3.0;
}

/* f = -Laplace(u) + grad(p), with a'' = -b' = 6 - 12t and b'' = 12 */
static void paper004_force(int dim, const double *x, double *f) {
  const double grad_p[3] = {2.0 * x[0] + 8.0 / 3.0 * x[1], -6.0 * x[1] + 8.0 / 3.0 * x[0],
                            2.0 * x[2 % dim]};
  if (dim == 2) {
    f[0] = -((6.0 - 12.0 * x[0]) * th_b(x[1]) + 12.0 * th_a(x[0])) + grad_p[0];
    f[1] = -(-12.0 * th_a(x[1]) - (6.0 - 12.0 * x[1]) * th_b(x[0])) + grad_p[1];
    return;
  }
  for (int i = 0; i < 3; ++i) /* the b'' terms cancel: b''(x_j) - b''(x_l) = 0 */
    f[i] = -(6.0 - 12.0 * x[i]) * (th_b(x[(i + 1) % 3]) - th_b(x[(i + 2) % 3])) + grad_p[i];
}

static const ts_stokes_solution stokes_solutions[] = {
    {"paper000", paper000_velocity, paper000_pressure, paper000_force, NULL, 1},
    {"paper004", paper004_velocity, paper004_pressure, paper004_force, paper004_gradient, 0},
};

int ts_stokes_solution_by_name(const char *name, const ts_stokes_solution **s) {
  TS_CHECK_ARG(s, "ts_stokes_solution_by_name: NULL output");
  for (size_t i = 0; i < sizeof stokes_solutions / sizeof stokes_solutions[0]; ++i)
    if (name && strcmp(name, stokes_solutions[i].name) == 0) {
      *s = &stokes_solutions[i];
      return 0;
    }
  return TS_ERROR(TS_ERR_ARG, "manufactured Stokes solution '%s' unknown, allowed: paper000, paper004",
                  name ? name : "(null)");
}
