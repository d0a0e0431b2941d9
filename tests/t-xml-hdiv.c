/* t-xml-hdiv.c -- paper 003's Darcy and grad-div problems from problem files (<darcy>,
 * <grad-div>; doc/hdiv.md) give what the C API gives (ts_hdiv_system, tests/t-darcy.c and
 * tests/t-hdiv.c):
 *   - the smooth Darcy solution, 2D RT_1, beta = 2, fluxes on left and top: t-darcy's L2
 *     errors of u and p on levels 1 and 2 (5.055e-03 / 5.476e-03, 1.260e-03 / 1.369e-03), and
 *     MINRES's iterations equal to a ts_hdiv_system_solve on the same level;
 *   - every flux prescribed (the singular case, p after matching its mean): 5.056e-03 /
 *     5.476e-03 on level 1;
 *   - GMRES with the default tree (block-triangular) reaches the same errors in fewer
 *     iterations than MINRES;
 *   - the grad-div solution "sine", 2D RT_1, every flux an unknown: t-hdiv's 6.465e-04 on
 *     level 2;
 *   - on Kershaw's mesh (<mesh map="kershaw" epsilon="0.3">): t-darcy-mapped's errors of both
 *     solutions and the C API's MINRES iterations;
 *   - the crooked pipe (grad-div, crooked-pipe coefficients, f = (1, 0)) and the SPE10-like
 *     Darcy problem (lognormal beta, pure flux boundary): the iterations of the C API's solve;
 *   - <preconditioner type="amg"> on S~ runs our AMG and converges;
 *   - ts_hdiv_system_create_with_amg refuses what it cannot build, naming it;
 *   - <output vtu> writes the finest level's file with its six fields.
 * omp; hypre builds only (BoomerAMG on S~). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera.h"

/* The finest level of the problem file text xml solved on b. */
static int solve_xml(ts_backend b, const char *xml, ts_level_report *r) {
  ts_problem p = NULL;
  int ierr = ts_problem_read_string("t-xml-hdiv", xml, &p);
  if (!ierr) ierr = ts_problem_solve_finest(p, b, r, NULL);
  if (ierr) diag("%s", ts_error_message());
  ts_problem_destroy(&p);
  return ierr;
}

/* A problem file of element degree k on `levels` of the mesh, with the equation's element
 * eq and the solver element solver into buf. */
static const char *problem(char *buf, size_t len, const char *mesh, int k, const char *eq,
                           const char *solver) {
  snprintf(buf, len, "<tessera-problem name=\"t\">%s<element family=\"RT\" degree=\"%d\"/>%s%s"
           "</tessera-problem>", mesh, k, eq, solver);
  return buf;
}

static int close_to(double a, double b, double rel) { return fabs(a / b - 1.0) < rel; }

/* MINRES to 1e-12 on level of mesh by the C API; its iterations */
static int api_iterations(ts_backend b, ts_mesh mesh, int level, int k,
                          const ts_hdiv_coefficients *co, unsigned faces,
                          const ts_hdiv_data *data) {
  const int dim = ts_mesh_dim(mesh);
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_hdiv_system s = NULL;
  double *rhs = NULL, *x = NULL, *x0 = NULL;
  int iterations = -1;
  int ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
  if (!ierr) ierr = ts_hdiv_system_create(b, u, p, co, faces, &s);
  const int64_t n = ierr ? 0 : ts_dofs_count(u) + ts_dofs_count(p);
  if (!ierr) {
    rhs = calloc((size_t)n, sizeof *rhs);
    x = calloc((size_t)n, sizeof *x);
    x0 = calloc((size_t)n, sizeof *x0);
    ierr = rhs && x && x0 ? 0 : TS_ERR_MEMORY;
  }
  if (!ierr) ierr = ts_hdiv_system_rhs(s, data, rhs, x0);
  if (!ierr) ierr = ts_hdiv_system_solve(s, TS_SOLVER_MINRES, 1e-12, 3000, rhs, x, &iterations);
  if (ierr) diag("%s", ts_error_message());
  free(rhs);
  free(x);
  free(x0);
  ts_hdiv_system_destroy(&s);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  return ierr ? -1 : iterations;
}

#define UNIT_2D(levels) "<mesh dim=\"2\" cells=\"2 2\" levels=\"" #levels "\"/>"
#define MINRES "<solver type=\"minres\" rtol=\"1e-12\" max-iterations=\"3000\"/>"

static double beta_smooth = 2.0;

static void test_smooth(ts_backend b) {
  static const double t_darcy[2][2] = {{5.055e-03, 5.476e-03}, {1.260e-03, 1.369e-03}};
  char xml[1024];
  ts_level_report r[2];
  int ierr = 0;
  for (int level = 1; level <= 2 && !ierr; ++level) {
    char mesh[128];
    snprintf(mesh, sizeof mesh, "<mesh dim=\"2\" cells=\"2 2\" levels=\"%d\"/>", level);
    ierr = solve_xml(b, problem(xml, sizeof xml, mesh, 1, "<darcy solution=\"smooth\" beta=\"2\" "
                                "flux-faces=\"left top\"/>", MINRES), &r[level - 1]);
  }
  int same = !ierr;
  for (int l = 0; l < 2 && same; ++l)
    same = close_to(r[l].l2_error, t_darcy[l][0], 1e-3) &&
           close_to(r[l].pressure_l2_error, t_darcy[l][1], 1e-3);
  ok(same, "<darcy solution=\"smooth\">, 2D RT_1, fluxes on left and top: L2 errors u/p %.3e/%.3e, "
     "%.3e/%.3e on levels 1, 2 (tests/t-darcy.c: 5.055e-03/5.476e-03, 1.260e-03/1.369e-03)",
     r[0].l2_error, r[0].pressure_l2_error, r[1].l2_error, r[1].pressure_l2_error);

  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {2, 2};
  const ts_hdiv_coefficients co = {INFINITY, 2.0, NULL, NULL};
  const ts_hdiv_data data = {.g = ts_darcy_smooth_divergence, .p_boundary = ts_darcy_smooth_pressure,
                             .u_boundary = ts_darcy_smooth_velocity, .ctx = &beta_smooth};
  ts_mesh mesh = NULL;
  int its = -1;
  if (!ts_mesh_create_box(2, lower, upper, coarse, 2, &mesh))
    its = api_iterations(b, mesh, 2, 1, &co, TS_FACE_LEFT | TS_FACE_TOP, &data);
  ts_mesh_destroy(&mesh);
  ok(!ierr && its > 0 && r[1].iterations == its,
     "the same problem, level 2: MINRES %d iterations from the file, %d from the C API",
     r[1].iterations, its);

  ts_level_report g = {0};
  ierr = solve_xml(b, problem(xml, sizeof xml, UNIT_2D(2), 1, "<darcy solution=\"smooth\" beta=\"2\" "
                              "flux-faces=\"left top\"/>", "<solver type=\"gmres\" rtol=\"1e-12\" "
                              "restart=\"200\"/>"), &g);
  ok(!ierr && close_to(g.l2_error, r[1].l2_error, 1e-3) && g.iterations < r[1].iterations,
     "solver type=\"gmres\" (the block-triangular default): error u %.3e, %d iterations "
     "(MINRES %d)", g.l2_error, g.iterations, r[1].iterations);
}

static void test_singular(ts_backend b) {
  char xml[1024];
  ts_level_report r = {0};
  const int ierr = solve_xml(b, problem(xml, sizeof xml, UNIT_2D(1), 1, "<darcy solution=\"smooth\" "
                                        "beta=\"2\" flux-faces=\"all\"/>", MINRES), &r);
  ok(!ierr && close_to(r.l2_error, 5.056e-03, 1e-3) && close_to(r.pressure_l2_error, 5.476e-03, 1e-3),
     "<darcy flux-faces=\"all\"> (singular, p up to a constant): L2 errors %.3e / %.3e on level 1 "
     "(tests/t-darcy.c: 5.056e-03 / 5.476e-03)", r.l2_error, r.pressure_l2_error);
}

static void test_grad_div(ts_backend b) {
  char xml[1024];
  ts_level_report r = {0};
  const int ierr = solve_xml(b, problem(xml, sizeof xml, UNIT_2D(2), 1,
                                        "<grad-div solution=\"sine\"/>", MINRES), &r);
  ok(!ierr && close_to(r.l2_error, 6.465e-04, 1e-3) && r.pressure_l2_error < 1e-2,
     "<grad-div solution=\"sine\">, 2D RT_1, level 2: L2 error of u %.4e (tests/t-hdiv.c: "
     "6.465e-04), of p %.3e", r.l2_error, r.pressure_l2_error);
}

/* <mesh map="kershaw"> (epsilon 0.3, 6 x 2 cells, level 2): tests/t-darcy-mapped.c's errors of
 * the smooth Darcy solution and of the grad-div solution "sine", and the C API's MINRES
 * iterations on the same mesh */
static void test_kershaw(ts_backend b) {
  static const char *mesh = "<mesh dim=\"2\" map=\"kershaw\" epsilon=\"0.3\" cells=\"6 2\" "
                            "levels=\"2\"/>";
  char xml[1024];
  ts_level_report r = {0}, g = {0};
  int ierr = solve_xml(b, problem(xml, sizeof xml, mesh, 1, "<darcy solution=\"smooth\" "
                                  "beta=\"2\" flux-faces=\"left top\"/>", MINRES), &r);
  if (!ierr)
    ierr = solve_xml(b, problem(xml, sizeof xml, mesh, 1, "<grad-div solution=\"sine\"/>",
                                MINRES), &g);
  static const int coarse[2] = {6, 2};
  const ts_hdiv_coefficients co = {INFINITY, 2.0, NULL, NULL};
  const ts_hdiv_data data = {.g = ts_darcy_smooth_divergence, .p_boundary = ts_darcy_smooth_pressure,
                             .u_boundary = ts_darcy_smooth_velocity, .ctx = &beta_smooth};
  ts_mesh kershaw = NULL;
  int its = -1;
  if (!ts_mesh_create_kershaw(2, coarse, 2, 0.3, &kershaw))
    its = api_iterations(b, kershaw, 2, 1, &co, TS_FACE_LEFT | TS_FACE_TOP, &data);
  ts_mesh_destroy(&kershaw);
  ok(!ierr && close_to(r.l2_error, 1.581e-03, 1e-3) && close_to(r.pressure_l2_error, 2.348e-03, 1e-3) &&
         r.iterations == its,
     "<mesh map=\"kershaw\" epsilon=\"0.3\"> with <darcy solution=\"smooth\">, 2D RT_1, level 2: "
     "L2 errors u/p %.3e/%.3e (tests/t-darcy-mapped.c: 1.581e-03/2.348e-03), MINRES %d "
     "iterations (the C API %d)", r.l2_error, r.pressure_l2_error, r.iterations, its);
  ok(!ierr && close_to(g.l2_error, 1.923e-03, 1e-3) && close_to(g.pressure_l2_error, 6.319e-03, 1e-3),
     "<mesh map=\"kershaw\"> with <grad-div solution=\"sine\">, level 2: L2 errors u/p %.3e/%.3e "
     "(tests/t-darcy-mapped.c: 1.923e-03/6.319e-03)", g.l2_error, g.pressure_l2_error);
}

static int constant_vector(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)x;
  for (int64_t q = 0; q < count; ++q)
    for (int d = 0; d < dim; ++d) v[q * dim + d] = ((const double *)ctx)[d];
  return 0;
}

/* the crooked pipe on 28 x 8 cells, p = 2 */
static void test_pipe(ts_backend b) {
  static const double lower[2] = {0, 0}, upper[2] = {7, 2};
  static const int coarse[2] = {14, 4};
  static double f_x[2] = {1, 0};
  char xml[1024];
  ts_level_report r = {0};
  int ierr = solve_xml(b, problem(xml, sizeof xml, "<mesh dim=\"2\" lower=\"0 0\" upper=\"7 2\" "
                                  "cells=\"14 4\" levels=\"1\"/>", 1, "<grad-div alpha-cells="
                                  "\"crooked-pipe\" beta-cells=\"crooked-pipe\" f=\"1, 0\"/>",
                                  MINRES), &r);
  double alpha[28 * 8], beta[28 * 8];
  ts_mesh mesh = NULL;
  int its = -1;
  if (!ts_mesh_create_box(2, lower, upper, coarse, 1, &mesh) &&
      !ts_cell_values_crooked_pipe(mesh, 1, 1.641, 1.88e-3, alpha) &&
      !ts_cell_values_crooked_pipe(mesh, 1, 0.2, 2000.0, beta)) {
    const ts_hdiv_coefficients co = {1.0, 1.0, alpha, beta};
    const ts_hdiv_data data = {.f = constant_vector, .ctx = f_x};
    its = api_iterations(b, mesh, 1, 1, &co, 0, &data);
  }
  ts_mesh_destroy(&mesh);
  ok(!ierr && its > 0 && r.iterations == its && isnan(r.l2_error),
     "crooked pipe (<grad-div alpha-cells beta-cells=\"crooked-pipe\">), 28 x 8 cells, p = 2: "
     "%d MINRES iterations from the file, %d from the C API; no exact solution, no errors",
     r.iterations, its);
}

/* the SPE10-like problem on 3 x 11 x 5 cells, p = 2 */
static void test_spe10(ts_backend b) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1200, 2200, 170};
  static const int coarse[3] = {3, 11, 5};
  static double u_x[3] = {1, 0, 0};
  const int64_t cells[3] = {3, 11, 5};
  char xml[1024];
  ts_level_report r = {0};
  int ierr = solve_xml(b, problem(xml, sizeof xml, "<mesh dim=\"3\" lower=\"0 0 0\" upper=\"1200 "
                                  "2200 170\" cells=\"3 11 5\" levels=\"0\"/>", 1, "<darcy "
                                  "beta-cells=\"lognormal\" flux-faces=\"all\" u=\"1, 0, 0\"/>",
                                  MINRES), &r);
  double kappa[3 * 11 * 5];
  ts_mesh mesh = NULL;
  int its = -1;
  if (!ts_mesh_create_box(3, lower, upper, coarse, 0, &mesh) &&
      !ts_cell_values_lognormal(3, cells, 1e7, 2026, kappa)) {
    for (int c = 0; c < 3 * 11 * 5; ++c) kappa[c] = 1.0 / kappa[c];
    const ts_hdiv_coefficients co = {INFINITY, 1.0, NULL, kappa};
    const ts_hdiv_data data = {.u_boundary = constant_vector, .ctx = u_x};
    its = api_iterations(b, mesh, 0, 1, &co, TS_FACES_ALL(3), &data);
  }
  ts_mesh_destroy(&mesh);
  ok(!ierr && its > 0 && r.iterations == its,
     "SPE10-like (<darcy beta-cells=\"lognormal\" flux-faces=\"all\">), 3 x 11 x 5 cells, p = 2: "
     "%d MINRES iterations from the file, %d from the C API", r.iterations, its);
}

static void test_our_amg(ts_backend b) {
  char xml[1024];
  ts_level_report r = {0};
  const int ierr = solve_xml(b, problem(xml, sizeof xml, UNIT_2D(2), 1, "<darcy solution=\"smooth\" "
                                        "beta=\"2\" flux-faces=\"left top\"/>",
                                        "<solver type=\"minres\" rtol=\"1e-12\"><preconditioner "
                                        "type=\"block-diagonal\"><preconditioner type=\"jacobi\"/>"
                                        "<preconditioner type=\"amg\"/></preconditioner></solver>"),
                             &r);
  ok(!ierr && close_to(r.l2_error, 1.260e-03, 1e-3) && r.iterations < 80,
     "our AMG on S~ (<preconditioner type=\"amg\">): error u %.3e, %d MINRES iterations",
     r.l2_error, r.iterations);
}

/* ts_hdiv_system_create_with_amg refuses an unknown AMG and ours on a singular S~ */
static void test_amg_arguments(ts_backend b) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {2, 2};
  const ts_hdiv_coefficients darcy = {INFINITY, 1.0, NULL, NULL};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_hdiv_system s = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(2, 0, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(2, 0, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 0, &p);
  const int unknown = ierr ? -1 : ts_hdiv_system_create_with_amg(b, u, p, &darcy, 0, (ts_hdiv_amg)7, &s);
  const int named = strstr(ts_error_message(), "amg = 7") != NULL;
  const int singular = ierr ? -1 : ts_hdiv_system_create_with_amg(b, u, p, &darcy, TS_FACES_ALL(2),
                                                                  TS_HDIV_AMG_OURS, &s);
  const int said = strstr(ts_error_message(), "S~ is singular") != NULL;
  int ours = -1;
  if (!ierr && !ts_hdiv_system_create_with_amg(b, u, p, &darcy, TS_FACE_LEFT, TS_HDIV_AMG_OURS, &s))
    ours = ts_hdiv_system_amg(s) == TS_HDIV_AMG_OURS;
  ts_hdiv_system_destroy(&s);
  ok(unknown == TS_ERR_ARG && named && singular == TS_ERR_ARG && said && ours == 1 &&
         ts_hdiv_system_amg(NULL) == TS_HDIV_AMG_AUTO,
     "ts_hdiv_system_create_with_amg: amg = 7 refused naming it, ours on the singular S~ "
     "refused, ours taken where S~ is regular (ts_hdiv_system_amg)");
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

/* <output vtu>: the finest level of 2D RT_1 (8 x 8 cells, subdivisions 2) written with the
 * six fields (the values are t-stokes-vtu's section 9) */
static void test_output(ts_backend b) {
  char xml[1024], text[4096] = "";
  const char *path = "t-xml-hdiv.vtu";
  ts_problem p = NULL;
  ts_report report;
  FILE *log = tmpfile();
  remove(path);
  int ierr = ts_problem_read_string("t-xml-hdiv", problem(xml, sizeof xml,
      "<mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/>", 1, "<darcy solution=\"smooth\" beta=\"2\" "
      "flux-faces=\"left top\"/><output vtu=\"t-xml-hdiv.vtu\" subdivisions=\"2\"/>", MINRES), &p);
  if (!ierr) ierr = ts_problem_solve(p, b, log, &report);
  if (ierr) diag("%s", ts_error_message());
  FILE *f = ierr ? NULL : fopen(path, "r");
  const size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = '\0';
  int fields = 0;
  static const char *names[] = {"velocity", "pressure", "velocity_exact", "pressure_exact",
                                "velocity_error", "pressure_error"};
  if (f) {
    rewind(f);
    char line[256];
    while (fgets(line, sizeof line, f))
      for (int i = 0; i < 6; ++i) {
        char want[64];
        snprintf(want, sizeof want, "Name=\"%s\"", names[i]);
        fields += strstr(line, want) != NULL;
      }
    fclose(f);
  }
  ok(!ierr && strstr(text, "NumberOfPoints=\"576\"") && fields == 6,
     "<darcy> with <output vtu>: %s written, 64 cells x 9 points, the 6 fields (%d found)", path,
     fields);
  remove(path);
  if (log) fclose(log);
  ts_problem_destroy(&p);
}

int main(void) {
  ts_backend b = NULL;
  if (ts_backend_open("omp", &b)) {
    plan(1);
    ok(0, "open backend omp: %s", ts_error_message());
    return exit_status();
  }
  if (!*ts_hypre_version()) {
    skip(1, "built without hypre: no BoomerAMG for S~");
  } else {
    test_smooth(b);
    test_singular(b);
    test_grad_div(b);
    test_kershaw(b);
    test_pipe(b);
    test_spe10(b);
    test_our_amg(b);
    test_amg_arguments(b);
    test_output(b);
  }
  done_testing();
  ts_backend_destroy(&b);
  return exit_status();
}
