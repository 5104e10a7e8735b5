/* linescan.c: region loop with the context state machine. */
#include "exec/linescan.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "exec/filter/literal.h"
#include "exec/scan/reader.h"

/* A copied context line: regions are reused, so before-context is kept. */
typedef struct ctx_line {
    char *p;                   /* owned copy of the content */
    size_t len;                /* content bytes */
    size_t cap;                /* bytes allocated */
    unsigned long long lineno; /* its number */
} ctx_line_t;

typedef struct scan {
    const linescan_opts_t *o;  /* options */
    matcher_t *m;              /* the matcher */
    line_sink_t *sink;         /* destination */
    int numbers;               /* the sink shows line numbers */
    unsigned long long lineno; /* lines consumed so far in this input */
    unsigned long long n_selected; /* selected lines in this input */
    unsigned after_left;       /* after-context lines still to write */
    int stopping;              /* --max reached: finish after-context, then stop */
    int stop;                  /* stop reading this input */
    ctx_line_t *ring;          /* o->before slots */
    unsigned ring_head;        /* oldest entry */
    unsigned ring_n;           /* entries held */
    records_t *rec;            /* multi-line records; NULL: lines */
} scan_t;

static void ring_push(scan_t *s, const char *p, size_t len, unsigned long long lineno)
{
    unsigned cap = s->o->before;
    unsigned slot = (s->ring_head + s->ring_n) % cap;
    if (s->ring_n == cap) {
        slot = s->ring_head;
        s->ring_head = (s->ring_head + 1) % cap;
    } else {
        s->ring_n++;
    }
    ctx_line_t *c = &s->ring[slot];
    if (c->cap < len || !c->p) {
        size_t want = len > 64 ? len : 64;
        char *np = realloc(c->p, want);
        if (!np)
            return;   /* context is best effort under memory pressure */
        c->p = np;
        c->cap = want;
    }
    if (len)
        memcpy(c->p, p, len);
    c->len = len;
    c->lineno = lineno;
}

static void ring_flush(scan_t *s)
{
    unsigned cap = s->o->before;
    for (unsigned i = 0; i < s->ring_n; i++) {
        ctx_line_t *c = &s->ring[(s->ring_head + i) % cap];
        line_sink_put(s->sink, c->p, c->len, c->lineno);
    }
    s->ring_head = s->ring_n = 0;
}

static void on_selected(scan_t *s, const char *p, size_t len)
{
    if (s->stopping) {
        s->stop = 1;
        return;
    }
    s->lineno++;
    if (s->ring_n)
        ring_flush(s);
    line_sink_put(s->sink, p, len, s->lineno);
    s->n_selected++;
    s->after_left = s->o->after;
    if (s->o->max && s->n_selected >= s->o->max) {
        if (s->o->after == 0)
            s->stop = 1;
        else
            s->stopping = 1;
    }
}

static void on_unselected(scan_t *s, const char *p, size_t len)
{
    s->lineno++;
    if (s->after_left) {
        line_sink_put(s->sink, p, len, s->lineno);
        if (--s->after_left == 0 && s->stopping)
            s->stop = 1;
    } else if (s->o->before) {
        ring_push(s, p, len, s->lineno);
    }
}

/* Unselected lines [a, b), each ending in '\n'. Only the first after_left
 * and the last `before` lines are visited; the rest are only counted. */
static void unselected_range(scan_t *s, const char *a, const char *b)
{
    while (a < b && s->after_left && !s->stop) {
        const char *nl = memchr(a, '\n', (size_t)(b - a));
        on_unselected(s, a, (size_t)(nl - a));
        a = nl + 1;
    }
    if (a >= b || s->stop)
        return;
    if (!s->o->before) {
        if (s->numbers)
            s->lineno += count_byte(a, (size_t)(b - a), '\n');
        return;
    }
    /* Find the start of the last `before` lines, scanning back. */
    const char *tail = b;
    unsigned k = 0;
    while (k < s->o->before && tail > a) {
        const char *nl = tail - 1 > a ? memrchr(a, '\n', (size_t)(tail - 1 - a)) : NULL;
        tail = nl ? nl + 1 : a;
        k++;
    }
    s->lineno += count_byte(a, (size_t)(tail - a), '\n');
    while (tail < b) {
        const char *nl = memchr(tail, '\n', (size_t)(b - tail));
        on_unselected(s, tail, (size_t)(nl - tail));
        tail = nl + 1;
    }
}

static void selected_range(scan_t *s, const char *a, const char *b)
{
    while (a < b && !s->stop) {
        const char *nl = memchr(a, '\n', (size_t)(b - a));
        on_selected(s, a, (size_t)(nl - a));
        a = nl + 1;
    }
}

/* The general path: invert, context and max. */
static void scan_region_general(scan_t *s, const char *p, const char *end)
{
    while (p < end && !s->stop) {
        const char *ls, *le;
        int hit = matcher_next_line(s->m, p, end, &ls, &le);
        if (!hit)
            ls = le = end;
        if (s->o->invert)
            selected_range(s, p, ls);
        else
            unselected_range(s, p, ls);
        if (!hit || s->stop)
            return;
        if (s->o->invert)
            on_unselected(s, ls, (size_t)(le - ls));
        else
            on_selected(s, ls, (size_t)(le - ls));
        p = le + 1;
    }
}

void linescan_region_unnumbered(matcher_t *m, line_sink_t *sink, const char *p, const char *end)
{
    if (m->kind == MATCHER_NOOP) {
        line_sink_put_run(sink, p, (size_t)(end - p), 0);
        return;
    }
    const char *ls, *le;
    while (p < end && matcher_next_line(m, p, end, &ls, &le)) {
        line_sink_put(sink, ls, (size_t)(le - ls), 0);
        p = le + 1;
    }
}

void linescan_region_numbered(matcher_t *m, line_sink_t *sink, const char *p, const char *end,
                              unsigned long long *lineno)
{
    unsigned long long n = *lineno;
    const char *ls, *le;
    while (p < end && matcher_next_line(m, p, end, &ls, &le)) {
        n += count_byte(p, (size_t)(ls - p), '\n');
        line_sink_put(sink, ls, (size_t)(le - ls), ++n);
        p = le + 1;
    }
    if (p < end)
        n += count_byte(p, (size_t)(end - p), '\n');
    *lineno = n;
}

/* One record of a multi-line scan: the pattern sees it whole, context and
 * --max count records, and its number is its start line's. */
static int on_record(void *arg, const record_t *rec)
{
    scan_t *s = arg;
    if (matcher_line_matches(s->m, rec->p, rec->len) != !!s->o->invert)
        on_selected(s, rec->p, rec->len);
    else
        on_unselected(s, rec->p, rec->len);
    s->lineno += rec->lines - 1;
    return s->stop;
}

/* The fast path: selected lines only, no context. */
static void scan_region_fast(scan_t *s, const char *p, const char *end)
{
    if (s->numbers)
        linescan_region_numbered(s->m, s->sink, p, end, &s->lineno);
    else
        linescan_region_unnumbered(s->m, s->sink, p, end);
}

static void scan_region(scan_t *s, const region_t *reg, int general)
{
    if (s->rec)
        records_feed(s->rec, reg->p, reg->p + reg->len, reg->off, on_record, s);
    else if (general)
        scan_region_general(s, reg->p, reg->p + reg->len);
    else
        scan_region_fast(s, reg->p, reg->p + reg->len);
}

static int scan_loop(scan_t *s, reader_t *r, int general, const char *name, err_t *e)
{
    int warned = 0;
    region_t reg;
    /* Output that can no longer be written (a closed pipe, a client gone
     * from dserver) ends the read: once per region, never per line. */
    while (!s->stop && !s->sink->out->failed) {
        int got = reader_next(r, &reg, e);
        if (got <= 0) {
            /* The last record ends with its input (what a failed read
             * gave is written, as for lines). */
            if (s->rec)
                records_flush(s->rec, on_record, s);
            return got;
        }
        if (r->n_split && !warned) {
            warned = 1;
            LOG_WARN("%s|Long log line, splitting into multiple lines", name);
        }
        scan_region(s, &reg, general);
    }
    return 0;
}

/* The scan with the reader's mapping guard armed: no local of this frame
 * changes between sigsetjmp and a jump back. */
static int scan_guarded(scan_t *s, reader_t *r, int general, const char *name, err_t *e)
{
    map_guard_t *guard = reader_guard(r);
    if (sigsetjmp(guard->jb, 0)) {
        map_guard_set(NULL);
        return input_err_shrank(e, name);
    }
    map_guard_set(guard);
    int rc = scan_loop(s, r, general, name, e);
    map_guard_set(NULL);
    return rc;
}

int linescan_init(linescan_t *ls, const linescan_opts_t *o, err_t *e)
{
    memset(ls, 0, sizeof *ls);
    ls->o = *o;
    /* DTail: ".", ".*" and "" match everything and --invert has no effect. */
    if (o->matcher->kind == MATCHER_NOOP)
        ls->o.invert = 0;
    if (o->before) {
        ls->ring = calloc(o->before, sizeof *ls->ring);
        if (!ls->ring)
            return err_set(e, ERR_NOMEM, "out of memory for %u context lines", o->before);
    }
    if (reader_init(&ls->reader, NULL, o->max_line_len, 0, e) < 0) {
        free(ls->ring);
        ls->ring = NULL;
        return -1;
    }
    if (o->record_start && records_init(&ls->records, o->record_start, o->max_line_len, e) < 0) {
        linescan_free(ls);
        return -1;
    }
    return 0;
}

void linescan_free(linescan_t *ls)
{
    reader_free(&ls->reader);
    records_free(&ls->records);
    for (unsigned i = 0; ls->ring && i < ls->o.before; i++)
        free(ls->ring[i].p);
    free(ls->ring);
    ls->ring = NULL;
}

int linescan_run(linescan_t *ls, input_t *in, const char *name,
                 line_sink_t *sink, linescan_stats_t *stats, err_t *e)
{
    const linescan_opts_t *o = &ls->o;
    scan_t s = {
        .o = o, .m = o->matcher, .sink = sink,
        .numbers = line_sink_numbers(sink),
        .ring = ls->ring,
        .rec = o->record_start ? &ls->records : NULL,
    };
    records_reset(&ls->records);
    int general = o->invert || o->before || o->after || o->max;
    reader_t *r = &ls->reader;
    reader_reset(r, in, 0);
    r->n_split = r->bytes_read = 0;
    int rc = scan_guarded(&s, r, general, name, e);
    reader_reset(r, NULL, 0);
    /* Mapped bytes go to the output without a copy (line_sink_put_run): a
     * write that finds them gone fails with EFAULT, which is this input's
     * truncation, not a fault of the output. */
    if (sink->out->failed && sink->out->write_errno == EFAULT) {
        sink->out->failed = 0;
        sink->out->write_errno = 0;
        rc = input_err_shrank(e, name);
    }
    if (rc == 0)
        rc = input_check_not_shrunk(in, name, e);
    if (stats) {
        stats->lines_selected += s.n_selected;
        stats->lines_split += r->n_split;
        stats->bytes_read += r->bytes_read;
        stats->records_cut += ls->records.n_cut;
    }
    if (ls->records.n_cut)
        LOG_WARN("%s|%llu multi-line records longer than %zu bytes, cut into more records",
                 name, ls->records.n_cut, o->max_line_len);
    return rc;
}

struct linescan_stream {
    linescan_t ls;            /* reader and context ring */
    scan_t s;                 /* the state between steps */
    int general;              /* context, --max or --invert */
    int warned;               /* the long-line warning was given */
    long long last_data_ms;   /* when a region was last read (records) */
};

linescan_stream_t *linescan_stream_new(const linescan_opts_t *o, input_t *in, err_t *e)
{
    linescan_stream_t *st = calloc(1, sizeof *st);
    if (!st) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (linescan_init(&st->ls, o, e) < 0) {
        free(st);
        return NULL;
    }
    reader_set_block(&st->ls.reader, 64 * 1024);
    reader_reset(&st->ls.reader, in, 0);
    st->s.o = &st->ls.o;
    st->s.m = st->ls.o.matcher;
    st->s.ring = st->ls.ring;
    st->s.rec = o->record_start ? &st->ls.records : NULL;
    st->last_data_ms = clock_now_ms();
    st->general = st->ls.o.invert || st->ls.o.before || st->ls.o.after || st->ls.o.max;
    return st;
}

void linescan_stream_free(linescan_stream_t *st)
{
    if (!st)
        return;
    linescan_free(&st->ls);
    free(st);
}

int linescan_stream_step(linescan_stream_t *st, line_sink_t *sink, const char *name,
                         size_t budget, err_t *e)
{
    scan_t *s = &st->s;
    reader_t *r = &st->ls.reader;
    s->sink = sink;
    s->numbers = line_sink_numbers(sink);
    unsigned long long start = r->bytes_read;
    while (!s->stop && !sink->out->failed) {
        region_t reg;
        int got = reader_next(r, &reg, e);
        if (got != 1) {
            /* A followed record ends with the next start line, or when
             * its file has been quiet for a while (its trace is whole). */
            if (s->rec && (got != 2 || clock_now_ms() - st->last_data_ms >= RECORDS_IDLE_MS))
                records_flush(s->rec, on_record, s);
            return got;
        }
        st->last_data_ms = clock_now_ms();
        if (r->n_split && !st->warned) {
            st->warned = 1;
            LOG_WARN("%s|Long log line, splitting into multiple lines", name);
        }
        scan_region(s, &reg, st->general);
        if (r->bytes_read - start >= budget)
            return s->stop ? 0 : 1;
    }
    return 0;
}

void linescan_stream_stats(const linescan_stream_t *st, linescan_stats_t *out)
{
    out->lines_selected = st->s.n_selected;
    out->lines_split = st->ls.reader.n_split;
    out->bytes_read = st->ls.reader.bytes_read;
    out->records_cut = st->ls.records.n_cut;
}

unsigned long long linescan_stream_cut(const linescan_stream_t *st)
{
    return st->ls.reader.n_cut;
}

int linescan_run_auto(linescan_t *ls, input_t *in, const char *name, line_sink_t *sink,
                      int n_threads, linescan_stats_t *stats, err_t *e)
{
    if (linescan_parallel_eligible(&ls->o, sink, in))
        return linescan_run_parallel(&ls->o, in, name, sink, n_threads, stats, e);
    return linescan_run(ls, in, name, sink, stats, e);
}
