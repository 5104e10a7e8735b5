/* follow.h: a file followed as it grows (dtail, and dserver's tail), as an
 * input the cat/grep and mapreduce plans read like any other stream.
 *
 * Reads return bytes as they are appended. At the end of the file the
 * source calls `idle` (the caller flushes its output there, never per
 * line), then waits for the file's directory to change (inotify) or at most
 * poll_ms, and looks again:
 *  - rename-and-create rotation (the path names another file): the new
 *    file is opened as soon as it is seen (the path is looked at every
 *    0.1 s even while the old file is busy), the old file is read to its
 *    end, until it has stayed unchanged for a short grace period, then the
 *    new one is read from its start;
 *  - truncation (copytruncate, or `> file`): reading restarts at the start;
 *  - a path that disappears: the open file is still read; a file created
 *    at the path later is read from its start.
 * A line cut short by a rotation or truncation gets its '\n', so it never
 * joins the next file's first line. Nothing is ever dropped or read twice
 * by the source itself; what a writer puts in a file after the source has
 * left it (a copytruncate copy) cannot be seen. */
#ifndef DTAIL_EXEC_FOLLOW_H
#define DTAIL_EXEC_FOLLOW_H

#include "base/err.h"
#include "exec/scan/input.h"

typedef struct follow_opts {
    int from_start;               /* read what is there first (a file that
                                     appeared after the start); else begin
                                     at the end, as tail -f */
    const volatile int *stop;     /* becomes non-zero: the input ends at
                                     its next wait */
    void (*idle)(void *ctx);      /* called before each wait */
    void *idle_ctx;
    int poll_ms;                  /* longest wait between looks; 0: 250 */
    /* Opens the path for reading (NULL: open(2)); returns a descriptor, or
     * -1 with errno set, ENOENT meaning no file there yet. Every file the
     * source reads is opened through it, also one a rotation brings:
     * dserver checks its permissions there. A file it refuses is not
     * read; the source looks again later. */
    int (*open)(void *ctx, const char *path);
    void *open_ctx;
} follow_opts_t;

/* Follows path. A missing file is waited for. The options are copied. */
input_t *follow_open(const char *path, const follow_opts_t *o, err_t *e);

#endif
