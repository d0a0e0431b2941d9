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
 * every run.  Not CUDA-aware: the vector is staged through host memory (pd->host), whole;
 * packing on the device and pinned buffers are next (doc/parallel.md). */
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

int ts_parallel_vec_sum_shared(ts_parallel_dofs pd, ts_vec v) {
  TS_CHECK_NOT_NULL(pd);
  TS_CALL(ts_parallel_check_vec(pd, v, __func__));
  const ts_parallel par = pd->par;
  if (par->size == 1) return 0;
  TS_CALL(ts_vec_get_to_host(v, pd->host));
  for (int d = 0; d < par->dim; ++d) /* reverse: the lower plane to the lower neighbour */
    TS_CALL(exchange(pd, d, 0, par->lower[d], pd->n[d] - 1, par->upper[d], PLANE_ADD));
  for (int d = par->dim - 1; d >= 0; --d) /* forward: the upper plane to the upper neighbour */
    TS_CALL(exchange(pd, d, pd->n[d] - 1, par->upper[d], 0, par->lower[d], PLANE_SET));
  TS_CALL(ts_vec_set_from_host(v, pd->host));
  return 0;
}
