/* stokes.c -- paper 000's Stokes system (RT_k velocity, DGQ_k pressure, doc/stokes.md) on
 * a box split among the processes (doc/parallel.md, section 5 item 4): the distributed DoFs
 * of a level and the operator.
 *
 * Each process holds its block's cells and TS_PARALLEL_STOKES_GHOSTS layers of ghost cells
 * beyond every interface (the **extended block**), with the one-process numbering of that box:
 * the fields u_0 .. u_{dim-1}, p one after the other, each lexicographic.  The operator's row
 * of a DoF reads the DoF's cells and their face neighbours only (the SIPG terms of the
 * tangential components, the normal DoFs two cells share), so the box's kernel on the
 * extended block gives every row of the block and of the first ghost layer exactly, once the
 * ghost layers hold the neighbours' values: no sums over the interfaces.  The second layer
 * makes the first exact, which the Stokes patches centred on the interface vertices read
 * (stokes-mg.c), and puts those patches inside the extended box, of the interior kind as in
 * the one-process sweep.  The rows of the outer ghost layer are wrong: a vector's ghost
 * entries are a copy of their owners' at best, refreshed (ts_parallel_stokes_refresh) before
 * a kernel reads them, and never counted (the dot products zero them, halo.c).
 *
 * Owned: the entries of the block's cells; a normal DoF on an interface belongs to the lower
 * block.  The refresh, direction by direction: every block sends the entries of its last
 * ghost-depth cells (with its upper interface's normal DoFs) upward and those of its first
 * cells (without the lower interface's) downward; each field's slab spans the extended box in
 * the other directions, so edges and corners arrive through the earlier directions.  Both
 * messages of a direction have the same shape on every block, so each travels as one message
 * of dim + 1 planes (ts_parallel_exchange). */
#include <string.h>
#include "parallel-impl.h"

/* entries [from, from + thickness) of direction d of field f, spanning its box */
static ts_plane field_slab(const ts_parallel_stokes *s, int f, int d, int64_t from,
                           int64_t thickness) {
  ts_plane p = ts_parallel_slab(s->n[f], d, from, thickness);
  p.offset += s->offset[f];
  return p;
}

/* ---------------------------------------------------------------- the layout */

/* field f is continuous in direction d < dim: the normal velocity u_d (Q_{k+1} in x_d, its
 * end DoFs shared by neighbouring cells); the pressure (f = dim) is in no direction */
static int continuous(int f, int d) { return f == d; }

/* the one-process index of local entry `local` */
static int64_t stokes_global_index(const ts_parallel_stokes *s, int k1, int64_t local) {
  int f = 0;
  while (local >= s->offset[f + 1]) ++f;
  const int64_t j = local - s->offset[f], *n = s->n[f];
  const int64_t i[3] = {j % n[0] + s->first_cell[0] * k1, j / n[0] % n[1] + s->first_cell[1] * k1,
                        j / (n[0] * n[1]) + s->first_cell[2] * k1};
  return s->global_offset[f] + ts_parallel_box_index(s->global_n[f], i);
}

int64_t ts_parallel_stokes_global_index(ts_parallel_dofs pd, int64_t local) {
  return stokes_global_index(pd->stokes, pd->degree + 1, local);
}

/* The owned entries of field f in direction d, as one-process indices [lo, hi), of the
 * block of cells [start, end) of `cells` */
static void owned_range(int f, int d, int k1, int64_t start, int64_t end, int64_t *lo,
                        int64_t *hi) {
  const int c = continuous(f, d);
  *lo = start * k1 + (c && start > 0);
  *hi = end * k1 + c;
}

/* sizes, offsets, owned ranges and ghost slabs of the extended block */
static void layout_fields(ts_parallel_dofs pd) {
  ts_parallel_stokes *s = pd->stokes;
  const ts_parallel par = pd->par;
  const int dim = par->dim, k1 = pd->degree + 1;
  s->fields = dim + 1;
  s->offset[0] = s->global_offset[0] = 0;
  for (int f = 0; f < s->fields; ++f) {
    int64_t size = 1, global = 1;
    for (int d = 0; d < 3; ++d) {
      if (d >= dim) {
        s->n[f][d] = s->global_n[f][d] = 1;
        s->own_lo[f][d] = 0;
        s->own_hi[f][d] = 1;
        continue;
      }
      const int64_t cells = pd->cell_end[d] - pd->cell_start[d] + s->ghost_lo[d] + s->ghost_hi[d];
      const int c = continuous(f, d);
      s->n[f][d] = cells * k1 + c;
      s->global_n[f][d] = pd->cells[d] * k1 + c;
      int64_t lo, hi;
      owned_range(f, d, k1, pd->cell_start[d], pd->cell_end[d], &lo, &hi);
      s->own_lo[f][d] = lo - s->first_cell[d] * k1;
      s->own_hi[f][d] = hi - s->first_cell[d] * k1;
      size *= s->n[f][d];
      global *= s->global_n[f][d];
    }
    s->offset[f + 1] = s->offset[f] + size;
    s->global_offset[f + 1] = s->global_offset[f] + global;
  }
  s->ghost_slabs = 0;
  for (int f = 0; f < s->fields; ++f)
    for (int d = 0; d < dim; ++d) {
      if (s->own_lo[f][d] > 0) s->ghost[s->ghost_slabs++] = field_slab(s, f, d, 0, s->own_lo[f][d]);
      if (s->own_hi[f][d] < s->n[f][d])
        s->ghost[s->ghost_slabs++] =
            field_slab(s, f, d, s->own_hi[f][d], s->n[f][d] - s->own_hi[f][d]);
    }
}

/* the layout of pd's vectors: the owned entries of the fields */
static int init_layout(ts_parallel_dofs pd) {
  const ts_parallel_stokes *s = pd->stokes;
  long long owned = 0;
  for (int f = 0; f < s->fields; ++f) {
    long long size = 1;
    for (int d = 0; d < 3; ++d) size *= s->own_hi[f][d] - s->own_lo[f][d];
    owned += size;
  }
  return ts_parallel_layout_init(pd, owned);
}

/* the refresh's messages of direction d (up: to the upper neighbour, from the lower one) */
static ts_parallel_message refresh_message(const ts_parallel_dofs pd, int d, int up) {
  const ts_parallel_stokes *s = pd->stokes;
  const ts_parallel par = pd->par;
  const int k1 = pd->degree + 1, g = TS_PARALLEL_STOKES_GHOSTS;
  ts_parallel_message m = {.to = up ? par->upper[d] : par->lower[d],
                           .from = up ? par->lower[d] : par->upper[d], .planes = s->fields};
  for (int f = 0; f < s->fields; ++f) {
    const int64_t lo = s->own_lo[f][d], hi = s->own_hi[f][d], n = s->n[f][d];
    if (up) { /* the last g cells (and the upper interface's normal DoFs) into the lower ghosts */
      const int64_t t = g * k1 + continuous(f, d);
      m.send[f] = field_slab(s, f, d, hi - t, t);
      m.recv[f] = field_slab(s, f, d, 0, t);
    } else { /* the first g cells after the lower interface into the upper ghosts */
      m.send[f] = field_slab(s, f, d, lo, (int64_t)g * k1);
      m.recv[f] = field_slab(s, f, d, n - (int64_t)g * k1, (int64_t)g * k1);
    }
  }
  return m;
}

int ts_parallel_stokes_refresh(ts_parallel_dofs pd, ts_vec v) {
  const ts_parallel par = pd->par;
  if (par->size == 1) return 0;
  TS_CHECK_ARG(pd->stokes->refreshable, "distributed Stokes: a block of level %d has fewer than "
               "%d cells in a direction that is split; its ghost layers cannot be refreshed "
               "(more cells per process, or fewer processes)", pd->level,
               TS_PARALLEL_STOKES_GHOSTS);
  double start;
  TS_CALL(ts_parallel_time_start(pd, v, &start));
  for (int d = 0; d < par->dim; ++d) {
    if (par->procs[d] == 1) continue;
    const ts_parallel_message m[2] = {refresh_message(pd, d, 1), refresh_message(pd, d, 0)};
    TS_CALL(ts_parallel_exchange(pd, 2, m, 0, &pd->buffers, v));
  }
  return ts_parallel_time_stop(pd, TS_PARALLEL_TIME_HALO, v, start);
}

/* ---------------------------------------------------------------- creation */

/* the extended block: its cells, box, both DoF handlers (the whole mesh's cell size) */
static int create_extended(ts_parallel_dofs pd, ts_mesh mesh, int level) {
  ts_parallel_stokes *s = pd->stokes;
  const ts_parallel par = pd->par;
  const int dim = par->dim, g = TS_PARALLEL_STOKES_GHOSTS;
  int64_t end[3] = {1, 1, 1};
  double h[3];
  for (int d = 0; d < dim; ++d) {
    /* g layers, fewer where the level has fewer cells beyond the block (a coarsest level's
     * blocks of one cell: then they are not refreshed, ts_parallel_stokes_refresh) */
    const int64_t below = pd->cell_start[d], above = pd->cells[d] - pd->cell_end[d];
    s->ghost_lo[d] = par->lower[d] == MPI_PROC_NULL ? 0 : (int)(below < g ? below : g);
    s->ghost_hi[d] = par->upper[d] == MPI_PROC_NULL ? 0 : (int)(above < g ? above : g);
    s->first_cell[d] = pd->cell_start[d] - s->ghost_lo[d];
    end[d] = pd->cell_end[d] + s->ghost_hi[d];
  }
  TS_CALL(ts_parallel_cells_box(mesh, level, s->first_cell, end, &pd->mesh, h));
  TS_CALL(ts_fe_create_rt(dim, pd->degree, &s->velocity_fe));
  TS_CALL(ts_fe_create_dgq(dim, pd->degree, &s->pressure_fe));
  TS_CALL(ts_parallel_cells_dofs(pd->mesh, s->velocity_fe, h, &pd->dofs));
  return ts_parallel_cells_dofs(pd->mesh, s->pressure_fe, h, &s->pressure);
}

/* whether every block has at least g cells in every split direction (collective) */
static int all_refreshable(ts_parallel_dofs pd, int *all) {
  int mine = 1;
  for (int d = 0; d < pd->par->dim; ++d)
    mine &= pd->par->procs[d] == 1 || pd->cell_end[d] - pd->cell_start[d] >= TS_PARALLEL_STOKES_GHOSTS;
  TS_MPI_CALL("MPI_Allreduce", MPI_Allreduce(&mine, all, 1, MPI_INT, MPI_MIN, pd->par->cart));
  return 0;
}

/* the largest message of the refresh: buffers for both of a direction */
static int64_t largest_message(ts_parallel_dofs pd) {
  int64_t largest = 0;
  for (int d = 0; d < pd->par->dim; ++d)
    for (int up = 0; up < 2; ++up) {
      const ts_parallel_message m = refresh_message(pd, d, up);
      int64_t size = 0;
      for (int f = 0; f < m.planes; ++f) size += m.send[f].width * m.send[f].height;
      if (largest < size) largest = size;
    }
  return largest;
}

static int stokes_setup(ts_parallel_dofs pd, ts_mesh mesh, int level, int split_level) {
  TS_CALL(ts_parallel_block_setup(pd, mesh, level, split_level));
  TS_CALL(create_extended(pd, mesh, level));
  layout_fields(pd);
  pd->count = pd->stokes->offset[pd->stokes->fields];
  int64_t ghosts = 0;
  for (int i = 0; i < pd->stokes->ghost_slabs; ++i)
    ghosts += pd->stokes->ghost[i].width * pd->stokes->ghost[i].height;
  TS_CALL(ts_calloc((size_t)pd->count, sizeof *pd->host, "distributed Stokes staging", &pd->host));
  TS_CALL(ts_parallel_halo_create_sized(pd, largest_message(pd) * TS_MAX_PEER_MESSAGES,
                                        ghosts > 0 ? ghosts : 1));
  TS_CALL(all_refreshable(pd, &pd->stokes->refreshable));
  return init_layout(pd);
}

int ts_parallel_stokes_dofs_create(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                   int level, int split_level, ts_parallel_dofs *pd) {
  TS_CHECK_NOT_NULL(pd);
  *pd = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_ARG(mesh->dim == par->dim, "%s: the mesh is %dD, the split %dD", __func__, mesh->dim,
               par->dim);
  TS_CHECK_ARG(!mesh->map, "%s: the mesh is mapped; the Stokes operator takes a box", __func__);
  TS_CHECK_ARG(degree >= 0 && degree <= TS_STOKES_MAX_DEGREE,
               "%s: degree k = %d, allowed 0..%d (RT_k x DGQ_k)", __func__, degree,
               TS_STOKES_MAX_DEGREE);
  TS_CHECK_ARG(level >= 0 && level <= mesh->levels, "%s: level = %d, the mesh has 0..%d",
               __func__, level, mesh->levels);
  TS_CHECK_ARG(split_level >= 0 && split_level <= level, "%s: split level %d, allowed 0..%d",
               __func__, split_level, level);
  if (!backend->ops.vec_plane_pack || !backend->ops.vec_plane_unpack)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: backend '%s' has no kernel 'vec_plane_pack' or "
                    "'vec_plane_unpack' (backend ABI 17), which the ghost layers need", __func__,
                    backend->name);
  ts_parallel_dofs p;
  TS_CALL(ts_calloc(1, sizeof *p, "distributed Stokes DoFs", &p));
  p->par = par;
  p->backend = backend;
  p->degree = degree;
  int ierr = ts_calloc(1, sizeof *p->stokes, "distributed Stokes layout", &p->stokes);
  if (!ierr) ierr = stokes_setup(p, mesh, level, split_level);
  if (ierr) {
    ts_parallel_dofs_destroy(&p);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Stokes DoFs");
  }
  *pd = p;
  return 0;
}

int ts_parallel_dofs_create_stokes(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                   int level, ts_parallel_dofs *pd) {
  return ts_parallel_stokes_dofs_create(backend, par, mesh, degree, level, 0, pd);
}

void ts_parallel_stokes_free(ts_parallel_dofs pd) {
  if (!pd->stokes) return;
  ts_dofs_destroy(&pd->dofs); /* before the elements they borrow */
  ts_dofs_destroy(&pd->stokes->pressure);
  ts_fe_destroy(&pd->stokes->velocity_fe);
  ts_fe_destroy(&pd->stokes->pressure_fe);
  ts_free(&pd->stokes);
}

/* ---------------------------------------------------------------- gather, scatter */

/* field f's owned box of the block of cells [start, end) per direction, in one-process
 * indices [lo, hi) */
static void owned_box(const ts_parallel_dofs pd, int f, const int64_t *start, const int64_t *end,
                      int64_t *lo, int64_t *hi) {
  const int dim = pd->par->dim;
  for (int d = 0; d < 3; ++d) {
    lo[d] = 0;
    hi[d] = 1;
    if (d < dim) owned_range(f, d, pd->degree + 1, start[d], end[d], &lo[d], &hi[d]);
  }
}

/* the entries of box [lo, hi) of an array of n[] (from `offset`) to or from packed, in order */
static int64_t copy_box(const int64_t *n, int64_t offset, const int64_t *lo, const int64_t *hi,
                        double *array, double *packed, int to_packed) {
  int64_t i[3], count = 0;
  for (i[2] = lo[2]; i[2] < hi[2]; ++i[2])
    for (i[1] = lo[1]; i[1] < hi[1]; ++i[1])
      for (i[0] = lo[0]; i[0] < hi[0]; ++i[0], ++count) {
        double *a = array + offset + ts_parallel_box_index(n, i);
        if (to_packed) packed[count] = *a;
        else *a = packed[count];
      }
  return count;
}

/* this block's owned entries of v, field after field, into packed; their count */
static int64_t pack_owned(ts_parallel_dofs pd, double *local, double *packed) {
  const ts_parallel_stokes *s = pd->stokes;
  int64_t count = 0;
  for (int f = 0; f < s->fields; ++f)
    count += copy_box(s->n[f], s->offset[f], s->own_lo[f], s->own_hi[f], local, packed + count, 1);
  return count;
}

int ts_parallel_stokes_gather(ts_parallel_dofs pd, ts_vec v, double *global) {
  const ts_parallel par = pd->par;
  const ts_parallel_stokes *s = pd->stokes;
  int *counts = NULL, *displs = NULL, ierr;
  double *packed = NULL, *all = NULL;
  ierr = ts_calloc((size_t)par->size, sizeof *counts, "gather counts", &counts);
  if (!ierr) ierr = ts_calloc((size_t)par->size, sizeof *displs, "gather offsets", &displs);
  if (!ierr) ierr = ts_calloc((size_t)pd->count, sizeof *packed, "gather", &packed);
  if (!ierr) ierr = ts_calloc((size_t)pd->layout.global_size, sizeof *all, "gather", &all);
  if (!ierr) ierr = ts_vec_get_to_host(v, pd->host);
  const int mine = ierr ? 0 : (int)pack_owned(pd, pd->host, packed);
  if (!ierr && MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, par->cart) != MPI_SUCCESS)
    ierr = TS_ERROR(TS_ERR_BACKEND, "MPI: MPI_Allgather failed");
  for (int r = 0; !ierr && r < par->size; ++r) displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
  if (!ierr && MPI_Allgatherv(packed, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE,
                              par->cart) != MPI_SUCCESS)
    ierr = TS_ERROR(TS_ERR_BACKEND, "MPI: MPI_Allgatherv failed");
  for (int r = 0; !ierr && r < par->size; ++r) {
    int c[3] = {0, 0, 0};
    int64_t start[3] = {0, 0, 0}, end[3] = {1, 1, 1}, at = displs[r];
    if (MPI_Cart_coords(par->cart, r, par->dim, c) != MPI_SUCCESS) {
      ierr = TS_ERROR(TS_ERR_BACKEND, "MPI: MPI_Cart_coords failed");
      break;
    }
    for (int d = 0; d < par->dim; ++d) ts_parallel_block_range(pd, d, c[d], &start[d], &end[d]);
    for (int f = 0; f < s->fields; ++f) {
      int64_t lo[3], hi[3];
      owned_box(pd, f, start, end, lo, hi);
      at += copy_box(s->global_n[f], s->global_offset[f], lo, hi, global, all + at, 0);
    }
  }
  ts_free(&counts);
  ts_free(&displs);
  ts_free(&packed);
  ts_free(&all);
  return ierr;
}

/* ---------------------------------------------------------------- the operator */

typedef struct parallel_stokes {
  ts_parallel_dofs pd;          /* borrowed */
  ts_operator block;            /* the one-process operator of the extended block */
  ts_saddle saddle;             /* its vectors distributed */
} parallel_stokes;

int ts_parallel_stokes_block_apply(ts_operator A, ts_vec x, ts_vec y, int add) {
  const parallel_stokes *o = A->data;
  const ts_stokes_plan *plan;
  TS_CALL(ts_operator_stokes_plan(o->block, &plan));
  TS_CALL(ts_backend_stokes_apply(A->backend, plan, TS_DOUBLE, x->data, y->data, add));
  return 0;
}

/* y (+)= A x: x's ghost layers refreshed, then the block's kernel on the extended block */
static int parallel_stokes_apply(ts_operator A, ts_vec x, ts_vec y, int add) {
  const parallel_stokes *o = A->data;
  TS_CALL(ts_parallel_check_vec(o->pd, x, "distributed Stokes operator (x)"));
  TS_CALL(ts_parallel_check_vec(o->pd, y, "distributed Stokes operator (y)"));
  TS_CHECK_ARG(x != y, "distributed Stokes operator: x and y must be different vectors");
  TS_CALL(ts_parallel_stokes_refresh(o->pd, x));
  return ts_parallel_stokes_block_apply(A, x, y, add);
}

static double parallel_stokes_flops(ts_operator A) {
  const parallel_stokes *o = A->data;
  return ts_operator_flops(o->block);
}

static void parallel_stokes_destroy(ts_operator A) {
  parallel_stokes *o = A->data;
  if (!o) return;
  ts_operator_destroy(&o->block);
  ts_vec_destroy(&o->saddle.mean_weights);
  ts_vec_destroy(&o->saddle.pressure_indicator);
  ts_free(&A->data);
}

static const ts_saddle *parallel_stokes_saddle(ts_operator A) {
  return &((const parallel_stokes *)A->data)->saddle;
}

static int not_distributed(ts_operator A, ts_vec d) {
  (void)A, (void)d;
  return TS_ERROR(TS_ERR_UNSUPPORTED, "distributed Stokes: the diagonals of the blocks are not "
                  "distributed yet (the block preconditioners take one process)");
}

static const ts_operator_ops parallel_stokes_ops = {
    .name = "distributed stokes",
    .apply = parallel_stokes_apply,
    .flops = parallel_stokes_flops,
    .destroy = parallel_stokes_destroy,
    .saddle = parallel_stokes_saddle,
};

/* The pressure mean's vectors of the one-process operator (lib/op/stokes.c) distributed:
 * the weights W_q / (the whole level's cells), the indicator of the pressure field.  A
 * pressure DoF's Gauss weight depends on its index within its cell, which the extended block
 * numbers as the whole level does. */
static int create_mean_vectors(parallel_stokes *o) {
  const ts_parallel_dofs pd = o->pd;
  const int64_t first = pd->stokes->offset[pd->par->dim];
  double cells = 1.0;
  for (int d = 0; d < pd->par->dim; ++d) cells *= (double)pd->cells[d];
  TS_CALL(ts_parallel_vec_create(pd, &o->saddle.mean_weights));
  TS_CALL(ts_parallel_vec_create(pd, &o->saddle.pressure_indicator));
  for (int64_t q = 0; q < pd->count; ++q)
    pd->host[q] = q < first ? 0.0 : ts_stokes_pressure_weight(o->block, q - first) / cells;
  TS_CALL(ts_vec_set_from_host(o->saddle.mean_weights, pd->host));
  for (int64_t q = 0; q < pd->count; ++q) pd->host[q] = q >= first;
  return ts_vec_set_from_host(o->saddle.pressure_indicator, pd->host);
}

int ts_parallel_operator_create_stokes(ts_parallel_dofs pd, double penalty, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(pd);
  TS_CHECK_ARG(pd->stokes, "%s: the DoFs are Q_k (ts_parallel_dofs_create); the Stokes "
               "operator takes ts_parallel_dofs_create_stokes's", __func__);
  parallel_stokes *o;
  TS_CALL(ts_calloc(1, sizeof *o, "distributed Stokes operator", &o));
  o->pd = pd;
  int ierr = ts_operator_create_stokes(pd->backend, pd->dofs, pd->stokes->pressure, penalty,
                                       TS_DOUBLE, &o->block);
  if (!ierr) {
    o->saddle = (ts_saddle){.velocity_count = pd->stokes->offset[pd->par->dim],
                            .pressure_count = pd->count - pd->stokes->offset[pd->par->dim],
                            .velocity_diagonal = not_distributed,
                            .pressure_mass_diagonal = not_distributed};
    ierr = create_mean_vectors(o);
  }
  if (!ierr) ierr = ts_operator_create_shell(pd->backend, &parallel_stokes_ops, pd->count,
                                             TS_DOUBLE, o, op);
  if (ierr) {
    ts_operator_destroy(&o->block);
    ts_vec_destroy(&o->saddle.mean_weights);
    ts_vec_destroy(&o->saddle.pressure_indicator);
    ts_free(&o);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Stokes operator");
  }
  (*op)->layout = &pd->layout;
  return 0;
}

int ts_parallel_stokes_block(ts_operator A, ts_operator *block) {
  TS_CHECK_ARG(A && A->ops == &parallel_stokes_ops, "the operator is %s, the distributed Stokes "
               "operator (ts_parallel_operator_create_stokes) is required",
               A ? A->ops->name : "NULL");
  *block = ((const parallel_stokes *)A->data)->block;
  return 0;
}
