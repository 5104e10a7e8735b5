/* records.c: lines grouped into records by a start pattern. */
#include "exec/scan/records.h"

#include <stdlib.h>
#include <string.h>

#include "exec/scan/reader.h"

int records_init(records_t *rs, matcher_t *start, size_t max, err_t *e)
{
    memset(rs, 0, sizeof *rs);
    rs->start = start;
    rs->max = max ? max : 1;
    /* The bound plus the last '\n', and the slack vector loads read past. */
    for (int i = 0; i < 2; i++) {
        rs->buf[i] = malloc(rs->max + 1 + READER_SLACK);
        if (!rs->buf[i]) {
            records_free(rs);
            return err_set(e, ERR_NOMEM, "out of memory for a %zu byte record", rs->max);
        }
    }
    return 0;
}

void records_free(records_t *rs)
{
    free(rs->buf[0]);
    free(rs->buf[1]);
    rs->buf[0] = rs->buf[1] = NULL;
}

void records_reset(records_t *rs)
{
    rs->pend = NULL;
    rs->pend_len = 0;
    rs->pend_lines = 0;
    rs->in_buf = 0;
    rs->skip_to_start = 0;
    rs->n_records = rs->n_cut = 0;
}

static int emit(records_t *rs, record_fn fn, void *arg)
{
    record_t rec = {
        .p = rs->pend, .len = rs->pend_len - 1, .lines = rs->pend_lines, .off = rs->pend_off,
    };
    rs->pend = NULL;
    rs->pend_len = 0;
    rs->pend_lines = 0;
    rs->in_buf = 0;
    rs->n_records++;
    return fn(arg, &rec);
}

static void begin(records_t *rs, const char *line, size_t n, long long off)
{
    rs->pend = line;
    rs->pend_len = n;
    rs->pend_lines = 1;
    rs->pend_off = off;
    rs->in_buf = 0;
}

/* tail: the lines are past a parallel range's end, and a start line ends
 * the range (returns 1) instead of beginning a record. */
static int feed(records_t *rs, const char *p, const char *end, long long off, record_fn fn,
                void *arg, int tail)
{
    const char *base = p;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)(nl - p) + 1;
        long long at = off + (p - base);
        int starts = matcher_line_matches(rs->start, p, n - 1);
        if (tail && starts)
            return records_flush(rs, fn, arg), 1;
        if (rs->skip_to_start) {
            if (!starts) {
                p = nl + 1;
                continue;
            }
            rs->skip_to_start = 0;
        }
        if (!rs->pend) {
            begin(rs, p, n, at);
        } else if (starts || rs->pend_len + n > rs->max + 1) {
            if (!starts)
                rs->n_cut++;
            if (emit(rs, fn, arg)) {
                return 1;
            }
            begin(rs, p, n, at);
        } else if (rs->in_buf) {
            memcpy(rs->buf[rs->cur] + rs->pend_len, p, n);
            rs->pend_len += n;
            rs->pend_lines++;
        } else {
            rs->pend_len += n;     /* the view grows over the next line */
            rs->pend_lines++;
        }
        p = nl + 1;
    }
    /* The region goes away with the next read: the unfinished record is
     * kept in the buffer the last emitted one is not in. */
    if (rs->pend && !rs->in_buf) {
        rs->cur ^= 1;
        memcpy(rs->buf[rs->cur], rs->pend, rs->pend_len);
        rs->pend = rs->buf[rs->cur];
        rs->in_buf = 1;
    }
    return 0;
}

int records_feed(records_t *rs, const char *p, const char *end, long long off, record_fn fn,
                 void *arg)
{
    return feed(rs, p, end, off, fn, arg, 0);
}

int records_feed_tail(records_t *rs, const char *p, const char *end, long long off,
                      record_fn fn, void *arg)
{
    /* A range without a start line of its own has no record to finish:
     * the range before it reads these lines. */
    if (rs->skip_to_start)
        return 1;
    return feed(rs, p, end, off, fn, arg, 1);
}

int records_flush(records_t *rs, record_fn fn, void *arg)
{
    return rs->pend ? emit(rs, fn, arg) : 0;
}
