/* patch.c -- the multiplicative vertex-patch smoother (paper 002, Algorithm 2.3) on a
 * distributed Q_k Laplacian of a box (doc/parallel.md, section 5): the one-process sweep, bit
 * for bit, with the box's patch kernel unchanged.
 *
 * A patch around vertex v (2^dim cells) changes the DoFs strictly inside its cells and reads
 * its closed cells.  Every patch that changes a DoF of the block is centred at a vertex of
 * the block's closed cells, so it reads at most one cell beyond the block: each process runs
 * the kernel on its **extended block**, the block's cells and one layer of ghost cells on
 * each side that has a neighbour (corners included), with vectors of that box.  Per step:
 *   1. b and x copied into the extended vectors, their ghost layers filled from the
 *      neighbours (refresh below), the box's Dirichlet DoFs of x zeroed (the one-process
 *      kernel reads them as zero; the extended kernel is unconstrained, since its outer faces
 *      are mostly interfaces, whose values it must read); from a zero x (as a
 *      preconditioner, ts_pc_create_smoother) the extended x is zeroed instead;
 *   2. the 2^dim colors in the one-process order, each translated to the extended box's
 *      vertex parity (the global color XOR the parity of the extended box's first cell),
 *      the ghost layer of x refreshed after each color but the last, across the interfaces
 *      whose neighbouring vertices have the color's parity (interface_changed): the patches
 *      of a color centred on an interface vertex are computed by the blocks on both sides,
 *      from the same values, to the same bits; those the extended box cannot compute
 *      (centred on its outer faces) only change ghost DoFs, which the refresh overwrites;
 *   3. the block's part of x copied back, and x = b on the Dirichlet DoFs.
 * The refresh is direction by direction: each block sends the k planes of DoFs next to its
 * interface plane (its own cells) to the neighbour there, which writes them into its ghost
 * layer; a direction's slab spans the whole extended box in the other directions, so the
 * corner cells arrive through the earlier directions.  A slab is one ts_plane (vec_plane_pack
 * and _unpack carry it as they carry the halo's planes).  The sub-box copies are a plane per
 * DoF layer (TS_MAX_PLANES per launch). */
#include <string.h>
#include "parallel-impl.h"

typedef struct parallel_patch {
  ts_parallel_dofs pd;          /* borrowed */
  ts_mesh mesh;                 /* owned: the extended block's box of cells */
  ts_dofs dofs;                 /* owned: its DoFs (the whole mesh's cell size) */
  ts_vertex_patch_sweep sweep;  /* on the extended box, unconstrained */
  int64_t n[3];                 /* the extended box's DoFs per direction (1 beyond dim) */
  int64_t at[3];                /* the block's first DoF in the extended box */
  int parity;                   /* bit d: the parity of the extended box's first cell index */
  int dirichlet[3][2];          /* the extended box's lower and upper face of direction d on
                                   the box's boundary: at the box's end, or (a neighbour of
                                   one cell) a ghost layer that reaches it */
  ts_vec x, b;                  /* extended vectors */
  ts_parallel_buffers buffers;  /* a direction's two slabs */
} parallel_patch;

/* planes [from, from + thickness) of direction d of the extended box, spanning it in the
 * other directions */
static ts_plane slab(const parallel_patch *p, int d, int64_t from, int64_t thickness) {
  return ts_parallel_slab(p->n, d, from, thickness);
}

/* Whether the patches of `color` (-1: any change) change DoFs across the interface at vertex
 * `at` of direction d that the other side cannot compute: the patches centred at the vertices
 * next to it, at - 1 (the lower block's, which the upper one does not compute) and at + 1
 * (the upper block's).  Both have the parity of at - 1, whose color bit is (at - 2) & 1 =
 * at & 1 (ts_vertex_patch_color: vertex v has bit (v - 1) & 1); the patches centred on the
 * interface itself are computed on both sides.  The two blocks of the interface decide alike,
 * so both take part in the exchange or neither.  A ghost cell of an edge or a corner changed
 * by a patch no face neighbour computes arrives through the interfaces of the directions in
 * which that patch is off-centre, each of which is refreshed. */
static int interface_changed(int color, int d, int64_t at) {
  return color < 0 || ((color >> d) & 1) == (int)(at & 1);
}

/* direction d of the refresh of v's ghost layer after `color`: the k planes beyond each
 * interface plane from the neighbour there, where they changed */
static int refresh_direction(parallel_patch *p, ts_vec v, int d, int color) {
  const ts_parallel par = p->pd->par;
  const int64_t k = p->pd->degree, n = p->n[d];
  ts_parallel_message m[TS_MAX_PEER_MESSAGES];
  int count = 0;
  if (par->lower[d] != MPI_PROC_NULL && interface_changed(color, d, p->pd->cell_start[d]))
    m[count++] = (ts_parallel_message){.to = par->lower[d], .from = par->lower[d], .planes = 1,
                                       .send = {slab(p, d, k + 1, k)}, /* after the interface k */
                                       .recv = {slab(p, d, 0, k)}};
  if (par->upper[d] != MPI_PROC_NULL && interface_changed(color, d, p->pd->cell_end[d]))
    m[count++] = (ts_parallel_message){.to = par->upper[d], .from = par->upper[d], .planes = 1,
                                       .send = {slab(p, d, n - 1 - 2 * k, k)}, /* before n-1-k */
                                       .recv = {slab(p, d, n - k, k)}};
  if (!count) return 0;
  return ts_parallel_exchange(p->pd, count, m, 0, &p->buffers, v);
}

/* whether this block exchanges anything after `color` */
static int any_interface_changed(const parallel_patch *p, int color) {
  const ts_parallel par = p->pd->par;
  int any = 0;
  for (int d = 0; d < par->dim; ++d)
    any |= (par->lower[d] != MPI_PROC_NULL && interface_changed(color, d, p->pd->cell_start[d])) ||
           (par->upper[d] != MPI_PROC_NULL && interface_changed(color, d, p->pd->cell_end[d]));
  return any;
}

/* v's ghost layer from the neighbours after the patches of `color` (-1: all of it; a halo
 * exchange, timed as one where this block takes part) */
static int refresh(parallel_patch *p, ts_vec v, int color) {
  if (!any_interface_changed(p, color)) return 0;
  double start;
  TS_CALL(ts_parallel_time_start(p->pd, v, &start));
  for (int d = 0; d < p->pd->par->dim; ++d) TS_CALL(refresh_direction(p, v, d, color));
  return ts_parallel_time_stop(p->pd, TS_PARALLEL_TIME_HALO, v, start);
}

/* The block's vector v into the block's part of the extended vector e (to_extended), or
 * back: one plane per DoF layer of direction 2 (2D: one plane), TS_MAX_PLANES per call, v's
 * layers contiguous in the packed order of vec_plane_pack / _unpack. */
static int copy_block(parallel_patch *p, ts_vec v, ts_vec e, int to_extended) {
  int64_t end[3];
  for (int d = 0; d < 3; ++d) end[d] = p->at[d] + p->pd->n[d];
  return ts_parallel_box_copy(p->pd->backend, e->precision, p->n, p->at, end, e->data, v->data,
                              !to_extended);
}

/* the extended box's faces on the box's boundary (the Dirichlet DoFs) zeroed in e */
static int clear_dirichlet(parallel_patch *p, ts_vec e) {
  ts_plane planes[TS_MAX_PLANES];
  int count = 0;
  for (int d = 0; d < p->pd->par->dim; ++d) {
    if (p->dirichlet[d][0]) planes[count++] = slab(p, d, 0, 1);
    if (p->dirichlet[d][1]) planes[count++] = slab(p, d, p->n[d] - 1, 1);
  }
  if (count)
    TS_BACKEND_CALL(p->pd->backend, vec_plane_unpack, e->precision, 0, count, planes, NULL,
                    e->data);
  return 0;
}

/* one step on the extended box from x (zero: x = 0, not read, its extended vector zeroed
 * instead of copied and refreshed: the same bits) */
static int sweep(ts_smoother s, ts_vec b, ts_vec x, int zero) {
  parallel_patch *p = s->data;
  ts_parallel_dofs pd = p->pd;
  TS_CALL(ts_parallel_check_vec(pd, b, "distributed vertex-patch smoother (b)"));
  TS_CALL(ts_parallel_check_vec(pd, x, "distributed vertex-patch smoother (x)"));
  TS_CHECK_ARG(b != x, "distributed vertex-patch smoother: b and x must be different vectors");
  TS_CHECK_ARG(b->precision == p->x->precision && x->precision == p->x->precision,
               "distributed vertex-patch smoother: b is %s and x %s precision, the smoother %s",
               ts_precision_name(b->precision), ts_precision_name(x->precision),
               ts_precision_name(p->x->precision));
  TS_CALL(copy_block(p, b, p->b, 1));
  TS_CALL(refresh(p, p->b, -1));
  if (zero) {
    TS_CALL(ts_vec_set(p->x, 0.0));
  } else {
    TS_CALL(copy_block(p, x, p->x, 1));
    TS_CALL(refresh(p, p->x, -1));
    TS_CALL(clear_dirichlet(p, p->x));
  }
  const int colors = ts_vertex_patch_color_count(pd->par->dim);
  for (int c = 0; c < colors; ++c) {
    TS_CALL(ts_vertex_patch_sweep_color(p->sweep, c ^ p->parity, p->b, p->x));
    if (c + 1 < colors) TS_CALL(refresh(p, p->x, c));
  }
  TS_CALL(copy_block(p, x, p->x, 0));
  TS_CALL(ts_parallel_planes_save(pd, TS_PLANES_DIRICHLET, b)); /* x = b on the Dirichlet DoFs */
  return ts_parallel_planes_restore(pd, TS_PLANES_DIRICHLET, x);
}

static int parallel_patch_apply(ts_smoother s, ts_vec b, ts_vec x) { return sweep(s, b, x, 0); }

static int parallel_patch_apply_zero(ts_smoother s, ts_vec b, ts_vec x) {
  return sweep(s, b, x, 1);
}

static void parallel_patch_free(parallel_patch *p) {
  if (!p) return;
  ts_vertex_patch_sweep_destroy(&p->sweep);
  ts_vec_destroy(&p->x);
  ts_vec_destroy(&p->b);
  ts_parallel_buffers_destroy(p->pd->backend, &p->buffers);
  ts_dofs_destroy(&p->dofs);
  ts_mesh_destroy(&p->mesh);
  ts_free(&p);
}

static void parallel_patch_destroy(ts_smoother s) {
  parallel_patch_free(s->data);
  s->data = NULL;
}

static const ts_smoother_ops parallel_patch_ops = {
    .name = "vertex-patch",
    .apply = parallel_patch_apply,
    .destroy = parallel_patch_destroy,
    .apply_zero = parallel_patch_apply_zero,
};

/* the extended box: its cells (a ghost layer where a neighbour is), DoFs, sweep and vectors
 * in precision pr, and the buffers of its largest slab pair */
static int extended_setup(parallel_patch *p, ts_patch_variant variant, ts_precision pr) {
  ts_parallel_dofs pd = p->pd;
  const ts_parallel par = pd->par;
  const int dim = par->dim, k = pd->degree;
  double lower[3], upper[3], h[3];
  int cells[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    p->n[d] = pd->n[d];
    p->at[d] = 0;
  }
  for (int d = 0; d < dim; ++d) {
    const int lo = par->lower[d] != MPI_PROC_NULL, hi = par->upper[d] != MPI_PROC_NULL;
    const int64_t first = pd->cell_start[d] - lo;
    cells[d] = (int)(pd->cell_end[d] - pd->cell_start[d] + lo + hi);
    h[d] = pd->dofs->h[d];
    lower[d] = (double)first; /* the box's corners do not enter the plan: h does */
    upper[d] = (double)(first + cells[d]);
    p->n[d] = (int64_t)cells[d] * k + 1;
    p->at[d] = lo * k;
    p->parity |= (int)(first & 1) << d;
    p->dirichlet[d][0] = first == 0;
    p->dirichlet[d][1] = first + cells[d] == pd->cells[d];
  }
  TS_CALL(ts_mesh_create_box(dim, lower, upper, cells, 0, &p->mesh));
  TS_CALL(ts_dofs_create(p->mesh, pd->dofs->fe, 0, &p->dofs));
  for (int d = 0; d < dim; ++d) p->dofs->h[d] = h[d]; /* the one-process plan's bits */
  TS_CALL(ts_vertex_patch_sweep_create(pd->backend, p->dofs, pr, variant, 0, &p->sweep));
  TS_CALL(ts_vec_create(pd->backend, p->dofs->count, pr, &p->x));
  TS_CALL(ts_vec_create(pd->backend, p->dofs->count, pr, &p->b));
  int64_t largest = 0;
  for (int d = 0; d < dim; ++d) {
    const ts_plane one = slab(p, d, 0, k);
    if (largest < one.width * one.height) largest = one.width * one.height;
  }
  return ts_parallel_buffers_create(pd->backend, largest * TS_MAX_PEER_MESSAGES, &p->buffers);
}

int ts_parallel_smoother_create_vertex_patch(ts_operator A, ts_parallel_dofs pd,
                                             ts_patch_variant variant, ts_smoother *smoother) {
  TS_CHECK_NOT_NULL(smoother);
  *smoother = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(pd);
  TS_CHECK_ARG(!pd->mesh->map, "ts_parallel_smoother_create_vertex_patch: the DoFs are on a "
               "mapped mesh; the vertex patches take a box (on mapped cells: Chebyshev on the "
               "additive patches, not distributed yet)");
  TS_CHECK_ARG(A->layout && A->layout->dist == pd && A->n == pd->dofs->count &&
               !strcmp(A->ops->name, "distributed laplace"),
               "ts_parallel_smoother_create_vertex_patch: A is not the distributed Laplacian of "
               "these DoFs (ts_parallel_operator_create_laplace)");
  TS_CALL(ts_vertex_patch_check(A, pd->dofs, variant, "ts_parallel_smoother_create_vertex_patch"));
  parallel_patch *p;
  TS_CALL(ts_calloc(1, sizeof *p, "distributed vertex-patch smoother", &p));
  p->pd = pd;
  int ierr = extended_setup(p, variant, A->precision);
  if (!ierr) ierr = ts_smoother_create_shell(A, &parallel_patch_ops, p, smoother);
  if (ierr) {
    parallel_patch_free(p);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed vertex-patch smoother");
  }
  return 0;
}
