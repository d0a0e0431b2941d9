/* bench-transfer.c -- time of the multigrid transfers between two levels of a Q_k box
 * hierarchy on a backend, per degree: prolongation fine = P coarse and restriction
 * coarse = P^T fine (no add), next to the backend's copy bandwidth.
 *   bench-transfer [--backend omp] [--dim 3] [--degrees 1-8] [--dofs 3e6]
 *                  [--precision double] [--seconds 1]
 * --dofs is the target number of fine DoFs.  Prints one line per degree: coarse and fine
 * DoFs, the time of one call and the bandwidth (coarse + fine) entries * sizeof(R) / time
 * of each direction (best average over repetitions of at least --seconds/3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench-common.h"
#include "tessera.h"

/* One timed call: prolongation (restrict_ = 0) or restriction between levels 0 and 1. */
typedef struct timed_call {
  ts_mg mg;
  int restrict_;
  ts_vec coarse, fine;
} timed_call;

static int call_once(void *ctx) {
  const timed_call *c = ctx;
  return c->restrict_ ? ts_mg_restrict(c->mg, 1, c->fine, c->coarse)
                      : ts_mg_prolongate(c->mg, 1, c->coarse, c->fine);
}

int main(int argc, char **argv) {
  const char *backend = "omp";
  int dim = 3, kmin = 1, kmax = 8;
  double target = 3e6, seconds = 1.0;
  ts_precision prec = TS_DOUBLE;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "bench-transfer: option %s needs a value (see the comment at the top of bench/bench-transfer.c)\n", a);
      return 2;
    }
    if (!strcmp(a, "--backend")) backend = v;
    else if (!strcmp(a, "--dim")) dim = atoi(v);
    else if (!strcmp(a, "--degrees")) bench_parse_degrees(v, &kmin, &kmax);
    else if (!strcmp(a, "--dofs")) target = atof(v);
    else if (!strcmp(a, "--seconds")) seconds = atof(v);
    else if (!strcmp(a, "--precision")) {
      if (!strcmp(v, "single")) prec = TS_SINGLE;
      else if (!strcmp(v, "double")) prec = TS_DOUBLE;
      else {
        fprintf(stderr, "bench-transfer: --precision %s: allowed double or single\n", v);
        return 2;
      }
    } else {
      fprintf(stderr, "bench-transfer: unknown option %s\n", a);
      return 2;
    }
    ++i;
  }
  if ((dim != 2 && dim != 3) || kmin < 1 || kmax > 10 || kmin > kmax || !(target > 0)) {
    fprintf(stderr, "bench-transfer: need --dim 2|3, --degrees within 1-10, --dofs > 0\n");
    return 2;
  }
  ts_backend be;
  if (ts_backend_open(backend, &be)) {
    fprintf(stderr, "bench-transfer: %s\n", ts_error_message());
    return 1;
  }
  double copy = NAN;
  if (ts_backend_measure_ceilings(be, &copy, NULL, NULL)) copy = NAN;
  printf("# multigrid transfer, %s, %dD, %s precision, copy bandwidth %.0f GB/s\n# %s\n",
         backend, dim, ts_precision_name(prec), copy * 1e-9, ts_backend_description(be));
  printf("# k  coarse DoFs    fine DoFs  cells  prolongate[ms]  [GB/s]  restrict[ms]  [GB/s]\n");
  for (int k = kmin; k <= kmax; ++k) {
    /* fine level: 2c cells of degree k per direction, (2kc+1)^dim DoFs */
    const int c = (int)fmax(1.0, lround((pow(target, 1.0 / dim) - 1.0) / (2.0 * k)));
    const int coarse[3] = {c, c, c};
    const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
    ts_mesh mesh = NULL;
    ts_fe fe = NULL;
    ts_dofs cd = NULL, fd = NULL;
    ts_mg mg = NULL;
    ts_vec xc = NULL, xf = NULL, one = NULL;
    ts_mg_options o;
    ts_mg_options_default(&o);
    o.smoother = TS_MG_SMOOTHER_CHEBYSHEV; /* the cheapest setup; only the transfers are timed */
    o.chebyshev_degree = 1;
    o.precision = prec;
    int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 1, &mesh);
    if (!ierr) ierr = ts_fe_create_q(dim, k, &fe);
    if (!ierr) ierr = ts_mg_create(be, mesh, fe, 1, &o, &mg);
    if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &cd);
    if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &fd);
    if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(cd), prec, &xc);
    if (!ierr) ierr = ts_vec_create(be, ts_dofs_count(fd), prec, &xf);
    if (!ierr) ierr = ts_vec_create(be, 1, prec, &one);
    if (!ierr) ierr = ts_vec_set_random(xc, 1);
    if (!ierr) ierr = ts_vec_set_random(xf, 2);
    if (!ierr) ierr = ts_vec_set(one, 1.0);
    if (ierr) {
      fprintf(stderr, "bench-transfer: k = %d: %s\n", k, ts_error_message());
      return 1;
    }
    const double nc = (double)ts_dofs_count(cd), nf = (double)ts_dofs_count(fd);
    const double bytes = (nc + nf) * (double)ts_precision_size(prec);
    const double tp = bench_best_time(call_once, &(timed_call){mg, 0, xc, xf}, 10, one, seconds);
    const double tr = bench_best_time(call_once, &(timed_call){mg, 1, xc, xf}, 10, one, seconds);
    if (isnan(tp) || isnan(tr)) {
      fprintf(stderr, "bench-transfer: k = %d: %s\n", k, ts_error_message());
      return 1;
    }
    printf("%3d %12.0f %12.0f %6d %15.3f %7.1f %13.3f %7.1f\n", k, nc, nf, c, 1e3 * tp,
           1e-9 * bytes / tp, 1e3 * tr, 1e-9 * bytes / tr);
    fflush(stdout);
    ts_vec_destroy(&xc);
    ts_vec_destroy(&xf);
    ts_vec_destroy(&one);
    ts_mg_destroy(&mg);
    ts_dofs_destroy(&cd);
    ts_dofs_destroy(&fd);
    ts_fe_destroy(&fe);
    ts_mesh_destroy(&mesh);
  }
  ts_backend_destroy(&be);
  return 0;
}
