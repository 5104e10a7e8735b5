/* test_logfile.c: DTail's log file (base/logfile.h): the daily name in a
 * directory created with its parents, nothing written before a flush (the
 * block), a span larger than the block written at once, signal rotation's
 * one file and its reopen after a rotator moved it, and an error naming
 * the path when the directory cannot be made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/logfile.h"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/test_logfile.XXXXXX");
    assert_non_null(mkdtemp(tmp));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    assert_int_equal(system(cmd), 0);
    return 0;
}

/* The file's bytes (at most cap - 1), NUL-terminated; -1 when missing. */
static long slurp(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = '\0';
    return (long)n;
}

static void test_daily_name_and_block(void **state)
{
    (void)state;
    static logfile_t lf;
    err_t e;
    char dir[300], path[400], got[256];
    snprintf(dir, sizeof dir, "%s/a/b/log", tmp);
    assert_int_equal(logfile_open(&lf, dir, NULL, &e), 0);
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    snprintf(path, sizeof path, "%s/%04d%02d%02d.log", dir, tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday);
    logfile_append(&lf, "one\n", 4);
    logfile_append(&lf, "two\n", 4);
    assert_int_equal(slurp(path, got, sizeof got), 0);   /* created, nothing written yet */
    logfile_flush(&lf);
    assert_int_equal(slurp(path, got, sizeof got), 8);
    assert_string_equal(got, "one\ntwo\n");
    logfile_close(&lf);
}

static void test_large_span_written_at_once(void **state)
{
    (void)state;
    static logfile_t lf;
    static char big[LOGFILE_BLOCK + 100];
    static char got[sizeof big + 16];
    err_t e;
    char path[400];
    memset(big, 'x', sizeof big);
    assert_int_equal(logfile_open(&lf, tmp, "big", &e), 0);
    snprintf(path, sizeof path, "%s/big.log", tmp);
    logfile_append(&lf, "a", 1);
    logfile_append(&lf, big, sizeof big);
    assert_int_equal(slurp(path, got, sizeof got), 1 + (long)sizeof big);
    assert_int_equal(got[0], 'a');
    logfile_close(&lf);
}

static void test_signal_rotation_reopen(void **state)
{
    (void)state;
    static logfile_t lf;
    err_t e;
    char path[400], moved[420], got[256];
    assert_int_equal(logfile_open(&lf, tmp, "dserver", &e), 0);
    snprintf(path, sizeof path, "%s/dserver.log", tmp);
    snprintf(moved, sizeof moved, "%s.1", path);
    logfile_append(&lf, "before\n", 7);
    assert_int_equal(rename(path, moved), 0);
    assert_int_equal(logfile_reopen(&lf, &e), 0);
    logfile_append(&lf, "after\n", 6);
    logfile_close(&lf);
    assert_int_equal(slurp(moved, got, sizeof got), 7);   /* pending bytes went to the old file */
    assert_string_equal(got, "before\n");
    assert_int_equal(slurp(path, got, sizeof got), 6);
    assert_string_equal(got, "after\n");
}

static void test_directory_cannot_be_made(void **state)
{
    (void)state;
    static logfile_t lf;
    err_t e;
    char file[300], dir[320];
    snprintf(file, sizeof file, "%s/plain", tmp);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/sub", file);
    err_clear(&e);
    assert_int_equal(logfile_open(&lf, dir, NULL, &e), -1);
    assert_int_equal(e.code, ERR_IO);
    assert_non_null(strstr(e.msg, dir));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_daily_name_and_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_span_written_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_rotation_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_cannot_be_made, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
