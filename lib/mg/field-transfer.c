/* field-transfer.c -- the grid transfer between two levels of a multi-field tensor-product
 * space, RT_k x DGQ_k (doc/stokes.md section 5; paper 000, section 3) and Taylor-Hood
 * Q_k x Q_{k-1} (doc/taylor-hood.md section 7): prolongation is the embedding of the coarse
 * space into the fine one, per field the tensor product of one 1D matrix per direction
 * (continuous Lobatto or discontinuous Gauss); restriction is its transpose.  This file builds the plan; the backend's `field_transfer` kernel applies it. */
#include "mg-impl.h"

/* The (2m - continuous) x m matrix of the m Lagrange polynomials on nodes (reference cell
 * [0,1]) at the nodes of the two children [0,1/2] and [1/2,1]: the left child's m points,
 * then the right child's, without its first one where it is shared (continuous). */
static void children_values_1d(int m, const double *nodes, int continuous, double *matrix) {
  for (int r = 0; r < 2 * m - continuous; ++r) {
    const double x = r < m ? 0.5 * nodes[r] : 0.5 * (1.0 + nodes[r - m + continuous]);
    ts_lagrange_eval(m, nodes, x, matrix + r * m, NULL);
  }
}

/* Field `f` of the plan from the level's DoF layout (comp_n, offsets): component `comp` of
 * coarse and fine, whose 1D spaces are `continuous_1d` in direction `normal` (none: -1) and
 * `discontinuous_1d` in the others (doc/stokes.md section 1). */
static void set_field(ts_dofs coarse, ts_dofs fine, int comp, int64_t coarse_offset,
                      int64_t fine_offset, int normal, const double *continuous_1d,
                      const double *discontinuous_1d, ts_field_transfer_field *field) {
  const int k = coarse->degree;
  for (int d = 0; d < 3; ++d) {
    const int in_dim = d < coarse->dim, cont = in_dim && d == normal;
    field->coarse_n[d] = in_dim ? coarse->comp_n[comp][d] : 1;
    field->fine_n[d] = in_dim ? fine->comp_n[comp][d] : 1;
    field->cell_dofs[d] = in_dim ? k + 1 + cont : 1;
    field->continuous[d] = cont;
    field->prolongation_1d[d] = !in_dim ? NULL : cont ? continuous_1d : discontinuous_1d;
  }
  field->coarse_offset = coarse_offset + coarse->comp_offset[comp];
  field->fine_offset = fine_offset + fine->comp_offset[comp];
  field->constrained = normal >= 0;
}

/* The two levels of one space must have the same dimension, degree and components, and the
 * fine level twice the cells of the coarse one in every direction. */
static int check_levels(const char *what, ts_dofs coarse, ts_dofs fine, int components) {
  TS_CHECK_ARG(coarse->dim == fine->dim && coarse->degree == fine->degree,
               "Stokes transfer: coarse %s is %dD of degree %d, fine %dD of degree %d: they must agree",
               what, coarse->dim, coarse->degree, fine->dim, fine->degree);
  TS_CHECK_ARG(coarse->components == components && fine->components == components,
               "Stokes transfer: %s has %d coarse and %d fine components, need %d", what,
               coarse->components, fine->components, components);
  for (int d = 0; d < coarse->dim; ++d)
    TS_CHECK_ARG(fine->cells[d] == 2 * coarse->cells[d],
                 "Stokes transfer: %s direction %d has %lld coarse and %lld fine cells, need fine = 2 coarse",
                 what, d, (long long)coarse->cells[d], (long long)fine->cells[d]);
  return 0;
}

int ts_field_transfer_plan_init_stokes(ts_dofs coarse_u, ts_dofs coarse_p, ts_dofs fine_u,
                                       ts_dofs fine_p, ts_field_transfer_plan *plan,
                                       double *storage) {
  TS_CHECK_ARG(coarse_u->fe->family == TS_FE_RT && coarse_p->fe->family == TS_FE_DGQ &&
                   fine_u->fe->family == TS_FE_RT && fine_p->fe->family == TS_FE_DGQ,
               "Stokes transfer: velocity must be RT_k and pressure DGQ_k on both levels");
  const int dim = coarse_u->dim, k = coarse_u->degree;
  TS_CHECK_ARG(k >= 0 && k <= TS_STOKES_MAX_DEGREE, "Stokes transfer: degree %d, allowed 0..%d",
               k, TS_STOKES_MAX_DEGREE);
  TS_CALL(check_levels("velocity", coarse_u, fine_u, dim));
  TS_CALL(check_levels("pressure", coarse_p, fine_p, 1));
  TS_CHECK_ARG(coarse_p->dim == dim && coarse_p->degree == k,
               "Stokes transfer: velocity is %dD RT_%d, pressure %dD DGQ_%d: they must agree", dim,
               k, coarse_p->dim, coarse_p->degree);
  for (int d = 0; d < dim; ++d)
    TS_CHECK_ARG(coarse_p->cells[d] == coarse_u->cells[d],
                 "Stokes transfer: direction %d has %lld velocity and %lld pressure cells", d,
                 (long long)coarse_u->cells[d], (long long)coarse_p->cells[d]);
  /* doc/stokes.md section 1: Lobatto k+2 in a component's own direction, Gauss k+1 else */
  double lobatto[TS_STOKES_N2], gauss[TS_STOKES_N1], weights[TS_STOKES_N2];
  TS_CALL(ts_gauss_lobatto_rule(k + 2, lobatto, weights));
  TS_CALL(ts_gauss_rule(k + 1, gauss, weights));
  double *continuous_1d = storage, *discontinuous_1d = storage + (2 * k + 3) * (k + 2);
  children_values_1d(k + 2, lobatto, 1, continuous_1d);
  children_values_1d(k + 1, gauss, 0, discontinuous_1d);

  plan->dim = dim;
  for (int d = 0; d < 3; ++d) plan->coarse_cells[d] = d < dim ? coarse_u->cells[d] : 1;
  plan->n_fields = dim + 1;
  for (int i = 0; i < dim; ++i)
    set_field(coarse_u, fine_u, i, 0, 0, i, continuous_1d, discontinuous_1d, &plan->field[i]);
  set_field(coarse_p, fine_p, 0, coarse_u->count, fine_u->count, -1, continuous_1d,
            discontinuous_1d, &plan->field[dim]);
  plan->coarse_count = coarse_u->count + coarse_p->count;
  plan->fine_count = fine_u->count + fine_p->count;
  return 0;
}

int ts_field_transfer_apply(ts_backend backend, const ts_field_transfer_plan *plan, int restrict_,
                            ts_vec in, ts_vec out, int add) {
  TS_CALL(ts_transfer_check_vectors(backend, restrict_, plan->coarse_count, plan->fine_count, in, out));
  TS_CALL(ts_backend_field_transfer(backend, plan, in->precision, restrict_, in->data, out->data, add));
  return 0;
}

/* A Q_k field (continuous, nodal on the Gauss-Lobatto points in every direction) of coarse
 * and fine; constrained: its boundary DoFs read and written as zero (the Dirichlet velocity). */
static void set_q_field(ts_dofs coarse, ts_dofs fine, int64_t coarse_offset,
                        int64_t fine_offset, const double *prolongation_1d, int constrained,
                        ts_field_transfer_field *field) {
  for (int d = 0; d < 3; ++d) {
    const int in_dim = d < coarse->dim;
    field->coarse_n[d] = in_dim ? coarse->n[d] : 1;
    field->fine_n[d] = in_dim ? fine->n[d] : 1;
    field->cell_dofs[d] = in_dim ? coarse->degree + 1 : 1;
    field->continuous[d] = in_dim;
    field->prolongation_1d[d] = in_dim ? prolongation_1d : NULL;
  }
  field->coarse_offset = coarse_offset;
  field->fine_offset = fine_offset;
  field->constrained = constrained;
}

int ts_field_transfer_plan_init_taylor_hood(ts_dofs coarse_u, ts_dofs coarse_p, ts_dofs fine_u,
                                            ts_dofs fine_p, ts_field_transfer_plan *plan,
                                            double *storage) {
  TS_CHECK_ARG(coarse_u->fe->family == TS_FE_Q && coarse_p->fe->family == TS_FE_Q &&
                   fine_u->fe->family == TS_FE_Q && fine_p->fe->family == TS_FE_Q,
               "Taylor-Hood transfer: velocity and pressure must be Q_k on both levels");
  const int dim = coarse_u->dim, k = coarse_u->degree;
  TS_CHECK_ARG(k >= 2 && coarse_p->degree == k - 1 && coarse_p->dim == dim,
               "Taylor-Hood transfer: velocity %dD Q%d and pressure %dD Q%d, need Q_k x Q_{k-1}, "
               "k >= 2", dim, k, coarse_p->dim, coarse_p->degree);
  TS_CALL(check_levels("velocity", coarse_u, fine_u, 1));
  TS_CALL(check_levels("pressure", coarse_p, fine_p, 1));
  double *velocity_1d = storage, *pressure_1d = storage + (2 * k + 1) * (k + 1);
  children_values_1d(k + 1, coarse_u->fe->points, 1, velocity_1d);
  children_values_1d(k, coarse_p->fe->points, 1, pressure_1d);
  plan->dim = dim;
  for (int d = 0; d < 3; ++d) plan->coarse_cells[d] = d < dim ? coarse_u->cells[d] : 1;
  plan->n_fields = dim + 1;
  for (int c = 0; c < dim; ++c)
    set_q_field(coarse_u, fine_u, c * coarse_u->count, c * fine_u->count, velocity_1d, 1,
                &plan->field[c]);
  set_q_field(coarse_p, fine_p, dim * coarse_u->count, dim * fine_u->count, pressure_1d, 0,
              &plan->field[dim]);
  plan->coarse_count = dim * coarse_u->count + coarse_p->count;
  plan->fine_count = dim * fine_u->count + fine_p->count;
  return 0;
}

int ts_field_transfer_plan_init_q(ts_dofs coarse, ts_dofs fine, ts_field_transfer_plan *plan,
                                  double *storage) {
  TS_CHECK_ARG(coarse->fe->family == TS_FE_Q && fine->fe->family == TS_FE_Q,
               "Q_k transfer: both levels must be of a Q_k element");
  TS_CALL(check_levels("the Q_k field", coarse, fine, 1));
  children_values_1d(coarse->degree + 1, coarse->fe->points, 1, storage);
  plan->dim = coarse->dim;
  for (int d = 0; d < 3; ++d) plan->coarse_cells[d] = d < coarse->dim ? coarse->cells[d] : 1;
  plan->n_fields = 1;
  set_q_field(coarse, fine, 0, 0, storage, 0, &plan->field[0]);
  plan->coarse_count = coarse->count;
  plan->fine_count = fine->count;
  return 0;
}
