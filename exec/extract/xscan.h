/* xscan.h: where a few bytes are in a line, 64 bytes at a time, for the
 * formats whose tokens end at one of several bytes (logfmt: space, '=',
 * '"', '\\'). A window's four masks come from vector compares; the next
 * byte of a set is a count of trailing zeros, so a token costs a few
 * instructions whatever its length. Windows are loaded as the cursor moves
 * forward, each at most once in order; nothing is read outside the line
 * (the last partial window with 16-byte loads that end at its end). */
#ifndef DTAIL_EXEC_EXTRACT_XSCAN_H
#define DTAIL_EXEC_EXTRACT_XSCAN_H

#include "exec/extract/extract_int.h"

typedef struct xscan {
    const char *p;      /* the line */
    uint32_t len;       /* its length */
    uint32_t win;       /* offset of the loaded window, EXTRACT_NONE: none */
    uint64_t m[4];      /* masks of c[k] in that window (bits past the
                           line's end are 0) */
    uint64_t valid;     /* bits of the window inside the line */
    char c[4];          /* the bytes looked for */
} xscan_t;

static inline void xscan_init(xscan_t *s, const char *p, uint32_t len, const char c[4])
{
    s->p = p;
    s->len = len;
    s->win = EXTRACT_NONE;
    memcpy(s->c, c, 4);
}

#ifdef EXTRACT_SSE2
static inline uint32_t xscan_cmp16(__m128i v, char c)
{
    return (uint32_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}
#endif

/* The masks of [q, q+r), r <= 64, of a line at least 16 bytes long when
 * r < 64 (so a 16-byte load ending at q+r stays inside it). */
static inline void xscan_masks(const char *q, uint32_t r, const char c[4], uint64_t m[4])
{
    m[0] = m[1] = m[2] = m[3] = 0;
#ifdef EXTRACT_SSE2
    uint32_t k = 0;
    if (r == 64) {
        /* the whole window: four blocks, unrolled, in registers */
        uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (unsigned o = 0; o < 64; o += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + o));
            a0 |= (uint64_t)xscan_cmp16(v, c[0]) << o;
            a1 |= (uint64_t)xscan_cmp16(v, c[1]) << o;
            a2 |= (uint64_t)xscan_cmp16(v, c[2]) << o;
            a3 |= (uint64_t)xscan_cmp16(v, c[3]) << o;
        }
        m[0] = a0;
        m[1] = a1;
        m[2] = a2;
        m[3] = a3;
        return;
    }
    for (; k + 16 <= r; k += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + k));
        for (int b = 0; b < 4; b++)
            m[b] |= (uint64_t)xscan_cmp16(v, c[b]) << k;
    }
    if (k < r) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + r - 16));
        unsigned drop = 16 - (r - k);
        for (int b = 0; b < 4; b++)
            m[b] |= (uint64_t)(xscan_cmp16(v, c[b]) >> drop) << k;
    }
#else
    for (uint32_t k = 0; k < r; k++)
        for (int b = 0; b < 4; b++)
            m[b] |= (uint64_t)(q[k] == c[b]) << k;
#endif
}

static __attribute__((noinline)) void xscan_load(xscan_t *s, uint32_t w)
{
    uint32_t r = s->len - w;
    if (r >= 64) {
        xscan_masks(s->p + w, 64, s->c, s->m);
        s->valid = ~(uint64_t)0;
    } else {
        if (s->len >= 16) {
            xscan_masks(s->p + w, r, s->c, s->m);
        } else {
            char tmp[16] = {0};
            memcpy(tmp, s->p + w, r);
            xscan_masks(tmp, 16, s->c, s->m);
            for (int b = 0; b < 4; b++)
                s->m[b] &= ((uint64_t)1 << r) - 1;
        }
        s->valid = ((uint64_t)1 << r) - 1;
    }
    s->win = w;
}

/* The first offset >= pos whose byte is one of the set (bit b: c[b]), or
 * in the set when `in` is false the first whose byte is none of them; the
 * line's length when there is none. */
static inline __attribute__((always_inline)) uint32_t xscan_find(xscan_t *s, uint32_t pos,
                                                                   unsigned set, bool in)
{
    while (pos < s->len) {
        uint32_t w = pos & ~63u;
        if (w != s->win)
            xscan_load(s, w);
        /* set is a constant where this is inlined: the ORs fold */
        uint64_t m = (set & 1 ? s->m[0] : 0) | (set & 2 ? s->m[1] : 0) |
                     (set & 4 ? s->m[2] : 0) | (set & 8 ? s->m[3] : 0);
        if (!in)
            m = ~m & s->valid;
        m &= ~(uint64_t)0 << (pos & 63);
        if (m)
            return w + (uint32_t)__builtin_ctzll(m);
        pos = w + 64;
    }
    return s->len;
}

#endif
