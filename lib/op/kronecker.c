/* kronecker.c -- the operator scale (F_{dim-1} (x) .. (x) F_0) of banded 1D factors
 * (ts_band_1d), applied by the backend's kronecker_apply (ts_kronecker_plan): on a box the
 * Taylor-Hood coupling blocks D_c and B_c^T are such products (doc/taylor-hood.md section
 * 2), so they need neither a sparse matrix nor more memory than their 1D factors. */
#include <string.h>
#include "../tessera-impl.h"

typedef struct kronecker {
  ts_kronecker_plan plan;
  ts_vec values[3];             /* the factors' band values, in the operator's precision */
  double *diagonal[3];          /* square factors (rows = cols, row_step = col_step): their
                                   diagonals on the host, the first times scale; else NULL */
  double *bands[3];             /* the factors' band values on the host (for the assembly) */
} kronecker;

static int kronecker_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  const kronecker *k = op->data;
  TS_CALL(ts_backend_kronecker_apply(op->backend, &k->plan, op->precision, x->data, y->data, add));
  return 0;
}

/* one multiply and one add per stored band entry of each output's product */
static double kronecker_flops(ts_operator op) {
  const kronecker *k = op->data;
  double terms = 1.0;
  for (int d = 0; d < k->plan.dim; ++d) terms *= k->plan.width[d];
  return 2.0 * terms * (double)k->plan.n_rows;
}

/* the diagonal of a product of square factors is the product of their diagonals */
static int kronecker_diagonal(ts_operator op, ts_vec d) {
  const kronecker *k = op->data;
  if (!k->diagonal[0])
    return TS_ERROR(TS_ERR_UNSUPPORTED, "Kronecker operator: %lld x %lld factors have no diagonal "
                    "(square factors with equal steps only)", (long long)k->plan.rows[0],
                    (long long)k->plan.cols[0]);
  const double *factors[3] = {k->diagonal[0], k->diagonal[1], k->diagonal[2]};
  TS_CALL(ts_vec_set_tensor(d, k->plan.dim, k->plan.rows, factors));
  return 0;
}

/* factor d as a CSR matrix: its band's entries inside the matrix, zeros left out */
static int factor_matrix(const kronecker *k, int d, ts_matrix *F) {
  const ts_kronecker_plan *pl = &k->plan;
  const int64_t rows = pl->rows[d], cols = pl->cols[d], width = pl->width[d];
  int64_t *ri = NULL, *ci = NULL, count = 0;
  double *v = NULL;
  int ierr = ts_calloc((size_t)(rows * width), sizeof *ri, "Kronecker factor", &ri);
  if (!ierr) ierr = ts_calloc((size_t)(rows * width), sizeof *ci, "Kronecker factor", &ci);
  if (!ierr) ierr = ts_calloc((size_t)(rows * width), sizeof *v, "Kronecker factor", &v);
  for (int64_t r = 0; r < rows && !ierr; ++r) {
    const int64_t first = (r / pl->row_step[d] - 1) * pl->col_step[d];
    for (int64_t w = 0; w < width; ++w) {
      const double value = k->bands[d][r * width + w];
      if (first + w < 0 || first + w >= cols || value == 0.0) continue;
      ri[count] = r;
      ci[count] = first + w;
      v[count++] = value;
    }
  }
  if (!ierr) ierr = ts_matrix_create_triplets(rows, cols, count, ri, ci, v, F);
  ts_free(&ri);
  ts_free(&ci);
  ts_free(&v);
  return ierr;
}

/* scale (F_{dim-1} (x) .. (x) F_0) */
static int kronecker_assemble(ts_operator op, ts_matrix *M) {
  const kronecker *k = op->data;
  ts_matrix F[3] = {NULL, NULL, NULL};
  int ierr = 0;
  for (int d = 0; d < k->plan.dim && !ierr; ++d) ierr = factor_matrix(k, d, &F[d]);
  if (!ierr) ierr = ts_matrix_kronecker_chain(k->plan.dim, F, k->plan.scale, M);
  for (int d = 0; d < 3; ++d) ts_matrix_destroy(&F[d]);
  return ierr;
}

static void free_kronecker(kronecker *k) {
  for (int d = 0; d < 3; ++d) {
    ts_vec_destroy(&k->values[d]);
    ts_free(&k->diagonal[d]);
    ts_free(&k->bands[d]);
  }
  ts_free(&k);
}

static void kronecker_destroy(ts_operator op) {
  kronecker *k = op->data;
  if (k) free_kronecker(k);
  op->data = NULL;
}

static const ts_operator_ops kronecker_ops = {
    .name = "kronecker",
    .apply = kronecker_apply,
    .diagonal = kronecker_diagonal,
    .flops = kronecker_flops,
    .destroy = kronecker_destroy,
    .assemble = kronecker_assemble,
};

/* The diagonals of square factors (entry r of row r sits at w = r - s(r) of its band) into
 * k->diagonal; none if a factor is not square. */
static int square_diagonals(int dim, const ts_band_1d *factors, double scale, kronecker *k) {
  for (int d = 0; d < dim; ++d)
    if (factors[d].rows != factors[d].cols || factors[d].row_step != factors[d].col_step)
      return 0;
  for (int d = 0; d < dim; ++d) {
    const ts_band_1d *f = &factors[d];
    const int width = 2 * f->col_step + 1;
    TS_CALL(ts_calloc((size_t)f->rows, sizeof(double), "Kronecker diagonal", &k->diagonal[d]));
    for (int64_t r = 0; r < f->rows; ++r) {
      const int64_t w = r - (r / f->row_step - 1) * f->col_step;
      const double entry = w >= 0 && w < width ? f->values[r * width + w] : 0.0;
      k->diagonal[d][r] = (d == 0 ? scale : 1.0) * entry;
    }
  }
  return 0;
}

int ts_operator_create_kronecker(ts_backend backend, int dim, const ts_band_1d *factors,
                                 double scale, ts_precision p, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(factors);
  TS_CHECK_ARG(dim == 2 || dim == 3, "Kronecker operator: dim = %d, allowed 2 or 3", dim);
  if (!backend->ops.kronecker_apply)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'kronecker_apply'",
                    backend->name);
  for (int d = 0; d < dim; ++d) {
    const ts_band_1d *f = &factors[d];
    TS_CHECK_ARG(f->rows >= 1 && f->cols >= 1 && f->row_step >= 1 && f->col_step >= 1 && f->values,
                 "Kronecker operator: factor %d is %lld x %lld with steps %d and %d%s; allowed "
                 "positive sizes and steps and values", d, (long long)f->rows, (long long)f->cols,
                 f->row_step, f->col_step, f->values ? "" : " and no values");
  }
  kronecker *k;
  TS_CALL(ts_calloc(1, sizeof *k, "Kronecker operator", &k));
  ts_kronecker_plan *pl = &k->plan;
  *pl = (ts_kronecker_plan){.dim = dim, .n_rows = 1, .n_cols = 1, .scale = scale};
  int ierr = square_diagonals(dim, factors, scale, k);
  for (int d = 0; d < 3 && !ierr; ++d) {
    const ts_band_1d *f = d < dim ? &factors[d] : NULL;
    pl->rows[d] = f ? f->rows : 1;
    pl->cols[d] = f ? f->cols : 1;
    pl->row_step[d] = f ? f->row_step : 1;
    pl->col_step[d] = f ? f->col_step : 1;
    pl->width[d] = f ? 2 * f->col_step + 1 : 1;
    pl->n_rows *= pl->rows[d];
    pl->n_cols *= pl->cols[d];
    if (!f) continue;
    const size_t band = (size_t)(f->rows * pl->width[d]);
    ierr = ts_vec_create(backend, (int64_t)band, p, &k->values[d]);
    if (!ierr) ierr = ts_vec_set_from_host(k->values[d], f->values);
    if (!ierr) ierr = ts_calloc(band, sizeof(double), "Kronecker factor", &k->bands[d]);
    if (!ierr) memcpy(k->bands[d], f->values, band * sizeof(double));
    if (!ierr) pl->values[d] = k->values[d]->data;
  }
  if (!ierr)
    ierr = ts_operator_create_shell_rect(backend, &kronecker_ops, pl->n_rows, pl->n_cols, p, k, op);
  if (ierr) {
    free_kronecker(k);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Kronecker operator");
  }
  return 0;
}
