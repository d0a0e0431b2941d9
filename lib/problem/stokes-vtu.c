/* stokes-vtu.c -- VTK output (.vtu) of a Stokes solution [u; p] of RT_k x DGQ_k
 * (doc/stokes.md sections 1-2 and 10).  The tangential velocity and the pressure jump across
 * cells, so every cell gets its own lattice of `subdivisions` sub-cells per direction (the
 * points on shared faces are repeated, as a DG field needs).  Point data: "velocity" (3
 * components, z = 0 in 2D), "pressure" (mean removed, as in ts_stokes_compute_errors), and
 * with an exact solution "velocity_exact", "pressure_exact" (mean removed), "velocity_error"
 * and "pressure_error" (discrete - exact).  The fields are evaluated by stokes-eval.c, the
 * file written by vtu-file.c. */
#include "stokes-eval.h"
#include "vtu-file.h"

/* What the point and field callbacks read. */
typedef struct stokes_sampler {
  ts_dofs velocity, pressure;
  const double *x;              /* [u; p] on the host */
  const ts_stokes_solution *s;  /* NULL: no exact fields */
  ts_stokes_tables t;           /* the 1D bases at the s+1 lattice positions */
  int64_t per_cell;             /* (s+1)^dim points */
  double discrete_mean, exact_mean; /* of the pressures (doc/stokes.md section 6) */
  int64_t first[3], cells[3];   /* the cells written: first + [0, cells) of the DoFs' box */
} stokes_sampler;

/* A lattice point: its cell, its 1D lattice indices within the cell and its coordinates. */
typedef struct lattice_point {
  int64_t c[3];
  int qi[3];
  double x[3];
} lattice_point;

static lattice_point locate(const stokes_sampler *q, int64_t p) {
  lattice_point l = {.x = {0.0, 0.0, 0.0}};
  const int64_t cell = p / q->per_cell, *n = q->cells;
  l.c[0] = q->first[0] + cell % n[0];
  l.c[1] = q->first[1] + cell / n[0] % n[1];
  l.c[2] = q->first[2] + cell / (n[0] * n[1]);
  ts_stokes_point_indices(&q->t, (int)(p % q->per_cell), l.qi);
  for (int d = 0; d < q->t.dim; ++d)
    l.x[d] = q->velocity->lower[d] + q->velocity->h[d] * ((double)l.c[d] + q->t.points[l.qi[d]]);
  return l;
}

static void point_coordinates(const void *ctx, int64_t p, double *x) {
  const lattice_point l = locate(ctx, p);
  for (int d = 0; d < 3; ++d) x[d] = l.x[d];
}

static void discrete_velocity(const void *ctx, int64_t p, double *v) {
  const stokes_sampler *q = ctx;
  const lattice_point l = locate(q, p);
  v[2] = 0.0;
  ts_stokes_velocity_at(q->velocity, &q->t, q->x, l.c, l.qi, v);
}

static void exact_velocity(const void *ctx, int64_t p, double *v) {
  const stokes_sampler *q = ctx;
  const lattice_point l = locate(q, p);
  v[2] = 0.0;
  q->s->velocity(q->t.dim, l.x, v);
}

static void velocity_error(const void *ctx, int64_t p, double *v) {
  double exact[3];
  discrete_velocity(ctx, p, v);
  exact_velocity(ctx, p, exact);
  for (int i = 0; i < 3; ++i) v[i] -= exact[i];
}

static void discrete_pressure(const void *ctx, int64_t p, double *v) {
  const stokes_sampler *q = ctx;
  const lattice_point l = locate(q, p);
  v[0] = ts_stokes_pressure_at(q->velocity, q->pressure, &q->t, q->x, l.c, l.qi) -
         q->discrete_mean;
}

static void exact_pressure(const void *ctx, int64_t p, double *v) {
  const stokes_sampler *q = ctx;
  v[0] = q->s->pressure(q->t.dim, locate(q, p).x) - q->exact_mean;
}

static void pressure_error(const void *ctx, int64_t p, double *v) {
  double exact;
  discrete_pressure(ctx, p, v);
  exact_pressure(ctx, p, &exact);
  v[0] -= exact;
}

static const ts_vtu_field stokes_fields[] = {
    {"velocity", 3, discrete_velocity},     {"pressure", 1, discrete_pressure},
    {"velocity_exact", 3, exact_velocity},  {"pressure_exact", 1, exact_pressure},
    {"velocity_error", 3, velocity_error},  {"pressure_error", 1, pressure_error}};

/* The file's lattices, one per cell of cells[0..dim-1] with s sub-cells per direction, with
 * the exact and error fields if exact; the writer sets the callbacks' context. */
static ts_vtu_grid stokes_grid(int dim, const int64_t *cells, int s, int exact) {
  ts_vtu_grid g = {.dim = dim, .blocks = 1, .np = {1, 1, 1}, .point = point_coordinates,
                   .n_fields = exact ? 6 : 2, .fields = stokes_fields, .scalars = "pressure",
                   .vectors = "velocity"};
  for (int d = 0; d < dim; ++d) {
    g.blocks *= cells[d];
    g.np[d] = s + 1;
  }
  return g;
}

int ts_stokes_vtu_check_output(const char *path, int dim, const int64_t *cells,
                               int subdivisions) {
  const ts_vtu_grid grid = stokes_grid(dim, cells, subdivisions, 1);
  TS_CALL(ts_vtu_check(path, &grid));
  return 0;
}

int ts_stokes_write_pvtu(const char *path, int dim, int exact, int n_pieces,
                         const char *const *pieces) {
  static const int64_t one_cell[3] = {1, 1, 1};
  const ts_vtu_grid grid = stokes_grid(dim, one_cell, 1, exact); /* its fields only */
  TS_CALL(ts_vtu_write_index(path, &grid, n_pieces, pieces));
  return 0;
}

/* the file of the cells q->first + [0, q->cells) with the sampler's means set */
static int write_cells(const char *path, stokes_sampler *q, int subdivisions) {
  double positions[17];
  TS_CHECK_ARG(subdivisions >= 1 && subdivisions <= 16,
               "VTU output of '%s': subdivisions = %d, allowed 1..16", path, subdivisions);
  for (int i = 0; i <= subdivisions; ++i) positions[i] = (double)i / subdivisions;
  TS_CALL(ts_stokes_tables_init(q->velocity, subdivisions + 1, positions, &q->t));
  ts_vtu_grid grid = stokes_grid(q->velocity->dim, q->cells, subdivisions, q->s != NULL);
  grid.ctx = q;
  q->per_cell = 1;
  for (int d = 0; d < q->velocity->dim; ++d) q->per_cell *= subdivisions + 1;
  TS_CALL(ts_vtu_write(path, &grid));
  return 0;
}

int ts_stokes_write_vtu_block(const char *path, ts_dofs velocity, ts_dofs pressure,
                              const double *x, const ts_stokes_solution *s, int subdivisions,
                              const int64_t *first, const int64_t *cells, const double *means) {
  stokes_sampler q = {.velocity = velocity, .pressure = pressure, .x = x, .s = s,
                      .discrete_mean = means[0], .exact_mean = means[1]};
  for (int d = 0; d < 3; ++d) {
    q.first[d] = first[d];
    q.cells[d] = cells[d];
  }
  return write_cells(path, &q, subdivisions);
}

int ts_stokes_write_vtu(const char *path, ts_dofs velocity, ts_dofs pressure, const double *x,
                        const ts_stokes_solution *s, int subdivisions) {
  stokes_sampler q = {.velocity = velocity, .pressure = pressure, .x = x, .s = s,
                      .first = {0, 0, 0}};
  TS_CHECK_ARG(path && *path && x, "ts_stokes_write_vtu: NULL or empty path or solution");
  TS_CALL(ts_stokes_check_dofs(velocity, pressure, "ts_stokes_write_vtu"));
  for (int d = 0; d < 3; ++d) q.cells[d] = velocity->cells[d];
  TS_CALL(ts_stokes_pressure_means(velocity, pressure, x, s, &q.discrete_mean, &q.exact_mean));
  return write_cells(path, &q, subdivisions);
}
