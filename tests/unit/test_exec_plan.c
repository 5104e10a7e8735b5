/* test_exec_plan.c: exec_plan_init, the one plan every run is built with.
 * cat and grep are the plans without a query stage; a map and a tail
 * with a query have one, with the place's limits and (a map only) the
 * request's deadline; an invalid pattern or query fails with the
 * position and leaves nothing to free (the ASan build checks that). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/clock.h"
#include "exec/run/plan.h"

static const exec_env_t env = {
    .host = "h1",
    .max_line_len = 4096,
    .memory_limit = 1234567,
    .n_threads = 3,
};

static void test_cat_selects_every_line(void **state)
{
    (void)state;
    /* A pattern sent with a cat is not a filter (DTail's dcat has none). */
    exec_request_t rq = {.kind = EXEC_CAT, .regex = "nomatch", .query = ""};
    exec_plan_t p;
    err_t e;
    assert_int_equal(exec_plan_init(&p, &rq, &env, &e), 0);
    assert_null(p.query);
    assert_null(p.map);
    assert_string_equal(p.m.pattern, "");
    assert_ptr_equal(p.lo.matcher, &p.m);
    assert_int_equal(p.lo.max_line_len, 4096);
    assert_true(matcher_line_matches(&p.m, "anything", 8));
    exec_plan_free(&p);
}

static void test_grep_filter_stage(void **state)
{
    (void)state;
    exec_request_t rq = {.kind = EXEC_GREP, .regex = "abc", .query = "",
                         .flags = EXEC_REQ_ICASE | EXEC_REQ_INVERT,
                         .before = 2, .after = 3, .max = 7};
    exec_plan_t p;
    err_t e;
    assert_int_equal(exec_plan_init(&p, &rq, &env, &e), 0);
    assert_null(p.query);
    assert_true(matcher_line_matches(&p.m, "xABCx", 5));
    assert_false(matcher_line_matches(&p.m, "xyz", 3));
    assert_true(p.lo.invert);
    assert_int_equal(p.lo.before, linescan_context(2));
    assert_int_equal(p.lo.after, linescan_context(3));
    assert_int_equal(p.lo.max, 7);
    exec_plan_free(&p);
}

static void test_map_query_stage(void **state)
{
    (void)state;
    volatile sig_atomic_t cancel = 0;
    exec_env_t here = env;
    here.cancel = &cancel;
    here.default_logformat = "generickv";
    exec_request_t rq = {.kind = EXEC_MAP, .regex = "", .timeout_s = 60,
                         .query = "from STATS select count($line) group by $hostname"};
    exec_plan_t p;
    err_t e;
    long long before = clock_now_ms();
    assert_int_equal(exec_plan_init(&p, &rq, &here, &e), 0);
    assert_non_null(p.query);
    assert_non_null(p.map);
    assert_ptr_equal(p.mo.plan, p.map);
    assert_string_equal(p.map->logformat->name, "generickv");   /* the place's default */
    assert_int_equal(p.mo.max_line_len, 4096);
    assert_int_equal(p.mo.memory_limit, 1234567);
    assert_int_equal(p.mo.n_threads, 3);
    assert_ptr_equal(p.mo.cancel, &cancel);
    assert_string_equal(p.mo.env.hostname, "h1");
    assert_ptr_equal(p.mo.env.timezone, p.zone.tz);
    assert_true(p.mo.deadline_ms >= before + 60000 && p.mo.deadline_ms <= clock_now_ms() + 60000);
    /* The map's own filter is its from TABLE, in the map scan. */
    assert_string_equal(p.m.pattern, "");
    exec_plan_free(&p);
}

static void test_tail_query_keeps_no_deadline(void **state)
{
    (void)state;
    exec_request_t rq = {.kind = EXEC_TAIL, .regex = "", .timeout_s = 60,
                         .query = "select count($line)"};
    exec_plan_t p;
    err_t e;
    assert_int_equal(exec_plan_init(&p, &rq, &env, &e), 0);
    assert_non_null(p.map);
    assert_int_equal(p.mo.deadline_ms, 0);   /* the follow run keeps it */
    assert_string_equal(p.map->logformat->name, "generic");   /* no from: the parser's */
    exec_plan_free(&p);

    exec_request_t lines = {.kind = EXEC_TAIL, .regex = "ERR", .query = ""};
    assert_int_equal(exec_plan_init(&p, &lines, &env, &e), 0);
    assert_null(p.query);
    assert_false(matcher_line_matches(&p.m, "INFO", 4));
    exec_plan_free(&p);
}

static void test_invalid_query_says_where(void **state)
{
    (void)state;
    exec_request_t rq = {.kind = EXEC_MAP, .regex = "", .query = "select count($line) group by"};
    exec_plan_t p;
    err_t e;
    assert_int_equal(exec_plan_init(&p, &rq, &env, &e), -1);
    assert_int_equal(e.code, ERR_QUERY);
    assert_true(e.offset >= 0 && (size_t)e.offset <= strlen(rq.query));
    char buf[2048];
    exec_plan_error(&rq, &e, buf, sizeof buf);
    assert_non_null(strstr(buf, rq.query));
    assert_non_null(strchr(buf, '^'));
}

static void test_invalid_pattern(void **state)
{
    (void)state;
    exec_request_t rq = {.kind = EXEC_GREP, .regex = "a(b", .query = ""};
    exec_plan_t p;
    err_t e;
    assert_int_equal(exec_plan_init(&p, &rq, &env, &e), -1);
    assert_int_equal(e.code, ERR_PATTERN);
    char buf[2048];
    exec_plan_error(&rq, &e, buf, sizeof buf);
    assert_string_equal(buf, e.msg);
}

static void test_retarget(void **state)
{
    (void)state;
    exec_request_t rq = {.kind = EXEC_MAP, .regex = "", .query = "select count($line)"};
    exec_plan_t p;
    err_t e;
    assert_int_equal(exec_plan_init(&p, &rq, &env, &e), 0);
    plan_t shown = *p.map;
    shown.outfile = "/tmp/x.csv";
    exec_plan_retarget(&p, &shown);
    assert_ptr_equal(p.map, &shown);
    assert_ptr_equal(p.mo.plan, &shown);
    exec_plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cat_selects_every_line),
        cmocka_unit_test(test_grep_filter_stage),
        cmocka_unit_test(test_map_query_stage),
        cmocka_unit_test(test_tail_query_keeps_no_deadline),
        cmocka_unit_test(test_invalid_query_says_where),
        cmocka_unit_test(test_invalid_pattern),
        cmocka_unit_test(test_retarget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
