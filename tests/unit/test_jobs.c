/* test_jobs.c: dserver's scheduled and continuous jobs (server/jobs.h).
 * The times with a clock of the test's (fixed instants, TZ set): the date
 * placeholders across month, year and leap days, the TimeRange window at
 * its edges, the seconds to midnight on days of 23 and 25 hours, and
 * whether a scheduled job is due (disabled, out of range, outfile there).
 * The config: jobs_load reads good jobs and refuses bad ones naming the
 * job, the key and its line. Their runs: test_session_job.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "server/jobs.h"
#include "tests/support/memfile.h"
#include "tests/support/tmpdir.h"

static char dir[256];

static void set_tz(const char *tz)
{
    setenv("TZ", tz, 1);
    tzset();
}

/* The instant of a UTC date and time. */
static time_t utc(int y, int mon, int d, int h, int min, int s)
{
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mon - 1, .tm_mday = d, .tm_hour = h,
                    .tm_min = min, .tm_sec = s};
    return timegm(&tm);
}

static void expect_filled(const char *in, time_t now, const char *want)
{
    char out[256];
    assert_int_equal(job_fill_dates(in, now, out, sizeof out), 0);
    assert_string_equal(out, want);
}

static void test_fill_dates(void **state)
{
    (void)state;
    set_tz("UTC");
    time_t leap = utc(2024, 3, 1, 0, 30, 0);
    expect_filled("/var/log/$today.log", leap, "/var/log/20240301.log");
    expect_filled("$yesterday,$yyesterday,$yyyesterday,$tomorrow", leap,
                  "20240229,20240228,20240227,20240302");
    /* Across a year, and words glued to other text (DTail replaces the
     * word wherever it stands). */
    time_t ny = utc(2025, 1, 1, 23, 59, 59);
    expect_filled("a-$yesterday.csv,$todayx,$tomorrow$today", ny,
                  "a-20241231.csv,20250101x,2025010220250101");
    expect_filled("$to$day $nope $", ny, "$to$day $nope $");
    /* Local time: 22:30 UTC is the next day in UTC+3. */
    set_tz("<+03>-3");
    expect_filled("$today", utc(2024, 6, 30, 22, 30, 0), "20240701");
    char small[8];
    assert_int_equal(job_fill_dates("$today", leap, small, sizeof small), -1);
    assert_int_equal(job_fill_dates("12345678", leap, small, sizeof small), -1);
    assert_int_equal(job_fill_dates("1234567", leap, small, sizeof small), 0);
    set_tz("UTC");
}

static void test_time_range(void **state)
{
    (void)state;
    set_tz("UTC");
    job_t j = {.kind = JOB_SCHEDULE, .from_hour = 9, .to_hour = 17};
    assert_false(job_in_time_range(&j, utc(2024, 5, 1, 8, 59, 59)));
    assert_true(job_in_time_range(&j, utc(2024, 5, 1, 9, 0, 0)));
    assert_true(job_in_time_range(&j, utc(2024, 5, 1, 16, 59, 59)));
    assert_false(job_in_time_range(&j, utc(2024, 5, 1, 17, 0, 0)));
    j.from_hour = 0;
    j.to_hour = 24;
    assert_true(job_in_time_range(&j, utc(2024, 5, 1, 0, 0, 0)));
    assert_true(job_in_time_range(&j, utc(2024, 5, 1, 23, 59, 59)));
    /* The local hour decides: 07:00 UTC is 09:00 in UTC+2. */
    set_tz("<+02>-2");
    j.from_hour = 9;
    j.to_hour = 10;
    assert_true(job_in_time_range(&j, utc(2024, 5, 1, 7, 0, 0)));
    assert_false(job_in_time_range(&j, utc(2024, 5, 1, 9, 0, 0)));
    set_tz("UTC");
}

static void test_seconds_to_midnight(void **state)
{
    (void)state;
    set_tz("UTC");
    assert_int_equal(job_seconds_to_midnight(utc(2024, 5, 1, 0, 0, 0)), 86400);
    assert_int_equal(job_seconds_to_midnight(utc(2024, 5, 1, 23, 59, 59)), 1);
    assert_int_equal(job_seconds_to_midnight(utc(2024, 12, 31, 12, 0, 0)), 43200);
    /* Central Europe: the day clocks go forward has 23 hours, the day they
     * go back 25. */
    set_tz("CET-1CEST,M3.5.0,M10.5.0/3");
    assert_int_equal(job_seconds_to_midnight(utc(2024, 3, 30, 23, 0, 0)), 23 * 3600);
    assert_int_equal(job_seconds_to_midnight(utc(2024, 10, 26, 22, 0, 0)), 25 * 3600);
    set_tz("UTC");
}

static void test_due(void **state)
{
    (void)state;
    set_tz("UTC");
    char pattern[300], outfile[512], want[512];
    snprintf(pattern, sizeof pattern, "%s/due-$today.csv", dir);
    job_t j = {.kind = JOB_SCHEDULE, .enable = 1, .outfile = pattern, .from_hour = 1,
               .to_hour = 6};
    time_t now = utc(2024, 5, 1, 3, 0, 0);
    snprintf(want, sizeof want, "%s/due-20240501.csv", dir);
    assert_int_equal(job_due(&j, now, outfile, sizeof outfile), JOB_DUE);
    assert_string_equal(outfile, want);
    assert_int_equal(job_due(&j, utc(2024, 5, 1, 6, 0, 0), outfile, sizeof outfile),
                     JOB_OUT_OF_RANGE);
    FILE *f = fopen(want, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(job_due(&j, now, outfile, sizeof outfile), JOB_DONE);
    /* The next day's name is not there yet. */
    assert_int_equal(job_due(&j, now + 86400, outfile, sizeof outfile), JOB_DUE);
    j.enable = 0;
    assert_int_equal(job_due(&j, now + 86400, outfile, sizeof outfile), JOB_DISABLED);
    char tiny[8];
    j.enable = 1;
    assert_int_equal(job_due(&j, now + 86400, tiny, sizeof tiny), JOB_TOO_LONG);
    unlink(want);
}

/* ---- the config ------------------------------------------------------------ */

static int cfg_fd = -1;
static char cfg_path[64];

/* cfg loaded from the text of a file whose Server section holds jobs
 * (its lines: 1 `{"Server": {`, then jobs from line 2). */
static int load_jobs(config_t *c, jobs_t **js, const char *jobs, err_t *e)
{
    char json[8192];
    snprintf(json, sizeof json, "{\"Server\": {\n%s\n}}", jobs);
    if (cfg_fd >= 0)
        close(cfg_fd);
    cfg_fd = memfile_create(json, strlen(json), cfg_path, sizeof cfg_path);
    assert_true(cfg_fd >= 0);
    config_defaults(c);
    err_clear(e);
    if (config_load(c, cfg_path, e) < 0)
        return -1;
    return jobs_load(js, c, "testhost", e);
}

/* A schedule job's JSON with one key's text replaced (key "" none). */
static void job_json(char *out, size_t cap, const char *name, const char *extra)
{
    snprintf(out, cap,
             "{\"Name\": \"%s\", \"Enable\": true, \"Files\": \"%s/in.log\",\n"
             "\"Query\": \"from STATS select count($line) group by $hostname\",\n"
             "\"Outfile\": \"%s/out-$today.csv\"%s%s}",
             name, dir, dir, extra[0] ? ",\n" : "", extra);
}

/* jobs_load of the jobs (a printf format) must fail with want in its
 * message. */
__attribute__((format(printf, 2, 3)))
static void expect_list_refused(const char *want, const char *fmt, ...)
{
    char list[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list, sizeof list, fmt, ap);
    va_end(ap);
    config_t *c = malloc(sizeof *c);
    assert_non_null(c);
    jobs_t *js = NULL;
    err_t e;
    assert_int_equal(load_jobs(c, &js, list, &e), -1);
    assert_null(js);
    if (!strstr(e.msg, want))
        fail_msg("got \"%s\", want \"%s\"", e.msg, want);
    free(c);
}

/* A schedule job j1 with extra keys must be refused: the message starts
 * with the file, line and job, and holds want. */
static void expect_refused(const char *extra, int line, const char *want)
{
    char job[2048], prefix[300];
    job_json(job, sizeof job, "j1", extra);
    snprintf(prefix, sizeof prefix, ":%d: Server.Schedule[0] (job j1): %s", line, want);
    expect_list_refused(prefix, "\"Schedule\": [%s]", job);
}

static void test_load(void **state)
{
    (void)state;
    set_tz("UTC");
    config_t *c = malloc(sizeof *c);
    assert_non_null(c);
    char a[2048], b[2048], list[4200];
    job_json(a, sizeof a, "daily", "\"TimeRange\": [0, 24], \"Servers\": [\"localhost\"], "
                                   "\"AllowFrom\": [\"testhost\", \"127.0.0.1\"]");
    snprintf(b, sizeof b,
             "{\"Name\": \"live\", \"Files\": \"%s/f.log\", \"RestartOnDayChange\": true,\n"
             "\"Query\": \"from STATS select count($line) interval 1\",\n"
             "\"Outfile\": \"%s/live.csv\"}", dir, dir);
    snprintf(list, sizeof list, "\"Schedule\": [%s],\n\"Continuous\": [%s]", a, b);
    jobs_t *js = NULL;
    err_t e;
    if (load_jobs(c, &js, list, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(jobs_count(js), 2);
    const job_t *d = jobs_get(js, 0), *l = jobs_get(js, 1);
    assert_string_equal(d->name, "daily");
    assert_int_equal(d->kind, JOB_SCHEDULE);
    assert_true(d->enable);
    assert_int_equal(d->from_hour, 0);
    assert_int_equal(d->to_hour, 24);
    assert_string_equal(l->name, "live");
    assert_int_equal(l->kind, JOB_CONTINUOUS);
    assert_false(l->enable);   /* Enable defaults to false, as DTail's */
    assert_true(l->restart_on_day_change);
    char q[512];
    assert_int_equal(job_query_text(d, "/x/out.csv", q, sizeof q), 0);
    assert_string_equal(q, "from STATS select count($line) group by $hostname outfile \"/x/out.csv\"");
    jobs_free(js);
    /* No jobs at all, and empty lists. */
    assert_int_equal(load_jobs(c, &js, "\"MaxConnections\": 3", &e), 0);
    assert_int_equal(jobs_count(js), 0);
    jobs_free(js);
    assert_int_equal(load_jobs(c, &js, "\"Schedule\": [], \"Continuous\": []", &e), 0);
    assert_int_equal(jobs_count(js), 0);
    jobs_free(js);
    free(c);
}

static void test_refused(void **state)
{
    (void)state;
    set_tz("UTC");
    /* Lines: 2 the job's object, 3 Query, 4 Outfile, 5 the extra keys. */
    expect_refused("", 2, "TimeRange is missing");
    expect_refused("\"TimeRange\": [5, 5]", 5, "TimeRange must be [fromHour, toHour)");
    expect_refused("\"TimeRange\": [0, 25]", 5, "TimeRange must be");
    expect_refused("\"TimeRange\": 3", 5, "TimeRange must be");
    expect_refused("\"TimeRange\": [0, 24], \"Qeury\": 1", 5, "unknown key Qeury");
    expect_refused("\"TimeRange\": [0, 24], \"RestartOnDayChange\": true", 5,
                   "RestartOnDayChange is a key of Continuous jobs");
    expect_refused("\"TimeRange\": [0, 24], \"Servers\": [\"web2\"]", 5,
                   "Servers[0] \"web2\" is not this server");
    expect_refused("\"TimeRange\": [0, 24], \"AllowFrom\": [\"localhost:99\"]", 5,
                   "AllowFrom[0] \"localhost:99\" is not this server");
    expect_refused("\"TimeRange\": [0, 24], \"Discovery\": \"FILE\"", 5,
                   "Discovery must be empty");
    /* The query: one that does not parse, one with an outfile of its own. */
    expect_list_refused(":5: Server.Schedule[1] (job q): Query: invalid query: unknown clause "
                        "word 'selec'",
                        "\"Schedule\": [{\"Name\": \"ok\", \"Files\": \"x\", "
                        "\"Query\": \"select count($line)\",\n"
                        "\"Outfile\": \"%s/a.csv\", \"TimeRange\": [0, 24]},\n"
                        "{\"Name\": \"q\", \"Files\": \"x\", \"TimeRange\": [0, 24],\n"
                        "\"Query\": \"from STATS selec count($line)\", \"Outfile\": \"%s/b.csv\"}]",
                        dir, dir);
    const char *follow = "\"Continuous\": [{\"Name\": \"o\", \"Files\": \"x\",\n"
                         "\"Query\": \"from STATS select count($line)%s\",\n"
                         "\"Outfile\": \"%s/%s\"%s}]";
    expect_list_refused(":3: Server.Continuous[0] (job o): Query has an outfile clause", follow,
                        " outfile y.csv", dir, "b.csv", "");
    expect_list_refused(":4: Server.Continuous[0] (job o): RestartOnDayChange must be true or "
                        "false", follow, "", dir, "b.csv", ", \"RestartOnDayChange\": \"yes\"");
    /* An outfile that cannot be written, a name given twice. */
    expect_list_refused(":4: Server.Continuous[0] (job o): Outfile: ", follow, "", dir,
                        "missing/b.csv", "");
    char job[2048];
    job_json(job, sizeof job, "o", "\"TimeRange\": [0, 24]");
    char twice[4096];
    snprintf(twice, sizeof twice, "\"Schedule\": [%s],\n%s", job, follow);
    expect_list_refused("Server.Continuous[0] (job o): another job has the Name", twice, "", dir,
                        "t.csv", "");
    /* The shape is base/config's: a job is an object. */
    expect_list_refused("Server.Schedule must be a list of job objects", "\"Schedule\": [\"x\"]");
    expect_list_refused("Server.Schedule[0]: Name is missing", "\"Schedule\": [{}]");
}

static int setup(void **state)
{
    (void)state;
    return tmpdir_make(dir, sizeof dir, "test_jobs");
}

static int teardown(void **state)
{
    (void)state;
    if (cfg_fd >= 0)
        close(cfg_fd);
    return tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_dates),
        cmocka_unit_test(test_time_range),
        cmocka_unit_test(test_seconds_to_midnight),
        cmocka_unit_test(test_due),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
