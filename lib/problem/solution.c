/* solution.c -- built-in manufactured solutions u with f = -Laplace(u). */
#include <math.h>
#include <string.h>
#include "../tessera-impl.h"

static const double pi = 3.14159265358979323846;

/* x = n + r with n the nearest integer and |r| <= 1/2, exactly (|x| < 2^52); sin(pi x) and
 * cos(pi x) are then +-sin(pi r) and +-cos(pi r).  Without the reduction the rounding of pi x
 * leaves an absolute error of about 1e-16 |x| where sin(pi x) is small: near the boundary
 * of the box, where the errors to be measured can be that small. */
static double reduce_half(double x, int *odd) {
  const double n = nearbyint(x);
  *odd = fmod(n, 2.0) != 0.0;
  return x - n;
}

double ts_sin_pi(double x) {
  int odd;
  const double s = sin(pi * reduce_half(x, &odd));
  return odd ? -s : s;
}

double ts_cos_pi(double x) {
  int odd;
  const double c = cos(pi * reduce_half(x, &odd));
  return odd ? -c : c;
}

/* "sine": u = prod_d sin(pi x_d), zero on the boundary of the unit box (and of any box with
 * integer corners: exactly, ts_sin_pi); -Laplace(u) = dim pi^2 u. */
static double sine_value(int dim, const double *x) {
  double u = 1.0;
  for (int d = 0; d < dim; ++d) u *= ts_sin_pi(x[d]);
  return u;
}
static void sine_gradient(int dim, const double *x, double *g) {
  for (int d = 0; d < dim; ++d) {
    g[d] = pi * ts_cos_pi(x[d]);
    for (int e = 0; e < dim; ++e)
      if (e != d) g[d] *= ts_sin_pi(x[e]);
  }
}
static double sine_laplacian(int dim, const double *x) { return -dim * pi * pi * sine_value(dim, x); }
static double sine_rhs_factor(int dim, int direction, double x) {
  return (direction == 0 ? dim * pi * pi : 1.0) * ts_sin_pi(x);
}

/* "exp": u = exp(a.x) with a = (1, -1/2, 1/4): not symmetric in the coordinates, non-zero
 * on the boundary (exercises inhomogeneous Dirichlet data); Laplace(u) = |a|^2 u. */
static const double exp_a[3] = {1.0, -0.5, 0.25};
static double exp_value(int dim, const double *x) {
  double s = 0.0;
  for (int d = 0; d < dim; ++d) s += exp_a[d] * x[d];
  return exp(s);
}
static void exp_gradient(int dim, const double *x, double *g) {
  const double u = exp_value(dim, x);
  for (int d = 0; d < dim; ++d) g[d] = exp_a[d] * u;
}
static double exp_laplacian(int dim, const double *x) {
  double a2 = 0.0;
  for (int d = 0; d < dim; ++d) a2 += exp_a[d] * exp_a[d];
  return a2 * exp_value(dim, x);
}

/* -Laplace(u) = -|a|^2 prod_d exp(a_d x_d) */
static double exp_rhs_factor(int dim, int direction, double x) {
  double a2 = 0.0;
  for (int d = 0; d < dim; ++d) a2 += exp_a[d] * exp_a[d];
  return (direction == 0 ? -a2 : 1.0) * exp(exp_a[direction] * x);
}

static const ts_solution solutions[] = {
    {"sine", sine_value, sine_gradient, sine_laplacian, sine_rhs_factor},
    {"exp", exp_value, exp_gradient, exp_laplacian, exp_rhs_factor},
};

int ts_solution_by_name(const char *name, const ts_solution **solution) {
  TS_CHECK_NOT_NULL(solution);
  for (size_t i = 0; i < sizeof solutions / sizeof solutions[0]; ++i)
    if (name && strcmp(name, solutions[i].name) == 0) {
      *solution = &solutions[i];
      return 0;
    }
  return TS_ERROR(TS_ERR_ARG, "manufactured solution '%s' unknown, allowed: %s",
                  name ? name : "(null)", ts_solution_names());
}

const char *ts_solution_names(void) { return "sine, exp"; }

/* f = 1, u = 0 on the boundary (no exact solution) */
static double zero_value(int dim, const double *x) {
  (void)dim;
  (void)x;
  return 0.0;
}
static void zero_gradient(int dim, const double *x, double *g) {
  (void)x;
  for (int d = 0; d < dim; ++d) g[d] = 0.0;
}
static double minus_one(int dim, const double *x) {
  (void)dim;
  (void)x;
  return -1.0;
}
static double one_factor(int dim, int direction, double x) {
  (void)dim;
  (void)direction;
  (void)x;
  return 1.0;
}
static const ts_solution rhs_one = {"none", zero_value, zero_gradient, minus_one, one_factor};

const ts_solution *ts_rhs_one(void) { return &rhs_one; }
