/* t-stokes-vtu.c -- VTK output of Stokes solutions (ts_stokes_write_vtu, doc/stokes.md
 * section 10), each file parsed back with libxml2:
 *   1. 2D RT_2 (subdivisions 3 = k+1) and 3D RT_1 (subdivisions 2) on 4x2(x2) cells of
 *      [0,2]x[0,1](x[0,1.5]): the interpolant of a velocity that lies in RT_k and of a DGQ_k
 *      pressure; the counts of points and cells, each cell's own lattice of points, the
 *      sub-cells, the velocity (3 components, z = 0 in 2D) and the pressure minus its mean
 *      reproduced to 1e-12, and the exact and error fields;
 *   2. without an exact solution only "velocity" and "pressure" are written;
 *   3. one tangential DoF: its points on the face it touches differ across the face (the
 *      points of shared faces are written once per cell);
 *   4. the interpolant of paper000 (2D RT_1, 4x4 and 8x8 cells): velocity_exact is the
 *      manufactured velocity, velocity_error = velocity - velocity_exact, and its maximum
 *      falls at order >= k + 1 - 0.3;
 *   5. bad arguments and failed writes: clear errors naming the file or its directory, no
 *      file (nor a temporary one) left behind;
 *   6. the file is written safely: a symlink planted at PATH.tmp (where an earlier version
 *      wrote first) is neither followed nor touched, the file gets mode 0666 less the umask,
 *      no temporary file stays, and an existing PATH is replaced;
 *   7. the output size limit: a limit just below the size written refuses the file (the
 *      writer's estimate is an upper bound) and writes nothing, a raised limit writes it, 0
 *      is not a limit;
 *   8. Taylor-Hood (ts_taylor_hood_write_vtu), 2D and 3D Q2 x Q1 on 4x2(x2) cells: one
 *      lattice of (cells s + 1)^dim points over the box, and the interpolant of a velocity in
 *      Q2 and a pressure in Q1 reproduced at every point as in 1-2 (the pressure minus its
 *      mean, the exact and error fields; without an exact solution only velocity and
 *      pressure);
 *   9. Darcy and grad-div (ts_hdiv_write_vtu), 2D RT_2 and 3D RT_1 x DGQ_k in the
 *      interpolation-histopolation bases on the cells of 1: the interpolant of the same
 *      polynomials (DoFs: the integrals of u_i over the sub-faces, of p over the sub-cells)
 *      reproduced at every point as in 1-2 (the pressure itself: no mean removed). */
#include <dirent.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"
#include "tessera-impl.h"

static const double lower[3] = {0.0, 0.0, 0.0}, upper[3] = {2.0, 1.0, 1.5};
static const int coarse[3] = {2, 1, 1};

/* ---------------------------------------------------------------- a polynomial in RT_k x DGQ_k */

static int poly_k; /* the degree k of the polynomials below */

/* x^e with 0^0 = 1 */
static double power(double x, int e) {
  double v = 1.0;
  for (int i = 0; i < e; ++i) v *= x;
  return v;
}

/* u_i = prod_d (a_id + x_d^e), e = k+1 along i and k across: in RT_k on every mesh. */
static void poly_velocity(int dim, const double *x, double *u) {
  for (int i = 0; i < dim; ++i) {
    u[i] = 1.0;
    for (int d = 0; d < dim; ++d) u[i] *= 0.3 + 0.2 * i + 0.1 * d + power(x[d], poly_k + (d == i));
  }
}

/* p = prod_d (b_d + x_d^k): in DGQ_k */
static double poly_pressure(int dim, const double *x) {
  double p = 1.0;
  for (int d = 0; d < dim; ++d) p *= -0.4 + 0.25 * d + power(x[d], poly_k);
  return p;
}

/* The mean of poly_pressure over the box: the product of the 1D means. */
static double poly_pressure_mean(int dim) {
  double mean = 1.0;
  for (int d = 0; d < dim; ++d) {
    const double lo = lower[d], hi = upper[d];
    mean *= -0.4 + 0.25 * d +
            (power(hi, poly_k + 1) - power(lo, poly_k + 1)) / ((poly_k + 1) * (hi - lo));
  }
  return mean;
}

static const ts_stokes_solution poly_solution = {"polynomial", poly_velocity, poly_pressure, NULL};

/* ---------------------------------------------------------------- the spaces */

typedef struct space {
  ts_mesh mesh;
  ts_fe rt, dgq;
  ts_dofs u, p;
  double *x; /* [u; p] */
} space;

static void space_destroy(space *s) {
  free(s->x);
  ts_dofs_destroy(&s->u);
  ts_dofs_destroy(&s->p);
  ts_fe_destroy(&s->rt);
  ts_fe_destroy(&s->dgq);
  ts_mesh_destroy(&s->mesh);
}

/* RT_k x DGQ_k, with ih in the interpolation-histopolation bases (paper 003) */
static int space_create(int dim, int k, const double *lo, const double *hi, const int *cells,
                        int level, int ih, space *s) {
  *s = (space){0};
  TS_CALL(ts_mesh_create_box(dim, lo, hi, cells, level, &s->mesh));
  TS_CALL(ih ? ts_fe_create_rt_ih(dim, k, &s->rt) : ts_fe_create_rt(dim, k, &s->rt));
  TS_CALL(ih ? ts_fe_create_l2_ih(dim, k, &s->dgq) : ts_fe_create_dgq(dim, k, &s->dgq));
  TS_CALL(ts_dofs_create(s->mesh, s->rt, level, &s->u));
  TS_CALL(ts_dofs_create(s->mesh, s->dgq, level, &s->p));
  TS_CALL(ts_calloc((size_t)(s->u->count + s->p->count), sizeof(double), "[u; p]", &s->x));
  return 0;
}

/* The interpolant of (u, p): the values at the support points (doc/stokes.md section 1). */
static int interpolate(space *s, const ts_stokes_solution *exact) {
  const int dim = s->u->dim;
  for (int64_t j = 0; j < s->u->count; ++j) {
    double x[3], u[3];
    int c = 0;
    while (j >= s->u->comp_offset[c + 1]) ++c;
    TS_CALL(ts_dofs_point(s->u, j, x));
    exact->velocity(dim, x, u);
    s->x[j] = u[c];
  }
  for (int64_t j = 0; j < s->p->count; ++j) {
    double x[3];
    TS_CALL(ts_dofs_point(s->p, j, x));
    s->x[s->u->count + j] = exact->pressure(dim, x);
  }
  return 0;
}

/* The interpolant in the interpolation-histopolation bases: a velocity DoF of component i is
 * the integral of u_i over its sub-face (at the Gauss-Lobatto node a_i along i, between the
 * nodes a_d and a_d + 1 across), a pressure DoF that of p over its sub-cell; the Gauss rule of
 * k+2 points on every sub-interval is exact for these degrees. */
static double ih_dof(const space *s, int i, const int64_t *c, const int *a) {
  const int dim = s->u->dim, k = s->u->degree, nq = k + 2;
  const double *node = s->u->fe->normal_points;
  double gx[TS_MAX_POINTS], gw[TS_MAX_POINTS], sum = 0.0;
  ts_gauss_rule(nq, gx, gw);
  int q[3] = {0, 0, 0}, n[3] = {1, 1, 1};
  for (int d = 0; d < dim; ++d) n[d] = d == i ? 1 : nq;
  for (q[2] = 0; q[2] < n[2]; ++q[2])
    for (q[1] = 0; q[1] < n[1]; ++q[1])
      for (q[0] = 0; q[0] < n[0]; ++q[0]) {
        double x[3] = {0.0, 0.0, 0.0}, w = 1.0, u[3];
        for (int d = 0; d < dim; ++d) {
          const double first = node[a[d]], length = d == i ? 0.0 : node[a[d] + 1] - first;
          x[d] = s->u->lower[d] + s->u->h[d] * ((double)c[d] + first + length * gx[q[d]]);
          if (d != i) w *= gw[q[d]] * length * s->u->h[d];
        }
        if (i < dim) poly_velocity(dim, x, u);
        sum += w * (i < dim ? u[i] : poly_pressure(dim, x));
      }
  return sum;
}

static void ih_interpolate(space *s) {
  const int dim = s->u->dim, k = s->u->degree;
  for (int i = 0; i <= dim; ++i) { /* i = dim: the pressure */
    const ts_dofs dofs = i < dim ? s->u : s->p;
    const int comp = i < dim ? i : 0;
    const int64_t *g = dofs->comp_n[comp];
    double *values = s->x + (i < dim ? 0 : s->u->count) + dofs->comp_offset[comp];
    for (int64_t cell = 0; cell < ts_cell_count(dofs); ++cell) {
      int64_t c[3] = {0, 0, 0};
      int a[3] = {0, 0, 0}, n[3] = {1, 1, 1};
      ts_cell_from_index(dofs, cell, c);
      for (int d = 0; d < dim; ++d) n[d] = d == i ? k + 2 : k + 1;
      for (a[2] = 0; a[2] < n[2]; ++a[2])
        for (a[1] = 0; a[1] < n[1]; ++a[1])
          for (a[0] = 0; a[0] < n[0]; ++a[0]) {
            int64_t gi[3] = {0, 0, 0};
            for (int d = 0; d < dim; ++d) gi[d] = c[d] * (k + 1) + a[d];
            values[gi[0] + g[0] * (gi[1] + g[1] * gi[2])] = ih_dof(s, i, c, a);
          }
    }
  }
}

/* poly_velocity and poly_pressure as ts_point_fn (dim values, one value per point) */
static int poly_velocity_points(void *ctx, int dim, int64_t n, const double *x, double *v) {
  (void)ctx;
  for (int64_t m = 0; m < n; ++m) {
    double u[3];
    poly_velocity(dim, x + m * dim, u);
    for (int d = 0; d < dim; ++d) v[m * dim + d] = u[d];
  }
  return 0;
}

static int poly_pressure_points(void *ctx, int dim, int64_t n, const double *x, double *v) {
  (void)ctx;
  for (int64_t m = 0; m < n; ++m) v[m] = poly_pressure(dim, x + m * dim);
  return 0;
}

/* ---------------------------------------------------------------- reading a .vtu back */

typedef struct vtu {
  xmlDocPtr doc;
  long long n_points, n_cells;
} vtu;

static xmlNodePtr find_element(xmlNodePtr node, const char *name) {
  for (; node; node = node->next) {
    if (node->type != XML_ELEMENT_NODE) continue;
    if (!strcmp((const char *)node->name, name)) return node;
    xmlNodePtr found = find_element(node->children, name);
    if (found) return found;
  }
  return NULL;
}

static long long attribute_int(xmlNodePtr node, const char *name) {
  xmlChar *v = node ? xmlGetProp(node, BAD_CAST name) : NULL;
  const long long n = v ? strtoll((const char *)v, NULL, 10) : -1;
  xmlFree(v);
  return n;
}

/* Parse path; 0 if it is a VTKFile with one Piece. */
static int vtu_read(const char *path, vtu *f) {
  f->doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
  xmlNodePtr root = f->doc ? xmlDocGetRootElement(f->doc) : NULL;
  if (!root || strcmp((const char *)root->name, "VTKFile")) return 1;
  xmlNodePtr piece = find_element(root, "Piece");
  f->n_points = attribute_int(piece, "NumberOfPoints");
  f->n_cells = attribute_int(piece, "NumberOfCells");
  return piece ? 0 : 1;
}

static void vtu_free(vtu *f) {
  xmlFreeDoc(f->doc);
  f->doc = NULL;
}

/* The first DataArray below node whose Name is name. */
static xmlNodePtr find_named_array(xmlNodePtr node, const char *name) {
  for (; node; node = node->next) {
    if (node->type != XML_ELEMENT_NODE) continue;
    if (!strcmp((const char *)node->name, "DataArray")) {
      xmlChar *n = xmlGetProp(node, BAD_CAST "Name");
      const int match = n && !strcmp((const char *)n, name);
      xmlFree(n);
      if (match) return node;
    }
    xmlNodePtr found = find_named_array(node->children, name);
    if (found) return found;
  }
  return NULL;
}

/* The numbers of the DataArray named name (or the one inside <Points> if name is "Points"),
 * malloc'ed, and their count; NULL if there is no such array. */
static double *vtu_array(const vtu *f, const char *name, int64_t *count) {
  xmlNodePtr root = f->doc ? xmlDocGetRootElement(f->doc) : NULL, array = NULL;
  if (root && !strcmp(name, "Points")) {
    xmlNodePtr points = find_element(root, "Points");
    array = points ? find_element(points->children, "DataArray") : NULL;
  } else if (root) {
    array = find_named_array(root, name);
  }
  *count = 0;
  if (!array) return NULL;
  xmlChar *text = xmlNodeGetContent(array);
  const size_t length = strlen((const char *)text);
  double *values = malloc(sizeof(double) * (length / 2 + 1));
  char *p = (char *)text, *end;
  for (double v = strtod(p, &end); end != p; v = strtod(p, &end)) {
    values[(*count)++] = v;
    p = end;
  }
  xmlFree(text);
  return values;
}

/* ---------------------------------------------------------------- checks */

static char work[256];

/* max |a - b| / max(1, |b|) over n values */
static double max_relative_difference(const double *a, const double *b, int64_t n) {
  double worst = 0.0;
  for (int64_t i = 0; i < n; ++i) worst = fmax(worst, fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i])));
  return worst;
}

/* The expected coordinates of point p: cell p / (s+1)^dim, lattice index p % (s+1)^dim. */
static void expected_point(const space *s, int sub, int64_t p, double *x) {
  int64_t per_cell = 1, c[3];
  for (int d = 0; d < s->u->dim; ++d) per_cell *= sub + 1;
  ts_cell_from_index(s->u, p / per_cell, c);
  int64_t m = p % per_cell;
  x[2] = 0.0;
  for (int d = 0; d < s->u->dim; ++d, m /= sub + 1)
    x[d] = s->u->lower[d] + s->u->h[d] * ((double)c[d] + (double)(m % (sub + 1)) / sub);
}

/* Counts, points, cells (each sub-cell spans h/sub within one mesh cell). */
static void check_grid(const char *what, const space *s, int sub, const vtu *f) {
  const int dim = s->u->dim, nv = dim == 3 ? 8 : 4;
  const long long cells = (long long)ts_cell_count(s->u);
  const long long points = cells * (long long)pow(sub + 1, dim), subcells = cells * (long long)pow(sub, dim);
  int64_t n_x, n_conn, n_off, n_types;
  double *x = vtu_array(f, "Points", &n_x), *conn = vtu_array(f, "connectivity", &n_conn);
  double *off = vtu_array(f, "offsets", &n_off), *types = vtu_array(f, "types", &n_types);
  ok(f->n_points == points && f->n_cells == subcells && n_x == 3 * points &&
         n_conn == nv * subcells && n_off == subcells && n_types == subcells,
     "%s: %lld points (cells (s+1)^dim = %lld), %lld cells (cells s^dim = %lld), arrays %lld %lld %lld %lld",
     what, f->n_points, points, f->n_cells, subcells, (long long)n_x, (long long)n_conn,
     (long long)n_off, (long long)n_types);
  double worst_x = n_x == 3 * points ? 0.0 : INFINITY;
  for (int64_t p = 0; p < points && n_x == 3 * points; ++p) {
    double e[3];
    expected_point(s, sub, p, e);
    for (int d = 0; d < 3; ++d) worst_x = fmax(worst_x, fabs(x[3 * p + d] - e[d]));
  }
  /* corner 0 to the opposite corner (2 in 2D, 6 in 3D): +h/sub in every direction */
  int cells_ok = n_conn == nv * subcells && n_off == subcells && n_x == 3 * points;
  for (int64_t c = 0; cells_ok && c < subcells; ++c) {
    const int64_t a = (int64_t)conn[nv * c], b = (int64_t)conn[nv * c + (dim == 3 ? 6 : 2)];
    cells_ok = a >= 0 && b < points && off[c] == nv * (c + 1) && types[c] == (dim == 3 ? 12 : 9);
    for (int d = 0; cells_ok && d < dim; ++d)
      cells_ok = fabs(x[3 * b + d] - x[3 * a + d] - s->u->h[d] / sub) < 1e-14;
    /* one mesh cell: both corners in the same block of (s+1)^dim points */
    cells_ok = cells_ok && a / (int64_t)pow(sub + 1, dim) == b / (int64_t)pow(sub + 1, dim);
  }
  ok(worst_x < 1e-14 && cells_ok,
     "%s: each cell's own lattice of points (%.1e), sub-cells of size h/s inside one cell, offsets and types",
     what, worst_x);
  free(x);
  free(conn);
  free(off);
  free(types);
}

/* The fields against (u, p) evaluated at the points: velocity, pressure - mean, and the
 * exact and error fields when with_exact. */
static void check_fields(const char *what, const vtu *f, const ts_stokes_solution *e,
                         double exact_mean, int dim, int with_exact) {
  int64_t n_x, n_u, n_p, n_ue, n_pe, n_uerr, n_perr;
  double *x = vtu_array(f, "Points", &n_x), *u = vtu_array(f, "velocity", &n_u);
  double *p = vtu_array(f, "pressure", &n_p), *ue = vtu_array(f, "velocity_exact", &n_ue);
  double *pe = vtu_array(f, "pressure_exact", &n_pe), *uerr = vtu_array(f, "velocity_error", &n_uerr);
  double *perr = vtu_array(f, "pressure_error", &n_perr);
  const int64_t n = n_x / 3;
  double *u_want = calloc((size_t)(3 * n + 1), sizeof(double)), *p_want = calloc((size_t)n + 1, sizeof(double));
  for (int64_t i = 0; i < n; ++i) {
    e->velocity(dim, x + 3 * i, u_want + 3 * i);
    p_want[i] = e->pressure(dim, x + 3 * i) - exact_mean;
  }
  const int sizes = n > 0 && n == f->n_points && n_u == 3 * n && n_p == n;
  const double du = sizes ? max_relative_difference(u, u_want, 3 * n) : INFINITY;
  const double dp = sizes ? max_relative_difference(p, p_want, n) : INFINITY;
  ok(du < 1e-12, "%s: velocity (3 components%s) reproduced: %.2e", what,
     dim == 2 ? ", z = 0" : "", du);
  ok(dp < 1e-12, "%s: pressure minus its mean (%.6f) reproduced: %.2e", what, exact_mean, dp);
  if (with_exact) {
    double worst_err = INFINITY, due = INFINITY;
    if (sizes && n_ue == 3 * n && n_pe == n && n_uerr == 3 * n && n_perr == n) {
      due = fmax(max_relative_difference(ue, u_want, 3 * n), max_relative_difference(pe, p_want, n));
      worst_err = 0.0;
      for (int64_t i = 0; i < 3 * n; ++i) worst_err = fmax(worst_err, fabs(uerr[i]));
      for (int64_t i = 0; i < n; ++i) worst_err = fmax(worst_err, fabs(perr[i]));
    }
    ok(due < 1e-14 && worst_err < 1e-12,
       "%s: velocity_exact, pressure_exact exact (%.1e), velocity_error and pressure_error at most %.2e",
       what, due, worst_err);
  } else {
    ok(!ue && !pe && !uerr && !perr && n_u == 3 * n && n_p == n,
       "%s: without an exact solution only velocity and pressure", what);
  }
  free(x), free(u), free(p), free(ue), free(pe), free(uerr), free(perr), free(u_want), free(p_want);
}

/* ---------------------------------------------------------------- Taylor-Hood */

/* u in Q2 per component and p in Q1 (z = 0 in 2D) */
static void th_velocity(int dim, const double *x, double *u) {
  u[0] = x[0] * x[0] * x[1] + x[2];
  u[1] = x[0] * x[1] * x[1] - x[2] * x[2];
  if (dim == 3) u[2] = x[0] * x[1] * x[2];
}
static double th_pressure(int dim, const double *x) {
  return 1.0 + 2.0 * x[0] - x[1] + x[0] * x[1] + (dim == 3 ? x[1] * x[2] : 0.0);
}
/* its mean over [0,2] x [0,1] (x [0,1.5]): 1 + 2 - 1/2 + 1/2 (+ 3/8) */
static double th_pressure_mean(int dim) { return dim == 3 ? 3.375 : 3.0; }
static const ts_stokes_solution th_solution = {"th-polynomial", th_velocity, th_pressure, NULL,
                                               NULL, 0};

#define TH_TESTS 8

static void check_taylor_hood(int dim, int sub) {
  char what[64], path[512];
  snprintf(what, sizeof what, "%dD Taylor-Hood Q2 x Q1, subdivisions %d", dim, sub);
  snprintf(path, sizeof path, "%s/th-%dd.vtu", work, dim);
  ts_mesh mesh = NULL;
  ts_fe q2 = NULL, q1 = NULL;
  ts_dofs u = NULL, p = NULL;
  double *x = NULL;
  vtu f = {0};
  int ierr = ts_mesh_create_box(dim, lower, upper, coarse, 1, &mesh);
  if (!ierr) ierr = ts_fe_create_q(dim, 2, &q2);
  if (!ierr) ierr = ts_fe_create_q(dim, 1, &q1);
  if (!ierr) ierr = ts_dofs_create(mesh, q2, 1, &u);
  if (!ierr) ierr = ts_dofs_create(mesh, q1, 1, &p);
  if (!ierr) ierr = ts_calloc((size_t)(dim * u->count + p->count), sizeof(double), "[u; p]", &x);
  for (int64_t j = 0; !ierr && j < u->count; ++j) { /* the nodal interpolant */
    double point[3] = {0, 0, 0}, value[3];
    ierr = ts_dofs_point(u, j, point);
    th_velocity(dim, point, value);
    for (int c = 0; c < dim; ++c) x[c * u->count + j] = value[c];
  }
  for (int64_t j = 0; !ierr && j < p->count; ++j) {
    double point[3] = {0, 0, 0};
    ierr = ts_dofs_point(p, j, point);
    x[dim * u->count + j] = th_pressure(dim, point);
  }
  if (!ierr) ierr = ts_taylor_hood_write_vtu(path, u, p, x, &th_solution, sub);
  if (!ok(!ierr && !vtu_read(path, &f), "%s: written and parsed back (%s)", what, path)) {
    diag("%s", ts_error_message());
    skip(TH_TESTS - 1, "no file");
  } else {
    long long points = 1, subcells = 1;
    for (int d = 0; d < dim; ++d) {
      points *= u->cells[d] * sub + 1;
      subcells *= u->cells[d] * sub;
    }
    ok(f.n_points == points && f.n_cells == subcells, "%s: %lld points (%lld: one lattice over "
       "the box), %lld cells (%lld)", what, f.n_points, points, f.n_cells, subcells);
    check_fields(what, &f, &th_solution, th_pressure_mean(dim), dim, 1);
    vtu_free(&f);
    ierr = ts_taylor_hood_write_vtu(path, u, p, x, NULL, sub);
    if (!ierr) ierr = vtu_read(path, &f);
    check_fields(what, &f, &th_solution, th_pressure_mean(dim), dim, 0);
  }
  vtu_free(&f);
  free(x);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&q2);
  ts_fe_destroy(&q1);
  ts_mesh_destroy(&mesh);
}

#define POLY_TESTS 9

/* The file of s's [u; p], with the exact solution if exact (ih: ts_hdiv_write_vtu). */
static int write_polynomial(const char *path, const space *s, int ih, int sub, int exact) {
  if (!ih) return ts_stokes_write_vtu(path, s->u, s->p, s->x, exact ? &poly_solution : NULL, sub);
  return ts_hdiv_write_vtu(path, s->u, s->p, s->x, s->x + s->u->count,
                           exact ? poly_velocity_points : NULL,
                           exact ? poly_pressure_points : NULL, NULL, sub);
}

/* Sections 1-2 (9 with ih) of the top comment for one case. */
static void check_polynomial(int dim, int k, int sub, int ih) {
  char what[64], path[512];
  space s;
  vtu f = {0};
  snprintf(what, sizeof what, "%dD RT_%d%s, subdivisions %d", dim, k, ih ? " (IH)" : "", sub);
  snprintf(path, sizeof path, "%s/%spoly-%dd.vtu", work, ih ? "ih-" : "", dim);
  poly_k = k;
  int ierr = space_create(dim, k, lower, upper, coarse, 1, ih, &s);
  if (!ierr && ih) ih_interpolate(&s);
  if (!ierr && !ih) ierr = interpolate(&s, &poly_solution);
  if (!ierr) ierr = write_polynomial(path, &s, ih, sub, 1);
  if (!ok(!ierr && !vtu_read(path, &f), "%s: written and parsed back (%s)", what, path)) {
    diag("%s", ts_error_message());
    skip(POLY_TESTS - 1, "no file");
    space_destroy(&s);
    vtu_free(&f);
    return;
  }
  const double mean = ih ? 0.0 : poly_pressure_mean(dim);
  check_grid(what, &s, sub, &f);
  check_fields(what, &f, &poly_solution, mean, dim, 1);
  vtu_free(&f);
  ierr = write_polynomial(path, &s, ih, sub, 0);
  if (!ierr) ierr = vtu_read(path, &f);
  check_fields(what, &f, &poly_solution, mean, dim, 0);
  vtu_free(&f);
  space_destroy(&s);
}

/* Section 3: u_1 = one Gauss-Lagrange function of cell (0, 0) in x (tangential to the face
 * x = h between cells (0, 0) and (1, 0)): nonzero on that face seen from cell (0, 0), zero
 * seen from cell (1, 0). */
static void check_tangential_jump(void) {
  const int k = 2, sub = 3;
  char path[512];
  space s;
  vtu f = {0};
  snprintf(path, sizeof path, "%s/jump.vtu", work);
  int ierr = space_create(2, k, lower, upper, coarse, 1, 0, &s);
  if (!ierr) {
    s.x[s.u->comp_offset[1] + k + s.u->comp_n[1][0] * 1] = 1.0; /* a_0 = k, a_1 = 1 */
    ierr = ts_stokes_write_vtu(path, s.u, s.p, s.x, NULL, sub);
  }
  if (!ierr) ierr = vtu_read(path, &f);
  int64_t n_x = 0, n_u = 0;
  double *x = ierr ? NULL : vtu_array(&f, "Points", &n_x), *u = ierr ? NULL : vtu_array(&f, "velocity", &n_u);
  double left = 0.0, right = 0.0;
  int on_face[2] = {0, 0};
  for (int64_t p = 0; p < n_x / 3 && n_u == n_x; ++p) {
    const int64_t cell = p / ((sub + 1) * (sub + 1)); /* cells (0, 0) and (1, 0) come first */
    if (fabs(x[3 * p] - s.u->h[0]) > 1e-14 || cell > 1) continue;
    const int from_left = cell == 0;
    on_face[!from_left]++;
    if (from_left) left = fmax(left, fabs(u[3 * p + 1]));
    else right = fmax(right, fabs(u[3 * p + 1]));
  }
  ok(!ierr && on_face[0] == sub + 1 && on_face[1] == sub + 1 && left > 0.1 && right == 0.0,
     "2D RT_2: the face x = h is written from both cells (%d and %d points); the tangential "
     "velocity jumps across it: max %.3f from the left, %.3f from the right",
     on_face[0], on_face[1], left, right);
  if (ierr) diag("%s", ts_error_message());
  free(x);
  free(u);
  vtu_free(&f);
  space_destroy(&s);
}

/* Section 4: max |velocity_error| at the points of the interpolant of paper000, and the
 * consistency of the fields. */
static int paper000_error(int cells_per_direction, double *max_error, double *consistency) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const int one[3] = {cells_per_direction, cells_per_direction, 1};
  const ts_stokes_solution *sol;
  char path[512];
  space s;
  vtu f = {0};
  snprintf(path, sizeof path, "%s/paper000.vtu", work);
  TS_CALL(ts_stokes_solution_by_name("paper000", &sol));
  int ierr = space_create(2, 1, lo, hi, one, 0, 0, &s);
  if (!ierr) ierr = interpolate(&s, sol);
  if (!ierr) ierr = ts_stokes_write_vtu(path, s.u, s.p, s.x, sol, 2);
  space_destroy(&s);
  if (ierr) return ierr;
  if (vtu_read(path, &f)) return TS_ERROR(TS_ERR_IO, "%s does not parse", path);
  int64_t n_x, n_u, n_ue, n_err;
  double *x = vtu_array(&f, "Points", &n_x), *u = vtu_array(&f, "velocity", &n_u);
  double *ue = vtu_array(&f, "velocity_exact", &n_ue), *err = vtu_array(&f, "velocity_error", &n_err);
  *max_error = 0.0;
  *consistency = n_x == n_u && n_u == n_ue && n_ue == n_err && n_x > 0 ? 0.0 : INFINITY;
  for (int64_t p = 0; p < n_x / 3 && *consistency == 0.0; ++p) {
    double want[3] = {0, 0, 0};
    sol->velocity(2, x + 3 * p, want);
    for (int d = 0; d < 3; ++d) {
      *max_error = fmax(*max_error, fabs(err[3 * p + d]));
      *consistency = fmax(*consistency, fabs(ue[3 * p + d] - want[d]) +
                                            fabs(err[3 * p + d] - (u[3 * p + d] - ue[3 * p + d])));
    }
  }
  free(x), free(u), free(ue), free(err);
  vtu_free(&f);
  return 0;
}

static void check_paper000(void) {
  double coarse_error, fine_error, c1 = INFINITY, c2 = INFINITY;
  const int ierr = paper000_error(4, &coarse_error, &c1) || paper000_error(8, &fine_error, &c2);
  if (ierr) diag("%s", ts_error_message());
  const double order = ierr ? 0.0 : log2(coarse_error / fine_error);
  ok(!ierr && c1 < 1e-15 && c2 < 1e-15,
     "paper000, 2D RT_1: velocity_exact = u(x) and velocity_error = velocity - velocity_exact (%.1e)",
     fmax(c1, c2));
  ok(!ierr && order >= 2 - 0.3 && fine_error < 1e-2,
     "paper000, 2D RT_1: max |velocity_error| at the points 4x4 -> 8x8 cells: %.3e -> %.3e (order %.2f, expected >= 1.7)",
     ierr ? 0.0 : coarse_error, ierr ? 0.0 : fine_error, order);
}

/* ---------------------------------------------------------------- section 5: errors */

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* The entries of the work directory whose names start with prefix (PATH. + a suffix: the
 * writer's temporary files). */
static int count_temporaries(const char *prefix) {
  DIR *d = opendir(work);
  int n = 0;
  for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d))
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  if (d) closedir(d);
  return n;
}

/* call fails with code and a message containing needle */
static void expect_error(int ierr, int code, const char *needle, const char *what) {
  const char *m = ts_error_message();
  ok(ierr == code && strstr(m, needle), "%s: error %d naming '%s'", what, ierr, needle);
  if (ierr != code || !strstr(m, needle)) diag("got %d: %s", ierr, m);
}

static void check_errors(void) {
  char path[512], tmp[530], dir_path[512];
  space s, bad;
  ts_fe q = NULL;
  ts_dofs q_dofs = NULL;
  snprintf(path, sizeof path, "%s/bad.vtu", work);
  int ierr = space_create(2, 1, lower, upper, coarse, 0, 0, &s);
  if (!ierr) ierr = space_create(2, 2, lower, upper, coarse, 0, 0, &bad);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &q);
  if (!ierr) ierr = ts_dofs_create(s.mesh, q, 0, &q_dofs);
  if (ierr) {
    diag("%s", ts_error_message());
    skip(8, "setup failed");
    return;
  }
  expect_error(ts_stokes_write_vtu(path, s.u, s.p, s.x, NULL, 0), TS_ERR_ARG, "subdivisions = 0",
               "subdivisions 0");
  expect_error(ts_stokes_write_vtu(path, s.u, s.p, s.x, NULL, 17), TS_ERR_ARG,
               "subdivisions = 17, allowed 1..16", "subdivisions 17");
  expect_error(ts_stokes_write_vtu(path, s.u, s.p, NULL, NULL, 2), TS_ERR_ARG,
               "ts_stokes_write_vtu", "NULL solution");
  expect_error(ts_stokes_write_vtu(path, q_dofs, s.p, s.x, NULL, 2), TS_ERR_ARG,
               "ts_stokes_write_vtu: components", "Q_k DoFs as the velocity");
  expect_error(ts_stokes_write_vtu(path, s.u, bad.p, s.x, NULL, 2), TS_ERR_ARG,
               "ts_stokes_write_vtu: degree 1 (velocity), 2 (pressure)", "pressure of another degree");
  ok(!file_exists(path), "nothing written for bad arguments");
  /* a directory that does not exist; a path that is a (non-empty) directory */
  snprintf(tmp, sizeof tmp, "%s/no-such-dir/s.vtu", work);
  char needle[600];
  snprintf(needle, sizeof needle, "'%s': cannot create a file in the directory '%s/no-such-dir'",
           tmp, work);
  expect_error(ts_stokes_write_vtu(tmp, s.u, s.p, s.x, NULL, 2), TS_ERR_IO, needle,
               "a missing directory");
  snprintf(dir_path, sizeof dir_path, "%s/a-directory", work);
  snprintf(tmp, sizeof tmp, "%s/keep", dir_path);
  FILE *keep = mkdir(dir_path, 0700) == 0 ? fopen(tmp, "w") : NULL;
  if (keep) fclose(keep);
  ierr = ts_stokes_write_vtu(dir_path, s.u, s.p, s.x, NULL, 2);
  ok(keep && ierr == TS_ERR_IO && strstr(ts_error_message(), "cannot rename") &&
         strstr(ts_error_message(), dir_path) && count_temporaries("a-directory.") == 0,
     "a path that is a directory: TS_ERR_IO naming it, no temporary file left behind");
  if (ierr != TS_ERR_IO) diag("got %d: %s", ierr, ts_error_message());
  snprintf(tmp, sizeof tmp, "%s/keep", dir_path);
  remove(tmp);
  rmdir(dir_path);
  ts_dofs_destroy(&q_dofs);
  ts_fe_destroy(&q);
  space_destroy(&bad);
  space_destroy(&s);
}

/* ---------------------------------------------------------------- section 6: a safe write */

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The whole file (at most size - 1 bytes) into text; 0 on success. */
static int read_text(const char *path, char *text, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) return 1;
  const size_t n = fread(text, 1, size - 1, f);
  text[n] = 0;
  fclose(f);
  return 0;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
}

static void check_safe_write(const space *s) {
  char path[512], planted[530], victim[512], text[64], target[512];
  snprintf(path, sizeof path, "%s/safe.vtu", work);
  snprintf(planted, sizeof planted, "%s.tmp", path);
  snprintf(victim, sizeof victim, "%s/victim", work);
  write_text(victim, "precious\n");
  write_text(path, "an older file\n");
  const int planted_ok = symlink(victim, planted) == 0;
  const mode_t old_mask = umask(027);
  const int ierr = ts_stokes_write_vtu(path, s->u, s->p, s->x, NULL, 2);
  umask(old_mask);
  if (ierr) diag("%s", ts_error_message());
  vtu f = {0};
  const int parsed = !ierr && vtu_read(path, &f) == 0 && f.n_points == s->u->cells[0] * s->u->cells[1] * 9;
  vtu_free(&f);
  const ssize_t link_length = readlink(planted, target, sizeof target - 1);
  if (link_length >= 0) target[link_length] = 0;
  ok(planted_ok && parsed && read_text(victim, text, sizeof text) == 0 &&
         !strcmp(text, "precious\n") && link_length > 0 && !strcmp(target, victim),
     "a symlink planted at PATH.tmp: the victim it points to is unchanged, the link untouched, "
     "the file written in full over the older one");
  struct stat st;
  ok(stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640,
     "the file has mode 0666 less the umask 027 (0640): %o", (unsigned)(st.st_mode & 0777));
  ok(count_temporaries("safe.vtu.") == 1, "no temporary file left behind (only the planted link)");
  remove(planted);
  remove(victim);
}

/* ---------------------------------------------------------------- section 7: the size limit */

static void check_size_limit(const space *s) {
  char path[512], other[512];
  snprintf(path, sizeof path, "%s/safe.vtu", work); /* written by check_safe_write */
  snprintf(other, sizeof other, "%s/limited.vtu", work);
  const long written = file_size(path);
  ok(ts_max_output_size() == TS_DEFAULT_MAX_OUTPUT_SIZE && written > 0,
     "the default limit is TS_DEFAULT_MAX_OUTPUT_SIZE (1 GiB); the file written has %ld bytes",
     written);
  int ierr = ts_set_max_output_size((uint64_t)written - 1);
  if (!ierr) ierr = ts_stokes_write_vtu(other, s->u, s->p, s->x, NULL, 2);
  ok(ierr == TS_ERR_IO && strstr(ts_error_message(), other) &&
         strstr(ts_error_message(), "more than the output size limit") &&
         strstr(ts_error_message(), "--max-output-size") && !file_exists(other) &&
         count_temporaries("limited.vtu.") == 0,
     "limit %ld bytes, 1 below the size written: TS_ERR_IO naming the file, the limit and how to "
     "raise it; nothing written", written - 1);
  if (ierr != TS_ERR_IO) diag("got %d: %s", ierr, ts_error_message());
  ierr = ts_set_max_output_size(1 << 20);
  if (!ierr) ierr = ts_stokes_write_vtu(other, s->u, s->p, s->x, NULL, 2);
  ok(!ierr && file_size(other) == written, "the limit raised to 1 MiB: written (%ld bytes)",
     file_size(other));
  if (ierr) diag("%s", ts_error_message());
  expect_error(ts_set_max_output_size(0), TS_ERR_ARG, "bytes = 0", "a limit of 0 bytes");
  ts_set_max_output_size(TS_DEFAULT_MAX_OUTPUT_SIZE);
}

static void check_file_handling(void) {
  space s;
  poly_k = 1;
  int ierr = space_create(2, 1, lower, upper, coarse, 0, 0, &s);
  if (!ierr) ierr = interpolate(&s, &poly_solution);
  if (ierr) {
    diag("%s", ts_error_message());
    skip(7, "setup failed");
    return;
  }
  check_safe_write(&s);
  check_size_limit(&s);
  space_destroy(&s);
}

static void remove_work(void) {
  static const char *const files[] = {"poly-2d.vtu", "poly-3d.vtu", "jump.vtu",  "paper000.vtu",
                                      "safe.vtu",    "limited.vtu", "th-2d.vtu", "th-3d.vtu",
                                      "ih-poly-2d.vtu", "ih-poly-3d.vtu"};
  char path[512];
  for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
    snprintf(path, sizeof path, "%s/%s", work, files[i]);
    remove(path);
  }
  rmdir(work);
}

/* Section 9's refusals: RT_k x DGQ_k of the nodal bases, a mapped mesh, subdivisions 0 */
static void check_hdiv_errors(void) {
  static const int kershaw_cells[2] = {6, 2};
  char path[512];
  space s, ih;
  ts_mesh kershaw = NULL;
  ts_fe rt = NULL, l2 = NULL;
  ts_dofs u = NULL, p = NULL;
  snprintf(path, sizeof path, "%s/refused.vtu", work);
  int ierr = space_create(2, 1, lower, upper, coarse, 0, 0, &s);
  if (!ierr) ierr = space_create(2, 1, lower, upper, coarse, 0, 1, &ih);
  if (!ierr) ierr = ts_mesh_create_kershaw(2, kershaw_cells, 0, 0.5, &kershaw);
  if (!ierr) ierr = ts_fe_create_rt_ih(2, 1, &rt);
  if (!ierr) ierr = ts_fe_create_l2_ih(2, 1, &l2);
  if (!ierr) ierr = ts_dofs_create(kershaw, rt, 0, &u);
  if (!ierr) ierr = ts_dofs_create(kershaw, l2, 0, &p);
  double *values = ierr ? NULL : calloc((size_t)(ts_dofs_count(u) + ts_dofs_count(p)), sizeof *values);
  const int nodal = ierr ? 0 : ts_hdiv_write_vtu(path, s.u, s.p, s.x, s.x + s.u->count, NULL, NULL, NULL, 2);
  const int nodal_said = strstr(ts_error_message(), "interpolation-histopolation") != NULL;
  const int mapped = ierr ? 0 : ts_hdiv_write_vtu(path, u, p, values, values, NULL, NULL, NULL, 2);
  const int mapped_said = strstr(ts_error_message(), "ts_hdiv_write_vtu") != NULL;
  const int zero = ierr ? 0 : ts_hdiv_write_vtu(path, ih.u, ih.p, ih.x, ih.x, NULL, NULL, NULL, 0);
  const int zero_said = strstr(ts_error_message(), "subdivisions = 0") != NULL;
  ok(!ierr && nodal == TS_ERR_ARG && nodal_said && mapped == TS_ERR_ARG && mapped_said &&
         zero == TS_ERR_ARG && zero_said && access(path, F_OK) != 0,
     "ts_hdiv_write_vtu refuses the nodal RT_k x DGQ_k, a mapped mesh and subdivisions 0, "
     "and writes nothing");
  free(values);
  ts_dofs_destroy(&u);
  ts_dofs_destroy(&p);
  ts_fe_destroy(&rt);
  ts_fe_destroy(&l2);
  ts_mesh_destroy(&kershaw);
  space_destroy(&s);
  space_destroy(&ih);
}

int main(void) {
  plan(4 * POLY_TESTS + 1 + 2 + 8 + 7 + 2 * TH_TESTS + 1);
  snprintf(work, sizeof work, "t-stokes-vtu.XXXXXX");
  if (!mkdtemp(work)) {
    diag("mkdtemp: %s", strerror(errno));
    return 1;
  }
  check_polynomial(2, 2, 3, 0);
  check_polynomial(3, 1, 2, 0);
  check_polynomial(2, 2, 3, 1);
  check_polynomial(3, 1, 2, 1);
  check_hdiv_errors();
  check_tangential_jump();
  check_paper000();
  check_errors();
  check_file_handling();
  check_taylor_hood(2, 2);
  check_taylor_hood(3, 2);
  remove_work();
  xmlCleanupParser();
  return exit_status();
}
