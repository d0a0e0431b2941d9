/* transfer-kernel.h -- the omp backend's multigrid transfer kernels, written once for both
 * precisions: included by transfer.c with REAL defined as double and as float and TR(name)
 * naming the instance.  See transfer.c for the algorithm. */
#ifndef REAL
#error "define REAL and TR before including transfer-kernel.h"
#endif

/* out = B in along direction dir of a dim-dimensional array of the given shape (index 0
 * fastest); B is rows x shape[dir] (transpose = 0) or shape[dir] x rows (transpose = 1). */
static void TR(contract)(int dim, const int *shape, int dir, const REAL *B, int rows,
                         int transpose, const REAL *in, REAL *out) {
  int before = 1, after = 1;
  const int cols = shape[dir];
  for (int d = 0; d < dir; ++d) before *= shape[d];
  for (int d = dir + 1; d < dim; ++d) after *= shape[d];
  for (int a = 0; a < after; ++a)
    for (int r = 0; r < rows; ++r) {
      REAL *o = out + ((size_t)a * rows + r) * before;
      for (int b = 0; b < before; ++b) o[b] = 0;
      for (int j = 0; j < cols; ++j) {
        const REAL w = transpose ? B[j * rows + r] : B[r * cols + j];
        const REAL *i = in + ((size_t)a * cols + j) * before;
        for (int b = 0; b < before; ++b) o[b] += w * i[b];
      }
    }
}

/* The linear index of the local node (r0,r1,r2) of cell c with `per` nodes per cell step
 * (kc coarse, m fine) in an array of n[] nodes per direction; sets *boundary. */
static inline int64_t TR(node)(int dim, const int64_t *c, const int *r, int per,
                               const int64_t *n, int *boundary) {
  int64_t index = 0, stride = 1;
  *boundary = 0;
  for (int d = 0; d < dim; ++d) {
    const int64_t g = (int64_t)per * c[d] + r[d];
    if (g == 0 || g == n[d] - 1) *boundary = 1;
    index += g * stride;
    stride *= n[d];
  }
  return index;
}

/* local index -> (r0, r1, r2) for an array with m nodes per direction */
static inline void TR(split)(int dim, int local, int m, int *r) {
  for (int d = 0; d < dim; ++d) {
    r[d] = local % m;
    local /= m;
  }
}

/* fine = P coarse (add: fine += P coarse): every fine node is written by the one coarse cell
 * that owns it, so cells run in parallel without races. */
static void TR(prolongate)(const ts_transfer_plan *plan, const REAL *in, REAL *out, int add) {
  const int dim = plan->dim, kc = plan->coarse_degree, m = plan->fine_per_cell;
  const int nc = kc + 1, nf = m + 1;
  REAL B[(2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  for (int i = 0; i < nf * nc; ++i) B[i] = (REAL)plan->interpolation_1d[i];
  int64_t cells = 1, cnodes = 1, fnodes = 1;
  for (int d = 0; d < dim; ++d) {
    cells *= plan->coarse_cells[d];
    cnodes *= nc;
    fnodes *= nf;
  }
#pragma omp parallel for schedule(static) num_threads(omp_operator_threads(cells * fnodes))
  for (int64_t cell = 0; cell < cells; ++cell) {
    REAL a[(2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1)];
    REAL b[(2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1)];
    int64_t c[3] = {0, 0, 0}, rest = cell;
    for (int d = 0; d < dim; ++d) {
      c[d] = rest % plan->coarse_cells[d];
      rest /= plan->coarse_cells[d];
    }
    for (int l = 0; l < (int)cnodes; ++l) {
      int r[3], boundary;
      TR(split)(dim, l, nc, r);
      const int64_t g = TR(node)(dim, c, r, kc, plan->coarse_n, &boundary);
      a[l] = plan->constrained && boundary ? (REAL)0 : in[g];
    }
    int shape[3] = {nc, nc, nc};
    REAL *src = a, *dst = b;
    for (int d = 0; d < dim; ++d) {
      TR(contract)(dim, shape, d, B, nf, 0, src, dst);
      shape[d] = nf;
      REAL *t = src;
      src = dst;
      dst = t;
    }
    for (int l = 0; l < (int)fnodes; ++l) {
      int r[3], boundary, owned = 1;
      TR(split)(dim, l, nf, r);
      for (int d = 0; d < dim; ++d)
        if (r[d] == m && c[d] != plan->coarse_cells[d] - 1) owned = 0;
      if (!owned) continue;
      const int64_t g = TR(node)(dim, c, r, m, plan->fine_n, &boundary);
      if (plan->constrained && boundary) {
        if (!add) out[g] = 0;
      } else {
        out[g] = add ? out[g] + src[l] : src[l];
      }
    }
  }
}

/* coarse = R fine (add: coarse += R fine), R = P^T: each cell gathers the fine nodes it
 * owns and adds P_K^T of them into its coarse nodes.  Cells of neighbouring layers (along
 * the last direction) share coarse nodes, so the layers of one parity run in parallel and
 * each thread walks its layer in order. */
static void TR(restriction)(const ts_transfer_plan *plan, const REAL *in, REAL *out, int add) {
  const int dim = plan->dim, kc = plan->coarse_degree, m = plan->fine_per_cell;
  const int nc = kc + 1, nf = m + 1;
  REAL B[(2 * TS_MAX_DEGREE + 1) * (TS_MAX_DEGREE + 1)];
  for (int i = 0; i < nf * nc; ++i) B[i] = (REAL)plan->interpolation_1d[i];
  int64_t n_coarse = 1, cnodes = 1, fnodes = 1, per_layer = 1;
  for (int d = 0; d < dim; ++d) {
    n_coarse *= plan->coarse_n[d];
    cnodes *= nc;
    fnodes *= nf;
    if (d < dim - 1) per_layer *= plan->coarse_cells[d];
  }
  const int64_t layers = plan->coarse_cells[dim - 1];
  if (!add) {
#pragma omp parallel for schedule(static) num_threads(omp_vector_threads(n_coarse))
    for (int64_t i = 0; i < n_coarse; ++i) out[i] = 0;
  }
  for (int parity = 0; parity < 2; ++parity) {
#pragma omp parallel for schedule(dynamic, 1) \
    num_threads(omp_operator_threads(layers / 2 * per_layer * fnodes))
    for (int64_t layer = parity; layer < layers; layer += 2) {
      REAL a[(2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1)];
      REAL b[(2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1) * (2 * TS_MAX_DEGREE + 1)];
      for (int64_t in_layer = 0; in_layer < per_layer; ++in_layer) {
        int64_t c[3] = {0, 0, 0}, rest = in_layer;
        for (int d = 0; d < dim - 1; ++d) {
          c[d] = rest % plan->coarse_cells[d];
          rest /= plan->coarse_cells[d];
        }
        c[dim - 1] = layer;
        for (int l = 0; l < (int)fnodes; ++l) {
          int r[3], boundary, owned = 1;
          TR(split)(dim, l, nf, r);
          for (int d = 0; d < dim; ++d)
            if (r[d] == m && c[d] != plan->coarse_cells[d] - 1) owned = 0;
          const int64_t g = TR(node)(dim, c, r, m, plan->fine_n, &boundary);
          a[l] = !owned || (plan->constrained && boundary) ? (REAL)0 : in[g];
        }
        int shape[3] = {nf, nf, nf};
        REAL *src = a, *dst = b;
        for (int d = 0; d < dim; ++d) {
          TR(contract)(dim, shape, d, B, nc, 1, src, dst);
          shape[d] = nc;
          REAL *t = src;
          src = dst;
          dst = t;
        }
        for (int l = 0; l < (int)cnodes; ++l) {
          int r[3], boundary;
          TR(split)(dim, l, nc, r);
          const int64_t g = TR(node)(dim, c, r, kc, plan->coarse_n, &boundary);
          if (!(plan->constrained && boundary)) out[g] += src[l];
        }
      }
    }
  }
}
