/* methods.c -- the table of Krylov methods: the one place that names them.  The API
 * (ts_solver_create, ts_solver_type_from_name), the problem reader (<solver type>) and the
 * command's help all read it, so a new method is a new file and a new row here. */
#include <pthread.h>
#include <string.h>
#include "solver-impl.h"

static const ts_krylov_method methods[] = {
    {TS_SOLVER_CG, "cg", "CG",
     "conjugate gradients: symmetric positive definite A and P; ||b - A x|| <= rtol ||b||", 0,
     ts_cg_solve},
    {TS_SOLVER_GMRES, "gmres", "GMRES",
     "restarted GMRES(m): any A; P from the right (flexible update, true residual) or the left "
     "(preconditioned residual)", 1, ts_gmres_solve},
    {TS_SOLVER_FGMRES, "fgmres", "FGMRES",
     "flexible GMRES(m): P from the right may change from step to step (a V-cycle in single "
     "precision, an inner Krylov solve); true residual", 0, ts_gmres_solve},
    {TS_SOLVER_MINRES, "minres", "MINRES",
     "MINRES: symmetric (indefinite) A, symmetric positive definite P; converged when "
     "||r||_P <= rtol ||r0||_P", 0, ts_minres_solve},
};
enum { n_methods = sizeof methods / sizeof methods[0] };

const ts_krylov_method *ts_krylov_method_of(ts_solver_type type) {
  for (int i = 0; i < n_methods; ++i)
    if (methods[i].type == type) return &methods[i];
  return NULL;
}

static char type_names[128]; /* "cg, gmres, ...", made once */
static pthread_once_t type_names_once = PTHREAD_ONCE_INIT;
static void make_type_names(void) {
  for (int i = 0; i < n_methods; ++i) {
    if (i) strcat(type_names, ", ");
    strcat(type_names, methods[i].name);
  }
}

const char *ts_solver_type_names(void) {
  pthread_once(&type_names_once, make_type_names);
  return type_names;
}

int ts_solver_type_from_name(const char *name, ts_solver_type *type) {
  TS_CHECK_NOT_NULL(type);
  for (int i = 0; name && i < n_methods; ++i)
    if (!strcmp(name, methods[i].name)) {
      *type = methods[i].type;
      return 0;
    }
  return TS_ERROR(TS_ERR_ARG, "solver type '%s' unknown, allowed: %s", name ? name : "(null)",
                  ts_solver_type_names());
}

const char *ts_solver_type_name(ts_solver_type type) {
  const ts_krylov_method *m = ts_krylov_method_of(type);
  return m ? m->name : "";
}

const char *ts_solver_label(ts_solver_type type) {
  const ts_krylov_method *m = ts_krylov_method_of(type);
  return m ? m->label : "?";
}
