/* t-stokes-patch.c -- the Stokes vertex-patch smoother (doc/stokes.md section 7; paper 000,
 * sections 3.1-3.2) against the independent dense matrix of tests/stokes-reference.c.
 * Checks: (a) the Kronecker-form local matrix Acal_j equals the reference matrix restricted
 * to the patch DoFs, for every patch (interior and boundary kinds, a level with 2 cells in a
 * direction), 2D k = 0..3 and 3D k = 0..1, and no patch DoF is constrained; (b) the Schur
 * local solver equals the pseudo-inverse (direct) one on random right sides with zero-mean
 * pressure, and the direct solution solves the local system; (c) the omp kernel's SOLVE
 * stage, driven color by color with the reference residual, equals the host reference, and
 * one smoothing step of the system with b = 0 reduces the error of a random guess (2D 8x8,
 * k = 2: the residual falls by more than 10, the velocity error by more than 2); (d) single
 * precision is close to double; (e) errors: a direct solver too big, a wrong stage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stokes-reference.h"
#include "tap.h"
#include "tessera-impl.h"

static ts_backend be;

/* A level of the Stokes problem: the global plan (doc/stokes.md sections 2 and 4) and the
 * dense reference matrix. */
typedef struct level {
  ts_stokes_1d one_d;
  ts_stokes_plan global;
  int64_t n;
  double *A;
} level;

static const double eta = 2.0;
/* The Schur solver's pressure CG run to rounding: it then equals the pseudo-inverse (the
 * smoother's default TS_STOKES_PATCH_CG_TOLERANCE makes the local solve inexact). */
static const double EXACT_CG_TOLERANCE = 1e-12;

static int level_create(int dim, int k, const int64_t *cells, const double *h, level *L) {
  ts_stokes_plan *g = &L->global;
  memset(L, 0, sizeof *L);
  if (ts_stokes_1d_init(k, eta, &L->one_d)) return 1;
  g->dim = dim;
  g->degree = k;
  int64_t off = 0;
  for (int i = 0; i <= dim; ++i) {
    int64_t count = 1;
    for (int d = 0; d < 3; ++d) {
      g->cells[d] = d < dim ? cells[d] : 1;
      const int64_t n = d < dim ? cells[d] * (k + 1) + (d == i ? 1 : 0) : 1;
      if (i < dim) g->n_u[i][d] = n; else g->n_p[d] = n;
      count *= n;
    }
    g->offset[i] = off;
    off += count;
  }
  g->n_dofs = off;
  for (int d = 0; d < 3; ++d) {
    double prod = 1.0, others = 1.0;
    for (int e = 0; e < dim; ++e) {
      prod *= h[e];
      if (e != d) others *= h[e];
    }
    g->scale[d] = d < dim ? prod / (h[d] * h[d]) : 0.0;
    g->div_scale[d] = d < dim ? others : 0.0;
  }
  g->continuous_mass = L->one_d.continuous_mass;
  g->continuous_stiffness = L->one_d.continuous_stiffness;
  g->dg_mass = L->one_d.dg_mass;
  for (int s = 0; s < 4; ++s) g->sipg_diag[s] = L->one_d.sipg_diag[s];
  g->sipg_upper = L->one_d.sipg_upper;
  g->divergence = L->one_d.divergence;
  g->penalty = eta;
  g->constrained = 1;
  L->n = stokes_reference_size(dim, k, g->cells);
  if (L->n != g->n_dofs) {
    diag("reference size %lld, plan %lld", (long long)L->n, (long long)g->n_dofs);
    return 1;
  }
  L->A = malloc(sizeof(double) * (size_t)(L->n * L->n));
  return stokes_reference_matrix(dim, k, g->cells, h, eta, L->A, L->n);
}

static void level_destroy(level *L) { free(L->A); }

/* Calls f(vertex) for every interior vertex; stops at the first nonzero return. */
typedef int (*vertex_fn)(void *ctx, const int64_t *vertex);
static int for_each_vertex(const ts_stokes_plan *g, vertex_fn f, void *ctx) {
  int64_t v[3] = {0, 0, 0};
  const int64_t top2 = g->dim == 3 ? g->cells[2] - 1 : 1;
  for (int64_t v2 = g->dim == 3 ? 1 : 0; v2 <= top2 && (g->dim == 3 || v2 == 0); ++v2)
    for (v[1] = 1; v[1] < g->cells[1]; ++v[1])
      for (v[0] = 1; v[0] < g->cells[0]; ++v[0]) {
        v[2] = v2;
        int rc = f(ctx, v);
        if (rc) return rc;
      }
  return 0;
}

/* ---------------------------------------------------------------- (a) local matrix */

typedef struct matrix_check {
  const level *L;
  const ts_stokes_patch_plan *plan;
  double max_error, max_entry;
  int constrained_dofs;
} matrix_check;

static int check_patch_matrix(void *ctx, const int64_t *vertex) {
  matrix_check *c = ctx;
  const int n = c->plan->n_local;
  int64_t *idx = malloc(sizeof(int64_t) * n);
  double *e = calloc(2 * (size_t)n, sizeof(double)), *col = e + n;
  int kinds[3];
  ts_stokes_patch_kinds(c->plan, vertex, kinds);
  ts_stokes_patch_indices(c->plan, vertex, idx);
  for (int l = 0; l < n; ++l)
    c->constrained_dofs += stokes_reference_is_constrained(c->L->global.dim, c->L->global.degree,
                                                           c->L->global.cells, idx[l]);
  for (int j = 0; j < n; ++j) {
    e[j] = 1.0;
    ts_stokes_patch_local_apply(c->plan, kinds, e, col);
    for (int i = 0; i < n; ++i) {
      const double ref = c->L->A[idx[i] * c->L->n + idx[j]];
      c->max_error = fmax(c->max_error, fabs(col[i] - ref));
      c->max_entry = fmax(c->max_entry, fabs(ref));
    }
    e[j] = 0.0;
  }
  free(idx);
  free(e);
  return 0;
}

static void test_local_matrix(int dim, int k, const int64_t *cells, const double *h) {
  level L;
  ts_stokes_patch_plan plan;
  double *storage = NULL;
  if (level_create(dim, k, cells, h, &L) ||
      ts_stokes_patch_plan_init(&L.global, TS_STOKES_PATCH_SCHUR, &plan, &storage)) {
    ok(0, "(a) %dD k=%d setup: %s", dim, k, ts_error_message());
    level_destroy(&L);
    return;
  }
  matrix_check c = {&L, &plan, 0.0, 0.0, 0};
  for_each_vertex(&L.global, check_patch_matrix, &c);
  ok(c.max_error <= 1e-12 * c.max_entry && c.constrained_dofs == 0,
     "(a) %dD k=%d cells %lldx%lldx%lld: local matrix = restricted reference (max error %.2e, "
     "max entry %.2e), %d constrained patch DoFs",
     dim, k, (long long)L.global.cells[0], (long long)L.global.cells[1],
     (long long)L.global.cells[2], c.max_error, c.max_entry, c.constrained_dofs);
  ts_free(&storage);
  level_destroy(&L);
}

/* ---------------------------------------------------------------- (b) Schur = direct */

typedef struct solver_check {
  const ts_stokes_patch_plan *schur, *direct;
  double max_difference, max_residual;
  unsigned seed;
} solver_check;

static double relative_difference(int n, const double *a, const double *b) {
  double num = 0.0, den = 0.0;
  for (int i = 0; i < n; ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return sqrt(num / den);
}

static int check_patch_solvers(void *ctx, const int64_t *vertex) {
  solver_check *c = ctx;
  const ts_stokes_patch_plan *pl = c->schur;
  const int n = pl->n_local, np = pl->n_pressure;
  double *r = malloc(sizeof(double) * 4 * n), *ts = r + n, *td = ts + n, *back = td + n;
  srand(c->seed++);
  for (int i = 0; i < n; ++i) r[i] = 2.0 * rand() / RAND_MAX - 1.0;
  double mean = 0.0;
  for (int i = n - np; i < n; ++i) mean += r[i] / np;
  for (int i = n - np; i < n; ++i) r[i] -= mean;
  int kinds[3];
  ts_stokes_patch_kinds(pl, vertex, kinds);
  ts_stokes_patch_local_solve(c->schur, kinds, r, ts);
  ts_stokes_patch_local_solve(c->direct, kinds, r, td);
  ts_stokes_patch_local_apply(pl, kinds, td, back);
  c->max_difference = fmax(c->max_difference, relative_difference(n, ts, td));
  c->max_residual = fmax(c->max_residual, relative_difference(n, back, r));
  free(r);
  return 0;
}

static void test_solvers(int dim, int k, const int64_t *cells, const double *h) {
  level L;
  ts_stokes_patch_plan schur, direct;
  double *s1 = NULL, *s2 = NULL;
  if (level_create(dim, k, cells, h, &L) ||
      ts_stokes_patch_plan_init(&L.global, TS_STOKES_PATCH_SCHUR, &schur, &s1) ||
      ts_stokes_patch_plan_init(&L.global, TS_STOKES_PATCH_DIRECT, &direct, &s2)) {
    ok(0, "(b) %dD k=%d setup: %s", dim, k, ts_error_message());
    level_destroy(&L);
    return;
  }
  schur.cg_tolerance = EXACT_CG_TOLERANCE;
  solver_check c = {&schur, &direct, 0.0, 0.0, 7};
  for_each_vertex(&L.global, check_patch_solvers, &c);
  ok(c.max_difference < 1e-8 && c.max_residual < 1e-10,
     "(b) %dD k=%d: Schur = direct to %.2e (relative), direct residual %.2e", dim, k,
     c.max_difference, c.max_residual);
  /* the default, inexact local solve: the preconditioned CG stops at a residual reduction of
   * TS_STOKES_PATCH_CG_TOLERANCE; its error relative to the exact one stays of that order */
  solver_check inexact = {&schur, &direct, 0.0, 0.0, 7};
  schur.cg_tolerance = TS_STOKES_PATCH_CG_TOLERANCE;
  for_each_vertex(&L.global, check_patch_solvers, &inexact);
  ok(inexact.max_difference < 20 * TS_STOKES_PATCH_CG_TOLERANCE,
     "(b) %dD k=%d: Schur with CG tolerance %g = direct to %.2e (relative)", dim, k,
     TS_STOKES_PATCH_CG_TOLERANCE, inexact.max_difference);
  ts_free(&s1);
  ts_free(&s2);
  level_destroy(&L);
}

/* ---------------------------------------------------------------- (c), (d) smoothing */

/* r = b - A x with the dense reference, b = 0 */
static void residual(const level *L, const double *x, double *r) {
  for (int64_t i = 0; i < L->n; ++i) {
    double s = 0.0;
    for (int64_t j = 0; j < L->n; ++j) s += L->A[i * L->n + j] * x[j];
    r[i] = -s;
  }
}

/* One smoothing step on the host: per color, per patch, x += R_j^T Acal_j^+ R_j r. */
typedef struct host_step {
  const ts_stokes_patch_plan *plan;
  const double *r;
  double *x;
  int color;
} host_step;

static int host_patch(void *ctx, const int64_t *vertex) {
  host_step *s = ctx;
  int color = 0;
  for (int d = 0; d < s->plan->global.dim; ++d) color |= (int)((vertex[d] - 1) & 1) << d;
  if (color != s->color) return 0;
  const int n = s->plan->n_local;
  int64_t *idx = malloc(sizeof(int64_t) * n);
  double *rl = malloc(sizeof(double) * 2 * n), *tl = rl + n;
  int kinds[3];
  ts_stokes_patch_kinds(s->plan, vertex, kinds);
  ts_stokes_patch_indices(s->plan, vertex, idx);
  for (int l = 0; l < n; ++l) rl[l] = s->r[idx[l]];
  ts_stokes_patch_local_solve(s->plan, kinds, rl, tl);
  for (int l = 0; l < n; ++l) s->x[idx[l]] += tl[l];
  free(idx);
  free(rl);
  return 0;
}

static void host_smooth(const level *L, const ts_stokes_patch_plan *plan, double *x) {
  double *r = malloc(sizeof(double) * L->n);
  for (int color = 0; color < ts_vertex_patch_color_count(L->global.dim); ++color) {
    residual(L, x, r);
    host_step s = {plan, r, x, color};
    for_each_vertex(&L->global, host_patch, &s);
  }
  free(r);
}

/* One smoothing step with the backend kernel in precision p. */
static int kernel_smooth(const level *L, ts_stokes_patch_plan plan, ts_precision p, double *x) {
  double *r = malloc(sizeof(double) * L->n);
  ts_vec xv = NULL, rv = NULL;
  int ierr = ts_vec_create(be, L->n, p, &xv);
  if (!ierr) ierr = ts_vec_create(be, L->n, p, &rv);
  for (int color = 0; !ierr && color < ts_vertex_patch_color_count(L->global.dim); ++color) {
    residual(L, x, r);
    plan.color = color;
    ierr = ts_vertex_patch_color(L->global.dim, L->global.cells, color, plan.first_vertex,
                                 plan.vertex_count, &plan.vertex_stride);
    if (!ierr) ierr = ts_vec_set_from_host(xv, x);
    if (!ierr) ierr = ts_vec_set_from_host(rv, r);
    if (!ierr) ierr = ts_backend_stokes_patch_smooth(be, &plan, p, NULL, xv->data, rv->data);
    if (ierr) diag("kernel: %s", ts_error_message());
    if (!ierr) ierr = ts_vec_get_to_host(xv, x);
  }
  ts_vec_destroy(&xv);
  ts_vec_destroy(&rv);
  free(r);
  return ierr;
}

/* The norms that one step must reduce for b = 0 (exact solution: zero velocity, any
 * constant pressure): the residual |Acal x| and the velocity error.  The euclidean pressure
 * error is no measure here: the local solves balance a random velocity with pressures of
 * size |A| / |B| ~ 1/h, so it grows in the first step while the residual falls (paper 000
 * smooths the residual of the saddle-point system, not an energy norm). */
static double residual_norm(const level *L, const double *x) {
  double *r = malloc(sizeof(double) * (size_t)L->n), sum = 0.0;
  residual(L, x, r);
  for (int64_t i = 0; i < L->n; ++i) sum += r[i] * r[i];
  free(r);
  return sqrt(sum);
}

static double velocity_norm(const level *L, const double *x) {
  double sum = 0.0;
  for (int64_t i = 0; i < L->global.offset[L->global.dim]; ++i) sum += x[i] * x[i];
  return sqrt(sum);
}

static void random_guess(const level *L, double *x) {
  srand(11);
  for (int64_t i = 0; i < L->n; ++i)
    x[i] = stokes_reference_is_constrained(L->global.dim, L->global.degree, L->global.cells, i)
               ? 0.0 : 2.0 * rand() / RAND_MAX - 1.0;
}

static void test_smoothing(void) {
  const int64_t cells[3] = {8, 8, 1};
  const double h[3] = {0.125, 0.125, 1.0};
  level L;
  ts_stokes_patch_plan schur, direct;
  double *s1 = NULL, *s2 = NULL;
  if (level_create(2, 2, cells, h, &L) ||
      ts_stokes_patch_plan_init(&L.global, TS_STOKES_PATCH_SCHUR, &schur, &s1) ||
      ts_stokes_patch_plan_init(&L.global, TS_STOKES_PATCH_DIRECT, &direct, &s2)) {
    for (int t = 0; t < 5; ++t) ok(0, "(c) setup: %s", ts_error_message());
    level_destroy(&L);
    return;
  }
  schur.cg_tolerance = EXACT_CG_TOLERANCE;
  const size_t bytes = sizeof(double) * (size_t)L.n;
  double *x0 = malloc(bytes), *xh = malloc(bytes), *xs = malloc(bytes), *xd = malloc(bytes);
  double *xf = malloc(bytes);
  random_guess(&L, x0);
  memcpy(xh, x0, bytes);
  memcpy(xs, x0, bytes);
  memcpy(xd, x0, bytes);
  memcpy(xf, x0, bytes);
  host_smooth(&L, &schur, xh);
  const int rs = kernel_smooth(&L, schur, TS_DOUBLE, xs);
  const int rd = kernel_smooth(&L, direct, TS_DOUBLE, xd);
  const int rf = kernel_smooth(&L, schur, TS_SINGLE, xf);
  const double r0 = residual_norm(&L, x0), r1 = residual_norm(&L, xs);
  const double u0 = velocity_norm(&L, x0), u1 = velocity_norm(&L, xs);
  ok(!rs && relative_difference((int)L.n, xs, xh) < 1e-12,
     "(c) 2D 8x8 k=2: Schur kernel step = host reference (%.2e)", relative_difference((int)L.n, xs, xh));
  ok(!rd && relative_difference((int)L.n, xd, xs) < 1e-8,
     "(c) direct kernel step = Schur kernel step (%.2e)", relative_difference((int)L.n, xd, xs));
  ok(!rs && r1 < 0.1 * r0 && u1 < 0.5 * u0,
     "(c) one step with b = 0: residual %.4e -> %.4e (factor %.3f), velocity error %.4e -> "
     "%.4e (factor %.3f)", r0, r1, r1 / r0, u0, u1, u1 / u0);
  ok(!rf && relative_difference((int)L.n, xf, xs) < 1e-4,
     "(d) single precision step close to double (%.2e)", relative_difference((int)L.n, xf, xs));
  /* a second step keeps reducing the error */
  kernel_smooth(&L, schur, TS_DOUBLE, xs);
  const double r2 = residual_norm(&L, xs), u2 = velocity_norm(&L, xs);
  ok(r2 < r1 && u2 < u1, "(c) a second step: residual %.4e -> %.4e, velocity error %.4e -> %.4e",
     r1, r2, u1, u2);
  free(x0); free(xh); free(xs); free(xd); free(xf);
  ts_free(&s1);
  ts_free(&s2);
  level_destroy(&L);
}

/* ---------------------------------------------------------------- (e) errors */

static void test_errors(void) {
  const int64_t cells[3] = {2, 2, 2};
  const double h[3] = {0.5, 0.5, 0.5};
  const struct { int dim, k; } big[2] = {{2, 5}, {3, 2}};
  for (int t = 0; t < 2; ++t) {
    level L;
    ts_stokes_patch_plan plan;
    double *storage = NULL;
    level_create(big[t].dim, big[t].k, cells, h, &L);
    const int ierr = ts_stokes_patch_plan_init(&L.global, TS_STOKES_PATCH_DIRECT, &plan, &storage);
    ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "dense patch matrices") && !storage,
       "(e) direct solver %dD k=%d refused: %s", big[t].dim, big[t].k, ts_error_message());
    level_destroy(&L);
  }
  level L;
  ts_stokes_patch_plan plan;
  double *storage = NULL;
  if (level_create(2, 1, cells, h, &L) ||
      ts_stokes_patch_plan_init(&L.global, TS_STOKES_PATCH_SCHUR, &plan, &storage)) {
    ok(0, "(e) setup: %s", ts_error_message());
  } else {
    double *x = calloc((size_t)L.n, sizeof(double)), *r = calloc((size_t)L.n, sizeof(double));
    ts_vertex_patch_color(2, L.global.cells, 0, plan.first_vertex, plan.vertex_count,
                          &plan.vertex_stride);
    plan.stage = TS_PATCH_STAGE_FUSED;
    const int ierr = ts_backend_stokes_patch_smooth(be, &plan, TS_DOUBLE, NULL, x, r);
    ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "stokes patch plan: stage = 0"),
       "(e) the Fused stage is refused (by the library): %s", ts_error_message());
    free(x);
    free(r);
  }
  ts_free(&storage);
  level_destroy(&L);
}

int main(void) {
  plan(6 + 2 * 6 + 5 + 3);
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  const double h2[3] = {0.25, 0.4, 1.0}, h3[3] = {0.25, 0.4, 0.3};
  const int64_t c2[3] = {4, 2, 1}, c2b[3] = {3, 5, 1}, c3[3] = {4, 2, 3};
  for (int k = 0; k <= 3; ++k) test_local_matrix(2, k, k % 2 ? c2b : c2, h2);
  for (int k = 0; k <= 1; ++k) test_local_matrix(3, k, c3, h3);
  for (int k = 0; k <= 3; ++k) test_solvers(2, k, k % 2 ? c2 : c2b, h2);
  for (int k = 0; k <= 1; ++k) test_solvers(3, k, c3, h3);
  test_smoothing();
  test_errors();
  ts_backend_destroy(&be);
  return exit_status();
}
