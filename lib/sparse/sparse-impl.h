/* sparse-impl.h -- the layout of ts_matrix, shared by the files of lib/sparse/ (CSR storage
 * and its operator, assembly from cell matrices, the hypre BoomerAMG preconditioner). */
#ifndef TESSERA_SPARSE_IMPL_H
#define TESSERA_SPARSE_IMPL_H

#include "../tessera-impl.h"

/* The largest row or column count: hypre (HYPRE_BigInt of Debian's build) and cuSPARSE's
 * 32-bit descriptors take int rows. */
#define TS_MATRIX_MAX_SIZE INT32_MAX

struct ts_matrix_s {
  int64_t rows, cols, nonzeros;
  int64_t *row_offsets;         /* rows + 1 */
  int64_t *columns;             /* nonzeros, ascending within a row */
  double *values;               /* nonzeros */
  int dim;                      /* the PDE's dimension when known (assembled: 2 or 3), else 0 */
};

/* An empty matrix shell of the given sizes with row_offsets allocated (zeros). */
int ts_matrix_alloc(int64_t rows, int64_t cols, ts_matrix *A);
/* Allocate columns and values for row_offsets[rows] entries (after the offsets are set). */
int ts_matrix_alloc_entries(ts_matrix A);
/* The plan a backend's csr_create reads (borrowing A's arrays). */
void ts_matrix_csr_plan(ts_matrix A, ts_csr_plan *plan);
/* ts_matrix_assemble_hdiv_schur with the product D M~^{-1} D^T on `products`
 * (ts_matrix_multiply_on: the backend's SpGEMM where it has one; NULL: the host) */
int ts_hdiv_schur_assemble_on(ts_backend products, ts_dofs velocity, ts_dofs pressure,
                              const ts_hdiv_coefficients *coefficients,
                              unsigned fixed_flux_faces, ts_matrix *S);

/* ---- the interpolation-histopolation elements on Cartesian cells (hdiv-mass.c) */
#define TS_IH_N (TS_MAX_DEGREE + 2) /* Gauss-Lobatto points per direction, at most */
/* The 1D reference mass matrices of the element on [0,1] (row-major): the interpolation mass
 * of its k+2 Gauss-Lobatto points, the histopolation mass of its k+1 sub-intervals (or that
 * matrix's inverse). */
typedef struct ts_ih_mass_1d {
  double interpolation[TS_IH_N * TS_IH_N], histopolation[TS_IH_N * TS_IH_N];
} ts_ih_mass_1d;
int ts_ih_mass_blocks(ts_fe fe, int inverse, ts_ih_mass_1d *b);
/* The factor of the cell sizes h in a mass matrix entry of component c under the
 * integral-preserving maps: h_c / prod_{d != c} h_d for RT_k, 1 / prod_d h_d for c = -1 (the
 * L2 element). */
double ts_ih_piola_factor(ts_dofs dofs, int c);
/* fn's arguments of a mass matrix: dofs of an interpolation-histopolation element, a
 * positive finite coefficient, and NULL or positive finite cell coefficients; TS_ERR_ARG
 * naming fn and the argument (and the cell) otherwise */
int ts_ih_check_mass(const char *fn, ts_dofs dofs, double coefficient, const double *cells);
/* NULL or a positive finite value per cell of the level (the argument `name` of fn) */
int ts_ih_check_cells(const char *fn, const char *name, ts_dofs dofs, const double *cells);
/* fn's coefficients argument of the H(div) systems: alpha and beta positive (alpha = INFINITY
 * without alpha_cells allowed), the arrays NULL or positive per cell of velocity's level */
int ts_hdiv_check_coefficients(const char *fn, ts_dofs velocity, const ts_hdiv_coefficients *k);
/* The cells of the DoFs' level. */
int64_t ts_ih_cell_count(ts_dofs dofs);
/* The factor a coefficient per cell (cells numbered as ts_coefficients) puts on the mass
 * entry of the DoFs at positions a and b of component c (ts_dof_position): the coefficient of
 * the cell both lie in; for the diagonal entry of a flux on a face between two cells of its
 * normal direction, the two cells' coefficients averaged with the weights of their parts of
 * the 1D interpolation mass m (hdiv-mass.c). */
double ts_ih_cell_factor(ts_dofs dofs, const double *cells, const ts_ih_mass_1d *m, int c,
                         const int64_t *a, const int64_t *b);

#endif
