/* number.c: the strtod fallback of num_parse. */
#include "exec/agg/number.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int num_parse_slow(const char *p, size_t len, double *out)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf || isspace((unsigned char)p[0]) ||
        isspace((unsigned char)p[len - 1]))
        return 0;
    memcpy(buf, p, len);
    buf[len] = '\0';
    char *end;
    double v = strtod(buf, &end);
    /* NaN is not a number here: it would poison every sum, and no order
     * holds it. 1e999 overflows to an infinity, which is one. */
    if (end != buf + len || isnan(v))
        return 0;
    *out = v;
    return 1;
}
