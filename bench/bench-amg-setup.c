/* bench-amg-setup.c -- the setup time of the smoothed-aggregation AMG (ts_pc_create_amg) on
 * paper 003's approximate Schur complement S~ with its sparse products (A T, P^T A P) on the
 * host and on the backend (ts_amg_options.host_products 1 and 0: the backend's csr_multiply,
 * cuSPARSE's SpGEMM on cuda), and the time of S~'s own product D D^T both ways
 * (ts_matrix_multiply, ts_matrix_multiply_on); the CG iterations with each AMG (to 1e-10 on
 * S~ x = 1) show that both build the same preconditioner.  Prints one markdown table row.
 *   bench-amg-setup BACKEND DIM K CELLS [REPEATS]
 * S~ of RT_K x L2 (interpolation-histopolation) on [0,1]^DIM with CELLS cells per direction,
 * alpha = 0.01, beta = 3, every boundary flux fixed (as tests/t-amg.c); the best of REPEATS
 * (default 2) timings.  3D, K = 1, CELLS = 50: 1e6 rows. */
#include <stdio.h>
#include <stdlib.h>
#include "bench-common.h"
#include "../tests/tap.h"
#include "../tests/cg-count.h"

static int schur(int dim, int k, int cells, ts_matrix *S, ts_matrix *D) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {cells, cells, cells};
  ts_mesh mesh = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  const ts_hdiv_coefficients co = {.alpha = 1e-2, .beta = 3.0};
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_rt_ih(dim, k, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(dim, k, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 0, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 0, &p);
  if (!ierr) ierr = ts_matrix_assemble_hdiv_schur(u, p, &co, TS_FACES_ALL(dim), S);
  if (!ierr) ierr = ts_matrix_assemble_divergence(u, p, D);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* the best time of D D^T on `on` (NULL: the host) */
static double product_time(ts_backend on, ts_matrix D, ts_matrix Dt, int repeats) {
  double best = INFINITY;
  for (int r = 0; r < repeats; ++r) {
    ts_matrix C = NULL;
    const double t0 = ts_wtime();
    const int ierr = ts_matrix_multiply_on(on, D, Dt, &C);
    const double t = ts_wtime() - t0;
    ts_matrix_destroy(&C);
    if (ierr) return NAN;
    if (t < best) best = t;
  }
  return best;
}

/* the best setup time of the AMG on b with host_products as given; CG iterations into *its */
static double setup_time(ts_backend b, ts_matrix S, int host_products, int repeats, int *its,
                         ts_amg_hierarchy *h) {
  ts_amg_options o;
  ts_amg_options_default(&o);
  o.host_products = host_products;
  double best = INFINITY;
  *its = -1;
  for (int r = 0; r < repeats; ++r) {
    ts_pc P = NULL;
    const double t0 = ts_wtime();
    const int ierr = ts_pc_create_amg(b, S, &o, &P, h);
    const double t = ts_wtime() - t0;
    if (ierr) {
      fprintf(stderr, "bench-amg-setup: %s\n", ts_error_message());
      return NAN;
    }
    if (t < best) best = t;
    if (r == repeats - 1) *its = cg_count(b, S, ts_pc_operator(P));
    ts_pc_destroy(&P);
  }
  return best;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: bench-amg-setup BACKEND DIM K CELLS [REPEATS]\n");
    return 2;
  }
  const int dim = atoi(argv[2]), k = atoi(argv[3]), cells = atoi(argv[4]);
  const int repeats = argc > 5 ? atoi(argv[5]) : 2;
  ts_backend b = NULL;
  ts_matrix S = NULL, D = NULL, Dt = NULL;
  int ierr = ts_backend_open(argv[1], &b);
  if (!ierr) ierr = schur(dim, k, cells, &S, &D);
  if (!ierr) ierr = ts_matrix_transpose(D, &Dt);
  if (ierr) {
    fprintf(stderr, "bench-amg-setup: %s\n", ts_error_message());
    return 1;
  }
  const double host_product = product_time(NULL, D, Dt, repeats);
  const double backend_product = product_time(b, D, Dt, repeats);
  int its_host = -1, its_backend = -1;
  ts_amg_hierarchy h;
  const double host_setup = setup_time(b, S, 1, repeats, &its_host, &h);
  const double backend_setup = setup_time(b, S, 0, repeats, &its_backend, &h);
  printf("| backend | dim | k | rows of S~ | nonzeros | AMG levels | D D^T host (s) | D D^T "
         "backend (s) | AMG setup, host products (s) | AMG setup, backend products (s) | CG "
         "its (host / backend products) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  printf("| %s | %d | %d | %lld | %lld | %d | %.3f | %.3f | %.3f | %.3f | %d / %d |\n",
         ts_backend_name(b), dim, k, (long long)ts_matrix_rows(S), (long long)ts_matrix_nonzeros(S),
         h.levels, host_product, backend_product, host_setup, backend_setup, its_host, its_backend);
  ts_matrix_destroy(&S);
  ts_matrix_destroy(&D);
  ts_matrix_destroy(&Dt);
  ts_backend_destroy(&b);
  return isnan(host_setup) || isnan(backend_setup) || isnan(backend_product) ? 1 : 0;
}
