/* t-expression.c -- expressions of the point (ts_expression, issue 13) and your own problem in
 * a problem file:
 * (a) values against the same formulas in C at scattered points, 1D..3D, one and several
 *     components, to a few ulps;
 * (b) from several OpenMP threads at once (one parser per thread): the values of a serial
 *     loop, in a loop of 2,000 batches;
 * (c) the refusals: syntax errors naming the column, names that are not variables of the
 *     dimension, the wrong number of comma-separated values, NULL and out-of-range arguments;
 * (d) the same solution through C callbacks and through a problem file's expressions:
 *     Kershaw's mesh (epsilon 0.3, 2D Q2; 3D Q1, sine map) gives the same errors and
 *     iterations, to the solver's tolerance;
 * (e) your own data on the box (the box as a mapped mesh) against the built-in solution
 *     "sine" on the box's fast path: the same errors;
 * (f) the .vtu of your own problem on an annulus sector (ts_write_vtu_mapped through
 *     <output>): its points lie in the annulus (the cells' geometry), "exact" is u at them and
 *     "error" is as small as the L2 error says. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mapped-solve.h"
#include "tap.h"
#include "tessera.h"

static const double pi = 3.14159265358979323846;

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

/* ---------------------------------------------------------------- (a) values */

static void test_values(void) {
  static const double x[5][3] = {{0, 0, 0}, {0.25, -0.5, 1.75}, {1, 2, 3}, {-3.5, 0.125, 0.3}, {0.7, 0.2, -0.9}};
  ts_expression e = NULL;
  double v[15], worst = 0;
  ok(!ts_expression_create("sin(pi*x)*exp(y) + z^2 - 3", 3, 1, &e) && e, "3D expression parses");
  ok(!strcmp(ts_expression_text(e), "sin(pi*x)*exp(y) + z^2 - 3"), "its text is kept");
  ok(!ts_expression_evaluate(e, 3, 5, &x[0][0], v), "evaluates 5 points");
  for (int i = 0; i < 5; ++i)
    worst = fmax(worst, rel(v[i], sin(pi * x[i][0]) * exp(x[i][1]) + x[i][2] * x[i][2] - 3));
  ok(worst < 4e-16, "3D values as in C (largest relative difference %.1e)", worst);
  ts_expression_destroy(&e);
  ok(e == NULL, "destroy sets the handle to NULL");

  double x1[4] = {0.1, 0.5, 2.0, -1.0};
  ok(!ts_expression_create("abs(x) + sqrt(4) * min(x, 1)", 1, 1, &e) && !ts_expression_evaluate(e, 1, 4, x1, v),
     "1D expression with abs, sqrt and min");
  worst = 0;
  for (int i = 0; i < 4; ++i) worst = fmax(worst, rel(v[i], fabs(x1[i]) + 2 * fmin(x1[i], 1)));
  ok(worst == 0, "1D values exact (%.1e)", worst);
  ts_expression_destroy(&e);

  /* what doc/user-guide.md promises: ?:, comparisons, &&, min of several arguments */
  ok(!ts_expression_create("(x < 0.5 ? 1 : 1e6) + (x > 0 && x < 1) + min(x, 2, -3)", 1, 1, &e) &&
         !ts_expression_evaluate(e, 1, 4, x1, v) && v[0] == 1 + 1 - 3 && v[1] == 1e6 + 1 - 3 &&
         v[2] == 1e6 + 0 - 3 && v[3] == 1 + 0 - 3,
     "piecewise data: ?:, comparisons, && and min of three arguments");
  ts_expression_destroy(&e);

  ok(!ts_expression_create("pi*cos(pi*x)*exp(y), sin(pi*x)*exp(y)", 2, 2, &e), "2D gradient (2 values)");
  double x2[6] = {0.3, 0.4, 0.9, -0.2, 0.5, 0.5};
  ok(!ts_expression_evaluate(e, 2, 3, x2, v), "evaluates 3 points, 2 values each");
  worst = 0;
  for (int i = 0; i < 3; ++i) {
    worst = fmax(worst, rel(v[2 * i], pi * cos(pi * x2[2 * i]) * exp(x2[2 * i + 1])));
    worst = fmax(worst, rel(v[2 * i + 1], sin(pi * x2[2 * i]) * exp(x2[2 * i + 1])));
  }
  ok(worst < 4e-16, "both components as in C (%.1e)", worst);
  ok(ts_expression_evaluate(e, 3, 1, x2, v) == TS_ERR_ARG, "evaluate with another dim returns TS_ERR_ARG");
  ts_expression_destroy(&e);
}

/* ---------------------------------------------------------------- (b) threads */

static void test_threads(void) {
  enum { batches = 2000, per_batch = 50 };
  const int n = batches * per_batch;
  double *x = malloc(sizeof(double) * 3 * n), *parallel = malloc(sizeof(double) * n);
  ts_expression e = NULL;
  for (int i = 0; i < 3 * n; ++i) x[i] = sin(0.37 * i) * 2;
  ok(!ts_expression_create("exp(-x*x) * cos(3*y) + z / (1 + y*y)", 3, 1, &e), "expression for the threads");
  int failures = 0;
  omp_set_num_threads(4); /* more threads than cores: they interleave */
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : failures)
  for (int b = 0; b < batches; ++b)
    failures += ts_expression_evaluate(e, 3, per_batch, x + 3 * b * per_batch, parallel + b * per_batch) != 0;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const double *p = x + 3 * i;
    worst = fmax(worst, rel(parallel[i], exp(-p[0] * p[0]) * cos(3 * p[1]) + p[2] / (1 + p[1] * p[1])));
  }
  ok(failures == 0 && worst < 1e-15, "%d batches on 4 threads: no failure, values as in C (%.1e)",
     batches, worst);
  ts_expression_destroy(&e);
  free(x);
  free(parallel);
}

/* ---------------------------------------------------------------- (c) refusals */

static void expect_error(const char *text, int dim, int components, const char *substring) {
  ts_expression e = (ts_expression)1;
  const int code = ts_expression_create(text, dim, components, &e);
  const char *m = ts_error_message();
  ok(code == TS_ERR_ARG && e == NULL && strstr(m, substring), "\"%.20s\" (dim %d, %d values): "
     "refused with \"%s\"", text ? text : "(NULL)", dim, components, substring);
  if (!strstr(m, substring)) diag("%s", m);
}

static void test_refusals(void) {
  expect_error("sin(pi*x", 2, 1, "Missing parenthesis");
  expect_error("x + * y", 2, 1, "(column 5)");
  expect_error("x + z", 2, 1, "variables x, y and the constant pi");
  expect_error("foo(x)", 3, 1, "does not parse");
  expect_error("x, y", 2, 1, "gives 2 values; 1 is needed");
  expect_error("x", 3, 3, "gives 1 value; 3 are needed");
  expect_error("", 2, 1, "text is empty");
  expect_error(NULL, 2, 1, "NULL");
  expect_error("x", 4, 1, "dim = 4, allowed 1..3");
  expect_error("x", 2, 0, "components = 0, allowed 1..9");
  char *longtext = malloc(5000);
  memset(longtext, 'x', 4999);
  longtext[4999] = 0;
  expect_error(longtext, 2, 1, "4999 bytes; at most 4096");
  free(longtext);
  ok(ts_expression_create("x", 2, 1, NULL) == TS_ERR_ARG, "NULL handle refused");
  ts_expression_destroy(NULL);
  ok(ts_expression_text(NULL) == NULL && ts_expression_evaluate(NULL, 2, 1, (double[2]){0}, (double[1]){0}) == TS_ERR_ARG,
     "NULL expression: no text, evaluate returns TS_ERR_ARG");
}

/* ---------------------------------------------------------------- (d) C and XML */

/* The problem of examples/poisson-kershaw.xml: u = sin(pi x) exp(y) (3D: times cos(z)),
 * kappa = 3, c = 1, f = (kappa (pi^2 - 1 (+1 in 3D)) + c) u. */
static double kershaw_factor(int dim) { return 3 * (pi * pi - 1 + (dim == 3 ? 1 : 0)) + 1; }

static double own_u(int dim, const double *x) {
  return sin(pi * x[0]) * exp(x[1]) * (dim == 3 ? cos(x[2]) : 1.0);
}

static int c_u(void *ctx, int dim, int64_t n, const double *x, double *v) {
  for (int64_t i = 0; i < n; ++i) v[i] = own_u(dim, x + i * dim);
  return 0;
}
static int c_f(void *ctx, int dim, int64_t n, const double *x, double *v) {
  for (int64_t i = 0; i < n; ++i) v[i] = kershaw_factor(dim) * own_u(dim, x + i * dim);
  return 0;
}
static int c_grad(void *ctx, int dim, int64_t n, const double *x, double *g) {
  for (int64_t i = 0; i < n; ++i) {
    const double *p = x + i * dim, z = dim == 3 ? cos(p[2]) : 1.0;
    g[i * dim] = pi * cos(pi * p[0]) * exp(p[1]) * z;
    g[i * dim + 1] = sin(pi * p[0]) * exp(p[1]) * z;
    if (dim == 3) g[i * dim + 2] = -sin(pi * p[0]) * exp(p[1]) * sin(p[2]);
  }
  return 0;
}

static const char *const own_xml_2d =
    "<tessera-problem name='own-2d'>"
    "<mesh dim='2' map='kershaw' epsilon='0.3' cells='6 2' levels='%d'/>"
    "<element degree='2'/>"
    "<poisson kappa='3' c='1' f='(3*(pi^2-1) + 1) * sin(pi*x)*exp(y)' g='sin(pi*x)*exp(y)'"
    " u='sin(pi*x)*exp(y)' grad-u='pi*cos(pi*x)*exp(y), sin(pi*x)*exp(y)'/>"
    "<solver rtol='1e-12' max-iterations='20000'/><convergence first-level='%d'/>"
    "</tessera-problem>";
static const char *const own_xml_3d =
    "<tessera-problem name='own-3d'>"
    "<mesh dim='3' map='sine' amplitude='0.04' cells='2 2 2' levels='%d'/>"
    "<element degree='1'/>"
    "<poisson kappa='3' c='1' f='(3*pi^2 + 1) * sin(pi*x)*exp(y)*cos(z)' g='sin(pi*x)*exp(y)*cos(z)'"
    " u='sin(pi*x)*exp(y)*cos(z)'"
    " grad-u='pi*cos(pi*x)*exp(y)*cos(z), sin(pi*x)*exp(y)*cos(z), -sin(pi*x)*exp(y)*sin(z)'/>"
    "<solver rtol='1e-12' max-iterations='20000'/><convergence first-level='%d'/>"
    "</tessera-problem>";

/* One level from the problem file, the same level through the C callbacks: same errors. */
static void compare_c_and_xml(ts_backend be, int dim, int level) {
  char xml[2048];
  snprintf(xml, sizeof xml, dim == 2 ? own_xml_2d : own_xml_3d, level, level);
  ts_problem problem = NULL;
  ts_report report;
  int ierr = ts_problem_read_string("own", xml, &problem);
  if (!ierr) ierr = ts_problem_solve(problem, be, NULL, &report);
  if (ierr) diag("%s", ts_error_message());
  ts_problem_destroy(&problem);

  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  const int coarse2[2] = {6, 2}, coarse3[3] = {2, 2, 2};
  int cerr = dim == 2 ? ts_mesh_create_kershaw(2, coarse2, level, 0.3, &mesh)
                      : ts_mesh_create_sine(3, coarse3, level, 0.04, &mesh);
  if (!cerr) cerr = ts_fe_create_q(dim, dim == 2 ? 2 : 1, &fe);
  if (!cerr) cerr = ts_dofs_create(mesh, fe, level, &dofs);
  int64_t cells[3] = {1, 1, 1};
  ts_mesh_cells(mesh, level, cells);
  const int64_t count = cells[0] * cells[1] * cells[2];
  double *kappa = malloc(sizeof(double) * (size_t)count), *c = malloc(sizeof(double) * (size_t)count);
  for (int64_t i = 0; i < count; ++i) kappa[i] = 3, c[i] = 1;
  const ts_coefficients co = {.kappa_components = 1, .kappa = kappa, .reaction = c};
  const mapped_problem mp = {.coefficients = &co, .f = c_f, .g = c_u, .u = c_u,
                             .grad_u = c_grad, .rtol = 1e-12};
  mapped_result r = {0};
  if (!cerr) cerr = mapped_solve(be, dofs, &mp, &r);
  const ts_level_report *x = &report.levels[0];
  ok(!ierr && !cerr && rel(x->l2_error, r.l2) < 1e-8 && rel(x->h1_error, r.h1) < 1e-8 &&
         abs(x->iterations - r.iterations) <= 1,
     "%dD level %d: problem file L2 %.6e H1 %.6e (%d iterations), C callbacks L2 %.6e H1 %.6e (%d)",
     dim, level, ierr ? NAN : x->l2_error, ierr ? NAN : x->h1_error, ierr ? -1 : x->iterations,
     r.l2, r.h1, r.iterations);
  free(kappa);
  free(c);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- (e) box */

static void compare_box(ts_backend be, int dim) {
  char builtin[512], own[768];
  snprintf(builtin, sizeof builtin,
           "<tessera-problem name='box'><mesh dim='%d' cells='2 2%s' levels='2'/><element degree='3'/>"
           "<poisson solution='sine'/><solver rtol='1e-13'/></tessera-problem>", dim, dim == 3 ? " 2" : "");
  snprintf(own, sizeof own,
           "<tessera-problem name='box-own'><mesh dim='%d' cells='2 2%s' levels='2'/><element degree='3'/>"
           "<poisson f='%d*pi^2*sin(pi*x)*sin(pi*y)%s' u='sin(pi*x)*sin(pi*y)%s' "
           "grad-u='pi*cos(pi*x)*sin(pi*y)%s, sin(pi*x)*pi*cos(pi*y)%s%s'/>"
           "<solver rtol='1e-13'/></tessera-problem>", dim, dim == 3 ? " 2" : "", dim,
           dim == 3 ? "*sin(pi*z)" : "", dim == 3 ? "*sin(pi*z)" : "", dim == 3 ? "*sin(pi*z)" : "",
           dim == 3 ? "*sin(pi*z)" : "", dim == 3 ? ", sin(pi*x)*sin(pi*y)*pi*cos(pi*z)" : "");
  ts_report a, b;
  ts_problem p = NULL, q = NULL;
  int ierr = ts_problem_read_string("builtin", builtin, &p);
  if (!ierr) ierr = ts_problem_solve(p, be, NULL, &a);
  if (!ierr) ierr = ts_problem_read_string("own", own, &q);
  if (!ierr) ierr = ts_problem_solve(q, be, NULL, &b);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && rel(b.levels[0].l2_error, a.levels[0].l2_error) < 1e-8 &&
         rel(b.levels[0].h1_error, a.levels[0].h1_error) < 1e-8,
     "%dD Q3 on the box: your own data (mapped path) L2 %.6e H1 %.6e, built-in 'sine' L2 %.6e H1 %.6e",
     dim, ierr ? NAN : b.levels[0].l2_error, ierr ? NAN : b.levels[0].h1_error,
     ierr ? NAN : a.levels[0].l2_error, ierr ? NAN : a.levels[0].h1_error);
  ts_problem_destroy(&p);
  ts_problem_destroy(&q);
}

/* ---------------------------------------------------------------- (f) .vtu */

/* The numbers of the DataArray whose tag holds `after`, or of the first one inside the
 * element `after` ("<Points>"), in text (at most cap), or -1. */
static int read_array(const char *text, const char *after, double *out, int cap) {
  const char *a = strstr(text, after);
  if (a && after[0] == '<') a = strstr(a, "<DataArray"); /* an element: its first array */
  if (!a || !(a = strchr(a, '>'))) return -1;
  const char *end = strstr(a, "</DataArray>");
  int n = 0;
  for (char *p = (char *)a + 1; p < end && n < cap;) {
    char *q;
    const double v = strtod(p, &q);
    if (q == p) break;
    out[n++] = v;
    p = q;
  }
  return n;
}

static void test_vtu(ts_backend be) {
  char dir[] = "/tmp/t-expression.XXXXXX", path[64], xml[1024];
  if (!mkdtemp(dir)) {
    ok(0, "a temporary folder for the .vtu");
    return;
  }
  snprintf(path, sizeof path, "%s/shell.vtu", dir);
  snprintf(xml, sizeof xml,
           "<tessera-problem name='shell'><mesh dim='2' map='shell' inner='0.5' outer='1.5' "
           "angle='2' cells='2 4' levels='2'/><element degree='3'/>"
           "<poisson f='0' g='log(sqrt(x^2 + y^2))' u='log(sqrt(x^2 + y^2))' "
           "grad-u='x/(x^2+y^2), y/(x^2+y^2)'/><output vtu='%s' subdivisions='3'/>"
           "</tessera-problem>", path);
  ts_problem p = NULL;
  ts_report r;
  int ierr = ts_problem_read_string("shell", xml, &p);
  if (!ierr) ierr = ts_problem_solve(p, be, NULL, &r);
  if (ierr) diag("%s", ts_error_message());
  ts_problem_destroy(&p);
  enum { points = 25 * 49 };  /* (8 cells x 3 + 1) x (16 cells x 3 + 1) lattice points */
  static double x[3 * points + 1], exact[points + 1], error[points + 1];
  char *text = NULL;
  FILE *f = ierr ? NULL : fopen(path, "r");
  if (f) {
    text = calloc(1, 1 << 22);
    fread(text, 1, (1 << 22) - 1, f);
    fclose(f);
  }
  const int nx = text ? read_array(text, "<Points>", x, 3 * points + 1) : -1;
  const int ne = text ? read_array(text, "Name=\"exact\"", exact, points + 1) : -1;
  const int nr = text ? read_array(text, "Name=\"error\"", error, points + 1) : -1;
  double rmin = INFINITY, rmax = 0, exact_diff = 0, error_max = 0;
  for (int i = 0; i < points && nx == 3 * points && ne == points && nr == points; ++i) {
    const double radius = hypot(x[3 * i], x[3 * i + 1]);
    rmin = fmin(rmin, radius);
    rmax = fmax(rmax, radius);
    exact_diff = fmax(exact_diff, fabs(exact[i] - log(radius)));
    error_max = fmax(error_max, fabs(error[i]));
  }
  ok(!ierr && nx == 3 * points && ne == points && nr == points && rmin > 0.5 - 1e-6 &&
         rmax < 1.5 + 1e-12 && exact_diff < 1e-12 && error_max < 1e-4 && error_max > 0,
     "annulus sector .vtu: %d points with radii %.8f..%.8f, exact = log r at them (%.1e), "
     "|error| <= %.2e", nx / 3, rmin, rmax, exact_diff, error_max);
  free(text);
  remove(path);
  rmdir(dir);
}

int main(void) {
  ts_backend be = NULL;
  plan(33);
  test_values();
  test_threads();
  test_refusals();
  if (ts_backend_open(tap_backend(), &be)) {
    skip(6, "the backend does not open");
    return exit_status();
  }
  omp_set_num_threads(2);
  compare_c_and_xml(be, 2, 2);
  compare_c_and_xml(be, 2, 3);
  compare_c_and_xml(be, 3, 2);
  compare_box(be, 2);
  compare_box(be, 3);
  test_vtu(be);
  ts_backend_destroy(&be);
  return exit_status();
}
