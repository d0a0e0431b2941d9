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

#endif
