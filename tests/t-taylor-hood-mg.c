/* t-taylor-hood-mg.c -- the coupled multigrid of Taylor-Hood Stokes (ts_mg_create_taylor_hood,
 * doc/taylor-hood.md section 7) and its relaxations, on the backend TESSERA_TEST_BACKEND:
 *  (a) the Vanka patch matrix (ts_taylor_hood_vertex_patch, assembled on the host from the
 *      1D factors) equals the rows and columns of the matrix-free operator at the patch's
 *      DoFs, probed with unit vectors, for corner, edge, near-boundary and interior vertices
 *      in 2D and 3D; the diagonal of S = B W B^T (ts_taylor_hood_schur_diagonal) equals
 *      e_q^T B W B^T e_q from the operator's blocks;
 *  (b) FGMRES preconditioned by one V(1,1)-cycle with each relaxation (Vanka additive and
 *      multiplicative, Braess-Sarazin, Schur-Uzawa) on the paper's manufactured solution to
 *      1e-8: the iteration counts stay below a bound per relaxation and, except for
 *      Schur-Uzawa, are level-independent (every level from the second one solved needs at
 *      most 2 more than that level: level 2 has a two-level cycle); Schur-Uzawa's grow
 *      (doc/taylor-hood.md section 7); the errors converge at the rates of Q2-Q1 (3, 2, 2: at
 *      least 2.8, 1.8, 1.8 per refinement); 2D levels 2..5 (6 with the long cases), 3D
 *      levels 2..3 (4 with the long cases); Braess-Sarazin also for Q3 x Q2 with the defaults
 *      for k >= 3 (level-independent in 3D, where the Q2 parameters are not), whose space
 *      holds the solution: errors below EXACT_ERROR;
 *  (c) bad arguments name the field, the value and what is allowed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tessera.h"
#include "tessera-impl.h" /* the patch matrix, the Schur diagonal, ts_saddle */

#define RTOL 1e-8
#define EXACT_ERROR 1e-7 /* Q3 x Q2: the solution is in the space, errors of the solve only */

/* (a) the patch of vertex v against the operator: max |M_ij - (Acal e_j)_i| / max |Acal| */
static double patch_defect(ts_backend be, ts_operator A, int dim, const int64_t *v) {
  ts_taylor_hood_layout l;
  if (ts_taylor_hood_layout_of(A, "test", &l)) return INFINITY;
  const int nodes = dim == 3 ? 125 : 25, P = dim * nodes + 1;
  const int64_t n = ts_operator_size(A);
  double *M = calloc((size_t)P * P, sizeof *M), *e = calloc((size_t)n, sizeof *e);
  double *col = calloc((size_t)n, sizeof *col);
  int *active = calloc((size_t)P, sizeof *active);
  int64_t *index = calloc((size_t)P, sizeof *index);
  ts_vec ev = NULL, cv = NULL;
  int ierr = M && e && col && active && index ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_taylor_hood_vertex_patch(A, v, M, active);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &ev);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &cv);
  for (int t = 0; t < P; ++t) { /* global index of local DoF t, -1 if inactive */
    const int c = t / nodes, a = t % nodes;
    int64_t i[3] = {2 * v[0] - 2 + a % 5, 2 * v[1] - 2 + a / 5 % 5, dim == 3 ? 2 * v[2] - 2 + a / 25 : 0};
    int inside = 1;
    for (int d = 0; d < dim; ++d) inside &= i[d] > 0 && i[d] < l.n_u[d] - 1;
    index[t] = t == P - 1 ? dim * l.n_velocity + v[0] + l.n_p[0] * (v[1] + l.n_p[1] * v[2])
               : inside ? c * l.n_velocity + i[0] + l.n_u[0] * (i[1] + l.n_u[1] * i[2]) : -1;
    if (!ierr && (index[t] >= 0) != (active[t] != 0)) ierr = TS_ERR_ARG; /* activity disagrees */
  }
  double defect = 0.0, scale = 0.0;
  for (int j = 0; j < P && !ierr; ++j) {
    if (index[j] < 0) continue;
    memset(e, 0, (size_t)n * sizeof *e);
    e[index[j]] = 1.0;
    ierr = ts_vec_set_from_host(ev, e);
    if (!ierr) ierr = ts_operator_apply(A, ev, cv);
    if (!ierr) ierr = ts_vec_get_to_host(cv, col);
    for (int i = 0; i < P && !ierr; ++i) {
      const double want = index[i] >= 0 ? col[index[i]] : 0.0;
      defect = fmax(defect, fabs(M[i * P + j] - want));
      scale = fmax(scale, fabs(want));
    }
  }
  ts_vec_destroy(&ev);
  ts_vec_destroy(&cv);
  free(M);
  free(e);
  free(col);
  free(active);
  free(index);
  if (ierr) diag("%s", ts_error_message());
  return ierr || scale == 0.0 ? INFINITY : defect / scale;
}

/* (a) diag(B W B^T) against e_q^T (-Acal_10) W Acal_01 e_q for every pressure DoF q */
static double schur_defect(ts_backend be, ts_operator A) {
  const ts_saddle *s;
  if (ts_saddle_of(A, "test", &s)) return INFINITY;
  const int64_t nu = s->velocity_count, np = s->pressure_count;
  double *w = calloc((size_t)nu, sizeof *w), *d = calloc((size_t)np, sizeof *d);
  double *e = calloc((size_t)np, sizeof *e), *out = calloc((size_t)np, sizeof *out);
  ts_vec wv = NULL, ep = NULL, tu = NULL, op = NULL;
  int ierr = w && d && e && out ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_create(be, nu, TS_DOUBLE, &wv);
  if (!ierr) ierr = ts_vec_create(be, np, TS_DOUBLE, &ep);
  if (!ierr) ierr = ts_vec_create(be, nu, TS_DOUBLE, &tu);
  if (!ierr) ierr = ts_vec_create(be, np, TS_DOUBLE, &op);
  if (!ierr) ierr = s->velocity_diagonal(A, wv);
  if (!ierr) ierr = ts_vec_get_to_host(wv, w);
  for (int64_t i = 0; i < nu && !ierr; ++i) w[i] = 1.0 / w[i];
  if (!ierr) ierr = ts_vec_set_from_host(wv, w);
  if (!ierr) ierr = ts_taylor_hood_schur_diagonal(A, w, d);
  double defect = 0.0, scale = 0.0;
  for (int64_t q = 0; q < np && !ierr; ++q) {
    memset(e, 0, (size_t)np * sizeof *e);
    e[q] = 1.0;
    ierr = ts_vec_set_from_host(ep, e);
    if (!ierr) ierr = s->apply_block(A, 0, 1, ep, tu, 0);
    if (!ierr) ierr = ts_vec_pointwise_mult(wv, tu, tu);
    if (!ierr) ierr = s->apply_block(A, 1, 0, tu, op, 0);
    if (!ierr) ierr = ts_vec_get_to_host(op, out);
    defect = fmax(defect, fabs(d[q] + out[q])); /* -Acal_10 = B */
    scale = fmax(scale, fabs(d[q]));
  }
  ts_vec_destroy(&wv);
  ts_vec_destroy(&ep);
  ts_vec_destroy(&tu);
  ts_vec_destroy(&op);
  free(w);
  free(d);
  free(e);
  free(out);
  if (ierr) diag("%s", ts_error_message());
  return ierr || scale == 0.0 ? INFINITY : defect / scale;
}

static void assembled_checks(ts_backend be, int dim) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1.5, 2};
  const int cells[3] = {1, 1, 1}, level = dim == 3 ? 2 : 3; /* 4^3 or 8^2 cells */
  ts_mesh mesh = NULL;
  ts_fe q2 = NULL, q1 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_operator A = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, cells, level, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, 2, &q2);
  if (!ierr) ierr = ts_fe_create_q(dim, 1, &q1);
  if (!ierr) ierr = ts_dofs_create(mesh, q2, level, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, q1, level, &p);
  if (!ierr) ierr = ts_operator_create_taylor_hood(be, u, p, TS_DOUBLE, &A);
  if (!ok(!ierr, "%dD Q2-Q1 operator on %d^%d cells", dim, 1 << level, dim))
    diag("%s", ts_error_message());
  const int64_t n = 1 << level;
  const int64_t vertices[5][3] = {{0, 0, 0}, {1, 2, 0}, {2, 2, 2}, {n, n - 1, 1}, {n - 2, 3, n}};
  for (int t = 0; t < 5 && !ierr; ++t) {
    const int64_t v[3] = {vertices[t][0], vertices[t][1], dim == 3 ? vertices[t][2] : 0};
    const double defect = patch_defect(be, A, dim, v);
    ok(defect < 1e-13, "%dD vertex (%lld, %lld%s%s): the patch matrix is the operator's (defect "
       "%.1e relative)", dim, (long long)v[0], (long long)v[1], dim == 3 ? ", " : "",
       dim == 3 ? (v[2] == 0 ? "0" : v[2] == 1 ? "1" : v[2] == 2 ? "2" : "n") : "", defect);
  }
  if (!ierr) {
    const double defect = schur_defect(be, A);
    ok(defect < 1e-13, "%dD: diag(B D^-1 B^T) agrees with the blocks applied (defect %.1e relative)",
       dim, defect);
  }
  ts_operator_destroy(&A);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&q2);
  ts_fe_destroy(&q1);
  ts_mesh_destroy(&mesh);
}

/* (b) */
typedef struct relaxation {
  const char *name;
  ts_mg_smoother_type type;
  int multiplicative;
  int bound_2d, bound_3d;     /* the most FGMRES iterations allowed */
  int independent;            /* level-independent iteration counts asserted */
  int degree;                 /* k of Q_k x Q_{k-1} */
} relaxation;

typedef struct solve_result {
  int iterations;
  double u_l2, u_h1, p_l2;
} solve_result;

static int solve_level(ts_backend be, int dim, int level, const relaxation *rx, solve_result *res) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int cells[3] = {1, 1, 1};
  const ts_stokes_solution *sol;
  ts_mesh mesh = NULL;
  ts_mg mg = NULL;
  ts_vec b = NULL, x = NULL, x0 = NULL;
  ts_solver s = NULL;
  double *host = NULL;
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.smoother = rx->type;
  o.coarse_level = 1;
  o.relaxation.multiplicative = rx->multiplicative;
  int ierr = ts_stokes_solution_by_name("paper004", &sol);
  if (!ierr) ierr = ts_mesh_create_box(dim, lower, upper, cells, level, &mesh);
  if (!ierr) ierr = ts_mg_create_taylor_hood(be, mesh, rx->degree, level, &o, &mg);
  ts_operator A = mg ? ts_mg_operator(mg) : NULL;
  const int64_t n = A ? ts_operator_size(A) : 0;
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x0);
  if (!ierr)
    ierr = ts_taylor_hood_assemble_rhs(A, ts_mg_dofs(mg), ts_mg_pressure_dofs(mg), sol, b, x0);
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_FGMRES, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, A);
  if (!ierr) ierr = ts_solver_set_preconditioner(s, ts_mg_preconditioner(mg));
  if (!ierr) ierr = ts_solver_set_restart(s, 100);
  if (!ierr) ierr = ts_solver_set_tolerances(s, RTOL, 200);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_solve(s, b, x);
  res->iterations = s ? ts_solver_iterations(s) : -1;
  if (!ierr) ierr = ts_stokes_pressure_mean_remove(A, x);
  if (!ierr) ierr = ts_vec_axpby(1.0, x0, 1.0, x);
  if (!ierr) {
    host = calloc((size_t)n, sizeof *host);
    if (!host) ierr = TS_ERR_MEMORY;
  }
  if (!ierr) ierr = ts_vec_get_to_host(x, host);
  if (!ierr)
    ierr = ts_taylor_hood_compute_errors(ts_mg_dofs(mg), ts_mg_pressure_dofs(mg), host, sol,
                                         &res->u_l2, &res->u_h1, &res->p_l2);
  if (ierr) diag("%s", ts_error_message());
  free(host);
  ts_solver_destroy(&s);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  ts_mg_destroy(&mg);
  ts_mesh_destroy(&mesh);
  return ierr;
}

static void multigrid(ts_backend be, int dim, int first, int last, const relaxation *rx) {
  solve_result prev = {0}, second = {0};
  const int bound = dim == 3 ? rx->bound_3d : rx->bound_2d;
  for (int level = first; level <= last; ++level) {
    solve_result r = {-1, NAN, NAN, NAN};
    const int ierr = solve_level(be, dim, level, rx, &r);
    if (level == first + 1) second = r;
    const int steady = !rx->independent || level <= first + 1 || r.iterations <= second.iterations + 2;
    if (level == first) {
      ok(!ierr && r.iterations > 0 && r.iterations <= bound,
         "%dD %s level %d: FGMRES + V(1,1) %d iterations (at most %d); errors u L2 %.4e, H1 "
         "%.4e, p L2 %.4e", dim, rx->name, level, r.iterations, bound, r.u_l2, r.u_h1, r.p_l2);
    } else {
      const double rates[3] = {log2(prev.u_l2 / r.u_l2), log2(prev.u_h1 / r.u_h1),
                               log2(prev.p_l2 / r.p_l2)};
      char limit[64] = "";
      if (rx->independent && level > first + 1)
        snprintf(limit, sizeof limit, " and level %d's %d + 2", first + 1, second.iterations);
      /* Q3 x Q2 holds the manufactured solution: errors at the solver's tolerance, no rates */
      const int accurate = rx->degree == 2 ? rates[0] >= 2.8 && rates[1] >= 1.8 && rates[2] >= 1.8
                                           : r.u_l2 < EXACT_ERROR && r.p_l2 < EXACT_ERROR;
      ok(!ierr && r.iterations <= bound && steady && accurate,
         "%dD %s level %d: %d iterations (at most %d%s); errors u L2 %.4e (rate %.2f), H1 %.4e "
         "(%.2f), p L2 %.4e (%.2f)", dim, rx->name, level, r.iterations, bound, limit, r.u_l2,
         rates[0], r.u_h1, rates[1], r.p_l2, rates[2]);
    }
    prev = r;
  }
}

/* (c) */
static void bad_arguments(ts_backend be) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int cells[3] = {1, 1, 1};
  ts_mesh mesh = NULL;
  ts_fe q3 = NULL, q2v = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_operator A = NULL;
  ts_smoother s = NULL;
  ts_mg mg = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, cells, 3, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 3, &q3);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &q2v);
  if (!ierr) ierr = ts_dofs_create(mesh, q3, 2, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, q2v, 2, &p);
  if (!ierr) ierr = ts_operator_create_taylor_hood(be, u, p, TS_DOUBLE, &A);
  ok(!ierr, "Q3-Q2 operator for the bad-argument checks");
  ierr = ts_smoother_create_vanka(A, NULL, &s);
  ok(ierr == TS_ERR_ARG && !s && strstr(ts_error_message(), "Q2 x Q1"),
     "Vanka on Q3-Q2 is refused, naming Q2 x Q1: %s", ts_error_message());
  ts_saddle_relaxation r = {.weight = 2.5};
  ts_operator_destroy(&A);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ierr = ts_dofs_create(mesh, q2v, 2, &u);
  ts_fe_destroy(&q3);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &q3);
  if (!ierr) ierr = ts_dofs_create(mesh, q3, 2, &p);
  if (!ierr) ierr = ts_operator_create_taylor_hood(be, u, p, TS_DOUBLE, &A);
  ierr = ts_smoother_create_vanka(A, &r, &s);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "weight = 2.5"),
     "a Vanka weight of 2.5 names the value and the range: %s", ts_error_message());
  r = (ts_saddle_relaxation){.schur_sweeps = 101};
  ierr = ts_smoother_create_braess_sarazin(A, &r, &s);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "schur_sweeps = 101"),
     "101 Schur sweeps are refused: %s", ts_error_message());
  r = (ts_saddle_relaxation){.t = -1};
  ierr = ts_smoother_create_schur_uzawa(A, &r, &s);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "t = -1"),
     "t = -1 is refused: %s", ts_error_message());
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  ierr = ts_mg_create_taylor_hood(be, mesh, 2, 2, &o, &mg);
  ok(ierr == TS_ERR_ARG && !mg && strstr(ts_error_message(), "vanka"),
     "a Chebyshev smoother for the coupled hierarchy names the allowed ones: %s",
     ts_error_message());
  o.smoother = TS_MG_SMOOTHER_VANKA;
  ierr = ts_mg_create_taylor_hood(be, mesh, 3, 2, &o, &mg);
  ok(ierr == TS_ERR_ARG && !mg && strstr(ts_error_message(), "Q2 x Q1"),
     "Vanka in a Q3-Q2 hierarchy is refused: %s", ts_error_message());
  o.coarse_level = 0;
  ierr = ts_mg_create_taylor_hood(be, mesh, 2, 2, &o, &mg);
  ok(ierr == TS_ERR_ARG && !mg && strstr(ts_error_message(), "coarse_level >= 1"),
     "a 1-cell coarse level is refused: %s", ts_error_message());
  const int64_t v[3] = {9, 0, 0};
  double M[51 * 51];
  int active[51];
  ierr = ts_taylor_hood_vertex_patch(A, v, M, active);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "allowed 0..4"),
     "a vertex beyond the mesh is refused: %s", ts_error_message());
  ts_operator_destroy(&A);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&q3);
  ts_fe_destroy(&q2v);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend be = NULL;
  if (ts_backend_open(tap_backend(), &be)) {
    plan_skip_all(ts_error_message());
    return exit_status();
  }
  assembled_checks(be, 2);
  assembled_checks(be, 3);
  const relaxation relaxations[] = {
      {"vanka (additive)", TS_MG_SMOOTHER_VANKA, 0, 20, 25, 1, 2},
      {"vanka (multiplicative)", TS_MG_SMOOTHER_VANKA, 1, 15, 20, 1, 2},
      {"braess-sarazin", TS_MG_SMOOTHER_BRAESS_SARAZIN, 0, 20, 25, 1, 2},
      {"schur-uzawa", TS_MG_SMOOTHER_SCHUR_UZAWA, 0, 60, 60, 0, 2},
      {"braess-sarazin Q3 x Q2 (the defaults for k >= 3)", TS_MG_SMOOTHER_BRAESS_SARAZIN, 0, 20,
       25, 1, 3},
  };
  for (size_t i = 0; i < sizeof relaxations / sizeof relaxations[0]; ++i) {
    multigrid(be, 2, 2, tap_long() ? 6 : 5, &relaxations[i]);
    multigrid(be, 3, 2, tap_long() ? 4 : 3, &relaxations[i]);
  }
  bad_arguments(be);
  done_testing();
  ts_backend_destroy(&be);
  return exit_status();
}
