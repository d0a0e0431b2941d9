/* solver-impl.h -- the Krylov solver object shared by cg.c, gmres.c and solver.c. */
#ifndef TESSERA_SOLVER_IMPL_H
#define TESSERA_SOLVER_IMPL_H

#include "../tessera-impl.h"

struct ts_solver_s {
  ts_solver_type type;
  ts_operator A, P;            /* borrowed */
  double rtol;
  int max_iterations, restart;
  ts_side side;                /* GMRES: where P is applied */
  ts_monitor_fn monitor;
  void *monitor_ctx;
  /* results of the last solve */
  int iterations;
  double relative_residual;
  double *history;
  int history_count, history_capacity;
  /* work vectors, kept between solves of the same size and precision */
  ts_vec *work;
  int n_work;
};

/** Make sure at least count work vectors like b exist. */
int ts_solver_work(ts_solver s, ts_vec b, int count);
/** Record one relative residual, call the monitor, and check for NaN. */
int ts_solver_record(ts_solver s, int iteration, double relative_residual);
/** Record the true relative residual of iteration `iteration`, computed after its
 *  recorded one (GMRES at a restart, CG when its updated residual claims convergence): it
 *  replaces the last history entry, so the history ends with what the verdict uses, and
 *  the monitor sees it under the same iteration number. */
int ts_solver_record_true(ts_solver s, int iteration, double relative_residual);
/** TS_ERR_NOT_CONVERGED for a tolerance the iteration cannot reach (the true residual
 *  stopped improving at `attainable`, relative), with a tolerance to use instead. */
int ts_solver_unreachable(ts_solver s, int iteration, double attainable);
/** y = P x, or y = x without a preconditioner. */
int ts_solver_precondition(ts_solver s, ts_vec x, ts_vec y);

int ts_cg_solve(ts_solver s, ts_vec b, ts_vec x);
int ts_gmres_solve(ts_solver s, ts_vec b, ts_vec x);

#endif
