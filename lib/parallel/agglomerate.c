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
 * iteration (ts_pc_multigrid_nested), as one process's full multigrid would.
 *
 * Where Q_k planes travel device to device (pd->peer: NCCL) on at most GATHER_RING_MAX
 * processes, and on one process, the gather stays on the device: each process packs its owned
 * box into its slot of `pieces` (slots of the largest owned count), the slots go round the
 * ring of processes in size - 1 peer exchanges (each to the next process and from the previous one), and every
 * slot is unpacked into the whole level's vector at its owner's box; the result is scattered
 * by packing the block's box out of it.  The values are the host gather's, without two round
 * trips through the host (and its allocations) per coarse solve.  Elsewhere - Stokes' fields,
 * host messages, more processes, where the ring's size - 1 latencies would exceed the
 * collective's log P - the host gather (ts_parallel_vec_gather, MPI_Allgatherv). */
#include "parallel-impl.h"
#include "../pc/pc-impl.h"

/* the most processes whose gather goes round a ring of peer exchanges */
#define GATHER_RING_MAX 16

typedef struct gathered {
  ts_parallel_dofs pd;          /* borrowed: the split level's DoFs */
  ts_pc serial;                 /* owned: the one-process cycle, on the whole level's vectors */
  ts_vec in, out;               /* serial */
  double *global;               /* host, the whole level (the host gather; else NULL) */
  ts_vec pieces;                /* the device gather: size slots of `slot` entries */
  int64_t slot;
  int64_t (*owned)[2][3];       /* each process's owned box [lo, hi) */
} gathered;

/* in = the whole level's b, on the device: the owned boxes round the ring of processes */
static int gather_device(gathered *g, ts_vec b) {
  const ts_parallel_dofs pd = g->pd;
  const ts_parallel par = pd->par;
  const ts_backend be = pd->backend;
  double *pieces = g->pieces->data;
  const int64_t lo[3] = {pd->first_owned[0], pd->first_owned[1], pd->first_owned[2]};
  TS_CALL(ts_parallel_box_copy(be, TS_DOUBLE, pd->n, lo, pd->n, b->data,
                               pieces + par->rank * g->slot, 1));
  const int next = (par->rank + 1) % par->size, previous = (par->rank + par->size - 1) % par->size;
  for (int s = 0; s + 1 < par->size; ++s) { /* step s passes on the slot of rank - s */
    const int sent = (par->rank - s + par->size) % par->size;
    const int received = (sent + par->size - 1) % par->size;
    const ts_peer_message m = {.send = pieces + sent * g->slot,
                               .recv = pieces + received * g->slot,
                               .to = next, .from = previous, .count = g->slot,
                               .precision = TS_DOUBLE};
    TS_BACKEND_CALL(be, peer_exchange, pd->peer, 1, &m);
  }
  for (int r = 0; r < par->size; ++r)
    TS_CALL(ts_parallel_box_copy(be, TS_DOUBLE, pd->global_n, g->owned[r][0], g->owned[r][1],
                                 g->in->data, pieces + r * g->slot, 0));
  return 0;
}

/* x = the block's box of the whole level's out, on the device */
static int scatter_device(gathered *g, ts_vec x) {
  const ts_parallel_dofs pd = g->pd;
  int64_t hi[3];
  for (int d = 0; d < 3; ++d) hi[d] = pd->offset[d] + pd->n[d];
  return ts_parallel_box_copy(pd->backend, TS_DOUBLE, pd->global_n, pd->offset, hi, g->out->data,
                              x->data, 1);
}

/* x = C b: b gathered, the serial cycle (its nested iteration: start) applied, x scattered */
static int gathered_run(gathered *g, int start, ts_vec b, ts_vec x) {
  double t0;
  TS_CALL(ts_parallel_time_start(g->pd, b, &t0));
  if (g->pieces) {
    TS_CALL(gather_device(g, b));
  } else {
    TS_CALL(ts_parallel_vec_gather(b, g->global));
    TS_CALL(ts_vec_set_from_host(g->in, g->global));
  }
  if (start) TS_CALL(ts_pc_multigrid_nested(g->serial, g->in, g->out));
  else TS_CALL(ts_pc_apply(g->serial, g->in, g->out));
  if (g->pieces) {
    TS_CALL(scatter_device(g, x));
  } else {
    TS_CALL(ts_vec_get_to_host(g->out, g->global));
    TS_CALL(ts_parallel_vec_scatter(g->global, x));
  }
  return ts_parallel_time_stop(g->pd, TS_PARALLEL_TIME_COARSE, x, t0);
}

/* the device gather's owned boxes and slots, where it applies (see the top) */
static int gather_device_setup(gathered *g) {
  const ts_parallel_dofs pd = g->pd;
  const ts_parallel par = pd->par;
  if (pd->stokes || (!pd->peer && par->size > 1) || par->size > GATHER_RING_MAX) return 0;
  TS_CALL(ts_calloc((size_t)par->size, sizeof *g->owned, "gathered boxes", &g->owned));
  for (int r = 0; r < par->size; ++r) {
    int c[3] = {0, 0, 0};
    TS_MPI_CALL("MPI_Cart_coords", MPI_Cart_coords(par->cart, r, par->dim, c));
    ts_parallel_owned_box(pd, c, g->owned[r][0], g->owned[r][1]);
    int64_t count = 1;
    for (int d = 0; d < 3; ++d) count *= g->owned[r][1][d] - g->owned[r][0][d];
    if (count > g->slot) g->slot = count;
  }
  return ts_vec_create(pd->backend, g->slot * par->size, TS_DOUBLE, &g->pieces);
}

static int cycle_apply(ts_pc pc, ts_vec b, ts_vec x) { return gathered_run(pc->data, 0, b, x); }
static int start_apply(ts_pc pc, ts_vec b, ts_vec x) { return gathered_run(pc->data, 1, b, x); }

static void gathered_free(gathered *g) {
  if (!g) return;
  ts_pc_destroy(&g->serial);
  ts_vec_destroy(&g->in);
  ts_vec_destroy(&g->out);
  ts_vec_destroy(&g->pieces);
  ts_free(&g->owned);
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
  if (!ierr) ierr = gather_device_setup(g);
  if (!ierr && !g->pieces)
    ierr = ts_calloc((size_t)n, sizeof *g->global, "gathered coarse vector", &g->global);
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
