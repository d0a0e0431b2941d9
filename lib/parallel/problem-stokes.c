/* problem-stokes.c -- a Stokes RT problem file (<stokes>, paper 000) solved over the
 * processes (doc/parallel.md section 7): on each level the distributed hierarchy of the
 * coarse level .. the level (stokes-mg.c: the coarse level's cells dealt out), the right
 * side assembled on each process's extended block (every owned row of the load (f, phi_i)
 * reads the block's cells and one layer beyond: exact), the problem's Krylov solver with the
 * distributed V-cycle, the pressure mean removed, and the error integrals of the block's
 * cells summed over the processes in rank order, as ts_stokes_compute_errors forms them. */
#include <math.h>
#include "problem-impl.h"
#include "../problem/stokes-eval.h"

int ts_parallel_stokes_level_setup(const dist_study *d, int level, dist_level *o, double *t) {
  const ts_study *s = &d->s;
  ts_problem p = s->p;
  ts_mg_options options;
  s->eq->mg_options(p, &options);
  TS_CALL_TIMED(&t[TS_SETUP_OPERATORS],
                ts_parallel_mg_create_stokes(s->backend, d->par, s->mesh, p->degree, level,
                                             &options, &o->mg));
  o->pd = ts_parallel_mg_dofs(o->mg, level);
  o->A = ts_parallel_mg_operator(o->mg, level);
  ts_parallel_dofs pd = o->pd;
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_parallel_vec_create(pd, &o->b));
  TS_CALL_TIMED(&t[TS_SETUP_VECTORS], ts_parallel_vec_create(pd, &o->x));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE],
                ts_stokes_assemble_rhs(pd->dofs, pd->stokes->pressure, s->exact, pd->host));
  TS_CALL_TIMED(&t[TS_SETUP_RIGHT_SIDE], ts_vec_set_from_host(o->b, pd->host));
  if (p->pc_nodes) TS_CALL_TIMED(&t[TS_SETUP_SMOOTHERS], ts_parallel_pc_create_mg_stokes(o->mg, &o->pc));
  return ts_problem_solver_create(p, o->A, o->pc, &o->solver);
}

/* the block's cells in the extended block: first + [0, cells) */
static void block_cells(ts_parallel_dofs pd, int64_t *first, int64_t *cells) {
  for (int d = 0; d < 3; ++d) {
    first[d] = pd->cell_start[d] - (d < pd->par->dim ? pd->stokes->first_cell[d] : 0);
    cells[d] = pd->cell_end[d] - pd->cell_start[d];
  }
}

int ts_parallel_stokes_measure(const dist_study *d, dist_level *o, ts_level_report *r) {
  ts_parallel_dofs pd = o->pd;
  int64_t first[3], cells[3];
  double sums[4], total[4], pressure, pressure_total;
  block_cells(pd, first, cells);
  TS_CALL(ts_stokes_pressure_mean_remove(o->A, o->x));     /* doc/stokes.md section 6 */
  TS_CALL(ts_parallel_stokes_refresh(pd, o->x));            /* the ghosts: their owners' */
  TS_CALL(ts_calloc((size_t)pd->count, sizeof *o->host, "solution on the host", &o->host));
  TS_CALL(ts_vec_get_to_host(o->x, o->host));
  const ts_stokes_solution *exact = d->s.exact;
  TS_CALL(ts_parallel_agree(d->par, ts_stokes_block_integrals(pd->dofs, pd->stokes->pressure,
                                                              o->host, exact, first, cells, sums)));
  for (int k = 0; k < 4; ++k) TS_CALL(ts_parallel_sum(d->par, sums[k], &total[k]));
  /* the difference of the means (the discrete and the exact pressure's), then the error
   * without it, as ts_stokes_compute_errors */
  o->means[0] = total[1] / total[3];
  o->means[1] = (total[1] - total[2]) / total[3];
  const double shift = o->means[0] - o->means[1];
  TS_CALL(ts_parallel_agree(d->par, ts_stokes_block_pressure_error(pd->dofs, pd->stokes->pressure,
                                                                   o->host, exact, first, cells,
                                                                   shift, &pressure)));
  TS_CALL(ts_parallel_sum(d->par, pressure, &pressure_total));
  r->l2_error = sqrt(total[0]);
  r->pressure_l2_error = sqrt(pressure_total);
  return 0;
}

int ts_parallel_stokes_write_piece(const dist_study *d, const dist_level *o, const char *piece) {
  int64_t first[3], cells[3];
  block_cells(o->pd, first, cells);
  return ts_stokes_write_vtu_block(piece, o->pd->dofs, o->pd->stokes->pressure, o->host,
                                   d->s.exact, d->s.p->vtu_subdivisions, first, cells, o->means);
}

int ts_parallel_stokes_block_cells(const dist_study *d, int64_t *cells) {
  const ts_problem p = d->s.p;
  const int split = ts_parallel_split_level(d->par, d->s.mesh, p->mg.coarse_level, p->levels);
  return ts_parallel_block_cells(d->par, d->s.mesh, p->levels, split, cells);
}
