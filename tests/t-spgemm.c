/* t-spgemm.c -- sparse products on a backend (ts_matrix_multiply_on: the csr_multiply of the
 * backend ABI 15, cuSPARSE's or hipSPARSE's SpGEMM on the GPU backends) against the host's
 * ts_matrix_multiply.  On every GPU backend that is built and starts ($TESSERA_GPU_BACKENDS):
 * random matrices (empty rows, 1 x n and n x 1 factors, an empty factor, entries that cancel
 * to an exact zero) and the real ones (the assembled 3D Q2 Laplacian squared, S~'s product
 * D M~^{-1} D^T of paper 003) give the host's pattern exactly and its values to
 * 1e-14 relative to sum_k |a_ik b_kj| (the size of the terms: the device sums in another
 * order); the AMG built on the GPU (its Galerkin products by SpGEMM) has the same levels and
 * the same CG iteration counts as with the host's products and as on omp.  On omp (no
 * csr_multiply) and with a NULL backend the product is the host's, bit for bit.  Without a
 * GPU backend the GPU cases are skipped with the reason. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tessera.h"
#include "tap.h"
#include "cg-count.h"

/* ---------------------------------------------------------------- random matrices */

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* rows x cols with about density * cols entries per row in [-1, 1], every empty_every-th row
 * empty (0: none) */
static int random_matrix(int64_t rows, int64_t cols, double density, int empty_every,
                         uint64_t seed, ts_matrix *M) {
  const int64_t cap = rows * cols;
  int64_t *r = malloc((size_t)cap * sizeof *r), *c = malloc((size_t)cap * sizeof *c), n = 0;
  double *v = malloc((size_t)cap * sizeof *v);
  int ierr = r && c && v ? 0 : TS_ERR_MEMORY;
  for (int64_t i = 0; !ierr && i < rows; ++i) {
    if (empty_every && i % empty_every == empty_every - 1) continue;
    for (int64_t j = 0; j < cols; ++j)
      if ((double)(lcg(&seed) % 1000000) < density * 1e6) {
        r[n] = i;
        c[n] = j;
        v[n++] = (double)(lcg(&seed) % 2000001) / 1e6 - 1.0;
      }
  }
  if (!ierr) ierr = ts_matrix_create_triplets(rows, cols, n, r, c, v, M);
  free(r);
  free(c);
  free(v);
  return ierr;
}

/* |A| (a new matrix) */
static int absolute(ts_matrix A, ts_matrix *B) {
  const int64_t *o, *c;
  const double *v;
  ts_matrix_csr(A, &o, &c, &v);
  const int64_t rows = ts_matrix_rows(A), n = ts_matrix_nonzeros(A);
  int64_t *r = malloc((size_t)(n ? n : 1) * sizeof *r);
  double *a = malloc((size_t)(n ? n : 1) * sizeof *a);
  int ierr = r && a ? 0 : TS_ERR_MEMORY;
  for (int64_t i = 0; !ierr && i < rows; ++i)
    for (int64_t e = o[i]; e < o[i + 1]; ++e) {
      r[e] = i;
      a[e] = fabs(v[e]);
    }
  if (!ierr) ierr = ts_matrix_create_triplets(rows, ts_matrix_columns(A), n, r, c, a, B);
  free(r);
  free(a);
  return ierr;
}

/* ---------------------------------------------------------------- comparison */

/* The largest |C - H| / (|A||B|)_ij over the entries (H: the host's product), or INFINITY
 * when the sizes or the patterns differ (the first difference into `why`). */
static double misfit(ts_matrix C, ts_matrix H, ts_matrix scale, char *why, size_t len) {
  const int64_t *co, *cc, *ho, *hc;
  const double *cv, *hv, *sv;
  if (ts_matrix_rows(C) != ts_matrix_rows(H) || ts_matrix_columns(C) != ts_matrix_columns(H) ||
      ts_matrix_nonzeros(C) != ts_matrix_nonzeros(H)) {
    snprintf(why, len, "%lld x %lld with %lld entries, the host's %lld x %lld with %lld",
             (long long)ts_matrix_rows(C), (long long)ts_matrix_columns(C),
             (long long)ts_matrix_nonzeros(C), (long long)ts_matrix_rows(H),
             (long long)ts_matrix_columns(H), (long long)ts_matrix_nonzeros(H));
    return INFINITY;
  }
  ts_matrix_csr(C, &co, &cc, &cv);
  ts_matrix_csr(H, &ho, &hc, &hv);
  ts_matrix_csr(scale, NULL, NULL, &sv); /* |A||B| has H's pattern */
  double worst = 0.0;
  for (int64_t i = 0; i < ts_matrix_rows(H); ++i)
    for (int64_t e = ho[i]; e < ho[i + 1]; ++e) {
      if (co[i] != ho[i] || cc[e] != hc[e]) {
        snprintf(why, len, "row %lld: entry %lld is in column %lld, the host's in %lld",
                 (long long)i, (long long)e, (long long)cc[e], (long long)hc[e]);
        return INFINITY;
      }
      const double d = fabs(cv[e] - hv[e]);
      if (d > 0.0) worst = fmax(worst, sv[e] > 0.0 ? d / sv[e] : INFINITY);
    }
  snprintf(why, len, "same pattern");
  return worst;
}

/* C = A B on backend b against the host's: the pattern, the values to 1e-14 relative */
static void check_product(ts_backend b, const char *what, ts_matrix A, ts_matrix B) {
  ts_matrix C = NULL, H = NULL, absA = NULL, absB = NULL, S = NULL;
  int ierr = ts_matrix_multiply_on(b, A, B, &C);
  if (!ierr) ierr = ts_matrix_multiply(A, B, &H);
  if (!ierr) ierr = absolute(A, &absA);
  if (!ierr) ierr = absolute(B, &absB);
  if (!ierr) ierr = ts_matrix_multiply(absA, absB, &S);
  char why[256] = "";
  const double m = ierr ? INFINITY : misfit(C, H, S, why, sizeof why);
  ok(!ierr && m <= 1e-14, "%s: %s (%lld x %lld, %lld entries): %s, values to %.1e relative to "
     "|A||B| (<= 1e-14)", ts_backend_name(b), what, (long long)(H ? ts_matrix_rows(H) : 0),
     (long long)(H ? ts_matrix_columns(H) : 0), (long long)(H ? ts_matrix_nonzeros(H) : 0), why, m);
  if (ierr) diag("%s", ts_error_message());
  ts_matrix_destroy(&C);
  ts_matrix_destroy(&H);
  ts_matrix_destroy(&absA);
  ts_matrix_destroy(&absB);
  ts_matrix_destroy(&S);
}

/* ---------------------------------------------------------------- the cases */

typedef struct shape {
  const char *name;
  int64_t m, k, n;     /* A is m x k, B k x n */
  double density;
  int empty_every;     /* every empty_every-th row of A and B empty (0: none) */
} shape;

static void random_products(ts_backend b) {
  static const shape shapes[] = {
      {"random 60 x 80 times 80 x 50, every 7th row empty", 60, 80, 50, 0.08, 7},
      {"random 200 x 150 times 150 x 300, sparse", 200, 150, 300, 0.02, 0},
      {"1 x 40 times 40 x 30", 1, 40, 30, 0.3, 0},
      {"40 x 1 times 1 x 30 (outer product)", 40, 1, 30, 1.0, 0},
      {"30 x 40 times 40 x 1", 30, 40, 1, 0.3, 0},
      {"random 50 x 50 squared, every 3rd row empty", 50, 50, 50, 0.1, 3},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    const shape *h = &shapes[s];
    ts_matrix A = NULL, B = NULL;
    int ierr = random_matrix(h->m, h->k, h->density, h->empty_every, 17 + s, &A);
    if (!ierr) ierr = random_matrix(h->k, h->n, h->density, h->empty_every, 91 + s, &B);
    if (ierr) {
      ok(0, "%s: random matrices: %s", h->name, ts_error_message());
      continue;
    }
    check_product(b, h->name, A, B);
    ts_matrix_destroy(&A);
    ts_matrix_destroy(&B);
  }
}

/* [1 1] [1; -1] = [0]: a stored zero on both sides; a factor without entries: C empty */
static void special_products(ts_backend b) {
  static const int64_t r0[2] = {0, 0}, c0[2] = {0, 1}, r1[2] = {0, 1}, c1[2] = {0, 0};
  static const double one[2] = {1, 1}, pm[2] = {1, -1};
  ts_matrix A = NULL, B = NULL, Z = NULL, C = NULL;
  ts_matrix_create_triplets(1, 2, 2, r0, c0, one, &A);
  ts_matrix_create_triplets(2, 1, 2, r1, c1, pm, &B);
  ts_matrix_create_triplets(2, 3, 0, NULL, NULL, NULL, &Z);
  const double *v = NULL;
  int ierr = ts_matrix_multiply_on(b, A, B, &C);
  if (!ierr) ts_matrix_csr(C, NULL, NULL, &v);
  ok(!ierr && ts_matrix_nonzeros(C) == 1 && v[0] == 0.0,
     "%s: [1 1] [1; -1] keeps its cancelled entry as a stored 0 (as the host product does)",
     ts_backend_name(b));
  ts_matrix_destroy(&C);
  ierr = ts_matrix_multiply_on(b, A, Z, &C);
  ok(!ierr && ts_matrix_rows(C) == 1 && ts_matrix_columns(C) == 3 && ts_matrix_nonzeros(C) == 0,
     "%s: a product with an empty factor is an empty 1 x 3 matrix", ts_backend_name(b));
  if (ierr) diag("%s", ts_error_message());
  ts_matrix_destroy(&C);
  ts_matrix_destroy(&A);
  ts_matrix_destroy(&B);
  ts_matrix_destroy(&Z);
}

static int box_mesh(int dim, int levels, ts_mesh *mesh) {
  static const double lower[3] = {0, 0, 0}, upper[3] = {1, 2, 1};
  static const int coarse[3] = {1, 2, 1};
  return ts_mesh_create_box(dim, lower, upper, coarse, levels, mesh);
}

/* the 3D Q2 Laplacian squared, and D diag(w) D^T of 3D RT_1 (S~'s product, w > 0 varying) */
static void real_products(ts_backend b) {
  ts_mesh mesh = NULL;
  ts_fe q = NULL, rt = NULL, l2 = NULL;
  ts_dofs dq = NULL, u = NULL, p = NULL;
  ts_matrix A = NULL, D = NULL, Dt = NULL;
  double *w = NULL;
  int ierr = box_mesh(3, 2, &mesh);
  if (!ierr) ierr = ts_fe_create_q(3, 2, &q);
  if (!ierr) ierr = ts_dofs_create(mesh, q, 2, &dq);
  if (!ierr) ierr = ts_matrix_assemble_laplace(dq, &A);
  if (!ierr) ierr = ts_fe_create_rt_ih(3, 1, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(3, 1, &l2);
  if (!ierr) ierr = ts_dofs_create(mesh, rt, 2, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, l2, 2, &p);
  if (!ierr) ierr = ts_matrix_assemble_divergence(u, p, &D);
  if (!ierr) ierr = ts_matrix_transpose(D, &Dt);
  const int64_t nu = ierr ? 0 : ts_matrix_rows(Dt);
  if (!ierr) ierr = (w = malloc((size_t)nu * sizeof *w)) ? 0 : TS_ERR_MEMORY;
  for (int64_t i = 0; !ierr && i < nu; ++i) w[i] = 1.0 + 0.37 * (double)(i % 11);
  if (!ierr) ierr = ts_matrix_scale(Dt, w, NULL);
  if (ierr) {
    ok(0, "3D Laplacian and divergence assembled: %s", ts_error_message());
  } else {
    check_product(b, "3D Q2 Laplacian A A", A, A);
    check_product(b, "3D RT_1 D diag(w) D^T (S~'s product)", D, Dt);
  }
  free(w);
  ts_matrix_destroy(&A);
  ts_matrix_destroy(&D);
  ts_matrix_destroy(&Dt);
  ts_dofs_destroy(&dq);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&q);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&mesh);
}

/* ---------------------------------------------------------------- the AMG */

/* S~ (boundary fluxes fixed, alpha = 0.01, beta = 3, as in t-amg) or the Q_k Laplacian */
static int amg_matrix(int schur, int dim, int k, int level, ts_matrix *M) {
  ts_mesh mesh = NULL;
  ts_fe fu = NULL, fp = NULL;
  ts_dofs u = NULL, p = NULL;
  int ierr = box_mesh(dim, level, &mesh);
  if (!ierr) ierr = schur ? ts_fe_create_rt_ih(dim, k, &fu) : ts_fe_create_q(dim, k, &fu);
  if (!ierr) ierr = ts_dofs_create(mesh, fu, level, &u);
  if (!ierr && schur) ierr = ts_fe_create_l2_ih(dim, k, &fp);
  if (!ierr && schur) ierr = ts_dofs_create(mesh, fp, level, &p);
  const ts_hdiv_coefficients co = {.alpha = 1e-2, .beta = 3.0};
  if (!ierr)
    ierr = schur ? ts_matrix_assemble_hdiv_schur(u, p, &co, TS_FACES_ALL(dim), M)
                 : ts_matrix_assemble_laplace(u, M);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&fu);
  ts_fe_destroy(&fp);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* CG + the AMG built on b (host_products as given) on M x = 1: iterations (-1 on failure),
 * the hierarchy into h */
static int amg_cg(ts_backend b, ts_matrix M, int host_products, ts_amg_hierarchy *h) {
  ts_amg_options o;
  ts_amg_options_default(&o);
  o.host_products = host_products;
  ts_pc P = NULL;
  const int ierr = ts_pc_create_amg(b, M, &o, &P, h);
  if (ierr) diag("%s", ts_error_message());
  const int its = ierr ? -1 : cg_count(b, M, ts_pc_operator(P));
  ts_pc_destroy(&P);
  return its;
}

static int same_hierarchy(const ts_amg_hierarchy *a, const ts_amg_hierarchy *b) {
  int same = a->levels == b->levels;
  for (int l = 0; same && l < a->levels; ++l)
    same = a->rows[l] == b->rows[l] && a->nonzeros[l] == b->nonzeros[l];
  return same;
}

/* the AMG on the GPU backend g with its SpGEMM products against the host's products (on g
 * and on omp): the same levels and CG counts */
static void amg_counts(ts_backend g, ts_backend omp) {
  static const struct {
    const char *name;
    int schur, dim, k, level;
  } cases[] = {{"2D RT_2 S~", 1, 2, 2, 5}, {"3D RT_1 S~", 1, 3, 1, 4},
               {"2D Q1 Laplacian", 0, 2, 1, 7}, {"3D Q2 Laplacian", 0, 3, 2, 3}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    ts_matrix M = NULL;
    ts_amg_hierarchy device, host, on_omp;
    int ierr = amg_matrix(cases[c].schur, cases[c].dim, cases[c].k, cases[c].level, &M);
    const int its_device = ierr ? -1 : amg_cg(g, M, 0, &device);
    const int its_host = ierr ? -1 : amg_cg(g, M, 1, &host);
    const int its_omp = ierr ? -1 : amg_cg(omp, M, 0, &on_omp);
    ok(its_device > 0 && its_device == its_host && its_device == its_omp &&
           same_hierarchy(&device, &host) && same_hierarchy(&device, &on_omp),
       "%s: %s level %d (%lld rows): AMG with SpGEMM products: %d levels, CG in %d iterations; "
       "host products: %d levels, %d; omp: %d levels, %d", ts_backend_name(g), cases[c].name,
       cases[c].level, (long long)(M ? ts_matrix_rows(M) : 0), its_device > 0 ? device.levels : 0,
       its_device, its_host > 0 ? host.levels : 0, its_host, its_omp > 0 ? on_omp.levels : 0,
       its_omp);
    if (ierr) diag("%s", ts_error_message());
    ts_matrix_destroy(&M);
  }
}

/* ---------------------------------------------------------------- without a GPU */

/* omp has no csr_multiply and NULL asks for the host: the host's product bit for bit */
static void host_fallback(ts_backend omp) {
  ts_matrix A = NULL, B = NULL, H = NULL, C = NULL, N = NULL;
  int ierr = random_matrix(30, 20, 0.2, 4, 5, &A);
  if (!ierr) ierr = random_matrix(20, 25, 0.2, 0, 6, &B);
  if (!ierr) ierr = ts_matrix_multiply(A, B, &H);
  if (!ierr) ierr = ts_matrix_multiply_on(omp, A, B, &C);
  if (!ierr) ierr = ts_matrix_multiply_on(NULL, A, B, &N);
  int same = !ierr;
  const int64_t *ho, *hc, *co, *cc, *no, *nc;
  const double *hv, *cv, *nv;
  if (same) {
    ts_matrix_csr(H, &ho, &hc, &hv);
    ts_matrix_csr(C, &co, &cc, &cv);
    ts_matrix_csr(N, &no, &nc, &nv);
    const int64_t n = ts_matrix_nonzeros(H);
    same = ts_matrix_nonzeros(C) == n && ts_matrix_nonzeros(N) == n &&
           !memcmp(ho, co, 31 * sizeof *ho) && !memcmp(ho, no, 31 * sizeof *ho) &&
           !memcmp(hc, cc, (size_t)n * sizeof *hc) && !memcmp(hc, nc, (size_t)n * sizeof *hc) &&
           !memcmp(hv, cv, (size_t)n * sizeof *hv) && !memcmp(hv, nv, (size_t)n * sizeof *hv);
  }
  ok(same, "omp (no csr_multiply) and a NULL backend: ts_matrix_multiply_on is the host's "
     "product bit for bit");
  if (ierr) diag("%s", ts_error_message());
  ts_matrix_destroy(&C);
  ierr = ts_matrix_multiply_on(omp, A, A, &C);
  ok(ierr == TS_ERR_ARG && !C && strstr(ts_error_message(), "A's columns must be B's rows"),
     "a 30 x 20 times a 30 x 20 matrix is refused (%s)", ts_error_message());
  ts_matrix_destroy(&A);
  ts_matrix_destroy(&B);
  ts_matrix_destroy(&H);
  ts_matrix_destroy(&N);
}

#define GPU_CHECKS 14 /* random 6, special 2, real 2, AMG 4 */

int main(void) {
  ts_backend omp = NULL;
  if (ts_backend_open("omp", &omp)) {
    plan(1);
    ok(0, "open backend 'omp': %s", ts_error_message());
    return exit_status();
  }
  host_fallback(omp);
  const char *built = getenv("TESSERA_GPU_BACKENDS");
  char names[128] = "";
  snprintf(names, sizeof names, "%s", built ? built : "");
  int gpus = 0;
  for (char *name = strtok(names, " "); name; name = strtok(NULL, " ")) {
    ts_backend g = NULL;
    if (ts_backend_open(name, &g)) {
      char reason[1200];
      snprintf(reason, sizeof reason, "backend '%s' does not start: %s", name, ts_error_message());
      skip(GPU_CHECKS, reason);
      continue;
    }
    ++gpus;
    random_products(g);
    special_products(g);
    real_products(g);
    amg_counts(g, omp);
    ts_backend_destroy(&g);
  }
  if (!gpus && !(built && strspn(built, " ") < strlen(built)))
    skip(GPU_CHECKS, "no GPU backend built (configure --with-cuda or --with-hip): the SpGEMM "
                     "products are checked where one is");
  done_testing();
  ts_backend_destroy(&omp);
  return exit_status();
}
