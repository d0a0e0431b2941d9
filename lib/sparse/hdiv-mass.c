/* hdiv-mass.c -- the mass matrices of the interpolation-histopolation elements (paper 003)
 * on the box mesh's Cartesian cells with a coefficient constant per cell, assembled: the
 * H(div) mass M_beta = (beta u, v) of RT_k, the L2 mass W_alpha = (alpha q, r) of DGQ_k and
 * its inverse.
 *
 * On a Cartesian cell the basis functions are tensor products under the integral-preserving
 * maps (hdiv-schur.c), so each component block is a Kronecker product of 1D matrices:
 *   M_beta^(i) = beta h_i / prod_{d != i} h_d  (x)_d A_d,   W_alpha = alpha / prod_d h_d (x)_d H,
 * A_i the interpolation mass of the k+2 Gauss-Lobatto points assembled over the cells of
 * direction i (neighbours share their end points), A_d (d != i) and H the block-diagonal
 * histopolation mass, one (k+1) x (k+1) block per cell.  W_alpha^{-1} is the same product of
 * the blocks' inverses (Cholesky, LAPACK).  The Kronecker factors are taken slowest
 * direction first, matching the DoF numbering a_0 + n_0 (a_1 + n_1 a_2).
 *
 * A coefficient per cell scales every entry by the coefficient of the one cell both DoFs
 * belong to (ts_ih_cell_factor); only the diagonal entry of a flux DoF on a face between two
 * cells of its own direction sums two cells' parts, A_{e-1}[last][last] c_{e-1} +
 * A_e[0][0] c_e, so it gets the average of the two coefficients weighted by those parts. */
#include <math.h>
#include <stdlib.h>
#include "sparse-impl.h"

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info);

/* The 1D matrix of `cells` cells from the cell block (m x m, row-major, symmetric), the cells
 * sharing `shared` (0 or 1) end DoFs: stride m - shared. */
static int assemble_1d(int64_t cells, int m, int shared, const double *block, ts_matrix *A) {
  const int64_t count = cells * m * m, n = cells * (m - shared) + shared;
  int64_t *rows = malloc((size_t)count * sizeof *rows), *cols = malloc((size_t)count * sizeof *cols);
  double *values = malloc((size_t)count * sizeof *values);
  int ierr = rows && cols && values ? 0 : TS_ERROR(TS_ERR_MEMORY, "1D mass triplets");
  for (int64_t c = 0, t = 0; !ierr && c < cells; ++c)
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b, ++t) {
        rows[t] = c * (m - shared) + a;
        cols[t] = c * (m - shared) + b;
        values[t] = block[a * m + b];
      }
  if (!ierr) ierr = ts_matrix_create_triplets(n, n, count, rows, cols, values, A);
  free(rows);
  free(cols);
  free(values);
  return ierr;
}

/* B = inverse of the symmetric positive definite m x m block A (row-major) */
static int invert_spd(int m, const double *A, double *B) {
  int info = 0;
  for (int i = 0; i < m * m; ++i) B[i] = A[i];
  dpotrf_("L", &m, B, &m, &info);
  if (!info) dpotri_("L", &m, B, &m, &info);
  TS_CHECK_ARG(info == 0, "histopolation mass: LAPACK dpotrf/dpotri info %d", info);
  /* LAPACK's column-major lower triangle is the row-major upper one: mirror it below */
  for (int i = 0; i < m; ++i)
    for (int j = i + 1; j < m; ++j) B[j * m + i] = B[i * m + j];
  return 0;
}

int ts_ih_mass_blocks(ts_fe fe, int inverse, ts_ih_mass_1d *b) {
  const int n = fe->degree + 2;
  double stiffness[TS_IH_N * TS_IH_N], h[TS_IH_N * TS_IH_N];
  TS_CALL(ts_lagrange_mass_stiffness(n, fe->normal_points, b->interpolation, stiffness));
  TS_CALL(ts_histopolation_mass(n, fe->normal_points, h));
  if (inverse) TS_CALL(invert_spd(n - 1, h, b->histopolation));
  else
    for (int i = 0; i < (n - 1) * (n - 1); ++i) b->histopolation[i] = h[i];
  return 0;
}

/* scale * (x)_d A_d over d = dim-1 .. 0 for component c of dofs (c = -1: the L2 element) */
static int component_matrix(ts_dofs dofs, const ts_ih_mass_1d *b, int c, double scale,
                            ts_matrix *M) {
  const int k1 = dofs->degree + 1;
  ts_matrix factor[3] = {NULL, NULL, NULL}, product = NULL;
  int ierr = 0;
  for (int d = 0; d < dofs->dim && !ierr; ++d)
    ierr = d == c ? assemble_1d(dofs->cells[d], k1 + 1, 1, b->interpolation, &factor[d])
                  : assemble_1d(dofs->cells[d], k1, 0, b->histopolation, &factor[d]);
  if (!ierr) ierr = ts_matrix_kronecker(factor[1], factor[0], &product);
  if (!ierr && dofs->dim == 3) {
    ts_matrix two = product;
    product = NULL;
    ierr = ts_matrix_kronecker(factor[2], two, &product);
    ts_matrix_destroy(&two);
  }
  for (int d = 0; d < 3; ++d) ts_matrix_destroy(&factor[d]);
  if (ierr) return ierr;
  for (int64_t e = 0; e < product->nonzeros; ++e) product->values[e] *= scale;
  *M = product;
  return 0;
}

/* The block-diagonal matrix of the n square blocks, one after the other. */
static int stack_diagonal(int n, ts_matrix *blocks, ts_matrix *M) {
  int64_t rows = 0;
  for (int i = 0; i < n; ++i) rows += blocks[i]->rows;
  ts_matrix m;
  TS_CALL(ts_matrix_alloc(rows, rows, &m));
  int64_t row = 0, shift = 0;
  for (int i = 0; i < n; ++i)
    for (int64_t r = 0; r < blocks[i]->rows; ++r, ++row)
      m->row_offsets[row + 1] = m->row_offsets[row] + blocks[i]->row_offsets[r + 1] -
                                blocks[i]->row_offsets[r];
  const int ierr = ts_matrix_alloc_entries(m);
  if (ierr) {
    ts_matrix_destroy(&m);
    return ierr;
  }
  int64_t out = 0;
  for (int i = 0; i < n; ++i) {
    for (int64_t e = 0; e < blocks[i]->nonzeros; ++e, ++out) {
      m->columns[out] = blocks[i]->columns[e] + shift;
      m->values[out] = blocks[i]->values[e];
    }
    shift += blocks[i]->rows;
  }
  *M = m;
  return 0;
}

double ts_ih_piola_factor(ts_dofs dofs, int c) {
  double f = 1.0;
  for (int d = 0; d < dofs->dim; ++d) f *= d == c ? dofs->h[d] : 1.0 / dofs->h[d];
  return f;
}

int64_t ts_ih_cell_count(ts_dofs dofs) { return dofs->cells[0] * dofs->cells[1] * dofs->cells[2]; }

int ts_ih_check_cells(const char *fn, const char *name, ts_dofs dofs, const double *cells) {
  for (int64_t c = 0; cells && c < ts_ih_cell_count(dofs); ++c)
    TS_CHECK_ARG(isfinite(cells[c]) && cells[c] > 0.0,
                 "%s: argument '%s': cell %lld (of %lld) has %g, a positive number is required",
                 fn, name, (long long)c, (long long)ts_ih_cell_count(dofs), cells[c]);
  return 0;
}

int ts_ih_check_mass(const char *fn, ts_dofs dofs, double coefficient, const double *cells) {
  TS_CHECK_ARG(dofs, "%s: argument 'dofs' is NULL, a valid pointer is required", fn);
  TS_CHECK_ARG(dofs->fe->family == TS_FE_RT_IH || dofs->fe->family == TS_FE_L2_IH,
               "%s: argument 'dofs' is not of an interpolation-histopolation element "
               "(ts_fe_create_rt_ih, ts_fe_create_l2_ih)", fn);
  TS_CHECK_ARG(isfinite(coefficient) && coefficient > 0.0,
               "%s: argument 'coefficient' is %g, a positive number is required", fn, coefficient);
  return ts_ih_check_cells(fn, "cell_coefficients", dofs, cells);
}

/* the coefficient of the cell with indices cell[] per direction */
static double cell_value(ts_dofs dofs, const double *cells, const int64_t *cell) {
  return cells[cell[0] + dofs->cells[0] * (cell[1] + dofs->cells[1] * cell[2])];
}

double ts_ih_cell_factor(ts_dofs dofs, const double *cells, const ts_ih_mass_1d *m, int c,
                         const int64_t *a, const int64_t *b) {
  const int64_t k1 = dofs->degree + 1;
  const int normal = dofs->fe->family == TS_FE_RT_IH ? c : -1;
  int64_t cell[3] = {0, 0, 0};
  for (int d = 0; d < dofs->dim; ++d)
    if (d != normal) cell[d] = a[d] / k1;
  if (normal < 0) return cell_value(dofs, cells, cell);
  const int64_t lo = a[normal] < b[normal] ? a[normal] : b[normal], n = dofs->cells[normal];
  cell[normal] = lo / k1 < n ? lo / k1 : n - 1;
  if (a[normal] != b[normal] || lo % k1 || lo == 0 || lo == n * k1)
    return cell_value(dofs, cells, cell);
  /* a face between the cells e - 1 and e of the normal direction */
  const double right = m->interpolation[0], left = m->interpolation[k1 * (k1 + 2)];
  const double c_right = cell_value(dofs, cells, cell);
  --cell[normal];
  return (left * cell_value(dofs, cells, cell) + right * c_right) / (left + right);
}

/* Every entry M_ij times the cell factor of DoFs i and j (inverse: its reciprocal; W_alpha's
 * inverse is block diagonal per cell, so the factor is the cell's). */
static void scale_by_cells(ts_dofs dofs, const double *cells, const ts_ih_mass_1d *m, int inverse,
                           ts_matrix M) {
  for (int64_t i = 0; i < M->rows; ++i) {
    int64_t a[3], b[3];
    const int c = ts_dof_position(dofs, i, a);
    for (int64_t e = M->row_offsets[i]; e < M->row_offsets[i + 1]; ++e) {
      ts_dof_position(dofs, M->columns[e], b);
      const double f = ts_ih_cell_factor(dofs, cells, m, c, a, b);
      M->values[e] *= inverse ? 1.0 / f : f;
    }
  }
}

/* ts_ih_check_mass, and the DoFs fit a sparse matrix */
static int check_mass_arguments(const char *fn, ts_dofs dofs, double coefficient,
                                const double *cells) {
  TS_CALL(ts_ih_check_mass(fn, dofs, coefficient, cells));
  TS_CALL(ts_dofs_require_mapped(dofs, 0, fn)); /* Cartesian cells: Kronecker products */
  TS_CHECK_ARG(dofs->count <= TS_MATRIX_MAX_SIZE, "%s: %lld DoFs, at most %d fit a sparse matrix",
               fn, (long long)dofs->count, TS_MATRIX_MAX_SIZE);
  return 0;
}

/* the mass matrix (inverse: of the L2 element only) */
static int assemble(ts_dofs dofs, double coefficient, const double *cells, int inverse,
                    ts_matrix *M) {
  ts_ih_mass_1d b;
  TS_CALL(ts_ih_mass_blocks(dofs->fe, inverse, &b));
  const int l2 = dofs->fe->family == TS_FE_L2_IH;
  ts_matrix blocks[3] = {NULL, NULL, NULL};
  int ierr = 0;
  for (int c = 0; c < dofs->components && !ierr; ++c) {
    const double f = coefficient * ts_ih_piola_factor(dofs, l2 ? -1 : c);
    ierr = component_matrix(dofs, &b, l2 ? -1 : c, inverse ? 1.0 / f : f, &blocks[c]);
  }
  if (!ierr) ierr = stack_diagonal(dofs->components, blocks, M);
  for (int c = 0; c < 3; ++c) ts_matrix_destroy(&blocks[c]);
  if (!ierr) (*M)->dim = dofs->dim;
  if (!ierr && cells) scale_by_cells(dofs, cells, &b, inverse, *M);
  return ierr;
}

int ts_matrix_assemble_mass(ts_dofs dofs, double coefficient, const double *cell_coefficients,
                            ts_matrix *M) {
  TS_CHECK_NOT_NULL(M);
  *M = NULL;
  TS_CALL(check_mass_arguments("ts_matrix_assemble_mass", dofs, coefficient, cell_coefficients));
  const int ierr = assemble(dofs, coefficient, cell_coefficients, 0, M);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "mass matrix") : 0;
}

int ts_matrix_assemble_mass_inverse(ts_dofs dofs, double coefficient,
                                    const double *cell_coefficients, ts_matrix *M) {
  TS_CHECK_NOT_NULL(M);
  *M = NULL;
  TS_CALL(check_mass_arguments("ts_matrix_assemble_mass_inverse", dofs, coefficient,
                               cell_coefficients));
  TS_CHECK_ARG(dofs->fe->family == TS_FE_L2_IH,
               "ts_matrix_assemble_mass_inverse: argument 'dofs' is of RT_k, whose mass "
               "matrix couples the cells: only the discontinuous DGQ_k (ts_fe_create_l2_ih) "
               "has a block-diagonal inverse");
  const int ierr = assemble(dofs, coefficient, cell_coefficients, 1, M);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "inverse mass matrix") : 0;
}
