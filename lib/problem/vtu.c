/* vtu.c -- VTK XML unstructured-grid output (.vtu, opened by ParaView and VisIt).  A high-
 * order field is sampled on a lattice of `subdivisions` sub-cells per cell and direction;
 * the lattice points on cell faces are shared, so the output is as continuous as the field.
 * The file is written to PATH.tmp and renamed, so a failed write leaves nothing half-done. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tessera-impl.h"

typedef struct lattice {
  int dim, s;
  int64_t np[3];                /* points per direction */
  int64_t n_points, n_cells;
} lattice;

static void lattice_init(ts_dofs dofs, int s, lattice *l) {
  l->dim = dofs->dim;
  l->s = s;
  l->n_points = l->n_cells = 1;
  for (int d = 0; d < 3; ++d) {
    l->np[d] = d < dofs->dim ? dofs->cells[d] * s + 1 : 1;
    l->n_points *= l->np[d];
    if (d < dofs->dim) l->n_cells *= dofs->cells[d] * s;
  }
}

/* Value of the finite element function at lattice point (j0,j1,j2): in the cell that
 * contains it, a tensor product of 1D Lagrange values tabulated for the s+1 positions. */
static double field_at(ts_dofs dofs, const double *values, const double *basis, int s,
                       const int64_t *j) {
  const int n1 = dofs->degree + 1;
  int64_t cell[3] = {0, 0, 0}, idx[TS_MAX_CELL_DOFS];
  int local[3] = {0, 0, 0};
  for (int d = 0; d < dofs->dim; ++d) {
    cell[d] = j[d] / s;
    if (cell[d] == dofs->cells[d]) cell[d] -= 1;
    local[d] = (int)(j[d] - cell[d] * s);
  }
  ts_cell_dof_indices(dofs, cell, idx);
  double v = 0.0;
  int m = 0;
  const int n2 = dofs->dim == 3 ? n1 : 1;
  for (int a2 = 0; a2 < n2; ++a2)
    for (int a1 = 0; a1 < n1; ++a1)
      for (int a0 = 0; a0 < n1; ++a0, ++m) {
        double w = basis[local[0] * n1 + a0] * basis[local[1] * n1 + a1];
        if (dofs->dim == 3) w *= basis[local[2] * n1 + a2];
        v += w * values[idx[m]];
      }
  return v;
}

static void point_coordinates(ts_dofs dofs, int s, const int64_t *j, double *x) {
  x[2] = 0.0;
  for (int d = 0; d < dofs->dim; ++d) x[d] = dofs->lower[d] + dofs->h[d] * (double)j[d] / s;
}

static void lattice_index(const lattice *l, int64_t p, int64_t *j) {
  j[0] = p % l->np[0];
  j[1] = (p / l->np[0]) % l->np[1];
  j[2] = p / (l->np[0] * l->np[1]);
}

static void write_points(FILE *f, ts_dofs dofs, const lattice *l) {
  fprintf(f, "      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (int64_t p = 0; p < l->n_points; ++p) {
    int64_t j[3];
    double x[3];
    lattice_index(l, p, j);
    point_coordinates(dofs, l->s, j, x);
    fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
  }
  fprintf(f, "        </DataArray>\n      </Points>\n");
}

/* Hexahedra (VTK type 12) or quadrilaterals (type 9) of the lattice, VTK vertex order. */
static void write_cells(FILE *f, const lattice *l) {
  const int nv = l->dim == 3 ? 8 : 4;
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int64_t nc[3] = {l->np[0] - 1, l->np[1] - 1, l->dim == 3 ? l->np[2] - 1 : 1};
  fprintf(f, "      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (int64_t c2 = 0; c2 < nc[2]; ++c2)
    for (int64_t c1 = 0; c1 < nc[1]; ++c1)
      for (int64_t c0 = 0; c0 < nc[0]; ++c0) {
        for (int v = 0; v < nv; ++v)
          fprintf(f, "%lld ", (long long)((c0 + corner[v][0]) +
                                         l->np[0] * ((c1 + corner[v][1]) + l->np[1] * (c2 + corner[v][2]))));
        fputc('\n', f);
      }
  fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (int64_t c = 1; c <= l->n_cells; ++c) fprintf(f, "%lld\n", (long long)(c * nv));
  fprintf(f, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (int64_t c = 0; c < l->n_cells; ++c) fprintf(f, "%d\n", l->dim == 3 ? 12 : 9);
  fprintf(f, "        </DataArray>\n      </Cells>\n");
}

/* field: 0 = solution, 1 = exact, 2 = error (solution - exact). */
static void write_field(FILE *f, ts_dofs dofs, const lattice *l, const double *values,
                        const double *basis, const ts_solution *u, int field) {
  static const char *const names[] = {"solution", "exact", "error"};
  fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" format=\"ascii\">\n", names[field]);
  for (int64_t p = 0; p < l->n_points; ++p) {
    int64_t j[3];
    double x[3], v = 0.0;
    lattice_index(l, p, j);
    if (field != 1) v = field_at(dofs, values, basis, l->s, j);
    if (field != 0) {
      point_coordinates(dofs, l->s, j, x);
      v += (field == 2 ? -1.0 : 1.0) * u->value(dofs->dim, x);
    }
    fprintf(f, "%.17g\n", v);
  }
  fprintf(f, "        </DataArray>\n");
}

int ts_write_vtu(const char *path, ts_dofs dofs, const double *values, const ts_solution *u,
                 int subdivisions) {
  lattice l;
  double basis[17 * (TS_MAX_DEGREE + 1)], positions[17];
  char tmp[1100];
  TS_CHECK_ARG(path && *path && dofs && values, "ts_write_vtu: NULL or empty argument");
  TS_CALL(ts_dofs_require_q(dofs, "ts_write_vtu"));
  TS_CHECK_ARG(subdivisions >= 1 && subdivisions <= 16,
               "VTU output: subdivisions = %d, allowed 1..16", subdivisions);
  TS_CHECK_ARG(strlen(path) < 1024, "VTU output: path is longer than 1023 characters");
  for (int i = 0; i <= subdivisions; ++i) positions[i] = (double)i / subdivisions;
  ts_lagrange_tabulate(dofs->degree + 1, dofs->fe->points, subdivisions + 1, positions, basis, NULL);
  lattice_init(dofs, subdivisions, &l);

  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return TS_ERROR(TS_ERR_IO, "VTU output: cannot open '%s' for writing: %s", tmp, strerror(errno));
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n");
  fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n", (long long)l.n_points,
          (long long)l.n_cells);
  write_points(f, dofs, &l);
  write_cells(f, &l);
  fprintf(f, "      <PointData Scalars=\"solution\">\n");
  for (int field = 0; field < (u ? 3 : 1); ++field) write_field(f, dofs, &l, values, basis, u, field);
  fprintf(f, "      </PointData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
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
