/* bench-amg-counts.c -- CG iteration counts (to 1e-10 on A x = 1, one V-cycle as the
 * preconditioner, tests/cg-count.h) and operator complexities of our smoothed aggregation
 * (ts_pc_create_amg) under given options, against hypre's BoomerAMG on the same matrix: the
 * study of bench/results/2026-11-28-amg-anisotropic.md.  Prints one markdown table row.
 *   bench-amg-counts BACKEND MATRIX DIM K LEVEL [THETA:STEPS:FILTER ...]
 * MATRIX: darcy-aspectN (the Darcy S~ of paper 003's Figure 8, alpha infinite, beta = 2,
 * fluxes fixed on the left and top [back] faces, on 2N x 2 [x 2] coarse cells of the unit
 * square [cube], aspect ratio N = 1..8; N = 3 is tests/t-darcy-mapped's box), darcy (the same S~ on
 * tests/t-amg.c's 1 x 2 [x 1] coarse cells of [0,1] x [0,2] [x [0,1]]), schur (S~ with alpha =
 * 0.01, beta = 3, every flux fixed, there) or laplace (the Q_K Laplacian, there); RT_K x
 * DGQ_K refined LEVEL times.  Each THETA:STEPS:FILTER sets strength_threshold,
 * prolongation_smoothing_steps and prolongation_filter of ts_amg_options (the defaults
 * otherwise); none: the defaults.  The column of BoomerAMG is empty in a build without
 * hypre. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tessera.h"
#include "../tests/tap.h"
#include "../tests/cg-count.h"

static const char *const usage =
    "usage: bench-amg-counts BACKEND darcy-aspectN|darcy|schur|laplace DIM K LEVEL "
    "[THETA:STEPS:FILTER ...]\n";

/* N of darcy-aspectN (1..8), else 0 */
static int aspect_ratio(const char *matrix) {
  int n = 0;
  char tail;
  return sscanf(matrix, "darcy-aspect%d%c", &n, &tail) == 1 && n >= 1 && n <= 8 ? n : 0;
}

static int make_mesh(const char *matrix, int dim, int level, ts_mesh *mesh) {
  static const double lower[3] = {0, 0, 0}, unit[3] = {1, 1, 1}, tall[3] = {1, 2, 1};
  static const int two[3] = {1, 2, 1};
  const int aspect = aspect_ratio(matrix), long_cells[3] = {2 * aspect, 2, 2};
  return ts_mesh_create_box(dim, lower, aspect ? unit : tall, aspect ? long_cells : two,
                            level, mesh);
}

static int make_matrix(const char *matrix, int dim, int k, int level, ts_matrix *A) {
  ts_mesh mesh = NULL;
  ts_fe u_fe = NULL, p_fe = NULL;
  ts_dofs u = NULL, p = NULL;
  const int laplace = !strcmp(matrix, "laplace");
  int ierr = make_mesh(matrix, dim, level, &mesh);
  if (!ierr) ierr = laplace ? ts_fe_create_q(dim, k, &u_fe) : ts_fe_create_rt_ih(dim, k, &u_fe);
  if (!ierr) ierr = ts_dofs_create(mesh, u_fe, level, &u);
  if (!ierr && laplace) ierr = ts_matrix_assemble_laplace(u, A);
  if (!ierr && !laplace) {
    const ts_hdiv_coefficients schur = {.alpha = 1e-2, .beta = 3.0},
                               darcy = {.alpha = INFINITY, .beta = 2.0};
    const unsigned darcy_faces = TS_FACE_LEFT | (dim == 3 ? TS_FACE_BACK : TS_FACE_TOP);
    const int alpha = !strcmp(matrix, "schur");
    ierr = ts_fe_create_l2_ih(dim, k, &p_fe);
    if (!ierr) ierr = ts_dofs_create(mesh, p_fe, level, &p);
    if (!ierr)
      ierr = ts_matrix_assemble_hdiv_schur(u, p, alpha ? &schur : &darcy,
                                           alpha ? TS_FACES_ALL(dim) : darcy_faces, A);
  }
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&u_fe);
  ts_fe_destroy(&p_fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* THETA:STEPS:FILTER into o (the defaults first); 0, or 2 for a malformed argument */
static int parse_options(const char *text, ts_amg_options *o) {
  ts_amg_options_default(o);
  char tail;
  if (sscanf(text, "%lf:%d:%d%c", &o->strength_threshold, &o->prolongation_smoothing_steps,
             &o->prolongation_filter, &tail) != 3) {
    fprintf(stderr, "bench-amg-counts: '%s' is not THETA:STEPS:FILTER (e.g. 0.12:3:1)\n", text);
    return 2;
  }
  return 0;
}

/* " its (complexity) |" of our AMG with o on A, or " failed |" (the error on stderr) */
static void print_ours(ts_backend b, ts_matrix A, const ts_amg_options *o) {
  ts_pc P = NULL;
  ts_amg_hierarchy h;
  if (ts_pc_create_amg(b, A, o, &P, &h)) {
    fprintf(stderr, "bench-amg-counts: %s\n", ts_error_message());
    printf(" failed |");
    return;
  }
  printf(" %d (%.2f) |", cg_count(b, A, ts_pc_operator(P)), h.operator_complexity);
  ts_pc_destroy(&P);
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fputs(usage, stderr);
    return 2;
  }
  const char *matrix = argv[2];
  const int dim = atoi(argv[3]), k = atoi(argv[4]), level = atoi(argv[5]);
  if (!aspect_ratio(matrix) && strcmp(matrix, "darcy") && strcmp(matrix, "schur") &&
      strcmp(matrix, "laplace")) {
    fprintf(stderr, "bench-amg-counts: MATRIX '%s' unknown\n%s", matrix, usage);
    return 2;
  }
  ts_amg_options options[16];
  const int variants = argc > 6 ? argc - 6 : 1;
  if (variants > 16) {
    fprintf(stderr, "bench-amg-counts: %d option sets, at most 16\n", variants);
    return 2;
  }
  ts_amg_options_default(&options[0]);
  for (int v = 0; v < argc - 6; ++v)
    if (parse_options(argv[6 + v], &options[v])) return 2;
  ts_backend b = NULL;
  ts_matrix A = NULL;
  if (ts_backend_open(argv[1], &b) || make_matrix(matrix, dim, k, level, &A)) {
    fprintf(stderr, "bench-amg-counts: %s\n", ts_error_message());
    ts_backend_destroy(&b);
    return 1;
  }
  printf("| %s %dD k = %d level %d | %lld |", matrix, dim, k, level,
         (long long)ts_matrix_rows(A));
  ts_pc boomer = NULL;
  if (*ts_hypre_version() && !ts_pc_create_boomeramg(b, A, &boomer))
    printf(" %d |", cg_count(b, A, ts_pc_operator(boomer)));
  else
    printf(" |");
  ts_pc_destroy(&boomer);
  for (int v = 0; v < variants; ++v) print_ours(b, A, &options[v]);
  printf("\n");
  ts_matrix_destroy(&A);
  ts_backend_destroy(&b);
  return 0;
}
