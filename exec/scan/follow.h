/* follow.h: a file followed as it grows (dtail, and dserver's tail), as an
 * input the cat/grep and mapreduce plans read like any other stream.
 *
 * Reads return bytes as they are appended. At the end of the file the
 * source looks at the path and returns INPUT_AGAIN: it never waits, the
 * follow run (exec/follow_run.h) does the waiting for all its files and
 * reads again when an event or its sweep says so. What a look finds:
 *  - rename-and-create rotation (the path names another file): that file
 *    is opened at once and held, and so is every file the path names
 *    later, however many rotations come before the old one is finished
 *    (the path is looked at every 0.1 s even while a file is busy, and at
 *    once when the run sees a file arrive). The old file is read to its
 *    end through the descriptor already open, until it has not changed
 *    for a short grace period (a writer may still finish its last lines
 *    there), then the held files are read in the order they were created;
 *  - truncation (copytruncate, or `> file`), also one followed at once by
 *    growth past the old offset (the last bytes read are compared):
 *    reading restarts at the start. First, if a copy of the old content
 *    is found (follow_copy.h: a recent file in the same directory that
 *    holds the last bytes read at the same offset), what it holds after
 *    the offset read is read from it, as the file's lines; so is, next, a
 *    later copy of a content that the file held and lost again before it
 *    was read. Only what was written after the copy was made is then
 *    lost. An unfinished line the truncation cut (no copy continues it)
 *    is dropped (INPUT_CUT), never shown as a line;
 *  - a path that disappears: the open file is still read; a file created
 *    at the path later is read from its start.
 * A rotated file's last line without '\n' gets one, so it never joins the
 * next file's first line. Every rotation, truncation and appearance is
 * told through `notice`, as tail -F does. */
#ifndef DTAIL_EXEC_FOLLOW_H
#define DTAIL_EXEC_FOLLOW_H

#include "base/err.h"
#include "exec/scan/input.h"

typedef struct follow follow_t;

typedef struct follow_opts {
    int from_start;               /* read what is there first (a file that
                                     appeared after the start); else begin
                                     at the end, as tail -f */
    const volatile int *stop;     /* becomes non-zero: the input ends at
                                     its next read */
    /* Opens the path for reading (NULL: open(2)); returns a descriptor, or
     * -1 with errno set, ENOENT meaning no file there yet. Every file the
     * source reads is opened through it, also one a rotation brings:
     * dserver checks its permissions there. A file it refuses is not
     * read; the source looks again later. */
    int (*open)(void *ctx, const char *path);
    void *open_ctx;
    /* Opens a file that may be the followed file's copy (copytruncate;
     * exec/scan/follow_copy.h), with open_ctx: as open, but a refusal is
     * not news to the user (most candidates are other files). NULL: open. */
    int (*open_candidate)(void *ctx, const char *path);
    /* Told what happened to the followed path, in words for the user
     * ("file truncated", "file rotated; following the new file", ...). */
    void (*notice)(void *ctx, const char *path, const char *what);
    void *notice_ctx;
} follow_opts_t;

typedef struct follow_stats {
    unsigned long long rotations;   /* files left for the next one */
    unsigned long long truncations; /* restarts at the start */
    unsigned long long cut_lines;   /* unfinished lines dropped at truncations */
    unsigned long long copies;      /* truncated contents whose unread end was
                                       read from a copy (copytruncate) */
    unsigned long long files_lost;  /* files that appeared at the path and were
                                       gone before they could be opened */
} follow_stats_t;

/* Follows path. A missing file is waited for. The options are copied.
 * *out (if not NULL) is the source, for the calls below; it lives as long
 * as the input. */
input_t *follow_open(const char *path, const follow_opts_t *o, follow_t **out, err_t *e);

/* For a follow run: an event says a file arrived at the path (created or
 * renamed onto it): the path is looked at now, and the arrival counted. */
void follow_arrived(follow_t *f);
/* A file that was at the path was renamed to `now`: held if it is none of
 * the files this source knows (it came and went before a look found it). */
void follow_departed(follow_t *f, const char *now);
/* How long until the source wants to be read again although nothing was
 * seen to change (a rotation's grace, a busy path's look); -1: no wish. */
int follow_wants_ms(const follow_t *f);
/* Forgets what the arrival count says: events were lost (inotify queue
 * overflow), so it cannot be compared with the files found. */
void follow_resync(follow_t *f);
/* After a batch of events: compares the arrivals with the files found,
 * and tells of files lost since the last call. */
void follow_settle(follow_t *f);
const follow_stats_t *follow_stats(const follow_t *f);
const char *follow_path(const follow_t *f);

#endif
