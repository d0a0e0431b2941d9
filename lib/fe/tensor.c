/* tensor.c -- host-side tensor-product helpers for setup and post-processing (right-hand
 * sides, errors, output): one-dimensional contractions, the 1D basis of a cell's quadrature
 * (ts_basis_1d) and its contractions, and cell DoF index lists.  The hot operator loops are
 * the backends'. */
#include "../tessera-impl.h"

void ts_tensor_contract(int dim, const int *shape, int dir, const double *B, int rows,
                        int transpose, const double *in, double *out) {
  /* in has shape[0] x shape[1] x shape[2] (index 0 fastest); out has rows along dir.
   * B is rows x shape[dir] (or shape[dir] x rows, used transposed). */
  int before = 1, after = 1;
  for (int d = 0; d < dir; ++d) before *= shape[d];
  for (int d = dir + 1; d < dim; ++d) after *= shape[d];
  const int n = shape[dir];
  for (int a = 0; a < after; ++a)
    for (int r = 0; r < rows; ++r)
      for (int b = 0; b < before; ++b) {
        double s = 0.0;
        for (int j = 0; j < n; ++j)
          s += (transpose ? B[j * rows + r] : B[r * n + j]) * in[(a * n + j) * before + b];
        out[(a * rows + r) * before + b] = s;
      }
}

void ts_cell_dof_indices(ts_dofs dofs, const int64_t *cell, int64_t *indices) {
  const int k = dofs->degree, n1 = k + 1;
  const int n2 = dofs->dim == 3 ? n1 : 1;
  int m = 0;
  for (int a2 = 0; a2 < n2; ++a2)
    for (int a1 = 0; a1 < n1; ++a1)
      for (int a0 = 0; a0 < n1; ++a0) {
        const int64_t i0 = cell[0] * k + a0, i1 = cell[1] * k + a1;
        const int64_t i2 = dofs->dim == 3 ? cell[2] * k + a2 : 0;
        indices[m++] = i0 + dofs->n[0] * (i1 + dofs->n[1] * i2);
      }
}

int64_t ts_cell_count(ts_dofs dofs) { return dofs->cells[0] * dofs->cells[1] * dofs->cells[2]; }

void ts_cell_from_index(ts_dofs dofs, int64_t index, int64_t *cell) {
  cell[0] = index % dofs->cells[0];
  cell[1] = (index / dofs->cells[0]) % dofs->cells[1];
  cell[2] = index / (dofs->cells[0] * dofs->cells[1]);
}

void ts_cell_layers_for(ts_dofs dofs, ts_cell_fn fn, void *ctx) {
  const int last = dofs->dim - 1;
  const int64_t layers = dofs->cells[last], per_layer = ts_cell_count(dofs) / layers;
  for (int parity = 0; parity < 2; ++parity) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t layer = parity; layer < layers; layer += 2)
      for (int64_t i = layer * per_layer; i < (layer + 1) * per_layer; ++i) fn(ctx, i);
  }
}

int ts_basis_1d_init(ts_dofs dofs, int nq, ts_basis_1d *b) {
  TS_CHECK_ARG(nq >= 1 && nq <= TS_BASIS_1D_MAX_Q, "ts_basis_1d_init: %d points, allowed 1..%d",
               nq, TS_BASIS_1D_MAX_Q);
  b->n1 = dofs->degree + 1;
  b->nq = nq;
  TS_CALL(ts_gauss_rule(nq, b->points, b->weights));
  ts_lagrange_tabulate(b->n1, dofs->fe->points, nq, b->points, b->value, b->derivative);
  return 0;
}

double ts_basis_1d_point(ts_dofs dofs, const ts_basis_1d *b, const int64_t *cell, int m,
                         double *x) {
  double w = 1.0;
  for (int d = 0; d < dofs->dim; ++d, m /= b->nq) {
    x[d] = dofs->lower[d] + dofs->h[d] * ((double)cell[d] + b->points[m % b->nq]);
    w *= b->weights[m % b->nq] * dofs->h[d];
  }
  return w;
}

void ts_basis_1d_contract(int dim, const ts_basis_1d *b, const double *const *factor,
                          int transpose, const double *in, double *out) {
  enum { POINTS = TS_BASIS_1D_MAX_Q * TS_BASIS_1D_MAX_Q * TS_BASIS_1D_MAX_Q };
  double t0[POINTS], t1[POINTS]; /* the contractions before the last */
  int shape[3] = {1, 1, 1};
  for (int d = 0; d < dim; ++d) shape[d] = transpose ? b->nq : b->n1;
  const double *src = in;
  for (int d = 0; d < dim; ++d) {
    double *dst = d == dim - 1 ? out : (d % 2 ? t1 : t0);
    ts_tensor_contract(dim, shape, d, factor[d], transpose ? b->n1 : b->nq, transpose, src, dst);
    shape[d] = transpose ? b->n1 : b->nq;
    src = dst;
  }
}
