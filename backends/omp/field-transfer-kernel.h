/* field-transfer-kernel.h -- the omp backend's multi-field transfer kernel, written once for
 * both precisions: included by field-transfer.c with REAL defined as double and as float and
 * FT(name) naming the instance.  See field-transfer.c for the algorithm. */
#ifndef REAL
#error "define REAL and FT before including field-transfer-kernel.h"
#endif

/* out = P in (restrict_ = 0) or P^T in (restrict_ = 1) for one field, P = (x)_d P_d: every
 * output entry is the tensor-product gather over the 1D stencils of its indices, so each is
 * written by one thread, in a fixed order. */
static void FT(field)(const ts_field_transfer_plan *plan, const ts_field_transfer_field *f,
                      int restrict_, const REAL *in, REAL *out, int add) {
  const int64_t *n_in = restrict_ ? f->fine_n : f->coarse_n;
  const int64_t *n_out = restrict_ ? f->coarse_n : f->fine_n;
  in += restrict_ ? f->fine_offset : f->coarse_offset;
  out += restrict_ ? f->coarse_offset : f->fine_offset;
  const int64_t lines = n_out[1] * n_out[2];
#pragma omp parallel for schedule(static) num_threads(omp_operator_threads(lines * n_out[0]))
  for (int64_t line = 0; line < lines; ++line) {
    const int64_t a1 = line % n_out[1], a2 = line / n_out[1];
    stencil_1d s0, s1, s2;
    transfer_stencil(plan, f, 1, restrict_, a1, &s1);
    transfer_stencil(plan, f, 2, restrict_, a2, &s2);
    const int zero_line = is_zero_dof(f, 1, a1, n_out[1]) || is_zero_dof(f, 2, a2, n_out[2]);
    REAL *o = out + line * n_out[0];
    for (int64_t a0 = 0; a0 < n_out[0]; ++a0) {
      if (zero_line || is_zero_dof(f, 0, a0, n_out[0])) {
        if (!add) o[a0] = 0;
        continue;
      }
      transfer_stencil(plan, f, 0, restrict_, a0, &s0);
      double sum = 0.0;
      for (int t2 = 0; t2 < s2.count; ++t2)
        for (int t1 = 0; t1 < s1.count; ++t1) {
          const REAL *row = in + n_in[0] * (s1.index[t1] + n_in[1] * s2.index[t2]);
          double partial = 0.0;
          for (int t0 = 0; t0 < s0.count; ++t0) partial += s0.weight[t0] * row[s0.index[t0]];
          sum += s1.weight[t1] * s2.weight[t2] * partial;
        }
      o[a0] = add ? (REAL)(o[a0] + sum) : (REAL)sum;
    }
  }
}

/* every field of the plan, one after the other */
static void FT(apply)(const ts_field_transfer_plan *plan, int restrict_, const REAL *in, REAL *out,
                      int add) {
  for (int i = 0; i < plan->n_fields; ++i) FT(field)(plan, &plan->field[i], restrict_, in, out, add);
}
