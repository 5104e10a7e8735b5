/* dt41_go.c: see dt41_go.h. */
#include "wire/dt41_go.h"

#include <stdio.h>
#include <string.h>

/* ParseUint's digits: syntax error at the first non-digit, range error as
 * soon as the value overflows (Go stops there, before later bytes). */
static enum go_num digits_u64(const char *p, size_t n, uint64_t *v)
{
    uint64_t acc = 0;
    *v = 0;
    if (n == 0)
        return GO_NUM_SYNTAX;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned char)p[i] - '0';
        if (d > 9) {
            *v = 0;
            return GO_NUM_SYNTAX;
        }
        if (acc > (UINT64_MAX - d) / 10) {
            *v = UINT64_MAX;
            return GO_NUM_RANGE;
        }
        acc = acc * 10 + d;
    }
    *v = acc;
    return GO_NUM_OK;
}

enum go_num go_parse_u64(const char *p, size_t n, uint64_t *v)
{
    return digits_u64(p, n, v);
}

enum go_num go_atoi(const char *p, size_t n, long long *v)
{
    bool neg = false;
    *v = 0;
    if (n > 0 && (p[0] == '+' || p[0] == '-')) {
        neg = p[0] == '-';
        p++;
        n--;
    }
    uint64_t u;
    enum go_num r = digits_u64(p, n, &u);
    if (r == GO_NUM_SYNTAX)
        return r;
    if (!neg && (r == GO_NUM_RANGE || u > (uint64_t)INT64_MAX)) {
        *v = INT64_MAX;
        return GO_NUM_RANGE;
    }
    if (neg && (r == GO_NUM_RANGE || u > (uint64_t)INT64_MAX + 1)) {
        *v = INT64_MIN;
        return GO_NUM_RANGE;
    }
    *v = neg ? (long long)(0 - u) : (long long)u;
    return GO_NUM_OK;
}

size_t go_utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || (size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)))
        return 0;   /* overlong, or a surrogate */
    if (n == 4 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)))
        return 0;
    return n;
}

void go_quote(char *buf, size_t cap, const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)p, *end = s + n;
    size_t o = 0;
#define PUT(c)                     \
    do {                           \
        if (o + 1 < cap)           \
            buf[o++] = (char)(c);  \
    } while (0)
    PUT('"');
    while (s < end) {
        unsigned c = *s;
        size_t u = c >= 0x80 ? go_utf8_len(s, end) : 1;
        if (c >= 0x80 && u > 1) {
            for (size_t i = 0; i < u; i++)
                PUT(s[i]);
            s += u;
            continue;
        }
        s++;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\a' ? "\\a" : c == '\b' ? "\\b"
                        : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                        : c == '\v' ? "\\v" : NULL;
        if (esc) {
            PUT(esc[0]);
            PUT(esc[1]);
        } else if (c < 0x20 || c >= 0x7f) {
            PUT('\\');
            PUT('x');
            PUT(hex[c >> 4]);
            PUT(hex[c & 15]);
        } else {
            PUT(c);
        }
    }
    PUT('"');
#undef PUT
    if (cap)
        buf[o < cap ? o : cap - 1] = '\0';
}

void go_num_error(char *buf, size_t cap, const char *fn, const char *p, size_t n, enum go_num r)
{
    char q[512];
    go_quote(q, sizeof q, p, n);
    snprintf(buf, cap, "strconv.%s: parsing %s: %s", fn, q,
             r == GO_NUM_RANGE ? "value out of range" : "invalid syntax");
}

static bool ascii_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

dt41_str_t go_trim(dt41_str_t s)
{
    while (s.n && ascii_space(s.p[0])) {
        s.p++;
        s.n--;
    }
    while (s.n && ascii_space(s.p[s.n - 1]))
        s.n--;
    return s;
}

size_t go_space_len(const char *p, const char *end)
{
    const unsigned char *s = (const unsigned char *)p;
    if (ascii_space(p[0]))
        return 1;
    size_t n = s[0] >= 0x80 ? go_utf8_len(s, (const unsigned char *)end) : 0;
    if (n < 2)
        return 0;
    unsigned r = n == 2 ? (s[0] & 0x1Fu) << 6 | (s[1] & 0x3Fu)
                        : n == 3 ? (s[0] & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu) : 0;
    bool space = r == 0x85 || r == 0xA0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200A) ||
                 r == 0x2028 || r == 0x2029 || r == 0x202F || r == 0x205F || r == 0x3000;
    return space ? n : 0;
}
