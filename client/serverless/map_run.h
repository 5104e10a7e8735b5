/* map_run.h: one mapreduce query over a list of inputs, with its result
 * rendered to the terminal or written to its outfile.
 *
 * The one query path: `dmap --query` runs a single job and the REPL runs
 * one per query, through the same engine (exec/mapscan.h), the same
 * renderer (exec/sink/result.h) and the same outfile dispatch
 * (exec/sink/outfile.h). */
#ifndef DTAIL_CLIENT_DMAP_RUN_H
#define DTAIL_CLIENT_DMAP_RUN_H

#include <signal.h>
#include <stddef.h>

#include "client/tools/common.h"
#include "exec/run/plan.h"
#include "exec/scan/targets.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

typedef struct dmap_job {
    const exec_plan_t *plan;     /* what to run: its query stage (whose
                                    outfile decides the sink), with the
                                    place's limits, cancel flag and deadline */
    const char *query;           /* the query text as given */
    const target_t *targets;     /* inputs in order */
    size_t n_targets;            /* their count */
    const int *mem_fds;          /* per target: a descriptor holding its
                                    decoded bytes (read instead of the path),
                                    or -1; NULL when none is in memory */
    int quiet;                   /* no summary line on stderr */
    const palette_t *color;      /* paint the table (and the query above it); NULL: don't */
    enum result_form form;       /* how a result without outfile is printed
                                    (--output, .mode); the table's
                                    interim tables are for it only */
    long long timeout_s;         /* --timeout, for the warning when the plan's
                                    deadline cut the run */
} dmap_job_t;

/* Runs job (a cancel the plan's env gave stops it from a signal
 * handler). Errors (unreadable inputs, an outfile that cannot be written)
 * are reported on stderr through run, which keeps the exit status. Returns
 * 0, or 1 when *cancel stopped the run (nothing is rendered or written). */
int dmap_run(const dmap_job_t *job, client_run_t *run);


#endif
