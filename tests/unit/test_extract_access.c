/* test_extract_access.c: the `nginx` and `apache` formats: common and
 * combined lines, IPv6 addresses, escaped quotes (nginx's \x22, Apache's
 * \"), the request's parts, "-" bytes, what follows the user agent
 * ($http_x_forwarded_for, $request_time), the rejected lines, $time from
 * time_local, very long user agents, and random lines against the naive
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

static const char *const all[] = {
    "$remote_addr", "$remote_user", "$time_local", "$request", "$method", "$path",
    "$protocol", "$status", "$body_bytes_sent", "$http_referer", "$http_user_agent",
    "$http_x_forwarded_for", "$request_time", "$time",
};
#define N_ALL (sizeof all / sizeof all[0])

static extractor_t *make(const char *fmt)
{
    return xt_make(fmt, &env, all, N_ALL);
}

static void check(extractor_t *x, const char *l, const char *const *want)
{
    xt_check_line(x, all, N_ALL, l, want);
}

static void test_layouts(void **state)
{
    (void)state;
    const char *fmts[] = {"nginx", "apache"};
    for (int k = 0; k < 2; k++) {
        extractor_t *x = make(fmts[k]);
        check(x, "192.168.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" "
                 "200 2326 \"http://www.example.com/start.html\" \"Mozilla/4.08 [en] (Win98; I ;Nav)\"",
              (const char *const[]){"192.168.0.1", "-", "10/Oct/2000:13:55:36 -0700",
                                    "GET /apache_pb.gif HTTP/1.0", "GET", "/apache_pb.gif",
                                    "HTTP/1.0", "200", "2326", "http://www.example.com/start.html",
                                    "Mozilla/4.08 [en] (Win98; I ;Nav)", NULL, NULL,
                                    "2000-10-10T20:55:36Z"});
        /* common: no referer and agent; IPv6; a user; "-" bytes */
        check(x, "2001:db8::1 - frank [10/Oct/2000:13:55:36 +0000] \"HEAD / HTTP/1.1\" 304 -",
              (const char *const[]){"2001:db8::1", "frank", "10/Oct/2000:13:55:36 +0000",
                                    "HEAD / HTTP/1.1", "HEAD", "/", "HTTP/1.1", "304", "0",
                                    NULL, NULL, NULL, NULL, "2000-10-10T13:55:36Z"});
        /* escaped quotes of both servers; then x-forwarded-for and request time */
        check(x, "::1 - - [01/Jan/2024:00:00:00 +0100] \"GET /q?a=\\x22b\\x22 HTTP/2.0\" 404 12 "
                 "\"-\" \"say \\\"hi\\\" \\\\o/\" \"10.0.0.1, 10.0.0.2\" 0.123",
              (const char *const[]){"::1", "-", "01/Jan/2024:00:00:00 +0100",
                                    "GET /q?a=\"b\" HTTP/2.0", "GET", "/q?a=\"b\"", "HTTP/2.0",
                                    "404", "12", "-", "say \"hi\" \\o/", "10.0.0.1, 10.0.0.2",
                                    "0.123", "2023-12-31T23:00:00Z"});
        /* a request without a protocol, or without any space */
        check(x, "::1 - - [01/Jan/2024:00:00:00 +0000] \"GET /a b\" 200 1 \"-\" \"-\" 7",
              (const char *const[]){"::1", "-", "01/Jan/2024:00:00:00 +0000", "GET /a b", "GET",
                                    "/a b", NULL, "200", "1", "-", "-", NULL, "7",
                                    "2024-01-01T00:00:00Z"});
        check(x, "::1 - - [01/Jan/2024:00:00:00 +0000] \"\\x16\\x03\\x01\" 400 0 \"-\" \"-\"",
              (const char *const[]){"::1", "-", "01/Jan/2024:00:00:00 +0000", "\x16\x03\x01",
                                    NULL, NULL, NULL, "400", "0", "-", "-", NULL, NULL,
                                    "2024-01-01T00:00:00Z"});
        extractor_free(x);
    }
}

static void test_rejected(void **state)
{
    (void)state;
    extractor_t *x = make("nginx");
    static const char *const bad[] = {
        "", "garbage", "1.2.3.4 - -", "1.2.3.4 - - 10/Oct/2000:13:55:36 +0000 \"GET /\" 200 1",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000 \"GET /\" 200 1",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] GET / 200 1",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET / 200 1",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 2000 1",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 099 1",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 200 1.5",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 200 x",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 200 1 -",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 200 1 \"r\" agent",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 200 1 \"r\" \"ua",
        " - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 200 1",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sv_t v[N_ALL];
        if (xt_run1(x, N_ALL, bad[k], strlen(bad[k]), v) != EXTRACT_ERROR)
            fail_msg("'%s' was accepted", bad[k]);
        assert_non_null(strstr(extractor_last_error(x), "nginx line rejected"));
    }
    extractor_free(x);
}

/* An unreadable time_local keeps the line and counts; a 20 KB user agent. */
static void test_time_and_long(void **state)
{
    (void)state;
    extractor_t *x = make("apache");
    sv_t v[N_ALL];
    const char *l = "::1 - - [yesterday] \"GET / HTTP/1.1\" 200 1";
    assert_int_equal(xt_run1(x, N_ALL, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[2], "yesterday");
    assert_sv(v[13], NULL);
    assert_int_equal(extractor_bad_times(x), 1);
    char *big = malloc(24000);
    int o = sprintf(big, "::1 - - [10/Oct/2000:13:55:36 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"");
    for (int k = 0; k < 2000; k++)
        o += sprintf(big + o, "Mozilla\\\" ");
    o += sprintf(big + o, "\" 1.5");
    assert_int_equal(xt_run1(x, N_ALL, big, (size_t)o, v), EXTRACT_OK);
    assert_int_equal(v[10].len, 2000 * 9);
    assert_sv(v[12], "1.5");
    free(big);
    extractor_free(x);
}

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *e, xo_val_t *out)
{
    return xf_oracle(p, n, fields, nf, e, xf_access, xf_access_time, &tc, out);
}

static void test_random(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 12",
        "::1 - u [01/Jan/2024:00:00:00 +0000] \"POST /a?b HTTP/2.0\" 404 - \"-\" \"ua\"",
        " ", "\"", "\\", "\\\"", "\\x22", "[", "]", "-", "200", "0.5", " \"x\"", " 1.25", "a",
        "\t", "\0",
    };
    const char *fmts[] = {"nginx", "apache"};
    uint64_t rng = 0xacce55;
    size_t seen[3] = {0};
    for (int k = 0; k < 2; k++) {
        extractor_t *x = make(fmts[k]);
        xt_random_vs_oracle(x, all, N_ALL, &env, oracle, pieces, sizeof pieces / sizeof pieces[0],
                            20, &rng, seen);
        extractor_free(x);
    }
    assert_true(seen[EXTRACT_OK] > 1000);
    assert_true(seen[EXTRACT_ERROR] > 1000);
}

/* The query's own few fields: quoted fields it does not name are not
 * unescaped, and a line is still rejected or kept as a whole (the
 * benchmark's $status and $request_time, a quoted field alone, the
 * request's parts alone). Long pieces put fields across 16-byte blocks. */
static void test_random_subsets(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 12",
        "::1 - u [01/Jan/2024:00:00:00 +0000] \"POST /a?b HTTP/2.0\" 404 - \"-\" \"ua\"",
        " \"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36\" 1.388",
        ("10.0.0.1 - - [01/May/2024:00:00:00 +0000] \"GET /q?\\x22a\\x22 HTTP/1.1\" 200 5 "
         "\"http://r/\\\"x\\\"\" \"Mozilla \\x22b\\x22 (\\\"c\\\")\" \"1.2.3.4\\x22\" 0.25"),
        " ", "\"", "\\", "\\\"", "\\x22", "[", "]", "-", "200", "0.5", " \"x\"", " 1.25", "a",
        "\t",
    };
    static const char *const sets[][3] = {
        {"$status", "$request_time", NULL},
        {"$http_user_agent", NULL, NULL},
        {"$http_referer", "$http_x_forwarded_for", NULL},
        {"$method", "$path", "$protocol"},
        {"$request", NULL, NULL},
        {"$body_bytes_sent", NULL, NULL},
    };
    uint64_t rng = 0x5b5e75;
    size_t seen[3] = {0};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        size_t nf = 0;
        while (nf < 3 && sets[k][nf])
            nf++;
        extractor_t *x = xt_make("nginx", &env, sets[k], nf);
        xt_random_vs_oracle(x, sets[k], nf, &env, oracle, pieces, sizeof pieces / sizeof pieces[0],
                            6, &rng, seen);
        extractor_free(x);
    }
    assert_true(seen[EXTRACT_OK] > 1000);
    assert_true(seen[EXTRACT_ERROR] > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_time_and_long),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_random_subsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
