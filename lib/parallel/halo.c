/* halo.c -- the sum over the processes of the entries they hold of each shared DoF
 * (doc/parallel.md, "Halo exchange").
 *
 * Direction by direction, one stage per direction, no diagonal neighbours: for d = 0, 1, 2
 * each block sends its lower plane (i_d = 0) to its lower neighbour and its upper plane to its
 * upper neighbour, receives theirs, and adds each to its own plane.  After direction d every
 * block holds on each shared DoF the sum over the blocks that differ from it in directions
 * 0..d, so after the last direction every block holds the sum over all blocks (a corner DoF of
 * 8 blocks included: a tensor-product reduction).  The sums are the same bits on every block:
 * each stage adds two values, one's own and its neighbour's, and x + y is y + x exactly, so the
 * two sides of an interface form the same number from the same two operands - the ghosts need
 * no refresh from their owner (the earlier form, a reverse accumulation to the owner and a
 * forward copy back to the ghosts, took twice the stages for the same sums).  Planes include
 * the DoFs the later directions share.  The backend (vec_plane_pack, ABI 17: omp, cuda, hip;
 * distributed DoFs need it) packs a stage's one or two planes (rows of equal width at a fixed
 * pitch in the block's lexicographic numbering) into a buffer on the device in one launch,
 * which travels device to device where the backend has peer messages (NCCL on cuda, both
 * neighbours in one group, ABI 18), else through page-locked host memory and MPI (Debian's
 * OpenMPI is not CUDA-aware), and is added back on the device in one launch.  Both give the
 * same sums, bit for bit.
 *
 * The same planes carry the masks of the distributed operators: a block's Dirichlet DoFs
 * lie on its faces on the box's boundary and its ghosts on its lower interface planes, so
 * ts_parallel_planes_zero / _restore apply F .* v or O .* v at the cost of the planes. */
#include <stdlib.h>
#include <string.h>
#include "parallel-impl.h"

ts_plane ts_parallel_slab(const int64_t *n, int d, int64_t from, int64_t thickness) {
  if (d == 0)
    return (ts_plane){.offset = from, .width = thickness, .pitch = n[0], .height = n[1] * n[2]};
  if (d == 1)
    return (ts_plane){.offset = n[0] * from, .width = n[0] * thickness, .pitch = n[0] * n[1],
                      .height = n[2]};
  return (ts_plane){.offset = n[0] * n[1] * from, .width = n[0] * n[1] * thickness,
                    .pitch = n[0] * n[1] * thickness, .height = 1};
}

int ts_parallel_box_copy(ts_backend b, ts_precision p, const int64_t *n, const int64_t *lo,
                         const int64_t *hi, void *v, void *buf, int pack) {
  const int64_t layer = (hi[0] - lo[0]) * (hi[1] - lo[1]);
  ts_plane planes[TS_MAX_PLANES];
  for (int64_t z = lo[2]; z < hi[2]; z += TS_MAX_PLANES) {
    const int count = (int)(hi[2] - z < TS_MAX_PLANES ? hi[2] - z : TS_MAX_PLANES);
    for (int i = 0; i < count; ++i)
      planes[i] = (ts_plane){.offset = lo[0] + n[0] * (lo[1] + n[1] * (z + i)),
                             .width = hi[0] - lo[0], .pitch = n[0], .height = hi[1] - lo[1]};
    void *at = ts_parallel_entry(buf, p, (z - lo[2]) * layer);
    if (pack) TS_BACKEND_CALL(b, vec_plane_pack, p, count, planes, v, at);
    else TS_BACKEND_CALL(b, vec_plane_unpack, p, 0, count, planes, at, v);
  }
  return 0;
}

/* plane i_d = at of the block */
static ts_plane plane_of(ts_parallel_dofs pd, int d, int64_t at) {
  return ts_parallel_slab(pd->n, d, at, 1);
}

/* ranks for the backend's peer messages: -1 for none */
static int peer_rank(int rank) { return rank == MPI_PROC_NULL ? -1 : rank; }

/* The packed messages to their processes and theirs into buffers->recv: message i's
 * size[i] entries of precision pr at send_at[i] of buffers->send to m[i].to, size[i] entries
 * from m[i].from into recv_at[i] of buffers->recv; device to device where pd has a peer
 * handle, else through the host (MPI to all at once, in double: single-precision entries
 * convert exactly). */
static int send_packed(ts_parallel_dofs pd, ts_precision pr, int count,
                       const ts_parallel_message *m, const int64_t *size, const int64_t *send_at,
                       const int64_t *recv_at, int64_t sent, int64_t received,
                       const ts_parallel_buffers *buffers) {
  const ts_backend b = pd->backend;
  void *send = buffers->send->data, *recv = buffers->recv->data;
  if (pd->peer) {
    ts_peer_message p[TS_MAX_PEER_MESSAGES];
    for (int i = 0; i < count; ++i)
      p[i] = (ts_peer_message){.send = ts_parallel_entry(send, pr, send_at[i]),
                               .recv = ts_parallel_entry(recv, pr, recv_at[i]),
                               .to = peer_rank(m[i].to), .from = peer_rank(m[i].from),
                               .count = size[i], .precision = pr};
    TS_BACKEND_CALL(b, peer_exchange, pd->peer, count, p);
    return 0;
  }
  if (sent) TS_BACKEND_CALL(b, vec_to_host, pr, sent, send, buffers->host_send);
  MPI_Request requests[2 * TS_MAX_PEER_MESSAGES];
  for (int i = 0; i < count; ++i) {
    TS_MPI_CALL("MPI_Irecv", MPI_Irecv(buffers->host_recv + recv_at[i], (int)size[i], MPI_DOUBLE,
                                       m[i].from, 0, pd->par->cart, &requests[2 * i]));
    TS_MPI_CALL("MPI_Isend", MPI_Isend(buffers->host_send + send_at[i], (int)size[i], MPI_DOUBLE,
                                       m[i].to, 0, pd->par->cart, &requests[2 * i + 1]));
  }
  TS_MPI_CALL("MPI_Waitall", MPI_Waitall(2 * count, requests, MPI_STATUSES_IGNORE));
  if (received) TS_BACKEND_CALL(b, vec_from_host, pr, received, buffers->host_recv, recv);
  return 0;
}

/* `count` planes of v packed into buf (pack) or unpacked from buf (NULL: zeros; add: added)
 * into v, one after the other in buf (of v's precision), TS_MAX_PLANES per backend call */
static int move_plane_list(ts_backend b, int count, const ts_plane *planes, int pack, int add,
                           void *buf, ts_vec v) {
  const ts_precision p = v->precision;
  for (int first = 0; first < count; first += TS_MAX_PLANES) {
    const int n = count - first < TS_MAX_PLANES ? count - first : TS_MAX_PLANES;
    if (pack) TS_BACKEND_CALL(b, vec_plane_pack, p, n, planes + first, v->data, buf);
    else TS_BACKEND_CALL(b, vec_plane_unpack, p, add, n, planes + first, buf, v->data);
    for (int i = 0; buf && i < n; ++i)
      buf = ts_parallel_entry(buf, p, planes[first + i].width * planes[first + i].height);
  }
  return 0;
}

/* the planes of the messages that go (send: to a process) or come (from one), in order, one
 * after the other in buf */
static int move_planes(ts_parallel_dofs pd, int count, const ts_parallel_message *m, int send,
                       int add, void *buf, ts_vec v) {
  ts_plane planes[TS_MAX_PEER_MESSAGES * TS_MAX_PLANES];
  int n = 0;
  for (int i = 0; i < count; ++i)
    for (int j = 0; (send ? m[i].to : m[i].from) != MPI_PROC_NULL && j < m[i].planes; ++j)
      planes[n++] = send ? m[i].send[j] : m[i].recv[j];
  return move_plane_list(pd->backend, n, planes, send, add, buf, v);
}

int ts_parallel_exchange(ts_parallel_dofs pd, int count, const ts_parallel_message *m, int add,
                         const ts_parallel_buffers *buffers, ts_vec v) {
  int64_t size[TS_MAX_PEER_MESSAGES], send_at[TS_MAX_PEER_MESSAGES],
      recv_at[TS_MAX_PEER_MESSAGES], sent = 0, received = 0;
  for (int i = 0; i < count; ++i) {
    size[i] = 0;
    for (int j = 0; j < m[i].planes; ++j) size[i] += m[i].send[j].width * m[i].send[j].height;
    send_at[i] = sent;
    recv_at[i] = received;
    if (m[i].to != MPI_PROC_NULL) sent += size[i];
    if (m[i].from != MPI_PROC_NULL) received += size[i];
  }
  TS_CALL(move_planes(pd, count, m, 1, 0, buffers->send->data, v));
  TS_CALL(send_packed(pd, v->precision, count, m, size, send_at, recv_at, sent, received,
                      buffers));
  return move_planes(pd, count, m, 0, add, buffers->recv->data, v);
}

/* direction d's stage: the planes on its interfaces packed, exchanged with the neighbours
 * there and added to v's */
static int exchange_direction(ts_parallel_dofs pd, ts_vec v, int d) {
  const ts_parallel par = pd->par;
  ts_parallel_message m[TS_MAX_PEER_MESSAGES];
  int count = 0;
  if (par->lower[d] != MPI_PROC_NULL) m[count++] = ts_parallel_message_both(par->lower[d], plane_of(pd, d, 0));
  if (par->upper[d] != MPI_PROC_NULL)
    m[count++] = ts_parallel_message_both(par->upper[d], plane_of(pd, d, pd->n[d] - 1));
  if (!count) return 0;
  return ts_parallel_exchange(pd, count, m, 1, &pd->buffers, v);
}

int ts_parallel_vec_sum_shared(ts_parallel_dofs pd, ts_vec v) {
  TS_CHECK_NOT_NULL(pd);
  TS_CALL(ts_parallel_check_vec(pd, v, __func__));
  const ts_parallel par = pd->par;
  if (par->size == 1) return 0;
  double start;
  TS_CALL(ts_parallel_time_start(pd, v, &start));
  for (int d = 0; d < par->dim; ++d) TS_CALL(exchange_direction(pd, v, d));
  return ts_parallel_time_stop(pd, TS_PARALLEL_TIME_HALO, v, start);
}

/* ---------------------------------------------------------------- sets of planes */

/* the planes of `set` on pd's block (of a Stokes block: its ghost slabs); their count */
static int plane_set(ts_parallel_dofs pd, ts_plane_set set, ts_plane *planes) {
  const ts_parallel par = pd->par;
  int count = 0;
  if (pd->stokes) {
    for (int i = 0; set == TS_PLANES_GHOST && i < pd->stokes->ghost_slabs; ++i)
      planes[count++] = pd->stokes->ghost[i];
    return count;
  }
  for (int d = 0; d < par->dim; ++d) {
    const int lower = par->lower[d] != MPI_PROC_NULL, upper = par->upper[d] != MPI_PROC_NULL;
    if (set == TS_PLANES_GHOST ? lower : !lower) planes[count++] = plane_of(pd, d, 0);
    if (set == TS_PLANES_DIRICHLET && !upper) planes[count++] = plane_of(pd, d, pd->n[d] - 1);
  }
  return count;
}

/* the slots of `set` in pd->saved for entries of precision p: TS_MAX_PLANES planes of the
 * block's largest size (a Stokes block: its ghost slabs one after the other) */
static void *saved_slots(ts_parallel_dofs pd, ts_plane_set set, ts_precision p) {
  return ts_parallel_entry(pd->saved->data, p, (int64_t)set * TS_MAX_PLANES * pd->plane);
}

/* the planes of `set` packed from v into buf (pack), or unpacked from buf (NULL: zeros) into
 * v; buf of v's precision */
static int move_set(ts_parallel_dofs pd, ts_plane_set set, int pack, void *buf, ts_vec v) {
  ts_plane planes[TS_PARALLEL_STOKES_SLABS];
  const int count = plane_set(pd, set, planes);
  return move_plane_list(pd->backend, count, planes, pack, 0, buf, v);
}

int ts_parallel_planes_clear(ts_parallel_dofs pd, ts_plane_set set, ts_vec v) {
  return move_set(pd, set, 0, NULL, v);
}

int ts_parallel_planes_save(ts_parallel_dofs pd, ts_plane_set set, ts_vec v) {
  return move_set(pd, set, 1, saved_slots(pd, set, v->precision), v);
}

/* every plane is saved before any is zeroed: planes that share an edge save its values */
int ts_parallel_planes_zero(ts_parallel_dofs pd, ts_plane_set set, ts_vec v) {
  TS_CALL(ts_parallel_planes_save(pd, set, v));
  return ts_parallel_planes_clear(pd, set, v);
}

int ts_parallel_planes_restore(ts_parallel_dofs pd, ts_plane_set set, ts_vec v) {
  return move_set(pd, set, 0, saved_slots(pd, set, v->precision), v);
}

/* ---------------------------------------------------------------- the buffers */

/* TESSERA_PEER=0 keeps the planes on the host path (to compare the two) */
static int peer_wanted(ts_backend b) {
  const char *env = getenv("TESSERA_PEER");
  const ts_backend_ops *o = &b->ops;
  return o->peer_device && o->peer_id && o->peer_create && o->peer_exchange && o->peer_destroy &&
         !(env && strcmp(env, "0") == 0);
}

/* every process's flag made their minimum */
static int all_of(ts_parallel par, int flag, int *all) {
  TS_MPI_CALL("MPI_Allreduce", MPI_Allreduce(&flag, all, 1, MPI_INT, MPI_MIN, par->cart));
  return 0;
}

/* 1 when every process named its device and no two processes of a host name the same one */
static int devices_distinct(ts_parallel par, ts_backend b, int *distinct) {
  enum { KEY = MPI_MAX_PROCESSOR_NAME + TS_PEER_DEVICE_SIZE + 2 };
  char mine[KEY] = "", device[TS_PEER_DEVICE_SIZE] = "", host[MPI_MAX_PROCESSOR_NAME] = "";
  int length = 0, named = b->ops.peer_device(&b->ops, device) == 0;
  TS_MPI_CALL("MPI_Get_processor_name", MPI_Get_processor_name(host, &length));
  snprintf(mine, sizeof mine, "%s/%.*s", host, TS_PEER_DEVICE_SIZE - 1, device);
  char *keys;
  TS_CALL(ts_calloc((size_t)par->size * KEY, 1, "device names", &keys));
  const int err = MPI_Allgather(mine, KEY, MPI_CHAR, keys, KEY, MPI_CHAR, par->cart);
  for (int r = 0; !err && named && r < par->size; ++r)
    if (r != par->rank && strcmp(keys + (size_t)r * KEY, mine) == 0) named = 0;
  ts_free(&keys);
  TS_MPI_CALL("MPI_Allgather", err);
  return all_of(par, named, distinct);
}

/* par's peer handle for pd's backend: made by every process at once when all of them can
 * (each on a device of its own; process 0's identifier broadcast), else none, and the
 * planes go through the host.  A backend that cannot (NCCL absent, processes sharing a
 * device) is not an error; the answer is kept for the split's later DoFs. */
static int acquire_peer(ts_parallel_dofs pd) {
  const ts_parallel par = pd->par;
  const ts_backend b = pd->backend;
  int all = 0;
  if (par->peer_users > 0) {
    if (par->peer_backend == b) {
      par->peer_users++;
      pd->peer = par->peer;
    }
    return 0;
  }
  if (par->peer_refused && par->peer_backend == b) return 0;
  par->peer_refused = 1;
  par->peer_backend = b;
  TS_CALL(all_of(par, par->size > 1 && peer_wanted(b), &all));
  if (all) TS_CALL(devices_distinct(par, b, &all));
  if (!all) return 0;
  unsigned char id[TS_PEER_ID_SIZE] = {0};
  int made = par->rank != 0 || b->ops.peer_id(&b->ops, id) == 0;
  TS_CALL(all_of(par, made, &all));
  if (!all) return 0;
  TS_MPI_CALL("MPI_Bcast", MPI_Bcast(id, TS_PEER_ID_SIZE, MPI_UNSIGNED_CHAR, 0, par->cart));
  void *peer = NULL;
  made = b->ops.peer_create(&b->ops, par->size, par->rank, id, &peer) == 0;
  TS_CALL(all_of(par, made, &all));
  if (!all) {
    if (peer) b->ops.peer_destroy(&b->ops, peer);
    return 0;
  }
  par->peer_refused = 0;
  par->peer = pd->peer = peer;
  par->peer_backend = b;
  par->peer_users = 1;
  return 0;
}

static int host_buffer(ts_backend b, size_t count, const char *what, double **h) {
  if (!b->ops.host_alloc) return ts_calloc(count, sizeof **h, what, h);
  TS_BACKEND_CALL(b, host_alloc, count * sizeof **h, (void **)h);
  return 0;
}

static void free_host_buffer(ts_backend b, double **h) {
  if (*h && b->ops.host_alloc) b->ops.host_free(&b->ops, *h);
  else ts_free(h);
  *h = NULL;
}

int ts_parallel_buffers_create(ts_backend b, int64_t count, ts_parallel_buffers *buffers) {
  TS_CALL(host_buffer(b, (size_t)count, "halo send buffer", &buffers->host_send));
  TS_CALL(host_buffer(b, (size_t)count, "halo receive buffer", &buffers->host_recv));
  TS_CALL(ts_vec_create(b, count, TS_DOUBLE, &buffers->send));
  TS_CALL(ts_vec_create(b, count, TS_DOUBLE, &buffers->recv));
  return 0;
}

void ts_parallel_buffers_destroy(ts_backend b, ts_parallel_buffers *buffers) {
  free_host_buffer(b, &buffers->host_send);
  free_host_buffer(b, &buffers->host_recv);
  ts_vec_destroy(&buffers->send);
  ts_vec_destroy(&buffers->recv);
}

int ts_parallel_halo_create_sized(ts_parallel_dofs pd, int64_t buffer, int64_t saved) {
  TS_CALL(ts_parallel_buffers_create(pd->backend, buffer, &pd->buffers));
  TS_CALL(ts_vec_create(pd->backend, saved, TS_DOUBLE, &pd->saved));
  return acquire_peer(pd);
}

int ts_parallel_halo_create(ts_parallel_dofs pd, size_t plane) {
  pd->plane = (int64_t)plane;
  return ts_parallel_halo_create_sized(pd, (int64_t)plane * TS_MAX_PEER_MESSAGES,
                                       (int64_t)plane * TS_MAX_PLANES * TS_PLANE_SETS);
}

void ts_parallel_halo_destroy(ts_parallel_dofs pd) {
  const ts_backend b = pd->backend;
  const ts_parallel par = pd->par;
  ts_parallel_buffers_destroy(b, &pd->buffers);
  ts_vec_destroy(&pd->saved);
  if (pd->peer && --par->peer_users == 0) {
    b->ops.peer_destroy(&b->ops, par->peer);
    par->peer = NULL;
  }
  pd->peer = NULL;
}

int ts_parallel_dofs_device_messages(ts_parallel_dofs pd) {
  TS_GETTER_NOT_NULL(pd, -1);
  return pd->peer != NULL;
}
