/* xcur.h: a cursor over one line of a format whose fields come at fixed
 * places, separated by spaces and quotes (the access logs, syslog): the
 * slots it fills, the byte where it stopped and why. Fields are found with
 * memchr. */
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

/* The token at the cursor, up to the next space and past it; the space is
 * required unless `last` (then the token may run to the end). */
static inline bool xcur_token(xcur_t *c, bool last, const char **v, uint32_t *len)
{
    const char *sp = c->pos < c->n ? memchr(c->p + c->pos, ' ', c->n - c->pos) : NULL;
    if (!sp && !last)
        return xcur_fail(c, "fields missing");
    uint32_t end = sp ? (uint32_t)(sp - c->p) : c->n;
    *v = c->p + c->pos;
    *len = end - c->pos;
    c->pos = sp ? end + 1 : end;
    return true;
}

/* The first '"' in [start, n) of p not escaped by a backslash (an even
 * number of backslashes before it), or n. */
static inline uint32_t xcur_quote_end(const char *p, uint32_t n, uint32_t start)
{
    for (uint32_t q = start;;) {
        const char *hit = q < n ? memchr(p + q, '"', n - q) : NULL;
        if (!hit)
            return n;
        q = (uint32_t)(hit - p);
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

/* At '"': the quoted field, unescaped, and the cursor past its closing
 * quote. */
static inline bool xcur_quoted(xcur_t *c, const char **v, uint32_t *len)
{
    uint32_t start = c->pos + 1, q = xcur_quote_end(c->p, c->n, start);
    if (q >= c->n)
        return xcur_fail(c, "unterminated quoted field");
    *v = c->p + start;
    *len = q - start;
    c->pos = q + 1;
    return xcur_unescape(c, v, len);
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
