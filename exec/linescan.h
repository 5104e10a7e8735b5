/* linescan.h: the cat/grep plan over one input: regions from the reader,
 * the matcher picks lines, DTail's before/after/max/invert semantics
 * (shared reference §4.4), the line sink writes them.
 *
 * cat is this plan with the noop matcher. Lines between hits are never
 * visited one by one unless context or --invert needs them; line numbers are
 * counted with a vector byte count only when the sink shows them. */
#ifndef DTAIL_EXEC_LINESCAN_H
#define DTAIL_EXEC_LINESCAN_H

#include <stddef.h>

#include "base/err.h"
#include "exec/filter/matcher.h"
#include "exec/scan/input.h"
#include "exec/scan/reader.h"
#include "exec/scan/records.h"
#include "exec/sink/lines.h"

typedef struct linescan_opts {
    matcher_t *matcher;          /* borrowed, compiled once per run */
    int invert;                  /* select lines that do not match */
    unsigned before;             /* context lines before a selected line */
    unsigned after;              /* context lines after a selected line */
    unsigned long long max;      /* stop a file after this many selected lines; 0 = all */
    size_t max_line_len;         /* longer lines are split (§4.2) */
    /* Multi-line records (exec/scan/records.h): a line it matches starts
     * a record, and the pattern, context, --max and --invert see records,
     * not lines; NULL: lines. Borrowed; its match data is the scan's. */
    matcher_t *record_start;
} linescan_opts_t;

typedef struct linescan_stats {
    unsigned long long lines_selected; /* selected lines written */
    unsigned long long lines_split;    /* long lines split into pieces */
    unsigned long long bytes_read;     /* decoded bytes read */
    unsigned long long records_cut;    /* multi-line records cut at the bound */
} linescan_stats_t;

/* The plan's reusable state: its buffers serve every input of a run, so
 * nothing is allocated per file. */
typedef struct linescan {
    linescan_opts_t o;          /* the plan, invert normalised */
    reader_t reader;            /* read buffers */
    struct ctx_line *ring;      /* before-context slots */
    records_t records;          /* o.record_start's grouping of lines */
} linescan_t;

int linescan_init(linescan_t *ls, const linescan_opts_t *o, err_t *e);
void linescan_free(linescan_t *ls);
/* Runs the plan over one opened input, writing to sink. name is used in
 * messages (the long-line warning). Returns 0, or -1 with e set when the
 * input failed mid-way (what was read before is already written). */
int linescan_run(linescan_t *ls, input_t *in, const char *name,
                 line_sink_t *sink, linescan_stats_t *stats, err_t *e);

/* The plan over an input read in steps: a followed file
 * (exec/follow_run.h) whose reads return INPUT_AGAIN when it has nothing
 * now. The state between steps (the unfinished line, context, --max
 * count) lives here; reads are 64 KiB at a time, so an idle stream holds
 * little memory. */
typedef struct linescan_stream linescan_stream_t;
linescan_stream_t *linescan_stream_new(const linescan_opts_t *o, input_t *in, err_t *e);
void linescan_stream_free(linescan_stream_t *st);
/* Runs the plan over what in has now, writing to sink: 2 when in has
 * nothing more for now, 1 when budget bytes were read and more may be
 * there (another file's turn), 0 when the input ended or --max was
 * reached, -1 on an error (e set). */
int linescan_stream_step(linescan_stream_t *st, line_sink_t *sink, const char *name,
                         size_t budget, err_t *e);
/* Counts so far (lines_selected, lines_split, bytes_read, records_cut). */
void linescan_stream_stats(const linescan_stream_t *st, linescan_stats_t *out);
/* Unfinished lines dropped at truncations (INPUT_CUT). */
unsigned long long linescan_stream_cut(const linescan_stream_t *st);

/* Whether linescan_run_parallel can take this plan and input: the fast path
 * (no context, max or invert) over a plain regular file large enough to be
 * worth splitting, except plain cat (a copy from the mapping is cheaper). */
int linescan_parallel_eligible(const linescan_opts_t *o, const line_sink_t *sink,
                               input_t *in);
/* Runs the plan over in with n_threads workers on ranges of the file; the
 * output is exactly what linescan_run writes, in file order. */
int linescan_run_parallel(const linescan_opts_t *o, input_t *in, const char *name,
                          line_sink_t *sink, int n_threads, linescan_stats_t *stats,
                          err_t *e);
/* The run of one input by the fastest way the plan allows: the parallel
 * scan where linescan_parallel_eligible says so, else linescan_run. */
int linescan_run_auto(linescan_t *ls, input_t *in, const char *name, line_sink_t *sink,
                      int n_threads, linescan_stats_t *stats, err_t *e);

/* Context lines as asked for (-B/-A, a request's fields), capped: DTail
 * accepts any count, but a ring of more lines than this is no use. */
#define LINESCAN_CONTEXT_MAX 1000000u
static inline unsigned linescan_context(long long asked)
{
    return asked <= 0 ? 0 : asked > LINESCAN_CONTEXT_MAX ? LINESCAN_CONTEXT_MAX : (unsigned)asked;
}

/* Writes the selected lines of [p, end) (whole lines) to sink, unnumbered.
 * The fast path's region step, shared with the parallel scan. */
void linescan_region_unnumbered(matcher_t *m, line_sink_t *sink, const char *p, const char *end);
/* The same with line numbers: *lineno is the number of lines before p on
 * entry and after end on return. */
void linescan_region_numbered(matcher_t *m, line_sink_t *sink, const char *p, const char *end,
                              unsigned long long *lineno);

#endif
