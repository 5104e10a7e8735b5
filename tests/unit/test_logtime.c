/* test_logtime.c: the timestamp parser and its two writers
 * (exec/extract/logtime.h): every accepted form, the rejected ones,
 * zones and fractions, the inferred year of RFC 3164 times, buckets in the
 * layout of their input, and random instants against libc's timegm and
 * gmtime_r as the oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "exec/extract/logtime.h"
#include "tests/support/rng.h"

/* 2026-03-15T12:00:00Z, at UTC. */
static const logtime_ctx_t utc = {1773576000, 0, NULL, NULL};

/* p's instant in UTC as logtime_write_utc writes it, or "-" when p is no
 * timestamp. */
static const char *utc_of(const char *p, const logtime_ctx_t *c)
{
    static char out[LOGTIME_MAX + 1];
    logtime_t t;
    if (!logtime_parse(p, strlen(p), c, &t))
        return "-";
    size_t n = logtime_write_utc(&t, out);
    out[n] = '\0';
    return n ? out : "-";
}

static const char *bucket_of(const char *p, int64_t w, const logtime_ctx_t *c)
{
    static char out[LOGTIME_MAX + 1];
    logtime_t t;
    if (!logtime_parse(p, strlen(p), c, &t))
        return "-";
    size_t n = logtime_write_bucket(&t, w, out);
    out[n] = '\0';
    return n ? out : "-";
}

static void test_forms(void **state)
{
    (void)state;
    static const struct { const char *in, *want; } cases[] = {
        /* RFC 3339 / ISO 8601 */
        {"2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"},
        {"2024-05-01t10:00:00z", "2024-05-01T10:00:00Z"},
        {"2024-05-01T10:00:00.5Z", "2024-05-01T10:00:00.5Z"},
        {"2024-05-01T10:00:00.123456789Z", "2024-05-01T10:00:00.123456789Z"},
        {"2024-05-01T10:00:00.1234567891234Z", "2024-05-01T10:00:00.123456789Z"},
        {"2024-05-01T12:30:00+02:30", "2024-05-01T10:00:00Z"},
        {"2024-05-01T05:00:00-0500", "2024-05-01T10:00:00Z"},
        {"2024-05-01T11:00:00+01", "2024-05-01T10:00:00Z"},
        {"2024-05-01 10:00:00,250", "2024-05-01T10:00:00.250Z"},      /* log4j */
        {"2024-05-01 12:00:00.1 +0200 CEST", "2024-05-01T10:00:00.1Z"}, /* Go */
        {"2024-05-01T10:00Z", "2024-05-01T10:00:00Z"},
        {"2024-05-01", "2024-05-01T00:00:00Z"},
        {"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
        {"2024-06-30T23:59:60Z", "2024-07-01T00:00:00Z"},              /* leap second */
        /* epoch */
        {"1700000000", "2023-11-14T22:13:20Z"},
        {"1700000000.25", "2023-11-14T22:13:20.25Z"},
        {"1700000000123", "2023-11-14T22:13:20.123Z"},
        {"1700000000123456", "2023-11-14T22:13:20.123456Z"},
        {"1700000000123456789", "2023-11-14T22:13:20.123456789Z"},
        {"100000000", "1973-03-03T09:46:40Z"},
        /* access logs */
        {"10/Oct/2000:13:55:36 -0700", "2000-10-10T20:55:36Z"},
        {"01/Jan/2024:00:00:00 +0000", "2024-01-01T00:00:00Z"},
        /* DTail */
        {"1002-071143", "2000-10-02T07:11:43Z"},
        {"20211002-071143", "2021-10-02T07:11:43Z"},
        /* RFC 3164: the year of now (2026) */
        {"Mar 15 11:00:00", "2026-03-15T11:00:00Z"},
        {"Mar  1 01:02:03", "2026-03-01T01:02:03Z"},
        {"Mar 1 01:02:03", "2026-03-01T01:02:03Z"},
        {"Mar 22 00:00:00", "2026-03-22T00:00:00Z"},   /* 6.5 days ahead: this year */
        {"Mar 23 00:00:00", "2025-03-23T00:00:00Z"},   /* 7.5 days ahead: last year */
        {"Dec 31 23:59:59", "2025-12-31T23:59:59Z"},
        {"Feb 29 10:00:00", "2024-02-29T10:00:00Z"},   /* the last year that has one */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *got = utc_of(cases[k].in, &utc);
        if (strcmp(got, cases[k].want) != 0)
            fail_msg("%s: got %s, want %s", cases[k].in, got, cases[k].want);
    }
}

static void test_rejected(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "garbage", "2024-13-01T00:00:00Z", "2024-04-31T00:00:00Z", "2023-02-29",
        "2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:61Z",
        "2024-05-01T10:00:00+24:00", "2024-05-01T10:00:00 ", "2024-05-01T10:00:00Zx",
        "2024-05-01T10:00:00.Z", "2024-05-01T1:00:00Z", "2024/05/01 10:00:00", "12345678",
        "17000000001234567890", "1700000000.", "1700000000123.5", "-1700000000", "1e9",
        "10/Okt/2000:13:55:36 -0700", "32/Oct/2000:13:55:36 -0700",
        "1302-071143", "1002-241143", "20211002-07114x", "Foo 11 22:14:15", "Oct 11 22:14",
        "Oct 11 22:14:15 x", "oct 11 22:14:15", "Oct 32 22:14:15",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *got = utc_of(bad[k], &utc);
        if (strcmp(got, "-") != 0)
            fail_msg("'%s' was read as %s", bad[k], got);
    }
}

/* Times without a zone are at the context's offset; written ones at theirs. */
static void test_offsets(void **state)
{
    (void)state;
    const logtime_ctx_t cest = {1773576000, 7200, NULL, NULL};
    assert_string_equal(utc_of("2024-05-01 12:00:00", &cest), "2024-05-01T10:00:00Z");
    assert_string_equal(utc_of("2024-05-01T12:00:00Z", &cest), "2024-05-01T12:00:00Z");
    assert_string_equal(utc_of("Mar 15 12:00:00", &cest), "2026-03-15T10:00:00Z");
    assert_string_equal(utc_of("1700000000", &cest), "2023-11-14T22:13:20Z");
    assert_string_equal(utc_of("10/Oct/2000:13:55:36 +0000", &cest), "2000-10-10T13:55:36Z");
    /* New Year's Eve read just after midnight, both sides of UTC. */
    const logtime_ctx_t jan1 = {1767225600 + 60, 0, NULL, NULL};   /* 2026-01-01T00:01Z */
    assert_string_equal(utc_of("Dec 31 23:59:00", &jan1), "2025-12-31T23:59:00Z");
    assert_string_equal(utc_of("Jan  1 00:00:30", &jan1), "2026-01-01T00:00:30Z");
}

static void test_buckets(void **state)
{
    (void)state;
    static const struct { const char *in; int64_t w; const char *want; } cases[] = {
        {"1002-071449", 300, "1002-071000"},              /* DTail's own layouts */
        {"0229-235959", 3600, "0229-230000"},
        {"1231-235959", 86400, "1231-000000"},
        {"20240229-235959", 3600, "20240229-230000"},
        {"2024-05-01T10:04:59.999Z", 300, "2024-05-01T10:00:00Z"},
        {"2024-03-01T13:14:15.123+02:00", 86400, "2024-03-01T00:00:00+02:00"},
        {"2024-03-01T00:30:00+0530", 3600, "2024-03-01T00:00:00+05:30"},
        {"2024-03-01 13:14:15", 60, "2024-03-01 13:14:00"},   /* no zone: none */
        {"1700000007", 10, "2023-11-14T22:13:20Z"},         /* epoch: UTC */
        {"1700000007999", 60, "2023-11-14T22:13:00Z"},
        {"10/Oct/2000:13:55:36 -0700", 300, "2000-10-10T13:55:00-07:00"},
        {"Oct 11 22:14:15", 3600, "2025-10-11T22:00:00"},
        {"1969-12-31T23:59:59Z", 60, "1969-12-31T23:59:00Z"},
        {"0000-01-01T00:00:30Z", 60, "0000-01-01T00:00:00Z"},
        {"2024-05-01T10:00:00Z", 7 * 86400, "2024-04-25T00:00:00Z"},  /* weeks from 1970's Thursday */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *got = bucket_of(cases[k].in, cases[k].w, &utc);
        if (strcmp(got, cases[k].want) != 0)
            fail_msg("bucket(%s, %lld): got %s, want %s", cases[k].in, (long long)cases[k].w,
                     got, cases[k].want);
    }
    /* Out of the years ISO writes: no text. */
    assert_string_equal(utc_of("0000-01-01T00:00:00+01:00", &utc), "-");
}

/* Random instants over 0001-9999 written as RFC 3339 with random offsets
 * and read back give timegm's instant, and the UTC text is gmtime_r's. */
static void test_against_libc(void **state)
{
    (void)state;
    uint64_t rng = 0x5eed;
    for (int i = 0; i < 200000; i++) {
        int64_t s = (int64_t)(rng_next(&rng) % (253402300800ULL + 62135596800ULL)) - 62135596800LL;
        int off = (int)(rng_next(&rng) % (2 * 86340 / 60 + 1)) * 60 - 86340;
        time_t lt = (time_t)(s + off);
        struct tm tm;
        gmtime_r(&lt, &tm);
        if (tm.tm_year + 1900 < 1 || tm.tm_year + 1900 > 9999)
            continue;
        char in[64];
        int a = off < 0 ? -off : off;
        snprintf(in, sizeof in, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, off < 0 ? '-' : '+',
                 a / 3600, a / 60 % 60);
        logtime_t t;
        if (!logtime_parse(in, strlen(in), &utc, &t))
            fail_msg("not read: %s", in);
        assert_int_equal(t.local - t.off, s);
        struct tm want;
        time_t ts = (time_t)s;
        gmtime_r(&ts, &want);
        char ws[64], got[LOGTIME_MAX + 1];
        snprintf(ws, sizeof ws, "%04d-%02d-%02dT%02d:%02d:%02dZ", want.tm_year + 1900,
                 want.tm_mon + 1, want.tm_mday, want.tm_hour, want.tm_min, want.tm_sec);
        size_t n = logtime_write_utc(&t, got);
        got[n] = '\0';
        if (want.tm_year + 1900 >= 0 && want.tm_year + 1900 <= 9999 && strcmp(got, ws) != 0)
            fail_msg("%s: got %s, want %s", in, got, ws);
        struct tm back = tm;
        assert_int_equal((int64_t)timegm(&back), (int64_t)lt);
    }
}

/* timeformat layouts: each conversion, composites, what is refused. */
static void test_layouts(void **state)
{
    (void)state;
    static const struct { const char *layout, *in, *want; } cases[] = {
        {"%d/%b/%Y:%H:%M:%S %z", "10/Oct/2000:13:55:36 -0700", "2000-10-10T20:55:36Z"},
        {"%d.%m.%Y %H:%M:%S", "01.05.2024 12:00:00", "2024-05-01T12:00:00Z"},
        {"%Y%m%d%H%M%S", "20240501120000", "2024-05-01T12:00:00Z"},
        {"%F %T.%f %Z", "2024-05-01 12:00:00.25 UTC", "2024-05-01T12:00:00.25Z"},
        {"%a, %d %B %Y %I:%M %p", "Wed, 01 MAY 2024 01:05 PM", "2024-05-01T13:05:00Z"},
        {"%A %e %h %y %R", "wednesday  1 may 24 00:05", "2024-05-01T00:05:00Z"},
        {"%I:%M:%S %p %D", "12:00:00 AM 05/01/24", "2024-05-01T00:00:00Z"},
        {"%Y-%j", "2024-366", "2024-12-31T00:00:00Z"},
        {"%Y-%j", "2023-060", "2023-03-01T00:00:00Z"},
        {"%s", "1714557600", "2024-05-01T10:00:00Z"},
        {"@%s.%f", "@1714557600.5", "2024-05-01T10:00:00.5Z"},
        {"%H:%M:%S%z", "12:00:00Z", "2026-01-01T12:00:00Z"},
        {"%b %d %H:%M:%S", "Mar 15 12:00:00", "2026-03-15T12:00:00Z"},   /* year inferred */
        {"%Y%%%m", "2024%05", "2024-05-01T00:00:00Z"},
        {"%Y %m %d", "2024   5	1  ", "2024-05-01T00:00:00Z"},
        {"%Y-%m-%dT%H:%M:%S%z", "2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00Z"},
        {"%Y-%m-%dT%H:%M:%S%z", "2024-05-01T12:00:00+0530", "2024-05-01T06:30:00Z"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        logtime_ctx_t c = {1773576000, 0, cases[k].layout, NULL};
        if (strcmp(cases[k].in, "12:00:00Z") == 0)
            c.now = 1767225600;   /* the day of a time without date: Jan 1 of now's year */
        const char *got = utc_of(cases[k].in, &c);
        if (strcmp(got, cases[k].want) != 0)
            fail_msg("'%s' by '%s': %s, want %s", cases[k].in, cases[k].layout, got,
                     cases[k].want);
    }
    static const struct { const char *layout, *in; } bad[] = {
        {"%d/%b/%Y", "10/Okt/2000"}, {"%d/%m/%Y", "31/04/2024"}, {"%H:%M", "24:00"},
        {"%Y-%m-%d", "2024-05-01 x"}, {"%Y-%m-%d", "2024-05"}, {"%I %p", "13 PM"},
        {"%Y-%j", "2023-366"}, {"%z", "+2400"}, {"%Y %Q", "2024 x"}, {"%s", "x"},
        {"%Y-%m-%d %H:%M:%S", "2024-05-01 10:00:00 x"},
        {"%T", "10:00"}, {"%p", "xm"}, {"%Z", "+01"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        logtime_ctx_t c = {1773576000, 0, bad[k].layout, NULL};
        logtime_t t;
        if (logtime_parse_layout(bad[k].in, strlen(bad[k].in), bad[k].layout, &c, &t))
            fail_msg("'%s' by '%s' was read", bad[k].in, bad[k].layout);
        const char *got = utc_of(bad[k].in, &c);
        if (strcmp(got, "-") != 0)
            fail_msg("'%s' by '%s' was read as %s", bad[k].in, bad[k].layout, got);
    }
    /* a time the layout does not fit: the forms logtime knows (the $time
     * a layout made, read again by bucket()) */
    logtime_ctx_t z = {1773576000, 0, "%d.%m.%Y", NULL};
    assert_string_equal(utc_of("2024-05-01T10:00:00Z", &z), "2024-05-01T10:00:00Z");
    /* bucket() of a layout's time: ISO 8601, with the zone it had */
    logtime_ctx_t c = {1773576000, 0, "%d/%b/%Y:%H:%M:%S %z", NULL};
    assert_string_equal(bucket_of("10/Oct/2000:13:55:36 -0700", 300, &c),
                        "2000-10-10T13:55:00-07:00");
}

/* Random instants written by strftime and read back by the same layout
 * agree with timegm (libc's strptime reads no zone offsets, so the
 * oracle is the instant the text was made from). */
static void test_layouts_against_libc(void **state)
{
    (void)state;
    static const char *const layouts[] = {
        "%d/%b/%Y:%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%a %B %e %T %Y", "%D %I:%M:%S %p", "%Y%j%H%M",
    };
    uint64_t rng = 0x7ea;
    for (int i = 0; i < 50000; i++) {
        int64_t s = (int64_t)(rng_next(&rng) % 4102444800ULL);   /* 1970..2100 */
        const char *layout = layouts[i % 5];
        if (strstr(layout, "%D"))
            s %= 3124137600LL;   /* %y reads 1969..2068 */
        time_t ts = (time_t)s;
        struct tm tm;
        gmtime_r(&ts, &tm);
        char in[128];
        strftime(in, sizeof in, layout, &tm);
        logtime_ctx_t c = {1773576000, 0, layout, NULL};
        logtime_t t;
        if (!logtime_parse(in, strlen(in), &c, &t))
            fail_msg("'%s' by '%s' not read", in, layout);
        int64_t want = strcmp(layout, "%Y%j%H%M") == 0 ? s - s % 60 : s;   /* no seconds */
        if (t.local - t.off != want)
            fail_msg("'%s' by '%s': %lld, want %lld", in, layout, (long long)(t.local - t.off),
                     (long long)want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),      cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_offsets),    cmocka_unit_test(test_buckets),
        cmocka_unit_test(test_against_libc),
        cmocka_unit_test(test_layouts),    cmocka_unit_test(test_layouts_against_libc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
