/* test_logzone.c: --timezone's zones (exec/extract/logzone.c): fixed
 * offsets, IANA zones read from their TZif files against libc's
 * localtime_r over random instants 1902-2037, the specs refused, this
 * host's spec from TZ, and times written in a zone (logtime.c): $time and
 * buckets, also over a DST change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec/extract/logtime.h"
#include "exec/extract/logzone.h"
#include "tests/support/rng.h"

static logzone_t *load(const char *spec)
{
    logzone_t *z = malloc(sizeof *z);
    err_t e;
    if (logzone_load(z, spec, &e) < 0)
        fail_msg("logzone_load(%s): %s", spec, e.msg);
    return z;
}

static void test_fixed(void **state)
{
    (void)state;
    static const struct { const char *spec; int32_t off; bool utc; } cases[] = {
        {"UTC", 0, true}, {"Z", 0, true}, {"GMT", 0, true}, {"+02:00", 7200, false},
        {"-0530", -19800, false}, {"+14", 50400, false}, {"-00:00", 0, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        logzone_t *z = load(cases[k].spec);
        assert_int_equal(logzone_offset(z, 1714557600), cases[k].off);
        assert_int_equal(z->utc, cases[k].utc);
        free(z);
    }
    static const char *const bad[] = {
        "+24:00", "+2", "+02:60", "+02:0", "Mars/Olympus", "../etc/passwd", "/etc/localtime",
        "Europe/../../etc/passwd", "", "Europe/Berlin\\n", "utc",
        "0123456789012345678901234567890123456789012345678901234567890123456789",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        logzone_t z;
        err_t e;
        if (logzone_load(&z, bad[k], &e) == 0)
            fail_msg("zone '%s' was read", bad[k]);
        assert_int_equal(e.code, ERR_USAGE);
        assert_non_null(strstr(e.msg, "zone"));
    }
}

/* Offsets of IANA zones agree with localtime_r under TZ=zone. */
static void test_against_libc(void **state)
{
    (void)state;
    static const char *const zones[] = {
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
        "America/Sao_Paulo", "Pacific/Chatham", "Africa/Casablanca", "Europe/Dublin",
    };
    char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    uint64_t rng = 0x20e;
    for (size_t k = 0; k < sizeof zones / sizeof zones[0]; k++) {
        char path[256];
        snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", zones[k]);
        if (access(path, R_OK) != 0)
            continue;
        logzone_t *z = load(zones[k]);
        setenv("TZ", zones[k], 1);
        tzset();
        for (int i = 0; i < 20000; i++) {
            /* 1902 .. 2037: inside the file's explicit transitions */
            int64_t t = -2145916800LL + (int64_t)(rng_next(&rng) % (2145916800ULL + 2145916800ULL));
            time_t tt = (time_t)t;
            struct tm tm;
            localtime_r(&tt, &tm);
            if (logzone_offset(z, t) != (int32_t)tm.tm_gmtoff)
                fail_msg("%s at %lld: %d, libc %ld", zones[k], (long long)t,
                         logzone_offset(z, t), (long)tm.tm_gmtoff);
        }
        free(z);
    }
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

static void test_local_spec(void **state)
{
    (void)state;
    char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    static const struct { const char *tz, *want; } cases[] = {
        {"Europe/Berlin", "Europe/Berlin"}, {":Asia/Tokyo", "Asia/Tokyo"}, {"UTC", "UTC"},
        {"", "UTC"}, {"UTC-3", "+03:00"}, {"<+0530>-5:30", "+05:30"}, {"EST5", "-05:00"},
        {"Etc/UTC", "UTC"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        setenv("TZ", cases[k].tz, 1);
        tzset();
        char out[LOGZONE_NAME_MAX];
        logzone_local_spec(out, sizeof out);
        if (strcmp(out, cases[k].want) != 0)
            fail_msg("TZ=%s: %s, want %s", cases[k].tz, out, cases[k].want);
    }
    /* rules this build does not read: the offset now */
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    tzset();
    char out[LOGZONE_NAME_MAX];
    logzone_local_spec(out, sizeof out);
    assert_true(strcmp(out, "+01:00") == 0 || strcmp(out, "+02:00") == 0);
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

static const char *write_in(const char *in, const logzone_t *z, int64_t bucket)
{
    static char out[LOGTIME_MAX + 1];
    logtime_ctx_t c = {1773576000, 0, NULL, z};
    logtime_t t;
    if (!logtime_parse(in, strlen(in), &c, &t))
        return "-";
    size_t n = bucket ? logtime_write_bucket(&t, bucket, out) : logtime_write_utc(&t, out);
    out[n] = '\0';
    return out;
}

static void test_written_in_zone(void **state)
{
    (void)state;
    logzone_t *berlin = load("Europe/Berlin"), *utc = load("UTC"), *ist = load("+05:30");
    assert_string_equal(write_in("2024-05-01T10:00:00.25Z", berlin, 0), "2024-05-01T12:00:00.25+02:00");
    assert_string_equal(write_in("2024-01-01T10:00:00Z", berlin, 0), "2024-01-01T11:00:00+01:00");
    assert_string_equal(write_in("10/Oct/2000:13:55:36 -0700", utc, 0), "2000-10-10T20:55:36Z");
    assert_string_equal(write_in("1714557600", ist, 0), "2024-05-01T15:30:00+05:30");
    /* buckets aligned on the zone's wall clock; a DST day is one key */
    assert_string_equal(write_in("2024-03-31T00:59:00Z", berlin, 86400), "2024-03-31T00:00:00+01:00");
    assert_string_equal(write_in("2024-03-31T01:01:00Z", berlin, 86400), "2024-03-31T00:00:00+01:00");
    assert_string_equal(write_in("2024-03-31T01:01:00Z", berlin, 3600), "2024-03-31T03:00:00+02:00");
    assert_string_equal(write_in("2024-05-01T18:40:00Z", ist, 3600), "2024-05-02T00:00:00+05:30");
    /* the hour a DST end repeats is two buckets */
    assert_string_equal(write_in("2024-10-27T00:30:00Z", berlin, 3600), "2024-10-27T02:00:00+02:00");
    assert_string_equal(write_in("2024-10-27T01:30:00Z", berlin, 3600), "2024-10-27T02:00:00+01:00");
    assert_string_equal(write_in("2024-05-01 12:00:00", ist, 300), "2024-05-01 17:30:00+05:30");
    /* DTail's own layouts keep theirs */
    assert_string_equal(write_in("1002-071149", berlin, 300), "1002-071000");
    assert_string_equal(write_in("20211002-071149", ist, 60), "20211002-071100");
    free(berlin);
    free(utc);
    free(ist);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_against_libc),
        cmocka_unit_test(test_local_spec),
        cmocka_unit_test(test_written_in_zone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
