/* mapped.c -- mapped meshes: the image of the unit box [0,1]^dim under a map x = phi(xi),
 * refined in the reference box.  A user map (a ts_point_fn with its context), the
 * multilinear map of a vertex array, and the built-in maps: Kershaw's mesh, a sinusoidal
 * distortion, an annulus / shell sector.  The geometry a level's cells get from the map
 * (its Q_k interpolant, or the multilinear one) is sampled in geometry.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tessera-impl.h"

static const double pi = 3.14159265358979323846;

int ts_mesh_create_mapped(int dim, const int *coarse, int levels, ts_point_fn map, void *ctx,
                          ts_geometry geometry, ts_mesh *mesh) {
  TS_CHECK_NOT_NULL(mesh);
  *mesh = NULL;
  TS_CHECK_NOT_NULL(map);
  TS_CHECK_ARG(geometry == TS_GEOMETRY_QK || geometry == TS_GEOMETRY_MULTILINEAR,
               "mapped mesh: geometry = %d, allowed TS_GEOMETRY_QK (0) or TS_GEOMETRY_MULTILINEAR (1)",
               (int)geometry);
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  TS_CALL(ts_mesh_create_box(dim, lower, upper, coarse, levels, mesh));
  (*mesh)->map = map;
  (*mesh)->map_ctx = ctx;
  (*mesh)->geometry = geometry;
  return 0;
}

int ts_mesh_is_mapped(ts_mesh mesh) {
  TS_GETTER_NOT_NULL(mesh, -1);
  return mesh->map != NULL;
}

/* A built-in map: ctx is the mesh, its parameters in map_params. */
static int create_builtin(int dim, const int *coarse, int levels, ts_point_fn map, ts_geometry geometry,
                          const double *params, ts_mesh *mesh) {
  TS_CALL(ts_mesh_create_mapped(dim, coarse, levels, map, NULL, geometry, mesh));
  (*mesh)->map_ctx = *mesh;
  memcpy((*mesh)->map_params, params, sizeof (*mesh)->map_params);
  return 0;
}

/* ---------------------------------------------------------------- vertices */

/* The multilinear interpolant of the level-0 vertices: xi in coarse cell c at local
 * coordinates t, x = sum over the cell's 2^dim vertices v of prod_d (v_d ? t_d : 1 - t_d) X_v. */
static int map_vertices(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  const struct ts_mesh_s *m = ctx;
  for (int64_t p = 0; p < count; ++p) {
    int64_t c[3] = {0, 0, 0};
    double t[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) {
      const double s = xi[p * dim + d] * m->coarse[d];
      c[d] = s >= m->coarse[d] ? m->coarse[d] - 1 : (int64_t)s;
      t[d] = s - (double)c[d];
    }
    for (int i = 0; i < dim; ++i) x[p * dim + i] = 0.0;
    for (int v = 0; v < (1 << dim); ++v) {
      double w = 1.0;
      int64_t index = 0, stride = 1;
      for (int d = 0; d < dim; ++d) {
        const int bit = (v >> d) & 1;
        w *= bit ? t[d] : 1.0 - t[d];
        index += (c[d] + bit) * stride;
        stride *= m->coarse[d] + 1;
      }
      for (int i = 0; i < dim; ++i) x[p * dim + i] += w * m->vertices[index * dim + i];
    }
  }
  return 0;
}

int ts_mesh_create_vertices(int dim, const int *coarse, int levels, const double *vertices,
                            ts_mesh *mesh) {
  TS_CHECK_NOT_NULL(mesh);
  *mesh = NULL;
  TS_CHECK_NOT_NULL(vertices);
  const double none[3] = {0, 0, 0};
  TS_CALL(create_builtin(dim, coarse, levels, map_vertices, TS_GEOMETRY_MULTILINEAR, none, mesh));
  int64_t count = 1;
  for (int d = 0; d < dim; ++d) count *= coarse[d] + 1;
  for (int64_t v = 0; v < count * dim; ++v)
    if (!isfinite(vertices[v])) {
      ts_mesh_destroy(mesh);
      return TS_ERROR(TS_ERR_ARG, "mesh from vertices: vertices[%lld] (coordinate %d of vertex %lld) "
                      "= %g, must be finite", (long long)v, (int)(v % dim), (long long)(v / dim),
                      vertices[v]);
    }
  int ierr = ts_calloc((size_t)(count * dim), sizeof(double), "mesh vertices", &(*mesh)->vertices);
  if (ierr) {
    ts_mesh_destroy(mesh);
    return ierr;
  }
  memcpy((*mesh)->vertices, vertices, sizeof(double) * (size_t)(count * dim));
  return 0;
}

/* ---------------------------------------------------------------- Kershaw */

/* The 1D maps of Kershaw's mesh at the right and left ends of the x_0 range: piecewise
 * linear with a kink at 1/2 (eps = 1: the identity). */
static double kershaw_right(double eps, double y) { return y <= 0.5 ? (2.0 - eps) * y : 1.0 + eps * (y - 1.0); }
static double kershaw_left(double eps, double y) { return 1.0 - kershaw_right(eps, 1.0 - y); }

/* Coordinate y (d >= 1) at x_0: the x_0 range has six layers, going from the left map to
 * the left, left to right, right to left (two layers), left to right, right to right. */
static double kershaw_coordinate(double eps, double x0, double y) {
  int layer = (int)(6.0 * x0);
  if (layer > 5) layer = 5;
  const double t = 6.0 * x0 - layer, l = kershaw_left(eps, y), r = kershaw_right(eps, y);
  switch (layer) {
    case 0: return l;
    case 1:
    case 4: return l + (r - l) * t;
    case 2: return r + (l - r) * (t / 2.0);
    case 3: return r + (l - r) * ((1.0 + t) / 2.0);
    default: return r;
  }
}

static int map_kershaw(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  const double eps = ((const struct ts_mesh_s *)ctx)->map_params[0];
  for (int64_t p = 0; p < count; ++p) {
    const double *s = xi + p * dim;
    x[p * dim] = s[0];
    for (int d = 1; d < dim; ++d) x[p * dim + d] = kershaw_coordinate(eps, s[0], s[d]);
  }
  return 0;
}

int ts_mesh_create_kershaw(int dim, const int *coarse, int levels, double epsilon, ts_mesh *mesh) {
  TS_CHECK_NOT_NULL(mesh);
  *mesh = NULL;
  TS_CHECK_NOT_NULL(coarse);
  TS_CHECK_ARG(epsilon > 0.0 && epsilon <= 1.0, "Kershaw mesh: epsilon = %g, allowed (0, 1]", epsilon);
  TS_CHECK_ARG(dim == 2 || dim == 3, "mesh: dim = %d, allowed 2 or 3", dim);
  TS_CHECK_ARG(coarse[0] >= 6 && coarse[0] % 6 == 0,
               "Kershaw mesh: cells[0] = %d, must be a multiple of 6 (the map's kinks at x_0 = j/6)",
               coarse[0]);
  for (int d = 1; d < dim; ++d)
    TS_CHECK_ARG(coarse[d] >= 2 && coarse[d] % 2 == 0,
                 "Kershaw mesh: cells[%d] = %d, must be a multiple of 2 (the map's kink at x_%d = 1/2)",
                 d, coarse[d], d);
  const double params[3] = {epsilon, 0, 0};
  return create_builtin(dim, coarse, levels, map_kershaw, TS_GEOMETRY_MULTILINEAR, params, mesh);
}

/* ---------------------------------------------------------------- sine */

static int map_sine(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  const double a = ((const struct ts_mesh_s *)ctx)->map_params[0];
  for (int64_t p = 0; p < count; ++p) {
    double s = a;
    for (int d = 0; d < dim; ++d) s *= ts_sin_pi(2.0 * xi[p * dim + d]);
    for (int d = 0; d < dim; ++d) x[p * dim + d] = xi[p * dim + d] + s;
  }
  return 0;
}

int ts_mesh_create_sine(int dim, const int *coarse, int levels, double amplitude, ts_mesh *mesh) {
  TS_CHECK_NOT_NULL(mesh);
  *mesh = NULL;
  /* J = I + a 1 grad(prod sin)^T: det J = 1 + a sum_d d/dxi_d prod sin >= 1 - |a| 2 pi dim */
  const double bound = 1.0 / (2.0 * pi * (dim == 3 ? 3 : 2));
  TS_CHECK_ARG(fabs(amplitude) < bound, "sine mesh: amplitude = %g, allowed |amplitude| < 1/(2 pi dim) = %g",
               amplitude, bound);
  const double params[3] = {amplitude, 0, 0};
  return create_builtin(dim, coarse, levels, map_sine, TS_GEOMETRY_QK, params, mesh);
}

/* ---------------------------------------------------------------- shell */

static int map_shell(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  const double *prm = ((const struct ts_mesh_s *)ctx)->map_params; /* inner, outer, angle */
  for (int64_t p = 0; p < count; ++p) {
    const double *s = xi + p * dim;
    const double r = prm[0] + (prm[1] - prm[0]) * s[0];
    double v[3] = {1.0, 0.0, 0.0}, norm2 = 1.0;
    for (int d = 1; d < dim; ++d) {
      v[d] = tan(prm[2] * (s[d] - 0.5));
      norm2 += v[d] * v[d];
    }
    const double scale = r / sqrt(norm2);
    for (int d = 0; d < dim; ++d) x[p * dim + d] = scale * v[d];
  }
  return 0;
}

int ts_mesh_create_shell(int dim, const int *coarse, int levels, double inner, double outer,
                         double angle, ts_mesh *mesh) {
  TS_CHECK_NOT_NULL(mesh);
  *mesh = NULL;
  TS_CHECK_ARG(inner > 0.0 && isfinite(outer) && outer > inner,
               "shell mesh: inner = %g and outer = %g radii, need 0 < inner < outer (finite)", inner, outer);
  TS_CHECK_ARG(angle > 0.0 && angle < pi, "shell mesh: angle = %g, allowed (0, pi) radians", angle);
  const double params[3] = {inner, outer, angle};
  return create_builtin(dim, coarse, levels, map_shell, TS_GEOMETRY_QK, params, mesh);
}
