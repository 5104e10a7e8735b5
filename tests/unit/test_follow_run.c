/* test_follow_run.c: the follow supervisor (exec/follow_run.c) with the
 * cat/grep plan, driven by its own hooks: each change to the files is
 * made in the flush hook, which the run calls after a round of reads,
 * when it has read everything there is; the events of the change then
 * reach it through inotify like any rotator's. So a rotation lands at a
 * known point of the run's reading, however fast or slow the machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/outbuf.h"
#include "exec/follow_plan.h"
#include "exec/follow_run.h"
#include "tests/support/tmpdir.h"

static char dir[4096], file[4200];

typedef void (*step_fn)(void);

typedef struct harness {
    const step_fn *steps;
    size_t n, next;
    long long done_at;          /* when the last step was made */
    const char *want;           /* the output that ends the run */
    volatile int stop;
    char got[1 << 16];
    size_t len;
    char notices[4096];
    size_t n_notices;
    char summary[512];          /* follow_run_summary at the end */
    int summary_lost;           /* ... and what it returned */
} harness_t;

static harness_t H;

static int capture(void *ctx, const char *p, size_t n, int *err)
{
    (void)ctx;
    (void)err;
    assert_true(H.len + n < sizeof H.got);
    memcpy(H.got + H.len, p, n);
    H.len += n;
    H.got[H.len] = 0;
    return 0;
}

static void notice(void *ctx, const char *path, const char *what)
{
    (void)ctx;
    (void)path;
    size_t room = sizeof H.notices - H.n_notices;
    int n = snprintf(H.notices + H.n_notices, room, "%s\n", what);
    if (n > 0 && (size_t)n < room)
        H.n_notices += (size_t)n;
}

static outbuf_t out;

static void flush(void *ctx)
{
    (void)ctx;
    outbuf_flush(&out);
    if (H.next < H.n) {
        H.steps[H.next++]();
        if (H.next == H.n)
            H.done_at = clock_now_ms();
        return;
    }
    /* The last step's lines have come, or they never will. */
    if ((H.want && strcmp(H.got, H.want) == 0) || clock_now_ms() - H.done_at > 3000)
        H.stop = 1;
}

static void write_file(const char *path, const char *text, int flags)
{
    int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static char *rotated(int k)
{
    static char p[8][4300];
    snprintf(p[k], sizeof p[k], "%s.%d", file, k);
    return p[k];
}

/* Follows file from its start through the steps; the stats in *st. */
static void run(const step_fn *steps, size_t n, const char *want, follow_stats_t *st)
{
    memset(&H, 0, sizeof H);
    H.steps = steps;
    H.n = n;
    H.want = want;
    H.done_at = clock_now_ms();
    err_t e;
    err_clear(&e);
    assert_int_equal(outbuf_init_sink(&out, 1 << 16, capture, NULL, &e), 0);
    line_sink_t sink;
    assert_int_equal(line_sink_init(&sink, &out, LINE_PLAIN, "host", NULL), 0);
    matcher_t m;
    assert_int_equal(matcher_init(&m, "", &e), 0);
    follow_plan_t plan = {.sink = &sink, .lo = {.matcher = &m, .max_line_len = 1 << 20}};
    follow_run_hooks_t hooks = {.flush = flush};
    follow_run_t *r = follow_run_new(&hooks, &H.stop, &e);
    assert_non_null(r);
    follow_file_t *ff = follow_file_new(&plan, file, "app.log", NULL, &e);
    assert_non_null(ff);
    follow_opts_t fo = {.from_start = 1, .notice = notice};
    assert_int_equal(follow_run_add(r, file, &fo, &follow_file_ops, ff, &e), 1);
    if (!follow_run_watching(r)) {
        /* No inotify instance left (another process holds the per-user
         * limit): what these tests show needs the events. */
        print_message("no inotify for the run: skipped\n");
        follow_run_free(r);
        /* ff: released by the run */
        matcher_free(&m);
        line_sink_free(&sink);
        outbuf_free(&out);
        skip();
    }
    follow_run_loop(r, clock_now_ms() + 20000);
    outbuf_flush(&out);
    follow_run_stats(r, st);
    H.summary_lost = follow_run_summary(r, H.summary, sizeof H.summary);
    follow_run_free(r);
    /* ff: released by follow_run_free */
    matcher_free(&m);
    line_sink_free(&sink);
    outbuf_free(&out);
}

static int setup(void **state)
{
    (void)state;
    if (tmpdir_make(dir, sizeof dir, "dtail-follow-run") < 0)
        return -1;
    snprintf(file, sizeof file, "%s/app.log", dir);
    write_file(file, "a0\n", O_TRUNC);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int k = 1; k < 8; k++)
        unlink(rotated(k));
    return tmpdir_remove(dir);
}

static void append_a1(void) { write_file(file, "a1\n", O_APPEND); }

/* Two rotations between two looks: the file made by the first was never
 * at the path when the run looked; it is found where it was renamed to. */
static void rotate_twice(void)
{
    assert_int_equal(rename(file, rotated(1)), 0);
    write_file(file, "b1\n", O_EXCL);
    assert_int_equal(rename(file, rotated(2)), 0);
    write_file(file, "c1\n", O_EXCL);
}

static void test_two_rotations_between_looks(void **state)
{
    (void)state;
    const step_fn steps[] = {append_a1, rotate_twice};
    follow_stats_t st;
    run(steps, 2, "a0\na1\nb1\nc1\n", &st);
    assert_string_equal(H.got, "a0\na1\nb1\nc1\n");
    assert_int_equal(st.rotations, 2);
    assert_int_equal(st.files_lost, 0);
    assert_non_null(strstr(H.notices, "file rotated; following the new file\n"
                                      "file rotated; following the new file\n"));
    assert_string_equal(H.summary, "followed 1 file, 2 rotations, 0 truncations");
    assert_int_equal(H.summary_lost, 0);
}

/* The file the first rotation made is deleted before the run could open
 * it: its lines cannot be shown, and the loss is told and counted. */
static void rotate_and_delete(void)
{
    assert_int_equal(rename(file, rotated(1)), 0);
    write_file(file, "b1\n", O_EXCL);
    assert_int_equal(rename(file, rotated(2)), 0);
    assert_int_equal(unlink(rotated(2)), 0);
    write_file(file, "c1\n", O_EXCL);
}

static void test_file_deleted_before_open_is_counted(void **state)
{
    (void)state;
    const step_fn steps[] = {append_a1, rotate_and_delete};
    follow_stats_t st;
    run(steps, 2, "a0\na1\nc1\n", &st);
    assert_string_equal(H.got, "a0\na1\nc1\n");
    assert_int_equal(st.files_lost, 1);
    assert_non_null(strstr(H.notices, "1 rotated file(s) lost: deleted or replaced before"));
    assert_non_null(strstr(H.summary, ", 1 rotated file lost before it could be opened (lines not read)"));
    assert_int_equal(H.summary_lost, 1);
}

static void append_half(void) { write_file(file, "half", O_APPEND); }
static void truncate_and_write(void) { write_file(file, "z1\nz2 longer than before\n", O_TRUNC); }

/* Truncated under an unfinished line and at once written past the old
 * offset: the new content is read from its start, the cut line is not
 * shown. */
static void test_truncation_drops_the_cut_line(void **state)
{
    (void)state;
    const step_fn steps[] = {append_half, truncate_and_write};
    follow_stats_t st;
    run(steps, 2, "a0\nz1\nz2 longer than before\n", &st);
    assert_string_equal(H.got, "a0\nz1\nz2 longer than before\n");
    assert_int_equal(st.truncations, 1);
    assert_int_equal(st.cut_lines, 1);
    assert_non_null(strstr(H.notices, "file truncated; its unfinished last line was dropped"));
    assert_non_null(strstr(H.summary, "1 truncation, 1 unfinished line dropped at truncations"));
    assert_int_equal(H.summary_lost, 1);
}

/* Many rotations, each before the run read the last: every file is read,
 * once, in order. */
static int round_no;
static void rotate_many(void)
{
    for (int k = 1; k <= 6; k++) {
        char line[32];
        assert_int_equal(rename(file, rotated(k)), 0);
        snprintf(line, sizeof line, "r%d\n", k);
        write_file(file, line, O_EXCL);
    }
    round_no++;
}

static void test_many_rotations_at_once(void **state)
{
    (void)state;
    const step_fn steps[] = {rotate_many};
    follow_stats_t st;
    run(steps, 1, "a0\nr1\nr2\nr3\nr4\nr5\nr6\n", &st);
    assert_string_equal(H.got, "a0\nr1\nr2\nr3\nr4\nr5\nr6\n");
    assert_int_equal(st.rotations, 6);
    assert_int_equal(st.files_lost, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_two_rotations_between_looks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_deleted_before_open_is_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncation_drops_the_cut_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_rotations_at_once, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
