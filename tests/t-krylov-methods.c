/* t-krylov-methods.c -- the table of Krylov methods (names, labels, sides) and the methods
 * that t-krylov.c does not cover: FGMRES (right preconditioning only, the same iterates as
 * right-preconditioned GMRES) and MINRES (symmetric positive definite and symmetric
 * indefinite operators, an SPD preconditioner, the P-norm of the residual it reports, and
 * the failures it must name: indefinite preconditioner, iteration limit, a tolerance below
 * the rounding floor). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera-impl.h"

/* The symmetric indefinite operator y = A x - sigma D x (A the Laplacian, D its diagonal,
 * sigma above the smallest eigenvalues of D^-1 A): a stand-in for a saddle-point system
 * that CG cannot solve; D^-1 (Jacobi) stays a positive definite preconditioner for it. */
typedef struct shifted {
  ts_operator A;
  ts_vec d, work;
  double sigma;
} shifted;
static int shifted_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  const shifted *s = op->data;
  if (add) return TS_ERROR(TS_ERR_ARG, "shifted: add not supported");
  TS_CALL(ts_operator_apply(s->A, x, y));
  TS_CALL(ts_vec_pointwise_mult(s->d, x, s->work));
  return ts_vec_axpby(-s->sigma, s->work, 1.0, y);
}
static const ts_operator_ops shifted_ops = {.name = "shifted", .apply = shifted_apply};

static int negate_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  (void)op;
  return ts_vec_axpby(-1.0, x, add ? 1.0 : 0.0, y);
}
static const ts_operator_ops negate_ops = {.name = "negate", .apply = negate_apply};

/* ||b - A x|| / ||b|| and the P-norm ratio sqrt(r.Pr / b.Pb) (x0 = 0: r0 = b) */
static void residuals(ts_operator A, ts_operator P, ts_vec b, ts_vec x, ts_vec t, ts_vec u,
                      double *plain, double *pnorm) {
  double r, bn, rpr, bpb;
  ts_operator_apply(A, x, t);
  ts_vec_axpby(1.0, b, -1.0, t);
  ts_vec_norm(t, &r);
  ts_vec_norm(b, &bn);
  ts_operator_apply(P, t, u);
  ts_vec_dot(t, u, &rpr);
  ts_operator_apply(P, b, u);
  ts_vec_dot(b, u, &bpb);
  *plain = r / bn;
  *pnorm = sqrt(rpr / bpb);
}

static double distance(ts_vec x, ts_vec y, ts_vec t) {
  double d, n;
  ts_vec_copy(x, t);
  ts_vec_axpby(-1.0, y, 1.0, t);
  ts_vec_norm(t, &d);
  ts_vec_norm(x, &n);
  return d / n;
}

static ts_solver make_solver(ts_solver_type type, ts_operator A, ts_operator P, double rtol) {
  ts_solver s = NULL;
  ts_solver_create(type, &s);
  ts_solver_set_operator(s, A);
  ts_solver_set_preconditioner(s, P);
  ts_solver_set_tolerances(s, rtol, 2000);
  ts_solver_set_restart(s, 30);
  return s;
}

static void names(void) {
  ts_solver_type type;
  int round_trip = 1;
  const ts_solver_type all[] = {TS_SOLVER_CG, TS_SOLVER_GMRES, TS_SOLVER_FGMRES, TS_SOLVER_MINRES};
  for (int i = 0; i < 4; ++i)
    round_trip &= ts_solver_type_from_name(ts_solver_type_name(all[i]), &type) == 0 && type == all[i];
  ok(round_trip && !strcmp(ts_solver_type_names(), "cg, gmres, fgmres, minres") &&
         !strcmp(ts_solver_type_name((ts_solver_type)9), ""),
     "type names round trip: %s", ts_solver_type_names());
  ts_solver s = NULL;
  const int refused = ts_solver_create((ts_solver_type)9, &s) == TS_ERR_ARG && !s &&
                      strstr(ts_error_message(), "cg, gmres, fgmres, minres");
  ok(refused, "unknown type refused: %s", ts_error_message());
  int sides = 1;
  for (int i = 0; i < 4; ++i) {
    ts_solver_create(all[i], &s);
    const int ierr = ts_solver_set_side(s, TS_SIDE_LEFT);
    sides &= (all[i] == TS_SOLVER_FGMRES || all[i] == TS_SOLVER_MINRES)
                 ? ierr == TS_ERR_ARG && strstr(ts_error_message(), "allowed: right")
                 : ierr == 0;
    ts_solver_destroy(&s);
  }
  ok(sides, "FGMRES and MINRES refuse the left side, CG and GMRES take it: %s",
     ts_error_message());
}

int main(void) {
  ts_backend be;
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs dofs;
  ts_operator A, P, N, S;
  ts_vec b, x, y, t, u;
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int coarse[2] = {2, 3};
  plan(12);
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  names();
  ts_mesh_create_box(2, lower, upper, coarse, 3, &mesh);
  ts_fe_create_q(2, 3, &fe);
  ts_dofs_create(mesh, fe, 3, &dofs);
  const int64_t n = ts_dofs_count(dofs);
  ts_operator_create_laplace(be, dofs, TS_DOUBLE, &A);
  ts_operator_create_jacobi(A, &P);
  ts_operator_create_shell(be, &negate_ops, n, TS_DOUBLE, NULL, &N);
  ts_vec_create(be, n, TS_DOUBLE, &b);
  ts_vec_create(be, n, TS_DOUBLE, &x);
  ts_vec_create(be, n, TS_DOUBLE, &y);
  ts_vec_create(be, n, TS_DOUBLE, &t);
  ts_vec_create(be, n, TS_DOUBLE, &u);
  ts_vec_set_random(b, 5);

  /* FGMRES = right-preconditioned GMRES: the same iterations and iterates */
  ts_solver gm = make_solver(TS_SOLVER_GMRES, A, P, 1e-10);
  ts_solver fg = make_solver(TS_SOLVER_FGMRES, A, P, 1e-10);
  ts_vec_set(x, 0.0);
  ts_vec_set(y, 0.0);
  int e1 = ts_solver_solve(gm, b, x), e2 = ts_solver_solve(fg, b, y);
  /* The same arithmetic: identical on omp.  A GPU Laplacian sums face contributions with
   * atomics, so its rounding differs from one application to the next and the two runs
   * drift apart: then both still stop within one iteration of each other, and since both
   * residuals are below 1e-10 ||b||, the iterates differ by at most about cond(D^{-1} A)
   * 2e-10 relative, and cond(D^{-1} A) ~ (k^2 / h)^2 < 5e4 here (Q3 on 16 x 24 cells). */
  const int exact = strcmp(tap_backend(), "omp") == 0;
  const int its_gm = ts_solver_iterations(gm), its_fg = ts_solver_iterations(fg);
  const double apart = distance(x, y, t);
  ok(!e1 && !e2 && abs(its_gm - its_fg) <= (exact ? 0 : 1) && apart <= (exact ? 0.0 : 1e-5),
     "FGMRES(30)+Jacobi = GMRES(30)+Jacobi from the right: %d and %d iterations, iterates "
     "%.1e apart (%s)", its_gm, its_fg, apart, exact ? "identical on omp" : "<= 1e-5");

  /* MINRES on the SPD Laplacian: the CG solution, P-norm residual below rtol, monotone */
  ts_solver cg = make_solver(TS_SOLVER_CG, A, P, 1e-11);
  ts_solver mr = make_solver(TS_SOLVER_MINRES, A, P, 1e-11);
  ts_vec_set(x, 0.0);
  ts_vec_set(y, 0.0);
  e1 = ts_solver_solve(cg, b, x);
  e2 = ts_solver_solve(mr, b, y);
  double plain, pnorm;
  residuals(A, P, b, y, t, u, &plain, &pnorm);
  ok(!e1 && !e2 && pnorm <= 1e-11 && distance(x, y, t) < 1e-8,
     "MINRES+Jacobi on the Laplacian: %d iterations (CG %d), ||r||_P/||b||_P = %.2e, "
     "||r||/||b|| = %.2e, solution = CG's to %.1e",
     ts_solver_iterations(mr), ts_solver_iterations(cg), pnorm, plain, distance(x, y, t));
  int count;
  const double *h = ts_solver_history(mr, &count);
  int monotone = count == ts_solver_iterations(mr) + 1 && h[0] == 1.0;
  for (int i = 1; i < count; ++i) monotone &= h[i] <= h[i - 1] * (1 + 1e-8);
  ok(monotone && fabs(h[count - 1] - pnorm) <= 1e-3 * pnorm,
     "MINRES history: %d entries, never increasing, ends at the true P-norm ratio (%.3e)", count,
     h[count - 1]);

  /* symmetric indefinite: A - sigma D with sigma 2.5 times the Rayleigh quotient x.Ax / x.Dx
   * of x = A^-1 b (CG's solution: its low modes dominate, so the quotient is near the
   * smallest eigenvalue of D^-1 A and the shift makes a few eigenvalues negative) */
  double xax, xdx;
  shifted sh = {.A = A};
  ts_vec_create(be, n, TS_DOUBLE, &sh.d);
  ts_vec_create(be, n, TS_DOUBLE, &sh.work);
  ts_operator_diagonal(A, sh.d);
  ts_operator_apply(A, x, u);
  ts_vec_dot(x, u, &xax);
  ts_vec_pointwise_mult(sh.d, x, u);
  ts_vec_dot(x, u, &xdx);
  sh.sigma = 2.5 * xax / xdx;
  ts_operator_create_shell(be, &shifted_ops, n, TS_DOUBLE, &sh, &S);
  ts_solver_set_operator(mr, S);
  ts_solver_set_tolerances(mr, 1e-10, 5000);
  ts_vec_set(y, 0.0);
  e2 = ts_solver_solve(mr, b, y);
  residuals(S, P, b, y, t, u, &plain, &pnorm);
  ok(!e2 && pnorm <= 1e-10,
     "MINRES+Jacobi(A) on A - %.3g D (indefinite): %d iterations, ||r||_P/||b||_P = %.2e, "
     "||r||/||b|| = %.2e", sh.sigma, ts_solver_iterations(mr), pnorm, plain);
  ts_solver_set_operator(cg, S);
  ts_vec_set(x, 0.0);
  e1 = ts_solver_solve(cg, b, x);
  ok(e1 == TS_ERR_BREAKDOWN, "CG refuses the indefinite operator (breakdown): %s",
     ts_error_message());

  /* the failures */
  ts_solver_set_operator(mr, A);
  ts_solver_set_preconditioner(mr, N);
  ts_vec_set(y, 0.0);
  e2 = ts_solver_solve(mr, b, y);
  ok(e2 == TS_ERR_BREAKDOWN && strstr(ts_error_message(), "not positive definite"),
     "an indefinite preconditioner is a MINRES breakdown: %s", ts_error_message());
  ts_solver_set_preconditioner(mr, P);
  ts_solver_set_tolerances(mr, 1e-10, 5);
  ts_vec_set(y, 0.0);
  e2 = ts_solver_solve(mr, b, y);
  ok(e2 == TS_ERR_NOT_CONVERGED && strstr(ts_error_message(), "did not converge in 5") &&
         ts_solver_iterations(mr) == 5,
     "iteration limit: %s", ts_error_message());
  ts_solver_set_tolerances(mr, 1e-17, 5000);
  ts_vec_set(y, 0.0);
  e2 = ts_solver_solve(mr, b, y);
  residuals(A, P, b, y, t, u, &plain, &pnorm);
  ok(e2 == TS_ERR_NOT_CONVERGED && strstr(ts_error_message(), "cannot reach rtol = 1.0e-17") &&
         ts_solver_iterations(mr) < 1000 && pnorm < 1e-13,
     "rtol 1e-17: stops after %d iterations at ||r||_P/||b||_P = %.2e: %s",
     ts_solver_iterations(mr), pnorm, ts_error_message());
  ts_vec_set(b, 0.0);
  ts_vec_set(y, 1.0);
  e2 = ts_solver_solve(mr, b, y);
  double ynorm;
  ts_vec_norm(y, &ynorm);
  ok(!e2 && ynorm == 0.0 && ts_solver_iterations(mr) == 0, "MINRES: b = 0 gives x = 0");

  ts_solver_destroy(&gm);
  ts_solver_destroy(&fg);
  ts_solver_destroy(&cg);
  ts_solver_destroy(&mr);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&t);
  ts_vec_destroy(&u);
  ts_operator_destroy(&S);
  ts_vec_destroy(&sh.d);
  ts_vec_destroy(&sh.work);
  ts_operator_destroy(&N);
  ts_operator_destroy(&P);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&be);
  return exit_status();
}
