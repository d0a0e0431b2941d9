/* boomeramg.c -- one V-cycle of hypre's BoomerAMG as a preconditioner (ts_operator).
 *
 * The CSR matrix is handed to hypre once, as an IJ matrix in ParCSR form on MPI_COMM_SELF
 * (one process); BoomerAMG is set up once with the options documented at
 * ts_operator_create_boomeramg (tessera.h).  Each application r -> P r copies r to the host
 * (a copy of the host vector on the omp backend; the device-to-host transfer on a GPU
 * backend, hypre being a CPU build), runs one V-cycle from a zero initial guess and copies
 * the result back.
 *
 * MPI: hypre's Debian build is an MPI build.  MPI is initialized on first use when the
 * program has not done it (MPI_Initialized), with MPI_THREAD_SERIALIZED (the preconditioner
 * may be applied from any thread, one at a time), and then finalized at exit (atexit), after
 * hypre's own finalization; a program that initializes MPI itself keeps control of it.
 * Without hypre (configure --without-hypre) the function reports TS_ERR_UNSUPPORTED. */
#include "config.h"
#include <stdlib.h>
#include "sparse-impl.h"

/* the arguments of ts_operator_create_boomeramg, checked in both builds; *P = NULL */
static int check_arguments(ts_backend backend, ts_matrix A, ts_operator *P) {
  TS_CHECK_NOT_NULL(P);
  *P = NULL;
  TS_CHECK_NOT_NULL(backend);
  TS_CHECK_NOT_NULL(A);
  TS_CHECK_ARG(A->rows == A->cols,
               "ts_operator_create_boomeramg: argument 'A' is %lld x %lld, a square matrix is "
               "required", (long long)A->rows, (long long)A->cols);
  return 0;
}

#ifdef HAVE_HYPRE
/* HYPRE_config.h defines hypre's own PACKAGE_* macros: drop Tessera's (unused here) */
#undef PACKAGE
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#undef VERSION
#include <mpi.h>
#include <pthread.h>
#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>

const char *ts_hypre_version(void) { return HYPRE_RELEASE_VERSION; }

/* BoomerAMG's option values (hypre reference manual, HYPRE_BoomerAMGSet*) */
enum {
  COARSEN_HMIS = 10,
  INTERP_EXTENDED_I = 6,
  INTERP_MAX_ENTRIES = 4,
  RELAX_HYBRID_SYMMETRIC_GS = 6,
  RELAX_ORDER_LEXICOGRAPHIC = 0, /* the same order down and up: a symmetric V-cycle */
  RELAX_GAUSSIAN_ELIMINATION = 9,
  CYCLE_COARSEST = 3
};

/* Record a failed hypre call, with hypre's description of its error code. */
static int hypre_failure(int code, const char *call, const char *file, int line) {
  char description[256] = "";
  HYPRE_DescribeError(code, description);
  HYPRE_ClearAllErrors();
  return ts_error_set(TS_ERR_BACKEND, file, line, "hypre: %s failed (error %d: %s)", call, code,
                      description);
}
#define HYPRE_CALL(call)                                                      \
  do {                                                                        \
    const int hypre_ierr_ = (int)(call);                                      \
    if (hypre_ierr_) return hypre_failure(hypre_ierr_, #call, __FILE__, __LINE__); \
  } while (0)

/* ---------------------------------------------------------------- MPI and hypre start-up */

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int start_error;          /* 0, or the MPI or hypre error code of the start */
static const char *start_failed_call = "";
static int mpi_started_here;

static void finalize_at_exit(void) {
  HYPRE_Finalize();
  int finalized = 1;
  if (mpi_started_here && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Finalize();
}

static void start(void) {
  int initialized = 0;
  start_error = MPI_Initialized(&initialized);
  start_failed_call = "MPI_Initialized";
  if (!start_error && !initialized) {
    int provided = 0;
    start_error = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    start_failed_call = "MPI_Init_thread";
    mpi_started_here = !start_error;
  }
  if (!start_error) {
    start_error = HYPRE_Init();
    start_failed_call = "HYPRE_Init";
  }
  if (!start_error) atexit(finalize_at_exit);
}

static int ensure_started(void) {
  pthread_once(&start_once, start);
  if (start_error)
    return TS_ERROR(TS_ERR_BACKEND, "BoomerAMG: %s failed (error %d): MPI and hypre could not "
                    "start", start_failed_call, start_error);
  return 0;
}

/* ---------------------------------------------------------------- the operator */

typedef struct boomeramg_data {
  HYPRE_IJMatrix ij_matrix;
  HYPRE_ParCSRMatrix matrix;    /* borrowed from ij_matrix */
  HYPRE_IJVector ij_b, ij_x;
  HYPRE_ParVector b, x;         /* borrowed */
  HYPRE_Solver solver;
  HYPRE_BigInt *indices;        /* 0 .. n-1, for the vector transfers */
  double *host;                 /* n: r, then P r */
  ts_vec scratch;               /* P r for apply_add */
} boomeramg_data;

static int copy_matrix(ts_matrix A, boomeramg_data *data) {
  const HYPRE_BigInt last = (HYPRE_BigInt)A->rows - 1;
  HYPRE_CALL(HYPRE_IJMatrixCreate(MPI_COMM_SELF, 0, last, 0, last, &data->ij_matrix));
  HYPRE_CALL(HYPRE_IJMatrixSetObjectType(data->ij_matrix, HYPRE_PARCSR));
  HYPRE_Int *lengths = NULL;
  HYPRE_BigInt *columns = NULL;
  int ierr = ts_calloc((size_t)A->rows, sizeof *lengths, "hypre row lengths", &lengths);
  if (!ierr)
    ierr = ts_calloc(A->nonzeros ? (size_t)A->nonzeros : 1, sizeof *columns, "hypre columns",
                     &columns);
  if (!ierr) {
    for (int64_t i = 0; i < A->rows; ++i)
      lengths[i] = (HYPRE_Int)(A->row_offsets[i + 1] - A->row_offsets[i]);
    for (int64_t e = 0; e < A->nonzeros; ++e) columns[e] = (HYPRE_BigInt)A->columns[e];
    int code = HYPRE_IJMatrixSetRowSizes(data->ij_matrix, lengths);
    if (!code) code = HYPRE_IJMatrixInitialize(data->ij_matrix);
    if (!code)
      code = HYPRE_IJMatrixSetValues(data->ij_matrix, (HYPRE_Int)A->rows, lengths, data->indices,
                                     columns, A->values);
    if (!code) code = HYPRE_IJMatrixAssemble(data->ij_matrix);
    if (code) ierr = hypre_failure(code, "setting the IJ matrix from the CSR rows", __FILE__, __LINE__);
  }
  free(lengths);
  free(columns);
  if (ierr) return ierr;
  HYPRE_CALL(HYPRE_IJMatrixGetObject(data->ij_matrix, (void **)&data->matrix));
  return 0;
}

static int create_vector(int64_t n, HYPRE_IJVector *ij, HYPRE_ParVector *par) {
  HYPRE_CALL(HYPRE_IJVectorCreate(MPI_COMM_SELF, 0, (HYPRE_BigInt)n - 1, ij));
  HYPRE_CALL(HYPRE_IJVectorSetObjectType(*ij, HYPRE_PARCSR));
  HYPRE_CALL(HYPRE_IJVectorInitialize(*ij));
  HYPRE_CALL(HYPRE_IJVectorAssemble(*ij));
  HYPRE_CALL(HYPRE_IJVectorGetObject(*ij, (void **)par));
  return 0;
}

/* strong threshold: 0.25 for 2D problems, 0.5 for 3D ones (hypre's recommendation) */
static double strong_threshold(ts_matrix A) { return A->dim == 3 ? 0.5 : 0.25; }

static int setup_solver(ts_matrix A, boomeramg_data *data) {
  HYPRE_CALL(HYPRE_BoomerAMGCreate(&data->solver));
  HYPRE_Solver s = data->solver;
  HYPRE_CALL(HYPRE_BoomerAMGSetPrintLevel(s, 0));
  HYPRE_CALL(HYPRE_BoomerAMGSetCoarsenType(s, COARSEN_HMIS));
  HYPRE_CALL(HYPRE_BoomerAMGSetInterpType(s, INTERP_EXTENDED_I));
  HYPRE_CALL(HYPRE_BoomerAMGSetPMaxElmts(s, INTERP_MAX_ENTRIES));
  HYPRE_CALL(HYPRE_BoomerAMGSetStrongThreshold(s, strong_threshold(A)));
  HYPRE_CALL(HYPRE_BoomerAMGSetRelaxType(s, RELAX_HYBRID_SYMMETRIC_GS));
  HYPRE_CALL(HYPRE_BoomerAMGSetRelaxOrder(s, RELAX_ORDER_LEXICOGRAPHIC));
  HYPRE_CALL(HYPRE_BoomerAMGSetNumSweeps(s, 1));
  HYPRE_CALL(HYPRE_BoomerAMGSetCycleRelaxType(s, RELAX_GAUSSIAN_ELIMINATION, CYCLE_COARSEST));
  HYPRE_CALL(HYPRE_BoomerAMGSetMaxIter(s, 1));
  HYPRE_CALL(HYPRE_BoomerAMGSetTol(s, 0.0));
  HYPRE_CALL(HYPRE_BoomerAMGSetup(s, data->matrix, data->b, data->x));
  return 0;
}

/* host = P host: one V-cycle from x = 0 */
static int vcycle(boomeramg_data *data, int64_t n) {
  HYPRE_CALL(HYPRE_IJVectorSetValues(data->ij_b, (HYPRE_Int)n, data->indices, data->host));
  HYPRE_CALL(HYPRE_ParVectorSetConstantValues(data->x, 0.0));
  HYPRE_CALL(HYPRE_BoomerAMGSolve(data->solver, data->matrix, data->b, data->x));
  HYPRE_CALL(HYPRE_IJVectorGetValues(data->ij_x, (HYPRE_Int)n, data->indices, data->host));
  return 0;
}

static int boomeramg_apply(ts_operator op, ts_vec x, ts_vec y, int add) {
  boomeramg_data *data = op->data;
  TS_CALL(ts_vec_get_to_host(x, data->host));
  TS_CALL(vcycle(data, op->n));
  if (!add) {
    TS_CALL(ts_vec_set_from_host(y, data->host));
    return 0;
  }
  TS_CALL(ts_vec_set_from_host(data->scratch, data->host));
  TS_CALL(ts_vec_axpby(1.0, data->scratch, 1.0, y));
  return 0;
}

static void free_data(boomeramg_data *data) {
  if (data->solver) HYPRE_BoomerAMGDestroy(data->solver);
  if (data->ij_matrix) HYPRE_IJMatrixDestroy(data->ij_matrix);
  if (data->ij_b) HYPRE_IJVectorDestroy(data->ij_b);
  if (data->ij_x) HYPRE_IJVectorDestroy(data->ij_x);
  ts_free(&data->indices);
  ts_free(&data->host);
  ts_vec_destroy(&data->scratch);
  free(data);
}

static void boomeramg_destroy(ts_operator op) {
  free_data(op->data);
  op->data = NULL;
}

static const ts_operator_ops boomeramg_ops = {
    .name = "boomeramg",
    .apply = boomeramg_apply,
    .destroy = boomeramg_destroy,
};

static int setup(ts_backend backend, ts_matrix A, boomeramg_data *data) {
  const size_t n = (size_t)A->rows;
  TS_CALL(ts_calloc(n, sizeof *data->indices, "BoomerAMG indices", &data->indices));
  for (int64_t i = 0; i < A->rows; ++i) data->indices[i] = (HYPRE_BigInt)i;
  TS_CALL(ts_calloc(n, sizeof *data->host, "BoomerAMG host vector", &data->host));
  TS_CALL(ts_vec_create(backend, A->rows, TS_DOUBLE, &data->scratch));
  TS_CALL(copy_matrix(A, data));
  TS_CALL(create_vector(A->rows, &data->ij_b, &data->b));
  TS_CALL(create_vector(A->rows, &data->ij_x, &data->x));
  TS_CALL(setup_solver(A, data));
  return 0;
}

/* hypre stores a process's entry count in HYPRE_Int (32 bits unless built with
 * --enable-bigint or --enable-mixedint) */
static int check_fits_hypre(ts_matrix A) {
  const int64_t most = sizeof(HYPRE_Int) < sizeof(int64_t) ? INT32_MAX : INT64_MAX;
  TS_CHECK_ARG(A->nonzeros <= most,
               "ts_operator_create_boomeramg: argument 'A' has %lld entries, this hypre build "
               "(%d-bit HYPRE_Int) takes at most %lld", (long long)A->nonzeros,
               (int)(8 * sizeof(HYPRE_Int)), (long long)most);
  return 0;
}

int ts_operator_create_boomeramg(ts_backend backend, ts_matrix A, ts_operator *P) {
  TS_CALL(check_arguments(backend, A, P));
  TS_CALL(check_fits_hypre(A));
  TS_CALL(ensure_started());
  boomeramg_data *data;
  TS_CALL(ts_calloc(1, sizeof *data, "BoomerAMG preconditioner", &data));
  int ierr = setup(backend, A, data);
  if (!ierr) ierr = ts_operator_create_shell(backend, &boomeramg_ops, A->rows, TS_DOUBLE, data, P);
  if (ierr) {
    free_data(data);
    return ts_error_trace(ierr, __FILE__, __LINE__, "BoomerAMG setup");
  }
  return 0;
}

#else /* built without hypre */

const char *ts_hypre_version(void) { return ""; }

int ts_operator_create_boomeramg(ts_backend backend, ts_matrix A, ts_operator *P) {
  TS_CALL(check_arguments(backend, A, P));
  return TS_ERROR(TS_ERR_UNSUPPORTED,
                  "ts_operator_create_boomeramg: built without hypre: configure --with-hypre "
                  "(apt-get install libhypre-dev mpi-default-dev)");
}

#endif
