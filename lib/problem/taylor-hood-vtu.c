/* taylor-hood-vtu.c -- VTK output (.vtu) of a Taylor-Hood solution [u_0; ..; u_{dim-1}; p] of
 * Q_k x Q_{k-1} (doc/taylor-hood.md).  Both fields are continuous, so one lattice of
 * `subdivisions` sub-cells per cell and direction covers the box, its points on cell faces
 * shared (as for Q_k, vtu.c), each field sampled with its own basis.  Point data: "velocity"
 * (3 components, z = 0 in 2D), "pressure" (its mean removed), and with an exact solution
 * "velocity_exact", "pressure_exact" (its mean removed), "velocity_error" and
 * "pressure_error" (discrete - exact), the names of the RT writer (stokes-vtu.c). */
#include "vtu-file.h"

/* What the point and field callbacks read. */
typedef struct th_sampler {
  ts_q_lattice velocity, pressure; /* one lattice of points, the two bases */
  const double *x;              /* [u_0; ..; p] on the host */
  const ts_stokes_solution *s;  /* NULL: no exact fields */
  double discrete_mean, exact_mean;
} th_sampler;

static void point_coordinates(const void *ctx, int64_t p, double *x) {
  const th_sampler *q = ctx;
  ts_q_lattice_point(&q->velocity, p, x);
}

static void discrete_velocity(const void *ctx, int64_t p, double *v) {
  const th_sampler *q = ctx;
  const ts_dofs u = q->velocity.dofs;
  v[2] = 0.0;
  for (int c = 0; c < u->dim; ++c)
    v[c] = ts_q_lattice_value(&q->velocity, p, q->x + (int64_t)c * u->count, 1, 0);
}

static void exact_velocity(const void *ctx, int64_t p, double *v) {
  const th_sampler *q = ctx;
  double x[3];
  ts_q_lattice_point(&q->velocity, p, x);
  v[2] = 0.0;
  q->s->velocity(q->velocity.dofs->dim, x, v);
}

static void velocity_error(const void *ctx, int64_t p, double *v) {
  double exact[3];
  discrete_velocity(ctx, p, v);
  exact_velocity(ctx, p, exact);
  for (int c = 0; c < 3; ++c) v[c] -= exact[c];
}

static void discrete_pressure(const void *ctx, int64_t p, double *v) {
  const th_sampler *q = ctx;
  const ts_dofs u = q->velocity.dofs;
  v[0] = ts_q_lattice_value(&q->pressure, p, q->x + (int64_t)u->dim * u->count, 1, 0) -
         q->discrete_mean;
}

static void exact_pressure(const void *ctx, int64_t p, double *v) {
  const th_sampler *q = ctx;
  double x[3];
  ts_q_lattice_point(&q->velocity, p, x);
  v[0] = q->s->pressure(q->velocity.dofs->dim, x) - q->exact_mean;
}

static void pressure_error(const void *ctx, int64_t p, double *v) {
  double exact;
  discrete_pressure(ctx, p, v);
  exact_pressure(ctx, p, &exact);
  v[0] -= exact;
}

static const ts_vtu_field taylor_hood_fields[] = {
    {"velocity", 3, discrete_velocity},       {"pressure", 1, discrete_pressure},
    {"velocity_exact", 3, exact_velocity},    {"pressure_exact", 1, exact_pressure},
    {"velocity_error", 3, velocity_error},    {"pressure_error", 1, pressure_error}};

static ts_vtu_grid taylor_hood_grid(int dim, const int64_t *cells, int s, int exact) {
  ts_vtu_grid g = {.dim = dim, .blocks = 1, .np = {1, 1, 1}, .point = point_coordinates,
                   .n_fields = exact ? 6 : 2, .fields = taylor_hood_fields,
                   .scalars = "pressure", .vectors = "velocity"};
  for (int d = 0; d < dim; ++d) g.np[d] = cells[d] * s + 1;
  return g;
}

int ts_taylor_hood_vtu_check_output(const char *path, int dim, const int64_t *cells,
                                    int subdivisions) {
  const ts_vtu_grid grid = taylor_hood_grid(dim, cells, subdivisions, 1);
  TS_CALL(ts_vtu_check(path, &grid));
  return 0;
}

/* The means over the box of the discrete pressure (the Q_{k-1} field of x) and of the exact
 * one, by the Gauss rule of k+1 points per direction in every cell (exact for the discrete
 * field; the exact pressure of paper004 is a quadratic). */
static void pressure_means(ts_dofs pressure, const double *p, const ts_stokes_solution *s,
                           double *discrete_mean, double *exact_mean) {
  const int dim = pressure->dim, n1 = pressure->degree + 1, nq = pressure->degree + 2;
  double points[TS_MAX_DEGREE + 3], weights[TS_MAX_DEGREE + 3];
  double basis[(TS_MAX_DEGREE + 3) * (TS_MAX_DEGREE + 1)];
  (void)ts_gauss_rule(nq, points, weights);
  ts_lagrange_tabulate(n1, pressure->fe->points, nq, points, basis, NULL);
  double sum_h = 0.0, sum_exact = 0.0, volume = 1.0, cell_volume = 1.0;
  for (int d = 0; d < dim; ++d) {
    volume *= pressure->h[d] * (double)pressure->cells[d];
    cell_volume *= pressure->h[d];
  }
  const int64_t n_cells = ts_cell_count(pressure);
  const int q2 = dim == 3 ? nq : 1, a2n = dim == 3 ? n1 : 1;
  int64_t idx[TS_MAX_CELL_DOFS];
  for (int64_t cell = 0; cell < n_cells; ++cell) {
    int64_t c[3];
    ts_cell_from_index(pressure, cell, c);
    ts_cell_dof_indices(pressure, c, idx);
    for (int i2 = 0; i2 < q2; ++i2)
      for (int i1 = 0; i1 < nq; ++i1)
        for (int i0 = 0; i0 < nq; ++i0) {
          const int qi[3] = {i0, i1, i2};
          double w = cell_volume, value = 0.0, x[3] = {0.0, 0.0, 0.0};
          for (int d = 0; d < dim; ++d) {
            w *= weights[qi[d]];
            x[d] = pressure->lower[d] + pressure->h[d] * ((double)c[d] + points[qi[d]]);
          }
          int m = 0;
          for (int a2 = 0; a2 < a2n; ++a2)
            for (int a1 = 0; a1 < n1; ++a1)
              for (int a0 = 0; a0 < n1; ++a0, ++m) {
                double b = basis[i0 * n1 + a0] * basis[i1 * n1 + a1];
                if (dim == 3) b *= basis[i2 * n1 + a2];
                value += b * p[idx[m]];
              }
          sum_h += w * value;
          if (s) sum_exact += w * s->pressure(dim, x);
        }
  }
  *discrete_mean = sum_h / volume;
  *exact_mean = sum_exact / volume;
}

int ts_taylor_hood_write_vtu(const char *path, ts_dofs velocity, ts_dofs pressure,
                             const double *x, const ts_stokes_solution *s, int subdivisions) {
  TS_CHECK_ARG(path && *path && velocity && pressure && x,
               "ts_taylor_hood_write_vtu: NULL or empty path, DoFs or solution");
  TS_CALL(ts_dofs_require_q(velocity, "ts_taylor_hood_write_vtu"));
  TS_CALL(ts_dofs_require_q(pressure, "ts_taylor_hood_write_vtu"));
  TS_CHECK_ARG(velocity->degree >= 2 && pressure->degree == velocity->degree - 1 &&
                   pressure->mesh == velocity->mesh && pressure->level == velocity->level &&
                   !velocity->nodes,
               "ts_taylor_hood_write_vtu: velocity Q%d and pressure Q%d (levels %d, %d): "
               "allowed Q_k and Q_{k-1}, k >= 2, of one box mesh and level", velocity->degree,
               pressure->degree, velocity->level, pressure->level);
  th_sampler q = {.x = x, .s = s};
  TS_CALL(ts_q_lattice_init(velocity, subdivisions, &q.velocity));
  TS_CALL(ts_q_lattice_init(pressure, subdivisions, &q.pressure));
  pressure_means(pressure, x + (int64_t)velocity->dim * velocity->count, s, &q.discrete_mean,
                 &q.exact_mean);
  ts_vtu_grid grid = taylor_hood_grid(velocity->dim, velocity->cells, subdivisions, s != NULL);
  grid.ctx = &q;
  TS_CALL(ts_vtu_write(path, &grid));
  return 0;
}
