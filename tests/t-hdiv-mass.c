/* t-hdiv-mass.c -- the matrix-free H(div) mass M_beta of paper 003, sections 2-3
 * (ts_operator_create_hdiv_mass), with beta per cell from 0.5 to 500:
 * - on the box, RT_k in the interpolation-histopolation basis equals the assembled
 *   ts_matrix_assemble_mass (M x for random x and the diagonal, 1e-13 relative), 2D and 3D,
 *   k = 0..4; the plain RT_k basis through the change of basis T (the IH DoFs of a field from
 *   its nodal ones): y^T M_RT x = (T y)^T M_IH (T x);
 * - on Kershaw's mesh (epsilon 0.3), a mesh of skewed multilinear cells (ts_mesh_create_vertices)
 *   and the sine mesh (Q_k geometry), both bases: symmetric (x^T M y = y^T M x), positive,
 *   the diagonal (ts_operator_diagonal) equals e_i^T M e_i, and on the multilinear meshes
 *   u^T M u = int beta |U|^2 = |U|^2 sum_K beta_K |K| for the Piola image of a constant field
 *   U, whose DoFs are computed here from the cells' vertices (u^ = adj(J) U, which lies in
 *   RT_0 in 2D and RT_1 in 3D; det J, the integrand, is then integrated exactly);
 * - the refusals of bad arguments.
 * Backend-generic: TESSERA_TEST_BACKEND (t-gpu-check.sh runs it on every GPU backend). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "expect-error.h"
#include "tessera-impl.h"

static ts_backend backend;

enum { BOX, KERSHAW, SKEWED, SINE };
static const char *const mesh_names[] = {"box", "Kershaw 0.3", "skewed cells", "sine (Q_k geometry)"};

/* The skewed multilinear cells: 3 x 2 (x 2) cells of [0,1.5] x [0,1] (x [0,1]) with every
 * vertex moved by a fixed pattern (no two cells alike). */
static void skewed_vertices(int dim, const int *coarse, double *v) {
  const int n0 = coarse[0] + 1, n1 = coarse[1] + 1, n2 = dim == 3 ? coarse[2] + 1 : 1;
  for (int i2 = 0, p = 0; i2 < n2; ++i2)
    for (int i1 = 0; i1 < n1; ++i1)
      for (int i0 = 0; i0 < n0; ++i0, ++p) {
        const int i[3] = {i0, i1, i2};
        for (int d = 0; d < dim; ++d)
          v[p * dim + d] = 0.5 * i[d] + 0.12 * sin(1.7 * i0 + 2.3 * i1 + 3.1 * i2 + d);
      }
}

/* 3 x 2 (x 2) cells; Kershaw's mesh 6 x 2 (x 2) (its map has kinks at x_0 = j/6) */
static int make_mesh(int dim, int kind, ts_mesh *mesh) {
  static const int coarse[3] = {3, 2, 2}, coarse_kershaw[3] = {6, 2, 2};
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 2, 1};
  double vertices[4 * 3 * 3 * 3];
  switch (kind) {
    case BOX: return ts_mesh_create_box(dim, lower, upper, coarse, 0, mesh);
    case KERSHAW: return ts_mesh_create_kershaw(dim, coarse_kershaw, 0, 0.3, mesh);
    case SKEWED:
      skewed_vertices(dim, coarse, vertices);
      return ts_mesh_create_vertices(dim, coarse, 0, vertices, mesh);
    default: return ts_mesh_create_sine(dim, coarse, 0, 0.05, mesh);
  }
}

/* beta per cell from 0.5 to 500 (a fixed pattern) */
static void make_beta(int64_t cells, double *beta) {
  for (int64_t c = 0; c < cells; ++c) beta[c] = 0.5 * pow(1000.0, (double)((c * 7) % 11) / 10.0);
}

/* ---------------------------------------------------------------- host helpers */

static double dot(int64_t n, const double *a, const double *b) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

static double relative_difference(int64_t n, const double *a, const double *b) {
  double diff = 0.0, norm = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return sqrt(diff / norm);
}

/* y = A x for host arrays through the backend */
static int apply_host(ts_operator A, const double *x, double *y) {
  const int64_t n = ts_operator_size(A);
  ts_vec vx = NULL, vy = NULL;
  int ierr = ts_vec_create(backend, n, TS_DOUBLE, &vx);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &vy);
  if (!ierr) ierr = ts_vec_set_from_host(vx, x);
  if (!ierr) ierr = ts_operator_apply(A, vx, vy);
  if (!ierr) ierr = ts_vec_get_to_host(vy, y);
  ts_vec_destroy(&vx);
  ts_vec_destroy(&vy);
  return ierr;
}

static int diagonal_host(ts_operator A, double *d) {
  ts_vec vd = NULL;
  int ierr = ts_vec_create(backend, ts_operator_size(A), TS_DOUBLE, &vd);
  if (!ierr) ierr = ts_operator_diagonal(A, vd);
  if (!ierr) ierr = ts_vec_get_to_host(vd, d);
  ts_vec_destroy(&vd);
  return ierr;
}

static void random_host(int64_t n, unsigned seed, double *x) {
  srand(seed);
  for (int64_t i = 0; i < n; ++i) x[i] = 2.0 * rand() / RAND_MAX - 1.0;
}

/* ---------------------------------------------------------------- the box */

/* x = T x for one component block (extents n[3], cells of k1 DoFs across): the IH DoFs of the
 * nodal ones, in every direction d != c C[s][r] = int_{gl_s}^{gl_s+1} L_r (L: Lagrange at the
 * Gauss points); the normal direction interpolates at the Gauss-Lobatto points in both. */
static void change_component(const int64_t *n, int c, int dim, int k1, const double *C, double *x) {
  double line[64], out[64];
  for (int d = 0; d < dim; ++d) {
    if (d == c) continue;
    const int64_t stride = d == 0 ? 1 : d == 1 ? n[0] : n[0] * n[1];
    for (int64_t base = 0; base < n[0] * n[1] * n[2]; ++base) {
      if ((base / stride) % n[d]) continue; /* the first entry of a line along d */
      for (int64_t cell = 0; cell < n[d] / k1; ++cell) {
        for (int r = 0; r < k1; ++r) line[r] = x[base + (cell * k1 + r) * stride];
        for (int s = 0; s < k1; ++s) {
          out[s] = 0.0;
          for (int r = 0; r < k1; ++r) out[s] += C[s * k1 + r] * line[r];
        }
        for (int s = 0; s < k1; ++s) x[base + (cell * k1 + s) * stride] = out[s];
      }
    }
  }
}

/* C[s][r] = int over Gauss-Lobatto sub-interval s of the Gauss-point Lagrange polynomial r */
static void change_table(int k, double *C) {
  const int k1 = k + 1;
  double gl[16], gp[16], w[16], x[16], values[256];
  ts_gauss_lobatto_rule(k + 2, gl, w);
  ts_gauss_rule(k1, gp, w);
  double q[16], qw[16];
  ts_gauss_rule(k1, q, qw);
  for (int s = 0; s < k1; ++s) {
    const double a = gl[s], h = gl[s + 1] - a;
    for (int p = 0; p < k1; ++p) x[p] = a + h * q[p];
    ts_lagrange_tabulate(k1, gp, k1, x, values, NULL);
    for (int r = 0; r < k1; ++r) {
      C[s * k1 + r] = 0.0;
      for (int p = 0; p < k1; ++p) C[s * k1 + r] += h * qw[p] * values[p * k1 + r];
    }
  }
}

static void change_all(ts_dofs dofs, const double *C, double *x) {
  for (int c = 0; c < dofs->dim; ++c)
    change_component(dofs->comp_n[c], c, dofs->dim, dofs->degree + 1, C, x + dofs->comp_offset[c]);
}

/* M x and diag(M) against the assembled matrix (IH), and the plain basis through T. */
static void test_box(int dim, int k) {
  ts_mesh mesh = NULL;
  ts_fe ih = NULL, rt = NULL;
  ts_dofs dofs_ih = NULL, dofs_rt = NULL;
  ts_matrix A = NULL;
  ts_operator M_ih = NULL, M_rt = NULL, Aop = NULL;
  double beta[12];
  make_beta(12, beta);
  int ierr = make_mesh(dim, BOX, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &ih);
  if (!ierr) ierr = ts_fe_create_rt(dim, k, &rt);
  if (!ierr) ierr = ts_dofs_create(mesh, ih, 0, &dofs_ih);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &dofs_rt);
  if (!ierr) ierr = ts_matrix_assemble_mass(dofs_ih, 1.0, beta, &A);
  if (!ierr) ierr = ts_operator_create_matrix(backend, A, TS_DOUBLE, &Aop);
  if (!ierr) ierr = ts_operator_create_hdiv_mass(backend, dofs_ih, beta, &M_ih);
  if (!ierr) ierr = ts_operator_create_hdiv_mass(backend, dofs_rt, beta, &M_rt);
  if (ierr) diag("setup: %s", ts_error_message());
  const int64_t n = ierr ? 1 : ts_dofs_count(dofs_ih);
  double *x = calloc(6 * (size_t)n, sizeof *x), *y = x + n, *z = y + n, *tx = z + n, *ty = tx + n,
         *w = ty + n;
  random_host(n, 11 + k, x);
  random_host(n, 23 + k, y);
  ierr = ierr || apply_host(M_ih, x, z) || apply_host(Aop, x, w);
  double e = ierr ? INFINITY : relative_difference(n, z, w);
  ok(e <= 1e-13, "%dD box k = %d: matrix-free M_beta x = assembled M_beta x: %.2e <= 1e-13", dim,
     k, e);
  ierr = ierr || diagonal_host(M_ih, z) || diagonal_host(Aop, w);
  e = ierr ? INFINITY : relative_difference(n, z, w);
  ok(e <= 1e-13, "%dD box k = %d: diagonal = the assembled one: %.2e <= 1e-13", dim, k, e);
  /* plain RT_k: y^T M_RT x = (T y)^T M_IH (T x) */
  double C[256];
  change_table(k, C);
  memcpy(tx, x, sizeof *x * n);
  memcpy(ty, y, sizeof *y * n);
  if (!ierr) {
    change_all(dofs_rt, C, tx);
    change_all(dofs_rt, C, ty);
  }
  ierr = ierr || apply_host(M_rt, x, z) || apply_host(M_ih, tx, w);
  const double plain = dot(n, y, z), mapped = dot(n, ty, w), xMx = dot(n, x, z);
  ierr = ierr || apply_host(M_rt, y, z);
  const double yMy = dot(n, y, z);
  e = ierr ? INFINITY : fabs(plain - mapped) / sqrt(xMx * yMy);
  ok(e <= 1e-13, "%dD box k = %d: plain RT_k basis, y^T M x = (T y)^T M_IH (T x): %.2e <= 1e-13 "
     "(relative to sqrt(x^T M x y^T M y))", dim, k, e);
  free(x);
  ts_operator_destroy(&M_ih);
  ts_operator_destroy(&M_rt);
  ts_operator_destroy(&Aop);
  ts_matrix_destroy(&A);
  ts_dofs_destroy(&dofs_ih);
  ts_dofs_destroy(&dofs_rt);
  ts_fe_destroy(&ih);
  ts_fe_destroy(&rt);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- mapped cells */

/* The 2^dim vertices of a cell (corner v = v_0 + 2 v_1 + 4 v_2) from the Q_1 DoFs' points. */
static int cell_vertices(ts_dofs q1, const int64_t *cell, double *X) {
  const int dim = q1->dim;
  for (int v = 0; v < (1 << dim); ++v) {
    int64_t index = 0, stride = 1;
    for (int d = 0; d < dim; ++d) {
      index += (cell[d] + (v >> d & 1)) * stride;
      stride *= q1->cells[d] + 1;
    }
    TS_CALL(ts_dofs_point(q1, index, X + v * dim));
  }
  return 0;
}

/* J[i][d] = dx_i / dxi_d of the multilinear cell at xi; returns det J. */
static double multilinear_jacobian(int dim, const double *X, const double *xi, double *J) {
  for (int i = 0; i < dim * dim; ++i) J[i] = 0.0;
  for (int v = 0; v < (1 << dim); ++v)
    for (int d = 0; d < dim; ++d) {
      double f = 1.0;
      for (int e = 0; e < dim; ++e) {
        const int up = v >> e & 1;
        f *= e == d ? (up ? 1.0 : -1.0) : (up ? xi[e] : 1.0 - xi[e]);
      }
      for (int i = 0; i < dim; ++i) J[i * dim + d] += f * X[v * dim + i];
    }
  if (dim == 2) return J[0] * J[3] - J[1] * J[2];
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}

/* (adj(J) U)_c = det J (J^{-1} U)_c: component c of the reference field of the constant U. */
static double reference_component(int dim, const double *X, const double *xi, const double *U, int c) {
  double J[9];
  multilinear_jacobian(dim, X, xi, J);
  if (dim == 2) return c == 0 ? J[3] * U[0] - J[1] * U[1] : -J[2] * U[0] + J[0] * U[1];
  const int a = (c + 1) % 3, b = (c + 2) % 3; /* U . (column a x column b) */
  double s = 0.0;
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    s += U[i] * (J[i1 * 3 + a] * J[i2 * 3 + b] - J[i2 * 3 + a] * J[i1 * 3 + b]);
  }
  return s;
}

/* The DoFs of the Piola image of the constant U and sum_K beta_K |K| (|K| by the 3-point Gauss
 * rule per direction: det J has degree <= 2 per direction). */
static int constant_field(ts_dofs dofs, ts_dofs q1, const double *beta, const double *U,
                          double *u, double *weighted_volume) {
  const int dim = dofs->dim, k = dofs->degree, k1 = k + 1, ih = dofs->fe->family == TS_FE_RT_IH;
  double gl[16], gp[16], w[16], q[3], qw[3], X[24], J[9];
  TS_CALL(ts_gauss_lobatto_rule(k + 2, gl, w));
  TS_CALL(ts_gauss_rule(k1, gp, w));
  TS_CALL(ts_gauss_rule(3, q, qw));
  const int tangential_points = dim == 3 ? 9 : 3;
  for (int64_t i = 0; i < dofs->count; ++i) {
    int64_t a[3] = {0, 0, 0}, cell[3] = {0, 0, 0};
    const int c = ts_dof_position(dofs, i, a);
    double xi[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, width[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) {
      cell[d] = a[d] / k1 < dofs->cells[d] ? a[d] / k1 : dofs->cells[d] - 1;
      const int r = (int)(a[d] - cell[d] * k1);
      xi[d] = d == c ? gl[r] : gp[r];
      lo[d] = gl[r];
      width[d] = gl[r + 1 < k + 2 ? r + 1 : r] - gl[r];
    }
    TS_CALL(cell_vertices(q1, cell, X));
    if (!ih) {
      u[i] = reference_component(dim, X, xi, U, c);
      continue;
    }
    u[i] = 0.0; /* the flux through the sub-face: the integral over its tangential sub-intervals */
    for (int p = 0; p < tangential_points; ++p) {
      double weight = 1.0;
      for (int d = 0, m = p; d < dim; ++d) {
        if (d == c) continue;
        xi[d] = lo[d] + width[d] * q[m % 3];
        weight *= width[d] * qw[m % 3];
        m /= 3;
      }
      u[i] += weight * reference_component(dim, X, xi, U, c);
    }
  }
  *weighted_volume = 0.0;
  for (int64_t K = 0; K < ts_cell_count(dofs); ++K) {
    int64_t cell[3] = {0, 0, 0};
    ts_cell_from_index(dofs, K, cell);
    TS_CALL(cell_vertices(q1, cell, X));
    for (int p = 0; p < (dim == 3 ? 27 : 9); ++p) {
      double xi[3], weight = beta[K];
      for (int d = 0, m = p; d < dim; ++d, m /= 3) {
        xi[d] = q[m % 3];
        weight *= qw[m % 3];
      }
      *weighted_volume += weight * multilinear_jacobian(dim, X, xi, J);
    }
  }
  return 0;
}

/* Symmetry, positivity, the diagonal against e_i^T M e_i and (multilinear cells) the energy of
 * the constant field, on one mapped mesh. */
static void test_mapped(int dim, int kind, int k, int ih) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL, q = NULL;
  ts_dofs dofs = NULL, q1 = NULL;
  ts_operator M = NULL;
  double beta[24];
  make_beta(24, beta);
  int ierr = make_mesh(dim, kind, &mesh);
  if (!ierr) ierr = ih ? ts_fe_create_rt_ih(dim, k, &fe) : ts_fe_create_rt(dim, k, &fe);
  if (!ierr) ierr = ts_fe_create_q(dim, 1, &q);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  if (!ierr) ierr = ts_dofs_create(mesh, q, 0, &q1);
  if (!ierr) ierr = ts_operator_create_hdiv_mass(backend, dofs, beta, &M);
  if (ierr) diag("setup: %s", ts_error_message());
  const char *basis = ih ? "RT_k IH" : "RT_k";
  const int64_t n = ierr ? 1 : ts_dofs_count(dofs);
  double *x = calloc(5 * (size_t)n, sizeof *x), *y = x + n, *Mx = y + n, *My = Mx + n, *d = My + n;
  random_host(n, 31 + k, x);
  random_host(n, 37 + k, y);
  ierr = ierr || apply_host(M, x, Mx) || apply_host(M, y, My);
  const double xMy = dot(n, x, My), yMx = dot(n, y, Mx), xMx = dot(n, x, Mx), yMy = dot(n, y, My);
  const double asym = ierr ? INFINITY : fabs(xMy - yMx) / sqrt(xMx * yMy);
  ok(asym <= 1e-13, "%dD %s k = %d %s: symmetric, |x^T M y - y^T M x| / sqrt(x^T M x y^T M y) = "
     "%.2e <= 1e-13", dim, mesh_names[kind], k, basis, asym);
  ok(!ierr && xMx > 0.0 && yMy > 0.0, "%dD %s k = %d %s: positive, x^T M x = %.3e", dim,
     mesh_names[kind], k, basis, xMx);
  /* the diagonal: e_i^T M e_i for every DoF (2D), every 7th (3D) */
  ierr = ierr || diagonal_host(M, d);
  double worst = ierr ? INFINITY : 0.0;
  for (int64_t i = 0; !ierr && i < n; i += dim == 3 ? 7 : 1) {
    memset(x, 0, sizeof *x * n);
    x[i] = 1.0;
    ierr = apply_host(M, x, Mx);
    const double e = ierr || !(Mx[i] > 0.0) ? INFINITY : fabs(d[i] - Mx[i]) / Mx[i];
    if (e > worst) worst = e;
  }
  ok(worst <= 1e-13, "%dD %s k = %d %s: diagonal = e_i^T M e_i: %.2e <= 1e-13", dim,
     mesh_names[kind], k, basis, worst);
  /* the constant field U: u^T M u = |U|^2 sum_K beta_K |K| (multilinear cells, U in RT_k) */
  if (kind != SINE && (dim == 2 || k >= 1)) {
    const double U[3] = {0.7, -1.3, 0.4};
    double volume = 0.0;
    ierr = ierr || constant_field(dofs, q1, beta, U, x, &volume) || apply_host(M, x, Mx);
    const double exact = dot(dim, U, U) * volume, e = ierr ? INFINITY : fabs(dot(n, x, Mx) - exact) / exact;
    ok(e <= 1e-13, "%dD %s k = %d %s: the constant field, u^T M u = int beta |U|^2 = %.6f: %.2e "
       "<= 1e-13", dim, mesh_names[kind], k, basis, exact, e);
  }
  if (ierr) diag("%s", ts_error_message());
  free(x);
  ts_operator_destroy(&M);
  ts_dofs_destroy(&dofs);
  ts_dofs_destroy(&q1);
  ts_fe_destroy(&fe);
  ts_fe_destroy(&q);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- arguments */

static void test_arguments(void) {
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, q = NULL, dg = NULL;
  ts_dofs dofs = NULL, dofs_q = NULL, dofs_dg = NULL;
  ts_operator M = NULL;
  int ierr = make_mesh(3, KERSHAW, &mesh);
  if (!ierr) ierr = ts_fe_create_rt(3, 1, &rt);
  if (!ierr) ierr = ts_fe_create_q(3, 2, &q);
  if (!ierr) ierr = ts_fe_create_l2_ih(3, 1, &dg);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &dofs);
  if (!ierr) ierr = ts_dofs_create(mesh, q, 0, &dofs_q);
  if (!ierr) ierr = ts_dofs_create(mesh, dg, 0, &dofs_dg);
  if (ierr) diag("%s", ts_error_message());
  expect_error(ts_operator_create_hdiv_mass(backend, NULL, NULL, &M), TS_ERR_ARG, "'dofs' is NULL",
               "NULL dofs");
  expect_error(ts_operator_create_hdiv_mass(NULL, dofs, NULL, &M), TS_ERR_ARG, "'backend' is NULL",
               "NULL backend");
  expect_error(ts_operator_create_hdiv_mass(backend, dofs, NULL, NULL), TS_ERR_ARG, "'M' is NULL",
               "NULL M");
  expect_error(ts_operator_create_hdiv_mass(backend, dofs_q, NULL, &M), TS_ERR_ARG,
               "Q_k element; allowed RT_k", "Q_k DoFs");
  expect_error(ts_operator_create_hdiv_mass(backend, dofs_dg, NULL, &M), TS_ERR_ARG,
               "DGQ_k element; allowed RT_k", "DGQ_k DoFs");
  double beta[24];
  for (int c = 0; c < 24; ++c) beta[c] = c == 5 ? -1.0 : c == 7 ? NAN : 1.0;
  expect_error(ts_operator_create_hdiv_mass(backend, dofs, beta, &M), TS_ERR_ARG, "beta[5]",
               "a negative beta of cell 5");
  beta[5] = 1.0;
  expect_error(ts_operator_create_hdiv_mass(backend, dofs, beta, &M), TS_ERR_ARG, "beta[7]",
               "a NaN beta of cell 7");
  ok(M == NULL, "no operator after a refusal");
  /* RT_k DoFs exist on mapped meshes for this operator and the H(div) systems
   * (tests/t-darcy-mapped.c); the box-only Stokes operator refuses them */
  ts_fe dgq = NULL;
  ts_dofs dofs_p = NULL;
  ierr = ts_fe_create_dgq(3, 1, &dgq);
  if (!ierr) ierr = ts_dofs_create(mesh, dgq, 0, &dofs_p);
  if (ierr) diag("%s", ts_error_message());
  expect_error(ts_operator_create_stokes(backend, dofs, dofs_p, 1.0, TS_DOUBLE, &M), TS_ERR_ARG,
               "mapped mesh; it takes a box mesh", "the Stokes operator on RT_k DoFs of a mapped mesh");
  double b[8];
  expect_error(ts_stokes_assemble_rhs(dofs, dofs_p, &(ts_stokes_solution){0}, b), TS_ERR_ARG,
               "mapped mesh; it takes a box mesh", "the Stokes right side on a mapped mesh");
  ok(M == NULL, "no Stokes operator on the mapped mesh");
  ts_dofs_destroy(&dofs_p);
  ts_fe_destroy(&dgq);
  ts_dofs_destroy(&dofs);
  ts_dofs_destroy(&dofs_q);
  ts_dofs_destroy(&dofs_dg);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&q);
  ts_fe_destroy(&dg);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  if (ts_backend_open(tap_backend(), &backend)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 0; k <= 4; ++k) test_box(dim, k);
  for (int dim = 2; dim <= 3; ++dim)
    for (int kind = KERSHAW; kind <= SINE; ++kind)
      for (int k = 0; k <= 3; ++k)
        for (int ih = 0; ih <= 1; ++ih) test_mapped(dim, kind, k, ih);
  test_arguments();
  done_testing();
  ts_backend_destroy(&backend);
  return exit_status();
}
