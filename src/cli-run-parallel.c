/* cli-run-parallel.c -- `mpirun -np N tessera run FILE.xml` (or --procs PxQ[xR]): the problem
 * solved over the processes (ts_problem_solve_parallel; doc/parallel.md, "Running a problem
 * file under mpirun").  Rank 0 reads the file and broadcasts it, every process parses it and
 * opens the backend (a GPU backend: the device of its rank on the node modulo the node's
 * GPUs, unless TESSERA_GPU_DEVICE says); what the layer does not distribute is refused
 * before any work.  Rank 0 prints the log, each process's share and the JSON; every process
 * exits with the same code. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The problem read (rank 0 reads the file, every process parses its bytes), checked and its
 * backend open on every process (agreed: the first failing process's message printed once);
 * the exit status. */
static int prepare(const cli_run_options *o, const cli_mpi *m, ts_problem *p, ts_backend *b) {
  int ierr = 0;
  if (o->max_output_size) ierr = ts_set_max_output_size(o->max_output_size);
  if (!ierr) ierr = ts_problem_read_xml_parallel(cli_mpi_comm(), o->file, o->n_overrides,
                                                 o->overrides, p);
  if (!ierr) ierr = ts_problem_parallel_check(*p);
  if ((ierr = cli_mpi_agree(m, ierr))) return cli_exit_code(ierr);
  int product = 1;
  for (int d = 0; d < o->n_procs; ++d) product *= o->procs[d];
  if (o->n_procs && (o->n_procs != ts_problem_dim(*p) || product != m->size)) {
    if (!m->rank)
      cli_usage_error("run", "--procs: %d directions of %d processes in all given; the problem "
                      "is %dD and runs on %d processes (give PxQ in 2D, PxQxR in 3D, their "
                      "product the processes of mpirun -np)", o->n_procs, product,
                      ts_problem_dim(*p), m->size);
    return CLI_USAGE;
  }
  cli_mpi_choose_device(m);
  ierr = cli_mpi_agree(m, ts_backend_open(o->backend ? o->backend : ts_problem_backend(*p), b));
  return ierr ? cli_exit_code(ierr) : CLI_OK;
}

/* "24x32" */
static const char *cells_text(const ts_parallel_figures *f, int dim, char *buf, size_t len) {
  int used = 0;
  buf[0] = 0;
  for (int d = 0; d < dim && used >= 0 && (size_t)used < len; ++d)
    used += snprintf(buf + used, len - (size_t)used, "%s%lld", d ? "x" : "", (long long)f->cells[d]);
  return buf;
}

/* After the summary: each process's block, DoFs and times (finest level). */
static void print_processes(const ts_parallel_figures *all, int dim) {
  printf("\n process  block cells   owned DoFs   block DoFs   setup s   solve s\n");
  for (int r = 0; r < all[0].processes; ++r) {
    char cells[64];
    const ts_parallel_figures *f = &all[r];
    printf(" %7d  %11s  %11lld  %11lld  %8.3f  %8.3f\n", f->rank, cells_text(f, dim, cells, sizeof cells),
           (long long)f->owned_dofs, (long long)f->block_dofs, f->setup_seconds, f->solve_seconds);
  }
}

/* The JSON's distributed part: the grid and each process's share. */
static void print_processes_json(FILE *out, const ts_parallel_figures *all, int dim) {
  fprintf(out, ", \"processes\": %d, \"process_grid\": [", all[0].processes);
  for (int d = 0; d < dim; ++d) fprintf(out, "%s%d", d ? ", " : "", all[0].procs[d]);
  fprintf(out, "], \"per_process\": [");
  for (int r = 0; r < all[0].processes; ++r) {
    const ts_parallel_figures *f = &all[r];
    fprintf(out, "%s{\"rank\": %d, \"cells\": [", r ? ", " : "", f->rank);
    for (int d = 0; d < dim; ++d) fprintf(out, "%s%lld", d ? ", " : "", (long long)f->cells[d]);
    fprintf(out, "], \"dofs\": %lld, \"block_dofs\": %lld, \"setup_seconds\": %.6f, "
           "\"solve_seconds\": %.6f}", (long long)f->owned_dofs, (long long)f->block_dofs,
           f->setup_seconds, f->solve_seconds);
  }
  fprintf(out, "]");
}

/* Rank 0's report of a solve whose results exist (code 0 or TS_ERR_NOT_CONVERGED). */
static void report_results(const cli_run_options *o, ts_problem p, ts_backend b,
                           const ts_report *report, const ts_parallel_figures *all, int code) {
  const int dim = ts_problem_dim(p);
  FILE *json[2];
  for (int i = 0, n = cli_run_json_streams(o, json); i < n; ++i) {
    cli_run_print_json_open(json[i], p, b, report, code);
    print_processes_json(json[i], all, dim);
    fprintf(json[i], "}\n");
  }
  if (o->quiet || o->json) return;
  print_processes(all, dim);
  if (o->verbose) cli_run_print_verbose(report);
}

int cli_run_parallel(const cli_run_options *o, const cli_mpi *m) {
  ts_problem p = NULL;
  ts_backend b = NULL;
  ts_parallel_figures mine, *all = calloc((size_t)m->size, sizeof *all);
  ts_report *report = calloc(1, sizeof *report);
  if (!all || !report) {
    fprintf(stderr, "tessera run: out of memory for the report of %d processes\n", m->size);
    free(all);
    free(report);
    return CLI_ERROR;
  }
  int ierr = 0, status = prepare(o, m, &p, &b);
  if (!status) {
    FILE *log = m->rank || o->quiet || o->json ? NULL : stdout;
    ierr = ts_problem_solve_parallel(p, b, cli_mpi_comm(), o->n_procs ? o->procs : NULL, log,
                                     report, &mine);
    if (ierr && !m->rank) status = cli_fail(ierr); /* the same error on every process */
    else if (ierr) status = cli_exit_code(ierr);
    const int kept = !ierr || (ierr == TS_ERR_NOT_CONVERGED && report->n_levels > 0);
    if (kept && cli_mpi_gather(m, &mine, (int)sizeof mine, all) == CLI_OK && !m->rank)
      report_results(o, p, b, report, all, ierr);
  }
  const int reported = !status || (ierr == TS_ERR_NOT_CONVERGED && report->n_levels > 0);
  FILE *json[2];
  const int quiet = m->rank || reported || status == CLI_USAGE; /* nothing to report as JSON */
  const int streams = quiet ? 0 : cli_run_json_streams(o, json);
  for (int i = 0; i < streams; ++i) cli_run_print_json_error(json[i], ts_error_code(), status);
  free(all);
  free(report);
  ts_backend_destroy(&b);
  ts_problem_destroy(&p);
  return status;
}
