/* system.c -- ts_system: one level of a problem set up by its equation's builder
 * (equation.h) for the tools that work on its objects rather than solve it. */
#include <stdlib.h>
#include "equation.h"

int ts_problem_level_dofs(ts_problem problem, int level, int64_t *dofs) {
  TS_CHECK_ARG(problem && dofs, "ts_problem_level_dofs: NULL argument");
  TS_CHECK_ARG(level >= 0 && level <= problem->levels,
               "ts_problem_level_dofs: level %d; allowed 0..%d (the problem's mesh levels)",
               level, problem->levels);
  int64_t cells[3];
  for (int d = 0; d < problem->dim; ++d) cells[d] = (int64_t)problem->coarse[d] << level;
  *dofs = ts_equation_of(problem)->dofs(problem->dim, problem->degree, cells);
  return 0;
}

int ts_system_create(ts_problem problem, ts_backend backend, int level, ts_system *system) {
  TS_CHECK_ARG(problem && backend && system, "ts_system_create: NULL argument");
  TS_CHECK_ARG(level >= 0 && level <= problem->levels,
               "ts_system_create: level %d; allowed 0..%d (the problem's mesh levels)", level,
               problem->levels);
  struct ts_system_s *s = NULL;
  double phase_seconds[TS_SETUP_PHASES] = {0};
  *system = NULL;
  TS_CALL(ts_calloc(1, sizeof *s, "system", &s));
  int ierr = ts_study_create(problem, backend, &s->study);
  if (!ierr) ierr = ts_level_setup(&s->study, level, &s->objects, phase_seconds);
  if (ierr) {
    ts_system_destroy(&s);
    return ts_error_trace(ierr, __FILE__, __LINE__, "system setup");
  }
  *system = s;
  return 0;
}

int ts_system_destroy(ts_system *system) {
  if (!system || !*system) return 0;
  ts_level_free(&(*system)->objects);
  ts_study_free(&(*system)->study);
  ts_free(system);
  return 0;
}

int ts_system_fields(ts_system system) {
  TS_GETTER_NOT_NULL(system, 0);
  return system->study.eq->fields;
}

ts_dofs ts_system_dofs(ts_system system, int field) {
  TS_GETTER_NOT_NULL(system, NULL);
  TS_GETTER_CHECK(field >= 0 && field < system->study.eq->fields, NULL,
                  "ts_system_dofs: field %d; allowed 0..%d", field, system->study.eq->fields - 1);
  return system->objects.dofs[field];
}

ts_operator ts_system_operator(ts_system system) {
  TS_GETTER_NOT_NULL(system, NULL);
  return system->objects.A;
}

ts_mg ts_system_mg(ts_system system) {
  TS_GETTER_NOT_NULL(system, NULL);
  return system->objects.mg;
}

ts_vec ts_system_rhs(ts_system system) {
  TS_GETTER_NOT_NULL(system, NULL);
  return system->objects.b;
}

ts_solver ts_system_solver(ts_system system) {
  TS_GETTER_NOT_NULL(system, NULL);
  return system->objects.solver;
}

int ts_system_operator_create(ts_system system, ts_backend backend, ts_precision precision,
                              ts_operator *op) {
  TS_CHECK_ARG(system && backend && op, "ts_system_operator_create: NULL argument");
  const ts_study *s = &system->study;
  return s->eq->operator_create(s, backend, system->objects.dofs, precision, op);
}

int ts_system_mg_create(ts_system system, ts_backend backend, const ts_mg_options *options,
                        ts_mg *mg) {
  TS_CHECK_ARG(system && backend && options && mg, "ts_system_mg_create: NULL argument");
  const ts_study *s = &system->study;
  return s->eq->mg_create(s, backend, system->objects.level, options, mg);
}
