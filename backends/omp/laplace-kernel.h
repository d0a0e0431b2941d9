/* laplace-kernel.h -- the omp backend's Laplacian kernels, written once for both precisions
 * and two vector widths: laplace.c includes this file with REAL = double (V: 8 or 4 lanes)
 * and REAL = float (V: 16 or 8 lanes); FN(name) names the instance and WORKER_ATTR gives
 * the hot worker's target attribute.  See laplace.c for the algorithm. */
#ifndef REAL
#error "define REAL, V, VU, VL, FN and WORKER_ATTR before including laplace-kernel.h"
#endif

/* A (k+1)x(k+1) 1D matrix, scaled, in plain form (a) and in even-odd form:
 * with ue[b] = u[b] + u[k-b], uo[b] = u[b] - u[k-b] (b < h = (k+1)/2) and um = u[h] (k even),
 * (A u)[a] = E_a + O_a, (A u)[k-a] = E_a - O_a for a < h, with E_a = sum_b e[a][b] ue[b]
 * (+ e[a][h] um), O_a = sum_b o[a][b] uo[b]; (A u)[h] = sum_b m[b] ue[b] + m[h] um. */
typedef struct {
  REAL a[TS_MAX_DEGREE + 1][TS_MAX_DEGREE + 1];
  REAL e[HMAX][HMAX + 1];
  REAL o[HMAX][HMAX];
  REAL m[HMAX + 1];
} FN(mat);

typedef struct {
  int dim, k, constrained, add, eo;
  int64_t cells[3], n[3], n_dofs;
  FN(mat) M, K, s0M, s1K, s2M;
  int TL;             /* tile length along direction 0: a multiple of k and VL */
  int64_t ntiles;
  const REAL *dia;    /* periodic diagonals of the assembled M0 and K0, see dia_init */
  int R;
  size_t work_reals;  /* work space per thread, in REALs */
  REAL *work;
  const REAL *x;
  REAL *y;
} FN(ctx);

#define KAI static inline __attribute__((always_inline))

/* Degrees from which the stiffness matrices are applied to differences (FN(line), step 1
 * of FN(tile)).  Their rows sum to exactly 0 (lib/poly/exact-sums.c), so K v = K (v - c)
 * for any constant c, and the rounding is then relative to the variation of v over a cell
 * instead of v itself: the noise that otherwise sets an error floor growing like 1/h in 2D
 * (doc/accuracy.md).  Below it the discretization error stays far above that floor on any
 * mesh that fits, and the extra subtractions would cost 10-15% of the time. */
#ifndef LAPLACE_DIFFERENCE_MIN_DEGREE
#define LAPLACE_DIFFERENCE_MIN_DEGREE 3
#endif

/* out[a*so] = (A u + B v)[a], u and v with stride si; B may be NULL (then v is unused).
 * B is a stiffness matrix: from LAPLACE_DIFFERENCE_MIN_DEGREE on it is applied to
 * v - v[0]. */
KAI void FN(line)(const V *u, const V *v, ptrdiff_t si, V *out, ptrdiff_t so,
                  const FN(mat) *A, const FN(mat) *B, const int k, const int eo) {
  const int N = k + 1;
  const int diff = B && k >= LAPLACE_DIFFERENCE_MIN_DEGREE;
  const V vc = diff ? v[0] : (V){0};
  if (eo) {
    const int h = N / 2, odd = N & 1;
    V ue[HMAX], uo[HMAX], ve[HMAX], vo[HMAX], um = {0}, vm = {0};
#pragma GCC unroll 16
    for (int b = 0; b < h; ++b) {
      V u0 = u[b * si], u1 = u[(k - b) * si];
      ue[b] = u0 + u1;
      uo[b] = u0 - u1;
      if (B) {
        V v0 = v[b * si], v1 = v[(k - b) * si];
        if (diff) {
          v0 -= vc;
          v1 -= vc;
        }
        ve[b] = v0 + v1;
        vo[b] = v0 - v1;
      }
    }
    if (odd) {
      um = u[h * si];
      if (B) vm = diff ? v[h * si] - vc : v[h * si];
    }
#pragma GCC unroll 16
    for (int a = 0; a < h; ++a) {
      V e, o;
      if (odd) e = A->e[a][h] * um; else e = (V){0};
      o = (V){0};
#pragma GCC unroll 16
      for (int b = 0; b < h; ++b) {
        e += A->e[a][b] * ue[b];
        o += A->o[a][b] * uo[b];
      }
      if (B) {
        if (odd) e += B->e[a][h] * vm;
#pragma GCC unroll 16
        for (int b = 0; b < h; ++b) {
          e += B->e[a][b] * ve[b];
          o += B->o[a][b] * vo[b];
        }
      }
      out[a * so] = e + o;
      out[(k - a) * so] = e - o;
    }
    if (odd) {
      V m = A->m[h] * um;
#pragma GCC unroll 16
      for (int b = 0; b < h; ++b) m += A->m[b] * ue[b];
      if (B) {
        m += B->m[h] * vm;
#pragma GCC unroll 16
        for (int b = 0; b < h; ++b) m += B->m[b] * ve[b];
      }
      out[h * so] = m;
    }
  } else {
    for (int a = 0; a < N; ++a) {
      V s = {0};
      for (int b = 0; b < N; ++b) {
        s += A->a[a][b] * u[b * si];
        if (B) s += B->a[a][b] * (diff ? v[b * si] - vc : v[b * si]);
      }
      out[a * so] = s;
    }
  }
}

/* The pencils touching row (i1, i2) have numbers in [pmin, pmax]; pmin is the first of
 * them in any thread's (ascending) order. */
KAI void FN(row_pencils)(const FN(ctx) *c, int64_t i1, int64_t i2, const int dim, const int k,
                         int64_t *pmin, int64_t *pmax) {
  const int64_t a1 = i1 % k == 0 && i1 > 0 ? i1 / k - 1 : i1 / k;
  const int64_t b1 = i1 / k < c->cells[1] ? i1 / k : c->cells[1] - 1;
  if (dim == 3) {
    const int64_t a2 = i2 % k == 0 && i2 > 0 ? i2 / k - 1 : i2 / k;
    const int64_t b2 = i2 / k < c->cells[2] ? i2 / k : c->cells[2] - 1;
    *pmin = a1 + c->cells[1] * a2;
    *pmax = b1 + c->cells[1] * b2;
  } else {
    *pmin = a1;
    *pmax = b1;
  }
}

/* Prefetch the rows of x that tile tix of pencil p will read. */
KAI void FN(prefetch)(const FN(ctx) *c, int64_t p, int64_t tix, const int dim, const int k) {
  const int N = k + 1, R = dim == 3 ? N * N : N;
  const int64_t n0 = c->n[0], n1 = c->n[1];
  const int64_t c1 = dim == 3 ? p % c->cells[1] : p, c2 = dim == 3 ? p / c->cells[1] : 0;
  int64_t lo = tix * c->TL - k, hi = (tix + 1) * c->TL + k;
  if (lo < 0) lo = 0;
  if (hi > n0) hi = n0;
  const int step = 64 / (int)sizeof(REAL);
  for (int r = 0; r < R; ++r) {
    const int64_t i1 = c1 * k + r % N, i2 = dim == 3 ? c2 * k + r / N : 0;
    const REAL *xr = c->x + (i1 + n1 * i2) * n0;
    for (int64_t i = lo; i < hi; i += step) __builtin_prefetch(xr + i, 0, PF_LOC);
    __builtin_prefetch(xr + hi - 1, 0, PF_LOC);
  }
}

/* One tile: points [g0, g0 + TL) of direction 0 (g0 = t TL, TL a multiple of k and VL)
 * times pencil p (cell c1 = p mod cells1, c2 = p / cells1 in 3D; c1 = p in 2D).  Rows r of
 * the pencil (r = a2 (k+1) + a1) are lines along direction 0.  Step 1, per row: P = M0 x,
 * Q = K0 x with the globally assembled 1D matrices (periodic diagonal storage, exact values,
 * so tiles do not overlap).  Step 2, per strip of VL points: the directions 1 and 2 in
 * even-odd form, 3D: E = s0 M1 Q + s1 K1 P, F = s2 M1 P, Y = M2 E + K2 F; 2D:
 * Y = s0 M1 Q + s1 K1 P; then y += Y on the rows and points that are not Dirichlet. */
KAI void FN(tile)(const FN(ctx) *c, REAL *wk, int64_t p, int64_t tix, int64_t pA, int64_t pB,
                  const int dim, const int k, const int eo) {
  const int N = k + 1;
  const int R = dim == 3 ? N * N : N;
  const int64_t n0 = c->n[0], n1 = c->n[1], n2 = c->n[2], cells1 = c->cells[1];
  const int con = c->constrained;
  int64_t c1, c2;
  if (dim == 3) {
    c1 = p % cells1;
    c2 = p / cells1;
  } else {
    c1 = p;
    c2 = 0;
  }
  const int TL = c->TL, XS = TL + 2 * XPAD;
  const int64_t g0 = tix * TL;
  const int len = (int)(n0 - g0 < TL ? n0 - g0 : TL), nv = (len + VL - 1) / VL;
  REAL *Xb = wk;
  V *P = (V *)(Xb + (size_t)R * XS);
  V *Q = P + (size_t)R * (TL / VL);
  V *E = Q + (size_t)R * (TL / VL);
  V *F = E + R;
  V *Y = F + R;
  const REAL *rowp[(TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  int64_t rowo[(TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  char rowst[(TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  /* edge vectors: their halo reaches past the row or onto a Dirichlet point; they read a
   * masked copy, the others read x directly.  Vectors [jl, jr) are not edge vectors. */
  int jl = 0, jr = nv;
  while (jl < nv && g0 + jl * VL - k < con) ++jl;
  while (jr > jl && g0 + jr * VL - 1 + k > n0 - 1 - con) --jr;
  const REAL *x = c->x;
  REAL *y = c->y;

  /* step 0: row pointers, output modes, masked copies for the edge vectors */
  for (int r = 0; r < R; ++r) {
    const int a1 = r % N, a2 = r / N;
    const int64_t i1 = c1 * k + a1, i2 = dim == 3 ? c2 * k + a2 : 0;
    const int bnd = con && (i1 == 0 || i1 == n1 - 1 || (dim == 3 && (i2 == 0 || i2 == n2 - 1)));
    const int64_t ro = (i1 + n1 * i2) * n0;
    rowo[r] = bnd ? -1 : ro;
    if (bnd) {
      rowp[r] = NULL;
      continue;
    }
    /* store (first touch) or add, see the worker */
    if (c->add) {
      rowst[r] = 0;
    } else {
      int64_t pmin, pmax;
      FN(row_pencils)(c, i1, i2, dim, k, &pmin, &pmax);
      rowst[r] = pmin >= pA && pmax < pB && p == pmin;
    }
    rowp[r] = x + ro + g0 - XPAD;
    REAL *xb = Xb + (size_t)r * XS + XPAD;
    for (int j = 0; j < nv; ++j) {
      if (j == jl) j = jr;
      if (j >= nv) break;
      for (int i = j * VL - k; i < j * VL + VL + k; ++i) {
        const int64_t gi = g0 + i;
        REAL v = gi >= 0 && gi < n0 ? x[ro + gi] : (REAL)0;
        if (con && (gi == 0 || gi == n0 - 1)) v = 0;
        xb[i] = v;
      }
    }
  }

  /* step 1: P = M0 x, Q = K0 x on every row, coefficients held in registers */
  for (int j = 0; j < nv; ++j) {
    const V *tj = (const V *)c->dia + (size_t)j * 2 * (2 * k + 1);
#pragma GCC unroll 2
    for (int m = 0; m < 2; ++m) {
      V cf[2 * TS_MAX_DEGREE + 1];
      V *out = (m ? Q : P) + (size_t)j * R;
#pragma GCC unroll 32
      for (int o = 0; o < 2 * TS_MAX_DEGREE + 1; ++o) cf[o] = o < 2 * k + 1 ? tj[2 * o + m] : (V){0};
      const int edge = j < jl || j >= jr;
      for (int r = 0; r < R; ++r) {
        const REAL *xr = rowp[r] && edge ? Xb + (size_t)r * XS : rowp[r];
        V acc = {0};
        if (xr) {
          xr += XPAD + j * VL;
          if (m && k >= LAPLACE_DIFFERENCE_MIN_DEGREE) { /* K0 x = sum_o K0_o (x_{i+o} - x_i) */
            const V xi = *(const VU *)xr;
#pragma GCC unroll 32
            for (int o = -k; o <= k; ++o)
              if (o) acc += cf[o + k] * (*(const VU *)(xr + o) - xi);
          } else {
#pragma GCC unroll 32
            for (int o = -k; o <= k; ++o) acc += cf[o + k] * *(const VU *)(xr + o);
          }
        }
        out[r] = acc;
      }
    }
  }
  /* the ends of the box belong to one cell only (matters without constraints) */
  if (!con && (g0 == 0 || g0 + len == n0)) {
    for (int r = 0; r < R; ++r) {
      if (g0 == 0) {
        const REAL xv = x[rowo[r]];
        ((REAL *)P)[(size_t)r * VL] -= c->M.a[k][k] * xv;
        ((REAL *)Q)[(size_t)r * VL] -= c->K.a[k][k] * xv;
      }
      if (g0 + len == n0) {
        const int i = len - 1, j = i / VL, l = i % VL;
        const REAL xv = x[rowo[r] + n0 - 1];
        ((REAL *)P)[((size_t)j * R + r) * VL + l] -= c->M.a[0][0] * xv;
        ((REAL *)Q)[((size_t)j * R + r) * VL + l] -= c->K.a[0][0] * xv;
      }
    }
  }

  /* step 2: strips */
  for (int s = 0; s < nv; ++s) {
    const V *Ps = P + (size_t)s * R, *Qs = Q + (size_t)s * R;
    if (dim == 3) {
      for (int a2 = 0; a2 < N; ++a2) {
        FN(line)(Qs + a2 * N, Ps + a2 * N, 1, E + a2 * N, 1, &c->s0M, &c->s1K, k, eo);
        FN(line)(Ps + a2 * N, Ps + a2 * N, 1, F + a2 * N, 1, &c->s2M, NULL, k, eo);
      }
      for (int a1 = 0; a1 < N; ++a1)
        FN(line)(E + a1, F + a1, N, Y + a1, N, &c->M, &c->K, k, eo);
    } else {
      FN(line)(Qs, Ps, 1, Y, 1, &c->s0M, &c->s1K, k, eo);
    }
    const int64_t glo = g0 + s * VL;
    const int nl = len - s * VL < VL ? len - s * VL : VL;
    const int full = nl == VL && !(con && (glo == 0 || glo + VL == n0));
    for (int r = 0; r < R; ++r) {
      if (rowo[r] < 0) continue;
      REAL *yr = y + rowo[r] + glo;
      if (full) {
        if (rowst[r])
          *(VU *)yr = Y[r];
        else
          *(VU *)yr += Y[r];
      } else {
        const V yv = Y[r];
        for (int l = 0; l < nl; ++l) {
          if (con && (glo + l == 0 || glo + l == n0 - 1)) continue;
          yr[l] = rowst[r] ? yv[l] : yr[l] + yv[l];
        }
      }
    }
  }
}

/* The pencils [pb, pe), every tile of each. */
KAI void FN(range)(const FN(ctx) *c, REAL *wk, int64_t pb, int64_t pe, int64_t pA,
                   int64_t pB, const int dim, const int k, const int eo) {
  for (int64_t p = pb; p < pe; ++p)
    for (int64_t t = 0; t < c->ntiles; ++t) {
#if PF_LOC >= 0
      if (t + 1 < c->ntiles)
        FN(prefetch)(c, p, t + 1, dim, k);
      else if (p + 1 < pe)
        FN(prefetch)(c, p + 1, 0, dim, k);
#endif
      FN(tile)(c, wk, p, t, pA, pB, dim, k, eo);
    }
}

static void FN(range_generic)(const FN(ctx) *c, REAL *wk, int64_t pb, int64_t pe, int64_t pA,
                              int64_t pB) {
  if (c->dim == 3)
    FN(range)(c, wk, pb, pe, pA, pB, 3, c->k, 0);
  else
    FN(range)(c, wk, pb, pe, pA, pB, 2, c->k, 0);
}

#define FN_CASE(D, K) \
  case D * 16 + K:    \
    FN(range)(c, wk, pb, pe, ph[0], ph[2], D, K, 1); \
    break;

/* The hot entry: each thread of the parallel region calls it once.  Zero y (add = 0),
 * then two phases over this thread's pencils separated by barriers (see laplace.c). */
WORKER_ATTR static void FN(worker)(const FN(ctx) *c) {
  const int T = omp_get_num_threads(), t = omp_get_thread_num();
  REAL *wk = c->work + (size_t)t * c->work_reals;
  /* pencils and their conflict distance G: pencils closer than G+1 in index may share rows */
  const int64_t np = c->dim == 3 ? c->cells[1] * c->cells[2] : c->cells[1];
  const int64_t G = c->dim == 3 ? c->cells[1] + 1 : 1;
  int64_t Tu = T;
  while (Tu > 1 && np / Tu < 2 * G) --Tu;
  int64_t ph[3] = {0, 0, 0};
  if (t < Tu) {
    ph[0] = np * t / Tu;
    ph[2] = np * (t + 1) / Tu;
    ph[1] = Tu > 1 ? ph[2] - G : ph[2];
  }
  /* add = 0: a row of y is stored by the first pencil touching it (its lowest number) and
   * added to by the others, when all of them belong to this thread; a row touched by two
   * threads is zeroed here, by the thread of its first pencil, and only added to. */
  if (!c->add && t < Tu && Tu > 1) {
    const int N = c->k + 1, R = c->dim == 3 ? N * N : N;
    const int64_t n0 = c->n[0], n1 = c->n[1], n2 = c->n[2];
    const int64_t pfrom = ph[2] - G - 1 > ph[0] ? ph[2] - G - 1 : ph[0];
    for (int64_t p = pfrom; p < ph[2]; ++p) {
      const int64_t c1 = c->dim == 3 ? p % c->cells[1] : p, c2 = c->dim == 3 ? p / c->cells[1] : 0;
      for (int r = 0; r < R; ++r) {
        const int64_t i1 = c1 * c->k + r % N, i2 = c->dim == 3 ? c2 * c->k + r / N : 0;
        if (c->constrained && (i1 == 0 || i1 == n1 - 1 || (c->dim == 3 && (i2 == 0 || i2 == n2 - 1))))
          continue;
        int64_t pmin, pmax;
        FN(row_pencils)(c, i1, i2, c->dim, c->k, &pmin, &pmax);
        if (pmin == p && pmax >= ph[2]) memset(c->y + (i1 + n1 * i2) * n0, 0, (size_t)n0 * sizeof(REAL));
      }
    }
  }
#pragma omp barrier
  for (int phase = 0; phase < 2; ++phase) {
    const int64_t pb = ph[phase], pe = ph[phase + 1];
    if (pe > pb) {
      if (!c->eo) {
        FN(range_generic)(c, wk, pb, pe, ph[0], ph[2]);
      } else {
        switch (c->dim * 16 + c->k) {
          FN_CASE(2, 1) FN_CASE(2, 2) FN_CASE(2, 3) FN_CASE(2, 4) FN_CASE(2, 5)
          FN_CASE(2, 6) FN_CASE(2, 7) FN_CASE(2, 8) FN_CASE(2, 9) FN_CASE(2, 10)
          FN_CASE(3, 1) FN_CASE(3, 2) FN_CASE(3, 3) FN_CASE(3, 4) FN_CASE(3, 5)
          FN_CASE(3, 6) FN_CASE(3, 7) FN_CASE(3, 8) FN_CASE(3, 9) FN_CASE(3, 10)
          default: FN(range_generic)(c, wk, pb, pe, ph[0], ph[2]);
        }
      }
    }
#pragma omp barrier
  }
  /* Dirichlet rows: y = x (add: y += x); nobody else writes them */
  if (c->constrained) {
    const int64_t n0 = c->n[0], n1 = c->n[1], n2 = c->n[2], rows = n1 * n2;
    const int64_t rb = rows * t / T, re = rows * (t + 1) / T;
    for (int64_t row = rb; row < re; ++row) {
      const int64_t i1 = row % n1, i2 = row / n1;
      const REAL *xr = c->x + row * n0;
      REAL *yr = c->y + row * n0;
      if (i1 == 0 || i1 == n1 - 1 || (c->dim == 3 && (i2 == 0 || i2 == n2 - 1))) {
        if (c->add)
          for (int64_t i = 0; i < n0; ++i) yr[i] += xr[i];
        else
          for (int64_t i = 0; i < n0; ++i) yr[i] = xr[i];
      } else {
        yr[0] = c->add ? yr[0] + xr[0] : xr[0];
        yr[n0 - 1] = c->add ? yr[n0 - 1] + xr[n0 - 1] : xr[n0 - 1];
      }
    }
  }
}
#undef FN_CASE

#ifndef LAPLACE_APPLY_ONLY /* the half-width instances share the full-width diagonal */
/* d = diag(A) from the diagonals of the assembled 1D matrices dm[e], dk[e] (length n[e]):
 * the Kronecker structure gives d = sum_d scale_d (x)_e (e == d ? dk : dm). */
static void FN(diagonal)(const ts_laplace_plan *pl, double *const *dm, double *const *dk,
                         REAL *d) {
  const int dim = pl->dim, con = pl->constrained;
  const int64_t n0 = pl->n[0], n1 = pl->n[1], n2 = pl->n[2];
  const double s0 = pl->scale[0], s1 = pl->scale[1], s2 = pl->scale[2];
#pragma omp parallel for schedule(static) num_threads(omp_operator_threads(n0 * n1 * n2))
  for (int64_t row = 0; row < n1 * n2; ++row) {
    const int64_t i1 = row % n1, i2 = row / n1;
    const int brow = con && (i1 == 0 || i1 == n1 - 1 || (dim == 3 && (i2 == 0 || i2 == n2 - 1)));
    double f0, f1;
    if (dim == 3) {
      f0 = s0 * dm[1][i1] * dm[2][i2];
      f1 = s1 * dk[1][i1] * dm[2][i2] + s2 * dm[1][i1] * dk[2][i2];
    } else {
      f0 = s0 * dm[1][i1];
      f1 = s1 * dk[1][i1];
    }
    REAL *dr = d + row * n0;
    for (int64_t i0 = 0; i0 < n0; ++i0) {
      const int b = brow || (con && (i0 == 0 || i0 == n0 - 1));
      dr[i0] = b ? (REAL)1 : (REAL)(f0 * dk[0][i0] + f1 * dm[0][i0]);
    }
  }
}
#endif

/* Plain and even-odd forms of s * A (see FN(mat)), the latter from lib's even-odd form f. */
static void FN(mat_init)(FN(mat) *m, const double *A, const ts_even_odd_1d *f, double s, int k) {
  const int N = k + 1, h = N / 2;
  memset(m, 0, sizeof *m);
  for (int a = 0; a < N; ++a)
    for (int b = 0; b < N; ++b) m->a[a][b] = (REAL)(s * A[a * N + b]);
  for (int a = 0; a < h; ++a) {
    for (int b = 0; b < h; ++b) {
      m->e[a][b] = (REAL)(s * f->even[a][b]);
      m->o[a][b] = (REAL)(s * f->odd[a][b]);
    }
    if (N & 1) m->e[a][h] = (REAL)(s * f->even[a][h]);
  }
  if (N & 1)
    for (int b = 0; b <= h; ++b) m->m[b] = (REAL)(s * f->even[h][b]);
}

/* Diagonals of the globally assembled 1D matrices M and K over TL points starting at a cell
 * boundary (every point of phase 0 a vertex shared by two cells), vector-major:
 * t[((j (2k+1) + o + k) 2 + m) VL + l] = (m ? K : M)[i][i + o] with i = j VL + l. */
static void FN(dia_init)(REAL *t, const double *M, const double *K, int k, int TL) {
  const int N = k + 1;
  memset(t, 0, (size_t)2 * (2 * k + 1) * TL * sizeof(REAL));
  for (int i = 0; i < TL; ++i) {
    const int j = i / VL, l = i % VL, ph = i % k;
    for (int o = -k; o <= k; ++o) {
      double vm = 0, vk = 0;
      if (ph + o >= 0 && ph + o <= k) { /* the cell where i has local index ph */
        vm += M[ph * N + ph + o];
        vk += K[ph * N + ph + o];
      }
      if (ph == 0 && o <= 0) { /* the cell to the left, where i has local index k */
        vm += M[k * N + k + o];
        vk += K[k * N + k + o];
      }
      const size_t at = (((size_t)j * (2 * k + 1) + o + k) * 2) * VL + l;
      t[at] = (REAL)vm;
      t[at + VL] = (REAL)vk;
    }
  }
}

/* y = A x or y += A x; work is a cache of *work_bytes bytes, grown here. */
static int FN(apply)(const ts_laplace_plan *pl, const REAL *x, REAL *y, int add, int eo,
                     void **work, size_t *work_bytes) {
  FN(ctx) c;
  memset(&c, 0, sizeof c);
  const int k = pl->degree;
  c.dim = pl->dim;
  c.k = k;
  c.constrained = pl->constrained != 0;
  c.add = add != 0;
  c.eo = eo;
  for (int e = 0; e < 3; ++e) {
    c.cells[e] = pl->cells[e];
    c.n[e] = pl->n[e];
  }
  c.n_dofs = pl->n_dofs;
  FN(mat_init)(&c.M, pl->mass_1d, &pl->mass_even_odd, 1.0, k);
  FN(mat_init)(&c.K, pl->stiffness_1d, &pl->stiffness_even_odd, 1.0, k);
  FN(mat_init)(&c.s0M, pl->mass_1d, &pl->mass_even_odd, pl->scale[0], k);
  FN(mat_init)(&c.s1K, pl->stiffness_1d, &pl->stiffness_even_odd, pl->scale[1], k);
  FN(mat_init)(&c.s2M, pl->mass_1d, &pl->mass_even_odd, pl->scale[2], k);
  /* tiles along direction 0: a multiple of lcm(k, VL), about TILE_POINTS points */
  {
    int l = VL;
    while (l % k) l += VL;
    c.TL = l * ((TILE_POINTS(k) + l / 2) / l);
    if (c.TL < l) c.TL = l;
    c.ntiles = (c.n[0] + c.TL - 1) / c.TL;
  }
  c.R = c.dim == 3 ? (k + 1) * (k + 1) : k + 1;
  const int T = omp_operator_threads(c.n_dofs);
  const size_t dia_reals = (size_t)2 * (2 * k + 1) * c.TL;
  c.work_reals = (size_t)c.R * (c.TL + 2 * XPAD) + (size_t)2 * c.R * c.TL + (size_t)3 * c.R * VL;
  c.work_reals = (c.work_reals + 15) / 16 * 16;
  const size_t need = (dia_reals + (size_t)T * c.work_reals) * sizeof(REAL);
  if (*work_bytes < need) {
    free(*work);
    *work = aligned_alloc(64, (need + 63) / 64 * 64);
    *work_bytes = *work ? need : 0;
    if (!*work) return TS_ERR_MEMORY;
  }
  REAL *base = (REAL *)*work;
  c.work = base + dia_reals;
  FN(dia_init)(base, pl->mass_1d, pl->stiffness_1d, k, c.TL);
  c.dia = base;
  c.x = x;
  c.y = y;
#pragma omp parallel num_threads(T)
  FN(worker)(&c);
  return 0;
}
