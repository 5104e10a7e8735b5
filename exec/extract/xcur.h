/* xcur.h: a cursor over one line of a format whose fields come at fixed
 * places, separated by spaces and quotes (the access logs, syslog): the
 * slots it fills, the byte where it stopped and why. Fields are found 16
 * bytes at a time inline (xcur_find): most are a few bytes long, shorter
 * than what a call to memchr costs. */
#ifndef DTAIL_EXEC_EXTRACT_XCUR_H
#define DTAIL_EXEC_EXTRACT_XCUR_H

#include "exec/extract/extract_int.h"

typedef struct xcur {
    extractor_t *x;         /* the extractor */
    size_t i;               /* the line's row in the batch */
    sv_t *const *cols;      /* the columns */
    const char *p;          /* the (trimmed) line */
    uint32_t n;             /* its length */
    uint32_t pos;           /* the cursor */
    const char *why;        /* why the line was rejected */
} xcur_t;

/* Slot `slot` of the line is [v, v+len), if the query asked for it. */
static inline void xcur_set(xcur_t *c, int slot, const char *v, uint32_t len)
{
    uint32_t col = c->x->slot_col[slot];
    if (col != EXTRACT_NONE) {
        c->cols[col][c->i].p = v;
        c->cols[col][c->i].len = len;
    }
}

static inline bool xcur_fail(xcur_t *c, const char *why)
{
    c->why = why;
    return false;
}

/* The first offset >= at of byte b in [0, n) of p, or n: 16-byte blocks
 * while they fit in the line, then one block that ends at the line's end
 * (its bytes before `at` masked off), byte by byte only in a line shorter
 * than 16. */
static inline __attribute__((always_inline)) uint32_t xcur_find(const char *p, uint32_t n,
                                                                uint32_t at, char b)
{
#ifdef EXTRACT_SSE2
    const __m128i vb = _mm_set1_epi8(b);
    for (; at < n && n - at >= 16; at += 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + at)), vb));
        if (m)
            return at + (uint32_t)__builtin_ctz(m);
    }
    if (at < n && n >= 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + n - 16)), vb));
        m &= ~0u << (at - (n - 16));
        return m ? n - 16 + (uint32_t)__builtin_ctz(m) : n;
    }
#endif
    for (; at < n; at++)
        if (p[at] == b)
            return at;
    return n;
}

/* The token at the cursor, up to the next space and past it; the space is
 * required unless `last` (then the token may run to the end). */
static inline bool xcur_token(xcur_t *c, bool last, const char **v, uint32_t *len)
{
    uint32_t end = xcur_find(c->p, c->n, c->pos, ' ');
    if (end >= c->n && !last)
        return xcur_fail(c, "fields missing");
    *v = c->p + c->pos;
    *len = end - c->pos;
    c->pos = end < c->n ? end + 1 : end;
    return true;
}

/* The first '"' in [start, n) of p not escaped by a backslash (an even
 * number of backslashes before it), or n. */
static inline uint32_t xcur_quote_end(const char *p, uint32_t n, uint32_t start)
{
    for (uint32_t q = start;;) {
        q = q < n ? xcur_find(p, n, q, '"') : n;
        if (q >= n)
            return n;
        uint32_t bs = 0;
        while (q - bs > start && p[q - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            return q;
        q++;
    }
}

/* [p, p+*len) unescaped (extract_unescape) into scratch when it holds a
 * backslash; false when out of scratch. */
static inline bool xcur_unescape(xcur_t *c, const char **v, uint32_t *len)
{
    if (!memchr(*v, '\\', *len))
        return true;
    char *out = extract_scratch(c->x, *len);
    if (!out)
        return xcur_fail(c, "out of memory");
    *len = extract_unescape(*v, *len, out);
    *v = out;
    return true;
}

/* At '"': the quoted field as written, and the cursor past its closing
 * quote. */
static inline bool xcur_quoted_raw(xcur_t *c, const char **v, uint32_t *len)
{
    uint32_t start = c->pos + 1, q = xcur_quote_end(c->p, c->n, start);
    if (q >= c->n)
        return xcur_fail(c, "unterminated quoted field");
    *v = c->p + start;
    *len = q - start;
    c->pos = q + 1;
    return true;
}

/* At '"': the quoted field, unescaped, and the cursor past its closing
 * quote. */
static inline bool xcur_quoted(xcur_t *c, const char **v, uint32_t *len)
{
    return xcur_quoted_raw(c, v, len) && xcur_unescape(c, v, len);
}

/* Whether the query asked for slot `slot`. */
static inline bool xcur_wants(const xcur_t *c, int slot)
{
    return c->x->slot_col[slot] != EXTRACT_NONE;
}

/* A line through parse: its status, and the message of a rejected one
 * ("FORMAT line rejected: WHY at byte N"). */
static inline uint8_t xcur_line(extractor_t *x, size_t i, const char *p, uint32_t len,
                                sv_t *const *cols, bool (*parse)(xcur_t *c))
{
    xcur_t c = {x, i, cols, p, len, 0, NULL};
    if (parse(&c))
        return EXTRACT_OK;
    extract_error(x, "%s line rejected: %s at byte %u", x->fmt->name, c.why ? c.why : "malformed",
                  c.pos);
    return EXTRACT_ERROR;
}

#endif
