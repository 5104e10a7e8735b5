/* records.h: multi-line records out of the reader's lines.
 *
 * A record is a line the start pattern matches and every following line
 * it does not match (a stack trace under its log line), joined with their
 * '\n's as in the file. Lines before the first start line of an input
 * form a record of their own. The scans that read records (linescan.c for
 * cat/grep/tail, mapscan.c for map) feed the reader's regions through
 * records_feed, which calls back once per finished record: a record that
 * lies inside a region is a view of it (no copy); only the unfinished
 * record at a region's end is copied, so a record is never cut at a
 * region, window or batch boundary. A record longer than the bound (the
 * maximum line length) is cut after its last whole line that fits: the
 * lines after the cut form the next record, and the cut is counted.
 * Nothing is allocated per record. */
#ifndef DTAIL_EXEC_SCAN_RECORDS_H
#define DTAIL_EXEC_SCAN_RECORDS_H

#include <stddef.h>

#include "base/err.h"
#include "exec/filter/matcher.h"

/* A followed file's last record is finished once the file has had nothing
 * new for this long (the next start line finishes it sooner). */
#define RECORDS_IDLE_MS 500

typedef struct record {
    const char *p;              /* first byte of the start line */
    size_t len;                 /* bytes without the last line's '\n' */
    unsigned long long lines;   /* lines in it (1 for a line alone) */
    long long off;              /* input offset of p */
} record_t;

/* Called for every finished record; the record's bytes stay valid until
 * records_feed returns and over the next call. A non-zero return stops
 * the feed (grep's --max reached). */
typedef int (*record_fn)(void *arg, const record_t *rec);

typedef struct records {
    matcher_t *start;           /* a line it matches starts a record (borrowed) */
    size_t max;                 /* the most bytes a record holds, without its last '\n' */
    char *buf[2];               /* the unfinished record, copied; two so that a
                                   record emitted from one stays valid while
                                   the next is copied */
    int cur;                    /* buf[cur] holds the pending record when in_buf */
    int in_buf;                 /* the pending record is in buf[cur], else in the region */
    const char *pend;           /* the pending record's first byte, NULL: none */
    size_t pend_len;            /* its bytes, each line's '\n' included */
    unsigned long long pend_lines; /* its lines */
    long long pend_off;         /* its input offset */
    int skip_to_start;          /* drop lines until a start line (a parallel
                                   range that does not start the file) */
    unsigned long long n_records; /* records emitted since reset */
    unsigned long long n_cut;   /* of them, cut at the bound */
} records_t;

/* start is borrowed and used from one thread; max is the bound (the
 * reader's maximum line length). */
int records_init(records_t *rs, matcher_t *start, size_t max, err_t *e);
void records_free(records_t *rs);
/* A new input: the pending record and the counts are dropped. */
void records_reset(records_t *rs);
/* Feeds whole lines [p, end) (each ends in '\n') at input offset off.
 * Returns 1 when fn stopped it, else 0. */
int records_feed(records_t *rs, const char *p, const char *end, long long off, record_fn fn,
                 void *arg);
/* The lines after the end of a parallel range (exec/scan/range.h): a
 * record belongs to the range its start line is in, so the range's last
 * record takes the continuation lines that follow, up to the first start
 * line, which ends the range. Returns 1 when the range is over (that
 * record emitted), 0 when more lines are needed (at the end of input,
 * records_flush). The next range begins with skip_to_start set. */
int records_feed_tail(records_t *rs, const char *p, const char *end, long long off,
                      record_fn fn, void *arg);
/* The pending record is finished (end of input, or a follower idle):
 * emits it. Returns fn's result, 0 when none was pending. */
int records_flush(records_t *rs, record_fn fn, void *arg);
static inline int records_pending(const records_t *rs) { return rs->pend != NULL; }

#endif
