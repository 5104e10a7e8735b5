/* session_tail.c: TAIL requests. The files the specs name are followed by
 * exec's follow run (exec/follow_run.h), the supervisor serverless dtail
 * uses too: one thread (this session's) reads every file of the request,
 * through the cat/grep plan into LINES frames or, with a query, the map
 * plan (a scan per file, whose tables go out every interval as AGGREGATE
 * deltas). A request costs one MaxConcurrentTails slot and one thread,
 * whatever the number of files; rotations and truncations are told to the
 * client as messages, as tail -F tells them.
 *
 * Every file is opened through perm_open, also one that a rotation puts at
 * the path, so a file swapped in later is checked like the first. The
 * specs are expanded again every second; files that appear are followed
 * from their start. The request ends when the client closes the channel or
 * sends another frame, when its timeout passes, or when the server stops;
 * then the output is flushed and END goes out (a map request sends its
 * last delta first). A job's session (session_job.c) has no client: its
 * deltas and END go to the job. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/outbuf.h"
#include "exec/follow_plan.h"
#include "exec/follow_run.h"
#include "exec/scan/targets.h"
#include "server/session_int.h"
#include "wire/batch.h"

#define TAIL_BATCH (64 * 1024)

typedef struct tail_run tail_run_t;

typedef struct tail_file {
    tail_run_t *t;               /* the request */
    follow_file_t *ff;           /* the plan over it */
    char *asked;                 /* the spec it came from (for denials) */
    int refused;                 /* the file at the path was refused (told once) */
    int opened;                  /* a file at the path was followed */
    mapscan_t *ms;               /* map: this file's scan */
} tail_file_t;

struct tail_run {
    session_t *ss;               /* the session */
    const wire_request_t *wq;    /* the request as it came (compression) */
    const exec_request_t *rq;    /* the engine's request */
    volatile int stop;           /* the run ends */
    atomic_int failed;           /* files that could not be followed */
    follow_run_t *run;           /* the supervisor */
    /* lines */
    follow_lines_t lines;        /* the cat/grep plan, shared by the files */
    int have_lines;
    outbuf_t out;                /* 64 KiB blocks */
    wire_batch_t batch;          /* LINES frames (not in a 4.1 session) */
    int have_batch;
    int have_out;
    follow_plan_t map_files;     /* map: the plan the files' scans run under */
    follow_plan_t *files;        /* the plan of the run's files: one of the two */
    /* map */
    exec_plan_t query;           /* the request's plan with its query stage */
    int have_query;
    const plan_t *plan;          /* its query's plan, NULL for lines */
    agg_spec_t *specs;           /* its aggregate specs */
    long long interval_ms, next_report;
    /* the client's next frame (or its close) */
    pthread_t watcher;
    atomic_int watched;          /* the watcher has read something; set
                                    with release after ss->pending_*, so an
                                    acquire load that sees it sees them */
};

/* ---- opening: permissions on every file, also after a rotation ---------- */

/* follow.h's open hook. A refusal is told once per file, by the name
 * the client asked for and as every refusal is told (session.c): also a
 * missing file, until a file was followed; then a path that is gone for a
 * moment is part of a rotation, not news. Whatever the reason, the source
 * then waits as for a missing file (ENOENT): a missing file and a refused
 * one behave alike, and a rotation may still bring one it may read. */
static int tail_open(void *ctx, const char *path)
{
    tail_file_t *f = ctx;
    tail_run_t *t = f->t;
    session_t *ss = t->ss;
    char canonical[4096], detail[8192];
    int fd;
    enum perm_result pr = perm_open(ss->rules, &ss->user, path, &fd, canonical, sizeof canonical,
                                    detail, sizeof detail);
    if (pr == PERM_OK) {
        f->refused = 0;
        f->opened = 1;
        LOG_INFO("Start reading|%s|%s", canonical, f->ff->source_id);
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

/* follow.h's open_candidate hook: a file in the followed file's directory
 * that may be its copy, checked like the file; a refusal is only logged
 * (at debug: most candidates are other files). */
static int tail_open_candidate(void *ctx, const char *path)
{
    tail_file_t *f = ctx;
    session_t *ss = f->t->ss;
    char canonical[4096], detail[8192];
    int fd;
    if (perm_open(ss->rules, &ss->user, path, &fd, canonical, sizeof canonical, detail,
                  sizeof detail) == PERM_OK) {
        LOG_DEBUG("Copy candidate|%s", canonical);
        return fd;
    }
    LOG_DEBUG("Copy candidate refused|%s|%s", path, detail);
    errno = EACCES;
    return -1;
}

/* follow.h's notice hook: rotations and truncations, after the lines
 * before them. */
static void tail_notice(void *ctx, const char *path, const char *what)
{
    tail_file_t *f = ctx;
    tail_run_t *t = f->t;
    if (t->have_out)
        outbuf_flush(&t->out);
    char text[4096 + 256];
    snprintf(text, sizeof text, "%s: %s", path, what);
    LOG_INFO("Follow|%s|%s", path, what);
    session_send_message(t->ss, LOG_WARN, text);
}

static void tail_failed(void *ctx, const char *path, const err_t *e)
{
    tail_run_t *t = ctx;
    if (t->ss->broken || t->ss->cancel)   /* a superseded run's files did not fail */
        return;
    LOG_WARN("Following failed|%s|%s", path, e->msg);
    if (t->have_out)
        outbuf_flush(&t->out);
    session_send_file_status(t->ss, WIRE_FILE_ERROR, path, e->msg);
    t->failed++;
}

/* ---- the output of the cat/grep plan --------------------------------------- */

static int tail_sink(void *ctx, const char *p, size_t n, int *err)
{
    tail_run_t *t = ctx;
    int rc = wire_batch_sink(&t->batch, p, n, err);
    if (rc < 0) {
        t->ss->send_err = t->batch.err;
        t->ss->broken = 1;
        t->stop = 1;
    }
    return rc;
}

static int lines_setup(tail_run_t *t, err_t *e)
{
    const exec_request_t *rq = t->rq;
    exec_env_t env = session_exec_env(t->ss, 0);
    /* A 4.1 session's lines are messages of their own, not LINES frames. */
    int rc = t->ss->dt41 ? outbuf_init_sink(&t->out, TAIL_BATCH, session_dt41_lines, t->ss, e) : -2;
    if (rc == -2) {
        if (wire_batch_init(&t->batch, t->ss->s, &t->ss->send_mu, session_zlevel(t->wq), e) < 0)
            return -1;
        t->have_batch = 1;
        rc = outbuf_init_sink(&t->out, TAIL_BATCH, tail_sink, t, e);
    }
    if (rc < 0)
        return -1;
    t->have_out = 1;
    if (follow_lines_init(&t->lines, rq, &env, &t->out, tail_failed, t, e) < 0)
        return -1;
    t->have_lines = 1;
    LOG_INFO("Using %s matching for pattern:|%s", matcher_strategy(&t->lines.p.m),
             t->lines.p.m.pattern);
    return 0;
}

/* ---- which files: the specs, expanded again every second ---------------- */

static void tail_file_free(tail_file_t *f)
{
    if (!f)
        return;
    follow_file_free(f->ff);
    follow_scan_free(f->ms);
    free(f->asked);
    free(f);
}

/* follow_plan_t.release_file: the run is done with a file. */
static void tail_release(follow_file_t *ff)
{
    tail_file_free(ff->user);
}

static tail_file_t *tail_file_new(tail_run_t *t, const target_t *tg, const char *asked, err_t *e)
{
    tail_file_t *f = calloc(1, sizeof *f);
    if (!f || !(f->asked = strdup(asked))) {
        free(f);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    f->t = t;
    if (t->plan && !(f->ms = follow_scan_new(&t->query.mo, e))) {
        tail_file_free(f);
        return NULL;
    }
    if (!(f->ff = follow_file_new(t->files, tg->path, tg->source_id, f->ms, e))) {
        tail_file_free(f);
        return NULL;
    }
    f->ff->user = f;
    return f;
}

/* Follows tg unless its path or its file is followed already. */
static void start_follower(tail_run_t *t, const target_t *tg, const char *asked, int from_start)
{
    if (follow_run_has(t->run, tg->path))
        return;
    if (journal_spec_is(tg->path, strlen(tg->path))) {
        /* checked and opened once, at the first look: a journal target
         * does not come and go as a file does */
        if (from_start)
            return;
        if (!session_journal_allowed(t->ss, tg->path, asked)) {
            t->failed++;
            return;
        }
    }
    err_t e;
    err_clear(&e);
    tail_file_t *f = tail_file_new(t, tg, asked, &e);
    if (!f) {
        session_send_message(t->ss, LOG_ERROR, e.msg);
        return;
    }
    follow_opts_t fo = {.from_start = from_start, .open = tail_open,
                        .open_candidate = tail_open_candidate, .open_ctx = f,
                        .notice = tail_notice, .notice_ctx = f};
    int added = follow_run_add(t->run, tg->path, &fo, &follow_file_ops, f->ff, &e);
    if (added <= 0) {   /* else the run owns f (tail_release) */
        if (added < 0)
            tail_failed(t, tg->path, &e);
        tail_file_free(f);
    }
}

/* A path followed already: a later look does not check it again. */
static int tail_known(void *ctx, const char *path)
{
    tail_run_t *t = ctx;
    return follow_run_has(t->run, path);
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

static void rescan(void *ctx, follow_run_t *r)
{
    (void)r;
    expand(ctx, 0);
}

/* ---- the client's side: its next frame ends the tail -------------------- */

static void *watch_client(void *arg)
{
    tail_run_t *t = arg;
    session_t *ss = t->ss;
    if (ss->dt41) {   /* its frames are the 4.1 reader's; the run's end ends the wait */
        int got = session_dt41_wait(ss, &t->stop);
        ss->pending_rc = got == 0 ? 0 : 1;
        atomic_store_explicit(&t->watched, got >= 0, memory_order_release);
        t->stop = 1;
        return NULL;
    }
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

typedef struct take {
    agg_table_t *into;
    int rc;
} take_t;

static void take_file(void *file_ctx, void *arg)
{
    follow_file_t *ff = file_ctx;
    take_t *tk = arg;
    tk->rc |= mapscan_take(ff->ms, tk->into);
}

/* What every file read since the last call, as one table. */
static int send_delta(tail_run_t *t, int final)
{
    agg_table_t d;
    err_t e;
    if (agg_table_init(&d, t->specs, t->plan->n_select, &e) < 0)
        return session_send_message(t->ss, LOG_ERROR, e.msg);
    take_t tk = {&d, 0};
    follow_run_each(t->run, take_file, &tk);
    const session_local_t *local = t->ss->local;
    int rc = 0;
    if (tk.rc < 0)
        rc = session_send_message(t->ss, LOG_ERROR, "out of memory: a report is incomplete");
    else if (local)
        local->table(local->ctx, t->plan, &d, final);
    else if (t->ss->dt41)
        rc = session_dt41_table(t->ss, t->plan, &d, NULL);
    else
        rc = session_send_table(t->ss, &d, final);
    agg_table_free(&d);
    return rc;
}

/* ---- the request ------------------------------------------------------------ */

static int tick(void *ctx)
{
    tail_run_t *t = ctx;
    session_t *ss = t->ss;
    if (t->stop || ss->broken || session_stopping(ss))
        return 1;
    if (t->plan && clock_now_ms() >= t->next_report) {
        send_delta(t, 0);
        t->next_report = clock_now_ms() + t->interval_ms;
    }
    return 0;
}

static void flush(void *ctx)
{
    tail_run_t *t = ctx;
    if (t->have_out)
        outbuf_flush(&t->out);
}

static void run_warn(void *ctx, const char *msg)
{
    tail_run_t *t = ctx;
    LOG_WARN("Follow degraded|%s", msg);
    session_send_message(t->ss, LOG_WARN, msg);
}

static int map_setup(tail_run_t *t, err_t *e)
{
    /* Each interval's delta is taken whole (mapscan_take), and a take
     * loads spilled groups back: a tail's tables hold one interval
     * (no memory limit). One thread reads every file; the follow run
     * keeps the deadline. */
    exec_env_t env = session_exec_env(t->ss, 0);
    env.n_threads = 1;
    int planned = session_plan(t->ss, &t->query, t->rq, &env);
    if (planned != 0)
        return planned < 0 ? err_set(e, ERR_IO, "client gone: %s", t->ss->send_err.msg) : 1;
    t->have_query = 1;
    t->plan = t->query.map;
    t->specs = calloc(t->plan->n_select ? t->plan->n_select : 1, sizeof *t->specs);
    if (!t->specs) {
        err_set(e, ERR_NOMEM, "out of memory");
        return session_send_end(t->ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 1;
    }
    eval_specs(t->plan, t->specs);
    return 0;
}

static void run_free(tail_run_t *t)
{
    follow_run_free(t->run);
    if (t->have_lines)
        follow_lines_free(&t->lines);
    if (t->have_out)
        outbuf_free(&t->out);
    if (t->have_batch)
        wire_batch_free(&t->batch);
    free(t->specs);
    if (t->have_query)
        exec_plan_free(&t->query);
}

int session_run_tail(session_t *ss, const wire_request_t *wq, const exec_request_t *rq, err_t *e)
{
    tail_run_t t;
    memset(&t, 0, sizeof t);
    t.ss = ss;
    t.wq = wq;
    t.rq = rq;
    if (rq->query && *rq->query) {
        int rc = map_setup(&t, e);
        if (rc != 0) {
            run_free(&t);
            return rc < 0 ? -1 : 0;
        }
        long long iv = t.plan->interval > 0 ? t.plan->interval : 5;
        t.interval_ms = iv * 1000;
        t.next_report = clock_now_ms() + t.interval_ms;
    } else if (lines_setup(&t, e) < 0) {
        /* a bad pattern ends the request before anything is followed */
        run_free(&t);
        return session_send_end(ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 0;
    }
    t.map_files = (follow_plan_t){.failed = tail_failed, .ctx = &t};
    t.files = t.plan ? &t.map_files : &t.lines.plan;
    t.files->release_file = tail_release;   /* the files carry a tail_file_t */
    follow_run_hooks_t hooks = {.ctx = &t, .rescan = rescan, .tick = tick, .flush = flush,
                                .warn = run_warn,
                                .rescan_ms = session_exec_env(ss, 0).rescan_ms};
    if (!(t.run = follow_run_new(&hooks, &t.stop, e))) {
        run_free(&t);
        return session_send_end(ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 0;
    }
    atomic_init(&t.watched, 0);
    /* Without a client (a job) only the timeout or the server's stop
     * ends the run. */
    int watching = !ss->local && pthread_create(&t.watcher, NULL, watch_client, &t) == 0;
    long long deadline = rq->timeout_s ? clock_now_ms() + rq->timeout_s * 1000LL : 0;
    const session_env_t *env = ss->env;
    expand(&t, 1);
    /* One slot for the request, whatever the number of its files. A job
     * has no client whose going away ends the wait: the server's stop does. */
    const volatile int *wait_stop = ss->local ? env->stopping : &t.stop;
    int slot = !env->limits ||
               server_limits_acquire(env->limits, LIMIT_TAIL, env->user, wait_stop, 0) >= 0;
    if (slot) {
        follow_run_loop(t.run, deadline);
        if (env->limits)
            server_limits_release(env->limits, LIMIT_TAIL, env->user);
    }
    t.stop = 1;
    flush(&t);
    if (t.have_lines && env->counters)
        atomic_fetch_add(&env->counters->lines_served, t.lines.sink.n_lines);
    /* The client's close is how a tail normally ends: nothing to tell. */
    int closed = atomic_load_explicit(&t.watched, memory_order_acquire) && ss->pending_rc == 0;
    int rc = 0;
    if (t.plan && !ss->broken && !closed)
        send_delta(&t, 1);
    char sum[512];
    if (follow_run_summary(t.run, sum, sizeof sum)) {
        LOG_WARN("Follow summary|%s", sum);
        if (!ss->broken && !closed)
            session_send_message(ss, LOG_WARN, sum);
    }
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
    run_free(&t);
    return rc;
}
