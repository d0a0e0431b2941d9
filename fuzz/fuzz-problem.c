/* fuzz-problem.c -- the libFuzzer target for the XML problem reader (./configure
 * --enable-fuzz; run by fuzz/run-fuzz.sh): any bytes in.  Every outcome must be an input
 * error with a message naming the file and no problem, or a problem whose values are in
 * the documented ranges and whose mesh and finite element can be made.  Anything else
 * aborts, and libFuzzer saves the input; ASan and UBSan report crashes, leaks and undefined
 * behavior, libFuzzer's -timeout a hang. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "problem/equation.h"
#include "problem/problem-impl.h"

#define NAME "fuzz.xml"

static void fail(const char *what, int code) {
  fprintf(stderr, "fuzz-problem: %s (%s): %s\n", what, ts_error_name(code), ts_error_message());
  abort();
}

/* What fill_problem promises about a problem it returns: among others, a degree its
 * equation allows (RT_0 for Stokes, Darcy and grad-div; Q_1 and up for Poisson). */
static int in_range(ts_problem p) {
  if (!p->equation) return 0;
  const int lowest = p->equation->lowest_degree, highest = p->equation->highest_degree;
  int good = lowest >= 0 && highest <= TS_MAX_DEGREE && (p->dim == 2 || p->dim == 3) &&
             p->levels >= 0 && p->levels <= 30 && p->first_level >= 0 && p->first_level <= p->levels && p->degree >= lowest &&
             p->degree <= highest && p->rtol > 0 && p->rtol < 1 && p->max_iterations >= 1 &&
             p->restart >= 1 && (!p->stokes || p->penalty > 0) &&
             (!p->use_mg || (p->mg.coarse_level >= 0 && p->mg.coarse_level <= p->first_level));
  for (int d = 0; d < p->dim; d++)
    good = good && p->coarse[d] >= 1 && p->coarse[d] <= 1024 && p->upper[d] > p->lower[d];
  return good;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ts_problem p = NULL;
  int code = ts_problem_read_memory(NAME, (const char *)data, size, 0, NULL, &p);
  if (code) {
    if (p) fail("a failed read returned a problem", code);
    if (code != TS_ERR_INPUT) fail("a failed read is not TS_ERR_INPUT", code);
    if (!strstr(ts_error_message(), NAME)) fail("the message does not name the file", code);
    return 0;
  }
  if (!in_range(p)) fail("a value of the problem is out of range", 0);
  size_t bytes;
  code = ts_problem_memory_estimate(p, &bytes);
  if (code) fail("no memory estimate for a valid problem", code);
  ts_problem_settings settings;
  ts_mesh mesh = NULL;
  ts_fe fe = NULL;
  code = ts_problem_discretization(p, &settings, &mesh, &fe);
  if (code) fail("no mesh or element for a valid problem", code);
  ts_mesh_destroy(&mesh);
  ts_fe_destroy(&fe);
  ts_problem_destroy(&p);
  return 0;
}
