/* test_extract_syslog.c: the `syslog` format: RFC 5424 lines (NILVALUEs,
 * structured data and its escapes, a BOM), RFC 3164 lines with and
 * without <PRI>, tags with and without a pid, rsyslog's RFC 3339 form, the
 * facility and severity names, the rejected lines, $time (the inferred
 * year of RFC 3164, the host's offset) and random lines against the naive
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
static const logtime_ctx_t tc = {1773576000, 0, NULL, NULL};   /* 2026-03-15T12:00:00Z */

static const char *const all[] = {
    "$priority", "$facility", "$severity", "$version", "$timestamp", "$host", "$app", "$pid",
    "$msgid", "$sd", "$message", "$time", "exampleSDID@32473.iut", "a@1.q",
};
#define N_ALL (sizeof all / sizeof all[0])

static extractor_t *make(const extract_env_t *e)
{
    err_t er;
    extract_opts_t o = {.now = tc.now};
    extractor_t *x = extractor_new_opts("syslog", all, N_ALL, e, &o, &er);
    if (!x)
        fail_msg("extractor_new_opts: %s", er.msg);
    return x;
}

static void check(extractor_t *x, const char *l, const char *const *want)
{
    xt_check_line(x, all, N_ALL, l, want);
}

static void test_5424(void **state)
{
    (void)state;
    extractor_t *x = make(&env);
    check(x, "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 "
             "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\" eventID=\"1011\"] "
             "\xEF\xBB\xBF" "An application event",
          (const char *const[]){"165", "local4", "notice", "1", "2003-10-11T22:14:15.003Z",
                                "mymachine.example.com", "evntslog", NULL, "ID47",
                                "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\" "
                                "eventID=\"1011\"]",
                                "An application event", "2003-10-11T22:14:15.003Z", "3", NULL});
    /* every NILVALUE, no message */
    check(x, "<13>1 - - - - - -",
          (const char *const[]){"13", "user", "notice", "1", NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL, NULL});
    /* two elements, escapes in a value, a pid, a zone */
    check(x, "<86>1 2024-05-01T12:00:00+02:00 h a 42 - [a@1 q=\"x\\\"y\\]z\\\\\"][b@2 r=\"1\"] m",
          (const char *const[]){"86", "authpriv", "info", "1", "2024-05-01T12:00:00+02:00", "h",
                                "a", "42", NULL, "[a@1 q=\"x\\\"y\\]z\\\\\"][b@2 r=\"1\"]", "m",
                                "2024-05-01T10:00:00Z", NULL, "x\"y]z\\"});
    extractor_free(x);
}

static void test_3164(void **state)
{
    (void)state;
    extractor_t *x = make(&env);
    check(x, "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8",
          (const char *const[]){"34", "auth", "crit", NULL, "Oct 11 22:14:15", "mymachine", "su",
                                NULL, NULL, NULL, "'su root' failed for lonvick on /dev/pts/8",
                                "2025-10-11T22:14:15Z", NULL, NULL});
    check(x, "Mar  1 01:02:03 host sshd[811]: Accepted publickey for root",
          (const char *const[]){NULL, NULL, NULL, NULL, "Mar  1 01:02:03", "host", "sshd", "811",
                                NULL, NULL, "Accepted publickey for root", "2026-03-01T01:02:03Z",
                                NULL, NULL});
    /* no tag: the message starts after the host */
    check(x, "<0>Mar 15 11:59:59 host kernel panic here",
          (const char *const[]){"0", "kern", "emerg", NULL, "Mar 15 11:59:59", "host", NULL, NULL,
                                NULL, NULL, "kernel panic here", "2026-03-15T11:59:59Z", NULL,
                                NULL});
    /* rsyslog's precise timestamp; only a host */
    check(x, "2024-05-01T10:00:00.5-01:00 web1 app[7]: [x] ok",
          (const char *const[]){NULL, NULL, NULL, NULL, "2024-05-01T10:00:00.5-01:00", "web1",
                                "app", "7", NULL, NULL, "[x] ok", "2024-05-01T11:00:00.5Z", NULL,
                                NULL});
    check(x, "<191>Dec 31 23:59:59 h",
          (const char *const[]){"191", "local7", "debug", NULL, "Dec 31 23:59:59", "h", NULL,
                                NULL, NULL, NULL, "", "2025-12-31T23:59:59Z", NULL, NULL});
    extractor_free(x);
    /* Times without a zone are the host's ($timeoffset). */
    const extract_env_t cest = {"h", "CEST", "7200"};
    x = make(&cest);
    sv_t v[N_ALL];
    const char *l = "Mar 15 12:00:00 h a: m";
    assert_int_equal(xt_run1(x, N_ALL, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[11], "2026-03-15T10:00:00Z");
    extractor_free(x);
}

static void test_rejected(void **state)
{
    (void)state;
    extractor_t *x = make(&env);
    static const char *const bad[] = {
        "", "hello world", "<999>Oct 11 22:14:15 h a: m", "<34Oct 11 22:14:15 h a: m",
        "<>Oct 11 22:14:15 h a: m", "<01>Oct 11 22:14:15 h a: m", "<1234>Oct 11 22:14:15 h",
        "<34>Okt 11 22:14:15 h a: m", "<34>Oct 11 22:14:15", "<34>Oct 11 22:14", "<1>1 x",
        "<1>1 - - - - -", "<1>1 - - - - - x", "<1>1 - - - - - [", "<1>1 - - - - - [a",
        "<1>1 - - - - - [a b]", "<1>1 - - - - - [a b=\"1]", "<1>1 - - - - - [a b=1]",
        "<1>1 - - - - - [a][", "<1>1 - - - - - -x", "<1>1  - - - - - -",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sv_t v[N_ALL];
        if (xt_run1(x, N_ALL, bad[k], strlen(bad[k]), v) != EXTRACT_ERROR)
            fail_msg("'%s' was accepted", bad[k]);
        assert_non_null(strstr(extractor_last_error(x), "syslog line rejected"));
    }
    /* A timestamp of the right shape that is no date: the line stays, the
     * time is counted. */
    sv_t v[N_ALL];
    const char *l = "<34>Feb 30 22:14:15 h a: m";
    assert_int_equal(xt_run1(x, N_ALL, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[11], NULL);
    assert_int_equal(extractor_bad_times(x), 1);
    extractor_free(x);
}

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *e, xo_val_t *out)
{
    return xf_oracle(p, n, fields, nf, e, xf_syslog, xf_syslog_time, &tc, out);
}

static void test_random(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "<34>Oct 11 22:14:15 host app[1]: msg ", "<165>1 2003-10-11T22:14:15Z h a p m ",
        "<13>1 - - - - - ", "[a@1 q=\"v\"]", "[a@1 q=\"x\\\"y\"]", "-", " ", "\"", "\\", "]",
        "[", "=", "Mar  1 01:02:03 h ", "2024-05-01T10:00:00Z h t: ", ": ", "x", "\0",
    };
    extractor_t *x = make(&env);
    uint64_t rng = 0x5151;
    size_t seen[3] = {0};
    xt_random_vs_oracle(x, all, N_ALL, &env, oracle, pieces, sizeof pieces / sizeof pieces[0], 40,
                        &rng, seen);
    assert_true(seen[EXTRACT_OK] > 2000);
    assert_true(seen[EXTRACT_ERROR] > 2000);
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_5424),     cmocka_unit_test(test_3164),
        cmocka_unit_test(test_rejected), cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
