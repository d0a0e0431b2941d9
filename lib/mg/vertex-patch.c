/* vertex-patch.c -- the multiplicative vertex-patch Schwarz smoother (paper 002, section 2.2,
 * Algorithm 2.3) for the Q_k Laplacian on a structured box level.
 *
 * One step sweeps the 2^dim colors in sequence (mesh/patch.c); for the patches of a color,
 * in parallel, r_j = R_j b - Abar_j Rbar_j x on the closed patch (eq. 2.8) and
 * x <- x + R_j^T A_j^{-1} r_j, with A_j^{-1} by fast diagonalization (mg/patch-fdm.c).
 * Separate runs a residual pass (into a work vector) and a solve pass per color, Fused one
 * pass (paper 002, Table 4); both give the same result to rounding.  Finally x_i = b_i on
 * the Dirichlet DoFs, so that a step is a complete smoother for the constrained operator
 * (identity rows).  This file only prepares the plan; the backend's patch_smooth kernel
 * runs the loops. */
#include <string.h>
#include "../tessera-impl.h"

#define VP_MAX_NBAR (2 * TS_MAX_DEGREE + 1)

struct ts_vertex_patch_sweep_s {
  ts_backend backend;                       /* borrowed */
  ts_precision precision;
  ts_patch_plan plan;
  ts_patch_variant variant;
  const ts_patch_local_solver *solver;
  ts_vec r;                                 /* Separate: the local residuals */
  double matrices[2 * VP_MAX_NBAR * VP_MAX_NBAR]; /* 1D patch mass and stiffness */
  double *solver_storage;
};

static int run_stage(ts_vertex_patch_sweep sw, ts_patch_stage stage, int color, ts_vec b,
                     ts_vec x) {
  ts_patch_plan plan = sw->plan;
  plan.stage = stage;
  if (stage != TS_PATCH_STAGE_BOUNDARY) {
    plan.color = color;
    TS_CALL(ts_vertex_patch_color(plan.dim, plan.cells, color, plan.first_vertex,
                                  plan.vertex_count, &plan.vertex_stride));
    for (int d = 0; d < plan.dim; ++d)
      if (plan.vertex_count[d] == 0) return 0; /* no patch of this color */
  }
  void *r = sw->r ? sw->r->data : NULL;
  TS_CALL(ts_backend_patch_smooth(sw->backend, &plan, sw->precision, b->data, x->data, r));
  return 0;
}

int ts_vertex_patch_sweep_color(ts_vertex_patch_sweep sw, int color, ts_vec b, ts_vec x) {
  if (sw->variant == TS_PATCH_FUSED) return run_stage(sw, TS_PATCH_STAGE_FUSED, color, b, x);
  TS_CALL(run_stage(sw, TS_PATCH_STAGE_RESIDUAL, color, b, x));
  return run_stage(sw, TS_PATCH_STAGE_SOLVE, color, b, x);
}

static int vertex_patch_apply(ts_smoother s, ts_vec b, ts_vec x) {
  ts_vertex_patch_sweep sw = s->data;
  TS_CHECK_ARG(b != x, "vertex-patch smoother: b and x must be different vectors");
  const int colors = ts_vertex_patch_color_count(sw->plan.dim);
  for (int c = 0; c < colors; ++c) TS_CALL(ts_vertex_patch_sweep_color(sw, c, b, x));
  TS_CALL(run_stage(sw, TS_PATCH_STAGE_BOUNDARY, 0, b, x));
  return 0;
}

static void vertex_patch_destroy(ts_smoother s) {
  ts_vertex_patch_sweep sw = s->data;
  ts_vertex_patch_sweep_destroy(&sw);
  s->data = NULL;
}

static const ts_smoother_ops vertex_patch_ops = {
    .name = "vertex-patch",
    .apply = vertex_patch_apply,
    .destroy = vertex_patch_destroy,
};

/* The plan's geometry and 1D patch matrices: the Laplacian's reference cell matrices
 * assembled over the patch's 2 cells, the same in every direction; the scalings carry h. */
static int plan_init(ts_dofs dofs, ts_vertex_patch_sweep data, int constrained) {
  ts_laplace_plan lp;
  double cell[2 * (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  TS_CALL(ts_laplace_plan_init(dofs, &lp, cell));
  ts_patch_plan *p = &data->plan;
  const int k = dofs->degree, nbar = 2 * k + 1;
  p->dim = dofs->dim;
  p->degree = k;
  p->dofs_per_cell = k;
  for (int d = 0; d < 3; ++d) {
    p->cells[d] = lp.cells[d];
    p->n[d] = lp.n[d];
    p->scale[d] = lp.scale[d];
  }
  p->n_dofs = lp.n_dofs;
  p->nbar = nbar;
  p->m = nbar - 2;
  double *mass = data->matrices, *stiffness = data->matrices + nbar * nbar;
  ts_matrix_1d_assemble(2, k + 1, lp.mass_1d, mass);
  ts_matrix_1d_assemble(2, k + 1, lp.stiffness_1d, stiffness);
  for (int d = 0; d < 3; ++d) {
    p->mass_1d[d] = d < p->dim ? mass : NULL;
    p->stiffness_1d[d] = d < p->dim ? stiffness : NULL;
  }
  p->constrained = constrained;
  p->vertex_stride = 2;
  return 0;
}

void ts_vertex_patch_sweep_destroy(ts_vertex_patch_sweep *sweep) {
  if (!sweep || !*sweep) return;
  ts_vec_destroy(&(*sweep)->r);
  ts_free(&(*sweep)->solver_storage);
  ts_free(sweep);
}

int ts_vertex_patch_sweep_create(ts_backend backend, ts_dofs dofs, ts_precision precision,
                                 ts_patch_variant variant, int constrained,
                                 ts_vertex_patch_sweep *sweep) {
  ts_vertex_patch_sweep sw;
  TS_CALL(ts_calloc(1, sizeof *sw, "vertex-patch smoother", &sw));
  *sw = (struct ts_vertex_patch_sweep_s){.backend = backend, .precision = precision,
                                         .variant = variant, .solver = &ts_patch_solver_fdm};
  int ierr = plan_init(dofs, sw, constrained);
  if (!ierr)
    ierr = ts_calloc(sw->solver->storage_doubles(&sw->plan), sizeof(double),
                     "vertex-patch local solver", &sw->solver_storage);
  if (!ierr) ierr = sw->solver->setup(&sw->plan, sw->solver_storage);
  if (!ierr && variant == TS_PATCH_SEPARATE)
    ierr = ts_vec_create(backend, dofs->count, precision, &sw->r);
  if (ierr) {
    ts_vertex_patch_sweep_destroy(&sw);
    return ts_error_trace(ierr, __FILE__, __LINE__, "vertex-patch smoother setup");
  }
  *sweep = sw;
  return 0;
}

/* the checks of a vertex-patch smoother's arguments (caller names the function) */
int ts_vertex_patch_check(ts_operator A, ts_dofs dofs, ts_patch_variant variant,
                          const char *caller) {
  TS_CHECK_ARG(variant == TS_PATCH_SEPARATE || variant == TS_PATCH_FUSED,
               "%s: variant %d, allowed TS_PATCH_SEPARATE (0) or TS_PATCH_FUSED (1)", caller,
               (int)variant);
  TS_CHECK_ARG(dofs->fe->family == TS_FE_Q, "%s: only Q_k elements", caller);
  TS_CHECK_ARG(dofs->degree >= 1 && dofs->degree <= TS_MAX_DEGREE,
               "%s: degree %d, allowed 1..%d", caller, dofs->degree, TS_MAX_DEGREE);
  if (!A->backend->ops.patch_smooth)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'patch_smooth'",
                    A->backend->name);
  return 0;
}

int ts_smoother_create_vertex_patch(ts_operator A, ts_dofs dofs, ts_patch_variant variant,
                                    ts_smoother *smoother) {
  TS_CHECK_ARG(smoother, "vertex-patch smoother: the smoother handle is NULL");
  *smoother = NULL;
  TS_CHECK_ARG(A && dofs, "vertex-patch smoother: %s is NULL", A ? "dofs" : "the operator A");
  TS_CHECK_ARG(!strcmp(A->ops->name, "laplace"),
               "vertex-patch smoother: operator '%s' given, only 'laplace' is supported",
               A->ops->name);
  TS_CHECK_ARG(A->n == dofs->count,
               "vertex-patch smoother: the operator has %lld rows, the DoF handler %lld DoFs",
               (long long)A->n, (long long)dofs->count);
  TS_CALL(ts_vertex_patch_check(A, dofs, variant, "vertex-patch smoother"));
  ts_vertex_patch_sweep sw;
  TS_CALL(ts_vertex_patch_sweep_create(A->backend, dofs, A->precision, variant, 1, &sw));
  const int ierr = ts_smoother_create_shell(A, &vertex_patch_ops, sw, smoother);
  if (ierr) {
    ts_vertex_patch_sweep_destroy(&sw);
    return ts_error_trace(ierr, __FILE__, __LINE__, "vertex-patch smoother setup");
  }
  return 0;
}

int ts_vertex_patch_plan(ts_smoother s, const ts_patch_plan **plan) {
  TS_CHECK_ARG(s && plan && s->ops == &vertex_patch_ops,
               "ts_vertex_patch_plan: not a vertex-patch smoother");
  *plan = &((ts_vertex_patch_sweep)s->data)->plan;
  return 0;
}
