/* patch-additive.c -- the additive vertex-patch preconditioner on mapped levels (issue 13):
 *   P r = B D^{-1} r + sum_j R_j^T Atilde_j^{-1} R_j r,
 * R_j the restriction to the interior DoFs of the patch of interior vertex j (the 2^dim
 * cells around it, as lib/mg/vertex-patch.c), Atilde_j the matrix of the patch's best
 * Cartesian approximation, inverted exactly by fast diagonalization (lib/mg/patch-fdm.c's
 * formulas with per-patch 1D matrices), and B D^{-1} point Jacobi on the DoFs of the box
 * boundary, which lie in no patch (identity on the Dirichlet rows, Jacobi on Neumann
 * faces).  P is symmetric positive definite; the Chebyshev smoother accelerates it
 * (ts_smoother_create_chebyshev_preconditioned), the setting of additive Schwarz smoothers
 * with inexact fast-diagonalization local solvers on deformed meshes in the literature
 * (Witte, Arndt, Kanschat 2021; Munch, Kronbichler 2023).  On a Cartesian patch with
 * coefficients that are products of one factor per direction Atilde_j is the patch matrix.
 *
 * The Cartesian patch.  The mapped operator's cell matrix is sum_q grad^T G_q grad + m_q
 * (lib/op/mapped.c); keeping only the diagonal of G_q and summing over the points gives the
 * cell's coefficients g_d = sum_q G_dd,q and mu = sum_q m_q (ts_operator_mapped_cell_sums),
 * and the cell matrix sum_d g_d (x)_e (e == d ? K : M) + mu (x)_e M with the reference 1D
 * mass M and stiffness K on [0,1].  A patch has a tensor-product inverse when
 *   g_d(cell) = b_{d, i_d} prod_{e != d} a_{e, i_e}       (i_e: the cell's position 0, 1)
 * for the patch's per-direction weights a (of M) and b (of K); then
 *   Atilde_j = sum_d (x)_e (e == d ? K_e : M_e) + rho (x)_e M_e,
 *   K_e = b_{e,0} K (+) b_{e,1} K,  M_e = a_{e,0} M (+) a_{e,1} M (assembled over the 2 cells).
 * The weights are fitted to the patch's 2^dim dim values log g_d by least squares in the
 * logarithms (the fit is exact for boxes, and for kappa jumps across the mesh planes), rho is
 * the mean of mu / prod_e a_{e,i_e}.  Per direction the generalized eigenproblem of the
 * interior blocks, K_e S_e = M_e S_e Lambda_e with S_e^T M_e S_e = I (ts_generalized_eigen_small:
 * many small problems from OpenMP threads), gives
 *   Atilde_j^{-1} = (x)_e S_e  diag(1 / sum_e L_{e,i_e})  (x)_e S_e^T,  L_e = Lambda_e + rho/dim,
 * with the region scalings of region_scalings around it, stored per patch on the backend (ts_patch_additive_plan); the backend's patch_additive
 * kernel applies it, one pass per color of lib/mesh/patch.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mg-impl.h"

#define MAX_NBAR (2 * TS_MAX_DEGREE + 1)
#define MAX_M (2 * TS_MAX_DEGREE - 1)
#define FIT_ROWS (3 * 8)     /* dim 2^dim values log g_d per patch */
#define FIT_UNKNOWNS (3 * 3) /* a_{e,1} (a_{e,0} = 1 fixes the scaling), b_{e,0}, b_{e,1} */

typedef struct patch_additive_data {
  ts_patch_additive_plan plan;
  ts_vec local;     /* per patch: dim (S_d, L_d), the operator's precision */
  ts_vec boundary;  /* 1 / diag(A) on the box boundary's DoFs, 0 elsewhere */
  ts_vec scratch;   /* for y += P x */
} patch_additive_data;

/* ---------------------------------------------------------------- the fit */

/* Row (d, p) of the least-squares system: log g_d of the cell at position p (bit e: i_e)
 * against the unknowns log a_{e,1} (e < dim), then log b_{e,i} at dim + 2 e + i. */
static void fit_row(int dim, int d, int p, double *row) {
  memset(row, 0, FIT_UNKNOWNS * sizeof *row);
  for (int e = 0; e < dim; ++e)
    if (e != d && (p >> e & 1)) row[e] = 1.0;
  row[dim + 2 * d + (p >> d & 1)] = 1.0;
}

/* The least-squares solution operator F = (X^T X)^{-1} X^T (nu x rows, nu = 3 dim unknowns,
 * rows = dim 2^dim) by Cholesky of the normal matrix; X has full column rank. */
static int fit_operator(int dim, double *F) {
  const int nu = 3 * dim, rows = dim << dim;
  double X[FIT_ROWS][FIT_UNKNOWNS], N[FIT_UNKNOWNS][FIT_UNKNOWNS] = {{0}};
  for (int r = 0; r < rows; ++r) fit_row(dim, r >> dim, r & ((1 << dim) - 1), X[r]);
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nu; ++j)
      for (int r = 0; r < rows; ++r) N[i][j] += X[r][i] * X[r][j];
  for (int j = 0; j < nu; ++j) { /* N = L L^T in place (lower triangle) */
    for (int k = 0; k < j; ++k) N[j][j] -= N[j][k] * N[j][k];
    if (!(N[j][j] > 1e-12)) return TS_ERROR(TS_ERR_INTERNAL, "patch fit: normal matrix singular");
    N[j][j] = sqrt(N[j][j]);
    for (int i = j + 1; i < nu; ++i) {
      for (int k = 0; k < j; ++k) N[i][j] -= N[i][k] * N[j][k];
      N[i][j] /= N[j][j];
    }
  }
  for (int r = 0; r < rows; ++r) { /* column r of F: solve L L^T f = X[r] */
    double f[FIT_UNKNOWNS];
    for (int i = 0; i < nu; ++i) {
      f[i] = X[r][i];
      for (int k = 0; k < i; ++k) f[i] -= N[i][k] * f[k];
      f[i] /= N[i][i];
    }
    for (int i = nu - 1; i >= 0; --i) {
      for (int k = i + 1; k < nu; ++k) f[i] -= N[k][i] * f[k];
      f[i] /= N[i][i];
    }
    for (int i = 0; i < nu; ++i) F[i * rows + r] = f[i];
  }
  return 0;
}

/* ---------------------------------------------------------------- the local solvers */

typedef struct setup_ctx {
  ts_dofs dofs;
  const double *sums;           /* per cell dim + 1: g_d, mu */
  const double *F;              /* the fit operator */
  double mass[(TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)], stiffness[(TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  double *local;                /* host: the plan's `local` in double */
} setup_ctx;

/* The interior block (m x m) of the 1D matrix w_0 A (+) w_1 A assembled over two cells of
 * k + 1 nodes sharing the middle node. */
static void assembled_interior(int k, const double *A, const double *w, double *B) {
  const int nbar = 2 * k + 1, m = nbar - 2;
  double full[MAX_NBAR * MAX_NBAR] = {0};
  for (int c = 0; c < 2; ++c)
    for (int a = 0; a <= k; ++a)
      for (int b = 0; b <= k; ++b) full[(c * k + a) * nbar + c * k + b] += w[c] * A[a * (k + 1) + b];
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) B[i * m + j] = full[(i + 1) * nbar + j + 1];
}

/* The scalings D^{-1/2} of the patch's 3^dim regions (per direction: the first cell's
 * interior, the middle plane, the second cell's interior; region index r_0 + 3 r_1 + 9 r_2):
 * D = sum of the stiffness (sum_d g_d) of the cells the region touches over the same sum of
 * the model's, so that where kappa is not a product of one factor per direction (a
 * checkerboard's corner) the local solver is D^{-1/2} Atilde^{-1} D^{-1/2}, its scale right
 * cell by cell; 1 where the fit is exact. */
static void region_scalings(int dim, const double *stiffness, const double *model, double *scale) {
  const int np = 1 << dim;
  for (int r = 0; r < (dim == 3 ? 27 : 9); ++r) {
    double actual = 0.0, fitted = 0.0;
    for (int p = 0; p < np; ++p) {
      int touches = 1;
      for (int e = 0, q = r; e < dim; ++e, q /= 3) touches &= q % 3 == 1 || q % 3 == 2 * (p >> e & 1);
      if (!touches) continue;
      actual += stiffness[p];
      fitted += model[p];
    }
    scale[r] = sqrt(fitted / actual);
  }
}

/* The fitted Cartesian patch of vertex v, its fast diagonalization and its region scalings
 * into out. */
static int patch_solver(const setup_ctx *s, const int64_t *v, double *out) {
  ts_dofs dofs = s->dofs;
  const int dim = dofs->dim, k = dofs->degree, m = 2 * k - 1, rows = dim << dim, np = 1 << dim;
  double y[FIT_ROWS], theta[FIT_UNKNOWNS] = {0}, mu[8], stiffness[8];
  for (int p = 0; p < np; ++p) {
    int64_t c[3] = {0, 0, 0};
    for (int e = 0; e < dim; ++e) c[e] = v[e] - 1 + (p >> e & 1);
    const double *cell = s->sums + (c[0] + dofs->cells[0] * (c[1] + dofs->cells[1] * c[2])) * (dim + 1);
    stiffness[p] = 0.0;
    for (int d = 0; d < dim; ++d) {
      y[d * np + p] = log(cell[d]);
      stiffness[p] += cell[d];
    }
    mu[p] = cell[dim];
  }
  for (int i = 0; i < 3 * dim; ++i)
    for (int r = 0; r < rows; ++r) theta[i] += s->F[i * rows + r] * y[r];
  double a[3][2], b[3][2], rho = 0.0, model[8];
  for (int e = 0; e < dim; ++e) {
    a[e][0] = 1.0;
    a[e][1] = exp(theta[e]);
    b[e][0] = exp(theta[dim + 2 * e]);
    b[e][1] = exp(theta[dim + 2 * e + 1]);
  }
  for (int p = 0; p < np; ++p) {
    double volume = 1.0;
    for (int e = 0; e < dim; ++e) volume *= a[e][p >> e & 1];
    rho += mu[p] / volume / np;
    model[p] = 0.0;
    for (int d = 0; d < dim; ++d) model[p] += volume / a[d][p >> d & 1] * b[d][p >> d & 1];
  }
  for (int e = 0; e < dim; ++e) {
    double K[MAX_M * MAX_M], M[MAX_M * MAX_M];
    double *S = out + e * (m * m + m), *L = S + m * m;
    assembled_interior(k, s->stiffness, b[e], K);
    assembled_interior(k, s->mass, a[e], M);
    TS_CALL(ts_generalized_eigen_small(m, K, M, S, L));
    for (int i = 0; i < m; ++i) L[i] += rho / dim;
  }
  region_scalings(dim, stiffness, model, out + dim * (m * m + m));
  return 0;
}

/* The vertex of patch j (lexicographic over the interior vertices). */
static void patch_vertex(int64_t j, const int64_t *patches, int64_t *v) {
  v[0] = 1 + j % patches[0];
  v[1] = 1 + j / patches[0] % patches[1];
  v[2] = 1 + j / patches[0] / patches[1];
}

/* Every patch's local solver into s->local (host), in parallel.  Errors are recorded per
 * thread (lib/core/error.c), so a failing patch is noted and solved again on the calling
 * thread, whose error message then names what failed. */
static int all_patch_solvers(const setup_ctx *s, const int64_t *patches) {
  const int dim = s->dofs->dim, m = 2 * s->dofs->degree - 1;
  const int64_t count = patches[0] * patches[1] * patches[2];
  const int block = dim * (m * m + m) + (dim == 3 ? 27 : 9);
  int64_t failed = -1;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t j = 0; j < count; ++j) {
    int64_t seen, v[3];
#pragma omp atomic read
    seen = failed;
    if (seen >= 0) continue;
    patch_vertex(j, patches, v);
    if (patch_solver(s, v, s->local + j * block)) {
#pragma omp atomic write
      failed = j;
    }
  }
  if (failed < 0) return 0;
  int64_t v[3];
  patch_vertex(failed, patches, v);
  const int ierr = patch_solver(s, v, s->local + failed * block);
  char what[160];
  snprintf(what, sizeof what, "the local solver of the patch of vertex (%lld, %lld, %lld)",
           (long long)v[0], (long long)v[1], (long long)v[2]);
  return ts_error_trace(ierr ? ierr : TS_ERR_INTERNAL, __FILE__, __LINE__, what);
}

/* The local solvers of every patch of A's level, on the backend in A's precision. */
static int setup_local(ts_operator A, ts_dofs dofs, patch_additive_data *data) {
  const int dim = dofs->dim, m = 2 * dofs->degree - 1;
  const int64_t patches[3] = {dofs->cells[0] - 1, dofs->cells[1] - 1, dim == 3 ? dofs->cells[2] - 1 : 1};
  const int64_t count = patches[0] * patches[1] * patches[2];
  setup_ctx s = {.dofs = dofs};
  double F[FIT_UNKNOWNS * FIT_ROWS];
  TS_CALL(ts_operator_mapped_cell_sums(A, "additive vertex-patch preconditioner", &s.sums));
  TS_CALL(fit_operator(dim, F));
  s.F = F;
  /* the reference 1D mass and stiffness on [0,1] (the (k+1)-point Gauss rule: exact) */
  TS_CALL(ts_lagrange_mass_stiffness(dofs->degree + 1, dofs->fe->points, s.mass, s.stiffness));
  size_t size;
  TS_CALL(ts_size_mul((size_t)count, (size_t)(dim * (m * m + m) + (dim == 3 ? 27 : 9)),
                      "patch local solvers", &size));
  TS_CALL(ts_calloc(size, sizeof(double), "patch local solvers", &s.local));
  int ierr = all_patch_solvers(&s, patches);
  if (!ierr) ierr = ts_vec_create(A->backend, (int64_t)size, A->precision, &data->local);
  if (!ierr) ierr = ts_vec_set_from_host(data->local, s.local);
  free(s.local);
  return ierr;
}

/* B D^{-1}: the inverse diagonal on the DoFs of the box boundary (no patch holds them). */
static int setup_boundary(ts_operator A, ts_dofs dofs, patch_additive_data *data) {
  double *h;
  TS_CALL(ts_vec_create(A->backend, A->n, A->precision, &data->boundary));
  TS_CALL(ts_operator_diagonal(A, data->boundary));
  TS_CALL(ts_calloc((size_t)A->n, sizeof *h, "patch boundary diagonal", &h));
  int ierr = ts_vec_get_to_host(data->boundary, h);
  for (int64_t i = 0; !ierr && i < A->n; ++i) h[i] = ts_dofs_is_boundary(dofs, i) ? 1.0 / h[i] : 0.0;
  if (!ierr) ierr = ts_vec_set_from_host(data->boundary, h);
  free(h);
  return ierr;
}

/* ---------------------------------------------------------------- the operator */

static int patch_additive_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  patch_additive_data *data = op->data;
  ts_vec out = add ? data->scratch : y;
  ts_patch_additive_plan plan = data->plan;
  TS_CALL(ts_vec_pointwise_mult(data->boundary, x, out));
  for (int c = 0; c < ts_vertex_patch_color_count(plan.dim); ++c) {
    TS_CALL(ts_vertex_patch_color(plan.dim, plan.cells, c, plan.first_vertex, plan.vertex_count,
                                  &plan.vertex_stride));
    if (plan.vertex_count[0] * plan.vertex_count[1] * plan.vertex_count[2] == 0) continue;
    TS_CALL(ts_backend_patch_additive(op->backend, &plan, op->precision, x->data, out->data));
  }
  if (add) TS_CALL(ts_vec_axpby(1.0, data->scratch, 1.0, y));
  return 0;
}

/* per patch 2 dim contractions of m^(dim+1) multiply-adds (2 flops each) and m^dim divisions */
static double patch_additive_flops(ts_operator op) {
  const patch_additive_data *data = op->data;
  const ts_patch_additive_plan *p = &data->plan;
  double patches = 1.0, size = 1.0;
  for (int d = 0; d < p->dim; ++d) {
    patches *= (double)(p->cells[d] - 1);
    size *= p->m;
  }
  return patches * (4.0 * p->dim * size * p->m + size);
}

static void patch_additive_destroy(ts_operator op) {
  patch_additive_data *data = op->data;
  if (!data) return;
  ts_vec_destroy(&data->local);
  ts_vec_destroy(&data->boundary);
  ts_vec_destroy(&data->scratch);
  ts_free(&op->data);
}

static const ts_operator_ops patch_additive_ops = {
    .name = "patch-additive",
    .apply = patch_additive_apply,
    .flops = patch_additive_flops,
    .destroy = patch_additive_destroy,
    .apply_transpose = patch_additive_apply, /* symmetric */
};

int ts_operator_create_patch_additive(ts_operator A, ts_operator *P) {
  TS_CHECK_NOT_NULL(P);
  *P = NULL;
  TS_CHECK_NOT_NULL(A);
  ts_dofs dofs;
  TS_CALL(ts_operator_mapped_dofs(A, "ts_operator_create_patch_additive", &dofs));
  for (int d = 0; d < dofs->dim; ++d)
    TS_CHECK_ARG(dofs->cells[d] >= 2, "ts_operator_create_patch_additive: %lld cell(s) in "
                 "direction %d; vertex patches need at least 2 cells per direction",
                 (long long)dofs->cells[d], d);
  ts_backend be = A->backend;
  if (!be->ops.patch_additive)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "the %s backend does not implement the additive "
                    "vertex-patch preconditioner (kernel 'patch_additive')", be->name);
  patch_additive_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "additive vertex-patch preconditioner", &data));
  ts_patch_additive_plan *pl = &data->plan;
  pl->dim = dofs->dim;
  pl->dofs_per_cell = dofs->degree;
  for (int d = 0; d < 3; ++d) {
    pl->cells[d] = dofs->cells[d];
    pl->n[d] = dofs->n[d];
  }
  pl->n_dofs = dofs->count;
  pl->m = 2 * dofs->degree - 1;
  int ierr = setup_local(A, dofs, data);
  if (!ierr) ierr = setup_boundary(A, dofs, data);
  if (!ierr) ierr = ts_vec_create(be, A->n, A->precision, &data->scratch);
  if (!ierr) pl->local = data->local->data;
  if (!ierr) ierr = ts_operator_create_shell(be, &patch_additive_ops, A->n, A->precision, data, P);
  if (ierr) {
    ts_vec_destroy(&data->local);
    ts_vec_destroy(&data->boundary);
    ts_vec_destroy(&data->scratch);
    ts_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "additive vertex-patch preconditioner setup");
  }
  return 0;
}
