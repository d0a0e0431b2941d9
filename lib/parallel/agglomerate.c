/* agglomerate.c -- the coarse levels of a distributed hierarchy gathered onto every process
 * (doc/parallel.md section 5 item 3).  Below the split level (ts_parallel_split_level) a
 * level has too few cells to deal out, or too few per process to be worth the messages: the
 * distributed cycle's coarse "solve" on the split level gathers its right side on every
 * process (ts_parallel_vec_gather, one allgather), applies the one-process cycle of the
 * levels coarse_level..split_level to the whole vector - the same on every process, so no
 * process waits for another's answer - and takes the process's entries (ghosts included)
 * back.  That is the one-process cycle below the split level, so the iterations are the
 * one-process run's for any number of processes.  Without levels below the split level the
 * one-process cycle is the LU of the coarse level.
 *
 * Full multigrid starts with a coarse solve; there the gathered levels run their own nested
 * iteration (ts_pc_multigrid_nested), as one process's full multigrid would. */
#include "parallel-impl.h"
#include "../pc/pc-impl.h"

typedef struct gathered {
  ts_parallel_dofs pd;          /* borrowed: the split level's DoFs */
  ts_pc serial;                 /* owned: the one-process cycle, on the whole level's vectors */
  ts_vec in, out;               /* serial */
  double *global;               /* host, the whole level */
} gathered;

/* x = C b: b gathered, the serial cycle (its nested iteration: start) applied, x scattered */
static int gathered_run(gathered *g, int start, ts_vec b, ts_vec x) {
  double t0;
  TS_CALL(ts_parallel_time_start(g->pd, b, &t0));
  TS_CALL(ts_parallel_vec_gather(b, g->global));
  TS_CALL(ts_vec_set_from_host(g->in, g->global));
  if (start) TS_CALL(ts_pc_multigrid_nested(g->serial, g->in, g->out));
  else TS_CALL(ts_pc_apply(g->serial, g->in, g->out));
  TS_CALL(ts_vec_get_to_host(g->out, g->global));
  TS_CALL(ts_parallel_vec_scatter(g->global, x));
  return ts_parallel_time_stop(g->pd, TS_PARALLEL_TIME_COARSE, x, t0);
}

static int cycle_apply(ts_pc pc, ts_vec b, ts_vec x) { return gathered_run(pc->data, 0, b, x); }
static int start_apply(ts_pc pc, ts_vec b, ts_vec x) { return gathered_run(pc->data, 1, b, x); }

static void gathered_free(gathered *g) {
  if (!g) return;
  ts_pc_destroy(&g->serial);
  ts_vec_destroy(&g->in);
  ts_vec_destroy(&g->out);
  ts_free(&g->global);
  ts_free(&g);
}

static void cycle_destroy(ts_pc pc) {
  gathered_free(pc->data);
  pc->data = NULL;
}

static void start_destroy(ts_pc pc) { pc->data = NULL; } /* borrowed from the cycle */

static const ts_pc_ops cycle_ops = {.name = "gathered coarse levels",
                                    .apply = cycle_apply,
                                    .destroy = cycle_destroy};
static const ts_pc_ops start_ops = {.name = "gathered coarse levels (nested iteration)",
                                    .apply = start_apply,
                                    .destroy = start_destroy};

int ts_parallel_gathered_create(ts_parallel_dofs pd, ts_pc serial, ts_pc *cycle, ts_pc *start) {
  *cycle = NULL;
  if (start) *start = NULL;
  const int64_t n = pd->layout.global_size;
  gathered *g;
  int ierr = ts_calloc(1, sizeof *g, "gathered coarse levels", &g);
  if (ierr) {
    ts_pc_destroy(&serial);
    return ierr;
  }
  *g = (gathered){.pd = pd, .serial = serial};
  if (serial->op->n != n) {
    ierr = TS_ERROR(TS_ERR_ARG, "gathered coarse levels: a serial cycle of %lld entries for a "
                    "level of %lld DoFs", (long long)serial->op->n, (long long)n);
    goto fail;
  }
  ierr = ts_vec_create(pd->backend, n, TS_DOUBLE, &g->in);
  if (!ierr) ierr = ts_vec_create(pd->backend, n, TS_DOUBLE, &g->out);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *g->global, "gathered coarse vector", &g->global);
  if (!ierr) ierr = ts_pc_create_shell(&cycle_ops, pd->backend, pd->count, TS_DOUBLE, g, cycle);
  if (ierr) goto fail;
  (*cycle)->op->layout = &pd->layout;
  if (!start) return 0;
  ierr = ts_pc_create_shell(&start_ops, pd->backend, pd->count, TS_DOUBLE, g, start);
  if (ierr) {
    ts_pc_destroy(cycle); /* frees g */
    return ts_error_trace(ierr, __FILE__, __LINE__, "gathered coarse levels");
  }
  (*start)->op->layout = &pd->layout;
  return 0;
fail:
  gathered_free(g);
  return ts_error_trace(ierr, __FILE__, __LINE__, "gathered coarse levels");
}
