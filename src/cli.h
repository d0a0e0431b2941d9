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
/** Write s as a JSON string literal (with quotes and escapes). */
void cli_json_string(FILE *f, const char *s);

/* tessera bench --mg (cli-bench-mg.c) */
typedef struct cli_bench_mg_result {
  int level, iterations;
  int64_t dofs;
  double smooth_seconds, vcycle_seconds, solve_seconds;
} cli_bench_mg_result;
/** Time one smoothing step, one V-cycle and the whole FMG solve for degree k. */
int cli_bench_mg_degree(ts_backend b, int dim, int k, double target_dofs, double min_seconds,
                        const ts_mg_options *options, cli_bench_mg_result *r);

#endif
