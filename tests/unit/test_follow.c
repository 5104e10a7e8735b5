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

/* Follows path from its start through the script; returns all bytes read. */
static char *follow_all(const char *path, const step_fn *steps, size_t n)
{
    script_t s = {.path = path, .steps = steps, .n = n};
    follow_opts_t o = {.from_start = 1, .stop = &s.stop};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_appends_are_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_and_rewrite_same_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_and_rewrite_longer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_then_grow, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
