/* stokes-patch-impl.h -- the host helpers shared by the Stokes vertex-patch files
 * (mg/stokes-patch.c, mg/stokes-patch-solve.c): the local shapes and the divergence blocks of
 * the local matrix Acal_j of doc/stokes.md section 7, those of mg/stokes-patch-local.h. */
#ifndef TESSERA_STOKES_PATCH_IMPL_H
#define TESSERA_STOKES_PATCH_IMPL_H

#include "../tessera-impl.h"

/** Local DoFs per direction of velocity component i (n_cont in direction i, n_dg
 *  otherwise; 1 beyond dim) or, with i == dim, of the pressure. */
void ts_stokes_patch_shape(const ts_stokes_patch_plan *plan, int i, int *shape);
/** out += B_{j,i} u_i, u_i of component i's local shape; work: n_pressure doubles. */
void ts_stokes_patch_divergence_add(const ts_stokes_patch_plan *plan, int i, const double *u,
                                    double *out, double *work);
/** out = B_{j,i}^T p; work: n_pressure doubles. */
void ts_stokes_patch_divergence_transpose(const ts_stokes_patch_plan *plan, int i,
                                          const double *p, double *out, double *work);

#endif
