/* cli-bench.c -- `tessera bench`: throughput of the matrix-free system operator on a backend,
 * per degree, at a chosen problem size: ns/DoF, GDoF/s and GFLOP/s from counted operations,
 * with the fractions of the ceilings measured in the same run.  The operator is the Q_k
 * Laplacian (--problem poisson, the default) or the Stokes operator of RT_k x DGQ_k
 * (--problem stokes; doc/stokes.md), whose DoFs are velocity + pressure.  --mg times the
 * multigrid solver instead (cli-bench-mg.c); --problem mass-inverse the DG mass inverse of
 * paper 003, Table 1 (cli-bench-mass-inverse.c); --problem darcy the parts of a MINRES
 * iteration of its Darcy solver, Figure 8 (cli-bench-darcy.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define BENCH_MAX_DEGREES 32

typedef struct bench_options {
  const char *backend;
  cli_problem problem;
  int dim, json;
  int degrees[BENCH_MAX_DEGREES], n_degrees; /* 0: the problem's default */
  int ceilings; /* measure the ceilings and print fractions of them */
  double dofs, min_seconds;
  ts_precision precision;
  int mg;                /* --mg and its options */
  ts_mg_options mg_options;
  double rtol;           /* --mg: of the GMRES solve (0: the problem's default) */
  int restart;           /* --mg: of the GMRES solve (0: the problem's default) */
  int verbose;           /* --mg: progress of each phase on stderr */
  const char *poisson_only, *stokes_only; /* an option given that the other problem lacks */
  double kershaw;        /* --kershaw EPS: the operator on Kershaw's mesh (0: the box) */
  int smoother_given;    /* --smoother was given */
  const char *smoother_text; /* its value */
  int repeat;            /* timing windows per figure; the best counts */
  const char *baseline;  /* --baseline FILE */
  double noise;          /* --noise: allowed slow-down against the baseline, a fraction */
  cli_baseline *base;    /* the baseline read */
  char device[128];      /* the device model of the backend ("device" in the JSON rows) */
  int dofs_given;        /* --dofs was given (mass-inverse's default is 1.7e6) */
  double tolerance;      /* mass-inverse: the local CG tolerance */
  int dense_max_degree;  /* mass-inverse: explicit and Cholesky up to this degree */
  const char *mass_inverse_only; /* an option of --problem mass-inverse given for another */
} bench_options;

static void bench_help(void) {
  printf("usage: tessera bench [options]\n"
         "  --problem poisson|stokes|taylor-hood|mass-inverse|darcy  the operator: the Q_k\n"
         "                         Laplacian (default), the Stokes operator of RT_k x DGQ_k, or of\n"
         "                         Taylor-Hood Q_k x Q_{k-1} (DoFs: velocity + pressure), or the\n"
         "                         DG mass inverse of paper 003, Table 1 (DGQ_k on Kershaw's mesh,\n"
         "                         epsilon --kershaw, default 0.5; --dofs default 1.7e6; degrees\n"
         "                         0..9, default 1-8; every method: setup, local CG iterations,\n"
         "                         100 applications), or paper 003's Darcy solver, Figure 8 (the\n"
         "                         smooth Darcy problem, RT_k x DGQ_k on the box level nearest\n"
         "                         --dofs, default 1e6; degrees 0..9, default 1-4: MINRES + diag(\n"
         "                         Jacobi, AMG(S~)) to 1e-12, then each part of an iteration in\n"
         "                         ns/DoF)\n"
         "  --tolerance T          mass-inverse: the local CG tolerance (default 1e-12)\n"
         "  --dense-max-degree K   mass-inverse: the explicit and Cholesky methods up to degree K\n"
         "                         (default 8; n^2 values per cell)\n"
         "  --backend NAME         backend to measure (default omp)\n"
         "  --dim 2|3              dimension (default 3)\n"
         "  --degrees LIST         degrees K, K1-K2 or K1,K2,... (default 1-8; Poisson 1..10,\n"
         "                         Stokes 0..9, Stokes default 1-4, Taylor-Hood 2..10, default 2-4)\n"
         "  --dofs N               approximate DoFs per problem (default 4e6)\n"
         "  --kershaw EPS          the Laplacian on Kershaw's mesh with epsilon EPS in (0, 1]\n"
         "                         (the operator on mapped cells; with --mg its multigrid, by\n"
         "                         default with the Chebyshev smoother; not with --problem stokes)\n"
         "  --precision double|single (default double)\n"
         "  --seconds S            minimum measuring time per degree (default 1)\n"
         "  --json                 one JSON object per degree\n"
         "  --repeat N             time each figure in N windows of --seconds and report the\n"
         "                         best (default 1; baselines use 3)\n"
         "  --baseline FILE        compare every time per DoF and iteration count with the\n"
         "                         row of FILE (JSON lines of `bench --json`, e.g.\n"
         "                         bench/baselines/) measured on the same device, kernel,\n"
         "                         dimension, degree, precision, smoother and DoFs (the\n"
         "                         last such row of the file); exit 4\n"
         "                         when a time is slower than the baseline by more than\n"
         "                         --noise or an iteration count is higher\n"
         "  --noise PCT            the noise margin of --baseline in percent (default 10)\n"
         "  --threads N            host threads, 1..%d (default OMP_NUM_THREADS, else one\n"
         "                         per processor; small sizes run on fewer)\n"
         "  --no-ceilings          do not measure the backend's ceilings (copy bandwidth,\n"
         "                         FP64/FP32 FMA peak) nor print the fractions of them\n"
         "  --mg                   the multigrid solver instead (unit box, one coarse cell):\n"
         "                         one smoothing step, one V-cycle and GMRES + V-cycle to\n"
         "                         --rtol: ns/DoF, counted GFLOP/s, fractions.  Poisson: f = 1,\n"
         "                         GMRES(%d) to 1e-6, and full multigrid to 1e-9.  Stokes: the\n"
         "                         manufactured solution paper000, coarse level 1, the Stokes\n"
         "                         vertex-patch smoother, GMRES(%d) to 1e-8 (time to solution).\n"
         "                         Taylor-Hood: the manufactured solution paper004, coarse\n"
         "                         level 1, the coupled V(1,1) with --smoother, FGMRES(%d)\n"
         "                         to 1e-8 (time to solution)\n"
         "  --mg-precision double|mixed        (--mg; default double)\n"
         "  --rtol R               (--mg) relative residual of the GMRES solve, (0, 1)\n"
         "  --verbose              (--mg) the time of each phase (setup, smoothing, V-cycle,\n"
         "                         solves) on stderr as it ends\n"
         "  --restart M            (--mg) GMRES restart length, 1..1000 (default %d Poisson,\n"
         "                         %d Stokes; the flexible form keeps 2M + 1 vectors)\n"
         "  --smoother vertex-patch|chebyshev  (--mg, Poisson; default vertex-patch)\n"
         "  --smoother vanka|braess-sarazin|schur-uzawa  (--mg, Taylor-Hood: the relaxation,\n"
         "                         default braess-sarazin; Vanka additive, degree 2 only)\n"
         "  --coarse-degree N      (--mg, Poisson) the coarsest level's degree, min(N, k) (default\n"
         "                         automatic: doc/multigrid.md, \"The coarse level\")\n"
         "  --variant separate|fused           (--mg, Poisson; default fused)\n"
         "  --local-solver schur|direct        (--mg, Stokes: the patch smoother's local solver;\n"
         "                                     default schur; direct: 2D k <= 4, 3D k <= 1)\n"
         "The fraction of the copy bandwidth counts the least traffic of y = A x: x read\n"
         "and y written once (2 scalars per DoF).\n"
         "Under mpirun -np N (N > 1): the distributed Q_k Laplacian on the box of one level-0\n"
         "cell per process and direction refined to about --dofs DoFs, per degree: one\n"
         "application and its interface sums, or with --mg full multigrid to 1e-9 (the\n"
         "V-cycle of --smoother vertex-patch or chebyshev, in --mg-precision double or\n"
         "mixed, coarse LU) and the shares of a solve spent in halo\n"
         "exchanges, reductions and the coarse solve; the total (the slowest process) and each\n"
         "process's owned DoFs and own time (doc/parallel.md); no GMRES solve (--rtol,\n"
         "--restart).  With --problem stokes: the Stokes operator and its ghost refresh,\n"
         "or with --mg GMRES (--restart, --rtol) + V-cycle from coarse level 1 for the\n"
         "right side A u (u a V-cycle of a random vector).  Other problems and options are\n"
         "refused.\n",
         ts_threads_max(), CLI_BENCH_GMRES_RESTART, CLI_BENCH_STOKES_GMRES_RESTART,
         CLI_BENCH_STOKES_GMRES_RESTART, CLI_BENCH_GMRES_RESTART, CLI_BENCH_STOKES_GMRES_RESTART);
}

/* --degrees: "K", "K1-K2" or a comma list of them, into o->degrees (range checked later). */
static int parse_degrees(const char *s, bench_options *o) {
  o->n_degrees = 0;
  const char *at = s;
  for (;;) {
    char *end;
    long a = strtol(at, &end, 10), b = a;
    if (end == at) return 1;
    if (*end == '-') {
      at = end + 1;
      b = strtol(at, &end, 10);
      if (end == at) return 1;
    }
    if (a > b || a < 0 || b > 99) return 1;
    for (long k = a; k <= b; ++k) {
      if (o->n_degrees == BENCH_MAX_DEGREES) return 1;
      o->degrees[o->n_degrees++] = (int)k;
    }
    if (!*end) return 0;
    if (*end != ',') return 1;
    at = end + 1;
  }
}

/* The degrees each problem allows, and its default list. */
static void degree_range(cli_problem p, int *lowest, int *highest) {
  const int rt = p == CLI_PROBLEM_STOKES || p == CLI_PROBLEM_MASS_INVERSE || p == CLI_PROBLEM_DARCY;
  *lowest = rt ? 0 : p == CLI_PROBLEM_TAYLOR_HOOD ? 2 : 1;
  *highest = rt ? 9 : 10;
}

/* Checks that need every option: the degrees against the problem, options of one problem. */
static int finish_bench_options(bench_options *o, const char *degrees_text) {
  const char *name = o->problem == CLI_PROBLEM_STOKES         ? "stokes"
                     : o->problem == CLI_PROBLEM_TAYLOR_HOOD  ? "taylor-hood"
                     : o->problem == CLI_PROBLEM_MASS_INVERSE ? "mass-inverse"
                     : o->problem == CLI_PROBLEM_DARCY        ? "darcy"
                                                              : "poisson";
  const int mass_inverse = o->problem == CLI_PROBLEM_MASS_INVERSE;
  if (o->problem == CLI_PROBLEM_DARCY &&
      (o->mg || o->poisson_only || o->stokes_only || o->mass_inverse_only || o->kershaw > 0 ||
       o->precision == TS_SINGLE || o->baseline || o->smoother_given))
    return cli_usage_error("bench", "%s does not apply to --problem darcy",
                           o->mg ? "--mg" : o->poisson_only ? o->poisson_only
                           : o->stokes_only ? o->stokes_only
                           : o->mass_inverse_only ? o->mass_inverse_only
                           : o->kershaw > 0 ? "--kershaw"
                           : o->precision == TS_SINGLE ? "--precision single"
                           : o->baseline ? "--baseline" : "--smoother");
  if (o->problem == CLI_PROBLEM_DARCY && !o->dofs_given) o->dofs = 1e6;
  if (mass_inverse && (o->mg || o->poisson_only || o->stokes_only))
    return cli_usage_error("bench", "%s does not apply to --problem mass-inverse",
                           o->mg ? "--mg" : o->poisson_only ? o->poisson_only : o->stokes_only);
  if (!mass_inverse && o->problem != CLI_PROBLEM_DARCY && o->mass_inverse_only)
    return cli_usage_error("bench", "%s applies to --problem mass-inverse only", o->mass_inverse_only);
  if (mass_inverse && o->kershaw == 0) o->kershaw = 0.5;
  if (mass_inverse && !o->dofs_given) o->dofs = 1.7e6;
  if (o->problem == CLI_PROBLEM_TAYLOR_HOOD && (o->kershaw > 0 || o->poisson_only ||
                                                o->stokes_only))
    return cli_usage_error("bench", "%s applies to --problem %s only",
                           o->kershaw > 0 ? "--kershaw" : o->poisson_only ? o->poisson_only
                                                                          : o->stokes_only,
                           o->stokes_only ? "stokes" : "poisson");
  if (o->problem == CLI_PROBLEM_TAYLOR_HOOD && o->smoother_given && !o->mg)
    return cli_usage_error("bench", "--smoother applies to --mg only");
  if (o->problem == CLI_PROBLEM_STOKES && o->smoother_given)
    return cli_usage_error("bench", "--smoother applies to --problem poisson or taylor-hood (the "
                           "Stokes multigrid has its own smoother: see --local-solver)");
  if (o->smoother_given) { /* Poisson: vertex-patch or chebyshev; Taylor-Hood: a relaxation */
    const int relaxation = cli_relaxation_word(o->mg_options.smoother) != NULL;
    if (relaxation != (o->problem == CLI_PROBLEM_TAYLOR_HOOD))
      return cli_usage_error("bench", "--smoother %s: allowed %s for --problem %s",
                             o->smoother_text, relaxation ? "vertex-patch or chebyshev"
                             : "vanka, braess-sarazin or schur-uzawa", name);
  } else if (o->problem == CLI_PROBLEM_TAYLOR_HOOD) {
    o->mg_options.smoother = TS_MG_SMOOTHER_BRAESS_SARAZIN;
  }
  if (o->problem == CLI_PROBLEM_STOKES && o->poisson_only)
    return cli_usage_error("bench", "%s applies to --problem poisson only (the Stokes multigrid "
                           "has its own smoother: see --local-solver)", o->poisson_only);
  if (o->problem == CLI_PROBLEM_POISSON && o->stokes_only)
    return cli_usage_error("bench", "%s applies to --problem stokes only", o->stokes_only);
  if (o->kershaw > 0 && o->problem == CLI_PROBLEM_STOKES)
    return cli_usage_error("bench", "--kershaw times the Laplacian on mapped cells: not with "
                           "--problem stokes");
  /* the default smoother of mapped meshes (doc/multigrid.md, "Mapped meshes") */
  if (o->kershaw > 0 && o->mg && !o->smoother_given) o->mg_options.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  if (!o->n_degrees) {
    const int first = o->problem == CLI_PROBLEM_TAYLOR_HOOD ? 2 : 1;
    const int last = o->problem == CLI_PROBLEM_POISSON || mass_inverse ? 8 : 4;
    for (int k = first; k <= last; ++k) o->degrees[o->n_degrees++] = k;
  }
  int lowest, highest;
  degree_range(o->problem, &lowest, &highest);
  for (int i = 0; i < o->n_degrees; ++i)
    if (o->degrees[i] < lowest || o->degrees[i] > highest)
      return cli_usage_error("bench", "--degrees %s: degree %d is out of range; allowed %d..%d "
                             "for --problem %s", degrees_text, o->degrees[i], lowest, highest, name);
  for (int i = 0; i < o->n_degrees && o->mg_options.smoother == TS_MG_SMOOTHER_VANKA; ++i)
    if (o->degrees[i] != 2)
      return cli_usage_error("bench", "--degrees %s: degree %d with --smoother vanka, which "
                             "takes degree 2 only (Q2 x Q1 patches)",
                             *degrees_text ? degrees_text : "2-4", o->degrees[i]);
  const int max_direct = ts_stokes_patch_solver_max_degree(o->dim, TS_STOKES_PATCH_DIRECT);
  for (int i = 0; i < o->n_degrees && o->mg && o->problem == CLI_PROBLEM_STOKES; ++i)
    if (o->mg_options.stokes_solver == TS_STOKES_PATCH_DIRECT && o->degrees[i] > max_direct)
      return cli_usage_error("bench", "--degrees %s: degree %d is too high for --local-solver "
                             "direct, which takes degree <= %d in %dD (use --local-solver schur)",
                             degrees_text, o->degrees[i], max_direct, o->dim);
  if (o->rtol == 0) o->rtol = o->problem == CLI_PROBLEM_POISSON ? 1e-6 : 1e-8;
  return CLI_OK;
}

/* An integer option's value in lo..hi into *out; a usage error naming it otherwise. */
static int parse_int_option(const char *option, const char *v, long lo, long hi, int *out) {
  char *end;
  const long m = strtol(v, &end, 10);
  if (!*v || *end || m < lo || m > hi)
    return cli_usage_error("bench", "%s %s: allowed an integer in %ld..%ld", option, v, lo, hi);
  *out = (int)m;
  return CLI_OK;
}

static int parse_bench_options(int argc, char **argv, bench_options *o, int *done) {
  *o = (bench_options){.backend = "omp", .problem = CLI_PROBLEM_POISSON, .dim = 3, .json = 0,
                       .ceilings = 1, .dofs = 4e6, .min_seconds = 1.0, .precision = TS_DOUBLE,
                       .repeat = 1, .noise = 0.10, .tolerance = 1e-12, .dense_max_degree = 8};
  ts_mg_options_default(&o->mg_options);
  const char *degrees_text = "";
  *done = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      bench_help();
      *done = 1;
      return CLI_OK;
    }
    if (!strcmp(a, "--json")) {
      o->json = 1;
      continue;
    }
    if (!strcmp(a, "--verbose")) {
      o->verbose = 1;
      continue;
    }
    if (!strcmp(a, "--no-ceilings")) {
      o->ceilings = 0;
      continue;
    }
    if (!strcmp(a, "--mg")) {
      o->mg = 1;
      continue;
    }
    if (!v) return cli_usage_error("bench", "%s needs a value", a);
    ++i;
    if (!strcmp(a, "--backend")) {
      o->backend = v;
    } else if (!strcmp(a, "--problem")) {
      if (!strcmp(v, "poisson")) o->problem = CLI_PROBLEM_POISSON;
      else if (!strcmp(v, "stokes")) o->problem = CLI_PROBLEM_STOKES;
      else if (!strcmp(v, "taylor-hood")) o->problem = CLI_PROBLEM_TAYLOR_HOOD;
      else if (!strcmp(v, "mass-inverse")) o->problem = CLI_PROBLEM_MASS_INVERSE;
      else if (!strcmp(v, "darcy")) o->problem = CLI_PROBLEM_DARCY;
      else return cli_usage_error("bench", "--problem %s: allowed poisson, stokes, taylor-hood, "
                                  "mass-inverse or darcy", v);
    } else if (!strcmp(a, "--tolerance")) {
      o->mass_inverse_only = "--tolerance";
      o->tolerance = strtod(v, &end);
      if (*end || !(o->tolerance > 0 && o->tolerance < 1))
        return cli_usage_error("bench", "--tolerance %s: allowed a number in (0, 1)", v);
    } else if (!strcmp(a, "--dense-max-degree")) {
      o->mass_inverse_only = "--dense-max-degree";
      if (parse_int_option(a, v, -1, 9, &o->dense_max_degree)) return CLI_USAGE;
    } else if (!strcmp(a, "--dim")) {
      o->dim = (int)strtol(v, &end, 10);
      if (*end || (o->dim != 2 && o->dim != 3))
        return cli_usage_error("bench", "--dim %s: allowed 2 or 3", v);
    } else if (!strcmp(a, "--degrees")) {
      degrees_text = v;
      if (parse_degrees(v, o))
        return cli_usage_error("bench", "--degrees %s: give K, K1-K2 or a comma list of them "
                               "(K1 <= K2, at most %d degrees)", v, BENCH_MAX_DEGREES);
    } else if (!strcmp(a, "--kershaw")) {
      o->kershaw = strtod(v, &end);
      if (*end || !(o->kershaw > 0 && o->kershaw <= 1))
        return cli_usage_error("bench", "--kershaw %s: allowed epsilon in (0, 1]", v);
    } else if (!strcmp(a, "--dofs")) {
      o->dofs = strtod(v, &end);
      o->dofs_given = 1;
      if (*end || !(o->dofs >= 100 && o->dofs <= 1e11))
        return cli_usage_error("bench", "--dofs %s: allowed 100 .. 1e11", v);
    } else if (!strcmp(a, "--seconds")) {
      o->min_seconds = strtod(v, &end);
      if (*end || !(o->min_seconds > 0 && o->min_seconds <= 600))
        return cli_usage_error("bench", "--seconds %s: allowed (0, 600]", v);
    } else if (!strcmp(a, "--precision")) {
      if (!strcmp(v, "double")) o->precision = TS_DOUBLE;
      else if (!strcmp(v, "single")) o->precision = TS_SINGLE;
      else return cli_usage_error("bench", "--precision %s: allowed double or single", v);
    } else if (!strcmp(a, "--repeat")) {
      if (parse_int_option(a, v, 1, 100, &o->repeat)) return CLI_USAGE;
    } else if (!strcmp(a, "--baseline")) {
      o->baseline = v;
    } else if (!strcmp(a, "--noise")) {
      const double pct = strtod(v, &end);
      if (*end || !(pct >= 0 && pct <= 1000))
        return cli_usage_error("bench", "--noise %s: allowed a percentage in [0, 1000]", v);
      o->noise = pct / 100.0;
    } else if (!strcmp(a, "--restart")) {
      if (parse_int_option(a, v, 1, 1000, &o->restart)) return CLI_USAGE;
    } else if (!strcmp(a, "--rtol")) {
      o->rtol = strtod(v, &end);
      if (*end || !(o->rtol > 0 && o->rtol < 1))
        return cli_usage_error("bench", "--rtol %s: allowed a number in (0, 1)", v);
    } else if (!strcmp(a, "--smoother")) {
      o->smoother_given = 1;
      o->smoother_text = v;
      if (ts_mg_smoother_from_name(v, &o->mg_options.smoother))
        return cli_usage_error("bench", "--smoother %s: allowed vertex-patch or chebyshev "
                               "(Poisson), vanka, braess-sarazin or schur-uzawa (Taylor-Hood)", v);
    } else if (!strcmp(a, "--coarse-degree")) {
      o->poisson_only = "--coarse-degree";
      if (parse_int_option(a, v, 1, 10, &o->mg_options.coarse_degree)) return CLI_USAGE;
    } else if (!strcmp(a, "--variant")) {
      o->poisson_only = "--variant";
      if (!strcmp(v, "separate")) o->mg_options.variant = TS_PATCH_SEPARATE;
      else if (!strcmp(v, "fused")) o->mg_options.variant = TS_PATCH_FUSED;
      else return cli_usage_error("bench", "--variant %s: allowed separate or fused", v);
    } else if (!strcmp(a, "--local-solver")) {
      o->stokes_only = "--local-solver";
      if (!strcmp(v, "schur")) o->mg_options.stokes_solver = TS_STOKES_PATCH_SCHUR;
      else if (!strcmp(v, "direct")) o->mg_options.stokes_solver = TS_STOKES_PATCH_DIRECT;
      else return cli_usage_error("bench", "--local-solver %s: allowed schur or direct", v);
    } else if (!strcmp(a, "--threads")) {
      const int status = cli_threads_option("bench", v);
      if (status) return status;
    } else if (!strcmp(a, "--mg-precision")) {
      if (!strcmp(v, "double")) o->mg_options.precision = TS_DOUBLE;
      else if (!strcmp(v, "mixed")) o->mg_options.precision = TS_SINGLE;
      else return cli_usage_error("bench", "--mg-precision %s: allowed double or mixed", v);
    } else {
      return cli_usage_error("bench", "unknown option '%s'", a);
    }
  }
  return finish_bench_options(o, degrees_text);
}

typedef struct bench_result {
  int64_t dofs;
  double seconds, flops;
  int applies;
} bench_result;

/* The operator one degree measures, and what it is built on. */
typedef struct bench_operator {
  ts_mesh mesh;
  ts_fe fe, pressure_fe;
  ts_dofs dofs, pressure; /* Q_k; or velocity RT_k and pressure DGQ_k */
  ts_operator A;
  int64_t n;
} bench_operator;

static void bench_operator_free(bench_operator *q) {
  ts_operator_destroy(&q->A);
  ts_dofs_destroy(&q->dofs);
  ts_dofs_destroy(&q->pressure);
  ts_fe_destroy(&q->fe);
  ts_fe_destroy(&q->pressure_fe);
  ts_mesh_destroy(&q->mesh);
}

/* The mesh (one level, cells per direction chosen for about o->dofs DoFs) and its DoFs:
 * Q_k has about (cells k)^dim, RT_k x DGQ_k about (dim + 1) (cells (k + 1))^dim, Taylor-Hood
 * about dim (cells k)^dim (its pressure is the smaller part). */
static int bench_space(const bench_options *o, int k, bench_operator *q) {
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int stokes = o->problem == CLI_PROBLEM_STOKES;
  const int taylor_hood = o->problem == CLI_PROBLEM_TAYLOR_HOOD;
  const double per_dir = stokes        ? pow(o->dofs / (o->dim + 1), 1.0 / o->dim) / (k + 1)
                         : taylor_hood ? pow(o->dofs / o->dim, 1.0 / o->dim) / k
                                       : (pow(o->dofs, 1.0 / o->dim) - 1.0) / k;
  const int c = (int)fmax(1.0, round(per_dir));
  if (o->kershaw > 0) { /* Kershaw's map needs 6m x 2m (x 2m) cells */
    const int c0 = 6 * (int)fmax(1.0, round(per_dir / 6)), c1 = 2 * (int)fmax(1.0, round(per_dir / 2));
    const int coarse[3] = {c0, c1, c1};
    TS_CALL(ts_mesh_create_kershaw(o->dim, coarse, 0, o->kershaw, &q->mesh));
  } else {
    const int coarse[3] = {c, c, c};
    TS_CALL(ts_mesh_create_box(o->dim, lower, upper, coarse, 0, &q->mesh));
  }
  if (stokes) {
    TS_CALL(ts_fe_create_rt(o->dim, k, &q->fe));
    TS_CALL(ts_fe_create_dgq(o->dim, k, &q->pressure_fe));
  } else {
    TS_CALL(ts_fe_create_q(o->dim, k, &q->fe));
    if (taylor_hood) TS_CALL(ts_fe_create_q(o->dim, k - 1, &q->pressure_fe));
  }
  if (q->pressure_fe) TS_CALL(ts_dofs_create(q->mesh, q->pressure_fe, 0, &q->pressure));
  TS_CALL(ts_dofs_create(q->mesh, q->fe, 0, &q->dofs));
  q->n = (taylor_hood ? o->dim : 1) * ts_dofs_count(q->dofs) +
         (q->pressure ? ts_dofs_count(q->pressure) : 0);
  return 0;
}

/* TS_ERR_MEMORY, printed here (r->applies = -1), if x and y do not fit the backend. */
static int bench_check_memory(const bench_options *o, ts_backend b, int k, int64_t n,
                              bench_result *r) {
  size_t avail = 0;
  const double need = 2.0 * (double)n * (double)ts_precision_size(o->precision);
  TS_CALL(ts_backend_memory_available(b, &avail));
  if (need <= 0.95 * (double)avail) return 0;
  fprintf(stderr,
          "tessera bench: degree %d with %lld DoFs needs %.3g GiB (x and y, %s) but backend "
          "'%s' has %.3g GiB available; lower --dofs\n",
          k, (long long)n, need / 1073741824.0, ts_precision_name(o->precision), o->backend,
          (double)avail / 1073741824.0);
  r->applies = -1; /* reported here already */
  return TS_ERR_MEMORY;
}

/* Time y = A x on a box with about o->dofs DoFs for degree k. */
static int bench_degree(const bench_options *o, ts_backend b, int k, bench_result *r) {
  bench_operator q = {0};
  ts_vec x = NULL, y = NULL;
  ts_vec one = NULL; /* a dot product of one entry: waits for the device (asynchronous backends) */
  double dummy;
  r->applies = 0;
  int ierr = bench_space(o, k, &q);
  /* estimate the device memory (two vectors) before allocating */
  if (!ierr) ierr = bench_check_memory(o, b, k, q.n, r);
  if (!ierr)
    ierr = o->problem == CLI_PROBLEM_STOKES
               ? ts_operator_create_stokes(b, q.dofs, q.pressure, 0.0, o->precision, &q.A)
           : o->problem == CLI_PROBLEM_TAYLOR_HOOD
               ? ts_operator_create_taylor_hood(b, q.dofs, q.pressure, o->precision, &q.A)
           : o->kershaw > 0 ? ts_operator_create_mapped(b, q.dofs, NULL, o->precision, &q.A)
                            : ts_operator_create_laplace(b, q.dofs, o->precision, &q.A);
  if (!ierr) ierr = ts_vec_create(b, q.n, o->precision, &x);
  if (!ierr) ierr = ts_vec_create(b, q.n, o->precision, &y);
  if (!ierr) ierr = ts_vec_set_random(x, 42);
  if (!ierr) ierr = ts_vec_create(b, 1, o->precision, &one);
  for (int w = 0; !ierr && w < 2; ++w) ierr = ts_operator_apply(q.A, x, y); /* warm up */
  CLI_TIME_BEST(o->min_seconds, 5, o->repeat, ts_vec_dot(one, one, &dummy), r->seconds, ierr,
                (r->applies++, ts_operator_apply(q.A, x, y)));
  if (!ierr) {
    r->dofs = q.n;
    r->flops = ts_operator_flops(q.A);
  }
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&one);
  bench_operator_free(&q);
  return ierr;
}

/* One JSON row of the benchmark, written into memory when it is printed (--json) or
 * compared with the baseline (--baseline); f is NULL when neither is asked for. */
typedef struct json_row {
  FILE *f;
  char *text;
  size_t size;
} json_row;

static int json_row_open(const bench_options *o, json_row *row) {
  *row = (json_row){0};
  if (!o->json && !o->base) return 0;
  row->f = open_memstream(&row->text, &row->size);
  if (!row->f) fprintf(stderr, "tessera: error: bench: out of memory for a result row\n");
  return row->f ? 0 : -1;
}

/* Print the row (--json), compare it (--baseline), free it. */
static int json_row_close(const bench_options *o, json_row *row) {
  int status = CLI_OK;
  if (row->f) {
    fclose(row->f);
    if (o->json) fputs(row->text, stdout);
    if (o->base) status = cli_baseline_compare(o->base, row->text);
    free(row->text);
  }
  fflush(stdout);
  return status;
}

/* GDoF/s, %copy and %peak of one timed piece of the multigrid benchmark. */
typedef struct mg_rate {
  double ns_per_dof, gdofs, gflops, fcopy, fpeak;
} mg_rate;

static mg_rate mg_rate_of(int64_t dofs, double seconds, double flops, double bytes, double bw,
                          double peak) {
  mg_rate q;
  q.ns_per_dof = 1e9 * seconds / (double)dofs;
  q.gdofs = 1e-9 * (double)dofs / seconds;
  q.gflops = 1e-9 * flops / seconds;
  q.fcopy = bw > 0 ? 100.0 * bytes / seconds / bw : 0;
  q.fpeak = peak > 0 ? 100.0 * flops / seconds / peak : 0;
  return q;
}

/* The smoother's name in the header and the JSON. */
static const char *mg_smoother_name(const bench_options *o) {
  const ts_mg_options *m = &o->mg_options;
  if (o->problem == CLI_PROBLEM_STOKES)
    return m->stokes_solver == TS_STOKES_PATCH_DIRECT ? "stokes-patch-direct" : "stokes-patch-schur";
  if (o->problem == CLI_PROBLEM_TAYLOR_HOOD) return cli_relaxation_word(m->smoother);
  return m->smoother == TS_MG_SMOOTHER_CHEBYSHEV ? "chebyshev"
         : m->variant == TS_PATCH_FUSED          ? "vertex-patch-fused"
                                                 : "vertex-patch-separate";
}

static void print_mg_header(const bench_options *o, ts_backend b, const cli_bench_mg_config *c,
                            double bw, double p64, double p32) {
  const int stokes = o->problem == CLI_PROBLEM_STOKES;
  const int taylor_hood = o->problem == CLI_PROBLEM_TAYLOR_HOOD;
  const int mixed = c->options.precision == TS_SINGLE;
  printf("# tessera %s bench --mg: %s, %dD, %s, smoother %s, %s precision V-cycle, backend %s (%s)\n",
         ts_version(), stokes ? "Stokes RT_k x DGQ_k" : taylor_hood ? "Stokes Taylor-Hood Q_k x "
         "Q_{k-1}" : "Poisson Q_k", o->dim,
         stokes ? "manufactured solution paper000, coarse level 1"
         : taylor_hood ? "manufactured solution paper004, coarse level 1"
         : o->kershaw > 0 ? "f = 1 on Kershaw's mesh" : "f = 1", mg_smoother_name(o),
         mixed ? "mixed" : "double", o->backend, ts_backend_description(b));
  if (o->kershaw > 0)
    printf("# Kershaw's mesh: epsilon %g, coarse cells 6 x 2%s, levels rediscretized "
           "(doc/multigrid.md, \"Mapped meshes\")\n", o->kershaw, o->dim == 3 ? " x 2" : "");
  if (o->ceilings)
    printf("# ceilings measured now: copy %.1f GB/s, FP64 %.1f GFLOP/s, FP32 %.1f GFLOP/s; "
           "%%copy = counted bytes/s / copy, %%peak = counted flops/s / %s peak%s\n",
           1e-9 * bw, 1e-9 * p64, 1e-9 * p32, mixed ? "FP32" : "FP64",
           stokes ? " (Stokes smoother: lower bounds, the residuals only)"
           : taylor_hood ? " (relaxations: lower bounds, the residual and Vanka's patch products)"
           : "");
  if (stokes || taylor_hood) {
    printf("# DoFs: velocity + pressure; smoothing step and V-cycle: ns/DoF, GDoF/s, GFLOP/s, "
           "%%copy, %%peak; solve: iterations and ns/DoF (%s(%d) + V-cycle to %.0e)\n",
           taylor_hood ? "FGMRES" : "GMRES", c->restart, c->rtol);
    printf("# k  L        DoFs | smooth  GDoF/s GFLOP/s %%copy %%peak | V-cycle GDoF/s GFLOP/s "
           "%%copy %%peak | %sGMRES its ns/DoF\n", taylor_hood ? "F" : "");
  } else {
    printf("# smoothing step and V-cycle: ns/DoF, GDoF/s, GFLOP/s, %%copy, %%peak; solves: "
           "iterations and ns/DoF (GMRES(%d) + V-cycle to %.0e, FMG to 1e-9)\n", c->restart, c->rtol);
    printf("# k  L        DoFs | smooth  GDoF/s GFLOP/s %%copy %%peak | V-cycle GDoF/s GFLOP/s "
           "%%copy %%peak | GMRES its ns/DoF | FMG its ns/DoF\n");
  }
}

static int print_mg_row(const bench_options *o, const cli_bench_mg_config *c, int k,
                         const cli_bench_mg_result *r, double bw, double peak) {
  const int stokes = o->problem == CLI_PROBLEM_STOKES;
  const int saddle = o->problem != CLI_PROBLEM_POISSON; /* no FMG */
  const mg_rate sm = mg_rate_of(r->dofs, r->smooth_seconds, r->smooth_flops, r->smooth_bytes, bw, peak);
  const mg_rate vc = mg_rate_of(r->dofs, r->vcycle_seconds, r->vcycle_flops, r->vcycle_bytes, bw, peak);
  const double gmres_ns = 1e9 * r->gmres_seconds / (double)r->dofs;
  const double fmg_ns = 1e9 * r->solve_seconds / (double)r->dofs;
  const char *precision = c->options.precision == TS_SINGLE ? "mixed" : "double";
  json_row row;
  if (json_row_open(o, &row)) return CLI_ERROR;
  if (row.f) {
    FILE *f = row.f;
    fprintf(f, "{\"kernel\": \"%s\", \"backend\": \"%s\", \"device\": ", 
            stokes ? "stokes-multigrid"
            : saddle ? "taylor-hood-multigrid"
            : o->kershaw > 0 ? "multigrid-kershaw" : "multigrid",
            o->backend);
    cli_json_string(f, o->device);
    fprintf(f, ", \"dim\": %d, \"degree\": %d, "
           "\"smoother\": \"%s\", \"precision\": \"%s\", \"level\": %d, \"dofs\": %lld, "
           "\"smooth_ns_per_dof\": %.4f, \"smooth_gflops_per_second\": %.2f, "
           "\"smooth_percent_of_copy\": %.2f, \"smooth_percent_of_peak\": %.2f, "
           "\"vcycle_ns_per_dof\": %.4f, \"vcycle_gflops_per_second\": %.2f, "
           "\"vcycle_percent_of_copy\": %.2f, \"vcycle_percent_of_peak\": %.2f, "
           "\"gmres_rtol\": %.1e, \"gmres_iterations\": %d, \"gmres_ns_per_dof\": %.4f, ",
           o->dim, k, mg_smoother_name(o), precision, r->level, (long long)r->dofs, sm.ns_per_dof, sm.gflops, sm.fcopy, sm.fpeak,
           vc.ns_per_dof, vc.gflops, vc.fcopy, vc.fpeak, c->rtol, r->gmres_iterations, gmres_ns);
    if (!saddle && o->kershaw == 0)
      fprintf(f, "\"fmg_iterations\": %d, \"solve_ns_per_dof\": %.4f, ", r->iterations, fmg_ns);
    if (o->kershaw > 0) fprintf(f, "\"epsilon\": %.6g, ", o->kershaw);
    fprintf(f, "\"copy_gbytes_per_second\": %.2f, \"peak_gflops_per_second\": %.2f}\n",
            1e-9 * bw, 1e-9 * peak);
  }
  if (!o->json) {
    printf("  %d %2d %11lld | %6.3f %7.3f %7.1f %5.1f %5.1f | %7.3f %6.3f %7.1f %5.1f %5.1f | "
           "%*d %6.3f",
           k, r->level, (long long)r->dofs, sm.ns_per_dof, sm.gdofs, sm.gflops, sm.fcopy,
           sm.fpeak, vc.ns_per_dof, vc.gdofs, vc.gflops, vc.fcopy, vc.fpeak,
           o->problem == CLI_PROBLEM_TAYLOR_HOOD ? 10 : 9, r->gmres_iterations, gmres_ns);
    if (!saddle && o->kershaw == 0) printf(" | %7d %6.3f", r->iterations, fmg_ns);
    else if (!saddle) printf(" | %7s %6s", "-", "-");
    printf("\n");
  }
  return json_row_close(o, &row);
}

/* tessera bench --mg */
static int bench_mg(const bench_options *o, ts_backend b) {
  const int saddle = o->problem != CLI_PROBLEM_POISSON;
  cli_bench_mg_config c = {.problem = o->problem, .dim = o->dim, .target_dofs = o->dofs,
                           .min_seconds = o->min_seconds, .rtol = o->rtol, .verbose = o->verbose,
                           .repeat = o->repeat, .kershaw = o->kershaw,
                           .restart = o->restart ? o->restart
                                      : saddle ? CLI_BENCH_STOKES_GMRES_RESTART : CLI_BENCH_GMRES_RESTART,
                           .options = o->mg_options};
  double bw = 0, p64 = 0, p32 = 0;
  if (o->ceilings && ts_backend_measure_ceilings(b, &bw, &p64, &p32)) {
    fprintf(stderr, "tessera bench: %s (use --no-ceilings to skip)\n", ts_error_message());
    return CLI_ERROR;
  }
  const double peak = c.options.precision == TS_SINGLE ? p32 : p64;
  if (!o->json) print_mg_header(o, b, &c, bw, p64, p32);
  for (int i = 0; i < o->n_degrees; ++i) {
    const int k = o->degrees[i];
    cli_bench_mg_result r = {0};
    int ierr = cli_bench_mg_degree(b, &c, k, &r);
    if (ierr) return r.reported ? CLI_ERROR : cli_fail(ierr);
    if (print_mg_row(o, &c, k, &r, bw, peak)) return CLI_ERROR;
  }
  return CLI_OK;
}

static void print_operator_header(const bench_options *o, ts_backend b, double bw, double p64,
                                  double p32) {
  const int stokes = o->problem == CLI_PROBLEM_STOKES;
  char what[160];
  if (o->kershaw > 0)
    snprintf(what, sizeof what, "Laplacian y = A x on Kershaw's mesh, epsilon %g (mapped cells, "
             "geometric factors stored per point)", o->kershaw);
  printf("# tessera %s bench: %s, %dD, %s precision, backend %s (%s)\n", ts_version(),
         stokes ? "Stokes operator y = Acal x (RT_k x DGQ_k; DoFs: velocity + pressure)"
         : o->problem == CLI_PROBLEM_TAYLOR_HOOD
             ? "Taylor-Hood operator y = Acal x (Q_k x Q_{k-1}: the Laplacians matrix-free, the "
               "coupling Kronecker products; DoFs: velocity + pressure)"
         : o->kershaw > 0 ? what : "Laplacian y = A x",
         o->dim, ts_precision_name(o->precision), o->backend, ts_backend_description(b));
  if (o->ceilings)
    printf("# ceilings measured now: copy %.1f GB/s, FP64 %.1f GFLOP/s, FP32 %.1f GFLOP/s\n"
           "# %%copy: (2 scalars/DoF x GDoF/s) / copy bandwidth; %%peak: GFLOP/s / %s peak\n",
           1e-9 * bw, 1e-9 * p64, 1e-9 * p32, o->precision == TS_SINGLE ? "FP32" : "FP64");
  printf("# degree        DoFs   applies   s/apply    ns/DoF    GDoF/s   GFLOP/s%s\n",
         o->ceilings ? "   %copy   %peak" : "");
}

static int print_operator_row(const bench_options *o, int k, const bench_result *r, double bw,
                               double peak) {
  const double gdofs = 1e-9 * (double)r->dofs / r->seconds, gflops = 1e-9 * r->flops / r->seconds;
  const double ns = 1e9 * r->seconds / (double)r->dofs;
  const double fcopy = bw > 0 ? 100.0 * gdofs * 1e9 * 2.0 * (double)ts_precision_size(o->precision) / bw : 0;
  const double fpeak = peak > 0 ? 100.0 * gflops * 1e9 / peak : 0;
  json_row row;
  if (json_row_open(o, &row)) return CLI_ERROR;
  if (row.f) {
    fprintf(row.f, "{\"kernel\": \"%s\", \"backend\": \"%s\", \"device\": ",
            o->problem == CLI_PROBLEM_STOKES        ? "stokes"
            : o->problem == CLI_PROBLEM_TAYLOR_HOOD ? "taylor-hood"
            : o->kershaw > 0                        ? "mapped-kershaw"
                                                    : "laplace",
            o->backend);
    cli_json_string(row.f, o->device);
    fprintf(row.f, ", \"dim\": %d, \"degree\": %d, "
           "\"precision\": \"%s\", \"dofs\": %lld, \"seconds_per_apply\": %.6e, "
           "\"ns_per_dof\": %.4f, \"gdofs_per_second\": %.4f, \"gflops_per_second\": %.3f, "
           "\"copy_gbytes_per_second\": %.2f, \"peak_gflops_per_second\": %.2f, "
           "\"percent_of_copy\": %.2f, \"percent_of_peak\": %.2f}\n",
           o->dim, k, ts_precision_name(o->precision), (long long)r->dofs, r->seconds, ns, gdofs, gflops,
           1e-9 * bw, 1e-9 * peak, fcopy, fpeak);
  }
  if (o->json)
    ;
  else if (o->ceilings)
    printf("  %6d %11lld %9d %9.3e %9.4f %9.4f %9.2f %7.1f %7.1f\n", k, (long long)r->dofs,
           r->applies, r->seconds, ns, gdofs, gflops, fcopy, fpeak);
  else
    printf("  %6d %11lld %9d %9.3e %9.4f %9.4f %9.2f\n", k, (long long)r->dofs, r->applies,
           r->seconds, ns, gdofs, gflops);
  return json_row_close(o, &row);
}

/* tessera bench --problem mass-inverse: Table 1 of paper 003, one row per method and degree */
static int bench_mass_inverse(const bench_options *o, ts_backend b) {
  static const char *const methods[CLI_MASS_INVERSE_METHODS] = {"explicit", "cholesky",
                                                                 "cg-legendre", "cg-lobatto"};
  const cli_bench_mass_inverse_config c = {.dim = o->dim, .target_dofs = o->dofs,
                                           .kershaw = o->kershaw, .tolerance = o->tolerance,
                                           .dense_max_degree = o->dense_max_degree};
  if (!o->json)
    printf("# tessera %s bench: DG mass inverse W^-1 (paper 003, Table 1), DGQ_k on Kershaw's "
           "mesh, epsilon %g, %dD, double precision, local CG tolerance %g, %d applications, "
           "backend %s (%s)\n# method        degree        DoFs   setup_s  its_mean its_max  "
           "solve_s   total_s    GDoF/s  |W y - x|/|x|\n", ts_version(), o->kershaw, o->dim,
           o->tolerance, 100, o->backend, ts_backend_description(b));
  for (int i = 0; i < o->n_degrees; ++i) {
    const int k = o->degrees[i];
    cli_bench_mass_inverse_row rows[CLI_MASS_INVERSE_METHODS];
    int64_t dofs = 0;
    const int ierr = cli_bench_mass_inverse_degree(b, &c, k, rows, &dofs);
    if (ierr) return cli_fail(ierr);
    for (int m = 0; m < CLI_MASS_INVERSE_METHODS; ++m) {
      const cli_bench_mass_inverse_row *r = &rows[m];
      const double gdofs = r->measured ? 1e-9 * 100.0 * (double)dofs / r->solve_seconds : 0.0;
      if (o->json && r->measured)
        printf("{\"kernel\": \"mass-inverse-%s\", \"backend\": \"%s\", \"dim\": %d, "
               "\"degree\": %d, \"dofs\": %lld, \"setup_seconds\": %.6e, "
               "\"mean_iterations\": %.3f, \"max_iterations\": %d, \"solve_seconds\": %.6e, "
               "\"gdofs_per_second\": %.4f, \"residual\": %.3e}\n", methods[m], o->backend,
               o->dim, k, (long long)dofs, r->setup_seconds, r->mean_iterations, r->max_iterations,
               r->solve_seconds, gdofs, r->residual);
      else if (!o->json && r->measured)
        printf("  %-12s %6d %11lld %9.4f %9.2f %7d %9.4f %9.4f %9.3f %14.2e\n", methods[m], k,
               (long long)dofs, r->setup_seconds, r->mean_iterations, r->max_iterations,
               r->solve_seconds, r->setup_seconds + r->solve_seconds, gdofs, r->residual);
      else if (!o->json)
        printf("  %-12s %6d %11lld         -         -       -         -         -         -"
               "              -\n", methods[m], k, (long long)dofs);
    }
    fflush(stdout);
  }
  return CLI_OK;
}

/* tessera bench --problem darcy: Figure 8 of paper 003, one row per degree */
static int bench_darcy(const bench_options *o, ts_backend b) {
  const cli_bench_darcy_config c = {.dim = o->dim, .target_dofs = o->dofs,
                                    .min_seconds = o->min_seconds, .repeat = o->repeat};
  if (!o->json)
    printf("# tessera %s bench: Darcy, paper 003 Figure 8 (smooth solution, beta = 2, fluxes "
           "prescribed on the left and %s faces), RT_k x DGQ_k, %dD, MINRES + diag(Jacobi, "
           "AMG(S~)) to 1e-12, backend %s (%s)\n# parts in ns per DoF of the system; rest = "
           "iteration - Acal - preconditioner (MINRES's vector work)\n# degree level        "
           "DoFs  its  setup_s  solve_s  iteration     Acal   M_beta        D      D^T        "
           "pc  AMG(S~)     rest\n", ts_version(), o->dim == 3 ? "back" : "top", o->dim,
           o->backend, ts_backend_description(b));
  for (int i = 0; i < o->n_degrees; ++i) {
    const int k = o->degrees[i];
    cli_bench_darcy_row r;
    const int ierr = cli_bench_darcy_degree(b, &c, k, &r);
    if (ierr) return r.reported ? CLI_ERROR : cli_fail(ierr);
    const double ns = 1e9 / (double)r.dofs, iteration = r.solve_seconds / r.iterations;
    const double rest = iteration - r.system - r.pc;
    if (o->json)
      printf("{\"kernel\": \"darcy\", \"backend\": \"%s\", \"dim\": %d, \"degree\": %d, "
             "\"level\": %d, \"dofs\": %lld, \"iterations\": %d, \"setup_seconds\": %.6e, "
             "\"solve_seconds\": %.6e, \"ns_per_dof\": {\"iteration\": %.4f, \"system\": %.4f, "
             "\"mass\": %.4f, \"div\": %.4f, \"div_t\": %.4f, \"pc\": %.4f, \"amg\": %.4f, "
             "\"rest\": %.4f}}\n", o->backend, o->dim, k, r.level, (long long)r.dofs,
             r.iterations, r.setup_seconds, r.solve_seconds, iteration * ns, r.system * ns,
             r.mass * ns, r.div * ns, r.div_t * ns, r.pc * ns, r.schur * ns, rest * ns);
    else
      printf("  %6d %5d %11lld %4d %8.3f %8.3f %10.3f %8.3f %8.3f %8.3f %8.3f %9.3f %8.3f "
             "%8.3f\n", k, r.level, (long long)r.dofs, r.iterations, r.setup_seconds,
             r.solve_seconds, iteration * ns, r.system * ns, r.mass * ns, r.div * ns,
             r.div_t * ns, r.pc * ns, r.schur * ns, rest * ns);
    fflush(stdout);
  }
  return CLI_OK;
}

/* tessera bench (the operator) */
static int bench_operator_throughput(const bench_options *o, ts_backend b) {
  /* ceilings measured in this run */
  double bw = 0, p64 = 0, p32 = 0;
  if (o->ceilings && ts_backend_measure_ceilings(b, &bw, &p64, &p32)) {
    fprintf(stderr, "tessera bench: %s (use --no-ceilings to skip)\n", ts_error_message());
    return CLI_ERROR;
  }
  const double peak = o->precision == TS_SINGLE ? p32 : p64;
  if (!o->json) print_operator_header(o, b, bw, p64, p32);
  for (int i = 0; i < o->n_degrees; ++i) {
    bench_result r = {0, 0.0, 0.0, 0};
    const int ierr = bench_degree(o, b, o->degrees[i], &r);
    if (ierr) return r.applies < 0 ? CLI_ERROR : cli_fail(ierr);
    if (print_operator_row(o, o->degrees[i], &r, bw, peak)) return CLI_ERROR;
  }
  return CLI_OK;
}

/* The device model of b's description: a GPU's name ("cuda device 0: NAME, ..."), or the
 * host's first two phrases without remarks in parentheses ("OpenMP on the host, up to 2
 * threads"). */
static void device_model(ts_backend b, char *out, size_t cap) {
  const char *d = ts_backend_description(b), *colon = strstr(d, ": ");
  const char *from = colon ? colon + 2 : d;
  const char *end = strchr(from, ',');
  if (!colon && end) end = strchr(end + 1, ',');
  const char *remark = strstr(from, " (");
  if (!colon && remark && (!end || remark < end)) end = remark;
  const int n = end ? (int)(end - from) : (int)strlen(from);
  snprintf(out, cap, "%.*s", n, from);
}

/* Under mpirun: the distributed Poisson operator, or full multigrid (cli-bench-parallel.c);
 * an option it has no distributed form of is a usage error (printed by rank 0). */
static int bench_distributed(const bench_options *o, const cli_mpi *m) {
  const int smoother = o->mg_options.smoother != TS_MG_SMOOTHER_CHEBYSHEV &&
                       o->mg_options.smoother != TS_MG_SMOOTHER_VERTEX_PATCH;
  const int stokes = o->problem == CLI_PROBLEM_STOKES;
  const char *refused = o->problem != CLI_PROBLEM_POISSON && !stokes ? "--problem"
                        : o->precision != TS_DOUBLE          ? "--precision single"
                        : o->mg_options.precision != TS_DOUBLE && (stokes || !o->mg)
                                                             ? "--mg-precision mixed"
                        : o->kershaw > 0                     ? "--kershaw"
                        : o->baseline                        ? "--baseline"
                        : smoother && !stokes                ? "--smoother"
                        : o->poisson_only                    ? o->poisson_only
                                                             : NULL;
  if (refused) {
    if (!m->rank)
      cli_usage_error("bench", "%s is not distributed yet: under mpirun, tessera bench measures "
                      "the distributed Q_k Laplacian, or with --mg full multigrid with the "
                      "V-cycle of vertex patches or Chebyshev; with --problem stokes the Stokes "
                      "operator, or with --mg GMRES + V-cycle (doc/parallel.md)", refused);
    return CLI_USAGE;
  }
  ts_backend b = NULL;
  cli_mpi_choose_device(m);
  const int ierr = cli_mpi_agree(m, ts_backend_open(o->backend, &b));
  if (ierr) return cli_exit_code(ierr);
  const cli_bench_parallel_config c = {b, o->dim, o->json, o->repeat, o->mg, o->n_degrees,
                                       o->degrees, o->dofs, o->min_seconds,
                                       o->mg_options.smoother, o->mg_options.variant,
                                       o->mg_options.precision, stokes,
                                       o->mg_options.stokes_solver, o->rtol,
                                       o->restart ? o->restart : CLI_BENCH_STOKES_GMRES_RESTART};
  const int status = cli_bench_parallel(&c, m);
  ts_backend_destroy(&b);
  return status;
}

/* The benchmark in this process alone. */
static int bench_one(bench_options *o) {
  int status;
  if (o->baseline && cli_baseline_load(o->baseline, o->noise, o->json ? stderr : stdout, &o->base))
    return CLI_ERROR;
  ts_backend b = NULL;
  const int ierr = ts_backend_open(o->backend, &b);
  if (ierr) {
    cli_baseline_free(&o->base);
    return cli_fail(ierr);
  }
  device_model(b, o->device, sizeof o->device);
  status = o->problem == CLI_PROBLEM_MASS_INVERSE ? bench_mass_inverse(o, b)
           : o->problem == CLI_PROBLEM_DARCY        ? bench_darcy(o, b)
           : o->mg                                  ? bench_mg(o, b)
                                                    : bench_operator_throughput(o, b);
  if (status == CLI_OK && o->base) status = cli_baseline_verdict(o->base);
  cli_baseline_free(&o->base);
  ts_backend_destroy(&b);
  return status;
}

int cli_bench(int argc, char **argv) {
  bench_options o;
  cli_mpi mpi;
  int done, status = parse_bench_options(argc, argv, &o, &done);
  if (status || done) return status;
  if ((status = cli_mpi_start("bench", 0, NULL, &mpi))) return status;
  status = mpi.size > 1 ? bench_distributed(&o, &mpi) : bench_one(&o);
  cli_mpi_finish(&mpi);
  return status;
}
