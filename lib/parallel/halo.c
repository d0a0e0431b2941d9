/* halo.c -- the sum over the processes of the entries they hold of each shared DoF
 * (doc/parallel.md, "Halo exchange").
 *
 * Direction by direction, two messages per direction and phase, no diagonal neighbours:
 *  - reverse (accumulate): for d = 0, 1, 2 each block sends its lower plane (i_d = 0) to the
 *    lower neighbour, which adds it to its upper plane.  After direction d every DoF's sum
 *    over the blocks that differ in directions 0..d lies with the lowest of them, so after
 *    the last direction the owner holds the sum over all blocks (a corner DoF of 8 blocks
 *    included: a tensor-product reduction);
 *  - forward (refresh): for d = 2, 1, 0 each block sends its upper plane to the upper
 *    neighbour, which overwrites its lower plane with it: the ghosts get their owner's sum.
 * Planes include the ghosts of the other directions (their values are partial sums until
 * the later stages fix them).  The owner adds its neighbours' values in the same order for
 * every run.  Not CUDA-aware: the planes travel through host memory.  A backend with
 * vec_strided_copy (ABI 16: omp, cuda, hip) copies each plane alone between the device and
 * the host (a plane is rows of equal width at a fixed pitch in the block's lexicographic
 * numbering); otherwise the whole vector is staged (pd->host).  Both give the same sums, bit
 * for bit. */
#include "parallel-impl.h"

/* the strides of the block's lexicographic numbering and the two directions other than d */
static void plane_axes(ts_parallel_dofs pd, int d, int64_t *stride, int *a, int *b) {
  stride[0] = 1;
  stride[1] = pd->n[0];
  stride[2] = pd->n[0] * pd->n[1];
  *a = d == 0 ? 1 : 0;
  *b = d == 2 ? 1 : 2;
}

/* plane i_d = at of the staged vector into buf (PACK), or buf added to it (ADD) or put in it (SET) */
enum plane_op { PLANE_PACK, PLANE_ADD, PLANE_SET };
static int64_t plane_copy(ts_parallel_dofs pd, int d, int64_t at, double *buf, enum plane_op op) {
  int64_t stride[3], count = 0;
  int a, b;
  plane_axes(pd, d, stride, &a, &b);
  double *v = pd->host + at * stride[d];
  for (int64_t j = 0; j < pd->n[b]; ++j)
    for (int64_t i = 0; i < pd->n[a]; ++i, ++count) {
      double *x = v + i * stride[a] + j * stride[b];
      if (op == PLANE_PACK) buf[count] = *x;
      else if (op == PLANE_ADD) *x += buf[count];
      else *x = buf[count];
    }
  return count;
}

/* send plane `from` to neighbour `to`, receive the plane of neighbour `source` into plane
 * `into` (added or set); MPI_PROC_NULL neighbours send or receive nothing */
static int exchange(ts_parallel_dofs pd, int d, int64_t from, int to, int64_t into, int source,
                    enum plane_op op) {
  const int count = (int)plane_copy(pd, d, from, pd->send, PLANE_PACK);
  TS_MPI_CALL("MPI_Sendrecv", MPI_Sendrecv(pd->send, count, MPI_DOUBLE, to, d, pd->recv, count,
                                           MPI_DOUBLE, source, d, pd->par->cart,
                                           MPI_STATUS_IGNORE));
  if (source != MPI_PROC_NULL) plane_copy(pd, d, into, pd->recv, op);
  return 0;
}

/* plane i_d = at of the block as strided rows (vec_strided_copy's layout), in plane_copy's
 * order: direction 0 single entries at pitch n0, direction 1 rows of n0 at pitch n0 n1,
 * direction 2 one row of n0 n1 */
static void plane_rows(ts_parallel_dofs pd, int d, int64_t at, int64_t *offset, int64_t *width,
                       int64_t *pitch, int64_t *height) {
  const int64_t *n = pd->n;
  *offset = d == 0 ? at : d == 1 ? n[0] * at : n[0] * n[1] * at;
  *width = d == 0 ? 1 : d == 1 ? n[0] : n[0] * n[1];
  *pitch = d == 0 ? n[0] : n[0] * n[1];
  *height = d == 0 ? n[1] * n[2] : d == 1 ? n[2] : 1;
}

/* plane `at` of v to the host buffer h (to_host) or back */
static int plane_transfer(ts_parallel_dofs pd, ts_vec v, int d, int64_t at, int to_host,
                          double *h) {
  int64_t offset, width, pitch, height;
  plane_rows(pd, d, at, &offset, &width, &pitch, &height);
  TS_BACKEND_CALL(v->backend, vec_strided_copy, to_host, offset, width, pitch, height, v->data,
                  h);
  return 0;
}

/* exchange() on the device vector: only the planes travel through the host (pd->host holds
 * the receiving plane while it is summed) */
static int exchange_planes(ts_parallel_dofs pd, ts_vec v, int d, int64_t from, int to,
                           int64_t into, int source, enum plane_op op) {
  int64_t offset, width, pitch, height;
  plane_rows(pd, d, from, &offset, &width, &pitch, &height);
  const int count = (int)(width * height);
  if (to != MPI_PROC_NULL) TS_CALL(plane_transfer(pd, v, d, from, 1, pd->send));
  TS_MPI_CALL("MPI_Sendrecv", MPI_Sendrecv(pd->send, count, MPI_DOUBLE, to, d, pd->recv, count,
                                           MPI_DOUBLE, source, d, pd->par->cart,
                                           MPI_STATUS_IGNORE));
  if (source == MPI_PROC_NULL) return 0;
  if (op == PLANE_SET) return plane_transfer(pd, v, d, into, 0, pd->recv);
  TS_CALL(plane_transfer(pd, v, d, into, 1, pd->host));
  for (int i = 0; i < count; ++i) pd->host[i] += pd->recv[i];
  return plane_transfer(pd, v, d, into, 0, pd->host);
}

int ts_parallel_vec_sum_shared(ts_parallel_dofs pd, ts_vec v) {
  TS_CHECK_NOT_NULL(pd);
  TS_CALL(ts_parallel_check_vec(pd, v, __func__));
  const ts_parallel par = pd->par;
  if (par->size == 1) return 0;
  if (v->backend->ops.vec_strided_copy) {
    for (int d = 0; d < par->dim; ++d)
      TS_CALL(exchange_planes(pd, v, d, 0, par->lower[d], pd->n[d] - 1, par->upper[d], PLANE_ADD));
    for (int d = par->dim - 1; d >= 0; --d)
      TS_CALL(exchange_planes(pd, v, d, pd->n[d] - 1, par->upper[d], 0, par->lower[d], PLANE_SET));
    return 0;
  }
  TS_CALL(ts_vec_get_to_host(v, pd->host));
  for (int d = 0; d < par->dim; ++d) /* reverse: the lower plane to the lower neighbour */
    TS_CALL(exchange(pd, d, 0, par->lower[d], pd->n[d] - 1, par->upper[d], PLANE_ADD));
  for (int d = par->dim - 1; d >= 0; --d) /* forward: the upper plane to the upper neighbour */
    TS_CALL(exchange(pd, d, pd->n[d] - 1, par->upper[d], 0, par->lower[d], PLANE_SET));
  TS_CALL(ts_vec_set_from_host(v, pd->host));
  return 0;
}
