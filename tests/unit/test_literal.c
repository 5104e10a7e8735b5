/* test_literal.c: the packed-pair literal search and the byte counter
 * against memmem and a byte loop, at every alignment and length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "exec/filter/literal.h"
#include "tests/support/rng.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned next_rand(void)
{
    return rng_next(&rng);
}

static void test_find_matches_memmem(void **state)
{
    (void)state;
    char hay[700];
    for (int round = 0; round < 3000; round++) {
        /* A small alphabet makes partial matches and candidates common. */
        const char *alpha = round % 2 ? "abAB|\n" : "ERROR XYZ-0123\n";
        size_t na = strlen(alpha);
        size_t n = next_rand() % sizeof hay;
        for (size_t i = 0; i < n; i++)
            hay[i] = alpha[next_rand() % na];
        char needle[40];
        size_t nl = 1 + next_rand() % 12;
        if (n > nl && next_rand() % 2) {
            memcpy(needle, hay + next_rand() % (n - nl), nl);   /* present */
        } else {
            for (size_t i = 0; i < nl; i++)
                needle[i] = alpha[next_rand() % na];
        }
        literal_t l;
        literal_init(&l, needle, nl);
        for (size_t start = 0; start <= n && start < 70; start++) {
            const char *want = n - start >= nl ? memmem(hay + start, n - start, needle, nl) : NULL;
            const char *got = literal_find(&l, hay + start, hay + n);
            assert_ptr_equal(got, want);
        }
    }
}

static void test_find_at_the_very_end(void **state)
{
    (void)state;
    char hay[100];
    memset(hay, 'x', sizeof hay);
    memcpy(hay + 95, "ERROR", 5);
    literal_t l;
    literal_init(&l, "ERROR", 5);
    assert_ptr_equal(literal_find(&l, hay, hay + 100), hay + 95);
    assert_null(literal_find(&l, hay, hay + 99));
    assert_null(literal_find(&l, hay + 96, hay + 100));
}

static void test_rare_bytes_are_distinct_positions(void **state)
{
    (void)state;
    literal_t l;
    literal_init(&l, "aaaaaaaa", 8);
    assert_true(l.off1 < l.off2);
    literal_init(&l, "lifetimeConnections=5", 21);
    assert_true(l.off1 < l.off2);
    assert_true(l.b1 == 'C' || l.b2 == 'C');
}

static void test_count_byte(void **state)
{
    (void)state;
    char buf[1000];
    for (int round = 0; round < 500; round++) {
        size_t n = next_rand() % sizeof buf;
        size_t want = 0;
        for (size_t i = 0; i < n; i++) {
            buf[i] = next_rand() % 4 ? 'a' : '\n';
            want += buf[i] == '\n';
        }
        assert_int_equal(count_byte(buf, n, '\n'), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_matches_memmem),
        cmocka_unit_test(test_find_at_the_very_end),
        cmocka_unit_test(test_rare_bytes_are_distinct_positions),
        cmocka_unit_test(test_count_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
