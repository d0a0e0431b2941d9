/* patch-kernel.h -- the omp backend's vertex-patch smoother kernel, written once for both
 * precisions: patch.c includes this file with REAL = double (V: 8 lanes) and REAL = float
 * (V: 16 lanes); FN(name) names the instance.  See patch.c for the algorithm. */
#ifndef REAL
#error "define REAL, V, VL and FN before including patch-kernel.h"
#endif

typedef struct {
  int dim, k, N, m, stage, con;
  int64_t n[3], cells[3], first[3], count[3], stride;
  int64_t npatch, ngroups;
  /* nbar x nbar 1D matrices: M[d], K[d]; the scaled ones of the second direction */
  const REAL *M[3], *K[3], *s0M1, *s1K1, *s2M1;
  /* m x m eigenvectors S[d] and their transposes St[d]; Linv: 1 / sum_d scale_d lambda_d */
  const REAL *S[3], *St[3], *Linv;
  size_t work_vecs; /* per thread, in V */
  V *work;
  const REAL *b;
  REAL *x, *r;
} FN(pctx);

#define KAI static inline __attribute__((always_inline))
#ifndef AMAX
#define AMAX (2 * TS_MAX_DEGREE + 1)
#endif

/* out[(o na + a) ni + i] (= or +=) sum_b A[(a + r0) lda + b] in[(o nb + b) ni + i]: the
 * 1D matrix A (rows r0 .. r0+na-1) along one direction of an array.  With band = k > 0, A is
 * a 1D patch matrix over 2 cells: column b < k couples only to rows g <= k, column b > k
 * only to rows g >= k.  All na outputs of a line are accumulated in registers (na <= 2k+1),
 * so every input vector is loaded once per line. */
KAI void FN(apply)(const REAL *A, const int lda, const int r0, const int band, const int na,
                   const int nb, const int no, const int ni, const V *in, V *out,
                   const int add) {
  for (int o = 0; o < no; ++o)
    for (int i = 0; i < ni; ++i) {
      const V *ip = in + (size_t)o * nb * ni + i;
      V *op = out + (size_t)o * na * ni + i;
      V acc[AMAX];
#pragma GCC unroll 32
      for (int a = 0; a < AMAX; ++a) acc[a] = (V){0};
      if (add)
#pragma GCC unroll 32
        for (int a = 0; a < na; ++a) acc[a] = op[(size_t)a * ni];
      if (band) {
        const int lo_end = band - r0 + 1; /* rows g <= band: a < lo_end */
        const int hi_begin = band - r0;   /* rows g >= band: a >= hi_begin */
        for (int b = 0; b < band; ++b) {
          const V v = ip[(size_t)b * ni];
#pragma GCC unroll 32
          for (int a = 0; a < na; ++a)
            if (a < lo_end) acc[a] += A[(size_t)(a + r0) * lda + b] * v;
        }
        {
          const V v = ip[(size_t)band * ni];
#pragma GCC unroll 32
          for (int a = 0; a < na; ++a) acc[a] += A[(size_t)(a + r0) * lda + band] * v;
        }
        for (int b = band + 1; b < nb; ++b) {
          const V v = ip[(size_t)b * ni];
#pragma GCC unroll 32
          for (int a = 0; a < na; ++a)
            if (a >= hi_begin) acc[a] += A[(size_t)(a + r0) * lda + b] * v;
        }
      } else {
        for (int b = 0; b < nb; ++b) {
          const V v = ip[(size_t)b * ni];
#pragma GCC unroll 32
          for (int a = 0; a < na; ++a) acc[a] += A[(size_t)(a + r0) * lda + b] * v;
        }
      }
#pragma GCC unroll 32
      for (int a = 0; a < na; ++a) op[(size_t)a * ni] = acc[a];
    }
}

/* One group of VL patches of the color (lanes = patches), stage c->stage. */
KAI void FN(group)(const FN(pctx) *c, V *wk, int64_t g, const int dim, const int k) {
  const int N = 2 * k + 1, m = 2 * k - 1;
  const int NR = dim == 3 ? N * N : N;    /* rows of the closed patch */
  const int MR = dim == 3 ? m * m : m;    /* rows of the interior */
  const int64_t n0 = c->n[0], n1 = c->n[1];
  const int stage = c->stage;
  V *X = wk;
  V *P = X + (size_t)NR * N;
  V *Q = P + (size_t)NR * m;
  V *E = Q + (size_t)NR * m;
  V *F = E + (size_t)N * m * m;
  V *R = F + (size_t)N * m * m;
  V *T = R + (size_t)MR * m;
  V *U = T + (size_t)MR * m;
  int64_t base[VL];
  int active[VL], faces[VL];
  for (int l = 0; l < VL; ++l) {
    int64_t p = g * VL + l;
    active[l] = p < c->npatch;
    if (!active[l]) p = g * VL;
    const int64_t j0 = p % c->count[0], rest = p / c->count[0];
    const int64_t j1 = rest % c->count[1], j2 = rest / c->count[1];
    const int64_t v[3] = {c->first[0] + c->stride * j0, c->first[1] + c->stride * j1,
                          c->first[2] + c->stride * j2};
    base[l] = (v[0] - 1) * k + n0 * ((v[1] - 1) * k + (dim == 3 ? n1 * (v[2] - 1) * k : 0));
    int f = 0;
    if (c->con)
      for (int d = 0; d < dim; ++d) {
        if (v[d] == 1) f |= 1 << (2 * d);
        if (v[d] == c->cells[d] - 1) f |= 2 << (2 * d);
      }
    faces[l] = f;
  }

  if (stage != TS_PATCH_STAGE_SOLVE) {
    /* gather the closed patch of x (zero on Dirichlet DoFs) and the interior of b into R */
    for (int r = 0; r < NR; ++r) {
      const int64_t ro = (r % N) * n0 + (dim == 3 ? (int64_t)(r / N) * n0 * n1 : 0);
      for (int l = 0; l < VL; ++l) {
        const REAL *xp = c->x + base[l] + ro;
        for (int i = 0; i < N; ++i) ((REAL *)(X + (size_t)r * N + i))[l] = xp[i];
      }
    }
    for (int l = 0; l < VL; ++l) {
      const int f = faces[l];
      if (!f) continue;
      for (int r = 0; r < NR; ++r) {
        const int i1 = r % N, i2 = r / N;
        const int row0 = ((f & 4) && i1 == 0) || ((f & 8) && i1 == N - 1) ||
                         (dim == 3 && (((f & 16) && i2 == 0) || ((f & 32) && i2 == N - 1)));
        for (int i = 0; i < N; ++i)
          if (row0 || ((f & 1) && i == 0) || ((f & 2) && i == N - 1))
            ((REAL *)(X + (size_t)r * N + i))[l] = 0;
      }
    }
    for (int r = 0; r < MR; ++r) {
      const int64_t ro = 1 + (r % m + 1) * n0 + (dim == 3 ? (int64_t)(r / m + 1) * n0 * n1 : 0);
      for (int l = 0; l < VL; ++l) {
        const REAL *bp = c->b + base[l] + ro;
        for (int i = 0; i < m; ++i) ((REAL *)(R + (size_t)r * m + i))[l] = bp[i];
      }
    }
    /* T = Abar X on the interior rows by sum factorization (paper 002, eq. 2.11-2.12) */
    FN(apply)(c->M[0], N, 1, k, m, N, NR, 1, X, P, 0);
    FN(apply)(c->K[0], N, 1, k, m, N, NR, 1, X, Q, 0);
    if (dim == 3) {
      /* E = s0 M1 Q + s1 K1 P, F = s2 M1 P, T = M2 E + K2 F */
      FN(apply)(c->s0M1, N, 1, k, m, N, N, m, Q, E, 0);
      FN(apply)(c->s1K1, N, 1, k, m, N, N, m, P, E, 1);
      FN(apply)(c->s2M1, N, 1, k, m, N, N, m, P, F, 0);
      FN(apply)(c->M[2], N, 1, k, m, N, 1, m * m, E, T, 0);
      FN(apply)(c->K[2], N, 1, k, m, N, 1, m * m, F, T, 1);
    } else {
      /* T = s0 M1 Q + s1 K1 P */
      FN(apply)(c->s0M1, N, 1, k, m, N, 1, m, Q, T, 0);
      FN(apply)(c->s1K1, N, 1, k, m, N, 1, m, P, T, 1);
    }
    for (int i = 0; i < MR * m; ++i) R[i] -= T[i];
    if (stage == TS_PATCH_STAGE_RESIDUAL) {
      for (int r = 0; r < MR; ++r) {
        const int64_t ro = 1 + (r % m + 1) * n0 + (dim == 3 ? (int64_t)(r / m + 1) * n0 * n1 : 0);
        for (int l = 0; l < VL; ++l) {
          if (!active[l]) continue;
          REAL *rp = c->r + base[l] + ro;
          for (int i = 0; i < m; ++i) rp[i] = ((const REAL *)(R + (size_t)r * m + i))[l];
        }
      }
      return;
    }
  } else {
    for (int r = 0; r < MR; ++r) {
      const int64_t ro = 1 + (r % m + 1) * n0 + (dim == 3 ? (int64_t)(r / m + 1) * n0 * n1 : 0);
      for (int l = 0; l < VL; ++l) {
        const REAL *rp = c->r + base[l] + ro;
        for (int i = 0; i < m; ++i) ((REAL *)(R + (size_t)r * m + i))[l] = rp[i];
      }
    }
  }

  /* local solve by fast diagonalization (eq. 2.13-2.14): U = (x) S  Linv  (x) S^T R */
  if (dim == 3) {
    FN(apply)(c->St[0], m, 0, 0, m, m, m * m, 1, R, T, 0);
    FN(apply)(c->St[1], m, 0, 0, m, m, m, m, T, U, 0);
    FN(apply)(c->St[2], m, 0, 0, m, m, 1, m * m, U, T, 0);
    for (int i = 0; i < m * m * m; ++i) T[i] *= c->Linv[i];
    FN(apply)(c->S[2], m, 0, 0, m, m, 1, m * m, T, U, 0);
    FN(apply)(c->S[1], m, 0, 0, m, m, m, m, U, T, 0);
    FN(apply)(c->S[0], m, 0, 0, m, m, m * m, 1, T, U, 0);
  } else {
    FN(apply)(c->St[0], m, 0, 0, m, m, m, 1, R, T, 0);
    FN(apply)(c->St[1], m, 0, 0, m, m, 1, m, T, U, 0);
    for (int i = 0; i < m * m; ++i) U[i] *= c->Linv[i];
    FN(apply)(c->S[1], m, 0, 0, m, m, 1, m, U, T, 0);
    FN(apply)(c->S[0], m, 0, 0, m, m, m, 1, T, U, 0);
  }
  /* x += R_j^T U on the interior */
  for (int r = 0; r < MR; ++r) {
    const int64_t ro = 1 + (r % m + 1) * n0 + (dim == 3 ? (int64_t)(r / m + 1) * n0 * n1 : 0);
    for (int l = 0; l < VL; ++l) {
      if (!active[l]) continue;
      REAL *xp = c->x + base[l] + ro;
      for (int i = 0; i < m; ++i) xp[i] += ((const REAL *)(U + (size_t)r * m + i))[l];
    }
  }
}

/* The work of one thread, in V, for dimension dim and degree k. */
static size_t FN(work_vecs)(int dim, int k) {
  const size_t N = 2 * (size_t)k + 1, m = 2 * (size_t)k - 1;
  const size_t NR = dim == 3 ? N * N : N, MR = dim == 3 ? m * m : m;
  return NR * N + 2 * NR * m + 2 * N * m * m + 3 * MR * m;
}

#define FN_CASE(D, K)                                                 \
  case D * 16 + K:                                                    \
    _Pragma("omp for schedule(dynamic, 1)")                           \
    for (int64_t g = 0; g < c->ngroups; ++g) FN(group)(c, wk, g, D, K); \
    break;

/* Each thread of the parallel region calls it once: the groups of the color, dynamically
 * scheduled, with degree and dimension compile-time constants (for AVX-512, see TS_FAST). */
TS_FAST static void FN(worker_fast)(const FN(pctx) *c) {
  V *wk = c->work + (size_t)omp_get_thread_num() * c->work_vecs;
  switch (c->dim * 16 + c->k) {
    FN_CASE(2, 1) FN_CASE(2, 2) FN_CASE(2, 3) FN_CASE(2, 4) FN_CASE(2, 5)
    FN_CASE(2, 6) FN_CASE(2, 7) FN_CASE(2, 8) FN_CASE(2, 9) FN_CASE(2, 10)
    FN_CASE(3, 1) FN_CASE(3, 2) FN_CASE(3, 3) FN_CASE(3, 4) FN_CASE(3, 5)
    FN_CASE(3, 6) FN_CASE(3, 7) FN_CASE(3, 8) FN_CASE(3, 9) FN_CASE(3, 10)
    default: break;
  }
}

/* The same with the degree a run-time value: the portable path for processors without
 * AVX-512 (same results, slower). */
static void FN(worker_generic)(const FN(pctx) *c) {
  V *wk = c->work + (size_t)omp_get_thread_num() * c->work_vecs;
  if (c->dim == 3) {
#pragma omp for schedule(dynamic, 1)
    for (int64_t g = 0; g < c->ngroups; ++g) FN(group)(c, wk, g, 3, c->k);
  } else {
#pragma omp for schedule(dynamic, 1)
    for (int64_t g = 0; g < c->ngroups; ++g) FN(group)(c, wk, g, 2, c->k);
  }
}
#undef FN_CASE

/* x_i = b_i on the Dirichlet DoFs (the identity rows of the constrained operator). */
static void FN(boundary)(const ts_patch_plan *pl, const REAL *b, REAL *x) {
  const int64_t n0 = pl->n[0], n1 = pl->n[1], n2 = pl->n[2];
  const int dim = pl->dim;
#pragma omp parallel for schedule(static) num_threads(omp_operator_threads(n0 * n1 * n2))
  for (int64_t row = 0; row < n1 * n2; ++row) {
    const int64_t i1 = row % n1, i2 = row / n1;
    const REAL *br = b + row * n0;
    REAL *xr = x + row * n0;
    if (i1 == 0 || i1 == n1 - 1 || (dim == 3 && (i2 == 0 || i2 == n2 - 1))) {
      for (int64_t i = 0; i < n0; ++i) xr[i] = br[i];
    } else {
      xr[0] = br[0];
      xr[n0 - 1] = br[n0 - 1];
    }
  }
}

/* One pass of pl->stage over the patches of pl->color (fast: the compile-time-degree
 * instances); *work is a cache of *work_bytes bytes, grown here. */
static int FN(smooth)(const ts_patch_plan *pl, const REAL *b, REAL *x, REAL *r, int fast,
                      void **work, size_t *work_bytes) {
  if (pl->stage == TS_PATCH_STAGE_BOUNDARY) {
    if (pl->constrained) FN(boundary)(pl, b, x);
    return 0;
  }
  FN(pctx) c;
  memset(&c, 0, sizeof c);
  const int dim = pl->dim, k = pl->dofs_per_cell, N = 2 * k + 1, m = N - 2;
  c.dim = dim;
  c.k = k;
  c.N = N;
  c.m = m;
  c.stage = pl->stage;
  c.con = pl->constrained != 0;
  c.npatch = 1;
  for (int d = 0; d < 3; ++d) {
    c.n[d] = pl->n[d];
    c.cells[d] = pl->cells[d];
    c.first[d] = pl->first_vertex[d];
    c.count[d] = d < dim ? pl->vertex_count[d] : 1;
    c.npatch *= c.count[d];
  }
  c.stride = pl->vertex_stride;
  if (c.npatch == 0) return 0;
  c.ngroups = (c.npatch + VL - 1) / VL;
  const int T = omp_operator_threads(c.npatch * N * N * (dim == 3 ? N : 1)); /* the DoFs of the patches */
  const size_t mat_reals = (size_t)N * N * (2 * dim + 3) + (size_t)m * m * 2 * dim +
                           (size_t)m * m * (dim == 3 ? m : 1);
  c.work_vecs = FN(work_vecs)(dim, k);
  const size_t mat_vecs = (mat_reals + VL - 1) / VL;
  const size_t need = (mat_vecs + (size_t)T * c.work_vecs) * sizeof(V);
  if (*work_bytes < need) {
    free(*work);
    *work = aligned_alloc(64, (need + 63) / 64 * 64);
    *work_bytes = *work ? need : 0;
    if (!*work) return TS_ERR_MEMORY;
  }
  REAL *mat = (REAL *)*work;
  c.work = (V *)*work + mat_vecs;
  REAL *at = mat;
  for (int d = 0; d < dim; ++d) {
    REAL *Md = at, *Kd = at + N * N;
    for (int i = 0; i < N * N; ++i) {
      Md[i] = (REAL)pl->mass_1d[d][i];
      Kd[i] = (REAL)pl->stiffness_1d[d][i];
    }
    c.M[d] = Md;
    c.K[d] = Kd;
    at += 2 * N * N;
  }
  {
    REAL *a0 = at, *a1 = at + N * N, *a2 = at + 2 * N * N;
    for (int i = 0; i < N * N; ++i) {
      a0[i] = (REAL)(pl->scale[0] * pl->mass_1d[1][i]);
      a1[i] = (REAL)(pl->scale[1] * pl->stiffness_1d[1][i]);
      a2[i] = (REAL)(dim == 3 ? pl->scale[2] * pl->mass_1d[1][i] : 0.0);
    }
    c.s0M1 = a0;
    c.s1K1 = a1;
    c.s2M1 = a2;
    at += 3 * N * N;
  }
  for (int d = 0; d < dim; ++d) {
    REAL *S = at, *St = at + m * m;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) {
        S[i * m + j] = (REAL)pl->eigenvectors[d][i * m + j];
        St[j * m + i] = (REAL)pl->eigenvectors[d][i * m + j];
      }
    c.S[d] = S;
    c.St[d] = St;
    at += 2 * m * m;
  }
  {
    REAL *L = at;
    const int m2 = dim == 3 ? m : 1;
    for (int i2 = 0; i2 < m2; ++i2)
      for (int i1 = 0; i1 < m; ++i1)
        for (int i0 = 0; i0 < m; ++i0) {
          double den = pl->scale[0] * pl->eigenvalues[0][i0] + pl->scale[1] * pl->eigenvalues[1][i1];
          if (dim == 3) den += pl->scale[2] * pl->eigenvalues[2][i2];
          L[(i2 * m + i1) * m + i0] = (REAL)(1.0 / den);
        }
    c.Linv = L;
  }
  c.b = b;
  c.x = x;
  c.r = r;
#pragma omp parallel num_threads(T)
  {
    if (fast)
      FN(worker_fast)(&c);
    else
      FN(worker_generic)(&c);
  }
  return 0;
}
