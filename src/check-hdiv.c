/* check-hdiv.c -- `tessera check`'s checks of paper 003's Darcy and grad-div problems,
 * RT_k x DGQ_k in the interpolation-histopolation bases (doc/hdiv.md; check.h): the
 * assembled saddle-point operator [M_beta D^T; D -W_alpha^-1] (apply, apply_add; double
 * only: its matrices are assembled in double); the solve (MINRES or GMRES with the block
 * preconditioner and the AMG on S~) compares velocity and x_p = W q apart (x_p with its mean
 * removed when the pressure is defined up to a constant).  For equal iteration counts both
 * backends must run the same AMG: name it in the tree (<preconditioner type="amg"> on S~),
 * since the default takes BoomerAMG on omp and ours on a GPU. */
#include <stdio.h>
#include "check.h"

static void print_hdiv(const check_context *c) {
  printf("%s RT%d x DGQ%d (interpolation-histopolation), level %d, %lld DoFs (velocity %lld + "
         "pressure %lld)\n", ts_problem_equation(c->problem), c->set.degree, c->set.degree,
         c->set.level, (long long)c->n, (long long)c->n_velocity,
         (long long)(c->n - c->n_velocity));
}

static const check_entry checks[] = {
    {"hdiv apply", TS_DOUBLE, check_op_apply, NULL, NULL},
    {"hdiv apply_add", TS_DOUBLE, check_op_apply_add, NULL, NULL},
};

/* the same checks for both equations */
#define HDIV_CHECKS(NAME)                                                                 \
  .equation = NAME, .checks = checks, .n_checks = sizeof checks / sizeof checks[0],       \
  .solution_parts = {"solve velocity", "solve pressure"}, .print_discretization = print_hdiv

const check_equation check_darcy = {HDIV_CHECKS("darcy")};
const check_equation check_grad_div = {HDIV_CHECKS("grad-div")};
