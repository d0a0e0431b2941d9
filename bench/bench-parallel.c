/* bench-parallel.c -- the distributed Q_k Poisson solver (doc/parallel.md) under mpirun:
 *   mpirun -np P bench-parallel DIM K C LEVEL
 * the box [0,1]^dim of C^dim level-0 cells (C may also be C0xC1[xC2], and the box is then
 * C0/C2 x C1/C2 x 1: cells of equal shape, for weak scaling) refined LEVEL times, split among the P processes
 * (MPI_Dims_create), Q_K; the distributed hierarchy of levels 0..LEVEL
 * (ts_parallel_mg_create), its V-cycle with Chebyshev(3) smoothers and the gathered coarse
 * LU (ts_parallel_pc_create_mg_chebyshev; with TESSERA_BENCH_SMOOTHER=vertex-patch the Fused
 * vertex patches, ts_parallel_pc_create_mg_patch), and full multigrid to 1e-8 from a random right side
 * (ts_pc_multigrid_fmg_solve, after one untimed run).  Rank 0 prints one line: DoFs (total,
 * per process), the setup and FMG seconds, V-cycles, DoFs per second (total, per process),
 * one Laplacian application of the finest level and, of it, the interface sum
 * (ts_parallel_vec_sum_shared: the halo exchange), each the best of 5, and how the planes
 * travelled ("device": device to device, NCCL on cuda; "host": through host memory and MPI;
 * TESSERA_PEER=0 forces the host).  On one process it also times the one-process Laplacian
 * (ts_operator_create_laplace) of the same mesh: the cost of the distributed operator's masks.
 * "GB" is the device memory rank 0's process took (ts_backend_memory_available before the
 * hierarchy and after the solve; other processes on its device count too).  A second line
 * ("timed") is one more FMG solve with ts_parallel_timing on: its seconds (each timed region
 * waits for the device before and after, so it is slower than the FMG above), and of them the
 * halo exchanges (all levels, and the finest level alone), the reductions and the gathered
 * coarse solves, each the largest over the processes, with its share of the timed solve and
 * (in parentheses after it) how many there were.  The backend is TESSERA_BENCH_BACKEND's (default omp); on a GPU backend each process takes
 * the device of its rank on the node modulo the node's devices (TESSERA_GPU_NODE_RANK; an
 * explicit TESSERA_GPU_DEVICE wins).  TESSERA_BENCH_AGGLOMERATE=N gathers the levels with fewer
 * than N cells per process (ts_parallel_set_agglomeration; the first column names the split
 * level).  TESSERA_BENCH_PRECISION=mixed runs the V-cycles in single precision
 * (ts_parallel_mg_set_precision; the first column then says "mixed");
 * TESSERA_BENCH_COARSE_DEGREE=C adds degree levels down to Q_C below level 0
 * (ts_parallel_mg_set_coarse_degree; the first column then says "degree levels").
 * TESSERA_BENCH_OVERLAP=N overlaps the halo exchange of the blocks of at least N DoFs with
 * their interior cells (ts_parallel_set_overlap; 0: never; default 2^21). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench-parallel.h"
#include "tessera.h"

#define REPEATS 5

/* best seconds of REPEATS calls of fn, the processes synchronized before and after */
static double best_of(int (*fn)(void *), void *ctx) {
  double best = INFINITY;
  for (int r = 0; r < REPEATS; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (fn(ctx)) return NAN;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = MPI_Wtime() - t0;
    if (t < best) best = t;
  }
  return best;
}

typedef struct timed {
  ts_operator A;
  ts_parallel_dofs pd;
  ts_vec x, y;
} timed;

/* a scalar back from the device: the work queued before it is done */
static int drain(ts_vec v) {
  double n;
  return ts_vec_norm(v, &n);
}

static int apply_once(void *ctx) {
  timed *t = ctx;
  int ierr = ts_operator_apply(t->A, t->x, t->y);
  return ierr ? ierr : drain(t->y);
}

static int sum_once(void *ctx) {
  timed *t = ctx;
  int ierr = ts_parallel_vec_sum_shared(t->pd, t->y);
  return ierr ? ierr : drain(t->y);
}

/* the best seconds of the one-process Laplacian of the finest level (one process only) */
static double one_process_apply(ts_backend be, ts_mesh mesh, ts_fe fe, int level) {
  ts_dofs dofs = NULL;
  timed plain = {0};
  double best = NAN;
  if (!ts_dofs_create(mesh, fe, level, &dofs) &&
      !ts_operator_create_laplace(be, dofs, TS_DOUBLE, &plain.A) &&
      !ts_vec_create(be, ts_dofs_count(dofs), TS_DOUBLE, &plain.x) &&
      !ts_vec_create(be, ts_dofs_count(dofs), TS_DOUBLE, &plain.y) &&
      !ts_vec_set_random(plain.x, 12))
    best = best_of(apply_once, &plain);
  ts_vec_destroy(&plain.x);
  ts_vec_destroy(&plain.y);
  ts_operator_destroy(&plain.A);
  ts_dofs_destroy(&dofs);
  return best;
}

/* one more FMG solve with the communication timed (ts_parallel_timing): its seconds, and the
 * halo (all levels and the finest), reductions and coarse solves with their shares */
static int timed_fmg(ts_parallel par, ts_parallel_mg mg, int level, ts_pc pc, ts_vec b,
                     ts_vec x, const char *label, int size) {
  int its = 0;
  ts_vec_set(x, 0.0);
  if (ts_parallel_timing(par, 1)) return 1;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (ts_pc_multigrid_fmg_solve(pc, b, x, 1e-8, 50, &its) || drain(x)) return 1;
  MPI_Barrier(MPI_COMM_WORLD);
  const double fmg = MPI_Wtime() - t0;
  if (ts_parallel_timing(par, 0)) return 1;
  long long n_halo, n_fine, n_reductions, n_coarse;
  const double halo = time_spent(mg, level, TS_PARALLEL_TIME_HALO, 0, &n_halo),
               halo_fine = time_spent(mg, level, TS_PARALLEL_TIME_HALO, 1, &n_fine),
               reductions = time_spent(mg, level, TS_PARALLEL_TIME_REDUCTION, 0, &n_reductions),
               coarse = time_spent(mg, level, TS_PARALLEL_TIME_COARSE, 0, &n_coarse);
  if (!ts_parallel_rank(par))
    printf("| timed %s | %d | FMG %.3f s | halo %.4f s (%.1f %%, %lld), finest %.4f s (%lld) | "
           "reductions %.4f s (%.1f %%, %lld) | coarse %.4f s (%.1f %%, %lld) | %d V-cycles |\n",
           label, size, fmg, halo, 100 * halo / fmg, n_halo, halo_fine, n_fine, reductions,
           100 * reductions / fmg, n_reductions, coarse, 100 * coarse / fmg, n_coarse, its);
  return 0;
}

static int fail(const char *what) {
  fprintf(stderr, "bench-parallel: %s: %s\n", what, ts_error_message());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dim, k, level, coarse[3];
  static const double lower[3] = {0, 0, 0};
  double upper[3];
  if (bench_parallel_args(argc, argv, "bench-parallel", &dim, &k, &level, coarse, upper)) return 2;
  ts_parallel par = NULL;
  if (ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), dim, NULL, &par) ||
      bench_parallel_settings(par))
    return fail("split");
  const char *name = getenv("TESSERA_BENCH_BACKEND");
  name = name ? name : "omp";
  char device[16];
  snprintf(device, sizeof device, "%d", ts_parallel_node_rank(par));
  setenv("TESSERA_GPU_NODE_RANK", device, 1);
  ts_backend be = NULL;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_parallel_mg mg = NULL;
  ts_pc pc = NULL;
  timed t = {0};
  if (ts_backend_open(name, &be)) return fail("backend");
  if (ts_mesh_create_box(dim, lower, upper, coarse, level, &mesh) || ts_fe_create_q(dim, k, &fe))
    return fail("mesh");
  size_t free_before = 0, free_after = 0;
  ts_backend_memory_available(be, &free_before);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  const char *smoother = getenv("TESSERA_BENCH_SMOOTHER");
  const int patches = smoother && !strcmp(smoother, "vertex-patch");
  const char *precision = getenv("TESSERA_BENCH_PRECISION");
  const int mixed = precision && !strcmp(precision, "mixed");
  const char *degree_text = getenv("TESSERA_BENCH_COARSE_DEGREE");
  const int coarse_degree = degree_text ? atoi(degree_text) : k;
  if (ts_parallel_mg_create(be, par, mesh, fe, 0, level, &mg) ||
      (mixed && ts_parallel_mg_set_precision(mg, TS_SINGLE)) ||
      ts_parallel_mg_set_coarse_degree(mg, coarse_degree) ||
      (patches ? ts_parallel_pc_create_mg_patch(mg, TS_PATCH_FUSED, 1, &pc)
               : ts_parallel_pc_create_mg_chebyshev(mg, 3, 1, &pc)))
    return fail("hierarchy");
  MPI_Barrier(MPI_COMM_WORLD);
  const double setup = MPI_Wtime() - t0;
  t.A = ts_parallel_mg_operator(mg, level);
  t.pd = ts_parallel_mg_dofs(mg, level);
  ts_vec b = NULL, x = NULL;
  if (ts_parallel_vec_create(t.pd, &b) || ts_parallel_vec_create(t.pd, &x) ||
      ts_vec_set_random(b, 11))
    return fail("vectors");
  int its = 0;
  if (ts_pc_multigrid_fmg_solve(pc, b, x, 1e-8, 50, &its)) return fail("FMG (warm-up)");
  double fmg = INFINITY;
  for (int r = 0; r < 2; ++r) {
    ts_vec_set(x, 0.0);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (ts_pc_multigrid_fmg_solve(pc, b, x, 1e-8, 50, &its) || drain(x)) return fail("FMG");
    MPI_Barrier(MPI_COMM_WORLD);
    const double s = MPI_Wtime() - t0;
    if (s < fmg) fmg = s;
  }
  ts_backend_memory_available(be, &free_after);
  t.x = b; /* the operator's timing: b in, x out (the timed FMG below starts from x = 0) */
  t.y = x;
  const double apply = best_of(apply_once, &t), halo = best_of(sum_once, &t);
  const double n = (double)ts_parallel_dofs_global_count(t.pd);
  const double plain = size == 1 ? one_process_apply(be, mesh, fe, level) : NAN;
  if (!rank)
    printf("| %dD Q%d %s, split %d%s%s | %d | %.0f | %.0f | %.2f | %.3f | %d | %.3g | %.3g | %.3f | %.3f (%.0f %%) | %s | %.3f | %.1f |\n",
           dim, k, argv[3], ts_parallel_mg_split_level(mg), mixed ? ", mixed" : "",
           coarse_degree < k ? ", degree levels" : "", size, n, n / size, setup, fmg, its, n / fmg, n / fmg / size,
           1e3 * apply, 1e3 * halo, 100.0 * halo / apply,
           ts_parallel_dofs_device_messages(t.pd) ? "device" : "host", 1e3 * plain,
           ((double)free_before - (double)free_after) / 1e9);
  char label[64];
  snprintf(label, sizeof label, "%dD Q%d %s%s", dim, k, argv[3], mixed ? " mixed" : "");
  if (timed_fmg(par, mg, level, pc, b, x, label, size)) return fail("timed FMG");
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_pc_destroy(&pc);
  ts_parallel_mg_destroy(&mg);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&be);
  ts_parallel_destroy(&par);
  MPI_Finalize();
  return 0;
}
