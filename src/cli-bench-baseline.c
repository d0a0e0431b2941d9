/* cli-bench-baseline.c -- `tessera bench --baseline FILE`: every row the benchmark measures is
 * compared with the row of a committed baseline (bench/baselines/, one JSON-lines file per
 * device model, written by `tessera bench --json --repeat N`) that has the same identity (kernel,
 * backend, device, dim, degree, precision, smoother, DoFs; the file's last such row).  A time
 * per DoF (a key ending in "ns_per_dof") slower than the baseline by more than the noise
 * margin, or an iteration count (a key ending in "_iterations") above the baseline's, is a
 * regression: the command then exits with CLI_SLOWER. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* One row: a flat JSON object of string and number values, as the benchmarks print it. */
#define ROW_MAX_FIELDS 48
typedef struct row_field {
  char key[48];
  char text[160]; /* the value as written (strings without their quotes) */
  double number;
  int is_number;
} row_field;
typedef struct row {
  row_field f[ROW_MAX_FIELDS];
  int n;
} row;

struct cli_baseline {
  char path[1024];
  row *rows;
  int n_rows;
  double noise;       /* allowed slow-down, a fraction */
  int compared;       /* figures compared */
  int slower;         /* figures beyond the margin */
  int unmatched;      /* measured rows without a baseline row */
  FILE *report;       /* where the comparison is printed */
};

/* The keys that name what a row measured: rows are compared only when all of these that
 * either row has agree. */
static const char *const identity_keys[] = {"kernel", "backend", "device", "dim", "degree",
                                            "precision", "smoother", "dofs"};

static const char *skip_space(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') ++s;
  return s;
}

/* A JSON string at s (after its opening quote) into out; returns the character after the
 * closing quote, NULL if malformed or longer than cap.  Escapes are kept as written: the
 * benchmark's strings hold none but in device names, compared as text on both sides. */
static const char *parse_string(const char *s, char *out, size_t cap) {
  size_t n = 0;
  while (*s && *s != '"') {
    if (*s == '\\' && s[1]) {
      if (n + 2 >= cap) return NULL;
      out[n++] = *s++;
    }
    if (n + 1 >= cap) return NULL;
    out[n++] = *s++;
  }
  if (*s != '"') return NULL;
  out[n] = '\0';
  return s + 1;
}

/* One JSON line {"key": value, ...} with string, number or null values into r. */
static int parse_row(const char *line, row *r) {
  r->n = 0;
  const char *s = skip_space(line);
  if (*s++ != '{') return -1;
  s = skip_space(s);
  if (*s == '}') return 0;
  for (;;) {
    if (r->n == ROW_MAX_FIELDS || *s++ != '"') return -1;
    row_field *f = &r->f[r->n];
    if (!(s = parse_string(s, f->key, sizeof f->key))) return -1;
    s = skip_space(s);
    if (*s++ != ':') return -1;
    s = skip_space(s);
    f->is_number = 0;
    if (*s == '"') {
      if (!(s = parse_string(s + 1, f->text, sizeof f->text))) return -1;
    } else if (!strncmp(s, "null", 4)) {
      snprintf(f->text, sizeof f->text, "null");
      s += 4;
    } else {
      char *end;
      errno = 0;
      f->number = strtod(s, &end);
      if (end == s || errno == ERANGE) return -1;
      snprintf(f->text, sizeof f->text, "%.*s", (int)(end - s), s);
      f->is_number = 1;
      s = end;
    }
    r->n++;
    s = skip_space(s);
    if (*s == '}') return *skip_space(s + 1) ? -1 : 0;
    if (*s++ != ',') return -1;
    s = skip_space(s);
  }
}

static const row_field *field(const row *r, const char *key) {
  for (int i = 0; i < r->n; ++i)
    if (!strcmp(r->f[i].key, key)) return &r->f[i];
  return NULL;
}

static int ends_with(const char *s, const char *tail) {
  const size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

static int same_identity(const row *a, const row *b) {
  for (size_t i = 0; i < sizeof identity_keys / sizeof *identity_keys; ++i) {
    const row_field *x = field(a, identity_keys[i]), *y = field(b, identity_keys[i]);
    if ((x == NULL) != (y == NULL)) return 0;
    if (x && strcmp(x->text, y->text)) return 0;
  }
  return 1;
}

/* Read every non-empty line of path; an error names the file and line. */
static int read_rows(FILE *f, cli_baseline *b) {
  char line[8192];
  int cap = 0, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    ++lineno;
    if (!strchr(line, '\n') && !feof(f)) {
      fprintf(stderr, "tessera: error: bench --baseline %s:%d: line longer than %zu bytes\n",
              b->path, lineno, sizeof line - 1);
      return -1;
    }
    if (*skip_space(line) == '\0' || *skip_space(line) == '#') continue;
    if (b->n_rows == cap) {
      cap = cap ? 2 * cap : 64;
      row *grown = realloc(b->rows, (size_t)cap * sizeof *grown);
      if (!grown) {
        fprintf(stderr, "tessera: error: bench --baseline %s: out of memory\n", b->path);
        return -1;
      }
      b->rows = grown;
    }
    if (parse_row(line, &b->rows[b->n_rows])) {
      fprintf(stderr, "tessera: error: bench --baseline %s:%d: not a flat JSON object as "
              "`tessera bench --json` writes\n", b->path, lineno);
      return -1;
    }
    b->n_rows++;
  }
  if (ferror(f)) {
    fprintf(stderr, "tessera: error: bench --baseline %s: %s\n", b->path, strerror(errno));
    return -1;
  }
  return 0;
}

int cli_baseline_load(const char *path, double noise, FILE *report, cli_baseline **out) {
  *out = NULL;
  cli_baseline *b = calloc(1, sizeof *b);
  if (!b) return CLI_ERROR;
  snprintf(b->path, sizeof b->path, "%s", path);
  b->noise = noise;
  b->report = report;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "tessera: error: bench --baseline %s: %s\n", path, strerror(errno));
    free(b);
    return CLI_ERROR;
  }
  const int bad = read_rows(f, b);
  fclose(f);
  if (!bad && b->n_rows == 0)
    fprintf(stderr, "tessera: error: bench --baseline %s: no rows (write one with "
            "`tessera bench --json --repeat 3 > FILE`)\n", path);
  if (bad || b->n_rows == 0) {
    cli_baseline_free(&b);
    return CLI_ERROR;
  }
  *out = b;
  return CLI_OK;
}

/* Compare one figure of the measured row with the baseline's; print a line for it. */
static void compare_figure(cli_baseline *b, const row *now, const row_field *f,
                           const row_field *then) {
  const int iterations = ends_with(f->key, "_iterations");
  const double limit = iterations ? then->number : then->number * (1.0 + b->noise);
  const int slower = f->number > limit;
  const row_field *k = field(now, "degree");
  b->compared++;
  b->slower += slower;
  fprintf(b->report, "# baseline: %s k %s %-22s %10.4f  baseline %10.4f  %+6.1f%%%s\n",
         field(now, "kernel") ? field(now, "kernel")->text : "?", k ? k->text : "?", f->key,
         f->number, then->number,
         then->number > 0 ? 100.0 * (f->number / then->number - 1.0) : 0.0,
         slower ? (iterations ? "  MORE ITERATIONS" : "  SLOWER") : "");
}

int cli_baseline_compare(cli_baseline *b, const char *json_line) {
  row now;
  if (parse_row(json_line, &now)) {
    fprintf(stderr, "tessera: error: bench --baseline: cannot read the measured row back: %s",
            json_line);
    return CLI_ERROR;
  }
  const row *then = NULL; /* the last row of this identity: appended rows replace older ones */
  for (int i = 0; i < b->n_rows; ++i)
    if (same_identity(&now, &b->rows[i])) then = &b->rows[i];
  if (!then) {
    const row_field *k = field(&now, "degree"), *n = field(&now, "dofs");
    fprintf(b->report, "# baseline: no row in %s for %s k %s with %s DoFs on this device\n", b->path,
           field(&now, "kernel") ? field(&now, "kernel")->text : "?", k ? k->text : "?",
           n ? n->text : "?");
    b->unmatched++;
    return CLI_OK;
  }
  for (int i = 0; i < now.n; ++i) {
    const row_field *f = &now.f[i], *old = field(then, f->key);
    if (!f->is_number || !old || !old->is_number) continue;
    if (ends_with(f->key, "ns_per_dof") || ends_with(f->key, "_iterations"))
      compare_figure(b, &now, f, old);
  }
  return CLI_OK;
}

int cli_baseline_verdict(const cli_baseline *b) {
  if (b->compared == 0) {
    fprintf(stderr, "tessera: error: bench --baseline %s: no measured row matched a baseline "
            "row (kernel, backend, device, dim, degree, precision, smoother and DoFs must "
            "agree): nothing was compared\n", b->path);
    return CLI_ERROR;
  }
  fprintf(b->report, "# baseline %s: %d figures compared, %d beyond the %.0f%% noise margin (or more "
         "iterations), %d rows without a baseline\n", b->path, b->compared, b->slower,
         100.0 * b->noise, b->unmatched);
  if (b->slower)
    fprintf(stderr, "tessera: bench: %d figures slower than the baseline %s\n", b->slower,
            b->path);
  return b->slower ? CLI_SLOWER : CLI_OK;
}

void cli_baseline_free(cli_baseline **b) {
  if (!b || !*b) return;
  free((*b)->rows);
  free(*b);
  *b = NULL;
}
