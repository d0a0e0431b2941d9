/* stokes.c -- the matrix-free Stokes operator of paper 000 (eq. 3-4) with velocity RT_k and
 * pressure DGQ_k on a Cartesian box level (doc/stokes.md): the plan of 1D matrices and
 * scalings (section 4) for the backend's stokes_apply kernel, the operator shell, and the
 * removal of the pressure mean (section 6). */
#include <math.h>
#include "../tessera-impl.h"

typedef struct stokes_data {
  ts_stokes_plan plan;
  ts_stokes_1d matrices;        /* the plan's 1D matrices */
  /* the mean weights W_q / sum W on the pressure DoFs (0 on the velocity), the pressure
   * indicator, the two diagonals */
  ts_saddle saddle;
} stokes_data;

static int check_stokes_spaces(ts_dofs velocity, ts_dofs pressure) {
  TS_CHECK_ARG(velocity && pressure, "Stokes: the %s DoFs are NULL", velocity ? "pressure" : "velocity");
  TS_CHECK_ARG(velocity->fe->family == TS_FE_RT,
               "Stokes: the velocity DoFs must be of an RT_k element (family %d given, RT_k is %d)",
               (int)velocity->fe->family, (int)TS_FE_RT);
  TS_CHECK_ARG(pressure->fe->family == TS_FE_DGQ,
               "Stokes: the pressure DoFs must be of a DGQ_k element (family %d given, DGQ_k is %d)",
               (int)pressure->fe->family, (int)TS_FE_DGQ);
  TS_CHECK_ARG(velocity->degree == pressure->degree,
               "Stokes: velocity RT_%d and pressure DGQ_%d, the degrees must be equal",
               velocity->degree, pressure->degree);
  TS_CHECK_ARG(velocity->mesh == pressure->mesh && velocity->level == pressure->level,
               "Stokes: velocity on level %d and pressure on level %d%s: they must share mesh "
               "and level", velocity->level, pressure->level,
               velocity->mesh == pressure->mesh ? "" : " of different meshes");
  /* RT_k DoFs exist on mapped meshes (for ts_operator_create_hdiv_mass); Stokes is box-only */
  TS_CALL(ts_dofs_require_mapped(velocity, 0, "Stokes"));
  TS_CHECK_ARG(velocity->dim == 2 || velocity->dim == 3, "Stokes: dim = %d, allowed 2 or 3",
               velocity->dim);
  return 0;
}

int ts_stokes_plan_init(ts_dofs velocity, ts_dofs pressure, double penalty, ts_stokes_plan *plan,
                        ts_stokes_1d *storage) {
  TS_CHECK_ARG(plan && storage, "ts_stokes_plan_init: NULL plan or storage");
  TS_CALL(check_stokes_spaces(velocity, pressure));
  const int dim = velocity->dim;
  TS_CALL(ts_stokes_1d_init(velocity->degree, penalty, storage));
  *plan = (ts_stokes_plan){.dim = dim, .degree = velocity->degree, .penalty = penalty,
                           .constrained = 1};
  double volume = 1.0;
  for (int d = 0; d < dim; ++d) volume *= velocity->h[d];
  for (int d = 0; d < 3; ++d) {
    plan->cells[d] = velocity->cells[d];
    plan->n_p[d] = pressure->n[d];
    for (int i = 0; i < 3; ++i) plan->n_u[i][d] = i < dim ? velocity->comp_n[i][d] : 1;
    /* doc/stokes.md section 4: scale[d] = prod_e h_e / h_d^2, div_scale[i] = prod_{e != i} h_e */
    plan->scale[d] = d < dim ? volume / (velocity->h[d] * velocity->h[d]) : 0.0;
    plan->div_scale[d] = d < dim ? volume / velocity->h[d] : 0.0;
  }
  for (int i = 0; i <= dim; ++i) plan->offset[i] = velocity->comp_offset[i];
  plan->n_dofs = velocity->count + pressure->count;
  plan->continuous_mass = storage->continuous_mass;
  plan->continuous_stiffness = storage->continuous_stiffness;
  plan->dg_mass = storage->dg_mass;
  for (int s = 0; s < 4; ++s) plan->sipg_diag[s] = storage->sipg_diag[s];
  plan->sipg_upper = storage->sipg_upper;
  plan->divergence = storage->divergence;
  return 0;
}

static int stokes_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  stokes_data *data = op->data;
  TS_CALL(ts_backend_stokes_apply(op->backend, &data->plan, op->precision, x->data, y->data, add));
  return 0;
}

/* The plan's factorization on all DoFs, the normal boundary DoFs included.  It has no face
 * terms on the boundary faces normal to a component (doc/stokes.md section 4 drops them
 * because u_i vanishes there), so it is form (3) only on the rows and columns of the
 * unconstrained DoFs; lifting non-zero normal boundary data would need those terms. */
static int stokes_apply_unconstrained(ts_operator op, ts_vec x, ts_vec y) {
  stokes_data *data = op->data;
  ts_stokes_plan plan = data->plan;
  plan.constrained = 0;
  TS_CALL(ts_backend_stokes_apply(op->backend, &plan, op->precision, x->data, y->data, 0));
  return 0;
}

/* Counted operations of the omp kernel (backends/omp/stokes-kernel.h), 2 per multiply-add.
 * Per component i and per line of the component in direction d (lines(i, d) = its size /
 * n_u[i][d]), with k1 = k+1, k2 = k+2 and c_d cells in direction d:
 *   Mc and Kc along i: 2 c_i k2^2;  D^T and D along i: 2 c_i k1 k2;
 *   SIPG along d != i: (3 c_d - 2) k1^2 (diagonal blocks and both off-diagonal blocks);
 * plus per velocity DoF dim + 1 products of scalings and weights, per pressure DoF and
 * component two. */
static double stokes_flops(ts_operator op) {
  const stokes_data *data = op->data;
  const ts_stokes_plan *p = &data->plan;
  const double k1 = p->degree + 1, k2 = p->degree + 2;
  double pressure = 1.0, macs = 0.0, scalings = 0.0;
  for (int d = 0; d < p->dim; ++d) pressure *= (double)p->n_p[d];
  for (int i = 0; i < p->dim; ++i) {
    double size = 1.0;
    for (int d = 0; d < p->dim; ++d) size *= (double)p->n_u[i][d];
    const double ci = (double)p->cells[i], lines_i = size / (double)p->n_u[i][i];
    macs += lines_i * ci * (2.0 * k2 * k2 + 2.0 * k1 * k2);
    for (int d = 0; d < p->dim; ++d)
      if (d != i) macs += size / (double)p->n_u[i][d] * (3.0 * (double)p->cells[d] - 2.0) * k1 * k1;
    scalings += size * (p->dim + 1.0) + 2.0 * pressure;
  }
  return 2.0 * macs + scalings;
}

static void stokes_destroy(ts_operator op) {
  stokes_data *data = op->data;
  if (!data) return;
  ts_vec_destroy(&data->saddle.mean_weights);
  ts_vec_destroy(&data->saddle.pressure_indicator);
  ts_free(&op->data);
}

static const ts_saddle *stokes_saddle(ts_operator op) {
  return &((const stokes_data *)op->data)->saddle;
}

/* the CSR matrix of the plan (lib/sparse/assemble-stokes.c) */
static int stokes_assemble(ts_operator op, ts_matrix *M) {
  const stokes_data *data = op->data;
  TS_CALL(ts_matrix_assemble_stokes_plan(&data->plan, M));
  return 0;
}

static const ts_operator_ops stokes_ops = {
    .name = "stokes",
    .apply = stokes_apply,
    .apply_unconstrained = stokes_apply_unconstrained,
    .diagonal = NULL,
    .flops = stokes_flops,
    .destroy = stokes_destroy,
    .saddle = stokes_saddle,
    .assemble = stokes_assemble,
};

/* The tensor Gauss weight prod_d w_{a_d} of pressure DoF `local` (index within the pressure
 * block; a_d its index in direction d, a_d mod (k+1) within the cell). */
static double pressure_weight(const stokes_data *data, int64_t local) {
  const ts_stokes_plan *p = &data->plan;
  const int k1 = p->degree + 1;
  const int64_t a[3] = {local % p->n_p[0], local / p->n_p[0] % p->n_p[1],
                        local / (p->n_p[0] * p->n_p[1])};
  double weight = 1.0;
  for (int d = 0; d < p->dim; ++d) weight *= data->matrices.gauss_weights[a[d] % k1];
  return weight;
}

double ts_stokes_pressure_weight(ts_operator stokes, int64_t local) {
  return pressure_weight(stokes->data, local);
}

/* M_p = diag(|K| prod_d w_{a_d}): the DGQ_k Gauss-Lagrange basis is orthogonal under its
 * Gauss rule (doc/stokes.md section 4, dg_mass); |K| = div_scale[0] h_0 = div_scale[0]^2 /
 * scale[0] (section 4: div_scale[0] = |K| / h_0, scale[0] = |K| / h_0^2). */
static int stokes_pressure_mass_diagonal(ts_operator stokes, ts_vec d) {
  const stokes_data *data = stokes->data;
  const ts_stokes_plan *p = &data->plan;
  const int64_t n = d->n;
  const double volume = p->div_scale[0] * p->div_scale[0] / p->scale[0];
  double *m;
  TS_CALL(ts_calloc((size_t)n, sizeof *m, "pressure mass", &m));
  for (int64_t q = 0; q < n; ++q) m[q] = volume * pressure_weight(data, q);
  const int ierr = ts_vec_set_from_host(d, m);
  ts_free(&m);
  return ierr;
}

/* The pressure-mean vectors of doc/stokes.md section 6: weights W_q / sum W (the tensor
 * Gauss weights; with equal cells their sum is prod_d cells_d) and the indicator of the
 * pressure block, both zero on the velocity. */
static int create_mean_vectors(ts_operator op, stokes_data *data) {
  const ts_stokes_plan *p = &data->plan;
  const int64_t first = p->offset[p->dim], n = p->n_dofs;
  double *w = NULL, *indicator = NULL;
  TS_CALL(ts_calloc((size_t)n, sizeof *w, "pressure mean weights", &w));
  int ierr = ts_calloc((size_t)n, sizeof *indicator, "pressure indicator", &indicator);
  if (!ierr) {
    const double cells = (double)(p->cells[0] * p->cells[1] * p->cells[2]);
    for (int64_t q = first; q < n; ++q) {
      w[q] = pressure_weight(data, q - first) / cells;
      indicator[q] = 1.0;
    }
    ierr = ts_vec_create(op->backend, n, op->precision, &data->saddle.mean_weights);
  }
  if (!ierr) ierr = ts_vec_create(op->backend, n, op->precision, &data->saddle.pressure_indicator);
  if (!ierr) ierr = ts_vec_set_from_host(data->saddle.mean_weights, w);
  if (!ierr) ierr = ts_vec_set_from_host(data->saddle.pressure_indicator, indicator);
  ts_free(&w);
  ts_free(&indicator);
  if (ierr) return ts_error_trace(ierr, __FILE__, __LINE__, "pressure mean vectors");
  return 0;
}

int ts_operator_create_stokes(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                              double penalty, ts_precision p, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CALL(check_stokes_spaces(velocity, pressure));
  TS_CHECK_ARG(!isnan(penalty) && penalty < INFINITY,
               "Stokes: penalty = %g, allowed a finite value (<= 0 selects the default %g)",
               penalty, TS_STOKES_DEFAULT_PENALTY);
  TS_CHECK_ARG(p == TS_DOUBLE || p == TS_SINGLE, "Stokes: precision %d unknown, allowed %d "
               "(double) or %d (single)", (int)p, (int)TS_DOUBLE, (int)TS_SINGLE);
  if (!backend->ops.stokes_apply)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'stokes_apply'", backend->name);
  stokes_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "Stokes plan", &data));
  const double eta = penalty > 0.0 ? penalty : TS_STOKES_DEFAULT_PENALTY;
  int ierr = ts_stokes_plan_init(velocity, pressure, eta, &data->plan, &data->matrices);
  if (ierr) {
    ts_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Stokes plan");
  }
  const int64_t n_u = data->plan.offset[data->plan.dim];
  data->saddle = (ts_saddle){.velocity_count = n_u,
                             .pressure_count = data->plan.n_dofs - n_u,
                             .velocity_diagonal = ts_stokes_rt_velocity_diagonal,
                             .pressure_mass_diagonal = stokes_pressure_mass_diagonal};
  TS_CALL(ts_operator_create_shell(backend, &stokes_ops, data->plan.n_dofs, p, data, op));
  ierr = create_mean_vectors(*op, data);
  if (ierr) {
    ts_operator_destroy(op);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Stokes operator");
  }
  return 0;
}

static int stokes_data_of(ts_operator op, const char *caller, stokes_data **data) {
  TS_CHECK_ARG(op && op->ops == &stokes_ops, "%s: the operator is %s, a Stokes operator is required",
               caller, op ? op->ops->name : "NULL");
  *data = op->data;
  return 0;
}

int ts_operator_stokes_plan(ts_operator op, const ts_stokes_plan **plan) {
  stokes_data *data = NULL;
  TS_CHECK_ARG(plan, "ts_operator_stokes_plan: plan is NULL");
  TS_CALL(stokes_data_of(op, "ts_operator_stokes_plan", &data));
  *plan = &data->plan;
  return 0;
}

int ts_saddle_of(ts_operator stokes, const char *caller, const ts_saddle **saddle) {
  TS_CHECK_ARG(stokes && stokes->ops->saddle, "%s: the operator is %s, a Stokes operator (RT or "
               "Taylor-Hood) is required", caller, stokes ? stokes->ops->name : "NULL");
  *saddle = stokes->ops->saddle(stokes);
  return 0;
}

int ts_stokes_pressure_mean(ts_operator stokes, ts_vec x, double *mean) {
  const ts_saddle *s = NULL;
  TS_CHECK_ARG(mean, "ts_stokes_pressure_mean: mean is NULL");
  TS_CALL(ts_saddle_of(stokes, "ts_stokes_pressure_mean", &s));
  TS_CALL(ts_vec_dot(s->mean_weights, x, mean));
  return 0;
}

int ts_stokes_pressure_mean_remove(ts_operator stokes, ts_vec x) {
  double mean;
  const ts_saddle *s = NULL;
  TS_CALL(ts_saddle_of(stokes, "ts_stokes_pressure_mean_remove", &s));
  TS_CALL(ts_stokes_pressure_mean(stokes, x, &mean));
  TS_CALL(ts_vec_axpby(-mean, s->pressure_indicator, 1.0, x));
  return 0;
}

int ts_stokes_pressure_count(ts_operator stokes, const char *caller, int64_t *count) {
  const ts_saddle *s = NULL;
  TS_CALL(ts_saddle_of(stokes, caller, &s));
  *count = s->pressure_count;
  return 0;
}

int ts_stokes_pressure_mass_diagonal(ts_operator stokes, ts_vec d) {
  const ts_saddle *s = NULL;
  TS_CALL(ts_saddle_of(stokes, __func__, &s));
  TS_CHECK_ARG(d && d->n == s->pressure_count, "%s: the diagonal needs %lld entries (the "
               "pressure DoFs)", __func__, (long long)s->pressure_count);
  return s->pressure_mass_diagonal(stokes, d);
}
