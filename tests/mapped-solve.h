/* mapped-solve.h -- one solve of -div(kappa grad u) + c u = f on the cells of a mapped level
 * (issue 13), shared by t-mapped and t-mapped-convergence: the operator on mapped cells, the
 * right side with the Dirichlet data lifted, CG + Jacobi to a relative residual, the
 * solution's L2 and H1-seminorm errors. */
#ifndef TESSERA_TESTS_MAPPED_SOLVE_H
#define TESSERA_TESTS_MAPPED_SOLVE_H

#include "tessera.h"

typedef struct mapped_problem {
  const ts_coefficients *coefficients; /* NULL: kappa = 1, c = 0 */
  ts_point_fn f, g;                    /* right side and Dirichlet data (NULL: zero) */
  ts_point_fn u, grad_u;               /* the exact solution and its gradient */
  void *ctx;                           /* of the four callbacks */
  double rtol;                         /* CG's relative residual */
  unsigned neumann_faces;              /* TS_FACE_* bits (0: Dirichlet everywhere) */
  ts_point_fn h;                       /* the Neumann flux there (NULL: zero) */
  int multigrid;                       /* 1: CG + V-cycle (ts_mg_create_mapped), else Jacobi */
} mapped_problem;

typedef struct mapped_result {
  double l2, h1;
  int iterations;
  double defect;                       /* ts_remove_null_space's (0 unless pure Neumann) */
} mapped_result;

/** The smooth test solution of t-mapped-convergence and t-mapped-mg, non-zero on the
 *  boundary: u = exp(x_0) sin(pi x_1 / 2) (3D: times cos(pi x_2 / 3)), and Laplace(u) =
 *  mapped_u_laplace_factor(dim) u; mapped_u and mapped_u_gradient as ts_point_fn. */
double mapped_u_value(int dim, const double *x);
double mapped_u_laplace_factor(int dim);
int mapped_u(void *ctx, int dim, int64_t count, const double *x, double *v);
int mapped_u_gradient(void *ctx, int dim, int64_t count, const double *x, double *g);

/** Solve on dofs (Q_k of a mapped mesh) on backend be, with p's Neumann faces set on dofs
 *  (a pure Neumann problem: b made compatible, the solution shifted to u's mean); 0 or the
 *  failure's code (its message printed as a TAP diagnostic). */
int mapped_solve(ts_backend be, ts_dofs dofs, const mapped_problem *p, mapped_result *r);

#endif
