/* follow_plan.h: the plans a follow run (exec/follow_run.h) reads each
 * file with, for dtail and for dserver's TAIL alike: the cat/grep plan,
 * writing to one line sink the run's files share (each file's lines are
 * tagged with its source id), or the mapreduce plan, folding into a scan
 * per file whose tables the caller takes every interval. */
#ifndef DTAIL_EXEC_FOLLOW_PLAN_H
#define DTAIL_EXEC_FOLLOW_PLAN_H

#include "exec/follow_run.h"
#include "exec/linescan.h"
#include "exec/mapscan.h"
#include "exec/run/plan.h"

typedef struct follow_file follow_file_t;

typedef struct follow_plan {
    line_sink_t *sink;            /* lines: the run's sink (borrowed) */
    linescan_opts_t lo;           /* lines: the plan */
    /* A file could not be read on (after its first bytes, or never). */
    void (*failed)(void *ctx, const char *path, const err_t *e);
    void *ctx;
    /* Frees a file the run is done with (NULL: follow_file_free); a
     * caller whose files carry more (ff->user) frees that too. */
    void (*release_file)(follow_file_t *ff);
    unsigned long long cut_lines; /* unfinished lines dropped at truncations */
} follow_plan_t;

struct follow_file {
    follow_plan_t *plan;
    char *path;                   /* as followed */
    char *source_id;              /* shown in REMOTE lines, $source */
    linescan_stream_t *st;        /* lines: made at the first read */
    mapscan_t *ms;                /* map: the file's scan (borrowed) */
    void *user;                   /* the caller's */
};

/* A file for plan; ms is the file's scan for a map, NULL for lines. */
follow_file_t *follow_file_new(follow_plan_t *plan, const char *path, const char *source_id,
                               mapscan_t *ms, err_t *e);
void follow_file_free(follow_file_t *ff);

/* The map scan of one followed file (mo: one thread, and no memory
 * limit where each report takes the groups back whole). Its result
 * starts without the empty group a map without group by has: the lines
 * read make the rows, an idle file shows none. */
mapscan_t *follow_scan_new(const map_opts_t *mo, err_t *e);
void follow_scan_free(mapscan_t *ms);

/* The cat/grep side of a follow run, whole: the request's plan, the
 * line sink every file of the run writes to (over out), and the follow
 * plan over both. It points into itself: it stays where it was made. */
typedef struct follow_lines {
    exec_plan_t p;
    line_sink_t sink;
    follow_plan_t plan;
} follow_lines_t;

/* The cat/grep plan of rq (its query, if any, is not this plan's) run in
 * env; failed and ctx go to plan. An invalid pattern fails with ERR_PATTERN
 * and leaves nothing to free. */
int follow_lines_init(follow_lines_t *fl, const exec_request_t *rq, const exec_env_t *env,
                      outbuf_t *out,
                      void (*failed)(void *ctx, const char *path, const err_t *e), void *ctx,
                      err_t *e);
void follow_lines_free(follow_lines_t *fl);

/* The ops that run a follow_file_t (release: plan->release_file). */
extern const follow_plan_ops_t follow_file_ops;

#endif
