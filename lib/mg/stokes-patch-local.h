/* stokes-patch-local.h -- the local solve of the Stokes vertex-patch smoother on the host,
 * written once (doc/stokes.md section 7; paper 000, sections 3.2-3.3) for the library's
 * reference (mg/stokes-patch-solve.c, REAL = double) and the omp backend's kernel
 * (backends/omp/stokes-patch-kernel.h, REAL = double and float).  Header only, with no call
 * into the library, so that a backend module includes it without linking libtessera.  The
 * includer defines REAL, REAL_EPSILON and FN(name) (the instance's names) and has included
 * tessera/backend.h; every table the solve reads (eigen-decompositions, the patch
 * divergence and DG mass, pseudo-inverses) comes prepared in the ts_stokes_patch_plan.
 *
 * Schur complement (eq. 9-10).  With y_u = A u + B^T p, y_p = -B u, the local system
 * A U + B^T P = F, -B U = G gives
 *   (B A^{-1} B^T) P = B A^{-1} F + G,   U = A^{-1} (F - B^T P).
 * A_j is block diagonal by component and each block a Kronecker sum (eq. 7), so A^{-1} is
 * fast diagonalization (eq. 9) with the generalized eigenpairs of the 1D patch matrices.
 * B A^{-1} B^T is singular by the constant coefficient vector (B^T 1 = 0, the
 * Gauss-Lagrange basis sums to 1); 1^T B = 0 too, so projecting G onto zero mean makes the
 * system consistent and CG on the zero-mean subspace gives the zero-mean pressure: the
 * solution of the pseudo-inverse of Acal_j, whose null vector and left null vector are both
 * (0, 1).  Direct: t = pseudo_inverse[kind] r. */
#ifndef REAL
#error "define REAL, REAL_EPSILON and FN before including stokes-patch-local.h"
#endif

/* The work space of one patch solve (omp: one per thread). */
typedef struct {
  REAL *r, *t;                 /* n_local */
  REAL *v, *z;                 /* n_velocity */
  REAL *a, *b;                 /* n_local: contraction buffers */
  REAL *rhs, *res, *dir, *q, *pz; /* n_pressure */
} FN(swork);

static size_t FN(work_entries)(const ts_stokes_patch_plan *pl) {
  return 4 * (size_t)pl->n_local + 2 * (size_t)pl->n_velocity + 5 * (size_t)pl->n_pressure;
}

static void FN(work_split)(const ts_stokes_patch_plan *pl, REAL *w, FN(swork) *s) {
  s->r = w;
  s->t = s->r + pl->n_local;
  s->a = s->t + pl->n_local;
  s->b = s->a + pl->n_local;
  s->v = s->b + pl->n_local;
  s->z = s->v + pl->n_velocity;
  s->rhs = s->z + pl->n_velocity;
  s->res = s->rhs + pl->n_pressure;
  s->dir = s->res + pl->n_pressure;
  s->q = s->dir + pl->n_pressure;
  s->pz = s->q + pl->n_pressure;
}

/* out[.., r, ..] = sum_j B[r][j] in[.., j, ..] along direction d (transpose: B is
 * shape[d] x rows and B^T is applied); index 0 fastest */
static void FN(contract)(const int *shape, int d, const double *B, int rows, int transpose,
                         const REAL *in, REAL *out) {
  const int64_t inner = d == 0 ? 1 : d == 1 ? shape[0] : (int64_t)shape[0] * shape[1];
  const int64_t outer = d == 2 ? 1 : d == 1 ? shape[2] : (int64_t)shape[1] * shape[2];
  const int n = shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int r = 0; r < rows; ++r)
      for (int64_t i = 0; i < inner; ++i) {
        REAL sum = 0;
        for (int j = 0; j < n; ++j)
          sum += (REAL)(transpose ? B[(size_t)j * rows + r] : B[(size_t)r * n + j]) *
                 in[(o * n + j) * inner + i];
        out[(o * rows + r) * inner + i] = sum;
      }
}

static void FN(scale_direction)(const int *shape, int d, const double *w, REAL *a) {
  const int64_t inner = d == 0 ? 1 : d == 1 ? shape[0] : (int64_t)shape[0] * shape[1];
  const int64_t total = (int64_t)shape[0] * shape[1] * shape[2];
  for (int64_t idx = 0; idx < total; ++idx) a[idx] *= (REAL)w[(idx / inner) % shape[d]];
}

static void FN(shape)(const ts_stokes_patch_plan *pl, int i, int *shape) {
  for (int d = 0; d < 3; ++d)
    shape[d] = d >= pl->global.dim ? 1 : d == i ? pl->n_cont : pl->n_dg;
}

/* out += B_i u (work: n_pressure) */
static void FN(divergence_add)(const ts_stokes_patch_plan *pl, int i, const REAL *u, REAL *out,
                               REAL *work) {
  int shape[3], pshape[3];
  FN(shape)(pl, i, shape);
  FN(shape)(pl, pl->global.dim, pshape);
  FN(contract)(shape, i, pl->divergence, pl->n_dg, 0, u, work);
  for (int d = 0; d < pl->global.dim; ++d)
    if (d != i) FN(scale_direction)(pshape, d, pl->dg_mass, work);
  const REAL ds = (REAL)pl->global.div_scale[i];
  for (int idx = 0; idx < pl->n_pressure; ++idx) out[idx] += ds * work[idx];
}

/* out = B_i^T p (work: n_pressure) */
static void FN(divergence_transpose)(const ts_stokes_patch_plan *pl, int i, const REAL *p,
                                     REAL *out, REAL *work) {
  int shape[3], pshape[3];
  FN(shape)(pl, i, shape);
  FN(shape)(pl, pl->global.dim, pshape);
  for (int idx = 0; idx < pl->n_pressure; ++idx) work[idx] = p[idx];
  for (int d = 0; d < pl->global.dim; ++d)
    if (d != i) FN(scale_direction)(pshape, d, pl->dg_mass, work);
  FN(contract)(pshape, i, pl->divergence, pl->n_cont, 1, work, out);
  const REAL ds = (REAL)pl->global.div_scale[i];
  for (int idx = 0; idx < pl->n_velocity; ++idx) out[idx] *= ds;
}

/* out = A_i^{-1} in by fast diagonalization (paper 000, eq. 9); uses s->b */
static void FN(velocity_inverse)(const ts_stokes_patch_plan *pl, const int *kinds, int i,
                                 const REAL *in, REAL *out, FN(swork) *s) {
  const int dim = pl->global.dim;
  int shape[3];
  FN(shape)(pl, i, shape);
  const double *S[3], *lambda[3];
  for (int d = 0; d < dim; ++d) {
    S[d] = d == i ? pl->cont_eigenvectors : pl->dg_eigenvectors[kinds[d]];
    lambda[d] = d == i ? pl->cont_eigenvalues : pl->dg_eigenvalues[kinds[d]];
  }
  REAL *from = s->b, *to = out;
  for (int idx = 0; idx < pl->n_velocity; ++idx) from[idx] = in[idx];
  for (int d = 0; d < dim; ++d) { /* (x)_d S_d^T */
    FN(contract)(shape, d, S[d], shape[d], 1, from, to);
    REAL *swap = from; from = to; to = swap;
  }
  for (int a2 = 0; a2 < shape[2]; ++a2)
    for (int a1 = 0; a1 < shape[1]; ++a1)
      for (int a0 = 0; a0 < shape[0]; ++a0) {
        double den = pl->global.scale[0] * lambda[0][a0] + pl->global.scale[1] * lambda[1][a1];
        if (dim == 3) den += pl->global.scale[2] * lambda[2][a2];
        from[a0 + shape[0] * (a1 + shape[1] * a2)] /= (REAL)den;
      }
  for (int d = 0; d < dim; ++d) { /* (x)_d S_d */
    FN(contract)(shape, d, S[d], shape[d], 0, from, to);
    REAL *swap = from; from = to; to = swap;
  }
  if (from != out)
    for (int idx = 0; idx < pl->n_velocity; ++idx) out[idx] = from[idx];
}

static REAL FN(dot)(int n, const REAL *a, const REAL *b) {
  REAL sum = 0;
  for (int idx = 0; idx < n; ++idx) sum += a[idx] * b[idx];
  return sum;
}

static void FN(remove_mean)(int n, REAL *a) {
  REAL mean = 0;
  for (int idx = 0; idx < n; ++idx) mean += a[idx];
  mean /= (REAL)n;
  for (int idx = 0; idx < n; ++idx) a[idx] -= mean;
}

/* out = B A^{-1} B^T p */
static void FN(schur_apply)(const ts_stokes_patch_plan *pl, const int *kinds, const REAL *p,
                            REAL *out, FN(swork) *s) {
  for (int idx = 0; idx < pl->n_pressure; ++idx) out[idx] = 0;
  for (int i = 0; i < pl->global.dim; ++i) {
    FN(divergence_transpose)(pl, i, p, s->v, s->a);
    FN(velocity_inverse)(pl, kinds, i, s->v, s->z, s);
    FN(divergence_add)(pl, i, s->z, out, s->a);
  }
}

/* out = M_p^{-1} in, M_p = (x)_d diag(dg_mass) the patch pressure mass */
static void FN(pressure_mass_inverse)(const ts_stokes_patch_plan *pl, const REAL *in, REAL *out) {
  const int nd = pl->n_dg, dim = pl->global.dim;
  for (int idx = 0; idx < pl->n_pressure; ++idx) {
    double m = pl->dg_mass[idx % nd] * pl->dg_mass[(idx / nd) % nd];
    if (dim == 3) m *= pl->dg_mass[idx / (nd * nd)];
    out[idx] = in[idx] / (REAL)m;
  }
}

/* CG for (B A^{-1} B^T) P = s->rhs (zero mean) from P = 0, preconditioned by M_p^{-1}, until
 * the residual's M_p^{-1} norm drops by cg_tolerance, raised to what the precision can reach */
static void FN(pressure_cg)(const ts_stokes_patch_plan *pl, const int *kinds, REAL *P,
                            FN(swork) *s) {
  const int n = pl->n_pressure;
  for (int idx = 0; idx < n; ++idx) {
    P[idx] = 0;
    s->res[idx] = s->rhs[idx];
  }
  FN(pressure_mass_inverse)(pl, s->res, s->dir);
  const double tol = pl->cg_tolerance > 10 * REAL_EPSILON ? pl->cg_tolerance : 10 * REAL_EPSILON;
  REAL rz = FN(dot)(n, s->res, s->dir);
  const REAL stop = (REAL)(tol * tol) * rz;
  for (int it = 0; it < pl->cg_max_iterations && rz > stop; ++it) {
    FN(schur_apply)(pl, kinds, s->dir, s->q, s);
    const REAL alpha = rz / FN(dot)(n, s->dir, s->q);
    for (int idx = 0; idx < n; ++idx) {
      P[idx] += alpha * s->dir[idx];
      s->res[idx] -= alpha * s->q[idx];
    }
    FN(pressure_mass_inverse)(pl, s->res, s->pz);
    const REAL rz_new = FN(dot)(n, s->res, s->pz), beta = rz_new / rz;
    rz = rz_new;
    for (int idx = 0; idx < n; ++idx) s->dir[idx] = s->pz[idx] + beta * s->dir[idx];
  }
  FN(remove_mean)(n, P);
}

/* s->t = Acal_j^{+} s->r by the Schur complement (paper 000, eq. 9-10) */
static void FN(schur_solve)(const ts_stokes_patch_plan *pl, const int *kinds, FN(swork) *s) {
  const int dim = pl->global.dim, nv = pl->n_velocity;
  REAL *P = s->t + (size_t)dim * nv;
  for (int idx = 0; idx < pl->n_pressure; ++idx) s->rhs[idx] = s->r[(size_t)dim * nv + idx];
  for (int i = 0; i < dim; ++i) { /* rhs = G + B A^{-1} F */
    FN(velocity_inverse)(pl, kinds, i, s->r + (size_t)i * nv, s->z, s);
    FN(divergence_add)(pl, i, s->z, s->rhs, s->a);
  }
  FN(remove_mean)(pl->n_pressure, s->rhs);
  FN(pressure_cg)(pl, kinds, P, s);
  for (int i = 0; i < dim; ++i) { /* U = A^{-1} (F - B^T P) */
    FN(divergence_transpose)(pl, i, P, s->z, s->a);
    for (int idx = 0; idx < nv; ++idx) s->v[idx] = s->r[(size_t)i * nv + idx] - s->z[idx];
    FN(velocity_inverse)(pl, kinds, i, s->v, s->t + (size_t)i * nv, s);
  }
}

/* s->t = pinv s->r */
static void FN(direct_solve)(const ts_stokes_patch_plan *pl, int kind, FN(swork) *s) {
  const int n = pl->n_local;
  const double *pinv = pl->pseudo_inverse[kind];
  for (int i = 0; i < n; ++i) {
    REAL sum = 0;
    for (int j = 0; j < n; ++j) sum += (REAL)pinv[(size_t)i * n + j] * s->r[j];
    s->t[i] = sum;
  }
}

/* The global indices of the patch's local DoFs, in the local order (tessera/backend.h). */
static void FN(indices)(const ts_stokes_patch_plan *pl, const int64_t *vertex, int64_t *idx) {
  const ts_stokes_plan *g = &pl->global;
  int64_t pos = 0;
  for (int i = 0; i <= g->dim; ++i) {
    int shape[3];
    int64_t first[3], n[3];
    FN(shape)(pl, i, shape);
    for (int d = 0; d < 3; ++d) {
      first[d] = d < g->dim ? (vertex[d] - 1) * (g->degree + 1) + (d == i ? 1 : 0) : 0;
      n[d] = i < g->dim ? g->n_u[i][d] : g->n_p[d];
    }
    for (int a2 = 0; a2 < shape[2]; ++a2)
      for (int a1 = 0; a1 < shape[1]; ++a1)
        for (int a0 = 0; a0 < shape[0]; ++a0)
          idx[pos++] = g->offset[i] + first[0] + a0 + n[0] * (first[1] + a1 + n[1] * (first[2] + a2));
  }
}
