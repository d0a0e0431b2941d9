/* velocity-mg.c -- the V-cycle on the velocity block A of a Stokes hierarchy, made from parts
 * (ts_pc_create_multigrid, lib/pc/multigrid.c): per level A_l = block (0,0) of the level's
 * Stokes operator, P_l the velocity block of the Stokes transfer (transfer-operator.c),
 * Chebyshev smoothers on D^{-1} A_l, and on the coarsest level the LU factorization of the
 * assembled A_0 (coarse-dense.c; A_0 is regular and small).  The preconditioner owns these
 * parts; the hierarchy is borrowed. */
#include "mg-impl.h"
#include "../pc/pc-impl.h"

/* A_l = the level's block (0,0) (owned), P_l the velocity transfer, Chebyshev smoothers,
 * the coarse LU */
static int parts_create(ts_mg mg, int degree, ts_mg_parts *v) {
  v->owns_operators = 1;
  for (int i = 0; i < mg->n_levels; ++i) {
    v->n = i + 1;
    TS_CALL(ts_operator_create_stokes_block(mg->levels[i].A, 0, 0, &v->A[i]));
    if (!i) continue;
    TS_CALL(ts_mg_velocity_transfer_operator(mg, mg->lowest + i, &v->P[i]));
    TS_CALL(ts_pc_create_chebyshev(v->A[i], degree, &v->smoothers[i]));
  }
  TS_CALL(ts_mg_parts_coarse_lu(v));
  return 0;
}

int ts_pc_create_stokes_velocity_mg(ts_mg mg, int chebyshev_degree, int smoothing_steps,
                                    ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(mg->levels[0].pressure_dofs,
               "%s: the hierarchy is '%s', a Stokes one (ts_mg_create_stokes) is required",
               __func__, mg->discretization->name);
  TS_CHECK_ARG(mg->options.precision == TS_DOUBLE,
               "%s: the hierarchy is mixed precision (ts_mg_options.precision = TS_SINGLE), "
               "allowed only TS_DOUBLE: this V-cycle runs in double, with the coarse LU and the "
               "outer solvers (a mixed-precision V-cycle: ts_pc_create_mg)",
               __func__);
  TS_CHECK_ARG(chebyshev_degree >= 1 && chebyshev_degree <= 20,
               "%s: chebyshev_degree = %d, allowed 1..20", __func__, chebyshev_degree);
  TS_CHECK_ARG(smoothing_steps >= 1 && smoothing_steps <= 100,
               "%s: smoothing_steps = %d, allowed 1..100", __func__, smoothing_steps);
  ts_mg_parts *v;
  TS_CALL(ts_calloc(1, sizeof *v, "velocity V-cycle parts", &v));
  const int ierr = parts_create(mg, chebyshev_degree, v);
  if (ierr) {
    ts_mg_parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "velocity V-cycle");
  }
  TS_CALL(ts_mg_parts_vcycle(v, smoothing_steps, "velocity V-cycle", pc));
  return 0;
}
