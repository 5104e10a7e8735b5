/* outpath.c: resolving and checking an outfile's destination. */
#include "exec/sink/outpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As the kernel's limit on links followed in one lookup (MAXSYMLINKS). */
#define OUTPATH_MAX_LINKS 40

int outpath_is_stdout(const char *path)
{
    return path[0] == '-' && path[1] == '\0';
}

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* The length of path's directory part including its '/', 0 for none. */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path + 1) : 0;
}

/* Replaces the link at cur by its target (relative to the link's directory). */
static int follow_link(outpath_t *op, char *cur, err_t *e)
{
    char to[OUTPATH_MAX];
    ssize_t n = readlink(cur, to, sizeof to);
    if (n < 0)
        return err_set(e, ERR_IO, "outfile %s: reading the link %s: %s", op->given, cur,
                       strerror(errno));
    if ((size_t)n >= sizeof to)
        return err_set(e, ERR_IO, "outfile %s: the link %s is too long", op->given, cur);
    to[n] = '\0';
    size_t keep = to[0] == '/' ? 0 : dir_len(cur);
    if (keep + (size_t)n >= OUTPATH_MAX)
        return err_set(e, ERR_IO, "outfile %s: path too long following %s", op->given, cur);
    memcpy(cur + keep, to, (size_t)n + 1);
    return 0;
}

/* A new file: its directory must exist, or the write fails only at the end. */
static int check_dir(const outpath_t *op, err_t *e)
{
    size_t n = dir_len(op->target);
    char dir[OUTPATH_MAX];
    if (n == 0) {
        dir[0] = '.';
        dir[1] = '\0';
    } else {
        memcpy(dir, op->target, n);
        dir[n] = '\0';
    }
    struct stat st;
    if (stat(dir, &st) < 0)
        return err_set(e, ERR_IO, "outfile %s: directory %s: %s", op->given, dir,
                       strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return err_set(e, ERR_IO, "outfile %s: %s is not a directory", op->given, dir);
    return 0;
}

int outpath_resolve(outpath_t *op, const char *path, const char *given, err_t *e)
{
    op->given = given;
    op->exists = 0;
    op->mode = 0644;
    char *cur = op->target;
    if (snprintf(cur, OUTPATH_MAX, "%s", path) >= OUTPATH_MAX)
        return err_set(e, ERR_IO, "outfile %s: path too long", given);
    for (int links = 0;; links++) {
        struct stat st;
        if (lstat(cur, &st) < 0) {
            if (errno != ENOENT)
                return err_set(e, ERR_IO, "outfile %s: %s: %s", given, cur, strerror(errno));
            return check_dir(op, e);
        }
        if (S_ISREG(st.st_mode)) {
            op->exists = 1;
            op->mode = st.st_mode & 0777;   /* not set-id bits */
            return 0;
        }
        if (!S_ISLNK(st.st_mode)) {
            if (strcmp(cur, given) == 0)
                return err_set(e, ERR_IO, "outfile %s: is %s, not a regular file; not replaced",
                               given, kind_of(st.st_mode));
            return err_set(e, ERR_IO, "outfile %s: %s is %s, not a regular file; not replaced",
                           given, cur, kind_of(st.st_mode));
        }
        if (links == OUTPATH_MAX_LINKS)
            return err_set(e, ERR_IO, "outfile %s: more than %d symbolic links in a row", given,
                           OUTPATH_MAX_LINKS);
        if (follow_link(op, cur, e) < 0)
            return -1;
    }
}

int outpath_temp(const outpath_t *op, char *tmp, size_t cap, err_t *e)
{
    const char *t = op->target;
    int n = (int)dir_len(t);
    if (snprintf(tmp, cap, "%.*s.%s.XXXXXX", n, t, t + n) >= (int)cap) {
        tmp[0] = '\0';
        return err_set(e, ERR_IO, "outfile %s: path too long", op->given);
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        err_set(e, ERR_IO, "outfile %s: cannot create a temporary file beside %s: %s", op->given,
                t, strerror(errno));
        tmp[0] = '\0';
        return -1;
    }
    if (fchmod(fd, op->mode) < 0) {
        err_set(e, ERR_IO, "outfile %s: chmod %s: %s", op->given, tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        tmp[0] = '\0';
        return -1;
    }
    return fd;
}

int outpath_commit(const outpath_t *op, const char *tmp, err_t *e)
{
    if (rename(tmp, op->target) == 0)
        return 0;
    int err = errno;
    unlink(tmp);
    return err_set(e, ERR_IO, "outfile %s: cannot rename %s over %s: %s", op->given, tmp,
                   op->target, strerror(err));
}
