/* extract.h: log formats turn lines into the field values a query uses.
 *
 * One extractor per plan and thread. It is created with the list of field
 * names the query references (only those are materialised) and then fills,
 * for a batch of lines, one column of string views per field. Views point
 * into the line, into the extractor's environment strings, or into its
 * scratch storage (unescaped JSON strings), and stay valid until the next
 * extract_batch call. Nothing is allocated per line once the scratch has
 * grown to its working size.
 *
 * Field names are as the plan spells them: "$time" (a format variable),
 * "$line" / "$hostname" / ... (common variables), "*" (the literal "*"),
 * "currentConnections" (a dynamic key=value field, CSV column or JSON key;
 * nested JSON keys are dotted: "req.user.id"). A dynamic name may also start
 * with '$' (a CSV header "$time"). */
#ifndef DTAIL_EXEC_EXTRACT_H
#define DTAIL_EXEC_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define SV_MISSING UINT32_MAX   /* len of a field the line does not have */

typedef struct sv {
    const char *p;      /* bytes (not NUL-terminated) */
    uint32_t len;       /* byte count, or SV_MISSING */
} sv_t;

/* What a line was to the format. */
enum extract_status {
    EXTRACT_OK = 0,         /* fields filled */
    EXTRACT_SKIP = 1,       /* not for this format (e.g. default: not an INFO
                               MAPREDUCE line): dropped silently, counted */
    EXTRACT_ERROR = 2,      /* malformed for this format: dropped, counted as
                               unparsed and reported */
    EXTRACT_NO_TABLE = 3,   /* lacks the table literal set with
                               extractor_set_table: not a line of the query's
                               table (neither parsed nor skipped) */
};

/* Values of the common variables, fixed for a run. */
typedef struct extract_env {
    const char *hostname;   /* $hostname and $server */
    const char *timezone;   /* $timezone, e.g. "UTC" */
    const char *timeoffset; /* $timeoffset, seconds east of UTC, e.g. "7200" */
} extract_env_t;

/* What a format may be told beyond its name (all zero: its defaults):
 * the options after `logformat NAME` (extract_plan.h makes them from a
 * plan). */
typedef struct extract_opts {
    char delimiter;         /* csv, csvnoheader, tsv: the separator byte;
                               0: the format's own (',' or '\t') */
    const char *pattern;    /* format "pattern": its layout (an nginx
                               log_format or Apache LogFormat line,
                               parser/logpattern.h); other formats: NULL */
    const char *timeformat; /* strptime-style layout $time is read with
                               (logtime.h, logtime_ctx_t.layout); NULL:
                               the forms logtime_parse knows */
    const struct logzone *zone; /* the zone $time is written in
                               (exec/extract/logzone.h; borrowed: it
                               outlives the extractor); NULL: UTC */
    long long now;          /* the instant (seconds since 1970, UTC) a year
                               a timestamp does not write is inferred
                               against (syslog's RFC 3164); 0: the clock
                               when the extractor is made */
} extract_opts_t;

typedef struct extractor extractor_t;

/* Creates an extractor for format `format` (a name of parser/logformat.c:
 * "default", "generic", "generickv", "csv", "csvnoheader", "tsv", "json",
 * "logfmt", "nginx", "apache", "syslog", "k8s"). fields[0..n_fields) are
 * the names the query uses; column f of every batch holds field fields[f].
 * env and opts (NULL: none) are copied. Unknown format or option: NULL
 * with e set. */
extractor_t *extractor_new_opts(const char *format, const char *const *fields, size_t n_fields,
                                const extract_env_t *env, const extract_opts_t *opts, err_t *e);
/* extractor_new_opts without options. */
extractor_t *extractor_new(const char *format, const char *const *fields, size_t n_fields,
                           const extract_env_t *env, err_t *e);
void extractor_free(extractor_t *x);

/* Whether a line's fields depend on the lines before it in its source
 * (csv and tsv: the header): then one worker reads a source from its
 * first line on. */
bool extractor_per_source(const extractor_t *x);
/* Whether `from TABLE` selects lines of format `format` by DTail's
 * MAPREDUCE:TABLE records (default, generic, generickv); the other
 * formats have no such records and `from` does not filter them. */
bool extract_format_has_tables(const char *format);
/* Lines whose $time the format found but could not read as a timestamp
 * (exec/extract/logtime.h): $time is missing on them. Since creation. */
unsigned long long extractor_bad_times(const extractor_t *x);
/* The k-th of the first such values (k < 3), control bytes as '?', or
 * NULL. */
const char *extractor_bad_time(const extractor_t *x, int k);

/* A new input begins (csv: its first line is the header, not a row). */
void extractor_begin_source(extractor_t *x, const char *source_id);
/* csv and tsv: sets the header explicitly (a parallel worker starting inside a
 * file gets the file's first line this way). line has no '\n'. */
int extractor_set_header(extractor_t *x, const char *line, size_t len, err_t *e);

/* Extracts fields for n lines. line[i] points at a line's first byte and
 * len[i] is its length without the '\n' (a trailing '\r' is part of it; the
 * formats trim surrounding whitespace as DTail does). Fills cols[f][i] for
 * every field f and status[i]. For EXTRACT_ERROR lines, the message of the
 * first such line of the batch is available from extractor_last_error ("" when
 * the batch had none; never NULL). Columns of lines that are not EXTRACT_OK
 * are all missing. */
/* Fuses the `from TABLE` filter into the format: from now on a line that
 * does not contain `literal` (the filter's text, e.g. "|MAPREDUCE:STATS|",
 * searched in the untrimmed line as the table filter would) gets
 * EXTRACT_NO_TABLE, and the other lines their usual status, so the caller
 * need not search every line first. Returns 1 when the format took the
 * filter (default), 0 when it cannot (the caller filters), -1 with e set
 * when out of memory. The literal is copied. */
int extractor_set_table(extractor_t *x, const char *literal, err_t *e);

void extract_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                   sv_t *const *cols, uint8_t *status);
const char *extractor_last_error(const extractor_t *x);

/* Calls fn for every field name line (a parsed line, without its '\n')
 * gives: its keys (default: past the 10 fixed fields; json: the keys at
 * any depth, undotted, as written), or the current CSV header's columns.
 * For the "did you mean" of a name no line had: cold, never per line of a
 * scan. */
typedef void (*extract_name_fn)(void *arg, const char *p, size_t len);
void extractor_line_names(const extractor_t *x, const char *line, size_t len, extract_name_fn fn,
                          void *arg);

/* Whether the format can split lines itself (extract_lines). */
bool extractor_splits_lines(const extractor_t *x);
/* Splits [p, end), whole lines each ending in '\n', into rows *n.. of a
 * batch and extracts them in the same pass: line[], len[], cols and status
 * as extract_batch would fill them for those lines. Stops when *n reaches
 * cap; returns where the next line starts (end when all were taken). A
 * batch is begun when *n is 0 (the error message and scratch reset), and
 * may be filled by several calls. */
const char *extract_lines(extractor_t *x, const char *p, const char *end, const char **line,
                          uint32_t *len, size_t *n, size_t cap, sv_t *const *cols,
                          uint8_t *status);

#endif
