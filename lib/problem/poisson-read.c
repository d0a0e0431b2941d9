/* poisson-read.c -- the <poisson> element of a problem file, read for both Poisson
 * equations (poisson.c: a built-in solution on the box; poisson-own.c: your own data):
 * a built-in solution with rhs, or your own data <poisson f g kappa c u grad-u h neumann
 * kappa-file c-file sample>, whose expressions are checked here (parsed with the problem's
 * dim) so that an error names the file, line, attribute and column (doc/user-guide.md,
 * "Your own problem in a problem file"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "equation.h"

int ts_read_expression(ts_reader *r, const struct ts_problem_s *p, ts_xml_element element,
                       const char *attr, int components, char *out) {
  const int dim = p->dim;
  TS_CALL(ts_reader_copy(r, element, attr, out, TS_EXPRESSION_TEXT_MAX));
  if (!out[0]) return 0;
  ts_expression e = NULL;
  const int ierr = ts_expression_create(out, dim, components, &e);
  ts_expression_destroy(&e);
  if (!ierr) return 0;
  char loc[1200], why[1024]; /* copied: TS_ERROR writes the message it would read */
  snprintf(why, sizeof why, "%s", ts_error_message());
  ts_reader_where(r, element, attr, loc, sizeof loc);
  const char *colon = strstr(why, ": "); /* past "ts_expression_create" */
  return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=...>: %s", loc, p->equation->element, attr,
                  colon ? colon + 2 : why);
}

/* <poisson neumann="...">: the Neumann faces (default none), and h only with some */
static int fill_neumann(ts_reader *r, struct ts_problem_s *p, ts_xml_element poisson) {
  char loc[1200], names[256] = "";
  TS_CALL(ts_reader_copy(r, poisson, "neumann", names, sizeof names));
  p->neumann_faces = 0;
  if (ts_faces_from_names(names, p->dim, &p->neumann_faces)) {
    char why[1024];
    snprintf(why, sizeof why, "%s", ts_error_message());
    ts_reader_where(r, poisson, "neumann", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson neumann=\"%s\">: %s", loc, names, why);
  }
  ts_reader_where(r, poisson, NULL, loc, sizeof loc);
  if (p->h[0] && !p->neumann_faces)
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson h=...> without Neumann faces: h is the flux "
                    "kappa grad u . n on the faces named by neumann=\"...\" (left, right, "
                    "bottom, top%s, all)", loc, p->dim == 3 ? ", front, back" : "");
  if (p->g[0] && p->neumann_faces == TS_FACES_ALL(p->dim))
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson g=... neumann=\"%s\">: every face is a Neumann "
                    "face, so there is no Dirichlet face for the data g", loc, names);
  return 0;
}

int ts_read_cell_file(ts_reader *r, const struct ts_problem_s *p, ts_xml_element element,
                      const char *attr, int tensor, char *out, size_t cap, int *components) {
  char loc[1200], given[1024] = "";
  const char *name = p->equation->element;
  TS_CALL(ts_reader_copy(r, element, attr, given, sizeof given));
  out[0] = 0;
  if (!given[0]) return 0;
  const char *slash = strrchr(ts_reader_path(r), '/');
  const int folder = given[0] != '/' && slash ? (int)(slash - ts_reader_path(r)) + 1 : 0;
  ts_reader_where(r, element, attr, loc, sizeof loc);
  if ((size_t)snprintf(out, cap, "%.*s%s", folder, ts_reader_path(r), given) >= cap)
    return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=...>: the path is too long", loc, name, attr);
  int64_t cells = 1;
  for (int d = 0; d < p->dim; ++d) cells *= (int64_t)p->coarse[d] << p->levels;
  FILE *f = fopen(out, "rb");
  long size = -1;
  if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (f) fclose(f);
  if (!f) return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=\"%s\">: cannot open '%s': %s", loc, name,
                          attr, given, out, strerror(errno));
  const int n_tensor = p->dim * (p->dim + 1) / 2;
  *components = size == cells * 8 ? 1 : tensor && size == cells * 8 * n_tensor ? n_tensor : 0;
  if (!*components)
    return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=\"%s\">: '%s' holds %ld bytes; the finest "
                    "level (%d) has %lld cells, so it must hold %lld bytes (one raw little-endian "
                    "double per cell)%s", loc, name, attr, given, out, size, p->levels, (long long)cells,
                    (long long)(cells * 8), tensor ? " or 8 x dim(dim+1)/2 per cell (a tensor)" : "");
  return 0;
}

/* <poisson kappa-file c-file>: the coefficients per cell from files, instead of kappa or c */
static int fill_cell_files(ts_reader *r, struct ts_problem_s *p, ts_xml_element poisson) {
  char loc[1200];
  int c_components = 0;
  TS_CALL(ts_read_cell_file(r, p, poisson, "kappa-file", 1, p->kappa_file,
                            sizeof p->kappa_file, &p->kappa_file_components));
  TS_CALL(ts_read_cell_file(r, p, poisson, "c-file", 0, p->c_file, sizeof p->c_file,
                            &c_components));
  ts_reader_where(r, poisson, NULL, loc, sizeof loc);
  if ((p->kappa_file[0] && p->kappa[0]) || (p->c_file[0] && p->c[0]))
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson %s=... %s-file=...>: give the coefficient as an "
                    "expression or from a file, not both", loc, p->kappa_file[0] && p->kappa[0] ?
                    "kappa" : "c", p->kappa_file[0] && p->kappa[0] ? "kappa" : "c");
  return 0;
}

/* <poisson>: a built-in solution, or your own data (f and the rest). */
static int fill_own(ts_reader *r, struct ts_problem_s *p, ts_xml_element poisson) {
  char loc[1200];
  static const char *const attrs[] = {"f", "g", "kappa", "c", "u", "grad-u", "h", "neumann",
                                      "kappa-file", "c-file"};
  char *const fields[] = {p->f, p->g, p->kappa, p->c, p->u, p->grad_u, p->h};
  for (int i = 0; i < 7; ++i) {
    fields[i][0] = 0;
    TS_CALL(ts_read_expression(r, p, poisson, attrs[i], i == 5 ? p->dim : 1, fields[i]));
  }
  p->own = p->f[0] != 0;
  int given = -1;
  static const char *const more[] = {"neumann", "kappa-file", "c-file"};
  for (int i = 1; i < 10 && given < 0; ++i)
    if (i < 7 ? fields[i][0] != 0 : ts_reader_has(poisson, more[i - 7])) given = i;
  ts_reader_where(r, poisson, NULL, loc, sizeof loc);
  if (p->own && ts_reader_has(poisson, "solution"))
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson solution=\"%s\" f=...>: give a built-in solution "
                    "or your own data (f, g, kappa, c, u, grad-u, h, neumann, kappa-file, "
                    "c-file), not both", loc,
                    p->solution);
  if (!p->own && given >= 0)
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson %s=...> without f: your own data needs the right "
                    "side f (f=\"0\" for none)", loc, attrs[given]);
  if (!p->own && !ts_reader_has(poisson, "solution"))
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson>: either solution=\"%s\" or your own data with "
                    "f=\"...\" is required", loc, ts_solution_names());
  if (p->own && !p->u[0] != !p->grad_u[0])
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson %s=...> without %s: the errors need both the "
                    "exact solution u and its gradient grad-u (%d comma-separated values)", loc,
                    p->u[0] ? "u" : "grad-u", p->u[0] ? "grad-u" : "u", p->dim);
  if (p->own && ts_reader_has(poisson, "rhs"))
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson rhs=... f=...>: rhs belongs to the built-in "
                    "solutions; your own right side is f", loc);
  if (!p->own && p->map != TS_MAP_BOX) {
    ts_xml_element mesh = ts_reader_element(r, "mesh");
    ts_reader_where(r, mesh, "map", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <mesh map=\"%s\"> with <poisson solution=\"%s\">: the "
                    "built-in solutions are on the box; on a mapped mesh give your own data "
                    "(<poisson f=... g=... u=... grad-u=...>)", loc, ts_reader_map_name(p->map),
                    p->solution);
  }
  if (p->own) TS_CALL(fill_neumann(r, p, poisson));
  p->coefficients_at_points = ts_reader_is(poisson, "sample", "points");
  if (p->coefficients_at_points && (p->kappa_file[0] || p->c_file[0] || !p->own)) {
    ts_reader_where(r, poisson, "sample", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <poisson sample=\"points\">: kappa and c per quadrature "
                    "point are expressions of your own data (kappa=, c=), not files or a "
                    "built-in solution", loc);
  }
  return p->own ? fill_cell_files(r, p, poisson) : 0;
}

/* What your own problems cannot use yet: BoomerAMG and amg (they assemble the box's Laplacian).  Their
 * smoother is Chebyshev unless <multigrid smoother="vertex-patch"> asks for the additive
 * vertex-patch one of mapped meshes (doc/multigrid.md, "Mapped meshes"). */
int ts_poisson_own_check(ts_reader *r, struct ts_problem_s *p) {
  char loc[1200];
  ts_xml_element solver = ts_reader_element(r, "solver");
  ts_xml_element mg = ts_reader_element(r, "multigrid");
  static const char *const assembling[] = {"boomeramg", "amg"};
  for (int i = 0; i < 2; ++i)
    if (ts_pc_tree_has(p, assembling[i])) {
      ts_reader_where(r, solver, NULL, loc, sizeof loc);
      return TS_ERROR(TS_ERR_INPUT, "%s: <solver> with %s and <poisson f=...>: algebraic "
                      "multigrid assembles the box's Laplacian, not yet your own operator; "
                      "allowed preconditioners: mg, jacobi, chebyshev, krylov, none", loc,
                      assembling[i]);
    }
  if (p->use_mg && !ts_reader_is(mg, "smoother", "vertex-patch"))
    p->mg.smoother = TS_MG_SMOOTHER_CHEBYSHEV;
  if (p->precision != TS_DOUBLE) {
    ts_reader_where(r, solver, "precision", loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver precision=\"single\"> with <poisson f=...>: your "
                    "own problems are solved in double; allowed: precision=\"double\"", loc);
  }
  return 0;
}

/* <poisson>: a built-in solution (rhs="one" with solution="none") or your own data */
int ts_poisson_read(ts_reader *r, struct ts_problem_s *p, ts_xml_element poisson) {
  char loc[1200];
  TS_CALL(ts_reader_copy(r, poisson, "solution", p->solution, sizeof p->solution));
  TS_CALL(fill_own(r, p, poisson));
  p->rhs_one = ts_reader_is(poisson, "rhs", "one");
  if (p->rhs_one == !strcmp(p->solution, "none")) return 0;
  ts_reader_where(r, poisson, p->rhs_one ? "rhs" : "solution", loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <poisson solution=\"%s\" rhs=\"%s\">: allowed: rhs=\"one\" "
                  "with solution=\"none\" (f = 1, no exact solution), or a solution (%s) with "
                  "rhs=\"solution\"", loc, p->solution, p->rhs_one ? "one" : "solution",
                  ts_solution_names());
}

/* Your own data: <poisson> with f="..." */
int ts_poisson_own_selects(ts_xml_element poisson) {
  char f[8];
  return ts_reader_text(poisson, "f", f, sizeof f) && f[0];
}

