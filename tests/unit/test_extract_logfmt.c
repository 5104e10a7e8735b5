/* test_extract_logfmt.c: the `logfmt` format: pairs, quoted values and
 * their escapes, bare keys, repeated keys, the rejected lines, $time from
 * time/ts/timestamp (with the unparsable ones counted), lines across the
 * 64-byte windows of the byte scanner, and random lines against the naive
 * oracle of tests/support/format_oracle.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/extract_unit.h"
#include "tests/support/format_oracle.h"

static const extract_env_t env = {"host07", "UTC", "0"};
static const logtime_ctx_t tc = {1773576000, 0, NULL, NULL};

static extractor_t *make(const char *const *fields, size_t n)
{
    err_t e;
    extract_opts_t o = {.now = tc.now};
    extractor_t *x = extractor_new_opts("logfmt", fields, n, &env, &o, &e);
    if (!x)
        fail_msg("extractor_new_opts: %s", e.msg);
    return x;
}

static void test_pairs(void **state)
{
    (void)state;
    const char *f[] = {"level", "msg", "took", "cached", "empty", "url", "nosuch", "$line"};
    extractor_t *x = make(f, 8);
    const char *l = "  level=info msg=\"GET /a \\\"x\\\" \\\\ \\n\"   took=12ms cached empty= "
                    "url=/a?b=c&d=\"e\"  ";
    sv_t v[8];
    assert_int_equal(xt_run1(x, 8, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "info");
    assert_sv(v[1], "GET /a \"x\" \\ \n");
    assert_sv(v[2], "12ms");
    assert_sv(v[3], "true");
    assert_sv(v[4], "");
    assert_sv(v[5], "/a?b=c&d=\"e\"");
    assert_sv(v[6], NULL);
    assert_sv(v[7], "level=info msg=\"GET /a \\\"x\\\" \\\\ \\n\"   took=12ms cached empty= "
                    "url=/a?b=c&d=\"e\"");
    /* the later of two keys; a quoted value with spaces and '='; \u */
    const char *l2 = "level=a level=\"b c=d\" msg=\"caf\\u00e9\"";
    assert_int_equal(xt_run1(x, 8, l2, strlen(l2), v), EXTRACT_OK);
    assert_sv(v[0], "b c=d");
    assert_sv(v[1], "caf\xc3\xa9");
    assert_true(extract_owns(x, v[1].p, v[1].len));   /* unescaped: a copy */
    extractor_free(x);
}

static void test_rejected(void **state)
{
    (void)state;
    const char *f[] = {"a"};
    extractor_t *x = make(f, 1);
    static const char *const bad[] = {
        "=x", "a=1 =2", "a\"b=1", "\"a\"=1", "a=\"unterminated", "a=\"x\"y", "a=\"x\\\"",
        "a=\"\\",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sv_t v[1];
        if (xt_run1(x, 1, bad[k], strlen(bad[k]), v) != EXTRACT_ERROR)
            fail_msg("'%s' was accepted", bad[k]);
        assert_sv(v[0], NULL);
        assert_non_null(strstr(extractor_last_error(x), "logfmt line rejected"));
    }
    /* Lines without any '=' are bare keys; an empty line has no pairs. */
    sv_t v[1];
    assert_int_equal(xt_run1(x, 1, "just words a", 12, v), EXTRACT_OK);
    assert_sv(v[0], "true");
    assert_int_equal(xt_run1(x, 1, "", 0, v), EXTRACT_OK);
    assert_sv(v[0], NULL);
    extractor_free(x);
}

/* $time: the first of time, ts, timestamp; an unreadable one counted. */
static void test_time(void **state)
{
    (void)state;
    const char *f[] = {"$time", "ts"};
    extractor_t *x = make(f, 2);
    static const xt_case_t cases[] = {
        {"time=2024-05-01T12:00:00+02:00 ts=1", "2024-05-01T10:00:00Z"},
        {"ts=1714557600123 level=x", "2024-05-01T10:00:00.123Z"},
        {"timestamp=\"2024-05-01 10:00:00,5\"", "2024-05-01T10:00:00.5Z"},
        {"ts=10/Oct/2000:13:55:36-0700", "2000-10-10T20:55:36Z"},
        {"ts=10/Oct/2000", NULL},                  /* a date alone is no access log time */
        {"level=x", NULL},
        {"time=garbage ts=1714557600", NULL},      /* time wins, and is unreadable */
    };
    xt_check_cases(x, 2, cases, sizeof cases / sizeof cases[0]);
    assert_int_equal(extractor_bad_times(x), 2);
    assert_string_equal(extractor_bad_time(x, 0), "10/Oct/2000");
    assert_string_equal(extractor_bad_time(x, 1), "garbage");
    assert_null(extractor_bad_time(x, 2));
    extractor_free(x);
    /* A line's own key "$time" wins, as names the line provides do. */
    const char *g[] = {"$time"};
    x = make(g, 1);
    sv_t v[1];
    assert_int_equal(xt_run1(x, 1, "$time=mine time=1714557600", 26, v), EXTRACT_OK);
    assert_sv(v[0], "mine");
    extractor_free(x);
}

/* Tokens that end exactly at, before and after the 64-byte windows of the
 * scanner, and a quoted value that spans several windows. */
static void test_windows(void **state)
{
    (void)state;
    const char *f[] = {"k", "q"};
    extractor_t *x = make(f, 2);
    char line[400];
    for (size_t pad = 0; pad < 140; pad++) {
        size_t o = 0;
        memset(line, 'p', pad);
        o = pad;
        o += (size_t)sprintf(line + o, " k=v%zu q=\"", pad);
        for (int r = 0; r < 20; r++)
            o += (size_t)sprintf(line + o, "ab\\\" ");
        line[o++] = '"';
        sv_t v[2];
        assert_int_equal(xt_run1(x, 2, line, o, v), EXTRACT_OK);
        char want[16];
        snprintf(want, sizeof want, "v%zu", pad);
        assert_sv(v[0], want);
        assert_int_equal(v[1].len, 20 * 4);
    }
    extractor_free(x);
}

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *e, xo_val_t *out)
{
    return xf_oracle(p, n, fields, nf, e, xf_logfmt, xf_logfmt_time, &tc, out);
}

static void test_random(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "a", "b", "=", " ", "  ", "\"", "\\", "\\\"", "x=1 ", "time=", "2024-05-01T10:00:00Z",
        "ts=1714557600 ", "msg=\"hello world\" ", "=\"", "\t", "long-value-with-no-space",
        "time=\"2024-05-01 10:00:00\" ", "\0",
    };
    const char *f[] = {"a", "b", "x", "time", "ts", "$time", "msg", "$line", "a b", "ab"};
    extractor_t *x = make(f, 10);
    uint64_t rng = 0x10f;
    size_t seen[3] = {0};
    xt_random_vs_oracle(x, f, 10, &env, oracle, pieces, sizeof pieces / sizeof pieces[0], 40,
                        &rng, seen);
    assert_true(seen[EXTRACT_OK] > 2000);
    assert_true(seen[EXTRACT_ERROR] > 2000);
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),   cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_time),    cmocka_unit_test(test_windows),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
