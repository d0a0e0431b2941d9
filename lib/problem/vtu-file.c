/* vtu-file.c -- VTK XML unstructured-grid output (.vtu, opened by ParaView and VisIt): the
 * points of one or more lattices, the quadrilaterals or hexahedra between them, and the
 * point data, in ASCII.  The file is written to a new temporary file of a random name next
 * to it and renamed, so a failed write leaves nothing half-done and a name planted in
 * advance (a symlink at PATH.tmp, say) is never written through.  The size is bounded from
 * above before anything is written, and refused beyond ts_max_output_size(). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vtu-file.h"

#define VTU_PATH_MAX 1024           /* bytes of a path, with its terminating zero */
#define VTU_NUMBER_BYTES 25.0       /* "%.17g" is at most 24 characters, and a separator */
#define VTU_MAX_POINTS 0x1p62       /* point and cell indices are int64_t */

static _Atomic uint64_t max_output_size = TS_DEFAULT_MAX_OUTPUT_SIZE;

int ts_set_max_output_size(uint64_t bytes) {
  TS_CHECK_ARG(bytes > 0, "ts_set_max_output_size: bytes = 0; give a positive number of bytes, "
               "or TS_OUTPUT_SIZE_UNLIMITED for no limit");
  atomic_store(&max_output_size, bytes);
  return 0;
}

uint64_t ts_max_output_size(void) { return atomic_load(&max_output_size); }

static int64_t points_per_block(const ts_vtu_grid *g) { return g->np[0] * g->np[1] * g->np[2]; }

static int64_t cells_per_block(const ts_vtu_grid *g) {
  int64_t n = 1;
  for (int d = 0; d < g->dim; ++d) n *= g->np[d] - 1;
  return n;
}

static void write_points(FILE *f, const ts_vtu_grid *g) {
  const int64_t n = g->blocks * points_per_block(g);
  fprintf(f, "      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (int64_t p = 0; p < n; ++p) {
    double x[3];
    g->point(g->ctx, p, x);
    fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
  }
  fprintf(f, "        </DataArray>\n      </Points>\n");
}

/* Hexahedra (VTK type 12) or quadrilaterals (type 9) of each lattice, VTK vertex order. */
static void write_cells(FILE *f, const ts_vtu_grid *g) {
  const int nv = g->dim == 3 ? 8 : 4;
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int64_t *np = g->np, nc[3] = {np[0] - 1, np[1] - 1, g->dim == 3 ? np[2] - 1 : 1};
  const int64_t n_cells = g->blocks * cells_per_block(g);
  fprintf(f, "      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (int64_t b = 0; b < g->blocks; ++b)
    for (int64_t c2 = 0; c2 < nc[2]; ++c2)
      for (int64_t c1 = 0; c1 < nc[1]; ++c1)
        for (int64_t c0 = 0; c0 < nc[0]; ++c0) {
          for (int v = 0; v < nv; ++v)
            fprintf(f, "%lld ", (long long)(b * points_per_block(g) + (c0 + corner[v][0]) +
                                           np[0] * ((c1 + corner[v][1]) + np[1] * (c2 + corner[v][2]))));
          fputc('\n', f);
        }
  fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (int64_t c = 1; c <= n_cells; ++c) fprintf(f, "%lld\n", (long long)(c * nv));
  fprintf(f, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (int64_t c = 0; c < n_cells; ++c) fprintf(f, "%d\n", g->dim == 3 ? 12 : 9);
  fprintf(f, "        </DataArray>\n      </Cells>\n");
}

static void write_field(FILE *f, const ts_vtu_grid *g, const ts_vtu_field *field) {
  const int64_t n = g->blocks * points_per_block(g);
  fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
          field->name, field->components);
  for (int64_t p = 0; p < n; ++p) {
    double v[3];
    field->value(g->ctx, p, v);
    for (int c = 0; c < field->components; ++c)
      fprintf(f, "%.17g%c", v[c], c + 1 < field->components ? ' ' : '\n');
  }
  fprintf(f, "        </DataArray>\n");
}

static void write_grid(FILE *f, const ts_vtu_grid *g) {
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n");
  fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n",
          (long long)(g->blocks * points_per_block(g)), (long long)(g->blocks * cells_per_block(g)));
  write_points(f, g);
  write_cells(f, g);
  fprintf(f, "      <PointData");
  if (g->scalars) fprintf(f, " Scalars=\"%s\"", g->scalars);
  if (g->vectors) fprintf(f, " Vectors=\"%s\"", g->vectors);
  fprintf(f, ">\n");
  for (int i = 0; i < g->n_fields; ++i) write_field(f, g, &g->fields[i]);
  fprintf(f, "      </PointData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
}

/* Decimal digits of the integer x >= 0. */
static double digits(double x) { return x < 10.0 ? 1.0 : floor(log10(x)) + 1.0; }

double ts_vtu_size_bound(const ts_vtu_grid *g) {
  double points = (double)g->blocks, cells = (double)g->blocks, components = 3.0; /* x y z */
  for (int d = 0; d < 3; ++d) points *= (double)g->np[d];
  for (int d = 0; d < g->dim; ++d) cells *= (double)(g->np[d] - 1);
  for (int i = 0; i < g->n_fields; ++i) components += g->fields[i].components;
  const double vertices = g->dim == 3 ? 8.0 : 4.0;
  const double connectivity = cells * (vertices * (digits(points) + 1.0) + 1.0);
  const double offsets = cells * (digits(cells * vertices) + 1.0), types = cells * 3.0;
  const double headers = 1024.0 + 256.0 * g->n_fields; /* the XML around the arrays */
  return points * components * VTU_NUMBER_BYTES + connectivity + offsets + types + headers;
}

/* bytes as "327.4 MiB" */
static void format_size(double bytes, char *buf, size_t len) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, ++u;
  snprintf(buf, len, "%.4g %s", bytes, units[u]);
}

static int check_size(const char *path, const ts_vtu_grid *g) {
  double points = (double)g->blocks;
  for (int d = 0; d < 3; ++d) points *= (double)g->np[d];
  const double bound = ts_vtu_size_bound(g), limit = (double)ts_max_output_size();
  if (points > VTU_MAX_POINTS)
    return TS_ERROR(TS_ERR_IO, "VTU output '%s': %.4g points, more than the 2^62 a file can "
                    "number; write fewer (<output subdivisions>, <mesh levels>)", path, points);
  if (ts_max_output_size() == TS_OUTPUT_SIZE_UNLIMITED || bound <= limit) return 0;
  char need[32], allowed[32];
  format_size(bound, need, sizeof need);
  format_size(limit, allowed, sizeof allowed);
  return TS_ERROR(TS_ERR_IO,
                  "VTU output '%s': the file would take up to %s (%.4g points), more than the "
                  "output size limit of %s; raise the limit (tessera run --max-output-size SIZE, "
                  "e.g. 4G or unlimited; ts_set_max_output_size in the C API) or write fewer "
                  "points (<output subdivisions>, <mesh levels>)",
                  path, need, points, allowed);
}

static int check_path_length(const char *path) {
  TS_CHECK_ARG(strlen(path) < VTU_PATH_MAX, "VTU output: the path is %zu bytes long, at most %d "
               "allowed", strlen(path), VTU_PATH_MAX - 1);
  return 0;
}

/* 48 random bits for a temporary name; a clock-and-counter mix where getrandom fails (the
 * name only has to be new: O_EXCL makes a guessed one harmless). */
static uint64_t random_bits(void) {
  static _Atomic uint64_t counter;
  uint64_t r;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
    r = ((uint64_t)getpid() << 32) ^ (uint64_t)(ts_wtime() * 1e9) ^
        (atomic_fetch_add(&counter, 1) + 1) * 0x9E3779B97F4A7C15ull;
  return r & 0xFFFFFFFFFFFFull;
}

/* A new file "PATH.XXXXXXXXXXXX" (12 random hex digits), its name into tmp: created with
 * O_EXCL and O_NOFOLLOW, so nothing planted at that name (a file, a symlink) is reused or
 * followed, and with mode 0666 less the umask, as fopen gives.  The descriptor, or -1 with
 * errno set. */
static int create_temporary(const char *path, char *tmp, size_t size) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    snprintf(tmp, size, "%s.%012llx", path, (unsigned long long)random_bits());
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

/* The error of a file that cannot be created next to path, naming its directory. */
static int cannot_create(const char *path, int error) {
  const char *slash = strrchr(path, '/');
  const int dir_length = !slash ? 1 : slash == path ? 1 : (int)(slash - path);
  return TS_ERROR(TS_ERR_IO, "VTU output '%s': cannot create a file in the directory '%.*s': %s",
                  path, dir_length, slash ? path : ".", strerror(error));
}

int ts_vtu_check(const char *path, const ts_vtu_grid *grid) {
  char tmp[VTU_PATH_MAX + 16];
  struct stat st;
  TS_CALL(check_path_length(path));
  TS_CALL(check_size(path, grid));
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return TS_ERROR(TS_ERR_IO, "VTU output '%s' is a directory; give a file name", path);
  const int fd = create_temporary(path, tmp, sizeof tmp);
  if (fd < 0) return cannot_create(path, errno);
  close(fd);
  unlink(tmp);
  return 0;
}

/* What goes into one file: the grid of a .vtu, or the index of a .pvtu and its pieces. */
typedef struct vtu_content {
  const ts_vtu_grid *grid;
  int n_pieces;
  const char *const *pieces;    /* NULL: a .vtu of the grid */
} vtu_content;

/* A parallel file (.pvtu): the grid's point-data arrays and the pieces that hold them. */
static void write_index(FILE *f, const vtu_content *c) {
  const ts_vtu_grid *g = c->grid;
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
             "  <PUnstructuredGrid GhostLevel=\"0\">\n    <PPointData");
  if (g->scalars) fprintf(f, " Scalars=\"%s\"", g->scalars);
  if (g->vectors) fprintf(f, " Vectors=\"%s\"", g->vectors);
  fprintf(f, ">\n");
  for (int i = 0; i < g->n_fields; ++i)
    fprintf(f, "      <PDataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\"/>\n",
            g->fields[i].name, g->fields[i].components);
  fprintf(f, "    </PPointData>\n    <PPoints>\n      <PDataArray type=\"Float64\" "
             "NumberOfComponents=\"3\"/>\n    </PPoints>\n");
  for (int i = 0; i < c->n_pieces; ++i) fprintf(f, "    <Piece Source=\"%s\"/>\n", c->pieces[i]);
  fprintf(f, "  </PUnstructuredGrid>\n</VTKFile>\n");
}

/* the content into a new temporary file next to path, renamed over path when complete */
static int write_atomically(const char *path, const vtu_content *c) {
  char tmp[VTU_PATH_MAX + 16];
  const int fd = create_temporary(path, tmp, sizeof tmp);
  if (fd < 0) return cannot_create(path, errno);
  FILE *f = fdopen(fd, "w");
  if (!f) {
    const int e = errno;
    close(fd);
    unlink(tmp);
    return TS_ERROR(TS_ERR_IO, "VTU output '%s': %s", path, strerror(e));
  }
  if (c->pieces) write_index(f, c);
  else write_grid(f, c->grid);
  const int write_failed = ferror(f);
  if (fclose(f) != 0 || write_failed) {
    unlink(tmp);
    return TS_ERROR(TS_ERR_IO, "VTU output: writing '%s' failed (disk full?)", path);
  }
  if (rename(tmp, path) != 0) {
    const int e = errno;
    unlink(tmp);
    return TS_ERROR(TS_ERR_IO, "VTU output: cannot rename the written file to '%s': %s", path,
                    strerror(e));
  }
  return 0;
}

int ts_vtu_write(const char *path, const ts_vtu_grid *grid) {
  const vtu_content c = {grid, 0, NULL};
  TS_CALL(check_path_length(path));
  TS_CALL(check_size(path, grid));
  return write_atomically(path, &c);
}

int ts_vtu_write_index(const char *path, const ts_vtu_grid *grid, int n_pieces,
                       const char *const *pieces) {
  const vtu_content c = {grid, n_pieces, pieces};
  TS_CALL(check_path_length(path));
  for (int i = 0; i < n_pieces; ++i)
    TS_CHECK_ARG(pieces[i] && *pieces[i] && !strpbrk(pieces[i], "\"<>&"),
                 "VTU output '%s': piece %d's name is empty or has a character XML would need "
                 "escaped (\" < > &)", path, i);
  return write_atomically(path, &c);
}
