/* omp.c -- the OpenMP backend: registration, host memory and the vector kernels.  It is
 * the reference every other backend is checked against, and the CPU production backend.
 * The Laplacian kernels live in laplace.c, the Stokes kernel in stokes.c. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp-laplace.h"
#include "omp-transfer.h"
#include "omp-field-transfer.h"
#include "omp-patch.h"
#include "omp-stokes.h"
#include "omp-stokes-patch.h"
#include "omp-csr.h"
#include "omp-mapped.h"
#include "omp-patch-additive.h"
#include "omp-vanka.h"
#include "omp-kronecker.h"
#include "omp-l2-mass.h"
#include "omp-hdiv-mass.h"
#include "omp-threads.h"
#include "tessera/backend.h"

#define OMP_ALIGNMENT 64

static int omp_fail(ts_backend_ops *ops, int code, const char *msg) {
  snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "%s", msg);
  return code;
}

/* The backend's state: the work space of the Stokes operator, kept between calls so that an
 * application does not allocate (and first-touch) two velocity components each time. */
typedef struct omp_state {
  ts_omp_work stokes_work;
} omp_state;

static int omp_init(ts_backend_ops *ops) {
  ops->data = calloc(1, sizeof(omp_state));
  return ops->data ? 0 : omp_fail(ops, TS_ERR_MEMORY, "could not allocate the omp backend state");
}

static int omp_finalize(ts_backend_ops *ops) {
  omp_state *s = ops->data;
  if (s) ts_omp_work_free(&s->stokes_work);
  free(s);
  ops->data = NULL;
  return 0;
}

static int omp_describe(ts_backend_ops *ops, char *buf, size_t len) {
  (void)ops;
  snprintf(buf, len, "OpenMP on the host, up to %d threads (fewer on small vectors and "
           "operators), %d processors", omp_get_max_threads(), omp_get_num_procs());
  return 0;
}

static int omp_mem_alloc(ts_backend_ops *ops, size_t bytes, void **ptr) {
  size_t rounded = (bytes + OMP_ALIGNMENT - 1) / OMP_ALIGNMENT * OMP_ALIGNMENT;
  *ptr = aligned_alloc(OMP_ALIGNMENT, rounded ? rounded : OMP_ALIGNMENT);
  if (!*ptr) {
    snprintf(ops->error, TS_BACKEND_ERROR_SIZE, "could not allocate %zu bytes of host memory", bytes);
    return TS_ERR_MEMORY;
  }
  return 0;
}

static int omp_mem_free(ts_backend_ops *ops, void *ptr) {
  (void)ops;
  free(ptr);
  return 0;
}

static int omp_mem_available(ts_backend_ops *ops, size_t *bytes) {
  FILE *f = fopen("/proc/meminfo", "r");
  unsigned long long kib = 0;
  char line[256];
  if (!f) return omp_fail(ops, TS_ERR_BACKEND, "cannot read /proc/meminfo");
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
  fclose(f);
  if (!kib) return omp_fail(ops, TS_ERR_BACKEND, "/proc/meminfo has no MemAvailable line");
  *bytes = (size_t)kib * 1024u;
  return 0;
}

#define REAL double
#define VEC(name) vec_##name##_double
#include "omp-vec.h"
#undef REAL
#undef VEC
#define REAL float
#define VEC(name) vec_##name##_float
#include "omp-vec.h"
#undef REAL
#undef VEC

/* Dispatch on precision: call vec_NAME_float or vec_NAME_double with the same arguments. */
#define OMP_DISPATCH(p, name, ...) \
  ((p) == TS_SINGLE ? vec_##name##_float(__VA_ARGS__) : vec_##name##_double(__VA_ARGS__))

static int omp_vec_from_host(ts_backend_ops *ops, ts_precision p, int64_t n, const double *h, void *x) {
  (void)ops;
  OMP_DISPATCH(p, from_host, n, h, x);
  return 0;
}

/* planes of x (ABI 17; precision p since ABI 19): height rows of width entries at pitch, one
 * plane after the other in buf, row after row */
#define OMP_PLANE_PACK(R)                                                                    \
  static void plane_pack_##R(int count, const ts_plane *planes, const R *x, R *b) {           \
    for (int p = 0; p < count; ++p) {                                                        \
      const ts_plane q = planes[p];                                                          \
      const R *v = x + q.offset;                                                             \
      _Pragma("omp parallel for schedule(static) if (q.width * q.height > 65536)")           \
      for (int64_t r = 0; r < q.height; ++r)                                                 \
        memcpy(b + r * q.width, v + r * q.pitch, (size_t)q.width * sizeof *b);               \
      b += q.width * q.height;                                                               \
    }                                                                                        \
  }                                                                                          \
  static void plane_unpack_##R(int add, int count, const ts_plane *planes, const R *b, R *x) { \
    for (int p = 0; p < count; ++p) {                                                        \
      const ts_plane q = planes[p];                                                          \
      R *v = x + q.offset;                                                                   \
      _Pragma("omp parallel for schedule(static) if (q.width * q.height > 65536)")           \
      for (int64_t r = 0; r < q.height; ++r)                                                 \
        for (int64_t i = 0; i < q.width; ++i) {                                              \
          const R in = b ? b[r * q.width + i] : (R)0;                                        \
          v[r * q.pitch + i] = add ? v[r * q.pitch + i] + in : in;                           \
        }                                                                                    \
      if (b) b += q.width * q.height;                                                        \
    }                                                                                        \
  }
OMP_PLANE_PACK(float)
OMP_PLANE_PACK(double)

static int omp_vec_plane_pack(ts_backend_ops *ops, ts_precision p, int count,
                              const ts_plane *planes, const void *x, void *buf) {
  (void)ops;
  if (p == TS_SINGLE) plane_pack_float(count, planes, x, buf);
  else plane_pack_double(count, planes, x, buf);
  return 0;
}

static int omp_vec_plane_unpack(ts_backend_ops *ops, ts_precision p, int add, int count,
                                const ts_plane *planes, const void *buf, void *x) {
  (void)ops;
  if (p == TS_SINGLE) plane_unpack_float(add, count, planes, buf, x);
  else plane_unpack_double(add, count, planes, buf, x);
  return 0;
}

static int omp_vec_to_host(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x, double *h) {
  (void)ops;
  OMP_DISPATCH(p, to_host, n, x, h);
  return 0;
}

static int omp_vec_set(ts_backend_ops *ops, ts_precision p, int64_t n, double alpha, void *x) {
  (void)ops;
  OMP_DISPATCH(p, set, n, alpha, x);
  return 0;
}

static int omp_vec_random(ts_backend_ops *ops, ts_precision p, int64_t n, uint64_t seed, void *x) {
  (void)ops;
  OMP_DISPATCH(p, random, n, seed, x);
  return 0;
}

static int omp_vec_convert(ts_backend_ops *ops, int64_t n, ts_precision px, const void *x,
                           ts_precision py, void *y) {
  (void)ops;
  if (px == py) {
    if (x != y) memcpy(y, x, (size_t)n * (px == TS_SINGLE ? sizeof(float) : sizeof(double)));
  } else if (px == TS_DOUBLE) {
    vec_from_host_float(n, x, y); /* double -> float */
  } else {
    vec_to_host_float(n, x, y); /* float -> double */
  }
  return 0;
}

static int omp_vec_tensor(ts_backend_ops *ops, ts_precision p, int dim, const int64_t *n,
                          const double *const *factors, void *x) {
  static const double one = 1.0;
  const int64_t sizes[3] = {n[0], n[1], dim == 3 ? n[2] : 1};
  (void)ops;
  OMP_DISPATCH(p, tensor, sizes, factors[0], factors[1], dim == 3 ? factors[2] : &one, x);
  return 0;
}

static int omp_vec_axpby(ts_backend_ops *ops, ts_precision p, int64_t n, double alpha,
                         const void *x, double beta, void *y) {
  (void)ops;
  OMP_DISPATCH(p, axpby, n, alpha, x, beta, y);
  return 0;
}

static int omp_vec_pointwise_mult(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                                  const void *y, void *w) {
  (void)ops;
  OMP_DISPATCH(p, pointwise_mult, n, x, y, w);
  return 0;
}

static int omp_vec_dot(ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                       const void *y, double *result) {
  (void)ops;
  *result = OMP_DISPATCH(p, dot, n, x, y);
  return 0;
}

/* The plan kernels compute in double or in single precision.  Their plans come checked by
 * the library (lib/plan-check.c); what they refuse is what this backend cannot do. */
static int omp_precision_check(ts_backend_ops *ops, ts_precision p, const char *kernel) {
  if (p == TS_DOUBLE || p == TS_SINGLE) return 0;
  snprintf(ops->error, TS_BACKEND_ERROR_SIZE,
           "omp %s: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)", kernel, (int)p);
  return TS_ERR_ARG;
}

static int omp_laplace_apply(ts_backend_ops *ops, const ts_laplace_plan *plan, ts_precision p,
                             const void *x, void *y, int add) {
  if (omp_precision_check(ops, p, "laplace_apply")) return TS_ERR_ARG;
  return ts_omp_laplace_apply(plan, p, x, y, add, ops->error, TS_BACKEND_ERROR_SIZE);
}

static int omp_laplace_diagonal(ts_backend_ops *ops, const ts_laplace_plan *plan, ts_precision p,
                                void *d) {
  if (omp_precision_check(ops, p, "laplace_diagonal")) return TS_ERR_ARG;
  return ts_omp_laplace_diagonal(plan, p, d, ops->error, TS_BACKEND_ERROR_SIZE);
}

static int omp_measure_ceilings(ts_backend_ops *ops, ts_backend_ceilings *c) {
  return ts_omp_measure_ceilings(c, ops->error, TS_BACKEND_ERROR_SIZE);
}
/* multigrid transfer (transfer.c) */
static int omp_transfer(ts_backend_ops *ops, const ts_transfer_plan *plan, ts_precision p,
                        int restrict_, const void *in, void *out, int add) {
  if (omp_precision_check(ops, p, "transfer")) return TS_ERR_ARG;
  ts_omp_transfer(plan, p, restrict_, in, out, add);
  return 0;
}

/* multi-field transfer, e.g. RT_k x DGQ_k (field-transfer.c) */
static int omp_field_transfer(ts_backend_ops *ops, const ts_field_transfer_plan *plan,
                              ts_precision p, int restrict_, const void *in, void *out, int add) {
  if (omp_precision_check(ops, p, "field_transfer")) return TS_ERR_ARG;
  ts_omp_field_transfer(plan, p, restrict_, in, out, add);
  return 0;
}

/* vertex-patch smoother (patch.c) */
static int omp_patch_smooth(ts_backend_ops *ops, const ts_patch_plan *plan, ts_precision p,
                            const void *b, void *x, void *r) {
  if (omp_precision_check(ops, p, "patch_smooth")) return TS_ERR_ARG;
  return ts_omp_patch_smooth(plan, p, b, x, r, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* Stokes operator (stokes.c) */
static int omp_stokes_apply(ts_backend_ops *ops, const ts_stokes_plan *plan, ts_precision p,
                            const void *x, void *y, int add) {
  omp_state *s = ops->data;
  if (omp_precision_check(ops, p, "stokes_apply")) return TS_ERR_ARG;
  return ts_omp_stokes_apply(plan, p, x, y, add, &s->stokes_work, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* Stokes vertex-patch smoother (stokes-patch.c) */
static int omp_stokes_patch_smooth(ts_backend_ops *ops, const ts_stokes_patch_plan *plan,
                                   ts_precision p, const void *b, void *x, void *r) {
  if (omp_precision_check(ops, p, "stokes_patch_smooth")) return TS_ERR_ARG;
  return ts_omp_stokes_patch_smooth(plan, p, b, x, r, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* CSR sparse matrix (csr.c) */
static int omp_csr_create(ts_backend_ops *ops, const ts_csr_plan *plan, ts_precision p,
                          void **handle) {
  return ts_omp_csr_create(plan, p, handle, ops->error, TS_BACKEND_ERROR_SIZE);
}

static int omp_csr_apply(ts_backend_ops *ops, void *handle, const void *x, void *y, int add) {
  (void)ops;
  return ts_omp_csr_apply(handle, x, y, add);
}

static int omp_csr_destroy(ts_backend_ops *ops, void *handle) {
  (void)ops;
  ts_omp_csr_destroy(handle);
  return 0;
}

/* operator on mapped cells (mapped.c) */
static int omp_mapped_apply(ts_backend_ops *ops, const ts_mapped_plan *plan, ts_precision p,
                            const void *x, void *y, int add) {
  return ts_omp_mapped_apply(plan, p, x, y, add, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* additive vertex patches on mapped levels (patch-additive.c) */
static int omp_patch_additive(ts_backend_ops *ops, const ts_patch_additive_plan *plan,
                              ts_precision p, const void *r, void *y) {
  return ts_omp_patch_additive(plan, p, r, y, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* Vanka patches of Taylor-Hood Q2 x Q1 (vanka.c) */
static int omp_vanka_apply(ts_backend_ops *ops, const ts_vanka_plan *plan, ts_precision p,
                           const void *r, void *y) {
  return ts_omp_vanka_apply(plan, p, r, y, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* the L2 mass and its inverse (l2-mass.c) */
static int omp_l2_mass_apply(ts_backend_ops *ops, const ts_l2_mass_plan *plan, ts_precision p,
                             const void *x, void *y) {
  return ts_omp_l2_mass_apply(plan, p, x, y, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* the H(div) mass (hdiv-mass.c) */
static int omp_hdiv_mass_apply(ts_backend_ops *ops, const ts_hdiv_mass_plan *plan, ts_precision p,
                               const void *x, void *y, int add) {
  return ts_omp_hdiv_mass_apply(plan, p, x, y, add, ops->error, TS_BACKEND_ERROR_SIZE);
}

/* Kronecker products of banded 1D matrices (kronecker.c) */
static int omp_kronecker_apply(ts_backend_ops *ops, const ts_kronecker_plan *plan, ts_precision p,
                               const void *x, void *y, int add) {
  return ts_omp_kronecker_apply(plan, p, x, y, add, ops->error, TS_BACKEND_ERROR_SIZE);
}

TS_BACKEND_DEFINE_ABI;

int tessera_backend_register(ts_backend_ops *ops);

int tessera_backend_register(ts_backend_ops *ops) {
  ops->abi_version = TS_BACKEND_ABI_VERSION;
  ops->struct_size = sizeof(ts_backend_ops);
  ops->name = "omp";
  ops->init = omp_init;
  ops->finalize = omp_finalize;
  ops->describe = omp_describe;
  ops->mem_alloc = omp_mem_alloc;
  ops->mem_free = omp_mem_free;
  ops->mem_available = omp_mem_available;
  ops->vec_from_host = omp_vec_from_host;
  ops->vec_to_host = omp_vec_to_host;
  ops->vec_plane_pack = omp_vec_plane_pack;
  ops->vec_plane_unpack = omp_vec_plane_unpack;
  ops->vec_set = omp_vec_set;
  ops->vec_random = omp_vec_random;
  ops->vec_convert = omp_vec_convert;
  ops->vec_axpby = omp_vec_axpby;
  ops->vec_pointwise_mult = omp_vec_pointwise_mult;
  ops->vec_tensor = omp_vec_tensor;
  ops->vec_dot = omp_vec_dot;
  ops->laplace_apply = omp_laplace_apply;
  ops->laplace_diagonal = omp_laplace_diagonal;
  ops->measure_ceilings = omp_measure_ceilings;

  ops->transfer = omp_transfer;
  ops->field_transfer = omp_field_transfer;
  ops->patch_smooth = omp_patch_smooth; /* vertex-patch smoother */
  ops->stokes_apply = omp_stokes_apply;
  ops->csr_create = omp_csr_create; /* sparse matrices */
  ops->csr_apply = omp_csr_apply;
  ops->csr_destroy = omp_csr_destroy;
  ops->stokes_patch_smooth = omp_stokes_patch_smooth; /* Stokes vertex-patch smoother */
  ops->mapped_apply = omp_mapped_apply; /* operator on mapped cells */
  ops->patch_additive = omp_patch_additive; /* additive vertex patches on mapped levels */
  ops->vanka_apply = omp_vanka_apply;       /* Vanka patches of Taylor-Hood */
  ops->kronecker_apply = omp_kronecker_apply; /* Kronecker products (Taylor-Hood coupling) */
  ops->l2_mass_apply = omp_l2_mass_apply;     /* the L2 mass and its inverse */
  ops->hdiv_mass_apply = omp_hdiv_mass_apply; /* the H(div) mass */
  return 0;
}
