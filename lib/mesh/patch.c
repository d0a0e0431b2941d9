/* patch.c -- vertex patches of a structured box level and their coloring (paper 002,
 * section 2.2, Figure 2).  The patch of an interior vertex v (v_d = 1..cells_d-1) is the
 * 2^dim cells sharing it.  Color c has bit d equal to the parity of v_d - 1: patches of one
 * color are 2 cells apart in every direction where they differ, so their interiors are
 * disjoint and no interior DoF of one lies in the closed patch of another; sweeping the
 * colors in the order 0, 1, ..., 2^dim - 1 shifts the parqueting by one cell at a time. */
#include "../tessera-impl.h"

int ts_vertex_patch_color_count(int dim) { return 1 << dim; }

int64_t ts_vertex_patch_count(int dim, const int64_t *cells) {
  int64_t count = 1;
  for (int d = 0; d < dim; ++d) count *= cells[d] > 1 ? cells[d] - 1 : 0;
  return count;
}

int ts_vertex_patch_color(int dim, const int64_t *cells, int color, int64_t *first,
                          int64_t *count, int *stride) {
  TS_CHECK_ARG(dim == 2 || dim == 3, "vertex patches: dim = %d, allowed 2 or 3", dim);
  TS_CHECK_ARG(color >= 0 && color < (1 << dim), "vertex patches: color %d, allowed 0..%d",
               color, (1 << dim) - 1);
  for (int d = 0; d < 3; ++d) {
    if (d >= dim) {
      first[d] = 0;
      count[d] = 1;
      continue;
    }
    TS_CHECK_ARG(cells[d] >= 1, "vertex patches: cells[%d] = %lld, need at least 1", d,
                 (long long)cells[d]);
    const int bit = (color >> d) & 1;
    first[d] = 1 + bit;
    count[d] = (cells[d] - bit) / 2; /* vertices first, first + 2, ... <= cells - 1 */
  }
  *stride = 2;
  return 0;
}
