/* tessera.c -- the tessera command: run problem files, compare backends, benchmark
 * kernels, describe the installation.  Every subcommand is built on the public API. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: tessera COMMAND [options]\n"
          "\n"
          "commands:\n"
          "  run FILE.xml [--backend NAME] [--set PATH=VALUE ...] [--quiet] [--json]\n"
          "        solve the problem a file describes and report iterations, errors, times\n"
          "  bench [--problem poisson|stokes] [--backend NAME] [--dim 2|3] [--degrees LIST]\n"
          "        [--dofs N] [--precision double|single] [--mg] [--json] [--no-ceilings]\n"
          "        measure the matrix-free Laplacian's or Stokes operator's throughput; --mg:\n"
          "        a smoothing step, a V-cycle and the solve in ns/DoF\n"
          "  check FILE.xml --backend NAME [--against NAME] [--set PATH=VALUE ...]\n"
          "        compare a backend with another (default omp) on a Poisson or Stokes\n"
          "        problem: every operator on the same random vectors, then the solve;\n"
          "        PASS/FAIL per check\n"
          "  info  version, backends found, devices\n"
          "  help  this text; 'tessera COMMAND --help' for one command\n"
          "\n"
          "exit codes: 0 success, 1 error, 2 usage error, 3 solver did not converge\n");
}

int cli_fail(int code) {
  fprintf(stderr, "tessera: error: %s\n", ts_error_message());
  if (code == TS_ERR_NOT_CONVERGED || code == TS_ERR_BREAKDOWN || code == TS_ERR_NAN)
    return CLI_NOT_CONVERGED;
  return CLI_ERROR;
}

int cli_usage_error(const char *command, const char *fmt, ...) {
  va_list args;
  fprintf(stderr, "tessera %s: ", command);
  va_start(args, fmt);
  vfprintf(stderr, fmt, args);
  va_end(args);
  fprintf(stderr, "\n(see 'tessera %s --help')\n", command);
  return CLI_USAGE;
}

void cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    const unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  const char *command = argv[1];
  if (!strcmp(command, "run")) return cli_run(argc - 1, argv + 1);
  if (!strcmp(command, "bench")) return cli_bench(argc - 1, argv + 1);
  if (!strcmp(command, "info")) return cli_info(argc - 1, argv + 1);
  if (!strcmp(command, "check")) return cli_check(argc - 1, argv + 1);
  if (!strcmp(command, "help") || !strcmp(command, "--help") || !strcmp(command, "-h")) {
    usage(stdout);
    return CLI_OK;
  }
  if (!strcmp(command, "--version") || !strcmp(command, "version")) {
    printf("tessera %s\n", ts_version());
    return CLI_OK;
  }
  fprintf(stderr, "tessera: unknown command '%s' (allowed: run, bench, check, info, help)\n", command);
  return CLI_USAGE;
}
