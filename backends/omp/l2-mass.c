/* l2-mass.c -- the omp backend's L2 (DGQ_k) mass and its inverse on the cells of a box or a
 * mapped level (ts_l2_mass_plan; paper 003, sections 2.5 and 3.1), in double precision.
 *
 * Every cell is independent (W is block diagonal), so the cells are shared among the
 * threads with no atomics and no reduction: a thread gathers its cell's n = (k+1)^dim
 * values, works on them in its own stack buffers and scatters the result.
 *   apply:    U^T D U x by sum factorization (U: the user's basis at the n_q points per
 *             direction, D the cell's point weights);
 *   dense:    the stored n x n block times x (the explicit inverse);
 *   Cholesky: the two triangular solves with the stored factor L (L L^T y = x);
 *   CG:       the change of basis b = C^T x, Jacobi-preconditioned CG on S^T D S z = b
 *             (its own dot products over the cell's n values, the local mass by sum
 *             factorization), y = C z: the whole solve fused, per cell.
 * The cell functions take the dimension and the degree as arguments and are inlined into
 * one loop per (dim, k) (cells_for_degree), so that every sweep has constant trip counts. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "omp-l2-mass.h"
#include "omp-sweep.h"
#include "omp-threads.h"

#define L2_INLINE static inline __attribute__((always_inline))
#define MN TS_MAX_DEGREE       /* k + 1 */
#define MQ (TS_MAX_DEGREE + 1) /* n_q = k + 2 */
#define MN3 (MN * MN * MN)
#define MQ3 (MQ * MQ * MQ)

/* The plan's 1D tables and their transposes, and the sizes. */
typedef struct {
  int dim, n1, nq, n, np;
  double U[MQ * MN], Ut[MN * MQ];  /* the user's basis at the points and U^T */
  double S[MQ * MN], St[MN * MQ];  /* the solve basis at the points and S^T */
  double C[MN * MN], Ct[MN * MN];  /* the change of basis C (u = C v) and C^T */
} l2_tables;

/* The buffers of one cell's solve (on the thread's stack). */
typedef struct {
  double x[MN3], r[MN3], z[MN3], p[MN3], q[MN3];
  double t0[MQ3], t1[MQ3], t2[MQ3];
} l2_work;

static void transpose(int rows, int cols, const double *A, double *At) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) At[c * rows + r] = A[r * cols + c];
}

static void tables_init(const ts_l2_mass_plan *pl, l2_tables *t) {
  t->dim = pl->dim;
  t->n1 = pl->degree + 1;
  t->nq = pl->n_q;
  t->n = pl->dim == 3 ? t->n1 * t->n1 * t->n1 : t->n1 * t->n1;
  t->np = pl->dim == 3 ? t->nq * t->nq * t->nq : t->nq * t->nq;
  if (pl->user_1d) {
    memcpy(t->U, pl->user_1d, sizeof(double) * t->nq * t->n1);
    transpose(t->nq, t->n1, t->U, t->Ut);
  }
  if (pl->solve_1d) {
    memcpy(t->S, pl->solve_1d, sizeof(double) * t->nq * t->n1);
    transpose(t->nq, t->n1, t->S, t->St);
  }
  if (pl->change_1d) {
    memcpy(t->C, pl->change_1d, sizeof(double) * t->n1 * t->n1);
    transpose(t->n1, t->n1, t->C, t->Ct);
  }
}

/* out = (x)_d B in: from cols^dim to rows^dim values (index 0 fastest), B rows x cols
 * row-major, direction by direction. */
L2_INLINE void tensor_apply(const int dim, const int cols, const int rows, const double *B,
                            const double *in, double *out, double *t0, double *t1) {
  if (dim == 2) {
    omp_sweep(1, cols, cols, B, rows, in, t0);
    omp_sweep(rows, cols, 1, B, rows, t0, out);
    return;
  }
  omp_sweep(1, cols, cols * cols, B, rows, in, t0);
  omp_sweep(rows, cols, cols, B, rows, t0, t1);
  omp_sweep(rows * rows, cols, 1, B, rows, t1, out);
}

/* y = B^T D B x on one cell: the mass in the basis of the table B (n_q x n1) and Bt. */
L2_INLINE void cell_mass(const int dim, const int n1, const int nq, const double *B,
                         const double *Bt, const double *D, const double *x, double *y,
                         l2_work *w) {
  const int np = dim == 3 ? nq * nq * nq : nq * nq;
  tensor_apply(dim, n1, nq, B, x, w->t2, w->t0, w->t1);
  for (int q = 0; q < np; ++q) w->t2[q] *= D[q];
  tensor_apply(dim, nq, n1, Bt, w->t2, y, w->t0, w->t1);
}

/* The global index of the first DoF of a cell and the strides of its directions 1 and 2. */
static int64_t cell_base(const ts_l2_mass_plan *pl, int64_t cell) {
  const int64_t n1 = pl->degree + 1, c0 = cell % pl->cells[0], c1 = cell / pl->cells[0] % pl->cells[1],
                c2 = cell / pl->cells[0] / pl->cells[1];
  return c0 * n1 + pl->n[0] * (c1 * n1 + pl->n[1] * c2 * n1);
}

L2_INLINE void gather(const ts_l2_mass_plan *pl, const int dim, const int n1, int64_t cell,
                      const double *x, double *local) {
  const int n2 = dim == 3 ? n1 : 1;
  const int64_t base = cell_base(pl, cell);
  for (int a2 = 0; a2 < n2; ++a2)
    for (int a1 = 0; a1 < n1; ++a1)
      memcpy(local + (a2 * n1 + a1) * n1, x + base + pl->n[0] * (a1 + pl->n[1] * a2),
             sizeof(double) * n1);
}

L2_INLINE void scatter(const ts_l2_mass_plan *pl, const int dim, const int n1, int64_t cell,
                       const double *local, double *y) {
  const int n2 = dim == 3 ? n1 : 1;
  const int64_t base = cell_base(pl, cell);
  for (int a2 = 0; a2 < n2; ++a2)
    for (int a1 = 0; a1 < n1; ++a1)
      memcpy(y + base + pl->n[0] * (a1 + pl->n[1] * a2), local + (a2 * n1 + a1) * n1,
             sizeof(double) * n1);
}

L2_INLINE double dot(const int n, const double *a, const double *b) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* x = W^{-1} b on one cell by Jacobi-preconditioned CG from 0 in the solve basis, b and the
 * result in the user's basis (x = C z, b_s = C^T b); returns the iterations. */
L2_INLINE int cell_cg(const ts_l2_mass_plan *pl, const l2_tables *t, const int dim, const int n1,
                      const int nq, const double *D, const double *inv_diag, const double *b,
                      double *x, l2_work *w) {
  const int n = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  tensor_apply(dim, n1, n1, t->Ct, b, w->r, w->t0, w->t1); /* r = b_s, z = 0 */
  for (int i = 0; i < n; ++i) {
    w->x[i] = 0.0;
    w->z[i] = inv_diag[i] * w->r[i];
    w->p[i] = w->z[i];
  }
  double rz = dot(n, w->r, w->z);
  const double stop = pl->tolerance * pl->tolerance * rz;
  int it = 0;
  while (rz > stop && it < pl->max_iterations) {
    cell_mass(dim, n1, nq, t->S, t->St, D, w->p, w->q, w);
    const double alpha = rz / dot(n, w->p, w->q);
    for (int i = 0; i < n; ++i) {
      w->x[i] += alpha * w->p[i];
      w->r[i] -= alpha * w->q[i];
      w->z[i] = inv_diag[i] * w->r[i];
    }
    const double rz_new = dot(n, w->r, w->z), beta = rz_new / rz;
    for (int i = 0; i < n; ++i) w->p[i] = w->z[i] + beta * w->p[i];
    rz = rz_new;
    ++it;
  }
  tensor_apply(dim, n1, n1, t->C, w->x, x, w->t0, w->t1);
  return it;
}

/* y = L^{-T} L^{-1} x with L lower triangular, row-major (n x n). */
L2_INLINE void cholesky_solve(const int n, const double *L, const double *x, double *y) {
  for (int i = 0; i < n; ++i) {
    double s = x[i];
    for (int j = 0; j < i; ++j) s -= L[i * n + j] * y[j];
    y[i] = s / L[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = y[i];
    for (int j = i + 1; j < n; ++j) s -= L[j * n + i] * y[j];
    y[i] = s / L[i * n + i];
  }
}

L2_INLINE void dense_apply(const int n, const double *M, const double *x, double *y) {
  for (int i = 0; i < n; ++i) y[i] = dot(n, M + (size_t)i * n, x);
}

/* One cell: gather, the action, scatter. */
L2_INLINE void cell_apply(const ts_l2_mass_plan *pl, const l2_tables *t, const int dim,
                          const int n1, int64_t cell, const double *x, double *y) {
  const int nq = n1 + 1, n = dim == 3 ? n1 * n1 * n1 : n1 * n1, np = dim == 3 ? nq * nq * nq : nq * nq;
  l2_work w;
  double in[MN3], out[MN3];
  gather(pl, dim, n1, cell, x, in);
  const double *D = pl->point_weights, *M = pl->matrices;
  switch (pl->action) {
    case TS_L2_MASS_APPLY: cell_mass(dim, n1, nq, t->U, t->Ut, D + cell * np, in, out, &w); break;
    case TS_L2_MASS_DENSE: dense_apply(n, M + cell * (int64_t)n * n, in, out); break;
    case TS_L2_MASS_CHOLESKY: cholesky_solve(n, M + cell * (int64_t)n * n, in, out); break;
    default:
      ((double *)pl->iterations)[cell] = cell_cg(pl, t, dim, n1, nq, D + cell * np,
                                                 (const double *)pl->inverse_diagonal + cell * n,
                                                 in, out, &w);
  }
  scatter(pl, dim, n1, cell, out, y);
}

/* Every cell, for one dimension and n1 = k + 1 known at compile time. */
L2_INLINE void cells_for_degree(const ts_l2_mass_plan *pl, const l2_tables *t, const int dim,
                                const int n1, const double *x, double *y) {
  const int64_t cells = pl->cells[0] * pl->cells[1] * pl->cells[2];
#pragma omp parallel for schedule(static) num_threads(omp_threads_for(pl->n_dofs, OMP_OPERATOR_GRAIN))
  for (int64_t cell = 0; cell < cells; ++cell) cell_apply(pl, t, dim, n1, cell, x, y);
}

#define L2_DEGREE_CASE(N1)                                            \
  case N1:                                                            \
    if (plan->dim == 3) cells_for_degree(plan, &t, 3, N1, x, y);      \
    else cells_for_degree(plan, &t, 2, N1, x, y);                     \
    break;

int ts_omp_l2_mass_apply(const ts_l2_mass_plan *plan, ts_precision p, const void *x, void *y,
                         char *err, size_t errlen) {
  if (p != TS_DOUBLE) {
    snprintf(err, errlen, "omp l2 mass: precision %d, the kernel is compiled for TS_DOUBLE (0) only",
             (int)p);
    return TS_ERR_UNSUPPORTED;
  }
  if (!x || !y || x == y) {
    snprintf(err, errlen, "omp l2 mass: %s", !x ? "x is NULL" : !y ? "y is NULL"
             : "x and y are the same vector (in-place apply is not supported)");
    return TS_ERR_ARG;
  }
  if (plan->n_q != plan->degree + 2) {
    snprintf(err, errlen, "omp l2 mass: plan->n_q = %d, the kernel takes degree + 2 = %d",
             plan->n_q, plan->degree + 2);
    return TS_ERR_UNSUPPORTED;
  }
  l2_tables t;
  tables_init(plan, &t);
  switch (plan->degree + 1) {
    L2_DEGREE_CASE(1) L2_DEGREE_CASE(2) L2_DEGREE_CASE(3) L2_DEGREE_CASE(4) L2_DEGREE_CASE(5)
    L2_DEGREE_CASE(6) L2_DEGREE_CASE(7) L2_DEGREE_CASE(8) L2_DEGREE_CASE(9) L2_DEGREE_CASE(10)
  }
  return 0;
}
