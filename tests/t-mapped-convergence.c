/* t-mapped-convergence.c -- optimal convergence of Q_k on Kershaw's mesh (issue 13): L2 rate
 * k+1 and H1-seminorm rate k between the two finest of the levels solved, for
 * -div(kappa grad u) + c u = f with kappa = 2, c = 1, u = exp(x_0) sin(pi x_1 / 2)
 * (3D: times cos(pi x_2 / 3)), non-zero on the boundary (Dirichlet data from a callback),
 * on Kershaw's meshes with epsilon = 1, 0.5, 0.3, 2D and 3D, solved with CG + Jacobi or CG + V-cycle (below), and
 * on a curved shell sector (2D and 3D, cells the Q_k images of the sector), solved with CG +
 * V-cycle.  The fast cases are k = 1..4 on Kershaw's meshes, in 3D k = 4 on epsilon = 1
 * only, and the 2D shell for k = 1..3; `make check-long` adds 3D k = 4 on the deformed
 * meshes, k = 5 and 6 (a level coarser; not 3D Q6 on epsilon = 0.3, see finest_level) and
 * a finer level for k = 1, 2, and the shell up to k = 6 in 2D and 3D (the long run: 104 s
 * on 2 cores, 2026-11-26).  3D k >= 3 and the long Kershaw cases are solved with CG +
 * V-cycle (the same discretization, fewer operator applications: CG + Jacobi needs 200 to
 * 640 iterations on 3D Q3 and Q4, and 3D Q3 and Q4 took 103 of the 189 s of this test in
 * the sanitizer tree on 2 loaded cores, 2026-11-28), the others with CG + Jacobi. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mapped-solve.h"
#include "tap.h"
#include "tessera.h"

static const double kappa_value = 2.0, c_value = 1.0;

/* f = -kappa Laplace(u) + c u with u of mapped-solve.c */
static int rhs(void *ctx, int dim, int64_t count, const double *x, double *f) {
  const double factor = mapped_u_laplace_factor(dim);
  for (int64_t p = 0; p < count; ++p) {
    const double u = mapped_u_value(dim, x + p * dim);
    f[p] = -kappa_value * factor * u + c_value * u;
  }
  return 0;
}

static int solve(ts_backend be, ts_mesh mesh, ts_fe fe, int level, int multigrid, mapped_result *r) {
  ts_dofs dofs = NULL;
  int64_t cells[3] = {1, 1, 1};
  ts_mesh_cells(mesh, level, cells);
  const int64_t count = cells[0] * cells[1] * cells[2];
  double *kappa = malloc(sizeof(double) * (size_t)count), *c = malloc(sizeof(double) * (size_t)count);
  for (int64_t i = 0; i < count; ++i) {
    kappa[i] = kappa_value;
    c[i] = c_value;
  }
  const ts_coefficients co = {.kappa_components = 1, .kappa = kappa, .reaction = c};
  /* rtol: far below the discretization errors measured, above the rounding floor */
  const mapped_problem p = {.coefficients = &co, .f = rhs, .g = mapped_u, .u = mapped_u,
                            .grad_u = mapped_u_gradient, .rtol = 1e-12, .multigrid = multigrid};
  int ierr = ts_dofs_create(mesh, fe, level, &dofs);
  if (!ierr) ierr = mapped_solve(be, dofs, &p, r);
  free(kappa);
  free(c);
  ts_dofs_destroy(&dofs);
  return ierr;
}

/* the rates between levels finest-1 and finest */
static void study(ts_backend be, int dim, int k, double eps, int finest) {
  const int coarse[3] = {6, 2, 2};
  ts_mesh mesh;
  ts_fe fe;
  mapped_result r[2] = {{1, 1, 0, 0}, {1, 1, 0, 0}};
  ts_mesh_create_kershaw(dim, coarse, finest, eps, &mesh);
  ts_fe_create_q(dim, k, &fe);
  const int multigrid = (dim == 3 && k >= 3) ||
                        (tap_long() && (k >= 5 || finest > (dim == 2 ? 3 + (k == 1) : 2 + (k == 1))));
  int ierr = solve(be, mesh, fe, finest - 1, multigrid, &r[0]);
  if (!ierr) ierr = solve(be, mesh, fe, finest, multigrid, &r[1]);
  const double rl2 = log2(r[0].l2 / r[1].l2), rh1 = log2(r[0].h1 / r[1].h1);
  ok(!ierr && fabs(rl2 - (k + 1)) <= 0.25, "%dD Q%d Kershaw %.1f levels %d-%d: L2 rate %.3f (expect %d), "
     "error %.3e, %d/%d CG + %s iterations", dim, k, eps, finest - 1, finest, rl2, k + 1, r[1].l2,
     r[0].iterations, r[1].iterations, multigrid ? "V-cycle" : "Jacobi");
  ok(!ierr && fabs(rh1 - k) <= 0.25, "%dD Q%d Kershaw %.1f levels %d-%d: H1 rate %.3f (expect %d), "
     "error %.3e", dim, k, eps, finest - 1, finest, rh1, k, r[1].h1);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* The same on a curved shell sector (radii 1 and 2, angle 1; 2 coarse cells per direction,
 * TS_GEOMETRY_QK: the cells are Q_k images of the sector), solved by CG + V-cycle */
static void study_shell(ts_backend be, int dim, int k, int finest) {
  const int coarse[3] = {2, 2, 2};
  ts_mesh mesh;
  ts_fe fe;
  mapped_result r[2] = {{1, 1, 0, 0}, {1, 1, 0, 0}};
  int ierr = ts_mesh_create_shell(dim, coarse, finest, 1.0, 2.0, 1.0, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = solve(be, mesh, fe, finest - 1, 1, &r[0]);
  if (!ierr) ierr = solve(be, mesh, fe, finest, 1, &r[1]);
  const double rl2 = log2(r[0].l2 / r[1].l2), rh1 = log2(r[0].h1 / r[1].h1);
  ok(!ierr && fabs(rl2 - (k + 1)) <= 0.25, "%dD Q%d shell sector levels %d-%d: L2 rate %.3f "
     "(expect %d), error %.3e, %d/%d CG + V-cycle iterations", dim, k, finest - 1, finest, rl2,
     k + 1, r[1].l2, r[0].iterations, r[1].iterations);
  ok(!ierr && fabs(rh1 - k) <= 0.25, "%dD Q%d shell sector levels %d-%d: H1 rate %.3f (expect "
     "%d), error %.3e", dim, k, finest - 1, finest, rh1, k, r[1].h1);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- coefficients per point */

/* kappa = 1 + x_0^2 and c = 1 + x_1 at the quadrature points (ts_coefficients.kappa_at,
 * reaction_at), and f = -div(kappa grad u) + c u = -kappa Laplace(u) - 2 x_0 du/dx_0 + c u
 * with du/dx_0 = u for the u of mapped-solve.c */
static int kappa_at(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)ctx;
  for (int64_t p = 0; p < count; ++p) v[p] = 1.0 + x[p * dim] * x[p * dim];
  return 0;
}
static int c_at(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)ctx;
  for (int64_t p = 0; p < count; ++p) v[p] = 1.0 + x[p * dim + 1];
  return 0;
}
static int negative_at(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)ctx, (void)dim;
  for (int64_t p = 0; p < count; ++p) v[p] = x[p * dim] > 0.9 ? -1.0 : 1.0;
  return 0;
}
static int rhs_variable(void *ctx, int dim, int64_t count, const double *x, double *f) {
  (void)ctx;
  const double factor = mapped_u_laplace_factor(dim);
  for (int64_t p = 0; p < count; ++p) {
    const double *y = x + p * dim, u = mapped_u_value(dim, y);
    f[p] = -(1.0 + y[0] * y[0]) * factor * u - 2.0 * y[0] * u + (1.0 + y[1]) * u;
  }
  return 0;
}

/* Optimal rates with kappa and c per quadrature point on Kershaw 0.3 (CG + V-cycle: the
 * levels evaluate the callbacks at their own points), where kappa and c sampled at the cells'
 * centres are an O(h) approximation (their rates are printed, not asserted). */
static void study_variable(ts_backend be, int dim, int k, int finest) {
  const int coarse[3] = {6, 2, 2};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  mapped_result r[2] = {{1, 1, 0, 0}, {1, 1, 0, 0}};
  const ts_coefficients co = {.kappa_components = 1, .kappa_at = kappa_at, .reaction_at = c_at};
  const mapped_problem p = {.coefficients = &co, .f = rhs_variable, .g = mapped_u, .u = mapped_u,
                            .grad_u = mapped_u_gradient, .rtol = 1e-12, .multigrid = 1};
  int ierr = ts_mesh_create_kershaw(dim, coarse, finest, 0.3, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  for (int i = 0; i < 2 && !ierr; ++i) {
    ierr = ts_dofs_create(mesh, fe, finest - 1 + i, &dofs);
    if (!ierr) ierr = mapped_solve(be, dofs, &p, &r[i]);
    ts_dofs_destroy(&dofs);
  }
  const double rl2 = log2(r[0].l2 / r[1].l2), rh1 = log2(r[0].h1 / r[1].h1);
  ok(!ierr && fabs(rl2 - (k + 1)) <= 0.25 && fabs(rh1 - k) <= 0.25, "%dD Q%d Kershaw 0.3, kappa "
     "= 1 + x^2 and c = 1 + y per quadrature point, levels %d-%d: L2 rate %.3f, H1 rate %.3f "
     "(expect %d, %d), L2 error %.3e", dim, k, finest - 1, finest, rl2, rh1, k + 1, k, r[1].l2);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* A kappa callback giving -1 where x_0 > 0.9: refused, naming the cell and the point */
static void refused_point(ts_backend be) {
  const int coarse[2] = {6, 2};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  const ts_coefficients co = {.kappa_components = 1, .kappa_at = negative_at};
  int ierr = ts_mesh_create_kershaw(2, coarse, 1, 0.3, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  const int code = ierr ? ierr : ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A);
  const char *message = ts_error_message();
  ok(code == TS_ERR_ARG && strstr(message, "kappa at quadrature point") &&
         strstr(message, "of cell 10 = (10, 0) of level 1") && strstr(message, "not positive"),
     "a kappa callback negative at some points is refused naming the cell and point: %s", message);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* The finer of the two levels of a case: its errors stay far above the floor that CG's
 * relative residual 1e-12 and round-off leave, about 1e-11 here (2D Q4 on level 4 and Q6 on
 * level 2 reached it and lost their rates), and the coarser level is asymptotic (3D Q5 and
 * Q6 on Kershaw 0.3 between levels 0 and 1, 24 and 192 cells: H1 rates 4.55 and 5.59).
 * 3D Q6 on Kershaw 0.3 has no such pair: on levels 1-2 its L2 error reaches the floor
 * (1.5e-11, rate 6.63; 4 minutes of CG, 348,097 DoFs), so it is not run. */
static int finest_level(int dim, int k, double eps, int longer) {
  if (dim == 2) return k == 1 ? 4 + longer : k == 2 ? 3 + longer : k <= 4 ? 3 : k == 5 ? 2 : 1;
  return k == 1 ? 3 + longer : k == 2 ? 2 + longer : k <= 4 || eps < 0.4 ? 2 : 1;
}

int main(void) {
  ts_backend be;
  if (ts_backend_open("omp", &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  const double eps[3] = {1.0, 0.5, 0.3};
  const int longer = tap_long();
  for (int e = 0; e < 3; ++e) {
    for (int k = 1; k <= (longer ? 6 : 4); ++k) study(be, 2, k, eps[e], finest_level(2, k, eps[e], longer));
    for (int k = 1; k <= (longer ? 6 : 4); ++k)
      if ((longer && !(k == 6 && e == 2)) || k < 4 || e == 0)
        study(be, 3, k, eps[e], finest_level(3, k, eps[e], longer));
  }
  /* kappa and c per quadrature point: 2D Q2, Q3 fast, 3D Q2 long */
  study_variable(be, 2, 2, 3);
  study_variable(be, 2, 3, 3);
  if (longer) study_variable(be, 3, 2, 2);
  refused_point(be);
  /* the curved shell: 2D k = 1..3 fast, the rest long */
  const int shell2[7] = {0, 5, 4, 3, 3, 2, 2}, shell3[7] = {0, 4, 3, 2, 2, 2, 2};
  for (int k = 1; k <= 6; ++k) {
    if (k <= 3 || longer) study_shell(be, 2, k, shell2[k]);
    if (longer) study_shell(be, 3, k, shell3[k]);
  }
  ts_backend_destroy(&be);
  done_testing();
  return exit_status();
}
