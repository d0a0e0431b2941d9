/* transfer.c -- the grid transfer between two levels of a Q_k box hierarchy (paper 002,
 * section 2.1): prolongation is the embedding of the coarse space into the fine one, which
 * on a Cartesian box is the tensor product of a 1D interpolation per coarse cell;
 * restriction is its transpose.  The fine level is the coarse mesh refined once with the
 * same degree (h-coarsening) or the same mesh with a higher degree (degree coarsening,
 * p-multigrid).  This file prepares the plan (the (m+1)x(kc+1) matrix of coarse basis values
 * at the m+1 fine support points of a coarse cell); the backend's `transfer` kernel applies
 * it. */
#include <math.h>
#include "mg-impl.h"

/* The fine cells per coarse cell along every direction (1 or 2), or 0 if they differ by
 * direction or are neither. */
static int refinement(ts_dofs coarse, ts_dofs fine) {
  const int64_t r = fine->cells[0] / coarse->cells[0];
  for (int d = 0; d < coarse->dim; ++d)
    if (fine->cells[d] != r * coarse->cells[d]) return 0;
  return r == 1 || r == 2 ? (int)r : 0;
}

/* Row r of the 1D matrix: the kc+1 coarse basis functions (Gauss-Lobatto points pc) at fine
 * point r of the cell: point r - q kf of child q (points pf of degree kf) of the `refine`
 * children.  The rows sum to exactly 1 (ts_lagrange_eval), so constants are reproduced to
 * the last bit. */
static void interpolation_row(int kc, const double *pc, int kf, const double *pf, int refine,
                              int r, double *row) {
  const int q = r / kf < refine - 1 ? r / kf : refine - 1;
  const double x = (q + pf[r - q * kf]) / refine;
  ts_lagrange_eval(kc + 1, pc, x, row, NULL);
}

int ts_transfer_plan_init(ts_dofs coarse, ts_dofs fine, ts_transfer_plan *plan, double *storage) {
  TS_CHECK_ARG(coarse->dim == fine->dim && coarse->degree <= fine->degree,
               "transfer: coarse level is %dD Q%d, fine level %dD Q%d: the dimensions must agree "
               "and the fine degree be at least the coarse one",
               coarse->dim, coarse->degree, fine->dim, fine->degree);
  const int dim = coarse->dim, kc = coarse->degree, kf = fine->degree;
  const int refine = refinement(coarse, fine);
  TS_CHECK_ARG(refine == 2 ? kf == kc : refine == 1 && kf > kc,
               "transfer: %lld x %lld x %lld coarse cells of Q%d, %lld x %lld x %lld fine cells of "
               "Q%d: allowed the same cells with a higher fine degree, or twice the cells in every "
               "direction with the same degree",
               (long long)coarse->cells[0], (long long)coarse->cells[1],
               (long long)coarse->cells[2], kc, (long long)fine->cells[0],
               (long long)fine->cells[1], (long long)fine->cells[2], kf);
  const int m = refine * kf;
  plan->dim = dim;
  plan->coarse_degree = kc;
  plan->fine_per_cell = m;
  for (int d = 0; d < 3; ++d) {
    plan->coarse_cells[d] = coarse->cells[d];
    plan->coarse_n[d] = coarse->n[d];
    plan->fine_n[d] = fine->n[d];
  }
  for (int r = 0; r <= m; ++r)
    interpolation_row(kc, coarse->fe->points, kf, fine->fe->points, refine, r,
                      storage + r * (kc + 1));
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
  TS_CALL(ts_backend_transfer(backend, plan, in->precision, restrict_, in->data, out->data, add));
  return 0;
}
