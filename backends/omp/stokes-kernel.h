/* stokes-kernel.h -- the body of the omp Stokes kernel (doc/stokes.md section 4), included
 * by stokes.c once per precision with REAL (double or float) and FN(name) (a suffix) set.
 *
 * Per velocity component i (all arrays lexicographic, index 0 fastest):
 *   z = u_i with the constrained entries zeroed,  t = Mc along i applied to z,
 *   y_{u_i}(a) = scale[i] W_{!i}(a) (Kc z)(a) + sum_{d != i} scale[d] W_{!i,!d}(a) (L_d t)(a)
 *              + div_scale[i] W_{!i}(a) (D^T p)(a),
 *   y_p(q)    -= div_scale[i] W_{!i}(q) (D z)(q),
 * where W_{!S}(a) = prod_{e not in S} dg_mass[a_e mod (k+1)] is the diagonal DG mass of the
 * other directions, and every 1D operator gathers along one line of its input: the
 * assembled cell matrices of the continuous direction (an end DoF sums over both cells),
 * the block-tridiagonal SIPG matrix of a DG direction, and D / D^T between the two.  Each
 * output entry is written by exactly one thread (a gather formulation), so the parallel
 * loops over output lines have no races; all sums are accumulated in REAL. */

/* The plan's 1D matrices in REAL. */
typedef struct FN(stokes_matrices) {
  int k1, k2;                   /* k+1, k+2 */
  REAL mc[TS_MAX_DEGREE + 2][TS_MAX_DEGREE + 2], kc[TS_MAX_DEGREE + 2][TS_MAX_DEGREE + 2];
  REAL md[TS_MAX_DEGREE + 1];
  REAL ld[4][TS_MAX_DEGREE + 1][TS_MAX_DEGREE + 1], lu[TS_MAX_DEGREE + 1][TS_MAX_DEGREE + 1];
  REAL div[TS_MAX_DEGREE + 1][TS_MAX_DEGREE + 2];
} FN(stokes_matrices);

static void FN(stokes_matrices_init)(const ts_stokes_plan *pl, FN(stokes_matrices) *m) {
  const int k1 = pl->degree + 1, k2 = pl->degree + 2;
  m->k1 = k1;
  m->k2 = k2;
  for (int a = 0; a < k2; ++a)
    for (int b = 0; b < k2; ++b) {
      m->mc[a][b] = (REAL)pl->continuous_mass[a * k2 + b];
      m->kc[a][b] = (REAL)pl->continuous_stiffness[a * k2 + b];
    }
  for (int a = 0; a < k1; ++a) {
    m->md[a] = (REAL)pl->dg_mass[a];
    for (int b = 0; b < k1; ++b) {
      for (int s = 0; s < 4; ++s) m->ld[s][a][b] = (REAL)pl->sipg_diag[s][a * k1 + b];
      m->lu[a][b] = (REAL)pl->sipg_upper[a * k1 + b];
    }
    for (int b = 0; b < k2; ++b) m->div[a][b] = (REAL)pl->divergence[a * k2 + b];
  }
}

/* (C x)(a) along a continuous line (cell matrix C of size k2, cells sharing end DoFs):
 * line points to the entry a = 0, stride between neighbours. */
static inline REAL FN(continuous_gather)(const FN(stokes_matrices) *m,
                                         const REAL (*C)[TS_MAX_DEGREE + 2], int64_t cells,
                                         int64_t a, const REAL *line, int64_t stride) {
  const int k1 = m->k1, k2 = m->k2;
  const int64_t c = a / k1;
  const int r = (int)(a - c * k1);
  REAL s = 0;
  if (c < cells)
    for (int b = 0; b < k2; ++b) s += C[r][b] * line[(c * k1 + b) * stride];
  if (r == 0 && c > 0) /* the left end of cell c is the right end (row k+1) of cell c-1 */
    for (int b = 0; b < k2; ++b) s += C[k1][b] * line[((c - 1) * k1 + b) * stride];
  return s;
}

/* (L x)(a) along a DG line: the SIPG diagonal block of a's cell (by which of its faces are
 * on the boundary) and the coupling blocks to the neighbouring cells. */
static inline REAL FN(sipg_gather)(const FN(stokes_matrices) *m, int64_t cells, int64_t a,
                                   const REAL *line, int64_t stride) {
  const int k1 = m->k1;
  const int64_t c = a / k1;
  const int r = (int)(a - c * k1);
  const int kind = (c == 0 ? 1 : 0) + (c == cells - 1 ? 2 : 0);
  REAL s = 0;
  for (int b = 0; b < k1; ++b) s += m->ld[kind][r][b] * line[(c * k1 + b) * stride];
  if (c + 1 < cells)
    for (int b = 0; b < k1; ++b) s += m->lu[r][b] * line[((c + 1) * k1 + b) * stride];
  if (c > 0) /* block (c, c-1) = Lu^T */
    for (int b = 0; b < k1; ++b) s += m->lu[b][r] * line[((c - 1) * k1 + b) * stride];
  return s;
}

/* (D^T p)(a) along the component's own direction: a continuous DoF a, pressure line. */
static inline REAL FN(divergence_transpose_gather)(const FN(stokes_matrices) *m, int64_t cells,
                                                   int64_t a, const REAL *line, int64_t stride) {
  const int k1 = m->k1;
  const int64_t c = a / k1;
  const int r = (int)(a - c * k1);
  REAL s = 0;
  if (c < cells)
    for (int b = 0; b < k1; ++b) s += m->div[b][r] * line[(c * k1 + b) * stride];
  if (r == 0 && c > 0)
    for (int b = 0; b < k1; ++b) s += m->div[b][k1] * line[((c - 1) * k1 + b) * stride];
  return s;
}

/* (D z)(q) along the component's own direction: pressure DoF q, velocity line. */
static inline REAL FN(divergence_gather)(const FN(stokes_matrices) *m, int64_t q,
                                         const REAL *line, int64_t stride) {
  const int k1 = m->k1, k2 = m->k2;
  const int64_t c = q / k1;
  const int r = (int)(q - c * k1);
  REAL s = 0;
  for (int b = 0; b < k2; ++b) s += m->div[r][b] * line[(c * k1 + b) * stride];
  return s;
}

/* The DG mass of direction d at index a, or 1 where d is skipped or beyond dim. */
static inline REAL FN(dg_weight)(const FN(stokes_matrices) *m, int dim, int d, int64_t a) {
  return d < dim ? m->md[a % m->k1] : (REAL)1;
}

/* z = x_i with the constrained (normal boundary) entries zeroed, t = Mc along i of z. */
static void FN(stokes_masked_and_mass)(const ts_stokes_plan *pl, const FN(stokes_matrices) *m,
                                       int i, const REAL *x, REAL *z, REAL *t) {
  const int64_t *n = pl->n_u[i];
  const int64_t lines = n[0] * n[1] * n[2] / n[i], ni = n[i];
  const int64_t stride = i == 0 ? 1 : i == 1 ? n[0] : n[0] * n[1];
  const int zero_ends = pl->constrained;
#pragma omp parallel for schedule(static) num_threads(omp_operator_threads(lines * ni))
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t below = l % stride, first = below + (l - below) * ni;
    for (int64_t a = 0; a < ni; ++a)
      z[first + a * stride] = zero_ends && (a == 0 || a == ni - 1) ? (REAL)0 : x[first + a * stride];
  }
#pragma omp parallel for schedule(static) num_threads(omp_operator_threads(lines * ni))
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t below = l % stride, first = below + (l - below) * ni;
    for (int64_t a = 0; a < ni; ++a)
      t[first + a * stride] = FN(continuous_gather)(m, m->mc, pl->cells[i], a, z + first, stride);
  }
}

/* y_{u_i} = A_i z + B_i^T p (or +=), constrained rows y = x (or +=). */
static void FN(stokes_velocity_rows)(const ts_stokes_plan *pl, const FN(stokes_matrices) *m,
                                     int i, const REAL *x, const REAL *z, const REAL *t,
                                     const REAL *p, REAL *y, int add) {
  const int dim = pl->dim;
  const int64_t *n = pl->n_u[i], *np = pl->n_p;
  const int64_t stride[3] = {1, n[0], n[0] * n[1]}, pstride[3] = {1, np[0], np[0] * np[1]};
#pragma omp parallel for collapse(2) schedule(static) \
    num_threads(omp_operator_threads(n[0] * n[1] * n[2]))
  for (int64_t a2 = 0; a2 < n[2]; ++a2)
    for (int64_t a1 = 0; a1 < n[1]; ++a1)
      for (int64_t a0 = 0; a0 < n[0]; ++a0) {
        const int64_t a[3] = {a0, a1, a2};
        const int64_t idx = a0 + stride[1] * a1 + stride[2] * a2;
        REAL value;
        if (pl->constrained && (a[i] == 0 || a[i] == n[i] - 1)) {
          value = x[idx];
        } else {
          REAL w[3]; /* DG masses of the directions other than i (1 for i itself) */
          for (int d = 0; d < 3; ++d) w[d] = d == i ? (REAL)1 : FN(dg_weight)(m, dim, d, a[d]);
          const REAL w_others = w[0] * w[1] * w[2];
          const int64_t line_i = idx - a[i] * stride[i];
          value = (REAL)pl->scale[i] * w_others *
                  FN(continuous_gather)(m, m->kc, pl->cells[i], a[i], z + line_i, stride[i]);
          for (int d = 0; d < dim; ++d) {
            if (d == i) continue;
            value += (REAL)pl->scale[d] * (w_others / w[d]) *
                     FN(sipg_gather)(m, pl->cells[d], a[d], t + idx - a[d] * stride[d], stride[d]);
          }
          /* the pressure line through a in direction i: the same DG indices elsewhere */
          int64_t pline = 0;
          for (int d = 0; d < dim; ++d)
            if (d != i) pline += a[d] * pstride[d];
          value += (REAL)pl->div_scale[i] * w_others *
                   FN(divergence_transpose_gather)(m, pl->cells[i], a[i], p + pline, pstride[i]);
        }
        y[idx] = add ? y[idx] + value : value;
      }
}

/* y_p -= B_i z, or y_p = -B_i z with store (the first component when add = 0). */
static void FN(stokes_pressure_rows)(const ts_stokes_plan *pl, const FN(stokes_matrices) *m,
                                     int i, const REAL *z, REAL *yp, int store) {
  const int dim = pl->dim;
  const int64_t *n = pl->n_u[i], *np = pl->n_p;
  const int64_t stride[3] = {1, n[0], n[0] * n[1]}, pstride[3] = {1, np[0], np[0] * np[1]};
#pragma omp parallel for collapse(2) schedule(static) \
    num_threads(omp_operator_threads(np[0] * np[1] * np[2]))
  for (int64_t q2 = 0; q2 < np[2]; ++q2)
    for (int64_t q1 = 0; q1 < np[1]; ++q1)
      for (int64_t q0 = 0; q0 < np[0]; ++q0) {
        const int64_t q[3] = {q0, q1, q2};
        REAL w_others = 1;
        int64_t line = 0;
        for (int d = 0; d < dim; ++d)
          if (d != i) {
            w_others *= FN(dg_weight)(m, dim, d, q[d]);
            line += q[d] * stride[d];
          }
        const REAL value =
            -(REAL)pl->div_scale[i] * w_others * FN(divergence_gather)(m, q[i], z + line, stride[i]);
        const int64_t idx = q0 + pstride[1] * q1 + pstride[2] * q2;
        yp[idx] = store ? value : yp[idx] + value;
      }
}

/* y = Acal x (add = 0) or y += Acal x; work holds 2 * max_i |u_i| entries. */
static void FN(stokes_apply)(const ts_stokes_plan *pl, const REAL *x, REAL *y, int add, REAL *work,
                             int64_t work_half) {
  FN(stokes_matrices) m;
  FN(stokes_matrices_init)(pl, &m);
  const REAL *p = x + pl->offset[pl->dim];
  REAL *yp = y + pl->offset[pl->dim], *z = work, *t = work + work_half;
  for (int i = 0; i < pl->dim; ++i) {
    const REAL *xi = x + pl->offset[i];
    FN(stokes_masked_and_mass)(pl, &m, i, xi, z, t);
    FN(stokes_velocity_rows)(pl, &m, i, xi, z, t, p, y + pl->offset[i], add);
    FN(stokes_pressure_rows)(pl, &m, i, z, yp, i == 0 && !add);
  }
}
