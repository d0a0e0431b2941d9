/* mg-impl.h -- the multigrid hierarchy shared by the files of lib/mg (private).  One
 * hierarchy and one V-cycle serve every discretization; what differs (DoF handlers, level
 * operator, smoother, transfer, coarse solver, post-processing of the V-cycle output) comes
 * from a ts_mg_discretization table: mg-laplace.c (Q_k Laplacian, paper 002) and
 * mg-stokes.c (RT_k x DGQ_k Stokes, paper 000 section 3). */
#ifndef TESSERA_MG_IMPL_H
#define TESSERA_MG_IMPL_H

#include "../tessera-impl.h"

#define TS_MG_MAX_LEVELS 32
#define TS_TRANSFER_1D_SIZE ((2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1))

/** ts_smoother_create_chebyshev_preconditioned that owns P (destroys it with the smoother,
 *  also when this fails); no argument checks. */
int ts_smoother_create_chebyshev_owning(ts_operator A, ts_operator P, int degree,
                                        ts_smoother *smoother);
/** Fill the transfer plan from the coarse to the fine level (fine = coarse refined once with
 *  the same degree, or the same cells with a higher degree); the 1D interpolation matrix
 *  lives in storage (TS_TRANSFER_1D_SIZE doubles). */
int ts_transfer_plan_init(ts_dofs coarse, ts_dofs fine, ts_transfer_plan *plan, double *storage);
/** Check that in and out are vectors of the backend, of one precision, with the sizes of the
 *  transfer's input and output (restriction: fine in, coarse out; prolongation: the reverse). */
int ts_transfer_check_vectors(ts_backend backend, int restrict_, int64_t coarse_count,
                              int64_t fine_count, ts_vec in, ts_vec out);
/** restrict_ = 0: out (fine) = P in (coarse), += with add; 1: out (coarse) = P^T in (fine). */
int ts_transfer_apply(ts_backend backend, const ts_transfer_plan *plan, int restrict_, ts_vec in,
                      ts_vec out, int add);

/** Doubles of storage for ts_field_transfer_plan_init_stokes: the continuous (2k+3) x (k+2)
 *  and the discontinuous (2k+2) x (k+1) 1D prolongation of RT_k x DGQ_k. */
#define TS_FIELD_TRANSFER_STOKES_STORAGE \
  ((2 * TS_STOKES_N2 - 1) * TS_STOKES_N2 + 2 * TS_STOKES_N1 * TS_STOKES_N1)
/** Fill the transfer plan of RT_k x DGQ_k (doc/stokes.md section 5) from the coarse to the
 *  fine level (velocity and pressure DoFs of both; vectors [u_0; ..; p]); the 1D matrices
 *  live in storage (TS_FIELD_TRANSFER_STOKES_STORAGE doubles). */
int ts_field_transfer_plan_init_stokes(ts_dofs coarse_u, ts_dofs coarse_p, ts_dofs fine_u,
                                       ts_dofs fine_p, ts_field_transfer_plan *plan,
                                       double *storage);
/** Doubles of storage for ts_field_transfer_plan_init_taylor_hood: the (2k+1) x (k+1)
 *  velocity and the (2k-1) x k pressure 1D prolongation. */
#define TS_FIELD_TRANSFER_TAYLOR_HOOD_STORAGE (2 * TS_TRANSFER_1D_SIZE)
/** Fill the transfer plan of Taylor-Hood Q_k x Q_{k-1} (vectors [u_0; ..; p]): per field the
 *  Q_k (each velocity component, its boundary DoFs zero) or Q_{k-1} (pressure) embedding. */
int ts_field_transfer_plan_init_taylor_hood(ts_dofs coarse_u, ts_dofs coarse_p, ts_dofs fine_u,
                                            ts_dofs fine_p, ts_field_transfer_plan *plan,
                                            double *storage);
/** A field transfer plan as an operator (transfer-operator.c): P from the coarse to the fine
 *  level, P^T (its restriction) as the transpose; storage holds the plan's 1D matrices when
 *  the plan is made for it (ts_field_transfer_plan_init_q), else they are borrowed. */
typedef struct ts_field_transfer_operator {
  ts_field_transfer_plan plan;
  double storage[TS_TRANSFER_1D_SIZE];
} ts_field_transfer_operator;
/** The Q_k transfer between the DoFs of two successive levels of a mesh (box or mapped),
 *  constrained as ts_mg_create's (the Dirichlet DoFs read and written as zero), as a double
 *  operator on backend: the prolongation, its transpose the restriction (the gathered levels
 *  of a distributed hierarchy, lib/parallel/mg.c). */
int ts_transfer_operator_create(ts_backend backend, ts_dofs coarse, ts_dofs fine, ts_operator *P);
/** The operator of t (ts_calloc'ed; the operator owns it, and frees it on failure too):
 *  plan.fine_count rows, plan.coarse_count columns, in precision p. */
int ts_field_transfer_operator_create(ts_backend backend, ts_precision p,
                                      ts_field_transfer_operator *t, ts_operator *P);
/** Fill the transfer plan of one Q_k field over all its DoFs, boundary included (e.g. the
 *  Taylor-Hood pressure alone); the (2k+1) x (k+1) 1D prolongation lives in storage
 *  (TS_TRANSFER_1D_SIZE doubles). */
int ts_field_transfer_plan_init_q(ts_dofs coarse, ts_dofs fine, ts_field_transfer_plan *plan,
                                  double *storage);
/** restrict_ = 0: out (fine) = P in (coarse), += with add; 1: out (coarse) = P^T in (fine). */
int ts_field_transfer_apply(ts_backend backend, const ts_field_transfer_plan *plan, int restrict_,
                            ts_vec in, ts_vec out, int add);

/** One level of the hierarchy; vectors and operator in the V-cycle precision. */
typedef struct ts_mg_level {
  int mesh_level;                 /* the mesh level of its cells */
  int degree;                     /* k of its Q_k (Stokes: of the velocity element) */
  ts_fe own_fe;                   /* a degree level's Q_k (owned); NULL on the mesh levels,
                                     which use mg->fe */
  ts_dofs dofs;                   /* Q_k, or the velocity RT_k of Stokes */
  ts_dofs pressure_dofs;          /* Stokes: DGQ_k; NULL otherwise */
  ts_operator A;
  ts_smoother smoother;           /* NULL on the coarsest level */
  void *transfer;                 /* from the next coarser level (not on the coarsest): one
                                     ts_calloc block (plan and its 1D matrices) that the
                                     discretization fills and applies */
  ts_vec b, x, r;                 /* right side, iterate, residual */
  /* under mixed precision, below the finest level: the level's operator and right side,
   * iterate and residual in double, for the nested iteration of full multigrid (fmg.c) */
  ts_operator Ad;
  ts_vec bd, xd, rd;
  ts_mg_level_timing timing;
} ts_mg_level;

/** What a discretization supplies to the hierarchy; hierarchy level i is the level
 *  levels[i].mesh_level of the mesh with the degree levels[i].degree: the first
 *  mg->degree_levels levels are degree levels on the mesh level mg->coarse, the others mesh
 *  levels mg->coarse, mg->coarse + 1, ..  Functions fill mg->levels[i] fields and return an
 *  error code. */
typedef struct ts_mg_discretization {
  const char *name;
  /* levels[i].dofs (and .pressure_dofs) */
  int (*create_dofs)(ts_mg mg, int i);
  /* the system operator of level i in precision p (the level's own, and the double ones of
   * the finest and the coarsest level) */
  int (*create_operator)(ts_mg mg, int i, ts_precision p, ts_operator *A);
  /* levels[i].smoother for levels[i].A, i >= 1 */
  int (*create_smoother)(ts_mg mg, int i);
  /* levels[i].transfer from level i-1, i >= 1 */
  int (*create_transfer)(ts_mg mg, int i);
  /* restrict_ = 0: out (level i) = P in (level i-1), += with add; 1: out (level i-1) = P^T in */
  int (*transfer_apply)(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add);
  /* NULL, or free what levels[i].transfer holds besides its own block (vectors) */
  void (*transfer_destroy)(ts_mg mg, int i);
  /* the coarse solve: a Krylov solver of this type to the options' coarse_tolerance,
   * preconditioned by what create_coarse_preconditioner makes (NULL, or leaving *P NULL:
   * Jacobi), unless create_coarse_inverse is given and makes an operator (double) that
   * applies A_0^{-1} (it may leave *inverse NULL: then the Krylov solver) */
  ts_solver_type coarse_solver;
  int (*create_coarse_inverse)(ts_mg mg, ts_operator A0, ts_operator *inverse);
  int (*create_coarse_preconditioner)(ts_mg mg, ts_operator A0, ts_operator *P);
  /* NULL, or post-process the V-cycle output (double, finest level) */
  int (*postprocess)(ts_mg mg, ts_vec x);
  /* NULL, or free the discretization data (mg->discretization_data) */
  void (*destroy)(void *data);
} ts_mg_discretization;

struct ts_mg_s {
  ts_backend backend;             /* borrowed */
  ts_mesh mesh;                   /* borrowed */
  ts_fe fe;                       /* borrowed (Laplace) or owned by discretization_data */
  const ts_mg_discretization *discretization;
  void *discretization_data;      /* owned; freed by discretization->destroy */
  ts_mg_options options;
  int coarse, finest, n_levels;
  int degree_levels;              /* degree levels below the mesh level `coarse` */
  int lowest;                     /* the number of levels[0] in the ts_mg_* functions:
                                     coarse - degree_levels (levels[i] is lowest + i) */
  ts_mg_level levels[TS_MG_MAX_LEVELS];
  ts_operator A;                  /* finest system operator in double (owned unless borrowed) */
  int own_A;
  ts_operator preconditioner;     /* the V-cycle as an operator on double vectors */
  ts_vec r, e;                    /* finest level, double: outer residual and correction */
  /* exact coarse solve, in double */
  ts_operator coarse_A;
  int own_coarse_A;
  ts_solver coarse_solver;        /* NULL with a coarse_inverse */
  ts_operator coarse_P;           /* Jacobi preconditioner of coarse_solver */
  ts_operator coarse_inverse;     /* NULL with a coarse_solver */
  ts_vec coarse_b, coarse_x;
  ts_monitor_fn monitor;
  void *monitor_ctx;
  double setup_seconds[TS_SETUP_PHASES]; /* the creation's time by phase */
};

/** Check the options common to every discretization (levels, precision). */
int ts_mg_check_common_options(ts_mesh mesh, int finest, const ts_mg_options *o);
/** Build the hierarchy on levels options->coarse_level..finest of mesh, below them
 *  n_degrees degree levels on the mesh level coarse_level with degrees[0] < .. <
 *  degrees[n_degrees-1] (coarsest first), for a discretization (data: its
 *  discretization_data, owned by mg from here on, also on error; fe stored in mg->fe). */
int ts_mg_create_hierarchy(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest,
                           const ts_mg_options *options, int n_degrees, const int *degrees,
                           const ts_mg_discretization *disc, void *data, ts_mg *mg);
/** Per-cell coefficients of a mapped hierarchy (mg-laplace.c): levels[finest] a copy of given
 *  (cells x components values of the finest level), levels[l] for l = finest - 1 down to
 *  coarsest the arithmetic means of each cell's 2^dim children (ts_cell_values_coarsen);
 *  given NULL leaves them NULL.  The caller frees levels[coarsest..finest], also on error. */
int ts_mg_coefficient_levels(ts_mesh mesh, int finest, int coarsest, int components,
                             const double *given, double **levels);
/** A_0^{-1} by LU of the assembled matrix of A (double, at most 8000 rows on the host, 16,000
 *  on a device backend, which applies the explicit inverse);
 *  with null_vector (host, A->n values) z, A is singular by z (A z = 0, A^T z = 0) and the
 *  inverse returns the solution x with z^T x = 0 of A x = b - (z^T b / z^T z) z
 *  (coarse-dense.c). */
int ts_mg_dense_inverse_create(ts_operator A, const double *null_vector, ts_operator *inverse);
/** The same for the square matrix M (on the host), the operator on backend. */
int ts_mg_dense_inverse_create_matrix(ts_backend backend, ts_matrix M, const double *null_vector,
                                      ts_operator *inverse);

/** What a V-cycle made from parts (ts_pc_create_multigrid) is made of, levels A[0] (coarsest)
 *  .. A[n-1]; the preconditioner owns it once made (jacobi-mg.c). */
#define TS_MG_PARTS_MAX_LEVELS 32
typedef struct ts_mg_parts {
  int n;
  ts_operator A[TS_MG_PARTS_MAX_LEVELS], P[TS_MG_PARTS_MAX_LEVELS]; /* P owned, A if below */
  ts_pc smoothers[TS_MG_PARTS_MAX_LEVELS];
  ts_operator coarse_inverse;
  ts_pc coarse;
  ts_pc coarse_start;           /* or NULL: full multigrid's first coarse solve
                                   (ts_pc_multigrid_set_coarse_start) */
  int owns_operators;           /* A made with the parts (else borrowed from a hierarchy) */
  ts_dofs dofs[TS_MG_PARTS_MAX_LEVELS]; /* the levels' DoFs where the parts made them */
  ts_fe fe[TS_MG_PARTS_MAX_LEVELS];     /* the degree levels' elements where the parts made
                                           them (freed after dofs) */
  /* mixed precision (A, P single; ts_pc_multigrid_set_outer): the levels' double operators
   * (borrowed) and prolongations (owned); outer_A[n - 1] NULL: none */
  ts_operator outer_A[TS_MG_PARTS_MAX_LEVELS], outer_P[TS_MG_PARTS_MAX_LEVELS];
} ts_mg_parts;
/** The coarse degree of a Q_k Poisson hierarchy's options (mg-laplace.c): coarse_degree, or
 *  for TS_MG_COARSE_DEGREE_AUTO Q1 on a coarse level of more than
 *  TS_MG_COARSE_DEGREE_AUTO_DOFS DoFs (mapped: TS_MG_COARSE_DENSE_DOFS) with an interior
 *  vertex, else k. */
int ts_mg_laplace_coarse_degree(ts_mesh mesh, int k, const ts_mg_options *o);
/** The degrees of the degree levels from k down to the coarse degree c, coarsest first: k
 *  halved (rounded down) while above c, the last step to c; returns their number. */
int ts_mg_degree_sequence(int k, int c, int *degrees);
/** Free the parts (a ts_pc_multigrid_adopt callback; NULL allowed). */
void ts_mg_parts_free(void *parts);
/** The coarse solve: the LU of the assembled A[0] (ts_mg_dense_inverse_create). */
int ts_mg_parts_coarse_lu(ts_mg_parts *parts);
/** The V-cycle of the parts with `steps` smoothing steps, which then owns them (mixed
 *  precision where outer_A is given); on failure the parts are freed and the error traced
 *  with `what`. */
int ts_mg_parts_vcycle(ts_mg_parts *parts, int steps, const char *what, ts_pc *pc);
/* ---------------------------------------------------------------- saddle-point hierarchies
 * (mg-saddle.c): what RT Stokes (mg-stokes.c) and Taylor-Hood (mg-taylor-hood.c) share */

/** The discretization data: the two elements (owned; mg->fe is velocity_fe). */
typedef struct ts_mg_saddle_data {
  ts_fe velocity_fe, pressure_fe;
} ts_mg_saddle_data;
/** The data owning velocity and pressure (also on failure, when they are destroyed). */
int ts_mg_saddle_data_create(ts_fe velocity, ts_fe pressure, ts_mg_saddle_data **data);
void ts_mg_saddle_data_destroy(void *data);
/** levels[i].dofs and .pressure_dofs from the data's elements. */
int ts_mg_saddle_create_dofs(ts_mg mg, int i);
/** A level's transfer block: the plan and its 1D prolongation matrices. */
typedef struct ts_mg_field_transfer {
  ts_field_transfer_plan plan;
  double storage[TS_FIELD_TRANSFER_STOKES_STORAGE > TS_FIELD_TRANSFER_TAYLOR_HOOD_STORAGE
                     ? TS_FIELD_TRANSFER_STOKES_STORAGE
                     : TS_FIELD_TRANSFER_TAYLOR_HOOD_STORAGE];
} ts_mg_field_transfer;
typedef int (*ts_mg_field_transfer_init)(ts_dofs coarse_u, ts_dofs coarse_p, ts_dofs fine_u,
                                         ts_dofs fine_p, ts_field_transfer_plan *plan,
                                         double *storage);
/** levels[i].transfer (a ts_mg_field_transfer) filled by init; its apply. */
int ts_mg_saddle_create_transfer(ts_mg mg, int i, ts_mg_field_transfer_init init);
int ts_mg_saddle_transfer_apply(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add);
/** TS_ERR_ARG naming `who` unless the coarse level has 2 cells in every direction and the
 *  options ask for the LU coarse solve (coarse_solver auto or dense). */
int ts_mg_saddle_check_coarse_level(ts_mesh mesh, const ts_mg_options *o, const char *who);
/** The exact coarse solve: A_0^{-1} bordered by the constant coarse pressure, by which alone
 *  A_0 is singular. */
int ts_mg_saddle_coarse_inverse(ts_mg mg, ts_operator A0, ts_operator *inverse);
/** The V-cycle output has zero pressure mean. */
int ts_mg_saddle_postprocess(ts_mg mg, ts_vec x);
/** TS_ERR_ARG naming `what` unless mg is a hierarchy and level one of its levels
 *  ts_mg_coarse_level + lowest .. finest (lowest = 1: a level with a coarser one below). */
int ts_mg_check_level(ts_mg mg, int level, const char *what, int lowest);
/** The velocity block of the Stokes transfer into hierarchy level i (the plan of its velocity
 *  fields, on velocity vectors), or TS_ERR_ARG naming `caller` if mg is no Stokes hierarchy. */
int ts_mg_stokes_velocity_plan(ts_mg mg, int i, const char *caller, ts_field_transfer_plan *plan);
/** The checks of ts_mg_create_stokes's arguments (mg-stokes.c). */
int ts_mg_stokes_check_options(ts_mesh mesh, int degree, int finest, const ts_mg_options *o);
/** The transfer between hierarchy levels i-1 and i (see ts_mg_discretization). */
int ts_mg_transfer(ts_mg mg, int i, int restrict_, ts_vec in, ts_vec out, int add);
/** The V-cycle (Algorithm 2.1) on hierarchy level i: improves levels[i].x for levels[i].b. */
int ts_mg_vcycle(ts_mg mg, int i);
/** x = A_0^{-1} b on the coarsest level (b and x of the coarse size, any precision), in
 *  double (a Krylov solver to a tight tolerance, or the discretization's coarse inverse). */
int ts_mg_coarse_solve(ts_mg mg, ts_vec b, ts_vec x);

#endif
