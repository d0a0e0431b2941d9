/* parallel-impl.h -- the MPI domain decomposition (doc/parallel.md): the Cartesian split of
 * the processes, the distributed Q_k DoFs of a box or mapped mesh and what their halo
 * exchange needs. */
#ifndef TS_PARALLEL_IMPL_H
#define TS_PARALLEL_IMPL_H
#include <mpi.h>
#include "../tessera-impl.h"

struct ts_parallel_s {
  MPI_Comm cart;               /* Cartesian communicator over the procs[] blocks, no reordering */
  int dim, rank, size, node_rank;
  int procs[3];                /* processes per direction (1 beyond dim) */
  int coords[3];               /* this process's block (0 beyond dim) */
  int lower[3], upper[3];      /* the neighbour ranks per direction, MPI_PROC_NULL at the box */
};

struct ts_parallel_dofs_s {
  ts_parallel par;             /* borrowed */
  ts_backend backend;          /* borrowed */
  int degree;
  ts_mesh mesh;                /* owned: the block's box of cells (with a mapped mesh's map) */
  ts_dofs dofs;                /* owned: the block's Q_k DoFs (owned and ghost) */
  int64_t n[3];                /* the block's DoFs per direction (1 beyond dim) */
  int64_t global_n[3];         /* the whole mesh's DoFs per direction (1 beyond dim) */
  int64_t offset[3];           /* the global index of the block's first DoF per direction */
  int level;                   /* the mesh level */
  int64_t cells[3], cells0[3]; /* the whole mesh's cells on the level and on level 0 */
  int nested;                  /* the level-0 split refined (every direction has at least as
                                  many level-0 cells as processes): blocks nest across levels */
  int64_t cell_start[3], cell_end[3]; /* the block's cells [start, end) on the level */
  /* the first DoF this block owns per direction: 1 where a lower neighbour owns the
   * interface (owner: the lower side), else 0 */
  int first_owned[3];
  struct ts_layout_s layout;   /* of its vectors: global size, the owned range in rank
                                  order, processes, dist = this */
  ts_vec owned_mask;              /* 1 on the owned DoFs, 0 on the ghosts */
  ts_vec free_mask;              /* 0 on the Dirichlet DoFs (the box's boundary), else 1 */
  ts_vec dirichlet_mask;         /* 1 - free */
  ts_vec work;                 /* for ts_parallel_dot */
  double *host;                /* the block's vector on the host (halo staging) */
  double *send, *recv;         /* one plane of DoFs */
};

/** The block of cells [*start, *end) that coordinate `coord` of `procs` gets of `cells`:
 *  the first cells % procs blocks one cell more. */
void ts_parallel_split(int64_t cells, int procs, int coord, int64_t *start, int64_t *end);
/** This process's block of cells on mesh's level (cells[d] per direction, 1 beyond dim), as
 *  ts_parallel_dofs_create deals them out. */
int ts_parallel_block_cells(ts_parallel par, ts_mesh mesh, int level, int64_t *cells);
/** y = A_block x for a distributed Laplacian A (ts_parallel_operator_create_laplace): the
 *  block's cells only, without the constraints and without the interface sums (what a block
 *  adds to a right side; laplace.c). */
int ts_parallel_laplace_apply_block(ts_operator A, ts_vec x, ts_vec y);
/** ierr of every process made every process's: 0 if all are 0, else the code of the lowest
 *  failing rank, whose message the others record as "process R: ..." (collective). */
int ts_parallel_agree(ts_parallel par, int ierr);
/** The sum over the processes of each process's value, added in rank order (compensated):
 *  the same bits on every process and for every run. */
int ts_parallel_sum(ts_parallel par, double local, double *sum);
/** An error naming the MPI call that failed with code `mpi_error` (TS_ERR_BACKEND). */
int ts_parallel_mpi_error(int mpi_error, const char *call, const char *file, int line);
#define TS_MPI_CALL(call, expr)                                                     \
  do {                                                                              \
    const int ts_mpi_err_ = (expr);                                                 \
    if (ts_mpi_err_ != MPI_SUCCESS)                                                 \
      return ts_parallel_mpi_error(ts_mpi_err_, call, __FILE__, __LINE__);          \
  } while (0)
/** The check that v is a distributed vector of pd (TS_ERR_ARG naming `caller`). */
int ts_parallel_check_vec(ts_parallel_dofs pd, ts_vec v, const char *caller);
#endif
