/* box.c -- structured box meshes: [lower, upper] in 2D or 3D with coarse[d] cells per
 * direction on level 0 and `levels` uniform refinements; everything else is arithmetic. */
#include <stdlib.h>
#include "../tessera-impl.h"

int ts_box_extent_ok(double lower, double upper) {
  const double extent = upper - lower; /* NaN or infinite if either is */
  return extent >= TS_BOX_MIN_EXTENT && extent <= TS_BOX_MAX_EXTENT;
}

int ts_mesh_create_box(int dim, const double *lower, const double *upper, const int *coarse,
                       int levels, ts_mesh *mesh) {
  TS_CHECK_NOT_NULL(mesh);
  *mesh = NULL;
  TS_CHECK_NOT_NULL(lower);
  TS_CHECK_NOT_NULL(upper);
  TS_CHECK_NOT_NULL(coarse);
  TS_CHECK_ARG(dim == 2 || dim == 3, "mesh: dim = %d, allowed 2 or 3", dim);
  TS_CHECK_ARG(levels >= 0 && levels <= 30, "mesh: levels = %d, allowed 0..30", levels);
  for (int d = 0; d < dim; ++d) {
    TS_CHECK_ARG(ts_box_extent_ok(lower[d], upper[d]),
                 "mesh: direction %d has lower = %g and upper = %g; need upper - lower from %g "
                 "to %g", d, lower[d], upper[d], TS_BOX_MIN_EXTENT, TS_BOX_MAX_EXTENT);
    TS_CHECK_ARG(coarse[d] >= 1, "mesh: cells[%d] = %d, need at least 1", d, coarse[d]);
  }
  ts_mesh m;
  TS_CALL(ts_calloc(1, sizeof *m, "mesh", &m));
  m->dim = dim;
  m->levels = levels;
  for (int d = 0; d < 3; ++d) {
    m->lower[d] = d < dim ? lower[d] : 0.0;
    m->upper[d] = d < dim ? upper[d] : 1.0;
    m->coarse[d] = d < dim ? coarse[d] : 1;
  }
  *mesh = m;
  return 0;
}

int ts_mesh_destroy(ts_mesh *mesh) {
  if (mesh && *mesh) ts_free(&(*mesh)->vertices);
  if (mesh) ts_free(mesh);
  return 0;
}

int ts_mesh_dim(ts_mesh mesh) {
  TS_GETTER_NOT_NULL(mesh, -1);
  return mesh->dim;
}

int ts_mesh_finest_level(ts_mesh mesh) {
  TS_GETTER_NOT_NULL(mesh, -1);
  return mesh->levels;
}

const double *ts_mesh_lower(ts_mesh mesh) {
  TS_GETTER_NOT_NULL(mesh, NULL);
  return mesh->lower;
}

const double *ts_mesh_upper(ts_mesh mesh) {
  TS_GETTER_NOT_NULL(mesh, NULL);
  return mesh->upper;
}

int ts_mesh_cells(ts_mesh mesh, int level, int64_t *cells) {
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(cells);
  TS_CHECK_ARG(level >= 0 && level <= mesh->levels, "mesh: level %d requested, the mesh has 0..%d",
               level, mesh->levels);
  for (int d = 0; d < mesh->dim; ++d) cells[d] = (int64_t)mesh->coarse[d] << level;
  return 0;
}

int ts_mesh_cell_size(ts_mesh mesh, int level, double *h) {
  int64_t cells[3];
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(h);
  TS_CALL(ts_mesh_cells(mesh, level, cells));
  for (int d = 0; d < mesh->dim; ++d) h[d] = (mesh->upper[d] - mesh->lower[d]) / (double)cells[d];
  return 0;
}
