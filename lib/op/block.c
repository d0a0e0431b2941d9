/* block.c -- the block operator [A_ij] on block vectors [x_0; x_1; ...] (PETSc's MatNest,
 * deal.II's BlockMatrix): each block is applied to views of the input and the output
 * (ts_vec_view_init, no copies), so a block operator runs on every backend its blocks run
 * on.  Its transpose [A_ji^T] (ts_operator_create_transpose) exists when every block has
 * one.  The blocks are borrowed. */
#include <math.h>
#include "../tessera-impl.h"

typedef struct block_data {
  int rows, cols;
  ts_operator a[TS_BLOCK_MAX * TS_BLOCK_MAX]; /* row-major, NULL = zero */
  int64_t row_offset[TS_BLOCK_MAX + 1], col_offset[TS_BLOCK_MAX + 1];
  ts_operator_ops ops; /* block_ops without the diagonal or transpose the blocks lack */
} block_data;

/* y_i (+)= sum_j A_ij x_j, or with transpose y_j (+)= sum_i A_ij^T x_i; a block of the
 * output is written by its first block, the others add */
static int block_run(ts_operator op, int transpose, ts_vec x, ts_vec y, int add) {
  const block_data *b = op->data;
  const int outputs = transpose ? b->cols : b->rows, inputs = transpose ? b->rows : b->cols;
  const int64_t *out = transpose ? b->col_offset : b->row_offset;
  const int64_t *in = transpose ? b->row_offset : b->col_offset;
  for (int i = 0; i < outputs; ++i) {
    struct ts_vec_s yi;
    ts_vec_view_init(&yi, y, out[i], out[i + 1] - out[i]);
    int written = add;
    for (int j = 0; j < inputs; ++j) {
      ts_operator a = transpose ? b->a[j * b->cols + i] : b->a[i * b->cols + j];
      if (!a) continue;
      struct ts_vec_s xj;
      ts_vec_view_init(&xj, x, in[j], in[j + 1] - in[j]);
      TS_CALL(ts_operator_apply_part(a, transpose, &xj, &yi, written));
      written = 1;
    }
  }
  return 0;
}

static int block_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  return block_run(op, 0, x, y, add);
}

/* [A_ij]^T = [A_ji^T] */
static int block_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  return block_run(op, 1, x, y, add);
}

/* the diagonal of the diagonal blocks (checked square at creation) */
static int block_diagonal(ts_operator op, ts_vec d) {
  const block_data *b = op->data;
  for (int i = 0; i < b->rows; ++i) {
    ts_operator a = b->a[i * b->cols + i];
    struct ts_vec_s di;
    ts_vec_view_init(&di, d, b->row_offset[i], b->row_offset[i + 1] - b->row_offset[i]);
    if (!a->ops->diagonal)
      return TS_ERROR(TS_ERR_UNSUPPORTED, "block operator: diagonal block (%d,%d) '%s' "
                      "cannot compute its diagonal", i, i, a->ops->name);
    TS_CALL(a->ops->diagonal(a, &di));
  }
  return 0;
}

static double block_flops(ts_operator op) {
  const block_data *b = op->data;
  double sum = 0.0;
  for (int i = 0; i < b->rows * b->cols; ++i)
    if (b->a[i] && b->a[i]->ops->flops) sum += b->a[i]->ops->flops(b->a[i]);
  return sum;
}

static void block_destroy(ts_operator op) { ts_free(&op->data); }

/* the blocks' matrices in their grid (NULL stays a zero block) */
static int block_assemble(ts_operator op, ts_matrix *M) {
  const block_data *b = op->data;
  ts_matrix m[TS_BLOCK_MAX * TS_BLOCK_MAX] = {NULL};
  int ierr = 0;
  for (int i = 0; i < b->rows * b->cols && !ierr; ++i)
    if (b->a[i]) ierr = ts_operator_assemble(b->a[i], &m[i]);
  if (!ierr) ierr = ts_matrix_create_block(b->rows, b->cols, m, M);
  for (int i = 0; i < b->rows * b->cols; ++i) ts_matrix_destroy(&m[i]);
  return ierr;
}

static const ts_operator_ops block_ops = {.name = "block",
                                          .apply = block_apply,
                                          .diagonal = block_diagonal,
                                          .flops = block_flops,
                                          .destroy = block_destroy,
                                          .apply_transpose = block_apply_transpose,
                                          .assemble = block_assemble};

/* The size of block row i (rows of its operators) or block column j (their columns), or
 * TS_ERR_ARG naming the first block that disagrees or an empty row or column. */
static int line_size(const block_data *b, int line, int is_row, int64_t *size) {
  const int count = is_row ? b->cols : b->rows;
  const char *what = is_row ? "row" : "column";
  *size = -1;
  for (int k = 0; k < count; ++k) {
    const int i = is_row ? line : k, j = is_row ? k : line;
    ts_operator a = b->a[i * b->cols + j];
    if (!a) continue;
    const int64_t s = is_row ? a->n : a->cols;
    TS_CHECK_ARG(*size < 0 || s == *size,
                 "block operator: block (%d,%d) '%s' has %lld %ss, block %s %d has %lld", i, j,
                 a->ops->name, (long long)s, what, what, line, (long long)*size);
    *size = s;
  }
  TS_CHECK_ARG(*size >= 0, "block operator: block %s %d has no operator (all NULL): its size "
               "is unknown", what, line);
  return 0;
}

/* The first operator, and a check that every block shares its backend and precision. */
static int common_kind(const block_data *b, ts_operator *first) {
  *first = NULL;
  for (int i = 0; i < b->rows * b->cols; ++i) {
    ts_operator a = b->a[i];
    if (!a) continue;
    if (!*first) *first = a;
    TS_CHECK_ARG(a->backend == (*first)->backend && a->precision == (*first)->precision,
                 "block operator: block (%d,%d) '%s' is %s precision on backend %s, block '%s' "
                 "%s on %s: all blocks need one backend and precision", i / b->cols,
                 i % b->cols, a->ops->name, ts_precision_name(a->precision), a->backend->label,
                 (*first)->ops->name, ts_precision_name((*first)->precision),
                 (*first)->backend->label);
  }
  return 0;
}

/* Whether the diagonal blocks make a diagonal: square, present and square each. */
static int has_diagonal(const block_data *b) {
  if (b->rows != b->cols) return 0;
  for (int i = 0; i < b->rows; ++i) {
    ts_operator a = b->a[i * b->cols + i];
    if (!a || a->n != a->cols || !a->ops->diagonal) return 0;
  }
  return 1;
}

/* Whether every block present has a transpose. */
static int has_transpose(const block_data *b) {
  for (int i = 0; i < b->rows * b->cols; ++i)
    if (b->a[i] && !b->a[i]->ops->apply_transpose) return 0;
  return 1;
}

int ts_operator_create_block(int rows, int cols, const ts_operator *blocks, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(blocks);
  TS_CHECK_ARG(rows >= 1 && rows <= TS_BLOCK_MAX && cols >= 1 && cols <= TS_BLOCK_MAX,
               "block operator: %d x %d blocks, allowed 1..%d each", rows, cols, TS_BLOCK_MAX);
  block_data *b;
  TS_CALL(ts_calloc(1, sizeof *b, "block operator", &b));
  b->rows = rows;
  b->cols = cols;
  for (int i = 0; i < rows * cols; ++i) b->a[i] = blocks[i];
  ts_operator first;
  int ierr = common_kind(b, &first);
  for (int i = 0; i < rows && !ierr; ++i) {
    int64_t s;
    ierr = line_size(b, i, 1, &s);
    b->row_offset[i + 1] = b->row_offset[i] + s;
  }
  for (int j = 0; j < cols && !ierr; ++j) {
    int64_t s;
    ierr = line_size(b, j, 0, &s);
    b->col_offset[j + 1] = b->col_offset[j] + s;
  }
  b->ops = block_ops;
  if (!has_diagonal(b)) b->ops.diagonal = NULL;
  if (!has_transpose(b)) b->ops.apply_transpose = NULL;
  if (!ierr)
    ierr = ts_operator_create_shell_rect(first->backend, &b->ops, b->row_offset[rows],
                                         b->col_offset[cols], first->precision, b, op);
  if (ierr) ts_free(&b);
  return ierr;
}
