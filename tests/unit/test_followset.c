/* test_followset.c: which files a follow run reads (exec/scan/followset.c).
 * A file rotated away under a name the specs also match is not followed a
 * second time; a new file that got the inode number of a deleted one is
 * not taken for it (ext4 gives a freed number to the next file at once:
 * with rename rotation and deletion of old files, `*.log` never followed
 * a new file that happened to get one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/scan/followset.h"
#include "tests/support/tmpdir.h"

static char dir[4096];

static void make(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x\n", 2), 2);
    close(fd);
}

static void test_rotated_name_is_not_followed_twice(void **state)
{
    (void)state;
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/app.log", dir);
    snprintf(b, sizeof b, "%s/app-1.log", dir);
    make(a);
    followset_t fs;
    followset_init(&fs);
    assert_int_equal(followset_claim(&fs, a), 1);
    assert_int_equal(followset_claim(&fs, a), 0);
    followset_note_current(&fs);
    assert_int_equal(rename(a, b), 0);
    assert_int_equal(followset_has(&fs, b), 1);
    assert_int_equal(followset_claim(&fs, b), 0);
    followset_free(&fs);
}

static void test_new_file_with_a_freed_inode_is_followed(void **state)
{
    (void)state;
    char a[4200], n[4300];
    snprintf(a, sizeof a, "%s/old.log", dir);
    make(a);
    struct stat st;
    assert_int_equal(stat(a, &st), 0);
    followset_t fs;
    followset_init(&fs);
    assert_int_equal(followset_claim(&fs, a), 1);
    followset_note_current(&fs);
    assert_int_equal(unlink(a), 0);
    /* The next files created may get the freed number; find one that did. */
    int found = -1;
    for (int k = 0; k < 50 && found < 0; k++) {
        snprintf(n, sizeof n, "%s/new%d.log", dir, k);
        make(n);
        struct stat nst;
        assert_int_equal(stat(n, &nst), 0);
        if (nst.st_dev == st.st_dev && nst.st_ino == st.st_ino)
            found = k;
    }
    if (found < 0) {
        followset_free(&fs);
        skip();   /* this filesystem did not give the number out again */
    }
    struct statx sx;
    if (statx(AT_FDCWD, n, 0, STATX_BTIME, &sx) != 0 || !(sx.stx_mask & STATX_BTIME)) {
        followset_free(&fs);
        skip();   /* no creation times: the inode number is all there is */
    }
    assert_int_equal(followset_has(&fs, n), 0);
    assert_int_equal(followset_claim(&fs, n), 1);
    followset_free(&fs);
}

static int setup(void **state)
{
    (void)state;
    return tmpdir_make(dir, sizeof dir, "dtail-followset") < 0 ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rotated_name_is_not_followed_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_file_with_a_freed_inode_is_followed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
