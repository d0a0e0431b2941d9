/* t-hdiv-schur.c -- the approximate Schur complement of paper 003 (eqs. 15-16) and what it is
 * made of.  Sparse algebra against dense products: transpose, product (rectangular, with
 * cancellation), row and column scaling, adding to the diagonal (and refusing a row that
 * stores none).  The 1D histopolation mass reproduces int p q for polynomials of degree n-2.
 * The mass diagonals of RT_k and DGQ_k in the interpolation-histopolation bases against
 * quadrature of the basis functions, each scaled here so that its own DoF (flux or integral,
 * computed in physical coordinates) is 1: k = 0..3, 2D and 3D, unequal cell sizes, faces
 * shared by two cells.  S~: symmetric, an M-matrix with at most 2 dim off-diagonal entries
 * per row, S~ 1 = diag(W)^{-1} 1 exactly where the boundary fluxes are fixed.  CG with one
 * BoomerAMG V-cycle on S~ (hypre builds only): iterations bounded over four refinements
 * (2D RT_2 levels 0..4: 3 4 5 6 7; levels 5 and 6, measured once: 7 and 7).
 * Backend-generic: TESSERA_TEST_BACKEND (default omp). */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "ih-grid.h"
#include "cg-count.h"

/* ---------------------------------------------------------------- sparse algebra */

/* the dense rows x cols image of A */
static void dense(ts_matrix A, double *a) {
  const int64_t *offsets, *columns;
  const double *values;
  ts_matrix_csr(A, &offsets, &columns, &values);
  const int64_t cols = ts_matrix_columns(A);
  for (int64_t i = 0; i < ts_matrix_rows(A) * cols; ++i) a[i] = 0.0;
  for (int64_t i = 0; i < ts_matrix_rows(A); ++i)
    for (int64_t e = offsets[i]; e < offsets[i + 1]; ++e) a[i * cols + columns[e]] = values[e];
}

static int sorted_rows(ts_matrix A) {
  const int64_t *offsets, *columns;
  const double *values;
  ts_matrix_csr(A, &offsets, &columns, &values);
  for (int64_t i = 0; i < ts_matrix_rows(A); ++i)
    for (int64_t e = offsets[i] + 1; e < offsets[i + 1]; ++e)
      if (columns[e] <= columns[e - 1]) return 0;
  return 1;
}

static void test_algebra(void) {
  /* A: 3 x 4, B: 4 x 3 with A B (0, 1) cancelling to an explicit zero */
  static const int64_t ar[6] = {0, 0, 1, 2, 2, 2}, ac[6] = {0, 3, 1, 0, 2, 3};
  static const double av[6] = {2.0, 1.0, -1.0, 0.5, 4.0, -3.0};
  static const int64_t br[6] = {0, 0, 1, 2, 3, 3}, bc[6] = {1, 2, 0, 2, 1, 0};
  static const double bv[6] = {1.0, 2.0, 3.0, -1.0, -2.0, 1.5};
  ts_matrix A = NULL, B = NULL, C = NULL, T = NULL;
  double a[12], b[12], c[9], t[12];
  int ierr = ts_matrix_create_triplets(3, 4, 6, ar, ac, av, &A);
  if (!ierr) ierr = ts_matrix_create_triplets(4, 3, 6, br, bc, bv, &B);
  if (!ierr) ierr = ts_matrix_multiply(A, B, &C);
  if (!ierr) ierr = ts_matrix_transpose(A, &T);
  if (!ok(!ierr, "algebra: product and transpose made")) {
    diag("%s", ts_error_message());
    return;
  }
  dense(A, a);
  dense(B, b);
  dense(C, c);
  dense(T, t);
  int same = ts_matrix_rows(C) == 3 && ts_matrix_columns(C) == 3 && sorted_rows(C);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 3 + j];
      same &= c[i * 3 + j] == s;
    }
  ok(same, "algebra: A B equals the dense product exactly, rows sorted (%lld entries)",
     (long long)ts_matrix_nonzeros(C));
  int transposed = ts_matrix_rows(T) == 4 && ts_matrix_columns(T) == 3 && sorted_rows(T);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) transposed &= t[j * 3 + i] == a[i * 4 + j];
  ok(transposed, "algebra: A^T exact, rows sorted");
  const double rs[3] = {2.0, -1.0, 0.5}, cs[4] = {1.0, 3.0, -2.0, 0.25};
  ierr = ts_matrix_scale(A, rs, cs);
  double s[12];
  dense(A, s);
  int scaled = !ierr;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) scaled &= s[i * 4 + j] == rs[i] * a[i * 4 + j] * cs[j];
  ok(scaled, "algebra: diag(r) A diag(c) exact");
  const double d[3] = {1.0, 2.0, -0.5}, zero_middle[3] = {1.0, 0.0, -0.5};
  double before[9], after[9];
  dense(C, before);
  ierr = ts_matrix_add_diagonal(C, d);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "row 1 stores no diagonal"),
     "algebra: adding to a diagonal entry that is not stored is refused, naming the row");
  ierr = ts_matrix_add_diagonal(C, zero_middle);
  dense(C, after);
  int added = !ierr;
  for (int i = 0; i < 9; ++i) added &= after[i] == before[i] + (i % 4 == 0 ? zero_middle[i / 4] : 0.0);
  ok(added, "algebra: A + diag(d) where the diagonal is stored (d = 0 elsewhere)");
  ts_matrix misfit = NULL;
  ok(ts_matrix_multiply(A, A, &misfit) == TS_ERR_ARG && misfit == NULL &&
         strstr(ts_error_message(), "A's columns must be B's rows"),
     "algebra: a product of misfit sizes is refused");
  const double bad[4] = {1.0, NAN, 1.0, 1.0};
  ok(ts_matrix_scale(A, NULL, bad) == TS_ERR_ARG && strstr(ts_error_message(), "'column_scale': entry 1"),
     "algebra: a non-finite scale is refused, naming the entry");
  ts_matrix_destroy(&A);
  ts_matrix_destroy(&B);
  ts_matrix_destroy(&C);
  ts_matrix_destroy(&T);
}

/* ---------------------------------------------------------------- 1D histopolation mass */

static void test_histopolation_mass(void) {
  for (int n = 2; n <= TS_MAX_DEGREE + 2; n += 3) {
    double nodes[TS_MAX_POINTS], w[TS_MAX_POINTS], m[TS_MAX_POINTS * TS_MAX_POINTS];
    double p[TS_MAX_POINTS], q[TS_MAX_POINTS], qp[TS_MAX_POINTS], qw[TS_MAX_POINTS];
    ts_gauss_lobatto_rule(n, nodes, w);
    int ierr = ts_histopolation_mass(n, nodes, m);
    /* p = x^(n-2), q = 1 - x: their sub-interval integrals, and int_0^1 p q exactly */
    for (int i = 0; i + 1 < n; ++i) {
      const double a = nodes[i], b = nodes[i + 1];
      p[i] = (pow(b, n - 1) - pow(a, n - 1)) / (n - 1);
      q[i] = (b - a) - 0.5 * (b * b - a * a);
    }
    ts_gauss_rule(n, qp, qw);
    long double exact = 0.0L, discrete = 0.0L;
    for (int k = 0; k < n; ++k) exact += (long double)qw[k] * pow(qp[k], n - 2) * (1.0 - qp[k]);
    for (int i = 0; i + 1 < n; ++i)
      for (int j = 0; j + 1 < n; ++j) discrete += (long double)p[i] * m[i * (n - 1) + j] * q[j];
    const double error = fabs((double)(discrete - exact)) / fabs((double)exact);
    ok(!ierr && error < 1e-13, "1D histopolation mass, %2d points: p^T M q = int p q for degree "
       "%d (relative error %.1e)", n, n - 2, error);
  }
}

/* ---------------------------------------------------------------- mass diagonals */

/* The reference shape of a DoF along direction d: the histopolation function b of the
 * sub-intervals, or (interpolating) the Lagrange polynomial a of the nodes. */
static double shape_1d(const grid *g, int interpolating, int index, double xi) {
  double v[TS_MAX_POINTS], dv[TS_MAX_POINTS];
  if (interpolating) {
    ts_lagrange_eval(g->k + 2, g->gl, xi, v, dv);
    return v[index];
  }
  ts_histopolation_eval(g->k + 2, g->gl, xi, v);
  return v[index];
}

/* One DoF: in which cells it lives (1 or 2) with its local 1D indices there.  Component c
 * (-1: the L2 space) at block position a. */
typedef struct dof_shape {
  int c, cells_count;
  int64_t cell[2][3];
  int local[2][3];
} dof_shape;

static void locate(const grid *g, int c, const int64_t *a, dof_shape *s) {
  const int k1 = g->k + 1;
  s->c = c;
  s->cells_count = 0;
  for (int side = 0; side < 2; ++side) {
    int64_t cell[3] = {0, 0, 0};
    int local[3] = {0, 0, 0}, inside = 1;
    for (int d = 0; d < g->dim; ++d) {
      cell[d] = a[d] / k1;
      local[d] = (int)(a[d] % k1);
      if (d == c && side == 1) { /* the same face as the right end of the cell before */
        inside = local[d] == 0 && cell[d] > 0;
        cell[d] -= 1;
        local[d] = k1;
      }
      if (d == c && side == 0) inside &= cell[d] < g->cells[d];
    }
    if (c < 0 && side == 1) inside = 0;
    if (!inside) continue;
    for (int d = 0; d < 3; ++d) {
      s->cell[s->cells_count][d] = cell[d];
      s->local[s->cells_count][d] = local[d];
    }
    s->cells_count++;
  }
}

/* the unscaled reference function of the DoF in cell number `which` of s at xi */
static double reference_value(const grid *g, const dof_shape *s, int which, const double *xi) {
  double v = 1.0;
  for (int d = 0; d < g->dim; ++d) v *= shape_1d(g, d == s->c, s->local[which][d], xi[d]);
  return v;
}

/* Gauss points (6 per direction) of [0,1]^dim: the count and, per point, xi and weight. */
static int reference_points(int dim, double (*xi)[3], double *w) {
  double x[6], wx[6];
  ts_gauss_rule(6, x, wx);
  int n = 0;
  for (int q2 = 0; q2 < (dim == 3 ? 6 : 1); ++q2)
    for (int q1 = 0; q1 < 6; ++q1)
      for (int q0 = 0; q0 < 6; ++q0, ++n) {
        xi[n][0] = x[q0];
        xi[n][1] = x[q1];
        xi[n][2] = dim == 3 ? x[q2] : 0.0;
        w[n] = wx[q0] * wx[q1] * (dim == 3 ? wx[q2] : 1.0);
      }
  return n;
}

/* The DoF of the unscaled function in physical coordinates: its flux through its sub-face
 * (the face xi_c = gl[local] of the first cell; sub-interval [gl[b], gl[b+1]] across), or
 * its integral over its sub-cell. */
static double own_dof(const grid *g, const dof_shape *s) {
  double x[6], wx[6], flux = 0.0;
  ts_gauss_rule(6, x, wx);
  const int *loc = s->local[0];
  for (int q2 = 0; q2 < (g->dim == 3 ? 6 : 1); ++q2)
    for (int q1 = 0; q1 < 6; ++q1)
      for (int q0 = 0; q0 < 6; ++q0) {
        const int q[3] = {q0, q1, q2};
        double xi[3] = {0, 0, 0}, weight = 1.0;
        for (int d = 0; d < g->dim; ++d) {
          if (d == s->c) {
            if (q[d] > 0) goto next; /* one point across a face */
            xi[d] = g->gl[loc[d]];
            continue;
          }
          const double a = g->gl[loc[d]], b = g->gl[loc[d] + 1];
          xi[d] = a + (b - a) * x[q[d]];
          weight *= wx[q[d]] * (b - a) * g->h[d]; /* physical length */
        }
        flux += weight * reference_value(g, s, 0, xi);
      next:;
      }
  return flux;
}

/* int coefficient phi^2 over the DoF's cells, phi the unscaled function (the Piola factors
 * of a Cartesian cell: the field's component c scales with 1 / prod_{d != c} h_d, an L2
 * function with 1 / prod h_d; the unscaled function's flux or integral is then fixed by
 * own_dof) */
static double energy(const grid *g, const dof_shape *s, double coefficient, int n,
                     double (*xi)[3], const double *w) {
  double volume = 1.0;
  for (int d = 0; d < g->dim; ++d) volume *= g->h[d];
  double e = 0.0;
  for (int which = 0; which < s->cells_count; ++which)
    for (int q = 0; q < n; ++q) {
      const double v = reference_value(g, s, which, xi[q]);
      e += coefficient * w[q] * volume * v * v;
    }
  return e;
}

/* the largest relative difference of the library's diagonal from quadrature, over all DoFs */
static double mass_diagonal_error(const grid *g, ts_dofs dofs, int l2, double coefficient) {
  const int64_t count = ts_dofs_count(dofs);
  double *diagonal = malloc((size_t)count * sizeof *diagonal), worst = INFINITY;
  double (*xi)[3] = malloc(216 * sizeof *xi), *w = malloc(216 * sizeof *w);
  const int n = reference_points(g->dim, xi, w);
  if (diagonal && xi && w && !ts_dofs_mass_diagonal(dofs, coefficient, NULL, diagonal)) {
    worst = 0.0;
    int64_t index = 0;
    for (int c = 0; c < (l2 ? 1 : g->dim); ++c) {
      int64_t size[3] = {1, 1, 1}, a[3];
      for (int d = 0; d < g->dim; ++d) size[d] = g->cells[d] * (g->k + 1) + (!l2 && d == c);
      for (a[2] = 0; a[2] < size[2]; ++a[2])
        for (a[1] = 0; a[1] < size[1]; ++a[1])
          for (a[0] = 0; a[0] < size[0]; ++a[0], ++index) {
            dof_shape s;
            locate(g, l2 ? -1 : c, a, &s);
            const double dof = own_dof(g, &s);
            const double want = energy(g, &s, coefficient, n, xi, w) / (dof * dof);
            worst = fmax(worst, fabs(diagonal[index] - want) / want);
          }
    }
  }
  free(diagonal);
  free(xi);
  free(w);
  return worst;
}

static void test_mass_diagonals(int dim, int k) {
  static const double lower[3] = {0.0, -1.0, 0.5}, upper[3] = {3.0, 1.0, 1.0};
  static const int coarse[3] = {2, 1, 2};
  grid g;
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 0, &p);
  if (!ierr) ierr = grid_init(&g, mesh, 0, dim, k, lower, upper);
  const double eu = ierr ? INFINITY : mass_diagonal_error(&g, u, 0, 2.5);
  const double ep = ierr ? INFINITY : mass_diagonal_error(&g, p, 1, 0.75);
  ok(eu < 1e-13, "%dD RT_%d: diag(M_beta) against quadrature of the flux-normalized basis "
     "(max relative error %.1e)", dim, k, eu);
  ok(ep < 1e-13, "%dD DGQ_%d: diag(W_alpha) against quadrature of the integral-normalized "
     "basis (max relative error %.1e)", dim, k, ep);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- S~ */

/* symmetric, positive diagonal, off-diagonals <= 0, at most 2 dim of them per row */
static int m_matrix(ts_matrix S, int dim) {
  const int64_t *offsets, *columns;
  const double *values;
  ts_matrix_csr(S, &offsets, &columns, &values);
  for (int64_t i = 0; i < ts_matrix_rows(S); ++i) {
    int off = 0;
    for (int64_t e = offsets[i]; e < offsets[i + 1]; ++e) {
      const int64_t j = columns[e];
      if (j == i ? values[e] <= 0.0 : values[e] > 0.0) return 0;
      off += j != i && values[e] != 0.0;
      int mirrored = 0; /* S_ji == S_ij */
      for (int64_t f = offsets[j]; f < offsets[j + 1]; ++f)
        mirrored |= columns[f] == i && values[f] == values[e];
      if (!mirrored) return 0;
    }
    if (off > 2 * dim) return 0;
  }
  return 1;
}

/* max_i |(S 1)_i - 1 / W~_ii| / (1 / W~_ii) */
static double row_sum_error(ts_matrix S, ts_dofs p, double alpha) {
  const int64_t n = ts_matrix_rows(S), *offsets, *columns;
  const double *values;
  double *w = malloc((size_t)n * sizeof *w), worst = INFINITY;
  ts_matrix_csr(S, &offsets, &columns, &values);
  if (w && !ts_dofs_mass_diagonal(p, alpha, NULL, w)) {
    worst = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      double s = 0.0, scale = 0.0;
      for (int64_t e = offsets[i]; e < offsets[i + 1]; ++e) {
        s += values[e];
        scale = fmax(scale, fabs(values[e]));
      }
      worst = fmax(worst, fabs(s - 1.0 / w[i]) / scale);
    }
  }
  free(w);
  return worst;
}

/* CG + one BoomerAMG V-cycle on S~ x = 1; iterations or -1 */
static int amg_iterations(ts_backend b, ts_matrix S) {
  ts_operator P = NULL;
  const int ierr = ts_operator_create_boomeramg(b, S, &P);
  if (ierr) diag("%s", ts_error_message());
  const int iterations = ierr ? -1 : cg_count(b, S, P);
  ts_operator_destroy(&P);
  return iterations;
}

static void test_schur(ts_backend b, int dim, int k, int levels) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 2, 1};
  static const int coarse[3] = {1, 2, 1};
  const double alpha = 1e-2, beta = 3.0;
  const ts_hdiv_coefficients k_ab = {alpha, beta, NULL, NULL};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, levels, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  int first = -1, previous = -1, bounded = !ierr, amg = *ts_hypre_version() != '\0';
  char counts[128] = "";
  for (int level = 0; !ierr && level <= levels; ++level) {
    ts_dofs u = NULL, p = NULL;
    ts_matrix S = NULL, S_free = NULL;
    ierr = ts_dofs_create(mesh, rt, level, &u);
    if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
    if (!ierr) ierr = ts_matrix_assemble_hdiv_schur(u, p, &k_ab, TS_FACES_ALL(dim), &S);
    if (!ierr) ierr = ts_matrix_assemble_hdiv_schur(u, p, &k_ab, 0, &S_free);
    if (!ierr && level == levels) {
      ok(m_matrix(S, dim) && m_matrix(S_free, dim),
         "%dD RT_%d level %d: S~ symmetric, an M-matrix, at most %d off-diagonal entries per row "
         "(boundary fluxes fixed and free)", dim, k, level, 2 * dim);
      const double e = row_sum_error(S, p, alpha);
      ok(e < 1e-13, "%dD RT_%d level %d: S~ 1 = diag(W_alpha)^{-1} 1 with the boundary fluxes "
         "fixed (D^T 1 = 0 on interior faces; max error %.1e)", dim, k, level, e);
      ok(row_sum_error(S_free, p, alpha) > 1e-3, "%dD RT_%d level %d: with the boundary fluxes "
         "free the boundary sub-cells' rows sum to more", dim, k, level);
    }
    if (!ierr && amg) {
      const int its = amg_iterations(b, S);
      if (first < 0) first = its;
      bounded &= its > 0 && its <= 10 && (previous < 0 || its <= previous + 2);
      previous = its;
      snprintf(counts + strlen(counts), sizeof counts - strlen(counts), " %d", its);
    }
    ts_matrix_destroy(&S);
    ts_matrix_destroy(&S_free);
    ts_dofs_destroy(&u);
    ts_dofs_destroy(&p);
  }
  if (ierr) {
    ok(0, "%dD RT_%d: S~ assembled on every level", dim, k);
    diag("%s", ts_error_message());
  } else if (amg) {
    ok(bounded, "%dD RT_%d levels 0..%d: CG + BoomerAMG on S~ to 1e-10 in%s iterations (at most "
       "10, growing by at most 2 a level)", dim, k, levels, counts);
  } else {
    skip(1, "built without hypre: no BoomerAMG");
  }
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

static void test_bad_arguments(void) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {1, 1};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL, q = NULL;
  ts_dofs u = NULL, p = NULL, dq = NULL;
  ts_matrix S = NULL;
  double d[64];
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(2, 1, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(2, 1, &l2);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &q);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 0, &p);
  if (!ierr) ierr = ts_dofs_create(mesh, q, 0, &dq);
  ok(!ierr, "bad input: spaces made");
  ok(ts_dofs_mass_diagonal(dq, 1.0, NULL, d) == TS_ERR_ARG &&
         strstr(ts_error_message(), "not of an interpolation-histopolation element"),
     "bad input: the mass diagonal of a Q_k space is refused");
  ok(ts_dofs_mass_diagonal(p, -1.0, NULL, d) == TS_ERR_ARG && strstr(ts_error_message(), "'coefficient' is -1"),
     "bad input: a negative coefficient is refused, naming it");
  ok(ts_matrix_assemble_hdiv_schur(u, p, &(ts_hdiv_coefficients){0.0, 1.0, NULL, NULL}, 0, &S) == TS_ERR_ARG && S == NULL &&
         strstr(ts_error_message(), "alpha = 0"),
     "bad input: alpha = 0 is refused, no matrix made");
  ok(ts_matrix_assemble_hdiv_schur(p, u, &(ts_hdiv_coefficients){1.0, 1.0, NULL, NULL}, 0, &S) == TS_ERR_ARG && S == NULL,
     "bad input: the spaces swapped are refused");
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_dofs_destroy(&dq);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_fe_destroy(&q);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend b = NULL;
  if (ts_backend_open(tap_backend(), &b)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  test_algebra();
  test_histopolation_mass();
  for (int k = 0; k <= 3; ++k) test_mass_diagonals(2, k);
  for (int k = 0; k <= 2; ++k) test_mass_diagonals(3, k);
  test_schur(b, 2, 2, 4);
  test_schur(b, 3, 1, 2);
  test_bad_arguments();
  done_testing();
  ts_backend_destroy(&b);
  return exit_status();
}
