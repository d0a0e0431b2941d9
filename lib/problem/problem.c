/* problem.c -- the XML problem-file front end: read a local file whole, pre-scan its bytes
 * (size, compression, encoding, attributes per element, DOCTYPE), parse them with libxml2,
 * apply "PATH=VALUE" overrides to the DOM, validate it against the embedded schema
 * (tessera-problem.xsd, compiled in by embed-schema.sh), check what a schema cannot say
 * (list lengths against dim, the box's extents, level ranges, DoF count), and fill struct
 * ts_problem_s.  The equation's element (<poisson>, <stokes>) with <element family> chooses
 * the equation (the registry, equation.c), whose table says what the generic parts need
 * (degrees, solver defaults, where preconditioners fit, the DoF bound) and whose hooks
 * read its element and check what only it knows (reader.h lends them the values).
 *
 * Every error names the file and line (or the override a value came from), the element
 * and attribute, the value found and what is allowed.  Nothing is printed: libxml2's
 * messages are collected through structured error handlers into the recorded error. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlversion.h>

#include "equation.h"

/* libxml2 2.12 made the error passed to structured handlers const. */
#if LIBXML_VERSION >= 21200
#define TS_XML_ERROR const xmlError
#else
#define TS_XML_ERROR xmlError
#endif

#define ROOT_NAME "tessera-problem"
#define XS_NAMESPACE "http://www.w3.org/2001/XMLSchema"
/* Validation errors kept in one message (the rest are counted). */
#define MAX_ERRORS 6

/* ---------------------------------------------------------------- reader state */

/* One applied override: the element whose attribute it set, and the topmost element it
 * had to create (NULL if the path existed). */
typedef struct override {
  const char *text;             /* "mesh/levels=4" as given (borrowed) */
  xmlNodePtr element;
  char *attribute;
  xmlNodePtr created;
} override;

typedef struct reader {
  const char *path;
  xmlDocPtr doc;
  xmlNodePtr root;
  override *overrides;
  int n_overrides;
  xmlDocPtr schema_doc;         /* the schema as a DOM, parsed on demand for hints */
  char message[3200];           /* collected libxml2 errors, one per line */
  size_t used;
  int n_errors, n_dropped;
  char last_prefix[256];        /* "Element 'x', attribute 'y'" of the last error kept */
} reader;

static void reader_free(reader *r) {
  for (int i = 0; i < r->n_overrides; i++) free(r->overrides[i].attribute);
  free(r->overrides);
  if (r->schema_doc) xmlFreeDoc(r->schema_doc);
  if (r->doc) xmlFreeDoc(r->doc);
  memset(r, 0, sizeof *r);
}

/* Append one line to the collected message. */
static void collect(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void collect(reader *r, const char *fmt, ...) {
  if (r->used + 2 >= sizeof r->message) return;
  if (r->used) r->message[r->used++] = '\n';
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(r->message + r->used, sizeof r->message - r->used, fmt, args);
  va_end(args);
  if (n < 0) n = 0;
  r->used += (size_t)n < sizeof r->message - r->used ? (size_t)n : sizeof r->message - r->used - 1;
  r->message[r->used] = 0;
}

/* XML white space. */
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The length of s without leading and trailing white space, which starts at *start. */
static size_t trimmed(const char *s, const char **start) {
  while (is_space(*s)) s++;
  size_t n = strlen(s);
  while (n && is_space(s[n - 1])) n--;
  *start = s;
  return n;
}

/* Copy s into out without leading and trailing white space; a value longer than cap - 1
 * bytes ends in "..." (for messages). */
static void trim_copy(const char *s, char *out, size_t cap) {
  const char *start;
  size_t n = trimmed(s ? s : "", &start);
  if (n < cap) {
    memcpy(out, start, n);
    out[n] = 0;
  } else {
    snprintf(out, cap, "%.*s...", cap > 4 ? (int)(cap - 4) : 0, start);
  }
}

/* Copy s into out collapsing white space as xs:token does ("  a   b " -> "a b").
 * Returns the full length the collapsed string needs (excluding the NUL). */
static size_t collapse_copy(const char *s, char *out, size_t cap) {
  size_t n = 0;
  int pending_space = 0;
  for (; *s; s++) {
    if (is_space(*s)) {
      pending_space = n > 0;
      continue;
    }
    if (pending_space) {
      if (n + 1 < cap) out[n] = ' ';
      n++;
      pending_space = 0;
    }
    if (n + 1 < cap) out[n] = *s;
    n++;
  }
  out[n < cap ? n : cap - 1] = 0;
  return n;
}

/* ---------------------------------------------------------------- locations */

static int is_descendant_or_self(xmlNodePtr node, xmlNodePtr ancestor) {
  for (; node; node = node->parent)
    if (node == ancestor) return 1;
  return 0;
}

/* The override that set element/attribute, or (attribute NULL or not set by one) that
 * created the element; NULL if the value comes from the file. */
static const override *find_override(const reader *r, xmlNodePtr element, const char *attribute) {
  if (!element) return NULL;
  for (int i = r->n_overrides - 1; i >= 0; i--)
    if (attribute && r->overrides[i].element == element &&
        !strcmp(r->overrides[i].attribute, attribute))
      return &r->overrides[i];
  for (int i = r->n_overrides - 1; i >= 0; i--)
    if (r->overrides[i].created && is_descendant_or_self(element, r->overrides[i].created))
      return &r->overrides[i];
  return NULL;
}

/* "file:line" of an element's attribute, or "file (from --set PATH=VALUE)" when an
 * override put the value there. */
static void where(const reader *r, xmlNodePtr element, const char *attribute, long line,
                  char *out, size_t cap) {
  const override *o = find_override(r, element, attribute);
  if (o)
    snprintf(out, cap, "%s (from --set %s)", r->path, o->text);
  else if (line > 0)
    snprintf(out, cap, "%s:%ld", r->path, line);
  else
    snprintf(out, cap, "%s", r->path);
}

/* " (from --set PATH=VALUE)" if an override set element/attribute, else "". */
static void origin_note(const reader *r, xmlNodePtr element, const char *attribute, char *out,
                        size_t cap) {
  const override *o = find_override(r, element, attribute);
  if (o && o->element == element && !strcmp(o->attribute, attribute))
    snprintf(out, cap, " (from --set %s)", o->text);
  else
    out[0] = 0;
}

static long node_line(xmlNodePtr node) { return node ? xmlGetLineNo(node) : 0; }

/* ---------------------------------------------------------------- the schema as a DOM */
/* Used only to word error messages: which attributes an element has, which children the
 * root allows, and what an attribute's type accepts ("an integer from 1 to 10"). */

static xmlNodePtr schema_root(reader *r) {
  if (!r->schema_doc)
    r->schema_doc = xmlReadMemory(ts_problem_schema_xsd, (int)ts_problem_schema_xsd_len,
                                  "tessera-problem.xsd", NULL, XML_PARSE_NONET);
  return r->schema_doc ? xmlDocGetRootElement(r->schema_doc) : NULL;
}

static int is_xs(xmlNodePtr n, const char *local) {
  return n && n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
         !xmlStrcmp(n->ns->href, BAD_CAST XS_NAMESPACE) && !xmlStrcmp(n->name, BAD_CAST local);
}

/* The attribute's value compared with s (0 if equal). */
static int prop_is(xmlNodePtr n, const char *attr, const char *s) {
  xmlChar *v = xmlGetProp(n, BAD_CAST attr);
  int differ = !v || strcmp((const char *)v, s);
  xmlFree(v);
  return !differ;
}

/* Depth-first search for <xs:LOCAL name="NAME"> below n. */
static xmlNodePtr xs_find(xmlNodePtr n, const char *local, const char *name) {
  for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (is_xs(c, local) && prop_is(c, "name", name)) return c;
    xmlNodePtr found = xs_find(c, local, name);
    if (found) return found;
  }
  return NULL;
}

static xmlNodePtr xs_child(xmlNodePtr n, const char *local) {
  for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
    if (is_xs(c, local)) return c;
  return NULL;
}

/* The complexType of the element declaration NAME: its anonymous one, or the named one of
 * its type="..." (the recursive <preconditioner>). */
static xmlNodePtr schema_element_type(reader *r, const char *name) {
  xmlNodePtr decl = xs_find(schema_root(r), "element", name);
  xmlChar *type = decl ? xmlGetProp(decl, BAD_CAST "type") : NULL;
  xmlNodePtr ct = type ? xs_find(schema_root(r), "complexType", (const char *)type)
                       : xs_child(decl, "complexType");
  xmlFree(type);
  return ct;
}

/* Append ", "-separated s to out. */
static void list_append(char *out, size_t cap, const char *s) {
  size_t n = strlen(out);
  if (n + 1 < cap) snprintf(out + n, cap - n, "%s%s", n ? ", " : "", s);
}

/* Describe the built-in or named simple type TYPE in words into out. */
static void describe_type(reader *r, const char *type, char *out, size_t cap, int depth) {
  out[0] = 0;
  if (!strncmp(type, "xs:", 3)) {
    const char *t = type + 3;
    if (!strcmp(t, "int") || !strcmp(t, "integer") || !strcmp(t, "long"))
      snprintf(out, cap, "an integer");
    else if (!strcmp(t, "double") || !strcmp(t, "float") || !strcmp(t, "decimal"))
      snprintf(out, cap, "a number");
    else
      snprintf(out, cap, "text");
    return;
  }
  xmlNodePtr st = NULL;
  for (xmlNodePtr c = schema_root(r) ? schema_root(r)->children : NULL; c; c = c->next)
    if (is_xs(c, "simpleType") && prop_is(c, "name", type)) st = c;
  if (!st || depth > 8) {
    snprintf(out, cap, "a value of type '%s'", type);
    return;
  }
  xmlNodePtr list = xs_child(st, "list"), restriction = xs_child(st, "restriction");
  if (list) {
    char item[256];
    xmlChar *item_type = xmlGetProp(list, BAD_CAST "itemType");
    describe_type(r, item_type ? (const char *)item_type : "xs:string", item, sizeof item,
                  depth + 1);
    xmlFree(item_type);
    snprintf(out, cap, "a list of values, each %s", item);
    return;
  }
  if (!restriction) {
    snprintf(out, cap, "a value of type '%s'", type);
    return;
  }
  xmlChar *base = xmlGetProp(restriction, BAD_CAST "base");
  char base_text[256], item[256] = "";
  describe_type(r, base ? (const char *)base : "xs:string", base_text, sizeof base_text, depth + 1);
  int base_is_list = !strncmp(base_text, "a list of values, each ", 23);
  if (base_is_list) snprintf(item, sizeof item, "%s", base_text + 23);
  int base_is_text = !strcmp(base_text, "text");
  xmlFree(base);

  char enums[256] = "", bounds[256] = "", length[128] = "", pattern[200] = "";
  char min_len[32] = "", max_len[32] = "";
  for (xmlNodePtr f = restriction->children; f; f = f->next) {
    if (f->type != XML_ELEMENT_NODE) continue;
    xmlChar *v = xmlGetProp(f, BAD_CAST "value");
    const char *value = v ? (const char *)v : "";
    char quoted[96];
    if (is_xs(f, "enumeration")) {
      snprintf(quoted, sizeof quoted, "'%s'", value);
      list_append(enums, sizeof enums, quoted);
    } else if (is_xs(f, "minInclusive") || is_xs(f, "maxInclusive") ||
               is_xs(f, "minExclusive") || is_xs(f, "maxExclusive")) {
      const char *word = is_xs(f, "minInclusive")   ? "at least"
                         : is_xs(f, "maxInclusive") ? "at most"
                         : is_xs(f, "minExclusive") ? "greater than"
                                                    : "less than";
      size_t n = strlen(bounds);
      snprintf(bounds + n, sizeof bounds - n, "%s%s %s", n ? " and " : " ", word, value);
    } else if (is_xs(f, "minLength")) {
      snprintf(min_len, sizeof min_len, "%s", value);
    } else if (is_xs(f, "maxLength")) {
      snprintf(max_len, sizeof max_len, "%s", value);
    } else if (is_xs(f, "length")) {
      snprintf(min_len, sizeof min_len, "%s", value);
      snprintf(max_len, sizeof max_len, "%s", value);
    } else if (is_xs(f, "pattern")) {
      snprintf(pattern, sizeof pattern, " matching the pattern '%s'", value);
    }
    xmlFree(v);
  }
  /* "at least 1 and at most 10" reads better as "from 1 to 10". */
  char lo[64], hi[64];
  if (sscanf(bounds, " at least %63s and at most %63s", lo, hi) == 2)
    snprintf(bounds, sizeof bounds, " from %s to %s", lo, hi);

  const char *unit = base_is_list ? "values" : "characters";
  if (min_len[0] && max_len[0] && !strcmp(min_len, max_len))
    snprintf(length, sizeof length, "%s %s", min_len, unit);
  else if (min_len[0] && max_len[0])
    snprintf(length, sizeof length, "%s to %s %s", min_len, max_len, unit);
  else if (min_len[0])
    snprintf(length, sizeof length, "at least %s %s", min_len, unit);
  else if (max_len[0])
    snprintf(length, sizeof length, "at most %s %s", max_len, unit);

  if (enums[0])
    snprintf(out, cap, "one of %s", enums);
  else if (base_is_list)
    snprintf(out, cap, "a list of %s, each %s", length[0] ? length : "values", item);
  else if (base_is_text && length[0] && !strcmp(min_len, "1") && !max_len[0])
    snprintf(out, cap, "non-empty text%s", pattern);
  else if (base_is_text && length[0])
    snprintf(out, cap, "text of %s%s", length, pattern);
  else
    snprintf(out, cap, "%s%s%s", base_text, bounds, pattern);
}

/* " (allowed: ...)" for attribute ATTR of element ELEMENT, or "" if unknown. */
static void describe_attribute(reader *r, const char *element, const char *attr, char *out,
                               size_t cap) {
  out[0] = 0;
  xmlNodePtr ct = schema_element_type(r, element);
  for (xmlNodePtr c = ct ? ct->children : NULL; c; c = c->next) {
    if (!is_xs(c, "attribute") || !prop_is(c, "name", attr)) continue;
    xmlChar *type = xmlGetProp(c, BAD_CAST "type");
    char text[400];
    describe_type(r, type ? (const char *)type : "xs:string", text, sizeof text, 0);
    xmlFree(type);
    snprintf(out, cap, " (allowed: %s)", text);
    return;
  }
}

/* The attribute names of ELEMENT, ", "-separated. */
static void element_attributes(reader *r, const char *element, char *out, size_t cap) {
  out[0] = 0;
  xmlNodePtr ct = schema_element_type(r, element);
  for (xmlNodePtr c = ct ? ct->children : NULL; c; c = c->next) {
    if (!is_xs(c, "attribute")) continue;
    xmlChar *name = xmlGetProp(c, BAD_CAST "name");
    if (name) list_append(out, cap, (const char *)name);
    xmlFree(name);
  }
}

/* The child elements of ELEMENT (its complexType's xs:sequence), as "<a>, <b>". */
static void element_children(reader *r, const char *element, char *out, size_t cap) {
  out[0] = 0;
  xmlNodePtr sequence = xs_child(schema_element_type(r, element), "sequence");
  for (xmlNodePtr c = sequence ? sequence->children : NULL; c; c = c->next) {
    xmlChar *name = is_xs(c, "element") ? xmlGetProp(c, BAD_CAST "name") : NULL;
    if (!name) continue;
    char tag[80];
    snprintf(tag, sizeof tag, "<%s>", (const char *)name);
    list_append(out, cap, tag);
    xmlFree(name);
  }
}

/* The children the root allows (required_only: those without minOccurs="0") that are
 * (missing_only) absent from the document, as "<a>, <b>". */
static void root_children(reader *r, int required_only, int missing_only, char *out, size_t cap) {
  out[0] = 0;
  xmlNodePtr all = xs_child(schema_element_type(r, ROOT_NAME), "all");
  for (xmlNodePtr c = all ? all->children : NULL; c; c = c->next) {
    if (!is_xs(c, "element")) continue;
    if (required_only && prop_is(c, "minOccurs", "0")) continue;
    xmlChar *name = xmlGetProp(c, BAD_CAST "name");
    if (!name) continue;
    int present = 0;
    for (xmlNodePtr d = r->root ? r->root->children : NULL; d; d = d->next)
      if (d->type == XML_ELEMENT_NODE && !xmlStrcmp(d->name, name)) present = 1;
    if (!missing_only || !present) {
      char tag[80];
      snprintf(tag, sizeof tag, "<%s>", (const char *)name);
      list_append(out, cap, tag);
    }
    xmlFree(name);
  }
}

/* ---------------------------------------------------------------- libxml2 error handlers */

/* Parser errors: keep the first (later ones are usually its consequences). */
static void parse_error(reader *r, TS_XML_ERROR *e) {
  if (!e || e->level == XML_ERR_WARNING) return;
  if (r->n_errors++) return;
  char text[512];
  trim_copy(e->message ? e->message : "malformed XML", text, sizeof text);
  if (e->line > 0)
    collect(r, "%s:%d: %s", r->path, e->line, text);
  else
    collect(r, "%s: %s", r->path, text);
}

/* The parser's errors (libxml2 2.13 and later) and those sent to libxml2's global handler. */
static void reader_error(void *data, TS_XML_ERROR *e) { parse_error(data, e); }

#if LIBXML_VERSION < 21300
/* Before 2.13 the parser calls sax->serror with its own context as data. */
static void parse_error_handler(void *data, TS_XML_ERROR *e) {
  xmlParserCtxtPtr ctxt = data;
  if (ctxt && ctxt->_private) parse_error(ctxt->_private, e);
}
#endif

/* Text sent to libxml2's generic handler (by code that does not raise structured errors). */
static void generic_error(void *data, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void generic_error(void *data, const char *fmt, ...) {
  reader *r = data;
  char text[512], line[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  trim_copy(text, line, sizeof line);
  if (line[0] && !r->n_errors++) collect(r, "%s: %s", r->path, line);
}

/* libxml2's global error handlers, which print to stderr unless an application set its own. */
typedef struct global_handlers {
  xmlGenericErrorFunc generic;
  void *generic_context;
  xmlStructuredErrorFunc structured;
  void *structured_context;
} global_handlers;

/* Send every libxml2 message to r while a problem is read (some come through the global
 * handlers: encoding conversion, I/O, memory); returns the handlers to restore. */
static global_handlers collect_global_errors(reader *r) {
  global_handlers saved = {xmlGenericError, xmlGenericErrorContext, xmlStructuredError,
                           xmlStructuredErrorContext};
  xmlSetGenericErrorFunc(r, generic_error);
  xmlSetStructuredErrorFunc(r, reader_error);
  return saved;
}

static void restore_global_errors(const global_handlers *saved) {
  xmlSetGenericErrorFunc(saved->generic_context, saved->generic);
  xmlSetStructuredErrorFunc(saved->structured_context, saved->structured);
}

/* Split "Element 'E', attribute 'A': rest" into E, A (may be empty) and rest. */
static const char *split_schema_message(const char *msg, char *element, size_t ecap,
                                        char *attr, size_t acap) {
  element[0] = attr[0] = 0;
  if (strncmp(msg, "Element '", 9)) return msg;
  const char *p = msg + 9, *q = strchr(p, '\'');
  if (!q) return msg;
  snprintf(element, ecap, "%.*s", (int)(q - p), p);
  if (!strncmp(q, "', attribute '", 14)) {
    p = q + 14;
    q = strchr(p, '\'');
    if (!q) return msg;
    snprintf(attr, acap, "%.*s", (int)(q - p), p);
  }
  if (q[1] == ':') q += 2;
  else q += 1;
  while (*q == ' ') q++;
  return q;
}

/* Validation errors: prefix each with its location and add what is allowed where
 * libxml2's text does not say it. */
static void valid_error(void *data, TS_XML_ERROR *e) {
  reader *r = data;
  if (!e || e->level == XML_ERR_WARNING) return;
  char msg[768], element[128], attr[128], prefix[256];
  trim_copy(e->message ? e->message : "invalid", msg, sizeof msg);
  const char *rest = split_schema_message(msg, element, sizeof element, attr, sizeof attr);
  snprintf(prefix, sizeof prefix, "%s/%s", element, attr);

  /* libxml2 follows a bad list item with "'a b' is not a valid value of the list type":
   * the first message already said it. */
  if (attr[0] && strstr(rest, "is not a valid value of the list type") &&
      !strcmp(prefix, r->last_prefix))
    return;
  if (r->n_errors >= MAX_ERRORS) {
    r->n_dropped++;
    return;
  }
  r->n_errors++;
  snprintf(r->last_prefix, sizeof r->last_prefix, "%s", prefix);

  xmlNodePtr node = e->node;
  if (node && node->type == XML_ATTRIBUTE_NODE) node = node->parent;
  if (node && node->type != XML_ELEMENT_NODE) node = NULL;

  char hint[600] = "";
  if (attr[0] && strstr(rest, "is not a valid value of")) {
    describe_attribute(r, element, attr, hint, sizeof hint);
  } else if (attr[0] && strstr(rest, "is not allowed")) {
    char names[300];
    element_attributes(r, element, names, sizeof names);
    snprintf(hint, sizeof hint, names[0] ? " (<%s> allows: %s)" : " (<%s> has no attributes)",
             element, names);
  } else if (!attr[0] && node && strstr(rest, "This element is not expected")) {
    xmlNodePtr parent = node->parent, first = NULL;
    for (xmlNodePtr s = node->prev; s; s = s->prev)
      if (s->type == XML_ELEMENT_NODE && !xmlStrcmp(s->name, node->name)) first = s;
    char siblings[300] = "", tag[80];
    snprintf(tag, sizeof tag, "<%s>", element);
    if (parent && parent != r->root && parent->type == XML_ELEMENT_NODE)
      element_children(r, (const char *)parent->name, siblings, sizeof siblings);
    if (first && (parent == r->root || strstr(siblings, tag))) {
      snprintf(hint, sizeof hint, " (<%s> may appear only once; it is already at line %ld)",
               element, node_line(first));
    } else if (parent == r->root) {
      char names[300];
      root_children(r, 0, 0, names, sizeof names);
      snprintf(hint, sizeof hint, " (<%s> allows: %s)", ROOT_NAME, names);
    } else if (parent && parent->type == XML_ELEMENT_NODE) {
      char names[300];
      element_children(r, (const char *)parent->name, names, sizeof names);
      snprintf(hint, sizeof hint, names[0] ? " (<%s> allows: %s)" : " (<%s> has no child elements)",
               (const char *)parent->name, names);
    }
  } else if (!attr[0] && strstr(rest, "Missing child element")) {
    char names[300];
    root_children(r, 1, 1, names, sizeof names);
    if (names[0]) {
      /* libxml2's "Expected is one of (...)" lists optional elements of xs:all too. */
      char *expected = strstr(msg, ". Expected is one of");
      if (expected) expected[1] = 0;
      snprintf(hint, sizeof hint, ": %s", names);
    }
  }

  char loc[1200];
  where(r, node, attr[0] ? attr : NULL, e->line > 0 ? e->line : node_line(node), loc, sizeof loc);
  if (msg[0] == 'E' && !strncmp(msg, "Element '", 9)) msg[0] = 'e';
  size_t len = strlen(msg);
  if (hint[0] && len && msg[len - 1] == '.') msg[len - 1] = 0;  /* "... (allowed: ...)." */
  collect(r, "%s: %s%s%s", loc, msg, hint, hint[0] ? "." : "");
}

/* Schema-parser errors can only come from a broken embedded schema: a bug. */
static void schema_error(void *data, TS_XML_ERROR *e) {
  reader *r = data;
  if (!e || e->level == XML_ERR_WARNING || r->n_errors++) return;
  char text[512];
  trim_copy(e->message, text, sizeof text);
  collect(r, "embedded tessera-problem.xsd:%d: %s", e->line, text);
}

/* ---------------------------------------------------------------- the bytes of a file */
/* Problem files are local files of a few hundred bytes, read whole before libxml2 sees
 * them: a path is never a URL, nothing is decompressed, nothing blocks (a FIFO or a device
 * is refused), and a pre-scan bounds what libxml2 gets (size, encoding, attributes). */

/* Compressed formats, known by their first bytes (libxml2's own file reader would inflate
 * gzip and xz). */
static const struct {
  const char *magic;
  size_t length;
  const char *format, *tool;
} compressed_formats[] = {
    {"\x1f\x8b", 2, "gzip", "gunzip"},
    {"\xfd" "7zXZ\0", 6, "xz", "unxz"},
    {"BZh", 3, "bzip2", "bunzip2"},
    {"\x28\xb5\x2f\xfd", 4, "zstd", "unzstd"},
};

/* What a file that is not a regular file is, for the message. */
static const char *file_kind(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO (named pipe)"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

static int too_large(const char *name, const char *size) {
  return TS_ERROR(TS_ERR_INPUT, "%s: the file is %s; problem files are limited to %g MiB "
                  "(%zu bytes)", name, size, (double)TS_PROBLEM_MAX_BYTES / 1048576.0,
                  (size_t)TS_PROBLEM_MAX_BYTES);
}

/* Read the regular file path (at most TS_PROBLEM_MAX_BYTES) into *bytes (caller frees).
 * O_NONBLOCK: opening a FIFO returns at once (and is then refused by fstat). */
int ts_problem_file_bytes(const char *path, char **bytes, size_t *size) {
  *bytes = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return TS_ERROR(TS_ERR_IO, "cannot open problem file '%s': %s", path, strerror(errno));
  struct stat st;
  int code = 0;
  char *buffer = NULL;
  size_t used = 0, cap = 0;
  if (fstat(fd, &st)) {
    code = TS_ERROR(TS_ERR_IO, "cannot read problem file '%s': %s", path, strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    code = TS_ERROR(TS_ERR_IO, "cannot read problem file '%s': it is %s; problem files are "
                    "regular files", path, file_kind(st.st_mode));
  } else if ((uintmax_t)st.st_size > TS_PROBLEM_MAX_BYTES) {
    char text[64];
    snprintf(text, sizeof text, "%.1f MiB (%jd bytes)", (double)st.st_size / 1048576.0,
             (intmax_t)st.st_size);
    code = too_large(path, text);
  }
  /* Read until end of file; one byte more than the limit tells a file that grew. */
  while (!code) {
    if (used == cap) {
      cap = cap ? 2 * cap : (size_t)st.st_size + 1;
      if (cap > TS_PROBLEM_MAX_BYTES + 1) cap = TS_PROBLEM_MAX_BYTES + 1;
      char *grown = realloc(buffer, cap);
      if (!grown) {
        code = TS_ERROR(TS_ERR_MEMORY, "%s: could not allocate %zu bytes to read it", path, cap);
        break;
      }
      buffer = grown;
    }
    ssize_t n = read(fd, buffer + used, cap - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      code = TS_ERROR(TS_ERR_IO, "cannot read problem file '%s': %s", path, strerror(errno));
    else if (n == 0)
      break;
    else if ((used += (size_t)n) > TS_PROBLEM_MAX_BYTES)
      code = too_large(path, "growing beyond the limit");
  }
  close(fd);
  if (code) {
    free(buffer);
    return code;
  }
  *bytes = buffer;
  *size = used;
  return 0;
}

/* ---------------------------------------------------------------- the pre-scan */

static int starts_with(const char *s, size_t n, const char *prefix) {
  size_t len = strlen(prefix);
  return n >= len && !memcmp(s, prefix, len);
}

/* The index of the first byte after the first `end` in s[from, n), or n if there is none;
 * *line advanced by the newlines passed. */
static size_t skip_past(const char *s, size_t n, size_t from, const char *end, long *line) {
  size_t len = strlen(end);
  for (size_t i = from; i < n; i++) {
    if (i + len <= n && !memcmp(s + i, end, len)) return i + len;
    if (s[i] == '\n') (*line)++;
  }
  return n;
}

/* The length of the UTF-8 encoded XML 1.0 character (Char) at s[0, n), 0 if it is none:
 * not UTF-8 (an overlong form, a surrogate, a code point above U+10FFFF), a control
 * character other than tab, LF and CR, or U+FFFE and U+FFFF. */
static size_t xml_char_length(const unsigned char *s, size_t n) {
  const unsigned c = s[0];
  if (c < 0x80) return c >= 0x20 || c == '\t' || c == '\n' || c == '\r';
  const size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
  if (!len || len > n || c > 0xf4) return 0;
  uint32_t code = c & (0x7fu >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    code = code << 6 | (s[i] & 0x3fu);
  }
  static const uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[len] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ||
      code == 0xfffe || code == 0xffff)
    return 0;
  return len;
}

/* Every byte is part of a UTF-8 XML character: the file is parsed as UTF-8 (whatever it
 * declares), and the markup scan below sees what libxml2 sees. */
static int check_characters(const char *name, const char *s, size_t n) {
  long line = 1;
  for (size_t i = 0; i < n;) {
    size_t len = xml_char_length((const unsigned char *)s + i, n - i);
    if (!len)
      return TS_ERROR(TS_ERR_INPUT, "%s:%ld: byte 0x%02X is not a character of UTF-8 XML text; "
                      "problem files are UTF-8 (ASCII is UTF-8): convert others, e.g. with "
                      "`iconv -f UTF-16 -t UTF-8`, and remove control characters",
                      name, line, (unsigned)(unsigned char)s[i]);
    line += s[i] == '\n';
    i += len;
  }
  return 0;
}

/* The XML declaration may name only UTF-8 (or its subset US-ASCII). */
static int check_declared_encoding(const char *name, const char *s, size_t n) {
  if (starts_with(s, n, "\xef\xbb\xbf")) s += 3, n -= 3; /* the UTF-8 byte order mark */
  if (!starts_with(s, n, "<?xml") || n < 6 || !is_space(s[5])) return 0;
  long lines = 0;
  const char *p = s + 5, *stop = s + skip_past(s, n, 5, "?>", &lines);
  for (; p + 8 <= stop; p++)
    if (!memcmp(p, "encoding", 8) && is_space(p[-1])) break;
  if (p + 8 > stop) return 0;
  for (p += 8; p < stop && (is_space(*p) || *p == '='); p++) continue;
  if (p == stop || (*p != '"' && *p != '\'')) return 0; /* malformed: libxml2 says so */
  const char *value = p + 1, *close = memchr(value, *p, (size_t)(stop - value));
  if (!close) return 0;
  const int len = (int)(close - value);
  static const char *const allowed[] = {"UTF-8", "UTF8", "US-ASCII", "ASCII"};
  for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
    if ((size_t)len == strlen(allowed[i]) && !strncasecmp(value, allowed[i], (size_t)len))
      return 0;
  long line = 1;
  for (const char *q = s; q < value; q++) line += *q == '\n';
  return TS_ERROR(TS_ERR_INPUT, "%s:%ld: encoding=\"%.*s\" in the XML declaration: problem files "
                  "are UTF-8 (allowed: \"UTF-8\" or \"US-ASCII\"); convert the file, e.g. with "
                  "`iconv -f %.*s -t UTF-8`", name, line, len > 40 ? 40 : len, value,
                  len > 40 ? 40 : len, value);
}

/* The markup: no <!DOCTYPE>, and at most TS_PROBLEM_MAX_ATTRIBUTES attributes per element
 * (libxml2's duplicate-attribute check is quadratic in their number).  Every attribute
 * libxml2 parses has an '=' outside quotes between its element's '<' and the first '>'
 * outside quotes or the next '<' (an attribute value cannot hold '<'), so counting those
 * bounds the attributes whatever the file's errors; comments and CDATA sections end at the
 * first "-->" and "]]>" for both, as every character is valid. */
static int check_markup(const char *name, const char *s, size_t n) {
  long line = 1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\n') line++;
    if (s[i] != '<') continue;
    if (starts_with(s + i, n - i, "<!--")) {
      i = skip_past(s, n, i + 4, "-->", &line) - 1;
      continue;
    }
    if (starts_with(s + i, n - i, "<![CDATA[")) {
      i = skip_past(s, n, i + 9, "]]>", &line) - 1;
      continue;
    }
    if (starts_with(s + i, n - i, "<!DOCTYPE"))
      return TS_ERROR(TS_ERR_INPUT, "%s:%ld: <!DOCTYPE ...> is not allowed in a problem file "
                      "(its structure comes from the Tessera schema; entities are not "
                      "expanded)", name, line);
    const long tag_line = line;
    const size_t tag = i + 1;
    long attributes = 0;
    char quote = 0;
    size_t j = tag;
    for (; j < n && s[j] != '<'; j++) {
      if (s[j] == '\n') line++;
      if (quote)
        quote = s[j] == quote ? 0 : quote;
      else if (s[j] == '"' || s[j] == '\'')
        quote = s[j];
      else if (s[j] == '=')
        attributes++;
      else if (s[j] == '>')
        break;
    }
    if (attributes > TS_PROBLEM_MAX_ATTRIBUTES) {
      size_t len = strcspn(s + tag, " \t\r\n/>=");
      return TS_ERROR(TS_ERR_INPUT, "%s:%ld: <%.*s ...> has %ld attributes; at most %d are "
                      "allowed per element", name, tag_line, (int)(len > 40 ? 40 : len), s + tag,
                      attributes, TS_PROBLEM_MAX_ATTRIBUTES);
    }
    i = j < n && s[j] == '<' ? j - 1 : j; /* a '<' starts the next markup */
  }
  return 0;
}

/* Everything libxml2 is not trusted with, before it sees the bytes. */
static int check_bytes(const char *name, const char *bytes, size_t size) {
  if (size > TS_PROBLEM_MAX_BYTES) {
    char text[64];
    snprintf(text, sizeof text, "%zu bytes", size);
    return too_large(name, text);
  }
  for (size_t i = 0; i < sizeof compressed_formats / sizeof *compressed_formats; i++)
    if (starts_with(bytes, size, compressed_formats[i].magic))
      return TS_ERROR(TS_ERR_INPUT, "%s: the file is %s-compressed; compressed files are not "
                      "read: decompress it first (%s)", name, compressed_formats[i].format,
                      compressed_formats[i].tool);
  TS_CALL(check_declared_encoding(name, bytes, size));
  TS_CALL(check_characters(name, bytes, size));
  return check_markup(name, bytes, size);
}

/* ---------------------------------------------------------------- parsing */

static int read_document(reader *r, const char *bytes, size_t size) {
  TS_CALL(check_bytes(r->path, bytes, size));
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) return TS_ERROR(TS_ERR_MEMORY, "%s: could not create an XML parser", r->path);
#if LIBXML_VERSION >= 21300
  xmlCtxtSetErrorHandler(ctxt, reader_error, r);
#else
  ctxt->_private = r;
  ctxt->sax->serror = parse_error_handler;
  ctxt->linenumbers = 1;
#endif
  /* UTF-8 whatever the file declares (check_bytes saw the bytes as UTF-8); no network, no
   * DTD loading, no entity substitution (XML_PARSE_NOENT is not set). */
  r->doc = xmlCtxtReadMemory(ctxt, bytes, (int)size, r->path, "UTF-8",
                             XML_PARSE_NONET | XML_PARSE_IGNORE_ENC);
  int well_formed = ctxt->wellFormed && ctxt->nsWellFormed;
  xmlFreeParserCtxt(ctxt);

  if (!r->doc || !well_formed || r->n_errors) {
    if (!r->n_errors) collect(r, "%s: not a well-formed XML document", r->path);
    return TS_ERROR(TS_ERR_INPUT, "%s", r->message);
  }
  r->root = xmlDocGetRootElement(r->doc);
  if (!r->root)
    return TS_ERROR(TS_ERR_INPUT, "%s: the document has no root element; expected <%s>", r->path,
                    ROOT_NAME);
  if (xmlStrcmp(r->root->name, BAD_CAST ROOT_NAME) || r->root->ns)
    return TS_ERROR(TS_ERR_INPUT,
                    "%s:%ld: the root element is <%s%s%s>, but a problem file has "
                    "<%s name=\"...\"> (in no namespace) as its root",
                    r->path, node_line(r->root),
                    r->root->ns && r->root->ns->prefix ? (const char *)r->root->ns->prefix : "",
                    r->root->ns && r->root->ns->prefix ? ":" : "", (const char *)r->root->name,
                    ROOT_NAME);
  return 0;
}

/* ---------------------------------------------------------------- overrides */

static int override_error(const char *text, const char *why) {
  return TS_ERROR(TS_ERR_ARG,
                  "override '%s': %s; an override is PATH=VALUE with PATH an attribute "
                  "below <%s>: \"name\", \"mesh/levels\" or \"element/sub/attribute\"",
                  text, why, ROOT_NAME);
}

/* Apply "PATH=VALUE": walk (creating) the elements of PATH below the root and set the
 * attribute named by its last component. */
static int apply_override(reader *r, const char *text) {
  if (!text) return override_error("(null)", "no text");
  const char *eq = strchr(text, '=');
  if (!eq) return override_error(text, "it has no '='");
  if (eq == text) return override_error(text, "the path before '=' is empty");
  const char *value = eq + 1;
  if (xmlCheckUTF8(BAD_CAST value) == 0) return override_error(text, "the value is not UTF-8");

  size_t path_len = (size_t)(eq - text);
  char *path = malloc(path_len + 1);
  if (!path) return TS_ERROR(TS_ERR_MEMORY, "override '%s': out of memory", text);
  memcpy(path, text, path_len);
  path[path_len] = 0;

  /* Check every component before changing the document. */
  int n_parts = 1;
  for (size_t i = 0; i < path_len; i++) n_parts += path[i] == '/';
  char *part = path;
  for (int k = 0; k < n_parts; k++) {
    char *slash = strchr(part, '/');
    if (slash) *slash = 0;
    const char *why = NULL;
    if (!*part) why = "the path has an empty component";
    else if (xmlValidateNCName(BAD_CAST part, 0)) why = "a path component is not an XML name";
    if (why) {
      char buf[300];
      snprintf(buf, sizeof buf, "%s ('%s')", why, part);
      free(path);
      return override_error(text, buf);
    }
    if (slash) part = slash + 1;
  }

  override *grown = realloc(r->overrides, (size_t)(r->n_overrides + 1) * sizeof *grown);
  if (!grown) {
    free(path);
    return TS_ERROR(TS_ERR_MEMORY, "override '%s': out of memory", text);
  }
  r->overrides = grown;
  override *o = &r->overrides[r->n_overrides];
  memset(o, 0, sizeof *o);

  xmlNodePtr element = r->root;
  part = path; /* components are NUL-separated now */
  for (int k = 0; k < n_parts - 1; k++) {
    xmlNodePtr child = NULL;
    for (xmlNodePtr c = element->children; c && !child; c = c->next)
      if (c->type == XML_ELEMENT_NODE && !c->ns && !xmlStrcmp(c->name, BAD_CAST part)) child = c;
    if (!child) {
      child = xmlNewChild(element, NULL, BAD_CAST part, NULL);
      if (!child) {
        free(path);
        return TS_ERROR(TS_ERR_MEMORY, "override '%s': out of memory", text);
      }
      if (!o->created) o->created = child;
    }
    element = child;
    part += strlen(part) + 1;
  }
  if (!xmlSetProp(element, BAD_CAST part, BAD_CAST value)) {
    free(path);
    return TS_ERROR(TS_ERR_MEMORY, "override '%s': out of memory", text);
  }
  o->text = text;
  o->element = element;
  o->attribute = malloc(strlen(part) + 1);
  if (!o->attribute) {
    free(path);
    return TS_ERROR(TS_ERR_MEMORY, "override '%s': out of memory", text);
  }
  strcpy(o->attribute, part);
  r->n_overrides++;
  free(path);
  return 0;
}

/* ---------------------------------------------------------------- validation */

static int validate(reader *r) {
  int code = 0;
  xmlSchemaParserCtxtPtr pctxt =
      xmlSchemaNewMemParserCtxt(ts_problem_schema_xsd, (int)ts_problem_schema_xsd_len);
  xmlSchemaPtr schema = NULL;
  xmlSchemaValidCtxtPtr vctxt = NULL;
  if (!pctxt) {
    code = TS_ERROR(TS_ERR_MEMORY, "could not create the schema parser");
    goto done;
  }
  xmlSchemaSetParserStructuredErrors(pctxt, schema_error, r);
  schema = xmlSchemaParse(pctxt);
  if (!schema) {
    code = TS_ERROR(TS_ERR_INTERNAL, "the embedded problem schema does not load: %s",
                    r->used ? r->message : "(no message)");
    goto done;
  }
  vctxt = xmlSchemaNewValidCtxt(schema);
  if (!vctxt) {
    code = TS_ERROR(TS_ERR_MEMORY, "could not create the schema validator");
    goto done;
  }
  r->n_errors = 0;
  r->used = 0;
  r->message[0] = 0;
  xmlSchemaSetValidStructuredErrors(vctxt, valid_error, r);
  int rc = xmlSchemaValidateDoc(vctxt, r->doc);
  if (rc < 0) {
    code = TS_ERROR(TS_ERR_INTERNAL, "%s: the schema validator failed (libxml2 code %d)%s%s",
                    r->path, rc, r->used ? ": " : "", r->message);
  } else if (rc > 0 || r->n_errors) {
    if (r->n_dropped) collect(r, "(%d more errors not shown)", r->n_dropped);
    if (!r->used) collect(r, "%s: does not match the Tessera problem schema", r->path);
    code = TS_ERROR(TS_ERR_INPUT, "%s", r->message);
  }
done:
  if (vctxt) xmlSchemaFreeValidCtxt(vctxt);
  if (schema) xmlSchemaFree(schema);
  if (pctxt) xmlSchemaFreeParserCtxt(pctxt);
  return code;
}

/* ---------------------------------------------------------------- reading values */
/* After validation every value is lexically valid and in range; these convert the whole
 * value (xs:int and xs:double allow any number of leading zeros, signs and white space). */

static xmlNodePtr child_element(xmlNodePtr parent, const char *name) {
  for (xmlNodePtr c = parent ? parent->children : NULL; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !xmlStrcmp(c->name, BAD_CAST name)) return c;
  return NULL;
}

/* The attribute's value (xmlFree it), NULL if absent. */
static char *get_value(xmlNodePtr element, const char *attr) {
  return element ? (char *)xmlGetProp(element, BAD_CAST attr) : NULL;
}

static int has_attribute(xmlNodePtr element, const char *attr) {
  return element && xmlHasProp(element, BAD_CAST attr);
}

/* 1 if the attribute is present and its value without surrounding white space is word
 * (an enumerated value). */
static int attribute_is(xmlNodePtr element, const char *attr, const char *word) {
  char *v = get_value(element, attr);
  const char *start;
  const int same = v && trimmed(v, &start) == strlen(word) && !memcmp(start, word, strlen(word));
  xmlFree(v);
  return same;
}

/* The attribute trimmed into out for a message (a long value shortened with "..."); 0 if
 * absent. */
static int get_text(xmlNodePtr element, const char *attr, char *out, size_t cap) {
  char *v = get_value(element, attr);
  if (!v) return 0;
  trim_copy(v, out, cap);
  xmlFree(v);
  return 1;
}

/* Copy the attribute without surrounding white space into the field out of cap bytes
 * (unchanged if the attribute is absent); a value that does not fit is an error. */
static int copy_value(const reader *r, xmlNodePtr element, const char *attr, char *out, size_t cap) {
  char *v = get_value(element, attr);
  if (!v) return 0;
  const char *start;
  const size_t n = trimmed(v, &start);
  if (n < cap) {
    memcpy(out, start, n);
    out[n] = 0;
  }
  xmlFree(v);
  if (n < cap) return 0;
  char loc[1200];
  where(r, element, attr, node_line(element), loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <%s %s=...>: the value takes %zu bytes; at most %zu are "
                  "allowed", loc, (const char *)element->name, attr, n, cap - 1);
}

static int get_int(xmlNodePtr element, const char *attr, int fallback) {
  char *v = get_value(element, attr);
  if (!v) return fallback;
  const long value = strtol(v, NULL, 10);
  xmlFree(v);
  return value < INT_MIN ? INT_MIN : value > INT_MAX ? INT_MAX : (int)value;
}

static double get_double(xmlNodePtr element, const char *attr, double fallback) {
  char *v = get_value(element, attr);
  if (!v) return fallback;
  const double value = strtod(v, NULL);
  xmlFree(v);
  return value;
}

/* ---- what the equations' read hooks use (reader.h) */

ts_xml_element ts_reader_element(const ts_reader *r, const char *name) {
  return child_element(r->root, name);
}
const char *ts_reader_path(const ts_reader *r) { return r->path; }
void ts_reader_where(const ts_reader *r, ts_xml_element element, const char *attribute,
                     char *out, size_t cap) {
  where(r, element, attribute, node_line(element), out, cap);
}
int ts_reader_has(ts_xml_element element, const char *attribute) {
  return has_attribute(element, attribute);
}
int ts_reader_is(ts_xml_element element, const char *attribute, const char *word) {
  return attribute_is(element, attribute, word);
}
int ts_reader_text(ts_xml_element element, const char *attribute, char *out, size_t cap) {
  return get_text(element, attribute, out, cap);
}
int ts_reader_copy(const ts_reader *r, ts_xml_element element, const char *attribute,
                   char *out, size_t cap) {
  return copy_value(r, element, attribute, out, cap);
}
double ts_reader_double(ts_xml_element element, const char *attribute, double fallback) {
  return get_double(element, attribute, fallback);
}

/* Up to 4 numbers of a list attribute, and its value for messages in text; returns how
 * many, -1 if absent. */
static int get_list(xmlNodePtr element, const char *attr, double values[4], char *text,
                    size_t cap) {
  char *v = get_value(element, attr);
  if (!v) return -1;
  trim_copy(v, text, cap);
  int n = 0;
  const char *p = v;
  for (;;) {
    while (is_space(*p)) p++;
    if (!*p) break;
    char *end;
    double value = strtod(p, &end);
    if (end == p) break;
    if (n < 4) values[n] = value;
    n++;
    p = end;
  }
  xmlFree(v);
  return n > 4 ? 4 : n;
}

uint64_t ts_reader_grid_dofs(const struct ts_problem_s *p, uint64_t per_cell, uint64_t copies) {
  uint64_t total = copies;
  for (int d = 0; d < p->dim; d++) {
    uint64_t n = (uint64_t)p->coarse[d];
    for (int l = 0; l < p->levels; l++) {
      if (n > TS_PROBLEM_MAX_DOFS) return 0;
      n *= 2;
    }
    if (per_cell && n > TS_PROBLEM_MAX_DOFS / per_cell) return 0;
    n = n * per_cell + 1;
    if (n > TS_PROBLEM_MAX_DOFS || total > TS_PROBLEM_MAX_DOFS / n) return 0;
    total *= n;
  }
  return total;
}

/* ---------------------------------------------------------------- mapped meshes */
/* <mesh map=...> with its parameters (doc/user-guide.md, "Your own problem in a problem
 * file"; <poisson f g ...> is poisson-read.c's). */

static const char *const map_names[] = {"box", "kershaw", "sine", "shell"};
/* each map's parameters (attributes of <mesh>) and their defaults */
static const struct {
  const char *names[3];
  double defaults[3];
} map_parameters[] = {
    {{NULL}, {0}},
    {{"epsilon"}, {0.3}},
    {{"amplitude"}, {0.05}},
    {{"inner", "outer", "angle"}, {1.0, 2.0, 1.5707963267948966}},
};
static const char *const all_map_parameters[] = {"epsilon", "amplitude", "inner", "outer", "angle"};

const char *ts_reader_map_name(ts_mesh_map map) { return map_names[map]; }

static int map_has_parameter(ts_mesh_map map, const char *name) {
  for (int i = 0; i < 3; ++i)
    if (map_parameters[map].names[i] && !strcmp(map_parameters[map].names[i], name)) return 1;
  return 0;
}

/* x = lower + (upper - lower) xi: the box as a mapped mesh (ctx: the problem) */
int ts_problem_box_map(void *ctx, int dim, int64_t count, const double *xi, double *x) {
  const struct ts_problem_s *p = ctx;
  for (int64_t i = 0; i < count; ++i)
    for (int d = 0; d < dim; ++d)
      x[i * dim + d] = p->lower[d] + (p->upper[d] - p->lower[d]) * xi[i * dim + d];
  return 0;
}

/* The mesh the problem describes, on levels 0..p->levels (study.c makes it the same way;
 * the reader makes it once to check the map's parameters against the cells). */
int ts_problem_mesh_create(ts_problem p, ts_mesh *mesh) {
  const double *a = p->map_parameters;
  switch (p->map) {
  case TS_MAP_KERSHAW: return ts_mesh_create_kershaw(p->dim, p->coarse, p->levels, a[0], mesh);
  case TS_MAP_SINE: return ts_mesh_create_sine(p->dim, p->coarse, p->levels, a[0], mesh);
  case TS_MAP_SHELL:
    return ts_mesh_create_shell(p->dim, p->coarse, p->levels, a[0], a[1], a[2], mesh);
  case TS_MAP_BOX: break;
  }
  if (!p->equation->mapped)
    return ts_mesh_create_box(p->dim, p->lower, p->upper, p->coarse, p->levels, mesh);
  /* your own data on the box: the box as the affine image of the unit box, so that the
   * operator, right side and errors on mapped cells take it */
  return ts_mesh_create_mapped(p->dim, p->coarse, p->levels, ts_problem_box_map, (void *)p,
                               TS_GEOMETRY_MULTILINEAR, mesh);
}

void ts_problem_print_domain(ts_problem p, FILE *log) {
  const double *a = p->map_parameters;
  switch (p->map) {
  case TS_MAP_BOX:
    fprintf(log, "; %dD box [", p->dim);
    for (int d = 0; d < p->dim; ++d)
      fprintf(log, "%s%g,%g", d ? "]x[" : "", p->lower[d], p->upper[d]);
    fprintf(log, "]");
    return;
  case TS_MAP_KERSHAW: fprintf(log, ";\n  %dD Kershaw mesh, epsilon %g", p->dim, a[0]); return;
  case TS_MAP_SINE: fprintf(log, ";\n  %dD sine-distorted box, amplitude %g", p->dim, a[0]); return;
  case TS_MAP_SHELL:
    fprintf(log, ";\n  %dD %s, radii %g..%g, angle %g", p->dim, p->dim == 2 ? "annulus sector" : "shell patch",
            a[0], a[1], a[2]);
    return;
  }
}

/* <mesh map=...>: the map, its parameters (only its own), no lower/upper but with box; the
 * mesh made once to check the parameters and cells. */
static int fill_map(reader *r, struct ts_problem_s *p, xmlNodePtr mesh) {
  char loc[1200], text[128];
  p->map = TS_MAP_BOX;
  for (int m = 0; m < 4; ++m)
    if (attribute_is(mesh, "map", map_names[m])) p->map = (ts_mesh_map)m;
  for (size_t i = 0; i < sizeof all_map_parameters / sizeof *all_map_parameters; ++i) {
    const char *name = all_map_parameters[i];
    if (!has_attribute(mesh, name) || map_has_parameter(p->map, name)) continue;
    get_text(mesh, name, text, sizeof text);
    where(r, mesh, name, node_line(mesh), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <mesh map=\"%s\" %s=\"%s\">: %s is not a parameter of "
                    "this map (kershaw: epsilon; sine: amplitude; shell: inner, outer, angle)",
                    loc, map_names[p->map], name, text, name);
  }
  if (p->map != TS_MAP_BOX)
    for (int a = 0; a < 2; ++a) {
      const char *name = a ? "upper" : "lower";
      if (!has_attribute(mesh, name)) continue;
      where(r, mesh, name, node_line(mesh), loc, sizeof loc);
      return TS_ERROR(TS_ERR_INPUT, "%s: <mesh map=\"%s\" %s=...>: a mapped mesh is the image of "
                      "the unit box; lower and upper are allowed with map=\"box\" only", loc,
                      map_names[p->map], name);
    }
  for (int i = 0; i < 3; ++i) {
    const char *name = map_parameters[p->map].names[i];
    p->map_parameters[i] = name ? get_double(mesh, name, map_parameters[p->map].defaults[i]) : 0;
  }
  if (p->map == TS_MAP_BOX) return 0;
  ts_mesh check = NULL;
  const int ierr = ts_problem_mesh_create(p, &check);
  ts_mesh_destroy(&check);
  if (!ierr) return 0;
  char why[1024]; /* copied: TS_ERROR writes the message it would read */
  snprintf(why, sizeof why, "%s", ts_error_message());
  const char *attr = map_parameters[p->map].names[0];
  where(r, mesh, has_attribute(mesh, attr) ? attr : "map", node_line(mesh), loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <mesh map=\"%s\">: %s", loc, map_names[p->map], why);
}

/* ---------------------------------------------------------------- the equation */
/* The root holds exactly one equation's element (<poisson>, <stokes>: the registry's,
 * equation.c); it and <element family> choose the equation, whose read hook reads it. */

#define ELEMENTS_MAX 8          /* distinct equation elements of the registry */
#define DEFAULT_FAMILY "Q"      /* the schema's default of <element family> */

/* The distinct elements of the registry's equations, in its order; returns how many. */
static int registry_elements(const char **elements) {
  int n = 0;
  for (size_t i = 0; i < ts_equations_count; ++i) {
    int seen = 0;
    for (int k = 0; k < n; ++k) seen |= !strcmp(elements[k], ts_equations[i]->element);
    if (!seen && n < ELEMENTS_MAX) elements[n++] = ts_equations[i]->element;
  }
  return n;
}

/* The families of element's equations, each once, joined by separator into out. */
static void element_families(const char *element, const char *separator, char *out,
                             size_t cap) {
  out[0] = 0;
  for (size_t i = 0; i < ts_equations_count; ++i) {
    const ts_equation *eq = ts_equations[i];
    int seen = 0;
    for (size_t k = 0; k < i; ++k)
      seen |= !strcmp(ts_equations[k]->element, element) &&
              !strcmp(ts_equations[k]->family, eq->family);
    if (seen || strcmp(eq->element, element)) continue;
    const size_t used = strlen(out);
    snprintf(out + used, cap - used, "%s%s", used ? separator : "", eq->family);
  }
}

/* items[0..n-1] as "A", "A and B", "A, B and C" (conjunction instead of "and") into out */
static void join_words(char items[][160], int n, const char *conjunction, char *out,
                       size_t cap) {
  out[0] = 0;
  for (int k = 0; k < n; ++k) {
    const size_t used = strlen(out);
    snprintf(out + used, cap - used, "%s%s", k == 0 ? "" : k == n - 1 ? conjunction : ", ",
             items[k]);
  }
}

/* Not exactly one equation element: which are given, and what is required. */
static int equation_element_error(reader *r, const char **elements, int n, int n_given,
                                  char given[][160]) {
  char loc[1200], wanted[ELEMENTS_MAX][160], all[ELEMENTS_MAX][160], families[120];
  char which[ELEMENTS_MAX * 168], required[ELEMENTS_MAX * 168]; /* items and separators */
  for (int k = 0; k < n; ++k) {
    element_families(elements[k], " or ", families, sizeof families);
    snprintf(wanted[k], sizeof wanted[k], "<%s> (element family %s)", elements[k], families);
    snprintf(all[k], sizeof all[k], "<%s>", elements[k]);
  }
  join_words(wanted, n, " and ", required, sizeof required);
  if (n_given)
    join_words(given, n_given, " and ", which, sizeof which);
  else
    join_words(all, n, n == 2 ? " nor " : " or ", which, sizeof which);
  where(r, r->root, NULL, node_line(r->root), loc, sizeof loc);
  return TS_ERROR(TS_ERR_INPUT, "%s: <%s>: %s%s %s given; exactly one of %s is required", loc,
                  ROOT_NAME, n_given == 2 ? "both " : !n_given ? (n == 2 ? "neither " : "none of ")
                                                              : "",
                  which, n_given > 1 ? "are" : "is", required);
}

/* The root's equation element into *e, its name into *name (exactly one is required). */
static int find_equation_element(reader *r, xmlNodePtr *e, const char **name) {
  const char *elements[ELEMENTS_MAX];
  char given[ELEMENTS_MAX][160];
  const int n = registry_elements(elements);
  int n_given = 0;
  for (int k = 0; k < n; ++k) {
    if (!child_element(r->root, elements[k])) continue;
    *e = child_element(r->root, elements[k]);
    *name = elements[k];
    snprintf(given[n_given++], sizeof given[0], "<%s>", elements[k]);
  }
  return n_given == 1 ? 0 : equation_element_error(r, elements, n, n_given, given);
}

/* The equation of the element name e with <element family="family">: the registry's first
 * of them that selects e; NULL if the family is none of the element's. */
static const ts_equation *equation_of_family(const char *name, const char *family,
                                             xmlNodePtr e) {
  for (size_t i = 0; i < ts_equations_count; ++i) {
    const ts_equation *eq = ts_equations[i];
    if (!strcmp(eq->element, name) && !strcmp(eq->family, family) &&
        (!eq->selects || eq->selects(e)))
      return eq;
  }
  return NULL;
}

/* <poisson> or <stokes> (the registry's elements) and <element family degree>: the equation
 * into p->equation, the degrees it allows, then its element read by its hook. */
static int fill_equation(reader *r, struct ts_problem_s *p) {
  char loc[1200], family[16] = DEFAULT_FAMILY, allowed[120];
  xmlNodePtr element = child_element(r->root, "element"), e = NULL;
  const char *name = NULL;
  TS_CALL(find_equation_element(r, &e, &name));
  get_text(element, "family", family, sizeof family);
  const ts_equation *eq = p->equation = equation_of_family(name, family, e);
  if (!eq) {
    element_families(name, "\" or family=\"", allowed, sizeof allowed);
    where(r, element, "family", node_line(element), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <element family=\"%s\"> with <%s>: allowed family=\"%s\"",
                    loc, family, name, allowed);
  }
  p->family = eq->fe_family;
  if (p->degree < eq->lowest_degree || p->degree > eq->highest_degree) {
    where(r, element, "degree", node_line(element), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <element family=\"%s\" degree=\"%d\">: allowed %d..%d", loc,
                    family, p->degree, eq->lowest_degree, eq->highest_degree);
  }
  return eq->read(r, p, e);
}

static const char *const direction_names[3] = {"x", "y", "z"};

/* ---------------------------------------------------------------- <preconditioner> trees */
/* <solver><preconditioner type="KIND" ...> nested as the preconditioners nest; the rules of
 * each kind (where it may stand, its attributes, its children) are pc-tree.c's. */

static int is_pc_element(xmlNodePtr n) {
  return n && n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, BAD_CAST "preconditioner");
}

/* 1-based position of e among its parent's <preconditioner> children */
static int pc_position(xmlNodePtr e) {
  int k = 1;
  for (xmlNodePtr s = e->prev; s; s = s->prev) k += is_pc_element(s);
  return k;
}

/* "solver/preconditioner/preconditioner[2]": where e is, for messages */
static void pc_path(xmlNodePtr e, char *out, size_t cap) {
  if (!is_pc_element(e->parent)) {
    snprintf(out, cap, "solver/preconditioner");
    return;
  }
  pc_path(e->parent, out, cap);
  const size_t n = strlen(out);
  snprintf(out + n, cap - n, "/preconditioner[%d]", pc_position(e));
}

/* TS_ERR_INPUT: "FILE:LINE: <preconditioner type="KIND"> at PATH (PLACE): WHAT" */
static int pc_error(reader *r, xmlNodePtr e, const char *attr, ts_pc_place place,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int pc_error(reader *r, xmlNodePtr e, const char *attr, ts_pc_place place,
                    const char *fmt, ...) {
  char loc[1200], path[400], kind[64] = "", what[600];
  where(r, e, attr, node_line(e), loc, sizeof loc);
  pc_path(e, path, sizeof path);
  get_text(e, "type", kind, sizeof kind);
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  return TS_ERROR(TS_ERR_INPUT, "%s: <preconditioner type=\"%s\"> at %s (%s): %s", loc, kind, path,
                  ts_pc_place_name(place), what);
}

/* 1 if word is one of the space-separated words of list */
static int word_in(const char *list, const char *word) {
  const size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
  return 0;
}

/* The kind names a kind of the registry (ts_pc_type_check) that may stand at place. */
static int check_pc_kind(reader *r, xmlNodePtr e, const char *kind, ts_pc_place place,
                         const ts_pc_rule **rule) {
  char allowed[200];
  ts_pc_place_kinds(place, allowed, sizeof allowed);
  if (ts_pc_type_check(kind)) {
    ts_error_clear();
    return pc_error(r, e, "type", place, "unknown kind (the kinds: %s); allowed here: %s",
                    ts_pc_type_names(), allowed);
  }
  *rule = ts_pc_rule_find(kind);
  if (!*rule)
    return pc_error(r, e, "type", place, "%s is a kind for programs (ts_pc_create_%s), not for "
                    "problem files; allowed here: %s", kind, kind, allowed);
  if (!((*rule)->places & 1u << place))
    return pc_error(r, e, "type", place, "%s is not allowed here; allowed here: %s", kind,
                    allowed);
  return 0;
}

/* Every attribute of e is type or one of the rule's. */
static int check_pc_attributes(reader *r, xmlNodePtr e, const ts_pc_rule *rule,
                               ts_pc_place place) {
  for (xmlAttrPtr a = e->properties; a; a = a->next) {
    const char *name = (const char *)a->name;
    if (!strcmp(name, "type") || word_in(rule->attributes, name)) continue;
    return pc_error(r, e, name, place, "%s=\"...\" is not an attribute of %s (%s)", name,
                    rule->kind, *rule->attributes ? rule->attributes : "it has none but type");
  }
  return 0;
}

/* The attributes into node n (defaults as in doc/xml-reference.md). */
static int fill_pc_attributes(xmlNodePtr e, ts_pc_node *n) {
  char method[16] = "cg";
  n->degree = get_int(e, "degree", 3);
  n->jacobi = has_attribute(e, "smoother") || n->place == TS_PC_PLACE_PRESSURE;
  n->weight = get_double(e, "weight", 1.0);
  n->smoothing_steps = get_int(e, "smoothing-steps", 1);
  n->iterations = get_int(e, "iterations", 3);
  n->form = attribute_is(e, "form", "lower") ? TS_PC_LOWER : TS_PC_UPPER;
  get_text(e, "solver", method, sizeof method);
  TS_CALL(ts_solver_type_from_name(method, &n->method)); /* the schema allows the same names */
  n->rtol = get_double(e, "tolerance", 1e-10);
  n->max_iterations = get_int(e, "max-iterations", 1000);
  return 0;
}

/* Where mg's Jacobi V-cycle and richardson fit (the equation's jacobi_places): at the
 * pressure block for Taylor-Hood only (its consistent pressure mass; RT's DGQ mass is
 * diagonal, pressure-mass inverts it exactly); smoother="jacobi" (its weight and steps) for
 * Poisson and the velocity block of Taylor-Hood, implied at the pressure block. */
static int check_pc_fits(reader *r, const struct ts_problem_s *p, xmlNodePtr e,
                         const ts_pc_node *n) {
  const int mg = !strcmp(n->kind, "mg");
  if (!mg && strcmp(n->kind, "richardson")) return 0;
  const int jacobi_place = (p->equation->jacobi_places >> n->place) & 1u;
  if (n->place == TS_PC_PLACE_PRESSURE && !jacobi_place)
    return pc_error(r, e, "type", n->place, "%s at the pressure block works on the consistent "
                    "pressure mass of Taylor-Hood; RT's DGQ pressure mass is diagonal: use "
                    "pressure-mass", n->kind);
  if (!mg) return 0;
  char word[32];
  if (get_text(e, "smoother", word, sizeof word) && strcmp(word, "jacobi"))
    return pc_error(r, e, "smoother", n->place, "smoother=\"%s\": allowed only \"jacobi\" (a "
                    "V-cycle made from parts with weighted Jacobi; the hierarchy's own smoother is "
                    "<multigrid smoother>)", word);
  if (has_attribute(e, "smoother") && !jacobi_place)
    return pc_error(r, e, "smoother", n->place, "smoother=\"jacobi\" is allowed for <poisson> "
                    "and at the blocks of Taylor-Hood only");
  static const char *const steps[] = {"weight", "smoothing-steps"};
  for (int i = 0; i < 2; ++i)
    if (has_attribute(e, steps[i]) && !n->jacobi)
      return pc_error(r, e, steps[i], n->place, "%s=\"...\" belongs to smoother=\"jacobi\"",
                      steps[i]);
  return 0;
}

/* e and its children into p->pc_tree, e at *index (numbered before its children). */
static int read_pc_node(reader *r, struct ts_problem_s *p, xmlNodePtr e, ts_pc_place place,
                        int *index) {
  char kind[64];
  const ts_pc_rule *rule = NULL;
  get_text(e, "type", kind, sizeof kind);
  TS_CALL(check_pc_kind(r, e, kind, place, &rule));
  TS_CALL(check_pc_attributes(r, e, rule, place));
  int n_children = 0;
  for (xmlNodePtr c = e->children; c; c = c->next) n_children += is_pc_element(c);
  if (n_children < rule->min_children || n_children > rule->max_children)
    return pc_error(r, e, NULL, place, "%d child <preconditioner> element%s; %s takes %s",
                    n_children, n_children == 1 ? "" : "s", rule->kind,
                    rule->max_children == 0   ? "none"
                    : rule->min_children == 2 ? "exactly 2, in block order: the velocity block's, "
                                                "then the pressure block's"
                    : rule->min_children == 1 ? "exactly 1, the preconditioner of its steps"
                                              : "at most 1, the inner solve's preconditioner");
  if (p->pc_nodes == TS_PC_TREE_MAX)
    return pc_error(r, e, NULL, place, "more than %d preconditioners in one tree",
                    TS_PC_TREE_MAX);
  *index = p->pc_nodes++;
  ts_pc_node *n = &p->pc_tree[*index];
  snprintf(n->kind, sizeof n->kind, "%s", rule->kind);
  n->place = place;
  TS_CALL(fill_pc_attributes(e, n));
  TS_CALL(check_pc_fits(r, p, e, n));
  for (xmlNodePtr c = e->children; c; c = c->next) {
    if (!is_pc_element(c)) continue;
    TS_CALL(read_pc_node(r, p, c, ts_pc_child_place(rule, place, n->n_children),
                         &n->children[n->n_children]));
    n->n_children++;
  }
  return 0;
}

/* preconditioner="KIND" (checked by the schema and the callers) as a tree of one node */
static void attribute_pc_tree(struct ts_problem_s *p) {
  p->pc_nodes = strcmp(p->preconditioner, "none") != 0;
  if (!p->pc_nodes) return;
  ts_pc_node *n = &p->pc_tree[0];
  snprintf(n->kind, sizeof n->kind, "%s", p->preconditioner);
  n->place = p->equation->pc_place;
}

/* 1 if a node of the tree is of kind */
static int pc_tree_has(const struct ts_problem_s *p, const char *kind) {
  for (int i = 0; i < p->pc_nodes; ++i)
    if (!strcmp(p->pc_tree[i].kind, kind)) return 1;
  return 0;
}

/* <multigrid smoother> and the relaxation's attributes.  Taylor-Hood: "mg" for the whole
 * system is the coupled multigrid, whose smoother is a relaxation of the saddle-point system
 * (default vanka for Q2 x Q1, braess-sarazin above); "mg" at the velocity block is the Q_k
 * Laplacian's hierarchy, whose smoother is vertex-patch or chebyshev. */
static int fill_smoother(reader *r, struct ts_problem_s *p, xmlNodePtr mg) {
  char loc[1200], word[64];
  const int coupled = p->equation->saddle_point_mg && !strcmp(p->pc_tree[0].kind, "mg");
  const int given = get_text(mg, "smoother", word, sizeof word);
  if (given) TS_CALL(ts_mg_smoother_from_name(word, &p->mg.smoother));
  else if (coupled)
    p->mg.smoother = p->degree == 2 ? TS_MG_SMOOTHER_VANKA : TS_MG_SMOOTHER_BRAESS_SARAZIN;
  const int relaxation = ts_mg_smoother_is_saddle(p->mg.smoother);
  if (given && relaxation != coupled) {
    where(r, mg, "smoother", node_line(mg), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid smoother=\"%s\">: %s", loc, word,
                    coupled ? "the coupled Taylor-Hood multigrid (preconditioner \"mg\" of the "
                              "whole system) relaxes the saddle-point system; allowed: vanka "
                              "(Q2 x Q1), braess-sarazin, schur-uzawa"
                    : p->equation->saddle_point_mg ? "the velocity block's multigrid is the Q_k Laplacian's; "
                                       "allowed: vertex-patch, chebyshev (vanka, braess-sarazin "
                                       "and schur-uzawa need preconditioner \"mg\" for the "
                                       "whole system)"
                                     : "a relaxation of the Taylor-Hood system; allowed: "
                                       "vertex-patch, chebyshev");
  }
  if (p->mg.smoother == TS_MG_SMOOTHER_VANKA && p->degree != 2) {
    where(r, mg, "smoother", node_line(mg), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid smoother=\"vanka\"> with <element degree=\"%d\">: "
                    "Vanka's patches hold one pressure DoF per vertex, Q2 x Q1 only; allowed: "
                    "degree 2, or braess-sarazin, schur-uzawa", loc, p->degree);
  }
  static const char *const attrs[] = {"vanka", "weight", "t", "schur-sweeps", "schur-weight"};
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
    if (!has_attribute(mg, attrs[i])) continue;
    const int vanka = p->mg.smoother == TS_MG_SMOOTHER_VANKA;
    const int su = p->mg.smoother == TS_MG_SMOOTHER_SCHUR_UZAWA;
    const int fits = i == 0 ? vanka : i == 1 ? relaxation && !su : relaxation && !vanka;
    if (fits) continue;
    where(r, mg, attrs[i], node_line(mg), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid %s=...> with smoother \"%s\": allowed with "
                    "smoother %s", loc, attrs[i], ts_mg_smoother_word(p->mg.smoother),
                    i == 0 ? "\"vanka\"" : i == 1 ? "\"vanka\" or \"braess-sarazin\""
                                           : "\"braess-sarazin\" or \"schur-uzawa\"");
  }
  ts_saddle_relaxation *rx = &p->mg.relaxation;
  rx->multiplicative = attribute_is(mg, "vanka", "multiplicative");
  rx->weight = get_double(mg, "weight", 0.0);
  rx->t = get_double(mg, "t", 0.0);
  rx->schur_sweeps = get_int(mg, "schur-sweeps", 0);
  rx->schur_weight = get_double(mg, "schur-weight", 0.0);
  return 0;
}

/* <multigrid coarse-degree>: "auto" or 1..the element's degree, Q_k only */
static int fill_coarse_degree(reader *r, struct ts_problem_s *p, xmlNodePtr mg) {
  char loc[1200], word[64];
  if (!get_text(mg, "coarse-degree", word, sizeof word) || !strcmp(word, "auto")) return 0;
  where(r, mg, "coarse-degree", node_line(mg), loc, sizeof loc);
  if (p->equation->stokes_patch_mg)
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid coarse-degree=\"%s\">: the degree levels are "
                    "built for Q_k only; not allowed with <%s> (allowed: \"auto\")", loc, word,
                    p->equation->element);
  p->mg.coarse_degree = get_int(mg, "coarse-degree", 0);
  if (p->mg.coarse_degree > p->degree)
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid coarse-degree=\"%d\">: allowed \"auto\" or "
                    "1..%d (the element's degree; %d adds no degree level)", loc,
                    p->mg.coarse_degree, p->degree, p->degree);
  return 0;
}

/* <multigrid coarse-solver>: auto, dense, cg or amg (the schema's names); a saddle-point
 * coarse level is solved by LU only, and amg assembles the Laplacian of a box */
static int fill_coarse_solver(reader *r, struct ts_problem_s *p, xmlNodePtr mg) {
  char loc[1200], word[64];
  if (!get_text(mg, "coarse-solver", word, sizeof word)) return 0;
  TS_CALL(ts_mg_coarse_solver_from_name(word, &p->mg.coarse_solver));
  const ts_mg_coarse_solver c = p->mg.coarse_solver;
  const int lu_only = p->equation->stokes_patch_mg || p->equation->saddle_point_mg;
  where(r, mg, "coarse-solver", node_line(mg), loc, sizeof loc);
  if (lu_only && c != TS_MG_COARSE_AUTO && c != TS_MG_COARSE_DENSE)
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid coarse-solver=\"%s\">: the saddle-point coarse "
                    "level of <%s> is solved by LU; allowed \"auto\" or \"dense\"", loc, word,
                    p->equation->element);
  if (p->equation->mapped && c == TS_MG_COARSE_CG_AMG)
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid coarse-solver=\"amg\">: BoomerAMG takes the "
                    "assembled Laplacian of a box, not mapped cells; allowed \"auto\", \"dense\" "
                    "or \"cg\"", loc);
  return 0;
}

/* preconditioner="..." or <preconditioner>, not both; into p->pc_tree and its label */
static int fill_preconditioner(reader *r, struct ts_problem_s *p) {
  char loc[1200];
  xmlNodePtr solver = child_element(r->root, "solver");
  xmlNodePtr element = child_element(solver, "preconditioner");
  const int has_attribute_form = has_attribute(solver, "preconditioner");
  if (element && has_attribute_form) {
    where(r, solver, "preconditioner", node_line(solver), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver preconditioner=\"%s\"> and a <preconditioner> "
                    "element: allowed one of them (the attribute for \"none\", \"jacobi\" or "
                    "\"mg\", the element for any tree)", loc, p->preconditioner);
  }
  if (element && p->fmg) {
    where(r, element, NULL, node_line(element), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver type=\"fmg\"> with a <preconditioner> element: "
                    "full multigrid takes no preconditioner; allowed: leave it out", loc);
  }
  if (!element) {
    attribute_pc_tree(p);
    return 0;
  }
  int root;
  p->pc_element = 1;
  TS_CALL(read_pc_node(r, p, element, p->equation->pc_place, &root));
  snprintf(p->preconditioner, sizeof p->preconditioner, "%s", p->pc_tree[root].kind);
  return 0;
}

/* <poisson rhs>, <solver type="fmg">, preconditioner="mg", <multigrid>;
 * the consistency the schema cannot check. */
static int fill_multigrid(reader *r, struct ts_problem_s *p) {
  char loc[1200], word[64];
  xmlNodePtr solver = child_element(r->root, "solver"), mg = child_element(r->root, "multigrid");
  p->fmg = attribute_is(solver, "type", "fmg");
  const int has_pre = has_attribute(solver, "preconditioner");
  if (p->fmg && has_pre && strcmp(p->preconditioner, "mg")) {
    where(r, solver, "preconditioner", node_line(solver), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver type=\"fmg\" preconditioner=\"%s\">: full multigrid "
                    "takes no preconditioner; allowed: leave it out or \"mg\"", loc, p->preconditioner);
  }
  if (p->fmg) snprintf(p->preconditioner, sizeof p->preconditioner, "mg");
  TS_CALL(fill_preconditioner(r, p));
  if (p->equation->check_solver) TS_CALL(p->equation->check_solver(r, p));
  p->use_mg = p->fmg || pc_tree_has(p, "mg");
  if (p->use_mg && p->precision != TS_DOUBLE) {
    where(r, solver, "precision", node_line(solver), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver precision=\"single\"> with multigrid: the outer "
                    "iteration is in double; for a single-precision V-cycle use "
                    "<multigrid precision=\"mixed\">", loc);
  }
  ts_mg_options_default(&p->mg);
  if (mg && !p->use_mg) {
    where(r, mg, NULL, node_line(mg), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid> is given but nothing uses it; allowed with "
                    "<solver type=\"fmg\">, <solver preconditioner=\"mg\"> or <preconditioner "
                    "type=\"mg\">", loc);
  }
  TS_CALL(fill_smoother(r, p, mg));
  if (!mg) return 0;
  if (attribute_is(mg, "variant", "separate")) p->mg.variant = TS_PATCH_SEPARATE;
  if (attribute_is(mg, "precision", "mixed")) p->mg.precision = TS_SINGLE;
  p->mg.chebyshev_degree = get_int(mg, "chebyshev-degree", p->mg.chebyshev_degree);
  p->mg.coarse_level = get_int(mg, "coarse-level", p->mg.coarse_level);
  p->mg_agglomerate = get_int(mg, "agglomerate", 0);
  if (get_text(mg, "coarse-tolerance", word, sizeof word)) {
    if (p->equation->stokes_patch_mg) {
      where(r, mg, "coarse-tolerance", node_line(mg), loc, sizeof loc);
      return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid coarse-tolerance=\"%s\">: the tolerance of the "
                      "coarse-level CG of Q_k; not allowed with <%s> (its coarse level is "
                      "solved by LU)", loc, word, p->equation->element);
    }
    p->mg.coarse_tolerance = get_double(mg, "coarse-tolerance", 0);
  }
  TS_CALL(fill_coarse_degree(r, p, mg));
  TS_CALL(fill_coarse_solver(r, p, mg));
  if (has_attribute(mg, "local-solver")) {
    p->stokes_direct = attribute_is(mg, "local-solver", "direct");
    if (!p->equation->stokes_patch_mg) {
      where(r, mg, "local-solver", node_line(mg), loc, sizeof loc);
      return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid local-solver=\"%s\">: the local solver of the "
                      "Stokes patch smoother; allowed only with <stokes> and family RT", loc,
                      p->stokes_direct ? "direct" : "schur");
    }
  }
  if (get_text(mg, "local-tolerance", word, sizeof word)) {
    if (!p->equation->stokes_patch_mg || p->stokes_direct) {
      where(r, mg, "local-tolerance", node_line(mg), loc, sizeof loc);
      return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid local-tolerance=\"%s\">: the tolerance of the "
                      "pressure CG of the Schur-complement local solver; allowed only with <stokes>, "
                      "family RT and local-solver=\"schur\"", loc, word);
    }
    p->mg.stokes_cg_tolerance = get_double(mg, "local-tolerance", 0);
  }
  if (p->mg.coarse_level > p->first_level) {
    where(r, mg, "coarse-level", node_line(mg), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <multigrid coarse-level=\"%d\">: allowed 0..%d (the %s)", loc,
                    p->mg.coarse_level, p->first_level,
                    p->first_level == p->levels ? "mesh levels" : "first level of the convergence study");
  }
  return 0;
}

/* Fill p from the validated document and check what the schema cannot. */
static int fill_problem(reader *r, struct ts_problem_s *p) {
  char loc[1200], text[128];
  xmlNodePtr root = r->root;
  xmlNodePtr mesh = child_element(root, "mesh"), element = child_element(root, "element");
  xmlNodePtr solver = child_element(root, "solver");
  xmlNodePtr convergence = child_element(root, "convergence");
  xmlNodePtr backend = child_element(root, "backend"), output = child_element(root, "output");

  /* <tessera-problem name> (xs:token: white space collapsed) */
  xmlChar *name = xmlGetProp(root, BAD_CAST "name");
  size_t name_len = collapse_copy(name ? (const char *)name : "", p->name, sizeof p->name);
  xmlFree(name);
  if (name_len >= sizeof p->name) {
    where(r, root, "name", node_line(root), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <%s name=\"%.40s...\">: the name takes %zu bytes; at most %zu are allowed",
                    loc, ROOT_NAME, p->name, name_len, sizeof p->name - 1);
  }


  /* <mesh> */
  p->dim = get_int(mesh, "dim", 2);
  p->levels = get_int(mesh, "levels", 0);
  static const char *const list_attrs[3] = {"lower", "upper", "cells"};
  double values[3][4];
  char list_text[2][128];
  for (int a = 0; a < 3; a++) {
    int n = get_list(mesh, list_attrs[a], values[a], text, sizeof text);
    if (a < 2) snprintf(list_text[a], sizeof list_text[a], "%s", n < 0 ? (a ? "1 ..." : "0 ...") : text);
    if (n < 0) {
      for (int d = 0; d < 3; d++) values[a][d] = a == 0 ? 0.0 : 1.0;
      continue;
    }
    where(r, mesh, list_attrs[a], node_line(mesh), loc, sizeof loc);
    if (n != p->dim) {
      char note[600];
      origin_note(r, mesh, "dim", note, sizeof note);
      return TS_ERROR(TS_ERR_INPUT, "%s: <mesh %s=\"%s\">: %d value%s given, dim=\"%d\"%s needs %d",
                      loc, list_attrs[a], text, n, n == 1 ? "" : "s", p->dim, note, p->dim);
    }
    for (int d = 0; d < n; d++)
      if (!isfinite(values[a][d]))
        return TS_ERROR(TS_ERR_INPUT,
                        "%s: <mesh %s=\"%s\">: the %s value is not a finite number (allowed: "
                        "finite numbers)",
                        loc, list_attrs[a], text, direction_names[d]);
  }
  for (int d = 0; d < 3; d++) {
    p->lower[d] = d < p->dim ? values[0][d] : 0.0;
    p->upper[d] = d < p->dim ? values[1][d] : 1.0;
    p->coarse[d] = d < p->dim ? (int)values[2][d] : 1;
  }
  for (int d = 0; d < p->dim; d++) {
    if (ts_box_extent_ok(p->lower[d], p->upper[d])) continue;
    const char *attr = find_override(r, mesh, "upper") ? "upper" : "lower";
    where(r, mesh, attr, node_line(mesh), loc, sizeof loc);
    if (!(p->upper[d] > p->lower[d]))
      return TS_ERROR(TS_ERR_INPUT,
                      "%s: <mesh lower=\"%s\" upper=\"%s\">: in direction %s upper = %g is not "
                      "greater than lower = %g (allowed: upper > lower in every direction)",
                      loc, list_text[0], list_text[1], direction_names[d], p->upper[d], p->lower[d]);
    return TS_ERROR(TS_ERR_INPUT,
                    "%s: <mesh lower=\"%s\" upper=\"%s\">: in direction %s the extent upper - "
                    "lower = %g (allowed: upper - lower from %g to %g in every direction, so that "
                    "the cell size h and 1/h are finite on every level)",
                    loc, list_text[0], list_text[1], direction_names[d], p->upper[d] - p->lower[d],
                    TS_BOX_MIN_EXTENT, TS_BOX_MAX_EXTENT);
  }

  TS_CALL(fill_map(r, p, mesh));

  /* <element>, <poisson> or <stokes> */
  p->degree = get_int(element, "degree", 1);
  TS_CALL(fill_equation(r, p));

  /* <convergence> */
  p->first_level = get_int(convergence, "first-level", p->levels);
  if (p->first_level > p->levels) {
    char note[600];
    where(r, convergence, "first-level", node_line(convergence), loc, sizeof loc);
    origin_note(r, mesh, "levels", note, sizeof note);
    return TS_ERROR(TS_ERR_INPUT,
                    "%s: <convergence first-level=\"%d\">: greater than the mesh's levels=\"%d\"%s "
                    "(allowed: 0 to %d)",
                    loc, p->first_level, p->levels, note, p->levels);
  }

  /* The size of the finest level. */
  if (!p->equation->dofs_bound(p)) {
    const char *attr = find_override(r, mesh, "levels")  ? "levels"
                       : find_override(r, mesh, "cells") ? "cells"
                                                         : "levels";
    xmlNodePtr at = mesh;
    if (find_override(r, element, "degree") && !find_override(r, mesh, attr)) {
      at = element;
      attr = "degree";
    }
    where(r, at, attr, node_line(at), loc, sizeof loc);
    double estimate = 1;
    for (int d = 0; d < p->dim; d++)
      estimate *= ldexp((double)p->coarse[d], p->levels) * p->degree + 1;
    char cells[64] = "";
    for (int d = 0; d < p->dim; d++)
      snprintf(cells + strlen(cells), sizeof cells - strlen(cells), "%s%d", d ? " " : "",
               p->coarse[d]);
    char count[64];
    if (estimate < 0x1p53)
      snprintf(count, sizeof count, "%.0f", estimate);
    else
      snprintf(count, sizeof count, "about %.3g", estimate);
    return TS_ERROR(TS_ERR_INPUT,
                    "%s: <mesh cells=\"%s\" levels=\"%d\"> with <element degree=\"%d\">: the "
                    "finest level would have %s DoFs (the product of cells*2^levels*degree+1); "
                    "at most 2^40 = %llu are allowed",
                    loc, cells, p->levels, p->degree, count, (unsigned long long)TS_PROBLEM_MAX_DOFS);
  }

  /* <solver>; defaults as documented in the schema (type: the equation's, cg for Poisson,
   * gmres for Stokes; type="fmg" is full multigrid, fill_multigrid) */
  p->solver = p->equation->default_solver;
  if (has_attribute(solver, "type") && !attribute_is(solver, "type", "fmg")) {
    get_text(solver, "type", text, sizeof text);
    TS_CALL(ts_solver_type_from_name(text, &p->solver)); /* the schema allows the same names */
  }
  snprintf(p->preconditioner, sizeof p->preconditioner, "%s",
           p->equation->default_preconditioner);
  TS_CALL(copy_value(r, solver, "preconditioner", p->preconditioner, sizeof p->preconditioner));
  p->rtol = get_double(solver, "rtol", 1e-10);
  if (!(p->rtol > 0 && p->rtol < 1)) {
    get_text(solver, "rtol", text, sizeof text);
    where(r, solver, "rtol", node_line(solver), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver rtol=\"%s\">: allowed: a number greater than 0 and less than 1",
                    loc, text);
  }
  p->max_iterations = get_int(solver, "max-iterations", 10000);
  p->restart = get_int(solver, "restart", 50);
  p->side = attribute_is(solver, "side", "left") ? TS_SIDE_LEFT : TS_SIDE_RIGHT;
  if (p->side == TS_SIDE_LEFT && !ts_solver_takes_left_side(p->solver)) {
    where(r, solver, "side", node_line(solver), loc, sizeof loc);
    return TS_ERROR(TS_ERR_INPUT, "%s: <solver type=\"%s\" side=\"left\">: %s takes its "
                    "preconditioner from the right; allowed: side=\"right\", or type=\"gmres\" "
                    "for left preconditioning", loc, ts_solver_type_name(p->solver),
                    ts_solver_type_name(p->solver));
  }
  p->precision = attribute_is(solver, "precision", "single") ? TS_SINGLE : TS_DOUBLE;

  /* <backend> */
  snprintf(p->backend, sizeof p->backend, "omp");
  TS_CALL(copy_value(r, backend, "name", p->backend, sizeof p->backend));

  /* <output> */
  p->vtu_path[0] = 0;
  p->vtu_subdivisions = 0;
  if (output) {
    xmlChar *vtu = xmlGetProp(output, BAD_CAST "vtu");
    size_t len = vtu ? strlen((const char *)vtu) : 0;
    if (len >= sizeof p->vtu_path) {
      xmlFree(vtu);
      where(r, output, "vtu", node_line(output), loc, sizeof loc);
      return TS_ERROR(TS_ERR_INPUT, "%s: <output vtu=...>: the path takes %zu bytes; at most %zu are allowed",
                      loc, len, sizeof p->vtu_path - 1);
    }
    memcpy(p->vtu_path, vtu ? (const char *)vtu : "", len + 1);
    xmlFree(vtu);
    /* the degree: k of Q_k and Taylor-Hood's velocity, k+1 of RT_k (its velocity's degree
     * along a component) */
    p->vtu_subdivisions = get_int(output, "subdivisions",
                                  p->degree + p->equation->output_degree_extra);
  }
  TS_CALL(fill_multigrid(r, p));
  return p->equation->check_problem ? p->equation->check_problem(r, p) : 0;
}

/* ---------------------------------------------------------------- public functions */

/* The arguments both readers share; name (called what) is the file's. */
static int check_read_arguments(const char *function, const char *what, const char *name,
                                int n_overrides, const char *const *overrides,
                                ts_problem *problem) {
  TS_CHECK_ARG(problem, "%s: problem (the output handle) is NULL", function);
  *problem = NULL;
  TS_CHECK_ARG(name && *name, "%s: the %s is %s", function, what, name ? "empty" : "NULL");
  TS_CHECK_ARG(n_overrides >= 0, "%s: n_overrides = %d is negative", function, n_overrides);
  TS_CHECK_ARG(n_overrides == 0 || overrides, "%s: n_overrides = %d but overrides is NULL",
               function, n_overrides);
  const size_t len = strlen(name);
  TS_CHECK_ARG(len < sizeof((struct ts_problem_s *)0)->source,
               "%s: the %s takes %zu bytes; at most %zu are allowed", function, what, len,
               sizeof((struct ts_problem_s *)0)->source - 1);
  return 0;
}

int ts_problem_read_xml(const char *path, int n_overrides, const char *const *overrides,
                        ts_problem *problem) {
  TS_CALL(check_read_arguments("ts_problem_read_xml", "path", path, n_overrides, overrides,
                              problem));
  char *bytes;
  size_t size;
  TS_CALL(ts_problem_file_bytes(path, &bytes, &size));
  int code = ts_problem_read_memory(path, bytes, size, n_overrides, overrides, problem);
  free(bytes);
  return code;
}

int ts_problem_read_memory(const char *name, const char *bytes, size_t size, int n_overrides,
                           const char *const *overrides, ts_problem *problem) {
  TS_CALL(check_read_arguments("ts_problem_read_memory", "name", name, n_overrides, overrides,
                              problem));
  TS_CHECK_ARG(bytes || !size, "ts_problem_read_memory: bytes is NULL and size = %zu", size);

  xmlInitParser();
  reader r;
  memset(&r, 0, sizeof r);
  r.path = name;
  const global_handlers saved = collect_global_errors(&r);
  struct ts_problem_s *p = NULL;
  int code = read_document(&r, bytes ? bytes : "", size);
  for (int i = 0; !code && i < n_overrides; i++) code = apply_override(&r, overrides[i]);
  if (!code) code = validate(&r);
  if (!code) {
    p = calloc(1, sizeof *p);
    if (!p) code = TS_ERROR(TS_ERR_MEMORY, "%s: could not allocate the problem", name);
  }
  if (!code) {
    snprintf(p->source, sizeof p->source, "%s", name);
    code = fill_problem(&r, p);
  }
  reader_free(&r);
  restore_global_errors(&saved);
  if (code) {
    free(p);
    return code;
  }
  *problem = p;
  return 0;
}

int ts_problem_read_string(const char *name, const char *xml, ts_problem *problem) {
  TS_CHECK_ARG(xml, "ts_problem_read_string: xml is NULL");
  return ts_problem_read_memory(name, xml, strlen(xml), 0, NULL, problem);
}

int ts_problem_destroy(ts_problem *problem) {
  if (problem) {
    free(*problem);
    *problem = NULL;
  }
  return 0;
}

/* Vectors of the finest level's size that a solver of type keeps: x, b, r, p, A p and the
 * preconditioned residual or the Jacobi diagonal for CG; 9 for MINRES; restart + 5 for
 * GMRES (restart + 1 Krylov basis vectors, x, b, w and the preconditioner's work vector),
 * restart more with a preconditioner (the flexible form). */
static uint64_t solver_vectors(ts_solver_type type, int restart, int preconditioned) {
  if (type == TS_SOLVER_GMRES || type == TS_SOLVER_FGMRES)
    return (uint64_t)restart * (preconditioned ? 2 : 1) + 5;
  return type == TS_SOLVER_MINRES ? 9 : 6;
}

/* What the preconditioner tree keeps beyond the solver and the hierarchy, bounded in vectors
 * of the finest level's size: an inner solve its solver's (at ts_solver_create's restart,
 * 50), Chebyshev its diagonal and work vector, Richardson its residual and correction, a
 * V-cycle made from parts (smoother="jacobi") its levels' b, x, r and t (under 4 x 4/3
 * vectors of a block: 3), a node on the Stokes system or its blocks one (a diagonal, a work
 * vector) and the blocks' padded inputs and outputs 2 in all (Jacobi and the V-cycle on the
 * whole Poisson or Stokes system are counted with the solver and the hierarchy). */
static uint64_t pc_tree_vectors(const struct ts_problem_s *p) {
  uint64_t vectors = 0;
  for (int i = 0; i < p->pc_nodes; ++i) {
    const ts_pc_node *n = &p->pc_tree[i];
    if (!strcmp(n->kind, "krylov"))
      vectors += solver_vectors(n->method, 50, n->n_children);
    else if (!strcmp(n->kind, "chebyshev") || !strcmp(n->kind, "richardson"))
      vectors += 2;
    else if (!strcmp(n->kind, "mg") && n->jacobi)
      vectors += 3;
    else if (n->place != TS_PC_PLACE_POISSON && strcmp(n->kind, "mg"))
      vectors += 1 + 2 * (i == 0);
  }
  return vectors;
}

/* The finest level's needs, in bytes:
 *   bytes = vectors * n_dofs * sizeof(scalar) + 2 * 8 * n_dofs
 * with vectors those of the solver (solver_vectors) and the preconditioner tree
 * (pc_tree_vectors), sizeof(scalar) = 8 or 4 for double or single precision, and two
 * double-precision host copies (the solution read back and the exact values). */
int ts_problem_memory_estimate(ts_problem problem, size_t *bytes) {
  TS_CHECK_ARG(problem, "ts_problem_memory_estimate: problem is NULL");
  TS_CHECK_ARG(bytes, "ts_problem_memory_estimate: bytes is NULL");
  uint64_t n = problem->equation->dofs_bound(problem);
  if (!n)
    return TS_ERROR(TS_ERR_INPUT, "problem '%s': the finest level has more than 2^40 DoFs",
                    problem->name);
  uint64_t vectors = solver_vectors(problem->solver, problem->restart,
                                    !problem->fmg && problem->pc_nodes);
  uint64_t scalar = ts_precision_size(problem->precision);
  /* the hierarchy holds 3 vectors per level (a geometric series: at most 2 finest ones in
   * total in 2D, 8/7 in 3D, so 6 finest vectors bound it) in the V-cycle precision, 2
   * double work vectors, and the smoother's own data, bounded by 2 more vectors. */
  if (problem->use_mg)
    vectors += 2 + ts_precision_size(problem->mg.precision); /* 8 (or 4 single) finest vectors */
  vectors += pc_tree_vectors(problem);
  /* n <= 2^40 and vectors * scalar + 16 < 2^15 (restart <= 1000, at most 16 nodes of at most
   * 105 vectors): no overflow in 64 bits; the coupling blocks (fewer than n pressure DoFs,
   * 2 dim 21^dim 12 < 2^20 bytes each for k <= 10) add less than 2^60. */
  const ts_equation *eq = problem->equation;
  uint64_t total = n * (vectors * scalar + 16) + (eq->extra_bytes ? eq->extra_bytes(problem) : 0);
  if (total > SIZE_MAX)
    return TS_ERROR(TS_ERR_MEMORY,
                    "problem '%s' needs %llu bytes, more than this machine can address",
                    problem->name, (unsigned long long)total);
  *bytes = (size_t)total;
  return 0;
}

int ts_problem_check_memory(ts_problem problem, size_t available) {
  size_t bytes;
  TS_CALL(ts_problem_memory_estimate(problem, &bytes));
  if (bytes <= available) return 0;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  return TS_ERROR(TS_ERR_MEMORY,
                  "problem '%s' needs about %.3g GiB on the finest level (%llu DoFs) but only "
                  "%.3g GiB are available",
                  problem->name, (double)bytes / gib, (unsigned long long)problem->equation->dofs_bound(problem),
                  (double)available / gib);
}

const char *ts_problem_backend(ts_problem problem) {
  TS_GETTER_NOT_NULL(problem, "");
  return problem->backend;
}

const char *ts_problem_name(ts_problem problem) {
  TS_GETTER_NOT_NULL(problem, "");
  return problem->name;
}

const char *ts_problem_equation(ts_problem problem) {
  TS_GETTER_NOT_NULL(problem, "");
  return ts_equation_of(problem)->name;
}

int ts_problem_discretization(ts_problem problem, ts_problem_settings *settings, ts_mesh *mesh,
                              ts_fe *fe) {
  TS_CHECK_ARG(problem && settings && mesh && fe, "ts_problem_discretization: NULL argument");
  *mesh = NULL;
  *fe = NULL;
  memset(settings, 0, sizeof *settings);
  settings->stokes = problem->stokes;
  settings->taylor_hood = problem->taylor_hood;
  settings->own = problem->own;
  TS_CALL(problem->equation->solution_settings(problem, settings));
  settings->dim = problem->dim;
  settings->degree = problem->degree;
  settings->level = problem->levels;
  settings->solver = problem->solver;
  settings->jacobi = strcmp(problem->preconditioner, "jacobi") == 0;
  settings->multigrid = problem->use_mg;
  problem->equation->mg_options(problem, &settings->mg);
  settings->rtol = problem->rtol;
  settings->max_iterations = problem->max_iterations;
  settings->restart = problem->restart;
  settings->precision = problem->precision;
  TS_CALL(ts_problem_mesh_create(problem, mesh));
  int ierr = problem->equation->fe_create(problem->dim, problem->degree, fe);
  if (ierr) ts_mesh_destroy(mesh);
  return ierr;
}
