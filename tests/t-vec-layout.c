/* t-vec-layout.c -- vector layouts (lib/vec-layout.c): a serial layout's global size, owned
 * range and process count; the layout every vector carries, of a view (ts_vec_create_view
 * and the views on the stack of composite operators, ts_vec_view_init) that of its own
 * entries; who frees what; a negative size refused.  Runs on the backend of tap_backend(). */
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "tessera-impl.h"

/* "global [begin, end) on processes" of a layout, for the messages and comparisons */
static const char *describe(ts_layout l) {
  static char text[96];
  snprintf(text, sizeof text, "%lld [%lld, %lld) on %d", (long long)ts_layout_global_size(l),
           (long long)ts_layout_begin(l), (long long)ts_layout_end(l), ts_layout_processes(l));
  return text;
}

static void standalone(void) {
  ts_layout l = NULL;
  int ierr = ts_layout_create_serial(10, &l);
  ok(!ierr && !strcmp(describe(l), "10 [0, 10) on 1"), "serial layout of 10: %s", describe(l));
  ierr = ts_layout_destroy(&l);
  ok(!ierr && !l && !ts_layout_destroy(&l) && !ts_layout_destroy(NULL),
     "destroy frees it and sets the handle NULL; NULL is allowed");
  ierr = ts_layout_create_serial(0, &l);
  ok(!ierr && !strcmp(describe(l), "0 [0, 0) on 1"), "serial layout of 0: %s", describe(l));
  ts_layout_destroy(&l);
  l = (ts_layout)&l;
  ierr = ts_layout_create_serial(-3, &l);
  ok(ierr == TS_ERR_ARG && !l && strstr(ts_error_message(), "n = -3, allowed n >= 0"),
     "a negative size is refused: %s", ts_error_message());
}

static void of_vectors(ts_backend be) {
  ts_vec x = NULL, v = NULL, w = NULL;
  ts_vec_create(be, 12, TS_DOUBLE, &x);
  ts_layout l = ts_vec_layout(x);
  ok(l && l == ts_vec_layout(x) && !strcmp(describe(l), "12 [0, 12) on 1"),
     "a vector of 12 entries: %s", describe(l));
  ts_vec_create_view(x, 3, 5, &v);
  ts_vec_create_view(v, 1, 2, &w);
  ok(!strcmp(describe(ts_vec_layout(v)), "5 [0, 5) on 1") &&
         !strcmp(describe(ts_vec_layout(w)), "2 [0, 2) on 1"),
     "a view of 5 and a view of 2 of it: the layouts of their own entries (%s)",
     describe(ts_vec_layout(w)));
  struct ts_vec_s tail;
  ts_vec_view_init(&tail, x, 8, 4);
  ok(!strcmp(describe(ts_vec_layout(&tail)), "4 [0, 4) on 1"),
     "a view on the stack (ts_vec_view_init) has one too: %s", describe(ts_vec_layout(&tail)));
  int ierr = ts_layout_destroy(&l);
  ok(ierr == TS_ERR_ARG && l == ts_vec_layout(x) && strstr(ts_error_message(), "belongs to a "
     "vector") && ts_layout_end(l) == 12,
     "a vector's layout is the vector's, not destroyed by the caller: %s", ts_error_message());
  ts_vec_destroy(&w);
  ts_vec_destroy(&v);
  ts_vec_destroy(&x);
}

int main(void) {
  ts_backend be;
  plan(8);
  if (ts_backend_open(tap_backend(), &be)) {
    diag("%s", ts_error_message());
    return 1;
  }
  standalone();
  of_vectors(be);
  ts_backend_destroy(&be);
  return exit_status();
}
