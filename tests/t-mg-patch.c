/* t-mg-patch.c -- the vertex-patch smoother (paper 002, Algorithm 2.3) against an independent
 * reference.  The reference builds the dense global matrix column by column from the
 * matrix-free operator (A e_j), visits the patches one by one in the same color order
 * (colors by the parity of the vertex index per direction, Figure 2), computes the residual
 * b - A x with the whole matrix and solves with the dense patch block A[I,I] by Gaussian
 * elimination (eq. 2.5-2.7); finally x = b on the Dirichlet DoFs.
 * Checks: the fast-diagonalization local solve (host reference and kernel, on a mesh with a
 * single patch) equals the dense inverse, 2D and 3D, k = 1..5; one step equals the reference
 * on non-cubic boxes with different h per direction; Separate equals Fused; single precision
 * is close to double; as a stationary iteration the energy norm of the error decreases
 * strictly; bad arguments give errors; the omp backend's run-time-degree path agrees. */
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"

static ts_backend be;

typedef struct setup {
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs dofs;
  ts_operator A;
} setup;

static int setup_create(int dim, int k, const int *coarse, int level, const double *upper,
                        ts_precision p, setup *s) {
  const double lower[3] = {0, 0, 0};
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, level, &s->mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, k, &s->fe);
  if (!ierr) ierr = ts_dofs_create(s->mesh, s->fe, level, &s->dofs);
  if (!ierr) ierr = ts_operator_create_laplace(be, s->dofs, p, &s->A);
  if (ierr) diag("setup: %s", ts_error_message());
  return ierr;
}

static void setup_destroy(setup *s) {
  ts_operator_destroy(&s->A);
  ts_dofs_destroy(&s->dofs);
  ts_fe_destroy(&s->fe);
  ts_mesh_destroy(&s->mesh);
}

/* Dense n x n matrix (row-major) of the operator, column j = A e_j. */
static double *dense_matrix(ts_operator A) {
  const int64_t n = ts_operator_size(A);
  double *M = malloc(sizeof(double) * (size_t)(n * n)), *e = calloc((size_t)n, sizeof(double));
  double *col = malloc(sizeof(double) * (size_t)n);
  ts_vec x = NULL, y = NULL;
  ts_vec_create(be, n, TS_DOUBLE, &x);
  ts_vec_create(be, n, TS_DOUBLE, &y);
  for (int64_t j = 0; j < n; ++j) {
    e[j] = 1.0;
    ts_vec_set_from_host(x, e);
    ts_operator_apply(A, x, y);
    ts_vec_get_to_host(y, col);
    for (int64_t i = 0; i < n; ++i) M[i * n + j] = col[i];
    e[j] = 0.0;
  }
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  free(e);
  free(col);
  return M;
}

/* Solve the dense system S t = r (S is m x m, overwritten) by Gaussian elimination with
 * partial pivoting; r is overwritten by t. */
static void dense_solve(int m, double *S, double *r) {
  for (int c = 0; c < m; ++c) {
    int piv = c;
    for (int i = c + 1; i < m; ++i)
      if (fabs(S[i * m + c]) > fabs(S[piv * m + c])) piv = i;
    if (piv != c) {
      for (int j = 0; j < m; ++j) {
        double t = S[c * m + j];
        S[c * m + j] = S[piv * m + j];
        S[piv * m + j] = t;
      }
      double t = r[c];
      r[c] = r[piv];
      r[piv] = t;
    }
    for (int i = c + 1; i < m; ++i) {
      const double f = S[i * m + c] / S[c * m + c];
      for (int j = c; j < m; ++j) S[i * m + j] -= f * S[c * m + j];
      r[i] -= f * r[c];
    }
  }
  for (int i = m - 1; i >= 0; --i) {
    double s = r[i];
    for (int j = i + 1; j < m; ++j) s -= S[i * m + j] * r[j];
    r[i] = s / S[i * m + i];
  }
}

/* Global indices of the interior DoFs of the patch of vertex v (lexicographic). */
static int patch_interior(ts_dofs dofs, const int64_t *v, int64_t *idx) {
  const int k = dofs->degree, m = 2 * k - 1, dim = dofs->dim;
  int count = 0;
  for (int a2 = 0; a2 < (dim == 3 ? m : 1); ++a2)
    for (int a1 = 0; a1 < m; ++a1)
      for (int a0 = 0; a0 < m; ++a0) {
        const int64_t i0 = (v[0] - 1) * k + 1 + a0, i1 = (v[1] - 1) * k + 1 + a1;
        const int64_t i2 = dim == 3 ? (v[2] - 1) * k + 1 + a2 : 0;
        idx[count++] = i0 + dofs->n[0] * (i1 + dofs->n[1] * i2);
      }
  return count;
}

/* One reference smoothing step on host vectors. */
static void reference_step(ts_dofs dofs, const double *A, const double *b, double *x) {
  const int dim = dofs->dim, k = dofs->degree, m = 2 * k - 1;
  const int64_t n = dofs->count;
  const int size = dim == 3 ? m * m * m : m * m;
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)size);
  double *S = malloc(sizeof(double) * (size_t)size * size), *r = malloc(sizeof(double) * size);
  const int64_t c2 = dim == 3 ? dofs->cells[2] : 2;
  for (int color = 0; color < (1 << dim); ++color)
    for (int64_t v2 = 1; v2 < c2; ++v2)
      for (int64_t v1 = 1; v1 < dofs->cells[1]; ++v1)
        for (int64_t v0 = 1; v0 < dofs->cells[0]; ++v0) {
          const int64_t v[3] = {v0, v1, v2};
          int c = 0;
          for (int d = 0; d < dim; ++d) c |= (int)((v[d] - 1) & 1) << d;
          if (c != color) continue;
          patch_interior(dofs, v, idx);
          for (int i = 0; i < size; ++i) {
            double s = b[idx[i]];
            for (int64_t j = 0; j < n; ++j) s -= A[idx[i] * n + j] * x[j];
            r[i] = s;
            for (int j = 0; j < size; ++j) S[i * size + j] = A[idx[i] * n + idx[j]];
          }
          dense_solve(size, S, r);
          for (int i = 0; i < size; ++i) x[idx[i]] += r[i];
        }
  for (int64_t i = 0; i < n; ++i)
    if (ts_dofs_is_boundary(dofs, i)) x[i] = b[i];
  free(idx);
  free(S);
  free(r);
}

static double rel_diff(int64_t n, const double *a, const double *ref) {
  double num = 0.0, den = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return sqrt(num / (den > 0 ? den : 1.0));
}

/* One smoother step on the backend from host x (in place), b; returns 0 or an error. */
static int smoother_step(setup *s, ts_precision p, ts_patch_variant variant, const double *b,
                         double *x, int steps) {
  const int64_t n = s->dofs->count;
  ts_operator A = s->A;
  ts_operator As = NULL;
  ts_smoother sm = NULL;
  ts_vec vb = NULL, vx = NULL;
  int ierr = 0;
  if (p != ts_operator_precision(s->A)) {
    ierr = ts_operator_create_laplace(be, s->dofs, p, &As);
    A = As;
  }
  if (!ierr) ierr = ts_smoother_create_vertex_patch(A, s->dofs, variant, &sm);
  if (!ierr) ierr = ts_vec_create(be, n, p, &vb);
  if (!ierr) ierr = ts_vec_create(be, n, p, &vx);
  if (!ierr) ierr = ts_vec_set_from_host(vb, b);
  if (!ierr) ierr = ts_vec_set_from_host(vx, x);
  for (int i = 0; i < steps && !ierr; ++i) ierr = ts_smoother_apply(sm, vb, vx);
  if (!ierr) ierr = ts_vec_get_to_host(vx, x);
  if (ierr) diag("smoother: %s", ts_error_message());
  ts_vec_destroy(&vb);
  ts_vec_destroy(&vx);
  ts_smoother_destroy(&sm);
  ts_operator_destroy(&As);
  return ierr;
}

static double *random_host(int64_t n, uint64_t seed) {
  double *v = malloc(sizeof(double) * (size_t)n);
  uint64_t z = seed;
  for (int64_t i = 0; i < n; ++i) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = 2.0 * (double)(z >> 11) * 0x1.0p-53 - 1.0;
  }
  return v;
}

/* The local solve on a mesh of 2^dim cells (one patch): host fast diagonalization and one
 * kernel step from x = 0 against the dense inverse of the patch block. */
static void check_local_solve(int dim, int k) {
  const int coarse[3] = {2, 2, 2};
  const double upper[3] = {1.0, 0.6, 1.7};
  setup s = {0};
  if (setup_create(dim, k, coarse, 0, upper, TS_DOUBLE, &s)) {
    skip(3, "setup failed");
    return;
  }
  const int64_t n = s.dofs->count, v[3] = {1, 1, 1};
  const int m = 2 * k - 1, size = dim == 3 ? m * m * m : m * m;
  double *A = dense_matrix(s.A), *b = random_host(n, 17 + k), *x = calloc((size_t)n, sizeof(double));
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)size);
  double *S = malloc(sizeof(double) * (size_t)size * size), *t = malloc(sizeof(double) * size);
  double *ref = malloc(sizeof(double) * size), *got = malloc(sizeof(double) * size);
  patch_interior(s.dofs, v, idx);
  for (int i = 0; i < size; ++i) {
    ref[i] = b[idx[i]];
    for (int j = 0; j < size; ++j) S[i * size + j] = A[idx[i] * n + idx[j]];
  }
  dense_solve(size, S, ref);
  /* host reference of the local solver, from the smoother's plan */
  ts_smoother sm = NULL;
  const ts_patch_plan *pl = NULL;
  double e = INFINITY;
  if (!ts_smoother_create_vertex_patch(s.A, s.dofs, TS_PATCH_FUSED, &sm) &&
      !ts_vertex_patch_plan(sm, &pl)) {
    for (int i = 0; i < size; ++i) t[i] = b[idx[i]];
    if (!ts_patch_solver_fdm.apply_host(pl, t, got)) e = rel_diff(size, got, ref);
  } else {
    diag("%s", ts_error_message());
  }
  ts_smoother_destroy(&sm);
  ok(e <= 1e-12, "%dD Q%d: fast diagonalization (host) = dense inverse of the %d x %d patch "
     "matrix: relative difference %.2e", dim, k, size, size, e);
  for (int variant = 0; variant < 2; ++variant) {
    for (int64_t i = 0; i < n; ++i) x[i] = 0.0;
    e = INFINITY;
    if (!smoother_step(&s, TS_DOUBLE, (ts_patch_variant)variant, b, x, 1)) {
      for (int i = 0; i < size; ++i) got[i] = x[idx[i]];
      e = rel_diff(size, got, ref);
      for (int64_t i = 0; i < n; ++i) /* and x = b on the boundary */
        if (ts_dofs_is_boundary(s.dofs, i) && x[i] != b[i]) e = INFINITY;
    }
    ok(e <= 1e-12, "%dD Q%d: one %s step on a single patch from x = 0 = dense inverse: relative "
       "difference %.2e", dim, k, variant ? "Fused" : "Separate", e);
  }
  free(A);
  free(b);
  free(x);
  free(idx);
  free(S);
  free(t);
  free(ref);
  free(got);
  setup_destroy(&s);
}

/* One step (Fused and Separate) against the reference. */
static void check_step(int dim, int k, const int *coarse, int level, const double *upper) {
  setup s = {0};
  if (setup_create(dim, k, coarse, level, upper, TS_DOUBLE, &s)) {
    skip(2, "setup failed");
    return;
  }
  const int64_t n = s.dofs->count;
  double *A = dense_matrix(s.A), *b = random_host(n, 3 + k), *x0 = random_host(n, 5 + k);
  double *ref = malloc(sizeof(double) * n), *xf = malloc(sizeof(double) * n),
         *xs = malloc(sizeof(double) * n);
  for (int64_t i = 0; i < n; ++i) ref[i] = xf[i] = xs[i] = x0[i];
  reference_step(s.dofs, A, b, ref);
  double ef = INFINITY, es = INFINITY;
  if (!smoother_step(&s, TS_DOUBLE, TS_PATCH_FUSED, b, xf, 1)) ef = rel_diff(n, xf, ref);
  if (!smoother_step(&s, TS_DOUBLE, TS_PATCH_SEPARATE, b, xs, 1)) es = rel_diff(n, xs, xf);
  ok(ef <= 1e-12, "%dD Q%d, %lldx%lldx%lld cells (%lld DoFs): one Fused step = sequential dense "
     "reference: relative difference %.2e", dim, k, (long long)s.dofs->cells[0],
     (long long)s.dofs->cells[1], (long long)s.dofs->cells[2], (long long)n, ef);
  ok(es <= 1e-13, "%dD Q%d: Separate = Fused: relative difference %.2e", dim, k, es);
  free(A);
  free(b);
  free(x0);
  free(ref);
  free(xf);
  free(xs);
  setup_destroy(&s);
}

/* Single precision against double, one step from random data. */
static void check_single(int dim, int k, const int *coarse, int level, const double *upper) {
  setup s = {0};
  if (setup_create(dim, k, coarse, level, upper, TS_DOUBLE, &s)) {
    skip(1, "setup failed");
    return;
  }
  const int64_t n = s.dofs->count;
  double *b = random_host(n, 9), *xd = random_host(n, 10), *xs = malloc(sizeof(double) * n);
  for (int64_t i = 0; i < n; ++i) xs[i] = (double)(float)xd[i];
  for (int64_t i = 0; i < n; ++i) b[i] = (double)(float)b[i];
  for (int64_t i = 0; i < n; ++i) xd[i] = xs[i];
  double e = INFINITY;
  if (!smoother_step(&s, TS_DOUBLE, TS_PATCH_FUSED, b, xd, 1) &&
      !smoother_step(&s, TS_SINGLE, TS_PATCH_FUSED, b, xs, 1))
    e = rel_diff(n, xs, xd);
  ok(e <= 1e-5, "%dD Q%d: single precision step vs double: relative difference %.2e", dim, k, e);
  free(b);
  free(xd);
  free(xs);
  setup_destroy(&s);
}

/* The energy norm of the error decreases strictly in every step of x <- S(x, b). */
static void check_energy(int dim, int k, const int *coarse, int level, const double *upper,
                         int steps) {
  setup s = {0};
  if (setup_create(dim, k, coarse, level, upper, TS_DOUBLE, &s)) {
    skip(1, "setup failed");
    return;
  }
  const int64_t n = s.dofs->count;
  ts_smoother sm = NULL;
  ts_vec xs = NULL, b = NULL, x = NULL, e = NULL, Ae = NULL;
  int ierr = ts_smoother_create_vertex_patch(s.A, s.dofs, TS_PATCH_FUSED, &sm);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &xs);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &b);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &e);
  if (!ierr) ierr = ts_vec_create(be, n, TS_DOUBLE, &Ae);
  if (!ierr) ierr = ts_vec_set_random(xs, 21);
  if (!ierr) ierr = ts_operator_apply(s.A, xs, b);
  int decreasing = !ierr;
  double prev = INFINITY, first = 0.0, last = 0.0;
  for (int it = 0; it <= steps && !ierr; ++it) {
    if (it) ierr = ts_smoother_apply(sm, b, x);
    double energy = 0.0;
    if (!ierr) ierr = ts_vec_copy(x, e);
    if (!ierr) ierr = ts_vec_axpby(-1.0, xs, 1.0, e);
    if (!ierr) ierr = ts_operator_apply(s.A, e, Ae);
    if (!ierr) ierr = ts_vec_dot(e, Ae, &energy);
    energy = sqrt(energy);
    if (!(energy < prev)) decreasing = 0;
    diag("%dD Q%d step %d: energy norm of the error %.6e", dim, k, it, energy);
    if (!it) first = energy;
    last = energy;
    prev = energy;
  }
  if (ierr) {
    diag("%s", ts_error_message());
    decreasing = 0;
  }
  ok(decreasing && last < first, "%dD Q%d: energy norm of the error decreases strictly in each of "
     "%d steps (%.3e -> %.3e)", dim, k, steps, first, last);
  ts_vec_destroy(&xs);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&e);
  ts_vec_destroy(&Ae);
  ts_smoother_destroy(&sm);
  setup_destroy(&s);
}

static void check_errors(void) {
  const int coarse[3] = {2, 2, 2};
  const double upper[3] = {1, 1, 1};
  setup s = {0};
  if (setup_create(3, 2, coarse, 0, upper, TS_DOUBLE, &s)) {
    skip(3, "setup failed");
    return;
  }
  ts_smoother sm = NULL;
  int ierr = ts_smoother_create_vertex_patch(s.A, s.dofs, (ts_patch_variant)7, &sm);
  ok(ierr == TS_ERR_ARG && !sm && strstr(ts_error_message(), "variant 7"),
     "variant 7 is refused: %s", ts_error_message());
  ts_operator J = NULL;
  ts_operator_create_jacobi(s.A, &J);
  ierr = ts_smoother_create_vertex_patch(J, s.dofs, TS_PATCH_FUSED, &sm);
  ok(ierr == TS_ERR_ARG && !sm && strstr(ts_error_message(), "jacobi"),
     "a non-Laplacian operator is refused: %s", ts_error_message());
  ts_operator_destroy(&J);
  ts_vec b = NULL, x = NULL;
  ierr = ts_smoother_create_vertex_patch(s.A, s.dofs, TS_PATCH_FUSED, &sm);
  if (!ierr) ierr = ts_vec_create(be, s.dofs->count, TS_SINGLE, &b);
  if (!ierr) ierr = ts_vec_create(be, s.dofs->count, TS_DOUBLE, &x);
  ierr = ierr ? ierr : ts_smoother_apply(sm, b, x);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "single"),
     "a single-precision b for a double smoother is refused: %s", ts_error_message());
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_smoother_destroy(&sm);
  setup_destroy(&s);
}

int main(void) {
  const int omp = !strcmp(tap_backend(), "omp");
  plan(2 * 5 * 3 + 9 * 2 + 3 + 2 + 3 + (omp ? 2 * 2 : 0));
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= 5; ++k) check_local_solve(dim, k);
  const int c321[3] = {3, 2, 1}, c111[3] = {1, 1, 1};
  const double box[3] = {1.5, 1.0, 0.7}, unit[3] = {1, 1, 1};
  for (int k = 1; k <= 4; ++k) check_step(2, k, c321, 1, box);
  for (int k = 1; k <= 3; ++k) check_step(3, k, c321, 1, box);
  for (int k = 1; k <= 2; ++k) check_step(3, k, c111, 2, unit);
  check_single(2, 4, c321, 2, box);
  check_single(3, 2, c321, 1, box);
  check_single(3, 3, c321, 2, box);
  check_energy(2, 3, c321, 2, box, 6);
  check_energy(3, 2, c321, 2, box, 6);
  check_errors();
  if (!omp) {
    ts_backend_destroy(&be);
    return exit_status();
  }
  /* the omp backend's run-time-degree path (used without AVX-512) */
  setenv("TESSERA_OMP_PATCH_GENERIC", "1", 1);
  diag("omp: run-time-degree path (TESSERA_OMP_PATCH_GENERIC=1)");
  check_step(2, 3, c321, 1, box);
  check_step(3, 2, c321, 1, box);
  unsetenv("TESSERA_OMP_PATCH_GENERIC");
  ts_backend_destroy(&be);
  return exit_status();
}
