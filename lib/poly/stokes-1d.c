/* stokes-1d.c -- the reference 1D matrices of RT_k x DGQ_k on [0,1] (doc/stokes.md,
 * section 4): the continuous Lobatto mass and stiffness of a component's own direction, the
 * diagonal Gauss mass and the symmetric interior penalty blocks of the other directions
 * (paper 000, eq. 3), and the 1D divergence -int psi_a phi_b' (the sign of B, doc/stokes.md
 * section 3).  Every operator, transfer and
 * patch solver of the Stokes problem is built from these. */
#include "../tessera-impl.h"

/* The symmetric interior-face matrix of the 1D SIPG form with h = 1 (doc/stokes.md
 * section 4) on the face between a cell K^- and its right neighbour K^+, unknowns (K^-,
 * K^+): gamma [u][v] - {u'}[v] - {v'}[u] = gamma j j^T - (a j^T + j a^T) with the jump
 * j = (e1, -e0) and the average a = (d1, d0) / 2; e0/e1 are the basis values at the cell's
 * left/right end, d0/d1 the derivatives.  It annihilates constants (a constant has no jump
 * and no derivative). */
static void sipg_face(int n1, double gamma, const double *e0, const double *e1, const double *d0,
                      const double *d1, double *face) {
  const int n = 2 * n1;
  long double jump[2 * TS_STOKES_N1], mean[2 * TS_STOKES_N1];
  for (int a = 0; a < n1; ++a) {
    jump[a] = e1[a];
    jump[n1 + a] = -(long double)e0[a];
    mean[a] = 0.5L * d1[a];
    mean[n1 + a] = 0.5L * d0[a];
  }
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      face[a * n + b] = (double)(gamma * jump[a] * jump[b] - mean[a] * jump[b] - jump[a] * mean[b]);
}

/* The blocks of the 1D SIPG matrix with h = 1 and gamma = eta (k+1)(k+2) from the interior
 * face matrix F = [R U; U^T L] (sipg_face): a cell's right face contributes R, its left face
 * L, the coupling to the right neighbour is U, and a boundary face (Nitsche, penalty 2 gamma)
 * contributes 2 L or 2 R.  The stiffness and F are rounded to one grid with exact zero row
 * sums, so every interior row of the assembled matrix sums to exactly 0 and the sums
 * stiffness + left + right below are exact. */
static void sipg_blocks(int n1, double gamma, const double *e0, const double *e1,
                        const double *d0, const double *d1, ts_stokes_1d *m) {
  double face[4 * TS_STOKES_N1 * TS_STOKES_N1];
  const int n = 2 * n1;
  sipg_face(n1, gamma, e0, e1, d0, d1, face);
  const double bound = ts_max_abs(n1 * n1, m->dg_stiffness) + 4.0 * ts_max_abs(n * n, face);
  ts_exact_zero_rows(n1, m->dg_stiffness, 2.0 * bound);
  ts_exact_zero_rows(n, face, 2.0 * bound);
  for (int a = 0; a < n1; ++a)
    for (int b = 0; b < n1; ++b) {
      const double right = face[a * n + b], left = face[(n1 + a) * n + n1 + b];
      const double stiffness = m->dg_stiffness[a * n1 + b];
      m->sipg_diag[0][a * n1 + b] = stiffness + left + right;        /* both faces interior */
      m->sipg_diag[1][a * n1 + b] = stiffness + 2.0 * left + right;  /* left face boundary */
      m->sipg_diag[2][a * n1 + b] = stiffness + left + 2.0 * right;  /* right face boundary */
      m->sipg_diag[3][a * n1 + b] = stiffness + 2.0 * left + 2.0 * right;
      m->sipg_upper[a * n1 + b] = face[a * n + n1 + b];
    }
}

int ts_stokes_1d_init(int degree, double eta, ts_stokes_1d *m) {
  TS_CHECK_ARG(degree >= 0 && degree <= TS_STOKES_MAX_DEGREE,
               "RT_k x DGQ_k: degree = %d, allowed 0..%d", degree, TS_STOKES_MAX_DEGREE);
  TS_CHECK_ARG(eta > 0.0, "RT_k x DGQ_k: penalty factor eta = %g, must be positive", eta);
  const int n1 = degree + 1, n2 = degree + 2;
  double lobatto_weights[TS_STOKES_N2];
  m->degree = degree;
  m->penalty = eta;
  TS_CALL(ts_gauss_lobatto_rule(n2, m->lobatto, lobatto_weights));
  TS_CALL(ts_gauss_rule(n1, m->gauss, m->gauss_weights));
  TS_CALL(ts_lagrange_mass_stiffness(n2, m->lobatto, m->continuous_mass, m->continuous_stiffness));
  double dg_mass_full[TS_STOKES_N1 * TS_STOKES_N1];
  TS_CALL(ts_lagrange_mass_stiffness(n1, m->gauss, dg_mass_full, m->dg_stiffness));
  for (int a = 0; a < n1; ++a) m->dg_mass[a] = m->gauss_weights[a];

  double e0[TS_STOKES_N1], e1[TS_STOKES_N1], d0[TS_STOKES_N1], d1[TS_STOKES_N1];
  ts_lagrange_eval(n1, m->gauss, 0.0, e0, d0);
  ts_lagrange_eval(n1, m->gauss, 1.0, e1, d1);
  sipg_blocks(n1, eta * (degree + 1.0) * (degree + 2.0), e0, e1, d0, d1, m);

  /* divergence: -int psi_a phi_b' by the (k+1)-point Gauss rule, exact for degree 2k; the
   * pressure basis psi is 1 at its own Gauss point and 0 at the others */
  double phi[TS_STOKES_N2], dphi[TS_STOKES_N2];
  for (int a = 0; a < n1; ++a) {
    double *row = m->divergence + a * n2;
    ts_lagrange_eval(n2, m->lobatto, m->gauss[a], phi, dphi);
    for (int b = 0; b < n2; ++b) row[b] = -m->gauss_weights[a] * dphi[b];
    ts_exact_row_sum(n2, row, 0.0); /* a constant velocity has no divergence */
  }
  return 0;
}
