/* csr.c -- the omp backend's CSR sparse matrix-vector product y = A x (y += A x): one row per
 * loop iteration, rows split statically over the threads (omp-threads.h), each row's sum
 * accumulated in the matrix precision in column order (the same result on any number of
 * threads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp-csr.h"
#include "omp-threads.h"

typedef struct omp_csr {
  ts_precision precision;
  int64_t rows;
  int64_t *row_offsets;         /* rows + 1 */
  int64_t *columns;             /* nonzeros */
  void *values;                 /* nonzeros doubles or floats */
} omp_csr;

void ts_omp_csr_destroy(void *handle) {
  omp_csr *a = handle;
  if (!a) return;
  free(a->row_offsets);
  free(a->columns);
  free(a->values);
  free(a);
}

static void copy_values(const ts_csr_plan *plan, ts_precision p, void *values) {
  if (p == TS_SINGLE)
    for (int64_t e = 0; e < plan->nonzeros; ++e) ((float *)values)[e] = (float)plan->values[e];
  else
    memcpy(values, plan->values, (size_t)plan->nonzeros * sizeof(double));
}

int ts_omp_csr_create(const ts_csr_plan *plan, ts_precision p, void **handle, char *err,
                      size_t errlen) {
  *handle = NULL;
  if (p != TS_DOUBLE && p != TS_SINGLE) {
    snprintf(err, errlen, "omp csr_create: precision %d is not TS_DOUBLE (0) or TS_SINGLE (1)",
             (int)p);
    return TS_ERR_ARG;
  }
  omp_csr *a = calloc(1, sizeof *a);
  const size_t entries = plan->nonzeros ? (size_t)plan->nonzeros : 1;
  if (a) {
    a->precision = p;
    a->rows = plan->rows;
    a->row_offsets = malloc(((size_t)plan->rows + 1) * sizeof *a->row_offsets);
    a->columns = malloc(entries * sizeof *a->columns);
    a->values = malloc(entries * (p == TS_SINGLE ? sizeof(float) : sizeof(double)));
  }
  if (!a || !a->row_offsets || !a->columns || !a->values) {
    ts_omp_csr_destroy(a);
    snprintf(err, errlen, "omp csr_create: could not allocate the copy of a %lld x %lld matrix "
             "with %lld entries", (long long)plan->rows, (long long)plan->cols,
             (long long)plan->nonzeros);
    return TS_ERR_MEMORY;
  }
  memcpy(a->row_offsets, plan->row_offsets, ((size_t)plan->rows + 1) * sizeof *a->row_offsets);
  memcpy(a->columns, plan->columns, (size_t)plan->nonzeros * sizeof *a->columns);
  copy_values(plan, p, a->values);
  *handle = a;
  return 0;
}

/* the product in precision R */
#define OMP_CSR_SPMV(R)                                                                     \
  static void csr_spmv_##R(const omp_csr *a, const R *values, const R *x, R *y, int add) {  \
    _Pragma("omp parallel for schedule(static) num_threads(omp_operator_threads(a->rows))") \
    for (int64_t i = 0; i < a->rows; ++i) {                                                 \
      R sum = 0;                                                                            \
      for (int64_t e = a->row_offsets[i]; e < a->row_offsets[i + 1]; ++e)                  \
        sum += values[e] * x[a->columns[e]];                                                \
      y[i] = add ? y[i] + sum : sum;                                                        \
    }                                                                                       \
  }
OMP_CSR_SPMV(double)
OMP_CSR_SPMV(float)

int ts_omp_csr_apply(const void *handle, const void *x, void *y, int add) {
  const omp_csr *a = handle;
  if (a->precision == TS_SINGLE)
    csr_spmv_float(a, a->values, x, y, add);
  else
    csr_spmv_double(a, a->values, x, y, add);
  return 0;
}
