/* plan-check.c -- every plan a backend kernel receives is validated here, once, in the one
 * function per kernel through which the library hands it over (ts_backend_laplace_apply,
 * ..., ts_backend_stokes_patch_smooth).  A plan that passes is one tessera/backend.h
 * describes: sizes consistent with each other, 1D matrices present and finite, local-solver
 * data for every patch the plan visits.  A backend therefore checks only what is its own:
 * a precision or degree it was not compiled for, a launch too large for its device. */
#include <math.h>
#include "tessera-impl.h"

#define LARGEST_CELL_COUNT ((int64_t)1 << 40)

static int finite_array(const double *a, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!isfinite(a[i])) return 0;
  return 1;
}

/* ---------------------------------------------------------------- Laplacian */

/* The DoF grid of Q_k on a box: cells[d] >= 1 and n[d] = cells[d] k + 1 (1 beyond dim),
 * n_dofs = prod n[d]; k_name names the plan's field of k. */
static int dof_grid_check(const char *what, int dim, const int64_t *cells, int k,
                          const char *k_name, const int64_t *n, int64_t n_dofs) {
  int64_t count = 1;
  for (int d = 0; d < 3; ++d) {
    TS_CHECK_ARG(d >= dim || (cells[d] >= 1 && cells[d] <= LARGEST_CELL_COUNT),
                 "%s: plan->cells[%d] = %lld, expected 1..2^40", what, d, (long long)cells[d]);
    const int64_t want = d < dim ? cells[d] * k + 1 : 1;
    TS_CHECK_ARG(n[d] == want, "%s: plan->n[%d] = %lld, expected cells[%d]*%s+1 = %lld", what, d,
                 (long long)n[d], d, k_name, (long long)want);
    count *= n[d];
  }
  TS_CHECK_ARG(n_dofs == count, "%s: plan->n_dofs = %lld, expected prod n[d] = %lld", what,
               (long long)n_dofs, (long long)count);
  return 0;
}

static int laplace_matrix_check(const double *A, int degree, const char *name) {
  TS_CHECK_ARG(A, "laplace plan: plan->%s is NULL", name);
  const int n1 = degree + 1;
  for (int i = 0; i < n1 * n1; ++i)
    TS_CHECK_ARG(isfinite(A[i]), "laplace plan: plan->%s[%d] is not finite", name, i);
  return 0;
}

static int even_odd_check(const ts_even_odd_1d *f, const char *name) {
  for (int a = 0; a < TS_EVEN_ODD_SIZE; ++a)
    for (int b = 0; b < TS_EVEN_ODD_SIZE; ++b)
      TS_CHECK_ARG(isfinite(f->even[a][b]) && isfinite(f->odd[a][b]),
                   "laplace plan: plan->%s[%d][%d] is not finite", name, a, b);
  return 0;
}

static int laplace_plan_check(const ts_laplace_plan *pl) {
  TS_CHECK_ARG(pl, "laplace plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "laplace plan: plan->dim = %d, expected 2 or 3",
               pl->dim);
  TS_CHECK_ARG(pl->degree >= 1 && pl->degree <= TS_MAX_DEGREE,
               "laplace plan: plan->degree = %d, expected 1..%d", pl->degree, TS_MAX_DEGREE);
  for (int d = pl->dim; d < 3; ++d)
    TS_CHECK_ARG(pl->cells[d] == 1, "laplace plan: plan->cells[%d] = %lld, expected 1 in %dD", d,
                 (long long)pl->cells[d], pl->dim);
  TS_CALL(dof_grid_check("laplace plan", pl->dim, pl->cells, pl->degree, "degree", pl->n, pl->n_dofs));
  for (int d = 0; d < pl->dim; ++d)
    TS_CHECK_ARG(isfinite(pl->scale[d]), "laplace plan: plan->scale[%d] is not finite", d);
  TS_CALL(laplace_matrix_check(pl->mass_1d, pl->degree, "mass_1d"));
  TS_CALL(laplace_matrix_check(pl->stiffness_1d, pl->degree, "stiffness_1d"));
  TS_CHECK_ARG(pl->centro_symmetric == 0 || pl->centro_symmetric == 1,
               "laplace plan: plan->centro_symmetric = %d, expected 0 or 1", pl->centro_symmetric);
  TS_CALL(even_odd_check(&pl->mass_even_odd, "mass_even_odd"));
  TS_CALL(even_odd_check(&pl->stiffness_even_odd, "stiffness_even_odd"));
  return 0;
}

/* ---------------------------------------------------------------- transfer between levels */

static int transfer_plan_check(const ts_transfer_plan *pl) {
  TS_CHECK_ARG(pl && pl->interpolation_1d, "transfer plan: %s is NULL",
               pl ? "plan->interpolation_1d" : "plan");
  const int kc = pl->coarse_degree, m = pl->fine_per_cell;
  TS_CHECK_ARG(pl->dim >= 2 && pl->dim <= 3 && kc >= 1 && kc <= TS_MAX_DEGREE && m >= 1 &&
                   m <= 2 * TS_MAX_DEGREE,
               "transfer plan: dim %d, coarse_degree %d and fine_per_cell %d, allowed dim 2..3, "
               "coarse_degree 1..%d and fine_per_cell 1..%d",
               pl->dim, kc, m, TS_MAX_DEGREE, 2 * TS_MAX_DEGREE);
  for (int d = 0; d < pl->dim; ++d)
    TS_CHECK_ARG(pl->coarse_cells[d] >= 1 && pl->coarse_n[d] == kc * pl->coarse_cells[d] + 1 &&
                     pl->fine_n[d] == m * pl->coarse_cells[d] + 1,
                 "transfer plan: direction %d has %lld coarse cells, %lld coarse and %lld fine "
                 "DoFs: expected cells >= 1, coarse = coarse_degree*cells+1, fine = "
                 "fine_per_cell*cells+1 (coarse_degree %d, fine_per_cell %d)",
                 d, (long long)pl->coarse_cells[d], (long long)pl->coarse_n[d],
                 (long long)pl->fine_n[d], kc, m);
  return 0;
}

/* ---------------------------------------------------------------- multi-field transfer */

/* The sizes of field i in direction d agree with its cell DoFs, overlap and the cells. */
static int field_direction_check(const ts_field_transfer_plan *pl, int i, int d) {
  const ts_field_transfer_field *f = &pl->field[i];
  if (d >= pl->dim) {
    TS_CHECK_ARG(f->coarse_n[d] == 1 && f->fine_n[d] == 1,
                 "field transfer plan: field %d has %lld coarse and %lld fine DoFs in direction "
                 "%d beyond dim %d, allowed 1",
                 i, (long long)f->coarse_n[d], (long long)f->fine_n[d], d, pl->dim);
    return 0;
  }
  const int m = f->cell_dofs[d], c = f->continuous[d];
  const int64_t cells = pl->coarse_cells[d], step = m - c;
  TS_CHECK_ARG(m >= 1 && m <= TS_FIELD_TRANSFER_MAX_CELL_DOFS && (c == 0 || c == 1) && step >= 1 &&
                   f->prolongation_1d[d],
               "field transfer plan: field %d direction %d has %d cell DoFs, continuous = %d and "
               "%s matrix; allowed cell DoFs 1..%d (2.. if continuous), continuous 0 or 1, a "
               "matrix",
               i, d, m, c, f->prolongation_1d[d] ? "a" : "no", TS_FIELD_TRANSFER_MAX_CELL_DOFS);
  TS_CHECK_ARG(cells >= 1 && f->coarse_n[d] == step * cells + c &&
                   f->fine_n[d] == 2 * step * cells + c,
               "field transfer plan: field %d direction %d has %lld coarse cells, %lld coarse and "
               "%lld fine DoFs: need %lld and %lld for %d cell DoFs, continuous = %d",
               i, d, (long long)cells, (long long)f->coarse_n[d], (long long)f->fine_n[d],
               (long long)(step * cells + c), (long long)(2 * step * cells + c), m, c);
  return 0;
}

static int field_transfer_plan_check(const ts_field_transfer_plan *pl) {
  TS_CHECK_ARG(pl, "field transfer plan is NULL");
  TS_CHECK_ARG(pl->dim >= 2 && pl->dim <= 3 && pl->n_fields >= 1 &&
                   pl->n_fields <= TS_FIELD_TRANSFER_MAX_FIELDS,
               "field transfer plan: dim %d and %d fields, allowed dim 2..3 and 1..%d fields",
               pl->dim, pl->n_fields, TS_FIELD_TRANSFER_MAX_FIELDS);
  for (int i = 0; i < pl->n_fields; ++i) {
    const ts_field_transfer_field *f = &pl->field[i];
    for (int d = 0; d < 3; ++d) TS_CALL(field_direction_check(pl, i, d));
    const int64_t nc = f->coarse_n[0] * f->coarse_n[1] * f->coarse_n[2];
    const int64_t nf = f->fine_n[0] * f->fine_n[1] * f->fine_n[2];
    TS_CHECK_ARG(f->coarse_offset >= 0 && f->coarse_offset + nc <= pl->coarse_count &&
                     f->fine_offset >= 0 && f->fine_offset + nf <= pl->fine_count,
                 "field transfer plan: field %d occupies [%lld, %lld) of the coarse and [%lld, "
                 "%lld) of the fine vector, which have %lld and %lld entries",
                 i, (long long)f->coarse_offset, (long long)(f->coarse_offset + nc),
                 (long long)f->fine_offset, (long long)(f->fine_offset + nf),
                 (long long)pl->coarse_count, (long long)pl->fine_count);
  }
  return 0;
}

/* ---------------------------------------------------------------- vertex patches */

/* The patches of one color: v_d = first + stride j, j < count, all interior vertices
 * 1..cells-1 (an empty direction, count 0, allowed when empty_allowed). */
static int patch_vertices_check(const char *what, int dim, const int64_t *cells,
                                const int64_t *first, const int64_t *count, int stride,
                                int empty_allowed) {
  TS_CHECK_ARG(stride >= 2, "%s: plan->vertex_stride = %d, patches of one color need >= 2", what,
               stride);
  for (int d = 0; d < dim; ++d) {
    const int64_t f = first[d], c = count[d];
    const int empty = c == 0 && empty_allowed;
    TS_CHECK_ARG(empty || (c >= 1 && f >= 1 && f + stride * (c - 1) <= cells[d] - 1),
                 "%s: direction %d: vertices %lld + %d j, j < %lld, leave the interior vertices "
                 "1..%lld",
                 what, d, (long long)f, stride, (long long)c, (long long)cells[d] - 1);
  }
  return 0;
}

static int patch_direction_check(const ts_patch_plan *pl, int d) {
  const int N = pl->nbar, m = pl->m;
  TS_CHECK_ARG(pl->mass_1d[d] && pl->stiffness_1d[d] && pl->eigenvectors[d] && pl->eigenvalues[d],
               "patch plan: a 1D matrix or the eigen-decomposition of direction %d is NULL", d);
  TS_CHECK_ARG(finite_array(pl->mass_1d[d], N * N) && finite_array(pl->stiffness_1d[d], N * N) &&
                   finite_array(pl->eigenvectors[d], m * m) && finite_array(pl->eigenvalues[d], m),
               "patch plan: a 1D matrix or the eigen-decomposition of direction %d is not finite", d);
  for (int i = 0; i < m; ++i)
    TS_CHECK_ARG(pl->eigenvalues[d][i] > 0, "patch plan: plan->eigenvalues[%d][%d] = %g, expected > 0",
                 d, i, pl->eigenvalues[d][i]);
  TS_CHECK_ARG(pl->scale[d] > 0 && isfinite(pl->scale[d]),
               "patch plan: plan->scale[%d] = %g, expected finite and > 0", d, pl->scale[d]);
  return 0;
}

static int patch_plan_check(const ts_patch_plan *pl) {
  TS_CHECK_ARG(pl, "patch plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "patch plan: plan->dim = %d, expected 2 or 3", pl->dim);
  TS_CHECK_ARG(pl->stage >= TS_PATCH_STAGE_FUSED && pl->stage <= TS_PATCH_STAGE_BOUNDARY,
               "patch plan: plan->stage = %d, expected 0..3", (int)pl->stage);
  const int k = pl->dofs_per_cell;
  TS_CHECK_ARG(k >= 1 && k <= TS_MAX_DEGREE, "patch plan: plan->dofs_per_cell = %d, expected 1..%d",
               k, TS_MAX_DEGREE);
  TS_CALL(dof_grid_check("patch plan", pl->dim, pl->cells, k, "dofs_per_cell", pl->n, pl->n_dofs));
  if (pl->stage == TS_PATCH_STAGE_BOUNDARY) return 0;
  TS_CHECK_ARG(pl->nbar == 2 * k + 1 && pl->m == pl->nbar - 2,
               "patch plan: plan->nbar = %d and plan->m = %d, expected %d and %d", pl->nbar, pl->m,
               2 * k + 1, 2 * k - 1);
  TS_CHECK_ARG(pl->color >= 0 && pl->color < 1 << pl->dim,
               "patch plan: plan->color = %d, expected 0..%d", pl->color, (1 << pl->dim) - 1);
  TS_CALL(patch_vertices_check("patch plan", pl->dim, pl->cells, pl->first_vertex,
                               pl->vertex_count, pl->vertex_stride, 1));
  TS_CHECK_ARG(pl->solver == TS_PATCH_SOLVER_FAST_DIAGONALIZATION,
               "patch plan: plan->solver = %d, only fast diagonalization (0) is defined",
               (int)pl->solver);
  for (int d = 0; d < pl->dim; ++d) TS_CALL(patch_direction_check(pl, d));
  return 0;
}

static int patch_additive_plan_check(const ts_patch_additive_plan *pl) {
  TS_CHECK_ARG(pl, "patch additive plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "patch additive plan: plan->dim = %d, expected 2 "
               "or 3", pl->dim);
  const int k = pl->dofs_per_cell;
  TS_CHECK_ARG(k >= 1 && k <= TS_MAX_DEGREE, "patch additive plan: plan->dofs_per_cell = %d, "
               "expected 1..%d", k, TS_MAX_DEGREE);
  TS_CALL(dof_grid_check("patch additive plan", pl->dim, pl->cells, k, "dofs_per_cell", pl->n,
                         pl->n_dofs));
  TS_CHECK_ARG(pl->m == 2 * k - 1, "patch additive plan: plan->m = %d, expected %d", pl->m,
               2 * k - 1);
  TS_CALL(patch_vertices_check("patch additive plan", pl->dim, pl->cells, pl->first_vertex,
                               pl->vertex_count, pl->vertex_stride, 1));
  TS_CHECK_ARG(pl->local, "patch additive plan: plan->local is NULL");
  return 0;
}

/* ---------------------------------------------------------------- Vanka */

static int vanka_plan_check(const ts_vanka_plan *pl) {
  TS_CHECK_ARG(pl, "vanka plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "vanka plan: plan->dim = %d, expected 2 or 3",
               pl->dim);
  int64_t nu = 1, np = 1;
  for (int d = 0; d < 3; ++d) {
    const int in = d < pl->dim;
    TS_CHECK_ARG(!in || (pl->cells[d] >= 1 && pl->cells[d] <= LARGEST_CELL_COUNT),
                 "vanka plan: plan->cells[%d] = %lld, expected 1..2^40", d, (long long)pl->cells[d]);
    TS_CHECK_ARG(pl->n_u[d] == (in ? 2 * pl->cells[d] + 1 : 1) && pl->n_p[d] == (in ? pl->cells[d] + 1 : 1),
                 "vanka plan: direction %d has %lld velocity and %lld pressure nodes, expected "
                 "2 cells + 1 and cells + 1 (1 beyond dim)", d, (long long)pl->n_u[d],
                 (long long)pl->n_p[d]);
    nu *= pl->n_u[d];
    np *= pl->n_p[d];
    TS_CHECK_ARG(pl->class_count[d] >= 1 && pl->class_count[d] <= (in ? 9 : 1),
                 "vanka plan: plan->class_count[%d] = %d, expected 1..%d", d, pl->class_count[d],
                 in ? 9 : 1);
    for (int key = 0; key < 9; ++key)
      TS_CHECK_ARG(pl->class_map[d][key] >= 0 && pl->class_map[d][key] < pl->class_count[d],
                   "vanka plan: plan->class_map[%d][%d] = %d, expected 0..%d", d, key,
                   pl->class_map[d][key], pl->class_count[d] - 1);
    const int64_t f = pl->first_vertex[d], c = pl->vertex_count[d];
    TS_CHECK_ARG(in ? (c == 0 || (f >= 0 && c >= 1 && f + pl->vertex_stride * (c - 1) <= pl->cells[d]))
                    : (f == 0 && c == 1),
                 "vanka plan: direction %d: vertices %lld + %d j, j < %lld, leave 0..%lld", d,
                 (long long)f, pl->vertex_stride, (long long)c, in ? (long long)pl->cells[d] : 0LL);
  }
  TS_CHECK_ARG(pl->vertex_stride >= 3, "vanka plan: plan->vertex_stride = %d, patches of one "
               "color need >= 3", pl->vertex_stride);
  TS_CHECK_ARG(pl->n_velocity == nu && pl->pressure_offset == pl->dim * nu &&
                   pl->n_dofs == pl->dim * nu + np,
               "vanka plan: n_velocity %lld, pressure_offset %lld, n_dofs %lld; expected %lld, "
               "%lld, %lld", (long long)pl->n_velocity, (long long)pl->pressure_offset,
               (long long)pl->n_dofs, (long long)nu, (long long)(pl->dim * nu),
               (long long)(pl->dim * nu + np));
  const int want = pl->dim * (pl->dim == 3 ? 125 : 25) + 1;
  TS_CHECK_ARG(pl->patch_size == want, "vanka plan: plan->patch_size = %d, expected %d",
               pl->patch_size, want);
  TS_CHECK_ARG(pl->matrices, "vanka plan: plan->matrices is NULL");
  return 0;
}

/* ---------------------------------------------------------------- Kronecker */

static int kronecker_plan_check(const ts_kronecker_plan *pl) {
  TS_CHECK_ARG(pl, "kronecker plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "kronecker plan: plan->dim = %d, expected 2 or 3",
               pl->dim);
  int64_t rows = 1, cols = 1;
  for (int d = 0; d < 3; ++d) {
    const int in = d < pl->dim;
    TS_CHECK_ARG(in ? pl->rows[d] >= 1 && pl->cols[d] >= 1 && pl->row_step[d] >= 1 &&
                          pl->col_step[d] >= 1 && pl->width[d] == 2 * pl->col_step[d] + 1 &&
                          pl->values[d]
                    : pl->rows[d] == 1 && pl->cols[d] == 1 && pl->width[d] == 1,
                 "kronecker plan: direction %d has %lld x %lld, steps %d and %d, width %d, %s "
                 "values; expected %s", d, (long long)pl->rows[d], (long long)pl->cols[d],
                 pl->row_step[d], pl->col_step[d], pl->width[d], pl->values[d] ? "with" : "no",
                 in ? "positive sizes and steps, width 2 col_step + 1, values"
                    : "1 x 1, width 1 (beyond dim)");
    rows *= pl->rows[d];
    cols *= pl->cols[d];
  }
  TS_CHECK_ARG(pl->n_rows == rows && pl->n_cols == cols,
               "kronecker plan: n_rows %lld and n_cols %lld, expected %lld and %lld",
               (long long)pl->n_rows, (long long)pl->n_cols, (long long)rows, (long long)cols);
  return 0;
}

/* ---------------------------------------------------------------- L2 mass */

static int l2_mass_tables_check(const ts_l2_mass_plan *pl) {
  const int n1 = pl->degree + 1;
  const double *tables[3] = {pl->user_1d, pl->solve_1d, pl->change_1d};
  const char *names[3] = {"user_1d", "solve_1d", "change_1d"};
  const int sizes[3] = {pl->n_q * n1, pl->n_q * n1, n1 * n1};
  const int needed[3] = {pl->action == TS_L2_MASS_APPLY, pl->action == TS_L2_MASS_CG,
                         pl->action == TS_L2_MASS_CG};
  for (int t = 0; t < 3; ++t) {
    TS_CHECK_ARG(!needed[t] || tables[t], "l2 mass plan: plan->%s is NULL (action %d)", names[t],
                 pl->action);
    TS_CHECK_ARG(!needed[t] || finite_array(tables[t], sizes[t]),
                 "l2 mass plan: plan->%s has a value that is not finite", names[t]);
  }
  return 0;
}

static int l2_mass_plan_check(const ts_l2_mass_plan *pl) {
  TS_CHECK_ARG(pl, "l2 mass plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "l2 mass plan: plan->dim = %d, expected 2 or 3", pl->dim);
  TS_CHECK_ARG(pl->degree >= 0 && pl->degree < TS_MAX_DEGREE,
               "l2 mass plan: plan->degree = %d, expected 0..%d", pl->degree, TS_MAX_DEGREE - 1);
  TS_CHECK_ARG(pl->n_q >= pl->degree + 1 && pl->n_q <= TS_MAX_DEGREE + 2,
               "l2 mass plan: plan->n_q = %d, expected degree+1..%d", pl->n_q, TS_MAX_DEGREE + 2);
  int64_t count = 1;
  for (int d = 0; d < 3; ++d) {
    TS_CHECK_ARG(d < pl->dim ? pl->cells[d] >= 1 && pl->cells[d] <= LARGEST_CELL_COUNT : pl->cells[d] == 1,
                 "l2 mass plan: plan->cells[%d] = %lld, expected %s", d, (long long)pl->cells[d],
                 d < pl->dim ? "1..2^40" : "1 beyond dim");
    const int64_t want = pl->cells[d] * (d < pl->dim ? pl->degree + 1 : 1);
    TS_CHECK_ARG(pl->n[d] == want, "l2 mass plan: plan->n[%d] = %lld, expected %lld", d,
                 (long long)pl->n[d], (long long)want);
    count *= pl->n[d];
  }
  TS_CHECK_ARG(pl->n_dofs == count, "l2 mass plan: plan->n_dofs = %lld, expected prod n[d] = %lld",
               (long long)pl->n_dofs, (long long)count);
  TS_CHECK_ARG(pl->action >= TS_L2_MASS_APPLY && pl->action <= TS_L2_MASS_CG,
               "l2 mass plan: plan->action = %d, expected TS_L2_MASS_APPLY (0) .. TS_L2_MASS_CG (3)",
               pl->action);
  TS_CALL(l2_mass_tables_check(pl));
  const int dense = pl->action == TS_L2_MASS_DENSE || pl->action == TS_L2_MASS_CHOLESKY;
  TS_CHECK_ARG(dense ? pl->matrices != NULL : pl->point_weights != NULL,
               "l2 mass plan: plan->%s is NULL (action %d)", dense ? "matrices" : "point_weights",
               pl->action);
  TS_CHECK_ARG(pl->action != TS_L2_MASS_CG ||
                   (pl->inverse_diagonal && pl->iterations && pl->tolerance > 0.0 &&
                    pl->tolerance < 1.0 && pl->max_iterations >= 1),
               "l2 mass plan: CG needs inverse_diagonal (%s), iterations (%s), tolerance in (0, 1) "
               "(%g) and max_iterations >= 1 (%d)", pl->inverse_diagonal ? "set" : "NULL",
               pl->iterations ? "set" : "NULL", pl->tolerance, pl->max_iterations);
  return 0;
}

/* ---------------------------------------------------------------- Stokes */

/* The DoFs of component i (i == dim: the pressure) per direction, their offset and the
 * total agree with the numbering of doc/stokes.md section 2. */
static int stokes_numbering_check(const ts_stokes_plan *pl) {
  int64_t offset = 0;
  for (int i = 0; i <= pl->dim; ++i) {
    const int64_t *n = i < pl->dim ? pl->n_u[i] : pl->n_p;
    int64_t size = 1;
    for (int d = 0; d < 3; ++d) {
      const int64_t want = d >= pl->dim ? 1 : pl->cells[d] * (pl->degree + 1) + (d == i ? 1 : 0);
      TS_CHECK_ARG(n[d] == want, "stokes plan: %s %d has %lld DoFs in direction %d (cells %lld), "
                   "expected %lld", i < pl->dim ? "component" : "pressure", i, (long long)n[d], d,
                   (long long)pl->cells[d], (long long)want);
      size *= n[d];
    }
    TS_CHECK_ARG(pl->offset[i] == offset, "stokes plan: plan->offset[%d] = %lld, expected %lld", i,
                 (long long)pl->offset[i], (long long)offset);
    offset += size;
  }
  TS_CHECK_ARG(pl->n_dofs == offset, "stokes plan: plan->n_dofs = %lld, expected %lld",
               (long long)pl->n_dofs, (long long)offset);
  return 0;
}

static int stokes_plan_check(const ts_stokes_plan *pl) {
  TS_CHECK_ARG(pl, "stokes plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "stokes plan: plan->dim = %d, expected 2 or 3", pl->dim);
  TS_CHECK_ARG(pl->degree >= 0 && pl->degree <= TS_MAX_DEGREE - 1,
               "stokes plan: plan->degree = %d, expected 0..%d", pl->degree, TS_MAX_DEGREE - 1);
  for (int d = 0; d < 3; ++d)
    TS_CHECK_ARG(pl->cells[d] >= 1, "stokes plan: plan->cells[%d] = %lld, expected >= 1", d,
                 (long long)pl->cells[d]);
  TS_CHECK_ARG(pl->continuous_mass && pl->continuous_stiffness && pl->dg_mass && pl->sipg_upper &&
                   pl->divergence && pl->sipg_diag[0] && pl->sipg_diag[1] && pl->sipg_diag[2] &&
                   pl->sipg_diag[3],
               "stokes plan: a 1D matrix of the plan is NULL");
  return stokes_numbering_check(pl);
}

/* The patch kinds the color visits: per direction the first, the last and (with three or
 * more vertices) a middle vertex, which is interior in that direction. */
static int stokes_patch_pseudo_inverse_check(const ts_stokes_patch_plan *pl) {
  const int dim = pl->global.dim;
  for (int c = 0; c < (dim == 3 ? 27 : 9); ++c) {
    int64_t v[3] = {0, 0, 0};
    int visited = 1;
    for (int d = 0, digits = c; d < dim; ++d, digits /= 3) {
      const int64_t n = pl->vertex_count[d], which = digits % 3;
      visited &= which != 2 || n >= 3;
      v[d] = pl->first_vertex[d] + pl->vertex_stride * (which == 0 ? 0 : which == 1 ? n - 1 : 1);
    }
    if (!visited) continue;
    int kinds[3];
    const int kind = ts_stokes_patch_kinds(pl, v, kinds);
    TS_CHECK_ARG(pl->pseudo_inverse[kind], "stokes patch plan: the pseudo-inverse of patch kind %d is NULL",
                 kind);
  }
  return 0;
}

/* The local solver's data for the kinds the plan's patches can have. */
static int stokes_patch_solver_check(const ts_stokes_patch_plan *pl) {
  if (pl->solver == TS_STOKES_PATCH_SCHUR) {
    TS_CHECK_ARG(pl->cont_eigenvectors && pl->cont_eigenvalues,
                 "stokes patch plan: the continuous eigen-decomposition is NULL");
    for (int kind = 0; kind < TS_STOKES_PATCH_KINDS; ++kind)
      TS_CHECK_ARG(pl->dg_eigenvectors[kind] && pl->dg_eigenvalues[kind],
                   "stokes patch plan: the DG eigen-decomposition of kind %d is NULL", kind);
    TS_CHECK_ARG(pl->cg_max_iterations >= 1 && pl->cg_tolerance >= 0,
                 "stokes patch plan: cg_max_iterations = %d, cg_tolerance = %g; expected >= 1 and "
                 ">= 0", pl->cg_max_iterations, pl->cg_tolerance);
    return 0;
  }
  TS_CHECK_ARG(pl->solver == TS_STOKES_PATCH_DIRECT,
               "stokes patch plan: plan->solver = %d, expected SCHUR (0) or DIRECT (1)", (int)pl->solver);
  return stokes_patch_pseudo_inverse_check(pl);
}

/* The local sizes of doc/stokes.md section 7 for degree k. */
static int stokes_patch_sizes_check(const ts_stokes_patch_plan *pl) {
  const int k = pl->global.degree, dim = pl->global.dim;
  int nv = 2 * k + 1, np = 1;
  for (int d = 1; d < dim; ++d) nv *= 2 * (k + 1);
  for (int d = 0; d < dim; ++d) np *= 2 * (k + 1);
  TS_CHECK_ARG(pl->n_cont == 2 * k + 1 && pl->n_dg == 2 * (k + 1) && pl->n_velocity == nv &&
                   pl->n_pressure == np && pl->n_local == dim * nv + np,
               "stokes patch plan: local sizes n_cont %d, n_dg %d, n_velocity %d, n_pressure %d, "
               "n_local %d; expected %d, %d, %d, %d, %d for degree %d",
               pl->n_cont, pl->n_dg, pl->n_velocity, pl->n_pressure, pl->n_local, 2 * k + 1,
               2 * (k + 1), nv, np, dim * nv + np, k);
  return 0;
}

static int stokes_patch_plan_check(const ts_stokes_patch_plan *pl) {
  TS_CHECK_ARG(pl, "stokes patch plan is NULL");
  const ts_stokes_plan *g = &pl->global;
  TS_CALL(stokes_plan_check(g));
  TS_CHECK_ARG(pl->stage == TS_PATCH_STAGE_SOLVE,
               "stokes patch plan: stage = %d, only TS_PATCH_STAGE_SOLVE (%d) applies to Stokes "
               "(the residual is computed with the Stokes operator)",
               (int)pl->stage, (int)TS_PATCH_STAGE_SOLVE);
  TS_CALL(stokes_patch_sizes_check(pl));
  TS_CALL(patch_vertices_check("stokes patch plan", g->dim, g->cells, pl->first_vertex,
                               pl->vertex_count, pl->vertex_stride, 0));
  for (int d = 0; d < g->dim; ++d)
    TS_CHECK_ARG(g->scale[d] > 0 && g->div_scale[d] > 0,
                 "stokes patch plan: scale[%d] = %g, div_scale[%d] = %g; expected > 0", d,
                 g->scale[d], d, g->div_scale[d]);
  TS_CHECK_ARG(pl->divergence && pl->dg_mass, "stokes patch plan: the patch divergence or DG mass is NULL");
  return stokes_patch_solver_check(pl);
}

/* ---------------------------------------------------------------- H(div) mass */

static int hdiv_mass_plan_check(const ts_hdiv_mass_plan *pl) {
  TS_CHECK_ARG(pl, "hdiv mass plan is NULL");
  TS_CHECK_ARG(pl->dim == 2 || pl->dim == 3, "hdiv mass plan: plan->dim = %d, expected 2 or 3",
               pl->dim);
  TS_CHECK_ARG(pl->degree >= 0 && pl->degree < TS_MAX_DEGREE,
               "hdiv mass plan: plan->degree = %d, expected 0..%d", pl->degree, TS_MAX_DEGREE - 1);
  TS_CHECK_ARG(pl->n_q >= pl->degree + 2 && pl->n_q <= TS_MAX_DEGREE + 1,
               "hdiv mass plan: plan->n_q = %d, expected degree+2..%d", pl->n_q, TS_MAX_DEGREE + 1);
  int64_t first = 0;
  for (int i = 0; i < pl->dim; ++i) {
    TS_CHECK_ARG(pl->offset[i] == first, "hdiv mass plan: plan->offset[%d] = %lld, expected %lld",
                 i, (long long)pl->offset[i], (long long)first);
    int64_t count = 1;
    for (int d = 0; d < 3; ++d) {
      TS_CHECK_ARG(d < pl->dim ? pl->cells[d] >= 1 && pl->cells[d] <= LARGEST_CELL_COUNT
                               : pl->cells[d] == 1,
                   "hdiv mass plan: plan->cells[%d] = %lld, expected %s", d,
                   (long long)pl->cells[d], d < pl->dim ? "1..2^40" : "1 beyond dim");
      const int64_t want = d < pl->dim ? pl->cells[d] * (pl->degree + 1) + (d == i) : 1;
      TS_CHECK_ARG(pl->n_u[i][d] == want, "hdiv mass plan: plan->n_u[%d][%d] = %lld, expected "
                   "%lld", i, d, (long long)pl->n_u[i][d], (long long)want);
      count *= want;
    }
    first += count;
  }
  TS_CHECK_ARG(pl->n_dofs == first, "hdiv mass plan: plan->n_dofs = %lld, expected %lld",
               (long long)pl->n_dofs, (long long)first);
  const double *tables[3] = {pl->normal_1d, pl->tangential_1d, pl->weights_1d};
  const char *names[3] = {"normal_1d", "tangential_1d", "weights_1d"};
  const int sizes[3] = {pl->n_q * (pl->degree + 2), pl->n_q * (pl->degree + 1), pl->n_q};
  for (int t = 0; t < 3; ++t)
    TS_CHECK_ARG(tables[t] && finite_array(tables[t], sizes[t]), "hdiv mass plan: plan->%s is "
                 "%s", names[t], tables[t] ? "not finite" : "NULL");
  TS_CHECK_ARG(pl->cartesian == 0 || pl->cartesian == 1, "hdiv mass plan: plan->cartesian = %d, "
               "expected 0 or 1", pl->cartesian);
  TS_CHECK_ARG(pl->tensors, "hdiv mass plan: plan->tensors is NULL");
  return 0;
}

/* ---------------------------------------------------------------- the hand-over */

/* Check the plan, then call the kernel (the plan is the kernel's first argument). */
#define HAND_OVER(b, check, kernel, plan, ...)          \
  do {                                                  \
    TS_CALL(check(plan));                               \
    TS_BACKEND_CALL(b, kernel, plan, __VA_ARGS__);      \
    return 0;                                           \
  } while (0)

int ts_backend_laplace_apply(ts_backend b, const ts_laplace_plan *plan, ts_precision p,
                             const void *x, void *y, int add) {
  HAND_OVER(b, laplace_plan_check, laplace_apply, plan, p, x, y, add);
}

int ts_backend_laplace_apply_cells(ts_backend b, const ts_laplace_plan *plan, ts_precision p,
                                   const int64_t *lo, const int64_t *hi, const void *x, void *y,
                                   int side) {
  TS_CALL(laplace_plan_check(plan));
  TS_CHECK_ARG(!plan->constrained, "laplace cells: plan->constrained = 1, allowed 0 (the "
               "Dirichlet rows belong to the whole plan, not to a box of its cells)");
  TS_CHECK_ARG(side == 0 || side == 1, "laplace cells: side = %d, allowed 0 (main queue) or 1 "
               "(side queue)", side);
  for (int d = 0; d < 3; ++d)
    TS_CHECK_ARG(lo[d] >= 0 && lo[d] < hi[d] && hi[d] <= plan->cells[d],
                 "laplace cells: direction %d has the cells [%lld, %lld), allowed "
                 "0 <= lo < hi <= %lld", d, (long long)lo[d], (long long)hi[d],
                 (long long)plan->cells[d]);
  TS_BACKEND_CALL(b, laplace_apply_cells, plan, p, lo, hi, x, y, side);
  return 0;
}

int ts_backend_side_join(ts_backend b) {
  if (!b->ops.side_join)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'side_join'", b->name);
  b->error[0] = 0;
  const int ierr = b->ops.side_join(&b->ops);
  return ierr ? ts_backend_error(b, ierr, "side_join", __FILE__, __LINE__) : 0;
}

int ts_backend_laplace_diagonal(ts_backend b, const ts_laplace_plan *plan, ts_precision p, void *d) {
  HAND_OVER(b, laplace_plan_check, laplace_diagonal, plan, p, d);
}

int ts_backend_transfer(ts_backend b, const ts_transfer_plan *plan, ts_precision p, int restrict_,
                        const void *in, void *out, int add) {
  HAND_OVER(b, transfer_plan_check, transfer, plan, p, restrict_, in, out, add);
}

int ts_backend_field_transfer(ts_backend b, const ts_field_transfer_plan *plan, ts_precision p,
                              int restrict_, const void *in, void *out, int add) {
  HAND_OVER(b, field_transfer_plan_check, field_transfer, plan, p, restrict_, in, out, add);
}

int ts_backend_patch_additive(ts_backend b, const ts_patch_additive_plan *plan, ts_precision p,
                              const void *r, void *y) {
  HAND_OVER(b, patch_additive_plan_check, patch_additive, plan, p, r, y);
}

int ts_backend_vanka_apply(ts_backend b, const ts_vanka_plan *plan, ts_precision p,
                           const void *r, void *y) {
  HAND_OVER(b, vanka_plan_check, vanka_apply, plan, p, r, y);
}

int ts_backend_kronecker_apply(ts_backend b, const ts_kronecker_plan *plan, ts_precision p,
                               const void *x, void *y, int add) {
  HAND_OVER(b, kronecker_plan_check, kronecker_apply, plan, p, x, y, add);
}

int ts_backend_l2_mass_apply(ts_backend b, const ts_l2_mass_plan *plan, ts_precision p,
                             const void *x, void *y) {
  HAND_OVER(b, l2_mass_plan_check, l2_mass_apply, plan, p, x, y);
}

int ts_backend_hdiv_mass_apply(ts_backend b, const ts_hdiv_mass_plan *plan, ts_precision p,
                               const void *x, void *y, int add) {
  HAND_OVER(b, hdiv_mass_plan_check, hdiv_mass_apply, plan, p, x, y, add);
}

int ts_backend_patch_smooth(ts_backend b, const ts_patch_plan *plan, ts_precision p,
                            const void *rhs, void *x, void *r) {
  HAND_OVER(b, patch_plan_check, patch_smooth, plan, p, rhs, x, r);
}

int ts_backend_stokes_apply(ts_backend b, const ts_stokes_plan *plan, ts_precision p,
                            const void *x, void *y, int add) {
  HAND_OVER(b, stokes_plan_check, stokes_apply, plan, p, x, y, add);
}

int ts_backend_stokes_patch_smooth(ts_backend b, const ts_stokes_patch_plan *plan, ts_precision p,
                                   const void *rhs, void *x, void *r) {
  HAND_OVER(b, stokes_patch_plan_check, stokes_patch_smooth, plan, p, rhs, x, r);
}
