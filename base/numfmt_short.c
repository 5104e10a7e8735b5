/* numfmt_short.c: see numfmt_short.h. */
#include "base/numfmt_short.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A positive decimal m * 10^e10. */
typedef struct decimal {
    uint64_t m;
    int e10;
} decimal_t;

/* The p-digit decimal nearest to a > 0 (glibc rounds "%.*e" exactly). */
static decimal_t nearest(double a, int p)
{
    char s[48];
    snprintf(s, sizeof s, "%.*e", p - 1, a);
    decimal_t d = {0, 0};
    const char *c = s;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            d.m = d.m * 10 + (uint64_t)(*c - '0');
    d.e10 = (*c == 'e' ? atoi(c + 1) : 0) - (p - 1);
    return d;
}

static int reads_back(decimal_t d, double a)
{
    if (d.m == 0)
        return 0;
    char s[48];
    snprintf(s, sizeof s, "%llue%d", (unsigned long long)d.m, d.e10);
    return strtod(s, NULL) == a;
}

/* The shortest decimal that reads back as a > 0; of two, the nearer. */
static decimal_t shortest(double a)
{
    /* Reading back is monotonic in the precision, so search for the
     * smallest precision whose nearest decimal reads back. */
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (reads_back(nearest(a, mid), a))
            hi = mid;
        else
            lo = mid + 1;
    }
    decimal_t best = nearest(a, lo);
    if (lo > 1) {
        /* One digit fewer can still work on the wide side of a power of
         * two, one unit away from the nearest. */
        decimal_t n = nearest(a, lo - 1);
        decimal_t up = {n.m + 1, n.e10}, down = {n.m - 1, n.e10};
        if (reads_back(up, a))
            best = up;
        else if (reads_back(down, a))
            best = down;
    }
    while (best.m % 10 == 0) {
        best.m /= 10;
        best.e10++;
    }
    return best;
}

static int put_text(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n + 1 > cap)
        return -1;
    memcpy(buf, s, n + 1);
    return (int)n;
}

/* Lays out digits d (nd of them, value 0.d * 10^dp) as Go's 'f' format
 * with the least precision that shows every digit. */
static int layout(char *buf, size_t cap, int neg, const char *d, int nd, int dp)
{
    int frac = nd - dp > 0 ? nd - dp : 0;
    size_t need = (size_t)neg + (size_t)(dp > 0 ? dp : 1) + (frac ? (size_t)frac + 1 : 0);
    if (need + 1 > cap)
        return -1;
    char *o = buf;
    if (neg)
        *o++ = '-';
    if (dp > 0) {
        int k = nd < dp ? nd : dp;
        memcpy(o, d, (size_t)k);
        o += k;
        for (int i = k; i < dp; i++)
            *o++ = '0';
    } else {
        *o++ = '0';
    }
    if (frac) {
        *o++ = '.';
        for (int i = 0; i < frac; i++) {
            int j = dp + i;
            *o++ = j >= 0 && j < nd ? d[j] : '0';
        }
    }
    *o = '\0';
    return (int)(o - buf);
}

int numfmt_shortest(char *buf, size_t cap, double v)
{
    if (isnan(v))
        return put_text(buf, cap, "NaN");
    if (isinf(v))
        return put_text(buf, cap, v > 0 ? "+Inf" : "-Inf");
    int neg = signbit(v) != 0;
    double a = fabs(v);
    uint64_t m;
    int e10 = 0;
    if (a == 0) {
        m = 0;
    } else if (a < 9007199254740992.0 && a == floor(a)) {
        m = (uint64_t)a;   /* every integer below 2^53 is its own shortest form */
    } else {
        decimal_t d = shortest(a);
        m = d.m;
        e10 = d.e10;
    }
    char digits[24];
    int nd = snprintf(digits, sizeof digits, "%llu", (unsigned long long)m);
    return layout(buf, cap, neg, digits, nd, m == 0 ? 1 : nd + e10);
}
