/* ih-grid.h -- the sub-cell geometry of the interpolation-histopolation elements on one level
 * of a box mesh, for the tests of paper 003's pieces (t-histopolation, t-hdiv-schur, t-hdiv):
 * cells per direction, cell sizes, the lower corner and the k+2 Gauss-Lobatto points that cut
 * each cell into sub-cells.  Static inline: include it in one test program per executable. */
#ifndef TESSERA_TESTS_IH_GRID_H
#define TESSERA_TESTS_IH_GRID_H

#include "tessera-impl.h"

typedef struct grid {
  int dim, k;
  int64_t cells[3];
  double h[3], lower[3], gl[TS_MAX_POINTS];
} grid;

/* the level's grid of the box [lower, upper] of mesh, for degree k */
static inline int grid_init(grid *g, ts_mesh mesh, int level, int dim, int k,
                            const double *lower, const double *upper) {
  double w[TS_MAX_POINTS];
  g->dim = dim;
  g->k = k;
  g->cells[0] = g->cells[1] = g->cells[2] = 1;
  int ierr = ts_mesh_cells(mesh, level, g->cells);
  for (int d = 0; d < dim; ++d) {
    g->h[d] = (upper[d] - lower[d]) / (double)g->cells[d];
    g->lower[d] = lower[d];
  }
  if (!ierr) ierr = ts_gauss_lobatto_rule(k + 2, g->gl, w);
  return ierr;
}

/* the interval [a, b] of sub-interval s (0 .. cells (k+1) - 1) along direction d */
static inline void sub_interval(const grid *g, int d, int64_t s, double *a, double *b) {
  const int64_t cell = s / (g->k + 1);
  const int local = (int)(s % (g->k + 1));
  *a = g->lower[d] + g->h[d] * ((double)cell + g->gl[local]);
  *b = g->lower[d] + g->h[d] * ((double)cell + g->gl[local + 1]);
}

/* the n-point Gauss rule on [a, b] */
static inline void gauss_on(int n, double a, double b, double *x, double *w) {
  ts_gauss_rule(n, x, w);
  for (int q = 0; q < n; ++q) {
    x[q] = a + (b - a) * x[q];
    w[q] *= b - a;
  }
}

#endif
