/* saddle-relaxation.h -- what Braess-Sarazin and Schur-Uzawa relaxation share (private to
 * lib/mg): the residual of the Taylor-Hood system split into its blocks, (t D)^{-1} with D
 * the diagonal of A, and weighted Jacobi on S = B (t D)^{-1} B^T (paper 004, eqs. (17) and
 * (22); doc/taylor-hood.md section 7). */
#ifndef TESSERA_SADDLE_RELAXATION_H
#define TESSERA_SADDLE_RELAXATION_H

#include "../tessera-impl.h"

typedef struct ts_schur_jacobi {
  ts_operator stokes;           /* borrowed */
  const ts_saddle *saddle;      /* stokes's */
  int64_t n_u, n_p;             /* the blocks' sizes */
  int sweeps;
  double weight;
  ts_vec r;                     /* b - Acal x */
  ts_vec velocity_inverse;      /* 1 / (t D), velocity sized */
  ts_vec schur_inverse;         /* weight / diag(S), pressure sized */
  ts_vec du, tu;                /* velocity work */
  ts_vec dp, rhs, tp;           /* pressure work */
} ts_schur_jacobi;

/** Check t, sweeps and weight (naming `who` in errors) and prepare the pieces for stokes. */
int ts_schur_jacobi_init(ts_operator stokes, const ts_saddle_relaxation *params, const char *who,
                         ts_schur_jacobi *s);
void ts_schur_jacobi_free(ts_schur_jacobi *s);
/** s->r = b - Acal x, then s->du = (t D)^{-1} r_u and s->rhs = r_p + B s->du: the right side
 *  of S dp = rhs in both relaxations (Acal = [A B^T; -B 0], so r_p + B du is the paper's
 *  B (t D)^{-1} r_u - r_p of the symmetric form). */
int ts_schur_jacobi_prepare(ts_schur_jacobi *s, ts_vec b, ts_vec x);
/** s->dp = sweeps steps of weighted Jacobi on S dp = s->rhs from dp = 0. */
int ts_schur_jacobi_solve(ts_schur_jacobi *s);
/** Views of the velocity and pressure blocks of a system vector. */
void ts_schur_jacobi_blocks(const ts_schur_jacobi *s, ts_vec x, struct ts_vec_s *u,
                            struct ts_vec_s *p);

#endif
