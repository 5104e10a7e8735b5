/* test_outpath.c: an outfile's destination on real files: links followed
 * (relative to their own directory, chains, dangling, loops), what is not
 * a regular file refused naming the path given, temporaries beside the
 * target with its mode, and the CSV writer leaving nothing behind when a
 * write is discarded or refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/sink/outpath.h"
#include "exec/sink/result.h"
#include "tests/support/tmpdir.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    return tmpdir_make(dir, sizeof dir, "test_outpath");
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(dir);
}

/* dir/name into buf. */
static const char *at(char *buf, const char *name)
{
    snprintf(buf, OUTPATH_MAX, "%s/%s", dir, name);
    return buf;
}

static int dir_entries(void)
{
    return tmpdir_count(dir);
}

static void touch(const char *path, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void test_regular_and_new(void **state)
{
    (void)state;
    char p[OUTPATH_MAX];
    outpath_t op;
    err_t e;
    touch(at(p, "f.csv"), 0600);
    assert_int_equal(outpath_resolve(&op, p, p, &e), 0);
    assert_string_equal(op.target, p);
    assert_int_equal(op.exists, 1);
    assert_int_equal(op.mode, 0600);
    assert_int_equal(outpath_resolve(&op, at(p, "new.csv"), p, &e), 0);
    assert_int_equal(op.exists, 0);
    assert_int_equal(op.mode, 0644);
    assert_int_equal(outpath_is_stdout("-"), 1);
    assert_int_equal(outpath_is_stdout("-x"), 0);
}

static void test_links(void **state)
{
    (void)state;
    char p[OUTPATH_MAX], t[OUTPATH_MAX], want[OUTPATH_MAX];
    outpath_t op;
    err_t e;
    assert_int_equal(mkdir(at(p, "sub"), 0755), 0);
    touch(at(t, "sub/t.csv"), 0640);
    /* A relative link is relative to its own directory, not to ours. */
    assert_int_equal(symlink("t.csv", at(p, "sub/l2")), 0);
    assert_int_equal(symlink("sub/l2", at(p, "l1")), 0);
    assert_int_equal(outpath_resolve(&op, at(p, "l1"), "l1", &e), 0);
    snprintf(want, sizeof want, "%s/sub/t.csv", dir);
    assert_string_equal(op.target, want);
    assert_int_equal(op.exists, 1);
    assert_int_equal(op.mode, 0640);
    /* An absolute link, dangling: its target is the new file. */
    snprintf(want, sizeof want, "%s/sub/none.csv", dir);
    assert_int_equal(symlink(want, at(p, "dangling")), 0);
    assert_int_equal(outpath_resolve(&op, p, p, &e), 0);
    assert_string_equal(op.target, want);
    assert_int_equal(op.exists, 0);
    /* A loop is an error naming the path given. */
    assert_int_equal(symlink("loopb", at(p, "loopa")), 0);
    assert_int_equal(symlink("loopa", at(p, "loopb")), 0);
    assert_int_equal(outpath_resolve(&op, at(p, "loopa"), "given-loop", &e), -1);
    assert_non_null(strstr(e.msg, "outfile given-loop: more than 40 symbolic links"));
    /* Dangling into a missing directory: an error now, not at the rename. */
    assert_int_equal(symlink("nodir/x", at(p, "tonodir")), 0);
    assert_int_equal(outpath_resolve(&op, p, "given-nodir", &e), -1);
    assert_non_null(strstr(e.msg, "outfile given-nodir: directory"));
    assert_non_null(strstr(e.msg, "No such file or directory"));
}

static void test_refused(void **state)
{
    (void)state;
    char p[OUTPATH_MAX], f[OUTPATH_MAX];
    outpath_t op;
    err_t e;
    assert_int_equal(mkfifo(at(f, "fifo"), 0644), 0);
    assert_int_equal(outpath_resolve(&op, f, f, &e), -1);
    assert_non_null(strstr(e.msg, "is a FIFO, not a regular file; not replaced"));
    assert_non_null(strstr(e.msg, f));
    /* Through a link: the message names the link given and the FIFO. */
    assert_int_equal(symlink("fifo", at(p, "tofifo")), 0);
    assert_int_equal(outpath_resolve(&op, p, "given", &e), -1);
    assert_true(strncmp(e.msg, "outfile given: ", 15) == 0);
    assert_non_null(strstr(e.msg, f));
    assert_int_equal(outpath_resolve(&op, dir, dir, &e), -1);
    assert_non_null(strstr(e.msg, "is a directory"));
    /* A regular file used as a directory. */
    touch(at(p, "plain"), 0644);
    assert_int_equal(outpath_resolve(&op, at(p, "plain/x.csv"), p, &e), -1);
    assert_non_null(strstr(e.msg, "Not a directory"));
}

static void test_temp_and_commit(void **state)
{
    (void)state;
    char p[OUTPATH_MAX], tmp[OUTPATH_MAX], want[OUTPATH_MAX];
    outpath_t op;
    err_t e;
    assert_int_equal(mkdir(at(p, "d"), 0755), 0);
    touch(at(p, "d/t.csv"), 0604);
    assert_int_equal(symlink("d/t.csv", at(p, "l")), 0);
    assert_int_equal(outpath_resolve(&op, p, p, &e), 0);
    int fd = outpath_temp(&op, tmp, sizeof tmp, &e);
    assert_true(fd >= 0);
    snprintf(want, sizeof want, "%s/d/.t.csv.", dir);
    assert_true(strncmp(tmp, want, strlen(want)) == 0);   /* beside the target */
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0604);
    assert_int_equal(write(fd, "new\n", 4), 4);
    close(fd);
    assert_int_equal(outpath_commit(&op, tmp, &e), 0);
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISLNK(st.st_mode));   /* the link stays a link */
    FILE *f = fopen(at(want, "d/t.csv"), "r");
    char line[16] = "";
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "new\n");
}

static result_t one_row(void)
{
    static const char *headers[] = {"a"};
    static char one[] = "1";
    static char *cells[] = {one};
    result_t r = {0};
    r.headers = headers;
    r.n_cols = 1;
    r.cells = cells;
    r.n_rows = 1;
    return r;
}

static void test_csv_nothing_left(void **state)
{
    (void)state;
    char p[OUTPATH_MAX], q[OUTPATH_MAX];
    err_t e;
    result_t r = one_row();
    /* Discarded: neither the file, its .query nor a temporary. */
    result_csv_t w;
    assert_int_equal(result_csv_open(&w, at(p, "x.csv"), 0, "the query", &e), 0);
    result_csv_put(&w, &r);
    assert_int_equal(dir_entries(), 2);   /* the two temporaries */
    assert_int_equal(result_csv_close(&w, 0, &e), 0);
    assert_int_equal(dir_entries(), 0);
    /* Kept: the file and its .query, nothing else. */
    assert_int_equal(result_write_csv(&r, p, 0, "the query", &e), 0);
    assert_int_equal(dir_entries(), 2);
    /* A FIFO where the .query goes: refused before anything is made. */
    assert_int_equal(mkfifo(at(q, "y.csv.query"), 0644), 0);
    assert_int_equal(result_write_csv(&r, at(p, "y.csv"), 0, "q", &e), -1);
    assert_non_null(strstr(e.msg, "y.csv.query is a FIFO"));
    assert_int_equal(access(p, F_OK), -1);
    assert_int_equal(dir_entries(), 3);
    /* Appending to a FIFO: refused, not waited on. */
    assert_int_equal(result_write_csv(&r, q, 1, "q", &e), -1);
    assert_non_null(strstr(e.msg, "is a FIFO"));
    assert_int_equal(dir_entries(), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_regular_and_new, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_temp_and_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_nothing_left, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
