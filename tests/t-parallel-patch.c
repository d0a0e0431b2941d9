/* t-parallel-patch.c -- the distributed vertex-patch smoother (doc/parallel.md, section 5) on
 * a 2x2x2 grid of processes (tests/t-parallel.sh runs it under mpirun -np 8): 3D Q1..Q3, both
 * variants, two steps from random x and b, then the smoother as a preconditioner (z =
 * S(0, r), ts_pc_create_smoother), equal to the one-process results bit for bit.  Eight
 * blocks meet at a corner, so the ghost cells of the edges and the corner, which reach a
 * block through two and three interfaces of the refresh, are checked; tests/t-parallel.c
 * covers 1-4 processes.  Every process checks; rank 0 prints. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "parallel-test.h"
#include "tap.h"
#include "tessera.h"

/* Two steps of the one-process and the distributed smoother; the largest difference of the
 * results into *apart (the gathered vector against the one-process one) */
static int two_steps(ts_backend be, ts_parallel par, ts_mesh mesh, int k, ts_patch_variant variant,
                     double *apart) {
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  ts_parallel_dofs pd = NULL;
  ts_smoother s = NULL, sd = NULL;
  ts_vec b = NULL, x = NULL, bd = NULL, xd = NULL;
  double *g = NULL, *h = NULL;
  int ierr = ts_fe_create_q(3, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(be, dofs, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_parallel_dofs_create(be, par, mesh, fe, 1, &pd);
  ts_operator Ad = NULL;
  if (!ierr) ierr = ts_parallel_operator_create_laplace(pd, &Ad);
  if (!ierr) ierr = ts_smoother_create_vertex_patch(A, dofs, variant, &s);
  if (!ierr) ierr = ts_parallel_smoother_create_vertex_patch(Ad, pd, variant, &sd);
  const int64_t n = ierr ? 0 : ts_dofs_count(dofs);
  if (!ierr) ierr = random_pairs(be, n, pd, &b, &x, &bd, &xd);
  for (int step = 0; step < 2 && !ierr; ++step) {
    ierr = ts_smoother_apply(s, b, x);
    if (!ierr) ierr = ts_smoother_apply(sd, bd, xd);
  }
  if (!ierr && (!(g = calloc((size_t)n, sizeof *g)) || !(h = calloc((size_t)n, sizeof *h))))
    ierr = TS_ERR_MEMORY;
  if (!ierr) ierr = ts_parallel_vec_gather(xd, g);
  if (!ierr) ierr = ts_vec_get_to_host(x, h);
  *apart = 0.0;
  for (int64_t i = 0; i < n; ++i) *apart = fmax(*apart, fabs(g[i] - h[i]));
  /* the smoothers as preconditioners, z = S(0, r) (the distributed one from a zeroed
   * extended x, without copying and exchanging x): the one-process bits too */
  ts_pc pc = NULL, pcd = NULL;
  if (!ierr) ierr = ts_pc_create_smoother(s, &pc);
  s = NULL; /* the pc's now */
  if (!ierr) ierr = ts_pc_create_smoother(sd, &pcd);
  sd = NULL;
  if (!ierr) ierr = ts_pc_apply(pc, b, x);
  if (!ierr) ierr = ts_pc_apply(pcd, bd, xd);
  if (!ierr) ierr = ts_parallel_vec_gather(xd, g);
  if (!ierr) ierr = ts_vec_get_to_host(x, h);
  for (int64_t i = 0; !ierr && i < n; ++i) *apart = fmax(*apart, fabs(g[i] - h[i]));
  free(g), free(h);
  ts_vec *v[] = {&b, &x, &bd, &xd};
  for (int i = 0; i < 4; ++i) ts_vec_destroy(v[i]);
  ts_pc_destroy(&pc), ts_pc_destroy(&pcd);
  ts_smoother_destroy(&s), ts_smoother_destroy(&sd);
  ts_operator_destroy(&Ad), ts_operator_destroy(&A);
  ts_parallel_dofs_destroy(&pd);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  return ierr;
}

int main(int argc, char **argv) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  static const int cells[3] = {3, 2, 4}; /* level 1: 6 x 4 x 8 cells, 3 + 3, 2 + 2, 4 + 4 */
  int rank = 0, size = 1, procs[3] = {2, 2, 2};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank > 0 && !freopen("/dev/null", "w", stdout)) MPI_Abort(MPI_COMM_WORLD, 1);
  plan(6);
  ts_backend be = NULL;
  ts_mesh mesh = NULL;
  ts_parallel par = NULL;
  int ierr = size == 8 ? 0 : TS_ERR_ARG;
  if (!ierr) ierr = ts_backend_open(tap_backend(), &be);
  if (!ierr) ierr = ts_mesh_create_box(3, lower, upper, cells, 1, &mesh);
  if (!ierr) ierr = ts_parallel_create((int)MPI_Comm_c2f(MPI_COMM_WORLD), 3, procs, &par);
  if (!everywhere(!ierr)) {
    skip(6, size == 8 ? "no backend, mesh or split" : "needs mpirun -np 8");
  } else {
    for (int k = 1; k <= 3; ++k)
      for (int v = 0; v <= 1; ++v) {
        const ts_patch_variant variant = v ? TS_PATCH_FUSED : TS_PATCH_SEPARATE;
        double apart = INFINITY;
        const int e = two_steps(be, par, mesh, k, variant, &apart);
        ok(everywhere(!e && apart == 0.0), "3D Q%d on 2x2x2, %s: two vertex-patch steps and "
           "the smoother as a preconditioner, the one-process bits (%.1e apart)%s%s", k, v ? "fused" : "separate", apart,
           e ? ": " : "", e ? ts_error_message() : "");
      }
  }
  ts_parallel_destroy(&par);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&be);
  const int status = exit_status();
  MPI_Finalize();
  return status;
}
