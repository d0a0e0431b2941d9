/* solver-impl.h -- the Krylov solver object and the table of Krylov methods, shared by
 * solver.c (settings, history, checks), methods.c (the table: names, labels, what each
 * method accepts) and one file per method (cg.c, gmres.c, minres.c). */
#ifndef TESSERA_SOLVER_IMPL_H
#define TESSERA_SOLVER_IMPL_H

#include "../tessera-impl.h"

/** One Krylov method: how the API, the problem reader and the CLI name it, and its solve.
 *  A solve finds s->A and s->P set and the vectors checked; it records every iteration's
 *  residual (ts_solver_record) and confirms convergence with the true residual. */
typedef struct ts_krylov_method {
  ts_solver_type type;
  const char *name;    /* as in XML and on the command line: "cg" */
  const char *label;   /* in messages: "CG" */
  const char *summary; /* one line for documentation and --help */
  int left_side;       /* 1: accepts TS_SIDE_LEFT */
  int (*solve)(ts_solver s, ts_vec b, ts_vec x);
} ts_krylov_method;

/** The method of a type, or NULL for a type that is none of the table's. */
const ts_krylov_method *ts_krylov_method_of(ts_solver_type type);

struct ts_solver_s {
  const ts_krylov_method *method;
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
/** A method's recursively updated residual keeps falling after the true residual has
 *  reached the floor rounding sets (doc/accuracy.md); when it claims convergence (falls
 *  to `level`) the method computes the true residual and calls ts_solver_confirm. */
typedef struct ts_claim {
  double reference; /* the norm residuals are relative to (||b||, ||r0||_P) */
  double level;     /* the updated residual that is checked: rtol reference at first */
  double parted;    /* the true residual at the last claim (infinity before the first) */
} ts_claim;
ts_claim ts_claim_start(ts_solver s, double reference);
/** After a claim at iteration `it`: records the true residual norm `true_norm`; sets
 *  *converged when it meets rtol; else, if it has not halved since the last claim,
 *  returns TS_ERR_NOT_CONVERGED naming the attainable residual (ts_solver_unreachable);
 *  else the method restarts from the true residual and the next claim is checked once the
 *  updated residual has fallen tenfold (a true residual not at its floor falls with it). */
int ts_solver_confirm(ts_solver s, int it, double true_norm, ts_claim *claim, int *converged);
/** y = P x, or y = x without a preconditioner. */
int ts_solver_precondition(ts_solver s, ts_vec x, ts_vec y);

int ts_cg_solve(ts_solver s, ts_vec b, ts_vec x);
int ts_gmres_solve(ts_solver s, ts_vec b, ts_vec x);
int ts_minres_solve(ts_solver s, ts_vec b, ts_vec x);

#endif
