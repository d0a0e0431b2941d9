/* velocity-mg.c -- the V-cycle on the velocity block A of a Stokes hierarchy, made from parts
 * (ts_pc_create_multigrid, lib/pc/multigrid.c): per level A_l = block (0,0) of the level's
 * Stokes operator, P_l the velocity block of the Stokes transfer (transfer-operator.c),
 * Chebyshev smoothers on D^{-1} A_l, and on the coarsest level the LU factorization of the
 * assembled A_0 (coarse-dense.c; A_0 is regular and small).  The preconditioner owns these
 * parts; the hierarchy is borrowed. */
#include "mg-impl.h"
#include "../pc/pc-impl.h"

typedef struct velocity_parts {
  int n;
  ts_operator A[TS_MG_MAX_LEVELS], P[TS_MG_MAX_LEVELS];
  ts_pc smoothers[TS_MG_MAX_LEVELS];
  ts_operator coarse_inverse;
  ts_pc coarse;
} velocity_parts;

static void parts_free(void *data) {
  velocity_parts *v = data;
  if (!v) return;
  ts_pc_destroy(&v->coarse);
  ts_operator_destroy(&v->coarse_inverse);
  for (int i = 0; i < v->n; ++i) {
    ts_pc_destroy(&v->smoothers[i]);
    ts_operator_destroy(&v->P[i]);
    ts_operator_destroy(&v->A[i]);
  }
  ts_free(&v);
}

static int parts_create(ts_mg mg, int degree, velocity_parts *v) {
  for (int i = 0; i < mg->n_levels; ++i) {
    v->n = i + 1;
    TS_CALL(ts_operator_create_stokes_block(mg->levels[i].A, 0, 0, &v->A[i]));
    if (!i) continue;
    TS_CALL(ts_mg_velocity_transfer_operator(mg, mg->lowest + i, &v->P[i]));
    TS_CALL(ts_pc_create_chebyshev(v->A[i], degree, &v->smoothers[i]));
  }
  TS_CALL(ts_mg_dense_inverse_create(v->A[0], NULL, &v->coarse_inverse));
  TS_CALL(ts_pc_create_operator(v->coarse_inverse, &v->coarse));
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
               "%s: the hierarchy's precision is %d, allowed only TS_DOUBLE (%d): the coarse "
               "LU and the outer solvers run in double", __func__, (int)mg->options.precision,
               (int)TS_DOUBLE);
  TS_CHECK_ARG(chebyshev_degree >= 1 && chebyshev_degree <= 20,
               "%s: chebyshev_degree = %d, allowed 1..20", __func__, chebyshev_degree);
  TS_CHECK_ARG(smoothing_steps >= 1 && smoothing_steps <= 100,
               "%s: smoothing_steps = %d, allowed 1..100", __func__, smoothing_steps);
  velocity_parts *v;
  TS_CALL(ts_calloc(1, sizeof *v, "velocity V-cycle parts", &v));
  int ierr = parts_create(mg, chebyshev_degree, v);
  if (!ierr)
    ierr = ts_pc_create_multigrid(v->n, v->A, v->P, v->smoothers, smoothing_steps, v->coarse, pc);
  if (!ierr) ierr = ts_pc_multigrid_adopt(*pc, v, parts_free);
  if (ierr) {
    ts_pc_destroy(pc);
    parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "velocity V-cycle");
  }
  return 0;
}
