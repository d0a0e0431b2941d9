/* stokes-blocks.c -- the blocks of the Stokes operator Acal = [A B^T; -B 0] (doc/stokes.md
 * section 3) as operators, and the symmetric form [A B^T; B 0] = diag(I, -I) Acal for MINRES.
 * A block applies the operator's parts where the operator offers them (Taylor-Hood), else
 * the whole Stokes operator to its input padded with a zero block, keeping one block of the
 * output (one Stokes application; no kernel of its own: RT); its transpose applies the
 * mirrored block.  The diagonal of A comes from the operator's saddle-point
 * description (ts_saddle: for RT from its Kronecker form, doc/stokes.md section 4, below; for
 * Taylor-Hood the Laplacians').  The blocks and the symmetric form serve every Stokes
 * operator, RT or Taylor-Hood (doc/taylor-hood.md).  The symmetric form applies Acal once and negates the pressure
 * rows (not its three blocks, which would cost three Stokes applications). */
#include <math.h>
#include "../tessera-impl.h"

typedef struct stokes_block {
  ts_operator stokes;   /* borrowed */
  int row, col;         /* 0 velocity, 1 pressure */
  double sign;          /* the block is sign * Acal_{row,col} */
  int64_t offset[3];    /* 0, the velocity DoFs, all DoFs */
  ts_vec x, y;          /* the full input (zero outside block `filled`) and output */
  int filled;           /* the block of x that the last application wrote */
} stokes_block;

/* y (+)= sign Acal_{out,in} x: from the operator's parts where it applies them
 * (ts_saddle.apply_block) and sign is 1, else x into block `in` of the full input (the other
 * block zero) and one Stokes application */
static int apply_part(stokes_block *b, int in, int out, double sign, ts_vec x, ts_vec y,
                      int add) {
  const ts_saddle *s;
  TS_CALL(ts_saddle_of(b->stokes, __func__, &s));
  if (s->apply_block && sign == 1.0) return s->apply_block(b->stokes, out, in, x, y, add);
  struct ts_vec_s x_in, y_out;
  if (b->filled != in) {
    struct ts_vec_s x_filled;
    ts_vec_view_init(&x_filled, b->x, b->offset[b->filled],
                     b->offset[b->filled + 1] - b->offset[b->filled]);
    TS_CALL(ts_vec_set(&x_filled, 0.0));
    b->filled = in;
  }
  ts_vec_view_init(&x_in, b->x, b->offset[in], x->n);
  ts_vec_view_init(&y_out, b->y, b->offset[out], y->n);
  TS_CALL(ts_vec_copy(x, &x_in));
  TS_CALL(ts_operator_apply(b->stokes, b->x, b->y));
  TS_CALL(ts_vec_axpby(sign, &y_out, add ? 1.0 : 0.0, y));
  return 0;
}

/* y (+)= sign Acal_{row,col} x */
static int stokes_block_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  stokes_block *b = op->data;
  return apply_part(b, b->col, b->row, b->sign, x, y, add);
}

/* Acal = [A B^T; -B 0]: A^T = A, (B^T)^T = B = -Acal_{1,0}, (-B)^T = -Acal_{0,1}, so
 * (sign Acal_{row,col})^T = +-sign Acal_{col,row}, minus off the diagonal */
static int stokes_block_apply_transpose(ts_operator op, ts_vec x, ts_vec y, int add) {
  stokes_block *b = op->data;
  return apply_part(b, b->row, b->col, b->row == b->col ? b->sign : -b->sign, x, y, add);
}

/* The diagonal of the assembled 1D factors of component i in direction d (n_u[i][d]
 * entries; doc/stokes.md section 4): along i Kc (stiffness) or Mc (mass) assembled
 * continuously, across i the SIPG cell blocks by the cell's boundary faces (stiffness) or
 * the DG mass. */
static void factor_diagonal(const ts_stokes_plan *p, int i, int d, int stiffness, double *out) {
  const int k1 = p->degree + 1, k2 = p->degree + 2;
  const int64_t cells = p->cells[d];
  for (int64_t g = 0; g < p->n_u[i][d]; ++g) out[g] = 0.0;
  for (int64_t c = 0; c < cells; ++c) {
    if (d == i) {
      const double *m = stiffness ? p->continuous_stiffness : p->continuous_mass;
      for (int a = 0; a < k2; ++a) out[c * k1 + a] += m[a * k2 + a];
    } else {
      const int kind = (c == 0 ? 1 : 0) + (c == cells - 1 ? 2 : 0);
      for (int a = 0; a < k1; ++a)
        out[c * k1 + a] = stiffness ? p->sipg_diag[kind][a * k1 + a] : p->dg_mass[a];
    }
  }
}

/* diag(A_i) = sum_d scale[d] diag(L_{i,d}) (x) (x)_{e != d} diag(M_{i,e}); 1 on the
 * constrained normal boundary DoFs (identity rows) */
static void component_diagonal(const ts_stokes_plan *p, int i, double *factors[3][2],
                               double *out) {
  for (int d = 0; d < p->dim; ++d) {
    factor_diagonal(p, i, d, 1, factors[d][1]);
    factor_diagonal(p, i, d, 0, factors[d][0]);
  }
  const int64_t *n = p->n_u[i];
  for (int64_t j = 0; j < n[0] * n[1] * n[2]; ++j) {
    const int64_t a[3] = {j % n[0], j / n[0] % n[1], j / (n[0] * n[1])};
    double sum = 0.0;
    for (int d = 0; d < p->dim; ++d) {
      double term = p->scale[d];
      for (int e = 0; e < p->dim; ++e) term *= factors[e][e == d][a[e]];
      sum += term;
    }
    const int constrained = p->constrained && (a[i] == 0 || a[i] == n[i] - 1);
    out[j] = constrained ? 1.0 : sum;
  }
}

int ts_stokes_rt_velocity_diagonal(ts_operator stokes, ts_vec d) {
  const ts_stokes_plan *p;
  TS_CALL(ts_operator_stokes_plan(stokes, &p));
  int64_t longest = 0;
  for (int i = 0; i < p->dim; ++i)
    for (int e = 0; e < p->dim; ++e) longest = p->n_u[i][e] > longest ? p->n_u[i][e] : longest;
  double *host = NULL, *storage = NULL;
  int ierr = ts_calloc((size_t)d->n, sizeof *host, "velocity diagonal", &host);
  if (!ierr) ierr = ts_calloc((size_t)(6 * longest), sizeof *storage, "1D diagonals", &storage);
  if (!ierr) {
    double *factors[3][2];
    for (int e = 0; e < 3; ++e)
      for (int s = 0; s < 2; ++s) factors[e][s] = storage + (2 * e + s) * longest;
    for (int i = 0; i < p->dim; ++i) component_diagonal(p, i, factors, host + p->offset[i]);
    ierr = ts_vec_set_from_host(d, host);
  }
  ts_free(&host);
  ts_free(&storage);
  return ierr;
}

/* diag(A) of the velocity block, from the Stokes operator (RT: its Kronecker form;
 * Taylor-Hood: the Laplacians') */
static int velocity_diagonal(ts_operator op, ts_vec d) {
  const stokes_block *b = op->data;
  const ts_saddle *s;
  TS_CALL(ts_saddle_of(b->stokes, __func__, &s));
  return s->velocity_diagonal(b->stokes, d);
}

static void stokes_block_destroy(ts_operator op) {
  stokes_block *b = op->data;
  ts_vec_destroy(&b->x);
  ts_vec_destroy(&b->y);
  ts_free(&op->data);
}

/* sign Acal_{row,col} from the Stokes operator's sparse assembly */
static int stokes_block_assemble(ts_operator op, ts_matrix *M) {
  const stokes_block *b = op->data;
  ts_matrix full = NULL;
  TS_CALL(ts_operator_assemble(b->stokes, &full));
  const int ierr = ts_matrix_extract_block(full, b->offset[b->row], op->n, b->offset[b->col],
                                           op->cols, b->sign, M);
  ts_matrix_destroy(&full);
  return ierr;
}

static const ts_operator_ops velocity_block_ops = {.name = "stokes-velocity",
                                                   .apply = stokes_block_apply,
                                                   .diagonal = velocity_diagonal,
                                                   .destroy = stokes_block_destroy,
                                                   .apply_transpose =
                                                       stokes_block_apply_transpose,
                                                   .assemble = stokes_block_assemble};
static const ts_operator_ops coupling_block_ops = {.name = "stokes-coupling",
                                                   .apply = stokes_block_apply,
                                                   .destroy = stokes_block_destroy,
                                                   .apply_transpose =
                                                       stokes_block_apply_transpose,
                                                   .assemble = stokes_block_assemble};

/* sign * Acal_{row,col} (row, col checked) */
static int create_block(ts_operator stokes, int row, int col, double sign, ts_operator *block) {
  int64_t n_p;
  TS_CALL(ts_stokes_pressure_count(stokes, "ts_operator_create_stokes_block", &n_p));
  stokes_block *b;
  TS_CALL(ts_calloc(1, sizeof *b, "Stokes block", &b));
  *b = (stokes_block){.stokes = stokes, .row = row, .col = col, .sign = sign,
                      .offset = {0, stokes->n - n_p, stokes->n}, .filled = col};
  int ierr = ts_vec_create(stokes->backend, stokes->n, stokes->precision, &b->x);
  if (!ierr) ierr = ts_vec_create(stokes->backend, stokes->n, stokes->precision, &b->y);
  if (!ierr) ierr = ts_vec_set(b->x, 0.0);
  if (!ierr)
    ierr = ts_operator_create_shell_rect(stokes->backend,
                                         row == 0 && col == 0 ? &velocity_block_ops
                                                              : &coupling_block_ops,
                                         b->offset[row + 1] - b->offset[row],
                                         b->offset[col + 1] - b->offset[col], stokes->precision, b,
                                         block);
  if (ierr) {
    ts_vec_destroy(&b->x);
    ts_vec_destroy(&b->y);
    ts_free(&b);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Stokes block");
  }
  return 0;
}

int ts_operator_create_stokes_block(ts_operator stokes, int row, int col, ts_operator *block) {
  TS_CHECK_NOT_NULL(block);
  *block = NULL;
  TS_CHECK_NOT_NULL(stokes);
  TS_CHECK_ARG(row >= 0 && row <= 1 && col >= 0 && col <= 1 && row + col < 2,
               "%s: block (%d,%d), allowed (0,0) A, (0,1) B^T or (1,0) -B (the (1,1) block is "
               "zero)", __func__, row, col);
  TS_CALL(create_block(stokes, row, col, 1.0, block));
  return 0;
}

/* ---------------------------------------------------------------- the symmetric form */

typedef struct stokes_symmetric {
  ts_operator stokes;     /* borrowed */
  int64_t n_u;            /* velocity DoFs: the pressure block starts here */
  ts_vec t;               /* Acal x (owned) */
} stokes_symmetric;

/* y (+)= diag(I, -I) Acal x: one Stokes application, the pressure rows negated on the way
 * into y (the blocks A, B^T and -B of Acal are the symmetric form's, B = -(-B)) */
static int symmetric_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  const stokes_symmetric *s = op->data;
  const int64_t n_p = y->n - s->n_u;
  struct ts_vec_s t_u, t_p, y_u, y_p;
  ts_vec_view_init(&t_u, s->t, 0, s->n_u);
  ts_vec_view_init(&t_p, s->t, s->n_u, n_p);
  ts_vec_view_init(&y_u, y, 0, s->n_u);
  ts_vec_view_init(&y_p, y, s->n_u, n_p);
  TS_CALL(ts_operator_apply(s->stokes, x, s->t));
  TS_CALL(ts_vec_axpby(1.0, &t_u, add ? 1.0 : 0.0, &y_u));
  TS_CALL(ts_vec_axpby(-1.0, &t_p, add ? 1.0 : 0.0, &y_p));
  return 0;
}

static double symmetric_flops(ts_operator op) {
  const stokes_symmetric *s = op->data;
  return ts_operator_flops(s->stokes);
}

static void symmetric_destroy(ts_operator op) {
  stokes_symmetric *s = op->data;
  ts_vec_destroy(&s->t);
  ts_free(&op->data);
}

/* diag(I, -I) Acal from the Stokes operator's sparse assembly */
static int symmetric_assemble(ts_operator op, ts_matrix *M) {
  const stokes_symmetric *s = op->data;
  double *rows = NULL;
  TS_CALL(ts_operator_assemble(s->stokes, M));
  int ierr = ts_calloc((size_t)op->n, sizeof *rows, "symmetric Stokes rows", &rows);
  for (int64_t i = 0; i < op->n && !ierr; ++i) rows[i] = i < s->n_u ? 1.0 : -1.0;
  if (!ierr) ierr = ts_matrix_scale(*M, rows, NULL);
  ts_free(&rows);
  if (ierr) ts_matrix_destroy(M);
  return ierr;
}

static const ts_operator_ops symmetric_ops = {.name = "stokes-symmetric",
                                              .apply = symmetric_apply,
                                              .flops = symmetric_flops,
                                              .destroy = symmetric_destroy,
                                              .apply_transpose = symmetric_apply,
                                              .assemble = symmetric_assemble};

int ts_operator_create_stokes_symmetric(ts_operator stokes, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(stokes);
  int64_t n_p;
  TS_CALL(ts_stokes_pressure_count(stokes, "ts_operator_create_stokes_symmetric", &n_p));
  stokes_symmetric *s;
  TS_CALL(ts_calloc(1, sizeof *s, "symmetric Stokes operator", &s));
  s->stokes = stokes;
  s->n_u = stokes->n - n_p;
  int ierr = ts_vec_create(stokes->backend, stokes->n, stokes->precision, &s->t);
  if (!ierr)
    ierr = ts_operator_create_shell(stokes->backend, &symmetric_ops, stokes->n, stokes->precision,
                                    s, op);
  if (ierr) {
    ts_vec_destroy(&s->t);
    ts_free(&s);
    return ts_error_trace(ierr, __FILE__, __LINE__, "symmetric Stokes operator");
  }
  return 0;
}
