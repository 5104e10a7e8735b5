/* mapscan.h: the mapreduce plan over inputs: scan -> table filter ->
 * extract -> where -> set -> group -> aggregate, in batches, on every core.
 *
 * Each worker folds into its own table; tables merge into the result at the
 * end of each input (and into snapshots for interval reports). The same
 * partial tables are what dserver will serialize and send. */
#ifndef DTAIL_EXEC_MAPSCAN_H
#define DTAIL_EXEC_MAPSCAN_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "exec/agg/eval.h"
#include "exec/agg/spill.h"
#include "exec/agg/table.h"
#include "exec/extract/extract.h"
#include "exec/fieldreport.h"
#include "exec/filter/matcher.h"
#include "exec/scan/input.h"
#include "exec/scan/reader.h"
#include "exec/scan/records.h"
#include "parser/plan.h"

#define MAP_MAX_THREADS 16
#define MAP_ERROR_EXAMPLES 3

typedef struct map_stats {
    unsigned long long lines_read;      /* lines in the inputs */
    unsigned long long lines_matched;   /* lines passing the table filter */
    unsigned long long lines_parsed;    /* lines the log format accepted */
    unsigned long long lines_skipped;   /* lines the format says are not its own */
    unsigned long long lines_unparsed;  /* malformed lines for the format */
    unsigned long long lines_selected;  /* lines passing where */
    unsigned long long bytes_read;      /* decoded bytes */
    char examples[MAP_ERROR_EXAMPLES][256]; /* first unparsed lines, with the reason */
    int n_examples;                     /* examples kept */
    unsigned long long times_unparsable; /* values $time or bucket() could not
                                           read as a timestamp (each line
                                           once): left missing */
    char time_examples[MAP_ERROR_EXAMPLES][80]; /* the first of them */
    int n_time_examples;                /* examples kept */
} map_stats_t;

typedef struct map_opts {
    const plan_t *plan;          /* borrowed for the run */
    size_t max_line_len;         /* long lines are split (§4.2) */
    extract_env_t env;           /* common variables */
    int n_threads;               /* workers for large plain files */
    const volatile sig_atomic_t *cancel; /* non-zero (set from a signal
                                    handler) stops a run between regions
                                    with the error "cancelled"; NULL: never */
    long long deadline_ms;       /* clock_now_ms() (base/clock.h) after
                                    which a run stops between regions as
                                    on cancel; 0: none */
    size_t memory_limit;         /* bytes the group tables may hold; beyond
                                    it groups spill to a temporary SQLite
                                    database (exec/agg/spill.h); 0: none */
    /* Multi-line records (exec/scan/records.h): a line it matches starts
     * a record; the format reads the record's start line and $line is the
     * whole record. NULL: lines. Borrowed; each worker compiles its own. */
    const matcher_t *record_start;
} map_opts_t;

typedef struct map_worker map_worker_t;

typedef struct mapscan {
    map_opts_t o;                /* options */
    agg_spec_t *specs;           /* one per select item */
    agg_table_t result;          /* merged result of finished inputs */
    map_worker_t *workers;       /* o.n_threads of them */
    matcher_t filter;            /* the table filter, compiled once */
    int has_filter;              /* from TABLE applies */
    int fused_filter;            /* ... and the extractor applies it */
    pthread_mutex_t result_mu;   /* guards result during snapshots */
    size_t table_budget;         /* bytes one table may hold before it
                                    spills (SIZE_MAX: never) */
    spill_t *spill;              /* spilled groups; NULL until the first spill */
    pthread_mutex_t spill_mu;    /* guards spill and spill_err (taken after
                                    result_mu and the workers' mu) */
    err_t spill_err;             /* a spill that failed (the groups stay in
                                    memory); reported once by mapscan_run */
    int spill_reported;          /* ... and was reported */
    field_report_t fields;       /* the plan's bareword fields (the names
                                    the workers' seen flags index) */
} mapscan_t;

int mapscan_init(mapscan_t *ms, const map_opts_t *o, err_t *e);
void mapscan_free(mapscan_t *ms);
/* Folds one opened input into ms->result. file_index orders inputs for
 * last(). Returns 0, or -1 with e set (what was read is still folded). */
int mapscan_run(mapscan_t *ms, input_t *in, const char *name, const char *source_id,
                unsigned file_index, err_t *e);
/* Folds what in has now into the scan, for an input read in steps (a
 * followed file, whose reads return INPUT_AGAIN): the reader of the first
 * worker stays on in between calls. 2: nothing more for now; 0: the input
 * ended; -1: e set. One thread steps a scan at a time; snapshots and takes
 * are safe meanwhile. */
int mapscan_step(mapscan_t *ms, input_t *in, const char *name, const char *source_id,
                 err_t *e);
/* Merged copy of everything folded so far (for interval reports); into must
 * be initialised with the same specs. Safe while mapscan_run runs. */
int mapscan_snapshot(mapscan_t *ms, agg_table_t *into);
/* As mapscan_snapshot, then empties everything folded so far: the next
 * take sees only what was read after this one (dtail's per-interval,
 * non-cumulative reports). */
int mapscan_take(mapscan_t *ms, agg_table_t *into);
/* Whether runs stop now: cancel was set or the deadline passed. */
int mapscan_stopped(const mapscan_t *ms);
/* Whether the deadline has passed. */
int mapscan_timed_out(const mapscan_t *ms);
/* Whether groups were spilled (since init, or the last mapscan_take). */
int mapscan_spilled(const mapscan_t *ms);
/* After the last input of a spilled run: writes the groups still in memory
 * as a last run, so the spill holds the whole result (read it with
 * spill_iter_* or exec/agg/spill_result.h). Returns the spill, or NULL
 * with e set. */
spill_t *mapscan_spill_rest(mapscan_t *ms, err_t *e);
/* The memory limit used when none is given: a quarter of physical memory. */
size_t mapscan_default_memory_limit(void);

/* What the workers learnt of the plan's fields (exec/fieldreport.h), into
 * out (initialised here; field_report_free it). Call between runs. */
int mapscan_fields(const mapscan_t *ms, field_report_t *out, err_t *e);

/* Statistics summed over workers. */
void mapscan_stats(const mapscan_t *ms, map_stats_t *out);
/* The unparsed lines and unparsable times of st, with their examples, as
 * the field report carries them (mapscan_fields fills them so). */
void parse_problems_of_stats(const map_stats_t *st, parse_problems_t *out);

/* The local time zone's name and offset in seconds east of UTC, as text:
 * the values of $timezone and $timeoffset (map_opts_t.env). */
void mapscan_local_zone(char *name, size_t name_cap, char *offset, size_t offset_cap);

/* Interim results while inputs are read: every `seconds` a thread hands a
 * snapshot of everything folded so far to fn. None once groups have
 * spilled: a snapshot would load every spilled group back into memory. */
typedef void (*mapscan_report_fn)(const agg_table_t *snap, void *arg);
typedef struct mapscan_reporter {
    mapscan_t *ms;               /* the scan */
    const plan_t *plan;          /* its plan (select items) */
    int seconds;                 /* between reports */
    mapscan_report_fn fn;        /* receives each snapshot */
    void *arg;                   /* fn's argument */
    int deltas;                  /* reports are takes (mapscan_take) */
    pthread_mutex_t mu;          /* guards done */
    pthread_cond_t cv;           /* wakes the thread to stop */
    int done;                    /* stop asked */
    int running;                 /* the thread was started */
    pthread_t thread;
} mapscan_reporter_t;
/* Starts reporting; running stays 0 when the thread cannot start (the
 * scan then has no interim results, nothing else changes). */
void mapscan_reporter_start(mapscan_reporter_t *r, mapscan_t *ms, const plan_t *plan,
                            int seconds, mapscan_report_fn fn, void *arg);
/* As mapscan_reporter_start, but each report is a take (mapscan_take):
 * what was folded since the previous one, a delta, as DTail's servers
 * report to its clients, which add the deltas up. What was read after the
 * last report is left in the scan, and a spill is never taken. */
void mapscan_reporter_start_deltas(mapscan_reporter_t *r, mapscan_t *ms, const plan_t *plan,
                                   int seconds, mapscan_report_fn fn, void *arg);
/* Stops and joins the thread; no report is made after it returns. A
 * zero-initialised reporter that was never started is left alone. */
void mapscan_reporter_stop(mapscan_reporter_t *r);

#endif
