/* tessera-impl.h -- private definitions shared inside libtessera (not installed):
 * error recording, object layouts and the internal helpers of each lib/ folder.
 * doc/design.md describes the layers; "paper 000", "paper 002", ... in the comments of
 * lib/ are the papers listed in doc/references.md. */
#ifndef TESSERA_IMPL_H
#define TESSERA_IMPL_H

#include <stdarg.h>
#include <stdint.h>
#include "tessera.h"
#include "tessera/backend.h"

/* ---------------------------------------------------------------- core/error.c */

/** Record an error: "file:line: message" and return code. */
int ts_error_set(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define TS_ERROR(code, ...) ts_error_set((code), __FILE__, __LINE__, __VA_ARGS__)
/** Fail with TS_ERR_ARG unless cond holds. */
#define TS_CHECK_ARG(cond, ...)                                  \
  do {                                                           \
    if (!(cond)) return TS_ERROR(TS_ERR_ARG, __VA_ARGS__);       \
  } while (0)
/** Fail with TS_ERR_ARG naming the function and the argument if pointer argument arg is NULL. */
#define TS_CHECK_NOT_NULL(arg)                                                            \
  TS_CHECK_ARG((arg) != NULL, "%s: argument '%s' is NULL, a valid pointer is required",  \
               __func__, #arg)
/** In a getter (tessera.h, "Argument checks"): unless cond holds, record TS_ERR_ARG and return
 *  fallback (-1, NaN, "", NULL or an *_INVALID enum). */
#define TS_GETTER_CHECK(cond, fallback, ...)   \
  do {                                         \
    if (!(cond)) {                             \
      TS_ERROR(TS_ERR_ARG, __VA_ARGS__);       \
      return (fallback);                       \
    }                                          \
  } while (0)
/** ts_assemble_rhs, adding the seconds of its phases (right side, boundary values) to
 *  phase_seconds[TS_SETUP_PHASES]. */
int ts_assemble_rhs_timed(ts_operator A, ts_dofs dofs, const ts_solution *u, ts_vec b, ts_vec x0,
                          double *phase_seconds);
/** The Dirichlet lifting of a right side on the host (rhs-errors.c): x0 = xh (the boundary
 *  values, zero inside), then bh -= A_unconstrained x0 unless every value is zero
 *  (nonzero = 0), and bh = 0 on the boundary rows (they solve x_i = 0).  xh is overwritten. */
int ts_lift_dirichlet(ts_operator A, ts_dofs dofs, ts_vec x0, double *bh, double *xh, int nonzero);
/** The pieces of ts_assemble_rhs and ts_compute_errors for a block of a box (the distributed
 *  solve, lib/parallel/problem.c; rhs-errors.c).  Whether ts_assemble_rhs takes the
 *  separable path for u on dofs (rhs_factor, zero boundary values, the backend's vec_tensor): */
int ts_rhs_separable(ts_dofs dofs, const ts_solution *u, ts_backend backend);
/** b = the part of whole's separable right side on the block of n[d] DoFs from offset[d] per
 *  direction: the segments of whole's 1D load vectors, so the block has the one-process bits. */
int ts_assemble_rhs_separable_block(ts_dofs whole, const int64_t *offset, const int64_t *n,
                                    const ts_solution *u, ts_vec b);
/** b += the load vector (f, phi_i) of dofs' cells, on the host (no lifting, no constraints). */
int ts_assemble_load(ts_dofs dofs, const ts_solution *u, double *b);
/** The squared L2 and H1-seminorm errors over dofs' cells into sums[0], sums[1] (compensated). */
int ts_compute_error_sums(ts_dofs dofs, const double *values, const ts_solution *u,
                          double *sums);
/** The same pieces on mapped cells (lib/problem/rhs-mapped.c, for a block of a distributed
 *  mapped level): b += (f, phi_i) over dofs' cells on the host (no lifting, no constraints),
 *  and the squared errors of ts_compute_errors_mapped into sums[0], sums[1]. */
int ts_assemble_load_mapped(ts_dofs dofs, ts_point_fn f, void *ctx, double *b);
int ts_compute_error_sums_mapped(ts_dofs dofs, const double *values, ts_point_fn u,
                                 ts_point_fn grad_u, void *ctx, double *sums);
/** TS_CALL, adding the call's wall-clock seconds to *seconds (a setup phase's timer). */
#define TS_CALL_TIMED(seconds, expr)                                                 \
  do {                                                                               \
    const double ts_timed_t0_ = ts_wtime();                                          \
    int ts_call_ierr_ = (expr);                                                      \
    *(seconds) += ts_wtime() - ts_timed_t0_;                                         \
    if (ts_call_ierr_) return ts_error_trace(ts_call_ierr_, __FILE__, __LINE__, #expr); \
  } while (0)
/** In a getter: record TS_ERR_ARG and return fallback if handle is NULL. */
#define TS_GETTER_NOT_NULL(handle, fallback)                                            \
  TS_GETTER_CHECK((handle) != NULL, fallback,                                          \
                  "%s: argument '%s' is NULL, a valid handle is required", __func__, #handle)

/* ---------------------------------------------------------------- core/memory.c */

/** calloc that records a TS_ERR_MEMORY error naming what was allocated. */
int ts_calloc(size_t count, size_t size, const char *what, void *ptr_out);
/** Free *ptr and set it to NULL. */
void ts_free(void *ptr_address);
/** count * size, or an error if it overflows size_t. */
int ts_size_mul(size_t count, size_t size, const char *what, size_t *bytes);

/* ---------------------------------------------------------------- core/sum.c */

/** A compensated (Neumaier) sum: s plus the rounding errors c of its additions. */
typedef struct ts_sum {
  double s, c;
} ts_sum;
/** Add x to the sum. */
void ts_sum_add(ts_sum *sum, double x);
/** The compensated value s + c. */
double ts_sum_value(const ts_sum *sum);
/** The values (count of them) that fn computes for one cell. */
typedef void (*ts_cell_values_fn)(const void *ctx, int64_t cell, double *values);
#define TS_CELL_SUMS_MAX 4
/** sums[v] = sum over cells 0..cells-1 of fn's value v (count <= TS_CELL_SUMS_MAX), in OpenMP
 *  parallel blocks, compensated, and the same for any number of threads. */
int ts_cell_sums(int64_t cells, int count, ts_cell_values_fn fn, const void *ctx, double *sums);

/* ---------------------------------------------------------------- fe/tensor.c: 1D bases */

#define TS_BASIS_1D_MAX_Q (TS_MAX_DEGREE + 2)
/** The 1D ingredients of host quadrature on the reference interval [0,1]: the nq-point Gauss
 *  rule, and the Lagrange basis of a Q_k element (on its support points) and its derivative
 *  at those points (nq x n1, row = point). */
typedef struct ts_basis_1d {
  int n1, nq;
  double points[TS_BASIS_1D_MAX_Q], weights[TS_BASIS_1D_MAX_Q];
  double value[TS_BASIS_1D_MAX_Q * (TS_MAX_DEGREE + 1)];
  double derivative[TS_BASIS_1D_MAX_Q * (TS_MAX_DEGREE + 1)];
} ts_basis_1d;
/** b for the element of dofs and nq Gauss points (1..TS_BASIS_1D_MAX_Q). */
int ts_basis_1d_init(ts_dofs dofs, int nq, ts_basis_1d *b);
/** The coordinates x of quadrature point m (lexicographic, index 0 fastest) of the box cell
 *  `cell`; returns its weight |K| prod_d w_{m_d}. */
double ts_basis_1d_point(ts_dofs dofs, const ts_basis_1d *b, const int64_t *cell, int m,
                         double *x);
/** out = (F_{dim-1} (x) .. (x) F_0) in with F_d = factor[d] (nq x n1, b's value or
 *  derivative): a cell's n1^dim coefficients to its nq^dim points, or with transpose the
 *  points back to the coefficients (F_d^T). */
void ts_basis_1d_contract(int dim, const ts_basis_1d *b, const double *const *factor,
                          int transpose, const double *in, double *out);

/* ---------------------------------------------------------------- problem/solution.c */

/** sin(pi x) and cos(pi x) with the argument reduced exactly to [-1/2, 1/2]: exact zeros at
 *  the integers (sin) and half-integers (cos), a few ulp relative error elsewhere. */
double ts_sin_pi(double x);
double ts_cos_pi(double x);

/* ---------------------------------------------------------------- poly/ */

/** Gauss-Legendre rule with n points on [0,1] (1 <= n <= TS_MAX_POINTS). */
#define TS_MAX_POINTS 24
int ts_gauss_rule(int n, double *points, double *weights);
/** Gauss-Lobatto rule with n points on [0,1] (2 <= n <= TS_MAX_POINTS). */
int ts_gauss_lobatto_rule(int n, double *points, double *weights);
/** Values (and derivatives, if dvalues != NULL) at x of the n Lagrange polynomials on
 *  nodes[0..n-1]. */
void ts_lagrange_eval(int n, const double *nodes, double x, double *values, double *dvalues);
/** n_q x n matrices of the Lagrange basis values and derivatives at points (row = point). */
void ts_lagrange_tabulate(int n, const double *nodes, int n_q, const double *points,
                          double *values, double *derivatives);
/** 1D reference mass and stiffness matrices (n x n, row-major) of the Lagrange basis on
 *  nodes, on [0,1], by an n-point Gauss rule (exact for degree n-1), in long double: both
 *  symmetric, centro-symmetric when the nodes are symmetric about 1/2, and K 1 = 0 exactly
 *  (ts_exact_zero_rows; values and derivatives from ts_lagrange_eval sum to exactly 1 and
 *  0 the same way). */
int ts_lagrange_mass_stiffness(int n, const double *nodes, double *mass, double *stiffness);
/** Values at x of the n-1 histopolation polynomials of the n nodes (degree n-2, the integral
 *  of h_j over [nodes[i], nodes[i+1]] is delta_ij; paper 003, section 2.1), 2 <= n. */
void ts_histopolation_eval(int n, const double *nodes, double x, double *values);
/** n_q x (n-1) matrix of the histopolation basis values at points (row = point). */
void ts_histopolation_tabulate(int n, const double *nodes, int n_q, const double *points,
                               double *values);
/** The (n-1) x (n-1) mass matrix of the histopolation basis of the n nodes on [0,1]
 *  (row-major, symmetric): int h_i h_j. */
int ts_histopolation_mass(int n, const double *nodes, double *mass);

/* ---------------------------------------------------------------- poly/exact-sums.c */

/** The power of two g for which every multiple of g of magnitude <= bound is a double and
 *  every such multiple is at most 2^53 g (sums in integer units of g are exact). */
double ts_exact_grid(double bound);
/** Make the n entries of row sum to target exactly (in exact arithmetic): round them to the
 *  grid of twice the largest magnitude and set the largest to target minus the others. */
void ts_exact_row_sum(int n, double *row, double target);
/** Make the n x n matrix A symmetric with A 1 = 0 exactly: round the mean of A_ij and A_ji
 *  to the grid of bound (at least twice the largest entry; larger where sums of entries
 *  must stay exact) and set each diagonal entry to minus the sum of its row's others. */
void ts_exact_zero_rows(int n, double *A, double bound);
/** After ts_exact_zero_rows(n, A, bound): move multiples of its grid between diagonal and
 *  off-diagonal pairs (keeping A symmetric, centro-symmetric if it is, and A 1 = 0) so that
 *  x^T A x is as close to target as the grid allows (a stiffness matrix: the energy of the
 *  linear function x, whose error would act as a perturbed diffusion coefficient). */
void ts_exact_energy(int n, const double *x, double *A, double target, double bound);
/** max_i |a_i| */
double ts_max_abs(int count, const double *a);

/* ---------------------------------------------------------------- solve/solver.c */

/** TS_ERR_NOT_CONVERGED: `method` (CG, GMRES, full multigrid) cannot reach rtol because
 *  its true relative residual stopped improving at `attainable` by iteration `iteration`;
 *  the message names both and suggests a tolerance (doc/accuracy.md). */
int ts_error_unreachable(const char *method, int iteration, double rtol, double attainable);
/** The label of a Krylov method in messages and logs ("CG", "FGMRES"), "?" if unknown. */
const char *ts_solver_label(ts_solver_type type);
/** 1 if the Krylov method accepts TS_SIDE_LEFT, 0 if it takes its preconditioner from the
 *  right only (or the type is unknown). */
int ts_solver_takes_left_side(ts_solver_type type);

/* ---------------------------------------------------------------- backend.c */

struct ts_backend_s {
  char name[64];
  char label[96];               /* "'NAME' #i": the i-th backend opened in this process, so
                                   that messages tell two instances of one backend apart */
  char path[1300];              /* the module file (absolute) */
  void *module;                 /* dlopen handle */
  ts_backend_ops ops;
  char error[TS_BACKEND_ERROR_SIZE];
  char description[256];
};
/** Turn a backend failure (code from an ops call) into a recorded error naming the
 *  backend and the kernel. */
int ts_backend_error(ts_backend b, int code, const char *kernel, const char *file, int line);
/** Call ops->fn(&ops, ...) checking that it exists and recording failures. */
#define TS_BACKEND_CALL(b, fn, ...)                                                       \
  do {                                                                                    \
    if (!(b)->ops.fn)                                                                     \
      return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel '%s'", (b)->name, #fn); \
    (b)->error[0] = 0;                                                                    \
    int ts_backend_ierr_ = (b)->ops.fn(&(b)->ops, __VA_ARGS__);                           \
    if (ts_backend_ierr_)                                                                 \
      return ts_backend_error((b), ts_backend_ierr_, #fn, __FILE__, __LINE__);           \
  } while (0)

/* ---------------------------------------------------------------- backend kernels
 * (plan-check.c): the one way a plan reaches a backend kernel.  Each validates the plan
 * (TS_ERR_ARG naming the field otherwise), then calls the kernel as TS_BACKEND_CALL does. */

int ts_backend_laplace_apply(ts_backend b, const ts_laplace_plan *plan, ts_precision p,
                             const void *x, void *y, int add);
/* ABI 20 (the backend has laplace_apply_cells and side_join): y += A x over the cells
 * [lo, hi) of the unconstrained plan, on the side queue with side = 1; the later work waits
 * for the side queue's */
int ts_backend_laplace_apply_cells(ts_backend b, const ts_laplace_plan *plan, ts_precision p,
                                   const int64_t *lo, const int64_t *hi, const void *x, void *y,
                                   int side);
int ts_backend_side_join(ts_backend b);
int ts_backend_laplace_diagonal(ts_backend b, const ts_laplace_plan *plan, ts_precision p, void *d);
int ts_backend_transfer(ts_backend b, const ts_transfer_plan *plan, ts_precision p, int restrict_,
                        const void *in, void *out, int add);
int ts_backend_field_transfer(ts_backend b, const ts_field_transfer_plan *plan, ts_precision p,
                              int restrict_, const void *in, void *out, int add);
int ts_backend_patch_additive(ts_backend b, const ts_patch_additive_plan *plan, ts_precision p,
                              const void *r, void *y);
int ts_backend_patch_smooth(ts_backend b, const ts_patch_plan *plan, ts_precision p,
                            const void *rhs, void *x, void *r);
int ts_backend_vanka_apply(ts_backend b, const ts_vanka_plan *plan, ts_precision p,
                           const void *r, void *y);
int ts_backend_kronecker_apply(ts_backend b, const ts_kronecker_plan *plan, ts_precision p,
                               const void *x, void *y, int add);
int ts_backend_stokes_apply(ts_backend b, const ts_stokes_plan *plan, ts_precision p,
                            const void *x, void *y, int add);
int ts_backend_l2_mass_apply(ts_backend b, const ts_l2_mass_plan *plan, ts_precision p,
                             const void *x, void *y);
int ts_backend_hdiv_mass_apply(ts_backend b, const ts_hdiv_mass_plan *plan, ts_precision p,
                               const void *x, void *y, int add);
int ts_backend_stokes_patch_smooth(ts_backend b, const ts_stokes_patch_plan *plan, ts_precision p,
                                   const void *rhs, void *x, void *r);

/* ---------------------------------------------------------------- mesh/ */

struct ts_mesh_s {
  int dim;
  double lower[3], upper[3];    /* a mapped mesh: its reference box [0,1]^dim */
  int coarse[3];
  int levels;                   /* finest level index */
  /* mapped meshes (mapped.c): x = map(map_ctx, xi) on the reference box; NULL for a box */
  ts_point_fn map;
  void *map_ctx;                /* the user's, or this mesh for the built-in maps */
  ts_geometry geometry;
  double map_params[3];         /* the built-in maps' parameters */
  double *vertices;             /* ts_mesh_create_vertices: the level-0 vertices (owned) */
};

/** The extent upper - lower of a box in each direction: from TS_BOX_MIN_EXTENT to
 *  TS_BOX_MAX_EXTENT.  Then every cell size h (at most 2^31 coarse cells refined 30 times,
 *  so h >= 1e-60 / 2^61), 1/h and the operators' scale factors (products of up to three
 *  sizes and inverses, such as h_1 h_2 / h_0) are finite, normal doubles. */
#define TS_BOX_MIN_EXTENT 1e-60
#define TS_BOX_MAX_EXTENT 1e60
/** 1 if upper - lower is a number from TS_BOX_MIN_EXTENT to TS_BOX_MAX_EXTENT (box.c). */
int ts_box_extent_ok(double lower, double upper);

/** The geometry's nodes of a Q_k space on a mapped mesh (geometry.c): dofs->nodes sampled
 *  from the map, once per cell (a failing or non-finite map names the cell). */
int ts_geometry_nodes_init(ts_dofs dofs);
/** The same for DoFs on a block of a larger mapped level (the distributed DoFs,
 *  lib/parallel/dofs.c): cell c of dofs is cell first_cell + c of the reference grid of
 *  spacing dofs->h from lower (the whole mesh's), so the map is called at the reference
 *  points of the whole level, bit for bit. */
int ts_geometry_nodes_init_block(ts_dofs dofs, const double *lower, const int64_t *first_cell);
/** TS_ERR_ARG naming `what` unless the DoFs' mesh is mapped (need = 1) or a box (need = 0):
 *  the box tools (Laplacian, ts_assemble_rhs, ...) and the mapped ones each take their own. */
int ts_dofs_require_mapped(ts_dofs dofs, int need, const char *what);
/** The first failure of a parallel loop over cells: the smallest failing cell's code and
 *  message are kept (so that the report does not depend on the threads). */
typedef struct ts_cell_failure {
  int64_t cell;                 /* INT64_MAX: none */
  int code;
  char message[512];
} ts_cell_failure;
void ts_cell_failure_init(ts_cell_failure *f);
/** Record a failure of `cell` (thread-safe); the message is formatted only if it is kept. */
void ts_cell_failure_set(ts_cell_failure *f, int64_t cell, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** 0, or the kept failure recorded as this thread's error, with the prefix `what`. */
int ts_cell_failure_report(const ts_cell_failure *f, const char *what);
/** "cell (c0, c1[, c2]) of level L" for the cell of a linear index, into buf. */
void ts_cell_name(ts_dofs dofs, int64_t cell, char *buf, size_t len);
/** Geometry at the points of a tensor rule on one cell: the physical points x[q dim + i] (x
 *  may be NULL) and the Jacobians J[(q dim + i) dim + d] = dx_i / dxi_d with respect to the
 *  reference cell [0,1]^dim, from the cell's nodes and the 1D tables of the Q_k basis at
 *  the n_q points (shape, grad: n_q x (k+1), row-major). */
void ts_cell_geometry(ts_dofs dofs, int64_t cell, int n_q, const double *shape, const double *grad,
                      double *x, double *J);
/** out = (tables[dim-1] (x) .. (x) tables[0]) in: n1^dim cell values to the n_q^dim points
 *  of a tensor rule, tables[d] n_q x n1 (row-major; basis values or derivatives). */
void ts_tensor_to_points(int dim, int n1, int n_q, const double *const *tables, const double *in,
                         double *out);
/** Geometry on the face xi_normal = side (0 or 1) of a cell at the tensor rule of n_q points
 *  per tangential direction (shape, grad: n_q x (k+1), the 1D Q_k tables there): the points
 *  x[q dim + i] and the tangents T[(q (dim-1) + t) dim + i] = dx_i / dxi_{e_t} (e_0 < e_1 the
 *  tangential directions), q = q_0 + n_q q_1.  They depend on the face's nodes only, which the
 *  cells that share the face share. */
void ts_face_geometry(ts_dofs dofs, int64_t cell, int normal, int side, int n_q, const double *shape,
                      const double *grad, double *x, double *T);
/** fn at the n points x (per_point values each into values) for `cell`: 1 when it returns 0
 *  with finite values; else 0 with the failure recorded, naming the callback (`what`), the
 *  cell, and the value and point that is not finite. */
int ts_call_point_fn(ts_point_fn fn, void *ctx, ts_dofs dofs, int64_t cell, const char *what,
                     int64_t n, int per_point, const double *x, double *values,
                     ts_cell_failure *failure);
/** det J and J^{-1} (row-major, dim x dim) of a Jacobian. */
double ts_jacobian_inverse(int dim, const double *J, double *inverse);
/** The Q_g DoFs whose nodes are the cells' geometry on a mapped mesh, for the masses of the
 *  discontinuous and H(div) elements (lib/op/l2-mass.c, hdiv-mass.c), which have no nodes of
 *  their own: g = 1 for multilinear cells, max(k, 1) for curved ones (TS_GEOMETRY_QK,
 *  isoparametric as the Q_k operator); *fe is the Q_g element (the caller destroys both). */
int ts_mass_geometry_dofs(ts_dofs dofs, ts_fe *fe, ts_dofs *geometry);
/** The exact diagonal of the matrix-free masses on the host (dofs->count values into diag),
 *  the coefficient per cell (NULL: 1; an inverted cell is refused by name): M_beta of RT_k
 *  (lib/op/hdiv-mass.c, the operator's own diagonal) and W_alpha of DGQ_k (lib/op/l2-mass.c),
 *  on a box or a mapped level; for S~ on deformed cells (lib/sparse/hdiv-schur.c). */
int ts_hdiv_mass_host_diagonal(ts_dofs dofs, const double *beta, double *diag);
int ts_l2_mass_host_diagonal(ts_dofs dofs, const double *alpha, double *diag);

/* ---------------------------------------------------------------- fe/ */

struct ts_fe_s {
  ts_fe_family family;
  int dim, degree;
  double points[TS_MAX_DEGREE + 1];  /* 1D support points on [0,1]: Q_k Gauss-Lobatto (k+1);
                                        DGQ_k and RT_k's tangential directions Gauss (k+1) */
  double normal_points[TS_MAX_DEGREE + 2]; /* RT_k only: the k+2 Gauss-Lobatto points of a
                                              component's own direction */
};

/* ---------------------------------------------------------------- dof/ */

struct ts_dofs_s {
  ts_mesh mesh;                 /* borrowed */
  ts_fe fe;                     /* borrowed */
  int level, dim, degree;
  int64_t cells[3];             /* per direction, 1 beyond dim */
  int64_t n[3];                 /* DoFs per direction, 1 beyond dim */
  int64_t count;
  double h[3], lower[3];
  /* per component (Q_k, DGQ_k: one; RT_k: dim), doc/stokes.md section 2: DoFs per
   * direction and first index of each component's block (comp_offset[components] = count) */
  int components;
  int64_t comp_n[3][3];
  int64_t comp_offset[4];
  /* a mapped mesh (lib/mesh/geometry.c): the geometry's nodes, the mapped point of every
   * DoF (dim coordinates each: point i at nodes[i dim]), NULL on a box */
  double *nodes;
  unsigned neumann_faces;       /* TS_FACE_* bits (ts_dofs_set_neumann_faces); 0: all Dirichlet */
};
/** TS_ERR_ARG naming `what` unless the DoFs are of a Q_k element (for the Q_k-only tools:
 *  ts_cell_dof_indices and its users, the Laplacian, right sides, errors, output). */
int ts_dofs_require_q(ts_dofs dofs, const char *what);
/** The Schur block of the H(div) preconditioners (lib/pc/schur-block.c): z = scale P r
 *  (inner P borrowed; scale 1 or -1), then z -= mean(z) when orthogonalize. */
int ts_pc_create_schur_block(ts_pc inner, double scale, int orthogonalize, ts_pc *pc);
/** The component block of DoF index and its position (a_0, a_1, a_2) within the block. */
int ts_dof_position(ts_dofs dofs, int64_t index, int64_t *a);
/** The face (one TS_FACE_* bit) of a boundary flux DoF of RT_k (ts_dofs_is_boundary), 0 for
 *  the other DoFs. */
unsigned ts_dofs_flux_face(ts_dofs dofs, int64_t index);
/** TS_ERR_ARG naming fn, the argument `name` and its value unless faces is a set of the
 *  TS_FACE_* bits of a box of dimension dim (dofs.c). */
int ts_check_faces(const char *fn, const char *name, int dim, unsigned faces);
/** The names of the box's faces in the order of their TS_FACE_* bits (dofs.c). */
extern const char *const ts_face_names[6];

/* ---------------------------------------------------------------- poly/stokes-1d.c */

#define TS_STOKES_MAX_DEGREE (TS_MAX_DEGREE - 1)
#define TS_STOKES_N1 (TS_MAX_DEGREE + 1)   /* max k+1 */
#define TS_STOKES_N2 (TS_MAX_DEGREE + 2)   /* max k+2 */
/** The reference 1D ingredients of RT_k x DGQ_k on [0,1] (doc/stokes.md, section 4),
 *  row-major with the leading dimensions of the actual degree (k+2 or k+1). */
typedef struct ts_stokes_1d {
  int degree;
  double penalty;                                   /* eta */
  double lobatto[TS_STOKES_N2], gauss[TS_STOKES_N1], gauss_weights[TS_STOKES_N1];
  double continuous_mass[TS_STOKES_N2 * TS_STOKES_N2];
  double continuous_stiffness[TS_STOKES_N2 * TS_STOKES_N2];
  double dg_mass[TS_STOKES_N1];
  double dg_stiffness[TS_STOKES_N1 * TS_STOKES_N1]; /* int psi_a' psi_b' (cell part of SIPG) */
  double sipg_diag[4][TS_STOKES_N1 * TS_STOKES_N1];
  double sipg_upper[TS_STOKES_N1 * TS_STOKES_N1];
  double divergence[TS_STOKES_N1 * TS_STOKES_N2];
} ts_stokes_1d;
/** Compute the 1D ingredients of degree k (0..TS_STOKES_MAX_DEGREE) with penalty factor eta
 *  (> 0). */
int ts_stokes_1d_init(int degree, double eta, ts_stokes_1d *m);

/* ---------------------------------------------------------------- fe/tensor.c */

#define TS_MAX_CELL_DOFS ((TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1))
/** Contract a dim-dimensional array (index 0 fastest) with a 1D matrix B in direction dir:
 *  out[.., r, ..] = sum_j B[r][j] in[.., j, ..] (B is rows x shape[dir]; with transpose,
 *  B is shape[dir] x rows and B^T is applied). */
void ts_tensor_contract(int dim, const int *shape, int dir, const double *B, int rows,
                        int transpose, const double *in, double *out);
/** Global indices of a cell's (k+1)^dim DoFs of a Q_k space (callers check with
 *  ts_dofs_require_q), lexicographic within the cell. */
void ts_cell_dof_indices(ts_dofs dofs, const int64_t *cell, int64_t *indices);
/** Number of cells of the level, and the cell of a linear cell index (index 0 fastest). */
int64_t ts_cell_count(ts_dofs dofs);
void ts_cell_from_index(ts_dofs dofs, int64_t index, int64_t *cell);
/** fn(ctx, cell) for every cell of the level, in parallel and race-free for writes to the
 *  cells' DoFs: the layers of cells along the last direction, first the even ones, then the
 *  odd ones (two layers of one parity share no DoF), each layer's cells in order on one
 *  thread, so that every DoF receives its cells' writes in an order independent of the
 *  number of threads. */
typedef void (*ts_cell_fn)(void *ctx, int64_t cell);
void ts_cell_layers_for(ts_dofs dofs, ts_cell_fn fn, void *ctx);

/* ---------------------------------------------------------------- vector layouts (vec-layout.c) */

/* Which entries of a vector this process holds (doc/design.md, "Vector layouts"); today
 * serial: all n of n on one process. */
struct ts_layout_s {
  int64_t global_size;          /* entries over all processes */
  int64_t begin, end;           /* the entries this process owns: [begin, end) */
  int processes;
  int standalone;               /* 1: from ts_layout_create_serial (ts_layout_destroy frees it);
                                   0: part of a vector (freed with it) */
  /* the distributed DoFs of a vector of lib/parallel (its entries: the block's owned and
   * ghost DoFs); NULL: serial */
  struct ts_parallel_dofs_s *dist;
};
/** Fill *l as the serial layout of n entries of a vector: [0, n) of n, one process. */
void ts_layout_serial_init(struct ts_layout_s *l, int64_t n);

/* ---------------------------------------------------------------- vectors */

struct ts_vec_s {
  ts_backend backend;           /* borrowed */
  int64_t n;                    /* the local entries: layout.end - layout.begin, and the
                                   ghosts of a distributed vector (layout.dist) */
  ts_precision precision;
  void *data;                   /* backend memory */
  int is_view;                  /* 1: data lies in another vector's memory (not freed) */
  struct ts_layout_s layout;    /* ts_vec_layout; a view's is that of its n entries */
};

/** Make *view a view of entries offset .. offset+n-1 of x in place (no allocation: for
 *  views that live on the stack for one operation); the caller checks the range. */
void ts_vec_view_init(struct ts_vec_s *view, ts_vec x, int64_t offset, int64_t n);
/** A new vector of zeros like x: its backend, size, precision and layout (distributed or not). */
int ts_vec_create_like(ts_vec x, ts_vec *y);
/** The distributed forms of ts_vec_dot and ts_vec_set_random (lib/parallel/dofs.c): the
 *  vectors' layout has `dist`. */
int ts_parallel_dot(ts_vec x, ts_vec y, double *result);
int ts_parallel_random(ts_vec v, uint64_t seed);

/* ---------------------------------------------------------------- operators */

/** The implementation table of an operator type. */
/* A saddle-point operator Acal = [A B^T; -B 0] on x = [velocity; pressure] (the RT Stokes
 * operator, lib/op/stokes.c; Taylor-Hood, lib/op/taylor-hood.c): what the Stokes helpers
 * (ts_stokes_pressure_mean*, ts_operator_create_stokes_block and _symmetric,
 * ts_pc_create_pressure_mass) need of it.  The operator owns the vectors. */
typedef struct ts_saddle {
  int64_t velocity_count, pressure_count; /* the pressure block is the last pressure_count */
  ts_vec mean_weights;        /* the pressure mean: its weights (0 on the velocity) */
  ts_vec pressure_indicator;  /* 1 on the pressure, 0 on the velocity */
  /* diag(A) (velocity_count entries) */
  int (*velocity_diagonal)(ts_operator op, ts_vec d);
  /* the pressure mass matrix M_p if diagonal, else a diagonal spectrally equivalent to it
   * (pressure_count entries): what the pressure mass preconditioner inverts */
  int (*pressure_mass_diagonal)(ts_operator op, ts_vec d);
  /* optional: y (+)= Acal_{row,col} x from the operator's parts (x and y of the blocks'
   * sizes); NULL: a block applies the whole operator to its input padded with zeros */
  int (*apply_block)(ts_operator op, int row, int col, ts_vec x, ts_vec y, int add);
} ts_saddle;

typedef struct ts_operator_ops {
  const char *name;
  int (*apply)(ts_operator op, ts_vec x, ts_vec y, int add);
  int (*apply_unconstrained)(ts_operator op, ts_vec x, ts_vec y);
  int (*diagonal)(ts_operator op, ts_vec d);
  double (*flops)(ts_operator op);
  void (*destroy)(ts_operator op);
  /* optional: y (+)= A^T x (x: rows entries, y: columns entries); a symmetric operator
   * names its apply (ts_operator_create_transpose, lib/op/combine.c) */
  int (*apply_transpose)(ts_operator op, ts_vec x, ts_vec y, int add);
  /* optional: a saddle-point operator's description (ts_saddle_of) */
  const ts_saddle *(*saddle)(ts_operator op);
  /* optional: the CSR matrix of what apply computes, built from the operator's 1D or cell
   * matrices (ts_operator_assemble) */
  int (*assemble)(ts_operator op, ts_matrix *A);
} ts_operator_ops;

struct ts_operator_s {
  const ts_operator_ops *ops;
  ts_backend backend;           /* borrowed */
  int64_t n;                    /* rows: entries of the output */
  int64_t cols;                 /* entries of the input (= n for a square operator) */
  ts_precision precision;
  void *data;                   /* owned by the implementation */
  /* the layout of its vectors when they are distributed (lib/parallel), borrowed; NULL:
   * serial.  ts_operator_vec_create makes vectors of it. */
  const struct ts_layout_s *layout;
};
/** A new vector of zeros that fits op's output (rows), distributed like op's vectors. */
int ts_operator_vec_create(ts_operator op, ts_vec *v);

/** Allocate an operator shell; ops->destroy frees data. */
int ts_operator_create_shell(ts_backend backend, const ts_operator_ops *ops, int64_t n,
                             ts_precision p, void *data, ts_operator *op);
/** The same for an operator of `rows` outputs and `cols` inputs (rows != cols: a
 *  rectangular block such as B of a saddle-point system). */
int ts_operator_create_shell_rect(ts_backend backend, const ts_operator_ops *ops, int64_t rows,
                                  int64_t cols, ts_precision p, void *data, ts_operator *op);
/** ts_operator_create_matrix with a transpose (apply_transpose by a second backend copy, of
 *  A^T): the prolongations of algebraic multigrid (lib/mg/amg.c), restricted by it. */
int ts_operator_create_matrix_transposable(ts_backend backend, ts_matrix A, ts_precision p,
                                           ts_operator *op);
/** Check that x and y fit op (size, backend, precision) and say which does not. */
int ts_operator_check_vectors(ts_operator op, ts_vec x, ts_vec y);
/** y (+)= A x, or A^T x with transpose (A->ops->apply_transpose, which the caller knows to
 *  exist), without checks: for operators made of other operators (block.c, combine.c). */
int ts_operator_apply_part(ts_operator a, int transpose, ts_vec x, ts_vec y, int add);

/* ---------------------------------------------------------------- operators: Kronecker */

/** The weighted Jacobi operator weight diag(A)^{-1} (ts_operator_create_jacobi is weight 1),
 *  weight in (0, 2]. */
int ts_operator_create_jacobi_weighted(ts_operator A, double weight, ts_operator *jacobi);

/** A banded 1D factor of a Kronecker product (ts_kronecker_plan): rows x cols, row r's
 *  values at the columns (r / row_step - 1) col_step + w, w < 2 col_step + 1, in values
 *  (host, rows (2 col_step + 1) doubles, row by row; zero outside the matrix). */
typedef struct ts_band_1d {
  int64_t rows, cols;
  int row_step, col_step;
  const double *values;
} ts_band_1d;
/** The operator scale (F_{dim-1} (x) .. (x) F_0) from dim banded factors, applied by the
 *  backend's kronecker_apply (lib/op/kronecker.c); the values are copied. */
int ts_operator_create_kronecker(ts_backend backend, int dim, const ts_band_1d *factors,
                                 double scale, ts_precision p, ts_operator *op);

/* ---------------------------------------------------------------- operators: laplace */

/** Fill a Laplacian plan for a DoF handler (the 1D matrices live in storage, 2 (k+1)^2
 *  doubles that must outlive the plan). */
int ts_laplace_plan_init(ts_dofs dofs, ts_laplace_plan *plan, double *storage);
/** The flops the backends count for one application of the plan (lib/op/laplace.c). */
double ts_laplace_plan_flops(const ts_laplace_plan *plan);
/** The CSR matrix of a Laplacian plan (lib/sparse/assemble-laplace.c). */
int ts_matrix_assemble_laplace_plan(const ts_laplace_plan *plan, ts_matrix *A);
/** The CSR matrix of a Stokes plan, constrained rows and columns those of the identity
 *  (lib/sparse/assemble-stokes.c). */
int ts_matrix_assemble_stokes_plan(const ts_stokes_plan *plan, ts_matrix *A);
/** s F[dim-1] (x) .. (x) F[0] (dim = 2 or 3; direction 0, the last factor, fastest: a
 *  tensor-product operator's matrix from its 1D factors; lib/sparse/algebra.c). */
int ts_matrix_kronecker_chain(int dim, const ts_matrix *F, double s, ts_matrix *out);
/** factor times the block of A at rows row0..row0+rows-1 and columns col0..col0+cols-1 (a new
 *  matrix; lib/sparse/algebra.c). */
int ts_matrix_extract_block(ts_matrix A, int64_t row0, int64_t rows, int64_t col0,
                            int64_t cols, double factor, ts_matrix *B);

/* ---------------------------------------------------------------- operators: mapped cells */

/** The DoFs of an operator of ts_operator_create_mapped (borrowed), or TS_ERR_ARG naming
 *  `caller` if A is another operator. */
int ts_operator_mapped_dofs(ts_operator A, const char *caller, ts_dofs *dofs);
/** Per cell of a mapped operator (host memory, A's): dim + 1 values, the sums over the cell's
 *  points of the diagonal geometric factors G_dd,q (d < dim) and of m_q (0 without c): the
 *  cell integrals of det J (J^{-1} kappa J^{-T})_dd and of det J c on [0,1]^dim.
 *  TS_ERR_ARG naming `caller` if A is another operator. */
int ts_operator_mapped_cell_sums(ts_operator A, const char *caller, const double **sums);
/** 1 if A is a mapped operator whose constants are its null space: every face Neumann and
 *  c = 0 (a pure Neumann problem), else 0. */
int ts_operator_mapped_singular(ts_operator A);
/** mask_i = 0 on the Dirichlet DoFs (ts_dofs_is_dirichlet), 1 elsewhere: a new vector of
 *  precision p on the backend. */
int ts_dofs_dirichlet_mask(ts_dofs dofs, ts_backend backend, ts_precision p, ts_vec *mask);
/** coarse[c] = the mean over the 2^dim children of coarse cell c of fine (components values
 *  per cell; fine_cells: the fine level's cells per direction, even) (mesh/cell-values.c). */
void ts_cell_values_coarsen(int dim, const int64_t *fine_cells, int components, const double *fine,
                            double *coarse);

/* ---------------------------------------------------------------- operators: stokes */

/** Fill a Stokes plan (doc/stokes.md section 4) for velocity RT_k and pressure DGQ_k of the
 *  same degree on one level, penalty factor eta > 0; the 1D matrices live in storage, which
 *  must outlive the plan. */
int ts_stokes_plan_init(ts_dofs velocity, ts_dofs pressure, double penalty, ts_stokes_plan *plan,
                        ts_stokes_1d *storage);
/** The plan of a Stokes operator (borrowed), for tests and backend checks. */
int ts_operator_stokes_plan(ts_operator op, const ts_stokes_plan **plan);
/** The saddle-point description of a Stokes operator (RT or Taylor-Hood), or TS_ERR_ARG
 *  naming `caller` if stokes is not one. */
int ts_saddle_of(ts_operator stokes, const char *caller, const ts_saddle **saddle);
/** The smoother's name as in problem files ("vanka", ..; lib/mg/mg.c). */
const char *ts_mg_smoother_word(ts_mg_smoother_type type);
/* the name of a coarse solver ("auto", "dense", "cg", "amg"; "?" for another value) */
const char *ts_mg_coarse_solver_word(ts_mg_coarse_solver solver);
/** 1 for the relaxations of the Taylor-Hood saddle-point system (vanka, braess-sarazin,
 *  schur-uzawa), 0 for the Q_k smoothers. */
int ts_mg_smoother_is_saddle(ts_mg_smoother_type type);
/** The parameters a Taylor-Hood relaxation of this type uses for degree k
 *  (lib/mg/saddle-relaxation.c): its defaults (multiplicative Vanka:
 *  TS_VANKA_MULTIPLICATIVE_WEIGHT), overlaid by the non-zero fields of given (NULL: none);
 *  TS_ERR_ARG for a type that is no relaxation. */
int ts_saddle_relaxation_resolve(ts_mg_smoother_type type, int degree,
                                 const ts_saddle_relaxation *given, ts_saddle_relaxation *r);
/** The layout of a Taylor-Hood operator's level (lib/op/taylor-hood.c). */
typedef struct ts_taylor_hood_layout {
  int dim, degree;              /* degree: k of the velocity Q_k */
  int64_t cells[3];             /* per direction (1 beyond dim) */
  int64_t n_u[3], n_p[3];       /* velocity and pressure nodes per direction (1 beyond dim) */
  int64_t n_velocity, n_pressure; /* DoFs of one velocity component, of the pressure */
} ts_taylor_hood_layout;
/** The layout of a Taylor-Hood operator, or TS_ERR_ARG naming `caller` if op is another. */
int ts_taylor_hood_layout_of(ts_operator op, const char *caller, ts_taylor_hood_layout *layout);
/** Q2 x Q1: the matrix V Acal V^T of the patch of pressure vertex `vertex` (per direction) in
 *  the local numbering of ts_vanka_plan (patch_size^2 values, row-major; entries of the
 *  assembled operator, so the patch's outer nodes carry the couplings of the cells beyond
 *  it), with the rows and columns of velocity nodes outside the mesh or on the boundary
 *  zero; active[i] = 1 for the other local DoFs, 0 for these. */
int ts_taylor_hood_vertex_patch(ts_operator op, const int64_t *vertex, double *matrix,
                                int *active);
/** s_q = sum_c sum_i (D_c)_{q,i}^2 w_{c,i} over the interior velocity DoFs: the diagonal of
 *  B diag(w) B^T (host arrays: w of the velocity's, s of the pressure's size). */
int ts_taylor_hood_schur_diagonal(ts_operator op, const double *w, double *s);
/** The number of pressure DoFs of a Stokes operator, or TS_ERR_ARG naming `caller` if stokes
 *  is not one. */
int ts_stokes_pressure_count(ts_operator stokes, const char *caller, int64_t *count);
/** The diagonal of the pressure mass matrix M_p, or of its lumped form where M_p is not
 *  diagonal (Taylor-Hood) (d: the pressure DoFs' entries). */
int ts_stokes_pressure_mass_diagonal(ts_operator stokes, ts_vec d);
/** The tensor Gauss weight prod_d w_{a_d} of pressure DoF `local` (its index within the
 *  pressure block) of the RT Stokes operator (ts_operator_create_stokes; unchecked). */
double ts_stokes_pressure_weight(ts_operator stokes, int64_t local);
/** diag(A) of the RT Stokes operator from its Kronecker form (lib/op/stokes-blocks.c). */
int ts_stokes_rt_velocity_diagonal(ts_operator stokes, ts_vec d);

/* ---------------------------------------------------------------- mg/smoother.c */

/** The implementation table of a smoother type. */
typedef struct ts_smoother_ops {
  const char *name;
  int (*apply)(ts_smoother s, ts_vec b, ts_vec x); /* one step x <- S(x, b) */
  void (*destroy)(ts_smoother s);                 /* frees data */
  /* optional: x = S(0, b), one step from a zero initial guess without reading x (what
     ts_pc_create_smoother applies; the distributed vertex patches then skip the copy and
     the exchange of x) */
  int (*apply_zero)(ts_smoother s, ts_vec b, ts_vec x);
} ts_smoother_ops;

struct ts_smoother_s {
  const ts_smoother_ops *ops;
  ts_operator A;                /* borrowed */
  void *data;                   /* owned by the implementation */
};

/** Allocate a smoother shell for A; ops->destroy frees data. */
int ts_smoother_create_shell(ts_operator A, const ts_smoother_ops *ops, void *data,
                             ts_smoother *smoother);

/* ---------------------------------------------------------------- vertex-patch smoother
 * (poly/eigen.c, mesh/patch.c, mg/patch-fdm.c, mg/vertex-patch.c) */

/** Generalized eigenproblem K S = M S diag(lambda) of symmetric n x n matrices (M positive
 *  definite) by LAPACK dsygv: S row-major, entry (i, j) component i of eigenvector j,
 *  S^T M S = I, eigenvalues ascending. */
int ts_generalized_eigen(int n, const double *K, const double *M, double *S, double *lambda);
/** The same for n <= 21 by the cyclic Jacobi method (poly/eigen.c): no allocation, no BLAS,
 *  for the many small problems solved from OpenMP threads at once. */
int ts_generalized_eigen_small(int n, const double *K, const double *M, double *S, double *lambda);
/** Assemble the n x n cell matrix over `cells` consecutive 1D cells sharing end DoFs into
 *  out (N x N, N = cells (n - 1) + 1, row-major). */
void ts_matrix_1d_assemble(int cells, int n, const double *cell, double *out);

/** Number of colors of the vertex patches: 2^dim. */
int ts_vertex_patch_color_count(int dim);
/** Number of vertex patches (interior vertices) of a level with cells[d] cells. */
int64_t ts_vertex_patch_count(int dim, const int64_t *cells);
/** The interior vertices of one color: v_d = first[d] + stride j_d, j_d < count[d]
 *  (first 0 and count 1 beyond dim). */
int ts_vertex_patch_color(int dim, const int64_t *cells, int color, int64_t *first,
                          int64_t *count, int *stride);

/** A local solver of the vertex-patch smoother: from the plan's 1D patch matrices it
 *  prepares the plan's local-solver fields (plan->solver and its data, kept in storage of
 *  storage_doubles(plan) doubles owned by the caller), and it can apply A_j^{-1} on the host
 *  (a reference for tests and other backends).  The Laplacian uses fast diagonalization;
 *  other problems (Stokes: Schur complement) add their own. */
typedef struct ts_patch_local_solver {
  const char *name;
  size_t (*storage_doubles)(const ts_patch_plan *plan);
  int (*setup)(ts_patch_plan *plan, double *storage);
  /* t = A_j^{-1} r on the m^dim interior DoFs of one patch (lexicographic) */
  int (*apply_host)(const ts_patch_plan *plan, const double *r, double *t);
} ts_patch_local_solver;
/** Fast diagonalization (paper 002, eq. 2.13-2.15). */
extern const ts_patch_local_solver ts_patch_solver_fdm;
/** The multiplicative vertex-patch sweep on the box of `dofs` (vertex-patch.c): the plan of
 *  ts_smoother_create_vertex_patch, its local solver and work vector, for smoothers that
 *  run the colors themselves (the distributed one, lib/parallel/patch.c).  With
 *  `constrained` the box's boundary DoFs are read as zero; without, they are read. */
typedef struct ts_vertex_patch_sweep_s *ts_vertex_patch_sweep;
int ts_vertex_patch_sweep_create(ts_backend backend, ts_dofs dofs, ts_precision precision,
                                 ts_patch_variant variant, int constrained,
                                 ts_vertex_patch_sweep *sweep);
/** The patches of one color: x += R_j^T A_j^{-1} R_j (b - A x) for each, in parallel
 *  (Fused: one kernel; Separate: the residuals, then the solves). */
int ts_vertex_patch_sweep_color(ts_vertex_patch_sweep sweep, int color, ts_vec b, ts_vec x);
void ts_vertex_patch_sweep_destroy(ts_vertex_patch_sweep *sweep);
/** The checks of a vertex-patch smoother's variant, element, degree and backend, the
 *  errors naming `caller`. */
int ts_vertex_patch_check(ts_operator A, ts_dofs dofs, ts_patch_variant variant,
                          const char *caller);
/** The plan of a vertex-patch smoother (borrowed): geometry, 1D matrices and local-solver
 *  data; the color and stage fields are filled per kernel call.  For tests and backend
 *  checks. */
int ts_vertex_patch_plan(ts_smoother s, const ts_patch_plan **plan);

/* ---------------------------------------------------------------- Stokes vertex patches
 * (mg/stokes-patch.c: plan and local matrix; mg/stokes-patch-solve.c: local solvers;
 * mg/stokes-smoother.c: the smoother object), doc/stokes.md section 7 */

/** Fill a Stokes patch plan for the level of `global` (copied; its 1D pointers must outlive
 *  the plan) with the given local solver: 1D patch matrices, eigen-decompositions or
 *  pseudo-inverses in *storage (allocated here, freed by the caller with ts_free).  The
 *  color, vertices and stage are set per kernel call. */
int ts_stokes_patch_plan_init(const ts_stokes_plan *global, ts_stokes_patch_solver solver,
                              ts_stokes_patch_plan *plan, double **storage);
/** The boundary kind of the patch of `vertex` per direction (ts_stokes_patch_plan) and the
 *  patch kind sum_d kinds[d] 4^d (the return value). */
int ts_stokes_patch_kinds(const ts_stokes_patch_plan *plan, const int64_t *vertex, int *kinds);
/** Global indices of the n_local DoFs of the patch of `vertex`, in the local order. */
void ts_stokes_patch_indices(const ts_stokes_patch_plan *plan, const int64_t *vertex,
                             int64_t *indices);
/** y = Acal_j x on the local DoFs of a patch of the given kinds (the Kronecker form). */
int ts_stokes_patch_local_apply(const ts_stokes_patch_plan *plan, const int *kinds,
                                const double *x, double *y);
/** t = Acal_j^{+} r by the plan's local solver on the host (the reference of the kernels). */
int ts_stokes_patch_local_solve(const ts_stokes_patch_plan *plan, const int *kinds,
                                const double *r, double *t);
/** Prepare the plan's local-solver data (mg/stokes-patch-solve.c): solver_doubles says how
 *  many doubles setup needs (or that the solver does not fit: the direct one is limited to
 *  2D k <= 4 and 3D k <= 1), setup fills the plan's solver fields from its 1D matrices. */
int ts_stokes_patch_solver_doubles(const ts_stokes_patch_plan *plan, size_t *count);
int ts_stokes_patch_solver_setup(ts_stokes_patch_plan *plan, double *storage);
/** The plan of a Stokes vertex-patch smoother (borrowed), for tests and backend checks. */
int ts_stokes_patch_smoother_plan(ts_smoother s, const ts_stokes_patch_plan **plan);

#endif
