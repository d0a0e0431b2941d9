/* mapped-kernel.h -- the omp backend's operator on mapped cells, written once for both
 * precisions: mapped.c includes this file with REAL = double and REAL = float; FN(name)
 * names the instance.  See mapped.c for the algorithm. */
#ifndef REAL
#error "define REAL and FN before including mapped-kernel.h"
#endif

typedef struct {
  int dim, n1, nq, np, k, n_factors, has_reaction, constrained;
  int batched; /* n_q = k+1: batch_2d, batch_3d (TESSERA_OMP_MAPPED=dofs: cell by cell) */
  int64_t cells[3], n[3];
  REAL S[MQ * MN], D[MQ * MN];   /* n_q x (k+1): basis values and derivatives at the points */
  REAL St[MN * MQ], Dt[MN * MQ]; /* their transposes, (k+1) x n_q */
  REAL C[MQ * MQ], Ct[MQ * MQ];  /* n_q x n_q: the collocation derivative at the points, C^T */
  const REAL *factors;
  const REAL *x;
  REAL *y;
} FN(mctx);

/* One sum-factorization sweep in the middle direction of an array in[after][n][before]:
 * out[a][r][b] (+)= sum_j B[r][j] in[a][j][b] (B rows x n, row-major).  The innermost loop
 * runs over b, contiguous (vectorized when before > 1). */
MKAI void FN(sweep)(int before, int n, int after, const REAL *B, int rows, const REAL *in,
                    REAL *out, int add) {
  for (int a = 0; a < after; ++a)
    for (int r = 0; r < rows; ++r) {
      REAL *o = out + (size_t)(a * rows + r) * before;
      if (!add)
        for (int b = 0; b < before; ++b) o[b] = 0;
      for (int j = 0; j < n; ++j) {
        const REAL c = B[r * n + j];
        const REAL *i = in + (size_t)(a * n + j) * before;
        for (int b = 0; b < before; ++b) o[b] += c * i[b];
      }
    }
}

/* The cell's global DoF indices, -1 for a constrained one (read as zero, not written). */
MKAI void FN(cell_indices)(const FN(mctx) *c, int64_t cell, int64_t *idx) {
  const int n1 = c->n1, k = c->k, n2 = c->dim == 3 ? n1 : 1;
  const int64_t c0 = cell % c->cells[0], c1 = (cell / c->cells[0]) % c->cells[1],
                c2 = cell / (c->cells[0] * c->cells[1]);
  int l = 0;
  for (int a2 = 0; a2 < n2; ++a2)
    for (int a1 = 0; a1 < n1; ++a1)
      for (int a0 = 0; a0 < n1; ++a0, ++l) {
        const int64_t i[3] = {c0 * k + a0, c1 * k + a1, c->dim == 3 ? c2 * k + a2 : 0};
        int bnd = 0;
        for (int d = 0; d < c->dim; ++d) bnd |= i[d] == 0 || i[d] == c->n[d] - 1;
        idx[l] = c->constrained && bnd ? -1 : i[0] + c->n[0] * (i[1] + c->n[1] * i[2]);
      }
}

/* v = G grad u and vv = m u at every point of the cell: the per-point work between the
 * sweeps, with G's upper triangle stored row by row (ts_mapped_plan). */
MKAI void FN(points)(const FN(mctx) *c, int64_t cell, REAL *const *g, const REAL *val,
                     REAL *const *v, REAL *vv) {
  const int np = c->np, dim = c->dim;
  const REAL *F = c->factors + (size_t)cell * c->n_factors * np;
  if (dim == 2) {
    for (int q = 0; q < np; ++q) {
      const REAL a = g[0][q], b = g[1][q];
      v[0][q] = F[q] * a + F[np + q] * b;
      v[1][q] = F[np + q] * a + F[2 * np + q] * b;
    }
  } else {
    for (int q = 0; q < np; ++q) {
      const REAL a = g[0][q], b = g[1][q], e = g[2][q];
      v[0][q] = F[q] * a + F[np + q] * b + F[2 * np + q] * e;
      v[1][q] = F[np + q] * a + F[3 * np + q] * b + F[4 * np + q] * e;
      v[2][q] = F[2 * np + q] * a + F[4 * np + q] * b + F[5 * np + q] * e;
    }
  }
  if (c->has_reaction) {
    const REAL *m = F + (size_t)(c->n_factors - 1) * np;
    for (int q = 0; q < np; ++q) vv[q] = m[q] * val[q];
  }
}

/* yl = A_K xl in 2D: values and gradients at the points (S and D per direction), the
 * point work, then the transposed sweeps.  w: 6 arrays of MQ^3.  n1 = k+1 and q = n_q are
 * compile-time constants in the instances for one degree (FN(cell_for)). */
MKAI void FN(cell_2d)(const FN(mctx) *c, int64_t cell, const REAL *xl, REAL *yl, REAL *w,
                      const int n1, const int q) {
  REAL *A0 = w, *B0 = w + MQ3, *g0 = w + 2 * MQ3, *g1 = w + 3 * MQ3, *val = w + 4 * MQ3,
       *vv = w + 5 * MQ3;
  FN(sweep)(1, n1, n1, c->S, q, xl, A0, 0);
  FN(sweep)(1, n1, n1, c->D, q, xl, B0, 0);
  FN(sweep)(q, n1, 1, c->D, q, A0, g1, 0);
  FN(sweep)(q, n1, 1, c->S, q, B0, g0, 0);
  if (c->has_reaction) FN(sweep)(q, n1, 1, c->S, q, A0, val, 0);
  REAL *g[2] = {g0, g1};
  FN(points)(c, cell, g, val, g, vv); /* in place: v = G g point by point */
  FN(sweep)(q, q, 1, c->Dt, n1, g1, A0, 0);
  if (c->has_reaction) FN(sweep)(q, q, 1, c->St, n1, vv, A0, 1);
  FN(sweep)(q, q, 1, c->St, n1, g0, B0, 0);
  FN(sweep)(1, q, n1, c->St, n1, A0, yl, 0);
  FN(sweep)(1, q, n1, c->Dt, n1, B0, yl, 1);
}

/* yl = A_K xl in 3D, the same with three directions (w: 10 arrays of MQ^3). */
MKAI void FN(cell_3d)(const FN(mctx) *c, int64_t cell, const REAL *xl, REAL *yl, REAL *w,
                      const int n1, const int q) {
  REAL *A0 = w, *B0 = w + MQ3, *SA = w + 2 * MQ3, *DA = w + 3 * MQ3, *SB = w + 4 * MQ3,
       *g0 = w + 5 * MQ3, *g1 = w + 6 * MQ3, *g2 = w + 7 * MQ3, *val = w + 8 * MQ3,
       *vv = w + 9 * MQ3;
  FN(sweep)(1, n1, n1 * n1, c->S, q, xl, A0, 0);
  FN(sweep)(1, n1, n1 * n1, c->D, q, xl, B0, 0);
  FN(sweep)(q, n1, n1, c->S, q, A0, SA, 0);
  FN(sweep)(q, n1, n1, c->D, q, A0, DA, 0);
  FN(sweep)(q, n1, n1, c->S, q, B0, SB, 0);
  FN(sweep)(q * q, n1, 1, c->D, q, SA, g2, 0);
  FN(sweep)(q * q, n1, 1, c->S, q, DA, g1, 0);
  FN(sweep)(q * q, n1, 1, c->S, q, SB, g0, 0);
  if (c->has_reaction) FN(sweep)(q * q, n1, 1, c->S, q, SA, val, 0);
  REAL *g[3] = {g0, g1, g2}, *v[3] = {DA, SB, A0}; /* v: free arrays of MQ3 */
  FN(points)(c, cell, g, val, v, vv);
  FN(sweep)(q * q, q, 1, c->Dt, n1, v[2], SA, 0);
  if (c->has_reaction) FN(sweep)(q * q, q, 1, c->St, n1, vv, SA, 1);
  FN(sweep)(q * q, q, 1, c->St, n1, v[1], g1, 0); /* g1, g0: free again, the transposes */
  FN(sweep)(q * q, q, 1, c->St, n1, v[0], g0, 0); /* of DA and SB */
  FN(sweep)(q, q, n1, c->St, n1, SA, A0, 0);
  FN(sweep)(q, q, n1, c->Dt, n1, g1, A0, 1);
  FN(sweep)(q, q, n1, c->St, n1, g0, B0, 0);
  FN(sweep)(1, q, n1 * n1, c->St, n1, A0, yl, 0);
  FN(sweep)(1, q, n1 * n1, c->Dt, n1, B0, yl, 1);
}

/* 3D by collocation at the points (n_q = k+1, S square), VL cells at once, one vector lane
 * per cell, so that every sweep is a vector operation whatever its direction: u_q = S S S x
 * at the points, the gradient there by C = collocation_1d in each direction, the point
 * work, then C^T in each direction into one array and S^T S^T S^T back: 12 sweeps instead
 * of the 18 of cell_3d. */
typedef REAL FN(vr) __attribute__((vector_size(VB)));
#define VL ((int)(VB / sizeof(REAL)))

/* out[a][r][b] (+)= sum_j B[r][j] in[a][j][b] on arrays of lanes (as FN(sweep)) */
MKAI void FN(vsweep)(int before, int n, int after, const REAL *B, int rows, const FN(vr) *in,
                     FN(vr) *out, int add) {
  for (int a = 0; a < after; ++a)
    for (int r = 0; r < rows; ++r) {
      FN(vr) *o = out + (size_t)(a * rows + r) * before;
      const FN(vr) *i = in + (size_t)a * n * before;
      for (int b = 0; b < before; ++b) {
        FN(vr) sum = add ? o[b] : (FN(vr)){0};
        for (int j = 0; j < n; ++j) sum += B[r * n + j] * i[j * before + b];
        o[b] = sum;
      }
    }
}

/* v = G g in place and vv = m u at every point, lane by lane the cells' own factors (a
 * lane beyond count repeats the last cell: its results are not scattered); 2D: g2 = NULL. */
MKAI void FN(vpoints)(const FN(mctx) *c, int64_t first, int count, FN(vr) *g0, FN(vr) *g1,
                      FN(vr) *g2, const FN(vr) *u, FN(vr) *vv, const int np) {
  const REAL *F[VL];
  for (int lane = 0; lane < VL; ++lane)
    F[lane] = c->factors + (size_t)(first + (lane < count ? lane : count - 1)) * c->n_factors * np;
  for (int q = 0; q < np; ++q) {
    REAL fl[7][VL]; /* the lanes' G (6 values) and m, then as vectors */
    for (int e = 0; e < c->n_factors; ++e)
      for (int lane = 0; lane < VL; ++lane) fl[e][lane] = F[lane][e * np + q];
    FN(vr) f[7];
    memcpy(f, fl, sizeof(FN(vr)) * (size_t)c->n_factors);
    if (!g2) { /* G: 00 01 11, then m */
      const FN(vr) a = g0[q], b = g1[q];
      g0[q] = f[0] * a + f[1] * b;
      g1[q] = f[1] * a + f[2] * b;
      if (c->has_reaction) vv[q] = f[3] * u[q];
      continue;
    }
    const FN(vr) a = g0[q], b = g1[q], e = g2[q];
    g0[q] = f[0] * a + f[1] * b + f[2] * e;
    g1[q] = f[1] * a + f[3] * b + f[4] * e;
    g2[q] = f[2] * a + f[4] * b + f[5] * e;
    if (c->has_reaction) vv[q] = f[6] * u[q];
  }
}

/* The count <= VL cells from first (consecutive in one layer), lane by lane: their nd DoF
 * indices into idx (VL arrays of nd) and their entries of x into xl (Dirichlet DoFs and lanes
 * beyond count as zero). */
MKAI void FN(vgather)(const FN(mctx) *c, int64_t first, int count, int nd, int64_t *idx,
                      FN(vr) *xl) {
  for (int lane = 0; lane < VL; ++lane) {
    int64_t *id = idx + (size_t)lane * nd;
    if (lane < count) FN(cell_indices)(c, first + lane, id);
    for (int l = 0; l < nd; ++l) xl[l][lane] = lane < count && id[l] >= 0 ? c->x[id[l]] : (REAL)0;
  }
}

/* y += yl, lane by lane in cell order (each entry of y gets its cells' contributions in the
 * order of the cell-by-cell kernel), not the Dirichlet DoFs. */
MKAI void FN(vscatter)(const FN(mctx) *c, int count, int nd, const int64_t *idx, const FN(vr) *yl) {
  for (int lane = 0; lane < count; ++lane) {
    const int64_t *id = idx + (size_t)lane * nd;
    for (int l = 0; l < nd; ++l)
      if (id[l] >= 0) c->y[id[l]] += yl[l][lane];
  }
}

/* 2D, VL cells at once: cell_2d's sweeps (S and D from the DoFs; collocation would save no
 * sweep here) on vectors of lanes.  w: 7 arrays of n^2 lanes. */
MKAI void FN(batch_2d)(const FN(mctx) *c, int64_t first, int count, FN(vr) *w, int64_t *idx,
                       const int n) {
  const int n2 = n * n;
  FN(vr) *xl = w, *A0 = w + n2, *B0 = w + 2 * n2, *g0 = w + 3 * n2, *g1 = w + 4 * n2,
         *val = w + 5 * n2, *vv = w + 6 * n2, *yl = xl;
  FN(vgather)(c, first, count, n2, idx, xl);
  FN(vsweep)(1, n, n, c->S, n, xl, A0, 0);
  FN(vsweep)(1, n, n, c->D, n, xl, B0, 0);
  FN(vsweep)(n, n, 1, c->D, n, A0, g1, 0);
  FN(vsweep)(n, n, 1, c->S, n, B0, g0, 0);
  if (c->has_reaction) FN(vsweep)(n, n, 1, c->S, n, A0, val, 0);
  FN(vpoints)(c, first, count, g0, g1, NULL, val, vv, n2);
  FN(vsweep)(n, n, 1, c->Dt, n, g1, A0, 0);
  if (c->has_reaction) FN(vsweep)(n, n, 1, c->St, n, vv, A0, 1);
  FN(vsweep)(n, n, 1, c->St, n, g0, B0, 0);
  FN(vsweep)(1, n, n, c->St, n, A0, yl, 0);
  FN(vsweep)(1, n, n, c->Dt, n, B0, yl, 1);
  FN(vscatter)(c, count, n2, idx, yl);
}

/* y += A_K x on the count <= VL cells from first (consecutive along direction 0 in one
 * layer): gather, apply, scatter lane by lane in cell order.  w: 8 arrays of n^3 lanes, idx:
 * VL arrays of n^3. */
MKAI void FN(batch_3d)(const FN(mctx) *c, int64_t first, int count, FN(vr) *w, int64_t *idx,
                       const int n) {
  const int n2 = n * n, n3 = n2 * n;
  FN(vr) *xl = w, *A0 = w + n3, *B0 = w + 2 * n3, *u = w + 3 * n3, *g0 = w + 4 * n3,
         *g1 = w + 5 * n3, *g2 = w + 6 * n3, *vv = w + 7 * n3, *yl = xl;
  FN(vgather)(c, first, count, n3, idx, xl);
  FN(vsweep)(1, n, n2, c->S, n, xl, A0, 0);
  FN(vsweep)(n, n, n, c->S, n, A0, B0, 0);
  FN(vsweep)(n2, n, 1, c->S, n, B0, u, 0);
  FN(vsweep)(1, n, n2, c->C, n, u, g0, 0);
  FN(vsweep)(n, n, n, c->C, n, u, g1, 0);
  FN(vsweep)(n2, n, 1, c->C, n, u, g2, 0);
  FN(vpoints)(c, first, count, g0, g1, g2, u, vv, n3);
  FN(vsweep)(1, n, n2, c->Ct, n, g0, A0, 0);
  FN(vsweep)(n, n, n, c->Ct, n, g1, A0, 1);
  FN(vsweep)(n2, n, 1, c->Ct, n, g2, A0, 1);
  if (c->has_reaction)
    for (int l = 0; l < n3; ++l) A0[l] += vv[l];
  FN(vsweep)(n2, n, 1, c->St, n, A0, B0, 0);
  FN(vsweep)(n, n, n, c->St, n, B0, A0, 0);
  FN(vsweep)(1, n, n2, c->St, n, A0, yl, 0);
  FN(vscatter)(c, count, n3, idx, yl);
}

typedef void (*FN(batch_fn))(const FN(mctx) *c, int64_t first, int count, FN(vr) *w, int64_t *idx);
#define MAPPED_BATCH_INSTANCE(K)                                                                  \
  TS_BATCH_CLONES static void FN(batch_k##K)(const FN(mctx) *c, int64_t first, int count,     \
                                              FN(vr) *w, int64_t *idx) {                       \
    if (c->dim == 3)                                                                            \
      FN(batch_3d)(c, first, count, w, idx, K + 1);                                             \
    else                                                                                        \
      FN(batch_2d)(c, first, count, w, idx, K + 1);                                             \
  }
MAPPED_BATCH_INSTANCE(1)
MAPPED_BATCH_INSTANCE(2)
MAPPED_BATCH_INSTANCE(3)
MAPPED_BATCH_INSTANCE(4)
MAPPED_BATCH_INSTANCE(5)
MAPPED_BATCH_INSTANCE(6)
MAPPED_BATCH_INSTANCE(7)
MAPPED_BATCH_INSTANCE(8)
MAPPED_BATCH_INSTANCE(9)
MAPPED_BATCH_INSTANCE(10)
#undef MAPPED_BATCH_INSTANCE

/* The batched function: with the (k+1)-point rule (and in 3D collocation_1d), else NULL
 * (cell by cell, FN(cell_for)). */
static FN(batch_fn) FN(batch_for)(const FN(mctx) *c) {
  static const FN(batch_fn) by_degree[TS_MAX_DEGREE + 1] = {
      NULL, FN(batch_k1), FN(batch_k2), FN(batch_k3), FN(batch_k4), FN(batch_k5),
      FN(batch_k6), FN(batch_k7), FN(batch_k8), FN(batch_k9), FN(batch_k10)};
  return c->batched ? by_degree[c->k] : NULL;
}

/* y += A_K x on one cell: gather (Dirichlet entries as zero), apply, scatter.  w: 12
 * arrays of MQ^3 (the last two: the cell's x and y), idx: MQ^3. */
MKAI void FN(cell)(const FN(mctx) *c, int64_t cell, REAL *w, int64_t *idx, const int n1, const int q) {
  const int nd = c->dim == 3 ? n1 * n1 * n1 : n1 * n1;
  REAL *xl = w + 10 * MQ3, *yl = w + 11 * MQ3;
  FN(cell_indices)(c, cell, idx);
  for (int l = 0; l < nd; ++l) xl[l] = idx[l] < 0 ? (REAL)0 : c->x[idx[l]];
  if (c->dim == 2)
    FN(cell_2d)(c, cell, xl, yl, w, n1, q);
  else
    FN(cell_3d)(c, cell, xl, yl, w, n1, q);
  for (int l = 0; l < nd; ++l)
    if (idx[l] >= 0) c->y[idx[l]] += yl[l];
}

typedef void (*FN(cell_fn))(const FN(mctx) *c, int64_t cell, REAL *w, int64_t *idx);
static void FN(cell_any)(const FN(mctx) *c, int64_t cell, REAL *w, int64_t *idx) {
  FN(cell)(c, cell, w, idx, c->n1, c->nq);
}
#define MAPPED_CELL_INSTANCE(K)                                                         \
  static void FN(cell_k##K)(const FN(mctx) *c, int64_t cell, REAL *w, int64_t *idx) { \
    FN(cell)(c, cell, w, idx, K + 1, K + 1);                                          \
  }
MAPPED_CELL_INSTANCE(1)
MAPPED_CELL_INSTANCE(2)
MAPPED_CELL_INSTANCE(3)
MAPPED_CELL_INSTANCE(4)
MAPPED_CELL_INSTANCE(5)
MAPPED_CELL_INSTANCE(6)
MAPPED_CELL_INSTANCE(7)
MAPPED_CELL_INSTANCE(8)
MAPPED_CELL_INSTANCE(9)
MAPPED_CELL_INSTANCE(10)
#undef MAPPED_CELL_INSTANCE

/* The cell function: the instance of the degree with the (k+1)-point rule (sizes known to
 * the compiler: unrolled, vectorized sweeps), else the run-time one. */
static FN(cell_fn) FN(cell_for)(const FN(mctx) *c) {
  _Static_assert(TS_MAX_DEGREE == 10, "one instance of the cell per degree 1..TS_MAX_DEGREE");
  static const FN(cell_fn) by_degree[TS_MAX_DEGREE + 1] = {
      NULL, FN(cell_k1), FN(cell_k2), FN(cell_k3), FN(cell_k4), FN(cell_k5),
      FN(cell_k6), FN(cell_k7), FN(cell_k8), FN(cell_k9), FN(cell_k10)};
  return c->nq == c->n1 ? by_degree[c->k] : FN(cell_any);
}

/* y += A_K x on every cell of the layers of one parity along the last direction: two layers
 * of one parity share no DoF, so the loop over them is race-free and every entry of y
 * receives its cells' contributions in the same order for any number of threads. */
static int FN(accumulate)(const FN(mctx) *c, int threads) {
  const int last = c->dim - 1;
  const FN(batch_fn) apply_batch = FN(batch_for)(c);
  const FN(cell_fn) apply_cell = FN(cell_for)(c);
  const int64_t layers = c->cells[last], per_layer = c->cells[0] * c->cells[1] * c->cells[2] / layers;
  /* per thread: the cell path's 12 arrays of MQ^3, or a batch's at most 8 of MQ^3 lanes,
   * then VL index arrays of MQ^3; from the calling thread's cache (mapped_work_space) */
  const size_t scalar_bytes = sizeof(REAL) * 12 * MQ3, batch_bytes = (size_t)VB * 8 * MQ3;
  const size_t w_bytes = scalar_bytes > batch_bytes ? scalar_bytes : batch_bytes;
  const size_t per_thread = w_bytes + sizeof(int64_t) * VL * MQ3; /* multiples of VB */
  char *work = mapped_work_space(per_thread * (size_t)threads);
  if (!work) return 1;
  for (int parity = 0; parity < 2; ++parity) {
#pragma omp parallel num_threads(threads)
    {
      char *mine = work + per_thread * (size_t)omp_get_thread_num();
      void *w = mine;
      int64_t *idx = (int64_t *)(mine + w_bytes);
#pragma omp for schedule(dynamic, 1)
      for (int64_t layer = parity; layer < layers; layer += 2) {
        const int64_t end = (layer + 1) * per_layer;
        if (apply_batch)
          for (int64_t cell = layer * per_layer; cell < end; cell += VL)
            apply_batch(c, cell, end - cell < VL ? (int)(end - cell) : VL, w, idx);
        else
          for (int64_t cell = layer * per_layer; cell < end; ++cell) apply_cell(c, cell, w, idx);
      }
    }
  }
  return 0;
}

/* The Dirichlet rows: y_i = x_i (add: y_i += x_i) on the DoFs of the box boundary. */
static void FN(boundary_rows)(const FN(mctx) *c, int add, int threads) {
  const int64_t n0 = c->n[0], n1 = c->n[1], n2 = c->n[2], rows = n1 * n2;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i1 = r % n1, i2 = r / n1;
    const int whole = i1 == 0 || i1 == n1 - 1 || (c->dim == 3 && (i2 == 0 || i2 == n2 - 1));
    const int64_t step = whole || n0 < 2 ? 1 : n0 - 1;
    for (int64_t i0 = 0; i0 < n0; i0 += step) {
      const int64_t i = i0 + n0 * r;
      c->y[i] = add ? c->y[i] + c->x[i] : c->x[i];
    }
  }
}

static int FN(mapped_apply)(const ts_mapped_plan *pl, const REAL *x, REAL *y, int add) {
  FN(mctx) c;
  c.dim = pl->dim;
  c.k = pl->degree;
  c.n1 = pl->degree + 1;
  c.nq = pl->n_q;
  c.np = pl->dim == 3 ? c.nq * c.nq * c.nq : c.nq * c.nq;
  c.n_factors = pl->n_factors;
  c.has_reaction = pl->has_reaction;
  c.constrained = pl->constrained;
  for (int d = 0; d < 3; ++d) {
    c.cells[d] = pl->cells[d];
    c.n[d] = pl->n[d];
  }
  for (int qq = 0; qq < c.nq; ++qq)
    for (int a = 0; a < c.n1; ++a) {
      c.S[qq * c.n1 + a] = c.St[a * c.nq + qq] = (REAL)pl->shape_1d[qq * c.n1 + a];
      c.D[qq * c.n1 + a] = c.Dt[a * c.nq + qq] = (REAL)pl->gradient_1d[qq * c.n1 + a];
    }
  const char *form = getenv("TESSERA_OMP_MAPPED");
  c.batched = c.nq == c.n1 && (c.dim == 2 || pl->collocation_1d) && !(form && !strcmp(form, "dofs"));
  for (int i = 0; c.batched && c.dim == 3 && i < c.nq * c.nq; ++i) {
    c.C[i] = (REAL)pl->collocation_1d[i];
    c.Ct[(i % c.nq) * c.nq + i / c.nq] = c.C[i];
  }
  c.factors = pl->factors;
  c.x = x;
  c.y = y;
  const int threads = omp_operator_threads(pl->n_dofs);
  if (!add) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < pl->n_dofs; ++i) y[i] = 0;
  }
  if (FN(accumulate)(&c, threads)) return TS_ERR_MEMORY;
  if (c.constrained) FN(boundary_rows)(&c, add, threads);
  return 0;
}
