/* hdiv-mass.c -- the H(div) mass M_beta = (beta u, v) of RT_k on the cells of a box or a mapped
 * level, matrix-free (paper 003, sections 2-3; doc/hdiv.md, "The matrix-free H(div) mass").
 * This file prepares the plan (ts_hdiv_mass_plan) and the exact diagonal; the backend runs
 * the loops.
 *
 * The map.  A reference field u^ on [0,1]^dim (component i: degree k+1 in direction i, k
 * across) is mapped to the cell K by the contravariant Piola map u = J u^ / det J, which keeps
 * the normal fluxes through faces, so that the face DoFs shared by two cells make u . n
 * continuous on any mapped mesh.  Then
 *   M_K[i][j] = int_K beta u_i . u_j = sum_q w_q beta_K (J phi^_i)^T (J phi^_j) / det J
 *            = sum_q phi^_i^T G_K,q phi^_j,   G_K,q = w_q beta_K J_q^T J_q / det J_q,
 * a symmetric dim x dim tensor per point (dim (dim+1) / 2 values, the backend's only
 * geometry).  On the box's Cartesian cells J = diag(h), G = w_q beta_K diag(h_i^2 / |K|):
 * one value per cell and component (cartesian = 1), the weights w_q applied by the backend.
 * For the interpolation-histopolation basis (ts_fe_create_rt_ih) the DoFs are fluxes through
 * sub-faces, which the Piola map preserves: this is the map of ts_matrix_assemble_mass, and
 * the box case reproduces it.  For ts_fe_create_rt the DoFs are the coefficients of u^ in the
 * nodal basis (on a Cartesian cell u_i's nodal values times the face area |K| / h_i).
 *
 * Quadrature.  The Gauss rule of n_q = k+2 points per direction: on an affine cell J is
 * constant and the integrand phi^_i . phi^_j has degree at most 2k+2 per direction (the
 * product of two functions of one component, degree k+1 in its direction), which k+2 points
 * integrate exactly (degree 2 n_q - 1 = 2k+3), so the mass is exact on boxes and
 * parallelograms/parallelepipeds; on non-affine cells 1 / det J is rational and the rule is a
 * quadrature, as for the L2 mass (lib/op/l2-mass.c).
 *
 * The diagonal.  M_K[r][r] of component i is sum_q G_K,q[i][i] prod_d T_d[q_d][r_d]^2 (T_d
 * the normal or tangential table): the squared tables contracted with G's diagonal entry,
 * summed over the cells of a DoF (two for a face DoF), once at setup. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tessera-impl.h"

#define MAX_N1 TS_MAX_DEGREE            /* k + 1 */
#define MAX_N2 (TS_MAX_DEGREE + 1)      /* k + 2 */
#define MAX_NQ (TS_MAX_DEGREE + 1)      /* k + 2 */
#define MAX_POINTS (MAX_NQ * MAX_NQ * MAX_NQ)

typedef struct hdiv_mass_data {
  ts_hdiv_mass_plan plan;
  double normal[MAX_NQ * MAX_N2], tangential[MAX_NQ * MAX_N1], weights[MAX_NQ];
  ts_vec tensors, diagonal;
} hdiv_mass_data;

/* ---------------------------------------------------------------- arguments */

static int check_dofs(ts_dofs dofs) {
  const ts_fe_family f = dofs->fe->family;
  TS_CHECK_ARG(f == TS_FE_RT || f == TS_FE_RT_IH, "H(div) mass: dofs are of a %s element; "
               "allowed RT_k (ts_fe_create_rt or ts_fe_create_rt_ih)",
               f == TS_FE_Q ? "Q_k" : "DGQ_k");
  TS_CHECK_ARG(dofs->dim == 2 || dofs->dim == 3, "H(div) mass: dofs are %dD, allowed 2D or 3D",
               dofs->dim);
  return 0;
}

/* beta per cell finite and > 0, or TS_ERR_ARG naming the first cell that is not. */
static int check_beta(ts_dofs dofs, const double *beta) {
  for (int64_t cell = 0; beta && cell < ts_cell_count(dofs); ++cell)
    if (!(isfinite(beta[cell]) && beta[cell] > 0.0)) {
      char name[96];
      ts_cell_name(dofs, cell, name, sizeof name);
      return TS_ERROR(TS_ERR_ARG, "H(div) mass: beta[%lld] (%s) is %g, allowed a finite number "
                      "> 0", (long long)cell, name, beta[cell]);
    }
  return 0;
}

/* ---------------------------------------------------------------- the plan */

static int points_per_cell(const ts_hdiv_mass_plan *pl) {
  return pl->dim == 3 ? pl->n_q * pl->n_q * pl->n_q : pl->n_q * pl->n_q;
}

static int tensor_entries(int dim) { return dim * (dim + 1) / 2; }

/* Sizes, numbering and the 1D tables: the component's own direction interpolates at the k+2
 * Gauss-Lobatto points, the others are Lagrange at the k+1 Gauss points (RT_k) or the
 * histopolation functions of the Gauss-Lobatto sub-intervals (RT_k IH). */
static int plan_init(ts_dofs dofs, hdiv_mass_data *data) {
  ts_hdiv_mass_plan *pl = &data->plan;
  const int k = dofs->degree, nq = k + 2;
  pl->dim = dofs->dim;
  pl->degree = k;
  pl->n_q = nq;
  for (int d = 0; d < 3; ++d) pl->cells[d] = dofs->cells[d];
  for (int i = 0; i < 3; ++i) {
    for (int d = 0; d < 3; ++d) pl->n_u[i][d] = i < dofs->dim ? dofs->comp_n[i][d] : 1;
    pl->offset[i] = i < dofs->dim ? dofs->comp_offset[i] : dofs->count;
  }
  pl->n_dofs = dofs->count;
  double points[MAX_NQ];
  TS_CALL(ts_gauss_rule(nq, points, data->weights));
  const ts_fe fe = dofs->fe;
  ts_lagrange_tabulate(k + 2, fe->normal_points, nq, points, data->normal, NULL);
  if (fe->family == TS_FE_RT_IH)
    ts_histopolation_tabulate(k + 2, fe->normal_points, nq, points, data->tangential);
  else
    ts_lagrange_tabulate(k + 1, fe->points, nq, points, data->tangential, NULL);
  pl->normal_1d = data->normal;
  pl->tangential_1d = data->tangential;
  pl->weights_1d = data->weights;
  pl->cartesian = dofs->mesh->map == NULL;
  return 0;
}

/* ---------------------------------------------------------------- the tensors */

typedef struct tensors_ctx {
  ts_dofs dofs, geometry;         /* geometry: Q_g DoFs of the mapped mesh */
  const double *beta, *weights;
  int nq;
  double shape[MAX_NQ * (TS_MAX_DEGREE + 1)], grad[MAX_NQ * (TS_MAX_DEGREE + 1)];
  double *out;
  ts_cell_failure *failure;
} tensors_ctx;

/* G_K,q = w_q beta_K J^T J / det J at the cell's points, stored tensors + (K s_count + s) np
 * + q (diagonal entries first, then (0,1), (0,2), (1,2)). */
static void cell_tensors(const tensors_ctx *t, int64_t cell) {
  const int dim = t->dofs->dim, nq = t->nq, np = dim == 3 ? nq * nq * nq : nq * nq;
  const int entries = tensor_entries(dim);
  static const int rows2[3] = {0, 1, 0}, cols2[3] = {0, 1, 1};
  static const int rows3[6] = {0, 1, 2, 0, 0, 1}, cols3[6] = {0, 1, 2, 1, 2, 2};
  const int *rows = dim == 3 ? rows3 : rows2, *cols = dim == 3 ? cols3 : cols2;
  double J[MAX_POINTS * 9], inverse[9];
  ts_cell_geometry(t->geometry, cell, nq, t->shape, t->grad, NULL, J);
  double *out = t->out + cell * entries * np;
  const double beta = t->beta ? t->beta[cell] : 1.0;
  for (int q = 0; q < np; ++q) {
    const double *Jq = J + q * dim * dim;
    const double det = ts_jacobian_inverse(dim, Jq, inverse);
    if (!(det > 0.0) || !isfinite(det)) {
      char name[96];
      ts_cell_name(t->dofs, cell, name, sizeof name);
      ts_cell_failure_set(t->failure, cell, TS_ERR_ARG, "%s is inverted or degenerate: det J = "
                          "%g at its quadrature point %d (the map must have a positive "
                          "Jacobian determinant)", name, det, q);
      return;
    }
    double wq = beta / det;
    for (int d = 0, m = q; d < dim; ++d, m /= nq) wq *= t->weights[m % nq];
    for (int s = 0; s < entries; ++s) {
      double g = 0.0; /* (J^T J)[a][b] = sum_r J[r][a] J[r][b] */
      for (int r = 0; r < dim; ++r) g += Jq[r * dim + rows[s]] * Jq[r * dim + cols[s]];
      out[s * np + q] = wq * g;
    }
  }
}

/* The tensors of a mapped level (cells s_count np values, host). */
static int mapped_tensors(ts_dofs dofs, const double *beta, const double *weights, double *out) {
  tensors_ctx *t;
  TS_CALL(ts_calloc(1, sizeof *t, "H(div) mass geometry", &t));
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  *t = (tensors_ctx){.dofs = dofs, .beta = beta, .weights = weights, .nq = dofs->degree + 2,
                     .out = out, .failure = &failure};
  double points[MAX_NQ], w[MAX_NQ];
  ts_fe fe = NULL;
  int ierr = ts_gauss_rule(t->nq, points, w);
  if (!ierr) ierr = ts_mass_geometry_dofs(dofs, &fe, &t->geometry);
  if (!ierr) {
    ts_lagrange_tabulate(t->geometry->degree + 1, fe->points, t->nq, points, t->shape, t->grad);
    const int64_t cells = ts_cell_count(dofs);
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t cell = 0; cell < cells; ++cell) cell_tensors(t, cell);
    ierr = ts_cell_failure_report(&failure, "H(div) mass");
  }
  ts_dofs_destroy(&t->geometry);
  ts_fe_destroy(&fe);
  free(t);
  return ierr;
}

/* The constants of the Cartesian cells: c_K,i = beta_K h_i^2 / |K| (J = diag(h)). */
static void cartesian_tensors(ts_dofs dofs, const double *beta, double *out) {
  double volume = 1.0;
  for (int d = 0; d < dofs->dim; ++d) volume *= dofs->h[d];
  for (int64_t cell = 0; cell < ts_cell_count(dofs); ++cell)
    for (int i = 0; i < dofs->dim; ++i)
      out[cell * dofs->dim + i] = (beta ? beta[cell] : 1.0) * dofs->h[i] * dofs->h[i] / volume;
}

/* G_K,q[i][i] at the cell's points from the host tensors. */
static void diagonal_entry(const ts_hdiv_mass_plan *pl, const double *tensors, int64_t cell,
                           int i, double *g) {
  const int dim = pl->dim, nq = pl->n_q, np = points_per_cell(pl);
  if (!pl->cartesian) {
    memcpy(g, tensors + (cell * tensor_entries(dim) + i) * np, sizeof *g * np);
    return;
  }
  for (int q = 0; q < np; ++q) {
    double w = tensors[cell * dim + i];
    for (int d = 0, m = q; d < dim; ++d, m /= nq) w *= pl->weights_1d[m % nq];
    g[q] = w;
  }
}

/* ---------------------------------------------------------------- the diagonal */

typedef struct diagonal_ctx {
  const ts_hdiv_mass_plan *pl;
  const double *tensors;
  double squares[2][MAX_NQ * MAX_N2]; /* [0] tangential, [1] normal, entries squared */
  double *diag;
} diagonal_ctx;

/* The cell's diagonal entries of every component added into diag (ts_cell_layers_for: no
 * two cells that share a DoF run at once). */
static void cell_diagonal(void *ctx, int64_t cell) {
  const diagonal_ctx *c = ctx;
  const ts_hdiv_mass_plan *pl = c->pl;
  const int dim = pl->dim, k1 = pl->degree + 1;
  const int64_t c0 = cell % pl->cells[0], c1 = cell / pl->cells[0] % pl->cells[1],
                c2 = cell / pl->cells[0] / pl->cells[1], at[3] = {c0, c1, c2};
  double g[MAX_POINTS], t0[MAX_POINTS], t1[MAX_POINTS], local[MAX_POINTS];
  for (int i = 0; i < dim; ++i) {
    diagonal_entry(pl, c->tensors, cell, i, g);
    int shape[3] = {pl->n_q, pl->n_q, pl->n_q}, m[3] = {1, 1, 1};
    const double *src = g;
    for (int d = 0; d < dim; ++d) {
      m[d] = k1 + (d == i);
      double *dst = d == dim - 1 ? local : d % 2 ? t1 : t0;
      ts_tensor_contract(dim, shape, d, c->squares[d == i], m[d], 1, src, dst);
      shape[d] = m[d];
      src = dst;
    }
    for (int r2 = 0; r2 < m[2]; ++r2)
      for (int r1 = 0; r1 < m[1]; ++r1)
        for (int r0 = 0; r0 < m[0]; ++r0) {
          const int64_t a0 = at[0] * k1 + r0, a1 = at[1] * k1 + r1, a2 = at[2] * k1 + r2;
          c->diag[pl->offset[i] + a0 + pl->n_u[i][0] * (a1 + pl->n_u[i][1] * a2)] +=
              local[r0 + m[0] * (r1 + m[1] * r2)];
        }
  }
}

static int compute_diagonal(ts_dofs dofs, const ts_hdiv_mass_plan *pl, const double *tensors,
                            double *diag) {
  diagonal_ctx *c;
  TS_CALL(ts_calloc(1, sizeof *c, "H(div) mass diagonal tables", &c));
  *c = (diagonal_ctx){.pl = pl, .tensors = tensors, .diag = diag};
  const int k1 = pl->degree + 1, nq = pl->n_q;
  for (int q = 0; q < nq; ++q) {
    for (int r = 0; r < k1; ++r)
      c->squares[0][q * k1 + r] = pl->tangential_1d[q * k1 + r] * pl->tangential_1d[q * k1 + r];
    for (int r = 0; r <= k1; ++r)
      c->squares[1][q * (k1 + 1) + r] = pl->normal_1d[q * (k1 + 1) + r] * pl->normal_1d[q * (k1 + 1) + r];
  }
  ts_cell_layers_for(dofs, cell_diagonal, c);
  free(c);
  return 0;
}

/* ---------------------------------------------------------------- the operator */

static int hdiv_mass_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  hdiv_mass_data *data = op->data;
  return ts_backend_hdiv_mass_apply(op->backend, &data->plan, op->precision, x->data, y->data, add);
}

static int hdiv_mass_diagonal(ts_operator op, ts_vec d) {
  return ts_vec_copy(((hdiv_mass_data *)op->data)->diagonal, d);
}

/* Counted operations per application: per component the sum factorization to the n_q points
 * and back (2 flops a multiply-add), and the point tensors (dim^2 multiply-adds a point). */
static double hdiv_mass_flops(ts_operator op) {
  const ts_hdiv_mass_plan *p = &((const hdiv_mass_data *)op->data)->plan;
  const double a = p->degree + 1, b = p->degree + 2, q = p->n_q;
  const double cells = (double)(p->cells[0] * p->cells[1] * p->cells[2]);
  const double sweeps = p->dim == 3 ? q * b * a * a + q * q * a * a + q * q * q * a : q * b * a + q * q * a;
  const double points = p->dim == 3 ? q * q * q : q * q;
  return cells * (p->dim * 2.0 * 2.0 * sweeps + 2.0 * p->dim * p->dim * points);
}

static void data_free(hdiv_mass_data **data) {
  if (!*data) return;
  ts_vec_destroy(&(*data)->tensors);
  ts_vec_destroy(&(*data)->diagonal);
  ts_free(data);
}

static void hdiv_mass_destroy(ts_operator op) {
  hdiv_mass_data *data = op->data;
  data_free(&data);
  op->data = NULL;
}

static const ts_operator_ops hdiv_mass_ops = {
    .name = "hdiv-mass",
    .apply = hdiv_mass_apply,
    .diagonal = hdiv_mass_diagonal,
    .flops = hdiv_mass_flops,
    .destroy = hdiv_mass_destroy,
    .apply_transpose = hdiv_mass_apply, /* symmetric */
};

/* A host array of `count` doubles into a new backend vector. */
static int upload(ts_backend backend, const double *host, int64_t count, ts_vec *v) {
  TS_CALL(ts_vec_create(backend, count, TS_DOUBLE, v));
  return ts_vec_set_from_host(*v, host);
}

/* The plan's tables, the level's tensors (*tensors, *count values on the host; the caller
 * frees them) and the exact diagonal into diag (dofs->count values, zero on entry). */
static int host_tensors(ts_dofs dofs, const double *beta, hdiv_mass_data *data,
                        double **tensors, size_t *count, double *diag) {
  TS_CALL(plan_init(dofs, data));
  ts_hdiv_mass_plan *pl = &data->plan;
  TS_CALL(ts_size_mul((size_t)ts_cell_count(dofs), pl->cartesian ? (size_t)pl->dim
                      : (size_t)(tensor_entries(pl->dim) * points_per_cell(pl)),
                      "H(div) mass tensors", count));
  TS_CALL(ts_calloc(*count, sizeof **tensors, "H(div) mass tensors", tensors));
  int ierr = 0;
  if (pl->cartesian) cartesian_tensors(dofs, beta, *tensors);
  else ierr = mapped_tensors(dofs, beta, data->weights, *tensors);
  if (!ierr) ierr = compute_diagonal(dofs, pl, *tensors, diag);
  if (ierr) free(*tensors);
  if (ierr) *tensors = NULL;
  return ierr;
}

/* The tensors and the diagonal of the level on the backend. */
static int setup(ts_backend backend, ts_dofs dofs, const double *beta, hdiv_mass_data *data) {
  double *tensors = NULL, *diag = NULL;
  size_t count = 0;
  TS_CALL(ts_calloc((size_t)dofs->count, sizeof *diag, "H(div) mass diagonal", &diag));
  int ierr = host_tensors(dofs, beta, data, &tensors, &count, diag);
  if (!ierr) ierr = upload(backend, tensors, (int64_t)count, &data->tensors);
  if (!ierr) ierr = upload(backend, diag, dofs->count, &data->diagonal);
  free(tensors);
  free(diag);
  if (!ierr) data->plan.tensors = data->tensors->data;
  return ierr;
}

int ts_hdiv_mass_host_diagonal(ts_dofs dofs, const double *beta, double *diag) {
  TS_CALL(check_dofs(dofs));
  TS_CALL(check_beta(dofs, beta));
  hdiv_mass_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "H(div) mass tables", &data));
  double *tensors = NULL;
  size_t count = 0;
  for (int64_t j = 0; j < dofs->count; ++j) diag[j] = 0.0;
  const int ierr = host_tensors(dofs, beta, data, &tensors, &count, diag);
  free(tensors);
  free(data);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "diag(M_beta)") : 0;
}

int ts_operator_create_hdiv_mass(ts_backend backend, ts_dofs dofs, const double *beta,
                                 ts_operator *M) {
  TS_CHECK_NOT_NULL(M);
  *M = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(dofs);
  TS_CALL(check_dofs(dofs));
  TS_CALL(check_beta(dofs, beta));
  if (!backend->ops.hdiv_mass_apply)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "the %s backend does not implement the H(div) mass "
                    "(kernel 'hdiv_mass_apply')", backend->name);
  hdiv_mass_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "H(div) mass", &data));
  int ierr = setup(backend, dofs, beta, data);
  if (!ierr)
    ierr = ts_operator_create_shell(backend, &hdiv_mass_ops, dofs->count, TS_DOUBLE, data, M);
  if (ierr) {
    data_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "H(div) mass");
  }
  return 0;
}
