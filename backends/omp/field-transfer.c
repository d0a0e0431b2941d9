/* field-transfer.c -- the omp backend's transfer between two levels of a multi-field
 * tensor-product space (ts_field_transfer_plan, e.g. RT_k x DGQ_k, doc/stokes.md section 5):
 * prolongation fine = P coarse and restriction coarse = P^T fine, double and float.
 *
 * Algorithm.  Per field, P = P_0 (x) P_1 (x) P_2 with the global 1D prolongations P_d: row f
 * (a fine index) holds the coarse cell's m prolongation_1d values in row r of the cell that
 * owns f (the cell of f / (2s), the last cell for the very last index, s the coarse cell
 * step), so a continuous direction's fine DoF on a coarse cell boundary takes its (equal)
 * values from the right cell; column j (a coarse index) lists the fine indices of the one or
 * two coarse cells containing j, each fine index once (from its owner).  One code path
 * serves continuous and discontinuous directions: they differ only by the overlap
 * `continuous` (0 or 1) in s = m - continuous and the 2m - continuous rows per cell.  Every
 * output entry (fine in prolongation, coarse in restriction) is the gather over the tensor
 * product of its 1D row or column, so output entries run in parallel without races and
 * restriction is deterministic.  Cost: m^dim (prolongation) and up to (4m)^dim (restriction)
 * multiply-adds per output entry, no temporaries.  End DoFs of constrained continuous
 * directions are read and written as zero. */
#include "omp-field-transfer.h"
#include "omp-threads.h"

/* One row or column of a global 1D prolongation: at most two cells of 2m rows. */
#define STENCIL_MAX_TERMS (4 * TS_FIELD_TRANSFER_MAX_CELL_DOFS)
typedef struct stencil_1d {
  int count;
  int64_t index[STENCIL_MAX_TERMS];
  double weight[STENCIL_MAX_TERMS];
} stencil_1d;

/* 1D index a (of n) in direction d is a constrained end DoF: read and written as zero */
static inline int is_zero_dof(const ts_field_transfer_field *f, int d, int64_t a, int64_t n) {
  return f->constrained && f->continuous[d] && (a == 0 || a == n - 1);
}

static inline void stencil_add(stencil_1d *s, int64_t index, double weight) {
  s->index[s->count] = index;
  s->weight[s->count] = weight;
  s->count++;
}

/* Row `fine` of P_d: the coarse indices of the owning coarse cell and their weights. */
static void prolongation_row(const ts_field_transfer_plan *plan, const ts_field_transfer_field *f,
                             int d, int64_t fine, stencil_1d *s) {
  const int m = f->cell_dofs[d], step = m - f->continuous[d];
  const int64_t last_cell = plan->coarse_cells[d] - 1;
  const int64_t cell = fine / (2 * step) < last_cell ? fine / (2 * step) : last_cell;
  const double *row = f->prolongation_1d[d] + (fine - 2 * step * cell) * m;
  s->count = 0;
  for (int a = 0; a < m; ++a)
    if (!is_zero_dof(f, d, step * cell + a, f->coarse_n[d])) stencil_add(s, step * cell + a, row[a]);
}

/* Column `coarse` of P_d: the fine indices owned by the coarse cells containing it. */
static void prolongation_column(const ts_field_transfer_plan *plan,
                                const ts_field_transfer_field *f, int d, int64_t coarse,
                                stencil_1d *s) {
  const int m = f->cell_dofs[d], c = f->continuous[d], step = m - c, rows = 2 * m - c;
  const int64_t last_cell = plan->coarse_cells[d] - 1;
  const int64_t first = coarse - m + 1 <= 0 ? 0 : (coarse - m + step) / step;
  const int64_t last = coarse / step < last_cell ? coarse / step : last_cell;
  s->count = 0;
  for (int64_t cell = first; cell <= last; ++cell) {
    const int a = (int)(coarse - step * cell);
    /* a continuous direction's last row is owned by the next cell (its row 0) */
    const int owned_rows = c && cell < last_cell ? rows - 1 : rows;
    for (int r = 0; r < owned_rows; ++r) {
      const int64_t fine = 2 * step * cell + r;
      if (!is_zero_dof(f, d, fine, f->fine_n[d]))
        stencil_add(s, fine, f->prolongation_1d[d][r * m + a]);
    }
  }
}

/* The 1D stencil of output index a in direction d: a row of P_d (prolongation) or a column
 * (restriction); the identity beyond dim. */
static void transfer_stencil(const ts_field_transfer_plan *plan, const ts_field_transfer_field *f,
                             int d, int restrict_, int64_t a, stencil_1d *s) {
  if (d >= plan->dim) {
    s->count = 0;
    stencil_add(s, a, 1.0);
  } else if (restrict_) {
    prolongation_column(plan, f, d, a, s);
  } else {
    prolongation_row(plan, f, d, a, s);
  }
}

#define REAL double
#define FT(name) field_transfer_##name##_double
#include "field-transfer-kernel.h"
#undef REAL
#undef FT
#define REAL float
#define FT(name) field_transfer_##name##_float
#include "field-transfer-kernel.h"
#undef REAL
#undef FT

void ts_omp_field_transfer(const ts_field_transfer_plan *plan, ts_precision p, int restrict_,
                           const void *in, void *out, int add) {
  if (p == TS_SINGLE) field_transfer_apply_float(plan, restrict_, in, out, add);
  else field_transfer_apply_double(plan, restrict_, in, out, add);
}
