/* stokes-read.c -- the <stokes> element of a problem file, read for both Stokes equations
 * (stokes.c: RT_k x DGQ_k; stokes-taylor-hood.c: Q_k x Q_{k-1}): the manufactured solution
 * and the penalty, on the box; and the solvers that fit the saddle-point system. */
#include <stdio.h>
#include <string.h>
#include "equation.h"

/* <stokes solution>: RT imposes u = 0 on the boundary, so its solution must vanish there;
 * Taylor-Hood measures the H1 error, so its solution must have a velocity gradient. */
static int check_stokes_solution(ts_reader *r, const struct ts_problem_s *p,
                                 ts_xml_element stokes) {
  char loc[1200];
  const ts_stokes_solution *s = NULL;
  if (ts_stokes_solution_by_name(p->solution, &s)) return 0; /* the schema names them */
  const int fits = p->taylor_hood ? s->velocity_gradient != NULL : s->zero_boundary_velocity;
  if (fits) return 0;
  ts_reader_where(r, stokes, "solution", loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <stokes solution=\"%s\"> with <element family=\"%s\">: %s; "
                  "allowed: solution=\"%s\"", loc, p->solution, p->taylor_hood ? "taylor-hood" : "RT",
                  p->taylor_hood ? "its velocity gradient is not known (the H1 error needs it)"
                                 : "its velocity is not zero on the boundary, where RT_k imposes "
                                   "u = 0",
                  p->taylor_hood ? "paper004" : "paper000");
}

/* <stokes solution penalty> on the box (p->taylor_hood says which family) */
static int read_stokes(ts_reader *r, struct ts_problem_s *p, ts_xml_element stokes) {
  char loc[1200];
  if (p->taylor_hood && ts_reader_has(stokes, "penalty")) {
    ts_reader_where(r, stokes, "penalty", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <stokes penalty=...> with <element family=\"taylor-hood\">: "
                    "the interior penalty of the RT_k discretization; Taylor-Hood (continuous "
                    "velocity) has none: leave it out", loc);
  }
  p->penalty = ts_reader_double(stokes, "penalty", TS_STOKES_DEFAULT_PENALTY);
  TS_CALL(ts_reader_copy(r, stokes, "solution", p->solution, sizeof p->solution));
  TS_CALL(check_stokes_solution(r, p, stokes));
  if (p->map == TS_MAP_BOX) return 0;
  ts_xml_element mesh = ts_reader_element(r, "mesh");
  ts_reader_where(r, mesh, "map", loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <mesh map=\"%s\"> with <stokes>: Stokes is solved on the "
                  "box; allowed: map=\"box\"", loc, ts_reader_map_name(p->map));
}

int ts_stokes_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element stokes) {
  p->stokes = 1;
  return read_stokes(r, p, stokes);
}

int ts_taylor_hood_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element stokes) {
  p->stokes = 1;
  p->taylor_hood = 1;
  return read_stokes(r, p, stokes);
}

/* Stokes is solved by GMRES or FGMRES, preconditioned by the V-cycle (default), a block
 * kind or nothing, or by MINRES on the symmetric form with the block-diagonal kind: the
 * system is indefinite and nonsymmetric (doc/stokes.md section 3), and has no diagonal. */
int ts_stokes_check_solver(ts_reader *r, struct ts_problem_s *p) {
  char loc[1200];
  ts_xml_element solver = ts_reader_element(r, "solver");
  const int gmres = p->solver == TS_SOLVER_GMRES || p->solver == TS_SOLVER_FGMRES;
  const int minres = p->solver == TS_SOLVER_MINRES && !strcmp(p->preconditioner, "block-diagonal");
  if ((!gmres && !minres) || p->fmg) {
    ts_reader_where(r, solver, "type", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver type=\"%s\"> with <stokes>: allowed type=\"gmres\" "
                    "or \"fgmres\" (the Stokes system [A B^T; -B 0] is indefinite and not "
                    "symmetric, doc/stokes.md section 3), or \"minres\" with <preconditioner "
                    "type=\"block-diagonal\"> (on the symmetric form [A B^T; B 0])", loc,
                    p->fmg ? "fmg" : ts_solver_type_name(p->solver));
  }
  if (ts_reader_has(solver, "preconditioner") && strcmp(p->preconditioner, "mg") &&
      strcmp(p->preconditioner, "none")) {
    ts_reader_where(r, solver, "preconditioner", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver preconditioner=\"%s\"> with <stokes>: allowed \"mg\" "
                    "or \"none\"", loc, p->preconditioner);
  }
  return 0;
}
