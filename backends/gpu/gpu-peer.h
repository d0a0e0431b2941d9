/* gpu-peer.h -- device-to-device messages between the processes of an MPI run (backend ABI 18,
 * the peer_* members), through NCCL.  NCCL is loaded when a run first asks for it (dlopen),
 * so the module needs NCCL neither to be built (only its header, which the CUDA toolkit
 * ships) nor to be loaded: without the library peer_id reports TS_ERR_UNSUPPORTED and
 * lib/parallel stages the halo planes through the host.  TESSERA_NCCL_LIBRARY names the
 * library file when it is not on the loader's path (e.g. the one a Python wheel brings).
 * Messages are stream-ordered with the backend's kernels (on the halo exchange's blocking
 * stream, gpu_comm_stream, ordered with the default stream): a halo exchange waits for
 * nothing on the host.  CUDA only: HIP's RCCL has the same interface but
 * is not wired (the hip backend stages through the host). */
#ifndef TESSERA_GPU_PEER_H
#define TESSERA_GPU_PEER_H

#if !defined(TS_GPU_HIP) && defined(__has_include)
#if __has_include(<nccl.h>)
#define TS_GPU_PEER 1
#endif
#endif

#ifdef TS_GPU_PEER
#include <dlfcn.h>
#include <nccl.h>

/* the NCCL functions the halo needs, resolved once */
typedef struct ts_gpu_nccl {
  void *library;
  ncclResult_t (*get_unique_id)(ncclUniqueId *);
  ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*comm_destroy)(ncclComm_t);
  ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  const char *(*get_error_string)(ncclResult_t);
} ts_gpu_nccl;

static ts_gpu_nccl ts_gpu_nccl_table;

#define TS_NCCL_CHECK(err, what, call)                                                      \
  do {                                                                                      \
    const ncclResult_t nccl_r_ = (call);                                                    \
    if (nccl_r_ != ncclSuccess) {                                                           \
      snprintf((err), TS_BACKEND_ERROR_SIZE, "cuda: %s: %s failed: %s", (what), #call,      \
               ts_gpu_nccl_table.get_error_string(nccl_r_));                                \
      return TS_ERR_BACKEND;                                                                \
    }                                                                                       \
  } while (0)

/* dlsym of `name` into *fn; the name of the first missing symbol into *missing */
static void ts_gpu_nccl_symbol(void *library, const char *name, void **fn, const char **missing) {
  *fn = dlsym(library, name);
  if (!*fn && !*missing) *missing = name;
}

/* Load NCCL once (TESSERA_NCCL_LIBRARY or libnccl.so.2); TS_ERR_UNSUPPORTED if it is absent. */
static int ts_gpu_nccl_load(char *err) {
  ts_gpu_nccl *t = &ts_gpu_nccl_table;
  if (t->library) return 0;
  const char *env = getenv("TESSERA_NCCL_LIBRARY");
  const char *file = env && *env ? env : "libnccl.so.2";
  void *library = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(err, TS_BACKEND_ERROR_SIZE,
             "cuda: NCCL not loaded (%s); TESSERA_NCCL_LIBRARY may name the library file",
             dlerror());
    return TS_ERR_UNSUPPORTED;
  }
  const char *missing = NULL;
  ts_gpu_nccl_symbol(library, "ncclGetUniqueId", (void **)&t->get_unique_id, &missing);
  ts_gpu_nccl_symbol(library, "ncclCommInitRank", (void **)&t->comm_init_rank, &missing);
  ts_gpu_nccl_symbol(library, "ncclCommDestroy", (void **)&t->comm_destroy, &missing);
  ts_gpu_nccl_symbol(library, "ncclSend", (void **)&t->send, &missing);
  ts_gpu_nccl_symbol(library, "ncclRecv", (void **)&t->recv, &missing);
  ts_gpu_nccl_symbol(library, "ncclGroupStart", (void **)&t->group_start, &missing);
  ts_gpu_nccl_symbol(library, "ncclGroupEnd", (void **)&t->group_end, &missing);
  ts_gpu_nccl_symbol(library, "ncclGetErrorString", (void **)&t->get_error_string, &missing);
  if (missing) {
    snprintf(err, TS_BACKEND_ERROR_SIZE, "cuda: %s has no %s (NCCL 2.7 or later is needed)", file,
             missing);
    dlclose(library);
    return TS_ERR_UNSUPPORTED;
  }
  t->library = library;
  return 0;
}

/* the device's PCI bus id, unique on its host */
static int ts_gpu_peer_device(ts_backend_ops *ops, char *key) {
  int device = 0;
  GPU_CHECK(ops->error, "peer_device", cudaGetDevice(&device));
  GPU_CHECK(ops->error, "peer_device", cudaDeviceGetPCIBusId(key, TS_PEER_DEVICE_SIZE, device));
  return 0;
}

static int ts_gpu_peer_id(ts_backend_ops *ops, void *id) {
  const int ierr = ts_gpu_nccl_load(ops->error);
  if (ierr) return ierr;
  ncclUniqueId unique;
  static_assert(sizeof unique == TS_PEER_ID_SIZE, "NCCL's unique id is TS_PEER_ID_SIZE bytes");
  TS_NCCL_CHECK(ops->error, "peer_id", ts_gpu_nccl_table.get_unique_id(&unique));
  memcpy(id, &unique, sizeof unique);
  return 0;
}

/* one NCCL communicator over the run's processes, on this process's device (gpu_start chose
 * it); the library asks only when no two processes share a device (NCCL detects that only on
 * the processes that share one, and the others wait for them for ever) */
static int ts_gpu_peer_create(ts_backend_ops *ops, int size, int rank, const void *id,
                              void **peer) {
  *peer = NULL;
  const int ierr = ts_gpu_nccl_load(ops->error);
  if (ierr) return ierr;
  ncclUniqueId unique;
  memcpy(&unique, id, sizeof unique);
  ncclComm_t comm;
  TS_NCCL_CHECK(ops->error, "peer_create", ts_gpu_nccl_table.comm_init_rank(&comm, size, unique, rank));
  *peer = comm;
  return 0;
}

/* every message's send and receive as one group, so that neighbours sending to each other do
 * not wait for one another (ABI 18: both neighbours of a direction at once) */
static int ts_gpu_peer_exchange(ts_backend_ops *ops, cudaStream_t stream, void *peer, int count,
                                const ts_peer_message *messages) {
  const ts_gpu_nccl *t = &ts_gpu_nccl_table;
  if (count <= 0) return 0;
  const ncclComm_t comm = (ncclComm_t)peer;
  TS_NCCL_CHECK(ops->error, "peer_exchange", t->group_start());
  ncclResult_t r = ncclSuccess;
  for (int i = 0; i < count && r == ncclSuccess; ++i) {
    const ts_peer_message *m = &messages[i];
    if (m->count <= 0) continue;
    const ncclDataType_t type = m->precision == TS_SINGLE ? ncclFloat32 : ncclFloat64;
    if (m->to >= 0) r = t->send(m->send, (size_t)m->count, type, m->to, comm, stream);
    if (r == ncclSuccess && m->from >= 0)
      r = t->recv(m->recv, (size_t)m->count, type, m->from, comm, stream);
  }
  const ncclResult_t end = t->group_end();
  TS_NCCL_CHECK(ops->error, "peer_exchange", r);
  TS_NCCL_CHECK(ops->error, "peer_exchange", end);
  GPU_CHECK_LAUNCH(ops->error, "peer_exchange");
  return 0;
}

static int ts_gpu_peer_destroy(ts_backend_ops *ops, void *peer) {
  if (peer) TS_NCCL_CHECK(ops->error, "peer_destroy", ts_gpu_nccl_table.comm_destroy((ncclComm_t)peer));
  return 0;
}
#endif
#endif
