/* equation.c -- the registry of the equations a problem file can name (equation.h), in the
 * order the reader asks them: the first of an element and family that selects the file's
 * element is its equation (<poisson f=...> your own problem's builder before the built-in
 * solutions'; <stokes> with <element family="RT"> Stokes', "taylor-hood" Taylor-Hood's). */
#include "equation.h"

const ts_equation *const ts_equations[] = {&ts_equation_poisson_own, &ts_equation_poisson,
                                           &ts_equation_stokes, &ts_equation_taylor_hood,
                                           &ts_equation_darcy, &ts_equation_grad_div};
const size_t ts_equations_count = sizeof ts_equations / sizeof ts_equations[0];

const ts_equation *ts_equation_of(ts_problem p) { return p->equation; }
