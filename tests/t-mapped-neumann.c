/* t-mapped-neumann.c -- Neumann faces on mapped meshes (issue 13): -div(kappa grad u) + c u
 * = f with u = g on the Dirichlet faces and kappa grad u . n = h on the Neumann faces, the
 * smooth u of mapped-solve.c, kappa = 2.
 *  - Optimal rates (L2 k+1, H1 k between the two finest levels) on Kershaw's mesh (epsilon
 *    0.3) with Neumann on some faces, on every face with c = 1, and on every face with c = 0
 *    (pure Neumann: the data made compatible, the solution defined up to a constant and
 *    compared after matching u's mean), and on a shell sector whose outer (curved) face is
 *    a Neumann face: h from the normal x/|x|, so the surface measure of curved faces counts.
 *  - CG + V-cycle (ts_mg_create_mapped with the Neumann faces) gives the errors of CG +
 *    Jacobi, in fewer iterations.  The fast cases are solved by CG + Jacobi, the long ones
 *    (`make check-long`: k = 4, 3D k = 1 and 3) by CG + V-cycle.
 *  - The operator with Neumann faces: identity rows on the Dirichlet DoFs, symmetric, y +=.
 *  - Bad input gets a clear error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mapped-solve.h"
#include "tap.h"
#include "tessera.h"

static const double kappa_value = 2.0;

typedef struct data {
  double c;                     /* the reaction coefficient */
  double outer;                 /* the shell's outer radius (0: the unit box's faces) */
} data;

static int rhs(void *ctx, int dim, int64_t count, const double *x, double *f) {
  const data *d = ctx;
  const double factor = mapped_u_laplace_factor(dim);
  for (int64_t p = 0; p < count; ++p) {
    const double u = mapped_u_value(dim, x + p * dim);
    f[p] = -kappa_value * factor * u + d->c * u;
  }
  return 0;
}

/* kappa grad u . n with the outward normal of the face the point lies on: of the unit box
 * (x_e = 0 or 1; Kershaw's map keeps the box's faces), or of the circle |x| = outer */
static int flux(void *ctx, int dim, int64_t count, const double *x, double *h) {
  const data *d = ctx;
  for (int64_t p = 0; p < count; ++p) {
    const double *y = x + p * dim;
    double g[3], n[3] = {0, 0, 0}, r = 0.0;
    mapped_u_gradient(NULL, dim, 1, y, g);
    if (d->outer > 0) {
      for (int e = 0; e < dim; ++e) r += y[e] * y[e];
      for (int e = 0; e < dim; ++e) n[e] = y[e] / sqrt(r);
    } else {
      int faces = 0;
      for (int e = 0; e < dim; ++e) {
        if (fabs(y[e]) < 1e-12) n[e] = -1.0, ++faces;
        if (fabs(y[e] - 1.0) < 1e-12) n[e] = 1.0, ++faces;
      }
      if (faces != 1) return 1; /* a quadrature point is inside one face */
    }
    h[p] = 0.0;
    for (int e = 0; e < dim; ++e) h[p] += kappa_value * g[e] * n[e];
  }
  return 0;
}

static double *constant_array(int64_t n, double value) {
  double *a = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) a[i] = value;
  return a;
}

typedef struct study_case {
  const char *name;
  int dim, k, finest;
  unsigned neumann;
  double c;
  int shell, multigrid;
} study_case;

static int solve(ts_backend be, ts_mesh mesh, int k, int level, const study_case *sc,
                 mapped_result *r) {
  ts_dofs dofs = NULL;
  ts_fe fe = NULL;
  int64_t cells[3] = {1, 1, 1};
  const int dim = ts_mesh_dim(mesh);
  ts_mesh_cells(mesh, level, cells);
  const int64_t count = cells[0] * cells[1] * (dim == 3 ? cells[2] : 1);
  double *kappa = constant_array(count, kappa_value), *c = constant_array(count, sc->c);
  const ts_coefficients co = {.kappa_components = 1, .kappa = kappa,
                              .reaction = sc->c > 0 ? c : NULL};
  data d = {sc->c, sc->shell ? 2.0 : 0.0};
  /* rtol: far below the discretization errors measured, above the rounding floor */
  const mapped_problem p = {.coefficients = &co, .f = rhs, .g = mapped_u, .u = mapped_u,
                      .grad_u = mapped_u_gradient, .ctx = &d, .rtol = 1e-12,
                      .neumann_faces = sc->neumann, .h = flux, .multigrid = sc->multigrid};
  int ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, level, &dofs);
  if (!ierr) ierr = mapped_solve(be, dofs, &p, r);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  free(kappa);
  free(c);
  return ierr;
}

static int create_mesh(const study_case *sc, ts_mesh *mesh) {
  const int kershaw[3] = {6, 2, 2}, shell[3] = {2, 2, 2};
  if (sc->shell) return ts_mesh_create_shell(sc->dim, shell, sc->finest, 1.0, 2.0, 1.0, mesh);
  return ts_mesh_create_kershaw(sc->dim, kershaw, sc->finest, 0.3, mesh);
}

/* the rates between levels finest-1 and finest */
static void study(ts_backend be, const study_case *sc, mapped_result *finest) {
  ts_mesh mesh = NULL;
  mapped_result r[2] = {{1, 1, 0, 0}, {1, 1, 0, 0}};
  int ierr = create_mesh(sc, &mesh);
  if (!ierr) ierr = solve(be, mesh, sc->k, sc->finest - 1, sc, &r[0]);
  if (!ierr) ierr = solve(be, mesh, sc->k, sc->finest, sc, &r[1]);
  const double rl2 = log2(r[0].l2 / r[1].l2), rh1 = log2(r[0].h1 / r[1].h1);
  ok(!ierr && fabs(rl2 - (sc->k + 1)) <= 0.3, "%dD Q%d %s, levels %d-%d: L2 rate %.3f (expect %d), "
     "error %.3e, %d/%d CG iterations", sc->dim, sc->k, sc->name, sc->finest - 1, sc->finest, rl2,
     sc->k + 1, r[1].l2, r[0].iterations, r[1].iterations);
  ok(!ierr && fabs(rh1 - sc->k) <= 0.3, "%dD Q%d %s, levels %d-%d: H1 rate %.3f (expect %d), "
     "error %.3e", sc->dim, sc->k, sc->name, sc->finest - 1, sc->finest, rh1, sc->k, r[1].h1);
  if (sc->neumann == TS_FACES_ALL(sc->dim) && sc->c == 0)
    ok(!ierr && r[1].defect < 1e-6, "%dD Q%d %s: the data are compatible up to quadrature: "
       "defect %.2e", sc->dim, sc->k, sc->name, r[1].defect);
  if (finest) *finest = r[1];
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- the operator */

/* A e_i = e_i on a Dirichlet DoF, (A x, y) = (x, A y), and A x added with y += */
static void operator_checks(ts_backend be) {
  const int coarse[2] = {6, 2};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  ts_vec x = NULL, y = NULL, z = NULL;
  int ierr = ts_mesh_create_kershaw(2, coarse, 1, 0.3, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 3, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_dofs_set_neumann_faces(dofs, TS_FACE_RIGHT | TS_FACE_TOP);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &A);
  const int64_t n = ts_dofs_count(dofs);
  for (ts_vec *v = &x; v && !ierr; v = v == &x ? &y : v == &y ? &z : NULL)
    ierr = ts_vec_create(be, n, TS_DOUBLE, v);
  ok(!ierr, "Q3 on Kershaw 0.3 with Neumann faces right and top: operator made");
  if (ierr) diag("%s", ts_error_message());
  double *h = calloc((size_t)n, sizeof *h), *hy = calloc((size_t)n, sizeof *hy);
  /* DoF 0: the corner (left, bottom), Dirichlet; n-1: the corner (right, top), Neumann */
  int dirichlet_ok = ts_dofs_is_dirichlet(dofs, 0) == 1 && ts_dofs_is_dirichlet(dofs, n - 1) == 0;
  ok(dirichlet_ok, "ts_dofs_is_dirichlet: the left-bottom corner yes, the right-top corner no");
  h[0] = 1.0;
  if (!ierr) ierr = ts_vec_set_from_host(x, h);
  if (!ierr) ierr = ts_operator_apply(A, x, y);
  if (!ierr) ierr = ts_vec_get_to_host(y, hy);
  double off = 0.0;
  for (int64_t i = 1; i < n; ++i) off = fmax(off, fabs(hy[i]));
  ok(!ierr && hy[0] == 1.0 && off == 0.0, "a Dirichlet DoF's row and column: A e_0 = e_0 "
     "(diagonal %g, largest other entry %g)", hy[0], off);
  double xay = 0, yax = 0, sum = 0;
  if (!ierr) ierr = ts_vec_set_random(x, 1);
  if (!ierr) ierr = ts_vec_set_random(y, 2);
  if (!ierr) ierr = ts_operator_apply(A, x, z);
  if (!ierr) ierr = ts_vec_dot(y, z, &yax);
  if (!ierr) ierr = ts_operator_apply(A, y, z);
  if (!ierr) ierr = ts_vec_dot(x, z, &xay);
  ok(!ierr && fabs(xay - yax) <= 1e-13 * fabs(xay), "symmetric: (x, A y) = %.15g, (y, A x) = %.15g",
     xay, yax);
  /* z = A y (above); z += A x must give A (x + y) */
  double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
  if (!ierr) ierr = ts_operator_apply_add(A, x, z);
  if (!ierr) ierr = ts_vec_get_to_host(z, a);
  if (!ierr) ierr = ts_vec_axpby(1.0, x, 1.0, y);
  if (!ierr) ierr = ts_operator_apply(A, y, z);
  if (!ierr) ierr = ts_vec_get_to_host(z, b);
  for (int64_t i = 0; i < n && !ierr; ++i) sum = fmax(sum, fabs(a[i] - b[i]) / (1.0 + fabs(b[i])));
  ok(!ierr && sum <= 1e-14, "y += A x: A y + A x = A (x + y) to %.1e", sum);
  free(a);
  free(b);
  free(h);
  free(hy);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&z);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- bad input */

static int nan_flux(void *ctx, int dim, int64_t count, const double *x, double *h) {
  (void)ctx, (void)dim, (void)x;
  for (int64_t p = 0; p < count; ++p) h[p] = NAN;
  return 0;
}

/* rc is TS_ERR_ARG and the message holds `needle` */
static void expect_error(int rc, const char *needle, const char *what) {
  const char *message = ts_error_message();
  ok(rc == TS_ERR_ARG && strstr(message, needle) != NULL, "%s: %s", what, message);
}

static void error_checks(ts_backend be) {
  unsigned faces = 99;
  ok(ts_faces_from_names("right, top back", 3, &faces) == 0 &&
         faces == (TS_FACE_RIGHT | TS_FACE_TOP | TS_FACE_BACK),
     "ts_faces_from_names: \"right, top back\" in 3D is %#x", faces);
  ok(ts_faces_from_names("all", 2, &faces) == 0 && faces == TS_FACES_ALL(2) &&
         ts_faces_from_names(" none ", 3, &faces) == 0 && faces == 0,
     "ts_faces_from_names: \"all\" in 2D, \" none \"");
  expect_error(ts_faces_from_names("left front", 2, &faces), "'front' unknown in 2D",
               "a 3D face in 2D");
  expect_error(ts_faces_from_names("lef", 3, &faces),
               "allowed: left, right, bottom, top, front, back, all, none",
               "a misspelt face names the allowed ones");

  const int coarse[2] = {6, 2}, box_cells[2] = {2, 2};
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  ts_mesh mesh = NULL, box = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL, box_dofs = NULL;
  ts_operator A = NULL;
  ts_vec b = NULL;
  int ierr = ts_mesh_create_kershaw(2, coarse, 1, 0.3, &mesh);
  if (!ierr) ierr = ts_mesh_create_box(2, lower, upper, box_cells, 1, &box);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_dofs_create(box, fe, 1, &box_dofs);
  ok(!ierr, "meshes and DoFs for the error cases");
  expect_error(ts_dofs_set_neumann_faces(dofs, TS_FACE_FRONT), "beyond the 4 faces of a 2D box",
               "a 3D face bit in 2D");
  ok(ts_dofs_set_neumann_faces(box_dofs, TS_FACE_LEFT) == 0, "Neumann faces on a box's DoFs");
  expect_error(ts_operator_create_laplace(be, box_dofs, TS_DOUBLE, &A), "have Neumann faces",
               "the box Laplacian refuses DoFs with Neumann faces");
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(dofs), TS_DOUBLE, &b);
  expect_error(ierr ? ierr : ts_assemble_neumann_mapped(A, nan_flux, NULL, b), "no Neumann face",
               "Neumann data without Neumann faces");
  double defect = 1;
  ok(!ierr && ts_remove_null_space(A, b, &defect) == 0 && defect == 0.0,
     "ts_remove_null_space leaves a regular operator's right side alone");
  ts_operator_destroy(&A);
  if (!ierr) ierr = ts_dofs_set_neumann_faces(dofs, TS_FACE_TOP);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &A);
  /* level 1 has 12 x 4 cells: the top face's first is cell 36 = (0, 3) */
  expect_error(ierr ? ierr : ts_assemble_neumann_mapped(A, nan_flux, NULL, b),
               "Neumann flux callback gave nan (not finite) at point 0 of cell 36 = (0, 3) of level 1",
               "a flux that is not finite names the cell");
  ts_mg_options o;
  ts_mg mg = NULL;
  ts_mg_options_default(&o);
  o.neumann_faces = TS_FACE_LEFT;
  expect_error(ts_mg_create(be, box, fe, 1, &o, &mg), "mapped meshes only",
               "multigrid on a box refuses Neumann faces");
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  o.neumann_faces = 64;
  expect_error(ts_mg_create_mapped(be, mesh, fe, 1, NULL, &o, &mg), "beyond the 4 faces",
               "multigrid: face bits beyond the dimension");
  ts_vec_destroy(&b);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_dofs_destroy(&box_dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&box);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be;
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  const int longer = tap_long();
  const unsigned all2 = TS_FACES_ALL(2), all3 = TS_FACES_ALL(3);
  const unsigned some2 = TS_FACE_RIGHT | TS_FACE_TOP, some3 = TS_FACE_RIGHT | TS_FACE_TOP | TS_FACE_BACK;
  for (int k = 1; k <= (longer ? 4 : 3); ++k) {
    /* 3D Q1 is asymptotic from levels 3-4 only (2-3: L2 rate 1.63), a long case */
    const int f2 = k == 1 ? 4 : 3, f3 = k == 1 ? 4 : 2;
    const study_case cases[] = {
        {"Kershaw 0.3, Neumann right and top", 2, k, f2, some2, 0.0, 0, 0},
        {"Kershaw 0.3, pure Neumann, c = 1", 2, k, f2, all2, 1.0, 0, 0},
        {"Kershaw 0.3, pure Neumann, c = 0", 2, k, f2, all2, 0.0, 0, 0},
        {"shell, Neumann on the outer circle", 2, k, f2, TS_FACE_RIGHT, 0.0, 1, 0},
        {"Kershaw 0.3, Neumann right, top and back", 3, k, f3, some3, 0.0, 0, 0},
        {"Kershaw 0.3, pure Neumann, c = 0", 3, k, f3, all3, 0.0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
      const int fast = k <= 3 && (cases[i].dim == 2 || k == 2);
      study_case c = cases[i];
      c.multigrid = !fast; /* the long cases by CG + V-cycle: fewer operator applications */
      if (fast || longer) study(be, &c, NULL);
    }
  }
  /* the V-cycle: the same errors as Jacobi's, fewer iterations */
  const study_case jacobi[] = {{"Kershaw 0.3, Neumann right and top", 2, 2, 3, some2, 0.0, 0, 0},
                               {"Kershaw 0.3, pure Neumann, c = 0", 2, 2, 3, all2, 0.0, 0, 0},
                               {"Kershaw 0.3, pure Neumann, c = 0", 3, 2, 2, all3, 0.0, 0, 0}};
  for (size_t i = 0; i < sizeof jacobi / sizeof *jacobi; ++i) {
    study_case mg_case = jacobi[i];
    mg_case.multigrid = 1;
    mapped_result rj = {0, 0, 0, 0}, rm = {0, 0, 0, 0};
    study(be, &jacobi[i], &rj);
    study(be, &mg_case, &rm);
    ok(fabs(rm.l2 - rj.l2) <= 1e-6 * rj.l2 && fabs(rm.h1 - rj.h1) <= 1e-6 * rj.h1 &&
           rm.iterations < rj.iterations,
       "%dD Q2 %s: CG + V-cycle %d iterations (Jacobi %d), L2 error %.6e (Jacobi %.6e)",
       mg_case.dim, mg_case.name, rm.iterations, rj.iterations, rm.l2, rj.l2);
  }
  operator_checks(be);
  error_checks(be);
  ts_backend_destroy(&be);
  done_testing();
  return exit_status();
}
