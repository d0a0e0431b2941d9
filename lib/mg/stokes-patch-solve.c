/* stokes-patch-solve.c -- the local solvers of the Stokes vertex-patch smoother
 * (doc/stokes.md section 7; paper 000, sections 3.2-3.3): their plan data and their host
 * reference (the omp kernel, backends/omp/stokes-patch-kernel.h, runs the same steps).
 *
 * Schur complement (paper 000, eq. 9-10 and the text after them).  With y_u = A u + B^T p,
 * y_p = -B u, the local system A U + B^T P = F, -B U = G gives
 *   (B A^{-1} B^T) P = B A^{-1} F + G,   U = A^{-1} (F - B^T P).
 * A_j is block diagonal by component and each block a Kronecker sum (eq. 7), so A^{-1} is
 * fast diagonalization (eq. 9) with the generalized eigenpairs of the 1D patch matrices:
 * one continuous direction and the 4 boundary kinds of the DG directions, shared by all
 * components.  B A^{-1} B^T is singular by the constant coefficient vector (B^T 1 = 0, the
 * Gauss-Lagrange basis sums to 1); 1^T B = 0 too, so projecting G onto zero mean makes the
 * system consistent and CG on the zero-mean subspace gives the zero-mean pressure: the same
 * solution as the pseudo-inverse of Acal_j, whose null vector and left null vector are both
 * (0, 1).  The global pressure mean is fixed outside the smoother (doc/stokes.md section 6).
 *
 * Direct.  The dense Acal_j of each patch kind that occurs on the level (built column by
 * column from the Kronecker form) and its pseudo-inverse by LAPACK dgesvd dropping the one
 * zero singular value (Acal_j is not symmetric: the -B sign). */
#include <math.h>
#include <string.h>
#include "stokes-patch-impl.h"

/* LAPACK: singular value decomposition of a general m x n matrix (column-major). */
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
             const int *lda, double *s, double *u, const int *ldu, double *vt, const int *ldvt,
             double *work, const int *lwork, int *info);

#define DIRECT_MAX_DEGREE_2D 4
#define DIRECT_MAX_DEGREE_3D 1

/* The boundary kinds that occur in direction d of the level, as a bit set. */
static int occurring_kinds(int64_t cells) {
  if (cells == 2) return 1 << 3;
  if (cells == 3) return (1 << 1) | (1 << 2);
  return (1 << 0) | (1 << 1) | (1 << 2);
}

static int popcount4(int bits) { return (bits & 1) + (bits >> 1 & 1) + (bits >> 2 & 1) + (bits >> 3 & 1); }

static size_t direct_kind_count(const ts_stokes_patch_plan *plan) {
  size_t count = 1;
  for (int d = 0; d < plan->global.dim; ++d) count *= (size_t)popcount4(occurring_kinds(plan->global.cells[d]));
  return count;
}

int ts_stokes_patch_solver_max_degree(int dim, ts_stokes_patch_solver solver) {
  TS_GETTER_CHECK(dim == 2 || dim == 3, -1,
                  "ts_stokes_patch_solver_max_degree: dim = %d, allowed 2 or 3", dim);
  TS_GETTER_CHECK(solver == TS_STOKES_PATCH_SCHUR || solver == TS_STOKES_PATCH_DIRECT, -1,
                  "ts_stokes_patch_solver_max_degree: solver %d, allowed "
                  "TS_STOKES_PATCH_SCHUR (%d) or TS_STOKES_PATCH_DIRECT (%d)",
                  (int)solver, (int)TS_STOKES_PATCH_SCHUR, (int)TS_STOKES_PATCH_DIRECT);
  if (solver == TS_STOKES_PATCH_SCHUR) return TS_MAX_DEGREE - 1;
  return dim == 2 ? DIRECT_MAX_DEGREE_2D : DIRECT_MAX_DEGREE_3D;
}

static int direct_check_size(const ts_stokes_patch_plan *plan) {
  const int dim = plan->global.dim, k = plan->global.degree;
  const int max_k = dim == 2 ? DIRECT_MAX_DEGREE_2D : DIRECT_MAX_DEGREE_3D;
  TS_CHECK_ARG(k <= max_k,
               "Stokes patch direct solver: degree %d in %dD gives dense patch matrices of "
               "%d x %d; allowed degree <= %d in %dD (use the Schur solver)",
               k, dim, plan->n_local, plan->n_local, max_k, dim);
  return 0;
}

int ts_stokes_patch_solver_doubles(const ts_stokes_patch_plan *plan, size_t *count) {
  const size_t nc = (size_t)plan->n_cont, nd = (size_t)plan->n_dg, nl = (size_t)plan->n_local;
  if (plan->solver == TS_STOKES_PATCH_SCHUR) {
    *count = nc * nc + nc + TS_STOKES_PATCH_KINDS * (nd * nd + nd);
    return 0;
  }
  TS_CALL(direct_check_size(plan));
  *count = direct_kind_count(plan) * nl * nl;
  return 0;
}

/* ---------------------------------------------------------------- Schur complement */

static int schur_setup(ts_stokes_patch_plan *plan, double *storage) {
  const int nc = plan->n_cont, nd = plan->n_dg;
  double *next = storage;
  TS_CALL(ts_generalized_eigen(nc, plan->cont_stiffness, plan->cont_mass, next, next + nc * nc));
  plan->cont_eigenvectors = next;
  plan->cont_eigenvalues = next + nc * nc;
  next += nc * nc + nc;
  double mass[(2 * TS_STOKES_N1) * (2 * TS_STOKES_N1)] = {0};
  for (int a = 0; a < nd; ++a) mass[a * nd + a] = plan->dg_mass[a];
  for (int kind = 0; kind < TS_STOKES_PATCH_KINDS; ++kind) {
    TS_CALL(ts_generalized_eigen(nd, plan->dg_sipg[kind], mass, next, next + nd * nd));
    plan->dg_eigenvectors[kind] = next;
    plan->dg_eigenvalues[kind] = next + nd * nd;
    next += nd * nd + nd;
  }
  plan->cg_tolerance = TS_STOKES_PATCH_CG_TOLERANCE;
  plan->cg_max_iterations = 2 * plan->n_pressure;
  return 0;
}

/* out = A_{j,i}^{-1} in by fast diagonalization (paper 000, eq. 9); work: n_velocity */
static void velocity_block_inverse(const ts_stokes_patch_plan *plan, const int *kinds, int i,
                                   const double *in, double *out, double *work) {
  const int dim = plan->global.dim;
  int shape[3];
  ts_stokes_patch_shape(plan, i, shape);
  const double *S[3], *lambda[3];
  for (int d = 0; d < dim; ++d) {
    S[d] = d == i ? plan->cont_eigenvectors : plan->dg_eigenvectors[kinds[d]];
    lambda[d] = d == i ? plan->cont_eigenvalues : plan->dg_eigenvalues[kinds[d]];
  }
  memcpy(out, in, sizeof(double) * (size_t)plan->n_velocity);
  for (int d = 0; d < dim; ++d) { /* (x)_d S_d^T */
    ts_tensor_contract(dim, shape, d, S[d], shape[d], 1, out, work);
    memcpy(out, work, sizeof(double) * (size_t)plan->n_velocity);
  }
  for (int a2 = 0; a2 < shape[2]; ++a2)
    for (int a1 = 0; a1 < shape[1]; ++a1)
      for (int a0 = 0; a0 < shape[0]; ++a0) {
        double den = plan->global.scale[0] * lambda[0][a0] + plan->global.scale[1] * lambda[1][a1];
        if (dim == 3) den += plan->global.scale[2] * lambda[2][a2];
        out[a0 + shape[0] * (a1 + shape[1] * a2)] /= den;
      }
  for (int d = 0; d < dim; ++d) { /* (x)_d S_d */
    ts_tensor_contract(dim, shape, d, S[d], shape[d], 0, out, work);
    memcpy(out, work, sizeof(double) * (size_t)plan->n_velocity);
  }
}

/* The host work space of the Schur solve. */
typedef struct schur_work {
  double *v, *z, *helper;               /* n_velocity, n_velocity, 2 n_local */
  double *rhs, *res, *dir, *q, *pz;     /* n_pressure each */
} schur_work;

/* out = B A^{-1} B^T p */
static void schur_complement_apply(const ts_stokes_patch_plan *plan, const int *kinds,
                                   const double *p, double *out, schur_work *w) {
  for (int64_t a = 0; a < plan->n_pressure; ++a) out[a] = 0.0;
  for (int i = 0; i < plan->global.dim; ++i) {
    ts_stokes_patch_divergence_transpose(plan, i, p, w->v, w->helper, 0);
    velocity_block_inverse(plan, kinds, i, w->v, w->z, w->helper);
    ts_stokes_patch_divergence(plan, i, w->z, out, w->helper, 1);
  }
}

static double dot(int64_t n, const double *a, const double *b) {
  double s = 0.0;
  for (int64_t idx = 0; idx < n; ++idx) s += a[idx] * b[idx];
  return s;
}

static void remove_mean(int64_t n, double *a) {
  double mean = 0.0;
  for (int64_t idx = 0; idx < n; ++idx) mean += a[idx];
  mean /= (double)n;
  for (int64_t idx = 0; idx < n; ++idx) a[idx] -= mean;
}

/* out = M_p^{-1} in: the inverse of the patch's diagonal DG pressure mass (x)_d diag(dg_mass)
 * (Gauss-Lagrange basis), the preconditioner of the pressure CG: B A^{-1} B^T is spectrally
 * equivalent to the pressure mass on the patch (the local inf-sup condition), so CG on
 * M_p^{-1} S needs a number of steps that hardly depends on k. */
static void pressure_mass_inverse(const ts_stokes_patch_plan *plan, const double *in,
                                  double *out) {
  const int nd = plan->n_dg, dim = plan->global.dim;
  for (int64_t a = 0; a < plan->n_pressure; ++a) {
    double m = plan->dg_mass[a % nd] * plan->dg_mass[(a / nd) % nd];
    if (dim == 3) m *= plan->dg_mass[a / (nd * nd)];
    out[a] = in[a] / m;
  }
}

/* Preconditioned CG for (B A^{-1} B^T) P = rhs (zero mean) from P = 0, preconditioner the
 * inverse pressure mass, until the residual's M_p^{-1} norm drops by cg_tolerance (or
 * cg_max_iterations steps).  The iterates are projected onto zero mean at the end (the
 * pseudo-inverse solution); the residual stays in the zero-mean range of S. */
static void pressure_cg(const ts_stokes_patch_plan *plan, const int *kinds, double *P,
                        schur_work *w) {
  const int64_t n = plan->n_pressure;
  for (int64_t a = 0; a < n; ++a) {
    P[a] = 0.0;
    w->res[a] = w->rhs[a];
  }
  pressure_mass_inverse(plan, w->res, w->dir);
  double rz = dot(n, w->res, w->dir);
  const double stop = plan->cg_tolerance * plan->cg_tolerance * rz;
  for (int it = 0; it < plan->cg_max_iterations && rz > stop; ++it) {
    schur_complement_apply(plan, kinds, w->dir, w->q, w);
    const double alpha = rz / dot(n, w->dir, w->q);
    for (int64_t a = 0; a < n; ++a) {
      P[a] += alpha * w->dir[a];
      w->res[a] -= alpha * w->q[a];
    }
    pressure_mass_inverse(plan, w->res, w->pz);
    const double rz_new = dot(n, w->res, w->pz), beta = rz_new / rz;
    rz = rz_new;
    for (int64_t a = 0; a < n; ++a) w->dir[a] = w->pz[a] + beta * w->dir[a];
  }
  remove_mean(n, P);
}

static int schur_solve(const ts_stokes_patch_plan *plan, const int *kinds, const double *r,
                       double *t) {
  const int dim = plan->global.dim;
  const size_t nv = (size_t)plan->n_velocity, np = (size_t)plan->n_pressure;
  double *s;
  TS_CALL(ts_calloc(2 * nv + ts_stokes_patch_work_doubles(plan) + 5 * np, sizeof(double),
                    "Stokes patch Schur work", &s));
  schur_work w = {s, s + nv, s + 2 * nv, NULL, NULL, NULL, NULL, NULL};
  w.rhs = w.helper + ts_stokes_patch_work_doubles(plan);
  w.res = w.rhs + np;
  w.dir = w.res + np;
  w.q = w.dir + np;
  w.pz = w.q + np;
  const double *G = r + dim * nv;
  double *P = t + dim * nv;
  memcpy(w.rhs, G, sizeof(double) * np); /* rhs = G + B A^{-1} F */
  for (int i = 0; i < dim; ++i) {
    velocity_block_inverse(plan, kinds, i, r + i * nv, w.z, w.helper);
    ts_stokes_patch_divergence(plan, i, w.z, w.rhs, w.helper, 1);
  }
  remove_mean((int64_t)np, w.rhs);
  pressure_cg(plan, kinds, P, &w);
  for (int i = 0; i < dim; ++i) { /* U = A^{-1} (F - B^T P) */
    memcpy(w.v, r + i * nv, sizeof(double) * nv);
    for (size_t a = 0; a < nv; ++a) w.z[a] = 0.0;
    ts_stokes_patch_divergence_transpose(plan, i, P, w.z, w.helper, 0);
    for (size_t a = 0; a < nv; ++a) w.v[a] -= w.z[a];
    velocity_block_inverse(plan, kinds, i, w.v, t + i * nv, w.helper);
  }
  ts_free(&s);
  return 0;
}

/* ---------------------------------------------------------------- direct */

/* pinv (n x n, row-major) of the row-major A, dropping the smallest singular value.
 * Read as column-major, the buffer is A^T = U' S V'^T, so A^+ = U' S^+ V'^T. */
static int pseudo_inverse(int n, const double *A, double *pinv) {
  double query, *a;
  int info = 0, lwork = -1;
  dgesvd_("A", "A", &n, &n, NULL, &n, NULL, NULL, &n, NULL, &n, &query, &lwork, &info);
  lwork = (int)query;
  TS_CALL(ts_calloc((size_t)n * n * 3 + (size_t)n + (size_t)lwork, sizeof(double),
                    "dgesvd work space", &a));
  double *u = a + (size_t)n * n, *vt = u + (size_t)n * n, *sigma = vt + (size_t)n * n;
  double *work = sigma + n;
  memcpy(a, A, sizeof(double) * (size_t)n * n);
  dgesvd_("A", "A", &n, &n, a, &n, sigma, u, &n, vt, &n, work, &lwork, &info);
  if (info) {
    ts_free(&a);
    return TS_ERROR(TS_ERR_LAPACK, "dgesvd failed for the %dx%d Stokes patch matrix: info = %d",
                    n, n, info);
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      double sum = 0.0;
      for (int s = 0; s < n - 1; ++s) sum += u[r + (size_t)s * n] * vt[s + (size_t)c * n] / sigma[s];
      pinv[(size_t)r * n + c] = sum;
    }
  ts_free(&a);
  return 0;
}

/* The dense Acal_j (row-major) of a patch with the given kinds, column j = Acal_j e_j. */
static int local_matrix(const ts_stokes_patch_plan *plan, const int *kinds, double *A) {
  const int n = plan->n_local;
  double *e;
  TS_CALL(ts_calloc(2 * (size_t)n, sizeof(double), "Stokes patch unit vector", &e));
  double *col = e + n;
  for (int j = 0; j < n; ++j) {
    e[j] = 1.0;
    int ierr = ts_stokes_patch_local_apply(plan, kinds, e, col);
    if (ierr) {
      ts_free(&e);
      return ts_error_trace(ierr, __FILE__, __LINE__, "Stokes patch local matrix");
    }
    for (int i = 0; i < n; ++i) A[(size_t)i * n + j] = col[i];
    e[j] = 0.0;
  }
  ts_free(&e);
  return 0;
}

static int direct_setup(ts_stokes_patch_plan *plan, double *storage) {
  const int dim = plan->global.dim, n = plan->n_local;
  int bits[3] = {1, 1, 1};
  for (int d = 0; d < dim; ++d) bits[d] = occurring_kinds(plan->global.cells[d]);
  double *A;
  TS_CALL(ts_calloc((size_t)n * n, sizeof(double), "Stokes patch dense matrix", &A));
  double *next = storage;
  int ierr = 0;
  for (int kind = 0; kind < TS_STOKES_PATCH_MAX_KINDS && !ierr; ++kind) {
    const int kinds[3] = {kind % 4, kind / 4 % 4, kind / 16};
    if (!(bits[0] >> kinds[0] & 1) || !(bits[1] >> kinds[1] & 1) || !(bits[2] >> kinds[2] & 1))
      continue;
    ierr = local_matrix(plan, kinds, A);
    if (!ierr) ierr = pseudo_inverse(n, A, next);
    plan->pseudo_inverse[kind] = next;
    next += (size_t)n * n;
  }
  ts_free(&A);
  if (ierr) return ts_error_trace(ierr, __FILE__, __LINE__, "Stokes patch pseudo-inverses");
  return 0;
}

static int direct_solve(const ts_stokes_patch_plan *plan, const int *kinds, const double *r,
                        double *t) {
  const int n = plan->n_local;
  const int kind = kinds[0] + TS_STOKES_PATCH_KINDS * (kinds[1] + TS_STOKES_PATCH_KINDS * kinds[2]);
  const double *pinv = plan->pseudo_inverse[kind];
  TS_CHECK_ARG(pinv, "Stokes patch direct solver: no pseudo-inverse for patch kind %d on this level",
               kind);
  for (int i = 0; i < n; ++i) t[i] = dot(n, pinv + (size_t)i * n, r);
  return 0;
}

/* ---------------------------------------------------------------- dispatch */

int ts_stokes_patch_solver_setup(ts_stokes_patch_plan *plan, double *storage) {
  if (plan->solver == TS_STOKES_PATCH_SCHUR) return schur_setup(plan, storage);
  return direct_setup(plan, storage);
}

int ts_stokes_patch_local_solve(const ts_stokes_patch_plan *plan, const int *kinds,
                                const double *r, double *t) {
  if (plan->solver == TS_STOKES_PATCH_SCHUR) return schur_solve(plan, kinds, r, t);
  return direct_solve(plan, kinds, r, t);
}
