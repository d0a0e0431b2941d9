/* mg-laplace.c -- the Q_k Laplacian as a multigrid discretization (paper 002, section 2.1):
 * per level a Q_k DoF handler and matrix-free Laplacian, prolongation by embedding of the
 * coarse space (transfer.c), the vertex-patch or Chebyshev smoother, and as the coarse
 * solve the LU factorization of a small coarse matrix or Jacobi-preconditioned CG in double
 * to the options' coarse_tolerance.  Below the coarse mesh level the degree is coarsened on
 * the same cells (p-multigrid: k, k/2, .., coarse_degree; doc/multigrid.md, "The coarse
 * level"), each degree level with the same smoother as the mesh levels. */
#include "mg-impl.h"

/* The coarse solve is the LU factorization (coarse-dense.c) up to this many coarse DoFs:
 * one host round trip per solve instead of a CG iteration's three; at 1000 DoFs the
 * assembly (1000 operator applications) and the factorization (3e8 flops) take a few
 * hundredths of a second. */
#define DENSE_COARSE_DOFS 1000

/* the transfer block of a level: the plan and its 1D interpolation matrix */
typedef struct laplace_transfer {
  ts_transfer_plan plan;
  double interpolation[TS_TRANSFER_1D_SIZE];
} laplace_transfer;

/* a degree level's own Q_k; the mesh levels share mg->fe */
static int create_dofs(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  if (l->degree != mg->fe->degree) TS_CALL(ts_fe_create_q(mg->fe->dim, l->degree, &l->own_fe));
  TS_CALL(ts_dofs_create(mg->mesh, l->own_fe ? l->own_fe : mg->fe, l->mesh_level, &l->dofs));
  return 0;
}

static int create_operator(ts_mg mg, int i, ts_precision p, ts_operator *A) {
  TS_CALL(ts_operator_create_laplace(mg->backend, mg->levels[i].dofs, p, A));
  return 0;
}

static int create_smoother(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  const ts_mg_options *o = &mg->options;
  if (o->smoother == TS_MG_SMOOTHER_CHEBYSHEV)
    TS_CALL(ts_smoother_create_chebyshev(l->A, o->chebyshev_degree, &l->smoother));
  else
    TS_CALL(ts_smoother_create_vertex_patch(l->A, l->dofs, o->variant, &l->smoother));
  return 0;
}

static int create_transfer(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  laplace_transfer *t;
  TS_CALL(ts_calloc(1, sizeof *t, "multigrid transfer", &t));
  l->transfer = t;
  TS_CALL(ts_transfer_plan_init(mg->levels[i - 1].dofs, l->dofs, &t->plan, t->interpolation));
  if (!mg->backend->ops.transfer)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'transfer'", mg->backend->name);
  return 0;
}

static int transfer_apply(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add) {
  const laplace_transfer *t = mg->levels[i].transfer;
  TS_CALL(ts_transfer_apply(mg->backend, &t->plan, restrict_, in, out, add));
  return 0;
}

static int create_coarse_inverse(ts_mg mg, ts_operator A0, ts_operator *inverse) {
  (void)mg;
  if (A0->n <= DENSE_COARSE_DOFS) TS_CALL(ts_mg_dense_inverse_create(A0, NULL, inverse));
  return 0;
}

static const ts_mg_discretization laplace_discretization = {
    .name = "laplace",
    .create_dofs = create_dofs,
    .create_operator = create_operator,
    .create_smoother = create_smoother,
    .create_transfer = create_transfer,
    .transfer_apply = transfer_apply,
    .coarse_solver = TS_SOLVER_CG,
    .create_coarse_inverse = create_coarse_inverse,
};

/* 1 if every direction of the mesh level has at least 2 cells (an interior vertex, so that
 * the vertex-patch smoother has patches) */
static int has_interior_vertex(ts_mesh mesh, int level) {
  int64_t cells[3];
  ts_mesh_cells(mesh, level, cells);
  for (int d = 0; d < ts_mesh_dim(mesh); ++d)
    if (cells[d] < 2) return 0;
  return 1;
}

/* DoFs of Q_k on the cells of the mesh level */
static int64_t level_dofs(ts_mesh mesh, int level, int k) {
  int64_t cells[3], n = 1;
  ts_mesh_cells(mesh, level, cells);
  for (int d = 0; d < ts_mesh_dim(mesh); ++d) n *= k * cells[d] + 1;
  return n;
}

/* The coarse degree the options ask for: AUTO is Q1 on a coarse level of more than
 * TS_MG_COARSE_DEGREE_AUTO_DOFS DoFs with an interior vertex, else k (no degree level). */
static int coarse_degree(ts_mesh mesh, int k, const ts_mg_options *o) {
  if (o->coarse_degree != TS_MG_COARSE_DEGREE_AUTO) return o->coarse_degree;
  const int big = level_dofs(mesh, o->coarse_level, k) > TS_MG_COARSE_DEGREE_AUTO_DOFS;
  return big && has_interior_vertex(mesh, o->coarse_level) ? 1 : k;
}

/* The degrees of the degree levels, coarsest first: k halved (rounded down) while above
 * the coarse degree c, the last step to c (deal.II's p-multigrid halves the degree too);
 * returns their number. */
static int degree_sequence(int k, int c, int *degrees) {
  int n = 0, d = k, down[TS_MAX_DEGREE];
  while (d > c) {
    d = d / 2 > c ? d / 2 : c;
    down[n++] = d;
  }
  for (int i = 0; i < n; ++i) degrees[i] = down[n - 1 - i];
  return n;
}

static int check_options(ts_mesh mesh, ts_fe fe, int finest, const ts_mg_options *o) {
  TS_CHECK_ARG(o->smoother == TS_MG_SMOOTHER_VERTEX_PATCH || o->smoother == TS_MG_SMOOTHER_CHEBYSHEV,
               "multigrid: smoother %d unknown, allowed vertex-patch or chebyshev", (int)o->smoother);
  TS_CHECK_ARG(o->variant == TS_PATCH_SEPARATE || o->variant == TS_PATCH_FUSED,
               "multigrid: patch variant %d unknown, allowed separate or fused", (int)o->variant);
  TS_CHECK_ARG(o->chebyshev_degree >= 1 && o->chebyshev_degree <= 20,
               "multigrid: Chebyshev degree %d, allowed 1..20", o->chebyshev_degree);
  TS_CALL(ts_mg_check_common_options(mesh, finest, o));
  TS_CHECK_ARG(fe->family == TS_FE_Q, "multigrid: only Q_k elements are supported");
  TS_CHECK_ARG(fe->dim == ts_mesh_dim(mesh), "multigrid: %dD element on a %dD mesh", fe->dim,
               ts_mesh_dim(mesh));
  const int k = fe->degree, c = o->coarse_degree;
  TS_CHECK_ARG(c == TS_MG_COARSE_DEGREE_AUTO || (c >= 1 && c <= k),
               "multigrid: coarse degree %d, allowed 1..%d (the element's degree; %d adds no "
               "degree level) or TS_MG_COARSE_DEGREE_AUTO (%d)", c, k, k, TS_MG_COARSE_DEGREE_AUTO);
  TS_CHECK_ARG(c == TS_MG_COARSE_DEGREE_AUTO || c == k ||
                   o->smoother != TS_MG_SMOOTHER_VERTEX_PATCH ||
                   has_interior_vertex(mesh, o->coarse_level),
               "multigrid: coarse degree %d below the element's Q%d needs a coarse level with an "
               "interior vertex (at least 2 cells per direction) for the vertex-patch smoother "
               "of the degree levels; coarse level %d has fewer: choose a finer coarse level or "
               "coarse degree %d", c, k, o->coarse_level, k);
  return 0;
}

int ts_mg_create(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest_level,
                 const ts_mg_options *options, ts_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(fe);
  TS_CHECK_ARG(!mesh->map, "multigrid: the mesh is mapped; multigrid on mapped meshes is not "
               "built yet (solve with CG and ts_pc_create_jacobi or ts_pc_create_chebyshev)");
  ts_mg_options o;
  if (options) o = *options;
  else ts_mg_options_default(&o);
  TS_CALL(check_options(mesh, fe, finest_level, &o));
  int degrees[TS_MAX_DEGREE];
  const int n_degrees = degree_sequence(fe->degree, coarse_degree(mesh, fe->degree, &o), degrees);
  TS_CHECK_ARG(finest_level - o.coarse_level + 1 + n_degrees <= TS_MG_MAX_LEVELS,
               "multigrid: %d mesh and %d degree levels, at most %d in all",
               finest_level - o.coarse_level + 1, n_degrees, TS_MG_MAX_LEVELS);
  TS_CALL(ts_mg_create_hierarchy(backend, mesh, fe, finest_level, &o, n_degrees, degrees,
                                 &laplace_discretization, NULL, mg));
  return 0;
}
