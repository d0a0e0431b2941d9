/* cli.h -- the subcommands of the tessera command line. */
#ifndef TESSERA_CLI_H
#define TESSERA_CLI_H

#include <math.h>
#include <stdio.h>
#include "tessera.h"

/* Exit codes of the tessera command. */
enum {
  CLI_OK = 0,
  CLI_ERROR = 1,          /* bad input, missing backend, I/O, ... */
  CLI_USAGE = 2,          /* wrong command-line syntax */
  CLI_NOT_CONVERGED = 3,  /* the solver stopped without reaching its tolerance */
  CLI_SLOWER = 4          /* bench --baseline: a figure slower than the baseline */
};

/* cli-mpi.c: a command started by an MPI launcher (mpirun -np N tessera ...; doc/parallel.md) */
typedef struct cli_mpi {
  int active;                     /* tessera initialized MPI (MPI_Finalize at the end) */
  int rank, size;                 /* in MPI_COMM_WORLD (0 and 1 without MPI) */
  int node_rank;                  /* among the processes of this node: the GPU to take */
} cli_mpi;
/** Initialize MPI when an MPI launcher started the command (its environment says so) or an
 *  option asks for processes (force: e.g. --procs).  Built without MPI: CLI_ERROR, printed
 *  once, when the launcher started more than one process or force is set.  CLI_OK else. */
int cli_mpi_start(const char *command, int force, const char *option, cli_mpi *m);
/** MPI_Finalize where cli_mpi_start initialized MPI. */
void cli_mpi_finish(cli_mpi *m);
/** MPI_COMM_WORLD's Fortran handle, for ts_parallel_create and ts_problem_solve_parallel. */
int cli_mpi_comm(void);
/** Every process's code made every process's: the lowest failing rank's code, its message
 *  printed once (by that rank, "process R: ..." unless it is rank 0); 0 if none failed. */
int cli_mpi_agree(const cli_mpi *m, int code);
/** Each process's `bytes` bytes at mine, into all[rank * bytes] on rank 0. */
int cli_mpi_gather(const cli_mpi *m, const void *mine, int bytes, void *all);
/** The largest value over the processes (every process gets it). */
double cli_mpi_max(const cli_mpi *m, double value);
/** A GPU backend's processes take the devices of their node in turn: TESSERA_GPU_NODE_RANK
 *  set to the node rank (the backend takes that modulo the node's devices, unless
 *  TESSERA_GPU_DEVICE names one). */
void cli_mpi_choose_device(const cli_mpi *m);

/* tessera run (cli-run.c; under mpirun cli-run-parallel.c) */
typedef struct cli_run_options {
  const char *file, *backend;
  const char **overrides;         /* the --set values, at most argc of them */
  int n_overrides, quiet, json, verbose;
  uint64_t max_output_size;       /* 0: the library's default */
  int n_procs, procs[3];          /* --procs PxQ[xR] (n_procs 0: not given) */
  const char *json_file;          /* --json-file (NULL: not given) */
  FILE *json_out;                 /* it, open (rank 0 under mpirun) */
} cli_run_options;
/** The distributed run: the problem over the processes of m (cli-run-parallel.c). */
int cli_run_parallel(const cli_run_options *o, const cli_mpi *m);
/** The JSON results of a run without the closing brace (a distributed run adds its own). */
void cli_run_print_json_open(FILE *f, ts_problem p, ts_backend b, const ts_report *report,
                             int code);
/** The streams the JSON results go to, into streams[0..1]: stdout (--json), then the open
 *  --json-file; their count (0 to 2). */
int cli_run_json_streams(const cli_run_options *o, FILE **streams);
/** {"error": ..., "message": ...} for a run that reported nothing; returns exit_code. */
int cli_run_print_json_error(FILE *f, int code, int exit_code);
/** --verbose: the setup phases by level and the multigrid levels' timings. */
void cli_run_print_verbose(const ts_report *report);
int cli_run(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_check(int argc, char **argv);

/** Print "tessera: error: <ts_error_message()>" and return the exit code for code. */
int cli_fail(int code);
/** The exit code for a library error code (CLI_NOT_CONVERGED or CLI_ERROR), nothing printed. */
int cli_exit_code(int code);
/** Print a usage error naming the argument and return CLI_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** --threads VALUE of a command: an integer 1..ts_threads_max(), set with ts_set_threads;
 *  CLI_OK, or a usage error naming the value and the allowed range. */
int cli_threads_option(const char *command, const char *value);
/** Write s as a JSON string literal (with quotes and escapes). */
void cli_json_string(FILE *f, const char *s);

/* tessera bench --baseline FILE (cli-bench-baseline.c): the measured rows against a
 * baseline of `tessera bench --json` rows. */
typedef struct cli_baseline cli_baseline;
/** Read FILE (JSON lines); noise: the allowed slow-down as a fraction; the comparison of
 *  each row is printed on report.  CLI_OK, or CLI_ERROR after printing why. */
int cli_baseline_load(const char *path, double noise, FILE *report, cli_baseline **b);
/** Compare one measured JSON row with the baseline row of the same identity. */
int cli_baseline_compare(cli_baseline *b, const char *json_line);
/** CLI_OK, CLI_SLOWER (a figure beyond the margin), or CLI_ERROR if nothing was compared. */
int cli_baseline_verdict(const cli_baseline *b);
void cli_baseline_free(cli_baseline **b);

/* Seconds per call of `call`: the best of `repeat` windows, each repeated until min_seconds
 * have passed (at least min_calls times) with the device drained (wait, an int expression)
 * before the clock starts and before it is read. */
#define CLI_TIME_BEST(min_seconds, min_calls, repeat, wait, seconds, ierr, call)      \
  do {                                                                                \
    (seconds) = INFINITY;                                                             \
    for (int window_ = 0; !(ierr) && window_ < (repeat); ++window_) {                 \
      int calls_ = 0;                                                                 \
      (ierr) = (wait);                                                                \
      const double t0_ = ts_wtime();                                                  \
      while (!(ierr) && (ts_wtime() - t0_ < (min_seconds) || calls_ < (min_calls))) { \
        (ierr) = (call);                                                              \
        ++calls_;                                                                     \
      }                                                                               \
      if (!(ierr)) (ierr) = (wait);                                                   \
      const double t_ = (ts_wtime() - t0_) / (calls_ ? calls_ : 1);                   \
      if (t_ < (seconds)) (seconds) = t_;                                             \
    }                                                                                 \
  } while (0)

/* The problems `tessera bench` measures. */
typedef enum {
  CLI_PROBLEM_POISSON = 0, CLI_PROBLEM_STOKES = 1, CLI_PROBLEM_TAYLOR_HOOD = 2,
  CLI_PROBLEM_MASS_INVERSE = 3, CLI_PROBLEM_DARCY = 4
} cli_problem;

/* tessera bench --problem darcy (cli-bench-darcy.c): Figure 8 of paper 003 */
typedef struct cli_bench_darcy_config {
  int dim;
  double target_dofs, min_seconds;
  int repeat;                     /* timing windows per part; the best counts */
} cli_bench_darcy_config;
typedef struct cli_bench_darcy_row {
  int reported;                   /* an error already printed (host memory) */
  int level, iterations;
  int64_t dofs;
  double setup_seconds, solve_seconds; /* the system and right side; the MINRES solve */
  double system, mass, div, div_t;     /* seconds per application: Acal, M_beta, D, D^T */
  double pc, schur;                    /* the preconditioner, its AMG V-cycle on S~ */
} cli_bench_darcy_row;
/** One degree of the benchmark: a solve and the timed parts. */
int cli_bench_darcy_degree(ts_backend b, const cli_bench_darcy_config *c, int k,
                           cli_bench_darcy_row *r);

/* tessera bench --problem mass-inverse (cli-bench-mass-inverse.c): Table 1 of paper 003 */
#define CLI_MASS_INVERSE_METHODS 4 /* explicit, Cholesky, CG-Legendre, CG-Lobatto */
typedef struct cli_bench_mass_inverse_config {
  int dim;
  double target_dofs, kershaw, tolerance;
  int dense_max_degree;           /* explicit and Cholesky up to this degree (memory, time) */
} cli_bench_mass_inverse_config;
typedef struct cli_bench_mass_inverse_row {
  int measured;                   /* 0: a dash (not available, or above the limits) */
  double setup_seconds, solve_seconds; /* solve: APPLICATIONS (100) applications */
  int max_iterations;
  double mean_iterations, residual;
} cli_bench_mass_inverse_row;
/** The rows of the four methods (ts_mass_inverse_method 1..4) for degree k; *dofs the DoFs. */
int cli_bench_mass_inverse_degree(ts_backend b, const cli_bench_mass_inverse_config *c, int k,
                                  cli_bench_mass_inverse_row rows[CLI_MASS_INVERSE_METHODS],
                                  int64_t *dofs);

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
  int repeat;                     /* timing windows; the best counts */
  double kershaw;                 /* Poisson on Kershaw's mesh with this epsilon (0: the box) */
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
/** The problem-file name of a Taylor-Hood relaxation ("vanka", "braess-sarazin",
 *  "schur-uzawa"); NULL for the Q_k smoothers. */
const char *cli_relaxation_word(ts_mg_smoother_type type);
/** Time one smoothing step, one V-cycle, GMRES + V-cycle to config->rtol and (Poisson) FMG
 *  to 1e-9 for degree k; counted operations and traffic in r (cli-bench-mg.c says how they
 *  count). */
int cli_bench_mg_degree(ts_backend b, const cli_bench_mg_config *config, int k,
                        cli_bench_mg_result *r);


/* tessera bench under mpirun (cli-bench-parallel.c): the distributed Q_k Laplacian */
typedef struct cli_bench_parallel_config {
  ts_backend backend;
  int dim, json, repeat;
  int mg;                         /* full multigrid instead of one operator application */
  int n_degrees;
  const int *degrees;
  double dofs, min_seconds;       /* the whole mesh's DoFs (about); per figure */
  ts_mg_smoother_type smoother;   /* --mg: TS_MG_SMOOTHER_VERTEX_PATCH or _CHEBYSHEV */
  ts_patch_variant variant;       /* of the vertex patches */
  ts_precision mg_precision;      /* --mg-precision: TS_SINGLE mixed (Poisson --mg) */
  int stokes;                     /* --problem stokes: RT_k x DGQ_k (paper 000) */
  ts_stokes_patch_solver stokes_solver; /* --local-solver */
  double rtol;                    /* Stokes --mg: GMRES(restart) + V-cycle to rtol */
  int restart;
} cli_bench_parallel_config;
/** Each degree's total and per-process figures (rank 0 prints them). */
int cli_bench_parallel(const cli_bench_parallel_config *c, const cli_mpi *m);

#endif
