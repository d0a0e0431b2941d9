/* t-plan-check.c -- the library validates every plan once, where it hands the plan to a
 * backend kernel (lib/plan-check.c): a plan of each kind with one field broken is refused
 * with TS_ERR_ARG and a message naming the field, before the backend sees it (the vectors
 * passed are NULL, which no kernel would accept), and the plan as the library built it
 * passes.  The backends check only what they cannot do (doc/backends.md). */
#include <math.h>
#include <string.h>
#include "tap.h"
#include "mg/mg-impl.h"

static ts_backend be;

static void refused(int ierr, const char *needle, const char *what) {
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), needle), "%s: refused by the library: %s",
     what, ts_error_message());
}

/* Q_2 on 4 x 4 cells (level 1 of 2 x 2): the Laplacian and the transfer from level 0. */
static void test_laplace_and_transfer(ts_mesh mesh, ts_fe q) {
  ts_dofs coarse = NULL, fine = NULL;
  ts_vec x = NULL, y = NULL;
  ts_laplace_plan plan;
  ts_transfer_plan transfer;
  double storage[2 * 9], interpolation[TS_TRANSFER_1D_SIZE];
  ts_dofs_create(mesh, q, 0, &coarse);
  ts_dofs_create(mesh, q, 1, &fine);
  ts_laplace_plan_init(fine, &plan, storage);
  ts_vec_create(be, plan.n_dofs, TS_DOUBLE, &x);
  ts_vec_create(be, plan.n_dofs, TS_DOUBLE, &y);
  ok(ts_backend_laplace_apply(be, &plan, TS_DOUBLE, x->data, y->data, 0) == 0,
     "laplace plan as built: applied (%s)", ts_error_message());
  ts_laplace_plan bad = plan;
  bad.n[1] += 1;
  refused(ts_backend_laplace_apply(be, &bad, TS_DOUBLE, NULL, NULL, 0),
          "laplace plan: plan->n[1] = 10, expected cells[1]*degree+1 = 9", "laplace n[1] + 1");
  storage[4] = NAN;
  refused(ts_backend_laplace_diagonal(be, &plan, TS_DOUBLE, NULL),
          "laplace plan: plan->mass_1d[4] is not finite", "laplace mass_1d NaN");
  ts_transfer_plan_init(coarse, fine, &transfer, interpolation);
  transfer.fine_n[0] += 1;
  refused(ts_backend_transfer(be, &transfer, TS_DOUBLE, 0, NULL, NULL, 0),
          "transfer plan: direction 0 has 2 coarse cells, 5 coarse and 10 fine DoFs",
          "transfer fine_n[0] + 1");
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_dofs_destroy(&coarse);
  ts_dofs_destroy(&fine);
}

/* The vertex-patch smoother's plan of the Q_2 Laplacian, color 0, Separate solve stage. */
static void test_patch(ts_mesh mesh, ts_fe q) {
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  ts_smoother smoother = NULL;
  const ts_patch_plan *built = NULL;
  ts_dofs_create(mesh, q, 1, &dofs);
  ts_operator_create_laplace(be, dofs, TS_DOUBLE, &A);
  ts_smoother_create_vertex_patch(A, dofs, TS_PATCH_SEPARATE, &smoother);
  if (!ok(ts_vertex_patch_plan(smoother, &built) == 0, "patch plan: built")) return;
  ts_patch_plan plan = *built;
  plan.stage = TS_PATCH_STAGE_SOLVE;
  ts_vertex_patch_color(plan.dim, plan.cells, 0, plan.first_vertex, plan.vertex_count,
                        &plan.vertex_stride);
  plan.color = 7;
  refused(ts_backend_patch_smooth(be, &plan, TS_DOUBLE, NULL, NULL, NULL),
          "patch plan: plan->color = 7, expected 0..3", "patch color 7");
  const double negative[2 * TS_MAX_DEGREE] = {-1.0};
  plan.color = 0;
  plan.eigenvalues[1] = negative;
  refused(ts_backend_patch_smooth(be, &plan, TS_DOUBLE, NULL, NULL, NULL),
          "patch plan: plan->eigenvalues[1][0] = -1, expected > 0", "patch eigenvalue -1");
  ts_smoother_destroy(&smoother);
  ts_operator_destroy(&A);
  ts_dofs_destroy(&dofs);
}

/* RT_1 x DGQ_1 on 4 x 4 cells: the Stokes plan, its patch plan with the direct solver and
 * the transfer from 2 x 2 cells. */
static void test_stokes(ts_mesh mesh) {
  ts_fe rt = NULL, dgq = NULL;
  ts_dofs u[2] = {NULL, NULL}, p[2] = {NULL, NULL};
  ts_operator stokes = NULL;
  const ts_stokes_plan *built = NULL;
  double transfer_storage[TS_FIELD_TRANSFER_STOKES_STORAGE], *patch_storage = NULL;
  ts_fe_create_rt(2, 1, &rt);
  ts_fe_create_dgq(2, 1, &dgq);
  for (int level = 0; level < 2; ++level) {
    ts_dofs_create(mesh, rt, level, &u[level]);
    ts_dofs_create(mesh, dgq, level, &p[level]);
  }
  ts_operator_create_stokes(be, u[1], p[1], 2.0, TS_DOUBLE, &stokes);
  if (!ok(ts_operator_stokes_plan(stokes, &built) == 0, "stokes plan: built")) return;
  ts_stokes_plan plan = *built;
  plan.offset[2] += 1;
  refused(ts_backend_stokes_apply(be, &plan, TS_DOUBLE, NULL, NULL, 0),
          "stokes plan: plan->offset[2] = 145, expected 144", "stokes offset[2] + 1");
  plan = *built;
  plan.divergence = NULL;
  refused(ts_backend_stokes_apply(be, &plan, TS_DOUBLE, NULL, NULL, 0),
          "stokes plan: a 1D matrix of the plan is NULL", "stokes divergence NULL");
  ts_stokes_patch_plan patch;
  ts_stokes_patch_plan_init(built, TS_STOKES_PATCH_DIRECT, &patch, &patch_storage);
  patch.stage = TS_PATCH_STAGE_SOLVE;
  ts_vertex_patch_color(2, built->cells, 0, patch.first_vertex, patch.vertex_count,
                        &patch.vertex_stride);
  patch.pseudo_inverse[1 + 4 * 1] = NULL; /* vertex (1, 1): left boundary in both directions */
  refused(ts_backend_stokes_patch_smooth(be, &patch, TS_DOUBLE, NULL, NULL, NULL),
          "stokes patch plan: the pseudo-inverse of patch kind 5 is NULL",
          "stokes patch without the pseudo-inverse of a kind it visits");
  ts_field_transfer_plan transfer;
  ts_field_transfer_plan_init_stokes(u[0], p[0], u[1], p[1], &transfer, transfer_storage);
  transfer.field[2].coarse_offset = -1;
  refused(ts_backend_field_transfer(be, &transfer, TS_DOUBLE, 1, NULL, NULL, 0),
          "field transfer plan: field 2 occupies [-1, ", "field transfer offset -1");
  ts_free(&patch_storage);
  ts_operator_destroy(&stokes);
  for (int level = 0; level < 2; ++level) {
    ts_dofs_destroy(&u[level]);
    ts_dofs_destroy(&p[level]);
  }
  ts_fe_destroy(&rt);
  ts_fe_destroy(&dgq);
}

int main(void) {
  plan(12);
  const double lower[2] = {0.0, 0.0}, upper[2] = {1.0, 1.0};
  const int cells[2] = {2, 2};
  ts_mesh mesh = NULL;
  ts_fe q = NULL;
  if (ts_backend_open(tap_backend(), &be) || ts_mesh_create_box(2, lower, upper, cells, 2, &mesh) ||
      ts_fe_create_q(2, 2, &q)) {
    diag("%s", ts_error_message());
    return exit_status();
  }
  test_laplace_and_transfer(mesh, q);
  test_patch(mesh, q);
  test_stokes(mesh);
  ts_fe_destroy(&q);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&be);
  return exit_status();
}
