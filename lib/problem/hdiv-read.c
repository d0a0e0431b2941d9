/* hdiv-read.c -- the <darcy> and <grad-div> elements of a problem file (paper 003,
 * doc/hdiv.md): the built-in exact solution or your own data (f, g, the flux field u, the
 * boundary pressure p as expressions), alpha and beta (constants times values per cell: a
 * file, the log-normal field, the crooked pipe), the flux faces; and the solvers and
 * preconditioner trees that fit the saddle-point system (MINRES with the block-diagonal
 * preconditioner, GMRES or FGMRES with the block-triangular one, the AMG on S~). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "equation.h"

/* <NAME-cells="file"> with its NAME-file, or a generator; "" for the constant alone */
static int read_cells(ts_reader *r, struct ts_problem_s *p, ts_xml_element e, const char *name,
                      char *cells, size_t cap, char *file, size_t file_cap) {
  char attr[32], file_attr[32], loc[1200];
  int components = 0;
  snprintf(attr, sizeof attr, "%s-cells", name);
  snprintf(file_attr, sizeof file_attr, "%s-file", name);
  cells[0] = 0;
  file[0] = 0;
  TS_CALL(ts_reader_copy(r, e, attr, cells, cap));
  const int from_file = !strcmp(cells, "file");
  if (from_file == ts_reader_has(e, file_attr))
    return from_file ? ts_read_cell_file(r, p, e, file_attr, 0, file, file_cap, &components) : 0;
  ts_reader_where(r, e, from_file ? attr : file_attr, loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=...>: %s%s", loc, p->equation->element,
                  from_file ? attr : file_attr,
                  from_file ? "the values per cell come from the file named by "
                            : "the file is read only with ",
                  from_file ? file_attr : attr);
}

/* The flux faces: names (left right bottom top front back all), "" for none. */
static int read_flux_faces(ts_reader *r, struct ts_problem_s *p, ts_xml_element e) {
  char names[256] = "", loc[1200];
  TS_CALL(ts_reader_copy(r, e, "flux-faces", names, sizeof names));
  p->flux_faces = 0;
  if (!ts_faces_from_names(names, p->dim, &p->flux_faces)) return 0;
  char why[1024];
  snprintf(why, sizeof why, "%s", ts_error_message());
  ts_reader_where(r, e, "flux-faces", loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <%s flux-faces=\"%s\">: %s", loc, p->equation->element,
                  names, why);
}

/* A built-in solution takes no data of yours and constant coefficients. */
static int check_builtin(ts_reader *r, const struct ts_problem_s *p, ts_xml_element e) {
  static const char *const data[] = {"f", "g", "u", "p", "alpha-cells", "beta-cells"};
  char loc[1200];
  if (!strcmp(p->solution, "none")) return 0;
  for (size_t i = 0; i < sizeof data / sizeof *data; ++i) {
    if (!ts_reader_has(e, data[i])) continue;
    ts_reader_where(r, e, data[i], loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <%s solution=\"%s\" %s=...>: the built-in solution makes "
                    "its own data and takes constant alpha and beta; allowed: solution=\"none\" "
                    "with your own data, or leave %s out", loc, p->equation->element,
                    p->solution, data[i], data[i]);
  }
  return 0;
}

/* u is the flux data of the flux faces, p the pressure of the others. */
static int check_boundary_data(ts_reader *r, const struct ts_problem_s *p, ts_xml_element e) {
  char loc[1200];
  const int all = p->flux_faces == TS_FACES_ALL(p->dim);
  if (p->u[0] && !p->flux_faces) {
    ts_reader_where(r, e, "u", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <%s u=...> without flux faces: u gives the normal flux "
                    "u . n on the faces named by flux-faces=\"...\" (left, right, bottom, "
                    "top%s, all)", loc, p->equation->element, p->dim == 3 ? ", front, back" : "");
  }
  if (p->pressure[0] && all) {
    ts_reader_where(r, e, "p", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <%s p=... flux-faces=\"all\">: p is the pressure on the "
                    "faces that are not flux faces, and there are none", loc,
                    p->equation->element);
  }
  return 0;
}

/* The data and the coefficients of <darcy> (alpha infinite) or <grad-div>. */
static int read_data(ts_reader *r, struct ts_problem_s *p, ts_xml_element e, int darcy) {
  snprintf(p->solution, sizeof p->solution, "none");
  TS_CALL(ts_reader_copy(r, e, "solution", p->solution, sizeof p->solution));
  TS_CALL(ts_read_expression(r, p, e, "f", p->dim, p->f));
  TS_CALL(ts_read_expression(r, p, e, "g", 1, p->g));
  TS_CALL(ts_read_expression(r, p, e, "u", p->dim, p->u));
  TS_CALL(ts_read_expression(r, p, e, "p", 1, p->pressure));
  p->beta = ts_reader_double(e, "beta", 1.0);
  p->alpha = darcy ? INFINITY : ts_reader_double(e, "alpha", 1.0);
  TS_CALL(read_cells(r, p, e, "beta", p->beta_cells, sizeof p->beta_cells, p->beta_file,
                     sizeof p->beta_file));
  if (!darcy)
    TS_CALL(read_cells(r, p, e, "alpha", p->alpha_cells, sizeof p->alpha_cells, p->alpha_file,
                       sizeof p->alpha_file));
  p->contrast = ts_reader_double(e, "contrast", 1e7);
  p->seed = (uint64_t)ts_reader_double(e, "seed", 2026);
  char loc[1200];
  static const char *const generator[] = {"contrast", "seed"};
  for (int i = 0; i < 2; ++i)
    if (ts_reader_has(e, generator[i]) && strcmp(p->beta_cells, "lognormal")) {
      ts_reader_where(r, e, generator[i], loc, sizeof loc);
      return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=...>: a parameter of the log-normal field; "
                      "allowed only with beta-cells=\"lognormal\"", loc, p->equation->element,
                      generator[i]);
    }
  TS_CALL(read_flux_faces(r, p, e));
  TS_CALL(check_builtin(r, p, e));
  return check_boundary_data(r, p, e);
}

/* On a mapped mesh (<mesh map="kershaw|sine|shell">: the Piola-mapped spaces, doc/hdiv.md)
 * what is tied to the box's coordinates is refused: the crooked pipe's materials (its
 * geometry is in [0,7] x [0,2]) and the grad-div solution "sine" on the shell (it vanishes on
 * the unit box's boundary, which the Kershaw and sine maps keep). */
static int check_mapped(ts_reader *r, const struct ts_problem_s *p, ts_xml_element e) {
  char loc[1200];
  static const char *const cells[] = {"beta-cells", "alpha-cells"};
  const char *kinds[] = {p->beta_cells, p->alpha_cells};
  if (p->map == TS_MAP_BOX) return 0;
  for (int i = 0; i < 2; ++i) {
    if (strcmp(kinds[i], "crooked-pipe")) continue;
    ts_reader_where(r, e, cells[i], loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=\"crooked-pipe\"> on <mesh map=\"%s\">: the pipe "
                    "is placed in the box's coordinates; allowed on map=\"box\" only",
                    loc, p->equation->element, cells[i], ts_reader_map_name(p->map));
  }
  if (p->map != TS_MAP_SHELL || strcmp(p->solution, "sine")) return 0;
  ts_reader_where(r, e, "solution", loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <%s solution=\"sine\"> on <mesh map=\"shell\">: the "
                  "solution vanishes on the unit box's boundary, not on the shell's; allowed "
                  "map=\"box\", \"kershaw\" or \"sine\" (or solution=\"smooth\" or \"none\")",
                  loc, p->equation->element);
}

int ts_hdiv_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element e) {
  p->hdiv = 1;
  TS_CALL(read_data(r, p, e, !strcmp(p->equation->name, "darcy")));
  return check_mapped(r, p, e);
}

/* ---------------------------------------------------------------- the solver */

/* <solver type>: MINRES, GMRES or FGMRES, in double */
static int check_solver_type(ts_reader *r, const struct ts_problem_s *p) {
  char loc[1200];
  ts_xml_element solver = ts_reader_element(r, "solver");
  const int fits = p->solver == TS_SOLVER_MINRES || p->solver == TS_SOLVER_GMRES ||
                   p->solver == TS_SOLVER_FGMRES;
  if (!fits || p->fmg) {
    ts_reader_where(r, solver, "type", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver type=\"%s\"> with <%s>: the saddle-point system "
                    "[M_beta D^T; D -W_alpha^-1] is indefinite; allowed type=\"minres\" "
                    "(block-diagonal preconditioner), \"gmres\" or \"fgmres\"", loc,
                    p->fmg ? "fmg" : ts_solver_type_name(p->solver), p->equation->element);
  }
  if (p->precision == TS_DOUBLE) return 0;
  ts_reader_where(r, solver, "precision", loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <solver precision=\"single\"> with <%s>: the assembled "
                  "H(div) system is applied in double; allowed: precision=\"double\"", loc,
                  p->equation->element);
}

/* The root: block-diagonal (MINRES; the default) or block-triangular form="upper" (the
 * default of GMRES and FGMRES); preconditioner="..." names neither. */
static int check_root(ts_reader *r, struct ts_problem_s *p) {
  char loc[1200];
  ts_xml_element solver = ts_reader_element(r, "solver");
  if (ts_reader_has(solver, "preconditioner")) {
    ts_reader_where(r, solver, "preconditioner", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver preconditioner=\"%s\"> with <%s>: allowed: leave "
                    "it out (the block preconditioner of paper 003) or give a <preconditioner "
                    "type=\"block-diagonal\"> or \"block-triangular\" element", loc,
                    p->preconditioner, p->equation->element);
  }
  const int gmres = p->solver != TS_SOLVER_MINRES;
  if (!p->pc_element && gmres) { /* the default tree of GMRES */
    snprintf(p->pc_tree[0].kind, sizeof p->pc_tree[0].kind, "block-triangular");
    snprintf(p->preconditioner, sizeof p->preconditioner, "block-triangular");
    p->pc_tree[0].form = TS_PC_UPPER;
  }
  p->triangular = !strcmp(p->pc_tree[0].kind, "block-triangular");
  if (p->triangular && !gmres) {
    ts_reader_where(r, solver, "type", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver type=\"minres\"> with <preconditioner "
                    "type=\"block-triangular\">: MINRES needs a symmetric positive definite "
                    "preconditioner; allowed: block-diagonal, or type=\"gmres\" or \"fgmres\"",
                    loc);
  }
  if (p->triangular && p->pc_tree[0].form != TS_PC_UPPER) {
    ts_reader_where(r, solver, NULL, loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <preconditioner type=\"block-triangular\" form=\"lower\"> "
                    "with <%s>: the H(div) system builds the upper form (paper 003, Remark 2); "
                    "allowed form=\"upper\"", loc, p->equation->element);
  }
  return 0;
}

/* The S~ child names the AMG (none: ts_hdiv_system_create's choice); our AMG needs a regular
 * S~. */
static int check_schur_amg(ts_reader *r, struct ts_problem_s *p) {
  char loc[1200];
  const ts_pc_node *root = &p->pc_tree[0];
  p->schur_amg = TS_HDIV_AMG_AUTO;
  if (root->n_children == 2)
    p->schur_amg = !strcmp(p->pc_tree[root->children[1]].kind, "amg") ? TS_HDIV_AMG_OURS
                                                                       : TS_HDIV_AMG_BOOMERAMG;
  const int singular = isinf(p->alpha) && p->flux_faces == TS_FACES_ALL(p->dim);
  if (!(singular && p->schur_amg == TS_HDIV_AMG_OURS)) return 0;
  ts_reader_where(r, ts_reader_element(r, "solver"), NULL, loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <preconditioner type=\"amg\"> on S~ with <darcy "
                  "flux-faces=\"all\">: S~ is singular (the pressure is defined up to a "
                  "constant) and our AMG's coarsest LU needs a regular matrix; allowed: "
                  "boomeramg", loc);
}

int ts_hdiv_check_solver(ts_reader *r, struct ts_problem_s *p) {
  TS_CALL(check_solver_type(r, p));
  TS_CALL(check_root(r, p));
  return check_schur_amg(r, p);
}
