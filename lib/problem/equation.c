/* equation.c -- the registry of the equations a problem file can name (equation.h). */
#include <string.h>
#include "equation.h"

static const ts_equation *const equations[] = {&ts_equation_poisson, &ts_equation_stokes};

/* The problem's element, <poisson> or <stokes>, names its equation (the reader has checked
 * that there is exactly one); <poisson f=...> is your own problem's builder, <stokes> with
 * <element family="taylor-hood"> Taylor-Hood's. */
const ts_equation *ts_equation_of(ts_problem p) {
  if (p->own) return &ts_equation_poisson_own;
  if (p->taylor_hood) return &ts_equation_taylor_hood;
  const char *name = p->stokes ? "stokes" : "poisson";
  for (size_t i = 0; i < sizeof equations / sizeof equations[0]; ++i)
    if (!strcmp(equations[i]->name, name)) return equations[i];
  return NULL;
}
