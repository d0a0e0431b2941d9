/* bench-parallel-stokes.c -- paper 000's Stokes solver (RT_k x DGQ_k) distributed
 * (doc/parallel.md, section 5 item 4) under mpirun:
 *   mpirun -np P bench-parallel-stokes DIM K C LEVEL
 * the box of C^dim level-0 cells (C may be C0xC1[xC2]: the box C0/C2 x C1/C2 x 1, cells of
 * equal shape) refined LEVEL times, split among the P processes (MPI_Dims_create); the
 * distributed hierarchy of levels 0..LEVEL (ts_parallel_mg_create_stokes, coarse level 0: it
 * needs 2 cells per direction) and its V-cycle (ts_parallel_pc_create_mg_stokes); GMRES(5)
 * (right-preconditioned, as `tessera bench --problem stokes --mg`'s solver) + V-cycle to a
 * relative residual of 1e-6 from x = 0 for b = A u, u one V-cycle of a random vector with its
 * pressure mean removed (zero on the boundary's normal DoFs), after one untimed solve, best
 * of 2.  Rank 0 prints one line: DoFs (total, per process), setup and solve seconds, GMRES
 * steps, ns per DoF, one application of the finest operator (best of 5, its ghost refresh
 * included), how the messages travelled ("device": NCCL; "host": staged through host memory
 * and MPI), and on one process the same solve with the one-process hierarchy
 * (ts_mg_create_stokes, ts_pc_create_mg: the cost of the distribution's code) and its steps.
 * A second line ("timed"): one more solve with ts_parallel_timing on and of it the ghost
 * refreshes (all levels, and the finest alone), the reductions and the gathered coarse
 * solves, each the largest over the processes, with its share and count.  The backend is
 * TESSERA_BENCH_BACKEND's (default omp); on a GPU each process takes the device of its rank
 * on the node modulo the node's devices.  TESSERA_BENCH_AGGLOMERATE=N gathers the levels with
 * fewer than N cells per process (ts_parallel_set_agglomeration; the first column names the
 * split level). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench-parallel.h"
#include "tessera.h"

static int fail(const char *what) {
  fprintf(stderr, "bench-parallel-stokes: %s: %s\n", what, ts_error_message());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

/* a scalar back from the device: the work queued before it is done */
static int drain(ts_vec v) {
  double n;
  return ts_vec_norm(v, &n);
}

/* GMRES(5) + pc from zero to 1e-6: the best seconds of `repeats` timed solves after one
 * untimed (repeats 0: that one alone, INFINITY), the steps into *its */
static double solve(ts_operator A, ts_pc pc, ts_vec b, ts_vec x, int repeats, int *its) {
  ts_solver s = NULL;
  if (ts_solver_create(TS_SOLVER_GMRES, &s) || ts_solver_set_operator(s, A) ||
      ts_solver_set_pc(s, pc) || ts_solver_set_restart(s, 5) ||
      ts_solver_set_tolerances(s, 1e-6, 200))
    return fail("GMRES");
  double best = INFINITY;
  for (int r = 0; r <= repeats; ++r) {
    ts_vec_set(x, 0.0);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (ts_solver_solve(s, b, x) || drain(x)) return fail("GMRES solve");
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = MPI_Wtime() - t0;
    if (r > 0 && t < best) best = t;
  }
  *its = ts_solver_iterations(s);
  ts_solver_destroy(&s);
  return best;
}

/* best of 5: y = A x (x's ghost refresh included) */
static double apply_best(ts_operator A, ts_vec x, ts_vec y) {
  double best = INFINITY;
  for (int r = 0; r < 5; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (ts_operator_apply(A, x, y) || drain(y)) return fail("operator");
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = MPI_Wtime() - t0;
    if (t < best) best = t;
  }
  return best;
}

/* the plain one-process solver of the same mesh (one process only): seconds, steps */
static double one_process(ts_backend be, ts_mesh mesh, int k, int level, int *its) {
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 0;
  ts_mg mg = NULL;
  ts_pc pc = NULL;
  ts_vec u = NULL, b = NULL, x = NULL;
  if (ts_mg_create_stokes(be, mesh, k, level, &o, &mg) || ts_pc_create_mg(mg, &pc))
    return fail("one-process hierarchy");
  ts_operator A = ts_mg_level_operator(mg, level);
  const int64_t n = ts_operator_size(A);
  if (ts_vec_create(be, n, TS_DOUBLE, &u) || ts_vec_create(be, n, TS_DOUBLE, &b) ||
      ts_vec_create(be, n, TS_DOUBLE, &x) || ts_vec_set_random(b, 11) || ts_pc_apply(pc, b, u) ||
      ts_stokes_pressure_mean_remove(A, u) || ts_operator_apply(A, u, b))
    return fail("one-process right side");
  const double seconds = solve(A, pc, b, x, 2, its);
  ts_vec_destroy(&u);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_pc_destroy(&pc);
  ts_mg_destroy(&mg);
  return seconds;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dim, k, level, coarse[3];
  static const double lower[3] = {0, 0, 0};
  double upper[3];
  if (bench_parallel_args(argc, argv, "bench-parallel-stokes", &dim, &k, &level, coarse, upper)) return 2;
  ts_parallel par = NULL;
  if (ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), dim, NULL, &par) ||
      bench_parallel_settings(par))
    return fail("split");
  const char *name = getenv("TESSERA_BENCH_BACKEND");
  char device[16];
  snprintf(device, sizeof device, "%d", ts_parallel_node_rank(par));
  setenv("TESSERA_GPU_NODE_RANK", device, 1);
  ts_backend be = NULL;
  ts_mesh mesh = NULL;
  ts_parallel_mg mg = NULL;
  ts_pc pc = NULL;
  ts_mg_options o;
  ts_mg_options_default(&o);
  o.coarse_level = 0;
  if (ts_backend_open(name ? name : "omp", &be)) return fail("backend");
  if (ts_mesh_create_box(dim, lower, upper, coarse, level, &mesh)) return fail("mesh");
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (ts_parallel_mg_create_stokes(be, par, mesh, k, level, &o, &mg) ||
      ts_parallel_pc_create_mg_stokes(mg, &pc))
    return fail("hierarchy");
  MPI_Barrier(MPI_COMM_WORLD);
  const double setup = MPI_Wtime() - t0;
  ts_operator A = ts_parallel_mg_operator(mg, level);
  ts_parallel_dofs pd = ts_parallel_mg_dofs(mg, level);
  ts_vec u = NULL, b = NULL, x = NULL;
  if (ts_parallel_vec_create(pd, &u) || ts_parallel_vec_create(pd, &b) ||
      ts_parallel_vec_create(pd, &x) || ts_vec_set_random(b, 11) || ts_pc_apply(pc, b, u) ||
      ts_stokes_pressure_mean_remove(A, u) || ts_operator_apply(A, u, b))
    return fail("right side");
  int its = 0, plain_its = -1;
  const double seconds = solve(A, pc, b, x, 2, &its);
  const double apply = apply_best(A, u, x);
  const double n = (double)ts_parallel_dofs_global_count(pd);
  const double plain = size == 1 ? one_process(be, mesh, k, level, &plain_its) : NAN;
  if (!rank)
    printf("| %dD RT_%d %s, split %d | %d | %.0f | %.0f | %.2f | %.3f | %d | %.2f | %.3f | %s | %.3f | %d |\n",
           dim, k, argv[3], ts_parallel_mg_split_level(mg), size, n, n / size, setup, seconds, its, 1e9 * seconds / n,
           1e3 * apply, ts_parallel_dofs_device_messages(pd) ? "device" : "host", plain,
           plain_its);
  /* the communication of one more solve */
  if (ts_parallel_timing(par, 1)) return fail("timing");
  int timed_its = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  solve(A, pc, b, x, 0, &timed_its); /* one solve, timed here */
  MPI_Barrier(MPI_COMM_WORLD);
  const double total = MPI_Wtime() - t0;
  if (ts_parallel_timing(par, 0)) return fail("timing");
  long long n_halo, n_fine, n_reductions, n_coarse;
  const double halo = time_spent(mg, level, TS_PARALLEL_TIME_HALO, 0, &n_halo),
               fine = time_spent(mg, level, TS_PARALLEL_TIME_HALO, 1, &n_fine),
               reductions = time_spent(mg, level, TS_PARALLEL_TIME_REDUCTION, 0, &n_reductions),
               coarse_s = time_spent(mg, level, TS_PARALLEL_TIME_COARSE, 0, &n_coarse);
  if (!rank)
    printf("| timed %dD RT_%d %s | %d | solve %.3f s | halo %.4f s (%.1f %%, %lld), finest %.4f s "
           "(%lld) | reductions %.4f s (%.1f %%, %lld) | coarse %.4f s (%.1f %%, %lld) | %d steps |\n",
           dim, k, argv[3], size, total, halo, 100 * halo / total, n_halo, fine, n_fine,
           reductions, 100 * reductions / total, n_reductions, coarse_s, 100 * coarse_s / total,
           n_coarse, timed_its);
  ts_vec_destroy(&u);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_pc_destroy(&pc);
  ts_parallel_mg_destroy(&mg);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&be);
  ts_parallel_destroy(&par);
  MPI_Finalize();
  return 0;
}
