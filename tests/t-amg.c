/* t-amg.c -- our smoothed-aggregation AMG (ts_pc_create_amg, lib/mg/amg.c) against hypre's
 * BoomerAMG on the same matrices: paper 003's approximate Schur complement S~ (2D RT_2 and 3D
 * RT_1, alpha = 0.01, beta = 3, boundary fluxes fixed, as in t-hdiv-schur; the Darcy S~ of
 * `tessera bench --problem darcy`, alpha infinite, beta = 2, fluxes fixed on two faces, 2D
 * RT_3 with the 3 prolongation smoothing steps ts_hdiv_system takes in 2D and 3D RT_2; 2D RT_1
 * and RT_2 on t-darcy-mapped's cells of aspect ratio 3, whose weak couplings the filtered
 * prolongation smoothing must not smear across, and RT_2 on cells of aspect ratio 6, whose
 * first coarse level the aggregation must not chain into long aggregates) and the assembled
 * Q_k Laplacian, CG to 1e-10
 * on A x = 1 with one V-cycle as the preconditioner.
 * Asserted:
 * our counts within 1.3 times BoomerAMG's (rounded up; issue 15) where hypre is built, and
 * growing by at most 2 a refinement; the hierarchy shrinks to the coarse size with an
 * operator complexity below 3 (4 with 3 prolongation smoothing steps); the V-cycle is symmetric (x^T P y = y^T P x); with one level
 * it is the exact inverse (CG in one iteration); a row the filter cannot lump keeps A's
 * entries; bad matrices and options are refused with
 * their row or value named.  Backend-generic: TESSERA_TEST_BACKEND (default omp). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tessera.h"
#include "tap.h"
#include "cg-count.h"

typedef enum { PC_OURS, PC_BOOMERAMG } pc_kind;

/* CG + one V-cycle of the kind on A x = 1 to 1e-10; the iterations, or -1 */
static int cg_iterations(ts_backend b, ts_matrix M, pc_kind kind, const ts_amg_options *o) {
  ts_pc P = NULL;
  const int ierr =
      kind == PC_OURS ? ts_pc_create_amg(b, M, o, &P, NULL) : ts_pc_create_boomeramg(b, M, &P);
  if (ierr) diag("%s", ts_error_message());
  const int iterations = ierr ? -1 : cg_count(b, M, ts_pc_operator(P));
  ts_pc_destroy(&P);
  return iterations;
}

typedef enum { LAPLACIAN, SCHUR, DARCY_SCHUR } matrix_kind;

/* A family of matrices, one per refinement level */
typedef struct family {
  const char *name;
  int dim, k, first, levels; /* refinement levels first..levels */
  matrix_kind kind;          /* S~ of RT_k (ih) x L2 (alpha 0.01 or the Darcy problem's), or
                                the Q_k Laplacian */
  int prolongation_steps;    /* ts_amg_options.prolongation_smoothing_steps, 0: the default */
  int aspect;                /* N: 2N x 2 coarse cells of the unit square, aspect ratio N
                                (3: t-darcy-mapped's mesh); 0: 1 x 2 of [0,1] x [0,2] */
} family;

static int make_matrix(const family *f, ts_mesh mesh, int level, ts_matrix *M) {
  ts_fe u_fe = NULL, p_fe = NULL;
  ts_dofs u = NULL, p = NULL;
  int ierr;
  if (f->kind != LAPLACIAN) {
    ierr = ts_fe_create_rt_ih(f->dim, f->k, &u_fe);
    if (!ierr) ierr = ts_fe_create_l2_ih(f->dim, f->k, &p_fe);
    if (!ierr) ierr = ts_dofs_create(mesh, u_fe, level, &u);
    if (!ierr) ierr = ts_dofs_create(mesh, p_fe, level, &p);
    const ts_hdiv_coefficients schur = {.alpha = 1e-2, .beta = 3.0},
                               darcy = {.alpha = INFINITY, .beta = 2.0};
    const unsigned darcy_faces = TS_FACE_LEFT | (f->dim == 3 ? TS_FACE_BACK : TS_FACE_TOP);
    if (!ierr)
      ierr = f->kind == SCHUR
                 ? ts_matrix_assemble_hdiv_schur(u, p, &schur, TS_FACES_ALL(f->dim), M)
                 : ts_matrix_assemble_hdiv_schur(u, p, &darcy, darcy_faces, M);
  } else {
    ierr = ts_fe_create_q(f->dim, f->k, &u_fe);
    if (!ierr) ierr = ts_dofs_create(mesh, u_fe, level, &u);
    if (!ierr) ierr = ts_matrix_assemble_laplace(u, M);
  }
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&u_fe);
  ts_fe_destroy(&p_fe);
  return ierr;
}

static void test_family(ts_backend b, const family *f) {
  static const double lower[3] = {0, 0, 0}, tall[3] = {1, 2, 1}, unit[3] = {1, 1, 1};
  static const int two[3] = {1, 2, 1};
  const int long_cells[3] = {2 * f->aspect, 2, 2};
  ts_mesh mesh = NULL;
  int ierr = ts_mesh_create_box(f->dim, lower, f->aspect ? unit : tall,
                                f->aspect ? long_cells : two, f->levels, &mesh);
  const int hypre = *ts_hypre_version() != '\0';
  int previous = -1, bounded = 1, within = 1;
  char ours[128] = "", theirs[128] = "";
  ts_amg_options o;
  ts_amg_options_default(&o);
  if (f->prolongation_steps) o.prolongation_smoothing_steps = f->prolongation_steps;
  /* two smoothing steps of the prolongation widen the coarse stencils (3D S~: about 2.6);
   * three, about 3.8 in 3D and 2.5 in 2D (lib/mg/amg.c) */
  const double complexity_bound = o.prolongation_smoothing_steps > 2 ? 4.0 : 3.0;
  for (int level = f->first; !ierr && level <= f->levels; ++level) {
    ts_matrix M = NULL;
    ierr = make_matrix(f, mesh, level, &M);
    const int its = ierr ? -1 : cg_iterations(b, M, PC_OURS, &o);
    bounded &= its > 0 && (previous < 0 || its <= previous + 2);
    previous = its;
    snprintf(ours + strlen(ours), sizeof ours - strlen(ours), " %d", its);
    if (!ierr && hypre) {
      const int ref = cg_iterations(b, M, PC_BOOMERAMG, NULL);
      within &= ref > 0 && its <= (int)ceil(1.3 * ref);
      snprintf(theirs + strlen(theirs), sizeof theirs - strlen(theirs), " %d", ref);
    }
    if (!ierr && level == f->levels) {
      ts_amg_hierarchy h;
      ts_pc P = NULL;
      ierr = ts_pc_create_amg(b, M, &o, &P, &h);
      int shrinks = !ierr && h.levels >= 2 && h.rows[h.levels - 1] <= 200;
      for (int l = 1; shrinks && l < h.levels; ++l) shrinks &= h.rows[l] < h.rows[l - 1];
      ok(shrinks && h.operator_complexity < complexity_bound, "%s level %d: %d AMG levels, "
         "%lld -> %lld rows, operator complexity %.2f (< %g)", f->name, level, h.levels,
         (long long)h.rows[0], (long long)h.rows[h.levels - 1], h.operator_complexity,
         complexity_bound);
      ts_pc_destroy(&P);
    }
    ts_matrix_destroy(&M);
  }
  if (ierr) {
    ok(0, "%s: matrices assembled and solved", f->name);
    diag("%s", ts_error_message());
  } else {
    ok(bounded, "%s levels %d..%d: CG + our AMG to 1e-10 in%s iterations (growing by at most 2 "
       "a level)", f->name, f->first, f->levels, ours);
    if (hypre)
      ok(within, "%s: our counts%s within 1.3x BoomerAMG's%s", f->name, ours, theirs);
    else {
      char reason[160];
      snprintf(reason, sizeof reason, "%s: built without hypre, no BoomerAMG to compare with",
               f->name);
      skip(1, reason);
    }
  }
  ts_mesh_destroy(&mesh);
}

/* x^T P y = y^T P x for random x, y, and one level (coarse_size >= rows) is the exact
 * inverse: CG converges in one iteration */
static void test_symmetry_and_exactness(ts_backend b) {
  const family f = {"2D Q2 Laplacian", 2, 2, 2, 4, LAPLACIAN, 0, 0};
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 2, 1};
  static const int coarse[3] = {1, 2, 1};
  ts_mesh mesh = NULL;
  ts_matrix M = NULL;
  ts_pc P = NULL;
  ts_vec x = NULL, y = NULL, px = NULL, py = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 4, &mesh);
  if (!ierr) ierr = make_matrix(&f, mesh, 4, &M);
  const int64_t n = ierr ? 0 : ts_matrix_rows(M);
  if (!ierr) ierr = ts_pc_create_amg(b, M, NULL, &P, NULL);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &px);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &py);
  if (!ierr) ierr = ts_vec_set_random(x, 11);
  if (!ierr) ierr = ts_vec_set_random(y, 12);
  if (!ierr) ierr = ts_pc_apply(P, x, px);
  if (!ierr) ierr = ts_pc_apply(P, y, py);
  double ypx = 0.0, xpy = 0.0, nx = 0.0, npy = 0.0;
  if (!ierr) ierr = ts_vec_dot(y, px, &ypx);
  if (!ierr) ierr = ts_vec_dot(x, py, &xpy);
  if (!ierr) ierr = ts_vec_norm(x, &nx);
  if (!ierr) ierr = ts_vec_norm(py, &npy);
  const double asym = fabs(ypx - xpy) / (nx * npy);
  ok(!ierr && asym < 1e-12, "%s (%lld rows): the V-cycle is symmetric, |y^T P x - x^T P y| / "
     "(|x| |P y|) = %.1e", f.name, (long long)n, asym);
  if (ierr) diag("%s", ts_error_message());
  ts_amg_options o;
  ts_amg_options_default(&o);
  o.coarse_size = 8000;
  ts_matrix small = NULL;
  if (!ierr) ierr = make_matrix(&f, mesh, 2, &small);
  const int its = ierr ? -1 : cg_iterations(b, small, PC_OURS, &o);
  ok(its == 1, "%s level 2 with coarse_size 8000: one level, the exact inverse (CG in %d "
     "iteration)", f.name, its);
  ts_matrix_destroy(&small);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&px);
  ts_vec_destroy(&py);
  ts_pc_destroy(&P);
  ts_matrix_destroy(&M);
  ts_mesh_destroy(&mesh);
}

/* with max_levels 1 the coarsening stops at once, above the dense solve's 8000 rows */
static void test_stalled_coarsening(ts_backend b) {
  const family f = {"2D Q1 Laplacian", 2, 1, 6, 6, LAPLACIAN, 0, 0};
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 2, 1};
  static const int coarse[3] = {1, 2, 1};
  ts_mesh mesh = NULL;
  ts_matrix M = NULL;
  ts_pc P = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 6, &mesh);
  if (!ierr) ierr = make_matrix(&f, mesh, 6, &M);
  ts_amg_options o;
  ts_amg_options_default(&o);
  o.max_levels = 1;
  if (!ierr) ierr = ts_pc_create_amg(b, M, &o, &P, NULL);
  ok(ierr == TS_ERR_ARG && !P && strstr(ts_error_message(), "stopped at 8385 rows on level 0") &&
         strstr(ts_error_message(), "raise max_levels"),
     "a coarsening that stalls above the dense solve's size is refused, saying what to change "
     "(%s)", ts_error_message());
  ts_matrix_destroy(&M);
  ts_mesh_destroy(&mesh);
}

/* A star: row 0 coupled by -0.5 to row 1 (strong) and by -0.04 to rows 2..31 (weak, below
 * 0.12 times 0.5), every diagonal 1 (SPD: 0.5^2 + 30 * 0.04^2 < 1).  Lumping row 0's weak
 * couplings would leave it the diagonal 1 - 1.2 < 0: the filter keeps the row whole, and
 * with every other coupling strong and negative A_F = A, so the V-cycle is that of
 * prolongation_filter 0 (the same CG iterations) */
static void test_filter_keeps_row(ts_backend b) {
  enum { N = 32 };
  int64_t r[3 * N], c[3 * N];
  double v[3 * N];
  int m = 0;
  for (int i = 0; i < N; ++i) {
    r[m] = c[m] = i;
    v[m++] = 1.0;
    if (!i) continue;
    const double coupling = i == 1 ? -0.5 : -0.04;
    r[m] = 0, c[m] = i, v[m++] = coupling;
    r[m] = i, c[m] = 0, v[m++] = coupling;
  }
  ts_matrix A = NULL;
  int ierr = ts_matrix_create_triplets(N, N, m, r, c, v, &A);
  ts_amg_options o;
  ts_amg_options_default(&o);
  o.coarse_size = 1;
  ts_amg_hierarchy h = {0};
  ts_pc P = NULL;
  if (!ierr) ierr = ts_pc_create_amg(b, A, &o, &P, &h);
  if (ierr) diag("%s", ts_error_message());
  const int filtered = ierr ? -1 : cg_iterations(b, A, PC_OURS, &o);
  o.prolongation_filter = 0;
  const int plain = ierr ? -1 : cg_iterations(b, A, PC_OURS, &o);
  ok(!ierr && h.levels == 2 && filtered > 0 && filtered == plain, "a row whose lumped diagonal "
     "would be negative stays unfiltered: %d AMG levels, CG in %d iterations (unfiltered %d)",
     h.levels, filtered, plain);
  ts_pc_destroy(&P);
  ts_matrix_destroy(&A);
}

static void test_refusals(ts_backend b) {
  /* [2 -1 0; -1 2 -1; 0 -0.5 2]: not symmetric at (2, 1); [1 0; 0 -1]: row 1 not positive */
  static const int64_t r[7] = {0, 0, 1, 1, 1, 2, 2}, c[7] = {0, 1, 0, 1, 2, 1, 2};
  static const double v[7] = {2, -1, -1, 2, -1, -0.5, 2};
  static const int64_t dr[2] = {0, 1}, dc[2] = {0, 1};
  static const double dv[2] = {1, -1};
  ts_matrix N = NULL, D = NULL;
  ts_pc P = NULL;
  ts_matrix_create_triplets(3, 3, 7, r, c, v, &N);
  ts_matrix_create_triplets(2, 2, 2, dr, dc, dv, &D);
  int ierr = ts_pc_create_amg(b, N, NULL, &P, NULL);
  ok(ierr == TS_ERR_ARG && !P && strstr(ts_error_message(), "not symmetric (row 1, column 2)"),
     "a non-symmetric matrix is refused, naming the entry (%s)", ts_error_message());
  ts_amg_options o;
  ts_amg_options_default(&o);
  o.coarse_size = 1;
  ierr = ts_pc_create_amg(b, D, &o, &P, NULL);
  ok(ierr == TS_ERR_ARG && !P && strstr(ts_error_message(), "row 1 is -1"),
     "a non-positive diagonal entry is refused, naming the row (%s)", ts_error_message());
  ts_amg_options_default(&o);
  o.strength_threshold = 1.0;
  ierr = ts_pc_create_amg(b, D, &o, &P, NULL);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "strength_threshold = 1"),
     "strength_threshold 1 is refused (%s)", ts_error_message());
  ts_amg_options_default(&o);
  o.smoother_degree = 0;
  ierr = ts_pc_create_amg(b, D, &o, &P, NULL);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "smoother_degree = 0, allowed 1..20"),
     "smoother_degree 0 is refused (%s)", ts_error_message());
  ts_amg_options_default(&o);
  o.host_products = 2;
  ierr = ts_pc_create_amg(b, D, &o, &P, NULL);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "host_products = 2"),
     "host_products 2 is refused (%s)", ts_error_message());
  ts_amg_options_default(&o);
  o.prolongation_filter = 2;
  ierr = ts_pc_create_amg(b, D, &o, &P, NULL);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "prolongation_filter = 2"),
     "prolongation_filter 2 is refused (%s)", ts_error_message());
  ts_amg_options_default(&o);
  o.coarse_size = 9000;
  ierr = ts_pc_create_amg(b, D, &o, &P, NULL);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "coarse_size = 9000"),
     "coarse_size 9000 is refused (%s)", ts_error_message());
  ok(ts_pc_create_amg(NULL, D, NULL, &P, NULL) == TS_ERR_ARG && !P &&
         ts_pc_create_amg(b, NULL, NULL, &P, NULL) == TS_ERR_ARG &&
         ts_pc_create_amg(b, D, NULL, NULL, NULL) == TS_ERR_ARG,
     "NULL backend, matrix or output are refused");
  ts_matrix_destroy(&N);
  ts_matrix_destroy(&D);
}

int main(void) {
  ts_backend b = NULL;
  if (ts_backend_open(tap_backend(), &b)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  static const family families[] = {
      {"2D RT_2 S~", 2, 2, 2, 6, SCHUR, 0, 0},
      {"3D RT_1 S~", 3, 1, 2, 4, SCHUR, 0, 0},
      {"2D RT_3 Darcy S~", 2, 3, 3, 6, DARCY_SCHUR, 3, 0},
      {"3D RT_2 Darcy S~", 3, 2, 1, 3, DARCY_SCHUR, 0, 0},
      {"2D Q1 Laplacian", 2, 1, 4, 7, LAPLACIAN, 0, 0},
      {"3D Q2 Laplacian", 3, 2, 3, 4, LAPLACIAN, 0, 0},
      /* the prolongation smoothed with A (prolongation_filter 0, theta 0.1): RT_2 10 16 26
       * iterations on levels 3..5 with BoomerAMG's 10 10 10; with A_F 7 7 8 (lib/mg/amg.c) */
      {"2D RT_1 Darcy S~ on cells of aspect ratio 3", 2, 1, 3, 5, DARCY_SCHUR, 3, 3},
      {"2D RT_2 Darcy S~ on cells of aspect ratio 3", 2, 2, 3, 5, DARCY_SCHUR, 3, 3},
      /* pass 2 of the aggregation without its bound on the aggregates' size chained a line
       * of rows into one aggregate of 202 on the first coarse level: 13 19 27 iterations on
       * levels 3..5 with BoomerAMG's 8 9 10; with the bound 8 9 11 (lib/mg/amg.c) */
      {"2D RT_2 Darcy S~ on cells of aspect ratio 6", 2, 2, 3, 5, DARCY_SCHUR, 3, 6},
  };
  for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i) test_family(b, &families[i]);
  test_symmetry_and_exactness(b);
  test_stalled_coarsening(b);
  test_filter_keeps_row(b);
  test_refusals(b);
  done_testing();
  ts_backend_destroy(&b);
  return exit_status();
}
