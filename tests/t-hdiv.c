/* t-hdiv.c -- the grad-div saddle-point system of paper 003 in the interpolation-histopolation
 * bases on box meshes, from public pieces.  The Kronecker product against a dense one.  The
 * assembled masses: M_beta (RT_k) and W_alpha (DGQ_k) are symmetric, have the diagonals of
 * ts_dofs_mass_diagonal, and give u^T M_beta u = beta int |u|^2 and q^T W_alpha q =
 * alpha int q^2 for fields of the spaces (DoFs: sub-face fluxes and sub-cell integrals by
 * exact quadrature), and W_alpha^{-1} W_alpha = I; 2D k = 0..3 and 3D k = 0..2 on cells of
 * unequal sizes.  MINRES on the transformed system (eq. 11) [M_beta D^T; D -W_alpha^{-1}]
 * with the block-diagonal preconditioner diag(Jacobi(M_beta), BoomerAMG(S~)) (Proposition 5):
 * the iterations to 1e-8 in the preconditioned norm stay bounded as the mesh is refined and
 * the degree raised; and it solves the grad-div problem u - grad div u = f for u = grad phi
 * (load vector ts_hdiv_load_vector, error ts_hdiv_l2_error) with L2 rates k + 1 (hypre
 * builds only).  Backend-generic: TESSERA_TEST_BACKEND. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "ih-grid.h"

/* ---------------------------------------------------------------- Kronecker product */

static void test_kronecker(void) {
  static const int64_t ar[3] = {0, 1, 1}, ac[3] = {1, 0, 1}, br[3] = {0, 1, 2}, bc[3] = {0, 2, 1};
  static const double av[3] = {2.0, -1.0, 3.0}, bv[3] = {0.5, 4.0, -2.0};
  ts_matrix A = NULL, B = NULL, C = NULL;
  int ierr = ts_matrix_create_triplets(2, 2, 3, ar, ac, av, &A);
  if (!ierr) ierr = ts_matrix_create_triplets(3, 3, 3, br, bc, bv, &B);
  if (!ierr) ierr = ts_matrix_kronecker(A, B, &C);
  int same = !ierr && ts_matrix_rows(C) == 6 && ts_matrix_columns(C) == 6;
  if (same) {
    const int64_t *o, *c;
    const double *v;
    double a[4] = {0}, b[9] = {0}, dense[36] = {0};
    for (int t = 0; t < 3; ++t) {
      a[ar[t] * 2 + ac[t]] = av[t];
      b[br[t] * 3 + bc[t]] = bv[t];
    }
    ts_matrix_csr(C, &o, &c, &v);
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t e = o[i]; e < o[i + 1]; ++e) {
        dense[i * 6 + c[e]] = v[e];
        same &= e == o[i] || c[e] > c[e - 1];
      }
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) same &= dense[i * 6 + j] == a[(i / 3) * 2 + j / 3] * b[(i % 3) * 3 + j % 3];
  }
  ok(same, "Kronecker product: A (x) B equals the dense product, rows sorted");
  ts_matrix_destroy(&A);
  ts_matrix_destroy(&B);
  ts_matrix_destroy(&C);
}

/* ---------------------------------------------------------------- masses */

/* A field of RT_k (component i: degree k+1 in x_i, k across) and one of DGQ_k. */
static double field(int k, int i, const double *x) {
  double v = 1.0;
  for (int d = 0; d < 3; ++d) v *= pow(1.0 + 0.5 * (d + 1) * x[d] - 0.25 * i, d == i ? k + 1 : k);
  return v + 0.5 * i;
}
static double scalar(int k, const double *x) {
  return pow(2.0 - x[0], k) * pow(1.0 + x[1], k) * pow(1.5 - 0.5 * x[2], k) + 0.25;
}

/* the integral over the box [a, b] (a_d == b_d: that coordinate fixed) of component i of the
 * RT field (i >= 0), of the scalar (i = -1), or of the square of either (square = 1), by 6
 * Gauss points per varying direction (exact for these degrees, k <= 3) */
static double integral(const grid *g, const double *a, const double *b, int i, int square) {
  double x[6], w[6];
  ts_gauss_rule(6, x, w);
  int n[3] = {1, 1, 1};
  for (int d = 0; d < g->dim; ++d) n[d] = a[d] == b[d] ? 1 : 6;
  long double sum = 0.0L;
  for (int q2 = 0; q2 < n[2]; ++q2)
    for (int q1 = 0; q1 < n[1]; ++q1)
      for (int q0 = 0; q0 < n[0]; ++q0) {
        const int q[3] = {q0, q1, q2};
        double p[3] = {0.0, 0.0, 0.0}, weight = 1.0;
        for (int d = 0; d < g->dim; ++d) {
          if (n[d] == 1) {
            p[d] = a[d];
            continue;
          }
          p[d] = a[d] + (b[d] - a[d]) * x[q[d]];
          weight *= w[q[d]] * (b[d] - a[d]);
        }
        double v = 0.0;
        if (i >= 0) v = field(g->k, i, p);
        else if (i == -1) v = scalar(g->k, p);
        else
          for (int c = 0; c < g->dim; ++c) v += field(g->k, c, p) * field(g->k, c, p);
        sum += (long double)weight * (square && i >= -1 ? v * v : v);
      }
  return (double)sum;
}

/* the DoFs of the RT field (sub-face fluxes) or of the scalar (sub-cell integrals) */
static void field_dofs(const grid *g, int l2, double *dofs) {
  int64_t index = 0;
  for (int i = 0; i < (l2 ? 1 : g->dim); ++i) {
    int64_t n[3] = {1, 1, 1}, s[3];
    for (int d = 0; d < g->dim; ++d) n[d] = g->cells[d] * (g->k + 1) + (!l2 && d == i);
    for (s[2] = 0; s[2] < n[2]; ++s[2])
      for (s[1] = 0; s[1] < n[1]; ++s[1])
        for (s[0] = 0; s[0] < n[0]; ++s[0], ++index) {
          double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
          for (int d = 0; d < g->dim; ++d) {
            if (!l2 && d == i) { /* the face between sub-intervals s - 1 and s */
              double lo, hi;
              sub_interval(g, d, s[d] < n[d] - 1 ? s[d] : s[d] - 1, &lo, &hi);
              a[d] = b[d] = s[d] < n[d] - 1 ? lo : hi;
            } else {
              sub_interval(g, d, s[d], &a[d], &b[d]);
            }
          }
          dofs[index] = integral(g, a, b, l2 ? -1 : i, 0);
        }
  }
}

/* x^T M x */
static double energy(ts_matrix M, const double *x) {
  const int64_t *o, *c;
  const double *v;
  ts_matrix_csr(M, &o, &c, &v);
  long double e = 0.0L;
  for (int64_t i = 0; i < ts_matrix_rows(M); ++i)
    for (int64_t k = o[i]; k < o[i + 1]; ++k) e += (long double)x[i] * v[k] * x[c[k]];
  return (double)e;
}

/* max |A_ij - A_ji| / max |A|, and max |diag(A) - d| / max |d| */
static void symmetry_and_diagonal(ts_matrix A, const double *d, double *asym, double *diag_err) {
  const int64_t *o, *c;
  const double *v;
  ts_matrix_csr(A, &o, &c, &v);
  double big = 0.0, dbig = 0.0;
  *asym = *diag_err = 0.0;
  for (int64_t i = 0; i < ts_matrix_rows(A); ++i) {
    dbig = fmax(dbig, fabs(d[i]));
    for (int64_t e = o[i]; e < o[i + 1]; ++e) {
      big = fmax(big, fabs(v[e]));
      if (c[e] == i) *diag_err = fmax(*diag_err, fabs(v[e] - d[i]));
      double mirror = 0.0;
      for (int64_t f = o[c[e]]; f < o[c[e] + 1]; ++f)
        if (c[f] == i) mirror = v[f];
      *asym = fmax(*asym, fabs(v[e] - mirror));
    }
  }
  *asym /= big;
  *diag_err /= dbig;
}

/* max |(Winv W - I)_ij| */
static double inverse_error(ts_matrix Winv, ts_matrix W) {
  ts_matrix P = NULL;
  if (ts_matrix_multiply(Winv, W, &P)) return INFINITY;
  const int64_t *o, *c;
  const double *v;
  ts_matrix_csr(P, &o, &c, &v);
  double worst = 0.0;
  for (int64_t i = 0; i < ts_matrix_rows(P); ++i)
    for (int64_t e = o[i]; e < o[i + 1]; ++e) worst = fmax(worst, fabs(v[e] - (c[e] == i)));
  ts_matrix_destroy(&P);
  return worst;
}

/* The coefficient of cell c in the tests with coefficients per cell: 0.5 .. 1000, varied. */
static double cell_coefficient(int64_t c, int which) {
  return 0.5 * pow(10.0, (double)((3 * c + which) % 4));
}

/* int (coefficient) (|u|^2 or q^2) over the box: the cells' integrals times their
 * coefficients (cells NULL: one coefficient) */
static double weighted_integral(const grid *g, const double *cells, double coefficient, int l2) {
  long double sum = 0.0L;
  int64_t cell[3] = {0, 0, 0}, c = 0;
  for (cell[2] = 0; cell[2] < (g->dim == 3 ? g->cells[2] : 1); ++cell[2])
    for (cell[1] = 0; cell[1] < g->cells[1]; ++cell[1])
      for (cell[0] = 0; cell[0] < g->cells[0]; ++cell[0], ++c) {
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        for (int d = 0; d < g->dim; ++d) {
          lo[d] = g->lower[d] + g->h[d] * (double)cell[d];
          hi[d] = lo[d] + g->h[d];
        }
        const double c_cell = coefficient * (cells ? cells[c] : 1.0);
        sum += (long double)c_cell * integral(g, lo, hi, l2 ? -1 : -2, 1);
      }
  return (double)sum;
}

/* The masses with the coefficients alpha, beta, times a value per cell when per_cell. */
static void test_masses(int dim, int k, int per_cell) {
  static const double lower[3] = {0.0, -1.0, 0.5}, upper[3] = {3.0, 1.0, 1.0};
  static const int coarse[3] = {2, 1, 2};
  const double alpha = 0.75, beta = 2.5;
  const char *what = per_cell ? "coefficients per cell" : "constant coefficients";
  grid g;
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  ts_matrix M = NULL, W = NULL, Winv = NULL;
  double alpha_cells[32], beta_cells[32];
  for (int c = 0; c < 32; ++c) {
    alpha_cells[c] = cell_coefficient(c, 0);
    beta_cells[c] = cell_coefficient(c, 1);
  }
  const double *ac = per_cell ? alpha_cells : NULL, *bc = per_cell ? beta_cells : NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 1, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 1, &p);
  if (!ierr) ierr = ts_matrix_assemble_mass(u, beta, bc, &M);
  if (!ierr) ierr = ts_matrix_assemble_mass(p, alpha, ac, &W);
  if (!ierr) ierr = ts_matrix_assemble_mass_inverse(p, alpha, ac, &Winv);
  if (!ok(!ierr, "%dD k = %d, %s: M_beta, W_alpha and W_alpha^{-1} assembled", dim, k, what)) {
    diag("%s", ts_error_message());
  } else {
    grid_init(&g, mesh, 1, dim, k, lower, upper);
    const int64_t nu = ts_dofs_count(u), np = ts_dofs_count(p);
    double *du = malloc((size_t)nu * sizeof *du), *dp = malloc((size_t)np * sizeof *dp);
    double *xu = malloc((size_t)nu * sizeof *xu), *xp = malloc((size_t)np * sizeof *xp);
    double asym_m, diag_m, asym_w, diag_w;
    ts_dofs_mass_diagonal(u, beta, bc, du);
    ts_dofs_mass_diagonal(p, alpha, ac, dp);
    symmetry_and_diagonal(M, du, &asym_m, &diag_m);
    symmetry_and_diagonal(W, dp, &asym_w, &diag_w);
    ok(asym_m < 1e-15 && diag_m < 1e-14 && asym_w < 1e-15 && diag_w < 1e-14,
       "%dD k = %d, %s: M_beta and W_alpha symmetric, their diagonals those of "
       "ts_dofs_mass_diagonal (differences %.1e %.1e %.1e %.1e)", dim, k, what, asym_m, diag_m,
       asym_w, diag_w);
    field_dofs(&g, 0, xu);
    field_dofs(&g, 1, xp);
    const double eu = weighted_integral(&g, bc, beta, 0), ep = weighted_integral(&g, ac, alpha, 1);
    const double ru = fabs(energy(M, xu) - eu) / eu, rp = fabs(energy(W, xp) - ep) / ep;
    ok(ru < 1e-13 && rp < 1e-13, "%dD k = %d, %s: u^T M_beta u = int beta |u|^2 (relative "
       "error %.1e), q^T W_alpha q = int alpha q^2 (%.1e) for u in RT_k, q in DGQ_k", dim, k,
       what, ru, rp);
    const double inv = inverse_error(Winv, W);
    ok(inv < 1e-12, "%dD k = %d, %s: W_alpha^{-1} W_alpha = I (max entry error %.1e)", dim, k,
       what, inv);
    free(du);
    free(dp);
    free(xu);
    free(xp);
  }
  ts_matrix_destroy(&M);
  ts_matrix_destroy(&W);
  ts_matrix_destroy(&Winv);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- MINRES */

/* Everything of one MINRES solve on the transformed system. */
typedef struct hdiv_system {
  ts_matrix M, D, Dt, Winv, S;
  ts_operator op[4], A, jacobi_op;
  ts_pc jacobi, amg, block;
  ts_solver minres;
  ts_vec b, x;
} hdiv_system;

static void hdiv_system_free(hdiv_system *s) {
  ts_solver_destroy(&s->minres);
  ts_pc_destroy(&s->block);
  ts_pc_destroy(&s->jacobi);
  ts_pc_destroy(&s->amg);
  ts_operator_destroy(&s->A);
  for (int i = 0; i < 4; ++i) ts_operator_destroy(&s->op[i]);
  ts_vec_destroy(&s->b);
  ts_vec_destroy(&s->x);
  ts_matrix_destroy(&s->M);
  ts_matrix_destroy(&s->D);
  ts_matrix_destroy(&s->Dt);
  ts_matrix_destroy(&s->Winv);
  ts_matrix_destroy(&s->S);
}

/* the matrices of A = [M D^T; D -W^{-1}] and of S~ */
static int hdiv_matrices(ts_dofs u, ts_dofs p, double alpha, double beta, hdiv_system *s) {
  TS_CALL(ts_matrix_assemble_mass(u, beta, NULL, &s->M));
  TS_CALL(ts_matrix_assemble_divergence(u, p, &s->D));
  TS_CALL(ts_matrix_transpose(s->D, &s->Dt));
  TS_CALL(ts_matrix_assemble_mass_inverse(p, alpha, NULL, &s->Winv));
  const int64_t np = ts_dofs_count(p);
  double *minus = malloc((size_t)np * sizeof *minus);
  for (int64_t i = 0; minus && i < np; ++i) minus[i] = -1.0;
  const int ierr = minus ? ts_matrix_scale(s->Winv, minus, NULL) : TS_ERR_MEMORY;
  free(minus);
  TS_CALL(ierr);
  TS_CALL(ts_matrix_assemble_hdiv_schur(u, p, &(ts_hdiv_coefficients){alpha, beta, NULL, NULL}, 0, &s->S));
  return 0;
}

/* MINRES to rtol from x = 0 on [M D^T; D -W^{-1}] x = b, b = rhs (host) or random when rhs
 * is NULL; the solution into x (host) unless NULL, the iterations into *iterations */
static int hdiv_solve(ts_backend b, ts_dofs u, ts_dofs p, const double *rhs, double rtol,
                      double *x, int *iterations) {
  hdiv_system s = {0};
  const int64_t n = ts_dofs_count(u) + ts_dofs_count(p);
  int ierr = hdiv_matrices(u, p, 1.0, 1.0, &s);
  if (!ierr) ierr = ts_operator_create_matrix(b, s.M, TS_DOUBLE, &s.op[0]);
  if (!ierr) ierr = ts_operator_create_matrix(b, s.Dt, TS_DOUBLE, &s.op[1]);
  if (!ierr) ierr = ts_operator_create_matrix(b, s.D, TS_DOUBLE, &s.op[2]);
  if (!ierr) ierr = ts_operator_create_matrix(b, s.Winv, TS_DOUBLE, &s.op[3]);
  if (!ierr) ierr = ts_operator_create_block(2, 2, s.op, &s.A);
  if (!ierr) ierr = ts_pc_create_jacobi(s.op[0], &s.jacobi);
  if (!ierr) ierr = ts_pc_create_boomeramg(b, s.S, &s.amg);
  if (!ierr) ierr = ts_pc_create_block_diagonal(2, (ts_pc[]){s.jacobi, s.amg}, &s.block);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &s.b);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &s.x);
  if (!ierr) ierr = rhs ? ts_vec_set_from_host(s.b, rhs) : ts_vec_set_random(s.b, 11);
  if (!ierr) ierr = ts_vec_set(s.x, 0.0);
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_MINRES, &s.minres);
  if (!ierr) ierr = ts_solver_set_operator(s.minres, s.A);
  if (!ierr) ierr = ts_solver_set_pc(s.minres, s.block);
  if (!ierr) ierr = ts_solver_set_tolerances(s.minres, rtol, 2000);
  if (!ierr) ierr = ts_solver_solve(s.minres, s.b, s.x);
  if (!ierr && x) ierr = ts_vec_get_to_host(s.x, x);
  if (!ierr) *iterations = ts_solver_iterations(s.minres);
  if (ierr) diag("%s", ts_error_message());
  hdiv_system_free(&s);
  return ierr;
}

/* MINRES to 1e-8 on a random right side: its iterations, or -1 */
static int hdiv_minres(ts_backend b, ts_dofs u, ts_dofs p) {
  int iterations = -1;
  return hdiv_solve(b, u, p, NULL, 1e-8, NULL, &iterations) ? -1 : iterations;
}

/* MINRES iterations per degree (rows) and level (columns): the counts of the two finest
 * levels differ by at most 3 for every degree (bounded in h), the finest level's by at most
 * 25% across the degrees (bounded in k), and none exceeds 60 */
static void test_minres(ts_backend b, int dim, int max_degree, int levels) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse[3] = {2, 2, 2};
  ts_mesh mesh = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, levels, &mesh);
  int its[TS_MAX_DEGREE][8], fewest = 1 << 30, most = 0, plateau = 1;
  char table[512] = "";
  for (int k = 0; !ierr && k <= max_degree; ++k) {
    snprintf(table + strlen(table), sizeof table - strlen(table), "%sk = %d:", k ? "; " : "", k);
    for (int level = 0; !ierr && level <= levels; ++level) {
      ts_fe rt = NULL, l2 = NULL;
      ts_dofs u = NULL, p = NULL;
      ierr = ts_fe_create_rt_ih(dim, k, &rt);
      if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
      if (!ierr) ierr = ts_dofs_create(mesh, rt, level, &u);
      if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
      its[k][level] = ierr ? -1 : hdiv_minres(b, u, p);
      ierr = ierr || its[k][level] < 0;
      snprintf(table + strlen(table), sizeof table - strlen(table), " %d", its[k][level]);
      ts_dofs_destroy(&u);
      ts_dofs_destroy(&p);
      ts_fe_destroy(&rt);
      ts_fe_destroy(&l2);
    }
    if (ierr) break;
    plateau &= abs(its[k][levels] - its[k][levels - 1]) <= 3;
    fewest = its[k][levels] < fewest ? its[k][levels] : fewest;
    most = its[k][levels] > most ? its[k][levels] : most;
  }
  ok(!ierr && plateau && 4 * most <= 5 * fewest && most <= 60,
     "%dD MINRES + diag(Jacobi(M_beta), AMG(S~)) to 1e-8 (preconditioned norm), iterations per "
     "level 0..%d: %s (the two finest levels within 3, the finest within 25%% across degrees, "
     "at most 60)", dim, levels, table);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- grad-div */

/* The grad-div problem beta u - grad(alpha div u) = f (paper 003, eq. 1) with alpha = beta
 * = 1 and u = grad phi, phi = -sin(pi x) sin(pi y) [sin(pi z)] / (dim pi^2): div u = prod
 * sin(pi x_d) vanishes on the boundary, so q = div u satisfies the natural condition of the
 * first-order form (eq. 6) and every flux is an unknown. */
static double sines(int dim, const double *x, int skip) {
  double s = 1.0;
  for (int d = 0; d < dim; ++d) s *= d == skip ? 1.0 : sin(M_PI * x[d]);
  return s;
}
static int exact_u(void *ctx, int dim, int64_t count, const double *x, double *u) {
  (void)ctx;
  for (int64_t p = 0; p < count; ++p)
    for (int i = 0; i < dim; ++i) /* d phi / d x_i */
      u[p * dim + i] = -cos(M_PI * x[p * dim + i]) * sines(dim, x + p * dim, i) / (dim * M_PI);
  return 0;
}
static int grad_div_rhs(void *ctx, int dim, int64_t count, const double *x, double *f) {
  exact_u(ctx, dim, count, x, f);
  for (int64_t p = 0; p < count; ++p) /* f = u - grad(div u), div u = prod sin */
    for (int i = 0; i < dim; ++i)
      f[p * dim + i] -= M_PI * cos(M_PI * x[p * dim + i]) * sines(dim, x + p * dim, i);
  return 0;
}

/* MINRES on [M D^T; D -W^{-1}] [u; W q] = [(f, phi); 0] to 1e-11; the L2 error of u */
static double grad_div_error(ts_backend b, ts_dofs u, ts_dofs p) {
  const int64_t n = ts_dofs_count(u) + ts_dofs_count(p);
  double *rhs = calloc((size_t)n, sizeof *rhs), *x = calloc((size_t)n, sizeof *x), error = INFINITY;
  int iterations = 0;
  int ierr = rhs && x ? ts_hdiv_load_vector(u, grad_div_rhs, NULL, rhs) : TS_ERR_MEMORY;
  if (!ierr) ierr = hdiv_solve(b, u, p, rhs, 1e-11, x, &iterations);
  if (!ierr) ierr = ts_hdiv_l2_error(u, x, exact_u, NULL, &error);
  if (ierr) diag("%s", ts_error_message());
  free(rhs);
  free(x);
  return ierr ? INFINITY : error;
}

/* L2 errors of u on levels 1..levels: the rates approach k + 1 (within 0.3 on the finest) */
static void test_grad_div(ts_backend b, int dim, int k, int levels) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse[3] = {2, 2, 2};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, levels, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  double previous = NAN, rate = NAN;
  char table[256] = "";
  int decreasing = 1;
  for (int level = 1; !ierr && level <= levels; ++level) {
    ts_dofs u = NULL, p = NULL;
    ierr = ts_dofs_create(mesh, rt, level, &u);
    if (!ierr) ierr = ts_dofs_create(mesh, l2, level, &p);
    const double e = ierr ? INFINITY : grad_div_error(b, u, p);
    ierr = ierr || !isfinite(e);
    if (level > 1) {
      rate = log2(previous / e);
      decreasing &= e < previous;
    }
    snprintf(table + strlen(table), sizeof table - strlen(table), " %.3e", e);
    previous = e;
    ts_dofs_destroy(&u);
    ts_dofs_destroy(&p);
  }
  ok(!ierr && decreasing && fabs(rate - (k + 1)) < 0.3,
     "%dD RT_%d grad-div (u = grad phi, MINRES + diag(Jacobi, AMG)): L2 errors of u on levels "
     "1..%d%s, last rate %.2f (k + 1 = %d)", dim, k, levels, table, rate, k + 1);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

static void test_data_arguments(void) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int coarse[2] = {1, 1};
  ts_mesh mesh = NULL;
  ts_fe q = NULL;
  ts_dofs p = NULL;
  double v[16], e = 0.0;
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &q);
  if (!ierr) ierr = ts_dofs_create(mesh, q, 0, &p);
  ok(!ierr && ts_hdiv_load_vector(p, grad_div_rhs, NULL, v) == TS_ERR_ARG &&
         strstr(ts_error_message(), "'dofs' is not of RT_k or DGQ_k") &&
         ts_hdiv_l2_error(NULL, v, exact_u, NULL, &e) == TS_ERR_ARG &&
         ts_hdiv_boundary_fluxes(p, TS_FACE_LEFT, exact_u, NULL, v) == TS_ERR_ARG &&
         strstr(ts_error_message(), "'velocity' is not of RT_k"),
     "H(div) data: a Q_k space or a NULL one is refused");
  ts_dofs_destroy(&p);
  ts_fe_destroy(&q);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  ts_backend b = NULL;
  if (ts_backend_open(tap_backend(), &b)) {
    plan(1);
    ok(0, "open backend '%s': %s", tap_backend(), ts_error_message());
    return exit_status();
  }
  test_kronecker();
  for (int per_cell = 0; per_cell <= 1; ++per_cell) {
    for (int k = 0; k <= 3; ++k) test_masses(2, k, per_cell);
    for (int k = 0; k <= 2; ++k) test_masses(3, k, per_cell);
  }
  test_data_arguments();
  if (*ts_hypre_version()) {
    test_minres(b, 2, 3, 3);
    test_minres(b, 3, 1, 3);
    for (int k = 0; k <= 2; ++k) test_grad_div(b, 2, k, 4);
    test_grad_div(b, 3, 1, 3);
  } else {
    skip(6, "built without hypre: no BoomerAMG for S~");
  }
  done_testing();
  ts_backend_destroy(&b);
  return exit_status();
}
