/* parscan.c: the fast cat/grep path on both cores.
 *
 * A plain regular file is cut into 4 MiB ranges, 1 MiB near its end
 * (exec/scan/range.h); workers (the calling thread and n-1 others, started
 * by range_workers_run as mapscan's are) claim ranges in order, each scans the lines that start in
 * its range into an in-memory block, and blocks are written strictly in
 * range order, so the output is byte for byte the sequential one. Memory is
 * bounded by workers x (range + read buffer), whatever the file size.
 *
 * When the output shows line numbers, each worker first counts its range's
 * lines (a vector byte count over the mapping), the counts are summed in
 * range order, and the range is then scanned from its first line's number:
 * the count pass is cheap, so ranges wait for each other only briefly. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "exec/linescan.h"
#include "exec/scan/range.h"
#include "exec/scan/reader.h"

#define PAR_RANGE (4LL * 1024 * 1024)      /* bytes of file per work unit */
#define PAR_RANGE_TAIL (1LL * 1024 * 1024) /* ... near the end of the file */
#define PAR_MIN_FILE (16LL * 1024 * 1024)  /* smaller files run sequentially */
#define PAR_MAX_THREADS 16
#define PAR_STAGE_LIMIT (12 * 1024 * 1024) /* staged output before waiting for the turn */

typedef struct par_shared {
    const linescan_opts_t *o;   /* the plan */
    input_t *whole;             /* the opened file */
    range_plan_t plan;          /* its work units */
    const line_sink_t *proto;   /* format and source for worker sinks */
    outbuf_t *out;              /* final destination */
    atomic_llong next;          /* next range to claim */
    pthread_mutex_t mu;         /* guards turn, failed, err */
    pthread_cond_t cv;          /* signals turn changes */
    long long turn;             /* range whose output goes next */
    int failed;                 /* a worker failed; others stop */
    err_t err;                  /* the first failure */
    atomic_ullong n_split;      /* long lines split */
    atomic_ullong bytes_read;   /* bytes read by all workers */
    int numbers;                /* the sink shows line numbers */
    unsigned long long *count;  /* numbers: lines of each range */
    unsigned long long *base;   /* numbers: lines before each range */
    char *counted;              /* numbers: count[k] is known */
    long long n_based;          /* numbers: base[0..n_based) are known */
} par_shared_t;

typedef struct par_worker {
    par_shared_t *sh;           /* shared state */
    long long range;            /* range being scanned */
    int has_turn;               /* its output may go straight out */
    matcher_t matcher;          /* own match data (pcre2 match data is per thread) */
    reader_t reader;            /* own buffers */
    outbuf_t block;             /* staged output of the current range */
    line_sink_t sink;           /* formats into block */
} par_worker_t;

int linescan_parallel_eligible(const linescan_opts_t *o, const line_sink_t *sink, input_t *in)
{
    /* Plain cat is one copy from the mapping into the output: staging it
     * in parallel would only add a second copy. */
    if (o->matcher->kind == MATCHER_NOOP && !line_sink_numbers(sink))
        return 0;
    /* Multi-line records run sequentially: a range would have to find
     * the record its first line belongs to. */
    if (o->record_start)
        return 0;
    return !o->invert && !o->before && !o->after && !o->max &&
           input_kind(in) == INPUT_PLAIN && input_plain_size(in) >= PAR_MIN_FILE;
}

static void fail(par_shared_t *sh, const err_t *e)
{
    pthread_mutex_lock(&sh->mu);
    if (!sh->failed) {
        sh->failed = 1;
        sh->err = *e;
    }
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
}

/* Blocks until this worker's range is the next to be written. Returns -1
 * when another worker failed. */
static int wait_turn(par_worker_t *w)
{
    par_shared_t *sh = w->sh;
    if (w->has_turn)
        return 0;
    pthread_mutex_lock(&sh->mu);
    while (sh->turn != w->range && !sh->failed)
        pthread_cond_wait(&sh->cv, &sh->mu);
    int failed = sh->failed;
    pthread_mutex_unlock(&sh->mu);
    if (failed)
        return -1;
    w->has_turn = 1;
    return 0;
}

/* Writes the staged block out; only the turn holder calls this. */
static void write_block(par_worker_t *w)
{
    outbuf_write_direct(w->sh->out, w->block.data, w->block.len);
    outbuf_reset(&w->block);
}

static int scan_guarded(par_worker_t *w, long long b, int count_only,
                        unsigned long long *lineno, err_t *e);

/* Records range k's line count, folds the counts known in range order into
 * bases, and waits until range k's base is known. -1 when a worker failed. */
static int publish_count(par_shared_t *sh, long long k, unsigned long long n,
                         unsigned long long *base)
{
    pthread_mutex_lock(&sh->mu);
    sh->count[k] = n;
    sh->counted[k] = 1;
    while (sh->n_based < sh->plan.n && sh->counted[sh->n_based]) {
        sh->base[sh->n_based + 1] = sh->base[sh->n_based] + sh->count[sh->n_based];
        sh->n_based++;
    }
    pthread_cond_broadcast(&sh->cv);
    while (k > sh->n_based && !sh->failed)
        pthread_cond_wait(&sh->cv, &sh->mu);
    int failed = sh->failed;
    *base = sh->base[k];
    pthread_mutex_unlock(&sh->mu);
    return failed ? -1 : 0;
}

/* One guarded pass over the lines that start in [start, b). */
static int range_pass(par_worker_t *w, long long start, long long b, int count_only,
                      unsigned long long *n, err_t *e)
{
    par_shared_t *sh = w->sh;
    input_t *slice = input_slice(sh->whole, start, e);
    if (!slice)
        return -1;
    reader_reset(&w->reader, slice, start);
    int rc = scan_guarded(w, b, count_only, n, e);
    if (!count_only) {
        atomic_fetch_add(&sh->n_split, w->reader.n_split);
        atomic_fetch_add(&sh->bytes_read, w->reader.bytes_read);
    }
    w->reader.n_split = w->reader.bytes_read = 0;
    reader_reset(&w->reader, NULL, 0);
    input_close(slice);
    return rc;
}

static int scan_range(par_worker_t *w, long long k, err_t *e)
{
    par_shared_t *sh = w->sh;
    long long a, b;
    range_plan_bounds(&sh->plan, k, &a, &b);
    long long start;
    if (range_first_line(sh->whole, a, b, &start, e) < 0)
        return -1;
    unsigned long long lineno = 0;
    if (sh->numbers) {
        unsigned long long n = 0;
        if (start < b && range_pass(w, start, b, 1, &n, e) < 0)
            return -1;
        if (publish_count(sh, k, n, &lineno) < 0)
            return err_set(e, ERR_INPUT, "stopped: another worker failed");
    }
    if (start >= b)
        return 0;
    return range_pass(w, start, b, 0, &lineno, e);
}

/* The lines that start before b: counted (split pieces included) into *n
 * when count_only, else scanned into the worker's block, numbered from *n
 * when the output shows numbers. */
static int pass_lines_before(par_worker_t *w, long long b, int count_only,
                             unsigned long long *n, err_t *e)
{
    region_t reg;
    for (;;) {
        int got = reader_next(&w->reader, &reg, e);
        if (got <= 0)
            return got;
        int last;
        const char *end = range_cut(&w->reader, &reg, b, &last);
        if (count_only)
            *n += count_byte(reg.p, (size_t)(end - reg.p), '\n');
        else if (w->sh->numbers)
            linescan_region_numbered(&w->matcher, &w->sink, reg.p, end, n);
        else
            linescan_region_unnumbered(&w->matcher, &w->sink, reg.p, end);
        /* A range whose output outgrows the stage (a huge split line, say)
         * waits for its turn and then streams, keeping memory bounded. */
        if (w->block.len > PAR_STAGE_LIMIT) {
            if (wait_turn(w) < 0)
                return err_set(e, ERR_INPUT, "stopped: another worker failed");
            write_block(w);
        }
        if (last)
            return 0;
    }
}

static int scan_guarded(par_worker_t *w, long long b, int count_only,
                        unsigned long long *lineno, err_t *e)
{
    int rc;
    map_guard_t *guard = reader_guard(&w->reader);
    if (sigsetjmp(guard->jb, 0)) {
        map_guard_set(NULL);
        rc = input_err_shrank(e, input_name(w->sh->whole));
    } else {
        map_guard_set(guard);
        rc = pass_lines_before(w, b, count_only, lineno, e);
        map_guard_set(NULL);
    }
    return rc;
}

static void *worker_main(void *arg)
{
    par_worker_t *w = arg;
    par_shared_t *sh = w->sh;
    for (;;) {
        long long k = atomic_fetch_add(&sh->next, 1);
        if (k >= sh->plan.n)
            break;
        err_t e;
        err_clear(&e);
        outbuf_reset(&w->block);
        w->range = k;
        w->has_turn = 0;
        int rc = scan_range(w, k, &e);
        if (rc == 0 && w->block.failed)
            rc = err_set(&e, ERR_NOMEM, "out of memory staging output");
        if (rc < 0) {
            fail(sh, &e);
            break;
        }
        if (wait_turn(w) < 0)
            break;
        /* Only the worker holding the turn writes, so no lock is needed. */
        write_block(w);
        pthread_mutex_lock(&sh->mu);
        sh->turn++;
        pthread_cond_broadcast(&sh->cv);
        pthread_mutex_unlock(&sh->mu);
        if (sh->out->failed)
            break;
    }
    return NULL;
}

static int worker_init(par_worker_t *w, par_shared_t *sh, err_t *e)
{
    memset(w, 0, sizeof *w);
    w->sh = sh;
    if (matcher_init_same(&w->matcher, sh->o->matcher, e) < 0)
        return -1;
    if (reader_init(&w->reader, NULL, sh->o->max_line_len, 0, e) < 0)
        return -1;
    if (outbuf_init_mem(&w->block, 1024 * 1024, e) < 0)
        return -1;
    w->block.escape_data = sh->out->escape_data;   /* the block goes there as it is */
    if (line_sink_init(&w->sink, &w->block, sh->proto->format, sh->proto->host,
                       &sh->proto->palette) < 0)
        return err_set(e, ERR_NOMEM, "out of memory");
    /* The sink's source id lives in mid; copy the formatted parts as they are. */
    memcpy(w->sink.mid, sh->proto->mid, sh->proto->mid_len);
    w->sink.mid_len = sh->proto->mid_len;
    return 0;
}

static void worker_free(par_worker_t *w)
{
    matcher_free(&w->matcher);
    reader_free(&w->reader);
    line_sink_free(&w->sink);
    outbuf_free(&w->block);
}

int linescan_run_parallel(const linescan_opts_t *o, input_t *in, const char *name,
                          line_sink_t *sink, int n_threads, linescan_stats_t *stats,
                          err_t *e)
{
    if (n_threads > PAR_MAX_THREADS)
        n_threads = PAR_MAX_THREADS;
    if (n_threads < 1)
        n_threads = 1;
    par_shared_t sh = {
        .o = o, .whole = in, .proto = sink, .out = sink->out,
    };
    range_plan_init(&sh.plan, input_plain_size(in), PAR_RANGE, PAR_RANGE_TAIL, n_threads);
    sh.numbers = line_sink_numbers(sink);
    if (sh.numbers) {
        sh.count = calloc((size_t)sh.plan.n + 1, sizeof *sh.count);
        sh.base = calloc((size_t)sh.plan.n + 1, sizeof *sh.base);
        sh.counted = calloc((size_t)sh.plan.n + 1, 1);
        if (!sh.count || !sh.base || !sh.counted) {
            free(sh.count);
            free(sh.base);
            free(sh.counted);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
    }
    atomic_init(&sh.next, 0);
    atomic_init(&sh.n_split, 0);
    atomic_init(&sh.bytes_read, 0);
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.cv, NULL);
    err_clear(&sh.err);
    /* Pending bytes of earlier files go first. */
    outbuf_flush(sink->out);

    par_worker_t workers[PAR_MAX_THREADS];
    int n_ready = 0, rc = 0;
    for (; n_ready < n_threads; n_ready++) {
        if (worker_init(&workers[n_ready], &sh, e) < 0) {
            worker_free(&workers[n_ready]);
            rc = -1;
            break;
        }
    }
    if (rc == 0)
        range_workers_run(worker_main, workers, sizeof workers[0], n_ready);
    for (int i = 0; i < n_ready; i++) {
        sink->n_lines += workers[i].sink.n_lines;
        worker_free(&workers[i]);
    }
    unsigned long long n_split = atomic_load(&sh.n_split);
    if (n_split)
        LOG_WARN("%s|Long log line, splitting into multiple lines", name);
    if (stats) {
        stats->lines_split += n_split;
        stats->bytes_read += atomic_load(&sh.bytes_read);
    }
    if (rc == 0 && sh.failed) {
        *e = sh.err;
        rc = -1;
    }
    if (rc == 0)
        rc = input_check_not_shrunk(in, name, e);
    pthread_mutex_destroy(&sh.mu);
    pthread_cond_destroy(&sh.cv);
    free(sh.count);
    free(sh.base);
    free(sh.counted);
    return rc;
}
