/* parallel-impl.h -- the MPI domain decomposition (doc/parallel.md): the Cartesian split of
 * the processes, the distributed Q_k DoFs of a box or mapped mesh and what their halo
 * exchange needs. */
#ifndef TS_PARALLEL_IMPL_H
#define TS_PARALLEL_IMPL_H
#include <mpi.h>
#include "../tessera-impl.h"
#include "../mg/mg-impl.h"

struct ts_parallel_s {
  MPI_Comm cart;               /* Cartesian communicator over the procs[] blocks, no reordering */
  int dim, rank, size, node_rank;
  int procs[3];                /* processes per direction (1 beyond dim) */
  int coords[3];               /* this process's block (0 beyond dim) */
  int lower[3], upper[3];      /* the neighbour ranks per direction, MPI_PROC_NULL at the box */
  /* device-to-device messages (the backend's peer_* members, NCCL on cuda): one handle over
   * the processes, made when the first distributed DoFs of a backend that has them are
   * created and freed with the last (halo.c) */
  ts_backend peer_backend;     /* borrowed: the backend of peer, or the one refused */
  void *peer;
  int peer_users;
  int peer_refused;            /* peer_backend's processes could not make one: not asked again */
  int64_t agglomerate_cells;   /* ts_parallel_set_agglomeration: the levels of a hierarchy
                                  with fewer cells per process are gathered (0: only those
                                  with fewer cells than processes in a direction) */
  int timing;                  /* ts_parallel_timing: the halo exchanges, reductions and
                                  coarse solves of its DoFs are timed (their seconds[]) */
  int64_t overlap_dofs;        /* ts_parallel_set_overlap: blocks of at least this many DoFs
                                  compute their interior while the halo travels (0: never) */
};

/** Messages of a halo exchange: packed on the backend (send, recv), staged through the host
 *  (page-locked where the backend has host_alloc) when they do not travel device to device. */
typedef struct ts_parallel_buffers {
  ts_vec send, recv;
  double *host_send, *host_recv;
} ts_parallel_buffers;

/** The ghost cells of a Stokes block beyond each interface (stokes.c). */
#define TS_PARALLEL_STOKES_GHOSTS 2
/** The most ghost slabs of a Stokes block: 2 per field and direction. */
#define TS_PARALLEL_STOKES_SLABS 24

/** RT_k x DGQ_k on the extended block (stokes.c): the block's cells and
 *  TS_PARALLEL_STOKES_GHOSTS layers of ghost cells beyond each interface, its vectors the
 *  fields u_0 .. u_{dim-1}, p one after the other, each numbered lexicographically. */
typedef struct ts_parallel_stokes {
  ts_fe velocity_fe, pressure_fe; /* owned: RT_k, DGQ_k */
  ts_dofs pressure;             /* owned: DGQ_k of the extended block (the RT_k: pd->dofs) */
  int fields;                   /* dim + 1 */
  int64_t n[4][3];              /* field f's entries per direction on the extended block */
  int64_t offset[5];            /* field f's first entry; offset[fields]: the vector's size */
  int64_t global_n[4][3], global_offset[5]; /* the same on the whole level */
  int64_t first_cell[3];        /* the extended block's first cell on the level */
  int64_t own_lo[4][3], own_hi[4][3]; /* field f's owned entries [lo, hi) in direction d */
  int ghost_lo[3], ghost_hi[3]; /* ghost cells below and above: TS_PARALLEL_STOKES_GHOSTS where
                                   a neighbour is (fewer where the level ends sooner), else 0 */
  int refreshable;              /* every block has TS_PARALLEL_STOKES_GHOSTS cells or more in
                                   every split direction */
  int ghost_slabs;              /* the entries that are not owned, as slabs of the fields */
  ts_plane ghost[TS_PARALLEL_STOKES_SLABS];
} ts_parallel_stokes;

struct ts_parallel_dofs_s {
  ts_parallel par;             /* borrowed */
  ts_backend backend;          /* borrowed */
  int degree;
  ts_mesh mesh;                /* owned: the block's box of cells (with a mapped mesh's map;
                                  Stokes: the extended block's) */
  ts_dofs dofs;                /* owned: the block's Q_k DoFs (owned and ghost; Stokes: RT_k) */
  ts_parallel_stokes *stokes;  /* owned: the Stokes fields (ts_parallel_dofs_create_stokes);
                                  NULL: Q_k, the members below up to `layout` describe it */
  int64_t count;               /* the entries of a vector */
  int64_t n[3];                /* the block's DoFs per direction (1 beyond dim) */
  int64_t global_n[3];         /* the whole mesh's DoFs per direction (1 beyond dim) */
  int64_t offset[3];           /* the global index of the block's first DoF per direction */
  int level;                   /* the mesh level */
  int split_level;             /* the level whose cells are dealt out (0; a Stokes hierarchy:
                                  its coarse level) */
  int64_t cells[3], cells0[3]; /* the whole mesh's cells on the level and the split level */
  int nested;                  /* the split level's split refined (every direction has at
                                  least as many cells there as processes): blocks nest across
                                  levels */
  int64_t cell_start[3], cell_end[3]; /* the block's cells [start, end) on the level */
  /* the first DoF this block owns per direction: 1 where a lower neighbour owns the
   * interface (owner: the lower side), else 0 */
  int first_owned[3];
  struct ts_layout_s layout;   /* of its vectors: global size, the owned range in rank
                                  order, processes, dist = this */
  double *host;                /* the block's vector on the host (random, scatter, gather) */
  int64_t plane;               /* the DoFs of the block's largest plane */
  ts_parallel_buffers buffers;  /* a direction's two planes */
  ts_vec saved;                /* TS_PLANE_SETS x TS_MAX_PLANES planes (ts_parallel_planes_zero) */
  void *peer;                  /* par->peer when the planes travel device to device */
  double seconds[TS_PARALLEL_TIMES]; /* ts_parallel_dofs_time: while par->timing */
  int64_t calls[TS_PARALLEL_TIMES];
};

/** The Dirichlet mask of a block (1 on the DoFs on the box's boundary, else 0) into the host
 *  array h of the block's size. */
void ts_parallel_dirichlet_mask_host(ts_parallel_dofs pd, double *h);
/** The same as a new double vector of pd's backend (not distributed; the caller destroys it),
 *  made where needed (setup) rather than kept: the owned, free and Dirichlet masks kept as
 *  vectors were 24 bytes per DoF, a sixth of a distributed FMG solve's memory, and the
 *  operators apply the others by planes (ts_parallel_planes_clear). */
int ts_parallel_dirichlet_mask_create(ts_parallel_dofs pd, ts_vec *mask);
/** The lexicographic index of position i in a box of n[] entries (1 beyond dim). */
static inline int64_t ts_parallel_box_index(const int64_t *n, const int64_t *i) {
  return i[0] + n[0] * (i[1] + n[1] * i[2]);
}
/** The box of the cells [start, end) per direction of mesh's level (1 beyond dim), in the
 *  level's coordinates, into *box; h[]: the level's cell size.  DoFs on it
 *  (ts_parallel_cells_dofs) take that h, so that their plans have the one-process bits. */
int ts_parallel_cells_box(ts_mesh mesh, int level, const int64_t *start, const int64_t *end,
                          ts_mesh *box, double *h);
int ts_parallel_cells_dofs(ts_mesh box, ts_fe fe, const double *h, ts_dofs *dofs);
/** pd->layout from this process's count of owned entries: the owned entries numbered process
 *  after process (collective). */
int ts_parallel_layout_init(ts_parallel_dofs pd, long long owned);
/** pd's split of mesh's level (the split of split_level refined): level, split_level, cells,
 *  cells0, nested, cell_start, cell_end. */
int ts_parallel_block_setup(ts_parallel_dofs pd, ts_mesh mesh, int level, int split_level);
/** ts_parallel_dofs_create with the cells of split_level <= level dealt out. */
int ts_parallel_qk_dofs_create(ts_backend backend, ts_parallel par, ts_mesh mesh, ts_fe fe,
                               int level, int split_level, ts_parallel_dofs *pd);
/** ts_parallel_dofs_create_stokes with the cells of split_level <= level dealt out. */
int ts_parallel_stokes_dofs_create(ts_backend backend, ts_parallel par, ts_mesh mesh, int degree,
                                   int level, int split_level, ts_parallel_dofs *pd);
/** The largest block of a split level may be this much above the mean block (the split
 *  rule below). */
#define TS_PARALLEL_IMBALANCE 0.125
/** The split level of a hierarchy of mesh's levels coarse..finest (doc/parallel.md section 5
 *  item 3): the lowest level whose cells can be dealt out (every direction has at least as
 *  many as processes), number at least par->agglomerate_cells per process and whose largest
 *  block is at most TS_PARALLEL_IMBALANCE above the mean; when none is, the lowest level that
 *  meets the first two; finest when none does.  The levels below it are gathered on every
 *  process. */
int ts_parallel_split_level(ts_parallel par, ts_mesh mesh, int coarse, int finest);
/** The cells [*start, *end) of direction d of the block at coordinate coord of pd's split. */
void ts_parallel_block_range(ts_parallel_dofs pd, int d, int coord, int64_t *start, int64_t *end);
/** The owned Q_k DoFs of pd's block at coordinates c, as ranges of one-process indices per
 *  direction [lo, hi) (1 beyond dim): what process c sends in a gather. */
void ts_parallel_owned_box(ts_parallel_dofs pd, const int *c, int64_t *lo, int64_t *hi);
/** The Stokes DoFs' parts of ts_parallel_dofs_global_index, _vec_gather, _destroy (stokes.c). */
int64_t ts_parallel_stokes_global_index(ts_parallel_dofs pd, int64_t local);
int ts_parallel_stokes_gather(ts_parallel_dofs pd, ts_vec v, double *global);
void ts_parallel_stokes_free(ts_parallel_dofs pd);
/** v's ghost layers from their owners (a halo exchange, timed as one; stokes.c). */
int ts_parallel_stokes_refresh(ts_parallel_dofs pd, ts_vec v);
/** y (+)= A x on the extended block without refreshing x (A: ts_parallel_operator_create_stokes):
 *  the rows of the block and of the first ghost layer exact where x's ghosts are. */
int ts_parallel_stokes_block_apply(ts_operator A, ts_vec x, ts_vec y, int add);
/** The one-process operator of A's extended block. */
int ts_parallel_stokes_block(ts_operator A, ts_operator *block);
/** The block of cells [*start, *end) that coordinate `coord` of `procs` gets of `cells`:
 *  the first cells % procs blocks one cell more. */
void ts_parallel_split(int64_t cells, int procs, int coord, int64_t *start, int64_t *end);
/** This process's block of cells on mesh's level (cells[d] per direction, 1 beyond dim), as
 *  ts_parallel_dofs_create (split_level 0) deals them out. */
int ts_parallel_block_cells(ts_parallel par, ts_mesh mesh, int level, int split_level,
                            int64_t *cells);
/** y = A_block x for a distributed Laplacian A (ts_parallel_operator_create_laplace): the
 *  block's cells only, without the constraints and without the interface sums (what a block
 *  adds to a right side; laplace.c). */
int ts_parallel_laplace_apply_block(ts_operator A, ts_vec x, ts_vec y);
/** The distributed Laplacian of pd in precision p: on a box ts_parallel_operator_create_laplace,
 *  on a mapped mesh ts_parallel_operator_create_mapped with co (NULL: kappa = 1, c = 0). */
int ts_parallel_operator_create_precision(ts_parallel_dofs pd, const ts_coefficients *co,
                                          ts_precision p, ts_operator *op);
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
/** The buffers of pd's halo exchange (planes of `plane` DoFs at most; collective: the
 *  processes agree on device-to-device messages) and their release (halo.c). */
int ts_parallel_halo_create(ts_parallel_dofs pd, size_t plane);
/** The same with buffers of `buffer` doubles and `saved` doubles for saved planes. */
int ts_parallel_halo_create_sized(ts_parallel_dofs pd, int64_t buffer, int64_t saved);
void ts_parallel_halo_destroy(ts_parallel_dofs pd);
/** Planes [from, from + thickness) of direction d of a box of n[] DoFs (lexicographic, 1
 *  beyond dim), spanning it in the other directions, as one ts_plane (vec_plane_pack's rows
 *  of equal width at a fixed pitch): t entries at pitch n0 for d = 0, rows of n0 t at pitch
 *  n0 n1 for d = 1, one row of n0 n1 t for d = 2. */
ts_plane ts_parallel_slab(const int64_t *n, int d, int64_t from, int64_t thickness);
/** Entry i of a device array of precision p. */
static inline void *ts_parallel_entry(void *array, ts_precision p, int64_t i) {
  return (char *)array + i * (int64_t)ts_precision_size(p);
}
/** The box [lo, hi) of the device array v of n[] entries (lexicographic, 1 beyond dim) packed
 *  into the device array buf (pack: buf then holds the box lexicographically), or buf
 *  unpacked into it, both of precision p: a plane per layer of direction 2, TS_MAX_PLANES per
 *  backend call. */
int ts_parallel_box_copy(ts_backend b, ts_precision p, const int64_t *n, const int64_t *lo,
                         const int64_t *hi, void *v, void *buf, int pack);
/** The buffers of `count` doubles and their release. */
int ts_parallel_buffers_create(ts_backend b, int64_t count, ts_parallel_buffers *buffers);
void ts_parallel_buffers_destroy(ts_backend b, ts_parallel_buffers *buffers);
/** A message of an exchange: the planes `send` of a vector to process `to`, and from
 *  process `from` the same number of entries into its planes `recv` (MPI_PROC_NULL: none). */
typedef struct ts_parallel_message {
  int to, from;
  int planes;                   /* 1..TS_MAX_PLANES */
  ts_plane send[TS_MAX_PLANES], recv[TS_MAX_PLANES];
} ts_parallel_message;
/** The message of one plane to and from one neighbour. */
static inline ts_parallel_message ts_parallel_message_both(int rank, ts_plane plane) {
  return (ts_parallel_message){.to = rank, .from = rank, .planes = 1, .send = {plane},
                               .recv = {plane}};
}
/** One exchange of up to TS_MAX_PEER_MESSAGES messages m of vector v: packed into buffers
 *  (all the planes sent, one after the other, TS_MAX_PLANES per backend call), sent, and
 *  what arrived written into v's planes (add: added to them); device to device where pd
 *  has a peer handle, else through the host buffers (MPI to all at once). */
int ts_parallel_exchange(ts_parallel_dofs pd, int count, const ts_parallel_message *m, int add,
                         const ts_parallel_buffers *buffers, ts_vec v);
/** Sets of planes of a block: its faces on the box's boundary (the Dirichlet DoFs), and its
 *  ghost planes (i_d = 0 where a lower neighbour owns the interface). */
typedef enum { TS_PLANES_DIRICHLET = 0, TS_PLANES_GHOST = 1, TS_PLANE_SETS = 2 } ts_plane_set;
/** Save the planes of `set` of v, then zero them in v: with them restored afterwards, a
 *  kernel or a dot product reads F .* v at the cost of the planes, not of whole-vector
 *  mask passes.  Saving two sets in turn, restore them in the reverse order (where they
 *  overlap, the second saved the first's zeros). */
int ts_parallel_planes_zero(ts_parallel_dofs pd, ts_plane_set set, ts_vec v);
/** Save the planes of `set` of v (v unchanged). */
int ts_parallel_planes_save(ts_parallel_dofs pd, ts_plane_set set, ts_vec v);
/** Zero the planes of `set` of v (nothing saved): F .* v for the Dirichlet set. */
int ts_parallel_planes_clear(ts_parallel_dofs pd, ts_plane_set set, ts_vec v);
/** Write the planes of `set` last saved by ts_parallel_planes_zero into v (the vector they
 *  came from, or another: the identity rows of the Dirichlet DoFs). */
int ts_parallel_planes_restore(ts_parallel_dofs pd, ts_plane_set set, ts_vec v);
/** The start of a timed region of pd working on v (ts_parallel_timing): the backend's queued
 *  work done first, then the clock; 0 when timing is off. */
int ts_parallel_time_start(ts_parallel_dofs pd, ts_vec v, double *start);
/** Its end: the work on v done, then the seconds since `start` added to pd's `what`. */
int ts_parallel_time_stop(ts_parallel_dofs pd, ts_parallel_time what, ts_vec v, double start);
/** A distributed vector of pd in precision p (ts_parallel_vec_create: double). */
int ts_parallel_vec_create_precision(ts_parallel_dofs pd, ts_precision p, ts_vec *v);
/** The check that v is a distributed vector of pd, of either precision (TS_ERR_ARG naming
 *  `caller`). */
int ts_parallel_check_vec(ts_parallel_dofs pd, ts_vec v, const char *caller);
/** The coarse solve of a distributed cycle whose levels below pd's are gathered
 *  (agglomerate.c): serial (adopted, destroyed on failure too), the one-process cycle of the
 *  levels up to pd's on the whole level's vectors, applied to the gathered right side on every
 *  process.  *cycle applies it; *start (start not NULL; serial a multigrid-levels
 *  preconditioner; borrowing from *cycle, destroyed first) its nested iteration, full
 *  multigrid's first coarse solve. */
int ts_parallel_gathered_create(ts_parallel_dofs pd, ts_pc serial, ts_pc *cycle, ts_pc *start);
/** A distributed hierarchy (mg.c; Stokes: stokes-mg.c). */
struct ts_parallel_mg_s {
  ts_mesh mesh;                 /* borrowed */
  ts_fe fe;                     /* borrowed (NULL: Stokes) */
  int stokes;                   /* 1: RT_k x DGQ_k (ts_parallel_mg_create_stokes), else Q_k */
  int stokes_degree;            /* Stokes: k */
  ts_mg_options stokes_options; /* Stokes: the hierarchy's options */
  int coarse_level;             /* the hierarchy's coarsest level, solved by LU */
  int split_level;              /* its lowest distributed level (ts_parallel_split_level): the
                                   levels coarse_level..split_level are gathered */
  int levels;                   /* the distributed ones, split_level..finest: pd[], A[] */
  ts_parallel_dofs pd[TS_MG_PARTS_MAX_LEVELS];
  ts_operator A[TS_MG_PARTS_MAX_LEVELS];
  /* a mapped mesh: the coefficients' callbacks and kappa's components (the finest level's),
   * and per mesh level the whole level's cell arrays (owned; NULL: kappa = 1, c = 0) */
  ts_coefficients given;
  double *kappa[TS_MG_PARTS_MAX_LEVELS], *reaction[TS_MG_PARTS_MAX_LEVELS];
  ts_precision precision;       /* ts_parallel_mg_set_precision: the V-cycles' (Q_k) */
  int coarse_degree;            /* ts_parallel_mg_set_coarse_degree: the gathered degree
                                   levels' lowest (Q_k: fe's degree, no degree levels) */
};

#endif
