/* t-mg-transfer.c -- the multigrid transfers between levels of a Q_k box hierarchy, 2D and
 * 3D, several degrees, between mesh levels and between the degree levels below the coarse
 * mesh level: prolongation reproduces a coarse finite element function exactly (the
 * embedding: polynomials of the coarse degree), restriction is its exact transpose
 * (<R x, y> = <x, P y> on random vectors), single precision agrees with double, and bad
 * calls are refused. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"

/* A function in the coarse Q_k space with zero boundary values on [0,1]^dim: per direction
 * x(1-x)(0.3+x)^(k-2) (degree k), or for k = 1 the tent min(x, 1-x) (kink at 1/2, a coarse
 * vertex: the coarse mesh has an even number of cells per direction). */
static double g(int dim, int k, const double *x) {
  double v = 1.0;
  for (int d = 0; d < dim; ++d)
    v *= k == 1 ? fmin(x[d], 1.0 - x[d]) : x[d] * (1.0 - x[d]) * pow(0.3 + x[d], k - 2);
  return v;
}

static void interpolate(ts_dofs dofs, int dim, int k, double *h) {
  for (int64_t i = 0; i < ts_dofs_count(dofs); ++i) {
    double x[3];
    ts_dofs_point(dofs, i, x);
    h[i] = g(dim, k, x);
  }
}

/* The transfer into `level` of mg from level-1, whose DoFs are cd (coarse, Q_kc) and fd. */
static void check_pair(ts_backend be, ts_mg mg, int level, ts_dofs cd, ts_dofs fd, int dim, int kc) {
  const int kf = fd->degree;
  const int64_t nc = ts_dofs_count(cd), nf = ts_dofs_count(fd);
  double *hc = malloc(nc * sizeof *hc), *hf = malloc(nf * sizeof *hf), *hp = malloc(nf * sizeof *hp);
  ts_vec xc, xf, yc, yf, sc, sf;
  ts_vec_create(be, nc, TS_DOUBLE, &xc);
  ts_vec_create(be, nc, TS_DOUBLE, &yc);
  ts_vec_create(be, nf, TS_DOUBLE, &xf);
  ts_vec_create(be, nf, TS_DOUBLE, &yf);
  ts_vec_create(be, nc, TS_SINGLE, &sc);
  ts_vec_create(be, nf, TS_SINGLE, &sf);
  /* embedding: P I_c g = I_f g for g in the coarse space */
  interpolate(cd, dim, kc, hc);
  interpolate(fd, dim, kc, hf);
  ts_vec_set_from_host(xc, hc);
  int ierr = ts_mg_prolongate(mg, level, xc, xf);
  ts_vec_get_to_host(xf, hp);
  double err = 0.0, scale = 0.0;
  for (int64_t i = 0; i < nf; ++i) {
    err = fmax(err, fabs(hp[i] - hf[i]));
    scale = fmax(scale, fabs(hf[i]));
  }
  ok(!ierr && scale > 0.0 && err <= 1e-13 * scale,
     "%dD Q%d->Q%d level %d: prolongation reproduces the coarse function (max error %.2e of %.2e)",
     dim, kc, kf, level, err, scale);
  /* transpose: <R x_f, y_c> = <x_f, P y_c> with random vectors (boundary entries too) */
  ts_vec_set_random(xf, 11 + level);
  ts_vec_set_random(yc, 23 + level);
  double left, right, nl, nr;
  ierr = ts_mg_restrict(mg, level, xf, xc);
  ierr |= ts_mg_prolongate(mg, level, yc, yf);
  ts_vec_dot(xc, yc, &left);
  ts_vec_dot(xf, yf, &right);
  ts_vec_norm(xc, &nl);
  ts_vec_norm(yc, &nr);
  ok(!ierr && fabs(left - right) <= 1e-13 * nl * nr * sqrt((double)nf) && nl > 0.0,
     "%dD Q%d->Q%d level %d: <R x, y> = %.15e, <x, P y> = %.15e", dim, kc, kf, level, left, right);
  /* single precision against double: prolongation and restriction */
  ts_vec_copy(yc, sc);
  ierr = ts_mg_prolongate(mg, level, sc, sf);
  ts_vec_copy(sf, xf);
  ts_vec_axpby(-1.0, yf, 1.0, xf);
  double diff, ref;
  ts_vec_norm(xf, &diff);
  ts_vec_norm(yf, &ref);
  ok(!ierr && diff <= 1e-6 * ref, "%dD Q%d->Q%d level %d: single-precision prolongation within %.1e",
     dim, kc, kf, level, diff / ref);
  ts_free(&hc);
  ts_free(&hf);
  ts_free(&hp);
  ts_vec_destroy(&xc);
  ts_vec_destroy(&yc);
  ts_vec_destroy(&xf);
  ts_vec_destroy(&yf);
  ts_vec_destroy(&sc);
  ts_vec_destroy(&sf);
}

/* The hierarchy of Q_k on the 2 x 4 (x 2) box refined `finest` times, degree levels down
 * to coarse_degree below level 0 (Chebyshev smoother: any coarse mesh) */
static int hierarchy(ts_backend be, int dim, int k, int finest, int coarse_degree, ts_mesh *mesh,
                     ts_fe *fe, ts_mg *mg) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {2, 4, 2};
  ts_mg_options o;
  ts_mesh_create_box(dim, lower, upper, coarse, finest, mesh);
  ts_fe_create_q(dim, k, fe);
  ts_mg_options_default(&o);
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  o.chebyshev_degree = 1;
  o.coarse_degree = coarse_degree;
  return ts_mg_create(be, *mesh, *fe, finest, &o, mg);
}

/* mesh levels 0..2 of Q_k */
static void check(ts_backend be, int dim, int k) {
  ts_mesh mesh;
  ts_fe fe;
  ts_mg mg;
  if (!ok(hierarchy(be, dim, k, 2, k, &mesh, &fe, &mg) == 0, "%dD Q%d: hierarchy on levels 0..2",
          dim, k)) {
    diag("%s", ts_error_message());
    return;
  }
  for (int level = 1; level <= 2; ++level) {
    ts_dofs cd = NULL, fd = NULL;
    ts_dofs_create(mesh, fe, level - 1, &cd);
    ts_dofs_create(mesh, fe, level, &fd);
    check_pair(be, mg, level, cd, fd, dim, k);
    ts_dofs_destroy(&cd);
    ts_dofs_destroy(&fd);
  }
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* the degree levels of Q_k down to Q_c on mesh level 0 (levels lowest+1..0: one transfer
 * between two degrees each) */
static void check_degrees(ts_backend be, int dim, int k, int c, int transfers) {
  ts_mesh mesh;
  ts_fe fe;
  ts_mg mg;
  const int ierr = hierarchy(be, dim, k, 0, c, &mesh, &fe, &mg);
  if (!ok(!ierr && ts_mg_coarse_level(mg) == -transfers,
          "%dD Q%d, coarse degree %d: degree levels %d..-1 below level 0", dim, k, c,
          ierr ? 0 : ts_mg_coarse_level(mg))) {
    diag("%s", ts_error_message());
    return;
  }
  for (int level = -transfers + 1; level <= 0; ++level) {
    ts_mg_level_timing tc, tf;
    ts_mg_level_timing_get(mg, level - 1, &tc);
    ts_mg_level_timing_get(mg, level, &tf);
    ts_fe fc = NULL, ff = NULL;
    ts_dofs cd = NULL, fd = NULL;
    ts_fe_create_q(dim, tc.degree, &fc);
    ts_fe_create_q(dim, tf.degree, &ff);
    ts_dofs_create(mesh, fc, 0, &cd);
    ts_dofs_create(mesh, ff, 0, &fd);
    check_pair(be, mg, level, cd, fd, dim, tc.degree);
    ts_dofs_destroy(&cd);
    ts_dofs_destroy(&fd);
    ts_fe_destroy(&fc);
    ts_fe_destroy(&ff);
  }
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be;
  const int degrees2[] = {1, 2, 3, 5, 10}, degrees3[] = {1, 2, 4};
  plan(1 + 5 * 7 + 3 * 7 + 5 * 7 + 2 * 4 + 4);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  for (int i = 0; i < 5; ++i) check(be, 2, degrees2[i]);
  for (int i = 0; i < 3; ++i) check(be, 3, degrees3[i]);
  /* degree levels: 7 -> 3 -> 1 and 4 -> 2 -> 1 (the GPU's plain and tiled kernels), 5 -> 2,
   * 10 -> 5 -> 3 */
  check_degrees(be, 2, 7, 1, 2);
  check_degrees(be, 2, 4, 1, 2);
  check_degrees(be, 3, 7, 1, 2);
  check_degrees(be, 3, 4, 1, 2);
  check_degrees(be, 2, 5, 2, 1);
  check_degrees(be, 3, 5, 2, 1);
  check_degrees(be, 2, 10, 3, 2);

  /* refused: wrong level, wrong sizes, wrong options */
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int coarse[2] = {1, 1};
  ts_mesh mesh;
  ts_fe fe;
  ts_mg mg;
  ts_vec a, c;
  ts_mg_options o;
  ts_mesh_create_box(2, lower, upper, coarse, 2, &mesh);
  ts_fe_create_q(2, 2, &fe);
  ts_mg_options_default(&o);
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  ts_mg_create(be, mesh, fe, 2, &o, &mg);
  ts_vec_create(be, 9, TS_DOUBLE, &a);
  ts_vec_create(be, 25, TS_DOUBLE, &c);
  ok(ts_mg_prolongate(mg, 0, a, c) == TS_ERR_ARG && strstr(ts_error_message(), "level 0, allowed 1..2"),
     "prolongation to level 0 refused: %s", ts_error_message());
  ok(ts_mg_prolongate(mg, 2, a, c) == TS_ERR_ARG && strstr(ts_error_message(), "entries"),
     "prolongation with wrong sizes refused: %s", ts_error_message());
  o.coarse_level = 3;
  ts_mg bad = NULL;
  ok(ts_mg_create(be, mesh, fe, 2, &o, &bad) == TS_ERR_ARG && !bad &&
         strstr(ts_error_message(), "coarse level 3"),
     "coarse level above the finest refused: %s", ts_error_message());
  o.coarse_level = 0;
  o.chebyshev_degree = 0;
  ok(ts_mg_create(be, mesh, fe, 2, &o, &bad) == TS_ERR_ARG && !bad &&
         strstr(ts_error_message(), "Chebyshev degree 0"),
     "Chebyshev degree 0 refused: %s", ts_error_message());
  ts_vec_destroy(&a);
  ts_vec_destroy(&c);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&be);
  return exit_status();
}
