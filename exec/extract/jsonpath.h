/* jsonpath.h: one value of a JSON text by its path, for json(FIELD).path
 * (docs/query-language.md, "JSON logs"): the field holds JSON as text (a
 * container's log line, a message carrying its own object), read only
 * where a query asks, only as far as the path goes. No allocation. */
#ifndef DTAIL_EXEC_EXTRACT_JSONPATH_H
#define DTAIL_EXEC_EXTRACT_JSONPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest nesting read; a deeper text is no JSON here. */
#define JSONPATH_DEPTH 64

/* Finds path ("a.b.0": keys of objects, a number a member of an array;
 * NUL-terminated) in the JSON text [p, p+n). True with *v, *vlen the
 * value: a string's bytes between its quotes (*escaped: it has
 * backslash escapes to undo, extract_json_unescape), a number, true or
 * false as written, an object or array as its JSON text. False when the
 * text is no JSON up to there, the path is not in it, or the value is
 * null. */
bool jsonpath_find(const char *p, size_t n, const char *path, const char **v, uint32_t *vlen,
                   bool *escaped);

/* A string value's escapes undone into out (len bytes of room): its
 * length. */
uint32_t jsonpath_unescape(const char *s, uint32_t len, char *out);

#endif
