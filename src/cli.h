/* cli.h -- the subcommands of the tessera command line. */
#ifndef TESSERA_CLI_H
#define TESSERA_CLI_H

#include "tessera.h"

/* Exit codes of the tessera command. */
enum {
  CLI_OK = 0,
  CLI_ERROR = 1,          /* bad input, missing backend, I/O, ... */
  CLI_USAGE = 2,          /* wrong command-line syntax */
  CLI_NOT_CONVERGED = 3   /* the solver stopped without reaching its tolerance */
};

int cli_run(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_check(int argc, char **argv);

/** Print "tessera: error: <ts_error_message()>" and return the exit code for code. */
int cli_fail(int code);
/** Print a usage error naming the argument and return CLI_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** --threads VALUE of a command: an integer 1..ts_threads_max(), set with ts_set_threads;
 *  CLI_OK, or a usage error naming the value and the allowed range. */
int cli_threads_option(const char *command, const char *value);
/** Write s as a JSON string literal (with quotes and escapes). */
void cli_json_string(FILE *f, const char *s);

/* The problems `tessera bench` measures. */
typedef enum { CLI_PROBLEM_POISSON = 0, CLI_PROBLEM_STOKES = 1 } cli_problem;

/* tessera bench --mg (cli-bench-mg.c) */
#define CLI_BENCH_GMRES_RESTART 10        /* Poisson: GMRES(10) + V-cycle to 1e-6 */
#define CLI_BENCH_STOKES_GMRES_RESTART 30 /* Stokes: GMRES(30) + V-cycle to 1e-8, as in
                                             examples/stokes-rt-*.xml (paper 000, Table 1) */
typedef struct cli_bench_mg_config {
  cli_problem problem;
  int dim;
  double target_dofs, min_seconds;
  double rtol;                    /* of the GMRES solve */
  int restart;                    /* of the GMRES solve */
  ts_mg_options options;          /* smoother, precision; Stokes: local solver, penalty */
  int verbose;                    /* progress of each phase on stderr */
} cli_bench_mg_config;
typedef struct cli_bench_mg_result {
  int level;
  int iterations;                 /* FMG: V-cycles after the nested iteration (Poisson) */
  int gmres_iterations;           /* GMRES + V-cycle to config rtol */
  int64_t dofs;                   /* Stokes: velocity + pressure */
  double smooth_seconds, vcycle_seconds, gmres_seconds, solve_seconds; /* solve: FMG */
  double smooth_flops, smooth_bytes, vcycle_flops, vcycle_bytes;       /* counted */
  int reported;                   /* an error was printed already */
} cli_bench_mg_result;
/** Time one smoothing step, one V-cycle, GMRES + V-cycle to config->rtol and (Poisson) FMG
 *  to 1e-9 for degree k; counted operations and traffic in r (cli-bench-mg.c says how they
 *  count). */
int cli_bench_mg_degree(ts_backend b, const cli_bench_mg_config *config, int k,
                        cli_bench_mg_result *r);

#endif
