/* mapped.c -- the operator of -div(kappa grad u) + c u on Q_k over mapped cells.
 *
 * On a cell K with geometry x(xi) (the Q_k interpolant of the map, lib/mesh/geometry.c) and
 * Jacobian J = dx/dxi, the chain rule grad_x phi = J^{-T} grad_xi phi and dx = det(J) dxi
 * give, with the (k+1)-point Gauss rule (w_q, xi_q) on the reference cell,
 *   A_K[i][j] = sum_q grad_xi phi_i(xi_q)^T G_q grad_xi phi_j(xi_q) + m_q phi_i phi_j,
 *   G_q = w_q det(J_q) J_q^{-1} kappa_K J_q^{-T},   m_q = w_q det(J_q) c_K.
 * G_q (symmetric, dim(dim+1)/2 values) and m_q are computed here once per cell and point and
 * stored on the backend (ts_mapped_plan); the backend applies A_K by sum factorization.  On
 * Cartesian cells G_q = w_q (prod_e h_e / h_d^2) delta_ab: the box Laplacian's plan.  The
 * diagonal is computed here once, by sum factorization of the squared 1D tables
 * (diag A_K[i] = sum_q sum_ab G_ab,q d_a phi_i d_b phi_i + m_q phi_i^2).
 *
 * Stored or recomputed.  A backend that computes G_q and m_q itself from the vertices of
 * multilinear cells (ts_backend_ops.mapped_geometry, ABI 9) gets, for such meshes and the
 * degrees and precisions where it measured that faster, the level's vertices and the cells'
 * kappa and c instead of the factors (TS_MAPPED_VERTICES): 2^dim vertices shared by cells
 * and a few values per cell, against dim(dim+1)/2 values per point.  The factors are still
 * computed here for the diagonal (doc/design.md, "Mapped cells").
 *
 * Neumann faces (ts_dofs_set_neumann_faces).  The backend's kernels constrain all of the
 * box boundary or nothing; with some Dirichlet faces left the operator is
 *   A_D = M A M + (I - M),  M = diag(mask), mask_i = 0 on the Dirichlet DoFs, 1 elsewhere,
 * applied here around the unconstrained kernel (three vector sweeps, symmetric as A), the
 * identity rows and columns of ts_operator_create_laplace on the Dirichlet DoFs.  With every
 * face Neumann nothing is constrained; without a reaction term the constants are then the
 * null space (ts_operator_mapped_singular). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "../tessera-impl.h"

#define MAX_N1 (TS_MAX_DEGREE + 1)

typedef struct mapped_data {
  ts_mapped_plan plan;
  double shape[MAX_N1 * MAX_N1], grad[MAX_N1 * MAX_N1]; /* n_q = k+1 */
  double weights[MAX_N1];
  double points[MAX_N1];  /* the Gauss points */
  double collocation[MAX_N1 * MAX_N1]; /* d/dx of the Lagrange polynomials through them, there */
  ts_dofs dofs;           /* borrowed */
  ts_vec factors;         /* G_q and m_q per cell and point, the operator's precision */
  ts_vec vertices, cell_values; /* instead of factors with TS_MAPPED_VERTICES */
  ts_vec diagonal;
  ts_vec mask, masked, sum;     /* some Neumann and some Dirichlet faces: M, M x, the sum for add */
  int singular;                 /* every face Neumann and c = 0: A 1 = 0 */
  double *cell_sums;            /* host, per cell: sum_q G_dd,q (d < dim), sum_q m_q */
} mapped_data;

/* ---------------------------------------------------------------- coefficients */

/* kappa as a full dim x dim matrix from its nk values v (nk = 0: the identity). */
static void kappa_matrix(int dim, int nk, const double *v, double *kappa) {
  for (int i = 0; i < dim * dim; ++i) kappa[i] = i % (dim + 1) == 0 ? 1.0 : 0.0;
  if (nk == 0) return;
  if (nk == 1) {
    for (int i = 0; i < dim; ++i) kappa[i * dim + i] = v[0];
    return;
  }
  for (int i = 0, t = 0; i < dim; ++i)
    for (int j = i; j < dim; ++j, ++t) kappa[i * dim + j] = kappa[j * dim + i] = v[t];
}

/* Positive definite by the leading principal minors (Sylvester's criterion). */
static int positive_definite(int dim, const double *a) {
  const double m1 = a[0], m2 = a[0] * a[dim + 1] - a[1] * a[dim];
  if (dim == 2) return m1 > 0 && m2 > 0;
  double inverse[9];
  return m1 > 0 && m2 > 0 && ts_jacobian_inverse(3, a, inverse) > 0;
}

/* Every cell's kappa finite and positive (definite), c finite and >= 0 (the arrays; values
 * per point are checked as they are computed); else TS_ERR_ARG naming the first cell that is
 * not. */
static int check_coefficients(ts_dofs dofs, const ts_coefficients *co) {
  if (!co) return 0;
  const int dim = dofs->dim, tensor = dim * (dim + 1) / 2, nk = co->kappa_components;
  TS_CHECK_ARG(nk == 0 || nk == 1 || nk == tensor,
               "mapped operator: coefficients->kappa_components = %d, allowed 0 (kappa = 1), 1 "
               "(scalar) or %d (symmetric tensor in %dD)", nk, tensor, dim);
  TS_CHECK_ARG(nk == 0 || co->kappa || co->kappa_at, "mapped operator: coefficients->kappa and "
               "kappa_at are NULL with kappa_components = %d", nk);
  TS_CHECK_ARG(!co->kappa_at || nk > 0, "mapped operator: coefficients->kappa_at given with "
               "kappa_components = 0 (allowed 1 or %d)", tensor);
  const int nk_cells = co->kappa_at ? 0 : nk; /* the per-cell arrays checked here */
  const double *reaction = co->reaction_at ? NULL : co->reaction;
  char name[96];
  for (int64_t cell = 0; cell < ts_cell_count(dofs); ++cell) {
    double kappa[9];
    int finite = 1;
    for (int t = 0; t < nk_cells; ++t) finite &= isfinite(co->kappa[cell * nk + t]) != 0;
    kappa_matrix(dim, nk_cells, nk_cells ? co->kappa + cell * nk : NULL, kappa);
    const double c = reaction ? reaction[cell] : 0.0;
    if (finite && positive_definite(dim, kappa) && isfinite(c) && c >= 0.0) continue;
    ts_cell_name(dofs, cell, name, sizeof name);
    if (!finite || !positive_definite(dim, kappa))
      return TS_ERROR(TS_ERR_ARG, "mapped operator: kappa of %s is %s (kappa[%lld..%lld] from %g): "
                      "allowed a finite, positive %s", name, finite ? "not positive definite" : "not finite",
                      (long long)(cell * nk), (long long)(cell * nk + nk - 1), co->kappa[cell * nk],
                      nk == 1 ? "number" : "definite symmetric tensor");
    return TS_ERROR(TS_ERR_ARG, "mapped operator: the reaction coefficient c of %s is %g: "
                    "allowed a finite number >= 0", name, c);
  }
  return 0;
}

/* ---------------------------------------------------------------- geometric factors */

typedef struct factors_ctx {
  const mapped_data *data;
  const ts_coefficients *co;
  double *factors;        /* host: cells n_factors n_points */
  ts_cell_failure *failure;
} factors_ctx;

#define MAX_POINTS (MAX_N1 * MAX_N1 * MAX_N1)

/* kappa's values and c at the cell's np points (kv: nk per point), from the callbacks or
 * the cell's array values; 0, or 1 with a failure naming the cell and the point. */
static int point_coefficients(const factors_ctx *f, int64_t cell, int np, const double *x,
                              double *kv, double *c) {
  const ts_coefficients *co = f->co;
  ts_dofs dofs = f->data->dofs;
  const int dim = dofs->dim, nk = co ? co->kappa_components : 0;
  int rc = 0;
  if (co && co->kappa_at) rc = co->kappa_at(co->ctx, dim, np, x, kv);
  else
    for (int q = 0; q < np; ++q)
      for (int t = 0; t < nk; ++t) kv[q * nk + t] = co->kappa[cell * nk + t];
  if (!rc && co && co->reaction_at) rc = co->reaction_at(co->ctx, dim, np, x, c);
  else if (!rc)
    for (int q = 0; q < np; ++q) c[q] = co && co->reaction ? co->reaction[cell] : 0.0;
  char name[96];
  if (rc) {
    ts_cell_name(dofs, cell, name, sizeof name);
    ts_cell_failure_set(f->failure, cell, TS_ERR_ARG, "the coefficient callback returned %d for "
                        "%s", rc, name);
    return 1;
  }
  for (int q = 0; q < np; ++q) {
    double kappa[9];
    int finite = 1;
    for (int t = 0; t < nk; ++t) finite &= isfinite(kv[q * nk + t]) != 0;
    kappa_matrix(dim, nk, kv + q * nk, kappa);
    const int kappa_ok = finite && positive_definite(dim, kappa);
    if (!kappa_ok || !isfinite(c[q]) || c[q] < 0.0) {
      ts_cell_name(dofs, cell, name, sizeof name);
      if (!kappa_ok)
        ts_cell_failure_set(f->failure, cell, TS_ERR_ARG, "kappa at quadrature point %d of %s is "
                            "%s (from %g): allowed a finite, positive %s", q, name,
                            finite ? "not positive definite" : "not finite", kv[q * nk],
                            nk == 1 ? "number" : "definite symmetric tensor");
      else
        ts_cell_failure_set(f->failure, cell, TS_ERR_ARG, "c at quadrature point %d of %s is %g: "
                            "allowed a finite number >= 0", q, name, c[q]);
      return 1;
    }
  }
  return 0;
}

/* G_q and m_q of one cell, or a failure naming the cell where det J <= 0. */
static void cell_factors(const factors_ctx *f, int64_t cell) {
  const mapped_data *data = f->data;
  const ts_mapped_plan *pl = &data->plan;
  const int dim = pl->dim, nq = pl->n_q, np = dim == 3 ? nq * nq * nq : nq * nq;
  const int nk = f->co ? f->co->kappa_components : 0;
  double J[MAX_POINTS * 9], x[MAX_POINTS * 3], kv[MAX_POINTS * 6], cv[MAX_POINTS];
  ts_cell_geometry(data->dofs, cell, nq, data->shape, data->grad, x, J);
  if (point_coefficients(f, cell, np, x, kv, cv)) return;
  double *out = f->factors + cell * pl->n_factors * np;
  for (int q = 0; q < np; ++q) {
    double kappa[9];
    const double c = cv[q];
    kappa_matrix(dim, nk, kv + q * nk, kappa);
    double inv[9], w = 1.0;
    for (int d = 0, m = q; d < dim; ++d, m /= nq) w *= data->weights[m % nq];
    const double det = ts_jacobian_inverse(dim, J + q * dim * dim, inv);
    if (!(det > 0.0) || !isfinite(det)) {
      char name[96];
      ts_cell_name(data->dofs, cell, name, sizeof name);
      ts_cell_failure_set(f->failure, cell, TS_ERR_ARG, "%s is inverted or degenerate: det J = %g "
                          "at its quadrature point %d (the map must have a positive Jacobian "
                          "determinant)", name, det, q);
      return;
    }
    for (int a = 0, t = 0; a < dim; ++a)
      for (int b = a; b < dim; ++b, ++t) { /* (J^{-1} kappa J^{-T})_ab */
        double s = 0.0;
        for (int i = 0; i < dim; ++i)
          for (int j = 0; j < dim; ++j) s += inv[a * dim + i] * kappa[i * dim + j] * inv[b * dim + j];
        out[t * np + q] = w * det * s;
      }
    if (pl->has_reaction) out[(pl->n_factors - 1) * np + q] = w * det * c;
  }
}

static int compute_factors(const mapped_data *data, const ts_coefficients *co, double *factors) {
  ts_cell_failure failure;
  ts_cell_failure_init(&failure);
  const factors_ctx f = {data, co, factors, &failure};
  const int64_t cells = ts_cell_count(data->dofs);
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t cell = 0; cell < cells; ++cell) cell_factors(&f, cell);
  return ts_cell_failure_report(&failure, "mapped operator");
}

/* Per cell the sums over its points of the diagonal factors G_dd,q and of m_q: the cell's
 * integrals of w det J (J^{-1} kappa J^{-T})_dd and of w det J c, from which the additive
 * vertex-patch preconditioner fits its Cartesian patches (lib/mg/patch-additive.c). */
static int compute_cell_sums(mapped_data *data, const double *factors) {
  const ts_mapped_plan *pl = &data->plan;
  const int dim = pl->dim, nq = pl->n_q, np = dim == 3 ? nq * nq * nq : nq * nq;
  const int64_t cells = ts_cell_count(data->dofs);
  TS_CALL(ts_calloc((size_t)(cells * (dim + 1)), sizeof(double), "mapped cell sums", &data->cell_sums));
#pragma omp parallel for schedule(static)
  for (int64_t cell = 0; cell < cells; ++cell) {
    const double *F = factors + cell * pl->n_factors * np;
    double *out = data->cell_sums + cell * (dim + 1);
    for (int d = 0; d < dim; ++d) {
      const int t = d * dim - d * (d - 1) / 2; /* (d, d) in the upper triangle, row by row */
      for (int q = 0; q < np; ++q) out[d] += F[t * np + q];
    }
    for (int q = 0; pl->has_reaction && q < np; ++q) out[dim] += F[(pl->n_factors - 1) * np + q];
  }
  return 0;
}

/* ---------------------------------------------------------------- diagonal */

typedef struct diagonal_ctx {
  const mapped_data *data;
  const double *factors;
  double *diagonal;
  double squares[3][MAX_N1 * MAX_N1]; /* phi^2, phi phi', phi'^2 at the points: n_q x (k+1) */
} diagonal_ctx;

/* diag A_K added into the diagonal: per factor (G_ab or m), the transposed tensor contraction
 * with the squared tables, phi'^2 in a direction that is a and b, phi phi' where one of them,
 * phi^2 elsewhere; off-diagonal pairs count twice. */
static void cell_diagonal(void *ctx, int64_t cell) {
  const diagonal_ctx *g = ctx;
  const ts_mapped_plan *pl = &g->data->plan;
  const int dim = pl->dim, nq = pl->n_q, n1 = pl->degree + 1;
  const int np = dim == 3 ? nq * nq * nq : nq * nq, nd = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  const double *F = g->factors + cell * pl->n_factors * np;
  double t0[TS_MAX_CELL_DOFS], t1[TS_MAX_CELL_DOFS], local[TS_MAX_CELL_DOFS] = {0};
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  for (int f = 0, a = 0, b = 0; f < pl->n_factors; ++f) {
    const int reaction = f == dim * (dim + 1) / 2;
    int shape[3] = {nq, nq, nq};
    const double *in = F + f * np;
    for (int d = 0; d < dim; ++d) {
      const int derivatives = reaction ? 0 : (a == d) + (b == d);
      double *out = d % 2 ? t1 : t0;
      ts_tensor_contract(dim, shape, d, g->squares[derivatives], n1, 1, in, out);
      shape[d] = n1;
      in = out;
    }
    for (int i = 0; i < nd; ++i) local[i] += (a == b ? 1.0 : 2.0) * in[i];
    if (++b == dim) b = ++a; /* the next pair of the upper triangle */
  }
  ts_cell_from_index(g->data->dofs, cell, c);
  ts_cell_dof_indices(g->data->dofs, c, idx);
  for (int i = 0; i < nd; ++i) g->diagonal[idx[i]] += local[i];
}

static int compute_diagonal(mapped_data *data, const double *factors, ts_backend backend,
                            ts_precision p) {
  ts_dofs dofs = data->dofs;
  const int n1 = data->plan.degree + 1, nq = data->plan.n_q;
  diagonal_ctx *g;
  TS_CALL(ts_calloc(1, sizeof *g, "mapped diagonal tables", &g));
  g->data = data;
  g->factors = factors;
  int ierr = ts_calloc((size_t)dofs->count, sizeof(double), "mapped diagonal", &g->diagonal);
  for (int i = 0; i < nq * n1; ++i) {
    g->squares[0][i] = data->shape[i] * data->shape[i];
    g->squares[1][i] = data->shape[i] * data->grad[i];
    g->squares[2][i] = data->grad[i] * data->grad[i];
  }
  if (!ierr) {
    ts_cell_layers_for(dofs, cell_diagonal, g);
    for (int64_t i = 0; i < dofs->count; ++i)
      if (ts_dofs_is_dirichlet(dofs, i)) g->diagonal[i] = 1.0; /* the Dirichlet rows */
    ierr = ts_vec_create(backend, dofs->count, p, &data->diagonal);
  }
  if (!ierr) ierr = ts_vec_set_from_host(data->diagonal, g->diagonal);
  if (g->diagonal) free(g->diagonal);
  free(g);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "mapped diagonal") : 0;
}

/* ---------------------------------------------------------------- the operator */

/* y (+)= (M A M + I - M) x: M x, the unconstrained kernel, then M y + (x - M x). */
static int masked_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  mapped_data *data = op->data;
  ts_vec out = add ? data->sum : y;
  TS_CALL(ts_vec_pointwise_mult(data->mask, x, data->masked));
  TS_BACKEND_CALL(op->backend, mapped_apply, &data->plan, op->precision, data->masked->data,
                  out->data, 0);
  TS_CALL(ts_vec_pointwise_mult(data->mask, out, out));
  TS_CALL(ts_vec_axpby(1.0, x, 1.0, out));
  TS_CALL(ts_vec_axpby(-1.0, data->masked, 1.0, out));
  if (add) TS_CALL(ts_vec_axpby(1.0, out, 1.0, y));
  return 0;
}

static int mapped_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  mapped_data *data = op->data;
  if (data->mask) return masked_apply(op, x, y, add);
  TS_BACKEND_CALL(op->backend, mapped_apply, &data->plan, op->precision, x->data, y->data, add);
  return 0;
}

static int mapped_apply_unconstrained(ts_operator op, ts_vec x, ts_vec y) {
  mapped_data *data = op->data;
  ts_mapped_plan plan = data->plan;
  plan.constrained = 0;
  TS_BACKEND_CALL(op->backend, mapped_apply, &plan, op->precision, x->data, y->data, 0);
  return 0;
}

static int mapped_diagonal(ts_operator op, ts_vec d) {
  mapped_data *data = op->data;
  return ts_vec_copy(data->diagonal, d);
}

/* Counted operations of the backends' sum factorization per cell: the sweeps, 2 flops (a
 * multiply-add) per matrix entry and output, and the point work (G times the gradient, m
 * times the value).  3D with n_q = k+1 (the library's rule): by collocation in both
 * backends, 6 sweeps of n^4 multiply-adds each way; otherwise the sweeps from k+1 nodes to
 * n_q points and back by the values and derivatives (omp's mapped.c, and the GPU in 2D).
 * The geometry that a GPU recomputes per point (TS_MAPPED_VERTICES) is not counted. */
static double mapped_flops(ts_operator op) {
  const ts_mapped_plan *p = &((const mapped_data *)op->data)->plan;
  const double n = p->degree + 1, q = p->n_q, r = p->has_reaction;
  double cells = 1.0;
  for (int d = 0; d < p->dim; ++d) cells *= (double)p->cells[d];
  if (p->dim == 3 && p->n_q == p->degree + 1)
    return cells * (2.0 * 12.0 * n * n * n * n + n * n * n * (2.0 * 9.0 + 2.0 * r));
  const double sweeps = p->dim == 3
      ? 2 * q * n * n + 3 * q * q * n + (3 + r) * q * q * q   /* outputs of the sweeps */
      : 2 * q * n + (2 + r) * q * q;
  const double points = p->dim == 3 ? q * q * q : q * q;
  return cells * (2.0 * 2.0 * n * sweeps + points * (2.0 * p->dim * p->dim + r));
}

static void data_free(mapped_data **data) {
  if (!*data) return;
  ts_vec *all[] = {&(*data)->factors, &(*data)->vertices, &(*data)->cell_values,
                   &(*data)->diagonal, &(*data)->mask, &(*data)->masked, &(*data)->sum};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) ts_vec_destroy(all[i]);
  ts_free(&(*data)->cell_sums);
  ts_free(data);
}

static void mapped_destroy(ts_operator op) {
  mapped_data *data = op->data;
  data_free(&data);
  op->data = NULL;
}

static const ts_operator_ops mapped_ops = {
    .name = "mapped",
    .apply = mapped_apply,
    .apply_unconstrained = mapped_apply_unconstrained,
    .diagonal = mapped_diagonal,
    .flops = mapped_flops,
    .destroy = mapped_destroy,
    .apply_transpose = mapped_apply, /* symmetric: G_q symmetric, identity rows and columns */
};

/* A's data, or TS_ERR_ARG naming `caller` if A is not a mapped operator */
static int mapped_data_of(ts_operator A, const char *caller, const mapped_data **data) {
  TS_CHECK_ARG(A->ops == &mapped_ops, "%s: the operator is '%s', an operator of "
               "ts_operator_create_mapped is required", caller, A->ops->name);
  *data = A->data;
  return 0;
}

int ts_operator_mapped_dofs(ts_operator A, const char *caller, ts_dofs *dofs) {
  const mapped_data *data = NULL;
  TS_CALL(mapped_data_of(A, caller, &data));
  *dofs = data->dofs;
  return 0;
}

int ts_operator_mapped_cell_sums(ts_operator A, const char *caller, const double **sums) {
  const mapped_data *data = NULL;
  TS_CALL(mapped_data_of(A, caller, &data));
  *sums = data->cell_sums;
  return 0;
}

int ts_operator_mapped_singular(ts_operator A) {
  return A && A->ops == &mapped_ops && ((const mapped_data *)A->data)->singular;
}

int ts_dofs_dirichlet_mask(ts_dofs dofs, ts_backend backend, ts_precision p, ts_vec *mask) {
  double *host;
  TS_CALL(ts_calloc((size_t)dofs->count, sizeof *host, "Dirichlet mask", &host));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < dofs->count; ++i) host[i] = ts_dofs_is_dirichlet(dofs, i) ? 0.0 : 1.0;
  int ierr = ts_vec_create(backend, dofs->count, p, mask);
  if (!ierr) ierr = ts_vec_set_from_host(*mask, host);
  if (ierr) ts_vec_destroy(mask);
  free(host);
  return ierr;
}

static void plan_init(ts_dofs dofs, const ts_coefficients *co, mapped_data *data) {
  ts_mapped_plan *pl = &data->plan;
  pl->dim = dofs->dim;
  pl->degree = dofs->degree;
  for (int d = 0; d < 3; ++d) {
    pl->cells[d] = dofs->cells[d];
    pl->n[d] = dofs->n[d];
  }
  pl->n_dofs = dofs->count;
  pl->n_q = dofs->degree + 1;
  pl->shape_1d = data->shape;
  pl->gradient_1d = data->grad;
  pl->has_reaction = co && (co->reaction || co->reaction_at);
  pl->n_factors = dofs->dim * (dofs->dim + 1) / 2 + pl->has_reaction;
  pl->constrained = dofs->neumann_faces == 0; /* else masked_apply, or nothing constrained */
  data->dofs = dofs;
}

/* Every face Neumann and m_q = 0 at every point (no reaction, or c = 0 everywhere): the
 * constants are the null space.  factors: the host factors of every cell. */
static int is_singular(const mapped_data *data, const double *factors, size_t count) {
  const ts_mapped_plan *pl = &data->plan;
  if (data->dofs->neumann_faces != TS_FACES_ALL(pl->dim)) return 0;
  if (!pl->has_reaction) return 1;
  const size_t np = count / (size_t)ts_cell_count(data->dofs) / (size_t)pl->n_factors;
  for (size_t i = 0; i < count; ++i)
    if (i / np % (size_t)pl->n_factors == (size_t)pl->n_factors - 1 && factors[i] != 0.0) return 0;
  return 1;
}

/* M, M x and the sum of masked_apply, with some Neumann and some Dirichlet faces. */
static int create_mask(mapped_data *data, ts_backend backend, ts_precision p) {
  const unsigned neumann = data->dofs->neumann_faces;
  if (neumann == 0 || neumann == TS_FACES_ALL(data->dofs->dim)) return 0;
  TS_CALL(ts_dofs_dirichlet_mask(data->dofs, backend, p, &data->mask));
  TS_CALL(ts_vec_create(backend, data->dofs->count, p, &data->masked));
  TS_CALL(ts_vec_create(backend, data->dofs->count, p, &data->sum));
  return 0;
}

/* Whether the backend gets the vertices instead of the factors: multilinear cells, and the
 * backend measured that faster for this dimension, degree and precision. */
static int use_vertices(ts_backend backend, ts_dofs dofs, const ts_coefficients *co, ts_precision p) {
  return dofs->mesh->geometry == TS_GEOMETRY_MULTILINEAR && backend->ops.mapped_geometry &&
         !(co && (co->kappa_at || co->reaction_at)) && /* the vertices' form has cell values */
         backend->ops.mapped_geometry(&backend->ops, dofs->dim, dofs->degree, p) ==
             TS_MAPPED_VERTICES;
}

/* The level's vertices (the geometry's points at the cell corners, lexicographic) and the
 * cells' kappa and c, on the backend (TS_MAPPED_VERTICES). */
static int upload_vertices(mapped_data *data, const ts_coefficients *co, ts_backend backend,
                           ts_precision p) {
  ts_dofs dofs = data->dofs;
  ts_mapped_plan *pl = &data->plan;
  const int dim = dofs->dim, k = dofs->degree;
  const int64_t nv[3] = {dofs->cells[0] + 1, dofs->cells[1] + 1, dim == 3 ? dofs->cells[2] + 1 : 1};
  const int64_t n_vertices = nv[0] * nv[1] * nv[2], cells = ts_cell_count(dofs);
  pl->kappa_components = co ? co->kappa_components : 0;
  const int per_cell = pl->kappa_components + pl->has_reaction;
  double *vertices = NULL, *values = NULL;
  TS_CALL(ts_calloc((size_t)(n_vertices * dim), sizeof(double), "mapped vertices", &vertices));
  int ierr = per_cell ? ts_calloc((size_t)(cells * per_cell), sizeof(double), "cell coefficients", &values) : 0;
  for (int64_t v = 0; !ierr && v < n_vertices; ++v) {
    const int64_t i0 = v % nv[0], i1 = v / nv[0] % nv[1], i2 = v / nv[0] / nv[1];
    const int64_t dof = i0 * k + dofs->n[0] * (i1 * k + dofs->n[1] * i2 * k);
    for (int d = 0; d < dim; ++d) vertices[v * dim + d] = dofs->nodes[dof * dim + d];
  }
  for (int64_t c = 0; !ierr && c < cells && per_cell; ++c) {
    for (int j = 0; j < pl->kappa_components; ++j)
      values[c * per_cell + j] = co->kappa[c * pl->kappa_components + j];
    if (pl->has_reaction) values[c * per_cell + per_cell - 1] = co->reaction[c];
  }
  if (!ierr) ierr = ts_vec_create(backend, n_vertices * dim, p, &data->vertices);
  if (!ierr) ierr = ts_vec_set_from_host(data->vertices, vertices);
  if (!ierr && per_cell) ierr = ts_vec_create(backend, cells * per_cell, p, &data->cell_values);
  if (!ierr && per_cell) ierr = ts_vec_set_from_host(data->cell_values, values);
  free(vertices);
  free(values);
  if (ierr) return ierr;
  pl->geometry = TS_MAPPED_VERTICES;
  pl->vertices = data->vertices->data;
  pl->cell_values = per_cell ? data->cell_values->data : NULL;
  pl->points_1d = data->points;
  pl->weights_1d = data->weights;
  pl->factors = NULL;
  return 0;
}

/* The tables, the factors (host, then on the backend, or the vertices instead) and the
 * diagonal. */
static int setup(ts_backend backend, ts_dofs dofs, const ts_coefficients *co, ts_precision p,
                 mapped_data *data) {
  plan_init(dofs, co, data);
  double *points = data->points;
  TS_CALL(ts_gauss_rule(data->plan.n_q, points, data->weights));
  ts_lagrange_tabulate(dofs->degree + 1, dofs->fe->points, data->plan.n_q, points, data->shape, data->grad);
  double identity[MAX_N1 * MAX_N1];
  ts_lagrange_tabulate(data->plan.n_q, points, data->plan.n_q, points, identity, data->collocation);
  data->plan.collocation_1d = data->collocation;
  const int np = dofs->dim == 3 ? data->plan.n_q * data->plan.n_q * data->plan.n_q
                                : data->plan.n_q * data->plan.n_q;
  size_t count;
  TS_CALL(ts_size_mul((size_t)ts_cell_count(dofs), (size_t)(data->plan.n_factors * np),
                      "geometric factors", &count));
  double *factors;
  TS_CALL(ts_calloc(count, sizeof(double), "geometric factors", &factors));
  int ierr = compute_factors(data, co, factors);
  if (!ierr) ierr = compute_cell_sums(data, factors);
  if (!ierr) ierr = compute_diagonal(data, factors, backend, p);
  if (!ierr) ierr = create_mask(data, backend, p);
  data->singular = !ierr && is_singular(data, factors, count);
  if (!ierr && use_vertices(backend, dofs, co, p)) {
    free(factors);
    return upload_vertices(data, co, backend, p);
  }
  if (!ierr) ierr = ts_vec_create(backend, (int64_t)count, p, &data->factors);
  if (!ierr) ierr = ts_vec_set_from_host(data->factors, factors);
  free(factors);
  if (!ierr) data->plan.factors = data->factors->data;
  return ierr;
}

int ts_operator_create_mapped(ts_backend backend, ts_dofs dofs, const ts_coefficients *coefficients,
                              ts_precision p, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(dofs);
  TS_CALL(ts_dofs_require_q(dofs, "mapped operator"));
  TS_CALL(ts_dofs_require_mapped(dofs, 1, "mapped operator"));
  TS_CHECK_ARG(p == TS_DOUBLE || p == TS_SINGLE, "mapped operator: precision %d unknown, allowed "
               "TS_DOUBLE (0) or TS_SINGLE (1)", (int)p);
  if (!backend->ops.mapped_apply)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "the %s backend does not implement the operator on mapped "
                    "cells (kernel 'mapped_apply')", backend->name);
  TS_CALL(check_coefficients(dofs, coefficients));
  mapped_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "mapped operator", &data));
  int ierr = setup(backend, dofs, coefficients, p, data);
  if (!ierr) ierr = ts_operator_create_shell(backend, &mapped_ops, dofs->count, p, data, op);
  if (ierr) {
    data_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "mapped operator setup");
  }
  return 0;
}
