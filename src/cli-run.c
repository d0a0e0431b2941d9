/* cli-run.c -- `tessera run FILE.xml`: read, validate and solve a problem file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define MAX_OVERRIDES 64

typedef struct run_options {
  const char *file, *backend;
  const char *overrides[MAX_OVERRIDES];
  int n_overrides, quiet, json;
} run_options;

static void run_help(void) {
  printf("usage: tessera run FILE.xml [options]\n"
         "  --backend NAME     run on this backend instead of the file's (omp, cuda, hip)\n"
         "  --set PATH=VALUE   change an attribute before validation, e.g. --set mesh/levels=4,\n"
         "                     --set element/degree=3, --set solver/type=gmres (repeatable)\n"
         "  --quiet            print only errors\n"
         "  --json             print one JSON object with the results instead of the log\n");
}

static int parse_run_options(int argc, char **argv, run_options *o, int *done) {
  memset(o, 0, sizeof *o);
  *done = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      run_help();
      *done = 1;
      return CLI_OK;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      o->quiet = 1;
    } else if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--backend") || !strcmp(a, "--set")) {
      if (i + 1 >= argc) return cli_usage_error("run", "%s needs a value", a);
      if (!strcmp(a, "--backend")) {
        o->backend = argv[++i];
      } else {
        if (o->n_overrides == MAX_OVERRIDES)
          return cli_usage_error("run", "at most %d --set options", MAX_OVERRIDES);
        o->overrides[o->n_overrides++] = argv[++i];
      }
    } else if (a[0] == '-') {
      return cli_usage_error("run", "unknown option '%s'", a);
    } else if (o->file) {
      return cli_usage_error("run", "one problem file expected, got '%s' and '%s'", o->file, a);
    } else {
      o->file = a;
    }
  }
  if (!o->file) return cli_usage_error("run", "no problem file given");
  return CLI_OK;
}

static void print_level_json(FILE *f, const ts_level_report *r) {
  fprintf(f,
          "{\"level\": %d, \"dofs\": %lld, \"iterations\": %d, \"relative_residual\": %.6e, "
          "\"l2_error\": %.6e, \"h1_error\": %.6e, \"l2_rate\": %.4f, \"h1_rate\": %.4f, "
          "\"pressure_l2_error\": %.6e, \"pressure_l2_rate\": %.4f, "
          "\"setup_seconds\": %.6f, \"solve_seconds\": %.6f}",
          r->level, (long long)r->dofs, r->iterations, r->relative_residual, r->l2_error,
          r->h1_error, r->l2_rate, r->h1_rate, r->pressure_l2_error, r->pressure_l2_rate,
          r->setup_seconds, r->solve_seconds);
}

static void print_json(ts_problem p, ts_backend b, const ts_report *report) {
  const ts_level_report *fin = &report->levels[report->n_levels - 1];
  printf("{\"problem\": ");
  cli_json_string(stdout, ts_problem_name(p));
  printf(", \"backend\": ");
  cli_json_string(stdout, ts_backend_name(b));
  printf(", \"threads\": %d, \"dofs\": %lld, \"iterations\": %d, \"relative_residual\": %.6e, "
         "\"l2_error\": %.6e, \"h1_error\": %.6e, \"setup_seconds\": %.6f, "
         "\"solve_seconds\": %.6f, \"dofs_per_second\": %.6e, \"levels\": [",
         report->threads, (long long)fin->dofs, fin->iterations, fin->relative_residual,
         fin->l2_error, fin->h1_error, fin->setup_seconds, fin->solve_seconds,
         fin->solve_seconds > 0 ? (double)fin->dofs / fin->solve_seconds : 0.0);
  for (int i = 0; i < report->n_levels; ++i) {
    if (i) printf(", ");
    print_level_json(stdout, &report->levels[i]);
  }
  printf("]");
  /* per-level timings of the finest solve */
  if (report->mg_levels) {
    printf(", \"multigrid\": {\"iterations\": %d, \"levels\": [", fin->iterations);
    for (int i = 0; i < report->mg_levels; ++i) {
      const ts_mg_level_timing *t = &report->mg_timing[i];
      printf("%s{\"level\": %d, \"dofs\": %lld, \"smooth_seconds\": %.6f, "
             "\"residual_seconds\": %.6f, \"transfer_seconds\": %.6f, \"coarse_seconds\": %.6f, "
             "\"smoothing_steps\": %ld}", i ? ", " : "", t->level, (long long)t->dofs,
             t->smooth_seconds, t->residual_seconds, t->transfer_seconds, t->coarse_seconds,
             t->smoothing_steps);
    }
    printf("]}");
  }
  printf("}\n");
}

static int print_json_error(int code, int exit_code) {
  printf("{\"error\": ");
  cli_json_string(stdout, ts_error_name(code));
  printf(", \"message\": ");
  cli_json_string(stdout, ts_error_message());
  printf("}\n");
  return exit_code;
}

int cli_run(int argc, char **argv) {
  run_options o;
  int done, status = parse_run_options(argc, argv, &o, &done);
  if (status || done) return status;
  ts_problem p = NULL;
  ts_backend b = NULL;
  ts_report *report = calloc(1, sizeof *report);
  int ierr = report ? 0 : TS_ERR_MEMORY;
  if (!ierr) ierr = ts_problem_read_xml(o.file, o.n_overrides, o.overrides, &p);
  if (!ierr) ierr = ts_backend_open(o.backend ? o.backend : ts_problem_backend(p), &b);
  if (!ierr) ierr = ts_problem_solve(p, b, o.quiet || o.json ? NULL : stdout, report);
  if (ierr) {
    status = cli_fail(ierr);
    if (o.json) print_json_error(ierr, status);
  } else if (o.json) {
    print_json(p, b, report);
  }
  free(report);
  ts_backend_destroy(&b);
  ts_problem_destroy(&p);
  return status;
}
