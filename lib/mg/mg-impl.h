/* mg-impl.h -- the multigrid hierarchy shared by the files of lib/mg (private). */
#ifndef TESSERA_MG_IMPL_H
#define TESSERA_MG_IMPL_H

#include "../tessera-impl.h"

#define TS_MG_MAX_LEVELS 32
#define TS_TRANSFER_1D_SIZE ((2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1))

/** Fill the transfer plan from the coarse to the fine level (fine = coarse refined once,
 *  same Q_k); the 1D interpolation matrix lives in storage (TS_TRANSFER_1D_SIZE doubles). */
int ts_transfer_plan_init(ts_dofs coarse, ts_dofs fine, ts_transfer_plan *plan, double *storage);
/** Check that in and out are vectors of the backend, of one precision, with the sizes of the
 *  transfer's input and output (restriction: fine in, coarse out; prolongation: the reverse). */
int ts_transfer_check_vectors(ts_backend backend, int restrict_, int64_t coarse_count,
                              int64_t fine_count, ts_vec in, ts_vec out);
/** restrict_ = 0: out (fine) = P in (coarse), += with add; 1: out (coarse) = P^T in (fine). */
int ts_transfer_apply(ts_backend backend, const ts_transfer_plan *plan, int restrict_, ts_vec in,
                      ts_vec out, int add);

/** Doubles of storage for ts_field_transfer_plan_init_stokes: the continuous (2k+3) x (k+2)
 *  and the discontinuous (2k+2) x (k+1) 1D prolongation of RT_k x DGQ_k. */
#define TS_FIELD_TRANSFER_STOKES_STORAGE \
  ((2 * TS_STOKES_N2 - 1) * TS_STOKES_N2 + 2 * TS_STOKES_N1 * TS_STOKES_N1)
/** Fill the transfer plan of RT_k x DGQ_k (doc/stokes.md section 5) from the coarse to the
 *  fine level (velocity and pressure DoFs of both; vectors [u_0; ..; p]); the 1D matrices
 *  live in storage (TS_FIELD_TRANSFER_STOKES_STORAGE doubles). */
int ts_field_transfer_plan_init_stokes(ts_dofs coarse_u, ts_dofs coarse_p, ts_dofs fine_u,
                                       ts_dofs fine_p, ts_field_transfer_plan *plan,
                                       double *storage);
/** restrict_ = 0: out (fine) = P in (coarse), += with add; 1: out (coarse) = P^T in (fine). */
int ts_field_transfer_apply(ts_backend backend, const ts_field_transfer_plan *plan, int restrict_,
                            ts_vec in, ts_vec out, int add);

/** One level of the hierarchy; vectors and operator in the V-cycle precision. */
typedef struct ts_mg_level {
  ts_dofs dofs;
  ts_operator A;
  ts_smoother smoother;           /* NULL on the coarsest level */
  ts_transfer_plan transfer;      /* from the next coarser level (not on the coarsest) */
  double interpolation[TS_TRANSFER_1D_SIZE];
  ts_vec b, x, r;                 /* right side, iterate, residual */
  /* under mixed precision, below the finest level: the level's Laplacian and right side,
   * iterate and residual in double, for the nested iteration of full multigrid (fmg.c) */
  ts_operator Ad;
  ts_vec bd, xd, rd;
  ts_mg_level_timing timing;
} ts_mg_level;

struct ts_mg_s {
  ts_backend backend;             /* borrowed */
  ts_mesh mesh;                   /* borrowed */
  ts_fe fe;                       /* borrowed */
  ts_mg_options options;
  int coarse, finest, n_levels;
  ts_mg_level levels[TS_MG_MAX_LEVELS]; /* levels[i] is mesh level coarse + i */
  ts_operator A;                  /* finest Laplacian in double (owned unless borrowed) */
  int own_A;
  ts_operator preconditioner;     /* the V-cycle as an operator on double vectors */
  ts_vec r, e;                    /* finest level, double: outer residual and correction */
  /* exact coarse solve, in double */
  ts_operator coarse_A;
  int own_coarse_A;
  ts_solver coarse_solver;
  ts_vec coarse_b, coarse_x;
  ts_monitor_fn monitor;
  void *monitor_ctx;
};

/** The V-cycle (Algorithm 2.1) on hierarchy level i: improves levels[i].x for levels[i].b. */
int ts_mg_vcycle(ts_mg mg, int i);
/** x_0 = A_0^{-1} b_0 on the coarsest level (CG in double to a tight tolerance). */
int ts_mg_coarse_solve(ts_mg mg);

#endif
