/* multigrid.c -- multigrid from parts (PETSc's PCMG): the caller's level operators A_l,
 * prolongations P_l (level l-1 -> l, rectangular; restriction P_l^T by their transpose),
 * smoothers S_l (preconditioners, applied as x += S_l (b - A_l x)) and a coarse solve; one
 * V-cycle from a zero guess per application.  The hierarchies of lib/mg have their own
 * V-cycle (ts_mg_vcycle), tied to their level structs (smoother objects, discretization
 * transfers, timings, mixed precision); this one drives any operators and preconditioners,
 * e.g. the velocity block of the Stokes hierarchy (ts_pc_create_stokes_velocity_mg).
 *
 * With x_L = V_L b: V_0 = C; on level l, m pre-smoothing steps from x = 0, the coarse
 * correction x += P V_{l-1} P^T (b - A x), m post-smoothing steps.  The error propagation
 * is E_l = (I - S A)^m (I - P V_{l-1} P^T A) (I - S A)^m, so V_l A = I - E_l is
 * A-self-adjoint and V_l symmetric when S_l, C and V_{l-1} are: symmetric smoothers and the
 * same number of steps before and after make the cycle symmetric, positive definite for
 * convergent smoothers (||I - S A||_A < 1), as CG and MINRES need.
 *
 * Mixed precision (ts_pc_multigrid_set_outer; paper 002 section 4.2): the parts are single
 * precision and the preconditioner takes double vectors, rounded to single at entry and
 * converted back at exit.  Full multigrid then works as lib/mg/fmg.c does under mixed
 * precision: the right sides restricted, the iterates prolongated and the residuals formed
 * in double with the levels' double operators and prolongations, only the V-cycles on the
 * residuals in single. */
#include <math.h>
#include "pc-impl.h"

#define TS_PC_MULTIGRID_MAX_LEVELS 32

typedef struct multigrid_level {
  ts_operator A, P;             /* borrowed; P NULL on level 0 */
  ts_pc smoother;               /* borrowed; NULL on level 0 */
  ts_vec b, x;                  /* owned below the finest level (the finest uses r and z) */
  ts_vec r, t;                  /* owned, level >= 1: residual and smoother output */
  ts_vec fb, fx, fe;            /* owned, made by the first FMG solve: the level's right
                                   side (then a correction), solution, residual (in the
                                   outer precision) */
  ts_operator outer_A, outer_P; /* borrowed, mixed precision: the level's double operator and
                                   prolongation (P NULL on level 0) */
} multigrid_level;

typedef struct multigrid_pc {
  int levels, steps;
  int made;                     /* ts_pc_setup sets up the parts only after the creation */
  ts_pc coarse;                 /* borrowed */
  ts_pc coarse_start;           /* borrowed, or NULL (coarse): full multigrid's first coarse
                                   solve (ts_pc_multigrid_set_coarse_start) */
  multigrid_level level[TS_PC_MULTIGRID_MAX_LEVELS];
  void *parts;                  /* ts_pc_multigrid_adopt: freed by free_parts */
  void (*free_parts)(void *parts);
  ts_monitor_fn monitor;        /* ts_pc_multigrid_set_monitor: FMG's finest V-cycles */
  void *monitor_ctx;
  int mixed;                    /* ts_pc_multigrid_set_outer: double vectors outside */
} multigrid_pc;

/* the level's operator and prolongation of full multigrid: in double under mixed precision */
static ts_operator fmg_A(const multigrid_pc *m, int i) {
  return m->mixed ? m->level[i].outer_A : m->level[i].A;
}
static ts_operator fmg_P(const multigrid_pc *m, int i) {
  return m->mixed ? m->level[i].outer_P : m->level[i].P;
}

/* one smoothing step x += S (b - A x) */
static int smooth(multigrid_level *l, ts_vec b, ts_vec x) {
  TS_CALL(ts_operator_apply(l->A, x, l->r));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, l->r));
  TS_CALL(ts_pc_apply(l->smoother, l->r, l->t));
  TS_CALL(ts_vec_axpby(1.0, l->t, 1.0, x));
  return 0;
}

/* x = V_i b */
static int vcycle(multigrid_pc *m, int i, ts_vec b, ts_vec x) {
  if (i == 0) return ts_pc_apply(m->coarse, b, x);
  multigrid_level *l = &m->level[i], *c = &m->level[i - 1];
  TS_CALL(ts_vec_set(x, 0.0));
  for (int s = 0; s < m->steps; ++s) TS_CALL(smooth(l, b, x));
  TS_CALL(ts_operator_apply(l->A, x, l->r));                    /* r = b - A x */
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, l->r));
  TS_CALL(ts_operator_apply_part(l->P, 1, l->r, c->b, 0));      /* b_c = P^T r */
  TS_CALL(vcycle(m, i - 1, c->b, c->x));
  TS_CALL(ts_operator_apply_part(l->P, 0, c->x, x, 1));         /* x += P x_c */
  for (int s = 0; s < m->steps; ++s) TS_CALL(smooth(l, b, x));
  return 0;
}

/* out = V_i in under mixed precision: in rounded to the V-cycle's precision (level i's b),
 * the result (its x) converted back */
static int vcycle_converted(multigrid_pc *m, int i, ts_vec in, ts_vec out) {
  multigrid_level *l = &m->level[i];
  TS_CALL(ts_vec_copy(in, l->b));
  TS_CALL(vcycle(m, i, l->b, l->x));
  return ts_vec_copy(l->x, out);
}

static int multigrid_apply(ts_pc pc, ts_vec r, ts_vec z) {
  multigrid_pc *m = pc->data;
  if (m->mixed) return vcycle_converted(m, m->levels - 1, r, z);
  return vcycle(m, m->levels - 1, r, z);
}

static int multigrid_setup(ts_pc pc) {
  multigrid_pc *m = pc->data;
  if (!m->made) return 0; /* at creation the borrowed parts are set up already */
  for (int i = 1; i < m->levels; ++i) TS_CALL(ts_pc_setup(m->level[i].smoother));
  TS_CALL(ts_pc_setup(m->coarse));
  return 0;
}

static void multigrid_free(multigrid_pc *m) {
  if (!m) return;
  for (int i = 0; i < m->levels; ++i) {
    multigrid_level *l = &m->level[i];
    ts_vec_destroy(&l->b);
    ts_vec_destroy(&l->x);
    ts_vec_destroy(&l->r);
    ts_vec_destroy(&l->t);
    ts_vec_destroy(&l->fb);
    ts_vec_destroy(&l->fx);
    ts_vec_destroy(&l->fe);
  }
  if (m->free_parts) m->free_parts(m->parts);
  ts_free(&m);
}

static void multigrid_destroy(ts_pc pc) {
  multigrid_free(pc->data);
  pc->data = NULL;
}

const ts_pc_ops ts_pc_multigrid_ops = {.name = "multigrid-levels",
                                       .setup = multigrid_setup,
                                       .apply = multigrid_apply,
                                       .destroy = multigrid_destroy};

/* the parts of level i fit: A square, in the finest level's backend and precision; P of A_i's
 * rows and A_{i-1}'s columns with a transpose; the smoother (coarse solve) of A_i's size */
static int check_level(int i, int levels, const ts_operator *A, const ts_operator *P,
                       const ts_pc *smoothers, ts_pc coarse) {
  const char *f = "ts_pc_create_multigrid";
  const ts_operator a = A[i], fine = A[levels - 1];
  TS_CHECK_ARG(a, "%s: A[%d] is NULL, an operator is required (A[0] coarsest .. A[%d] finest)",
               f, i, levels - 1);
  TS_CHECK_ARG(a->n == a->cols, "%s: A[%d] ('%s') has %lld rows and %lld columns, a square "
               "operator is required", f, i, a->ops->name, (long long)a->n, (long long)a->cols);
  TS_CHECK_ARG(a->backend == fine->backend && a->precision == fine->precision,
               "%s: A[%d] is on backend '%s' in precision %d, A[%d] on '%s' in %d: all levels "
               "need one backend and precision", f, i, a->backend->name, (int)a->precision,
               levels - 1, fine->backend->name, (int)fine->precision);
  const ts_pc s = i ? smoothers[i] : coarse;
  const char *what = i ? "smoothers[l]" : "coarse";
  TS_CHECK_ARG(s, "%s: %s is NULL on level l = %d, a preconditioner is required", f, what, i);
  TS_CHECK_ARG(s->op->n == a->n && s->op->backend == a->backend &&
                   s->op->precision == a->precision,
               "%s: %s (level %d) has %lld entries on '%s' in precision %d, A[%d] %lld on '%s' "
               "in %d: they must agree", f, what, i, (long long)s->op->n, s->op->backend->name,
               (int)s->op->precision, i, (long long)a->n, a->backend->name, (int)a->precision);
  if (!i) return 0;
  const ts_operator p = P[i];
  TS_CHECK_ARG(p, "%s: P[%d] is NULL, the prolongation from level %d to %d is required", f, i,
               i - 1, i);
  TS_CHECK_ARG(p->n == a->n && p->cols == A[i - 1]->n,
               "%s: P[%d] ('%s') is %lld x %lld, allowed only %lld x %lld (A[%d] rows x A[%d] "
               "rows)", f, i, p->ops->name, (long long)p->n, (long long)p->cols,
               (long long)a->n, (long long)A[i - 1]->n, i, i - 1);
  TS_CHECK_ARG(p->backend == a->backend && p->precision == a->precision,
               "%s: P[%d] is on backend '%s' in precision %d, A[%d] on '%s' in %d: they must "
               "agree", f, i, p->backend->name, (int)p->precision, i, a->backend->name,
               (int)a->precision);
  if (!p->ops->apply_transpose)
    return TS_ERROR(TS_ERR_ARG, "%s: P[%d] ('%s') has no transpose (apply_transpose), the "
                    "restriction P^T is required", f, i, p->ops->name);
  return 0;
}

/* the levels' work vectors, made like their operators (distributed for distributed levels) */
static int create_vectors(multigrid_pc *m) {
  for (int i = 0; i < m->levels; ++i) {
    multigrid_level *l = &m->level[i];
    if (i < m->levels - 1) {
      TS_CALL(ts_operator_vec_create(l->A, &l->b));
      TS_CALL(ts_operator_vec_create(l->A, &l->x));
    }
    if (i > 0) {
      TS_CALL(ts_operator_vec_create(l->A, &l->r));
      TS_CALL(ts_operator_vec_create(l->A, &l->t));
    }
  }
  return 0;
}

int ts_pc_create_multigrid(int levels, const ts_operator *A, const ts_operator *P,
                           const ts_pc *smoothers, int smoothing_steps, ts_pc coarse,
                           ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_ARG(levels >= 1 && levels <= TS_PC_MULTIGRID_MAX_LEVELS,
               "%s: levels = %d, allowed 1..%d", __func__, levels, TS_PC_MULTIGRID_MAX_LEVELS);
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_ARG(levels == 1 || P, "%s: argument 'P' is NULL, %d prolongations are required",
               __func__, levels - 1);
  TS_CHECK_ARG(levels == 1 || smoothers,
               "%s: argument 'smoothers' is NULL, %d smoothers are required", __func__,
               levels - 1);
  TS_CHECK_ARG(smoothing_steps >= 1 && smoothing_steps <= 100,
               "%s: smoothing_steps = %d, allowed 1..100", __func__, smoothing_steps);
  for (int i = 0; i < levels; ++i) TS_CALL(check_level(i, levels, A, P, smoothers, coarse));
  multigrid_pc *m;
  TS_CALL(ts_calloc(1, sizeof *m, "multigrid preconditioner", &m));
  m->levels = levels;
  m->steps = smoothing_steps;
  m->coarse = coarse;
  for (int i = 0; i < levels; ++i) {
    m->level[i].A = A[i];
    m->level[i].P = i ? P[i] : NULL;
    m->level[i].smoother = i ? smoothers[i] : NULL;
  }
  const int ierr = create_vectors(m);
  if (ierr) {
    multigrid_free(m);
    return ts_error_trace(ierr, __FILE__, __LINE__, "multigrid preconditioner");
  }
  const ts_operator fine = A[levels - 1];
  TS_CALL(ts_pc_create_shell(&ts_pc_multigrid_ops, fine->backend, fine->n, fine->precision, m,
                             pc));
  m->made = 1;
  return 0;
}

int ts_pc_multigrid_adopt(ts_pc pc, void *parts, void (*free_parts)(void *parts)) {
  TS_CHECK_ARG(pc && pc->ops == &ts_pc_multigrid_ops,
               "%s: pc is not a multigrid-levels preconditioner", __func__);
  multigrid_pc *m = pc->data;
  m->parts = parts;
  m->free_parts = free_parts;
  return 0;
}

/* ---------------------------------------------------------------- full multigrid */

/* x += V_i (b - A_i x) on level i (level 0: V_0 = C): the residual in fe, the correction in
 * fb (b may be fb: it is read before the V-cycle writes fb); under mixed precision the
 * residual in double, the V-cycle on its rounding, the correction through fe */
static int correct(multigrid_pc *m, int i, ts_vec b, ts_vec x) {
  multigrid_level *l = &m->level[i];
  TS_CALL(ts_operator_apply(fmg_A(m, i), x, l->fe));
  TS_CALL(ts_vec_axpby(1.0, b, -1.0, l->fe)); /* fe = b - A x */
  ts_vec c = m->mixed ? l->fe : l->fb;
  if (m->mixed) TS_CALL(vcycle_converted(m, i, l->fe, c));
  else TS_CALL(vcycle(m, i, l->fe, c));       /* c = V (b - A x) */
  TS_CALL(ts_vec_axpby(1.0, c, 1.0, x));
  return 0;
}

static int fmg_vectors(multigrid_pc *m) {
  for (int i = 0; i < m->levels; ++i) {
    multigrid_level *l = &m->level[i];
    if (l->fb) continue;
    TS_CALL(ts_operator_vec_create(fmg_A(m, i), &l->fb));
    TS_CALL(ts_operator_vec_create(fmg_A(m, i), &l->fx));
    TS_CALL(ts_operator_vec_create(fmg_A(m, i), &l->fe));
  }
  return 0;
}

/* the finest level's vectors in the levels' precision, which a mixed V-cycle converts to */
static int top_vectors(multigrid_pc *m) {
  multigrid_level *l = &m->level[m->levels - 1];
  if (!l->b) TS_CALL(ts_operator_vec_create(l->A, &l->b));
  if (!l->x) TS_CALL(ts_operator_vec_create(l->A, &l->x));
  return 0;
}

int ts_pc_multigrid_set_outer(ts_pc pc, const ts_operator *A, const ts_operator *P) {
  TS_CHECK_ARG(pc && pc->ops == &ts_pc_multigrid_ops,
               "%s: pc is not a multigrid-levels preconditioner", __func__);
  TS_CHECK_NOT_NULL(A);
  multigrid_pc *m = pc->data;
  TS_CHECK_ARG(m->levels == 1 || P, "%s: argument 'P' is NULL, %d prolongations are required",
               __func__, m->levels - 1);
  TS_CHECK_ARG(!m->mixed && m->level[0].A->precision == TS_SINGLE && !m->level[0].fb,
               "%s: the preconditioner is not a single-precision one without outer operators "
               "and before its first full multigrid solve", __func__);
  for (int i = 0; i < m->levels; ++i) {
    const ts_operator a = A[i], p = i ? P[i] : NULL;
    TS_CHECK_ARG(a && a->precision == TS_DOUBLE && a->n == m->level[i].A->n &&
                     a->backend == m->level[i].A->backend,
                 "%s: A[%d] must be a double operator of level %d's size and backend", __func__,
                 i, i);
    TS_CHECK_ARG(!i || (p && p->precision == TS_DOUBLE && p->n == a->n &&
                        p->cols == A[i - 1]->n && p->ops->apply_transpose),
                 "%s: P[%d] must be a double prolongation from level %d to %d with a transpose",
                 __func__, i, i - 1, i);
  }
  TS_CALL(top_vectors(m));
  for (int i = 0; i < m->levels; ++i) {
    m->level[i].outer_A = A[i];
    m->level[i].outer_P = i ? P[i] : NULL;
  }
  m->mixed = 1;
  pc->op->precision = TS_DOUBLE; /* the vectors it takes from here on */
  return 0;
}

int ts_pc_multigrid_set_monitor(ts_pc pc, ts_monitor_fn fn, void *ctx) {
  TS_CHECK_ARG(pc && pc->ops == &ts_pc_multigrid_ops,
               "%s: pc is not a multigrid-levels preconditioner (ts_pc_create_multigrid)",
               __func__);
  multigrid_pc *m = pc->data;
  m->monitor = fn;
  m->monitor_ctx = ctx;
  return 0;
}

int ts_pc_multigrid_set_coarse_start(ts_pc pc, ts_pc start) {
  TS_CHECK_ARG(pc && pc->ops == &ts_pc_multigrid_ops,
               "%s: pc is not a multigrid-levels preconditioner", __func__);
  multigrid_pc *m = pc->data;
  TS_CHECK_ARG(!start || (start->op->n == m->coarse->op->n &&
                          start->op->backend == m->coarse->op->backend &&
                          start->op->precision == fmg_A(m, 0)->precision),
               "%s: the start's size, backend or precision differs from full multigrid's on "
               "the coarse level", __func__);
  m->coarse_start = start;
  return 0;
}

/* The nested iteration of full multigrid: b restricted down the levels, the coarse problem
 * solved (coarse_start where given), then on each level the prolongated solution and one
 * V-cycle correction; x on the finest level */
static int nested_iteration(multigrid_pc *m, ts_vec b, ts_vec x) {
  const int top = m->levels - 1;
  TS_CALL(fmg_vectors(m));
  TS_CALL(ts_vec_copy(b, m->level[top].fb));
  for (int i = top; i > 0; --i)
    TS_CALL(ts_operator_apply_part(fmg_P(m, i), 1, m->level[i].fb, m->level[i - 1].fb, 0));
  if (m->coarse_start) TS_CALL(ts_pc_apply(m->coarse_start, m->level[0].fb, m->level[0].fx));
  else if (m->mixed) TS_CALL(vcycle_converted(m, 0, m->level[0].fb, m->level[0].fx));
  else TS_CALL(ts_pc_apply(m->coarse, m->level[0].fb, m->level[0].fx));
  for (int i = 1; i <= top; ++i) {
    multigrid_level *l = &m->level[i];
    TS_CALL(ts_operator_apply_part(fmg_P(m, i), 0, m->level[i - 1].fx, l->fx, 0));
    TS_CALL(correct(m, i, l->fb, l->fx));
  }
  TS_CALL(ts_vec_copy(m->level[top].fx, x));
  return 0;
}

int ts_pc_multigrid_nested(ts_pc pc, ts_vec b, ts_vec x) {
  TS_CHECK_ARG(pc && pc->ops == &ts_pc_multigrid_ops,
               "%s: pc is not a multigrid-levels preconditioner", __func__);
  multigrid_pc *m = pc->data;
  TS_CALL(ts_operator_check_vectors(fmg_A(m, m->levels - 1), b, x));
  return nested_iteration(m, b, x);
}

int ts_pc_multigrid_fmg_solve(ts_pc pc, ts_vec b, ts_vec x, double rtol, int max_iterations,
                              int *iterations) {
  TS_CHECK_ARG(pc && pc->ops == &ts_pc_multigrid_ops,
               "%s: pc is not a multigrid-levels preconditioner (ts_pc_create_multigrid)",
               __func__);
  TS_CHECK_ARG(rtol > 0.0 && rtol < 1.0, "%s: rtol = %g, allowed 0 < rtol < 1", __func__, rtol);
  TS_CHECK_ARG(max_iterations >= 1, "%s: max_iterations = %d, allowed at least 1", __func__,
               max_iterations);
  multigrid_pc *m = pc->data;
  const int top = m->levels - 1;
  TS_CALL(ts_operator_check_vectors(fmg_A(m, top), b, x));
  if (iterations) *iterations = 0;
  TS_CALL(nested_iteration(m, b, x));
  /* V-cycles while ||b - A x|| > rtol ||b||, at least one (Algorithm 2.2, line 5) */
  double bnorm, rnorm;
  TS_CALL(ts_vec_norm(b, &bnorm));
  multigrid_level *l = &m->level[top];
  for (int it = 1; it <= max_iterations; ++it) {
    TS_CALL(correct(m, top, b, x));
    if (iterations) *iterations = it;
    TS_CALL(ts_operator_apply(fmg_A(m, top), x, l->fe));
    TS_CALL(ts_vec_axpby(1.0, b, -1.0, l->fe));
    TS_CALL(ts_vec_norm(l->fe, &rnorm));
    if (!isfinite(rnorm))
      return TS_ERROR(TS_ERR_NAN, "%s: the residual is %g after %d V-cycles", __func__, rnorm, it);
    if (m->monitor && m->monitor(m->monitor_ctx, it, rnorm / bnorm))
      return TS_ERROR(TS_ERR_ARG, "%s: stopped by the monitor at V-cycle %d", __func__, it);
    if (rnorm <= rtol * bnorm) return 0;
  }
  return TS_ERROR(TS_ERR_NOT_CONVERGED, "%s: %d V-cycles left the relative residual at %.3e, "
                  "asked for %.3e", __func__, max_iterations, rnorm / bnorm, rtol);
}
