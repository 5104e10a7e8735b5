/* follow.c: see follow.h. */
#include "exec/scan/follow.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FOLLOW_POLL_MS 250
/* Without inotify, looks come this often at the least. */
#define FOLLOW_POLL_NO_INOTIFY_MS 100
/* A rotated-away file is left once it has not grown for this long: a
 * writer may still finish its last lines there before it reopens. */
#define FOLLOW_GRACE_MS 300
#define FOLLOW_GRACE_POLL_MS 50
/* While a file is read without reaching its end, the path is still looked
 * at this often. */
#define FOLLOW_LOOK_BUSY_MS 100
/* The last bytes read are kept and compared with the file's bytes at the
 * same place after every wait: a truncation followed at once by growth to
 * or past the old offset leaves the size as it was, and only the content
 * shows that the file was rewritten. */
#define FOLLOW_TAIL_CHECK 64

typedef struct follow {
    char *path;               /* the followed path */
    follow_opts_t o;          /* options */
    int fd;                   /* the file being read; -1 while waiting for one */
    dev_t dev;                /* its identity */
    ino_t ino;
    long long pos;            /* bytes read from fd */
    char last;                /* last byte handed out */
    int owe_newline;          /* a '\n' ends a cut line before new bytes */
    int inotify_fd;           /* directory watch; -1 without inotify */
    int next_fd;              /* the file now at the path, once it names
                                 another file (rotation); -1 if none */
    dev_t next_dev;           /* its identity */
    ino_t next_ino;
    int rotating;             /* at the end of the old file with a next
                                 one waiting: the grace runs */
    struct timespec rotated;  /* when the grace began */
    struct timespec looked;   /* when the path was last looked at */
    char tail[FOLLOW_TAIL_CHECK];  /* the last bytes read from fd, ending at pos */
    size_t tail_len;
    int woke;                 /* a wait ended: check fd before reading on */
} follow_t;

static long long ms_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

static int stopping(const follow_t *f)
{
    return f->o.stop && *f->o.stop;
}

static int open_path(const follow_t *f)
{
    return f->o.open ? f->o.open(f->o.open_ctx, f->path) : open(f->path, O_RDONLY | O_CLOEXEC);
}

/* Opens the path as the file to read; from_start or at its end. Returns 1
 * when opened, 0 when there is no regular file there (yet), -1 on error. */
static int open_current(follow_t *f, int from_start, err_t *e)
{
    int fd = open_path(f);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int err = errno;
        close(fd);
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(e, ERR_INPUT, "%s: not a regular file, cannot be followed", f->path);
    }
    if (f->fd >= 0)
        close(f->fd);
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->pos = 0;
    f->tail_len = 0;
    f->rotating = 0;
    if (!from_start) {
        off_t end = lseek(fd, 0, SEEK_END);
        f->pos = end > 0 ? (long long)end : 0;
    }
    return 1;
}

/* Opens the file the path names now, if it is not the one being read, as
 * the next file: it is opened as soon as it is seen, so a second rotation
 * before the old file is finished cannot take it away. */
static void note_path(follow_t *f)
{
    clock_gettime(CLOCK_MONOTONIC, &f->looked);
    if (f->fd < 0 || f->next_fd >= 0)
        return;
    struct stat st;
    if (stat(f->path, &st) < 0 || (st.st_dev == f->dev && st.st_ino == f->ino))
        return;
    int fd = open_path(f);
    struct stat fst;
    if (fd < 0)
        return;
    if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) ||
        (fst.st_dev == f->dev && fst.st_ino == f->ino)) {
        close(fd);
        return;
    }
    f->next_fd = fd;
    f->next_dev = fst.st_dev;
    f->next_ino = fst.st_ino;
}

/* Leaves the old file for the next one, read from its start. */
static void switch_to_next(follow_t *f)
{
    close(f->fd);
    f->fd = f->next_fd;
    f->dev = f->next_dev;
    f->ino = f->next_ino;
    f->next_fd = -1;
    f->pos = 0;
    f->tail_len = 0;
    f->rotating = 0;
    if (f->last != '\n')
        f->owe_newline = 1;
}

/* Remembers the last bytes of a read: they end at f->pos. */
static void keep_tail(follow_t *f, const char *buf, size_t n)
{
    if (n >= FOLLOW_TAIL_CHECK) {
        memcpy(f->tail, buf + n - FOLLOW_TAIL_CHECK, FOLLOW_TAIL_CHECK);
        f->tail_len = FOLLOW_TAIL_CHECK;
        return;
    }
    size_t keep = f->tail_len + n > FOLLOW_TAIL_CHECK ? FOLLOW_TAIL_CHECK - n : f->tail_len;
    memmove(f->tail, f->tail + f->tail_len - keep, keep);
    memcpy(f->tail + keep, buf, n);
    f->tail_len = keep + n;
}

/* Was the open file truncated since the last read: is it shorter than
 * what was read, or are the bytes before f->pos no longer those read
 * (truncated and written again past the old offset)? Then reading starts
 * again at its start, after a '\n' for a cut line. Returns 1 when it
 * restarted, 0 when the file is as it was, -1 on an error. */
static int restart_if_truncated(follow_t *f, err_t *e)
{
    struct stat st;
    if (fstat(f->fd, &st) < 0)
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
    int truncated = (long long)st.st_size < f->pos;
    if (!truncated && f->tail_len > 0) {
        char now[FOLLOW_TAIL_CHECK];
        ssize_t n = pread(f->fd, now, f->tail_len, (off_t)(f->pos - (long long)f->tail_len));
        if (n < 0)
            return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
        /* A short read: the file shrank after the fstat. */
        truncated = (size_t)n != f->tail_len || memcmp(now, f->tail, f->tail_len) != 0;
    }
    if (!truncated)
        return 0;
    if (lseek(f->fd, 0, SEEK_SET) < 0)
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
    f->pos = 0;
    f->tail_len = 0;
    if (f->last != '\n')
        f->owe_newline = 1;
    return 1;
}

/* The file at the end: what changed at the path? Returns 1 when reading
 * should go on at once, 0 to wait, -1 on an error. */
static int look(follow_t *f, err_t *e)
{
    if (f->fd < 0) {
        int rc = open_current(f, 1, e);
        clock_gettime(CLOCK_MONOTONIC, &f->looked);
        return rc;
    }
    note_path(f);
    if (f->next_fd >= 0) {
        if (!f->rotating) {
            f->rotating = 1;
            clock_gettime(CLOCK_MONOTONIC, &f->rotated);
            return 0;
        }
        if (ms_since(&f->rotated) < FOLLOW_GRACE_MS)
            return 0;
        switch_to_next(f);
        return 1;
    }
    return restart_if_truncated(f, e);
}

static void wait_for_change(follow_t *f)
{
    int ms = f->o.poll_ms > 0 ? f->o.poll_ms : FOLLOW_POLL_MS;
    if (f->rotating && ms > FOLLOW_GRACE_POLL_MS)
        ms = FOLLOW_GRACE_POLL_MS;
    if (f->inotify_fd < 0) {
        if (ms > FOLLOW_POLL_NO_INOTIFY_MS)
            ms = FOLLOW_POLL_NO_INOTIFY_MS;
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        return;
    }
    struct pollfd p = {.fd = f->inotify_fd, .events = POLLIN};
    if (poll(&p, 1, ms) > 0) {
        /* The events only wake us; what changed is looked up afresh. */
        char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        while (read(f->inotify_fd, ev, sizeof ev) > 0)
            ;
    }
}

static ssize_t follow_read(void *ctx, char *buf, size_t cap, err_t *e)
{
    follow_t *f = ctx;
    for (;;) {
        if (stopping(f))
            return 0;
        if (f->owe_newline) {
            f->owe_newline = 0;
            f->last = '\n';
            buf[0] = '\n';
            return 1;
        }
        if (f->fd >= 0 && f->woke) {
            /* What was appended during the wait may stand where a
             * truncation put new content: check before reading on. */
            f->woke = 0;
            int rc = restart_if_truncated(f, e);
            if (rc < 0)
                return -1;
            if (rc > 0)
                continue;
        }
        if (f->fd >= 0) {
            ssize_t n = read(f->fd, buf, cap);
            if (n > 0) {
                f->pos += n;
                f->last = buf[n - 1];
                keep_tail(f, buf, (size_t)n);
                f->rotating = 0;   /* the old file still grows: the grace restarts */
                /* A busy file is never at its end: look at the path now
                 * and then anyway, so the next file is held early. */
                if (ms_since(&f->looked) >= FOLLOW_LOOK_BUSY_MS)
                    note_path(f);
                return n;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
        }
        int rc = look(f, e);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue;
        if (f->o.idle)
            f->o.idle(f->o.idle_ctx);
        if (stopping(f))
            return 0;
        wait_for_change(f);
        f->woke = 1;
    }
}

static void follow_close(void *ctx)
{
    follow_t *f = ctx;
    if (f->fd >= 0)
        close(f->fd);
    if (f->next_fd >= 0)
        close(f->next_fd);
    if (f->inotify_fd >= 0)
        close(f->inotify_fd);
    free(f->path);
    free(f);
}

/* Watches the directory, not the file: a rotation replaces the file. */
static void watch_directory(follow_t *f)
{
    f->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (f->inotify_fd < 0)
        return;
    char *copy = strdup(f->path);
    if (!copy || inotify_add_watch(f->inotify_fd, dirname(copy),
                                   IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM |
                                       IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB) < 0) {
        close(f->inotify_fd);
        f->inotify_fd = -1;
    }
    free(copy);
}

input_t *follow_open(const char *path, const follow_opts_t *o, err_t *e)
{
    follow_t *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        err_set(e, ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    f->o = *o;
    f->fd = -1;
    f->next_fd = -1;
    f->inotify_fd = -1;
    f->last = '\n';
    if (open_current(f, o->from_start, e) < 0) {
        follow_close(f);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &f->looked);
    watch_directory(f);
    input_source_t src = {f, follow_read, follow_close};
    input_t *in = input_open_source(&src, f->path, e);
    if (!in)
        follow_close(f);
    return in;
}
