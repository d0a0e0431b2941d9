/* omp-vec.h -- the omp backend's vector kernels, written once for both precisions: this
 * file is included by omp.c with REAL defined as double and as float, and VEC(name)
 * naming the instance (name_double, name_float). */
#ifndef REAL
#error "define REAL and VEC before including omp-vec.h"
#endif

static void VEC(from_host)(int64_t n, const double *h, REAL *x) {
#pragma omp parallel for schedule(static) num_threads(omp_vector_threads(n))
  for (int64_t i = 0; i < n; ++i) x[i] = (REAL)h[i];
}

static void VEC(to_host)(int64_t n, const REAL *x, double *h) {
#pragma omp parallel for schedule(static) num_threads(omp_vector_threads(n))
  for (int64_t i = 0; i < n; ++i) h[i] = (double)x[i];
}

static void VEC(set)(int64_t n, double alpha, REAL *x) {
#pragma omp parallel for schedule(static) num_threads(omp_vector_threads(n))
  for (int64_t i = 0; i < n; ++i) x[i] = (REAL)alpha;
}

/* x = f_0 (x) f_1 (x) f_2: one row of n[0] entries per (i_1, i_2); f_2 = {1} in 2D */
static void VEC(tensor)(const int64_t *n, const double *f0, const double *f1, const double *f2,
                        REAL *x) {
  const int64_t rows = n[1] * n[2];
#pragma omp parallel for schedule(static) num_threads(omp_vector_threads(rows * n[0]))
  for (int64_t r = 0; r < rows; ++r) {
    const double s = f1[r % n[1]] * f2[r / n[1]];
    REAL *row = x + r * n[0];
    for (int64_t i = 0; i < n[0]; ++i) row[i] = (REAL)(s * f0[i]);
  }
}

static void VEC(random)(int64_t n, uint64_t seed, REAL *x) {
#pragma omp parallel for schedule(static) num_threads(omp_vector_threads(n))
  for (int64_t i = 0; i < n; ++i) x[i] = (REAL)ts_random_entry(seed, (uint64_t)i);
}

static void VEC(axpby)(int64_t n, double alpha, const REAL *x, double beta, REAL *y) {
  const REAL a = (REAL)alpha, b = (REAL)beta;
  if (beta == 0.0) { /* y = a x, also when y holds NaN or garbage */
#pragma omp parallel for simd schedule(static) num_threads(omp_vector_threads(n))
    for (int64_t i = 0; i < n; ++i) y[i] = a * x[i];
  } else {
#pragma omp parallel for simd schedule(static) num_threads(omp_vector_threads(n))
    for (int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
  }
}

static void VEC(pointwise_mult)(int64_t n, const REAL *x, const REAL *y, REAL *w) {
#pragma omp parallel for simd schedule(static) num_threads(omp_vector_threads(n))
  for (int64_t i = 0; i < n; ++i) w[i] = x[i] * y[i];
}

/* accumulated in double in both precisions */
static double VEC(dot)(int64_t n, const REAL *x, const REAL *y) {
  double sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum) \
    num_threads(omp_vector_threads(n))
  for (int64_t i = 0; i < n; ++i) sum += (double)x[i] * (double)y[i];
  return sum;
}
