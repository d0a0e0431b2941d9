/* t-laplace-assembled.c -- the matrix-free Laplacian against a sparse matrix assembled
 * independently: element matrices from the full dim-dimensional Gauss rule with basis
 * gradients evaluated point by point (no 1D factorization), summed into a CSR matrix.
 * Random vectors, 2D and 3D, k = 1..6, on a non-cubic box; apply, apply_add, the
 * unconstrained form and the diagonal in double; apply in single; on omp with both widths
 * of its Laplacian kernel (32- and 64-byte vectors).  On backends with laplace_apply_cells
 * (ABI 20: cuda, hip) the unconstrained form again as three boxes of cells, one of them on
 * the side queue, in either precision. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"

typedef struct triplet {
  int64_t i, j;
  double v;
} triplet;

typedef struct csr {
  int64_t n, *start, *col;
  double *val;
} csr;

static int by_row_col(const void *a, const void *b) {
  const triplet *x = a, *y = b;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

/* Element matrix of (grad u, grad v) on a cell of size h by the (k+1)^dim Gauss rule. */
static void element_matrix(ts_dofs dofs, double *Ae) {
  const int dim = dofs->dim, n1 = dofs->degree + 1, nq = n1;
  double qx[TS_MAX_POINTS], qw[TS_MAX_POINTS], val[TS_MAX_POINTS * 11], der[TS_MAX_POINTS * 11];
  ts_gauss_rule(nq, qx, qw);
  ts_lagrange_tabulate(n1, dofs->fe->points, nq, qx, val, der);
  int ndofs = 1, npts = 1;
  for (int d = 0; d < dim; ++d) {
    ndofs *= n1;
    npts *= nq;
  }
  double vol = 1.0;
  for (int d = 0; d < dim; ++d) vol *= dofs->h[d];
  for (int i = 0; i < ndofs * ndofs; ++i) Ae[i] = 0.0;
  double *grad = malloc(sizeof(double) * 3 * (size_t)ndofs);
  for (int q = 0; q < npts; ++q) {
    int qi[3] = {q % nq, (q / nq) % nq, q / (nq * nq)};
    double w = vol;
    for (int d = 0; d < dim; ++d) w *= qw[qi[d]];
    for (int a = 0; a < ndofs; ++a) {
      int ai[3] = {a % n1, (a / n1) % n1, a / (n1 * n1)};
      for (int d = 0; d < dim; ++d) {
        double g = 1.0 / dofs->h[d];
        for (int e = 0; e < dim; ++e) g *= (e == d ? der : val)[qi[e] * n1 + ai[e]];
        grad[3 * a + d] = g;
      }
    }
    for (int a = 0; a < ndofs; ++a)
      for (int b = 0; b < ndofs; ++b) {
        double s = 0.0;
        for (int d = 0; d < dim; ++d) s += grad[3 * a + d] * grad[3 * b + d];
        Ae[a * ndofs + b] += w * s;
      }
  }
  free(grad);
}

/* Assemble; with `constrained`, boundary rows and columns become the identity. */
static void assemble(ts_dofs dofs, int constrained, csr *A) {
  const int n1 = dofs->degree + 1;
  int ndofs = 1;
  for (int d = 0; d < dofs->dim; ++d) ndofs *= n1;
  const int64_t ncells = ts_cell_count(dofs), n = dofs->count;
  double *Ae = malloc(sizeof(double) * (size_t)ndofs * ndofs);
  triplet *t = malloc(sizeof(triplet) * (size_t)(ncells * ndofs * ndofs + n));
  int64_t nt = 0, idx[TS_MAX_CELL_DOFS];
  element_matrix(dofs, Ae);
  for (int64_t c = 0; c < ncells; ++c) {
    int64_t cell[3];
    ts_cell_from_index(dofs, c, cell);
    ts_cell_dof_indices(dofs, cell, idx);
    for (int a = 0; a < ndofs; ++a)
      for (int b = 0; b < ndofs; ++b) {
        if (constrained && (ts_dofs_is_boundary(dofs, idx[a]) || ts_dofs_is_boundary(dofs, idx[b])))
          continue;
        t[nt++] = (triplet){idx[a], idx[b], Ae[a * ndofs + b]};
      }
  }
  if (constrained)
    for (int64_t i = 0; i < n; ++i)
      if (ts_dofs_is_boundary(dofs, i)) t[nt++] = (triplet){i, i, 1.0};
  qsort(t, (size_t)nt, sizeof *t, by_row_col);
  A->n = n;
  A->start = calloc((size_t)n + 1, sizeof(int64_t));
  A->col = malloc(sizeof(int64_t) * (size_t)nt);
  A->val = malloc(sizeof(double) * (size_t)nt);
  int64_t m = -1;
  for (int64_t e = 0; e < nt; ++e) {
    if (m < 0 || t[e].i != t[e - 1].i || t[e].j != t[e - 1].j) {
      ++m;
      A->col[m] = t[e].j;
      A->val[m] = 0.0;
      A->start[t[e].i + 1] = m + 1;
    }
    A->val[m] += t[e].v;
  }
  for (int64_t i = 1; i <= n; ++i)
    if (A->start[i] < A->start[i - 1]) A->start[i] = A->start[i - 1];
  free(t);
  free(Ae);
}

static void csr_apply(const csr *A, const double *x, double *y) {
  for (int64_t i = 0; i < A->n; ++i) {
    double s = 0.0;
    for (int64_t e = A->start[i]; e < A->start[i + 1]; ++e) s += A->val[e] * x[A->col[e]];
    y[i] = s;
  }
}

static double csr_entry(const csr *A, int64_t i, int64_t j) {
  for (int64_t e = A->start[i]; e < A->start[i + 1]; ++e)
    if (A->col[e] == j) return A->val[e];
  return 0.0;
}

static void csr_free(csr *A) {
  free(A->start);
  free(A->col);
  free(A->val);
}

static double relative_difference(int64_t n, const double *a, const double *b) {
  double num = 0.0, den = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return sqrt(num / den);
}

/* y = 0, then y += A_box x over three boxes of the unconstrained plan's cells: c_0 < m_0
 * (main queue), c_0 >= m_0 with c_1 < 1 (main) and with c_1 >= 1 (side queue), then joined */
static int apply_by_cells(ts_backend b, ts_dofs dofs, ts_precision p, ts_vec x, ts_vec y) {
  ts_laplace_plan plan;
  double matrices[2 * (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  TS_CALL(ts_laplace_plan_init(dofs, &plan, matrices));
  plan.constrained = 0;
  const int64_t *c = plan.cells, m0 = c[0] / 2;
  const int64_t lo[3][3] = {{0, 0, 0}, {m0, 0, 0}, {m0, 1, 0}};
  const int64_t hi[3][3] = {{m0, c[1], c[2]}, {c[0], 1, c[2]}, {c[0], c[1], c[2]}};
  TS_CALL(ts_vec_set(y, 0.0));
  for (int i = 0; i < 3; ++i)
    TS_CALL(ts_backend_laplace_apply_cells(b, &plan, p, lo[i], hi[i], x->data, y->data, i == 2));
  return ts_backend_side_join(b);
}

/* Apply the operator (mode 0: apply, 1: apply_add onto y0, 2: unconstrained, 3: diagonal,
 * 4: unconstrained by boxes of cells). */
static double check(ts_backend b, ts_dofs dofs, ts_precision p, int mode, const csr *Ac,
                    const csr *Au) {
  const int64_t n = dofs->count;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  double *ref = malloc(sizeof(double) * n), *y0 = malloc(sizeof(double) * n);
  ts_operator A = NULL;
  ts_vec vx = NULL, vy = NULL;
  int ierr = ts_operator_create_laplace(b, dofs, p, &A);
  if (!ierr) ierr = ts_vec_create(b, n, p, &vx);
  if (!ierr) ierr = ts_vec_create(b, n, p, &vy);
  if (!ierr) ierr = ts_vec_set_random(vx, 7);
  if (!ierr) ierr = ts_vec_set_random(vy, 11);
  if (!ierr) ierr = ts_vec_get_to_host(vx, x);
  if (!ierr) ierr = ts_vec_get_to_host(vy, y0);
  if (!ierr) {
    if (mode == 0) ierr = ts_operator_apply(A, vx, vy);
    else if (mode == 1) ierr = ts_operator_apply_add(A, vx, vy);
    else if (mode == 2) ierr = ts_operator_apply_unconstrained(A, vx, vy);
    else if (mode == 3) ierr = ts_operator_diagonal(A, vy);
    else ierr = apply_by_cells(b, dofs, p, vx, vy);
  }
  if (!ierr) ierr = ts_vec_get_to_host(vy, y);
  double result = INFINITY;
  if (ierr) {
    diag("error: %s", ts_error_message());
  } else {
    if (mode == 3) {
      for (int64_t i = 0; i < n; ++i) ref[i] = csr_entry(Ac, i, i);
    } else {
      csr_apply(mode == 2 || mode == 4 ? Au : Ac, x, ref);
      if (mode == 1)
        for (int64_t i = 0; i < n; ++i) ref[i] += y0[i];
    }
    result = relative_difference(n, y, ref);
  }
  ts_vec_destroy(&vx);
  ts_vec_destroy(&vy);
  ts_operator_destroy(&A);
  free(x);
  free(y);
  free(ref);
  free(y0);
  return result;
}

int main(void) {
  static const char *const modes[] = {"apply", "apply_add", "unconstrained", "diagonal"};
  ts_backend b = NULL;
  plan(2 * 2 * 6 * 7);
  if (ts_backend_open(tap_backend(), &b)) {
    diag("%s", ts_error_message());
    return 1;
  }
  /* the omp backend's 32-byte and 64-byte Laplacian kernels (TESSERA_OMP_LAPLACE_WIDE, read
   * at each apply; doc/backends.md), each against the assembled matrix */
  for (int wide = 0; wide <= 1; ++wide)
    for (int dim = 2; dim <= 3; ++dim)
      for (int k = 1; k <= 6; ++k) {
        const double lower[3] = {0, 0, 0}, upper[3] = {3, 2, 1};
        const int coarse[3] = {3, 2, 1};
        ts_mesh mesh;
        ts_fe fe;
        ts_dofs dofs;
        csr Ac, Au;
        ts_mesh_create_box(dim, lower, upper, coarse, dim == 2 ? 1 : 0, &mesh);
        ts_fe_create_q(dim, k, &fe);
        ts_dofs_create(mesh, fe, dim == 2 ? 1 : 0, &dofs);
        assemble(dofs, 1, &Ac);
        assemble(dofs, 0, &Au);
        setenv("TESSERA_OMP_LAPLACE_WIDE", wide ? "1" : "0", 1);
        for (int mode = 0; mode < 4; ++mode) {
          double e = check(b, dofs, TS_DOUBLE, mode, &Ac, &Au);
          ok(e <= 1e-12, "%dD Q%d %s (double, %lld DoFs, WIDE=%d): relative difference %.2e", dim,
             k, modes[mode], (long long)dofs->count, wide, e);
        }
        double e = check(b, dofs, TS_SINGLE, 0, &Ac, &Au);
        ok(e <= 1e-5, "%dD Q%d apply (single, WIDE=%d): relative difference %.2e", dim, k, wide, e);
        if (!b->ops.laplace_apply_cells || !b->ops.side_join) {
          skip(2, "the backend has no laplace_apply_cells (ABI 20)");
        } else {
          e = check(b, dofs, TS_DOUBLE, 4, &Ac, &Au);
          ok(e <= 1e-12, "%dD Q%d unconstrained by boxes of cells, one on the side queue "
             "(double): relative difference %.2e", dim, k, e);
          e = check(b, dofs, TS_SINGLE, 4, &Ac, &Au);
          ok(e <= 1e-5, "%dD Q%d the same in single: relative difference %.2e", dim, k, e);
        }
        csr_free(&Ac);
        csr_free(&Au);
        ts_dofs_destroy(&dofs);
        ts_fe_destroy(&fe);
        ts_mesh_destroy(&mesh);
      }
  ts_backend_destroy(&b);
  return exit_status();
}
