/* vec-layout.c -- ts_layout: which entries of a vector this process owns.  Every vector
 * carries one (struct ts_vec_s); today all are serial (doc/design.md, "Vector layouts"). */
#include "tessera-impl.h"

void ts_layout_serial_init(struct ts_layout_s *l, int64_t n) {
  *l = (struct ts_layout_s){.global_size = n, .begin = 0, .end = n, .processes = 1};
}

int ts_layout_create_serial(int64_t n, ts_layout *l) {
  TS_CHECK_NOT_NULL(l);
  *l = NULL;
  TS_CHECK_ARG(n >= 0, "%s: n = %lld, allowed n >= 0", __func__, (long long)n);
  ts_layout layout;
  TS_CALL(ts_calloc(1, sizeof *layout, "layout", &layout));
  ts_layout_serial_init(layout, n);
  layout->standalone = 1;
  *l = layout;
  return 0;
}

int ts_layout_destroy(ts_layout *l) {
  if (!l || !*l) return 0;
  TS_CHECK_ARG((*l)->standalone, "%s: the layout belongs to a vector (ts_vec_layout returns it "
               "borrowed; it is freed with the vector)", __func__);
  ts_free(l);
  return 0;
}

int64_t ts_layout_global_size(ts_layout l) {
  TS_GETTER_NOT_NULL(l, -1);
  return l->global_size;
}

int64_t ts_layout_begin(ts_layout l) {
  TS_GETTER_NOT_NULL(l, -1);
  return l->begin;
}

int64_t ts_layout_end(ts_layout l) {
  TS_GETTER_NOT_NULL(l, -1);
  return l->end;
}

int ts_layout_processes(ts_layout l) {
  TS_GETTER_NOT_NULL(l, -1);
  return l->processes;
}

ts_layout ts_vec_layout(ts_vec v) {
  TS_GETTER_NOT_NULL(v, NULL);
  return &v->layout;
}
