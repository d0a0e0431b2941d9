/* stokes-patch-solve.c -- the local solvers of the Stokes vertex-patch smoother
 * (doc/stokes.md section 7; paper 000, sections 3.2-3.3): their plan data, prepared here
 * once, and the host reference of the local solve, which is the omp kernel's own code
 * (mg/stokes-patch-local.h, included here in double).
 *
 * Schur complement: the generalized eigenpairs of the 1D patch matrices (paper 000, eq. 9),
 * one continuous direction and the 4 boundary kinds of the DG directions, shared by all
 * components; the pressure CG's tolerance and step limit.
 *
 * Direct.  The dense Acal_j of each patch kind that occurs on the level (built column by
 * column from the Kronecker form) and its pseudo-inverse by LAPACK dgesvd dropping the one
 * zero singular value (Acal_j is not symmetric: the -B sign). */
#include <float.h>
#include <string.h>
#include "stokes-patch-impl.h"

#define REAL double
#define REAL_EPSILON DBL_EPSILON
#define FN(name) stokes_local_##name
#include "stokes-patch-local.h"
#undef REAL
#undef REAL_EPSILON
#undef FN

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

/* ---------------------------------------------------------------- dispatch */

int ts_stokes_patch_solver_setup(ts_stokes_patch_plan *plan, double *storage) {
  if (plan->solver == TS_STOKES_PATCH_SCHUR) return schur_setup(plan, storage);
  return direct_setup(plan, storage);
}

int ts_stokes_patch_local_solve(const ts_stokes_patch_plan *plan, const int *kinds,
                                const double *r, double *t) {
  const int kind = kinds[0] + TS_STOKES_PATCH_KINDS * (kinds[1] + TS_STOKES_PATCH_KINDS * kinds[2]);
  TS_CHECK_ARG(plan->solver == TS_STOKES_PATCH_SCHUR || plan->pseudo_inverse[kind],
               "Stokes patch direct solver: no pseudo-inverse for patch kind %d on this level",
               kind);
  double *storage;
  TS_CALL(ts_calloc(stokes_local_work_entries(plan), sizeof(double), "Stokes patch solve work",
                    &storage));
  stokes_local_swork work;
  stokes_local_work_split(plan, storage, &work);
  memcpy(work.r, r, sizeof(double) * (size_t)plan->n_local);
  if (plan->solver == TS_STOKES_PATCH_SCHUR)
    stokes_local_schur_solve(plan, kinds, &work);
  else
    stokes_local_direct_solve(plan, kind, &work);
  memcpy(t, work.t, sizeof(double) * (size_t)plan->n_local);
  ts_free(&storage);
  return 0;
}

/* ---------------------------------------------------------------- the local numbering and B */

void ts_stokes_patch_shape(const ts_stokes_patch_plan *plan, int i, int *shape) {
  stokes_local_shape(plan, i, shape);
}

void ts_stokes_patch_indices(const ts_stokes_patch_plan *plan, const int64_t *vertex,
                             int64_t *indices) {
  stokes_local_indices(plan, vertex, indices);
}

void ts_stokes_patch_divergence_add(const ts_stokes_patch_plan *plan, int i, const double *u,
                                    double *out, double *work) {
  stokes_local_divergence_add(plan, i, u, out, work);
}

void ts_stokes_patch_divergence_transpose(const ts_stokes_patch_plan *plan, int i,
                                          const double *p, double *out, double *work) {
  stokes_local_divergence_transpose(plan, i, p, out, work);
}
