/* mg-laplace.c -- the Q_k Laplacian as a multigrid discretization (paper 002, section 2.1):
 * per level a Q_k DoF handler and matrix-free Laplacian, prolongation by embedding of the
 * coarse Q_k space (transfer.c), the vertex-patch or Chebyshev smoother, and Jacobi-
 * preconditioned CG in double to the options' coarse_tolerance as the coarse solve. */
#include "mg-impl.h"

/* the transfer block of a level: the plan and its 1D interpolation matrix */
typedef struct laplace_transfer {
  ts_transfer_plan plan;
  double interpolation[TS_TRANSFER_1D_SIZE];
} laplace_transfer;

static int create_dofs(ts_mg mg, int i) {
  TS_CALL(ts_dofs_create(mg->mesh, mg->fe, mg->coarse + i, &mg->levels[i].dofs));
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

static const ts_mg_discretization laplace_discretization = {
    .name = "laplace",
    .create_dofs = create_dofs,
    .create_operator = create_operator,
    .create_smoother = create_smoother,
    .create_transfer = create_transfer,
    .transfer_apply = transfer_apply,
    .coarse_solver = TS_SOLVER_CG,
};

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
  return 0;
}

int ts_mg_create(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest_level,
                 const ts_mg_options *options, ts_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(fe);
  ts_mg_options o;
  if (options) o = *options;
  else ts_mg_options_default(&o);
  TS_CALL(check_options(mesh, fe, finest_level, &o));
  TS_CALL(ts_mg_create_hierarchy(backend, mesh, fe, finest_level, &o, &laplace_discretization,
                                 NULL, mg));
  return 0;
}
