/* tessera.h -- the public C API of Tessera.
 *
 * Tessera solves high-order finite element problems on structured (logically Cartesian)
 * meshes with matrix-free operators and plug-in compute backends.  Every object is an
 * opaque handle created by ts_<object>_create and freed by ts_<object>_destroy(&h), which
 * accepts a NULL handle and sets the handle to NULL.  Getters return borrowed pointers.
 *
 * Argument checks.  Every function checks its arguments; none crashes on a NULL handle, a
 * NULL pointer, a size or level out of range or vectors that do not fit:
 *  - A function returning int status returns 0 on success or a TS_ERR_* code (TS_ERR_ARG
 *    for a bad argument); ts_error_message() then says what went wrong, naming the
 *    argument, the value found and what is allowed.  A create function sets its output
 *    handle to NULL when it fails (if the output pointer itself is not NULL).
 *  - A getter returning a value (a size, a name, a borrowed pointer) cannot return a code:
 *    given a NULL handle or an argument out of range it records TS_ERR_ARG as this thread's
 *    last error (ts_error_code(), ts_error_message()) and returns
 *        -1        for integers (sizes, counts, dimensions, degrees, levels, 0/1 flags),
 *        NaN       for doubles,
 *        ""        for names (never NULL),
 *        NULL      for borrowed pointers and handles,
 *        TS_PRECISION_INVALID or TS_FE_INVALID for the enums,
 *    and a void function does nothing.  On success a getter leaves the last error as it
 *    was: call ts_error_clear() first to tell a failure from an earlier error.
 *  - Pointers into caller memory (host arrays) are checked for NULL only; their length is
 *    the one the function documents. */
#ifndef TESSERA_H
#define TESSERA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Comments cite the papers Tessera implements as "paper 000", "paper 002", ...: they are
 * listed, with title, authors, venue and DOI, in doc/references.md. */

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_VERSION_MAJOR 0
#define TESSERA_VERSION_MINOR 1
#define TESSERA_VERSION_PATCH 0

/* ---------------------------------------------------------------- errors */

/** Error codes returned by every ts_* function (0 is success). */
enum {
  TS_SUCCESS = 0,
  TS_ERR_ARG = 1,          /**< an argument is out of range or inconsistent */
  TS_ERR_MEMORY = 2,       /**< allocation failed or the problem does not fit */
  TS_ERR_BACKEND = 3,      /**< a backend could not be found, loaded or started */
  TS_ERR_UNSUPPORTED = 4,  /**< the backend lacks the requested kernel */
  TS_ERR_IO = 5,           /**< a file could not be read or written */
  TS_ERR_INPUT = 6,        /**< a problem description is malformed or invalid */
  TS_ERR_LAPACK = 7,       /**< a LAPACK routine failed */
  TS_ERR_NOT_CONVERGED = 8,/**< an iterative solver reached its iteration limit */
  TS_ERR_BREAKDOWN = 9,    /**< an iterative solver broke down (zero or negative curvature) */
  TS_ERR_NAN = 10,         /**< a residual became NaN or infinite */
  TS_ERR_INTERNAL = 11     /**< a bug in Tessera: please report it */
};

/** @brief The message recorded by the last failing call on this thread (never NULL). */
const char *ts_error_message(void);
/** @brief The code recorded by the last failing call on this thread (0 if none). */
int ts_error_code(void);
/** @brief A short name for an error code ("TS_ERR_ARG", ...). */
const char *ts_error_name(int code);
/** @brief Forget the recorded error. */
void ts_error_clear(void);

/** Propagate an error from a Tessera call, adding this location to the message trace. */
#define TS_CALL(expr)                                                                \
  do {                                                                               \
    int ts_call_ierr_ = (expr);                                                      \
    if (ts_call_ierr_) return ts_error_trace(ts_call_ierr_, __FILE__, __LINE__, #expr); \
  } while (0)
/** @brief Append a "called from" line to the current message; returns code. */
int ts_error_trace(int code, const char *file, int line, const char *expr);

/** @brief The library version as "major.minor.patch". */
const char *ts_version(void);

/* ---------------------------------------------------------------- precision */

/** Floating-point precision of vectors and operator applications. */
typedef enum {
  TS_PRECISION_INVALID = -1, /**< returned by precision getters given a NULL handle */
  TS_DOUBLE = 0,
  TS_SINGLE = 1
} ts_precision;
/** @brief "double" or "single" ("" for another value). */
const char *ts_precision_name(ts_precision p);
/** @brief Size in bytes of one scalar of precision p (0 for another value). */
size_t ts_precision_size(ts_precision p);

/* ---------------------------------------------------------------- host threads */

/* The omp backend's kernels and the library's own loops (right sides, errors) run on
 * OpenMP threads.  Their number is OMP_NUM_THREADS (default: one per processor), or what
 * ts_set_threads sets; a loop over a small vector or operator runs on fewer threads, down to
 * one (doc/user-guide.md, "Threads").  OMP_NUM_THREADS above TS_MAX_THREADS_PER_PROCESSOR x
 * the processors is lowered to that when the library is loaded, with a warning on stderr
 * (libgomp would try to start them all: 200000 crash it).
 * Idle OpenMP threads spin before they sleep (libgomp's default, OMP_WAIT_POLICY unset),
 * which on a machine with more runnable threads than cores takes the cores the working
 * threads need: run programs with OMP_WAIT_POLICY=passive set in their environment
 * (libgomp reads it once, when it is loaded; the tessera command sets it for itself). */

/** The most threads per processor that Tessera uses. */
#define TS_MAX_THREADS_PER_PROCESSOR 4
/** @brief The most threads Tessera uses: TS_MAX_THREADS_PER_PROCESSOR x the processors
 *  this process may run on (omp_get_num_procs()). */
int ts_threads_max(void);
/** @brief Use `threads` host threads for the calling thread's Tessera calls (OpenMP's
 *  omp_set_num_threads, checked): 1..ts_threads_max().
 *  @return 0, or TS_ERR_ARG naming the value and the allowed range */
int ts_set_threads(int threads);

/* ---------------------------------------------------------------- backends */

typedef struct ts_backend_s *ts_backend;

/** @brief Load and start a backend by name ("omp", "cuda", "hip").
 *  The module tessera_NAME.so is searched in $TESSERA_BACKEND_PATH (colon separated), then
 *  beside the library: LIBDIR/tessera, LIBDIR being the folder libtessera.so was loaded from
 *  (then the configured install folder, if different); the uninstalled library of a build
 *  tree looks in BUILD/backends/NAME/.libs instead (doc/backends.md).  A module built for
 *  another backend ABI or lacking a required member is refused.  Fails with TS_ERR_BACKEND
 *  naming the backend, the places searched or the module file, and the reason. */
int ts_backend_open(const char *name, ts_backend *backend);
/** @brief Stop and unload a backend (NULL allowed; sets *backend to NULL). */
int ts_backend_destroy(ts_backend *backend);
/** @brief The backend's name (borrowed). */
const char *ts_backend_name(ts_backend backend);
/** @brief A one-line description of the backend's devices and threads (borrowed). */
const char *ts_backend_description(ts_backend backend);
/** @brief The file the backend's module was loaded from, as an absolute path (borrowed). */
const char *ts_backend_path(ts_backend backend);
/** @brief Memory available to this backend for new objects, in bytes. */
int ts_backend_memory_available(ts_backend backend, size_t *bytes);
/** @brief Names of backends that are built and found, separated by spaces (caller frees
 *  with free()); a backend listed here may still fail to start. */
int ts_backend_list(char **names);
/** @brief Measure the backend's ceilings now (takes up to a second): copy bandwidth in
 *  bytes/s (read + write counted) and the FP64 and FP32 FMA throughput in flop/s (any
 *  output pointer may be NULL).  TS_ERR_UNSUPPORTED if the backend cannot measure them. */
int ts_backend_measure_ceilings(ts_backend backend, double *copy_bytes_per_second,
                                double *fp64_flops_per_second, double *fp32_flops_per_second);

/* ---------------------------------------------------------------- meshes */

typedef struct ts_mesh_s *ts_mesh;

/** @brief A box [lower, upper] in dim (2 or 3) dimensions with coarse[d] cells per
 *  direction on level 0, uniformly refined `levels` times (finest level = levels).
 *  Each extent upper[d] - lower[d] must be a number from 1e-60 to 1e60 (TS_ERR_ARG
 *  otherwise), so that every cell size, its inverse and the operators' scale factors are
 *  finite. */
int ts_mesh_create_box(int dim, const double *lower, const double *upper, const int *coarse,
                       int levels, ts_mesh *mesh);
int ts_mesh_destroy(ts_mesh *mesh);
/** @brief Spatial dimension. */
int ts_mesh_dim(ts_mesh mesh);
/** @brief Index of the finest level. */
int ts_mesh_finest_level(ts_mesh mesh);
/** @brief Cells per direction on a level (cells[dim]). */
int ts_mesh_cells(ts_mesh mesh, int level, int64_t *cells);
/** @brief Cell size per direction on a level (h[dim]). */
int ts_mesh_cell_size(ts_mesh mesh, int level, double *h);
/** @brief Lower and upper corners (borrowed arrays of length dim). */
const double *ts_mesh_lower(ts_mesh mesh);
const double *ts_mesh_upper(ts_mesh mesh);

/* ---------------------------------------------------------------- mapped meshes */

/** A function of points, called with a batch: values at count points x[count*dim] (point i
 *  at x[i*dim .. i*dim+dim-1]) into values[count*m], m values per point as the function's
 *  use says (a map: dim; a right side, Dirichlet data, an exact solution: 1; a gradient:
 *  dim).  ctx is the pointer given with the function.  Return 0, or a non-zero number that
 *  the library reports with the cell it was called for.  Tessera calls it once per cell
 *  (or per batch of boundary points) from several OpenMP threads at once: it must be safe
 *  to call concurrently (read ctx, do not write it without a lock). */
typedef int (*ts_point_fn)(void *ctx, int dim, int64_t count, const double *x, double *values);

/* ---------------------------------------------------------------- expressions */

typedef struct ts_expression_s *ts_expression;

/** @brief A function of the point x = (x, y, z) written as text, in muparser's syntax
 *  (doc/user-guide.md, "Expressions"): + - * / ^, sin cos tan exp log sqrt abs min max ...,
 *  the variables x, y (and z in 3D; x alone in 1D), the constant pi, and `components`
 *  comma-separated expressions for that many values per point ("pi*cos(pi*x), 0" for a 2D
 *  gradient).  The text is parsed here: an error names the column where parsing stopped.
 *  @param text        the expression (copied), at most 4096 bytes
 *  @param dim         1..3: the variables it may use
 *  @param components  values per point, 1..9
 *  @return 0; TS_ERR_ARG with muparser's message and the column; TS_ERR_MEMORY */
int ts_expression_create(const char *text, int dim, int components, ts_expression *expression);
/** @brief The expression as a ts_point_fn: ctx is a ts_expression, values[count*components].
 *  Safe to call from several threads at once (one parser per host thread).  Returns 0, or
 *  TS_ERR_ARG if dim is not the expression's. */
int ts_expression_evaluate(void *ctx, int dim, int64_t count, const double *x, double *values);
/** @brief The text of the expression (borrowed), NULL for NULL. */
const char *ts_expression_text(ts_expression expression);
void ts_expression_destroy(ts_expression *expression);

/** How the cells of a mapped mesh follow the map x = phi(xi). */
typedef enum {
  TS_GEOMETRY_QK = 0,         /**< curved cells: the geometry is the Q_k interpolant of phi at
                                   the Q_k nodes of every cell (k: the element's degree) */
  TS_GEOMETRY_MULTILINEAR = 1 /**< straight-sided cells: phi at the 2^dim vertices of every
                                   cell, multilinear in between */
} ts_geometry;

/** @brief The image of the unit box [0,1]^dim under a map x = phi(xi): coarse[d] cells per
 *  direction on level 0, refined `levels` times in the reference box, every cell of a level
 *  the image of its reference cell (sampled as `geometry` says when DoFs are created,
 *  ts_dofs_create: phi is called once per cell with the cell's nodes or vertices, values:
 *  dim per point).  phi must be one-to-one with a positive Jacobian determinant; an
 *  inverted cell is refused when an operator is made on it (ts_operator_create_mapped).
 *  The DoF numbering, boundary DoFs and levels are those of the box; ts_dofs_point gives
 *  the mapped point.  Mapped meshes take Q_k elements and the operator, right side and
 *  errors of this section (the box's ts_operator_create_laplace, ts_assemble_rhs,
 *  ts_compute_errors, ts_mg_create refuse them).
 *  @param map, ctx  phi and its context (borrowed: ctx must outlive the mesh)
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed */
int ts_mesh_create_mapped(int dim, const int *coarse, int levels, ts_point_fn map, void *ctx,
                          ts_geometry geometry, ts_mesh *mesh);
/** @brief The mesh whose level-0 vertices are given: (coarse[0]+1) x .. x (coarse[dim-1]+1)
 *  vertices, lexicographic (direction 0 fastest), dim coordinates each (copied); every cell
 *  multilinear (TS_GEOMETRY_MULTILINEAR), refined levels the multilinear subdivision. */
int ts_mesh_create_vertices(int dim, const int *coarse, int levels, const double *vertices,
                            ts_mesh *mesh);
/** @brief Kershaw's mesh of the unit box (D. Kershaw, J. Comput. Phys. 39, 1981; the CEED
 *  benchmark mesh): epsilon in (0, 1], 1 the uniform box, 0.3 strongly deformed cells.  The
 *  map is piecewise multilinear with kinks at x_0 = j/6 and x_d = 1/2, so coarse[0] must be
 *  a multiple of 6 and the other coarse[d] multiples of 2 (cells then follow the kinks and
 *  the geometry is exact). */
int ts_mesh_create_kershaw(int dim, const int *coarse, int levels, double epsilon, ts_mesh *mesh);
/** @brief The unit box with a smooth sinusoidal distortion that keeps its boundary:
 *  x_d = xi_d + amplitude prod_e sin(2 pi xi_e), |amplitude| < 1 / (2 pi dim) (invertible). */
int ts_mesh_create_sine(int dim, const int *coarse, int levels, double amplitude, ts_mesh *mesh);
/** @brief A sector of an annulus (2D) or a spherical shell (3D): radius r = inner + (outer -
 *  inner) xi_0, direction v / |v| with v = (1, tan(angle (xi_1 - 1/2)), tan(angle (xi_2 -
 *  1/2))), 0 < inner < outer and 0 < angle < pi (radians): in 2D the angles -angle/2 ..
 *  angle/2 about the x axis; in 3D a cubed-sphere patch.  Curved cells (TS_GEOMETRY_QK). */
int ts_mesh_create_shell(int dim, const int *coarse, int levels, double inner, double outer,
                         double angle, ts_mesh *mesh);
/** @brief 1 if the mesh is mapped (ts_mesh_create_mapped and the creators above), 0 for a
 *  box, -1 for NULL. */
int ts_mesh_is_mapped(ts_mesh mesh);

/* ---------------------------------------------------------------- finite elements */

typedef struct ts_fe_s *ts_fe;

/** Element families. */
typedef enum {
  TS_FE_INVALID = -1, /**< returned by ts_fe_family_of given a NULL handle */
  TS_FE_Q = 0,   /**< continuous Q_k, Gauss-Lobatto points */
  TS_FE_RT = 1,  /**< Raviart-Thomas RT_k, H(div)-conforming (doc/stokes.md) */
  TS_FE_DGQ = 2, /**< discontinuous Q_k, Gauss-Legendre points */
  TS_FE_RT_IH = 3, /**< RT_k in the interpolation-histopolation basis (paper 003) */
  TS_FE_L2_IH = 4  /**< discontinuous Q_k in the histopolation basis (paper 003) */
} ts_fe_family;

/** @brief Continuous Q_k element on Gauss-Lobatto support points, k = 1..10. */
int ts_fe_create_q(int dim, int degree, ts_fe *fe);
/** @brief Raviart-Thomas element RT_k, k = 0..9: component i is continuous of degree k+1 on
 *  Gauss-Lobatto points in direction i and discontinuous of degree k on Gauss points in the
 *  others (doc/stokes.md, section 1). */
int ts_fe_create_rt(int dim, int degree, ts_fe *fe);
/** @brief Discontinuous DGQ_k element on Gauss-Legendre points, k = 0..9. */
int ts_fe_create_dgq(int dim, int degree, ts_fe *fe);
/** @brief RT_k, k = 0..9, in the interpolation-histopolation basis of paper 003 (section
 *  2.1): each cell is cut into (k+1)^dim sub-cells at the k+2 Gauss-Lobatto points per
 *  direction, and the DoFs are the fluxes of the normal component through the sub-cells'
 *  faces; component i interpolates (degree k+1, continuous) in direction i and histopolates
 *  (degree k) in the others.  The DoFs are numbered as those of ts_fe_create_rt;
 *  ts_dofs_point gives the centre of a DoF's sub-face. */
int ts_fe_create_rt_ih(int dim, int degree, ts_fe *fe);
/** @brief The discontinuous Q_k, k = 0..9, in the histopolation basis of paper 003: the DoFs
 *  are the integrals over the (k+1)^dim Gauss-Lobatto sub-cells of each cell (numbered as
 *  those of ts_fe_create_dgq; ts_dofs_point gives a sub-cell's centre).  With RT_k of
 *  ts_fe_create_rt_ih, the divergence maps DoFs to DoFs by +-1 entries
 *  (ts_matrix_assemble_divergence). */
int ts_fe_create_l2_ih(int dim, int degree, ts_fe *fe);
/** @brief The element's family. */
ts_fe_family ts_fe_family_of(ts_fe fe);
/** @brief Number of vector components (dim for RT_k, 1 otherwise). */
int ts_fe_components(ts_fe fe);
int ts_fe_destroy(ts_fe *fe);
int ts_fe_degree(ts_fe fe);
int ts_fe_dim(ts_fe fe);
/** @brief The 1D support points on [0,1] (borrowed, degree+1 values). */
const double *ts_fe_points_1d(ts_fe fe);

/* ---------------------------------------------------------------- DoF handlers */

typedef struct ts_dofs_s *ts_dofs;

/** @brief Lexicographic numbering of the element's DoFs on one mesh level. */
int ts_dofs_create(ts_mesh mesh, ts_fe fe, int level, ts_dofs *dofs);
int ts_dofs_destroy(ts_dofs *dofs);
/** @brief Total number of DoFs. */
int64_t ts_dofs_count(ts_dofs dofs);
/** @brief The mesh, the element and the mesh level the DoFs were made for (borrowed; NULL,
 *  NULL and -1 for NULL DoFs). */
ts_mesh ts_dofs_mesh(ts_dofs dofs);
ts_fe ts_dofs_fe(ts_dofs dofs);
int ts_dofs_level(ts_dofs dofs);
/** @brief DoFs per direction (n[dim]); DoF (i,j,l) has index i + n0*(j + n1*l). */
int ts_dofs_per_direction(ts_dofs dofs, int64_t *n);
/** @brief Coordinates of DoF `index` (x[dim]); on a mapped mesh the mapped point (the node
 *  of the cells' geometry). */
int ts_dofs_point(ts_dofs dofs, int64_t index, double *x);
/** @brief 1 if the DoF lies on the boundary of the box (a Dirichlet DoF), else 0. */
int ts_dofs_is_boundary(ts_dofs dofs, int64_t index);
/** @brief Number of boundary DoFs. */
int64_t ts_dofs_boundary_count(ts_dofs dofs);

/** The faces of the box (of the reference box on a mapped mesh), as bits of a set: in
 *  direction 0 the lower face "left" and the upper "right", in direction 1 "bottom" and
 *  "top", in direction 2 "front" and "back". */
enum {
  TS_FACE_LEFT = 1, TS_FACE_RIGHT = 2, TS_FACE_BOTTOM = 4, TS_FACE_TOP = 8,
  TS_FACE_FRONT = 16, TS_FACE_BACK = 32
};
/** Every face of a box of dimension dim (TS_FACE_LEFT .. TS_FACE_TOP in 2D). */
#define TS_FACES_ALL(dim) ((dim) == 3 ? 63u : 15u)
/** @brief The set of faces named in `names` (separated by spaces or commas: left, right,
 *  bottom, top, and in 3D front, back; "all"; "" or "none" for the empty set) into *faces.
 *  @return 0, or TS_ERR_ARG naming the unknown word and the allowed ones. */
int ts_faces_from_names(const char *names, int dim, unsigned *faces);
/** @brief The Neumann faces of Q_k DoFs (default none: a DoF on any face of the box is a
 *  Dirichlet DoF).  The DoFs of a Neumann face (its edges and corners too, unless they lie
 *  on a Dirichlet face) become unknowns.  Set before an operator, right side or multigrid
 *  hierarchy is made from the DoFs; only the operators on mapped cells
 *  (ts_operator_create_mapped) take Neumann faces, the box tools refuse them.
 *  @param faces  a set of TS_FACE_* bits; TS_FACES_ALL(dim): a pure Neumann problem
 *  @return 0, or TS_ERR_ARG for bits beyond the dimension's faces or DoFs not of Q_k */
int ts_dofs_set_neumann_faces(ts_dofs dofs, unsigned faces);
/** @brief The Neumann faces (TS_FACE_* bits; 0 for NULL). */
unsigned ts_dofs_neumann_faces(ts_dofs dofs);
/** @brief 1 if the DoF is a Dirichlet DoF: on a face of the box that is not a Neumann face
 *  (ts_dofs_is_boundary without Neumann faces), else 0; -1 for bad arguments. */
int ts_dofs_is_dirichlet(ts_dofs dofs, int64_t index);

/* ---------------------------------------------------------------- vectors */

typedef struct ts_vec_s *ts_vec;

/** @brief A vector of n entries of precision p in the backend's memory, set to zero. */
int ts_vec_create(ts_backend backend, int64_t n, ts_precision p, ts_vec *v);
int ts_vec_destroy(ts_vec *v);
/** @brief A view of the entries offset .. offset+n-1 of x: a vector of its own that shares
 *  x's memory (no copy: writing through the view changes x), on x's backend, in x's
 *  precision; the field of a block vector [x_0; x_1; ...] is a view.  x must outlive the
 *  view; ts_vec_destroy on the view frees nothing of x.  Views of views are allowed.
 *  @return 0, or TS_ERR_ARG naming the range when it is not inside x */
int ts_vec_create_view(ts_vec x, int64_t offset, int64_t n, ts_vec *view);
int64_t ts_vec_size(ts_vec v);
ts_precision ts_vec_precision(ts_vec v);
/** @brief Copy n doubles from host memory into v (converting to v's precision). */
int ts_vec_set_from_host(ts_vec v, const double *values);
/** @brief Copy v into n doubles of host memory. */
int ts_vec_get_to_host(ts_vec v, double *values);
/** @brief v = alpha everywhere. */
int ts_vec_set(ts_vec v, double alpha);
/** @brief Fill v with reproducible pseudo-random values in [-1,1] from a seed. */
int ts_vec_set_random(ts_vec v, uint64_t seed);
/** @brief y = x (precisions may differ: the values are converted). */
int ts_vec_copy(ts_vec x, ts_vec y);
/** @brief y = alpha x + beta y. */
int ts_vec_axpby(double alpha, ts_vec x, double beta, ts_vec y);
/** @brief w = x .* y (entrywise). */
int ts_vec_pointwise_mult(ts_vec x, ts_vec y, ts_vec w);
/** @brief x = f_0 (x) f_1 (x) f_2, on the device: x[i_0 + n_0 (i_1 + n_1 i_2)] =
 *  f_0[i_0] f_1[i_1] f_2[i_2] (dim 2 or 3 factors, factors[d] a host array of n[d] values,
 *  n[0] ... n[dim-1] = the size of x).  A separable right side or initial vector without a
 *  host vector of the full size.  TS_ERR_UNSUPPORTED if the backend lacks the kernel. */
int ts_vec_set_tensor(ts_vec x, int dim, const int64_t *n, const double *const *factors);
/** @brief The Euclidean inner product x . y (accumulated in double). */
int ts_vec_dot(ts_vec x, ts_vec y, double *result);
/** @brief The Euclidean norm. */
int ts_vec_norm(ts_vec x, double *result);

/** A vector layout: the global size of a vector, the range [begin, end) of its entries
 *  that this process owns, and the number of processes it is spread over.  Today every
 *  vector lives whole on one process (global size n, range [0, n), one process); a
 *  distributed vector (issue 16, doc/design.md "Vector layouts") fills the same fields. */
typedef struct ts_layout_s *ts_layout;
/** @brief The serial layout of n entries: global size n, this process owns [0, n), one
 *  process.  The caller owns it (ts_layout_destroy).
 *  @return 0, TS_ERR_ARG if n < 0 or l is NULL (*l NULL), TS_ERR_MEMORY */
int ts_layout_create_serial(int64_t n, ts_layout *l);
/** @brief Free a layout of ts_layout_create_serial and set *l to NULL (NULL is allowed).
 *  @return 0, or TS_ERR_ARG for a vector's layout (ts_vec_layout), which its vector owns */
int ts_layout_destroy(ts_layout *l);
/** @brief The entries over all processes (-1 for NULL). */
int64_t ts_layout_global_size(ts_layout l);
/** @brief The first entry this process owns (-1 for NULL). */
int64_t ts_layout_begin(ts_layout l);
/** @brief One past the last entry this process owns (-1 for NULL). */
int64_t ts_layout_end(ts_layout l);
/** @brief The number of processes the entries are spread over (-1 for NULL). */
int ts_layout_processes(ts_layout l);
/** @brief The layout of v, borrowed: it lives as long as v and is not destroyed by the
 *  caller.  A vector of n entries has the serial layout of n; a view (ts_vec_create_view)
 *  has the layout of its own n entries, not a range of the viewed vector's.
 *  @return the layout, or NULL (TS_ERR_ARG recorded) if v is NULL */
ts_layout ts_vec_layout(ts_vec v);

/* ---------------------------------------------------------------- operators */

typedef struct ts_operator_s *ts_operator;

/** @brief The matrix-free Laplacian (grad u, grad v) on Q_k with homogeneous Dirichlet
 *  constraints on the whole boundary: boundary rows and columns are replaced by the
 *  identity.  Applied by sum factorization on the backend, in precision p. */
int ts_operator_create_laplace(ts_backend backend, ts_dofs dofs, ts_precision p,
                               ts_operator *op);
/** Default penalty factor eta of the Stokes operator: gamma_F = eta (k+1)(k+2) / h_F
 *  (doc/stokes.md section 3). */
#define TS_STOKES_DEFAULT_PENALTY 1.0
/** @brief The matrix-free Stokes operator of paper 000 (eq. 3-4): velocity RT_k with the
 *  symmetric interior penalty form, pressure DGQ_k, on one level of a box
 *  (doc/stokes.md).  The vector is x = [u_0; ..; u_{dim-1}; p] (velocity DoFs, then
 *  pressure DoFs) and y = Acal x with y_u = A u + B^T p, y_p = -B u; the normal velocity
 *  on the box boundary is constrained (identity rows, read as zero).
 *  @param backend   the backend that applies it (needs the stokes_apply kernel)
 *  @param velocity  DoFs of an RT_k element (borrowed; must outlive the operator)
 *  @param pressure  DoFs of a DGQ_k element of the same degree, mesh and level (borrowed)
 *  @param penalty   eta; a value <= 0 selects TS_STOKES_DEFAULT_PENALTY
 *  @param p         precision of the application (TS_DOUBLE or TS_SINGLE)
 *  @param op        the new operator
 *  @return 0, TS_ERR_ARG naming the mismatch (family, degree, level), TS_ERR_UNSUPPORTED if
 *          the backend lacks the kernel, TS_ERR_MEMORY */
int ts_operator_create_stokes(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                              double penalty, ts_precision p, ts_operator *op);
/** @brief The Taylor-Hood Stokes operator (papers 001/004, doc/taylor-hood.md): velocity
 *  Q_k (k >= 2) in each component and pressure Q_{k-1}, both continuous, on one level of a
 *  box; the velocity is Dirichlet data on the whole boundary.  The vector is
 *  x = [u_0; ..; u_{dim-1}; p] (each velocity component numbered as `velocity`, then the
 *  pressure) and y = Acal x with y_u = A u + B^T p, y_p = -B u as for
 *  ts_operator_create_stokes: A the vector Laplacian (one matrix-free Q_k Laplacian per
 *  component, identity rows and columns on the boundary DoFs), -B u = (div u, q).  The
 *  coupling blocks are Kronecker products of 1D matrices, applied by the backend's
 *  kronecker_apply (the parts at the boundary velocity, for the unconstrained operator, as
 *  sparse matrices).  The Stokes helpers take it: ts_stokes_pressure_mean,
 *  ts_stokes_pressure_mean_remove, ts_operator_create_stokes_block and _symmetric,
 *  ts_pc_create_pressure_mass (with the lumped pressure mass, which is not diagonal here).
 *  @param backend   the backend (needs the Laplacian and the sparse matrix kernels)
 *  @param velocity  DoFs of a Q_k element, k >= 2, on a box (borrowed; must outlive the
 *                   operator): each velocity component
 *  @param pressure  DoFs of a Q_{k-1} element on the same mesh and level (borrowed)
 *  @param p         precision of the application (TS_DOUBLE or TS_SINGLE)
 *  @param op        the new operator
 *  @return 0, TS_ERR_ARG naming the mismatch (family, degree, mesh, level, Neumann faces),
 *          TS_ERR_UNSUPPORTED if the backend lacks a kernel, TS_ERR_MEMORY */
int ts_operator_create_taylor_hood(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                                   ts_precision p, ts_operator *op);
/** @brief The consistent mass matrix M_ij = (phi_i, phi_j) of a Q_k space on a box, over all
 *  its DoFs (no boundary rows: e.g. the Taylor-Hood pressure), the Kronecker product of the
 *  1D mass matrices (exact Gauss rule), applied by the backend's kronecker_apply; its diagonal
 *  (ts_operator_diagonal) is the product of the 1D diagonals.
 *  @param dofs  DoFs of a Q_k element on a box (read at creation only)
 *  @return 0, TS_ERR_ARG (NULL, not Q_k, a mapped mesh, the precision), TS_ERR_UNSUPPORTED
 *          (the backend lacks the kernel), TS_ERR_MEMORY */
int ts_operator_create_mass(ts_backend backend, ts_dofs dofs, ts_precision p, ts_operator *M);
/** @brief The mean of the pressure block of x, sum_q W_q p_q / sum_q W_q with the tensor
 *  Gauss weights W (doc/stokes.md section 6; Taylor-Hood: W_q = (1, psi_q), the integral of
 *  the pressure basis function, so the mean is that of the pressure field).
 *  @param stokes  an operator from ts_operator_create_stokes or _taylor_hood
 *  @param x       a vector of the operator's size and precision
 *  @param mean    the mean
 *  @return 0, or TS_ERR_ARG if stokes is not a Stokes operator or x does not fit */
int ts_stokes_pressure_mean(ts_operator stokes, ts_vec x, double *mean);
/** @brief Subtract the pressure mean from the pressure block of x, leaving the velocity
 *  unchanged (doc/stokes.md section 6).
 *  @param stokes  an operator from ts_operator_create_stokes or _taylor_hood
 *  @param x       a vector of the operator's size and precision, changed in place
 *  @return 0, or TS_ERR_ARG if stokes is not a Stokes operator or x does not fit */
int ts_stokes_pressure_mean_remove(ts_operator stokes, ts_vec x);
/** @brief Block (row, col) of the Stokes operator Acal = [A B^T; -B 0] (doc/stokes.md
 *  section 3) as a matrix-free operator: (0,0) is A (velocity x velocity, symmetric positive
 *  definite, identity rows and columns on the constrained normal boundary velocity), (0,1)
 *  is B^T (velocity rows, pressure columns), (1,0) is -B (pressure rows, velocity columns:
 *  (-B u)_q = +(q, div u), B_{q,u} = -(q, div u) as in doc/stokes.md).  Each application
 *  costs one full Stokes application (the other block of the input is zero); the (0,0)
 *  block also has its diagonal (ts_operator_diagonal, so Jacobi and Chebyshev), from the
 *  Kronecker form of doc/stokes.md section 4.
 *  @param stokes  an operator from ts_operator_create_stokes (borrowed: it must outlive
 *                 the block)
 *  @param row, col  0 (velocity) or 1 (pressure); (1,1) is the zero block and refused
 *                 (pass NULL to ts_operator_create_block)
 *  @param block   the new operator, in the precision and on the backend of stokes
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed */
int ts_operator_create_stokes_block(ts_operator stokes, int row, int col, ts_operator *block);
/** @brief The symmetric form of the Stokes system for MINRES: [A B^T; B 0] = diag(I, -I) Acal
 *  (doc/stokes.md section 3: the pressure rows change sign): Acal applied once, its
 *  pressure rows negated.  Symmetric and indefinite, singular by the constant pressure like
 *  Acal; a right side b of Acal x = b is one of this form after its pressure block changes
 *  sign.  Costs one Stokes application and a work vector.
 *  @param stokes  an operator from ts_operator_create_stokes (borrowed)
 *  @param op      the new operator
 *  @return 0, or TS_ERR_ARG if stokes is NULL or not a Stokes operator */
int ts_operator_create_stokes_symmetric(ts_operator stokes, ts_operator *op);
/** @brief The Jacobi preconditioner: the inverse of A's diagonal, applied entrywise. */
int ts_operator_create_jacobi(ts_operator A, ts_operator *jacobi);
int ts_operator_destroy(ts_operator *op);
/** @brief y = A x. */
int ts_operator_apply(ts_operator op, ts_vec x, ts_vec y);
/** @brief y += A x. */
int ts_operator_apply_add(ts_operator op, ts_vec x, ts_vec y);
/** @brief The diagonal of A into d. */
int ts_operator_diagonal(ts_operator op, ts_vec d);
/** @brief y = A x without the boundary constraints (all rows and columns of the
 *  unconstrained matrix), for lifting inhomogeneous Dirichlet data to the right side. */
int ts_operator_apply_unconstrained(ts_operator op, ts_vec x, ts_vec y);
/** @brief Number of rows (entries of the output vector). */
int64_t ts_operator_size(ts_operator op);
/** @brief Number of columns (entries of the input vector); = ts_operator_size for a square
 *  operator, the only kind a solver or preconditioner takes. */
int64_t ts_operator_columns(ts_operator op);
/** @brief The block operator A = [A_00 .. A_0c-1; ..; A_r-1,0 .. A_r-1,c-1] on block vectors
 *  x = [x_0; ..; x_c-1] (the blocks stored one after the other, no gaps; each block is a
 *  view, ts_vec_create_view): y_i = sum_j A_ij x_j, matrix-free on the blocks' backend.
 *  A block-diagonal preconditioner is a block operator with preconditioners on the
 *  diagonal.
 *  @param rows, cols  block rows and columns, 1..16 each
 *  @param blocks      rows*cols operators, row-major (blocks[i*cols + j] = A_ij), borrowed
 *                     (they must outlive A); NULL is a zero block.  Every block row and
 *                     column needs one operator; the operators of a block row agree in
 *                     their rows, those of a block column in their columns, and all share
 *                     one backend and precision
 *  @param op          the new operator: ts_operator_size = sum of the block rows' sizes,
 *                     ts_operator_columns = sum of the block columns'; its diagonal
 *                     (ts_operator_diagonal, so Jacobi) exists when every diagonal block is
 *                     square and has one
 *  @return 0, or TS_ERR_ARG naming the block that does not fit */
int ts_operator_create_block(int rows, int cols, const ts_operator *blocks, ts_operator *op);
/** The most block rows and columns of ts_operator_create_block and ts_matrix_create_block. */
#define TS_BLOCK_MAX 16
/** @brief The sum y = alpha A x + beta B x, matrix-free (two applications and two vector
 *  updates, through a work vector of the rows owned by the new operator).
 *  @param alpha, beta  the coefficients, finite numbers
 *  @param A, B         operators of the same rows and columns, backend and precision,
 *                      borrowed (they must outlive the sum)
 *  @param op           the new operator: its diagonal (ts_operator_diagonal) is
 *                      alpha diag(A) + beta diag(B) when both are square and have one; its
 *                      transpose (ts_operator_create_transpose) alpha A^T + beta B^T when both
 *                      have one
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*op NULL) */
int ts_operator_create_sum(double alpha, ts_operator A, double beta, ts_operator B,
                           ts_operator *op);
/** @brief The multiple y = alpha A x, matrix-free (one application into a work vector owned by
 *  the new operator, and a vector update): -W^{-1} as a block of a saddle-point operator, say.
 *  @param alpha  a finite number
 *  @param A      borrowed (it must outlive the multiple)
 *  @param op     the new operator ("multiple"): its diagonal is alpha diag(A) when A is square
 *                and has one, its transpose alpha A^T when A has one, its matrix
 *                (ts_operator_assemble) alpha times A's
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*op NULL) */
int ts_operator_create_multiple(double alpha, ts_operator A, ts_operator *op);
/** @brief The product y = A (B x), matrix-free (B, then A on a work vector of B's rows owned
 *  by the new operator).
 *  @param A, B  operators with B's rows = A's columns, one backend and precision, borrowed
 *               (they must outlive the product)
 *  @param op    the new operator, A's rows x B's columns: no diagonal; its transpose is
 *               B^T A^T when A and B have one
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*op NULL) */
int ts_operator_create_product(ts_operator A, ts_operator B, ts_operator *op);
/** @brief The transpose y = A^T x, for operators that know it: the Laplacian and Jacobi
 *  (symmetric), the Stokes blocks (A^T = A, the transpose of B^T is B = -(block (1,0))) and
 *  the symmetric Stokes form, block operators whose blocks all have one ([A_ij]^T =
 *  [A_ji^T]), sums, products and transposes of such operators.
 *  @param A   the operator, borrowed (it must outlive the transpose)
 *  @param op  the new operator, A's columns x A's rows, with A's diagonal when A is square
 *             and has one; its transpose is A
 *  @return 0, TS_ERR_ARG for a NULL argument, or TS_ERR_UNSUPPORTED naming A
 *          (ts_operator_name) when it has no transpose (*op NULL) */
int ts_operator_create_transpose(ts_operator A, ts_operator *op);
/** @brief Precision the operator is applied in. */
ts_precision ts_operator_precision(ts_operator op);
/** @brief Floating-point operations of one application (counted, for benchmarks). */
double ts_operator_flops(ts_operator op);
/** @brief A short name ("laplace", "jacobi", "stokes", "matrix", "boomeramg"). */
const char *ts_operator_name(ts_operator op);

/* ---------------------------------------------------------------- sparse matrices */

/** A sparse matrix in compressed sparse row (CSR) form, stored on the host in double
 *  (lib/sparse/): 0-based int64_t indices, the columns of a row ascending, no duplicates.
 *  Built once (from triplets or assembled from a matrix-free operator's cell matrices), then
 *  applied on a backend (ts_operator_create_matrix) or given to an algebraic preconditioner
 *  (ts_operator_create_boomeramg). */
typedef struct ts_matrix_s *ts_matrix;

/** @brief A rows x cols matrix from `count` triplets (row_indices[t], col_indices[t],
 *  values[t]): entries given more than once are summed (as in finite element assembly);
 *  entries not given are zero.  An explicit zero is kept as a stored entry.
 *  @param rows, cols    1 .. INT32_MAX each (hypre and cuSPARSE take 32-bit rows)
 *  @param count         number of triplets, >= 0 (the three arrays may be NULL when 0)
 *  @param row_indices   count row indices in 0 .. rows-1
 *  @param col_indices   count column indices in 0 .. cols-1
 *  @param values        count finite values
 *  @param A             the new matrix
 *  @return 0, TS_ERR_ARG naming the argument (and the triplet, the value found and the
 *          range allowed), TS_ERR_MEMORY */
int ts_matrix_create_triplets(int64_t rows, int64_t cols, int64_t count,
                              const int64_t *row_indices, const int64_t *col_indices,
                              const double *values, ts_matrix *A);
/** @brief The matrix of ts_operator_create_laplace on dofs (Q_k), assembled from its cell
 *  matrices A_K = sum_d scale[d] (x)_e (e == d ? K_1d : M_1d) (the same 1D matrices as the
 *  matrix-free plan), with the same Dirichlet treatment: the rows and columns of the
 *  boundary DoFs are those of the identity.  Symmetric positive definite; (2k+1)^dim
 *  entries per interior row at most.
 *  @return 0, TS_ERR_ARG (NULL arguments, not a Q_k DoF handler, more than INT32_MAX DoFs),
 *          TS_ERR_MEMORY */
int ts_matrix_assemble_laplace(ts_dofs dofs, ts_matrix *A);
/** @brief D: the divergence from RT_k to DGQ_k in the interpolation-histopolation bases
 *  (velocity of ts_fe_create_rt_ih, pressure of ts_fe_create_l2_ih, the same mesh, level and
 *  degree): (D u)_s is the integral of div u over the sub-cell s, the sum of the fluxes out
 *  of its 2 dim faces, so every entry is +1 or -1 (at most two per column, 2 dim per row),
 *  whatever the degree and the cell sizes (paper 003, section 3.2).  All velocity DoFs are
 *  columns, the boundary ones included. */
int ts_matrix_assemble_divergence(ts_dofs velocity, ts_dofs pressure, ts_matrix *D);
/** @brief b_j = (f, phi_j) for the DoFs of RT_k or DGQ_k in the interpolation-histopolation
 *  bases (ts_fe_create_rt_ih, ts_fe_create_l2_ih) on the cells of a box or a mapped mesh
 *  (ts_mesh_create_mapped, _kershaw, ...), into the host array b (ts_dofs_count entries): f
 *  gives dim values per point for RT_k, one for DGQ_k, and is called once per cell, from the
 *  calling thread, with the cell's (k+3)^dim Gauss points (on a mapped cell their images
 *  under the cell's geometry, the operators': doc/hdiv.md, "Deformed meshes").  The spaces
 *  are mapped as the operators map them: phi = J phi^ / det J (contravariant Piola), psi =
 *  psi^ / det J (integrals over the sub-cells kept), so (f, phi_j) = sum_q w_q (J^T f) .
 *  phi^_j.
 *  @return 0; TS_ERR_ARG naming the argument, an inverted cell (det J <= 0, by name), or the
 *          cell and point where f failed or gave a value that is not finite */
int ts_hdiv_load_vector(ts_dofs dofs, ts_point_fn f, void *ctx, double *b);
/** @brief The L2 error ||u_h - u|| of the RT_k or DGQ_k field (ts_fe_create_rt_ih,
 *  ts_fe_create_l2_ih) with the DoFs `values` (host array) against u (dim values per point
 *  for RT_k, one for DGQ_k; called as f above), by the Gauss rule of k+3 points per direction
 *  on every cell of a box or a mapped mesh (u_h mapped as in ts_hdiv_load_vector, the weights
 *  times det J).
 *  @return as ts_hdiv_load_vector */
int ts_hdiv_l2_error(ts_dofs dofs, const double *values, ts_point_fn u, void *ctx,
                     double *l2_error);
/** @brief The prescribed fluxes of RT_k (ts_fe_create_rt_ih): for every flux DoF j on the box
 *  faces `faces` (TS_FACE_* bits; on a mapped mesh the images of the unit box's faces)
 *  values[j] = the integral of u . n over its boundary sub-face, n the normal pointing to
 *  growing reference x_i (the orientation of every flux DoF; on a box e_i), the DoF of the
 *  interpolant of u; the other entries are left alone.  On a mapped cell n dS = adj(J)^T e_i
 *  ds from the tangents of the face's geometry.  u gives dim values per point and is called
 *  once per boundary cell face (from the calling thread) with the Gauss rule of k+3 points on
 *  each of the face's sub-intervals (mapped: their images).
 *  @return 0; TS_ERR_ARG naming the argument, or the face, cell and point where u failed or
 *          gave a value that is not finite */
int ts_hdiv_boundary_fluxes(ts_dofs velocity, unsigned faces, ts_point_fn u, void *ctx,
                            double *values);
/** @brief b_j += (p, phi_j . n) over the box faces `faces` (n the outward normal; on a mapped
 *  mesh the images of the unit box's faces, where phi_j . n dS = +-phi^_j,i ds), for the flux
 *  DoFs of RT_k there: the term of the natural (pressure) condition p = p_D in the Darcy
 *  problem (ts_hdiv_system_rhs).  p gives one value per point and is called as u in
 *  ts_hdiv_boundary_fluxes.
 *  @return as ts_hdiv_boundary_fluxes */
int ts_hdiv_boundary_pressure(ts_dofs velocity, unsigned faces, ts_point_fn p, void *ctx,
                              double *b);
/** @brief The diagonal of the mass matrix (c u, v) of an interpolation-histopolation
 *  element (ts_fe_create_rt_ih: the H(div) mass M_beta; ts_fe_create_l2_ih: the L2 mass
 *  W_alpha) into the host array diagonal (ts_dofs_count(dofs) entries).  On the box mesh's
 *  Cartesian cells exactly, by tensor products; on a mapped mesh that of the matrix-free
 *  masses with their Piola maps and quadrature (ts_operator_create_hdiv_mass,
 *  ts_operator_create_l2_mass: the same numbers as their diagonals).  c = coefficient x
 *  cell_coefficients[cell], constant per cell (cells numbered c_0 + cells_0 (c_1 + cells_1
 *  c_2) as ts_coefficients).
 *  @param coefficient        > 0, finite
 *  @param cell_coefficients  NULL (c = coefficient) or one value > 0 per cell of the level
 *  @return 0, or TS_ERR_ARG naming the argument (and the cell), or an inverted cell */
int ts_dofs_mass_diagonal(ts_dofs dofs, double coefficient, const double *cell_coefficients,
                          double *diagonal);
/** The coefficients of the H(div) saddle-point systems of paper 003 on a level: alpha of
 *  the L2 mass W_alpha = (alpha q, r) and beta of the H(div) mass M_beta = (beta u, v), each a
 *  constant times a value per cell (NULL: 1; cells numbered as ts_coefficients).  The
 *  grad-div problem beta u - grad(alpha div u) = f (eq. 1) has both positive; the Darcy
 *  problem beta u + grad p = f, div u = g (eq. 2 with epsilon = 1/beta, gamma = 0) has no
 *  (2,2) block: alpha = INFINITY (W_alpha^{-1} = 0, eq. 10), alpha_cells NULL. */
typedef struct ts_hdiv_coefficients {
  double alpha, beta;                     /**< > 0; alpha may be INFINITY */
  const double *alpha_cells, *beta_cells; /**< NULL or > 0 per cell (the caller's arrays) */
} ts_hdiv_coefficients;
/** @brief S~ = diag(W_alpha)^{-1} + D diag(M_beta)^{-1} D^T, the approximate Schur complement
 *  of paper 003 (eqs. 15-16) for the grad-div and Darcy saddle-point systems in the
 *  interpolation-histopolation bases: an M-matrix with at most 2 dim off-diagonal entries
 *  per row, for AMG (ts_pc_create_boomeramg).  The flux DoFs on the faces fixed_flux_faces
 *  (TS_FACE_* bits) are prescribed, not unknowns: their terms are left out of the sums.
 *  With alpha = INFINITY and every face fixed S~ is singular, the constants its null space.
 *  On a mapped mesh the diagonals are those of ts_dofs_mass_diagonal there (D does not
 *  depend on the geometry): the same pattern, still an M-matrix.
 *  @return 0, or TS_ERR_ARG naming the argument (and the cell), or an inverted cell */
int ts_matrix_assemble_hdiv_schur(ts_dofs velocity, ts_dofs pressure,
                                  const ts_hdiv_coefficients *coefficients,
                                  unsigned fixed_flux_faces, ts_matrix *S);
/** @brief The mass matrix (c u, v) of an interpolation-histopolation element
 *  (ts_fe_create_rt_ih: M_beta; ts_fe_create_l2_ih: W_alpha) on the box mesh's Cartesian
 *  cells, c constant per cell as in ts_dofs_mass_diagonal: per component a Kronecker product
 *  of 1D mass matrices, its entries scaled by the cells' coefficients. */
int ts_matrix_assemble_mass(ts_dofs dofs, double coefficient, const double *cell_coefficients,
                            ts_matrix *M);
/** @brief The inverse of W_alpha (ts_matrix_assemble_mass) of the discontinuous element
 *  ts_fe_create_l2_ih: block diagonal, one Kronecker product of 1D inverses per cell. */
int ts_matrix_assemble_mass_inverse(ts_dofs dofs, double coefficient,
                                    const double *cell_coefficients, ts_matrix *M);

/* ---------------------------------------------------------------- the DG mass and its inverse */

/* The L2 mass W_alpha = (alpha q, r) of a discontinuous space (ts_fe_create_dgq: nodal at the
 * Gauss-Legendre points; ts_fe_create_l2_ih: the histopolation basis) on a box or a mapped
 * level, and its inverse, matrix-free (paper 003, sections 2.5 and 3.1; doc/hdiv.md, "DG mass
 * inverse"). */

/** How ts_operator_create_l2_mass_inverse applies W^{-1}. */
typedef enum {
  TS_MASS_INVERSE_AUTO = 0,        /**< explicit for k <= 2, CG in the Gauss-Legendre basis
                                        above (paper 003, Table 1; doc/hdiv.md) */
  TS_MASS_INVERSE_EXPLICIT = 1,    /**< each cell's dense inverse (LAPACK dpotrf, dpotri at
                                        setup), applied as a batched matrix-vector product */
  TS_MASS_INVERSE_CHOLESKY = 2,    /**< each cell's Cholesky factor (dpotrf at setup), two
                                        triangular solves per application (omp backend only) */
  TS_MASS_INVERSE_CG_LEGENDRE = 3, /**< CG on every cell, fused, in the Gauss-Legendre nodal
                                        basis with Jacobi preconditioning */
  TS_MASS_INVERSE_CG_LOBATTO = 4   /**< the same in the Gauss-Lobatto nodal basis */
} ts_mass_inverse_method;

/** Options of ts_operator_create_l2_mass_inverse (ts_mass_inverse_options_default). */
typedef struct ts_mass_inverse_options {
  ts_mass_inverse_method method; /**< default TS_MASS_INVERSE_AUTO */
  double tolerance;              /**< CG, per cell: r^T P r <= tolerance^2 b^T P b (P the
                                      Jacobi preconditioner), in (0, 1); default 1e-12 */
  int max_iterations;            /**< CG, per cell: 1..1000; default 100 */
} ts_mass_inverse_options;

/** @brief The defaults: TS_MASS_INVERSE_AUTO, tolerance 1e-12, 100 iterations. */
int ts_mass_inverse_options_default(ts_mass_inverse_options *options);
/** @brief "auto", "explicit", "cholesky", "cg-legendre", "cg-lobatto"; NULL for a value that is
 *  not a method. */
const char *ts_mass_inverse_method_name(ts_mass_inverse_method method);
/** @brief The method of a name of ts_mass_inverse_method_name into *method; TS_ERR_ARG naming
 *  the word and the allowed ones. */
int ts_mass_inverse_method_from_name(const char *name, ts_mass_inverse_method *method);
/** @brief The L2 mass W_alpha = (alpha q, r) of a DGQ_k space on a box or mapped level, k =
 *  0..9, applied by sum factorization with the Gauss rule of k+2 points per direction (exact
 *  on multilinear cells: the integrand is of degree 2k+2 per direction in 3D), in double
 *  precision.  ts_fe_create_dgq maps q = q^ o phi^{-1} (W = sum_q w_q alpha det J_q ...),
 *  ts_fe_create_l2_ih integral-preserving, q = q^ / det J (W = sum_q w_q alpha / det J_q ...),
 *  as ts_matrix_assemble_mass.  The cells' geometry is that of Q_k on the mesh (multilinear,
 *  or the Q_max(k,1) interpolant of the map for TS_GEOMETRY_QK).  Symmetric positive
 *  definite, block diagonal.
 *  @param dofs   DGQ_k DoFs (ts_fe_create_dgq or ts_fe_create_l2_ih) of a box or mapped mesh
 *                (borrowed: must outlive the operator)
 *  @param alpha  per cell alpha > 0 and finite (ts_mesh_cells' numbering, copied), NULL for 1
 *  @return 0; TS_ERR_ARG naming the argument, or the cell whose alpha is not allowed or whose
 *          Jacobian determinant is not positive; TS_ERR_UNSUPPORTED if the backend lacks the
 *          kernel 'l2_mass_apply'; TS_ERR_MEMORY */
int ts_operator_create_l2_mass(ts_backend backend, ts_dofs dofs, const double *alpha,
                               ts_operator *W);
/** @brief W_alpha^{-1} (ts_operator_create_l2_mass) by options->method (NULL: the defaults):
 *  the explicit or Cholesky methods factor every cell's dense block once here (LAPACK; n^2
 *  values per cell, n = (k+1)^dim); the CG methods change to the Gauss-Legendre or
 *  Gauss-Lobatto nodal basis, solve on every cell by Jacobi-preconditioned CG and change
 *  back, all in one kernel per application, with no reduction over cells (their tolerance
 *  is per cell, relative; the result is W^{-1} x to about that tolerance).  Double precision.
 *  @return 0; TS_ERR_ARG naming the argument or option, its value and what is allowed;
 *          TS_ERR_UNSUPPORTED if the backend lacks the method (Cholesky: omp only);
 *          TS_ERR_MEMORY (the explicit and Cholesky methods need n^2 values per cell) */
int ts_operator_create_l2_mass_inverse(ts_backend backend, ts_dofs dofs, const double *alpha,
                                       const ts_mass_inverse_options *options, ts_operator *W_inv);
/** @brief The method a mass inverse applies (TS_MASS_INVERSE_AUTO resolved) into *method. */
int ts_operator_l2_mass_inverse_method(ts_operator W_inv, ts_mass_inverse_method *method);
/** @brief The local CG iterations of the last application of a CG mass inverse: the largest
 *  over cells and the mean (0 and 0 before the first application and for the direct
 *  methods).  Copies one value per cell from the backend. */
int ts_operator_l2_mass_inverse_iterations(ts_operator W_inv, int *max_iterations,
                                           double *mean_iterations);
/** @brief M_beta = (beta u, v), the H(div) mass of RT_k (paper 003, sections 2-3), matrix-free
 *  on the cells of a box or a mapped mesh, in double precision: per cell the components are
 *  interpolated to the Gauss points (k+2 per direction: exact on affine cells) by sum
 *  factorization, multiplied by G_q = w_q beta J^T J / det J (the contravariant Piola map
 *  u = J u^ / det J, which keeps normal fluxes, so the face DoFs shared by two cells stay
 *  H(div)-conforming on any mapped mesh) and integrated back; on the box's Cartesian cells G
 *  is diagonal and constant per cell.  ts_fe_create_rt_ih's DoFs are fluxes (the map of
 *  ts_matrix_assemble_mass, which the box case reproduces); ts_fe_create_rt's are the
 *  coefficients of the reference field u^.  Symmetric positive definite; its exact diagonal
 *  (ts_operator_diagonal, so Jacobi) is computed once here.  The cells' geometry is that of
 *  Q_k on a mapped mesh, as for ts_operator_create_l2_mass.
 *  @param dofs  RT_k DoFs (ts_fe_create_rt or ts_fe_create_rt_ih) of a box or mapped mesh
 *               (borrowed: must outlive the operator)
 *  @param beta  per cell beta > 0 and finite (ts_mesh_cells' numbering, copied), NULL for 1
 *  @return 0; TS_ERR_ARG naming the argument, or the cell whose beta is not allowed or whose
 *          Jacobian determinant is not positive; TS_ERR_UNSUPPORTED if the backend lacks the
 *          kernel 'hdiv_mass_apply'; TS_ERR_MEMORY */
int ts_operator_create_hdiv_mass(ts_backend backend, ts_dofs dofs, const double *beta,
                                 ts_operator *M);
/** @brief C = A (x) B, the Kronecker product: C[ia rows(B) + ib][ja cols(B) + jb] =
 *  A[ia][ja] B[ib][jb] (a new matrix). */
int ts_matrix_kronecker(ts_matrix A, ts_matrix B, ts_matrix *C);
/** @brief T = A^T (a new matrix). */
int ts_matrix_transpose(ts_matrix A, ts_matrix *T);
/** @brief C = alpha A + beta B (a new matrix with the union of the two patterns; A and B of
 *  one size, alpha and beta finite). */
int ts_matrix_add(double alpha, ts_matrix A, double beta, ts_matrix B, ts_matrix *C);
/** @brief The block matrix [A_ij] (a new matrix; PETSc's MatCreateNest made one matrix):
 *  blocks[i*cols + j] = A_ij, row-major, NULL a zero block; every block row and column
 *  needs one matrix, whose rows (columns) the others of that block row (column) share.
 *  rows, cols: 1..TS_BLOCK_MAX. */
int ts_matrix_create_block(int rows, int cols, const ts_matrix *blocks, ts_matrix *C);
/** @brief The sparse matrix of a matrix-free operator (a new matrix), built from the 1D or
 *  cell matrices its plan is made of, not by probing it with unit vectors: the Q_k
 *  Laplacian (ts_matrix_assemble_laplace), the Q_k mass (ts_operator_create_mass), the
 *  RT and Taylor-Hood Stokes operators (constrained velocity DoFs: identity rows and
 *  columns), their blocks and symmetric form, Jacobi (ts_operator_create_jacobi), and sums, products, transposes
 *  and block operators of such (their parts assembled and combined by ts_matrix_add,
 *  ts_matrix_multiply, ts_matrix_transpose and ts_matrix_create_block).  Applied by
 *  ts_operator_create_matrix it computes what the operator does, to rounding; BoomerAMG
 *  (ts_operator_create_boomeramg) and the multigrid coarse solves take it.
 *  @return 0, TS_ERR_UNSUPPORTED naming an operator (or part) without an assembly (mapped
 *          cells, a matrix operator: keep its ts_matrix),
 *          TS_ERR_ARG, TS_ERR_MEMORY */
int ts_operator_assemble(ts_operator op, ts_matrix *A);
/** @brief C = A B (a new matrix; A's columns must be B's rows).  Entries that cancel to zero
 *  stay stored. */
int ts_matrix_multiply(ts_matrix A, ts_matrix B, ts_matrix *C);
/** @brief C = A B as ts_matrix_multiply, computed by the backend where it has a sparse
 *  product (cuda, hip: the sparse library's SpGEMM; the operands go to the device and C comes
 *  back to the host), else on the host (omp, NULL backend).  The same pattern as
 *  ts_matrix_multiply's (entries that cancel stay stored); the values agree to rounding, the
 *  device summing in another order.
 *  @return 0, TS_ERR_ARG (NULL A, B or C, sizes that do not fit), TS_ERR_UNSUPPORTED (a
 *          product beyond the backend's indices: cuSPARSE's SpGEMM takes 32-bit ones),
 *          TS_ERR_BACKEND, TS_ERR_MEMORY */
int ts_matrix_multiply_on(ts_backend backend, ts_matrix A, ts_matrix B, ts_matrix *C);
/** @brief A = diag(row_scale) A diag(column_scale) in place: row_scale has A's rows entries,
 *  column_scale its columns, all finite; either may be NULL (no scaling). */
int ts_matrix_scale(ts_matrix A, const double *row_scale, const double *column_scale);
/** @brief A_ii += d[i] for every row of the square matrix A, in place; the pattern stays, so
 *  every row with d[i] != 0 must store its diagonal entry. */
int ts_matrix_add_diagonal(ts_matrix A, const double *d);
int ts_matrix_destroy(ts_matrix *A);
/** @brief Number of rows. */
int64_t ts_matrix_rows(ts_matrix A);
/** @brief Number of columns. */
int64_t ts_matrix_columns(ts_matrix A);
/** @brief Number of stored entries. */
int64_t ts_matrix_nonzeros(ts_matrix A);
/** @brief The CSR arrays (borrowed, valid while A lives): row i holds entries
 *  row_offsets[i] .. row_offsets[i+1]-1 of columns and values (rows + 1 offsets).  Any
 *  output pointer may be NULL. */
int ts_matrix_csr(ts_matrix A, const int64_t **row_offsets, const int64_t **columns,
                  const double **values);
/** @brief y = A x as an operator on the backend (sparse matrix-vector product: the omp
 *  backend's OpenMP loop, cuSPARSE on cuda), in precision p (the values rounded once).  The
 *  backend copies the CSR arrays into its memory here, once: A may be destroyed afterwards.
 *  Its diagonal (ts_operator_diagonal, so ts_operator_create_jacobi) is A's.
 *  @return 0, TS_ERR_ARG naming the argument, TS_ERR_UNSUPPORTED if the backend has no CSR
 *          kernel, TS_ERR_MEMORY */
int ts_operator_create_matrix(ts_backend backend, ts_matrix A, ts_precision p, ts_operator *op);

/* ---------------------------------------------------------------- algebraic multigrid */

/** @brief One V-cycle of hypre's BoomerAMG (algebraic multigrid) for the square matrix A,
 *  from a zero initial guess, as a preconditioner P ~ A^{-1} on double vectors of the
 *  backend: symmetric positive definite for a symmetric positive definite A, so a
 *  preconditioner for CG.  Set up once here, on the host in double (hypre's ParCSR on
 *  MPI_COMM_SELF of one process; MPI is initialized here if the program has not, and
 *  finalized at exit then).  Options: HMIS coarsening, extended+i interpolation (at most 4
 *  entries per row), hybrid symmetric Gauss-Seidel relaxation (one sweep down and up),
 *  strong threshold 0.25 in 2D and 0.5 in 3D (the dimension of a matrix from
 *  ts_matrix_assemble_laplace; 0.25 for one from triplets), Gaussian elimination on the
 *  coarsest level, one V-cycle per application (max iterations 1, tolerance 0).  hypre runs on the host: on a GPU backend
 *  every application copies r to the host and P r back (`tessera info` says so).  A is
 *  copied: it may be destroyed afterwards.
 *  @return 0, TS_ERR_ARG naming the argument (A not square), TS_ERR_UNSUPPORTED when
 *          Tessera was built without hypre ("configure --with-hypre"), TS_ERR_BACKEND when
 *          hypre or MPI fail (naming the call), TS_ERR_MEMORY */
int ts_operator_create_boomeramg(ts_backend backend, ts_matrix A, ts_operator *P);
/** @brief The version of the hypre library Tessera was built with ("2.26.0"), or "" when
 *  built without hypre (then ts_operator_create_boomeramg fails with TS_ERR_UNSUPPORTED). */
const char *ts_hypre_version(void);

/* ---------------------------------------------------------------- smoothers */

/** A smoother S(x, b) for A x = b: one step improves the approximation x in place.  The
 *  multigrid V-cycle calls it before and after the coarse-grid correction. */
typedef struct ts_smoother_s *ts_smoother;

/** Variants of the vertex-patch smoother (paper 002, Table 4): Separate computes the patch
 *  residual and the local solve in two kernels, Fused in one. */
typedef enum { TS_PATCH_SEPARATE = 0, TS_PATCH_FUSED = 1 } ts_patch_variant;

/** @brief The multiplicative vertex-patch Schwarz smoother (paper 002, Algorithm 2.3) for
 *  the Laplacian A on dofs: patches of 2^dim cells around the interior vertices, swept color
 *  by color; the local problems are solved exactly by fast diagonalization (eq. 2.11-2.15).
 *  A is borrowed and must outlive the smoother. */
int ts_smoother_create_vertex_patch(ts_operator A, ts_dofs dofs, ts_patch_variant variant,
                                    ts_smoother *smoother);
/** Local solvers of the Stokes vertex-patch smoother (doc/stokes.md section 7). */
typedef enum {
  TS_STOKES_PATCH_SCHUR = 0,  /**< Schur complement: CG on the patch pressure, the velocity
                                   blocks inverted by fast diagonalization (paper 000, eq. 9-10) */
  TS_STOKES_PATCH_DIRECT = 1  /**< pseudo-inverse of the dense patch matrix (paper 000,
                                   section 3.3); only 2D k <= 4 and 3D k <= 1 */
} ts_stokes_patch_solver;

/** @brief The multiplicative vertex-patch Schwarz smoother for the Stokes system of RT_k x
 *  DGQ_k (paper 000, sections 3.1-3.2, Algorithm 2; doc/stokes.md section 7): patches of
 *  2^dim cells around the interior vertices, swept color by color; per color the global
 *  residual r = b - Acal x is computed once and every patch of the color adds its local
 *  solution R_j^T Acal_j^{+} R_j r to x.
 *  @param stokes    the Stokes operator (borrowed, must outlive the smoother)
 *  @param velocity  the RT_k DoF handler of the operator's level
 *  @param pressure  the DGQ_k DoF handler of the same level
 *  @param solver    the local solver
 *  @param smoother  the new smoother
 *  @return 0, or TS_ERR_ARG (inconsistent arguments, a direct solver too big),
 *          TS_ERR_UNSUPPORTED (the backend lacks stokes_patch_smooth), TS_ERR_LAPACK */
int ts_smoother_create_stokes_patch(ts_operator stokes, ts_dofs velocity, ts_dofs pressure,
                                    ts_stokes_patch_solver solver, ts_smoother *smoother);
/** Default relative tolerance of the pressure CG of the Schur-complement local solver
 *  (doc/stokes.md section 7): the CG is preconditioned by the inverse pressure mass and stops
 *  when the residual's M^{-1} norm has dropped by this factor, so the local solve is inexact,
 *  as in paper 000 (section 3.3: "on average 15 CG iterations"); 1e-12 solves exactly. */
#define TS_STOKES_PATCH_CG_TOLERANCE 1e-4
/** @brief Set the relative tolerance of the pressure CG of a Stokes vertex-patch smoother
 *  with the Schur-complement local solver.
 *  @param smoother   from ts_smoother_create_stokes_patch
 *  @param tolerance  in (0, 1): the reduction of the residual's M^{-1} norm; a tolerance
 *                    below what the precision can reach (10 eps) stops there instead
 *  @return 0, or TS_ERR_ARG (not a Stokes smoother, not the Schur solver, tolerance out of range) */
int ts_smoother_stokes_patch_set_cg_tolerance(ts_smoother smoother, double tolerance);
/** @brief The highest degree k the local solver takes in dim dimensions: TS_MAX_DEGREE - 1
 *  for TS_STOKES_PATCH_SCHUR; for TS_STOKES_PATCH_DIRECT 4 in 2D and 1 in 3D (its dense patch
 *  matrices grow as ((dim + 1) (2k + 2)^dim)^2).  -1 for a dim or solver out of range. */
int ts_stokes_patch_solver_max_degree(int dim, ts_stokes_patch_solver solver);
/** Parameters of the relaxations of the coupled Taylor-Hood system [A B^T; -B 0] (papers
 *  001/004 section 2; doc/taylor-hood.md section 7).  A zero field takes the relaxation's
 *  default, given with each field; ts_saddle_relaxation_default fills the defaults. */
typedef struct ts_saddle_relaxation {
  double weight;        /**< Vanka: the weight omega of the update, in (0, 2]
                             (TS_VANKA_WEIGHT additive, TS_VANKA_MULTIPLICATIVE_WEIGHT
                             multiplicative); Braess-Sarazin: omega_BS, in (0, 2]
                             (TS_BRAESS_SARAZIN_WEIGHT; for k >= 3
                             TS_BRAESS_SARAZIN_HIGH_ORDER_WEIGHT); Schur-Uzawa: not used (its update is
                             unweighted, the paper's Algorithm 4) */
  double t;             /**< Braess-Sarazin, Schur-Uzawa: A is replaced by t D, D = diag(A),
                             t > 0 (TS_BRAESS_SARAZIN_T; Schur-Uzawa 1, as the paper) */
  int schur_sweeps;     /**< Braess-Sarazin, Schur-Uzawa: weighted Jacobi sweeps on
                             S = B (t D)^{-1} B^T from zero, 1..100 (TS_BRAESS_SARAZIN_SWEEPS;
                             Schur-Uzawa 1) */
  double schur_weight;  /**< their weight, in (0, 2) (TS_BRAESS_SARAZIN_SCHUR_WEIGHT; for
                             k >= 3 TS_BRAESS_SARAZIN_HIGH_ORDER_SCHUR_WEIGHT; Schur-Uzawa 0.4,
                             as the paper) */
  int multiplicative;   /**< Vanka: 0 additive (default: every patch corrects from one
                             residual), 1 multiplicative by colors (the residual recomputed
                             before each of the 4^dim colors; the patch corrections weighted
                             by omega alone) */
} ts_saddle_relaxation;
/** Defaults of ts_saddle_relaxation (doc/taylor-hood.md section 7 says how they were chosen). */
#define TS_VANKA_WEIGHT 0.8
#define TS_VANKA_MULTIPLICATIVE_WEIGHT 0.6
#define TS_BRAESS_SARAZIN_WEIGHT 1.0
#define TS_BRAESS_SARAZIN_T 1.0
#define TS_BRAESS_SARAZIN_SWEEPS 3
#define TS_BRAESS_SARAZIN_SCHUR_WEIGHT 1.0
/** Braess-Sarazin's weights for Q_k x Q_{k-1}, k >= 3 (beyond the papers' Q2 x Q1: with the
 *  weights above 3D Q3 x Q2 needs 18, 38, 117 iterations on 4^3 .. 16^3 cells, with these 12,
 *  15, 17; doc/taylor-hood.md section 7). */
#define TS_BRAESS_SARAZIN_HIGH_ORDER_WEIGHT 0.8
#define TS_BRAESS_SARAZIN_HIGH_ORDER_SCHUR_WEIGHT 0.7
#define TS_SCHUR_UZAWA_T 1.0
#define TS_SCHUR_UZAWA_SWEEPS 1
#define TS_SCHUR_UZAWA_SCHUR_WEIGHT 0.4
/** @brief Vanka relaxation of the Taylor-Hood Q2 x Q1 system (paper 004, Algorithm 3): one
 *  patch per pressure vertex, its pressure DoF and the velocity DoFs of the 2^dim cells
 *  around it (50 + 1 DoFs in 2D, 375 + 1 in 3D, fewer at the boundary), solved exactly by
 *  the patch matrix's inverse, computed once per kind of patch (a uniform box has at most
 *  5^dim kinds).  Additive: x += omega sum_i V_i^T W_i A_i^{-1} V_i (b - Acal x), W_i =
 *  diag(1 / the number of patches holding each DoF); multiplicative: x += omega V_i^T A_i^{-1}
 *  V_i (b - Acal x) color by color (4^dim colors of patches the operator does not couple),
 *  the residual recomputed before each color.  Boundary velocity DoFs keep their values.
 *  @param stokes    a Taylor-Hood operator of degree 2 (ts_operator_create_taylor_hood;
 *                   borrowed, must outlive the smoother)
 *  @param params    NULL for the defaults; weight and multiplicative are read
 *  @return 0, or TS_ERR_ARG (not Q2 x Q1 Taylor-Hood, a parameter out of range),
 *          TS_ERR_UNSUPPORTED (the backend lacks vanka_apply), TS_ERR_LAPACK */
int ts_smoother_create_vanka(ts_operator stokes, const ts_saddle_relaxation *params,
                             ts_smoother *smoother);
/** @brief Inexact Braess-Sarazin relaxation (paper 004, Algorithm 2, eqs. (17)-(18)) of a
 *  Taylor-Hood system: with D = diag(A) and S = B (t D)^{-1} B^T, dp from schur_sweeps
 *  weighted Jacobi sweeps (from zero) on S dp = B (t D)^{-1} r_u - r_p' (r_p' the residual of
 *  the symmetric form's second row), du = (t D)^{-1} (r_u - B^T dp), then x += omega_BS
 *  (du, dp).  Any degree k >= 2.
 *  @param stokes  a Taylor-Hood operator (borrowed, must outlive the smoother)
 *  @param params  NULL for the defaults; weight, t, schur_sweeps and schur_weight are read */
int ts_smoother_create_braess_sarazin(ts_operator stokes, const ts_saddle_relaxation *params,
                                      ts_smoother *smoother);
/** @brief Schur-Uzawa relaxation (paper 004, Algorithm 4): du = (t D)^{-1} r_u, dp from
 *  schur_sweeps weighted Jacobi sweeps on S dp = B du - r_p', x += (du, dp).  Arguments as
 *  for ts_smoother_create_braess_sarazin (weight is not read). */
int ts_smoother_create_schur_uzawa(ts_operator stokes, const ts_saddle_relaxation *params,
                                   ts_smoother *smoother);
/** @brief Chebyshev iteration of the given degree (>= 1) on D^{-1} A (D the diagonal of A),
 *  targeting the upper part of the spectrum; degree 1 is damped point Jacobi. */
int ts_smoother_create_chebyshev(ts_operator A, int degree, ts_smoother *smoother);
/** @brief Chebyshev iteration of the given degree on P A: as ts_smoother_create_chebyshev
 *  with the symmetric positive definite preconditioner P (borrowed: it must outlive the
 *  smoother; same size, backend and precision as A) in place of D^{-1}; the interval from
 *  12 steps of P-preconditioned CG at creation. */
int ts_smoother_create_chebyshev_preconditioned(ts_operator A, ts_operator P, int degree,
                                                ts_smoother *smoother);
/** @brief One smoothing step x <- S(x, b). */
int ts_smoother_apply(ts_smoother smoother, ts_vec b, ts_vec x);
/** @brief A short name ("vertex-patch", "chebyshev"). */
const char *ts_smoother_name(ts_smoother smoother);
int ts_smoother_destroy(ts_smoother *smoother);

/* ---------------------------------------------------------------- Krylov solvers */

typedef struct ts_solver_s *ts_solver;

/** The Krylov methods (one file each in lib/solve/; doc/user-guide.md, "Solvers"). */
typedef enum {
  TS_SOLVER_CG = 0,     /**< "cg": conjugate gradients; A and P symmetric positive definite */
  TS_SOLVER_GMRES = 1,  /**< "gmres": restarted GMRES(m), any A; P right (the flexible update,
                             so a P that is linear only up to rounding is fine) or left */
  TS_SOLVER_FGMRES = 2, /**< "fgmres": flexible GMRES(m), P from the right and allowed to
                             change from one application to the next; right side only */
  TS_SOLVER_MINRES = 3  /**< "minres": MINRES for symmetric, possibly indefinite A (saddle
                             points) with a symmetric positive definite P; short recurrences
                             (7 work vectors); converged when the P-norm of the residual
                             ||r||_P = sqrt(r.P r) <= rtol ||r0||_P */
} ts_solver_type;

/** Called after each iteration with the iteration number and relative residual;
 *  returning non-zero stops the solve with TS_ERR_ARG ("stopped by monitor").  A second
 *  call with the same iteration number carries the true residual, computed after the
 *  iteration's own (GMRES's Arnoldi estimate, CG's updated residual): at each GMRES
 *  restart and when either claims convergence (doc/accuracy.md). */
typedef int (*ts_monitor_fn)(void *ctx, int iteration, double relative_residual);

int ts_solver_create(ts_solver_type type, ts_solver *solver);
int ts_solver_destroy(ts_solver *solver);
/** @brief "cg", "gmres", "fgmres" or "minres" into *type; TS_ERR_ARG naming the allowed
 *  values otherwise. */
int ts_solver_type_from_name(const char *name, ts_solver_type *type);
/** @brief The name of a solver type ("cg"), or "" for an unknown one. */
const char *ts_solver_type_name(ts_solver_type type);
/** @brief The names of all solver types, comma separated ("cg, gmres, fgmres, minres"). */
const char *ts_solver_type_names(void);
/** @brief The operator A (borrowed: it must outlive the solver). */
int ts_solver_set_operator(ts_solver solver, ts_operator A);
/** @brief A preconditioner P ~ A^{-1} (borrowed; NULL for none).  GMRES preconditions
 *  from the right unless told otherwise (ts_solver_set_side); CG requires P symmetric
 *  positive definite. */
int ts_solver_set_preconditioner(ts_solver solver, ts_operator P);
/** Where GMRES applies the preconditioner. */
typedef enum {
  TS_SIDE_RIGHT = 0, /**< minimize the true residual ||b - A x|| over x0 + P K(A P, r0);
                          converged when ||b - A x|| <= rtol ||b|| (the default) */
  TS_SIDE_LEFT = 1   /**< minimize the preconditioned residual ||P (b - A x)|| over
                          x0 + K(P A, P r0) (the default of deal.II's and PETSc's GMRES);
                          converged when ||P r|| <= rtol ||P r0||, so the residuals that
                          the solver reports are preconditioned ones */
} ts_side;
/** @brief GMRES: the preconditioner's side (TS_SIDE_RIGHT by default); CG ignores it;
 *  FGMRES and MINRES refuse TS_SIDE_LEFT (TS_ERR_ARG). */
int ts_solver_set_side(ts_solver solver, ts_side side);
/** @brief "left" or "right" into *side; TS_ERR_ARG naming the allowed values otherwise. */
int ts_side_from_name(const char *name, ts_side *side);
/** @brief Stop when ||r|| <= rtol ||b|| (GMRES with TS_SIDE_LEFT: ||P r|| <= rtol ||P r0||;
 *  MINRES: ||r||_P <= rtol ||r0||_P); fail after max_iterations. */
int ts_solver_set_tolerances(ts_solver solver, double rtol, int max_iterations);
/** @brief GMRES restart length m (default 50). */
int ts_solver_set_restart(ts_solver solver, int restart);
int ts_solver_set_monitor(ts_solver solver, ts_monitor_fn fn, void *ctx);
/** @brief Solve A x = b starting from x, until the true residual meets rtol.  On
 *  TS_ERR_NOT_CONVERGED, TS_ERR_BREAKDOWN or TS_ERR_NAN, x holds the last iterate and the
 *  history is kept.  TS_ERR_NOT_CONVERGED also ends a solve whose rtol is below the floor
 *  rounding sets for the true residual (about eps ||A|| ||x||; doc/accuracy.md): the
 *  message names the attainable residual and a tolerance to ask for, and x is the most
 *  accurate iterate. */
int ts_solver_solve(ts_solver solver, ts_vec b, ts_vec x);
/** @brief Iterations of the last solve. */
int ts_solver_iterations(ts_solver solver);
/** @brief Final relative residual ||r|| / ||b|| of the last solve, the true one (GMRES with
 *  TS_SIDE_LEFT: ||P r|| / ||P r0||; MINRES: ||r||_P / ||r0||_P). */
double ts_solver_relative_residual(ts_solver solver);
/** @brief Relative residuals, entry 0 is the initial one (borrowed; *count entries). */
const double *ts_solver_history(ts_solver solver, int *count);

/* ---------------------------------------------------------------- preconditioners */

/** A preconditioner P ~ A^{-1} (one file per kind in lib/pc/; doc/extending.md, "Adding a
 *  preconditioner").  Kinds compose: the block kinds take other preconditioners as their
 *  blocks, and ts_pc_operator makes any of them an operator that solvers and block
 *  operators take unchanged.  A preconditioner borrows what it is made from (operators,
 *  hierarchies, inner preconditioners): they must outlive it. */
typedef struct ts_pc_s *ts_pc;
/** (the multigrid hierarchy of the next section) */
typedef struct ts_mg_s *ts_mg;

/** Shapes of the block-triangular preconditioner. */
typedef enum {
  TS_PC_LOWER = 0, /**< z_0 = A~^{-1} r_0, z_1 = S~^{-1} (r_1 - C z_0), C the (1,0) block */
  TS_PC_UPPER = 1  /**< z_1 = S~^{-1} r_1, z_0 = A~^{-1} (r_0 - C z_1), C the (0,1) block */
} ts_pc_shape;

/** @brief Jacobi: z = D^{-1} r, D the diagonal of A (computed at creation and by ts_pc_setup).
 *  @return 0, TS_ERR_ARG (NULL, A not square, a zero diagonal entry), TS_ERR_UNSUPPORTED
 *          (A has no diagonal) */
int ts_pc_create_jacobi(ts_operator A, ts_pc *pc);
/** @brief Weighted Jacobi: z = weight D^{-1} r (ts_pc_create_jacobi is weight 1), e.g. the
 *  smoother of a V-cycle made from parts (ts_pc_create_mg_jacobi).
 *  @param weight  in (0, 2] */
int ts_pc_create_jacobi_weighted(ts_operator A, double weight, ts_pc *pc);
/** @brief Richardson: `iterations` steps of the stationary iteration z += B (r - A z) from
 *  z = 0 (the first step is z = B r), B = inner: z = (I - (I - B A)^m) A^{-1} r, a fixed linear
 *  operator, symmetric when B is (PETSc's KSPRICHARDSON with a fixed count in PCKSP); e.g.
 *  several V-cycles where one is too weak (papers 001/004 solve the blocks of their
 *  block-triangular preconditioner by three).
 *  @param A           a square operator (borrowed)
 *  @param inner       a preconditioner of A's size, backend and precision (borrowed)
 *  @param iterations  1..100 */
int ts_pc_create_richardson(ts_operator A, ts_pc inner, int iterations, ts_pc *pc);
/** @brief Chebyshev: z = S(0, r) for the Chebyshev smoother of the given degree on D^{-1} A
 *  (ts_smoother_create_chebyshev; its eigenvalue estimate runs at creation and by
 *  ts_pc_setup): a fixed polynomial in D^{-1} A times D^{-1}, symmetric positive definite for
 *  a symmetric positive definite A.
 *  @param degree  matrix-vector products per application, 1..20 */
int ts_pc_create_chebyshev(ts_operator A, int degree, ts_pc *pc);
/** @brief The smoother as a preconditioner: z = S(0, r), one step from a zero initial guess
 *  (x <- x + B (b - A x) gives z = B r), e.g. a level's smoother of ts_pc_create_multigrid.
 *  The pc owns the smoother from here on (destroyed with it, and at once on error); kind
 *  "smoother", for programs (problem files do not name it).
 *  @return 0, or TS_ERR_ARG (NULL), TS_ERR_MEMORY */
int ts_pc_create_smoother(ts_smoother smoother, ts_pc *pc);
/** @brief Multigrid: one V-cycle of mg from a zero initial guess (ts_mg_preconditioner), on
 *  the double vectors of the finest level. */
int ts_pc_create_mg(ts_mg mg, ts_pc *pc);
/** @brief Algebraic multigrid: one hypre BoomerAMG V-cycle on the assembled matrix A
 *  (ts_operator_create_boomeramg: its options, and on a GPU backend the copy of r and z
 *  through the host per application), e.g. A = ts_matrix_assemble_laplace of the operator's
 *  DoF handler.  A is copied into hypre: it may be destroyed afterwards.
 *  @return 0, TS_ERR_ARG (NULL arguments, A not square), TS_ERR_UNSUPPORTED (built without
 *          hypre), TS_ERR_BACKEND (hypre or MPI failed) */
int ts_pc_create_boomeramg(ts_backend backend, ts_matrix A, ts_pc *pc);
/** Options of ts_pc_create_amg (ts_amg_options_default sets the defaults named here). */
typedef struct ts_amg_options {
  double strength_threshold; /**< theta: j is strongly coupled to i when |a_ij| >=
                                  theta max_{m != i} |a_im|; 0 <= theta < 1, default 0.12
                                  (above 1/9: the couplings across the long side of
                                  cells of aspect ratio 3 are weak) */
  int smoother_degree;       /**< Chebyshev degree on D^{-1} A_l, 1..20, default 4 */
  int smoothing_steps;       /**< pre- and post-smoothing steps each, 1..100, default 1 */
  int coarse_size;           /**< coarsen until at most this many rows, 1..8000 (dense LU
                                  there), default 200 */
  int max_levels;            /**< 1..32, default 32 */
  int prolongation_smoothing_steps; /**< damped Jacobi steps on the tentative prolongation,
                                         0 (plain aggregation) to 4; default 2 (1 is the
                                         classical smoothed aggregation, lib/mg/amg.c says
                                         what more steps buy) */
  int host_products;         /**< 0 (default): the setup's sparse products (A T, P^T A P)
                                  on the backend where it has them (cuda, hip: SpGEMM,
                                  ts_matrix_multiply_on); 1: on the host */
  int prolongation_filter;   /**< 1 (default): the prolongation is smoothed with the
                                  filtered matrix A_F (the weak and the positive couplings
                                  dropped and added to the diagonal: narrow coarse basis
                                  functions across the weak direction of anisotropic
                                  cells, lower operator complexity); 0: with A
                                  (lib/mg/amg.c) */
} ts_amg_options;
/** @brief The defaults of ts_amg_options. */
void ts_amg_options_default(ts_amg_options *options);
/** What ts_pc_create_amg built: level 0 is the given matrix (finest), levels-1 the coarsest. */
typedef struct ts_amg_hierarchy {
  int levels;
  int64_t rows[32], nonzeros[32];
  double operator_complexity; /**< the levels' nonzeros over the finest's */
} ts_amg_hierarchy;
/** @brief Algebraic multigrid of our own: one V-cycle of smoothed aggregation (Vanek,
 *  Mandel, Brezina) for the symmetric positive definite matrix A, as a preconditioner on any
 *  backend with sparse kernels (omp, cuda, hip): the hierarchy is built on the host once
 *  (strength of coupling, aggregates, the constant on each aggregate smoothed by damped
 *  Jacobi steps (options), Galerkin products P^T A P; the products on the backend where it has them,
 *  options->host_products), then every level's matrix and prolongation is
 *  copied to the backend, smoothed by Chebyshev on D^{-1} A_l and the coarsest solved by LU
 *  (lib/mg/amg.c).  Symmetric positive definite: a preconditioner for CG and MINRES.  Unlike
 *  ts_pc_create_boomeramg it keeps the levels' vectors on the device; only the coarsest's (at
 *  most coarse_size entries) goes to the host and back for the LU.  A may be destroyed
 *  afterwards.
 *  @param options    NULL for the defaults
 *  @param hierarchy  NULL, or filled with the levels' sizes
 *  @return 0, TS_ERR_ARG (NULL arguments, options out of range, A not square, not symmetric
 *          or with a diagonal entry <= 0, naming the row; a coarsening that stalls above 8000
 *          rows), TS_ERR_UNSUPPORTED (a backend without sparse kernels), TS_ERR_MEMORY */
int ts_pc_create_amg(ts_backend backend, ts_matrix A, const ts_amg_options *options, ts_pc *pc,
                     ts_amg_hierarchy *hierarchy);
/** @brief Any square operator as a preconditioner, z = P r (user code composes its own). */
int ts_pc_create_operator(ts_operator P, ts_pc *pc);
/** @brief An inner Krylov solve: z ~ A^{-1} r by a solver of the given type from z = 0,
 *  preconditioned by inner (NULL: none), stopped at rtol or after max_iterations (an inner
 *  solve that stops short of rtol is no error: its iterate is z).  Not a fixed linear
 *  operator: use it inside FGMRES, or with rtol small enough that it is one to the outer
 *  solver's accuracy (MINRES, CG).
 *  @param type            TS_SOLVER_CG for a symmetric positive definite A, any other type
 *  @param rtol            in (0, 1)
 *  @param max_iterations  >= 1 */
int ts_pc_create_krylov(ts_operator A, ts_solver_type type, ts_pc inner, double rtol,
                        int max_iterations, ts_pc *pc);
/** @brief The inverse pressure mass matrix of a Stokes operator, on pressure vectors
 *  (ts_dofs_count of the pressure DoFs entries): M_p is diagonal (cell volume times the
 *  tensor Gauss weights, the DGQ_k basis being orthogonal under its Gauss rule; doc/stokes.md
 *  section 4), spectrally equivalent to the Schur complement B A^{-1} B^T, so the pressure
 *  block of the block preconditioners.  For Taylor-Hood the consistent Q_{k-1} mass is not
 *  diagonal: its lumped form diag((1, psi_q)) is inverted, spectrally equivalent to it.
 *  @param stokes  an operator from ts_operator_create_stokes or _taylor_hood (borrowed) */
int ts_pc_create_pressure_mass(ts_operator stokes, ts_pc *pc);
/** @brief Block-diagonal: z_i = P_i r_i on block vectors [r_0; ..; r_{n-1}] (the blocks one
 *  after the other, as ts_operator_create_block).
 *  @param n         blocks, 1..16
 *  @param diagonal  n preconditioners (borrowed), all on one backend and in one precision */
int ts_pc_create_block_diagonal(int n, const ts_pc *diagonal, ts_pc *pc);
/** @brief Block-triangular on 2x2 block vectors: with the shape TS_PC_LOWER z_0 = A~^{-1} r_0,
 *  z_1 = S~^{-1} (r_1 - C z_0); with TS_PC_UPPER z_1 = S~^{-1} r_1, z_0 = A~^{-1} (r_0 - C z_1).
 *  For K = [A G; C' 0] the exact choices A~ = A and S~ = -C' A^{-1} G (the Schur complement)
 *  make K P (upper, C = G) and P K (lower, C = C') unit upper/lower triangular, so GMRES
 *  converges in two steps.  For the Stokes operator Acal = [A B^T; -B 0] the Schur complement
 *  is B A^{-1} B^T, positive and spectrally equivalent to the pressure mass: S~^{-1} =
 *  ts_pc_create_pressure_mass, C = ts_operator_create_stokes_block (0,1) (upper) or (1,0)
 *  (lower).  Not symmetric: use it with GMRES or FGMRES.
 *  @param shape      TS_PC_LOWER or TS_PC_UPPER
 *  @param a_inverse  A~^{-1} on block 0 (borrowed)
 *  @param coupling   C, block 1 x block 0 (lower) or block 0 x block 1 (upper) (borrowed)
 *  @param s_inverse  S~^{-1} on block 1 (borrowed) */
int ts_pc_create_block_triangular(ts_pc_shape shape, ts_pc a_inverse, ts_operator coupling,
                                  ts_pc s_inverse, ts_pc *pc);
/** @brief Multigrid from parts (PETSc's PCMG): one V-cycle from a zero guess per
 *  application, z = V_{L} r with L = levels-1: on level l >= 1 smoothing_steps steps
 *  x += S_l (b - A_l x) from x = 0, the coarse correction x += P_l V_{l-1} P_l^T (b - A_l x)
 *  (the restriction is P_l's transpose, apply_transpose), smoothing_steps steps again; on
 *  level 0 x = C b.  Symmetric when every S_l and C is (the same number of steps before and
 *  after the correction makes the error propagation A-self-adjoint), and then positive
 *  definite for convergent smoothers: a preconditioner for CG and MINRES (Chebyshev
 *  smoothers, ts_pc_create_chebyshev, and an exact coarse solve qualify; an inner Krylov
 *  coarse solve only to a tolerance far below the outer one).  Every part is borrowed (it
 *  must outlive pc); the work vectors of the levels are owned.
 *  @param levels           1..32
 *  @param A                levels square operators, A[0] coarsest .. A[levels-1] finest, on
 *                          one backend and in one precision; the pc is of A[levels-1]'s size
 *  @param P                levels operators, P[l] the prolongation from level l-1 to l
 *                          (A[l]'s rows x A[l-1]'s rows) with a transpose, l = 1..levels-1;
 *                          P[0] is not read (NULL allowed; the array itself may be NULL for
 *                          one level), e.g. ts_mg_transfer_operator
 *  @param smoothers        levels preconditioners, smoothers[l] of A[l]'s size, l >= 1;
 *                          smoothers[0] is not read
 *  @param smoothing_steps  pre- and post-smoothing steps each, 1..100
 *  @param coarse           the level-0 solve C ~ A[0]^{-1}, of A[0]'s size
 *  @param pc               the new preconditioner (kind "multigrid-levels"); ts_pc_setup sets
 *                          up the smoothers and the coarse solve
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*pc NULL) */
int ts_pc_create_multigrid(int levels, const ts_operator *A, const ts_operator *P,
                           const ts_pc *smoothers, int smoothing_steps, ts_pc coarse,
                           ts_pc *pc);
/** @brief Full multigrid with the parts of a ts_pc_create_multigrid preconditioner (any of its
 *  makers: ts_pc_create_mg_jacobi, ts_parallel_pc_create_mg_jacobi, ...) for A_L x = b: the
 *  right sides of the coarser levels restricted from b (P^T), x_0 = C b_0, then on each finer
 *  level the prolongated solution and one V-cycle correction x += V (b - A x); then V-cycle
 *  corrections on the finest level while ||b - A x|| > rtol ||b||, at least one (as
 *  ts_mg_fmg_solve, Algorithm 2.2) and at most max_iterations.
 *  @param iterations  the finest level's V-cycles after the nested iteration (may be NULL)
 *  @return 0; TS_ERR_ARG (not a multigrid-levels pc, rtol outside (0, 1), max_iterations < 1,
 *          vectors that do not fit); TS_ERR_NOT_CONVERGED, TS_ERR_NAN naming the residual */
int ts_pc_multigrid_fmg_solve(ts_pc pc, ts_vec b, ts_vec x, double rtol, int max_iterations,
                              int *iterations);
/** @brief Call fn(ctx, V-cycle, ||b - A x|| / ||b||) after each finest-level V-cycle of
 *  ts_pc_multigrid_fmg_solve (as ts_mg_set_monitor; fn NULL: none); a non-zero return stops
 *  the solve with TS_ERR_ARG. */
int ts_pc_multigrid_set_monitor(ts_pc pc, ts_monitor_fn fn, void *ctx);
/** @brief The V-cycle on the velocity block A of a Stokes hierarchy (ts_mg_create_stokes,
 *  double precision) as a ts_pc_create_multigrid: A_l = block (0,0) of each level's Stokes
 *  operator (ts_operator_create_stokes_block), P_l = ts_mg_velocity_transfer_operator,
 *  Chebyshev smoothers of the given degree on D^{-1} A_l (ts_pc_create_chebyshev), and the
 *  LU factorization of the assembled coarse A_0 as the exact coarse solve.  Symmetric
 *  positive definite: the velocity block of MINRES + block-diagonal (doc/stokes.md section
 *  12).  The preconditioner owns these parts; mg is borrowed (it must outlive pc).
 *  @param mg                a Stokes hierarchy in double precision
 *  @param chebyshev_degree  1..20 (3 is a good choice)
 *  @param smoothing_steps   pre- and post-smoothing steps each, 1..100
 *  @param pc                the new preconditioner, on velocity vectors of the finest level
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*pc NULL),
 *          TS_ERR_MEMORY, TS_ERR_LAPACK */
int ts_pc_create_stokes_velocity_mg(ts_mg mg, int chebyshev_degree, int smoothing_steps,
                                    ts_pc *pc);
/** @brief A V-cycle made from a Laplacian hierarchy's parts (ts_mg_create, double precision)
 *  with weighted point Jacobi smoothing, as a ts_pc_create_multigrid: A_l =
 *  ts_mg_level_operator and P_l = ts_mg_transfer_operator on every level of the hierarchy,
 *  smoothers ts_pc_create_jacobi_weighted(A_l, weight), the LU of the assembled coarsest
 *  operator.  Papers 001/004 solve the velocity block of their block-triangular
 *  preconditioner with it (weight 1, 3 steps, inside ts_pc_create_richardson with 3
 *  iterations).  The preconditioner owns the parts it makes; mg is borrowed.
 *  @param weight           in (0, 2]
 *  @param smoothing_steps  pre- and post-smoothing steps each, 1..100
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*pc NULL),
 *          TS_ERR_MEMORY, TS_ERR_LAPACK */
int ts_pc_create_mg_jacobi(ts_mg mg, double weight, int smoothing_steps, ts_pc *pc);
/** @brief A V-cycle on the consistent mass matrix of a Q_k space (ts_operator_create_mass) over
 *  the mesh levels coarse_level..finest_level, made from parts: on each level the DoFs and
 *  the mass, the Q_k prolongation over all DoFs (the boundary included), weighted point
 *  Jacobi smoothers, the LU of the coarsest mass.  Papers 001/004's pressure block of the
 *  block-triangular preconditioner (Q1, weight 0.6, 3 steps, 3 iterations): the mass
 *  approximates the Schur complement.  On vectors of the finest level's DoFs, in double.
 *  @param fe               a Q_k element (borrowed, as mesh: both must outlive pc)
 *  @param weight           in (0, 2]
 *  @param smoothing_steps  pre- and post-smoothing steps each, 1..100
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*pc NULL),
 *          TS_ERR_UNSUPPORTED (a mapped mesh), TS_ERR_MEMORY, TS_ERR_LAPACK */
int ts_pc_create_mass_mg(ts_backend backend, ts_mesh mesh, ts_fe fe, int coarse_level,
                         int finest_level, double weight, int smoothing_steps, ts_pc *pc);
/** @brief Redo what the preconditioner computes from its operator at creation (Jacobi's
 *  diagonal, Chebyshev's eigenvalue estimate; the block kinds set up their blocks), after the
 *  operator changed. */
int ts_pc_setup(ts_pc pc);
/** @brief z = P r (r and z of the preconditioner's size, backend and precision; distinct). */
int ts_pc_apply(ts_pc pc, ts_vec r, ts_vec z);
/** @brief The preconditioner as an operator whose apply is ts_pc_apply (borrowed: it lives
 *  as long as pc), for ts_solver_set_preconditioner and ts_operator_create_block. */
ts_operator ts_pc_operator(ts_pc pc);
/** @brief The kind's name ("jacobi", "block-diagonal", ...), as in ts_pc_type_names. */
const char *ts_pc_name(ts_pc pc);
/** @brief The names of all kinds, comma separated ("jacobi, chebyshev, ..."). */
const char *ts_pc_type_names(void);
/** @brief 0 if name is one of ts_pc_type_names, else TS_ERR_ARG naming it and the allowed ones. */
int ts_pc_type_check(const char *name);
int ts_pc_destroy(ts_pc *pc);
/** @brief ts_solver_set_preconditioner(solver, ts_pc_operator(pc)); NULL pc for none. */
int ts_solver_set_pc(ts_solver solver, ts_pc pc);

/* ---------------------------------------------------------------- H(div) saddle-point systems */

/** The data of an H(div) problem on a box or a mapped mesh (ts_hdiv_system_rhs), functions of
 *  the physical point (ts_point_fn, context ctx, called from the calling thread, once per
 *  cell or boundary cell face; values must be finite); NULL: zero. */
typedef struct ts_hdiv_data {
  ts_point_fn f;          /**< the right side f, dim values per point */
  ts_point_fn g;          /**< the right side g, one value per point */
  ts_point_fn p_boundary; /**< the pressure p_D on the faces whose fluxes are unknowns */
  ts_point_fn u_boundary; /**< a vector field (dim values) whose normal flux is prescribed on
                               the flux faces */
  void *ctx;
} ts_hdiv_data;

/** The grad-div and Darcy saddle-point systems of paper 003 on a box or a mapped level
 *  (Kershaw's, ts_mesh_create_mapped, ...: the spaces mapped by u = J u^ / det J and q = q^ /
 *  det J, D the box's; doc/hdiv.md, "Deformed meshes"), in the interpolation-histopolation
 *  bases (doc/hdiv.md): the problem
 *    beta u + grad p = f,  div u + p / alpha = g  in the box,
 *    u . n = u_D . n on the flux faces,  p = p_D on the others (the natural condition),
 *  alpha and beta constant per cell (ts_hdiv_coefficients; alpha = INFINITY: the Darcy problem
 *  beta u + grad p = f, div u = g; the grad-div problem beta u - grad(alpha div u) = f is
 *  g = 0, p = -alpha div u), solved in the transformed form (eqs. 11, 18, 20)
 *    Acal [u; x_p] = [M_beta D^T; D -W_alpha^{-1}] [u; x_p] = b,  p = -W^{-1} x_p,
 *  W the L2 mass without coefficient.  The prescribed fluxes are lifted: their rows and
 *  columns of M_beta are those of its diagonal, their columns of D zero. */
typedef struct ts_hdiv_system_s *ts_hdiv_system;

/** @brief Acal (M_beta matrix-free from k = 2 and on every mapped level,
 *  ts_operator_create_hdiv_mass, assembled below on a box;
 *  D and D^T sparse matrices applied on the backend; W_alpha^{-1} matrix-free,
 *  ts_operator_create_l2_mass_inverse with its defaults: explicit for k <= 2, the local CG to
 *  1e-12 per cell above), diag(M_beta) for Jacobi and
 *  S~ (ts_matrix_assemble_hdiv_schur) with an AMG V-cycle: hypre's BoomerAMG on the omp
 *  backend and for a singular S~, else our smoothed aggregation (ts_pc_create_amg), which
 *  keeps all but the coarsest level's vectors on a GPU and needs no hypre.
 *  @param velocity, pressure  RT_k and DGQ_k DoFs (ts_fe_create_rt_ih, ts_fe_create_l2_ih) of
 *                             one level of a box or a mapped mesh (borrowed: they must
 *                             outlive the system)
 *  @param coefficients        alpha, beta (read during the call only)
 *  @param flux_faces          TS_FACE_* bits: the faces with prescribed fluxes.  Every face
 *                             with alpha = INFINITY: p is defined up to a constant (S~
 *                             singular), handled by orthogonalizing against the constants
 *  @return 0; TS_ERR_ARG naming the argument (and the cell), or an inverted cell of a mapped
 *          mesh (det J <= 0, by name, before any solve); TS_ERR_UNSUPPORTED without hypre
 *          where BoomerAMG is taken; TS_ERR_MEMORY */
int ts_hdiv_system_create(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                          const ts_hdiv_coefficients *coefficients, unsigned flux_faces,
                          ts_hdiv_system *system);
/** Which AMG V-cycle preconditions S~ (ts_hdiv_system_create_with_amg). */
typedef enum {
  TS_HDIV_AMG_AUTO = 0,      /**< ts_hdiv_system_create's choice: BoomerAMG on omp (with hypre)
                                  and for a singular S~, else ours */
  TS_HDIV_AMG_BOOMERAMG = 1, /**< hypre's BoomerAMG (ts_pc_create_boomeramg), on the host */
  TS_HDIV_AMG_OURS = 2       /**< our smoothed aggregation (ts_pc_create_amg); not for a
                                  singular S~ */
} ts_hdiv_amg;
/** @brief ts_hdiv_system_create with the AMG on S~ chosen (problem files: the S~ node of the
 *  preconditioner tree, doc/hdiv.md).
 *  @return as ts_hdiv_system_create; TS_ERR_ARG for an unknown amg, or TS_HDIV_AMG_OURS on a
 *          singular S~ */
int ts_hdiv_system_create_with_amg(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                                   const ts_hdiv_coefficients *coefficients,
                                   unsigned flux_faces, ts_hdiv_amg amg,
                                   ts_hdiv_system *system);
/** @brief The AMG the system built on S~ (TS_HDIV_AMG_BOOMERAMG or TS_HDIV_AMG_OURS; AUTO
 *  for NULL). */
ts_hdiv_amg ts_hdiv_system_amg(ts_hdiv_system system);
/** @brief Apply M_beta as the assembled CSR matrix (assembled = 1; (k+2)(k+1)^(dim-1) entries
 *  per row; the default for k = 0, 1) or matrix-free (0: ts_operator_create_hdiv_mass; the
 *  default from k = 2, where it is as fast or faster on omp), for comparison.  Rebuilds Acal's (1,1) block and the Jacobi part of the preconditioners: call
 *  it before ts_hdiv_system_create_pc (preconditioners made before borrow the old block).
 *  A mapped level has the matrix-free M_beta only (assembled = 1 is refused there).
 *  @return 0; TS_ERR_ARG naming the argument; TS_ERR_MEMORY */
int ts_hdiv_system_set_assembled_mass(ts_hdiv_system system, int assembled);
/** @brief Free the system and the preconditioner parts it owns (NULL or *system NULL: nothing). */
int ts_hdiv_system_destroy(ts_hdiv_system *system);
/** @brief Acal, of ts_dofs_count(velocity) + ts_dofs_count(pressure) rows (borrowed). */
ts_operator ts_hdiv_system_operator(ts_hdiv_system system);
/** @brief Block (row, col) of Acal, row and col 0 (velocity) or 1 (pressure): M_beta, D^T, D
 *  and -W_alpha^{-1} (an empty matrix for alpha = INFINITY), with the prescribed fluxes' rows
 *  and columns as ts_hdiv_system_rhs describes (borrowed; NULL with the error set for a bad
 *  block or a NULL system). */
ts_operator ts_hdiv_system_block(ts_hdiv_system system, int row, int col);
/** @brief The AMG V-cycle on S~ that the system's preconditioners use (borrowed). */
ts_pc ts_hdiv_system_schur_pc(ts_hdiv_system system);
/** @brief 1 when the pressure is defined up to a constant (every face a flux face, alpha =
 *  INFINITY), 0 otherwise, -1 for NULL. */
int ts_hdiv_system_is_singular(ts_hdiv_system system);
/** @brief A preconditioner of Acal (paper 003, Figure 4): triangular = 0 the block-diagonal
 *  diag(Jacobi(M_beta), AMG(S~)), symmetric positive definite, for MINRES (Proposition 5);
 *  triangular = 1 the block upper triangular z_p = -AMG(S~) r_p, z_u = Jacobi(M_beta)(r_u -
 *  D^T z_p) (Remark 2), for GMRES and FGMRES.  In the singular case the Schur block is
 *  followed by z_p -= mean(z_p).  The preconditioner borrows the system's parts: destroy it
 *  before the system. */
int ts_hdiv_system_create_pc(ts_hdiv_system system, int triangular, ts_pc *pc);
/** @brief The right side b and the lifting x0 (host arrays of the system's size) from data:
 *  b = [F - P_D - M_beta u_D; W^{-1} G - D u_D] with F_j = (f, phi_j), P_D the pressure term
 *  (ts_hdiv_boundary_pressure on the faces that are not flux faces), G_i = (g, psi_i), u_D the
 *  prescribed fluxes (ts_hdiv_boundary_fluxes of u_boundary) and b zero at them; x0 = [u_D; 0].
 *  W^{-1} is the L2 mass inverse on the backend (explicit for k <= 2, the local CG to 1e-14
 *  per cell above).  Solve Acal x = b, then x += x0.  In the singular case b's pressure block is made
 *  orthogonal to the constants (compatible data: int g = int u_D . n). */
int ts_hdiv_system_rhs(ts_hdiv_system system, const ts_hdiv_data *data, double *b, double *x0);
/** @brief Solve Acal x = b (host arrays of the system's size) from x = 0 to ||r|| <= rtol ||b||
 *  in the solver's norm (TS_SOLVER_MINRES: the preconditioned norm ||r||_P) by MINRES with
 *  the block-diagonal preconditioner, or by GMRES or FGMRES (restart 200) with the block
 *  triangular one (ts_hdiv_system_create_pc); the iterations into *iterations (may be NULL).
 *  @param type  TS_SOLVER_MINRES, TS_SOLVER_GMRES or TS_SOLVER_FGMRES
 *  @return 0; TS_ERR_ARG naming the argument; TS_ERR_NOT_CONVERGED after max_iterations */
int ts_hdiv_system_solve(ts_hdiv_system system, ts_solver_type type, double rtol,
                         int max_iterations, const double *b, double *x, int *iterations);
/** @brief The pressure's DoFs p = -W^{-1} x_p (host arrays: x of the system's size, p of the
 *  pressure DoFs'), for ts_hdiv_l2_error on the pressure DoFs; W^{-1} as in ts_hdiv_system_rhs
 *  (the L2 mass inverse on the backend, the local CG to 1e-14 per cell for k >= 3). */
int ts_hdiv_system_pressure(ts_hdiv_system system, const double *x, double *p);

/** @brief The smooth solution of our Cartesian Darcy problem (doc/hdiv.md, paper 003 section
 *  4.1): p = sin(2x + 1/2) cos(3y/2 + 1/4) [cos(z + 1/3)] and u = -grad p / beta for the
 *  constant beta = *(const double *)ctx, so beta u + grad p = 0 and g = div u =
 *  -Laplace(p) / beta, as ts_point_fn: the pressure (one value per point), the velocity (dim
 *  values) and the divergence g (one value). */
int ts_darcy_smooth_pressure(void *ctx, int dim, int64_t count, const double *x, double *p);
int ts_darcy_smooth_velocity(void *ctx, int dim, int64_t count, const double *x, double *u);
int ts_darcy_smooth_divergence(void *ctx, int dim, int64_t count, const double *x, double *g);

/* ---------------------------------------------------------------- geometric multigrid */

/** Geometric multigrid on the levels of a box mesh, for the Q_k Laplacian (paper 002,
 *  section 2.1; ts_mg_create) and for the Stokes system of RT_k x DGQ_k (paper 000,
 *  section 3; ts_mg_create_stokes): per level the DoF handler(s) and the matrix-free
 *  system operator, prolongation by embedding of the coarse space, restriction as its
 *  transpose, the V-cycle of Algorithm 2.1 with one pre- and one post-smoothing step and an
 *  exact coarse solve, full multigrid (Algorithm 2.2), and the V-cycle as a preconditioner
 *  for CG (Laplace) and GMRES. */
typedef struct ts_mg_s *ts_mg;

/** Smoothers of the V-cycle. */
typedef enum {
  TS_MG_SMOOTHER_VERTEX_PATCH = 0, /**< multiplicative vertex-patch Schwarz (Algorithm 2.3);
                                        on mapped meshes Chebyshev on P A with P the additive
                                        vertex-patch preconditioner (ts_operator_create_patch_additive) */
  TS_MG_SMOOTHER_CHEBYSHEV = 1,    /**< Chebyshev on D^{-1} A (point Jacobi for degree 1) */
  TS_MG_SMOOTHER_VANKA = 2,        /**< Taylor-Hood Q2 x Q1: Vanka (ts_smoother_create_vanka) */
  TS_MG_SMOOTHER_BRAESS_SARAZIN = 3, /**< Taylor-Hood: inexact Braess-Sarazin
                                        (ts_smoother_create_braess_sarazin) */
  TS_MG_SMOOTHER_SCHUR_UZAWA = 4   /**< Taylor-Hood: Schur-Uzawa (ts_smoother_create_schur_uzawa) */
} ts_mg_smoother_type;

/** The exact solve on the coarsest level of a hierarchy (ts_mg_options.coarse_solver,
 *  `<multigrid coarse-solver>`; doc/multigrid.md, "The coarse level"). */
typedef enum {
  TS_MG_COARSE_AUTO = 0,      /**< DENSE up to TS_MG_COARSE_DENSE_DOFS coarse DoFs (on a
                                   mapped mesh also a singular level: pure Neumann), else
                                   CG_JACOBI; Stokes and Taylor-Hood: DENSE */
  TS_MG_COARSE_DENSE = 1,     /**< the LU of the coarse matrix assembled by columns (LAPACK,
                                   at most 8000 DoFs, 16,000 on a GPU) */
  TS_MG_COARSE_CG_JACOBI = 2, /**< CG preconditioned by the diagonal, to coarse_tolerance */
  TS_MG_COARSE_CG_AMG = 3     /**< CG preconditioned by one BoomerAMG V-cycle on the sparse
                                   coarse matrix (ts_matrix_assemble_laplace; hypre on the
                                   host), to coarse_tolerance: the choice for a large coarse
                                   level.  Q_k on a box (not mapped cells) */
} ts_mg_coarse_solver;

/** TS_MG_COARSE_AUTO's LU limit: coarse levels of up to this many DoFs are solved by LU. */
#define TS_MG_COARSE_DENSE_DOFS 1000

/** @brief The coarse solver of a name: "auto", "dense", "cg" (CG_JACOBI) or "amg" (CG_AMG);
 *  TS_ERR_ARG naming the allowed names for another. */
int ts_mg_coarse_solver_from_name(const char *name, ts_mg_coarse_solver *solver);

/** Multigrid options; ts_mg_options_default fills the defaults given here. */
typedef struct ts_mg_options {
  ts_mg_smoother_type smoother;  /**< TS_MG_SMOOTHER_VERTEX_PATCH */
  ts_patch_variant variant;      /**< vertex patch: TS_PATCH_SEPARATE or TS_PATCH_FUSED (default) */
  int chebyshev_degree;          /**< Chebyshev: matrix-vector products per step, 1..20 (3) */
  ts_precision precision;        /**< precision of the V-cycle levels: TS_DOUBLE, or TS_SINGLE
                                      for mixed precision (outer iteration in double) */
  int coarse_level;              /**< the coarsest level of the hierarchy (0; Stokes on a
                                      1-cell mesh: at least 1) */
  ts_stokes_patch_solver stokes_solver; /**< Stokes: the local solver of the vertex-patch
                                      smoother, TS_STOKES_PATCH_SCHUR (default) or
                                      TS_STOKES_PATCH_DIRECT */
  double stokes_penalty;         /**< Stokes: the penalty factor eta > 0 of the interior
                                      penalty form (TS_STOKES_DEFAULT_PENALTY) */
  double stokes_cg_tolerance;    /**< Stokes, Schur local solver: the relative tolerance of the
                                      patch pressure CG, in (0, 1) (TS_STOKES_PATCH_CG_TOLERANCE) */
  double coarse_tolerance;       /**< Q_k: the relative tolerance of the coarse-level CG (in
                                      double), in (0, 1) (TS_MG_COARSE_TOLERANCE); Stokes
                                      solves it directly */
  ts_mg_coarse_solver coarse_solver; /**< Q_k: how the coarsest level is solved
                                      (TS_MG_COARSE_AUTO); Stokes and Taylor-Hood: AUTO or
                                      DENSE, both the LU */
  int coarse_degree;             /**< Q_k: the degree of the coarsest level.  Below coarse_level
                                      the degree is halved (k/2 rounded down) on the same cells
                                      until it reaches coarse_degree (p-multigrid, doc/multigrid.md),
                                      with the same smoother on every degree level; 1..k, k adds
                                      no degree level; TS_MG_COARSE_DEGREE_AUTO (default): 1 when
                                      the coarse level has more than TS_MG_COARSE_DEGREE_AUTO_DOFS
                                      DoFs (mapped meshes: more than 1000) and an interior
                                      vertex, else k.  Stokes: AUTO only */
  ts_saddle_relaxation relaxation; /**< Taylor-Hood (ts_mg_create_taylor_hood): the parameters
                                      of the smoother (zero fields: its defaults) */
  unsigned neumann_faces;        /**< Q_k on a mapped mesh: the Neumann faces of every level
                                      (TS_FACE_* bits, ts_dofs_set_neumann_faces); 0 (default):
                                      Dirichlet on the whole boundary, the only choice on a box */
} ts_mg_options;

/** ts_mg_options.coarse_degree: chosen by the size of the coarse level (the default). */
#define TS_MG_COARSE_DEGREE_AUTO 0
/** Above this many DoFs on the coarse level (Q_k on the cells of coarse_level) the automatic
 *  coarse degree adds degree levels down to Q1 (doc/multigrid.md, "The coarse level"). */
#define TS_MG_COARSE_DEGREE_AUTO_DOFS 10000

/** The default relative tolerance of the Q_k coarse-level CG: an exact coarse solve to
 *  rounding, so that the V-cycle is a linear operator to that accuracy and CG preconditioned
 *  by it reaches round-off (doc/accuracy.md).  Looser tolerances (1e-10, 1e-8) keep the
 *  iteration counts and save coarse iterations (doc/multigrid.md). */
#define TS_MG_COARSE_TOLERANCE 1e-13

/** The phases of a level's setup, timed into ts_level_report.setup_phase_seconds and
 *  ts_mg_setup_seconds (wall-clock seconds; a phase's asynchronous device work may be
 *  counted in a later phase). */
typedef enum ts_setup_phase {
  TS_SETUP_DOFS,           /**< DoF handlers of the levels */
  TS_SETUP_OPERATORS,      /**< operators (plans, diagonals) */
  TS_SETUP_VECTORS,        /**< work vectors (device memory) */
  TS_SETUP_TRANSFERS,      /**< multigrid transfers */
  TS_SETUP_SMOOTHERS,      /**< smoothers and preconditioners */
  TS_SETUP_COARSE,         /**< the coarse-level solver (assembly, factorization) */
  TS_SETUP_RIGHT_SIDE,     /**< the load vector */
  TS_SETUP_BOUNDARY,       /**< Dirichlet values and their lifting */
  TS_SETUP_PHASES          /**< number of phases */
} ts_setup_phase;

/** @brief The phase's name in logs and JSON ("dofs", "operators", "vectors", "transfers",
 *  "smoothers", "coarse", "right_side", "boundary"); NULL (TS_ERR_ARG) for others. */
const char *ts_setup_phase_name(ts_setup_phase phase);

/** Time spent on one level of the hierarchy since creation or the last reset. */
typedef struct ts_mg_level_timing {
  int level;                     /**< level of the hierarchy: the mesh level, or for the degree
                                      levels below coarse_level coarse_level-1, coarse_level-2, ..
                                      (on the mesh of coarse_level) */
  int degree;                    /**< k of the level's Q_k */
  int64_t dofs;                  /**< DoFs on the level */
  double smooth_seconds;         /**< pre- and post-smoothing */
  double residual_seconds;       /**< r = b - A x */
  double transfer_seconds;       /**< restriction to and prolongation from the next coarser level */
  double coarse_seconds;         /**< the exact solve (coarsest level only) */
  long smoothing_steps;          /**< number of smoothing steps (coarse solves on the coarsest) */
  long coarse_iterations;        /**< CG iterations of all coarse solves (coarsest level with a
                                      CG coarse solver only; 0 with the LU) */
} ts_mg_level_timing;

/** @brief Fill the default options. */
void ts_mg_options_default(ts_mg_options *options);
/** @brief Fill *params with the defaults of a relaxation (TS_MG_SMOOTHER_VANKA,
 *  _BRAESS_SARAZIN or _SCHUR_UZAWA) for Q_k x Q_{k-1} of the given degree k >= 2 (they
 *  differ with the degree for Braess-Sarazin); other types, degrees below 2: TS_ERR_ARG. */
int ts_saddle_relaxation_default(ts_mg_smoother_type type, int degree,
                                 ts_saddle_relaxation *params);

/** @brief "vertex-patch" or "chebyshev" into *type; TS_ERR_ARG naming the allowed values. */
int ts_mg_smoother_from_name(const char *name, ts_mg_smoother_type *type);
/** @brief The hierarchy for Q_k (fe) on levels options->coarse_level..finest_level of mesh
 *  (both borrowed: they must outlive mg): DoF handlers, Laplacians in the options'
 *  precision, transfers, smoothers, and the double-precision finest-level Laplacian. */
int ts_mg_create(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest_level,
                 const ts_mg_options *options, ts_mg *mg);
/** @brief The hierarchy for -div(kappa grad u) + c u on the Q_k spaces of a mapped mesh
 *  (ts_mesh_create_mapped; doc/multigrid.md, "Mapped meshes"): every level rediscretized
 *  (ts_operator_create_mapped), its kappa and c the arithmetic means of its cells' 2^dim
 *  children, level by level down from the finest; the transfers, the degree levels and the
 *  coarse solve as for the box.  The smoother is Chebyshev on D^{-1} A (NULL options: the
 *  defaults with TS_MG_SMOOTHER_CHEBYSHEV) or, with TS_MG_SMOOTHER_VERTEX_PATCH, Chebyshev of
 *  the same degree on P A with the additive vertex-patch preconditioner P of each level
 *  (ts_operator_create_patch_additive; options->variant does not apply).
 *  ts_mg_create on a mapped mesh is this with NULL coefficients (the Laplacian).
 *  @param coefficients  the finest level's (copied), as for ts_operator_create_mapped;
 *                       NULL: kappa = 1, c = 0 */
struct ts_coefficients; /* "your own problem on mapped cells" below */
int ts_mg_create_mapped(ts_backend backend, ts_mesh mesh, ts_fe fe, int finest_level,
                        const struct ts_coefficients *coefficients, const ts_mg_options *options,
                        ts_mg *mg);
/** @brief The hierarchy for the Stokes system of RT_k x DGQ_k (doc/stokes.md; paper 000,
 *  section 3) on levels options->coarse_level..finest_level of mesh: per level RT_k and
 *  DGQ_k DoF handlers, the Stokes operator in the options' precision, the transfer of
 *  doc/stokes.md section 5, the vertex-patch smoother with the options' local solver
 *  (section 7), and as the exact solve of the singular coarse system the LU factorization
 *  (on the host, in double) of the assembled coarse matrix bordered by the constant
 *  pressure (section 9; at most 8000 coarse DoFs, 16,000 on a GPU).  The V-cycle output has
 *  its pressure mean removed (section 6), so the preconditioner suits GMRES on the singular
 *  consistent system.  Mixed precision applies
 *  as for the Laplacian: with options->precision = TS_SINGLE the whole V-cycle runs in
 *  single precision and the outer iteration in double (paper 000, section 4.3).
 *  @param backend       the backend (needs stokes_apply, field_transfer and
 *                       stokes_patch_smooth)
 *  @param mesh          the box mesh (borrowed: it must outlive mg)
 *  @param degree        k of RT_k x DGQ_k, 0..TS_MAX_DEGREE-1
 *  @param finest_level  the finest level, options->coarse_level..the mesh's finest
 *  @param options       NULL for the defaults; the smoother, variant and Chebyshev fields
 *                       are not used
 *  @param mg            the new hierarchy
 *  @return 0, TS_ERR_ARG naming the field, value and what is allowed (also when the coarse
 *          level has a single cell in some direction: the coarse level needs an interior
 *          vertex in every direction, so a 1-cell mesh needs coarse_level >= 1),
 *          TS_ERR_UNSUPPORTED (a kernel missing), TS_ERR_MEMORY, TS_ERR_LAPACK */
int ts_mg_create_stokes(ts_backend backend, ts_mesh mesh, int degree, int finest_level,
                        const ts_mg_options *options, ts_mg *mg);
/** @brief The hierarchy for the Taylor-Hood Stokes system Q_k x Q_{k-1} (k >= 2; papers
 *  001/004, doc/taylor-hood.md section 7) on levels options->coarse_level..finest_level of
 *  a box mesh: per level the Q_k velocity and Q_{k-1} pressure DoF handlers and the
 *  Taylor-Hood operator (rediscretized) in the options' precision, the Q_k and Q_{k-1}
 *  interpolations per field as the transfer (its transpose restricts), the options'
 *  smoother (TS_MG_SMOOTHER_VANKA, _BRAESS_SARAZIN or _SCHUR_UZAWA, with
 *  options->relaxation; Vanka needs k = 2) once before and once after the coarse
 *  correction, and as the exact coarse solve the LU factorization of the assembled coarse
 *  matrix bordered by the constant pressure (at most 8000 coarse DoFs, 16,000 on a GPU).  The
 *  V-cycle output has its pressure mean removed: a preconditioner for FGMRES (or GMRES) on the
 *  singular consistent system.
 *  @return 0, TS_ERR_ARG naming the field, value and what is allowed, TS_ERR_UNSUPPORTED
 *          (a kernel missing), TS_ERR_MEMORY, TS_ERR_LAPACK */
int ts_mg_create_taylor_hood(ts_backend backend, ts_mesh mesh, int degree, int finest_level,
                             const ts_mg_options *options, ts_mg *mg);
int ts_mg_destroy(ts_mg *mg);
/** @brief The finest level's DoF handler (borrowed): Q_k, or the velocity RT_k for Stokes. */
ts_dofs ts_mg_dofs(ts_mg mg);
/** @brief The finest level's pressure DGQ_k DoF handler of a Stokes hierarchy (borrowed;
 *  NULL for the Laplacian).  Stokes vectors are [velocity; pressure]: ts_dofs_count of
 *  ts_mg_dofs entries, then ts_dofs_count of these. */
ts_dofs ts_mg_pressure_dofs(ts_mg mg);
/** @brief The finest level's system operator in double precision (borrowed: the Laplacian,
 *  or the Stokes operator): the system the preconditioner and ts_mg_fmg_solve are for. */
ts_operator ts_mg_operator(ts_mg mg);
/** @brief One V-cycle from a zero initial guess as an operator, P r = VCYCLE_L(A_L, 0, r),
 *  on double vectors of the finest level (borrowed; converts to and from the level
 *  precision at entry and exit).  Symmetric positive definite for the symmetric smoothers,
 *  so usable with CG and GMRES through ts_solver_set_preconditioner. */
ts_operator ts_mg_preconditioner(ts_mg mg);
/** @brief Full multigrid (Algorithm 2.2) for A_L x = b (double vectors of the finest
 *  level): the right sides of the coarser levels are restrictions of b; after the nested
 *  V-cycles, V-cycles repeat while ||b - A_L x|| > rtol ||b|| (the residual in double), at
 *  least once (as in Algorithm 2.2, line 5) and at most max_iterations times.  *iterations (may be NULL) counts those repetitions.
 *  When three repetitions in a row have not halved the residual, rtol is below the floor
 *  rounding sets for it: TS_ERR_NOT_CONVERGED naming the attainable residual
 *  (doc/accuracy.md). */
int ts_mg_fmg_solve(ts_mg mg, ts_vec b, ts_vec x, double rtol, int max_iterations,
                    int *iterations, double *relative_residual);
/** @brief Call fn after each repetition of the FMG loop (NULL to stop). */
int ts_mg_set_monitor(ts_mg mg, ts_monitor_fn fn, void *ctx);
/** @brief fine = P coarse: prolongate from level-1 to level (vectors in the level precision). */
int ts_mg_prolongate(ts_mg mg, int level, ts_vec coarse, ts_vec fine);
/** @brief coarse = P^T fine: restrict from level to level-1 (vectors in the level precision). */
int ts_mg_restrict(ts_mg mg, int level, ts_vec fine, ts_vec coarse);
/** @brief The transfer into level from level-1 as an operator (for ts_pc_create_multigrid):
 *  apply = ts_mg_prolongate, its transpose (ts_operator_create_transpose, apply_transpose) =
 *  ts_mg_restrict, which is exactly P^T; the level's size in rows, level-1's in columns, in
 *  the level precision.  For a Stokes hierarchy it acts on [u; p].
 *  @param mg     the hierarchy (borrowed: it must outlive P)
 *  @param level  ts_mg_coarse_level(mg)+1 .. the finest level
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*P NULL) */
int ts_mg_transfer_operator(ts_mg mg, int level, ts_operator *P);
/** @brief The velocity block P_u of the Stokes transfer into level: the transfer of RT_k x
 *  DGQ_k is block diagonal in (u, p) (one embedding per velocity component and one for the
 *  pressure, doc/stokes.md section 5), so P_u = S_f P E_c (E_c: u -> [u; 0] on level-1,
 *  S_f: the fine velocity of [u; p]) is applied directly, on velocity vectors (the level's
 *  and level-1's ts_dofs_count of the RT_k DoFs), with P_u^T = the restriction's block.
 *  @return 0, or TS_ERR_ARG (mg NULL or not a Stokes hierarchy, level out of range) */
int ts_mg_velocity_transfer_operator(ts_mg mg, int level, ts_operator *P);
/** @brief The smoother of a level (borrowed; NULL on the coarsest level, which has none: no
 *  error is recorded then). */
ts_smoother ts_mg_smoother(ts_mg mg, int level);
/** @brief The system operator (Laplacian or Stokes) of a level in the level precision
 *  (borrowed). */
ts_operator ts_mg_level_operator(ts_mg mg, int level);
/** @brief The coarsest level of the hierarchy: options.coarse_level minus the number of
 *  degree levels below it (the levels of the ts_mg_* functions are numbered so that level
 *  l-1 is the next coarser one; see ts_mg_level_timing.level). */
int ts_mg_coarse_level(ts_mg mg);
/** @brief Timing of one level (ts_mg_coarse_level..finest) since creation or the last reset. */
int ts_mg_level_timing_get(ts_mg mg, int level, ts_mg_level_timing *timing);
/** @brief Set every level's timing to zero. */
void ts_mg_reset_timings(ts_mg mg);
/** @brief The seconds the hierarchy's creation spent in one setup phase, all levels. */
int ts_mg_setup_seconds(ts_mg mg, ts_setup_phase phase, double *seconds);

/* ---------------------------------------------------------------- manufactured solutions */

/** A manufactured solution u with -Laplace(u) = f.  value, gradient and laplacian are
 *  called from several OpenMP threads at once (right side, boundary values, errors): they
 *  must be safe to call concurrently. */
typedef struct ts_solution_s {
  const char *name;
  double (*value)(int dim, const double *x);
  void (*gradient)(int dim, const double *x, double *grad);
  double (*laplacian)(int dim, const double *x);
  /** Optional (NULL where f is not a product): f = -Laplace(u) = prod_d
   *  rhs_factor(dim, d, x_d).  Then, and with zero boundary values, ts_assemble_rhs builds
   *  the load vector from one 1D load vector per direction (ts_vec_set_tensor) instead of
   *  quadrature on the host over every cell.  Called from the calling thread only. */
  double (*rhs_factor)(int dim, int direction, double x);
} ts_solution;

/** @brief A built-in manufactured solution by name: "sine" (prod sin(pi x_i), zero on the
 *  unit box boundary) or "exp" (exp(x - y/2 + z/4), non-symmetric, non-zero boundary). */
int ts_solution_by_name(const char *name, const ts_solution **solution);
/** @brief The built-in names separated by ", " (borrowed). */
const char *ts_solution_names(void);
/** @brief ---- multigrid: the right side f = 1 with zero boundary values, as a ts_solution
 *  for ts_assemble_rhs (value and gradient are zero: there is no exact solution to measure
 *  errors against); paper 002, Tables 1-3 (borrowed). */
const ts_solution *ts_rhs_one(void);

/** @brief The right-hand side b_i = (f, phi_i) with f = -Laplace(u), lifted for the
 *  Dirichlet data: on return b holds the constrained system's right side and x0 the
 *  boundary values (interpolated) with zero inside; solve A x = b, then add x0. */
int ts_assemble_rhs(ts_operator A, ts_dofs dofs, const ts_solution *u, ts_vec b, ts_vec x0);
/** @brief L2 and H1-seminorm errors of the finite element function (host values) against u,
 *  by Gauss quadrature with degree+2 points per direction. */
int ts_compute_errors(ts_dofs dofs, const double *values, const ts_solution *u,
                      double *l2_error, double *h1_error);

/* ---------------------------------------------------------------- your own problem on mapped cells */

/* -div(kappa grad u) + c u = f in the image of a mapped mesh (ts_mesh_create_mapped), u = g
 * on its Dirichlet faces and kappa grad u . n = h on its Neumann faces
 * (ts_dofs_set_neumann_faces), on Q_k (doc/user-guide.md, "Your own problem"). */

/** The coefficients kappa and c, constant per cell of the level.  Cells are numbered
 *  c_0 + cells_0 (c_1 + cells_1 c_2) (ts_mesh_cells).  The arrays are the caller's, read
 *  during ts_operator_create_mapped only. */
typedef struct ts_coefficients {
  /** 0: kappa = 1 (kappa unused); 1: a scalar kappa > 0 per cell; dim(dim+1)/2: a
   *  symmetric positive definite tensor per cell, its upper triangle row by row (2D: k00
   *  k01 k11; 3D: k00 k01 k02 k11 k12 k22) */
  int kappa_components;
  const double *kappa;    /**< cells x kappa_components values */
  const double *reaction; /**< c >= 0 per cell (cells values); NULL: c = 0 */
  /** Per quadrature point instead (variable coefficients, exact up to quadrature): called
   *  once per cell with the cell's (k+1)^dim Gauss points, from several OpenMP threads at
   *  once (ts_point_fn, context ctx); kappa_at gives kappa_components values per point and
   *  replaces kappa, reaction_at one value per point and replaces reaction.  NULL: the
   *  arrays above.  A value that is not finite or not positive (definite), or a negative
   *  c, is refused naming the cell and the point. */
  ts_point_fn kappa_at, reaction_at;
  void *ctx;
} ts_coefficients;

/** @brief Read count x components doubles, raw little-endian, from a file of exactly that
 *  size: per cell of a level its components values (kappa's 1 or dim(dim+1)/2, or c's 1),
 *  cells numbered c_0 + cells_0 (c_1 + cells_1 c_2) as ts_coefficients holds them (numpy:
 *  a.astype('<f8').tofile(path) of an array indexed [c_2][c_1][c_0][component]).
 *  @return 0; TS_ERR_IO naming the file when it cannot be read or its size is not
 *          count x components x 8 bytes (both sizes said); TS_ERR_ARG naming the cell and
 *          the component of a value that is not finite */
int ts_cell_values_read(const char *path, int64_t count, int components, double *values);

/** @brief A log-normal field per cell (a permeability like SPE10's, whose data is not
 *  redistributable): K = exp(s (G - m)) with G a sum of 48 random cosine modes (wave numbers
 *  up to 12 per direction, up to 24 along the last: layered) plus white noise per cell, s and
 *  m chosen so that max K / min K = contrast and sqrt(max K min K) = 1.  Deterministic for a
 *  seed (splitmix64).  Cells numbered c_0 + cells_0 (c_1 + cells_1 c_2), values[cells].
 *  @return 0, or TS_ERR_ARG naming the argument (dim 2 or 3, cells >= 1, contrast > 1) */
int ts_cell_values_lognormal(int dim, const int64_t *cells, double contrast, uint64_t seed,
                             double *values);
/** @brief Two materials of the crooked-pipe problems on a box level: `inside` in the cells
 *  whose centre lies in the pipe, `outside` elsewhere.  Our pipe (the paper 003 / Graziani-
 *  LeBlanc mesh is not public): in the box [0,7] x [0,2] (3D: x [0,1], the pipe in z < 1/2)
 *  the pipe is y < 1/2 for x < 2.5 and x > 4.5, y < 3/2 for 2.5 <= x <= 3 and 4 <= x <= 4.5,
 *  and 1 <= y < 3/2 for 3 < x < 4 (a pipe that rises, runs along the top and comes down);
 *  its edges lie on a grid of spacing 1/2, so coarse cells of size 1/2 resolve it. */
int ts_cell_values_crooked_pipe(ts_mesh mesh, int level, double inside, double outside,
                                double *values);
/** @brief The operator of -div(kappa grad u) + c u on Q_k over the cells of a mapped level,
 *  with homogeneous Dirichlet rows on the Dirichlet DoFs (the boundary less the DoFs' Neumann
 *  faces: ts_dofs_is_dirichlet) as ts_operator_create_laplace: its matrix is A_ij =
 *  (kappa grad phi_j, grad phi_i) + (c phi_j, phi_i) by the (k+1)-point Gauss rule on every
 *  cell.  With every face Neumann and c = 0 it is singular, the constants its null space
 *  (ts_remove_null_space).  The library computes the geometric factors once per
 *  quadrature point (w det J J^{-1} kappa J^{-T} and w det J c) and the backend applies them
 *  by sum factorization (doc/design.md, "Mapped cells").  Symmetric; its diagonal is
 *  computed once here (Jacobi, Chebyshev).
 *  @param dofs          Q_k DoFs of a mapped mesh (borrowed: must outlive the operator)
 *  @param coefficients  NULL for kappa = 1, c = 0 (the Laplacian on the mapped cells)
 *  @return 0; TS_ERR_ARG naming the argument, or the cell (its index and position) whose
 *          coefficient is not finite or not positive (definite), or whose Jacobian
 *          determinant is not positive (an inverted cell); TS_ERR_UNSUPPORTED "the NAME
 *          backend does not implement the operator on mapped cells"; TS_ERR_MEMORY */
int ts_operator_create_mapped(ts_backend backend, ts_dofs dofs, const ts_coefficients *coefficients,
                              ts_precision p, ts_operator *op);
/** @brief The additive vertex-patch preconditioner of a mapped operator (doc/multigrid.md,
 *  "Mapped meshes"): P r = sum_j R_j^T Atilde_j^{-1} R_j r + B D^{-1} r, one patch per
 *  interior vertex (its 2^dim cells, R_j the restriction to the patch's (2k-1)^dim interior
 *  DoFs), Atilde_j the matrix of the patch's best Cartesian approximation (the tensor-product
 *  patch whose cells' diagonal stiffness coefficients fit A's in the least-squares sense of
 *  their logarithms; exact on box patches), applied by fast diagonalization, and point Jacobi
 *  B D^{-1} on the box boundary's DoFs.  Symmetric positive definite: a preconditioner for CG
 *  (ts_solver_set_preconditioner) and, through ts_smoother_create_chebyshev_preconditioned,
 *  the vertex-patch smoother of ts_mg_create_mapped.  Setup: a 1D generalized eigenproblem
 *  per patch and direction (LAPACK); storage dim (m^2 + m) values per patch, m = 2k - 1.
 *  @param A  an operator of ts_operator_create_mapped (borrowed: it must outlive P) on a
 *            level with at least 2 cells per direction
 *  @return 0; TS_ERR_ARG (another operator, too few cells), TS_ERR_UNSUPPORTED (the backend
 *          lacks the kernel 'patch_additive'), TS_ERR_LAPACK, TS_ERR_MEMORY */
int ts_operator_create_patch_additive(ts_operator A, ts_operator *P);
/** @brief The right side b_i = (f, phi_i) on the mapped cells (Gauss rule of k+2 points per
 *  direction), lifted for the Dirichlet data g as ts_assemble_rhs does: on return x0 holds
 *  g at the Dirichlet DoFs (zero elsewhere) and b the constrained system's right side; add
 *  the Neumann data (ts_assemble_neumann_mapped), solve A x = b, then add x0.  f is called
 *  once per cell with the cell's (k+2)^dim quadrature
 *  points, g with batches of boundary DoF points, both from several OpenMP threads at once
 *  (ts_point_fn), one value per point.
 *  @param A    an operator of ts_operator_create_mapped (its DoFs and coefficients' mesh)
 *  @param f, g the right side and the Dirichlet data; NULL for zero
 *  @param ctx  passed to f and g
 *  @param b, x0  double vectors of A's size on A's backend */
int ts_assemble_rhs_mapped(ts_operator A, ts_point_fn f, ts_point_fn g, void *ctx, ts_vec b,
                           ts_vec x0);
/** @brief b_i += (h, phi_i) on the Neumann faces of A's DoFs, for every DoF i that is not a
 *  Dirichlet DoF: h is the flux kappa grad u . n (n the outward normal) as a function of the
 *  point, integrated over the mapped faces by the Gauss rule of k+2 points per direction
 *  (the surface measure from the geometry's tangents).  h is called once per boundary cell
 *  with its face's (k+2)^(dim-1) points, from several OpenMP threads at once (ts_point_fn).
 *  @return 0; TS_ERR_ARG for DoFs without Neumann faces or for h failing or not finite
 *          (naming the cell) */
int ts_assemble_neumann_mapped(ts_operator A, ts_point_fn h, void *ctx, ts_vec b);
/** @brief For an operator whose null space is the constants (ts_operator_create_mapped with
 *  every face Neumann and c = 0: a pure Neumann problem) make b compatible: b -= (sum_i
 *  b_i / n) 1, so that A x = b has solutions (unique up to a constant; CG and multigrid then
 *  converge).  *defect (may be NULL) = |sum_i b_i| / sum_i |b_i|: how far the data missed
 *  (f, 1) + (h, 1)_N = 0, from quadrature error alone when the data are compatible.  For
 *  other operators nothing is done and *defect = 0. */
int ts_remove_null_space(ts_operator A, ts_vec b, double *defect);
/** @brief The mean value of the finite element function (host values, Q_k DoFs of a mapped
 *  mesh) over the domain into *mean, and of u into *u_mean when u is not NULL (by the
 *  quadrature of ts_compute_errors_mapped): a pure Neumann problem's solution is shifted by
 *  *u_mean - *mean to compare it with u. */
int ts_mean_mapped(ts_dofs dofs, const double *values, ts_point_fn u, void *ctx, double *mean,
                   double *u_mean);
/** @brief L2 and H1-seminorm errors of the finite element function (host values, Q_k DoFs of a
 *  mapped mesh) against u with gradient grad_u (one value, dim values per point), by the
 *  Gauss rule of k+2 points per direction on every mapped cell, compensated sums.  u and
 *  grad_u are called once per cell, from several OpenMP threads at once (ts_point_fn). */
int ts_compute_errors_mapped(ts_dofs dofs, const double *values, ts_point_fn u, ts_point_fn grad_u,
                             void *ctx, double *l2_error, double *h1_error);

/* ---------------------------------------------------------------- Stokes: manufactured solutions */

/** A manufactured Stokes solution (u, p) with f = -Laplace(u) + grad(p) and div(u) = 0
 *  (doc/stokes.md section 8); every function takes the dimension and a point x[0..dim-1]. */
typedef struct ts_stokes_solution {
  const char *name;
  void (*velocity)(int dim, const double *x, double *u); /**< u(x) into u[0..dim-1] */
  double (*pressure)(int dim, const double *x);          /**< p(x) */
  void (*force)(int dim, const double *x, double *f);    /**< f(x) into f[0..dim-1] */
  /** Optional (the H1 error of ts_taylor_hood_compute_errors needs it): the velocity
   *  gradient, g[i dim + d] = d u_i / d x_d */
  void (*velocity_gradient)(int dim, const double *x, double *g);
  /** 1 when u = 0 on the boundary of the unit box: what the RT discretization, which
   *  imposes u = 0 there, takes (Taylor-Hood takes any Dirichlet data) */
  int zero_boundary_velocity;
} ts_stokes_solution;

/** @brief A built-in manufactured Stokes solution by name.
 *  @param name "paper000": paper 000 eq. (11)-(13) on the unit box (u = 0 on its boundary,
 *         p = prod cos(2 pi x_d) with zero mean); "paper004": papers 001/004 section 6 (2D:
 *         u = (a(x) b(y), -a(y) b(x)), a(t) = t(1-t)(2t-1), b(t) = 6t^2-6t+1,
 *         p = x^2 - 3y^2 + 8xy/3; non-zero tangential velocity on the boundary) and its 3D
 *         analogue u_i = a(x_i) (b(x_{i+1}) - b(x_{i+2})) (indices mod 3),
 *         p = x^2 - 3y^2 + 8xy/3 + z^2 - 1/3 (doc/taylor-hood.md)
 *  @param s   on success the solution (borrowed, static)
 *  @return 0, or TS_ERR_ARG naming the unknown name and the allowed ones. */
int ts_stokes_solution_by_name(const char *name, const ts_stokes_solution **s);

/** @brief The Stokes right-hand side on the host (doc/stokes.md sections 2-3):
 *  b_u[i] = (f, phi_i) by Gauss quadrature with k+3 points per direction, zero on the
 *  constrained (normal boundary) velocity DoFs; b_p = 0.
 *  @param velocity the RT_k DoFs (numbered first in the global vector)
 *  @param pressure the DGQ_k DoFs (numbered after the velocity)
 *  @param s        the manufactured solution supplying f
 *  @param b        host array of velocity->count + pressure->count entries, overwritten
 *  @return 0, or TS_ERR_ARG for NULL arguments or DoF handlers that do not match. */
int ts_stokes_assemble_rhs(ts_dofs velocity, ts_dofs pressure, const ts_stokes_solution *s,
                           double *b);

/** @brief L2 errors of a discrete Stokes solution against s, by Gauss quadrature with k+3
 *  points per direction; the pressure error is taken after removing the difference of the
 *  means (the discrete pressure is determined up to a constant).
 *  @param velocity    the RT_k DoFs
 *  @param pressure    the DGQ_k DoFs
 *  @param x           host values [u; p], velocity->count + pressure->count entries
 *  @param s           the manufactured solution
 *  @param velocity_l2 on return ||u_h - u||_L2
 *  @param pressure_l2 on return ||(p_h - mean p_h) - (p - mean p)||_L2 (doc/stokes.md
 *         section 8)
 *  @return 0, or TS_ERR_ARG for NULL arguments or DoF handlers that do not match. */
int ts_stokes_compute_errors(ts_dofs velocity, ts_dofs pressure, const double *x,
                             const ts_stokes_solution *s, double *velocity_l2,
                             double *pressure_l2);

/** @brief The Taylor-Hood right side (doc/taylor-hood.md): b_u = (f, v) with the Dirichlet
 *  velocity lifted, b_p = 0 lifted the same way (b = [(f, v); 0] - Acal x0, then zero on the
 *  boundary velocity rows), and x0 the velocity's boundary values interpolated at the
 *  boundary DoFs (zero elsewhere): solve Acal x = b, then add x0.  Host quadrature with k+2
 *  Gauss points per direction; f is called from several OpenMP threads at once.
 *  @param th        an operator from ts_operator_create_taylor_hood on velocity, pressure
 *  @param s         the manufactured solution (force, velocity)
 *  @param b, x0     vectors of the operator's size and precision, overwritten
 *  @return 0, or TS_ERR_ARG naming the argument that does not fit */
int ts_taylor_hood_assemble_rhs(ts_operator th, ts_dofs velocity, ts_dofs pressure,
                                const ts_stokes_solution *s, ts_vec b, ts_vec x0);
/** @brief The errors of a Taylor-Hood solution x = [u; p] (host values, the boundary values
 *  included) against s, by Gauss quadrature with k+2 points per direction: ||u_h - u||_L2,
 *  |u_h - u|_H1 and ||(p_h - mean p_h) - (p - mean p)||_L2 (the pressure is determined up to
 *  a constant).  s->velocity_gradient is required.
 *  @return 0, or TS_ERR_ARG naming the argument that does not fit */
int ts_taylor_hood_compute_errors(ts_dofs velocity, ts_dofs pressure, const double *x,
                                  const ts_stokes_solution *s, double *velocity_l2,
                                  double *velocity_h1, double *pressure_l2);

/* ---------------------------------------------------------------- output */

/* The .vtu writers (ts_write_vtu, ts_stokes_write_vtu, ts_taylor_hood_write_vtu,
 * ts_hdiv_write_vtu, and ts_problem_solve's <output>)
 * write ASCII, about 20-25 bytes per number: a fine level sampled with many subdivisions
 * makes files of hundreds of GB.  Before writing anything they bound the file's size from
 * above (points x (3 coordinates + the fields' components) x 25 bytes, and the cells) and
 * refuse a file beyond the output size limit with TS_ERR_IO naming both sizes.  The file is
 * written to a new file of a random name in the same directory (created exclusively, never
 * through a symlink, mode 0666 less the umask) and renamed over path when complete: a
 * failed write leaves nothing behind and path untouched.  A relative path is relative to
 * the current directory. */

/** The default output size limit: 1 GiB. */
#define TS_DEFAULT_MAX_OUTPUT_SIZE (UINT64_C(1) << 30)
/** An output size limit that never refuses. */
#define TS_OUTPUT_SIZE_UNLIMITED UINT64_MAX
/** @brief Set the output size limit of the .vtu writers for the whole process (and all its
 *  threads): bytes > 0, or TS_OUTPUT_SIZE_UNLIMITED (`tessera run --max-output-size`).
 *  @return 0, or TS_ERR_ARG for 0 */
int ts_set_max_output_size(uint64_t bytes);
/** @brief The output size limit in bytes (TS_DEFAULT_MAX_OUTPUT_SIZE unless set). */
uint64_t ts_max_output_size(void);

/** @brief Write a VTK unstructured grid (.vtu) with the fields solution, exact and error,
 *  each cell sampled on subdivisions^dim sub-cells (u may be NULL: then only solution).
 *  @return 0, TS_ERR_ARG for NULL arguments or subdivisions out of 1..16, TS_ERR_IO naming
 *          the file that could not be written or would exceed ts_max_output_size() */
int ts_write_vtu(const char *path, ts_dofs dofs, const double *values, const ts_solution *u,
                 int subdivisions);
/** @brief ts_write_vtu on a mapped mesh (ts_mesh_create_mapped): the lattice points are the
 *  cells' geometry (the Q_k interpolant of the mapped DoF points, as the operator sees the
 *  cells); u (ctx: its context) the exact solution as a ts_point_fn, called point by point
 *  from the calling thread, or NULL (then only "solution"); where it fails, "exact" and
 *  "error" are NaN.
 *  @return as ts_write_vtu; TS_ERR_ARG for DoFs of a box (use ts_write_vtu) */
int ts_write_vtu_mapped(const char *path, ts_dofs dofs, const double *values, ts_point_fn u,
                        void *ctx, int subdivisions);
/** @brief Write a VTK unstructured grid (.vtu) of a Stokes solution of RT_k x DGQ_k
 *  (doc/stokes.md section 10): every cell sampled on its own subdivisions^dim sub-cells
 *  (the points on faces repeated: the tangential velocity and the pressure jump across
 *  cells), with the point data "velocity" (3 components, z = 0 in 2D) and "pressure" (its
 *  mean removed), and if s is not NULL also "velocity_exact", "pressure_exact" (mean
 *  removed), "velocity_error" and "pressure_error" (discrete - exact).  Written as the
 *  section comment above says: a failed write leaves nothing behind.
 *  @param path         the .vtu file
 *  @param velocity     the RT_k DoFs
 *  @param pressure     the DGQ_k DoFs
 *  @param x            host values [u; p], velocity->count + pressure->count entries
 *  @param s            the exact solution, or NULL
 *  @param subdivisions 1..16 sub-cells per cell and direction (k+1 resolves the velocity)
 *  @return 0, or TS_ERR_ARG for NULL arguments, DoF handlers that do not match or
 *          subdivisions out of range, TS_ERR_IO naming the file that could not be written or
 *          would exceed ts_max_output_size(). */
int ts_stokes_write_vtu(const char *path, ts_dofs velocity, ts_dofs pressure, const double *x,
                        const ts_stokes_solution *s, int subdivisions);
/** @brief Write a VTK unstructured grid (.vtu) of a Taylor-Hood solution of Q_k x Q_{k-1}
 *  (doc/taylor-hood.md): both fields are continuous, so one lattice of subdivisions^dim
 *  sub-cells per cell covers the box (points on cell faces shared), with the point data of
 *  ts_stokes_write_vtu ("velocity", "pressure" with its mean removed, and with s the exact
 *  fields and the errors).  Written as the section comment above says.
 *  @param velocity     the Q_k DoFs of one velocity component (k >= 2, a box)
 *  @param pressure     the Q_{k-1} DoFs of the same mesh and level
 *  @param x            host values [u_0; ..; u_{dim-1}; p], dim velocity->count +
 *                      pressure->count entries
 *  @param s            the exact solution, or NULL
 *  @param subdivisions 1..16 sub-cells per cell and direction
 *  @return as ts_stokes_write_vtu */
int ts_taylor_hood_write_vtu(const char *path, ts_dofs velocity, ts_dofs pressure,
                             const double *x, const ts_stokes_solution *s, int subdivisions);

/** @brief Write a VTK unstructured grid (.vtu) of a Darcy or grad-div solution of RT_k x DGQ_k
 *  in the interpolation-histopolation bases (ts_hdiv_system; doc/hdiv.md): every cell sampled
 *  on its own subdivisions^dim sub-cells as in ts_stokes_write_vtu, with the point data
 *  "velocity" (3 components, z = 0 in 2D) and "pressure", and with u_exact and p_exact also
 *  "velocity_exact", "pressure_exact", "velocity_error" and "pressure_error" (discrete -
 *  exact).  The exact functions are called once per cell with its lattice points, from the
 *  calling thread, before the file is opened: where one fails, nothing is written.  Written as
 *  the section comment above says.
 *  @param velocity     the RT_k DoFs (ts_fe_create_rt_ih) of a box mesh (mapped meshes are
 *                      refused)
 *  @param pressure     the DGQ_k DoFs (ts_fe_create_l2_ih), same mesh, level and degree
 *  @param u            host values of the velocity DoFs (the first block of the system's x)
 *  @param p            host values of the pressure DoFs (ts_hdiv_system_pressure: -W^{-1} x_p)
 *  @param u_exact, p_exact  dim values and one value per point (ctx: their context), both or
 *                      neither (NULL)
 *  @param subdivisions 1..16 sub-cells per cell and direction (k+1 resolves the velocity)
 *  @return 0, or TS_ERR_ARG for NULL arguments, DoF handlers that do not match or
 *          subdivisions out of range, the exact functions' error, TS_ERR_IO naming the file
 *          that could not be written or would exceed ts_max_output_size(). */
int ts_hdiv_write_vtu(const char *path, ts_dofs velocity, ts_dofs pressure, const double *u,
                      const double *p, ts_point_fn u_exact, ts_point_fn p_exact, void *ctx,
                      int subdivisions);

/* ---------------------------------------------------------------- problems */

typedef struct ts_problem_s *ts_problem;

/** @brief Read a problem file (XML), apply overrides "PATH=VALUE" (PATH names an attribute
 *  as element/attribute below the root, e.g. "mesh/levels=4"; missing elements are created),
 *  validate the result against the Tessera schema and check its consistency.  Errors name
 *  file:line, the element or attribute, the value found and what is allowed.
 *  path is a local regular file (never a URL; a FIFO, directory or device is TS_ERR_IO) of
 *  at most 1 MiB, not compressed, UTF-8, with at most 64 attributes per element and no
 *  DOCTYPE (TS_ERR_INPUT otherwise; doc/xml-reference.md).  Nothing is printed. */
int ts_problem_read_xml(const char *path, int n_overrides, const char *const *overrides,
                        ts_problem *problem);
/** @brief ts_problem_read_xml from a document in memory (NUL-terminated), for programs that
 *  compose their problem (`tessera bench --mg`); name stands for the file in messages and
 *  is the problem's source. */
int ts_problem_read_string(const char *name, const char *xml, ts_problem *problem);
int ts_problem_destroy(ts_problem *problem);
/** @brief Bytes the problem needs on its finest level (vectors, solver work space). */
int ts_problem_memory_estimate(ts_problem problem, size_t *bytes);
/** @brief TS_ERR_MEMORY, naming both numbers, if the estimate exceeds available bytes. */
int ts_problem_check_memory(ts_problem problem, size_t available);
/** @brief The backend named in the problem file ("omp" unless it says otherwise; borrowed). */
const char *ts_problem_backend(ts_problem problem);
/** @brief The problem's name (borrowed). */
const char *ts_problem_name(ts_problem problem);
/** @brief The problem's dimension (2 or 3; -1 for NULL). */
int ts_problem_dim(ts_problem problem);
/** @brief The name of the problem's equation, whose system builder sets it up (borrowed;
 *  doc/extending.md, "An equation"): "poisson" (a built-in solution on the box),
 *  "poisson-own" (your own data, <poisson f=...>), "stokes" (RT_k x DGQ_k),
 *  "taylor-hood" (Q_k x Q_{k-1}); "" (and an error recorded) for NULL. */
const char *ts_problem_equation(ts_problem problem);

/** Results of solving a problem on one mesh level. */
typedef struct ts_level_report {
  int level;
  int64_t dofs;
  int iterations;
  double relative_residual;
  /* Errors and rates are NaN where they do not exist: without an exact solution (Poisson
   * rhs="one"), the rates of the first level, the H1 ones for RT Stokes, the pressure ones
   * for Poisson. */
  double l2_error, h1_error;     /* Poisson: L2 and H1-seminorm; Stokes: velocity L2 (and
                                    Taylor-Hood: velocity H1-seminorm) */
  double l2_rate, h1_rate;      /* log2 of the error ratio to the previous level */
  double pressure_l2_error, pressure_l2_rate; /* Stokes: pressure L2 (zero mean) */
  double setup_seconds, solve_seconds;
  double setup_phase_seconds[TS_SETUP_PHASES]; /* setup_seconds by phase (the rest: other) */
  int converged;                /* 1: the solver reached rtol; 0: it stopped short of it
                                   (TS_ERR_NOT_CONVERGED) and the row is the iterate reached */
} ts_level_report;

/** Results of ts_problem_solve: one entry per solved level (coarsest first). */
typedef struct ts_report {
  int n_levels;
  ts_level_report levels[32];
  int threads;
  int stokes;                   /* 1: a <stokes> problem, 0: <poisson> */
  /* per-level timings of the finest solve (mg_levels entries, coarsest first) */
  int mg_levels;
  ts_mg_level_timing mg_timing[32];
} ts_report;

/** @brief Solve the problem on the backend: on the finest level, or on every level of the
 *  convergence study.  Progress (header, one line per iteration, summary) goes to log
 *  unless it is NULL.  Writes the .vtu output the problem asks for (relative to the current
 *  directory; the log names it with its absolute path).  Before solving anything it checks
 *  that the problem fits the backend's memory and that the output can be written: a new
 *  file can be created in its directory and its size is within ts_max_output_size()
 *  (TS_ERR_IO naming the file, the size and the limit otherwise).  A level whose solver
 *  stops short of rtol (TS_ERR_NOT_CONVERGED) keeps its row in the report (converged = 0)
 *  and the study goes on; the function then returns TS_ERR_NOT_CONVERGED with the last
 *  such message (and writes no .vtu output for such a finest level). */
int ts_problem_solve(ts_problem problem, ts_backend backend, FILE *log, ts_report *report);
/** The finest level's discretization and solver settings of a problem, for tools that
 *  build their own objects from it (`tessera check`). */
typedef struct ts_problem_settings {
  int dim, degree, level;       /* finest mesh level */
  const ts_solution *solution;  /* Poisson: the manufactured solution (borrowed; NULL for Stokes) */
  ts_solver_type solver;
  int jacobi;                   /* 1: Jacobi preconditioner, 0: none */
  int multigrid;                /* 1: one V-cycle as preconditioner (preconditioner="mg" or fmg) */
  ts_mg_options mg;             /* the problem's <multigrid> options; for Stokes also the local
                                   solver (stokes_solver) and the penalty (stokes_penalty) */
  double rtol;
  int max_iterations, restart;
  ts_precision precision;
  int stokes;                   /* 1: a <stokes> problem, RT_k x DGQ_k (doc/stokes.md) */
  const ts_stokes_solution *stokes_solution; /* Stokes: the manufactured solution (borrowed) */
  int own;                      /* 1: your own data (<poisson f=...>): solution is NULL, the mesh
                                   mapped (ts_mesh_create_mapped), the operator that of
                                   ts_operator_create_mapped, mg.smoother Chebyshev */
  int taylor_hood;              /* 1: <stokes> with Taylor-Hood Q_k x Q_{k-1} (stokes is 1 too;
                                   doc/taylor-hood.md); mg is the velocity Laplacian's */
} ts_problem_settings;
/** @brief The problem's settings and a new mesh and element for it (caller destroys both).
 *  For your own data (settings->own) the mesh is the mapped one ts_problem_solve uses; on
 *  a box it maps through the problem's box, so the problem must outlive the mesh.
 *  @param problem   a problem read by ts_problem_read_xml
 *  @param settings  on return the finest level's settings
 *  @param mesh      a new mesh with the problem's levels
 *  @param fe        a new element: Q_k for Poisson; for Stokes the velocity element RT_k (the
 *                   pressure element is DGQ_k of the same degree: ts_fe_create_dgq); for
 *                   Taylor-Hood Q_k, each velocity component's (the pressure's is Q_{k-1})
 *  @return 0, or the error of creating mesh or element (nothing is left allocated then) */
int ts_problem_discretization(ts_problem problem, ts_problem_settings *settings, ts_mesh *mesh,
                              ts_fe *fe);
/** @brief Solve the problem on its finest level on the backend exactly as ts_problem_solve
 *  solves that level (same objects, solver and preconditioner; no log, no .vtu output) and
 *  copy the solution to the host.
 *  @param problem   a problem read by ts_problem_read_xml
 *  @param backend   the backend to solve on
 *  @param report    on return the level's iterations, residual, errors and times
 *  @param solution  host array of the finest level's DoF count (Poisson: ts_dofs_count of
 *                   Q_k; Stokes: RT_k + DGQ_k), or NULL; on return the solution (Poisson:
 *                   with the boundary values; Stokes: [u; p] with the pressure mean removed)
 *  @return 0, TS_ERR_MEMORY (the problem does not fit the backend), or the solver's error
 *          (TS_ERR_NOT_CONVERGED: report and solution are those of the iterate reached;
 *          TS_ERR_BREAKDOWN, ...: the solution is not copied) */
int ts_problem_solve_finest(ts_problem problem, ts_backend backend, ts_level_report *report,
                            double *solution);

/* ---------------------------------------------------------------- systems */

/** One level of a problem as ts_problem_solve sets it up, by the builder of its equation
 *  (Poisson, Stokes; doc/extending.md): the DoF handlers of its fields, the system operator,
 *  the multigrid hierarchy, the right side, the preconditioner tree and the solver.  Tools
 *  that work on a problem's objects (`tessera check`, `bench --mg`) take them from here. */
typedef struct ts_system_s *ts_system;
/** @brief The problem's DoFs on mesh level 0..its finest (Poisson: Q_k; Stokes: RT_k +
 *  DGQ_k, velocity and pressure), from the equation's formula (no mesh is made). */
int ts_problem_level_dofs(ts_problem problem, int level, int64_t *dofs);
/** @brief Set up level 0..finest of the problem on backend as ts_problem_solve does (nothing
 *  is solved, the memory is not checked: ts_problem_check_memory).  The system keeps the
 *  problem borrowed: it must outlive the system. */
int ts_system_create(ts_problem problem, ts_backend backend, int level, ts_system *system);
int ts_system_destroy(ts_system *system);
/** @brief The number of fields: 1 (Poisson), 2 (Stokes: velocity and pressure).  System
 *  vectors are the fields one after the other. */
int ts_system_fields(ts_system system);
/** @brief The DoF handler of field 0..fields-1 (borrowed). */
ts_dofs ts_system_dofs(ts_system system, int field);
/** @brief The system operator (borrowed): the Laplacian, the Stokes operator Acal. */
ts_operator ts_system_operator(ts_system system);
/** @brief The multigrid hierarchy (borrowed), NULL if the problem uses none. */
ts_mg ts_system_mg(ts_system system);
/** @brief The right side of the solver's system (borrowed; Poisson: the boundary values
 *  lifted out, Stokes with MINRES: the pressure rows negated, doc/stokes.md section 12). */
ts_vec ts_system_rhs(ts_system system);
/** @brief The problem's solver with its preconditioner (borrowed), NULL for full multigrid. */
ts_solver ts_system_solver(ts_system system);
/** @brief A new system operator on the system's DoF handlers, on another backend or in
 *  another precision (the caller destroys it before the system). */
int ts_system_operator_create(ts_system system, ts_backend backend, ts_precision precision,
                              ts_operator *op);
/** @brief A new hierarchy of the system's equation up to its level, with other options
 *  (precision, coarse level; Stokes: the local solver), on backend. */
int ts_system_mg_create(ts_system system, ts_backend backend, const ts_mg_options *options,
                        ts_mg *mg);

/* ---------------------------------------------------------------- MPI domain decomposition */

/** The box split into px x py (x pz) blocks of cells over the processes of an MPI
 *  communicator (doc/parallel.md): a Cartesian communicator, one process per GPU or core
 *  group.  Each process keeps the ordinary objects of its own block (its local mesh, Q_k
 *  DoFs and operator plan); a DoF on an interface between blocks is owned by the process on
 *  its lower side and is a ghost on the others.  Distributed vectors are ts_vec of the
 *  local block's DoFs (owned and ghost) whose layout (ts_vec_layout) names the processes:
 *  ts_vec_dot and ts_vec_norm sum over the owned DoFs and reduce in rank order (the same
 *  bits on every process), ts_vec_set_random draws the entries of the one-process vector,
 *  so that CG, GMRES, Jacobi and Chebyshev work on them unchanged.  Distributed vectors are
 *  "consistent": a ghost holds its owner's value.  Double precision only.  mpi.h is not
 *  needed: communicators are passed as their Fortran handle (MPI_Fint, an int), from
 *  MPI_Comm_c2f(comm).  Built without MPI (configure --without-mpi), every function below
 *  reports TS_ERR_UNSUPPORTED (the getters -1 or NULL) and ts_parallel_available is 0. */
typedef struct ts_parallel_s *ts_parallel;
/** A Q_k space on a box or mapped mesh, split among the processes of a ts_parallel. */
typedef struct ts_parallel_dofs_s *ts_parallel_dofs;

/** @brief 1 if Tessera was built with MPI (configure --with-mpi), else 0. */
int ts_parallel_available(void);
/** @brief The Cartesian split of the processes of comm into procs[0] x ... x procs[dim-1]
 *  blocks (collective over comm; MPI must be initialized).
 *  @param comm   the communicator's Fortran handle: MPI_Comm_c2f(MPI_COMM_WORLD)
 *  @param dim    2 or 3
 *  @param procs  processes per direction, their product the communicator's size; NULL:
 *                MPI_Dims_create chooses
 *  @return 0; TS_ERR_ARG naming the argument (dim, procs[d] < 1, a product other than the
 *          size, MPI not initialized); TS_ERR_UNSUPPORTED without MPI; TS_ERR_BACKEND naming
 *          the MPI call that failed */
int ts_parallel_create(int comm, int dim, const int *procs, ts_parallel *par);
/** @brief Free the split (collective) and set *par to NULL (NULL is allowed). */
int ts_parallel_destroy(ts_parallel *par);
/** @brief This process's rank in the split's communicator (-1 for NULL). */
int ts_parallel_rank(ts_parallel par);
/** @brief The number of processes (-1 for NULL). */
int ts_parallel_size(ts_parallel par);
/** @brief The processes per direction into procs[0..dim-1]. */
int ts_parallel_procs(ts_parallel par, int *procs);
/** @brief This process's rank among the processes of its node (MPI_COMM_TYPE_SHARED): the
 *  GPU a process should use is this rank modulo the node's GPUs (-1 for NULL). */
int ts_parallel_node_rank(ts_parallel par);

/** @brief The Q_k DoFs of mesh's level split into blocks of cells (collective).  Per
 *  direction the cells are dealt out as evenly as possible (the first blocks one more).
 *  @param backend  where the distributed vectors and operators live
 *  @param mesh     a box mesh (ts_mesh_create_box) or a mapped one (ts_mesh_create_mapped,
 *                  _kershaw, ...: each block samples the mesh's map at its own cells, the
 *                  points of the whole level; the map and its context must outlive pd)
 *  @param fe       a Q_k element (ts_fe_create_q) of the mesh's dimension
 *  @return 0; TS_ERR_ARG naming the argument (a dimension other than the split's, not Q_k,
 *          fewer cells than processes in a direction, a map failing at a cell);
 *          TS_ERR_UNSUPPORTED without MPI or for a backend that does not pack planes
 *          (vec_plane_pack, backend ABI 17: omp, cuda and hip do); TS_ERR_MEMORY.
 *          Collective: the processes agree here whether the halo travels device to device
 *          (ts_parallel_dofs_device_messages). */
int ts_parallel_dofs_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                            int level, ts_parallel_dofs *pd);
/** @brief Free the distributed DoFs (after the vectors and operators made on them). */
int ts_parallel_dofs_destroy(ts_parallel_dofs *pd);
/** @brief The ordinary DoF handler of this process's block (owned and ghost DoFs, numbered
 *  lexicographically in the block), borrowed: for ts_dofs_point and friends.  Of Stokes DoFs
 *  (ts_parallel_dofs_create_stokes) the RT_k velocity's of the extended block (its vectors
 *  hold the pressure after it). */
ts_dofs ts_parallel_dofs_local(ts_parallel_dofs pd);
/** @brief 1 when pd's halo exchange sends its planes device to device (the backend's peer
 *  messages: NCCL on cuda, doc/parallel.md), 0 when they travel through host memory and MPI,
 *  -1 for NULL.  TESSERA_PEER=0 in the environment keeps them on the host; NCCL is not
 *  used by two processes that share one device. */
int ts_parallel_dofs_device_messages(ts_parallel_dofs pd);
/** What a distributed solve spends its time on besides the operators' kernels
 *  (ts_parallel_dofs_time; doc/parallel.md section 6 models them). */
typedef enum {
  TS_PARALLEL_TIME_HALO = 0,      /**< ts_parallel_vec_sum_shared: packing, messages, unpacking */
  TS_PARALLEL_TIME_REDUCTION = 1, /**< the sums over the processes of dot products and norms */
  TS_PARALLEL_TIME_COARSE = 2,    /**< the gathered coarse solve: gather, LU, scatter */
  TS_PARALLEL_TIMES = 3
} ts_parallel_time;
/** @brief Start (on = 1) or stop (on = 0) timing the halo exchanges, reductions and coarse
 *  solves of the distributed DoFs of par (on this process; off when par is made).  While on,
 *  each timed region first waits for the backend's queued work and ends when its own is done,
 *  so that it is timed alone: the solve runs slower by those waits (compare its time with
 *  timing off).  A reduction's time includes waiting for the slowest process.
 *  @return 0, or TS_ERR_ARG for NULL or on other than 0 and 1 */
int ts_parallel_timing(ts_parallel par, int on);
/** @brief The seconds (and the number of times) this process spent on `what` for pd while
 *  timing was on, summed since pd was made: read it before and after the part to time.
 *  Either output may be NULL.
 *  @return 0, or TS_ERR_ARG for NULL pd or `what` out of range */
int ts_parallel_dofs_time(ts_parallel_dofs pd, ts_parallel_time what, double *seconds,
                          int64_t *calls);
/** @brief The DoFs of the whole mesh (-1 for NULL). */
int64_t ts_parallel_dofs_global_count(ts_parallel_dofs pd);
/** @brief The index that local DoF `local` of this process has in the one-process numbering
 *  (ts_dofs_create on the whole mesh), or -1 (TS_ERR_ARG recorded) out of range. */
int64_t ts_parallel_dofs_global_index(ts_parallel_dofs pd, int64_t local);
/** @brief A distributed vector of zeros on pd (double precision; destroy with ts_vec_destroy). */
int ts_parallel_vec_create(ts_parallel_dofs pd, ts_vec *v);
/** @brief Sum the entries that processes hold of each shared DoF and give every process the
 *  sum: what makes a vector assembled cell by cell on each block (a right side) the
 *  distributed vector of the whole mesh.  Collective.
 *  @return 0, or TS_ERR_ARG if v is not a distributed vector of pd */
int ts_parallel_vec_sum_shared(ts_parallel_dofs pd, ts_vec v);
/** @brief The whole vector in the one-process numbering, on every process (global: host array
 *  of ts_parallel_dofs_global_count entries): for tests and small problems.  Collective. */
int ts_parallel_vec_gather(ts_vec v, double *global);
/** @brief Each process takes its entries (owned and ghost) of the one-process vector global. */
int ts_parallel_vec_scatter(const double *global, ts_vec v);
/** @brief The Laplacian of ts_operator_create_laplace on the whole mesh, applied block by
 *  block: each process applies the local kernel to its block, the interface rows are summed
 *  over the processes (ts_parallel_vec_sum_shared) and the Dirichlet rows are those of the
 *  box's boundary (identity rows and columns).  Its diagonal (ts_operator_diagonal, so
 *  Jacobi and Chebyshev) is distributed alike.  Input and output: distributed vectors of pd.
 *  On a mapped mesh: ts_parallel_operator_create_mapped with NULL coefficients.
 *  @return 0; TS_ERR_ARG (NULL); TS_ERR_UNSUPPORTED without MPI or without the backend
 *          kernel; TS_ERR_MEMORY */
int ts_parallel_operator_create_laplace(ts_parallel_dofs pd, ts_operator *op);
/** @brief The operator of ts_operator_create_mapped on the whole level of a mapped mesh
 *  (-div(kappa grad u) + c u, Dirichlet rows on the whole boundary), applied block by block as
 *  ts_parallel_operator_create_laplace: each process has the mapped operator of its block
 *  without constraints; the interface rows and the diagonal are summed over the processes.
 *  @param coefficients  NULL (the Laplacian) or as for ts_operator_create_mapped on the whole
 *                       level: the arrays over the whole level's cells (each process takes
 *                       its block's), or kappa_at / reaction_at called at each block's points
 *  @return 0; TS_ERR_ARG (NULL, a box mesh: ts_parallel_operator_create_laplace, the errors of
 *          ts_operator_create_mapped); TS_ERR_UNSUPPORTED without MPI or without the backend
 *          kernel 'mapped_apply'; TS_ERR_MEMORY */
int ts_parallel_operator_create_mapped(ts_parallel_dofs pd, const ts_coefficients *coefficients,
                                       ts_operator *op);

/** @brief The transfer from the distributed Q_k space `coarse` to the next finer level `fine`
 *  (the same split, backend and degree) as an operator: apply is the prolongation of
 *  ts_mg_transfer_operator over the whole mesh (Dirichlet DoFs of the box read and written as
 *  zero), apply_transpose (ts_operator_create_transpose) its exact transpose, the restriction.
 *  Each process runs the one-process kernel on its block; the restriction sums the interface
 *  rows (ts_parallel_vec_sum_shared).  The blocks must nest: every direction of the mesh has
 *  at least as many level-0 cells as processes (ts_parallel_dofs_create then splits level 0;
 *  ts_parallel_mg_dofs's levels nest alike).
 *  @return 0; TS_ERR_ARG naming what does not fit; TS_ERR_UNSUPPORTED without MPI or without
 *          the backend kernel 'transfer' */
int ts_parallel_operator_create_transfer(ts_parallel_dofs coarse, ts_parallel_dofs fine,
                                         ts_operator *P);
/** Distributed Q_k spaces and Laplacians of a box or mapped mesh's levels, for multigrid. */
typedef struct ts_parallel_mg_s *ts_parallel_mg;
/** @brief Gather the coarse levels of the distributed hierarchies made afterwards with par
 *  (ts_parallel_mg_create, _create_mapped, _create_stokes; doc/parallel.md section 5 item 3):
 *  below the split level - the lowest level whose cells can be dealt out (at least as many
 *  as processes in every direction), number at least min_cells per process and give
 *  balanced blocks (the largest at most 1/8 above the mean; if no level does, the lowest
 *  level that meets the first two) - every
 *  process holds the whole levels, and the one-process cycle of those levels is the
 *  distributed cycle's coarse solve (full multigrid: their nested iteration).  The cycle and
 *  its iterations are the one-process ones whatever the split; what changes is where the
 *  small levels run: many small messages on every process, or one gather and the whole small
 *  levels on each.  0 (the default): only the levels too small to deal out are gathered.
 *  @return 0, or TS_ERR_ARG for NULL or min_cells < 0 */
int ts_parallel_set_agglomeration(ts_parallel par, int64_t min_cells);
/** The default of ts_parallel_set_overlap: 2^21 DoFs per block. */
#define TS_PARALLEL_OVERLAP_DEFAULT ((int64_t)1 << 21)
/** @brief Overlap the halo exchange with computation (doc/parallel.md section 3, "Overlap"): a
 *  distributed Laplacian of a box (ts_parallel_operator_create_laplace and the levels of
 *  ts_parallel_mg_create, either precision; degree 3 or more, where the split pays) whose
 *  block has at least min_dofs DoFs computes
 *  the cells that touch no interface while the sums over its interfaces travel, on backends
 *  that run work concurrently (cuda, hip: backend ABI 20); on omp, and for mapped meshes and
 *  Stokes, the block is computed at once and nothing changes.  The result is the same sum of
 *  element matrices in another order (round-off).  The setting is read at each application,
 *  so it may change between solves.  0: never.  Default TS_PARALLEL_OVERLAP_DEFAULT: smaller
 *  blocks compute in less time than the extra launches and the exchange's latency.
 *  @return 0, or TS_ERR_ARG for NULL or min_dofs < 0; TS_ERR_UNSUPPORTED without MPI */
int ts_parallel_set_overlap(ts_parallel par, int64_t min_dofs);
/** @brief The distributed DoFs and Laplacians (ts_parallel_operator_create_laplace) of mesh's
 *  levels split..finest_level and the one-process levels coarse_level..split below them
 *  (ts_parallel_set_agglomeration; collective).  The split level's cells are dealt out and
 *  refined with the levels, so that the blocks nest.  mesh and fe are borrowed: they must
 *  outlive the hierarchy.  On a mapped mesh: ts_parallel_mg_create_mapped with NULL
 *  coefficients.
 *  @return 0; TS_ERR_ARG for levels out of range or a finest level with fewer cells than
 *          processes in a direction; the errors of the parts */
int ts_parallel_mg_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                          int coarse_level, int finest_level, ts_parallel_mg *mg);
/** @brief The same on a mapped mesh with coefficients, as ts_mg_create_mapped: every level
 *  rediscretized (ts_parallel_operator_create_mapped), its kappa and c arrays the means of
 *  the finer level's cells, down from the finest level's (coefficients: over the whole
 *  finest level's cells, copied; every process keeps the whole levels' arrays), values per
 *  point evaluated on every level; the coarse solve of the V-cycles the LU of the
 *  one-process mapped operator of the coarse level.
 *  @return as ts_parallel_mg_create; TS_ERR_ARG for a box mesh or coefficients that
 *          ts_mg_create_mapped refuses */
int ts_parallel_mg_create_mapped(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                                 int coarse_level, int finest_level,
                                 const ts_coefficients *coefficients, ts_parallel_mg *mg);
/** @brief Free the hierarchy (after the preconditioners made of it); NULL is allowed. */
int ts_parallel_mg_destroy(ts_parallel_mg *mg);
/** @brief The distributed DoFs of a level (borrowed; NULL with the error set out of range or
 *  below the split level). */
ts_parallel_dofs ts_parallel_mg_dofs(ts_parallel_mg mg, int level);
/** @brief The lowest distributed level of the hierarchy, its split level (the levels below it
 *  are gathered: ts_parallel_set_agglomeration); -1 for NULL. */
int ts_parallel_mg_split_level(ts_parallel_mg mg);
/** @brief The distributed Laplacian of a level (borrowed; NULL with the error set out of range
 *  or below the split level). */
ts_operator ts_parallel_mg_operator(ts_parallel_mg mg, int level);
/** @brief The precision of the V-cycles made afterwards from a Q_k hierarchy
 *  (ts_parallel_pc_create_mg_jacobi, _chebyshev, _patch): TS_DOUBLE (the default) or
 *  TS_SINGLE, mixed precision as ts_mg_options.precision on one process (paper 002 section
 *  4.2).  Under TS_SINGLE the distributed levels get single-precision Laplacians, transfers
 *  and smoothers, and their halo exchanges carry single-precision values; the preconditioner
 *  still takes and returns double vectors (rounded at entry), and ts_pc_multigrid_fmg_solve
 *  forms its residuals, restrictions and prolongations in double with the hierarchy's
 *  Laplacians (ts_parallel_mg_operator), only the V-cycles on the residuals in single.  The
 *  gathered levels (ts_parallel_mg_split_level) stay double.  The iterations are those of
 *  the same cycle on one process; the results agree to single-precision round-off.
 *  @return 0; TS_ERR_ARG (NULL, a Stokes hierarchy, another precision) */
int ts_parallel_mg_set_precision(ts_parallel_mg mg, ts_precision precision);
/** @brief Degree levels below the coarse mesh level, for the V-cycles made afterwards from a
 *  Q_k hierarchy, as ts_mg_options.coarse_degree on one process (paper 002's p-multigrid):
 *  the coarse mesh level at the degrees k/2, k/4, ... down to `degree` (each halving rounded
 *  down, the last step to `degree`), whose LU is then the coarse solve.  They belong to the
 *  gathered levels (ts_parallel_mg_split_level): the coarse mesh level and the degree
 *  levels are whole on every process, with the one-process operators, degree transfers and
 *  smoothers of the hierarchy's kind.  So a coarse mesh level too large for the dense LU at
 *  degree k (more than 8,000 DoFs; 16,000 on a GPU) is solved at a lower degree.  The
 *  default, k, has no degree levels.
 *  @return 0; TS_ERR_ARG (NULL, a Stokes hierarchy, degree outside 1..k) */
int ts_parallel_mg_set_coarse_degree(ts_parallel_mg mg, int degree);
/** @brief The V-cycle (ts_pc_create_multigrid) of the hierarchy: its Laplacians, the
 *  distributed transfers, weighted point Jacobi smoothers (ts_pc_create_jacobi_weighted), and
 *  as its coarse solve the split level's vector gathered on every process and the one-process
 *  V-cycle of the gathered levels applied, whose coarse solve is the LU of the one-process
 *  coarse Laplacian (ts_pc_multigrid_fmg_solve starts with their nested iteration).  The same preconditioner as ts_pc_create_mg_jacobi
 *  on a ts_mg_create hierarchy of the same levels (and the same coarse degree:
 *  ts_parallel_mg_set_coarse_degree; in double precision): the same
 *  iterations for any number of processes, the results equal to round-off.  On distributed
 *  vectors of the finest level; mg is borrowed (it must outlive pc).
 *  The coarse level's DoFs (the whole mesh's) must fit the dense LU: at most 8,000 (16,000 on a
 *  GPU backend, where the LU's explicit inverse is applied on the device).
 *  @param weight           in (0, 2]
 *  @param smoothing_steps  pre- and post-smoothing steps each, 1..100
 *  @return 0, or TS_ERR_ARG naming the argument, its value and what is allowed (*pc NULL; a
 *          coarse level beyond the dense LU's size), TS_ERR_MEMORY, TS_ERR_LAPACK */
int ts_parallel_pc_create_mg_jacobi(ts_parallel_mg mg, double weight, int smoothing_steps,
                                    ts_pc *pc);
/** @brief The same V-cycle with Chebyshev smoothers of the given degree (ts_pc_create_chebyshev,
 *  1..20) instead of Jacobi. */
int ts_parallel_pc_create_mg_chebyshev(ts_parallel_mg mg, int degree, int smoothing_steps,
                                       ts_pc *pc);
/** @brief The multiplicative vertex-patch smoother (ts_smoother_create_vertex_patch) of the
 *  distributed Laplacian A of a box (ts_parallel_operator_create_laplace on pd): the
 *  one-process sweep, bit for bit, for any number of processes.  Each process sweeps its
 *  block and one layer of ghost cells on its interfaces with the one-process kernel, color
 *  by color in the one-process order, and refreshes the ghost layer from its neighbours
 *  after each color (2^dim exchanges of k-deep slabs per step; doc/parallel.md section 5).
 *  A and pd are borrowed (they must outlive the smoother); in A's precision (single for the
 *  levels of a mixed-precision V-cycle).
 *  @return 0, or TS_ERR_ARG (NULL, A not the distributed Laplacian of pd, a mapped mesh, a
 *          variant or degree out of range), TS_ERR_UNSUPPORTED (the backend has no
 *          patch_smooth), TS_ERR_MEMORY */
int ts_parallel_smoother_create_vertex_patch(ts_operator A, ts_parallel_dofs pd,
                                             ts_patch_variant variant, ts_smoother *smoother);
/** @brief The V-cycle of ts_parallel_pc_create_mg_jacobi with the vertex-patch smoother
 *  (ts_parallel_smoother_create_vertex_patch, as preconditioners: ts_pc_create_smoother) on
 *  every level but the coarsest: paper 002's V-cycle over the processes.  A box mesh. */
int ts_parallel_pc_create_mg_patch(ts_parallel_mg mg, ts_patch_variant variant,
                                   int smoothing_steps, ts_pc *pc);
/** @brief Paper 000's Stokes spaces, velocity RT_k and pressure DGQ_k (k = 0..TS_MAX_DEGREE-1), of a box's level split among par's processes (doc/parallel.md
 *  section 5 item 4): each process holds its block's cells and two layers of ghost cells
 *  beyond each interface, and its vectors [u_0; ..; u_{dim-1}; p] are those of that box
 *  numbered as one process numbers a box.  Owned: the entries of the block's cells, a normal
 *  velocity DoF on an interface by the lower block.  ts_parallel_vec_create, _gather,
 *  _scatter, ts_vec_dot and ts_vec_set_random take these DoFs (not _vec_sum_shared:
 *  nothing is summed over the interfaces).  Refreshing the ghosts needs blocks of at least 2
 *  cells in every split direction (a coarsest level, solved by the gathered LU, may have 1).
 *  @return 0; TS_ERR_ARG (NULL, a mapped mesh, degree or level out of range, fewer cells than
 *          processes), TS_ERR_UNSUPPORTED (no MPI, a backend without vec_plane_pack),
 *          TS_ERR_MEMORY */
int ts_parallel_dofs_create_stokes(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                   int level, ts_parallel_dofs *pd);
/** @brief The Stokes operator of paper 000 (ts_operator_create_stokes: penalty <= 0 the
 *  default) on distributed Stokes DoFs: x's ghost layers refreshed from their owners, then
 *  the one-process kernel on the process's cells and ghost cells, which gives every owned row
 *  exactly.  ts_stokes_pressure_mean and _mean_remove take it.  Double precision; pd is
 *  borrowed.
 *  @return 0; TS_ERR_ARG (NULL, Q_k DoFs, penalty not finite), TS_ERR_UNSUPPORTED (a backend
 *          without stokes_apply), TS_ERR_MEMORY */
int ts_parallel_operator_create_stokes(ts_parallel_dofs pd, double penalty, ts_operator *op);
/** @brief The distributed Stokes DoFs and operators of mesh's levels options->coarse_level ..
 *  finest_level, as ts_mg_create_stokes (options NULL for the defaults; its coarse level,
 *  penalty, the patches' local solver and CG tolerance are used, the rest checked alike).
 *  The levels below the split level are gathered (ts_parallel_set_agglomeration); the split
 *  level's cells are dealt out among the processes and refined with the levels.
 *  @return 0; the errors of ts_parallel_dofs_create_stokes; TS_ERR_ARG (levels, options) */
int ts_parallel_mg_create_stokes(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                 int finest_level, const ts_mg_options *options,
                                 ts_parallel_mg *mg);
/** @brief Paper 000's V-cycle on a distributed Stokes hierarchy (ts_parallel_mg_create_stokes):
 *  the one-process V-cycle of ts_mg_create_stokes (ts_pc_create_mg) over the processes - the
 *  Stokes vertex-patch smoother (one step before and after the coarse correction), the
 *  transfers, the gathered levels' one-process V-cycle (on the coarse level the LU of the
 *  whole level bordered by the constant pressure) on every process, and the output's pressure
 *  mean removed.  mg is borrowed.
 *  @return 0; TS_ERR_ARG (NULL, not a Stokes hierarchy, a coarse level beyond the dense LU),
 *          TS_ERR_UNSUPPORTED (a backend without the Stokes kernels), TS_ERR_MEMORY */
int ts_parallel_pc_create_mg_stokes(ts_parallel_mg mg, ts_pc *pc);
/** @brief What the hierarchy's levels spent (ts_parallel_timing on): `what`'s seconds and
 *  calls summed over the levels (ts_parallel_dofs_time of each); NULL outputs allowed.
 *  @return 0, TS_ERR_ARG (mg NULL, what out of range), TS_ERR_UNSUPPORTED without MPI */
int ts_parallel_mg_time(ts_parallel_mg mg, ts_parallel_time what, double *seconds,
                        int64_t *calls);

/** @brief Whether the problem can be solved distributed (ts_problem_solve_parallel): <poisson>
 *  with a built-in solution (or rhs="one") on a box, or your own data without Neumann faces
 *  on a box or a mapped mesh, Q_k in double precision, CG, GMRES,
 *  FGMRES, MINRES or full multigrid, preconditioned by none, jacobi, chebyshev or mg, the
 *  multigrid without degree levels or mixed precision, with the vertex-patch smoother (the
 *  default; Poisson with a built-in solution: the box's Laplacian), the Chebyshev smoother
 *  (<multigrid smoother="chebyshev">) or from <preconditioner type="mg" smoother="jacobi">,
 *  its coarse solve the LU; or <stokes> with RT_k in double precision, GMRES or FGMRES with
 *  mg or none (the finest level needs two cells per block and split direction: checked when
 *  solving; the levels too small to deal out are gathered).  Needs no MPI.
 *  @return 0, or TS_ERR_UNSUPPORTED naming the element, attribute and value that are not
 *          distributed yet and what is allowed */
int ts_problem_parallel_check(ts_problem problem);
/** @brief ts_problem_read_xml over the processes of comm (collective): rank 0 reads the file's
 *  bytes and broadcasts them, every process parses them with the same overrides (the file
 *  need not be visible on the other nodes; files it names, kappa-file and c-file, are read
 *  where they are used, on every process).  An error reading on rank 0 is every process's
 *  ("process 0: ..." on the others); a parse error is the same on every process.
 *  @param comm  the communicator's Fortran handle: MPI_Comm_c2f(MPI_COMM_WORLD)
 *  @return as ts_problem_read_xml; TS_ERR_ARG (NULL, MPI not initialized);
 *          TS_ERR_UNSUPPORTED without MPI; TS_ERR_BACKEND naming a failed MPI call */
int ts_problem_read_xml_parallel(int comm, const char *path, int n_overrides,
                                 const char *const *overrides, ts_problem *problem);
/** This process's share of a distributed solve (ts_problem_solve_parallel), finest level. */
typedef struct ts_parallel_figures {
  int rank, processes;          /* this process in the split, of how many */
  int procs[3];                 /* processes per direction (1 beyond the dimension) */
  int64_t cells[3];             /* this process's block of cells */
  int64_t owned_dofs;           /* the DoFs it owns (their sum over the processes: the DoFs) */
  int64_t block_dofs;           /* its block's DoFs, owned and ghost */
  double setup_seconds, solve_seconds; /* its own times (the report's: the slowest process's) */
} ts_parallel_figures;
/** @brief Solve the problem over the processes of comm (collective; doc/parallel.md, "Running
 *  a problem file under mpirun"): as ts_problem_solve, each level's mesh split into blocks
 *  (ts_parallel_create with procs), the distributed Laplacian, right side and preconditioner
 *  (ts_parallel_mg_create, ts_parallel_pc_create_mg_chebyshev / _jacobi), the problem's
 *  solver, the errors summed over the processes in rank order.  Every process reads the same
 *  problem; log is written where it is not NULL (give it on one process).  report is the same
 *  on every process (times: the slowest process's); figures (may be NULL) this process's.
 *  <output vtu="NAME.vtu"> writes one piece per process, NAME-RANK.vtu (its block's cells),
 *  and on rank 0 NAME.pvtu naming them.  An error on any process is every process's error
 *  (the message of the lowest failing rank, "process R: ...").
 *  @param comm   the communicator's Fortran handle: MPI_Comm_c2f(MPI_COMM_WORLD)
 *  @param procs  processes per direction (the problem's dimension of them), or NULL:
 *                MPI_Dims_create chooses
 *  @return 0; TS_ERR_UNSUPPORTED (ts_problem_parallel_check, or built without MPI); the
 *          errors of ts_problem_solve (TS_ERR_NOT_CONVERGED keeps the report) */
int ts_problem_solve_parallel(ts_problem problem, ts_backend backend, int comm, const int *procs,
                              FILE *log, ts_report *report, ts_parallel_figures *figures);

/* ---------------------------------------------------------------- timers */

/** @brief Wall-clock seconds since an arbitrary origin. */
double ts_wtime(void);

#ifdef __cplusplus
}
#endif
#endif
