/* test_extract_generickv.c: the `generic` and `generickv` formats
 * (dtail-behaviour.md §3.3, §3.4): generic accepts every line with only the
 * common variables; generickv adds each '|'-separated key=value token,
 * ignores tokens without '=' (DTail hangs on them, defect D1), and is
 * checked against a naive oracle on random lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"
#include "tests/support/extract_oracle.h"
#include "tests/support/extract_unit.h"

static const extract_env_t env = {"host07", "UTC", "0"};

static extractor_t *make(const char *fmt, const char *const *fields, size_t n)
{
    return xt_make(fmt, &env, fields, n);
}

static void test_generic_every_line(void **state)
{
    (void)state;
    const char *fields[] = {"$line", "a", "$time", "*"};
    extractor_t *x = make("generic", fields, 4);
    const char *lines[] = {"", "   ", "|", "a=1", "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
                           "\xff\xfe", "{\"a\":1}"};
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        sv_t v[4];
        assert_int_equal(xt_run1(x, 4, lines[k], strlen(lines[k]), v), EXTRACT_OK);
        assert_sv(v[1], NULL);
        assert_sv(v[2], NULL);
        assert_sv(v[3], "*");
    }
    sv_t v[4];
    xt_run1(x, 4, "  hello world \r", 15, v);
    assert_sv(v[0], "hello world");
    const char nul[] = "a\0b";
    xt_run1(x, 4, nul, 3, v);
    assert_int_equal(v[0].len, 3);
    extractor_free(x);
}

static void test_generickv_pairs(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b", "c", "", "$line", "$time"};
    extractor_t *x = make("generickv", fields, 6);
    sv_t v[6];
    const char *l = "a=1|b=2=3|c=|=e|a=9";
    assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "9");          /* a later token wins */
    assert_sv(v[1], "2=3");
    assert_sv(v[2], "");
    assert_sv(v[3], "e");
    assert_sv(v[4], l);
    assert_sv(v[5], NULL);         /* generickv has no $time */
    l = "$time=5|$line=x";          /* keys named like variables set them */
    assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[4], "x");
    assert_sv(v[5], "5");
    extractor_free(x);
}

/* DTail loops forever on a token without '=' (D1): here it is ignored. */
static void test_generickv_no_hang(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b"};
    extractor_t *x = make("generickv", fields, 2);
    const char *lines[] = {"a=1|garbage", "garbage", "", "|", "||||", "a=1|garbage|b=2",
                           "garbage|a=1", "=", "a", "a=1|", "|a=1"};
    const char *want_a[] = {"1", NULL, NULL, NULL, NULL, "1", "1", NULL, NULL, "1", "1"};
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        sv_t v[2];
        assert_int_equal(xt_run1(x, 2, lines[k], strlen(lines[k]), v), EXTRACT_OK);
        assert_sv(v[0], want_a[k]);
    }
    sv_t v[2];
    xt_run1(x, 2, "a=1|garbage|b=2", 15, v);
    assert_sv(v[1], "2");
    extractor_free(x);
}

/* Only requested names are looked at; no dynamic field when none is asked
 * (the splitter is not even run). */
static void test_generickv_nothing_requested(void **state)
{
    (void)state;
    const char *fields[] = {"$line"};
    extractor_t *x = make("generickv", fields, 1);
    assert_int_equal(x->n_dyn, 1);   /* $line itself can be overridden */
    extractor_free(x);
    x = make("generickv", NULL, 0);
    assert_int_equal(x->n_dyn, 0);
    assert_int_equal(xt_run1(x, 0, "a=1", 3, NULL), EXTRACT_OK);
    extractor_free(x);
}

/* ---- random lines against a naive oracle ---- */

static uint64_t rng = 4711;

static const char *const kv_fields[] = {"a", "b", "hostname", "", "$line", "x=y", "*", "a"};
#define N_KF (sizeof kv_fields / sizeof kv_fields[0])

static void test_generickv_random(void **state)
{
    (void)state;
    static const char *const pieces[] = {"a", "b", "=", "|", "x=y", "hostname", " ", "\r",
                                         "\0", "==", "||", "a=", "b=", "$line=", "zzzzzzzz"};
    enum { N = 2000, CAP = 1500 };
    extractor_t *x = make("generickv", kv_fields, N_KF);
    xt_batch_t bt;
    xt_batch_init(&bt, N, CAP, N_KF);
    size_t seen_long = 0;
    for (int round = 0; round < 10; round++) {
        xt_batch_random(&bt, CAP, &rng, 4, 200, pieces, sizeof pieces / sizeof pieces[0]);
        for (size_t i = 0; i < N; i++)
            seen_long += bt.lens[i] > SPLIT_SHORT_MAX;
        xt_batch_run(x, &bt);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(bt.st[i], EXTRACT_OK);
            xo_val_t want[N_KF];
            xo_generickv(bt.lines[i], bt.lens[i], kv_fields, N_KF, &env, want);
            for (size_t f = 0; f < N_KF; f++) {
                sv_t v = bt.cols[f][i];
                if (want[f].len == SIZE_MAX) {
                    assert_int_equal(v.len, SV_MISSING);
                    continue;
                }
                if (v.len != want[f].len || (v.len && memcmp(v.p, want[f].p, v.len) != 0))
                    fail_msg("line %zu field \"%s\" differs", i, kv_fields[f]);
            }
        }
    }
    assert_true(seen_long > 1000);
    xt_batch_free(&bt);
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generic_every_line),
        cmocka_unit_test(test_generickv_pairs),
        cmocka_unit_test(test_generickv_no_hang),
        cmocka_unit_test(test_generickv_nothing_requested),
        cmocka_unit_test(test_generickv_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
