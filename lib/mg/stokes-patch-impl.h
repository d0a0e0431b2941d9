/* stokes-patch-impl.h -- the host helpers shared by the Stokes vertex-patch files
 * (mg/stokes-patch.c, mg/stokes-patch-solve.c): the blocks of the local matrix Acal_j of
 * doc/stokes.md section 7 applied in Kronecker form on the host. */
#ifndef TESSERA_STOKES_PATCH_IMPL_H
#define TESSERA_STOKES_PATCH_IMPL_H

#include "../tessera-impl.h"

/** Local DoFs per direction of velocity component i (n_cont in direction i, n_dg
 *  otherwise; 1 beyond dim) or, with i == dim, of the pressure. */
void ts_stokes_patch_shape(const ts_stokes_patch_plan *plan, int i, int *shape);
/** out = B_{j,i} u_i (add = 1: out += B_{j,i} u_i), u_i of component i's local shape. */
void ts_stokes_patch_divergence(const ts_stokes_patch_plan *plan, int i, const double *u,
                                double *out, double *work, int add);
/** out = B_{j,i}^T p (add = 1: out += B_{j,i}^T p). */
void ts_stokes_patch_divergence_transpose(const ts_stokes_patch_plan *plan, int i,
                                          const double *p, double *out, double *work, int add);
/** Work doubles the helpers above need: 2 n_local. */
size_t ts_stokes_patch_work_doubles(const ts_stokes_patch_plan *plan);

#endif
