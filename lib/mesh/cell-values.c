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

/* ---------------------------------------------------------------- generated fields */

/* splitmix64: the next pseudo-random 64 bits of the state, and a uniform double in [0, 1) */
static uint64_t next_bits(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform(uint64_t *state) { return (double)(next_bits(state) >> 11) * 0x1.0p-53; }

#define LOGNORMAL_MODES 48

/* G at the cell centre t (in [0,1]^dim): the sum of the random cosine modes (wave numbers up
 * to 12 across, up to 24 along the last direction: layered like SPE10's z), amplitude 1/|k|,
 * plus white noise of weight 1/2 per cell */
static double gaussian_field(int dim, const double *t, const double (*modes)[5], double noise) {
  double g = 0.0;
  for (int m = 0; m < LOGNORMAL_MODES; ++m) {
    double phase = modes[m][4];
    for (int d = 0; d < dim; ++d) phase += 2.0 * M_PI * modes[m][d] * t[d];
    g += modes[m][3] * cos(phase);
  }
  return g + 0.5 * noise;
}

int ts_cell_values_lognormal(int dim, const int64_t *cells, double contrast, uint64_t seed,
                             double *values) {
  TS_CHECK_NOT_NULL(cells);
  TS_CHECK_NOT_NULL(values);
  TS_CHECK_ARG(dim == 2 || dim == 3, "ts_cell_values_lognormal: dim = %d, allowed 2 or 3", dim);
  for (int d = 0; d < dim; ++d)
    TS_CHECK_ARG(cells[d] >= 1, "ts_cell_values_lognormal: cells[%d] = %lld, at least 1 required",
                 d, (long long)cells[d]);
  TS_CHECK_ARG(isfinite(contrast) && contrast > 1.0, "ts_cell_values_lognormal: contrast = %g, a "
               "finite number > 1 is required", contrast);
  double modes[LOGNORMAL_MODES][5];
  uint64_t state = seed;
  for (int m = 0; m < LOGNORMAL_MODES; ++m) {
    double k2 = 0.0;
    for (int d = 0; d < 3; ++d) {
      modes[m][d] = d < dim ? floor(uniform(&state) * (d == dim - 1 ? 25.0 : 13.0)) : 0.0;
      k2 += modes[m][d] * modes[m][d];
    }
    modes[m][3] = 1.0 / sqrt(1.0 + k2);
    modes[m][4] = 2.0 * M_PI * uniform(&state);
  }
  const int64_t n = cells[0] * cells[1] * (dim == 3 ? cells[2] : 1);
  double lo = INFINITY, hi = -INFINITY;
  int64_t c = 0, a[3] = {0, 0, 0};
  for (a[2] = 0; a[2] < (dim == 3 ? cells[2] : 1); ++a[2])
    for (a[1] = 0; a[1] < cells[1]; ++a[1])
      for (a[0] = 0; a[0] < cells[0]; ++a[0], ++c) {
        double t[3];
        for (int d = 0; d < dim; ++d) t[d] = ((double)a[d] + 0.5) / (double)cells[d];
        /* a standard normal per cell by Box-Muller */
        const double radius = sqrt(-2.0 * log(1.0 - uniform(&state)));
        const double noise = radius * cos(2.0 * M_PI * uniform(&state));
        values[c] = gaussian_field(dim, t, (const double(*)[5])modes, noise);
        lo = fmin(lo, values[c]);
        hi = fmax(hi, values[c]);
      }
  /* log K = s (G - mid): the extremes exactly contrast apart */
  const double s = log(contrast) / (hi - lo), mid = 0.5 * (lo + hi);
  for (c = 0; c < n; ++c) values[c] = exp(s * (values[c] - mid));
  return 0;
}

/* Is the point in the crooked pipe (ts_cell_values_crooked_pipe's geometry)? */
static int in_crooked_pipe(int dim, const double *x) {
  if (dim == 3 && x[2] >= 0.5) return 0;
  if (x[0] < 2.5 || x[0] > 4.5) return x[1] < 0.5;
  if (x[0] <= 3.0 || x[0] >= 4.0) return x[1] < 1.5;
  return x[1] >= 1.0 && x[1] < 1.5;
}

int ts_cell_values_crooked_pipe(ts_mesh mesh, int level, double inside, double outside,
                                double *values) {
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(values);
  int64_t cells[3] = {1, 1, 1};
  double h[3] = {0, 0, 0};
  TS_CALL(ts_mesh_cells(mesh, level, cells));
  TS_CALL(ts_mesh_cell_size(mesh, level, h));
  const int dim = ts_mesh_dim(mesh);
  const double *lower = ts_mesh_lower(mesh);
  int64_t c = 0, a[3] = {0, 0, 0};
  for (a[2] = 0; a[2] < cells[2]; ++a[2])
    for (a[1] = 0; a[1] < cells[1]; ++a[1])
      for (a[0] = 0; a[0] < cells[0]; ++a[0], ++c) {
        double x[3];
        for (int d = 0; d < dim; ++d) x[d] = lower[d] + h[d] * ((double)a[d] + 0.5);
        values[c] = in_crooked_pipe(dim, x) ? inside : outside;
      }
  return 0;
}
