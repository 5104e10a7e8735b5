/* test_follow.c: the followed-file source (exec/scan/follow.c), driven
 * without threads or sleeps: each time the source is at the end of the
 * file it returns INPUT_AGAIN, and the test makes the next change to the
 * file right there. So every step happens at a known point of
 * the source's reading, however fast or slow the machine is. */
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

#include "exec/scan/follow.h"
#include "tests/support/tmpdir.h"

/* A script of changes, one per INPUT_AGAIN; after the last, the source is
 * stopped. */
typedef void (*step_fn)(const char *path);

typedef struct script {
    const char *path;
    const step_fn *steps;
    size_t n, next;
    volatile int stop;
} script_t;

static void next_step(script_t *s)
{
    if (s->next < s->n)
        s->steps[s->next++](s->path);
    else
        s->stop = 1;
}

static void write_file(const char *path, const char *text, int flags)
{
    int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The notices of the last follow_all, one a line; a test may set
 * on_notice to change the file right when the source tells something
 * (the source's state is then known: see each use). */
static char notices[4096];
static step_fn on_notice;

static void collect_notice(void *ctx, const char *path, const char *what)
{
    size_t len = strlen(notices);
    snprintf(notices + len, sizeof notices - len, "%s\n", what);
    if (on_notice) {
        step_fn once = on_notice;
        on_notice = NULL;
        once(path);
    }
    (void)ctx;
}

/* Set by a test: the next follow_all begins at the file's end, as tail -f. */
static int from_end;
/* Set by a test: how the next follow_all opens candidate copies (NULL:
 * open), to change a file right when the source opens it. */
static int (*open_candidate)(void *ctx, const char *path);

/* Follows path from its start (or end) through the script; returns all
 * bytes read. */
static char *follow_all(const char *path, const step_fn *steps, size_t n)
{
    script_t s = {.path = path, .steps = steps, .n = n};
    follow_opts_t o = {.from_start = !from_end, .stop = &s.stop, .notice = collect_notice,
                       .open_candidate = open_candidate};
    notices[0] = 0;
    err_t e;
    err_clear(&e);
    input_t *in = follow_open(path, &o, NULL, &e);
    assert_non_null(in);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    ssize_t r;
    while ((r = input_read(in, out + len, cap - 1 - len, &e)) > 0 || r == INPUT_CUT ||
           r == INPUT_AGAIN) {
        if (r == INPUT_AGAIN) {
            next_step(&s);
            continue;
        }
        if (r == INPUT_CUT) {   /* what a reader does: the unfinished line is void */
            while (len > 0 && out[len - 1] != '\n')
                len--;
            continue;
        }
        len += (size_t)r;
    }
    assert_int_equal(r, 0);
    out[len] = 0;
    input_close(in);
    return out;
}

static char dir[4096], file[4200];

static int setup(void **state)
{
    (void)state;
    if (tmpdir_make(dir, sizeof dir, "dtail-follow") < 0)
        return -1;
    snprintf(file, sizeof file, "%s/app.log", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    on_notice = NULL;
    from_end = 0;
    open_candidate = NULL;
    return tmpdir_remove(dir);
}

static void append_two(const char *p) { write_file(p, "c1\nc2\n", O_APPEND); }
/* Truncated and at once written again to the same size: only the content
 * shows the change. */
static void rewrite_same_size(const char *p) { write_file(p, "x1\nx2\n", O_TRUNC); }
/* Truncated and at once written past the old offset: reading on from the
 * old offset would print the fragment "nger line". */
static void rewrite_longer(const char *p) { write_file(p, "y\nlonger line\n", O_TRUNC); }
static void truncate_only(const char *p) { write_file(p, "", O_TRUNC); }
static void write_z(const char *p) { write_file(p, "z\n", O_APPEND); }

static void test_appends_are_read(void **state)
{
    (void)state;
    write_file(file, "a1\na2\n", O_TRUNC);
    const step_fn steps[] = {append_two};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\na2\nc1\nc2\n");
    free(got);
}

static void test_truncate_and_rewrite_same_size(void **state)
{
    (void)state;
    write_file(file, "a1\na2\n", O_TRUNC);
    const step_fn steps[] = {rewrite_same_size};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\na2\nx1\nx2\n");
    free(got);
}

static void test_truncate_and_rewrite_longer(void **state)
{
    (void)state;
    write_file(file, "old1\n", O_TRUNC);
    const step_fn steps[] = {rewrite_longer};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "old1\ny\nlonger line\n");
    free(got);
}

static void test_truncate_then_grow(void **state)
{
    (void)state;
    write_file(file, "a1\nhalf", O_TRUNC);
    const step_fn steps[] = {truncate_only, write_z};
    char *got = follow_all(file, steps, 2);
    /* The line the truncation cut is dropped, never shown as a line. */
    assert_string_equal(got, "a1\nz\n");
    free(got);
}

/* copytruncate, as logrotate does it: lines written after the source's
 * last read, then the file copied to `to`, then truncated in place. */
static void copy_to(const char *p, const char *to)
{
    char buf[4096];
    int in = open(p, O_RDONLY);
    assert_true(in >= 0);
    ssize_t n = read(in, buf, sizeof buf);
    assert_true(n >= 0);
    close(in);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(out >= 0);
    assert_int_equal(write(out, buf, (size_t)n), n);
    close(out);
}

static void copy_to_1(const char *p)
{
    char to[4300];
    snprintf(to, sizeof to, "%s.1", p);
    copy_to(p, to);
}

static void copy_to_2(const char *p)
{
    char to[4300];
    snprintf(to, sizeof to, "%s.2", p);
    copy_to(p, to);
}

/* The lines after the last read are only in the copy when it is found. */
static void unread_then_copytruncate(const char *p)
{
    write_file(p, "a3\na4\n", O_APPEND);
    copy_to_1(p);
    write_file(p, "b1\n", O_TRUNC);
}

static void test_copytruncate_unread_end_read_from_copy(void **state)
{
    (void)state;
    write_file(file, "a1\na2\n", O_TRUNC);
    const step_fn steps[] = {unread_then_copytruncate};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\na2\na3\na4\nb1\n");
    assert_non_null(strstr(notices, "what it held after byte 6 is read from its copy app.log.1"));
    free(got);
}

/* Followed from its end, nothing read yet when it is copied and truncated:
 * the copy holds lines the source never saw written, so the writer was at
 * work, and what it wrote after the copy is said lost. */
static void test_copytruncate_before_any_read_says_loss(void **state)
{
    (void)state;
    write_file(file, "a1\n", O_TRUNC);
    from_end = 1;
    const step_fn steps[] = {unread_then_copytruncate};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a3\na4\nb1\n");
    assert_non_null(strstr(notices, "what it held after byte 3 is read from its copy app.log.1; "
                                    "anything written after byte 9 before the truncation was lost"));
    free(got);
}

/* The unfinished line the truncation cut is finished in the copy. */
static void finish_line_then_copytruncate(const char *p)
{
    write_file(p, "f\n", O_APPEND);
    copy_to_1(p);
    write_file(p, "b1\n", O_TRUNC);
}

static void test_copytruncate_copy_finishes_cut_line(void **state)
{
    (void)state;
    write_file(file, "a1\nhal", O_TRUNC);
    const step_fn steps[] = {finish_line_then_copytruncate};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\nhalf\nb1\n");
    free(got);
}

/* Two copytruncates before a read: the second copy holds a content the
 * source never saw in the file; it is read after the first. */
static void copytruncate_twice(const char *p)
{
    write_file(p, "a2\n", O_APPEND);
    copy_to_1(p);
    write_file(p, "b1\nb2\n", O_TRUNC);
    copy_to_2(p);
    write_file(p, "c1\n", O_TRUNC);
}

static void test_copytruncate_twice_before_read(void **state)
{
    (void)state;
    write_file(file, "a1\n", O_TRUNC);
    const step_fn steps[] = {copytruncate_twice};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\na2\nb1\nb2\nc1\n");
    assert_non_null(strstr(notices, "truncated again before what it held could be read; "
                                    "reading it from its copy app.log.2"));
    free(got);
}

/* Truncated without a copy, then (at the notice: the source is at the
 * file's start with nothing of it read) copied and truncated again: the
 * content it never read is in the copy. */
static void copy_and_truncate_again(const char *p)
{
    copy_to_2(p);
    write_file(p, "c1\n", O_TRUNC);
}

static void test_truncated_again_before_first_read(void **state)
{
    (void)state;
    write_file(file, "a1\n", O_TRUNC);
    on_notice = copy_and_truncate_again;
    const step_fn steps[] = {rewrite_same_size};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\nx1\nx2\nc1\n");
    free(got);
}

static void copy_to_k(const char *p, int k)
{
    char to[4300];
    snprintf(to, sizeof to, "%s.%d", p, k);
    copy_to(p, to);
}

/* Lines `prefix`NNNN for NNNN in [from, to], appended to buf (or, with
 * path, to the file: flags as write_file's). */
static void numbered(char *buf, size_t cap, const char *prefix, int from, int to)
{
    for (int i = from; i <= to; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%04d\n", prefix, i);
    }
}

static void write_numbered(const char *path, const char *prefix, int from, int to, int flags)
{
    static char text[16384];
    text[0] = 0;
    numbered(text, sizeof text, prefix, from, to);
    write_file(path, text, flags);
}

/* got is the lines a0001..a<last>, then rest. */
static void assert_numbered_then(const char *got, int last, const char *rest)
{
    static char want[16384];
    want[0] = 0;
    numbered(want, sizeof want, "a", 1, last);
    strcat(want, rest);
    assert_string_equal(got, want);
}

/* The writer went on for more than the tail the source keeps (4 KiB)
 * after the copy, and the source read that from the file: the copy ends
 * before the tail, and only the content's start tells it. */
static void copy_then_write_past_tail(const char *p)
{
    copy_to_1(p);
    write_numbered(p, "a", 101, 1000, O_APPEND);
}

/* ... then the file is copied and truncated twice before the next read:
 * b1, b2 are only in app.log.2, found as the copy made after app.log.1. */
static void copytruncate_twice_after_long_copy(const char *p)
{
    write_file(p, "b1\nb2\n", O_TRUNC);
    copy_to_2(p);
    write_file(p, "c1\n", O_TRUNC);
}

static void test_copy_ends_before_tail_then_copytruncated_unread(void **state)
{
    (void)state;
    write_numbered(file, "a", 1, 100, O_TRUNC);
    const step_fn steps[] = {copy_then_write_past_tail, copytruncate_twice_after_long_copy};
    char *got = follow_all(file, steps, 2);
    assert_numbered_then(got, 1000, "b1\nb2\nc1\n");
    assert_non_null(strstr(notices, "truncated again before what it held could be read; "
                                    "reading it from its copy app.log.2"));
    free(got);
}

/* Truncated with no copy (the file empty at the notice), then, before the
 * first read of the file, written, copied and truncated: the content it
 * never read is in the copy made after the last read. */
static void copytruncate_unread(const char *p)
{
    write_file(p, "b1\nb2\n", O_TRUNC);
    copy_to_2(p);
    write_file(p, "c1\n", O_TRUNC);
}

static void test_truncated_without_copy_then_copytruncated_unread(void **state)
{
    (void)state;
    write_file(file, "a1\n", O_TRUNC);
    on_notice = copytruncate_unread;
    const step_fn steps[] = {truncate_only};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\nb1\nb2\nc1\n");
    assert_non_null(strstr(notices, "reading it from its copy app.log.2"));
    free(got);
}

/* The source kept from reading while the file was copied and truncated
 * ten times: the copy of what it read last has nine newer ones. */
enum { MANY_COPIES = 10 };

static void copytruncate_many_times(const char *p)
{
    write_file(p, "a2\n", O_APPEND);
    for (int k = 1; k <= MANY_COPIES; k++) {
        copy_to_k(p, k);
        char next[32];
        snprintf(next, sizeof next, "k%02d\n", k + 1);
        write_file(p, next, O_TRUNC);
    }
}

static void test_copytruncated_many_times_before_read(void **state)
{
    (void)state;
    write_file(file, "a1\n", O_TRUNC);
    const step_fn steps[] = {copytruncate_many_times};
    char *got = follow_all(file, steps, 1);
    char want[256] = "a1\na2\n";
    for (int k = 2; k <= MANY_COPIES + 1; k++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "k%02d\n", k);
    assert_string_equal(got, want);
    free(got);
}

/* The second copy is begun (one line of two) when the source lists the
 * directory; the copier finishes it and truncates the file while the
 * source opens it: the listing's size is stale by then. */
static void copytruncate_then_begin_copy(const char *p)
{
    write_file(p, "a0041\n", O_APPEND);
    copy_to_1(p);
    write_file(p, "b1\nb2\n", O_TRUNC);
    char to[4300];
    snprintf(to, sizeof to, "%s.2", p);
    write_file(to, "b1\n", O_TRUNC);
}

static int copy_finished;

static int open_then_finish_copy(void *ctx, const char *path)
{
    (void)ctx;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t len = strlen(path);
    if (!copy_finished && len > 2 && !strcmp(path + len - 2, ".2")) {
        copy_finished = 1;
        write_file(path, "b2\n", O_APPEND);
        write_file(file, "c1\n", O_TRUNC);
    }
    return fd;
}

static void test_copy_still_written_when_listed_told_by_its_size(void **state)
{
    (void)state;
    /* 240 bytes read: the begun copy (3 bytes) is too short to be the
     * copy of what was read, so it is opened only once, as a later copy. */
    write_numbered(file, "a", 1, 40, O_TRUNC);
    copy_finished = 0;
    open_candidate = open_then_finish_copy;
    const step_fn steps[] = {copytruncate_then_begin_copy};
    char *got = follow_all(file, steps, 1);
    assert_numbered_then(got, 41, "b1\nb2\nc1\n");
    assert_non_null(strstr(notices, "reading it from its copy app.log.2; "
                                    "anything written after byte 6 before the truncation was lost"));
    free(got);
}

/* The creation time and inode number of path; -1 where the filesystem
 * keeps no creation time. */
static int birth_and_inode(const char *path, struct timespec *born, unsigned long long *ino)
{
    struct statx sx;
    if (statx(AT_FDCWD, path, 0, STATX_BTIME | STATX_INO, &sx) < 0 || !(sx.stx_mask & STATX_BTIME))
        return -1;
    born->tv_sec = (time_t)sx.stx_btime.tv_sec;
    born->tv_nsec = (long)sx.stx_btime.tv_nsec;
    *ino = (unsigned long long)sx.stx_ino;
    return 0;
}

enum { TICK_COPIES = 3, TICK_TRIES = 100 };

/* Creates the empty copies app.log.1..3 all in one tick of the
 * filesystem's creation clock (made again until they are), their inode
 * numbers rising with the number or (falling) sinking: a filesystem
 * hands out freed numbers again (ext4 the lowest free), so a later file
 * may well have a lower one. Returns 0, or -1 when the filesystem keeps
 * no creation times. */
static int copies_in_one_tick(int falling)
{
    char tmp[TICK_COPIES][4300];
    for (int t = 0; t < TICK_TRIES; t++) {
        struct timespec born[TICK_COPIES];
        unsigned long long ino[TICK_COPIES];
        int one_tick = 1;
        for (int i = 0; i < TICK_COPIES; i++) {
            snprintf(tmp[i], sizeof tmp[i], "%s/tick%d", dir, i);
            write_file(tmp[i], "", O_EXCL);
            if (birth_and_inode(tmp[i], &born[i], &ino[i]) < 0)
                return -1;
            one_tick &= born[i].tv_sec == born[0].tv_sec && born[i].tv_nsec == born[0].tv_nsec;
        }
        if (!one_tick) {
            for (int i = 0; i < TICK_COPIES; i++)
                assert_int_equal(unlink(tmp[i]), 0);
            continue;
        }
        /* Copy k is the file with the k-th lowest inode number (falling:
         * the k-th highest). */
        for (int k = 1; k <= TICK_COPIES; k++) {
            int pick = -1;
            for (int i = 0; i < TICK_COPIES; i++) {
                int lower = pick >= 0 && ino[i] < ino[pick];
                if (tmp[i][0] && (pick < 0 || lower != falling))
                    pick = i;
            }
            char to[4300];
            snprintf(to, sizeof to, "%s.%d", file, k);
            assert_int_equal(rename(tmp[pick], to), 0);
            tmp[pick][0] = 0;
        }
        return 0;
    }
    fail_msg("no %d files created in one clock tick in %d tries", TICK_COPIES, TICK_TRIES);
    return -1;
}

/* Follows the file, holding a1, through the one step, app.log.1..3 made
 * beforehand by copies_in_one_tick(falling); skipped where that cannot be. */
static char *follow_with_copies_of_one_tick(int falling, step_fn step)
{
    write_file(file, "a1\n", O_TRUNC);
    if (copies_in_one_tick(falling) < 0)
        skip();
    const step_fn steps[] = {step};
    return follow_all(file, steps, 1);
}

/* a2 appended, then the file copied to app.log.<k[0]> and truncated to
 * b1 b2, copied to k[1] and truncated to c1, copied to k[2] (that copy's
 * truncation is the caller's). */
static void copy_three_contents(const char *p, const int k[3])
{
    write_file(p, "a2\n", O_APPEND);
    copy_to_k(p, k[0]);
    write_file(p, "b1\nb2\n", O_TRUNC);
    copy_to_k(p, k[1]);
    write_file(p, "c1\n", O_TRUNC);
    copy_to_k(p, k[2]);
}

/* Copied and truncated three times in one tick before a read. */
static void copytruncate_thrice(const char *p)
{
    copy_three_contents(p, (const int[3]){1, 2, 3});
    write_file(p, "d1\n", O_TRUNC);
}

/* The copies of one tick are read in the order they were made, though
 * the later one has the lower inode number. */
static void test_copies_of_one_tick_read_oldest_first(void **state)
{
    (void)state;
    char *got = follow_with_copies_of_one_tick(1, copytruncate_thrice);
    assert_string_equal(got, "a1\na2\nb1\nb2\nc1\nd1\n");
    free(got);
}

/* Copied and truncated twice, then copied again (its truncation still to
 * come) before a read; numbered as logrotate does (the newest is .1), and
 * with every time the filesystem keeps in one tick (the last copy gets
 * the modification time of the one before): app.log.1, a copy of what
 * the file holds now, is tried before app.log.2, gone unread. */
static void copytruncate_twice_then_copy(const char *p)
{
    copy_three_contents(p, (const int[3]){3, 2, 1});
    char older[4300], newest[4300];
    snprintf(older, sizeof older, "%s.2", p);
    snprintf(newest, sizeof newest, "%s.1", p);
    struct stat st;
    assert_int_equal(stat(older, &st), 0);
    const struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, st.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, newest, times, 0), 0);
}

static void test_copy_of_now_tried_first_older_copy_still_read(void **state)
{
    (void)state;
    char *got = follow_with_copies_of_one_tick(0, copytruncate_twice_then_copy);
    assert_string_equal(got, "a1\na2\nb1\nb2\nc1\n");
    assert_non_null(strstr(notices, "reading it from its copy app.log.2"));
    free(got);
}

/* A recent file that is no copy (other bytes before the offset read) is
 * not read: the truncation is told as before. */
static void other_file_then_truncate(const char *p)
{
    char other[4300];
    snprintf(other, sizeof other, "%s.1", p);
    write_file(other, "zz\nzz\nzz\n", O_TRUNC);
    write_file(p, "b1\n", O_TRUNC);
}

static void test_truncation_without_copy(void **state)
{
    (void)state;
    write_file(file, "a1\na2\n", O_TRUNC);
    const step_fn steps[] = {other_file_then_truncate};
    char *got = follow_all(file, steps, 1);
    assert_string_equal(got, "a1\na2\nb1\n");
    assert_null(strstr(notices, "copy"));
    assert_non_null(strstr(notices, "file truncated"));
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_appends_are_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_and_rewrite_same_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_and_rewrite_longer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_then_grow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copytruncate_unread_end_read_from_copy, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copytruncate_before_any_read_says_loss, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copytruncate_copy_finishes_cut_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copytruncate_twice_before_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_again_before_first_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncation_without_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_ends_before_tail_then_copytruncated_unread,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_without_copy_then_copytruncated_unread,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_copytruncated_many_times_before_read, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copy_still_written_when_listed_told_by_its_size,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_copies_of_one_tick_read_oldest_first, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copy_of_now_tried_first_older_copy_still_read,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
