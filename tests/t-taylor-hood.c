/* t-taylor-hood.c -- the Taylor-Hood Stokes operator Q_k x Q_{k-1} (ts_operator_create_taylor_hood,
 * doc/taylor-hood.md), its right side and errors, on the backend TESSERA_TEST_BACKEND:
 *  (a) the operator: Acal (0, 1) = 0 (B^T annihilates the constant pressure: the boundary
 *      velocity rows are constrained); the unconstrained -B of u = (x_0, 0, ..) is (1, psi_q),
 *      the lumped pressure mass (ts_stokes_pressure_mass_diagonal), and of the divergence-free
 *      u = (x^2, -2xy, 0) in Q_2 zero; the symmetric form is symmetric and the blocks B^T and
 *      -B are minus each other's transposes on random vectors; the blocks A, B^T and -B,
 *      applied from the operator's parts, agree with Acal on padded vectors; the pressure
 *      mean of 1 is 1;
 *  (b) convergence on papers 001/004's manufactured solution (and its 3D analogue): GMRES
 *      with the block-diagonal preconditioner diag(V, .., V, M_p^{-1}) (V one V-cycle of the
 *      Q_k Laplacian's hierarchy per velocity component, M_p the lumped pressure mass) to
 *      1e-11, then the L2 and H1 errors of u and the L2 error of p on successive levels:
 *      rates at least 2.8 (u, L2), 1.8 (u, H1) and 1.8 (p, L2) for k = 2 on every refinement
 *      (so the errors never grow).  The iteration counts are printed, not bounded: this
 *      preconditioner is the scaffold of the convergence study, not the paper's multigrid
 *      (doc/taylor-hood.md section 5 lists them: they still grow in 3D);
 *  (c) bad arguments name the mismatch.
 * 2D levels 2..5, 3D levels 1..3 (4 with the long cases). */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera.h"
#include "tessera-impl.h" /* ts_stokes_pressure_mass_diagonal */

#define RTOL 1e-11
#define ROUNDOFF 1e-12

typedef struct th_level {
  ts_mesh mesh;
  ts_fe fu, fp;
  ts_mg mg;                  /* the velocity Laplacian's hierarchy: its DoFs are the velocity's */
  ts_dofs u, p;              /* u borrowed from mg */
  ts_operator A;
  int64_t n, n_u;
} th_level;

static int level_create(ts_backend be, int dim, int k, int level, th_level *l) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int cells[3] = {1, 1, 1};
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 0;
  TS_CALL(ts_mesh_create_box(dim, lower, upper, cells, level, &l->mesh));
  TS_CALL(ts_fe_create_q(dim, k, &l->fu));
  TS_CALL(ts_fe_create_q(dim, k - 1, &l->fp));
  TS_CALL(ts_mg_create(be, l->mesh, l->fu, level, &o, &l->mg));
  l->u = ts_mg_dofs(l->mg);
  TS_CALL(ts_dofs_create(l->mesh, l->fp, level, &l->p));
  TS_CALL(ts_operator_create_taylor_hood(be, l->u, l->p, TS_DOUBLE, &l->A));
  l->n = ts_operator_size(l->A);
  l->n_u = ts_dofs_count(l->u);
  return 0;
}

static void level_destroy(th_level *l) {
  ts_operator_destroy(&l->A);
  ts_dofs_destroy(&l->p);
  ts_mg_destroy(&l->mg);
  ts_fe_destroy(&l->fp);
  ts_fe_destroy(&l->fu);
  ts_mesh_destroy(&l->mesh);
}

static double max_abs(const double *v, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(v[i]));
  return m;
}

/* x = [u; p] on the host from u(point) at the velocity DoFs and p = pressure */
static void interpolate(const th_level *l, int dim, void (*u)(const double *, double *),
                        double pressure, double *x) {
  for (int64_t i = 0; i < l->n_u; ++i) {
    double pt[3], v[3] = {0, 0, 0};
    ts_dofs_point(l->u, i, pt);
    u(pt, v);
    for (int c = 0; c < dim; ++c) x[c * l->n_u + i] = v[c];
  }
  for (int64_t i = dim * l->n_u; i < l->n; ++i) x[i] = pressure;
}

static void zero_field(const double *x, double *v) { (void)x; v[0] = v[1] = v[2] = 0.0; }
static void linear_field(const double *x, double *v) { v[0] = x[0]; v[1] = v[2] = 0.0; }
static void free_field(const double *x, double *v) { /* (x^2, -2xy, 0): div = 0 */
  v[0] = x[0] * x[0];
  v[1] = -2.0 * x[0] * x[1];
  v[2] = 0.0;
}

/* y = Acal x (or unconstrained) on the host values x */
static int apply_host(ts_backend be, const th_level *l, int unconstrained, const double *x,
                      double *y) {
  ts_vec xv = NULL, yv = NULL;
  int ierr = ts_vec_create(be, l->n, TS_DOUBLE, &xv);
  if (!ierr) ierr = ts_vec_create(be, l->n, TS_DOUBLE, &yv);
  if (!ierr) ierr = ts_vec_set_from_host(xv, x);
  if (!ierr) ierr = unconstrained ? ts_operator_apply_unconstrained(l->A, xv, yv)
                                  : ts_operator_apply(l->A, xv, yv);
  if (!ierr) ierr = ts_vec_get_to_host(yv, y);
  ts_vec_destroy(&xv);
  ts_vec_destroy(&yv);
  return ierr;
}

static double pair_defect(ts_backend be, ts_operator P, ts_operator Q, int64_t rows,
                          int64_t cols, double sign, double *scale);

/* max over the three blocks of |block x - (the block's rows of Acal applied to x padded)|,
 * relative to the largest entry, for random x */
static int blocks_against_whole(ts_backend be, const th_level *l, int dim, ts_operator A00,
                                ts_operator BT, ts_operator mB, double *defect) {
  const int64_t n_v = dim * l->n_u, n_p = l->n - n_v;
  double *x = calloc((size_t)l->n, sizeof *x), *whole = calloc((size_t)l->n, sizeof *whole);
  double *part = calloc((size_t)l->n, sizeof *part);
  ts_vec xu = NULL, xp = NULL, yu = NULL, yp = NULL;
  int ierr = x && whole && part ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_create(be, n_v, TS_DOUBLE, &xu);
  if (!ierr) ierr = ts_vec_create(be, n_p, TS_DOUBLE, &xp);
  if (!ierr) ierr = ts_vec_create(be, n_v, TS_DOUBLE, &yu);
  if (!ierr) ierr = ts_vec_create(be, n_p, TS_DOUBLE, &yp);
  if (!ierr) ierr = ts_vec_set_random(xu, 5);
  if (!ierr) ierr = ts_vec_set_random(xp, 6);
  *defect = 0.0;
  for (int side = 0; side < 2 && !ierr; ++side) { /* [x_u; 0], then [0; x_p] */
    for (int64_t i = 0; i < l->n; ++i) x[i] = 0.0;
    ierr = ts_vec_get_to_host(side ? xp : xu, x + (side ? n_v : 0));
    if (!ierr) ierr = apply_host(be, l, 0, x, whole);
    if (!ierr && side == 0) ierr = ts_operator_apply(A00, xu, yu);
    if (!ierr && side == 0) ierr = ts_operator_apply(mB, xu, yp);
    if (!ierr && side == 1) ierr = ts_operator_apply(BT, xp, yu);
    if (!ierr) ierr = ts_vec_get_to_host(yu, part);
    if (!ierr && side == 0) ierr = ts_vec_get_to_host(yp, part + n_v);
    const int64_t n = side ? n_v : l->n; /* [0; x_p] gives B^T x_p in the velocity rows */
    const double scale = fmax(max_abs(whole, n), 1e-300);
    for (int64_t i = 0; !ierr && i < n; ++i)
      *defect = fmax(*defect, fabs(part[i] - whole[i]) / scale);
  }
  ts_vec_destroy(&xu);
  ts_vec_destroy(&xp);
  ts_vec_destroy(&yu);
  ts_vec_destroy(&yp);
  free(x);
  free(whole);
  free(part);
  return ierr;
}

/* (a) */
static void operator_checks(ts_backend be, int dim, int k, int level) {
  th_level l = {0};
  double *x = NULL, *y = NULL, *w = NULL;
  int ierr = level_create(be, dim, k, level, &l);
  const int64_t n_p = l.n - dim * l.n_u;
  if (!ierr) {
    x = calloc((size_t)l.n, sizeof *x);
    y = calloc((size_t)l.n, sizeof *y);
    w = calloc((size_t)n_p, sizeof *w);
    if (!x || !y || !w) ierr = TS_ERR_MEMORY;
  }
  if (!ierr) interpolate(&l, dim, zero_field, 1.0, x);
  if (!ierr) ierr = apply_host(be, &l, 0, x, y);
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && max_abs(y, l.n) <= ROUNDOFF, "%dD Q%d-Q%d level %d: Acal (0, 1) = 0 (max %.2e)",
     dim, k, k - 1, level, ierr ? NAN : max_abs(y, l.n));
  /* -B (x_0, 0, ..) = (div u, psi_q) = (1, psi_q) */
  ts_vec mass = NULL;
  if (!ierr) ierr = ts_vec_create(be, n_p, TS_DOUBLE, &mass);
  if (!ierr) ierr = ts_stokes_pressure_mass_diagonal(l.A, mass);
  if (!ierr) ierr = ts_vec_get_to_host(mass, w);
  if (!ierr) interpolate(&l, dim, linear_field, 0.0, x);
  if (!ierr) ierr = apply_host(be, &l, 1, x, y);
  double defect = NAN, total = 0.0;
  if (!ierr) {
    defect = 0.0;
    for (int64_t q = 0; q < n_p; ++q) {
      defect = fmax(defect, fabs(y[dim * l.n_u + q] - w[q]) / w[q]);
      total += w[q];
    }
  }
  if (ierr) diag("%s", ts_error_message());
  ok(!ierr && defect <= ROUNDOFF && fabs(total - 1.0) <= ROUNDOFF,
     "%dD Q%d-Q%d level %d: -B (x, 0, ..) = (1, psi_q), the lumped pressure mass (relative "
     "defect %.2e; its sum %.15f)", dim, k, k - 1, level, defect, total);
  if (!ierr) interpolate(&l, dim, free_field, 0.0, x);
  if (!ierr) ierr = apply_host(be, &l, 1, x, y);
  ok(!ierr && max_abs(y + dim * l.n_u, n_p) <= ROUNDOFF,
     "%dD Q%d-Q%d level %d: -B (x^2, -2xy, 0) = 0 (max %.2e)", dim, k, k - 1, level,
     ierr ? NAN : max_abs(y + dim * l.n_u, n_p));
  /* the symmetric form and the coupling blocks on random vectors */
  ts_operator S = NULL, BT = NULL, mB = NULL;
  if (!ierr) ierr = ts_operator_create_stokes_symmetric(l.A, &S);
  if (!ierr) ierr = ts_operator_create_stokes_block(l.A, 0, 1, &BT);
  if (!ierr) ierr = ts_operator_create_stokes_block(l.A, 1, 0, &mB);
  double scale = 1.0, sym = NAN, coupling = NAN;
  if (!ierr) sym = pair_defect(be, S, S, l.n, l.n, -1.0, &scale) / scale;
  /* u.(B^T p) + p.((-B) u) = 0: the sparse transpose and the boundary masks agree */
  if (!ierr) coupling = pair_defect(be, BT, mB, dim * l.n_u, n_p, 1.0, &scale) / scale;
  ok(!ierr && sym <= ROUNDOFF && coupling <= ROUNDOFF,
     "%dD Q%d-Q%d level %d: the symmetric form is symmetric (%.2e), B^T = -(-B)^T (%.2e)", dim,
     k, k - 1, level, sym, coupling);
  /* the blocks from the parts against Acal on [x_u; 0] and [0; x_p] */
  ts_operator A00 = NULL;
  double block_defect = NAN;
  if (!ierr) ierr = ts_operator_create_stokes_block(l.A, 0, 0, &A00);
  if (!ierr) ierr = blocks_against_whole(be, &l, dim, A00, BT, mB, &block_defect);
  ok(!ierr && block_defect <= ROUNDOFF,
     "%dD Q%d-Q%d level %d: the blocks A, B^T, -B from the parts are those of Acal (%.2e)",
     dim, k, k - 1, level, block_defect);
  ts_operator_destroy(&A00);
  /* the pressure mean of (0, 1) */
  ts_vec v = NULL;
  double mean = NAN;
  if (!ierr) ierr = ts_vec_create(be, l.n, TS_DOUBLE, &v);
  if (!ierr) interpolate(&l, dim, zero_field, 1.0, x);
  if (!ierr) ierr = ts_vec_set_from_host(v, x);
  if (!ierr) ierr = ts_stokes_pressure_mean(l.A, v, &mean);
  ok(!ierr && fabs(mean - 1.0) <= ROUNDOFF, "%dD Q%d-Q%d level %d: the pressure mean of 1 is "
     "%.15f", dim, k, k - 1, level, mean);
  ts_vec_destroy(&v);
  ts_operator_destroy(&mB);
  ts_operator_destroy(&BT);
  ts_operator_destroy(&S);
  ts_vec_destroy(&mass);
  free(x);
  free(y);
  free(w);
  level_destroy(&l);
}

/* a.(P b) + sign b.(Q a) for random a (P's rows) and b (P's columns), Q of P's columns x
 * rows: zero when Q = P^T and sign = -1 (P == Q: symmetry), or when Q = -P^T and sign = +1;
 * *scale = |a| max(|P b|, 1) */
static double pair_defect(ts_backend be, ts_operator P, ts_operator Q, int64_t rows,
                          int64_t cols, double sign, double *scale) {
  ts_vec a = NULL, b = NULL, Pb = NULL, Qa = NULL;
  double d1 = NAN, d2 = NAN, na = 0, npb = 0;
  int ierr = ts_vec_create(be, rows, TS_DOUBLE, &a);
  if (!ierr) ierr = ts_vec_create(be, cols, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, rows, TS_DOUBLE, &Pb);
  if (!ierr) ierr = ts_vec_create(be, cols, TS_DOUBLE, &Qa);
  if (!ierr) ierr = ts_vec_set_random(a, 11);
  if (!ierr) ierr = ts_vec_set_random(b, 12);
  if (!ierr) ierr = ts_operator_apply(P, b, Pb);
  if (!ierr) ierr = ts_vec_dot(a, Pb, &d1);
  if (!ierr) ierr = ts_operator_apply(Q, a, Qa);
  if (!ierr) ierr = ts_vec_dot(b, Qa, &d2);
  if (!ierr) ierr = ts_vec_norm(a, &na);
  if (!ierr) ierr = ts_vec_norm(Pb, &npb);
  if (ierr) diag("%s", ts_error_message());
  ts_vec_destroy(&a);
  ts_vec_destroy(&b);
  ts_vec_destroy(&Pb);
  ts_vec_destroy(&Qa);
  *scale = na * fmax(npb, 1.0);
  return ierr ? NAN : fabs(d1 + sign * d2);
}

typedef struct th_errors {
  int iterations;
  double u_l2, u_h1, p_l2;
} th_errors;

/* (b) one level: GMRES + diag(V, .., V, M_p^{-1}) on Acal x = b */
static int solve_level(ts_backend be, int dim, int k, int level, th_errors *e) {
  th_level l = {0};
  const ts_stokes_solution *sol;
  ts_vec b = NULL, x = NULL, x0 = NULL;
  ts_pc v = NULL, mass = NULL, diagonal = NULL;
  ts_solver s = NULL;
  double *host = NULL;
  int ierr = ts_stokes_solution_by_name("paper004", &sol);
  if (!ierr) ierr = level_create(be, dim, k, level, &l);
  if (!ierr) ierr = ts_vec_create(be, l.n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, l.n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, l.n, TS_DOUBLE, &x0);
  if (!ierr) ierr = ts_taylor_hood_assemble_rhs(l.A, l.u, l.p, sol, b, x0);
  if (!ierr) ierr = ts_pc_create_mg(l.mg, &v);
  if (!ierr) ierr = ts_pc_create_pressure_mass(l.A, &mass);
  if (!ierr) {
    const ts_pc blocks[4] = {v, v, dim == 3 ? v : mass, mass};
    ierr = ts_pc_create_block_diagonal(dim + 1, blocks, &diagonal);
  }
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_GMRES, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, l.A);
  if (!ierr) ierr = ts_solver_set_pc(s, diagonal);
  if (!ierr) ierr = ts_solver_set_restart(s, 100);
  if (!ierr) ierr = ts_solver_set_tolerances(s, RTOL, 500);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_solve(s, b, x);
  e->iterations = s ? ts_solver_iterations(s) : -1;
  if (!ierr) ierr = ts_stokes_pressure_mean_remove(l.A, x);
  if (!ierr) ierr = ts_vec_axpby(1.0, x0, 1.0, x);
  if (!ierr) {
    host = calloc((size_t)l.n, sizeof *host);
    if (!host) ierr = TS_ERR_MEMORY;
  }
  if (!ierr) ierr = ts_vec_get_to_host(x, host);
  if (!ierr)
    ierr = ts_taylor_hood_compute_errors(l.u, l.p, host, sol, &e->u_l2, &e->u_h1, &e->p_l2);
  if (ierr) diag("%s", ts_error_message());
  free(host);
  ts_solver_destroy(&s);
  ts_pc_destroy(&diagonal);
  ts_pc_destroy(&mass);
  ts_pc_destroy(&v);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  level_destroy(&l);
  return ierr;
}

static double rate(double coarse, double fine) { return log2(coarse / fine); }

static void convergence(ts_backend be, int dim, int k, int first, int last) {
  th_errors prev = {0};
  const double expect[3] = {k + 1 - 0.2, k - 0.2, k - 0.2};
  for (int level = first; level <= last; ++level) {
    th_errors e = {-1, NAN, NAN, NAN};
    const int ierr = solve_level(be, dim, k, level, &e);
    if (level == first) {
      ok(!ierr && e.iterations > 0 && isfinite(e.u_l2 + e.u_h1 + e.p_l2),
         "%dD Q%d-Q%d level %d: GMRES + diag(V-cycle, M_p) %d iterations; errors u L2 %.4e, "
         "H1 %.4e, p L2 %.4e", dim, k, k - 1, level, e.iterations, e.u_l2, e.u_h1, e.p_l2);
    } else {
      const double r[3] = {rate(prev.u_l2, e.u_l2), rate(prev.u_h1, e.u_h1),
                           rate(prev.p_l2, e.p_l2)};
      ok(!ierr && r[0] >= expect[0] && r[1] >= expect[1] && r[2] >= expect[2],
         "%dD Q%d-Q%d level %d: %d iterations; errors u L2 %.4e (rate %.2f >= %.1f), H1 %.4e "
         "(%.2f >= %.1f), p L2 %.4e (%.2f >= %.1f)", dim, k, k - 1, level, e.iterations, e.u_l2,
         r[0], expect[0], e.u_h1, r[1], expect[1], e.p_l2, r[2], expect[2]);
    }
    prev = e;
  }
}

/* (c) */
static void bad_arguments(ts_backend be) {
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int cells[2] = {2, 2};
  ts_mesh mesh = NULL;
  ts_fe q2 = NULL, q1 = NULL, rt = NULL, q3 = NULL;
  ts_dofs u = NULL, p = NULL, r = NULL, p3 = NULL, u1 = NULL;
  ts_operator A = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, cells, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &q2);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &q1);
  if (!ierr) ierr = ts_fe_create_q(2, 3, &q3);
  if (!ierr) ierr = ts_fe_create_rt(2, 1, &rt);
  if (!ierr) ierr = ts_dofs_create(mesh, q2, 1, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, q1, 1, &p);
  if (!ierr) ierr = ts_dofs_create(mesh, q3, 1, &p3);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 1, &r);
  if (!ierr) ierr = ts_dofs_create(mesh, q1, 0, &u1);
  ok(!ierr, "the DoF handlers for the refusals");
  int code = ts_operator_create_taylor_hood(be, u, p3, TS_DOUBLE, &A);
  ok(code == TS_ERR_ARG && !A && strstr(ts_error_message(), "pressure Q3"),
     "velocity Q2 with pressure Q3 refused: %s", ts_error_message());
  code = ts_operator_create_taylor_hood(be, r, p, TS_DOUBLE, &A);
  ok(code == TS_ERR_ARG && !A, "RT velocity refused: %s", ts_error_message());
  code = ts_operator_create_taylor_hood(be, u, u1, TS_DOUBLE, &A);
  ok(code == TS_ERR_ARG && !A, "pressure of another level (Q1 on level 0) refused: %s",
     ts_error_message());
  code = ts_operator_create_taylor_hood(be, u, p, (ts_precision)7, &A);
  ok(code == TS_ERR_ARG && !A && strstr(ts_error_message(), "precision 7"),
     "precision 7 refused: %s", ts_error_message());
  code = ts_stokes_pressure_mean_remove(NULL, NULL);
  ok(code == TS_ERR_ARG && strstr(ts_error_message(), "Taylor-Hood"),
     "a NULL operator for the pressure mean names what is required: %s", ts_error_message());
  ts_dofs *all[] = {&u, &p, &p3, &r, &u1};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) ts_dofs_destroy(all[i]);
  ts_fe_destroy(&q2);
  ts_fe_destroy(&q1);
  ts_fe_destroy(&q3);
  ts_fe_destroy(&rt);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be = NULL;
  if (ts_backend_open(tap_backend(), &be)) {
    plan_skip_all(ts_error_message());
    return exit_status();
  }
  operator_checks(be, 2, 2, 2);
  operator_checks(be, 2, 3, 1);
  operator_checks(be, 3, 2, 1);
  operator_checks(be, 3, 3, 1);
  convergence(be, 2, 2, 2, 5);
  convergence(be, 3, 2, 1, tap_long() ? 4 : 3);
  bad_arguments(be);
  done_testing();
  ts_backend_destroy(&be);
  return exit_status();
}
