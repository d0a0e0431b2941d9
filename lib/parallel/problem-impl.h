/* problem-impl.h -- a problem file solved over the processes (problem.c; Stokes RT:
 * problem-stokes.c): the objects of a level and of the study. */
#ifndef TS_PARALLEL_PROBLEM_IMPL_H
#define TS_PARALLEL_PROBLEM_IMPL_H
#include "parallel-impl.h"
#include "../problem/equation.h"

/* One level's distributed objects. */
typedef struct dist_level {
  ts_parallel_mg mg;            /* the hierarchy (multigrid): owns pd and A */
  ts_parallel_dofs pd;          /* the level's DoFs: the hierarchy's finest, or own */
  ts_operator A;                /* the distributed Laplacian (Stokes: operator): the
                                   hierarchy's, or own */
  ts_vec b, x, lift;            /* right side, solution, boundary values (added after) */
  ts_pc pc;                     /* the preconditioner, or full multigrid's V-cycle */
  ts_solver solver;             /* NULL for full multigrid */
  double *host;                 /* the block's solution on the host */
  double means[2];              /* Stokes: the discrete and the exact pressure's means */
} dist_level;

/* What every level shares: the study (problem, backend, mesh, element, exact solution) and
 * the split; for your own data on a mapped mesh (or the box as one) its functions. */
typedef struct dist_study {
  ts_study s;
  ts_parallel par;
  int own;                      /* <poisson f=...>: the operator on mapped cells */
  int stokes;                   /* <stokes> with RT_k (problem-stokes.c) */
  ts_poisson_own_functions fns; /* its data (own) */
} dist_study;

/** Stokes RT (problem-stokes.c): the level's hierarchy, right side, V-cycle and solver; the
 *  solution's pressure mean removed, its ghosts refreshed, the block's solution on the host
 *  (o->host) and the error integrals summed over the processes. */
int ts_parallel_stokes_level_setup(const dist_study *d, int level, dist_level *o, double *t);
int ts_parallel_stokes_measure(const dist_study *d, dist_level *o, ts_level_report *r);
/** This process's .vtu piece of a measured level: its block's cells, the pressures' means
 *  of the whole solution removed. */
int ts_parallel_stokes_write_piece(const dist_study *d, const dist_level *o, const char *piece);
/** The cells of this process's block on the study's finest level (the Stokes split: the
 *  coarse level's). */
int ts_parallel_stokes_block_cells(const dist_study *d, int64_t *cells);
#endif
