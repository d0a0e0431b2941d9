/* stokes-eval.h -- evaluating RT_k x DGQ_k functions at points of a cell (doc/stokes.md
 * sections 1-2), shared by the right side and errors (stokes-rhs-errors.c) and the VTK
 * output (stokes-vtu.c); private to lib/problem. */
#ifndef TESSERA_STOKES_EVAL_H
#define TESSERA_STOKES_EVAL_H

#include "../tessera-impl.h"

#define TS_STOKES_TABLE_POINTS TS_MAX_POINTS /* reference points per direction, at most */
/* functions of one field on a cell: (k+2) (k+1)^(dim-1) velocity, (k+1)^dim pressure */
#define TS_STOKES_CELL_FUNCTIONS (TS_STOKES_N2 * TS_STOKES_N1 * TS_STOKES_N1)

/** The 1D bases at n reference points on [0,1] (the same points in every direction):
 *  gauss[q][r] (k+1 functions: the velocity's tangential directions and the pressure),
 *  lobatto[q][r] (k+2: a velocity component's own direction). */
typedef struct ts_stokes_tables {
  int dim, k, n;
  double points[TS_STOKES_TABLE_POINTS];
  double gauss[TS_STOKES_TABLE_POINTS][TS_STOKES_N1];
  double lobatto[TS_STOKES_TABLE_POINTS][TS_STOKES_N2];
} ts_stokes_tables;

/** TS_ERR_ARG, naming fn, unless velocity is RT_k and pressure DGQ_k of the same degree,
 *  dimension and cells (doc/stokes.md section 2). */
int ts_stokes_check_dofs(ts_dofs velocity, ts_dofs pressure, const char *fn);
/** Tabulate the 1D bases of the velocity's degree at n (1..TS_STOKES_TABLE_POINTS) points. */
int ts_stokes_tables_init(ts_dofs velocity, int n, const double *points, ts_stokes_tables *t);
/** Point m (lexicographic over n^dim) of a cell: its 1D indices qi[0..dim-1]. */
void ts_stokes_point_indices(const ts_stokes_tables *t, int m, int *qi);
/** Global indices (within dofs: the velocity, or the pressure from 0) and values at point qi
 *  of the cell-local functions of field i of cell c (i < dim: velocity component i with
 *  dofs = the velocity; i == dim: the pressure with dofs = the pressure), lexicographic;
 *  returns their number (at most TS_STOKES_CELL_FUNCTIONS). */
int ts_stokes_cell_functions(ts_dofs dofs, const ts_stokes_tables *t, int i, const int64_t *c,
                             const int *qi, int64_t *idx, double *val);
/** u_h(x) at point qi of cell c into u[0..dim-1], from x = [u; p] (host values). */
void ts_stokes_velocity_at(ts_dofs velocity, const ts_stokes_tables *t, const double *x,
                           const int64_t *c, const int *qi, double *u);
/** p_h(x) at point qi of cell c, from x = [u; p] (host values). */
double ts_stokes_pressure_at(ts_dofs velocity, ts_dofs pressure, const ts_stokes_tables *t,
                             const double *x, const int64_t *c, const int *qi);
/** The means of p_h (from x = [u; p]) and of s's pressure over the box, by Gauss quadrature
 *  with k+3 points per direction (doc/stokes.md section 6); s may be NULL (exact mean 0). */
/** The error integrals of the cells first + [0, cells) per direction of the DoFs' box (a
 *  block of a distributed level, lib/parallel/problem-stokes.c): sums[0] = int |u_h - u|^2,
 *  sums[1] = int p_h, sums[2] = int (p_h - p), sums[3] = their volume; and
 *  int (p_h - p - shift)^2 over them (the pressure error once the means are known). */
int ts_stokes_block_integrals(ts_dofs velocity, ts_dofs pressure, const double *x,
                              const ts_stokes_solution *s, const int64_t *first,
                              const int64_t *cells, double *sums);
int ts_stokes_block_pressure_error(ts_dofs velocity, ts_dofs pressure, const double *x,
                                   const ts_stokes_solution *s, const int64_t *first,
                                   const int64_t *cells, double shift, double *sum);
int ts_stokes_pressure_means(ts_dofs velocity, ts_dofs pressure, const double *x,
                             const ts_stokes_solution *s, double *discrete_mean,
                             double *exact_mean);

#endif
