/* test_logtime_canonical.c: logtime_is_utc_iso, the shortcut that lets
 * $time be a timestamp's own text: it holds exactly for the texts that
 * logtime_write_utc(logtime_parse(text)) gives back unchanged, over random
 * near-ISO texts (years, months 00-13, days 00-32 around leap years,
 * hours to 24, minutes and seconds to 61, 0-11 fraction digits, '.' or
 * ',', T or t or space, Z or z or an offset). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "exec/extract/logtime.h"
#include "tests/support/rng.h"

static const logtime_ctx_t utc = {.now = 1773576000, .off = 0};

/* Whether the writer gives p back as it is. */
static bool round_trips(const char *p, size_t n)
{
    logtime_t t;
    char out[LOGTIME_MAX];
    if (!logtime_parse(p, n, &utc, &t))
        return false;
    size_t w = logtime_write_utc(&t, out);
    return w == n && memcmp(out, p, n) == 0;
}

static void test_fixed(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "2024-05-01T00:00:00Z", "2024-05-01T00:00:00.388Z", "2024-02-29T23:59:59.123456789Z",
        "0000-01-01T00:00:00.0Z", "9999-12-31T23:59:59Z",
    };
    static const char *const no[] = {
        "2023-02-29T00:00:00Z", "2024-05-01T00:00:60Z", "2024-05-01t00:00:00Z",
        "2024-05-01T00:00:00z", "2024-05-01T00:00:00,5Z", "2024-05-01T00:00:00.Z",
        "2024-05-01T00:00:00.1234567890Z", "2024-05-01T00:00:00+00:00", "2024-05-01 00:00:00Z",
        "2024-13-01T00:00:00Z", "2024-04-31T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T00:00Z",
        "2024-05-01T00:00:00.5", "2024-05-01T0a:00:00Z",
    };
    for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++) {
        assert_true(logtime_is_utc_iso(yes[k], strlen(yes[k])));
        assert_true(round_trips(yes[k], strlen(yes[k])));
    }
    for (size_t k = 0; k < sizeof no / sizeof no[0]; k++)
        assert_false(logtime_is_utc_iso(no[k], strlen(no[k])));
}

static void test_random_is_round_trip(void **state)
{
    (void)state;
    static const int years[] = {0, 1, 1900, 1970, 2000, 2023, 2024, 2100, 9999};
    static const char *const seps[] = {"T", "T", "T", "t", " "};
    static const char *const zones[] = {"Z", "Z", "Z", "z", "+00:00", "", "Z "};
    uint64_t rng = 0x7153;
    size_t yes = 0;
    for (int k = 0; k < 200000; k++) {
        char b[96];
        int n = sprintf(b, "%04d-%02u-%02u%s%02u:%02u:%02u", years[rng_next(&rng) % 9],
                        rng_next(&rng) % 14, rng_next(&rng) % 33, seps[rng_next(&rng) % 5],
                        rng_next(&rng) % 25, rng_next(&rng) % 62, rng_next(&rng) % 62);
        unsigned digits = rng_next(&rng) % 12;
        if (digits < 11) {
            b[n++] = rng_next(&rng) % 8 ? '.' : ',';
            for (unsigned d = 0; d < digits; d++)
                b[n++] = (char)('0' + rng_next(&rng) % 10);
        }
        n += sprintf(b + n, "%s", zones[rng_next(&rng) % 7]);
        bool canon = logtime_is_utc_iso(b, (size_t)n), trip = round_trips(b, (size_t)n);
        if (canon != trip)
            fail_msg("\"%s\": logtime_is_utc_iso %d, written back unchanged %d", b, canon, trip);
        yes += canon;
    }
    assert_true(yes > 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_random_is_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
