/* mapscan.c: batches of lines through the extractor and the evaluator. */
#include "exec/mapscan.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/clock.h"
#include "base/log.h"
#include "exec/extract/extract_plan.h"
#include "exec/filter/literal.h"
#include "exec/scan/range.h"

#define MAP_RANGE (8LL * 1024 * 1024)       /* bytes per parallel work unit */
/* The last n_threads * MAP_RANGE bytes go in units of this size, so the
 * workers finish together instead of one idling while another ends a large
 * unit. */
#define MAP_RANGE_TAIL (1LL * 1024 * 1024)
#define MAP_PREFETCH 1024          /* bytes the newline scan reads ahead */
#define MAP_SLICE (256 * 1024)     /* bytes per choice of the fused filter's mode */
#define MAP_MODE_MIN 4096          /* lines seen before the mode may change */
#define MAP_MODE_WINDOW 65536      /* lines after which the shares restart */
#define MAP_MIN_PARALLEL (16LL * 1024 * 1024) /* smaller inputs run on one worker */
#define MAP_SAMPLE_LINES 8         /* lines kept while a named field is unseen */
#define MAP_SAMPLE_LEN 2048        /* bytes kept of each */

struct map_worker {
    mapscan_t *ms;               /* owner */
    eval_t ev;                   /* compiled plan */
    extractor_t *x;              /* log format */
    matcher_t filter;            /* own copy (pcre2 match data per thread) */
    agg_table_t table;           /* partial result */
    reader_t reader;             /* buffers */
    pthread_mutex_t mu;          /* held while folding a batch (snapshots) */
    const char *line[EVAL_BATCH];/* batch lines */
    uint32_t len[EVAL_BATCH];    /* their lengths without '\n' */
    uint64_t seq[EVAL_BATCH];    /* their input positions */
    uint32_t rows[EVAL_BATCH];   /* rows the format accepted */
    size_t n;                    /* lines in the batch */
    int splits;                  /* the format splits lines itself: a dense
                                    batch is extracted as it is split */
    /* Set while the batch is folded into the table under mu: a fault of
     * the mapping there jumps out with mu held, and the jump's landing
     * must release it (the table stays whole: what it copies from a line,
     * it copies before it links it in). */
    volatile sig_atomic_t in_table;
    map_stats_t stats;           /* this worker's counts */
    unsigned file_index;         /* input being read */
    int dense;                   /* every line to the extractor (else the
                                    literal search picks them) */
    unsigned long long mode_lines; /* lines scanned since the shares restarted */
    unsigned long long mode_hits;  /* of those, found by the search */
    unsigned long long mode_other; /* lines the extractor found of no table */
    uint32_t *chk_col;           /* per bareword field (ms->fields): its column */
    uint8_t *seen;               /* per bareword field: a parsed line had it */
    size_t n_unseen;             /* fields not seen yet: 0 makes the check
                                    one branch per batch */
    char *sample;                /* MAP_SAMPLE_LINES lines, for the names a
                                    "did you mean" picks from; NULL until a
                                    batch ends with a field unseen */
    uint32_t sample_len[MAP_SAMPLE_LINES]; /* bytes kept of each */
    uint32_t n_sample;           /* lines in sample */
    /* Multi-line records (o.record_start): the batch's line[]/len[] are
     * the records' start lines, which the format reads, and rec_len their
     * whole bytes, which $line is. */
    int records;                 /* records, not lines */
    records_t rec;               /* the grouping */
    matcher_t start;             /* own copy of the start pattern */
    uint32_t rec_len[EVAL_BATCH];/* the records' bytes without the last '\n' */
    uint32_t line_cols[4];       /* the columns of $line */
    size_t n_line_cols;          /* ... how many */
    long long last_data_ms;      /* a followed file's last read (idle flush) */
};

/* Writes table t to the spill (opened on first use) and clears it. A
 * failed spill leaves the groups in memory (the result stays right) and is
 * kept in ms->spill_err for mapscan_run to report. Takes spill_mu. */
static void table_spill(mapscan_t *ms, agg_table_t *t)
{
    pthread_mutex_lock(&ms->spill_mu);
    if (ms->spill_err.code == ERR_NONE) {
        err_t e;
        err_clear(&e);
        if (!ms->spill)
            ms->spill = spill_open(ms->specs, ms->o.plan->n_select, &e);
        if (ms->spill && spill_write(ms->spill, t, &e) == 0)
            agg_table_clear(t);
        else
            ms->spill_err = e;
    }
    pthread_mutex_unlock(&ms->spill_mu);
}

/* Which unseen bareword fields the batch's parsed rows have; while one is
 * still unseen, a line or two is kept for the names that did appear. */
static __attribute__((noinline)) void note_fields(map_worker_t *w, size_t nr)
{
    const field_report_t *fr = &w->ms->fields;
    for (size_t k = 0; k < fr->n_fields; k++) {
        if (w->seen[k])
            continue;
        const sv_t *col = w->ev.cols[w->chk_col[k]];
        for (size_t r = 0; r < nr; r++) {
            if (col[w->rows[r]].len != SV_MISSING) {
                w->seen[k] = 1;
                w->n_unseen--;
                break;
            }
        }
    }
    if (!w->n_unseen || w->n_sample == MAP_SAMPLE_LINES)
        return;
    if (!w->sample && !(w->sample = malloc(MAP_SAMPLE_LINES * MAP_SAMPLE_LEN)))
        return;     /* no hint, nothing else */
    for (size_t r = 0; r < nr && w->n_sample < MAP_SAMPLE_LINES; r += nr / 2 + 1) {
        uint32_t i = w->rows[r], n = w->len[i] < MAP_SAMPLE_LEN ? w->len[i] : MAP_SAMPLE_LEN;
        memcpy(w->sample + (size_t)w->n_sample * MAP_SAMPLE_LEN, w->line[i], n);
        w->sample_len[w->n_sample++] = n;
    }
}

/* $line of a parsed multi-line record is the whole record: from where
 * the format's $line of its start line begins to the record's end, less
 * trailing white space. */
static void records_line(map_worker_t *w)
{
    for (size_t k = 0; k < w->n_line_cols; k++) {
        sv_t *col = w->ev.cols[w->line_cols[k]];
        for (size_t i = 0; i < w->n; i++) {
            if (w->rec_len[i] == w->len[i] || col[i].len == SV_MISSING ||
                w->ev.status[i] != EXTRACT_OK)
                continue;
            const char *end = w->line[i] + w->rec_len[i];
            while (end > col[i].p && (end[-1] == ' ' || (end[-1] >= '\t' && end[-1] <= '\r')))
                end--;
            col[i].len = (uint32_t)(end - col[i].p);
        }
    }
}

static void flush_batch(map_worker_t *w)
{
    if (!w->n)
        return;
    if (!(w->splits && w->dense))
        extract_batch(w->x, w->line, w->len, w->n, w->ev.cols, w->ev.status);
    if (w->n_line_cols)
        records_line(w);
    size_t nr = 0, other = 0;
    for (size_t i = 0; i < w->n; i++) {
        uint8_t st = w->ev.status[i];
        other += st == EXTRACT_NO_TABLE;
        w->rows[nr] = (uint32_t)i;
        nr += st == EXTRACT_OK;
        if (st == EXTRACT_ERROR) {
            w->stats.lines_unparsed++;
            if (w->stats.n_examples < MAP_ERROR_EXAMPLES) {
                const char *why = extractor_last_error(w->x);
                snprintf(w->stats.examples[w->stats.n_examples++], 256, "%s: %.*s",
                         why ? why : "unparsable", (int)(w->len[i] > 160 ? 160 : w->len[i]),
                         w->line[i]);
            }
        } else if (st == EXTRACT_SKIP) {
            w->stats.lines_skipped++;
        }
    }
    /* Only a fused table filter makes NO_TABLE lines; otherwise every
     * line of the batch passed the filter (or there is none). */
    w->stats.lines_matched += w->n - other;
    w->mode_other += other;
    w->stats.lines_parsed += nr;
    if (w->n_unseen && nr)
        note_fields(w, nr);
    pthread_mutex_lock(&w->mu);
    w->in_table = 1;
    w->stats.lines_selected += eval_batch(&w->ev, &w->table, w->rows, nr, w->seq);
    w->in_table = 0;
    /* The memory budget: one comparison per batch. Spilling reads the
     * table, never the mapping. */
    if (agg_table_bytes(&w->table) > w->ms->table_budget)
        table_spill(w->ms, &w->table);
    pthread_mutex_unlock(&w->mu);
    w->n = 0;
}

static inline void add_line(map_worker_t *w, const char *p, size_t len, long long off)
{
    w->line[w->n] = p;
    w->len[w->n] = (uint32_t)len;
    w->seq[w->n] = ((uint64_t)w->file_index << 44) | (uint64_t)(off + 1);
    if (++w->n == EVAL_BATCH)
        flush_batch(w);
}

#ifdef __SSE2__
/* Bit k set when q[k] is '\n', k < 64. */
static inline uint64_t newline_mask64(const char *q, __m128i vnl)
{
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + 16 * k));
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vnl)) << (16 * k);
    }
    return m;
}
#endif

/* Every line of [p, end) (whole lines) into the batch; base is the
 * region's start, at input offset off. Returns the line count. The
 * newlines of 64 bytes at a time come as a bit mask (no call per line),
 * the last bytes with memchr. */
static unsigned long long scan_all(map_worker_t *w, const char *p, const char *end,
                                   const char *base, long long off)
{
    unsigned long long n = 0;
    const char *ls = p;     /* start of the next line */
#ifdef __SSE2__
    const __m128i vnl = _mm_set1_epi8('\n');
    for (; end - p >= 64; p += 64) {
        __builtin_prefetch(p + MAP_PREFETCH);
        uint64_t m = newline_mask64(p, vnl);
        while (m) {
            const char *nl = p + __builtin_ctzll(m);
            add_line(w, ls, (size_t)(nl - ls), off + (ls - base));
            ls = nl + 1;
            n++;
            m &= m - 1;
        }
    }
#endif
    while (ls < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        add_line(w, ls, (size_t)(nl - ls), off + (ls - base));
        ls = p = nl + 1;
        n++;
    }
    return n;
}

/* Every line of [p, end) into the batch, split and extracted by the format
 * in one pass (extract_lines). Returns the line count. */
static unsigned long long scan_split(map_worker_t *w, const char *p, const char *end,
                                     const char *base, long long off)
{
    unsigned long long n = 0;
    const uint64_t file = (uint64_t)w->file_index << 44;
    while (p < end) {
        size_t first = w->n;
        p = extract_lines(w->x, p, end, w->line, w->len, &w->n, EVAL_BATCH, w->ev.cols,
                          w->ev.status);
        for (size_t i = first; i < w->n; i++)
            w->seq[i] = file | (uint64_t)(off + (w->line[i] - base) + 1);
        n += w->n - first;
        if (w->n == EVAL_BATCH)
            flush_batch(w);
    }
    return n;
}

/* Every line of [p, end) into the batch, by the fastest way the format
 * allows. Returns the line count. */
static unsigned long long scan_dense(map_worker_t *w, const char *p, const char *end,
                                     const char *base, long long off)
{
    if (w->splits)
        return scan_split(w, p, end, base, off);
    return scan_all(w, p, end, base, off);
}

/* The lines of [p, end) that hold the table literal into the batch, found
 * by searching the whole range. Returns their count. */
static unsigned long long scan_filtered(map_worker_t *w, const char *p, const char *end,
                                        const char *base, long long off)
{
    unsigned long long hits = 0;
    const char *ls, *le;
    while (p < end && matcher_next_line(&w->filter, p, end, &ls, &le)) {
        hits++;
        add_line(w, ls, (size_t)(le - ls), off + (ls - base));
        p = le + 1;
    }
    return hits;
}

/* The table filter fused into the extractor: where nearly every line is of
 * the table, every line goes to the extractor (it proves the table from
 * field 9, flush_batch counts the matches); elsewhere the literal search
 * skips the other lines at vector speed, and the extractor only confirms.
 * The choice is made per slice from the recent share of matching lines;
 * either way the same lines are matched, parsed and counted. */
static void scan_fused(map_worker_t *w, const char *p, const char *end, long long off)
{
    const char *base = p;
    while (p < end) {
        const char *se = end;
        if (end - p > MAP_SLICE) {
            const char *nl = memchr(p + MAP_SLICE - 1, '\n', (size_t)(end - p - MAP_SLICE + 1));
            se = nl + 1;
        }
        if (w->dense) {
            unsigned long long n = scan_dense(w, p, se, base, off);
            w->stats.lines_read += n;
            w->mode_lines += n;
            if (w->mode_lines >= MAP_MODE_MIN && w->mode_other * 16 > w->mode_lines) {
                flush_batch(w);     /* its rows are of the dense kind */
                w->dense = 0;
                w->mode_lines = w->mode_hits = w->mode_other = 0;
            }
        } else {
            unsigned long long n = count_byte(p, (size_t)(se - p), '\n');
            w->stats.lines_read += n;
            w->mode_lines += n;
            w->mode_hits += scan_filtered(w, p, se, base, off);
            if (w->mode_lines >= MAP_MODE_MIN && w->mode_hits * 32 >= w->mode_lines * 31) {
                flush_batch(w);
                w->dense = 1;
                w->mode_lines = w->mode_hits = w->mode_other = 0;
            }
        }
        if (w->mode_lines >= MAP_MODE_WINDOW)
            w->mode_lines = w->mode_hits = w->mode_other = 0;
        p = se;
    }
}

/* One multi-line record into the batch: its start line for the format,
 * its length for $line. The table filter, unless fused into the format,
 * looks at the start line. */
static int add_record(void *arg, const record_t *rec)
{
    map_worker_t *w = arg;
    const char *nl = memchr(rec->p, '\n', rec->len);
    size_t first = nl ? (size_t)(nl - rec->p) : rec->len;
    w->stats.lines_read++;
    if (w->ms->has_filter && !w->ms->fused_filter &&
        !matcher_line_matches(&w->filter, rec->p, first))
        return 0;
    w->rec_len[w->n] = (uint32_t)rec->len;
    add_line(w, rec->p, first, rec->off);
    return 0;
}

/* All lines of [p, end) (whole lines) that pass the table filter. */
static void scan_region(map_worker_t *w, const char *p, const char *end, long long off)
{
    if (w->records) {
        records_feed(&w->rec, p, end, off, add_record, w);
    } else if (w->ms->fused_filter) {
        scan_fused(w, p, end, off);
    } else if (w->dense) {
        w->stats.lines_read += scan_dense(w, p, end, p, off);
    } else {
        w->stats.lines_read += count_byte(p, (size_t)(end - p), '\n');
        scan_filtered(w, p, end, p, off);
    }
}

/* Lines starting before `stop` (-1: all) from the worker's reader. With
 * multi-line records, records starting before stop: the last one takes
 * the continuation lines past stop (their bytes are the next range's). */
static int scan_reader(map_worker_t *w, long long stop, err_t *e)
{
    region_t reg;
    int tail = 0;     /* past stop, finishing the range's last record */
    for (;;) {
        if (mapscan_stopped(w->ms))
            return err_set(e, ERR_INPUT, mapscan_timed_out(w->ms) ? "timed out" : "cancelled");
        int got = reader_next(&w->reader, &reg, e);
        if (got != 1) {
            if (w->records && got != 2)
                records_flush(&w->rec, add_record, w);
            return got;
        }
        w->last_data_ms = clock_now_ms();
        if (tail) {
            w->reader.bytes_read -= reg.len;
            int over = records_feed_tail(&w->rec, reg.p, reg.p + reg.len, reg.off, add_record, w);
            flush_batch(w);
            if (over)
                return 0;
            continue;
        }
        int last = 0;
        const char *end = stop >= 0 ? range_cut(&w->reader, &reg, stop, &last) : reg.p + reg.len;
        if (end == reg.p && last && !w->records)
            return 0;
        scan_region(w, reg.p, end, reg.off);
        if (last && w->records) {
            tail = 1;
            if (records_feed_tail(&w->rec, end, reg.p + reg.len, reg.off + (end - reg.p),
                                  add_record, w)) {
                flush_batch(w);
                return 0;
            }
        }
        /* Batch lines point into the region; the next region may reuse
         * or unmap that memory. */
        flush_batch(w);
        if (last && !w->records)
            return 0;
    }
}

static int scan_guarded(map_worker_t *w, long long stop, err_t *e)
{
    map_guard_t *g = reader_guard(&w->reader);
    if (sigsetjmp(g->jb, 0)) {
        map_guard_set(NULL);
        w->n = 0;   /* the batch may point into the lost mapping */
        if (w->in_table) {
            w->in_table = 0;
            pthread_mutex_unlock(&w->mu);
        }
        return input_err_shrank(e, input_name(w->reader.in));
    }
    map_guard_set(g);
    int rc = scan_reader(w, stop, e);
    flush_batch(w);
    map_guard_set(NULL);
    return rc;
}

static int worker_init(map_worker_t *w, mapscan_t *ms, err_t *e)
{
    memset(w, 0, sizeof *w);
    w->ms = ms;
    pthread_mutex_init(&w->mu, NULL);
    if (eval_init(&w->ev, ms->o.plan, e) < 0)
        return -1;
    w->x = extractor_for_plan(ms->o.plan, w->ev.fields, w->ev.n_fields, &ms->o.env, e);
    if (!w->x)
        return -1;
    if (ms->fused_filter) {
        int got = extractor_set_table(w->x, ms->filter.pattern, e);
        if (got < 0)
            return -1;
        /* The format cannot: the literal search filters (the same for
         * every worker, so only the first can find this out). */
        if (got == 0)
            ms->fused_filter = 0;
    }
    if (ms->has_filter && matcher_init_literal(&w->filter, ms->filter.pattern, e) < 0)
        return -1;
    w->dense = !ms->has_filter || ms->fused_filter;
    w->splits = extractor_splits_lines(w->x);
    if (ms->o.record_start) {
        /* The format gets each record's start line from the batch: it
         * splits nothing itself. */
        if (matcher_init_same(&w->start, ms->o.record_start, e) < 0 ||
            records_init(&w->rec, &w->start, ms->o.max_line_len, e) < 0)
            return -1;
        w->records = 1;
        w->splits = 0;
        for (size_t c = 0; c < w->ev.n_fields && w->n_line_cols < 4; c++)
            if (strcmp(w->ev.fields[c], "$line") == 0)
                w->line_cols[w->n_line_cols++] = (uint32_t)c;
    }
    size_t nf = ms->fields.n_fields;
    w->chk_col = calloc(nf ? nf : 1, sizeof *w->chk_col);
    w->seen = calloc(nf ? nf : 1, 1);
    if (!w->chk_col || !w->seen)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < nf; k++)
        for (size_t c = 0; c < w->ev.n_fields; c++)
            if (strcmp(w->ev.fields[c], ms->fields.fields[k]) == 0)
                w->chk_col[k] = (uint32_t)c;
    w->n_unseen = nf;
    if (agg_table_init(&w->table, ms->specs, ms->o.plan->n_select, e) < 0)
        return -1;
    return reader_init(&w->reader, NULL, ms->o.max_line_len, 0, e);
}

static void worker_free(map_worker_t *w)
{
    free(w->chk_col);
    free(w->seen);
    free(w->sample);
    eval_free(&w->ev);
    extractor_free(w->x);
    matcher_free(&w->filter);
    if (w->records)
        matcher_free(&w->start);
    records_free(&w->rec);
    agg_table_free(&w->table);
    reader_free(&w->reader);
    pthread_mutex_destroy(&w->mu);
}

/* The table filter DTail derives from `from TABLE` (§2.10). It applies to
 * the formats that read DTail's MAPREDUCE records; csv, json and the
 * others have no such records, so `from` does not filter them (DTail's
 * D10 fixed). */
static const char *table_pattern(const plan_t *plan, char *buf, size_t cap)
{
    if (!plan->table || !strcmp(plan->table, ".") ||
        !extract_format_has_tables(plan->logformat->name))
        return NULL;
    if (!strcmp(plan->table, "*"))
        return "|MAPREDUCE:";
    snprintf(buf, cap, "|MAPREDUCE:%s|", plan->table);
    return buf;
}

int mapscan_init(mapscan_t *ms, const map_opts_t *o, err_t *e)
{
    memset(ms, 0, sizeof *ms);
    ms->o = *o;
    if (ms->o.n_threads < 1)
        ms->o.n_threads = 1;
    if (ms->o.n_threads > MAP_MAX_THREADS)
        ms->o.n_threads = MAP_MAX_THREADS;
    pthread_mutex_init(&ms->result_mu, NULL);
    pthread_mutex_init(&ms->spill_mu, NULL);
    err_clear(&ms->spill_err);
    /* Every worker's table and the result share the limit; a third of each
     * share leaves room for the doubling of a table's arrays past its
     * share and for SQLite's cache and the readers' buffers. */
    ms->table_budget = o->memory_limit ? o->memory_limit / (3 * ((size_t)ms->o.n_threads + 1))
                                       : SIZE_MAX;
    ms->specs = calloc(o->plan->n_select, sizeof *ms->specs);
    ms->workers = calloc((size_t)ms->o.n_threads, sizeof *ms->workers);
    if (!ms->specs || !ms->workers)
        return err_set(e, ERR_NOMEM, "out of memory");
    eval_specs(o->plan, ms->specs);
    if (field_report_init(&ms->fields, o->plan, e) < 0)
        return -1;
    if (agg_table_init(&ms->result, ms->specs, o->plan->n_select, e) < 0)
        return -1;
    /* Without group by there is one group even when no line matches (the
     * SQL meaning: count is 0, not no row). */
    if (o->plan->n_group_by == 0 && agg_table_group(&ms->result, "", 0, agg_key_hash("", 0)) < 0)
        return err_set(e, ERR_NOMEM, "out of memory");
    char buf[512];
    const char *pat = table_pattern(o->plan, buf, sizeof buf);
    if (pat) {
        if (matcher_init_literal(&ms->filter, pat, e) < 0)
            return -1;
        ms->has_filter = 1;
        /* Formats that can (the default: it proves the table from its
         * field 9) take the filter themselves and search only the other
         * lines; worker_init asks the first extractor. */
        ms->fused_filter = !strchr(pat, '\n');
    }
    for (int i = 0; i < ms->o.n_threads; i++) {
        if (worker_init(&ms->workers[i], ms, e) < 0) {
            ms->o.n_threads = i + 1;   /* free what was made */
            return -1;
        }
    }
    return 0;
}

void mapscan_free(mapscan_t *ms)
{
    for (int i = 0; ms->workers && i < ms->o.n_threads; i++)
        worker_free(&ms->workers[i]);
    free(ms->workers);
    free(ms->specs);
    agg_table_free(&ms->result);
    field_report_free(&ms->fields);
    matcher_free(&ms->filter);
    spill_close(ms->spill);
    pthread_mutex_destroy(&ms->result_mu);
    pthread_mutex_destroy(&ms->spill_mu);
    memset(ms, 0, sizeof *ms);
}

/* ---- parallel ranges ----------------------------------------------------- */

typedef struct map_par {
    mapscan_t *ms;               /* the plan */
    input_t *whole;              /* the file */
    range_plan_t plan;           /* its work units */
    atomic_llong next;           /* next unit to claim */
    pthread_mutex_t mu;          /* guards err */
    int failed;                  /* a worker failed */
    err_t err;                   /* the first failure */
} map_par_t;

typedef struct map_job {
    map_par_t *par;              /* shared state */
    map_worker_t *w;             /* the worker */
} map_job_t;

static void *range_worker(void *arg)
{
    map_job_t *job = arg;
    map_par_t *par = job->par;
    map_worker_t *w = job->w;
    for (;;) {
        long long k = atomic_fetch_add(&par->next, 1);
        if (k >= par->plan.n || par->failed)
            break;
        long long a, b;
        range_plan_bounds(&par->plan, k, &a, &b);
        err_t e;
        err_clear(&e);
        long long start;
        int rc = range_first_line(par->whole, a, b, &start, &e);
        if (rc == 0 && start < b) {
            input_t *slice = input_slice(par->whole, start, &e);
            if (!slice) {
                rc = -1;
            } else {
                reader_reset(&w->reader, slice, start);
                records_reset(&w->rec);
                w->rec.skip_to_start = start > 0;
                rc = scan_guarded(w, b, &e);
                w->stats.bytes_read += w->reader.bytes_read;
                w->reader.bytes_read = 0;
                reader_reset(&w->reader, NULL, 0);
                input_close(slice);
            }
        }
        if (rc < 0) {
            pthread_mutex_lock(&par->mu);
            if (!par->failed) {
                par->failed = 1;
                par->err = e;
            }
            pthread_mutex_unlock(&par->mu);
            break;
        }
    }
    return NULL;
}

static int run_parallel(mapscan_t *ms, input_t *in, err_t *e)
{
    map_par_t par = {.ms = ms, .whole = in};
    range_plan_init(&par.plan, input_plain_size(in), MAP_RANGE, MAP_RANGE_TAIL, ms->o.n_threads);
    atomic_init(&par.next, 0);
    pthread_mutex_init(&par.mu, NULL);
    err_clear(&par.err);
    map_job_t jobs[MAP_MAX_THREADS];
    for (int i = 0; i < ms->o.n_threads; i++)
        jobs[i] = (map_job_t){&par, &ms->workers[i]};
    range_workers_run(range_worker, jobs, sizeof jobs[0], ms->o.n_threads);
    pthread_mutex_destroy(&par.mu);
    if (par.failed) {
        *e = par.err;
        return -1;
    }
    return 0;
}

/* Folds every worker's partial table into the result and clears them. */
static int fold_workers(mapscan_t *ms, err_t *e)
{
    int rc = 0;
    pthread_mutex_lock(&ms->result_mu);
    for (int i = 0; i < ms->o.n_threads; i++) {
        map_worker_t *w = &ms->workers[i];
        pthread_mutex_lock(&w->mu);
        if (ms->result.n_groups == 0 && !w->table.failed) {
            /* Nothing to merge into: take the partial as it is. */
            agg_table_t empty = ms->result;
            ms->result = w->table;
            w->table = empty;
        } else if (w->table.failed || agg_table_merge(&ms->result, &w->table) < 0)
            rc = err_set(e, ERR_NOMEM, "out of memory aggregating groups");
        agg_table_clear(&w->table);
        pthread_mutex_unlock(&w->mu);
        if (agg_table_bytes(&ms->result) > ms->table_budget)
            table_spill(ms, &ms->result);
    }
    pthread_mutex_unlock(&ms->result_mu);
    return rc;
}

/* The end of one input: the shrink check, the input's name in the error,
 * the workers' tables folded into the result, a spill error told once. */
static int finish_input(mapscan_t *ms, input_t *in, const char *name, int rc, err_t *e)
{
    if (rc == 0)
        rc = input_check_not_shrunk(in, name, e);
    if (rc < 0 && e->msg[0] && !strstr(e->msg, name)) {
        char msg[sizeof e->msg];
        int n = snprintf(msg, sizeof msg, "%.200s: ", name);
        snprintf(msg + n, sizeof msg - (size_t)n, "%.*s", (int)(sizeof msg - (size_t)n - 1), e->msg);
        memcpy(e->msg, msg, sizeof msg);
    }
    err_t fe;
    err_clear(&fe);
    if (fold_workers(ms, &fe) < 0 && rc == 0) {
        *e = fe;
        rc = -1;
    }
    pthread_mutex_lock(&ms->spill_mu);
    if (ms->spill_err.code != ERR_NONE && !ms->spill_reported) {
        if (rc == 0) {
            *e = ms->spill_err;
            rc = -1;
        }
        ms->spill_reported = 1;   /* once; spilling stays off */
    }
    pthread_mutex_unlock(&ms->spill_mu);
    return rc;
}

int mapscan_run(mapscan_t *ms, input_t *in, const char *name, const char *source_id,
                unsigned file_index, err_t *e)
{
    for (int i = 0; i < ms->o.n_threads; i++) {
        ms->workers[i].file_index = file_index;
        extractor_begin_source(ms->workers[i].x, source_id);
    }
    int rc;
    int parallel = ms->o.n_threads > 1 && input_kind(in) == INPUT_PLAIN &&
                   input_plain_size(in) >= MAP_MIN_PARALLEL &&
                   !extractor_per_source(ms->workers[0].x);
    if (parallel) {
        rc = run_parallel(ms, in, e);
    } else {
        map_worker_t *w = &ms->workers[0];
        reader_reset(&w->reader, in, 0);
        records_reset(&w->rec);
        rc = scan_guarded(w, -1, e);
        w->stats.bytes_read += w->reader.bytes_read;
        w->reader.bytes_read = 0;
        reader_reset(&w->reader, NULL, 0);
    }
    return finish_input(ms, in, name, rc, e);
}

int mapscan_step(mapscan_t *ms, input_t *in, const char *name, const char *source_id,
                 err_t *e)
{
    map_worker_t *w = &ms->workers[0];
    if (w->reader.in != in) {
        w->file_index = 0;
        extractor_begin_source(w->x, source_id);
        reader_reset(&w->reader, in, 0);
        reader_set_block(&w->reader, 64 * 1024);
        records_reset(&w->rec);
        w->last_data_ms = clock_now_ms();
    }
    int rc = scan_guarded(w, -1, e);
    /* A followed record ends with the next start line, or when its file
     * has been quiet for a while. */
    if (rc == 2 && w->records && records_pending(&w->rec) &&
        clock_now_ms() - w->last_data_ms >= RECORDS_IDLE_MS) {
        records_flush(&w->rec, add_record, w);
        flush_batch(w);
    }
    w->stats.bytes_read += w->reader.bytes_read;
    w->reader.bytes_read = 0;
    if (rc == 2)
        return 2;
    reader_reset(&w->reader, NULL, 0);
    return finish_input(ms, in, name, rc, e);
}

/* Merges everything folded so far into `into`, emptying it when take is
 * set. Every table is locked at once (result, workers, then the spill:
 * the order workers take them in), so a table spilling meanwhile is seen
 * exactly once. */
static int collect(mapscan_t *ms, agg_table_t *into, int take)
{
    int rc = 0;
    pthread_mutex_lock(&ms->result_mu);
    for (int i = 0; i < ms->o.n_threads; i++)
        pthread_mutex_lock(&ms->workers[i].mu);
    pthread_mutex_lock(&ms->spill_mu);
    rc |= agg_table_merge(into, &ms->result);
    for (int i = 0; i < ms->o.n_threads; i++)
        rc |= agg_table_merge(into, &ms->workers[i].table);
    if (ms->spill && spill_n_runs(ms->spill)) {
        err_t e;
        err_clear(&e);
        rc |= spill_merge_into(ms->spill, into, &e);
        if (take)
            rc |= spill_reset(ms->spill, &e);
    }
    if (take) {
        agg_table_clear(&ms->result);
        for (int i = 0; i < ms->o.n_threads; i++)
            agg_table_clear(&ms->workers[i].table);
    }
    pthread_mutex_unlock(&ms->spill_mu);
    for (int i = ms->o.n_threads; i-- > 0;)
        pthread_mutex_unlock(&ms->workers[i].mu);
    pthread_mutex_unlock(&ms->result_mu);
    return rc ? -1 : 0;
}

int mapscan_snapshot(mapscan_t *ms, agg_table_t *into)
{
    return collect(ms, into, 0);
}

int mapscan_take(mapscan_t *ms, agg_table_t *into)
{
    return collect(ms, into, 1);
}

int mapscan_spilled(const mapscan_t *ms)
{
    return ms->spill && spill_n_runs(ms->spill) > 0;
}

spill_t *mapscan_spill_rest(mapscan_t *ms, err_t *e)
{
    if (!mapscan_spilled(ms)) {
        err_set(e, ERR_IO, "nothing was spilled");
        return NULL;
    }
    int rc = 0;
    pthread_mutex_lock(&ms->result_mu);
    for (int i = 0; i < ms->o.n_threads && rc == 0; i++)
        rc = spill_write(ms->spill, &ms->workers[i].table, e);
    if (rc == 0)
        rc = spill_write(ms->spill, &ms->result, e);
    if (rc == 0) {
        for (int i = 0; i < ms->o.n_threads; i++)
            agg_table_clear(&ms->workers[i].table);
        agg_table_clear(&ms->result);
    }
    pthread_mutex_unlock(&ms->result_mu);
    return rc == 0 ? ms->spill : NULL;
}

size_t mapscan_default_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return (size_t)1 << 30;   /* unknown: 1 GiB */
    return (size_t)pages / 4 * (size_t)page;
}

static void add_name(void *arg, const char *p, size_t len)
{
    field_report_add_name(arg, p, len);
}

int mapscan_fields(const mapscan_t *ms, field_report_t *out, err_t *e)
{
    if (field_report_init(out, ms->o.plan, e) < 0)
        return -1;
    bool unseen = false;
    for (size_t k = 0; k < out->n_fields; k++) {
        for (int i = 0; i < ms->o.n_threads; i++)
            out->seen[k] |= ms->workers[i].seen[k];
        unseen |= !out->seen[k];
    }
    for (int i = 0; i < ms->o.n_threads; i++) {
        const map_worker_t *w = &ms->workers[i];
        out->lines_parsed += w->stats.lines_parsed;
        out->divzero += w->ev.n_divzero;
        for (size_t s = 0; s < out->n_items; s++)
            out->nonnum[s] += w->ev.nonnum[s];
        for (uint32_t l = 0; unseen && l < w->n_sample; l++)
            extractor_line_names(w->x, w->sample + (size_t)l * MAP_SAMPLE_LEN, w->sample_len[l],
                                 add_name, out);
    }
    map_stats_t st;
    mapscan_stats(ms, &st);
    parse_problems_of_stats(&st, &out->parsing);
    if (ms->o.plan->logformat)
        snprintf(out->parsing.format, sizeof out->parsing.format, "%s",
                 ms->o.plan->logformat->name);
    return 0;
}

void parse_problems_of_stats(const map_stats_t *st, parse_problems_t *out)
{
    memset(out, 0, sizeof *out);
    out->lines_unparsed = st->lines_unparsed;
    out->n_examples = st->n_examples;
    for (int k = 0; k < st->n_examples; k++)
        snprintf(out->examples[k], sizeof out->examples[k], "%s", st->examples[k]);
    out->times_unparsable = st->times_unparsable;
    out->n_time_examples = st->n_time_examples;
    for (int k = 0; k < st->n_time_examples; k++)
        snprintf(out->time_examples[k], sizeof out->time_examples[k], "%s", st->time_examples[k]);
}

void mapscan_stats(const mapscan_t *ms, map_stats_t *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < ms->o.n_threads; i++) {
        const map_stats_t *s = &ms->workers[i].stats;
        out->lines_read += s->lines_read;
        out->lines_matched += s->lines_matched;
        out->lines_parsed += s->lines_parsed;
        out->lines_skipped += s->lines_skipped;
        out->lines_unparsed += s->lines_unparsed;
        out->lines_selected += s->lines_selected;
        out->bytes_read += s->bytes_read;
        for (int k = 0; k < s->n_examples && out->n_examples < MAP_ERROR_EXAMPLES; k++)
            memcpy(out->examples[out->n_examples++], s->examples[k], 256);
        /* Times: the extractor's ($time) and the evaluator's (bucket()). */
        const map_worker_t *w = &ms->workers[i];
        if (!w->x)
            continue;
        out->times_unparsable += extractor_bad_times(w->x) + w->ev.n_badtime;
        for (int k = 0; k < 2 * EVAL_TIME_EXAMPLES; k++) {
            const char *ex = k < EVAL_TIME_EXAMPLES ? extractor_bad_time(w->x, k)
                             : (uint64_t)(k - EVAL_TIME_EXAMPLES) < w->ev.n_badtime
                                 ? w->ev.badtime_ex[k - EVAL_TIME_EXAMPLES]
                                 : NULL;
            if (ex && out->n_time_examples < MAP_ERROR_EXAMPLES)
                snprintf(out->time_examples[out->n_time_examples++], 80, "%s", ex);
        }
    }
}

int mapscan_timed_out(const mapscan_t *ms)
{
    return ms->o.deadline_ms && clock_now_ms() >= ms->o.deadline_ms;
}

int mapscan_stopped(const mapscan_t *ms)
{
    return (ms->o.cancel && *ms->o.cancel) || mapscan_timed_out(ms);
}

void mapscan_local_zone(char *name, size_t name_cap, char *offset, size_t offset_cap)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    snprintf(name, name_cap, "%s", tm.tm_zone ? tm.tm_zone : "UTC");
    snprintf(offset, offset_cap, "%ld", (long)tm.tm_gmtoff);
}

static void *reporter_main(void *arg)
{
    mapscan_reporter_t *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        struct timespec until;
        clock_abs_in(&until, r->seconds * 1000LL);
        while (!r->done && pthread_cond_timedwait(&r->cv, &r->mu, &until) == 0)
            ;
        if (r->done)
            break;
        pthread_mutex_unlock(&r->mu);
        if (!mapscan_spilled(r->ms)) {
            agg_table_t snap;
            err_t e;
            if (agg_table_init(&snap, r->ms->specs, r->plan->n_select, &e) == 0) {
                int got = r->deltas ? mapscan_take(r->ms, &snap) : mapscan_snapshot(r->ms, &snap);
                if (got == 0)
                    r->fn(&snap, r->arg);
                agg_table_free(&snap);
            }
        }
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void reporter_start(mapscan_reporter_t *r, mapscan_t *ms, const plan_t *plan, int seconds,
                           mapscan_report_fn fn, void *arg, int deltas)
{
    memset(r, 0, sizeof *r);
    r->deltas = deltas;
    r->ms = ms;
    r->plan = plan;
    r->seconds = seconds > 0 ? seconds : 1;
    r->fn = fn;
    r->arg = arg;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->running = pthread_create(&r->thread, NULL, reporter_main, r) == 0;
}

void mapscan_reporter_start(mapscan_reporter_t *r, mapscan_t *ms, const plan_t *plan,
                            int seconds, mapscan_report_fn fn, void *arg)
{
    reporter_start(r, ms, plan, seconds, fn, arg, 0);
}

void mapscan_reporter_start_deltas(mapscan_reporter_t *r, mapscan_t *ms, const plan_t *plan,
                                   int seconds, mapscan_report_fn fn, void *arg)
{
    reporter_start(r, ms, plan, seconds, fn, arg, 1);
}

void mapscan_reporter_stop(mapscan_reporter_t *r)
{
    if (!r->fn)
        return;     /* never started (zero-initialised) */
    if (r->running) {
        pthread_mutex_lock(&r->mu);
        r->done = 1;
        pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
        r->running = 0;
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
}
