/* fuzz_extract_json.c: libFuzzer target over the `json` format.
 *
 * Input layout: two bytes choose which of 16 candidate field names are
 * requested, one byte the batch size, the rest is lines separated by '\n'.
 * Aborts when a status is invalid, a view points outside its line and the
 * extractor's own storage, a rejected line has a value, the batch's error
 * message disagrees with its statuses, a line gives another result alone
 * than in a batch, or the result disagrees with jansson: the same lines are
 * objects, and requested values are the same strings (or, raw, parse to
 * the same JSON). Documents jansson cannot take (numbers out of range, lone
 * surrogates, invalid UTF-8, NUL in keys) and ours beyond the depth limit
 * are not compared; lines with a raw NUL byte must be rejected. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[16] = {
    "a", "b", "a.b", "a.b.c", "", "k", "x.y", "$line", "*", "a.", "s", "n", "arr", "o.p",
    "$hostname", "q\"",
};

static bool jansson_limit(const json_error_t *je)
{
    return strstr(je->text, "too big") || strstr(je->text, "overflow") ||
           strstr(je->text, "unable to decode byte") || strstr(je->text, "nvalid Unicode") ||
           strstr(je->text, "maximum parsing depth") || strstr(je->text, "NUL byte");
}

/* The value at a dotted name, trying every split of the name into keys;
 * *ways counts the matches (only an unambiguous one is compared). */
static json_t *jansson_get(json_t *node, const char *name, int *ways)
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

static bool common_name(const char *name)
{
    return name[0] == '$' || strcmp(name, "*") == 0;
}

/* Checks one accepted line's values against jansson's tree. With
 * duplicate keys, a dotted name that a literal "a.b" key and a nested path
 * can both give depends on key order, which the tree has lost: skipped. */
static void compare(const char *name, sv_t v, json_t *root, bool dups)
{
    if (common_name(name) || (dups && strchr(name, '.')))
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    unsigned mask = (unsigned)data[0] | (unsigned)data[1] << 8;
    size_t batch = 1 + data[2] % 16;
    const char *fields[16];
    size_t nf = 0;
    for (int k = 0; k < 16; k++)
        if (mask >> k & 1)
            fields[nf++] = names[k];
    extract_env_t env = {"fuzzhost", "UTC", "0"};
    err_t e;
    extractor_t *x = extractor_new("json", fields, nf, &env, &e);
    if (!x)
        abort();

    const char *text = (const char *)data + 3;
    size_t n = size - 3, n_lines = 1;
    for (size_t k = 0; k < n; k++)
        n_lines += text[k] == '\n';
    char **lines = calloc(n_lines, sizeof *lines);
    uint32_t *lens = calloc(n_lines, sizeof *lens);
    size_t i = 0, at = 0;
    for (size_t k = 0; k <= n; k++)
        if (k == n || text[k] == '\n') {
            lens[i] = (uint32_t)(k - at);
            lines[i] = malloc(lens[i] ? lens[i] : 1);
            memcpy(lines[i], text + at, lens[i]);
            i++;
            at = k + 1;
        }

    sv_t *mem = calloc((nf ? nf : 1) * batch, sizeof *mem);
    sv_t *cols[16];
    for (size_t f = 0; f < nf; f++)
        cols[f] = mem + f * batch;
    uint8_t st[16];
    json_t *roots[16];
    for (size_t b = 0; b < n_lines; b += batch) {
        size_t m = n_lines - b < batch ? n_lines - b : batch;
        extract_batch(x, (const char *const *)lines + b, lens + b, m, cols, st);
        bool any_err = false;
        for (size_t r = 0; r < m; r++) {
            const char *lp = lines[b + r];
            uint32_t ll = lens[b + r];
            if (st[r] > EXTRACT_ERROR || st[r] == EXTRACT_SKIP)
                abort();
            any_err |= st[r] == EXTRACT_ERROR;
            roots[r] = NULL;
            for (size_t f = 0; f < nf; f++) {
                sv_t v = cols[f][r];
                if (v.len == SV_MISSING)
                    continue;
                if (st[r] != EXTRACT_OK)
                    abort();
                bool inside = v.p >= lp && v.p + v.len <= lp + ll;
                if (!inside && !extract_owns(x, v.p, v.len))
                    abort();
            }
            const char *tp = lp;
            uint32_t tl = ll;
            extract_trim(&tp, &tl);
            /* a raw NUL byte is never valid JSON (jansson lets some pass) */
            if (tl && memchr(tp, '\0', tl)) {
                if (st[r] != EXTRACT_ERROR)
                    abort();
                continue;
            }
            json_error_t je;
            json_t *root = json_loadb(tp, tl, JSON_ALLOW_NUL, &je);
            if (!root && jansson_limit(&je))
                continue;
            bool j_ok = root && json_is_object(root);
            if (j_ok && st[r] == EXTRACT_OK) {
                json_t *strict = json_loadb(tp, tl, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &je);
                bool dups = !strict;
                json_decref(strict);
                for (size_t f = 0; f < nf; f++)
                    compare(fields[f], cols[f][r], root, dups);
            }
            roots[r] = root;
            if (j_ok != (st[r] == EXTRACT_OK)) {
                /* only our depth limit may reject what jansson takes */
                if (j_ok) {
                    roots[r] = NULL;
                    json_decref(root);
                    uint8_t s1;
                    sv_t one[16];
                    sv_t *oc[16];
                    for (size_t f = 0; f < nf; f++)
                        oc[f] = &one[f];
                    /* (the batch's views are not used after this) */
                    extract_batch(x, (const char *const *)lines + b + r, lens + b + r, 1, oc, &s1);
                    if (!strstr(extractor_last_error(x), "nesting too deep"))
                        abort();
                    extract_batch(x, (const char *const *)lines + b, lens + b, m, cols, st);
                    continue;
                }
                abort();
            }
        }
        if (any_err != (extractor_last_error(x)[0] != '\0'))
            abort();
        /* each line alone gives the same statuses and values */
        sv_t *keep = calloc((nf ? nf : 1) * m, sizeof *keep);
        char **copies = calloc((nf ? nf : 1) * m, sizeof *copies);
        for (size_t r = 0; r < m; r++)
            for (size_t f = 0; f < nf; f++) {
                keep[r * nf + f] = cols[f][r];
                if (cols[f][r].len != SV_MISSING) {
                    copies[r * nf + f] = malloc(cols[f][r].len + 1);
                    memcpy(copies[r * nf + f], cols[f][r].p, cols[f][r].len);
                }
            }
        for (size_t r = 0; r < m; r++) {
            sv_t one[16];
            sv_t *oc[16];
            for (size_t f = 0; f < nf; f++)
                oc[f] = &one[f];
            uint8_t s1;
            extract_batch(x, (const char *const *)lines + b + r, lens + b + r, 1, oc, &s1);
            if (s1 != st[r])
                abort();
            for (size_t f = 0; f < nf; f++) {
                sv_t k = keep[r * nf + f];
                if (one[f].len != k.len)
                    abort();
                if (k.len != SV_MISSING && k.len && memcmp(one[f].p, copies[r * nf + f], k.len))
                    abort();
            }
            json_decref(roots[r]);
        }
        for (size_t k = 0; k < nf * m; k++)
            free(copies[k]);
        free(copies);
        free(keep);
    }
    for (size_t k = 0; k < n_lines; k++)
        free(lines[k]);
    free(lines);
    free(lens);
    free(mem);
    extractor_free(x);
    return 0;
}
