/* pc.c -- ts_pc: a preconditioner given by an implementation table (pc-impl.h), the operator
 * that lets solvers and block operators take it, and the registry of kinds: the one place
 * that names them (the API's ts_pc_type_names, the problem reader's <preconditioner type>),
 * so a new kind is a new file and a new row here. */
#include <pthread.h>
#include <string.h>
#include "pc-impl.h"

static const struct {
  const ts_pc_ops *ops;
  const char *summary; /* one line for documentation */
} kinds[] = {
    {&ts_pc_jacobi_ops, "the inverse diagonal of the operator"},
    {&ts_pc_chebyshev_ops, "Chebyshev polynomial in D^{-1} A (the Chebyshev smoother from 0)"},
    {&ts_pc_mg_ops, "one multigrid V-cycle"},
    {&ts_pc_operator_ops, "any square operator"},
    {&ts_pc_krylov_ops, "an inner Krylov solve to a tolerance"},
    {&ts_pc_pressure_mass_ops, "the inverse pressure mass of a Stokes operator"},
    {&ts_pc_block_diagonal_ops, "one preconditioner per diagonal block"},
    {&ts_pc_block_triangular_ops, "2x2 block lower or upper triangular with a Schur complement"},
    {&ts_pc_boomeramg_ops, "one algebraic multigrid V-cycle (hypre BoomerAMG) on an assembled matrix"},
    {&ts_pc_amg_ops, "one smoothed-aggregation AMG V-cycle of our own on an assembled matrix, on the backend"},
    {&ts_pc_multigrid_ops, "one V-cycle of multigrid from parts: level operators, transfers, smoothers, coarse solve"},
    {&ts_pc_richardson_ops, "a fixed number of stationary steps z += B (r - A z) with an inner preconditioner B"},
    {&ts_pc_smoother_ops, "one step of a smoother from zero, z = S(0, r)"},
};
enum { n_kinds = sizeof kinds / sizeof kinds[0] };

static char type_names[256]; /* "jacobi, chebyshev, ...", made once */
static pthread_once_t type_names_once = PTHREAD_ONCE_INIT;
static void make_type_names(void) {
  for (int i = 0; i < n_kinds; ++i) {
    if (i) strcat(type_names, ", ");
    strcat(type_names, kinds[i].ops->name);
  }
}

const char *ts_pc_type_names(void) {
  pthread_once(&type_names_once, make_type_names);
  return type_names;
}

int ts_pc_type_check(const char *name) {
  for (int i = 0; name && i < n_kinds; ++i)
    if (!strcmp(name, kinds[i].ops->name)) return 0;
  return TS_ERROR(TS_ERR_ARG, "preconditioner type '%s' unknown, allowed: %s",
                  name ? name : "(null)", ts_pc_type_names());
}

/* the operator of a pc: y (+)= P x */
static int pc_operator_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  ts_pc pc = op->data;
  if (!add) return pc->ops->apply(pc, x, y);
  if (!pc->scratch) TS_CALL(ts_operator_vec_create(op, &pc->scratch));
  TS_CALL(pc->ops->apply(pc, x, pc->scratch));
  TS_CALL(ts_vec_axpby(1.0, pc->scratch, 1.0, y));
  return 0;
}

static const ts_operator_ops pc_operator_ops = {.name = "preconditioner",
                                                .apply = pc_operator_apply};

int ts_pc_destroy(ts_pc *pc) {
  if (!pc || !*pc) return 0;
  if ((*pc)->ops->destroy) (*pc)->ops->destroy(*pc);
  ts_operator_destroy(&(*pc)->op);
  ts_vec_destroy(&(*pc)->scratch);
  ts_free(pc);
  return 0;
}

int ts_pc_create_shell(const ts_pc_ops *ops, ts_backend backend, int64_t n, ts_precision p,
                       void *data, ts_pc *pc) {
  ts_pc o;
  int ierr = ts_calloc(1, sizeof *o, "preconditioner", &o);
  if (ierr) {
    struct ts_pc_s unmade = {.ops = ops, .data = data};
    if (ops->destroy) ops->destroy(&unmade);
    return ierr;
  }
  o->ops = ops;
  o->data = data;
  ierr = ts_operator_create_shell(backend, &pc_operator_ops, n, p, o, &o->op);
  if (!ierr && ops->setup) ierr = ops->setup(o);
  if (ierr) {
    ts_pc_destroy(&o);
    return ts_error_trace(ierr, __FILE__, __LINE__, ops->name);
  }
  *pc = o;
  return 0;
}

int ts_pc_check(ts_pc pc, const char *caller, const char *what) {
  TS_CHECK_ARG(pc, "%s: argument '%s' is NULL, a preconditioner is required", caller, what);
  return 0;
}

/* A square, as every preconditioner's operator (a solver takes square ones only) */
int ts_pc_check_square(ts_operator A, const char *caller) {
  TS_CHECK_ARG(A->n == A->cols, "%s: operator '%s' has %lld rows and %lld columns, a "
               "preconditioner needs a square one", caller, A->ops->name, (long long)A->n,
               (long long)A->cols);
  return 0;
}

int ts_pc_setup(ts_pc pc) {
  TS_CALL(ts_pc_check(pc, __func__, "pc"));
  if (pc->ops->setup) TS_CALL(pc->ops->setup(pc));
  return 0;
}

int ts_pc_apply(ts_pc pc, ts_vec r, ts_vec z) {
  TS_CALL(ts_pc_check(pc, __func__, "pc"));
  TS_CALL(ts_operator_apply(pc->op, r, z));
  return 0;
}

ts_operator ts_pc_operator(ts_pc pc) {
  TS_GETTER_NOT_NULL(pc, NULL);
  return pc->op;
}

const char *ts_pc_name(ts_pc pc) {
  TS_GETTER_NOT_NULL(pc, "");
  return pc->ops->name;
}

int ts_solver_set_pc(ts_solver solver, ts_pc pc) {
  TS_CHECK_NOT_NULL(solver);
  TS_CALL(ts_solver_set_preconditioner(solver, pc ? pc->op : NULL));
  return 0;
}
