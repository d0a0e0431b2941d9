/* no-mpi.c -- the ts_parallel_* functions of a build without MPI (configure --without-mpi, or
 * no MPI found): each reports TS_ERR_UNSUPPORTED, the getters -1 or NULL.  No vector is ever
 * distributed here, so ts_parallel_dot and ts_parallel_random are never reached. */
#include "../tessera-impl.h"

#define TS_NO_MPI(what) \
  TS_ERROR(TS_ERR_UNSUPPORTED, "%s: Tessera was built without MPI (configure --with-mpi)", what)

int ts_parallel_available(void) { return 0; }

int ts_parallel_create(int comm, int dim, const int *procs, ts_parallel *par) {
  (void)comm, (void)dim, (void)procs;
  if (par) *par = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_destroy(ts_parallel *par) {
  (void)par;
  return 0;
}

int ts_parallel_rank(ts_parallel par) {
  TS_GETTER_NOT_NULL(par, -1); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return -1;
}

int ts_parallel_size(ts_parallel par) {
  TS_GETTER_NOT_NULL(par, -1); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return -1;
}

int ts_parallel_node_rank(ts_parallel par) {
  TS_GETTER_NOT_NULL(par, -1); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return -1;
}

int ts_parallel_procs(ts_parallel par, int *procs) {
  (void)par, (void)procs;
  return TS_NO_MPI(__func__);
}

int ts_parallel_dofs_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                            int level, ts_parallel_dofs *pd) {
  (void)backend, (void)par, (void)mesh, (void)fe, (void)level;
  if (pd) *pd = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_dofs_destroy(ts_parallel_dofs *pd) {
  (void)pd;
  return 0;
}

ts_dofs ts_parallel_dofs_local(ts_parallel_dofs pd) {
  TS_GETTER_NOT_NULL(pd, NULL); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return NULL;
}

int ts_parallel_set_agglomeration(ts_parallel par, int64_t min_cells) {
  (void)par, (void)min_cells;
  return TS_NO_MPI(__func__);
}

int ts_parallel_set_overlap(ts_parallel par, int64_t min_dofs) {
  (void)par, (void)min_dofs;
  return TS_NO_MPI(__func__);
}

int ts_parallel_timing(ts_parallel par, int on) {
  (void)par, (void)on;
  return TS_NO_MPI(__func__);
}

int ts_parallel_dofs_time(ts_parallel_dofs pd, ts_parallel_time what, double *seconds,
                          int64_t *calls) {
  (void)pd, (void)what;
  if (seconds) *seconds = 0.0;
  if (calls) *calls = 0;
  return TS_NO_MPI(__func__);
}

int ts_parallel_dofs_device_messages(ts_parallel_dofs pd) {
  TS_GETTER_NOT_NULL(pd, -1); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return -1;
}

int64_t ts_parallel_dofs_global_count(ts_parallel_dofs pd) {
  TS_GETTER_NOT_NULL(pd, -1); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return -1;
}

int64_t ts_parallel_dofs_global_index(ts_parallel_dofs pd, int64_t local) {
  (void)local;
  TS_GETTER_NOT_NULL(pd, -1);
  TS_NO_MPI(__func__);
  return -1;
}

int ts_parallel_vec_create(ts_parallel_dofs pd, ts_vec *v) {
  (void)pd;
  if (v) *v = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_vec_sum_shared(ts_parallel_dofs pd, ts_vec v) {
  (void)pd, (void)v;
  return TS_NO_MPI(__func__);
}

int ts_parallel_vec_gather(ts_vec v, double *global) {
  (void)v, (void)global;
  return TS_NO_MPI(__func__);
}

int ts_parallel_vec_scatter(const double *global, ts_vec v) {
  (void)global, (void)v;
  return TS_NO_MPI(__func__);
}

int ts_parallel_operator_create_laplace(ts_parallel_dofs pd, ts_operator *op) {
  (void)pd;
  if (op) *op = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_operator_create_mapped(ts_parallel_dofs pd, const ts_coefficients *coefficients,
                                       ts_operator *op) {
  (void)pd, (void)coefficients;
  if (op) *op = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_dot(ts_vec x, ts_vec y, double *result) {
  (void)x, (void)y, (void)result;
  return TS_NO_MPI(__func__);
}

int ts_parallel_random(ts_vec v, uint64_t seed) {
  (void)v, (void)seed;
  return TS_NO_MPI(__func__);
}

int ts_parallel_operator_create_transfer(ts_parallel_dofs coarse, ts_parallel_dofs fine,
                                         ts_operator *P) {
  (void)coarse, (void)fine;
  if (P) *P = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_mg_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                          int coarse_level, int finest_level, ts_parallel_mg *mg) {
  (void)backend, (void)par, (void)mesh, (void)fe, (void)coarse_level, (void)finest_level;
  if (mg) *mg = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_mg_create_mapped(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                                 int coarse_level, int finest_level,
                                 const ts_coefficients *coefficients, ts_parallel_mg *mg) {
  (void)backend, (void)par, (void)mesh, (void)fe, (void)coarse_level, (void)finest_level;
  (void)coefficients;
  if (mg) *mg = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_mg_destroy(ts_parallel_mg *mg) {
  (void)mg;
  return 0;
}

ts_parallel_dofs ts_parallel_mg_dofs(ts_parallel_mg mg, int level) {
  (void)level;
  TS_GETTER_NOT_NULL(mg, NULL); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return NULL;
}

int ts_parallel_mg_set_precision(ts_parallel_mg mg, ts_precision precision) {
  (void)mg, (void)precision;
  return TS_NO_MPI(__func__);
}

int ts_parallel_mg_set_coarse_degree(ts_parallel_mg mg, int degree) {
  (void)mg, (void)degree;
  return TS_NO_MPI(__func__);
}

int ts_parallel_mg_split_level(ts_parallel_mg mg) {
  TS_GETTER_NOT_NULL(mg, -1);
  TS_NO_MPI(__func__);
  return -1;
}

ts_operator ts_parallel_mg_operator(ts_parallel_mg mg, int level) {
  (void)level;
  TS_GETTER_NOT_NULL(mg, NULL); /* the getters' fallback for NULL, as with MPI */
  TS_NO_MPI(__func__);
  return NULL;
}

int ts_parallel_pc_create_mg_jacobi(ts_parallel_mg mg, double weight, int smoothing_steps,
                                    ts_pc *pc) {
  (void)mg, (void)weight, (void)smoothing_steps;
  if (pc) *pc = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_pc_create_mg_chebyshev(ts_parallel_mg mg, int degree, int smoothing_steps,
                                       ts_pc *pc) {
  (void)mg, (void)degree, (void)smoothing_steps;
  if (pc) *pc = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_pc_create_mg_patch(ts_parallel_mg mg, ts_patch_variant variant,
                                   int smoothing_steps, ts_pc *pc) {
  (void)mg, (void)variant, (void)smoothing_steps;
  if (pc) *pc = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_smoother_create_vertex_patch(ts_operator A, ts_parallel_dofs pd,
                                             ts_patch_variant variant, ts_smoother *smoother) {
  (void)A, (void)pd, (void)variant;
  if (smoother) *smoother = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_mg_time(ts_parallel_mg mg, ts_parallel_time what, double *seconds,
                        int64_t *calls) {
  (void)mg, (void)what;
  if (seconds) *seconds = 0.0;
  if (calls) *calls = 0;
  return TS_NO_MPI(__func__);
}

int ts_problem_solve_parallel(ts_problem problem, ts_backend backend, int comm, const int *procs,
                              FILE *log, ts_report *report, ts_parallel_figures *figures) {
  (void)problem, (void)backend, (void)comm, (void)procs, (void)log, (void)report, (void)figures;
  return TS_NO_MPI(__func__);
}

int ts_problem_read_xml_parallel(int comm, const char *path, int n_overrides,
                                 const char *const *overrides, ts_problem *problem) {
  (void)comm, (void)path, (void)n_overrides, (void)overrides;
  if (problem) *problem = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_dofs_create_stokes(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                   int level, ts_parallel_dofs *pd) {
  (void)backend, (void)par, (void)mesh, (void)degree, (void)level;
  if (pd) *pd = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_operator_create_stokes(ts_parallel_dofs pd, double penalty, ts_operator *op) {
  (void)pd, (void)penalty;
  if (op) *op = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_mg_create_stokes(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                 int finest_level, const ts_mg_options *options,
                                 ts_parallel_mg *mg) {
  (void)backend, (void)par, (void)mesh, (void)degree, (void)finest_level, (void)options;
  if (mg) *mg = NULL;
  return TS_NO_MPI(__func__);
}

int ts_parallel_pc_create_mg_stokes(ts_parallel_mg mg, ts_pc *pc) {
  (void)mg;
  if (pc) *pc = NULL;
  return TS_NO_MPI(__func__);
}
