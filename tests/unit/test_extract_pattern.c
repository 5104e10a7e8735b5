/* test_extract_pattern.c: `logformat pattern "..."` (parser/logpattern.c
 * reads it, exec/extract/fmt_pattern.c matches lines by it): nginx
 * $variables and Apache directives named as nginx names them, quoted
 * fields with escapes, Apache's "-" bytes as 0, $time from $time_local /
 * $time_iso8601 / $msec, a timeformat, the lines rejected, and the
 * patterns refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/logpattern.h"
#include "tests/support/extract_unit.h"

static const extract_env_t env = {"host07", "UTC", "0"};

static extractor_t *make(const char *pattern, const char *timeformat, const char *const *f,
                         size_t n)
{
    err_t e;
    extract_opts_t o = {.pattern = pattern, .timeformat = timeformat, .now = 1773576000};
    extractor_t *x = extractor_new_opts("pattern", f, n, &env, &o, &e);
    if (!x)
        fail_msg("extractor_new_opts(pattern %s): %s", pattern, e.msg);
    return x;
}

static void test_apache_common(void **state)
{
    (void)state;
    static const char *const f[] = {"$remote_addr", "$remote_logname", "$remote_user",
                                    "$time_local", "$request", "$status", "$body_bytes_sent",
                                    "$http_user_agent", "$time", "$line"};
    extractor_t *x = make("%h %l %u %t \"%r\" %>s %b \"%{User-Agent}i\"", NULL, f, 10);
    const char *l1 = "2001:db8::1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /a \\\"b\\\" HTTP/1.0\" "
                     "200 - \"Mozilla/5.0 (X11; Linux) \\\"quoted\\\"\"";
    xt_check_line(x, f, 10, l1,
                  (const char *const[]){"2001:db8::1", "-", "frank", "10/Oct/2000:13:55:36 -0700",
                                        "GET /a \"b\" HTTP/1.0", "200", "0",
                                        "Mozilla/5.0 (X11; Linux) \"quoted\"",
                                        "2000-10-10T20:55:36Z", l1});
    /* a time_local that is no time keeps the line, $time missing, counted */
    const char *l2 = "1.2.3.4 - - [yesterday] \"-\" 400 12 \"\"";
    xt_check_line(x, f, 10, l2,
                  (const char *const[]){"1.2.3.4", "-", "-", "yesterday", "-", "400", "12", "",
                                        NULL, l2});
    assert_int_equal(extractor_bad_times(x), 1);
    /* rejected: text missing, an unterminated quote, text after the end */
    sv_t v[10];
    const char *bad[] = {
        "1.2.3.4 - - 10/Oct/2000:13:55:36 -0700 \"GET\" 200 1 \"ua\"",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / 200 1",
        "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET\" 200 1 \"ua\" extra",
        "",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(xt_run1(x, 10, bad[k], strlen(bad[k]), v), EXTRACT_ERROR);
        assert_non_null(strstr(extractor_last_error(x), "pattern line rejected"));
    }
    extractor_free(x);
}

static void test_nginx_vars(void **state)
{
    (void)state;
    static const char *const f[] = {"$remote_addr", "$time_iso8601", "$request_time", "$status",
                                    "$upstream", "$time"};
    extractor_t *x = make("$remote_addr [${time_iso8601}] rt=$request_time $status up=$upstream",
                          NULL, f, 6);
    xt_check_line(x, f, 6, "10.0.0.1 [2024-05-01T12:00:00+02:00] rt=0.012 503 up=a b c",
                  (const char *const[]){"10.0.0.1", "2024-05-01T12:00:00+02:00", "0.012", "503",
                                        "a b c", "2024-05-01T10:00:00Z"});
    extractor_free(x);
    /* $msec: epoch seconds with milliseconds */
    static const char *const g[] = {"$msec", "$time"};
    x = make("$msec $request", NULL, g, 2);
    xt_check_line(x, g, 2, "1714557600.250 GET /",
                  (const char *const[]){"1714557600.250", "2024-05-01T10:00:00.250Z"});
    extractor_free(x);
}

static void test_timeformat(void **state)
{
    (void)state;
    static const char *const f[] = {"$time", "$time_local"};
    extractor_t *x = make("[$time_local] $msg", "%d.%m.%Y %H:%M:%S %z", f, 2);
    xt_check_line(x, f, 2, "[01.05.2024 12:00:00 +0200] hello",
                  (const char *const[]){"2024-05-01T10:00:00Z", "01.05.2024 12:00:00 +0200"});
    /* the layout first, then the forms logtime knows (an ISO time is read
     * still); a time neither reads is counted */
    xt_check_line(x, f, 2, "[2024-05-01T10:00:00Z] hello",
                  (const char *const[]){"2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"});
    xt_check_line(x, f, 2, "[01.05.2024 25:00:00 +0200] hello",
                  (const char *const[]){NULL, "01.05.2024 25:00:00 +0200"});
    assert_int_equal(extractor_bad_times(x), 1);
    extractor_free(x);
}

static void test_patterns_refused(void **state)
{
    (void)state;
    static const struct {
        const char *p;
        size_t at;
        const char *why;
    } cases[] = {
        {"", 0, "empty"},
        {"plain text", 0, "names no field"},
        {"%h%u", 2, "two fields"},
        {"$a$b", 2, "two fields"},
        {"%h %Q", 3, "unknown or unsupported"},
        {"%h %{Referer}", 3, "needs its letter"},
        {"%h %{Referer}x", 13, "takes i, o or C"},
        {"%h %{a", 3, "without its closing"},
        {"${a b}", 3, "letters, digits and _"},
        {"$ x", 0, "must start a variable"},
        {"x %", 2, "at the end"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        logpattern_t lp;
        const char *why = NULL;
        size_t at = 999;
        if (logpattern_read(cases[k].p, strlen(cases[k].p), &lp, &why, &at))
            fail_msg("pattern '%s' read", cases[k].p);
        if (at != cases[k].at || !strstr(why, cases[k].why))
            fail_msg("pattern '%s': %s at %zu, want ...%s... at %zu", cases[k].p, why, at,
                     cases[k].why, cases[k].at);
    }
    /* the extractor refuses it too, and any format but pattern a pattern */
    err_t e;
    extract_opts_t o = {.pattern = "%h%u"};
    assert_null(extractor_new_opts("pattern", NULL, 0, &env, &o, &e));
    assert_non_null(strstr(e.msg, "two fields"));
    assert_null(extractor_new_opts("pattern", NULL, 0, &env, NULL, &e));
    o.pattern = "$a b";
    assert_null(extractor_new_opts("nginx", NULL, 0, &env, &o, &e));
    /* %% is a literal %; Apache's header names fold to nginx's */
    logpattern_t lp;
    const char *why;
    size_t at;
    assert_true(logpattern_read("%% %{X-Forwarded-For}i %{Set-Cookie}o", 37, &lp, &why, &at));
    assert_int_equal(lp.n, 4);
    assert_memory_equal(logpattern_text(&lp, 0), "% ", 2);
    assert_int_equal(lp.item[1].len, strlen("$http_x_forwarded_for"));
    assert_memory_equal(logpattern_text(&lp, 1), "$http_x_forwarded_for", lp.item[1].len);
    assert_memory_equal(logpattern_text(&lp, 3), "$sent_http_set_cookie", lp.item[3].len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apache_common),
        cmocka_unit_test(test_nginx_vars),
        cmocka_unit_test(test_timeformat),
        cmocka_unit_test(test_patterns_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
