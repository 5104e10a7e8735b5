/* follow_copy.c: see follow_copy.h. Runs once per truncation, never per
 * line: the directory listing and the few opens are cheap at that rate. */
#include "exec/scan/follow_copy.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Candidates tried per look: the newest ones (or, for copy_find_next,
 * the oldest after the last copy read). A follower that a busy machine
 * kept from reading while the file was copied and truncated again and
 * again looks for a copy that has as many newer ones as there were
 * rotations meanwhile (9 seen at a copy every 20 ms): room for 32. */
#define COPY_MAX_CANDIDATES 32
/* Bytes compared of a candidate's start with the followed file's. */
#define COPY_HEAD_CHECK 4096
/* A copy that ends before the offset read must share this many bytes
 * (or all of a shorter tail) with what was read to be taken for its copy. */
#define COPY_OVERLAP_MIN 64

typedef struct cand {
    char name[NAME_MAX + 1];
    struct timespec born;
    struct timespec written;  /* its modification time */
    long long size;
    int named_like;           /* its name starts with the followed file's */
} cand_t;

typedef struct dir_look {
    char dir[PATH_MAX];
    const char *base;
    size_t base_len;
} dir_look_t;

static int split_path(const char *path, dir_look_t *d)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(d->dir, sizeof d->dir, ".");
        d->base = path;
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof d->dir)
            return -1;
        memcpy(d->dir, path, n);
        d->dir[n] = 0;
        d->base = slash + 1;
    }
    d->base_len = strlen(d->base);
    return d->base_len > 0 ? 0 : -1;
}

static int ts_before(struct timespec a, struct timespec b)
{
    return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

/* Size, identity and times of a regular file; -1 for anything else. */
static int file_facts(const char *full, cand_t *c, dev_t *dev, ino_t *ino, struct timespec *mtime)
{
#ifdef STATX_BTIME
    struct statx sx;
    if (statx(AT_FDCWD, full, 0, STATX_BASIC_STATS | STATX_BTIME, &sx) < 0 ||
        !S_ISREG(sx.stx_mode))
        return -1;
    *dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    *ino = (ino_t)sx.stx_ino;
    c->size = (long long)sx.stx_size;
    mtime->tv_sec = (time_t)sx.stx_mtime.tv_sec;
    mtime->tv_nsec = (long)sx.stx_mtime.tv_nsec;
    c->written = *mtime;
    c->born = *mtime;
    if (sx.stx_mask & STATX_BTIME) {
        c->born.tv_sec = (time_t)sx.stx_btime.tv_sec;
        c->born.tv_nsec = (long)sx.stx_btime.tv_nsec;
    }
#else
    struct stat st;
    if (stat(full, &st) < 0 || !S_ISREG(st.st_mode))
        return -1;
    *dev = st.st_dev;
    *ino = st.st_ino;
    c->size = (long long)st.st_size;
    *mtime = st.st_mtim;
    c->written = st.st_mtim;
    c->born = st.st_mtim;
#endif
    return 0;
}

static int ts_equal(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Whether a was made before b. Creation times are coarse (a clock tick),
 * and copies made in one tick have the same: then the one whose writing
 * ended first (a copy is finished before its content is truncated, the
 * next copy written after), then the name in version order (rotators
 * number or date their copies upwards: app.log.9 before app.log.10). Not
 * the inode number: a filesystem hands out freed ones again (ext4 the
 * lowest free), so a later copy often has a lower one. */
static int made_before(const cand_t *a, const cand_t *b)
{
    if (!ts_equal(a->born, b->born))
        return ts_before(a->born, b->born);
    if (!ts_equal(a->written, b->written))
        return ts_before(a->written, b->written);
    return strverscmp(a->name, b->name) < 0;
}

/* Whether a comes before b in the order candidates are tried: named like
 * the followed file first, then the newest first (oldest with `oldest`). */
static int tried_before(const cand_t *a, const cand_t *b, int oldest)
{
    if (a->named_like != b->named_like)
        return a->named_like;
    return oldest ? made_before(a, b) : made_before(b, a);
}

/* Keeps c among the first COPY_MAX_CANDIDATES in the order of trying. */
static void keep(cand_t *cs, size_t *n, const cand_t *c, int oldest)
{
    size_t at = *n;
    while (at > 0 && tried_before(c, &cs[at - 1], oldest))
        at--;
    if (at == COPY_MAX_CANDIDATES)
        return;
    size_t last = *n < COPY_MAX_CANDIDATES ? *n : COPY_MAX_CANDIDATES - 1;
    memmove(cs + at + 1, cs + at, (last - at) * sizeof *cs);
    cs[at] = *c;
    if (*n < COPY_MAX_CANDIDATES)
        (*n)++;
}

/* The directory's recent regular files of at least min_size bytes that
 * are not the follower's; with `after` set (copy_find_next) only those
 * named like the followed file and created after it, oldest first. */
static size_t candidates(const copy_query_t *q, const dir_look_t *d, long long min_size,
                         const struct timespec *after, cand_t *cs)
{
    DIR *dir = opendir(d->dir);
    if (!dir)
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
            !strcmp(de->d_name, d->base))
            continue;
        cand_t c;
        c.named_like = !strncmp(de->d_name, d->base, d->base_len);
        if (after && !c.named_like)
            continue;
        char full[PATH_MAX];
        if (snprintf(full, sizeof full, "%s/%s", d->dir, de->d_name) >= (int)sizeof full)
            continue;
        dev_t dev;
        ino_t ino;
        struct timespec mtime;
        if (file_facts(full, &c, &dev, &ino, &mtime) < 0 || c.size < min_size ||
            (q->ours && q->ours(q->ours_ctx, dev, ino)))
            continue;
        struct timespec changed = ts_before(c.born, mtime) ? mtime : c.born;
        if (now.tv_sec - changed.tv_sec > FOLLOW_COPY_RECENT_S)
            continue;
        /* Not before: creation times are coarse (a clock tick), two
         * copies made within one have the same. */
        if (after && ts_before(c.born, *after))
            continue;
        snprintf(c.name, sizeof c.name, "%s", de->d_name);
        keep(cs, &n, &c, after != NULL);
    }
    closedir(dir);
    return n;
}

/* The size of the file open as fd, or `was` if it cannot be had. A copy
 * the copier was still writing when the directory was listed is longer
 * by the time it is opened or taken. */
static long long size_now(int fd, long long was)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (long long)st.st_size : was;
}

/* Opens candidate c; its size is then the open file's, so that where it
 * ends is told from what will be read, not from the listing. */
static int open_cand(const copy_query_t *q, const dir_look_t *d, cand_t *c)
{
    char full[PATH_MAX];
    if (snprintf(full, sizeof full, "%s/%s", d->dir, c->name) >= (int)sizeof full)
        return -1;
    int fd = q->open ? q->open(q->open_ctx, full) : open(full, O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
        c->size = size_now(fd, c->size);
    return fd;
}

/* c (open as fd) is the copy: *out says what its notice and its reading
 * need. Its size is taken again: a copy of the content the file still
 * held at the open may have been finished since (the truncation after
 * it is what made it a copy to read), and the notice says its end. */
static void found(copy_found_t *out, int fd, const cand_t *c)
{
    out->fd = fd;
    out->born = c->born;
    out->size = size_now(fd, c->size);
    size_t n = strlen(c->name);
    if (n >= sizeof out->name)
        n = sizeof out->name - 1;
    memcpy(out->name, c->name, n);
    out->name[n] = 0;
}

static int preads(int fd, char *buf, size_t n, off_t at)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, at + (off_t)got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Whether fd holds want[0..n) at byte `at`. */
static int holds(int fd, const char *want, size_t n, off_t at)
{
    char buf[COPY_HEAD_CHECK];
    return n <= sizeof buf && preads(fd, buf, n, at) == 0 && !memcmp(buf, want, n);
}

/* Whether candidate c (open as fd) is the copy of what r says was read;
 * then fd is left where reading the copy goes on. */
static int copy_of_read(int fd, const cand_t *c, const copy_read_t *r)
{
    size_t len = r->tail_len < COPY_HEAD_CHECK ? r->tail_len : COPY_HEAD_CHECK;
    long long lo = r->at - (long long)len;
    size_t overlap = len < COPY_OVERLAP_MIN ? len : COPY_OVERLAP_MIN;
    if (c->size >= lo + (long long)overlap) {
        long long hi = c->size < r->at ? c->size : r->at;
        return holds(fd, r->tail + r->tail_len - len, (size_t)(hi - lo), (off_t)lo) &&
               lseek(fd, (off_t)hi, SEEK_SET) >= 0;
    }
    /* It ends before the tail kept: the writer went on for more than the
     * tail after the copy, and the follower read that from the file. Only
     * the content's start can still tell its copy. */
    return r->start_len > 0 && c->size >= (long long)r->start_len &&
           holds(fd, r->start, r->start_len, 0) && lseek(fd, 0, SEEK_END) >= 0;
}

int copy_find_end(const copy_query_t *q, const copy_read_t *r, copy_found_t *out)
{
    dir_look_t d;
    cand_t cs[COPY_MAX_CANDIDATES];
    if (r->tail_len == 0 || (long long)r->tail_len > r->at || split_path(q->path, &d) < 0)
        return 0;
    size_t len = r->tail_len < COPY_HEAD_CHECK ? r->tail_len : COPY_HEAD_CHECK;
    size_t overlap = len < COPY_OVERLAP_MIN ? len : COPY_OVERLAP_MIN;
    long long min_size = r->at - (long long)len + (long long)overlap;
    if (r->start_len > 0 && (long long)r->start_len < min_size)
        min_size = (long long)r->start_len;
    size_t n = candidates(q, &d, min_size, NULL, cs);
    for (size_t i = 0; i < n; i++) {
        int fd = open_cand(q, &d, &cs[i]);
        if (fd < 0)
            continue;
        if (copy_of_read(fd, &cs[i], r)) {
            found(out, fd, &cs[i]);
            return 1;
        }
        close(fd);
    }
    return 0;
}

/* What a file made after the copy read last is to copy_find_next. */
typedef enum later {
    LATER_UNREAD,             /* the copy of a content gone unread */
    LATER_OF_NOW,             /* a copy of what the file (cur) holds now */
    LATER_NOT_TEXT            /* no text (a NUL in its start: compressed,
                                 say), or it or the file unreadable: it
                                 tells nothing */
} later_t;

static later_t later_kind(int fd, const cand_t *c, int cur)
{
    char head[COPY_HEAD_CHECK], now[COPY_HEAD_CHECK];
    size_t len = c->size < (long long)sizeof head ? (size_t)c->size : sizeof head;
    if (preads(fd, head, len, 0) < 0 || memchr(head, 0, len))
        return LATER_NOT_TEXT;
    ssize_t cur_len = pread(cur, now, len, 0);
    if (cur_len < 0)
        return LATER_NOT_TEXT;
    return (size_t)cur_len < len || memcmp(head, now, len) != 0 ? LATER_UNREAD : LATER_OF_NOW;
}

int copy_find_next(const copy_query_t *q, struct timespec after, int cur, copy_found_t *out)
{
    dir_look_t d;
    cand_t cs[COPY_MAX_CANDIDATES];
    if (split_path(q->path, &d) < 0)
        return 0;
    size_t n = candidates(q, &d, 1, &after, cs);
    struct timespec of_now_born;
    int seen_of_now = 0;
    for (size_t i = 0; i < n; i++) {
        /* After a copy of what the file still holds, every copy made
         * later is one too; only one of the same tick may be older (the
         * order within a tick is the best guess, not known). */
        if (seen_of_now && !ts_equal(cs[i].born, of_now_born))
            break;
        int fd = open_cand(q, &d, &cs[i]);
        if (fd < 0)
            continue;
        later_t kind = later_kind(fd, &cs[i], cur);
        if (kind == LATER_UNREAD) {
            found(out, fd, &cs[i]);
            return 1;
        }
        close(fd);
        if (kind == LATER_OF_NOW && !seen_of_now) {
            seen_of_now = 1;
            of_now_born = cs[i].born;
        }
    }
    return 0;
}
