/* t-stokes-solution.c -- the manufactured Stokes solution "paper000" (paper 000 eq. 11-13,
 * doc/stokes.md section 8), its right-hand side and error norms:
 *   1. f = -Laplace(u) + grad(p) against fourth-order central differences of u and p;
 *   2. div u = 0 by the same differences; u = 0 on the boundary of the unit box;
 *   3. an unknown name is refused naming the allowed ones;
 *   4. 2D, k = 1, 2: the discrete problem on 4x4 and 8x8 cells, assembled by the dense
 *      reference matrix (tests/stokes-reference.c) with ts_stokes_assemble_rhs and solved by
 *      LAPACK dgesv; the pressure constant is fixed by replacing the last pressure row (-B) by
 *      the mean constraint sum_p p_p int psi_p = 0 (the rows of B sum to zero, B^T 1 = 0, so
 *      the row dropped is redundant); ts_stokes_compute_errors gives the L2 errors, whose
 *      orders must be >= k + 1 - 0.3 for velocity and pressure (RT_k x DGQ_k). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stokes-reference.h"
#include "tap.h"
#include "tessera-impl.h"

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

static const double fd_step = 1e-3;

/* Fourth-order central differences along direction d of g at x: first or second derivative. */
static double central_difference(double (*g)(const void *, int, const double *), const void *ctx,
                                 int dim, const double *x, int d, int order) {
  double y[3] = {x[0], x[1], x[2]}, v[5];
  for (int s = -2; s <= 2; ++s) {
    y[d] = x[d] + s * fd_step;
    v[s + 2] = g(ctx, dim, y);
  }
  if (order == 1) return (-v[4] + 8.0 * v[3] - 8.0 * v[1] + v[0]) / (12.0 * fd_step);
  return (-v[4] + 16.0 * v[3] - 30.0 * v[2] + 16.0 * v[1] - v[0]) / (12.0 * fd_step * fd_step);
}

typedef struct component {
  const ts_stokes_solution *s;
  int i;
} component;

static double velocity_component(const void *ctx, int dim, const double *x) {
  const component *c = ctx;
  double u[3];
  c->s->velocity(dim, x, u);
  return u[c->i];
}

static double pressure_value(const void *ctx, int dim, const double *x) {
  const ts_stokes_solution *s = ctx;
  return s->pressure(dim, x);
}

/* max over sample points of |f - (-Laplace u + grad p)_FD| / (1 + |f|) and of |div u|_FD. */
static void check_force_divergence(const ts_stokes_solution *s, int dim) {
  double worst_f = 0.0, worst_div = 0.0;
  for (int m = 0; m < 20; ++m) {
    const double x[3] = {0.05 + 0.9 * fmod(0.618 * m, 1.0), 0.05 + 0.9 * fmod(0.414 * m + 0.3, 1.0),
                         0.05 + 0.9 * fmod(0.732 * m + 0.6, 1.0)};
    double f[3], div = 0.0;
    s->force(dim, x, f);
    for (int i = 0; i < dim; ++i) {
      const component c = {s, i};
      double fd = central_difference(pressure_value, s, dim, x, i, 1);
      for (int d = 0; d < dim; ++d) fd -= central_difference(velocity_component, &c, dim, x, d, 2);
      worst_f = fmax(worst_f, fabs(f[i] - fd) / (1.0 + fabs(f[i])));
      div += central_difference(velocity_component, &c, dim, x, i, 1);
    }
    worst_div = fmax(worst_div, fabs(div));
  }
  ok(worst_f < 1e-7, "%dD: f = -Laplace u + grad p by finite differences (%.2e)", dim, worst_f);
  ok(worst_div < 1e-9, "%dD: div u = 0 by finite differences (%.2e)", dim, worst_div);
}

static void check_boundary(const ts_stokes_solution *s, int dim) {
  double worst = 0.0;
  for (int d = 0; d < dim; ++d)
    for (int side = 0; side < 2; ++side)
      for (int m = 0; m < 10; ++m) {
        double x[3] = {0.1 * m + 0.03, 0.07 * m + 0.2, 0.09 * m + 0.01}, u[3];
        x[d] = side;
        s->velocity(dim, x, u);
        for (int i = 0; i < dim; ++i) worst = fmax(worst, fabs(u[i]));
      }
  ok(worst < 1e-15, "%dD: u = 0 on the boundary of the unit box (%.2e)", dim, worst);
}

/* The DoF handlers of RT_k x DGQ_k on the unit square as branch stokes-op fills them (only
 * the fields ts_stokes_assemble_rhs and ts_stokes_compute_errors read). */
static void fill_dofs(int k, int64_t cells, struct ts_fe_s *fe, struct ts_dofs_s *velocity,
                      struct ts_dofs_s *pressure) {
  double w[TS_MAX_POINTS];
  memset(fe, 0, sizeof *fe);
  fe->dim = 2;
  fe->degree = k;
  ts_gauss_rule(k + 1, fe->points, w);
  ts_gauss_lobatto_rule(k + 2, fe->normal_points, w);
  struct ts_dofs_s *both[2] = {velocity, pressure};
  for (int f = 0; f < 2; ++f) {
    struct ts_dofs_s *t = both[f];
    memset(t, 0, sizeof *t);
    t->fe = fe;
    t->dim = 2;
    t->degree = k;
    t->components = f == 0 ? 2 : 1;
    for (int d = 0; d < 3; ++d) {
      t->cells[d] = d < 2 ? cells : 1;
      t->h[d] = d < 2 ? 1.0 / (double)cells : 1.0;
    }
    for (int i = 0; i < t->components; ++i) {
      int64_t size = 1;
      for (int d = 0; d < 3; ++d) {
        t->comp_n[i][d] = d < 2 ? cells * (k + 1) + (f == 0 && d == i) : 1;
        size *= t->comp_n[i][d];
      }
      t->comp_offset[i + 1] = t->comp_offset[i] + size;
    }
    t->count = t->comp_offset[t->components];
  }
}

/* Replace the last pressure row by the mean constraint (see the top of the file). */
static void fix_pressure_mean(int k, const int64_t cells[3], const double h[3], double *A,
                              int64_t n, int64_t n_u, double *b) {
  double gp[TS_MAX_POINTS], gw[TS_MAX_POINTS];
  ts_gauss_rule(k + 1, gp, gw);
  double *row = A + (n - 1) * n;
  memset(row, 0, sizeof(double) * (size_t)n);
  for (int64_t j = n_u; j < n; ++j) {
    const int64_t a = j - n_u, n_p = cells[0] * (k + 1);
    row[j] = h[0] * gw[a % n_p % (k + 1)] * h[1] * gw[a / n_p % (k + 1)];
  }
  b[n - 1] = 0.0;
}

/* Solve A x = b in place (A row-major: LAPACK sees A^T, so transpose first). */
static int dense_solve(double *A, int64_t n, double *b) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const double t = A[i * n + j];
      A[i * n + j] = A[j * n + i];
      A[j * n + i] = t;
    }
  int nn = (int)n, one = 1, info = 0, *pivots = malloc(sizeof(int) * (size_t)n);
  dgesv_(&nn, &one, A, &nn, pivots, b, &nn, &info);
  free(pivots);
  return info;
}

/* Solve on cells x cells and return the velocity and pressure L2 errors. */
static int solve_errors(const ts_stokes_solution *s, int k, int64_t cells, double errors[2]) {
  struct ts_fe_s fe;
  struct ts_dofs_s velocity, pressure;
  fill_dofs(k, cells, &fe, &velocity, &pressure);
  const int64_t cell3[3] = {cells, cells, 1}, n = stokes_reference_size(2, k, cell3);
  if (n != velocity.count + pressure.count) return 1;
  double *A = malloc(sizeof(double) * (size_t)(n * n)), *b = malloc(sizeof(double) * (size_t)n);
  int ierr = !A || !b || stokes_reference_matrix(2, k, cell3, velocity.h, 2.0, A, n);
  if (!ierr) ierr = ts_stokes_assemble_rhs(&velocity, &pressure, s, b);
  if (!ierr) {
    fix_pressure_mean(k, cell3, velocity.h, A, n, velocity.count, b);
    ierr = dense_solve(A, n, b);
  }
  if (!ierr) ierr = ts_stokes_compute_errors(&velocity, &pressure, b, s, &errors[0], &errors[1]);
  if (ierr) diag("k=%d, %lld cells: %s", k, (long long)cells, ts_error_message());
  free(A);
  free(b);
  return ierr;
}

static void check_convergence(const ts_stokes_solution *s, int k) {
  double coarse[2], fine[2];
  const int failed = solve_errors(s, k, 4, coarse) || solve_errors(s, k, 8, fine);
  const double order_u = log2(coarse[0] / fine[0]), order_p = log2(coarse[1] / fine[1]);
  ok(!failed && order_u >= k + 1 - 0.3 && order_p >= k + 1 - 0.3,
     "2D k=%d: L2 errors 4x4 -> 8x8: velocity %.3e -> %.3e (order %.2f), pressure %.3e -> "
     "%.3e (order %.2f), expected >= %.1f",
     k, coarse[0], fine[0], order_u, coarse[1], fine[1], order_p, k + 1 - 0.3);
}

int main(void) {
  const ts_stokes_solution *s = NULL, *unknown = NULL;
  plan(10);
  if (!ok(ts_stokes_solution_by_name("paper000", &s) == 0, "paper000 exists")) return exit_status();
  const int refused = ts_stokes_solution_by_name("paper001", &unknown) != 0;
  ok(refused && strstr(ts_error_message(), "paper001") && strstr(ts_error_message(), "paper000"),
     "an unknown name is refused naming the allowed ones: %s", ts_error_message());
  for (int dim = 2; dim <= 3; ++dim) {
    check_force_divergence(s, dim);
    check_boundary(s, dim);
  }
  for (int k = 1; k <= 2; ++k) check_convergence(s, k);
  return exit_status();
}
