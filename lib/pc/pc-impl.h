/* pc-impl.h -- the preconditioner object shared by the files of lib/pc (private): pc.c (the
 * generic object, its operator and the registry of kinds) and one file per kind. */
#ifndef TESSERA_PC_IMPL_H
#define TESSERA_PC_IMPL_H

#include "../tessera-impl.h"

/** The implementation table of a preconditioner kind. */
typedef struct ts_pc_ops {
  const char *name;                            /* as in ts_pc_type_names and XML */
  int (*setup)(ts_pc pc);                      /* NULL: nothing computed from the operator */
  int (*apply)(ts_pc pc, ts_vec r, ts_vec z);  /* z = P r, vectors checked */
  void (*destroy)(ts_pc pc);                   /* frees data */
} ts_pc_ops;

struct ts_pc_s {
  const ts_pc_ops *ops;
  ts_operator op;               /* the pc as an operator (owned; its data is the pc) */
  ts_vec scratch;               /* for the operator's apply_add, made at its first use */
  void *data;                   /* owned by the implementation */
};

/** Allocate a preconditioner of n entries on backend in precision p and run ops->setup;
 *  ops->destroy frees data, also when this fails (*pc is then NULL). */
int ts_pc_create_shell(const ts_pc_ops *ops, ts_backend backend, int64_t n, ts_precision p,
                       void *data, ts_pc *pc);
/** TS_ERR_ARG naming `caller` and `what` unless pc is a preconditioner. */
int ts_pc_check(ts_pc pc, const char *caller, const char *what);

/** TS_ERR_ARG naming `caller` unless A (not NULL) is square. */
int ts_pc_check_square(ts_operator A, const char *caller);

/** The kinds (one file each). */
extern const ts_pc_ops ts_pc_jacobi_ops, ts_pc_chebyshev_ops, ts_pc_mg_ops, ts_pc_operator_ops,
    ts_pc_krylov_ops, ts_pc_pressure_mass_ops, ts_pc_block_diagonal_ops,
    ts_pc_block_triangular_ops, ts_pc_boomeramg_ops, ts_pc_multigrid_ops, ts_pc_richardson_ops,
    ts_pc_amg_ops, ts_pc_schur_block_ops, ts_pc_smoother_ops;

/** Give a multigrid preconditioner (ts_pc_create_multigrid) the parts it borrows to own:
 *  free_parts(parts) runs when pc is destroyed, after its own work vectors (for creators
 *  that make the parts, e.g. ts_pc_create_stokes_velocity_mg).  TS_ERR_ARG if pc is of
 *  another kind (the caller keeps the parts then). */
int ts_pc_multigrid_adopt(ts_pc pc, void *parts, void (*free_parts)(void *parts));
/** Full multigrid's first coarse solve: start (borrowed; NULL: the coarse solve) instead of
 *  the coarse solve - where the coarse "solve" is itself a cycle of coarser levels, their
 *  nested iteration (doc/parallel.md section 5 item 3). */
int ts_pc_multigrid_set_coarse_start(ts_pc pc, ts_pc start);
/** inner (adopted: destroyed on failure too) applied to vectors of precision p: the input
 *  converted to inner's precision, the output back (converted.c). */
int ts_pc_create_converted(ts_pc inner, ts_precision p, ts_pc *pc);
/** Mixed precision: the single-precision multigrid preconditioner pc takes and returns double
 *  vectors from here on, its V-cycles on their rounding; full multigrid's restrictions,
 *  prolongations and residuals run with the levels' double operators A[0..levels-1] and
 *  prolongations P[1..levels-1] (borrowed; they must outlive pc).  Before set_coarse_start,
 *  whose start is then double. */
int ts_pc_multigrid_set_outer(ts_pc pc, const ts_operator *A, const ts_operator *P);
/** x = the nested iteration of full multigrid for b (ts_pc_multigrid_fmg_solve before its
 *  V-cycles) on a multigrid-levels preconditioner. */
int ts_pc_multigrid_nested(ts_pc pc, ts_vec b, ts_vec x);

#endif
