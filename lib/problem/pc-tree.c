/* pc-tree.c -- the <preconditioner> trees of problem files (doc/xml-reference.md): the rules
 * the reader checks (which kind may stand where, its attributes and its children) and the
 * construction of a tree's ts_pc objects on one level, children before their parents. */
#include <string.h>
#include "equation.h"

/* What the nodes of one tree are made from. */
typedef struct pc_inputs {
  ts_operator A;                /* Poisson: the Laplacian; Stokes: Acal */
  ts_mg mg;                     /* the hierarchy, for mg (Taylor-Hood: the velocity Laplacian's) */
  ts_dofs pressure;             /* the pressure DoFs of a consistent pressure mass (NULL
                                   otherwise: ts_equation.consistent_pressure_mass) */
  int components;               /* the velocity components of a component velocity block (0
                                   otherwise: ts_equation.component_velocity) */
  int coarse_level;             /* the multigrid's coarsest mesh level */
} pc_inputs;

typedef int (*pc_create)(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b, ts_pc *pc);

/* The Stokes block (row, col) of in->A, made at its first use. */
static int stokes_block(const pc_inputs *in, ts_pc_built *b, int row, int col, ts_operator *op) {
  if (!b->block[row][col])
    TS_CALL(ts_operator_create_stokes_block(in->A, row, col, &b->block[row][col]));
  *op = b->block[row][col];
  return 0;
}

/* The operator a node at its place approximates the inverse of: at Taylor-Hood's pressure
 * block the consistent pressure mass, which approximates the Schur complement (papers
 * 001/004, eq. (26); at RT's the reader allows only pressure-mass, which reads Acal). */
static int place_operator(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                          ts_operator *op) {
  if (n->place == TS_PC_PLACE_VELOCITY) return stokes_block(in, b, 0, 0, op);
  if (n->place == TS_PC_PLACE_PRESSURE) {
    if (!b->pressure_mass)
      TS_CALL(ts_operator_create_mass(in->A->backend, in->pressure, TS_DOUBLE, &b->pressure_mass));
    *op = b->pressure_mass;
    return 0;
  }
  *op = in->A;
  return 0;
}

/* child k's preconditioner, NULL if the node has no such child */
static ts_pc child_pc(const ts_pc_node *n, const ts_pc_built *b, int k) {
  return k < n->n_children ? b->pc[n->children[k]] : NULL;
}

static int create_jacobi(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b, ts_pc *pc) {
  ts_operator op = NULL;
  TS_CALL(place_operator(n, in, b, &op));
  TS_CALL(ts_pc_create_jacobi(op, pc));
  return 0;
}

static int create_chebyshev(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b, ts_pc *pc) {
  ts_operator op = NULL;
  TS_CALL(place_operator(n, in, b, &op));
  TS_CALL(ts_pc_create_chebyshev(op, n->degree, pc));
  return 0;
}

/* The V-cycles made from parts with weighted Jacobi (smoother="jacobi"): at Taylor-Hood's
 * pressure block on the consistent pressure mass over the hierarchy's mesh levels, at its
 * velocity block one per component (block-diagonal), for Poisson on the Laplacian. */
static int create_jacobi_mg(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                            ts_pc *pc) {
  if (n->place == TS_PC_PLACE_PRESSURE)
    return ts_pc_create_mass_mg(in->A->backend, in->pressure->mesh, in->pressure->fe,
                                in->coarse_level, in->pressure->level, n->weight,
                                n->smoothing_steps, pc);
  if (!in->components) return ts_pc_create_mg_jacobi(in->mg, n->weight, n->smoothing_steps, pc);
  int i = 0; /* a free slot for the component's V-cycle (one per node at most) */
  while (b->part[i]) ++i;
  TS_CALL(ts_pc_create_mg_jacobi(in->mg, n->weight, n->smoothing_steps, &b->part[i]));
  const ts_pc blocks[3] = {b->part[i], b->part[i], b->part[i]};
  TS_CALL(ts_pc_create_block_diagonal(in->components, blocks, pc));
  return 0;
}

/* the hierarchy's V-cycle; at the velocity block of RT the V-cycle on A made from the Stokes
 * hierarchy's parts (Chebyshev degree PC_VELOCITY_MG_DEGREE, one step before and after), of
 * Taylor-Hood one V-cycle of the Q_k Laplacian's hierarchy per component (block-diagonal) */
#define PC_VELOCITY_MG_DEGREE 6
static int create_mg(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b, ts_pc *pc) {
  if (n->jacobi) {
    TS_CALL(create_jacobi_mg(n, in, b, pc));
  } else if (n->place == TS_PC_PLACE_VELOCITY && in->components) {
    if (!b->component_vcycle) TS_CALL(ts_pc_create_mg(in->mg, &b->component_vcycle));
    const ts_pc blocks[3] = {b->component_vcycle, b->component_vcycle, b->component_vcycle};
    TS_CALL(ts_pc_create_block_diagonal(in->components, blocks, pc));
  } else if (n->place == TS_PC_PLACE_VELOCITY) {
    TS_CALL(ts_pc_create_stokes_velocity_mg(in->mg, PC_VELOCITY_MG_DEGREE, 1, pc));
  } else {
    TS_CALL(ts_pc_create_mg(in->mg, pc));
  }
  return 0;
}

/* An algebraic preconditioner (make) on the sparse assembly of the operator at the node's
 * place; the matrix is dropped once the preconditioner holds its own copy */
static int create_on_assembly(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                              int (*make)(ts_backend, ts_matrix, ts_pc *), ts_pc *pc) {
  ts_operator op = NULL;
  ts_matrix matrix = NULL;
  TS_CALL(place_operator(n, in, b, &op));
  TS_CALL(ts_operator_assemble(op, &matrix));
  const int ierr = make(in->A->backend, matrix, pc);
  ts_matrix_destroy(&matrix);
  return ierr;
}

/* our smoothed aggregation with its defaults */
static int amg_with_defaults(ts_backend backend, ts_matrix A, ts_pc *pc) {
  return ts_pc_create_amg(backend, A, NULL, pc, NULL);
}

static int create_boomeramg(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                            ts_pc *pc) {
  return create_on_assembly(n, in, b, ts_pc_create_boomeramg, pc);
}

static int create_amg(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b, ts_pc *pc) {
  return create_on_assembly(n, in, b, amg_with_defaults, pc);
}

static int create_krylov(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b, ts_pc *pc) {
  ts_operator op = NULL;
  TS_CALL(place_operator(n, in, b, &op));
  TS_CALL(ts_pc_create_krylov(op, n->method, child_pc(n, b, 0), n->rtol, n->max_iterations, pc));
  return 0;
}

static int create_richardson(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                             ts_pc *pc) {
  ts_operator op = NULL;
  TS_CALL(place_operator(n, in, b, &op));
  TS_CALL(ts_pc_create_richardson(op, child_pc(n, b, 0), n->iterations, pc));
  return 0;
}

static int create_pressure_mass(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                                ts_pc *pc) {
  (void)n, (void)b;
  TS_CALL(ts_pc_create_pressure_mass(in->A, pc));
  return 0;
}

static int create_block_diagonal(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                                 ts_pc *pc) {
  (void)in;
  const ts_pc diagonal[TS_PC_CHILDREN_MAX] = {child_pc(n, b, 0), child_pc(n, b, 1)};
  TS_CALL(ts_pc_create_block_diagonal(n->n_children, diagonal, pc));
  return 0;
}

/* upper: C = B^T, block (0,1); lower: C = -B, block (1,0) (tessera.h) */
static int create_block_triangular(const ts_pc_node *n, const pc_inputs *in, ts_pc_built *b,
                                   ts_pc *pc) {
  const int upper = n->form == TS_PC_UPPER;
  ts_operator coupling = NULL;
  TS_CALL(stokes_block(in, b, upper ? 0 : 1, upper ? 1 : 0, &coupling));
  TS_CALL(ts_pc_create_block_triangular(n->form, child_pc(n, b, 0), coupling,
                                        child_pc(n, b, 1), pc));
  return 0;
}

#define ON(place) (1u << (place))
#define SPD_PLACES (ON(TS_PC_PLACE_POISSON) | ON(TS_PC_PLACE_VELOCITY))
#define ALL_PLACES (SPD_PLACES | ON(TS_PC_PLACE_STOKES) | ON(TS_PC_PLACE_PRESSURE))
#define STOKES_BLOCKS {TS_PC_PLACE_VELOCITY, TS_PC_PLACE_PRESSURE}

/* The kinds a problem file names (all of ts_pc_type_names but "operator", which user code
 * composes); a krylov node's child stands at its own place (TS_PC_PLACES).  The H(div)
 * places (<darcy>, <grad-div>) take block-diagonal or block-triangular on the system, jacobi
 * on M_beta and boomeramg or amg on S~: the equation builds them from its ts_hdiv_system
 * (hdiv.c), not the create functions here. */
static const struct {
  ts_pc_rule rule;
  pc_create create;
} kinds[] = {
    {{"jacobi", SPD_PLACES | ON(TS_PC_PLACE_HDIV_VELOCITY), "", 0, 0, {0}}, create_jacobi},
    {{"chebyshev", SPD_PLACES, "degree", 0, 0, {0}}, create_chebyshev},
    {{"mg", ALL_PLACES, "smoother weight smoothing-steps", 0, 0, {0}}, create_mg},
    {{"richardson", SPD_PLACES | ON(TS_PC_PLACE_PRESSURE), "iterations", 1, 1, {TS_PC_PLACES}},
     create_richardson},
    {{"boomeramg", ON(TS_PC_PLACE_POISSON) | ON(TS_PC_PLACE_VELOCITY) | ON(TS_PC_PLACE_HDIV_SCHUR), "", 0, 0, {0}},
     create_boomeramg},
    {{"amg", ON(TS_PC_PLACE_POISSON) | ON(TS_PC_PLACE_VELOCITY) | ON(TS_PC_PLACE_HDIV_SCHUR), "",
      0, 0, {0}},
     create_amg},
    {{"krylov", SPD_PLACES, "solver tolerance max-iterations", 0, 1, {TS_PC_PLACES}},
     create_krylov},
    {{"pressure-mass", ON(TS_PC_PLACE_PRESSURE), "", 0, 0, {0}}, create_pressure_mass},
    {{"block-diagonal", ON(TS_PC_PLACE_STOKES) | ON(TS_PC_PLACE_HDIV), "", 2, 2, STOKES_BLOCKS}, create_block_diagonal},
    {{"block-triangular", ON(TS_PC_PLACE_STOKES) | ON(TS_PC_PLACE_HDIV), "form", 2, 2, STOKES_BLOCKS},
     create_block_triangular},
};
enum { n_kinds = sizeof kinds / sizeof kinds[0] };

static int kind_index(const char *kind) {
  for (int i = 0; kind && i < n_kinds; ++i)
    if (!strcmp(kind, kinds[i].rule.kind)) return i;
  return -1;
}

ts_pc_place ts_pc_child_place(const ts_pc_rule *rule, ts_pc_place place, int k) {
  static const ts_pc_place hdiv_blocks[2] = {TS_PC_PLACE_HDIV_VELOCITY, TS_PC_PLACE_HDIV_SCHUR};
  if (place == TS_PC_PLACE_HDIV && k < 2) return hdiv_blocks[k];
  const ts_pc_place child = rule->child_place[k];
  return child == TS_PC_PLACES ? place : child;
}

const ts_pc_rule *ts_pc_rule_find(const char *kind) {
  const int i = kind_index(kind);
  return i < 0 ? NULL : &kinds[i].rule;
}

void ts_pc_place_kinds(ts_pc_place place, char *out, size_t cap) {
  size_t used = 0;
  if (cap) out[0] = 0;
  for (int i = 0; i < n_kinds; ++i) {
    if (!(kinds[i].rule.places & ON(place)) || used >= cap) continue;
    const int n = snprintf(out + used, cap - used, "%s%s", used ? ", " : "", kinds[i].rule.kind);
    used += n > 0 ? (size_t)n : 0;
  }
}

const char *ts_pc_place_name(ts_pc_place place) {
  static const char *const names[TS_PC_PLACES] = {
      "the Laplacian of <poisson>", "the Stokes system of <stokes>",
      "the velocity block A of <stokes>", "the pressure block (Schur complement) of <stokes>",
      "the H(div) system of <darcy> or <grad-div>",
      "the velocity block M_beta of <darcy> or <grad-div>",
      "the approximate Schur complement S~ of <darcy> or <grad-div>"};
  return place < TS_PC_PLACES ? names[place] : "(no place)";
}

int ts_pc_tree_has(ts_problem p, const char *kind) {
  for (int i = 0; i < p->pc_nodes; ++i)
    if (strcmp(p->pc_tree[i].kind, kind) == 0) return 1;
  return 0;
}

/* node i after its children */
static int create_node(ts_problem p, int i, const pc_inputs *in, ts_pc_built *b) {
  const ts_pc_node *n = &p->pc_tree[i];
  for (int k = 0; k < n->n_children; ++k) TS_CALL(create_node(p, n->children[k], in, b));
  const int kind = kind_index(n->kind);
  TS_CHECK_ARG(kind >= 0, "preconditioner tree node %d: kind '%s' unknown", i, n->kind);
  TS_CALL(kinds[kind].create(n, in, b, &b->pc[i]));
  return 0;
}

void ts_pc_built_destroy(ts_pc_built *built) {
  if (!built) return;
  /* parents (lower indices: the reader numbers a node before its children) first */
  for (int i = 0; i < TS_PC_TREE_MAX; ++i) ts_pc_destroy(&built->pc[i]);
  for (int i = 0; i < TS_PC_TREE_MAX; ++i) ts_pc_destroy(&built->part[i]);
  ts_pc_destroy(&built->component_vcycle);
  ts_operator_destroy(&built->pressure_mass);
  for (int row = 0; row < 2; ++row)
    for (int col = 0; col < 2; ++col) ts_operator_destroy(&built->block[row][col]);
}

int ts_pc_built_create(ts_problem p, ts_operator A, const ts_dofs *dofs, ts_mg mg,
                       ts_pc_built *built) {
  TS_CHECK_NOT_NULL(built);
  memset(built, 0, sizeof *built);
  TS_CHECK_NOT_NULL(p);
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(dofs);
  if (!p->pc_nodes) return 0;
  const ts_equation *eq = p->equation;
  const pc_inputs in = {A, mg, eq->consistent_pressure_mass ? dofs[1] : NULL,
                        eq->component_velocity ? p->dim : 0, p->mg.coarse_level};
  const int ierr = create_node(p, 0, &in, built);
  if (ierr) {
    ts_pc_built_destroy(built);
    return ts_error_trace(ierr, __FILE__, __LINE__, "the problem's preconditioner");
  }
  return 0;
}
