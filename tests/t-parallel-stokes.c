/* t-parallel-stokes.c -- paper 000's Stokes system (RT_k x DGQ_k) distributed
 * (ts_parallel_dofs_create_stokes, doc/parallel.md section 5 item 4) against the one-process
 * run, on however many processes it is started (tests/t-parallel.sh: 1, 2, 3 and 4): random
 * vectors gathered equal the one-process ones, the operator's product, a dot product and
 * the pressure mean equal the one-process ones to round-off, one V-cycle
 * (ts_parallel_pc_create_mg_stokes) equals the one-process V-cycle of ts_mg_create_stokes
 * (ts_pc_create_mg) to round-off, and GMRES + the V-cycle takes the one-process iterations to
 * the same solution and error.  2D RT_0..RT_2 on 3 x 2 level-0 cells refined twice, 3D RT_0
 * and RT_1 on 3 x 2 x 2 refined once; the coarse level 0 (a block of one cell there), the
 * finer levels blocks of at least 2 cells (2D on at most 4 processes; 8 split 3D 2x2x2, whose
 * ghost cells of edges and corners arrive through two and three interfaces).  The same with
 * the coarse levels gathered (ts_parallel_set_agglomeration: 2D RT_1 with 7 cells per process,
 * 3D RT_0 with 13, levels 0..1 or 0..2 on any number of processes).  Every process checks; rank 0 prints. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parallel-test.h"
#include "tap.h"
#include "tessera.h"

enum { TESTS_PER_CASE = 6 };

/* the one-process and the distributed hierarchy of a case, their finest operators, V-cycles
 * and vectors (x, y one-process; xd, yd distributed), host arrays g (gathered) and h */
typedef struct stokes_case {
  ts_backend be;
  ts_mesh mesh;
  ts_mg mg;
  ts_pc pc;
  ts_vec x, y;
  ts_parallel par;
  ts_parallel_mg pmg;
  ts_pc pcd;
  ts_vec xd, yd;
  ts_operator A, Ad;
  int finest;
  int64_t n;
  double *g, *h;
} stokes_case;

static int setup(ts_backend be, int dim, int k, int levels, int64_t min_cells, stokes_case *c) {
  const double lower[3] = {0.0, 0.0, 0.0}, upper[3] = {1.5, 1.0, 1.0};
  const int cells[3] = {3, 2, 2};
  ts_mg_options o;
  ts_mg_options_default(&o);
  c->finest = levels;
  c->be = be;
  o.coarse_level = 0;
  int ierr = ts_mesh_create_box(dim, lower, upper, cells, levels, &c->mesh);
  if (!ierr) ierr = ts_mg_create_stokes(be, c->mesh, k, levels, &o, &c->mg);
  if (!ierr) ierr = ts_pc_create_mg(c->mg, &c->pc);
  if (!ierr) c->A = ts_mg_level_operator(c->mg, levels);
  if (!ierr) c->n = ts_operator_size(c->A);
  if (!ierr) ierr = ts_vec_create(be, c->n, TS_DOUBLE, &c->x);
  if (!ierr) ierr = ts_vec_create(be, c->n, TS_DOUBLE, &c->y);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), dim, NULL, &c->par);
  if (!ierr) ierr = ts_parallel_set_agglomeration(c->par, min_cells);
  if (!ierr) ierr = ts_parallel_mg_create_stokes(be, c->par, c->mesh, k, levels, &o, &c->pmg);
  if (!ierr) ierr = ts_parallel_pc_create_mg_stokes(c->pmg, &c->pcd);
  if (!ierr) c->Ad = ts_parallel_mg_operator(c->pmg, levels);
  ts_parallel_dofs pd = ierr ? NULL : ts_parallel_mg_dofs(c->pmg, levels);
  if (!ierr) ierr = ts_parallel_vec_create(pd, &c->xd);
  if (!ierr) ierr = ts_parallel_vec_create(pd, &c->yd);
  if (!ierr && ts_parallel_dofs_global_count(pd) != c->n) ierr = TS_ERR_INTERNAL;
  if (!ierr && !(c->g = calloc((size_t)c->n, sizeof *c->g))) ierr = TS_ERR_MEMORY;
  if (!ierr && !(c->h = calloc((size_t)c->n, sizeof *c->h))) ierr = TS_ERR_MEMORY;
  return ierr;
}

static void teardown(stokes_case *c) {
  ts_vec *v[] = {&c->x, &c->y, &c->xd, &c->yd};
  for (int i = 0; i < 4; ++i) ts_vec_destroy(v[i]);
  ts_pc_destroy(&c->pc);
  ts_pc_destroy(&c->pcd);
  ts_mg_destroy(&c->mg);
  ts_parallel_mg_destroy(&c->pmg);
  ts_parallel_destroy(&c->par);
  ts_mesh_destroy(&c->mesh);
  free(c->g);
  free(c->h);
}

/* g = the gathered distributed vector, h = the one-process vector */
static int fetch(stokes_case *c, ts_vec distributed, ts_vec one) {
  return fetch_both(distributed, one, c->g, c->h);
}

/* random vectors, A x, a dot product and the pressure mean */
static void check_operator(stokes_case *c, const char *name) {
  int ierr = ts_vec_set_random(c->x, 7);
  if (!ierr) ierr = ts_vec_set_random(c->xd, 7);
  if (!ierr) ierr = fetch(c, c->xd, c->x);
  ok(everywhere(!ierr && max_difference(c->n, c->g, c->h) == 0.0),
     "%s: random vector = the one-process one%s%s", name, ierr ? ": " : "",
     ierr ? ts_error_message() : "");
  if (!ierr) ierr = ts_operator_apply(c->A, c->x, c->y);
  if (!ierr) ierr = ts_operator_apply(c->Ad, c->xd, c->yd);
  if (!ierr) ierr = fetch(c, c->yd, c->y);
  const double scale = ierr ? 1.0 : max_abs(c->n, c->h);
  const double apart = ierr ? INFINITY : max_difference(c->n, c->g, c->h) / scale;
  ok(everywhere(apart <= 1e-13), "%s: A x = the one-process product (apart %.1e of %.1e)%s%s",
     name, apart, scale, ierr ? ": " : "", ierr ? ts_error_message() : "");
  double dot = 0.0, dot_d = 1.0, mean = 0.0, mean_d = 1.0;
  if (!ierr) ierr = ts_vec_dot(c->x, c->y, &dot);
  if (!ierr) ierr = ts_vec_dot(c->xd, c->yd, &dot_d);
  if (!ierr) ierr = ts_stokes_pressure_mean(c->A, c->x, &mean);
  if (!ierr) ierr = ts_stokes_pressure_mean(c->Ad, c->xd, &mean_d);
  ok(everywhere(!ierr && fabs(dot - dot_d) <= 1e-13 * fabs(dot) && fabs(mean - mean_d) <= 1e-15),
     "%s: (x, A x) %.15e (one process %.15e), pressure mean %.3e (%.3e)", name, dot_d, dot,
     mean_d, mean);
}

/* one V-cycle, and GMRES + V-cycle to 1e-8 for b = A u: u a V-cycle of a random vector (zero
 * on the constrained normal DoFs of the boundary), its pressure mean removed */
static void check_vcycle(stokes_case *c, const char *name) {
  int ierr = ts_vec_set_random(c->x, 11);
  if (!ierr) ierr = ts_vec_set_random(c->xd, 11);
  if (!ierr) ierr = ts_pc_apply(c->pc, c->x, c->y);
  if (!ierr) ierr = ts_pc_apply(c->pcd, c->xd, c->yd);
  if (!ierr) ierr = fetch(c, c->yd, c->y);
  double scale = ierr ? 1.0 : max_abs(c->n, c->h);
  double apart = ierr ? INFINITY : max_difference(c->n, c->g, c->h) / scale;
  ok(everywhere(apart <= 1e-12), "%s: one V-cycle = the one-process one (apart %.1e)%s%s", name,
     apart, ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_vec u = NULL, b = NULL, bd = NULL;
  ts_solver s = NULL, sd = NULL;
  int its = -1, its_d = -2;
  if (!ierr) ierr = ts_vec_create(c->be, c->n, TS_DOUBLE, &u);
  if (!ierr) ierr = ts_vec_create(c->be, c->n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_parallel_vec_create(ts_parallel_mg_dofs(c->pmg, c->finest), &bd);
  if (!ierr) ierr = ts_vec_set_random(b, 5);
  if (!ierr) ierr = ts_pc_apply(c->pc, b, u);
  if (!ierr) ierr = ts_stokes_pressure_mean_remove(c->A, u);
  if (!ierr) ierr = ts_operator_apply(c->A, u, b);
  if (!ierr) ierr = ts_vec_get_to_host(b, c->h);
  if (!ierr) ierr = ts_parallel_vec_scatter(c->h, bd);
  ts_solver *solvers[2] = {&s, &sd};
  for (int i = 0; i < 2 && !ierr; ++i) {
    ierr = ts_solver_create(TS_SOLVER_GMRES, solvers[i]);
    if (!ierr) ierr = ts_solver_set_operator(*solvers[i], i ? c->Ad : c->A);
    if (!ierr) ierr = ts_solver_set_pc(*solvers[i], i ? c->pcd : c->pc);
    if (!ierr) ierr = ts_solver_set_tolerances(*solvers[i], 1e-8, 100);
    if (!ierr) ierr = ts_vec_set(i ? c->xd : c->x, 0.0);
    if (!ierr) ierr = ts_solver_solve(*solvers[i], i ? bd : b, i ? c->xd : c->x);
  }
  its = ierr ? -1 : ts_solver_iterations(s);
  its_d = ierr ? -2 : ts_solver_iterations(sd);
  ok(everywhere(!ierr && its == its_d), "%s: GMRES + V-cycle: %d iterations, one process %d%s%s",
     name, its_d, its, ierr ? ": " : "", ierr ? ts_error_message() : "");
  if (!ierr) ierr = fetch(c, c->xd, c->x);
  double *exact = calloc((size_t)c->n, sizeof *exact);
  if (!ierr && !exact) ierr = TS_ERR_MEMORY;
  if (!ierr) ierr = ts_vec_get_to_host(u, exact);
  scale = ierr ? 1.0 : max_abs(c->n, exact);
  apart = ierr ? INFINITY : max_difference(c->n, c->g, c->h) / scale;
  const double error = ierr ? INFINITY : max_difference(c->n, c->h, exact) / scale;
  const double error_d = ierr ? INFINITY : max_difference(c->n, c->g, exact) / scale;
  ok(everywhere(!ierr && apart <= 1e-10 && fabs(error_d - error) <= 1e-10 && error < 1e-5),
     "%s: the same solution (apart %.1e) and error %.3e (one process %.3e)", name, apart,
     error_d, error);
  free(exact);
  ts_solver_destroy(&s);
  ts_solver_destroy(&sd);
  ts_vec_destroy(&u);
  ts_vec_destroy(&b);
  ts_vec_destroy(&bd);
}

/* Q_k DoFs and hierarchies are refused by the Stokes calls, a mapped mesh by the DoFs, and a
 * finest level whose blocks cannot refresh their two ghost layers by the hierarchy */
static void check_refusals(ts_backend be, int size) {
  const double lower[2] = {0.0, 0.0}, upper[2] = {1.0, 1.0};
  const int cells[2] = {2, 2}, wide[2] = {12, 2}, kershaw[2] = {6, 6};
  ts_mesh mesh = NULL, mapped = NULL;
  ts_fe fe = NULL;
  ts_parallel par = NULL;
  ts_parallel_dofs pd = NULL;
  ts_parallel_mg mg = NULL;
  ts_operator op = NULL;
  ts_pc pc = NULL;
  const int procs[2] = {size, 1};
  int ierr = ts_mesh_create_box(2, lower, upper, wide, 1, &mesh); /* up to 12 processes */
  if (!ierr) ierr = ts_mesh_create_kershaw(2, kershaw, 1, 0.3, &mapped);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &fe);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), 2, procs, &par);
  if (!ierr) ierr = ts_parallel_dofs_create(be, par, mesh, fe, 0, &pd);
  if (!ierr) ierr = ts_parallel_mg_create(be, par, mesh, fe, 0, 1, &mg);
  int refused = !ierr && ts_parallel_operator_create_stokes(pd, 0.0, &op) == TS_ERR_ARG && !op &&
                strstr(ts_error_message(), "the Stokes operator takes ts_parallel_dofs_create_stokes");
  refused = refused && ts_parallel_pc_create_mg_stokes(mg, &pc) == TS_ERR_ARG && !pc &&
            strstr(ts_error_message(), "a Stokes hierarchy (ts_parallel_mg_create_stokes) is required");
  ts_parallel_dofs sd = NULL;
  refused = refused && ts_parallel_dofs_create_stokes(be, par, mapped, 1, 0, &sd) == TS_ERR_ARG &&
            !sd && strstr(ts_error_message(), "the mesh is mapped");
  ok(everywhere(refused), "Stokes calls refuse Q_k DoFs, a Q_k hierarchy and a mapped mesh%s%s",
     ierr ? ": " : "", ierr ? ts_error_message() : "");
  ts_parallel_mg_destroy(&mg);
  ts_mesh_destroy(&mesh);
  ierr = ierr ? ierr : ts_mesh_create_box(2, lower, upper, cells, 1, &mesh);
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 0;
  const int code = ierr ? ierr : ts_parallel_mg_create_stokes(be, par, mesh, 1, 1, &o, &mg);
  /* up to 2 processes level 0 is split; on 3 and 4 level 1 (4 x 4 cells), blocks of one
   * cell; on more, level 1 has fewer cells than processes */
  const char *why = size <= 4 ? "the finest level 1 has a block of fewer than 2 cells"
                              : "at least one cell per process";
  ok(everywhere(size > 2 ? code == TS_ERR_ARG && !mg && strstr(ts_error_message(), why) : code == 0),
     "levels 0..1 of 2 x 2 cells on %d x 1 processes: %s", size,
     code ? ts_error_message() : "taken");
  ts_parallel_mg_destroy(&mg);
  ts_parallel_dofs_destroy(&pd);
  ts_parallel_destroy(&par);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_mesh_destroy(&mapped);
}

/* a case; min_cells > 0: the coarse levels gathered below ts_parallel_set_agglomeration's split */
static void run_case(ts_backend be, int dim, int k, int levels, int64_t min_cells, int size) {
  char name[128];
  stokes_case c = {0};
  const int ierr = setup(be, dim, k, levels, min_cells, &c);
  const int split = ierr ? -1 : ts_parallel_mg_split_level(c.pmg);
  if (min_cells)
    snprintf(name, sizeof name, "%dD RT_%d, %d levels, %d processes, levels 0..%d gathered "
             "(%lld cells per process)", dim, k, levels + 1, size, split, (long long)min_cells);
  else snprintf(name, sizeof name, "%dD RT_%d, %d levels, %d processes", dim, k, levels + 1, size);
  if (!everywhere(!ierr)) {
    for (int t = 0; t < TESTS_PER_CASE; ++t)
      ok(0, "%s: setup failed: %s", name, ierr ? ts_error_message() : "(another process)");
  } else {
    check_operator(&c, name);
    check_vcycle(&c, name);
  }
  teardown(&c);
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  ts_backend be = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank > 0 && !freopen("/dev/null", "w", stdout)) MPI_Abort(MPI_COMM_WORLD, 1);
  const int tests = 7 * TESTS_PER_CASE + 2;
  plan(tests);
  if (!everywhere(ts_backend_open(tap_backend(), &be) == 0)) {
    skip(tests, "no backend");
  } else {
    diag("%d processes", size);
    for (int k = 0; k <= 2; ++k) /* MPI_Dims_create splits 3 x 2 cells for up to 4 */
      if (size <= 4) run_case(be, 2, k, 2, 0, size);
      else skip(TESTS_PER_CASE, "2D: 3 x 2 level-0 cells take at most 4 processes");
    for (int k = 0; k <= 1; ++k) run_case(be, 3, k, 1, 0, size);
    /* gathered coarse levels (a level or more on any number of processes) */
    run_case(be, 2, 1, 2, 7, size);
    run_case(be, 3, 0, 1, 13, size);
    check_refusals(be, size);
  }
  ts_backend_destroy(&be);
  const int status = exit_status();
  MPI_Finalize();
  return status;
}
