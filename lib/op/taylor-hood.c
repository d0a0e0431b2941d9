/* taylor-hood.c -- the Taylor-Hood Stokes operator (papers 001/004; doc/taylor-hood.md):
 * velocity Q_k (k >= 2) in each component and pressure Q_{k-1}, both continuous, on one
 * level of a box.  The system is that of the RT operator (doc/stokes.md section 3),
 *
 *   Acal = [A  B^T; -B  0],  x = [u_0; ..; u_{dim-1}; p],
 *
 * A the vector Laplacian (grad u, grad v): one matrix-free Q_k Laplacian per component, whose
 * boundary rows and columns are the identity (the velocity is Dirichlet data everywhere);
 * -B u = sum_c D_c u_c with (D_c u)_q = (d u / d x_c, q), the divergence tested with the
 * pressure basis, and B^T p = -(p, div v) the weak gradient.  On the box every cell has the
 * same 1D factors, so D_c is a Kronecker product of assembled 1D matrices (index 0 fastest),
 *
 *   D_c = F_{dim-1} (x) .. (x) F_0,  F_d = G_d (d == c) or M_d (d != c),
 *   (M_d)_ij = (psi_i, phi_j) and (G_d)_ij = (psi_i, phi_j') on the 1D mesh of direction d,
 *
 * psi the 1D pressure and phi the 1D velocity basis.  D_c and B_c^T are applied as such
 * products by the backend (ts_operator_create_kronecker: the banded 1D factors, their
 * boundary velocity nodes zero, and at most (2k+1)^dim terms per pressure row, no stored
 * matrix).  The boundary velocity columns of D_c are kept in a sparse matrix of their own,
 * used only by the unconstrained operator (the Dirichlet lifting of the right side). */
#include <math.h>
#include "../tessera-impl.h"

/* The 1D cell blocks of one direction (row-major, h applied): velocity stiffness
 * (phi_i', phi_j') and mass (phi_i, phi_j), (k+1) x (k+1); coupling G = (psi_i, phi_j') and
 * M = (psi_i, phi_j), k x (k+1).  The assembled 1D matrices sum them over the cells. */
#define TH_NU (TS_MAX_DEGREE + 1)
typedef struct th_blocks_1d {
  double stiffness[TH_NU * TH_NU], mass[TH_NU * TH_NU];
  double coupling[2][TS_MAX_DEGREE * TH_NU]; /* [0] M, [1] G */
} th_blocks_1d;

typedef struct taylor_hood {
  ts_saddle saddle;             /* what the Stokes helpers need (first member) */
  int dim, degree;              /* k of the velocity Q_k */
  int64_t cells[3];             /* per direction (1 beyond dim) */
  int64_t n_u1[3], n_p1[3];     /* velocity and pressure nodes per direction (1 beyond dim) */
  th_blocks_1d blocks[3];       /* per direction */
  int64_t n_u, n_p;             /* DoFs of one velocity component, of the pressure */
  ts_operator laplace;          /* A of one component */
  ts_operator div[3];           /* D_c, the boundary velocity columns zero */
  ts_operator grad[3];          /* -D_c^T = B_c^T, the boundary velocity rows zero */
  ts_operator div_boundary[3];  /* the boundary columns of D_c, the rest zero */
  ts_operator grad_boundary[3]; /* -(div_boundary)^T */
  double *pressure_mass;        /* the lumped pressure mass: (1, psi_q) per pressure DoF */
  double *band[3][2];           /* per direction the banded 1D factors of the D_c, M ([0])
                                   and G ([1]): pressure rows (coupling_band), boundary
                                   velocity nodes zero */
} taylor_hood;

static int check_spaces(ts_dofs velocity, ts_dofs pressure) {
  TS_CHECK_ARG(velocity && pressure, "Taylor-Hood: the %s DoFs are NULL",
               velocity ? "pressure" : "velocity");
  TS_CALL(ts_dofs_require_q(velocity, "Taylor-Hood velocity"));
  TS_CALL(ts_dofs_require_q(pressure, "Taylor-Hood pressure"));
  TS_CALL(ts_dofs_require_mapped(velocity, 0, "Taylor-Hood velocity"));
  TS_CHECK_ARG(velocity->degree >= 2 && pressure->degree == velocity->degree - 1,
               "Taylor-Hood: velocity Q%d and pressure Q%d, allowed velocity Q_k with k >= 2 and "
               "pressure Q_{k-1}", velocity->degree, pressure->degree);
  TS_CHECK_ARG(velocity->mesh == pressure->mesh && velocity->level == pressure->level,
               "Taylor-Hood: the velocity and pressure DoFs must be of one mesh and level (levels "
               "%d and %d)", velocity->level, pressure->level);
  TS_CHECK_ARG(velocity->neumann_faces == 0,
               "Taylor-Hood: the velocity is Dirichlet data on the whole boundary (Neumann faces "
               "are not supported)");
  return 0;
}

/* (f_i, g_j) on [0,1] for the tabulated f (n_f functions) and g (n_g) at the nq points of
 * the rule, times scale: row-major n_f x n_g */
static void cell_block(int nq, const double *weights, int n_f, const double *f, int n_g,
                       const double *g, double scale, double *block) {
  for (int i = 0; i < n_f; ++i)
    for (int j = 0; j < n_g; ++j) {
      double s = 0.0;
      for (int q = 0; q < nq; ++q) s += weights[q] * f[q * n_f + i] * g[q * n_g + j];
      block[i * n_g + j] = scale * s;
    }
}

/* The 1D cell blocks of direction d by the Gauss rule of k+1 points (exact: the integrands
 * have degree <= 2k): mass and coupling M times h_d, stiffness over h_d (phi' = phi'_ref / h,
 * dx = h dx_ref), G unscaled. */
static int blocks_1d(ts_dofs velocity, ts_dofs pressure, int d, th_blocks_1d *b) {
  const int k = velocity->degree, nu = k + 1, np = k, nq = k + 1;
  double points[TS_MAX_DEGREE + 2], weights[TS_MAX_DEGREE + 2];
  double phi[(TS_MAX_DEGREE + 2) * TH_NU], dphi[(TS_MAX_DEGREE + 2) * TH_NU];
  double psi[(TS_MAX_DEGREE + 2) * TH_NU];
  TS_CALL(ts_gauss_rule(nq, points, weights));
  ts_lagrange_tabulate(nu, velocity->fe->points, nq, points, phi, dphi);
  ts_lagrange_tabulate(np, pressure->fe->points, nq, points, psi, NULL);
  const double h = velocity->h[d];
  cell_block(nq, weights, nu, dphi, nu, dphi, 1.0 / h, b->stiffness);
  cell_block(nq, weights, nu, phi, nu, phi, h, b->mass);
  cell_block(nq, weights, np, psi, nu, phi, h, b->coupling[0]);
  cell_block(nq, weights, np, psi, nu, dphi, 1.0, b->coupling[1]);
  return 0;
}

/* The assembled 1D coupling matrix F (M or, derivative = 1, G) of direction d: pressure
 * rows, velocity columns. */
static int matrix_1d(ts_dofs velocity, ts_dofs pressure, const th_blocks_1d *b, int d,
                     int derivative, ts_matrix *F) {
  const int k = velocity->degree, nu = k + 1, np = k;
  const double *cell = b->coupling[derivative];
  const int64_t cells = velocity->cells[d], count = cells * np * nu;
  int64_t *rows = NULL, *cols = NULL;
  double *values = NULL;
  int ierr = ts_calloc((size_t)count, sizeof *rows, "1D matrix rows", &rows);
  if (!ierr) ierr = ts_calloc((size_t)count, sizeof *cols, "1D matrix columns", &cols);
  if (!ierr) ierr = ts_calloc((size_t)count, sizeof *values, "1D matrix values", &values);
  for (int64_t c = 0, t = 0; !ierr && c < cells; ++c)
    for (int i = 0; i < np; ++i)
      for (int j = 0; j < nu; ++j, ++t) {
        rows[t] = c * (np - 1) + i;
        cols[t] = c * (nu - 1) + j;
        values[t] = cell[i * nu + j];
      }
  if (!ierr)
    ierr = ts_matrix_create_triplets(pressure->n[d], velocity->n[d], count, rows, cols, values, F);
  ts_free(&rows);
  ts_free(&cols);
  ts_free(&values);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "Taylor-Hood 1D matrix") : 0;
}

/* D_c = F_{dim-1} (x) .. (x) F_0 (the last factor acts on index 0, the fastest) */
static int divergence_component(ts_dofs velocity, ts_dofs pressure, const th_blocks_1d *blocks,
                                int c, ts_matrix *D) {
  ts_matrix product = NULL;
  int ierr = 0;
  for (int d = 0; d < velocity->dim && !ierr; ++d) {
    ts_matrix F = NULL, next = NULL;
    ierr = matrix_1d(velocity, pressure, &blocks[d], d, d == c, &F);
    if (!ierr && product) ierr = ts_matrix_kronecker(F, product, &next);
    if (!ierr && !product) {
      next = F;
      F = NULL;
    }
    ts_matrix_destroy(&F);
    ts_matrix_destroy(&product);
    product = next;
  }
  if (ierr) {
    ts_matrix_destroy(&product);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Taylor-Hood divergence");
  }
  *D = product;
  return 0;
}

/* sign times the entries of A in the columns where keep is 1, transposed if asked, as a new
 * matrix: the other entries are left out, not stored as zeros (the boundary part of D_c has
 * O(n^((dim-1)/dim)) of them). */
static int kept_columns(ts_matrix A, const double *keep, double sign, int transpose,
                        ts_matrix *out) {
  const int64_t *offsets, *columns;
  const double *values;
  TS_CALL(ts_matrix_csr(A, &offsets, &columns, &values));
  const int64_t rows = ts_matrix_rows(A), cols = ts_matrix_columns(A);
  int64_t count = 0;
  for (int64_t e = 0; e < offsets[rows]; ++e) count += keep[columns[e]] != 0.0;
  int64_t *ri = NULL, *ci = NULL;
  double *v = NULL;
  int ierr = ts_calloc((size_t)count + 1, sizeof *ri, "kept rows", &ri);
  if (!ierr) ierr = ts_calloc((size_t)count + 1, sizeof *ci, "kept columns", &ci);
  if (!ierr) ierr = ts_calloc((size_t)count + 1, sizeof *v, "kept values", &v);
  for (int64_t r = 0, t = 0; !ierr && r < rows; ++r)
    for (int64_t e = offsets[r]; e < offsets[r + 1]; ++e)
      if (keep[columns[e]] != 0.0) {
        ri[t] = transpose ? columns[e] : r;
        ci[t] = transpose ? r : columns[e];
        v[t++] = sign * values[e];
      }
  if (!ierr)
    ierr = ts_matrix_create_triplets(transpose ? cols : rows, transpose ? rows : cols, count, ri,
                                     ci, v, out);
  ts_free(&ri);
  ts_free(&ci);
  ts_free(&v);
  return ierr;
}

/* The operators of D_c restricted to the columns kept by `keep` and of its transpose times
 * -1, on the backend (sparse matrices). */
static int coupling_pair(ts_backend backend, ts_precision p, ts_matrix full, const double *keep,
                         ts_operator *div, ts_operator *grad) {
  ts_matrix D = NULL, T = NULL;
  int ierr = kept_columns(full, keep, 1.0, 0, &D);
  if (!ierr) ierr = ts_operator_create_matrix(backend, D, p, div);
  if (!ierr) ierr = kept_columns(full, keep, -1.0, 1, &T);
  if (!ierr) ierr = ts_operator_create_matrix(backend, T, p, grad);
  ts_matrix_destroy(&D);
  ts_matrix_destroy(&T);
  return ierr;
}

static double assembled_1d(const double *cell, int rows, int k, int64_t cells, int64_t i,
                           int64_t j);

/* The shape of the banded factor of direction d (below), its values v */
static void coupling_band_shape(const taylor_hood *th, int d, int transpose, double *v,
                                ts_band_1d *f) {
  const int k = th->degree;
  const int64_t nu = th->n_u1[d], np = th->n_p1[d];
  *f = (ts_band_1d){.rows = transpose ? nu : np, .cols = transpose ? np : nu,
                    .row_step = transpose ? k : k - 1, .col_step = transpose ? k - 1 : k,
                    .values = v};
}

/* The banded factor of direction d of D_c, M (derivative = 0) or G (1) (transpose = 0:
 * pressure rows, velocity columns) or of D_c^T (velocity rows, pressure columns), zero at the
 * velocity's two boundary nodes of the direction: the product of the factors is then zero
 * wherever a velocity node lies on the boundary, the constrained D_c (B_c^T) exactly.
 * Values into v. */
static void coupling_band(const taylor_hood *th, int d, int derivative, int transpose,
                          double *v, ts_band_1d *f) {
  const int k = th->degree;
  const int64_t nu = th->n_u1[d];
  const double *cell = th->blocks[d].coupling[derivative];
  coupling_band_shape(th, d, transpose, v, f);
  const int width = 2 * f->col_step + 1;
  for (int64_t r = 0; r < f->rows; ++r)
    for (int w = 0; w < width; ++w) {
      const int64_t col = (r / f->row_step - 1) * f->col_step + w;
      const int64_t q = transpose ? col : r, i = transpose ? r : col;
      const int used = col >= 0 && col < f->cols && i > 0 && i < nu - 1;
      v[r * width + w] = used ? assembled_1d(cell, k, k, th->cells[d], q, i) : 0.0;
    }
}

/* th->band: the pressure-row bands of M and G in every direction, once for all components */
static int create_bands(taylor_hood *th) {
  for (int d = 0; d < th->dim; ++d)
    for (int derivative = 0; derivative < 2; ++derivative) {
      ts_band_1d f;
      TS_CALL(ts_calloc((size_t)(th->n_p1[d] * (2 * th->degree + 1)), sizeof(double),
                        "coupling band", &th->band[d][derivative]));
      coupling_band(th, d, derivative, 0, th->band[d][derivative], &f);
    }
  return 0;
}

/* D_c (transpose = 0: th->band) or B_c^T = -D_c^T (1: the transposed bands), constrained, as
 * a Kronecker operator */
static int coupling_kronecker(ts_backend backend, ts_precision p, const taylor_hood *th, int c,
                              int transpose, ts_operator *op) {
  double *values[3] = {NULL, NULL, NULL};
  ts_band_1d factors[3];
  int ierr = 0;
  for (int d = 0; d < th->dim && !ierr; ++d) {
    if (!transpose) {
      coupling_band_shape(th, d, 0, th->band[d][d == c], &factors[d]);
      continue;
    }
    ierr = ts_calloc((size_t)(th->n_u1[d] * (2 * th->degree + 1)), sizeof(double),
                     "coupling band", &values[d]);
    if (!ierr) coupling_band(th, d, d == c, 1, values[d], &factors[d]);
  }
  if (!ierr)
    ierr = ts_operator_create_kronecker(backend, th->dim, factors, transpose ? -1.0 : 1.0, p, op);
  for (int d = 0; d < 3; ++d) ts_free(&values[d]);
  return ierr;
}

/* The coupling blocks of every component: D_c and B_c^T with the boundary velocity columns
 * (rows) zero, as Kronecker operators, and their boundary parts (for the unconstrained
 * operator only) as sparse matrices. */
static int create_coupling(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                           ts_precision p, taylor_hood *th) {
  double *boundary = NULL;
  TS_CALL(ts_calloc((size_t)th->n_u, sizeof *boundary, "boundary mask", &boundary));
  for (int64_t i = 0; i < th->n_u; ++i) boundary[i] = ts_dofs_is_boundary(velocity, i) ? 1.0 : 0.0;
  int ierr = create_bands(th);
  for (int c = 0; c < th->dim && !ierr; ++c) {
    ts_matrix D = NULL;
    ierr = coupling_kronecker(backend, p, th, c, 0, &th->div[c]);
    if (!ierr) ierr = coupling_kronecker(backend, p, th, c, 1, &th->grad[c]);
    if (!ierr) ierr = divergence_component(velocity, pressure, th->blocks, c, &D);
    if (!ierr)
      ierr = coupling_pair(backend, p, D, boundary, &th->div_boundary[c], &th->grad_boundary[c]);
    ts_matrix_destroy(&D);
  }
  ts_free(&boundary);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "Taylor-Hood coupling blocks") : 0;
}

/* y (+)= Acal x; unconstrained: the Laplacians without their identity rows and the coupling
 * with its boundary velocity columns and rows (doc/taylor-hood.md) */
static int th_apply_form(ts_operator op, ts_vec x, ts_vec y, int add, int unconstrained) {
  const taylor_hood *th = op->data;
  struct ts_vec_s x_p, y_p;
  ts_vec_view_init(&x_p, x, th->dim * th->n_u, th->n_p);
  ts_vec_view_init(&y_p, y, th->dim * th->n_u, th->n_p);
  for (int c = 0; c < th->dim; ++c) {
    struct ts_vec_s x_c, y_c;
    ts_vec_view_init(&x_c, x, c * th->n_u, th->n_u);
    ts_vec_view_init(&y_c, y, c * th->n_u, th->n_u);
    if (unconstrained) {
      TS_CALL(ts_operator_apply_unconstrained(th->laplace, &x_c, &y_c));
      TS_CALL(ts_operator_apply_part(th->grad_boundary[c], 0, &x_p, &y_c, 1));
    } else {
      TS_CALL(ts_operator_apply_part(th->laplace, 0, &x_c, &y_c, add));
    }
    TS_CALL(ts_operator_apply_part(th->grad[c], 0, &x_p, &y_c, 1));
    TS_CALL(ts_operator_apply_part(th->div[c], 0, &x_c, &y_p, c > 0 || add));
    if (unconstrained) TS_CALL(ts_operator_apply_part(th->div_boundary[c], 0, &x_c, &y_p, 1));
  }
  return 0;
}

static int th_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  return th_apply_form(op, x, y, add, 0);
}

static int th_apply_unconstrained(ts_operator op, ts_vec x, ts_vec y) {
  return th_apply_form(op, x, y, 0, 1);
}

static double th_flops(ts_operator op) {
  const taylor_hood *th = op->data;
  double flops = 0.0;
  for (int c = 0; c < th->dim; ++c)
    flops += ts_operator_flops(th->laplace) + ts_operator_flops(th->div[c]) +
             ts_operator_flops(th->grad[c]);
  return flops;
}

static void th_destroy(ts_operator op) {
  taylor_hood *th = op->data;
  if (!th) return;
  ts_operator_destroy(&th->laplace);
  for (int c = 0; c < 3; ++c) {
    ts_operator_destroy(&th->div[c]);
    ts_operator_destroy(&th->grad[c]);
    ts_operator_destroy(&th->div_boundary[c]);
    ts_operator_destroy(&th->grad_boundary[c]);
  }
  ts_vec_destroy(&th->saddle.mean_weights);
  ts_vec_destroy(&th->saddle.pressure_indicator);
  ts_free(&th->pressure_mass);
  for (int d = 0; d < 3; ++d) {
    ts_free(&th->band[d][0]);
    ts_free(&th->band[d][1]);
  }
  ts_free(&op->data);
}

static const ts_saddle *th_saddle(ts_operator op) {
  return &((const taylor_hood *)op->data)->saddle;
}

/* [A 0 .. B_0^T; 0 A .. B_1^T; ..; D_0 D_1 .. 0]: the parts' matrices in their grid (the
 * Laplacian's once, in every diagonal block) */
static int th_assemble(ts_operator op, ts_matrix *M) {
  const taylor_hood *th = op->data;
  const int n = th->dim + 1;
  ts_matrix laplace = NULL, m[(3 + 1) * (3 + 1)] = {NULL};
  int ierr = ts_operator_assemble(th->laplace, &laplace);
  for (int c = 0; c < th->dim && !ierr; ++c) {
    m[c * n + c] = laplace;
    ierr = ts_operator_assemble(th->grad[c], &m[c * n + th->dim]);
    if (!ierr) ierr = ts_operator_assemble(th->div[c], &m[th->dim * n + c]);
  }
  if (!ierr) ierr = ts_matrix_create_block(n, n, m, M);
  for (int c = 0; c < th->dim; ++c) {
    ts_matrix_destroy(&m[c * n + th->dim]);
    ts_matrix_destroy(&m[th->dim * n + c]);
  }
  ts_matrix_destroy(&laplace);
  return ierr;
}

static const ts_operator_ops taylor_hood_ops = {
    .name = "taylor-hood",
    .apply = th_apply,
    .apply_unconstrained = th_apply_unconstrained,
    .flops = th_flops,
    .destroy = th_destroy,
    .saddle = th_saddle,
    .assemble = th_assemble,
};

/* diag(A): the Laplacian's diagonal in every component */
static int th_velocity_diagonal(ts_operator op, ts_vec d) {
  const taylor_hood *th = op->data;
  for (int c = 0; c < th->dim; ++c) {
    struct ts_vec_s d_c;
    ts_vec_view_init(&d_c, d, c * th->n_u, th->n_u);
    TS_CALL(ts_operator_diagonal(th->laplace, &d_c));
  }
  return 0;
}

/* y (+)= Acal_{row,col} x from the parts: A = the Laplacian per component, B^T = the
 * B_c^T into each component, -B = the sum of the D_c (the constrained forms) */
static int th_apply_block(ts_operator op, int row, int col, ts_vec x, ts_vec y, int add) {
  const taylor_hood *th = op->data;
  for (int c = 0; c < th->dim; ++c) {
    struct ts_vec_s u_c;
    if (row == 0 && col == 0) {
      struct ts_vec_s y_c;
      ts_vec_view_init(&u_c, x, c * th->n_u, th->n_u);
      ts_vec_view_init(&y_c, y, c * th->n_u, th->n_u);
      TS_CALL(ts_operator_apply_part(th->laplace, 0, &u_c, &y_c, add));
    } else if (row == 0) {
      ts_vec_view_init(&u_c, y, c * th->n_u, th->n_u);
      TS_CALL(ts_operator_apply_part(th->grad[c], 0, x, &u_c, add));
    } else {
      ts_vec_view_init(&u_c, x, c * th->n_u, th->n_u);
      TS_CALL(ts_operator_apply_part(th->div[c], 0, &u_c, y, c > 0 || add));
    }
  }
  return 0;
}

/* The lumped pressure mass (row sums of M_p = (psi_p, psi_q)): (1, psi_q), spectrally
 * equivalent to M_p (doc/taylor-hood.md); the pressure mass preconditioner inverts it. */
static int th_pressure_mass_diagonal(ts_operator op, ts_vec d) {
  const taylor_hood *th = op->data;
  return ts_vec_set_from_host(d, th->pressure_mass);
}

/* (1, psi_q) = prod_d (1, psi_{q_d}) with the 1D integrals from the Gauss-Lobatto weights of
 * the pressure nodes, summed over the cells that hold the DoF: the k-point rule integrates
 * degree 2k-3 >= k-1, psi's degree, exactly for k >= 2, and its points are the nodes, where
 * psi_i is 1 at node i and 0 at the others. */
static int pressure_integrals(ts_dofs pressure, double *mass) {
  const int np = pressure->degree + 1;
  double points[TS_MAX_DEGREE + 1], weights[TS_MAX_DEGREE + 1];
  TS_CALL(ts_gauss_lobatto_rule(np, points, weights));
  double *line[3] = {NULL, NULL, NULL};
  int ierr = 0;
  for (int d = 0; d < pressure->dim && !ierr; ++d) {
    ierr = ts_calloc((size_t)pressure->n[d], sizeof(double), "1D pressure integrals", &line[d]);
    for (int64_t c = 0; !ierr && c < pressure->cells[d]; ++c)
      for (int i = 0; i < np; ++i) line[d][c * (np - 1) + i] += weights[i] * pressure->h[d];
  }
  for (int64_t q = 0; !ierr && q < pressure->count; ++q) {
    const int64_t a[3] = {q % pressure->n[0], q / pressure->n[0] % pressure->n[1],
                          q / (pressure->n[0] * pressure->n[1])};
    mass[q] = 1.0;
    for (int d = 0; d < pressure->dim; ++d) mass[q] *= line[d][a[d]];
  }
  for (int d = 0; d < 3; ++d) ts_free(&line[d]);
  return ierr;
}

/* The mean of the pressure, sum_q (1, psi_q) p_q / |Omega|, as weights on the whole vector
 * (zero on the velocity), and the indicator of the pressure block. */
static int create_mean_vectors(ts_operator op, ts_dofs pressure, taylor_hood *th) {
  const int64_t n = op->n, first = th->dim * th->n_u;
  double volume = 1.0;
  for (int d = 0; d < th->dim; ++d) volume *= pressure->h[d] * (double)pressure->cells[d];
  double *w = NULL, *indicator = NULL;
  int ierr = ts_calloc((size_t)n, sizeof *w, "pressure mean weights", &w);
  if (!ierr) ierr = ts_calloc((size_t)n, sizeof *indicator, "pressure indicator", &indicator);
  for (int64_t q = 0; !ierr && q < th->n_p; ++q) {
    w[first + q] = th->pressure_mass[q] / volume;
    indicator[first + q] = 1.0;
  }
  if (!ierr) ierr = ts_vec_create(op->backend, n, op->precision, &th->saddle.mean_weights);
  if (!ierr) ierr = ts_vec_create(op->backend, n, op->precision, &th->saddle.pressure_indicator);
  if (!ierr) ierr = ts_vec_set_from_host(th->saddle.mean_weights, w);
  if (!ierr) ierr = ts_vec_set_from_host(th->saddle.pressure_indicator, indicator);
  ts_free(&w);
  ts_free(&indicator);
  return ierr ? ts_error_trace(ierr, __FILE__, __LINE__, "pressure mean vectors") : 0;
}

int ts_operator_create_taylor_hood(ts_backend backend, ts_dofs velocity, ts_dofs pressure,
                                   ts_precision p, ts_operator *op) {
  TS_CHECK_NOT_NULL(op);
  *op = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CALL(check_spaces(velocity, pressure));
  TS_CHECK_ARG(p == TS_DOUBLE || p == TS_SINGLE, "Taylor-Hood: precision %d unknown, allowed %d "
               "(double) or %d (single)", (int)p, (int)TS_DOUBLE, (int)TS_SINGLE);
  if (!backend->ops.csr_create)
    return TS_ERROR(TS_ERR_UNSUPPORTED, "Taylor-Hood: backend '%s' has no sparse matrix kernel "
                    "'csr_create' (the coupling blocks)", backend->name);
  taylor_hood *th;
  TS_CALL(ts_calloc(1, sizeof *th, "Taylor-Hood operator", &th));
  th->dim = velocity->dim;
  th->degree = velocity->degree;
  for (int d = 0; d < 3; ++d) {
    th->cells[d] = velocity->cells[d];
    th->n_u1[d] = velocity->n[d];
    th->n_p1[d] = pressure->n[d];
  }
  for (int d = 0; d < th->dim; ++d) {
    const int ierr = blocks_1d(velocity, pressure, d, &th->blocks[d]);
    if (ierr) {
      ts_free(&th);
      return ts_error_trace(ierr, __FILE__, __LINE__, "Taylor-Hood 1D blocks");
    }
  }
  th->n_u = velocity->count;
  th->n_p = pressure->count;
  th->saddle = (ts_saddle){.velocity_count = th->dim * th->n_u,
                           .pressure_count = th->n_p,
                           .velocity_diagonal = th_velocity_diagonal,
                           .pressure_mass_diagonal = th_pressure_mass_diagonal,
                           .apply_block = th_apply_block};
  int ierr = ts_operator_create_shell(backend, &taylor_hood_ops, th->dim * th->n_u + th->n_p, p,
                                      th, op);
  if (ierr) {
    ts_free(&th);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Taylor-Hood operator");
  }
  ierr = ts_operator_create_laplace(backend, velocity, p, &th->laplace);
  if (!ierr) ierr = create_coupling(backend, velocity, pressure, p, th);
  if (!ierr)
    ierr = ts_calloc((size_t)th->n_p, sizeof *th->pressure_mass, "pressure mass", &th->pressure_mass);
  if (!ierr) ierr = pressure_integrals(pressure, th->pressure_mass);
  if (!ierr) ierr = create_mean_vectors(*op, pressure, th);
  if (ierr) {
    ts_operator_destroy(op);
    return ts_error_trace(ierr, __FILE__, __LINE__, "Taylor-Hood operator");
  }
  return 0;
}

/* ---------------------------------------------------------------- assembled entries */

int ts_taylor_hood_layout_of(ts_operator op, const char *caller, ts_taylor_hood_layout *layout) {
  TS_CHECK_ARG(op && op->ops == &taylor_hood_ops,
               "%s: the operator is '%s', a Taylor-Hood operator "
               "(ts_operator_create_taylor_hood) is required",
               caller, op ? op->ops->name : "NULL");
  const taylor_hood *th = op->data;
  layout->dim = th->dim;
  layout->degree = th->degree;
  for (int d = 0; d < 3; ++d) {
    layout->cells[d] = th->cells[d];
    layout->n_u[d] = th->n_u1[d];
    layout->n_p[d] = th->n_p1[d];
  }
  layout->n_velocity = th->n_u;
  layout->n_pressure = th->n_p;
  return 0;
}

/* Entry (i, j) of an assembled 1D matrix: rows of `rows` functions per cell (velocity k+1,
 * pressure k; neighbours share one), columns the k+1 velocity functions per cell, cell block
 * `cell` (rows x (k+1), row-major). */
static double assembled_1d(const double *cell, int rows, int k, int64_t cells, int64_t i,
                           int64_t j) {
  const int64_t step = rows - 1, last = i / step;
  double s = 0.0;
  for (int64_t c = last > 0 ? last - 1 : 0; c <= last && c < cells; ++c) {
    const int64_t a = i - c * step, b = j - c * k;
    if (a >= 0 && a < rows && b >= 0 && b <= k) s += cell[a * (k + 1) + b];
  }
  return s;
}

/* velocity node i (per direction) is on the box boundary */
static int on_boundary(const taylor_hood *th, const int64_t *i) {
  for (int d = 0; d < th->dim; ++d)
    if (i[d] == 0 || i[d] == th->n_u1[d] - 1) return 1;
  return 0;
}

/* (D_c)_{q, i}: pressure node q, velocity node i (per direction, not on the boundary), the
 * product of the bands' entries */
static double divergence_entry(const taylor_hood *th, int c, const int64_t *q, const int64_t *i) {
  const int k = th->degree, width = 2 * k + 1;
  double value = 1.0;
  for (int d = 0; d < th->dim; ++d) {
    const int64_t w = i[d] - (q[d] / (k - 1) - 1) * k;
    value *= w >= 0 && w < width ? th->band[d][d == c][q[d] * width + w] : 0.0;
  }
  return value;
}

/* A_{i, j} of one component: sum_d K_d (x) the masses of the other directions */
static double laplace_entry(const taylor_hood *th, const int64_t *i, const int64_t *j) {
  const int k = th->degree;
  double stiffness[3], mass[3], value = 0.0;
  for (int d = 0; d < th->dim; ++d) {
    stiffness[d] = assembled_1d(th->blocks[d].stiffness, k + 1, k, th->cells[d], i[d], j[d]);
    mass[d] = assembled_1d(th->blocks[d].mass, k + 1, k, th->cells[d], i[d], j[d]);
  }
  for (int d = 0; d < th->dim; ++d) {
    double term = stiffness[d];
    for (int e = 0; e < th->dim; ++e)
      if (e != d) term *= mass[e];
    value += term;
  }
  return value;
}

/* local velocity node a of the patch of vertex v (ts_vanka_plan): its global node per
 * direction; 1 if it is inside the mesh and not on the boundary */
static int patch_node(const taylor_hood *th, const int64_t *v, int a, int64_t *i) {
  int inside = 1;
  for (int d = 0; d < 3; ++d) {
    const int a_d = d == 0 ? a % 5 : d == 1 ? a / 5 % 5 : a / 25;
    i[d] = d < th->dim ? 2 * v[d] - 2 + a_d : 0;
    if (d < th->dim) inside &= i[d] >= 0 && i[d] < th->n_u1[d];
  }
  return inside && !on_boundary(th, i);
}

int ts_taylor_hood_vertex_patch(ts_operator op, const int64_t *vertex, double *matrix,
                                int *active) {
  ts_taylor_hood_layout layout;
  TS_CALL(ts_taylor_hood_layout_of(op, "Taylor-Hood vertex patch", &layout));
  const taylor_hood *th = op->data;
  TS_CHECK_ARG(th->degree == 2, "Taylor-Hood vertex patch: velocity Q%d, allowed only Q2 x Q1 "
               "(one pressure DoF per vertex)", th->degree);
  const int dim = th->dim, nodes = dim == 3 ? 125 : 25, P = dim * nodes + 1;
  for (int d = 0; d < dim; ++d)
    TS_CHECK_ARG(vertex[d] >= 0 && vertex[d] <= th->cells[d],
                 "Taylor-Hood vertex patch: vertex %lld in direction %d, allowed 0..%lld",
                 (long long)vertex[d], d, (long long)th->cells[d]);
  for (int e = 0; e < P * P; ++e) matrix[e] = 0.0;
  int64_t node[125][3];
  int node_active[125];
  for (int a = 0; a < nodes; ++a) node_active[a] = patch_node(th, vertex, a, node[a]);
  const int64_t q[3] = {vertex[0], vertex[1], dim == 3 ? vertex[2] : 0};
  for (int a = 0; a < nodes; ++a) {
    if (!node_active[a]) continue;
    for (int b = 0; b < nodes; ++b) {
      if (!node_active[b]) continue;
      const double value = laplace_entry(th, node[a], node[b]);
      for (int c = 0; c < dim; ++c) matrix[(c * nodes + a) * P + c * nodes + b] = value;
    }
    for (int c = 0; c < dim; ++c) {
      const double D = divergence_entry(th, c, q, node[a]);
      matrix[(c * nodes + a) * P + P - 1] = -D; /* B^T = -D_c^T */
      matrix[(P - 1) * P + c * nodes + a] = D;  /* -B = sum_c D_c */
    }
  }
  for (int c = 0; c < dim; ++c)
    for (int a = 0; a < nodes; ++a) active[c * nodes + a] = node_active[a];
  active[P - 1] = 1;
  return 0;
}

int ts_taylor_hood_schur_diagonal(ts_operator op, const double *w, double *s) {
  ts_taylor_hood_layout layout;
  TS_CALL(ts_taylor_hood_layout_of(op, "Taylor-Hood Schur diagonal", &layout));
  const taylor_hood *th = op->data;
  const int dim = th->dim, k = th->degree;
  for (int64_t p = 0; p < th->n_p; ++p) {
    const int64_t q[3] = {p % th->n_p1[0], p / th->n_p1[0] % th->n_p1[1],
                          p / (th->n_p1[0] * th->n_p1[1])};
    int64_t first[3] = {0, 0, 0}, last[3] = {0, 0, 0}; /* the velocity nodes of q's cells */
    for (int d = 0; d < dim; ++d) {
      const int64_t cell = q[d] / (k - 1);
      first[d] = cell > 0 ? (cell - 1) * k : 0;
      last[d] = (cell + 1) * k < th->n_u1[d] - 1 ? (cell + 1) * k : th->n_u1[d] - 1;
    }
    double sum = 0.0;
    int64_t i[3];
    for (i[2] = first[2]; i[2] <= last[2]; ++i[2])
      for (i[1] = first[1]; i[1] <= last[1]; ++i[1])
        for (i[0] = first[0]; i[0] <= last[0]; ++i[0]) {
          if (on_boundary(th, i)) continue;
          const int64_t node = i[0] + th->n_u1[0] * (i[1] + th->n_u1[1] * i[2]);
          for (int c = 0; c < dim; ++c) {
            const double D = divergence_entry(th, c, q, i);
            sum += D * D * w[c * th->n_u + node];
          }
        }
    s[p] = sum;
  }
  return 0;
}
