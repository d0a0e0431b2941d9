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
  ts_mg mg;                      /* borrowed */
  int i;                         /* hierarchy index of the fine level */
  ts_field_transfer_plan plan;   /* velocity: the velocity fields of the level's plan (its 1D
                                    matrices stay in the level's transfer block) */
} transfer_op;

static int transfer_run(ts_operator op, int restrict_, ts_vec x, ts_vec y, int add) {
  const transfer_op *t = op->data;
  TS_CALL(ts_mg_transfer(t->mg, t->i, restrict_, x, y, add));
  return 0;
}
static int transfer_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  return transfer_run(op, 0, x, y, add);
}
static int transfer_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  return transfer_run(op, 1, x, y, add);
}

static int velocity_run(ts_operator op, int restrict_, ts_vec x, ts_vec y, int add) {
  const transfer_op *t = op->data;
  TS_CALL(ts_field_transfer_apply(t->mg->backend, &t->plan, restrict_, x, y, add));
  return 0;
}
static int velocity_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  return velocity_run(op, 0, x, y, add);
}
static int velocity_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  return velocity_run(op, 1, x, y, add);
}

static void transfer_destroy(ts_operator op) { ts_free(&op->data); }

static const ts_operator_ops transfer_ops = {.name = "mg-transfer",
                                             .apply = transfer_apply,
                                             .destroy = transfer_destroy,
                                             .apply_transpose = transfer_apply_transpose};
static const ts_operator_ops velocity_ops = {.name = "mg-velocity-transfer",
                                             .apply = velocity_apply,
                                             .destroy = transfer_destroy,
                                             .apply_transpose = velocity_apply_transpose};

static int create(ts_mg mg, int level, int velocity, const char *caller, ts_operator *P) {
  TS_CALL(ts_mg_check_level(mg, level, caller, 1));
  const int i = level - mg->lowest;
  const ts_mg_level *fine = &mg->levels[i], *coarse = &mg->levels[i - 1];
  transfer_op *t;
  TS_CALL(ts_calloc(1, sizeof *t, "multigrid transfer operator", &t));
  t->mg = mg;
  t->i = i;
  int ierr = velocity ? ts_mg_stokes_velocity_plan(mg, i, caller, &t->plan) : 0;
  const int64_t rows = velocity ? ts_dofs_count(fine->dofs) : fine->A->n;
  const int64_t cols = velocity ? ts_dofs_count(coarse->dofs) : coarse->A->n;
  if (!ierr)
    ierr = ts_operator_create_shell_rect(mg->backend, velocity ? &velocity_ops : &transfer_ops,
                                         rows, cols, fine->A->precision, t, P);
  if (ierr) ts_free(&t);
  return ierr;
}

int ts_mg_transfer_operator(ts_mg mg, int level, ts_operator *P) {
  TS_CHECK_NOT_NULL(P);
  *P = NULL;
  TS_CALL(create(mg, level, 0, __func__, P));
  return 0;
}

int ts_mg_velocity_transfer_operator(ts_mg mg, int level, ts_operator *P) {
  TS_CHECK_NOT_NULL(P);
  *P = NULL;
  TS_CALL(create(mg, level, 1, __func__, P));
  return 0;
}
