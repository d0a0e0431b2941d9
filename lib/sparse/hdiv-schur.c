/* hdiv-schur.c -- the approximate Schur complement of paper 003 (eqs. 15-16),
 *   S~ = W~^{-1} + D M~^{-1} D^T,
 * with M~ and W~ the diagonals of the H(div) mass M_beta = (beta u, v) and the L2 mass
 * W_alpha = (alpha q, r) in the interpolation-histopolation bases, and D their divergence
 * (divergence.c).  S~ is an M-matrix with at most 2 dim off-diagonal entries per row: a
 * graph Laplacian of the sub-cells' face neighbours plus a positive diagonal (Proposition
 * 4), the matrix one AMG V-cycle preconditions in the paper's block-diagonal preconditioner.
 *
 * The diagonals on Cartesian cells of sizes h_d (box meshes; constant coefficients).  The
 * basis functions are the reference ones under the integral-preserving maps: an RT_k DoF of
 * component i (a flux) has u_i = l_a(xi_i) prod_{d != i} h_{b_d}(xi_d) / prod_{d != i} h_d,
 * an L2 DoF (an integral) q = prod_d h_{b_d}(xi_d) / prod_d h_d, where l are the Lagrange
 * polynomials of the k+2 Gauss-Lobatto points and h their histopolation basis.  So
 *   (beta u, u) = beta h_i / prod_{d != i} h_d  Ml[a][a] prod_{d != i} Mh[b_d][b_d],
 *   (alpha q, q) = alpha / prod_d h_d  prod_d Mh[b_d][b_d]
 * (Ml, Mh the 1D mass matrices on [0,1], ts_ih_mass_blocks), summed over the two cells of a
 * face shared along direction i. */
#include <math.h>
#include "sparse-impl.h"

/* Entry a (0 .. n-1) of component c's block along direction d: the sum over the cells that
 * hold it of its 1D diagonal entry (two cells for a face shared along c's own direction). */
static double diagonal_1d(ts_dofs dofs, const ts_ih_mass_1d *m, int c, int d, int64_t a) {
  const int64_t k1 = dofs->degree + 1;
  if (dofs->fe->family == TS_FE_L2_IH || d != c) return m->histopolation[(a % k1) * (k1 + 1)];
  const int64_t cell = a / k1, local = a % k1;
  double sum = cell < dofs->cells[d] ? m->interpolation[local * (k1 + 2)] : 0.0;
  if (local == 0 && cell > 0) sum += m->interpolation[k1 * (k1 + 2)]; /* cell - 1's right end */
  return sum;
}

int ts_dofs_mass_diagonal(ts_dofs dofs, double coefficient, double *diagonal) {
  TS_CHECK_NOT_NULL(dofs);
  TS_CHECK_NOT_NULL(diagonal);
  TS_CALL(ts_ih_check_mass("ts_dofs_mass_diagonal", dofs, coefficient));
  ts_ih_mass_1d m;
  TS_CALL(ts_ih_mass_blocks(dofs->fe, 0, &m));
  const int l2 = dofs->fe->family == TS_FE_L2_IH;
  for (int c = 0; c < dofs->components; ++c) {
    const int64_t *n = dofs->comp_n[c];
    const double scale = coefficient * ts_ih_piola_factor(dofs, l2 ? -1 : c);
    int64_t a[3], index = dofs->comp_offset[c];
    for (a[2] = 0; a[2] < n[2]; ++a[2])
      for (a[1] = 0; a[1] < n[1]; ++a[1])
        for (a[0] = 0; a[0] < n[0]; ++a[0], ++index) {
          double v = scale;
          for (int d = 0; d < dofs->dim; ++d) v *= diagonal_1d(dofs, &m, l2 ? -1 : c, d, a[d]);
          diagonal[index] = v;
        }
  }
  return 0;
}

/* 1 / M~ per velocity DoF, 0 where a boundary flux is prescribed (not an unknown);
 * 1 / W~ per pressure DoF */
static int inverse_diagonals(ts_dofs u, ts_dofs p, double alpha, double beta,
                             int boundary_fluxes_fixed, double *m_inv, double *w_inv) {
  TS_CALL(ts_dofs_mass_diagonal(u, beta, m_inv));
  TS_CALL(ts_dofs_mass_diagonal(p, alpha, w_inv));
  for (int64_t j = 0; j < u->count; ++j)
    m_inv[j] = boundary_fluxes_fixed && ts_dofs_is_boundary(u, j) ? 0.0 : 1.0 / m_inv[j];
  for (int64_t i = 0; i < p->count; ++i) w_inv[i] = 1.0 / w_inv[i];
  return 0;
}

/* S = D diag(m_inv) D^T + diag(w_inv) */
static int schur_product(ts_matrix D, const double *m_inv, const double *w_inv, ts_matrix *S) {
  ts_matrix Dt = NULL;
  TS_CALL(ts_matrix_transpose(D, &Dt));
  int ierr = ts_matrix_scale(Dt, m_inv, NULL);
  if (!ierr) ierr = ts_matrix_multiply(D, Dt, S);
  if (!ierr) ierr = ts_matrix_add_diagonal(*S, w_inv);
  ts_matrix_destroy(&Dt);
  if (ierr) ts_matrix_destroy(S);
  return ierr;
}

int ts_matrix_assemble_hdiv_schur(ts_dofs velocity, ts_dofs pressure, double alpha, double beta,
                                  int boundary_fluxes_fixed, ts_matrix *S) {
  TS_CHECK_NOT_NULL(S);
  *S = NULL;
  TS_CHECK_ARG(isfinite(alpha) && alpha > 0.0 && isfinite(beta) && beta > 0.0,
               "ts_matrix_assemble_hdiv_schur: alpha = %g, beta = %g: both must be positive",
               alpha, beta);
  ts_matrix D = NULL;
  TS_CALL(ts_matrix_assemble_divergence(velocity, pressure, &D));
  double *m_inv = NULL, *w_inv = NULL;
  int ierr = ts_calloc((size_t)velocity->count, sizeof *m_inv, "1 / diag(M)", &m_inv);
  if (!ierr) ierr = ts_calloc((size_t)pressure->count, sizeof *w_inv, "1 / diag(W)", &w_inv);
  if (!ierr)
    ierr = inverse_diagonals(velocity, pressure, alpha, beta, boundary_fluxes_fixed, m_inv, w_inv);
  if (!ierr) ierr = schur_product(D, m_inv, w_inv, S);
  ts_free(&m_inv);
  ts_free(&w_inv);
  ts_matrix_destroy(&D);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "H(div) Schur complement") : 0;
}
