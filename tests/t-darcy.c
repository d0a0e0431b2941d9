/* t-darcy.c -- the Darcy problem of paper 003 (eq. 2 with gamma = 0) on box meshes by
 * ts_hdiv_system: beta u + grad p = f, div u = g, the fluxes prescribed on some faces and the
 * pressure on the others, in the transformed form [M_beta D^T; D 0] (eqs. 18, 20).
 *   - Optimal L2 rates k + 1 of u and p for the smooth solution ts_darcy_smooth_* (beta = 2),
 *     MINRES + diag(Jacobi(M), AMG(S~)) to 1e-12, 2D k = 0..2 and 3D k = 1.
 *   - The same with every flux prescribed (S~ singular, p up to a constant: orthogonalized
 *     against the constants), the pressure compared after matching its mean.
 *   - GMRES + the block-triangular preconditioner reaches the same solution in fewer
 *     iterations.
 *   - Coefficients per cell: beta varying over four orders of magnitude from cell to cell
 *     along x, the exact solution u = (1, 0), p piecewise linear with p' = -beta, lies in
 *     RT_1 x DGQ_1: reproduced to rounding.
 *   - Figure 7 in small: MINRES iterations to 1e-12 stay bounded under refinement.
 * Backend-generic (TESSERA_TEST_BACKEND); hypre builds only. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"
#include "darcy-solve.h"

/* ---------------------------------------------------------------- the tests */

/* darcy_solve of the smooth solution to 1e-12 */
static int smooth_solve(ts_backend b, ts_mesh mesh, int level, int k, unsigned flux_faces,
                        ts_solver_type type, darcy_result *r) {
  return darcy_solve(b, mesh, level, k, &darcy_smooth, flux_faces, &darcy_smooth_data,
                     ts_darcy_smooth_velocity, ts_darcy_smooth_pressure, type, 1e-12, r);
}

/* L2 errors of u and p on levels 1..levels of [0,1]^dim (2 coarse cells per direction): both
 * rates approach k + 1 (within 0.25 on the finest levels) */
static void test_convergence(ts_backend b, int dim, int k, int levels, unsigned flux_faces,
                             const char *what) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse[3] = {2, 2, 2};
  ts_mesh mesh = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, levels, &mesh);
  double previous[2] = {NAN, NAN}, rate[2] = {NAN, NAN};
  char table[512] = "";
  for (int level = 1; !ierr && level <= levels; ++level) {
    darcy_result r = {0};
    ierr = smooth_solve(b, mesh, level, k, flux_faces, TS_SOLVER_MINRES, &r);
    if (ierr) break;
    if (level > 1) {
      rate[0] = log2(previous[0] / r.error_u);
      rate[1] = log2(previous[1] / r.error_p);
    }
    previous[0] = r.error_u;
    previous[1] = r.error_p;
    snprintf(table + strlen(table), sizeof table - strlen(table), " %.3e/%.3e (%d)", r.error_u,
             r.error_p, r.iterations);
  }
  ok(!ierr && fabs(rate[0] - (k + 1)) < 0.25 && fabs(rate[1] - (k + 1)) < 0.25,
     "%dD RT_%d x DGQ_%d Darcy, %s: L2 errors u/p (MINRES iterations) on levels 1..%d:%s; "
     "last rates %.2f %.2f (k + 1 = %d)", dim, k, k, what, levels, table, rate[0], rate[1], k + 1);
  ts_mesh_destroy(&mesh);
}

/* GMRES and FGMRES + block-triangular against MINRES + block-diagonal: the same errors (to
 * 1e-3 relative, all solved to 1e-12), in fewer iterations */
static void test_triangular(ts_backend b) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {2, 2};
  ts_mesh mesh = NULL;
  darcy_result m = {0}, g = {0}, fg = {0};
  const unsigned faces = TS_FACE_LEFT | TS_FACE_TOP;
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 3, &mesh);
  if (!ierr) ierr = smooth_solve(b, mesh, 3, 2, faces, TS_SOLVER_MINRES, &m);
  if (!ierr) ierr = smooth_solve(b, mesh, 3, 2, faces, TS_SOLVER_GMRES, &g);
  if (!ierr) ierr = smooth_solve(b, mesh, 3, 2, faces, TS_SOLVER_FGMRES, &fg);
  const int same = fabs(g.error_u / m.error_u - 1.0) < 1e-3 &&
                   fabs(g.error_p / m.error_p - 1.0) < 1e-3 &&
                   fabs(fg.error_u / m.error_u - 1.0) < 1e-3 &&
                   fabs(fg.error_p / m.error_p - 1.0) < 1e-3;
  ok(!ierr && same && g.iterations < m.iterations && fg.iterations < m.iterations,
     "2D RT_2 Darcy: GMRES / FGMRES + block-triangular %d / %d iterations, MINRES + "
     "block-diagonal %d; errors u %.3e %.3e, p %.3e %.3e", g.iterations, fg.iterations,
     m.iterations, g.error_u, m.error_u, g.error_p, m.error_p);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- coefficients per cell */

/* beta per cell along x on [0,1]^2 with 8 x 2 cells: u = (1, 0), p' = -beta */
#define LAYERS 8
static double layer_beta(int i) { return pow(10.0, (double)((5 * i) % 4)) * (1.0 + 0.1 * i); }

static int layer_u(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)ctx;
  (void)x;
  for (int64_t q = 0; q < count; ++q) v[q * dim] = 1.0, v[q * dim + 1] = 0.0;
  return 0;
}
static int layer_p(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)ctx;
  for (int64_t q = 0; q < count; ++q) {
    const double t = x[q * dim] * LAYERS;
    int i = (int)floor(t);
    i = i < 0 ? 0 : i >= LAYERS ? LAYERS - 1 : i;
    double p = 0.0; /* p(0) = 0, p' = -beta per layer of width 1/LAYERS */
    for (int j = 0; j < i; ++j) p -= layer_beta(j) / LAYERS;
    v[q] = p - layer_beta(i) * (x[q * dim] - (double)i / LAYERS);
  }
  return 0;
}

static void test_cell_coefficients(ts_backend b) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {LAYERS, 2};
  double beta_cells[2 * LAYERS];
  for (int c = 0; c < 2 * LAYERS; ++c) beta_cells[c] = layer_beta(c % LAYERS);
  const ts_hdiv_coefficients co = {INFINITY, 1.0, NULL, beta_cells};
  const ts_hdiv_data data = {.p_boundary = layer_p, .u_boundary = layer_u};
  ts_mesh mesh = NULL;
  darcy_result r = {0};
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = darcy_solve(b, mesh, 0, 1, &co, TS_FACE_LEFT | TS_FACE_RIGHT, &data, layer_u,
                                layer_p, TS_SOLVER_MINRES, 1e-13, &r);
  ok(!ierr && r.error_u < 1e-9 && r.error_p < 1e-9 * layer_beta(3),
     "2D RT_1 Darcy, beta per cell from %.2g to %.4g along x: u = (1, 0) and the piecewise "
     "linear p reproduced (errors %.1e, %.1e; %d MINRES iterations)", layer_beta(0),
     layer_beta(3), r.error_u, r.error_p, r.iterations);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- Figure 7 in small */

/* MINRES iterations to 1e-12 on the Cartesian Darcy problem with every flux prescribed (the
 * paper's setting: pure flux boundary, section 4.3), levels 0..levels of 2^dim coarse cells,
 * p = k+1 = 2..max_k+1: the finest two levels within 10% of each other for each degree
 * (bounded in h), and the largest count at most 1.5 times the smallest on the finest level
 * (bounded in p). */
static void test_iterations(ts_backend b, int dim, int max_k, int levels) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse[3] = {2, 2, 2};
  ts_mesh mesh = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, levels, &mesh);
  int its[TS_MAX_DEGREE][8] = {{0}}, fewest = 1 << 30, most = 0, plateau = 1;
  char table[512] = "";
  for (int k = 1; !ierr && k <= max_k; ++k) {
    snprintf(table + strlen(table), sizeof table - strlen(table), "%sp = %d:", k > 1 ? "; " : "",
             k + 1);
    for (int level = 0; !ierr && level <= levels; ++level) {
      darcy_result r = {0};
      ierr = smooth_solve(b, mesh, level, k, TS_FACES_ALL(dim), TS_SOLVER_MINRES, &r);
      its[k][level] = r.iterations;
      snprintf(table + strlen(table), sizeof table - strlen(table), " %d", r.iterations);
    }
    if (ierr) break;
    plateau &= 10 * abs(its[k][levels] - its[k][levels - 1]) <= its[k][levels - 1];
    fewest = its[k][levels] < fewest ? its[k][levels] : fewest;
    most = its[k][levels] > most ? its[k][levels] : most;
  }
  ok(!ierr && plateau && 2 * most <= 3 * fewest,
     "%dD Darcy, every flux prescribed, MINRES + diag(Jacobi, AMG) to 1e-12 (preconditioned "
     "norm), iterations on levels 0..%d: %s (the two finest within 10%%, the finest within a "
     "factor 1.5 across p)", dim, levels, table);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- section 4's problems */

/* the constant vector *ctx (dim values) */
static int constant_vector(void *ctx, int dim, int64_t count, const double *x, double *v) {
  (void)x;
  for (int64_t q = 0; q < count; ++q)
    for (int d = 0; d < dim; ++d) v[q * dim + d] = ((const double *)ctx)[d];
  return 0;
}

/* The log-normal field: its contrast exactly the one asked, its geometric mean of the
 * extremes 1, and the same field again for the same seed, another for another seed. */
static void test_lognormal(void) {
  const int64_t cells[3] = {6, 22, 9}, n = 6 * 22 * 9;
  double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  double *c = malloc((size_t)n * sizeof *c), lo = INFINITY, hi = 0.0;
  int ierr = a && b && c ? ts_cell_values_lognormal(3, cells, 1e7, 7, a) : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_cell_values_lognormal(3, cells, 1e7, 7, b);
  if (!ierr) ierr = ts_cell_values_lognormal(3, cells, 1e7, 8, c);
  int same = !ierr, other = 0;
  for (int64_t i = 0; !ierr && i < n; ++i) {
    lo = fmin(lo, a[i]);
    hi = fmax(hi, a[i]);
    same &= a[i] == b[i];
    other |= a[i] != c[i];
  }
  ok(!ierr && fabs(hi / lo / 1e7 - 1.0) < 1e-9 && fabs(hi * lo - 1.0) < 1e-9 && same && other &&
         ts_cell_values_lognormal(3, cells, 0.5, 7, a) == TS_ERR_ARG,
     "log-normal permeability on 6 x 22 x 9 cells: max/min = %.6g, max min = %.6g, "
     "deterministic per seed; contrast 0.5 refused", hi / lo, hi * lo);
  free(a);
  free(b);
  free(c);
}

/* The SPE10-like Darcy problem on 3 x 11 x 5 cells of [0,1200] x [0,2200] x [0,170] (the
 * paper's mesh is 60 x 220 x 85), kappa = 1/K of contrast 1e7, u . n = (1,0,0) . n on every
 * face, p = 2 and 3: MINRES to 1e-12 in at most 120 iterations (doc/hdiv.md: 90-103 on 6 x
 * 22 x 9 cells for p = 2..5). */
static void test_spe10(ts_backend b) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1200, 2200, 170};
  static const int coarse[3] = {3, 11, 5};
  static double u_x[3] = {1, 0, 0};
  const int64_t cells[3] = {3, 11, 5};
  double kappa[3 * 11 * 5];
  ts_mesh mesh = NULL;
  int ierr = ts_mesh_create_box(3, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_cell_values_lognormal(3, cells, 1e7, 2026, kappa);
  for (int c = 0; c < 3 * 11 * 5; ++c) kappa[c] = 1.0 / kappa[c];
  const ts_hdiv_coefficients co = {INFINITY, 1.0, NULL, kappa};
  const ts_hdiv_data data = {.u_boundary = constant_vector, .ctx = u_x};
  char counts[64] = "";
  int bounded = !ierr;
  for (int k = 1; !ierr && k <= 2; ++k) {
    darcy_result r = {0};
    ierr = darcy_solve(b, mesh, 0, k, &co, TS_FACES_ALL(3), &data, NULL, NULL, TS_SOLVER_MINRES,
                       1e-12, &r);
    bounded &= r.iterations <= 120;
    snprintf(counts + strlen(counts), sizeof counts - strlen(counts), " %d", r.iterations);
  }
  ok(!ierr && bounded, "SPE10-like Darcy on 3 x 11 x 5 cells, contrast 1e7, pure flux boundary: "
     "MINRES to 1e-12 in%s iterations for p = 2, 3 (at most 120)", counts);
  ts_mesh_destroy(&mesh);
}

/* The crooked-pipe grad-div problem (two materials, our pipe) in 2D on 28 x 8 cells, f =
 * (1, 0), p = 2..4: MINRES to 1e-12 in at most 110 iterations (doc/hdiv.md: 69-98 on 56 x 16
 * cells for p = 2..6). */
static void test_pipe(ts_backend b) {
  static const double lower[2] = {0, 0}, upper[2] = {7, 2};
  static const int coarse[2] = {14, 4};
  static double f_x[2] = {1, 0};
  double alpha[28 * 8], beta[28 * 8];
  ts_mesh mesh = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 1, &mesh);
  if (!ierr) ierr = ts_cell_values_crooked_pipe(mesh, 1, 1.641, 1.88e-3, alpha);
  if (!ierr) ierr = ts_cell_values_crooked_pipe(mesh, 1, 0.2, 2000.0, beta);
  int inside = 0;
  for (int c = 0; c < 28 * 8; ++c) inside += alpha[c] == 1.641;
  const ts_hdiv_coefficients co = {1.0, 1.0, alpha, beta};
  const ts_hdiv_data data = {.f = constant_vector, .ctx = f_x};
  char counts[64] = "";
  int bounded = !ierr;
  for (int k = 1; !ierr && k <= 3; ++k) {
    darcy_result r = {0};
    ierr = darcy_solve(b, mesh, 1, k, &co, 0, &data, NULL, NULL, TS_SOLVER_MINRES, 1e-12, &r);
    bounded &= r.iterations <= 110;
    snprintf(counts + strlen(counts), sizeof counts - strlen(counts), " %d", r.iterations);
  }
  /* the pipe in cells of 1/4: 10 x 2 at each end, 2 x 6 in each riser, 4 x 2 along the top */
  ok(!ierr && bounded && inside == 2 * (10 * 2) + 2 * (2 * 6) + 4 * 2,
     "crooked pipe (grad-div, two materials), 2D 28 x 8 cells (%d in the pipe): MINRES to "
     "1e-12 in%s iterations for p = 2..4 (at most 110)", inside, counts);
  ts_mesh_destroy(&mesh);
}

static void test_arguments(ts_backend b) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {1, 1};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_hdiv_system s = NULL;
  double bad_cells[4] = {1.0, -2.0, 1.0, 1.0};
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(2, 1, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(2, 1, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 1, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 1, &p);
  const ts_hdiv_coefficients bad = {INFINITY, 1.0, NULL, bad_cells}, good = {1.0, 1.0, NULL, NULL};
  ok(!ierr && ts_hdiv_system_create(b, u, p, &bad, 0, &s) == TS_ERR_ARG && !s &&
         strstr(ts_error_message(), "'beta_cells': cell 1 (of 4) has -2"),
     "Darcy system: a negative beta in cell 1 is refused, naming the cell and the value");
  ok(!ierr && ts_hdiv_system_create(b, u, p, &good, 64, &s) == TS_ERR_ARG && !s &&
         strstr(ts_error_message(), "flux_faces = 0x40"),
     "Darcy system: a face bit beyond the 2D box's four is refused");
  ok(!ierr && ts_hdiv_system_create(b, p, u, &good, 0, &s) == TS_ERR_ARG && !s,
     "Darcy system: the spaces swapped are refused");
  ierr = ierr ? ierr : ts_hdiv_system_create(b, u, p, &good, 0, &s);
  const ts_operator Dt = ierr ? NULL : ts_hdiv_system_block(s, 0, 1);
  ok(!ierr && Dt && ts_operator_size(Dt) == ts_dofs_count(u) &&
         ts_operator_columns(Dt) == ts_dofs_count(p) && ts_hdiv_system_schur_pc(s) &&
         !ts_hdiv_system_block(s, 1, 2) && strstr(ts_error_message(), "block (1, 2)"),
     "Darcy system: block (0, 1) is D^T (%lld x %lld), the Schur block's AMG is there, and "
     "block (1, 2) is refused by name", Dt ? (long long)ts_operator_size(Dt) : -1LL,
     Dt ? (long long)ts_operator_columns(Dt) : -1LL);
  ts_hdiv_system_destroy(&s);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend b = NULL;
  if (ts_backend_open(tap_backend(), &b)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  if (!*ts_hypre_version()) {
    skip(1, "built without hypre: no BoomerAMG for S~");
  } else {
    test_arguments(b);
    for (int k = 0; k <= 2; ++k)
      test_convergence(b, 2, k, 4, TS_FACE_LEFT | TS_FACE_TOP, "fluxes on left and top");
    test_convergence(b, 3, 1, 3, TS_FACE_LEFT | TS_FACE_BACK, "fluxes on left and back");
    test_convergence(b, 2, 1, 4, TS_FACES_ALL(2), "every flux prescribed");
    test_triangular(b);
    test_cell_coefficients(b);
    test_iterations(b, 2, 3, 3);
    test_lognormal();
    test_spe10(b);
    test_pipe(b);
  }
  done_testing();
  ts_backend_destroy(&b);
  return exit_status();
}
