/* assemble-laplace.c -- the CSR matrix of the Q_k Laplacian (ts_operator_create_laplace),
 * assembled from its cell matrix.
 *
 * On a Cartesian level every cell has the same cell matrix (lib/op/laplace.c)
 *   A_K[a][b] = sum_d scale[d] prod_e (e == d ? K : M)[a_e][b_e],
 * a and b the cell's local multi-indices, K and M the 1D stiffness and mass matrices of the
 * plan (ts_laplace_plan_init): it is computed once.  Rows are assembled independently (one
 * OpenMP thread each, no write conflicts, the same sums for any thread count): row i gathers
 * row a of A_K from each of the (up to 2^dim) cells that hold DoF i, a being i's local index
 * in that cell.  The Dirichlet treatment is the matrix-free operator's: a boundary row is the
 * identity row, and an interior row drops its boundary columns (x is read as zero there).
 *
 * Sparsity: in direction d the 1D index j_d couples with i_d when one 1D cell holds both:
 * i_d inside cell c (i_d mod k != 0) couples with c k .. c k + k, a vertex i_d with
 * i_d - k .. i_d + k; an interior row clips these ranges to the interior 1 .. n_d - 2.  The
 * columns of row i are the tensor product of the ranges, so the column of a multi-index j is
 * found at a computed position, and the columns come out ascending in lexicographic order. */
#include "sparse-impl.h"

/* a DoF's multi-index (i0, i1, i2) and the column ranges of its row */
typedef struct row_shape {
  int64_t index[3];
  int64_t lo[3], width[3];      /* columns lo[d] .. lo[d] + width[d] - 1 per direction */
  int boundary;                 /* 1: a Dirichlet row (identity) */
} row_shape;

static void multi_index(const ts_laplace_plan *plan, int64_t i, int64_t *index) {
  index[0] = i % plan->n[0];
  index[1] = (i / plan->n[0]) % plan->n[1];
  index[2] = i / (plan->n[0] * plan->n[1]);
}

static void row_shape_of(const ts_laplace_plan *plan, int64_t i, row_shape *r) {
  const int64_t k = plan->degree;
  multi_index(plan, i, r->index);
  r->boundary = 0;
  for (int d = 0; d < plan->dim; ++d)
    r->boundary |= r->index[d] == 0 || r->index[d] == plan->n[d] - 1;
  for (int d = 0; d < 3; ++d) {
    r->lo[d] = r->index[d];
    r->width[d] = 1;
    if (r->boundary || d >= plan->dim) continue;
    const int64_t id = r->index[d];
    int64_t lo = id % k ? id / k * k : id - k, hi = id % k ? id / k * k + k : id + k;
    if (lo < 1) lo = 1;
    if (hi > plan->n[d] - 2) hi = plan->n[d] - 2;
    r->lo[d] = lo;
    r->width[d] = hi - lo + 1;
  }
}

static int64_t row_length(const row_shape *r) { return r->width[0] * r->width[1] * r->width[2]; }

/* A_K, n_cell x n_cell (n_cell = (k+1)^dim), local index a0 + (k+1)(a1 + (k+1) a2) */
static void cell_matrix(const ts_laplace_plan *plan, double *cell) {
  const int n1 = plan->degree + 1, n2 = plan->dim == 3 ? n1 : 1, n_cell = n1 * n1 * n2;
  for (int a = 0; a < n_cell; ++a)
    for (int b = 0; b < n_cell; ++b) {
      const int ai[3] = {a % n1, a / n1 % n1, a / (n1 * n1)};
      const int bi[3] = {b % n1, b / n1 % n1, b / (n1 * n1)};
      double sum = 0.0;
      for (int d = 0; d < plan->dim; ++d) {
        double product = plan->scale[d];
        for (int e = 0; e < plan->dim; ++e)
          product *= (e == d ? plan->stiffness_1d : plan->mass_1d)[ai[e] * n1 + bi[e]];
        sum += product;
      }
      cell[a * n_cell + b] = sum;
    }
}

/* The cells holding 1D index id in one direction (one inside a cell, two at an interior
 * vertex, one at the ends) with id's local index in each; returns their number. */
static int cells_of_index(int64_t id, int64_t k, int64_t cells, int64_t *cell, int *local) {
  if (id % k) {
    cell[0] = id / k;
    local[0] = (int)(id % k);
    return 1;
  }
  int count = 0;
  if (id / k > 0) {
    cell[count] = id / k - 1;
    local[count++] = (int)k;
  }
  if (id / k < cells) {
    cell[count] = id / k;
    local[count++] = 0;
  }
  return count;
}

/* Row i of an interior DoF: add row a of A_K of each cell holding i, the columns j of the
 * cell that are interior, at their computed positions in the row. */
static void assemble_row(const ts_laplace_plan *plan, const double *cell, const row_shape *r,
                         double *values) {
  const int64_t k = plan->degree;
  const int n1 = (int)k + 1, n_cell = plan->dim == 3 ? n1 * n1 * n1 : n1 * n1;
  int64_t cells[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  int local[3][2] = {{0, 0}, {0, 0}, {0, 0}}, count[3] = {1, 1, 1};
  for (int d = 0; d < plan->dim; ++d)
    count[d] = cells_of_index(r->index[d], k, plan->cells[d], cells[d], local[d]);
  for (int c2 = 0; c2 < count[2]; ++c2)
    for (int c1 = 0; c1 < count[1]; ++c1)
      for (int c0 = 0; c0 < count[0]; ++c0) {
        const int64_t first[3] = {cells[0][c0] * k, cells[1][c1] * k, cells[2][c2] * k};
        const int a = local[0][c0] + n1 * (local[1][c1] + n1 * local[2][c2]);
        for (int b = 0; b < n_cell; ++b) {
          const int64_t j[3] = {first[0] + b % n1, first[1] + b / n1 % n1,
                                plan->dim == 3 ? first[2] + b / (n1 * n1) : 0};
          int inside = 1;
          for (int d = 0; d < 3; ++d) inside &= j[d] >= r->lo[d] && j[d] < r->lo[d] + r->width[d];
          if (!inside) continue; /* a boundary column */
          const int64_t position =
              j[0] - r->lo[0] + r->width[0] * (j[1] - r->lo[1] + r->width[1] * (j[2] - r->lo[2]));
          values[position] += cell[a * n_cell + b];
        }
      }
}

static void row_columns(const ts_laplace_plan *plan, const row_shape *r, int64_t *columns) {
  int64_t m = 0;
  for (int64_t j2 = r->lo[2]; j2 < r->lo[2] + r->width[2]; ++j2)
    for (int64_t j1 = r->lo[1]; j1 < r->lo[1] + r->width[1]; ++j1)
      for (int64_t j0 = r->lo[0]; j0 < r->lo[0] + r->width[0]; ++j0)
        columns[m++] = j0 + plan->n[0] * (j1 + plan->n[1] * j2);
}

static void fill_rows(const ts_laplace_plan *plan, const double *cell, ts_matrix A) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < A->rows; ++i) {
    row_shape r;
    row_shape_of(plan, i, &r);
    const int64_t start = A->row_offsets[i];
    row_columns(plan, &r, A->columns + start);
    if (r.boundary)
      A->values[start] = 1.0;
    else
      assemble_row(plan, cell, &r, A->values + start);
  }
}

static int assemble(const ts_laplace_plan *plan, ts_matrix A) {
  for (int64_t i = 0; i < A->rows; ++i) {
    row_shape r;
    row_shape_of(plan, i, &r);
    A->row_offsets[i + 1] = A->row_offsets[i] + row_length(&r);
  }
  TS_CALL(ts_matrix_alloc_entries(A));
  const int n1 = plan->degree + 1, n_cell = plan->dim == 3 ? n1 * n1 * n1 : n1 * n1;
  double *cell;
  TS_CALL(ts_calloc((size_t)n_cell * (size_t)n_cell, sizeof *cell, "Laplacian cell matrix", &cell));
  cell_matrix(plan, cell);
  fill_rows(plan, cell, A);
  ts_free(&cell);
  return 0;
}

int ts_matrix_assemble_laplace_plan(const ts_laplace_plan *plan, ts_matrix *A) {
  *A = NULL;
  TS_CHECK_ARG(plan->n_dofs <= TS_MATRIX_MAX_SIZE,
               "Laplacian assembly: %lld DoFs, at most %d fit a sparse matrix",
               (long long)plan->n_dofs, TS_MATRIX_MAX_SIZE);
  ts_matrix m;
  TS_CALL(ts_matrix_alloc(plan->n_dofs, plan->n_dofs, &m));
  m->dim = plan->dim;
  const int ierr = assemble(plan, m);
  if (ierr) {
    ts_matrix_destroy(&m);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Laplacian assembly");
  }
  *A = m;
  return 0;
}

int ts_matrix_assemble_laplace(ts_dofs dofs, ts_matrix *A) {
  TS_CHECK_NOT_NULL(A);
  *A = NULL;
  TS_CHECK_NOT_NULL(dofs);
  TS_CALL(ts_dofs_require_q(dofs, "ts_matrix_assemble_laplace"));
  TS_CALL(ts_dofs_require_mapped(dofs, 0, "ts_matrix_assemble_laplace"));
  TS_CHECK_ARG(dofs->count <= TS_MATRIX_MAX_SIZE,
               "ts_matrix_assemble_laplace: argument 'dofs' has %lld DoFs, at most %d fit a "
               "sparse matrix", (long long)dofs->count, TS_MATRIX_MAX_SIZE);
  ts_laplace_plan plan;
  double matrices[2 * (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  TS_CALL(ts_laplace_plan_init(dofs, &plan, matrices));
  TS_CALL(ts_matrix_assemble_laplace_plan(&plan, A));
  return 0;
}
