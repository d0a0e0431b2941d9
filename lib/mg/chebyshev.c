/* chebyshev.c -- the Chebyshev smoother: `degree` steps of the Chebyshev iteration for
 * A x = b preconditioned by the point Jacobi matrix D = diag(A) (Saad, Iterative Methods,
 * Algorithm 12.1), the simple baseline of paper 002, Table 3; or by a given symmetric
 * positive definite preconditioner P in place of D^{-1} (on mapped levels the additive
 * vertex-patch preconditioner, lib/mg/patch-additive.c).
 *
 * Interval.  The largest eigenvalue of D^{-1} A (P A) is estimated once, at creation, by 12
 * steps of CG preconditioned alike from a random right side (the Lanczos tridiagonal matrix of
 * the CG coefficients; its largest eigenvalue by Sturm bisection).  The smoother targets
 * [lambda_max / 15, 1.2 lambda_max] (the factor 1.2 covers the under-estimate of Lanczos;
 * the range 15 is the part of the spectrum the coarse grid does not correct), as deal.II's
 * PreconditionChebyshev does.  Degree 1 is damped point Jacobi with weight
 * 1 / theta, theta = (lower + upper) / 2. */
#include <math.h>
#include "mg-impl.h"

#define LANCZOS_STEPS 12
#define SMOOTHING_RANGE 15.0
#define SAFETY 1.2

typedef struct chebyshev_data {
  int degree;
  double lower, upper;
  ts_operator preconditioner; /* P, or NULL: the inverse diagonal */
  int owns_preconditioner;
  ts_vec inverse_diagonal, r, z, d;
} chebyshev_data;

static void chebyshev_destroy(ts_smoother s) {
  chebyshev_data *c = s->data;
  if (!c) return;
  if (c->owns_preconditioner) ts_operator_destroy(&c->preconditioner);
  ts_vec_destroy(&c->inverse_diagonal);
  ts_vec_destroy(&c->r);
  ts_vec_destroy(&c->z);
  ts_vec_destroy(&c->d);
  ts_free(&s->data);
}

/* z = D^{-1} r, or P r */
static int precondition(const chebyshev_data *c) {
  if (c->preconditioner) TS_CALL(ts_operator_apply(c->preconditioner, c->r, c->z));
  else TS_CALL(ts_vec_pointwise_mult(c->inverse_diagonal, c->r, c->z));
  return 0;
}

/* r = b - A x; z = D^{-1} r (P r) */
static int preconditioned_residual(ts_smoother s, ts_vec b, ts_vec x) {
  chebyshev_data *c = s->data;
  TS_CALL(ts_operator_apply(s->A, x, c->r));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, c->r));
  TS_CALL(precondition(c));
  return 0;
}

static int chebyshev_apply(ts_smoother s, ts_vec b, ts_vec x) {
  chebyshev_data *c = s->data;
  const double theta = 0.5 * (c->upper + c->lower), delta = 0.5 * (c->upper - c->lower);
  const double sigma = theta / delta;
  double rho = 1.0 / sigma;
  TS_CALL(preconditioned_residual(s, b, x));
  TS_CALL(ts_vec_axpby(1.0 / theta, c->z, 0.0, c->d));
  TS_CALL(ts_vec_axpby(1.0, c->d, 1.0, x));
  for (int i = 1; i < c->degree; ++i) {
    TS_CALL(preconditioned_residual(s, b, x));
    const double rho_new = 1.0 / (2.0 * sigma - rho);
    TS_CALL(ts_vec_axpby(2.0 * rho_new / delta, c->z, rho_new * rho, c->d));
    TS_CALL(ts_vec_axpby(1.0, c->d, 1.0, x));
    rho = rho_new;
  }
  return 0;
}

static const ts_smoother_ops chebyshev_ops = {
    .name = "chebyshev",
    .apply = chebyshev_apply,
    .destroy = chebyshev_destroy,
};

/* Number of eigenvalues below x of the symmetric tridiagonal matrix (diag, off). */
static int sturm_count(int m, const double *diag, const double *off, double x) {
  int count = 0;
  double q = 1.0;
  for (int i = 0; i < m; ++i) {
    q = diag[i] - x - (i ? off[i - 1] * off[i - 1] / q : 0.0);
    if (q == 0.0) q = -1e-300;
    if (q < 0.0) ++count;
  }
  return count;
}

static double tridiagonal_max_eigenvalue(int m, const double *diag, const double *off) {
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < m; ++i) { /* Gershgorin */
    const double radius = (i ? fabs(off[i - 1]) : 0.0) + (i < m - 1 ? fabs(off[i]) : 0.0);
    lo = fmin(lo, diag[i] - radius);
    hi = fmax(hi, diag[i] + radius);
  }
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (sturm_count(m, diag, off, mid) == m) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* Largest eigenvalue of D^{-1} A (P A) by CG preconditioned alike from a random right side. */
static int estimate_max_eigenvalue(ts_smoother s, double *lambda) {
  chebyshev_data *c = s->data;
  ts_vec x = NULL, q = NULL;
  double diag[LANCZOS_STEPS], off[LANCZOS_STEPS], alpha_old = 1.0, beta_old = 0.0, rz, pq;
  int m = 0;
  int ierr = ts_operator_vec_create(s->A, &x);
  if (!ierr) ierr = ts_operator_vec_create(s->A, &q);
  if (!ierr) ierr = ts_vec_set_random(c->r, 42);                    /* r = b, x = 0 */
  if (!ierr) ierr = precondition(c);
  if (!ierr) ierr = ts_vec_copy(c->z, c->d);                        /* d: search direction */
  if (!ierr) ierr = ts_vec_dot(c->r, c->z, &rz);
  for (; !ierr && m < LANCZOS_STEPS && m < s->A->n && rz > 0.0; ++m) {
    ierr = ts_operator_apply(s->A, c->d, q);
    if (!ierr) ierr = ts_vec_dot(c->d, q, &pq);
    if (ierr || !(pq > 0.0)) break;
    const double alpha = rz / pq;
    diag[m] = 1.0 / alpha + (m ? beta_old / alpha_old : 0.0);
    if (!ierr) ierr = ts_vec_axpby(-alpha, q, 1.0, c->r);
    if (!ierr) ierr = precondition(c);
    double rz_new = 0.0;
    if (!ierr) ierr = ts_vec_dot(c->r, c->z, &rz_new);
    const double beta = rz_new / rz;
    off[m] = sqrt(fabs(beta)) / alpha;
    if (!ierr) ierr = ts_vec_axpby(1.0, c->z, beta, c->d);
    alpha_old = alpha;
    beta_old = beta;
    rz = rz_new;
  }
  ts_vec_destroy(&x);
  ts_vec_destroy(&q);
  if (ierr) return ts_error_trace(ierr, __FILE__, __LINE__, "Chebyshev eigenvalue estimate");
  if (m == 0)
    return TS_ERROR(TS_ERR_BREAKDOWN, "Chebyshev: the eigenvalue estimate found A not positive "
                    "definite (p.Ap <= 0 in the first CG step)");
  *lambda = tridiagonal_max_eigenvalue(m, diag, off);
  return 0;
}

/* The smoother with P (NULL: Jacobi) and the interval from the eigenvalue estimate; with
 * owns_p the smoother destroys P (also when this fails). */
static int chebyshev_create(ts_operator A, ts_operator P, int owns_p, int degree,
                            ts_smoother *smoother) {
  chebyshev_data *c;
  int ierr = ts_calloc(1, sizeof *c, "Chebyshev smoother", &c);
  if (ierr) {
    if (owns_p) ts_operator_destroy(&P);
    return ierr;
  }
  c->degree = degree;
  c->preconditioner = P;
  c->owns_preconditioner = owns_p;
  ts_smoother s = NULL;
  ierr = ts_smoother_create_shell(A, &chebyshev_ops, c, &s);
  if (ierr) {
    if (owns_p) ts_operator_destroy(&P);
    ts_free(&c);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Chebyshev setup");
  }
  ts_vec *v[] = {&c->r, &c->z, &c->d, &c->inverse_diagonal};
  for (int i = 0; !ierr && i < (P ? 3 : 4); ++i) ierr = ts_operator_vec_create(A, v[i]);
  if (!ierr && !P) { /* D^{-1} through the Jacobi operator's checks (zero or non-finite entries) */
    ts_operator jacobi = NULL;
    ierr = ts_operator_create_jacobi(A, &jacobi);
    if (!ierr) ierr = ts_operator_diagonal(jacobi, c->inverse_diagonal);
    ts_operator_destroy(&jacobi);
  }
  double lambda = 0.0;
  if (!ierr) ierr = estimate_max_eigenvalue(s, &lambda);
  if (ierr) {
    ts_smoother_destroy(&s);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Chebyshev setup");
  }
  c->upper = SAFETY * lambda;
  c->lower = c->upper / SMOOTHING_RANGE;
  *smoother = s;
  return 0;
}

int ts_smoother_create_chebyshev(ts_operator A, int degree, ts_smoother *smoother) {
  TS_CHECK_NOT_NULL(smoother);
  *smoother = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_ARG(degree >= 1 && degree <= 20, "Chebyshev smoother: degree %d, allowed 1..20", degree);
  return chebyshev_create(A, NULL, 0, degree, smoother);
}

int ts_smoother_create_chebyshev_preconditioned(ts_operator A, ts_operator P, int degree,
                                                ts_smoother *smoother) {
  TS_CHECK_NOT_NULL(smoother);
  *smoother = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(P);
  TS_CHECK_ARG(degree >= 1 && degree <= 20, "Chebyshev smoother: degree %d, allowed 1..20", degree);
  TS_CHECK_ARG(P->n == A->n && P->backend == A->backend && P->precision == A->precision,
               "Chebyshev smoother: the preconditioner (%lld rows, %s) does not fit the "
               "operator (%lld rows, %s)", (long long)P->n, ts_precision_name(P->precision),
               (long long)A->n, ts_precision_name(A->precision));
  return chebyshev_create(A, P, 0, degree, smoother);
}

int ts_smoother_create_chebyshev_owning(ts_operator A, ts_operator P, int degree,
                                        ts_smoother *smoother) {
  *smoother = NULL;
  return chebyshev_create(A, P, 1, degree, smoother);
}
