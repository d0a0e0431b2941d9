/* solution.c -- built-in manufactured solutions u with f = -Laplace(u). */
#include <math.h>
#include <string.h>
#include "../tessera-impl.h"

static const double pi = 3.14159265358979323846;

/* "sine": u = prod_d sin(pi x_d), zero on the boundary of the unit box (and of any box with
 * integer corners); -Laplace(u) = dim pi^2 u. */
static double sine_value(int dim, const double *x) {
  double u = 1.0;
  for (int d = 0; d < dim; ++d) u *= sin(pi * x[d]);
  return u;
}
static void sine_gradient(int dim, const double *x, double *g) {
  for (int d = 0; d < dim; ++d) {
    g[d] = pi * cos(pi * x[d]);
    for (int e = 0; e < dim; ++e)
      if (e != d) g[d] *= sin(pi * x[e]);
  }
}
static double sine_laplacian(int dim, const double *x) { return -dim * pi * pi * sine_value(dim, x); }

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

static const ts_solution solutions[] = {
    {"sine", sine_value, sine_gradient, sine_laplacian},
    {"exp", exp_value, exp_gradient, exp_laplacian},
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
static const ts_solution rhs_one = {"none", zero_value, zero_gradient, minus_one};

const ts_solution *ts_rhs_one(void) { return &rhs_one; }
