/* t-fe-rt.c -- the Stokes elements and DoF handlers (doc/stokes.md sections 1-2) and the
 * reference 1D matrices of RT_k x DGQ_k (section 4).
 * DoFs: counts, block offsets and sizes against the formulas of section 2 on 2D and 3D
 * meshes with unequal cells; support points against the cell-ownership rule (cell c owns
 * c_d (k+1) + r at lower + h (c + point_r)); boundary flags against the geometry (an RT DoF
 * is constrained exactly when its normal coordinate lies on the box boundary); errors.
 * 1D matrices, k = 0..9: symmetry, sum of Mc = 1, rows of Kc sum to 0, D against the Gauss
 * rule on x^(k+1), the global SIPG matrix on 4 cells (and on one) positive definite by
 * LAPACK dsyev, and its energy of a continuous polynomial against the closed form. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"

void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
            double *w, double *work, const int *lwork, int *info);

/* ------------------------------------------------------------------ DoF handlers */

typedef struct case_ {
  int dim, k;
  int coarse[3];
  double upper[3];
} case_;

static const case_ cases[] = {
    {2, 0, {2, 3, 1}, {1.0, 2.0, 1.0}},
    {2, 2, {3, 2, 1}, {1.0, 2.0, 1.0}},
    {3, 1, {2, 2, 3}, {1.0, 2.0, 0.5}},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))
static const double lower[3] = {0.0, -1.0, 0.25};

/* Counts and offsets of RT_k against doc/stokes.md section 2. */
static int rt_counts_match(ts_dofs dofs, const case_ *c) {
  int64_t offset = 0;
  int good = dofs->components == c->dim;
  for (int i = 0; i < c->dim; ++i) {
    int64_t size = 1;
    for (int d = 0; d < 3; ++d) {
      const int64_t expect = d < c->dim ? c->coarse[d] * (c->k + 1) + (d == i) : 1;
      good &= dofs->comp_n[i][d] == expect;
      size *= expect;
    }
    good &= dofs->comp_offset[i] == offset;
    offset += size;
  }
  good &= dofs->comp_offset[c->dim] == offset && ts_dofs_count(dofs) == offset;
  for (int d = 0; d < 3; ++d) good &= dofs->n[d] == dofs->comp_n[0][d];
  return good;
}

static int dgq_counts_match(ts_dofs dofs, const case_ *c) {
  int64_t size = 1;
  int good = dofs->components == 1;
  for (int d = 0; d < c->dim; ++d) {
    good &= dofs->n[d] == c->coarse[d] * (c->k + 1) && dofs->comp_n[0][d] == dofs->n[d];
    size *= dofs->n[d];
  }
  return good && ts_dofs_count(dofs) == size && dofs->comp_offset[0] == 0 &&
         dofs->comp_offset[1] == size;
}

/* Every DoF of component i: visit it through the cells that own it (cell c_d, local r_d)
 * and compare its point with lower + h (c + point) per direction. */
static double support_point_error(ts_dofs dofs, const case_ *c, int family, int i) {
  double gauss[TS_MAX_POINTS], lobatto[TS_MAX_POINTS], w[TS_MAX_POINTS], err = 0.0;
  ts_gauss_rule(c->k + 1, gauss, w);
  ts_gauss_lobatto_rule(c->k + 2, lobatto, w);
  const double h[3] = {(c->upper[0] - lower[0]) / c->coarse[0],
                       (c->upper[1] - lower[1]) / c->coarse[1],
                       (c->upper[2] - lower[2]) / c->coarse[2]};
  int owned[3] = {1, 1, 1}, cells[3] = {1, 1, 1};
  for (int d = 0; d < c->dim; ++d) {
    cells[d] = c->coarse[d];
    owned[d] = c->k + 1 + (family == TS_FE_RT && d == i);
  }
  for (int64_t cell = 0; cell < (int64_t)cells[0] * cells[1] * cells[2]; ++cell)
    for (int r = 0; r < owned[0] * owned[1] * owned[2]; ++r) {
      const int64_t cc[3] = {cell % cells[0], cell / cells[0] % cells[1], cell / (cells[0] * cells[1])};
      const int rr[3] = {r % owned[0], r / owned[0] % owned[1], r / (owned[0] * owned[1])};
      int64_t index = dofs->comp_offset[i], stride = 1;
      double expect[3], x[3];
      for (int d = 0; d < c->dim; ++d) {
        const double *pts = family == TS_FE_RT && d == i ? lobatto : gauss;
        index += (cc[d] * (c->k + 1) + rr[d]) * stride;
        stride *= dofs->comp_n[i][d];
        expect[d] = lower[d] + h[d] * ((double)cc[d] + pts[rr[d]]);
      }
      if (ts_dofs_point(dofs, index, x)) return INFINITY;
      for (int d = 0; d < c->dim; ++d) err = fmax(err, fabs(x[d] - expect[d]));
    }
  return err;
}

/* RT: flagged exactly when the normal coordinate is on the box boundary; DGQ: never. */
static int boundary_flags_match(ts_dofs dofs, const case_ *c, int family, int64_t *flagged) {
  int good = 1;
  *flagged = 0;
  for (int64_t index = 0; index < ts_dofs_count(dofs); ++index) {
    double x[3];
    int i = 0;
    while (index >= dofs->comp_offset[i + 1]) ++i;
    ts_dofs_point(dofs, index, x);
    const int on_boundary = family == TS_FE_RT && (fabs(x[i] - lower[i]) < 1e-12 ||
                                                   fabs(x[i] - c->upper[i]) < 1e-12);
    good &= ts_dofs_is_boundary(dofs, index) == on_boundary;
    *flagged += on_boundary;
  }
  return good && *flagged == ts_dofs_boundary_count(dofs);
}

static void test_dofs(const case_ *c) {
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, dgq = NULL;
  ts_dofs u = NULL, p = NULL;
  int ierr = ts_mesh_create_box(c->dim, lower, c->upper, c->coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_rt(c->dim, c->k, &rt);
  if (!ierr) ierr = ts_fe_create_dgq(c->dim, c->k, &dgq);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, dgq, 0, &p);
  if (!ok(!ierr, "%dD k=%d: RT_k and DGQ_k DoF handlers", c->dim, c->k)) {
    diag("%s", ts_error_message());
    skip(6, "no DoF handlers");
  } else {
    ok(ts_fe_family_of(rt) == TS_FE_RT && ts_fe_components(rt) == c->dim &&
           ts_fe_family_of(dgq) == TS_FE_DGQ && ts_fe_components(dgq) == 1,
       "%dD k=%d: families and components", c->dim, c->k);
    ok(rt_counts_match(u, c), "%dD k=%d: RT counts, block sizes and offsets", c->dim, c->k);
    ok(dgq_counts_match(p, c), "%dD k=%d: DGQ counts", c->dim, c->k);
    double err = support_point_error(p, c, TS_FE_DGQ, 0);
    for (int i = 0; i < c->dim; ++i) err = fmax(err, support_point_error(u, c, TS_FE_RT, i));
    ok(err < 1e-13, "%dD k=%d: support points (max error %.2e)", c->dim, c->k, err);
    int64_t flagged_u = 0, flagged_p = 0;
    const int u_match = boundary_flags_match(u, c, TS_FE_RT, &flagged_u);
    const int p_match = boundary_flags_match(p, c, TS_FE_DGQ, &flagged_p);
    ok(u_match && flagged_u > 0,
       "%dD k=%d: RT boundary DoFs are the normal ones on the box boundary (%lld)", c->dim, c->k,
       (long long)flagged_u);
    ok(p_match && flagged_p == 0, "%dD k=%d: DGQ has no boundary DoFs", c->dim, c->k);
  }
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&dgq);
  ts_mesh_destroy(&mesh);
}

static int fails_with_arg(int ierr, const char *must_contain) {
  return ierr == TS_ERR_ARG && strstr(ts_error_message(), must_contain) != NULL;
}

static void test_errors(void) {
  ts_fe fe = NULL;
  ok(fails_with_arg(ts_fe_create_rt(2, TS_STOKES_MAX_DEGREE + 1, &fe), "degree = 10, allowed 0..9") &&
         !fe, "RT_k: degree 10 refused, naming value and range");
  ok(fails_with_arg(ts_fe_create_rt(2, -1, &fe), "degree = -1"), "RT_k: degree -1 refused");
  ok(fails_with_arg(ts_fe_create_dgq(3, 11, &fe), "DGQ_k element: degree = 11"),
     "DGQ_k: degree 11 refused");
  ok(fails_with_arg(ts_fe_create_rt(1, 1, &fe), "dim = 1, allowed 2 or 3"), "RT_k: dim 1 refused");
  ok(fails_with_arg(ts_fe_create_dgq(4, 1, &fe), "dim = 4"), "DGQ_k: dim 4 refused");
  /* a Q_k-only tool refuses an RT handler */
  ts_mesh mesh = NULL;
  ts_dofs dofs = NULL;
  const int coarse[2] = {2, 2};
  const double up[2] = {1.0, 1.0};
  double values[64] = {0}, l2, h1;
  const ts_solution *sol = NULL;
  int ierr = ts_mesh_create_box(2, lower, up, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_rt(2, 0, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  if (!ierr) ierr = ts_solution_by_name("sine", &sol);
  ok(!ierr && fails_with_arg(ts_compute_errors(dofs, values, sol, &l2, &h1), "only Q_k"),
     "ts_compute_errors refuses RT_k DoFs: %s", ts_error_message());
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ------------------------------------------------------------------ 1D matrices */

static double asymmetry(int n, const double *A) {
  double e = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) e = fmax(e, fabs(A[a * n + b] - A[b * n + a]));
  return e;
}

/* The global 1D SIPG matrix over `cells` cells (h = 1) into L (N x N, N = cells (k+1)). */
static void assemble_sipg(const ts_stokes_1d *m, int cells, double *L) {
  const int n1 = m->degree + 1, N = cells * n1;
  for (int i = 0; i < N * N; ++i) L[i] = 0.0;
  for (int c = 0; c < cells; ++c) {
    const int kind = (c == 0 ? 1 : 0) + (c == cells - 1 ? 2 : 0);
    for (int a = 0; a < n1; ++a)
      for (int b = 0; b < n1; ++b) {
        L[(c * n1 + a) * N + c * n1 + b] = m->sipg_diag[kind][a * n1 + b];
        if (c + 1 < cells) {
          L[(c * n1 + a) * N + (c + 1) * n1 + b] = m->sipg_upper[a * n1 + b];
          L[((c + 1) * n1 + b) * N + c * n1 + a] = m->sipg_upper[a * n1 + b];
        }
      }
  }
}

static double smallest_eigenvalue(int n, double *A) {
  double w[4 * TS_STOKES_N1], work[64 * 4 * TS_STOKES_N1];
  int lwork = (int)(sizeof work / sizeof work[0]), info;
  dsyev_("N", "U", &n, A, &n, w, work, &lwork, &info);
  return info ? -INFINITY : w[0];
}

/* u^T L u for u(x) = 1 + x/2 - x^2/10 truncated to degree <= k on [0, 4], 4 unit cells:
 * u is continuous, so only the cell terms and the two boundary faces remain:
 * int_0^4 u'^2 + (2 gamma u^2 + 2 u' u)(0) + (2 gamma u^2 - 2 u' u)(4). */
static double sipg_energy_error(const ts_stokes_1d *m, const double *L) {
  const int k = m->degree, n1 = k + 1, N = 4 * n1;
  const double c0 = 1.0, c1 = k >= 1 ? 0.5 : 0.0, c2 = k >= 2 ? -0.1 : 0.0, len = 4.0;
  const double gamma = m->penalty * (k + 1.0) * (k + 2.0);
  double u[4 * TS_STOKES_N1], energy = 0.0;
  for (int c = 0; c < 4; ++c)
    for (int a = 0; a < n1; ++a) {
      const double x = c + m->gauss[a];
      u[c * n1 + a] = c0 + c1 * x + c2 * x * x;
    }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) energy += u[i] * L[i * N + j] * u[j];
  const double u0 = c0, du0 = c1, u4 = c0 + c1 * len + c2 * len * len, du4 = c1 + 2 * c2 * len;
  const double exact = c1 * c1 * len + 2 * c1 * c2 * len * len + 4 * c2 * c2 * len * len * len / 3 +
                       2 * gamma * u0 * u0 + 2 * du0 * u0 + 2 * gamma * u4 * u4 - 2 * du4 * u4;
  return fabs(energy - exact) / fabs(exact);
}

static void test_1d(int k) {
  ts_stokes_1d m;
  if (!ok(!ts_stokes_1d_init(k, TS_STOKES_DEFAULT_PENALTY, &m),
          "k=%d: 1D matrices (eta = %g, the default)", k, TS_STOKES_DEFAULT_PENALTY)) {
    diag("%s", ts_error_message());
    skip(6, "no 1D matrices");
    return;
  }
  const int n1 = k + 1, n2 = k + 2;
  double mass_sum = 0.0, row_sum = 0.0;
  for (int a = 0; a < n2; ++a) {
    double r = 0.0;
    for (int b = 0; b < n2; ++b) {
      mass_sum += m.continuous_mass[a * n2 + b];
      r += m.continuous_stiffness[a * n2 + b];
    }
    row_sum = fmax(row_sum, fabs(r));
  }
  double sym = fmax(asymmetry(n2, m.continuous_mass), asymmetry(n2, m.continuous_stiffness));
  for (int s = 0; s < 4; ++s) sym = fmax(sym, asymmetry(n1, m.sipg_diag[s]));
  ok(sym < 1e-12 && fabs(mass_sum - 1.0) < 1e-13 && row_sum < 1e-10 * (k + 1) * (k + 1),
     "k=%d: Mc, Kc, SIPG diagonal blocks symmetric (%.1e), sum Mc = 1 (%.1e), Kc rows sum to 0 (%.1e)",
     k, sym, fabs(mass_sum - 1.0), row_sum);

  /* D applied to the Lobatto interpolant of x^(k+1) (exact) equals -int psi_a (k+1) x^k (the
   * sign of B, doc/stokes.md section 3), which the (k+1)-point Gauss rule integrates exactly:
   * -w_a (k+1) g_a^k */
  double div_err = 0.0;
  for (int a = 0; a < n1; ++a) {
    double s = 0.0;
    for (int b = 0; b < n2; ++b) s += m.divergence[a * n2 + b] * pow(m.lobatto[b], k + 1);
    div_err = fmax(div_err, fabs(s + m.gauss_weights[a] * (k + 1) * pow(m.gauss[a], k)));
  }
  ok(div_err < 1e-12, "k=%d: divergence of x^(k+1) (error %.1e)", k, div_err);

  double L[16 * TS_STOKES_N1 * TS_STOKES_N1], work[16 * TS_STOKES_N1 * TS_STOKES_N1];
  assemble_sipg(&m, 4, L);
  ok(asymmetry(4 * n1, L) < 1e-12, "k=%d: global SIPG matrix on 4 cells symmetric", k);
  const double energy_err = sipg_energy_error(&m, L);
  ok(energy_err < 1e-12, "k=%d: SIPG energy of a continuous polynomial (relative error %.1e)", k,
     energy_err);
  memcpy(work, L, sizeof(double) * 16 * n1 * n1);
  const double lambda4 = smallest_eigenvalue(4 * n1, work);
  ok(lambda4 > 0.0, "k=%d: SIPG on 4 cells positive definite (smallest eigenvalue %.3e)", k, lambda4);
  memcpy(work, m.sipg_diag[3], sizeof(double) * n1 * n1);
  const double lambda1 = smallest_eigenvalue(n1, work);
  ok(lambda1 > 0.0, "k=%d: SIPG on one cell positive definite (smallest eigenvalue %.3e)", k, lambda1);
}

int main(void) {
  plan(N_CASES * 7 + 6 + (TS_STOKES_MAX_DEGREE + 1) * 7);
  for (int c = 0; c < N_CASES; ++c) test_dofs(&cases[c]);
  test_errors();
  for (int k = 0; k <= TS_STOKES_MAX_DEGREE; ++k) test_1d(k);
  return exit_status();
}
