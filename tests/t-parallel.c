/* t-parallel.c -- the MPI domain decomposition (doc/parallel.md) against the one-process run,
 * on however many processes it is started (tests/t-parallel.sh: mpirun -np 1, 2, 3 and 4;
 * 3 is an uneven split, 4 a 2x2 one): random vectors, the distributed Laplacian and its
 * diagonal equal the one-process ones (gathered), GMRES with Jacobi takes the same
 * iterations, and CG with the Chebyshev-Jacobi preconditioner the same iterations to the same
 * solution and the same error against a manufactured solution, 2D and 3D, Q_1..Q_4, with
 * MPI_Dims_create's split and a split fixed along the last direction; and CG with the
 * distributed V-cycle (ts_parallel_pc_create_mg_jacobi, _chebyshev; 2D 3 levels, 3D 2), and
 * GMRES with the Jacobi one, and full multigrid with it (ts_pc_multigrid_fmg_solve), the
 * iterations and solution of the same with the one-process V-cycle of the same parts
 * (ts_pc_create_mg_jacobi; ts_pc_create_multigrid with Chebyshev smoothers); on the box also
 * CG with the V-cycle of vertex-patch smoothers (ts_parallel_pc_create_mg_patch) against the
 * one-process one, and one step of the distributed vertex-patch smoother equal to the
 * one-process step bit for bit, the ghosts their owners' bits.  The same on
 * Kershaw's mesh (2D Q2, Q3; 3D Q1, Q2): the mapped operator with per-cell coefficients and
 * its diagonal, CG with Chebyshev-Jacobi, and the V-cycles and FMG of the rediscretized
 * levels with coefficients per point.  Every process checks; rank 0 prints. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parallel-test.h"
#include "tap.h"
#include "tessera.h"

static const double pi = 3.14159265358979323846;
enum { TESTS_PER_CASE = 12 };

/* One-process and distributed objects of a case */
typedef struct problem {
  int dim, k;
  ts_dofs dofs;
  ts_operator A;
  ts_vec x, y;              /* one-process */
  ts_parallel par;
  ts_parallel_dofs pd;
  ts_operator Ad;
  ts_vec xd, yd;            /* distributed */
  int64_t n;
  double *g, *h;            /* host: a gathered and a one-process vector */
} problem;

/* level 0 of mesh: the Laplacian on a box, the operator with coefficients co on a mapped mesh */
static int setup(ts_backend be, ts_mesh mesh, ts_fe fe, const int *procs,
                 const ts_coefficients *co, problem *p) {
  const int mapped = ts_mesh_is_mapped(mesh) == 1;
  int ierr = ts_dofs_create(mesh, fe, 0, &p->dofs);
  if (!ierr) ierr = mapped ? ts_operator_create_mapped(be, p->dofs, co, TS_DOUBLE, &p->A)
                           : ts_operator_create_laplace(be, p->dofs, TS_DOUBLE, &p->A);
  if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(p->dofs), TS_DOUBLE, &p->x);
  if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(p->dofs), TS_DOUBLE, &p->y);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), p->dim, procs, &p->par);
  if (!ierr) ierr = ts_parallel_dofs_create(be, p->par, mesh, fe, 0, &p->pd);
  if (!ierr) ierr = mapped ? ts_parallel_operator_create_mapped(p->pd, co, &p->Ad)
                           : ts_parallel_operator_create_laplace(p->pd, &p->Ad);
  if (!ierr) ierr = ts_parallel_vec_create(p->pd, &p->xd);
  if (!ierr) ierr = ts_parallel_vec_create(p->pd, &p->yd);
  p->n = ts_dofs_count(p->dofs);
  if (!ierr && ts_parallel_dofs_global_count(p->pd) != p->n) ierr = TS_ERR_INTERNAL;
  if (!ierr && !(p->g = calloc((size_t)p->n, sizeof *p->g))) ierr = TS_ERR_MEMORY;
  if (!ierr && !(p->h = calloc((size_t)p->n, sizeof *p->h))) ierr = TS_ERR_MEMORY;
  return ierr;
}

static void teardown(problem *p) {
  ts_vec *v[] = {&p->x, &p->y, &p->xd, &p->yd};
  for (int i = 0; i < 4; ++i) ts_vec_destroy(v[i]);
  ts_operator_destroy(&p->A);
  ts_operator_destroy(&p->Ad);
  ts_parallel_dofs_destroy(&p->pd);
  ts_parallel_destroy(&p->par);
  ts_dofs_destroy(&p->dofs);
  free(p->g);
  free(p->h);
}

/* g = the gathered distributed vector, h = the one-process vector */
static int fetch(problem *p, ts_vec distributed, ts_vec one) {
  return fetch_both(distributed, one, p->g, p->h);
}

/* 1 when every process's entries of v, a vector of pd (owned and ghost), are the bits of
 * the gathered whole vector `whole`: the ghosts hold their owners' values exactly (v
 * consistent) */
static int consistent_on(ts_parallel_dofs pd, const double *whole, ts_vec v) {
  const int64_t local = ts_dofs_count(ts_parallel_dofs_local(pd));
  ts_vec z = NULL;
  double *mine = calloc((size_t)local + 1, sizeof *mine), *owners = calloc((size_t)local + 1, sizeof *owners);
  int ierr = mine && owners ? ts_parallel_vec_create(pd, &z) : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_parallel_vec_scatter(whole, z);
  if (!ierr) ierr = ts_vec_get_to_host(z, owners);
  if (!ierr) ierr = ts_vec_get_to_host(v, mine);
  const int same = !ierr && memcmp(mine, owners, (size_t)local * sizeof *mine) == 0;
  ts_vec_destroy(&z);
  free(mine);
  free(owners);
  return same;
}

/* consistent_on the problem's DoFs, against its gathered vector p->g */
static int consistent(problem *p, ts_vec v) { return consistent_on(p->pd, p->g, v); }

/* random vectors, A x and diag A: distributed = one-process */
static void check_operator(problem *p, const char *name) {
  int ierr = ts_vec_set_random(p->x, 7);
  if (!ierr) ierr = ts_vec_set_random(p->xd, 7);
  if (!ierr) ierr = fetch(p, p->xd, p->x);
  ok(everywhere(!ierr && max_difference(p->n, p->g, p->h) == 0.0),
     "%s: a random distributed vector has the one-process entries", name);
  if (!ierr) ierr = ts_operator_apply(p->A, p->x, p->y);
  if (!ierr) ierr = ts_operator_apply(p->Ad, p->xd, p->yd);
  if (!ierr) ierr = fetch(p, p->yd, p->y);
  double e = ierr ? INFINITY : max_difference(p->n, p->g, p->h) / max_abs(p->n, p->h);
  const int same = !ierr && consistent(p, p->yd);
  ok(everywhere(e <= 1e-13 && same),
     "%s: distributed A x = one-process A x (relative %.1e), every ghost its owner's bits (%s)%s%s",
     name, e, same ? "yes" : "no", ierr ? ": " : "", ierr ? ts_error_message() : "");
  if (!ierr) ierr = ts_operator_diagonal(p->A, p->y);
  if (!ierr) ierr = ts_operator_diagonal(p->Ad, p->yd);
  if (!ierr) ierr = fetch(p, p->yd, p->y);
  e = ierr ? INFINITY : max_difference(p->n, p->g, p->h) / max_abs(p->n, p->h);
  ok(everywhere(e <= 1e-13), "%s: distributed diag A = one-process diag A (relative %.1e)", name, e);
}

/* u = prod sin(pi x_d), -lap u = dim pi^2 u: b = M f at the DoFs (one-process mass) */
static int manufactured(ts_backend be, problem *p, double *u, ts_vec b) {
  ts_operator M = NULL;
  double *f = malloc((size_t)p->n * sizeof *f);
  int ierr = f ? 0 : TS_ERR_MEMORY;
  for (int64_t i = 0; !ierr && i < p->n; ++i) {
    double x[3];
    ierr = ts_dofs_point(p->dofs, i, x);
    u[i] = 1.0;
    for (int d = 0; d < p->dim; ++d) u[i] *= sin(pi * x[d]);
    f[i] = p->dim * pi * pi * u[i];
  }
  if (!ierr) ierr = ts_operator_create_mass(be, p->dofs, TS_DOUBLE, &M);
  if (!ierr) ierr = ts_vec_set_from_host(p->x, f);
  if (!ierr) ierr = ts_operator_apply(M, p->x, b);
  ts_operator_destroy(&M);
  free(f);
  return ierr;
}

/* type with pc from zero to rtol 1e-10: iterations into *its */
static int solve_with(ts_solver_type type, ts_operator A, ts_pc pc, ts_vec b, ts_vec x, int *its) {
  ts_solver s = NULL;
  int ierr = ts_solver_create(type, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, A);
  if (!ierr) ierr = ts_solver_set_pc(s, pc);
  if (!ierr) ierr = ts_solver_set_tolerances(s, 1e-10, 500);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_solve(s, b, x);
  *its = ts_solver_iterations(s);
  ts_solver_destroy(&s);
  return ierr;
}

/* CG + Chebyshev(Jacobi) of degree 3, or GMRES + Jacobi, from zero to rtol 1e-10:
 * iterations into *its */
static int solve(ts_solver_type type, ts_operator A, ts_vec b, ts_vec x, int *its) {
  ts_pc pc = NULL;
  int ierr = type == TS_SOLVER_CG ? ts_pc_create_chebyshev(A, 3, &pc) : ts_pc_create_jacobi(A, &pc);
  if (!ierr) ierr = solve_with(type, A, pc, b, x, its);
  ts_pc_destroy(&pc);
  return ierr;
}

static void check_solve(ts_backend be, problem *p, const char *name) {
  double *u = malloc((size_t)p->n * sizeof *u), *b = malloc((size_t)p->n * sizeof *b);
  ts_vec bs = NULL, bd = NULL;
  int its = -1, its_d = -2;
  int ierr = u && b ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_create(be, p->n, TS_DOUBLE, &bs);
  if (!ierr) ierr = ts_parallel_vec_create(p->pd, &bd);
  if (!ierr) ierr = manufactured(be, p, u, bs);
  if (!ierr) ierr = ts_vec_get_to_host(bs, b);
  if (!ierr) ierr = ts_parallel_vec_scatter(b, bd);
  if (!ierr) ierr = solve(TS_SOLVER_GMRES, p->A, bs, p->x, &its);
  if (!ierr) ierr = solve(TS_SOLVER_GMRES, p->Ad, bd, p->xd, &its_d);
  ok(everywhere(!ierr && its == its_d), "%s: GMRES + Jacobi: %d iterations, one process %d%s%s",
     name, its_d, its, ierr ? ": " : "", ierr ? ts_error_message() : "");
  if (!ierr) ierr = solve(TS_SOLVER_CG, p->A, bs, p->x, &its);
  if (!ierr) ierr = solve(TS_SOLVER_CG, p->Ad, bd, p->xd, &its_d);
  if (!ierr) ierr = fetch(p, p->xd, p->x);
  ok(everywhere(!ierr && its == its_d), "%s: CG + Chebyshev-Jacobi: %d iterations, one process %d%s%s",
     name, its_d, its, ierr ? ": " : "", ierr ? ts_error_message() : "");
  const double error = ierr ? INFINITY : max_difference(p->n, p->h, u);
  const double error_d = ierr ? INFINITY : max_difference(p->n, p->g, u);
  const double apart = ierr ? INFINITY : max_difference(p->n, p->g, p->h);
  ok(everywhere(apart <= 1e-12 && fabs(error_d - error) <= 1e-12 && error < 0.1),
     "%s: the same solution (apart %.1e) and error %.3e (one process %.3e)", name, apart,
     error_d, error);
  ts_vec_destroy(&bs);
  ts_vec_destroy(&bd);
  free(u);
  free(b);
}

/* The one-process V-cycle with Chebyshev(3) smoothers on the levels of mg: the parts of
 * ts_pc_create_multigrid, the coarse solve the one-level ts_pc_create_mg_jacobi of mg0 (the
 * LU of the coarsest Laplacian); the smoothers and transfers into parts (destroyed after pc) */
static int serial_chebyshev_mg(ts_mg mg, ts_mg mg0, int levels, ts_operator *P, ts_pc *S,
                               ts_pc *coarse, ts_pc *pc) {
  ts_operator A[4] = {NULL, NULL, NULL, NULL};
  int ierr = ts_pc_create_mg_jacobi(mg0, 1.0, 1, coarse);
  for (int l = 0; l < levels && !ierr; ++l) {
    A[l] = ts_mg_level_operator(mg, l);
    if (l) ierr = ts_mg_transfer_operator(mg, l, &P[l]);
    if (l && !ierr) ierr = ts_pc_create_chebyshev(A[l], 3, &S[l]);
  }
  if (!ierr) ierr = ts_pc_create_multigrid(levels, A, P, S, 1, *coarse, pc);
  return ierr;
}

/* The one-process V-cycle with vertex-patch smoothers (ts_pc_create_smoother of
 * ts_smoother_create_vertex_patch) on the levels 0..levels-1 of mesh: the parts of
 * ts_pc_create_multigrid as serial_chebyshev_mg; the levels' DoFs into dofs */
static int serial_patch_mg(ts_mg mg, ts_mesh mesh, ts_fe fe, int levels, ts_patch_variant variant,
                           ts_pc coarse, ts_dofs *dofs, ts_operator *P, ts_pc *S, ts_pc *pc) {
  ts_operator A[4] = {NULL, NULL, NULL, NULL};
  int ierr = 0;
  for (int l = 0; l < levels && !ierr; ++l) {
    ts_smoother patch = NULL;
    A[l] = ts_mg_level_operator(mg, l);
    if (!l) continue;
    ierr = ts_mg_transfer_operator(mg, l, &P[l]);
    if (!ierr) ierr = ts_dofs_create(mesh, fe, l, &dofs[l]);
    if (!ierr) ierr = ts_smoother_create_vertex_patch(A[l], dofs[l], variant, &patch);
    if (!ierr) ierr = ts_pc_create_smoother(patch, &S[l]);
  }
  if (!ierr) ierr = ts_pc_create_multigrid(levels, A, P, S, 1, coarse, pc);
  return ierr;
}

/* One step of the distributed vertex-patch smoother on the finest level from random x and b
 * against the one-process smoother's: the same bits, and every ghost its owner's (the
 * patches on an interface are computed on both sides from the same values) */
static void check_patch_step(ts_backend be, problem *p, const char *name, ts_parallel_mg pmg,
                             ts_operator A, ts_dofs dofs, int L, ts_patch_variant variant) {
  ts_smoother s = NULL, sd = NULL;
  ts_vec b = NULL, x = NULL, bd = NULL, xd = NULL;
  ts_parallel_dofs pd = ts_parallel_mg_dofs(pmg, L);
  const int64_t n = ts_operator_size(A);
  double *g = calloc((size_t)n, sizeof *g), *h = calloc((size_t)n, sizeof *h);
  int ierr = g && h ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_smoother_create_vertex_patch(A, dofs, variant, &s);
  if (!ierr) ierr = ts_parallel_smoother_create_vertex_patch(ts_parallel_mg_operator(pmg, L), pd, variant, &sd);
  if (!ierr) ierr = random_pairs(be, n, pd, &b, &x, &bd, &xd);
  if (!ierr) ierr = ts_smoother_apply(s, b, x);
  if (!ierr) ierr = ts_smoother_apply(sd, bd, xd);
  if (!ierr) ierr = ts_parallel_vec_gather(xd, g);
  if (!ierr) ierr = ts_vec_get_to_host(x, h);
  const double apart = ierr ? INFINITY : max_difference(n, g, h);
  const int same = !ierr && consistent_on(pd, g, xd);
  ok(everywhere(apart == 0.0 && same),
     "%s: a vertex-patch step (%s) on level %d: the one-process bits (%.1e apart), the ghosts "
     "their owners' (%s)%s%s", name, variant == TS_PATCH_FUSED ? "fused" : "separate", L, apart,
     same ? "yes" : "no", ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_vec *v[] = {&b, &x, &bd, &xd};
  for (int i = 0; i < 4; ++i) ts_vec_destroy(v[i]);
  ts_smoother_destroy(&s);
  ts_smoother_destroy(&sd);
  free(g), free(h);
}

/* CG + the distributed V-cycle (Jacobi 0.6, 2 steps; Chebyshev 3, 1 step), GMRES + the
 * Jacobi one and FMG with it on levels 0..L of mesh against the same with the one-process
 * V-cycle, for a random right side.  On a mapped mesh the levels' operators have the
 * coefficients co (ts_mg_create_mapped, ts_parallel_mg_create_mapped). */
static void check_mg_on(ts_backend be, problem *p, const char *name, ts_mesh mesh, int L,
                        const ts_coefficients *co) {
  const int mapped = ts_mesh_is_mapped(mesh) == 1;
  ts_fe fe = NULL;
  ts_mg mg = NULL, mg0 = NULL;
  ts_parallel_mg pmg = NULL;
  ts_pc pcs[3] = {NULL, NULL, NULL}, pcd[3] = {NULL, NULL, NULL}, coarse = NULL, S[4] = {NULL};
  ts_pc S_patch[4] = {NULL};
  ts_operator P[4] = {NULL}, P_patch[4] = {NULL};
  ts_dofs dofs[4] = {NULL};
  /* vertex patches on a box: Fused in 2D, Separate in 3D */
  const ts_patch_variant variant = p->dim == 2 ? TS_PATCH_FUSED : TS_PATCH_SEPARATE;
  ts_vec b = NULL, x = NULL, bd = NULL, xd = NULL;
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 0;
  o.coarse_degree = p->k; /* no degree levels: the distributed hierarchy has none */
  o.smoother = TS_MG_SMOOTHER_CHEBYSHEV; /* the hierarchies' own smoothers are not used */
  int ierr = ts_fe_create_q(p->dim, p->k, &fe);
  if (!ierr) ierr = mapped ? ts_mg_create_mapped(be, mesh, fe, L, co, &o, &mg)
                           : ts_mg_create(be, mesh, fe, L, &o, &mg);
  if (!ierr) ierr = mapped ? ts_mg_create_mapped(be, mesh, fe, 0, co, &o, &mg0)
                           : ts_mg_create(be, mesh, fe, 0, &o, &mg0);
  if (!ierr) ierr = ts_pc_create_mg_jacobi(mg, 0.6, 2, &pcs[0]);
  if (!ierr) ierr = serial_chebyshev_mg(mg, mg0, L + 1, P, S, &coarse, &pcs[1]);
  if (!ierr) ierr = mapped ? ts_parallel_mg_create_mapped(be, p->par, mesh, fe, 0, L, co, &pmg)
                           : ts_parallel_mg_create(be, p->par, mesh, fe, 0, L, &pmg);
  if (!ierr) ierr = ts_parallel_pc_create_mg_jacobi(pmg, 0.6, 2, &pcd[0]);
  if (!ierr) ierr = ts_parallel_pc_create_mg_chebyshev(pmg, 3, 1, &pcd[1]);
  if (!ierr && !mapped)
    ierr = serial_patch_mg(mg, mesh, fe, L + 1, variant, coarse, dofs, P_patch, S_patch, &pcs[2]);
  if (!ierr && !mapped) ierr = ts_parallel_pc_create_mg_patch(pmg, variant, 1, &pcd[2]);
  ts_operator A = ierr ? NULL : ts_mg_level_operator(mg, L);
  ts_operator Ad = ierr ? NULL : ts_parallel_mg_operator(pmg, L);
  const int64_t n = A ? ts_operator_size(A) : 0;
  double *g = calloc((size_t)n + 1, sizeof *g), *h = calloc((size_t)n + 1, sizeof *h);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_parallel_vec_create(ts_parallel_mg_dofs(pmg, L), &bd);
  if (!ierr) ierr = ts_parallel_vec_create(ts_parallel_mg_dofs(pmg, L), &xd);
  if (!ierr) ierr = ts_vec_set_random(b, 3);
  if (!ierr) ierr = ts_vec_set_random(bd, 3);
  static const char *smoother[4] = {"Jacobi", "Chebyshev", "Jacobi", "vertex patches"};
  for (int m = 0; m < (mapped ? 3 : 4); ++m) { /* CG, CG, GMRES, CG */
    const ts_solver_type type = m == 2 ? TS_SOLVER_GMRES : TS_SOLVER_CG;
    const int kind = m == 2 ? 0 : m == 3 ? 2 : m;
    int its = -1, its_d = -2, e = ierr;
    if (!e) e = solve_with(type, A, pcs[kind], b, x, &its);
    if (!e) e = solve_with(type, Ad, pcd[kind], bd, xd, &its_d);
    if (!e) e = ts_parallel_vec_gather(xd, g);
    if (!e) e = ts_vec_get_to_host(x, h);
    const double apart = e ? INFINITY : max_difference(n, g, h) / max_abs(n, h);
    ok(everywhere(!e && its == its_d && apart <= 1e-12),
       "%s: %s + V-cycle (%s), %d levels: %d iterations, one process %d, solutions %.1e apart%s%s",
       name, type == TS_SOLVER_CG ? "CG" : "GMRES", smoother[m], L + 1, its_d, its, apart, e ? ": " : "",
       e ? ts_error_message() : "");
  }
  { /* full multigrid with the Jacobi V-cycle's parts (Chebyshev's on distorted cells, where
     * the Jacobi V-cycle alone converges too slowly) */
    int its = -1, its_d = -2, e = ierr;
    if (!e) e = ts_vec_set(x, 0.0);
    if (!e) e = ts_vec_set(xd, 0.0);
    if (!e) e = ts_pc_multigrid_fmg_solve(pcs[mapped], b, x, 1e-10, 100, &its);
    if (!e) e = ts_pc_multigrid_fmg_solve(pcd[mapped], bd, xd, 1e-10, 100, &its_d);
    if (!e) e = ts_parallel_vec_gather(xd, g);
    if (!e) e = ts_vec_get_to_host(x, h);
    const double apart = e ? INFINITY : max_difference(n, g, h) / max_abs(n, h);
    ok(everywhere(!e && its == its_d && apart <= 1e-12),
       "%s: FMG (%s V-cycles), %d levels: %d V-cycles, one process %d, solutions %.1e "
       "apart%s%s", name, smoother[mapped], L + 1, its_d, its, apart, e ? ": " : "",
       e ? ts_error_message() : "");
  }
  if (!mapped) {
    if (!ierr) check_patch_step(be, p, name, pmg, A, dofs[L], L, variant);
    else skip(1, "no hierarchy");
  }
  ts_vec *v[] = {&b, &x, &bd, &xd};
  for (int i = 0; i < 4; ++i) ts_vec_destroy(v[i]);
  for (int i = 0; i < 3; ++i) {
    ts_pc_destroy(&pcs[i]);
    ts_pc_destroy(&pcd[i]);
  }
  ts_pc_destroy(&coarse);
  for (int i = 0; i < 4; ++i) {
    ts_pc_destroy(&S[i]);
    ts_pc_destroy(&S_patch[i]);
    ts_operator_destroy(&P[i]);
    ts_operator_destroy(&P_patch[i]);
    ts_dofs_destroy(&dofs[i]);
  }
  ts_parallel_mg_destroy(&pmg);
  ts_mg_destroy(&mg);
  ts_mg_destroy(&mg0);
  ts_fe_destroy(&fe);
  free(g);
  free(h);
}

/* check_mg_on a box of 7 x 5 (2D, 3 levels) or 3 x 2 x 4 cells (3D, 2 levels): every split
 * of up to 4 processes nests; the coarse LU of Q_4 has 1,989 rows, and every process
 * factors it. */
static void check_mg(ts_backend be, problem *p, const char *name) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse2[2] = {7, 5}, coarse3[3] = {3, 2, 4};
  const int L = p->dim == 2 ? 2 : 1;
  ts_mesh mesh = NULL;
  if (!ts_mesh_create_box(p->dim, lower, upper, p->dim == 2 ? coarse2 : coarse3, L, &mesh)) {
    check_mg_on(be, p, name, mesh, L, NULL);
  } else {
    ok(0, "%s: the multigrid mesh: %s", name, ts_error_message());
    skip(5, "no mesh");
  }
  ts_mesh_destroy(&mesh);
}

static void run_case(ts_backend be, int dim, int k, int fixed_split, int size) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int coarse2[2] = {7, 5}, coarse3[3] = {4, 3, 5};
  int procs[3] = {1, 1, 1};
  procs[dim - 1] = size; /* the fixed split: all processes along the last direction */
  char name[96];
  problem p = {.dim = dim, .k = k};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, dim == 2 ? coarse2 : coarse3, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = setup(be, mesh, fe, fixed_split ? procs : NULL, NULL, &p);
  if (!ierr) ierr = ts_parallel_procs(p.par, procs);
  /* every block with interior cells overlaps its halo exchange (on cuda and hip, from Q3 on;
   * omp computes the block at once): the results below are the one-process ones either way */
  if (!ierr) ierr = ts_parallel_set_overlap(p.par, 1);
  if (dim == 3) snprintf(name, sizeof name, "3D Q%d on %dx%dx%d", k, procs[0], procs[1], procs[2]);
  else snprintf(name, sizeof name, "2D Q%d on %dx%d", k, procs[0], procs[1]);
  if (!everywhere(!ierr)) {
    ok(0, "%s: setup: %s", name, ts_error_message());
    skip(TESTS_PER_CASE - 1, "no setup");
  } else {
    check_operator(&p, name);
    check_solve(be, &p, name);
    check_mg(be, &p, name);
  }
  teardown(&p);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- mapped meshes */

enum { MAPPED_TESTS_PER_CASE = 8 };

/* kappa = 1 + x^2 + y/2 and c = x y at the points (positive on the unit box): the
 * coefficients per point of the mapped hierarchies */
static int kappa_at(void *ctx, int dim, int64_t n, const double *x, double *v) {
  (void)ctx;
  for (int64_t i = 0; i < n; ++i) v[i] = 1.0 + x[i * dim] * x[i * dim] + 0.5 * x[i * dim + 1];
  return 0;
}

static int reaction_at(void *ctx, int dim, int64_t n, const double *x, double *v) {
  (void)ctx;
  for (int64_t i = 0; i < n; ++i) v[i] = x[i * dim] * x[i * dim + 1];
  return 0;
}

/* Per cell of level 0 (cells in all): in 2D a kappa tensor (k00 k01 k11), in 3D a scalar,
 * and c, all varying from cell to cell, so that a block that took another block's cells
 * would show */
static int cell_coefficients(int dim, int64_t cells, double **kappa, double **c,
                             ts_coefficients *co) {
  const int nk = dim == 2 ? 3 : 1;
  *kappa = calloc((size_t)(cells * nk), sizeof **kappa);
  *c = calloc((size_t)cells, sizeof **c);
  if (!*kappa || !*c) return TS_ERR_MEMORY;
  for (int64_t i = 0; i < cells; ++i) {
    const double t = 1.0 + 0.5 * sin(0.7 * (double)i);
    if (dim == 2) {
      (*kappa)[3 * i] = t + 1.0;
      (*kappa)[3 * i + 1] = 0.3;
      (*kappa)[3 * i + 2] = 1.5;
    } else {
      (*kappa)[i] = t;
    }
    (*c)[i] = 0.5 * (double)(i % 3);
  }
  *co = (ts_coefficients){.kappa_components = nk, .kappa = *kappa, .reaction = *c};
  return 0;
}

/* CG + Chebyshev-Jacobi from a random right side: the same iterations and solution */
static void check_random_solve(ts_backend be, problem *p, const char *name) {
  ts_vec b = NULL, bd = NULL;
  int its = -1, its_d = -2;
  int ierr = ts_vec_create(be, p->n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_parallel_vec_create(p->pd, &bd);
  if (!ierr) ierr = ts_vec_set_random(b, 5);
  if (!ierr) ierr = ts_vec_set_random(bd, 5);
  if (!ierr) ierr = solve(TS_SOLVER_CG, p->A, b, p->x, &its);
  if (!ierr) ierr = solve(TS_SOLVER_CG, p->Ad, bd, p->xd, &its_d);
  if (!ierr) ierr = fetch(p, p->xd, p->x);
  const double apart = ierr ? INFINITY : max_difference(p->n, p->g, p->h) / max_abs(p->n, p->h);
  ok(everywhere(!ierr && its == its_d && apart <= 1e-12),
     "%s: CG + Chebyshev-Jacobi: %d iterations, one process %d, solutions %.1e apart%s%s", name,
     its_d, its, apart, ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_vec_destroy(&b);
  ts_vec_destroy(&bd);
}

/* Kershaw's mesh (epsilon 0.3): the operator with per-cell coefficients on level 0 of 12 x 8
 * (2D) or 6 x 4 x 4 cells (3D; 3 processes along the last direction: 3 + 3 + 2 or
 * 2 + 1 + 1 cells) against the one-process one (A x, diag A, CG), and the V-cycles with
 * coefficients per point on levels 0..L of 6 x 4 (L = 2) or 6 x 2 x 4 cells (L = 1) */
static void run_mapped_case(ts_backend be, int dim, int k, int fixed_split, int size) {
  static const int coarse2[2] = {12, 8}, coarse3[3] = {6, 4, 4};
  static const int mg2[2] = {6, 4}, mg3[3] = {6, 2, 4};
  const ts_coefficients per_point = {.kappa_components = 1, .kappa_at = kappa_at,
                                     .reaction_at = reaction_at};
  int procs[3] = {1, 1, 1};
  procs[dim - 1] = size;
  char name[96];
  problem p = {.dim = dim, .k = k};
  ts_mesh mesh = NULL, mg_mesh = NULL;
  ts_fe fe = NULL;
  double *kappa = NULL, *c = NULL;
  ts_coefficients co;
  const int64_t cells = dim == 2 ? 12 * 8 : 6 * 4 * 4;
  int ierr = ts_mesh_create_kershaw(dim, dim == 2 ? coarse2 : coarse3, 0, 0.3, &mesh);
  if (!ierr) ierr = ts_mesh_create_kershaw(dim, dim == 2 ? mg2 : mg3, dim == 2 ? 2 : 1, 0.6, &mg_mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
  if (!ierr) ierr = cell_coefficients(dim, cells, &kappa, &c, &co);
  if (!ierr) ierr = setup(be, mesh, fe, fixed_split ? procs : NULL, &co, &p);
  if (!ierr) ierr = ts_parallel_procs(p.par, procs);
  if (dim == 3) snprintf(name, sizeof name, "Kershaw 3D Q%d on %dx%dx%d", k, procs[0], procs[1], procs[2]);
  else snprintf(name, sizeof name, "Kershaw 2D Q%d on %dx%d", k, procs[0], procs[1]);
  if (!everywhere(!ierr)) {
    ok(0, "%s: setup: %s", name, ts_error_message());
    skip(MAPPED_TESTS_PER_CASE - 1, "no setup");
  } else {
    check_operator(&p, name);
    check_random_solve(be, &p, name);
    check_mg_on(be, &p, name, mg_mesh, dim == 2 ? 2 : 1, &per_point);
  }
  teardown(&p);
  free(kappa);
  free(c);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mg_mesh);
  ts_mesh_destroy(&mesh);
}

/* What the distributed hierarchy refuses: levels out of order, a bad weight, a precision and
 * coarse degrees out of range */
static void check_mg_refusals(ts_backend be) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int many[2] = {12, 12}; /* level 0 splits evenly on 1-4 processes */
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_parallel par = NULL;
  ts_parallel_mg mg = NULL;
  ts_pc pc = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, many, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), 2, NULL, &par);
  int order = ierr ? 0 : ts_parallel_mg_create(be, par, mesh, fe, 1, 0, &mg);
  order = order == TS_ERR_ARG && !mg && strstr(ts_error_message(), "coarse_level <= finest_level");
  if (!ierr) ierr = ts_parallel_mg_create(be, par, mesh, fe, 0, 1, &mg);
  int weight = ierr ? 0 : ts_parallel_pc_create_mg_jacobi(mg, 3.0, 1, &pc);
  weight = weight == TS_ERR_ARG && !pc && strstr(ts_error_message(), "weight = 3, allowed (0, 2]");
  ts_smoother s = NULL;
  int mixed = ierr ? 0 : ts_parallel_smoother_create_vertex_patch(ts_parallel_mg_operator(mg, 1),
                                                                  ts_parallel_mg_dofs(mg, 0), TS_PATCH_FUSED, &s);
  mixed = mixed == TS_ERR_ARG && !s && strstr(ts_error_message(), "A is not the distributed Laplacian of these DoFs");
  ok(everywhere(!ierr && order && weight && mixed), "ts_parallel_mg_create refuses levels 1..0, "
     "ts_parallel_pc_create_mg_jacobi a weight of 3, ts_parallel_smoother_create_vertex_patch "
     "level 1's Laplacian on level 0's DoFs%s%s", ierr ? ": " : "",
     ierr ? ts_error_message() : "");
  int bad = ierr ? 0 : ts_parallel_mg_set_precision(mg, (ts_precision)7);
  bad = bad == TS_ERR_ARG && strstr(ts_error_message(), "precision = 7, allowed");
  int low = ierr ? 0 : ts_parallel_mg_set_coarse_degree(mg, 0);
  low = low == TS_ERR_ARG && strstr(ts_error_message(), "degree = 0, allowed 1..2");
  int high = ierr ? 0 : ts_parallel_mg_set_coarse_degree(mg, 3);
  high = high == TS_ERR_ARG && strstr(ts_error_message(), "degree = 3, allowed 1..2");
  ok(everywhere(!ierr && bad && low && high), "ts_parallel_mg_set_precision refuses precision "
     "7, ts_parallel_mg_set_coarse_degree degrees 0 and 3 of Q2%s%s", ierr ? ": " : "",
     ierr ? ts_error_message() : "");
  ts_parallel_mg_destroy(&mg);
  ts_parallel_destroy(&par);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- gathered coarse levels */

enum { AGGLOMERATION_TESTS = 1 + 1 + 6 + 6 + 4 };

/* whether level l can be the split level: at least as many cells as processes in every
 * direction, min_cells per process and (balanced) the largest block at most 1/8 above the
 * mean (0 for a level the mesh lacks) */
static int can_split(ts_mesh mesh, const int *procs, int dim, int l, int64_t min_cells,
                     int balanced) {
  int64_t cells[3], total = 1, largest = 1;
  int size = 1, splits = !ts_mesh_cells(mesh, l, cells);
  for (int d = 0; splits && d < dim; ++d) {
    splits = cells[d] >= procs[d];
    total *= cells[d];
    largest *= (cells[d] + procs[d] - 1) / procs[d];
    size *= procs[d];
  }
  return splits && total / size >= min_cells && (!balanced || largest * size * 8 <= total * 9);
}

/* the split level doc/parallel.md section 5 item 3 states: the lowest of coarse..finest
 * that can split with balanced blocks; if none can, the lowest that can split */
static int expected_split(ts_mesh mesh, const int *procs, int dim, int coarse, int finest,
                          int64_t min_cells) {
  for (int balanced = 1; balanced >= 0; --balanced)
    for (int l = coarse; l <= finest; ++l)
      if (can_split(mesh, procs, dim, l, min_cells, balanced)) return l;
  return finest;
}

/* Levels 0..3 of one level-0 cell with par's agglomeration (min_cells): the levels with fewer
 * cells than processes in a direction (once refused) or than min_cells per process are
 * gathered, ts_parallel_mg_split_level says where the split is, the
 * gathered levels have no distributed DoFs, and bad arguments are refused */
static void check_split(ts_backend be, ts_parallel par, int size, int64_t min_cells) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int one[2] = {1, 1};
  ts_mesh single = NULL;
  ts_fe fe = NULL;
  ts_parallel_mg mg = NULL;
  int procs[3] = {1, 1, 1};
  int ierr = ts_mesh_create_box(2, lower, upper, one, 3, &single);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_parallel_procs(par, procs);
  if (!ierr) ierr = ts_parallel_mg_create(be, par, single, fe, 0, 3, &mg);
  const int split = ierr ? -2 : ts_parallel_mg_split_level(mg);
  const int expected = ierr ? -3 : expected_split(single, procs, 2, 0, 3, min_cells);
  int below = 1;
  if (!ierr && split > 0)
    below = !ts_parallel_mg_dofs(mg, split - 1) && strstr(ts_error_message(), "gathered on every process");
  const int negative = ts_parallel_set_agglomeration(par, -1) == TS_ERR_ARG &&
                       strstr(ts_error_message(), "min_cells = -1, allowed >= 0");
  const int null = ts_parallel_set_agglomeration(NULL, 0) == TS_ERR_ARG;
  const int overlap = ts_parallel_set_overlap(par, -1) == TS_ERR_ARG &&
                      strstr(ts_error_message(), "min_dofs = -1, allowed >= 0") &&
                      ts_parallel_set_overlap(NULL, 0) == TS_ERR_ARG;
  ok(everywhere(!ierr && split == expected && below && negative && null && overlap &&
                ts_parallel_mg_split_level(NULL) == -1),
     "levels 0..3 of one level-0 cell on %d processes: split level %d (expected %d), the levels "
     "below without distributed DoFs; ts_parallel_set_agglomeration and _set_overlap refuse -1 "
     "and NULL%s%s",
     size, split, expected, ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_parallel_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&single);
}

/* The V-cycles and FMG of check_mg_on with gathered coarse levels: 2D Q2 on one level-0 cell,
 * 3 levels above it, at least 4 cells per process; 3D Q2 on one cell, 2 levels, 2 cells per
 * process; Kershaw 2D Q2 on 6 x 4 cells, 2 levels, 25 cells per process (per-point
 * coefficients): on every process count a level or more gathered, the one-process cycle */
/* The balance of the split level, by hand: 3x2 level-0 cells, levels 0..2, split by
 * MPI_Dims_create as 1x1, 2x1, 3x1 or 2x2.  Level 0 deals out 2 + 1 cells along x on 2 and
 * on 2x2 processes (the largest block 1/3 above the mean), level 1's 6 cells 3 + 3: split
 * level 1; on 3 processes level 0's blocks are equal: split level 0. */
static void check_balance(ts_backend be, int size) {
  static const double lower[2] = {0, 0}, upper[2] = {1.5, 1};
  static const int cells[2] = {3, 2};
  static const int expected[5] = {-1, 0, 1, 0, 1};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_parallel par = NULL;
  ts_parallel_mg mg = NULL;
  int ierr = ts_mesh_create_box(2, lower, upper, cells, 2, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &fe);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), 2, NULL, &par);
  if (!ierr) ierr = ts_parallel_mg_create(be, par, mesh, fe, 0, 2, &mg);
  const int split = ierr ? -2 : ts_parallel_mg_split_level(mg);
  const int want = size <= 4 ? expected[size] : split; /* by hand for 1-4 processes */
  ok(everywhere(!ierr && split == want), "3x2 level-0 cells on %d processes: split level %d "
     "(expected %d: the lowest level whose largest block is at most 1/8 above the mean)%s%s",
     size, split, want, ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_parallel_mg_destroy(&mg);
  ts_parallel_destroy(&par);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

static void check_agglomeration(ts_backend be, int size) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int one[3] = {1, 1, 1}, kershaw[2] = {6, 4};
  static const int64_t min_cells[3] = {4, 2, 25};
  const ts_coefficients per_point = {.kappa_components = 1, .kappa_at = kappa_at,
                                     .reaction_at = reaction_at};
  check_balance(be, size);
  for (int c = 0; c < 3; ++c) {
    const int dim = c == 1 ? 3 : 2, L = c == 1 ? 2 : c == 0 ? 3 : 2;
    problem p = {.dim = dim, .k = 2};
    ts_mesh mesh = NULL;
    int procs[3] = {1, 1, 1};
    char name[96];
    int ierr = c == 2 ? ts_mesh_create_kershaw(2, kershaw, L, 0.6, &mesh)
                      : ts_mesh_create_box(dim, lower, upper, one, L, &mesh);
    if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), dim, NULL, &p.par);
    if (!ierr) ierr = ts_parallel_set_agglomeration(p.par, min_cells[c]);
    if (!ierr) ierr = ts_parallel_procs(p.par, procs);
    const int split = ierr ? -1 : expected_split(mesh, procs, dim, 0, L, min_cells[c]);
    snprintf(name, sizeof name, "%s %dD Q2, levels 0..%d gathered", c == 2 ? "Kershaw" : "box",
             dim, split);
    if (!everywhere(!ierr)) {
      ok(0, "%s: setup: %s", name, ts_error_message());
      skip(c == 2 ? 3 : c == 0 ? 6 : 5, "no setup");
    } else {
      if (c == 0) check_split(be, p.par, size, min_cells[c]);
      check_mg_on(be, &p, name, mesh, L, c == 2 ? &per_point : NULL);
    }
    ts_parallel_destroy(&p.par);
    ts_mesh_destroy(&mesh);
  }
}

/* ---------------------------------------------------------------- mixed precision */

enum { MIXED_TESTS = 3 * 2 + 1 };

/* A Q_k hierarchy of mesh's levels 0..L on the processes of comm in precision p with degree
 * levels down to coarse_degree (0: none) and its V-cycle (Chebyshev(3), 1 step; patch: the
 * vertex patches) */
static int mixed_cycle(ts_backend be, MPI_Comm comm, ts_mesh mesh, ts_fe fe, int L,
                       const ts_coefficients *co, ts_precision p, int patch, int coarse_degree,
                       ts_parallel *par, ts_parallel_mg *mg, ts_pc *pc) {
  const int dim = ts_mesh_dim(mesh);
  int ierr = ts_parallel_create((int)MPI_Comm_c2f(comm), dim, NULL, par);
  if (!ierr) ierr = co ? ts_parallel_mg_create_mapped(be, *par, mesh, fe, 0, L, co, mg)
                       : ts_parallel_mg_create(be, *par, mesh, fe, 0, L, mg);
  if (!ierr) ierr = ts_parallel_mg_set_precision(*mg, p);
  if (!ierr && coarse_degree) ierr = ts_parallel_mg_set_coarse_degree(*mg, coarse_degree);
  if (!ierr) ierr = patch ? ts_parallel_pc_create_mg_patch(*mg, dim == 2 ? TS_PATCH_FUSED : TS_PATCH_SEPARATE, 1, pc)
                          : ts_parallel_pc_create_mg_chebyshev(*mg, 3, 1, pc);
  return ierr;
}

typedef struct mixed_run {
  ts_parallel par;
  ts_parallel_mg mg;
  ts_pc pc;
  ts_vec b, x;
  double *g;                    /* x gathered */
  int L, its;
  int coarse_degree;            /* the degree levels' lowest (0: none) */
} mixed_run;

static void mixed_free(mixed_run *r) {
  ts_vec_destroy(&r->b);
  ts_vec_destroy(&r->x);
  ts_pc_destroy(&r->pc);
  ts_parallel_mg_destroy(&r->mg);
  ts_parallel_destroy(&r->par);
  free(r->g);
}

/* the run's hierarchy and vectors, b random (the one-process entries on any processes) */
static int mixed_setup(ts_backend be, MPI_Comm comm, ts_mesh mesh, ts_fe fe, int L,
                       const ts_coefficients *co, ts_precision p, int patch, mixed_run *r) {
  r->L = L;
  int ierr = mixed_cycle(be, comm, mesh, fe, L, co, p, patch, r->coarse_degree, &r->par, &r->mg,
                         &r->pc);
  if (!ierr) ierr = ts_parallel_set_overlap(r->par, 1); /* as in run_case */
  ts_parallel_dofs fine = ierr ? NULL : ts_parallel_mg_dofs(r->mg, L);
  if (!ierr) ierr = ts_parallel_vec_create(fine, &r->b);
  if (!ierr) ierr = ts_parallel_vec_create(fine, &r->x);
  if (!ierr) ierr = ts_vec_set_random(r->b, 11);
  const int64_t n = ierr ? 0 : ts_parallel_dofs_global_count(fine);
  if (!ierr && !(r->g = calloc((size_t)n, sizeof *r->g))) ierr = TS_ERR_MEMORY;
  return ierr;
}

/* what: 0 one V-cycle, 1 FMG to 1e-10, 2 CG to 1e-10 with the V-cycle; x gathered into g */
static int mixed_solve(mixed_run *r, int what) {
  r->its = 0;
  int ierr = ts_vec_set(r->x, 0.0);
  if (!ierr && what == 0) ierr = ts_pc_apply(r->pc, r->b, r->x);
  if (!ierr && what == 1) ierr = ts_pc_multigrid_fmg_solve(r->pc, r->b, r->x, 1e-10, 50, &r->its);
  if (!ierr && what == 2)
    ierr = solve_with(TS_SOLVER_CG, ts_parallel_mg_operator(r->mg, r->L), r->pc, r->b, r->x,
                      &r->its);
  if (!ierr) ierr = ts_parallel_vec_gather(r->x, r->g);
  return ierr;
}

/* Mixed precision against double and against one process (the same hierarchy on
 * MPI_COMM_SELF): 2D Q2 on 4 x 4 cells (3 levels; Chebyshev and vertex patches), 3D Q3 on
 * 2 x 2 x 2 (2 levels; Chebyshev), Kershaw 2D Q2 on 6 x 4 (2 levels, per-point coefficients;
 * Chebyshev).  One V-cycle: single-precision round-off away from the double one (and not
 * closer than 1e-12: it is single precision) and from one process's; FMG to 1e-10: the
 * iterations of one process, at most one more than double's, the solution within 1e-8 of
 * double's; CG + the patch V-cycle: one process's iterations. */
static void check_mixed(ts_backend be) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int box2[2] = {4, 4}, box3[3] = {2, 2, 2}, kershaw[2] = {6, 4};
  const ts_coefficients per_point = {.kappa_components = 1, .kappa_at = kappa_at,
                                     .reaction_at = reaction_at};
  for (int c = 0; c < 3; ++c) {
    const int dim = c == 1 ? 3 : 2, k = c == 1 ? 3 : 2, L = c == 0 ? 3 : 2;
    const ts_coefficients *co = c == 2 ? &per_point : NULL;
    static const char *names[3] = {"2D Q2 box", "3D Q3 box", "Kershaw 2D Q2"};
    ts_mesh mesh = NULL;
    ts_fe fe = NULL;
    mixed_run mixed = {0}, one = {0}, dbl = {0};
    int ierr = c == 2 ? ts_mesh_create_kershaw(2, kershaw, L, 0.6, &mesh)
                      : ts_mesh_create_box(dim, lower, upper, dim == 2 ? box2 : box3, L, &mesh);
    if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
    if (!ierr) ierr = mixed_setup(be, MPI_COMM_WORLD, mesh, fe, L, co, TS_SINGLE, 0, &mixed);
    if (!ierr) ierr = mixed_setup(be, MPI_COMM_SELF, mesh, fe, L, co, TS_SINGLE, 0, &one);
    if (!ierr) ierr = mixed_setup(be, MPI_COMM_WORLD, mesh, fe, L, co, TS_DOUBLE, 0, &dbl);
    const int64_t n = ierr ? 0 : ts_parallel_dofs_global_count(ts_parallel_mg_dofs(mixed.mg, L));
    for (int what = 0; what < 2; ++what) {
      int e = ierr;
      if (!e) e = mixed_solve(&mixed, what);
      if (!e) e = mixed_solve(&one, what);
      if (!e) e = mixed_solve(&dbl, what);
      const double scale = e ? 1.0 : max_abs(n, dbl.g);
      const double to_one = e ? INFINITY : max_difference(n, mixed.g, one.g) / scale;
      const double to_double = e ? INFINITY : max_difference(n, mixed.g, dbl.g) / scale;
      if (what == 0)
        ok(everywhere(!e && to_one <= 1e-5 && to_double <= 1e-5 && to_double > 1e-12),
           "%s, mixed precision: one V-cycle %.1e from one process's, %.1e from double's%s%s",
           names[c], to_one, to_double, e ? ": " : "", e ? ts_error_message() : "");
      else
        ok(everywhere(!e && mixed.its == one.its && mixed.its <= dbl.its + 1 &&
                      to_double <= 1e-8),
           "%s, mixed precision: FMG %d V-cycles (one process %d, double %d), %.1e from "
           "double's solution%s%s", names[c], mixed.its, one.its, dbl.its, to_double,
           e ? ": " : "", e ? ts_error_message() : "");
    }
    if (c == 0) { /* the vertex patches in single precision */
      mixed_run patch = {0}, patch_one = {0};
      int e = ierr;
      if (!e) e = mixed_setup(be, MPI_COMM_WORLD, mesh, fe, L, NULL, TS_SINGLE, 1, &patch);
      if (!e) e = mixed_setup(be, MPI_COMM_SELF, mesh, fe, L, NULL, TS_SINGLE, 1, &patch_one);
      if (!e) e = mixed_solve(&patch, 2);
      if (!e) e = mixed_solve(&patch_one, 2);
      const double apart = e ? INFINITY : max_difference(n, patch.g, patch_one.g) /
                                              max_abs(n, patch_one.g);
      ok(everywhere(!e && patch.its == patch_one.its && apart <= 1e-8),
         "%s, mixed precision: CG + vertex-patch V-cycle %d iterations (one process %d), "
         "solutions %.1e apart%s%s", names[c], patch.its, patch_one.its, apart, e ? ": " : "",
         e ? ts_error_message() : "");
      mixed_free(&patch);
      mixed_free(&patch_one);
    }
    mixed_free(&mixed);
    mixed_free(&one);
    mixed_free(&dbl);
    ts_fe_destroy(&fe);
    ts_mesh_destroy(&mesh);
  }
}

/* ---------------------------------------------------------------- degree levels */

enum { DEGREE_TESTS = 3 * 2 };

/* Degree levels (ts_parallel_mg_set_coarse_degree), gathered: 2D Q4 box on 4 x 4 cells (2
 * levels, vertex patches, degrees 1, 2, 4 on level 0), 3D Q3 box on 3 x 3 x 2 (1 level,
 * vertex patches, 1, 3; on 2 x 2 x 2 the one patch of level 0 would solve it exactly), Kershaw 2D Q2 on 6 x 4 (2 levels, Chebyshev, 1, 2).  One V-cycle:
 * not the one without degree levels (they are used) and the same on one process
 * (MPI_COMM_SELF) to 1e-12; FMG to 1e-10: the one-process iterations, solutions 1e-12
 * apart. */
static void check_degree_levels(ts_backend be) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int box2[2] = {4, 4}, box3[3] = {3, 3, 2}, kershaw[2] = {6, 4};
  static const char *names[3] = {"2D Q4 box", "3D Q3 box", "Kershaw 2D Q2"};
  const ts_coefficients per_point = {.kappa_components = 1, .kappa_at = kappa_at,
                                     .reaction_at = reaction_at};
  for (int c = 0; c < 3; ++c) {
    const int dim = c == 1 ? 3 : 2, k = c == 0 ? 4 : c == 1 ? 3 : 2, L = c == 1 ? 1 : 2;
    const ts_coefficients *co = c == 2 ? &per_point : NULL;
    ts_mesh mesh = NULL;
    ts_fe fe = NULL;
    mixed_run deg = {.coarse_degree = 1}, one = {.coarse_degree = 1}, none = {0};
    int ierr = c == 2 ? ts_mesh_create_kershaw(2, kershaw, L, 0.6, &mesh)
                      : ts_mesh_create_box(dim, lower, upper, dim == 2 ? box2 : box3, L, &mesh);
    if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
    if (!ierr) ierr = mixed_setup(be, MPI_COMM_WORLD, mesh, fe, L, co, TS_DOUBLE, !co, &deg);
    if (!ierr) ierr = mixed_setup(be, MPI_COMM_SELF, mesh, fe, L, co, TS_DOUBLE, !co, &one);
    if (!ierr) ierr = mixed_setup(be, MPI_COMM_WORLD, mesh, fe, L, co, TS_DOUBLE, !co, &none);
    const int64_t n = ierr ? 0 : ts_parallel_dofs_global_count(ts_parallel_mg_dofs(deg.mg, L));
    for (int what = 0; what < 2; ++what) {
      int e = ierr;
      if (!e) e = mixed_solve(&deg, what);
      if (!e) e = mixed_solve(&one, what);
      if (!e && what == 0) e = mixed_solve(&none, what);
      const double scale = e ? 1.0 : max_abs(n, one.g);
      const double to_one = e ? INFINITY : max_difference(n, deg.g, one.g) / scale;
      if (what == 0) {
        const double to_none = e ? 0.0 : max_difference(n, deg.g, none.g) / scale;
        ok(everywhere(!e && to_one <= 1e-12 && to_none > 1e-6),
           "%s, degree levels %d..%d: one V-cycle %.1e from one process's, %.1e from the "
           "cycle without degree levels%s%s", names[c], 1, k, to_one, to_none, e ? ": " : "",
           e ? ts_error_message() : "");
      } else {
        ok(everywhere(!e && deg.its == one.its && to_one <= 1e-12),
           "%s, degree levels %d..%d: FMG %d V-cycles (one process %d), solutions %.1e "
           "apart%s%s", names[c], 1, k, deg.its, one.its, to_one, e ? ": " : "",
           e ? ts_error_message() : "");
      }
    }
    mixed_free(&deg);
    mixed_free(&one);
    mixed_free(&none);
    ts_fe_destroy(&fe);
    ts_mesh_destroy(&mesh);
  }
}

/* How the halo travels: never device to device on one process or on the host backend;
 * TESSERA_TEST_DEVICE_MESSAGES=0/1 states what a GPU run must use (1: NCCL between the
 * processes' own devices, 0: two processes that share a device, or TESSERA_PEER=0). */
static void check_halo_path(ts_backend be, int size) {
  const char *expect = getenv("TESSERA_TEST_DEVICE_MESSAGES");
  const int host_only = size == 1 || strcmp(tap_backend(), "omp") == 0;
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int cells[3] = {2 * size, 2 * size, 2 * size};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_parallel par = NULL;
  ts_parallel_dofs pd = NULL;
  int ierr = ts_mesh_create_box(3, lower, upper, cells, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_q(3, 2, &fe);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), 3, NULL, &par);
  if (!ierr) ierr = ts_parallel_dofs_create(be, par, mesh, fe, 0, &pd);
  const int device = ierr ? -2 : ts_parallel_dofs_device_messages(pd);
  const int wanted = host_only ? 0 : expect && *expect ? atoi(expect) : device;
  ok(everywhere(!ierr && device == wanted && (device == 0 || device == 1)),
     "the halo planes travel %s (%d; expected %d)%s%s",
     device == 1 ? "device to device" : "through the host", device, wanted,
     ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_parallel_dofs_destroy(&pd);
  ts_parallel_destroy(&par);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

/* ts_parallel_timing: nothing counted while off; on, an FMG solve counts its halo exchanges
 * (several processes only), its reductions and its coarse solves, and takes the same
 * V-cycles; out-of-range arguments refused. */
static void check_timing(ts_backend be, int size) {
  static const double lower[2] = {0, 0}, upper[2] = {1, 1};
  static const int cells[2] = {12, 12}; /* level 0 splits evenly on 1-4 processes */
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_parallel par = NULL;
  ts_parallel_mg mg = NULL;
  ts_pc pc = NULL;
  ts_vec b = NULL, x = NULL;
  int its_off = -1, its_on = -2;
  int64_t off[TS_PARALLEL_TIMES] = {0}, on[TS_PARALLEL_TIMES] = {0};
  double seconds[TS_PARALLEL_TIMES] = {0};
  int ierr = ts_mesh_create_box(2, lower, upper, cells, 2, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), 2, NULL, &par);
  if (!ierr) ierr = ts_parallel_mg_create(be, par, mesh, fe, 0, 2, &mg);
  if (!ierr) ierr = ts_parallel_pc_create_mg_chebyshev(mg, 3, 1, &pc);
  ts_parallel_dofs fine = ierr ? NULL : ts_parallel_mg_dofs(mg, 2);
  ts_parallel_dofs coarse = ierr ? NULL : ts_parallel_mg_dofs(mg, 0);
  if (!ierr) ierr = ts_parallel_vec_create(fine, &b);
  if (!ierr) ierr = ts_parallel_vec_create(fine, &x);
  if (!ierr) ierr = ts_vec_set_random(b, 5);
  if (!ierr) ierr = ts_pc_multigrid_fmg_solve(pc, b, x, 1e-10, 50, &its_off);
  for (int w = 0; w < TS_PARALLEL_TIMES && !ierr; ++w) {
    int64_t c[2];
    ierr = ts_parallel_dofs_time(fine, w, NULL, &c[0]);
    if (!ierr) ierr = ts_parallel_dofs_time(coarse, w, NULL, &c[1]);
    off[w] = c[0] + c[1];
  }
  if (!ierr) ierr = ts_parallel_timing(par, 1);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_pc_multigrid_fmg_solve(pc, b, x, 1e-10, 50, &its_on);
  if (!ierr) ierr = ts_parallel_timing(par, 0);
  if (!ierr) ierr = ts_parallel_dofs_time(fine, TS_PARALLEL_TIME_HALO, &seconds[0], &on[0]);
  if (!ierr) ierr = ts_parallel_dofs_time(fine, TS_PARALLEL_TIME_REDUCTION, &seconds[1], &on[1]);
  if (!ierr) ierr = ts_parallel_dofs_time(coarse, TS_PARALLEL_TIME_COARSE, &seconds[2], &on[2]);
  /* ts_parallel_mg_time: the levels' sums */
  double level_sum = 0.0, mg_seconds = -1.0;
  int64_t level_calls = 0, mg_calls = -1;
  for (int l = 0; l <= 2 && !ierr; ++l) {
    double s;
    int64_t c;
    ierr = ts_parallel_dofs_time(ts_parallel_mg_dofs(mg, l), TS_PARALLEL_TIME_HALO, &s, &c);
    level_sum += s;
    level_calls += c;
  }
  if (!ierr) ierr = ts_parallel_mg_time(mg, TS_PARALLEL_TIME_HALO, &mg_seconds, &mg_calls);
  const int counted = (on[0] > 0) == (size > 1) && on[1] > 0 && on[2] > 0 && seconds[0] >= 0 &&
                      seconds[1] > 0 && seconds[2] > 0 && mg_calls == level_calls &&
                      mg_seconds == level_sum;
  ok(everywhere(!ierr && !off[0] && !off[1] && !off[2] && counted && its_on == its_off),
     "timing: off, nothing counted; on, FMG (%d V-cycles, %d off) counts %lld halo exchanges "
     "(%.1e s) on the finest level, %lld reductions (%.1e s), %lld coarse solves (%.1e s); "
     "ts_parallel_mg_time the levels' %lld halo exchanges (%lld)%s%s",
     its_on, its_off, (long long)on[0], seconds[0], (long long)on[1], seconds[1],
     (long long)on[2], seconds[2], (long long)mg_calls, (long long)level_calls,
     ierr ? ": " : "", ierr ? ts_error_message() : "");
  int bad_on = ierr ? 0 : ts_parallel_timing(par, 2);
  bad_on = bad_on == TS_ERR_ARG && strstr(ts_error_message(), "on = 2; allowed: 1 (start) or 0");
  int bad_what = ierr ? 0 : ts_parallel_dofs_time(fine, TS_PARALLEL_TIMES, NULL, NULL);
  bad_what = bad_what == TS_ERR_ARG && strstr(ts_error_message(), "what = 3; allowed");
  ok(everywhere(!ierr && bad_on && bad_what && ts_parallel_timing(NULL, 1) == TS_ERR_ARG),
     "ts_parallel_timing refuses on = 2 and NULL, ts_parallel_dofs_time what = 3");
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_pc_destroy(&pc);
  ts_parallel_mg_destroy(&mg);
  ts_parallel_destroy(&par);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  ts_backend be = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank > 0 && !freopen("/dev/null", "w", stdout)) MPI_Abort(MPI_COMM_WORLD, 1);
  const int tests = 2 * 4 * 2 * TESTS_PER_CASE + 2 * 2 * 2 * MAPPED_TESTS_PER_CASE + 5 +
                    AGGLOMERATION_TESTS + MIXED_TESTS + DEGREE_TESTS;
  plan(tests);
  if (!everywhere(ts_backend_open(tap_backend(), &be) == 0)) {
    skip(tests, "no backend");
  } else {
    diag("%d processes", size);
    for (int dim = 2; dim <= 3; ++dim)
      for (int k = 1; k <= 4; ++k)
        for (int fixed = 0; fixed <= 1; ++fixed) run_case(be, dim, k, fixed, size);
    for (int dim = 2; dim <= 3; ++dim) /* 2D Q2, Q3; 3D Q1, Q2 */
      for (int k = 4 - dim; k <= 5 - dim; ++k)
        for (int fixed = 0; fixed <= 1; ++fixed) run_mapped_case(be, dim, k, fixed, size);
    check_mg_refusals(be);
    check_agglomeration(be, size);
    check_mixed(be);
    check_degree_levels(be);
    check_halo_path(be, size);
    check_timing(be, size);
  }
  ts_backend_destroy(&be);
  const int status = exit_status();
  MPI_Finalize();
  return status;
}
