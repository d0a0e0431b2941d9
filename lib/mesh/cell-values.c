/* cell-values.c -- values per cell of a level (coefficients): read from a raw file, and
 * averaged onto the next coarser level (a coarse cell's value is the mean of its 2^dim
 * children's: the coefficients of rediscretized multigrid levels and of a study's coarser
 * levels). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../tessera-impl.h"

/* The double of 8 little-endian bytes, on any host. */
static double little_endian_double(const unsigned char *b) {
  uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = bits << 8 | b[i];
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

int ts_cell_values_read(const char *path, int64_t count, int components, double *values) {
  TS_CHECK_NOT_NULL(path);
  TS_CHECK_NOT_NULL(values);
  TS_CHECK_ARG(count > 0 && components >= 1 && components <= 6, "ts_cell_values_read: count = "
               "%lld and components = %d, allowed count > 0 and 1..6 components", (long long)count,
               components);
  FILE *f = fopen(path, "rb");
  if (!f) return TS_ERROR(TS_ERR_IO, "cannot open the cell values '%s': %s", path, strerror(errno));
  const int64_t expected = count * components * 8;
  int64_t size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size != expected) {
    fclose(f);
    return TS_ERROR(TS_ERR_IO, "the cell values '%s' hold %lld bytes, expected %lld: %lld cells x "
                    "%d value%s x 8 bytes (raw little-endian doubles, cells numbered c_0 + "
                    "cells_0 (c_1 + cells_1 c_2))", path, (long long)size, (long long)expected,
                    (long long)count, components, components == 1 ? "" : "s");
  }
  rewind(f);
  unsigned char buffer[8 * 512];
  int ierr = 0;
  for (int64_t done = 0, n = count * components; done < n && !ierr; done += 512) {
    const size_t chunk = (size_t)(n - done < 512 ? n - done : 512);
    if (fread(buffer, 8, chunk, f) != chunk) {
      ierr = TS_ERROR(TS_ERR_IO, "reading the cell values '%s' failed at value %lld", path,
                      (long long)done);
      break;
    }
    for (size_t i = 0; i < chunk && !ierr; ++i) {
      values[done + (int64_t)i] = little_endian_double(buffer + 8 * i);
      if (!isfinite(values[done + (int64_t)i]))
        ierr = TS_ERROR(TS_ERR_ARG, "the cell values '%s': value %d of cell %lld is %g, not a "
                        "finite number", path, (int)((done + (int64_t)i) % components),
                        (long long)((done + (int64_t)i) / components), values[done + (int64_t)i]);
    }
  }
  fclose(f);
  return ierr;
}

void ts_cell_values_coarsen(int dim, const int64_t *fine_cells, int components, const double *fine,
                            double *coarse) {
  const int64_t nx = fine_cells[0] / 2, ny = fine_cells[1] / 2, nz = dim == 3 ? fine_cells[2] / 2 : 1;
  const int children = 1 << dim;
#pragma omp parallel for
  for (int64_t c = 0; c < nx * ny * nz; ++c) {
    const int64_t i = c % nx, j = c / nx % ny, k = c / nx / ny;
    for (int q = 0; q < components; ++q) {
      double sum = 0;
      for (int child = 0; child < children; ++child) {
        const int64_t fi = 2 * i + (child & 1), fj = 2 * j + (child >> 1 & 1), fk = 2 * k + (child >> 2 & 1);
        sum += fine[(fi + fine_cells[0] * (fj + fine_cells[1] * fk)) * components + q];
      }
      coarse[c * components + q] = sum / children;
    }
  }
}
