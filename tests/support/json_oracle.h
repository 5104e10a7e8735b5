/* json_oracle.h: jansson as the reference for the `json` extractor's
 * differential tests (tests/unit/test_extract_json.c,
 * tests/fuzz/fuzz_extract_json.c). Header-only. */
#ifndef DTAIL_TESTS_JSON_ORACLE_H
#define DTAIL_TESTS_JSON_ORACLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"

/* The value at a dotted name in the jansson tree: every way of reading the
 * name as keys joined by '.' is tried (a key may hold a '.' itself), an
 * array's members named by index; *ways counts the matches, and only an
 * unambiguous value should be compared. */
static inline json_t *jansson_get(json_t *node, const char *name, int *ways);

/* In an array, a name starts with an index written as the extractor
 * writes it (decimal, no leading zero): the member, or below it. */
static inline json_t *jansson_get_index(json_t *node, const char *name, int *ways)
{
    size_t k = 0, v = 0;
    while (name[k] >= '0' && name[k] <= '9' && k < 10)
        v = v * 10 + (size_t)(name[k++] - '0');
    if (k == 0 || (name[0] == '0' && k > 1) || (name[k] && name[k] != '.'))
        return NULL;
    json_t *m = json_array_get(node, v);
    if (!m)
        return NULL;
    if (!name[k]) {
        (*ways)++;
        return m;
    }
    return jansson_get(m, name + k + 1, ways);
}

static inline json_t *jansson_get(json_t *node, const char *name, int *ways)
{
    json_t *found = NULL;
    if (json_is_array(node))
        return jansson_get_index(node, name, ways);
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

/* Whether jansson refused a document for one of its own limits (numbers
 * out of range, invalid UTF-8, depth, NUL), which the extractor need not
 * share. */
static inline bool jansson_limit(const json_error_t *je)
{
    return strstr(je->text, "too big") || strstr(je->text, "overflow") ||
           strstr(je->text, "unable to decode byte") || strstr(je->text, "nvalid Unicode") ||
           strstr(je->text, "maximum parsing depth") || strstr(je->text, "NUL byte");
}

static inline bool jansson_common_name(const char *name)
{
    return name[0] == '$' || strcmp(name, "*") == 0;
}

/* Checks one accepted line's value v of name against jansson's tree
 * (aborts when they differ): a string the same bytes, anything else raw
 * text that parses to an equal value. With duplicate keys, a dotted name
 * that a literal "a.b" key and a nested path can both give depends on key
 * order, which the tree has lost: skipped. */
static inline void jansson_compare(const char *name, sv_t v, json_t *root, bool dups)
{
    if (jansson_common_name(name) || (dups && strchr(name, '.')))
        return;
    int ways = 0;
    json_t *want = jansson_get(root, name, &ways);
    if (ways > 1)
        return;
    if (!want) {
        if (v.len != SV_MISSING)
            abort();
        return;
    }
    if (v.len == SV_MISSING)
        abort();
    if (json_is_string(want)) {
        if (v.len != json_string_length(want) || memcmp(v.p, json_string_value(want), v.len) != 0)
            abort();
        return;
    }
    json_error_t je;
    json_t *mine = json_loadb(v.p, v.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!mine) {
        if (jansson_limit(&je))
            return;
        abort();
    }
    if (!json_equal(mine, want))
        abort();
    json_decref(mine);
}

#endif
