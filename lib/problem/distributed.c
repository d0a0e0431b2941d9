/* distributed.c -- what a problem file may ask for when it is solved over several processes
 * (ts_problem_solve_parallel, lib/parallel/problem.c; doc/parallel.md, "Running a problem
 * file under mpirun"): the parts the MPI domain decomposition has.  Anything else is refused
 * before any work, naming the element, attribute and value, so that a distributed run
 * solves exactly the problem a one-process run of the same file solves. */
#include <stdio.h>
#include <string.h>
#include "equation.h"

/* the file the problem was read from, for messages (its name if read from memory) */
static const char *origin(ts_problem p) { return p->source[0] ? p->source : p->name; }

/* Your own data (<poisson f=...>) is distributed on a mapped mesh or the box (the box as
 * one), with g, u, grad-u, kappa, c, their files and sample="points"; Neumann faces are not. */
static int check_own_data(ts_problem p) {
  if (!p->neumann_faces) return 0;
  char faces[64] = "";
  for (int face = 0; face < 2 * p->dim; ++face)
    if (p->neumann_faces >> face & 1)
      snprintf(faces + strlen(faces), sizeof faces - strlen(faces), "%s%s", faces[0] ? " " : "",
               ts_face_names[face]);
  return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <poisson neumann=\"%s\">: Neumann faces are not "
                  "distributed yet; under mpirun your own data has Dirichlet data g on the whole "
                  "boundary (no neumann, no h)", origin(p), faces);
}

/* Stokes RT (paper 000): GMRES or FGMRES with the V-cycle or none, in double precision (the
 * reader allows MINRES with the block-diagonal preconditioner only, which is not
 * distributed). */
static int check_stokes(ts_problem p) {
  if (p->precision != TS_DOUBLE)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <solver precision=\"single\">: only double precision "
                    "is distributed yet; allowed under mpirun: precision=\"double\"", origin(p));
  if (p->solver == TS_SOLVER_MINRES)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <solver type=\"minres\" preconditioner=\"%s\"> with "
                    "<stokes>: the block preconditioners are not distributed yet; allowed under "
                    "mpirun: type=\"gmres\" or \"fgmres\" with preconditioner=\"mg\" or \"none\"",
                    origin(p), p->preconditioner);
  if (p->mg.precision != TS_DOUBLE)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <multigrid precision=\"mixed\">: mixed precision is "
                    "not distributed yet; allowed under mpirun: precision=\"double\"", origin(p));
  return 0;
}

/* The equation: Poisson with a built-in solution on a box, your own data, or Stokes RT. */
static int check_equation(ts_problem p) {
  const ts_equation *eq = p->equation;
  if (eq == &ts_equation_poisson) return 0;
  if (eq == &ts_equation_poisson_own) return check_own_data(p);
  if (eq == &ts_equation_stokes) return check_stokes(p);
  return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <%s> (%s, <element family=\"%s\">) is not distributed "
                  "yet; under mpirun: <poisson> with Q_k, <stokes> with RT_k", origin(p),
                  eq->element, eq->name, eq->family);
}

/* The solver: a Krylov method or full multigrid, in double precision. */
static int check_solver(ts_problem p) {
  if (p->precision != TS_DOUBLE)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <solver precision=\"single\">: only double precision "
                    "is distributed yet; allowed under mpirun: precision=\"double\"", origin(p));
  if (p->pc_nodes > 1)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <preconditioner type=\"%s\"> with inner "
                    "preconditioners: trees of preconditioners are not distributed yet; allowed "
                    "under mpirun: none, jacobi, chebyshev, mg", origin(p), p->pc_tree[0].kind);
  static const char *const distributed[] = {"jacobi", "chebyshev", "mg"};
  for (int i = 0; i < p->pc_nodes; ++i) {
    int found = 0;
    for (int k = 0; k < 3; ++k) found |= !strcmp(p->pc_tree[i].kind, distributed[k]);
    if (!found)
      return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <solver preconditioner=\"%s\"> is not distributed "
                      "yet; allowed under mpirun: none, jacobi, chebyshev, mg", origin(p),
                      p->pc_tree[i].kind);
  }
  return 0;
}

/* The multigrid: the distributed V-cycle has the mesh levels and the gathered degree levels
 * below the coarse one, in double or mixed precision (not the Jacobi V-cycle, which is double
 * on one process too), with the vertex patches (the box's Laplacian: a built-in solution), Chebyshev (or,
 * from <preconditioner type="mg" smoother="jacobi">, weighted Jacobi) smoothing and the LU of
 * the whole coarse level. */
static int check_multigrid(ts_problem p) {
  const ts_mg_options *o = &p->mg;
  const int jacobi = !p->fmg && p->pc_tree[0].jacobi; /* the smoother of <multigrid> unused */
  if (!p->use_mg) return 0;
  if (!jacobi && o->smoother == TS_MG_SMOOTHER_VERTEX_PATCH && p->equation->mapped)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <multigrid smoother=\"vertex-patch\"> (also the "
                    "default) on your own data: the additive patches of mapped cells are not "
                    "distributed yet (the multiplicative ones of a box with a built-in solution "
                    "are); under mpirun use <multigrid smoother=\"chebyshev\"> (tessera run --set "
                    "multigrid/smoother=chebyshev) or <preconditioner type=\"mg\" "
                    "smoother=\"jacobi\">", origin(p));
  if (!jacobi && o->smoother != TS_MG_SMOOTHER_CHEBYSHEV &&
      o->smoother != TS_MG_SMOOTHER_VERTEX_PATCH)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <multigrid smoother=\"%s\"> is not distributed "
                    "yet; under mpirun use <multigrid smoother=\"vertex-patch\"> or "
                    "\"chebyshev\", or <preconditioner type=\"mg\" smoother=\"jacobi\">",
                    origin(p), ts_mg_smoother_word(o->smoother));
  if (jacobi && o->precision != TS_DOUBLE)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <multigrid precision=\"mixed\"> with <preconditioner "
                    "type=\"mg\" smoother=\"jacobi\">: the Jacobi V-cycle is double precision only "
                    "(on one process too); use <multigrid precision=\"double\"> or the smoother of "
                    "<multigrid>", origin(p));
  if (o->coarse_solver == TS_MG_COARSE_CG_JACOBI || o->coarse_solver == TS_MG_COARSE_CG_AMG)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: <multigrid coarse-solver=\"%s\"> is not distributed "
                    "yet (the distributed coarse solve is the LU of the whole coarse level); "
                    "allowed under mpirun: \"auto\", \"dense\"", origin(p),
                    ts_mg_coarse_solver_word(o->coarse_solver));
  return 0;
}

int ts_problem_parallel_check(ts_problem p) {
  TS_CHECK_NOT_NULL(p);
  TS_CALL(check_equation(p));
  if (p->equation == &ts_equation_stokes) return 0; /* its solver and multigrid: above */
  TS_CALL(check_solver(p));
  TS_CALL(check_multigrid(p));
  return 0;
}

int ts_problem_dim(ts_problem p) {
  TS_GETTER_NOT_NULL(p, -1);
  return p->dim;
}
