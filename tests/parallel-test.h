/* parallel-test.h -- what the MPI tests share (t-parallel.c, t-parallel-patch.c,
 * t-parallel-stokes.c): a condition on every process, the largest entries and differences of
 * host arrays, and a right side b and a start x of random entries, one-process (b, x: n
 * entries on be) and distributed on pd (bd, xd), the distributed ones the one-process entries
 * at the same DoFs (seeds 3 and 4). */
#ifndef TESSERA_TESTS_PARALLEL_TEST_H
#define TESSERA_TESTS_PARALLEL_TEST_H
#include <math.h>
#include <mpi.h>
#include "tessera.h"

/* 1 when cond holds on every process */
static inline int everywhere(int cond) {
  int all = 0;
  MPI_Allreduce(&cond, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

static inline double max_difference(int64_t n, const double *a, const double *b) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static inline double max_abs(int64_t n, const double *a) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

/* g = the gathered distributed vector, h = the one-process vector */
static inline int fetch_both(ts_vec distributed, ts_vec one, double *g, double *h) {
  int ierr = ts_parallel_vec_gather(distributed, g);
  if (!ierr) ierr = ts_vec_get_to_host(one, h);
  return ierr;
}

static inline int random_pairs(ts_backend be, int64_t n, ts_parallel_dofs pd, ts_vec *b, ts_vec *x,
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
