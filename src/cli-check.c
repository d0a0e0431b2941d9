/* cli-check.c -- `tessera check FILE.xml --backend B --against A`: one backend checked
 * against another (the reference, omp by default) on a problem's finest level.  Every
 * operator of the problem is applied on both backends to the same pseudo-random vectors
 * (every backend draws the same numbers from a seed) and the results are compared in the
 * max norm, relative to the reference's largest entry; then the problem is solved on both
 * (ts_problem_solve_finest: what `tessera run` does on that level) and the iteration counts
 * and the solutions are compared.  One PASS/FAIL line per check; the exit code is 1 if any
 * check fails.
 *
 * The objects come from the problem's system builder (ts_system: the DoF handlers, the
 * system operator and hierarchy of its equation, made here on each backend and precision).
 * The checks are a table per equation (check.h): an operator is one function that computes
 * its result into a host array, and one line in its equation's table (check-poisson.c,
 * check-stokes.c, check-taylor-hood.c, check-hdiv.c), found by the problem's equation in the registry
 * (check-registry.c); the checks the equations share are here.
 * The equations' files say which operators each compares. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cli.h"

typedef struct check_options {
  const char *file, *backend, *against;
  const char **overrides;  /* the --set values, at most argc of them */
  int n_overrides;
  uint64_t seed;
} check_options;

/* The system operator: op(A, x, y) for the variants below, x = random(seed), y = random(seed + 1). */
typedef enum { OP_APPLY, OP_APPLY_ADD, OP_DIAGONAL, OP_UNCONSTRAINED } op_variant;

static int check_operator(const check_context *c, ts_backend b, ts_precision p, double *out,
                          int64_t *count, op_variant v) {
  *count = c->n;
  ts_operator A = NULL;
  ts_vec x = NULL, y = NULL;
  int ierr = ts_system_operator_create(c->system, b, p, &A);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &x);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &y);
  if (!ierr) ierr = ts_vec_set_random(x, c->seed);
  if (!ierr) ierr = ts_vec_set_random(y, c->seed + 1);
  if (!ierr) {
    switch (v) {
      case OP_APPLY: ierr = ts_operator_apply(A, x, y); break;
      case OP_APPLY_ADD: ierr = ts_operator_apply_add(A, x, y); break;
      case OP_DIAGONAL: ierr = ts_operator_diagonal(A, y); break;
      case OP_UNCONSTRAINED: ierr = ts_operator_apply_unconstrained(A, x, y); break;
    }
  }
  if (!ierr) ierr = ts_vec_get_to_host(y, out);
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_operator_destroy(&A);
  return ierr;
}

int check_op_apply(const check_context *c, ts_backend b, ts_precision p, double *out,
                   int64_t *count) {
  return check_operator(c, b, p, out, count, OP_APPLY);
}
int check_op_apply_add(const check_context *c, ts_backend b, ts_precision p, double *out,
                       int64_t *count) {
  return check_operator(c, b, p, out, count, OP_APPLY_ADD);
}
int check_op_diagonal(const check_context *c, ts_backend b, ts_precision p, double *out,
                      int64_t *count) {
  return check_operator(c, b, p, out, count, OP_DIAGONAL);
}
int check_op_unconstrained(const check_context *c, ts_backend b, ts_precision p, double *out,
                           int64_t *count) {
  return check_operator(c, b, p, out, count, OP_UNCONSTRAINED);
}

int check_smoother(const check_context *c, ts_backend b, ts_precision p, double *out,
                   int64_t *count, check_smoother_fn make) {
  ts_operator A = NULL, P = NULL;
  ts_smoother s = NULL;
  ts_vec rhs = NULL, x = NULL;
  *count = c->n;
  int ierr = ts_system_operator_create(c->system, b, p, &A);
  if (!ierr) ierr = make(c, A, &P, &s);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &rhs);
  if (!ierr) ierr = ts_vec_create(b, c->n, p, &x);
  if (!ierr) ierr = ts_vec_set_random(rhs, c->seed);
  if (!ierr) ierr = ts_vec_set_random(x, c->seed + 1);
  if (!ierr) ierr = ts_smoother_apply(s, rhs, x);
  if (!ierr) ierr = ts_vec_get_to_host(x, out);
  ts_vec_destroy(&rhs);
  ts_vec_destroy(&x);
  ts_smoother_destroy(&s);
  ts_operator_destroy(&P);
  ts_operator_destroy(&A);
  return ierr;
}

/* Multigrid: the problem's hierarchy (Laplacian or Stokes) with its levels in precision p,
 * from coarse_level (another than the problem's: without degree levels below it). */
static int check_mg_create(const check_context *c, ts_backend b, ts_precision p,
                           int coarse_level, ts_mg *mg) {
  ts_mg_options o = c->set.mg;
  o.precision = p;
  if (coarse_level != o.coarse_level && c->eq->degree_levels) o.coarse_degree = c->set.degree;
  o.coarse_level = coarse_level;
  return ts_system_mg_create(c->system, b, &o, mg);
}

/* Transfers between the finest level L and L-1: fine = P coarse (prolongate) with coarse =
 * random(seed), or coarse = P^T fine (restrict) with fine = random(seed); the hierarchy
 * starts at c->transfer_coarse_level (Stokes: the problem's coarse level, whose exact solve
 * is a dense LU, affordable there and not necessarily on level L-1). */
static int check_transfer(const check_context *c, ts_backend b, ts_precision p, double *out,
                          int64_t *count, int restrict_) {
  ts_mg mg = NULL;
  ts_vec coarse = NULL, fine = NULL;
  const int L = c->set.level;
  *count = restrict_ ? c->n_coarse : c->n;
  int ierr = check_mg_create(c, b, p, c->transfer_coarse_level, &mg);
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

int check_prolongate(const check_context *c, ts_backend b, ts_precision p, double *out,
                     int64_t *count) {
  return check_transfer(c, b, p, out, count, 0);
}
int check_restrict(const check_context *c, ts_backend b, ts_precision p, double *out,
                   int64_t *count) {
  return check_transfer(c, b, p, out, count, 1);
}

/* One V-cycle of the problem's multigrid, y = V r on double vectors of n entries,
 * r = random(seed); p = TS_SINGLE is the mixed-precision V-cycle (single-precision levels). */
int check_vcycle_of(const check_context *c, ts_backend b, ts_precision p, int64_t n,
                    double *out, int64_t *count) {
  ts_mg mg = NULL;
  ts_vec r = NULL, y = NULL;
  *count = n;
  int ierr = check_mg_create(c, b, p, c->set.mg.coarse_level, &mg);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &r);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_set_random(r, c->seed);
  if (!ierr) ierr = ts_operator_apply(ts_mg_preconditioner(mg), r, y);
  if (!ierr) ierr = ts_vec_get_to_host(y, out);
  ts_vec_destroy(&r);
  ts_vec_destroy(&y);
  ts_mg_destroy(&mg);
  return ierr;
}

/* the system's hierarchy: its V-cycle on the whole system */
int check_vcycle(const check_context *c, ts_backend b, ts_precision p, double *out,
                 int64_t *count) {
  return check_vcycle_of(c, b, p, c->n, out, count);
}

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

/* Solve the problem's finest level on b as `tessera run` does: iterations and the solution
 * (n doubles). */
static int solve_on(const check_context *c, ts_backend b, int *iterations, double *u) {
  ts_level_report r = {0};
  const int ierr = ts_problem_solve_finest(c->problem, b, &r, u);
  *iterations = r.iterations;
  return ierr;
}

/* One compared part of the solution: entries first..first+count-1. */
typedef struct solution_part {
  const char *name;
  int64_t first, count;
} solution_part;

/* The parts of the solution compared apart, one per field (named by the equation's
 * checks); returns how many. */
static int solution_parts(const check_context *c, solution_part *parts) {
  const check_equation *eq = c->eq;
  if (!c->pressure) {
    parts[0] = (solution_part){eq->solution_parts[0], 0, c->n};
    return 1;
  }
  parts[0] = (solution_part){eq->solution_parts[0], 0, c->n_velocity};
  parts[1] = (solution_part){eq->solution_parts[1], c->n_velocity, c->n - c->n_velocity};
  return 2;
}

/* The reason of a check that needs a level below the finest. */
static const char *no_coarser_level(const check_context *c, char *buf, size_t len) {
  if (c->set.level > 0)
    snprintf(buf, len, "the finest level %d has no coarser level in the multigrid hierarchy "
             "(coarse level %d)", c->set.level, c->set.mg.coarse_level);
  else
    snprintf(buf, len, "the finest level %d has no coarser level", c->set.level);
  return buf;
}

const char *check_needs_coarser_level(const check_context *c, char *buf, size_t len) {
  return c->n_coarse > 0 ? NULL : no_coarser_level(c, buf, len);
}

const char *check_needs_multigrid(const check_context *c, char *buf, size_t len) {
  return c->set.level > c->set.mg.coarse_level ? NULL : no_coarser_level(c, buf, len);
}

static void check_help(void) {
  printf("usage: tessera check FILE.xml --backend NAME [--against NAME] [--set PATH=VALUE ...]\n"
         "                    [--seed N] [--threads N]\n"
         "  Applies every operator of the problem on its finest level on both backends to the\n"
         "  same random vectors and compares max|a - r| / max|r| with 1e-12 (double) and 1e-5\n"
         "  (single, and the mixed-precision V-cycle).  Poisson: the Laplacian, the smoothers,\n"
         "  the transfers, the V-cycle.  Stokes: the Stokes operator, one step of the Stokes\n"
         "  vertex-patch smoother with each local solver (schur, direct; direct only for the\n"
         "  degrees it takes: 2D k <= 4, 3D k <= 1), the transfers, the V-cycle.  A check that\n"
         "  cannot run on the problem prints SKIP and why (no coarser level, degree too high).\n"
         "  Darcy and grad-div: the assembled saddle-point operator (double); name the AMG on\n"
         "  S~ (<preconditioner type=\"amg\">) for equal iteration counts across backends.\n"
         "  Then it solves on both as 'tessera run' does and compares the iteration counts\n"
         "  (equal within max(1, 2%%)) and the solutions (max-norm relative difference <=\n"
         "  max(1e-10, 1e3 rtol) in double, <= 1e-4 in single; Stokes: velocity and pressure\n"
         "  apart, the pressure with its mean removed).  One PASS/FAIL line per check; exit\n"
         "  code 1 if any fails.\n"
         "  --backend NAME   the backend to check (required)\n"
         "  --against NAME   the reference backend (default omp)\n"
         "  --set PATH=VALUE change an attribute of the problem file (as in 'tessera run')\n"
         "  --seed N         seed of the random vectors, 0..%llu (default 2024)\n"
         "  --threads N      host threads, 1..%d (default OMP_NUM_THREADS, else one per\n"
         "                   processor)\n", (unsigned long long)UINT64_MAX, ts_threads_max());
}

/* --seed: a decimal integer 0..UINT64_MAX (strtoull alone would take "-1" as UINT64_MAX). */
static int parse_seed(const char *v, uint64_t *seed) {
  char *end;
  errno = 0;
  *seed = strtoull(v, &end, 10);
  if (*v < '0' || *v > '9' || *end || errno)
    return cli_usage_error("check", "--seed %s: give an integer 0..%llu", v,
                           (unsigned long long)UINT64_MAX);
  return CLI_OK;
}

static int parse_check_options(int argc, char **argv, check_options *o, int *done) {
  memset(o, 0, sizeof *o);
  o->against = "omp";
  o->seed = 2024;
  *done = 0;
  o->overrides = malloc((size_t)argc * sizeof *o->overrides);
  if (!o->overrides) {
    fprintf(stderr, "tessera check: out of memory for %d options\n", argc);
    return CLI_ERROR;
  }
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      check_help();
      *done = 1;
      return CLI_OK;
    } else if (!strcmp(a, "--backend") || !strcmp(a, "--against") || !strcmp(a, "--set") ||
               !strcmp(a, "--seed") || !strcmp(a, "--threads")) {
      if (i + 1 >= argc) return cli_usage_error("check", "%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--backend")) {
        o->backend = v;
      } else if (!strcmp(a, "--against")) {
        o->against = v;
      } else if (!strcmp(a, "--seed")) {
        if (parse_seed(v, &o->seed)) return CLI_USAGE;
      } else if (!strcmp(a, "--threads")) {
        const int status = cli_threads_option("check", v);
        if (status) return status;
      } else {
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
  for (size_t q = 0; q < c->eq->n_checks && !ierr; ++q) {
    const check_entry *e = &c->eq->checks[q];
    if (e->applies && !e->applies(c)) continue;
    char why[160];
    const char *skip = e->needs ? e->needs(c, why, sizeof why) : NULL;
    if (skip) {
      printf("SKIP  %-25s %-6s  %s\n", e->name, ts_precision_name(e->precision), skip);
      continue;
    }
    int64_t n_b = 0, n_r = 0;
    ierr = e->run(c, b, e->precision, out_b, &n_b);
    if (!ierr) ierr = e->run(c, r, e->precision, out_r, &n_r);
    if (ierr) break;
    const double d = relative_difference(n_b, out_b, out_r), tol = tolerance(e->precision);
    const int pass = d <= tol;
    *failed += !pass;
    printf("%s  %-25s %-6s  relative difference %.3e  (tolerance %.0e)\n", pass ? "PASS" : "FAIL",
           e->name, ts_precision_name(e->precision), d, tol);
  }
  int it_b = 0, it_r = 0;
  ts_system_destroy(&c->system); /* each solve sets up its own */
  if (!ierr) ierr = solve_on(c, b, &it_b, out_b);
  if (!ierr) ierr = solve_on(c, r, &it_r, out_r);
  if (!ierr) {
    const int slack = it_r / 50 > 1 ? it_r / 50 : 1;
    const int pass = abs(it_b - it_r) <= slack;
    *failed += !pass;
    printf("%s  %-25s %-6s  %s %d, %s %d iterations  (allowed difference %d)\n",
           pass ? "PASS" : "FAIL", "solve iterations", ts_precision_name(c->set.precision),
           o->backend, it_b, o->against, it_r, slack);
    double tol = c->set.precision == TS_SINGLE ? 1e-4 : 1e3 * c->set.rtol;
    if (tol < 1e-10) tol = 1e-10;
    solution_part parts[2];
    const int n_parts = solution_parts(c, parts);
    for (int i = 0; i < n_parts; ++i) {
      const double d = relative_difference(parts[i].count, out_b + parts[i].first,
                                           out_r + parts[i].first);
      const int spass = d <= tol;
      *failed += !spass;
      printf("%s  %-25s %-6s  relative difference %.3e  (tolerance %.0e)\n",
             spass ? "PASS" : "FAIL", parts[i].name, ts_precision_name(c->set.precision), d, tol);
    }
  }
  free(out_b);
  free(out_r);
  return ierr;
}

/* The problem's settings (its mesh and element are not needed: the system makes its own). */
static int context_settings(check_context *c) {
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  const int ierr = ts_problem_discretization(c->problem, &c->set, &mesh, &fe);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  return ierr;
}

/* The finest level's system on backend r, its DoFs, and the DoF count of the level below it
 * when the transfer checks can use it. */
static int context_setup(check_context *c, ts_backend r) {
  const int L = c->set.level;
  TS_CALL(ts_system_create(c->problem, r, L, &c->system));
  c->dofs = ts_system_dofs(c->system, 0);
  c->pressure = ts_system_fields(c->system) > 1 ? ts_system_dofs(c->system, 1) : NULL;
  c->n = ts_operator_size(ts_system_operator(c->system));
  c->n_velocity = c->n - (c->pressure ? ts_dofs_count(c->pressure) : 0);
  c->transfer_coarse_level = c->eq->transfers_from_coarse_level ? c->set.mg.coarse_level : L - 1;
  if (L - 1 >= c->transfer_coarse_level && L > 0)
    TS_CALL(ts_problem_level_dofs(c->problem, L - 1, &c->n_coarse));
  return 0;
}

static void print_check_header(const check_options *o, const check_context *c, ts_backend b,
                               ts_backend r) {
  printf("# tessera %s check: problem '%s', %dD, ", ts_version(), ts_problem_name(c->problem),
         c->set.dim);
  c->eq->print_discretization(c);
  printf("# backend %s: %s\n# against %s: %s\n", o->backend, ts_backend_description(b),
         o->against, ts_backend_description(r));
  fflush(stdout);
}

int cli_check(int argc, char **argv) {
  check_options o;
  int done, status = parse_check_options(argc, argv, &o, &done);
  if (status || done) {
    free(o.overrides);
    return status;
  }
  check_context c;
  memset(&c, 0, sizeof c);
  c.seed = o.seed;
  ts_backend b = NULL, r = NULL;
  int failed = 0;
  int ierr = ts_problem_read_xml(o.file, o.n_overrides, o.overrides, &c.problem);
  if (!ierr) ierr = context_settings(&c);
  if (!ierr && !(c.eq = check_equation_of(c.problem))) {
    fprintf(stderr, "tessera check: the equation '%s' has no checks (src/check-registry.c)\n",
            ts_problem_equation(c.problem));
    ts_problem_destroy(&c.problem);
    free(o.overrides);
    return CLI_ERROR;
  }
  if (!ierr) ierr = ts_backend_open(o.backend, &b);
  if (!ierr) ierr = ts_backend_open(o.against, &r);
  /* the device memory is estimated before anything is allocated */
  size_t avail = 0;
  if (!ierr) ierr = ts_backend_memory_available(b, &avail);
  if (!ierr) ierr = ts_problem_check_memory(c.problem, avail);
  if (!ierr) ierr = ts_backend_memory_available(r, &avail);
  if (!ierr) ierr = ts_problem_check_memory(c.problem, avail);
  if (!ierr) ierr = context_setup(&c, r);
  if (!ierr) {
    print_check_header(&o, &c, b, r);
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
  ts_system_destroy(&c.system);
  ts_problem_destroy(&c.problem);
  free(o.overrides);
  return status;
}
