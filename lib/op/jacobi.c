/* jacobi.c -- the Jacobi preconditioner P = diag(A)^{-1} (weighted: omega diag(A)^{-1}),
 * applied entrywise. */
#include <math.h>
#include <stdlib.h>
#include "../tessera-impl.h"

typedef struct jacobi_data {
  ts_vec inverse_diagonal;
  ts_vec scratch; /* for apply_add */
} jacobi_data;

static int jacobi_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  jacobi_data *data = op->data;
  if (!add) {
    TS_CALL(ts_vec_pointwise_mult(data->inverse_diagonal, x, y));
    return 0;
  }
  TS_CALL(ts_vec_pointwise_mult(data->inverse_diagonal, x, data->scratch));
  TS_CALL(ts_vec_axpby(1.0, data->scratch, 1.0, y));
  return 0;
}

static int jacobi_diagonal(ts_operator op, ts_vec d) {
  jacobi_data *data = op->data;
  TS_CALL(ts_vec_copy(data->inverse_diagonal, d));
  return 0;
}

static double jacobi_flops(ts_operator op) { return (double)op->n; }

static void jacobi_destroy(ts_operator op) {
  jacobi_data *data = op->data;
  ts_vec_destroy(&data->inverse_diagonal);
  ts_vec_destroy(&data->scratch);
  ts_free(&op->data);
}

/* the diagonal matrix of the weighted inverse diagonal */
static int jacobi_assemble(ts_operator op, ts_matrix *M) {
  jacobi_data *data = op->data;
  const int64_t n = op->n;
  double *d = NULL;
  int64_t *index = NULL;
  int ierr = ts_calloc((size_t)n, sizeof *d, "Jacobi matrix", &d);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *index, "Jacobi matrix", &index);
  if (!ierr) ierr = ts_vec_get_to_host(data->inverse_diagonal, d);
  for (int64_t i = 0; i < n && !ierr; ++i) index[i] = i;
  if (!ierr) ierr = ts_matrix_create_triplets(n, n, n, index, index, d, M);
  free(d);
  free(index);
  return ierr;
}

static const ts_operator_ops jacobi_ops = {
    .name = "jacobi",
    .apply = jacobi_apply,
    .diagonal = jacobi_diagonal,
    .flops = jacobi_flops,
    .destroy = jacobi_destroy,
    .apply_transpose = jacobi_apply, /* diagonal */
    .assemble = jacobi_assemble,
};

/* Invert the diagonal on the host (a setup step, once), times weight: a zero or non-finite
 * entry means the operator has no usable diagonal and is reported with its row. */
static int invert_diagonal(ts_vec diag, double weight) {
  double *h;
  int ierr = 0;
  TS_CALL(ts_calloc((size_t)diag->n, sizeof *h, "Jacobi diagonal", &h));
  ierr = ts_vec_get_to_host(diag, h);
  for (int64_t i = 0; !ierr && i < diag->n; ++i) {
    if (h[i] == 0.0 || !isfinite(h[i]))
      ierr = TS_ERROR(TS_ERR_ARG, "Jacobi: diagonal entry %lld is %g, need a non-zero finite value",
                      (long long)i, h[i]);
    else
      h[i] = weight / h[i];
  }
  if (!ierr) ierr = ts_vec_set_from_host(diag, h);
  free(h);
  return ierr;
}

int ts_operator_create_jacobi(ts_operator A, ts_operator *jacobi) {
  return ts_operator_create_jacobi_weighted(A, 1.0, jacobi);
}

int ts_operator_create_jacobi_weighted(ts_operator A, double weight, ts_operator *jacobi) {
  TS_CHECK_NOT_NULL(jacobi);
  *jacobi = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_ARG(weight > 0.0 && weight <= 2.0, "Jacobi: weight = %g, allowed 0 < weight <= 2",
               weight);
  jacobi_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "Jacobi preconditioner", &data));
  int ierr = ts_operator_vec_create(A, &data->inverse_diagonal);
  if (!ierr) ierr = ts_operator_vec_create(A, &data->scratch);
  if (!ierr) ierr = ts_operator_diagonal(A, data->inverse_diagonal);
  if (!ierr) ierr = invert_diagonal(data->inverse_diagonal, weight);
  if (!ierr) ierr = ts_operator_create_shell(A->backend, &jacobi_ops, A->n, A->precision, data, jacobi);
  if (!ierr) (*jacobi)->layout = A->layout; /* pointwise: distributed as A */
  if (ierr) {
    ts_vec_destroy(&data->inverse_diagonal);
    ts_vec_destroy(&data->scratch);
    ts_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Jacobi setup");
  }
  return 0;
}
