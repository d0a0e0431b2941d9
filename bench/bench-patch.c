/* bench-patch.c -- time of one vertex-patch smoothing step (paper 002, Algorithm 2.3) per
 * DoF on a backend, per degree, for the Fused and Separate variants, next to one
 * application of the matrix-free Laplacian on the same level.
 *   bench-patch [--backend omp] [--dim 3] [--degrees 1-8] [--dofs 3e6] [--precision double]
 *               [--seconds 1]
 * Prints one line per degree: DoFs, ns/DoF of a Fused step, a Separate step and a Laplacian
 * application (best average over repetitions of at least --seconds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench-common.h"
#include "tessera.h"

/* One timed call: a smoothing step (s set) or an operator application (A set). */
typedef struct timed_call {
  ts_smoother s;
  ts_operator A;
  ts_vec in, out;
} timed_call;

static int call_once(void *ctx) {
  const timed_call *c = ctx;
  return c->s ? ts_smoother_apply(c->s, c->in, c->out) : ts_operator_apply(c->A, c->in, c->out);
}

int main(int argc, char **argv) {
  const char *backend = "omp";
  int dim = 3, kmin = 1, kmax = 8;
  double target = 3e6, seconds = 1.0;
  ts_precision prec = TS_DOUBLE;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "bench-patch: option %s needs a value (see the comment at the top of bench/bench-patch.c)\n", a);
      return 2;
    }
    if (!strcmp(a, "--backend")) backend = v;
    else if (!strcmp(a, "--dim")) dim = atoi(v);
    else if (!strcmp(a, "--degrees")) bench_parse_degrees(v, &kmin, &kmax);
    else if (!strcmp(a, "--dofs")) target = atof(v);
    else if (!strcmp(a, "--seconds")) seconds = atof(v);
    else if (!strcmp(a, "--precision")) prec = !strcmp(v, "single") ? TS_SINGLE : TS_DOUBLE;
    else {
      fprintf(stderr, "bench-patch: unknown option %s\n", a);
      return 2;
    }
    ++i;
  }
  if ((dim != 2 && dim != 3) || kmin < 1 || kmax > 10 || kmin > kmax || !(target > 0)) {
    fprintf(stderr, "bench-patch: need --dim 2|3, --degrees within 1-10, --dofs > 0\n");
    return 2;
  }
  ts_backend be;
  if (ts_backend_open(backend, &be)) {
    fprintf(stderr, "bench-patch: %s\n", ts_error_message());
    return 1;
  }
  printf("# vertex-patch smoother, %s, %dD, %s precision\n# %s\n", backend, dim,
         ts_precision_name(prec), ts_backend_description(be));
  printf("# k      DoFs   cells  fused[ns/DoF]  separate[ns/DoF]  laplace[ns/DoF]\n");
  for (int k = kmin; k <= kmax; ++k) {
    const int c = (int)lround(pow(target, 1.0 / dim) / k);
    const int coarse[3] = {c, c, c};
    const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
    ts_mesh mesh = NULL;
    ts_fe fe = NULL;
    ts_dofs dofs = NULL;
    ts_operator A = NULL;
    ts_smoother fused = NULL, separate = NULL;
    ts_vec b = NULL, x = NULL, one = NULL;
    int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 0, &mesh);
    if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
    if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
    if (!ierr) ierr = ts_operator_create_laplace(be, dofs, prec, &A);
    if (!ierr) ierr = ts_smoother_create_vertex_patch(A, dofs, TS_PATCH_FUSED, &fused);
    if (!ierr) ierr = ts_smoother_create_vertex_patch(A, dofs, TS_PATCH_SEPARATE, &separate);
    if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(dofs), prec, &b);
    if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(dofs), prec, &x);
    if (!ierr) ierr = ts_vec_create(be, 1, prec, &one);
    if (!ierr) ierr = ts_vec_set_random(b, 1);
    if (ierr) {
      fprintf(stderr, "bench-patch: k = %d: %s\n", k, ts_error_message());
      return 1;
    }
    const double n = (double)ts_dofs_count(dofs);
    const double tf = bench_best_time(call_once, &(timed_call){fused, NULL, b, x}, 1, one, seconds);
    const double ts = bench_best_time(call_once, &(timed_call){separate, NULL, b, x}, 1, one, seconds);
    const double ta = bench_best_time(call_once, &(timed_call){NULL, A, b, x}, 1, one, seconds);
    printf("%3d %9.0f %7d %14.2f %17.2f %16.2f\n", k, n, c, 1e9 * tf / n, 1e9 * ts / n, 1e9 * ta / n);
    fflush(stdout);
    ts_vec_destroy(&b);
    ts_vec_destroy(&x);
    ts_vec_destroy(&one);
    ts_smoother_destroy(&fused);
    ts_smoother_destroy(&separate);
    ts_operator_destroy(&A);
    ts_dofs_destroy(&dofs);
    ts_fe_destroy(&fe);
    ts_mesh_destroy(&mesh);
  }
  ts_backend_destroy(&be);
  return 0;
}
