/* gpu-backend.h -- the GPU backend's runtime glue, written once for CUDA and HIP: start
 * (find the device), describe, device memory, the vector operations, the ceilings
 * measurement and the registration of the backend table.  backends/cuda/cuda.cu includes
 * it as is; backends/hip/hip.cpp defines TS_GPU_HIP first.  The Laplacian kernels are in
 * gpu-laplace.h, the vertex-patch smoother in gpu-patch.h, the Stokes operator in gpu-stokes.h,
 * the multi-field transfer in gpu-field-transfer.h, the Stokes vertex-patch smoother in
 * gpu-stokes-patch.h, the operator on mapped cells in gpu-mapped.h, the additive vertex-patch
 * pass of mapped levels in gpu-patch-additive.h (instantiated in their own translation units).
 *
 * Extension point: a new kernel family (smoother, transfer, ...) goes into its own header
 * gpu-<family>.h with templated entry points, gets translation units in backends/cuda and
 * backends/hip (like laplace-double.cu), a declaration below, a wrapper gpu_<family>() and
 * one line in tessera_backend_register. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu-runtime.h"
#include "gpu-vec.h"
#include "gpu-ceilings.h"
#include "gpu-patch-cache.h"
#include "gpu-stokes-work.h"
#include "gpu-peer.h"

/* the CSR sparse matrix (gpu-csr.h, compiled in csr): copy the plan's arrays to the device
 * once (the values in precision p) and prepare the sparse library's descriptors and work
 * buffer of y = A x (*handle NULL on failure); y = A x (add = 1: y += A x) on device vectors
 * of the handle's precision; free a handle (NULL allowed; the first failing call is
 * reported). */
int ts_gpu_csr_create(const ts_csr_plan *plan, ts_precision p, void **handle, char *err);
int ts_gpu_csr_apply(void *handle, const void *x, void *y, int add, char *err);
int ts_gpu_csr_destroy(void *handle, char *err);
/* C = A B of two host CSR matrices by the sparse library's SpGEMM (gpu-csr.h): C's host
 * arrays allocated with malloc, rows sorted (ts_csr_product) */
int ts_gpu_csr_multiply(const ts_csr_plan *A, const ts_csr_plan *B, ts_csr_product *C, char *err);

/* the Laplacian entry points (gpu-laplace.h, instantiated in laplace-{double,float}) */
template <typename R>
int ts_gpu_laplace_apply(const ts_laplace_plan *pl, const int64_t *lo, const int64_t *hi,
                         const R *x, R *y, int add, gpuStream_t stream, char *err);
template <typename R>
int ts_gpu_laplace_diagonal(const ts_laplace_plan *pl, R *d, char *err);
/* the multigrid transfer entry point (gpu-transfer.h, instantiated in transfer-{double,float}) */
template <typename R>
int ts_gpu_transfer(const ts_transfer_plan *pl, int restrict_, const R *in, R *out, int add,
                    char *err);
/* the vertex-patch smoother (gpu-patch.h, instantiated in patch-{double,float}) */
template <typename R>
int ts_gpu_patch_smooth(ts_gpu_patch_cache *cache, const ts_patch_plan *pl, const R *b, R *x,
                        R *r, char *err);

/* the Stokes operator (gpu-stokes.h, instantiated in stokes-{double,float}) */
template <typename R>
int ts_gpu_stokes_apply(ts_gpu_stokes_work *work, const ts_stokes_plan *pl, const R *x, R *y,
                        int add, char *err);
/* the Stokes vertex-patch smoother (gpu-stokes-patch.h, instantiated in stokes-patch-{double,float}) */
template <typename R>
int ts_gpu_stokes_patch_smooth(ts_gpu_patch_cache *cache, const ts_stokes_patch_plan *pl,
                               const R *b, R *x, R *r, char *err);
/* the operator on mapped cells (gpu-mapped.h, instantiated in mapped-{double,float}) */
template <typename R>
int ts_gpu_mapped_apply(const ts_mapped_plan *pl, const R *x, R *y, int add, char *err);
/* the L2 mass and its inverse (gpu-mass-inverse.h, instantiated in mass-inverse-double) */
int ts_gpu_l2_mass_apply_double(const ts_l2_mass_plan *pl, const double *x, double *y, char *err);
/* the H(div) mass (gpu-hdiv-mass.h, instantiated in hdiv-mass-double) */
int ts_gpu_hdiv_mass_apply_double(const ts_hdiv_mass_plan *pl, const double *x, double *y, int add,
                                  char *err);
/* the additive vertex-patch pass (gpu-patch-additive.h, instantiated in patch-additive-{double,float}) */
template <typename R>
int ts_gpu_patch_additive(const ts_patch_additive_plan *pl, const R *r, R *y, char *err);
/* the Vanka pass of Taylor-Hood (gpu-vanka.h, instantiated in vanka) */
template <typename R>
int ts_gpu_vanka_apply(const ts_vanka_plan *pl, const R *r, R *y, char *err);
/* Kronecker products of banded 1D matrices (gpu-kronecker.h, instantiated in kronecker) */
template <typename R>
int ts_gpu_kronecker_apply(const ts_kronecker_plan *pl, const R *x, R *y, int add, char *err);
/* the multi-field transfer (gpu-field-transfer.h, instantiated in field-transfer-{double,float}) */
template <typename R>
int ts_gpu_field_transfer(const ts_field_transfer_plan *pl, int restrict_, const R *in, R *out,
                          int add, char *err);

int ts_gpu_sync_launches(void) {
  static int cached = -1;
  if (cached < 0) {
    const char *s = getenv("TESSERA_GPU_SYNC");
    cached = s && *s && strcmp(s, "0") != 0;
  }
  return cached;
}

/* The backend's state. */
typedef struct gpu_state {
  int device;
  gpuDeviceProp prop;
  double *partial; /* TS_GPU_DOT_BLOCKS + 1 doubles for the dot product */
  ts_gpu_patch_cache patch_cache; /* device copies of the patch plans' matrices */
  ts_gpu_stokes_work stokes_work; /* the Stokes operator's t = Mc_I z */
  ts_gpu_patch_cache stokes_patch_cache; /* device copies of the Stokes patch plans' matrices */
  /* ABI 20, made by the first laplace_apply_cells on the side queue (gpu_streams):
   *  - side: a non-blocking stream of the lowest priority, for the work that runs while the
   *    halo exchange travels (it does not wait for the default stream, nor it for side);
   *  - comm: a blocking stream of the highest priority for the planes' kernels and NCCL's
   *    messages, so that their blocks are scheduled before the side work's waiting ones;
   *    being blocking it is ordered with the default stream as the default stream itself is;
   *  - forked, joined: events of the default stream and of side. */
  gpuStream_t side, comm;
  gpuEvent_t forked, joined;
  int streams;
} gpu_state;

/* the stream of the halo exchange's kernels and messages: comm once made, else the default */
static gpuStream_t gpu_comm_stream(ts_backend_ops *ops) {
  const gpu_state *s = (const gpu_state *)ops->data;
  return s && s->streams ? s->comm : 0;
}

static int gpu_streams(ts_backend_ops *ops, gpu_state *s) {
  if (s->streams) return 0;
  int least = 0, greatest = 0;
  GPU_CHECK(ops->error, "streams", gpuDeviceGetStreamPriorityRange(&least, &greatest));
  GPU_CHECK(ops->error, "streams", gpuStreamCreateWithPriority(&s->side, gpuStreamNonBlocking, least));
  GPU_CHECK(ops->error, "streams", gpuStreamCreateWithPriority(&s->comm, gpuStreamDefault, greatest));
  GPU_CHECK(ops->error, "streams", gpuEventCreateWithFlags(&s->forked, gpuEventDisableTiming));
  GPU_CHECK(ops->error, "streams", gpuEventCreateWithFlags(&s->joined, gpuEventDisableTiming));
  s->streams = 1;
  return 0;
}

/* Select the device and allocate the state's device buffers. */
static int gpu_start(ts_backend_ops *ops, gpu_state *s, int count) {
  /* TESSERA_GPU_DEVICE picks the device; without it, a process of an MPI run (the tessera
   * CLI sets TESSERA_GPU_NODE_RANK to its rank among its node's processes) takes the devices
   * of its node in turn, several processes sharing one where there are more of them than
   * devices; else device 0 */
  const char *dev = getenv("TESSERA_GPU_DEVICE"), *node_rank = getenv("TESSERA_GPU_NODE_RANK");
  if (dev && *dev) s->device = atoi(dev);
  else if (node_rank && *node_rank) s->device = abs(atoi(node_rank)) % count;
  else s->device = 0;
  if (s->device < 0 || s->device >= count) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE,
             "TESSERA_GPU_DEVICE = %s, but the devices are 0..%d", dev, count - 1);
    return TS_ERR_BACKEND;
  }
  GPU_CHECK(ops->error, "start", gpuSetDevice(s->device));
  GPU_CHECK(ops->error, "start", gpuGetDeviceProperties(&s->prop, s->device));
  GPU_CHECK(ops->error, "start (reduction buffer)",
            gpuMalloc((void **)&s->partial, (TS_GPU_DOT_BLOCKS + 1) * sizeof(double)));
  return 0;
}

static int gpu_init(ts_backend_ops *ops) {
  int count = 0;
  gpuError_t e = gpuGetDeviceCount(&count);
  if (e != gpuSuccess || count < 1) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "no %s device (%sGetDeviceCount: %s)",
             TS_GPU_RUNTIME, TS_GPU_NAME,
             e != gpuSuccess ? gpuGetErrorString(e) : "0 devices");
    return TS_ERR_BACKEND;
  }
  gpu_state *s = (gpu_state *)calloc(1, sizeof *s);
  if (!s) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "out of host memory for the backend state");
    return TS_ERR_MEMORY;
  }
  const int rc = gpu_start(ops, s, count);
  if (rc) {
    free(s);
    return rc;
  }
  ops->data = s;
  return 0;
}

static int gpu_finalize(ts_backend_ops *ops) {
  gpu_state *s = (gpu_state *)ops->data;
  if (!s) return 0;
  if (s->partial) (void)gpuFree(s->partial);
  ts_gpu_patch_cache_free(&s->patch_cache);
  ts_gpu_patch_cache_free(&s->stokes_patch_cache);
  if (s->stokes_work.ptr) (void)gpuFree(s->stokes_work.ptr);
  s->stokes_work.ptr = NULL;
  s->stokes_work.bytes = 0;
  if (s->streams) {
    (void)gpuStreamDestroy(s->side);
    (void)gpuStreamDestroy(s->comm);
    (void)gpuEventDestroy(s->forked);
    (void)gpuEventDestroy(s->joined);
  }
  free(s);
  ops->data = NULL;
  return 0;
}

static int gpu_describe(ts_backend_ops *ops, char *buf, size_t len) {
  gpu_state *s = (gpu_state *)ops->data;
  int rt = 0, drv = 0;
  (void)gpuRuntimeGetVersion(&rt);
  (void)gpuDriverGetVersion(&drv);
  snprintf(buf, len, "%s device %d: %s, %.1f GiB, compute capability %d.%d, %d SMs, "
           "runtime %d, driver %d", TS_GPU_RUNTIME, s->device, s->prop.name,
           (double)s->prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), s->prop.major,
           s->prop.minor, s->prop.multiProcessorCount, rt, drv);
  return 0;
}

static int gpu_mem_alloc(ts_backend_ops *ops, size_t bytes, void **ptr) {
  *ptr = NULL;
  gpuError_t e = gpuMalloc(ptr, bytes ? bytes : 1);
  if (e != gpuSuccess) {
    size_t fr = 0, tot = 0;
    (void)gpuGetLastError(); /* clear the error */
    (void)gpuMemGetInfo(&fr, &tot);
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE,
             "could not allocate %zu bytes of device memory (%s; %zu of %zu bytes free)", bytes,
             gpuGetErrorString(e), fr, tot);
    *ptr = NULL;
    return TS_ERR_MEMORY;
  }
  return 0;
}

static int gpu_mem_free(ts_backend_ops *ops, void *ptr) {
  if (ptr) GPU_CHECK(ops->error, "mem_free", gpuFree(ptr));
  return 0;
}

static int gpu_mem_available(ts_backend_ops *ops, size_t *bytes) {
  size_t fr = 0, tot = 0;
  GPU_CHECK(ops->error, "mem_available", gpuMemGetInfo(&fr, &tot));
  *bytes = fr;
  return 0;
}

static size_t gpu_size(ts_precision p) { return p == TS_SINGLE ? sizeof(float) : sizeof(double); }

static int gpu_vec_from_host(ts_backend_ops *ops, ts_precision p, int64_t n, const double *h,
                             void *x) {
  if (n <= 0) return 0;
  if (p == TS_DOUBLE) {
    GPU_CHECK(ops->error, "vec_from_host", gpuMemcpy(x, h, (size_t)n * sizeof(double), gpuMemcpyHostToDevice));
    return 0;
  }
  float *tmp = (float *)malloc((size_t)n * sizeof(float));
  if (!tmp) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "vec_from_host: out of host memory (%lld floats)",
             (long long)n);
    return TS_ERR_MEMORY;
  }
  for (int64_t i = 0; i < n; ++i) tmp[i] = (float)h[i];
  gpuError_t e = gpuMemcpy(x, tmp, (size_t)n * sizeof(float), gpuMemcpyHostToDevice);
  free(tmp);
  GPU_CHECK(ops->error, "vec_from_host", e);
  return 0;
}

/* planes of a vector (ABI 17), packed and unpacked on the device, all in one launch */
static int gpu_planes(ts_backend_ops *ops, int count, const ts_plane *planes, ts_gpu_planes *q) {
  if (count < 1 || count > TS_MAX_PLANES) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "%s: %d planes, allowed 1..%d", TS_GPU_NAME, count,
             TS_MAX_PLANES);
    return TS_ERR_ARG;
  }
  q->count = count;
  q->start[0] = 0;
  for (int p = 0; p < count; ++p) {
    q->plane[p] = planes[p];
    q->start[p + 1] = q->start[p] + planes[p].width * planes[p].height;
  }
  return 0;
}

static int gpu_vec_plane_pack(ts_backend_ops *ops, ts_precision p, int count,
                              const ts_plane *planes, const void *x, void *buf) {
  ts_gpu_planes q;
  const int ierr = gpu_planes(ops, count, planes, &q);
  if (ierr || q.start[count] <= 0) return ierr;
  if (p == TS_SINGLE)
    ts_gpu_plane_pack_kernel<<<ts_gpu_blocks(q.start[count]), TS_GPU_VEC_THREADS, 0,
                               gpu_comm_stream(ops)>>>(q, (const float *)x, (float *)buf);
  else
    ts_gpu_plane_pack_kernel<<<ts_gpu_blocks(q.start[count]), TS_GPU_VEC_THREADS, 0,
                               gpu_comm_stream(ops)>>>(q, (const double *)x, (double *)buf);
  GPU_CHECK_LAUNCH(ops->error, "plane_pack");
  return 0;
}

static int gpu_vec_plane_unpack(ts_backend_ops *ops, ts_precision p, int add, int count,
                                const ts_plane *planes, const void *buf, void *x) {
  ts_gpu_planes q;
  const int ierr = gpu_planes(ops, count, planes, &q);
  if (ierr || q.start[count] <= 0) return ierr;
  if (p == TS_SINGLE)
    ts_gpu_plane_unpack_kernel<<<ts_gpu_blocks(q.start[count]), TS_GPU_VEC_THREADS, 0,
                                 gpu_comm_stream(ops)>>>(q, add, (const float *)buf, (float *)x);
  else
    ts_gpu_plane_unpack_kernel<<<ts_gpu_blocks(q.start[count]), TS_GPU_VEC_THREADS, 0,
                                 gpu_comm_stream(ops)>>>(q, add, (const double *)buf, (double *)x);
  GPU_CHECK_LAUNCH(ops->error, "plane_unpack");
  return 0;
}

/* page-locked host memory (ABI 17): copies to and from it run at the bus's speed */
static int gpu_host_alloc(ts_backend_ops *ops, size_t bytes, void **h) {
  *h = NULL;
  GPU_CHECK(ops->error, "host_alloc", gpuHostAlloc(h, bytes > 0 ? bytes : 1));
  return 0;
}

static int gpu_host_free(ts_backend_ops *ops, void *h) {
  if (h) GPU_CHECK(ops->error, "host_free", gpuFreeHost(h));
  return 0;
}

static int gpu_vec_to_host(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                           double *h) {
  if (n <= 0) return 0;
  if (p == TS_DOUBLE) {
    GPU_CHECK(ops->error, "vec_to_host", gpuMemcpy(h, x, (size_t)n * sizeof(double), gpuMemcpyDeviceToHost));
    return 0;
  }
  float *tmp = (float *)malloc((size_t)n * sizeof(float));
  if (!tmp) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "vec_to_host: out of host memory (%lld floats)",
             (long long)n);
    return TS_ERR_MEMORY;
  }
  gpuError_t e = gpuMemcpy(tmp, x, (size_t)n * sizeof(float), gpuMemcpyDeviceToHost);
  if (e == gpuSuccess)
    for (int64_t i = 0; i < n; ++i) h[i] = (double)tmp[i];
  free(tmp);
  GPU_CHECK(ops->error, "vec_to_host", e);
  return 0;
}

static int gpu_vec_set(ts_backend_ops *ops, ts_precision p, int64_t n, double alpha, void *x) {
  if (p == TS_SINGLE) {
    if (n <= 0) return 0;
    ts_gpu_vec_set_kernel<float><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(n, alpha, (float *)x);
  } else {
    if (n <= 0) return 0;
    ts_gpu_vec_set_kernel<double><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(n, alpha, (double *)x);
  }
  GPU_CHECK_LAUNCH(ops->error, "ts_gpu_vec_set_kernel");
  return 0;
}

static int gpu_vec_random(ts_backend_ops *ops, ts_precision p, int64_t n, uint64_t seed, void *x) {
  if (n <= 0) return 0;
  if (p == TS_SINGLE)
    ts_gpu_vec_random_kernel<float><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(n, seed, (float *)x);
  else
    ts_gpu_vec_random_kernel<double><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(n, seed, (double *)x);
  GPU_CHECK_LAUNCH(ops->error, "ts_gpu_vec_random_kernel");
  return 0;
}

static int gpu_vec_convert(ts_backend_ops *ops, int64_t n, ts_precision px, const void *x,
                           ts_precision py, void *y) {
  if (n <= 0) return 0;
  if (px == py) {
    if (x != y)
      GPU_CHECK(ops->error, "vec_convert (copy)",
                gpuMemcpy(y, x, (size_t)n * gpu_size(px), gpuMemcpyDeviceToDevice));
    return 0;
  }
  if (px == TS_DOUBLE)
    ts_gpu_vec_convert_kernel<double, float><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(
        n, (const double *)x, (float *)y);
  else
    ts_gpu_vec_convert_kernel<float, double><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(
        n, (const float *)x, (double *)y);
  GPU_CHECK_LAUNCH(ops->error, "ts_gpu_vec_convert_kernel");
  return 0;
}

static int gpu_vec_axpby(ts_backend_ops *ops, ts_precision p, int64_t n, double alpha,
                         const void *x, double beta, void *y) {
  if (n <= 0) return 0;
  if (p == TS_SINGLE)
    ts_gpu_vec_axpby_kernel<float><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(
        n, alpha, (const float *)x, beta, (float *)y);
  else
    ts_gpu_vec_axpby_kernel<double><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(
        n, alpha, (const double *)x, beta, (double *)y);
  GPU_CHECK_LAUNCH(ops->error, "ts_gpu_vec_axpby_kernel");
  return 0;
}

static int gpu_vec_pointwise_mult(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                                  const void *y, void *w) {
  if (n <= 0) return 0;
  if (p == TS_SINGLE)
    ts_gpu_vec_pointwise_mult_kernel<float><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(
        n, (const float *)x, (const float *)y, (float *)w);
  else
    ts_gpu_vec_pointwise_mult_kernel<double><<<ts_gpu_blocks(n), TS_GPU_VEC_THREADS>>>(
        n, (const double *)x, (const double *)y, (double *)w);
  GPU_CHECK_LAUNCH(ops->error, "ts_gpu_vec_pointwise_mult_kernel");
  return 0;
}

/* The factors go to the device in one temporary buffer (setup work: a few thousand values),
 * staged on the host so that one copy carries them. */
static int gpu_vec_tensor(ts_backend_ops *ops, ts_precision p, int dim, const int64_t *n,
                          const double *const *factors, void *x) {
  const int64_t n2 = dim == 3 ? n[2] : 1, total = n[0] * n[1] * n2, length = n[0] + n[1] + n2;
  if (total <= 0) return 0;
  double *host = (double *)malloc((size_t)length * sizeof(double)), *f = NULL;
  if (!host) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "%s vec_tensor: no host memory for %lld factor values",
             TS_GPU_NAME, (long long)length);
    return TS_ERR_MEMORY;
  }
  memcpy(host, factors[0], (size_t)n[0] * sizeof(double));
  memcpy(host + n[0], factors[1], (size_t)n[1] * sizeof(double));
  if (dim == 3) memcpy(host + n[0] + n[1], factors[2], (size_t)n2 * sizeof(double));
  else host[n[0] + n[1]] = 1.0;
  gpuError_t e = gpuMalloc((void **)&f, (size_t)length * sizeof(double));
  if (e == gpuSuccess)
    e = gpuMemcpy(f, host, (size_t)length * sizeof(double), gpuMemcpyHostToDevice);
  free(host);
  if (e == gpuSuccess) {
    if (p == TS_SINGLE)
      ts_gpu_vec_tensor_kernel<float><<<ts_gpu_blocks(total), TS_GPU_VEC_THREADS>>>(
          n[0], n[1], n2, f, (float *)x);
    else
      ts_gpu_vec_tensor_kernel<double><<<ts_gpu_blocks(total), TS_GPU_VEC_THREADS>>>(
          n[0], n[1], n2, f, (double *)x);
    e = gpuGetLastError();
  }
  const gpuError_t freed = f ? gpuFree(f) : gpuSuccess; /* gpuFree waits for the kernel */
  if (e == gpuSuccess) e = freed;
  if (e != gpuSuccess) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "%s vec_tensor: %s", TS_GPU_NAME,
             gpuGetErrorString(e));
    return TS_ERR_BACKEND;
  }
  return 0;
}

static int gpu_vec_dot(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                       const void *y, double *result) {
  gpu_state *s = (gpu_state *)ops->data;
  *result = 0.0;
  if (n <= 0) return 0;
  unsigned blocks = ts_gpu_blocks(n);
  if (blocks > TS_GPU_DOT_BLOCKS) blocks = TS_GPU_DOT_BLOCKS;
  if (p == TS_SINGLE)
    ts_gpu_vec_dot_kernel<float><<<blocks, TS_GPU_VEC_THREADS>>>(n, (const float *)x,
                                                                 (const float *)y, s->partial);
  else
    ts_gpu_vec_dot_kernel<double><<<blocks, TS_GPU_VEC_THREADS>>>(n, (const double *)x,
                                                                  (const double *)y, s->partial);
  GPU_CHECK_LAUNCH(ops->error, "ts_gpu_vec_dot_kernel");
  ts_gpu_sum_partials_kernel<<<1, TS_GPU_VEC_THREADS>>>((int)blocks, s->partial);
  GPU_CHECK_LAUNCH(ops->error, "ts_gpu_sum_partials_kernel");
  GPU_CHECK(ops->error, "vec_dot (result)",
            gpuMemcpy(result, s->partial + TS_GPU_DOT_BLOCKS, sizeof(double), gpuMemcpyDeviceToHost));
  return 0;
}

static int gpu_laplace_launch(ts_backend_ops *ops, const ts_laplace_plan *plan, ts_precision p,
                              const int64_t *lo, const int64_t *hi, const void *x, void *y,
                              int add, gpuStream_t stream) {
  if (p == TS_SINGLE)
    return ts_gpu_laplace_apply<float>(plan, lo, hi, (const float *)x, (float *)y, add, stream,
                                       ops->error);
  return ts_gpu_laplace_apply<double>(plan, lo, hi, (const double *)x, (double *)y, add, stream,
                                      ops->error);
}

static int gpu_laplace_apply(ts_backend_ops *ops, const ts_laplace_plan *plan, ts_precision p,
                             const void *x, void *y, int add) {
  return gpu_laplace_launch(ops, plan, p, NULL, NULL, x, y, add, 0);
}

/* ABI 20: on the side stream behind the default stream's work so far (the event forked) */
static int gpu_laplace_apply_cells(ts_backend_ops *ops, const ts_laplace_plan *plan,
                                   ts_precision p, const int64_t *lo, const int64_t *hi,
                                   const void *x, void *y, int side) {
  gpu_state *s = (gpu_state *)ops->data;
  if (!side) return gpu_laplace_launch(ops, plan, p, lo, hi, x, y, 1, 0);
  const int ierr = gpu_streams(ops, s);
  if (ierr) return ierr;
  GPU_CHECK(ops->error, "laplace_apply_cells", gpuEventRecord(s->forked, 0));
  GPU_CHECK(ops->error, "laplace_apply_cells", gpuStreamWaitEvent(s->side, s->forked, 0));
  return gpu_laplace_launch(ops, plan, p, lo, hi, x, y, 1, s->side);
}

/* the later work of the default stream and of comm waits for the side stream's (comm, being
 * blocking, would wait through the default stream too; said explicitly) */
static int gpu_side_join(ts_backend_ops *ops) {
  gpu_state *s = (gpu_state *)ops->data;
  if (!s->streams) return 0;
  GPU_CHECK(ops->error, "side_join", gpuEventRecord(s->joined, s->side));
  GPU_CHECK(ops->error, "side_join", gpuStreamWaitEvent(0, s->joined, 0));
  GPU_CHECK(ops->error, "side_join", gpuStreamWaitEvent(s->comm, s->joined, 0));
  return 0;
}

static int gpu_mapped_apply(ts_backend_ops *ops, const ts_mapped_plan *plan, ts_precision p,
                            const void *x, void *y, int add) {
  if (p == TS_SINGLE)
    return ts_gpu_mapped_apply<float>(plan, (const float *)x, (float *)y, add, ops->error);
  return ts_gpu_mapped_apply<double>(plan, (const double *)x, (double *)y, add, ops->error);
}

static int gpu_l2_mass_apply(ts_backend_ops *ops, const ts_l2_mass_plan *plan, ts_precision p,
                             const void *x, void *y) {
  if (p != TS_DOUBLE) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "%s l2 mass: precision %d, the kernels are "
             "compiled for TS_DOUBLE (0) only", TS_GPU_NAME, (int)p);
    return TS_ERR_UNSUPPORTED;
  }
  return ts_gpu_l2_mass_apply_double(plan, (const double *)x, (double *)y, ops->error);
}

static int gpu_hdiv_mass_apply(ts_backend_ops *ops, const ts_hdiv_mass_plan *plan, ts_precision p,
                               const void *x, void *y, int add) {
  if (p != TS_DOUBLE) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "%s hdiv mass: precision %d, the kernels are "
             "compiled for TS_DOUBLE (0) only", TS_GPU_NAME, (int)p);
    return TS_ERR_UNSUPPORTED;
  }
  return ts_gpu_hdiv_mass_apply_double(plan, (const double *)x, (double *)y, add, ops->error);
}

static int gpu_patch_additive(ts_backend_ops *ops, const ts_patch_additive_plan *plan,
                              ts_precision p, const void *r, void *y) {
  if (p == TS_SINGLE)
    return ts_gpu_patch_additive<float>(plan, (const float *)r, (float *)y, ops->error);
  return ts_gpu_patch_additive<double>(plan, (const double *)r, (double *)y, ops->error);
}

static int gpu_vanka_apply(ts_backend_ops *ops, const ts_vanka_plan *plan, ts_precision p,
                           const void *r, void *y) {
  if (p == TS_SINGLE) return ts_gpu_vanka_apply<float>(plan, (const float *)r, (float *)y, ops->error);
  return ts_gpu_vanka_apply<double>(plan, (const double *)r, (double *)y, ops->error);
}

static int gpu_kronecker_apply(ts_backend_ops *ops, const ts_kronecker_plan *plan,
                               ts_precision p, const void *x, void *y, int add) {
  if (p == TS_SINGLE)
    return ts_gpu_kronecker_apply<float>(plan, (const float *)x, (float *)y, add, ops->error);
  return ts_gpu_kronecker_apply<double>(plan, (const double *)x, (double *)y, add, ops->error);
}

/* The plan form asked for on multilinear cells, per degree the faster one as measured on an
 * H100 (3D Kershaw 0.3, 3e7 DoFs): the recomputed geometry (vertices) where it was as fast
 * or faster (within 5 %: then its far smaller memory decides), the stored factors where they
 * were faster by more than 5 %.  3D: the collocation kernel, bench/results/2026-11-27-h100-
 * kershaw-collocation.md; 2D keeps the table measured for the earlier 3D kernel
 * (bench/results/2026-11-26-h100-kershaw-recomputed.md), its own kernel being unchanged.
 * TESSERA_GPU_MAPPED=factors or =vertices forces one form (to measure both). */
static int gpu_mapped_geometry(ts_backend_ops *ops, int dim, int degree, ts_precision p) {
  (void)ops;
  /* index: the degree 0..10; 1: vertices (degrees 9, 10 have no GPU kernel) */
  static const char vertices3_double[TS_MAX_DEGREE + 1] = {0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0};
  static const char vertices3_single[TS_MAX_DEGREE + 1] = {0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0};
  static const char vertices2_double[TS_MAX_DEGREE + 1] = {0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0};
  static const char vertices2_single[TS_MAX_DEGREE + 1] = {0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0};
  const char *e = getenv("TESSERA_GPU_MAPPED");
  if (e && !strcmp(e, "factors")) return TS_MAPPED_FACTORS;
  if (e && !strcmp(e, "vertices")) return TS_MAPPED_VERTICES;
  if (degree < 0 || degree > TS_MAX_DEGREE) return TS_MAPPED_FACTORS;
  const char *table = dim == 3 ? (p == TS_SINGLE ? vertices3_single : vertices3_double)
                               : (p == TS_SINGLE ? vertices2_single : vertices2_double);
  return table[degree] ? TS_MAPPED_VERTICES : TS_MAPPED_FACTORS;
}

static int gpu_laplace_diagonal(ts_backend_ops *ops, const ts_laplace_plan *plan, ts_precision p,
                                void *d) {
  if (p == TS_SINGLE) return ts_gpu_laplace_diagonal<float>(plan, (float *)d, ops->error);
  return ts_gpu_laplace_diagonal<double>(plan, (double *)d, ops->error);
}

static int gpu_transfer(ts_backend_ops *ops, const ts_transfer_plan *plan, ts_precision p,
                        int restrict_, const void *in, void *out, int add) {
  if (p == TS_SINGLE)
    return ts_gpu_transfer<float>(plan, restrict_, (const float *)in, (float *)out, add, ops->error);
  return ts_gpu_transfer<double>(plan, restrict_, (const double *)in, (double *)out, add,
                                 ops->error);
}

static int gpu_patch_smooth(ts_backend_ops *ops, const ts_patch_plan *plan, ts_precision p,
                            const void *b, void *x, void *r) {
  gpu_state *s = (gpu_state *)ops->data;
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE,
             "%s patch_smooth: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", TS_GPU_NAME,
             (int)p);
    return TS_ERR_ARG;
  }
  if (p == TS_SINGLE)
    return ts_gpu_patch_smooth<float>(&s->patch_cache, plan, (const float *)b, (float *)x,
                                      (float *)r, ops->error);
  return ts_gpu_patch_smooth<double>(&s->patch_cache, plan, (const double *)b, (double *)x,
                                     (double *)r, ops->error);
}

static int gpu_stokes_apply(ts_backend_ops *ops, const ts_stokes_plan *plan, ts_precision p,
                            const void *x, void *y, int add) {
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE,
             "%s stokes_apply: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", TS_GPU_NAME,
             (int)p);
    return TS_ERR_ARG;
  }
  gpu_state *s = (gpu_state *)ops->data;
  if (p == TS_SINGLE)
    return ts_gpu_stokes_apply<float>(&s->stokes_work, plan, (const float *)x, (float *)y, add,
                                      ops->error);
  return ts_gpu_stokes_apply<double>(&s->stokes_work, plan, (const double *)x, (double *)y, add,
                                     ops->error);
}

static int gpu_stokes_patch_smooth(ts_backend_ops *ops, const ts_stokes_patch_plan *plan,
                                   ts_precision p, const void *b, void *x, void *r) {
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE,
             "%s stokes_patch_smooth: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)",
             TS_GPU_NAME, (int)p);
    return TS_ERR_ARG;
  }
  gpu_state *s = (gpu_state *)ops->data;
  if (p == TS_SINGLE)
    return ts_gpu_stokes_patch_smooth<float>(&s->stokes_patch_cache, plan, (const float *)b,
                                             (float *)x, (float *)r, ops->error);
  return ts_gpu_stokes_patch_smooth<double>(&s->stokes_patch_cache, plan, (const double *)b,
                                            (double *)x, (double *)r, ops->error);
}

static int gpu_field_transfer(ts_backend_ops *ops, const ts_field_transfer_plan *plan,
                              ts_precision p, int restrict_, const void *in, void *out, int add) {
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE,
             "%s field_transfer: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", TS_GPU_NAME,
             (int)p);
    return TS_ERR_ARG;
  }
  if (p == TS_SINGLE)
    return ts_gpu_field_transfer<float>(plan, restrict_, (const float *)in, (float *)out, add,
                                        ops->error);
  return ts_gpu_field_transfer<double>(plan, restrict_, (const double *)in, (double *)out, add,
                                       ops->error);
}

static int gpu_measure_ceilings(ts_backend_ops *ops, ts_backend_ceilings *c) {
  return ts_gpu_measure_ceilings(c, ops->error);
}

/* CSR sparse matrix by cuSPARSE or hipSPARSE (gpu-csr.h) */
static int gpu_csr_create(ts_backend_ops *ops, const ts_csr_plan *plan, ts_precision p,
                          void **handle) {
  return ts_gpu_csr_create(plan, p, handle, ops->error);
}

static int gpu_csr_apply(ts_backend_ops *ops, void *handle, const void *x, void *y, int add) {
  return ts_gpu_csr_apply(handle, x, y, add, ops->error);
}

static int gpu_csr_destroy(ts_backend_ops *ops, void *handle) {
  return ts_gpu_csr_destroy(handle, ops->error);
}

static int gpu_csr_multiply(ts_backend_ops *ops, const ts_csr_plan *A, const ts_csr_plan *B,
                            ts_csr_product *C) {
  return ts_gpu_csr_multiply(A, B, C, ops->error);
}

#ifdef TS_GPU_PEER
/* NCCL's messages on the halo exchange's stream */
static int gpu_peer_exchange(ts_backend_ops *ops, void *peer, int count,
                             const ts_peer_message *messages) {
  return ts_gpu_peer_exchange(ops, gpu_comm_stream(ops), peer, count, messages);
}
#endif

TS_BACKEND_DEFINE_ABI;

extern "C" int tessera_backend_register(ts_backend_ops *ops);

extern "C" int tessera_backend_register(ts_backend_ops *ops) {
  ops->abi_version = TS_BACKEND_ABI_VERSION;
  ops->struct_size = sizeof(ts_backend_ops);
  ops->name = TS_GPU_NAME;
  ops->init = gpu_init;
  ops->describe = gpu_describe;
  ops->finalize = gpu_finalize;
  ops->mem_alloc = gpu_mem_alloc;
  ops->mem_free = gpu_mem_free;
  ops->mem_available = gpu_mem_available;
  ops->vec_from_host = gpu_vec_from_host;
  ops->vec_to_host = gpu_vec_to_host;
  ops->vec_set = gpu_vec_set;
  ops->vec_random = gpu_vec_random;
  ops->vec_convert = gpu_vec_convert;
  ops->vec_axpby = gpu_vec_axpby;
  ops->vec_pointwise_mult = gpu_vec_pointwise_mult;
  ops->vec_tensor = gpu_vec_tensor;
  ops->vec_dot = gpu_vec_dot;
  ops->laplace_apply = gpu_laplace_apply;
  ops->laplace_diagonal = gpu_laplace_diagonal;
  ops->measure_ceilings = gpu_measure_ceilings;
  ops->transfer = gpu_transfer;
  ops->patch_smooth = gpu_patch_smooth;
  ops->stokes_apply = gpu_stokes_apply;
  ops->field_transfer = gpu_field_transfer;
  ops->stokes_patch_smooth = gpu_stokes_patch_smooth;
  ops->mapped_apply = gpu_mapped_apply;
  ops->mapped_geometry = gpu_mapped_geometry;
  ops->patch_additive = gpu_patch_additive;
  ops->vanka_apply = gpu_vanka_apply;
  ops->kronecker_apply = gpu_kronecker_apply;
  ops->l2_mass_apply = gpu_l2_mass_apply;
  ops->hdiv_mass_apply = gpu_hdiv_mass_apply;
  ops->csr_create = gpu_csr_create;
  ops->csr_apply = gpu_csr_apply;
  ops->csr_destroy = gpu_csr_destroy;
  ops->csr_multiply = gpu_csr_multiply;
  ops->vec_plane_pack = gpu_vec_plane_pack;
  ops->vec_plane_unpack = gpu_vec_plane_unpack;
  ops->host_alloc = gpu_host_alloc;
  ops->host_free = gpu_host_free;
  ops->laplace_apply_cells = gpu_laplace_apply_cells;
  ops->side_join = gpu_side_join;
#ifdef TS_GPU_PEER
  ops->peer_device = ts_gpu_peer_device;
  ops->peer_id = ts_gpu_peer_id;
  ops->peer_create = ts_gpu_peer_create;
  ops->peer_exchange = gpu_peer_exchange;
  ops->peer_destroy = ts_gpu_peer_destroy;
#endif
  return 0;
}
