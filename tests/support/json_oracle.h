/* json_oracle.h: jansson as the reference for the `json` extractor's
 * differential tests (tests/unit/test_extract_json.c,
 * tests/fuzz/fuzz_extract_json.c). Header-only. */
#ifndef DTAIL_TESTS_JSON_ORACLE_H
#define DTAIL_TESTS_JSON_ORACLE_H

#include <jansson.h>
#include <string.h>

/* The value at a dotted name in the jansson tree: every way of reading the
 * name as keys joined by '.' is tried (a key may hold a '.' itself); *ways
 * counts the matches, and only an unambiguous value should be compared. */
static inline json_t *jansson_get(json_t *node, const char *name, int *ways)
{
    json_t *found = NULL;
    if (!json_is_object(node))
        return NULL;
    json_t *whole = json_object_get(node, name);
    if (whole) {
        found = whole;
        (*ways)++;
    }
    for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
        json_t *child = json_object_getn(node, name, (size_t)(dot - name));
        json_t *sub = child ? jansson_get(child, dot + 1, ways) : NULL;
        if (sub)
            found = sub;
    }
    return found;
}

#endif
