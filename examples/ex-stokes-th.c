/* ex-stokes-th.c -- solve the Stokes equations -Laplace(u) + grad p = f, div u = 0 on the unit
 * square or cube with Taylor-Hood elements: continuous Q2 velocities and continuous Q1
 * pressures (papers 001/004), and watch the errors fall as the mesh is refined: u in L2 by
 * 2^3 per level, u in H1 and p in L2 by 2^2.
 *
 *   usage: ex-stokes-th [dim (2)] [finest level (5 in 2D, 3 in 3D)] [backend (omp)]
 *
 * The exact solution is the papers' (doc/taylor-hood.md): its velocity is not zero on the
 * boundary, so the boundary values are imposed and lifted into the right side.  The system
 *
 *   [A  B^T] [u]   [f]
 *   [-B  0 ] [p] = [0]
 *
 * is solved by GMRES with a block-diagonal preconditioner built from public pieces (as
 * deal.II's step-56 does): one multigrid V-cycle of the Q2 Laplacian for each velocity
 * component, and the inverse lumped pressure mass for the pressure (the Schur complement
 * B A^{-1} B^T is spectrally equivalent to the pressure mass).  The pressure is determined up
 * to a constant: the solution's pressure mean is removed before the errors are measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

/* Stop on the first error, printing what went wrong (every call returns 0 on success). */
#define CHECK(call)                                                  \
  do {                                                               \
    if (call) {                                                      \
      fprintf(stderr, "ex-stokes-th: %s\n", ts_error_message());     \
      exit(1);                                                       \
    }                                                                \
  } while (0)

typedef struct errors {
  double u_l2, u_h1, p_l2;
} errors;

/* Solve on one level of the mesh and measure the errors. */
static errors solve_on_level(ts_backend backend, ts_mesh mesh, int dim, int level,
                             const ts_stokes_solution *exact) {
  /* The Q2 Laplacian's multigrid hierarchy: its finest DoF numbering is each velocity
   * component's, and its V-cycle preconditions the velocity block. */
  ts_fe q2, q1;
  ts_mg_options options;
  ts_mg mg;
  ts_dofs pressure;
  ts_operator stokes;
  CHECK(ts_fe_create_q(dim, 2, &q2));
  CHECK(ts_fe_create_q(dim, 1, &q1));
  ts_mg_options_default(&options);
  CHECK(ts_mg_create(backend, mesh, q2, level, &options, &mg));
  ts_dofs velocity = ts_mg_dofs(mg);
  CHECK(ts_dofs_create(mesh, q1, level, &pressure));
  CHECK(ts_operator_create_taylor_hood(backend, velocity, pressure, TS_DOUBLE, &stokes));
  const int64_t n = ts_operator_size(stokes);

  /* b = [(f, v); 0] minus the operator applied to the boundary values x0 */
  ts_vec b, x, x0;
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &b));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &x));
  CHECK(ts_vec_create(backend, n, TS_DOUBLE, &x0));
  CHECK(ts_taylor_hood_assemble_rhs(stokes, velocity, pressure, exact, b, x0));

  /* diag(V, .., V, M_p^{-1}): the same V-cycle for every velocity component */
  ts_pc vcycle, mass, diagonal;
  CHECK(ts_pc_create_mg(mg, &vcycle));
  CHECK(ts_pc_create_pressure_mass(stokes, &mass));
  const ts_pc blocks[4] = {vcycle, vcycle, dim == 3 ? vcycle : mass, mass};
  CHECK(ts_pc_create_block_diagonal(dim + 1, blocks, &diagonal));

  ts_solver gmres;
  CHECK(ts_solver_create(TS_SOLVER_GMRES, &gmres));
  CHECK(ts_solver_set_operator(gmres, stokes));
  CHECK(ts_solver_set_pc(gmres, diagonal));
  CHECK(ts_solver_set_tolerances(gmres, 1e-10, 500));
  CHECK(ts_solver_set_restart(gmres, 100));
  CHECK(ts_vec_set(x, 0.0));
  CHECK(ts_solver_solve(gmres, b, x));
  CHECK(ts_stokes_pressure_mean_remove(stokes, x));
  CHECK(ts_vec_axpby(1.0, x0, 1.0, x)); /* the boundary values back */

  errors e;
  double *host = malloc(sizeof(double) * (size_t)n);
  if (!host) exit(1);
  CHECK(ts_vec_get_to_host(x, host));
  CHECK(ts_taylor_hood_compute_errors(velocity, pressure, host, exact, &e.u_l2, &e.u_h1, &e.p_l2));
  printf("level %d: %8lld DoFs, %3d GMRES iterations, errors: u L2 %.4e, u H1 %.4e, p L2 %.4e",
         level, (long long)n, ts_solver_iterations(gmres), e.u_l2, e.u_h1, e.p_l2);

  free(host);
  ts_solver_destroy(&gmres);
  ts_pc_destroy(&diagonal);
  ts_pc_destroy(&mass);
  ts_pc_destroy(&vcycle);
  ts_vec_destroy(&b);
  ts_vec_destroy(&x);
  ts_vec_destroy(&x0);
  ts_operator_destroy(&stokes);
  ts_dofs_destroy(&pressure);
  ts_mg_destroy(&mg);
  ts_fe_destroy(&q1);
  ts_fe_destroy(&q2);
  return e;
}

int main(int argc, char **argv) {
  const int dim = argc > 1 ? atoi(argv[1]) : 2;
  const int finest = argc > 2 ? atoi(argv[2]) : (dim == 2 ? 5 : 3);
  const char *backend_name = argc > 3 ? argv[3] : "omp";
  const double lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const int coarse[3] = {1, 1, 1};
  const ts_stokes_solution *exact;
  ts_backend backend;
  ts_mesh mesh;

  if (dim != 2 && dim != 3) {
    fprintf(stderr, "ex-stokes-th: dim %d; allowed 2 or 3\n", dim);
    return 2;
  }
  CHECK(ts_backend_open(backend_name, &backend));
  CHECK(ts_mesh_create_box(dim, lower, upper, coarse, finest, &mesh));
  CHECK(ts_stokes_solution_by_name("paper004", &exact)); /* papers 001/004, section 6 */
  printf("Stokes, Taylor-Hood Q2 x Q1 on the unit %s, backend %s\n",
         dim == 2 ? "square" : "cube", ts_backend_name(backend));

  errors prev = {0, 0, 0};
  for (int level = 1; level <= finest; ++level) {
    const errors e = solve_on_level(backend, mesh, dim, level, exact);
    if (level > 1) /* halving h: u L2 by 2^3, u H1 and p L2 by 2^2 */
      printf(", rates %.2f %.2f %.2f", log2(prev.u_l2 / e.u_l2), log2(prev.u_h1 / e.u_h1),
             log2(prev.p_l2 / e.p_l2));
    printf("\n");
    prev = e;
  }
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&backend);
  return 0;
}
