/* omp-sweep.h -- one direction of a tensor contraction, the step of every sum factorization
 * of the omp backend's cell kernels (l2-mass.c, hdiv-mass.c). */
#ifndef TESSERA_OMP_SWEEP_H
#define TESSERA_OMP_SWEEP_H

#include <stddef.h>

/* out[a][r][b] = sum_j B[r][j] in[a][j][b] (B rows x cols, row-major): one direction of a
 * tensor contraction; before = 1 (direction 0) as dot products along the contiguous index. */
static inline __attribute__((always_inline)) void omp_sweep(int before, const int cols, int after,
                                                            const double *B, const int rows,
                                                            const double *in, double *out) {
  if (before == 1) {
    for (int a = 0; a < after; ++a)
      for (int r = 0; r < rows; ++r) {
        double s = 0.0;
        for (int j = 0; j < cols; ++j) s += B[r * cols + j] * in[a * cols + j];
        out[a * rows + r] = s;
      }
    return;
  }
  for (int a = 0; a < after; ++a)
    for (int r = 0; r < rows; ++r) {
      double *o = out + (size_t)(a * rows + r) * before;
      for (int b = 0; b < before; ++b) o[b] = 0.0;
      for (int j = 0; j < cols; ++j) {
        const double c = B[r * cols + j], *i = in + (size_t)(a * cols + j) * before;
        for (int b = 0; b < before; ++b) o[b] += c * i[b];
      }
    }
}

#endif
