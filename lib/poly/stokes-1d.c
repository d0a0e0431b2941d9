/* stokes-1d.c -- the reference 1D matrices of RT_k x DGQ_k on [0,1] (doc/stokes.md,
 * section 4): the continuous Lobatto mass and stiffness of a component's own direction, the
 * diagonal Gauss mass and the symmetric interior penalty blocks of the other directions
 * (paper 000, eq. 3), and the 1D divergence -int psi_a phi_b' (the sign of B, doc/stokes.md
 * section 3).  Every operator, transfer and
 * patch solver of the Stokes problem is built from these. */
#include "../tessera-impl.h"

/* out[a][b] += s (u_a v_b + v_a u_b) for n-vectors u, v (a symmetric rank-2 update) */
static void add_symmetric(int n, double s, const double *u, const double *v, double *out) {
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) out[a * n + b] += s * (u[a] * v[b] + v[a] * u[b]);
}

/* The blocks of the 1D SIPG matrix with h = 1 and gamma = eta (k+1)(k+2) (doc/stokes.md
 * section 4): e0/e1 the basis values at the cell's left/right end, d0/d1 the derivatives. */
static void sipg_blocks(int n1, double gamma, const double *e0, const double *e1,
                        const double *d0, const double *d1, ts_stokes_1d *m) {
  double left_interior[TS_STOKES_N1 * TS_STOKES_N1] = {0}, right_interior[TS_STOKES_N1 * TS_STOKES_N1] = {0};
  double left_boundary[TS_STOKES_N1 * TS_STOKES_N1] = {0}, right_boundary[TS_STOKES_N1 * TS_STOKES_N1] = {0};
  /* gamma [u][v] - {u'}[v] - {v'}[u]: the cell is K^+ at its left face, K^- at its right */
  add_symmetric(n1, 0.5 * gamma, e0, e0, left_interior);
  add_symmetric(n1, 0.5, d0, e0, left_interior);
  add_symmetric(n1, 0.5 * gamma, e1, e1, right_interior);
  add_symmetric(n1, -0.5, d1, e1, right_interior);
  /* 2 gamma u v - d_n u v - d_n v u, with d_n = -d/dx on the left and d/dx on the right */
  add_symmetric(n1, gamma, e0, e0, left_boundary);
  add_symmetric(n1, 1.0, d0, e0, left_boundary);
  add_symmetric(n1, gamma, e1, e1, right_boundary);
  add_symmetric(n1, -1.0, d1, e1, right_boundary);
  const double *left[4] = {left_interior, left_boundary, left_interior, left_boundary};
  const double *right[4] = {right_interior, right_interior, right_boundary, right_boundary};
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < n1 * n1; ++i)
      m->sipg_diag[s][i] = m->dg_stiffness[i] + left[s][i] + right[s][i];
  /* row a in K^-, column b in K^+: [u] = -e0_b, {u'} = d0_b / 2, [v] = e1_a, {v'} = d1_a / 2 */
  for (int a = 0; a < n1; ++a)
    for (int b = 0; b < n1; ++b)
      m->sipg_upper[a * n1 + b] = -gamma * e1[a] * e0[b] - 0.5 * e1[a] * d0[b] + 0.5 * d1[a] * e0[b];
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
    ts_lagrange_eval(n2, m->lobatto, m->gauss[a], phi, dphi);
    for (int b = 0; b < n2; ++b) m->divergence[a * n2 + b] = -m->gauss_weights[a] * dphi[b];
  }
  return 0;
}
