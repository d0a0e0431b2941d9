/* cli-bench-mg.c -- `tessera bench --mg`: the multigrid solver per degree on the unit box,
 * with one coarse cell refined L times.  Poisson (paper 002, section 5): f = 1; the time of
 * one smoothing step on the finest level, of one V-cycle (the preconditioner application,
 * all levels), of GMRES preconditioned by the V-cycle to a relative residual of 1e-6, and of
 * full multigrid to 1e-9 (Algorithm 2.2).  Stokes (--problem stokes; paper 000, RT_k x
 * DGQ_k, doc/stokes.md): the manufactured solution "paper000", coarse level 1; one step of
 * the Stokes vertex-patch smoother, one V-cycle, and GMRES(30) + V-cycle to 1e-8 (the time
 * to solution; no FMG).  With counted operations and memory traffic for the fractions of
 * the ceilings.  Taylor-Hood (--problem taylor-hood; papers 001/004, Q_k x Q_{k-1},
 * doc/taylor-hood.md): the manufactured solution "paper004", coarse level 1; one step of the
 * chosen relaxation (Vanka, Braess-Sarazin, Schur-Uzawa), one coupled V(1,1)-cycle, and
 * FGMRES(30) + V-cycle to 1e-8 (at most 300 iterations: Schur-Uzawa needs 125 at 1024^2).
 *
 * Counted operations (FMAs count 2 flops) of one vertex-patch step, per patch with
 * N = 2k+1 closed-patch and m = 2k-1 interior points per direction, the 1D products dense:
 *   3D  residual 2 m N^3 + 3 m^2 N^2 + 2 m^3 N FMAs, fast diagonalization 6 m^4 + m^3;
 *   2D  residual 2 m N^2 + 2 m^2 N FMAs,             fast diagonalization 4 m^3 + m^2;
 * counted traffic per patch: the closed patch of x read, b and x on the interior read and
 * written ((N^d + 2 m^d) scalars).  A Chebyshev step of degree s counts s Laplacians and 5
 * vector accesses per DoF and product.  A Stokes patch step counts lower bounds (as
 * bench/bench-stokes.c): the 2^dim applications of the Stokes operator for the residual of
 * each color (its local solves, whose pressure CG runs a data-dependent number of steps,
 * are not counted), and per color the operator's and the patch pass's minimum traffic (read
 * x and b, write r; read r, read and write x: 6 n scalars).  A V-cycle counts, per level
 * below the coarsest, two smoothing steps, the residual (one operator application, 3 vector
 * accesses per DoF) and both transfers (coarse and fine vector read and written once each).
 * A Taylor-Hood relaxation step counts lower bounds as a Stokes patch step does with one
 * color (multiplicative Vanka: 4^dim), the residual's operator application and 6 n scalars;
 * Vanka adds its patch products, 2 P^2 flops per pressure vertex (P = dim 5^dim + 1 patch
 * DoFs; the patch matrices, P^2 entries per kind of patch, are left out). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"


/* Waits for the device (asynchronous backends): a dot product returns a scalar to the host. */
static int wait_device(ts_vec one) {
  double dummy;
  return ts_vec_dot(one, one, &dummy);
}


/* Lower bounds of the flops and bytes of one Taylor-Hood relaxation step on a level with n DoFs,
 * `cells` cells per direction and degree k (see the header). */
static void taylor_hood_smoothing_counts(int dim, int k, int64_t cells, int64_t n,
                                         double operator_flops, const ts_mg_options *o,
                                         double *flops, double *bytes) {
  const int vanka = o->smoother == TS_MG_SMOOTHER_VANKA;
  const double passes = vanka && o->relaxation.multiplicative ? pow(4.0, dim) : 1.0;
  *flops = passes * operator_flops;
  *bytes = passes * 6.0 * (double)n * (double)ts_precision_size(o->precision);
  if (vanka) {
    const double patch = dim * pow(5.0, dim) + 1.0;
    *flops += 2.0 * patch * patch * pow((double)(cells * (k - 1) + 1), dim);
  }
}

/* Counted flops and bytes of one smoothing step on a level with `cells` cells per
 * direction and n DoFs (see the header). */
static void smoothing_counts(int dim, int k, int64_t cells, int64_t n, double laplace_flops,
                             int mapped, const ts_mg_options *o, double *flops, double *bytes) {
  const double size = (double)ts_precision_size(o->precision);
  if (o->smoother == TS_MG_SMOOTHER_CHEBYSHEV) {
    *flops = o->chebyshev_degree * (laplace_flops + 6.0 * (double)n);
    *bytes = o->chebyshev_degree * 5.0 * (double)n * size;
    return;
  }
  if (mapped) { /* Chebyshev on P A: per product also P (a patch per cell, about n / k^dim) */
    const double m = 2 * k - 1, patches = (double)n / pow(k, dim), local = pow(m, dim);
    const double p_flops = patches * (4.0 * dim * local * m + 3.0 * local);
    const double p_bytes = patches * (3.0 * local + dim * (m * m + m) + pow(3, dim));
    *flops = o->chebyshev_degree * (laplace_flops + 6.0 * (double)n + p_flops);
    *bytes = o->chebyshev_degree * (5.0 * (double)n + p_bytes) * size;
    return;
  }
  const double N = 2 * k + 1, m = 2 * k - 1;
  const double patches = pow((double)(cells - 1), dim);
  const double fma = dim == 3 ? 2 * m * N * N * N + 3 * m * m * N * N + 2 * m * m * m * N +
                                    6 * m * m * m * m + m * m * m
                              : 2 * m * N * N + 2 * m * m * N + 4 * m * m * m + m * m;
  *flops = 2.0 * fma * patches;
  *bytes = (pow(N, dim) + 2.0 * pow(m, dim)) * patches * size;
}

/* Lower bounds of the flops and bytes of one Stokes smoothing step on a level with n DoFs
 * whose operator application counts operator_flops (see the header). */
static void stokes_smoothing_counts(int dim, int64_t n, double operator_flops,
                                    const ts_mg_options *o, double *flops, double *bytes) {
  const double colors = dim == 3 ? 8.0 : 4.0;
  *flops = colors * operator_flops;
  *bytes = colors * 6.0 * (double)n * (double)ts_precision_size(o->precision);
}

/* Counted flops and bytes of one smoothing step on the finest level and of one V-cycle. */
static void vcycle_counts(ts_mg mg, const cli_bench_mg_config *c, int k, cli_bench_mg_result *r) {
  const ts_mg_options *o = &c->options;
  const double size = (double)ts_precision_size(o->precision);
  const int coarse = o->coarse_level; /* the mesh levels (degree levels below it not counted) */
  r->vcycle_flops = r->vcycle_bytes = 0;
  for (int l = coarse + 1; l <= r->level; ++l) {
    ts_operator A = ts_mg_level_operator(mg, l);
    const int64_t n = ts_operator_size(A), cells = (int64_t)1 << l;
    const int64_t nc = ts_operator_size(ts_mg_level_operator(mg, l - 1));
    double f, b;
    if (c->problem == CLI_PROBLEM_STOKES)
      stokes_smoothing_counts(c->dim, n, ts_operator_flops(A), o, &f, &b);
    else if (c->problem == CLI_PROBLEM_TAYLOR_HOOD)
      taylor_hood_smoothing_counts(c->dim, k, cells, n, ts_operator_flops(A), o, &f, &b);
    else
      smoothing_counts(c->dim, k, cells, n, ts_operator_flops(A), c->kershaw > 0, o, &f, &b);
    if (l == r->level) {
      r->smooth_flops = f;
      r->smooth_bytes = b;
    }
    r->vcycle_flops += 2 * f + ts_operator_flops(A);
    r->vcycle_bytes += 2 * b + (3.0 * (double)n + 2.0 * (double)(n + nc)) * size;
  }
}

/* Device memory the benchmark allocates, estimated before it does: the hierarchy (about
 * 8/7 of the finest level in 3D, 4/3 in 2D, 6 vectors per level in the level precision;
 * under mixed precision 3 double vectors on the coarser levels, 1/7 or 1/3 of the finest),
 * the finest level's double vectors (multigrid 2, benchmark 4, flexible GMRES 2 restart + 1). */
static double memory_need(const cli_bench_mg_config *c, int64_t n) {
  const ts_mg_options *o = &c->options;
  const double levels = c->dim == 3 ? 8.0 / 7.0 : 4.0 / 3.0;
  const double coarser = o->precision == TS_DOUBLE ? 0.0 : 3.0 * (levels - 1.0) * sizeof(double);
  return (double)n * (levels * 6.0 * (double)ts_precision_size(o->precision) + coarser +
                      (6.0 + 2 * c->restart + 1) * sizeof(double));
}

/* TS_ERR_MEMORY, with the message printed here (r->reported), when it does not fit. */
static int check_memory(ts_backend b, const cli_bench_mg_config *c, int k, cli_bench_mg_result *r) {
  size_t avail = 0;
  int ierr = ts_backend_memory_available(b, &avail);
  const double need = memory_need(c, r->dofs);
  if (!ierr && need > 0.9 * (double)avail) {
    fprintf(stderr,
            "tessera: error: bench --mg: degree %d with %lld DoFs needs about %.3g GiB but "
            "backend '%s' has %.3g GiB available; lower --dofs\n",
            k, (long long)r->dofs, need / 1073741824.0, ts_backend_name(b),
            (double)avail / 1073741824.0);
    r->reported = 1;
    return TS_ERR_MEMORY;
  }
  return ierr;
}

/* The finest level L whose size per direction is closest to the target's (in log2): at
 * least 1 (Poisson), or 2 (Stokes, Taylor-Hood: the coarse level is 1, and the finest needs a
 * level to smooth on). */
static int finest_level(const cli_bench_mg_config *c, int k) {
  if (c->kershaw > 0) { /* 6 x 2 (x 2) coarse cells: (6 2^L k + 1)(2 2^L k + 1)(..) DoFs */
    int best = 1;
    for (int L = 1; L <= 12; ++L) {
      const double m = (double)(1 << L) * k;
      const double dofs = (6 * m + 1) * (2 * m + 1) * (c->dim == 3 ? 2 * m + 1 : 1);
      const double m_best = (double)(1 << best) * k;
      const double best_dofs = (6 * m_best + 1) * (2 * m_best + 1) * (c->dim == 3 ? 2 * m_best + 1 : 1);
      if (fabs(log(dofs / c->target_dofs)) < fabs(log(best_dofs / c->target_dofs))) best = L;
    }
    return best;
  }
  if (c->problem == CLI_PROBLEM_TAYLOR_HOOD) { /* dim (2^L k + 1)^dim + (2^L (k-1) + 1)^dim */
    int best = 2;
    double best_error = INFINITY;
    for (int L = 2; L <= 13; ++L) {
      const double cells = (double)(1 << L);
      const double dofs = c->dim * pow(cells * k + 1, c->dim) + pow(cells * (k - 1) + 1, c->dim);
      const double error = fabs(log(dofs / c->target_dofs));
      if (error < best_error) best = L, best_error = error;
    }
    return best;
  }
  if (c->problem == CLI_PROBLEM_STOKES) {
    const double per_dir = pow(c->target_dofs / (c->dim + 1), 1.0 / c->dim);
    return (int)fmax(2.0, round(log2(fmax(1.0, per_dir / (k + 1)))));
  }
  const double per_dir = pow(c->target_dofs, 1.0 / c->dim);
  return (int)fmax(1.0, round(log2(fmax(1.0, (per_dir - 1.0) / k))));
}

const char *cli_relaxation_word(ts_mg_smoother_type type) {
  return type == TS_MG_SMOOTHER_VANKA           ? "vanka"
         : type == TS_MG_SMOOTHER_BRAESS_SARAZIN ? "braess-sarazin"
         : type == TS_MG_SMOOTHER_SCHUR_UZAWA    ? "schur-uzawa"
                                                 : NULL;
}

/* The multigrid attributes of the benchmark's problem: the smoother (Poisson) or the local
 * solver and a coarse level of at least 1 (Stokes: one coarse cell has no interior vertex). */
static void mg_attributes(const cli_bench_mg_config *c, int k, char *buf, size_t len) {
  const ts_mg_options *o = &c->options;
  char degree[16] = "auto"; /* --coarse-degree N: min(N, k) */
  if (o->coarse_degree != TS_MG_COARSE_DEGREE_AUTO)
    snprintf(degree, sizeof degree, "%d", o->coarse_degree < k ? o->coarse_degree : k);
  if (c->problem == CLI_PROBLEM_TAYLOR_HOOD)
    snprintf(buf, len, "smoother=\"%s\" coarse-level=\"1\"", cli_relaxation_word(o->smoother));
  else if (c->problem == CLI_PROBLEM_STOKES)
    snprintf(buf, len, "local-solver=\"%s\" coarse-level=\"%d\"",
             o->stokes_solver == TS_STOKES_PATCH_DIRECT ? "direct" : "schur",
             o->coarse_level < 1 ? 1 : o->coarse_level);
  else
    snprintf(buf, len, "smoother=\"%s\" variant=\"%s\" coarse-level=\"%d\" coarse-degree=\"%s\"",
             o->smoother == TS_MG_SMOOTHER_CHEBYSHEV ? "chebyshev" : "vertex-patch",
             o->variant == TS_PATCH_SEPARATE ? "separate" : "fused", o->coarse_level,
             degree);
}

/* What the benchmark solves, as a problem description whose equation's builder makes the
 * hierarchy, the right side and GMRES + V-cycle (ts_system, as `tessera run` would): the
 * unit box of one coarse cell refined L times; Poisson Q_k with f = 1, Stokes RT_k x DGQ_k
 * with the manufactured solution "paper000", Taylor-Hood Q_k x Q_{k-1} with "paper004" and
 * FGMRES. */
static int bench_problem(const cli_bench_mg_config *c, int k, int L, ts_problem *p) {
  const int stokes = c->problem == CLI_PROBLEM_STOKES;
  const int taylor_hood = c->problem == CLI_PROBLEM_TAYLOR_HOOD;
  char mg[160], xml[1024];
  mg_attributes(c, k, mg, sizeof mg);
  if (c->kershaw > 0) { /* your own problem f = 1 on Kershaw's mesh (poisson-own.c) */
    snprintf(xml, sizeof xml,
             "<tessera-problem name=\"bench-mg-kershaw\">"
             "<mesh dim=\"%d\" map=\"kershaw\" epsilon=\"%.17g\" cells=\"%s\" levels=\"%d\"/>"
             "<element family=\"Q\" degree=\"%d\"/><poisson f=\"1\"/>"
             "<solver type=\"gmres\" preconditioner=\"mg\" rtol=\"%.17g\" max-iterations=\"100\" "
             "restart=\"%d\"/><multigrid precision=\"%s\" %s/></tessera-problem>",
             c->dim, c->kershaw, c->dim == 3 ? "6 2 2" : "6 2", L, k, c->rtol, c->restart,
             c->options.precision == TS_SINGLE ? "mixed" : "double", mg);
    return ts_problem_read_string("bench --mg --kershaw", xml, p);
  }
  snprintf(xml, sizeof xml,
           "<tessera-problem name=\"bench-mg\">"
           "<mesh dim=\"%d\" lower=\"%s\" upper=\"%s\" cells=\"%s\" levels=\"%d\"/>"
           "<element family=\"%s\" degree=\"%d\"/>%s"
           "<solver type=\"%s\" preconditioner=\"mg\" rtol=\"%.17g\" max-iterations=\"%d\" "
           "restart=\"%d\"/><multigrid precision=\"%s\" %s/></tessera-problem>",
           c->dim, c->dim == 3 ? "0 0 0" : "0 0", c->dim == 3 ? "1 1 1" : "1 1",
           c->dim == 3 ? "1 1 1" : "1 1", L, stokes ? "RT" : taylor_hood ? "taylor-hood" : "Q", k,
           stokes        ? "<stokes solution=\"paper000\"/>"
           : taylor_hood ? "<stokes solution=\"paper004\"/>"
                         : "<poisson solution=\"none\" rhs=\"one\"/>",
           taylor_hood ? "fgmres" : "gmres", c->rtol, taylor_hood ? 300 : 100, c->restart,
           c->options.precision == TS_SINGLE ? "mixed" : "double", mg);
  return ts_problem_read_string("bench --mg", xml, p);
}

/* GMRES(restart) preconditioned by one V-cycle, from x = 0 to the configured rtol. */
static int gmres_solve(ts_solver s, ts_vec b, ts_vec x, int *iterations) {
  int ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_solver_solve(s, b, x);
  *iterations = ts_solver_iterations(s);
  return ierr;
}

static int fmg_solve(ts_mg mg, ts_vec b, ts_vec x, int *iterations) {
  double rel;
  int ierr = ts_vec_set(x, 0.0);
  if (!ierr) ierr = ts_mg_fmg_solve(mg, b, x, 1e-9, 100, iterations, &rel);
  return ierr;
}

/* --verbose: the phase that just ended and the seconds since t0 on stderr */
static void progress(const cli_bench_mg_config *c, int k, const char *phase, double t0) {
  if (!c->verbose) return;
  fprintf(stderr, "# k %d: %s done after %.1f s\n", k, phase, ts_wtime() - t0);
  fflush(stderr);
}

/* Time a smoothing step, a V-cycle, GMRES + V-cycle and (Poisson) FMG on the system. */
static int time_system(ts_backend b, const cli_bench_mg_config *c, int k, ts_system sys,
                       cli_bench_mg_result *r, double t0) {
  const ts_precision level_precision = c->options.precision;
  const int L = r->level;
  ts_mg mg = ts_system_mg(sys);
  ts_solver s = ts_system_solver(sys);
  ts_vec rhs = ts_system_rhs(sys), x = NULL, y = NULL, one = NULL, bs = NULL, xs = NULL;
  const int64_t n = ts_operator_size(ts_mg_operator(mg));
  int ierr = ts_vec_create(b, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(b, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(b, 1, TS_DOUBLE, &one);
  /* one smoothing step on the finest level, in the V-cycle precision */
  if (!ierr) ierr = ts_vec_create(b, n, level_precision, &bs);
  if (!ierr) ierr = ts_vec_create(b, n, level_precision, &xs);
  if (!ierr) ierr = ts_vec_copy(rhs, bs);
  if (!ierr) ierr = ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs); /* warm up */
  if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->smooth_seconds, ierr,
                             ts_smoother_apply(ts_mg_smoother(mg, L), bs, xs));
  ts_vec_destroy(&bs);
  ts_vec_destroy(&xs);
  progress(c, k, "smoothing steps", t0);
  /* one V-cycle */
  if (!ierr) ierr = ts_operator_apply(ts_mg_preconditioner(mg), rhs, y);
  if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->vcycle_seconds, ierr,
                             ts_operator_apply(ts_mg_preconditioner(mg), rhs, y));
  progress(c, k, "V-cycles", t0);
  /* GMRES + V-cycle to rtol (the system's solver) */
  if (!ierr) ierr = gmres_solve(s, rhs, x, &r->gmres_iterations);
  if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->gmres_seconds, ierr,
                             gmres_solve(s, rhs, x, &r->gmres_iterations));
  progress(c, k, "GMRES solves", t0);
  /* full multigrid to 1e-9 (Poisson on the box: on Kershaw's mesh the stationary cycle
   * contracts by 0.8 to 0.86 only, doc/multigrid.md, and GMRES is the solve) */
  if (!ierr && c->problem == CLI_PROBLEM_POISSON && c->kershaw == 0) {
    ierr = fmg_solve(mg, rhs, x, &r->iterations);
    if (!ierr) CLI_TIME_BEST(c->min_seconds, 3, c->repeat, wait_device(one), r->solve_seconds, ierr,
                             fmg_solve(mg, rhs, x, &r->iterations));
  }
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&one);
  return ierr;
}

int cli_bench_mg_degree(ts_backend b, const cli_bench_mg_config *c, int k,
                        cli_bench_mg_result *r) {
  ts_problem problem = NULL;
  ts_system sys = NULL;
  const double t0 = ts_wtime();
  r->level = finest_level(c, k);
  int ierr = bench_problem(c, k, r->level, &problem);
  if (!ierr) ierr = ts_problem_level_dofs(problem, r->level, &r->dofs);
  if (!ierr) ierr = check_memory(b, c, k, r);
  if (!ierr) ierr = ts_system_create(problem, b, r->level, &sys);
  if (!ierr) {
    progress(c, k, "setup (hierarchy and right side)", t0);
    r->dofs = ts_operator_size(ts_system_operator(sys));
    vcycle_counts(ts_system_mg(sys), c, k, r);
    ierr = time_system(b, c, k, sys, r, t0);
  }
  ts_system_destroy(&sys);
  ts_problem_destroy(&problem);
  return ierr;
}
