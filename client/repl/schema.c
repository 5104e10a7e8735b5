/* schema.c: field names from a sample, values from the extractor. */
#include "client/repl/schema.h"

#include "exec/extract/detect.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"


#define SAMPLE_VALUE_MAX 60   /* bytes of a sample value shown */

typedef struct sample_lines {
    const char *line[REPL_SCHEMA_MAX_LINES]; /* line starts */
    uint32_t len[REPL_SCHEMA_MAX_LINES];     /* lengths without '\n' */
    size_t n;                                /* lines */
} sample_lines_t;

static void split_lines(const char *p, size_t len, sample_lines_t *sl)
{
    sl->n = 0;
    const char *end = p + len;
    while (p < end && sl->n < REPL_SCHEMA_MAX_LINES) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl && sl->n)
            break;   /* a line cut by the sample's end */
        const char *le = nl ? nl : end;
        if (le > p && le[-1] == '\r')
            le--;
        sl->line[sl->n] = p;
        sl->len[sl->n++] = (uint32_t)(le - p);
        p = nl ? nl + 1 : end;
    }
}

static int has_field(const repl_schema_t *s, const char *name, size_t n)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->fields[i].name) == n && !memcmp(s->fields[i].name, name, n))
            return 1;
    return 0;
}

static int add_field(repl_schema_t *s, const char *name, size_t n)
{
    /* A query cannot name a field holding a NUL byte: not offered. */
    if (n == 0 || memchr(name, '\0', n) || has_field(s, name, n))
        return 0;
    if (GROW_ARRAY(s->fields, s->cap, s->n + 1, 64) < 0)
        return -1;
    char *copy = strndup(name, n);
    if (!copy)
        return -1;
    s->fields[s->n++] = (repl_field_t){copy, NULL};
    return 0;
}

static void trim(const char **p, size_t *n)
{
    while (*n && (**p == ' ' || **p == '\t')) {
        (*p)++;
        (*n)--;
    }
    while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
        (*n)--;
}

/* The keys of |-separated key=value tokens of [p, p+n). */
static int kv_names(repl_schema_t *s, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        const char *bar = memchr(p, '|', (size_t)(end - p));
        const char *te = bar ? bar : end;
        const char *eq = memchr(p, '=', (size_t)(te - p));
        if (eq) {
            const char *k = p;
            size_t kn = (size_t)(eq - p);
            trim(&k, &kn);
            if (s->n < REPL_SCHEMA_MAX_FIELDS && add_field(s, k, kn) < 0)
                return -1;
        }
        p = bar ? bar + 1 : end;
    }
    return 0;
}

/* DTail's MAPREDUCE lines: the key=value tokens after MAPREDUCE:TABLE. */
static int default_names(repl_schema_t *s, const char *p, size_t n)
{
    const char *m = memmem(p, n, "|MAPREDUCE:", 11);
    if (!m)
        return 0;
    const char *rest = memchr(m + 1, '|', (size_t)(p + n - m - 1));
    return rest ? kv_names(s, rest + 1, (size_t)(p + n - rest - 1)) : 0;
}

/* The header of a CSV sample: its first line's columns. */
static int csv_names(repl_schema_t *s, const char *p, size_t n)
{
    const char *end = p + n;
    while (p <= end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        const char *ce = c ? c : end;
        const char *k = p;
        size_t kn = (size_t)(ce - p);
        trim(&k, &kn);
        if (kn >= 2 && k[0] == '"' && k[kn - 1] == '"') {
            k++;
            kn -= 2;
        }
        if (s->n < REPL_SCHEMA_MAX_FIELDS && add_field(s, k, kn) < 0)
            return -1;
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

/* JSON keys, nested ones as a.b (as logformat json names them). */
static int json_names(repl_schema_t *s, json_t *obj, const char *prefix, int depth)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        char name[512];
        int k = snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", key);
        if (k < 0 || (size_t)k >= sizeof name)
            continue;
        if (json_is_object(v) && depth < 4) {
            if (json_names(s, v, name, depth + 1) < 0)
                return -1;
        } else if (s->n < REPL_SCHEMA_MAX_FIELDS && add_field(s, name, (size_t)k) < 0) {
            return -1;
        }
    }
    return 0;
}

static int dynamic_names(repl_schema_t *s, const sample_lines_t *sl)
{
    const char *fmt = s->fmt->name;
    if (!strcmp(fmt, "csv"))
        return sl->n ? csv_names(s, sl->line[0], sl->len[0]) : 0;
    for (size_t i = 0; i < sl->n; i++) {
        int rc = 0;
        if (!strcmp(fmt, "default")) {
            rc = default_names(s, sl->line[i], sl->len[i]);
        } else if (!strcmp(fmt, "generickv")) {
            rc = kv_names(s, sl->line[i], sl->len[i]);
        } else if (!strcmp(fmt, "json")) {
            json_t *j = json_loadb(sl->line[i], sl->len[i], JSON_DECODE_ANY, NULL);
            if (j && json_is_object(j))
                rc = json_names(s, j, "", 0);
            json_decref(j);
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The first value of every field, by the extractor of the format. */
static int sample_values(repl_schema_t *s, const sample_lines_t *sl, const extract_env_t *env,
                         err_t *e)
{
    const char **names = calloc(s->n, sizeof *names);
    sv_t *cells = calloc(s->n * (sl->n ? sl->n : 1), sizeof *cells);
    sv_t **cols = calloc(s->n, sizeof *cols);
    uint8_t *status = calloc(sl->n ? sl->n : 1, 1);
    extractor_t *x = NULL;
    int rc = -1;
    if (!names || !cells || !cols || !status) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t f = 0; f < s->n; f++) {
        names[f] = s->fields[f].name;
        cols[f] = cells + f * sl->n;
    }
    x = extractor_new(s->fmt->name, names, s->n, env, e);
    if (!x)
        goto out;
    extractor_begin_source(x, "sample");
    if (sl->n)
        extract_batch(x, sl->line, sl->len, sl->n, cols, status);
    for (size_t i = 0; i < sl->n; i++)
        s->n_parsed += status[i] == EXTRACT_OK;
    for (size_t f = 0; f < s->n; f++) {
        for (size_t i = 0; i < sl->n && !s->fields[f].sample; i++) {
            sv_t v = cols[f][i];
            if (status[i] != EXTRACT_OK || v.len == SV_MISSING)
                continue;
            size_t n = v.len > SAMPLE_VALUE_MAX ? SAMPLE_VALUE_MAX : v.len;
            if (!(s->fields[f].sample = strndup(v.p, n))) {
                err_set(e, ERR_NOMEM, "out of memory");
                goto out;
            }
        }
    }
    rc = 0;
out:
    extractor_free(x);
    free(names);
    free(cells);
    free(cols);
    free(status);
    return rc;
}

int repl_schema_build(repl_schema_t *s, const logformat_t *fmt, const char *sample, size_t len,
                      const extract_env_t *env, err_t *e)
{
    memset(s, 0, sizeof *s);
    s->fmt = fmt;
    sample_lines_t *sl = malloc(sizeof *sl);
    if (!sl)
        return err_set(e, ERR_NOMEM, "out of memory");
    split_lines(sample, len, sl);
    s->n_lines = (unsigned)sl->n;
    int rc = 0;
    for (size_t i = 0; !rc && logformat_common_vars[i]; i++)
        rc = add_field(s, logformat_common_vars[i], strlen(logformat_common_vars[i]));
    for (size_t i = 0; !rc && fmt->vars[i]; i++)
        rc = add_field(s, fmt->vars[i], strlen(fmt->vars[i]));
    if (!rc && fmt->dynamic)
        rc = dynamic_names(s, sl);
    if (rc < 0)
        err_set(e, ERR_NOMEM, "out of memory");
    else
        rc = sample_values(s, sl, env, e);
    free(sl);
    if (rc < 0)
        repl_schema_free(s);
    return rc;
}

void repl_schema_free(repl_schema_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->fields[i].name);
        free(s->fields[i].sample);
    }
    free(s->fields);
    memset(s, 0, sizeof *s);
}

const logformat_t *repl_schema_guess(const char *sample, size_t len)
{
    /* What dmap detects (exec/extract/detect.h), so .schema and a query
     * without logformat read the same format; then the REPL's own hints
     * for samples detection leaves generic. */
    const char *found = extract_detect(sample, len < DETECT_SAMPLE ? len : DETECT_SAMPLE);
    if (strcmp(found, "generic") != 0)
        return logformat_find(found);
    const char *nl = memchr(sample, '\n', len);
    size_t first = nl ? (size_t)(nl - sample) : len;
    const char *p = sample;
    while (first && (*p == ' ' || *p == '\t')) {
        p++;
        first--;
    }
    if (memmem(sample, len, "|MAPREDUCE:", 11))
        return logformat_find("default");
    if (first && *p == '{')
        return logformat_find("json");
    if (memchr(sample, '|', first) && memchr(sample, '=', first))
        return logformat_find("generickv");
    return logformat_find("generic");
}
