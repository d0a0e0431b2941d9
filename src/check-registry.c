/* check-registry.c -- the checks of each equation `tessera check` knows (check.h), by the
 * name ts_problem_equation gives. */
#include <string.h>
#include "check.h"

static const check_equation *const equations[] = {&check_poisson, &check_poisson_own,
                                                  &check_stokes, &check_taylor_hood,
                                                  &check_darcy, &check_grad_div};

const check_equation *check_equation_of(ts_problem problem) {
  const char *name = ts_problem_equation(problem);
  for (size_t i = 0; i < sizeof equations / sizeof equations[0]; ++i)
    if (!strcmp(equations[i]->equation, name)) return equations[i];
  return NULL;
}
