/* bench-stokes.c -- device check and timing of the Stokes operator (RT_k x DGQ_k, paper 000,
 * doc/stokes.md) and of its multigrid transfer on a backend against the omp reference.
 *   bench-stokes [--backend cuda] [--check 1] [--time 1] [--dofs 1e8] [--dofs2d 1e8]
 *                [--degrees 0-4] [--seconds 1] [--smooth 1] [--sdofs 5e7] [--sdegrees 2,4]
 *                [--sfloat 0]
 * Check (--check 1): for dim 2 and 3, k in --degrees, double and single, on an anisotropic
 * box, the same pseudo-random x on omp and on the backend: y = Acal x, y += Acal x, fine =
 * P coarse and coarse = P^T fine (plain and add); prints the relative max difference
 * max|y_b - y_omp| / max|y_omp| and fails (exit 1) above 1e-12 (double) or 1e-5 (single).
 * Time (--time 1; --time 2 times the smoothing step only): the backend's y = Acal x in double and single on the unit cube (3D, about
 * --dofs DoFs) and square (2D, about --dofs2d), best time per call over 3 rounds of
 * --seconds/3: ns/DoF, GDoF/s and the bandwidth of the minimum traffic (read x, write y:
 * 2 n sizeof(R) bytes) next to the backend's copy ceiling (ts_backend_measure_ceilings).
 * Smoother (--smooth 1): with --check, one full step of the Stokes vertex-patch smoother
 * (ts_smoother_create_stokes_patch, SCHUR and DIRECT; DIRECT in 3D only up to k = 1: the
 * host setup of the dense pseudo-inverses grows as n_local^3) on the same random b, x on omp and on the backend,
 * compared as above; with --time, the backend's smoothing step in 3D (about --sdofs DoFs,
 * degrees --sdegrees, SCHUR with the plan's default CG tolerance, double; single with
 * --sfloat 1): ns/DoF next to y = Acal x on the same mesh and the fractions of the copy and
 * FP64 ceilings measured in the same run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench-common.h"
#include "tessera.h"
#include "../lib/mg/mg-impl.h"

/* The Stokes space of one level: velocity and pressure DoFs. */
typedef struct stokes_space {
  ts_fe rt, dg;
  ts_dofs u[2], p[2]; /* levels 0 and 1 */
  int levels;
} stokes_space;

static int space_create(ts_mesh mesh, int dim, int k, int levels, stokes_space *s) {
  memset(s, 0, sizeof *s);
  s->levels = levels;
  int ierr = ts_fe_create_rt(dim, k, &s->rt);
  if (!ierr) ierr = ts_fe_create_dgq(dim, k, &s->dg);
  for (int l = 0; l < levels && !ierr; ++l) {
    ierr = ts_dofs_create(mesh, s->rt, l, &s->u[l]);
    if (!ierr) ierr = ts_dofs_create(mesh, s->dg, l, &s->p[l]);
  }
  return ierr;
}

static void space_destroy(stokes_space *s) {
  for (int l = 0; l < s->levels; ++l) {
    if (s->u[l]) ts_dofs_destroy(&s->u[l]);
    if (s->p[l]) ts_dofs_destroy(&s->p[l]);
  }
  if (s->rt) ts_fe_destroy(&s->rt);
  if (s->dg) ts_fe_destroy(&s->dg);
}

static int64_t space_count(const stokes_space *s, int l) {
  return ts_dofs_count(s->u[l]) + ts_dofs_count(s->p[l]);
}

/* max |a - b| / max |b| */
static double rel_diff(const double *a, const double *b, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    num = fmax(num, fabs(a[i] - b[i]));
    den = fmax(den, fabs(b[i]));
  }
  return den > 0 ? num / den : num;
}

static double *random_host(int64_t n, unsigned seed) {
  double *v = malloc((size_t)n * sizeof *v);
  srand(seed);
  for (int64_t i = 0; i < n && v; ++i) v[i] = 2.0 * rand() / RAND_MAX - 1.0;
  return v;
}

/* out = f(in) on a backend; out preset from out0 (for add); results into host. */
typedef enum { OP_APPLY, OP_APPLY_ADD, OP_PROLONGATE, OP_RESTRICT } op_kind;

static int run_one(ts_backend be, ts_precision prec, op_kind kind, stokes_space *s,
                   ts_field_transfer_plan *plan, int add, const double *in, int64_t n_in,
                   const double *out0, int64_t n_out, double *result) {
  ts_vec x = NULL, y = NULL;
  ts_operator op = NULL;
  int ierr = ts_vec_create(be, n_in, prec, &x);
  if (!ierr) ierr = ts_vec_create(be, n_out, prec, &y);
  if (!ierr) ierr = ts_vec_set_from_host(x, in);
  if (!ierr) ierr = ts_vec_set_from_host(y, out0);
  if (!ierr && (kind == OP_APPLY || kind == OP_APPLY_ADD)) {
    ierr = ts_operator_create_stokes(be, s->u[0], s->p[0], 0.0, prec, &op);
    if (!ierr) ierr = kind == OP_APPLY ? ts_operator_apply(op, x, y) : ts_operator_apply_add(op, x, y);
  } else if (!ierr) {
    ierr = ts_field_transfer_apply(be, plan, kind == OP_RESTRICT, x, y, add);
  }
  if (!ierr) ierr = ts_vec_get_to_host(y, result);
  if (op) ts_operator_destroy(&op);
  if (x) ts_vec_destroy(&x);
  if (y) ts_vec_destroy(&y);
  return ierr;
}

/* Compare the backend with omp for every operation at one (dim, k, precision). */
static int check_case(ts_backend omp, ts_backend dev, const char *name, int dim, int k,
                      ts_precision prec, int *failures) {
  const int cells[3] = {9, 5, 3}; /* direction 0 spans more than one thread block for k >= 3 */
  const double lower[3] = {0, -0.5, 0.25}, upper[3] = {1.0, 1.0, 0.95};
  ts_mesh mesh = NULL;
  stokes_space s;
  ts_field_transfer_plan plan;
  double *storage = malloc(TS_FIELD_TRANSFER_STOKES_STORAGE * sizeof(double));
  int ierr = ts_mesh_create_box(dim, lower, upper, cells, 2, &mesh);
  if (!ierr) ierr = space_create(mesh, dim, k, 2, &s);
  if (!ierr) ierr = ts_field_transfer_plan_init_stokes(s.u[0], s.p[0], s.u[1], s.p[1], &plan, storage);
  if (ierr) {
    fprintf(stderr, "bench-stokes: setup dim %d k %d: %s\n", dim, k, ts_error_message());
    return ierr;
  }
  const int64_t nc = space_count(&s, 0), nf = space_count(&s, 1);
  const double tol = prec == TS_DOUBLE ? 1e-12 : 1e-5;
  double *xc = random_host(nc, 11 + k), *xf = random_host(nf, 12 + k);
  double *yc = random_host(nc, 13 + k), *yf = random_host(nf, 14 + k);
  double *ra = malloc((size_t)nf * sizeof(double)), *rb = malloc((size_t)nf * sizeof(double));
  static const char *what[6] = {"apply", "apply_add", "prolongate", "prolongate_add",
                                "restrict", "restrict_add"};
  printf("%dD k=%d %-6s n=%-8lld", dim, k, ts_precision_name(prec), (long long)nc);
  for (int c = 0; c < 6 && !ierr; ++c) {
    const op_kind kind = c == 0 ? OP_APPLY : c == 1 ? OP_APPLY_ADD : c < 4 ? OP_PROLONGATE : OP_RESTRICT;
    const int add = c >= 2 && (c % 2 == 1);
    const double *in = kind == OP_RESTRICT ? xf : xc;
    const int64_t n_in = kind == OP_RESTRICT ? nf : nc;
    const double *out0 = kind == OP_PROLONGATE ? yf : yc;
    const int64_t n_out = kind == OP_PROLONGATE ? nf : nc;
    ierr = run_one(omp, prec, kind, &s, &plan, add, in, n_in, out0, n_out, ra);
    if (ierr) {
      fprintf(stderr, "\nbench-stokes: omp %s: %s\n", what[c], ts_error_message());
      break;
    }
    ierr = run_one(dev, prec, kind, &s, &plan, add, in, n_in, out0, n_out, rb);
    if (ierr) {
      fprintf(stderr, "\nbench-stokes: %s %s: %s\n", name, what[c], ts_error_message());
      break;
    }
    const double e = rel_diff(rb, ra, n_out);
    const int bad = !(e <= tol);
    *failures += bad;
    printf(" %s %.1e%s", what[c], e, bad ? " FAIL" : "");
  }
  printf("\n");
  fflush(stdout);
  free(xc), free(xf), free(yc), free(yf), free(ra), free(rb), free(storage);
  space_destroy(&s);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* The timed steps (bench_best_time): y = Acal x, and one smoothing step x <- S(x, b). */
typedef struct timed_apply {
  ts_operator op;
  ts_vec x, y;
} timed_apply;
static int apply_once(void *ctx) {
  const timed_apply *c = ctx;
  return ts_operator_apply(c->op, c->x, c->y);
}
typedef struct timed_smooth {
  ts_smoother sm;
  ts_vec b, x;
} timed_smooth;
static int smooth_once(void *ctx) {
  const timed_smooth *c = ctx;
  return ts_smoother_apply(c->sm, c->b, c->x);
}

static int time_case(ts_backend be, int dim, int k, ts_precision prec, double target,
                     double seconds, double copy) {
  /* about (dim + 1) (c (k+1))^dim DoFs */
  const int c = (int)fmax(1.0, lround(pow(target / (dim + 1), 1.0 / dim) / (k + 1)));
  const int cells[3] = {c, c, c};
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  ts_mesh mesh = NULL;
  stokes_space s;
  ts_operator op = NULL;
  ts_vec x = NULL, y = NULL, one = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, cells, 1, &mesh);
  if (!ierr) ierr = space_create(mesh, dim, k, 1, &s);
  if (!ierr) ierr = ts_operator_create_stokes(be, s.u[0], s.p[0], 0.0, prec, &op);
  const int64_t n = ierr ? 0 : space_count(&s, 0);
  if (!ierr) ierr = ts_vec_create(be, n, prec, &x);
  if (!ierr) ierr = ts_vec_create(be, n, prec, &y);
  if (!ierr) ierr = ts_vec_create(be, 1, prec, &one);
  if (!ierr) ierr = ts_vec_set_random(x, 3);
  if (!ierr) ierr = ts_vec_set(one, 1.0);
  double t = NAN;
  if (!ierr) {
    t = bench_best_time(apply_once, &(timed_apply){op, x, y}, 10, one, seconds);
    if (isnan(t)) ierr = 1;
  }
  if (ierr) {
    fprintf(stderr, "bench-stokes: time %dD k=%d %s: %s\n", dim, k, ts_precision_name(prec),
            ts_error_message());
  } else {
    const double bytes = 2.0 * (double)n * (double)ts_precision_size(prec);
    printf("%dD %d %-6s %5d %12lld %10.3f %8.4f %8.2f %8.0f %6.1f%% %8.1f\n", dim, k,
           ts_precision_name(prec), c, (long long)n, 1e3 * t, 1e9 * t / (double)n,
           1e-9 * (double)n / t, 1e-9 * bytes / t, 100.0 * bytes / t / copy,
           1e-9 * ts_operator_flops(op) / t);
    fflush(stdout);
  }
  if (op) ts_operator_destroy(&op);
  if (x) ts_vec_destroy(&x);
  if (y) ts_vec_destroy(&y);
  if (one) ts_vec_destroy(&one);
  space_destroy(&s);
  if (mesh) ts_mesh_destroy(&mesh);
  return ierr;
}

/* One smoothing step x <- S(b, x) on a backend; x into host. */
static int smooth_one(ts_backend be, ts_precision prec, stokes_space *s,
                      ts_stokes_patch_solver solver, const double *b0, const double *x0,
                      int64_t n, double *result) {
  ts_vec b = NULL, x = NULL;
  ts_operator op = NULL;
  ts_smoother sm = NULL;
  int ierr = ts_vec_create(be, n, prec, &b);
  if (!ierr) ierr = ts_vec_create(be, n, prec, &x);
  if (!ierr) ierr = ts_vec_set_from_host(b, b0);
  if (!ierr) ierr = ts_vec_set_from_host(x, x0);
  if (!ierr) ierr = ts_operator_create_stokes(be, s->u[0], s->p[0], 0.0, prec, &op);
  if (!ierr) ierr = ts_smoother_create_stokes_patch(op, s->u[0], s->p[0], solver, &sm);
  if (!ierr) ierr = ts_smoother_apply(sm, b, x);
  if (!ierr) ierr = ts_vec_get_to_host(x, result);
  if (sm) ts_smoother_destroy(&sm);
  if (op) ts_operator_destroy(&op);
  if (b) ts_vec_destroy(&b);
  if (x) ts_vec_destroy(&x);
  return ierr;
}

/* Compare one smoothing step of the backend with omp at one (dim, k, precision). */
static int check_smoother(ts_backend omp, ts_backend dev, const char *name, int dim, int k,
                          ts_precision prec, int *failures) {
  const int cells[3] = {9, 5, 4}; /* all patch kinds: 2 .. 4 vertices of a color per direction */
  const double lower[3] = {0, -0.5, 0.25}, upper[3] = {1.0, 1.0, 0.95};
  ts_mesh mesh = NULL;
  stokes_space s;
  int ierr = ts_mesh_create_box(dim, lower, upper, cells, 1, &mesh);
  if (!ierr) ierr = space_create(mesh, dim, k, 1, &s);
  if (ierr) {
    fprintf(stderr, "bench-stokes: smoother setup dim %d k %d: %s\n", dim, k, ts_error_message());
    return ierr;
  }
  const int64_t n = space_count(&s, 0);
  const double tol = prec == TS_DOUBLE ? 1e-12 : 1e-5;
  double *b = random_host(n, 21 + k), *x = random_host(n, 22 + k);
  double *ra = malloc((size_t)n * sizeof(double)), *rb = malloc((size_t)n * sizeof(double));
  printf("%dD k=%d %-6s n=%-8lld smoothing step:", dim, k, ts_precision_name(prec), (long long)n);
  for (int sv = 0; sv < 2 && !ierr; ++sv) {
    const ts_stokes_patch_solver solver = sv ? TS_STOKES_PATCH_DIRECT : TS_STOKES_PATCH_SCHUR;
    if (solver == TS_STOKES_PATCH_DIRECT && dim == 3 && k > 1) continue;
    const char *sname = sv ? "direct" : "schur";
    ierr = smooth_one(omp, prec, &s, solver, b, x, n, ra);
    if (ierr) {
      fprintf(stderr, "\nbench-stokes: omp smoother %s: %s\n", sname, ts_error_message());
      break;
    }
    ierr = smooth_one(dev, prec, &s, solver, b, x, n, rb);
    if (ierr) {
      fprintf(stderr, "\nbench-stokes: %s smoother %s: %s\n", name, sname, ts_error_message());
      break;
    }
    const double e = rel_diff(rb, ra, n);
    const int bad = !(e <= tol);
    *failures += bad;
    printf(" %s %.1e%s", sname, e, bad ? " FAIL" : "");
  }
  printf("\n");
  fflush(stdout);
  free(b), free(x), free(ra), free(rb);
  space_destroy(&s);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* Time the backend's smoothing step (SCHUR) in 3D at about target DoFs. */
static int time_smoother_case(ts_backend be, int k, ts_precision prec, double target,
                              double seconds, double copy, double fp64) {
  const int dim = 3;
  const int c = (int)fmax(2.0, lround(pow(target / (dim + 1), 1.0 / dim) / (k + 1)));
  const int cells[3] = {c, c, c};
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  ts_mesh mesh = NULL;
  stokes_space s;
  ts_operator op = NULL;
  ts_smoother sm = NULL;
  ts_vec x = NULL, b = NULL, one = NULL;
  int ierr = ts_mesh_create_box(dim, lower, upper, cells, 1, &mesh);
  if (!ierr) ierr = space_create(mesh, dim, k, 1, &s);
  if (!ierr) ierr = ts_operator_create_stokes(be, s.u[0], s.p[0], 0.0, prec, &op);
  if (!ierr) ierr = ts_smoother_create_stokes_patch(op, s.u[0], s.p[0], TS_STOKES_PATCH_SCHUR, &sm);
  const int64_t n = ierr ? 0 : space_count(&s, 0);
  if (!ierr) ierr = ts_vec_create(be, n, prec, &x);
  if (!ierr) ierr = ts_vec_create(be, n, prec, &b);
  if (!ierr) ierr = ts_vec_create(be, 1, prec, &one);
  if (!ierr) ierr = ts_vec_set_random(x, 3);
  if (!ierr) ierr = ts_vec_set_random(b, 4);
  if (!ierr) ierr = ts_vec_set(one, 1.0);
  double t = NAN, ta = NAN;
  if (!ierr) {
    t = bench_best_time(smooth_once, &(timed_smooth){sm, b, x}, 2, one, seconds);
    ta = bench_best_time(apply_once, &(timed_apply){op, x, b}, 10, one, seconds / 2);
    if (isnan(t) || isnan(ta)) ierr = 1;
  }
  if (ierr) {
    fprintf(stderr, "bench-stokes: smoother time 3D k=%d %s: %s\n", k, ts_precision_name(prec),
            ts_error_message());
  } else {
    /* the minimum traffic of a step: per color the operator (read x, b, write r) and the
     * patch pass (read r, read and write x): 2^dim (3 + 3) n sizeof(R) */
    const double bytes = 8.0 * 6.0 * (double)n * (double)ts_precision_size(prec);
    printf("3D %d %-6s %5d %12lld %10.3f %8.3f %8.3f %8.2f %6.1f%% %6.1f%%\n", k,
           ts_precision_name(prec), c, (long long)n, 1e3 * t, 1e9 * t / (double)n,
           1e9 * ta / (double)n, 1e-9 * bytes / t, 100.0 * bytes / t / copy,
           100.0 * 8.0 * ts_operator_flops(op) / t / fp64);
    fflush(stdout);
  }
  if (sm) ts_smoother_destroy(&sm);
  if (op) ts_operator_destroy(&op);
  if (x) ts_vec_destroy(&x);
  if (b) ts_vec_destroy(&b);
  if (one) ts_vec_destroy(&one);
  space_destroy(&s);
  if (mesh) ts_mesh_destroy(&mesh);
  return ierr;
}

int main(int argc, char **argv) {
  const char *backend = "cuda";
  int check = 1, timing = 1, kmin = 0, kmax = 4, smooth = 1, sfloat = 0;
  double target = 1e8, target2d = 1e8, seconds = 1.0, starget = 5e7;
  char sdegrees[64] = "2,4";
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "bench-stokes: option %s needs a value (see bench/bench-stokes.c)\n", a);
      return 2;
    }
    if (!strcmp(a, "--backend")) backend = v;
    else if (!strcmp(a, "--check")) check = atoi(v);
    else if (!strcmp(a, "--time")) timing = atoi(v);
    else if (!strcmp(a, "--dofs")) target = atof(v);
    else if (!strcmp(a, "--dofs2d")) target2d = atof(v);
    else if (!strcmp(a, "--seconds")) seconds = atof(v);
    else if (!strcmp(a, "--smooth")) smooth = atoi(v);
    else if (!strcmp(a, "--sfloat")) sfloat = atoi(v);
    else if (!strcmp(a, "--sdofs")) starget = atof(v);
    else if (!strcmp(a, "--sdegrees")) snprintf(sdegrees, sizeof sdegrees, "%s", v);
    else if (!strcmp(a, "--degrees")) bench_parse_degrees(v, &kmin, &kmax);
    else {
      fprintf(stderr, "bench-stokes: unknown option %s\n", a);
      return 2;
    }
    ++i;
  }
  if (kmin < 0 || kmin > kmax || !(target > 0) || !(target2d > 0)) {
    fprintf(stderr, "bench-stokes: need --degrees a-b with 0 <= a <= b, --dofs > 0\n");
    return 2;
  }
  ts_backend omp = NULL, dev = NULL;
  if (ts_backend_open(backend, &dev) || (check && ts_backend_open("omp", &omp))) {
    fprintf(stderr, "bench-stokes: %s\n", ts_error_message());
    return 1;
  }
  printf("# Stokes RT_k x DGQ_k, backend %s: %s\n", backend, ts_backend_description(dev));
  int failures = 0, ierr = 0;
  if (check) {
    printf("# check against omp: relative max difference (tolerance 1e-12 double, 1e-5 single)\n");
    for (int dim = 2; dim <= 3 && !ierr; ++dim)
      for (int k = kmin; k <= kmax && !ierr; ++k)
        for (int pr = 0; pr < 2 && !ierr; ++pr)
          ierr = check_case(omp, dev, backend, dim, k, pr ? TS_SINGLE : TS_DOUBLE, &failures);
    /* a degree that is not compiled must be refused with a clear message */
    if (!ierr && !strcmp(backend, "cuda")) {
      const int cells[3] = {2, 2, 2};
      const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
      ts_mesh mesh = NULL;
      stokes_space s;
      ts_operator op = NULL;
      ts_vec x = NULL, y = NULL;
      int e = ts_mesh_create_box(3, lower, upper, cells, 1, &mesh);
      if (!e) e = space_create(mesh, 3, 5, 1, &s);
      if (!e) e = ts_operator_create_stokes(dev, s.u[0], s.p[0], 0.0, TS_DOUBLE, &op);
      if (!e) e = ts_vec_create(dev, space_count(&s, 0), TS_DOUBLE, &x);
      if (!e) e = ts_vec_create(dev, space_count(&s, 0), TS_DOUBLE, &y);
      if (!e) e = ts_operator_apply(op, x, y);
      printf("# k = 5 on %s: %s\n", backend, e ? ts_error_message() : "accepted (UNEXPECTED)");
      failures += e == 0;
      if (op) ts_operator_destroy(&op);
      if (x) ts_vec_destroy(&x);
      if (y) ts_vec_destroy(&y);
      space_destroy(&s);
      if (mesh) ts_mesh_destroy(&mesh);
    }
    if (smooth && !ierr) {
      printf("# smoothing step (Stokes vertex patch, SCHUR and DIRECT) against omp\n");
      for (int dim = 2; dim <= 3 && !ierr; ++dim)
        for (int k = kmin < 1 ? 1 : kmin; k <= kmax && !ierr; ++k)
          for (int pr = 0; pr < 2 && !ierr; ++pr)
            ierr = check_smoother(omp, dev, backend, dim, k, pr ? TS_SINGLE : TS_DOUBLE, &failures);
    }
    printf("# check: %d failures\n", failures);
  }
  if (timing == 1 && !ierr) { /* --time 2: the smoothing step only */
    double copy = NAN;
    if (ts_backend_measure_ceilings(dev, &copy, NULL, NULL)) copy = NAN;
    printf("# timing y = Acal x, copy ceiling %.0f GB/s; GB/s counts the minimum traffic "
           "2 n sizeof(R)\n", 1e-9 * copy);
    printf("# dim k prec   cells         DoFs   time[ms]   ns/DoF   GDoF/s     GB/s   %%copy  GFLOP/s\n");
    for (int pr = 0; pr < 2 && !ierr; ++pr)
      for (int dim = 3; dim >= 2 && !ierr; --dim)
        for (int k = kmin; k <= kmax && !ierr; ++k)
          ierr = time_case(dev, dim, k, pr ? TS_SINGLE : TS_DOUBLE, dim == 3 ? target : target2d,
                           seconds, copy);
  }
  if (smooth && timing && !ierr) {
    double copy = NAN, fp64 = NAN;
    if (ts_backend_measure_ceilings(dev, &copy, &fp64, NULL)) copy = fp64 = NAN;
    printf("# timing one smoothing step (SCHUR, 8 colors: r = b - Acal x, patch solve), copy "
           "ceiling %.0f GB/s, FP64 %.1f TFLOP/s (measured now)\n", 1e-9 * copy, 1e-12 * fp64);
    printf("# GB/s: minimum traffic 48 n sizeof(R); %%fp64: the 8 operator applications' "
           "flops only (lower bound)\n");
    printf("# dim k prec   cells         DoFs   time[ms] step ns/DoF  Acal ns/DoF   GB/s  %%copy  %%fp64\n");
    for (int pr = 0; pr < 1 + (sfloat != 0) && !ierr; ++pr)
      for (const char *at = sdegrees; *at && !ierr;) {
        const int k = atoi(at);
        ierr = time_smoother_case(dev, k, pr ? TS_SINGLE : TS_DOUBLE, starget, seconds, copy, fp64);
        at = strchr(at, ',');
        if (!at) break;
        ++at;
      }
  }
  if (omp) ts_backend_destroy(&omp);
  ts_backend_destroy(&dev);
  return ierr || failures ? 1 : 0;
}
