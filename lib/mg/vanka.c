/* vanka.c -- Vanka relaxation of the Taylor-Hood Q2 x Q1 system (paper 004, Algorithm 3;
 * doc/taylor-hood.md section 7).  One patch per pressure vertex: its pressure DoF and the
 * velocity DoFs of the 2^dim cells around it (the 5^dim Q2 nodes per component there, less
 * those outside the mesh or on the boundary).  The patch matrix A_i = V_i Acal V_i^T is that
 * of the assembled operator (ts_taylor_hood_vertex_patch); on a box it depends only on where
 * the vertex lies relative to the boundary, per direction one of at most five kinds (0, 1,
 * interior, cells-1, cells: the key (min(v, 2), min(cells - v, 2))), so the inverses are
 * computed once per kind, at most 5^dim of them (25 in 2D, the paper's count).
 *
 * Additive (the paper's form): x += omega sum_i V_i^T W_i A_i^{-1} V_i r with r = b - Acal x,
 * W_i = diag(1 / the number of patches holding each DoF); W_i and omega are folded into the
 * stored matrices; the patches are applied by colors (vertices 3 apart in every direction
 * share no DoF), all from the one residual.  Multiplicative: the patches of one color correct
 * from the residual recomputed before the color, weighted by omega alone; its colors are
 * vertices 4 apart, whose patches are not even coupled by the operator (patches 3 apart
 * touch one cell), so that a color is an exact block Gauss-Seidel step (with 3 apart the
 * colors are block Jacobi steps of coupled patches, and the iteration stagnated on fine
 * levels).
 * The backend's vanka_apply adds the corrections of one color. */
#include "../tessera-impl.h"

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

typedef struct vanka_data {
  ts_vanka_plan plan;           /* the color's fields are set per pass */
  ts_vec matrices;              /* the weighted patch inverses, in the smoother's precision */
  ts_vec r;                     /* b - Acal x */
  int multiplicative;
} vanka_data;

/* the patches of color (o_0, o_1, o_2), o_d = color / stride^d % stride: vertices
 * o_d + stride j */
static void set_color(ts_vanka_plan *plan, int color) {
  const int m = plan->vertex_stride;
  for (int d = 0; d < 3; ++d) {
    const int o = d < plan->dim ? color / (d == 0 ? 1 : d == 1 ? m : m * m) % m : 0;
    plan->first_vertex[d] = o;
    plan->vertex_count[d] = d >= plan->dim ? 1 : o > plan->cells[d] ? 0 : (plan->cells[d] - o) / m + 1;
  }
}

static int vanka_smooth(ts_smoother s, ts_vec b, ts_vec x) {
  vanka_data *data = s->data;
  TS_CHECK_ARG(b != x, "Vanka smoother: b and x must be different vectors");
  const int m = data->plan.vertex_stride, colors = data->plan.dim == 3 ? m * m * m : m * m;
  for (int color = 0; color < colors; ++color) {
    if (color == 0 || data->multiplicative) {
      TS_CALL(ts_operator_apply(s->A, x, data->r));
      TS_CALL(ts_vec_axpby(1.0, b, -1.0, data->r));
    }
    set_color(&data->plan, color);
    int empty = 0;
    for (int d = 0; d < data->plan.dim; ++d) empty |= data->plan.vertex_count[d] == 0;
    if (!empty)
      TS_CALL(ts_backend_vanka_apply(s->A->backend, &data->plan, s->A->precision, data->r->data,
                                     x->data));
  }
  return 0;
}

static void vanka_destroy(ts_smoother s) {
  vanka_data *data = s->data;
  if (!data) return;
  ts_vec_destroy(&data->matrices);
  ts_vec_destroy(&data->r);
  ts_free(&s->data);
}

static const ts_smoother_ops vanka_ops = {
    .name = "vanka",
    .apply = vanka_smooth,
    .destroy = vanka_destroy,
};

/* The kinds of vertex per direction: class_map from the key (min(v, 2), min(cells - v, 2))
 * and one vertex of each kind (representative[d][kind]). */
static void vertex_kinds(ts_vanka_plan *plan, int64_t representative[3][9]) {
  for (int d = 0; d < 3; ++d) {
    for (int key = 0; key < 9; ++key) plan->class_map[d][key] = -1;
    plan->class_count[d] = 0;
    const int64_t cells = d < plan->dim ? plan->cells[d] : 0;
    for (int64_t v = 0; v <= cells; ++v) {
      const int key = 3 * (int)(v < 2 ? v : 2) + (int)(cells - v < 2 ? cells - v : 2);
      if (plan->class_map[d][key] >= 0) continue;
      representative[d][plan->class_count[d]] = v;
      plan->class_map[d][key] = plan->class_count[d]++;
    }
    for (int key = 0; key < 9; ++key)
      if (plan->class_map[d][key] < 0) plan->class_map[d][key] = 0; /* no such vertex */
  }
}

/* the number of patches that hold velocity node i of a direction with `cells` cells: the
 * vertices v with |2 v - i| <= 2 */
static int64_t node_patches(int64_t i, int64_t cells) {
  const int64_t low = i <= 2 ? 0 : (i - 1) / 2, high = (i + 2) / 2 < cells ? (i + 2) / 2 : cells;
  return high - low + 1;
}

/* inverse (P x P, column-major) = the weighted inverse of the patch matrix of vertex v, zero in
 * the rows and columns of its inactive DoFs; matrix, active, compact, pivots: work space */
static int patch_inverse(ts_operator stokes, const ts_vanka_plan *plan, const int64_t *v,
                         double weight, int multiplicative, double *matrix, int *active,
                         double *compact, double *identity, int *pivots, double *inverse) {
  const int P = plan->patch_size, nodes = plan->dim == 3 ? 125 : 25;
  TS_CALL(ts_taylor_hood_vertex_patch(stokes, v, matrix, active));
  int index[3 * 125 + 1], m = 0;
  for (int i = 0; i < P; ++i)
    if (active[i]) index[m++] = i;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      compact[i + (size_t)j * m] = matrix[index[i] * P + index[j]]; /* column-major */
      identity[i + (size_t)j * m] = i == j;
    }
  int info = 0;
  dgesv_(&m, &m, compact, &m, pivots, identity, &m, &info);
  if (info)
    return TS_ERROR(TS_ERR_LAPACK, "Vanka: the patch matrix of vertex (%lld, %lld, %lld) is "
                    "singular (dgesv info = %d)", (long long)v[0], (long long)v[1],
                    (long long)v[2], info);
  for (int e = 0; e < P * P; ++e) inverse[e] = 0.0;
  for (int i = 0; i < m; ++i) {
    double w = weight;
    if (!multiplicative && index[i] < P - 1) { /* a velocity DoF: 1 / its patch count */
      const int a = index[i] % nodes;
      for (int d = 0; d < plan->dim; ++d) {
        const int a_d = d == 0 ? a % 5 : d == 1 ? a / 5 % 5 : a / 25;
        w /= (double)node_patches(2 * v[d] - 2 + a_d, plan->cells[d]);
      }
    }
    for (int j = 0; j < m; ++j) inverse[index[i] + index[j] * P] = w * identity[i + (size_t)j * m];
  }
  return 0;
}

/* every kind's weighted inverse into host (slots P^2 values), from the kinds' vertices */
static int patch_inverses(ts_operator stokes, const ts_vanka_plan *plan,
                          int64_t representative[3][9], double weight, int multiplicative,
                          double *host) {
  const int P = plan->patch_size;
  double *matrix = NULL, *compact = NULL, *identity = NULL;
  int *active = NULL, *pivots = NULL;
  int ierr = ts_calloc((size_t)P * P, sizeof *matrix, "Vanka patch matrix", &matrix);
  if (!ierr) ierr = ts_calloc((size_t)P * P, sizeof *compact, "Vanka patch matrix", &compact);
  if (!ierr) ierr = ts_calloc((size_t)P * P, sizeof *identity, "Vanka patch inverse", &identity);
  if (!ierr) ierr = ts_calloc((size_t)P, sizeof *active, "Vanka patch DoFs", &active);
  if (!ierr) ierr = ts_calloc((size_t)P, sizeof *pivots, "Vanka pivots", &pivots);
  for (int c2 = 0; c2 < plan->class_count[2] && !ierr; ++c2)
    for (int c1 = 0; c1 < plan->class_count[1] && !ierr; ++c1)
      for (int c0 = 0; c0 < plan->class_count[0] && !ierr; ++c0) {
        const int64_t v[3] = {representative[0][c0], representative[1][c1], representative[2][c2]};
        const int64_t slot = c0 + plan->class_count[0] * (c1 + (int64_t)plan->class_count[1] * c2);
        ierr = patch_inverse(stokes, plan, v, weight, multiplicative, matrix, active, compact,
                             identity, pivots, host + slot * P * P);
      }
  ts_free(&matrix);
  ts_free(&compact);
  ts_free(&identity);
  ts_free(&active);
  ts_free(&pivots);
  return ierr;
}

static int check_params(const ts_saddle_relaxation *r) {
  TS_CHECK_ARG(r->weight > 0.0 && r->weight <= 2.0,
               "Vanka smoother: weight = %g, allowed 0 < weight <= 2", r->weight);
  TS_CHECK_ARG(r->multiplicative == 0 || r->multiplicative == 1,
               "Vanka smoother: multiplicative = %d, allowed 0 (additive) or 1", r->multiplicative);
  return 0;
}

static int init_plan(const ts_taylor_hood_layout *l, ts_vanka_plan *plan) {
  TS_CHECK_ARG(l->degree == 2, "Vanka smoother: Taylor-Hood Q%d x Q%d, allowed only Q2 x Q1 "
               "(one pressure DoF per vertex); use Braess-Sarazin or Schur-Uzawa for k > 2",
               l->degree, l->degree - 1);
  *plan = (ts_vanka_plan){.dim = l->dim, .vertex_stride = 3};
  for (int d = 0; d < 3; ++d) {
    plan->cells[d] = l->cells[d];
    plan->n_u[d] = l->n_u[d];
    plan->n_p[d] = l->n_p[d];
  }
  plan->n_velocity = l->n_velocity;
  plan->pressure_offset = l->dim * l->n_velocity;
  plan->n_dofs = plan->pressure_offset + l->n_pressure;
  plan->patch_size = l->dim * (l->dim == 3 ? 125 : 25) + 1;
  return 0;
}

int ts_smoother_create_vanka(ts_operator stokes, const ts_saddle_relaxation *params,
                             ts_smoother *smoother) {
  TS_CHECK_NOT_NULL(smoother);
  *smoother = NULL;
  TS_CHECK_NOT_NULL(stokes);
  ts_taylor_hood_layout layout;
  TS_CALL(ts_taylor_hood_layout_of(stokes, "ts_smoother_create_vanka", &layout));
  ts_saddle_relaxation r;
  TS_CALL(ts_saddle_relaxation_resolve(TS_MG_SMOOTHER_VANKA, layout.degree, params, &r));
  TS_CALL(check_params(&r));
  ts_backend be = stokes->backend;
  if (!be->ops.vanka_apply)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'vanka_apply'", be->name);
  vanka_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "Vanka smoother", &data));
  data->multiplicative = r.multiplicative;
  int ierr = init_plan(&layout, &data->plan);
  data->plan.vertex_stride = r.multiplicative ? 4 : 3;
  double *host = NULL;
  int64_t values = 0, representative[3][9] = {{0}};
  if (!ierr) {
    vertex_kinds(&data->plan, representative);
    values = (int64_t)data->plan.class_count[0] * data->plan.class_count[1] *
             data->plan.class_count[2] * data->plan.patch_size * data->plan.patch_size;
    ierr = ts_calloc((size_t)values, sizeof *host, "Vanka patch inverses", &host);
  }
  if (!ierr)
    ierr = patch_inverses(stokes, &data->plan, representative, r.weight, r.multiplicative, host);
  if (!ierr) ierr = ts_vec_create(be, values, stokes->precision, &data->matrices);
  if (!ierr) ierr = ts_vec_set_from_host(data->matrices, host);
  if (!ierr) ierr = ts_vec_create(be, stokes->n, stokes->precision, &data->r);
  ts_free(&host);
  if (!ierr) {
    data->plan.matrices = data->matrices->data;
    ierr = ts_smoother_create_shell(stokes, &vanka_ops, data, smoother);
  }
  if (ierr) {
    ts_vec_destroy(&data->matrices);
    ts_vec_destroy(&data->r);
    ts_free(&data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Vanka smoother setup");
  }
  return 0;
}
