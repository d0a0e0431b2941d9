/* stokes-rhs-errors.c -- the Stokes right-hand side b_u = (f, phi_i), b_p = 0, and the L2
 * errors of velocity and pressure against a manufactured solution (doc/stokes.md sections
 * 2, 3, 6 and 8). Host-side setup and post-processing: Gauss quadrature with k+3 points per
 * direction, basis functions evaluated point by point from 1D tables (RT_k component i:
 * Gauss-Lobatto k+2 nodes in direction i, Gauss k+1 nodes elsewhere; DGQ_k: Gauss). */
#include <math.h>
#include <string.h>
#include "../tessera-impl.h"

#define MAX_Q (TS_MAX_DEGREE + 2) /* k + 3 points for k <= TS_STOKES_MAX_DEGREE */

/* The 1D bases at the quadrature points: gauss[q][r] (k+1 functions; the velocity's
 * tangential and the pressure's points are the same Gauss points), lobatto[q][r] (k+2). */
typedef struct stokes_quadrature {
  int dim, k, nq;
  double points[MAX_Q], weights[MAX_Q];
  double gauss[MAX_Q][TS_STOKES_N1], lobatto[MAX_Q][TS_STOKES_N2];
} stokes_quadrature;

static int check_dofs(ts_dofs velocity, ts_dofs pressure, const char *fn) {
  TS_CHECK_ARG(velocity && pressure && velocity->fe && pressure->fe,
               "%s: NULL velocity or pressure DoFs", fn);
  const int dim = velocity->dim, k = velocity->degree;
  TS_CHECK_ARG(velocity->components == dim && pressure->components == 1,
               "%s: components = %d (velocity) and %d (pressure); allowed %d (RT_k) and 1 (DGQ_k)",
               fn, velocity->components, pressure->components, dim);
  TS_CHECK_ARG(k >= 0 && k <= TS_STOKES_MAX_DEGREE && pressure->degree == k && pressure->dim == dim,
               "%s: degree %d (velocity), %d (pressure), dim %d and %d; allowed equal degrees "
               "0..%d and equal dimensions", fn, k, pressure->degree, dim, pressure->dim,
               TS_STOKES_MAX_DEGREE);
  for (int d = 0; d < dim; ++d)
    TS_CHECK_ARG(pressure->cells[d] == velocity->cells[d] &&
                     pressure->comp_n[0][d] == velocity->cells[d] * (k + 1),
                 "%s: direction %d: pressure cells %lld and DoFs %lld, velocity cells %lld; "
                 "allowed the same cells and cells (k+1) DoFs (doc/stokes.md section 2)",
                 fn, d, (long long)pressure->cells[d], (long long)pressure->comp_n[0][d],
                 (long long)velocity->cells[d]);
  return 0;
}

static int quadrature_init(ts_dofs velocity, stokes_quadrature *q) {
  q->dim = velocity->dim;
  q->k = velocity->degree;
  q->nq = q->k + 3;
  TS_CALL(ts_gauss_rule(q->nq, q->points, q->weights));
  for (int m = 0; m < q->nq; ++m) {
    ts_lagrange_eval(q->k + 1, velocity->fe->points, q->points[m], q->gauss[m], NULL);
    ts_lagrange_eval(q->k + 2, velocity->fe->normal_points, q->points[m], q->lobatto[m], NULL);
  }
  return 0;
}

static int points_per_cell(const stokes_quadrature *q) {
  int n = 1;
  for (int d = 0; d < q->dim; ++d) n *= q->nq;
  return n;
}

/* Point m (lexicographic) of cell c: its 1D indices, physical coordinates and weight. */
static double quadrature_point(ts_dofs dofs, const stokes_quadrature *q, const int64_t *c, int m,
                               int *qi, double *x) {
  double w = 1.0;
  for (int d = 0; d < q->dim; ++d) {
    qi[d] = m % q->nq;
    m /= q->nq;
    x[d] = dofs->lower[d] + dofs->h[d] * ((double)c[d] + q->points[qi[d]]);
    w *= q->weights[qi[d]] * dofs->h[d];
  }
  return w;
}

/* The 1D functions per direction on a cell of component i (i == dim: the pressure). */
static int local_count(const stokes_quadrature *q, int i, int d) {
  return d < q->dim ? q->k + 1 + (d == i) : 1;
}

/* Global indices (component block included) and values at point qi of the cell-local
 * functions of component i, lexicographic; returns their number. */
static int cell_functions(ts_dofs dofs, const stokes_quadrature *q, int i, const int64_t *c,
                          const int *qi, int64_t *idx, double *val) {
  const int n0 = local_count(q, i, 0), n1 = local_count(q, i, 1), n2 = local_count(q, i, 2);
  const int comp = i < q->dim ? i : 0;
  int a = 0;
  for (int r2 = 0; r2 < n2; ++r2)
    for (int r1 = 0; r1 < n1; ++r1)
      for (int r0 = 0; r0 < n0; ++r0, ++a) {
        const int r[3] = {r0, r1, r2};
        int64_t g = 0, stride = 1;
        val[a] = 1.0;
        for (int d = 0; d < q->dim; ++d) {
          g += stride * (c[d] * (q->k + 1) + r[d]);
          stride *= dofs->comp_n[comp][d];
          val[a] *= d == i ? q->lobatto[qi[d]][r[d]] : q->gauss[qi[d]][r[d]];
        }
        idx[a] = dofs->comp_offset[comp] + g;
      }
  return a;
}

/* The normal velocity DoFs on the boundary (section 2): a_i = 0 or a_i = n_u[i][i] - 1. */
static void zero_constrained(ts_dofs velocity, double *b) {
  for (int i = 0; i < velocity->dim; ++i) {
    int64_t inner = 1;
    for (int d = 0; d < i; ++d) inner *= velocity->comp_n[i][d];
    const int64_t ni = velocity->comp_n[i][i];
    for (int64_t j = velocity->comp_offset[i]; j < velocity->comp_offset[i + 1]; ++j) {
      const int64_t a = (j - velocity->comp_offset[i]) / inner % ni;
      if (a == 0 || a == ni - 1) b[j] = 0.0;
    }
  }
}

int ts_stokes_assemble_rhs(ts_dofs velocity, ts_dofs pressure, const ts_stokes_solution *s,
                           double *b) {
  TS_CALL(check_dofs(velocity, pressure, "ts_stokes_assemble_rhs"));
  TS_CHECK_ARG(s && b, "ts_stokes_assemble_rhs: NULL solution or right-hand side");
  stokes_quadrature q;
  TS_CALL(quadrature_init(velocity, &q));
  memset(b, 0, sizeof(double) * (size_t)(velocity->count + pressure->count));
  int64_t idx[TS_STOKES_N2 * TS_STOKES_N1 * TS_STOKES_N1];
  double val[TS_STOKES_N2 * TS_STOKES_N1 * TS_STOKES_N1];
  for (int64_t cell = 0; cell < ts_cell_count(velocity); ++cell) {
    int64_t c[3];
    ts_cell_from_index(velocity, cell, c);
    for (int m = 0; m < points_per_cell(&q); ++m) {
      int qi[3];
      double x[3], f[3];
      const double w = quadrature_point(velocity, &q, c, m, qi, x);
      s->force(q.dim, x, f);
      for (int i = 0; i < q.dim; ++i) {
        const int n = cell_functions(velocity, &q, i, c, qi, idx, val);
        for (int a = 0; a < n; ++a) b[idx[a]] += w * f[i] * val[a];
      }
    }
  }
  zero_constrained(velocity, b);
  return 0;
}

/* int |u_h - u|^2 over the box into *sum. */
static void velocity_error(ts_dofs velocity, const stokes_quadrature *q, const double *x,
                           const ts_stokes_solution *s, double *sum) {
  int64_t idx[TS_STOKES_N2 * TS_STOKES_N1 * TS_STOKES_N1];
  double val[TS_STOKES_N2 * TS_STOKES_N1 * TS_STOKES_N1];
  *sum = 0.0;
  for (int64_t cell = 0; cell < ts_cell_count(velocity); ++cell) {
    int64_t c[3];
    ts_cell_from_index(velocity, cell, c);
    for (int m = 0; m < points_per_cell(q); ++m) {
      int qi[3];
      double xp[3], u[3];
      const double w = quadrature_point(velocity, q, c, m, qi, xp);
      s->velocity(q->dim, xp, u);
      for (int i = 0; i < q->dim; ++i) {
        const int n = cell_functions(velocity, q, i, c, qi, idx, val);
        double uh = 0.0;
        for (int a = 0; a < n; ++a) uh += x[idx[a]] * val[a];
        *sum += w * (uh - u[i]) * (uh - u[i]);
      }
    }
  }
}

/* sum_cells int (p_h + p - shift)^power (power 1 or 2), and the volume. The form (3)-(4)
 * has +(p_h, div v) while -Laplace u + grad p = f gives -(p, div v) weakly, so the discrete
 * pressure approximates -p (doc/stokes.md section 8). */
static void pressure_error(ts_dofs velocity, ts_dofs pressure, const stokes_quadrature *q,
                           const double *x, const ts_stokes_solution *s, double shift, int power,
                           double *sum, double *volume) {
  int64_t idx[TS_STOKES_N1 * TS_STOKES_N1 * TS_STOKES_N1];
  double val[TS_STOKES_N1 * TS_STOKES_N1 * TS_STOKES_N1];
  *sum = *volume = 0.0;
  for (int64_t cell = 0; cell < ts_cell_count(pressure); ++cell) {
    int64_t c[3];
    ts_cell_from_index(pressure, cell, c);
    for (int m = 0; m < points_per_cell(q); ++m) {
      int qi[3];
      double xp[3];
      const double w = quadrature_point(pressure, q, c, m, qi, xp);
      const int n = cell_functions(pressure, q, q->dim, c, qi, idx, val);
      double ph = 0.0;
      for (int a = 0; a < n; ++a) ph += x[velocity->count + idx[a]] * val[a];
      const double e = ph + s->pressure(q->dim, xp) - shift; /* p_h approximates -p */
      *sum += w * (power == 1 ? e : e * e);
      *volume += w;
    }
  }
}

int ts_stokes_compute_errors(ts_dofs velocity, ts_dofs pressure, const double *x,
                             const ts_stokes_solution *s, double *velocity_l2,
                             double *pressure_l2) {
  TS_CALL(check_dofs(velocity, pressure, "ts_stokes_compute_errors"));
  TS_CHECK_ARG(x && s && velocity_l2 && pressure_l2, "ts_stokes_compute_errors: NULL argument");
  stokes_quadrature q;
  TS_CALL(quadrature_init(velocity, &q));
  double sum, mean_difference, volume;
  velocity_error(velocity, &q, x, s, &sum);
  *velocity_l2 = sqrt(sum);
  /* the difference of the means (doc/stokes.md section 6), then the error without it */
  pressure_error(velocity, pressure, &q, x, s, 0.0, 1, &mean_difference, &volume);
  pressure_error(velocity, pressure, &q, x, s, mean_difference / volume, 2, &sum, &volume);
  *pressure_l2 = sqrt(sum);
  return 0;
}
