/* logfile.c: see logfile.h. */
#include "base/logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fdio.h"

static int today(void)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

static void current_path(const logfile_t *lf, int day, char *out, size_t cap)
{
    if (lf->fixed[0])
        snprintf(out, cap, "%s", lf->fixed);
    else
        snprintf(out, cap, "%s/%08d.log", lf->dir, day);
}

static int open_append(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* The directory and its parents; an existing one is fine. */
static int make_dirs(const char *dir, err_t *e)
{
    char path[sizeof ((logfile_t *)0)->dir];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return err_set(e, ERR_IO, "cannot create log directory %s: %s", path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return err_set(e, ERR_IO, "cannot create log directory %s: %s", path, strerror(errno));
    return 0;
}

int logfile_open(logfile_t *lf, const char *dir, const char *name, err_t *e)
{
    lf->fd = -1;
    lf->len = 0;
    if (strlen(dir) >= sizeof lf->dir)
        return err_set(e, ERR_IO, "log directory name too long: %.64s...", dir);
    snprintf(lf->dir, sizeof lf->dir, "%s", dir);
    lf->fixed[0] = '\0';
    if (name)
        snprintf(lf->fixed, sizeof lf->fixed, "%s/%s.log", dir, name);
    if (make_dirs(dir, e) < 0)
        return -1;
    char path[sizeof lf->fixed];
    lf->day = today();
    current_path(lf, lf->day, path, sizeof path);
    lf->fd = open_append(path);
    if (lf->fd < 0)
        return err_set(e, ERR_IO, "cannot open log file %s: %s", path, strerror(errno));
    return 0;
}

/* The file the next write goes to: a daily file is replaced at a new date. */
static int current_fd(logfile_t *lf)
{
    if (lf->fixed[0])
        return lf->fd;
    int day = today();
    if (lf->fd >= 0 && lf->day == day)
        return lf->fd;
    char path[sizeof lf->fixed];
    current_path(lf, day, path, sizeof path);
    int fd = open_append(path);
    if (fd >= 0) {
        if (lf->fd >= 0)
            close(lf->fd);
        lf->fd = fd;
        lf->day = day;
    }
    return lf->fd;
}

static void write_out(logfile_t *lf, const char *p, size_t n)
{
    int fd = current_fd(lf);
    if (fd >= 0)
        (void)fdio_write_all(fd, p, n);
}

void logfile_flush(logfile_t *lf)
{
    if (lf->len == 0)
        return;
    write_out(lf, lf->buf, lf->len);
    lf->len = 0;
}

void logfile_append(logfile_t *lf, const char *p, size_t n)
{
    if (lf->len + n > sizeof lf->buf)
        logfile_flush(lf);
    if (n > sizeof lf->buf) {
        write_out(lf, p, n);
        return;
    }
    memcpy(lf->buf + lf->len, p, n);
    lf->len += n;
}

int logfile_reopen(logfile_t *lf, err_t *e)
{
    logfile_flush(lf);
    char path[sizeof lf->fixed];
    int day = today();
    current_path(lf, day, path, sizeof path);
    int fd = open_append(path);
    if (fd < 0)
        return err_set(e, ERR_IO, "cannot reopen log file %s: %s", path, strerror(errno));
    if (lf->fd >= 0)
        close(lf->fd);
    lf->fd = fd;
    lf->day = day;
    return 0;
}

void logfile_close(logfile_t *lf)
{
    logfile_flush(lf);
    if (lf->fd >= 0)
        close(lf->fd);
    lf->fd = -1;
}
