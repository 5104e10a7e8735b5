/* follow_copy.h: finding the copy a copytruncate rotation made of a
 * followed file (exec/scan/follow.c), so that what was written after the
 * follower's last read and before the truncation is read from the copy
 * instead of lost.
 *
 * A copy is looked for in the followed file's directory among the regular
 * files created or changed lately (FOLLOW_COPY_RECENT_S); names are only
 * an order of trying (file.1, file-20261202, file.1.tmp start with the
 * followed file's name and are tried first), the content decides. Every
 * candidate is opened through the follow source's open hook, so dserver's
 * permission check applies to it as to the followed file. Looking is best
 * effort: no error is returned, a copy is found or not. */
#ifndef DTAIL_EXEC_FOLLOW_COPY_H
#define DTAIL_EXEC_FOLLOW_COPY_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* How lately (seconds before now) a copy must have been created or
 * written: a rotator copies right before it truncates. */
#define FOLLOW_COPY_RECENT_S 10

typedef struct copy_query {
    const char *path;         /* the followed path */
    int (*open)(void *ctx, const char *path);   /* NULL: open(2) */
    void *open_ctx;
    /* Files that are not copies: the follower's own (read or held). */
    int (*ours)(const void *ctx, dev_t dev, ino_t ino);
    const void *ours_ctx;
} copy_query_t;

typedef struct copy_found {
    int fd;                   /* open, at the offset to read from */
    struct timespec born;     /* creation time (modification time where the
                                 filesystem keeps none) */
    long long size;           /* its size when found */
    char name[64];            /* its name in the directory, for notices
                                 (shortened if longer) */
} copy_found_t;

/* What the follower read of the truncated content: its bytes up to `at`. */
typedef struct copy_read {
    long long at;
    const char *tail;         /* the last tail_len bytes read, ending at `at` */
    size_t tail_len;
    const char *start;        /* its first start_len bytes; 0: not known */
    size_t start_len;
} copy_read_t;

/* The copy of the content the follower read up to byte r->at: a file whose
 * bytes before `at` are the tail, or, one that ends earlier (the follower
 * read past the copy: lines written after it), whose end is in the tail,
 * sharing at least 64 bytes with it, or which ends before the tail and
 * starts with r->start (the follower read more than the tail past its
 * end). Such a copy adds nothing but tells which copies came later.
 * Returns 1 with *out (fd at `at`, or at its end when shorter), else 0. */
int copy_find_end(const copy_query_t *q, const copy_read_t *r, copy_found_t *out);

/* The copy of a content that came and went unread: a file named like the
 * followed one, created after `after` (or within the same clock tick: the
 * copies read already must be among q->ours), not empty, text (no NUL in its
 * first bytes), whose start is not that of the followed file now (`cur`,
 * its descriptor: that is a copy of what is still there, read from the
 * file itself). The oldest such file (of files created in one clock tick,
 * the one whose writing ended first, then the first by name in version
 * order); 1 with *out (fd at 0), else 0. */
int copy_find_next(const copy_query_t *q, struct timespec after, int cur, copy_found_t *out);

#endif
