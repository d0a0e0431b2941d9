/* t-mapped.c -- the operator of -div(kappa grad u) + c u on mapped cells (issue 13):
 * (a) with the identity map (Kershaw's mesh with epsilon = 1) it is the box Laplacian, and
 *     its diagonal the box's, to round-off, 2D and 3D, k = 1..4;
 *     also from the box's vertices (ts_mesh_create_vertices); in single precision to float's
 *     rounding; the same bits on 1 and 2 threads;
 * (b) on deformed and curved meshes (Kershaw 0.3, annulus and shell sectors, sine) with a tensor kappa and c per cell: symmetric
 *     (x.Ay = y.Ax), constants annihilated by the unconstrained operator with c = 0, the
 *     diagonal = e_i.A e_i;
 * (c) exactness on Kershaw's (multilinear) cells: a linear u with a constant tensor kappa
 *     and c = 2 (f = c u), k >= 2, and the piecewise linear u of a kappa jump 1:100 across
 *     x_0 = 1/2 (the map keeps x_0), solved to round-off with CG + Jacobi, Dirichlet data
 *     from a callback.  Both u lie in the mapped Q_1 space, and the (k+1)-point rule
 *     integrates the cell matrices' products with them exactly there: det(J) J^{-T} (the
 *     cofactors) has degree dim-1 per direction, det(J) c u phi_i degree k+3 <= 2k+1.  (On
 *     curved cells the rule is not exact for them: no such test there.);
 * (d) the refusals: NULL and out-of-range arguments, non-finite or indefinite coefficients
 *     and inverted cells named by their cell, box tools on mapped meshes, failing
 *     callbacks, and a backend without the kernel. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mapped-solve.h"
#include "tap.h"
#include "tessera-impl.h"

static ts_backend be;

/* |a - b| / |b| (a is overwritten by a - b) */
static double rel_diff(ts_vec a, ts_vec b) {
  double d = 1, m = 1;
  ts_vec_axpby(-1.0, b, 1.0, a);
  ts_vec_norm(a, &d);
  ts_vec_norm(b, &m);
  return d / m;
}

/* The unit box's level-0 vertices (coarse 6 x 2 (x 2)), for ts_mesh_create_vertices. */
static void box_vertices(int dim, double *v) {
  const int n[3] = {7, 3, dim == 3 ? 3 : 1};
  for (int i = 0; i < n[0] * n[1] * n[2]; ++i) {
    const int a[3] = {i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])};
    for (int d = 0; d < dim; ++d) v[i * dim + d] = a[d] / (double)(n[d] - 1);
  }
}

/* The identity map, as Kershaw's mesh with epsilon = 1 or from the box's vertices. */
static void identity_map(int dim, int k, int from_vertices) {
  const int coarse[3] = {6, 2, 2};
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  double vertices[7 * 3 * 3 * 3];
  ts_mesh box, mapped;
  ts_fe fe;
  ts_dofs db, dm;
  ts_operator L, A;
  ts_vec x, yb, ym;
  ts_mesh_create_box(dim, lower, upper, coarse, 1, &box);
  box_vertices(dim, vertices);
  if (from_vertices)
    ts_mesh_create_vertices(dim, coarse, 1, vertices, &mapped);
  else
    ts_mesh_create_kershaw(dim, coarse, 1, 1.0, &mapped);
  ts_fe_create_q(dim, k, &fe);
  ts_dofs_create(box, fe, 1, &db);
  int ierr = ts_dofs_create(mapped, fe, 1, &dm);
  const int64_t n = ts_dofs_count(db);
  if (!ierr) ierr = ts_operator_create_laplace(be, db, TS_DOUBLE, &L);
  if (!ierr) ierr = ts_operator_create_mapped(be, dm, NULL, TS_DOUBLE, &A);
  if (ierr) diag("%s", ts_error_message());
  ts_vec_create(be, n, TS_DOUBLE, &x);
  ts_vec_create(be, n, TS_DOUBLE, &yb);
  ts_vec_create(be, n, TS_DOUBLE, &ym);
  ts_vec_set_random(x, 7);
  double e_apply = 1, e_unc = 1, e_diag = 1;
  if (!ierr) {
    ts_operator_apply(L, x, yb);
    ts_operator_apply(A, x, ym);
    e_apply = rel_diff(ym, yb);
    ts_operator_apply_unconstrained(L, x, yb);
    ts_operator_apply_unconstrained(A, x, ym);
    e_unc = rel_diff(ym, yb);
    ts_operator_diagonal(L, yb);
    ts_operator_diagonal(A, ym);
    e_diag = rel_diff(ym, yb);
  }
  ok(!ierr && e_apply < 1e-13 && e_unc < 1e-13 && e_diag < 1e-13,
     "%dD Q%d identity map (%s) = box Laplacian: apply %.2e, unconstrained %.2e, diagonal %.2e "
     "(< 1e-13)", dim, k, from_vertices ? "vertices" : "Kershaw 1", e_apply, e_unc, e_diag);
  ts_vec_destroy(&x);
  ts_vec_destroy(&yb);
  ts_vec_destroy(&ym);
  ts_operator_destroy(&A);
  ts_operator_destroy(&L);
  ts_dofs_destroy(&dm);
  ts_dofs_destroy(&db);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mapped);
  ts_mesh_destroy(&box);
}

/* Single precision against double (to float's rounding), and the same bits on 1 and 2
 * threads (2D Q4 on Kershaw 0.3 level 4: 49,665 DoFs, enough for the kernel's 2 threads). */
static void precision_and_threads(void) {
  const int coarse[2] = {6, 2};
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs dofs;
  ts_operator A = NULL, As = NULL;
  ts_vec x, xs, y, ys, y1;
  ts_mesh_create_kershaw(2, coarse, 4, 0.3, &mesh);
  ts_fe_create_q(2, 4, &fe);
  ts_dofs_create(mesh, fe, 4, &dofs);
  const int64_t n = ts_dofs_count(dofs);
  int ierr = ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, NULL, TS_SINGLE, &As);
  if (ierr) diag("%s", ts_error_message());
  ts_vec *v[] = {&x, &xs, &y, &ys, &y1};
  for (int i = 0; i < 5; ++i) ts_vec_create(be, n, i == 1 || i == 3 ? TS_SINGLE : TS_DOUBLE, v[i]);
  ts_vec_set_random(x, 3);
  ts_vec_copy(x, xs);
  double single = 1, threads = 1;
  if (!ierr) {
    ts_set_threads(1);
    ts_operator_apply(A, x, y1);
    ts_set_threads(2);
    ts_operator_apply(A, x, y);
    threads = rel_diff(y1, y);
    ts_operator_apply(As, xs, ys);
    ts_vec_copy(ys, y1);
    single = rel_diff(y1, y);
  }
  ok(!ierr && single < 1e-5, "2D Q4 Kershaw 0.3: single precision = double to %.2e (< 1e-5)", single);
  /* omp sums in an order fixed by the cells (the same bits for any thread count); the GPU
   * backends add the cells' results with atomics, in the order they come */
  const int omp = !strcmp(ts_backend_name(be), "omp");
  ok(!ierr && (omp ? threads == 0.0 : threads < 1e-14), "2D Q4 Kershaw 0.3, %lld DoFs: %s on 1 "
     "and 2 threads (difference %.2e)", (long long)n, omp ? "the same bits" : "the same to 1e-14",
     threads);
  for (int i = 0; i < 5; ++i) ts_vec_destroy(v[i]);
  ts_operator_destroy(&A);
  ts_operator_destroy(&As);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* kappa: a random symmetric positive definite tensor per cell (diagonally dominant); c >= 0 */
static void random_coefficients(int dim, int64_t cells, double *kappa, double *c) {
  const int nk = dim * (dim + 1) / 2;
  srand(11);
  for (int64_t cell = 0; cell < cells; ++cell) {
    for (int a = 0, t = 0; a < dim; ++a)
      for (int b = a; b < dim; ++b, ++t)
        kappa[cell * nk + t] = a == b ? 2.0 + rand() / (double)RAND_MAX : 0.5 * (rand() / (double)RAND_MAX - 0.5);
    c[cell] = 3.0 * rand() / (double)RAND_MAX;
  }
}

static double dot(ts_vec a, ts_vec b) {
  double r;
  ts_vec_dot(a, b, &r);
  return r;
}

/* symmetric, constants annihilated, diagonal */
static void properties(const char *what, ts_mesh mesh, int k) {
  const int dim = ts_mesh_dim(mesh);
  int64_t c3[3] = {1, 1, 1};
  ts_mesh_cells(mesh, 1, c3);
  const int64_t cells = c3[0] * c3[1] * c3[2];
  double *kappa = malloc(sizeof(double) * cells * 6), *c = malloc(sizeof(double) * cells);
  random_coefficients(dim, cells, kappa, c);
  const int nt = dim * (dim + 1) / 2;
  ts_coefficients with_c = {.kappa_components = nt, .kappa = kappa, .reaction = c},
                  without_c = {.kappa_components = nt, .kappa = kappa, .reaction = NULL};
  ts_fe fe;
  ts_dofs dofs;
  ts_operator A = NULL, A0 = NULL;
  ts_vec x, y, ax, ay, d;
  ts_fe_create_q(dim, k, &fe);
  int ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, &with_c, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_operator_create_mapped(be, dofs, &without_c, TS_DOUBLE, &A0);
  if (ierr) diag("%s", ts_error_message());
  const int64_t n = ierr ? 1 : ts_dofs_count(dofs);
  ts_vec_create(be, n, TS_DOUBLE, &x);
  ts_vec_create(be, n, TS_DOUBLE, &y);
  ts_vec_create(be, n, TS_DOUBLE, &ax);
  ts_vec_create(be, n, TS_DOUBLE, &ay);
  ts_vec_create(be, n, TS_DOUBLE, &d);
  double sym = 1, constant = 1, diagonal = 0;
  if (!ierr) {
    ts_vec_set_random(x, 1);
    ts_vec_set_random(y, 2);
    ts_operator_apply_unconstrained(A, x, ax);
    ts_operator_apply_unconstrained(A, y, ay);
    const double xay = dot(x, ay), yax = dot(y, ax);
    sym = fabs(xay - yax) / (sqrt(dot(ax, ax) * dot(x, x)));
    double scale;
    ts_vec_norm(ax, &scale); /* |A x| for |x| ~ sqrt(n): the operator's size */
    ts_vec_set(x, 1.0);
    ts_operator_apply_unconstrained(A0, x, ax);
    ts_vec_norm(ax, &constant);
    constant /= scale;
    ts_operator_diagonal(A, d);
    double *hd = malloc(sizeof(double) * n), *ha = malloc(sizeof(double) * n);
    ts_vec_get_to_host(d, hd);
    for (int64_t i = 0; i < n; i += n / 13 + 1) { /* every 13th DoF or so, boundary and inside */
      ts_vec_set(x, 0.0);
      double *e = calloc(n, sizeof(double));
      e[i] = 1.0;
      ts_vec_set_from_host(x, e);
      ts_operator_apply(A, x, ax);
      ts_vec_get_to_host(ax, ha);
      diagonal = fmax(diagonal, fabs(ha[i] - hd[i]) / fabs(hd[i]));
      free(e);
    }
    free(hd);
    free(ha);
  }
  ok(!ierr && sym < 1e-14, "%s Q%d: symmetric, |x.Ay - y.Ax| / (|Ax| |x|) = %.2e (< 1e-14)", what, k, sym);
  ok(!ierr && constant < 1e-13, "%s Q%d: constants annihilated (c = 0, no Dirichlet rows), "
     "|A 1| / |A x| = %.2e (< 1e-13)", what, k, constant);
  ok(!ierr && diagonal < 1e-14, "%s Q%d: diagonal = e_i.A e_i to %.2e (< 1e-14)", what, k, diagonal);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&ax);
  ts_vec_destroy(&ay);
  ts_vec_destroy(&d);
  ts_operator_destroy(&A);
  ts_operator_destroy(&A0);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  free(kappa);
  free(c);
}

/* ---------------------------------------------------------------- exact solutions */

/* u = g . x + 1 with a constant gradient (and its kappa jump variant) */
typedef struct linear {
  double grad[3];
  double c;            /* reaction coefficient: f = c u */
  double kappa_right;  /* > 0: the jump problem, u(x_0) piecewise linear, kappa 1 | kappa_right */
} linear;

static double linear_value(const linear *l, int dim, const double *x) {
  if (l->kappa_right > 0) { /* -(kappa u')' = 0, u(0) = 0, u(1) = 1, kappa a = kappa_right b */
    const double a = 2.0 * l->kappa_right / (1.0 + l->kappa_right), b = a / l->kappa_right;
    return x[0] <= 0.5 ? a * x[0] : 0.5 * a + b * (x[0] - 0.5);
  }
  double u = 1.0;
  for (int d = 0; d < dim; ++d) u += l->grad[d] * x[d];
  return u;
}

static int linear_u(void *ctx, int dim, int64_t count, const double *x, double *v) {
  for (int64_t p = 0; p < count; ++p) v[p] = linear_value(ctx, dim, x + p * dim);
  return 0;
}

static int linear_f(void *ctx, int dim, int64_t count, const double *x, double *v) {
  const linear *l = ctx;
  for (int64_t p = 0; p < count; ++p) v[p] = l->c * linear_value(l, dim, x + p * dim);
  return 0;
}

static int linear_grad(void *ctx, int dim, int64_t count, const double *x, double *g) {
  const linear *l = ctx;
  const double a = l->kappa_right > 0 ? 2.0 * l->kappa_right / (1.0 + l->kappa_right) : 0;
  for (int64_t p = 0; p < count; ++p)
    for (int d = 0; d < dim; ++d)
      g[p * dim + d] = l->kappa_right > 0 ? (d ? 0.0 : x[p * dim] <= 0.5 ? a : a / l->kappa_right)
                                          : l->grad[d];
  return 0;
}

static void exact_linear(const char *what, ts_mesh mesh, int k) {
  const int dim = ts_mesh_dim(mesh);
  linear l = {{0.7, -0.4, 0.25}, 2.0, 0.0};
  const double kappa[6] = {1.5, 0.3, 0.1, 1.0, -0.2, 2.0}, kappa2[3] = {1.5, 0.3, 1.0};
  int64_t c3[3] = {1, 1, 1};
  ts_mesh_cells(mesh, 1, c3);
  const int64_t cells = c3[0] * c3[1] * c3[2];
  double *kk = malloc(sizeof(double) * cells * 6), *c = malloc(sizeof(double) * cells);
  const int nk = dim * (dim + 1) / 2;
  for (int64_t i = 0; i < cells; ++i) {
    for (int t = 0; t < nk; ++t) kk[i * nk + t] = dim == 3 ? kappa[t] : kappa2[t];
    c[i] = l.c;
  }
  ts_coefficients co = {.kappa_components = nk, .kappa = kk, .reaction = c};
  ts_fe fe;
  ts_dofs dofs;
  const mapped_problem p = {.coefficients = &co, .f = linear_f, .g = linear_u, .u = linear_u,
                            .grad_u = linear_grad, .ctx = &l, .rtol = 1e-13};
  mapped_result r = {1, 1, 0, 0};
  ts_fe_create_q(dim, k, &fe);
  int ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = mapped_solve(be, dofs, &p, &r);
  ok(!ierr && r.l2 < 1e-11 && r.h1 < 1e-10, "%s Q%d: a linear u with tensor kappa and c = 2 is exact: "
     "L2 %.2e (< 1e-11), H1 %.2e (< 1e-10), %d CG iterations", what, k, r.l2, r.h1, r.iterations);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  free(kk);
  free(c);
}

static void jump(int dim, int k) {
  const int coarse[3] = {6, 2, 2};
  linear l = {{0, 0, 0}, 0.0, 100.0};
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs dofs;
  ts_mesh_create_kershaw(dim, coarse, 1, 0.3, &mesh);
  ts_fe_create_q(dim, k, &fe);
  ts_dofs_create(mesh, fe, 1, &dofs);
  int64_t c3[3] = {1, 1, 1};
  ts_mesh_cells(mesh, 1, c3);
  const int64_t cells = c3[0] * c3[1] * c3[2];
  double *kappa = malloc(sizeof(double) * cells);
  for (int64_t i = 0; i < cells; ++i) kappa[i] = i % c3[0] < c3[0] / 2 ? 1.0 : l.kappa_right;
  ts_coefficients co = {.kappa_components = 1, .kappa = kappa, .reaction = NULL};
  const mapped_problem p = {.coefficients = &co, .g = linear_u, .u = linear_u,
                            .grad_u = linear_grad, .ctx = &l, .rtol = 1e-13};
  mapped_result r = {1, 1, 0, 0};
  int ierr = mapped_solve(be, dofs, &p, &r);
  ok(!ierr && r.l2 < 1e-11 && r.h1 < 1e-10, "%dD Q%d Kershaw 0.3, kappa 1 | 100 across x_0 = 1/2: the "
     "piecewise linear u is exact: L2 %.2e, H1 %.2e, %d CG iterations", dim, k, r.l2, r.h1, r.iterations);
  free(kappa);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- refusals */

static int flip(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  for (int64_t p = 0; p < count; ++p)
    for (int d = 0; d < dim; ++d) x[p * dim + d] = d == 0 ? 1.0 - xi[p * dim] : xi[p * dim + d];
  return 0;
}

static int failing(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  for (int64_t p = 0; p < count; ++p)
    for (int d = 0; d < dim; ++d) x[p * dim + d] = xi[p * dim + d];
  return xi[0] > 0.5 ? 42 : 0; /* the cells whose first vertex lies right of x_0 = 1/2: from cell 7 on level 1 */
}

static int nan_value(void *ctx, int dim, int64_t count, const double *x, double *v) {
  for (int64_t p = 0; p < count; ++p) v[p] = p == 3 ? NAN : 1.0;
  return 0;
}

/* the call fails with code and its message holds every one of the words */
static void refused(int ierr, int code, const char *what, const char *w1, const char *w2) {
  const char *m = ts_error_message();
  ok(ierr == code && strstr(m, w1) && (!w2 || strstr(m, w2)), "refused: %s", what);
  if (ierr != code || !strstr(m, w1) || (w2 && !strstr(m, w2))) diag("code %d: %s", ierr, m);
}

static void refusals(void) {
  const int coarse[3] = {6, 2, 2}, odd[3] = {4, 2, 2};
  ts_mesh m = NULL, kershaw = NULL, box = NULL;
  ts_fe fe, rt;
  ts_dofs dofs = NULL, boxdofs = NULL;
  ts_operator A = NULL;
  const double lower[2] = {0, 0}, upper[2] = {1, 1}, nanv[9] = {0, 0, 1, 0, NAN, 1, 1, 1, 0};
  ts_fe_create_q(2, 2, &fe);
  ts_fe_create_rt(2, 1, &rt);
  refused(ts_mesh_create_kershaw(2, coarse, 1, 0.0, &m), TS_ERR_ARG, "Kershaw epsilon 0", "epsilon = 0", "(0, 1]");
  refused(ts_mesh_create_kershaw(2, odd, 1, 0.5, &m), TS_ERR_ARG, "Kershaw cells[0] = 4", "cells[0] = 4", "multiple of 6");
  refused(ts_mesh_create_sine(2, coarse, 1, 0.2, &m), TS_ERR_ARG, "sine amplitude 0.2", "amplitude = 0.2", NULL);
  refused(ts_mesh_create_shell(3, coarse, 1, 2.0, 1.0, 1.0, &m), TS_ERR_ARG, "shell inner > outer", "inner = 2", NULL);
  refused(ts_mesh_create_shell(2, coarse, 1, 1.0, 2.0, 4.0, &m), TS_ERR_ARG, "shell angle 4", "angle = 4", "(0, pi)");
  refused(ts_mesh_create_mapped(2, coarse, 1, NULL, NULL, TS_GEOMETRY_QK, &m), TS_ERR_ARG, "NULL map", "'map'", NULL);
  refused(ts_mesh_create_mapped(2, coarse, 1, flip, NULL, (ts_geometry)7, &m), TS_ERR_ARG, "geometry 7", "geometry = 7", NULL);
  refused(ts_mesh_create_vertices(2, (const int[]){2, 1}, 0, nanv, &m), TS_ERR_ARG, "a NaN vertex",
          "vertices[4] (coordinate 0 of vertex 2)", "finite");
  ok(m == NULL, "a refused mesh is NULL");
  /* inverted cells, failing maps */
  ts_mesh_create_mapped(2, coarse, 1, flip, NULL, TS_GEOMETRY_QK, &m);
  ts_dofs_create(m, fe, 1, &dofs);
  refused(ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &A), TS_ERR_ARG, "an inverted cell",
          "cell 0 = (0, 0) of level 1 is inverted", "det J = -");
  ts_dofs_destroy(&dofs);
  ts_mesh_destroy(&m);
  ts_mesh_create_mapped(2, coarse, 1, failing, NULL, TS_GEOMETRY_MULTILINEAR, &m);
  refused(ts_dofs_create(m, fe, 1, &dofs), TS_ERR_ARG, "a map returning 42",
          "the map callback returned 42 for cell 7 = (7, 0) of level 1", NULL);
  ts_mesh_destroy(&m);
  /* coefficients */
  ts_mesh_create_kershaw(2, coarse, 1, 0.5, &kershaw);
  ts_dofs_create(kershaw, fe, 1, &dofs);
  double kappa[48 * 3], c[48];
  for (int i = 0; i < 48 * 3; ++i) kappa[i] = i % 3 == 1 ? 0.0 : 1.0;
  for (int i = 0; i < 48; ++i) c[i] = 0.0;
  ts_coefficients co = {.kappa_components = 3, .kappa = kappa, .reaction = c};
  kappa[3 * 17 + 1] = 2.0;
  refused(ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A), TS_ERR_ARG, "an indefinite kappa",
          "kappa of cell 17 = (5, 1) of level 1 is not positive definite", NULL);
  kappa[3 * 17 + 1] = 0.0;
  kappa[3 * 20] = INFINITY;
  refused(ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A), TS_ERR_ARG, "an infinite kappa",
          "kappa of cell 20 = (8, 1) of level 1 is not finite", NULL);
  kappa[3 * 20] = 1.0;
  c[5] = NAN;
  refused(ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A), TS_ERR_ARG, "a NaN c",
          "reaction coefficient c of cell 5 = (5, 0) of level 1 is nan", NULL);
  c[5] = 0.0;
  co.kappa_components = 2;
  refused(ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A), TS_ERR_ARG, "kappa_components 2",
          "kappa_components = 2", "or 3");
  co.kappa_components = 1;
  co.kappa = NULL;
  refused(ts_operator_create_mapped(be, dofs, &co, TS_DOUBLE, &A), TS_ERR_ARG, "kappa NULL", "kappa and kappa_at are NULL", NULL);
  refused(ts_operator_create_mapped(be, dofs, NULL, (ts_precision)5, &A), TS_ERR_ARG, "precision 5", "precision 5", NULL);
  refused(ts_operator_create_mapped(NULL, dofs, NULL, TS_DOUBLE, &A), TS_ERR_ARG, "NULL backend", "'backend'", NULL);
  refused(ts_operator_create_mapped(be, NULL, NULL, TS_DOUBLE, &A), TS_ERR_ARG, "NULL dofs", "'dofs'", NULL);
  ok(A == NULL, "a refused operator is NULL");
  ts_dofs rtdofs = NULL; /* RT_k DoFs exist on a mapped mesh (the H(div) mass); this operator is Q_k's */
  ok(!ts_dofs_create(kershaw, rt, 1, &rtdofs), "RT_k DoFs on a mapped mesh");
  refused(ts_operator_create_mapped(be, rtdofs, NULL, TS_DOUBLE, &A), TS_ERR_ARG,
          "RT_k DoFs in the mapped operator", "only Q_k", NULL);
  ts_dofs_destroy(&rtdofs);
  /* box tools on mapped meshes and the other way round */
  refused(ts_operator_create_laplace(be, dofs, TS_DOUBLE, &A), TS_ERR_ARG, "the box Laplacian on a mapped mesh",
          "mapped mesh", "ts_operator_create_mapped");
  ts_mesh_create_box(2, lower, upper, coarse, 1, &box);
  ts_dofs_create(box, fe, 1, &boxdofs);
  refused(ts_operator_create_mapped(be, boxdofs, NULL, TS_DOUBLE, &A), TS_ERR_ARG, "a box mesh", "box mesh", NULL);
  ok(ts_mesh_is_mapped(box) == 0 && ts_mesh_is_mapped(kershaw) == 1, "ts_mesh_is_mapped: box 0, Kershaw 1");
  /* callbacks that fail, the data functions' arguments */
  ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &A);
  ts_vec b, x0;
  ts_vec_create(be, ts_dofs_count(dofs), TS_DOUBLE, &b);
  ts_vec_create(be, ts_dofs_count(dofs), TS_DOUBLE, &x0);
  refused(ts_assemble_rhs_mapped(A, nan_value, NULL, NULL, b, x0), TS_ERR_ARG, "a NaN right side",
          "right side callback gave nan (not finite) at point 3 of cell 0 = (0, 0)", NULL);
  refused(ts_assemble_rhs_mapped(A, NULL, nan_value, NULL, b, x0), TS_ERR_ARG, "NaN Dirichlet data",
          "Dirichlet data callback gave nan", NULL);
  refused(ts_assemble_rhs_mapped(A, NULL, NULL, NULL, NULL, x0), TS_ERR_ARG, "NULL b", "'b'", NULL);
  ts_operator J;
  ts_operator_create_jacobi(A, &J);
  refused(ts_assemble_rhs_mapped(J, NULL, NULL, NULL, b, x0), TS_ERR_ARG, "a Jacobi operator",
          "'jacobi'", "ts_operator_create_mapped");
  double values[1000] = {0}, l2, h1;
  refused(ts_compute_errors_mapped(dofs, values, linear_u, NULL, NULL, &l2, &h1), TS_ERR_ARG, "NULL gradient",
          "'grad_u'", NULL);
  refused(ts_compute_errors_mapped(boxdofs, values, linear_u, linear_grad, NULL, &l2, &h1), TS_ERR_ARG,
          "errors on a box", "box mesh", NULL);
  /* a backend without the kernel */
  int (*kernel)(struct ts_backend_ops *, const ts_mapped_plan *, ts_precision, const void *, void *, int) =
      be->ops.mapped_apply;
  ts_operator B = NULL;
  be->ops.mapped_apply = NULL;
  refused(ts_operator_create_mapped(be, dofs, NULL, TS_DOUBLE, &B), TS_ERR_UNSUPPORTED, "no kernel",
          "backend does not implement the operator on mapped cells", NULL);
  be->ops.mapped_apply = kernel;
  ts_operator_destroy(&J);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x0);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&boxdofs);
  ts_dofs_destroy(&dofs);
  ts_mesh_destroy(&box);
  ts_mesh_destroy(&kershaw);
  ts_fe_destroy(&fe);
  ts_fe_destroy(&rt);
}

int main(void) {
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= 4; ++k) identity_map(dim, k, 0);
  for (int dim = 2; dim <= 3; ++dim) identity_map(dim, 2, 1);
  precision_and_threads();
  const int coarse[3] = {6, 2, 2};
  ts_mesh meshes[5];
  const char *names[5] = {"2D Kershaw 0.3", "3D Kershaw 0.3", "2D annulus sector", "3D shell sector",
                          "3D sine"};
  ts_mesh_create_kershaw(2, coarse, 1, 0.3, &meshes[0]);
  ts_mesh_create_kershaw(3, coarse, 1, 0.3, &meshes[1]);
  ts_mesh_create_shell(2, coarse, 1, 1.0, 2.0, 2.0, &meshes[2]);
  ts_mesh_create_shell(3, coarse, 1, 1.0, 2.0, 1.2, &meshes[3]);
  ts_mesh_create_sine(3, coarse, 1, 0.05, &meshes[4]);
  for (int i = 0; i < 5; ++i)
    for (int k = 1; k <= 3; k += 2) properties(names[i], meshes[i], k);
  for (int i = 0; i < 2; ++i)
    for (int k = 2; k <= 3; ++k) exact_linear(names[i], meshes[i], k);
  for (int i = 0; i < 5; ++i) ts_mesh_destroy(&meshes[i]);
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= 2; ++k) jump(dim, k);
  refusals();
  ts_backend_destroy(&be);
  done_testing();
  return exit_status();
}
