/* follow.c: see follow.h. */
#include "exec/scan/follow.h"
#include "exec/scan/follow_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A rotated-away file is left once it has not changed for this long: a
 * writer may still finish its last lines there before it reopens. */
#define FOLLOW_GRACE_MS 300
/* While the grace runs, the source wants a look this often. */
#define FOLLOW_GRACE_POLL_MS 50
/* While a file is read without reaching its end, the path is still looked
 * at this often. */
#define FOLLOW_LOOK_BUSY_MS 100
/* The last bytes read are kept and FOLLOW_TAIL_CHECK of them compared
 * with the file's bytes at the same place after every wait: a truncation
 * followed at once by growth to or past the old offset leaves the size as
 * it was, and only the content shows that the file was rewritten. All of
 * them are what a copytruncate's copy must hold right before the offset
 * to be taken for the copy (follow_copy.h). */
#define FOLLOW_TAIL_KEEP 4096
#define FOLLOW_TAIL_CHECK 64
/* After a truncation the file's first bytes are kept until the first read
 * from its start: if they are no longer there, the file was truncated
 * again before anything of it was read, and they tell its copy. */
#define FOLLOW_HEAD_KEEP 256
/* Files held for reading after the current one: rotations that came
 * before it was finished. Beyond this many the path waits for a look. */
#define FOLLOW_MAX_HELD 64
/* Copies of truncated contents read lately (see copies_read): as many as
 * copies are looked at (follow_copy.c), since a follower far behind reads
 * that many, all made within one clock tick when they are small. */
#define FOLLOW_COPIES_KEPT 32
/* Files finished lately, so one seen again under its rotated name is not
 * read a second time. */
#define FOLLOW_RECENT 16
/* Bytes read this lately before a truncation: a writer was busy, and may
 * have written what the truncation destroyed before it could be read. */
#define FOLLOW_BUSY_WRITER_MS 1000

typedef struct held {
    int fd;
    dev_t dev;
    ino_t ino;
    unsigned long long ord;   /* arrivals counted when it left the path
                                 (its place in the path's history);
                                 ULLONG_MAX while it may still be there */
    unsigned long long seq;   /* order in which it was found */
} held_t;

struct follow {
    char *path;               /* the followed path */
    follow_opts_t o;          /* options */
    int fd;                   /* the file being read; -1 while waiting for one */
    dev_t dev;                /* its identity */
    ino_t ino;
    long long pos;            /* bytes read from fd */
    char last;                /* last byte handed out */
    int owe_newline;          /* a '\n' ends a rotated file's last line */
    int owe_cut;              /* INPUT_CUT is due: a truncation cut a line */
    held_t held[FOLLOW_MAX_HELD]; /* files to read after fd, oldest first */
    size_t n_held;
    unsigned long long seq;   /* files found so far */
    /* Finished files that still had a name: a rename of one that an
     * event tells late is not a new file. A finished file without a name
     * is not kept: its inode number is free for the next file created. */
    struct { dev_t dev; ino_t ino; struct timespec born; } recent[FOLLOW_RECENT];
    size_t n_recent;
    int rotating;             /* at the end of the old file with a next
                                 one held: the grace runs */
    struct timespec rotated;  /* when the grace began */
    struct timespec looked;   /* when the path was last looked at */
    char tail[FOLLOW_TAIL_KEEP];   /* the last bytes read from fd, ending at pos */
    size_t tail_len;
    /* The copy a copytruncate made of fd's content, read before fd's new
     * content from its start: -1 when none. */
    int copy_fd;
    struct timespec copy_born;     /* its creation time: a later copy is
                                      of a content that came after it */
    /* The copies read lately: creation times are coarse (a clock tick),
     * so a copy made in the same tick as the last one read is looked at
     * too, and must not be one read already. */
    struct { dev_t dev; ino_t ino; } copies_read[FOLLOW_COPIES_KEPT];
    size_t n_copies_read;
    char head[FOLLOW_HEAD_KEEP];   /* fd's first bytes, while pos is 0 after a
                                      truncation and none were read yet */
    size_t head_len;
    int look_later_copy;           /* the file was empty when the copy was
                                      finished: at the first read from its
                                      start, look for a later copy */
    /* fd's first bytes as read (also before the offset a follow began
     * at): a copy that ends more than the tail before the offset read is
     * known by them. start_len is min(pos, FOLLOW_HEAD_KEEP), or 0. */
    char start[FOLLOW_HEAD_KEEP];
    size_t start_len;
    int woke;                 /* INPUT_AGAIN was returned: check fd before reading on */
    struct timespec got;      /* when bytes were last read */
    /* The same on the clock file times are in: a copy made later than
     * this is of a content that came after the one read. */
    struct timespec got_wall;
    int missing_at_start;     /* no file at the path when following began */
    int ever_opened;          /* a file was read */
    unsigned long long arrivals;   /* files an event saw arrive at the path */
    unsigned long long found;      /* files found at the path after the start */
    follow_stats_t stats;
};

static long long ms_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* The clock files' times are taken from (coarse: a clock tick): a file
 * created after this call has a creation time no earlier than it. */
static struct timespec wall_now(void)
{
    struct timespec t;
#ifdef CLOCK_REALTIME_COARSE
    clock_gettime(CLOCK_REALTIME_COARSE, &t);
#else
    clock_gettime(CLOCK_REALTIME, &t);
#endif
    return t;
}

static int stopping(const follow_t *f)
{
    return f->o.stop && *f->o.stop;
}

static void tell(follow_t *f, const char *fmt, unsigned long long n)
{
    if (!f->o.notice)
        return;
    char what[256];
    snprintf(what, sizeof what, fmt, n);
    f->o.notice(f->o.notice_ctx, f->path, what);
}

static int open_path(const follow_t *f, const char *path)
{
    return f->o.open ? f->o.open(f->o.open_ctx, path) : open(path, O_RDONLY | O_CLOEXEC);
}

/* Creation time (statx), zero where the filesystem keeps none: with it an
 * inode number used again for a new file is told from the old file. */
static struct timespec birth_time(int fd)
{
    struct timespec t = {0, 0};
#ifdef STATX_BTIME
    struct statx sx;
    if (statx(fd, "", AT_EMPTY_PATH, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME)) {
        t.tv_sec = (time_t)sx.stx_btime.tv_sec;
        t.tv_nsec = (long)sx.stx_btime.tv_nsec;
    }
#else
    (void)fd;
#endif
    return t;
}

static int same_birth(struct timespec a, struct timespec b)
{
    int a_known = a.tv_sec || a.tv_nsec, b_known = b.tv_sec || b.tv_nsec;
    return !a_known || !b_known || (a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec);
}

/* Whether the file (dev, ino) is one this source reads or holds: their
 * descriptors are open, so their inode numbers are theirs alone. */
static int held_or_read(const follow_t *f, dev_t dev, ino_t ino)
{
    if (f->fd >= 0 && f->dev == dev && f->ino == ino)
        return 1;
    for (size_t i = 0; i < f->n_held; i++)
        if (f->held[i].dev == dev && f->held[i].ino == ino)
            return 1;
    return 0;
}

/* ... or one it finished (born: the candidate's creation time). */
static int known(const follow_t *f, dev_t dev, ino_t ino, struct timespec born)
{
    if (held_or_read(f, dev, ino))
        return 1;
    for (size_t i = 0; i < f->n_recent; i++)
        if (f->recent[i].dev == dev && f->recent[i].ino == ino &&
            same_birth(f->recent[i].born, born))
            return 1;
    return 0;
}

static void remember_finished(follow_t *f)
{
    struct stat st;
    if (fstat(f->fd, &st) < 0 || st.st_nlink == 0)
        return;
    if (f->n_recent == FOLLOW_RECENT) {
        memmove(f->recent, f->recent + 1, (FOLLOW_RECENT - 1) * sizeof f->recent[0]);
        f->n_recent--;
    }
    f->recent[f->n_recent].dev = f->dev;
    f->recent[f->n_recent].ino = f->ino;
    f->recent[f->n_recent].born = birth_time(f->fd);
    f->n_recent++;
}

/* Whether a comes before b at the path: a file that left it came before
 * every file that left it later and before the one still there; files
 * whose leaving no event told are in the order looks found them. */
static int held_before(const held_t *a, const held_t *b)
{
    return a->ord != b->ord ? a->ord < b->ord : a->seq < b->seq;
}

static void place(follow_t *f, size_t i)
{
    held_t h = f->held[i];
    memmove(f->held + i, f->held + i + 1, (f->n_held - i - 1) * sizeof h);
    size_t at = f->n_held - 1;
    while (at > 0 && held_before(&h, &f->held[at - 1]))
        at--;
    memmove(f->held + at + 1, f->held + at, (f->n_held - 1 - at) * sizeof h);
    f->held[at] = h;
}

/* Opens path and, if it is a regular file this source does not know,
 * holds it for reading after the current one. Returns 1 when held. */
static int hold(follow_t *f, const char *path, unsigned long long ord)
{
    if (f->n_held == FOLLOW_MAX_HELD)
        return 0;
    int fd = open_path(f, path);
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        known(f, st.st_dev, st.st_ino, birth_time(fd))) {
        close(fd);
        return 0;
    }
    f->held[f->n_held++] = (held_t){.fd = fd, .dev = st.st_dev, .ino = st.st_ino,
                                    .ord = ord, .seq = f->seq++};
    place(f, f->n_held - 1);
    f->found++;
    return 1;
}

/* Opens the path as the file to read; from_start or at its end. Returns 1
 * when opened, 0 when there is no regular file there (yet), -1 on error. */
static int open_current(follow_t *f, int from_start, err_t *e)
{
    int fd = open_path(f, f->path);
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
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->pos = 0;
    f->tail_len = 0;
    f->start_len = 0;
    f->head_len = 0;
    f->look_later_copy = 0;
    f->rotating = 0;
    f->seq++;
    f->got_wall = wall_now();   /* copies made before are of contents before */
    if (!from_start) {
        off_t end = lseek(fd, 0, SEEK_END);
        f->pos = end > 0 ? (long long)end : 0;
        /* As if read: a truncation before the first read is then told
         * by content too, and its copy found. */
        size_t want = f->pos < FOLLOW_TAIL_KEEP ? (size_t)f->pos : FOLLOW_TAIL_KEEP;
        ssize_t n = want ? pread(fd, f->tail, want, (off_t)(f->pos - (long long)want)) : 0;
        f->tail_len = n == (ssize_t)want ? want : 0;
        want = f->pos < FOLLOW_HEAD_KEEP ? (size_t)f->pos : FOLLOW_HEAD_KEEP;
        n = want ? pread(fd, f->start, want, 0) : 0;
        f->start_len = n == (ssize_t)want ? want : 0;
    }
    return 1;
}

/* Holds the file the path names now if it is not one this source knows:
 * opened as soon as it is seen, so a second rotation before the old file
 * is finished cannot take it away. */
static void note_path(follow_t *f)
{
    clock_gettime(CLOCK_MONOTONIC, &f->looked);
    if (f->fd < 0)
        return;
    struct stat st;
    if (stat(f->path, &st) < 0 || held_or_read(f, st.st_dev, st.st_ino))
        return;
    hold(f, f->path, ULLONG_MAX);
}

/* Leaves the old file for the oldest held one, read from its start. */
static void switch_to_next(follow_t *f)
{
    remember_finished(f);
    close(f->fd);
    held_t h = f->held[0];
    memmove(f->held, f->held + 1, (f->n_held - 1) * sizeof h);
    f->n_held--;
    f->fd = h.fd;
    f->dev = h.dev;
    f->ino = h.ino;
    f->pos = 0;
    f->tail_len = 0;
    f->start_len = 0;
    f->head_len = 0;
    f->look_later_copy = 0;
    f->rotating = 0;
    if (f->last != '\n')
        f->owe_newline = 1;
    f->stats.rotations++;
    tell(f, "file rotated; following the new file", 0);
}

/* Remembers the last bytes of a read: they end at f->pos. */
static void keep_tail(follow_t *f, const char *buf, size_t n)
{
    if (n >= FOLLOW_TAIL_KEEP) {
        memcpy(f->tail, buf + n - FOLLOW_TAIL_KEEP, FOLLOW_TAIL_KEEP);
        f->tail_len = FOLLOW_TAIL_KEEP;
        return;
    }
    size_t keep = f->tail_len + n > FOLLOW_TAIL_KEEP ? FOLLOW_TAIL_KEEP - n : f->tail_len;
    memmove(f->tail, f->tail + f->tail_len - keep, keep);
    memcpy(f->tail + keep, buf, n);
    f->tail_len = keep + n;
}

/* Remembers fd's first bytes as they are read (buf: read at f->pos). */
static void keep_start(follow_t *f, const char *buf, size_t n)
{
    if (f->start_len != (size_t)f->pos || f->pos >= FOLLOW_HEAD_KEEP)
        return;
    size_t take = FOLLOW_HEAD_KEEP - f->start_len < n ? FOLLOW_HEAD_KEEP - f->start_len : n;
    memcpy(f->start + f->start_len, buf, take);
    f->start_len += take;
}

/* The files that are no copy to read: the source's own, and the copies
 * it read lately. */
static int ours(const void *ctx, dev_t dev, ino_t ino)
{
    const follow_t *f = ctx;
    if (held_or_read(f, dev, ino))
        return 1;
    size_t n = f->n_copies_read < FOLLOW_COPIES_KEPT ? f->n_copies_read : FOLLOW_COPIES_KEPT;
    for (size_t i = 0; i < n; i++)
        if (f->copies_read[i].dev == dev && f->copies_read[i].ino == ino)
            return 1;
    return 0;
}

static copy_query_t copy_query(const follow_t *f)
{
    return (copy_query_t){.path = f->path,
                          .open = f->o.open_candidate ? f->o.open_candidate : f->o.open,
                          .open_ctx = f->o.open_ctx,
                          .ours = ours, .ours_ctx = f};
}

/* "; anything written after byte N before the truncation was lost": what
 * a busy writer put there after the last byte kept (read, or in the copy)
 * is gone, and no one can say how much. Said, not hidden. */
static int tell_lost_after(char *what, size_t cap, int n, long long kept)
{
    if (n < 0 || (size_t)n >= cap)
        return n;
    return n + snprintf(what + n, cap - (size_t)n,
                        "; anything written after byte %lld before the truncation was lost", kept);
}

/* Reads c (the copy of what the truncated file held) before the file's
 * new content. */
static void read_copy(follow_t *f, const copy_found_t *c)
{
    f->copy_fd = c->fd;
    f->copy_born = c->born;
    struct stat st;
    if (fstat(c->fd, &st) == 0) {
        size_t i = f->n_copies_read++ % FOLLOW_COPIES_KEPT;
        f->copies_read[i].dev = st.st_dev;
        f->copies_read[i].ino = st.st_ino;
    }
}

/* The truncation left the file's unread end at `was`..: read it from a
 * copy if there is one. Returns 1 when found (and told). */
static int recover_from_copy(follow_t *f, long long was)
{
    copy_query_t q = copy_query(f);
    copy_read_t r = {.at = was, .tail = f->tail, .tail_len = f->tail_len,
                     .start = f->start, .start_len = f->start_len};
    copy_found_t c;
    if (!copy_find_end(&q, &r, &c))
        return 0;
    /* A copy with nothing after `was` (also one that ends before it: the
     * lines after its end were read from the file) adds no line, and is
     * told as no copy is; it is still "read" (at its end at once): a later
     * copy is one made after it. */
    read_copy(f, &c);
    char what[512], end = f->last;
    int n = snprintf(what, sizeof what, "file truncated");
    if (c.size > was) {
        f->stats.copies++;
        n += snprintf(what + n, sizeof what - (size_t)n,
                      "; what it held after byte %lld is read from its copy %s", was, c.name);
        if (pread(c.fd, &end, 1, (off_t)(c.size - 1)) != 1)
            end = '\n';
    }
    if (end != '\n')   /* dropped at the copy's end (finish_copy) */
        n += snprintf(what + n, sizeof what - (size_t)n, "; its unfinished last line was dropped");
    /* A copy holding what was not read yet: the writer was at work after
     * the last read (maybe the first: a follow that began at the end),
     * and may have gone on until the truncation. */
    if (c.size > was || ms_since(&f->got) < FOLLOW_BUSY_WRITER_MS)
        tell_lost_after(what, sizeof what, n, c.size > was ? c.size : was);
    if (f->o.notice)
        f->o.notice(f->o.notice_ctx, f->path, what);
    return 1;
}

/* Reading goes on at the file's start: its first bytes are kept, to see
 * whether they are still there when it is read (truncated_before_read).
 * Nothing to keep: what comes may be truncated before it is read, and
 * only a copy made later can tell (later_copy_before_read). */
static void keep_head(follow_t *f)
{
    ssize_t n = pread(f->fd, f->head, sizeof f->head, 0);
    f->head_len = n > 0 ? (size_t)n : 0;
    f->look_later_copy = f->head_len == 0;
}

/* No copy of the truncated content was found: a copy made after its last
 * byte was read (or after the copy read last) is of a content that came
 * later, and went before it was read if it is not the file's now. */
static void no_copy_found(follow_t *f)
{
    if (f->copy_born.tv_sec < f->got_wall.tv_sec ||
        (f->copy_born.tv_sec == f->got_wall.tv_sec && f->copy_born.tv_nsec < f->got_wall.tv_nsec))
        f->copy_born = f->got_wall;
    keep_head(f);
}

/* A content the file held after the last truncation was truncated too
 * before any of it was read: read from its copy c (1), or lost (0). */
static void tell_truncated_unread(follow_t *f, const copy_found_t *c)
{
    f->stats.truncations++;
    char what[512];
    int n = snprintf(what, sizeof what, "file truncated again before what it held could be read");
    if (c)
        n += snprintf(what + n, sizeof what - (size_t)n, "; reading it from its copy %s", c->name);
    tell_lost_after(what, sizeof what, n, c ? c->size : 0);
    if (f->o.notice)
        f->o.notice(f->o.notice_ctx, f->path, what);
}

/* The copy is read to its end: a line it left unfinished is dropped (the
 * truncation took its end); a later copy, of a content the file held
 * after this one and lost before it was read, is read next. */
static void finish_copy(follow_t *f)
{
    close(f->copy_fd);
    f->copy_fd = -1;
    if (f->last != '\n') {
        f->owe_cut = 1;
        f->last = '\n';
        f->stats.cut_lines++;
    }
    copy_query_t q = copy_query(f);
    copy_found_t c;
    if (!copy_find_next(&q, f->copy_born, f->fd, &c)) {
        keep_head(f);
        return;
    }
    read_copy(f, &c);
    tell_truncated_unread(f, &c);
}

/* The first read from the file's start after a copy was read, the file
 * empty then: a copy made since, of a content not the file's now, is of
 * one truncated before it was read; it is read first. Returns 1 then. */
static int later_copy_before_read(follow_t *f, err_t *e)
{
    f->look_later_copy = 0;
    copy_query_t q = copy_query(f);
    copy_found_t c;
    if (!copy_find_next(&q, f->copy_born, f->fd, &c))
        return 0;
    if (lseek(f->fd, 0, SEEK_SET) < 0) {
        close(c.fd);
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
    }
    read_copy(f, &c);
    tell_truncated_unread(f, &c);
    return 1;
}

/* The first read from the file's start after a truncation got buf[0..n):
 * are the bytes kept at the truncation still its start? If not, it was
 * truncated again before they were read: their copy is read from its
 * start instead (or they are told lost), and the file is read again from
 * its start after it. Returns 1 then, 0 when the file is as it was. */
static int truncated_before_read(follow_t *f, const char *buf, size_t n, err_t *e)
{
    size_t len = n < f->head_len ? n : f->head_len;
    int again = memcmp(buf, f->head, len) != 0;
    if (!again && n < f->head_len) {
        struct stat st;   /* shorter than it was: truncated since */
        again = fstat(f->fd, &st) == 0 && (long long)st.st_size < (long long)f->head_len;
    }
    size_t head_len = f->head_len;
    f->head_len = 0;
    if (!again)
        return 0;
    if (lseek(f->fd, 0, SEEK_SET) < 0)
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
    copy_query_t q = copy_query(f);
    copy_read_t r = {.at = (long long)head_len, .tail = f->head, .tail_len = head_len};
    copy_found_t c;
    if (copy_find_end(&q, &r, &c)) {
        if (lseek(c.fd, 0, SEEK_SET) == 0) {
            read_copy(f, &c);
            tell_truncated_unread(f, &c);
            return 1;
        }
        close(c.fd);
    }
    tell_truncated_unread(f, NULL);
    no_copy_found(f);
    return 1;
}

/* Was the open file truncated since the last read: is it shorter than
 * what was read, or are the bytes before f->pos no longer those read
 * (truncated and written again past the old offset)? Then reading starts
 * again at its start, after what a copy of the old content holds past
 * f->pos (copytruncate); without a copy a line it cut is dropped. Returns
 * 1 when it restarted, 0 when the file is as it was, -1 on an error. */
static int restart_if_truncated(follow_t *f, err_t *e)
{
    struct stat st;
    if (fstat(f->fd, &st) < 0)
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
    int truncated = (long long)st.st_size < f->pos;
    if (!truncated && f->tail_len > 0) {
        char now[FOLLOW_TAIL_CHECK];
        size_t len = f->tail_len < FOLLOW_TAIL_CHECK ? f->tail_len : FOLLOW_TAIL_CHECK;
        ssize_t n = pread(f->fd, now, len, (off_t)(f->pos - (long long)len));
        if (n < 0)
            return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
        /* A short read: the file shrank after the fstat. */
        truncated = (size_t)n != len || memcmp(now, f->tail + f->tail_len - len, len) != 0;
    }
    if (!truncated)
        return 0;
    if (lseek(f->fd, 0, SEEK_SET) < 0)
        return err_set(e, ERR_INPUT, "%s: %s", f->path, strerror(errno));
    long long was = f->pos;
    f->stats.truncations++;
    int copied = recover_from_copy(f, was);
    f->pos = 0;
    f->tail_len = 0;
    f->start_len = 0;
    if (copied)
        return 1;
    no_copy_found(f);
    char what[256];
    int n = snprintf(what, sizeof what, "file truncated");
    if (f->last != '\n') {
        f->owe_cut = 1;
        f->last = '\n';
        f->stats.cut_lines++;
        n += snprintf(what + n, sizeof what - (size_t)n, "; its unfinished last line was dropped");
    }
    /* (A copytruncate whose copy was not found: what came after the last
     * read is only there, or, written during the copy, nowhere.) */
    if (ms_since(&f->got) < FOLLOW_BUSY_WRITER_MS)
        tell_lost_after(what, sizeof what, n, was);
    if (f->o.notice)
        f->o.notice(f->o.notice_ctx, f->path, what);
    return 1;
}

/* Whether the old file has not changed for the grace period: by its
 * modification time (a file finished long ago is left at once), or since
 * the source found itself at its end with a next file held. */
static int grace_over(follow_t *f)
{
    if (ms_since(&f->rotated) >= FOLLOW_GRACE_MS)
        return 1;
    struct stat st;
    struct timespec now;
    if (fstat(f->fd, &st) < 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
        return 0;
    long long idle = (long long)(now.tv_sec - st.st_mtim.tv_sec) * 1000 +
                     (now.tv_nsec - st.st_mtim.tv_nsec) / 1000000;
    return idle >= FOLLOW_GRACE_MS;
}

/* The file at the end: what changed at the path? Returns 1 when reading
 * should go on at once, 0 to wait, -1 on an error. */
static int look(follow_t *f, err_t *e)
{
    if (f->fd < 0) {
        int rc = open_current(f, 1, e);
        clock_gettime(CLOCK_MONOTONIC, &f->looked);
        if (rc > 0) {
            f->found++;
            if (f->ever_opened || f->missing_at_start)
                tell(f, "file appeared; following it", 0);
            f->ever_opened = 1;
        }
        return rc;
    }
    note_path(f);
    if (f->n_held > 0) {
        if (!f->rotating) {
            f->rotating = 1;
            clock_gettime(CLOCK_MONOTONIC, &f->rotated);
        }
        /* What the writer put there since the read that found the end. */
        int rc = restart_if_truncated(f, e);
        if (rc != 0)
            return rc;
        struct stat st;
        if (fstat(f->fd, &st) == 0 && (long long)st.st_size > f->pos)
            return 1;
        if (!grace_over(f))
            return 0;
        switch_to_next(f);
        return 1;
    }
    return restart_if_truncated(f, e);
}

static ssize_t follow_read(void *ctx, char *buf, size_t cap, err_t *e)
{
    follow_t *f = ctx;
    for (;;) {
        if (stopping(f))
            return 0;
        if (f->owe_cut) {
            f->owe_cut = 0;
            return INPUT_CUT;
        }
        if (f->owe_newline) {
            f->owe_newline = 0;
            f->last = '\n';
            buf[0] = '\n';
            return 1;
        }
        if (f->copy_fd >= 0) {
            /* Not the file's bytes: f->pos and the tail stay at its start. */
            ssize_t n = read(f->copy_fd, buf, cap);
                    if (n > 0) {
                f->last = buf[n - 1];
                return n;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                tell(f, "the copy of the truncated file could not be read to its end", 0);
            finish_copy(f);
            continue;
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
            if (n > 0 && (f->head_len > 0 || f->look_later_copy)) {
                int rc = f->head_len > 0 ? truncated_before_read(f, buf, (size_t)n, e)
                                         : later_copy_before_read(f, e);
                if (rc < 0)
                    return -1;
                if (rc > 0)
                    continue;
            }
            if (n > 0) {
                keep_start(f, buf, (size_t)n);
                f->pos += n;
                f->last = buf[n - 1];
                clock_gettime(CLOCK_MONOTONIC, &f->got);
                f->got_wall = wall_now();
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
        f->woke = 1;
        return INPUT_AGAIN;
    }
}

static void follow_close(void *ctx)
{
    follow_t *f = ctx;
    if (f->fd >= 0)
        close(f->fd);
    if (f->copy_fd >= 0)
        close(f->copy_fd);
    for (size_t i = 0; i < f->n_held; i++)
        close(f->held[i].fd);
    free(f->path);
    free(f);
}

void follow_arrived(follow_t *f)
{
    f->arrivals++;
    note_path(f);
}

void follow_departed(follow_t *f, const char *now)
{
    if (f->fd < 0)
        return;
    struct stat st;
    if (stat(now, &st) < 0)
        return;   /* gone already: follow_settle counts it */
    for (size_t i = 0; i < f->n_held; i++)
        if (f->held[i].dev == st.st_dev && f->held[i].ino == st.st_ino) {
            f->held[i].ord = f->arrivals;
            place(f, i);
            return;
        }
    hold(f, now, f->arrivals);
}

int follow_wants_ms(const follow_t *f)
{
    if (f->owe_cut || f->owe_newline || f->copy_fd >= 0)
        return 0;
    if (f->rotating || f->n_held > 0)
        return FOLLOW_GRACE_POLL_MS;
    return -1;
}

void follow_resync(follow_t *f)
{
    f->arrivals = f->found;
}

void follow_settle(follow_t *f)
{
    /* Each arrival an event saw is a file; each file found at the path
     * since the start is one of them. More arrivals than files found:
     * files came and went between two looks. */
    if (f->arrivals > f->found) {
        unsigned long long lost = f->arrivals - f->found;
        if (lost > f->stats.files_lost) {
            tell(f, "%llu rotated file(s) lost: deleted or replaced before they could be "
                    "opened; their lines were not read", lost - f->stats.files_lost);
            f->stats.files_lost = lost;
        }
    }
}

const follow_stats_t *follow_stats(const follow_t *f)
{
    return &f->stats;
}

const char *follow_path(const follow_t *f)
{
    return f->path;
}

input_t *follow_open(const char *path, const follow_opts_t *o, follow_t **out, err_t *e)
{
    follow_t *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        err_set(e, ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    f->o = *o;
    f->fd = -1;
    f->copy_fd = -1;
    f->last = '\n';
    int rc = open_current(f, o->from_start, e);
    if (rc < 0) {
        follow_close(f);
        return NULL;
    }
    f->ever_opened = rc > 0;
    f->missing_at_start = rc == 0 && !o->from_start;   /* reported by whoever named it */
    clock_gettime(CLOCK_MONOTONIC, &f->looked);
    input_source_t src = {f, follow_read, follow_close};
    input_t *in = input_open_source(&src, f->path, e);
    if (!in) {
        follow_close(f);
        return NULL;
    }
    if (out)
        *out = f;
    return in;
}
