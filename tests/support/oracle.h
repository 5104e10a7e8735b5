/* oracle.h: naive reference implementations for differential tests.
 *
 * Line splitting, matching and DTail's context semantics done the slow,
 * obvious way: a byte loop, pcre2 (no JIT) or memmem on each line alone, and
 * a per-line state machine. Unit tests and fuzz targets compare the engine's
 * fast paths against these. Header-only so each test binary stays one file. */
#ifndef DTAIL_TESTS_ORACLE_H
#define DTAIL_TESTS_ORACLE_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct oracle_line {
    const char *p;   /* content start (borrowed from the input) */
    size_t len;      /* content bytes, no '\n' */
} oracle_line_t;

/* Splits data into lines as DTail does (§4.2): on '\n'; a final line
 * without '\n' is a line; content longer than max becomes pieces of exactly
 * max bytes followed by the rest. Returns the count; *out is malloc'd. */
static inline size_t oracle_split(const char *data, size_t n, size_t max, oracle_line_t **out)
{
    size_t cap = 16, count = 0;
    oracle_line_t *v = malloc(cap * sizeof *v);
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && data[j] != '\n')
            j++;
        size_t len = j - i;
        const char *p = data + i;
        while (len > max) {
            if (count == cap)
                v = realloc(v, (cap *= 2) * sizeof *v);
            v[count++] = (oracle_line_t){p, max};
            p += max;
            len -= max;
        }
        if (count == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[count++] = (oracle_line_t){p, len};
        i = j + 1;
    }
    *out = v;
    return count;
}

typedef struct oracle_matcher {
    int noop;            /* "", "." or ".*" */
    int literal;         /* no metacharacters */
    const char *pattern; /* borrowed */
    pcre2_code *code;    /* regex, compiled without JIT */
    pcre2_match_data *md;
} oracle_matcher_t;

/* Returns 0, or -1 when the regex does not compile. */
static inline int oracle_matcher_init(oracle_matcher_t *m, const char *pattern)
{
    memset(m, 0, sizeof *m);
    m->pattern = pattern;
    if (!*pattern || !strcmp(pattern, ".") || !strcmp(pattern, ".*")) {
        m->noop = 1;
        return 0;
    }
    if (!strpbrk(pattern, ".+*?^$[]{}()|\\")) {
        m->literal = 1;
        return 0;
    }
    int ec;
    PCRE2_SIZE eo;
    m->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
    if (!m->code)
        return -1;
    m->md = pcre2_match_data_create_from_pattern(m->code, NULL);
    return 0;
}

static inline void oracle_matcher_free(oracle_matcher_t *m)
{
    pcre2_match_data_free(m->md);
    pcre2_code_free(m->code);
}

static inline int oracle_match(oracle_matcher_t *m, const char *p, size_t len)
{
    if (m->noop)
        return 1;
    if (m->literal) {
        size_t pl = strlen(m->pattern);
        return pl <= len && memmem(p, len, m->pattern, pl) != NULL;
    }
    return pcre2_match(m->code, (PCRE2_SPTR)p, len, 0, 0, m->md, NULL) >= 0;
}

typedef struct oracle_out {
    char *data;      /* malloc'd output */
    size_t len, cap;
} oracle_out_t;

static inline void oracle_put(oracle_out_t *o, const char *p, size_t n)
{
    if (o->len + n + 1 > o->cap) {
        o->cap = (o->len + n + 1) * 2;
        o->data = realloc(o->data, o->cap);
    }
    memcpy(o->data + o->len, p, n);
    o->len += n;
}

/* Emits a line as plain content, or numbered as the engine's REMOTE format
 * with host "h" and source "s". */
static inline void oracle_emit(oracle_out_t *o, int numbered, const oracle_line_t *l, size_t lineno)
{
    if (numbered) {
        char num[32];
        int k = snprintf(num, sizeof num, "REMOTE|h|100|%zu|s|", lineno);
        oracle_put(o, num, (size_t)k);
    }
    oracle_put(o, l->p, l->len);
    oracle_put(o, "\n", 1);
}

/* DTail's grep semantics (§4.4) line by line: selected = match XOR invert
 * (invert ignored for noop); before-context from a ring of unselected lines
 * not already printed; after-context; max stops the file after the last
 * after-context line of the max-th selected line, or at the next selected
 * line. */
static inline void oracle_grep(const oracle_line_t *lines, size_t n, oracle_matcher_t *m,
                        int invert, unsigned before, unsigned after,
                        unsigned long long max, int numbered, oracle_out_t *out)
{
    if (m->noop)
        invert = 0;
    size_t ring_start = 0, ring_n = 0;   /* indices of the pending before-lines */
    unsigned after_left = 0;
    unsigned long long selected = 0;
    int stopping = 0;
    for (size_t i = 0; i < n; i++) {
        int sel = oracle_match(m, lines[i].p, lines[i].len) != invert;
        if (sel) {
            if (stopping)
                return;
            for (size_t k = 0; k < ring_n; k++)
                oracle_emit(out, numbered, &lines[ring_start + k], ring_start + k + 1);
            ring_n = 0;
            oracle_emit(out, numbered, &lines[i], i + 1);
            selected++;
            after_left = after;
            if (max && selected >= max) {
                if (!after)
                    return;
                stopping = 1;
            }
        } else if (after_left) {
            oracle_emit(out, numbered, &lines[i], i + 1);
            after_left--;
            if (!after_left && stopping)
                return;
        } else if (before) {
            if (ring_n == before) {
                ring_start++;
            } else {
                if (ring_n == 0)
                    ring_start = i;
                ring_n++;
            }
            /* The ring holds the `before` most recent unselected lines. */
            ring_start = i + 1 - ring_n;
        }
    }
}

/* The whole expected output of a cat/grep plan over text: split, match,
 * context. Returns -1 when the pattern does not compile. */
static inline int oracle_expect(const char *text, size_t n, const char *pattern, int invert,
                                unsigned before, unsigned after, unsigned long long max,
                                size_t max_line_len, int numbered, oracle_out_t *out)
{
    oracle_matcher_t om;
    if (oracle_matcher_init(&om, pattern) < 0)
        return -1;
    oracle_line_t *lines;
    size_t nl = oracle_split(text, n, max_line_len, &lines);
    oracle_grep(lines, nl, &om, invert, before, after, max, numbered, out);
    free(lines);
    oracle_matcher_free(&om);
    return 0;
}

/* Whether engine output [got, got+len) equals the oracle's. */
static inline int oracle_same(const char *got, size_t len, const oracle_out_t *want)
{
    return len == want->len && (want->len == 0 || memcmp(got, want->data, len) == 0);
}

#endif
