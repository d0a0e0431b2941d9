/* hdiv-mass.c -- the omp backend's H(div) (RT_k) mass on the cells of a box or a mapped level
 * (ts_hdiv_mass_plan; paper 003, sections 2-3), in double precision.
 *
 * Per cell: gather each component's (k+2)(k+1)^(dim-1) values, interpolate them to the n_q^dim
 * Gauss points by sum factorization (the normal table in the component's own direction, the
 * tangential one across), apply the point tensors G_q (diagonal and constant per cell on a
 * box: c_i prod w_q), integrate back with the transposed tables and add into y.
 *
 * Shared DoFs.  Two cells share DoFs only through a face (component i's end DoFs in direction
 * i).  A thread takes whole lines of cells along direction 0, in order, so the faces normal
 * to direction 0 are added by one thread one after the other; lines are taken in two passes,
 * those with c_1 + c_2 even, then odd: two lines of one pass differ in c_1 or c_2 by one
 * only together with the other, so they share no face.  No atomics; y is zeroed first unless
 * add.  One parallel region per apply; the cell functions take the dimension and the degree
 * as arguments and are inlined into its worksharing loops, one per (dim, k), so that every
 * sweep has constant trip counts. */
#include <stdio.h>
#include <string.h>
#include "omp-hdiv-mass.h"
#include "omp-sweep.h"
#include "omp-threads.h"

/* Without the loop vectorizer: gcc 12 -O3 vectorizes the 3D k = 0 instance (trip counts 1
 * and 2) into loads through an uninitialized pointer (it warns "may be used uninitialized"
 * and the kernel crashes); without it the sweeps measured as fast or faster for every k. */
#pragma GCC optimize("no-tree-vectorize")

#define HM_INLINE static inline __attribute__((always_inline))
#define M1 TS_MAX_DEGREE       /* k + 1 */
#define M2 (TS_MAX_DEGREE + 1) /* k + 2 = n_q */
#define MQ3 (M2 * M2 * M2)

/* The plan's tables, their transposes and the tensor weights prod_d w_q_d. */
typedef struct {
  double N[M2 * M2], Nt[M2 * M2]; /* normal: n_q x (k+2) and its transpose */
  double T[M2 * M1], Tt[M1 * M2]; /* tangential: n_q x (k+1) and its transpose */
  double w[MQ3];
} hm_tables;

typedef struct {
  double u[3][MQ3], t0[MQ3], t1[MQ3], local[MQ3];
} hm_work;

static void transpose(int rows, int cols, const double *A, double *At) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) At[c * rows + r] = A[r * cols + c];
}

static void tables_init(const ts_hdiv_mass_plan *pl, hm_tables *t) {
  const int k1 = pl->degree + 1, nq = pl->n_q, np = pl->dim == 3 ? nq * nq * nq : nq * nq;
  memcpy(t->N, pl->normal_1d, sizeof(double) * nq * (k1 + 1));
  memcpy(t->T, pl->tangential_1d, sizeof(double) * nq * k1);
  transpose(nq, k1 + 1, t->N, t->Nt);
  transpose(nq, k1, t->T, t->Tt);
  for (int q = 0; q < np; ++q) {
    t->w[q] = 1.0;
    for (int d = 0, m = q; d < pl->dim; ++d, m /= nq) t->w[q] *= pl->weights_1d[m % nq];
  }
}

/* out (n_q^dim) = (x)_d B_d in (extents m_d = k+1 + (d == i)), B_d = N for d == i, T else. */
HM_INLINE void to_points(const int dim, const int k1, const int i, const hm_tables *t,
                         const double *in, double *out, hm_work *w) {
  const int nq = k1 + 1, m0 = k1 + (i == 0), m1 = k1 + (i == 1), m2 = k1 + (i == 2);
  const double *B0 = i == 0 ? t->N : t->T, *B1 = i == 1 ? t->N : t->T, *B2 = i == 2 ? t->N : t->T;
  if (dim == 2) {
    omp_sweep(1, m0, m1, B0, nq, in, w->t0);
    omp_sweep(nq, m1, 1, B1, nq, w->t0, out);
    return;
  }
  omp_sweep(1, m0, m1 * m2, B0, nq, in, w->t0);
  omp_sweep(nq, m1, m2, B1, nq, w->t0, w->t1);
  omp_sweep(nq * nq, m2, 1, B2, nq, w->t1, out);
}

/* out (extents m_d) = (x)_d B_d^T in (n_q^dim): the integration against the basis. */
HM_INLINE void from_points(const int dim, const int k1, const int i, const hm_tables *t,
                           const double *in, double *out, hm_work *w) {
  const int nq = k1 + 1, m0 = k1 + (i == 0), m1 = k1 + (i == 1), m2 = k1 + (i == 2);
  const double *B0 = i == 0 ? t->Nt : t->Tt, *B1 = i == 1 ? t->Nt : t->Tt, *B2 = i == 2 ? t->Nt : t->Tt;
  if (dim == 2) {
    omp_sweep(1, nq, nq, B0, m0, in, w->t0);
    omp_sweep(m0, nq, 1, B1, m1, w->t0, out);
    return;
  }
  omp_sweep(1, nq, nq * nq, B0, m0, in, w->t0);
  omp_sweep(m0, nq, nq, B1, m1, w->t0, w->t1);
  omp_sweep(m0 * m1, nq, 1, B2, m2, w->t1, out);
}

/* The global index of component i's first DoF in the cell (c0, c1, c2). */
HM_INLINE int64_t first_dof(const ts_hdiv_mass_plan *pl, const int k1, int i, int64_t c0,
                            int64_t c1, int64_t c2) {
  return pl->offset[i] + c0 * k1 + pl->n_u[i][0] * (c1 * k1 + pl->n_u[i][1] * c2 * k1);
}

/* local (m_0 x m_1 x m_2) = component i's values of the cell (scatter = 0), or y += local
 * (scatter = 1). */
HM_INLINE void move_component(const ts_hdiv_mass_plan *pl, const int dim, const int k1,
                              const int i, int64_t c0, int64_t c1, int64_t c2, int scatter,
                              const double *x, double *local, double *y) {
  const int m0 = k1 + (i == 0), m1 = k1 + (i == 1), m2 = dim == 3 ? k1 + (i == 2) : 1;
  const int64_t base = first_dof(pl, k1, i, c0, c1, c2);
  for (int r2 = 0; r2 < m2; ++r2)
    for (int r1 = 0; r1 < m1; ++r1) {
      const int64_t row = base + pl->n_u[i][0] * (r1 + pl->n_u[i][1] * r2);
      double *l = local + m0 * (r1 + m1 * r2);
      if (scatter)
        for (int r0 = 0; r0 < m0; ++r0) y[row + r0] += l[r0];
      else
        for (int r0 = 0; r0 < m0; ++r0) l[r0] = x[row + r0];
    }
}

/* v_i = sum_j G_ij u_j at every point: the cell's constants c_i times the weights (box), or
 * the stored symmetric tensors (diagonal entries first, then (0,1), (0,2), (1,2)). */
HM_INLINE void apply_tensors(const ts_hdiv_mass_plan *pl, const hm_tables *t, const int dim,
                             const int np, int64_t cell, hm_work *w) {
  const double *G = pl->tensors;
  if (pl->cartesian) {
    for (int i = 0; i < dim; ++i) {
      const double c = G[cell * dim + i];
      for (int q = 0; q < np; ++q) w->u[i][q] *= c * t->w[q];
    }
    return;
  }
  if (dim == 2) {
    const double *g = G + cell * 3 * np;
    for (int q = 0; q < np; ++q) {
      const double u0 = w->u[0][q], u1 = w->u[1][q];
      w->u[0][q] = g[q] * u0 + g[2 * np + q] * u1;
      w->u[1][q] = g[2 * np + q] * u0 + g[np + q] * u1;
    }
    return;
  }
  const double *g = G + cell * 6 * np;
  for (int q = 0; q < np; ++q) {
    const double u0 = w->u[0][q], u1 = w->u[1][q], u2 = w->u[2][q];
    const double g00 = g[q], g11 = g[np + q], g22 = g[2 * np + q];
    const double g01 = g[3 * np + q], g02 = g[4 * np + q], g12 = g[5 * np + q];
    w->u[0][q] = g00 * u0 + g01 * u1 + g02 * u2;
    w->u[1][q] = g01 * u0 + g11 * u1 + g12 * u2;
    w->u[2][q] = g02 * u0 + g12 * u1 + g22 * u2;
  }
}

/* y_K += M_K x_K on the cell (c0, c1, c2). */
HM_INLINE void cell_apply(const ts_hdiv_mass_plan *pl, const hm_tables *t, const int dim,
                          const int k1, int64_t c0, int64_t c1, int64_t c2, const double *x,
                          double *y, hm_work *w) {
  const int nq = k1 + 1, np = dim == 3 ? nq * nq * nq : nq * nq;
  const int64_t cell = c0 + pl->cells[0] * (c1 + pl->cells[1] * c2);
  for (int i = 0; i < dim; ++i) {
    move_component(pl, dim, k1, i, c0, c1, c2, 0, x, w->local, NULL);
    to_points(dim, k1, i, t, w->local, w->u[i], w);
  }
  apply_tensors(pl, t, dim, np, cell, w);
  for (int i = 0; i < dim; ++i) {
    from_points(dim, k1, i, t, w->u[i], w->local, w);
    move_component(pl, dim, k1, i, c0, c1, c2, 1, NULL, w->local, y);
  }
}

/* y (+)= M x: every cell in the two passes of lines, for one dimension and k1 = k + 1 known at
 * compile time; orphaned worksharing loops of the caller's parallel region. */
HM_INLINE void cells_for_degree(const ts_hdiv_mass_plan *pl, const hm_tables *t, const int dim,
                                const int k1, const double *x, double *y, int add) {
  if (!add) {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < pl->n_dofs; ++i) y[i] = 0.0;
  }
  const int64_t lines = pl->cells[1] * pl->cells[2];
  hm_work w;
  for (int parity = 0; parity < 2; ++parity) {
#pragma omp for schedule(static)
    for (int64_t line = 0; line < lines; ++line) {
      const int64_t c1 = line % pl->cells[1], c2 = line / pl->cells[1];
      if ((c1 + c2) % 2 != parity) continue;
      for (int64_t c0 = 0; c0 < pl->cells[0]; ++c0) cell_apply(pl, t, dim, k1, c0, c1, c2, x, y, &w);
    }
  }
}

/* One function per (dim, k1) with its parallel region: the region's body is outlined before
 * inlining, so the constants are written into it. */
typedef void (*hm_cells_fn)(const ts_hdiv_mass_plan *, const hm_tables *, const double *, double *,
                            int);
#define HM_CELLS(DIM, K1)                                                                        \
  static void cells_##DIM##_##K1(const ts_hdiv_mass_plan *pl, const hm_tables *t, const double *x, \
                                 double *y, int add) {                                            \
    _Pragma("omp parallel num_threads(omp_operator_threads(pl->n_dofs))")                          \
    cells_for_degree(pl, t, DIM, K1, x, y, add);                                                  \
  }
#define HM_CELLS_DIMS(K1) HM_CELLS(2, K1) HM_CELLS(3, K1)
HM_CELLS_DIMS(1) HM_CELLS_DIMS(2) HM_CELLS_DIMS(3) HM_CELLS_DIMS(4) HM_CELLS_DIMS(5)
HM_CELLS_DIMS(6) HM_CELLS_DIMS(7) HM_CELLS_DIMS(8) HM_CELLS_DIMS(9) HM_CELLS_DIMS(10)
static const hm_cells_fn cells_fns[2][TS_MAX_DEGREE] = {
    {cells_2_1, cells_2_2, cells_2_3, cells_2_4, cells_2_5, cells_2_6, cells_2_7, cells_2_8,
     cells_2_9, cells_2_10},
    {cells_3_1, cells_3_2, cells_3_3, cells_3_4, cells_3_5, cells_3_6, cells_3_7, cells_3_8,
     cells_3_9, cells_3_10}};

int ts_omp_hdiv_mass_apply(const ts_hdiv_mass_plan *plan, ts_precision p, const void *x, void *y,
                           int add, char *err, size_t errlen) {
  if (p != TS_DOUBLE) {
    snprintf(err, errlen, "omp hdiv mass: precision %d, the kernel is compiled for TS_DOUBLE (0) "
             "only", (int)p);
    return TS_ERR_UNSUPPORTED;
  }
  if (!x || !y || x == y) {
    snprintf(err, errlen, "omp hdiv mass: %s", !x ? "x is NULL" : !y ? "y is NULL"
             : "x and y are the same vector (in-place apply is not supported)");
    return TS_ERR_ARG;
  }
  if (plan->n_q != plan->degree + 2) {
    snprintf(err, errlen, "omp hdiv mass: plan->n_q = %d, the kernel takes degree + 2 = %d",
             plan->n_q, plan->degree + 2);
    return TS_ERR_UNSUPPORTED;
  }
  hm_tables t;
  tables_init(plan, &t);
  cells_fns[plan->dim - 2][plan->degree](plan, &t, x, y, add);
  return 0;
}
