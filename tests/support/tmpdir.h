/* tmpdir.h: a test's own temporary directory, made fresh and removed with
 * everything in it (no shell: a name with a quote in it stays a name).
 * Header-only. */
#ifndef DTAIL_TESTS_TMPDIR_H
#define DTAIL_TESTS_TMPDIR_H

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Entries in dir other than . and .. (0 when it cannot be read). */
static inline int tmpdir_count(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)))
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

#endif
