/* t-pc-jacobi-mg.c -- the pieces of papers 001/004's block-triangular preconditioner: the
 * consistent Q_k mass (ts_operator_create_mass), weighted Jacobi (ts_pc_create_jacobi_weighted),
 * Richardson (ts_pc_create_richardson), and the V-cycles made from parts with weighted Jacobi
 * on a Laplacian hierarchy (ts_pc_create_mg_jacobi) and on the mass (ts_pc_create_mass_mg):
 *  (a) the mass of Q1 and Q2 in 2D and 3D on [0,2] x [0,1] (x [0,1]): 1^T M 1 is the volume,
 *      M is symmetric (|x.My - Mx.y| / (|x| |My|), as below), and its diagonal
 *      (ts_operator_diagonal, the product of the 1D ones) equals e_i^T M e_i probed with unit vectors, all to 1e-13;
 *  (b) weighted Jacobi is weight times Jacobi, and Richardson's m steps are the stationary
 *      iteration z += B (r - A z) written out, to 1e-14;
 *  (c) Richardson with the mass V-cycle (weight 0.6, 3 steps, the papers' choice) solves
 *      M z = r: 3 cycles reduce the residual below RICHARDSON_MASS_REDUCTION on every level
 *      of 2D Q1 2..7 and 3D Q1 2..5, and no level's reduction is worse than MAX_FACTOR_GROWTH
 *      times level 3's (level-independent; level 2 has a cycle of three levels only);
 *  (d) the Jacobi V(3,3)-cycle of a Q2 Laplacian hierarchy as CG's preconditioner, weight 1
 *      (the papers' velocity choice) in 3D and 0.8 in 2D (weight 1 makes the 2D cycle
 *      indefinite: the Q2 Jacobi iteration diverges on some modes, doc/taylor-hood.md
 *      section 7): bounded iterations (at most MAX_GROWTH more than on level 3) and
 *      symmetric to 1e-12;
 *  (e) bad arguments are refused naming the argument and its value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera.h"

static const double lower[3] = {0, 0, 0}, upper[3] = {2, 1, 1};
static const int one_cell[3] = {1, 1, 1};

#define EXACT_TOLERANCE 1e-13
#define SYMMETRY_TOLERANCE 1e-12
#define RICHARDSON_MASS_REDUCTION 0.05
#define MAX_FACTOR_GROWTH 1.5
#define MAX_GROWTH 2

static unsigned long long seed = 2027;
static double random_value(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int random_vec(ts_backend be, int64_t n, ts_vec *v) {
  double *h = malloc((size_t)n * sizeof *h);
  if (!h) return TS_ERR_MEMORY;
  for (int64_t i = 0; i < n; ++i) h[i] = random_value();
  int ierr = ts_vec_create(be, n, TS_DOUBLE, v);
  if (!ierr) ierr = ts_vec_set_from_host(*v, h);
  free(h);
  return ierr;
}

/* |<x, A y> - <A x, y>| / (|x| |A y|): scaled by the sizes of the products' factors, not by
 * <x, A y>, which cancels for random x and y */
static double symmetry(ts_backend be, ts_operator A) {
  const int64_t n = ts_operator_size(A);
  ts_vec x = NULL, y = NULL, ax = NULL, ay = NULL;
  double xay = 0, axy = 0, nx = 0, nay = 0;
  int ierr = random_vec(be, n, &x);
  if (!ierr) ierr = random_vec(be, n, &y);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &ax);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &ay);
  if (!ierr) ierr = ts_operator_apply(A, x, ax);
  if (!ierr) ierr = ts_operator_apply(A, y, ay);
  if (!ierr) ierr = ts_vec_dot(x, ay, &xay);
  if (!ierr) ierr = ts_vec_dot(ax, y, &axy);
  if (!ierr) ierr = ts_vec_norm(x, &nx);
  if (!ierr) ierr = ts_vec_norm(ay, &nay);
  ts_vec_destroy(&x), ts_vec_destroy(&y), ts_vec_destroy(&ax), ts_vec_destroy(&ay);
  return ierr ? INFINITY : fabs(xay - axy) / (nx * nay);
}

/* max |a - b| / max |b| */
static double difference(ts_vec a, ts_vec b) {
  const int64_t n = ts_vec_size(a);
  double *ha = malloc((size_t)n * sizeof *ha), *hb = malloc((size_t)n * sizeof *hb);
  double diff = 0, scale = 0;
  if (!ha || !hb || ts_vec_get_to_host(a, ha) || ts_vec_get_to_host(b, hb)) diff = INFINITY;
  for (int64_t i = 0; isfinite(diff) && i < n; ++i) {
    diff = fmax(diff, fabs(ha[i] - hb[i]));
    scale = fmax(scale, fabs(hb[i]));
  }
  free(ha), free(hb);
  return scale > 0 ? diff / scale : diff;
}

/* ---------------------------------------------------------------- (a) the mass */

/* 1^T M 1, the volume of the box, and max_i |diag_i - e_i^T M e_i| / max |diag| over a few i */
static int mass_checks(ts_backend be, ts_operator M, double *total, double *diagonal_defect) {
  const int64_t n = ts_operator_size(M);
  ts_vec one = NULL, y = NULL, d = NULL, e = NULL;
  double *hd = malloc((size_t)n * sizeof *hd), *he = calloc((size_t)n, sizeof *he);
  double *hy = malloc((size_t)n * sizeof *hy);
  int ierr = hd && he && hy ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &one);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &d);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &e);
  if (!ierr) ierr = ts_vec_set(one, 1.0);
  if (!ierr) ierr = ts_operator_apply(M, one, y);
  if (!ierr) ierr = ts_vec_dot(one, y, total);
  if (!ierr) ierr = ts_operator_diagonal(M, d);
  if (!ierr) ierr = ts_vec_get_to_host(d, hd);
  double defect = 0, scale = 0;
  for (int64_t i = 0; !ierr && i < n; i += 1 + n / 7) { /* a corner, edges, the interior */
    he[i] = 1.0;
    ierr = ts_vec_set_from_host(e, he);
    he[i] = 0.0;
    if (!ierr) ierr = ts_operator_apply(M, e, y);
    if (!ierr) ierr = ts_vec_get_to_host(y, hy);
    defect = fmax(defect, fabs(hd[i] - hy[i]));
    scale = fmax(scale, fabs(hd[i]));
  }
  *diagonal_defect = scale > 0 ? defect / scale : INFINITY;
  ts_vec_destroy(&one), ts_vec_destroy(&y), ts_vec_destroy(&d), ts_vec_destroy(&e);
  free(hd), free(he), free(hy);
  return ierr;
}

static void mass(ts_backend be, int dim, int k, int level) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator M = NULL;
  double total = 0, diagonal = INFINITY;
  int ierr = ts_mesh_create_box(dim, lower, upper, one_cell, level, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, level, &dofs);
  if (!ierr) ierr = ts_operator_create_mass(be, dofs, TS_DOUBLE, &M);
  if (!ierr) ierr = mass_checks(be, M, &total, &diagonal);
  const double sym = ierr ? INFINITY : symmetry(be, M);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && fabs(total - 2.0) < EXACT_TOLERANCE && sym < EXACT_TOLERANCE &&
         diagonal < EXACT_TOLERANCE,
     "%dD Q%d mass, level %d: 1^T M 1 = %.16g (the volume 2), symmetry %.1e, diagonal %.1e",
     dim, k, level, total, sym, diagonal);
  ts_operator_destroy(&M);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- (b) Jacobi and Richardson */

static void jacobi_and_richardson(ts_backend be) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator M = NULL;
  ts_pc jacobi = NULL, weighted = NULL, richardson = NULL;
  ts_vec r = NULL, z = NULL, w = NULL, t = NULL, c = NULL;
  const int m = 4;
  int ierr = ts_mesh_create_box(2, lower, upper, one_cell, 3, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 3, &dofs);
  if (!ierr) ierr = ts_operator_create_mass(be, dofs, TS_DOUBLE, &M);
  const int64_t n = M ? ts_operator_size(M) : 0;
  if (!ierr) ierr = ts_pc_create_jacobi(M, &jacobi);
  if (!ierr) ierr = ts_pc_create_jacobi_weighted(M, 0.6, &weighted);
  if (!ierr) ierr = ts_pc_create_richardson(M, weighted, m, &richardson);
  if (!ierr) ierr = random_vec(be, n, &r);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &z);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &w);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &t);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &c);
  /* weighted = 0.6 jacobi */
  if (!ierr) ierr = ts_pc_apply(jacobi, r, z);
  if (!ierr) ierr = ts_vec_axpby(0.0, z, 0.6, z);
  if (!ierr) ierr = ts_pc_apply(weighted, r, w);
  const double weighted_defect = ierr ? INFINITY : difference(w, z);
  ok(!ierr && weighted_defect < 1e-14, "weighted Jacobi (0.6) is 0.6 times Jacobi: %.1e",
     weighted_defect);
  /* Richardson: z = B r, then m - 1 times z += B (r - M z) */
  if (!ierr) ierr = ts_pc_apply(weighted, r, z);
  for (int i = 1; !ierr && i < m; ++i) {
    ierr = ts_operator_apply(M, z, t);
    if (!ierr) ierr = ts_vec_axpby(1.0, r, -1.0, t);
    if (!ierr) ierr = ts_pc_apply(weighted, t, c);
    if (!ierr) ierr = ts_vec_axpby(1.0, c, 1.0, z);
  }
  if (!ierr) ierr = ts_pc_apply(richardson, r, w);
  const double richardson_defect = ierr ? INFINITY : difference(w, z);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && richardson_defect < 1e-14 && !strcmp(ts_pc_name(richardson), "richardson"),
     "Richardson, %d steps with weighted Jacobi on the Q2 mass, is the iteration written out: "
     "%.1e", m, richardson_defect);
  ts_vec_destroy(&r), ts_vec_destroy(&z), ts_vec_destroy(&w), ts_vec_destroy(&t);
  ts_vec_destroy(&c);
  ts_pc_destroy(&richardson), ts_pc_destroy(&weighted), ts_pc_destroy(&jacobi);
  ts_operator_destroy(&M);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- (c) the mass V-cycle */

/* ||r - M z|| / ||r|| after Richardson(3 mass V(3,3)-cycles) on level `level` */
static int mass_reduction(ts_backend be, int dim, int level, double *reduction) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator M = NULL;
  ts_pc vcycle = NULL, richardson = NULL;
  ts_vec r = NULL, z = NULL, t = NULL;
  double nr = 0, nt = 0;
  int ierr = ts_mesh_create_box(dim, lower, upper, one_cell, level, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, 1, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, level, &dofs);
  if (!ierr) ierr = ts_operator_create_mass(be, dofs, TS_DOUBLE, &M);
  if (!ierr) ierr = ts_pc_create_mass_mg(be, mesh, fe, 0, level, 0.6, 3, &vcycle);
  if (!ierr) ierr = ts_pc_create_richardson(M, vcycle, 3, &richardson);
  const int64_t n = M ? ts_operator_size(M) : 0;
  if (!ierr) ierr = random_vec(be, n, &r);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &z);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &t);
  if (!ierr) ierr = ts_pc_apply(richardson, r, z);
  if (!ierr) ierr = ts_operator_apply(M, z, t);
  if (!ierr) ierr = ts_vec_axpby(1.0, r, -1.0, t);
  if (!ierr) ierr = ts_vec_norm(r, &nr);
  if (!ierr) ierr = ts_vec_norm(t, &nt);
  *reduction = nt / nr;
  if (ierr) diag("%s", ts_error_message());
  ts_vec_destroy(&r), ts_vec_destroy(&z), ts_vec_destroy(&t);
  ts_pc_destroy(&richardson), ts_pc_destroy(&vcycle);
  ts_operator_destroy(&M);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}

static void mass_vcycle(ts_backend be, int dim, int last) {
  double third = 0, worst = 0;
  int ierr = 0;
  char line[256] = "";
  for (int level = 2; level <= last && !ierr; ++level) {
    double reduction = INFINITY;
    ierr = mass_reduction(be, dim, level, &reduction);
    if (level == 3) third = reduction;
    worst = fmax(worst, reduction);
    snprintf(line + strlen(line), sizeof line - strlen(line), " %.2e", reduction);
  }
  ok(!ierr && worst < RICHARDSON_MASS_REDUCTION && worst <= MAX_FACTOR_GROWTH * third,
     "%dD Q1 mass: Richardson with 3 V(3,3)-cycles (Jacobi 0.6) reduces the residual by%s "
     "(levels 2..%d)", dim, line, last);
}

/* ---------------------------------------------------------------- (d) the Laplacian V-cycle */

static int cg_iterations(ts_backend be, ts_operator A, ts_pc pc, int *iterations) {
  ts_solver s = NULL;
  ts_vec b = NULL, x = NULL;
  int ierr = random_vec(be, ts_operator_size(A), &b);
  if (!ierr) ierr = ts_vec_create(be, ts_operator_size(A), TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_CG, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, A);
  if (!ierr) ierr = ts_solver_set_pc(s, pc);
  if (!ierr) ierr = ts_solver_set_tolerances(s, 1e-10, 500);
  if (!ierr) ierr = ts_solver_solve(s, b, x);
  *iterations = s ? ts_solver_iterations(s) : -1;
  ts_solver_destroy(&s);
  ts_vec_destroy(&b), ts_vec_destroy(&x);
  return ierr;
}

static void laplace_vcycle(ts_backend be, int dim, int last, double weight) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, one_cell, last, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, 2, &fe);
  int third = 0, worst = 0;
  double sym = 0;
  char line[128] = "";
  for (int level = 2; level <= last && !ierr; ++level) {
    ts_mg mg = NULL;
    ts_pc pc = NULL;
    ts_mg_options o;
    ts_mg_options_default(&o);
    int its = -1;
    ierr = ts_mg_create(be, mesh, fe, level, &o, &mg);
    if (!ierr) ierr = ts_pc_create_mg_jacobi(mg, weight, 3, &pc);
    if (!ierr) ierr = cg_iterations(be, ts_mg_operator(mg), pc, &its);
    if (!ierr) sym = fmax(sym, symmetry(be, ts_pc_operator(pc)));
    if (level == 3) third = its;
    worst = its > worst ? its : worst;
    snprintf(line + strlen(line), sizeof line - strlen(line), " %d", its);
    ts_pc_destroy(&pc);
    ts_mg_destroy(&mg);
  }
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && worst <= third + MAX_GROWTH && sym < SYMMETRY_TOLERANCE,
     "%dD Q2 Laplacian: CG + Jacobi V(3,3) (weight %g) iterations%s (levels 2..%d), symmetry "
     "%.1e", dim, weight, line, last, sym);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- (e) arguments */

static void refused(int ierr, const void *result, const char *want, const char *what) {
  const char *msg = ts_error_message();
  ok(ierr == TS_ERR_ARG && !result && strstr(msg, want), "%s is refused: %s", what, msg);
}

static void arguments(ts_backend be) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL, q2 = NULL;
  ts_dofs dofs = NULL, dofs2 = NULL;
  ts_operator M = NULL, M2 = NULL;
  ts_mg mg = NULL;
  ts_pc pc = NULL, jacobi = NULL;
  ts_mg_options o;
  ts_mg_options_default(&o);
  int ierr = ts_mesh_create_box(2, lower, upper, one_cell, 2, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &fe);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &q2);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 2, &dofs);
  if (!ierr) ierr = ts_dofs_create(mesh, q2, 2, &dofs2);
  if (!ierr) ierr = ts_operator_create_mass(be, dofs, TS_DOUBLE, &M);
  if (!ierr) ierr = ts_operator_create_mass(be, dofs2, TS_DOUBLE, &M2);
  if (!ierr) ierr = ts_pc_create_jacobi(M2, &jacobi);
  if (!ierr) ierr = ts_mg_create(be, mesh, q2, 2, &o, &mg);
  ok(!ierr, "the objects of the argument checks are made");
  refused(ts_pc_create_jacobi_weighted(M, 2.5, &pc), pc, "weight = 2.5, allowed 0 < weight <= 2",
          "a Jacobi weight of 2.5");
  refused(ts_pc_create_richardson(M, jacobi, 3, &pc), pc, "must agree",
          "a Richardson inner preconditioner of another size");
  ts_pc_destroy(&jacobi);
  if (!ierr) ierr = ts_pc_create_jacobi(M, &jacobi);
  refused(ts_pc_create_richardson(M, jacobi, 0, &pc), pc, "iterations = 0, allowed 1..100",
          "Richardson with 0 iterations");
  refused(ts_pc_create_mg_jacobi(mg, 1.0, 0, &pc), pc, "smoothing_steps = 0, allowed 1..100",
          "a Jacobi V-cycle with 0 smoothing steps");
  refused(ts_pc_create_mass_mg(be, mesh, fe, 3, 2, 0.6, 3, &pc), pc, "levels 3..2",
          "a mass V-cycle from level 3 to level 2");
  ts_operator M7 = NULL;
  refused(ts_operator_create_mass(be, dofs, (ts_precision)7, &M7), M7, "precision 7",
          "a mass in precision 7");
  ts_mg mixed = NULL;
  o.precision = TS_SINGLE;
  if (!ierr) ierr = ts_mg_create(be, mesh, q2, 2, &o, &mixed);
  refused(ts_pc_create_mg_jacobi(mixed, 1.0, 1, &pc), pc,
          "the hierarchy is mixed precision (ts_mg_options.precision = TS_SINGLE), allowed only "
          "TS_DOUBLE", "a Jacobi V-cycle of a mixed-precision hierarchy");
  ts_mg_destroy(&mixed);
  ts_pc_destroy(&jacobi);
  ts_mg_destroy(&mg);
  ts_operator_destroy(&M);
  ts_operator_destroy(&M2);
  ts_dofs_destroy(&dofs);
  ts_dofs_destroy(&dofs2);
  ts_fe_destroy(&fe);
  ts_fe_destroy(&q2);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be;
  plan(1 + 4 + 2 + 2 + 2 + 8);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  mass(be, 2, 1, 3);
  mass(be, 2, 2, 3);
  mass(be, 3, 1, 2);
  mass(be, 3, 2, 2);
  jacobi_and_richardson(be);
  mass_vcycle(be, 2, 7);
  mass_vcycle(be, 3, 5);
  laplace_vcycle(be, 2, 6, 0.8);
  laplace_vcycle(be, 3, 4, 1.0);
  arguments(be);
  ts_backend_destroy(&be);
  return exit_status();
}
