/* t-stokes-transfer.c -- the multigrid transfer of RT_k x DGQ_k (doc/stokes.md section 5),
 * 2D (k = 0..4) and 3D (k = 0..3): prolongation maps the coarse interpolant of a field of the
 * coarse space to the fine interpolant (the embedding), restriction is the exact transpose
 * ((R f, c) = (f, P c) on random vectors), the normal velocity DoFs on the boundary are
 * read and written as zero, add = 1 adds, single precision agrees with double,
 * and mismatched levels, degrees and vectors are refused. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "mg/mg-impl.h"

/* One level of RT_k x DGQ_k on [0,1]^dim, laid out as in doc/stokes.md section 2, built by
 * hand (the RT/DGQ DoF handlers are written on another branch). */
typedef struct level {
  struct ts_fe_s fe_u, fe_p;
  struct ts_dofs_s u, p;
} level;

static void make_dofs(int dim, int k, const int64_t *cells, ts_fe fe, int components,
                      struct ts_dofs_s *dofs) {
  *dofs = (struct ts_dofs_s){.fe = fe, .dim = dim, .degree = k, .components = components};
  for (int d = 0; d < 3; ++d) dofs->cells[d] = d < dim ? cells[d] : 1;
  for (int i = 0; i < components; ++i) {
    int64_t size = 1;
    for (int d = 0; d < 3; ++d) {
      dofs->comp_n[i][d] = d < dim ? cells[d] * (k + 1) + (components > 1 && d == i) : 1;
      size *= dofs->comp_n[i][d];
    }
    dofs->comp_offset[i + 1] = dofs->comp_offset[i] + size;
  }
  dofs->count = dofs->comp_offset[components];
  for (int d = 0; d < dim; ++d) dofs->h[d] = 1.0 / (double)cells[d];
}

static void make_level(int dim, int k, int k_p, const int64_t *cells, level *l) {
  double weights[TS_MAX_DEGREE + 2];
  l->fe_u = (struct ts_fe_s){.family = TS_FE_RT, .dim = dim, .degree = k};
  l->fe_p = (struct ts_fe_s){.family = TS_FE_DGQ, .dim = dim, .degree = k_p};
  ts_gauss_rule(k + 1, l->fe_u.points, weights);
  ts_gauss_lobatto_rule(k + 2, l->fe_u.normal_points, weights);
  ts_gauss_rule(k_p + 1, l->fe_p.points, weights);
  make_dofs(dim, k, cells, &l->fe_u, dim, &l->u);
  make_dofs(dim, k_p, cells, &l->fe_p, 1, &l->p);
}

/* The coordinate of 1D index a on a level with `cells` cells: Lobatto points (shared cell
 * ends) if continuous, Gauss points otherwise; *cell is the cell holding it. */
static double coordinate(const struct ts_fe_s *fe, int continuous, int64_t cells, int64_t a,
                         int64_t *cell) {
  const int step = fe->degree + 1;
  *cell = a / step < cells - 1 ? a / step : cells - 1;
  const double *nodes = continuous ? fe->normal_points : fe->points;
  return ((double)*cell + nodes[a - step * *cell]) / (double)cells;
}

/* The test field's factor in direction d of field i at x, with c the coarse cell holding x
 * (for a DG direction): in a component's own (continuous) direction a degree k+1 function
 * vanishing at 0 and 1 (for k = 0 the tent min(x, 1-x), kinked at a coarse vertex), else a
 * degree k polynomial that jumps between coarse cells. */
static double factor(int k, int normal, int i, int d, double x, int64_t c) {
  if (normal) return k == 0 ? fmin(x, 1.0 - x) : x * (1.0 - x) * pow(0.3 + x, k - 1);
  return pow(0.4 + 0.2 * i + 0.1 * d + x, k) * (1.0 + 0.25 * (double)c);
}

/* Interpolant of the test field on a level: nodal values at its support points. */
static void interpolate(int dim, const level *l, int64_t coarse_factor, double *h) {
  for (int i = 0; i <= dim; ++i) {
    const struct ts_dofs_s *dofs = i < dim ? &l->u : &l->p;
    const int comp = i < dim ? i : 0;
    const int64_t *n = dofs->comp_n[comp];
    double *v = h + (i < dim ? 0 : l->u.count) + dofs->comp_offset[comp];
    for (int64_t a2 = 0; a2 < n[2]; ++a2)
      for (int64_t a1 = 0; a1 < n[1]; ++a1)
        for (int64_t a0 = 0; a0 < n[0]; ++a0) {
          const int64_t a[3] = {a0, a1, a2};
          double value = 1.0;
          for (int d = 0; d < dim; ++d) {
            int64_t cell;
            const double x = coordinate(dofs->fe, d == i, dofs->cells[d], a[d], &cell);
            value *= factor(dofs->degree, d == i, i, d, x, cell / coarse_factor);
          }
          v[a0 + n[0] * (a1 + n[1] * a2)] = value;
        }
  }
}

/* mask[i] = 1 for the constrained DoFs of a level: the normal velocity DoFs on the box
 * boundary (a_i = 0 or n_u[i][i]-1 for component i, doc/stokes.md section 2) */
static void constrained_mask(int dim, const level *l, int *mask) {
  for (int64_t i = 0; i < l->u.count + l->p.count; ++i) mask[i] = 0;
  for (int i = 0; i < dim; ++i) {
    const int64_t *n = l->u.comp_n[i];
    for (int64_t a = 0; a < n[0] * n[1] * n[2]; ++a) {
      const int64_t a_i = i == 0 ? a % n[0] : i == 1 ? a / n[0] % n[1] : a / (n[0] * n[1]);
      mask[l->u.comp_offset[i] + a] = a_i == 0 || a_i == n[i] - 1;
    }
  }
}

/* (f): constrained DoFs are read as zero (T x does not change when they are zeroed in x) and
 * written as zero (T x vanishes on them) */
static void check_constraints(ts_backend be, const ts_field_transfer_plan *plan, int restrict_,
                              const int *in_mask, const int *out_mask, ts_vec x, ts_vec y,
                              const char *name) {
  const int64_t n_in = x->n, n_out = y->n;
  double *hx = malloc(n_in * sizeof *hx), *hy = malloc(n_out * sizeof *hy);
  double *hz = malloc(n_out * sizeof *hz);
  ts_vec_set_random(x, 31);
  int ierr = ts_field_transfer_apply(be, plan, restrict_, x, y, 0);
  ts_vec_get_to_host(y, hy);
  ts_vec_get_to_host(x, hx);
  int64_t zeroed = 0;
  for (int64_t i = 0; i < n_in; ++i)
    if (in_mask[i]) {
      hx[i] = 0.0;
      zeroed++;
    }
  ts_vec_set_from_host(x, hx);
  ierr |= ts_field_transfer_apply(be, plan, restrict_, x, y, 0);
  ts_vec_get_to_host(y, hz);
  double read_error = 0.0, written = 0.0;
  for (int64_t i = 0; i < n_out; ++i) {
    read_error = fmax(read_error, fabs(hy[i] - hz[i]));
    if (out_mask[i]) written = fmax(written, fabs(hy[i]));
  }
  ok(!ierr && zeroed > 0 && read_error == 0.0 && written == 0.0,
     "%s: %s reads the %lld constrained DoFs as zero (change %.1e) and writes zero (%.1e)", name,
     restrict_ ? "restriction" : "prolongation", (long long)zeroed, read_error, written);
  free(hx);
  free(hy);
  free(hz);
}

/* ||a - b|| / ||b|| for two vectors of one backend */
static double relative_difference(ts_vec a, ts_vec b, ts_vec scratch) {
  double diff, ref;
  ts_vec_copy(a, scratch);
  ts_vec_axpby(-1.0, b, 1.0, scratch);
  ts_vec_norm(scratch, &diff);
  ts_vec_norm(b, &ref);
  return ref > 0.0 ? diff / ref : INFINITY;
}

/* y = T x with T = P (restrict_ = 0) or R, in precision p (through copies of x and y) */
static int transfer_in(ts_backend be, const ts_field_transfer_plan *plan, int restrict_,
                       ts_precision p, ts_vec x, ts_vec y) {
  ts_vec xs, ys;
  ts_vec_create(be, x->n, p, &xs);
  ts_vec_create(be, y->n, p, &ys);
  ts_vec_copy(x, xs);
  int ierr = ts_field_transfer_apply(be, plan, restrict_, xs, ys, 0);
  ts_vec_copy(ys, y);
  ts_vec_destroy(&xs);
  ts_vec_destroy(&ys);
  return ierr;
}

/* (c), (d): add = 1 gives z + T x, single precision T x within 1e-6 of double */
static void check_add_and_single(ts_backend be, const ts_field_transfer_plan *plan, int restrict_,
                                 ts_vec x, ts_vec y, const char *name) {
  const char *what = restrict_ ? "restriction" : "prolongation";
  ts_vec z, expected;
  ts_vec_create(be, y->n, TS_DOUBLE, &z);
  ts_vec_create(be, y->n, TS_DOUBLE, &expected);
  ts_vec_set_random(x, 5);
  ts_vec_set_random(z, 7);
  int ierr = ts_field_transfer_apply(be, plan, restrict_, x, y, 0);
  ts_vec_copy(z, expected);
  ts_vec_axpby(1.0, y, 1.0, expected);
  ierr |= ts_field_transfer_apply(be, plan, restrict_, x, z, 1);
  const double add_error = relative_difference(z, expected, y);
  ok(!ierr && add_error <= 1e-15, "%s: %s with add = 1 is z + T x (relative error %.1e)", name,
     what, add_error);
  ierr = ts_field_transfer_apply(be, plan, restrict_, x, expected, 0);
  ierr |= transfer_in(be, plan, restrict_, TS_SINGLE, x, y);
  const double single_error = relative_difference(y, expected, z);
  ok(!ierr && single_error <= 1e-6, "%s: single-precision %s within %.1e of double", name, what,
     single_error);
  ts_vec_destroy(&z);
  ts_vec_destroy(&expected);
}

static void check(ts_backend be, int dim, int k) {
  const int64_t coarse_cells[3] = {dim == 2 ? 4 : 2, dim == 2 ? 2 : 4, 2};
  const int64_t fine_cells[3] = {2 * coarse_cells[0], 2 * coarse_cells[1], 2 * coarse_cells[2]};
  char name[32];
  snprintf(name, sizeof name, "%dD RT_%d x DGQ_%d", dim, k, k);
  level coarse, fine;
  make_level(dim, k, k, coarse_cells, &coarse);
  make_level(dim, k, k, fine_cells, &fine);
  ts_field_transfer_plan plan;
  double storage[TS_FIELD_TRANSFER_STOKES_STORAGE];
  if (!ok(ts_field_transfer_plan_init_stokes(&coarse.u, &coarse.p, &fine.u, &fine.p, &plan,
                                             storage) == 0, "%s: plan", name)) {
    diag("%s", ts_error_message());
    skip(8, "no plan");
    return;
  }
  const int64_t nc = plan.coarse_count, nf = plan.fine_count;
  double *hc = malloc(nc * sizeof *hc), *hf = malloc(nf * sizeof *hf), *hp = malloc(nf * sizeof *hp);
  ts_vec xc, xf, yc, yf;
  ts_vec_create(be, nc, TS_DOUBLE, &xc);
  ts_vec_create(be, nc, TS_DOUBLE, &yc);
  ts_vec_create(be, nf, TS_DOUBLE, &xf);
  ts_vec_create(be, nf, TS_DOUBLE, &yf);

  /* (a) the embedding: P I_c g = I_f g for g in the coarse space */
  interpolate(dim, &coarse, 1, hc);
  interpolate(dim, &fine, 2, hf);
  ts_vec_set_from_host(xc, hc);
  int ierr = ts_field_transfer_apply(be, &plan, 0, xc, xf, 0);
  ts_vec_get_to_host(xf, hp);
  double err = 0.0, scale = 0.0;
  for (int64_t i = 0; i < nf; ++i) {
    err = fmax(err, fabs(hp[i] - hf[i]));
    scale = fmax(scale, fabs(hf[i]));
  }
  ok(!ierr && scale > 0.0 && err <= 1e-12 * scale,
     "%s: prolongation of the coarse interpolant is the fine one (max error %.2e of %.2e)", name,
     err, scale);

  /* (b) the transpose: (R f, c) = (f, P c) for random f, c (constrained entries included) */
  double left, right, nl, nr;
  ts_vec_set_random(xf, 11);
  ts_vec_set_random(yc, 23);
  ierr = ts_field_transfer_apply(be, &plan, 1, xf, xc, 0);
  ierr |= ts_field_transfer_apply(be, &plan, 0, yc, yf, 0);
  ts_vec_dot(xc, yc, &left);
  ts_vec_dot(xf, yf, &right);
  ts_vec_norm(xf, &nl);
  ts_vec_norm(yf, &nr);
  ok(!ierr && nr > 0.0 && fabs(left - right) <= 1e-12 * nl * nr,
     "%s: (R f, c) = %.15e, (f, P c) = %.15e", name, left, right);

  int *mask_c = malloc(nc * sizeof *mask_c), *mask_f = malloc(nf * sizeof *mask_f);
  constrained_mask(dim, &coarse, mask_c);
  constrained_mask(dim, &fine, mask_f);
  check_constraints(be, &plan, 0, mask_c, mask_f, xc, xf, name);
  check_constraints(be, &plan, 1, mask_f, mask_c, xf, xc, name);
  free(mask_c);
  free(mask_f);
  check_add_and_single(be, &plan, 0, xc, xf, name);
  check_add_and_single(be, &plan, 1, xf, xc, name);
  free(hc);
  free(hf);
  free(hp);
  ts_vec_destroy(&xc);
  ts_vec_destroy(&yc);
  ts_vec_destroy(&xf);
  ts_vec_destroy(&yf);
}

/* one refusal: TS_ERR_ARG with a message containing `expected` */
static void refused(int ierr, const char *expected, const char *what) {
  const char *message = ts_error_message();
  ok(ierr == TS_ERR_ARG && strstr(message, expected), "%s refused: %s", what, message);
}

/* (e): plans and calls that do not fit are refused with a message naming what is wrong */
static void check_errors(ts_backend be) {
  const int64_t cells[3] = {2, 2, 1}, fine_cells[3] = {4, 4, 1}, wrong_cells[3] = {4, 3, 1};
  level coarse, fine, wrong;
  ts_field_transfer_plan plan;
  double storage[TS_FIELD_TRANSFER_STOKES_STORAGE];
  make_level(2, 1, 1, cells, &coarse);
  make_level(2, 1, 1, wrong_cells, &wrong);
  refused(ts_field_transfer_plan_init_stokes(&coarse.u, &coarse.p, &wrong.u, &wrong.p, &plan, storage),
          "direction 1 has 2 coarse and 3 fine cells", "fine level not the refined coarse one");
  make_level(2, 2, 2, fine_cells, &wrong);
  refused(ts_field_transfer_plan_init_stokes(&coarse.u, &coarse.p, &wrong.u, &wrong.p, &plan, storage),
          "degree 1, fine 2D of degree 2", "levels of different degrees");
  make_level(2, 1, 2, fine_cells, &wrong);
  make_level(2, 1, 2, cells, &fine);
  refused(ts_field_transfer_plan_init_stokes(&fine.u, &fine.p, &wrong.u, &wrong.p, &plan, storage),
          "RT_1, pressure 2D DGQ_2", "velocity and pressure of different degrees");
  refused(ts_field_transfer_plan_init_stokes(&coarse.p, &coarse.u, &fine.p, &fine.u, &plan, storage),
          "RT_k and pressure DGQ_k", "velocity and pressure swapped");
  make_level(2, 1, 1, fine_cells, &fine);
  ts_field_transfer_plan_init_stokes(&coarse.u, &coarse.p, &fine.u, &fine.p, &plan, storage);
  ts_vec c, f;
  ts_vec_create(be, plan.coarse_count, TS_DOUBLE, &c);
  ts_vec_create(be, plan.coarse_count, TS_DOUBLE, &f);
  refused(ts_field_transfer_apply(be, &plan, 0, c, f, 0), "the levels need 56 and 208",
          "prolongation into a coarse-sized vector");
  ts_vec_destroy(&f);
  ts_vec_create(be, plan.fine_count, TS_DOUBLE, &f);
  plan.field[1].fine_n[1] += 1;
  refused(ts_field_transfer_apply(be, &plan, 1, f, c, 0),
          "field transfer plan: field 1 direction 1 has 2 coarse cells, 5 coarse and 10 fine DoFs",
          "a plan with inconsistent sizes (by the library)");
  ts_vec_destroy(&c);
  ts_vec_destroy(&f);
}

int main(void) {
  ts_backend be;
  plan(1 + (5 + 4) * 9 + 6);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  for (int k = 0; k <= 4; ++k) check(be, 2, k);
  for (int k = 0; k <= 3; ++k) check(be, 3, k);
  check_errors(be);
  ts_backend_destroy(&be);
  return exit_status();
}
