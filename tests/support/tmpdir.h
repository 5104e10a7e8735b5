/* tmpdir.h: a test's own temporary directory, made fresh and removed with
 * everything in it (no shell: a name with a quote in it stays a name).
 * Header-only. */
#ifndef DTAIL_TESTS_TMPDIR_H
#define DTAIL_TESTS_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

/* Makes a new directory $TMPDIR/name.XXXXXX (/tmp without TMPDIR) and puts
 * its path in buf (cap bytes); returns 0 or -1. */
static inline int tmpdir_make(char *buf, size_t cap, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(buf, cap, "%s/%s.XXXXXX", tmp && tmp[0] ? tmp : "/tmp", name);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    return mkdtemp(buf) ? 0 : -1;
}

static inline int tmpdir_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes path and everything under it (symlinks themselves, not what
 * they point at); returns 0 or -1. */
static inline int tmpdir_remove(const char *path)
{
    return nftw(path, tmpdir_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
