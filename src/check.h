/* check.h -- `tessera check` (cli-check.c): the checks of one equation are a table in its
 * own file (check-poisson.c, check-stokes.c, check-taylor-hood.c), found by the problem's
 * equation (ts_problem_equation) in the registry (check-registry.c); the driver and the
 * checks every equation shares (the system operator, a smoother step, the transfers, the
 * V-cycle) are cli-check.c's. */
#ifndef TESSERA_CHECK_H
#define TESSERA_CHECK_H

#include <stddef.h>
#include "tessera.h"

/* What a check needs: the problem's finest level as `tessera run` sets it up (its
 * equation's builder: ts_system, on the reference backend), whose DoF handlers the checks'
 * operators, smoothers and hierarchies are made on. */
struct check_equation;
typedef struct check_context {
  ts_problem problem;
  const struct check_equation *eq; /* the checks of its equation */
  ts_problem_settings set;
  ts_system system;
  ts_dofs dofs;      /* Q_k, or the velocity (RT_k, Taylor-Hood's Q_k of one component) */
  ts_dofs pressure;  /* the second field of a system of two (NULL for one field) */
  int64_t n;         /* DoFs of the finest level (two fields: velocity + pressure) */
  int64_t n_velocity;/* two fields: the velocity DoFs, the first n_velocity entries */
  int64_t n_coarse;  /* DoFs of the level below the finest (0: no transfer checks) */
  int transfer_coarse_level; /* coarsest level of the hierarchy the transfer checks build */
  uint64_t seed;
} check_context;

/* A check computes its result on backend b in precision p into out (at most n doubles) and
 * says how many entries it wrote in *count. */
typedef int (*check_fn)(const check_context *c, ts_backend b, ts_precision p, double *out,
                        int64_t *count);
/* What a check needs besides the finest level: NULL if c's problem has it, else why not
 * (into buf). */
typedef const char *(*check_needs)(const check_context *c, char *buf, size_t len);

typedef struct check_entry {
  const char *name;
  ts_precision precision;
  check_fn run;
  check_needs needs;                           /* NULL: the finest level is enough */
  int (*applies)(const check_context *c);      /* NULL: to every problem of the equation */
} check_entry;

/* One equation's checks (check-NAME.c). */
typedef struct check_equation {
  const char *equation;            /* its ts_problem_equation name */
  const check_entry *checks;
  size_t n_checks;
  /* the names of the solution's parts compared apart, one per field ("solve velocity",
   * "solve pressure": the pressure is of another magnitude than the velocity) */
  const char *solution_parts[2];
  /* 1: the transfer checks' hierarchy starts at the problem's coarse level (Stokes: its
   * exact solve is a dense LU, affordable there and not necessarily on level L-1); 0: at
   * the level below the finest */
  int transfers_from_coarse_level;
  /* 1: a hierarchy from another coarse level than the problem's has no degree levels below
   * it (Q_k's p-multigrid) */
  int degree_levels;
  /* the header's discretization: "Q2, level 3, 289 DoFs\n" */
  void (*print_discretization)(const check_context *c);
} check_equation;

/* check-registry.c: the checks of the problem's equation, NULL if it has none */
const check_equation *check_equation_of(ts_problem problem);
extern const check_equation check_poisson, check_poisson_own, check_stokes, check_taylor_hood;
/* check-hdiv.c: paper 003's Darcy and grad-div problems */
extern const check_equation check_darcy, check_grad_div;

/* cli-check.c: the checks every equation shares */
/* the system operator: apply, apply_add, diagonal, apply_unconstrained */
int check_op_apply(const check_context *c, ts_backend b, ts_precision p, double *out,
                   int64_t *count);
int check_op_apply_add(const check_context *c, ts_backend b, ts_precision p, double *out,
                       int64_t *count);
int check_op_diagonal(const check_context *c, ts_backend b, ts_precision p, double *out,
                      int64_t *count);
int check_op_unconstrained(const check_context *c, ts_backend b, ts_precision p, double *out,
                           int64_t *count);
/* A smoother on the system operator A (*P: its preconditioner, destroyed after it). */
typedef int (*check_smoother_fn)(const check_context *c, ts_operator A, ts_operator *P,
                                 ts_smoother *s);
/* one step x <- S(b, x) of make's smoother on the finest level, b = random(seed),
 * x = random(seed + 1) */
int check_smoother(const check_context *c, ts_backend b, ts_precision p, double *out,
                   int64_t *count, check_smoother_fn make);
/* the transfers between the finest level and the one below it */
int check_prolongate(const check_context *c, ts_backend b, ts_precision p, double *out,
                     int64_t *count);
int check_restrict(const check_context *c, ts_backend b, ts_precision p, double *out,
                   int64_t *count);
/* one V-cycle of the system's hierarchy on the whole system, or (vcycle_of) on vectors of n
 * entries (Taylor-Hood's velocity Laplacian: one component) */
int check_vcycle(const check_context *c, ts_backend b, ts_precision p, double *out,
                 int64_t *count);
int check_vcycle_of(const check_context *c, ts_backend b, ts_precision p, int64_t n,
                    double *out, int64_t *count);
/* needs: a level below the finest in the transfers' hierarchy; a finest level above the
 * problem's coarse level */
const char *check_needs_coarser_level(const check_context *c, char *buf, size_t len);
const char *check_needs_multigrid(const check_context *c, char *buf, size_t len);

#endif
