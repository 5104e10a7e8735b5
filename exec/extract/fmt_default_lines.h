/* fmt_default_lines.h: the one-pass splitter of the default format
 * (default_lines in fmt_default.c), a template included once per
 * instruction set. The includer defines:
 *
 *   LINES_FN        the function's name
 *   LINES_ATTR      its target attribute (may be empty)
 *   LINES_MASKS     f(q, c0, c1, c2, &m0, &m1, &m2): masks of three bytes
 *                   over the 64 bytes at q
 *   LINES_POPCOUNT  set bits of a uint64_t
 *   LINES_STORE     f(out, m, wo): out[k] = wo + the k-th set bit of m, for
 *                   each set bit; may write up to 32 entries further
 *
 * and gets them undefined again. No include guard, on purpose. */

#define LINES_CAT2(a, b) a##b
#define LINES_CAT(a, b) LINES_CAT2(a, b)
#define LINES_PUSH LINES_CAT(LINES_FN, _push)

/* Appends the separators of mask m, found in the window at offset wo of the
 * line, to the current line's positions. */
static inline LINES_ATTR void LINES_PUSH(lines_state_t *s, uint64_t m, ptrdiff_t wo)
{
    if (!m || s->long_line)
        return;
    if (wo > SPLIT_SHORT_MAX) {     /* the line is past the fast path's size */
        s->long_line = true;
        return;
    }
    uint16_t *out = s->pos + s->n_sep;
    s->n_sep += (uint32_t)LINES_POPCOUNT(m);
    LINES_STORE(out, m, wo);
}

static LINES_ATTR const char *LINES_FN(extractor_t *x, const char *p, const char *end,
                                 const char **line, uint32_t *len, size_t *np, size_t cap,
                                 sv_t *const *cols, uint8_t *status)
{
    lines_state_t s;
    size_t n = *np;
    const char *ls = p;
    s.base = p;
    s.end = end;
    memset(s.eq, 0, sizeof s.eq);   /* eq_bits_from reads a window ahead */
    s.n_sep = 0;
    s.long_line = false;
    if (n >= cap)
        return p;
    for (size_t w = 0; p < end; p += 64, w++) {
        uint64_t nm, sm, em;
        if (end - p >= 64) {
            __builtin_prefetch(p + 1024);
            LINES_MASKS(p, '\n', '|', '=', &nm, &sm, &em);
        } else {
            char tmp[64] = {0};
            memcpy(tmp, p, (size_t)(end - p));
            LINES_MASKS(tmp, '\n', '|', '=', &nm, &sm, &em);
        }
        s.eq[w % LINES_EQ_RING] = em;
        while (nm) {
            uint64_t below = (nm & (0 - nm)) - 1;
            const char *le = p + __builtin_ctzll(nm);
            LINES_PUSH(&s, sm & below, p - ls);
            sm &= ~below;
            line[n] = ls;
            len[n] = (uint32_t)(le - ls);
            status[n] = lines_end(x, n, ls, le, &s, cols);
            n++;
            ls = le + 1;
            s.n_sep = 0;
            s.long_line = false;
            if (n == cap) {
                *np = n;
                return ls;
            }
            nm &= nm - 1;
        }
        LINES_PUSH(&s, sm, p - ls);
    }
    *np = n;
    return ls;
}

#undef LINES_PUSH
#undef LINES_CAT
#undef LINES_CAT2
#undef LINES_FN
#undef LINES_ATTR
#undef LINES_MASKS
#undef LINES_POPCOUNT
#undef LINES_STORE
