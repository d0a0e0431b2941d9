/* mass.c -- the consistent mass matrix of a continuous Q_k space on a box, over all its DoFs
 * (no boundary rows: e.g. the Taylor-Hood pressure, whose mass approximates the Schur
 * complement in the block-triangular preconditioner of papers 001/004, eq. (26)).  On the
 * box it is the Kronecker product of the assembled 1D mass matrices (h_d times the reference
 * matrix of the Lagrange basis on the element's points, an exact Gauss rule), so the
 * operator is a Kronecker operator (kronecker.c) with its diagonal for Jacobi. */
#include "../tessera-impl.h"

/* The banded 1D mass matrix of direction d: n = cells k + 1 nodes, row r's columns
 * s(r) .. s(r) + 2k with s(r) = (r / k - 1) k (kronecker.c), assembled from the cell matrix. */
static void mass_band(ts_dofs dofs, int d, const double *cell, double *v, ts_band_1d *f) {
  const int k = dofs->degree, width = 2 * k + 1;
  const int64_t n = dofs->n[d];
  *f = (ts_band_1d){.rows = n, .cols = n, .row_step = k, .col_step = k, .values = v};
  for (int64_t r = 0; r < n; ++r)
    for (int w = 0; w < width; ++w) {
      const int64_t col = (r / k - 1) * k + w;
      double s = 0.0; /* the cells c holding both r and col: r and col in c k .. c k + k */
      for (int64_t c = (r - 1) / k; c <= r / k; ++c) {
        if (c < 0 || c >= dofs->cells[d]) continue;
        const int64_t a = r - c * k, b = col - c * k;
        if (a >= 0 && a <= k && b >= 0 && b <= k) s += dofs->h[d] * cell[a * (k + 1) + b];
      }
      v[r * width + w] = s;
    }
}

int ts_operator_create_mass(ts_backend backend, ts_dofs dofs, ts_precision p, ts_operator *M) {
  TS_CHECK_NOT_NULL(M);
  *M = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(dofs);
  TS_CALL(ts_dofs_require_q(dofs, "ts_operator_create_mass"));
  TS_CHECK_ARG(!dofs->nodes, "ts_operator_create_mass: the DoFs are on a mapped mesh; allowed "
               "only a box (the mass is a Kronecker product there)");
  TS_CHECK_ARG(p == TS_DOUBLE || p == TS_SINGLE,
               "ts_operator_create_mass: precision %d, allowed TS_DOUBLE or TS_SINGLE", (int)p);
  const int k = dofs->degree;
  enum { cell_size = (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1) };
  double cell[cell_size], stiffness[cell_size];
  TS_CALL(ts_lagrange_mass_stiffness(k + 1, dofs->fe->points, cell, stiffness));
  double *values[3] = {NULL, NULL, NULL};
  ts_band_1d factors[3];
  int ierr = 0;
  for (int d = 0; d < dofs->dim && !ierr; ++d) {
    ierr = ts_calloc((size_t)(dofs->n[d] * (2 * k + 1)), sizeof(double), "1D mass band",
                     &values[d]);
    if (!ierr) mass_band(dofs, d, cell, values[d], &factors[d]);
  }
  if (!ierr) ierr = ts_operator_create_kronecker(backend, dofs->dim, factors, 1.0, p, M);
  for (int d = 0; d < 3; ++d) ts_free(&values[d]);
  if (ierr) return ts_error_trace(ierr, __FILE__, __LINE__, "mass operator");
  return 0;
}
