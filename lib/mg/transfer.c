/* transfer.c -- the grid transfer between two levels of a Q_k box hierarchy (paper 002,
 * section 2.1): prolongation is the embedding of the coarse Q_k space into the fine one,
 * which on a Cartesian box is the tensor product of a 1D interpolation per coarse cell;
 * restriction is its transpose.  This file prepares the plan (the (2k+1)x(k+1) matrix of
 * coarse basis values at the fine support points of a cell's two children); the backend's
 * `transfer` kernel applies it. */
#include <math.h>
#include "mg-impl.h"

int ts_transfer_plan_init(ts_dofs coarse, ts_dofs fine, ts_transfer_plan *plan, double *storage) {
  TS_CHECK_ARG(coarse->dim == fine->dim && coarse->degree == fine->degree,
               "transfer: coarse level is %dD Q%d, fine level %dD Q%d: they must agree",
               coarse->dim, coarse->degree, fine->dim, fine->degree);
  const int dim = coarse->dim, k = coarse->degree, n1 = k + 1;
  for (int d = 0; d < dim; ++d)
    TS_CHECK_ARG(fine->cells[d] == 2 * coarse->cells[d],
                 "transfer: direction %d has %lld coarse and %lld fine cells, need fine = 2 coarse",
                 d, (long long)coarse->cells[d], (long long)fine->cells[d]);
  plan->dim = dim;
  plan->degree = k;
  for (int d = 0; d < 3; ++d) {
    plan->coarse_cells[d] = coarse->cells[d];
    plan->coarse_n[d] = coarse->n[d];
    plan->fine_n[d] = fine->n[d];
  }
  /* row r: fine point r of the cell (child 0: x = p_r / 2; child 1: x = (1 + p_{r-k}) / 2) */
  const double *p = coarse->fe->points;
  for (int r = 0; r <= 2 * k; ++r) {
    const double x = r <= k ? 0.5 * p[r] : 0.5 * (1.0 + p[r - k]);
    ts_lagrange_eval(n1, p, x, storage + r * n1, NULL);
  }
  plan->interpolation_1d = storage;
  plan->constrained = 1;
  return 0;
}

int ts_transfer_check_vectors(ts_backend backend, int restrict_, int64_t coarse_count,
                              int64_t fine_count, ts_vec in, ts_vec out) {
  const int64_t n_in = restrict_ ? fine_count : coarse_count;
  const int64_t n_out = restrict_ ? coarse_count : fine_count;
  const char *what = restrict_ ? "restriction" : "prolongation";
  TS_CHECK_ARG(in && out, "%s: NULL vector", what);
  TS_CHECK_ARG(in->n == n_in && out->n == n_out,
               "%s: input has %lld and output %lld entries, the levels need %lld and %lld", what,
               (long long)in->n, (long long)out->n, (long long)n_in, (long long)n_out);
  TS_CHECK_ARG(in->precision == out->precision && in->backend == backend && out->backend == backend,
               "%s: input and output must be vectors of one precision on backend %s (input: "
               "%s on %s, output: %s on %s)",
               what, backend->label, ts_precision_name(in->precision), in->backend->label,
               ts_precision_name(out->precision), out->backend->label);
  return 0;
}

int ts_transfer_apply(ts_backend backend, const ts_transfer_plan *plan, int restrict_, ts_vec in,
                      ts_vec out, int add) {
  int64_t nc = 1, nf = 1;
  for (int d = 0; d < plan->dim; ++d) {
    nc *= plan->coarse_n[d];
    nf *= plan->fine_n[d];
  }
  TS_CALL(ts_transfer_check_vectors(backend, restrict_, nc, nf, in, out));
  TS_BACKEND_CALL(backend, transfer, plan, in->precision, restrict_, in->data, out->data, add);
  return 0;
}
