/* test_mapscan_deadline.c: map_opts_t.deadline_ms, the stop both dmap
 * --timeout (serverless) and dserver's map requests (the request's
 * timeout) use: a deadline in the past stops a run before its first
 * region with "timed out" and nothing folded; one in the future changes
 * nothing; without one mapscan_timed_out is never true. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "exec/mapscan.h"
#include "parser/parser.h"
#include "tests/support/tmpdir.h"

/* Runs `select count($line)` over path with the given deadline; returns
 * mapscan_run's result, the count in *lines and the error in e. */
static int run(const char *path, long long deadline_ms, uint64_t *lines, int *timed_out,
               err_t *e)
{
    query_t *q;
    const char *text = "select count($line)";
    assert_int_equal(query_parse(text, strlen(text), NULL, &q, e), 0);
    map_opts_t o = {
        .plan = query_plan(q),
        .max_line_len = 1024 * 1024,
        .env = {"h", "UTC", "0"},
        .n_threads = 2,
        .deadline_ms = deadline_ms,
    };
    mapscan_t ms;
    assert_int_equal(mapscan_init(&ms, &o, e), 0);
    input_t *in = input_open(path, e);
    assert_non_null(in);
    int rc = mapscan_run(&ms, in, path, path, 0, e);
    input_close(in);
    *timed_out = mapscan_timed_out(&ms);
    *lines = 0;
    if (ms.result.n_groups)
        memcpy(lines, agg_table_state(&ms.result, 0, 0), sizeof *lines);
    mapscan_free(&ms);
    query_free(q);
    return rc;
}

static void test_deadline(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    assert_int_equal(tmpdir_make(dir, sizeof dir, "deadline"), 0);
    snprintf(path, sizeof path, "%s/in.log", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "line %d\n", i);
    fclose(f);

    uint64_t lines;
    int timed_out;
    err_t e;
    err_clear(&e);
    assert_int_equal(run(path, clock_now_ms() - 1, &lines, &timed_out, &e), -1);
    assert_non_null(strstr(e.msg, "timed out"));
    assert_true(timed_out);
    assert_int_equal(lines, 0);

    err_clear(&e);
    assert_int_equal(run(path, clock_now_ms() + 60000, &lines, &timed_out, &e), 0);
    assert_false(timed_out);
    assert_int_equal(lines, 1000);

    err_clear(&e);
    assert_int_equal(run(path, 0, &lines, &timed_out, &e), 0);
    assert_false(timed_out);
    assert_int_equal(lines, 1000);
    tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
