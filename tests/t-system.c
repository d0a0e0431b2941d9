/* t-system.c -- the system builder through its public face (ts_system, issue 12): for a
 * Poisson and a Stokes problem, ts_problem_level_dofs (the equation's DoF formula) equals
 * the size of the system operator the builder sets up on each level, the fields' DoF
 * handlers add up to it, an operator made on the system's handlers in single precision
 * applies as the system's does (to single-precision rounding), the hierarchy and the solver
 * exist where the problem asks for them, and the arguments are checked. */
#include <math.h>
#include "tap.h"
#include "tessera.h"

static ts_backend backend;

/* the problem of the text (a Poisson or Stokes head and a solver), NULL on error */
static ts_problem read_problem(const char *body) {
  char text[1024];
  snprintf(text, sizeof text, "<tessera-problem name=\"t\">%s</tessera-problem>", body);
  ts_problem p = NULL;
  if (ts_problem_read_string("t.xml", text, &p)) diag("%s", ts_error_message());
  return p;
}

/* max |y_single - y_double| / max |y_double| for y = A x, x = random */
static double single_difference(ts_system s) {
  ts_operator A = ts_system_operator(s), A32 = NULL;
  const int64_t n = ts_operator_size(A);
  ts_vec x = NULL, y = NULL, x32 = NULL, y32 = NULL;
  double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b), dmax = 0, ymax = 0;
  int ierr = ts_system_operator_create(s, backend, TS_SINGLE, &A32);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &x);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_DOUBLE, &y);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_SINGLE, &x32);
  if (!ierr) ierr = ts_vec_create(backend, n, TS_SINGLE, &y32);
  if (!ierr) ierr = ts_vec_set_random(x, 7);
  if (!ierr) ierr = ts_vec_set_random(x32, 7);
  if (!ierr) ierr = ts_operator_apply(A, x, y);
  if (!ierr) ierr = ts_operator_apply(A32, x32, y32);
  if (!ierr) ierr = ts_vec_get_to_host(y, a);
  if (!ierr) ierr = ts_vec_get_to_host(y32, b);
  for (int64_t i = 0; !ierr && i < n; ++i) {
    if (fabs(a[i] - b[i]) > dmax) dmax = fabs(a[i] - b[i]);
    if (fabs(a[i]) > ymax) ymax = fabs(a[i]);
  }
  if (ierr) diag("%s", ts_error_message());
  ts_vec_destroy(&x), ts_vec_destroy(&y), ts_vec_destroy(&x32), ts_vec_destroy(&y32);
  ts_operator_destroy(&A32);
  free(a), free(b);
  return ierr ? INFINITY : dmax / ymax;
}

static void check_levels(const char *name, ts_problem p, int first, int last, int fields,
                         int with_mg) {
  for (int level = first; level <= last; ++level) {
    ts_system s = NULL;
    int64_t n = 0, sum = 0;
    const int ierr = ts_problem_level_dofs(p, level, &n) || ts_system_create(p, backend, level, &s);
    if (ierr) diag("%s", ts_error_message());
    ok(!ierr && ts_operator_size(ts_system_operator(s)) == n,
       "%s level %d: ts_problem_level_dofs %lld = the system operator's size", name, level,
       (long long)n);
    for (int f = 0; s && f < ts_system_fields(s); ++f) sum += ts_dofs_count(ts_system_dofs(s, f));
    ok(s && ts_system_fields(s) == fields && sum == n, "%s level %d: %d fields of %lld DoFs in all",
       name, level, fields, (long long)sum);
    ok(s && !ts_system_mg(s) == !with_mg && ts_system_solver(s) && ts_system_rhs(s),
       "%s level %d: hierarchy %s, solver and right side", name, level, with_mg ? "made" : "none");
    const double d = s ? single_difference(s) : INFINITY;
    ok(d < 1e-5, "%s level %d: the operator in single precision (%.2e)", name, level, d);
    ts_system_destroy(&s);
    ok(s == NULL, "%s level %d: destroyed", name, level);
  }
}

int main(void) {
  if (ts_backend_open("omp", &backend)) {
    plan_skip_all("no omp backend");
    return exit_status();
  }
  ts_problem poisson = read_problem(
      "<mesh dim=\"2\" lower=\"0 0\" upper=\"1 1\" cells=\"2 3\" levels=\"3\"/>"
      "<element family=\"Q\" degree=\"3\"/><poisson solution=\"sine\"/>"
      "<solver type=\"cg\" preconditioner=\"jacobi\"/>");
  ts_problem stokes = read_problem(
      "<mesh dim=\"2\" lower=\"0 0\" upper=\"1 1\" cells=\"1 1\" levels=\"3\"/>"
      "<element family=\"RT\" degree=\"1\"/><stokes solution=\"paper000\"/>"
      "<solver type=\"gmres\" preconditioner=\"mg\"/><multigrid coarse-level=\"1\"/>");
  ok(poisson && stokes, "the problems are read from strings");
  if (poisson) check_levels("Poisson Q3", poisson, 0, 3, 1, 0);
  if (stokes) check_levels("Stokes RT1", stokes, 1, 3, 2, 1);
  ts_system s = NULL;
  int64_t n;
  int ierr = ts_system_create(poisson, backend, 4, &s);
  ok(ierr == TS_ERR_ARG && !s, "a level above the mesh's is refused: %s", ts_error_message());
  ierr = ts_problem_level_dofs(poisson, -1, &n);
  ok(ierr == TS_ERR_ARG, "level -1 is refused: %s", ts_error_message());
  ok(ts_system_create(NULL, backend, 0, &s) == TS_ERR_ARG, "a NULL problem is refused");
  ok(ts_system_operator(NULL) == NULL && ts_system_fields(NULL) == 0, "getters of NULL");
  ok(ts_system_destroy(NULL) == 0 && ts_system_destroy(&s) == 0, "destroying nothing");
  ts_problem_destroy(&poisson);
  ts_problem_destroy(&stokes);
  ts_backend_destroy(&backend);
  done_testing();
  return exit_status();
}
