/* sum.c -- sums that can measure errors of 1e-16: compensated (Neumaier) accumulation and a
 * parallel sum over cells that is deterministic (the same bits for any thread count). */
#include <math.h>
#include "../tessera-impl.h"

void ts_sum_add(ts_sum *sum, double x) {
  const double t = sum->s + x;
  /* the rounding of s + x, recovered exactly from the larger operand */
  sum->c += fabs(sum->s) >= fabs(x) ? (sum->s - t) + x : (x - t) + sum->s;
  sum->s = t;
}

double ts_sum_value(const ts_sum *sum) { return sum->s + sum->c; }

#define CELLS_PER_BLOCK 256

int ts_cell_sums(int64_t cells, int count, ts_cell_values_fn fn, const void *ctx, double *sums) {
  TS_CHECK_ARG(count >= 1 && count <= TS_CELL_SUMS_MAX, "cell sums: %d values per cell, allowed 1..%d",
               count, TS_CELL_SUMS_MAX);
  const int64_t blocks = (cells + CELLS_PER_BLOCK - 1) / CELLS_PER_BLOCK;
  double *partial;
  TS_CALL(ts_calloc((size_t)(blocks > 0 ? blocks : 1) * (size_t)count, sizeof(double),
                    "partial sums over cells", &partial));
  /* each block of cells is summed in order, and the block sums in order: the result does
   * not depend on how the blocks are shared among threads */
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t block = 0; block < blocks; ++block) {
    ts_sum local[TS_CELL_SUMS_MAX] = {{0.0, 0.0}};
    double values[TS_CELL_SUMS_MAX];
    const int64_t end = (block + 1) * CELLS_PER_BLOCK < cells ? (block + 1) * CELLS_PER_BLOCK : cells;
    for (int64_t cell = block * CELLS_PER_BLOCK; cell < end; ++cell) {
      fn(ctx, cell, values);
      for (int v = 0; v < count; ++v) ts_sum_add(&local[v], values[v]);
    }
    for (int v = 0; v < count; ++v) partial[block * count + v] = ts_sum_value(&local[v]);
  }
  for (int v = 0; v < count; ++v) {
    ts_sum total = {0.0, 0.0};
    for (int64_t block = 0; block < blocks; ++block) ts_sum_add(&total, partial[block * count + v]);
    sums[v] = ts_sum_value(&total);
  }
  ts_free(&partial);
  return 0;
}
