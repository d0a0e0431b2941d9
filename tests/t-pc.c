/* t-pc.c -- the preconditioner objects (lib/pc) and the Stokes blocks (lib/op/stokes-blocks.c):
 *  (a) the blocks of ts_operator_create_stokes_block reproduce Acal = [A B^T; -B 0] on random
 *      vectors, and ts_operator_create_stokes_symmetric is diag(I, -I) Acal (2D, 3D);
 *  (b) the diagonal of the velocity block from its Kronecker form equals its entries probed
 *      with unit vectors;
 *  (c) the pressure mass: sum of its diagonal is |Omega|, and (1/|Omega|) 1^T M_p p is the
 *      pressure mean of ts_stokes_pressure_mean;
 *  (d) each kind applies what it wraps (Jacobi, Chebyshev from zero, an operator, a V-cycle),
 *      CG with ts_solver_set_pc takes the iterations of ts_solver_set_preconditioner, the
 *      block kinds apply their formulas, and the registry names the kinds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera.h"

static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
static const int one_cell[3] = {1, 1, 1};

/* the Stokes operator of RT_k x DGQ_k on level `level` of the unit box (objects in s) */
typedef struct stokes_setup {
  ts_mesh mesh;
  ts_fe rt, dgq;
  ts_dofs u, p;
  ts_operator A;
  int64_t nu, np;
} stokes_setup;

static int stokes_create(ts_backend be, int dim, int k, int level, stokes_setup *s) {
  TS_CALL(ts_mesh_create_box(dim, lower, upper, one_cell, level, &s->mesh));
  TS_CALL(ts_fe_create_rt(dim, k, &s->rt));
  TS_CALL(ts_fe_create_dgq(dim, k, &s->dgq));
  TS_CALL(ts_dofs_create(s->mesh, s->rt, level, &s->u));
  TS_CALL(ts_dofs_create(s->mesh, s->dgq, level, &s->p));
  TS_CALL(ts_operator_create_stokes(be, s->u, s->p, 0.0, TS_DOUBLE, &s->A));
  s->nu = ts_dofs_count(s->u);
  s->np = ts_dofs_count(s->p);
  return 0;
}

static void stokes_destroy(stokes_setup *s) {
  ts_operator_destroy(&s->A);
  ts_dofs_destroy(&s->u);
  ts_dofs_destroy(&s->p);
  ts_fe_destroy(&s->rt);
  ts_fe_destroy(&s->dgq);
  ts_mesh_destroy(&s->mesh);
}

static int host_alloc(int64_t n, double **p) {
  *p = calloc((size_t)n, sizeof **p);
  return *p ? 0 : TS_ERR_MEMORY;
}

/* max |a - b| / max |b| over n host values */
static double relative_difference(int64_t n, const double *a, const double *b) {
  double diff = 0.0, norm = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    diff = fmax(diff, fabs(a[i] - b[i]));
    norm = fmax(norm, fabs(b[i]));
  }
  return diff / norm;
}

/* (a) y = Acal x against [A u + B^T p; (-B) u] by the blocks, and the symmetric form */
static void blocks_reproduce_stokes(ts_backend be, int dim, int k, int level) {
  stokes_setup s = {0};
  ts_operator blk[3] = {NULL}, sym = NULL;
  ts_vec x = NULL, y = NULL, yb = NULL;
  double *h[3] = {NULL};
  const int ierr0 = stokes_create(be, dim, k, level, &s);
  int ierr = ierr0;
  const int64_t n = s.nu + s.np;
  const int rc[3][2] = {{0, 0}, {0, 1}, {1, 0}};
  for (int b = 0; b < 3 && !ierr; ++b) ierr = ts_operator_create_stokes_block(s.A, rc[b][0], rc[b][1], &blk[b]);
  if (!ierr) ierr = ts_operator_create_stokes_symmetric(s.A, &sym);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &yb);
  if (!ierr) ierr = ts_vec_set_random(x, 7);
  if (!ierr) ierr = ts_operator_apply(s.A, x, y);
  ts_vec xu = NULL, xp = NULL, yu = NULL, yp = NULL;
  if (!ierr) ierr = ts_vec_create_view(x, 0, s.nu, &xu);
  if (!ierr) ierr = ts_vec_create_view(x, s.nu, s.np, &xp);
  if (!ierr) ierr = ts_vec_create_view(yb, 0, s.nu, &yu);
  if (!ierr) ierr = ts_vec_create_view(yb, s.nu, s.np, &yp);
  if (!ierr) ierr = ts_operator_apply(blk[0], xu, yu);
  if (!ierr) ierr = ts_operator_apply_add(blk[1], xp, yu);
  if (!ierr) ierr = ts_operator_apply(blk[2], xu, yp);
  for (int i = 0; i < 3 && !ierr; ++i) ierr = host_alloc(n, &h[i]);
  if (!ierr) ierr = ts_vec_get_to_host(y, h[0]);
  if (!ierr) ierr = ts_vec_get_to_host(yb, h[1]);
  const double block_error = ierr ? INFINITY : relative_difference(n, h[1], h[0]);
  if (!ierr) ierr = ts_operator_apply(sym, x, yb);
  if (!ierr) ierr = ts_vec_get_to_host(yb, h[2]);
  for (int64_t i = s.nu; i < n && !ierr; ++i) h[0][i] = -h[0][i]; /* diag(I, -I) Acal x */
  const double symmetric_error = ierr ? INFINITY : relative_difference(n, h[2], h[0]);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && block_error <= 1e-14 && symmetric_error <= 1e-14 &&
         ts_operator_size(blk[1]) == s.nu && ts_operator_columns(blk[1]) == s.np &&
         ts_operator_size(blk[2]) == s.np && ts_operator_columns(blk[2]) == s.nu,
     "%dD RT_%d level %d: [A u + B^T p; -B u] by the blocks = Acal x (rel. difference %.1e), "
     "the symmetric form = diag(I,-I) Acal x (%.1e), need <= 1e-14", dim, k, level, block_error,
     symmetric_error);
  for (int i = 0; i < 3; ++i) free(h[i]);
  ts_vec_destroy(&xu), ts_vec_destroy(&xp), ts_vec_destroy(&yu), ts_vec_destroy(&yp);
  ts_vec_destroy(&x), ts_vec_destroy(&y), ts_vec_destroy(&yb);
  for (int b = 0; b < 3; ++b) ts_operator_destroy(&blk[b]);
  ts_operator_destroy(&sym);
  stokes_destroy(&s);
}

/* (b) the Kronecker diagonal of A against A e_j, j over all velocity DoFs */
static void velocity_diagonal(ts_backend be, int dim, int k, int level) {
  stokes_setup s = {0};
  ts_operator A = NULL;
  ts_vec e = NULL, col = NULL, d = NULL;
  double *dh = NULL, *ch = NULL, *probed = NULL;
  int ierr = stokes_create(be, dim, k, level, &s);
  if (!ierr) ierr = ts_operator_create_stokes_block(s.A, 0, 0, &A);
  if (!ierr) ierr = ts_vec_create(be, s.nu, TS_DOUBLE, &e);
  if (!ierr) ierr = ts_vec_create(be, s.nu, TS_DOUBLE, &col);
  if (!ierr) ierr = ts_vec_create(be, s.nu, TS_DOUBLE, &d);
  if (!ierr) ierr = host_alloc(s.nu, &dh);
  if (!ierr) ierr = host_alloc(s.nu, &ch);
  if (!ierr) ierr = host_alloc(s.nu, &probed);
  if (!ierr) ierr = ts_operator_diagonal(A, d);
  for (int64_t j = 0; j < s.nu && !ierr; ++j) {
    ch[j] = 1.0;
    ierr = ts_vec_set_from_host(e, ch);
    ch[j] = 0.0;
    if (!ierr) ierr = ts_operator_apply(A, e, col);
    if (!ierr) ierr = ts_vec_get_to_host(col, dh);
    probed[j] = dh[j];
  }
  if (!ierr) ierr = ts_vec_get_to_host(d, dh);
  const double error = ierr ? INFINITY : relative_difference(s.nu, dh, probed);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && error <= 1e-14, "%dD RT_%d level %d: diagonal of A from its Kronecker form = "
     "(A e_j)_j over %lld DoFs (rel. difference %.1e, need <= 1e-14)", dim, k, level,
     (long long)s.nu, error);
  free(dh), free(ch), free(probed);
  ts_vec_destroy(&e), ts_vec_destroy(&col), ts_vec_destroy(&d);
  ts_operator_destroy(&A);
  stokes_destroy(&s);
}

/* (c) M_p: 1^T M_p 1 = |Omega| = 1, and 1^T M_p p = |Omega| mean(p) */
static void pressure_mass(ts_backend be, int dim, int k, int level) {
  stokes_setup s = {0};
  ts_pc pc = NULL;
  ts_vec x = NULL, xp = NULL, ones = NULL, inv = NULL;
  double total = NAN, weighted = NAN, mean = NAN;
  int ierr = stokes_create(be, dim, k, level, &s);
  if (!ierr) ierr = ts_pc_create_pressure_mass(s.A, &pc);
  if (!ierr) ierr = ts_vec_create(be, s.nu + s.np, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, s.np, TS_DOUBLE, &ones);
  if (!ierr) ierr = ts_vec_create(be, s.np, TS_DOUBLE, &inv);
  if (!ierr) ierr = ts_vec_set_random(x, 3);
  if (!ierr) ierr = ts_vec_create_view(x, s.nu, s.np, &xp);
  if (!ierr) ierr = ts_vec_set(ones, 1.0);
  if (!ierr) ierr = ts_pc_apply(pc, ones, inv); /* M_p^{-1} 1: the entries 1 / m_i */
  double *ih = NULL, *ph = NULL;
  if (!ierr) ierr = host_alloc(s.np, &ih);
  if (!ierr) ierr = host_alloc(s.np, &ph);
  if (!ierr) ierr = ts_vec_get_to_host(inv, ih);
  if (!ierr) ierr = ts_vec_get_to_host(xp, ph);
  if (!ierr) {
    total = weighted = 0.0;
    for (int64_t i = 0; i < s.np; ++i) {
      total += 1.0 / ih[i];
      weighted += ph[i] / ih[i];
    }
    ierr = ts_stokes_pressure_mean(s.A, x, &mean);
  }
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && fabs(total - 1.0) <= 1e-13 && fabs(weighted - mean) <= 1e-13 * fabs(mean) + 1e-15,
     "%dD DGQ_%d level %d: 1^T M_p 1 = %.15f (|Omega| = 1), 1^T M_p p = %.15g, the pressure "
     "mean %.15g", dim, k, level, total, weighted, mean);
  free(ih), free(ph);
  ts_vec_destroy(&xp), ts_vec_destroy(&x), ts_vec_destroy(&ones), ts_vec_destroy(&inv);
  ts_pc_destroy(&pc);
  stokes_destroy(&s);
}

/* (d) the kinds on the Laplacian of a 2D Q_2 hierarchy */
typedef struct laplace_setup {
  ts_mesh mesh;
  ts_fe fe;
  ts_mg mg;
  ts_operator A;
  int64_t n;
  ts_vec r, z, w;       /* n entries: right side, pc output, reference */
  ts_vec r2, z2, w2;    /* 2n entries for the block kinds */
} laplace_setup;

static int laplace_create(ts_backend be, laplace_setup *l) {
  TS_CALL(ts_mesh_create_box(2, lower, upper, one_cell, 3, &l->mesh));
  TS_CALL(ts_fe_create_q(2, 2, &l->fe));
  TS_CALL(ts_mg_create(be, l->mesh, l->fe, 3, NULL, &l->mg));
  l->A = ts_mg_operator(l->mg);
  l->n = ts_operator_size(l->A);
  ts_vec *v[6] = {&l->r, &l->z, &l->w, &l->r2, &l->z2, &l->w2};
  for (int i = 0; i < 6; ++i) TS_CALL(ts_vec_create(be, (i < 3 ? 1 : 2) * l->n, TS_DOUBLE, v[i]));
  TS_CALL(ts_vec_set_random(l->r, 11));
  TS_CALL(ts_vec_set_random(l->r2, 12));
  return 0;
}

static void laplace_destroy(laplace_setup *l) {
  ts_vec *v[6] = {&l->r, &l->z, &l->w, &l->r2, &l->z2, &l->w2};
  for (int i = 0; i < 6; ++i) ts_vec_destroy(v[i]);
  ts_mg_destroy(&l->mg);
  ts_fe_destroy(&l->fe);
  ts_mesh_destroy(&l->mesh);
}

/* max |a - b| / max |b| of two vectors */
static double vec_difference(ts_vec a, ts_vec b) {
  const int64_t n = ts_vec_size(b);
  double *ha = NULL, *hb = NULL, result = INFINITY;
  if (!host_alloc(n, &ha) && !host_alloc(n, &hb) && !ts_vec_get_to_host(a, ha) &&
      !ts_vec_get_to_host(b, hb))
    result = relative_difference(n, ha, hb);
  free(ha), free(hb);
  return result;
}

/* What "the same arithmetic" may differ by: nothing on omp; on a GPU backend the Laplacian
 * sums face contributions with atomics, so two applications to the same vector can differ
 * in the last bits (t-krylov-methods: the same). */
static double same_arithmetic(void) { return strcmp(tap_backend(), "omp") ? 1e-14 : 0.0; }

/* z = P r by the pc against w = the reference application (already in l->w) */
static void same_as(laplace_setup *l, ts_pc pc, int ierr, const char *what, double tolerance) {
  if (!ierr) ierr = ts_pc_apply(pc, l->r, l->z);
  const double d = ierr ? INFINITY : vec_difference(l->z, l->w);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && d <= tolerance, "pc '%s' applies %s (rel. difference %.1e)", ts_pc_name(pc), what, d);
}

static void single_kinds(ts_backend be, laplace_setup *l) {
  ts_pc pc = NULL;
  ts_operator jacobi = NULL;
  ts_smoother cheb = NULL;
  int ierr = ts_operator_create_jacobi(l->A, &jacobi);
  if (!ierr) ierr = ts_operator_apply(jacobi, l->r, l->w);
  if (!ierr) ierr = ts_pc_create_jacobi(l->A, &pc);
  if (!ierr) ierr = ts_pc_setup(pc); /* the diagonal again: the same */
  same_as(l, pc, ierr, "the Jacobi operator", 0.0);
  ts_pc_destroy(&pc);
  ierr = ts_pc_create_operator(jacobi, &pc);
  same_as(l, pc, ierr, "its operator", 0.0);
  ts_pc_destroy(&pc);
  ierr = ts_smoother_create_chebyshev(l->A, 4, &cheb);
  if (!ierr) ierr = ts_vec_set(l->w, 0.0);
  if (!ierr) ierr = ts_smoother_apply(cheb, l->r, l->w);
  if (!ierr) ierr = ts_pc_create_chebyshev(l->A, 4, &pc);
  same_as(l, pc, ierr, "the Chebyshev smoother from zero", same_arithmetic());
  ts_pc_destroy(&pc);
  ierr = ts_operator_apply(ts_mg_preconditioner(l->mg), l->r, l->w);
  if (!ierr) ierr = ts_pc_create_mg(l->mg, &pc);
  same_as(l, pc, ierr, "the V-cycle", same_arithmetic());
  /* CG with the pc object takes the iterations of CG with the V-cycle operator */
  ts_solver s = NULL;
  int its[2] = {-1, -2};
  double res[2] = {NAN, NAN};
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_CG, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, l->A);
  if (!ierr) ierr = ts_solver_set_tolerances(s, 1e-10, 100);
  for (int i = 0; i < 2 && !ierr; ++i) {
    ierr = i ? ts_solver_set_pc(s, pc) : ts_solver_set_preconditioner(s, ts_mg_preconditioner(l->mg));
    if (!ierr) ierr = ts_vec_set(l->z, 0.0);
    if (!ierr) ierr = ts_solver_solve(s, l->r, l->z);
    its[i] = ts_solver_iterations(s);
    res[i] = ts_solver_relative_residual(s);
  }
  if (ierr) diag("%s", ts_error_message());
  /* omp: bitwise the same. A GPU's atomic additions round differently from run to run, by
   * about eps * ||r_0|| per application, which CG carries to the end: compare the two final
   * relative residuals (both in units of ||r_0||) to 1e4 eps, not to each other's last digits */
  ok(!ierr && its[0] == its[1] && fabs(res[0] - res[1]) <= (same_arithmetic() ? 1e-12 : 0.0),
     "CG + ts_solver_set_pc(mg): %d iterations to %.3e, with the V-cycle operator %d to %.3e",
     its[1], res[1], its[0], res[0]);
  ts_solver_destroy(&s);
  ts_pc_destroy(&pc);
  /* an inner CG (Jacobi) to 1e-10: A z = r to that tolerance */
  ts_pc inner = NULL;
  double rn = NAN, dn = NAN;
  ierr = ts_pc_create_jacobi(l->A, &inner);
  if (!ierr) ierr = ts_pc_create_krylov(l->A, TS_SOLVER_CG, inner, 1e-10, 1000, &pc);
  if (!ierr) ierr = ts_pc_apply(pc, l->r, l->z);
  if (!ierr) ierr = ts_operator_apply(l->A, l->z, l->w);
  if (!ierr) ierr = ts_vec_axpby(-1.0, l->r, 1.0, l->w);
  if (!ierr) ierr = ts_vec_norm(l->w, &dn);
  if (!ierr) ierr = ts_vec_norm(l->r, &rn);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && dn <= 1.01e-10 * rn, "pc 'krylov' (CG + Jacobi to 1e-10): ||A z - r|| / ||r|| = %.2e",
     dn / rn);
  ts_pc_destroy(&pc);
  ts_pc_destroy(&inner);
  ts_smoother_destroy(&cheb);
  ts_operator_destroy(&jacobi);
  (void)be;
}

/* block-diagonal diag(J, C) and block-triangular with J, the Laplacian as coupling and C,
 * against their formulas applied block by block */
static void block_kinds(ts_backend be, laplace_setup *l) {
  ts_pc jac = NULL, cheb = NULL, pc = NULL;
  ts_vec r0 = NULL, r1 = NULL, w0 = NULL, w1 = NULL, t = NULL;
  int ierr = ts_pc_create_jacobi(l->A, &jac);
  if (!ierr) ierr = ts_pc_create_chebyshev(l->A, 3, &cheb);
  if (!ierr) ierr = ts_vec_create_view(l->r2, 0, l->n, &r0);
  if (!ierr) ierr = ts_vec_create_view(l->r2, l->n, l->n, &r1);
  if (!ierr) ierr = ts_vec_create_view(l->w2, 0, l->n, &w0);
  if (!ierr) ierr = ts_vec_create_view(l->w2, l->n, l->n, &w1);
  if (!ierr) ierr = ts_vec_create(be, l->n, TS_DOUBLE, &t);
  const ts_pc diagonal[2] = {jac, cheb};
  if (!ierr) ierr = ts_pc_create_block_diagonal(2, diagonal, &pc);
  if (!ierr) ierr = ts_pc_apply(jac, r0, w0);
  if (!ierr) ierr = ts_pc_apply(cheb, r1, w1);
  if (!ierr) ierr = ts_operator_apply(ts_pc_operator(pc), l->r2, l->z2);
  double d = ierr ? INFINITY : vec_difference(l->z2, l->w2);
  ok(!ierr && d <= same_arithmetic(), "pc 'block-diagonal' (Jacobi, Chebyshev) = the blocks' applications "
     "(rel. difference %.1e)", d);
  ts_pc_destroy(&pc);
  for (int shape = TS_PC_LOWER; shape <= TS_PC_UPPER; ++shape) {
    const int lo = shape == TS_PC_LOWER;
    /* lower: w0 = J r0, w1 = C (r1 - A w0); upper: w1 = C r1, w0 = J (r0 - A w1) */
    if (!ierr) ierr = ts_pc_create_block_triangular(shape, jac, l->A, cheb, &pc);
    if (!ierr) ierr = ts_pc_apply(lo ? jac : cheb, lo ? r0 : r1, lo ? w0 : w1);
    if (!ierr) ierr = ts_operator_apply(l->A, lo ? w0 : w1, t);
    if (!ierr) ierr = ts_vec_axpby(1.0, lo ? r1 : r0, -1.0, t);
    if (!ierr) ierr = ts_pc_apply(lo ? cheb : jac, t, lo ? w1 : w0);
    if (!ierr) ierr = ts_pc_apply(pc, l->r2, l->z2);
    d = ierr ? INFINITY : vec_difference(l->z2, l->w2);
    if (ierr) diag("%s", ts_error_message());
    ok(!ierr && d <= same_arithmetic(), "pc 'block-triangular' %s = its formula (rel. difference %.1e)",
       lo ? "lower" : "upper", d);
    ts_pc_destroy(&pc);
  }
  ts_vec_destroy(&r0), ts_vec_destroy(&r1), ts_vec_destroy(&w0), ts_vec_destroy(&w1);
  ts_vec_destroy(&t);
  ts_pc_destroy(&jac);
  ts_pc_destroy(&cheb);
}

static void registry(void) {
  const char *names = ts_pc_type_names();
  ok(strstr(names, "jacobi") && strstr(names, "block-diagonal") && strstr(names, "block-triangular") &&
         strstr(names, "pressure-mass") && ts_pc_type_check("mg") == 0,
     "the registry names the kinds: %s", names);
  const int ierr = ts_pc_type_check("ilu");
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "'ilu' unknown, allowed: jacobi"),
     "an unknown kind is refused: %s", ts_error_message());
}

int main(void) {
  ts_backend be;
  plan(1 + 4 + 2 + 2 + 6 + 3 + 2);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  blocks_reproduce_stokes(be, 2, 2, 3);
  blocks_reproduce_stokes(be, 2, 0, 2);
  blocks_reproduce_stokes(be, 3, 1, 2);
  blocks_reproduce_stokes(be, 3, 2, 1);
  velocity_diagonal(be, 2, 2, 1);
  velocity_diagonal(be, 3, 1, 1);
  pressure_mass(be, 2, 3, 2);
  pressure_mass(be, 3, 1, 2);
  laplace_setup l = {0};
  if (laplace_create(be, &l)) diag("%s", ts_error_message());
  single_kinds(be, &l);
  block_kinds(be, &l);
  laplace_destroy(&l);
  registry();
  ts_backend_destroy(&be);
  return exit_status();
}
