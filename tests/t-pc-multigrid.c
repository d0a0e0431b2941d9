/* t-pc-multigrid.c -- multigrid from parts (ts_pc_create_multigrid, lib/pc/multigrid.c) and
 * the transfers as operators (ts_mg_transfer_operator, ts_mg_velocity_transfer_operator):
 *  (a) the transfers: <P^T x_f, y_c> = <x_f, P y_c> (the restriction is the transpose) for the
 *      Q_2 and the Stokes hierarchy and the velocity block; the Stokes transfer is block
 *      diagonal in (u, p): [u_c; 0] prolongates to [P_u u_c; 0] and [0; p_c] to [0; *], and
 *      the velocity operator is that block exactly;
 *  (b) the Poisson hierarchy (Q_2, 2D levels 2..5) made into a V-cycle from parts (its level
 *      Laplacians and transfers, Chebyshev degree 3 smoothers, a CG coarse solve) as CG's
 *      preconditioner: the iterations of the hierarchy's own V-cycle with the Chebyshev
 *      smoother (ts_pc_create_mg) within one, bounded over the levels (at most 2 more than on
 *      level 2), and the cycle symmetric, x.(P y) = (P x).y to 1e-12 relative;
 *  (c) the velocity-block V-cycle of a Stokes hierarchy (ts_pc_create_stokes_velocity_mg,
 *      2D RT_2 and 3D RT_1) symmetric to 1e-12, and CG on the velocity block A with it
 *      converges in a bounded number of iterations;
 *  (d) argument checks of ts_pc_create_multigrid (the refusals name argument and value);
 *  (e) full multigrid with the parts of (b) (ts_pc_multigrid_fmg_solve), levels 2..5: the true
 *      residual below the tolerance 1e-10 after as many V-cycles as the hierarchy's own
 *      ts_mg_fmg_solve takes, within one; what it refuses.
 * MINRES on the Stokes system with the velocity V-cycle is in t-pc-stokes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera.h"

static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
static const int one_cell[3] = {1, 1, 1};

#define SYMMETRY_TOLERANCE 1e-12
#define MAX_GROWTH 2

static unsigned long long seed = 12345;
static double random_value(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* a vector of n random values in [-1, 1] */
static int random_vec(ts_backend be, int64_t n, ts_vec *v) {
  double *h = malloc((size_t)n * sizeof *h);
  if (!h) return TS_ERR_MEMORY;
  for (int64_t i = 0; i < n; ++i) h[i] = random_value();
  int ierr = ts_vec_create(be, n, TS_DOUBLE, v);
  if (!ierr) ierr = ts_vec_set_from_host(*v, h);
  free(h);
  return ierr;
}

/* |<x, A y> - <A x, y>| / |<x, A y>| for an operator A of n rows and columns */
static int symmetry(ts_backend be, ts_operator A, double *defect) {
  const int64_t n = ts_operator_size(A);
  ts_vec x = NULL, y = NULL, ax = NULL, ay = NULL;
  double xay = 0, axy = 0;
  int ierr = random_vec(be, n, &x);
  if (!ierr) ierr = random_vec(be, n, &y);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &ax);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &ay);
  if (!ierr) ierr = ts_operator_apply(A, x, ax);
  if (!ierr) ierr = ts_operator_apply(A, y, ay);
  if (!ierr) ierr = ts_vec_dot(x, ay, &xay);
  if (!ierr) ierr = ts_vec_dot(ax, y, &axy);
  *defect = fabs(xay - axy) / fabs(xay);
  ts_vec_destroy(&x), ts_vec_destroy(&y), ts_vec_destroy(&ax), ts_vec_destroy(&ay);
  return ierr;
}

/* |<P^T xf, yc> - <xf, P yc>| / (||xf|| ||P yc||) */
static int transpose_defect(ts_backend be, ts_operator P, double *defect) {
  ts_vec xf = NULL, yc = NULL, rx = NULL, py = NULL;
  double a = 0, b = 0, nx = 0, npy = 0;
  ts_operator T = NULL;
  int ierr = random_vec(be, ts_operator_size(P), &xf);
  if (!ierr) ierr = random_vec(be, ts_operator_columns(P), &yc);
  if (!ierr) ierr = ts_vec_create(be, ts_operator_columns(P), TS_DOUBLE, &rx);
  if (!ierr) ierr = ts_vec_create(be, ts_operator_size(P), TS_DOUBLE, &py);
  if (!ierr) ierr = ts_operator_create_transpose(P, &T);
  if (!ierr) ierr = ts_operator_apply(T, xf, rx);
  if (!ierr) ierr = ts_operator_apply(P, yc, py);
  if (!ierr) ierr = ts_vec_dot(rx, yc, &a);
  if (!ierr) ierr = ts_vec_dot(xf, py, &b);
  if (!ierr) ierr = ts_vec_dot(xf, xf, &nx);
  if (!ierr) ierr = ts_vec_dot(py, py, &npy);
  *defect = fabs(a - b) / sqrt(nx * npy);
  ts_operator_destroy(&T);
  ts_vec_destroy(&xf), ts_vec_destroy(&yc), ts_vec_destroy(&rx), ts_vec_destroy(&py);
  return ierr;
}

/* CG on A x = b (b random, x = 0 first) with pc to 1e-10: iterations */
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

/* ---------------------------------------------------------------- the parts of a hierarchy */

typedef struct parts {
  int n;
  ts_operator A[32], P[32];
  ts_pc smoothers[32], coarse_jacobi, coarse;
} parts;

/* the Laplace hierarchy's levels, transfers, Chebyshev smoothers and a CG coarse solve */
static int parts_create(ts_mg mg, int finest, parts *p) {
  const int lowest = ts_mg_coarse_level(mg);
  p->n = finest - lowest + 1;
  for (int i = 0; i < p->n; ++i) p->A[i] = ts_mg_level_operator(mg, lowest + i);
  for (int i = 1; i < p->n; ++i) {
    TS_CALL(ts_mg_transfer_operator(mg, lowest + i, &p->P[i]));
    TS_CALL(ts_pc_create_chebyshev(p->A[i], 3, &p->smoothers[i]));
  }
  TS_CALL(ts_pc_create_jacobi(p->A[0], &p->coarse_jacobi));
  TS_CALL(ts_pc_create_krylov(p->A[0], TS_SOLVER_CG, p->coarse_jacobi, 1e-14, 1000, &p->coarse));
  return 0;
}

static void parts_destroy(parts *p) {
  ts_pc_destroy(&p->coarse);
  ts_pc_destroy(&p->coarse_jacobi);
  for (int i = 0; i < p->n; ++i) {
    ts_pc_destroy(&p->smoothers[i]);
    ts_operator_destroy(&p->P[i]);
  }
}

/* ---------------------------------------------------------------- (a) transfers */

/* v = [u; p] of nu + np entries from host parts (either NULL: zero) */
static int stokes_vec(ts_backend be, int64_t nu, int64_t np, int random_u, int random_p,
                      double *h, ts_vec *v) {
  for (int64_t i = 0; i < nu + np; ++i) h[i] = (i < nu ? random_u : random_p) ? random_value() : 0.0;
  TS_CALL(ts_vec_create(be, nu + np, TS_DOUBLE, v));
  TS_CALL(ts_vec_set_from_host(*v, h));
  return 0;
}

/* the Stokes transfer into `level` on [u_c; 0] and [0; p_c], against the velocity operator */
static void stokes_blocks(ts_backend be, ts_mg mg, int level, const char *name) {
  ts_operator P = NULL, Pu = NULL;
  ts_vec c = NULL, f = NULL, uc = NULL, uf = NULL;
  const int64_t nuc = ts_operator_columns(ts_mg_level_operator(mg, level - 1)),
                nuf_all = ts_operator_size(ts_mg_level_operator(mg, level));
  int ierr = ts_mg_transfer_operator(mg, level, &P);
  if (!ierr) ierr = ts_mg_velocity_transfer_operator(mg, level, &Pu);
  const int64_t ucount = ierr ? 0 : ts_operator_columns(Pu), ufcount = ierr ? 0 : ts_operator_size(Pu);
  double *hc = calloc((size_t)nuc, sizeof *hc), *hf = calloc((size_t)nuf_all, sizeof *hf),
         *hu = calloc((size_t)nuf_all, sizeof *hu);
  double velocity_diff = INFINITY, pressure_max = INFINITY, cross_max = INFINITY;
  if (!hc || !hf || !hu) ierr = TS_ERR_MEMORY;
  /* [u_c; 0] -> [P_u u_c; 0] */
  if (!ierr) ierr = stokes_vec(be, ucount, nuc - ucount, 1, 0, hc, &c);
  if (!ierr) ierr = ts_vec_create(be, nuf_all, TS_DOUBLE, &f);
  if (!ierr) ierr = ts_operator_apply(P, c, f);
  if (!ierr) ierr = ts_vec_create_view(c, 0, ucount, &uc);
  if (!ierr) ierr = ts_vec_create(be, ufcount, TS_DOUBLE, &uf);
  if (!ierr) ierr = ts_operator_apply(Pu, uc, uf);
  if (!ierr) ierr = ts_vec_get_to_host(f, hf);
  if (!ierr) ierr = ts_vec_get_to_host(uf, hu);
  if (!ierr) {
    velocity_diff = pressure_max = 0.0;
    for (int64_t i = 0; i < ufcount; ++i) velocity_diff = fmax(velocity_diff, fabs(hf[i] - hu[i]));
    for (int64_t i = ufcount; i < nuf_all; ++i) pressure_max = fmax(pressure_max, fabs(hf[i]));
  }
  ts_vec_destroy(&uc), ts_vec_destroy(&c);
  /* [0; p_c] -> [0; *] */
  if (!ierr) ierr = stokes_vec(be, ucount, nuc - ucount, 0, 1, hc, &c);
  if (!ierr) ierr = ts_operator_apply(P, c, f);
  if (!ierr) ierr = ts_vec_get_to_host(f, hf);
  if (!ierr) {
    cross_max = 0.0;
    for (int64_t i = 0; i < ufcount; ++i) cross_max = fmax(cross_max, fabs(hf[i]));
  }
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && velocity_diff == 0.0 && pressure_max == 0.0 && cross_max == 0.0,
     "%s level %d: the transfer is block diagonal in (u, p): [u_c; 0] -> [P_u u_c; 0] "
     "(velocity differs by %.1e, pressure max %.1e), [0; p_c] -> velocity max %.1e", name,
     level, velocity_diff, pressure_max, cross_max);
  double d1 = INFINITY, d2 = INFINITY;
  if (!ierr) ierr = transpose_defect(be, P, &d1);
  if (!ierr) ierr = transpose_defect(be, Pu, &d2);
  ok(!ierr && d1 <= 1e-14 && d2 <= 1e-14,
     "%s level %d: <P^T x, y> = <x, P y> to %.1e ([u; p]) and %.1e (velocity), allowed 1e-14",
     name, level, d1, d2);
  free(hc), free(hf), free(hu);
  ts_vec_destroy(&c), ts_vec_destroy(&f), ts_vec_destroy(&uf);
  ts_operator_destroy(&Pu), ts_operator_destroy(&P);
}

static void transfers(ts_backend be) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  ts_operator P = NULL;
  double d = INFINITY;
  int ierr = ts_mesh_create_box(2, lower, upper, one_cell, 3, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_mg_create(be, mesh, fe, 3, NULL, &mg);
  if (!ierr) ierr = ts_mg_transfer_operator(mg, 3, &P);
  if (!ierr) ierr = transpose_defect(be, P, &d);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && d <= 1e-14 && ts_operator_size(P) == ts_operator_size(ts_mg_level_operator(mg, 3)) &&
         ts_operator_columns(P) == ts_operator_size(ts_mg_level_operator(mg, 2)),
     "Q_2 level 3: the transfer operator is %lld x %lld, <P^T x, y> = <x, P y> to %.1e",
     P ? (long long)ts_operator_size(P) : -1LL, P ? (long long)ts_operator_columns(P) : -1LL, d);
  ts_operator_destroy(&P);
  ierr = ts_mg_velocity_transfer_operator(mg, 3, &P);
  ok(ierr == TS_ERR_ARG && !P && strstr(ts_error_message(), "a Stokes one"),
     "the velocity transfer of a Q_k hierarchy is refused: %s", ts_error_message());
  ierr = ts_mg_transfer_operator(mg, 0, &P);
  ok(ierr == TS_ERR_ARG && !P && strstr(ts_error_message(), "level 0, allowed 1..3"),
     "level 0 (the coarsest) has no transfer: %s", ts_error_message());
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  for (int dim = 2; dim <= 3; ++dim) {
    ts_mg_options o;
    ts_mg_options_default(&o);
    o.coarse_level = 1;
    const int level = dim == 2 ? 3 : 2;
    ierr = ts_mesh_create_box(dim, lower, upper, one_cell, level, &mesh);
    if (!ierr) ierr = ts_mg_create_stokes(be, mesh, dim == 2 ? 2 : 1, level, &o, &mg);
    if (ierr) diag("%s", ts_error_message());
    if (!ierr) stokes_blocks(be, mg, level, dim == 2 ? "2D RT_2" : "3D RT_1");
    else ok(0, "Stokes hierarchy %dD", dim), ok(0, "Stokes hierarchy %dD", dim);
    ts_mg_destroy(&mg);
    ts_mesh_destroy(&mesh);
  }
}

/* ---------------------------------------------------------------- (b) Poisson */

/* level: CG iterations with the V-cycle from parts and with the hierarchy's own one */
static void poisson_level(ts_backend be, int level, int counts[2]) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  ts_pc pc = NULL, own = NULL;
  parts p = {0};
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  o.chebyshev_degree = 3;
  double defect = INFINITY;
  counts[0] = counts[1] = -1;
  int ierr = ts_mesh_create_box(2, lower, upper, one_cell, level, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_mg_create(be, mesh, fe, level, &o, &mg);
  if (!ierr) ierr = parts_create(mg, level, &p);
  if (!ierr) ierr = ts_pc_create_multigrid(p.n, p.A, p.P, p.smoothers, 1, p.coarse, &pc);
  if (!ierr) ierr = ts_pc_create_mg(mg, &own);
  if (!ierr) ierr = cg_iterations(be, ts_mg_operator(mg), pc, &counts[0]);
  if (!ierr) ierr = cg_iterations(be, ts_mg_operator(mg), own, &counts[1]);
  if (!ierr) ierr = symmetry(be, ts_pc_operator(pc), &defect);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && !strcmp(ts_pc_name(pc), "multigrid-levels") && abs(counts[0] - counts[1]) <= 1 &&
         defect <= SYMMETRY_TOLERANCE,
     "2D Q_2 level %d (%d levels): CG + V-cycle from parts %d iterations (the hierarchy's "
     "Chebyshev V-cycle %d), x.(P y) - (P x).y relative %.1e", level, p.n, counts[0], counts[1],
     defect);
  ts_pc_destroy(&own);
  ts_pc_destroy(&pc);
  parts_destroy(&p);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

static void poisson(ts_backend be) {
  int counts[4][2];
  for (int level = 2; level <= 5; ++level) poisson_level(be, level, counts[level - 2]);
  int bounded = counts[0][0] > 0;
  for (int i = 0; i < 4; ++i) bounded = bounded && counts[i][0] <= counts[0][0] + MAX_GROWTH;
  ok(bounded, "2D Q_2 levels 2..5: CG + V-cycle from parts %d %d %d %d iterations (at most %d "
     "more than on level 2)", counts[0][0], counts[1][0], counts[2][0], counts[3][0], MAX_GROWTH);
}

/* ---------------------------------------------------------------- (e) full multigrid */

/* FMG with the parts' V-cycle and with the hierarchy's own on level `level`: the V-cycles
 * after the nested iteration (its[0], its[1]) and the parts' true relative residual */
static int fmg_level(ts_backend be, int level, int its[2], double *residual) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  ts_pc pc = NULL;
  ts_vec b = NULL, x = NULL, r = NULL;
  parts p = {0};
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  o.chebyshev_degree = 3;
  int ierr = ts_mesh_create_box(2, lower, upper, one_cell, level, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_mg_create(be, mesh, fe, level, &o, &mg);
  if (!ierr) ierr = parts_create(mg, level, &p);
  if (!ierr) ierr = ts_pc_create_multigrid(p.n, p.A, p.P, p.smoothers, 1, p.coarse, &pc);
  const ts_operator A = ierr ? NULL : ts_mg_operator(mg);
  const int64_t n = A ? ts_operator_size(A) : 0;
  if (!ierr) ierr = random_vec(be, n, &b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &r);
  if (!ierr) ierr = ts_pc_multigrid_fmg_solve(pc, b, x, 1e-10, 50, &its[0]);
  double rn = INFINITY, bn = 1.0;
  if (!ierr) ierr = ts_operator_apply(A, x, r);
  if (!ierr) ierr = ts_vec_axpby(1.0, b, -1.0, r);
  if (!ierr) ierr = ts_vec_norm(r, &rn);
  if (!ierr) ierr = ts_vec_norm(b, &bn);
  *residual = rn / bn;
  if (!ierr) ierr = ts_mg_fmg_solve(mg, b, x, 1e-10, 50, &its[1], NULL);
  if (ierr) diag("%s", ts_error_message());
  ts_vec_destroy(&b), ts_vec_destroy(&x), ts_vec_destroy(&r);
  ts_pc_destroy(&pc);
  parts_destroy(&p);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}

static void fmg(ts_backend be) {
  int its[4][2], ierr = 0, close = 1;
  double worst = 0.0;
  for (int level = 2; level <= 5 && !ierr; ++level) {
    double residual;
    ierr = fmg_level(be, level, its[level - 2], &residual);
    worst = fmax(worst, residual);
    close = close && abs(its[level - 2][0] - its[level - 2][1]) <= 1;
  }
  ok(!ierr && close && worst <= 1e-10, "2D Q_2 levels 2..5: FMG with the parts %d %d %d %d "
     "V-cycles (the hierarchy's own FMG %d %d %d %d), true relative residual at most %.1e",
     its[0][0], its[1][0], its[2][0], its[3][0], its[0][1], its[1][1], its[2][1], its[3][1],
     worst);
  ts_pc jacobi = NULL;
  ts_vec v = NULL;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator L = NULL;
  ierr = ts_mesh_create_box(2, lower, upper, one_cell, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(be, dofs, TS_DOUBLE, &L);
  if (!ierr) ierr = ts_pc_create_jacobi(L, &jacobi);
  if (!ierr) ierr = ts_vec_create(be, ts_operator_size(L), TS_DOUBLE, &v);
  const int not_mg = ierr ? 0 : ts_pc_multigrid_fmg_solve(jacobi, v, v, 1e-8, 10, NULL);
  ok(not_mg == TS_ERR_ARG && strstr(ts_error_message(), "not a multigrid-levels"),
     "ts_pc_multigrid_fmg_solve refuses a Jacobi preconditioner: %s", ts_error_message());
  ts_vec_destroy(&v);
  ts_pc_destroy(&jacobi);
  ts_operator_destroy(&L);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- (c) velocity V-cycle */

static void velocity(ts_backend be, int dim, int k, int level) {
  ts_mesh mesh = NULL;
  ts_mg mg = NULL;
  ts_pc pc = NULL;
  ts_operator A = NULL;
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 1;
  double defect = INFINITY;
  int iterations = -1;
  int ierr = ts_mesh_create_box(dim, lower, upper, one_cell, level, &mesh);
  if (!ierr) ierr = ts_mg_create_stokes(be, mesh, k, level, &o, &mg);
  if (!ierr) ierr = ts_pc_create_stokes_velocity_mg(mg, 3, 1, &pc);
  if (!ierr) ierr = ts_operator_create_stokes_block(ts_mg_operator(mg), 0, 0, &A);
  if (!ierr) ierr = symmetry(be, ts_pc_operator(pc), &defect);
  if (!ierr) ierr = cg_iterations(be, A, pc, &iterations);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && defect <= SYMMETRY_TOLERANCE && iterations <= 30 &&
         ts_operator_size(ts_pc_operator(pc)) == ts_dofs_count(ts_mg_dofs(mg)),
     "%dD RT_%d level %d: the velocity V-cycle is symmetric (x.(P y) - (P x).y relative %.1e), "
     "CG on A with it: %d iterations (at most 30)", dim, k, level, defect, iterations);
  ts_operator_destroy(&A);
  ts_pc_destroy(&pc);
  ts_mg_destroy(&mg);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- (d) argument checks */

static void refused(int ierr, const ts_pc *pc, const char *want, const char *what) {
  ok(ierr == TS_ERR_ARG && !*pc && strstr(ts_error_message(), want), "%s refused: %s", what,
     ts_error_message());
}

static void arguments(ts_backend be) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_mg mg = NULL;
  parts p = {0};
  ts_pc pc = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, one_cell, 2, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &fe);
  if (!ierr) ierr = ts_mg_create(be, mesh, fe, 2, NULL, &mg);
  if (!ierr) ierr = parts_create(mg, 2, &p);
  if (!ok(!ierr && p.n == 3, "Q_1 hierarchy on levels 0..2")) {
    diag("%s", ts_error_message());
    return;
  }
  refused(ts_pc_create_multigrid(0, p.A, p.P, p.smoothers, 1, p.coarse, &pc), &pc,
          "levels = 0, allowed 1..32", "levels 0");
  refused(ts_pc_create_multigrid(3, p.A, p.P, p.smoothers, 0, p.coarse, &pc), &pc,
          "smoothing_steps = 0, allowed 1..100", "no smoothing steps");
  refused(ts_pc_create_multigrid(3, p.A, NULL, p.smoothers, 1, p.coarse, &pc), &pc,
          "'P' is NULL", "no prolongations");
  refused(ts_pc_create_multigrid(3, p.A, p.P, p.smoothers, 1, NULL, &pc), &pc,
          "coarse is NULL on level l = 0", "no coarse solve");
  ts_operator A[3] = {p.A[0], p.A[2], p.A[1]};
  refused(ts_pc_create_multigrid(3, A, p.P, p.smoothers, 1, p.coarse, &pc), &pc,
          "smoothers[l] (level 1) has", "levels out of order");
  ts_operator P[3] = {NULL, p.P[2], p.P[1]};
  ts_pc S[3] = {NULL, p.smoothers[1], p.smoothers[2]};
  refused(ts_pc_create_multigrid(3, p.A, P, S, 1, p.coarse, &pc), &pc, "P[1] ('mg-transfer') is",
          "a prolongation of the wrong size");
  ierr = ts_pc_create_multigrid(1, p.A, NULL, NULL, 1, p.coarse, &pc);
  ok(!ierr && pc, "one level: the coarse solve alone");
  ts_pc_destroy(&pc);
  parts_destroy(&p);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be;
  plan(1 + 3 + 2 * 2 + 4 + 1 + 2 + 8 + 2);
  if (!ok(ts_backend_open(tap_backend(), &be) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  transfers(be);
  poisson(be);
  fmg(be);
  velocity(be, 2, 2, 4);
  velocity(be, 3, 1, 3);
  arguments(be);
  ts_backend_destroy(&be);
  return exit_status();
}
