/* t-histopolation.c -- the interpolation-histopolation bases of paper 003 (section 2.1) and
 * the divergence between them.  1D, on the n = 2..11 Gauss-Lobatto points: the histopolation
 * basis integrates to delta_ij over the sub-intervals, reproduces the polynomials of degree
 * n-2 from their sub-interval integrals, and the derivative of an interpolant is the
 * histopolant of its differences (the de Rham property), to round-off.  The elements RT_k
 * and DGQ_k of that family, and D = ts_matrix_assemble_divergence: entries +-1, 2 dim per
 * row, two per column except one for the boundary fluxes, and exact: D applied to the
 * sub-face fluxes of a polynomial field gives the sub-cell integrals of its divergence, on a
 * box with unequal cell sizes, 2D and 3D, several degrees; the same product through the
 * backend's CSR operator (TESSERA_TEST_BACKEND, default omp); on Kershaw's deformed mesh D
 * is the box's matrix (it does not depend on the geometry).  Bad arguments are refused
 * with the argument named. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "ih-grid.h"

/* ---------------------------------------------------------------- 1D */

/* max over i, j of |int_{x_i}^{x_{i+1}} h_j - delta_ij| */
static double histopolation_integral_error(int n, const double *nodes) {
  double worst = 0.0, x[TS_MAX_POINTS], w[TS_MAX_POINTS], h[TS_MAX_POINTS];
  for (int i = 0; i + 1 < n; ++i) {
    gauss_on(n, nodes[i], nodes[i + 1], x, w); /* exact for degree 2n-1 >= n-2 */
    for (int j = 0; j + 1 < n; ++j) {
      long double integral = 0.0L;
      for (int q = 0; q < n; ++q) {
        ts_histopolation_eval(n, nodes, x[q], h);
        integral += (long double)w[q] * h[j];
      }
      worst = fmax(worst, fabs((double)integral - (i == j ? 1.0 : 0.0)));
    }
  }
  return worst;
}

/* the polynomial sum_r c_r x^r of degree `degree` and its integral over [a, b] */
static double poly(const double *c, int degree, double x) {
  double v = 0.0;
  for (int r = degree; r >= 0; --r) v = v * x + c[r];
  return v;
}
static double poly_integral(const double *c, int degree, double a, double b) {
  double v = 0.0;
  for (int r = 0; r <= degree; ++r) v += c[r] * (pow(b, r + 1) - pow(a, r + 1)) / (r + 1);
  return v;
}

/* the histopolant of a polynomial of degree n-2 from its sub-interval integrals, against
 * the polynomial at points inside and at the ends; relative to its largest value */
static double reproduction_error(int n, const double *nodes) {
  double c[TS_MAX_POINTS], dofs[TS_MAX_POINTS], h[TS_MAX_POINTS], worst = 0.0, size = 0.0;
  for (int r = 0; r <= n - 2; ++r) c[r] = 1.0 / (1.0 + r) * ((r & 1) ? -1.0 : 1.0) + 0.25 * r;
  for (int i = 0; i + 1 < n; ++i) dofs[i] = poly_integral(c, n - 2, nodes[i], nodes[i + 1]);
  for (int t = 0; t <= 16; ++t) {
    const double x = t / 16.0;
    ts_histopolation_eval(n, nodes, x, h);
    long double v = 0.0L;
    for (int i = 0; i + 1 < n; ++i) v += (long double)dofs[i] * h[i];
    worst = fmax(worst, fabs((double)v - poly(c, n - 2, x)));
    size = fmax(size, fabs(poly(c, n - 2, x)));
  }
  return worst / size;
}

/* |(sum_m u_m l_m)' - sum_i (u_{i+1} - u_i) h_i| at points of [0,1], relative to the
 * largest term of either sum */
static double de_rham_error(int n, const double *nodes) {
  double u[TS_MAX_POINTS], l[TS_MAX_POINTS], dl[TS_MAX_POINTS], h[TS_MAX_POINTS];
  double worst = 0.0, size = 0.0;
  for (int m = 0; m < n; ++m) u[m] = sin(1.0 + 2.7 * m) + 0.1 * m;
  for (int t = 0; t <= 20; ++t) {
    const double x = t / 20.0;
    ts_lagrange_eval(n, nodes, x, l, dl);
    ts_histopolation_eval(n, nodes, x, h);
    long double derivative = 0.0L, differences = 0.0L;
    for (int m = 0; m < n; ++m) {
      derivative += (long double)u[m] * dl[m];
      size = fmax(size, fabs(u[m] * dl[m]));
    }
    for (int i = 0; i + 1 < n; ++i) {
      differences += (long double)(u[i + 1] - u[i]) * h[i];
      size = fmax(size, fabs((u[i + 1] - u[i]) * h[i]));
    }
    worst = fmax(worst, fabs((double)(derivative - differences)));
  }
  return worst / size;
}

static void test_1d(void) {
  for (int n = 2; n <= TS_MAX_DEGREE + 1; ++n) {
    double nodes[TS_MAX_POINTS], w[TS_MAX_POINTS];
    ts_gauss_lobatto_rule(n, nodes, w);
    const double integral = histopolation_integral_error(n, nodes);
    ok(integral < 1e-13, "1D, %2d Gauss-Lobatto points: int over [x_i, x_i+1] of h_j = delta_ij "
       "(max error %.1e)", n, integral);
    const double reproduction = reproduction_error(n, nodes);
    ok(reproduction < 1e-13, "1D, %2d points: degree %d reproduced from its sub-interval integrals "
       "(relative error %.1e)", n, n - 2, reproduction);
    const double de_rham = de_rham_error(n, nodes);
    ok(de_rham < 1e-14, "1D, %2d points: (sum u_m l_m)' = sum (u_i+1 - u_i) h_i "
       "(relative error %.1e)", n, de_rham);
  }
}

/* ---------------------------------------------------------------- elements */

static void test_elements(void) {
  ts_fe rt = NULL, l2 = NULL;
  int ierr = ts_fe_create_rt_ih(3, 4, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(3, 4, &l2);
  ok(!ierr && ts_fe_family_of(rt) == TS_FE_RT_IH && ts_fe_family_of(l2) == TS_FE_L2_IH &&
         ts_fe_components(rt) == 3 && ts_fe_components(l2) == 1 && ts_fe_degree(rt) == 4,
     "elements: RT_4 (3 components) and DGQ_4 of the interpolation-histopolation family");
  const double *points = ts_fe_points_1d(l2);
  double gl[TS_MAX_POINTS], w[TS_MAX_POINTS];
  ts_gauss_lobatto_rule(6, gl, w);
  int centres = points != NULL;
  for (int a = 0; centres && a <= 4; ++a) centres = points[a] == 0.5 * (gl[a] + gl[a + 1]);
  ok(centres, "elements: a DoF's place is the centre of its Gauss-Lobatto sub-interval");
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
}

/* ---------------------------------------------------------------- divergence */

/* A polynomial field of degree <= 4 per variable and its divergence (exact for the 6-point
 * Gauss rules below). */
static void field(int dim, const double *x, double *u) {
  const double z = dim == 3 ? x[2] : 0.3;
  u[0] = x[0] * x[0] * x[0] * x[1] + 2.0 * x[1] * x[1] * z - x[0] + 0.5;
  u[1] = x[0] * x[1] * x[1] - 3.0 * x[0] * x[0] * z * z + x[1];
  u[2] = x[0] * x[1] * z * z + x[1] * x[1] * x[1] - 2.0 * z;
}
static double divergence(int dim, const double *x) {
  const double z = dim == 3 ? x[2] : 0.3;
  double d = 3.0 * x[0] * x[0] * x[1] - 1.0 + 2.0 * x[0] * x[1] + 1.0;
  if (dim == 3) d += 2.0 * x[0] * x[1] * z - 2.0;
  return d;
}

/* the integral of f over the box [a, b] (directions < dim; with fixed normal coordinate
 * where a[d] == b[d]), by 6 Gauss points per varying direction: the field's component i
 * when component >= 0, else its divergence */
static double box_integral(const grid *g, const double *a, const double *b, int component) {
  double x[3][6] = {{0.0}}, w[3][6] = {{0.0}}, p[3] = {0.0, 0.0, 0.0};
  int n[3] = {1, 1, 1};
  for (int d = 0; d < g->dim; ++d) {
    if (a[d] == b[d]) {
      x[d][0] = a[d];
      w[d][0] = 1.0;
    } else {
      n[d] = 6;
      gauss_on(6, a[d], b[d], x[d], w[d]);
    }
  }
  long double sum = 0.0L;
  for (int q2 = 0; q2 < (g->dim == 3 ? n[2] : 1); ++q2)
    for (int q1 = 0; q1 < n[1]; ++q1)
      for (int q0 = 0; q0 < n[0]; ++q0) {
        double u[3], weight = w[0][q0] * w[1][q1];
        p[0] = x[0][q0];
        p[1] = x[1][q1];
        if (g->dim == 3) {
          p[2] = x[2][q2];
          weight *= w[2][q2];
        }
        field(g->dim, p, u);
        sum += (long double)weight * (component >= 0 ? u[component] : divergence(g->dim, p));
      }
  return (double)sum;
}

/* the DoFs of the field (fluxes through the sub-faces, component blocks in order) */
static void flux_dofs(const grid *g, ts_dofs u, double *flux) {
  int64_t index = 0;
  for (int i = 0; i < g->dim; ++i) {
    int64_t n[3] = {1, 1, 1};
    for (int d = 0; d < g->dim; ++d) n[d] = g->cells[d] * (g->k + 1) + (d == i);
    int64_t s[3];
    for (s[2] = 0; s[2] < n[2]; ++s[2])
      for (s[1] = 0; s[1] < n[1]; ++s[1])
        for (s[0] = 0; s[0] < n[0]; ++s[0], ++index) {
          double a[3] = {0, 0, 0}, b[3] = {0, 0, 0}, place[3];
          for (int d = 0; d < g->dim; ++d)
            if (d != i) sub_interval(g, d, s[d], &a[d], &b[d]);
          ts_dofs_point(u, index, place); /* the face's plane along i */
          a[i] = b[i] = place[i];
          flux[index] = box_integral(g, a, b, i);
        }
  }
}

/* the DoFs of div u: its integrals over the sub-cells */
static void cell_dofs(const grid *g, double *integrals) {
  int64_t n[3] = {1, 1, 1}, s[3], index = 0;
  for (int d = 0; d < g->dim; ++d) n[d] = g->cells[d] * (g->k + 1);
  for (s[2] = 0; s[2] < n[2]; ++s[2])
    for (s[1] = 0; s[1] < n[1]; ++s[1])
      for (s[0] = 0; s[0] < n[0]; ++s[0], ++index) {
        double a[3], b[3];
        for (int d = 0; d < g->dim; ++d) sub_interval(g, d, s[d], &a[d], &b[d]);
        integrals[index] = box_integral(g, a, b, -1);
      }
}

/* +-1 entries, 2 dim per row, per column one entry for a boundary flux and else +1 and -1 */
static int structure_ok(ts_matrix D, ts_dofs u, int dim) {
  const int64_t *offsets, *columns;
  const double *values;
  ts_matrix_csr(D, &offsets, &columns, &values);
  const int64_t cols = ts_matrix_columns(D);
  int *plus = calloc((size_t)cols, sizeof *plus), *minus = calloc((size_t)cols, sizeof *minus);
  int good = plus && minus;
  for (int64_t r = 0; good && r < ts_matrix_rows(D); ++r) {
    good = offsets[r + 1] - offsets[r] == 2 * dim;
    for (int64_t e = offsets[r]; good && e < offsets[r + 1]; ++e) {
      good = (values[e] == 1.0 || values[e] == -1.0) && (e == offsets[r] || columns[e] > columns[e - 1]);
      if (values[e] > 0) plus[columns[e]]++;
      else minus[columns[e]]++;
    }
  }
  for (int64_t c = 0; good && c < cols; ++c)
    good = ts_dofs_is_boundary(u, c) ? plus[c] + minus[c] == 1 : plus[c] == 1 && minus[c] == 1;
  free(plus);
  free(minus);
  return good;
}

static void test_divergence(ts_backend b, int dim, int k, int level) {
  static const double lower[3] = {-0.5, 0.25, 0.0}, upper[3] = {1.0, 1.0, 2.0};
  static const int coarse[3] = {3, 2, 1};
  grid g;
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_matrix D = NULL;
  ts_operator op = NULL;
  ts_vec x = NULL, y = NULL;
  double *flux = NULL, *want = NULL, *got = NULL, *applied = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, level, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
  if (!ierr) ierr = ts_matrix_assemble_divergence(u, p, &D);
  if (!ok(!ierr, "%dD RT_%d level %d: divergence assembled", dim, k, level)) {
    diag("%s", ts_error_message());
  } else {
    const int64_t nu = ts_dofs_count(u), np = ts_dofs_count(p);
    ok(ts_matrix_rows(D) == np && ts_matrix_columns(D) == nu && structure_ok(D, u, dim),
       "%dD RT_%d level %d: %lld x %lld, entries +-1, %d per row, per column +1 and -1 (one for "
       "a boundary flux)", dim, k, level, (long long)np, (long long)nu, 2 * dim);
    grid_init(&g, mesh, level, dim, k, lower, upper);
    flux = malloc((size_t)nu * sizeof *flux);
    want = malloc((size_t)np * sizeof *want);
    got = calloc((size_t)np, sizeof *got);
    applied = malloc((size_t)np * sizeof *applied);
    const int64_t *offsets, *columns;
    const double *values;
    ts_matrix_csr(D, &offsets, &columns, &values);
    flux_dofs(&g, u, flux);
    cell_dofs(&g, want);
    double worst = 0.0, size = 0.0;
    for (int64_t r = 0; r < np; ++r) {
      long double s = 0.0L;
      for (int64_t e = offsets[r]; e < offsets[r + 1]; ++e) s += values[e] * flux[columns[e]];
      got[r] = (double)s;
      worst = fmax(worst, fabs(got[r] - want[r]));
      for (int64_t e = offsets[r]; e < offsets[r + 1]; ++e) size = fmax(size, fabs(flux[columns[e]]));
    }
    ok(worst <= 1e-13 * size, "%dD RT_%d level %d: D (sub-face fluxes) = sub-cell integrals of "
       "div u, the divergence theorem per sub-cell (max error %.1e, largest flux %.1e)",
       dim, k, level, worst, size);
    ierr = ts_operator_create_matrix(b, D, TS_DOUBLE, &op);
    if (!ierr) ierr = ts_vec_create(b, nu, TS_DOUBLE, &x);
    if (!ierr) ierr = ts_vec_create(b, np, TS_DOUBLE, &y);
    if (!ierr) ierr = ts_vec_set_from_host(x, flux);
    if (!ierr) ierr = ts_operator_apply(op, x, y);
    if (!ierr) ierr = ts_vec_get_to_host(y, applied);
    double backend = 0.0;
    for (int64_t r = 0; !ierr && r < np; ++r) backend = fmax(backend, fabs(applied[r] - got[r]));
    ok(!ierr && backend <= 1e-14 * size, "%dD RT_%d level %d: the same product on the %s "
       "backend's CSR operator (max difference %.1e)", dim, k, level, tap_backend(), backend);
  }
  free(flux);
  free(want);
  free(got);
  free(applied);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_operator_destroy(&op);
  ts_matrix_destroy(&D);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

/* D of mesh's level into *D (NULL on failure) */
static int divergence_of(ts_mesh mesh, int dim, int k, int level, ts_matrix *D) {
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  int ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
  if (!ierr) ierr = ts_matrix_assemble_divergence(u, p, D);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  return ierr;
}

/* D does not depend on the geometry (paper 003, section 3.2): on Kershaw's deformed mesh it is
 * the box's matrix, entry for entry */
static void test_divergence_mapped(int dim, int k) {
  static const int coarse[3] = {6, 2, 2};
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  ts_mesh box = NULL, kershaw = NULL;
  ts_matrix Db = NULL, Dk = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 1, &box);
  if (!ierr) ierr = ts_mesh_create_kershaw(dim, coarse, 1, 0.3, &kershaw);
  if (!ierr) ierr = divergence_of(box, dim, k, 1, &Db);
  if (!ierr) ierr = divergence_of(kershaw, dim, k, 1, &Dk);
  int same = !ierr && ts_matrix_rows(Db) == ts_matrix_rows(Dk) &&
             ts_matrix_nonzeros(Db) == ts_matrix_nonzeros(Dk);
  if (same) {
    const int64_t *ob, *cb, *ok_, *ck;
    const double *vb, *vk;
    ts_matrix_csr(Db, &ob, &cb, &vb);
    ts_matrix_csr(Dk, &ok_, &ck, &vk);
    for (int64_t r = 0; same && r <= ts_matrix_rows(Db); ++r) same = ob[r] == ok_[r];
    for (int64_t e = 0; same && e < ts_matrix_nonzeros(Db); ++e)
      same = cb[e] == ck[e] && vb[e] == vk[e];
  }
  ok(same, "%dD RT_%d on Kershaw's mesh (epsilon 0.3), level 1: D is the box's, entry for "
     "entry (%lld rows)%s%s", dim, k, ierr ? 0LL : (long long)ts_matrix_rows(Dk),
     ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_matrix_destroy(&Db);
  ts_matrix_destroy(&Dk);
  ts_mesh_destroy(&box);
  ts_mesh_destroy(&kershaw);
}

/* the error of a failed call names what is wrong */
static void expect_error(int ierr, const char *needle, const char *what) {
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), needle), "bad input refused: %s", what);
  if (ierr != TS_ERR_ARG || !strstr(ts_error_message(), needle))
    diag("error %d, message '%s', wanted '%s'", ierr, ts_error_message(), needle);
}

static void test_bad_arguments(void) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {2, 2};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL, nodal_rt = NULL, rt1 = NULL;
  ts_dofs u = NULL, p = NULL, un = NULL, u1 = NULL, p_fine = NULL;
  ts_matrix D = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(2, 2, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(2, 2, &l2);
  if (!ierr) ierr = ts_fe_create_rt(2, 2, &nodal_rt);
  if (!ierr) ierr = ts_fe_create_rt_ih(2, 1, &rt1);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 0, &p);
  if (!ierr) ierr = ts_dofs_create(mesh, nodal_rt, 0, &un);
  if (!ierr) ierr = ts_dofs_create(mesh, rt1, 0, &u1);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 1, &p_fine);
  ok(!ierr, "bad input: the spaces for the checks were made");
  ts_fe e = NULL;
  expect_error(ts_fe_create_rt_ih(2, 10, &e), "degree = 10", "RT_k (i-h) of degree 10");
  expect_error(ts_fe_create_l2_ih(4, 1, &e), "dim = 4", "DGQ_k (h) in 4D");
  expect_error(ts_fe_create_l2_ih(2, 1, NULL), "NULL", "DGQ_k (h) into NULL");
  expect_error(ts_matrix_assemble_divergence(un, p, &D), "'velocity'", "nodal RT_k velocity");
  expect_error(ts_matrix_assemble_divergence(u, un, &D), "'pressure'", "RT_k as the pressure");
  expect_error(ts_matrix_assemble_divergence(u1, p, &D), "degree 1", "degrees 1 and 2");
  expect_error(ts_matrix_assemble_divergence(u, p_fine, &D), "same mesh level", "levels 0 and 1");
  expect_error(ts_matrix_assemble_divergence(NULL, p, &D), "'velocity'", "NULL velocity");
  expect_error(ts_matrix_assemble_divergence(u, p, NULL), "'D'", "NULL result");
  ok(D == NULL, "bad input: no matrix made");
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_dofs_destroy(&un);
  ts_dofs_destroy(&u1);
  ts_dofs_destroy(&p_fine);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_fe_destroy(&nodal_rt);
  ts_fe_destroy(&rt1);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend b = NULL;
  if (ts_backend_open(tap_backend(), &b)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  test_1d();
  test_elements();
  for (int k = 0; k <= 4; ++k) test_divergence(b, 2, k, k <= 2 ? 1 : 0);
  for (int k = 0; k <= 2; ++k) test_divergence(b, 3, k, k == 0 ? 1 : 0);
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 0; k <= 2; k += 2) test_divergence_mapped(dim, k);
  test_bad_arguments();
  done_testing();
  ts_backend_destroy(&b);
  return exit_status();
}
