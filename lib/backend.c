/* backend.c -- the backend registry: finds a backend module by name (search order below and
 * in doc/backends.md), loads it with dlopen, reads the ABI it exports before calling into
 * it, registers it, checks that its table has every member the library calls without
 * asking, and starts it.  No fallback between backends. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tessera-impl.h"

#ifndef TS_BACKEND_INSTALL_DIR
#define TS_BACKEND_INSTALL_DIR ""
#endif

#define TS_MAX_SEARCH_DIRS 16

typedef struct search_path {
  int n;
  char dirs[TS_MAX_SEARCH_DIRS][1200];
} search_path;

static void search_path_add(search_path *s, const char *dir, const char *suffix) {
  char entry[sizeof s->dirs[0]];
  if (!dir || !*dir || s->n >= TS_MAX_SEARCH_DIRS) return;
  snprintf(entry, sizeof entry, "%s%s", dir, suffix ? suffix : "");
  for (int i = 0; i < s->n; ++i)
    if (!strcmp(s->dirs[i], entry)) return;
  memcpy(s->dirs[s->n++], entry, sizeof entry);
}

/* The folder libtessera.so was loaded from ("" if the loader cannot say): the object that
 * holds this (static, so never an executable's PLT entry) function. */
static void library_dir(char *dir, size_t len) {
  Dl_info info;
  dir[0] = 0;
  if (!dladdr((void *)library_dir, &info) || !info.dli_fname) return;
  /* the canonical path: a run path $ORIGIN/../lib gives PREFIX/bin/../lib */
  char *resolved = realpath(info.dli_fname, NULL);
  snprintf(dir, len, "%s", resolved ? resolved : info.dli_fname);
  free(resolved);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, len, ".");
}

/* The build tree of an uninstalled library into root: libtool leaves that library in
 * BUILD/lib/.libs beside BUILD/lib/libtessera.la; an installed one never lies in .libs. */
static int uninstalled_build_root(const char *libdir, char *root, size_t len) {
  char la[1200], up[1200];
  const size_t n = strlen(libdir);
  if (n < 6 || strcmp(libdir + n - 6, "/.libs")) return 0;
  snprintf(la, sizeof la, "%s/../libtessera.la", libdir);
  snprintf(up, sizeof up, "%s/../..", libdir);
  char *resolved = realpath(up, NULL);
  if (access(la, F_OK) || !resolved) {
    free(resolved);
    return 0;
  }
  snprintf(root, len, "%s", resolved);
  free(resolved);
  return 1;
}

/* BUILD/backends/NAME/.libs, where libtool leaves the uninstalled modules; every NAME when
 * name is NULL (for the list of backends). */
static void add_build_tree(search_path *s, const char *root, const char *name) {
  char dir[1040], suffix[128];
  snprintf(dir, sizeof dir, "%s/backends", root);
  if (name) {
    snprintf(suffix, sizeof suffix, "/%s/.libs", name);
    search_path_add(s, dir, suffix);
    return;
  }
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || strlen(e->d_name) > 64) continue;
    snprintf(suffix, sizeof suffix, "/%s/.libs", e->d_name);
    search_path_add(s, dir, suffix);
  }
  closedir(d);
}

/* The folders to search for tessera_NAME.so (every backend's folders if name is NULL):
 *   1. $TESSERA_BACKEND_PATH (colon separated);
 *   2. the uninstalled library of a build tree: BUILD/backends/NAME/.libs, nothing else;
 *      an installed library: LIBDIR/tessera beside it (LIBDIR the folder it was loaded
 *      from, so that a copy under another prefix or DESTDIR finds its own modules), then
 *      the configured install folder $(pkglibdir) if different (a static link). */
static void search_path_init(search_path *s, const char *name) {
  char libdir[1024], root[1024];
  s->n = 0;
  const char *env = getenv("TESSERA_BACKEND_PATH");
  if (env) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", env);
    for (char *save = NULL, *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
      search_path_add(s, tok, NULL);
  }
  library_dir(libdir, sizeof libdir);
  if (uninstalled_build_root(libdir, root, sizeof root)) {
    add_build_tree(s, root, name);
    return;
  }
  search_path_add(s, libdir, "/tessera");
  search_path_add(s, TS_BACKEND_INSTALL_DIR, NULL);
}

static int valid_backend_name(const char *name) {
  if (!name || !*name || strlen(name) > 32) return 0;
  for (const char *c = name; *c; ++c)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
  return 1;
}

/* Append name to the space-separated list unless it is there already. */
static void list_add(char *list, size_t len, const char *name) {
  char padded[80], haystack[4200];
  snprintf(padded, sizeof padded, " %s ", name);
  snprintf(haystack, sizeof haystack, " %s ", list);
  if (strstr(haystack, padded)) return;
  size_t used = strlen(list);
  snprintf(list + used, len - used, "%s%s", used ? " " : "", name);
}

static void scan_dir(const char *dir, char *list, size_t len) {
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l > 11 && strncmp(e->d_name, "tessera_", 8) == 0 && strcmp(e->d_name + l - 3, ".so") == 0) {
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)(l - 11), e->d_name + 8);
      list_add(list, len, name);
    }
  }
  closedir(d);
}

/* The names of the modules in the search path, separated by spaces. */
static void list_backends(char *list, size_t len) {
  search_path s;
  search_path_init(&s, NULL);
  list[0] = 0;
  for (int i = 0; i < s.n; ++i) scan_dir(s.dirs[i], list, len);
}

/* What to do about a backend that was not found: how to build it, or which exist. */
static void not_found_hint(const char *name, char *hint, size_t len) {
  char found[4096];
  if (!strcmp(name, "cuda") || !strcmp(name, "hip")) {
    snprintf(hint, len, "configure with --with-%s and rebuild, or set TESSERA_BACKEND_PATH to "
             "the folder holding tessera_%s.so", name, name);
  } else if (!strcmp(name, "omp")) {
    snprintf(hint, len, "the omp backend is built and installed with the library: set "
             "TESSERA_BACKEND_PATH to the folder holding tessera_omp.so");
  } else {
    list_backends(found, sizeof found);
    snprintf(hint, len, "the known backends are omp, cuda and hip; found here: %s (a backend "
             "of your own: set TESSERA_BACKEND_PATH to the folder holding tessera_%s.so)",
             *found ? found : "none", name);
  }
}

static int load_module(ts_backend b, const char *name) {
  char tried[4096] = "", hint[4600];
  search_path s;
  search_path_init(&s, name);
  for (int i = 0; i < s.n; ++i) {
    char path[sizeof b->path];
    snprintf(path, sizeof path, "%s/tessera_%s.so", s.dirs[i], name);
    size_t used = strlen(tried);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h) {
      b->module = h;
      char *resolved = realpath(path, NULL);
      snprintf(b->path, sizeof b->path, "%s", resolved ? resolved : path);
      free(resolved);
      return 0;
    }
    const char *why = dlerror();
    if (!access(path, F_OK)) /* the file is there but does not load: that is the error */
      return TS_ERROR(TS_ERR_BACKEND, "backend '%s': %s exists but cannot be loaded: %s", name,
                      path, why ? why : "unknown dlopen error");
    snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", path);
  }
  not_found_hint(name, hint, sizeof hint);
  return TS_ERROR(TS_ERR_BACKEND, "backend '%s' is not built or not found (searched %s); %s",
                  name, *tried ? tried : "nowhere", hint);
}

/* The ABI a module declares (its exported constant, or its table after registration)
 * against the library's. */
static int check_abi(ts_backend b, const char *what, int version, size_t ops_size) {
  if (version == TS_BACKEND_ABI_VERSION && ops_size == sizeof(ts_backend_ops)) return 0;
  return TS_ERROR(TS_ERR_BACKEND,
                  "backend '%s' (%s): %s backend ABI %d (table of %zu bytes) but this library "
                  "has ABI %d (%zu bytes): rebuild the backend",
                  b->name, b->path, what, version, ops_size, TS_BACKEND_ABI_VERSION,
                  sizeof(ts_backend_ops));
}

/* The members the library calls without asking (doc/backends.md): memory and vectors. */
static int check_required_members(ts_backend b) {
#define TS_MEMBER(m) {#m, b->ops.m != NULL}
  const struct {
    const char *name;
    int present;
  } members[] = {TS_MEMBER(mem_alloc),     TS_MEMBER(mem_free),     TS_MEMBER(mem_available),
                 TS_MEMBER(vec_from_host), TS_MEMBER(vec_to_host),  TS_MEMBER(vec_set),
                 TS_MEMBER(vec_random),    TS_MEMBER(vec_convert),  TS_MEMBER(vec_axpby),
                 TS_MEMBER(vec_pointwise_mult), TS_MEMBER(vec_dot)};
#undef TS_MEMBER
  char missing[512] = "";
  for (size_t i = 0; i < sizeof members / sizeof members[0]; ++i) {
    const size_t used = strlen(missing);
    if (!members[i].present)
      snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "", members[i].name);
  }
  if (!*missing) return 0;
  return TS_ERROR(TS_ERR_BACKEND,
                  "backend '%s' (%s) lacks the required members %s: every backend provides "
                  "the memory and vector operations (doc/backends.md)",
                  b->name, b->path, missing);
}

/* Check the exported ABI, then register, then check the table. */
static int register_module(ts_backend b) {
  union {
    void *object;
    ts_backend_register_fn fn;
  } sym;
  const ts_backend_abi *abi = dlsym(b->module, TS_BACKEND_ABI_SYMBOL);
  if (!abi)
    return TS_ERROR(TS_ERR_BACKEND,
                    "backend '%s' (%s) exports no %s: it was built for a backend ABI before 4 "
                    "but this library has ABI %d: rebuild the backend",
                    b->name, b->path, TS_BACKEND_ABI_SYMBOL, TS_BACKEND_ABI_VERSION);
  TS_CALL(check_abi(b, "the module exports", abi->version, abi->ops_size));
  sym.object = dlsym(b->module, TS_BACKEND_REGISTER_SYMBOL);
  if (!sym.object)
    return TS_ERROR(TS_ERR_BACKEND, "backend '%s' (%s): module has no symbol %s", b->name,
                    b->path, TS_BACKEND_REGISTER_SYMBOL);
  memset(&b->ops, 0, sizeof b->ops);
  if (sym.fn(&b->ops))
    return TS_ERROR(TS_ERR_BACKEND, "backend '%s' (%s): registration failed", b->name, b->path);
  TS_CALL(check_abi(b, "the registered table has", b->ops.abi_version, b->ops.struct_size));
  TS_CALL(check_required_members(b));
  b->ops.error = b->error;
  return 0;
}

int ts_backend_open(const char *name, ts_backend *backend) {
  static atomic_int instances;
  TS_CHECK_NOT_NULL(backend);
  *backend = NULL;
  TS_CHECK_ARG(valid_backend_name(name),
               "backend name '%s' is not valid: use lower-case letters, digits and '_' "
               "(built-in names: omp, cuda, hip)",
               name ? name : "(null)");
  ts_backend b;
  TS_CALL(ts_calloc(1, sizeof *b, "backend", &b));
  snprintf(b->name, sizeof b->name, "%s", name);
  snprintf(b->label, sizeof b->label, "'%s' #%d", name, atomic_fetch_add(&instances, 1) + 1);
  int ierr = load_module(b, name);
  if (!ierr) ierr = register_module(b);
  if (!ierr && b->ops.init && b->ops.init(&b->ops))
    ierr = TS_ERROR(TS_ERR_BACKEND, "backend '%s' failed to start: %s", name,
                    b->error[0] ? b->error : "no reason given");
  if (!ierr && b->ops.describe) b->ops.describe(&b->ops, b->description, sizeof b->description);
  if (ierr) {
    if (b->module) dlclose(b->module);
    ts_free(&b);
    return ierr;
  }
  *backend = b;
  return 0;
}

int ts_backend_destroy(ts_backend *backend) {
  if (!backend || !*backend) return 0;
  ts_backend b = *backend;
  if (b->ops.finalize) b->ops.finalize(&b->ops);
  if (b->module) dlclose(b->module);
  ts_free(backend);
  return 0;
}

const char *ts_backend_name(ts_backend backend) {
  TS_GETTER_NOT_NULL(backend, "");
  return backend->name;
}

const char *ts_backend_description(ts_backend backend) {
  TS_GETTER_NOT_NULL(backend, "");
  return backend->description;
}

const char *ts_backend_path(ts_backend backend) {
  TS_GETTER_NOT_NULL(backend, "");
  return backend->path;
}

int ts_backend_memory_available(ts_backend b, size_t *bytes) {
  TS_CHECK_NOT_NULL(b);
  TS_CHECK_NOT_NULL(bytes);
  TS_BACKEND_CALL(b, mem_available, bytes);
  return 0;
}

int ts_backend_measure_ceilings(ts_backend b, double *copy_bytes_per_second,
                                double *fp64_flops_per_second, double *fp32_flops_per_second) {
  ts_backend_ceilings c = {0.0, 0.0, 0.0};
  TS_CHECK_NOT_NULL(b);
  TS_BACKEND_CALL(b, measure_ceilings, &c);
  if (copy_bytes_per_second) *copy_bytes_per_second = c.copy_bytes_per_second;
  if (fp64_flops_per_second) *fp64_flops_per_second = c.fp64_flops_per_second;
  if (fp32_flops_per_second) *fp32_flops_per_second = c.fp32_flops_per_second;
  return 0;
}

int ts_backend_error(ts_backend b, int code, const char *kernel, const char *file, int line) {
  return ts_error_set(code, file, line, "backend '%s', %s: %s", b->name, kernel,
                      b->error[0] ? b->error : ts_error_name(code));
}

int ts_backend_list(char **names) {
  char list[4096];
  TS_CHECK_NOT_NULL(names);
  list_backends(list, sizeof list);
  *names = strdup(list);
  if (!*names) return TS_ERROR(TS_ERR_MEMORY, "backend list: out of memory");
  return 0;
}
