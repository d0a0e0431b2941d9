/* t-api-args.c -- every function of tessera.h called with NULL handles, NULL pointers, sizes,
 * levels and enums out of range and vectors that do not fit: a function returning a status
 * returns the documented TS_ERR_* code and records it with a message; a getter returns its
 * documented fallback (-1, NaN, "", NULL, *_INVALID) and records TS_ERR_ARG (tessera.h,
 * "Argument checks"); a create function leaves its output handle NULL; nothing crashes.
 * The plan comes after the tests (done_testing): a crash leaves no plan and fails. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera.h"

/* call returns code; a failure records the same code with a message containing needle */
#define EXPECT(code, needle, call) expect_code((ts_error_clear(), (call)), code, needle, #call)
/* a getter given a bad argument: its fallback value, and TS_ERR_ARG recorded */
#define EXPECT_MINUS_ONE(call) expect_fallback((ts_error_clear(), (call)) == -1, #call)
#define EXPECT_NAN(call) expect_fallback(isnan((ts_error_clear(), (call))), #call)
#define EXPECT_EMPTY(call) expect_fallback(is_empty((ts_error_clear(), (call))), #call)
#define EXPECT_NULL(call) expect_fallback((ts_error_clear(), (call)) == NULL, #call)
#define EXPECT_VOID(call) (ts_error_clear(), (call), expect_fallback(1, #call))
/* a create function that fails sets its output handle to NULL */
#define EXPECT_CREATE(needle, handle, call)                                               \
  do {                                                                                    \
    handle = (void *)&handle; /* any non-NULL value: the call must reset it */            \
    expect_code((ts_error_clear(), (call)), TS_ERR_ARG, needle, #call);                   \
    ok(handle == NULL, "%s leaves the handle NULL", #call);                               \
  } while (0)

static void expect_code(int got, int code, const char *needle, const char *text) {
  const int recorded = ts_error_code();
  const int good = got == code &&
                   (code == 0 ? recorded == 0 : recorded == code && strstr(ts_error_message(), needle));
  ok(good, "%s -> %s (%s)", text, ts_error_name(got), got ? ts_error_message() : "no error");
}

static void expect_fallback(int is_fallback, const char *text) {
  ok(is_fallback && ts_error_code() == TS_ERR_ARG, "%s -> fallback value, %s: %s", text,
     ts_error_name(ts_error_code()), ts_error_message());
}

static int is_empty(const char *s) { return s && !*s; }

/* The objects the calls are made with: a 2D box with 2x2 cells and levels 0..2; Q1, RT0 and
 * DGQ0 DoFs on level 1 (Q1: 25 DoFs); double vectors x, y of 25 entries, a single one s and
 * a short one (24); the Laplacian, a Stokes operator, smoothers, a solver, a hierarchy. */
typedef struct fixture {
  ts_backend b;
  ts_mesh mesh;
  ts_fe q, rt, dgq, q3d;
  ts_dofs dofs, vel, pres;
  ts_vec x, y, s, short_vec, sx, fine, coarse;
  ts_operator A, stokes;
  ts_smoother cheb, stokes_smoother;
  ts_solver solver;
  ts_mg mg;
  ts_problem problem;
  const ts_solution *u;
  const ts_stokes_solution *su;
  double host[400];
} fixture;

static const double lower[2] = {0.0, 0.0}, upper[2] = {1.0, 1.0};
static const int cells[2] = {2, 2};

static int fixture_create(fixture *f) {
  const char *srcdir = getenv("srcdir");
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/poisson-2d.xml", srcdir && *srcdir ? srcdir : ".");
  const char *levels[] = {"mesh/levels=1"};
  int ierr = ts_backend_open(tap_backend(), &f->b);
  if (!ierr) ierr = ts_mesh_create_box(2, lower, upper, cells, 2, &f->mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &f->q);
  if (!ierr) ierr = ts_fe_create_q(3, 1, &f->q3d);
  if (!ierr) ierr = ts_fe_create_rt(2, 0, &f->rt);
  if (!ierr) ierr = ts_fe_create_dgq(2, 0, &f->dgq);
  if (!ierr) ierr = ts_dofs_create(f->mesh, f->q, 1, &f->dofs);
  if (!ierr) ierr = ts_dofs_create(f->mesh, f->rt, 1, &f->vel);
  if (!ierr) ierr = ts_dofs_create(f->mesh, f->dgq, 1, &f->pres);
  if (!ierr) ierr = ts_vec_create(f->b, 25, TS_DOUBLE, &f->x);
  if (!ierr) ierr = ts_vec_create(f->b, 25, TS_DOUBLE, &f->y);
  if (!ierr) ierr = ts_vec_create(f->b, 25, TS_SINGLE, &f->s);
  if (!ierr) ierr = ts_vec_create(f->b, 24, TS_DOUBLE, &f->short_vec);
  if (!ierr) ierr = ts_vec_create(f->b, 81, TS_DOUBLE, &f->fine);   /* Q1, level 2 */
  if (!ierr) ierr = ts_vec_create(f->b, 25, TS_DOUBLE, &f->coarse); /* Q1, level 1 */
  if (!ierr) ierr = ts_operator_create_laplace(f->b, f->dofs, TS_DOUBLE, &f->A);
  if (!ierr) ierr = ts_operator_create_stokes(f->b, f->vel, f->pres, 1.0, TS_DOUBLE, &f->stokes);
  if (!ierr) ierr = ts_vec_create(f->b, ts_operator_size(f->stokes), TS_DOUBLE, &f->sx);
  if (!ierr) ierr = ts_smoother_create_chebyshev(f->A, 2, &f->cheb);
  if (!ierr)
    ierr = ts_smoother_create_stokes_patch(f->stokes, f->vel, f->pres, TS_STOKES_PATCH_SCHUR,
                                           &f->stokes_smoother);
  if (!ierr) ierr = ts_solver_create(TS_SOLVER_CG, &f->solver);
  if (!ierr) ierr = ts_mg_create(f->b, f->mesh, f->q, 2, NULL, &f->mg);
  if (!ierr) ierr = ts_problem_read_xml(path, 1, levels, &f->problem);
  if (!ierr) ierr = ts_solution_by_name("sine", &f->u);
  if (!ierr) ierr = ts_stokes_solution_by_name("paper000", &f->su);
  if (ierr) diag("fixture: %s", ts_error_message());
  return ierr;
}

static void fixture_destroy(fixture *f) {
  ts_problem_destroy(&f->problem);
  ts_mg_destroy(&f->mg);
  ts_solver_destroy(&f->solver);
  ts_smoother_destroy(&f->cheb);
  ts_smoother_destroy(&f->stokes_smoother);
  ts_operator_destroy(&f->A);
  ts_operator_destroy(&f->stokes);
  ts_vec *v[] = {&f->x, &f->y, &f->s, &f->short_vec, &f->sx, &f->fine, &f->coarse};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i) ts_vec_destroy(v[i]);
  ts_dofs_destroy(&f->dofs);
  ts_dofs_destroy(&f->vel);
  ts_dofs_destroy(&f->pres);
  ts_fe *e[] = {&f->q, &f->q3d, &f->rt, &f->dgq};
  for (size_t i = 0; i < sizeof e / sizeof e[0]; ++i) ts_fe_destroy(e[i]);
  ts_mesh_destroy(&f->mesh);
  ts_backend_destroy(&f->b);
}

static void errors_and_precision(void) {
  ok(!strcmp(ts_error_name(-3), "TS_ERR_UNKNOWN") && !strcmp(ts_error_name(99), "TS_ERR_UNKNOWN"),
     "ts_error_name of codes out of range");
  setenv("TESSERA_TRACE", "1", 1); /* the trace writes file and expression */
  ok(ts_error_trace(TS_ERR_ARG, NULL, 0, NULL) == TS_ERR_ARG && ts_error_message() != NULL,
     "ts_error_trace with NULL file and expression");
  unsetenv("TESSERA_TRACE");
  EXPECT_EMPTY(ts_precision_name((ts_precision)7));
  expect_fallback((ts_error_clear(), ts_precision_size((ts_precision)-2)) == 0, "ts_precision_size(-2) is 0");
  EXPECT_EMPTY(ts_precision_name(TS_PRECISION_INVALID));
}

static void backends(fixture *f) {
  ts_backend c;
  size_t bytes;
  double copy;
  EXPECT_CREATE("name '(null)' is not valid", c, ts_backend_open(NULL, &c));
  EXPECT_CREATE("not valid", c, ts_backend_open("", &c));
  EXPECT(TS_ERR_ARG, "NULL", ts_backend_open("omp", NULL));
  EXPECT(0, "", ts_backend_destroy(NULL));
  EXPECT_EMPTY(ts_backend_name(NULL));
  EXPECT_EMPTY(ts_backend_description(NULL));
  EXPECT_EMPTY(ts_backend_path(NULL));
  EXPECT(TS_ERR_ARG, "'b' is NULL", ts_backend_memory_available(NULL, &bytes));
  EXPECT(TS_ERR_ARG, "'bytes' is NULL", ts_backend_memory_available(f->b, NULL));
  EXPECT(TS_ERR_ARG, "'names' is NULL", ts_backend_list(NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_backend_measure_ceilings(NULL, &copy, NULL, NULL));
}

static void meshes(fixture *f) {
  ts_mesh m;
  int64_t n[3];
  double h[3];
  const int zero_cells[2] = {0, 2};
  EXPECT(TS_ERR_ARG, "'mesh' is NULL", ts_mesh_create_box(2, lower, upper, cells, 1, NULL));
  EXPECT_CREATE("'lower' is NULL", m, ts_mesh_create_box(2, NULL, upper, cells, 1, &m));
  EXPECT_CREATE("'upper' is NULL", m, ts_mesh_create_box(2, lower, NULL, cells, 1, &m));
  EXPECT_CREATE("'coarse' is NULL", m, ts_mesh_create_box(2, lower, upper, NULL, 1, &m));
  EXPECT_CREATE("dim = 4", m, ts_mesh_create_box(4, lower, upper, cells, 1, &m));
  EXPECT_CREATE("levels = -1", m, ts_mesh_create_box(2, lower, upper, cells, -1, &m));
  EXPECT_CREATE("cells[0] = 0", m, ts_mesh_create_box(2, lower, upper, zero_cells, 1, &m));
  EXPECT_CREATE("lower = 1", m, ts_mesh_create_box(2, upper, lower, cells, 1, &m));
  EXPECT(0, "", ts_mesh_destroy(NULL));
  EXPECT_MINUS_ONE(ts_mesh_dim(NULL));
  EXPECT_MINUS_ONE(ts_mesh_finest_level(NULL));
  EXPECT(TS_ERR_ARG, "'mesh' is NULL", ts_mesh_cells(NULL, 0, n));
  EXPECT(TS_ERR_ARG, "'cells' is NULL", ts_mesh_cells(f->mesh, 0, NULL));
  EXPECT(TS_ERR_ARG, "level 3", ts_mesh_cells(f->mesh, 3, n));
  EXPECT(TS_ERR_ARG, "level -1", ts_mesh_cells(f->mesh, -1, n));
  EXPECT(TS_ERR_ARG, "'mesh' is NULL", ts_mesh_cell_size(NULL, 0, h));
  EXPECT(TS_ERR_ARG, "'h' is NULL", ts_mesh_cell_size(f->mesh, 0, NULL));
  EXPECT(TS_ERR_ARG, "level 5", ts_mesh_cell_size(f->mesh, 5, h));
  EXPECT_NULL(ts_mesh_lower(NULL));
  EXPECT_NULL(ts_mesh_upper(NULL));
}

static int identity(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  for (int64_t i = 0; i < count * dim; ++i) x[i] = xi[i];
  return 0;
}

/* mapped meshes and the problem on them (issue 13) */
static void mapped(fixture *f) {
  ts_mesh m;
  ts_operator A;
  const int k6[3] = {6, 2, 2}, k5[3] = {5, 2, 2};
  const double v[9] = {0, 0, 1, 0, 2, 0, 0, 1, 1};
  double l2, h1;
  EXPECT(TS_ERR_ARG, "'mesh' is NULL", ts_mesh_create_mapped(2, cells, 1, identity, NULL, TS_GEOMETRY_QK, NULL));
  EXPECT_CREATE("'map' is NULL", m, ts_mesh_create_mapped(2, cells, 1, NULL, NULL, TS_GEOMETRY_QK, &m));
  EXPECT_CREATE("geometry = -1", m, ts_mesh_create_mapped(2, cells, 1, identity, NULL, (ts_geometry)-1, &m));
  EXPECT_CREATE("'coarse' is NULL", m, ts_mesh_create_mapped(2, NULL, 1, identity, NULL, TS_GEOMETRY_QK, &m));
  EXPECT_CREATE("dim = 1", m, ts_mesh_create_mapped(1, cells, 1, identity, NULL, TS_GEOMETRY_QK, &m));
  EXPECT_CREATE("'vertices' is NULL", m, ts_mesh_create_vertices(2, cells, 1, NULL, &m));
  EXPECT_CREATE("levels = 31", m, ts_mesh_create_vertices(2, (const int[]){2, 1}, 31, v, &m));
  EXPECT_CREATE("epsilon = 1.5", m, ts_mesh_create_kershaw(2, k6, 1, 1.5, &m));
  EXPECT_CREATE("epsilon = nan", m, ts_mesh_create_kershaw(2, k6, 1, NAN, &m));
  EXPECT_CREATE("cells[0] = 5", m, ts_mesh_create_kershaw(3, k5, 1, 0.5, &m));
  EXPECT_CREATE("'coarse' is NULL", m, ts_mesh_create_kershaw(3, NULL, 1, 0.5, &m));
  EXPECT_CREATE("amplitude = nan", m, ts_mesh_create_sine(2, cells, 1, NAN, &m));
  EXPECT_CREATE("angle = 0", m, ts_mesh_create_shell(2, cells, 1, 1.0, 2.0, 0.0, &m));
  EXPECT_CREATE("inner = -1", m, ts_mesh_create_shell(2, cells, 1, -1.0, 2.0, 1.0, &m));
  EXPECT_MINUS_ONE(ts_mesh_is_mapped(NULL));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_mapped(f->b, f->dofs, NULL, TS_DOUBLE, NULL));
  EXPECT_CREATE("'backend' is NULL", A, ts_operator_create_mapped(NULL, f->dofs, NULL, TS_DOUBLE, &A));
  EXPECT_CREATE("'dofs' is NULL", A, ts_operator_create_mapped(f->b, NULL, NULL, TS_DOUBLE, &A));
  EXPECT_CREATE("box mesh", A, ts_operator_create_mapped(f->b, f->dofs, NULL, TS_DOUBLE, &A));
  EXPECT_CREATE("RT_k element", A, ts_operator_create_mapped(f->b, f->vel, NULL, TS_DOUBLE, &A));
  EXPECT(TS_ERR_ARG, "'A' is NULL", ts_assemble_rhs_mapped(NULL, NULL, NULL, NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "'x0' is NULL", ts_assemble_rhs_mapped(f->A, NULL, NULL, NULL, f->x, NULL));
  EXPECT(TS_ERR_ARG, "the operator is 'laplace'", ts_assemble_rhs_mapped(f->A, NULL, NULL, NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "'dofs' is NULL", ts_compute_errors_mapped(NULL, f->host, identity, identity, NULL, &l2, &h1));
  EXPECT(TS_ERR_ARG, "'values' is NULL", ts_compute_errors_mapped(f->dofs, NULL, identity, identity, NULL, &l2, &h1));
  EXPECT(TS_ERR_ARG, "'u' is NULL", ts_compute_errors_mapped(f->dofs, f->host, NULL, identity, NULL, &l2, &h1));
  EXPECT(TS_ERR_ARG, "'l2_error' is NULL", ts_compute_errors_mapped(f->dofs, f->host, identity, identity, NULL, NULL, &h1));
  EXPECT(TS_ERR_ARG, "box mesh", ts_compute_errors_mapped(f->dofs, f->host, identity, identity, NULL, &l2, &h1));
  EXPECT(TS_ERR_ARG, "DGQ_k element", ts_compute_errors_mapped(f->pres, f->host, identity, identity, NULL, &l2, &h1));
}

static void elements(void) {
  ts_fe e;
  EXPECT_CREATE("degree = 0", e, ts_fe_create_q(2, 0, &e));
  EXPECT_CREATE("dim = 4", e, ts_fe_create_q(4, 1, &e));
  EXPECT(TS_ERR_ARG, "NULL", ts_fe_create_q(2, 1, NULL));
  EXPECT_CREATE("degree = 10", e, ts_fe_create_rt(2, 10, &e));
  EXPECT(TS_ERR_ARG, "NULL", ts_fe_create_rt(2, 0, NULL));
  EXPECT_CREATE("dim = 1", e, ts_fe_create_dgq(1, 0, &e));
  EXPECT_CREATE("degree = -1", e, ts_fe_create_dgq(2, -1, &e));
  EXPECT(TS_ERR_ARG, "NULL", ts_fe_create_dgq(2, 0, NULL));
  EXPECT_CREATE("dim = 1", e, ts_fe_create_rt_ih(1, 0, &e));
  EXPECT_CREATE("degree = 10", e, ts_fe_create_rt_ih(2, 10, &e));
  EXPECT(TS_ERR_ARG, "NULL", ts_fe_create_rt_ih(2, 0, NULL));
  EXPECT_CREATE("dim = 4", e, ts_fe_create_l2_ih(4, 0, &e));
  EXPECT_CREATE("degree = -1", e, ts_fe_create_l2_ih(2, -1, &e));
  EXPECT(TS_ERR_ARG, "NULL", ts_fe_create_l2_ih(2, 0, NULL));
  expect_fallback((ts_error_clear(), ts_fe_family_of(NULL)) == TS_FE_INVALID, "ts_fe_family_of(NULL)");
  EXPECT_MINUS_ONE(ts_fe_components(NULL));
  EXPECT(0, "", ts_fe_destroy(NULL));
  EXPECT_MINUS_ONE(ts_fe_degree(NULL));
  EXPECT_MINUS_ONE(ts_fe_dim(NULL));
  EXPECT_NULL(ts_fe_points_1d(NULL));
}

static void dof_handlers(fixture *f) {
  ts_dofs d;
  int64_t n[3];
  double x[3];
  EXPECT_CREATE("'mesh' is NULL", d, ts_dofs_create(NULL, f->q, 0, &d));
  EXPECT_CREATE("'fe' is NULL", d, ts_dofs_create(f->mesh, NULL, 0, &d));
  EXPECT(TS_ERR_ARG, "'dofs' is NULL", ts_dofs_create(f->mesh, f->q, 0, NULL));
  EXPECT_CREATE("level 3", d, ts_dofs_create(f->mesh, f->q, 3, &d));
  EXPECT_CREATE("level -1", d, ts_dofs_create(f->mesh, f->q, -1, &d));
  EXPECT_CREATE("3D", d, ts_dofs_create(f->mesh, f->q3d, 0, &d));
  EXPECT(0, "", ts_dofs_destroy(NULL));
  EXPECT_MINUS_ONE(ts_dofs_count(NULL));
  EXPECT(TS_ERR_ARG, "'dofs' is NULL", ts_dofs_per_direction(NULL, n));
  EXPECT(TS_ERR_ARG, "'n' is NULL", ts_dofs_per_direction(f->dofs, NULL));
  EXPECT(TS_ERR_ARG, "'dofs' is NULL", ts_dofs_point(NULL, 0, x));
  EXPECT(TS_ERR_ARG, "'x' is NULL", ts_dofs_point(f->dofs, 0, NULL));
  EXPECT(TS_ERR_ARG, "index -1 out of range 0..24", ts_dofs_point(f->dofs, -1, x));
  EXPECT(TS_ERR_ARG, "index 25 out of range 0..24", ts_dofs_point(f->dofs, 25, x));
  EXPECT_MINUS_ONE(ts_dofs_is_boundary(NULL, 0));
  EXPECT_MINUS_ONE(ts_dofs_is_boundary(f->dofs, 25));
  EXPECT_MINUS_ONE(ts_dofs_is_boundary(f->dofs, -1));
  EXPECT_MINUS_ONE(ts_dofs_boundary_count(NULL));
}

static void vectors(fixture *f) {
  ts_vec v;
  double r;
  EXPECT_CREATE("'backend' is NULL", v, ts_vec_create(NULL, 5, TS_DOUBLE, &v));
  EXPECT_CREATE("size -1", v, ts_vec_create(f->b, -1, TS_DOUBLE, &v));
  EXPECT_CREATE("precision 7", v, ts_vec_create(f->b, 5, (ts_precision)7, &v));
  EXPECT(TS_ERR_ARG, "'v' is NULL", ts_vec_create(f->b, 5, TS_DOUBLE, NULL));
  EXPECT(0, "", ts_vec_destroy(NULL));
  EXPECT_MINUS_ONE(ts_vec_size(NULL));
  ts_vec view;
  EXPECT_CREATE("'x' is NULL", view, ts_vec_create_view(NULL, 0, 1, &view));
  EXPECT_CREATE("offset -1 and size 2 do not fit", view, ts_vec_create_view(f->x, -1, 2, &view));
  EXPECT_CREATE("offset + size <= 25", view, ts_vec_create_view(f->x, 20, 6, &view));
  EXPECT(TS_ERR_ARG, "'view' is NULL", ts_vec_create_view(f->x, 0, 1, NULL));
  ts_layout layout;
  EXPECT_CREATE("n = -1, allowed n >= 0", layout, ts_layout_create_serial(-1, &layout));
  EXPECT(TS_ERR_ARG, "'l' is NULL", ts_layout_create_serial(1, NULL));
  EXPECT(0, "", ts_layout_destroy(NULL));
  layout = ts_vec_layout(f->x);
  EXPECT(TS_ERR_ARG, "belongs to a vector", ts_layout_destroy(&layout));
  EXPECT_MINUS_ONE(ts_layout_global_size(NULL));
  EXPECT_MINUS_ONE(ts_layout_begin(NULL));
  EXPECT_MINUS_ONE(ts_layout_end(NULL));
  EXPECT_MINUS_ONE(ts_layout_processes(NULL));
  EXPECT_NULL(ts_vec_layout(NULL));
  expect_fallback((ts_error_clear(), ts_vec_precision(NULL)) == TS_PRECISION_INVALID, "ts_vec_precision(NULL)");
  EXPECT(TS_ERR_ARG, "'v' is NULL", ts_vec_set_from_host(NULL, f->host));
  EXPECT(TS_ERR_ARG, "'values' is NULL", ts_vec_set_from_host(f->x, NULL));
  EXPECT(TS_ERR_ARG, "'v' is NULL", ts_vec_get_to_host(NULL, f->host));
  EXPECT(TS_ERR_ARG, "'values' is NULL", ts_vec_get_to_host(f->x, NULL));
  EXPECT(TS_ERR_ARG, "'v' is NULL", ts_vec_set(NULL, 1.0));
  EXPECT(TS_ERR_ARG, "'v' is NULL", ts_vec_set_random(NULL, 1));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_copy(NULL, f->y));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_copy(f->x, NULL));
  EXPECT(TS_ERR_ARG, "25 and 24", ts_vec_copy(f->x, f->short_vec));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_axpby(1.0, NULL, 1.0, f->y));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_axpby(1.0, f->x, 1.0, NULL));
  EXPECT(TS_ERR_ARG, "25 and 24", ts_vec_axpby(1.0, f->x, 1.0, f->short_vec));
  EXPECT(TS_ERR_ARG, "double and single", ts_vec_axpby(1.0, f->x, 1.0, f->s));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_pointwise_mult(NULL, f->y, f->y));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_pointwise_mult(f->x, NULL, f->y));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_pointwise_mult(f->x, f->y, NULL));
  EXPECT(TS_ERR_ARG, "25 and 24", ts_vec_pointwise_mult(f->x, f->y, f->short_vec));
  EXPECT(TS_ERR_ARG, "double and single", ts_vec_pointwise_mult(f->x, f->s, f->y));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_dot(NULL, f->y, &r));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_vec_dot(f->x, NULL, &r));
  EXPECT(TS_ERR_ARG, "'result' is NULL", ts_vec_dot(f->x, f->y, NULL));
  EXPECT(TS_ERR_ARG, "25 and 24", ts_vec_dot(f->x, f->short_vec, &r));
  EXPECT(TS_ERR_ARG, "double and single", ts_vec_dot(f->x, f->s, &r));
  EXPECT(TS_ERR_ARG, "'x' is NULL", ts_vec_norm(NULL, &r));
  EXPECT(TS_ERR_ARG, "'result' is NULL", ts_vec_norm(f->x, NULL));
  ts_error_clear();
  ok(ts_vec_size(f->x) == 25 && ts_vec_precision(f->s) == TS_SINGLE && ts_error_code() == 0,
     "getters on valid handles return the values and record no error");
}

static void operators(fixture *f) {
  ts_operator op;
  double m;
  EXPECT_CREATE("'backend' is NULL", op, ts_operator_create_laplace(NULL, f->dofs, TS_DOUBLE, &op));
  EXPECT_CREATE("'dofs' is NULL", op, ts_operator_create_laplace(f->b, NULL, TS_DOUBLE, &op));
  EXPECT_CREATE("precision 7", op, ts_operator_create_laplace(f->b, f->dofs, (ts_precision)7, &op));
  EXPECT_CREATE("only Q_k", op, ts_operator_create_laplace(f->b, f->vel, TS_DOUBLE, &op));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_laplace(f->b, f->dofs, TS_DOUBLE, NULL));
  EXPECT_CREATE("'backend' is NULL", op, ts_operator_create_stokes(NULL, f->vel, f->pres, 1.0, TS_DOUBLE, &op));
  EXPECT_CREATE("velocity DoFs are NULL", op, ts_operator_create_stokes(f->b, NULL, f->pres, 1.0, TS_DOUBLE, &op));
  EXPECT_CREATE("pressure DoFs are NULL", op, ts_operator_create_stokes(f->b, f->vel, NULL, 1.0, TS_DOUBLE, &op));
  EXPECT_CREATE("RT_k", op, ts_operator_create_stokes(f->b, f->dofs, f->pres, 1.0, TS_DOUBLE, &op));
  EXPECT_CREATE("penalty = nan", op, ts_operator_create_stokes(f->b, f->vel, f->pres, NAN, TS_DOUBLE, &op));
  EXPECT_CREATE("precision 7", op, ts_operator_create_stokes(f->b, f->vel, f->pres, 1.0, (ts_precision)7, &op));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_stokes(f->b, f->vel, f->pres, 1.0, TS_DOUBLE, NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_stokes_pressure_mean(NULL, f->sx, &m));
  EXPECT(TS_ERR_ARG, "the operator is laplace", ts_stokes_pressure_mean(f->A, f->x, &m));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_stokes_pressure_mean(f->stokes, NULL, &m));
  EXPECT(TS_ERR_ARG, "sizes differ", ts_stokes_pressure_mean(f->stokes, f->x, &m));
  EXPECT(TS_ERR_ARG, "mean is NULL", ts_stokes_pressure_mean(f->stokes, f->sx, NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_stokes_pressure_mean_remove(NULL, f->sx));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_stokes_pressure_mean_remove(f->stokes, NULL));
  EXPECT(TS_ERR_ARG, "sizes differ", ts_stokes_pressure_mean_remove(f->stokes, f->x));
  EXPECT_CREATE("'A' is NULL", op, ts_operator_create_jacobi(NULL, &op));
  EXPECT(TS_ERR_ARG, "'jacobi' is NULL", ts_operator_create_jacobi(f->A, NULL));
  EXPECT(0, "", ts_operator_destroy(NULL));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_apply(NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "input vector is NULL", ts_operator_apply(f->A, NULL, f->y));
  EXPECT(TS_ERR_ARG, "output vector is NULL", ts_operator_apply(f->A, f->x, NULL));
  EXPECT(TS_ERR_ARG, "24 entries, the operator 25", ts_operator_apply(f->A, f->short_vec, f->y));
  EXPECT(TS_ERR_ARG, "single precision", ts_operator_apply(f->A, f->s, f->y));
  EXPECT(TS_ERR_ARG, "different vectors", ts_operator_apply(f->A, f->x, f->x));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_apply_add(NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "output vector is NULL", ts_operator_apply_add(f->A, f->x, NULL));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_diagonal(NULL, f->y));
  EXPECT(TS_ERR_ARG, "diagonal vector is NULL", ts_operator_diagonal(f->A, NULL));
  EXPECT(TS_ERR_ARG, "24 entries", ts_operator_diagonal(f->A, f->short_vec));
  EXPECT(TS_ERR_UNSUPPORTED, "cannot compute its diagonal", ts_operator_diagonal(f->stokes, f->sx));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_apply_unconstrained(NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "output vector is NULL", ts_operator_apply_unconstrained(f->A, f->x, NULL));
  EXPECT_MINUS_ONE(ts_operator_size(NULL));
  EXPECT_MINUS_ONE(ts_operator_columns(NULL));
  ts_operator blk;
  EXPECT_CREATE("'blocks' is NULL", blk, ts_operator_create_block(1, 1, NULL, &blk));
  EXPECT_CREATE("0 x 1 blocks, allowed 1..16", blk, ts_operator_create_block(0, 1, &f->A, &blk));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_block(1, 1, &f->A, NULL));
  ts_operator alg;
  EXPECT_CREATE("'A' is NULL", alg, ts_operator_create_sum(1.0, NULL, 1.0, f->A, &alg));
  EXPECT_CREATE("'B' is NULL", alg, ts_operator_create_sum(1.0, f->A, 1.0, NULL, &alg));
  EXPECT_CREATE("beta = nan, allowed finite", alg, ts_operator_create_sum(1.0, f->A, NAN, f->A, &alg));
  EXPECT_CREATE("is 25 x 25: a sum needs the same rows", alg, ts_operator_create_sum(1.0, f->A, 1.0, f->stokes, &alg));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_sum(1.0, f->A, 1.0, f->A, NULL));
  EXPECT_CREATE("'A' is NULL", alg, ts_operator_create_multiple(2.0, NULL, &alg));
  EXPECT_CREATE("alpha = inf, allowed a finite", alg, ts_operator_create_multiple(INFINITY, f->A, &alg));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_multiple(2.0, f->A, NULL));
  EXPECT_CREATE("'A' is NULL", alg, ts_operator_create_product(NULL, f->A, &alg));
  EXPECT_CREATE("'B' is NULL", alg, ts_operator_create_product(f->A, NULL, &alg));
  EXPECT_CREATE("has 25 columns: A B needs B's rows", alg, ts_operator_create_product(f->A, f->stokes, &alg));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_product(f->A, f->A, NULL));
  EXPECT_CREATE("'A' is NULL", alg, ts_operator_create_transpose(NULL, &alg));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_transpose(f->A, NULL));
  alg = (ts_operator)&alg;
  EXPECT(TS_ERR_UNSUPPORTED, "operator 'stokes' has no transpose", ts_operator_create_transpose(f->stokes, &alg));
  ok(alg == NULL, "ts_operator_create_transpose(f->stokes, &alg) leaves the handle NULL");
  expect_fallback((ts_error_clear(), ts_operator_precision(NULL)) == TS_PRECISION_INVALID,
                  "ts_operator_precision(NULL)");
  EXPECT_NAN(ts_operator_flops(NULL));
  EXPECT_EMPTY(ts_operator_name(NULL));
}

/* the H(div) systems and their data (f->vel is RT_k of the Stokes operator, not the
 * interpolation-histopolation element) */
static void hdiv_systems(fixture *f) {
  const ts_hdiv_coefficients unit = {1.0, 1.0, NULL, NULL};
  const ts_hdiv_data none = {0};
  const int64_t cells[3] = {2, 2, 2};
  ts_hdiv_system s = NULL;
  ts_pc pc = NULL;
  double v[8];
  EXPECT_CREATE("'backend' is NULL", s,
                ts_hdiv_system_create(NULL, f->vel, f->pres, &unit, 0, &s));
  EXPECT_CREATE("'coefficients' is NULL", s,
                ts_hdiv_system_create(f->b, f->vel, f->pres, NULL, 0, &s));
  EXPECT_CREATE("'velocity' is NULL", s,
                ts_hdiv_system_create(f->b, NULL, f->pres, &unit, 0, &s));
  EXPECT_CREATE("interpolation-histopolation", s,
                ts_hdiv_system_create(f->b, f->vel, f->pres, &unit, 0, &s));
  EXPECT(TS_ERR_ARG, "'system' is NULL",
         ts_hdiv_system_create(f->b, f->vel, f->pres, &unit, 0, NULL));
  EXPECT(0, "", ts_hdiv_system_destroy(NULL));
  EXPECT_NULL(ts_hdiv_system_operator(NULL));
  EXPECT_NULL(ts_hdiv_system_block(NULL, 0, 0));
  EXPECT_NULL(ts_hdiv_system_schur_pc(NULL));
  EXPECT_MINUS_ONE(ts_hdiv_system_is_singular(NULL));
  EXPECT_CREATE("'system' is NULL", pc, ts_hdiv_system_create_pc(NULL, 0, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_hdiv_system_create_pc(NULL, 0, NULL));
  EXPECT(TS_ERR_ARG, "'system' is NULL", ts_hdiv_system_rhs(NULL, &none, v, v));
  EXPECT(TS_ERR_ARG, "'system' is NULL",
         ts_hdiv_system_solve(NULL, TS_SOLVER_MINRES, 1e-8, 10, v, v, NULL));
  EXPECT(TS_ERR_ARG, "'system' is NULL", ts_hdiv_system_pressure(NULL, v, v));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_hdiv_boundary_fluxes(NULL, 0, NULL, NULL, v));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_hdiv_boundary_pressure(f->vel, 0, NULL, NULL, v));
  EXPECT(TS_ERR_ARG, "'values' is NULL", ts_cell_values_lognormal(3, cells, 1e7, 1, NULL));
  EXPECT(TS_ERR_ARG, "dim = 4", ts_cell_values_lognormal(4, cells, 1e7, 1, v));
  EXPECT(TS_ERR_ARG, "'mesh' is NULL", ts_cell_values_crooked_pipe(NULL, 0, 1.0, 2.0, v));
  const double point[2] = {0.5, 0.5}, negative_beta = -1.0;
  double out[2];
  EXPECT(TS_ERR_ARG, "ctx is NULL", ts_darcy_smooth_velocity(NULL, 2, 1, point, out));
  EXPECT(TS_ERR_ARG, "beta = *ctx = -1",
         ts_darcy_smooth_divergence((void *)&negative_beta, 2, 1, point, out));
  EXPECT(TS_ERR_ARG, "dim = 4", ts_darcy_smooth_pressure(NULL, 4, 1, point, out));
}

static void sparse_matrices(fixture *f) {
  const int64_t i[1] = {0}, j[1] = {1};
  const double v[1] = {2.0};
  ts_matrix M = NULL, rect = NULL;
  ts_operator op;
  if (ts_matrix_create_triplets(2, 3, 1, i, j, v, &rect)) diag("%s", ts_error_message());
  EXPECT_CREATE("'rows' is 0", M, ts_matrix_create_triplets(0, 3, 0, NULL, NULL, NULL, &M));
  EXPECT_CREATE("'cols' is -1", M, ts_matrix_create_triplets(2, -1, 0, NULL, NULL, NULL, &M));
  EXPECT_CREATE("'count' is -1", M, ts_matrix_create_triplets(2, 3, -1, NULL, NULL, NULL, &M));
  EXPECT_CREATE("'values' is NULL", M, ts_matrix_create_triplets(2, 3, 1, i, j, NULL, &M));
  EXPECT(TS_ERR_ARG, "'A' is NULL", ts_matrix_create_triplets(2, 3, 1, i, j, v, NULL));
  EXPECT_CREATE("'dofs' is NULL", M, ts_matrix_assemble_laplace(NULL, &M));
  EXPECT_CREATE("only Q_k", M, ts_matrix_assemble_laplace(f->vel, &M));
  EXPECT(TS_ERR_ARG, "'A' is NULL", ts_matrix_assemble_laplace(f->dofs, NULL));
  EXPECT_CREATE("'velocity' is NULL", M, ts_matrix_assemble_divergence(NULL, f->pres, &M));
  EXPECT_CREATE("'pressure' is NULL", M, ts_matrix_assemble_divergence(f->vel, NULL, &M));
  EXPECT_CREATE("interpolation-histopolation", M, ts_matrix_assemble_divergence(f->vel, f->pres, &M));
  EXPECT(TS_ERR_ARG, "'D' is NULL", ts_matrix_assemble_divergence(f->vel, f->pres, NULL));
  EXPECT(TS_ERR_ARG, "'dofs' is NULL", ts_dofs_mass_diagonal(NULL, 1.0, NULL, NULL));
  EXPECT(TS_ERR_ARG, "'diagonal' is NULL", ts_dofs_mass_diagonal(f->pres, 1.0, NULL, NULL));
  const ts_hdiv_coefficients unit = {1.0, 1.0, NULL, NULL}, bad_beta = {1.0, NAN, NULL, NULL};
  EXPECT_CREATE("beta = nan", M, ts_matrix_assemble_hdiv_schur(f->vel, f->pres, &bad_beta, 0, &M));
  EXPECT_CREATE("interpolation-histopolation", M,
                ts_matrix_assemble_hdiv_schur(f->vel, f->pres, &unit, 0, &M));
  EXPECT_CREATE("'coefficients' is NULL", M, ts_matrix_assemble_hdiv_schur(f->vel, f->pres, NULL, 0, &M));
  EXPECT(TS_ERR_ARG, "'S' is NULL", ts_matrix_assemble_hdiv_schur(f->vel, f->pres, &unit, 0, NULL));
  EXPECT_CREATE("'A' is NULL", M, ts_matrix_transpose(NULL, &M));
  EXPECT(TS_ERR_ARG, "'T' is NULL", ts_matrix_transpose(NULL, NULL));
  EXPECT_CREATE("'A' is NULL", M, ts_matrix_multiply(NULL, NULL, &M));
  EXPECT(TS_ERR_ARG, "'C' is NULL", ts_matrix_multiply(NULL, NULL, NULL));
  EXPECT_CREATE("'A' is NULL", M, ts_matrix_multiply_on(NULL, NULL, NULL, &M));
  EXPECT(TS_ERR_ARG, "'C' is NULL", ts_matrix_multiply_on(NULL, NULL, NULL, NULL));
  EXPECT(TS_ERR_ARG, "'A' is NULL", ts_matrix_scale(NULL, NULL, NULL));
  EXPECT(TS_ERR_ARG, "'A' is NULL", ts_matrix_add_diagonal(NULL, NULL));
  EXPECT_CREATE("'A' is NULL", M, ts_matrix_kronecker(NULL, NULL, &M));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_hdiv_load_vector(NULL, NULL, NULL, NULL));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_hdiv_l2_error(f->vel, NULL, NULL, NULL, NULL));
  EXPECT(TS_ERR_ARG, "'C' is NULL", ts_matrix_kronecker(NULL, NULL, NULL));
  EXPECT_CREATE("'dofs' is NULL", M, ts_matrix_assemble_mass(NULL, 1.0, NULL, &M));
  EXPECT_CREATE("interpolation-histopolation", M, ts_matrix_assemble_mass(f->pres, 1.0, NULL, &M));
  EXPECT(TS_ERR_ARG, "'M' is NULL", ts_matrix_assemble_mass(f->pres, 1.0, NULL, NULL));
  EXPECT_CREATE("'dofs' is NULL", M, ts_matrix_assemble_mass_inverse(NULL, 1.0, NULL, &M));
  EXPECT(TS_ERR_ARG, "'M' is NULL", ts_matrix_assemble_mass_inverse(f->pres, 1.0, NULL, NULL));
  EXPECT(0, "", ts_matrix_destroy(NULL));
  EXPECT_MINUS_ONE(ts_matrix_rows(NULL));
  EXPECT_MINUS_ONE(ts_matrix_columns(NULL));
  EXPECT_MINUS_ONE(ts_matrix_nonzeros(NULL));
  EXPECT(TS_ERR_ARG, "'A' is NULL", ts_matrix_csr(NULL, NULL, NULL, NULL));
  EXPECT_CREATE("'backend' is NULL", op, ts_operator_create_matrix(NULL, rect, TS_DOUBLE, &op));
  EXPECT_CREATE("'A' is NULL", op, ts_operator_create_matrix(f->b, NULL, TS_DOUBLE, &op));
  EXPECT_CREATE("'p' is 7", op, ts_operator_create_matrix(f->b, rect, (ts_precision)7, &op));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_matrix(f->b, rect, TS_DOUBLE, NULL));
  EXPECT_CREATE("'backend' is NULL", op, ts_operator_create_boomeramg(NULL, rect, &op));
  EXPECT_CREATE("'A' is NULL", op, ts_operator_create_boomeramg(f->b, NULL, &op));
  EXPECT_CREATE("'A' is 2 x 3", op, ts_operator_create_boomeramg(f->b, rect, &op));
  EXPECT(TS_ERR_ARG, "'P' is NULL", ts_operator_create_boomeramg(f->b, rect, NULL));
  ts_matrix_destroy(&rect);
  hdiv_systems(f);
}

static void preconditioners(fixture *f) {
  ts_pc pc, jac = NULL;
  ts_operator op, bt = NULL;
  EXPECT_CREATE("'stokes' is NULL", op, ts_operator_create_stokes_block(NULL, 0, 0, &op));
  EXPECT_CREATE("the operator is laplace", op, ts_operator_create_stokes_block(f->A, 0, 0, &op));
  EXPECT_CREATE("block (1,1), allowed (0,0) A", op, ts_operator_create_stokes_block(f->stokes, 1, 1, &op));
  EXPECT_CREATE("block (2,0)", op, ts_operator_create_stokes_block(f->stokes, 2, 0, &op));
  EXPECT(TS_ERR_ARG, "'block' is NULL", ts_operator_create_stokes_block(f->stokes, 0, 0, NULL));
  EXPECT_CREATE("'stokes' is NULL", op, ts_operator_create_stokes_symmetric(NULL, &op));
  EXPECT_CREATE("the operator is laplace", op, ts_operator_create_stokes_symmetric(f->A, &op));
  EXPECT(TS_ERR_ARG, "'op' is NULL", ts_operator_create_stokes_symmetric(f->stokes, NULL));
  EXPECT(0, "", ts_operator_create_stokes_block(f->stokes, 0, 1, &bt));
  EXPECT_CREATE("'A' is NULL", pc, ts_pc_create_jacobi(NULL, &pc));
  EXPECT_CREATE("a preconditioner needs a square one", pc, ts_pc_create_jacobi(bt, &pc));
  pc = (ts_pc)&pc;
  EXPECT(TS_ERR_UNSUPPORTED, "cannot compute its diagonal", ts_pc_create_jacobi(f->stokes, &pc));
  ok(pc == NULL, "ts_pc_create_jacobi of an operator without a diagonal leaves the handle NULL");
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_jacobi(f->A, NULL));
  EXPECT_CREATE("'A' is NULL", pc, ts_pc_create_chebyshev(NULL, 3, &pc));
  EXPECT_CREATE("degree = 0, allowed 1..20", pc, ts_pc_create_chebyshev(f->A, 0, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_chebyshev(f->A, 3, NULL));
  EXPECT_CREATE("'smoother' is NULL", pc, ts_pc_create_smoother(NULL, &pc));
  {
    ts_smoother s = NULL; /* owned by ts_pc_create_smoother, destroyed when it fails */
    EXPECT(0, "", ts_smoother_create_chebyshev(f->A, 2, &s));
    EXPECT(TS_ERR_ARG, "pc is NULL", ts_pc_create_smoother(s, NULL));
  }
  EXPECT_CREATE("'mg' is NULL", pc, ts_pc_create_mg(NULL, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_mg(f->mg, NULL));
  EXPECT_CREATE("'P' is NULL", pc, ts_pc_create_operator(NULL, &pc));
  EXPECT_CREATE("needs a square one", pc, ts_pc_create_operator(bt, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_operator(f->A, NULL));
  EXPECT_CREATE("'A' is NULL", pc, ts_pc_create_krylov(NULL, TS_SOLVER_CG, NULL, 1e-6, 10, &pc));
  EXPECT_CREATE("type 9 unknown", pc, ts_pc_create_krylov(f->A, (ts_solver_type)9, NULL, 1e-6, 10, &pc));
  EXPECT_CREATE("rtol = 2, allowed 0 < rtol < 1", pc, ts_pc_create_krylov(f->A, TS_SOLVER_CG, NULL, 2.0, 10, &pc));
  EXPECT_CREATE("max_iterations = 0", pc, ts_pc_create_krylov(f->A, TS_SOLVER_CG, NULL, 1e-6, 0, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_krylov(f->A, TS_SOLVER_CG, NULL, 1e-6, 10, NULL));
  EXPECT_CREATE("the operator is NULL", pc, ts_pc_create_pressure_mass(NULL, &pc));
  EXPECT_CREATE("the operator is laplace", pc, ts_pc_create_pressure_mass(f->A, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_pressure_mass(f->stokes, NULL));
  EXPECT(0, "", ts_pc_create_jacobi(f->A, &jac));
  const ts_pc two[2] = {jac, NULL};
  EXPECT_CREATE("'diagonal' is NULL", pc, ts_pc_create_block_diagonal(1, NULL, &pc));
  EXPECT_CREATE("n = 0 blocks, allowed 1..16", pc, ts_pc_create_block_diagonal(0, two, &pc));
  EXPECT_CREATE("diagonal[1] is NULL", pc, ts_pc_create_block_diagonal(2, two, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_block_diagonal(1, two, NULL));
  EXPECT_CREATE("shape = 5, allowed TS_PC_LOWER", pc, ts_pc_create_block_triangular((ts_pc_shape)5, jac, f->A, jac, &pc));
  EXPECT_CREATE("'a_inverse' is NULL", pc, ts_pc_create_block_triangular(TS_PC_LOWER, NULL, f->A, jac, &pc));
  EXPECT_CREATE("'coupling' is NULL", pc, ts_pc_create_block_triangular(TS_PC_LOWER, jac, NULL, jac, &pc));
  EXPECT_CREATE("'s_inverse' is NULL", pc, ts_pc_create_block_triangular(TS_PC_LOWER, jac, f->A, NULL, &pc));
  EXPECT_CREATE("the lower shape needs 25 x 25", pc, ts_pc_create_block_triangular(TS_PC_LOWER, jac, bt, jac, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_block_triangular(TS_PC_UPPER, jac, f->A, jac, NULL));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_boomeramg(f->b, NULL, NULL));
  EXPECT_CREATE("'backend' is NULL", pc, ts_pc_create_boomeramg(NULL, NULL, &pc));
  EXPECT_CREATE("'A' is NULL", pc, ts_pc_create_boomeramg(f->b, NULL, &pc));
  static const int64_t origin = 0;
  static const double one = 1.0;
  ts_matrix unit = NULL;
  EXPECT(0, "", ts_matrix_create_triplets(1, 1, 1, &origin, &origin, &one, &unit));
  ts_amg_options amg;
  ts_amg_options_default(&amg);
  ok(amg.prolongation_filter == 1, "ts_amg_options_default: prolongation_filter = %d (1)",
     amg.prolongation_filter);
  amg.prolongation_filter = 2;
  EXPECT_CREATE("prolongation_filter = 2, allowed 0 (the prolongation smoothed with A) or 1",
                pc, ts_pc_create_amg(f->b, unit, &amg, &pc, NULL));
  amg.prolongation_filter = -1;
  EXPECT_CREATE("prolongation_filter = -1, allowed 0", pc,
                ts_pc_create_amg(f->b, unit, &amg, &pc, NULL));
  ts_matrix_destroy(&unit);
  const ts_operator levels_A[2] = {f->A, f->A};
  EXPECT_CREATE("levels = 0, allowed 1..32", pc, ts_pc_create_multigrid(0, levels_A, NULL, NULL, 1, jac, &pc));
  EXPECT_CREATE("'A' is NULL", pc, ts_pc_create_multigrid(1, NULL, NULL, NULL, 1, jac, &pc));
  EXPECT_CREATE("'P' is NULL", pc, ts_pc_create_multigrid(2, levels_A, NULL, two, 1, jac, &pc));
  EXPECT_CREATE("smoothing_steps = 0", pc, ts_pc_create_multigrid(1, levels_A, NULL, NULL, 0, jac, &pc));
  EXPECT_CREATE("coarse is NULL", pc, ts_pc_create_multigrid(1, levels_A, NULL, NULL, 1, NULL, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_multigrid(1, levels_A, NULL, NULL, 1, jac, NULL));
  EXPECT(TS_ERR_ARG, "not a multigrid-levels", ts_pc_multigrid_fmg_solve(NULL, f->x, f->y, 1e-8, 10, NULL));
  EXPECT(TS_ERR_ARG, "not a multigrid-levels", ts_pc_multigrid_fmg_solve(jac, f->x, f->y, 1e-8, 10, NULL));
  EXPECT(TS_ERR_ARG, "not a multigrid-levels", ts_pc_multigrid_set_monitor(NULL, NULL, NULL));
  EXPECT(TS_ERR_ARG, "not a multigrid-levels", ts_pc_multigrid_set_monitor(jac, NULL, NULL));
  EXPECT_CREATE("'mg' is NULL", pc, ts_pc_create_stokes_velocity_mg(NULL, 3, 1, &pc));
  EXPECT_CREATE("a Stokes one (ts_mg_create_stokes) is required", pc, ts_pc_create_stokes_velocity_mg(f->mg, 3, 1, &pc));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_create_stokes_velocity_mg(f->mg, 3, 1, NULL));
  EXPECT_CREATE("multigrid object is NULL", op, ts_mg_transfer_operator(NULL, 1, &op));
  EXPECT_CREATE("level 9, allowed 1..2", op, ts_mg_transfer_operator(f->mg, 9, &op));
  EXPECT(TS_ERR_ARG, "'P' is NULL", ts_mg_transfer_operator(f->mg, 1, NULL));
  EXPECT_CREATE("a Stokes one (ts_mg_create_stokes) is required", op, ts_mg_velocity_transfer_operator(f->mg, 1, &op));
  EXPECT(TS_ERR_ARG, "'P' is NULL", ts_mg_velocity_transfer_operator(f->mg, 1, NULL));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_setup(NULL));
  EXPECT(TS_ERR_ARG, "'pc' is NULL", ts_pc_apply(NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "input vector is NULL", ts_pc_apply(jac, NULL, f->y));
  EXPECT(TS_ERR_ARG, "24 entries", ts_pc_apply(jac, f->short_vec, f->y));
  EXPECT(TS_ERR_ARG, "single precision", ts_pc_apply(jac, f->s, f->y));
  EXPECT(TS_ERR_ARG, "different vectors", ts_pc_apply(jac, f->x, f->x));
  EXPECT_NULL(ts_pc_operator(NULL));
  EXPECT_EMPTY(ts_pc_name(NULL));
  EXPECT(TS_ERR_ARG, "'(null)' unknown, allowed: jacobi", ts_pc_type_check(NULL));
  EXPECT(TS_ERR_ARG, "'solver' is NULL", ts_solver_set_pc(NULL, jac));
  EXPECT(0, "", ts_pc_destroy(NULL));
  ts_pc_destroy(&jac);
  ts_operator_destroy(&bt);
}

static void smoothers(fixture *f) {
  ts_smoother s;
  EXPECT_CREATE("the operator A is NULL", s, ts_smoother_create_vertex_patch(NULL, f->dofs, TS_PATCH_FUSED, &s));
  EXPECT_CREATE("dofs is NULL", s, ts_smoother_create_vertex_patch(f->A, NULL, TS_PATCH_FUSED, &s));
  EXPECT_CREATE("variant 7", s, ts_smoother_create_vertex_patch(f->A, f->dofs, (ts_patch_variant)7, &s));
  EXPECT_CREATE("only 'laplace'", s, ts_smoother_create_vertex_patch(f->stokes, f->dofs, TS_PATCH_FUSED, &s));
  EXPECT(TS_ERR_ARG, "NULL", ts_smoother_create_vertex_patch(f->A, f->dofs, TS_PATCH_FUSED, NULL));
  EXPECT_CREATE("'stokes' is NULL", s,
                ts_smoother_create_stokes_patch(NULL, f->vel, f->pres, TS_STOKES_PATCH_SCHUR, &s));
  EXPECT_CREATE("velocity DoF handler is NULL", s,
                ts_smoother_create_stokes_patch(f->stokes, NULL, f->pres, TS_STOKES_PATCH_SCHUR, &s));
  EXPECT_CREATE("pressure DoF handler is NULL", s,
                ts_smoother_create_stokes_patch(f->stokes, f->vel, NULL, TS_STOKES_PATCH_SCHUR, &s));
  EXPECT_CREATE("solver = 7", s,
                ts_smoother_create_stokes_patch(f->stokes, f->vel, f->pres, (ts_stokes_patch_solver)7, &s));
  EXPECT_CREATE("Stokes operator is required", s,
                ts_smoother_create_stokes_patch(f->A, f->vel, f->pres, TS_STOKES_PATCH_SCHUR, &s));
  EXPECT(TS_ERR_ARG, "'smoother' is NULL",
         ts_smoother_create_stokes_patch(f->stokes, f->vel, f->pres, TS_STOKES_PATCH_SCHUR, NULL));
  EXPECT(TS_ERR_ARG, "not a Stokes", ts_smoother_stokes_patch_set_cg_tolerance(NULL, 0.1));
  EXPECT(TS_ERR_ARG, "not a Stokes", ts_smoother_stokes_patch_set_cg_tolerance(f->cheb, 0.1));
  EXPECT(TS_ERR_ARG, "CG tolerance 2", ts_smoother_stokes_patch_set_cg_tolerance(f->stokes_smoother, 2.0));
  EXPECT(TS_ERR_ARG, "CG tolerance nan", ts_smoother_stokes_patch_set_cg_tolerance(f->stokes_smoother, NAN));
  EXPECT_MINUS_ONE(ts_stokes_patch_solver_max_degree(1, TS_STOKES_PATCH_SCHUR));
  EXPECT_MINUS_ONE(ts_stokes_patch_solver_max_degree(2, (ts_stokes_patch_solver)7));
  EXPECT_CREATE("'A' is NULL", s, ts_smoother_create_chebyshev(NULL, 3, &s));
  EXPECT_CREATE("degree 0", s, ts_smoother_create_chebyshev(f->A, 0, &s));
  EXPECT_CREATE("degree 21", s, ts_smoother_create_chebyshev(f->A, 21, &s));
  EXPECT(TS_ERR_ARG, "'smoother' is NULL", ts_smoother_create_chebyshev(f->A, 3, NULL));
  EXPECT(TS_ERR_ARG, "'smoother' is NULL", ts_smoother_apply(NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "input vector is NULL", ts_smoother_apply(f->cheb, NULL, f->y));
  EXPECT(TS_ERR_ARG, "24 entries", ts_smoother_apply(f->cheb, f->x, f->short_vec));
  EXPECT(TS_ERR_ARG, "different vectors", ts_smoother_apply(f->cheb, f->x, f->x));
  EXPECT_EMPTY(ts_smoother_name(NULL));
  EXPECT(0, "", ts_smoother_destroy(NULL));
}

static int stop_monitor(void *ctx, int iteration, double relative_residual) {
  (void)ctx;
  (void)iteration;
  (void)relative_residual;
  return 1;
}

static void solvers(fixture *f) {
  ts_solver s;
  ts_solver_type type;
  ts_side side;
  int count = 7;
  EXPECT_CREATE("type 7", s, ts_solver_create((ts_solver_type)7, &s));
  EXPECT(TS_ERR_ARG, "'solver' is NULL", ts_solver_create(TS_SOLVER_CG, NULL));
  EXPECT(0, "", ts_solver_destroy(NULL));
  EXPECT(TS_ERR_ARG, "'(null)' unknown", ts_solver_type_from_name(NULL, &type));
  EXPECT(TS_ERR_ARG, "'bicg' unknown, allowed: cg, gmres, fgmres, minres", ts_solver_type_from_name("bicg", &type));
  EXPECT(TS_ERR_ARG, "'type' is NULL", ts_solver_type_from_name("cg", NULL));
  EXPECT(TS_ERR_ARG, "'s' is NULL", ts_solver_set_operator(NULL, f->A));
  EXPECT(TS_ERR_ARG, "operator is NULL", ts_solver_set_operator(f->solver, NULL));
  EXPECT(TS_ERR_ARG, "'s' is NULL", ts_solver_set_preconditioner(NULL, f->A));
  EXPECT(TS_ERR_ARG, "'s' is NULL", ts_solver_set_side(NULL, TS_SIDE_LEFT));
  EXPECT(TS_ERR_ARG, "side 7 unknown", ts_solver_set_side(f->solver, (ts_side)7));
  EXPECT(TS_ERR_ARG, "'(null)' unknown", ts_side_from_name(NULL, &side));
  EXPECT(TS_ERR_ARG, "'up' unknown", ts_side_from_name("up", &side));
  EXPECT(TS_ERR_ARG, "'side' is NULL", ts_side_from_name("left", NULL));
  EXPECT(TS_ERR_ARG, "'s' is NULL", ts_solver_set_tolerances(NULL, 1e-6, 10));
  EXPECT(TS_ERR_ARG, "rtol = 0", ts_solver_set_tolerances(f->solver, 0.0, 10));
  EXPECT(TS_ERR_ARG, "rtol = nan", ts_solver_set_tolerances(f->solver, NAN, 10));
  EXPECT(TS_ERR_ARG, "max_iterations = 0", ts_solver_set_tolerances(f->solver, 1e-6, 0));
  EXPECT(TS_ERR_ARG, "'s' is NULL", ts_solver_set_restart(NULL, 10));
  EXPECT(TS_ERR_ARG, "restart = 0", ts_solver_set_restart(f->solver, 0));
  EXPECT(TS_ERR_ARG, "restart = 1001", ts_solver_set_restart(f->solver, 1001));
  EXPECT(TS_ERR_ARG, "'s' is NULL", ts_solver_set_monitor(NULL, stop_monitor, NULL));
  EXPECT(TS_ERR_ARG, "'s' is NULL", ts_solver_solve(NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "no operator set", ts_solver_solve(f->solver, f->x, f->y));
  EXPECT(0, "", ts_solver_set_operator(f->solver, f->A));
  EXPECT(TS_ERR_ARG, "input vector is NULL", ts_solver_solve(f->solver, NULL, f->y));
  EXPECT(TS_ERR_ARG, "24 entries", ts_solver_solve(f->solver, f->short_vec, f->y));
  EXPECT(TS_ERR_ARG, "different vectors", ts_solver_solve(f->solver, f->x, f->x));
  EXPECT_MINUS_ONE(ts_solver_iterations(NULL));
  EXPECT_NAN(ts_solver_relative_residual(NULL));
  EXPECT_NULL(ts_solver_history(NULL, &count));
  ok(count == 0, "ts_solver_history(NULL, &count) sets count to 0 (%d)", count);
  EXPECT_NULL(ts_solver_history(f->solver, NULL));
}

static void multigrid(fixture *f) {
  ts_mg m;
  ts_mg_smoother_type type;
  ts_mg_options o;
  ts_mg_level_timing t;
  int it;
  double rr;
  EXPECT_VOID(ts_mg_options_default(NULL));
  EXPECT(TS_ERR_ARG, "'(null)' unknown", ts_mg_smoother_from_name(NULL, &type));
  EXPECT(TS_ERR_ARG, "'jacobi' unknown", ts_mg_smoother_from_name("jacobi", &type));
  EXPECT(TS_ERR_ARG, "'type' is NULL", ts_mg_smoother_from_name("chebyshev", NULL));
  EXPECT_CREATE("'backend' is NULL", m, ts_mg_create(NULL, f->mesh, f->q, 2, NULL, &m));
  EXPECT_CREATE("'mesh' is NULL", m, ts_mg_create(f->b, NULL, f->q, 2, NULL, &m));
  EXPECT_CREATE("'fe' is NULL", m, ts_mg_create(f->b, f->mesh, NULL, 2, NULL, &m));
  EXPECT_CREATE("finest level 3", m, ts_mg_create(f->b, f->mesh, f->q, 3, NULL, &m));
  EXPECT_CREATE("finest level -1", m, ts_mg_create(f->b, f->mesh, f->q, -1, NULL, &m));
  EXPECT_CREATE("only Q_k", m, ts_mg_create(f->b, f->mesh, f->rt, 2, NULL, &m));
  EXPECT(TS_ERR_ARG, "'mg' is NULL", ts_mg_create(f->b, f->mesh, f->q, 2, NULL, NULL));
  ts_mg_options_default(&o);
  o.coarse_level = 5;
  EXPECT_CREATE("coarse level 5", m, ts_mg_create(f->b, f->mesh, f->q, 2, &o, &m));
  ts_mg_options_default(&o);
  o.chebyshev_degree = 0;
  EXPECT_CREATE("Chebyshev degree 0", m, ts_mg_create(f->b, f->mesh, f->q, 2, &o, &m));
  EXPECT_CREATE("'backend' is NULL", m, ts_mg_create_stokes(NULL, f->mesh, 0, 2, NULL, &m));
  EXPECT_CREATE("'mesh' is NULL", m, ts_mg_create_stokes(f->b, NULL, 0, 2, NULL, &m));
  EXPECT_CREATE("k = -1", m, ts_mg_create_stokes(f->b, f->mesh, -1, 2, NULL, &m));
  EXPECT_CREATE("k = 10", m, ts_mg_create_stokes(f->b, f->mesh, 10, 2, NULL, &m));
  EXPECT_CREATE("finest level 3", m, ts_mg_create_stokes(f->b, f->mesh, 0, 3, NULL, &m));
  EXPECT(TS_ERR_ARG, "'mg' is NULL", ts_mg_create_stokes(f->b, f->mesh, 0, 2, NULL, NULL));
  ts_mg_options_default(&o);
  o.stokes_penalty = -1.0;
  EXPECT_CREATE("eta = -1", m, ts_mg_create_stokes(f->b, f->mesh, 0, 2, &o, &m));
  EXPECT(0, "", ts_mg_destroy(NULL));
  EXPECT_NULL(ts_mg_dofs(NULL));
  EXPECT_NULL(ts_mg_pressure_dofs(NULL));
  EXPECT_NULL(ts_mg_operator(NULL));
  EXPECT_NULL(ts_mg_preconditioner(NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_mg_fmg_solve(NULL, f->fine, f->y, 1e-6, 10, &it, &rr));
  EXPECT(TS_ERR_ARG, "input vector is NULL", ts_mg_fmg_solve(f->mg, NULL, f->fine, 1e-6, 10, &it, &rr));
  EXPECT(TS_ERR_ARG, "25 entries, the operator 81", ts_mg_fmg_solve(f->mg, f->x, f->fine, 1e-6, 10, &it, &rr));
  EXPECT(TS_ERR_ARG, "rtol = 0", ts_mg_fmg_solve(f->mg, f->fine, f->fine, 0.0, 10, &it, &rr));
  EXPECT(TS_ERR_ARG, "max_iterations = -1", ts_mg_fmg_solve(f->mg, f->fine, f->fine, 1e-6, -1, &it, &rr));
  EXPECT(TS_ERR_ARG, "NULL", ts_mg_set_monitor(NULL, stop_monitor, NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_mg_prolongate(NULL, 2, f->coarse, f->fine));
  EXPECT(TS_ERR_ARG, "level 0, allowed 1..2", ts_mg_prolongate(f->mg, 0, f->coarse, f->fine));
  EXPECT(TS_ERR_ARG, "level 3, allowed 1..2", ts_mg_prolongate(f->mg, 3, f->coarse, f->fine));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_mg_prolongate(f->mg, 2, NULL, f->fine));
  EXPECT(TS_ERR_ARG, "the levels need 25 and 81", ts_mg_prolongate(f->mg, 2, f->short_vec, f->fine));
  EXPECT(TS_ERR_ARG, "NULL", ts_mg_restrict(NULL, 2, f->fine, f->coarse));
  EXPECT(TS_ERR_ARG, "level 0, allowed 1..2", ts_mg_restrict(f->mg, 0, f->fine, f->coarse));
  EXPECT(TS_ERR_ARG, "NULL vector", ts_mg_restrict(f->mg, 2, f->fine, NULL));
  EXPECT(TS_ERR_ARG, "the levels need 81 and 25", ts_mg_restrict(f->mg, 2, f->fine, f->short_vec));
  EXPECT_NULL(ts_mg_smoother(NULL, 1));
  EXPECT_NULL(ts_mg_smoother(f->mg, 3));
  ts_error_clear();
  ok(ts_mg_smoother(f->mg, 0) == NULL && ts_error_code() == 0 && ts_mg_smoother(f->mg, 1) != NULL,
     "ts_mg_smoother: NULL without an error on the coarsest level, a smoother above");
  EXPECT_NULL(ts_mg_level_operator(NULL, 0));
  EXPECT_NULL(ts_mg_level_operator(f->mg, -1));
  EXPECT_MINUS_ONE(ts_mg_coarse_level(NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_mg_level_timing_get(NULL, 0, &t));
  EXPECT(TS_ERR_ARG, "level 3, allowed 0..2", ts_mg_level_timing_get(f->mg, 3, &t));
  EXPECT(TS_ERR_ARG, "'timing' is NULL", ts_mg_level_timing_get(f->mg, 0, NULL));
  EXPECT_VOID(ts_mg_reset_timings(NULL));
  double seconds;
  EXPECT(TS_ERR_ARG, "'mg' is NULL", ts_mg_setup_seconds(NULL, TS_SETUP_DOFS, &seconds));
  EXPECT(TS_ERR_ARG, "phase 8, allowed 0..7", ts_mg_setup_seconds(f->mg, TS_SETUP_PHASES, &seconds));
  EXPECT(TS_ERR_ARG, "'seconds' is NULL", ts_mg_setup_seconds(f->mg, TS_SETUP_DOFS, NULL));
  EXPECT_NULL(ts_setup_phase_name(TS_SETUP_PHASES));
  EXPECT_NULL(ts_setup_phase_name((ts_setup_phase)-1));
}

static void manufactured(fixture *f) {
  const ts_solution *u;
  const ts_stokes_solution *su;
  double l2, h1, *x = f->host;
  EXPECT(TS_ERR_ARG, "'(null)' unknown, allowed: sine, exp", ts_solution_by_name(NULL, &u));
  EXPECT(TS_ERR_ARG, "'nosuch' unknown", ts_solution_by_name("nosuch", &u));
  EXPECT(TS_ERR_ARG, "'solution' is NULL", ts_solution_by_name("sine", NULL));
  ok(ts_solution_names() && ts_rhs_one(), "ts_solution_names and ts_rhs_one take no argument");
  EXPECT(TS_ERR_ARG, "NULL", ts_assemble_rhs(NULL, f->dofs, f->u, f->x, f->y));
  EXPECT(TS_ERR_ARG, "NULL", ts_assemble_rhs(f->A, NULL, f->u, f->x, f->y));
  EXPECT(TS_ERR_ARG, "NULL", ts_assemble_rhs(f->A, f->dofs, NULL, f->x, f->y));
  EXPECT(TS_ERR_ARG, "NULL", ts_assemble_rhs(f->A, f->dofs, f->u, NULL, f->y));
  EXPECT(TS_ERR_ARG, "NULL", ts_assemble_rhs(f->A, f->dofs, f->u, f->x, NULL));
  EXPECT(TS_ERR_ARG, "25 entries", ts_assemble_rhs(f->A, f->dofs, f->u, f->short_vec, f->y));
  EXPECT(TS_ERR_ARG, "only Q_k", ts_assemble_rhs(f->A, f->vel, f->u, f->x, f->y));
  EXPECT(TS_ERR_ARG, "NULL", ts_compute_errors(NULL, x, f->u, &l2, &h1));
  EXPECT(TS_ERR_ARG, "NULL", ts_compute_errors(f->dofs, NULL, f->u, &l2, &h1));
  EXPECT(TS_ERR_ARG, "NULL", ts_compute_errors(f->dofs, x, NULL, &l2, &h1));
  EXPECT(TS_ERR_ARG, "NULL", ts_compute_errors(f->dofs, x, f->u, NULL, &h1));
  EXPECT(TS_ERR_ARG, "NULL", ts_compute_errors(f->dofs, x, f->u, &l2, NULL));
  EXPECT(TS_ERR_ARG, "only Q_k", ts_compute_errors(f->vel, x, f->u, &l2, &h1));
  EXPECT(TS_ERR_ARG, "'(null)' unknown, allowed: paper000", ts_stokes_solution_by_name(NULL, &su));
  EXPECT(TS_ERR_ARG, "NULL output", ts_stokes_solution_by_name("paper000", NULL));
  EXPECT(TS_ERR_ARG, "NULL velocity", ts_stokes_assemble_rhs(NULL, f->pres, f->su, x));
  EXPECT(TS_ERR_ARG, "NULL velocity", ts_stokes_assemble_rhs(f->vel, NULL, f->su, x));
  EXPECT(TS_ERR_ARG, "NULL solution", ts_stokes_assemble_rhs(f->vel, f->pres, NULL, x));
  EXPECT(TS_ERR_ARG, "NULL solution", ts_stokes_assemble_rhs(f->vel, f->pres, f->su, NULL));
  EXPECT(TS_ERR_ARG, "components", ts_stokes_assemble_rhs(f->dofs, f->pres, f->su, x));
  EXPECT(TS_ERR_ARG, "components", ts_stokes_assemble_rhs(f->pres, f->vel, f->su, x));
  EXPECT(TS_ERR_ARG, "NULL velocity", ts_stokes_compute_errors(NULL, f->pres, x, f->su, &l2, &h1));
  EXPECT(TS_ERR_ARG, "NULL velocity", ts_stokes_compute_errors(f->vel, NULL, x, f->su, &l2, &h1));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_stokes_compute_errors(f->vel, f->pres, NULL, f->su, &l2, &h1));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_stokes_compute_errors(f->vel, f->pres, x, NULL, &l2, &h1));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_stokes_compute_errors(f->vel, f->pres, x, f->su, NULL, &h1));
  EXPECT(TS_ERR_ARG, "NULL argument", ts_stokes_compute_errors(f->vel, f->pres, x, f->su, &l2, NULL));
}

static void output(fixture *f) {
  const char *path = "/nonexistent-tessera-dir/t-api-args.vtu";
  double *x = f->host;
  EXPECT(TS_ERR_ARG, "NULL", ts_write_vtu(NULL, f->dofs, x, f->u, 2));
  EXPECT(TS_ERR_ARG, "empty", ts_write_vtu("", f->dofs, x, f->u, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_write_vtu(path, NULL, x, f->u, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_write_vtu(path, f->dofs, NULL, f->u, 2));
  EXPECT(TS_ERR_ARG, "subdivisions = 0", ts_write_vtu(path, f->dofs, x, f->u, 0));
  EXPECT(TS_ERR_ARG, "subdivisions = 17", ts_write_vtu(path, f->dofs, x, f->u, 17));
  EXPECT(TS_ERR_ARG, "only Q_k", ts_write_vtu(path, f->vel, x, f->u, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_write_vtu_mapped(NULL, f->dofs, x, NULL, NULL, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_write_vtu_mapped(path, NULL, x, NULL, NULL, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_write_vtu_mapped(path, f->dofs, NULL, NULL, NULL, 2));
  EXPECT(TS_ERR_ARG, "ts_write_vtu_mapped", ts_write_vtu_mapped(path, f->dofs, x, NULL, NULL, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_stokes_write_vtu(NULL, f->vel, f->pres, x, f->su, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_stokes_write_vtu(path, NULL, f->pres, x, f->su, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_stokes_write_vtu(path, f->vel, NULL, x, f->su, 2));
  EXPECT(TS_ERR_ARG, "NULL", ts_stokes_write_vtu(path, f->vel, f->pres, NULL, f->su, 2));
  EXPECT(TS_ERR_ARG, "subdivisions = 0", ts_stokes_write_vtu(path, f->vel, f->pres, x, f->su, 0));
  EXPECT(TS_ERR_ARG, "subdivisions = 17", ts_stokes_write_vtu(path, f->vel, f->pres, x, f->su, 17));
}

static void problems(fixture *f) {
  ts_problem p;
  ts_problem_settings settings;
  ts_mesh mesh;
  ts_fe fe;
  ts_report report;
  ts_level_report level;
  size_t bytes;
  const char *file = "t-api-args.xml";
  EXPECT_CREATE("NULL", p, ts_problem_read_xml(NULL, 0, NULL, &p));
  EXPECT_CREATE("empty", p, ts_problem_read_xml("", 0, NULL, &p));
  EXPECT_CREATE("n_overrides = -1", p, ts_problem_read_xml(file, -1, NULL, &p));
  EXPECT_CREATE("overrides is NULL", p, ts_problem_read_xml(file, 1, NULL, &p));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_read_xml(file, 0, NULL, NULL));
  EXPECT(0, "", ts_problem_destroy(NULL));
  EXPECT(TS_ERR_ARG, "problem is NULL", ts_problem_memory_estimate(NULL, &bytes));
  EXPECT(TS_ERR_ARG, "bytes is NULL", ts_problem_memory_estimate(f->problem, NULL));
  EXPECT(TS_ERR_ARG, "problem is NULL", ts_problem_check_memory(NULL, 1000));
  EXPECT(TS_ERR_MEMORY, "needs about", ts_problem_check_memory(f->problem, 10));
  EXPECT_EMPTY(ts_problem_backend(NULL));
  EXPECT_EMPTY(ts_problem_name(NULL));
  EXPECT_EMPTY(ts_problem_equation(NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_solve(NULL, f->b, NULL, &report));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_solve(f->problem, NULL, NULL, &report));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_solve(f->problem, f->b, NULL, NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_discretization(NULL, &settings, &mesh, &fe));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_discretization(f->problem, NULL, &mesh, &fe));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_discretization(f->problem, &settings, NULL, &fe));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_discretization(f->problem, &settings, &mesh, NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_solve_finest(NULL, f->b, &level, NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_solve_finest(f->problem, NULL, &level, NULL));
  EXPECT(TS_ERR_ARG, "NULL", ts_problem_solve_finest(f->problem, f->b, NULL, NULL));
}

/* the MPI domain decomposition: without MPI_Init (with MPI) or without MPI (then every call
 * reports TS_ERR_UNSUPPORTED) */
static void parallel(fixture *f) {
  ts_parallel par;
  ts_parallel_dofs pd;
  ts_vec v;
  ts_operator op;
  int procs[3];
  const int mpi = ts_parallel_available(), code = mpi ? TS_ERR_ARG : TS_ERR_UNSUPPORTED;
  const char *without = "built without MPI";
  EXPECT(code, mpi ? "dim = 4, allowed 2 or 3" : without, ts_parallel_create(0, 4, NULL, &par));
  par = (void *)&par;
  EXPECT(code, mpi ? "MPI is not initialized" : without, ts_parallel_create(0, 2, NULL, &par));
  ok(par == NULL, "ts_parallel_create leaves the handle NULL");
  EXPECT(code, mpi ? "'par' is NULL" : without,
         ts_parallel_dofs_create(f->b, NULL, f->mesh, f->q, 0, &pd));
  EXPECT(code, mpi ? "'pd' is NULL" : without, ts_parallel_vec_create(NULL, &v));
  EXPECT(code, mpi ? "'pd' is NULL" : without, ts_parallel_operator_create_laplace(NULL, &op));
  EXPECT(code, mpi ? "'pd' is NULL" : without, ts_parallel_operator_create_mapped(NULL, NULL, &op));
  EXPECT(code, mpi ? "'pd' is NULL" : without, ts_parallel_vec_sum_shared(NULL, f->x));
  EXPECT(code, mpi ? "not distributed" : without, ts_parallel_vec_gather(f->x, f->host));
  EXPECT(code, mpi ? "not distributed" : without, ts_parallel_vec_scatter(f->host, f->x));
  EXPECT(code, mpi ? "'par' is NULL" : without, ts_parallel_procs(NULL, procs));
  EXPECT(code, mpi ? "'par' is NULL" : without, ts_parallel_timing(NULL, 1));
  EXPECT(code, mpi ? "'par' is NULL" : without, ts_parallel_set_agglomeration(NULL, 0));
  EXPECT(code, mpi ? "'par' is NULL" : without, ts_parallel_set_overlap(NULL, 0));
  EXPECT(code, mpi ? "'pd' is NULL" : without,
         ts_parallel_dofs_time(NULL, TS_PARALLEL_TIME_HALO, NULL, NULL));
  EXPECT(0, "", ts_parallel_destroy(NULL));
  EXPECT(0, "", ts_parallel_dofs_destroy(NULL));
  EXPECT_MINUS_ONE(ts_parallel_rank(NULL));
  EXPECT_MINUS_ONE(ts_parallel_size(NULL));
  EXPECT_MINUS_ONE(ts_parallel_node_rank(NULL));
  EXPECT_MINUS_ONE(ts_parallel_dofs_global_count(NULL));
  EXPECT_MINUS_ONE(ts_parallel_dofs_device_messages(NULL));
  EXPECT_MINUS_ONE(ts_parallel_dofs_global_index(NULL, 0));
  EXPECT_NULL(ts_parallel_dofs_local(NULL));
  ts_parallel_mg mg;
  ts_pc pc;
  EXPECT(code, mpi ? "'par' is NULL" : without,
         ts_parallel_mg_create(f->b, NULL, f->mesh, f->q, 0, 0, &mg));
  EXPECT(code, mpi ? "'mesh' is NULL" : without,
         ts_parallel_mg_create_mapped(f->b, NULL, NULL, f->q, 0, 0, NULL, &mg));
  EXPECT(code, mpi ? "the mesh is a box; use ts_parallel_mg_create" : without,
         ts_parallel_mg_create_mapped(f->b, NULL, f->mesh, f->q, 0, 0, NULL, &mg));
  EXPECT(code, mpi ? "'coarse' is NULL" : without,
         ts_parallel_operator_create_transfer(NULL, NULL, &op));
  EXPECT(code, mpi ? "'mg' is NULL" : without, ts_parallel_pc_create_mg_jacobi(NULL, 0.6, 2, &pc));
  EXPECT(code, mpi ? "'mg' is NULL" : without, ts_parallel_pc_create_mg_chebyshev(NULL, 3, 1, &pc));
  EXPECT(code, mpi ? "'mg' is NULL" : without,
         ts_parallel_pc_create_mg_patch(NULL, TS_PATCH_FUSED, 1, &pc));
  EXPECT(code, mpi ? "'mg' is NULL" : without,
         ts_parallel_mg_time(NULL, TS_PARALLEL_TIME_HALO, NULL, NULL));
  ts_smoother patch;
  EXPECT(code, mpi ? "'A' is NULL" : without,
         ts_parallel_smoother_create_vertex_patch(NULL, NULL, TS_PATCH_FUSED, &patch));
  EXPECT(code, mpi ? "'pd' is NULL" : without,
         ts_parallel_smoother_create_vertex_patch(f->A, NULL, TS_PATCH_FUSED, &patch));
  /* Stokes RT over the processes */
  EXPECT(code, mpi ? "'par' is NULL" : without,
         ts_parallel_dofs_create_stokes(f->b, NULL, f->mesh, 1, 0, &pd));
  EXPECT(code, mpi ? "'pd' is NULL" : without, ts_parallel_operator_create_stokes(NULL, 0.0, &op));
  EXPECT(code, mpi ? "'par' is NULL" : without,
         ts_parallel_mg_create_stokes(f->b, NULL, f->mesh, 1, 0, NULL, &mg));
  EXPECT(code, mpi ? "'mg' is NULL" : without, ts_parallel_pc_create_mg_stokes(NULL, &pc));
  EXPECT(0, "", ts_parallel_mg_destroy(NULL));
  EXPECT_NULL(ts_parallel_mg_dofs(NULL, 0));
  EXPECT_NULL(ts_parallel_mg_operator(NULL, 0));
  EXPECT_MINUS_ONE(ts_parallel_mg_split_level(NULL));
  EXPECT(code, mpi ? "'mg' is NULL" : without, ts_parallel_mg_set_precision(NULL, TS_SINGLE));
  EXPECT(code, mpi ? "'mg' is NULL" : without, ts_parallel_mg_set_coarse_degree(NULL, 1));
  /* problem files over the processes: what is not distributed is refused with or without MPI */
  ts_report *report = calloc(1, sizeof *report);
  ts_problem stokes = NULL, rt = NULL; /* Taylor-Hood: not distributed; RT: distributed */
  char path[1024];
  const char *srcdir = getenv("srcdir"), *levels[] = {"mesh/levels=2"};
  snprintf(path, sizeof path, "%s/examples/stokes-th-2d.xml", srcdir && *srcdir ? srcdir : ".");
  EXPECT(0, "", ts_problem_read_xml(path, 1, levels, &stokes));
  snprintf(path, sizeof path, "%s/examples/stokes-rt-2d.xml", srcdir && *srcdir ? srcdir : ".");
  EXPECT(0, "", ts_problem_read_xml(path, 1, levels, &rt));
  EXPECT(TS_ERR_ARG, "'p' is NULL", ts_problem_parallel_check(NULL));
  EXPECT(0, "", ts_problem_parallel_check(f->problem));
  EXPECT(0, "", ts_problem_parallel_check(rt));
  ts_problem_destroy(&rt);
  EXPECT(TS_ERR_UNSUPPORTED, "is not distributed yet", ts_problem_parallel_check(stokes));
  EXPECT(code, mpi ? "NULL argument" : without,
         ts_problem_solve_parallel(NULL, f->b, 0, NULL, NULL, report, NULL));
  EXPECT(code, mpi ? "NULL argument" : without,
         ts_problem_solve_parallel(stokes, f->b, 0, NULL, NULL, NULL, NULL));
  EXPECT(mpi ? TS_ERR_UNSUPPORTED : code, mpi ? "is not distributed yet" : without,
         ts_problem_solve_parallel(stokes, f->b, 0, NULL, NULL, report, NULL));
  ts_problem_destroy(&stokes);
  ts_problem kershaw = NULL; /* your own data: the additive patches of mapped cells */
  const char *patches[] = {"multigrid/smoother=vertex-patch"};
  snprintf(path, sizeof path, "%s/tests/xml/good/mpirun-kershaw-2d.xml", srcdir && *srcdir ? srcdir : ".");
  EXPECT(0, "", ts_problem_read_xml(path, 1, patches, &kershaw));
  EXPECT(TS_ERR_UNSUPPORTED, "the additive patches of mapped cells are not distributed yet",
         ts_problem_parallel_check(kershaw));
  ts_problem_destroy(&kershaw);
  ts_problem read = (void *)&read;
  EXPECT(code, mpi ? "the path is NULL" : without,
         ts_problem_read_xml_parallel(0, NULL, 0, NULL, &read));
  EXPECT(code, mpi ? "MPI is not initialized" : without,
         ts_problem_read_xml_parallel(0, "problem.xml", 0, NULL, &read));
  ok(read == NULL, "ts_problem_read_xml_parallel leaves the handle NULL");
  EXPECT_MINUS_ONE(ts_problem_dim(NULL));
  ok(ts_problem_dim(f->problem) == 2, "ts_problem_dim of a 2D problem is 2");
  free(report);
}

int main(void) {
  fixture f;
  memset(&f, 0, sizeof f);
  if (!ok(!fixture_create(&f), "the objects the calls are made with are created")) {
    fixture_destroy(&f);
    done_testing();
    return exit_status();
  }
  errors_and_precision();
  backends(&f);
  meshes(&f);
  mapped(&f);
  elements();
  dof_handlers(&f);
  vectors(&f);
  operators(&f);
  sparse_matrices(&f);
  preconditioners(&f);
  smoothers(&f);
  solvers(&f);
  multigrid(&f);
  manufactured(&f);
  output(&f);
  problems(&f);
  parallel(&f);
  fixture_destroy(&f);
  done_testing();
  return exit_status();
}
