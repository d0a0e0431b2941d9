/* t-cell-values.c -- coefficients per cell from files (issue 13): ts_cell_values_read (raw
 * little-endian doubles, the size and the values checked), and <poisson kappa-file c-file>
 * in problem files: a file holding what an expression gives at the cells' centres solves the
 * same problem (the same iterations and errors on every level, the coarser levels' values
 * averaged from the finest's), also a tensor kappa; bad files get clear errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "tessera.h"

static char dir[] = "/tmp/t-cell-values.XXXXXX";

/* dir/name, written with n doubles (little-endian: the hosts Tessera builds on) */
static const char *write_values(const char *name, const double *v, int64_t n) {
  static char path[4][256];
  static int next = 0;
  char *p = path[next++ % 4];
  snprintf(p, 256, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (f) {
    fwrite(v, sizeof *v, (size_t)n, f);
    fclose(f);
  }
  return p;
}

static void expect_error(int rc, int code, const char *needle, const char *what) {
  const char *message = ts_error_message();
  ok(rc == code && strstr(message, needle) != NULL, "%s: %s", what, message);
}

static void test_read(void) {
  const double v[6] = {1.0, 2.5, -3.0, 1e7, 0.25, 6.0};
  double back[6] = {0};
  const char *path = write_values("six.raw", v, 6);
  ok(ts_cell_values_read(path, 3, 2, back) == 0 && memcmp(v, back, sizeof v) == 0,
     "6 values read back exactly (3 cells x 2 components)");
  expect_error(ts_cell_values_read(path, 4, 2, back), TS_ERR_IO, "hold 48 bytes, expected 64",
               "a file of the wrong size says both sizes");
  const double bad[3] = {1.0, NAN, 2.0};
  expect_error(ts_cell_values_read(write_values("nan.raw", bad, 3), 3, 1, back), TS_ERR_ARG,
               "value 0 of cell 1 is nan", "a value that is not finite names its cell");
  char missing[300];
  snprintf(missing, sizeof missing, "%s/none.raw", dir);
  expect_error(ts_cell_values_read(missing, 3, 1, back), TS_ERR_IO, "cannot open",
               "a missing file");
}

enum { finest_dofs = (48 * 2 + 1) * (16 * 2 + 1) }; /* Q2 on level 3: 48 x 16 cells */

/* the problem file dir/NAME.xml with the <poisson> attributes given, solved on the backend:
 * every level (the report), then the finest level's solution into x */
static int solve(ts_backend be, const char *name, const char *attributes, ts_report *r, double *x) {
  char path[300], xml[2048];
  snprintf(path, sizeof path, "%s/%s.xml", dir, name);
  snprintf(xml, sizeof xml,
           "<tessera-problem name='%s'><mesh dim='2' map='kershaw' epsilon='1' cells='6 2' "
           "levels='3'/><element degree='2'/><convergence first-level='1'/>"
           "<poisson f='1' %s/><solver type='cg' preconditioner='mg' rtol='1e-10'/>"
           "</tessera-problem>", name, attributes);
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  fputs(xml, f);
  fclose(f);
  ts_problem p = NULL;
  ts_level_report finest;
  int ierr = ts_problem_read_xml(path, 0, NULL, &p);
  if (!ierr) ierr = ts_problem_solve(p, be, NULL, r);
  if (!ierr) ierr = ts_problem_solve_finest(p, be, &finest, x);
  ts_problem_destroy(&p);
  return ierr;
}

/* the same levels and iterations (+-1: the coarser levels' coefficients are means of the
 * children's, equal to the centre values to rounding), and the finest solutions equal to
 * far below the solver's tolerance 1e-10 (no exact solution: f = 1) */
static int same_solves(const ts_report *a, const double *xa, const ts_report *b, const double *xb,
                       double *difference) {
  int same = a->n_levels == b->n_levels && a->n_levels == 3;
  for (int l = 0; l < a->n_levels && same; ++l)
    same = abs(a->levels[l].iterations - b->levels[l].iterations) <= 1;
  double d = 0, size = 0;
  for (int i = 0; i < finest_dofs; ++i) {
    d = fmax(d, fabs(xa[i] - xb[i]));
    size = fmax(size, fabs(xa[i]));
  }
  *difference = d / size;
  return same && *difference <= 1e-8;
}

static void test_problem_files(ts_backend be) {
  /* level 3 of Kershaw's mesh with epsilon = 1 (the unit square): 48 x 16 cells; kappa 1 left
   * of x = 1/2, 1e3 right of it: constant on each cell, and on the coarser levels' too */
  enum { nx = 48, ny = 16 };
  static double kappa[nx * ny], c[nx * ny], tensor[3 * nx * ny];
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double x = (i + 0.5) / nx, y = (j + 0.5) / ny;
      kappa[i + nx * j] = x < 0.5 ? 1 : 1e3;
      c[i + nx * j] = 2 + y;
      const double t[3] = {kappa[i + nx * j], 0, kappa[i + nx * j]}; /* k00 k01 k11 */
      memcpy(tensor + 3 * (i + nx * j), t, sizeof t);
    }
  write_values("kappa.raw", kappa, nx * ny);
  write_values("c.raw", c, nx * ny);
  write_values("tensor.raw", tensor, 3 * nx * ny);
  static double xe[finest_dofs], xf[finest_dofs], xt[finest_dofs];
  ts_report e, fk, ft;
  double d = 0;
  int ierr = solve(be, "expressions", "kappa='x &lt; 0.5 ? 1 : 1e3' c='2 + y'", &e, xe);
  if (ierr) diag("%s", ts_error_message());
  int ierr_f = solve(be, "files", "kappa-file='kappa.raw' c-file='c.raw'", &fk, xf);
  if (ierr_f) diag("%s", ts_error_message());
  ok(!ierr && !ierr_f && same_solves(&e, xe, &fk, xf, &d), "kappa-file and c-file (paths from "
     "the problem file's folder) solve the expressions' problem: CG + V-cycle %d %d %d "
     "iterations on levels 1-3 (files: %d %d %d), finest solutions %.1e apart",
     e.levels[0].iterations, e.levels[1].iterations, e.levels[2].iterations,
     fk.levels[0].iterations, fk.levels[1].iterations, fk.levels[2].iterations, d);
  ierr_f = solve(be, "tensor", "kappa-file='tensor.raw' c-file='c.raw'", &ft, xt);
  if (ierr_f) diag("%s", ts_error_message());
  ok(!ierr && !ierr_f && same_solves(&e, xe, &ft, xt, &d), "a tensor kappa file (k00 k01 k11 "
     "per cell) equal to the scalar gives the same solves (finest solutions %.1e apart)", d);

  ts_problem p = NULL;
  /* wrong.xml: levels L and the <poisson> attributes given, read (not solved) */
  const struct { int levels; const char *poisson, *error, *what; } bad[3] = {
      {2, "kappa-file='kappa.raw'",
       "holds 6144 bytes; the finest level (2) has 192 cells, so it must hold 1536 bytes",
       "a file for another level: both sizes"},
      {3, "kappa='2' kappa-file='kappa.raw'", "not both", "kappa as an expression and from a file"},
      {3, "c-file='nothing.raw'", "cannot open", "a missing c-file names it"}};
  for (int i = 0; i < 3; ++i) {
    char path[300];
    snprintf(path, sizeof path, "%s/wrong.xml", dir);
    FILE *f = fopen(path, "w");
    if (f) {
      fprintf(f, "<tessera-problem name='w'><mesh dim='2' map='kershaw' cells='6 2' levels='%d'/>"
              "<element degree='2'/><poisson f='1' %s/></tessera-problem>", bad[i].levels,
              bad[i].poisson);
      fclose(f);
    }
    expect_error(ts_problem_read_xml(path, 0, NULL, &p), TS_ERR_INPUT, bad[i].error, bad[i].what);
  }
  ts_problem_destroy(&p);
}

/* <poisson sample="points">: kappa = 1 + x^2 and c = 1 + y at every quadrature point give
 * the optimal L2 rate on Kershaw 0.3 (the C test of the same problem: t-mapped-convergence);
 * sampled at the cells' centres (the default) they are an O(h) approximation. */
static void test_points(ts_backend be) {
  const char *u = "exp(x)*sin(pi*y/2)";
  char attributes[1024];
  ts_report r[2];
  int ierr = 0;
  for (int i = 0; i < 2 && !ierr; ++i) {
    snprintf(attributes, sizeof attributes,
             "kappa='1 + x^2' c='1 + y' sample='%s' g='%s' u='%s' "
             "grad-u='%s, pi/2*exp(x)*cos(pi*y/2)' "
             "f='(-(1 + x^2)*(1 - pi^2/4) - 2*x + 1 + y)*%s'", i ? "points" : "cells", u, u, u, u);
    char path[300], xml[2048];
    snprintf(path, sizeof path, "%s/points.xml", dir);
    snprintf(xml, sizeof xml,
             "<tessera-problem name='points'><mesh dim='2' map='kershaw' epsilon='0.3' cells='6 2' "
             "levels='3'/><element degree='2'/><convergence first-level='2'/><poisson %s/>"
             "<solver type='cg' preconditioner='mg' rtol='1e-12'/></tessera-problem>", attributes);
    FILE *f = fopen(path, "w");
    if (f) {
      fputs(xml, f);
      fclose(f);
    }
    ts_problem p = NULL;
    ierr = ts_problem_read_xml(path, 0, NULL, &p);
    if (!ierr) ierr = ts_problem_solve(p, be, NULL, &r[i]);
    ts_problem_destroy(&p);
  }
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && fabs(r[1].levels[1].l2_rate - 3) <= 0.25 &&
         r[1].levels[1].l2_error < r[0].levels[1].l2_error,
     "sample=\"points\": Q2 L2 rate %.3f on levels 2-3 (expect 3), error %.3e (sampled at the "
     "centres: rate %.3f, error %.3e)", r[1].levels[1].l2_rate, r[1].levels[1].l2_error,
     r[0].levels[1].l2_rate, r[0].levels[1].l2_error);
}

/* remove dir and what the test wrote there */
static void clean(void) {
  const char *names[] = {"six.raw", "nan.raw", "kappa.raw", "c.raw", "tensor.raw",
                         "expressions.xml", "files.xml", "tensor.xml", "wrong.xml", "points.xml"};
  char path[300];
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    remove(path);
  }
  rmdir(dir);
}

int main(void) {
  ts_backend be = NULL;
  if (!mkdtemp(dir)) {
    diag("no temporary folder");
    return 1;
  }
  test_read();
  if (ts_backend_open(tap_backend(), &be) == 0) {
    test_problem_files(be);
    test_points(be);
  }
  else diag("%s", ts_error_message());
  ts_backend_destroy(&be);
  clean();
  done_testing();
  return exit_status();
}
