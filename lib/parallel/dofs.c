/* dofs.c -- ts_parallel_dofs: the Q_k DoFs of a box or a mapped mesh split into blocks of
 * cells, one block per process (doc/parallel.md).  Each process numbers its block's DoFs
 * lexicographically, as a one-process run of the block would (ts_dofs_create on the block's
 * box); the DoFs on an interface belong to both blocks, owned by the lower one and ghosts of
 * the upper one.
 * Here: the split, the Dirichlet mask (made when asked for, not kept: the other masks are
 * planes, halo.c), the distributed vectors, their dot product, random entries, gather and
 * scatter. */
#include <limits.h>
#include <string.h>
#include "parallel-impl.h"

/* A block of a mapped mesh: the whole mesh's map (a function of the reference point, so the
 * block needs nothing of the other blocks), sampled at the whole level's reference points
 * of the block's cells (the one-process nodes, bit for bit); every face of the block Neumann,
 * so that the block's operator (ts_operator_create_mapped) constrains nothing - the box's
 * Dirichlet rows are the masks' (laplace.c), as on a box. */
static int map_block(ts_parallel_dofs pd, ts_mesh mesh, const int64_t *start) {
  ts_mesh block = pd->mesh;
  block->map = mesh->map;
  block->map_ctx = mesh->map_ctx;
  block->geometry = mesh->geometry;
  memcpy(block->map_params, mesh->map_params, sizeof block->map_params);
  pd->dofs->neumann_faces = TS_FACES_ALL(mesh->dim);
  return ts_geometry_nodes_init_block(pd->dofs, mesh->lower, start);
}

/* the block's box of cells at `level`, numbered as the whole mesh's cells [start, end) per
 * direction; its DoFs with the whole mesh's cell size (and a mapped mesh's geometry) */
int ts_parallel_cells_box(ts_mesh mesh, int level, const int64_t *start, const int64_t *end,
                          ts_mesh *box, double *h) {
  double lower[3], upper[3];
  int cells[3] = {1, 1, 1};
  const int dim = mesh->dim;
  TS_CALL(ts_mesh_cell_size(mesh, level, h));
  for (int d = 0; d < dim; ++d) {
    TS_CHECK_ARG(end[d] - start[d] <= INT_MAX, "distributed DoFs: %lld cells in direction %d on "
                 "one process, allowed %d", (long long)(end[d] - start[d]), d, INT_MAX);
    cells[d] = (int)(end[d] - start[d]);
    lower[d] = mesh->lower[d] + h[d] * (double)start[d];
    upper[d] = mesh->lower[d] + h[d] * (double)end[d];
  }
  return ts_mesh_create_box(dim, lower, upper, cells, 0, box);
}

int ts_parallel_cells_dofs(ts_mesh box, ts_fe fe, const double *h, ts_dofs *dofs) {
  TS_CALL(ts_dofs_create(box, fe, 0, dofs));
  /* the whole mesh's cell size, not the box's recomputed one: every block's plan then has
   * the bits of the one-process plan */
  for (int d = 0; d < box->dim; ++d) (*dofs)->h[d] = h[d];
  return 0;
}

static int create_block(ts_parallel_dofs pd, ts_mesh mesh, ts_fe fe, int level,
                        const int64_t *start, const int64_t *end) {
  double h[3];
  TS_CALL(ts_parallel_cells_box(mesh, level, start, end, &pd->mesh, h));
  TS_CALL(ts_parallel_cells_dofs(pd->mesh, fe, h, &pd->dofs));
  return mesh->map ? map_block(pd, mesh, start) : 0;
}

/* on the box's boundary: an end of the whole mesh in some direction */
static int is_dirichlet(ts_parallel_dofs pd, const int64_t *i) {
  for (int d = 0; d < pd->par->dim; ++d) {
    const int64_t g = pd->offset[d] + i[d];
    if (g == 0 || g == pd->global_n[d] - 1) return 1;
  }
  return 0;
}

void ts_parallel_dirichlet_mask_host(ts_parallel_dofs pd, double *h) {
  int64_t i[3];
  for (i[2] = 0; i[2] < pd->n[2]; ++i[2])
    for (i[1] = 0; i[1] < pd->n[1]; ++i[1])
      for (i[0] = 0; i[0] < pd->n[0]; ++i[0])
        h[ts_parallel_box_index(pd->n, i)] = is_dirichlet(pd, i);
}

int ts_parallel_dirichlet_mask_create(ts_parallel_dofs pd, ts_vec *mask) {
  ts_parallel_dirichlet_mask_host(pd, pd->host);
  TS_CALL(ts_vec_create(pd->backend, pd->dofs->count, TS_DOUBLE, mask));
  const int ierr = ts_vec_set_from_host(*mask, pd->host);
  if (ierr) ts_vec_destroy(mask);
  return ierr;
}

/* the layout of pd's vectors: the owned DoFs numbered process after process */
int ts_parallel_layout_init(ts_parallel_dofs pd, long long owned) {
  long long before = 0, total = 0;
  TS_MPI_CALL("MPI_Exscan", MPI_Exscan(&owned, &before, 1, MPI_LONG_LONG, MPI_SUM, pd->par->cart));
  TS_MPI_CALL("MPI_Allreduce", MPI_Allreduce(&owned, &total, 1, MPI_LONG_LONG, MPI_SUM,
                                             pd->par->cart));
  if (pd->par->rank == 0) before = 0; /* MPI_Exscan leaves rank 0's undefined */
  pd->layout = (struct ts_layout_s){.global_size = total, .begin = before, .end = before + owned,
                                    .processes = pd->par->size, .dist = pd};
  return 0;
}

/* the layout of pd's vectors: the owned box of the block */
static int init_layout(ts_parallel_dofs pd) {
  long long owned = 1;
  for (int d = 0; d < 3; ++d) owned *= pd->n[d] - pd->first_owned[d];
  return ts_parallel_layout_init(pd, owned);
}

/* The cells [*start, *end) of direction d that the block at coordinate coord gets: the
 * cells of the split level (level 0, or a Stokes hierarchy's coarse level) dealt out and
 * refined to the level (nested: the blocks of all levels are refinements of each other, as
 * multigrid's transfers need), or, where the split level has fewer cells than processes in
 * some direction, the level's own cells dealt out. */
static void split_range(ts_parallel par, int nested, const int64_t *cells0, const int64_t *cells,
                        int refinements, int d, int coord, int64_t *start, int64_t *end) {
  if (nested) {
    ts_parallel_split(cells0[d], par->procs[d], coord, start, end);
    *start <<= refinements;
    *end <<= refinements;
  } else {
    ts_parallel_split(cells[d], par->procs[d], coord, start, end);
  }
}

void ts_parallel_block_range(ts_parallel_dofs pd, int d, int coord, int64_t *start, int64_t *end) {
  split_range(pd->par, pd->nested, pd->cells0, pd->cells, pd->level - pd->split_level, d, coord,
              start, end);
}

/* whether every direction has at least as many cells of the split level as processes */
static int blocks_nest(ts_parallel par, const int64_t *cells0) {
  int nested = 1;
  for (int d = 0; d < par->dim; ++d) nested = nested && cells0[d] >= par->procs[d];
  return nested;
}

/* whether the largest block of cells[] dealt out is at most TS_PARALLEL_IMBALANCE above the
 * mean: the distributed levels refine the split level's blocks, so they keep its balance,
 * and every process waits for the largest block at every level */
static int blocks_balanced(ts_parallel par, const int64_t *cells) {
  int64_t largest = 1, total = 1;
  for (int d = 0; d < par->dim; ++d) {
    largest *= (cells[d] + par->procs[d] - 1) / par->procs[d];
    total *= cells[d];
  }
  return (double)largest * par->size <= (1.0 + TS_PARALLEL_IMBALANCE) * (double)total;
}

/* the lowest level of coarse..finest that can be dealt out, has min_cells per process and
 * (with `balanced`) balanced blocks; -1 when none (or the mesh lacks a level: the finest's
 * DoFs report it) */
static int first_split(ts_parallel par, ts_mesh mesh, int coarse, int finest, int balanced) {
  for (int level = coarse; level <= finest; ++level) {
    int64_t cells[3];
    if (ts_mesh_cells(mesh, level, cells)) return -1;
    int64_t total = 1;
    for (int d = 0; d < par->dim; ++d) total *= cells[d];
    if (blocks_nest(par, cells) && total / par->size >= par->agglomerate_cells &&
        (!balanced || blocks_balanced(par, cells)))
      return level;
  }
  return -1;
}

int ts_parallel_split_level(ts_parallel par, ts_mesh mesh, int coarse, int finest) {
  int level = first_split(par, mesh, coarse, finest, 1);
  if (level < 0) level = first_split(par, mesh, coarse, finest, 0); /* no level balances */
  return level < 0 ? finest : level;
}

int ts_parallel_block_cells(ts_parallel par, ts_mesh mesh, int level, int split_level,
                            int64_t *cells) {
  int64_t cells0[3], all[3], start, end;
  TS_CALL(ts_mesh_cells(mesh, split_level, cells0));
  TS_CALL(ts_mesh_cells(mesh, level, all));
  const int nested = blocks_nest(par, cells0);
  for (int d = 0; d < 3; ++d) {
    cells[d] = 1;
    if (d >= par->dim) continue;
    split_range(par, nested, cells0, all, level - split_level, d, par->coords[d], &start, &end);
    cells[d] = end - start;
  }
  return 0;
}

int ts_parallel_block_setup(ts_parallel_dofs pd, ts_mesh mesh, int level, int split_level) {
  const ts_parallel par = pd->par;
  int64_t *cells = pd->cells;
  TS_CALL(ts_mesh_cells(mesh, level, cells));
  TS_CALL(ts_mesh_cells(mesh, split_level, pd->cells0));
  pd->level = level;
  pd->split_level = split_level;
  for (int d = 0; d < par->dim; ++d)
    TS_CHECK_ARG(cells[d] >= par->procs[d],
                 "ts_parallel_dofs_create: %lld cells in direction %d on level %d for %d "
                 "processes, allowed at least one cell per process",
                 (long long)cells[d], d, level, par->procs[d]);
  pd->nested = blocks_nest(par, pd->cells0);
  for (int d = 0; d < 3; ++d) {
    pd->cell_start[d] = 0;
    pd->cell_end[d] = 1;
  }
  for (int d = 0; d < par->dim; ++d)
    ts_parallel_block_range(pd, d, par->coords[d], &pd->cell_start[d], &pd->cell_end[d]);
  return 0;
}

static int setup(ts_parallel_dofs pd, ts_mesh mesh, ts_fe fe, int level, int split_level) {
  const ts_parallel par = pd->par;
  const int k = fe->degree;
  const int64_t *start = pd->cell_start, *end = pd->cell_end, *cells = pd->cells;
  TS_CALL(ts_parallel_block_setup(pd, mesh, level, split_level));
  TS_CALL(create_block(pd, mesh, fe, level, start, end));
  pd->count = pd->dofs->count;
  size_t plane = 1;
  for (int d = 0; d < 3; ++d) {
    pd->n[d] = pd->dofs->n[d];
    pd->global_n[d] = d < par->dim ? cells[d] * k + 1 : 1;
    pd->offset[d] = d < par->dim ? start[d] * k : 0;
    pd->first_owned[d] = par->lower[d] != MPI_PROC_NULL;
  }
  for (int d = 0; d < par->dim; ++d) /* the largest plane: across direction d, count / n_d */
    if (plane < (size_t)(pd->dofs->count / pd->n[d])) plane = (size_t)(pd->dofs->count / pd->n[d]);
  TS_CALL(ts_calloc((size_t)pd->dofs->count, sizeof *pd->host, "halo staging", &pd->host));
  TS_CALL(ts_parallel_halo_create(pd, plane));
  TS_CALL(init_layout(pd));
  return 0;
}

int ts_parallel_dofs_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                            int level, ts_parallel_dofs *pd) {
  return ts_parallel_qk_dofs_create(backend, par, mesh, fe, level, 0, pd);
}

int ts_parallel_qk_dofs_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                               int level, int split_level, ts_parallel_dofs *pd) {
  TS_CHECK_NOT_NULL(pd);
  *pd = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(par);
  TS_CHECK_NOT_NULL(mesh);
  TS_CHECK_NOT_NULL(fe);
  TS_CHECK_ARG(mesh->dim == par->dim, "ts_parallel_dofs_create: the mesh is %dD, the split %dD",
               mesh->dim, par->dim);
  TS_CHECK_ARG(fe->dim == par->dim, "ts_parallel_dofs_create: the element is %dD, the split %dD",
               fe->dim, par->dim);
  TS_CHECK_ARG(fe->family == TS_FE_Q, "ts_parallel_dofs_create: the element is not Q_k "
               "(only Q_k is distributed yet)");
  TS_CHECK_ARG(level >= 0 && level <= mesh->levels,
               "ts_parallel_dofs_create: level = %d, the mesh has 0..%d", level, mesh->levels);
  TS_CHECK_ARG(split_level >= 0 && split_level <= level, "ts_parallel_dofs_create: the cells of "
               "level %d dealt out for level %d, allowed 0..%d", split_level, level, level);
  if (!backend->ops.vec_plane_pack || !backend->ops.vec_plane_unpack)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "ts_parallel_dofs_create: backend '%s' has no kernel "
                    "'vec_plane_pack' or 'vec_plane_unpack' (backend ABI 17), which the halo "
                    "exchange needs", backend->name);
  ts_parallel_dofs p;
  TS_CALL(ts_calloc(1, sizeof *p, "distributed DoFs", &p));
  p->par = par;
  p->backend = backend;
  p->degree = fe->degree;
  const int ierr = setup(p, mesh, fe, level, split_level);
  if (ierr) {
    ts_parallel_dofs_destroy(&p);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed DoFs");
  }
  *pd = p;
  return 0;
}

int ts_parallel_dofs_destroy(ts_parallel_dofs *pd) {
  if (!pd || !*pd) return 0;
  ts_parallel_dofs p = *pd;
  ts_free(&p->host);
  ts_parallel_halo_destroy(p);
  ts_parallel_stokes_free(p);
  ts_dofs_destroy(&p->dofs);
  ts_mesh_destroy(&p->mesh);
  ts_free(pd);
  return 0;
}

ts_dofs ts_parallel_dofs_local(ts_parallel_dofs pd) {
  TS_GETTER_NOT_NULL(pd, NULL);
  return pd->dofs;
}

int64_t ts_parallel_dofs_global_count(ts_parallel_dofs pd) {
  TS_GETTER_NOT_NULL(pd, -1);
  return pd->layout.global_size;
}

/* the one-process index of local DoF `local` (in range) */
static int64_t global_index(ts_parallel_dofs pd, int64_t local) {
  if (pd->stokes) return ts_parallel_stokes_global_index(pd, local);
  const int64_t i[3] = {pd->offset[0] + local % pd->n[0],
                        pd->offset[1] + (local / pd->n[0]) % pd->n[1],
                        pd->offset[2] + local / (pd->n[0] * pd->n[1])};
  return ts_parallel_box_index(pd->global_n, i);
}

int64_t ts_parallel_dofs_global_index(ts_parallel_dofs pd, int64_t local) {
  TS_GETTER_NOT_NULL(pd, -1);
  TS_GETTER_CHECK(local >= 0 && local < pd->count, -1,
                  "ts_parallel_dofs_global_index: local = %lld, allowed 0..%lld",
                  (long long)local, (long long)pd->count - 1);
  return global_index(pd, local);
}

int ts_parallel_vec_create_precision(ts_parallel_dofs pd, ts_precision p, ts_vec *v) {
  TS_CALL(ts_vec_create(pd->backend, pd->count, p, v));
  (*v)->layout = pd->layout;
  return 0;
}

int ts_parallel_vec_create(ts_parallel_dofs pd, ts_vec *v) {
  TS_CHECK_NOT_NULL(v);
  *v = NULL;
  TS_CHECK_NOT_NULL(pd);
  return ts_parallel_vec_create_precision(pd, TS_DOUBLE, v);
}

int ts_parallel_check_vec(ts_parallel_dofs pd, ts_vec v, const char *caller) {
  TS_CHECK_ARG(v, "%s: the vector is NULL", caller);
  TS_CHECK_ARG(v->layout.dist == pd && v->n == pd->count,
               "%s: the vector is not a distributed vector of these DoFs (ts_parallel_vec_create)",
               caller);
  return 0;
}

/* sum over the owned DoFs of x_i y_i, then over the processes in rank order.  The ghosts
 * lie on planes: x's ghost planes are zeroed for the dot product and restored (y's too when
 * it is x), the owned mask's terms at the cost of the planes instead of vector passes. */
int ts_parallel_dot(ts_vec x, ts_vec y, double *result) {
  ts_parallel_dofs pd = x->layout.dist ? x->layout.dist : y->layout.dist;
  double local;
  TS_CALL(ts_parallel_check_vec(pd, x, "ts_vec_dot"));
  TS_CALL(ts_parallel_check_vec(pd, y, "ts_vec_dot"));
  TS_CALL(ts_parallel_planes_zero(pd, TS_PLANES_GHOST, x));
  const int ierr = x->backend->ops.vec_dot(&x->backend->ops, x->precision, x->n, x->data,
                                           y->data, &local);
  TS_CALL(ts_parallel_planes_restore(pd, TS_PLANES_GHOST, x));
  if (ierr) return ts_backend_error(x->backend, ierr, "vec_dot", __FILE__, __LINE__);
  double start; /* the device's work is done: its partial sum is on the host */
  TS_CALL(ts_parallel_time_start(pd, x, &start));
  TS_CALL(ts_parallel_sum(pd->par, local, result));
  return ts_parallel_time_stop(pd, TS_PARALLEL_TIME_REDUCTION, x, start);
}

/* the entries the backends' vec_random draws at the one-process indices */
int ts_parallel_random(ts_vec v, uint64_t seed) {
  ts_parallel_dofs pd = v->layout.dist;
  for (int64_t i = 0; i < v->n; ++i) pd->host[i] = ts_random_entry(seed, (uint64_t)global_index(pd, i));
  TS_CALL(ts_vec_set_from_host(v, pd->host));
  return 0;
}

int ts_parallel_vec_scatter(const double *global, ts_vec v) {
  TS_CHECK_NOT_NULL(global);
  TS_CHECK_NOT_NULL(v);
  ts_parallel_dofs pd = v->layout.dist;
  TS_CHECK_ARG(pd, "ts_parallel_vec_scatter: the vector is not distributed (ts_parallel_vec_create)");
  for (int64_t i = 0; i < v->n; ++i) pd->host[i] = global[global_index(pd, i)];
  TS_CALL(ts_vec_set_from_host(v, pd->host));
  return 0;
}

void ts_parallel_owned_box(ts_parallel_dofs pd, const int *c, int64_t *lo, int64_t *hi) {
  for (int d = 0; d < 3; ++d) {
    lo[d] = 0;
    hi[d] = 1;
  }
  for (int d = 0; d < pd->par->dim; ++d) {
    int64_t start, end;
    ts_parallel_block_range(pd, d, c[d], &start, &end);
    lo[d] = start * pd->degree + (c[d] > 0);
    hi[d] = end * pd->degree + 1;
  }
}

/* the owned box [lo, hi) from the packed array into the global vector */
static void unpack_box(ts_parallel_dofs pd, const int64_t *lo, const int64_t *hi,
                          const double *packed, double *global) {
  int64_t i[3], count = 0;
  for (i[2] = lo[2]; i[2] < hi[2]; ++i[2])
    for (i[1] = lo[1]; i[1] < hi[1]; ++i[1])
      for (i[0] = lo[0]; i[0] < hi[0]; ++i[0]) global[ts_parallel_box_index(pd->global_n, i)] = packed[count++];
}

/* every process's owned values, packed in its block's lexicographic order, to every process */
static int gather_packed(ts_parallel_dofs pd, ts_vec v, double *all, int *counts, int *displs) {
  int64_t i[3], count = 0;
  TS_CALL(ts_vec_get_to_host(v, pd->host));
  for (i[2] = pd->first_owned[2]; i[2] < pd->n[2]; ++i[2])
    for (i[1] = pd->first_owned[1]; i[1] < pd->n[1]; ++i[1])
      for (i[0] = pd->first_owned[0]; i[0] < pd->n[0]; ++i[0])
        pd->host[count++] = pd->host[ts_parallel_box_index(pd->n, i)]; /* in place: count <= index */
  const int mine = (int)count;
  TS_MPI_CALL("MPI_Allgather", MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, pd->par->cart));
  for (int r = 0; r < pd->par->size; ++r) displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
  TS_MPI_CALL("MPI_Allgatherv", MPI_Allgatherv(pd->host, mine, MPI_DOUBLE, all, counts, displs,
                                               MPI_DOUBLE, pd->par->cart));
  return 0;
}

int ts_parallel_vec_gather(ts_vec v, double *global) {
  TS_CHECK_NOT_NULL(v);
  TS_CHECK_NOT_NULL(global);
  ts_parallel_dofs pd = v->layout.dist;
  TS_CHECK_ARG(pd, "ts_parallel_vec_gather: the vector is not distributed (ts_parallel_vec_create)");
  TS_CHECK_ARG(pd->layout.global_size <= INT_MAX, "ts_parallel_vec_gather: %lld DoFs, allowed "
               "at most %d (gather is for tests and small problems)",
               (long long)pd->layout.global_size, INT_MAX);
  if (pd->stokes) return ts_parallel_stokes_gather(pd, v, global);
  const int size = pd->par->size;
  int *counts = NULL, *displs = NULL, ierr;
  double *all = NULL;
  ierr = ts_calloc((size_t)size, sizeof *counts, "gather counts", &counts);
  if (!ierr) ierr = ts_calloc((size_t)size, sizeof *displs, "gather offsets", &displs);
  if (!ierr) ierr = ts_calloc((size_t)pd->layout.global_size, sizeof *all, "gather", &all);
  if (!ierr) ierr = gather_packed(pd, v, all, counts, displs);
  for (int r = 0; !ierr && r < size; ++r) {
    int c[3] = {0, 0, 0};
    int64_t lo[3], hi[3];
    ierr = MPI_Cart_coords(pd->par->cart, r, pd->par->dim, c) != MPI_SUCCESS
               ? TS_ERROR(TS_ERR_BACKEND, "MPI: MPI_Cart_coords failed")
               : 0;
    ts_parallel_owned_box(pd, c, lo, hi);
    if (!ierr) unpack_box(pd, lo, hi, all + displs[r], global);
  }
  ts_free(&counts);
  ts_free(&displs);
  ts_free(&all);
  return ierr;
}
