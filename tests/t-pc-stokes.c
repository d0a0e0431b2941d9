/* t-pc-stokes.c -- the Stokes system of RT_k x DGQ_k (paper 000's manufactured problem, as
 * tests/stokes-solve.c sets it up) through the block layer, per mesh level:
 *  (a) MINRES on the symmetric form [A B^T; B 0] (ts_operator_create_stokes_symmetric) with
 *      the block-diagonal preconditioner diag(A~^{-1}, M_p^{-1}): A~^{-1} an inner CG on the
 *      velocity block preconditioned by Chebyshev (degree 3) on D^{-1} A to 1e-10 (there is
 *      no multigrid hierarchy for the velocity block alone), M_p^{-1} the diagonal inverse
 *      pressure mass; the pressure mean is removed after the solve (the system is singular
 *      by the constant pressure);
 *  (b) FGMRES on Acal with the upper block-triangular preconditioner [A~ B^T; 0 M_p]^{-1},
 *      A~^{-1} the same inner CG to 1e-6 (to 1e-2 the counts grow with the level: a fixed
 *      residual reduction is a worse A~^{-1} in the energy norm as A's condition grows);
 *  (c) GMRES + the Stokes vertex-patch V-cycle as a ts_pc (ts_pc_create_mg,
 *      ts_solver_set_pc): the iterations and errors of the same solve with the V-cycle
 *      operator (stokes_solve, the driver of t-stokes-mg) exactly.
 *  (d) MINRES on the symmetric form with diag(V_A, M_p^{-1}): V_A one V-cycle on the velocity
 *      block of the Stokes hierarchy (ts_pc_create_stokes_velocity_mg: Chebyshev degree
 *      VCYCLE_DEGREE, one pre- and one post-smoothing step, LU on the coarse level), a fixed symmetric
 *      positive definite operator, so no inner iteration.
 * (a), (b) and (d) reach the L2 errors of (c) to 1e-4 relative, and in 2D (levels 2..4; 5 with
 * the long cases) take iteration counts bounded under refinement ((a), (b): at most MAX_GROWTH more on any level
 * than on level 2; (d): from level 3 on at most MAX_GROWTH more than on the level before,
 * level 2 having a hierarchy of two levels only); 3D runs levels 2 and 3 only (4^3 and 8^3
 * cells), where the counts still grow (those of (a) too: the pressure block's, not the
 * V-cycle's).
 * doc/stokes.md, "Block preconditioners", lists the counts this test prints. */
#include <math.h>
#include <stdlib.h>
#include "stokes-solve.h"
#include "tap.h"
#include "tessera.h"

#define OUTER_RTOL 1e-10
#define INNER_RTOL 1e-10
#define LOOSE_RTOL 1e-6
#define ERROR_TOLERANCE 1e-4
#define MAX_GROWTH 2
#define VCYCLE_DEGREE 6 /* Chebyshev degree of the velocity V-cycle: CG on A with it takes 6..8
                           iterations on 2D RT_2 levels 2..5 and 3D RT_1 levels 2..3 (degree 3:
                           11..14), and MINRES 34 41 on 2D levels 2 4 (degree 3: 40 50) */

typedef struct block_result {
  int iterations;
  double velocity_l2, pressure_l2;
} block_result;

/* one level: the hierarchy (for its operator and DoFs and for (c)), right side, solution */
typedef struct level_setup {
  ts_mesh mesh;
  ts_mg mg;
  ts_operator stokes;      /* borrowed from mg */
  ts_dofs u, p;
  int64_t n;
  double *b, *x;           /* host */
  ts_vec bv, xv;
  const ts_stokes_solution *sol;
} level_setup;

static int level_create(ts_backend be, int dim, int k, int level, level_setup *l) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int cells[3] = {1, 1, 1};
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 1;
  TS_CALL(ts_stokes_solution_by_name("paper000", &l->sol));
  TS_CALL(ts_mesh_create_box(dim, lower, upper, cells, level, &l->mesh));
  TS_CALL(ts_mg_create_stokes(be, l->mesh, k, level, &o, &l->mg));
  l->stokes = ts_mg_operator(l->mg);
  l->u = ts_mg_dofs(l->mg);
  l->p = ts_mg_pressure_dofs(l->mg);
  l->n = ts_operator_size(l->stokes);
  l->b = calloc((size_t)l->n, sizeof *l->b);
  l->x = calloc((size_t)l->n, sizeof *l->x);
  if (!l->b || !l->x) return TS_ERR_MEMORY;
  TS_CALL(ts_stokes_assemble_rhs(l->u, l->p, l->sol, l->b));
  TS_CALL(ts_vec_create(be, l->n, TS_DOUBLE, &l->bv));
  TS_CALL(ts_vec_create(be, l->n, TS_DOUBLE, &l->xv));
  TS_CALL(ts_vec_set_from_host(l->bv, l->b));
  return 0;
}

static void level_destroy(level_setup *l) {
  ts_vec_destroy(&l->bv);
  ts_vec_destroy(&l->xv);
  free(l->b);
  free(l->x);
  ts_mg_destroy(&l->mg);
  ts_mesh_destroy(&l->mesh);
}

/* solve op x = b from x = 0 with the solver and pc, remove the pressure mean, errors */
static int solve(level_setup *l, ts_solver_type type, ts_operator op, ts_pc pc, double rtol,
                 block_result *r) {
  ts_solver s = NULL;
  int ierr = ts_solver_create(type, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, op);
  if (!ierr) ierr = ts_solver_set_pc(s, pc);
  if (!ierr && type != TS_SOLVER_MINRES) ierr = ts_solver_set_restart(s, 30);
  if (!ierr) ierr = ts_solver_set_tolerances(s, rtol, 300);
  if (!ierr) ierr = ts_vec_set(l->xv, 0.0);
  if (!ierr) ierr = ts_solver_solve(s, l->bv, l->xv);
  r->iterations = ts_solver_iterations(s);
  if (!ierr) ierr = ts_stokes_pressure_mean_remove(l->stokes, l->xv);
  if (!ierr) ierr = ts_vec_get_to_host(l->xv, l->x);
  if (!ierr)
    ierr = ts_stokes_compute_errors(l->u, l->p, l->x, l->sol, &r->velocity_l2, &r->pressure_l2);
  ts_solver_destroy(&s);
  return ierr;
}

/* the velocity block and the inner CG (Chebyshev on D^{-1} A) on it, the pressure mass */
typedef struct block_pcs {
  ts_operator A, BT, symmetric;
  ts_pc chebyshev, a_exact, a_loose, mass, diagonal, triangular, a_vcycle, diagonal_vcycle;
} block_pcs;

static int block_pcs_create(level_setup *l, block_pcs *p) {
  TS_CALL(ts_operator_create_stokes_block(l->stokes, 0, 0, &p->A));
  TS_CALL(ts_operator_create_stokes_block(l->stokes, 0, 1, &p->BT));
  TS_CALL(ts_operator_create_stokes_symmetric(l->stokes, &p->symmetric));
  TS_CALL(ts_pc_create_chebyshev(p->A, 3, &p->chebyshev));
  TS_CALL(ts_pc_create_krylov(p->A, TS_SOLVER_CG, p->chebyshev, INNER_RTOL, 1000, &p->a_exact));
  TS_CALL(ts_pc_create_krylov(p->A, TS_SOLVER_CG, p->chebyshev, LOOSE_RTOL, 1000, &p->a_loose));
  TS_CALL(ts_pc_create_pressure_mass(l->stokes, &p->mass));
  const ts_pc diagonal[2] = {p->a_exact, p->mass};
  TS_CALL(ts_pc_create_block_diagonal(2, diagonal, &p->diagonal));
  TS_CALL(ts_pc_create_block_triangular(TS_PC_UPPER, p->a_loose, p->BT, p->mass, &p->triangular));
  TS_CALL(ts_pc_create_stokes_velocity_mg(l->mg, VCYCLE_DEGREE, 1, &p->a_vcycle));
  const ts_pc diagonal_vcycle[2] = {p->a_vcycle, p->mass};
  TS_CALL(ts_pc_create_block_diagonal(2, diagonal_vcycle, &p->diagonal_vcycle));
  return 0;
}

static void block_pcs_destroy(block_pcs *p) {
  ts_pc *pcs[] = {&p->diagonal_vcycle, &p->a_vcycle, &p->triangular, &p->diagonal, &p->mass, &p->a_loose, &p->a_exact, &p->chebyshev};
  for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; ++i) ts_pc_destroy(pcs[i]);
  ts_operator_destroy(&p->symmetric);
  ts_operator_destroy(&p->BT);
  ts_operator_destroy(&p->A);
}

/* the right side of the symmetric form: diag(I, -I) b (b_p = 0 here, but in general) */
static int symmetric_rhs(level_setup *l) {
  for (int64_t i = ts_dofs_count(l->u); i < l->n; ++i) l->b[i] = -l->b[i];
  TS_CALL(ts_vec_set_from_host(l->bv, l->b));
  return 0;
}

static int close(double a, double b) { return fabs(a - b) <= ERROR_TOLERANCE * b; }

/* (a), (b), (c), (d) on one level; counts[0..2] the iterations of (a), (b) and (d) */
static void one_level(ts_backend be, int dim, int k, int level, int counts[3]) {
  level_setup l = {0};
  block_pcs p = {0};
  block_result a = {-1, NAN, NAN}, b = {-1, NAN, NAN}, c = {-1, NAN, NAN}, d = {-1, NAN, NAN};
  stokes_result ref = {0};
  const stokes_case rc = {.dim = dim, .degree = k, .level = level,
                          .solver = TS_STOKES_PATCH_SCHUR, .precision = TS_DOUBLE,
                          .rtol = OUTER_RTOL};
  ts_pc mg = NULL;
  int ierr = stokes_solve(be, &rc, &ref);
  if (!ierr) ierr = level_create(be, dim, k, level, &l);
  if (!ierr) ierr = ts_pc_create_mg(l.mg, &mg);
  if (!ierr) ierr = solve(&l, TS_SOLVER_GMRES, l.stokes, mg, OUTER_RTOL, &c);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && c.iterations == ref.iterations && c.velocity_l2 == ref.velocity_l2 &&
         c.pressure_l2 == ref.pressure_l2,
     "%dD RT_%d level %d: GMRES + ts_pc mg: %d iterations, L2 errors u %.4e p %.4e; with the "
     "V-cycle operator %d, %.4e, %.4e", dim, k, level, c.iterations, c.velocity_l2,
     c.pressure_l2, ref.iterations, ref.velocity_l2, ref.pressure_l2);
  ierr = ierr ? ierr : block_pcs_create(&l, &p);
  if (!ierr) ierr = solve(&l, TS_SOLVER_FGMRES, l.stokes, p.triangular, OUTER_RTOL, &b);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && close(b.velocity_l2, c.velocity_l2) && close(b.pressure_l2, c.pressure_l2),
     "%dD RT_%d level %d: FGMRES + block-triangular (CG to %.0e, M_p): %d iterations, L2 "
     "errors u %.4e p %.4e (multigrid GMRES: %.4e %.4e)", dim, k, level, LOOSE_RTOL,
     b.iterations, b.velocity_l2, b.pressure_l2, c.velocity_l2, c.pressure_l2);
  if (!ierr) ierr = symmetric_rhs(&l);
  if (!ierr) ierr = solve(&l, TS_SOLVER_MINRES, p.symmetric, p.diagonal, OUTER_RTOL, &a);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && close(a.velocity_l2, c.velocity_l2) && close(a.pressure_l2, c.pressure_l2),
     "%dD RT_%d level %d: MINRES + block-diagonal (CG to %.0e, M_p): %d iterations, L2 errors "
     "u %.4e p %.4e (multigrid GMRES: %.4e %.4e)", dim, k, level, INNER_RTOL, a.iterations,
     a.velocity_l2, a.pressure_l2, c.velocity_l2, c.pressure_l2);
  if (!ierr) ierr = solve(&l, TS_SOLVER_MINRES, p.symmetric, p.diagonal_vcycle, OUTER_RTOL, &d);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && close(d.velocity_l2, c.velocity_l2) && close(d.pressure_l2, c.pressure_l2),
     "%dD RT_%d level %d: MINRES + block-diagonal (velocity V-cycle, M_p): %d iterations, L2 "
     "errors u %.4e p %.4e (multigrid GMRES: %.4e %.4e)", dim, k, level, d.iterations,
     d.velocity_l2, d.pressure_l2, c.velocity_l2, c.pressure_l2);
  counts[0] = a.iterations;
  counts[1] = b.iterations;
  counts[2] = d.iterations;
  block_pcs_destroy(&p);
  ts_pc_destroy(&mg);
  level_destroy(&l);
}

/* levels first..last; the counts of (a), (b), (d) whose bit is set in bounded (1, 2, 4) stay
 * within MAX_GROWTH of the first level's */
static void refinement(ts_backend be, int dim, int k, int first, int last, int bounded_mask) {
  int counts[8][3] = {{0}};
  for (int level = first; level <= last; ++level) one_level(be, dim, k, level, counts[level - first]);
  const char *names[2] = {"MINRES + block-diagonal (inner CG)", "FGMRES + block-triangular"};
  if (bounded_mask & 4) { /* (d): from level first+1 (first has a 2-level hierarchy) */
    int bounded = counts[1][2] > 0;
    for (int level = first + 2; level <= last; ++level)
      bounded = bounded && counts[level - first][2] <= counts[level - first - 1][2] + MAX_GROWTH;
    ok(bounded, "%dD RT_%d: MINRES + block-diagonal (velocity V-cycle) iterations on levels "
       "%d..%d: %d .. %d, from level %d on at most %d more per level", dim, k, first, last,
       counts[0][2], counts[last - first][2], first + 1, MAX_GROWTH);
    for (int level = first; level <= last; ++level)
      diag("%dD RT_%d level %d: MINRES iterations: inner CG %d, velocity V-cycle %d", dim, k,
           level, counts[level - first][0], counts[level - first][2]);
  }
  for (int m = 0; m < 2; ++m) {
    if (!(bounded_mask & (1 << m))) continue;
    int bounded = counts[0][m] > 0;
    for (int level = first; level <= last; ++level)
      bounded = bounded && counts[level - first][m] <= counts[0][m] + MAX_GROWTH;
    ok(bounded, "%dD RT_%d: %s iterations on levels %d..%d: %d .. %d (at most %d more than on "
       "level %d)", dim, k, names[m], first, last, counts[0][m], counts[last - first][m],
       MAX_GROWTH, first);
  }
}

int main(void) {
  ts_backend be;
  /* 2D level 5 (128^2 cells) only with the long cases: it doubles the test's time */
  const int last_2d = tap_long() ? 5 : 4;
  plan(1 + (4 * (last_2d - 1) + 3) + 2 * 4);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  refinement(be, 2, 2, 2, last_2d, 1 | 2 | 4);
  refinement(be, 3, 1, 2, 3, 0); /* 4^3 and 8^3 cells: pre-asymptotic counts of (a), (b)
                                    (doc/stokes.md), also those of (d) */
  ts_backend_destroy(&be);
  return exit_status();
}
