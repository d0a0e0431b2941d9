/* cli-mpi.c -- the tessera command under an MPI launcher (mpirun -np N tessera run FILE;
 * doc/parallel.md, "Running a problem file under mpirun").  MPI is initialized only when a
 * launcher started the command (its environment says so) or an option asks for processes,
 * so that a plain `tessera run` never starts MPI.  Built without MPI the command refuses to
 * be one of several processes. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif

/* The first of the launchers' variables that is set (OpenMPI's mpirun, MPICH's and Slurm's
 * PMI, PMIx), as a number; -1 if none is. */
static long launcher_value(const char *const *names) {
  for (int i = 0; names[i]; ++i) {
    const char *v = getenv(names[i]);
    if (v && *v) return strtol(v, NULL, 10);
  }
  return -1;
}

static long launched_size(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
  return launcher_value(names);
}

static long launched_rank(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
  return launcher_value(names);
}

void cli_mpi_choose_device(const cli_mpi *m) {
  char device[16];
  snprintf(device, sizeof device, "%d", m->node_rank);
  setenv("TESSERA_GPU_NODE_RANK", device, 1);
}

#ifdef HAVE_MPI

int cli_mpi_start(const char *command, int force, const char *option, cli_mpi *m) {
  (void)option;
  memset(m, 0, sizeof *m);
  m->size = 1;
  if (!force && launched_size() < 0 && launched_rank() < 0) return CLI_OK;
  int provided, initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "tessera %s: error: MPI_Init_thread failed\n", command);
    return CLI_ERROR;
  }
  m->active = !initialized;
  MPI_Comm node;
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->size);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &m->node_rank);
  MPI_Comm_free(&node);
  return CLI_OK;
}

void cli_mpi_finish(cli_mpi *m) {
  if (m->active) MPI_Finalize();
  m->active = 0;
}

int cli_mpi_comm(void) { return (int)MPI_Comm_c2f(MPI_COMM_WORLD); }

int cli_mpi_agree(const cli_mpi *m, int code) {
  int *codes = calloc((size_t)m->size, sizeof *codes), first = -1;
  if (!codes) {
    fprintf(stderr, "tessera: error: out of memory for %d processes' codes\n", m->size);
    MPI_Abort(MPI_COMM_WORLD, CLI_ERROR);
  }
  MPI_Allgather(&code, 1, MPI_INT, codes, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < m->size && first < 0; ++r)
    if (codes[r]) first = r;
  const int agreed = first < 0 ? 0 : codes[first];
  free(codes);
  if (first == m->rank && first == 0) fprintf(stderr, "tessera: error: %s\n", ts_error_message());
  else if (first == m->rank)
    fprintf(stderr, "tessera: error: process %d: %s\n", first, ts_error_message());
  return agreed;
}

int cli_mpi_gather(const cli_mpi *m, const void *mine, int bytes, void *all) {
  (void)m;
  return MPI_Gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS
             ? CLI_OK
             : CLI_ERROR;
}

double cli_mpi_max(const cli_mpi *m, double value) {
  (void)m;
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return value;
}

#else /* built without MPI */

int cli_mpi_start(const char *command, int force, const char *option, cli_mpi *m) {
  memset(m, 0, sizeof *m);
  m->size = 1;
  const long size = launched_size();
  if (!force && size <= 1) return CLI_OK;
  if (launched_rank() <= 0) {
    if (force)
      fprintf(stderr, "tessera %s: error: %s asks for a distributed run, but this tessera was "
              "built without MPI (configure --with-mpi; apt-get install mpi-default-dev)\n",
              command, option);
    else
      fprintf(stderr, "tessera %s: error: started as one of %ld processes (mpirun), but this "
              "tessera was built without MPI (configure --with-mpi; apt-get install "
              "mpi-default-dev): it runs as one process, without mpirun\n", command, size);
  }
  return CLI_ERROR;
}

void cli_mpi_finish(cli_mpi *m) { (void)m; }

int cli_mpi_comm(void) { return 0; }

int cli_mpi_agree(const cli_mpi *m, int code) {
  (void)m;
  if (code) fprintf(stderr, "tessera: error: %s\n", ts_error_message());
  return code;
}

int cli_mpi_gather(const cli_mpi *m, const void *mine, int bytes, void *all) {
  (void)m;
  memcpy(all, mine, (size_t)bytes);
  return CLI_OK;
}

double cli_mpi_max(const cli_mpi *m, double value) {
  (void)m;
  return value;
}

#endif
