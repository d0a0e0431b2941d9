/* vtu-file.h -- the VTK XML unstructured-grid file (.vtu; and .pvtu, the index of a
 * distributed output) that the writers of Q_k (vtu.c),
 * RT_k x DGQ_k (stokes-vtu.c) and Taylor-Hood (taylor-hood-vtu.c) solutions fill, and the
 * lattice sampling of Q_k functions; private to lib/problem. */
#ifndef TESSERA_VTU_FILE_H
#define TESSERA_VTU_FILE_H

#include "../tessera-impl.h"

/** A point-data array: `components` (1: a scalar, 3: a vector) values at point p. */
typedef struct ts_vtu_field {
  const char *name;
  int components;
  void (*value)(const void *ctx, int64_t p, double *v);
} ts_vtu_field;

/** The points are `blocks` lattices one after the other, each of np[0] x np[1] (x np[2])
 *  points (lexicographic, index 0 fastest; np[d] = 1 beyond dim), cut into the
 *  quadrilaterals or hexahedra between neighbouring points of a lattice: one lattice over
 *  the whole box for a continuous field, one per cell (points on shared faces repeated) for
 *  a discontinuous one. */
typedef struct ts_vtu_grid {
  int dim;
  int64_t blocks, np[3];
  void (*point)(const void *ctx, int64_t p, double *x); /* coordinates x[0..2] of point p */
  const void *ctx;
  int n_fields;
  const ts_vtu_field *fields;
  const char *scalars, *vectors; /* the active scalar and vector arrays (NULL: none) */
} ts_vtu_grid;

/** Write the grid and its fields to path: first to a new temporary file of a random name
 *  in the same directory (created exclusively, never through a symlink, mode 0666 less the
 *  umask), renamed over path when complete, so a failed write leaves nothing and path is
 *  untouched (TS_ERR_IO naming path).  Refused (TS_ERR_IO naming both sizes) before writing
 *  anything if ts_vtu_size_bound exceeds ts_max_output_size(). */
int ts_vtu_write(const char *path, const ts_vtu_grid *grid);

/** The index of a parallel output (.pvtu: PUnstructuredGrid) at path, written as ts_vtu_write
 *  writes: the point-data arrays of grid (its fields; the callbacks are not called) and the
 *  n_pieces .vtu files that hold them, by their names relative to path's directory. */
int ts_vtu_write_index(const char *path, const ts_vtu_grid *grid, int n_pieces,
                       const char *const *pieces);

/** An upper bound of the bytes ts_vtu_write writes for the grid: its geometry and the
 *  components of its fields (the callbacks are not called). */
double ts_vtu_size_bound(const ts_vtu_grid *grid);

/** What ts_vtu_write would refuse, checked before the grid's values exist (before a solve):
 *  the size bound above the limit, path an existing directory, or a directory in which no
 *  new file can be created (tried with a temporary file, removed at once).  TS_ERR_IO
 *  naming path and the reason. */
int ts_vtu_check(const char *path, const ts_vtu_grid *grid);

/** The most sub-cells per cell and direction a writer samples. */
#define TS_VTU_MAX_SUBDIVISIONS 16

/** A Q_k function's values on the lattice of s sub-cells per cell and direction over the
 *  whole box (np[d] = cells[d] s + 1 points, index 0 fastest; vtu.c): the k+1 Lagrange
 *  functions tabulated at the s+1 positions in a cell. */
typedef struct ts_q_lattice {
  ts_dofs dofs;
  int s;
  int64_t np[3];
  double basis[(TS_VTU_MAX_SUBDIVISIONS + 1) * (TS_MAX_DEGREE + 1)];
} ts_q_lattice;
/** The lattice of dofs' cells with `subdivisions` (1..TS_VTU_MAX_SUBDIVISIONS: TS_ERR_ARG). */
int ts_q_lattice_init(ts_dofs dofs, int subdivisions, ts_q_lattice *l);
/** The value at lattice point p of the Q_k function data[i * stride + c] (i its DoF). */
double ts_q_lattice_value(const ts_q_lattice *l, int64_t p, const double *data, int stride,
                          int c);
/** The coordinates x[0..2] of lattice point p (a mapped mesh's geometry interpolated there). */
void ts_q_lattice_point(const ts_q_lattice *l, int64_t p, double *x);

#endif
