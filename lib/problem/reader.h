/* reader.h -- what the problem-file reader (problem.c) lends the equations' read hooks
 * (equation.h): the root's elements, their attributes after validation (lexically valid and
 * in range: the schema checked them) and the location of a value for messages
 * ("file:line", or "file (from --set PATH=VALUE)" when an override put it there).  The
 * equations never parse XML themselves. */
#ifndef TESSERA_READER_H
#define TESSERA_READER_H

#include "problem-impl.h"

typedef struct reader ts_reader;               /* problem.c's reader state */
typedef struct _xmlNode *ts_xml_element;       /* an element of the document (libxml2's) */

/* the root's child element name, NULL if the file has none */
ts_xml_element ts_reader_element(const ts_reader *r, const char *name);
/* the problem file's path (the folder of files it names) */
const char *ts_reader_path(const ts_reader *r);
/* where element's attribute (NULL: the element) is, into out: "file:line" or the override */
void ts_reader_where(const ts_reader *r, ts_xml_element element, const char *attribute,
                     char *out, size_t cap);

/* 1 if element (may be NULL) has the attribute */
int ts_reader_has(ts_xml_element element, const char *attribute);
/* 1 if the attribute is present and its value without surrounding white space is word */
int ts_reader_is(ts_xml_element element, const char *attribute, const char *word);
/* the attribute trimmed into out for a message (a long value shortened with "..."); 0 if
 * absent */
int ts_reader_text(ts_xml_element element, const char *attribute, char *out, size_t cap);
/* the attribute without surrounding white space into the field out of cap bytes (unchanged
 * if absent); a value that does not fit is an error naming where it is */
int ts_reader_copy(const ts_reader *r, ts_xml_element element, const char *attribute,
                   char *out, size_t cap);
/* the attribute's number, fallback if absent */
double ts_reader_double(ts_xml_element element, const char *attribute, double fallback);

/* "box", "kershaw", "sine", "shell": <mesh map=...>'s word for map */
const char *ts_reader_map_name(ts_mesh_map map);
/* copies prod_d (cells_d 2^levels per_cell + 1) for p's finest level: a bound of DoFs,
 * 0 past the largest count a problem may ask for (2^40) */
uint64_t ts_reader_grid_dofs(const struct ts_problem_s *p, uint64_t per_cell, uint64_t copies);
#define TS_PROBLEM_MAX_DOFS ((uint64_t)1 << 40)

#endif
