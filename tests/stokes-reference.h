/* stokes-reference.h -- an independent dense assembly of the RT_k x DGQ_k Stokes matrix
 * (doc/stokes.md sections 1-3) for the tests: basis functions evaluated point by point at
 * tensor Gauss points, cell and face integrals summed into a dense matrix. It shares no
 * code with lib/poly/stokes-1d.c and uses no Kronecker factorization, so that the
 * matrix-free operator can be checked against it. Errors go to stderr (return 1). */
#ifndef TESSERA_STOKES_REFERENCE_H
#define TESSERA_STOKES_REFERENCE_H

#include <stdint.h>

/** The number of DoFs [u_0; u_1; (u_2;) p] of RT_k x DGQ_k on cells[0..dim-1] (section 2),
 *  or -1 if dim, k or cells are out of range. */
int64_t stokes_reference_size(int dim, int k, const int64_t cells[3]);

/** Fill the dense n x n row-major matrix Acal = [[A, B^T], [-B, 0]] (section 3) on cells of
 *  size h[d], with the penalty gamma_F = eta (k+1)(k+2) / h_F; the normal velocity DoFs on
 *  the boundary (section 2) get identity rows and zero columns. n must be the DoF count. */
int stokes_reference_matrix(int dim, int k, const int64_t cells[3], const double h[3], double eta,
                            double *A, int64_t n);

/** The same matrix without the boundary constraint: form (3) on the whole space, including
 *  the boundary face terms of the normal components (a test aid: for fields that vanish on
 *  the constrained DoFs both matrices agree on the unconstrained rows and columns). */
int stokes_reference_matrix_unconstrained(int dim, int k, const int64_t cells[3],
                                          const double h[3], double eta, double *A, int64_t n);

/** The field (velocity component 0..dim-1, or dim for the pressure) of DoF `index` and its
 *  support point x[0..dim-1] on the box [0, cells[d] h[d]]: the node of the Lagrange basis
 *  that is one at it (Gauss-Lobatto in a component's own direction, Gauss elsewhere). */
int stokes_reference_support_point(int dim, int k, const int64_t cells[3], const double h[3],
                                   int64_t index, int *field, double x[3]);

/** Whether DoF `index` is a constrained normal velocity DoF on the boundary (section 2). */
int stokes_reference_is_constrained(int dim, int k, const int64_t cells[3], int64_t index);

#endif
