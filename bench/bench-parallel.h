/* bench-parallel.h -- what the MPI benchmark programs share (bench-parallel.c,
 * bench-parallel-stokes.c): their arguments DIM K C LEVEL, and the seconds a distributed
 * hierarchy spent in one kind of communication (ts_parallel_timing on). */
#ifndef TESSERA_BENCH_PARALLEL_H
#define TESSERA_BENCH_PARALLEL_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "tessera.h"

/** The arguments DIM K C LEVEL of `program` (C: C, or C0xC1[xC2]) into dim, k, level and the
 *  level-0 cells coarse[]; the box upper[] (from 0) of cells of equal shape: C0/C2 x C1/C2 x 1.
 *  0, or 2 after the usage on rank 0's stderr (MPI finalized). */
static inline int bench_parallel_args(int argc, char **argv, const char *program, int *dim,
                                      int *k, int *level, int *coarse, double *upper) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 5) {
    if (!rank) fprintf(stderr, "usage: mpirun -np P %s DIM K C LEVEL\n", program);
    MPI_Finalize();
    return 2;
  }
  *dim = atoi(argv[1]), *k = atoi(argv[2]), *level = atoi(argv[4]);
  const int given = sscanf(argv[3], "%dx%dx%d", &coarse[0], &coarse[1], &coarse[2]);
  for (int d = given; d < 3; ++d) coarse[d] = given == 1 ? coarse[0] : 1;
  for (int d = 0; d < 3; ++d) upper[d] = (double)coarse[d] / coarse[*dim - 1];
  return 0;
}

/** setter(par, the integer in the environment variable env) where env is set; 0, or 1 after
 *  a message naming env and `what` on rank 0's stderr. */
static inline int bench_parallel_setting(ts_parallel par, const char *env,
                                         int (*setter)(ts_parallel, int64_t), const char *what) {
  const char *text = getenv(env);
  if (!text) return 0;
  char *end = NULL;
  const long long value = strtoll(text, &end, 10);
  if (end == text || *end || setter(par, value)) {
    if (ts_parallel_rank(par) == 0)
      fprintf(stderr, "%s = '%s': %s, allowed an integer >= 0\n", env, text, what);
    return 1;
  }
  return 0;
}

/** TESSERA_BENCH_AGGLOMERATE (ts_parallel_set_agglomeration: cells per process) and
 *  TESSERA_BENCH_OVERLAP (ts_parallel_set_overlap: DoFs per block) where set. */
static inline int bench_parallel_settings(ts_parallel par) {
  return bench_parallel_setting(par, "TESSERA_BENCH_AGGLOMERATE", ts_parallel_set_agglomeration,
                                "cells per process") ||
         bench_parallel_setting(par, "TESSERA_BENCH_OVERLAP", ts_parallel_set_overlap,
                                "DoFs per block");
}

/** The seconds of `what` summed over the distributed levels of mg up to level (finest: that
 *  level only; the gathered levels' are their split level's coarse solves), the largest over
 *  the processes; *calls: how many (this process's). */
static inline double time_spent(ts_parallel_mg mg, int level, ts_parallel_time what, int finest,
                                long long *calls) {
  double total = 0.0;
  *calls = 0;
  for (int l = finest ? level : ts_parallel_mg_split_level(mg); l <= level; ++l) {
    double s = 0.0;
    int64_t c = 0;
    ts_parallel_dofs_time(ts_parallel_mg_dofs(mg, l), what, &s, &c);
    total += s;
    *calls += c;
  }
  double largest = 0.0;
  MPI_Allreduce(&total, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return largest;
}
#endif
