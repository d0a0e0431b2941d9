/* mg.c -- distributed geometric multigrid for the Q_k Laplacian (doc/parallel.md, section 5):
 * the levels' distributed DoFs and Laplacians, the transfers between them, the coarse solve,
 * and the V-cycle of ts_pc_create_multigrid made of them.
 *
 * The blocks nest across levels (dofs.c splits the split level's cells and refines them), so a
 * block's fine cells are the children of its coarse cells and the block's transfer is the
 * one-process kernel on the block (ts_transfer_plan_init on the block's DoFs, without the
 * constraints), with F the mask of the DoFs off the box's boundary:
 *   prolongation  y_f = F_f .* P_block (F_c .* x_c): consistent as it is, since a fine DoF
 *                 on an interface is interpolated by both blocks from the same coarse values
 *                 with weights 1 and 0 (it lies on a coarse cell face); y_f += the same by
 *                 the kernel's add, y_f's Dirichlet planes saved before and restored after;
 *   restriction   y_c = F_c .* S(P_block^T (O_f .* F_f .* x_f)), O_f the owned mask: each
 *                 fine DoF counted once, the interface rows summed (ts_parallel_vec_sum_shared)
 *                 - the transpose of the prolongation over the whole mesh.
 * The masks touch only the planes that hold the masked DoFs (the Dirichlet faces, the ghost
 * planes: ts_parallel_planes_zero), the masks' numbers at the cost of the planes.
 * The distributed levels are split_level..finest (ts_parallel_split_level); the levels
 * coarse_level..split_level are gathered (agglomerate.c): the distributed cycle's coarse
 * solve gathers the split level's vector on every process (ts_parallel_vec_gather), applies
 * the one-process V-cycle of those whole levels - the one-process Laplacians (on a mapped
 * mesh the operators with the levels' coefficients), transfers and smoothers of the same
 * kind, and the LU of the coarse level (assembled once: on a box
 * ts_mg_dense_inverse_create_matrix of the sparse assembly, on a mapped mesh
 * ts_mg_dense_inverse_create of the one-process mapped operator, as ts_mg_create_mapped's
 * coarse solve) - and takes the process's entries back; full multigrid starts with those
 * levels' nested iteration.  Without gathered levels above the coarse one that is the
 * one-process coarse LU, bit for bit, on every process.
 *
 * Mixed precision (ts_parallel_mg_set_precision(mg, TS_SINGLE); paper 002 section 4.2): the
 * cycle's distributed levels get single-precision Laplacians, transfers and smoothers, whose
 * halo exchanges carry single-precision planes (half the bytes); the preconditioner takes
 * double vectors and full multigrid forms its residuals, restrictions and prolongations in
 * double with the hierarchy's operators (ts_pc_multigrid_set_outer, as lib/mg/fmg.c does on
 * one process).  The gathered levels stay double: the split level's single-precision vector
 * is converted for them (ts_pc_create_converted), and full multigrid's start is theirs.
 *
 * Degree levels (ts_parallel_mg_set_coarse_degree, as ts_mg_options.coarse_degree): below
 * the coarse mesh level at degree k, the same cells at the degrees of ts_mg_degree_sequence
 * down to the coarse degree, whose LU is the coarse solve.  They belong to the gathered
 * levels: the coarse mesh level is then always gathered (the split level is above it, or it
 * is the split level and the top of the gathered cycle), and the degree transfers, operators
 * and smoothers are the one-process ones on the whole level.  A coarse mesh level too large
 * for the LU at degree k is solved at degree 1 (or 2, ...), on every process.
 *
 * On a mapped mesh every level is rediscretized (ts_parallel_operator_create_mapped), its
 * kappa and c the means of the finer level's (ts_mg_coefficient_levels, as
 * ts_mg_create_mapped); the transfers are the box's, since they depend on the reference
 * cells only. */
#include "parallel-impl.h"
#include "../mg/mg-impl.h"
#include "../pc/pc-impl.h"

/* ---------------------------------------------------------------- transfer */

typedef struct parallel_transfer {
  ts_parallel_dofs coarse, fine; /* borrowed */
  ts_transfer_plan plan;         /* the blocks', unconstrained */
  double storage[TS_TRANSFER_1D_SIZE];
  ts_vec out;                   /* the coarse result before an add: made by the first */
} parallel_transfer;

/* out (+)= F_f .* P_block (F_c .* x) by planes; x is left as it was */
static int prolongate_by_planes(ts_operator op, parallel_transfer *t, ts_vec x, ts_vec out,
                                int add) {
  TS_CALL(ts_parallel_planes_zero(t->coarse, TS_PLANES_DIRICHLET, x));
  int ierr = add ? ts_parallel_planes_save(t->fine, TS_PLANES_DIRICHLET, out) : 0;
  if (!ierr) ierr = ts_transfer_apply(op->backend, &t->plan, 0, x, out, add);
  TS_CALL(ts_parallel_planes_restore(t->coarse, TS_PLANES_DIRICHLET, x));
  TS_CALL(ierr);
  if (add) return ts_parallel_planes_restore(t->fine, TS_PLANES_DIRICHLET, out);
  return ts_parallel_planes_clear(t->fine, TS_PLANES_DIRICHLET, out);
}

/* out = F_c .* S(P_block^T (O_f .* F_f .* x)) by planes; x is left as it was */
static int restrict_by_planes(ts_operator op, parallel_transfer *t, ts_vec x, ts_vec out) {
  TS_CALL(ts_parallel_planes_zero(t->fine, TS_PLANES_GHOST, x));
  TS_CALL(ts_parallel_planes_zero(t->fine, TS_PLANES_DIRICHLET, x));
  const int ierr = ts_transfer_apply(op->backend, &t->plan, 1, x, out, 0);
  TS_CALL(ts_parallel_planes_restore(t->fine, TS_PLANES_DIRICHLET, x));
  TS_CALL(ts_parallel_planes_restore(t->fine, TS_PLANES_GHOST, x));
  TS_CALL(ierr);
  TS_CALL(ts_parallel_vec_sum_shared(t->coarse, out));
  return ts_parallel_planes_clear(t->coarse, TS_PLANES_DIRICHLET, out);
}

static int transfer_prolongate(ts_operator op, ts_vec x, ts_vec y, int add) {
  parallel_transfer *t = op->data;
  TS_CALL(ts_parallel_check_vec(t->coarse, x, "distributed prolongation (input)"));
  TS_CALL(ts_parallel_check_vec(t->fine, y, "distributed prolongation (output)"));
  return prolongate_by_planes(op, t, x, y, add);
}

static int transfer_restrict(ts_operator op, ts_vec x, ts_vec y, int add) {
  parallel_transfer *t = op->data;
  TS_CALL(ts_parallel_check_vec(t->fine, x, "distributed restriction (input)"));
  TS_CALL(ts_parallel_check_vec(t->coarse, y, "distributed restriction (output)"));
  if (add && !t->out)
    TS_CALL(ts_parallel_vec_create_precision(t->coarse, op->precision, &t->out));
  ts_vec out = add ? t->out : y;
  TS_CALL(restrict_by_planes(op, t, x, out));
  if (add) TS_CALL(ts_vec_axpby(1.0, out, 1.0, y));
  return 0;
}

static void transfer_destroy(ts_operator op) {
  parallel_transfer *t = op->data;
  ts_vec_destroy(&t->out);
  ts_free(&op->data);
}

static const ts_operator_ops transfer_ops = {.name = "distributed transfer",
                                             .apply = transfer_prolongate,
                                             .destroy = transfer_destroy,
                                             .apply_transpose = transfer_restrict};

/* the transfer in precision p (the levels checked) */
static int transfer_create(ts_parallel_dofs coarse, ts_parallel_dofs fine, ts_precision p,
                           ts_operator *P) {
  if (!fine->backend->ops.transfer)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'transfer'",
                    fine->backend->name);
  parallel_transfer *t;
  TS_CALL(ts_calloc(1, sizeof *t, "distributed transfer", &t));
  *t = (parallel_transfer){.coarse = coarse, .fine = fine};
  int ierr = ts_transfer_plan_init(coarse->dofs, fine->dofs, &t->plan, t->storage);
  t->plan.constrained = 0; /* the box's Dirichlet DoFs: by planes (above) */
  if (!ierr) ierr = ts_operator_create_shell_rect(fine->backend, &transfer_ops, fine->dofs->count,
                                                  coarse->dofs->count, p, t, P);
  if (ierr) {
    ts_free(&t);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed transfer setup");
  }
  (*P)->layout = &fine->layout;
  return 0;
}

int ts_parallel_operator_create_transfer(ts_parallel_dofs coarse, ts_parallel_dofs fine,
                                         ts_operator *P) {
  TS_CHECK_NOT_NULL(P);
  *P = NULL;
  TS_CHECK_NOT_NULL(coarse);
  TS_CHECK_NOT_NULL(fine);
  TS_CHECK_ARG(coarse->par == fine->par && coarse->backend == fine->backend &&
               coarse->degree == fine->degree,
               "ts_parallel_operator_create_transfer: the two levels are not of one split, "
               "backend and degree");
  TS_CHECK_ARG(fine->level == coarse->level + 1 && coarse->nested && fine->nested &&
               coarse->split_level == fine->split_level,
               "ts_parallel_operator_create_transfer: levels %d and %d: the fine level must be "
               "the next finer one, both split from the same level, and every direction needs at "
               "least as many cells of that level as processes (then the blocks of all levels "
               "nest)", coarse->level, fine->level);
  return transfer_create(coarse, fine, TS_DOUBLE, P);
}

/* ---------------------------------------------------------------- the hierarchy */

/* the coefficients of mesh level l of a mapped hierarchy, over the whole level's cells */
static ts_coefficients level_coefficients(ts_parallel_mg m, int l) {
  const ts_coefficients *g = &m->given;
  return (ts_coefficients){m->kappa[l] || g->kappa_at ? g->kappa_components : 0, m->kappa[l],
                           m->reaction[l], g->kappa_at, g->reaction_at, g->ctx};
}

/* the levels' cell arrays from the finest's (coefficients; NULL: the Laplacian) */
static int coefficient_levels(ts_parallel_mg m, int finest, const ts_coefficients *co) {
  if (!co) return 0;
  m->given = *co;
  const int nk = co->kappa_components, tensor = m->mesh->dim * (m->mesh->dim + 1) / 2;
  TS_CHECK_ARG(nk == 0 || nk == 1 || nk == tensor, "ts_parallel_mg_create_mapped: "
               "coefficients->kappa_components = %d, allowed 0, 1 or %d", nk, tensor);
  TS_CHECK_ARG(nk == 0 || co->kappa || co->kappa_at, "ts_parallel_mg_create_mapped: "
               "coefficients->kappa and kappa_at are NULL with kappa_components = %d", nk);
  TS_CALL(ts_mg_coefficient_levels(m->mesh, finest, m->coarse_level, nk ? nk : 1,
                                   nk && !co->kappa_at ? co->kappa : NULL, m->kappa));
  TS_CALL(ts_mg_coefficient_levels(m->mesh, finest, m->coarse_level, 1,
                                   co->reaction_at ? NULL : co->reaction, m->reaction));
  return 0;
}

/* distributed level i's DoFs and operator */
static int create_level(ts_parallel_mg m, ts_backend backend, ts_parallel par, int i) {
  const int l = m->split_level + i;
  TS_CALL(ts_parallel_qk_dofs_create(backend, par, m->mesh, m->fe, l, m->split_level, &m->pd[i]));
  if (!m->mesh->map) return ts_parallel_operator_create_laplace(m->pd[i], &m->A[i]);
  const ts_coefficients co = level_coefficients(m, l);
  return ts_parallel_operator_create_mapped(m->pd[i], &co, &m->A[i]);
}

/* ts_parallel_mg_create with the finest level's coefficients on a mapped mesh */
static int create_hierarchy(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                            int coarse_level, int finest_level, const ts_coefficients *co,
                            ts_parallel_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(fe);
  TS_CHECK_ARG(coarse_level >= 0 && coarse_level <= finest_level &&
               finest_level <= mesh->levels && finest_level - coarse_level < TS_MG_PARTS_MAX_LEVELS,
               "ts_parallel_mg_create: levels %d..%d, allowed 0 <= coarse_level <= finest_level "
               "<= %d (the mesh's), at most %d levels", coarse_level, finest_level, mesh->levels,
               TS_MG_PARTS_MAX_LEVELS);
  ts_parallel_mg m;
  TS_CALL(ts_calloc(1, sizeof *m, "distributed multigrid hierarchy", &m));
  const int split = ts_parallel_split_level(par, mesh, coarse_level, finest_level);
  *m = (struct ts_parallel_mg_s){.mesh = mesh, .fe = fe, .coarse_level = coarse_level,
                                 .split_level = split, .levels = finest_level - split + 1,
                                 .precision = TS_DOUBLE, .coarse_degree = fe->degree};
  int ierr = coefficient_levels(m, finest_level, co);
  for (int i = 0; i < m->levels && !ierr; ++i) ierr = create_level(m, backend, par, i);
  if (ierr) {
    ts_parallel_mg_destroy(&m);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed multigrid hierarchy");
  }
  *mg = m;
  return 0;
}

int ts_parallel_mg_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                          int coarse_level, int finest_level, ts_parallel_mg *mg) {
  return create_hierarchy(backend, par, mesh, fe, coarse_level, finest_level, NULL, mg);
}

int ts_parallel_mg_create_mapped(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                                 int coarse_level, int finest_level,
                                 const ts_coefficients *coefficients, ts_parallel_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_ARG(mesh->map, "ts_parallel_mg_create_mapped: the mesh is a box; use "
               "ts_parallel_mg_create");
  return create_hierarchy(backend, par, mesh, fe, coarse_level, finest_level, coefficients, mg);
}

int ts_parallel_mg_destroy(ts_parallel_mg *mg) {
  if (!mg || !*mg) return 0;
  ts_parallel_mg m = *mg;
  for (int i = 0; i < m->levels; ++i) {
    ts_operator_destroy(&m->A[i]);
    ts_parallel_dofs_destroy(&m->pd[i]);
  }
  for (int l = 0; l < TS_MG_PARTS_MAX_LEVELS; ++l) {
    ts_free(&m->kappa[l]);
    ts_free(&m->reaction[l]);
  }
  ts_free(mg);
  return 0;
}

/* the index of level in the distributed levels (mg not NULL), or -1 with the error recorded */
static int level_index(ts_parallel_mg mg, int level, const char *caller) {
  const int finest = mg->split_level + mg->levels - 1;
  if (level >= mg->coarse_level && level < mg->split_level) {
    TS_ERROR(TS_ERR_ARG, "%s: level = %d is gathered on every process (the distributed levels "
             "are %d..%d; ts_parallel_set_agglomeration)", caller, level, mg->split_level, finest);
    return -1;
  }
  if (level < mg->coarse_level || level > finest) {
    TS_ERROR(TS_ERR_ARG, "%s: level = %d, the hierarchy has %d..%d", caller, level,
             mg->coarse_level, finest);
    return -1;
  }
  return level - mg->split_level;
}

ts_parallel_dofs ts_parallel_mg_dofs(ts_parallel_mg mg, int level) {
  TS_GETTER_NOT_NULL(mg, NULL);
  const int i = level_index(mg, level, __func__);
  return i < 0 ? NULL : mg->pd[i];
}

int ts_parallel_mg_set_precision(ts_parallel_mg mg, ts_precision precision) {
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(!mg->stokes, "%s: the hierarchy is a Stokes one, whose V-cycle is double "
               "precision only", __func__);
  TS_CHECK_ARG(precision == TS_DOUBLE || precision == TS_SINGLE, "%s: precision = %d, allowed "
               "TS_DOUBLE (%d) or TS_SINGLE (%d: mixed precision)", __func__, (int)precision,
               (int)TS_DOUBLE, (int)TS_SINGLE);
  mg->precision = precision;
  return 0;
}

int ts_parallel_mg_set_coarse_degree(ts_parallel_mg mg, int degree) {
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(!mg->stokes, "%s: the hierarchy is a Stokes one, which has no degree levels",
               __func__);
  TS_CHECK_ARG(degree >= 1 && degree <= mg->fe->degree, "%s: degree = %d, allowed 1..%d (the "
               "element's degree: no degree levels)", __func__, degree, mg->fe->degree);
  mg->coarse_degree = degree;
  return 0;
}

int ts_parallel_mg_split_level(ts_parallel_mg mg) {
  TS_GETTER_NOT_NULL(mg, -1);
  return mg->split_level;
}

ts_operator ts_parallel_mg_operator(ts_parallel_mg mg, int level) {
  TS_GETTER_NOT_NULL(mg, NULL);
  const int i = level_index(mg, level, __func__);
  return i < 0 ? NULL : mg->A[i];
}

/* ---------------------------------------------------------------- the smoothers */

/* The smoothers of a V-cycle: weighted Jacobi, Chebyshev of a degree, or the vertex
 * patches of a variant */
typedef enum { SMOOTH_JACOBI, SMOOTH_CHEBYSHEV, SMOOTH_PATCH } smoother_kind;
typedef struct smoothing {
  smoother_kind kind;
  double weight;                /* Jacobi */
  int degree;                   /* Chebyshev */
  ts_patch_variant variant;     /* vertex patches */
} smoothing;

/* level i's smoother on the distributed levels: A and pd; on the gathered ones, pd NULL: the
 * one-process operator A of dofs */
static int create_smoother(ts_operator A, ts_parallel_dofs pd, ts_dofs dofs, const smoothing *s,
                           ts_pc *pc) {
  if (s->kind == SMOOTH_CHEBYSHEV) return ts_pc_create_chebyshev(A, s->degree, pc);
  if (s->kind == SMOOTH_JACOBI) return ts_pc_create_jacobi_weighted(A, s->weight, pc);
  ts_smoother patch;
  if (pd) TS_CALL(ts_parallel_smoother_create_vertex_patch(A, pd, s->variant, &patch));
  else TS_CALL(ts_smoother_create_vertex_patch(A, dofs, s->variant, &patch));
  return ts_pc_create_smoother(patch, pc);
}

/* ---------------------------------------------------------------- the gathered levels */

/* The LU of the one-process operator of the whole coarse level: the sparse assembly of the
 * box's Laplacian, or the mapped operator A, assembled by applications (as the one-process
 * hierarchies do). */
static int coarse_lu(ts_backend backend, ts_dofs whole, ts_operator A, ts_operator *inverse) {
  if (whole->mesh->map) return ts_mg_dense_inverse_create(A, NULL, inverse);
  ts_matrix M;
  TS_CALL(ts_matrix_assemble_laplace(whole, &M));
  const int ierr = ts_mg_dense_inverse_create_matrix(backend, M, NULL, inverse);
  ts_matrix_destroy(&M);
  return ierr;
}

/* level i of the gathered levels: the degree levels' elements (owned by v) and DoFs, or mesh
 * level l's DoFs */
static int serial_dofs(ts_parallel_mg mg, ts_mg_parts *v, int i, int n_degrees,
                       const int *degrees, int l) {
  ts_fe fe = mg->fe;
  if (i < n_degrees) {
    TS_CALL(ts_fe_create_q(mg->mesh->dim, degrees[i], &v->fe[i]));
    fe = v->fe[i];
  }
  return ts_dofs_create(mg->mesh, fe, l, &v->dofs[i]);
}

/* The one-process parts of the gathered levels (the whole levels): the degree levels on the
 * coarse mesh level (ts_mg_degree_sequence down to mg->coarse_degree), then the mesh levels
 * coarse_level..split_level; the Laplacians (a mapped mesh: the operators with the levels'
 * coefficients), the transfers, the smoothers of the distributed levels' kind, the coarse
 * LU */
static int serial_parts(ts_parallel_mg mg, ts_backend backend, const smoothing *s,
                        ts_mg_parts *v) {
  int degrees[TS_MAX_DEGREE];
  const int n_degrees = ts_mg_degree_sequence(mg->fe->degree, mg->coarse_degree, degrees);
  v->owns_operators = 1;
  v->n = n_degrees + mg->split_level - mg->coarse_level + 1;
  TS_CHECK_ARG(v->n <= TS_MG_PARTS_MAX_LEVELS, "distributed multigrid: %d gathered levels, at "
               "most %d", v->n, TS_MG_PARTS_MAX_LEVELS);
  for (int i = 0; i < v->n; ++i) {
    const int l = mg->coarse_level + (i < n_degrees ? 0 : i - n_degrees);
    TS_CALL(serial_dofs(mg, v, i, n_degrees, degrees, l));
    const ts_coefficients co = level_coefficients(mg, l);
    if (mg->mesh->map)
      TS_CALL(ts_operator_create_mapped(backend, v->dofs[i], &co, TS_DOUBLE, &v->A[i]));
    else TS_CALL(ts_operator_create_laplace(backend, v->dofs[i], TS_DOUBLE, &v->A[i]));
    if (!i) continue;
    TS_CALL(ts_transfer_operator_create(backend, v->dofs[i - 1], v->dofs[i], &v->P[i]));
    TS_CALL(create_smoother(v->A[i], NULL, v->dofs[i], s, &v->smoothers[i]));
  }
  TS_CALL(coarse_lu(backend, v->dofs[0], v->A[0], &v->coarse_inverse));
  TS_CALL(ts_pc_create_operator(v->coarse_inverse, &v->coarse));
  return 0;
}

/* the distributed cycle's coarse solve and its full multigrid start: the gathered levels'
 * one-process V-cycle */
static int gathered_create(ts_parallel_mg mg, const smoothing *s, int steps, ts_pc *coarse,
                           ts_pc *start) {
  ts_mg_parts *v;
  ts_pc serial;
  TS_CALL(ts_calloc(1, sizeof *v, "gathered levels", &v));
  const int ierr = serial_parts(mg, mg->pd[0]->backend, s, v);
  if (ierr) {
    ts_mg_parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "gathered levels");
  }
  TS_CALL(ts_mg_parts_vcycle(v, steps, "gathered levels", &serial));
  return ts_parallel_gathered_create(mg->pd[0], serial, coarse, start);
}

/* ---------------------------------------------------------------- the V-cycle */

/* the parts: the distributed levels' Laplacians (borrowed), transfers, smoothers, and the
 * gathered levels as the coarse solve; in mixed precision single-precision Laplacians
 * (owned), transfers and smoothers, the hierarchy's double Laplacians and double transfers
 * outside, and the gathered levels converted (see the top) */
static int make_parts(ts_parallel_mg mg, const smoothing *s, int steps, ts_mg_parts *v) {
  const int mixed = mg->precision == TS_SINGLE;
  v->n = mg->levels;
  v->owns_operators = mixed;
  for (int i = 0; i < mg->levels; ++i) {
    if (mixed) {
      const ts_coefficients co = level_coefficients(mg, mg->split_level + i);
      TS_CALL(ts_parallel_operator_create_precision(mg->pd[i], &co, TS_SINGLE, &v->A[i]));
      v->outer_A[i] = mg->A[i];
    } else {
      v->A[i] = mg->A[i];
    }
    if (!i) continue;
    TS_CALL(transfer_create(mg->pd[i - 1], mg->pd[i], mg->precision, &v->P[i]));
    if (mixed) TS_CALL(transfer_create(mg->pd[i - 1], mg->pd[i], TS_DOUBLE, &v->outer_P[i]));
    TS_CALL(create_smoother(v->A[i], mg->pd[i], NULL, s, &v->smoothers[i]));
  }
  if (!mixed) return gathered_create(mg, s, steps, &v->coarse, &v->coarse_start);
  ts_pc cycle;
  TS_CALL(gathered_create(mg, s, steps, &cycle, &v->coarse_start));
  return ts_pc_create_converted(cycle, TS_SINGLE, &v->coarse);
}

static int vcycle_create(ts_parallel_mg mg, const smoothing *s, int steps, ts_pc *pc) {
  ts_mg_parts *v;
  TS_CALL(ts_calloc(1, sizeof *v, "distributed V-cycle", &v));
  const int ierr = make_parts(mg, s, steps, v);
  if (ierr) {
    ts_mg_parts_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed V-cycle");
  }
  return ts_mg_parts_vcycle(v, steps, "distributed V-cycle", pc);
}

int ts_parallel_pc_create_mg_jacobi(ts_parallel_mg mg, double weight, int smoothing_steps,
                                    ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(weight > 0.0 && weight <= 2.0, "%s: weight = %g, allowed (0, 2]", __func__, weight);
  TS_CHECK_ARG(smoothing_steps >= 1 && smoothing_steps <= 100,
               "%s: smoothing_steps = %d, allowed 1..100", __func__, smoothing_steps);
  const smoothing s = {.kind = SMOOTH_JACOBI, .weight = weight};
  return vcycle_create(mg, &s, smoothing_steps, pc);
}

int ts_parallel_pc_create_mg_chebyshev(ts_parallel_mg mg, int degree, int smoothing_steps,
                                       ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(degree >= 1 && degree <= 20, "%s: degree = %d, allowed 1..20", __func__, degree);
  TS_CHECK_ARG(smoothing_steps >= 1 && smoothing_steps <= 100,
               "%s: smoothing_steps = %d, allowed 1..100", __func__, smoothing_steps);
  const smoothing s = {.kind = SMOOTH_CHEBYSHEV, .degree = degree};
  return vcycle_create(mg, &s, smoothing_steps, pc);
}

int ts_parallel_pc_create_mg_patch(ts_parallel_mg mg, ts_patch_variant variant,
                                   int smoothing_steps, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(!mg->mesh->map, "%s: the hierarchy is on a mapped mesh; the vertex patches take "
               "a box (use ts_parallel_pc_create_mg_chebyshev)", __func__);
  TS_CHECK_ARG(variant == TS_PATCH_SEPARATE || variant == TS_PATCH_FUSED,
               "%s: variant %d, allowed TS_PATCH_SEPARATE (0) or TS_PATCH_FUSED (1)", __func__,
               (int)variant);
  TS_CHECK_ARG(smoothing_steps >= 1 && smoothing_steps <= 100,
               "%s: smoothing_steps = %d, allowed 1..100", __func__, smoothing_steps);
  const smoothing s = {.kind = SMOOTH_PATCH, .variant = variant};
  return vcycle_create(mg, &s, smoothing_steps, pc);
}

int ts_parallel_mg_time(ts_parallel_mg mg, ts_parallel_time what, double *seconds,
                        int64_t *calls) {
  TS_CHECK_NOT_NULL(mg);
  double total = 0.0;
  int64_t count = 0;
  for (int i = 0; i < mg->levels; ++i) {
    double s;
    int64_t c;
    TS_CALL(ts_parallel_dofs_time(mg->pd[i], what, &s, &c));
    total += s;
    count += c;
  }
  if (seconds) *seconds = total;
  if (calls) *calls = count;
  return 0;
}
