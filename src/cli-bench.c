/* cli-bench.c -- `tessera bench`: throughput of the matrix-free Laplacian on a backend,
 * per degree, at a chosen problem size: GDoF/s and GFLOP/s from counted operations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

typedef struct bench_options {
  const char *backend;
  int dim, kmin, kmax, json;
  int ceilings; /* measure the ceilings and print fractions of them */
  double dofs, min_seconds;
  ts_precision precision;
  int mg;                /* --mg and its options */
  ts_mg_options mg_options;
} bench_options;

static void bench_help(void) {
  printf("usage: tessera bench [options]\n"
         "  --backend NAME         backend to measure (default omp)\n"
         "  --dim 2|3              dimension (default 3)\n"
         "  --degrees K | K1-K2    polynomial degrees (default 1-8)\n"
         "  --dofs N               approximate DoFs per problem (default 4e6)\n"
         "  --precision double|single (default double)\n"
         "  --seconds S            minimum measuring time per degree (default 1)\n"
         "  --json                 one JSON object per degree\n"
         "  --no-ceilings          do not measure the backend's ceilings (copy bandwidth,\n"
         "                         FP64/FP32 FMA peak) nor print the fractions of them\n"
         "  --mg                   the multigrid solver instead (f = 1, unit box): one smoothing\n"
         "                         step, one V-cycle, GMRES + V-cycle to 1e-6 and full\n"
         "                         multigrid to 1e-9: ns/DoF, counted GFLOP/s, fractions\n"
         "  --smoother vertex-patch|chebyshev  (--mg; default vertex-patch)\n"
         "  --variant separate|fused           (--mg; default fused)\n"
         "  --mg-precision double|mixed        (--mg; default double)\n"
         "The fraction of the copy bandwidth counts the least traffic of y = A x: x read\n"
         "and y written once (2 scalars per DoF).\n");
}

static int parse_degrees(const char *s, int *kmin, int *kmax) {
  char *end;
  long a = strtol(s, &end, 10), b = a;
  if (*end == '-') b = strtol(end + 1, &end, 10);
  if (*end || a < 1 || b > 10 || a > b) return 1;
  *kmin = (int)a;
  *kmax = (int)b;
  return 0;
}

static int parse_bench_options(int argc, char **argv, bench_options *o, int *done) {
  *o = (bench_options){.backend = "omp", .dim = 3, .kmin = 1, .kmax = 8, .json = 0, .ceilings = 1,
                       .dofs = 4e6, .min_seconds = 1.0, .precision = TS_DOUBLE};
  ts_mg_options_default(&o->mg_options);
  *done = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      bench_help();
      *done = 1;
      return CLI_OK;
    }
    if (!strcmp(a, "--json")) {
      o->json = 1;
      continue;
    }
    if (!strcmp(a, "--no-ceilings")) {
      o->ceilings = 0;
      continue;
    }
    if (!strcmp(a, "--mg")) {
      o->mg = 1;
      continue;
    }
    if (!v) return cli_usage_error("bench", "%s needs a value", a);
    ++i;
    if (!strcmp(a, "--backend")) {
      o->backend = v;
    } else if (!strcmp(a, "--dim")) {
      o->dim = (int)strtol(v, &end, 10);
      if (*end || (o->dim != 2 && o->dim != 3))
        return cli_usage_error("bench", "--dim %s: allowed 2 or 3", v);
    } else if (!strcmp(a, "--degrees")) {
      if (parse_degrees(v, &o->kmin, &o->kmax))
        return cli_usage_error("bench", "--degrees %s: give K or K1-K2 with 1 <= K1 <= K2 <= 10", v);
    } else if (!strcmp(a, "--dofs")) {
      o->dofs = strtod(v, &end);
      if (*end || !(o->dofs >= 100 && o->dofs <= 1e11))
        return cli_usage_error("bench", "--dofs %s: allowed 100 .. 1e11", v);
    } else if (!strcmp(a, "--seconds")) {
      o->min_seconds = strtod(v, &end);
      if (*end || !(o->min_seconds > 0 && o->min_seconds <= 600))
        return cli_usage_error("bench", "--seconds %s: allowed (0, 600]", v);
    } else if (!strcmp(a, "--precision")) {
      if (!strcmp(v, "double")) o->precision = TS_DOUBLE;
      else if (!strcmp(v, "single")) o->precision = TS_SINGLE;
      else return cli_usage_error("bench", "--precision %s: allowed double or single", v);
    } else if (!strcmp(a, "--smoother")) {
      if (ts_mg_smoother_from_name(v, &o->mg_options.smoother))
        return cli_usage_error("bench", "--smoother %s: allowed vertex-patch or chebyshev", v);
    } else if (!strcmp(a, "--variant")) {
      if (!strcmp(v, "separate")) o->mg_options.variant = TS_PATCH_SEPARATE;
      else if (!strcmp(v, "fused")) o->mg_options.variant = TS_PATCH_FUSED;
      else return cli_usage_error("bench", "--variant %s: allowed separate or fused", v);
    } else if (!strcmp(a, "--mg-precision")) {
      if (!strcmp(v, "double")) o->mg_options.precision = TS_DOUBLE;
      else if (!strcmp(v, "mixed")) o->mg_options.precision = TS_SINGLE;
      else return cli_usage_error("bench", "--mg-precision %s: allowed double or mixed", v);
    } else {
      return cli_usage_error("bench", "unknown option '%s'", a);
    }
  }
  return CLI_OK;
}

typedef struct bench_result {
  int64_t dofs;
  double seconds, flops;
  int applies;
} bench_result;

/* Time y = A x on a box with about o->dofs DoFs for degree k. */
static int bench_degree(const bench_options *o, ts_backend b, int k, bench_result *r) {
  const double per_dir = pow(o->dofs, 1.0 / o->dim);
  int coarse[3];
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) coarse[d] = (int)fmax(1.0, round((per_dir - 1.0) / k));
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  ts_vec x = NULL, y = NULL;
  ts_vec one = NULL; /* a dot product of one entry: waits for the device (asynchronous backends) */
  double dummy;
  r->applies = 0;
  int ierr = ts_mesh_create_box(o->dim, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_q(o->dim, k, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  /* estimate the device memory (two vectors) before allocating */
  if (!ierr) {
    size_t avail = 0;
    const double need = 2.0 * (double)ts_dofs_count(dofs) * (double)ts_precision_size(o->precision);
    ierr = ts_backend_memory_available(b, &avail);
    if (!ierr && need > 0.95 * (double)avail) {
      fprintf(stderr,
              "tessera bench: degree %d with %lld DoFs needs %.3g GiB (x and y, %s) but backend "
              "'%s' has %.3g GiB available; lower --dofs\n",
              k, (long long)ts_dofs_count(dofs), need / 1073741824.0,
              ts_precision_name(o->precision), o->backend, (double)avail / 1073741824.0);
      ierr = TS_ERR_MEMORY;
      r->applies = -1; /* reported here already */
    }
  }
  if (!ierr) ierr = ts_operator_create_laplace(b, dofs, o->precision, &A);
  if (!ierr) ierr = ts_vec_create(b, ts_dofs_count(dofs), o->precision, &x);
  if (!ierr) ierr = ts_vec_create(b, ts_dofs_count(dofs), o->precision, &y);
  if (!ierr) ierr = ts_vec_set_random(x, 42);
  if (!ierr) ierr = ts_vec_create(b, 1, o->precision, &one);
  for (int w = 0; !ierr && w < 2; ++w) ierr = ts_operator_apply(A, x, y); /* warm up */
  if (!ierr) ierr = ts_vec_dot(one, one, &dummy);
  const double t0 = ts_wtime();
  while (!ierr && (ts_wtime() - t0 < o->min_seconds || r->applies < 5)) {
    ierr = ts_operator_apply(A, x, y);
    r->applies++;
  }
  if (!ierr) ierr = ts_vec_dot(one, one, &dummy);
  r->seconds = (ts_wtime() - t0) / (r->applies ? r->applies : 1);
  if (!ierr) {
    r->dofs = ts_dofs_count(dofs);
    r->flops = ts_operator_flops(A);
  }
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&one);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* GDoF/s, %copy and %peak of one timed piece of the multigrid benchmark. */
typedef struct mg_rate {
  double ns_per_dof, gdofs, gflops, fcopy, fpeak;
} mg_rate;

static mg_rate mg_rate_of(int64_t dofs, double seconds, double flops, double bytes, double bw,
                          double peak) {
  mg_rate q;
  q.ns_per_dof = 1e9 * seconds / (double)dofs;
  q.gdofs = 1e-9 * (double)dofs / seconds;
  q.gflops = 1e-9 * flops / seconds;
  q.fcopy = bw > 0 ? 100.0 * bytes / seconds / bw : 0;
  q.fpeak = peak > 0 ? 100.0 * flops / seconds / peak : 0;
  return q;
}

/* tessera bench --mg */
static int bench_mg(const bench_options *o, ts_backend b) {
  const ts_mg_options *m = &o->mg_options;
  const char *smoother = m->smoother == TS_MG_SMOOTHER_CHEBYSHEV ? "chebyshev"
                         : m->variant == TS_PATCH_FUSED           ? "vertex-patch-fused"
                                                                  : "vertex-patch-separate";
  const char *precision = m->precision == TS_SINGLE ? "mixed" : "double";
  double bw = 0, p64 = 0, p32 = 0;
  if (o->ceilings && ts_backend_measure_ceilings(b, &bw, &p64, &p32)) {
    fprintf(stderr, "tessera bench: %s (use --no-ceilings to skip)\n", ts_error_message());
    return CLI_ERROR;
  }
  const double peak = m->precision == TS_SINGLE ? p32 : p64;
  if (!o->json) {
    printf("# tessera %s bench --mg: %dD, f = 1, smoother %s, %s precision V-cycle, backend %s (%s)\n",
           ts_version(), o->dim, smoother, precision, o->backend, ts_backend_description(b));
    if (o->ceilings)
      printf("# ceilings measured now: copy %.1f GB/s, FP64 %.1f GFLOP/s, FP32 %.1f GFLOP/s; "
             "%%copy = counted bytes/s / copy, %%peak = counted flops/s / %s peak\n",
             1e-9 * bw, 1e-9 * p64, 1e-9 * p32, m->precision == TS_SINGLE ? "FP32" : "FP64");
    printf("# smoothing step and V-cycle: ns/DoF, GDoF/s, GFLOP/s, %%copy, %%peak; solves: "
           "iterations and ns/DoF (GMRES(%d) + V-cycle to 1e-6, FMG to 1e-9)\n", CLI_BENCH_GMRES_RESTART);
    printf("# k  L        DoFs | smooth  GDoF/s GFLOP/s %%copy %%peak | V-cycle GDoF/s GFLOP/s "
           "%%copy %%peak | GMRES its ns/DoF | FMG its ns/DoF\n");
  }
  for (int k = o->kmin; k <= o->kmax; ++k) {
    cli_bench_mg_result r = {0};
    int ierr = cli_bench_mg_degree(b, o->dim, k, o->dofs, o->min_seconds, m, &r);
    if (ierr) return r.reported ? CLI_ERROR : cli_fail(ierr);
    const mg_rate sm = mg_rate_of(r.dofs, r.smooth_seconds, r.smooth_flops, r.smooth_bytes, bw, peak);
    const mg_rate vc = mg_rate_of(r.dofs, r.vcycle_seconds, r.vcycle_flops, r.vcycle_bytes, bw, peak);
    const double gmres_ns = 1e9 * r.gmres_seconds / (double)r.dofs;
    const double fmg_ns = 1e9 * r.solve_seconds / (double)r.dofs;
    if (o->json)
      printf("{\"kernel\": \"multigrid\", \"backend\": \"%s\", \"dim\": %d, \"degree\": %d, "
             "\"smoother\": \"%s\", \"precision\": \"%s\", \"level\": %d, \"dofs\": %lld, "
             "\"smooth_ns_per_dof\": %.4f, \"smooth_gflops_per_second\": %.2f, "
             "\"smooth_percent_of_copy\": %.2f, \"smooth_percent_of_peak\": %.2f, "
             "\"vcycle_ns_per_dof\": %.4f, \"vcycle_gflops_per_second\": %.2f, "
             "\"vcycle_percent_of_copy\": %.2f, \"vcycle_percent_of_peak\": %.2f, "
             "\"gmres_iterations\": %d, \"gmres_ns_per_dof\": %.4f, "
             "\"fmg_iterations\": %d, \"solve_ns_per_dof\": %.4f, "
             "\"copy_gbytes_per_second\": %.2f, \"peak_gflops_per_second\": %.2f}\n",
             o->backend, o->dim, k, smoother, precision, r.level, (long long)r.dofs,
             sm.ns_per_dof, sm.gflops, sm.fcopy, sm.fpeak, vc.ns_per_dof, vc.gflops, vc.fcopy,
             vc.fpeak, r.gmres_iterations, gmres_ns, r.iterations, fmg_ns, 1e-9 * bw, 1e-9 * peak);
    else
      printf("  %d %2d %11lld | %6.3f %7.3f %7.1f %5.1f %5.1f | %7.3f %6.3f %7.1f %5.1f %5.1f | "
             "%9d %6.3f | %7d %6.3f\n",
             k, r.level, (long long)r.dofs, sm.ns_per_dof, sm.gdofs, sm.gflops, sm.fcopy,
             sm.fpeak, vc.ns_per_dof, vc.gdofs, vc.gflops, vc.fcopy, vc.fpeak,
             r.gmres_iterations, gmres_ns, r.iterations, fmg_ns);
    fflush(stdout);
  }
  return CLI_OK;
}

int cli_bench(int argc, char **argv) {
  bench_options o;
  int done, status = parse_bench_options(argc, argv, &o, &done);
  if (status || done) return status;
  if (o.mg) {
    ts_backend mb = NULL;
    if (ts_backend_open(o.backend, &mb)) return cli_fail(ts_error_code());
    status = bench_mg(&o, mb);
    ts_backend_destroy(&mb);
    return status;
  }
  ts_backend b = NULL;
  int ierr = ts_backend_open(o.backend, &b);
  if (ierr) return cli_fail(ierr);
  /* ceilings measured in this run */
  double bw = 0, p64 = 0, p32 = 0;
  if (o.ceilings) {
    ierr = ts_backend_measure_ceilings(b, &bw, &p64, &p32);
    if (ierr) {
      fprintf(stderr, "tessera bench: %s (use --no-ceilings to skip)\n", ts_error_message());
      ts_backend_destroy(&b);
      return CLI_ERROR;
    }
  }
  const double peak = o.precision == TS_SINGLE ? p32 : p64;
  if (!o.json) {
    printf("# tessera %s bench: Laplacian y = A x, %dD, %s precision, backend %s (%s)\n",
           ts_version(), o.dim, ts_precision_name(o.precision), o.backend, ts_backend_description(b));
    if (o.ceilings)
      printf("# ceilings measured now: copy %.1f GB/s, FP64 %.1f GFLOP/s, FP32 %.1f GFLOP/s\n"
             "# %%copy: (2 scalars/DoF x GDoF/s) / copy bandwidth; %%peak: GFLOP/s / %s peak\n",
             1e-9 * bw, 1e-9 * p64, 1e-9 * p32, o.precision == TS_SINGLE ? "FP32" : "FP64");
    printf("# degree        DoFs   applies   s/apply    GDoF/s   GFLOP/s%s\n",
           o.ceilings ? "   %copy   %peak" : "");
  }
  for (int k = o.kmin; k <= o.kmax && !ierr; ++k) {
    bench_result r = {0, 0.0, 0.0, 0};
    ierr = bench_degree(&o, b, k, &r);
    if (ierr && r.applies < 0) {
      ts_backend_destroy(&b);
      return CLI_ERROR;
    }
    if (ierr) break;
    const double gdofs = 1e-9 * (double)r.dofs / r.seconds, gflops = 1e-9 * r.flops / r.seconds;
    const double fcopy = bw > 0 ? 100.0 * gdofs * 1e9 * 2.0 * (double)ts_precision_size(o.precision) / bw : 0;
    const double fpeak = peak > 0 ? 100.0 * gflops * 1e9 / peak : 0;
    if (o.json)
      printf("{\"kernel\": \"laplace\", \"backend\": \"%s\", \"dim\": %d, \"degree\": %d, "
             "\"precision\": \"%s\", \"dofs\": %lld, \"seconds_per_apply\": %.6e, "
             "\"gdofs_per_second\": %.4f, \"gflops_per_second\": %.3f, "
             "\"copy_gbytes_per_second\": %.2f, \"peak_gflops_per_second\": %.2f, "
             "\"percent_of_copy\": %.2f, \"percent_of_peak\": %.2f}\n",
             o.backend, o.dim, k, ts_precision_name(o.precision), (long long)r.dofs, r.seconds,
             gdofs, gflops, 1e-9 * bw, 1e-9 * peak, fcopy, fpeak);
    else if (o.ceilings)
      printf("  %6d %11lld %9d %9.3e %9.4f %9.2f %7.1f %7.1f\n", k, (long long)r.dofs, r.applies,
             r.seconds, gdofs, gflops, fcopy, fpeak);
    else
      printf("  %6d %11lld %9d %9.3e %9.4f %9.2f\n", k, (long long)r.dofs, r.applies, r.seconds,
             gdofs, gflops);
    fflush(stdout);
  }
  if (ierr) status = cli_fail(ierr);
  ts_backend_destroy(&b);
  return status;
}
