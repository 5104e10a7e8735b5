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
#include "exec/agg/spill.h"
#include "exec/scan/targets.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

/* What became of one input of a run (a query_inputs row). */
enum outfile_input_status {
    OUTFILE_INPUT_OK = 0,        /* read to its end, and in the result */
    OUTFILE_INPUT_NOT_FOUND,     /* no such file, or a glob matched nothing */
    OUTFILE_INPUT_DENIED,        /* refused by a server's rules or the OS */
    OUTFILE_INPUT_ERROR,         /* unreadable, or failed while read */
    OUTFILE_INPUT_SERVER_FAILED, /* its server failed before its final
                                    result: none of its files is in it */
};
/* "ok", "not found", "denied", "error", "server failed". */
const char *outfile_input_status_name(int status);

typedef struct outfile_input {
    const char *server;          /* host it was read on; NULL = here */
    const char *file;            /* the path (as the server names it) */
    int status;                  /* enum outfile_input_status */
    const char *error;           /* why it failed; NULL when ok */
    long long bytes;             /* input bytes read (decoded); -1 unknown */
    long long lines;             /* lines read; -1 unknown */
} outfile_input_t;

typedef struct outfile_info {
    const char *query;           /* the query text as given */
    struct timespec start;       /* wall clock (CLOCK_REALTIME) the run began */
    struct timespec end;         /* ... and when this result was taken */
    const outfile_input_t *inputs; /* the inputs, in reading order (may be NULL) */
    size_t n_inputs;             /* their count */
    const char *const *servers;  /* every server the run read from (may be NULL) */
    size_t n_servers;            /* their count */
    const map_stats_t *stats;    /* line counts; NULL when unknown (then
                                    bytes and lines read are the inputs' sums) */
    int partial;                 /* the result misses something besides
                                    failed inputs (they mark it partial too) */
    size_t *approx;              /* per select item: the rows written whose
                                    cell is an estimate are added here
                                    (result_approx_add); NULL: not counted */
} outfile_info_t;

/* Whether the run described by info is partial: info->partial, or an
 * input that failed. */
int outfile_info_partial(const outfile_info_t *info);
/* The warning a partial run prints: "partial result: N of M inputs failed:
 * WHAT: WHY; ..." (at most cap bytes, cut with "..."). */
void outfile_partial_text(const outfile_info_t *info, char *buf, size_t cap);

/* Checks plan->outfile before a run reads anything, so a destination that
 * would be refused at the end (a FIFO, a directory, a missing directory)
 * fails at once. 0 without an outfile. */
int outfile_check(const plan_t *plan, err_t *e);

/* Writes r to plan->outfile (plan->outfile_append: adds to it) in the
 * plan's outfile format. Returns 0, or -1 with e naming the file. */
int outfile_write(const plan_t *plan, const result_t *r, const outfile_info_t *info, err_t *e);

/* Writes a run's whole result, the table t or, when sp is not NULL, the
 * spill holding it all (exec/agg/spill.h), to plan->outfile with the
 * plan's limit. A CSV from a spill streams chunk by chunk, so memory stays
 * bounded by a chunk, not by the groups (the same bytes as from a
 * table). *n_groups: the groups of the result; *n_divzero (unless NULL):
 * its divisions by zero (result_t.n_divzero). */
int outfile_write_merged(const plan_t *plan, const agg_table_t *t, spill_t *sp,
                         const outfile_info_t *info, size_t *n_groups, uint64_t *n_divzero,
                         err_t *e);

#endif
