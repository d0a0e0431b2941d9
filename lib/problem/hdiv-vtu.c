/* hdiv-vtu.c -- VTK output (.vtu) of a Darcy or grad-div solution: RT_k x DGQ_k in the
 * interpolation-histopolation bases (doc/hdiv.md, "Problem files").  As for Stokes
 * (stokes-vtu.c), the tangential velocity and the pressure jump across cells, so every cell
 * gets its own lattice of s sub-cells per direction (the points on shared faces repeated).
 * Point data: "velocity" (3 components, z = 0 in 2D), "pressure", and with an exact solution
 * "velocity_exact", "pressure_exact", "velocity_error" and "pressure_error" (discrete -
 * exact).  Every value is computed before the file is opened (the exact functions may
 * fail), into arrays of a value per point and component; vtu-file.c writes them.
 *
 * On a cell with sizes h_d, a DoF of velocity component i with cell-local indices a is the
 * function l_{a_i}(xi_i) prod_{d != i} h_{a_d}(xi_d) / h_d, a pressure DoF prod_d h_{a_d}(xi_d)
 * / h_d (hdiv-data.c): l the Lagrange polynomials of the k+2 Gauss-Lobatto points, h their
 * histopolation basis, both tabulated here at the lattice positions j / s. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "problem-impl.h"
#include "vtu-file.h"

/* The lattice, the 1D tables at its positions and the values of the fields per point. */
typedef struct hdiv_sampler {
  ts_dofs velocity, pressure;
  int dim, s;
  int64_t per_cell;             /* (s+1)^dim */
  double l[TS_VTU_MAX_SUBDIVISIONS + 1][TS_MAX_POINTS], h[TS_VTU_MAX_SUBDIVISIONS + 1][TS_MAX_POINTS];
  double *u, *p, *u_exact, *p_exact; /* 3 and 1 values per point; the exact ones NULL: none */
} hdiv_sampler;

static int64_t cell_count(ts_dofs dofs) {
  int64_t n = 1;
  for (int d = 0; d < dofs->dim; ++d) n *= dofs->cells[d];
  return n;
}

/* Lattice point `point` (cell after cell, (s+1)^dim each, index 0 fastest): its cell's
 * indices c, its lattice indices qi and coordinates x. */
static void lattice_point(const hdiv_sampler *q, int64_t point, int64_t *c, int *qi, double *x) {
  ts_cell_from_index(q->velocity, point / q->per_cell, c);
  int64_t m = point % q->per_cell;
  for (int d = 0; d < 3; ++d) {
    qi[d] = d < q->dim ? (int)(m % (q->s + 1)) : 0;
    m /= d < q->dim ? q->s + 1 : 1;
    x[d] = d < q->dim ? q->velocity->lower[d] + q->velocity->h[d] *
                                                   ((double)c[d] + (double)qi[d] / q->s)
                      : 0.0;
  }
}

/* The field of `dofs` (component i of RT_k, or the DGQ_k pressure: i = -1) at lattice point
 * qi of cell c, from its DoF values. */
static double field_at(const hdiv_sampler *q, ts_dofs dofs, int i, const int64_t *c,
                       const int *qi, const double *values) {
  const int k = dofs->degree, comp = i < 0 ? 0 : i;
  int n[3] = {1, 1, 1}, a[3] = {0, 0, 0};
  for (int d = 0; d < q->dim; ++d) n[d] = d == i ? k + 2 : k + 1;
  const int64_t *g = dofs->comp_n[comp];
  double sum = 0.0;
  for (a[2] = 0; a[2] < n[2]; ++a[2])
    for (a[1] = 0; a[1] < n[1]; ++a[1])
      for (a[0] = 0; a[0] < n[0]; ++a[0]) {
        double phi = 1.0;
        int64_t gi[3] = {0, 0, 0};
        for (int d = 0; d < q->dim; ++d) {
          phi *= d == i ? q->l[qi[d]][a[d]] : q->h[qi[d]][a[d]] / dofs->h[d];
          gi[d] = c[d] * (k + 1) + a[d];
        }
        sum += phi * values[dofs->comp_offset[comp] + gi[0] + g[0] * (gi[1] + g[1] * gi[2])];
      }
  return sum;
}

/* The discrete fields at every point; the exact ones (exact u non-NULL) by one call of each
 * function per cell with the cell's lattice points. */
static int sample(hdiv_sampler *q, const double *u, const double *p, ts_point_fn u_exact,
                  ts_point_fn p_exact, void *ctx) {
  const int64_t cells = cell_count(q->velocity), points = cells * q->per_cell;
  double *x = NULL, *v = NULL;
  TS_CALL(ts_calloc((size_t)points * 3, sizeof *q->u, ".vtu velocity", &q->u));
  TS_CALL(ts_calloc((size_t)points, sizeof *q->p, ".vtu pressure", &q->p));
  if (u_exact) {
    TS_CALL(ts_calloc((size_t)points * 3, sizeof *q->u_exact, ".vtu exact velocity", &q->u_exact));
    TS_CALL(ts_calloc((size_t)points, sizeof *q->p_exact, ".vtu exact pressure", &q->p_exact));
  }
  int ierr = ts_calloc((size_t)q->per_cell * 3, sizeof *x, ".vtu points", &x);
  if (!ierr) ierr = ts_calloc((size_t)q->per_cell * 3, sizeof *v, ".vtu exact values", &v);
  for (int64_t cell = 0; !ierr && cell < cells; ++cell) {
    for (int64_t m = 0; m < q->per_cell; ++m) {
      const int64_t point = cell * q->per_cell + m;
      int64_t c[3];
      int qi[3];
      double xm[3];
      lattice_point(q, point, c, qi, xm);
      for (int d = 0; d < q->dim; ++d) {
        x[m * q->dim + d] = xm[d];
        q->u[point * 3 + d] = field_at(q, q->velocity, d, c, qi, u);
      }
      q->p[point] = field_at(q, q->pressure, -1, c, qi, p);
    }
    if (!u_exact) continue;
    const int64_t first = cell * q->per_cell;
    ierr = u_exact(ctx, q->dim, q->per_cell, x, v);
    for (int64_t m = 0; !ierr && m < q->per_cell; ++m)
      for (int d = 0; d < q->dim; ++d) q->u_exact[(first + m) * 3 + d] = v[m * q->dim + d];
    if (!ierr) ierr = p_exact(ctx, q->dim, q->per_cell, x, q->p_exact + first);
    if (ierr) ierr = ts_error_trace(ierr, __FILE__, __LINE__, "VTU output: the exact solution");
  }
  ts_free(&x);
  ts_free(&v);
  return ierr;
}

static void point_coordinates(const void *ctx, int64_t p, double *x) {
  int64_t c[3];
  int qi[3];
  lattice_point(ctx, p, c, qi, x);
}

static void discrete_velocity(const void *ctx, int64_t p, double *v) {
  memcpy(v, ((const hdiv_sampler *)ctx)->u + 3 * p, 3 * sizeof *v);
}
static void exact_velocity(const void *ctx, int64_t p, double *v) {
  memcpy(v, ((const hdiv_sampler *)ctx)->u_exact + 3 * p, 3 * sizeof *v);
}
static void velocity_error(const void *ctx, int64_t p, double *v) {
  const hdiv_sampler *q = ctx;
  for (int d = 0; d < 3; ++d) v[d] = q->u[3 * p + d] - q->u_exact[3 * p + d];
}
static void discrete_pressure(const void *ctx, int64_t p, double *v) {
  v[0] = ((const hdiv_sampler *)ctx)->p[p];
}
static void exact_pressure(const void *ctx, int64_t p, double *v) {
  v[0] = ((const hdiv_sampler *)ctx)->p_exact[p];
}
static void pressure_error(const void *ctx, int64_t p, double *v) {
  const hdiv_sampler *q = ctx;
  v[0] = q->p[p] - q->p_exact[p];
}

static const ts_vtu_field hdiv_fields[] = {
    {"velocity", 3, discrete_velocity},     {"pressure", 1, discrete_pressure},
    {"velocity_exact", 3, exact_velocity},  {"pressure_exact", 1, exact_pressure},
    {"velocity_error", 3, velocity_error},  {"pressure_error", 1, pressure_error}};

int ts_hdiv_write_vtu(const char *path, ts_dofs velocity, ts_dofs pressure, const double *u,
                      const double *p, ts_point_fn u_exact, ts_point_fn p_exact, void *ctx,
                      int subdivisions) {
  TS_CHECK_ARG(path && *path && u && p, "ts_hdiv_write_vtu: NULL or empty path or solution");
  TS_CHECK_ARG(velocity && pressure && velocity->fe->family == TS_FE_RT_IH &&
               pressure->fe->family == TS_FE_L2_IH && velocity->degree == pressure->degree,
               "ts_hdiv_write_vtu: the fields are not RT_k x DGQ_k of one degree in the "
               "interpolation-histopolation bases");
  TS_CALL(ts_dofs_require_mapped(velocity, 0, "ts_hdiv_write_vtu")); /* Cartesian cells only */
  TS_CHECK_ARG(subdivisions >= 1 && subdivisions <= TS_VTU_MAX_SUBDIVISIONS,
               "VTU output of '%s': subdivisions = %d, allowed 1..%d", path, subdivisions,
               TS_VTU_MAX_SUBDIVISIONS);
  TS_CHECK_ARG(!u_exact == !p_exact, "ts_hdiv_write_vtu: the exact velocity and pressure go "
               "together (both or neither)");
  hdiv_sampler q = {.velocity = velocity, .pressure = pressure, .dim = velocity->dim,
                    .s = subdivisions, .per_cell = 1};
  const int k = velocity->degree;
  for (int j = 0; j <= subdivisions; ++j) {
    double dl[TS_MAX_POINTS];
    const double t = (double)j / subdivisions;
    ts_lagrange_eval(k + 2, velocity->fe->normal_points, t, q.l[j], dl);
    ts_histopolation_eval(k + 2, velocity->fe->normal_points, t, q.h[j]);
  }
  ts_vtu_grid grid = {.dim = q.dim, .blocks = cell_count(velocity), .np = {1, 1, 1},
                      .point = point_coordinates, .ctx = &q, .n_fields = u_exact ? 6 : 2,
                      .fields = hdiv_fields, .scalars = "pressure", .vectors = "velocity"};
  for (int d = 0; d < q.dim; ++d) {
    grid.np[d] = subdivisions + 1;
    q.per_cell *= subdivisions + 1;
  }
  int ierr = ts_vtu_check(path, &grid);
  if (!ierr) ierr = sample(&q, u, p, u_exact, p_exact, ctx);
  if (!ierr) ierr = ts_vtu_write(path, &grid);
  double **arrays[] = {&q.u, &q.p, &q.u_exact, &q.p_exact};
  for (int i = 0; i < 4; ++i) ts_free(arrays[i]);
  return ierr;
}
