/* outfile.h: the one path by which a query's result reaches an outfile.
 *
 * dmap, the REPL's `.output` and (later) dtail --query all call
 * outfile_write(); the plan's outfile format chooses the writer: CSV
 * (result_write_csv) or SQLite (sqlite_out.h). What a writer records about
 * the run besides the rows (query text, times, inputs, line counts) comes in
 * outfile_info_t, so every caller describes a run the same way. Where the
 * file goes (links, what is refused, "-" for stdout) is outpath.h's, the
 * same for every writer. */
#ifndef DTAIL_EXEC_SINK_OUTFILE_H
#define DTAIL_EXEC_SINK_OUTFILE_H

#include <stddef.h>
#include <time.h>

#include "base/err.h"
#include "exec/mapscan.h"
#include "exec/scan/targets.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

typedef struct outfile_info {
    const char *query;           /* the query text as given */
    struct timespec start;       /* wall clock (CLOCK_REALTIME) the run began */
    struct timespec end;         /* ... and when this result was taken */
    const target_t *files;       /* the inputs read, in order (may be NULL) */
    size_t n_files;              /* their count */
    const char *server;          /* host the files were read on; NULL = here */
    const char *const *servers;  /* every server the run read from (may be NULL) */
    size_t n_servers;            /* their count */
    const map_stats_t *stats;    /* line counts; NULL when unknown */
} outfile_info_t;

/* Checks plan->outfile before a run reads anything, so a destination that
 * would be refused at the end (a FIFO, a directory, a missing directory)
 * fails at once. 0 without an outfile. */
int outfile_check(const plan_t *plan, err_t *e);

/* Writes r to plan->outfile (plan->outfile_append: adds to it) in the
 * plan's outfile format. Returns 0, or -1 with e naming the file. */
int outfile_write(const plan_t *plan, const result_t *r, const outfile_info_t *info, err_t *e);

#endif
