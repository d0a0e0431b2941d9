/* cli-check.c -- `tessera check FILE.xml --backend B --against A`: one backend checked
 * against another (the reference, omp by default) on a problem's finest level.  Every
 * operator of the problem is applied on both backends to the same pseudo-random vectors
 * (every backend draws the same numbers from a seed) and the results are compared in the
 * max norm, relative to the reference's largest entry; then the problem is solved on both
 * and the iteration counts and the solutions are compared.  One PASS/FAIL line per check;
 * the exit code is 1 if any check fails.
 *
 * The checks are a table: an operator is one function that computes its result into a
 * host array, and one line in `checks` below.  Checked: the Laplacian (apply, apply_add,
 * diagonal, unconstrained), one step of each smoother (vertex patch Fused and Separate,
 * Chebyshev), the transfers between the finest level and the one below it, and one V-cycle
 * of the problem's multigrid (double, and mixed precision: single-precision levels). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CHECK_MAX_OVERRIDES 32

typedef struct check_options {
  const char *file, *backend, *against;
  const char *overrides[CHECK_MAX_OVERRIDES];
  int n_overrides;
  uint64_t seed;
} check_options;

/* What a check needs: the problem's discretization on the finest level. */
typedef struct check_context {
  ts_problem_settings set;
  ts_mesh mesh;
  ts_fe fe;
  ts_dofs dofs;
  int64_t n;
  int64_t n_coarse; /* DoFs of the level below the finest (0 on level 0: no transfer checks) */
  uint64_t seed;
} check_context;

/* A check computes its result on backend b in precision p into out (at most n doubles) and
 * says how many entries it wrote in *count. */
typedef int (*check_fn)(const check_context *c, ts_backend b, ts_precision p, double *out,
                        int64_t *count);

/* What a check needs besides the finest level. */
typedef enum { NEEDS_NOTHING, NEEDS_COARSER_LEVEL, NEEDS_MULTIGRID } check_needs;

typedef struct check_entry {
  const char *name;
  ts_precision precision;
  check_fn run;
  check_needs needs;
} check_entry;

/* Laplacian: op(A, x, y) for the variants below, x = random(seed), y = random(seed + 1). */
typedef enum { LAP_APPLY, LAP_APPLY_ADD, LAP_DIAGONAL, LAP_UNCONSTRAINED } lap_variant;

static int check_laplace(const check_context *c, ts_backend b, ts_precision p, double *out,
                         int64_t *count, lap_variant v) {
  *count = c->n;
  ts_operator A = NULL;
  ts_vec x = NULL, y = NULL;
  int ierr = ts_operator_create_laplace(b, c->dofs, p, &A);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &x);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &y);
  if (!ierr) ierr = ts_vec_set_random(x, c->seed);
  if (!ierr) ierr = ts_vec_set_random(y, c->seed + 1);
  if (!ierr) {
    switch (v) {
      case LAP_APPLY: ierr = ts_operator_apply(A, x, y); break;
      case LAP_APPLY_ADD: ierr = ts_operator_apply_add(A, x, y); break;
      case LAP_DIAGONAL: ierr = ts_operator_diagonal(A, y); break;
      case LAP_UNCONSTRAINED: ierr = ts_operator_apply_unconstrained(A, x, y); break;
    }
  }
  if (!ierr) ierr = ts_vec_get_to_host(y, out);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_operator_destroy(&A);
  return ierr;
}

static int lap_apply(const check_context *c, ts_backend b, ts_precision p, double *out,
                     int64_t *count) {
  return check_laplace(c, b, p, out, count, LAP_APPLY);
}
static int lap_apply_add(const check_context *c, ts_backend b, ts_precision p, double *out,
                         int64_t *count) {
  return check_laplace(c, b, p, out, count, LAP_APPLY_ADD);
}
static int lap_diagonal(const check_context *c, ts_backend b, ts_precision p, double *out,
                        int64_t *count) {
  return check_laplace(c, b, p, out, count, LAP_DIAGONAL);
}
static int lap_unconstrained(const check_context *c, ts_backend b, ts_precision p, double *out,
                             int64_t *count) {
  return check_laplace(c, b, p, out, count, LAP_UNCONSTRAINED);
}

/* Smoothers: one step x <- S(b, x) on the finest level, b = random(seed), x = random(seed + 1). */
typedef enum { SMOOTH_PATCH_FUSED, SMOOTH_PATCH_SEPARATE, SMOOTH_CHEBYSHEV } smoother_kind;

static int check_smoother(const check_context *c, ts_backend b, ts_precision p, double *out,
                          int64_t *count, smoother_kind kind) {
  ts_operator A = NULL;
  ts_smoother s = NULL;
  ts_vec rhs = NULL, x = NULL;
  *count = c->n;
  int ierr = ts_operator_create_laplace(b, c->dofs, p, &A);
  if (!ierr) {
    if (kind == SMOOTH_CHEBYSHEV)
      ierr = ts_smoother_create_chebyshev(A, c->set.mg.chebyshev_degree, &s);
    else
      ierr = ts_smoother_create_vertex_patch(
          A, c->dofs, kind == SMOOTH_PATCH_FUSED ? TS_PATCH_FUSED : TS_PATCH_SEPARATE, &s);
  }
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &rhs);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &x);
  if (!ierr) ierr = ts_vec_set_random(rhs, c->seed);
  if (!ierr) ierr = ts_vec_set_random(x, c->seed + 1);
  if (!ierr) ierr = ts_smoother_apply(s, rhs, x);
  if (!ierr) ierr = ts_vec_get_to_host(x, out);
  ts_vec_destroy(&rhs);
  ts_vec_destroy(&x);
  ts_smoother_destroy(&s);
  ts_operator_destroy(&A);
  return ierr;
}

static int smooth_fused(const check_context *c, ts_backend b, ts_precision p, double *out,
                        int64_t *count) {
  return check_smoother(c, b, p, out, count, SMOOTH_PATCH_FUSED);
}
static int smooth_separate(const check_context *c, ts_backend b, ts_precision p, double *out,
                           int64_t *count) {
  return check_smoother(c, b, p, out, count, SMOOTH_PATCH_SEPARATE);
}
static int smooth_chebyshev(const check_context *c, ts_backend b, ts_precision p, double *out,
                            int64_t *count) {
  return check_smoother(c, b, p, out, count, SMOOTH_CHEBYSHEV);
}

/* Multigrid: the problem's hierarchy with its levels in precision p, from coarse_level. */
static int check_mg_create(const check_context *c, ts_backend b, ts_precision p,
                           int coarse_level, ts_mg *mg) {
  ts_mg_options o = c->set.mg;
  o.precision = p;
  o.coarse_level = coarse_level;
  return ts_mg_create(b, c->mesh, c->fe, c->set.level, &o, mg);
}

/* Transfers between the finest level L and L-1: fine = P coarse (prolongate) with coarse =
 * random(seed), or coarse = P^T fine (restrict) with fine = random(seed). */
static int check_transfer(const check_context *c, ts_backend b, ts_precision p, double *out,
                          int64_t *count, int restrict_) {
  ts_mg mg = NULL;
  ts_vec coarse = NULL, fine = NULL;
  const int L = c->set.level;
  *count = restrict_ ? c->n_coarse : c->n;
  int ierr = check_mg_create(c, b, p, L - 1, &mg);
  if (!ierr) ierr = ts_vec_create(b, c->n_coarse, p, &coarse);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &fine);
  if (!ierr && restrict_) {
    ierr = ts_vec_set_random(fine, c->seed);
    if (!ierr) ierr = ts_mg_restrict(mg, L, fine, coarse);
    if (!ierr) ierr = ts_vec_get_to_host(coarse, out);
  } else if (!ierr) {
    ierr = ts_vec_set_random(coarse, c->seed);
    if (!ierr) ierr = ts_mg_prolongate(mg, L, coarse, fine);
    if (!ierr) ierr = ts_vec_get_to_host(fine, out);
  }
  ts_vec_destroy(&coarse);
  ts_vec_destroy(&fine);
  ts_mg_destroy(&mg);
  return ierr;
}

static int prolongate(const check_context *c, ts_backend b, ts_precision p, double *out,
                      int64_t *count) {
  return check_transfer(c, b, p, out, count, 0);
}
static int restrict_fine(const check_context *c, ts_backend b, ts_precision p, double *out,
                         int64_t *count) {
  return check_transfer(c, b, p, out, count, 1);
}

/* One V-cycle of the problem's multigrid, y = V r on double vectors, r = random(seed);
 * p = TS_SINGLE is the mixed-precision V-cycle (single-precision levels). */
static int vcycle(const check_context *c, ts_backend b, ts_precision p, double *out,
                  int64_t *count) {
  ts_mg mg = NULL;
  ts_vec r = NULL, y = NULL;
  *count = c->n;
  int ierr = check_mg_create(c, b, p, c->set.mg.coarse_level, &mg);
  if (!ierr) ierr = ts_vec_create(b, c->n, TS_DOUBLE, &r);
  if (!ierr) ierr = ts_vec_create(b, c->n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_set_random(r, c->seed);
  if (!ierr) ierr = ts_operator_apply(ts_mg_preconditioner(mg), r, y);
  if (!ierr) ierr = ts_vec_get_to_host(y, out);
  ts_vec_destroy(&r);
  ts_vec_destroy(&y);
  ts_mg_destroy(&mg);
  return ierr;
}

/* The operator checks: one line each. */
static const check_entry checks[] = {
    {"laplace apply", TS_DOUBLE, lap_apply, NEEDS_NOTHING},
    {"laplace apply", TS_SINGLE, lap_apply, NEEDS_NOTHING},
    {"laplace apply_add", TS_DOUBLE, lap_apply_add, NEEDS_NOTHING},
    {"laplace apply_add", TS_SINGLE, lap_apply_add, NEEDS_NOTHING},
    {"laplace diagonal", TS_DOUBLE, lap_diagonal, NEEDS_NOTHING},
    {"laplace diagonal", TS_SINGLE, lap_diagonal, NEEDS_NOTHING},
    {"laplace unconstrained", TS_DOUBLE, lap_unconstrained, NEEDS_NOTHING},
    {"laplace unconstrained", TS_SINGLE, lap_unconstrained, NEEDS_NOTHING},
    {"smoother patch fused", TS_DOUBLE, smooth_fused, NEEDS_NOTHING},
    {"smoother patch fused", TS_SINGLE, smooth_fused, NEEDS_NOTHING},
    {"smoother patch separate", TS_DOUBLE, smooth_separate, NEEDS_NOTHING},
    {"smoother patch separate", TS_SINGLE, smooth_separate, NEEDS_NOTHING},
    {"smoother chebyshev", TS_DOUBLE, smooth_chebyshev, NEEDS_NOTHING},
    {"smoother chebyshev", TS_SINGLE, smooth_chebyshev, NEEDS_NOTHING},
    {"prolongation", TS_DOUBLE, prolongate, NEEDS_COARSER_LEVEL},
    {"prolongation", TS_SINGLE, prolongate, NEEDS_COARSER_LEVEL},
    {"restriction", TS_DOUBLE, restrict_fine, NEEDS_COARSER_LEVEL},
    {"restriction", TS_SINGLE, restrict_fine, NEEDS_COARSER_LEVEL},
    {"v-cycle", TS_DOUBLE, vcycle, NEEDS_MULTIGRID},
    {"v-cycle mixed", TS_SINGLE, vcycle, NEEDS_MULTIGRID},
};

/* Tolerances on max|a - r| / max|r|. */
static double tolerance(ts_precision p) { return p == TS_SINGLE ? 1e-5 : 1e-12; }

static double relative_difference(int64_t n, const double *a, const double *r) {
  double dmax = 0.0, rmax = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = fabs(a[i] - r[i]);
    if (!(d <= dmax)) dmax = d; /* NaN propagates */
    if (fabs(r[i]) > rmax) rmax = fabs(r[i]);
  }
  return rmax > 0 ? dmax / rmax : dmax;
}

/* Solve the problem's finest level on b: iterations and the solution (n doubles). */
static int solve_on(const check_context *c, ts_backend b, int *iterations, double *u) {
  ts_operator A = NULL, P = NULL;
  ts_vec rhs = NULL, x = NULL, x0 = NULL;
  ts_solver s = NULL;
  ts_mg mg = NULL;
  const ts_precision p = c->set.precision;
  int ierr = ts_operator_create_laplace(b, c->dofs, p, &A);
  if (!ierr && c->set.jacobi) ierr = ts_operator_create_jacobi(A, &P);
  if (!ierr && c->set.multigrid) ierr = ts_mg_create(b, c->mesh, c->fe, c->set.level, &c->set.mg, &mg);
  if (!ierr && mg) P = ts_mg_preconditioner(mg); /* borrowed from mg */
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &rhs);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &x);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &x0);
  if (!ierr) ierr = ts_assemble_rhs(A, c->dofs, c->set.solution, rhs, x0);
  if (!ierr) ierr = ts_solver_create(c->set.solver, &s);
  if (!ierr) ierr = ts_solver_set_operator(s, A);
  if (!ierr) ierr = ts_solver_set_preconditioner(s, P);
  if (!ierr) ierr = ts_solver_set_tolerances(s, c->set.rtol, c->set.max_iterations);
  if (!ierr) ierr = ts_solver_set_restart(s, c->set.restart);
  if (!ierr) ierr = ts_solver_solve(s, rhs, x);
  if (s) *iterations = ts_solver_iterations(s);
  if (!ierr) ierr = ts_vec_axpby(1.0, x0, 1.0, x);
  if (!ierr) ierr = ts_vec_get_to_host(x, u);
  ts_solver_destroy(&s);
  ts_vec_destroy(&rhs);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  if (mg)
    ts_mg_destroy(&mg);
  else
    ts_operator_destroy(&P);
  ts_operator_destroy(&A);
  return ierr;
}

static void check_help(void) {
  printf("usage: tessera check FILE.xml --backend NAME [--against NAME] [--set PATH=VALUE ...]\n"
         "                    [--seed N]\n"
         "  Applies every operator of the problem (Laplacian, smoothers, transfers, V-cycle)\n"
         "  on its finest level on both backends to the same random vectors and compares\n"
         "  max|a - r| / max|r| with 1e-12 (double) and 1e-5 (single, and the mixed-precision\n"
         "  V-cycle); checks that need a coarser level print SKIP on level 0.  Then it solves on both and compares the iteration counts (equal within\n"
         "  max(1, 2%%)) and the solutions (max-norm relative difference <= max(1e-10, 1e3 rtol)\n"
         "  in double, <= 1e-4 in single).  One PASS/FAIL line per check; exit code 1 if any\n"
         "  fails.\n"
         "  --backend NAME   the backend to check (required)\n"
         "  --against NAME   the reference backend (default omp)\n"
         "  --set PATH=VALUE change an attribute of the problem file (as in 'tessera run')\n"
         "  --seed N         seed of the random vectors (default 2024)\n");
}

static int parse_check_options(int argc, char **argv, check_options *o, int *done) {
  memset(o, 0, sizeof *o);
  o->against = "omp";
  o->seed = 2024;
  *done = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      check_help();
      *done = 1;
      return CLI_OK;
    } else if (!strcmp(a, "--backend") || !strcmp(a, "--against") || !strcmp(a, "--set") ||
               !strcmp(a, "--seed")) {
      if (i + 1 >= argc) return cli_usage_error("check", "%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--backend")) {
        o->backend = v;
      } else if (!strcmp(a, "--against")) {
        o->against = v;
      } else if (!strcmp(a, "--seed")) {
        char *end;
        o->seed = strtoull(v, &end, 10);
        if (*end || !*v) return cli_usage_error("check", "--seed %s: give a non-negative integer", v);
      } else {
        if (o->n_overrides == CHECK_MAX_OVERRIDES)
          return cli_usage_error("check", "at most %d --set options", CHECK_MAX_OVERRIDES);
        o->overrides[o->n_overrides++] = v;
      }
    } else if (a[0] == '-') {
      return cli_usage_error("check", "unknown option '%s'", a);
    } else if (o->file) {
      return cli_usage_error("check", "one problem file expected, got '%s' and '%s'", o->file, a);
    } else {
      o->file = a;
    }
  }
  if (!o->file) return cli_usage_error("check", "no problem file given");
  if (!o->backend) return cli_usage_error("check", "--backend NAME is required (the backend to check)");
  return CLI_OK;
}

/* Operator checks and the solve comparison; counts failures in *failed. */
static int run_checks(const check_options *o, check_context *c, ts_backend b, ts_backend r,
                      int *failed) {
  double *out_b = malloc((size_t)c->n * sizeof(double));
  double *out_r = malloc((size_t)c->n * sizeof(double));
  int ierr = 0;
  if (!out_b || !out_r) {
    fprintf(stderr, "tessera check: out of host memory for 2 x %lld doubles\n", (long long)c->n);
    free(out_b);
    free(out_r);
    return TS_ERR_MEMORY;
  }
  for (size_t q = 0; q < sizeof checks / sizeof checks[0] && !ierr; ++q) {
    const check_entry *e = &checks[q];
    const int skip = (e->needs == NEEDS_COARSER_LEVEL && c->n_coarse == 0) ||
                     (e->needs == NEEDS_MULTIGRID && c->set.level <= c->set.mg.coarse_level);
    if (skip) {
      printf("SKIP  %-24s %-6s  the finest level %d has no coarser level\n", e->name,
             ts_precision_name(e->precision), c->set.level);
      continue;
    }
    int64_t n_b = 0, n_r = 0;
    ierr = e->run(c, b, e->precision, out_b, &n_b);
    if (!ierr) ierr = e->run(c, r, e->precision, out_r, &n_r);
    if (ierr) break;
    const double d = relative_difference(n_b, out_b, out_r), tol = tolerance(e->precision);
    const int pass = d <= tol;
    *failed += !pass;
    printf("%s  %-24s %-6s  relative difference %.3e  (tolerance %.0e)\n", pass ? "PASS" : "FAIL",
           e->name, ts_precision_name(e->precision), d, tol);
  }
  int it_b = 0, it_r = 0;
  if (!ierr) ierr = solve_on(c, b, &it_b, out_b);
  if (!ierr) ierr = solve_on(c, r, &it_r, out_r);
  if (!ierr) {
    const int slack = it_r / 50 > 1 ? it_r / 50 : 1;
    const int pass = abs(it_b - it_r) <= slack;
    *failed += !pass;
    printf("%s  %-24s %-6s  %s %d, %s %d iterations  (allowed difference %d)\n",
           pass ? "PASS" : "FAIL", "solve iterations", ts_precision_name(c->set.precision),
           o->backend, it_b, o->against, it_r, slack);
    const double d = relative_difference(c->n, out_b, out_r);
    double tol = c->set.precision == TS_SINGLE ? 1e-4 : 1e3 * c->set.rtol;
    if (tol < 1e-10) tol = 1e-10;
    const int spass = d <= tol;
    *failed += !spass;
    printf("%s  %-24s %-6s  relative difference %.3e  (tolerance %.0e)\n", spass ? "PASS" : "FAIL",
           "solve solution", ts_precision_name(c->set.precision), d, tol);
  }
  free(out_b);
  free(out_r);
  return ierr;
}

int cli_check(int argc, char **argv) {
  check_options o;
  int done, status = parse_check_options(argc, argv, &o, &done);
  if (status || done) return status;
  check_context c;
  memset(&c, 0, sizeof c);
  c.seed = o.seed;
  ts_problem p = NULL;
  ts_backend b = NULL, r = NULL;
  int failed = 0;
  int ierr = ts_problem_read_xml(o.file, o.n_overrides, o.overrides, &p);
  if (!ierr) ierr = ts_problem_discretization(p, &c.set, &c.mesh, &c.fe);
  if (!ierr) ierr = ts_dofs_create(c.mesh, c.fe, c.set.level, &c.dofs);
  if (!ierr && c.set.level > 0) {
    ts_dofs coarse = NULL;
    ierr = ts_dofs_create(c.mesh, c.fe, c.set.level - 1, &coarse);
    c.n_coarse = ierr ? 0 : ts_dofs_count(coarse);
    ts_dofs_destroy(&coarse);
  }
  if (!ierr) ierr = ts_backend_open(o.backend, &b);
  if (!ierr) ierr = ts_backend_open(o.against, &r);
  /* the device memory is estimated before anything is allocated */
  size_t avail = 0;
  if (!ierr) ierr = ts_backend_memory_available(b, &avail);
  if (!ierr) ierr = ts_problem_check_memory(p, avail);
  if (!ierr) ierr = ts_backend_memory_available(r, &avail);
  if (!ierr) ierr = ts_problem_check_memory(p, avail);
  if (!ierr) {
    c.n = ts_dofs_count(c.dofs);
    printf("# tessera %s check: problem '%s', %dD, Q%d, level %d, %lld DoFs\n", ts_version(),
           ts_problem_name(p), c.set.dim, c.set.degree, c.set.level, (long long)c.n);
    printf("# backend %s: %s\n# against %s: %s\n", o.backend, ts_backend_description(b), o.against,
           ts_backend_description(r));
    fflush(stdout);
    ierr = run_checks(&o, &c, b, r, &failed);
  }
  if (ierr)
    status = cli_fail(ierr);
  else if (failed) {
    printf("# %d check%s FAILED\n", failed, failed > 1 ? "s" : "");
    status = CLI_ERROR;
  } else {
    printf("# all checks passed\n");
  }
  ts_backend_destroy(&b);
  ts_backend_destroy(&r);
  ts_dofs_destroy(&c.dofs);
  ts_fe_destroy(&c.fe);
  ts_mesh_destroy(&c.mesh);
  ts_problem_destroy(&p);
  return status;
}
