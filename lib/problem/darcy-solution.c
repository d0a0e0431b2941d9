/* darcy-solution.c -- the smooth solution of our Cartesian Darcy problem (doc/hdiv.md; paper
 * 003, section 4.1 takes the one of its reference [30], which it does not state):
 *   p = sin(2x + 1/2) cos(3y/2 + 1/4) [cos(z + 1/3)],  u = -grad p / beta,
 * so beta u + grad p = 0 and g = div u = -Laplace(p) / beta = (25/4 [+ 1]) p / beta, for a
 * constant beta = *(const double *)ctx. */
#include <math.h>
#include "problem-impl.h"

static void pressure_and_gradient(int dim, const double *x, double *p, double *grad) {
  const double a = 2.0 * x[0] + 0.5, b = 1.5 * x[1] + 0.25, c = dim == 3 ? x[2] + 1.0 / 3.0 : 0.0;
  *p = sin(a) * cos(b) * cos(c);
  grad[0] = 2.0 * cos(a) * cos(b) * cos(c);
  grad[1] = -1.5 * sin(a) * sin(b) * cos(c);
  if (dim == 3) grad[2] = -sin(a) * cos(b) * sin(c);
}

/* beta = *(const double *)ctx: present, positive and finite, else TS_ERR_ARG naming fn */
static int beta_of(const char *fn, const void *ctx, double *beta) {
  TS_CHECK_ARG(ctx, "%s: ctx is NULL, a pointer to beta (> 0) is required", fn);
  *beta = *(const double *)ctx;
  TS_CHECK_ARG(*beta > 0.0 && isfinite(*beta), "%s: beta = *ctx = %g, allowed beta > 0 and "
               "finite", fn, *beta);
  return 0;
}

/* the point arguments of a ts_point_fn: dim 2 or 3, count >= 0, x and out given */
static int check_points(const char *fn, int dim, int64_t count, const double *x,
                        const double *out) {
  TS_CHECK_ARG(dim == 2 || dim == 3, "%s: dim = %d, allowed 2 or 3", fn, dim);
  TS_CHECK_ARG(count >= 0, "%s: count = %lld, allowed >= 0", fn, (long long)count);
  TS_CHECK_ARG(!count || (x && out), "%s: the points x and the output are required", fn);
  return 0;
}

int ts_darcy_smooth_pressure(void *ctx, int dim, int64_t count, const double *x, double *p) {
  (void)ctx;
  TS_CALL(check_points(__func__, dim, count, x, p));
  double grad[3];
  for (int64_t q = 0; q < count; ++q) pressure_and_gradient(dim, x + q * dim, &p[q], grad);
  return 0;
}

int ts_darcy_smooth_velocity(void *ctx, int dim, int64_t count, const double *x, double *u) {
  double beta = 0.0, p;
  TS_CALL(beta_of(__func__, ctx, &beta));
  TS_CALL(check_points(__func__, dim, count, x, u));
  for (int64_t q = 0; q < count; ++q) {
    pressure_and_gradient(dim, x + q * dim, &p, u + q * dim);
    for (int d = 0; d < dim; ++d) u[q * dim + d] /= -beta;
  }
  return 0;
}

int ts_darcy_smooth_divergence(void *ctx, int dim, int64_t count, const double *x, double *g) {
  double beta = 0.0;
  TS_CALL(beta_of(__func__, ctx, &beta));
  TS_CALL(ts_darcy_smooth_pressure(ctx, dim, count, x, g));
  for (int64_t q = 0; q < count; ++q) g[q] *= (6.25 + (dim == 3 ? 1.0 : 0.0)) / beta;
  return 0;
}
