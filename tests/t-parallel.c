/* t-parallel.c -- the MPI domain decomposition (doc/parallel.md) against the one-process run,
 * on however many processes it is started (tests/t-parallel.sh: mpirun -np 1, 2, 3 and 4;
 * 3 is an uneven split, 4 a 2x2 one): random vectors, the distributed Laplacian and its
 * diagonal equal the one-process ones (gathered), GMRES with Jacobi takes the same
 * iterations, and CG with the Chebyshev-Jacobi preconditioner the same iterations to the same
 * solution and the same error against a manufactured solution, 2D and 3D, Q_1..Q_4, with MPI_Dims_create's split and a split
 * fixed along the last direction.  Every process checks; rank 0 prints. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera.h"

static const double pi = 3.14159265358979323846;
enum { TESTS_PER_CASE = 6 };

/* the condition on every process */
static int everywhere(int cond) {
  int all = 0;
  MPI_Allreduce(&cond, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

static double max_difference(int64_t n, const double *a, const double *b) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static double max_abs(int64_t n, const double *a) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

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

static int setup(ts_backend be, ts_mesh mesh, ts_fe fe, const int *procs, problem *p) {
  int ierr = ts_dofs_create(mesh, fe, 0, &p->dofs);
  if (!ierr) ierr = ts_operator_create_laplace(be, p->dofs, TS_DOUBLE, &p->A);
  if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(p->dofs), TS_DOUBLE, &p->x);
  if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(p->dofs), TS_DOUBLE, &p->y);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), p->dim, procs, &p->par);
  if (!ierr) ierr = ts_parallel_dofs_create(be, p->par, mesh, fe, 0, &p->pd);
  if (!ierr) ierr = ts_parallel_operator_create_laplace(p->pd, &p->Ad);
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
  int ierr = ts_parallel_vec_gather(distributed, p->g);
  if (!ierr) ierr = ts_vec_get_to_host(one, p->h);
  return ierr;
}

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
  ok(everywhere(e <= 1e-13), "%s: distributed A x = one-process A x (relative %.1e)%s%s", name,
     e, ierr ? ": " : "", ierr ? ts_error_message() : "");
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

/* CG + Chebyshev(Jacobi) of degree 3, or GMRES + Jacobi, from zero to rtol 1e-10:
 * iterations into *its */
static int solve(ts_solver_type type, ts_operator A, ts_vec b, ts_vec x, int *its) {
  ts_solver s = NULL;
  ts_pc pc = NULL;
  int ierr = ts_solver_create(type, &s);
  if (!ierr) ierr = type == TS_SOLVER_CG ? ts_pc_create_chebyshev(A, 3, &pc) : ts_pc_create_jacobi(A, &pc);
  if (!ierr) ierr = ts_solver_set_operator(s, A);
  if (!ierr) ierr = ts_solver_set_pc(s, pc);
  if (!ierr) ierr = ts_solver_set_tolerances(s, 1e-10, 500);
  if (!ierr) ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_solve(s, b, x);
  *its = ts_solver_iterations(s);
  ts_pc_destroy(&pc);
  ts_solver_destroy(&s);
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
  if (!ierr) ierr = setup(be, mesh, fe, fixed_split ? procs : NULL, &p);
  if (!ierr) ierr = ts_parallel_procs(p.par, procs);
  if (dim == 3) snprintf(name, sizeof name, "3D Q%d on %dx%dx%d", k, procs[0], procs[1], procs[2]);
  else snprintf(name, sizeof name, "2D Q%d on %dx%d", k, procs[0], procs[1]);
  if (!everywhere(!ierr)) {
    ok(0, "%s: setup: %s", name, ts_error_message());
    skip(TESTS_PER_CASE - 1, "no setup");
  } else {
    check_operator(&p, name);
    check_solve(be, &p, name);
  }
  teardown(&p);
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
  plan(2 * 4 * 2 * TESTS_PER_CASE);
  if (!everywhere(ts_backend_open(tap_backend(), &be) == 0)) {
    skip(2 * 4 * 2 * TESTS_PER_CASE, "no backend");
  } else {
    diag("%d processes", size);
    for (int dim = 2; dim <= 3; ++dim)
      for (int k = 1; k <= 4; ++k)
        for (int fixed = 0; fixed <= 1; ++fixed) run_case(be, dim, k, fixed, size);
  }
  ts_backend_destroy(&be);
  const int status = exit_status();
  MPI_Finalize();
  return status;
}
