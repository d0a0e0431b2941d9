/* wrong-stokes-backend.c -- a backend module "wrong_stokes" for t-cli-check.sh: the omp
 * backend (loaded from the build tree) with one deliberate bug in its Stokes operator
 * kernel: the entry in the middle of y = Acal x is 0.1% off (and 1e-3 added, so that a zero
 * entry is wrong too).  Every other kernel is omp's own, so `tessera check` must report
 * FAIL for the Stokes operator (and what uses it) and PASS for the transfers. */
#include <dlfcn.h>
#include <stdio.h>
#include "tessera/backend.h"

#ifndef WRONG_STOKES_OMP_MODULE
#error "define WRONG_STOKES_OMP_MODULE as the path of the omp backend module"
#endif

static void *omp_module;
static int (*omp_stokes_apply)(ts_backend_ops *, const ts_stokes_plan *, ts_precision,
                               const void *, void *, int);
static int (*omp_finalize)(ts_backend_ops *);

static int wrong_stokes_apply(ts_backend_ops *ops, const ts_stokes_plan *plan, ts_precision p,
                              const void *x, void *y, int add) {
  const int ierr = omp_stokes_apply(ops, plan, p, x, y, add);
  if (ierr) return ierr;
  const int64_t mid = plan->n_dofs / 2; /* omp vectors live in host memory */
  if (p == TS_DOUBLE) ((double *)y)[mid] = 1.001 * ((double *)y)[mid] + 1e-3;
  else ((float *)y)[mid] = 1.001f * ((float *)y)[mid] + 1e-3f;
  return 0;
}

static int wrong_finalize(ts_backend_ops *ops) {
  const int ierr = omp_finalize ? omp_finalize(ops) : 0;
  if (omp_module) dlclose(omp_module);
  omp_module = NULL;
  return ierr;
}

TS_BACKEND_DEFINE_ABI;

int tessera_backend_register(ts_backend_ops *ops);
int tessera_backend_register(ts_backend_ops *ops) {
  union {
    void *object;
    ts_backend_register_fn fn;
  } sym;
  omp_module = dlopen(WRONG_STOKES_OMP_MODULE, RTLD_NOW | RTLD_LOCAL);
  if (!omp_module) {
    fprintf(stderr, "wrong_stokes: cannot load %s: %s\n", WRONG_STOKES_OMP_MODULE, dlerror());
    return 1;
  }
  sym.object = dlsym(omp_module, TS_BACKEND_REGISTER_SYMBOL);
  if (!sym.object || sym.fn(ops)) return 1;
  ops->name = "wrong_stokes";
  omp_stokes_apply = ops->stokes_apply;
  omp_finalize = ops->finalize;
  ops->stokes_apply = wrong_stokes_apply;
  ops->finalize = wrong_finalize;
  return 0;
}
