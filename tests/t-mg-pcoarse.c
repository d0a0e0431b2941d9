/* t-mg-pcoarse.c -- degree coarsening below the coarse mesh level (p-multigrid,
 * doc/multigrid.md "The coarse level"): on coarse meshes of several cells per direction,
 * full multigrid with degree levels down to Q1 (k, k/2, .., 1) takes at most as many
 * V-cycles as without them, for 2D and 3D, Q4 and Q7, double and mixed precision, and
 * reaches the same L2 error of the manufactured solution "sine" (to 1e-3 of the error: both
 * solves stop at rtol 1e-9, far below the discretization error); the automatic coarse
 * degree picks Q1 on a large coarse level only; bad coarse degrees are refused. */
#include <math.h>
#include <stdlib.h>
#include "fmg-solve.h"
#include "tap.h"
#include "tessera-impl.h"

/* FMG to 1e-9 with the coarse degree and the precision of the levels */
static int fmg_run(ts_backend be, int dim, int k, const int *cells, int levels, int coarse_degree,
                   ts_precision precision, fmg_result *res) {
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_degree = coarse_degree;
  o.precision = precision;
  return fmg_sine_solve(be, dim, k, cells, levels, &o, res);
}

/* with degree levels down to Q1 against without (coarse degree k) */
static void compare(ts_backend be, int dim, int k, const int *cells, int levels,
                    ts_precision precision) {
  fmg_result with = {0}, without = {0};
  const int ierr = fmg_run(be, dim, k, cells, levels, 1, precision, &with) ||
                   fmg_run(be, dim, k, cells, levels, k, precision, &without);
  if (ierr) diag("%s", ts_error_message());
  /* k, k/2, .., 1: the number of halvings of k down to 1 */
  int steps = 0;
  for (int d = k; d > 1; d /= 2) ++steps;
  ok(!ierr && with.iterations >= 1 && with.iterations <= without.iterations &&
         with.lowest == -steps && with.lowest_degree == 1 && without.lowest == 0 &&
         fabs(with.l2 - without.l2) <= 1e-3 * without.l2,
     "%dD Q%d on %dx%dx%d cells, %d level(s), %s: FMG %d V-cycles with degree levels %d..-1 "
     "(lowest Q%d), %d without; L2 error %.6e and %.6e", dim, k, cells[0], cells[1],
     dim == 3 ? cells[2] : 1, levels, ts_precision_name(precision), with.iterations,
     with.lowest, with.lowest_degree, without.iterations, with.l2, without.l2);
}

/* The automatic coarse degree: Q1 above TS_MG_COARSE_DEGREE_AUTO_DOFS coarse DoFs with an
 * interior vertex, else none */
static void check_auto(ts_backend be) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int small[3] = {3, 3, 4}, large[3] = {7, 7, 8}, thin[3] = {1, 1, 1};
  const int *meshes[3] = {small, large, thin};
  const char *names[3] = {"3x3x4 cells (5,376 DoFs)", "7x7x8 cells (142,500 DoFs)", "1 cell"};
  const int expect[3] = {0, -2, 0};
  for (int i = 0; i < 3; ++i) {
    ts_mesh mesh;
    ts_fe fe;
    ts_mg mg = NULL;
    ts_mesh_create_box(3, lower, upper, meshes[i], 0, &mesh);
    ts_fe_create_q(3, i == 0 ? 5 : 7, &fe);
    const int ierr = ts_mg_create(be, mesh, fe, 0, NULL, &mg);
    ok(!ierr && ts_mg_coarse_level(mg) == expect[i],
       "3D Q%d on %s, coarse degree auto: lowest level %d (expected %d)", i == 0 ? 5 : 7,
       names[i], ierr ? 99 : ts_mg_coarse_level(mg), expect[i]);
    ts_mg_destroy(&mg);
    ts_fe_destroy(&fe);
    ts_mesh_destroy(&mesh);
  }
}

static void check_refused(ts_backend be) {
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int one[2] = {1, 1};
  ts_mesh mesh;
  ts_fe fe;
  ts_mg mg = NULL;
  ts_mg_options o;
  ts_mesh_create_box(2, lower, upper, one, 2, &mesh);
  ts_fe_create_q(2, 4, &fe);
  ts_mg_options_default(&o);
  o.coarse_degree = 5;
  ok(ts_mg_create(be, mesh, fe, 2, &o, &mg) == TS_ERR_ARG && !mg &&
         strstr(ts_error_message(), "coarse degree 5, allowed 1..4"),
     "coarse degree above k refused: %s", ts_error_message());
  o.coarse_degree = -1;
  ok(ts_mg_create(be, mesh, fe, 2, &o, &mg) == TS_ERR_ARG && !mg &&
         strstr(ts_error_message(), "coarse degree -1"),
     "negative coarse degree refused: %s", ts_error_message());
  o.coarse_degree = 1;
  ok(ts_mg_create(be, mesh, fe, 2, &o, &mg) == TS_ERR_ARG && !mg &&
         strstr(ts_error_message(), "interior vertex"),
     "degree levels on a 1-cell coarse level refused: %s", ts_error_message());
  o.coarse_level = 1; /* 2x2 cells */
  ok(ts_mg_create(be, mesh, fe, 2, &o, &mg) == 0 && ts_mg_coarse_level(mg) == -1,
     "coarse level 1 (2x2 cells), coarse degree 1: levels -1 (Q1), 0 (Q2), 1, 2 (Q4)");
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be;
  if (ts_backend_open(tap_backend(), &be)) {
    plan(1);
    ok(0, "backend %s opens: %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  plan(7 + 3 + 4);
  const int c2[2] = {3, 3}, c3[3] = {3, 3, 4};
  compare(be, 2, 4, c2, 2, TS_DOUBLE);
  compare(be, 2, 7, c2, 2, TS_DOUBLE);
  compare(be, 2, 7, c2, 1, TS_SINGLE);
  compare(be, 3, 4, c3, 1, TS_DOUBLE);
  compare(be, 3, 7, c3, 0, TS_DOUBLE);
  compare(be, 3, 7, c3, 1, TS_SINGLE);
  compare(be, 3, 3, c3, 1, TS_SINGLE);
  check_auto(be);
  check_refused(be);
  ts_backend_destroy(&be);
  return exit_status();
}
