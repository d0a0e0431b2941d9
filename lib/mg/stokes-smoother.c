/* stokes-smoother.c -- the Stokes vertex-patch smoother object (paper 000, Algorithm 2;
 * doc/stokes.md section 7).  One step sweeps the 2^dim colors (mesh/patch.c); per color the
 * global residual r = b - Acal x is computed once with the Stokes operator (the Separate
 * scheme; Fused does not apply, paper 000 section 4.4) and the backend's stokes_patch_smooth
 * SOLVE stage adds x += R_j^T Acal_j^{+} R_j r on every patch of the color.  The local
 * solvers are prepared in mg/stokes-patch-solve.c.  Constrained (normal boundary) DoFs lie in
 * no patch, so x keeps its values there. */
#include "../tessera-impl.h"

typedef struct stokes_smoother_data {
  ts_stokes_patch_plan plan;
  double *storage;              /* the plan's patch matrices and local-solver data */
  ts_vec r;                     /* the global residual */
} stokes_smoother_data;

static int stokes_smoother_apply(ts_smoother s, ts_vec b, ts_vec x) {
  stokes_smoother_data *data = s->data;
  ts_stokes_patch_plan plan = data->plan;
  TS_CHECK_ARG(b != x, "Stokes vertex-patch smoother: b and x must be different vectors");
  for (int color = 0; color < ts_vertex_patch_color_count(plan.global.dim); ++color) {
    TS_CALL(ts_vertex_patch_color(plan.global.dim, plan.global.cells, color, plan.first_vertex,
                                  plan.vertex_count, &plan.vertex_stride));
    int empty = 0;
    for (int d = 0; d < plan.global.dim; ++d) empty |= plan.vertex_count[d] == 0;
    if (empty) continue;
    plan.color = color;
    TS_CALL(ts_operator_apply(s->A, x, data->r)); /* r = b - Acal x */
    TS_CALL(ts_vec_axpby(1.0, b, -1.0, data->r));
    TS_CALL(ts_backend_stokes_patch_smooth(s->A->backend, &plan, s->A->precision, b->data,
                                           x->data, data->r->data));
  }
  return 0;
}

static void stokes_smoother_destroy(ts_smoother s) {
  stokes_smoother_data *data = s->data;
  if (!data) return;
  ts_vec_destroy(&data->r);
  ts_free(&data->storage);
  ts_free(&s->data);
}

static const ts_smoother_ops stokes_smoother_ops = {
    .name = "stokes-vertex-patch",
    .apply = stokes_smoother_apply,
    .destroy = stokes_smoother_destroy,
};

/* The operator's plan must belong to these DoF handlers. */
static int check_handlers(const ts_stokes_plan *g, ts_dofs velocity, ts_dofs pressure) {
  TS_CHECK_ARG(velocity && pressure, "Stokes vertex-patch smoother: the %s DoF handler is NULL",
               velocity ? "pressure" : "velocity");
  TS_CHECK_ARG(velocity->degree == g->degree && pressure->degree == g->degree &&
                   velocity->count + pressure->count == g->n_dofs,
               "Stokes vertex-patch smoother: DoF handlers of degree %d and %d with %lld DoFs do "
               "not match the operator (degree %d, %lld DoFs)",
               velocity->degree, pressure->degree,
               (long long)(velocity->count + pressure->count), g->degree, (long long)g->n_dofs);
  return 0;
}

int ts_smoother_create_stokes_patch(ts_operator stokes, ts_dofs velocity, ts_dofs pressure,
                                    ts_stokes_patch_solver solver, ts_smoother *smoother) {
  TS_CHECK_NOT_NULL(smoother);
  *smoother = NULL;
  TS_CHECK_NOT_NULL(stokes);
  const ts_stokes_plan *global;
  TS_CALL(ts_operator_stokes_plan(stokes, &global));
  TS_CALL(check_handlers(global, velocity, pressure));
  ts_backend be = stokes->backend;
  if (!be->ops.stokes_patch_smooth)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'stokes_patch_smooth'",
                    be->name);
  stokes_smoother_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "Stokes vertex-patch smoother", &data));
  int ierr = ts_stokes_patch_plan_init(global, solver, &data->plan, &data->storage);
  if (!ierr) ierr = ts_vec_create(be, stokes->n, stokes->precision, &data->r);
  if (!ierr) ierr = ts_smoother_create_shell(stokes, &stokes_smoother_ops, data, smoother);
  if (ierr) {
    ts_vec_destroy(&data->r);
    ts_free(&data->storage);
    ts_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Stokes vertex-patch smoother setup");
  }
  return 0;
}

int ts_smoother_stokes_patch_set_cg_tolerance(ts_smoother s, double tolerance) {
  TS_CHECK_ARG(s && s->ops == &stokes_smoother_ops,
               "ts_smoother_stokes_patch_set_cg_tolerance: not a Stokes vertex-patch smoother");
  stokes_smoother_data *data = s->data;
  TS_CHECK_ARG(data->plan.solver == TS_STOKES_PATCH_SCHUR,
               "ts_smoother_stokes_patch_set_cg_tolerance: the smoother has the direct local "
               "solver; the CG tolerance belongs to the Schur-complement solver");
  TS_CHECK_ARG(tolerance > 0.0 && tolerance < 1.0,
               "Stokes vertex-patch smoother: CG tolerance %g, allowed 0 < tolerance < 1", tolerance);
  data->plan.cg_tolerance = tolerance;
  return 0;
}

int ts_stokes_patch_smoother_plan(ts_smoother s, const ts_stokes_patch_plan **plan) {
  TS_CHECK_ARG(s && plan && s->ops == &stokes_smoother_ops,
               "ts_stokes_patch_smoother_plan: not a Stokes vertex-patch smoother");
  *plan = &((stokes_smoother_data *)s->data)->plan;
  return 0;
}
