/* number.h: field text to double, as DTail's float parsing accepts it.
 *
 * The common log forms (integers and plain decimals) take a short inline
 * loop; anything else (exponents, inf, nan, hex floats) goes through
 * strtod. Surrounding spaces make a value non-numeric, as in Go's
 * strconv.ParseFloat. */
#ifndef DTAIL_EXEC_NUMBER_H
#define DTAIL_EXEC_NUMBER_H

#include <stddef.h>

/* Returns 1 and sets *out when [p, p+len) is a number, else 0. inf and
 * -inf (any spelling strtod takes, and overflows such as 1e999) are
 * numbers; nan is not (docs/query-language.md, Non-finite numbers). */
int num_parse_slow(const char *p, size_t len, double *out);

static inline int num_parse(const char *p, size_t len, double *out)
{
    size_t i = 0;
    int neg = 0;
    if (len && (p[0] == '-' || p[0] == '+')) {
        neg = p[0] == '-';
        i = 1;
    }
    if (i == len || len - i > 15)
        return num_parse_slow(p, len, out);
    unsigned long long whole = 0;
    size_t start = i;
    while (i < len && (unsigned)(p[i] - '0') < 10)
        whole = whole * 10 + (unsigned)(p[i++] - '0');
    double v = (double)whole;
    if (i < len) {
        if (p[i] != '.' || i == start)
            return num_parse_slow(p, len, out);
        i++;
        unsigned long long frac = 0, scale = 1;
        size_t fstart = i;
        while (i < len && (unsigned)(p[i] - '0') < 10) {
            frac = frac * 10 + (unsigned)(p[i++] - '0');
            scale *= 10;
        }
        if (i < len || i == fstart)
            return num_parse_slow(p, len, out);
        /* One division of exact integers rounds correctly for these sizes. */
        v = (double)(whole * scale + frac) / (double)scale;
    } else if (i == start) {
        return num_parse_slow(p, len, out);
    }
    *out = neg ? -v : v;
    return 1;
}

#endif
