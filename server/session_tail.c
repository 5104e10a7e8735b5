/* session_tail.c: TAIL requests. Each file the specs name is followed
 * (exec/scan/follow.h) by a thread of its own, through the same plans as
 * cat/grep (linescan into LINES frames) or, with a query, map (mapscan,
 * whose tables go out every interval as AGGREGATE deltas).
 *
 * Every file is opened through perm_open, also one that a rotation puts at
 * the path, so a file swapped in later is checked like the first. The
 * specs are expanded again every second; files that appear are followed
 * from their start. MaxConcurrentTails files are followed at once; more
 * wait for a slot. The request ends when the client closes the channel or
 * sends another frame, when its timeout passes, or when the server stops;
 * then every follower stops at its next wait, its output is flushed, and
 * END goes out (a map request sends its last delta first). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/outbuf.h"
#include "exec/linescan.h"
#include "exec/scan/follow.h"
#include "exec/scan/followset.h"
#include "exec/scan/targets.h"
#include "server/session_int.h"
#include "wire/batch.h"

#define TAIL_BATCH (64 * 1024)
#define RESCAN_MS 1000
#define SUPERVISE_MS 20

typedef struct tail_run tail_run_t;

typedef struct follower {
    tail_run_t *t;               /* the request */
    char *path;                  /* the followed path */
    char *asked;                 /* the spec it came from (for denials) */
    char *source_id;             /* shown in REMOTE lines */
    int from_start;              /* appeared after the start */
    int refused;                 /* the file at the path was refused (told once) */
    int opened;                  /* a file at the path was followed */
    mapscan_t *ms;               /* map: this file's scan */
    outbuf_t out;                /* lines: 64 KiB blocks */
    wire_batch_t batch;          /* lines: LINES frames */
    pthread_t th;
    int started;                 /* th runs */
} follower_t;

struct tail_run {
    session_t *ss;               /* the session */
    const wire_request_t *rq;    /* the request */
    volatile int stop;           /* every follower ends at its next wait */
    atomic_int failed;           /* files that could not be followed */
    pthread_mutex_t mu;          /* guards fs, n_fs, cap_fs */
    follower_t **fs;             /* followers */
    size_t n_fs, cap_fs;
    followset_t set;             /* which paths and files are followed */
    /* map */
    const plan_t *plan;          /* the query's plan, NULL for lines */
    agg_spec_t *specs;           /* its aggregate specs */
    map_opts_t mo;               /* per-file scan options */
    session_zone_t zone;         /* strings mo points to */
    /* the client's next frame (or its close) */
    pthread_t watcher;
    atomic_int watched;          /* the watcher has read something; set
                                    with release after ss->pending_*, so an
                                    acquire load that sees it sees them */
};

/* ---- opening: permissions on every file, also after a rotation ---------- */

/* follow.h's open hook. A refusal is told once per follower, by the name
 * the client asked for and as every refusal is told (session.c): also a
 * missing file, until a file was followed; then a path that is gone for a
 * moment is part of a rotation, not news. Whatever the reason, the follower
 * then waits as for a missing file (ENOENT): a missing file and a refused
 * one behave alike, and a rotation may still bring one it may read. */
static int tail_open(void *ctx, const char *path)
{
    follower_t *f = ctx;
    tail_run_t *t = f->t;
    session_t *ss = t->ss;
    char canonical[4096], detail[8192];
    int fd;
    enum perm_result pr = perm_open(ss->rules, &ss->user, path, &fd, canonical, sizeof canonical,
                                    detail, sizeof detail);
    if (pr == PERM_OK) {
        f->refused = 0;
        f->opened = 1;
        LOG_INFO("Start reading|%s|%s", canonical, f->source_id);
        return fd;
    }
    if (!f->refused && !(pr == PERM_NOT_FOUND && f->opened)) {
        f->refused = 1;
        t->failed++;
        session_report_refusal(ss, f->asked, detail);
    }
    errno = ENOENT;
    return -1;
}

/* ---- following ------------------------------------------------------------ */

static int tail_sink(void *ctx, const char *p, size_t n, int *err)
{
    follower_t *f = ctx;
    int rc = wire_batch_sink(&f->batch, p, n, err);
    if (rc < 0) {
        f->t->ss->send_err = f->batch.err;
        f->t->ss->broken = 1;
        f->t->stop = 1;
    }
    return rc;
}

static void flush_idle(void *ctx)
{
    outbuf_flush(ctx);
}

/* The cat/grep plan over the followed file. */
static int follow_lines(follower_t *f, input_t *in, err_t *e)
{
    tail_run_t *t = f->t;
    const wire_request_t *rq = t->rq;
    matcher_t m;   /* one per thread: its match data is not shared */
    if (matcher_init(&m, rq->regex, e) < 0)
        return -1;
    linescan_opts_t lo = {
        .matcher = &m,
        .invert = (rq->flags & WIRE_REQ_INVERT) != 0,
        .before = linescan_context(rq->before),
        .after = linescan_context(rq->after),
        .max = rq->max,
        .max_line_len = session_max_line_len(t->ss),
    };
    line_sink_t sink;
    linescan_t scan;
    int rc = -1;
    if (line_sink_init(&sink, &f->out, (enum line_format)rq->render, t->ss->env->hostname) < 0) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out_m;
    }
    line_sink_set_source(&sink, f->source_id);
    if (linescan_init(&scan, &lo, e) == 0) {
        linescan_stats_t stats = {0};
        rc = linescan_run(&scan, in, f->path, &sink, &stats, e);
        linescan_free(&scan);
    }
    outbuf_flush(&f->out);
    if (t->ss->env->counters)
        atomic_fetch_add(&t->ss->env->counters->lines_served, sink.n_lines);
    line_sink_free(&sink);
out_m:
    matcher_free(&m);
    return rc;
}

static void *follow_thread(void *arg)
{
    follower_t *f = arg;
    tail_run_t *t = f->t;
    const session_env_t *env = t->ss->env;
    if (env->limits && server_limits_acquire(env->limits, LIMIT_TAIL, env->user, &t->stop, 0) < 0)
        return NULL;
    err_t e;
    err_clear(&e);
    follow_opts_t fo = {.from_start = f->from_start, .stop = &t->stop, .open = tail_open,
                        .open_ctx = f};
    if (!t->plan) {
        fo.idle = flush_idle;   /* a burst goes out at once, never a line at a time */
        fo.idle_ctx = &f->out;
    }
    input_t *in = follow_open(f->path, &fo, &e);
    int rc = !in ? -1
        : t->plan ? mapscan_run(f->ms, in, f->path, f->source_id, 0, &e)
                  : follow_lines(f, in, &e);
    if (rc < 0 && !t->ss->broken) {   /* refusals do not fail it: tail_open */
        LOG_WARN("Following failed|%s|%s", f->path, e.msg);
        session_send_file_status(t->ss, WIRE_FILE_ERROR, f->path, e.msg);
        t->failed++;
    }
    input_close(in);
    if (env->limits)
        server_limits_release(env->limits, LIMIT_TAIL, env->user);
    return NULL;
}

static void follower_free(follower_t *f)
{
    if (f->ms) {
        mapscan_free(f->ms);
        free(f->ms);
    }
    if (!f->t->plan) {
        outbuf_free(&f->out);
        wire_batch_free(&f->batch);
    }
    free(f->path);
    free(f->asked);
    free(f->source_id);
    free(f);
}

static follower_t *follower_new(tail_run_t *t, const target_t *tg, const char *asked,
                                int from_start, err_t *e)
{
    follower_t *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(tg->path)) || !(f->asked = strdup(asked)) ||
        !(f->source_id = strdup(tg->source_id))) {
        if (f) {
            free(f->path);
            free(f->asked);
        }
        free(f);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    f->t = t;
    f->from_start = from_start;
    if (t->plan) {
        f->ms = calloc(1, sizeof *f->ms);
        if (!f->ms || mapscan_init(f->ms, &t->mo, e) < 0) {
            if (!f->ms)
                err_set(e, ERR_NOMEM, "out of memory");
            follower_free(f);
            return NULL;
        }
        /* No group by: an empty group would show a zero row in every
         * report; the lines read make the rows. */
        agg_table_clear(&f->ms->result);
        return f;
    }
    if (wire_batch_init(&f->batch, t->ss->s, &t->ss->send_mu, session_zlevel(t->rq), e) < 0 ||
        outbuf_init_sink(&f->out, TAIL_BATCH, tail_sink, f, e) < 0) {
        follower_free(f);
        return NULL;
    }
    return f;
}

/* ---- which files: the specs, expanded again every second ---------------- */

/* Follows tg unless its path or its file is followed already. */
static void start_follower(tail_run_t *t, const target_t *tg, const char *asked, int from_start)
{
    if (!followset_claim(&t->set, tg->path))
        return;
    err_t e;
    follower_t *f = follower_new(t, tg, asked, from_start, &e);
    if (!f) {
        session_send_message(t->ss, LOG_ERROR, e.msg);
        return;
    }
    pthread_mutex_lock(&t->mu);
    if (t->n_fs == t->cap_fs) {
        size_t cap = t->cap_fs ? t->cap_fs * 2 : 16;
        follower_t **fs = realloc(t->fs, cap * sizeof *fs);
        if (!fs) {
            pthread_mutex_unlock(&t->mu);
            follower_free(f);
            return;
        }
        t->fs = fs;
        t->cap_fs = cap;
    }
    t->fs[t->n_fs++] = f;
    pthread_mutex_unlock(&t->mu);
    f->started = pthread_create(&f->th, NULL, follow_thread, f) == 0;
}

/* A path followed already: a later look does not check it again. */
static int tail_known(void *ctx, const char *path)
{
    tail_run_t *t = ctx;
    return followset_has(&t->set, path);
}

/* Expands the specs; first time (tell = 1) a spec that gives no file is
 * reported as cat does, and files are followed from their end. */
static void expand(tail_run_t *t, int tell)
{
    const char *p = t->rq->files;
    char *spec;
    int got;
    while ((got = session_next_spec(&p, &spec)) > 0) {
        target_list_t tl;
        target_list_init(&tl);
        if (session_expand_spec(t->ss, spec, &tl, tell, tail_known, t) && tell)
            atomic_fetch_add(&t->failed, 1);
        for (size_t i = 0; i < tl.n; i++)
            start_follower(t, &tl.items[i], spec, !tell);
        target_list_free(&tl);
        free(spec);
    }
    if (got < 0)
        LOG_ERROR("out of memory reading the file list of a tail");
}

/* ---- the client's side: its next frame ends the tail -------------------- */

static void *watch_client(void *arg)
{
    tail_run_t *t = arg;
    session_t *ss = t->ss;
    /* Optional extension frames do not end the tail: skipped, as in
     * session_serve. */
    do {
        ss->pending_rc = wire_read_frame(ss->r, &ss->pending_frame, &ss->pending_err);
    } while (ss->pending_rc > 0 && ss->pending_frame.type >= WIRE_OPTIONAL_FIRST &&
             ss->pending_frame.type <= WIRE_OPTIONAL_LAST);
    ss->pending = 1;
    atomic_store_explicit(&t->watched, 1, memory_order_release);
    t->stop = 1;
    return NULL;
}

/* ---- map: deltas every interval ------------------------------------------ */

/* What every file read since the last call, as one table. */
static int send_delta(tail_run_t *t, int final)
{
    agg_table_t d;
    err_t e;
    if (agg_table_init(&d, t->specs, t->plan->n_select, &e) < 0)
        return session_send_message(t->ss, LOG_ERROR, e.msg);
    int rc = 0;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n_fs; i++)
        rc |= mapscan_take(t->fs[i]->ms, &d);
    pthread_mutex_unlock(&t->mu);
    rc = rc < 0 ? session_send_message(t->ss, LOG_ERROR, "out of memory: a report is incomplete")
                : session_send_table(t->ss, &d, final);
    agg_table_free(&d);
    return rc;
}

/* ---- the request ------------------------------------------------------------ */

static void supervise(tail_run_t *t, long long deadline)
{
    session_t *ss = t->ss;
    long long next_scan = clock_now_ms() + RESCAN_MS;
    long long interval = t->plan ? (t->plan->interval > 0 ? t->plan->interval : 5) * 1000LL : 0;
    long long next_report = clock_now_ms() + interval;
    while (!t->stop) {
        long long now = clock_now_ms();
        if (ss->broken || session_stopping(ss) || (deadline && now >= deadline))
            break;
        if (now >= next_scan) {
            followset_note_current(&t->set);
            expand(t, 0);
            next_scan = now + RESCAN_MS;
        }
        if (t->plan && now >= next_report) {
            send_delta(t, 0);
            next_report = now + interval;
        }
        clock_sleep_ms(SUPERVISE_MS);
    }
    t->stop = 1;
}

static int map_setup(tail_run_t *t, query_t **q, err_t *e)
{
    int parsed = session_parse_query(t->ss, t->rq->query, q);
    if (parsed != 0)
        return parsed < 0 ? err_set(e, ERR_IO, "client gone: %s", t->ss->send_err.msg) : 1;
    t->plan = query_plan(*q);
    t->specs = calloc(t->plan->n_select ? t->plan->n_select : 1, sizeof *t->specs);
    if (!t->specs) {
        err_set(e, ERR_NOMEM, "out of memory");
        return session_send_end(t->ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 1;
    }
    eval_specs(t->plan, t->specs);
    session_map_opts(t->ss, t->plan, &t->zone, 1, &t->mo);
    return 0;
}

int session_run_tail(session_t *ss, const wire_request_t *rq, err_t *e)
{
    tail_run_t t;
    memset(&t, 0, sizeof t);
    t.ss = ss;
    t.rq = rq;
    query_t *q = NULL;
    if (rq->query && *rq->query) {
        int rc = map_setup(&t, &q, e);
        if (rc != 0) {
            query_free(q);
            return rc < 0 ? -1 : 0;
        }
    } else {
        matcher_t m;   /* a bad pattern ends the request before anything is followed */
        if (matcher_init(&m, rq->regex, e) < 0)
            return session_send_end(ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 0;
        LOG_INFO("Using %s matching for pattern:|%s", matcher_strategy(&m), m.pattern);
        matcher_free(&m);
    }
    pthread_mutex_init(&t.mu, NULL);
    atomic_init(&t.watched, 0);
    followset_init(&t.set);
    int watching = pthread_create(&t.watcher, NULL, watch_client, &t) == 0;
    long long deadline = rq->timeout_s ? clock_now_ms() + rq->timeout_s * 1000LL : 0;
    expand(&t, 1);
    supervise(&t, deadline);
    for (size_t i = 0; i < t.n_fs; i++)
        if (t.fs[i]->started)
            pthread_join(t.fs[i]->th, NULL);
    /* The client's close is how a tail normally ends: nothing to tell. */
    int closed = atomic_load_explicit(&t.watched, memory_order_acquire) && ss->pending_rc == 0;
    int rc = 0;
    if (t.plan && !ss->broken && !closed)
        send_delta(&t, 1);
    if (!ss->broken && !closed && !atomic_load(&t.watched) && session_stopping(ss))
        rc = session_send_end(ss, WIRE_END_FAILED, "server is shutting down");
    else if (!ss->broken && !closed)
        rc = session_send_end(ss, atomic_load(&t.failed) ? WIRE_END_PARTIAL : WIRE_END_OK, "");
    /* After END the client sends its next request or closes: either way
     * the watcher returns, and its frame is the session's next. */
    if (watching)
        pthread_join(t.watcher, NULL);
    closed = ss->pending && ss->pending_rc == 0;
    if (!closed && (ss->broken || rc < 0))
        rc = err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
    else
        rc = 0;
    for (size_t i = 0; i < t.n_fs; i++)
        follower_free(t.fs[i]);
    free(t.fs);
    followset_free(&t.set);
    free(t.specs);
    query_free(q);
    pthread_mutex_destroy(&t.mu);
    return rc;
}
