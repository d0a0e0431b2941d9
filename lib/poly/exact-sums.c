/* exact-sums.c -- 1D matrices whose row sums are exact where the mathematics makes them so
 * (doc/accuracy.md).  A derivative or stiffness matrix annihilates constants and an
 * interpolation matrix reproduces them, but entries rounded one by one leave row sums of a
 * few ulp of the largest entry.  The same error sits in every cell, so it acts as a
 * zero-order term (K 1 != 0) that the solve amplifies by h^-2: the error of a Q6 Poisson
 * problem grew from 2e-15 to 3e-11 under refinement.
 *
 * The cure: round the entries to multiples of one power of two g, chosen so that every
 * multiple of g up to a bound is a double, and set one entry per row (the diagonal of a
 * symmetric matrix, else the largest) to the target minus the sum of the others, summed
 * exactly in integer units of g.  The row sums are then exact in exact arithmetic, and so
 * is every partial sum that stays below the bound (sums of two entries, the even-odd forms
 * of the kernels, the 1D assembly of two cells).  No entry moves by more than g, a few ulp
 * of the largest one. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "../tessera-impl.h"

double ts_exact_grid(double bound) {
  int e;
  frexp(bound > 0.0 ? bound : 1.0, &e); /* bound < 2^e */
  return ldexp(1.0, e - 53);            /* |q| g <= 2^e is a double for integers |q| <= 2^53 */
}

/* x in units of g (x a multiple of g within the bound of the grid) */
static int64_t units(double x, double g) { return (int64_t)llround(x / g); }

void ts_exact_row_sum(int n, double *row, double target) {
  int largest = 0;
  double bound = fabs(target);
  for (int j = 0; j < n; ++j) {
    if (fabs(row[j]) > fabs(row[largest])) largest = j;
    bound = fmax(bound, fabs(row[j]));
  }
  /* twice the largest magnitude: the corrected entry differs from the rounded one by the
   * rounding of the others (at most n g / 2) and stays within the grid */
  const double g = ts_exact_grid(2.0 * bound);
  int64_t others = 0;
  for (int j = 0; j < n; ++j)
    if (j != largest) {
      row[j] = (double)units(row[j], g) * g;
      others += units(row[j], g);
    }
  row[largest] = (double)(units(target, g) - others) * g;
}

void ts_exact_zero_rows(int n, double *A, double bound) {
  const double g = ts_exact_grid(bound);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) {
      const double mean = 0.5 * (A[i * n + j] + A[j * n + i]);
      A[i * n + j] = A[j * n + i] = (double)units(mean, g) * g;
    }
  for (int i = 0; i < n; ++i) {
    int64_t others = 0;
    for (int j = 0; j < n; ++j)
      if (j != i) others += units(A[i * n + j], g);
    A[i * n + i] = (double)(-others) * g;
  }
}

double ts_max_abs(int count, const double *a) {
  double m = 0.0;
  for (int i = 0; i < count; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

/* x^T A x in long double */
static long double energy(int n, const double *x, const double *A) {
  long double e = 0.0L;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) e += (long double)x[i] * A[i * n + j] * x[j];
  return e;
}

/* A move of the energy correction: the pair (i, j), with its mirror (n-1-i, n-1-j) when
 * the matrix is centro-symmetric; weight: how much x^T A x falls per unit moved. */
typedef struct energy_move {
  int i, j, mirrored;
  double weight;
} energy_move;

static int heavier_first(const void *a, const void *b) {
  const double wa = ((const energy_move *)a)->weight, wb = ((const energy_move *)b)->weight;
  return (wa < wb) - (wa > wb);
}

/* Move c from the diagonal entries i and j to A_ij and A_ji: A stays symmetric with
 * A 1 = 0, and x^T A x changes by -c (x_i - x_j)^2. */
static void move_pair(int n, double *A, int i, int j, double c) {
  A[i * n + j] += c;
  A[j * n + i] += c;
  A[i * n + i] -= c;
  A[j * n + j] -= c;
}

static int centro_symmetric(int n, const double *A) {
  for (int i = 0; i < n * n; ++i)
    if (A[i] != A[n * n - 1 - i]) return 0;
  return 1;
}

void ts_exact_energy(int n, const double *x, double *A, double target, double bound) {
  const double g = ts_exact_grid(bound);
  const int centro = centro_symmetric(n, A);
  energy_move moves[TS_MAX_POINTS * TS_MAX_POINTS / 2];
  int count = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const int mi = n - 1 - j, mj = n - 1 - i; /* the mirror pair, ordered */
      if (centro && (mi < i || (mi == i && mj < j))) continue; /* counted with its mirror */
      const int mirrored = centro && (mi != i || mj != j);
      const double w = (x[i] - x[j]) * (x[i] - x[j]);
      moves[count++] = (energy_move){i, j, mirrored, mirrored ? 2.0 * w : w};
    }
  qsort(moves, (size_t)count, sizeof moves[0], heavier_first);
  /* greedy: the heaviest move takes the excess to within g / 2, each lighter one what is
   * left to within its own half step */
  for (int m = 0; m < count; ++m) {
    const long double excess = energy(n, x, A) - target;
    const double c = (double)llroundl(excess / ((long double)g * moves[m].weight)) * g;
    if (c == 0.0) continue;
    move_pair(n, A, moves[m].i, moves[m].j, c);
    if (moves[m].mirrored) move_pair(n, A, n - 1 - moves[m].j, n - 1 - moves[m].i, c);
  }
}
