/* t-xml-pc.c -- nested <solver><preconditioner type=...> trees of problem files
 * (doc/xml-reference.md, "Preconditioner trees"), read and solved as `tessera run` does
 * (ts_problem_read_xml, ts_problem_solve):
 *  - Poisson: <preconditioner type="mg"/> and type="jacobi" take the iterations and reach
 *    the errors of preconditioner="mg" and "jacobi" exactly; Chebyshev (degree 3) takes fewer
 *    than Jacobi; FGMRES with an inner CG to 1e-12 converges in at most 2 outer steps;
 *  - the trees of examples/stokes-rt-2d-minres.xml and -fgmres.xml as read (kinds, places,
 *    attributes, children), an override of a nested attribute;
 *  - Stokes: <preconditioner type="mg"/> = preconditioner="mg" exactly; the two examples
 *    take the iteration counts of tests/t-pc-stokes.c's MINRES + block-diagonal (velocity
 *    V-cycle, <preconditioner type="mg"/> at the velocity block) and FGMRES +
 *    block-triangular cases on the same meshes (doc/stokes.md section 12: 34 / 39 and
 *    14 / 15 on 4x4 and 8x8 cells) and reach the errors of GMRES + V-cycle to 1e-4;
 *  - Taylor-Hood: examples/stokes-th-2d-block-triangular.xml (papers 001/004's
 *    block-triangular preconditioner, richardson over Jacobi V-cycles on the velocity
 *    Laplacian and the pressure mass) as read, and solved on 4x4 .. 32x32 cells: at most
 *    TH_BT_MAX_ITERATIONS, level-independent (no level more than COUNT_SLACK + 1 above
 *    8x8's), the errors converging at Q2-Q1's rates (at least 2.8, 1.8, 1.8); with
 *    boomeramg at the velocity block (block A of the assembled operator) at most
 *    TH_AMG_MAX_ITERATIONS on 4x4 .. 16x16 cells, the same rates;
 *  - ts_pc_built_create: a tree that fails half way leaves nothing built. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"
#include "tessera.h"
#include "problem/problem-impl.h"

#define ERROR_TOLERANCE 1e-4 /* relative, as tests/t-pc-stokes.c */
#define COUNT_SLACK 1        /* another compiler's rounding may move a count by one */
#define TH_BT_MAX_ITERATIONS 16 /* 13 or 14 on every level, doc/taylor-hood.md section 7 */
#define TH_AMG_MAX_ITERATIONS 21 /* 16, 18, 19 with boomeramg at the velocity block */

static ts_backend backend;
static char examples[1024];

static void find_examples(void) {
  const char *srcdir = getenv("srcdir");
  if (!srcdir || !*srcdir) srcdir = ".";
  const char *const candidates[] = {"%s/examples", "%s/../examples"};
  for (int i = 0; i < 2; i++) {
    struct stat st;
    snprintf(examples, sizeof examples, candidates[i], srcdir);
    if (!stat(examples, &st) && S_ISDIR(st.st_mode)) return;
  }
}

/* the problem of the text (a Poisson or Stokes head and a solver), NULL on error */
static ts_problem read_text(const char *head, const char *solver) {
  char text[2048];
  snprintf(text, sizeof text, "<tessera-problem name=\"t\">%s%s</tessera-problem>", head, solver);
  ts_problem p = NULL;
  if (ts_problem_read_memory("t.xml", text, strlen(text), 0, NULL, &p))
    diag("%s", ts_error_message());
  return p;
}

static ts_problem read_example(const char *name, int n_overrides, const char *const *overrides) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", examples, name);
  ts_problem p = NULL;
  if (ts_problem_read_xml(path, n_overrides, overrides, &p)) diag("%s", ts_error_message());
  return p;
}

/* solve the problem's levels into report; 0 if it read, solved and converged */
static int solve(ts_problem p, ts_report *report) {
  memset(report, 0, sizeof *report);
  if (!p) return -1;
  const int ierr = ts_problem_solve(p, backend, NULL, report);
  if (ierr) diag("%s", ts_error_message());
  return ierr;
}

static const char poisson[] =
    "<mesh dim=\"2\" cells=\"2 2\" levels=\"3\"/><element degree=\"2\"/>"
    "<poisson solution=\"exp\"/>";

/* the finest level of the text's problem solved: r; 0 if it converged */
static int solve_text(const char *head, const char *solver, ts_level_report *r) {
  ts_problem p = read_text(head, solver);
  ts_report report;
  const int ierr = solve(p, &report);
  ts_problem_destroy(&p);
  *r = report.levels[report.n_levels > 0 ? report.n_levels - 1 : 0];
  return ierr;
}

/* the attribute and the element form of kind: the same iterations and errors */
static void poisson_forms_agree(const char *kind, ts_level_report *element) {
  char attribute_form[200], element_form[200];
  snprintf(attribute_form, sizeof attribute_form, "<solver type=\"cg\" preconditioner=\"%s\"/>",
           kind);
  snprintf(element_form, sizeof element_form,
           "<solver type=\"cg\"><preconditioner type=\"%s\"/></solver>", kind);
  ts_level_report a;
  const int ierr = solve_text(poisson, attribute_form, &a) | solve_text(poisson, element_form, element);
  ok(!ierr && a.iterations > 0 && element->iterations == a.iterations &&
         element->l2_error == a.l2_error && element->h1_error == a.h1_error,
     "Poisson Q2 level 3, CG: <preconditioner type=\"%s\"/> %d iterations, L2 error %.6e; "
     "preconditioner=\"%s\" %d, %.6e", kind, element->iterations, element->l2_error, kind,
     a.iterations, a.l2_error);
}

static void poisson_trees(void) {
  ts_level_report mg, jacobi, chebyshev, krylov;
  poisson_forms_agree("mg", &mg);
  poisson_forms_agree("jacobi", &jacobi);
  int ierr = solve_text(poisson, "<solver type=\"cg\"><preconditioner type=\"chebyshev\" "
                        "degree=\"3\"/></solver>", &chebyshev);
  ok(!ierr && chebyshev.iterations > 0 && chebyshev.iterations < jacobi.iterations &&
         fabs(chebyshev.l2_error - jacobi.l2_error) <= ERROR_TOLERANCE * jacobi.l2_error,
     "Poisson, CG + chebyshev (degree 3): %d iterations, fewer than Jacobi's %d; L2 error %.6e "
     "(Jacobi %.6e)", chebyshev.iterations, jacobi.iterations, chebyshev.l2_error,
     jacobi.l2_error);
  ierr = solve_text(poisson, "<solver type=\"fgmres\"><preconditioner type=\"krylov\" "
                    "solver=\"cg\" tolerance=\"1e-12\"><preconditioner type=\"jacobi\"/>"
                    "</preconditioner></solver>", &krylov);
  ok(!ierr && krylov.iterations >= 1 && krylov.iterations <= 2 &&
         fabs(krylov.l2_error - jacobi.l2_error) <= ERROR_TOLERANCE * jacobi.l2_error,
     "Poisson, FGMRES + krylov (CG + jacobi to 1e-12): %d outer iterations (at most 2), L2 "
     "error %.6e", krylov.iterations, krylov.l2_error);
}

/* CG + one AMG V-cycle (kind: BoomerAMG, or our smoothed aggregation) and CG + one geometric
 * V-cycle through the same <preconditioner> element: Q1 on levels 2..6 of a 2x2 coarse mesh
 * (8^2 .. 128^2 cells), the same errors to ERROR_TOLERANCE; BoomerAMG's count at most 15 and
 * growing by at most 2 per level; ours at most 12 (it is one LU on level 2's 9^2 DoFs, then
 * 7, 6, 9, 7 as the hierarchy deepens). */
static void poisson_amg(const char *kind) {
  static const char q1[] = "<mesh dim=\"2\" cells=\"2 2\" levels=\"6\"/><element degree=\"1\"/>"
                           "<poisson solution=\"exp\"/><convergence first-level=\"2\"/>";
  if (!strcmp(kind, "boomeramg") && !ts_hypre_version()[0]) {
    skip(1, "built without hypre (configure --with-hypre)");
    return;
  }
  char solver[160];
  snprintf(solver, sizeof solver, "<solver type=\"cg\" rtol=\"1e-10\"><preconditioner "
           "type=\"%s\"/></solver>", kind);
  ts_report amg, mg;
  ts_problem p = read_text(q1, solver);
  int ierr = solve(p, &amg);
  ts_problem_destroy(&p);
  p = read_text(q1, "<solver type=\"cg\" rtol=\"1e-10\"><preconditioner type=\"mg\"/></solver>");
  ierr |= solve(p, &mg);
  ts_problem_destroy(&p);
  int good = !ierr && amg.n_levels == 5 && mg.n_levels == 5;
  const int ours = !strcmp(kind, "amg");
  char counts[160] = "";
  for (int l = 0; good && l < amg.n_levels; ++l) {
    const ts_level_report *a = &amg.levels[l], *m = &mg.levels[l];
    good = a->converged && a->iterations <= (ours ? 12 : 15) &&
           (ours || l == 0 || a->iterations <= amg.levels[l - 1].iterations + 2) &&
           fabs(a->l2_error - m->l2_error) <= ERROR_TOLERANCE * m->l2_error;
    const size_t used = strlen(counts);
    snprintf(counts + used, sizeof counts - used, "%s%d/%d", l ? " " : "", a->iterations,
             m->iterations);
  }
  ok(good, "Poisson Q1 levels 2..6, CG: <preconditioner type=\"%s\"/> / type=\"mg\" "
     "iterations %s, the same L2 errors", kind, counts);
}

static int node_is(const ts_pc_node *n, const char *kind, ts_pc_place place, int n_children) {
  return !strcmp(n->kind, kind) && n->place == place && n->n_children == n_children;
}

static void example_trees(void) {
  ts_problem p = read_example("stokes-rt-2d-minres.xml", 0, NULL);
  const ts_pc_node *t = p ? p->pc_tree : NULL;
  ok(p && p->solver == TS_SOLVER_MINRES && p->pc_nodes == 3 && p->use_mg &&
         !strcmp(p->preconditioner, "block-diagonal") &&
         node_is(&t[0], "block-diagonal", TS_PC_PLACE_STOKES, 2) && t[0].children[0] == 1 &&
         t[0].children[1] == 2 && node_is(&t[1], "mg", TS_PC_PLACE_VELOCITY, 0) &&
         node_is(&t[2], "pressure-mass", TS_PC_PLACE_PRESSURE, 0),
     "stokes-rt-2d-minres.xml: MINRES, block-diagonal(mg, pressure-mass) at the Stokes "
     "system, velocity and pressure blocks");
  ts_problem_destroy(&p);
  const char *const lower[1] = {"solver/preconditioner/form=lower"};
  p = read_example("stokes-rt-2d-fgmres.xml", 1, lower);
  t = p ? p->pc_tree : NULL;
  ok(p && p->solver == TS_SOLVER_FGMRES && p->pc_nodes == 4 &&
         node_is(&t[0], "block-triangular", TS_PC_PLACE_STOKES, 2) && t[0].form == TS_PC_LOWER &&
         node_is(&t[1], "krylov", TS_PC_PLACE_VELOCITY, 1) && t[1].rtol == 1e-6 &&
         node_is(&t[3], "pressure-mass", TS_PC_PLACE_PRESSURE, 0),
     "stokes-rt-2d-fgmres.xml with --set solver/preconditioner/form=lower: block-triangular "
     "lower (krylov to 1e-6, pressure-mass)");
  ts_problem_destroy(&p);
}

static const char stokes[] =
    "<mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/><element family=\"RT\" degree=\"2\"/>"
    "<stokes solution=\"paper000\"/><convergence first-level=\"1\"/>";

static int close(double a, double b) { return fabs(a - b) <= ERROR_TOLERANCE * b; }

/* the example's levels 1 and 2 converge in counts[] (within COUNT_SLACK) to the errors of
 * GMRES + V-cycle (reference) */
static void stokes_example(const char *name, const char *what, const int counts[2],
                           const ts_report *reference, const char *const *overrides,
                           int n_overrides) {
  ts_problem p = read_example(name, n_overrides, overrides);
  ts_report r;
  const int ierr = solve(p, &r);
  ts_problem_destroy(&p);
  int good = !ierr && r.n_levels == 2;
  for (int l = 0; good && l < 2; ++l)
    good = (!counts || abs(r.levels[l].iterations - counts[l]) <= COUNT_SLACK) &&
           close(r.levels[l].l2_error, reference->levels[l].l2_error) &&
           close(r.levels[l].pressure_l2_error, reference->levels[l].pressure_l2_error);
  ok(good, "%s (%s), 4x4 and 8x8 cells: %d / %d iterations%s; u L2 errors %.4e / %.4e, "
     "GMRES + V-cycle %.4e / %.4e", name, what, r.levels[0].iterations, r.levels[1].iterations,
     counts ? "" : " (converged)", r.levels[0].l2_error, r.levels[1].l2_error,
     reference->levels[0].l2_error, reference->levels[1].l2_error);
  if (counts) diag("tests/t-pc-stokes.c's counts: %d / %d", counts[0], counts[1]);
}

static void stokes_trees(void) {
  ts_problem a = read_text(stokes, "<solver type=\"gmres\" preconditioner=\"mg\" restart=\"30\"/>");
  ts_problem e = read_text(stokes, "<solver type=\"gmres\" restart=\"30\">"
                           "<preconditioner type=\"mg\"/></solver>");
  ts_report ra, re;
  const int ierr = solve(a, &ra) | solve(e, &re);
  ts_problem_destroy(&a);
  ts_problem_destroy(&e);
  int same = !ierr && ra.n_levels == 2 && re.n_levels == 2;
  for (int l = 0; same && l < 2; ++l)
    same = re.levels[l].iterations == ra.levels[l].iterations &&
           re.levels[l].l2_error == ra.levels[l].l2_error &&
           re.levels[l].pressure_l2_error == ra.levels[l].pressure_l2_error;
  ok(same, "Stokes RT2, GMRES: <preconditioner type=\"mg\"/> %d / %d iterations = "
     "preconditioner=\"mg\" %d / %d, the same errors", re.levels[0].iterations,
     re.levels[1].iterations, ra.levels[0].iterations, ra.levels[1].iterations);
  const int minres[2] = {34, 39}, fgmres[2] = {14, 15};
  stokes_example("stokes-rt-2d-minres.xml", "MINRES + block-diagonal (velocity V-cycle)", minres,
                 &ra, NULL, 0);
  stokes_example("stokes-rt-2d-fgmres.xml", "FGMRES + block-triangular", fgmres, &ra, NULL, 0);
  const char *const lower[1] = {"solver/preconditioner/form=lower"};
  stokes_example("stokes-rt-2d-fgmres.xml", "FGMRES + lower block-triangular", NULL, &ra, lower,
                 1);
}

static void taylor_hood_block_triangular(void) {
  ts_problem p = read_example("stokes-th-2d-block-triangular.xml", 0, NULL);
  const ts_pc_node *t = p ? p->pc_tree : NULL;
  ok(p && p->solver == TS_SOLVER_FGMRES && p->pc_nodes == 5 &&
         node_is(&t[0], "block-triangular", TS_PC_PLACE_STOKES, 2) && t[0].form == TS_PC_UPPER &&
         node_is(&t[1], "richardson", TS_PC_PLACE_VELOCITY, 1) && t[1].iterations == 3 &&
         node_is(&t[2], "mg", TS_PC_PLACE_VELOCITY, 0) && t[2].jacobi && t[2].weight == 1.0 &&
         t[2].smoothing_steps == 3 && node_is(&t[3], "richardson", TS_PC_PLACE_PRESSURE, 1) &&
         node_is(&t[4], "mg", TS_PC_PLACE_PRESSURE, 0) && t[4].weight == 0.6 &&
         t[4].smoothing_steps == 3,
     "stokes-th-2d-block-triangular.xml: block-triangular(richardson(mg jacobi 1.0 x 3), "
     "richardson(mg jacobi 0.6 x 3)) at the Stokes system, velocity and pressure blocks");
  ts_report r;
  const int ierr = solve(p, &r);
  ts_problem_destroy(&p);
  int good = !ierr && r.n_levels == 4;
  char counts[64] = "";
  for (int l = 0; good && l < 4; ++l) {
    const ts_level_report *v = &r.levels[l];
    snprintf(counts + strlen(counts), sizeof counts - strlen(counts), " %d", v->iterations);
    good = v->iterations <= TH_BT_MAX_ITERATIONS &&
           v->iterations <= r.levels[1].iterations + COUNT_SLACK + 1;
    if (good && l > 0)
      good = log2(r.levels[l - 1].l2_error / v->l2_error) >= 2.8 &&
             log2(r.levels[l - 1].h1_error / v->h1_error) >= 1.8 &&
             log2(r.levels[l - 1].pressure_l2_error / v->pressure_l2_error) >= 1.8;
  }
  ok(good, "Taylor-Hood Q2 x Q1, FGMRES + the papers' block-triangular preconditioner on 4x4 .. "
     "32x32 cells: iterations%s, errors at the rates 3, 2, 2", counts);
}

/* BoomerAMG at Taylor-Hood's velocity block (block A of the assembled operator) in the
 * block-triangular preconditioner: FGMRES iterations bounded (16, 18, 19 on 4x4 .. 16x16
 * cells), the errors of the multigrid solve */
static void taylor_hood_boomeramg_velocity(void) {
  if (!*ts_hypre_version()) {
    skip(1, "built without hypre");
    return;
  }
  ts_problem p = read_text(
      "<mesh dim=\"2\" cells=\"1 1\" levels=\"4\"/><element family=\"taylor-hood\" "
      "degree=\"2\"/><stokes solution=\"paper004\"/>",
      "<solver type=\"fgmres\" rtol=\"1e-8\" max-iterations=\"300\" restart=\"50\">"
      "<preconditioner type=\"block-triangular\"><preconditioner type=\"boomeramg\"/>"
      "<preconditioner type=\"richardson\" iterations=\"3\"><preconditioner type=\"mg\" "
      "smoother=\"jacobi\" weight=\"0.6\" smoothing-steps=\"3\"/></preconditioner>"
      "</preconditioner></solver><multigrid coarse-level=\"0\"/>"
      "<convergence first-level=\"2\"/>");
  ts_report r;
  const int ierr = p ? solve(p, &r) : -1;
  ts_problem_destroy(&p);
  int good = !ierr && r.n_levels == 3;
  for (int l = 0; good && l < 3; ++l) {
    good = r.levels[l].iterations <= TH_AMG_MAX_ITERATIONS;
    if (good && l > 0)
      good = log2(r.levels[l - 1].l2_error / r.levels[l].l2_error) >= 2.8 &&
             log2(r.levels[l - 1].pressure_l2_error / r.levels[l].pressure_l2_error) >= 1.8;
  }
  ok(good, "Taylor-Hood, block-triangular with boomeramg on the velocity block: %d / %d / %d "
     "iterations, errors at the rates 3 and 2", ierr ? -1 : r.levels[0].iterations,
     ierr ? -1 : r.levels[1].iterations, ierr ? -1 : r.levels[2].iterations);
}

/* A krylov node made invalid after reading (tolerance 2) fails after its child was made:
 * ts_pc_built_create returns the error and leaves nothing. */
static void half_built(void) {
  ts_problem p = read_text(poisson, "<solver type=\"fgmres\"><preconditioner type=\"krylov\">"
                           "<preconditioner type=\"jacobi\"/></preconditioner></solver>");
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int cells[2] = {2, 2};
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  ts_pc_built built = {0};
  int ierr = p ? 0 : -1;
  if (!ierr) ierr = ts_mesh_create_box(2, lower, upper, cells, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 2, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 1, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(backend, dofs, TS_DOUBLE, &A);
  int failed = 0, empty = 1;
  if (!ierr) {
    p->pc_tree[0].rtol = 2;
    memset(&built, 0xff, sizeof built); /* what was there before is not destroyed */
    const ts_dofs fields[2] = {dofs, NULL};
    failed = ts_pc_built_create(p, A, fields, NULL, &built) == TS_ERR_ARG;
    diag("%s", ts_error_message());
    const ts_pc_built none = {0};
    empty = !memcmp(&built, &none, sizeof built);
  }
  ok(!ierr && failed && empty, "a tree whose krylov node fails after its jacobi child was made: "
     "TS_ERR_ARG, nothing left built");
  ts_pc_built_destroy(&built);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_problem_destroy(&p);
}

int main(void) {
  plan(1 + 4 + 1 + 1 + 2 + 4 + 2 + 1 + 1);
  find_examples();
  if (!ok(ts_backend_open(tap_backend(), &backend) == 0, "backend %s opens", tap_backend())) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  poisson_trees();
  poisson_amg("boomeramg");
  poisson_amg("amg");
  example_trees();
  stokes_trees();
  taylor_hood_block_triangular();
  taylor_hood_boomeramg_velocity();
  half_built();
  ts_backend_destroy(&backend);
  return exit_status();
}
