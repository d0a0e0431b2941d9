/* stokes-patch-kernel.h -- the omp backend's Stokes vertex-patch SOLVE stage, written once for
 * both precisions: stokes-patch.c includes it with REAL = double and REAL = float; FN(name)
 * names the instance.  Per patch: gather r on the patch DoFs, solve Acal_j t = r_j with the
 * local solve of lib/mg/stokes-patch-local.h (the library's host reference runs the same
 * code), x += t.  ts_stokes_patch_plan in tessera/backend.h documents the data. */
#ifndef REAL
#error "define REAL, REAL_EPSILON and FN before including stokes-patch-kernel.h"
#endif

#include "mg/stokes-patch-local.h"

/* One SOLVE pass over the patches of the color: x += R_j^T Acal_j^{+} R_j r.  Returns 0 or
 * TS_ERR_MEMORY. */
static int FN(stokes_patch_solve)(const ts_stokes_patch_plan *pl, const REAL *r, REAL *x) {
  const int dim = pl->global.dim;
  const int64_t npatch = pl->vertex_count[0] * pl->vertex_count[1] * pl->vertex_count[2];
  int failed = 0;
#pragma omp parallel reduction(| : failed) num_threads(omp_operator_threads(npatch * pl->n_local))
  {
    REAL *w = malloc(sizeof(REAL) * FN(work_entries)(pl));
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)pl->n_local);
    if (!w || !idx) failed = 1;
    FN(swork) s;
    if (!failed) FN(work_split)(pl, w, &s);
#pragma omp for schedule(dynamic)
    for (int64_t j = 0; j < npatch; ++j) {
      if (failed) continue;
      const int64_t jd[3] = {j % pl->vertex_count[0], j / pl->vertex_count[0] % pl->vertex_count[1],
                             j / (pl->vertex_count[0] * pl->vertex_count[1])};
      int64_t vertex[3] = {0, 0, 0};
      int kinds[3] = {0, 0, 0}, kind = 0;
      for (int d = 0; d < dim; ++d) {
        vertex[d] = pl->first_vertex[d] + pl->vertex_stride * jd[d];
        kinds[d] = (vertex[d] == 1 ? 1 : 0) | (vertex[d] == pl->global.cells[d] - 1 ? 2 : 0);
        kind += kinds[d] << (2 * d); /* TS_STOKES_PATCH_KINDS^d */
      }
      FN(indices)(pl, vertex, idx);
      for (int l = 0; l < pl->n_local; ++l) s.r[l] = r[idx[l]];
      if (pl->solver == TS_STOKES_PATCH_SCHUR)
        FN(schur_solve)(pl, kinds, &s);
      else
        FN(direct_solve)(pl, kind, &s);
      for (int l = 0; l < pl->n_local; ++l) x[idx[l]] += s.t[l];
    }
    free(w);
    free(idx);
  }
  return failed ? TS_ERR_MEMORY : 0;
}
