/* problem-impl.h -- the in-memory problem description that the XML reader fills and the
 * solve driver reads (private to lib/problem). */
#ifndef TESSERA_PROBLEM_IMPL_H
#define TESSERA_PROBLEM_IMPL_H

#include "../tessera-impl.h"

/* ---------------------------------------------------------------- preconditioner trees */
/* The <preconditioner> elements below <solver> (doc/xml-reference.md) as a tree of nodes in
 * an array, node 0 the root; preconditioner="jacobi|mg" is a tree of one node, "none" an
 * empty one.  pc-tree.c holds the rules (which kind may stand where, with which attributes
 * and children) that the reader checks and the runners build by. */
#define TS_PC_TREE_MAX 16       /* nodes of one tree */
#define TS_PC_CHILDREN_MAX 2    /* children of one node: the 2x2 Stokes blocks */

/* What a node's preconditioner approximates the inverse of. */
typedef enum {
  TS_PC_PLACE_POISSON,          /* the Laplacian of <poisson> */
  TS_PC_PLACE_STOKES,           /* the Stokes system of <stokes> */
  TS_PC_PLACE_VELOCITY,         /* its velocity block A */
  TS_PC_PLACE_PRESSURE,         /* its Schur complement B A^{-1} B^T (the pressure block) */
  TS_PC_PLACE_HDIV,             /* the H(div) system Acal of <darcy> and <grad-div> */
  TS_PC_PLACE_HDIV_VELOCITY,    /* its velocity block M_beta (Jacobi) */
  TS_PC_PLACE_HDIV_SCHUR,       /* its approximate Schur complement S~ (an AMG V-cycle) */
  TS_PC_PLACES
} ts_pc_place;

typedef struct ts_pc_node {
  char kind[24];                /* a name of ts_pc_type_names */
  ts_pc_place place;
  int degree;                   /* chebyshev */
  int jacobi;                   /* mg: smoother="jacobi" (a V-cycle made from parts) */
  double weight;                /* mg: the Jacobi weight */
  int smoothing_steps;          /* mg: Jacobi steps before and after the correction */
  int iterations;               /* richardson */
  ts_pc_shape form;             /* block-triangular */
  ts_solver_type method;        /* krylov: the inner solver, its tolerance and limit */
  double rtol;
  int max_iterations;
  int n_children;
  int children[TS_PC_CHILDREN_MAX]; /* indices into the tree, in block order */
} ts_pc_node;

/* The rule of a kind in a problem file: where it may stand, its attributes besides type,
 * and its children (each at child_place, or at its own place for TS_PC_PLACES). */
typedef struct ts_pc_rule {
  const char *kind;
  unsigned places;              /* bit 1 << place for each place allowed */
  const char *attributes;       /* space-separated ("" for none) */
  int min_children, max_children;
  ts_pc_place child_place[TS_PC_CHILDREN_MAX];
} ts_pc_rule;

/* pc-tree.c: where child k of a node of rule at place stands (the block kinds' children are
 * the blocks of the system at place) */
ts_pc_place ts_pc_child_place(const ts_pc_rule *rule, ts_pc_place place, int k);
/* pc-tree.c: the rule of kind, NULL if a problem file cannot name it */
const ts_pc_rule *ts_pc_rule_find(const char *kind);
/* pc-tree.c: the kinds a problem file may name at place, ", "-separated into out */
void ts_pc_place_kinds(ts_pc_place place, char *out, size_t cap);
/* pc-tree.c: "the velocity block A", ... for messages */
const char *ts_pc_place_name(ts_pc_place place);
/* pc-tree.c: whether the problem's preconditioner tree has a node of kind */
int ts_pc_tree_has(ts_problem p, const char *kind);

/* The preconditioners of a tree, built on one level (pc-tree.c). */
typedef struct ts_pc_built {
  ts_pc pc[TS_PC_TREE_MAX];     /* pc[i] from node i (parents borrow their children) */
  ts_operator block[2][2];      /* the Stokes blocks the nodes act on, made when needed */
  ts_pc component_vcycle;       /* Taylor-Hood's mg at the velocity: the V-cycle of each component */
  ts_pc part[TS_PC_TREE_MAX];   /* node i's own inner preconditioner (Taylor-Hood's Jacobi mg at
                                   the velocity: the V-cycle of one component) */
  ts_operator pressure_mass;    /* Taylor-Hood: the consistent pressure mass, the operator at
                                   the pressure block */
} ts_pc_built;

/* <mesh map=...> */
typedef enum { TS_MAP_BOX, TS_MAP_KERSHAW, TS_MAP_SINE, TS_MAP_SHELL } ts_mesh_map;
/* an expression attribute's bytes with its NUL (the schema's maxLength is 1000) */
#define TS_EXPRESSION_TEXT_MAX 1001

struct ts_equation;
struct ts_problem_s {
  const struct ts_equation *equation; /* the reader's choice (equation.h) */
  char name[128];
  char source[1024];            /* the file it was read from */
  /* <mesh> */
  int dim;
  double lower[3], upper[3];
  int coarse[3];
  int levels;                   /* finest level */
  /* <convergence first-level=...>: solve on levels first_level..levels (= levels if absent) */
  int first_level;
  /* <element> */
  ts_fe_family family;
  int degree;
  /* <poisson solution=...> */
  char solution[32];
  /* <solver> */
  ts_solver_type solver;
  char preconditioner[24];      /* for the log: "none", or the root kind of pc_tree */
  ts_pc_node pc_tree[TS_PC_TREE_MAX]; /* <preconditioner> or preconditioner="..." */
  int pc_nodes;                 /* 0: no preconditioner */
  int pc_element;               /* 1: the tree is a <preconditioner> element's */
  double rtol;
  int max_iterations;
  int restart;
  ts_side side;                 /* GMRES: the preconditioner's side */
  ts_precision precision;
  /* <backend name=...> */
  char backend[64];
  /* <output vtu=... subdivisions=...> ("" = no output) */
  char vtu_path[1024];
  int vtu_subdivisions;

  int rhs_one;                  /* <poisson solution="none" rhs="one">: f = 1, u = 0 on the
                                   boundary, no exact solution (no errors reported) */
  int fmg;                      /* <solver type="fmg">: full multigrid */
  int use_mg;                   /* fmg, or <solver preconditioner="mg"> */
  ts_mg_options mg;             /* <multigrid ...> */
  int mg_agglomerate;           /* <multigrid agglomerate>: under mpirun the levels with fewer
                                   cells per process are gathered (ts_parallel_set_agglomeration) */
  /* <mesh map=...>: the image of the unit box (box: [lower, upper]) and its parameters:
   * kershaw epsilon, sine amplitude, shell inner outer angle */
  ts_mesh_map map;
  double map_parameters[3];
  /* <poisson f=... g=... kappa=... c=... u=... grad-u=... h=... neumann=...>: your own data
   * as expressions (poisson-own.c); own is 1 when f is given ("" for an attribute not
   * given); the Neumann faces (TS_FACE_* bits) with the flux h */
  int own;
  char f[TS_EXPRESSION_TEXT_MAX], g[TS_EXPRESSION_TEXT_MAX], kappa[TS_EXPRESSION_TEXT_MAX],
      c[TS_EXPRESSION_TEXT_MAX], u[TS_EXPRESSION_TEXT_MAX], grad_u[TS_EXPRESSION_TEXT_MAX],
      h[TS_EXPRESSION_TEXT_MAX];
  unsigned neumann_faces;
  /* <poisson kappa-file=... c-file=...>: the paths (from the problem file's folder; "" for
   * none) of the finest level's coefficients per cell, kappa's values per cell (1 or the
   * tensor's dim(dim+1)/2) */
  char kappa_file[1024], c_file[1024];
  int kappa_file_components;
  int coefficients_at_points;   /* <poisson sample="points">: kappa and c per quadrature point */
  /* <stokes solution=... penalty=...> (family RT): paper 000; (family taylor-hood):
   * papers 001/004, doc/taylor-hood.md; stokes, taylor_hood and own are set by the
   * equation's read hook, for the settings and the builders (not the reader) */
  int stokes;
  int taylor_hood;              /* <element family="taylor-hood">: Q_k x Q_{k-1} */
  double penalty;               /* eta of doc/stokes.md section 3 */
  int stokes_direct;            /* <multigrid local-solver="direct">: pseudo-inverse */
  /* <darcy> and <grad-div> (hdiv.c, hdiv-read.c; doc/hdiv.md): beta u + grad p = f, div u +
   * p / alpha = g (alpha infinite: Darcy), the fluxes u . n = u_D . n on flux_faces, p = p_D
   * on the others.  f (dim components), g, the flux field u (dim components, in p->u) and
   * p_D (pressure) are expressions ("": zero); solution names a built-in exact solution
   * ("smooth": Darcy, "sine": grad-div; "none": none).  alpha and beta are a constant times
   * a value per cell: "" (1), "file" (alpha_file, beta_file: the finest level's values),
   * "lognormal" (beta = 1/K, K of ts_cell_values_lognormal with contrast and seed),
   * "crooked-pipe" (the two materials of ts_cell_values_crooked_pipe). */
  int hdiv;
  double alpha, beta;
  char alpha_cells[16], beta_cells[16];
  char alpha_file[1024], beta_file[1024];
  double contrast;
  uint64_t seed;
  unsigned flux_faces;
  char pressure[TS_EXPRESSION_TEXT_MAX];
  ts_hdiv_amg schur_amg;        /* the S~ node of the preconditioner tree (auto: none) */
  int triangular;               /* the root is block-triangular (GMRES, FGMRES) */
};

/* problem.c: what a problem file may hold (doc/xml-reference.md): problem files are a few
 * hundred bytes, and the schema's elements have at most 11 attributes. */
#define TS_PROBLEM_MAX_BYTES ((size_t)1 << 20)
#define TS_PROBLEM_MAX_ATTRIBUTES 64
/* problem.c: the bytes of the problem file path (a regular file of at most
 * TS_PROBLEM_MAX_BYTES; *bytes the caller frees), TS_ERR_IO or TS_ERR_INPUT naming it */
int ts_problem_file_bytes(const char *path, char **bytes, size_t *size);
/* problem.c: ts_problem_read_xml from the bytes of a file, checked as a file's are; name is
 * the file's name in messages and the problem's source. */
int ts_problem_read_memory(const char *name, const char *bytes, size_t size, int n_overrides,
                           const char *const *overrides, ts_problem *problem);
/* problem.c: the mesh p describes (a box; for your own data the box as a mapped mesh,
 * ts_problem_box_map; or a built-in map), levels 0..p->levels */
int ts_problem_mesh_create(ts_problem p, ts_mesh *mesh);
/* problem.c: "; 2D box [0,1]x[0,1]" or the mapped mesh, for the log's header */
void ts_problem_print_domain(ts_problem p, FILE *log);
/* problem.c: x = lower + (upper - lower) xi, ctx the problem: the box as a mapped mesh */
int ts_problem_box_map(void *ctx, int dim, int64_t count, const double *xi, double *x);
/* schema-embedded.c: the bytes of tessera-problem.xsd (NUL-terminated; length without it) */
extern const char ts_problem_schema_xsd[];
extern const size_t ts_problem_schema_xsd_len;

/* study.c: the iteration monitor that prints one line per iteration to log; a second call for
 * the same iteration carries the true residual (ts_solver_record_true) and says so */
typedef struct ts_problem_monitor {
  FILE *log;
  int level;
  int last_iteration;
} ts_problem_monitor;
/* A solve that stopped short of rtol (TS_ERR_NOT_CONVERGED) keeps its results: the level's
 * iterations, residual, errors and times are reported for the iterate it reached. */
static inline int ts_results_kept(int ierr) { return !ierr || ierr == TS_ERR_NOT_CONVERGED; }
/* study.c: the footnote of the summary table when a level did not reach rtol (marked '*') */
void ts_problem_print_unconverged(const ts_report *report, FILE *log);
int ts_problem_print_iteration(void *ctx, int iteration, double relative_residual);

/* study.c: the multigrid hierarchy's setup phases (ts_mg_setup_seconds), added to
 * phase_seconds[TS_SETUP_PHASES] */
int ts_problem_add_mg_phases(ts_mg mg, double *phase_seconds);
/* study.c: zero r for a level, with its errors and rates NaN (not measured, or not existing) */
void ts_level_report_start(ts_level_report *r, int level);
/* study.c: a rate for the summary, "%4.2f", or "-" for NaN (the first level, no exact solution) */
const char *ts_rate_text(double rate, char *buf, size_t len);
/* study.c: "  wrote PATH" into log, PATH resolved to an absolute path */
void ts_problem_print_written(FILE *log, const char *path);

/* vtu.c and stokes-vtu.c: before the solve, whether the <output> of a level with
 * cells[0..dim-1] cells can be written (ts_vtu_check): its size bound within the limit and
 * a new file creatable in its directory.  exact: with the exact and error fields (Q_k). */
/* taylor-hood-vtu.c: what ts_vtu_check says of the Taylor-Hood file of a level */
int ts_taylor_hood_vtu_check_output(const char *path, int dim, const int64_t *cells,
                                    int subdivisions);
int ts_vtu_check_output(const char *path, int dim, const int64_t *cells, int subdivisions,
                        int exact);
/* vtu.c: the index (.pvtu) of a distributed Q_k output whose pieces are the .vtu files of
 * ts_write_vtu (exact: with the exact and error fields), named relative to path's folder */
int ts_write_pvtu(const char *path, int dim, int exact, int n_pieces, const char *const *pieces);
int ts_stokes_vtu_check_output(const char *path, int dim, const int64_t *cells,
                               int subdivisions);
/** The Stokes forms (stokes-vtu.c) for a distributed run: the index of the pieces, and a
 *  piece of the cells first + [0, cells) of the DoFs' box with the whole solution's pressure
 *  means (means[0] the discrete, means[1] the exact one) removed. */
int ts_stokes_write_pvtu(const char *path, int dim, int exact, int n_pieces,
                         const char *const *pieces);
int ts_stokes_write_vtu_block(const char *path, ts_dofs velocity, ts_dofs pressure,
                              const double *x, const ts_stokes_solution *s, int subdivisions,
                              const int64_t *first, const int64_t *cells, const double *means);

/* pc-tree.c: the preconditioners of p's tree on one level, bottom-up: A the level's
 * operator (Poisson: the Laplacian; Stokes: Acal), dofs its fields' DoF handlers (the first
 * is what boomeramg assembles the Laplacian on, the reader allows boomeramg for Poisson
 * only; Taylor-Hood's second, the pressure, what its mass is made of), mg its hierarchy (NULL
 * unless p uses multigrid).  On error nothing is left (built is zeroed).  built->pc[0] is the
 * root, NULL for an empty tree. */
int ts_pc_built_create(ts_problem p, ts_operator A, const ts_dofs *dofs, ts_mg mg,
                       ts_pc_built *built);
void ts_pc_built_destroy(ts_pc_built *built);

#endif
