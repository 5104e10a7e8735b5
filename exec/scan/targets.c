/* targets.c: comma lists and glob expansion, linear in the number of files. */
#include "exec/scan/targets.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "exec/scan/journal_spec.h"

void target_list_init(target_list_t *tl)
{
    tl->items = NULL;
    tl->n = tl->cap = 0;
}

void target_list_free(target_list_t *tl)
{
    for (size_t i = 0; i < tl->n; i++) {
        free(tl->items[i].path);
        free(tl->items[i].source_id);
    }
    free(tl->items);
    target_list_init(tl);
}

void target_list_truncate(target_list_t *tl, size_t n)
{
    for (size_t i = n; i < tl->n; i++) {
        free(tl->items[i].path);
        free(tl->items[i].source_id);
    }
    if (n < tl->n)
        tl->n = n;
}

static int has_glob_meta(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static const char *base_name(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            slash = path + i;
    return slash && slash[1] ? slash + 1 : path;
}

char *target_source_id(const char *pattern, const char *path)
{
    if (!strchr(pattern, '*'))
        return strdup(base_name(path));
    /* Walk pattern and path component by component. */
    size_t cap = strlen(path) + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t len = 0;
    const char *p = pattern, *q = path;
    while (*p && *q) {
        const char *pe = strchr(p, '/');
        const char *qe = strchr(q, '/');
        size_t plen = pe ? (size_t)(pe - p) : strlen(p);
        size_t qlen = qe ? (size_t)(qe - q) : strlen(q);
        if (memchr(p, '*', plen) && qlen) {
            if (len)
                out[len++] = '/';
            memcpy(out + len, q, qlen);
            len += qlen;
        }
        if (!pe || !qe)
            break;
        p = pe + 1;
        q = qe + 1;
    }
    if (len == 0) {
        free(out);
        return strdup(base_name(path));
    }
    out[len] = '\0';
    return out;
}

static int push(target_list_t *tl, const char *path, char *source_id, err_t *e)
{
    if (GROW_ARRAY(tl->items, tl->cap, tl->n + 1, 16) < 0)
        goto nomem;
    char *p = strdup(path);
    if (!p || !source_id) {
        free(p);
        goto nomem;
    }
    tl->items[tl->n].path = p;
    tl->items[tl->n].source_id = source_id;
    tl->n++;
    return 0;
nomem:
    free(source_id);
    return err_set(e, ERR_NOMEM, "out of memory expanding file list");
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_one(target_list_t *tl, const char *entry,
                   void (*on_error)(void *, const err_t *), void *ctx, err_t *e)
{
    if (strcmp(entry, "-") == 0)
        return push(tl, "-", strdup("-"), e);
    if (journal_spec_is(entry, strlen(entry))) {
        /* not a path: the journal reads it (exec/scan/journal.h), and
         * its source id is the target as given, as DTail's */
        err_t je;
        if (journal_spec_check(entry, &je) == 0)
            return push(tl, entry, strdup(entry), e);
        if (on_error)
            on_error(ctx, &je);
        return 0;
    }
    if (!has_glob_meta(entry))
        return push(tl, entry, strdup(base_name(entry)), e);
    glob_t g;
    int rc = glob(entry, GLOB_NOSORT, NULL, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
        err_t ge;
        err_set(&ge, ERR_INPUT, "%s: no file matches this pattern", entry);
        if (on_error)
            on_error(ctx, &ge);
        if (rc == 0)
            globfree(&g);
        return 0;
    }
    if (rc != 0)
        return err_set(e, rc == GLOB_NOSPACE ? ERR_NOMEM : ERR_INPUT,
                       "%s: cannot expand pattern", entry);
    /* glibc sorts with strcoll; plain byte order is what users of ls -1 and
     * DTail (Go's filepath.Glob) see, and it is cheaper. */
    qsort(g.gl_pathv, g.gl_pathc, sizeof g.gl_pathv[0], compare_paths);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (push(tl, g.gl_pathv[i], target_source_id(entry, g.gl_pathv[i]), e) < 0) {
            globfree(&g);
            return -1;
        }
    }
    globfree(&g);
    return 0;
}

int target_spec_next(const char **pp, const char **entry, size_t *len)
{
    const char *p = *pp;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *s = p, *end = p + n;
        p += n + (p[n] == ',');
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (end > s) {
            *pp = p;
            *entry = s;
            *len = (size_t)(end - s);
            return 1;
        }
    }
    *pp = p;
    return 0;
}

int target_list_add_spec(target_list_t *tl, const char *spec,
                         void (*on_error)(void *ctx, const err_t *e), void *ctx,
                         err_t *e)
{
    const char *p = spec, *s;
    size_t len;
    while (target_spec_next(&p, &s, &len)) {
        char *entry = strndup(s, len);
        if (!entry)
            return err_set(e, ERR_NOMEM, "out of memory expanding file list");
        int rc = add_one(tl, entry, on_error, ctx, e);
        free(entry);
        if (rc < 0)
            return -1;
    }
    return 0;
}
