/* vtu-file.c -- VTK XML unstructured-grid output (.vtu, opened by ParaView and VisIt): the
 * points of one or more lattices, the quadrilaterals or hexahedra between them, and the
 * point data, in ASCII.  The file is written to PATH.tmp and renamed, so a failed write
 * leaves nothing half-done. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "vtu-file.h"

static int64_t points_per_block(const ts_vtu_grid *g) { return g->np[0] * g->np[1] * g->np[2]; }

static int64_t cells_per_block(const ts_vtu_grid *g) {
  int64_t n = 1;
  for (int d = 0; d < g->dim; ++d) n *= g->np[d] - 1;
  return n;
}

static void write_points(FILE *f, const ts_vtu_grid *g) {
  const int64_t n = g->blocks * points_per_block(g);
  fprintf(f, "      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (int64_t p = 0; p < n; ++p) {
    double x[3];
    g->point(g->ctx, p, x);
    fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
  }
  fprintf(f, "        </DataArray>\n      </Points>\n");
}

/* Hexahedra (VTK type 12) or quadrilaterals (type 9) of each lattice, VTK vertex order. */
static void write_cells(FILE *f, const ts_vtu_grid *g) {
  const int nv = g->dim == 3 ? 8 : 4;
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int64_t *np = g->np, nc[3] = {np[0] - 1, np[1] - 1, g->dim == 3 ? np[2] - 1 : 1};
  const int64_t n_cells = g->blocks * cells_per_block(g);
  fprintf(f, "      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (int64_t b = 0; b < g->blocks; ++b)
    for (int64_t c2 = 0; c2 < nc[2]; ++c2)
      for (int64_t c1 = 0; c1 < nc[1]; ++c1)
        for (int64_t c0 = 0; c0 < nc[0]; ++c0) {
          for (int v = 0; v < nv; ++v)
            fprintf(f, "%lld ", (long long)(b * points_per_block(g) + (c0 + corner[v][0]) +
                                           np[0] * ((c1 + corner[v][1]) + np[1] * (c2 + corner[v][2]))));
          fputc('\n', f);
        }
  fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (int64_t c = 1; c <= n_cells; ++c) fprintf(f, "%lld\n", (long long)(c * nv));
  fprintf(f, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (int64_t c = 0; c < n_cells; ++c) fprintf(f, "%d\n", g->dim == 3 ? 12 : 9);
  fprintf(f, "        </DataArray>\n      </Cells>\n");
}

static void write_field(FILE *f, const ts_vtu_grid *g, const ts_vtu_field *field) {
  const int64_t n = g->blocks * points_per_block(g);
  fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
          field->name, field->components);
  for (int64_t p = 0; p < n; ++p) {
    double v[3];
    field->value(g->ctx, p, v);
    for (int c = 0; c < field->components; ++c)
      fprintf(f, "%.17g%c", v[c], c + 1 < field->components ? ' ' : '\n');
  }
  fprintf(f, "        </DataArray>\n");
}

static void write_grid(FILE *f, const ts_vtu_grid *g) {
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n");
  fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n",
          (long long)(g->blocks * points_per_block(g)), (long long)(g->blocks * cells_per_block(g)));
  write_points(f, g);
  write_cells(f, g);
  fprintf(f, "      <PointData");
  if (g->scalars) fprintf(f, " Scalars=\"%s\"", g->scalars);
  if (g->vectors) fprintf(f, " Vectors=\"%s\"", g->vectors);
  fprintf(f, ">\n");
  for (int i = 0; i < g->n_fields; ++i) write_field(f, g, &g->fields[i]);
  fprintf(f, "      </PointData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
}

int ts_vtu_write(const char *path, const ts_vtu_grid *grid) {
  char tmp[1100];
  TS_CHECK_ARG(strlen(path) < 1024, "VTU output: path is longer than 1023 characters");
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return TS_ERROR(TS_ERR_IO, "VTU output: cannot open '%s' for writing: %s", tmp, strerror(errno));
  write_grid(f, grid);
  const int write_failed = ferror(f);
  if (fclose(f) != 0 || write_failed) {
    remove(tmp);
    return TS_ERROR(TS_ERR_IO, "VTU output: writing '%s' failed (disk full?)", tmp);
  }
  if (rename(tmp, path) != 0) {
    const int e = errno;
    remove(tmp);
    return TS_ERROR(TS_ERR_IO, "VTU output: cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
  }
  return 0;
}
