/* mg-laplace.c -- the Q_k Laplacian as a multigrid discretization (paper 002, section 2.1):
 * per level a Q_k DoF handler and matrix-free Laplacian, prolongation by embedding of the
 * coarse space (transfer.c), the vertex-patch or Chebyshev smoother, and as the coarse
 * solve the LU factorization of a small coarse matrix or Jacobi-preconditioned CG in double
 * to the options' coarse_tolerance.  Below the coarse mesh level the degree is coarsened on
 * the same cells (p-multigrid: k, k/2, .., coarse_degree; doc/multigrid.md, "The coarse
 * level"), each degree level with the same smoother as the mesh levels. */
#include <stdlib.h>
#include <string.h>
#include "mg-impl.h"

/* TS_MG_COARSE_AUTO's coarse solve is the LU factorization (coarse-dense.c) up to
 * TS_MG_COARSE_DENSE_DOFS (1000) coarse DoFs: one host round trip per solve instead of a CG
 * iteration's three; at 1000 DoFs the assembly (sparse on a box, 1000 operator applications
 * on mapped cells) and the factorization (3e8 flops) take a few hundredths of a second. */

/* the transfer block of a level: the plan and its 1D interpolation matrix; with some
 * Neumann and some Dirichlet faces the transfer runs unconstrained and its output is masked
 * (the Dirichlet entries zeroed, as the constrained kernel writes them): mask[o][p] of the
 * output level o (0 coarse, 1 fine) in precision p (the V-cycle's, and double for full
 * multigrid's nested iteration) */
typedef struct laplace_transfer {
  ts_transfer_plan plan;
  double interpolation[TS_TRANSFER_1D_SIZE];
  ts_vec mask[2][2];
} laplace_transfer;

/* a degree level's own Q_k (the mesh levels share mg->fe), with the options' Neumann faces */
static int create_dofs(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  if (l->degree != mg->fe->degree) TS_CALL(ts_fe_create_q(mg->fe->dim, l->degree, &l->own_fe));
  TS_CALL(ts_dofs_create(mg->mesh, l->own_fe ? l->own_fe : mg->fe, l->mesh_level, &l->dofs));
  TS_CALL(ts_dofs_set_neumann_faces(l->dofs, mg->options.neumann_faces));
  return 0;
}

/* ---------------------------------------------------------------- mapped cells */
/* On a mapped mesh every level is rediscretized: ts_operator_create_mapped on its cells, with
 * kappa and c averaged (arithmetic mean) from the 2^dim children of each cell, level by level
 * down from the finest (issue 13: "coarse levels by rediscretization with coefficients
 * averaged from the fine cells"); the degree levels share the coarse mesh level's.  The
 * Q_k spaces of the levels are nested when the map is multilinear on the coarse cells
 * (Kershaw's, the vertex meshes), so the box's embedding is the transfer; on curved cells
 * (TS_GEOMETRY_QK) each level samples the map anew and the embedding is the usual
 * non-nested approximation. */
#define MESH_LEVELS 31                  /* a mesh has levels 0..30 */
typedef struct mapped_coefficients {
  int kappa_components;
  ts_point_fn kappa_at, reaction_at; /* per point instead (every level evaluates them) */
  void *ctx;
  double *kappa[MESH_LEVELS];     /* per mesh level (NULL: kappa = 1), owned */
  double *reaction[MESH_LEVELS];  /* per mesh level (NULL: c = 0), owned */
} mapped_coefficients;

static void mapped_coefficients_free(void *data) {
  mapped_coefficients *m = data;
  if (!m) return;
  for (int l = 0; l < MESH_LEVELS; ++l) {
    ts_free(&m->kappa[l]);
    ts_free(&m->reaction[l]);
  }
  free(m);
}

int ts_mg_coefficient_levels(ts_mesh mesh, int finest, int coarsest, int components,
                             const double *given, double **levels) {
  if (!given) return 0;
  int64_t cells[3] = {1, 1, 1};
  TS_CALL(ts_mesh_cells(mesh, finest, cells));
  int64_t n = cells[0] * cells[1] * (mesh->dim == 3 ? cells[2] : 1);
  TS_CALL(ts_calloc((size_t)(n * components), sizeof(double), "multigrid coefficients", &levels[finest]));
  memcpy(levels[finest], given, sizeof(double) * (size_t)(n * components));
  for (int l = finest - 1; l >= coarsest; --l) {
    TS_CALL(ts_mesh_cells(mesh, l + 1, cells));
    n >>= mesh->dim;
    TS_CALL(ts_calloc((size_t)(n * components), sizeof(double), "multigrid coefficients", &levels[l]));
    ts_cell_values_coarsen(mesh->dim, cells, components, levels[l + 1], levels[l]);
  }
  return 0;
}

static int create_mapped_operator(ts_mg mg, int i, ts_precision p, ts_operator *A) {
  const mapped_coefficients *m = mg->discretization_data;
  const int l = mg->levels[i].mesh_level;
  const ts_coefficients co = {m->kappa[l] || m->kappa_at ? m->kappa_components : 0, m->kappa[l],
                              m->reaction[l], m->kappa_at, m->reaction_at, m->ctx};
  return ts_operator_create_mapped(mg->backend, mg->levels[i].dofs, &co, p, A);
}

static int create_laplace_operator(ts_mg mg, int i, ts_precision p, ts_operator *A) {
  return ts_operator_create_laplace(mg->backend, mg->levels[i].dofs, p, A);
}

/* The options' smoother; on mapped levels the vertex-patch one is Chebyshev on P A with the
 * level's additive vertex-patch preconditioner P (patch-additive.c). */
static int create_smoother(ts_mg mg, int i) {
  ts_mg_level *l = &mg->levels[i];
  const ts_mg_options *o = &mg->options;
  if (o->smoother == TS_MG_SMOOTHER_CHEBYSHEV)
    TS_CALL(ts_smoother_create_chebyshev(l->A, o->chebyshev_degree, &l->smoother));
  else if (mg->mesh->map) {
    ts_operator P;
    TS_CALL(ts_operator_create_patch_additive(l->A, &P));
    TS_CALL(ts_smoother_create_chebyshev_owning(l->A, P, o->chebyshev_degree, &l->smoother));
  } else
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
  const unsigned neumann = mg->options.neumann_faces;
  t->plan.constrained = neumann == 0;
  if (neumann == 0 || neumann == TS_FACES_ALL(mg->fe->dim)) return 0;
  for (int o = 0; o < 2; ++o)
    for (int p = 0; p < 2; ++p)
      TS_CALL(ts_dofs_dirichlet_mask(mg->levels[i - 1 + o].dofs, mg->backend, (ts_precision)p,
                                     &t->mask[o][p]));
  return 0;
}

static int transfer_apply(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add) {
  const laplace_transfer *t = mg->levels[i].transfer;
  TS_CALL(ts_transfer_apply(mg->backend, &t->plan, restrict_, in, out, add));
  ts_vec mask = t->mask[!restrict_][out->precision == TS_SINGLE];
  if (mask) TS_CALL(ts_vec_pointwise_mult(mask, out, out));
  return 0;
}

static void transfer_destroy(ts_mg mg, int i) {
  laplace_transfer *t = mg->levels[i].transfer;
  for (int o = 0; o < 2; ++o)
    for (int p = 0; p < 2; ++p) ts_vec_destroy(&t->mask[o][p]);
}

/* The coarse solve the options ask for (TS_MG_COARSE_AUTO: the LU factorization of a small
 * coarse level).  A singular level (pure Neumann, c = 0: the constants are its null space)
 * always gets the LU bordered with the constant vector, since CG would stall on the
 * restricted residual's rounding in the null space. */
static int create_coarse_inverse(ts_mg mg, ts_operator A0, ts_operator *inverse) {
  const ts_mg_coarse_solver solver = mg->options.coarse_solver;
  if (!ts_operator_mapped_singular(A0)) {
    if (solver == TS_MG_COARSE_DENSE ||
        (solver == TS_MG_COARSE_AUTO && A0->n <= TS_MG_COARSE_DENSE_DOFS))
      TS_CALL(ts_mg_dense_inverse_create(A0, NULL, inverse));
    return 0;
  }
  TS_CHECK_ARG(solver == TS_MG_COARSE_AUTO || solver == TS_MG_COARSE_DENSE,
               "multigrid: coarse solver '%s' on a singular coarse level (pure Neumann without "
               "reaction: the constants are its null space, where CG stalls); allowed: auto, dense",
               ts_mg_coarse_solver_word(solver));
  double *ones;
  TS_CALL(ts_calloc((size_t)A0->n, sizeof *ones, "coarse null vector", &ones));
  for (int64_t j = 0; j < A0->n; ++j) ones[j] = 1.0;
  const int ierr = ts_mg_dense_inverse_create(A0, ones, inverse);
  free(ones);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "the coarse solve of a pure Neumann "
                               "problem (a dense one, bordered by the constants)") : 0;
}

/* TS_MG_COARSE_CG_AMG: one BoomerAMG V-cycle on the coarse Laplacian's sparse assembly
 * (box levels only: check_options) as the coarse CG's preconditioner */
static int create_coarse_amg(ts_mg mg, ts_operator A0, ts_operator *P) {
  if (mg->options.coarse_solver != TS_MG_COARSE_CG_AMG) return 0;
  ts_matrix A;
  TS_CALL(ts_operator_assemble(A0, &A));
  const int ierr = ts_operator_create_boomeramg(mg->backend, A, P);
  ts_matrix_destroy(&A);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "the coarse solver amg") : 0;
}

static const ts_mg_discretization laplace_discretization = {
    .name = "laplace",
    .create_dofs = create_dofs,
    .create_operator = create_laplace_operator,
    .create_smoother = create_smoother,
    .create_transfer = create_transfer,
    .transfer_apply = transfer_apply,
    .coarse_solver = TS_SOLVER_CG,
    .create_coarse_inverse = create_coarse_inverse,
    .create_coarse_preconditioner = create_coarse_amg,
};

/* the same hierarchy on mapped cells: the data are the levels' coefficients */
static const ts_mg_discretization mapped_discretization = {
    .name = "mapped",
    .create_dofs = create_dofs,
    .create_operator = create_mapped_operator,
    .create_smoother = create_smoother,
    .create_transfer = create_transfer,
    .transfer_apply = transfer_apply,
    .transfer_destroy = transfer_destroy,
    .coarse_solver = TS_SOLVER_CG,
    .create_coarse_inverse = create_coarse_inverse,
    .destroy = mapped_coefficients_free,
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
 * TS_MG_COARSE_DEGREE_AUTO_DOFS DoFs (on a mapped mesh: more than the LU's
 * TS_MG_COARSE_DENSE_DOFS, since its Jacobi-CG on distorted cells dominated the V-cycle there:
 * measured on an H100, doc/multigrid.md "Mapped meshes") with an interior vertex, else k
 * (no degree level). */
int ts_mg_laplace_coarse_degree(ts_mesh mesh, int k, const ts_mg_options *o) {
  if (o->coarse_degree != TS_MG_COARSE_DEGREE_AUTO) return o->coarse_degree;
  const int64_t limit = mesh->map ? TS_MG_COARSE_DENSE_DOFS : TS_MG_COARSE_DEGREE_AUTO_DOFS;
  const int big = level_dofs(mesh, o->coarse_level, k) > limit;
  return big && has_interior_vertex(mesh, o->coarse_level) ? 1 : k;
}

/* The degrees of the degree levels, coarsest first: k halved (rounded down) while above
 * the coarse degree c, the last step to c (deal.II's p-multigrid halves the degree too);
 * returns their number. */
int ts_mg_degree_sequence(int k, int c, int *degrees) {
  int n = 0, d = k, down[TS_MAX_DEGREE];
  while (d > c) {
    d = d / 2 > c ? d / 2 : c;
    down[n++] = d;
  }
  for (int i = 0; i < n; ++i) degrees[i] = down[n - 1 - i];
  return n;
}

/* The degree levels the options ask for below the coarse mesh level, within the hierarchy's
 * level count. */
static int degree_levels(ts_mesh mesh, ts_fe fe, int finest, const ts_mg_options *o,
                         int *degrees, int *n_degrees) {
  *n_degrees = ts_mg_degree_sequence(fe->degree, ts_mg_laplace_coarse_degree(mesh, fe->degree, o),
                                     degrees);
  TS_CHECK_ARG(finest - o->coarse_level + 1 + *n_degrees <= TS_MG_MAX_LEVELS,
               "multigrid: %d mesh and %d degree levels, at most %d in all",
               finest - o->coarse_level + 1, *n_degrees, TS_MG_MAX_LEVELS);
  return 0;
}

static int check_options(ts_mesh mesh, ts_fe fe, int finest, const ts_mg_options *o) {
  TS_CHECK_ARG(o->smoother == TS_MG_SMOOTHER_VERTEX_PATCH || o->smoother == TS_MG_SMOOTHER_CHEBYSHEV,
               "multigrid: smoother %d unknown, allowed vertex-patch or chebyshev", (int)o->smoother);
  TS_CHECK_ARG(o->variant == TS_PATCH_SEPARATE || o->variant == TS_PATCH_FUSED,
               "multigrid: patch variant %d unknown, allowed separate or fused", (int)o->variant);
  TS_CHECK_ARG(o->chebyshev_degree >= 1 && o->chebyshev_degree <= 20,
               "multigrid: Chebyshev degree %d, allowed 1..20", o->chebyshev_degree);
  TS_CALL(ts_mg_check_common_options(mesh, finest, o));
  TS_CHECK_ARG(o->coarse_solver != TS_MG_COARSE_CG_AMG || !mesh->map,
               "multigrid: coarse solver 'amg' (BoomerAMG on the assembled coarse Laplacian) "
               "needs a box mesh; on mapped cells allowed: auto, dense, cg");
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
  if (mesh->map) return ts_mg_create_mapped(backend, mesh, fe, finest_level, NULL, options, mg);
  ts_mg_options o;
  if (options) o = *options;
  else ts_mg_options_default(&o);
  TS_CALL(check_options(mesh, fe, finest_level, &o));
  int degrees[TS_MAX_DEGREE], n_degrees;
  TS_CALL(degree_levels(mesh, fe, finest_level, &o, degrees, &n_degrees));
  TS_CALL(ts_mg_create_hierarchy(backend, mesh, fe, finest_level, &o, n_degrees, degrees,
                                 &laplace_discretization, NULL, mg));
  return 0;
}

/* The smoother on mapped cells: Chebyshev on D^{-1} A by default (NULL options: the
 * defaults with it), or on P A with the additive vertex-patch preconditioner. */
static int mapped_options(const ts_mg_options *options, ts_mg_options *o) {
  if (options) *o = *options;
  else {
    ts_mg_options_default(o);
    o->smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  }
  return 0;
}

int ts_mg_create_mapped(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest_level,
                        const ts_coefficients *coefficients, const ts_mg_options *options,
                        ts_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(fe);
  TS_CHECK_ARG(mesh->map, "ts_mg_create_mapped: the mesh is a box; use ts_mg_create");
  ts_mg_options o;
  TS_CALL(mapped_options(options, &o));
  TS_CALL(check_options(mesh, fe, finest_level, &o));
  const ts_coefficients none = {0}, *co = coefficients ? coefficients : &none;
  const int components = co->kappa_components;
  TS_CHECK_ARG(components == 0 || components == 1 || components == fe->dim * (fe->dim + 1) / 2,
               "ts_mg_create_mapped: coefficients->kappa_components = %d, allowed 0, 1 or %d",
               components, fe->dim * (fe->dim + 1) / 2);
  TS_CHECK_ARG(components == 0 || co->kappa || co->kappa_at, "ts_mg_create_mapped: "
               "coefficients->kappa and kappa_at are NULL with kappa_components = %d", components);
  int degrees[TS_MAX_DEGREE], n_degrees;
  TS_CALL(degree_levels(mesh, fe, finest_level, &o, degrees, &n_degrees));
  mapped_coefficients *m = NULL;
  TS_CALL(ts_calloc(1, sizeof *m, "multigrid coefficients", &m));
  m->kappa_components = components;
  m->kappa_at = co->kappa_at;
  m->reaction_at = co->reaction_at;
  m->ctx = co->ctx;
  int ierr = ts_mg_coefficient_levels(mesh, finest_level, o.coarse_level,
                                      components ? components : 1,
                                      components && !co->kappa_at ? co->kappa : NULL, m->kappa);
  if (!ierr)
    ierr = ts_mg_coefficient_levels(mesh, finest_level, o.coarse_level, 1,
                                    co->reaction_at ? NULL : co->reaction, m->reaction);
  if (ierr) {
    mapped_coefficients_free(m);
    return ierr;
  }
  /* the hierarchy owns m from here (mapped_discretization.destroy), also on error */
  return ts_mg_create_hierarchy(backend, mesh, fe, finest_level, &o, n_degrees, degrees,
                                &mapped_discretization, m, mg);
}
