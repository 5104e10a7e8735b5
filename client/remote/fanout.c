/* fanout.c: host threads, the handshake throttle, failure reports, the
 * main loop (deadline, signals, ticks) and the summary. */
#include "client/remote/fanout.h"
#include "client/tools/interrupt.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fdio.h"
#include "base/log.h"
#include "base/term.h"

#define TICK_MS 100
#define FANOUT_READ_BUDGET ((size_t)16 << 20)  /* in flight from all servers */
#define FANOUT_READ_MIN ((size_t)128 << 10)
#define FANOUT_READ_MAX ((size_t)4 << 20)
#define BACKOFF_FIRST_MS 2000
#define BACKOFF_MAX_MS 60000

/* ---- output and reports ------------------------------------------------------ */

int fanout_stopping(fanout_t *f)
{
    pthread_mutex_lock(&f->mu);
    int s = f->stopping;
    pthread_mutex_unlock(&f->mu);
    return s || interrupt_stop;
}

int fanout_write_lines(fanout_host_t *h, const char *p, size_t n, err_t *e)
{
    fanout_t *f = h->f;
    pthread_mutex_lock(&f->out_mu);
    int rc = 0;
    if (!f->out_failed && !f->stopping && fdio_write_all(STDOUT_FILENO, p, n) < 0) {
        f->out_failed = 1;
        rc = err_set(e, ERR_IO, "writing output failed: %s", strerror(errno));
    }
    pthread_mutex_unlock(&f->out_mu);
    return rc;
}

/* Per-host errors do not name the server; the report does, once. */
static void report_failure(fanout_host_t *h, const err_t *e)
{
    fanout_t *f = h->f;
    const char *why = e->msg;
    pthread_mutex_lock(&f->mu);
    snprintf(h->why, sizeof h->why, "%s", why);
    int quiet_now = f->stopping;
    pthread_mutex_unlock(&f->mu);
    if (quiet_now || log_level < LOG_ERROR)
        return;
    if (f->opts->o->plain)
        term_fprintf(stderr, "%s|%s\n", h->t->name, why);
    else
        term_fprintf(stderr, "CLIENT|%s|ERROR|%s|%s\n", f->me, h->t->name, why);
}

static void set_state(fanout_host_t *h, int state)
{
    fanout_t *f = h->f;
    pthread_mutex_lock(&f->mu);
    if (state == FANOUT_CONNECTED)
        f->n_connected++;
    else if (h->state == FANOUT_CONNECTED)
        f->n_connected--;
    h->state = state;
    pthread_mutex_unlock(&f->mu);
}

/* ---- the handshake throttle ------------------------------------------------ */

/* Waits for a slot; 0 when the run ended first. */
static int take_slot(fanout_t *f)
{
    pthread_mutex_lock(&f->slot_mu);
    pthread_mutex_lock(&f->mu);
    f->n_throttled++;
    pthread_mutex_unlock(&f->mu);
    while (f->slots == 0 && !fanout_stopping(f)) {
        struct timespec ts;
        clock_abs_in(&ts, TICK_MS);
        pthread_cond_timedwait(&f->slot_cv, &f->slot_mu, &ts);
    }
    int got = f->slots > 0 && !fanout_stopping(f);
    if (got)
        f->slots--;
    pthread_mutex_lock(&f->mu);
    f->n_throttled--;
    pthread_mutex_unlock(&f->mu);
    pthread_mutex_unlock(&f->slot_mu);
    return got;
}

static void give_slot(fanout_t *f)
{
    pthread_mutex_lock(&f->slot_mu);
    f->slots++;
    pthread_cond_signal(&f->slot_cv);
    pthread_mutex_unlock(&f->slot_mu);
}

/* The trust prompt reads the terminal: one host at a time may ask. */
static pthread_mutex_t prompt_mu = PTHREAD_MUTEX_INITIALIZER;

static int connect_host(fanout_host_t *h, err_t *e)
{
    fanout_t *f = h->f;
    const cli_opts_t *o = f->opts->o;
    int may_prompt = !o->trust_all_hosts && isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
    if (may_prompt)
        pthread_mutex_lock(&prompt_mu);
    int rc = remote_connect(&h->c, h->t, o, f->opts->cfg, f->ops->early, e);
    if (may_prompt)
        pthread_mutex_unlock(&prompt_mu);
    return rc;
}

/* Counts the first handshake of each host; when the last one is in,
 * says how long connecting took (benchmarks/fanout.sh reads it). */
static void first_handshake_done(fanout_host_t *h)
{
    fanout_t *f = h->f;
    pthread_mutex_lock(&f->mu);
    int last = !h->handshaken && ++f->n_handshakes == f->targets.n;
    h->handshaken = 1;
    pthread_mutex_unlock(&f->mu);
    if (last)
        LOG_INFO("Handshakes with all %zu servers done after %lld ms", f->targets.n,
                 clock_now_ms() - f->start_ms);
}

/* Sleeps about ms (±20 %), waking early when the run ends. */
static void backoff_wait(fanout_t *f, long long ms)
{
    long long jitter = ms / 5;
    long long wait = ms - jitter + (jitter ? rand() % (2 * jitter + 1) : 0);
    long long until = clock_now_ms() + wait;
    while (!fanout_stopping(f) && clock_now_ms() < until)
        clock_sleep_ms(TICK_MS);
}

static void *host_main(void *arg)
{
    fanout_host_t *h = arg;
    fanout_t *f = h->f;
    long long backoff = BACKOFF_FIRST_MS;
    for (;;) {
        if (!take_slot(f))
            break;
        set_state(h, FANOUT_CONNECTING);
        err_t e;
        err_clear(&e);
        int rc = connect_host(h, &e);
        give_slot(f);
        first_handshake_done(h);
        if (rc == 0) {
            pthread_mutex_lock(&f->mu);
            h->connects++;
            h->why[0] = '\0';
            pthread_mutex_unlock(&f->mu);
            set_state(h, FANOUT_CONNECTED);
            long long connected_at = clock_now_ms();
            rc = f->ops->run(f->ops->ctx, h, &e);
            remote_close(&h->c);
            /* A session that ended at once (a server at its limit refuses
             * the first request) keeps backing off; one that ran starts
             * over. */
            if (clock_now_ms() - connected_at >= BACKOFF_FIRST_MS)
                backoff = BACKOFF_FIRST_MS;
        }
        if (rc < 0 && !fanout_stopping(f))
            report_failure(h, &e);
        set_state(h, rc == 0 ? FANOUT_DONE : FANOUT_FAILED);
        if (!f->ops->retry || fanout_stopping(f) || h->c.cannot_serve)
            break;
        backoff_wait(f, backoff);
        backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
    }
    pthread_mutex_lock(&f->mu);
    h->finished = 1;
    f->n_finished++;
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* ---- stats and summary ------------------------------------------------------- */

static void print_stats(fanout_t *f)
{
    pthread_mutex_lock(&f->mu);
    size_t connected = f->n_connected, n = f->targets.n, throttled = f->n_throttled;
    pthread_mutex_unlock(&f->mu);
    interrupt_print_hint();
    fprintf(stderr, "Connection stats: connected=%zu|servers=%zu|connected%%=%zu|throttle=%zu\n",
            connected, n, n ? connected * 100 / n : 0, throttled);
}

enum run_end { END_ALL_DONE, END_DEADLINE, END_SIGNAL };

/* Marks hosts that did not finish, prints the summary, returns the status. */
static int summarize(fanout_t *f, enum run_end how, client_run_t *rs)
{
    const fanout_opts_t *fo = f->opts;
    size_t ok = 0, failed = 0, unfinished = 0;
    int status = rs->status;
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->targets.n; i++) {
        fanout_host_t *h = &f->hosts[i];
        if (h->rs.status > status)
            status = h->rs.status;
        /* Decided once: hosts left running may still change state. */
        h->ok = f->ops->retry ? h->state == FANOUT_CONNECTED || (h->connects && !h->why[0])
                              : h->finished && h->state == FANOUT_DONE;
        if (!h->finished && !f->ops->retry && how == END_DEADLINE && !h->why[0])
            snprintf(h->why, sizeof h->why, "not finished at the client deadline (--timeout)");
        /* A server that reported a problem with the request (a missing
         * or unreadable file, a failed read) did not end it well. */
        if (h->ok && h->rs.status && !f->ops->retry) {
            h->ok = 0;
            if (!h->why[0])
                snprintf(h->why, sizeof h->why, "%s",
                         "the server reported a problem with the request (its SERVER lines above)");
        }
        if (h->ok) {
            ok++;
        } else if (!h->why[0]) {
            unfinished++;
            snprintf(h->why, sizeof h->why, "%s", how == END_SIGNAL ? "interrupted" : "not finished");
        } else {
            failed++;
        }
        if (f->ops->done)
            f->ops->done(f->ops->ctx, h);
    }
    pthread_mutex_unlock(&f->mu);
    /* An interrupted or cut-short run is incomplete (dtail excepted:
     * its normal end is a signal or the deadline, and its servers count
     * as ok when connected). */
    if (failed || (unfinished && !f->ops->retry))
        status = status > 1 ? status : 1;
    if (f->out_failed)
        status = status > 1 ? status : 1;
    int show = !fo->o->quiet && !fo->o->plain && log_level > LOG_NONE &&
               (f->targets.n > 1 || failed || unfinished);
    if (show) {
        term_fprintf(stderr, "CLIENT|%s|%s|SUMMARY|servers=%zu|ok=%zu|failed=%zu|unfinished=%zu\n",
                f->me, failed || (unfinished && !f->ops->retry) ? "ERROR" : "INFO", f->targets.n,
                ok, failed, unfinished);
        for (size_t i = 0; i < f->targets.n; i++) {
            fanout_host_t *h = &f->hosts[i];
            pthread_mutex_lock(&f->mu);
            if (!h->ok)
                term_fprintf(stderr, "CLIENT|%s|ERROR|SUMMARY|%s|%s\n", f->me, h->t->name, h->why);
            pthread_mutex_unlock(&f->mu);
        }
    }
    return status;
}

/* Hosts that are still running at the end are left to the process exit,
 * so the run's state stays allocated (and reachable from here). */
static fanout_t *run_state;

/* ---- the run ------------------------------------------------------------------- */

int fanout_targets_of(const cli_opts_t *o, const config_t *cfg, fanout_targets_t *out, err_t *e)
{
    return fanout_targets_parse(out, o->servers, o->discovery, client_default_port(o, cfg), e);
}

int fanout_files_and_targets(const cli_opts_t *o, const config_t *cfg, int skip, char **files,
                             fanout_targets_t *tl, err_t *e)
{
    *files = remote_files(o, skip, e);
    if (!*files)
        return -1;
    if (fanout_targets_of(o, cfg, tl, e) < 0) {
        free(*files);
        *files = NULL;
        return -1;
    }
    return 0;
}

int fanout_run(const fanout_opts_t *fo, const fanout_ops_t *ops, client_run_t *rs,
               int *abandoned)
{
    err_t e;
    err_clear(&e);
    *abandoned = 0;
    fanout_t *f = calloc(1, sizeof *f);
    if (!f) {
        err_set(&e, ERR_NOMEM, "out of memory");
        return client_usage_error(rs->tool, &e);
    }
    run_state = f;
    f->opts_copy = *fo;
    f->ops_copy = *ops;
    f->opts = fo = &f->opts_copy;
    f->ops = ops = &f->ops_copy;
    f->targets = *fo->targets;   /* a copy: the caller's may be on its stack */
    cli_host_name(f->me, sizeof f->me);
    const cli_opts_t *o = fo->o;
    /* Servers share the client's memory: what each may have in flight (its
     * read size, and so its SSH window) shrinks as their number grows. One
     * server still gets the transport's full 4 MiB for long round trips. */
    size_t per_server = FANOUT_READ_BUDGET / f->targets.n;
    if (per_server < FANOUT_READ_MIN)
        per_server = FANOUT_READ_MIN;
    for (size_t i = 0; f->targets.n > 1 && i < f->targets.n; i++)
        f->targets.items[i].read_max = per_server < FANOUT_READ_MAX ? per_server : FANOUT_READ_MAX;
    /* One malloc arena per connection thread holds freed buffers of its
     * own; a few shared arenas keep the client's memory per server small.
     * And glibc's mmap threshold, which grows past every large buffer
     * freed, stays put: a connection's read and frame buffers are then
     * mappings of their own, whose pages are resident only where bytes
     * came and which go back to the system when the connection ends,
     * rather than arena memory that stays resident (100 servers: dcat's
     * peak RSS 25.2 -> 16.2 MB). */
    if (f->targets.n > 8) {
        mallopt(M_ARENA_MAX, 4);
        mallopt(M_MMAP_THRESHOLD, 64 * 1024);
    }
    f->hosts = calloc(f->targets.n, sizeof *f->hosts);
    if (!f->hosts) {
        err_set(&e, ERR_NOMEM, "out of memory");
        free(f);
        run_state = NULL;
        return client_usage_error(rs->tool, &e);
    }
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    pthread_mutex_init(&f->out_mu, NULL);
    pthread_mutex_init(&f->slot_mu, NULL);
    pthread_cond_init(&f->slot_cv, NULL);
    f->slots = (int)(o->cpc ? o->cpc : FANOUT_DEFAULT_CPC) * client_cpu_count();
    srand((unsigned)(time(NULL) ^ getpid()));
    interrupt_install();

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, FANOUT_STACK);
    long long start = clock_now_ms();
    f->start_ms = start;
    for (size_t i = 0; i < f->targets.n; i++) {
        fanout_host_t *h = &f->hosts[i];
        h->f = f;
        h->t = &f->targets.items[i];
        h->rs.tool = rs->tool;
        int rc = pthread_create(&h->thread, &attr, host_main, h);
        if (rc != 0) {   /* the error is the return value, errno is not set */
            err_set(&e, ERR_NOMEM, "cannot start a thread: %s", strerror(rc));
            report_failure(h, &e);
            /* Started hosts count under mu as well: no update is lost. */
            pthread_mutex_lock(&f->mu);
            h->state = FANOUT_FAILED;
            h->finished = 1;
            h->thread = 0;
            f->n_finished++;
            pthread_mutex_unlock(&f->mu);
        }
    }
    pthread_attr_destroy(&attr);

    enum run_end how = END_ALL_DONE;
    long long deadline = fo->deadline_s > 0 ? start + fo->deadline_s * 1000 : 0;
    pthread_mutex_lock(&f->mu);
    while (f->n_finished < f->targets.n) {
        struct timespec ts;
        clock_abs_in(&ts, TICK_MS);
        pthread_cond_timedwait(&f->cv, &f->mu, &ts);
        pthread_mutex_unlock(&f->mu);
        if (interrupt_take_stats_request())
            print_stats(f);
        if (ops->tick)
            ops->tick(ops->ctx);
        pthread_mutex_lock(&f->mu);
        if (interrupt_stop) {
            how = END_SIGNAL;
            break;
        }
        if (deadline && clock_now_ms() >= deadline) {
            how = END_DEADLINE;
            break;
        }
    }
    f->stopping = 1;
    pthread_mutex_unlock(&f->mu);
    pthread_cond_broadcast(&f->slot_cv);
    pthread_mutex_lock(&f->out_mu);   /* no batch is half written from here on */
    pthread_mutex_unlock(&f->out_mu);
    LOG_DEBUG("fan-out over %zu servers ended after %lld ms", f->targets.n, clock_now_ms() - start);
    for (size_t i = 0; i < f->targets.n; i++) {
        fanout_host_t *h = &f->hosts[i];
        pthread_mutex_lock(&f->mu);
        int done = h->finished;
        pthread_mutex_unlock(&f->mu);
        if (h->thread && done)
            pthread_join(h->thread, NULL);
        else if (h->thread)
            pthread_detach(h->thread);
    }
    int status = summarize(f, how == END_DEADLINE && fo->deadline_is_end ? END_ALL_DONE : how, rs);
    pthread_mutex_lock(&f->mu);
    *abandoned = f->n_finished < f->targets.n;
    pthread_mutex_unlock(&f->mu);
    if (!*abandoned) {
        free(f->hosts);
        free(f);
        run_state = NULL;
    }
    return status;
}
