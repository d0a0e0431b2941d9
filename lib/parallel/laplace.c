/* laplace.c -- the Laplacian of the whole box applied block by block (doc/parallel.md).
 *
 * Each process holds the plan of its block (ts_laplace_plan_init on the block's DoFs, as a
 * one-process run of the block would) without the constraints, since its block's faces are
 * mostly interfaces; with F the mask of the DoFs off the box's boundary and D = 1 - F:
 *   y = F .* S(A_block (F .* x)) + D .* x,
 * S the sum of the interface rows over the blocks (ts_parallel_vec_sum_shared): the rows of
 * the one-process operator, Dirichlet DoFs read as zero and given identity rows, as
 * ts_operator_create_laplace does.  The diagonal alike: F .* S(diag A_block) + D.  The
 * backend kernels are the one-process ones, unchanged.  The masks of the application touch
 * the Dirichlet DoFs alone, which lie on the block's faces on the box's boundary: those planes
 * of x are saved and zeroed, the kernel reads x (= F .* x), x's planes are restored, and after
 * the sums they are written into y (= F .* y + D .* x): the masks' numbers at the cost of the
 * planes, not of whole-vector passes (the diagonal, made once, uses the masks). */
#include "parallel-impl.h"

typedef struct parallel_laplace {
  ts_parallel_dofs pd;         /* borrowed */
  ts_laplace_plan plan;        /* the block's, unconstrained */
  double matrices[2 * (TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  ts_vec sum;                  /* the result before it is added to y (apply_add) */
} parallel_laplace;

/* out = A x with the Dirichlet rows by planes (above); x is left as it was */
static int apply_by_planes(parallel_laplace *L, ts_backend b, ts_vec x, ts_vec out) {
  ts_parallel_dofs pd = L->pd;
  TS_CALL(ts_parallel_planes_zero(pd, TS_PLANES_DIRICHLET, x));
  const int ierr = ts_backend_laplace_apply(b, &L->plan, TS_DOUBLE, x->data, out->data, 0);
  TS_CALL(ts_parallel_planes_restore(pd, TS_PLANES_DIRICHLET, x));
  TS_CALL(ierr);
  TS_CALL(ts_parallel_vec_sum_shared(pd, out));
  return ts_parallel_planes_restore(pd, TS_PLANES_DIRICHLET, out);
}

static int parallel_laplace_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  parallel_laplace *L = op->data;
  ts_parallel_dofs pd = L->pd;
  TS_CALL(ts_parallel_check_vec(pd, x, "distributed Laplacian (input)"));
  TS_CALL(ts_parallel_check_vec(pd, y, "distributed Laplacian (output)"));
  TS_CHECK_ARG(add || x != y, "distributed Laplacian: y = A x needs y other than x (the same "
               "vector was given)");
  ts_vec out = add ? L->sum : y;
  TS_CALL(apply_by_planes(L, op->backend, x, out));
  if (add) TS_CALL(ts_vec_axpby(1.0, out, 1.0, y));
  return 0;
}

static int parallel_laplace_diagonal(ts_operator op, ts_vec d) {
  parallel_laplace *L = op->data;
  ts_parallel_dofs pd = L->pd;
  TS_CALL(ts_parallel_check_vec(pd, d, "distributed Laplacian (diagonal)"));
  TS_CALL(ts_backend_laplace_diagonal(op->backend, &L->plan, TS_DOUBLE, d->data));
  TS_CALL(ts_parallel_vec_sum_shared(pd, d)); /* F .* S(diag A_block) + D */
  TS_CALL(ts_vec_pointwise_mult(d, pd->free_mask, d));
  TS_CALL(ts_vec_axpby(1.0, pd->dirichlet_mask, 1.0, d));
  return 0;
}

/* this process's share: the block's kernel */
static double parallel_laplace_flops(ts_operator op) {
  const parallel_laplace *L = op->data;
  return ts_laplace_plan_flops(&L->plan);
}

static void parallel_laplace_destroy(ts_operator op) {
  parallel_laplace *L = op->data;
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
  TS_CALL(ts_backend_laplace_apply(A->backend, &L->plan, TS_DOUBLE, x->data, y->data, 0));
  return 0;
}

int ts_parallel_operator_create_laplace(ts_parallel_dofs pd, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(pd);
  if (!pd->backend->ops.laplace_apply || !pd->backend->ops.laplace_diagonal)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "backend '%s' has no kernel 'laplace_apply' or "
                    "'laplace_diagonal'", pd->backend->name);
  parallel_laplace *L;
  TS_CALL(ts_calloc(1, sizeof *L, "distributed Laplacian", &L));
  L->pd = pd;
  int ierr = ts_laplace_plan_init(pd->dofs, &L->plan, L->matrices);
  L->plan.constrained = 0; /* the box's Dirichlet rows: the masks (above) */
  if (!ierr) ierr = ts_parallel_vec_create(pd, &L->sum);
  if (!ierr) ierr = ts_operator_create_shell(pd->backend, &parallel_laplace_ops, pd->dofs->count,
                                             TS_DOUBLE, L, op);
  if (ierr) {
    ts_vec_destroy(&L->sum);
    ts_free(&L);
    return ts_error_trace(ierr, __FILE__, __LINE__, "distributed Laplacian setup");
  }
  (*op)->layout = &pd->layout;
  return 0;
}
