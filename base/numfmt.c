/* numfmt.c: see numfmt.h. */
#include "base/numfmt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits of v, most significant first, into tmp's end; returns the start. */
static char *digits(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

int numfmt_u64(char *buf, size_t cap, uint64_t v)
{
    char tmp[24];
    char *p = digits(tmp + sizeof tmp, v);
    size_t n = (size_t)(tmp + sizeof tmp - p);
    if (n + 1 > cap)
        return snprintf(buf, cap, "%llu", (unsigned long long)v);
    memcpy(buf, p, n);
    buf[n] = '\0';
    return (int)n;
}

int numfmt_fixed6(char *buf, size_t cap, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int negative = (int)(bits >> 63);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    if (biased == 0x7ff || cap < 32)
        return snprintf(buf, cap, "%f", v);
    int e = biased ? biased - 1075 : -1074;
    if (biased)
        m |= UINT64_C(1) << 52;
    /* v = m * 2^e; scaled = v * 10^6, rounded to the nearest, ties to even. */
    unsigned __int128 scaled;
    if (e >= 0) {
        if (e > 10)
            return snprintf(buf, cap, "%f", v);   /* 2^63 and beyond */
        scaled = (unsigned __int128)(m << e) * 1000000u;
    } else if (-e > 120) {
        scaled = 0;   /* below 2^-67: zero to six decimals */
    } else {
        int k = -e;
        unsigned __int128 q = (unsigned __int128)m * 1000000u;
        unsigned __int128 rem = q & (((unsigned __int128)1 << k) - 1);
        unsigned __int128 half = (unsigned __int128)1 << (k - 1);
        scaled = q >> k;
        if (rem > half || (rem == half && (scaled & 1)))
            scaled++;
    }
    uint64_t whole = (uint64_t)(scaled / 1000000u);
    uint32_t frac = (uint32_t)(scaled % 1000000u);
    char tmp[40];
    char *end = tmp + sizeof tmp;
    char *p = end;
    for (int i = 0; i < 6; i++) {
        *--p = (char)('0' + frac % 10);
        frac /= 10;
    }
    *--p = '.';
    p = digits(p, whole);
    if (negative)
        *--p = '-';
    size_t n = (size_t)(end - p);
    memcpy(buf, p, n);
    buf[n] = '\0';
    return (int)n;
}

/* A size: bytes, or a number with K, M, G or T (powers of 1024, an
 * optional trailing B or iB: 512M, 2GiB). At least 1. */
int numfmt_parse_size(const char *v, unsigned long long *out)
{
    char *end;
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno)
        return -1;
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, *end & ~0x20) : NULL;
    if (u) {
        for (const char *k = units; k <= u; k++) {
            if (n > ULLONG_MAX / 1024)
                return -1;
            n *= 1024;
        }
        end++;
        if ((*end & ~0x20) == 'I' && (end[1] & ~0x20) == 'B')
            end += 2;
        else if ((*end & ~0x20) == 'B')
            end++;
    }
    if (*end || n == 0)
        return -1;
    *out = n;
    return 0;
}
