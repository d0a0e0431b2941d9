/* hdiv-schur.c -- the approximate Schur complement of paper 003 (eqs. 15-16),
 *   S~ = W~^{-1} + D M~^{-1} D^T,
 * with M~ and W~ the diagonals of the H(div) mass M_beta = (beta u, v) and the L2 mass
 * W_alpha = (alpha q, r) in the interpolation-histopolation bases, and D their divergence
 * (divergence.c).  S~ is an M-matrix with at most 2 dim off-diagonal entries per row: a
 * graph Laplacian of the sub-cells' face neighbours plus a positive diagonal (Proposition
 * 4), the matrix one AMG V-cycle preconditions in the paper's block-diagonal preconditioner.
 *
 * On a mapped level (Kershaw's, ts_mesh_create_mapped, ...) the diagonals are those of the
 * matrix-free masses with the same Piola maps (lib/op/hdiv-mass.c, l2-mass.c: u = J u^ / det J,
 * q = q^ / det J, the Gauss rule of k+2 points per direction), summed over a DoF's cells; D
 * does not depend on the geometry, so S~ keeps its pattern and stays an M-matrix.
 *
 * The diagonals on Cartesian cells of sizes h_d (box meshes; coefficients constant per cell,
 * ts_ih_cell_factor).  The
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

/* On a mapped level: the diagonal of the matrix-free mass with the Piola maps, the
 * coefficient per cell coefficient x cell_coefficients. */
static int mapped_diagonal(ts_dofs dofs, double coefficient, const double *cell_coefficients,
                           double *diagonal) {
  const int64_t cells = ts_ih_cell_count(dofs);
  double *c = NULL;
  TS_CALL(ts_calloc((size_t)cells, sizeof *c, "mass coefficient per cell", &c));
  for (int64_t i = 0; i < cells; ++i)
    c[i] = coefficient * (cell_coefficients ? cell_coefficients[i] : 1.0);
  const int ierr = dofs->fe->family == TS_FE_RT_IH ? ts_hdiv_mass_host_diagonal(dofs, c, diagonal)
                                                   : ts_l2_mass_host_diagonal(dofs, c, diagonal);
  ts_free(&c);
  return ierr;
}

int ts_dofs_mass_diagonal(ts_dofs dofs, double coefficient, const double *cell_coefficients,
                          double *diagonal) {
  TS_CHECK_NOT_NULL(dofs);
  TS_CHECK_NOT_NULL(diagonal);
  TS_CALL(ts_ih_check_mass("ts_dofs_mass_diagonal", dofs, coefficient, cell_coefficients));
  if (dofs->mesh && dofs->mesh->map)
    return mapped_diagonal(dofs, coefficient, cell_coefficients, diagonal);
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
          if (cell_coefficients) v *= ts_ih_cell_factor(dofs, cell_coefficients, &m, c, a, a);
          diagonal[index] = v;
        }
  }
  return 0;
}

/* 1 / M~ per velocity DoF, 0 where a boundary flux is prescribed (not an unknown);
 * 1 / W~ per pressure DoF (0 for alpha = infinity) */
static int inverse_diagonals(ts_dofs u, ts_dofs p, const ts_hdiv_coefficients *k,
                             unsigned fixed_flux_faces, double *m_inv, double *w_inv) {
  TS_CALL(ts_dofs_mass_diagonal(u, k->beta, k->beta_cells, m_inv));
  for (int64_t j = 0; j < u->count; ++j)
    m_inv[j] = ts_dofs_flux_face(u, j) & fixed_flux_faces ? 0.0 : 1.0 / m_inv[j];
  if (isinf(k->alpha)) return 0;
  TS_CALL(ts_dofs_mass_diagonal(p, k->alpha, k->alpha_cells, w_inv));
  for (int64_t i = 0; i < p->count; ++i) w_inv[i] = 1.0 / w_inv[i];
  return 0;
}

/* S = D diag(m_inv) D^T + diag(w_inv), the product on `products` (ts_matrix_multiply_on) */
static int schur_product(ts_backend products, ts_matrix D, const double *m_inv,
                         const double *w_inv, ts_matrix *S) {
  ts_matrix Dt = NULL;
  TS_CALL(ts_matrix_transpose(D, &Dt));
  int ierr = ts_matrix_scale(Dt, m_inv, NULL);
  if (!ierr) ierr = ts_matrix_multiply_on(products, D, Dt, S);
  if (!ierr) ierr = ts_matrix_add_diagonal(*S, w_inv);
  ts_matrix_destroy(&Dt);
  if (ierr) ts_matrix_destroy(S);
  return ierr;
}

int ts_hdiv_check_coefficients(const char *fn, ts_dofs velocity, const ts_hdiv_coefficients *k) {
  TS_CHECK_ARG(k, "%s: argument 'coefficients' is NULL, a valid pointer is required", fn);
  TS_CHECK_ARG((isfinite(k->alpha) && k->alpha > 0.0) || (k->alpha == INFINITY && !k->alpha_cells),
               "%s: alpha = %g: a positive number is required (or INFINITY without alpha_cells: "
               "no (2,2) block)", fn, k->alpha);
  TS_CHECK_ARG(isfinite(k->beta) && k->beta > 0.0,
               "%s: beta = %g: a positive number is required", fn, k->beta);
  TS_CHECK_ARG(velocity, "%s: argument 'velocity' is NULL, a valid pointer is required", fn);
  TS_CALL(ts_ih_check_cells(fn, "alpha_cells", velocity, k->alpha_cells));
  return ts_ih_check_cells(fn, "beta_cells", velocity, k->beta_cells);
}

int ts_matrix_assemble_hdiv_schur(ts_dofs velocity, ts_dofs pressure,
                                  const ts_hdiv_coefficients *coefficients,
                                  unsigned fixed_flux_faces, ts_matrix *S) {
  return ts_hdiv_schur_assemble_on(NULL, velocity, pressure, coefficients, fixed_flux_faces, S);
}

int ts_hdiv_schur_assemble_on(ts_backend products, ts_dofs velocity, ts_dofs pressure,
                              const ts_hdiv_coefficients *coefficients,
                              unsigned fixed_flux_faces, ts_matrix *S) {
  TS_CHECK_NOT_NULL(S);
  *S = NULL;
  TS_CALL(ts_hdiv_check_coefficients("ts_matrix_assemble_hdiv_schur", velocity, coefficients));
  ts_matrix D = NULL;
  int ierr = ts_matrix_assemble_divergence(velocity, pressure, &D);
  if (!ierr)
    ierr = ts_check_faces("ts_matrix_assemble_hdiv_schur", "fixed_flux_faces", velocity->dim,
                          fixed_flux_faces);
  double *m_inv = NULL, *w_inv = NULL;
  if (!ierr) ierr = ts_calloc((size_t)velocity->count, sizeof *m_inv, "1 / diag(M)", &m_inv);
  if (!ierr) ierr = ts_calloc((size_t)pressure->count, sizeof *w_inv, "1 / diag(W)", &w_inv);
  if (!ierr)
    ierr = inverse_diagonals(velocity, pressure, coefficients, fixed_flux_faces, m_inv, w_inv);
  if (!ierr) ierr = schur_product(products, D, m_inv, w_inv, S);
  ts_free(&m_inv);
  ts_free(&w_inv);
  ts_matrix_destroy(&D);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "H(div) Schur complement") : 0;
}
