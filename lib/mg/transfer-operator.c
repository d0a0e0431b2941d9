/* transfer-operator.c -- the grid transfers of a hierarchy as operators, for multigrid made
 * from parts (ts_pc_create_multigrid): P_l = ts_mg_prolongate (rows: level l, columns: level
 * l-1) with P_l^T = ts_mg_restrict, which is its exact transpose (t-mg-transfer,
 * t-stokes-transfer; here t-pc-multigrid).  The Stokes transfer of RT_k x DGQ_k is block
 * diagonal in (u, p): one tensor-product embedding per velocity component and one for the
 * pressure (field-transfer.c, doc/stokes.md section 5), no field reads another, so its
 * velocity block P_u = S_f P E_c (E_c the embedding u -> [u; 0], S_f the selection of the
 * fine velocity) is the same plan restricted to the velocity fields, applied directly. */
#include "mg-impl.h"

typedef struct transfer_op {
  ts_mg mg;                      /* borrowed; NULL: the plan below */
  int i;                         /* hierarchy index of the fine level */
  ts_transfer_plan plan;         /* without a hierarchy (ts_transfer_operator_create) */
  double storage[TS_TRANSFER_1D_SIZE];
} transfer_op;

static int transfer_run(ts_operator op, int restrict_, ts_vec x, ts_vec y, int add) {
  const transfer_op *t = op->data;
  if (!t->mg) return ts_transfer_apply(op->backend, &t->plan, restrict_, x, y, add);
  TS_CALL(ts_mg_transfer(t->mg, t->i, restrict_, x, y, add));
  return 0;
}
static int transfer_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  return transfer_run(op, 0, x, y, add);
}
static int transfer_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  return transfer_run(op, 1, x, y, add);
}

static void transfer_destroy(ts_operator op) { ts_free(&op->data); }

static const ts_operator_ops transfer_ops = {.name = "mg-transfer",
                                             .apply = transfer_apply,
                                             .destroy = transfer_destroy,
                                             .apply_transpose = transfer_apply_transpose};

/* a field transfer plan as an operator (ts_field_transfer_operator) */
static int plan_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  const ts_field_transfer_operator *t = op->data;
  return ts_field_transfer_apply(op->backend, &t->plan, 0, x, y, add);
}
static int plan_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  const ts_field_transfer_operator *t = op->data;
  return ts_field_transfer_apply(op->backend, &t->plan, 1, x, y, add);
}

static const ts_operator_ops plan_ops = {.name = "field-transfer",
                                         .apply = plan_apply,
                                         .destroy = transfer_destroy,
                                         .apply_transpose = plan_apply_transpose};

int ts_field_transfer_operator_create(ts_backend backend, ts_precision p,
                                      ts_field_transfer_operator *t, ts_operator *P) {
  const int ierr = ts_operator_create_shell_rect(backend, &plan_ops, t->plan.fine_count,
                                                 t->plan.coarse_count, p, t, P);
  if (ierr) ts_free(&t);
  return ierr;
}

int ts_mg_transfer_operator(ts_mg mg, int level, ts_operator *P) {
  TS_CHECK_NOT_NULL(P);
  *P = NULL;
  TS_CALL(ts_mg_check_level(mg, level, __func__, 1));
  const int i = level - mg->lowest;
  transfer_op *t;
  TS_CALL(ts_calloc(1, sizeof *t, "multigrid transfer operator", &t));
  *t = (transfer_op){.mg = mg, .i = i};
  const int ierr = ts_operator_create_shell_rect(mg->backend, &transfer_ops, mg->levels[i].A->n,
                                                 mg->levels[i - 1].A->n,
                                                 mg->levels[i].A->precision, t, P);
  if (ierr) ts_free(&t);
  return ierr;
}

int ts_transfer_operator_create(ts_backend backend, ts_dofs coarse, ts_dofs fine, ts_operator *P) {
  *P = NULL;
  if (!backend->ops.transfer)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'transfer'", backend->name);
  transfer_op *t;
  TS_CALL(ts_calloc(1, sizeof *t, "transfer operator", &t));
  int ierr = ts_transfer_plan_init(coarse, fine, &t->plan, t->storage);
  t->plan.constrained = 1;
  if (!ierr) ierr = ts_operator_create_shell_rect(backend, &transfer_ops, fine->count,
                                                  coarse->count, TS_DOUBLE, t, P);
  if (ierr) ts_free(&t);
  return ierr;
}

int ts_mg_velocity_transfer_operator(ts_mg mg, int level, ts_operator *P) {
  TS_CHECK_NOT_NULL(P);
  *P = NULL;
  TS_CALL(ts_mg_check_level(mg, level, __func__, 1));
  const int i = level - mg->lowest;
  ts_field_transfer_operator *t;
  TS_CALL(ts_calloc(1, sizeof *t, "velocity transfer operator", &t));
  const int ierr = ts_mg_stokes_velocity_plan(mg, i, __func__, &t->plan);
  if (ierr) {
    ts_free(&t);
    return ierr;
  }
  TS_CALL(ts_field_transfer_operator_create(mg->backend, mg->levels[i].A->precision, t, P));
  return 0;
}
