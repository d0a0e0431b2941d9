/* expression.c -- expressions of the point x = (x, y, z) for problem files and C programs
 * (ts_expression_create), evaluated in batches as a ts_point_fn.  The parsing and the
 * bytecode are muparser's (Debian's libmuparser, its C interface muParserDLL.h: a
 * maintained parser with the usual functions and operators, doc/design.md says why).
 *
 * A muparser handle is not safe to evaluate from two threads at once (its variables are
 * addresses it reads), and Tessera calls point functions from several OpenMP threads:
 * the expression keeps one parser per host thread (slots, each with its own variables and
 * a lock, so that a thread beyond the slots made at creation waits instead of racing). */
#include <math.h>
#include <muParserDLL.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "../tessera-impl.h"

#define EXPRESSION_MAX_BYTES 4096
#define EXPRESSION_MAX_COMPONENTS 9

typedef struct slot {
  muParserHandle_t parser;
  double x[3];                  /* the variables x, y, z the parser reads */
  omp_lock_t lock;
} slot;

struct ts_expression_s {
  int dim, components;
  int n_slots;
  slot *slots;
  char *text;
};

static const char *const variable_names[3] = {"x", "y", "z"};

/* A parser of text with the variables of dim bound to s->x and the constant pi. */
static void slot_init(slot *s, const char *text, int dim) {
  s->parser = mupCreate(muBASETYPE_FLOAT);
  for (int d = 0; d < dim; ++d) mupDefineVar(s->parser, variable_names[d], &s->x[d]);
  mupDefineConst(s->parser, "pi", 3.14159265358979323846);
  mupSetExpr(s->parser, text);
  omp_init_lock(&s->lock);
}

static void slot_free(slot *s) {
  if (!s->parser) return;
  mupRelease(s->parser);
  omp_destroy_lock(&s->lock);
}

static void expression_free(struct ts_expression_s *e) {
  if (!e) return;
  for (int i = 0; e->slots && i < e->n_slots; ++i) slot_free(&e->slots[i]);
  free(e->slots);
  free(e->text);
  free(e);
}

/* The variables a dim-dimensional expression may use, for messages: "x, y". */
static void variables_text(int dim, char *out, size_t cap) {
  out[0] = 0;
  for (int d = 0; d < dim; ++d)
    snprintf(out + strlen(out), cap - strlen(out), "%s%s", d ? ", " : "", variable_names[d]);
}

/* Parse by evaluating once (muparser parses on the first evaluation) at x = 0; a syntax
 * error, an unknown name or a wrong number of comma-separated values is an error naming the
 * column (1-based) where muparser stopped. */
static int check_parse(struct ts_expression_s *e) {
  slot *s = &e->slots[0];
  int n = 0;
  mupEvalMulti(s->parser, &n);
  char allowed[64];
  variables_text(e->dim, allowed, sizeof allowed);
  if (mupError(s->parser)) {
    const int column = (int)mupGetErrorPos(s->parser) + 1;
    char message[512];
    snprintf(message, sizeof message, "%s", mupGetErrorMsg(s->parser));
    return TS_ERROR(TS_ERR_ARG,
                    "ts_expression_create: the expression \"%s\" does not parse: %s (column %d); "
                    "allowed: muparser's syntax with the variables %s and the constant pi "
                    "(doc/user-guide.md, \"Expressions\")",
                    e->text, message, column, allowed);
  }
  if (n != e->components)
    return TS_ERROR(TS_ERR_ARG,
                    "ts_expression_create: the expression \"%s\" gives %d value%s; %d %s needed "
                    "(comma-separated, e.g. \"%s\")",
                    e->text, n, n == 1 ? "" : "s", e->components,
                    e->components == 1 ? "is" : "are", e->components == 1 ? "x + y" : "x, y");
  return 0;
}

int ts_expression_create(const char *text, int dim, int components, ts_expression *expression) {
  TS_CHECK_NOT_NULL(expression);
  *expression = NULL;
  TS_CHECK_NOT_NULL(text);
  const size_t len = strlen(text);
  TS_CHECK_ARG(len > 0, "ts_expression_create: text is empty (allowed: an expression such as "
               "\"sin(pi*x)\")");
  TS_CHECK_ARG(len <= EXPRESSION_MAX_BYTES, "ts_expression_create: text takes %zu bytes; at "
               "most %d are allowed", len, EXPRESSION_MAX_BYTES);
  TS_CHECK_ARG(dim >= 1 && dim <= 3, "ts_expression_create: dim = %d, allowed 1..3", dim);
  TS_CHECK_ARG(components >= 1 && components <= EXPRESSION_MAX_COMPONENTS,
               "ts_expression_create: components = %d, allowed 1..%d", components,
               EXPRESSION_MAX_COMPONENTS);
  struct ts_expression_s *e = NULL;
  TS_CALL(ts_calloc(1, sizeof *e, "expression", &e));
  e->dim = dim;
  e->components = components;
  e->n_slots = omp_get_max_threads();
  int ierr = ts_calloc((size_t)e->n_slots, sizeof *e->slots, "expression parsers", &e->slots);
  if (!ierr) ierr = ts_calloc(len + 1, 1, "expression text", &e->text);
  if (ierr) {
    expression_free(e);
    return ierr;
  }
  memcpy(e->text, text, len + 1);
  slot_init(&e->slots[0], text, dim);
  ierr = check_parse(e);
  for (int i = 1; !ierr && i < e->n_slots; ++i) slot_init(&e->slots[i], text, dim);
  if (ierr) {
    expression_free(e);
    return ierr;
  }
  *expression = e;
  return 0;
}

/* A ts_point_fn: ctx is the expression.  Returns 0, TS_ERR_ARG for a dim other than the
 * expression's, or TS_ERR_INPUT if muparser reports an error while evaluating. */
int ts_expression_evaluate(void *ctx, int dim, int64_t count, const double *x, double *values) {
  const struct ts_expression_s *e = ctx;
  if (!e || !x || !values || count < 0 || dim != e->dim) return TS_ERR_ARG;
  slot *s = &e->slots[omp_get_thread_num() % e->n_slots];
  int failed = 0;
  omp_set_lock(&s->lock);
  for (int64_t i = 0; i < count && !failed; ++i) {
    for (int d = 0; d < dim; ++d) s->x[d] = x[i * dim + d];
    int n = 0;
    const double *v = mupEvalMulti(s->parser, &n);
    failed = mupError(s->parser) || n != e->components;
    for (int c = 0; c < e->components && !failed; ++c) values[i * e->components + c] = v[c];
  }
  if (failed) mupErrorReset(s->parser);
  omp_unset_lock(&s->lock);
  return failed ? TS_ERR_INPUT : 0;
}

const char *ts_expression_text(ts_expression expression) {
  return expression ? expression->text : NULL;
}

void ts_expression_destroy(ts_expression *expression) {
  if (!expression) return;
  expression_free(*expression);
  *expression = NULL;
}
