/* bucket_memo.c: see bucket_memo.h. */
#include "exec/agg/bucket_memo.h"

#include <string.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

const char *bucket_memo_get(const struct bucket_memo *m, int64_t w, const char *p, uint32_t n,
                            uint8_t *len)
{
    if (!m->in_len || n != m->in_len)
        return NULL;
    if (m->var_end > m->var_at) {
        if (w % 60 != 0 || memcmp(p, m->in, m->var_at) != 0 ||
            memcmp(p + m->var_end, m->in + m->var_end, n - m->var_end) != 0)
            return NULL;
        /* Seconds 00-59 (60 reads as the next minute), then the fraction. */
        if (p[m->var_at] < '0' || p[m->var_at] > '5' || !is_digit(p[m->var_at + 1]))
            return NULL;
        for (uint32_t i = m->var_at + 2u; i < m->var_end; i++)
            if (!is_digit(p[i]) && !(i == m->var_at + 2u && p[i] == '.'))
                return NULL;
    } else if (memcmp(p, m->in, n) != 0) {
        return NULL;
    }
    *len = m->out_len;
    return m->out;
}

/* Where t's seconds and fraction are in its text p (n bytes), as the
 * layouts write them; false when they are not at a known place (then only
 * the same text finds the bucket again). */
static bool seconds_span(const char *p, uint32_t n, const logtime_t *t, uint8_t *at, uint8_t *end)
{
    uint32_t s;
    switch (t->layout) {
    case LOGTIME_DTAIL_SHORT: s = 9; break;    /* MMDD-HHMMSS */
    case LOGTIME_DTAIL_LONG: s = 13; break;    /* YYYYMMDD-HHMMSS */
    case LOGTIME_ISO:                          /* YYYY-MM-DD?HH:MM:SS[.f] */
        if (n < 19 || p[16] != ':')
            return false;
        s = 17;
        break;
    default:
        return false;
    }
    if (s + 2 > n || !is_digit(p[s]) || !is_digit(p[s + 1]))
        return false;
    uint32_t e = s + 2;
    if (t->layout == LOGTIME_ISO && e < n && p[e] == '.') {
        e++;
        while (e < n && is_digit(p[e]))
            e++;
    }
    *at = (uint8_t)s;
    *end = (uint8_t)e;
    return true;
}

void bucket_memo_put(struct bucket_memo *m, const char *p, uint32_t n, const logtime_t *t,
                     bool layout_given, const char *out, size_t len)
{
    m->in_len = 0;
    if (n == 0 || n > sizeof m->in || len > sizeof m->out)
        return;
    if (layout_given || !seconds_span(p, n, t, &m->var_at, &m->var_end))
        m->var_at = m->var_end = 0;
    memcpy(m->in, p, n);
    memcpy(m->out, out, len);
    m->out_len = (uint8_t)len;
    m->in_len = (uint8_t)n;
}
