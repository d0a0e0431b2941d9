/* parallel-random.h -- for the MPI tests (t-parallel.c, t-parallel-patch.c): a right side b
 * and a start x of random entries, one-process (b, x: n entries on be) and distributed on pd
 * (bd, xd), the distributed ones the one-process entries at the same DoFs (seeds 3 and 4). */
#ifndef TESSERA_TESTS_PARALLEL_RANDOM_H
#define TESSERA_TESTS_PARALLEL_RANDOM_H
#include "tessera.h"

static int random_pairs(ts_backend be, int64_t n, ts_parallel_dofs pd, ts_vec *b, ts_vec *x,
                        ts_vec *bd, ts_vec *xd) {
  int ierr = ts_vec_create(be, n, TS_DOUBLE, b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, x);
  if (!ierr) ierr = ts_parallel_vec_create(pd, bd);
  if (!ierr) ierr = ts_parallel_vec_create(pd, xd);
  if (!ierr) ierr = ts_vec_set_random(*b, 3);
  if (!ierr) ierr = ts_vec_set_random(*bd, 3);
  if (!ierr) ierr = ts_vec_set_random(*x, 4);
  if (!ierr) ierr = ts_vec_set_random(*xd, 4);
  return ierr;
}
#endif
