/* stokes-patch.c -- the vertex patches of the Stokes system of RT_k x DGQ_k (doc/stokes.md
 * section 7; paper 000, sections 3.1-3.2): the 1D patch matrices of the plan (the
 * restrictions of the global 1D matrices of doc/stokes.md section 4 to the 2 cells of a
 * patch), the patch kinds at the box boundary, and the local matrix Acal_j in Kronecker form
 * (paper 000, eq. 7), the reference for the local solvers (mg/stokes-patch-solve.c; the
 * local DoF numbering and the divergence blocks are mg/stokes-patch-local.h's). */
#include <string.h>
#include "stokes-patch-impl.h"

/* Multiply an array of the given shape by diag(w) along direction d, in place. */
static void scale_direction(const int *shape, int d, const double *w, double *a) {
  const int64_t inner = d == 0 ? 1 : d == 1 ? shape[0] : (int64_t)shape[0] * shape[1];
  const int64_t total = (int64_t)shape[0] * shape[1] * shape[2];
  for (int64_t idx = 0; idx < total; ++idx) a[idx] *= w[(idx / inner) % shape[d]];
}

/* out += s a over n entries */
static void add_scaled(int64_t n, double s, const double *a, double *out) {
  for (int64_t idx = 0; idx < n; ++idx) out[idx] += s * a[idx];
}

int ts_stokes_patch_kinds(const ts_stokes_patch_plan *plan, const int64_t *vertex, int *kinds) {
  int kind = 0, stride = 1;
  for (int d = 0; d < 3; ++d) {
    kinds[d] = 0;
    if (d >= plan->global.dim) continue;
    kinds[d] = (vertex[d] == 1 ? 1 : 0) | (vertex[d] == plan->global.cells[d] - 1 ? 2 : 0);
    kind += kinds[d] * stride;
    stride *= TS_STOKES_PATCH_KINDS;
  }
  return kind;
}

/* y_i = A_{j,i} u_i = sum_d scale[d] (x)_e (e == d ? L_e : M_e) u_i (paper 000, eq. 7) */
static void velocity_block_apply(const ts_stokes_patch_plan *plan, const int *kinds, int i,
                                 const double *u, double *y, double *work) {
  const int dim = plan->global.dim;
  int shape[3];
  ts_stokes_patch_shape(plan, i, shape);
  double *a = work, *b = work + plan->n_velocity;
  for (int64_t idx = 0; idx < plan->n_velocity; ++idx) y[idx] = 0.0;
  for (int d = 0; d < dim; ++d) {
    memcpy(a, u, sizeof(double) * (size_t)plan->n_velocity);
    for (int e = 0; e < dim; ++e) {
      if (e == i) {
        const double *L = e == d ? plan->cont_stiffness : plan->cont_mass;
        ts_tensor_contract(dim, shape, e, L, plan->n_cont, 0, a, b);
        memcpy(a, b, sizeof(double) * (size_t)plan->n_velocity);
      } else if (e == d) {
        ts_tensor_contract(dim, shape, e, plan->dg_sipg[kinds[e]], plan->n_dg, 0, a, b);
        memcpy(a, b, sizeof(double) * (size_t)plan->n_velocity);
      } else {
        scale_direction(shape, e, plan->dg_mass, a);
      }
    }
    add_scaled(plan->n_velocity, plan->global.scale[d], a, y);
  }
}

/* The work doubles of the local apply: two velocity blocks (velocity_block_apply), or
 * B_i^T p and the pressure buffer of the divergence. */
static size_t local_apply_work_doubles(const ts_stokes_patch_plan *plan) {
  return 2 * (size_t)plan->n_local;
}

int ts_stokes_patch_local_apply(const ts_stokes_patch_plan *plan, const int *kinds,
                                const double *x, double *y) {
  const int dim = plan->global.dim;
  double *work;
  TS_CALL(ts_calloc(local_apply_work_doubles(plan), sizeof(double), "Stokes patch work", &work));
  double *bt_p = work, *pressure_work = work + plan->n_velocity;
  const double *p = x + (size_t)dim * plan->n_velocity;
  double *yp = y + (size_t)dim * plan->n_velocity;
  for (int64_t idx = 0; idx < plan->n_pressure; ++idx) yp[idx] = 0.0;
  for (int i = 0; i < dim; ++i) {
    const double *u = x + (size_t)i * plan->n_velocity;
    double *yu = y + (size_t)i * plan->n_velocity;
    velocity_block_apply(plan, kinds, i, u, yu, work);
    ts_stokes_patch_divergence_transpose(plan, i, p, bt_p, pressure_work);
    for (int64_t idx = 0; idx < plan->n_velocity; ++idx) yu[idx] += bt_p[idx]; /* y_u = A u + B^T p */
    ts_stokes_patch_divergence_add(plan, i, u, yp, pressure_work);
  }
  for (int64_t idx = 0; idx < plan->n_pressure; ++idx) yp[idx] = -yp[idx]; /* y_p = -B u */
  ts_free(&work);
  return 0;
}

/* The interior rows and columns 1..N-2 of the 2-cell assembly of an n x n cell matrix
 * (continuous direction: the patch's interior Lobatto DoFs). */
static void continuous_patch_matrix(int n, const double *cell, double *out) {
  const int N = 2 * n - 1, m = N - 2;
  double full[(2 * TS_STOKES_N2 - 1) * (2 * TS_STOKES_N2 - 1)];
  ts_matrix_1d_assemble(2, n, cell, full);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < m; ++c) out[r * m + c] = full[(r + 1) * N + c + 1];
}

/* The 2x2 cell blocks of the 1D SIPG matrix over the patch's cells: the left cell's
 * diagonal block has its left face on the boundary for kind bit 0, the right cell's its
 * right face for bit 1 (doc/stokes.md section 4). */
static void sipg_patch_matrix(const ts_stokes_plan *g, int kind, double *out) {
  const int n = g->degree + 1, N = 2 * n;
  const double *left = g->sipg_diag[kind & 1 ? 1 : 0], *right = g->sipg_diag[kind & 2 ? 2 : 0];
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      out[a * N + b] = left[a * n + b];
      out[(a + n) * N + b + n] = right[a * n + b];
      out[a * N + b + n] = g->sipg_upper[a * n + b];
      out[(a + n) * N + b] = g->sipg_upper[b * n + a];
    }
}

/* The 2-cell divergence (rows: both cells' pressure DoFs) restricted to the interior
 * Lobatto columns. */
static void divergence_patch_matrix(const ts_stokes_plan *g, double *out) {
  const int n1 = g->degree + 1, n2 = g->degree + 2, rows = 2 * n1, cols = 2 * n1 - 1;
  for (int r = 0; r < rows * cols; ++r) out[r] = 0.0;
  for (int c = 0; c < 2; ++c)
    for (int a = 0; a < n1; ++a)
      for (int b = 0; b < n2; ++b) {
        const int col = c * n1 + b - 1;
        if (col >= 0 && col < cols) out[(c * n1 + a) * cols + col] = g->divergence[a * n2 + b];
      }
}

static int check_global_plan(const ts_stokes_plan *g) {
  TS_CHECK_ARG(g, "Stokes patch plan: the Stokes plan is NULL");
  TS_CHECK_ARG(g->dim == 2 || g->dim == 3, "Stokes patch plan: dim = %d, allowed 2 or 3", g->dim);
  TS_CHECK_ARG(g->degree >= 0 && g->degree <= TS_STOKES_MAX_DEGREE,
               "Stokes patch plan: degree = %d, allowed 0..%d", g->degree, TS_STOKES_MAX_DEGREE);
  TS_CHECK_ARG(g->continuous_mass && g->continuous_stiffness && g->dg_mass && g->sipg_upper &&
                   g->divergence && g->sipg_diag[0] && g->sipg_diag[1] && g->sipg_diag[2] &&
                   g->sipg_diag[3],
               "Stokes patch plan: a 1D matrix of the Stokes plan is NULL");
  for (int d = 0; d < g->dim; ++d)
    TS_CHECK_ARG(g->cells[d] >= 2, "Stokes patch plan: cells[%d] = %lld, a patch needs at least 2",
                 d, (long long)g->cells[d]);
  return 0;
}

int ts_stokes_patch_plan_init(const ts_stokes_plan *global, ts_stokes_patch_solver solver,
                              ts_stokes_patch_plan *plan, double **storage) {
  TS_CALL(check_global_plan(global));
  TS_CHECK_ARG(solver == TS_STOKES_PATCH_SCHUR || solver == TS_STOKES_PATCH_DIRECT,
               "Stokes patch plan: solver = %d, allowed TS_STOKES_PATCH_SCHUR (0) or "
               "TS_STOKES_PATCH_DIRECT (1)", (int)solver);
  memset(plan, 0, sizeof *plan);
  plan->global = *global;
  const int k = global->degree, dim = global->dim;
  plan->n_cont = 2 * k + 1;
  plan->n_dg = 2 * (k + 1);
  plan->n_velocity = plan->n_cont;
  plan->n_pressure = plan->n_dg;
  for (int d = 1; d < dim; ++d) {
    plan->n_velocity *= plan->n_dg;
    plan->n_pressure *= plan->n_dg;
  }
  plan->n_local = dim * plan->n_velocity + plan->n_pressure;
  plan->stage = TS_PATCH_STAGE_SOLVE;
  plan->solver = solver;
  const size_t nc = (size_t)plan->n_cont, nd = (size_t)plan->n_dg;
  const size_t matrices = 2 * nc * nc + TS_STOKES_PATCH_KINDS * nd * nd + nd + nd * nc;
  size_t solver_doubles; /* depends on the sizes set above only */
  TS_CALL(ts_stokes_patch_solver_doubles(plan, &solver_doubles));
  const size_t total = matrices + solver_doubles;
  double *s;
  TS_CALL(ts_calloc(total, sizeof(double), "Stokes patch plan", &s));
  double *next = s;
  continuous_patch_matrix(k + 2, global->continuous_mass, next);
  plan->cont_mass = next;
  next += nc * nc;
  continuous_patch_matrix(k + 2, global->continuous_stiffness, next);
  plan->cont_stiffness = next;
  next += nc * nc;
  for (int kind = 0; kind < TS_STOKES_PATCH_KINDS; ++kind) {
    sipg_patch_matrix(global, kind, next);
    plan->dg_sipg[kind] = next;
    next += nd * nd;
  }
  for (int c = 0; c < 2; ++c)
    memcpy(next + c * (k + 1), global->dg_mass, sizeof(double) * (size_t)(k + 1));
  plan->dg_mass = next;
  next += nd;
  divergence_patch_matrix(global, next);
  plan->divergence = next;
  next += nd * nc;
  int ierr = ts_stokes_patch_solver_setup(plan, next);
  if (ierr) {
    ts_free(&s);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Stokes patch local solver setup");
  }
  *storage = s;
  return 0;
}
