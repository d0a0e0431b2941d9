/* l2-mass.c -- the L2 (DGQ_k) mass W_alpha = (alpha q, r) on the cells of a box or a mapped
 * level and its inverse, matrix-free (paper 003, sections 2.5 and 3.1; doc/hdiv.md, "DG mass
 * inverse").  This file prepares the plan (ts_l2_mass_plan); the backend runs the loops.
 *
 * Quadrature.  On a cell K with Jacobian J (reference cell [0,1]^dim), the block is
 *   W_K[i][j] = sum_q w_q alpha_K g(det J_q) phi_i(xi_q) phi_j(xi_q),
 * g(det) = det for the DGQ_k of ts_fe_create_dgq (q = q^ o phi^{-1}) and 1 / det for the
 * histopolation basis of ts_fe_create_l2_ih (integral-preserving, as ts_matrix_assemble_mass),
 * by the Gauss rule of n_q = k+2 points per direction.  With k+1 points the Gauss-Legendre
 * nodal mass would be diagonal on every cell (the rule collocates at the nodes), which is
 * not the mass of a non-affine cell; k+2 points integrate degree 2k+3 per direction exactly,
 * and on a multilinear cell phi_i phi_j det J has degree 2k+2 per direction in 3D (2k+1 in
 * 2D), so the mass of the value-mapped element is exact there (for 1 / det J, and on curved
 * cells, it is a quadrature, as in MFEM and deal.II).  Stored per cell and point:
 * D_K,q = w_q alpha_K g(det J_q), n_q^dim values per cell (paper 003 stores the same).
 *
 * Bases.  The user's basis (plan.user_1d: Lagrange at the Gauss points for DGQ_k, the
 * histopolation functions of the k+2 Gauss-Lobatto points for the l2_ih element) gives the
 * forward mass and the dense blocks.  The CG methods solve in a nodal basis psi (the
 * Gauss-Legendre or the Gauss-Lobatto points; Figure 2 of paper 003: the diagonally scaled
 * Gauss-Legendre mass has condition number about 1.12, the Gauss-Lobatto one more, and on a
 * cell with constant det J the Gauss-Legendre mass is diagonal): with C[i][j] the user's
 * functional i of psi_j (the value at Gauss point i, or the integral over sub-interval i),
 * u = C v between the coefficients, W_user = C^{-T} W_psi C^{-1} and so
 *   W_user^{-1} x = C W_psi^{-1} C^T x
 * (paper 003, section 2.5: the change of basis of the right side and of the solution).
 *
 * Methods.  Explicit: the dense W_K in the user's basis by sum factorization of the pair
 * tables, then LAPACK dpotrf and dpotri, n^2 values per cell (n = (k+1)^dim); Cholesky: the
 * factor of dpotrf; CG: the Jacobi-preconditioned CG of every cell in the backend's fused
 * kernel, its diagonal 1 / diag(W_psi) computed here once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tessera-impl.h"

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info);

#define MAX_N1 TS_MAX_DEGREE        /* DGQ_k: k <= TS_MAX_DEGREE - 1 */
#define MAX_NQ (TS_MAX_DEGREE + 1)  /* k + 2 */
#define MAX_POINTS (MAX_NQ * MAX_NQ * MAX_NQ)

typedef struct l2_mass_data {
  ts_l2_mass_plan plan;
  ts_mass_inverse_method method;    /* the inverse's (AUTO resolved); unused by the mass */
  double user[MAX_NQ * MAX_N1], solve[MAX_NQ * MAX_N1], change[MAX_N1 * MAX_N1];
  ts_vec point_weights, inverse_diagonal, matrices, iterations, work;
  int applied;                      /* the CG inverse has been applied once */
} l2_mass_data;

/* ---------------------------------------------------------------- names and options */

static const char *const method_names[] = {"auto", "explicit", "cholesky", "cg-legendre",
                                           "cg-lobatto"};
#define METHOD_COUNT ((int)(sizeof method_names / sizeof *method_names))

const char *ts_mass_inverse_method_name(ts_mass_inverse_method method) {
  return (int)method >= 0 && (int)method < METHOD_COUNT ? method_names[method] : NULL;
}

int ts_mass_inverse_method_from_name(const char *name, ts_mass_inverse_method *method) {
  TS_CHECK_NOT_NULL(name);
  TS_CHECK_NOT_NULL(method);
  for (int m = 0; m < METHOD_COUNT; ++m)
    if (!strcmp(name, method_names[m])) {
      *method = (ts_mass_inverse_method)m;
      return 0;
    }
  return TS_ERROR(TS_ERR_ARG, "mass inverse method '%s' unknown: allowed auto, explicit, "
                  "cholesky, cg-legendre, cg-lobatto", name);
}

int ts_mass_inverse_options_default(ts_mass_inverse_options *options) {
  TS_CHECK_NOT_NULL(options);
  options->method = TS_MASS_INVERSE_AUTO;
  options->tolerance = 1e-12;
  options->max_iterations = 100;
  return 0;
}

static int check_options(const ts_mass_inverse_options *o) {
  TS_CHECK_ARG(ts_mass_inverse_method_name(o->method), "L2 mass inverse: options->method = %d, "
               "allowed TS_MASS_INVERSE_AUTO (0) .. TS_MASS_INVERSE_CG_LOBATTO (4)", (int)o->method);
  TS_CHECK_ARG(o->tolerance > 0.0 && o->tolerance < 1.0, "L2 mass inverse: options->tolerance = "
               "%g, allowed a number in (0, 1)", o->tolerance);
  TS_CHECK_ARG(o->max_iterations >= 1 && o->max_iterations <= 1000, "L2 mass inverse: "
               "options->max_iterations = %d, allowed 1..1000", o->max_iterations);
  return 0;
}

/* The DoFs: of a DGQ_k element (either basis), 2D or 3D. */
static int check_dofs(ts_dofs dofs, const char *what) {
  const ts_fe_family f = dofs->fe->family;
  TS_CHECK_ARG(f == TS_FE_DGQ || f == TS_FE_L2_IH, "%s: dofs are of a %s element; allowed "
               "DGQ_k (ts_fe_create_dgq or ts_fe_create_l2_ih)", what,
               f == TS_FE_Q ? "Q_k" : "Raviart-Thomas");
  TS_CHECK_ARG(dofs->dim == 2 || dofs->dim == 3, "%s: dofs are %dD, allowed 2D or 3D", what,
               dofs->dim);
  return 0;
}

/* alpha per cell finite and > 0, or TS_ERR_ARG naming the first cell that is not. */
static int check_alpha(ts_dofs dofs, const double *alpha, const char *what) {
  for (int64_t cell = 0; alpha && cell < ts_cell_count(dofs); ++cell)
    if (!(isfinite(alpha[cell]) && alpha[cell] > 0.0)) {
      char name[96];
      ts_cell_name(dofs, cell, name, sizeof name);
      return TS_ERROR(TS_ERR_ARG, "%s: alpha[%lld] (%s) is %g, allowed a finite number > 0",
                      what, (long long)cell, name, alpha[cell]);
    }
  return 0;
}

/* ---------------------------------------------------------------- 1D tables */

/* The user's basis at the points (n_q x n1): Lagrange at the Gauss points (DGQ_k) or the
 * histopolation functions of the k+2 Gauss-Lobatto points (l2_ih). */
static void user_table(ts_fe fe, int nq, const double *points, double *table) {
  const int n1 = fe->degree + 1;
  if (fe->family == TS_FE_L2_IH)
    ts_histopolation_tabulate(n1 + 1, fe->normal_points, nq, points, table);
  else
    ts_lagrange_tabulate(n1, fe->points, nq, points, table, NULL);
}

/* C[i][j]: the user's DoF functional i of the solve basis function psi_j (Lagrange through
 * `nodes`): psi_j at Gauss point i (DGQ_k), or its integral over sub-interval i (l2_ih, by
 * the n1-point Gauss rule there: exact for degree k). */
static int change_table(ts_fe fe, const double *nodes, double *C) {
  const int n1 = fe->degree + 1;
  if (fe->family != TS_FE_L2_IH) {
    ts_lagrange_tabulate(n1, nodes, n1, fe->points, C, NULL);
    return 0;
  }
  double gp[MAX_N1], gw[MAX_N1], x[MAX_N1], values[MAX_N1 * MAX_N1];
  TS_CALL(ts_gauss_rule(n1, gp, gw));
  for (int i = 0; i < n1; ++i) {
    const double a = fe->normal_points[i], h = fe->normal_points[i + 1] - a;
    for (int q = 0; q < n1; ++q) x[q] = a + h * gp[q];
    ts_lagrange_tabulate(n1, nodes, n1, x, values, NULL);
    for (int j = 0; j < n1; ++j) {
      double s = 0.0;
      for (int q = 0; q < n1; ++q) s += h * gw[q] * values[q * n1 + j];
      C[i * n1 + j] = s;
    }
  }
  return 0;
}

/* The solve basis's nodes: the k+1 Gauss or Gauss-Lobatto points (k = 0: the midpoint). */
static int solve_nodes(int n1, ts_mass_inverse_method method, double *nodes) {
  double w[MAX_N1];
  if (method == TS_MASS_INVERSE_CG_LOBATTO && n1 >= 2) return ts_gauss_lobatto_rule(n1, nodes, w);
  return ts_gauss_rule(n1, nodes, w);
}

/* ---------------------------------------------------------------- geometry and point weights */

typedef struct weights_ctx {
  ts_dofs dofs, geometry;           /* geometry: Q_g DoFs of a mapped mesh, NULL on a box */
  const double *alpha;
  int nq, integral;                 /* integral: the l2_ih element's 1 / det J */
  double points[MAX_NQ], weights[MAX_NQ];
  double shape[MAX_NQ * (TS_MAX_DEGREE + 1)], grad[MAX_NQ * (TS_MAX_DEGREE + 1)];
  double *out;                      /* cells n_q^dim */
  ts_cell_failure *failure;
} weights_ctx;

/* det J at the cell's n_q^dim points: the Q_g geometry's on a mapped mesh, prod h on a box. */
static void cell_determinants(const weights_ctx *w, int64_t cell, int np, double *det) {
  const int dim = w->dofs->dim;
  if (!w->geometry) {
    double volume = 1.0;
    for (int d = 0; d < dim; ++d) volume *= w->dofs->h[d];
    for (int q = 0; q < np; ++q) det[q] = volume;
    return;
  }
  double J[MAX_POINTS * 9], inverse[9];
  ts_cell_geometry(w->geometry, cell, w->nq, w->shape, w->grad, NULL, J);
  for (int q = 0; q < np; ++q) det[q] = ts_jacobian_inverse(dim, J + q * dim * dim, inverse);
}

static void cell_weights(const weights_ctx *w, int64_t cell) {
  const int dim = w->dofs->dim, nq = w->nq, np = dim == 3 ? nq * nq * nq : nq * nq;
  double det[MAX_POINTS];
  cell_determinants(w, cell, np, det);
  const double alpha = w->alpha ? w->alpha[cell] : 1.0;
  double *out = w->out + cell * np;
  for (int q = 0; q < np; ++q) {
    if (!(det[q] > 0.0) || !isfinite(det[q])) {
      char name[96];
      ts_cell_name(w->dofs, cell, name, sizeof name);
      ts_cell_failure_set(w->failure, cell, TS_ERR_ARG, "%s is inverted or degenerate: det J = %g "
                          "at its quadrature point %d (the map must have a positive Jacobian "
                          "determinant)", name, det[q], q);
      return;
    }
    double wq = alpha;
    for (int d = 0, m = q; d < dim; ++d, m /= nq) wq *= w->weights[m % nq];
    out[q] = wq * (w->integral ? 1.0 / det[q] : det[q]);
  }
}

int ts_mass_geometry_dofs(ts_dofs dofs, ts_fe *fe, ts_dofs *geometry) {
  const int g = dofs->mesh->geometry == TS_GEOMETRY_QK && dofs->degree > 1 ? dofs->degree : 1;
  TS_CALL(ts_fe_create_q(dofs->dim, g, fe));
  const int ierr = ts_dofs_create(dofs->mesh, *fe, dofs->level, geometry);
  if (ierr) ts_fe_destroy(fe);
  return ierr;
}

/* D_K,q = w_q alpha_K g(det J_q) for every cell and point (host, cells n_q^dim). */
static int compute_point_weights(ts_dofs dofs, const double *alpha, int nq, double *out) {
  weights_ctx *w;
  TS_CALL(ts_calloc(1, sizeof *w, "L2 mass weights", &w));
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  *w = (weights_ctx){.dofs = dofs, .alpha = alpha, .nq = nq, .out = out, .failure = &failure,
                     .integral = dofs->fe->family == TS_FE_L2_IH};
  ts_fe fe = NULL;
  int ierr = ts_gauss_rule(nq, w->points, w->weights);
  if (!ierr && dofs->mesh->map) ierr = ts_mass_geometry_dofs(dofs, &fe, &w->geometry);
  if (!ierr && w->geometry)
    ts_lagrange_tabulate(w->geometry->degree + 1, fe->points, nq, w->points, w->shape, w->grad);
  const int64_t cells = ts_cell_count(dofs);
  if (!ierr) {
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t cell = 0; cell < cells; ++cell) cell_weights(w, cell);
    ierr = ts_cell_failure_report(&failure, "L2 mass");
  }
  ts_dofs_destroy(&w->geometry);
  ts_fe_destroy(&fe);
  free(w);
  return ierr;
}

/* ---------------------------------------------------------------- per-cell sums */

/* out (n1^dim) = (x)_d table^T in (n_q^dim): the transposed tensor contraction, table n_q x
 * cols per direction. */
static void contract_to_cell(int dim, int nq, int cols, const double *table, const double *in,
                             double *out, double *t0, double *t1) {
  int shape[3] = {nq, nq, nq};
  const double *src = in;
  for (int d = 0; d < dim; ++d) {
    double *dst = d == dim - 1 ? out : d % 2 ? t1 : t0;
    ts_tensor_contract(dim, shape, d, table, cols, 1, src, dst);
    shape[d] = cols;
    src = dst;
  }
}

/* diag(S^T D_K S) of every cell (n1^dim values per cell; invert: their reciprocals):
 * diag_i = sum_q D_q prod_d S[q_d][i_d]^2, S = table (n_q x n1). */
static void cell_diagonals(const ts_l2_mass_plan *pl, const double *table, const double *weights,
                           int invert, double *out) {
  const int dim = pl->dim, nq = pl->n_q, n1 = pl->degree + 1;
  const int np = dim == 3 ? nq * nq * nq : nq * nq, n = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  double squares[MAX_NQ * MAX_N1];
  for (int i = 0; i < nq * n1; ++i) squares[i] = table[i] * table[i];
  const int64_t cells = pl->cells[0] * pl->cells[1] * pl->cells[2];
#pragma omp parallel for schedule(static)
  for (int64_t cell = 0; cell < cells; ++cell) {
    double t0[MAX_POINTS], t1[MAX_POINTS];
    double *diag = out + cell * n;
    contract_to_cell(dim, nq, n1, squares, weights + cell * np, diag, t0, t1);
    for (int i = 0; i < n && invert; ++i) diag[i] = 1.0 / diag[i];
  }
}

/* Values of the largest array of the pair contraction: n_q^(dim-e) (n1^2)^e after e
 * directions, e = 0..dim. */
static size_t pair_work_size(int dim, int nq, int n1) {
  size_t largest = 1;
  for (int e = 0; e <= dim; ++e) {
    size_t size = 1;
    for (int d = 0; d < dim; ++d) size *= d < e ? (size_t)(n1 * n1) : (size_t)nq;
    if (size > largest) largest = size;
  }
  return largest;
}

/* The dense block W_K (n x n, row-major) in the user's basis by sum factorization:
 * W[i][j] = sum_q D_q prod_d U[q_d][i_d] U[q_d][j_d], contracted direction by direction
 * with the pair table P[q][i_d n1 + j_d] = U[q][i_d] U[q][j_d]; work: three arrays of
 * pair_work_size values. */
static void cell_dense_mass(const ts_l2_mass_plan *pl, const double *pairs, const double *weights,
                            double *W, double *work) {
  const int dim = pl->dim, n1 = pl->degree + 1, n = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  const size_t size = pair_work_size(dim, pl->n_q, n1);
  double *packed = work + 2 * size;
  contract_to_cell(dim, pl->n_q, n1 * n1, pairs, weights, packed, work, work + size);
  for (int p = 0; p < n * n; ++p) { /* p = p_0 + n1^2 (p_1 + n1^2 p_2), p_d = i_d n1 + j_d */
    int i = 0, j = 0;
    for (int d = 0, m = p, stride = 1; d < dim; ++d, m /= n1 * n1, stride *= n1) {
      i += m % (n1 * n1) / n1 * stride;
      j += m % n1 * stride;
    }
    W[i * n + j] = packed[p];
  }
}

/* The factor (Cholesky: L lower, row-major, W = L L^T) or the inverse (explicit, both
 * triangles) of one cell's block in place; 0 or LAPACK's info.  The row-major block is
 * LAPACK's column-major one transposed: dpotrf's upper U (W = U^T U) reads as L = U^T. */
static int factor_block(int n, int inverse, double *W) {
  int info = 0;
  dpotrf_("U", &n, W, &n, &info);
  if (!info && inverse) dpotri_("U", &n, W, &n, &info);
  for (int r = 0; r < n && !info; ++r)
    for (int c = r + 1; c < n; ++c) W[r * n + c] = inverse ? W[c * n + r] : 0.0;
  return info;
}

/* Every cell's dense block factored (Cholesky) or inverted (explicit) into host memory
 * (cells n^2 values). */
static int compute_dense_blocks(ts_dofs dofs, const ts_l2_mass_plan *pl, const double *weights,
                                int inverse, double *blocks) {
  const int dim = pl->dim, nq = pl->n_q, n1 = pl->degree + 1;
  const int np = dim == 3 ? nq * nq * nq : nq * nq, n = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  double pairs[MAX_NQ * MAX_N1 * MAX_N1];
  for (int q = 0; q < nq; ++q)
    for (int i = 0; i < n1; ++i)
      for (int j = 0; j < n1; ++j)
        pairs[(q * n1 + i) * n1 + j] = pl->user_1d[q * n1 + i] * pl->user_1d[q * n1 + j];
  const size_t size = pair_work_size(dim, nq, n1);
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  const int64_t cells = ts_cell_count(dofs);
#pragma omp parallel
  {
    double *work = malloc(3 * size * sizeof *work);
    if (!work) ts_cell_failure_set(&failure, 0, TS_ERR_MEMORY, "no memory for the work space "
                                   "of the dense blocks (%zu bytes)", 3 * size * sizeof *work);
#pragma omp for schedule(dynamic, 4)
    for (int64_t cell = 0; cell < cells; ++cell) {
      if (!work) continue;
      double *W = blocks + cell * (int64_t)n * n;
      cell_dense_mass(pl, pairs, weights + cell * np, W, work);
      const int info = factor_block(n, inverse, W);
      if (info) {
        char name[96];
        ts_cell_name(dofs, cell, name, sizeof name);
        ts_cell_failure_set(&failure, cell, TS_ERR_LAPACK, "LAPACK %s returned info = %d on the "
                            "block of %s (not positive definite?)", info < 0 ? "dpotrf/dpotri"
                            : "dpotrf", info, name);
      }
    }
    free(work);
  }
  return ts_cell_failure_report(&failure, "L2 mass inverse");
}

/* ---------------------------------------------------------------- the operators */

static int l2_mass_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  l2_mass_data *data = op->data;
  ts_vec out = add ? data->work : y;
  TS_CALL(ts_backend_l2_mass_apply(op->backend, &data->plan, op->precision, x->data, out->data));
  if (add) TS_CALL(ts_vec_axpby(1.0, out, 1.0, y));
  data->applied = 1;
  return 0;
}

/* Counted operations per application: the sum factorization from n1 to n_q points and
 * back (2 flops a multiply-add) and the point products; a dense block 2 n^2 per cell. */
static double l2_mass_flops(ts_operator op) {
  const ts_l2_mass_plan *p = &((const l2_mass_data *)op->data)->plan;
  const double n1 = p->degree + 1, q = p->n_q, cells = (double)(p->cells[0] * p->cells[1] * p->cells[2]);
  const double n = p->dim == 3 ? n1 * n1 * n1 : n1 * n1;
  if (p->action == TS_L2_MASS_DENSE || p->action == TS_L2_MASS_CHOLESKY) return cells * 2.0 * n * n;
  const double sweeps = p->dim == 3 ? q * n1 * n1 + q * q * n1 + q * q * q : q * n1 + q * q;
  return cells * (2.0 * 2.0 * n1 * sweeps + (p->dim == 3 ? q * q * q : q * q));
}

static void data_free(l2_mass_data **data) {
  if (!*data) return;
  ts_vec *all[] = {&(*data)->point_weights, &(*data)->inverse_diagonal, &(*data)->matrices,
                   &(*data)->iterations, &(*data)->work};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) ts_vec_destroy(all[i]);
  ts_free(data);
}

static void l2_mass_destroy(ts_operator op) {
  l2_mass_data *data = op->data;
  data_free(&data);
  op->data = NULL;
}

static const ts_operator_ops l2_mass_ops = {
    .name = "l2-mass",
    .apply = l2_mass_apply,
    .flops = l2_mass_flops,
    .destroy = l2_mass_destroy,
    .apply_transpose = l2_mass_apply, /* symmetric */
};

static const ts_operator_ops l2_mass_inverse_ops = {
    .name = "l2-mass-inverse",
    .apply = l2_mass_apply,
    .flops = l2_mass_flops,
    .destroy = l2_mass_destroy,
    .apply_transpose = l2_mass_apply, /* symmetric */
};

/* ---------------------------------------------------------------- setup */

static void plan_init(ts_dofs dofs, l2_mass_data *data) {
  ts_l2_mass_plan *pl = &data->plan;
  pl->dim = dofs->dim;
  pl->degree = dofs->degree;
  pl->n_q = dofs->degree + 2;
  for (int d = 0; d < 3; ++d) {
    pl->cells[d] = dofs->cells[d];
    pl->n[d] = dofs->n[d];
  }
  pl->n_dofs = dofs->count;
  pl->user_1d = data->user;
}

/* A host array of `count` doubles into a new backend vector. */
static int upload(ts_backend backend, const double *host, int64_t count, ts_vec *v) {
  TS_CALL(ts_vec_create(backend, count, TS_DOUBLE, v));
  return ts_vec_set_from_host(*v, host);
}

/* The CG method's tables, its 1 / diagonal and the iteration counts. */
static int setup_cg(ts_backend backend, ts_dofs dofs, const ts_mass_inverse_options *o,
                    const double *weights, l2_mass_data *data) {
  ts_l2_mass_plan *pl = &data->plan;
  const int n1 = pl->degree + 1, nq = pl->n_q, n = dofs->dim == 3 ? n1 * n1 * n1 : n1 * n1;
  double nodes[MAX_N1], points[MAX_NQ], w[MAX_NQ];
  TS_CALL(solve_nodes(n1, data->method, nodes));
  TS_CALL(ts_gauss_rule(nq, points, w));
  ts_lagrange_tabulate(n1, nodes, nq, points, data->solve, NULL);
  TS_CALL(change_table(dofs->fe, nodes, data->change));
  pl->action = TS_L2_MASS_CG;
  pl->solve_1d = data->solve;
  pl->change_1d = data->change;
  pl->tolerance = o->tolerance;
  pl->max_iterations = o->max_iterations;
  const int64_t cells = ts_cell_count(dofs);
  double *diagonal;
  TS_CALL(ts_calloc((size_t)(cells * n), sizeof *diagonal, "L2 mass diagonal", &diagonal));
  cell_diagonals(pl, pl->solve_1d, weights, 1, diagonal);
  int ierr = upload(backend, diagonal, cells * n, &data->inverse_diagonal);
  free(diagonal);
  if (!ierr) ierr = ts_vec_create(backend, cells, TS_DOUBLE, &data->iterations);
  if (!ierr) ierr = ts_vec_set(data->iterations, 0.0);
  if (ierr) return ierr;
  pl->inverse_diagonal = data->inverse_diagonal->data;
  pl->iterations = data->iterations->data;
  return 0;
}

/* The dense blocks of the explicit or Cholesky method on the backend. */
static int setup_dense(ts_backend backend, ts_dofs dofs, const double *weights,
                       l2_mass_data *data) {
  ts_l2_mass_plan *pl = &data->plan;
  const int n1 = pl->degree + 1, n = dofs->dim == 3 ? n1 * n1 * n1 : n1 * n1;
  const int inverse = data->method == TS_MASS_INVERSE_EXPLICIT;
  size_t count;
  TS_CALL(ts_size_mul((size_t)ts_cell_count(dofs), (size_t)n * (size_t)n, "L2 mass blocks", &count));
  double *blocks;
  TS_CALL(ts_calloc(count, sizeof *blocks, "L2 mass blocks (n^2 values per cell)", &blocks));
  int ierr = compute_dense_blocks(dofs, pl, weights, inverse, blocks);
  if (!ierr) ierr = upload(backend, blocks, (int64_t)count, &data->matrices);
  free(blocks);
  if (ierr) return ierr;
  pl->action = inverse ? TS_L2_MASS_DENSE : TS_L2_MASS_CHOLESKY;
  pl->matrices = data->matrices->data;
  return 0;
}

/* The tables, the point weights and what the method needs.  method: the inverse's, or
 * -1 for the forward mass. */
static int setup(ts_backend backend, ts_dofs dofs, const double *alpha,
                 const ts_mass_inverse_options *o, l2_mass_data *data) {
  plan_init(dofs, data);
  ts_l2_mass_plan *pl = &data->plan;
  double points[MAX_NQ], w[MAX_NQ];
  TS_CALL(ts_gauss_rule(pl->n_q, points, w));
  user_table(dofs->fe, pl->n_q, points, data->user);
  const int np = dofs->dim == 3 ? pl->n_q * pl->n_q * pl->n_q : pl->n_q * pl->n_q;
  size_t count;
  TS_CALL(ts_size_mul((size_t)ts_cell_count(dofs), (size_t)np, "L2 mass point weights", &count));
  double *weights;
  TS_CALL(ts_calloc(count, sizeof *weights, "L2 mass point weights", &weights));
  int ierr = compute_point_weights(dofs, alpha, pl->n_q, weights);
  const int dense = o && (data->method == TS_MASS_INVERSE_EXPLICIT ||
                          data->method == TS_MASS_INVERSE_CHOLESKY);
  if (!ierr && !dense) ierr = upload(backend, weights, (int64_t)count, &data->point_weights);
  if (!ierr && !dense) pl->point_weights = data->point_weights->data;
  if (!ierr && o && !dense) ierr = setup_cg(backend, dofs, o, weights, data);
  if (!ierr && dense) ierr = setup_dense(backend, dofs, weights, data);
  if (!ierr) ierr = ts_vec_create(backend, dofs->count, TS_DOUBLE, &data->work);
  free(weights);
  return ierr;
}

/* Auto: the explicit inverse for k <= 2, CG in the Gauss-Legendre basis above, the paper's
 * choice for many applications of one inverse (paper 003, Table 1: explicit fastest at
 * p <= 2 on its GPU, CG from p = 3; doc/hdiv.md, "DG mass inverse", the omp measurements). */
static ts_mass_inverse_method resolve_method(ts_mass_inverse_method m, int degree) {
  if (m != TS_MASS_INVERSE_AUTO) return m;
  return degree <= 2 ? TS_MASS_INVERSE_EXPLICIT : TS_MASS_INVERSE_CG_LEGENDRE;
}

/* One application to zero, so that a backend without the Cholesky solves (the GPUs) refuses
 * the method here, with its own message, rather than at the first application. */
static int probe(ts_operator op) {
  l2_mass_data *data = op->data;
  ts_vec y = NULL;
  int ierr = ts_vec_set(data->work, 0.0);
  if (!ierr) ierr = ts_vec_create(op->backend, op->n, TS_DOUBLE, &y);
  if (!ierr) ierr = l2_mass_apply(op, data->work, y, 0);
  ts_vec_destroy(&y);
  data->applied = 0;
  return ierr;
}

static int create(ts_backend backend, ts_dofs dofs, const double *alpha,
                  const ts_mass_inverse_options *o, const char *what, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(dofs);
  TS_CALL(check_dofs(dofs, what));
  TS_CALL(check_alpha(dofs, alpha, what));
  if (o) TS_CALL(check_options(o));
  if (!backend->ops.l2_mass_apply)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "the %s backend does not implement the L2 mass (kernel "
                    "'l2_mass_apply')", backend->name);
  l2_mass_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, what, &data));
  data->method = o ? resolve_method(o->method, dofs->degree) : TS_MASS_INVERSE_AUTO;
  data->plan.action = TS_L2_MASS_APPLY;
  int ierr = setup(backend, dofs, alpha, o, data);
  if (!ierr)
    ierr = ts_operator_create_shell(backend, o ? &l2_mass_inverse_ops : &l2_mass_ops, dofs->count,
                                    TS_DOUBLE, data, op);
  if (ierr) {
    data_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, what);
  }
  if (data->method == TS_MASS_INVERSE_CHOLESKY && o) ierr = probe(*op);
  if (ierr) ts_operator_destroy(op);
  return ierr;
}

int ts_operator_create_l2_mass(ts_backend backend, ts_dofs dofs, const double *alpha,
                               ts_operator *W) {
  return create(backend, dofs, alpha, NULL, "L2 mass", W);
}

int ts_operator_create_l2_mass_inverse(ts_backend backend, ts_dofs dofs, const double *alpha,
                                       const ts_mass_inverse_options *options, ts_operator *W_inv) {
  ts_mass_inverse_options defaults;
  ts_mass_inverse_options_default(&defaults);
  return create(backend, dofs, alpha, options ? options : &defaults, "L2 mass inverse", W_inv);
}

/* W_inv's data, or TS_ERR_ARG naming `caller` if it is not a mass inverse. */
static int inverse_data(ts_operator W_inv, const char *caller, l2_mass_data **data) {
  TS_CHECK_NOT_NULL(W_inv);
  TS_CHECK_ARG(W_inv->ops == &l2_mass_inverse_ops, "%s: the operator is '%s', an operator of "
               "ts_operator_create_l2_mass_inverse is required", caller, W_inv->ops->name);
  *data = W_inv->data;
  return 0;
}

int ts_operator_l2_mass_inverse_method(ts_operator W_inv, ts_mass_inverse_method *method) {
  TS_CHECK_NOT_NULL(method);
  l2_mass_data *data = NULL;
  TS_CALL(inverse_data(W_inv, "ts_operator_l2_mass_inverse_method", &data));
  *method = data->method;
  return 0;
}

int ts_operator_l2_mass_inverse_iterations(ts_operator W_inv, int *max_iterations,
                                           double *mean_iterations) {
  TS_CHECK_NOT_NULL(max_iterations);
  TS_CHECK_NOT_NULL(mean_iterations);
  l2_mass_data *data = NULL;
  TS_CALL(inverse_data(W_inv, "ts_operator_l2_mass_inverse_iterations", &data));
  *max_iterations = 0;
  *mean_iterations = 0.0;
  if (!data->iterations || !data->applied) return 0;
  const int64_t cells = ts_vec_size(data->iterations);
  double *host;
  TS_CALL(ts_calloc((size_t)cells, sizeof *host, "iteration counts", &host));
  const int ierr = ts_vec_get_to_host(data->iterations, host);
  double sum = 0.0, largest = 0.0;
  for (int64_t c = 0; !ierr && c < cells; ++c) {
    sum += host[c];
    largest = host[c] > largest ? host[c] : largest;
  }
  free(host);
  if (ierr) return ierr;
  *max_iterations = (int)largest;
  *mean_iterations = sum / (double)cells;
  return 0;
}

/* The cell-local DoF i (n1^dim, direction 0 fastest) of `cell` in the level's numbering
 * a_0 + n_0 (a_1 + n_1 a_2), a_d = c_d (k+1) + i_d. */
static int64_t global_dof(ts_dofs dofs, int64_t cell, int i) {
  const int n1 = dofs->degree + 1;
  int64_t c[3], a[3] = {0, 0, 0};
  ts_cell_from_index(dofs, cell, c);
  for (int d = 0, m = i; d < dofs->dim; ++d, m /= n1) a[d] = c[d] * n1 + m % n1;
  return a[0] + dofs->comp_n[0][0] * (a[1] + dofs->comp_n[0][1] * a[2]);
}

int ts_l2_mass_host_diagonal(ts_dofs dofs, const double *alpha, double *diag) {
  TS_CALL(check_dofs(dofs, "diag(W_alpha)"));
  TS_CALL(check_alpha(dofs, alpha, "diag(W_alpha)"));
  l2_mass_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "L2 mass tables", &data));
  plan_init(dofs, data);
  const ts_l2_mass_plan *pl = &data->plan;
  const int nq = pl->n_q, n1 = pl->degree + 1, dim = dofs->dim;
  const int np = dim == 3 ? nq * nq * nq : nq * nq, n = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  const int64_t cells = ts_cell_count(dofs);
  double points[MAX_NQ], w[MAX_NQ], *weights = NULL, *local = NULL;
  int ierr = ts_gauss_rule(nq, points, w);
  if (!ierr) user_table(dofs->fe, nq, points, data->user);
  if (!ierr) ierr = ts_calloc((size_t)(cells * np), sizeof *weights, "L2 mass point weights", &weights);
  if (!ierr) ierr = ts_calloc((size_t)(cells * n), sizeof *local, "diag(W_alpha) per cell", &local);
  if (!ierr) ierr = compute_point_weights(dofs, alpha, nq, weights);
  if (!ierr) cell_diagonals(pl, data->user, weights, 0, local);
  for (int64_t cell = 0; !ierr && cell < cells; ++cell)
    for (int i = 0; i < n; ++i) diag[global_dof(dofs, cell, i)] = local[cell * n + i];
  free(weights);
  free(local);
  free(data);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "diag(W_alpha)") : 0;
}
