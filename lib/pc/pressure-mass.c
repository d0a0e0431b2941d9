/* pressure-mass.c -- the inverse pressure mass M_p^{-1} of a Stokes operator: M_p is diagonal
 * (ts_stokes_pressure_mass_diagonal, lib/op/stokes.c), inverted entrywise by the Jacobi
 * operator of lib/op/jacobi.c on the shell that holds it. */
#include "pc-impl.h"

typedef struct pressure_mass_pc {
  ts_operator stokes;   /* borrowed */
  ts_vec mass;          /* the diagonal of M_p */
  ts_operator mass_op;  /* M_p as an operator with a diagonal only, for the Jacobi operator */
  ts_operator inverse;  /* Jacobi of mass_op: M_p^{-1} */
} pressure_mass_pc;

static int mass_diagonal(ts_operator op, ts_vec d) {
  const pressure_mass_pc *m = op->data;
  TS_CALL(ts_vec_copy(m->mass, d));
  return 0;
}

/* M_p as an operator for ts_operator_create_jacobi, which reads its diagonal only */
static const ts_operator_ops mass_ops = {.name = "pressure-mass", .diagonal = mass_diagonal};

static int pressure_mass_setup(ts_pc pc) {
  pressure_mass_pc *m = pc->data;
  ts_operator_destroy(&m->inverse);
  TS_CALL(ts_stokes_pressure_mass_diagonal(m->stokes, m->mass));
  TS_CALL(ts_operator_create_jacobi(m->mass_op, &m->inverse));
  return 0;
}

static int pressure_mass_apply(ts_pc pc, ts_vec r, ts_vec z) {
  pressure_mass_pc *m = pc->data;
  TS_CALL(ts_operator_apply(m->inverse, r, z));
  return 0;
}

static void pressure_mass_destroy(ts_pc pc) {
  pressure_mass_pc *m = pc->data;
  ts_operator_destroy(&m->inverse);
  ts_operator_destroy(&m->mass_op);
  ts_vec_destroy(&m->mass);
  ts_free(&pc->data);
}

const ts_pc_ops ts_pc_pressure_mass_ops = {.name = "pressure-mass",
                                           .setup = pressure_mass_setup,
                                           .apply = pressure_mass_apply,
                                           .destroy = pressure_mass_destroy};

int ts_pc_create_pressure_mass(ts_operator stokes, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  int64_t n;
  TS_CALL(ts_stokes_pressure_count(stokes, __func__, &n));
  pressure_mass_pc *m;
  TS_CALL(ts_calloc(1, sizeof *m, "pressure mass preconditioner", &m));
  m->stokes = stokes;
  int ierr = ts_vec_create(stokes->backend, n, stokes->precision, &m->mass);
  if (!ierr) ierr = ts_operator_create_shell(stokes->backend, &mass_ops, n, stokes->precision, m,
                                             &m->mass_op);
  if (ierr) {
    pressure_mass_destroy(&(struct ts_pc_s){.data = m});
    return ts_error_trace(ierr, __FILE__, __LINE__, "pressure mass preconditioner");
  }
  TS_CALL(ts_pc_create_shell(&ts_pc_pressure_mass_ops, stokes->backend, n, stokes->precision, m,
                             pc));
  return 0;
}
