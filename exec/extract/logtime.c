/* logtime.c: see logtime.h. Civil dates to days and back after Howard
 * Hinnant's algorithms (proleptic Gregorian, no tables, no libc time
 * functions: timegm and gmtime_r take locks and read the zone). */
#include "exec/extract/logtime.h"

#include <string.h>
#include <time.h>

logtime_ctx_t logtime_ctx_local(void)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    return (logtime_ctx_t){(int64_t)now, (int32_t)tm.tm_gmtoff};
}

/* The last date each thread converted, either way: a log's lines mostly
 * share their day, and the conversions cost a handful of divisions. */
static __thread struct {
    int64_t y, days;      /* the date and its day number */
    unsigned m, d;
    bool set;             /* the entry is valid */
} last_date;

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int64_t logtime_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    if (last_date.set && last_date.y == y && last_date.m == m && last_date.d == d)
        return last_date.days;
    int64_t days = days_from_civil(y, m, d);
    last_date.y = y;
    last_date.m = m;
    last_date.d = d;
    last_date.days = days;
    last_date.set = true;
    return days;
}

typedef struct civil {
    int64_t y;
    unsigned m, d, hh, mm, ss;
} civil_t;

static civil_t civil_from_seconds(int64_t s)
{
    int64_t z = s >= 0 ? s / 86400 : (s - 86399) / 86400;
    unsigned sod = (unsigned)(s - z * 86400);
    civil_t c;
    c.hh = sod / 3600;
    c.mm = sod / 60 % 60;
    c.ss = sod % 60;
    if (last_date.set && last_date.days == z) {
        c.y = last_date.y;
        c.m = last_date.m;
        c.d = last_date.d;
        return c;
    }
    int64_t day = z;
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    c.d = doy - (153 * mp + 2) / 5 + 1;
    c.m = mp < 10 ? mp + 3 : mp - 9;
    c.y = (int64_t)yoe + era * 400 + (c.m <= 2);
    last_date.y = c.y;
    last_date.m = c.m;
    last_date.d = c.d;
    last_date.days = day;
    last_date.set = true;
    return c;
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned char dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : dim[m - 1];
}

/* n digits at p as a number; false if one is not a digit. */
static bool num(const char *p, size_t n, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)p[i] - '0';
        if (d > 9)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static bool is_digit(char c)
{
    return (unsigned)(unsigned char)c - '0' <= 9;
}

/* The wall clock of a validated civil time, into t->local. */
static bool set_local(logtime_t *t, int64_t y, unsigned mo, unsigned d, unsigned h, unsigned mi,
                      unsigned s)
{
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 60)
        return false;
    t->local = logtime_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    return true;
}

/* A fraction at *p (after its '.' or ','): up to 9 digits kept, more
 * read and dropped. */
static const char *fraction(const char *p, const char *end, logtime_t *t)
{
    uint32_t v = 0;
    unsigned k = 0;
    while (p < end && is_digit(*p)) {
        if (k < 9) {
            v = v * 10 + (uint32_t)(*p - '0');
            k++;
        }
        p++;
    }
    t->frac_digits = (uint8_t)k;
    for (unsigned i = k; i < 9; i++)
        v *= 10;
    t->nsec = v;
    return p;
}

/* A zone at [p, end) that must take all of it: Z, +HH:MM, +HHMM, +HH,
 * each maybe after one space, and then maybe " NAME" (Go's time.String:
 * "+0000 UTC"). */
static bool zone(const char *p, const char *end, logtime_t *t, const logtime_ctx_t *c)
{
    t->zone = LOGTIME_ZONE_NONE;
    t->off = c->off;
    if (p == end)
        return true;
    if (*p == 'Z' || *p == 'z') {
        t->zone = LOGTIME_ZONE_Z;
        t->off = 0;
        return p + 1 == end;
    }
    if (*p == ' ')
        p++;
    if (p == end || (*p != '+' && *p != '-'))
        return false;
    int sign = *p++ == '-' ? -1 : 1;
    unsigned h, m = 0;
    if (end - p < 2 || !num(p, 2, &h))
        return false;
    p += 2;
    if (p < end && *p == ':')
        p++;
    if (end - p >= 2 && is_digit(p[0])) {
        if (!num(p, 2, &m))
            return false;
        p += 2;
    }
    if (h > 23 || m > 59)
        return false;
    if (p < end) {
        if (*p != ' ' || p + 1 == end)
            return false;
        for (p++; p < end; p++)
            if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
                return false;
    }
    t->zone = LOGTIME_ZONE_OFFSET;
    t->off = sign * (int32_t)(h * 3600 + m * 60);
    return true;
}

/* YYYY-MM-DD[(T|t| )HH:MM[:SS[(.|,)f]]][zone] */
static bool parse_iso(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t)
{
    const char *end = p + n;
    unsigned y, mo, d, h = 0, mi = 0, s = 0;
    if (n < 10 || p[4] != '-' || p[7] != '-' || !num(p, 4, &y) || !num(p + 5, 2, &mo) ||
        !num(p + 8, 2, &d))
        return false;
    t->layout = LOGTIME_ISO;
    t->sep = 'T';
    const char *q = p + 10;
    if (q < end && (*q == 'T' || *q == 't' || *q == ' ') && end - q >= 6 && is_digit(q[1])) {
        t->sep = *q == ' ' ? ' ' : 'T';
        if (q[3] != ':' || !num(q + 1, 2, &h) || !num(q + 4, 2, &mi))
            return false;
        q += 6;
        if (q < end && *q == ':') {
            if (end - q < 3 || !num(q + 1, 2, &s))
                return false;
            q += 3;
            if (q < end && (*q == '.' || *q == ',') && q + 1 < end && is_digit(q[1]))
                q = fraction(q + 1, end, t);
        }
    }
    return zone(q, end, t, c) && set_local(t, y, mo, d, h, mi, s);
}

static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

/* The month of a three-letter English name (case as written by C
 * locales: Jan), 0 when none. */
static unsigned month_name(const char *p)
{
    for (unsigned k = 0; k < 12; k++)
        if (memcmp(p, months + 3 * k, 3) == 0)
            return k + 1;
    return 0;
}

/* DD/Mon/YYYY:HH:MM:SS +HHMM */
static bool parse_clf(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t)
{
    unsigned d, mo, y, h, mi, s;
    if (n < 20 || p[2] != '/' || p[6] != '/' || p[11] != ':' || p[14] != ':' || p[17] != ':' ||
        !num(p, 2, &d) || !(mo = month_name(p + 3)) || !num(p + 7, 4, &y) ||
        !num(p + 12, 2, &h) || !num(p + 15, 2, &mi) || !num(p + 18, 2, &s))
        return false;
    t->layout = LOGTIME_CLF;
    const char *q = p + 20, *end = p + n;
    if (q < end && (*q == '.' || *q == ',') && q + 1 < end && is_digit(q[1]))
        q = fraction(q + 1, end, t);
    return zone(q, end, t, c) && set_local(t, y, mo, d, h, mi, s);
}

/* Mon DD HH:MM:SS or Mon  D HH:MM:SS (RFC 3164), optional fraction and
 * zone; the year inferred from the context. */
static bool parse_bsd(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t)
{
    unsigned mo, d, h, mi, s;
    if (n < 14 || p[3] != ' ' || !(mo = month_name(p)))
        return false;
    const char *q = p + 4, *end = p + n;
    if (*q == ' ')
        q++;
    if (end - q < 10)
        return false;
    if (is_digit(q[0]) && is_digit(q[1])) {
        d = (unsigned)(q[0] - '0') * 10 + (unsigned)(q[1] - '0');
        q += 2;
    } else if (is_digit(q[0])) {
        d = (unsigned)(q[0] - '0');
        q += 1;
    } else {
        return false;
    }
    if (end - q < 9 || q[0] != ' ' || q[3] != ':' || q[6] != ':' || !num(q + 1, 2, &h) ||
        !num(q + 4, 2, &mi) || !num(q + 7, 2, &s))
        return false;
    q += 9;
    t->layout = LOGTIME_BSD;
    if (q < end && q[0] == '.' && q + 1 < end && is_digit(q[1]))
        q = fraction(q + 1, end, t);
    if (!zone(q, end, t, c))
        return false;
    /* The year: now's (in the time's own offset), or an earlier one when
     * that puts the time more than 7 days ahead of now or has no such
     * day (Feb 29). */
    int64_t y = civil_from_seconds(c->now + t->off).y;
    for (int k = 0; k < 8; k++, y--) {
        if (!set_local(t, y, mo, d, h, mi, s))
            continue;
        if (k == 0 && t->local - t->off > c->now + 7 * 86400)
            continue;
        return true;
    }
    return false;
}

/* Digits, for epoch times: 9-11 seconds (with a fraction allowed), 12-14
 * milliseconds, 15-17 microseconds, 18-19 nanoseconds. */
static bool parse_epoch(const char *p, size_t n, logtime_t *t)
{
    size_t k = 0;
    uint64_t v = 0;
    while (k < n && is_digit(p[k]) && k < 19)
        v = v * 10 + (uint64_t)(p[k++] - '0');
    if (k < 9 || (k < n && (k > 11 || p[k] != '.')))
        return false;
    t->layout = LOGTIME_EPOCH;
    t->zone = LOGTIME_ZONE_Z;
    t->off = 0;
    if (k < n) {
        const char *end = p + n;
        if (k + 1 == n || fraction(p + k + 1, end, t) != end)
            return false;
    } else if (k >= 12) {
        static const uint64_t div[] = {1000, 1000000, 1000000000};
        static const uint8_t digits[] = {3, 6, 9};
        int u = k <= 14 ? 0 : k <= 17 ? 1 : 2;
        t->nsec = (uint32_t)(v % div[u] * (1000000000 / div[u]));
        t->frac_digits = digits[u];
        v /= div[u];
    }
    t->local = (int64_t)v;
    return true;
}

bool logtime_parse(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t)
{
    memset(t, 0, sizeof *t);
    if (n < 9 || n > 64)
        return false;
    unsigned y, mo, d, h, mi, s;
    if (n == 11 && p[4] == '-' && num(p, 2, &mo) && num(p + 2, 2, &d) && num(p + 5, 2, &h) &&
        num(p + 7, 2, &mi) && num(p + 9, 2, &s)) {
        t->layout = LOGTIME_DTAIL_SHORT;
        return set_local(t, 2000, mo, d, h, mi, s);
    }
    if (n == 15 && p[8] == '-' && num(p, 4, &y) && num(p + 4, 2, &mo) && num(p + 6, 2, &d) &&
        num(p + 9, 2, &h) && num(p + 11, 2, &mi) && num(p + 13, 2, &s)) {
        t->layout = LOGTIME_DTAIL_LONG;
        return set_local(t, y, mo, d, h, mi, s);
    }
    if (is_digit(p[0]) && is_digit(p[1])) {
        if (p[2] == '/')
            return parse_clf(p, n, c, t);
        if (p[4] == '-')
            return parse_iso(p, n, c, t);
        return parse_epoch(p, n, t);
    }
    return parse_bsd(p, n, c, t);
}

bool logtime_is_utc_iso(const char *p, size_t n)
{
    unsigned y, mo, d, h, mi, s, f;
    if (n < 20 || n == 21 || n > 30 || p[n - 1] != 'Z' || p[4] != '-' || p[7] != '-' ||
        p[10] != 'T' || p[13] != ':' || p[16] != ':' || !num(p, 4, &y) || !num(p + 5, 2, &mo) ||
        !num(p + 8, 2, &d) || !num(p + 11, 2, &h) || !num(p + 14, 2, &mi) ||
        !num(p + 17, 2, &s))
        return false;
    if (n > 20 && (p[19] != '.' || !num(p + 20, n - 21, &f)))
        return false;
    return mo >= 1 && mo <= 12 && d >= 1 && d <= days_in_month(y, mo) && h <= 23 && mi <= 59 &&
           s <= 59;
}

/* ---- writing ---- */

static char *put2(char *o, unsigned v)
{
    o[0] = (char)('0' + v / 10);
    o[1] = (char)('0' + v % 10);
    return o + 2;
}

/* YYYY-MM-DD<sep>HH:MM:SS of seconds s; NULL when the year does not fit. */
static char *put_iso(char *o, int64_t s, char sep)
{
    civil_t c = civil_from_seconds(s);
    if (c.y < 0 || c.y > 9999)
        return NULL;
    o = put2(o, (unsigned)(c.y / 100));
    o = put2(o, (unsigned)(c.y % 100));
    *o++ = '-';
    o = put2(o, c.m);
    *o++ = '-';
    o = put2(o, c.d);
    *o++ = sep;
    o = put2(o, c.hh);
    *o++ = ':';
    o = put2(o, c.mm);
    *o++ = ':';
    return put2(o, c.ss);
}

size_t logtime_write_utc(const logtime_t *t, char *out)
{
    char *o = put_iso(out, t->local - t->off, 'T');
    if (!o)
        return 0;
    if (t->frac_digits) {
        char f[9];
        uint32_t v = t->nsec;
        for (int k = 8; k >= 0; k--, v /= 10)
            f[k] = (char)('0' + v % 10);
        *o++ = '.';
        memcpy(o, f, t->frac_digits);
        o += t->frac_digits;
    }
    *o++ = 'Z';
    return (size_t)(o - out);
}

size_t logtime_write_bucket(const logtime_t *t, int64_t w, char *out)
{
    int64_t s = t->local;
    s -= ((s % w) + w) % w;
    civil_t c = civil_from_seconds(s);
    char *o = out;
    switch (t->layout) {
    case LOGTIME_DTAIL_LONG:
        if (c.y < 0 || c.y > 9999)
            return 0;
        o = put2(o, (unsigned)(c.y / 100));
        o = put2(o, (unsigned)(c.y % 100));
        /* fallthrough */
    case LOGTIME_DTAIL_SHORT:
        o = put2(o, c.m);
        o = put2(o, c.d);
        *o++ = '-';
        o = put2(o, c.hh);
        o = put2(o, c.mm);
        return (size_t)(put2(o, c.ss) - out);
    default:
        break;
    }
    o = put_iso(o, s, t->layout == LOGTIME_ISO ? t->sep : 'T');
    if (!o)
        return 0;
    if (t->zone == LOGTIME_ZONE_Z) {
        *o++ = 'Z';
    } else if (t->zone == LOGTIME_ZONE_OFFSET) {
        int32_t off = t->off < 0 ? -t->off : t->off;
        *o++ = t->off < 0 ? '-' : '+';
        o = put2(o, (unsigned)(off / 3600));
        *o++ = ':';
        o = put2(o, (unsigned)(off / 60 % 60));
    }
    return (size_t)(o - out);
}
