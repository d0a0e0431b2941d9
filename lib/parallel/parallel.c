/* parallel.c -- ts_parallel: the processes of a communicator as a Cartesian grid of blocks
 * (doc/parallel.md), and the reductions over them. */
#include "parallel-impl.h"

int ts_parallel_available(void) { return 1; }

int ts_parallel_mpi_error(int mpi_error, const char *call, const char *file, int line) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  MPI_Error_string(mpi_error, text, &length);
  return ts_error_set(TS_ERR_BACKEND, file, line, "MPI: %s failed: %s", call, text);
}

/* procs[d] for d < dim from the user's or MPI_Dims_create's choice; 1 beyond dim */
static int choose_procs(int size, int dim, const int *procs, int *chosen) {
  int product = 1;
  for (int d = 0; d < 3; ++d) chosen[d] = d < dim && procs ? procs[d] : d < dim ? 0 : 1;
  if (!procs) {
    TS_MPI_CALL("MPI_Dims_create", MPI_Dims_create(size, dim, chosen));
    return 0;
  }
  for (int d = 0; d < dim; ++d) {
    TS_CHECK_ARG(procs[d] >= 1, "ts_parallel_create: procs[%d] = %d, allowed >= 1", d, procs[d]);
    product *= procs[d];
  }
  TS_CHECK_ARG(product == size,
               "ts_parallel_create: the processes per direction make %d, the communicator has "
               "%d processes (allowed: a product equal to its size, or procs = NULL)",
               product, size);
  return 0;
}

/* rank, coordinates and neighbours in the Cartesian communicator; the node-local rank */
static int describe(ts_parallel p) {
  MPI_Comm node;
  TS_MPI_CALL("MPI_Comm_rank", MPI_Comm_rank(p->cart, &p->rank));
  TS_MPI_CALL("MPI_Comm_size", MPI_Comm_size(p->cart, &p->size));
  TS_MPI_CALL("MPI_Cart_coords", MPI_Cart_coords(p->cart, p->rank, p->dim, p->coords));
  for (int d = 0; d < 3; ++d) p->lower[d] = p->upper[d] = MPI_PROC_NULL;
  for (int d = 0; d < p->dim; ++d)
    TS_MPI_CALL("MPI_Cart_shift", MPI_Cart_shift(p->cart, d, 1, &p->lower[d], &p->upper[d]));
  TS_MPI_CALL("MPI_Comm_split_type", MPI_Comm_split_type(p->cart, MPI_COMM_TYPE_SHARED, p->rank,
                                                         MPI_INFO_NULL, &node));
  const int err = MPI_Comm_rank(node, &p->node_rank);
  MPI_Comm_free(&node);
  TS_MPI_CALL("MPI_Comm_rank (node)", err);
  return 0;
}

int ts_parallel_create(int comm, int dim, const int *procs, ts_parallel *par) {
  int initialized = 0, size = 0, periods[3] = {0, 0, 0};
  TS_CHECK_NOT_NULL(par);
  *par = NULL;
  TS_CHECK_ARG(dim == 2 || dim == 3, "ts_parallel_create: dim = %d, allowed 2 or 3", dim);
  MPI_Initialized(&initialized);
  TS_CHECK_ARG(initialized, "ts_parallel_create: MPI is not initialized (call MPI_Init first)");
  const MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
  TS_CHECK_ARG(c != MPI_COMM_NULL, "ts_parallel_create: comm = %d is MPI_COMM_NULL", comm);
  TS_MPI_CALL("MPI_Comm_size", MPI_Comm_size(c, &size));
  ts_parallel p;
  TS_CALL(ts_calloc(1, sizeof *p, "parallel split", &p));
  p->dim = dim;
  p->cart = MPI_COMM_NULL;
  p->overlap_dofs = TS_PARALLEL_OVERLAP_DEFAULT;
  int ierr = choose_procs(size, dim, procs, p->procs);
  if (!ierr) {
    const int err = MPI_Cart_create(c, dim, p->procs, periods, 0, &p->cart);
    if (err != MPI_SUCCESS) ierr = ts_parallel_mpi_error(err, "MPI_Cart_create", __FILE__, __LINE__);
  }
  if (!ierr) ierr = describe(p);
  if (ierr) {
    ts_parallel_destroy(&p);
    return ierr;
  }
  *par = p;
  return 0;
}

int ts_parallel_destroy(ts_parallel *par) {
  if (!par || !*par) return 0;
  if ((*par)->cart != MPI_COMM_NULL) MPI_Comm_free(&(*par)->cart);
  ts_free(par);
  return 0;
}

int ts_parallel_rank(ts_parallel par) {
  TS_GETTER_NOT_NULL(par, -1);
  return par->rank;
}

int ts_parallel_size(ts_parallel par) {
  TS_GETTER_NOT_NULL(par, -1);
  return par->size;
}

int ts_parallel_node_rank(ts_parallel par) {
  TS_GETTER_NOT_NULL(par, -1);
  return par->node_rank;
}

int ts_parallel_procs(ts_parallel par, int *procs) {
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_NOT_NULL(procs);
  for (int d = 0; d < par->dim; ++d) procs[d] = par->procs[d];
  return 0;
}

void ts_parallel_split(int64_t cells, int procs, int coord, int64_t *start, int64_t *end) {
  const int64_t base = cells / procs, extra = cells % procs;
  *start = coord * base + (coord < extra ? coord : extra);
  *end = *start + base + (coord < extra ? 1 : 0);
}

int ts_parallel_set_agglomeration(ts_parallel par, int64_t min_cells) {
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_ARG(min_cells >= 0, "ts_parallel_set_agglomeration: min_cells = %lld, allowed >= 0 "
               "(0: only the levels too small to split)", (long long)min_cells);
  par->agglomerate_cells = min_cells;
  return 0;
}

int ts_parallel_set_overlap(ts_parallel par, int64_t min_dofs) {
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_ARG(min_dofs >= 0, "ts_parallel_set_overlap: min_dofs = %lld, allowed >= 0 (0: "
               "never overlap)", (long long)min_dofs);
  par->overlap_dofs = min_dofs;
  return 0;
}

int ts_parallel_timing(ts_parallel par, int on) {
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_ARG(on == 0 || on == 1, "ts_parallel_timing: on = %d; allowed: 1 (start) or 0 (stop)",
               on);
  par->timing = on;
  return 0;
}

/* the backend's work queued on v done: one entry copied to the host waits for it (the
 * backends queue on one stream; omp's work is done when its calls return) */
static int wait_for(ts_vec v) {
  double first;
  TS_BACKEND_CALL(v->backend, vec_to_host, TS_DOUBLE, 1, v->data, &first);
  return 0;
}

int ts_parallel_time_start(ts_parallel_dofs pd, ts_vec v, double *start) {
  *start = 0.0;
  if (!pd->par->timing) return 0;
  TS_CALL(wait_for(v));
  *start = ts_wtime();
  return 0;
}

int ts_parallel_time_stop(ts_parallel_dofs pd, ts_parallel_time what, ts_vec v, double start) {
  if (!pd->par->timing) return 0;
  TS_CALL(wait_for(v));
  pd->seconds[what] += ts_wtime() - start;
  pd->calls[what]++;
  return 0;
}

int ts_parallel_dofs_time(ts_parallel_dofs pd, ts_parallel_time what, double *seconds,
                          int64_t *calls) {
  TS_CHECK_NOT_NULL(pd);
  TS_CHECK_ARG(what >= 0 && what < TS_PARALLEL_TIMES,
               "ts_parallel_dofs_time: what = %d; allowed: TS_PARALLEL_TIME_HALO (0), "
               "TS_PARALLEL_TIME_REDUCTION (1), TS_PARALLEL_TIME_COARSE (2)", (int)what);
  if (seconds) *seconds = pd->seconds[what];
  if (calls) *calls = pd->calls[what];
  return 0;
}

/* MPI_Allreduce may add in any order; gathering the values and adding them in rank order
 * gives every process, and every run, the same sum. */
int ts_parallel_sum(ts_parallel par, double local, double *sum) {
  double *values;
  TS_CALL(ts_calloc((size_t)par->size, sizeof *values, "reduction", &values));
  const int err = MPI_Allgather(&local, 1, MPI_DOUBLE, values, 1, MPI_DOUBLE, par->cart);
  ts_sum total = {0.0, 0.0};
  for (int r = 0; r < par->size; ++r) ts_sum_add(&total, values[r]);
  ts_free(&values);
  TS_MPI_CALL("MPI_Allgather", err);
  *sum = ts_sum_value(&total);
  return 0;
}

/* The codes of all processes; the lowest failing rank broadcasts its message. */
int ts_parallel_agree(ts_parallel par, int ierr) {
  int *codes, failed = -1;
  char message[4096] = "";
  TS_CALL(ts_calloc((size_t)par->size, sizeof *codes, "error agreement", &codes));
  const int err = MPI_Allgather(&ierr, 1, MPI_INT, codes, 1, MPI_INT, par->cart);
  for (int r = 0; !err && r < par->size && failed < 0; ++r)
    if (codes[r]) failed = r;
  const int code = failed < 0 ? 0 : codes[failed];
  ts_free(&codes);
  TS_MPI_CALL("MPI_Allgather", err);
  if (failed < 0) return 0;
  if (par->rank == failed) snprintf(message, sizeof message, "%s", ts_error_message());
  TS_MPI_CALL("MPI_Bcast", MPI_Bcast(message, sizeof message, MPI_CHAR, failed, par->cart));
  if (par->rank == failed) return code;
  return ts_error_set(code, __FILE__, __LINE__, "process %d: %s", failed, message);
}
