/* t-backend.c -- the backend loader: omp starts, describes itself and says which file it
 * came from; the uninstalled library finds omp in its build tree without
 * TESSERA_BACKEND_PATH; unknown, invalid, wrong-ABI (never registered), incomplete and
 * failing backends give errors that say which backend, which file and why; the not-found
 * message suggests the right configure option; vector operations check their arguments and
 * name both backend instances when vectors of two instances meet; kernels a backend lacks
 * are named. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "tessera-impl.h"

/* The error of opening backend `name` (which must fail with TS_ERR_BACKEND). */
static const char *open_error(const char *name) {
  ts_backend c = NULL;
  const int ierr = ts_backend_open(name, &c);
  if (ierr != TS_ERR_BACKEND || c) {
    ts_backend_destroy(&c);
    return "(opened, or a code other than TS_ERR_BACKEND)";
  }
  return ts_error_message();
}

/* A GPU backend that is not built: the message suggests its configure option only. */
static void gpu_not_found(const char *name, const char *option, const char *other_option) {
  const char *built = getenv("TESSERA_GPU_BACKENDS");
  if (built && strstr(built, name)) {
    skip(1, "the backend is built here");
    return;
  }
  const char *msg = open_error(name);
  ok(strstr(msg, option) && !strstr(msg, other_option), "%s not found suggests %s: %s", name,
     option, msg);
}

/* Without TESSERA_BACKEND_PATH the uninstalled library loads omp from its build tree. */
static void build_tree_lookup(void) {
  const char *builddir = getenv("TESSERA_BUILDDIR");
  char expected[PATH_MAX + 64] = "", *env = getenv("TESSERA_BACKEND_PATH");
  char *saved = env ? strdup(env) : NULL, *root = builddir ? realpath(builddir, NULL) : NULL;
  if (root) snprintf(expected, sizeof expected, "%s/backends/omp/.libs/tessera_omp.so", root);
  unsetenv("TESSERA_BACKEND_PATH");
  ts_backend b = NULL;
  const int ierr = ts_backend_open("omp", &b);
  ok(!ierr && root && !strcmp(ts_backend_path(b), expected),
     "without TESSERA_BACKEND_PATH the build tree's omp is loaded: %s (expected %s)",
     ierr ? ts_error_message() : ts_backend_path(b), expected);
  ts_backend_destroy(&b);
  if (saved) setenv("TESSERA_BACKEND_PATH", saved, 1);
  free(saved);
  free(root);
}

/* The two labels "'omp' #i" and "'omp' #j" that follow `after` in the last message differ. */
static int names_two_instances(const char *after, const char *between) {
  char format[128];
  int first = 0, second = 0;
  const char *m = strstr(ts_error_message(), after);
  snprintf(format, sizeof format, "%s'omp' #%%d%s'omp' #%%d", after, between);
  return m && sscanf(m, format, &first, &second) == 2 && first != second;
}

/* Vectors and an operator of two instances of omp: the errors name both instances. */
static void cross_backend_errors(ts_backend b, ts_vec x) {
  const double lower[2] = {0, 0}, upper[2] = {1, 1};
  const int cells[2] = {2, 2};
  ts_backend b2 = NULL;
  ts_vec x2 = NULL, u = NULL, v2 = NULL;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  ts_dofs dofs = NULL;
  ts_operator A = NULL;
  int ierr = ts_backend_open("omp", &b2);
  if (!ierr) ierr = ts_vec_create(b2, 1000, TS_DOUBLE, &x2);
  if (!ierr) ierr = ts_mesh_create_box(2, lower, upper, cells, 0, &mesh);
  if (!ierr) ierr = ts_fe_create_q(2, 1, &fe);
  if (!ierr) ierr = ts_dofs_create(mesh, fe, 0, &dofs);
  if (!ierr) ierr = ts_operator_create_laplace(b, dofs, TS_DOUBLE, &A);
  if (!ierr) ierr = ts_vec_create(b, 9, TS_DOUBLE, &u);
  if (!ierr) ierr = ts_vec_create(b2, 9, TS_DOUBLE, &v2);
  if (ierr) diag("setup: %s", ts_error_message());
  ok(!ierr && ts_vec_axpby(1.0, x, 1.0, x2) == TS_ERR_ARG && names_two_instances("instances, ", " and "),
     "vectors of two omp instances: both named, differently: %s", ts_error_message());
  ok(!ierr && ts_operator_apply(A, u, v2) == TS_ERR_ARG &&
         names_two_instances("lives on backend ", ", the operator on backend "),
     "an operator and a vector of two omp instances: both named, differently: %s",
     ts_error_message());
  ts_operator_destroy(&A);
  ts_vec_destroy(&u);
  ts_vec_destroy(&v2);
  ts_vec_destroy(&x2);
  ts_dofs_destroy(&dofs);
  ts_fe_destroy(&fe);
  ts_mesh_destroy(&mesh);
  ts_backend_destroy(&b2);
}

int main(void) {
  ts_backend b = NULL;
  plan(20);
  int ierr = ts_backend_open("omp", &b);
  ok(!ierr && b && strstr(ts_backend_description(b), "threads"), "omp starts: %s",
     ierr ? ts_error_message() : ts_backend_description(b));
  const char *path = ierr ? "" : ts_backend_path(b);
  const size_t len = strlen(path);
  ok(path[0] == '/' && len > 15 && !strcmp(path + len - 15, "/tessera_omp.so"),
     "omp says where it was loaded from: %s", path);
  build_tree_lookup();

  ts_backend c = NULL;
  ierr = ts_backend_open("nosuch", &c);
  ok(ierr == TS_ERR_BACKEND && !c && strstr(ts_error_message(), "'nosuch' is not built or not found") &&
         strstr(ts_error_message(), "tessera_nosuch.so"),
     "unknown backend: %s", ts_error_message());
  ierr = ts_backend_open("../etc", &c);
  ok(ierr == TS_ERR_ARG && strstr(ts_error_message(), "not valid"), "invalid name: %s",
     ts_error_message());
  gpu_not_found("cuda", "--with-cuda", "--with-hip");
  gpu_not_found("hip", "--with-hip", "--with-cuda");
  const char *msg = open_error("nosuch");
  ok(!strstr(msg, "--with-") && strstr(msg, "the known backends are omp, cuda and hip") &&
         strstr(msg, "found here: ") && strstr(strstr(msg, "found here: "), "omp"),
     "an unknown backend: the known and the available ones are listed: %s", msg);
  /* the bad-ABI module's register function aborts: reaching the next line means it never ran */
  msg = open_error("badabi");
  char future_abi[32], this_abi[32];
  snprintf(future_abi, sizeof future_abi, "ABI %d", TS_BACKEND_ABI_VERSION + 1000);
  snprintf(this_abi, sizeof this_abi, "ABI %d ", TS_BACKEND_ABI_VERSION);
  ok(strstr(msg, future_abi) && strstr(msg, "tessera_badabi.so") && strstr(msg, this_abi),
     "wrong ABI refused before registration, naming the file: %s", msg);
  msg = open_error("incomplete");
  ok(strstr(msg, "tessera_incomplete.so") && strstr(msg, "mem_free") && strstr(msg, "vec_set") &&
         !strstr(msg, "vec_dot"),
     "missing required members refused at load time, naming the file and the members: %s", msg);
  ierr = ts_backend_open("broken", &c);
  ok(ierr == TS_ERR_BACKEND && strstr(ts_error_message(), "failed to start: no device found"),
     "backend that cannot start: %s", ts_error_message());

  char *names = NULL;
  ierr = ts_backend_list(&names);
  ok(!ierr && strstr(names, "omp"), "backend list names omp: '%s'", names ? names : "");
  free(names);

  ts_vec x = NULL, y = NULL, s = NULL;
  ts_vec_create(b, 1000, TS_DOUBLE, &x);
  ts_vec_create(b, 999, TS_DOUBLE, &y);
  ts_vec_create(b, 1000, TS_SINGLE, &s);
  ok(ts_vec_axpby(1.0, x, 1.0, y) == TS_ERR_ARG && strstr(ts_error_message(), "1000 and 999"),
     "size mismatch named: %s", ts_error_message());
  ok(ts_vec_axpby(1.0, x, 1.0, s) == TS_ERR_ARG && strstr(ts_error_message(), "double and single"),
     "precision mismatch named: %s", ts_error_message());
  ts_vec_set_random(x, 5);
  ts_vec_copy(x, s); /* converts */
  double hx[1000], hs[1000], err = 0.0, dot, sum = 0.0;
  ts_vec_get_to_host(x, hx);
  ts_vec_get_to_host(s, hs);
  for (int i = 0; i < 1000; ++i) {
    err = fmax(err, fabs(hx[i] - hs[i]));
    sum += hx[i] * hx[i];
  }
  ok(err < 1e-7 && err > 0.0, "double to single conversion rounds (%.1e)", err);
  ts_vec_dot(x, x, &dot);
  ok(fabs(dot - sum) < 1e-12 * sum, "dot product %.15g vs %.15g", dot, sum);
  int in_range = 1;
  for (int i = 0; i < 1000; ++i) in_range &= hx[i] >= -1.0 && hx[i] <= 1.0;
  ok(in_range && fabs(sum / 1000 - 1.0 / 3.0) < 0.05, "random entries in [-1,1], mean square %.3f", sum / 1000);
  cross_backend_errors(b, x);
  ts_vec z = x;
  ok(ts_vec_create(b, -1, TS_DOUBLE, &z) == TS_ERR_ARG && !z && strstr(ts_error_message(), "-1"),
     "negative size rejected: %s", ts_error_message());
  ts_vec_destroy(&x);
  ts_vec_destroy(&y);
  ts_vec_destroy(&s);
  ts_backend_destroy(&b);
  ts_backend_destroy(&b); /* destroying twice is harmless */
  return exit_status();
}
