/* stokes-reference.c -- the dense reference Stokes matrix of tests/stokes-reference.h.
 * Every velocity basis function is evaluated as a vector field at each quadrature point
 * (component i = prod_d of 1D Lagrange polynomials: Gauss-Lobatto k+2 nodes in direction i,
 * Gauss k+1 nodes elsewhere, doc/stokes.md section 1); cell integrals (grad:grad and
 * (q, div u)) and face integrals (the interior penalty terms of paper 000 eq. (3), section 3)
 * use tensor Gauss rules with k+3 points per direction. Cells are all alike, so each local
 * matrix (cell, interior face per direction, boundary face per side) is integrated once
 * and added at the global indices of every cell (numbering of section 2). */
#include "stokes-reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tessera-impl.h"

#define MAX_K (TS_MAX_DEGREE - 1)

/* Sizes and numbering of section 2, and the 1D nodes. */
typedef struct layout {
  int dim, k;
  int64_t cells[3], n_u[3][3], offset[4], n_p[3];
  double h[3];
  int local_n[3][3];   /* 1D basis functions per direction of component i on a cell */
  int local_offset[4]; /* first local index of component i; [dim] = velocity functions */
  int local_p;         /* pressure functions on a cell, (k+1)^dim */
  double lobatto[MAX_K + 2], gauss[MAX_K + 1];
} layout;

static int layout_init(int dim, int k, const int64_t cells[3], const double h[3], layout *L) {
  if (dim < 2 || dim > 3 || k < 0 || k > MAX_K) {
    fprintf(stderr, "stokes_reference: dim = %d, k = %d; allowed dim 2..3, k 0..%d\n", dim, k,
            MAX_K);
    return 1;
  }
  memset(L, 0, sizeof *L);
  L->dim = dim;
  L->k = k;
  for (int d = 0; d < 3; ++d) {
    L->cells[d] = d < dim ? cells[d] : 1;
    L->h[d] = h && d < dim ? h[d] : 1.0;
    if (L->cells[d] < 1 || !(L->h[d] > 0.0)) {
      fprintf(stderr, "stokes_reference: cells[%d] = %lld, h[%d] = %g; both must be > 0\n", d,
              (long long)L->cells[d], d, L->h[d]);
      return 1;
    }
  }
  double w[MAX_K + 2];
  ts_gauss_lobatto_rule(k + 2, L->lobatto, w);
  ts_gauss_rule(k + 1, L->gauss, w);
  L->local_p = 1;
  for (int i = 0; i < dim; ++i) {
    int64_t size = 1;
    int local = 1;
    for (int d = 0; d < 3; ++d) {
      L->n_u[i][d] = d < dim ? L->cells[d] * (k + 1) + (d == i) : 1;
      L->local_n[i][d] = d < dim ? k + 1 + (d == i) : 1;
      size *= L->n_u[i][d];
      local *= L->local_n[i][d];
    }
    L->offset[i + 1] = L->offset[i] + size;
    L->local_offset[i + 1] = L->local_offset[i] + local;
  }
  for (int d = 0; d < 3; ++d) {
    L->n_p[d] = d < dim ? L->cells[d] * (k + 1) : 1;
    if (d < dim) L->local_p *= k + 1;
  }
  return 0;
}

static int64_t layout_size(const layout *L) {
  return L->offset[L->dim] + L->n_p[0] * L->n_p[1] * L->n_p[2];
}

/* The component of local velocity function a and its 1D indices r[d] on the cell. */
static int local_velocity(const layout *L, int a, int r[3]) {
  int i = 0;
  while (a >= L->local_offset[i + 1]) ++i;
  a -= L->local_offset[i];
  for (int d = 0; d < 3; ++d) {
    r[d] = a % L->local_n[i][d];
    a /= L->local_n[i][d];
  }
  return i;
}

static void local_pressure(const layout *L, int b, int r[3]) {
  for (int d = 0; d < 3; ++d) {
    r[d] = d < L->dim ? b % (L->k + 1) : 0;
    if (d < L->dim) b /= L->k + 1;
  }
}

/* Global indices (section 2) of the velocity and pressure functions of cell c. */
static void cell_indices(const layout *L, const int64_t c[3], int64_t *gu, int64_t *gp) {
  int r[3];
  for (int a = 0; a < L->local_offset[L->dim]; ++a) {
    const int i = local_velocity(L, a, r);
    int64_t g[3];
    for (int d = 0; d < 3; ++d) g[d] = c[d] * (L->k + 1) + r[d];
    gu[a] = L->offset[i] + g[0] + L->n_u[i][0] * (g[1] + L->n_u[i][1] * g[2]);
  }
  for (int b = 0; b < L->local_p; ++b) {
    local_pressure(L, b, r);
    int64_t g[3];
    for (int d = 0; d < 3; ++d) g[d] = c[d] * (L->k + 1) + r[d];
    gp[b] = L->offset[L->dim] + g[0] + L->n_p[0] * (g[1] + L->n_p[1] * g[2]);
  }
}

/* Values (of the function's own component) and physical gradients of every local velocity
 * function, and the values of every pressure function, at the reference point xr. */
typedef struct point_values {
  double *u, (*grad_u)[3], *p;
} point_values;

static void evaluate_basis(const layout *L, const double xr[3], point_values *v) {
  double lob[3][MAX_K + 2], dlob[3][MAX_K + 2], gau[3][MAX_K + 1], dgau[3][MAX_K + 1];
  for (int d = 0; d < L->dim; ++d) {
    ts_lagrange_eval(L->k + 2, L->lobatto, xr[d], lob[d], dlob[d]);
    ts_lagrange_eval(L->k + 1, L->gauss, xr[d], gau[d], dgau[d]);
  }
  int r[3];
  for (int a = 0; a < L->local_offset[L->dim]; ++a) {
    const int i = local_velocity(L, a, r);
    double val[3], der[3];
    for (int d = 0; d < L->dim; ++d) {
      val[d] = d == i ? lob[d][r[d]] : gau[d][r[d]];
      der[d] = (d == i ? dlob[d][r[d]] : dgau[d][r[d]]) / L->h[d];
    }
    v->u[a] = 1.0;
    for (int d = 0; d < L->dim; ++d) v->u[a] *= val[d];
    for (int e = 0; e < L->dim; ++e) {
      v->grad_u[a][e] = der[e];
      for (int d = 0; d < L->dim; ++d)
        if (d != e) v->grad_u[a][e] *= val[d];
    }
  }
  for (int b = 0; b < L->local_p; ++b) {
    local_pressure(L, b, r);
    v->p[b] = 1.0;
    for (int d = 0; d < L->dim; ++d) v->p[b] *= gau[d][r[d]];
  }
}

static int point_values_alloc(const layout *L, point_values *v) {
  const size_t nu = (size_t)L->local_offset[L->dim];
  v->u = malloc(sizeof(double) * nu);
  v->grad_u = malloc(sizeof(double[3]) * nu);
  v->p = malloc(sizeof(double) * (size_t)L->local_p);
  return !v->u || !v->grad_u || !v->p;
}

static void point_values_free(point_values *v) {
  free(v->u);
  free(v->grad_u);
  free(v->p);
}

/* Tensor Gauss rule with k+3 points per direction on the reference cell (or, skipping
 * direction `fixed`, on a face); point m's reference coordinates and physical weight. */
typedef struct rule {
  int nq;
  double x[MAX_K + 3], w[MAX_K + 3];
} rule;

static int rule_points(const layout *L, const rule *q, int fixed) {
  int n = 1;
  for (int d = 0; d < L->dim; ++d)
    if (d != fixed) n *= q->nq;
  return n;
}

static double rule_point(const layout *L, const rule *q, int fixed, int m, double xr[3]) {
  double w = 1.0;
  for (int d = 0; d < L->dim; ++d) {
    if (d == fixed) continue;
    xr[d] = q->x[m % q->nq];
    w *= q->w[m % q->nq] * L->h[d];
    m /= q->nq;
  }
  return w;
}

/* Cell matrices: Auu[a][b] = (grad phi_b, grad phi_a), B[p][b] = (psi_p, div phi_b). */
static void cell_matrices(const layout *L, const rule *q, point_values *v, double *Auu, double *B) {
  const int nu = L->local_offset[L->dim], np = L->local_p;
  int ra[3];
  for (int m = 0; m < rule_points(L, q, -1); ++m) {
    double xr[3];
    const double w = rule_point(L, q, -1, m, xr);
    evaluate_basis(L, xr, v);
    for (int a = 0; a < nu; ++a) {
      const int i = local_velocity(L, a, ra);
      for (int b = L->local_offset[i]; b < L->local_offset[i + 1]; ++b)
        for (int d = 0; d < L->dim; ++d) Auu[a * nu + b] += w * v->grad_u[a][d] * v->grad_u[b][d];
      for (int p = 0; p < np; ++p) B[p * nu + a] += w * v->p[p] * v->grad_u[a][i];
    }
  }
}

/* One side of a face in the form (3): the cell's reference coordinate on the face, and the
 * factors of its trace in the jump [w] and in the average {w} (section 3). Interior face:
 * K^- (coordinate 1, jump +1, average 1/2) and K^+ (coordinate 0, jump -1, average 1/2).
 * Boundary face: [u] = u, {d_n u} = d_n u, and the penalty doubles (2 gamma_F u.v). */
typedef struct face_side {
  double coordinate, jump, average;
} face_side;

/* The face matrix F[(s,a)][(t,b)] on the sides s, t of a face normal to direction d with
 * normal sign `normal` (n = normal e_d):
 *   penalty [phi_b].[phi_a] - {d_n phi_b}.[phi_a] - {d_n phi_a}.[phi_b]. */
static void face_matrix(const layout *L, const rule *q, point_values *v, int d, int sides,
                        const face_side *side, double normal, double penalty, double *F) {
  const int nu = L->local_offset[L->dim], nf = sides * nu;
  double *val = malloc(sizeof(double) * (size_t)nf), *dn = malloc(sizeof(double) * (size_t)nf);
  int *comp = malloc(sizeof(int) * (size_t)nu), r[3];
  for (int a = 0; a < nu; ++a) comp[a] = local_velocity(L, a, r);
  for (int m = 0; m < rule_points(L, q, d); ++m) {
    double xr[3];
    const double w = rule_point(L, q, d, m, xr);
    for (int s = 0; s < sides; ++s) {
      xr[d] = side[s].coordinate;
      evaluate_basis(L, xr, v);
      for (int a = 0; a < nu; ++a) {
        val[s * nu + a] = v->u[a];
        dn[s * nu + a] = normal * v->grad_u[a][d];
      }
    }
    for (int s = 0; s < sides; ++s)
      for (int a = 0; a < nu; ++a)
        for (int t = 0; t < sides; ++t)
          for (int b = 0; b < nu; ++b) {
            if (comp[a] != comp[b]) continue; /* u.v couples a component with itself */
            const int sa = s * nu + a, tb = t * nu + b;
            F[sa * nf + tb] += w * (penalty * side[s].jump * side[t].jump * val[sa] * val[tb] -
                                    side[s].jump * side[t].average * dn[tb] * val[sa] -
                                    side[t].jump * side[s].average * dn[sa] * val[tb]);
          }
  }
  free(val);
  free(dn);
  free(comp);
}

static void add_block(double *A, int64_t n, const int64_t *rows, int nr, const int64_t *cols,
                      int nc, const double *block, double sign) {
  for (int a = 0; a < nr; ++a)
    for (int b = 0; b < nc; ++b) A[rows[a] * n + cols[b]] += sign * block[a * nc + b];
}

int stokes_reference_is_constrained(int dim, int k, const int64_t cells[3], int64_t index) {
  layout L;
  if (layout_init(dim, k, cells, NULL, &L)) return 0;
  for (int i = 0; i < dim; ++i)
    if (index >= L.offset[i] && index < L.offset[i + 1]) {
      int64_t a = index - L.offset[i];
      for (int d = 0; d < i; ++d) a /= L.n_u[i][d];
      a %= L.n_u[i][i];
      return a == 0 || a == L.n_u[i][i] - 1;
    }
  return 0;
}

/* Identity rows and zero columns for the constrained DoFs (section 2). */
static void constrain(const layout *L, double *A, int64_t n) {
  for (int64_t c = 0; c < L->offset[L->dim]; ++c) {
    if (!stokes_reference_is_constrained(L->dim, L->k, L->cells, c)) continue;
    for (int64_t j = 0; j < n; ++j) A[c * n + j] = A[j * n + c] = 0.0;
    A[c * n + c] = 1.0;
  }
}

/* Scatter the local matrices over every cell and face of the box. */
static void scatter(const layout *L, const double *Auu, const double *B, double *const Fint[3],
                    double *const Fbnd[3][2], double *A, int64_t n) {
  const int nu = L->local_offset[L->dim], np = L->local_p;
  int64_t *gu = malloc(sizeof(int64_t) * 2 * (size_t)nu), *gp = malloc(sizeof(int64_t) * (size_t)np);
  int64_t c[3];
  for (c[2] = 0; c[2] < L->cells[2]; ++c[2])
    for (c[1] = 0; c[1] < L->cells[1]; ++c[1])
      for (c[0] = 0; c[0] < L->cells[0]; ++c[0]) {
        cell_indices(L, c, gu, gp);
        add_block(A, n, gu, nu, gu, nu, Auu, 1.0);
        add_block(A, n, gp, np, gu, nu, B, -1.0); /* y_p = -B u */
        for (int a = 0; a < nu; ++a)               /* y_u = B^T p */
          for (int p = 0; p < np; ++p) A[gu[a] * n + gp[p]] += B[p * nu + a];
        for (int d = 0; d < L->dim; ++d) {
          if (c[d] == 0) add_block(A, n, gu, nu, gu, nu, Fbnd[d][0], 1.0);
          if (c[d] == L->cells[d] - 1) add_block(A, n, gu, nu, gu, nu, Fbnd[d][1], 1.0);
          if (c[d] + 1 < L->cells[d]) { /* the face to the neighbor c + e_d: [K^-, K^+] */
            int64_t next[3] = {c[0], c[1], c[2]}, unused[TS_MAX_CELL_DOFS];
            next[d] += 1;
            cell_indices(L, next, gu + nu, unused);
            add_block(A, n, gu, 2 * nu, gu, 2 * nu, Fint[d], 1.0);
          }
        }
      }
  free(gu);
  free(gp);
}

static int assemble(int dim, int k, const int64_t cells[3], const double h[3], double eta,
                    int constrained, double *A, int64_t n) {
  layout L;
  if (layout_init(dim, k, cells, h, &L)) return 1;
  if (n != layout_size(&L) || !A || !(eta > 0.0)) {
    fprintf(stderr, "stokes_reference_matrix: n = %lld (must be the DoF count %lld), eta = %g "
            "(must be > 0), A = %p (must not be NULL)\n", (long long)n,
            (long long)layout_size(&L), eta, (void *)A);
    return 1;
  }
  const int nu = L.local_offset[dim], np = L.local_p;
  rule q = {.nq = k + 3};
  ts_gauss_rule(q.nq, q.x, q.w);
  point_values v;
  double *Auu = calloc((size_t)nu * nu, sizeof(double));
  double *B = calloc((size_t)np * nu, sizeof(double));
  double *Fint[3] = {NULL, NULL, NULL}, *Fbnd[3][2] = {{NULL}};
  int failed = point_values_alloc(&L, &v) || !Auu || !B;
  for (int d = 0; d < dim && !failed; ++d) {
    const double gamma = eta * (k + 1) * (k + 2) / L.h[d];
    const face_side interior[2] = {{1.0, 1.0, 0.5}, {0.0, -1.0, 0.5}};
    const face_side left = {0.0, 1.0, 1.0}, right = {1.0, 1.0, 1.0};
    Fint[d] = calloc((size_t)4 * nu * nu, sizeof(double));
    Fbnd[d][0] = calloc((size_t)nu * nu, sizeof(double));
    Fbnd[d][1] = calloc((size_t)nu * nu, sizeof(double));
    failed = !Fint[d] || !Fbnd[d][0] || !Fbnd[d][1];
    if (failed) break;
    face_matrix(&L, &q, &v, d, 2, interior, 1.0, gamma, Fint[d]);
    face_matrix(&L, &q, &v, d, 1, &left, -1.0, 2.0 * gamma, Fbnd[d][0]);
    face_matrix(&L, &q, &v, d, 1, &right, 1.0, 2.0 * gamma, Fbnd[d][1]);
  }
  if (!failed) {
    cell_matrices(&L, &q, &v, Auu, B);
    memset(A, 0, sizeof(double) * (size_t)(n * n));
    scatter(&L, Auu, B, Fint, Fbnd, A, n);
    if (constrained) constrain(&L, A, n);
  } else {
    fprintf(stderr, "stokes_reference_matrix: out of memory (%d local velocity functions)\n", nu);
  }
  point_values_free(&v);
  free(Auu);
  free(B);
  for (int d = 0; d < 3; ++d) {
    free(Fint[d]);
    free(Fbnd[d][0]);
    free(Fbnd[d][1]);
  }
  return failed;
}

int64_t stokes_reference_size(int dim, int k, const int64_t cells[3]) {
  layout L;
  return layout_init(dim, k, cells, NULL, &L) ? -1 : layout_size(&L);
}

int stokes_reference_matrix(int dim, int k, const int64_t cells[3], const double h[3], double eta,
                            double *A, int64_t n) {
  return assemble(dim, k, cells, h, eta, 1, A, n);
}

int stokes_reference_matrix_unconstrained(int dim, int k, const int64_t cells[3],
                                          const double h[3], double eta, double *A, int64_t n) {
  return assemble(dim, k, cells, h, eta, 0, A, n);
}

int stokes_reference_support_point(int dim, int k, const int64_t cells[3], const double h[3],
                                   int64_t index, int *field, double x[3]) {
  layout L;
  if (layout_init(dim, k, cells, h, &L)) return 1;
  if (index < 0 || index >= layout_size(&L)) {
    fprintf(stderr, "stokes_reference_support_point: index = %lld, allowed 0..%lld\n",
            (long long)index, (long long)layout_size(&L) - 1);
    return 1;
  }
  int f = 0;
  while (f < dim && index >= L.offset[f + 1]) ++f;
  int64_t a = index - L.offset[f];
  for (int d = 0; d < dim; ++d) {
    const int64_t nd = f < dim ? L.n_u[f][d] : L.n_p[d], g = a % nd;
    a /= nd;
    if (f == d) { /* Lobatto: the last node of cell c is the first of cell c+1 */
      const int64_t c = g / (k + 1) < L.cells[d] ? g / (k + 1) : L.cells[d] - 1;
      x[d] = L.h[d] * ((double)c + L.lobatto[g - c * (k + 1)]);
    } else {
      x[d] = L.h[d] * ((double)(g / (k + 1)) + L.gauss[g % (k + 1)]);
    }
  }
  *field = f;
  return 0;
}
