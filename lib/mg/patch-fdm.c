/* patch-fdm.c -- the fast-diagonalization local solver of the vertex-patch smoother (paper
 * 002, eq. 2.11-2.15).  The patch matrix on the interior DoFs is the Kronecker sum
 * A_j = sum_d scale_d (x)_e (e == d ? K_e : M_e) of the m x m interior blocks of the 1D patch
 * matrices.  With K_d S_d = M_d S_d Lambda_d and S_d^T M_d S_d = I,
 *   A_j^{-1} = (x)_d S_d  (sum_d scale_d Lambda_d)^{-1}  (x)_d S_d^T,
 * so one 1D eigenproblem per direction (one in all when the directions share their 1D
 * matrices, as on a Cartesian level) replaces the factorization of an m^dim matrix. */
#include <string.h>
#include "../tessera-impl.h"

#define FDM_MAX_M (2 * TS_MAX_DEGREE + 1)

static size_t fdm_storage_doubles(const ts_patch_plan *plan) {
  const size_t m = (size_t)plan->m;
  return (size_t)plan->dim * (m * m + m);
}

/* interior block (rows and columns 1..nbar-2) of an nbar x nbar matrix */
static void interior_block(int nbar, const double *A, double *B) {
  const int m = nbar - 2;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) B[i * m + j] = A[(i + 1) * nbar + j + 1];
}

static int fdm_setup(ts_patch_plan *plan, double *storage) {
  const int m = plan->m, nbar = plan->nbar;
  TS_CHECK_ARG(m >= 1 && m <= FDM_MAX_M && nbar == m + 2,
               "fast diagonalization: patch sizes nbar = %d, m = %d; need m = nbar - 2 in 1..%d",
               nbar, m, FDM_MAX_M);
  double K[FDM_MAX_M * FDM_MAX_M], M[FDM_MAX_M * FDM_MAX_M];
  for (int d = 0; d < plan->dim; ++d) {
    TS_CHECK_ARG(plan->mass_1d[d] && plan->stiffness_1d[d],
                 "fast diagonalization: the 1D matrices of direction %d are NULL", d);
    int shared = -1; /* a previous direction with the same 1D matrices */
    for (int e = 0; e < d; ++e)
      if (plan->mass_1d[e] == plan->mass_1d[d] && plan->stiffness_1d[e] == plan->stiffness_1d[d])
        shared = e;
    if (shared >= 0) {
      plan->eigenvectors[d] = plan->eigenvectors[shared];
      plan->eigenvalues[d] = plan->eigenvalues[shared];
      continue;
    }
    double *S = storage + (size_t)d * (m * m + m), *lambda = S + m * m;
    interior_block(nbar, plan->stiffness_1d[d], K);
    interior_block(nbar, plan->mass_1d[d], M);
    TS_CALL(ts_generalized_eigen(m, K, M, S, lambda));
    plan->eigenvectors[d] = S;
    plan->eigenvalues[d] = lambda;
  }
  for (int d = plan->dim; d < 3; ++d) {
    plan->eigenvectors[d] = NULL;
    plan->eigenvalues[d] = NULL;
  }
  plan->solver = TS_PATCH_SOLVER_FAST_DIAGONALIZATION;
  return 0;
}

/* t = (S or S^T) along direction d of an m^dim array (index 0 fastest) */
static void contract(int dim, int m, int d, const double *S, int transpose, const double *in,
                     double *out) {
  const int shape[3] = {m, m, m};
  ts_tensor_contract(dim, shape, d, S, m, transpose, in, out);
}

static int fdm_apply_host(const ts_patch_plan *plan, const double *r, double *t) {
  const int dim = plan->dim, m = plan->m;
  TS_CHECK_ARG(plan->solver == TS_PATCH_SOLVER_FAST_DIAGONALIZATION,
               "fast diagonalization: the plan's solver is %d, not fast diagonalization",
               (int)plan->solver);
  size_t size = 1;
  for (int d = 0; d < dim; ++d) size *= (size_t)m;
  double *u;
  TS_CALL(ts_calloc(2 * size, sizeof(double), "fast diagonalization work", &u));
  double *v = u + size;
  memcpy(u, r, size * sizeof(double));
  for (int d = 0; d < dim; ++d) { /* u = (x) S^T r */
    contract(dim, m, d, plan->eigenvectors[d], 1, u, v);
    memcpy(u, v, size * sizeof(double));
  }
  for (size_t i = 0; i < size; ++i) {
    size_t rest = i;
    double den = 0.0;
    for (int d = 0; d < dim; ++d) {
      den += plan->scale[d] * plan->eigenvalues[d][rest % (size_t)m];
      rest /= (size_t)m;
    }
    u[i] /= den;
  }
  for (int d = 0; d < dim; ++d) { /* t = (x) S u */
    contract(dim, m, d, plan->eigenvectors[d], 0, u, v);
    memcpy(u, v, size * sizeof(double));
  }
  memcpy(t, u, size * sizeof(double));
  ts_free(&u);
  return 0;
}

const ts_patch_local_solver ts_patch_solver_fdm = {
    .name = "fast diagonalization",
    .storage_doubles = fdm_storage_doubles,
    .setup = fdm_setup,
    .apply_host = fdm_apply_host,
};
