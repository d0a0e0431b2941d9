/* jacobi-mg.c -- what V-cycles made from parts (ts_pc_create_multigrid) are made of
 * (ts_mg_parts; velocity-mg.c's too), and such V-cycles with weighted point Jacobi smoothing:
 * the inner solves of papers 001/004's block-triangular preconditioner (their Algorithm 5 and
 * section 5: V(3,3)-cycles, Jacobi weight 1.0 on the velocity Laplacian and 0.6 on the
 * pressure mass).  ts_pc_create_mg_jacobi takes a Laplacian hierarchy's levels and transfers;
 * ts_pc_create_mass_mg makes the levels of a Q_k mass itself: the DoFs of every mesh level,
 * the consistent mass (ts_operator_create_mass) and the Q_k prolongation over all DoFs
 * (field-transfer.c).  On the coarsest level the LU of the assembled operator. */
#include "mg-impl.h"
#include "../pc/pc-impl.h"

/* The Q_k prolongation of one level over all DoFs as an operator */
static int q_transfer_create(ts_backend backend, ts_dofs coarse, ts_dofs fine, ts_precision p,
                             ts_operator *P) {
  ts_field_transfer_operator *t;
  TS_CALL(ts_calloc(1, sizeof *t, "Q_k transfer operator", &t));
  const int ierr = ts_field_transfer_plan_init_q(coarse, fine, &t->plan, t->storage);
  if (ierr) {
    ts_free(&t);
    return ierr;
  }
  TS_CALL(ts_field_transfer_operator_create(backend, p, t, P));
  return 0;
}

void ts_mg_parts_free(void *data) {
  ts_mg_parts *v = data;
  if (!v) return;
  ts_pc_destroy(&v->coarse_start); /* it may borrow from coarse */
  ts_pc_destroy(&v->coarse);
  ts_operator_destroy(&v->coarse_inverse);
  for (int i = 0; i < v->n; ++i) {
    ts_pc_destroy(&v->smoothers[i]);
    ts_operator_destroy(&v->P[i]);
    ts_operator_destroy(&v->outer_P[i]);
    if (v->owns_operators) ts_operator_destroy(&v->A[i]);
    ts_dofs_destroy(&v->dofs[i]);
    ts_fe_destroy(&v->fe[i]);
  }
  ts_free(&v);
}

int ts_mg_parts_coarse_lu(ts_mg_parts *v) {
  TS_CALL(ts_mg_dense_inverse_create(v->A[0], NULL, &v->coarse_inverse));
  TS_CALL(ts_pc_create_operator(v->coarse_inverse, &v->coarse));
  return 0;
}

int ts_mg_parts_vcycle(ts_mg_parts *v, int steps, const char *what, ts_pc *pc) {
  int ierr = ts_pc_create_multigrid(v->n, v->A, v->P, v->smoothers, steps, v->coarse, pc);
  if (!ierr && v->outer_A[v->n - 1]) ierr = ts_pc_multigrid_set_outer(*pc, v->outer_A, v->outer_P);
  if (!ierr) ierr = ts_pc_multigrid_set_coarse_start(*pc, v->coarse_start);
  if (!ierr) ierr = ts_pc_multigrid_adopt(*pc, v, ts_mg_parts_free);
  if (ierr) {
    ts_pc_destroy(pc);
    ts_mg_parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, what);
  }
  return 0;
}

/* weighted Jacobi smoothers on the levels above the coarsest, the coarse LU */
static int smoothers_create(ts_mg_parts *v, double weight) {
  for (int i = 1; i < v->n; ++i)
    TS_CALL(ts_pc_create_jacobi_weighted(v->A[i], weight, &v->smoothers[i]));
  TS_CALL(ts_mg_parts_coarse_lu(v));
  return 0;
}

static int check_smoothing(const char *caller, double weight, int steps) {
  TS_CHECK_ARG(weight > 0.0 && weight <= 2.0, "%s: weight = %g, allowed 0 < weight <= 2", caller,
               weight);
  TS_CHECK_ARG(steps >= 1 && steps <= 100, "%s: smoothing_steps = %d, allowed 1..100", caller,
               steps);
  return 0;
}

static int laplace_parts(ts_mg mg, double weight, ts_mg_parts *v) {
  for (int i = 0; i < mg->n_levels; ++i) {
    v->n = i + 1;
    v->A[i] = mg->levels[i].A;
    if (i) TS_CALL(ts_mg_transfer_operator(mg, mg->lowest + i, &v->P[i]));
  }
  TS_CALL(smoothers_create(v, weight));
  return 0;
}

int ts_pc_create_mg_jacobi(ts_mg mg, double weight, int smoothing_steps, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(!mg->levels[0].pressure_dofs && mg->fe->family == TS_FE_Q,
               "%s: the hierarchy is '%s', a Laplacian one (ts_mg_create) is required", __func__,
               mg->discretization->name);
  TS_CHECK_ARG(mg->options.precision == TS_DOUBLE,
               "%s: the hierarchy is mixed precision (ts_mg_options.precision = TS_SINGLE), "
               "allowed only TS_DOUBLE: this V-cycle runs in double, with the coarse LU and the "
               "outer solvers (a mixed-precision V-cycle: ts_pc_create_mg)",
               __func__);
  TS_CHECK_ARG(mg->n_levels <= TS_MG_PARTS_MAX_LEVELS, "%s: %d levels, allowed at most %d",
               __func__, mg->n_levels, TS_MG_PARTS_MAX_LEVELS);
  TS_CALL(check_smoothing(__func__, weight, smoothing_steps));
  ts_mg_parts *v;
  TS_CALL(ts_calloc(1, sizeof *v, "Jacobi V-cycle parts", &v));
  const int ierr = laplace_parts(mg, weight, v);
  if (ierr) {
    ts_mg_parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Jacobi V-cycle");
  }
  TS_CALL(ts_mg_parts_vcycle(v, smoothing_steps, "Jacobi V-cycle", pc));
  return 0;
}

static int mass_parts(ts_backend backend, ts_mesh mesh, ts_fe fe, int coarse_level,
                      double weight, ts_mg_parts *v) {
  v->owns_operators = 1;
  for (int i = 0; i < v->n; ++i) {
    TS_CALL(ts_dofs_create(mesh, fe, coarse_level + i, &v->dofs[i]));
    TS_CALL(ts_operator_create_mass(backend, v->dofs[i], TS_DOUBLE, &v->A[i]));
    if (i) TS_CALL(q_transfer_create(backend, v->dofs[i - 1], v->dofs[i], TS_DOUBLE, &v->P[i]));
  }
  TS_CALL(smoothers_create(v, weight));
  return 0;
}

int ts_pc_create_mass_mg(ts_backend backend, ts_mesh mesh, ts_fe fe, int coarse_level,
                         int finest_level, double weight, int smoothing_steps, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(fe);
  TS_CHECK_ARG(coarse_level >= 0 && coarse_level <= finest_level &&
                   finest_level - coarse_level < TS_MG_PARTS_MAX_LEVELS,
               "%s: levels %d..%d, allowed 0 <= coarse_level <= finest_level with at most %d "
               "levels", __func__, coarse_level, finest_level, TS_MG_PARTS_MAX_LEVELS);
  TS_CALL(check_smoothing(__func__, weight, smoothing_steps));
  ts_mg_parts *v;
  TS_CALL(ts_calloc(1, sizeof *v, "mass V-cycle parts", &v));
  v->n = finest_level - coarse_level + 1;
  const int ierr = mass_parts(backend, mesh, fe, coarse_level, weight, v);
  if (ierr) {
    ts_mg_parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "mass V-cycle");
  }
  TS_CALL(ts_mg_parts_vcycle(v, smoothing_steps, "mass V-cycle", pc));
  return 0;
}
