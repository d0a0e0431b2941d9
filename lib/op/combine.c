/* combine.c -- operators made of other operators by algebra: the sum alpha A + beta B, the
 * multiple alpha A, the product A B and the transpose A^T (PETSc's MatCreateComposite,
 * MatCreateScaled and MatCreateTranspose).
 * Like the block operator (block.c) they apply the borrowed operators through their tables
 * and vector operations, so they run on every backend their parts run on.  Each keeps its
 * own copy of the table, without the diagonal or the transpose its parts lack. */
#include <math.h>
#include "../tessera-impl.h"

/* The operators that know their transpose, for the refusal of ts_operator_create_transpose. */
#define TS_TRANSPOSE_KINDS                                                                  \
  "the Laplacian, Jacobi, the Stokes blocks and symmetric form, block operators whose "     \
  "blocks all have one, and sums, multiples, products and transposes of such operators"

typedef struct combine_data {
  double alpha, beta;  /* sum: the coefficients (multiple: alpha) */
  ts_operator a, b;    /* borrowed; transpose and multiple: a only */
  ts_vec work;         /* sum: A x (rows); product: B x (B's rows) */
  ts_vec work_cols;    /* sum of rectangular operators with a transpose: A^T x (columns) */
  ts_operator_ops ops; /* the kind's table without what the parts lack */
} combine_data;

static double combine_flops(ts_operator op) {
  const combine_data *c = op->data;
  return ts_operator_flops(c->a) + (c->b ? ts_operator_flops(c->b) : 0.0);
}

static void combine_destroy(ts_operator op) {
  combine_data *c = op->data;
  ts_vec_destroy(&c->work);
  ts_vec_destroy(&c->work_cols);
  ts_free(&op->data);
}

/* ---------------------------------------------------------------- sum */

/* y (+)= alpha A x + beta B x, or the transposes: A's part through the work vector of the
 * output's size, B's added to it (the multiple alpha A: no B) */
static int sum_run(ts_operator op, int transpose, ts_vec x, ts_vec y, int add) {
  const combine_data *c = op->data;
  ts_vec w = transpose && c->work_cols ? c->work_cols : c->work;
  TS_CALL(ts_operator_apply_part(c->a, transpose, x, w, 0));
  TS_CALL(ts_vec_axpby(c->alpha, w, add ? 1.0 : 0.0, y));
  if (!c->b) return 0;
  TS_CALL(ts_operator_apply_part(c->b, transpose, x, w, 0));
  TS_CALL(ts_vec_axpby(c->beta, w, 1.0, y));
  return 0;
}

static int sum_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  return sum_run(op, 0, x, y, add);
}

static int sum_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  return sum_run(op, 1, x, y, add);
}

/* diag(alpha A + beta B) = alpha diag(A) + beta diag(B) */
static int sum_diagonal(ts_operator op, ts_vec d) {
  const combine_data *c = op->data;
  TS_CALL(c->a->ops->diagonal(c->a, d));
  if (!c->b) return ts_vec_axpby(0.0, d, c->alpha, d);
  TS_CALL(c->b->ops->diagonal(c->b, c->work));
  TS_CALL(ts_vec_axpby(c->beta, c->work, c->alpha, d));
  return 0;
}

/* alpha A + beta B of the parts' matrices (alpha A + 0 A for the multiple) */
static int sum_assemble(ts_operator op, ts_matrix *M) {
  const combine_data *c = op->data;
  ts_matrix a = NULL, b = NULL;
  int ierr = ts_operator_assemble(c->a, &a);
  if (!ierr && c->b) ierr = ts_operator_assemble(c->b, &b);
  if (!ierr) ierr = ts_matrix_add(c->alpha, a, c->beta, b ? b : a, M);
  ts_matrix_destroy(&a);
  ts_matrix_destroy(&b);
  return ierr;
}

static const ts_operator_ops sum_ops = {.name = "sum",
                                        .apply = sum_apply,
                                        .diagonal = sum_diagonal,
                                        .flops = combine_flops,
                                        .destroy = combine_destroy,
                                        .apply_transpose = sum_apply_transpose,
                                        .assemble = sum_assemble};

/* ---------------------------------------------------------------- product */

/* y (+)= A (B x), or (A B)^T x = B^T (A^T x): the work vector has B's rows = A's columns */
static int product_run(ts_operator op, int transpose, ts_vec x, ts_vec y, int add) {
  const combine_data *c = op->data;
  ts_operator first = transpose ? c->a : c->b, second = transpose ? c->b : c->a;
  TS_CALL(ts_operator_apply_part(first, transpose, x, c->work, 0));
  TS_CALL(ts_operator_apply_part(second, transpose, c->work, y, add));
  return 0;
}

static int product_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  return product_run(op, 0, x, y, add);
}

static int product_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  return product_run(op, 1, x, y, add);
}

static int product_assemble(ts_operator op, ts_matrix *M) {
  const combine_data *c = op->data;
  ts_matrix a = NULL, b = NULL;
  int ierr = ts_operator_assemble(c->a, &a);
  if (!ierr) ierr = ts_operator_assemble(c->b, &b);
  if (!ierr) ierr = ts_matrix_multiply(a, b, M);
  ts_matrix_destroy(&a);
  ts_matrix_destroy(&b);
  return ierr;
}

static const ts_operator_ops product_ops = {.name = "product",
                                            .apply = product_apply,
                                            .flops = combine_flops,
                                            .destroy = combine_destroy,
                                            .apply_transpose = product_apply_transpose,
                                            .assemble = product_assemble};

/* ---------------------------------------------------------------- transpose */

static int transpose_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  const combine_data *c = op->data;
  TS_CALL(c->a->ops->apply_transpose(c->a, x, y, add));
  return 0;
}

/* (A^T)^T = A */
static int transpose_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  const combine_data *c = op->data;
  TS_CALL(c->a->ops->apply(c->a, x, y, add));
  return 0;
}

/* diag(A^T) = diag(A) */
static int transpose_diagonal(ts_operator op, ts_vec d) {
  const combine_data *c = op->data;
  TS_CALL(c->a->ops->diagonal(c->a, d));
  return 0;
}

static int transpose_assemble(ts_operator op, ts_matrix *M) {
  const combine_data *c = op->data;
  ts_matrix a = NULL;
  int ierr = ts_operator_assemble(c->a, &a);
  if (!ierr) ierr = ts_matrix_transpose(a, M);
  ts_matrix_destroy(&a);
  return ierr;
}

static const ts_operator_ops transpose_ops = {.name = "transpose",
                                              .apply = transpose_apply,
                                              .diagonal = transpose_diagonal,
                                              .flops = combine_flops,
                                              .destroy = combine_destroy,
                                              .apply_transpose = transpose_apply_transpose,
                                              .assemble = transpose_assemble};

/* ---------------------------------------------------------------- creation */

/* TS_ERR_ARG unless A and B (named a_name, b_name in messages of `caller`) share backend
 * and precision. */
static int check_same_kind(const char *caller, ts_operator A, const char *a_name, ts_operator B,
                           const char *b_name) {
  TS_CHECK_ARG(A->backend == B->backend,
               "%s: %s '%s' lives on backend %s, %s '%s' on backend %s (use one ts_backend for "
               "objects that work together)", caller, b_name, B->ops->name, B->backend->label,
               a_name, A->ops->name, A->backend->label);
  TS_CHECK_ARG(A->precision == B->precision,
               "%s: %s '%s' is %s precision, %s '%s' is %s: both need one precision", caller,
               b_name, B->ops->name, ts_precision_name(B->precision), a_name, A->ops->name,
               ts_precision_name(A->precision));
  return 0;
}

/* A work vector of n entries on the backend and in the precision of `like` (none, NULL,
 * for n < 0). */
static int create_work(ts_operator like, int64_t n, ts_vec *work) {
  *work = NULL;
  if (n < 0) return 0;
  TS_CALL(ts_vec_create(like->backend, n, like->precision, work));
  return 0;
}

/* The operator of c (rows x cols, on the backend and in the precision of c->a) with the
 * table `kind` less the diagonal or transpose the parts lack, and its work vectors (sizes
 * < 0: none); on failure c and its vectors are freed. */
static int create_combined(combine_data *c, const ts_operator_ops *kind, int with_diagonal,
                           int with_transpose, int64_t rows, int64_t cols, int64_t work_n,
                           int64_t work_cols_n, ts_operator *op) {
  c->ops = *kind;
  if (!with_diagonal) c->ops.diagonal = NULL;
  if (!with_transpose) c->ops.apply_transpose = NULL;
  int ierr = create_work(c->a, work_n, &c->work);
  if (!ierr) ierr = create_work(c->a, work_cols_n, &c->work_cols);
  if (!ierr)
    ierr = ts_operator_create_shell_rect(c->a->backend, &c->ops, rows, cols, c->a->precision, c,
                                         op);
  if (ierr) {
    ts_vec_destroy(&c->work);
    ts_vec_destroy(&c->work_cols);
    ts_free(&c);
    return ts_error_trace(ierr, __FILE__, __LINE__, kind->name);
  }
  return 0;
}

static int has_diagonal(ts_operator A) { return A->n == A->cols && A->ops->diagonal != NULL; }

static int has_transpose(ts_operator A) { return A->ops->apply_transpose != NULL; }

int ts_operator_create_sum(double alpha, ts_operator A, double beta, ts_operator B,
                           ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(B);
  TS_CHECK_ARG(isfinite(alpha) && isfinite(beta),
               "%s: alpha = %g, beta = %g, allowed finite numbers", __func__, alpha, beta);
  TS_CHECK_ARG(A->n == B->n && A->cols == B->cols,
               "%s: B '%s' is %lld x %lld, A '%s' is %lld x %lld: a sum needs the same rows and "
               "columns", __func__, B->ops->name, (long long)B->n, (long long)B->cols,
               A->ops->name, (long long)A->n, (long long)A->cols);
  TS_CALL(check_same_kind(__func__, A, "A", B, "B"));
  combine_data *c;
  TS_CALL(ts_calloc(1, sizeof *c, "sum operator", &c));
  *c = (combine_data){.alpha = alpha, .beta = beta, .a = A, .b = B};
  const int transposes = has_transpose(A) && has_transpose(B);
  TS_CALL(create_combined(c, &sum_ops, has_diagonal(A) && has_diagonal(B), transposes, A->n,
                          A->cols, A->n, transposes && A->cols != A->n ? A->cols : -1, op));
  return 0;
}

int ts_operator_create_multiple(double alpha, ts_operator A, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_ARG(isfinite(alpha), "%s: alpha = %g, allowed a finite number", __func__, alpha);
  combine_data *c;
  TS_CALL(ts_calloc(1, sizeof *c, "multiple operator", &c));
  *c = (combine_data){.alpha = alpha, .a = A};
  const int transpose = has_transpose(A);
  TS_CALL(create_combined(c, &sum_ops, has_diagonal(A), transpose, A->n, A->cols, A->n,
                          transpose && A->cols != A->n ? A->cols : -1, op));
  c->ops.name = "multiple"; /* the sum's table (without B) under its own name */
  return 0;
}

int ts_operator_create_product(ts_operator A, ts_operator B, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_NOT_NULL(B);
  TS_CHECK_ARG(B->n == A->cols,
               "%s: B '%s' has %lld rows, A '%s' has %lld columns: A B needs B's rows = A's "
               "columns", __func__, B->ops->name, (long long)B->n, A->ops->name,
               (long long)A->cols);
  TS_CALL(check_same_kind(__func__, A, "A", B, "B"));
  combine_data *c;
  TS_CALL(ts_calloc(1, sizeof *c, "product operator", &c));
  *c = (combine_data){.a = A, .b = B};
  TS_CALL(create_combined(c, &product_ops, 0, has_transpose(A) && has_transpose(B), A->n, B->cols,
                          B->n, -1, op));
  return 0;
}

int ts_operator_create_transpose(ts_operator A, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(A);
  if (!has_transpose(A))
    return TS_ERROR(TS_ERR_UNSUPPORTED, "%s: operator '%s' has no transpose; operators with "
                    "one are " TS_TRANSPOSE_KINDS, __func__, A->ops->name);
  combine_data *c;
  TS_CALL(ts_calloc(1, sizeof *c, "transpose operator", &c));
  *c = (combine_data){.a = A};
  TS_CALL(create_combined(c, &transpose_ops, has_diagonal(A), 1, A->cols, A->n, -1, -1, op));
  return 0;
}
