/* test_number.c: num_parse, the inline number parser of the aggregates,
 * against its strtod fallback (num_parse_slow) on every short digit string
 * and on random strings of digits, signs, dots, exponents and spaces: the
 * same verdict and the same double, bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/number.h"
#include "tests/support/rng.h"

/* num_parse and num_parse_slow agree on [p, p+len). The string is copied
 * to the end of a buffer so a read past it would be seen by ASan. */
static void agree(const char *s, size_t len)
{
    char *buf = malloc(len ? len : 1);
    memcpy(buf, s, len);
    double a = -1, b = -1;
    int ra = num_parse(buf, len, &a), rb = num_parse_slow(buf, len, &b);
    if (ra != rb)
        fail_msg("\"%.*s\": num_parse says %d, strtod %d", (int)len, s, ra, rb);
    if (ra && memcmp(&a, &b, sizeof a) != 0)
        fail_msg("\"%.*s\": num_parse %.17g, strtod %.17g", (int)len, s, a, b);
    free(buf);
}

static void test_all_short_digit_strings(void **state)
{
    (void)state;
    char s[16];
    /* every string of 1..4 digits, and 1..8-digit ones with each position
     * set to each digit and the rest random */
    for (int len = 1; len <= 4; len++) {
        int n = 1;
        for (int k = 0; k < len; k++)
            n *= 10;
        for (int v = 0; v < n; v++) {
            snprintf(s, sizeof s, "%0*d", len, v);
            agree(s, (size_t)len);
        }
    }
    uint64_t rng = 7;
    for (int r = 0; r < 200000; r++) {
        size_t len = 1 + rng_next(&rng) % 8;
        for (size_t k = 0; k < len; k++)
            s[k] = (char)('0' + rng_next(&rng) % 10);
        agree(s, len);
    }
}

static void test_non_digits(void **state)
{
    (void)state;
    /* one byte off in each position: bytes next to '0'..'9' and ones whose
     * +6 would carry into the next byte */
    static const unsigned char bad[] = {'/', ':', ' ', '.', '-', '+', 'e', 0x00, 0x20, 0x2f,
                                        0x3a, 0x3f, 0x40, 0x7f, 0x80, 0xf9, 0xfa, 0xff};
    char s[8];
    for (size_t len = 1; len <= 8; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t b = 0; b < sizeof bad; b++) {
                memset(s, '5', len);
                s[at] = (char)bad[b];
                agree(s, len);
            }
}

static void test_random_strings(void **state)
{
    (void)state;
    static const char alphabet[] = "0123456789000111999+-..eE x";
    uint64_t rng = 11;
    char s[24];
    for (int r = 0; r < 300000; r++) {
        size_t len = rng_next(&rng) % 21;
        for (size_t k = 0; k < len; k++)
            s[k] = alphabet[rng_next(&rng) % (sizeof alphabet - 1)];
        agree(s, len);
    }
    agree("", 0);
    agree("123456789", 9);
    agree("99999999", 8);
    agree("00000000", 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_short_digit_strings),
        cmocka_unit_test(test_non_digits),
        cmocka_unit_test(test_random_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
