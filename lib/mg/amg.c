/* amg.c -- smoothed-aggregation algebraic multigrid (Vanek, Mandel and Brezina 1996) for a
 * symmetric positive definite matrix: set up once on the host by the sparse algebra of
 * lib/sparse/, then run as a V-cycle from parts (ts_pc_create_multigrid) on any backend with
 * CSR kernels.  On a GPU this is the AMG of paper 003's Schur complement preconditioner
 * (section 3.2), which Debian's hypre (a CPU build) cannot provide there.
 *
 * Per level, from A (finest first):
 *  1. Strength: j != i is strongly coupled to i when |a_ij| >= theta max_{m != i} |a_im|
 *     (relative to the row's largest coupling, as classical AMG measures it: the measure
 *     sqrt(a_ii a_jj) of smoothed aggregation's papers finds no strong coupling in the
 *     wide stencils of Q_k, k >= 2, and aggregates too much where theta is small).  The
 *     default theta = 0.12 lies above 1/9, the ratio of the couplings across the long and
 *     the short side of cells of aspect ratio 3 (t-darcy-mapped's mesh): those are weak and
 *     the aggregates follow the strong direction.
 *  2. Aggregates, in three passes over the rows in order: (1) a row whose strong neighbours
 *     are all free founds an aggregate of itself and them; (2) a free row joins the
 *     aggregate of its most strongly coupled aggregated neighbour, unless that aggregate
 *     has reached 1.5 times the rows of pass 1's largest (then the next strongest; a row
 *     left with neither a free strong neighbour nor an aggregate below the bound joins its
 *     strongest past the bound rather than stay alone); (3) the rows still free found
 *     aggregates of themselves and their free strong neighbours.  A row without strong
 *     neighbours (an identity row of a Dirichlet DoF) belongs to no aggregate: the smoother
 *     alone treats it.  Pass 2 attaches through rows it attached itself, so without the
 *     bound a line of free rows joined one aggregate one after the other: on cells of
 *     aspect ratio 6 the first coarse level of the RT_2 Darcy S~ got an aggregate of 202
 *     rows among ones of 15, and CG took 13 19 27 iterations on levels 3-5 against
 *     BoomerAMG's 8 9 10; with the bound 8 9 11, every other count of
 *     bench/results/2026-11-28-amg-aspect6.md within one iteration of before, the
 *     complexities the same.  The bound is MueLu's "aggregation: max agg size" of its phase
 *     2b, relative to pass 1 here.  Attaching to pass 1's rows only (Vanek, Mandel and
 *     Brezina 1996's step 2) also cut the chain but cost up to two iterations elsewhere
 *     (aspect ratio 2 RT_2, aspect ratio 3 RT_3); bounds of 1 and 1.25 left many rows to
 *     pass 3's small aggregates (up to 36 iterations), 2 gave 10 on aspect ratio 6, level 4.
 *  3. Tentative prolongation T: column a is the constant 1/sqrt(|a|) on aggregate a (the
 *     near null space of a scalar elliptic operator; orthonormal columns).
 *  4. Smoothed prolongation P = (I - omega D^{-1} A)^s T with omega = 4 / (3 rho), rho the
 *     largest eigenvalue of D^{-1} A (power iteration), s = prolongation_smoothing_steps;
 *     s = 0 is plain aggregation, s = 1 the classical smoothed aggregation.  A prolongator
 *     smoother of higher degree (Vanek, Brezina and Mandel, Numer. Math. 88, 2001, where it
 *     is a polynomial in A) lowers the energy of the coarse basis functions.  With s = 1 and
 *     theta = 0.5 the CG counts on the Schur complements S~ of paper 003's Darcy problems
 *     grew with the level (2D RT_2: 11 15 24 44 on levels 4-7 against BoomerAMG's 9 10 11 12;
 *     3D RT_1 level 5: 31 against 14); with theta = 0.1 and s = 2 (the default s) or s = 3
 *     they stay near BoomerAMG's: s = 3 within 1.2 times on every matrix of the study in
 *     bench/results/2026-11-28-amg-prolongation-smoothing.md, s = 2 within 1.2 times on the
 *     3D S~ but up to 1.5 times on the 2D S~ (ts_hdiv_system takes s = 3 there) and 1.4 on a
 *     3D Q2 Laplacian; operator complexities 1.2-2.7 (s = 2) and 1.7-4.2 (s = 3).
 *     With prolongation_filter (the default) the steps take the filtered matrix A_F and its
 *     diagonal D_F instead (filtered_matrix, prolongation; Vanek, Mandel and Brezina 1996):
 *     smoothing with A smears every coarse basis function across the weak couplings too, so
 *     on cells of aspect ratio 3 the aggregates along the strong direction gave dense coarse
 *     matrices (operator complexity 5.4 for CG counts near BoomerAMG's) and theta = 0.1
 *     square aggregates whose counts grew with the level (2D RT_2 Darcy S~: 10 16 26 on
 *     levels 3-5 against BoomerAMG's 10 10 10); with A_F and theta = 0.12: 7 7 8, complexity
 *     3.3-3.5 (aspect ratio 4: 13 -> 8, complexity 5.6 -> 2.9).  On square cells the counts
 *     stay within one iteration of A's and the complexities do not grow (the 3D Q_2, Q_3
 *     Laplacians need one and four iterations fewer):
 *     bench/results/2026-11-28-amg-anisotropic.md.
 *  5. The coarse matrix P^T A P (Galerkin), symmetric positive definite again.
 * The sparse products (A T or A_F T in step 4, A P and P^T (A P) in step 5) run on the
 * backend the AMG is built for when it has csr_multiply (cuda, hip: SpGEMM;
 * ts_matrix_multiply_on), the rest of the setup (A_F included) on the host.
 * The levels end when a coarse matrix has at most coarse_size rows (or max_levels are made,
 * or an aggregation reduces the rows by less than a tenth); there the LU of the coarsest
 * matrix (coarse-dense.c).  Smoothers: Chebyshev of degree smoother_degree on D^{-1} A_l
 * (ts_pc_create_chebyshev), symmetric, so the cycle is symmetric positive definite: a
 * preconditioner for CG and MINRES. */
#include <math.h>
#include <string.h>
#include "mg-impl.h"
#include "../pc/pc-impl.h"

#define AMG_POWER_ITERATIONS 20

void ts_amg_options_default(ts_amg_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->strength_threshold = 0.12;
  o->smoother_degree = 4;
  o->smoothing_steps = 1;
  o->coarse_size = 200;
  o->max_levels = TS_MG_PARTS_MAX_LEVELS;
  o->prolongation_smoothing_steps = 2;
  o->prolongation_filter = 1;
}

static int check_options(const ts_amg_options *o) {
  TS_CHECK_ARG(o->strength_threshold >= 0.0 && o->strength_threshold < 1.0,
               "ts_pc_create_amg: strength_threshold = %g, allowed 0 <= theta < 1",
               o->strength_threshold);
  TS_CHECK_ARG(o->smoother_degree >= 1 && o->smoother_degree <= 20,
               "ts_pc_create_amg: smoother_degree = %d, allowed 1..20", o->smoother_degree);
  TS_CHECK_ARG(o->smoothing_steps >= 1 && o->smoothing_steps <= 100,
               "ts_pc_create_amg: smoothing_steps = %d, allowed 1..100", o->smoothing_steps);
  TS_CHECK_ARG(o->coarse_size >= 1 && o->coarse_size <= 8000,
               "ts_pc_create_amg: coarse_size = %d, allowed 1..8000 (the coarsest level is "
               "solved by a dense LU)", o->coarse_size);
  TS_CHECK_ARG(o->max_levels >= 1 && o->max_levels <= TS_MG_PARTS_MAX_LEVELS,
               "ts_pc_create_amg: max_levels = %d, allowed 1..%d", o->max_levels,
               TS_MG_PARTS_MAX_LEVELS);
  TS_CHECK_ARG(o->host_products == 0 || o->host_products == 1,
               "ts_pc_create_amg: host_products = %d, allowed 0 (the backend's sparse products "
               "where it has them) or 1 (the host's)", o->host_products);
  TS_CHECK_ARG(o->prolongation_smoothing_steps >= 0 && o->prolongation_smoothing_steps <= 4,
               "ts_pc_create_amg: prolongation_smoothing_steps = %d, allowed 0 (plain "
               "aggregation) to 4", o->prolongation_smoothing_steps);
  TS_CHECK_ARG(o->prolongation_filter == 0 || o->prolongation_filter == 1,
               "ts_pc_create_amg: prolongation_filter = %d, allowed 0 (the prolongation "
               "smoothed with A) or 1 (with the filtered matrix A_F)", o->prolongation_filter);
  return 0;
}

/* ---------------------------------------------------------------- host CSR helpers */

typedef struct csr_view {
  int64_t n;
  const int64_t *offsets, *columns;
  const double *values;
} csr_view;

static csr_view view_of(ts_matrix A) {
  csr_view v = {.n = ts_matrix_rows(A)};
  ts_matrix_csr(A, &v.offsets, &v.columns, &v.values);
  return v;
}

/* the diagonal entries; every one positive, else TS_ERR_ARG naming the row */
static int positive_diagonal(const csr_view *a, double *d) {
  for (int64_t i = 0; i < a->n; ++i) {
    d[i] = 0.0;
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
      if (a->columns[e] == i) d[i] = a->values[e];
    if (!(d[i] > 0.0))
      return TS_ERROR(TS_ERR_ARG, "ts_pc_create_amg: the diagonal entry of row %lld is %g, a "
                      "symmetric positive definite matrix (positive diagonal) is required",
                      (long long)i, d[i]);
  }
  return 0;
}

/* A = A^T to rounding (pattern and values), else TS_ERR_ARG naming an entry */
static int check_symmetric(ts_matrix A) {
  TS_CHECK_ARG(ts_matrix_rows(A) == ts_matrix_columns(A),
               "ts_pc_create_amg: the matrix is %lld x %lld, a square one is required",
               (long long)ts_matrix_rows(A), (long long)ts_matrix_columns(A));
  ts_matrix T;
  TS_CALL(ts_matrix_transpose(A, &T));
  const csr_view a = view_of(A), t = view_of(T);
  double largest = 0.0;
  for (int64_t e = 0; e < a.offsets[a.n]; ++e) largest = fmax(largest, fabs(a.values[e]));
  int64_t row = -1, column = -1;
  for (int64_t i = 0; i < a.n && row < 0; ++i) {
    if (a.offsets[i + 1] - a.offsets[i] != t.offsets[i + 1] - t.offsets[i]) row = i;
    for (int64_t e = a.offsets[i]; e < a.offsets[i + 1] && row < 0; ++e) {
      const int64_t f = t.offsets[i] + (e - a.offsets[i]);
      if (a.columns[e] != t.columns[f] || fabs(a.values[e] - t.values[f]) > 1e-12 * largest) {
        row = i;
        column = a.columns[e];
      }
    }
  }
  ts_matrix_destroy(&T);
  if (row >= 0)
    return TS_ERROR(TS_ERR_ARG, "ts_pc_create_amg: the matrix is not symmetric (row %lld, "
                    "column %lld): smoothed aggregation needs a symmetric positive definite "
                    "matrix", (long long)row, (long long)column);
  return 0;
}

/* ---------------------------------------------------------------- aggregation */

/* Couplings that differ by rounding only (a coarse matrix's sums taken in another order, as
 * a GPU's SpGEMM takes them) must give the same aggregates: the comparisons of |a_ij| below
 * take values within this relative margin as equal. */
#define AMG_TIE 1e-10

/* strong[e] for every stored entry e: 1 when it couples its row to another row strongly */
static void strong_couplings(const csr_view *a, double theta, unsigned char *strong) {
  for (int64_t i = 0; i < a->n; ++i) {
    double largest = 0.0;
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
      if (a->columns[e] != i) largest = fmax(largest, fabs(a->values[e]));
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
      strong[e] = a->columns[e] != i && a->values[e] != 0.0 &&
                  fabs(a->values[e]) >= theta * largest * (1.0 - AMG_TIE);
  }
}

/* pass 1: rows whose strong neighbours are all free found aggregates with them */
static int64_t aggregate_roots(const csr_view *a, const unsigned char *strong, int64_t *agg) {
  int64_t count = 0;
  for (int64_t i = 0; i < a->n; ++i) {
    if (agg[i] != -1) continue;
    int free = 1, neighbours = 0;
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
      if (strong[e]) {
        neighbours = 1;
        free &= agg[a->columns[e]] == -1;
      }
    if (!neighbours) {
      agg[i] = -2; /* isolated: no aggregate */
      continue;
    }
    if (!free) continue;
    agg[i] = count;
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
      if (strong[e]) agg[a->columns[e]] = count;
    ++count;
  }
  return count;
}

/* An aggregate grows in pass 2 to at most this many times the largest aggregate of pass 1
 * (see aggregate_attach) */
#define AMG_AGGREGATE_GROWTH 1.5

/* The aggregate of row i's most strongly coupled aggregated strong neighbour among the
 * aggregates of fewer than `bound` rows (size[]: the aggregates' rows; the first of those
 * equally strong), or -1 when there is none; *alone: whether every strong neighbour is
 * aggregated (none free). */
static int64_t strongest_aggregate(const csr_view *a, const unsigned char *strong,
                                   const int64_t *agg, const int64_t *size, double bound,
                                   int64_t i, int *alone) {
  double best = 0.0;
  int64_t to = -1;
  *alone = 1;
  for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e) {
    const int64_t j = a->columns[e];
    if (!strong[e]) continue;
    *alone &= agg[j] != -1;
    if (agg[j] >= 0 && (double)size[agg[j]] < bound &&
        fabs(a->values[e]) > best * (1.0 + AMG_TIE)) {
      best = fabs(a->values[e]);
      to = agg[j];
    }
  }
  return to;
}

/* pass 2: a free row joins the aggregate of its most strongly coupled neighbour among those
 * aggregated so far (the first of those equally strong; a row attached earlier in this pass
 * counts, so an aggregate grows outwards row by row) whose aggregate has fewer than
 * AMG_AGGREGATE_GROWTH times the rows of pass 1's largest (aggregates 0..count1-1): the
 * bound of step 2 in the comment at the top, which stops a line of rows from chaining into
 * one aggregate.  A row still free after that whose strong neighbours are all aggregated
 * joins the most strongly coupled one past the bound: pass 3 would leave it an aggregate of
 * one (61 of them on the first coarse level of the aspect-ratio-3 RT_2 S~ with 2 smoothing
 * steps, 10 CG iterations instead of 8). */
static int aggregate_attach(const csr_view *a, const unsigned char *strong, int64_t count1,
                            int64_t *agg) {
  int64_t *size = NULL, largest = 0;
  TS_CALL(ts_calloc((size_t)count1 + 1, sizeof *size, "AMG aggregate sizes", &size));
  for (int64_t i = 0; i < a->n; ++i)
    if (agg[i] >= 0) size[agg[i]]++;
  for (int64_t c = 0; c < count1; ++c) largest = size[c] > largest ? size[c] : largest;
  const double bound = AMG_AGGREGATE_GROWTH * (double)largest;
  int alone;
  for (int64_t i = 0; i < a->n; ++i) {
    if (agg[i] != -1) continue;
    const int64_t to = strongest_aggregate(a, strong, agg, size, bound, i, &alone);
    if (to >= 0) {
      agg[i] = to;
      size[to]++;
    }
  }
  /* rows whose strong neighbours are all aggregated: past the bound, not alone */
  for (int64_t i = 0; i < a->n; ++i) {
    if (agg[i] != -1) continue;
    const int64_t to = strongest_aggregate(a, strong, agg, size, INFINITY, i, &alone);
    if (alone && to >= 0) agg[i] = to;
  }
  ts_free(&size);
  return 0;
}

/* pass 3: the rows still free found aggregates of themselves and their free strong
 * neighbours */
static int64_t aggregate_rest(const csr_view *a, const unsigned char *strong, int64_t count,
                              int64_t *agg) {
  for (int64_t i = 0; i < a->n; ++i) {
    if (agg[i] != -1) continue;
    agg[i] = count;
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
      if (strong[e] && agg[a->columns[e]] == -1) agg[a->columns[e]] = count;
    ++count;
  }
  return count;
}

/* agg[i]: the aggregate of row i (0..*count-1) or -2 (none), from the strong couplings */
static int aggregate(const csr_view *a, const unsigned char *strong, int64_t *agg,
                     int64_t *count) {
  for (int64_t i = 0; i < a->n; ++i) agg[i] = -1;
  const int64_t count1 = aggregate_roots(a, strong, agg);
  TS_CALL(aggregate_attach(a, strong, count1, agg));
  *count = aggregate_rest(a, strong, count1, agg);
  return 0;
}

/* ---------------------------------------------------------------- prolongation */

/* T: n x count, the constant 1/sqrt(size) on each aggregate */
static int tentative_prolongation(int64_t n, const int64_t *agg, int64_t count, ts_matrix *T) {
  int64_t *rows = NULL, *cols = NULL, *size = NULL;
  double *values = NULL;
  int ierr = ts_calloc((size_t)n + 1, sizeof *rows, "AMG prolongation rows", &rows);
  if (!ierr) ierr = ts_calloc((size_t)n + 1, sizeof *cols, "AMG prolongation columns", &cols);
  if (!ierr) ierr = ts_calloc((size_t)n + 1, sizeof *values, "AMG prolongation values", &values);
  if (!ierr) ierr = ts_calloc((size_t)count + 1, sizeof *size, "AMG aggregate sizes", &size);
  int64_t m = 0;
  if (!ierr) {
    for (int64_t i = 0; i < n; ++i)
      if (agg[i] >= 0) size[agg[i]]++;
    for (int64_t i = 0; i < n; ++i)
      if (agg[i] >= 0) {
        rows[m] = i;
        cols[m] = agg[i];
        values[m++] = 1.0 / sqrt((double)size[agg[i]]);
      }
    ierr = ts_matrix_create_triplets(n, count, m, rows, cols, values, T);
  }
  ts_free(&rows);
  ts_free(&cols);
  ts_free(&values);
  ts_free(&size);
  return ierr;
}

/* the largest eigenvalue of D^{-1} A (that of the symmetric D^{-1/2} A D^{-1/2}) by power
 * iteration from a fixed start, as its Rayleigh quotient */
static int largest_eigenvalue(const csr_view *a, const double *d, double *rho) {
  double *x = NULL, *y = NULL;
  int ierr = ts_calloc((size_t)a->n, sizeof *x, "AMG power iteration", &x);
  if (!ierr) ierr = ts_calloc((size_t)a->n, sizeof *y, "AMG power iteration", &y);
  for (int64_t i = 0; i < a->n && !ierr; ++i) x[i] = 1.0 + (double)((i * 7919) % 101) / 101.0;
  *rho = 0.0;
  for (int it = 0; it < AMG_POWER_ITERATIONS && !ierr; ++it) {
    double xx = 0.0, xy = 0.0, yy = 0.0;
    for (int64_t i = 0; i < a->n; ++i) {
      double s = 0.0;
      for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
        s += a->values[e] * x[a->columns[e]] / sqrt(d[a->columns[e]]);
      y[i] = s / sqrt(d[i]);
      xx += x[i] * x[i];
      xy += x[i] * y[i];
      yy += y[i] * y[i];
    }
    *rho = xy / xx;
    const double scale = 1.0 / sqrt(yy);
    for (int64_t i = 0; i < a->n; ++i) x[i] = y[i] * scale;
  }
  ts_free(&x);
  ts_free(&y);
  return ierr;
}

/* P = (I - omega D^{-1} A)^steps T, omega = 4 / (3 rho(D^{-1} A)), steps >= 1; the products
 * A P_i on `products` (ts_matrix_multiply_on: the backend's SpGEMM, or the host for NULL) */
static int smoothed_prolongation(ts_backend products, ts_matrix A, const double *d, ts_matrix T,
                                 int steps, ts_matrix *P) {
  const csr_view a = view_of(A);
  double rho, *scale = NULL;
  TS_CALL(largest_eigenvalue(&a, d, &rho));
  const double omega = 4.0 / (3.0 * rho);
  int ierr = ts_calloc((size_t)a.n, sizeof *scale, "AMG prolongation smoothing", &scale);
  for (int64_t i = 0; i < a.n && !ierr; ++i) scale[i] = -omega / d[i];
  ts_matrix previous = T;
  for (int step = 0; step < steps && !ierr; ++step) {
    ts_matrix AP = NULL, next = NULL;
    ierr = ts_matrix_multiply_on(products, A, previous, &AP);
    if (!ierr) ierr = ts_matrix_scale(AP, scale, NULL);
    if (!ierr) ierr = ts_matrix_add(1.0, previous, 1.0, AP, &next);
    ts_matrix_destroy(&AP);
    if (previous != T) ts_matrix_destroy(&previous);
    previous = next;
  }
  if (!ierr) *P = previous;
  else if (previous != T) ts_matrix_destroy(&previous);
  ts_free(&scale);
  return ierr;
}

/* Ac = P^T A P, the two products on `products` */
static int galerkin(ts_backend products, ts_matrix A, ts_matrix P, ts_matrix *Ac) {
  ts_matrix AP = NULL, R = NULL;
  int ierr = ts_matrix_multiply_on(products, A, P, &AP);
  if (!ierr) ierr = ts_matrix_transpose(P, &R);
  if (!ierr) ierr = ts_matrix_multiply_on(products, R, AP, Ac);
  ts_matrix_destroy(&AP);
  ts_matrix_destroy(&R);
  return ierr;
}

/* A row's lumped diagonal below this fraction of a_ii keeps the row unfiltered (see
 * filtered_matrix) */
#define AMG_FILTER_MIN_DIAGONAL 0.1

/* The filtered matrix A_F of smoothed aggregation (Vanek, Mandel and Brezina 1996): row i
 * keeps a_ii and its strong negative couplings; the other entries (the weak couplings and
 * every positive one) are dropped and added to the diagonal, so that A_F 1 =
 * A 1 and P = (I - omega D_F^{-1} A_F)^s T keeps the constants A keeps.  A row whose lumped
 * diagonal would fall below AMG_FILTER_MIN_DIAGONAL a_ii (many small negative couplings of a
 * coarse matrix outweighing its diagonal) stays A's row: the Jacobi steps need a positive
 * diagonal.  A_F is not symmetric where strength is not (row i's largest coupling is not
 * row j's); it only smooths P, the coarse matrix is P^T A P. */
static int filtered_matrix(const csr_view *a, const unsigned char *strong, ts_matrix *AF) {
  const int64_t m = a->offsets[a->n];
  int64_t *rows = NULL, *cols = NULL;
  double *values = NULL;
  int ierr = ts_calloc((size_t)m + 1, sizeof *rows, "AMG filtered rows", &rows);
  if (!ierr) ierr = ts_calloc((size_t)m + 1, sizeof *cols, "AMG filtered columns", &cols);
  if (!ierr) ierr = ts_calloc((size_t)m + 1, sizeof *values, "AMG filtered values", &values);
  int64_t t = 0;
  for (int64_t i = 0; i < a->n && !ierr; ++i) {
    double diagonal = 0.0, lumped = 0.0;
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e) {
      if (a->columns[e] == i) diagonal = a->values[e];
      else if (!strong[e] || a->values[e] > 0.0) lumped += a->values[e];
    }
    const int filter = diagonal + lumped >= AMG_FILTER_MIN_DIAGONAL * diagonal;
    rows[t] = cols[t] = i;
    values[t++] = filter ? diagonal + lumped : diagonal;
    for (int64_t e = a->offsets[i]; e < a->offsets[i + 1]; ++e)
      if (a->columns[e] != i && (!filter || (strong[e] && a->values[e] < 0.0))) {
        rows[t] = i;
        cols[t] = a->columns[e];
        values[t++] = a->values[e];
      }
  }
  if (!ierr) ierr = ts_matrix_create_triplets(a->n, a->n, t, rows, cols, values, AF);
  ts_free(&rows);
  ts_free(&cols);
  ts_free(&values);
  return ierr;
}

/* P = (I - omega D_F^{-1} A_F)^steps T, A_F the filtered matrix of A (omega from the same
 * power iteration, an estimate of rho(D_F^{-1} A_F) where A_F is not symmetric) */
static int filtered_prolongation(ts_backend products, const csr_view *a,
                                 const unsigned char *strong, ts_matrix T, int steps,
                                 ts_matrix *P) {
  double *d = NULL;
  ts_matrix AF = NULL;
  int ierr = ts_calloc((size_t)a->n, sizeof *d, "AMG filtered diagonal", &d);
  if (!ierr) ierr = filtered_matrix(a, strong, &AF);
  if (!ierr) {
    const csr_view f = view_of(AF);
    ierr = positive_diagonal(&f, d);
  }
  if (!ierr) ierr = smoothed_prolongation(products, AF, d, T, steps, P);
  ts_matrix_destroy(&AF);
  ts_free(&d);
  return ierr;
}

/* P from T on level `level` (0 the finest): s smoothing steps with A or its filtered matrix
 * (options), or T itself.  The filter keeps the couplings at least theta 2^-level times the
 * row's largest (strong: those of the aggregation, recomputed there below level 0), as
 * Vanek, Mandel and Brezina halve their threshold from level to level: a coarse matrix's
 * wider stencil carries much of its rows in many small couplings, and dropping them with
 * the fine level's theta spoiled the smoothing (cells of aspect ratio 2, 2D RT_2 Darcy S~,
 * level 5: 15 CG iterations, 11 with the halved threshold, BoomerAMG 10). */
static int prolongation(ts_backend products, ts_matrix A, const double *d,
                        unsigned char *strong, const ts_amg_options *o, int level,
                        ts_matrix *T, ts_matrix *P) {
  const int steps = o->prolongation_smoothing_steps;
  if (!steps) {
    *P = *T;
    *T = NULL;
    return 0;
  }
  if (!o->prolongation_filter) return smoothed_prolongation(products, A, d, *T, steps, P);
  const csr_view a = view_of(A);
  if (level) strong_couplings(&a, ldexp(o->strength_threshold, -level), strong);
  return filtered_prolongation(products, &a, strong, *T, steps, P);
}

/* One coarsening of A (level `level`): P and Ac = P^T A P; *P stays NULL when the
 * aggregation would not reduce the rows by a tenth (or leaves no aggregate). */
static int coarsen(ts_backend products, ts_matrix A, const ts_amg_options *o, int level,
                   ts_matrix *P, ts_matrix *Ac) {
  const int64_t n = ts_matrix_rows(A);
  const csr_view a = view_of(A);
  double *d = NULL;
  int64_t *agg = NULL, count = 0;
  unsigned char *strong = NULL;
  ts_matrix T = NULL;
  int ierr = ts_calloc((size_t)n, sizeof *d, "AMG diagonal", &d);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *agg, "AMG aggregates", &agg);
  if (!ierr) ierr = ts_calloc((size_t)a.offsets[n] + 1, 1, "AMG strong couplings", &strong);
  if (!ierr) ierr = positive_diagonal(&a, d);
  if (!ierr) {
    strong_couplings(&a, o->strength_threshold, strong);
    ierr = aggregate(&a, strong, agg, &count);
  }
  const int worth = count > 0 && (double)count <= 0.9 * (double)n;
  if (!ierr && worth) ierr = tentative_prolongation(n, agg, count, &T);
  if (!ierr && worth) ierr = prolongation(products, A, d, strong, o, level, &T, P);
  if (!ierr && worth) ierr = galerkin(products, A, *P, Ac);
  ts_matrix_destroy(&T);
  ts_free(&d);
  ts_free(&agg);
  ts_free(&strong);
  return ierr;
}

/* ---------------------------------------------------------------- the V-cycle */

/* The kind "amg": the multigrid-levels V-cycle it wraps (data), under its own name for
 * ts_pc_kind and problem files */
static int amg_apply(ts_pc pc, ts_vec r, ts_vec z) {
  TS_CALL(ts_pc_apply(pc->data, r, z));
  return 0;
}

static void amg_destroy(ts_pc pc) {
  ts_pc vcycle = pc->data;
  ts_pc_destroy(&vcycle);
  pc->data = NULL;
}

const ts_pc_ops ts_pc_amg_ops = {.name = "amg", .apply = amg_apply, .destroy = amg_destroy};

/* the host matrices of the levels, finest first: M[0] = A (borrowed), P[l] from level l+1
 * (coarser) to l; *levels of them */
typedef struct amg_setup {
  int levels;
  ts_matrix M[TS_MG_PARTS_MAX_LEVELS], P[TS_MG_PARTS_MAX_LEVELS];
} amg_setup;

static void setup_free(amg_setup *s) {
  for (int l = 0; l < s->levels; ++l) {
    if (l) ts_matrix_destroy(&s->M[l]);
    ts_matrix_destroy(&s->P[l]);
  }
}

static int build_levels(ts_backend products, ts_matrix A, const ts_amg_options *o,
                        amg_setup *s) {
  s->M[0] = A;
  s->levels = 1;
  while (s->levels < o->max_levels && ts_matrix_rows(s->M[s->levels - 1]) > o->coarse_size) {
    ts_matrix P = NULL, Ac = NULL;
    const int ierr = coarsen(products, s->M[s->levels - 1], o, s->levels - 1, &P, &Ac);
    if (ierr) {
      ts_matrix_destroy(&P);
      ts_matrix_destroy(&Ac);
      return ierr;
    }
    if (!P) break;
    s->P[s->levels - 1] = P;
    s->M[s->levels++] = Ac;
  }
  const int64_t coarsest = ts_matrix_rows(s->M[s->levels - 1]);
  TS_CHECK_ARG(coarsest <= 8000, "ts_pc_create_amg: the coarsening stopped at %lld rows on "
               "level %d, more than the dense coarse solve takes (8000): lower "
               "strength_threshold (larger aggregates) or raise max_levels", (long long)coarsest, s->levels - 1);
  return 0;
}

/* the backend parts from the host levels (parts level i = setup level levels-1-i) */
static int make_parts(ts_backend backend, const amg_setup *s, const ts_amg_options *o,
                      ts_mg_parts *v) {
  v->owns_operators = 1;
  v->n = s->levels;
  for (int i = 0; i < s->levels; ++i) {
    const int l = s->levels - 1 - i;
    TS_CALL(ts_operator_create_matrix(backend, s->M[l], TS_DOUBLE, &v->A[i]));
    if (i) {
      TS_CALL(ts_operator_create_matrix_transposable(backend, s->P[l], TS_DOUBLE, &v->P[i]));
      TS_CALL(ts_pc_create_chebyshev(v->A[i], o->smoother_degree, &v->smoothers[i]));
    }
  }
  TS_CALL(ts_mg_dense_inverse_create_matrix(backend, s->M[s->levels - 1], NULL,
                                            &v->coarse_inverse));
  TS_CALL(ts_pc_create_operator(v->coarse_inverse, &v->coarse));
  return 0;
}

static void describe(const amg_setup *s, ts_amg_hierarchy *h) {
  memset(h, 0, sizeof *h);
  h->levels = s->levels;
  double fine = 0.0, all = 0.0;
  for (int l = 0; l < s->levels; ++l) {
    h->rows[l] = ts_matrix_rows(s->M[l]);
    h->nonzeros[l] = ts_matrix_nonzeros(s->M[l]);
    all += (double)h->nonzeros[l];
    if (!l) fine = (double)h->nonzeros[l];
  }
  h->operator_complexity = all / fine;
}

int ts_pc_create_amg(ts_backend backend, ts_matrix A, const ts_amg_options *options, ts_pc *pc,
                     ts_amg_hierarchy *hierarchy) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(A);
  ts_amg_options o;
  ts_amg_options_default(&o);
  if (options) o = *options;
  TS_CALL(check_options(&o));
  TS_CALL(check_symmetric(A));
  amg_setup s = {0};
  int ierr = build_levels(o.host_products ? NULL : backend, A, &o, &s);
  ts_mg_parts *v = NULL;
  if (!ierr) ierr = ts_calloc(1, sizeof *v, "AMG parts", &v);
  if (!ierr) ierr = make_parts(backend, &s, &o, v);
  if (!ierr && hierarchy) describe(&s, hierarchy);
  setup_free(&s);
  if (ierr) {
    ts_mg_parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "algebraic multigrid setup");
  }
  ts_pc vcycle = NULL;
  TS_CALL(ts_mg_parts_vcycle(v, o.smoothing_steps, "algebraic multigrid", &vcycle));
  TS_CALL(ts_pc_create_shell(&ts_pc_amg_ops, backend, ts_matrix_rows(A), TS_DOUBLE, vcycle, pc));
  return 0;
}
