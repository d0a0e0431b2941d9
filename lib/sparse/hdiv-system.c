/* hdiv-system.c -- the grad-div and Darcy saddle-point systems of paper 003 on a box or a
 * mapped level, in the transformed form (eqs. 11, 18, 20)
 *   Acal [u; x_p] = [M_beta D^T; D -W_alpha^{-1}] [u; x_p] = [F - P_D; W^{-1} G],
 * the problem being  beta u + grad p = f,  div u + p / alpha = g  (alpha = INFINITY: no (2,2)
 * block, the Darcy problem; the grad-div problem beta u - grad(alpha div u) = f is g = 0 with
 * p = -alpha div u).  With q = -p the weak form (beta u, v) + (q, div v) = (f, v) - <p_D, v.n>,
 * (div u, w) - (q / alpha, w) = (g, w) is [M B^T; B -W_{1/alpha}] [u; q] = [F - P_D; G] with
 * B = W D (W the unweighted L2 mass), and the congruence diag(I, W^{-1}) turns it into Acal
 * with x_p = W q, W^{-1} W_{1/alpha} W^{-1} = W_alpha^{-1} for alpha constant per cell (section
 * 2.4).  So p = -W^{-1} x_p.
 *
 * Prescribed fluxes: the flux DoFs on the faces flux_faces are known (u . n = u_D . n).  Their
 * rows and columns of M_beta become those of diag(M_beta), their columns of D zero, and the
 * right side is lifted: b = [F - P_D - M u_D; W^{-1} G - D u_D] with zeros at the prescribed
 * DoFs, x = x_solved + [u_D; 0].  The pressure condition p = p_D holds naturally on the other
 * faces.  With every face prescribed and alpha = INFINITY the pressure is defined up to a
 * constant: x_p = 1 spans the null space of Acal (D^T 1 = 0 once the boundary columns are
 * gone), the right side's pressure block is made orthogonal to it and the preconditioner's
 * Schur block orthogonalizes after every AMG V-cycle (section 4.3).
 *
 * On a mapped level (Kershaw's, ts_mesh_create_mapped, ...) the spaces are mapped as the
 * operators map them: u = J u^ / det J (contravariant Piola, fluxes through sub-faces kept),
 * q = q^ / det J (integrals over sub-cells kept).  D is then the box's matrix, and B = W D
 * still holds: (div u, w) = int div^ u^ w^ / det J dxi = (W D u)_w, div^ u^ being the Q_k
 * histopolant of D u.  So the transformed system is the same, with the mapped M_beta, W and
 * W_alpha (matrix-free, their quadrature on the mapped cells), and S~ from their diagonals.
 *
 * M_beta is applied matrix-free from k = 2 on and on every mapped level
 * (ts_operator_create_hdiv_mass: sum factorization, its exact diagonal for Jacobi), its
 * prescribed rows and columns by the mask
 * m (1 unknown, 0 prescribed): M' x = m .* M (m .* x) + (1 - m) .* diag(M) .* x.  For k = 0, 1
 * the assembled CSR matrix (3-16 entries per row) applies faster on omp (doc/hdiv.md, "The
 * matrix-free H(div) mass"); from k = 2 the matrix-free one is as fast or faster and its
 * memory does not grow like the matrix's (k+2)(k+1)^(dim-1) entries per row, which limited
 * the 3D degrees.  ts_hdiv_system_set_assembled_mass chooses either for comparison.
 *
 * W^{-1} and W_alpha^{-1} are the matrix-free L2 mass inverse (ts_operator_create_l2_mass_
 * inverse, auto: each cell's explicit inverse for k <= 2, the element-local CG of section 3.1
 * above), not assembled matrices of n^2 = (k+1)^(2 dim) entries per row: the (2,2) block is
 * -W_alpha^{-1} (ts_operator_create_multiple) at the CG's default tolerance 1e-12 per cell, as
 * the paper applies it; the data's W^{-1} G and p = -W^{-1} x_p (once per solve) use 1e-14. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sparse-impl.h"

struct ts_hdiv_system_s {
  ts_backend backend;           /* borrowed */
  ts_dofs velocity, pressure;   /* borrowed */
  unsigned flux_faces;
  int singular;
  ts_hdiv_amg amg_kind;         /* the AMG on S~: boomeramg or ours (never auto once made) */
  /* the blocks of Acal and S~ until the backend and hypre have copied them: M, D, D^T,
   * C (alpha infinite: the empty (2,2) block), S~ */
  ts_matrix M, D, Dt, C, S;
  double *alpha;                /* alpha per cell (alpha alpha_cells); NULL: alpha infinite */
  ts_operator W_inv, W_alpha_inv; /* W^{-1} for the data; W_alpha^{-1} (alpha finite) */
  ts_matrix M_lift, D_lift;     /* M_beta (assembled) and D restricted to the prescribed DoFs'
                                   columns */
  double *beta, *mask;          /* beta per cell (beta beta_cells); 1 unknown flux, 0 prescribed */
  ts_operator mass;             /* the matrix-free M_beta, unconstrained (owned by blocks[0]);
                                   NULL when M_beta is assembled */
  ts_operator blocks[4], A;
  ts_pc jacobi, amg, schur[2];  /* schur: the Schur blocks of the two preconditioner shapes */
};

/* 1 for the unknown flux DoFs, 0 for the prescribed ones */
static int unknown_mask(ts_hdiv_system s, double **mask) {
  TS_CALL(ts_calloc((size_t)s->velocity->count, sizeof **mask, "prescribed-flux mask", mask));
  for (int64_t j = 0; j < s->velocity->count; ++j)
    (*mask)[j] = ts_dofs_flux_face(s->velocity, j) & s->flux_faces ? 0.0 : 1.0;
  return 0;
}

/* A's columns of the prescribed DoFs, a new matrix (mask: 0 there) */
static int prescribed_columns(ts_matrix A, const double *mask, int64_t n, ts_matrix *L) {
  double *fixed = NULL;
  TS_CALL(ts_calloc((size_t)n, sizeof *fixed, "prescribed columns", &fixed));
  for (int64_t j = 0; j < n; ++j) fixed[j] = 1.0 - mask[j];
  int ierr = ts_matrix_add(1.0, A, 0.0, A, L);
  if (!ierr) ierr = ts_matrix_scale(*L, NULL, fixed);
  ts_free(&fixed);
  return ierr;
}

/* The assembled M_beta with the prescribed rows and columns those of its diagonal, the
 * columns removed kept for the lifting (when there are any). */
static int assemble_mass(ts_hdiv_system s) {
  const int64_t n = s->velocity->count;
  TS_CALL(ts_matrix_assemble_mass(s->velocity, 1.0, s->beta, &s->M));
  if (s->flux_faces) TS_CALL(prescribed_columns(s->M, s->mask, n, &s->M_lift));
  double *d = NULL;
  TS_CALL(ts_calloc((size_t)n, sizeof *d, "diag(M_beta)", &d));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t e = s->M->row_offsets[i]; e < s->M->row_offsets[i + 1]; ++e)
      if (s->M->columns[e] == i) d[i] = s->mask[i] ? 0.0 : s->M->values[e];
  int ierr = ts_matrix_scale(s->M, s->mask, s->mask);
  if (!ierr) ierr = ts_matrix_add_diagonal(s->M, d);
  ts_free(&d);
  return ierr;
}

/* ---------------------------------------------------------------- the constrained mass */

/* M' x = m .* M (m .* x) + fixed .* x, fixed = (1 - m) .* diag(M) */
typedef struct constrained_mass {
  ts_operator M;                /* owned */
  ts_vec mask, fixed, t0, t1;
} constrained_mass;

static int constrained_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  constrained_mass *c = op->data;
  TS_CALL(ts_vec_pointwise_mult(c->mask, x, c->t0));
  TS_CALL(ts_operator_apply(c->M, c->t0, c->t1));
  TS_CALL(ts_vec_pointwise_mult(c->mask, c->t1, c->t0));
  TS_CALL(ts_vec_pointwise_mult(c->fixed, x, c->t1));
  TS_CALL(ts_vec_axpby(1.0, c->t1, 1.0, c->t0));
  return add ? ts_vec_axpby(1.0, c->t0, 1.0, y) : ts_vec_copy(c->t0, y);
}

/* diag(M') = diag(M) */
static int constrained_diagonal(ts_operator op, ts_vec d) {
  return ts_operator_diagonal(((constrained_mass *)op->data)->M, d);
}

static double constrained_flops(ts_operator op) {
  return ts_operator_flops(((constrained_mass *)op->data)->M) + 4.0 * (double)op->n;
}

static void constrained_free(constrained_mass **c) {
  if (!*c) return;
  ts_operator_destroy(&(*c)->M);
  ts_vec *v[] = {&(*c)->mask, &(*c)->fixed, &(*c)->t0, &(*c)->t1};
  for (int i = 0; i < 4; ++i) ts_vec_destroy(v[i]);
  ts_free(c);
}

static void constrained_destroy(ts_operator op) {
  constrained_mass *c = op->data;
  constrained_free(&c);
  op->data = NULL;
}

static const ts_operator_ops constrained_mass_ops = {
    .name = "hdiv-mass-constrained",
    .apply = constrained_apply,
    .diagonal = constrained_diagonal,
    .flops = constrained_flops,
    .destroy = constrained_destroy,
    .apply_transpose = constrained_apply, /* symmetric */
};

/* M' around the matrix-free M (taken over: destroyed with M', or here on failure) */
static int create_constrained(ts_hdiv_system s, ts_operator M, ts_operator *op) {
  const int64_t n = s->velocity->count;
  constrained_mass *c = NULL;
  double *fixed = NULL;
  int ierr = ts_calloc(1, sizeof *c, "constrained M_beta", &c);
  if (ierr) {
    ts_operator_destroy(&M);
    return ierr;
  }
  c->M = M;
  ts_vec *v[] = {&c->mask, &c->fixed, &c->t0, &c->t1};
  for (int i = 0; i < 4 && !ierr; ++i) ierr = ts_vec_create(s->backend, n, TS_DOUBLE, v[i]);
  if (!ierr) ierr = ts_vec_set_from_host(c->mask, s->mask);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *fixed, "prescribed diag(M_beta)", &fixed);
  if (!ierr) ierr = ts_operator_diagonal(M, c->fixed);
  if (!ierr) ierr = ts_vec_get_to_host(c->fixed, fixed);
  for (int64_t i = 0; !ierr && i < n; ++i) fixed[i] *= 1.0 - s->mask[i];
  if (!ierr) ierr = ts_vec_set_from_host(c->fixed, fixed);
  ts_free(&fixed);
  if (!ierr) ierr = ts_operator_create_shell(s->backend, &constrained_mass_ops, n, TS_DOUBLE, c, op);
  if (ierr) constrained_free(&c);
  return ierr;
}

/* blocks[0] = M' (matrix-free, or the assembled matrix) */
static int create_mass_block(ts_hdiv_system s, int assembled) {
  if (assembled) {
    TS_CALL(assemble_mass(s));
    const int ierr = ts_operator_create_matrix(s->backend, s->M, TS_DOUBLE, &s->blocks[0]);
    ts_matrix_destroy(&s->M);
    return ierr;
  }
  ts_operator M = NULL;
  TS_CALL(ts_operator_create_hdiv_mass(s->backend, s->velocity, s->beta, &M));
  s->mass = M;
  if (!s->flux_faces) {
    s->blocks[0] = M;
    return 0;
  }
  const int ierr = create_constrained(s, M, &s->blocks[0]);
  if (ierr) s->mass = NULL;
  return ierr;
}

/* beta per cell and the unknown mask; D with the prescribed columns 0 (kept for the lifting) */
static int prepare(ts_hdiv_system s, const ts_hdiv_coefficients *k) {
  const int64_t cells = ts_ih_cell_count(s->velocity);
  TS_CALL(ts_calloc((size_t)cells, sizeof *s->beta, "beta per cell", &s->beta));
  for (int64_t c = 0; c < cells; ++c) s->beta[c] = k->beta * (k->beta_cells ? k->beta_cells[c] : 1.0);
  TS_CALL(unknown_mask(s, &s->mask));
  TS_CALL(ts_matrix_assemble_divergence(s->velocity, s->pressure, &s->D));
  if (s->flux_faces) TS_CALL(prescribed_columns(s->D, s->mask, s->velocity->count, &s->D_lift));
  return ts_matrix_scale(s->D, NULL, s->mask);
}

static int assemble(ts_hdiv_system s, const ts_hdiv_coefficients *k) {
  TS_CALL(prepare(s, k));
  TS_CALL(ts_matrix_transpose(s->D, &s->Dt));
  if (isinf(k->alpha)) { /* no (2,2) block; ts_operator_create_block needs its size known */
    TS_CALL(ts_matrix_create_triplets(s->pressure->count, s->pressure->count, 0, NULL, NULL,
                                      NULL, &s->C));
  } else {
    const int64_t cells = ts_ih_cell_count(s->pressure);
    TS_CALL(ts_calloc((size_t)cells, sizeof *s->alpha, "alpha per cell", &s->alpha));
    for (int64_t c = 0; c < cells; ++c)
      s->alpha[c] = k->alpha * (k->alpha_cells ? k->alpha_cells[c] : 1.0);
  }
  TS_CALL(ts_hdiv_schur_assemble_on(s->backend, s->velocity, s->pressure, k, s->flux_faces,
                                    &s->S));
  return 0;
}

/* The AMG V-cycle on S~: hypre's BoomerAMG on the omp backend (the reference, on the host) and
 * for the singular pure-flux S~ (our AMG's coarse LU needs a regular matrix); elsewhere our
 * smoothed aggregation (ts_pc_create_amg), whose V-cycle copies only its coarsest level's
 * vector through the host instead of the whole residual and correction, and in a build
 * without hypre.  In 2D its prolongation is smoothed by 3 steps, not the default 2: with 2
 * the CG counts on the Darcy S~ reach 1.4-1.5 times BoomerAMG's (RT_1 level 7, RT_5 level 5),
 * with 3 they stay within 1.2 times; in 3D a third step raises the operator complexity from
 * about 2.6 to 3.8 for one iteration fewer, solves no faster on the GPU, and its setup needed
 * more than cuSPARSE's SpGEMM found at 2e6 rows
 * (bench/results/2026-11-28-amg-prolongation-smoothing.md).  The other options are the
 * defaults: theta = 0.12 and the prolongation smoothed with the filtered matrix, which keep
 * the counts on anisotropic cells (t-darcy-mapped's aspect ratio 3) near BoomerAMG's
 * (bench/results/2026-11-28-amg-anisotropic.md). */
static int create_schur_amg(ts_hdiv_system s) {
  const int host = !strcmp(ts_backend_name(s->backend), "omp") && ts_hypre_version()[0];
  if (s->amg_kind == TS_HDIV_AMG_AUTO)
    s->amg_kind = s->singular || host ? TS_HDIV_AMG_BOOMERAMG : TS_HDIV_AMG_OURS;
  if (s->amg_kind == TS_HDIV_AMG_BOOMERAMG) {
    TS_CALL(ts_pc_create_boomeramg(s->backend, s->S, &s->amg));
    return 0;
  }
  ts_amg_options options;
  ts_amg_options_default(&options);
  if (s->velocity->dim == 2) options.prolongation_smoothing_steps = 3;
  TS_CALL(ts_pc_create_amg(s->backend, s->S, &options, &s->amg, NULL));
  return 0;
}

/* W^{-1} (tolerance 1e-14) and, for alpha finite, the (2,2) block -W_alpha^{-1} */
static int create_mass_inverses(ts_hdiv_system s) {
  ts_mass_inverse_options data;
  TS_CALL(ts_mass_inverse_options_default(&data));
  data.tolerance = 1e-14;
  TS_CALL(ts_operator_create_l2_mass_inverse(s->backend, s->pressure, NULL, &data, &s->W_inv));
  if (!s->alpha)
    return ts_operator_create_matrix(s->backend, s->C, TS_DOUBLE, &s->blocks[3]);
  TS_CALL(ts_operator_create_l2_mass_inverse(s->backend, s->pressure, s->alpha, NULL,
                                             &s->W_alpha_inv));
  return ts_operator_create_multiple(-1.0, s->W_alpha_inv, &s->blocks[3]);
}

/* 1 on a mapped level (only the matrix-free M_beta has its Piola maps) */
static int mapped(ts_hdiv_system s) { return s->velocity->mesh && s->velocity->mesh->map; }

static int create_operators(ts_hdiv_system s) {
  TS_CALL(create_mass_block(s, s->velocity->degree <= 1 && !mapped(s)));
  const ts_matrix m[2] = {s->Dt, s->D};
  for (int i = 1; i < 3; ++i)
    TS_CALL(ts_operator_create_matrix(s->backend, m[i - 1], TS_DOUBLE, &s->blocks[i]));
  TS_CALL(create_mass_inverses(s));
  TS_CALL(ts_operator_create_block(2, 2, s->blocks, &s->A));
  TS_CALL(ts_pc_create_jacobi(s->blocks[0], &s->jacobi));
  TS_CALL(create_schur_amg(s));
  ts_matrix *copied[4] = {&s->D, &s->Dt, &s->C, &s->S};
  for (int i = 0; i < 4; ++i) ts_matrix_destroy(copied[i]);
  return 0;
}

int ts_hdiv_system_set_assembled_mass(ts_hdiv_system system, int assembled) {
  TS_CHECK_NOT_NULL(system);
  TS_CHECK_ARG(assembled == 0 || assembled == 1, "ts_hdiv_system_set_assembled_mass: assembled "
               "= %d, allowed 0 (matrix-free) or 1 (the assembled CSR matrix)", assembled);
  ts_hdiv_system s = system;
  TS_CHECK_ARG(!assembled || !mapped(s), "ts_hdiv_system_set_assembled_mass: assembled = 1 on "
               "a mapped mesh; the assembled M_beta is of Cartesian cells, allowed 0 (the "
               "matrix-free M_beta with its Piola maps)");
  ts_pc_destroy(&s->jacobi);
  ts_operator_destroy(&s->A);
  ts_operator_destroy(&s->blocks[0]);
  ts_matrix_destroy(&s->M_lift);
  s->mass = NULL;
  TS_CALL(create_mass_block(s, assembled));
  TS_CALL(ts_operator_create_block(2, 2, s->blocks, &s->A));
  return ts_pc_create_jacobi(s->blocks[0], &s->jacobi);
}

int ts_hdiv_system_create(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                          const ts_hdiv_coefficients *coefficients, unsigned flux_faces,
                          ts_hdiv_system *system) {
  return ts_hdiv_system_create_with_amg(backend, velocity, pressure, coefficients, flux_faces,
                                        TS_HDIV_AMG_AUTO, system);
}

int ts_hdiv_system_create_with_amg(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                                   const ts_hdiv_coefficients *coefficients,
                                   unsigned flux_faces, ts_hdiv_amg amg,
                                   ts_hdiv_system *system) {
  TS_CHECK_NOT_NULL(system);
  *system = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CALL(ts_hdiv_check_coefficients("ts_hdiv_system_create", velocity, coefficients));
  TS_CHECK_NOT_NULL(pressure);
  TS_CALL(ts_check_faces("ts_hdiv_system_create", "flux_faces", velocity->dim, flux_faces));
  TS_CHECK_ARG(amg == TS_HDIV_AMG_AUTO || amg == TS_HDIV_AMG_BOOMERAMG || amg == TS_HDIV_AMG_OURS,
               "ts_hdiv_system_create_with_amg: amg = %d, allowed TS_HDIV_AMG_AUTO, "
               "TS_HDIV_AMG_BOOMERAMG or TS_HDIV_AMG_OURS", (int)amg);
  const int singular = isinf(coefficients->alpha) && flux_faces == TS_FACES_ALL(velocity->dim);
  TS_CHECK_ARG(!(singular && amg == TS_HDIV_AMG_OURS), "ts_hdiv_system_create_with_amg: amg = "
               "TS_HDIV_AMG_OURS with every flux prescribed and no (2,2) block: S~ is singular "
               "and our AMG's coarsest LU needs a regular matrix; allowed TS_HDIV_AMG_AUTO or "
               "TS_HDIV_AMG_BOOMERAMG");
  ts_hdiv_system s;
  TS_CALL(ts_calloc(1, sizeof *s, "H(div) system", &s));
  s->backend = backend;
  s->velocity = velocity;
  s->pressure = pressure;
  s->flux_faces = flux_faces;
  s->singular = singular;
  s->amg_kind = amg;
  int ierr = assemble(s, coefficients);
  if (!ierr) ierr = create_operators(s);
  if (ierr) {
    ts_hdiv_system_destroy(&s);
    return ts_error_trace(ierr, __FILE__, __LINE__, "H(div) saddle-point system");
  }
  *system = s;
  return 0;
}

int ts_hdiv_system_destroy(ts_hdiv_system *system) {
  if (!system || !*system) return 0;
  ts_hdiv_system s = *system;
  for (int i = 0; i < 2; ++i) ts_pc_destroy(&s->schur[i]);
  ts_pc_destroy(&s->jacobi);
  ts_pc_destroy(&s->amg);
  ts_operator_destroy(&s->A);
  for (int i = 0; i < 4; ++i) ts_operator_destroy(&s->blocks[i]);
  ts_operator_destroy(&s->W_alpha_inv);
  ts_operator_destroy(&s->W_inv);
  ts_matrix_destroy(&s->M);
  ts_matrix_destroy(&s->D);
  ts_matrix_destroy(&s->Dt);
  ts_matrix_destroy(&s->C);
  ts_matrix_destroy(&s->S);
  ts_matrix_destroy(&s->M_lift);
  ts_matrix_destroy(&s->D_lift);
  ts_free(&s->beta);
  ts_free(&s->alpha);
  ts_free(&s->mask);
  ts_free(system);
  return 0;
}

ts_operator ts_hdiv_system_operator(ts_hdiv_system system) {
  TS_GETTER_NOT_NULL(system, NULL);
  return system->A;
}

ts_operator ts_hdiv_system_block(ts_hdiv_system system, int row, int col) {
  TS_GETTER_NOT_NULL(system, NULL);
  if (row < 0 || row > 1 || col < 0 || col > 1) {
    TS_ERROR(TS_ERR_ARG, "ts_hdiv_system_block: block (%d, %d); the system has the blocks "
               "(0..1, 0..1)", row, col);
    return NULL;
  }
  return system->blocks[2 * row + col];
}

ts_pc ts_hdiv_system_schur_pc(ts_hdiv_system system) {
  TS_GETTER_NOT_NULL(system, NULL);
  return system->amg;
}

int ts_hdiv_system_is_singular(ts_hdiv_system system) {
  TS_GETTER_NOT_NULL(system, -1);
  return system->singular;
}

ts_hdiv_amg ts_hdiv_system_amg(ts_hdiv_system system) {
  TS_GETTER_NOT_NULL(system, TS_HDIV_AMG_AUTO);
  return system->amg_kind;
}

int ts_hdiv_system_create_pc(ts_hdiv_system system, int triangular, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(system);
  TS_CHECK_ARG(triangular == 0 || triangular == 1, "ts_hdiv_system_create_pc: triangular = %d, "
               "allowed 0 (block-diagonal, for MINRES) or 1 (block upper triangular, for GMRES "
               "and FGMRES)", triangular);
  ts_pc *schur = &system->schur[triangular], jacobi = system->jacobi;
  const double sign = triangular ? -1.0 : 1.0; /* the Schur complement of Acal is -S */
  if (!*schur) TS_CALL(ts_pc_create_schur_block(system->amg, sign, system->singular, schur));
  if (triangular)
    return ts_pc_create_block_triangular(TS_PC_UPPER, jacobi, system->blocks[1], *schur, pc);
  return ts_pc_create_block_diagonal(2, (ts_pc[]){jacobi, *schur}, pc);
}

/* the solve of ts_hdiv_system_solve on the vectors vb, vx */
static int solve(ts_hdiv_system s, ts_solver_type type, double rtol, int max_iterations,
                 ts_vec vb, ts_vec vx, int *iterations) {
  ts_pc pc = NULL;
  ts_solver solver = NULL;
  int ierr = ts_hdiv_system_create_pc(s, type != TS_SOLVER_MINRES, &pc);
  if (!ierr) ierr = ts_solver_create(type, &solver);
  if (!ierr) ierr = ts_solver_set_operator(solver, s->A);
  if (!ierr) ierr = ts_solver_set_pc(solver, pc);
  if (!ierr && type != TS_SOLVER_MINRES) ierr = ts_solver_set_restart(solver, 200);
  if (!ierr) ierr = ts_solver_set_tolerances(solver, rtol, max_iterations);
  if (!ierr) ierr = ts_solver_solve(solver, vb, vx);
  if (iterations) *iterations = solver ? ts_solver_iterations(solver) : 0;
  ts_solver_destroy(&solver);
  ts_pc_destroy(&pc);
  return ierr;
}

int ts_hdiv_system_solve(ts_hdiv_system system, ts_solver_type type, double rtol,
                         int max_iterations, const double *b, double *x, int *iterations) {
  TS_CHECK_NOT_NULL(system);
  TS_CHECK_NOT_NULL(b);
  TS_CHECK_NOT_NULL(x);
  TS_CHECK_ARG(type == TS_SOLVER_MINRES || type == TS_SOLVER_GMRES || type == TS_SOLVER_FGMRES,
               "ts_hdiv_system_solve: type = %d, allowed TS_SOLVER_MINRES, TS_SOLVER_GMRES or "
               "TS_SOLVER_FGMRES", (int)type);
  const int64_t n = system->velocity->count + system->pressure->count;
  ts_vec vb = NULL, vx = NULL;
  int ierr = ts_vec_create(system->backend, n, TS_DOUBLE, &vb);
  if (!ierr) ierr = ts_vec_create(system->backend, n, TS_DOUBLE, &vx);
  if (!ierr) ierr = ts_vec_set_from_host(vb, b);
  if (!ierr) ierr = solve(system, type, rtol, max_iterations, vb, vx, iterations);
  if (!ierr) ierr = ts_vec_get_to_host(vx, x);
  ts_vec_destroy(&vb);
  ts_vec_destroy(&vx);
  return ierr;
}

/* y += alpha A x on the host */
static void host_multiply_add(ts_matrix A, double alpha, const double *x, double *y) {
  for (int64_t i = 0; i < A->rows; ++i) {
    double sum = 0.0;
    for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; ++e)
      sum += A->values[e] * x[A->columns[e]];
    y[i] += alpha * sum;
  }
}

/* F - P_D into b, u_D into x0 (the velocity blocks) */
static int velocity_data(ts_hdiv_system s, const ts_hdiv_data *data, double *b, double *x0) {
  ts_dofs u = s->velocity;
  const unsigned natural = TS_FACES_ALL(u->dim) & ~s->flux_faces;
  if (data->f) TS_CALL(ts_hdiv_load_vector(u, data->f, data->ctx, b));
  if (data->p_boundary && natural) {
    double *p = NULL;
    TS_CALL(ts_calloc((size_t)u->count, sizeof *p, "pressure boundary term", &p));
    int ierr = ts_hdiv_boundary_pressure(u, natural, data->p_boundary, data->ctx, p);
    for (int64_t j = 0; !ierr && j < u->count; ++j) b[j] -= p[j];
    ts_free(&p);
    TS_CALL(ierr);
  }
  if (data->u_boundary && s->flux_faces)
    TS_CALL(ts_hdiv_boundary_fluxes(u, s->flux_faces, data->u_boundary, data->ctx, x0));
  return 0;
}

/* y = scale W^{-1} x on host arrays of the pressure's size, through the backend */
static int apply_mass_inverse(ts_hdiv_system s, double scale, const double *x, double *y) {
  const int64_t n = s->pressure->count;
  ts_vec vx = NULL, vy = NULL;
  int ierr = ts_vec_create(s->backend, n, TS_DOUBLE, &vx);
  if (!ierr) ierr = ts_vec_create(s->backend, n, TS_DOUBLE, &vy);
  if (!ierr) ierr = ts_vec_set_from_host(vx, x);
  if (!ierr) ierr = ts_operator_apply(s->W_inv, vx, vy);
  if (!ierr) ierr = ts_vec_get_to_host(vy, y);
  for (int64_t i = 0; !ierr && i < n; ++i) y[i] *= scale;
  ts_vec_destroy(&vx);
  ts_vec_destroy(&vy);
  return ierr;
}

/* W^{-1} G into the pressure block bp */
static int pressure_data(ts_hdiv_system s, const ts_hdiv_data *data, double *bp) {
  if (!data->g) return 0;
  double *g = NULL;
  TS_CALL(ts_calloc((size_t)s->pressure->count, sizeof *g, "(g, psi)", &g));
  int ierr = ts_hdiv_load_vector(s->pressure, data->g, data->ctx, g);
  if (!ierr) ierr = apply_mass_inverse(s, 1.0, g, bp);
  ts_free(&g);
  return ierr;
}

/* b -= M_beta u_D (x0: u_D at the prescribed DoFs, zero elsewhere): the assembled columns, or
 * the matrix-free M_beta on the backend */
static int subtract_mass_lift(ts_hdiv_system s, const double *x0, double *b) {
  if (s->M_lift) {
    host_multiply_add(s->M_lift, -1.0, x0, b);
    return 0;
  }
  const int64_t n = s->velocity->count;
  ts_vec u = NULL, Mu = NULL;
  double *host = NULL;
  int ierr = ts_vec_create(s->backend, n, TS_DOUBLE, &u);
  if (!ierr) ierr = ts_vec_create(s->backend, n, TS_DOUBLE, &Mu);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *host, "M_beta u_D", &host);
  if (!ierr) ierr = ts_vec_set_from_host(u, x0);
  if (!ierr) ierr = ts_operator_apply(s->mass, u, Mu);
  if (!ierr) ierr = ts_vec_get_to_host(Mu, host);
  for (int64_t j = 0; !ierr && j < n; ++j) b[j] -= host[j];
  ts_free(&host);
  ts_vec_destroy(&u);
  ts_vec_destroy(&Mu);
  return ierr;
}

int ts_hdiv_system_rhs(ts_hdiv_system system, const ts_hdiv_data *data, double *b, double *x0) {
  TS_CHECK_NOT_NULL(system);
  TS_CHECK_NOT_NULL(data);
  TS_CHECK_NOT_NULL(b);
  TS_CHECK_NOT_NULL(x0);
  const int64_t nu = system->velocity->count, np = system->pressure->count;
  for (int64_t i = 0; i < nu + np; ++i) b[i] = x0[i] = 0.0;
  TS_CALL(velocity_data(system, data, b, x0));
  TS_CALL(pressure_data(system, data, b + nu));
  if (system->flux_faces) {
    TS_CALL(subtract_mass_lift(system, x0, b));           /* - M u_D */
    host_multiply_add(system->D_lift, -1.0, x0, b + nu); /* - D u_D */
  }
  for (int64_t j = 0; j < nu; ++j)
    if (ts_dofs_flux_face(system->velocity, j) & system->flux_faces) b[j] = 0.0;
  if (system->singular) { /* orthogonal to the null space x_p = 1 */
    long double sum = 0.0L;
    for (int64_t i = 0; i < np; ++i) sum += b[nu + i];
    for (int64_t i = 0; i < np; ++i) b[nu + i] -= (double)(sum / np);
  }
  return 0;
}

int ts_hdiv_system_pressure(ts_hdiv_system system, const double *x, double *p) {
  TS_CHECK_NOT_NULL(system);
  TS_CHECK_NOT_NULL(x);
  TS_CHECK_NOT_NULL(p);
  return apply_mass_inverse(system, -1.0, x + system->velocity->count, p);
}
