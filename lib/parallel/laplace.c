/* laplace.c -- the Laplacian of the whole box (or of a mapped mesh, with coefficients)
 * applied block by block (doc/parallel.md).
 *
 * Each process holds the operator of its block, as a one-process run of the block would make
 * it, without the constraints, since its block's faces are mostly interfaces: on a box the
 * plan of its block (ts_laplace_plan_init), on a mapped mesh the block's
 * ts_operator_create_mapped (its DoFs have every face Neumann, dofs.c; the geometry is the
 * whole mesh's map at the block's cells).  With F the mask of the DoFs off the box's
 * boundary and D = 1 - F:
 *   y = F .* S(A_block (F .* x)) + D .* x,
 * S the sum of the interface rows over the blocks (ts_parallel_vec_sum_shared): the rows of
 * the one-process operator, Dirichlet DoFs read as zero and given identity rows, as
 * ts_operator_create_laplace and ts_operator_create_mapped do.  The diagonal alike:
 * F .* S(diag A_block) + D, diag A_block the box's Kronecker product or the mapped
 * operator's (summed over its cells).  The backend kernels are the one-process ones,
 * unchanged.  The masks of the application touch the Dirichlet DoFs alone, which lie on the
 * block's faces on the box's boundary: those planes of x are saved and zeroed, the block's
 * operator reads x (= F .* x), x's planes are restored, and after the sums they are written
 * into y (= F .* y + D .* x): the masks' numbers at the cost of the planes, not of
 * whole-vector passes (the diagonal, made once, clears the Dirichlet planes and adds a
 * Dirichlet mask made for it).
 *
 * In single precision (the levels of mixed-precision multigrid) the kernels and the
 * interface sums run on single-precision vectors; the diagonal is summed and masked in
 * double and rounded once.
 *
 * Overlap (doc/parallel.md section 3, "Overlap"; ts_parallel_set_overlap).  The interface sums read
 * and write only the block's interface planes, and only the cells of its boundary layer
 * (those with a face on an interface) touch them.  On a box, where the backend runs work
 * concurrently (laplace_apply_cells and side_join, backend ABI 20), a large enough block
 * zeroes y, adds the boundary layer's cells (slabs) on the main queue, queues the interior
 * cells on the side queue, and sums the interfaces on the main queue while the interior
 * runs; then the main queue joins the side queue before the Dirichlet planes are restored
 * (the interior reads x's and writes y's).  The same element matrices are added, in another
 * order. */
#include <string.h>
#include "parallel-impl.h"

typedef struct parallel_laplace {
  ts_parallel_dofs pd;         /* borrowed */
  ts_operator block;           /* a mapped mesh: the block's operator (unconstrained); NULL on
                                  a box, which has the plan */
  ts_laplace_plan plan;        /* a box: the block's, unconstrained */
  double matrices[2 * (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  ts_vec sum;                  /* the result before it is added to y: made by the first
                                  apply_add (a vector of the block's size, which the cycles
                                  never need) */
  /* a box's cells for the overlap: slabs[0..slabs) of the boundary layer and the interior
   * (the last); slabs = 0: no interface or no interior, the whole block at once */
  int slabs;
  int64_t lo[2 * 3 + 1][3], hi[2 * 3 + 1][3];
} parallel_laplace;

/* The pieces of the block's cells for the overlap into L: the interior, cells[d] without the
 * layer next to each interface, and the boundary layer as disjoint slabs, direction by
 * direction: the cells next to an interface of direction d whose coordinates in the
 * directions before d are interior. */
static void overlap_pieces(ts_parallel_dofs pd, parallel_laplace *L) {
  const ts_parallel par = pd->par;
  const int64_t *cells = L->plan.cells;
  int64_t in_lo[3] = {0, 0, 0}, in_hi[3];
  int interfaces = 0;
  for (int d = 0; d < 3; ++d) {
    in_hi[d] = cells[d];
    if (d >= par->dim) continue;
    if (par->lower[d] != MPI_PROC_NULL) in_lo[d] = 1, ++interfaces;
    if (par->upper[d] != MPI_PROC_NULL) in_hi[d] = cells[d] - 1, ++interfaces;
    if (in_lo[d] >= in_hi[d]) return; /* no interior: L->slabs stays 0 */
  }
  if (!interfaces) return;
  for (int d = 0; d < par->dim; ++d)
    for (int side = 0; side < 2; ++side) {
      if ((side ? par->upper[d] : par->lower[d]) == MPI_PROC_NULL) continue;
      int64_t *lo = L->lo[L->slabs], *hi = L->hi[L->slabs];
      for (int e = 0; e < 3; ++e) {
        lo[e] = e < d ? in_lo[e] : 0;
        hi[e] = e < d ? in_hi[e] : cells[e];
      }
      lo[d] = side ? cells[d] - 1 : 0;
      hi[d] = side ? cells[d] : 1;
      L->slabs++;
    }
  memcpy(L->lo[L->slabs], in_lo, sizeof in_lo);
  memcpy(L->hi[L->slabs], in_hi, sizeof in_hi);
}

/* The lowest degree whose blocks are split for the overlap.  At k <= 2 the split costs more
 * than the exchange it hides (one H200, two processes, 270 M DoFs of Q2: the application
 * 8.9 -> 12.1 ms, the exchange alone 1.4 ms; Q1 no gain; bench/results/
 * 2026-11-28-h200-overlap-low-degree.txt): a slab one cell thick along direction 0 leaves
 * most threads of the kernels' blocks of cells along that direction idle, and the 3D column
 * kernel of k <= 2 would not otherwise zero all of y. */
#define OVERLAP_MIN_DEGREE 3

/* the block's cells split for the overlap now: a box with an interior, a degree of at least
 * OVERLAP_MIN_DEGREE, a backend that runs work concurrently, and at least par->overlap_dofs
 * DoFs in the block */
static int overlapped(ts_operator op) {
  const parallel_laplace *L = op->data;
  const ts_parallel par = L->pd->par;
  const ts_backend_ops *o = &op->backend->ops;
  return L->slabs > 0 && L->plan.degree >= OVERLAP_MIN_DEGREE && o->laplace_apply_cells &&
         o->side_join && par->overlap_dofs > 0 && L->pd->count >= par->overlap_dofs;
}

/* out = S(A_block x) with the interior cells computed while the interfaces are summed */
static int apply_overlapped(ts_operator op, ts_vec x, ts_vec out) {
  const parallel_laplace *L = op->data;
  const ts_backend b = op->backend;
  TS_CALL(ts_vec_set(out, 0.0));
  for (int i = 0; i < L->slabs; ++i)
    TS_CALL(ts_backend_laplace_apply_cells(b, &L->plan, op->precision, L->lo[i], L->hi[i],
                                           x->data, out->data, 0));
  TS_CALL(ts_backend_laplace_apply_cells(b, &L->plan, op->precision, L->lo[L->slabs],
                                         L->hi[L->slabs], x->data, out->data, 1));
  const int ierr = ts_parallel_vec_sum_shared(L->pd, out);
  const int joined = ts_backend_side_join(b);
  return ierr ? ierr : joined;
}

/* out = A_block in (the block's cells, no constraints, no interface sums) */
static int apply_block(ts_operator op, ts_vec in, ts_vec out) {
  const parallel_laplace *L = op->data;
  if (L->block) return ts_operator_apply(L->block, in, out);
  return ts_backend_laplace_apply(op->backend, &L->plan, op->precision, in->data, out->data, 0);
}

/* out = A x with the Dirichlet rows by planes (above); x is left as it was */
static int apply_by_planes(ts_operator op, ts_vec x, ts_vec out) {
  const parallel_laplace *L = op->data;
  ts_parallel_dofs pd = L->pd;
  TS_CALL(ts_parallel_planes_zero(pd, TS_PLANES_DIRICHLET, x));
  int ierr = 0;
  if (overlapped(op)) {
    ierr = apply_overlapped(op, x, out);
  } else {
    ierr = apply_block(op, x, out);
    if (!ierr) ierr = ts_parallel_vec_sum_shared(pd, out);
  }
  TS_CALL(ts_parallel_planes_restore(pd, TS_PLANES_DIRICHLET, x));
  TS_CALL(ierr);
  return ts_parallel_planes_restore(pd, TS_PLANES_DIRICHLET, out);
}

static int parallel_laplace_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  parallel_laplace *L = op->data;
  ts_parallel_dofs pd = L->pd;
  TS_CALL(ts_parallel_check_vec(pd, x, "distributed Laplacian (input)"));
  TS_CALL(ts_parallel_check_vec(pd, y, "distributed Laplacian (output)"));
  TS_CHECK_ARG(add || x != y, "distributed Laplacian: y = A x needs y other than x (the same "
               "vector was given)");
  if (add && !L->sum) TS_CALL(ts_parallel_vec_create_precision(pd, op->precision, &L->sum));
  ts_vec out = add ? L->sum : y;
  TS_CALL(apply_by_planes(op, x, out));
  if (add) TS_CALL(ts_vec_axpby(1.0, out, 1.0, y));
  return 0;
}

/* d = F .* S(diag A_block) + D, formed in double (F .* by the Dirichlet planes, D a mask made
 * for it) */
static int parallel_laplace_diagonal(ts_operator op, ts_vec d) {
  parallel_laplace *L = op->data;
  ts_parallel_dofs pd = L->pd;
  TS_CALL(ts_parallel_check_vec(pd, d, "distributed Laplacian (diagonal)"));
  if (L->block) TS_CALL(ts_operator_diagonal(L->block, d));
  else TS_CALL(ts_backend_laplace_diagonal(op->backend, &L->plan, op->precision, d->data));
  ts_vec t = d;
  if (d->precision != TS_DOUBLE) {
    TS_CALL(ts_parallel_vec_create(pd, &t));
    TS_CALL(ts_vec_copy(d, t));
  }
  ts_vec dirichlet = NULL;
  int ierr = ts_parallel_vec_sum_shared(pd, t);
  if (!ierr) ierr = ts_parallel_planes_clear(pd, TS_PLANES_DIRICHLET, t);
  if (!ierr) ierr = ts_parallel_dirichlet_mask_create(pd, &dirichlet);
  if (!ierr) ierr = ts_vec_axpby(1.0, dirichlet, 1.0, t);
  if (!ierr && t != d) ierr = ts_vec_copy(t, d);
  ts_vec_destroy(&dirichlet);
  if (t != d) ts_vec_destroy(&t);
  return ierr;
}

/* this process's share: the block's kernel */
static double parallel_laplace_flops(ts_operator op) {
  const parallel_laplace *L = op->data;
  return L->block ? ts_operator_flops(L->block) : ts_laplace_plan_flops(&L->plan);
}

static void parallel_laplace_destroy(ts_operator op) {
  parallel_laplace *L = op->data;
  ts_operator_destroy(&L->block);
  ts_vec_destroy(&L->sum);
  ts_free(&op->data);
}

static const ts_operator_ops parallel_laplace_ops = {
    .name = "distributed laplace",
    .apply = parallel_laplace_apply,
    .diagonal = parallel_laplace_diagonal,
    .flops = parallel_laplace_flops,
    .destroy = parallel_laplace_destroy,
    .apply_transpose = parallel_laplace_apply, /* symmetric */
};

int ts_parallel_laplace_apply_block(ts_operator A, ts_vec x, ts_vec y) {
  TS_CHECK_ARG(A && A->ops == &parallel_laplace_ops, "%s: A is not a distributed Laplacian",
               __func__);
  parallel_laplace *L = A->data;
  TS_CALL(ts_parallel_check_vec(L->pd, x, __func__));
  TS_CALL(ts_parallel_check_vec(L->pd, y, __func__));
  return apply_block(A, x, y);
}

/* The shell around the block's operator in precision p: block (mapped; owned from here, also
 * on error) or, with block NULL, the box's plan. */
static int create_shell(ts_parallel_dofs pd, ts_operator block, ts_precision p, ts_operator *op) {
  parallel_laplace *L = NULL;
  int ierr = ts_calloc(1, sizeof *L, "distributed Laplacian", &L);
  if (ierr) {
    ts_operator_destroy(&block);
    return ierr;
  }
  L->pd = pd;
  L->block = block;
  if (!block) {
    ierr = ts_laplace_plan_init(pd->dofs, &L->plan, L->matrices);
    L->plan.constrained = 0; /* the box's Dirichlet rows: by planes (above) */
    if (!ierr) overlap_pieces(pd, L);
  }
  if (!ierr) ierr = ts_operator_create_shell(pd->backend, &parallel_laplace_ops, pd->dofs->count,
                                             p, L, op);
  if (ierr) {
    ts_operator_destroy(&L->block);
    ts_free(&L);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Laplacian setup");
  }
  (*op)->layout = &pd->layout;
  return 0;
}

/* The block's cells' values of an array over the whole level's cells (per cell `per_cell`
 * values, cells numbered c_0 + cells_0 (c_1 + cells_1 c_2)) into *out. */
static int block_values(ts_parallel_dofs pd, const double *whole, int per_cell, double **out) {
  const int64_t *lo = pd->cell_start, *hi = pd->cell_end, *cells = pd->cells;
  const int64_t count = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  TS_CALL(ts_calloc((size_t)(count * per_cell), sizeof **out, "block coefficients", out));
  int64_t c[3], n = 0;
  for (c[2] = lo[2]; c[2] < hi[2]; ++c[2])
    for (c[1] = lo[1]; c[1] < hi[1]; ++c[1])
      for (c[0] = lo[0]; c[0] < hi[0]; ++c[0], ++n) {
        const int64_t cell = c[0] + cells[0] * (c[1] + cells[1] * c[2]);
        memcpy(*out + n * per_cell, whole + cell * per_cell, sizeof **out * (size_t)per_cell);
      }
  return 0;
}

/* The block's mapped operator in precision p: the whole level's coefficients (NULL: the
 * Laplacian) cut to the block's cells; values per point (kappa_at, reaction_at) as they are. */
static int create_block_mapped(ts_parallel_dofs pd, const ts_coefficients *co, ts_precision p,
                               ts_operator *block) {
  ts_coefficients mine = co ? *co : (ts_coefficients){0};
  const int dim = pd->par->dim, nk = mine.kappa_components, tensor = dim * (dim + 1) / 2;
  TS_CHECK_ARG(nk == 0 || nk == 1 || nk == tensor, "ts_parallel_operator_create_mapped: "
               "coefficients->kappa_components = %d, allowed 0 (kappa = 1), 1 (scalar) or %d "
               "(symmetric tensor in %dD)", nk, tensor, dim);
  double *kappa = NULL, *reaction = NULL;
  int ierr = 0;
  if (nk && mine.kappa && !mine.kappa_at) ierr = block_values(pd, mine.kappa, nk, &kappa);
  if (!ierr && mine.reaction && !mine.reaction_at)
    ierr = block_values(pd, mine.reaction, 1, &reaction);
  mine.kappa = kappa;       /* unused where per point (or kappa = 1) */
  mine.reaction = reaction;
  if (!ierr) ierr = ts_operator_create_mapped(pd->backend, pd->dofs, &mine, p, block);
  ts_free(&kappa);
  ts_free(&reaction);
  return ierr;
}

int ts_parallel_operator_create_precision(ts_parallel_dofs pd, const ts_coefficients *co,
                                          ts_precision p, ts_operator *op) {
  if (pd->mesh->map) {
    ts_operator block = NULL;
    TS_CALL(create_block_mapped(pd, co, p, &block));
    return create_shell(pd, block, p, op);
  }
  if (!pd->backend->ops.laplace_apply || !pd->backend->ops.laplace_diagonal)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'laplace_apply' or "
                    "'laplace_diagonal'", pd->backend->name);
  return create_shell(pd, NULL, p, op);
}

int ts_parallel_operator_create_mapped(ts_parallel_dofs pd, const ts_coefficients *coefficients,
                                       ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(pd);
  TS_CHECK_ARG(pd->mesh->map, "ts_parallel_operator_create_mapped: the DoFs are on a box mesh; "
               "it takes a mapped mesh (on a box: ts_parallel_operator_create_laplace)");
  return ts_parallel_operator_create_precision(pd, coefficients, TS_DOUBLE, op);
}

int ts_parallel_operator_create_laplace(ts_parallel_dofs pd, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(pd);
  return ts_parallel_operator_create_precision(pd, NULL, TS_DOUBLE, op);
}
