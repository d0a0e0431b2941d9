/* stokes-rhs-errors.c -- the Stokes right-hand side b_u = (f, phi_i), b_p = 0, the L2
 * errors of velocity and pressure against a manufactured solution, and the pressure means
 * (doc/stokes.md sections 2, 3, 6 and 8). Host-side setup and post-processing: Gauss
 * quadrature with k+3 points per direction, basis functions evaluated point by point from
 * 1D tables (stokes-eval.c), cells in OpenMP parallel loops; the integrals are compensated
 * sums over cells (ts_cell_sums: the pressure mean cancels). */
#include <math.h>
#include <string.h>
#include "stokes-eval.h"

/* The k+3 point Gauss rule and the 1D bases at its points. */
typedef struct stokes_quadrature {
  ts_stokes_tables t;
  double weights[TS_STOKES_TABLE_POINTS];
} stokes_quadrature;

static int quadrature_init(ts_dofs velocity, stokes_quadrature *q) {
  const int nq = velocity->degree + 3;
  double points[TS_STOKES_TABLE_POINTS];
  TS_CALL(ts_gauss_rule(nq, points, q->weights));
  TS_CALL(ts_stokes_tables_init(velocity, nq, points, &q->t));
  return 0;
}

static int points_per_cell(const stokes_quadrature *q) {
  int n = 1;
  for (int d = 0; d < q->t.dim; ++d) n *= q->t.n;
  return n;
}

/* Point m (lexicographic) of cell c: its 1D indices, physical coordinates and weight. */
static double quadrature_point(ts_dofs dofs, const stokes_quadrature *q, const int64_t *c, int m,
                               int *qi, double *x) {
  double w = 1.0;
  ts_stokes_point_indices(&q->t, m, qi);
  for (int d = 0; d < q->t.dim; ++d) {
    x[d] = dofs->lower[d] + dofs->h[d] * ((double)c[d] + q->t.points[qi[d]]);
    w *= q->weights[qi[d]] * dofs->h[d];
  }
  return w;
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

/* b += the load of cell `cell` (its velocity rows) */
static void cell_load(ts_dofs velocity, const stokes_quadrature *q, const ts_stokes_solution *s,
                      int64_t cell, double *b) {
  int64_t c[3], idx[TS_STOKES_CELL_FUNCTIONS];
  double val[TS_STOKES_CELL_FUNCTIONS];
  ts_cell_from_index(velocity, cell, c);
  for (int m = 0; m < points_per_cell(q); ++m) {
    int qi[3];
    double x[3], f[3];
    const double w = quadrature_point(velocity, q, c, m, qi, x);
    s->force(q->t.dim, x, f);
    for (int i = 0; i < q->t.dim; ++i) {
      const int n = ts_stokes_cell_functions(velocity, &q->t, i, c, qi, idx, val);
      for (int a = 0; a < n; ++a) b[idx[a]] += w * f[i] * val[a];
    }
  }
}

int ts_stokes_assemble_rhs(ts_dofs velocity, ts_dofs pressure, const ts_stokes_solution *s,
                           double *b) {
  TS_CALL(ts_stokes_check_dofs(velocity, pressure, "ts_stokes_assemble_rhs"));
  TS_CHECK_ARG(s && b, "ts_stokes_assemble_rhs: NULL solution or right-hand side");
  stokes_quadrature q;
  TS_CALL(quadrature_init(velocity, &q));
  memset(b, 0, sizeof(double) * (size_t)(velocity->count + pressure->count));
  /* layers of cells along the last direction: RT_k DoFs are shared across faces only, so
   * two layers of the same parity share none and each parity is a race-free parallel loop */
  const int last = velocity->dim - 1;
  const int64_t layers = velocity->cells[last], per_layer = ts_cell_count(velocity) / layers;
  for (int parity = 0; parity < 2; ++parity) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t layer = parity; layer < layers; layer += 2)
      for (int64_t cell = layer * per_layer; cell < (layer + 1) * per_layer; ++cell)
        cell_load(velocity, &q, s, cell, b);
  }
  zero_constrained(velocity, b);
  return 0;
}

/* What the integrals over the cells read: the solution x, the exact solution s (NULL: zero
 * pressure), for the pressure a shift and the power (1 or 2) of p_h - p - shift, and the
 * cells: first + [0, cells) per direction of the DoFs' box (first NULL: all of them). */
typedef struct integral_ctx {
  ts_dofs velocity, pressure;
  const stokes_quadrature *q;
  const double *x;
  const ts_stokes_solution *s;
  double shift;
  int power;
  const int64_t *first, *cells;
} integral_ctx;

/* the cell of the integral's index-th cell */
static void integral_cell(const integral_ctx *e, ts_dofs dofs, int64_t index, int64_t *c) {
  if (!e->first) {
    ts_cell_from_index(dofs, index, c);
    return;
  }
  const int64_t *n = e->cells;
  c[0] = e->first[0] + index % n[0];
  c[1] = e->first[1] + index / n[0] % n[1];
  c[2] = e->first[2] + index / (n[0] * n[1]);
}

/* the cells the integrals run over */
static int64_t integral_cells(const integral_ctx *e, ts_dofs dofs) {
  return e->first ? e->cells[0] * e->cells[1] * e->cells[2] : ts_cell_count(dofs);
}

/* out[0] = int |u_h - u|^2 over one cell */
static void cell_velocity_error(const void *ctx, int64_t cell, double *out) {
  const integral_ctx *e = ctx;
  int64_t c[3];
  ts_sum total = {0.0, 0.0};
  integral_cell(e, e->velocity, cell, c);
  for (int m = 0; m < points_per_cell(e->q); ++m) {
    int qi[3];
    double xp[3], u[3], uh[3];
    const double w = quadrature_point(e->velocity, e->q, c, m, qi, xp);
    e->s->velocity(e->q->t.dim, xp, u);
    ts_stokes_velocity_at(e->velocity, &e->q->t, e->x, c, qi, uh);
    for (int i = 0; i < e->q->t.dim; ++i) ts_sum_add(&total, w * (uh[i] - u[i]) * (uh[i] - u[i]));
  }
  out[0] = ts_sum_value(&total);
}

/* int |u_h - u|^2 over the cells of `cells` (first NULL: the box) into *sum. */
static int velocity_error(ts_dofs velocity, const stokes_quadrature *q, const double *x,
                          const ts_stokes_solution *s, const int64_t *first, const int64_t *cells,
                          double *sum) {
  const integral_ctx ctx = {velocity, NULL, q, x, s, 0.0, 2, first, cells};
  TS_CALL(ts_cell_sums(integral_cells(&ctx, velocity), 1, cell_velocity_error, &ctx, sum));
  return 0;
}

/* out[0] = int (p_h - p - shift)^power and out[1] = the volume of one cell */
static void cell_pressure_integrals(const void *ctx, int64_t cell, double *out) {
  const integral_ctx *e = ctx;
  int64_t c[3];
  ts_sum total = {0.0, 0.0}, volume = {0.0, 0.0};
  integral_cell(e, e->pressure, cell, c);
  for (int m = 0; m < points_per_cell(e->q); ++m) {
    int qi[3];
    double xp[3];
    const double w = quadrature_point(e->pressure, e->q, c, m, qi, xp);
    const double ph = ts_stokes_pressure_at(e->velocity, e->pressure, &e->q->t, e->x, c, qi);
    const double err = ph - (e->s ? e->s->pressure(e->q->t.dim, xp) : 0.0) - e->shift;
    ts_sum_add(&total, w * (e->power == 1 ? err : err * err));
    ts_sum_add(&volume, w);
  }
  out[0] = ts_sum_value(&total);
  out[1] = ts_sum_value(&volume);
}

/* Over the cells (first NULL: the box): int (p_h - p - shift)^power (power 1 or 2; p = 0 if
 * s is NULL) into *sum, and the volume (doc/stokes.md section 8: the discrete pressure
 * approximates p). */
static int pressure_integrals(ts_dofs velocity, ts_dofs pressure, const stokes_quadrature *q,
                              const double *x, const ts_stokes_solution *s, double shift,
                              int power, const int64_t *first, const int64_t *cells,
                              double *sum, double *volume) {
  const integral_ctx ctx = {velocity, pressure, q, x, s, shift, power, first, cells};
  double sums[2];
  TS_CALL(ts_cell_sums(integral_cells(&ctx, pressure), 2, cell_pressure_integrals, &ctx, sums));
  *sum = sums[0];
  *volume = sums[1];
  return 0;
}

int ts_stokes_block_integrals(ts_dofs velocity, ts_dofs pressure, const double *x,
                              const ts_stokes_solution *s, const int64_t *first,
                              const int64_t *cells, double *sums) {
  TS_CALL(ts_stokes_check_dofs(velocity, pressure, "ts_stokes_block_integrals"));
  stokes_quadrature q;
  TS_CALL(quadrature_init(velocity, &q));
  TS_CALL(velocity_error(velocity, &q, x, s, first, cells, &sums[0]));
  TS_CALL(pressure_integrals(velocity, pressure, &q, x, NULL, 0.0, 1, first, cells, &sums[1],
                             &sums[3]));
  TS_CALL(pressure_integrals(velocity, pressure, &q, x, s, 0.0, 1, first, cells, &sums[2],
                             &sums[3]));
  return 0;
}

int ts_stokes_block_pressure_error(ts_dofs velocity, ts_dofs pressure, const double *x,
                                   const ts_stokes_solution *s, const int64_t *first,
                                   const int64_t *cells, double shift, double *sum) {
  stokes_quadrature q;
  double volume;
  TS_CALL(quadrature_init(velocity, &q));
  TS_CALL(pressure_integrals(velocity, pressure, &q, x, s, shift, 2, first, cells, sum, &volume));
  return 0;
}

int ts_stokes_pressure_means(ts_dofs velocity, ts_dofs pressure, const double *x,
                             const ts_stokes_solution *s, double *discrete_mean,
                             double *exact_mean) {
  TS_CALL(ts_stokes_check_dofs(velocity, pressure, "ts_stokes_pressure_means"));
  TS_CHECK_ARG(x && discrete_mean && exact_mean, "ts_stokes_pressure_means: NULL argument");
  stokes_quadrature q;
  double discrete = 0.0, difference = 0.0, volume = 0.0; /* set by pressure_integrals */
  TS_CALL(quadrature_init(velocity, &q));
  TS_CALL(pressure_integrals(velocity, pressure, &q, x, NULL, 0.0, 1, NULL, NULL, &discrete,
                             &volume));
  TS_CALL(pressure_integrals(velocity, pressure, &q, x, s, 0.0, 1, NULL, NULL, &difference,
                             &volume));
  *discrete_mean = discrete / volume;
  *exact_mean = (discrete - difference) / volume;
  return 0;
}

int ts_stokes_compute_errors(ts_dofs velocity, ts_dofs pressure, const double *x,
                             const ts_stokes_solution *s, double *velocity_l2,
                             double *pressure_l2) {
  TS_CALL(ts_stokes_check_dofs(velocity, pressure, "ts_stokes_compute_errors"));
  TS_CHECK_ARG(x && s && velocity_l2 && pressure_l2, "ts_stokes_compute_errors: NULL argument");
  stokes_quadrature q;
  TS_CALL(quadrature_init(velocity, &q));
  double sum, discrete_mean, exact_mean, volume;
  TS_CALL(velocity_error(velocity, &q, x, s, NULL, NULL, &sum));
  *velocity_l2 = sqrt(sum);
  /* the difference of the means (doc/stokes.md section 6), then the error without it */
  TS_CALL(ts_stokes_pressure_means(velocity, pressure, x, s, &discrete_mean, &exact_mean));
  TS_CALL(pressure_integrals(velocity, pressure, &q, x, s, discrete_mean - exact_mean, 2, NULL,
                             NULL, &sum, &volume));
  *pressure_l2 = sqrt(sum);
  return 0;
}
