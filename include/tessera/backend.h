/* tessera/backend.h -- the interface between the core library and a compute backend.
 *
 * For backend authors only.  A backend is a loadable module (libtool -module) exporting
 *
 *     TS_BACKEND_DEFINE_ABI;   (the constant tessera_backend_abi: ABI version, table size)
 *     int tessera_backend_register(ts_backend_ops *ops);
 *
 * The register function fills the table below by direct member assignment and returns 0.
 * The loader reads tessera_backend_abi first and calls nothing in a module built for
 * another ABI; after registration it checks that the table says the same
 * (ops->abi_version, ops->struct_size) and that every required member (memory and vector
 * operations, marked "required" below) is set, and refuses the module otherwise, naming the
 * file and the missing members.  The other members are optional: the life cycle functions
 * are called when present; a kernel the backend lacks stays NULL and asking for it fails
 * with a message naming backend and kernel.  Functions return 0 on success; on failure they
 * write a message into the backend's error buffer (ops->error, set by the loader) and
 * return a TS_ERR_* code.  All sizes are in entries unless named *_bytes.
 *
 * The core library prepares every mathematical ingredient (1D matrices, sizes, scalings)
 * in a plan; a backend evaluates no basis function, it only runs loops.  doc/backends.md is
 * the guide; "paper 000", "paper 002", ... are the papers listed in doc/references.md. */
#ifndef TESSERA_BACKEND_H
#define TESSERA_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ABI 4: the exported tessera_backend_abi, read before the register function is called;
 * ABI 5: vec_tensor; ABI 6: ts_transfer_plan between degrees (coarse_degree, fine_per_cell);
 * ABI 7: the CSR sparse matrix (csr_create, csr_apply, csr_destroy);
 * ABI 8: the operator on mapped cells (mapped_apply, ts_mapped_plan);
 * ABI 9: mapped cells with the geometry recomputed from the vertices (ts_mapped_plan.geometry
 *        and the fields after it; mapped_geometry);
 * ABI 10: the additive vertex-patch preconditioner on mapped cells (patch_additive,
 *        ts_patch_additive_plan);
 * ABI 11: ts_mapped_plan.collocation_1d (gradients at the points from values at the points);
 * ABI 12: Vanka relaxation of Taylor-Hood Q2 x Q1 (vanka_apply, ts_vanka_plan); Kronecker
 *        products of banded 1D matrices (kronecker_apply, ts_kronecker_plan);
 * ABI 13: ts_laplace_plan.centro_symmetric and the even-odd forms of its 1D matrices;
 * ABI 14: the L2 (DGQ_k) mass and its inverse on mapped cells (l2_mass_apply, ts_l2_mass_plan);
 * ABI 15: the sparse product C = A B (csr_multiply, ts_csr_product); the H(div) (RT_k)
 *         mass on box and mapped cells (hdiv_mass_apply, ts_hdiv_mass_plan);
 * ABI 16: strided copies between a double vector and the host (vec_strided_copy: the
 *         planes of the MPI halo exchange);
 * ABI 17: the planes packed on the device (vec_plane_pack, vec_plane_unpack; they replace
 *         vec_strided_copy), page-locked host memory (host_alloc, host_free) and
 *         device-to-device messages between processes (peer_device, peer_id, peer_create,
 *         peer_exchange, peer_destroy: NCCL on cuda);
 * ABI 18: peer_exchange takes a list of messages (ts_peer_message), sent and received as one
 *         group: a block's planes to and from both neighbours of a direction at once;
 * ABI 19: vec_plane_pack and vec_plane_unpack take the vector's precision, and
 *         ts_peer_message the precision of its entries (mixed-precision distributed
 *         multigrid: single-precision levels exchange single-precision planes);
 * ABI 20: the Laplacian of a box of a plan's cells on a second queue (laplace_apply_cells,
 *         side_join): a distributed Laplacian computes its interior cells while the halo
 *         exchange travels */
#define TS_BACKEND_ABI_VERSION 20
/** A plane of a vector (vec_plane_pack): height rows of width consecutive entries, row r
 *  starting at entry offset + r pitch (e.g. a face of a box of DoFs numbered
 *  lexicographically). */
typedef struct ts_plane {
  int64_t offset, width, pitch, height;
} ts_plane;
#define TS_MAX_PLANES 6
/** One message of peer_exchange: count entries of precision `precision` of the device array
 *  send to process `to`, count entries from process `from` into the device array recv (-1:
 *  no such message). */
typedef struct ts_peer_message {
  const void *send;
  void *recv;
  int to, from;
  int64_t count;
  ts_precision precision;
} ts_peer_message;
/** The most messages one peer_exchange takes (a block's two neighbours of a direction). */
#define TS_MAX_PEER_MESSAGES 2
/** The bytes of the identifier peer_id makes and peer_create reads (NCCL's unique id). */
#define TS_PEER_ID_SIZE 128
/** The bytes of the device name peer_device writes, its terminating 0 included. */
#define TS_PEER_DEVICE_SIZE 64
#define TS_MAX_DEGREE 10
#define TS_BACKEND_ERROR_SIZE 1024

/** Entry i of the random vector of `seed` (vec_random): splitmix64 of (seed, i), uniform in
 *  [-1, 1); the same values for any thread count, on every backend, and for a distributed
 *  vector at its one-process indices (lib/parallel).  A host function: GPU backends keep a
 *  device copy of it. */
static inline double ts_random_entry(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * (double)(z >> 11) * 0x1.0p-53 - 1.0;
}

/** The even-odd form of a centro-symmetric (k+1)x(k+1) 1D matrix A (A[a][b] = A[k-a][k-b],
 *  as the mass and stiffness matrices on Gauss-Lobatto nodes are), prepared by lib/
 *  (ts_even_odd_form) so that a backend's sweep does half the multiplications.  With
 *  h = (k+1)/2, u_e[b] = u[b] + u[k-b] and u_o[b] = u[b] - u[k-b] for b < h, and for even
 *  k the middle value u_m = u[h]:
 *    (A u)[a] = E_a + O_a and (A u)[k-a] = E_a - O_a for a < h, (A u)[h] = E_h (even k),
 *    E_a = sum_{b<h} even[a][b] u_e[b] (+ even[a][h] u_m for even k),
 *    O_a = sum_{b<h} odd[a][b] u_o[b],
 *  with even[a][b] = (A[a][b] + A[a][k-b]) / 2, odd[a][b] = (A[a][b] - A[a][k-b]) / 2 for
 *  b < h and even[a][h] = A[a][h] (even k), on the rows a = 0..k/2.  Other entries are 0. */
#define TS_EVEN_ODD_SIZE (TS_MAX_DEGREE / 2 + 1)
typedef struct ts_even_odd_1d {
  double even[TS_EVEN_ODD_SIZE][TS_EVEN_ODD_SIZE];
  double odd[TS_EVEN_ODD_SIZE][TS_EVEN_ODD_SIZE];
} ts_even_odd_1d;

/** Plan for the Laplacian on a Cartesian level: the cell matrix is
 *  A_K = sum_d scale[d] * (x)_{e} (e == d ? stiffness_1d : mass_1d)
 *  with the 1D reference matrices below (computed by lib/ with a (degree+1)-point Gauss
 *  rule, exact for these products) and scale[d] = prod_e h_e / h_d^2.
 *  DoF (i0,i1,i2) has the global index i0 + n[0]*(i1 + n[1]*i2), n[d] = cells[d]*degree+1.
 *  With `constrained`, DoFs on the box boundary are Dirichlet DoFs: their entries of x are
 *  read as zero and their rows of y are y_i = x_i (identity rows and columns). */
typedef struct ts_laplace_plan {
  int dim;                 /* 2 or 3 */
  int degree;              /* k = 1..TS_MAX_DEGREE; (k+1) DoFs per cell and direction */
  int64_t cells[3];        /* cells per direction (cells[2] = 1 in 2D) */
  int64_t n[3];            /* DoFs per direction (n[2] = 1 in 2D) */
  int64_t n_dofs;          /* prod n[d] */
  double scale[3];         /* prod_e h_e / h_d^2 */
  const double *mass_1d;   /* (k+1)x(k+1), row-major, reference cell [0,1] */
  const double *stiffness_1d; /* (k+1)x(k+1), row-major, reference cell [0,1] */
  int constrained;         /* 1: apply the Dirichlet constraints on the box boundary */
  /* 1: both 1D matrices are centro-symmetric (to 1e-12 of their largest entry) and their
   * even-odd forms below are valid; 0: a backend applies the plain matrices */
  int centro_symmetric;
  ts_even_odd_1d mass_even_odd, stiffness_even_odd;
} ts_laplace_plan;

/** Device ceilings, measured by the backend (measure_ceilings): bytes per second of a
 *  large device-to-device copy (read + write counted), and FMA throughput in double and
 *  single precision (2 flops per FMA), all per second. */
typedef struct ts_backend_ceilings {
  double copy_bytes_per_second;
  double fp64_flops_per_second;
  double fp32_flops_per_second;
} ts_backend_ceilings;
/* multigrid transfer (ABI 2; between degrees: ABI 6) */
/** Plan for the transfer from a coarse Q_kc level to a fine Q_kf level of a box hierarchy
 *  whose fine cells are the coarse cells (degree coarsening: kf > kc, refinement 1) or their
 *  halves (mesh coarsening: refinement 2, kf = kc).  Prolongation is the embedding of the
 *  coarse space into the fine one: per coarse cell and direction the (m+1)x(kc+1) matrix
 *  interpolation_1d, m = fine_per_cell = refinement * kf, gives the values of the kc+1
 *  coarse basis functions at the m+1 fine support points of the cell (left to right; with
 *  refinement 2 the left child's kf+1 points, then the right child's last kf); the cell
 *  operator is the tensor product of it over the directions.  Fine DoF (f0,f1,f2) with
 *  f_d = m c_d + r_d belongs to coarse cell c = (c_d) (the last cell in each direction also
 *  owns r_d = m); coarse DoF kc c_d + b_d is local node b_d of cell c.  Restriction is the
 *  exact transpose.  With `constrained`, coarse and fine DoFs on the box boundary are
 *  Dirichlet DoFs: their entries are read as zero and written as zero, so that P maps
 *  V_{c,0} into V_{f,0} and R = P^T. */
typedef struct ts_transfer_plan {
  int dim;                 /* 2 or 3 */
  int coarse_degree;       /* kc = 1..TS_MAX_DEGREE: kc+1 coarse nodes per cell and direction */
  int fine_per_cell;       /* m = 1..2 TS_MAX_DEGREE: fine node steps per coarse cell and
                              direction (2k between the levels of one degree) */
  int64_t coarse_cells[3]; /* coarse cells per direction (1 beyond dim) */
  int64_t coarse_n[3];     /* coarse DoFs per direction, kc*cells+1 (1 beyond dim) */
  int64_t fine_n[3];       /* fine DoFs per direction, m*cells+1 (1 beyond dim) */
  const double *interpolation_1d; /* (m+1) x (kc+1), row-major */
  int constrained;         /* 1: homogeneous Dirichlet DoFs on the box boundary */
} ts_transfer_plan;
/* ---------------------------------------------------------------- vertex-patch smoother */

/** What one patch_smooth call does for the patches of one color (paper 002, Table 4). */
typedef enum {
  TS_PATCH_STAGE_FUSED = 0,    /**< r_j = R_j b - Abar_j Rbar_j x and x += R_j^T A_j^{-1} r_j per patch */
  TS_PATCH_STAGE_RESIDUAL = 1, /**< the local residual only: r = R_j b - Abar_j Rbar_j x on each
                                    patch's interior DoFs (Separate, first pass) */
  TS_PATCH_STAGE_SOLVE = 2,    /**< the local solve only: x += R_j^T A_j^{-1} R_j r (Separate,
                                    second pass) */
  TS_PATCH_STAGE_BOUNDARY = 3  /**< x_i = b_i on the Dirichlet DoFs of the box (identity rows);
                                    the color is ignored */
} ts_patch_stage;

/** How the local problems A_j t = r_j are solved. */
typedef enum {
  TS_PATCH_SOLVER_FAST_DIAGONALIZATION = 0 /**< A_j^{-1} = S L^{-1} S^T, paper 002 eq. 2.13-2.15 */
} ts_patch_solver;

/** Plan for one pass of the multiplicative vertex-patch Schwarz smoother (paper 002,
 *  Algorithm 2.3) over the patches of one color on a structured box level.
 *  Global DoFs are numbered as in ts_laplace_plan: (i0,i1,i2) -> i0 + n[0]*(i1 + n[1]*i2).
 *  A patch is the 2^dim cells around an interior vertex v (v_d = 1..cells[d]-1); its closed
 *  patch has nbar = 2 dofs_per_cell + 1 DoFs per direction starting at global index
 *  (v_d - 1) dofs_per_cell, its interior the m = nbar - 2 DoFs in the middle.
 *  The patches of this color have the vertices v_d = first_vertex[d] + vertex_stride j_d,
 *  j_d = 0..vertex_count[d]-1; patches of one color share no interior DoF and no interior
 *  DoF of one lies in the closed patch of another, so they may be processed in any order.
 *  Patch matrix (residual): Abar = sum_d scale[d] (x)_e (e == d ? stiffness_1d[e] :
 *  mass_1d[e]), 1D matrices nbar x nbar (row-major) assembled over the patch's 2 cells.
 *  Local solver (fast diagonalization): with the m x m interior blocks K_d, M_d,
 *  K_d S_d = M_d S_d diag(eigenvalues[d]), S_d^T M_d S_d = I, and
 *  A_j^{-1} = (x)_d S_d  diag(1 / sum_d scale[d] lambda_{d,i_d})  (x)_d S_d^T.
 *  With `constrained`, DoFs on the box boundary are Dirichlet DoFs: x is read as zero there. */
typedef struct ts_patch_plan {
  int dim;                      /* 2 or 3 */
  int degree;                   /* k of Q_k (informational; sizes below are what counts) */
  int dofs_per_cell;            /* DoF index distance between neighbouring vertices (k) */
  int64_t cells[3];             /* cells per direction (1 beyond dim) */
  int64_t n[3];                 /* DoFs per direction (1 beyond dim) */
  int64_t n_dofs;               /* prod n[d] */
  int color;                    /* 0 .. 2^dim - 1 */
  int64_t first_vertex[3];      /* vertices of this color: first + stride j, j < count */
  int64_t vertex_count[3];      /* (1 beyond dim) */
  int vertex_stride;            /* 2 */
  int nbar;                     /* closed-patch DoFs per direction: 2 dofs_per_cell + 1 */
  int m;                        /* interior DoFs per direction: nbar - 2 */
  double scale[3];              /* prod_e h_e / h_d^2 */
  const double *mass_1d[3];     /* nbar x nbar, per direction (may share storage) */
  const double *stiffness_1d[3];
  ts_patch_solver solver;       /* TS_PATCH_SOLVER_FAST_DIAGONALIZATION */
  const double *eigenvectors[3];/* m x m, row-major: entry (i, j) is component i of vector j */
  const double *eigenvalues[3]; /* m */
  int constrained;              /* 1: Dirichlet DoFs on the box boundary */
  ts_patch_stage stage;
} ts_patch_plan;

/* ---------------------------------------------------------------- Stokes (ABI 3) */

/** Plan for the Stokes operator of paper 000 (eq. 3-4) with velocity RT_k and pressure
 *  DGQ_k on a Cartesian box level; doc/stokes.md fixes the bases, the numbering and the
 *  form.  y = Acal x with x = [u_0; ..; u_{dim-1}; p]:
 *    y_{u_i} = A_i u_i + B_i^T p,   y_p = - sum_i B_i u_i,   B = -(q, div u)
 *    A_i = sum_d scale[d] L_{i,d} (x) (x)_{e != d} M_{i,e}   (doc/stokes.md section 4)
 *  where in the component's own direction (d == i) L = continuous_stiffness and M =
 *  continuous_mass (cell matrices of k+2 Lobatto functions, assembled with shared end
 *  DoFs), and in the other directions L is the block-tridiagonal interior-penalty matrix
 *  (cell blocks sipg_diag[], sipg_upper, sipg_upper^T) and M = diag(dg_mass) per cell;
 *    B_i = div_scale[i] divergence (direction i) (x) diag(dg_mass) (other directions).
 *  All 1D matrices are reference ones on [0,1], row-major.  With `constrained`, the DoFs of
 *  component i with a_i in {0, n_u[i][i]-1} (normal velocity on the box boundary) are read
 *  as zero and their rows are y = x. */
typedef struct ts_stokes_plan {
  int dim;                      /* 2 or 3 */
  int degree;                   /* k of RT_k / DGQ_k, 0 .. TS_MAX_DEGREE-1 */
  int64_t cells[3];             /* cells per direction (1 beyond dim) */
  int64_t n_u[3][3];            /* n_u[i][d]: DoFs of component i in direction d (1 beyond dim) */
  int64_t n_p[3];               /* pressure DoFs per direction (1 beyond dim) */
  int64_t offset[4];            /* first index of u_0 .. u_{dim-1}, then of p (offset[dim]) */
  int64_t n_dofs;               /* offset[dim] + prod n_p */
  double scale[3];              /* prod_e h_e / h_d^2 */
  double div_scale[3];          /* prod_{e != i} h_e */
  const double *continuous_mass;      /* (k+2) x (k+2) */
  const double *continuous_stiffness; /* (k+2) x (k+2) */
  const double *dg_mass;              /* k+1: the diagonal of the DG mass (Gauss weights) */
  const double *sipg_diag[4];   /* (k+1)^2: cell block with [0] both faces interior, [1] left
                                   face on the boundary, [2] right face, [3] both */
  const double *sipg_upper;     /* (k+1)^2: row in cell c, column in cell c+1 */
  const double *divergence;     /* (k+1) x (k+2): -int psi_a phi_b' (B = -(q, div u)) */
  double penalty;               /* eta: gamma_F = eta (k+1)(k+2) / h_F (informational) */
  int constrained;              /* 1: the normal velocity DoFs on the box boundary */
} ts_stokes_plan;

/* ---------------------------------------------------------------- multi-field transfer */

#define TS_FIELD_TRANSFER_MAX_FIELDS 4                  /* velocity components + pressure */
#define TS_FIELD_TRANSFER_MAX_CELL_DOFS (TS_MAX_DEGREE + 2) /* coarse DoFs per cell and direction */

/** One field of a ts_field_transfer_plan: a tensor product of 1D spaces, one per direction.
 *  In direction d with m = cell_dofs[d] and c = continuous[d] (0 or 1), coarse cell j owns
 *  the 1D indices s j + a, a = 0..m-1, with s = m - c (a continuous direction shares its
 *  end DoFs with the neighbours: c = 1; a discontinuous one shares nothing: c = 0), so
 *  coarse_n[d] = s coarse_cells[d] + c and fine_n[d] = 2 s coarse_cells[d] + c.  The fine
 *  indices of coarse cell j are 2 s j + r, r = 0..2m-c-1 (its left child's m, then the right
 *  child's last m-c), and prolongation_1d[d] is the (2m-c) x m matrix (row-major) of the m
 *  coarse basis functions at them: (2(m-1)+1) x m exactly like ts_transfer_plan's
 *  interpolation_1d when continuous, 2m x m when not.  Fine index 2 s j + 2m-2 of a
 *  continuous direction is shared with coarse cell j+1 (as its r = 0); both give the same
 *  row.  DoF (a0,a1,a2) of the field has the index offset + a0 + n[0] (a1 + n[1] a2) in the
 *  coarse (offset coarse_offset, n = coarse_n) and the fine (fine_offset, fine_n) vector.
 *  With `constrained`, the two end DoFs (a_d = 0 and a_d = n[d]-1) of every continuous
 *  direction d are read and written as zero on both levels (for RT_k the normal velocity on
 *  the box boundary, doc/stokes.md section 2). */
typedef struct ts_field_transfer_field {
  int64_t coarse_n[3], fine_n[3];   /* DoFs per direction (1 beyond dim) */
  int64_t coarse_offset, fine_offset; /* first index of the field in each vector */
  int cell_dofs[3];                 /* m: coarse DoFs per cell and direction (1 beyond dim) */
  int continuous[3];                /* 1: end DoFs shared between cells; 0: not (0 beyond dim) */
  const double *prolongation_1d[3]; /* (2m - continuous) x m, row-major (NULL beyond dim) */
  int constrained;                  /* 1: end DoFs of continuous directions are zero */
} ts_field_transfer_field;

/** Plan for the transfer between a coarse level and the next finer level (fine cells =
 *  2 coarse cells per direction) of a space made of several tensor-product fields stored one
 *  after the other in one vector, such as RT_k x DGQ_k = [u_0; ..; u_{dim-1}; p]
 *  (doc/stokes.md section 5).  Prolongation is the embedding, per field and coarse cell the
 *  tensor product of the fields' prolongation_1d; restriction is its exact transpose.
 *  coarse_count and fine_count are the lengths of the two vectors. */
typedef struct ts_field_transfer_plan {
  int dim;                          /* 2 or 3 */
  int64_t coarse_cells[3];          /* coarse cells per direction (1 beyond dim) */
  int64_t coarse_count, fine_count; /* entries of the coarse and the fine vector */
  int n_fields;                     /* 1 .. TS_FIELD_TRANSFER_MAX_FIELDS */
  ts_field_transfer_field field[TS_FIELD_TRANSFER_MAX_FIELDS];
} ts_field_transfer_plan;

/* ---------------------------------------------------------------- Stokes vertex patches */

#define TS_STOKES_PATCH_KINDS 4      /* boundary kinds of a patch in one direction */
#define TS_STOKES_PATCH_MAX_KINDS 64 /* TS_STOKES_PATCH_KINDS^3 */

/** Plan for one pass of the Stokes vertex-patch smoother (paper 000, sections 3.1-3.2,
 *  Algorithm 2; doc/stokes.md section 7) over the patches of one color.
 *
 *  Patch of the interior vertex v (v_d = 1..cells[d]-1): the 2^dim cells around it.  Its
 *  local DoFs, numbered [u_0; ..; u_{dim-1}; p], each block lexicographic (index 0 fastest):
 *  component i has n_cont = 2k+1 DoFs in direction i (global 1D indices
 *  (v_i-1)(k+1)+1+a, the interior Lobatto DoFs of the two cells) and n_dg = 2(k+1) in every
 *  other direction d (global (v_d-1)(k+1)+a, both cells' DG DoFs); the pressure has n_dg per
 *  direction.  No local DoF is a constrained (normal boundary) DoF.
 *
 *  Boundary kind of a patch in direction d: bit 0 when v_d == 1 (the left cell touches the
 *  box boundary), bit 1 when v_d == cells[d]-1 (the right cell does): 0 interior, 1 left,
 *  2 right, 3 both (a level with 2 cells).  In a DG direction it picks the sipg_diag blocks
 *  of the two cells; the continuous direction does not depend on it.  The patch kind is
 *  sum_d kind_d TS_STOKES_PATCH_KINDS^d.
 *
 *  Local matrix Acal_j = [A_j B_j^T; -B_j 0], the restriction of the global one:
 *    A_{j,i} = sum_d scale[d] L_{i,d} (x) (x)_{e != d} M_{i,e}   (paper 000, eq. 7)
 *  with L, M = cont_stiffness, cont_mass (n_cont^2) for d == i and dg_sipg[kind_d],
 *  diag(dg_mass) (n_dg) otherwise;  B_{j,i} = div_scale[i] divergence (direction i) (x)
 *  diag(dg_mass) (others), divergence n_dg x n_cont.  Acal_j is singular by the constant
 *  patch pressure (B_j^T 1 = 0); both local solvers return the solution whose pressure has
 *  zero (coefficient) mean, the pseudo-inverse solution.
 *
 *  Stage: only TS_PATCH_STAGE_SOLVE: x += R_j^T Acal_j^{+} R_j r on every patch of the color,
 *  r = b - Acal x computed beforehand by the caller with the global Stokes operator (the
 *  Separate scheme).  The Fused scheme does not apply: the local residual would need the
 *  face terms of the whole closed patch (paper 000, section 4.4).
 *
 *  Local solvers (eq. 9-10): SCHUR: A_{j,i}^{-1} = (x)_d S_d diag(1 / sum_d scale[d]
 *  lambda_{d,a_d}) (x)_d S_d^T with S_d, lambda_d the generalized eigenpairs of (L, M) of the
 *  direction (cont_* for d == i, dg_*[kind_d] otherwise; S^T M S = I); the pressure solves
 *  (B A^{-1} B^T) P = B A^{-1} F + G (projected onto zero mean) by CG preconditioned by
 *  M_p^{-1}, M_p = (x)_d diag(dg_mass) the pressure mass, from P = 0 until the residual's
 *  M_p^{-1} norm has dropped by cg_tolerance (or cg_max_iterations steps), P projected onto
 *  zero mean, then U = A^{-1}(F - B^T P).  DIRECT:
 *  t = pseudo_inverse[kind] r, n_local x n_local row-major. */
typedef struct ts_stokes_patch_plan {
  ts_stokes_plan global;        /* the level: sizes, numbering, scalings (1D pointers borrowed) */
  int color;                    /* 0 .. 2^dim - 1 */
  int64_t first_vertex[3];      /* vertices of this color: first + stride j, j < count */
  int64_t vertex_count[3];      /* (first 0, count 1 beyond dim) */
  int vertex_stride;            /* 2 */
  ts_patch_stage stage;         /* TS_PATCH_STAGE_SOLVE */
  int n_cont;                   /* 2k+1: local DoFs of a component in its own direction */
  int n_dg;                     /* 2(k+1): local DoFs in a DG direction and of the pressure */
  int n_velocity;               /* local DoFs of one component: n_cont n_dg^(dim-1) */
  int n_pressure;               /* n_dg^dim */
  int n_local;                  /* dim n_velocity + n_pressure */
  /* the 1D patch matrices */
  const double *cont_mass;      /* n_cont^2: interior block of the 2-cell Lobatto mass */
  const double *cont_stiffness; /* n_cont^2 */
  const double *dg_sipg[TS_STOKES_PATCH_KINDS]; /* n_dg^2: 2x2 cell blocks of the SIPG matrix */
  const double *dg_mass;        /* n_dg: the diagonal of the 2-cell DG mass */
  const double *divergence;     /* n_dg x n_cont */
  ts_stokes_patch_solver solver;
  /* SCHUR: row-major, entry (i, j) is component i of eigenvector j */
  const double *cont_eigenvectors;  /* n_cont^2 */
  const double *cont_eigenvalues;   /* n_cont */
  const double *dg_eigenvectors[TS_STOKES_PATCH_KINDS]; /* n_dg^2 */
  const double *dg_eigenvalues[TS_STOKES_PATCH_KINDS];  /* n_dg */
  double cg_tolerance;          /* relative M_p^{-1} norm of the pressure CG residual */
  int cg_max_iterations;
  /* DIRECT: per patch kind, NULL for the kinds that do not occur on the level */
  const double *pseudo_inverse[TS_STOKES_PATCH_MAX_KINDS];
} ts_stokes_patch_plan;

/* ---------------------------------------------------------------- CSR sparse matrices (ABI 6) */

/** A sparse matrix in compressed sparse row form, as lib/sparse/csr.c stores it on the host:
 *  row i holds the entries row_offsets[i] .. row_offsets[i+1]-1 of columns[] and values[]
 *  (0-based, columns ascending within a row, no duplicates).  The arrays are host memory of
 *  the caller, read during csr_create only: the backend keeps its own copy. */
typedef struct ts_csr_plan {
  int64_t rows, cols;           /* y has rows entries, x has cols */
  int64_t nonzeros;             /* row_offsets[rows] */
  const int64_t *row_offsets;   /* rows + 1 */
  const int64_t *columns;       /* nonzeros */
  const double *values;         /* nonzeros, rounded to the handle's precision by csr_create */
} ts_csr_plan;

/* ---------------------------------------------------------------- mapped cells (ABI 8) */

/** Plan for -div(kappa grad u) + c u on Q_k over the cells of a mapped level (the image of
 *  a box under a map, lib/op/mapped.c; doc/design.md "Mapped cells").  DoFs are numbered as
 *  in ts_laplace_plan; cell (c0,c1,c2) has the index c0 + cells[0] (c1 + cells[1] c2) and
 *  holds the DoFs c_d k + a_d, a_d = 0..k.  Per cell K and quadrature point q (n_q Gauss
 *  points per direction, n_points = n_q^dim, lexicographic, index 0 fastest) the library
 *  stores the geometric factors
 *    G_q = w_q det(J_q) J_q^{-1} kappa_K J_q^{-T}  (symmetric: dim(dim+1)/2 values, the
 *                                                   upper triangle row by row: 00 01 11 in
 *                                                   2D, 00 01 02 11 12 22 in 3D)
 *    m_q = w_q det(J_q) c_K                        (only with has_reaction)
 *  where J_q is the Jacobian of the cell's geometry with respect to the reference cell
 *  [0,1]^dim and w_q the product of the 1D Gauss weights on [0,1].  The cell matrix is
 *    A_K[i][j] = sum_q (grad phi_i(q))^T G_q grad phi_j(q) + m_q phi_i(q) phi_j(q)
 *  with reference gradients: phi_a(x_q) = prod_d shape_1d[q_d][a_d], and d/dx_d replaces
 *  shape_1d by gradient_1d in direction d.  A backend applies it by sum factorization:
 *  values and gradients at the points, G_q and m_q per point, then integrated back.
 *  factors are backend memory of precision p (the application's): the values of cell K start
 *  at K n_factors n_points, factor f of point q at + f n_points + q.  With `constrained`, as
 *  ts_laplace_plan: DoFs on the box boundary are read as zero and their rows are y_i = x_i. */
typedef struct ts_mapped_plan {
  int dim;                 /* 2 or 3 */
  int degree;              /* k = 1..TS_MAX_DEGREE */
  int64_t cells[3];        /* cells per direction (1 beyond dim) */
  int64_t n[3];            /* DoFs per direction, cells[d] k + 1 (1 beyond dim) */
  int64_t n_dofs;          /* prod n[d] */
  int n_q;                 /* quadrature points per direction, 1..TS_MAX_DEGREE + 2 */
  const double *shape_1d;  /* n_q x (k+1), row-major, host memory */
  const double *gradient_1d; /* n_q x (k+1), row-major, host memory */
  int has_reaction;        /* 1: m_q follows G_q */
  int n_factors;           /* dim (dim+1)/2 + has_reaction */
  const void *factors;     /* backend memory: cells n_factors n_points values of precision p
                              (NULL with TS_MAPPED_VERTICES) */
  int constrained;         /* 1: Dirichlet rows on the box boundary */
  /* ABI 9.  geometry = TS_MAPPED_VERTICES (cells that are multilinear images of the
   * reference cell, asked for by the backend's mapped_geometry): instead of reading G_q and
   * m_q the backend computes them per point, from the cell's 2^dim vertices X_v (x(xi) =
   * sum_v X_v prod_d (v_d ? xi_d : 1 - xi_d), v_d = 0, 1), the Gauss points and weights, and
   * the cell's kappa and c; the formulas above. */
  int geometry;            /* TS_MAPPED_FACTORS or TS_MAPPED_VERTICES */
  const void *vertices;    /* backend memory, precision p: the level's (cells[0]+1) x
                              (cells[1]+1) (x (cells[2]+1)) vertices, lexicographic (direction
                              0 fastest), dim coordinates each */
  const double *points_1d; /* n_q Gauss points on [0,1], host memory */
  const double *weights_1d; /* their weights, host memory */
  int kappa_components;    /* 0 (kappa = 1), 1 (scalar) or dim(dim+1)/2 (upper triangle) */
  const void *cell_values; /* backend memory, precision p: per cell kappa_components values,
                              then c if has_reaction; NULL when there are none */
  /* ABI 11.  The collocation derivative at the Gauss points: collocation_1d[q][l] = L_l'(x_q)
   * for the Lagrange polynomials L_l through the n_q points x_q (n_q x n_q, row-major, rows
   * summing to exactly 0), so that gradient_1d = collocation_1d shape_1d when n_q = k + 1.
   * A backend may interpolate u to the points first (shape_1d in each direction) and take
   * the reference gradient there (collocation_1d in each direction), and back: per direction
   * one sweep fewer than shape_1d and gradient_1d from the DoFs. */
  const double *collocation_1d; /* n_q x n_q, host memory */
} ts_mapped_plan;

/** ts_mapped_plan.geometry */
enum { TS_MAPPED_FACTORS = 0, TS_MAPPED_VERTICES = 1 };

/* ---------------------------------------------------------------- additive patches (ABI 10) */

/** Plan for one pass of the additive vertex-patch preconditioner on a mapped level
 *  (lib/mg/patch-additive.c; doc/multigrid.md, "Mapped meshes") over the patches of one
 *  color.  DoFs and patches are those of ts_patch_plan: the patch of the interior vertex v
 *  (v_d = 1..cells[d]-1) has m = 2 dofs_per_cell - 1 interior DoFs per direction, starting
 *  at global index (v_d - 1) dofs_per_cell + 1; this color's patches have the vertices
 *  v_d = first_vertex[d] + vertex_stride j_d, j_d < vertex_count[d], and share no interior
 *  DoF.  Every patch has its own local solver, the fast diagonalization of the Cartesian
 *  patch the library fitted to it, with scalings by region: its block of `local` starts at
 *    ((v_0 - 1) + (cells[0] - 1) ((v_1 - 1) + (cells[1] - 1) (v_2 - 1))) (dim (m^2 + m) + 3^dim)
 *  and holds, per direction d, S_d (m x m, row-major, entry (i, j) component i of vector
 *  j) then L_d (m values); then the 3^dim scalings s_r of the patch's regions, region
 *  r = r_0 + 3 r_1 + 9 r_2 with r_d = 0, 1, 2 as i_d < k - 1, = k - 1, > k - 1 (the first
 *  cell's interior, the middle plane, the second cell's interior).  The pass adds, on every
 *  patch of the color,
 *    y_I += D (x)_d S_d  diag(1 / sum_d L_{d, i_d})  (x)_d S_d^T  D r_I,
 *  D = diag(s_r(i)) (I the patch's interior DoFs, (x)_d acting on direction d of the m^dim
 *  array, direction 0 fastest).  r, y and local are backend memory of the call's precision. */
typedef struct ts_patch_additive_plan {
  int dim;                      /* 2 or 3 */
  int dofs_per_cell;            /* k */
  int64_t cells[3];             /* cells per direction (1 beyond dim) */
  int64_t n[3];                 /* DoFs per direction, cells[d] k + 1 (1 beyond dim) */
  int64_t n_dofs;               /* prod n[d] */
  int m;                        /* 2 k - 1 */
  int64_t first_vertex[3];      /* this color's vertices (0 beyond dim) */
  int64_t vertex_count[3];      /* (1 beyond dim) */
  int vertex_stride;            /* 2 */
  const void *local;            /* prod_d (cells[d] - 1) (dim (m^2 + m) + 3^dim) values */
} ts_patch_additive_plan;

/* ---------------------------------------------------------------- Vanka patches (ABI 12) */

/** Plan for one pass of Vanka relaxation of the Taylor-Hood Q2 x Q1 system (lib/mg/vanka.c;
 *  doc/taylor-hood.md section 7) over the patches of one color.  Vectors are
 *  [u_0; ..; u_{dim-1}; p]: velocity component c, node (i_0, i_1, i_2) at
 *  c n_velocity + i_0 + n_u[0] (i_1 + n_u[1] i_2), pressure vertex v at
 *  pressure_offset + v_0 + n_p[0] (v_1 + n_p[1] v_2).  The patch of vertex v
 *  (0 <= v_d <= cells[d]) holds the pressure DoF of v and the velocity nodes with global 1D
 *  indices i_d = 2 v_d - 2 + a_d, a_d = 0..4 (the cells around v): local index
 *  c 5^dim + a_0 + 5 (a_1 + 5 a_2) for component c, patch_size - 1 = dim 5^dim for the
 *  pressure.  Its matrix M (patch_size^2 values, column-major: M_ij at i + patch_size j) is
 *  the one of slot
 *  s = c_0 + class_count[0] (c_1 + class_count[1] c_2), c_d = class_map[d][3 min(v_d, 2) +
 *  min(cells[d] - v_d, 2)], at matrices + s patch_size^2; its rows and columns of nodes
 *  outside the mesh (i_d < 0 or i_d >= n_u[d]) are zero.  The pass adds y_I += M r_I over
 *  the patch's DoFs I inside the mesh for every patch of the color: the vertices
 *  v_d = first_vertex[d] + vertex_stride j_d, j_d < vertex_count[d], whose patches share no
 *  DoF.  r, y and matrices are backend memory of the call's precision. */
typedef struct ts_vanka_plan {
  int dim;                      /* 2 or 3 */
  int64_t cells[3];             /* cells per direction (1 beyond dim) */
  int64_t n_u[3];               /* velocity nodes per direction, 2 cells[d] + 1 (1 beyond dim) */
  int64_t n_p[3];               /* pressure nodes per direction, cells[d] + 1 (1 beyond dim) */
  int64_t n_velocity;           /* prod n_u[d]: one component */
  int64_t pressure_offset;      /* dim n_velocity */
  int64_t n_dofs;               /* pressure_offset + prod n_p[d] */
  int patch_size;               /* dim 5^dim + 1 */
  int class_count[3];           /* kinds of vertex per direction (1 beyond dim) */
  int class_map[3][9];          /* the kind of each (min(v, 2), min(cells - v, 2)) */
  int64_t first_vertex[3];      /* this color's vertices (0 beyond dim) */
  int64_t vertex_count[3];      /* (1 beyond dim) */
  int vertex_stride;            /* 3 */
  const void *matrices;         /* prod class_count[d] patch_size^2 values */
} ts_vanka_plan;

/* ---------------------------------------------------------------- Kronecker products (ABI 12) */

/** Plan for y (+)= scale (F_{dim-1} (x) .. (x) F_0) x (index 0 fastest; lib/op/kronecker.c):
 *  the Taylor-Hood coupling blocks D_c and B_c^T on a box (doc/taylor-hood.md section 2).
 *  F_d is rows[d] x cols[d] and banded: row r has its nonzeros among the width[d] =
 *  2 col_step[d] + 1 columns s_d(r) + w, w = 0..width[d]-1, s_d(r) = (r / row_step[d] - 1)
 *  col_step[d] (integer division), those outside 0..cols[d]-1 left out; values[d] holds
 *  rows[d] x width[d] entries, row by row.  Beyond dim: rows = cols = 1, width 1, steps 1
 *  and values NULL (the factor is 1).  x has n_cols = prod cols[d], y n_rows = prod rows[d]
 *  entries; values, x and y are backend memory of the call's precision. */
typedef struct ts_kronecker_plan {
  int dim;                      /* 2 or 3 */
  int64_t rows[3], cols[3];     /* per direction (1 beyond dim) */
  int row_step[3], col_step[3]; /* the band's stepping (1 beyond dim) */
  int width[3];                 /* 2 col_step + 1 (1 beyond dim) */
  int64_t n_rows, n_cols;       /* prod rows[d], prod cols[d] */
  double scale;
  const void *values[3];        /* rows[d] x width[d] each (NULL beyond dim) */
} ts_kronecker_plan;

/* ---------------------------------------------------------------- L2 mass and inverse (ABI 14) */

/** What ts_l2_mass_plan.action asks for. */
enum {
  TS_L2_MASS_APPLY = 0,    /* y = W x by sum factorization */
  TS_L2_MASS_DENSE = 1,    /* y = M_K x per cell, M_K a stored dense matrix (the explicit inverse) */
  TS_L2_MASS_CHOLESKY = 2, /* y = L_K^{-T} L_K^{-1} x per cell, L_K stored (the Cholesky factor) */
  TS_L2_MASS_CG = 3        /* y = W^{-1} x by Jacobi-preconditioned CG on every cell */
};

/** Plan for the L2 (DGQ_k) mass W = (alpha q, r) and its inverse on the cells of a box or a
 *  mapped level (lib/op/l2-mass.c; paper 003 sections 2.5 and 3.1; doc/hdiv.md, "DG mass
 *  inverse").  W is block diagonal, one block W_K per cell.  DoFs are numbered as DGQ_k's:
 *  n[d] = cells[d] n1 (n1 = k + 1), cell c owns the DoFs c_d n1 + a_d, a_d = 0..k, local
 *  index a_0 + n1 (a_1 + n1 a_2) (n = n1^dim per cell).  With the tensor tables of n_q points
 *  per direction, D_K = diag(point_weights of K) (w_q times the cell's Jacobian factor and
 *  coefficient, computed by the library), U = (x)_d user_1d (the user's basis at the points)
 *  and S = (x)_d solve_1d (the basis CG solves in), per cell K:
 *    TS_L2_MASS_APPLY:    y_K = U^T D_K U x_K;
 *    TS_L2_MASS_DENSE:    y_K = M_K x_K, M_K = matrices + K n^2 (n x n, row-major);
 *    TS_L2_MASS_CHOLESKY: y_K solves L_K L_K^T y_K = x_K, L_K = matrices + K n^2 (lower
 *                         triangular, row-major, zeros above the diagonal);
 *    TS_L2_MASS_CG:       y_K = C z with C = (x)_d change_1d, z the solution of
 *                         S^T D_K S z = C^T x_K by CG from z = 0 preconditioned by
 *                         diag(inverse_diagonal of K) (1 / diag(S^T D_K S)), stopped when
 *                         r^T P r <= tolerance^2 b^T P b (b = C^T x_K, r the residual, P the
 *                         preconditioner) or after max_iterations; the number of iterations
 *                         (applications of S^T D_K S) is written to iterations[K].
 *  Every cell is independent: no reduction over cells.  point_weights, inverse_diagonal,
 *  matrices, iterations, x and y are backend memory of the call's precision. */
typedef struct ts_l2_mass_plan {
  int dim;                 /* 2 or 3 */
  int degree;              /* k = 0..TS_MAX_DEGREE - 1 */
  int n_q;                 /* quadrature points per direction, k+1..TS_MAX_DEGREE + 2 */
  int64_t cells[3];        /* cells per direction (1 beyond dim) */
  int64_t n[3];            /* DoFs per direction, cells[d] (k+1) (1 beyond dim) */
  int64_t n_dofs;          /* prod n[d] */
  int action;              /* TS_L2_MASS_* */
  const double *user_1d;   /* n_q x (k+1), row-major, host memory (APPLY) */
  const double *solve_1d;  /* n_q x (k+1), row-major, host memory (CG) */
  const double *change_1d; /* (k+1) x (k+1), row-major, host memory (CG): entry [i][j] is the
                              user's DoF functional i of the solve basis function j */
  const void *point_weights;    /* cells n_q^dim values (APPLY, CG) */
  const void *inverse_diagonal; /* cells n values (CG) */
  const void *matrices;         /* cells n^2 values (DENSE, CHOLESKY) */
  double tolerance;        /* CG: relative, in (0, 1) */
  int max_iterations;      /* CG: >= 1 */
  void *iterations;        /* CG: cells values (iterations of the last application) */
} ts_l2_mass_plan;

/* ---------------------------------------------------------------- sparse products (ABI 15) */

/** The product C = A B of two ts_csr_plan matrices as csr_multiply returns it: rows = A's
 *  rows, cols = B's cols, the CSR form of ts_csr_plan (row i holds row_offsets[i] ..
 *  row_offsets[i+1]-1, columns ascending within a row, no duplicates).  The pattern is the
 *  structural one: every (i, j) with some A_ik B_kj stored, also where the sum cancels to
 *  zero (as lib/sparse/algebra.c's ts_matrix_multiply keeps it).  Ownership: the backend
 *  allocates the three arrays with malloc or calloc (columns and values at least one element
 *  each, also for nonzeros = 0) and hands them over; the caller releases them with free().
 *  On failure the backend leaves all three NULL (it frees what it allocated). */
typedef struct ts_csr_product {
  int64_t rows, cols, nonzeros;
  int64_t *row_offsets;         /* rows + 1, host memory */
  int64_t *columns;             /* nonzeros, host memory */
  double *values;               /* nonzeros, host memory */
} ts_csr_product;

/* ---------------------------------------------------------------- H(div) mass (ABI 15) */

/** Plan for the H(div) mass M_beta = (beta u, v) of RT_k (either basis) on the cells of a box
 *  or a mapped level (lib/op/hdiv-mass.c; paper 003, sections 2-3; doc/hdiv.md, "The
 *  matrix-free H(div) mass").  DoFs are numbered as RT_k's (doc/stokes.md section 2, the
 *  velocity block only): component i has n_u[i][d] = cells[d] (k+1) + (d == i) DoFs in
 *  direction d, DoF (a_0, a_1, a_2) at offset[i] + a_0 + n_u[i][0] (a_1 + n_u[i][1] a_2);
 *  cell c owns a_d = c_d (k+1) + r, r = 0..k+1 in direction i (the last one shared with the
 *  cell c_i + 1), r = 0..k across.  Local index of component i in a cell: r_0 + m_0 (r_1 +
 *  m_1 r_2), m_d = k+2 for d == i, k+1 otherwise.  With B_i = (x)_d (d == i ? normal_1d :
 *  tangential_1d) (the reference basis of component i at the n_q^dim Gauss points, index 0
 *  fastest) and the symmetric dim x dim tensors G_K,q, per cell K
 *    y_K,i = sum_j B_i^T diag_q(G_K,q[i][j]) B_j x_K,j,
 *  summed into y over the cells (face DoFs receive two cells' parts: no two cells that
 *  share a DoF may write at once).  The tensors (backend memory, precision of the call):
 *    cartesian = 0: tensors + (K s_count + s) np + q, s_count = dim (dim+1) / 2, np = n_q^dim,
 *                   the entries s = 0..dim-1 the diagonal G[s][s], then G[0][1] (2D); G[0][1],
 *                   G[0][2], G[1][2] (3D): G_K,q = w_q beta_K J^T J / det J (weights in);
 *    cartesian = 1: tensors + K dim + i = the cell's constant c_K,i, and G_K,q = diag(c_K,i)
 *                   prod_d weights_1d[q_d] (the Gauss weights applied by the backend).
 *  The tables are host memory: normal_1d n_q x (k+2), tangential_1d n_q x (k+1), row-major. */
typedef struct ts_hdiv_mass_plan {
  int dim;                 /* 2 or 3 */
  int degree;              /* k = 0..TS_MAX_DEGREE - 1 */
  int n_q;                 /* Gauss points per direction, k+2 */
  int64_t cells[3];        /* cells per direction (1 beyond dim) */
  int64_t n_u[3][3];       /* n_u[i][d] (1 beyond dim, rows i >= dim unused) */
  int64_t offset[3];       /* first index of component i */
  int64_t n_dofs;          /* offset[dim - 1] + prod_d n_u[dim - 1][d] */
  const double *normal_1d;     /* n_q x (k+2): interpolation, the component's own direction */
  const double *tangential_1d; /* n_q x (k+1): across */
  const double *weights_1d;    /* n_q Gauss weights on [0,1] (cartesian) */
  int cartesian;           /* 1: diagonal, constant G per cell (box); 0: full G per point */
  const void *tensors;     /* see above */
} ts_hdiv_mass_plan;

/** The backend table. */
typedef struct ts_backend_ops {
  int abi_version;         /* TS_BACKEND_ABI_VERSION */
  size_t struct_size;      /* sizeof(ts_backend_ops) */
  const char *name;        /* "omp", "cuda", ... */
  void *data;              /* backend state, owned by the backend */
  char *error;             /* TS_BACKEND_ERROR_SIZE bytes, set by the loader */

  /* life cycle (optional): start (find devices); describe into buf; stop and free data */
  int (*init)(struct ts_backend_ops *ops);
  int (*describe)(struct ts_backend_ops *ops, char *buf, size_t len);
  int (*finalize)(struct ts_backend_ops *ops);

  /* memory (required): ptr + k bytes must be a valid backend pointer for 0 <= k < bytes
   * (views of vectors, ts_vec_create_view, address entries by byte offsets) */
  int (*mem_alloc)(struct ts_backend_ops *ops, size_t bytes, void **ptr);
  int (*mem_free)(struct ts_backend_ops *ops, void *ptr);
  int (*mem_available)(struct ts_backend_ops *ops, size_t *bytes);

  /* vectors (required): x, y, w are backend pointers of n entries of precision p */
  int (*vec_from_host)(struct ts_backend_ops *ops, ts_precision p, int64_t n, const double *h, void *x);
  int (*vec_to_host)(struct ts_backend_ops *ops, ts_precision p, int64_t n, const void *x, double *h);
  int (*vec_set)(struct ts_backend_ops *ops, ts_precision p, int64_t n, double alpha, void *x);
  int (*vec_random)(struct ts_backend_ops *ops, ts_precision p, int64_t n, uint64_t seed, void *x);
  int (*vec_convert)(struct ts_backend_ops *ops, int64_t n, ts_precision px, const void *x,
                     ts_precision py, void *y);
  int (*vec_axpby)(struct ts_backend_ops *ops, ts_precision p, int64_t n, double alpha,
                   const void *x, double beta, void *y);
  int (*vec_pointwise_mult)(struct ts_backend_ops *ops, ts_precision p, int64_t n,
                            const void *x, const void *y, void *w);
  int (*vec_dot)(struct ts_backend_ops *ops, ts_precision p, int64_t n, const void *x,
                 const void *y, double *result);

  /* kernels (optional, here and below): y = A x (add = 0) or y += A x (add = 1); diagonal
   * of A into d */
  int (*laplace_apply)(struct ts_backend_ops *ops, const ts_laplace_plan *plan, ts_precision p,
                       const void *x, void *y, int add);
  int (*laplace_diagonal)(struct ts_backend_ops *ops, const ts_laplace_plan *plan,
                          ts_precision p, void *d);

  /* measure the copy bandwidth and the FP64/FP32 FMA peak of the device now (a few
   * hundred milliseconds); used by `tessera bench` to print fractions of the ceilings */
  int (*measure_ceilings)(struct ts_backend_ops *ops, ts_backend_ceilings *c);
  /* multigrid (ABI 2): transfer = 0: fine = P coarse (add = 1: fine += P coarse);
   * transfer = 1: coarse = R fine (add = 1: coarse += R fine); in and out of precision p */
  int (*transfer)(struct ts_backend_ops *ops, const ts_transfer_plan *plan, ts_precision p,
                  int restrict_, const void *in, void *out, int add);
  /* vertex-patch smoother (ABI 2): one pass of plan->stage over the patches of plan->color;
   * b, x, r of precision p (r: the residual vector of the Separate variant; unused by the
   * other stages and may be NULL for them) */
  int (*patch_smooth)(struct ts_backend_ops *ops, const ts_patch_plan *plan, ts_precision p,
                      const void *b, void *x, void *r);
  /* Stokes (ABI 3): y = Acal x (add = 1: y += Acal x), x and y of plan->n_dofs entries */
  int (*stokes_apply)(struct ts_backend_ops *ops, const ts_stokes_plan *plan, ts_precision p,
                      const void *x, void *y, int add);
  /* transfer of a multi-field tensor-product space (RT_k x DGQ_k): as `transfer` */
  int (*field_transfer)(struct ts_backend_ops *ops, const struct ts_field_transfer_plan *plan,
                        ts_precision p, int restrict_, const void *in, void *out, int add);
  /* Stokes vertex-patch smoother: one pass of plan's stage over the patches of its color */
  int (*stokes_patch_smooth)(struct ts_backend_ops *ops, const struct ts_stokes_patch_plan *plan,
                             ts_precision p, const void *b, void *x, void *r);
  /* tensor-product vector (ABI 5): x[i_0 + n_0 (i_1 + n_1 i_2)] = f_0[i_0] f_1[i_1] f_2[i_2]
   * (dim = 2: the first two factors), each product formed in double and rounded once;
   * factors[d] are host arrays of n[d] doubles (the caller's, read during the call only) */
  int (*vec_tensor)(struct ts_backend_ops *ops, ts_precision p, int dim, const int64_t *n,
                    const double *const *factors, void *x);
  /* CSR sparse matrix (ABI 6), all three or none: csr_create copies the plan's arrays into
   * backend memory once, the values in precision p, and returns an opaque handle;
   * csr_apply: y = A x (add = 1: y += A x), x of plan->cols and y of plan->rows entries of
   * the handle's precision; csr_destroy frees the handle (NULL allowed) */
  int (*csr_create)(struct ts_backend_ops *ops, const ts_csr_plan *plan, ts_precision p,
                    void **handle);
  int (*csr_apply)(struct ts_backend_ops *ops, void *handle, const void *x, void *y, int add);
  int (*csr_destroy)(struct ts_backend_ops *ops, void *handle);
  /* operator on mapped cells (ABI 8): y = A x (add = 1: y += A x), x and y of
   * plan->n_dofs entries of precision p, plan->factors of that precision too */
  int (*mapped_apply)(struct ts_backend_ops *ops, const ts_mapped_plan *plan, ts_precision p,
                      const void *x, void *y, int add);
  /* optional (ABI 9): the plan form this backend applies faster for multilinear cells of
   * (dim, degree) in precision p, as measured on it: TS_MAPPED_FACTORS or TS_MAPPED_VERTICES.
   * NULL: factors only. */
  int (*mapped_geometry)(struct ts_backend_ops *ops, int dim, int degree, ts_precision p);
  /* additive vertex patches (ABI 10): y += the local solutions of the patches of the plan's
   * color (ts_patch_additive_plan), r and y of plan->n_dofs entries of precision p, r != y */
  int (*patch_additive)(struct ts_backend_ops *ops, const ts_patch_additive_plan *plan,
                        ts_precision p, const void *r, void *y);
  /* Vanka patches (ABI 12): y += M r on the patches of the plan's color (ts_vanka_plan), r
   * and y of plan->n_dofs entries of precision p, r != y */
  int (*vanka_apply)(struct ts_backend_ops *ops, const ts_vanka_plan *plan, ts_precision p,
                     const void *r, void *y);
  /* Kronecker product of banded 1D matrices (ABI 12): y = scale (F_{dim-1} (x) .. (x) F_0) x
   * (add = 1: y += ..), x of plan->n_cols and y of plan->n_rows entries of precision p */
  int (*kronecker_apply)(struct ts_backend_ops *ops, const ts_kronecker_plan *plan,
                         ts_precision p, const void *x, void *y, int add);
  /* L2 mass and its inverse (ABI 14): y = W x or y = W^{-1} x as plan->action says
   * (ts_l2_mass_plan), x and y of plan->n_dofs entries of precision p, x != y.  A backend
   * refuses an action or a precision it lacks with TS_ERR_UNSUPPORTED. */
  int (*l2_mass_apply)(struct ts_backend_ops *ops, const ts_l2_mass_plan *plan, ts_precision p,
                       const void *x, void *y);
  /* optional (ABI 15): C = A B in double (ts_csr_product: the result's host arrays become
   * the caller's, released with free()); A and B are host arrays of the caller read during
   * the call only, A->cols == B->rows (the library checks).  A backend refuses sizes it
   * cannot index (e.g. beyond 32-bit indices) with TS_ERR_UNSUPPORTED, naming them.  NULL:
   * the library multiplies on the host (lib/sparse/algebra.c). */
  int (*csr_multiply)(struct ts_backend_ops *ops, const ts_csr_plan *A, const ts_csr_plan *B,
                      ts_csr_product *C);
  /* H(div) mass (ABI 15): y = M x (add = 1: y += M x), ts_hdiv_mass_plan, x and y of
   * plan->n_dofs entries of precision p, x != y; TS_ERR_UNSUPPORTED for a precision it lacks */
  int (*hdiv_mass_apply)(struct ts_backend_ops *ops, const ts_hdiv_mass_plan *plan,
                         ts_precision p, const void *x, void *y, int add);
  /* optional (ABI 17): planes of a vector x of precision p (ts_plane; p since ABI 19), for
   * the MPI halo exchange and the masks of the distributed operators (lib/parallel/halo.c),
   * `count` of them (1..TS_MAX_PLANES) in one call; the device array buf (of precision p)
   * holds them one after the other,
   * each row after row.  vec_plane_pack: buf = the planes; vec_plane_unpack: the planes = buf
   * (add = 0; buf NULL: = 0) or += buf (add = 1; the planes must not overlap).  Where planes
   * overlap (the edges of a box's faces) unpacking with add = 0 writes the entries of each of
   * them: they must hold equal values there.  Required of a backend for distributed DoFs
   * (ts_parallel_dofs_create). */
  int (*vec_plane_pack)(struct ts_backend_ops *ops, ts_precision p, int count,
                        const ts_plane *planes, const void *x, void *buf);
  int (*vec_plane_unpack)(struct ts_backend_ops *ops, ts_precision p, int add, int count,
                          const ts_plane *planes, const void *buf, void *x);
  /* optional (ABI 17): host memory the device copies to and from at full speed
   * (page-locked); NULL: the library uses malloc */
  int (*host_alloc)(struct ts_backend_ops *ops, size_t bytes, void **h);
  int (*host_free)(struct ts_backend_ops *ops, void *h);
  /* optional (ABI 17): device-to-device messages among the processes of a run.  peer_device
   * writes a text of at most TS_PEER_DEVICE_SIZE bytes (with its 0) naming this process's
   * device uniquely on its host (the PCI bus id): the library uses peer messages only when no
   * two processes of a host share a device (NCCL refuses them, and not on every process).
   * peer_id writes TS_PEER_ID_SIZE bytes on one process, which the library sends to the others;
   * peer_create (called by every process at once, `rank` of `size`) makes the handle from
   * them; peer_exchange sends and receives `count` messages (ts_peer_message, at most
   * TS_MAX_PEER_MESSAGES; ABI 18) as one group, so that neighbours sending to each other do
   * not wait for one another, ordered with the backend's other work and without waiting for
   * it on the host; peer_destroy
   * frees a handle.  A backend that cannot (NCCL not found) returns TS_ERR_UNSUPPORTED from
   * peer_id or peer_create, and the library stages the messages through the host. */
  int (*peer_device)(struct ts_backend_ops *ops, char *key);
  int (*peer_id)(struct ts_backend_ops *ops, void *id);
  int (*peer_create)(struct ts_backend_ops *ops, int size, int rank, const void *id,
                     void **peer);
  int (*peer_exchange)(struct ts_backend_ops *ops, void *peer, int count,
                       const ts_peer_message *messages);
  int (*peer_destroy)(struct ts_backend_ops *ops, void *peer);
  /* optional (ABI 20), both or neither: work that runs while the halo exchange travels.
   * laplace_apply_cells: y += A_box x, A_box the sum of the element matrices of the cells
   * [lo[d], hi[d]) of the unconstrained plan (x, y the plan's whole vectors, of precision p).
   * side = 0 queues it like laplace_apply; side = 1 queues it on a second queue, behind all
   * the work queued so far, and the work queued after it (the planes, peer_exchange, the
   * copies to and from the host) may run while it runs; side_join makes the work queued
   * after the join wait for the second queue's.  Between the two, the work queued touches
   * no entry the side work reads or writes.  A backend that runs one thing at a time (omp)
   * leaves both NULL and the library applies the whole plan. */
  int (*laplace_apply_cells)(struct ts_backend_ops *ops, const ts_laplace_plan *plan,
                             ts_precision p, const int64_t *lo, const int64_t *hi,
                             const void *x, void *y, int side);
  int (*side_join)(struct ts_backend_ops *ops);
} ts_backend_ops;

/** The symbol every backend module exports. */
typedef int (*ts_backend_register_fn)(ts_backend_ops *ops);
#define TS_BACKEND_REGISTER_SYMBOL "tessera_backend_register"

/** The ABI a module was built for, exported as the constant tessera_backend_abi (ABI 4):
 *  the loader reads it before it calls any function of the module, so that a module built
 *  for another table layout never runs.  One source file of a module defines it with
 *  `TS_BACKEND_DEFINE_ABI;` at file scope. */
typedef struct ts_backend_abi {
  int version;       /* TS_BACKEND_ABI_VERSION */
  size_t ops_size;   /* sizeof(ts_backend_ops) */
} ts_backend_abi;
#define TS_BACKEND_ABI_SYMBOL "tessera_backend_abi"
extern const ts_backend_abi tessera_backend_abi;
#define TS_BACKEND_DEFINE_ABI \
  const ts_backend_abi tessera_backend_abi = {TS_BACKEND_ABI_VERSION, sizeof(ts_backend_ops)}

#ifdef __cplusplus
}
#endif
#endif
