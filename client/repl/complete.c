/* complete.c: completion candidates. */
#include "client/repl/complete.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/grow.h"
#include "client/repl/cmd.h"
#include "parser/logformat.h"

const char *const repl_keywords[] = {
    "select", "from", "where", "set", "group", "by", "order", "rorder", "interval",
    "limit", "outfile", "logformat", "having", "and", "or", "not", "in", "append", "eq",
    "ne", "contains", "ncontains", "lacks", "hasprefix", "nhasprefix", "hassuffix",
    "nhassuffix", "matches", "nmatches", NULL,
};

const char *const repl_functions[] = {
    "count(", "sum(", "min(", "max(", "avg(", "last(", "len(", "percentage(",
    "percentile(", "quantile(", "top(", "p50(", "p90(", "p95(", "p99(", "md5sum(",
    "maskdigits(", "bucket(", "regex(", NULL,
};

static const char *const show_words[] = {"table", "csv", "tsv", "json", NULL};
static const char *const timer_words[] = {"on", "off", NULL};

void repl_cands_init(repl_cands_t *c)
{
    memset(c, 0, sizeof *c);
}

void repl_cands_free(repl_cands_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->items[i]);
    free(c->items);
    repl_cands_init(c);
}

static int add(repl_cands_t *c, const char *s)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->items[i], s))
            return 0;
    if (GROW_ARRAY(c->items, c->cap, c->n + 1, 32) < 0)
        return -1;
    if (!(c->items[c->n] = strdup(s)))
        return -1;
    c->n++;
    return 0;
}

/* Adds the words of list that start with word[0..n) (keywords in any case). */
static int add_matching(repl_cands_t *c, const char *const *list, size_t count,
                        const char *word, size_t n, int nocase)
{
    for (size_t i = 0; i < count && list[i]; i++) {
        int match = nocase ? !strncasecmp(list[i], word, n) : !strncmp(list[i], word, n);
        if (match && strlen(list[i]) > 0 && add(c, list[i]) < 0)
            return -1;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_sep(char ch)
{
    return isspace((unsigned char)ch) || ch == ',' || ch == '(' || ch == ')';
}

/* The word before position `at` (skipping separators), into buf. */
static void prev_word(const char *line, size_t at, char *buf, size_t cap)
{
    size_t e = at;
    while (e && is_sep(line[e - 1]))
        e--;
    size_t s = e;
    while (s && !is_sep(line[s - 1]))
        s--;
    size_t n = e - s < cap - 1 ? e - s : cap - 1;
    memcpy(buf, line + s, n);
    buf[n] = '\0';
}

int repl_complete(const char *line, size_t cursor, const char *const *fields, size_t n_fields,
                  repl_cands_t *out, size_t *word_start)
{
    size_t ws = cursor;
    while (ws && !is_sep(line[ws - 1]))
        ws--;
    *word_start = ws;
    const char *word = line + ws;
    size_t n = cursor - ws;
    char prev[64];
    prev_word(line, ws, prev, sizeof prev);
    size_t lead = strspn(line, " \t");
    int rc = 0;
    if (line[lead] == '.') {
        /* A dot command: its name, then its argument words. */
        if (ws == lead)
            rc = add_matching(out, repl_cmd_names, SIZE_MAX, word, n, 0);
        else if (!strcmp(prev, ".mode") || !strcmp(prev, ".format"))
            rc = add_matching(out, show_words, SIZE_MAX, word, n, 0);
        else if (!strcmp(prev, ".timer"))
            rc = add_matching(out, timer_words, SIZE_MAX, word, n, 0);
        else if (!strcmp(prev, ".schema"))
            for (size_t i = 0; !rc && logformat_all[i]; i++)
                rc = add_matching(out, &logformat_all[i]->name, 1, word, n, 0);
    } else if (!strcasecmp(prev, "logformat")) {
        for (size_t i = 0; !rc && logformat_all[i]; i++)
            rc = add_matching(out, &logformat_all[i]->name, 1, word, n, 0);
    } else {
        /* A $ word is a variable; anything else may be any kind of word. */
        rc = add_matching(out, fields, n_fields, word, n, 0);
        if (!rc && (n == 0 || word[0] != '$'))
            rc = add_matching(out, repl_keywords, SIZE_MAX, word, n, 1);
        if (!rc && (n == 0 || word[0] != '$'))
            rc = add_matching(out, repl_functions, SIZE_MAX, word, n, 0);
        if (!rc && n && word[0] == '$')
            rc = add_matching(out, logformat_common_vars, SIZE_MAX, word, n, 0);
    }
    if (rc < 0)
        return -1;
    if (out->n > 1)
        qsort(out->items, out->n, sizeof *out->items, cmp_str);
    return (int)out->n;
}

size_t repl_cands_common(const repl_cands_t *c)
{
    if (c->n == 0)
        return 0;
    size_t k = strlen(c->items[0]);
    for (size_t i = 1; i < c->n; i++) {
        size_t j = 0;
        while (j < k && c->items[i][j] == c->items[0][j])
            j++;
        k = j;
    }
    return k;
}

const char *repl_complete_logformat(const char *text, char *buf, size_t cap)
{
    const char *found = NULL;
    for (const char *p = text; (p = strcasestr(p, "logformat")); p += 9) {
        if (p > text && !is_sep(p[-1]))
            continue;
        const char *s = p + 9;
        if (!is_sep(*s))
            continue;
        while (is_sep(*s))
            s++;
        size_t n = 0;
        while (s[n] && !is_sep(s[n]))
            n++;
        if (n == 0 || n >= cap)
            continue;
        memcpy(buf, s, n);
        buf[n] = '\0';
        found = buf;   /* the last clause wins, as in the parser */
    }
    return found;
}
