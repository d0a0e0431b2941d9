/* equation.h -- the system builder (issue 12): one table per equation that makes a level's
 * objects from a problem description (DoF handlers, operator, multigrid hierarchy, right
 * side), completes and measures the solution and writes its output.  study.c runs every
 * equation's convergence study through it (preconditioner tree, solver, levels, rates,
 * report), and `tessera check` and `bench --mg` get their objects from it (ts_system).
 * A new equation is one file with its table and a row in the registry (equation.c). */
#ifndef TESSERA_EQUATION_H
#define TESSERA_EQUATION_H

#include "reader.h"

#define TS_FIELDS_MAX 2         /* the fields of one system: Stokes velocity and pressure */

struct ts_equation;

/* What every level of a study shares: the problem, the backend, the mesh with all levels,
 * the elements of the fields and the exact solution. */
typedef struct ts_study {
  ts_problem p;
  const struct ts_equation *eq;
  ts_backend backend;
  ts_mesh mesh;
  ts_fe fe[TS_FIELDS_MAX];      /* per field; NULL past the equation's fields */
  const void *exact;            /* the equation's manufactured solution (or right side) */
  void *data;                   /* the equation's own (study_free releases it) */
} ts_study;

/* One level's objects; ts_level_free releases whatever was created. */
typedef struct ts_level_objects {
  int level;
  ts_mg mg;                     /* the hierarchy: owns dofs and A when it exists */
  ts_dofs dofs[TS_FIELDS_MAX];  /* per field, the system vector [field 0; field 1] */
  ts_operator A;                /* the system operator */
  ts_operator form;             /* what the solver is given instead of A (owned), or NULL */
  ts_vec b, x;                  /* the right side of the solver's system, the solution */
  ts_vec lift;                  /* added to x after the solve (boundary values), or NULL */
  ts_pc_built pcs;              /* the problem's preconditioner tree */
  ts_solver solver;             /* NULL for full multigrid */
  double *host;                 /* the solution on the host, once solved */
  ts_hdiv_system hdiv;          /* <darcy>, <grad-div>: the system (owns A; hdiv.c) */
} ts_level_objects;

/* The public ts_system: a study of one level. */
struct ts_system_s {
  ts_study study;
  ts_level_objects objects;
};

typedef struct ts_equation {
  /* the equation's own name (ts_problem_equation): "poisson", "poisson-own", "stokes",
   * "taylor-hood" */
  const char *name;
  int fields;

  /* ---- the problem file (problem.c reads it; reader.h lends the hooks its values) */
  const char *element;          /* its element: "poisson", "stokes" */
  const char *family;           /* <element family=...>: "Q", "RT", "taylor-hood" */
  ts_fe_family fe_family;       /* the element of the (first) field */
  int lowest_degree, highest_degree; /* <element degree=...> allowed */
  /* whether the element e (named element) is this equation's rather than a later one's of
   * the same element and family in the registry; NULL: it is */
  int (*selects)(ts_xml_element e);
  /* after <mesh> and <element>: the element e's attributes into p (and p's stokes,
   * taylor_hood, own), and what the schema cannot check of them */
  int (*read)(ts_reader *r, struct ts_problem_s *p, ts_xml_element e);
  /* <solver>'s defaults: its type and its preconditioner="..." */
  ts_solver_type default_solver;
  const char *default_preconditioner;
  /* after the preconditioner tree is read: the solvers that fit; NULL: every one */
  int (*check_solver)(ts_reader *r, struct ts_problem_s *p);
  /* after <multigrid>, the reader's last: what the whole problem decides; NULL: nothing */
  int (*check_problem)(ts_reader *r, struct ts_problem_s *p);
  ts_pc_place pc_place;         /* what the solver's preconditioner approximates the inverse of */
  /* the places (bits 1 << place) where mg smoother="jacobi" (a V-cycle made from parts) and
   * richardson fit */
  unsigned jacobi_places;
  /* 1: "mg" of the whole system is the coupled multigrid, whose smoother relaxes the
   * saddle-point system (<multigrid smoother="vanka|braess-sarazin|schur-uzawa">) */
  int saddle_point_mg;
  /* 1: the hierarchy is the Stokes vertex patches' (<multigrid local-solver
   * local-tolerance>; no degree levels, no coarse-level CG: coarse-degree, coarse-tolerance) */
  int stokes_patch_mg;
  /* 1: the velocity block is one scalar operator per component (Q_k in each), so mg at the
   * velocity place is a V-cycle per component (Taylor-Hood) */
  int component_velocity;
  /* 1: the pressure place approximates the Schur complement by the consistent mass of field
   * 1 (Taylor-Hood, papers 001/004 eq. (26)), which jacobi, mg and richardson there read */
  int consistent_pressure_mass;
  /* <output subdivisions> default: the degree plus this (RT_k: k+1 along a component) */
  int output_degree_extra;
  /* 1: the operator is on mapped cells, the box too (as its affine image) */
  int mapped;
  /* the finest level's DoFs or a bound of them (ts_reader_grid_dofs), 0 past 2^40 */
  uint64_t (*dofs_bound)(const struct ts_problem_s *p);
  /* the finest level's device bytes besides its vectors (the memory estimate); NULL: none */
  uint64_t (*extra_bytes)(const struct ts_problem_s *p);
  /* ts_problem_discretization: the manufactured solution into settings (solution or
   * stokes_solution), and a new element of the (first) field */
  int (*solution_settings)(ts_problem p, ts_problem_settings *settings);
  int (*fe_create)(int dim, int degree, ts_fe *fe);

  /* ---- the system builder */
  /* the summary's two error columns, with the spaces that align them to error_columns */
  const char *error_heading;
  /* DoFs of a level with cells[d] cells in direction d (a formula: no mesh needed) */
  int64_t (*dofs)(int dim, int degree, const int64_t *cells);
  /* the elements of the fields (s->fe) and the exact solution (s->exact) */
  int (*study_create)(ts_study *s);
  /* after the study: what study_create made besides fs and exact (s->data); may be NULL */
  void (*study_free)(ts_study *s);
  /* before any solve: whether the <output> of a level with cells[] cells can be written;
   * NULL (and write_output NULL) for an equation that writes none */
  int (*check_output)(const ts_study *s, const int64_t *cells);
  /* the header's pieces: "  Poisson, manufactured solution 'x'", ", element Q2\n", and
   * the solver and multigrid lines */
  void (*print_problem)(ts_problem p, FILE *log);
  void (*print_element)(ts_problem p, FILE *log);
  void (*print_solver)(ts_problem p, FILE *log);
  /* the problem's multigrid options, completed with what the equation adds */
  void (*mg_options)(ts_problem p, ts_mg_options *options);
  /* the system operator on the fields' DoF handlers, in precision */
  int (*operator_create)(const ts_study *s, ts_backend backend, const ts_dofs *dofs,
                         ts_precision precision, ts_operator *A);
  /* the hierarchy on levels options->coarse_level..level */
  int (*mg_create)(const ts_study *s, ts_backend backend, int level,
                   const ts_mg_options *options, ts_mg *mg);
  /* o->level's DoF handlers, operator (and hierarchy), right side b, vectors x (and lift),
   * and the form the solver is given; the seconds of each phase into phase_seconds */
  int (*setup)(const ts_study *s, ts_level_objects *o, double *phase_seconds);
  /* the preconditioner tree into o->pcs.pc[0] from the equation's own objects (H(div): the
   * parts of its ts_hdiv_system); NULL: pc-tree.c builds it (ts_pc_built_create) */
  int (*pc_create)(const ts_study *s, ts_level_objects *o);
  /* after the solve: o->x into the solution reported (boundary values, pressure mean) */
  int (*complete)(const ts_study *s, ts_level_objects *o);
  /* the errors of the solution in o->host against s->exact into r */
  int (*errors)(const ts_study *s, const ts_level_objects *o, ts_level_report *r);
  /* the finest level's <output vtu> of o->host */
  int (*write_output)(const ts_study *s, const ts_level_objects *o);
  /* the two error columns of r's summary row (see error_heading) */
  void (*print_errors)(const ts_study *s, const ts_level_report *r, char *buf, size_t len);
} ts_equation;

/* equation.c: the registry, in the order the reader asks the equations */
extern const ts_equation *const ts_equations[];
extern const size_t ts_equations_count;
/* the problem's equation (the reader set it) */
const ts_equation *ts_equation_of(ts_problem p);

extern const ts_equation ts_equation_poisson;  /* poisson.c: Q_k, doc/user-guide.md */
extern const ts_equation ts_equation_stokes;   /* stokes.c: RT_k x DGQ_k, doc/stokes.md */
/* stokes-taylor-hood.c: Q_k x Q_{k-1}, doc/taylor-hood.md */
extern const ts_equation ts_equation_taylor_hood;
/* poisson-own.c: your own data as expressions, on mapped cells (doc/user-guide.md) */
extern const ts_equation ts_equation_poisson_own;

/* poisson.c, shared with poisson-own.c: Q_k's DoFs, the lift added back, the space and
 * operator, the error columns (exact: 0 shows "-") */
int64_t ts_poisson_dofs(int dim, int degree, const int64_t *cells);
int ts_poisson_complete(const ts_study *s, ts_level_objects *o);
/* the level's DoFs and operator by the equation's operator_create, or the finest level of
 * its mg_create when the problem uses multigrid (phases timed into t) */
int ts_poisson_space_operator(const ts_study *s, ts_level_objects *o, double *t);
void ts_poisson_error_columns(int exact, const ts_level_report *r, char *buf, size_t len);
/* poisson-own.c, for the distributed solve (lib/parallel/problem.c): your own data's
 * functions (NULL where not given) with their context, and a level's coefficients as its
 * operator gets them (kappa and c per cell of the whole level, owned by the caller, or per
 * point) */
typedef struct ts_poisson_own_functions {
  ts_point_fn f, g, u, grad_u;
  void *ctx;
} ts_poisson_own_functions;
void ts_poisson_own_functions_of(const ts_study *s, ts_poisson_own_functions *fns);
int ts_poisson_own_coefficients(const ts_study *s, int level, double **kappa, double **c,
                                ts_coefficients *co);
/* poisson.c: Q_k's DoFs of the finest level (dofs_bound) */
uint64_t ts_poisson_dofs_bound(const struct ts_problem_s *p);
/* poisson-read.c: <poisson> for both Poisson equations (read); your own data's selects
 * (f given) and check_problem (what your own problems cannot use yet) */
int ts_poisson_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element poisson);
int ts_poisson_own_selects(ts_xml_element poisson);
int ts_poisson_own_check(ts_reader *r, struct ts_problem_s *p);

/* stokes-read.c: <stokes> read for RT and for Taylor-Hood, and the solvers both allow */
int ts_stokes_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element stokes);
int ts_taylor_hood_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element stokes);
int ts_stokes_check_solver(ts_reader *r, struct ts_problem_s *p);
/* stokes.c, shared with stokes-taylor-hood.c: the manufactured solution into settings */
int ts_stokes_solution_settings(ts_problem p, ts_problem_settings *settings);
/* stokes.c, shared with hdiv.c: the DoFs of RT_k x DGQ_k and their bound on the finest level */
int64_t ts_stokes_dofs(int dim, int degree, const int64_t *cells);
uint64_t ts_stokes_dofs_bound(const struct ts_problem_s *p);

/* hdiv.c: paper 003's Darcy and grad-div problems (doc/hdiv.md) */
extern const ts_equation ts_equation_darcy;
extern const ts_equation ts_equation_grad_div;
/* hdiv-read.c: <darcy> and <grad-div> (read), the solvers and preconditioners they take */
int ts_hdiv_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element element);
int ts_hdiv_check_solver(ts_reader *r, struct ts_problem_s *p);

/* poisson-read.c, shared with hdiv-read.c: the attribute of the equation's element parsed as
 * an expression of p->dim variables with components values into out (TS_EXPRESSION_TEXT_MAX
 * bytes; "" if absent), its error naming the file, line and attribute */
int ts_read_expression(ts_reader *r, const struct ts_problem_s *p, ts_xml_element element,
                       const char *attr, int components, char *out);
/* the element's attribute NAME-file="PATH": PATH (relative: from the problem file's folder)
 * into out, and the components per cell its size gives for the finest level's cells (1, or
 * with tensor also dim(dim+1)/2); "" without the attribute */
int ts_read_cell_file(ts_reader *r, const struct ts_problem_s *p, ts_xml_element element,
                      const char *attr, int tensor, char *out, size_t cap, int *components);
/* poisson-own.c, shared with hdiv.c: the finest level's values per cell from path
 * (components each), averaged down to level into a new array *out */
int ts_study_file_coefficients(const ts_study *s, const char *path, int components, int level,
                               double **out);

/* study.c: the study's shared objects for p (mesh, elements, exact solution); on error
 * nothing is left */
int ts_study_create(ts_problem p, ts_backend backend, ts_study *s);
void ts_study_free(ts_study *s);
/* study.c: the equation's setup of level, then the preconditioner tree and the solver */
int ts_level_setup(const ts_study *s, int level, ts_level_objects *o, double *phase_seconds);
void ts_level_free(ts_level_objects *o);
/* study.c, shared with the distributed solve (lib/parallel/problem.c): the problem's solver
 * on A with pc; the log's header; the rates of a level's errors against the previous
 * level's (log2 of the ratios, NaN for an error not measured); the summary table, one row
 * per level (a level that stopped short of rtol marked) */
int ts_problem_solver_create(ts_problem p, ts_operator A, ts_pc pc, ts_solver *solver);
void ts_study_print_header(const ts_study *s, FILE *log);
void ts_level_rates(const ts_level_report *prev, ts_level_report *r);
void ts_study_print_summary(const ts_study *s, const ts_report *report, FILE *log);

#endif
