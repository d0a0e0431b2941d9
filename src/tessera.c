/* tessera.c -- the tessera command: run problem files, compare backends, benchmark
 * kernels, describe the installation.  Every subcommand is built on the public API. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: tessera COMMAND [options]\n"
          "\n"
          "commands:\n"
          "  run FILE.xml [--backend NAME] [--set PATH=VALUE ...] [--quiet] [--json]\n"
          "        [--json-file FILE] [--threads N] [--max-output-size SIZE] [--procs PxQ[xR]]\n"
          "        solve the problem a file describes and report iterations, errors, times;\n"
          "        under mpirun -np N over N processes (Poisson; doc/parallel.md)\n"
          "  bench [--problem poisson|stokes] [--backend NAME] [--dim 2|3] [--degrees LIST]\n"
          "        [--dofs N] [--precision double|single] [--mg] [--json] [--no-ceilings]\n"
          "        [--threads N] [--repeat N] [--baseline FILE [--noise PCT]]\n"
          "        measure the matrix-free Laplacian's or Stokes operator's throughput; --mg:\n"
          "        a smoothing step, a V-cycle and the solve in ns/DoF; under mpirun the\n"
          "        distributed Laplacian (and FMG), per process and in total\n"
          "  check FILE.xml --backend NAME [--against NAME] [--set PATH=VALUE ...]\n"
          "        [--seed N] [--threads N]\n"
          "        compare a backend with another (default omp) on a Poisson, Stokes,\n"
          "        Darcy or grad-div problem: every operator on the same random vectors,\n"
          "        then the solve;\n"
          "        PASS/FAIL per check\n"
          "  info  version, backends found, devices\n"
          "  help  this text; 'tessera COMMAND --help' for one command\n"
          "\n"
          "threads: OMP_NUM_THREADS or --threads N (at most %d per processor); small vectors\n"
          "and operators run on fewer.  Idle threads sleep at once (OMP_WAIT_POLICY=passive,\n"
          "set by tessera unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set).\n"
          "\n"
          "exit codes: 0 success, 1 error, 2 usage error, 3 solver did not converge (run:\n"
          "  the iteration limit, or an rtol below what rounding allows; the results are\n"
          "  still reported, see doc/accuracy.md), 4 bench --baseline: a figure slower than\n"
          "  the baseline\n",
          TS_MAX_THREADS_PER_PROCESSOR);
}

/* libgomp reads OMP_WAIT_POLICY once, when it is loaded, before main.  Its default lets
 * idle threads spin for milliseconds, which on a machine with more runnable threads than
 * cores takes the cores the working threads need (a small solve took 8-19 s instead of
 * 0.09 s; doc/user-guide.md, "Threads").  Unless the user chose (OMP_WAIT_POLICY or
 * GOMP_SPINCOUNT set), tessera starts its own executable again, once, with
 * OMP_WAIT_POLICY=passive, and with OMP_NUM_THREADS lowered to ts_threads_max() where the
 * library lowered it (and warned, once) already; if that cannot be done it goes on with
 * libgomp's default.  Not under valgrind (its preload libraries in LD_PRELOAD), which would
 * run the new program unchecked. */
static void restart_with_passive_waiting(char **argv) {
  char self[4096], max_threads[16];
  const char *preload = getenv("LD_PRELOAD"), *threads = getenv("OMP_NUM_THREADS");
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
  if (preload && strstr(preload, "vgpreload")) return;
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0 || length >= (ssize_t)sizeof self - 1) return;
  self[length] = 0;
  snprintf(max_threads, sizeof max_threads, "%d", ts_threads_max());
  if (threads && strtol(threads, NULL, 10) > ts_threads_max())
    setenv("OMP_NUM_THREADS", max_threads, 1);
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv(self, argv);
  unsetenv("OMP_WAIT_POLICY"); /* not restarted: libgomp runs with its default */
}

int cli_threads_option(const char *command, const char *value) {
  char *end;
  errno = 0;
  const long threads = strtol(value, &end, 10);
  const int max = ts_threads_max();
  if (!*value || *end || errno || threads < 1 || threads > max)
    return cli_usage_error(command, "--threads %s: give an integer 1..%d (at most %d per "
                           "processor)", value, max, TS_MAX_THREADS_PER_PROCESSOR);
  const int ierr = ts_set_threads((int)threads);
  return ierr ? cli_fail(ierr) : CLI_OK;
}

int cli_exit_code(int code) {
  if (code == TS_ERR_NOT_CONVERGED || code == TS_ERR_BREAKDOWN || code == TS_ERR_NAN)
    return CLI_NOT_CONVERGED;
  return CLI_ERROR;
}

int cli_fail(int code) {
  fprintf(stderr, "tessera: error: %s\n", ts_error_message());
  return cli_exit_code(code);
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
  restart_with_passive_waiting(argv);
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
