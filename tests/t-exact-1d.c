/* t-exact-1d.c -- the 1D matrices are exact where the mathematics is (doc/accuracy.md): for
 * Q_k, k = 1..10, the stiffness matrix annihilates constants (row sums 0 summed exactly,
 * not just to a few ulp: a row sum of a few ulp acts as a zero-order term that the solve
 * amplifies by h^-2), is symmetric and centro-symmetric, and gives the linear function its
 * energy 1; the basis values sum to 1 and the derivatives to 0 at any point; the
 * prolongation reproduces constants exactly and x^p, p <= k, to round-off (also from every
 * lower degree on one cell: the degree levels of p-multigrid); the 2-cell patch
 * matrices stay exact and their fast-diagonalization eigenvectors give S^T M S = I and
 * S^T K S = Lambda; the collocation derivative at the Gauss points annihilates constants
 * exactly and turns values there into the basis' derivatives.  For RT_k x DGQ_k, k = 0..9: the continuous and DG stiffness, the
 * assembled interior SIPG rows and the divergence annihilate constants, and both
 * prolongations reproduce them. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "../lib/mg/mg-impl.h"
#include "tap.h"

/* the spacing of the doubles at |x| */
static double ulp(double x) { return nextafter(fabs(x), INFINITY) - fabs(x); }

/* The largest |sum_j a[i][j] - target| over the rows of a rows x cols matrix, summed in long
 * double (exact for these entries), in units of the spacing at the largest entry. */
static double row_sum_error_ulp(int rows, int cols, const double *a, double target) {
  double largest = fabs(target), worst = 0.0;
  for (int i = 0; i < rows * cols; ++i) largest = fmax(largest, fabs(a[i]));
  for (int i = 0; i < rows; ++i) {
    long double s = -(long double)target;
    for (int j = 0; j < cols; ++j) s += a[i * cols + j];
    worst = fmax(worst, (double)fabsl(s));
  }
  return worst / ulp(largest);
}

/* exact: below 1/1024 ulp (the old matrices were 0.5..4.5 ulp off) */
#define EXACT 0x1p-10

static int symmetric(int n, const double *A, int centro) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (A[i * n + j] != A[j * n + i] || (centro && A[i * n + j] != A[(n - 1 - i) * n + n - 1 - j]))
        return 0;
  return 1;
}

/* Q_k: K 1 = 0, symmetry, x^T K x = 1 */
static void check_stiffness(int k, const double *nodes) {
  const int n = k + 1;
  double M[TS_MAX_POINTS * TS_MAX_POINTS], K[TS_MAX_POINTS * TS_MAX_POINTS];
  ts_lagrange_mass_stiffness(n, nodes, M, K);
  long double energy = 0.0L;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) energy += (long double)nodes[i] * K[i * n + j] * nodes[j];
  const double rows = row_sum_error_ulp(n, n, K, 0.0);
  ok(rows <= EXACT && symmetric(n, K, 1) && symmetric(n, M, 1) &&
         fabsl(energy - 1.0L) <= 2.0 * DBL_EPSILON,
     "Q%d stiffness: rows sum to 0 (%.2g ulp), K and M symmetric and centro-symmetric, "
     "x^T K x - 1 = %.1Le", k, rows, energy - 1.0L);
}

/* values sum to 1 and derivatives to 0 at the k+2 Gauss points (the error integrals) and
 * at the nodes */
static void check_tabulation(int k, const double *nodes) {
  const int n = k + 1, nq = k + 2;
  double qp[TS_MAX_POINTS], qw[TS_MAX_POINTS], v[TS_MAX_POINTS * TS_MAX_POINTS],
      d[TS_MAX_POINTS * TS_MAX_POINTS];
  ts_gauss_rule(nq, qp, qw);
  ts_lagrange_tabulate(n, nodes, nq, qp, v, d);
  double worst = fmax(row_sum_error_ulp(nq, n, v, 1.0), row_sum_error_ulp(nq, n, d, 0.0));
  ts_lagrange_tabulate(n, nodes, n, nodes, v, d);
  worst = fmax(worst, fmax(row_sum_error_ulp(n, n, v, 1.0), row_sum_error_ulp(n, n, d, 0.0)));
  ok(worst <= EXACT, "Q%d basis: values sum to 1, derivatives to 0 (%.2g ulp)", k, worst);
}

/* The collocation derivative at the k+1 Gauss points (ts_mapped_plan.collocation_1d, the GPU
 * kernel on mapped cells): rows sum to exactly 0, and C S = D for the Q_k basis values S and
 * derivatives D at the points (the kernel takes the gradient at the points from the values
 * there), to a few ulp of the entries' size. */
static void check_collocation(int k, const double *nodes) {
  const int n = k + 1;
  double qp[TS_MAX_POINTS], qw[TS_MAX_POINTS], I[TS_MAX_POINTS * TS_MAX_POINTS],
      C[TS_MAX_POINTS * TS_MAX_POINTS], S[TS_MAX_POINTS * TS_MAX_POINTS],
      D[TS_MAX_POINTS * TS_MAX_POINTS];
  ts_gauss_rule(n, qp, qw);
  ts_lagrange_tabulate(n, qp, n, qp, I, C);
  ts_lagrange_tabulate(n, nodes, n, qp, S, D);
  double worst = 0.0, size = 0.0;
  for (int q = 0; q < n; ++q)
    for (int j = 0; j < n; ++j) {
      long double cs = 0.0L, scale = 0.0L;
      for (int l = 0; l < n; ++l) {
        cs += (long double)C[q * n + l] * S[l * n + j];
        scale += fabsl((long double)C[q * n + l] * S[l * n + j]);
      }
      worst = fmax(worst, (double)fabsl(cs - D[q * n + j]));
      size = fmax(size, (double)scale);
    }
  const double rows = row_sum_error_ulp(n, n, C, 0.0), cs_ulp = worst / ulp(size);
  ok(rows <= EXACT && cs_ulp <= 16.0,
     "Q%d collocation derivative at the Gauss points: rows sum to 0 (%.2g ulp), C S = D to "
     "%.2g ulp of the products' size %.3g", k, rows, cs_ulp, size);
}

/* The prolongation of a 2-cell Q_k box: rows sum to exactly 1, x^p interpolated to 1e-14 */
static void check_transfer(int k) {
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int coarse[2] = {1, 1};
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs c, f;
  ts_transfer_plan plan;
  double storage[(2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  ts_mesh_create_box(2, lower, upper, coarse, 1, &mesh);
  ts_fe_create_q(2, k, &fe);
  ts_dofs_create(mesh, fe, 0, &c);
  ts_dofs_create(mesh, fe, 1, &f);
  const int ierr = ts_transfer_plan_init(c, f, &plan, storage);
  const int n = k + 1, rows = 2 * k + 1;
  const double *p = ts_fe_points_1d(fe);
  double reproduce = 0.0;
  for (int power = 0; power <= k; ++power)
    for (int r = 0; r < rows; ++r) {
      const double x = r <= k ? 0.5 * p[r] : 0.5 * (1.0 + p[r - k]);
      double s = 0.0;
      for (int j = 0; j < n; ++j) s += plan.interpolation_1d[r * n + j] * pow(p[j], power);
      reproduce = fmax(reproduce, fabs(s - pow(x, power)));
    }
  const double sums = ierr ? INFINITY : row_sum_error_ulp(rows, n, plan.interpolation_1d, 1.0);
  ok(!ierr && sums <= EXACT && reproduce <= 1e-14,
     "Q%d prolongation: rows sum to 1 (%.2g ulp), x^p, p <= %d, to %.1e", k, sums, k, reproduce);
  ts_dofs_destroy(&c);
  ts_dofs_destroy(&f);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* The transfer from every lower degree c to Q_k on one cell (degree levels): rows sum to
 * exactly 1, x^p, p <= c, interpolated at the Q_k points to 1e-14 */
static void check_degree_transfer(int k) {
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int cells[2] = {1, 1};
  ts_mesh mesh;
  ts_fe fine_fe;
  ts_dofs f;
  ts_mesh_create_box(2, lower, upper, cells, 0, &mesh);
  ts_fe_create_q(2, k, &fine_fe);
  ts_dofs_create(mesh, fine_fe, 0, &f);
  const double *pf = ts_fe_points_1d(fine_fe);
  double sums = 0.0, reproduce = 0.0;
  int ierr = 0;
  for (int c = 1; c < k; ++c) {
    ts_fe coarse_fe;
    ts_dofs cd;
    ts_transfer_plan plan;
    double storage[TS_TRANSFER_1D_SIZE];
    ts_fe_create_q(2, c, &coarse_fe);
    ts_dofs_create(mesh, coarse_fe, 0, &cd);
    ierr |= ts_transfer_plan_init(cd, f, &plan, storage);
    ierr |= plan.coarse_degree != c || plan.fine_per_cell != k;
    const double *pc = ts_fe_points_1d(coarse_fe);
    for (int power = 0; power <= c; ++power)
      for (int r = 0; r <= k; ++r) {
        double s = 0.0;
        for (int j = 0; j <= c; ++j) s += plan.interpolation_1d[r * (c + 1) + j] * pow(pc[j], power);
        reproduce = fmax(reproduce, fabs(s - pow(pf[r], power)));
      }
    sums = fmax(sums, row_sum_error_ulp(k + 1, c + 1, plan.interpolation_1d, 1.0));
    ts_dofs_destroy(&cd);
    ts_fe_destroy(&coarse_fe);
  }
  ok(!ierr && sums <= EXACT && reproduce <= 1e-14,
     "Q1..Q%d -> Q%d on one cell: rows sum to 1 (%.2g ulp), x^p, p <= c, to %.1e", k - 1, k,
     sums, reproduce);
  ts_dofs_destroy(&f);
  ts_fe_destroy(&fine_fe);
  ts_mesh_destroy(&mesh);
}

/* The vertex patch (2 cells): the assembled matrices' interior rows still sum to 0, and the
 * generalized eigenvectors of the interior blocks diagonalize them (S^T M S = I,
 * S^T K S = Lambda, to 64 ulp of the largest eigenvalue). */
/* How far S is from S^T M S = I, S^T K S = Lambda: the largest entry error, in ulp of the
 * largest eigenvalue (long double sums). */
static double eigen_error_ulp(int m, const double *K, const double *M, const double *S,
                              const double *lambda) {
  double worst = 0.0;
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) {
      long double sms = 0.0L, sks = 0.0L;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
          sms += (long double)S[i * m + a] * M[i * m + j] * S[j * m + b];
          sks += (long double)S[i * m + a] * K[i * m + j] * S[j * m + b];
        }
      worst = fmax(worst, fmax((double)fabsl(sms - (a == b)) * lambda[m - 1],
                               (double)fabsl(sks - (a == b ? lambda[a] : 0.0))));
    }
  return worst / (DBL_EPSILON * lambda[m - 1]);
}

static void check_patch(int k, const double *nodes) {
  const int n = k + 1, N = 2 * k + 1, m = N - 2;
  double M[TS_MAX_POINTS * TS_MAX_POINTS], K[TS_MAX_POINTS * TS_MAX_POINTS];
  double Mp[21 * 21], Kp[21 * 21], Mi[21 * 21], Ki[21 * 21], S[21 * 21], lambda[21];
  ts_lagrange_mass_stiffness(n, nodes, M, K);
  ts_matrix_1d_assemble(2, n, M, Mp);
  ts_matrix_1d_assemble(2, n, K, Kp);
  const double rows = row_sum_error_ulp(N, N, Kp, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      Mi[i * m + j] = Mp[(i + 1) * N + j + 1];
      Ki[i * m + j] = Kp[(i + 1) * N + j + 1];
    }
  const int ierr = ts_generalized_eigen(m, Ki, Mi, S, lambda);
  const double scaled = eigen_error_ulp(m, Ki, Mi, S, lambda);
  ok(!ierr && rows <= EXACT && scaled <= 64.0,
     "Q%d vertex patch: 2-cell rows sum to 0 (%.2g ulp), eigenvectors exact to %.1f ulp", k, rows,
     scaled);
  /* the Jacobi solver of the per-patch problems, on cells of lengths 1 and 3 (the mass and
   * stiffness weighted as on an uneven patch): the same accuracy, the same eigenvalues as dsygv */
  double Mw[21 * 21] = {0}, Kw[21 * 21] = {0}, Sj[21 * 21], Sl[21 * 21], lj[21], ll[21];
  for (int c = 0; c < 2; ++c) /* assemble h_c M and K / h_c over the cells, h = 1, 3 */
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const int I = c * k + a - 1, J = c * k + b - 1;
        if (I < 0 || J < 0 || I >= m || J >= m) continue;
        Mw[I * m + J] += (c ? 3.0 : 1.0) * M[a * n + b];
        Kw[I * m + J] += K[a * n + b] / (c ? 3.0 : 1.0);
      }
  const int ierr2 = ts_generalized_eigen_small(m, Kw, Mw, Sj, lj) ||
                    ts_generalized_eigen(m, Kw, Mw, Sl, ll);
  double gap = 0.0;
  for (int a = 0; a < m; ++a) gap = fmax(gap, fabs(lj[a] - ll[a]));
  const double jacobi = eigen_error_ulp(m, Kw, Mw, Sj, lj);
  ok(!ierr2 && jacobi <= 64.0 && gap <= 64.0 * DBL_EPSILON * ll[m - 1],
     "Q%d uneven patch (cells 1 and 3), Jacobi: eigenvectors exact to %.1f ulp, eigenvalues "
     "%.1f ulp from dsygv's", k, jacobi, gap / (DBL_EPSILON * ll[m - 1]));
}

/* RT_k x DGQ_k */
static void check_stokes(int k) {
  ts_stokes_1d m;
  const int ierr = ts_stokes_1d_init(k, 1.0, &m);
  const int n1 = k + 1, n2 = k + 2;
  double worst = row_sum_error_ulp(n2, n2, m.continuous_stiffness, 0.0);
  worst = fmax(worst, row_sum_error_ulp(n1, n1, m.dg_stiffness, 0.0));
  worst = fmax(worst, row_sum_error_ulp(n1, n2, m.divergence, 0.0));
  /* an interior cell's row of the assembled SIPG matrix: its diagonal block with both faces
   * interior, the coupling to the right neighbour (upper) and to the left one (upper^T) */
  double assembled[TS_STOKES_N1 * 3 * TS_STOKES_N1];
  for (int a = 0; a < n1; ++a)
    for (int b = 0; b < n1; ++b) {
      assembled[a * 3 * n1 + b] = m.sipg_upper[b * n1 + a];
      assembled[a * 3 * n1 + n1 + b] = m.sipg_diag[0][a * n1 + b];
      assembled[a * 3 * n1 + 2 * n1 + b] = m.sipg_upper[a * n1 + b];
    }
  worst = fmax(worst, row_sum_error_ulp(n1, 3 * n1, assembled, 0.0));
  ok(!ierr && worst <= EXACT && symmetric(n2, m.continuous_stiffness, 1) &&
         symmetric(n1, m.sipg_diag[0], 0),
     "RT%d x DGQ%d: continuous and DG stiffness, interior SIPG rows and divergence "
     "annihilate constants (%.2g ulp)", k, k, worst);

  /* the two 1D prolongations of the Stokes transfer: rows sum to exactly 1 */
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int coarse[2] = {2, 2};
  ts_mesh mesh;
  ts_fe rt, dg;
  ts_dofs cu, cp, fu, fp;
  ts_field_transfer_plan plan;
  double storage[TS_FIELD_TRANSFER_STOKES_STORAGE];
  ts_mesh_create_box(2, lower, upper, coarse, 1, &mesh);
  ts_fe_create_rt(2, k, &rt);
  ts_fe_create_dgq(2, k, &dg);
  ts_dofs_create(mesh, rt, 0, &cu);
  ts_dofs_create(mesh, dg, 0, &cp);
  ts_dofs_create(mesh, rt, 1, &fu);
  ts_dofs_create(mesh, dg, 1, &fp);
  const int terr = ts_field_transfer_plan_init_stokes(cu, cp, fu, fp, &plan, storage);
  const double sums = terr ? INFINITY
                           : fmax(row_sum_error_ulp(2 * n2 - 1, n2, plan.field[0].prolongation_1d[0], 1.0),
                                  row_sum_error_ulp(2 * n1, n1, plan.field[0].prolongation_1d[1], 1.0));
  ok(!terr && sums <= EXACT, "RT%d x DGQ%d prolongations: rows sum to 1 (%.2g ulp)", k, k, sums);
  ts_dofs_destroy(&cu);
  ts_dofs_destroy(&cp);
  ts_dofs_destroy(&fu);
  ts_dofs_destroy(&fp);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&dg);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  plan(10 * 6 + 9 + 10 * 2);
  for (int k = 1; k <= 10; ++k) {
    double nodes[TS_MAX_POINTS], weights[TS_MAX_POINTS];
    ts_gauss_lobatto_rule(k + 1, nodes, weights);
    check_stiffness(k, nodes);
    check_tabulation(k, nodes);
    check_collocation(k, nodes);
    check_transfer(k);
    check_patch(k, nodes);
    if (k >= 2) check_degree_transfer(k);
  }
  for (int k = 0; k <= 9; ++k) check_stokes(k);
  return exit_status();
}
