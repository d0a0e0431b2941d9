/* taylor-hood-data.c -- the right side and the errors of a Taylor-Hood solution
 * (doc/taylor-hood.md): velocity Q_k in each component, pressure Q_{k-1}, x = [u_0; ..;
 * u_{dim-1}; p].  Host work, once per solve, by Gauss quadrature with k+2 points per
 * direction and sum factorization per cell.  The right side is the load (f, v) lifted for
 * the Dirichlet velocity (its boundary values interpolated at the boundary DoFs); the errors
 * are compensated sums over the cells (ts_cell_sums). */
#include <math.h>
#include "../tessera-impl.h"

#define MAX_Q TS_BASIS_1D_MAX_Q
#define MAX_Q3 (MAX_Q * MAX_Q * MAX_Q)

typedef ts_basis_1d basis_1d; /* the basis of one field at the Gauss points */

static int points_per_cell(int dim, int nq) {
  return dim == 3 ? nq * nq * nq : nq * nq;
}

/* ---------------------------------------------------------------- the load vector */

typedef struct load_ctx {
  ts_dofs velocity;
  const basis_1d *b;
  const ts_stokes_solution *s;
  int64_t n_u;
  double *load;                 /* [u_0; ..; u_{dim-1}] */
} load_ctx;

/* (f_c, phi_i) of one cell for every component c, added into the load */
static void load_cell(void *ctx_, int64_t cell) {
  const load_ctx *l = ctx_;
  const int dim = l->velocity->dim, npts = points_per_cell(dim, l->b->nq);
  double f[3][MAX_Q3], local[MAX_Q3];
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  ts_cell_from_index(l->velocity, cell, c);
  for (int m = 0; m < npts; ++m) {
    double x[3], fx[3];
    const double w = ts_basis_1d_point(l->velocity, l->b, c, m, x);
    l->s->force(dim, x, fx);
    for (int i = 0; i < dim; ++i) f[i][m] = w * fx[i];
  }
  const double *factor[3] = {l->b->value, l->b->value, l->b->value};
  ts_cell_dof_indices(l->velocity, c, idx);
  const int ndofs = dim == 3 ? l->b->n1 * l->b->n1 * l->b->n1 : l->b->n1 * l->b->n1;
  for (int i = 0; i < dim; ++i) {
    ts_basis_1d_contract(dim, l->b, factor, 1, f[i], local);
    for (int j = 0; j < ndofs; ++j) l->load[i * l->n_u + idx[j]] += local[j];
  }
}

int ts_taylor_hood_assemble_rhs(ts_operator th, ts_dofs velocity, ts_dofs pressure,
                                const ts_stokes_solution *s, ts_vec b, ts_vec x0) {
  TS_CHECK_ARG(th && velocity && pressure && s && b && x0, "%s: NULL argument", __func__);
  const ts_saddle *saddle;
  TS_CALL(ts_saddle_of(th, __func__, &saddle));
  const int dim = velocity->dim;
  const int64_t n_u = velocity->count, n = th->n;
  TS_CHECK_ARG(saddle->velocity_count == dim * n_u && saddle->pressure_count == pressure->count,
               "%s: the DoF handlers (%lld velocity DoFs per component, %lld pressure DoFs) do "
               "not fit the operator", __func__, (long long)n_u, (long long)pressure->count);
  TS_CHECK_ARG(b->n == n && x0->n == n, "%s: b and x0 need %lld entries (the operator's)",
               __func__, (long long)n);
  basis_1d basis;
  TS_CALL(ts_basis_1d_init(velocity, velocity->degree + 2, &basis));
  double *bh = NULL, *xh = NULL;
  int ierr = ts_calloc((size_t)n, sizeof *bh, "Taylor-Hood right side", &bh);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *xh, "Taylor-Hood boundary values", &xh);
  if (!ierr) {
    load_ctx ctx = {velocity, &basis, s, n_u, bh};
    ts_cell_layers_for(velocity, load_cell, &ctx);
    /* the boundary values of u at the boundary DoFs into xh (zero inside) */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_u; ++i)
      if (ts_dofs_is_boundary(velocity, i)) {
        double x[3], u[3];
        ts_dofs_point(velocity, i, x);
        s->velocity(dim, x, u);
        for (int c = 0; c < dim; ++c) xh[c * n_u + i] = u[c];
      }
    ierr = ts_vec_set_from_host(x0, xh);
  }
  ts_vec t = NULL;
  if (!ierr) ierr = ts_vec_create(th->backend, n, th->precision, &t);
  if (!ierr) ierr = ts_operator_apply_unconstrained(th, x0, t); /* b -= Acal x0: the lifting */
  if (!ierr) ierr = ts_vec_get_to_host(t, xh);
  if (!ierr) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      const int constrained = i < dim * n_u && ts_dofs_is_boundary(velocity, i % n_u);
      bh[i] = constrained ? 0.0 : bh[i] - xh[i]; /* the constrained rows solve x_i = 0 */
    }
    ierr = ts_vec_set_from_host(b, bh);
  }
  ts_vec_destroy(&t);
  ts_free(&bh);
  ts_free(&xh);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "Taylor-Hood right side") : 0;
}

/* ---------------------------------------------------------------- the errors */

typedef struct errors_ctx {
  ts_dofs velocity, pressure;
  const basis_1d *bu, *bp;
  const double *x;
  const ts_stokes_solution *s;
} errors_ctx;

/* One cell's ||u_h - u||^2, |u_h - u|_1^2, ||p_h - p||^2 and (p_h - p, 1) */
static void cell_errors(const void *ctx_, int64_t cell, double *values) {
  const errors_ctx *e = ctx_;
  const int dim = e->velocity->dim, npts = points_per_cell(dim, e->bu->nq);
  const int64_t n_u = e->velocity->count;
  int64_t c[3], idx[TS_MAX_CELL_DOFS];
  double local[MAX_Q3], uh[3][MAX_Q3], guh[3][3][MAX_Q3], ph[MAX_Q3];
  ts_cell_from_index(e->velocity, cell, c);
  ts_cell_dof_indices(e->velocity, c, idx);
  const int nu = dim == 3 ? e->bu->n1 * e->bu->n1 * e->bu->n1 : e->bu->n1 * e->bu->n1;
  for (int i = 0; i < dim; ++i) {
    for (int j = 0; j < nu; ++j) local[j] = e->x[i * n_u + idx[j]];
    const double *value[3] = {e->bu->value, e->bu->value, e->bu->value};
    ts_basis_1d_contract(dim, e->bu, value, 0, local, uh[i]);
    for (int d = 0; d < dim; ++d) {
      const double *grad[3] = {e->bu->value, e->bu->value, e->bu->value};
      grad[d] = e->bu->derivative;
      ts_basis_1d_contract(dim, e->bu, grad, 0, local, guh[i][d]);
    }
  }
  ts_cell_dof_indices(e->pressure, c, idx);
  const int np = dim == 3 ? e->bp->n1 * e->bp->n1 * e->bp->n1 : e->bp->n1 * e->bp->n1;
  for (int j = 0; j < np; ++j) local[j] = e->x[dim * n_u + idx[j]];
  const double *pvalue[3] = {e->bp->value, e->bp->value, e->bp->value};
  ts_basis_1d_contract(dim, e->bp, pvalue, 0, local, ph);
  ts_sum sums[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
  for (int m = 0; m < npts; ++m) {
    double x[3], u[3], g[9];
    const double w = ts_basis_1d_point(e->velocity, e->bu, c, m, x);
    e->s->velocity(dim, x, u);
    e->s->velocity_gradient(dim, x, g);
    double u2 = 0.0, g2 = 0.0;
    for (int i = 0; i < dim; ++i) {
      u2 += (uh[i][m] - u[i]) * (uh[i][m] - u[i]);
      for (int d = 0; d < dim; ++d)
        g2 += (guh[i][d][m] / e->velocity->h[d] - g[i * dim + d]) *
              (guh[i][d][m] / e->velocity->h[d] - g[i * dim + d]);
    }
    const double ep = ph[m] - e->s->pressure(dim, x);
    ts_sum_add(&sums[0], w * u2);
    ts_sum_add(&sums[1], w * g2);
    ts_sum_add(&sums[2], w * ep * ep);
    ts_sum_add(&sums[3], w * ep);
  }
  for (int v = 0; v < 4; ++v) values[v] = ts_sum_value(&sums[v]);
}

int ts_taylor_hood_compute_errors(ts_dofs velocity, ts_dofs pressure, const double *x,
                                  const ts_stokes_solution *s, double *velocity_l2,
                                  double *velocity_h1, double *pressure_l2) {
  TS_CHECK_ARG(velocity && pressure && x && s && velocity_l2 && velocity_h1 && pressure_l2,
               "%s: NULL argument", __func__);
  TS_CALL(ts_dofs_require_q(velocity, __func__));
  TS_CALL(ts_dofs_require_q(pressure, __func__));
  TS_CHECK_ARG(pressure->degree == velocity->degree - 1 && pressure->mesh == velocity->mesh &&
               pressure->level == velocity->level,
               "%s: velocity Q%d and pressure Q%d (levels %d, %d): allowed Q_k and Q_{k-1} of one "
               "mesh and level", __func__, velocity->degree, pressure->degree, velocity->level,
               pressure->level);
  TS_CHECK_ARG(s->velocity_gradient, "%s: the solution '%s' has no velocity gradient (the H1 "
               "error needs it)", __func__, s->name);
  basis_1d bu, bp;
  TS_CALL(ts_basis_1d_init(velocity, velocity->degree + 2, &bu));
  TS_CALL(ts_basis_1d_init(pressure, velocity->degree + 2, &bp));
  const errors_ctx ctx = {velocity, pressure, &bu, &bp, x, s};
  double sums[4], volume = 1.0;
  TS_CALL(ts_cell_sums(ts_cell_count(velocity), 4, cell_errors, &ctx, sums));
  for (int d = 0; d < velocity->dim; ++d) volume *= velocity->h[d] * (double)velocity->cells[d];
  *velocity_l2 = sqrt(sums[0]);
  *velocity_h1 = sqrt(sums[1]);
  /* ||(p_h - mean p_h) - (p - mean p)||^2 = ||e||^2 - (e, 1)^2 / |Omega|, e = p_h - p */
  *pressure_l2 = sqrt(fmax(sums[2] - sums[3] * sums[3] / volume, 0.0));
  return 0;
}
