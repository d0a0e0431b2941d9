/* ex-stokes.c -- solve the Stokes equations -Laplace(u) + grad p = f, div u = 0 on the unit
 * square or cube with no-slip walls, using H(div)-conforming Raviart-Thomas velocities RT_k,
 * discontinuous pressures DGQ_k and the symmetric interior penalty method (paper 000), and
 * watch the errors of velocity and pressure fall as the mesh is refined.
 *
 *   usage: ex-stokes [dim (2)] [degree k (2)] [finest level (5 in 2D, 3 in 3D)] [backend (omp)]
 *                    [output.vtu (none)]
 *
 * The solver is GMRES preconditioned by one multigrid V-cycle whose smoother solves the local
 * saddle-point problem of every vertex patch by a Schur complement (paper 000, section 3).
 * The pressure is determined up to a constant: the V-cycle and the final solution have their
 * pressure mean removed, and the error is measured against the zero-mean exact pressure.
 * Given a file name, the finest solution is written there for ParaView: velocity, pressure
 * and their exact values and errors, each cell sampled on (k+1)^dim sub-cells. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

/* Stop on the first error, printing what went wrong (every call returns 0 on success). */
#define CHECK(call)                                                  \
  do {                                                               \
    if (call) {                                                      \
      fprintf(stderr, "ex-stokes: %s\n", ts_error_message());        \
      exit(1);                                                       \
    }                                                                \
  } while (0)

/* Solve on one level of the mesh; return the L2 errors of velocity and pressure, and write
 * the solution to vtu_path unless it is NULL. */
static void solve_on_level(ts_backend backend, ts_mesh mesh, int degree, int level,
                           const ts_stokes_solution *exact, const char *vtu_path,
                           double *velocity_error, double *pressure_error) {
  /* The multigrid hierarchy owns, on every level, the RT_k and DGQ_k numberings, the
   * matrix-free Stokes operator, the vertex-patch smoother and the transfers. */
  ts_mg_options options;
  ts_mg mg;
  ts_mg_options_default(&options);
  options.coarse_level = 1; /* the coarsest level needs an interior vertex: 2^dim cells */
  CHECK(ts_mg_create_stokes(backend, mesh, degree, level, &options, &mg));
  ts_dofs velocity = ts_mg_dofs(mg), pressure = ts_mg_pressure_dofs(mg);
  ts_operator stokes = ts_mg_operator(mg);
  const int64_t n = ts_operator_size(stokes);

  /* b = [(f, v_i); 0], assembled on the host by quadrature and copied to the backend. */
  double *host = malloc(sizeof(double) * (size_t)n);
  if (!host) exit(1);
  ts_vec b, x;
  CHECK(ts_stokes_assemble_rhs(velocity, pressure, exact, host));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &b));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &x));
  CHECK(ts_vec_set_from_host(b, host));

  /* GMRES with the V-cycle as right preconditioner, to a relative residual of 1e-10. */
  ts_solver gmres;
  CHECK(ts_solver_create(TS_SOLVER_GMRES, &gmres));
  CHECK(ts_solver_set_operator(gmres, stokes));
  CHECK(ts_solver_set_preconditioner(gmres, ts_mg_preconditioner(mg)));
  CHECK(ts_solver_set_tolerances(gmres, 1e-10, 200));
  CHECK(ts_solver_set_restart(gmres, 30));
  CHECK(ts_solver_solve(gmres, b, x));
  CHECK(ts_stokes_pressure_mean_remove(stokes, x));

  CHECK(ts_vec_get_to_host(x, host));
  CHECK(ts_stokes_compute_errors(velocity, pressure, host, exact, velocity_error, pressure_error));
  /* A DG field: every cell gets its own (k+1)^dim sub-cells, so the jumps stay visible. */
  if (vtu_path) CHECK(ts_stokes_write_vtu(vtu_path, velocity, pressure, host, exact, degree + 1));
  printf("level %d: %9lld DoFs, %3d GMRES iterations, L2 errors: velocity %.4e, pressure %.4e",
         level, (long long)n, ts_solver_iterations(gmres), *velocity_error, *pressure_error);

  free(host);
  ts_solver_destroy(&gmres);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_mg_destroy(&mg);
}

int main(int argc, char **argv) {
  const int dim = argc > 1 ? atoi(argv[1]) : 2;
  const int degree = argc > 2 ? atoi(argv[2]) : 2;
  const int finest = argc > 3 ? atoi(argv[3]) : (dim == 2 ? 5 : 3);
  const char *backend_name = argc > 4 ? argv[4] : "omp";
  const char *vtu_path = argc > 5 ? argv[5] : NULL;
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  const ts_stokes_solution *exact;
  ts_backend backend;
  ts_mesh mesh;

  CHECK(ts_backend_open(backend_name, &backend));
  CHECK(ts_mesh_create_box(dim, lower, upper, coarse, finest, &mesh));
  CHECK(ts_stokes_solution_by_name("paper000", &exact)); /* paper 000, eq. (11)-(13) */
  printf("Stokes, RT%d x DGQ%d on the unit %s, backend %s\n", degree, degree,
         dim == 2 ? "square" : "cube", ts_backend_name(backend));

  double velocity_prev = 0, pressure_prev = 0;
  for (int level = 2; level <= finest; ++level) {
    double velocity_error, pressure_error;
    solve_on_level(backend, mesh, degree, level, exact, level == finest ? vtu_path : NULL,
                   &velocity_error, &pressure_error);
    if (level > 2) /* halving h should divide both errors by 2^(k+1) */
      printf(", rates %.2f %.2f", log2(velocity_prev / velocity_error),
             log2(pressure_prev / pressure_error));
    printf("\n");
    velocity_prev = velocity_error;
    pressure_prev = pressure_error;
  }
  if (vtu_path) printf("wrote %s\n", vtu_path);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&backend);
  return 0;
}
