/* test_session_job.c: the runs of dserver's jobs without a client
 * (server/session.h session_job_map, session_job_tail). A scheduled run
 * writes its whole result to the outfile (the CSV dmap writes, here by
 * hand), and none when no file could be read or the server stops; a
 * continuous run follows its file from the end and each interval replaces
 * the outfile, an idle one keeping the rows; its timeout ends it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/config.h"
#include "server/session.h"
#include "tests/support/tmpdir.h"

static char dir[256];

static const char stats_lines[] =
    "INFO|1002-071143|1|stats.go:56|8|14|7|0.50|471h0m21s|MAPREDUCE:STATS|goroutines=10|x=1\n"
    "INFO|1002-071143|1|stats.go:56|8|16|7|0.96|471h0m21s|MAPREDUCE:STATS|goroutines=20|x=2\n"
    "INFO|1002-071144|1|stats.go:56|8|17|7|0.64|471h0m21s|MAPREDUCE:STATS|goroutines=30|x=1\n"
    "INFO|1002-071144|1|other.go:1|not a stats line\n";

static void write_file(const char *path, const char *text, const char *mode)
{
    FILE *f = fopen(path, mode);
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The whole of a small file, or "" when it is not there. */
static void read_all(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
}

static volatile int stopping;

static session_env_t job_env(config_t *c, const char *user)
{
    config_defaults(c);
    return (session_env_t){.user = user, .hostname = "testhost", .cfg = c, .stopping = &stopping};
}

static void test_run_map(void **state)
{
    (void)state;
    config_t *c = malloc(sizeof *c);
    assert_non_null(c);
    session_env_t env = job_env(c, "DTAIL-SCHEDULE");
    char in[300], missing[300], out[300], query[700], files[700], got[4096];
    snprintf(in, sizeof in, "%s/run.log", dir);
    snprintf(missing, sizeof missing, "%s/none.log", dir);
    snprintf(out, sizeof out, "%s/run.csv", dir);
    write_file(in, stats_lines, "w");
    snprintf(query, sizeof query, "from STATS select count($line),sum(x),avg($goroutines) "
                                  "group by x order by count($line) outfile \"%s\"", out);
    snprintf(files, sizeof files, "%s,%s", in, missing);
    session_job_t job = {.name = "t", .files = files, .query = query};
    session_job_result_t res;
    err_t e;
    stopping = 0;
    assert_int_equal(session_job_map(&env, &job, &res, &e), 0);
    assert_int_equal(res.files_read, 1);
    assert_int_equal(res.files_failed, 1);
    assert_int_equal(res.writes, 1);
    assert_int_equal(res.rows, 2);
    assert_int_equal(res.lines, 4);
    read_all(out, got, sizeof got);
    assert_string_equal(got, "count($line),sum(x),avg($goroutines)\n2,2.000000,15.500000\n"
                             "1,2.000000,16.000000\n");
    /* None of its files read, or the server stopping: no outfile. */
    unlink(out);
    job.files = missing;
    assert_int_equal(session_job_map(&env, &job, &res, &e), 0);
    assert_int_equal(res.writes, 0);
    assert_int_equal(access(out, F_OK), -1);
    job.files = in;
    stopping = 1;
    assert_int_equal(session_job_map(&env, &job, &res, &e), 0);
    assert_int_equal(res.writes, 0);
    assert_int_equal(access(out, F_OK), -1);
    stopping = 0;
    unlink(in);
    free(c);
}

typedef struct appender {
    const char *path;
    const char *out;
} appender_t;

/* Appends the stats lines once the run has written its first (empty)
 * interval, then waits for their rows and stops the run. */
static void *append_then_stop(void *arg)
{
    appender_t *a = arg;
    char got[4096];
    for (int i = 0; i < 400 && access(a->out, F_OK) != 0; i++)
        clock_sleep_ms(25);
    write_file(a->path, stats_lines, "a");
    for (int i = 0; i < 400; i++) {
        read_all(a->out, got, sizeof got);
        if (strchr(strchr(got, '\n') ? strchr(got, '\n') + 1 : "", '\n'))
            break;
        clock_sleep_ms(25);
    }
    stopping = 1;
    return NULL;
}

static void test_run_tail(void **state)
{
    (void)state;
    config_t *c = malloc(sizeof *c);
    assert_non_null(c);
    session_env_t env = job_env(c, "DTAIL-CONTINUOUS");
    char in[300], out[300], query[700], got[4096];
    snprintf(in, sizeof in, "%s/follow.log", dir);
    snprintf(out, sizeof out, "%s/follow.csv", dir);
    write_file(in, stats_lines, "w");   /* followed from its end: not counted */
    snprintf(query, sizeof query, "from STATS select count($line) group by x order by count($line) "
                                  "interval 1 outfile \"%s\"", out);
    session_job_t job = {.name = "t", .files = in, .query = query};
    session_job_result_t res;
    err_t e;
    stopping = 0;
    appender_t a = {in, out};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, append_then_stop, &a), 0);
    assert_int_equal(session_job_tail(&env, &job, &res, &e), 0);
    pthread_join(th, NULL);
    read_all(out, got, sizeof got);
    assert_string_equal(got, "count($line)\n2\n1\n");
    assert_true(res.writes >= 2);
    assert_int_equal(res.errors, 0);
    /* The run's timeout ends it too. */
    stopping = 0;
    long long t0 = clock_now_ms();
    job.timeout_s = 1;
    assert_int_equal(session_job_tail(&env, &job, &res, &e), 0);
    assert_true(clock_now_ms() - t0 < 5000);
    unlink(in);
    unlink(out);
    free(c);
}

static int setup(void **state)
{
    (void)state;
    return tmpdir_make(dir, sizeof dir, "test_session_job");
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_map),
        cmocka_unit_test(test_run_tail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
