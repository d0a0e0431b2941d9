/* t-stokes-operator.c -- the matrix-free Stokes operator (RT_k x DGQ_k, doc/stokes.md) on
 * the backend against the dense matrix assembled independently by tests/stokes-reference.c
 * (basis evaluated point by point, cell and face integrals, no 1D factorization), on random
 * vectors: 2D k = 0..4 on 2x3 and 3x2 cells of [0,1]x[0,2] (non-square cells), 3D k = 0..2 on
 * 2x2x3 cells of [0,1]x[0,2]x[0,1.5].  Per case: apply (relative difference <= 1e-12), the
 * unconstrained form where it is defined to agree, apply_add, single precision (1e-5 of
 * double), B^T 1 = 0 (the constant pressure), the pressure mean and its removal; then
 * errors for mismatched spaces. */
#include <math.h>
#include <stdlib.h>
#include "stokes-reference.h"
#include "tap.h"
#include "tessera-impl.h"

#define TESTS_PER_CASE 6

typedef struct stokes_case {
  int dim, k;
  int cells[3];
} stokes_case;

static const double lower[3] = {0.0, 0.0, 0.0}, upper[3] = {1.0, 2.0, 1.5};

/* The objects of one case (NULL where creation failed). */
typedef struct setup {
  ts_mesh mesh;
  ts_fe rt, dgq;
  ts_dofs u, p;
  ts_operator op, op_single;
  int64_t n, cells[3];
  double h[3];
} setup;

static int setup_create(ts_backend backend, const stokes_case *c, setup *s) {
  *s = (setup){0};
  TS_CALL(ts_mesh_create_box(c->dim, lower, upper, c->cells, 0, &s->mesh));
  TS_CALL(ts_fe_create_rt(c->dim, c->k, &s->rt));
  TS_CALL(ts_fe_create_dgq(c->dim, c->k, &s->dgq));
  TS_CALL(ts_dofs_create(s->mesh, s->rt, 0, &s->u));
  TS_CALL(ts_dofs_create(s->mesh, s->dgq, 0, &s->p));
  TS_CALL(ts_operator_create_stokes(backend, s->u, s->p, 0.0, TS_DOUBLE, &s->op));
  TS_CALL(ts_operator_create_stokes(backend, s->u, s->p, TS_STOKES_DEFAULT_PENALTY, TS_SINGLE,
                                    &s->op_single));
  TS_CALL(ts_mesh_cell_size(s->mesh, 0, s->h));
  for (int d = 0; d < 3; ++d) {
    s->cells[d] = d < c->dim ? c->cells[d] : 1;
    if (d >= c->dim) s->h[d] = 1.0;
  }
  s->n = ts_operator_size(s->op);
  return 0;
}

static void setup_destroy(setup *s) {
  ts_operator_destroy(&s->op);
  ts_operator_destroy(&s->op_single);
  ts_dofs_destroy(&s->u);
  ts_dofs_destroy(&s->p);
  ts_fe_destroy(&s->rt);
  ts_fe_destroy(&s->dgq);
  ts_mesh_destroy(&s->mesh);
}

static void dense_apply(int64_t n, const double *A, const double *x, double *y) {
  for (int64_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (int64_t j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}

/* ||a - b|| / ||b|| over n entries */
static double relative_difference(int64_t n, const double *a, const double *b) {
  double diff = 0.0, norm = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return sqrt(diff / norm);
}

/* y = op x on the backend for host vectors (in op's precision) */
static int backend_apply(ts_operator op, const double *x, double *y, const double *y0,
                         int unconstrained) {
  ts_vec vx = NULL, vy = NULL;
  const int64_t n = ts_operator_size(op);
  int ierr = ts_vec_create(op->backend, n, ts_operator_precision(op), &vx);
  if (!ierr) ierr = ts_vec_create(op->backend, n, ts_operator_precision(op), &vy);
  if (!ierr) ierr = ts_vec_set_from_host(vx, x);
  if (!ierr && y0) ierr = ts_vec_set_from_host(vy, y0);
  if (!ierr)
    ierr = unconstrained ? ts_operator_apply_unconstrained(op, vx, vy)
           : y0          ? ts_operator_apply_add(op, vx, vy)
                         : ts_operator_apply(op, vx, vy);
  if (!ierr) ierr = ts_vec_get_to_host(vy, y);
  ts_vec_destroy(&vx);
  ts_vec_destroy(&vy);
  return ierr;
}

static void random_fill(int64_t n, unsigned seed, double *x) {
  srand(seed);
  for (int64_t i = 0; i < n; ++i) x[i] = 2.0 * rand() / RAND_MAX - 1.0;
}

/* ||a - b|| / ||b|| over the entries i with keep[i] */
static double relative_difference_on(int64_t n, const double *a, const double *b, const char *keep) {
  double diff = 0.0, norm = 0.0;
  for (int64_t i = 0; i < n; ++i)
    if (keep[i]) {
      diff += (a[i] - b[i]) * (a[i] - b[i]);
      norm += b[i] * b[i];
    }
  return sqrt(diff / norm);
}

/* (a) The unconstrained form: the plan's factorization has no boundary face terms of the
 * normal components (doc/stokes.md section 4), which the reference's unconstrained matrix
 * has; the two agree on the rows and columns of the unconstrained DoFs, so x is zeroed on
 * the constrained DoFs and only the other rows are compared.  Then the constrained apply on
 * all rows; ref keeps the constrained A x. */
static void test_against_reference(const stokes_case *c, setup *s, const double *x, double *y,
                                   double *ref, double *A) {
  double *xz = malloc(sizeof(double) * (size_t)s->n);
  char *free_dof = malloc((size_t)s->n);
  for (int64_t i = 0; i < s->n; ++i) {
    free_dof[i] = !stokes_reference_is_constrained(c->dim, c->k, s->cells, i);
    xz[i] = free_dof[i] ? x[i] : 0.0;
  }
  double rel = INFINITY;
  if (!stokes_reference_matrix_unconstrained(c->dim, c->k, s->cells, s->h,
                                             TS_STOKES_DEFAULT_PENALTY, A, s->n)) {
    dense_apply(s->n, A, xz, ref);
    if (!backend_apply(s->op, xz, y, NULL, 1)) rel = relative_difference_on(s->n, y, ref, free_dof);
    else diag("%s", ts_error_message());
  }
  ok(rel <= 1e-12, "%dD k=%d: unconstrained apply on the unconstrained rows and columns (%.2e)",
     c->dim, c->k, rel);
  rel = INFINITY;
  if (!stokes_reference_matrix(c->dim, c->k, s->cells, s->h, TS_STOKES_DEFAULT_PENALTY, A, s->n)) {
    dense_apply(s->n, A, x, ref);
    if (!backend_apply(s->op, x, y, NULL, 0)) rel = relative_difference(s->n, y, ref);
    else diag("%s", ts_error_message());
  }
  ok(rel <= 1e-12, "%dD k=%d %dx%dx%d: apply against the dense matrix (relative difference %.2e)",
     c->dim, c->k, c->cells[0], c->cells[1], c->dim == 3 ? c->cells[2] : 1, rel);
  free(xz);
  free(free_dof);
}

/* (b) y0 + A x by apply_add, A x from the constrained reference in ref */
static void test_apply_add(const stokes_case *c, setup *s, const double *x, const double *ref,
                           double *y) {
  double *y0 = malloc(sizeof(double) * (size_t)s->n), *expect = malloc(sizeof(double) * (size_t)s->n);
  random_fill(s->n, 7u, y0);
  for (int64_t i = 0; i < s->n; ++i) expect[i] = y0[i] + ref[i];
  double rel = INFINITY;
  if (!backend_apply(s->op, x, y, y0, 0)) rel = relative_difference(s->n, y, expect);
  ok(rel <= 1e-12, "%dD k=%d: apply_add gives y0 + A x (relative difference %.2e)", c->dim, c->k, rel);
  free(y0);
  free(expect);
}

/* (c) single precision against double */
static void test_single(const stokes_case *c, setup *s, const double *x, const double *ref,
                        double *y) {
  double rel = INFINITY;
  if (!backend_apply(s->op_single, x, y, NULL, 0)) rel = relative_difference(s->n, y, ref);
  ok(rel <= 1e-5, "%dD k=%d: single precision within 1e-5 of double (%.2e)", c->dim, c->k, rel);
}

/* (d) x = [0; 1]: the velocity part of y is B^T 1 = 0 */
static void test_constant_pressure(const stokes_case *c, setup *s, double *x, double *y) {
  const int64_t first_p = s->u->count;
  for (int64_t i = 0; i < s->n; ++i) x[i] = i < first_p ? 0.0 : 1.0;
  double worst = INFINITY;
  if (!backend_apply(s->op, x, y, NULL, 0)) {
    worst = 0.0;
    for (int64_t i = 0; i < first_p; ++i) worst = fmax(worst, fabs(y[i]));
  }
  ok(worst <= 1e-13, "%dD k=%d: B^T 1 = 0 (max velocity entry %.2e)", c->dim, c->k, worst);
}

/* The pressure mean of doc/stokes.md section 6 on the host: tensor Gauss weights. */
static double host_pressure_mean(const stokes_case *c, setup *s, const double *x) {
  double g[TS_MAX_POINTS], w[TS_MAX_POINTS], sum = 0.0, weights = 0.0;
  ts_gauss_rule(c->k + 1, g, w);
  for (int64_t q = 0; q < s->p->count; ++q) {
    const int64_t a[3] = {q % s->p->n[0], q / s->p->n[0] % s->p->n[1], q / (s->p->n[0] * s->p->n[1])};
    double wq = 1.0;
    for (int d = 0; d < c->dim; ++d) wq *= w[a[d] % (c->k + 1)];
    sum += wq * x[s->u->count + q];
    weights += wq;
  }
  return sum / weights;
}

/* (e) the mean, and its removal: pressure mean zero, pressure shifted, velocity unchanged */
static void test_pressure_mean(const stokes_case *c, setup *s, const double *x, double *y) {
  ts_vec v = NULL;
  double mean = NAN, after = NAN, worst = INFINITY;
  const double expect = host_pressure_mean(c, s, x);
  int ierr = ts_vec_create(s->op->backend, s->n, TS_DOUBLE, &v);
  if (!ierr) ierr = ts_vec_set_from_host(v, x);
  if (!ierr) ierr = ts_stokes_pressure_mean(s->op, v, &mean);
  if (!ierr) ierr = ts_stokes_pressure_mean_remove(s->op, v);
  if (!ierr) ierr = ts_stokes_pressure_mean(s->op, v, &after);
  if (!ierr) ierr = ts_vec_get_to_host(v, y);
  if (!ierr) {
    worst = 0.0;
    for (int64_t i = 0; i < s->n; ++i)
      worst = fmax(worst, fabs(y[i] - (i < s->u->count ? x[i] : x[i] - expect)));
  } else {
    diag("%s", ts_error_message());
  }
  ok(fabs(mean - expect) < 1e-14 && fabs(after) < 1e-14 && worst < 1e-14,
     "%dD k=%d: pressure mean %.3e (host %.3e), after removal %.1e, entries off by %.1e", c->dim,
     c->k, mean, expect, after, worst);
  ts_vec_destroy(&v);
}

static void test_case(ts_backend backend, const stokes_case *c) {
  setup s;
  if (setup_create(backend, c, &s)) {
    ok(0, "%dD k=%d: Stokes operator created", c->dim, c->k);
    diag("%s", ts_error_message());
    skip(TESTS_PER_CASE - 1, "no operator");
    setup_destroy(&s);
    return;
  }
  const int64_t n = s.n;
  double *A = malloc(sizeof(double) * (size_t)(n * n));
  double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
  double *ref = malloc(sizeof(double) * (size_t)n);
  random_fill(n, 1234u + (unsigned)(c->k + 10 * c->dim), x);
  test_against_reference(c, &s, x, y, ref, A); /* leaves the constrained A x in ref */
  test_apply_add(c, &s, x, ref, y);
  test_single(c, &s, x, ref, y);
  test_pressure_mean(c, &s, x, y);
  test_constant_pressure(c, &s, x, y);
  free(A);
  free(x);
  free(y);
  free(ref);
  setup_destroy(&s);
}

static int fails_with_arg(int ierr, const char *must_contain) {
  if (ierr != TS_ERR_ARG || !strstr(ts_error_message(), must_contain)) {
    diag("code %d, message: %s", ierr, ts_error_message());
    return 0;
  }
  return 1;
}

/* (f) mismatched degrees, Q_k as the velocity, a non-Stokes operator for the mean */
static void test_errors(ts_backend backend) {
  ts_mesh mesh = NULL;
  ts_fe rt1 = NULL, dgq2 = NULL, dgq1 = NULL, q1 = NULL;
  ts_dofs u = NULL, p2 = NULL, p1 = NULL, uq = NULL;
  ts_operator op = NULL, laplace = NULL;
  ts_vec v = NULL;
  double mean;
  const int coarse[2] = {2, 2};
  int ierr = ts_mesh_create_box(2, lower, upper, coarse, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_rt(2, 1, &rt1);
  if (!ierr) ierr = ts_fe_create_dgq(2, 2, &dgq2);
  if (!ierr) ierr = ts_fe_create_dgq(2, 1, &dgq1);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &q1);
  if (!ierr) ierr = ts_dofs_create(mesh, rt1, 0, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, dgq2, 0, &p2);
  if (!ierr) ierr = ts_dofs_create(mesh, dgq1, 0, &p1);
  if (!ierr) ierr = ts_dofs_create(mesh, q1, 0, &uq);
  if (!ierr) ierr = ts_operator_create_laplace(backend, uq, TS_DOUBLE, &laplace);
  if (!ierr) ierr = ts_vec_create(backend, ts_dofs_count(uq), TS_DOUBLE, &v);
  ok(!ierr && fails_with_arg(ts_operator_create_stokes(backend, u, p2, 0.0, TS_DOUBLE, &op),
                             "RT_1 and pressure DGQ_2") && !op,
     "RT_1 with DGQ_2 refused, naming both degrees");
  ok(!ierr && fails_with_arg(ts_operator_create_stokes(backend, uq, p1, 0.0, TS_DOUBLE, &op),
                             "velocity DoFs must be of an RT_k element") && !op,
     "Q_k DoFs as the velocity refused");
  ok(!ierr && fails_with_arg(ts_stokes_pressure_mean(laplace, v, &mean), "operator is laplace"),
     "pressure mean of a Laplacian refused");
  ts_vec_destroy(&v);
  ts_operator_destroy(&laplace);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p2);
  ts_dofs_destroy(&p1);
  ts_dofs_destroy(&uq);
  ts_fe_destroy(&rt1);
  ts_fe_destroy(&dgq2);
  ts_fe_destroy(&dgq1);
  ts_fe_destroy(&q1);
  ts_mesh_destroy(&mesh);
}

int main(void) {
  stokes_case cases[16];
  int n_cases = 0;
  for (int k = 0; k <= 4; ++k) {
    cases[n_cases++] = (stokes_case){2, k, {2, 3, 1}};
    cases[n_cases++] = (stokes_case){2, k, {3, 2, 1}};
  }
  for (int k = 0; k <= 2; ++k) cases[n_cases++] = (stokes_case){3, k, {2, 2, 3}};
  ts_backend backend = NULL;
  if (ts_backend_open(tap_backend(), &backend)) {
    plan_skip_all(ts_error_message());
    return 0;
  }
  plan(n_cases * TESTS_PER_CASE + 3);
  for (int c = 0; c < n_cases; ++c) test_case(backend, &cases[c]);
  test_errors(backend);
  ts_backend_destroy(&backend);
  return exit_status();
}
