/* stokes-mg.c -- paper 000's V-cycle for Stokes (RT_k x DGQ_k) over the processes
 * (doc/parallel.md, section 5 item 4): the levels' distributed DoFs and operators (stokes.c),
 * the Stokes vertex-patch smoother, the transfers, the gathered coarse solve, and the cycle
 * of ts_mg_create_stokes (lib/mg/mg.c: ts_mg_vcycle, the output's pressure mean removed).
 *
 * Smoother: the one-process step (lib/mg/stokes-smoother.c) on the extended block.  Per color
 * the residual r = b - A x is computed on the extended block after x's ghost layers are
 * refreshed (b's once per step): exact on the block and the first ghost layer, which is all
 * that the patches centred at the vertices of the block's closed cells read; those patches
 * are computed (the ones on an interface by both blocks, from the same values), and the
 * patches the extended box adds beyond change ghost entries only, which the next refresh
 * overwrites.  Colors empty on the whole level are skipped by every block, as one process
 * skips them.
 *
 * Transfers: the blocks nest, and a coarse block with one layer of ghost cells (the narrow
 * box) has as children exactly the fine extended block (two fine layers), so the one-process
 * field transfer runs between them.  Prolongation: the coarse vector's narrow box (its ghosts
 * refreshed) copied out, prolongated into the fine extended vector: the block's fine entries
 * exact.  Restriction: the fine vector's ghosts refreshed, restricted into the narrow box,
 * whose block entries are exact (a coarse DoF gathers fine entries of the children of its
 * cells, at most one coarse cell beyond the block), copied back into the coarse vector.
 *
 * Coarse solve: the levels coarse_level..split_level gathered (agglomerate.c): the right side
 * of the split level gathered on every process, the one-process V-cycle of those levels
 * (ts_mg_create_stokes; on the coarse level the LU of the whole level's operator bordered by
 * the constant pressure) applied, every local entry (ghosts included) taken from the result.
 * The split level is the coarse level when its cells can be dealt out. */
#include "parallel-impl.h"
#include "../pc/pc-impl.h"

/* ---------------------------------------------------------------- hierarchy */

int ts_parallel_mg_create_stokes(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                 int finest_level, const ts_mg_options *options,
                                 ts_parallel_mg *mg) {
  TS_CHECK_NOT_NULL(mg);
  *mg = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_NOT_NULL(mesh);
  ts_mg_options o;
  if (options) o = *options;
  else ts_mg_options_default(&o);
  TS_CALL(ts_mg_stokes_check_options(mesh, degree, finest_level, &o));
  TS_CHECK_ARG(o.precision == TS_DOUBLE, "%s: precision %d; the distributed V-cycle is double "
               "precision only (TS_DOUBLE)", __func__, (int)o.precision);
  TS_CHECK_ARG(finest_level - o.coarse_level < TS_MG_PARTS_MAX_LEVELS,
               "%s: levels %d..%d, at most %d levels", __func__, o.coarse_level, finest_level,
               TS_MG_PARTS_MAX_LEVELS);
  const int split = ts_parallel_split_level(par, mesh, o.coarse_level, finest_level);
  ts_parallel_mg m;
  TS_CALL(ts_calloc(1, sizeof *m, "distributed Stokes hierarchy", &m));
  *m = (struct ts_parallel_mg_s){.mesh = mesh, .stokes = 1, .stokes_degree = degree,
                                 .stokes_options = o, .coarse_level = o.coarse_level,
                                 .split_level = split, .levels = finest_level - split + 1};
  int ierr = 0;
  for (int i = 0; i < m->levels && !ierr; ++i) {
    ierr = ts_parallel_stokes_dofs_create(backend, par, mesh, degree, split + i, split, &m->pd[i]);
    if (!ierr) ierr = ts_parallel_operator_create_stokes(m->pd[i], o.stokes_penalty, &m->A[i]);
  }
  /* the levels above the split level refine blocks of a cell or more: two or more */
  if (!ierr && !m->pd[m->levels - 1]->stokes->refreshable)
    ierr = TS_ERROR(TS_ERR_ARG, "%s: the finest level %d has a block of fewer than %d cells in "
                    "a split direction, too few to refresh its ghost layers (fewer processes or a "
                    "finer level)", __func__, finest_level, TS_PARALLEL_STOKES_GHOSTS);
  if (ierr) {
    ts_parallel_mg_destroy(&m);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Stokes hierarchy");
  }
  *mg = m;
  return 0;
}

/* ---------------------------------------------------------------- smoother */

typedef struct stokes_patch {
  ts_parallel_dofs pd;          /* borrowed */
  ts_operator A;                /* borrowed: the distributed operator */
  ts_stokes_patch_plan plan;    /* of the extended block */
  double *storage;              /* the plan's patch matrices and local solvers */
  int parity;                   /* bit d: the parity of the extended block's first cell */
  ts_vec r;
} stokes_patch;

/* whether color has a patch on the whole level */
static int color_on_level(const ts_parallel_dofs pd, int color) {
  int64_t first[3], count[3];
  int stride;
  if (ts_vertex_patch_color(pd->par->dim, pd->cells, color, first, count, &stride)) return 0;
  for (int d = 0; d < pd->par->dim; ++d)
    if (count[d] == 0) return 0;
  return 1;
}

/* one step x <- S(x, b): x's entries of the block change, its ghosts are left stale; b's
 * ghosts refreshed first unless they are fresh (b_fresh: the post-smoothing's b, unchanged
 * since the pre-smoothing refreshed it) */
static int stokes_patch_step(stokes_patch *s, ts_vec b, ts_vec x, int b_fresh) {
  ts_stokes_patch_plan plan = s->plan;
  const int dim = plan.global.dim;
  if (!b_fresh) TS_CALL(ts_parallel_stokes_refresh(s->pd, b));
  for (int color = 0; color < ts_vertex_patch_color_count(dim); ++color) {
    if (!color_on_level(s->pd, color)) continue;
    TS_CALL(ts_vertex_patch_color(dim, plan.global.cells, color ^ s->parity, plan.first_vertex,
                                  plan.vertex_count, &plan.vertex_stride));
    plan.color = color ^ s->parity;
    TS_CALL(ts_parallel_stokes_refresh(s->pd, x));
    TS_CALL(ts_parallel_stokes_block_apply(s->A, x, s->r, 0)); /* r = b - A x */
    TS_CALL(ts_vec_axpby(1.0, b, -1.0, s->r));
    int empty = 0;
    for (int d = 0; d < dim; ++d) empty |= plan.vertex_count[d] == 0;
    if (!empty)
      TS_CALL(ts_backend_stokes_patch_smooth(s->A->backend, &plan, TS_DOUBLE, b->data, x->data,
                                             s->r->data));
  }
  return 0;
}

static void stokes_patch_free(stokes_patch *s) {
  if (!s) return;
  ts_vec_destroy(&s->r);
  ts_free(&s->storage);
  ts_free(&s);
}

static int stokes_patch_create(ts_parallel_mg mg, int i, stokes_patch **patch) {
  const ts_parallel_dofs pd = mg->pd[i];
  const ts_mg_options *o = &mg->stokes_options;
  if (!pd->backend->ops.stokes_patch_smooth)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'stokes_patch_smooth'",
                    pd->backend->name);
  stokes_patch *s;
  TS_CALL(ts_calloc(1, sizeof *s, "distributed Stokes vertex-patch smoother", &s));
  *s = (stokes_patch){.pd = pd, .A = mg->A[i]};
  for (int d = 0; d < pd->par->dim; ++d) s->parity |= (int)(pd->stokes->first_cell[d] & 1) << d;
  ts_operator block;
  const ts_stokes_plan *global;
  int ierr = ts_parallel_stokes_block(mg->A[i], &block);
  if (!ierr) ierr = ts_operator_stokes_plan(block, &global);
  if (!ierr) ierr = ts_stokes_patch_plan_init(global, o->stokes_solver, &s->plan, &s->storage);
  if (!ierr && o->stokes_solver == TS_STOKES_PATCH_SCHUR) s->plan.cg_tolerance = o->stokes_cg_tolerance;
  if (!ierr) ierr = ts_parallel_vec_create(pd, &s->r);
  if (ierr) {
    stokes_patch_free(s);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Stokes vertex-patch smoother");
  }
  *patch = s;
  return 0;
}

/* ---------------------------------------------------------------- transfer */

typedef struct stokes_transfer {
  ts_parallel_dofs coarse, fine; /* borrowed */
  ts_mesh mesh;                 /* the narrow box: the coarse block and one layer of ghosts */
  ts_dofs velocity, pressure;
  int64_t at[3];                /* its first cell in the coarse extended block */
  ts_field_transfer_plan plan;  /* narrow box -> fine extended block */
  double storage[TS_FIELD_TRANSFER_STOKES_STORAGE];
  ts_vec narrow;
} stokes_transfer;

/* The coarse extended vector's narrow box to the narrow vector (out) or back: per field a
 * plane per layer of direction 2, TS_MAX_PLANES per call, packed in the narrow box's order. */
static int copy_narrow(stokes_transfer *t, ts_vec coarse, int out) {
  const ts_parallel_stokes *s = t->coarse->stokes;
  const int k1 = t->coarse->degree + 1;
  for (int f = 0; f < s->fields; ++f) {
    const ts_field_transfer_field *nf = &t->plan.field[f];
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      lo[d] = t->at[d] * k1;
      hi[d] = lo[d] + nf->coarse_n[d];
    }
    TS_CALL(ts_parallel_box_copy(t->coarse->backend, TS_DOUBLE, s->n[f], lo, hi,
                                 (double *)coarse->data + s->offset[f],
                                 (double *)t->narrow->data + nf->coarse_offset, out));
  }
  return 0;
}

/* fine += P coarse (the coarse ghosts fresh) */
static int prolongate_add(stokes_transfer *t, ts_vec coarse, ts_vec fine) {
  TS_CALL(copy_narrow(t, coarse, 1));
  return ts_field_transfer_apply(t->fine->backend, &t->plan, 0, t->narrow, fine, 1);
}

/* coarse = P^T fine on the coarse block (its ghosts stale) */
static int restrict_(stokes_transfer *t, ts_vec fine, ts_vec coarse) {
  TS_CALL(ts_parallel_stokes_refresh(t->fine, fine));
  TS_CALL(ts_field_transfer_apply(t->fine->backend, &t->plan, 1, fine, t->narrow, 0));
  return copy_narrow(t, coarse, 0);
}

static void stokes_transfer_free(stokes_transfer *t) {
  if (!t) return;
  ts_vec_destroy(&t->narrow);
  ts_dofs_destroy(&t->velocity);
  ts_dofs_destroy(&t->pressure);
  ts_mesh_destroy(&t->mesh);
  ts_free(&t);
}

/* the narrow box of the coarse block (mesh's level coarse->level): its mesh and DoF handlers
 * (the level's cell size), where it lies in the coarse extended block */
static int narrow_box(stokes_transfer *t, ts_mesh mesh) {
  const ts_parallel_dofs c = t->coarse;
  const ts_parallel_stokes *s = c->stokes;
  int64_t start[3] = {0, 0, 0}, end[3] = {1, 1, 1};
  double h[3];
  for (int d = 0; d < c->par->dim; ++d) {
    const int lo = s->ghost_lo[d] > 0, hi = s->ghost_hi[d] > 0;
    t->at[d] = s->ghost_lo[d] - lo;
    start[d] = c->cell_start[d] - lo;
    end[d] = c->cell_end[d] + hi;
  }
  TS_CALL(ts_parallel_cells_box(mesh, c->level, start, end, &t->mesh, h));
  TS_CALL(ts_parallel_cells_dofs(t->mesh, c->dofs->fe, h, &t->velocity));
  return ts_parallel_cells_dofs(t->mesh, s->pressure->fe, h, &t->pressure);
}

static int stokes_transfer_create(ts_mesh mesh, ts_parallel_dofs coarse, ts_parallel_dofs fine,
                                  stokes_transfer **transfer) {
  if (!fine->backend->ops.field_transfer)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'field_transfer'",
                    fine->backend->name);
  stokes_transfer *t;
  TS_CALL(ts_calloc(1, sizeof *t, "distributed Stokes transfer", &t));
  t->coarse = coarse;
  t->fine = fine;
  int ierr = narrow_box(t, mesh);
  if (!ierr) ierr = ts_field_transfer_plan_init_stokes(t->velocity, t->pressure, fine->dofs,
                                                       fine->stokes->pressure, &t->plan, t->storage);
  if (!ierr) ierr = ts_vec_create(coarse->backend, t->velocity->count + t->pressure->count,
                                  TS_DOUBLE, &t->narrow);
  if (ierr) {
    stokes_transfer_free(t);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Stokes transfer");
  }
  *transfer = t;
  return 0;
}

/* ---------------------------------------------------------------- gathered levels */

/* The one-process V-cycle of ts_mg_create_stokes on the gathered levels coarse..split (its
 * inner cycle, ts_mg_vcycle, without the pressure mean removed: what the one-process cycle
 * does on those levels), as a preconditioner on the whole split level's vectors */
static int serial_apply(ts_pc pc, ts_vec b, ts_vec x) {
  ts_mg mg = pc->data;
  ts_mg_level *l = &mg->levels[mg->n_levels - 1];
  TS_CALL(ts_vec_copy(b, l->b));
  TS_CALL(ts_vec_set(l->x, 0.0));
  TS_CALL(ts_mg_vcycle(mg, mg->n_levels - 1));
  return ts_vec_copy(l->x, x);
}

static void serial_destroy(ts_pc pc) {
  ts_mg mg = pc->data;
  ts_mg_destroy(&mg);
  pc->data = NULL;
}

static const ts_pc_ops serial_ops = {.name = "Stokes V-cycle of the gathered levels",
                                     .apply = serial_apply,
                                     .destroy = serial_destroy};

static int gathered_create(ts_parallel_mg mg, ts_pc *coarse) {
  const ts_parallel_dofs pd = mg->pd[0];
  ts_mg serial_mg;
  ts_pc serial;
  TS_CALL(ts_mg_create_stokes(pd->backend, mg->mesh, mg->stokes_degree, mg->split_level,
                              &mg->stokes_options, &serial_mg));
  const int64_t n = ts_mg_preconditioner(serial_mg)->n;
  const int ierr = ts_pc_create_shell(&serial_ops, pd->backend, n, TS_DOUBLE, serial_mg, &serial);
  if (ierr) {
    ts_mg_destroy(&serial_mg);
    return ierr;
  }
  return ts_parallel_gathered_create(pd, serial, coarse, NULL);
}

/* ---------------------------------------------------------------- the V-cycle */

typedef struct stokes_vcycle {
  ts_parallel_mg mg;            /* borrowed */
  stokes_patch *smoother[TS_MG_PARTS_MAX_LEVELS];
  stokes_transfer *transfer[TS_MG_PARTS_MAX_LEVELS]; /* from level i-1 to i */
  ts_pc coarse;                 /* the gathered levels */
  ts_vec b[TS_MG_PARTS_MAX_LEVELS], x[TS_MG_PARTS_MAX_LEVELS], r[TS_MG_PARTS_MAX_LEVELS];
} stokes_vcycle;

/* x_i = V_i b_i from x_i = 0, as ts_mg_vcycle */
static int vcycle(stokes_vcycle *v, int i) {
  if (i == 0) return ts_pc_apply(v->coarse, v->b[0], v->x[0]);
  TS_CALL(stokes_patch_step(v->smoother[i], v->b[i], v->x[i], 0)); /* pre-smoothing */
  TS_CALL(ts_operator_apply(v->mg->A[i], v->x[i], v->r[i]));     /* r = b - A x */
  TS_CALL(ts_vec_axpby(1.0, v->b[i], -1.0, v->r[i]));
  TS_CALL(restrict_(v->transfer[i], v->r[i], v->b[i - 1]));     /* coarsen */
  TS_CALL(ts_vec_set(v->x[i - 1], 0.0));
  TS_CALL(vcycle(v, i - 1));
  if (i > 1) TS_CALL(ts_parallel_stokes_refresh(v->mg->pd[i - 1], v->x[i - 1])); /* the coarse
                                                   solve's x_0 is exact everywhere */
  TS_CALL(prolongate_add(v->transfer[i], v->x[i - 1], v->x[i])); /* x += P x_c */
  return stokes_patch_step(v->smoother[i], v->b[i], v->x[i], 1); /* post-smoothing */
}

static int vcycle_apply(ts_pc pc, ts_vec r, ts_vec z) {
  stokes_vcycle *v = pc->data;
  const int top = v->mg->levels - 1;
  TS_CALL(ts_vec_copy(r, v->b[top]));
  TS_CALL(ts_vec_set(v->x[top], 0.0));
  TS_CALL(vcycle(v, top));
  TS_CALL(ts_vec_copy(v->x[top], z));
  return ts_stokes_pressure_mean_remove(v->mg->A[top], z); /* doc/stokes.md section 6 */
}

static void vcycle_free(stokes_vcycle *v) {
  if (!v) return;
  for (int i = 0; i < TS_MG_PARTS_MAX_LEVELS; ++i) {
    stokes_patch_free(v->smoother[i]);
    stokes_transfer_free(v->transfer[i]);
    ts_vec_destroy(&v->b[i]);
    ts_vec_destroy(&v->x[i]);
    ts_vec_destroy(&v->r[i]);
  }
  ts_pc_destroy(&v->coarse);
  ts_free(&v);
}

static void vcycle_destroy(ts_pc pc) {
  vcycle_free(pc->data);
  pc->data = NULL;
}

static const ts_pc_ops stokes_vcycle_ops = {
    .name = "mg",
    .apply = vcycle_apply,
    .destroy = vcycle_destroy,
};

static int vcycle_parts(stokes_vcycle *v) {
  ts_parallel_mg mg = v->mg;
  for (int i = 0; i < mg->levels; ++i) {
    TS_CALL(ts_parallel_vec_create(mg->pd[i], &v->b[i]));
    TS_CALL(ts_parallel_vec_create(mg->pd[i], &v->x[i]));
    if (!i) continue;
    TS_CALL(ts_parallel_vec_create(mg->pd[i], &v->r[i]));
    TS_CALL(stokes_patch_create(mg, i, &v->smoother[i]));
    TS_CALL(stokes_transfer_create(mg->mesh, mg->pd[i - 1], mg->pd[i], &v->transfer[i]));
  }
  return gathered_create(mg, &v->coarse);
}

int ts_parallel_pc_create_mg_stokes(ts_parallel_mg mg, ts_pc *pc) {
  TS_CHECK_NOT_NULL(pc);
  *pc = NULL;
  TS_CHECK_NOT_NULL(mg);
  TS_CHECK_ARG(mg->stokes, "%s: the hierarchy is a Q_k one; a Stokes hierarchy "
               "(ts_parallel_mg_create_stokes) is required", __func__);
  stokes_vcycle *v;
  TS_CALL(ts_calloc(1, sizeof *v, "distributed Stokes V-cycle", &v));
  v->mg = mg;
  int ierr = vcycle_parts(v);
  if (ierr) {
    vcycle_free(v);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Stokes V-cycle");
  }
  const ts_operator A = mg->A[mg->levels - 1];
  TS_CALL(ts_pc_create_shell(&stokes_vcycle_ops, A->backend, A->n, TS_DOUBLE, v, pc));
  (*pc)->op->layout = A->layout; /* its vectors are distributed as A's */
  return 0;
}
