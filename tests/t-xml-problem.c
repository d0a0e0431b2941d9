/* t-xml-problem.c -- the XML problem reader: every file in xml/good must load (and a few
 * values are checked), every file listed in xml/bad/EXPECTED must fail with TS_ERR_INPUT
 * or TS_ERR_ARG and a message holding the listed substring and the file's name, printing
 * nothing on stderr; overrides ("PATH=VALUE") change values, fail with messages naming
 * themselves, or are rejected as malformed; ts_problem_check_memory refuses a tiny memory.
 * Problem files are local regular files of bounded size: a FIFO, a directory, an
 * over-size file, an http:// path and 100,000 attributes are refused at once.  Every
 * default="..." of the schema is what the reader fills when the attribute is absent.
 * The XML files are found under $srcdir/xml or $srcdir/tests/xml ($srcdir defaults to "."). */
#define _POSIX_C_SOURCE 200809L /* strdup, opendir, stat, mkdtemp, mkfifo, sockets */
#include <arpa/inet.h>
#include <dirent.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "tap.h"
#include "tessera.h"
#include "problem/equation.h"

#define MAX_FILES 256

static char xml_dir[1024];

static void find_xml_dir(void) {
  const char *srcdir = getenv("srcdir");
  if (!srcdir || !*srcdir) srcdir = ".";
  const char *const candidates[] = {"%s/xml", "%s/tests/xml"};
  for (int i = 0; i < 2; i++) {
    struct stat st;
    snprintf(xml_dir, sizeof xml_dir, candidates[i], srcdir);
    char good[1100];
    snprintf(good, sizeof good, "%s/good", xml_dir);
    if (!stat(good, &st) && S_ISDIR(st.st_mode)) return;
  }
  snprintf(xml_dir, sizeof xml_dir, "%s/xml", srcdir);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.xml files in dir, sorted (caller frees). */
static int list_xml(const char *dir, char **names) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d)) && n < MAX_FILES;) {
    size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, ".xml")) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, by_name);
  return n;
}

/* Lines "file<TAB>substring" of bad/EXPECTED (# comments and blank lines skipped). */
static int read_expected(const char *path, char **files, char **substrings) {
  FILE *f = fopen(path, "r");
  int n = 0;
  char line[2048];
  if (!f) return 0;
  while (n < MAX_FILES && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    char *tab = strchr(line, '\t');
    if (!tab) continue;
    *tab = 0;
    files[n] = strdup(line);
    substrings[n] = strdup(tab + 1);
    n++;
  }
  fclose(f);
  return n;
}

static ts_problem read_ok(const char *name, int n_overrides, const char *const *overrides) {
  char path[1400];
  snprintf(path, sizeof path, "%s/good/%s", xml_dir, name);
  ts_problem p = NULL;
  int code = ts_problem_read_xml(path, n_overrides, overrides, &p);
  if (code) diag("%s: %s: %s", path, ts_error_name(code), ts_error_message());
  return p;
}

/* Read a good file with overrides that must fail with code; the message must hold every
 * substring given (NULL-terminated) and *problem must stay NULL. */
static void expect_failure(const char *name, const char *override, int code, const char *what,
                           const char *s1, const char *s2) {
  char path[1400];
  snprintf(path, sizeof path, "%s/good/%s", xml_dir, name);
  ts_problem p = (ts_problem)&p; /* must be reset to NULL */
  const char *const overrides[1] = {override};
  int got = ts_problem_read_xml(path, 1, overrides, &p);
  const char *msg = ts_error_message();
  int good = got == code && p == NULL && (!s1 || strstr(msg, s1)) && (!s2 || strstr(msg, s2));
  if (!ok(good, "%s", what))
    diag("override '%s': got %s (want %s), message:\n%s", override, ts_error_name(got),
         ts_error_name(code), msg);
  else
    diag("%s", msg);
}

/* ------------------------------------------------------------ files the test makes */

static char work_dir[512]; /* a fresh temporary directory */

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int write_file(const char *path, const char *bytes, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t written = fwrite(bytes, 1, size, f);
  return fclose(f) || written != size ? -1 : 0;
}

/* Read path, which must fail with code within a second naming s1 and s2. */
static void expect_refused(const char *path, int code, const char *what, const char *s1,
                           const char *s2) {
  ts_problem p = (ts_problem)&p;
  double start = seconds_now();
  int got = ts_problem_read_xml(path, 0, NULL, &p);
  double elapsed = seconds_now() - start;
  const char *msg = ts_error_message();
  if (!ok(got == code && p == NULL && strstr(msg, s1) && strstr(msg, s2) && elapsed < 1.0,
          "%s", what))
    diag("got %s (want %s) after %.3f s, message:\n%s", ts_error_name(got), ts_error_name(code),
         elapsed, msg);
  else
    diag("%s", msg);
}

/* A listening TCP socket on 127.0.0.1 (a free port into *port), or -1. */
static int listen_on_loopback(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4) ||
      getsockname(fd, (struct sockaddr *)&a, &len)) {
    if (fd >= 0) close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

static const char problem_text[] =
    "<tessera-problem name=\"%s\"><mesh dim=\"2\" levels=\"1\"/><element degree=\"1\"/>"
    "<poisson solution=\"sine\"/></tessera-problem>\n";

/* An http:// path names a local file (here a copy under work_dir, which is the current
 * directory meanwhile); nothing connects to the listener at the URL's address. */
static void test_http_path(void) {
  int port, listener = listen_on_loopback(&port);
  if (listener < 0) {
    skip(1, "no loopback socket");
    return;
  }
  char cwd[1024], host[64], url[128], file[160], text[512];
  snprintf(host, sizeof host, "http:/127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://127.0.0.1:%d/p.xml", port);
  snprintf(file, sizeof file, "%s/p.xml", host);
  snprintf(text, sizeof text, problem_text, "local-copy");
  ts_problem p = NULL;
  int code = -1;
  if (getcwd(cwd, sizeof cwd) && !chdir(work_dir)) {
    if (!mkdir("http:", 0700) && !mkdir(host, 0700) && !write_file(file, text, strlen(text)))
      code = ts_problem_read_xml(url, 0, NULL, &p);
    remove(file);
    remove(host);
    remove("http:");
    if (chdir(cwd)) diag("cannot return to %s", cwd);
  }
  struct pollfd waiting = {listener, POLLIN, 0};
  int connected = poll(&waiting, 1, 0) > 0;
  if (!ok(code == 0 && p && !strcmp(ts_problem_name(p), "local-copy") && !connected,
          "%s is the local file of that name; nothing connects to the address", url))
    diag("code %s, %s: %s", ts_error_name(code), connected ? "connected" : "no connection",
         ts_error_message());
  ts_problem_destroy(&p);
  close(listener);
}

/* Item by item, what a problem file may not be: 6 tests. */
static void test_local_files(void) {
  char path[700];
  snprintf(path, sizeof path, "%s/fifo.xml", work_dir);
  if (mkfifo(path, 0600)) diag("mkfifo %s failed", path);
  expect_refused(path, TS_ERR_IO, "a FIFO is refused at once, not waited on",
                 "fifo.xml': it is a FIFO (named pipe); problem files are regular files", "");
  remove(path);
  expect_refused(work_dir, TS_ERR_IO, "a directory is refused", "it is a directory", "");
  expect_refused("http://127.0.0.1:9/problem.xml", TS_ERR_IO,
                 "an http:// path is a file name that does not exist",
                 "cannot open problem file 'http://127.0.0.1:9/problem.xml'", "No such file");
  test_http_path();

  /* a problem padded to exactly the limit reads; one byte more does not */
  const size_t limit = TS_PROBLEM_MAX_BYTES;
  char *big = malloc(limit + 1), text[512];
  snprintf(text, sizeof text, problem_text, "padded");
  size_t len = strlen(text);
  memcpy(big, "<!--", 4);
  memset(big + 4, ' ', limit - 7 - len);
  memcpy(big + limit - 3 - len, "-->", 3);
  memcpy(big + limit - len, text, len);
  snprintf(path, sizeof path, "%s/big.xml", work_dir);
  ts_problem p = NULL;
  int code = write_file(path, big, limit) ? -1 : ts_problem_read_xml(path, 0, NULL, &p);
  if (!ok(code == 0 && p && !strcmp(ts_problem_name(p), "padded"),
          "a problem file of exactly %zu bytes reads", limit))
    diag("%s", ts_error_message());
  ts_problem_destroy(&p);
  big[limit] = '\n';
  if (write_file(path, big, limit + 1)) diag("cannot write %s", path);
  expect_refused(path, TS_ERR_INPUT, "a file of one byte more is refused naming the limit",
                 "the file is 1.0 MiB (1048577 bytes)",
                 "problem files are limited to 1 MiB (1048576 bytes)");
  remove(path);
  free(big);
}

/* 100,000 attributes on one element (libxml2 takes minutes to check them for duplicates)
 * are refused before libxml2 sees them: 1 test. */
static void test_attribute_bomb(void) {
  const int n = 100000;
  char *text = malloc(16 * (size_t)n), path[700];
  size_t len = (size_t)sprintf(text, "<tessera-problem name=\"bomb\">\n<mesh dim=\"2\" levels=\"1\"");
  for (int i = 0; i < n - 2; i++) { /* and 99,998 more, named "aaaa" to "fpcz" */
    char name[5] = {(char)('a' + i / 17576), (char)('a' + i / 676 % 26), (char)('a' + i / 26 % 26),
                    (char)('a' + i % 26), 0};
    len += (size_t)sprintf(text + len, " %s=''", name);
  }
  len += (size_t)sprintf(text + len, "/>\n</tessera-problem>\n");
  snprintf(path, sizeof path, "%s/bomb.xml", work_dir);
  if (write_file(path, text, len)) diag("cannot write %s", path);
  expect_refused(path, TS_ERR_INPUT, "100,000 attributes on one element are refused at once",
                 "bomb.xml:2: <mesh ...> has 100000 attributes", "at most 64 are allowed");
  remove(path);
  free(text);
}

/* ------------------------------------------------------------ schema defaults */

typedef struct schema_default {
  char element[64], attribute[64], value[64];
} schema_default;

/* The default="..." attributes of the embedded schema's element declarations. */
static int schema_defaults(schema_default *out, int cap) {
  xmlDocPtr doc = xmlReadMemory(ts_problem_schema_xsd, (int)ts_problem_schema_xsd_len,
                                "tessera-problem.xsd", NULL, XML_PARSE_NONET);
  int n = 0;
  xmlNodePtr stack[64];
  int depth = 0;
  if (doc) stack[depth++] = xmlDocGetRootElement(doc);
  while (depth > 0) { /* depth first; each attribute's element is its nearest xs:element */
    xmlNodePtr node = stack[--depth];
    for (xmlNodePtr c = node->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE && depth < 64) stack[depth++] = c;
    xmlChar *value = xmlGetProp(node, BAD_CAST "default");
    xmlChar *name = xmlGetProp(node, BAD_CAST "name");
    xmlNodePtr decl = node->parent;
    while (decl && decl->type == XML_ELEMENT_NODE && xmlStrcmp(decl->name, BAD_CAST "element"))
      decl = decl->parent;
    xmlChar *element = decl && decl->type == XML_ELEMENT_NODE ? xmlGetProp(decl, BAD_CAST "name")
                                                               : NULL;
    if (value && name && element && !xmlStrcmp(node->name, BAD_CAST "attribute") && n < cap) {
      snprintf(out[n].element, sizeof out[n].element, "%s", (const char *)element);
      snprintf(out[n].attribute, sizeof out[n].attribute, "%s", (const char *)name);
      snprintf(out[n].value, sizeof out[n].value, "%s", (const char *)value);
      n++;
    }
    xmlFree(value);
    xmlFree(name);
    xmlFree(element);
  }
  xmlFreeDoc(doc);
  return n;
}

/* 1 if the problem text has <element ... attribute=...>. */
static int has_attribute(const char *text, const char *element, const char *attribute) {
  char open[80], attr[80];
  snprintf(open, sizeof open, "<%.70s ", element);
  snprintf(attr, sizeof attr, " %.70s=", attribute);
  const char *start = strstr(text, open), *found = start ? strstr(start, attr) : NULL;
  return found && found < strchr(start, '>');
}

/* For each default: a base problem without the attribute (the first of six that accepts
 * it) read as it is and with the attribute set to the default must fill the same values. */
static void test_schema_defaults(const schema_default *d, int n) {
  static const char *const bases[] = {
      "<tessera-problem name=\"d\"><mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/>"
      "<element degree=\"2\"/><poisson solution=\"sine\"/></tessera-problem>",
      "<tessera-problem name=\"d\"><mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/>"
      "<element degree=\"2\"/><poisson solution=\"sine\"/>"
      "<solver preconditioner=\"mg\"/></tessera-problem>",
      "<tessera-problem name=\"d\"><mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/>"
      "<element family=\"RT\" degree=\"1\"/><stokes solution=\"paper000\"/></tessera-problem>",
      "<tessera-problem name=\"d\"><mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/>"
      "<element family=\"taylor-hood\" degree=\"2\"/><stokes solution=\"paper004\"/>"
      "<solver type=\"fgmres\" preconditioner=\"mg\"/></tessera-problem>",
      "<tessera-problem name=\"d\"><mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/>"
      "<element family=\"RT\" degree=\"1\"/><darcy beta-cells=\"lognormal\"/></tessera-problem>",
      "<tessera-problem name=\"d\"><mesh dim=\"2\" cells=\"2 2\" levels=\"2\"/>"
      "<element family=\"RT\" degree=\"1\"/><grad-div beta-cells=\"lognormal\"/>"
      "</tessera-problem>",
  };
  for (int i = 0; i < n; i++) {
    char override[200];
    snprintf(override, sizeof override, "%.63s/%.63s=%.63s", d[i].element, d[i].attribute,
             d[i].value);
    const char *const overrides[1] = {override};
    int compared = 0, same = 0;
    for (size_t b = 0; b < sizeof bases / sizeof *bases && !compared; b++) {
      if (has_attribute(bases[b], d[i].element, d[i].attribute)) continue;
      ts_problem absent = NULL, given = NULL;
      const size_t len = strlen(bases[b]);
      if (!ts_problem_read_memory("base.xml", bases[b], len, 0, NULL, &absent) &&
          !ts_problem_read_memory("base.xml", bases[b], len, 1, overrides, &given)) {
        compared = 1;
        same = !memcmp(absent, given, sizeof *absent);
      }
      ts_problem_destroy(&absent);
      ts_problem_destroy(&given);
    }
    if (!ok(compared && same, "schema default %s: the reader fills the same without it", override))
      diag(compared ? "the values differ" : "no base problem accepts %s", override);
  }
}

int main(void) {
  find_xml_dir();
  char dir[1200], *good[MAX_FILES], *bad[MAX_FILES], *substr[MAX_FILES];
  snprintf(dir, sizeof dir, "%s/good", xml_dir);
  int n_good = list_xml(dir, good);
  snprintf(dir, sizeof dir, "%s/bad/EXPECTED", xml_dir);
  int n_bad = read_expected(dir, bad, substr);
  /* Files in bad/ that EXPECTED does not list would go untested: count them as a test. */
  char *bad_files[MAX_FILES];
  snprintf(dir, sizeof dir, "%s/bad", xml_dir);
  int n_bad_files = list_xml(dir, bad_files);

  schema_default defaults[64];
  int n_defaults = schema_defaults(defaults, 64);
  /* A test that hangs (a FIFO waited on, an HTTP request answered by nobody) fails. */
  alarm(120);
  snprintf(work_dir, sizeof work_dir, "%s/t-xml-problem.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(work_dir)) snprintf(work_dir, sizeof work_dir, ".");

  /* files 2, minimal 5, Taylor-Hood 2, full 2D 4, destroy 1, 3D 2, long values 1, stderr 1,
   * overrides 6 + 10, API 5, memory 2, box 1, local files 6, attributes 1, defaults 1 +
   * n_defaults, your own data's equation 1, Darcy and grad-div 3 */
  const int n_fixed = 2 + 5 + 2 + 4 + 1 + 2 + 1 + 1 + 6 + 10 + 5 + 2 + 1 + 6 + 1 + 1 + 1 + 1 + 3;
  plan(n_good + n_bad + n_fixed + n_defaults);
  ok(n_good >= 3 && n_bad >= 18, "found %d good files and %d bad ones in %s", n_good, n_bad,
     xml_dir);
  int unlisted = 0;
  for (int i = 0; i < n_bad_files; i++) {
    int listed = 0;
    for (int j = 0; j < n_bad; j++) listed |= !strcmp(bad_files[i], bad[j]);
    if (!listed) {
      diag("%s/bad/%s is not listed in EXPECTED", xml_dir, bad_files[i]);
      unlisted++;
    }
    free(bad_files[i]);
  }
  ok(unlisted == 0, "every file in bad/ is listed in EXPECTED");

  /* ------------------------------------------------------------ good files */
  for (int i = 0; i < n_good; i++) {
    ts_problem p = read_ok(good[i], 0, NULL);
    ok(p != NULL, "good/%s reads", good[i]);
    ts_problem_destroy(&p);
    free(good[i]);
  }

  ts_problem p = read_ok("poisson-2d-minimal.xml", 0, NULL);
  ok(p && p->dim == 2 && p->levels == 3 && p->degree == 2 && p->family == TS_FE_Q &&
         p->first_level == 3 && !strcmp(p->solution, "sine") &&
         !strcmp(ts_problem_name(p), "minimal-2d") && !strcmp(ts_problem_equation(p), "poisson"),
     "minimal 2D: dim, levels, degree, solution, name, equation and first-level = levels");
  ok(p && p->lower[0] == 0 && p->lower[1] == 0 && p->upper[0] == 1 && p->upper[1] == 1 &&
         p->coarse[0] == 1 && p->coarse[1] == 1,
     "minimal 2D: default box [0,1]^2 with one coarse cell");
  ok(p && p->solver == TS_SOLVER_CG && !strcmp(p->preconditioner, "jacobi") && p->rtol == 1e-10 &&
         p->max_iterations == 10000 && p->restart == 50 && p->precision == TS_DOUBLE &&
         !strcmp(ts_problem_backend(p), "omp") && p->vtu_path[0] == 0,
     "minimal 2D: solver, backend and output defaults");
  size_t bytes = 0;
  /* (2*8+1)^2 = 289 DoFs, CG double: 289 * (6*8 + 16) bytes */
  ok(p && !ts_problem_memory_estimate(p, &bytes) && bytes == 289u * (6 * 8 + 16),
     "minimal 2D: memory estimate = 289 DoFs * (6 vectors * 8 + 16) bytes");
  int code = ts_problem_check_memory(p, 1000);
  ok(code == TS_ERR_MEMORY && strstr(ts_error_message(), "problem 'minimal-2d' needs about") &&
         strstr(ts_error_message(), "(289 DoFs)"),
     "check_memory with 1000 bytes fails with TS_ERR_MEMORY naming the problem");
  diag("%s", ts_error_message());
  ts_problem_destroy(&p);

  /* Taylor-Hood: the family, and the estimate's term for the sparse boundary parts of the
   * coupling blocks: D_c and B_c^T of every component, (2k-1)^dim entries per boundary
   * velocity node, 12 bytes each */
  p = read_ok("stokes-th-minres-single.xml", 0, NULL);
  ok(p && p->stokes && p->taylor_hood && p->family == TS_FE_Q && p->degree == 2 &&
         !strcmp(p->solution, "paper004") && p->precision == TS_SINGLE &&
         !strcmp(ts_problem_equation(p), "taylor-hood"),
     "Taylor-Hood: <stokes>, family taylor-hood (Q_k velocity), degree 2, paper004, single, "
     "equation taylor-hood");
  size_t with = 0, without = 0;
  int estimated = p && !ts_problem_memory_estimate(p, &with);
  if (p) p->equation = &ts_equation_stokes; /* the same file counted as RT */
  estimated = estimated && !ts_problem_memory_estimate(p, &without);
  /* 2D, 16 x 16 cells: Taylor-Hood has 2 33^2 + 17^2 = 2467 DoFs, and the RT form counts
   * 3 49^2 = 7203; Q2 velocity: 33^2 - 31^2 boundary nodes of at most 3^2 coupling entries
   * each */
  const size_t coupling = 2u * 2u * (33u * 33u - 31u * 31u) * 9u * 12u;
  const size_t per_dof = without / 7203u, expected = 2467u * per_dof + coupling;
  ok(estimated && without % 7203u == 0 && with == expected,
     "Taylor-Hood: the memory estimate counts its 2467 DoFs and %zu bytes for the boundary "
     "coupling blocks: %zu bytes (expected %zu)", coupling, with, expected);
  ts_problem_destroy(&p);

  p = read_ok("own-box-3d.xml", 0, NULL);
  ok(p && !strcmp(ts_problem_equation(p), "poisson-own"),
     "<poisson f=...>: the equation is poisson-own (your own data)");
  ts_problem_destroy(&p);

  /* paper 003's problems: the equation, the data, the tree's S~ node, the default trees */
  p = read_ok("darcy-3d-smooth.xml", 0, NULL);
  ok(p && !strcmp(ts_problem_equation(p), "darcy") && p->hdiv && isinf(p->alpha) &&
         p->beta == 2 && !strcmp(p->solution, "smooth") &&
         p->flux_faces == (TS_FACE_LEFT | TS_FACE_BACK) && p->solver == TS_SOLVER_MINRES &&
         !p->triangular && p->schur_amg == TS_HDIV_AMG_OURS && p->pc_nodes == 3,
     "<darcy solution=\"smooth\" beta=\"2\" flux-faces=\"left back\">: equation darcy, "
     "alpha infinite, MINRES, block-diagonal with amg on S~");
  ts_problem_destroy(&p);
  p = read_ok("graddiv-gmres.xml", 0, NULL);
  ok(p && !strcmp(ts_problem_equation(p), "grad-div") && p->alpha == 2 && p->beta == 1 &&
         !strcmp(p->alpha_cells, "crooked-pipe") && !strcmp(p->beta_cells, "crooked-pipe") &&
         !strcmp(p->f, "1, 0") && p->solver == TS_SOLVER_GMRES && p->triangular &&
         !strcmp(p->preconditioner, "block-triangular") && p->schur_amg == TS_HDIV_AMG_AUTO &&
         !strcmp(p->solution, "none"),
     "<grad-div alpha=\"2\" alpha-cells beta-cells=\"crooked-pipe\"> with GMRES: the "
     "block-triangular default tree, S~'s AMG left to the system");
  ts_problem_destroy(&p);
  p = read_ok("darcy-own-data.xml", 0, NULL);
  ok(p && !strcmp(p->beta_cells, "lognormal") && p->contrast == 100 && p->seed == 7 &&
         !strcmp(p->u, "0, x") && !strcmp(p->pressure, "x*y") && !strcmp(p->g, "1") &&
         !strcmp(p->preconditioner, "block-diagonal"),
     "<darcy beta-cells=\"lognormal\" contrast seed f g u p>: your own data");
  ts_problem_destroy(&p);

  p = read_ok("poisson-3d-mg-full.xml", 0, NULL);
  ok(p && p->mg.coarse_level == 1 && p->mg.coarse_degree == 1 &&
         p->mg.coarse_solver == TS_MG_COARSE_DENSE && p->mg.chebyshev_degree == 4,
     "full multigrid attributes: coarse level 1, coarse degree 1, coarse solver dense");
  ts_problem_destroy(&p);

  p = read_ok("poisson-2d-full.xml", 0, NULL);
  ok(p && !strcmp(p->name, "full 2d") && p->dim == 2 && p->lower[0] == -1 && p->lower[1] == 0.5 &&
         p->upper[0] == 2 && p->upper[1] == 1.5 && p->coarse[0] == 3 && p->coarse[1] == 2 &&
         p->levels == 4 && p->first_level == 1 && p->degree == 4 && !strcmp(p->solution, "exp"),
     "full 2D: name collapsed, box, cells, levels, convergence, degree, solution");
  ok(p && p->solver == TS_SOLVER_GMRES && !strcmp(p->preconditioner, "none") && p->rtol == 1e-8 &&
         p->max_iterations == 500 && p->restart == 30 && p->precision == TS_DOUBLE &&
         !strcmp(p->vtu_path, "out/full-2d.vtu") && p->vtu_subdivisions == 3 &&
         strstr(p->source, "poisson-2d-full.xml"),
     "full 2D: GMRES settings and output");
  /* (3*16*4+1)*(2*16*4+1) = 193*129 DoFs, GMRES(30) double: (35*8+16) bytes each */
  ok(p && !ts_problem_memory_estimate(p, &bytes) && bytes == 193u * 129u * (35 * 8 + 16),
     "full 2D: memory estimate = 193*129 DoFs * (35 vectors * 8 + 16) bytes for GMRES(30)");
  ok(p && ts_problem_check_memory(p, bytes) == 0 && ts_problem_check_memory(p, bytes - 1) == TS_ERR_MEMORY,
     "check_memory accepts exactly the estimate and refuses one byte less");
  ts_problem_destroy(&p);
  ok(p == NULL && ts_problem_destroy(&p) == 0 && ts_problem_destroy(NULL) == 0,
     "destroy sets the handle to NULL and accepts NULL");

  p = read_ok("poisson-3d-full.xml", 0, NULL);
  ok(p && p->dim == 3 && p->upper[2] == 2 && p->coarse[2] == 4 && p->degree == 3 &&
         p->precision == TS_SINGLE && p->rtol == 1e-6 && p->first_level == 0 &&
         !strcmp(ts_problem_backend(p), "cuda") && p->vtu_subdivisions == 3,
     "full 3D: box, cells, single precision, backend, subdivisions default to degree");
  ts_problem_destroy(&p);
  p = read_ok("poisson-3d-exp.xml", 0, NULL);
  ok(p && p->dim == 3 && p->lower[2] == -0.5 && p->coarse[2] == 1 && p->degree == 10 &&
         p->vtu_subdivisions == 10 && !strcmp(p->solution, "exp"),
     "3D exp: shifted box, degree 10, subdivisions = degree");
  ts_problem_destroy(&p);
  p = read_ok("long-values.xml", 0, NULL);
  ok(p && p->levels == 2 && p->coarse[0] == 2 && p->coarse[1] == 2 && p->lower[0] == -0.5 &&
         p->lower[1] == 0 && p->upper[0] == 1 && p->upper[1] == 2 && p->penalty == 2.5 &&
         p->rtol == 1e-81,
     "values with 70 leading zeros and lists of 2,400 characters are read in full");
  ts_problem_destroy(&p);

  /* ------------------------------------------------------------ bad files */
  /* libxml2's own messages must end up in the error, not on stderr: capture it meanwhile. */
  fflush(stderr);
  FILE *captured = tmpfile();
  int stderr_fd = dup(2);
  if (captured) dup2(fileno(captured), 2);
  for (int i = 0; i < n_bad; i++) {
    char path[1400];
    snprintf(path, sizeof path, "%s/bad/%s", xml_dir, bad[i]);
    ts_problem q = (ts_problem)&q;
    code = ts_problem_read_xml(path, 0, NULL, &q);
    const char *msg = ts_error_message();
    int good_code = code == TS_ERR_INPUT || code == TS_ERR_ARG;
    int pass = good_code && q == NULL && strstr(msg, substr[i]) && strstr(msg, bad[i]);
    if (!ok(pass, "bad/%s fails naming the file and '%s'", bad[i], substr[i]))
      diag("got %s, handle %s, message:\n%s", ts_error_name(code), q ? "set" : "NULL", msg);
    else
      diag("%s", msg);
    ts_problem_destroy(&q);
    free(bad[i]);
    free(substr[i]);
  }
  fflush(stderr);
  dup2(stderr_fd, 2);
  close(stderr_fd);
  char printed[2048] = "";
  if (captured) {
    rewind(captured);
    printed[fread(printed, 1, sizeof printed - 1, captured)] = 0;
    fclose(captured);
  }
  if (!ok(captured && !printed[0], "reading the bad files printed nothing on stderr"))
    diag("stderr:\n%s", printed);

  /* ------------------------------------------------------------ overrides */
  {
    const char *ov[] = {"mesh/levels=5", "solver/type=gmres", "name=renamed",
                        "solver/restart=7", "output/vtu=x.vtu"};
    p = read_ok("poisson-2d-minimal.xml", 5, ov);
    ok(p && p->levels == 5 && p->first_level == 5, "override mesh/levels=5 changes levels");
    ok(p && p->solver == TS_SOLVER_GMRES && p->restart == 7,
       "overrides create <solver> and set type and restart");
    ok(p && !strcmp(ts_problem_name(p), "renamed"), "override name=... sets the root attribute");
    ok(p && !strcmp(p->vtu_path, "x.vtu") && p->vtu_subdivisions == 2,
       "override output/vtu creates <output>; subdivisions default to degree 2");
    ts_problem_destroy(&p);
    const char *ov_stokes[] = {"output/vtu=s.vtu"};
    p = read_ok("stokes-2d.xml", 1, ov_stokes);
    ok(p && !strcmp(p->vtu_path, "s.vtu") && p->vtu_subdivisions == 2 &&
           !strcmp(ts_problem_equation(p), "stokes"),
       "Stokes RT_1 (equation stokes): <output> subdivisions default to k+1 = 2");
    ts_problem_destroy(&p);
    const char *ov2[] = {"mesh/dim=3", "mesh/cells=4 4 2", "mesh/levels=1", "mesh/levels=2"};
    p = read_ok("poisson-2d-minimal.xml", 4, ov2);
    ok(p && p->dim == 3 && p->coarse[2] == 2 && p->upper[2] == 1 && p->lower[2] == 0 &&
           p->levels == 2,
       "overrides make the problem 3D; the last one wins; the box defaults in z");
    ts_problem_destroy(&p);
  }
  expect_failure("poisson-2d-minimal.xml", "mesh/levels=40", TS_ERR_INPUT,
                 "override mesh/levels=40 fails naming the override and the value",
                 "(from --set mesh/levels=40)", "'40'");
  expect_failure("poisson-2d-minimal.xml", "mesh/cells=3 2 1", TS_ERR_INPUT,
                 "override cells with 3 values in 2D fails naming the override",
                 "(from --set mesh/cells=3 2 1)", "3 values given, dim=\"2\" needs 2");
  expect_failure("poisson-2d-full.xml", "mesh/dim=3", TS_ERR_INPUT,
                 "override dim=3 with a 2D box in the file names the line and the override",
                 "poisson-2d-full.xml:12: <mesh lower=\"-1 0.5\">: 2 values given",
                 "dim=\"3\" (from --set mesh/dim=3) needs 3");
  expect_failure("poisson-2d-full.xml", "mesh/levels=0", TS_ERR_INPUT,
                 "override levels below first-level names the override",
                 "poisson-2d-full.xml:13: <convergence first-level=\"1\">",
                 "levels=\"0\" (from --set mesh/levels=0)");
  expect_failure("poisson-2d-minimal.xml", "smoother/type=jacobi", TS_ERR_INPUT,
                 "override creating an unknown element fails naming the override",
                 "(from --set smoother/type=jacobi)", "element 'smoother'");
  expect_failure("poisson-2d-minimal.xml", "output/subdivisions=2", TS_ERR_INPUT,
                 "override creating <output> without vtu fails naming the override",
                 "(from --set output/subdivisions=2)", "'vtu' is required");

  expect_failure("poisson-2d-minimal.xml", "mesh/levels", TS_ERR_ARG,
                 "override without '=' is TS_ERR_ARG naming it", "override 'mesh/levels'",
                 "no '='");
  expect_failure("poisson-2d-minimal.xml", "=3", TS_ERR_ARG,
                 "override with an empty path is TS_ERR_ARG naming it", "override '=3'", "empty");
  expect_failure("poisson-2d-minimal.xml", "mesh//levels=3", TS_ERR_ARG,
                 "override with an empty path component is TS_ERR_ARG", "override 'mesh//levels=3'",
                 "empty component");
  expect_failure("poisson-2d-minimal.xml", "mesh/1levels=3", TS_ERR_ARG,
                 "override with a path that is not an XML name is TS_ERR_ARG", "'1levels'",
                 "not an XML name");

  /* ------------------------------------------------------------ API misuse */
  ts_problem q = NULL;
  code = ts_problem_read_xml("/nonexistent/problem.xml", 0, NULL, &q);
  ok(code == TS_ERR_IO && q == NULL && strstr(ts_error_message(), "/nonexistent/problem.xml"),
     "a missing file is TS_ERR_IO naming it");
  diag("%s", ts_error_message());
  ok(ts_problem_read_xml(NULL, 0, NULL, &q) == TS_ERR_ARG, "NULL path is TS_ERR_ARG");
  ok(ts_problem_read_xml("x.xml", 0, NULL, NULL) == TS_ERR_ARG, "NULL handle is TS_ERR_ARG");
  ok(ts_problem_read_xml("x.xml", 2, NULL, &q) == TS_ERR_ARG && q == NULL,
     "overrides NULL with n_overrides 2 is TS_ERR_ARG");
  ok(ts_problem_memory_estimate(NULL, &bytes) == TS_ERR_ARG &&
         ts_problem_check_memory(NULL, 0) == TS_ERR_ARG,
     "memory functions refuse a NULL problem");

  /* ------------------------------------------------------------ from memory */
  char text[512];
  snprintf(text, sizeof text, problem_text, "in-memory");
  code = ts_problem_read_memory("memory.xml", text, strlen(text), 0, NULL, &q);
  ok(code == 0 && q && !strcmp(ts_problem_name(q), "in-memory") && !strcmp(q->source, "memory.xml"),
     "ts_problem_read_memory reads a problem from its bytes");
  ts_problem_destroy(&q);
  ok(ts_problem_read_memory("m.xml", NULL, 10, 0, NULL, &q) == TS_ERR_ARG && q == NULL &&
         ts_problem_read_memory("", text, 1, 0, NULL, &q) == TS_ERR_ARG &&
         /* the size is checked before a byte is read */
         ts_problem_read_memory("m.xml", text, TS_PROBLEM_MAX_BYTES + 1, 0, NULL, &q) ==
             TS_ERR_INPUT,
     "ts_problem_read_memory refuses NULL bytes, an empty name and too many bytes");

  /* ------------------------------------------------------------ the box's extents */
  const double zero[2] = {0, 0}, tiny[2] = {1e-320, 1}, edges[2] = {1e-60, 1e60};
  const double far_low[2] = {-1e308, 0}, far_high[2] = {1e308, 1};
  const int cells[2] = {1024, 1};
  ts_mesh mesh = NULL, edge_mesh = NULL;
  int tiny_code = ts_mesh_create_box(2, zero, tiny, cells, 30, &mesh);
  int far_code = ts_mesh_create_box(2, far_low, far_high, cells, 0, &mesh);
  int edge_code = ts_mesh_create_box(2, zero, edges, cells, 30, &edge_mesh);
  double h[2] = {0, 0};
  if (edge_mesh) ts_mesh_cell_size(edge_mesh, 30, h);
  ok(tiny_code == TS_ERR_ARG && far_code == TS_ERR_ARG && mesh == NULL && edge_code == 0 &&
         h[0] > 0 && isfinite(1 / h[0]) && isfinite(h[1] / h[0]),
     "ts_mesh_create_box takes extents from 1e-60 to 1e60: h, 1/h and h_y/h_x finite");
  ts_mesh_destroy(&edge_mesh);

  /* ------------------------------------------------------------ local files, limits */
  test_local_files();
  test_attribute_bomb();
  if (strcmp(work_dir, ".")) rmdir(work_dir);

  /* ------------------------------------------------------------ schema defaults */
  ok(n_defaults >= 10, "the schema has %d default values", n_defaults);
  test_schema_defaults(defaults, n_defaults);
  return exit_status();
}
