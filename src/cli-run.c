/* cli-run.c -- `tessera run FILE.xml`: read, validate and solve a problem file. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void run_help(void) {
  printf("usage: tessera run FILE.xml [options]\n"
         "  --backend NAME     run on this backend instead of the file's (omp, cuda, hip)\n"
         "  --set PATH=VALUE   change an attribute before validation, e.g. --set mesh/levels=4,\n"
         "                     --set element/degree=3, --set solver/type=gmres (repeatable)\n"
         "  --threads N        host threads, 1..%d (default OMP_NUM_THREADS, else one per\n"
         "                     processor; small vectors and operators run on fewer)\n"
         "  --max-output-size SIZE  the largest .vtu file to write: bytes, or with a suffix\n"
         "                     K, M, G, T (powers of 1024), e.g. 500M, 2G; or unlimited\n"
         "                     (default 1G).  Checked, with the output directory, before\n"
         "                     the solve\n"
         "  --procs PxQ[xR]    the processes per direction of a distributed run (their product\n"
         "                     the number of processes; default: MPI's choice).  Under mpirun\n"
         "                     -np N with N > 1, or with --procs, the problem is solved over\n"
         "                     the processes (doc/parallel.md): Poisson on a box, or your own\n"
         "                     data without Neumann faces on a box or a mapped mesh (map=\n"
         "                     kershaw, sine, shell), Q_k, double precision, CG, GMRES, FGMRES,\n"
         "                     MINRES or FMG, preconditioned by none, jacobi, chebyshev or mg\n"
         "                     with smoother vertex-patch (Poisson on a box) or chebyshev\n"
         "                     (or mg smoother=\"jacobi\"); Stokes RT_k (GMRES or FGMRES, mg\n"
         "                     or none, double precision; the finest level needs two cells\n"
         "                     per process and split direction); the coarse levels too small\n"
         "                     to split are gathered on every process; other\n"
         "                     problems are refused.  Rank 0 reads the file and prints;\n"
         "                     <output vtu=\"NAME.vtu\"> writes NAME-RANK.vtu per process and\n"
         "                     NAME.pvtu\n"
         "  --verbose          after the summary, each level's setup time by phase and, with\n"
         "                     multigrid, the finest solve's time per multigrid level\n"
         "  --quiet            print only errors\n"
         "  --json             print one JSON object with the results instead of the log\n"
         "  --json-file FILE   write that JSON object to FILE as well (the log still printed;\n"
         "                     FILE made before the solve, an error if it cannot be)\n"
         "The .vtu output path of the file is relative to the current directory; the log\n"
         "names the file written with its absolute path.\n"
         "exit code 3: a level stopped short of rtol (the iteration limit, or a tolerance\n"
         "below the floor rounding sets for the residual: the message names the attainable\n"
         "residual); its results are still printed, marked '*' (--json: \"converged\": false)\n",
         ts_threads_max());
}

/* --max-output-size: "unlimited", or a number of bytes with an optional suffix K, M, G or T
 * (powers of 1024, either case): 500M, 2G, 1.5G.  0 on success. */
static int parse_size(const char *text, uint64_t *bytes) {
  static const char suffixes[] = "KMGT";
  if (!strcmp(text, "unlimited")) {
    *bytes = TS_OUTPUT_SIZE_UNLIMITED;
    return 0;
  }
  char *end;
  errno = 0;
  double value = strtod(text, &end);
  if (end == text || errno || !isdigit((unsigned char)*text)) return -1;
  if (*end) {
    const char *suffix = strchr(suffixes, toupper((unsigned char)*end));
    if (!suffix) return -1;
    value *= pow(1024.0, (double)(suffix - suffixes + 1));
    ++end;
  }
  if (*end || !(value >= 1.0 && value < 0x1p64)) return -1;
  *bytes = (uint64_t)value;
  return 0;
}

/* --procs PxQ[xR]: 2 or 3 positive integers separated by 'x' */
static int parse_procs(const char *text, cli_run_options *o) {
  const char *c = text;
  o->n_procs = 0;
  while (o->n_procs < 3 && isdigit((unsigned char)*c)) {
    char *end;
    errno = 0;
    const long n = strtol(c, &end, 10);
    if (errno || n < 1 || n > 1 << 20) break;
    o->procs[o->n_procs++] = (int)n;
    c = end;
    if (*c != 'x' || o->n_procs == 3) break;
    ++c;
  }
  if (*c || o->n_procs < 2)
    return cli_usage_error("run", "--procs %s: give the processes per direction, PxQ (2D) or "
                           "PxQxR (3D), each at least 1, e.g. 2x2", text);
  return CLI_OK;
}

/* The option at argv[i] that takes a value (argv[i + 1]); CLI_OK or a usage error. */
static int parse_value_option(const char *a, const char *v, cli_run_options *o) {
  if (!strcmp(a, "--backend")) {
    o->backend = v;
  } else if (!strcmp(a, "--json-file")) {
    o->json_file = v;
  } else if (!strcmp(a, "--set")) {
    o->overrides[o->n_overrides++] = v;
  } else if (!strcmp(a, "--threads")) {
    return cli_threads_option("run", v);
  } else if (!strcmp(a, "--procs")) {
    return parse_procs(v, o);
  } else if (parse_size(v, &o->max_output_size)) {
    return cli_usage_error("run", "--max-output-size %s: give a number of bytes with an optional "
                           "suffix K, M, G or T (powers of 1024), e.g. 500M or 2G, or 'unlimited'",
                           v);
  }
  return CLI_OK;
}

static int parse_run_options(int argc, char **argv, cli_run_options *o, int *done) {
  memset(o, 0, sizeof *o);
  *done = 0;
  o->overrides = malloc((size_t)argc * sizeof *o->overrides);
  if (!o->overrides) {
    fprintf(stderr, "tessera run: out of memory for %d options\n", argc);
    return CLI_ERROR;
  }
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
    } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
      o->verbose = 1;
    } else if (!strcmp(a, "--backend") || !strcmp(a, "--set") || !strcmp(a, "--threads") ||
               !strcmp(a, "--max-output-size") || !strcmp(a, "--procs") ||
               !strcmp(a, "--json-file")) {
      if (i + 1 >= argc) return cli_usage_error("run", "%s needs a value", a);
      const int status = parse_value_option(a, argv[++i], o);
      if (status) return status;
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

/* ", \"key\": value" with value printed by fmt, or null where it does not exist (NaN: no
 * exact solution, the first level's rates) or is not finite. */
static void json_number(FILE *f, const char *key, const char *fmt, double value) {
  fprintf(f, ", \"%s\": ", key);
  if (isfinite(value)) fprintf(f, fmt, value);
  else fputs("null", f);
}

/* The errors and rates of one level: Poisson L2 and H1; Stokes velocity L2, velocity H1
 * where measured (Taylor-Hood) and pressure L2. */
static void print_errors_json(FILE *f, const ts_level_report *r, int stokes, int rates) {
  const int h1 = !stokes || !isnan(r->h1_error);
  json_number(f, "l2_error", "%.16e", r->l2_error); /* all digits: errors to round-off compare */
  if (h1) json_number(f, "h1_error", "%.16e", r->h1_error);
  if (stokes) json_number(f, "pressure_l2_error", "%.16e", r->pressure_l2_error);
  if (!rates) return;
  json_number(f, "l2_rate", "%.4f", r->l2_rate);
  if (h1) json_number(f, "h1_rate", "%.4f", r->h1_rate);
  if (stokes) json_number(f, "pressure_l2_rate", "%.4f", r->pressure_l2_rate);
}

static void print_level_json(FILE *f, const ts_level_report *r, int stokes) {
  fprintf(f, "{\"level\": %d, \"dofs\": %lld, \"iterations\": %d", r->level, (long long)r->dofs,
          r->iterations);
  json_number(f, "relative_residual", "%.6e", r->relative_residual);
  print_errors_json(f, r, stokes, 1);
  json_number(f, "setup_seconds", "%.6f", r->setup_seconds);
  fprintf(f, ", \"setup_phases\": {");
  for (int ph = 0; ph < TS_SETUP_PHASES; ++ph)
    fprintf(f, "%s\"%s\": %.6f", ph ? ", " : "", ts_setup_phase_name((ts_setup_phase)ph),
            r->setup_phase_seconds[ph]);
  fprintf(f, "}");
  json_number(f, "solve_seconds", "%.6f", r->solve_seconds);
  fprintf(f, ", \"converged\": %s}", r->converged ? "true" : "false");
}

/* --verbose: each level's setup seconds by phase, and what the phases leave (other). */
static void print_setup_phases(const ts_report *report) {
  printf("\n setup seconds by phase\n level");
  for (int ph = 0; ph < TS_SETUP_PHASES; ++ph)
    printf(" %10s", ts_setup_phase_name((ts_setup_phase)ph));
  printf(" %10s %10s\n", "other", "total");
  for (int i = 0; i < report->n_levels; ++i) {
    const ts_level_report *r = &report->levels[i];
    double phases = 0.0;
    printf(" %5d", r->level);
    for (int ph = 0; ph < TS_SETUP_PHASES; ++ph) {
      printf(" %10.3f", r->setup_phase_seconds[ph]);
      phases += r->setup_phase_seconds[ph];
    }
    printf(" %10.3f %10.3f\n", r->setup_seconds - phases, r->setup_seconds);
  }
}

/* --verbose with multigrid: the finest solve's seconds per level of the hierarchy (degree
 * levels below the coarse mesh level included) */
static void print_mg_levels(const ts_report *report) {
  if (!report->mg_levels) return;
  printf("\n multigrid levels of the finest solve (seconds)\n level degree        dofs     smooth"
         "   residual   transfer     coarse  steps\n");
  for (int i = report->mg_levels - 1; i >= 0; --i) {
    const ts_mg_level_timing *t = &report->mg_timing[i];
    printf(" %5d %6d %11lld %10.3f %10.3f %10.3f %10.3f %6ld\n", t->level, t->degree,
           (long long)t->dofs, t->smooth_seconds, t->residual_seconds, t->transfer_seconds,
           t->coarse_seconds, t->smoothing_steps);
  }
}

/* The results; a solve that stopped short of rtol (code TS_ERR_NOT_CONVERGED) keeps them,
 * with "converged": false and the error's name and message. */
void cli_run_print_json_open(FILE *f, ts_problem p, ts_backend b, const ts_report *report,
                             int code) {
  const ts_level_report *fin = &report->levels[report->n_levels - 1];
  fprintf(f, "{\"problem\": ");
  cli_json_string(f, ts_problem_name(p));
  fprintf(f, ", \"backend\": ");
  cli_json_string(f, ts_backend_name(b));
  fprintf(f, ", \"threads\": %d, \"omp_wait_policy\": ", report->threads);
  if (getenv("OMP_WAIT_POLICY")) cli_json_string(f, getenv("OMP_WAIT_POLICY"));
  else fprintf(f, "null");
  fprintf(f, ", \"dofs\": %lld, \"iterations\": %d", (long long)fin->dofs, fin->iterations);
  json_number(f, "relative_residual", "%.6e", fin->relative_residual);
  print_errors_json(f, fin, report->stokes, 0);
  json_number(f, "setup_seconds", "%.6f", fin->setup_seconds);
  json_number(f, "solve_seconds", "%.6f", fin->solve_seconds);
  json_number(f, "dofs_per_second", "%.6e", (double)fin->dofs / fin->solve_seconds);
  fprintf(f, ", \"levels\": [");
  for (int i = 0; i < report->n_levels; ++i) {
    if (i) fprintf(f, ", ");
    print_level_json(f, &report->levels[i], report->stokes);
  }
  fprintf(f, "], \"converged\": %s", code ? "false" : "true");
  if (code) {
    fprintf(f, ", \"error\": ");
    cli_json_string(f, ts_error_name(code));
    fprintf(f, ", \"message\": ");
    cli_json_string(f, ts_error_message());
  }
  /* per-level timings of the finest solve */
  if (report->mg_levels) {
    fprintf(f, ", \"multigrid\": {\"iterations\": %d, \"levels\": [", fin->iterations);
    for (int i = 0; i < report->mg_levels; ++i) {
      const ts_mg_level_timing *t = &report->mg_timing[i];
      fprintf(f, "%s{\"level\": %d, \"degree\": %d, \"dofs\": %lld, \"smooth_seconds\": %.6f, "
             "\"residual_seconds\": %.6f, \"transfer_seconds\": %.6f, \"coarse_seconds\": %.6f, "
             "\"smoothing_steps\": %ld}", i ? ", " : "", t->level, t->degree, (long long)t->dofs,
             t->smooth_seconds, t->residual_seconds, t->transfer_seconds, t->coarse_seconds,
             t->smoothing_steps);
    }
    fprintf(f, "]}");
  }
}

int cli_run_print_json_error(FILE *f, int code, int exit_code) {
  fprintf(f, "{\"error\": ");
  cli_json_string(f, ts_error_name(code));
  fprintf(f, ", \"message\": ");
  cli_json_string(f, ts_error_message());
  fprintf(f, "}\n");
  return exit_code;
}

int cli_run_json_streams(const cli_run_options *o, FILE **streams) {
  int n = 0;
  if (o->json) streams[n++] = stdout;
  if (o->json_out) streams[n++] = o->json_out;
  return n;
}

void cli_run_print_verbose(const ts_report *report) {
  print_setup_phases(report);
  print_mg_levels(report);
}

/* The problem in this process alone. */
static int run_one(const cli_run_options *o) {
  int status = CLI_OK;
  ts_problem p = NULL;
  ts_backend b = NULL;
  ts_report *report = calloc(1, sizeof *report);
  int ierr = report ? 0 : TS_ERR_MEMORY;
  if (!ierr && o->max_output_size) ierr = ts_set_max_output_size(o->max_output_size);
  if (!ierr) ierr = ts_problem_read_xml(o->file, o->n_overrides, o->overrides, &p);
  if (!ierr) ierr = ts_backend_open(o->backend ? o->backend : ts_problem_backend(p), &b);
  if (!ierr) ierr = ts_problem_solve(p, b, o->quiet || o->json ? NULL : stdout, report);
  const int kept = ierr == TS_ERR_NOT_CONVERGED && report && report->n_levels > 0;
  if (ierr) status = cli_fail(ierr);
  if (o->verbose && !o->quiet && !o->json && (!ierr || kept)) cli_run_print_verbose(report);
  FILE *json[2];
  for (int i = 0, n = cli_run_json_streams(o, json); i < n; ++i) {
    if (!ierr || kept) {
      cli_run_print_json_open(json[i], p, b, report, ierr);
      fprintf(json[i], "}\n");
    } else {
      cli_run_print_json_error(json[i], ierr, status);
    }
  }
  free(report);
  ts_backend_destroy(&b);
  ts_problem_destroy(&p);
  return status;
}

/* --json-file: the file made now (rank 0's, under mpirun), before any work, so that a path
 * that cannot be written stops the run at once */
static int open_json_file(cli_run_options *o, const cli_mpi *m) {
  if (!o->json_file || m->rank) return CLI_OK;
  o->json_out = fopen(o->json_file, "w");
  if (o->json_out) return CLI_OK;
  fprintf(stderr, "tessera: error: --json-file %s: cannot be written: %s\n", o->json_file,
          strerror(errno));
  return CLI_ERROR;
}

int cli_run(int argc, char **argv) {
  cli_run_options o;
  cli_mpi mpi;
  int done, status = parse_run_options(argc, argv, &o, &done);
  if (!status && !done) status = cli_mpi_start("run", o.n_procs > 0, "--procs", &mpi);
  if (!status && !done) {
    status = open_json_file(&o, &mpi);
    if (mpi.size > 1) status = (int)cli_mpi_max(&mpi, status); /* rank 0's, every process's */
    if (!status) status = mpi.size > 1 || o.n_procs ? cli_run_parallel(&o, &mpi) : run_one(&o);
    if (o.json_out && fclose(o.json_out) && !status) {
      fprintf(stderr, "tessera: error: --json-file %s: %s\n", o.json_file, strerror(errno));
      status = CLI_ERROR;
    }
    cli_mpi_finish(&mpi);
  }
  free(o.overrides);
  return status;
}
