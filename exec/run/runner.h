/* runner.h: the runs of a request over a list of inputs, the same
 * serverless and in dserver.
 *
 * What the inputs are is the caller's: serverless they are the files and
 * globs of the command line, in dserver each is opened through the
 * permission check and a read slot. The caller hands them over one at a
 * time (run_inputs_t.next) and hears how each went (done); the runner
 * owns the plan's state and the loop, and writes to the sink it is
 * given: a line sink over an output block (stdout, or LINES frames), or
 * the map scan whose result the caller finalises (a table on the
 * terminal, an outfile, AGGREGATE frames). The follow runs are
 * exec/follow_run.h over exec/follow_plan.h. */
#ifndef DTAIL_EXEC_RUN_RUNNER_H
#define DTAIL_EXEC_RUN_RUNNER_H

#include "exec/linescan.h"
#include "exec/mapscan.h"
#include "exec/run/plan.h"

/* One input of a run, opened by next. */
typedef struct run_input {
    input_t *in;                 /* the opened input */
    const char *path;            /* its name in messages */
    const char *source_id;       /* shown in REMOTE lines, $source */
    unsigned index;              /* its place in the run (orders last()) */
    void *user;                  /* the caller's */
} run_input_t;

/* What a run read of one input. */
typedef struct run_counts {
    unsigned long long bytes;    /* decoded input bytes */
    unsigned long long lines;    /* lines read */
    int lines_counted;           /* lines is known (a cat or grep counts
                                    lines only when it shows them) */
} run_counts_t;

typedef struct run_inputs {
    /* Opens the next input into *it: 1, or 0 when there is none left, or
     * -1 when the run must stop (the client is gone, the server stops).
     * An input that cannot be opened is the caller's to report; next
     * goes on to the one after it. */
    int (*next)(void *ctx, run_input_t *it);
    /* After the run of it: rc 0, or -1 with e (what was read is
     * written); the caller closes it->in. */
    void (*done)(void *ctx, run_input_t *it, int rc, const run_counts_t *n, const err_t *e);
    void *ctx;
} run_inputs_t;

/* The cat/grep run of plan p (its filter stage) over every input, into sink. Stops early
 * when next says so or the sink's output has failed. Returns 0, or -1
 * when it stopped early. */
int run_lines(const exec_plan_t *p, run_inputs_t *ins, line_sink_t *sink, int n_threads,
              linescan_stats_t *total, err_t *e);

/* How a map run ended. */
enum run_end {
    RUN_END_ALL = 0,             /* every input was read */
    RUN_END_STOPPED = 1,         /* next said stop */
    RUN_END_TIMEOUT = 2,         /* the deadline passed: what was read is the result */
    RUN_END_CANCELLED = 3,       /* the scan's cancel flag was set */
};

/* The map run over every input, folding into ms (initialised by the
 * caller from a plan's query stage: mapscan_init(ms, &p->mo)). The
 * input whose read the deadline cut counts as read up to there (done
 * rc 0). The result is the caller's to finalise: ms->result, or the
 * spill (mapscan_spilled). */
enum run_end run_map(mapscan_t *ms, run_inputs_t *ins);

#endif
