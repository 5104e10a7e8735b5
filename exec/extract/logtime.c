/* logtime.c: see logtime.h. Civil dates to days and back after Howard
 * Hinnant's algorithms (proleptic Gregorian, no tables, no libc time
 * functions: timegm and gmtime_r take locks and read the zone). */
#include "exec/extract/logtime.h"

#include "exec/extract/logzone.h"

#include <string.h>
#include <time.h>

logtime_ctx_t logtime_ctx_local(void)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    return (logtime_ctx_t){(int64_t)now, (int32_t)tm.tm_gmtoff, NULL, NULL};
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

/* A zone at *pp: Z, or +HH:MM, +HHMM, +HH; *pp past it. */
static bool offset_at(const char **pp, const char *end, logtime_t *t)
{
    const char *p = *pp;
    if (p < end && (*p == 'Z' || *p == 'z')) {
        *pp = p + 1;
        t->zone = LOGTIME_ZONE_Z;
        t->off = 0;
        return true;
    }
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
    *pp = p;
    t->zone = LOGTIME_ZONE_OFFSET;
    t->off = sign * (int32_t)(h * 3600 + m * 60);
    return true;
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
    if (*p == 'Z' || *p == 'z')
        return offset_at(&p, end, t) && p == end;
    if (*p == ' ')
        p++;
    if (p < end && (*p == 'Z' || *p == 'z'))
        return false;
    if (!offset_at(&p, end, t))
        return false;
    if (p < end) {
        if (*p != ' ' || p + 1 == end)
            return false;
        for (p++; p < end; p++)
            if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
                return false;
    }
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

/* The wall clock of a time without year: now's (in the time's own
 * offset), or an earlier one when that puts the time more than 7 days
 * ahead of now or has no such day (Feb 29). */
static bool infer_year(const logtime_ctx_t *c, logtime_t *t, unsigned mo, unsigned d, unsigned h,
                       unsigned mi, unsigned s)
{
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
    return infer_year(c, t, mo, d, h, mi, s);
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

static bool parse_any(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t);

bool logtime_parse(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t)
{
    bool ok = parse_any(p, n, c, t);
    t->out = c->out;
    return ok;
}

static bool parse_any(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t)
{
    /* A layout first; then the forms below, which is what a $time made by
     * the layout (ISO 8601 in UTC) is when bucket() reads it again. */
    if (c->layout && logtime_parse_layout(p, n, c->layout, c, t))
        return true;
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

/* Z, or the offset as +HH:MM. */
static char *put_zone(char *o, int32_t off, bool z)
{
    if (z) {
        *o++ = 'Z';
        return o;
    }
    int32_t a = off < 0 ? -off : off;
    *o++ = off < 0 ? '-' : '+';
    o = put2(o, (unsigned)(a / 3600));
    *o++ = ':';
    return put2(o, (unsigned)(a / 60 % 60));
}

size_t logtime_write_utc(const logtime_t *t, char *out)
{
    int64_t utc = t->local - t->off;
    int32_t zo = t->out ? logzone_offset(t->out, utc) : 0;
    char *o = put_iso(out, utc + zo, 'T');
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
    o = put_zone(o, zo, !t->out || t->out->utc);
    return (size_t)(o - out);
}

size_t logtime_write_bucket(const logtime_t *t, int64_t w, char *out)
{
    int64_t s = t->local;
    int32_t zo = 0;
    bool dtail = t->layout == LOGTIME_DTAIL_SHORT || t->layout == LOGTIME_DTAIL_LONG;
    if (t->out && !dtail) {
        zo = logzone_offset(t->out, t->local - t->off);
        s = t->local - t->off + zo;
    }
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
    if (t->out) {
        /* The offset in force at the bucket's start, so that the times of
         * one day of a DST change share their key: the start's wall clock
         * read at the time's offset, then at the offset found there. */
        int32_t at = logzone_offset(t->out, s - zo);
        at = logzone_offset(t->out, s - at);
        return (size_t)(put_zone(o, at, t->out->utc) - out);
    }
    if (t->zone == LOGTIME_ZONE_Z) {
        *o++ = 'Z';
    } else if (t->zone == LOGTIME_ZONE_OFFSET) {
        o = put_zone(o, t->off, false);
    }
    return (size_t)(o - out);
}

/* ---- strptime-style layouts (timeformat) ---- */

typedef struct layout_fields {
    int64_t y;                /* INT64_MIN: none */
    unsigned mo, d, h, mi, s, yday;
    int pm;                   /* -1: no %p, 0 AM, 1 PM */
    bool h12;                 /* %I */
    bool epoch;               /* %s */
    int64_t esec;
    int depth;                /* %T and friends nest once */
} layout_fields_t;

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* Up to max digits (at least one) at *p as a number, *p past them. */
static bool digits(const char **p, const char *end, unsigned max, unsigned *out)
{
    unsigned v = 0, k = 0;
    while (*p < end && k < max && is_digit(**p)) {
        v = v * 10 + (unsigned)(**p - '0');
        (*p)++;
        k++;
    }
    *out = v;
    return k > 0;
}

/* A name of names (n of them, their lengths full) at *p, any case, or its
 * first three letters; *idx its index. */
static bool name_at(const char **p, const char *end, const char *const *names, unsigned n,
                    unsigned *idx)
{
    for (unsigned k = 0; k < n; k++) {
        size_t l = strlen(names[k]);
        for (size_t want = l;; want = 3) {
            if ((size_t)(end - *p) >= want) {
                size_t i = 0;
                while (i < want && lower((*p)[i]) == names[k][i])
                    i++;
                if (i == want) {
                    *p += want;
                    *idx = k;
                    return true;
                }
            }
            if (want == 3)
                break;
        }
    }
    return false;
}

static const char *const month_names[] = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
};
static const char *const day_names[] = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
};

static bool layout_run(const char **pp, const char *end, const char *f, layout_fields_t *lf,
                       logtime_t *t);

static bool layout_conv(const char **p, const char *end, char d, layout_fields_t *lf,
                        logtime_t *t)
{
    unsigned v;
    switch (d) {
    case 'Y':
        if (!digits(p, end, 4, &v))
            return false;
        lf->y = v;
        return true;
    case 'y':
        if (!digits(p, end, 2, &v))
            return false;
        lf->y = v < 69 ? 2000 + v : 1900 + v;
        return true;
    case 'm': return digits(p, end, 2, &lf->mo);
    case 'e':
        if (*p < end && **p == ' ')
            (*p)++;
        /* fallthrough */
    case 'd': return digits(p, end, 2, &lf->d);
    case 'I': lf->h12 = true; /* fallthrough */
    case 'H': return digits(p, end, 2, &lf->h);
    case 'M': return digits(p, end, 2, &lf->mi);
    case 'S': return digits(p, end, 2, &lf->s);
    case 'j': return digits(p, end, 3, &lf->yday) && lf->yday >= 1;
    case 'f':
        if (*p == end || !is_digit(**p))
            return false;
        *p = fraction(*p, end, t);
        return true;
    case 'p':
        if (end - *p < 2 || lower((*p)[1]) != 'm' || (lower(**p) != 'a' && lower(**p) != 'p'))
            return false;
        lf->pm = lower(**p) == 'p';
        *p += 2;
        return true;
    case 'b': case 'h': case 'B':
        if (!name_at(p, end, month_names, 12, &v))
            return false;
        lf->mo = v + 1;
        return true;
    case 'a': case 'A': return name_at(p, end, day_names, 7, &v);
    case 'z': return offset_at(p, end, t);
    case 'Z': {
        const char *q = *p;
        while (q < end && ((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z')))
            q++;
        if (q == *p)
            return false;
        if (t->zone == LOGTIME_ZONE_NONE && ((q - *p == 3 && (memcmp(*p, "UTC", 3) == 0 ||
                                                              memcmp(*p, "GMT", 3) == 0)) ||
                                             (q - *p == 1 && **p == 'Z'))) {
            t->zone = LOGTIME_ZONE_Z;
            t->off = 0;
        }
        *p = q;
        return true;
    }
    case 's': {
        int64_t s = 0;
        unsigned k = 0;
        while (*p < end && is_digit(**p) && k < 12) {
            s = s * 10 + (**p - '0');
            (*p)++;
            k++;
        }
        lf->epoch = true;
        lf->esec = s;
        return k > 0;
    }
    case 'T': return lf->depth == 1 && layout_run(p, end, "%H:%M:%S", lf, t);
    case 'D': return lf->depth == 1 && layout_run(p, end, "%m/%d/%y", lf, t);
    case 'F': return lf->depth == 1 && layout_run(p, end, "%Y-%m-%d", lf, t);
    case 'R': return lf->depth == 1 && layout_run(p, end, "%H:%M", lf, t);
    case 'n': case 't':
        while (*p < end && (**p == ' ' || **p == '\t'))
            (*p)++;
        return true;
    case '%':
        if (*p == end || **p != '%')
            return false;
        (*p)++;
        return true;
    default:
        return false;
    }
}

static bool layout_run(const char **pp, const char *end, const char *f, layout_fields_t *lf,
                       logtime_t *t)
{
    lf->depth++;
    for (; *f; f++) {
        if (*f == ' ') {
            while (*pp < end && (**pp == ' ' || **pp == '\t'))
                (*pp)++;
        } else if (*f == '%' && f[1]) {
            if (!layout_conv(pp, end, *++f, lf, t))
                return false;
        } else if (*pp < end && **pp == *f) {
            (*pp)++;
        } else {
            return false;
        }
    }
    lf->depth--;
    return true;
}

bool logtime_parse_layout(const char *p, size_t n, const char *layout, const logtime_ctx_t *c,
                          logtime_t *t)
{
    memset(t, 0, sizeof *t);
    t->out = c->out;
    t->off = c->off;
    t->layout = LOGTIME_ISO;
    t->sep = 'T';
    layout_fields_t lf = {.y = INT64_MIN, .mo = 1, .d = 1, .pm = -1};
    const char *q = p, *end = p + n;
    if (!layout_run(&q, end, layout, &lf, t))
        return false;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q != end)
        return false;
    if (lf.epoch) {
        t->layout = LOGTIME_EPOCH;
        t->zone = LOGTIME_ZONE_Z;
        t->off = 0;
        t->local = lf.esec;
        return true;
    }
    if (lf.h12) {
        if (lf.h < 1 || lf.h > 12)
            return false;
        lf.h = lf.h % 12 + (lf.pm == 1 ? 12 : 0);
    } else if (lf.pm == 1 && lf.h < 12) {
        lf.h += 12;
    }
    if (lf.yday) {
        if (lf.y == INT64_MIN || lf.yday > (leap(lf.y) ? 366u : 365u))
            return false;
        unsigned m = 1, left = lf.yday;
        while (left > days_in_month(lf.y, m))
            left -= days_in_month(lf.y, m++);
        lf.mo = m;
        lf.d = left;
    }
    if (lf.y == INT64_MIN)
        return infer_year(c, t, lf.mo, lf.d, lf.h, lf.mi, lf.s);
    return set_local(t, lf.y, lf.mo, lf.d, lf.h, lf.mi, lf.s);
}
