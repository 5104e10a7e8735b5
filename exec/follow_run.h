/* follow_run.h: the follow supervisor. One thread follows every file of a
 * run (dtail serverless, or one TAIL request in dserver): a single inotify
 * instance watches the files' directories, and each event wakes the file
 * it names; each file is read (exec/scan/follow.h, non-blocking) through
 * the run's plan until it has nothing more for now. Every file is also
 * read every quarter second whatever the events say (a filesystem without
 * inotify, an event queue that overflowed, writes to a file that was
 * renamed away), so nothing depends on an event arriving.
 *
 * Thread and memory cost: one thread per run whatever the number of
 * files, and per file a follow source and the plan's state (a read buffer
 * filled 64 KiB at a time; the plan's context lines).
 *
 * The run expands its file specs again every second (the caller's rescan
 * hook adds what it finds; a path or a file already followed is not added
 * twice, exec/scan/followset.h). It ends when stop is set, its deadline
 * passes, or the tick hook says so. */
#ifndef DTAIL_EXEC_FOLLOW_RUN_H
#define DTAIL_EXEC_FOLLOW_RUN_H

#include <stddef.h>

#include "base/err.h"
#include "exec/scan/follow.h"
#include "exec/scan/followset.h"

typedef struct follow_run follow_run_t;

/* The plan run over one followed file. */
typedef struct follow_plan_ops {
    /* Reads what in has now: 2 when it has nothing more for now, 1 when it
     * stopped with more to read (its share of this round is used), 0 when
     * the file's follow is over (--max reached, the run stopping), -1 on an
     * error (e set; the file is no longer read). */
    int (*step)(void *file_ctx, input_t *in, err_t *e);
    /* The file failed (step returned -1, or it could not be followed). */
    void (*failed)(void *file_ctx, const err_t *e);
    /* Frees file_ctx: the run owns it once follow_run_add took it. */
    void (*release)(void *file_ctx);
} follow_plan_ops_t;

typedef struct follow_run_hooks {
    void *ctx;
    /* Every rescan_ms (0: every second): calls follow_run_add for the
     * files the specs name now. NULL: the files added before
     * follow_run_loop are all. */
    void (*rescan)(void *ctx, follow_run_t *r);
    int rescan_ms;
    /* At least every 50 ms: non-zero ends the run (a deadline of the
     * caller's, a client gone). Interval reports are sent from here. */
    int (*tick)(void *ctx);
    /* After a round of reads, before the run waits: output goes out here,
     * in blocks, never per line. */
    void (*flush)(void *ctx);
    /* The run cannot watch with inotify (no instance left: the per-user
     * fs.inotify.max_user_instances; a directory it cannot watch): it
     * looks every 0.1 s instead, and a file that comes and goes faster is
     * missed without being counted. Told once per cause. NULL: not told. */
    void (*warn)(void *ctx, const char *msg);
} follow_run_hooks_t;

follow_run_t *follow_run_new(const follow_run_hooks_t *h, const volatile int *stop, err_t *e);
void follow_run_free(follow_run_t *r);

/* Follows path with the plan ops over file_ctx (the run's from then on:
 * follow_run_free releases it; when 0 or -1 is returned it stays the
 * caller's). fo's open and notice hooks are used; stop is the
 * run's. A journal target ("journal:<unit>", exec/scan/journal.h) is
 * followed from the journal's end, read at every sweep; fo is not used
 * for it (a caller that checks permissions checks the target before).
 * Returns 1 when added, 0 when the path or its file is followed already,
 * -1 with e set (the path is then not tried again). */
int follow_run_add(follow_run_t *r, const char *path, const follow_opts_t *fo,
                   const follow_plan_ops_t *ops, void *file_ctx, err_t *e);
/* Calls fn on the file_ctx of every file added, in the order added (a
 * map's interval report takes each file's table). */
void follow_run_each(follow_run_t *r, void (*fn)(void *file_ctx, void *arg), void *arg);
/* Whether every file added so far is watched by inotify. */
int follow_run_watching(const follow_run_t *r);
/* Whether path or the file it names is followed (for the rescan). */
int follow_run_has(follow_run_t *r, const char *path);

/* Runs until stop, the deadline (clock_now_ms(); 0: none) or the tick
 * hook ends it. */
void follow_run_loop(follow_run_t *r, long long deadline_ms);

/* What the follow sources saw over the run, summed over files. */
void follow_run_stats(const follow_run_t *r, follow_stats_t *out);
size_t follow_run_files(const follow_run_t *r);
/* The run's stats in words for the user ("50 files, 12 rotations, 1
 * rotated file lost before it could be opened, ..."), into out. Returns
 * whether anything was lost (files, or unfinished lines at truncations):
 * then the run summary says it even when nobody asked. */
int follow_run_summary(const follow_run_t *r, char *out, size_t cap);

#endif
