/* test_numfmt.c: numfmt_fixed6 and numfmt_u64 write exactly what printf's
 * "%f" and "%llu" write: random doubles of every magnitude, exact ties
 * (k / 2^n), integers, negatives rounding to zero, subnormals, and the
 * values handed on to snprintf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/numfmt.h"
#include "tests/support/rng.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    return rng_next64(&rng_state);
}

static void same(double v)
{
    char want[512], got[512];
    int wn = snprintf(want, sizeof want, "%f", v);
    int gn = numfmt_fixed6(got, sizeof got, v);
    if (wn != gn || strcmp(want, got) != 0)
        fail_msg("%a: printf \"%s\", numfmt \"%s\"", v, want, got);
}

static void test_fixed6_edges(void **state)
{
    (void)state;
    const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-7, -1e-7, 4e-7, 5e-7, 6e-7, 0.0000005,
                            0.0078125, 0.0234375, 1.0 / 1024, 1.0 / 128, 2.5e-6, 123456.5,
                            9007199254740991.0, 9007199254740993.0, 4611686018427387904.0,
                            9223372036854775807.0, 1e19, 1e300, DBL_MIN, DBL_TRUE_MIN, -DBL_MIN,
                            DBL_MAX, 11.628141, 14.391304, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3,
                            INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        same(edges[i]);
    /* Every tie at six decimals is k / 2^n; glibc rounds them to even. */
    for (int n = 1; n <= 20; n++)
        for (int k = 1; k < 4000; k += 2)
            same(ldexp(k, -n)), same(-ldexp(k, -n));
}

static void test_fixed6_random(void **state)
{
    (void)state;
    for (int i = 0; i < 300000; i++) {
        uint64_t r = next();
        double mag = ldexp(1.0, (int)(r % 140) - 70);          /* 2^-70 .. 2^69 */
        double v = mag * ((double)(next() >> 11) / 9007199254740992.0);
        same(r & 1 ? -v : v);
        double bits_v;
        uint64_t b = next();
        memcpy(&bits_v, &b, sizeof b);                          /* any bit pattern */
        same(bits_v);
        same((double)(int64_t)(next() >> (next() % 64)));        /* integers */
        same(round(v * 1e6) / 1e6);                              /* six-decimal values */
    }
}

static void test_u64(void **state)
{
    (void)state;
    char want[32], got[32];
    const uint64_t edges[] = {0, 1, 9, 10, 99, 100, 18446744073709551615ull};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        snprintf(want, sizeof want, "%llu", (unsigned long long)edges[i]);
        assert_int_equal(numfmt_u64(got, sizeof got, edges[i]), (int)strlen(want));
        assert_string_equal(got, want);
    }
    for (int i = 0; i < 100000; i++) {
        uint64_t v = next() >> (next() % 64);
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        numfmt_u64(got, sizeof got, v);
        assert_string_equal(got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed6_edges),
        cmocka_unit_test(test_fixed6_random),
        cmocka_unit_test(test_u64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
