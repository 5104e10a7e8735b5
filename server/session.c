/* session.c: HELLO, then requests: cat/grep through linescan into LINES
 * frames, map through mapscan into AGGREGATE frames, health. */
#include "server/health.h"
#include "server/session_int.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/outbuf.h"
#include "exec/agg/spill.h"
#include "exec/linescan.h"
#include "exec/mapscan.h"
#include "exec/scan/targets.h"
#include "parser/parser.h"
#include "server/permissions.h"
#include "server/auth.h"
#include "wire/batch.h"
#include "wire/frame.h"
#include "wire/msg.h"

/* DTail sends lines in 64 KiB writes; so do we (a plain cat's mapped
 * regions go out whole, see wire/batch.h). */
#define LINE_BATCH (64 * 1024)
#define ZSTD_LEVEL 1
/* A server reads only HELLO and REQUEST frames (capped by
 * MaxCommandFrameSize, 1 MiB by default): small reads keep the decoder's
 * buffer small on every connection; a larger frame still grows it. */
#define REQUEST_READ (64 * 1024)
#define SESSION_AGG_PART (4u * 1024 * 1024)   /* bytes per AGGREGATE frame: a
                                                 quarter of the client's limit */

/* What a file's work read of it, for its FILE_STATUS (WIRE_COUNT_NONE:
 * not counted). */
typedef struct file_counts {
    uint64_t bytes;              /* input bytes (decoded) */
    uint64_t lines;              /* lines */
} file_counts_t;

/* Per-file work of a request. */
typedef int (*file_fn_t)(session_t *ss, void *ctx, input_t *in, const target_t *t,
                         unsigned index, file_counts_t *n, err_t *e);

static int send_small(session_t *ss, void (*encode)(session_t *, void *), void *arg)
{
    pthread_mutex_lock(&ss->send_mu);
    int rc = -1;
    if (!ss->broken) {
        encode(ss, arg);
        rc = wire_buf_send(&ss->small, ss->s, &ss->send_err);
        if (rc < 0)
            ss->broken = 1;
    }
    pthread_mutex_unlock(&ss->send_mu);
    return rc;
}

typedef struct status_args {
    uint8_t status;              /* file status, end status or level */
    const char *name;            /* file name */
    const char *text;            /* detail or message */
    file_counts_t n;             /* FILE_STATUS: what was read */
} status_args_t;

static void enc_file_status(session_t *ss, void *a)
{
    status_args_t *x = a;
    wire_encode_file_status(&ss->small, x->status, x->name, x->text, x->n.bytes, x->n.lines);
}

static void enc_end(session_t *ss, void *a)
{
    status_args_t *x = a;
    wire_encode_end(&ss->small, x->status, x->text);
}

static void enc_message(session_t *ss, void *a)
{
    status_args_t *x = a;
    wire_encode_message(&ss->small, x->status, x->text);
}

static int send_file_counts(session_t *ss, uint8_t st, const char *name, const char *detail,
                            file_counts_t n)
{
    return send_small(ss, enc_file_status, &(status_args_t){st, name, detail, n});
}

int session_send_file_status(session_t *ss, uint8_t st, const char *name, const char *detail)
{
    return send_file_counts(ss, st, name, detail, (file_counts_t){WIRE_COUNT_NONE, WIRE_COUNT_NONE});
}

int session_send_end(session_t *ss, uint8_t st, const char *message)
{
    return send_small(ss, enc_end, &(status_args_t){.status = st, .text = message});
}

int session_send_message(session_t *ss, enum log_level level, const char *text)
{
    return send_small(ss, enc_message, &(status_args_t){.status = (uint8_t)level, .text = text});
}

/* Every file the client may not have is told in these words, as "not
 * found", whatever the reason: missing, refused by a rule, by the OS check,
 * one of dserver's secrets, not a regular file. Different answers would
 * tell what exists where the user may not look (docs/dserver.md,
 * Hardening); the reason is in the server's log. */
static const char session_refused_text[] = "No permission to read file, or it does not exist";

/* The server's log keeps why. */
static void log_refusal(session_t *ss, enum log_level level, const char *asked, const char *detail)
{
    LOG_AT(level, "No permission to read file|%s|%s@%s|%s", asked, ss->env->user,
           ss->env->hostname, detail);
}

int session_stopping(const session_t *ss)
{
    return ss->env->stopping && *ss->env->stopping;
}

int session_zlevel(const wire_request_t *rq)
{
    return (rq->flags & WIRE_REQ_ZSTD) ? ZSTD_LEVEL : 0;
}

size_t session_max_line_len(const session_t *ss)
{
    return ss->env->cfg ? ss->env->cfg->max_line_len : 1024 * 1024;
}

int session_next_spec(const char **pp, char **spec)
{
    const char *entry;
    size_t len;
    *spec = NULL;
    if (!target_spec_next(pp, &entry, &len))
        return 0;
    *spec = strndup(entry, len);
    return *spec ? 1 : -1;
}

uint8_t session_report_refusal(session_t *ss, const char *asked, const char *detail)
{
    log_refusal(ss, LOG_WARN, asked, detail);
    session_send_file_status(ss, WIRE_FILE_NOT_FOUND, asked, session_refused_text);
    return WIRE_FILE_NOT_FOUND;
}

/* Opens, checks and processes one expanded target; returns the status
 * reported for it. */
static uint8_t serve_target(session_t *ss, const target_t *t, const char *asked, unsigned index,
                            file_fn_t fn, void *ctx)
{
    const session_env_t *env = ss->env;
    int got = env->limits ? server_limits_acquire(env->limits, LIMIT_CAT, env->user, env->stopping,
                                                  ss->deadline_ms)
                          : 0;
    if (got == -2) {
        /* The request's timeout passed while the file waited for a read
         * slot: it is not read, and the request's end says its result
         * covers only what was read until then. */
        ss->deadline_hit = 1;
        LOG_INFO("Not read: timeout reached while waiting for a read slot|%s", t->path);
        send_file_counts(ss, WIRE_FILE_OK, t->path, "", (file_counts_t){0, 0});
        return WIRE_FILE_OK;
    }
    if (got < 0)
        return WIRE_FILE_ERROR;
    if (env->limits) {
        pthread_mutex_lock(&ss->slot_mu);
        ss->cat_slot = 1;
        pthread_mutex_unlock(&ss->slot_mu);
    }
    char canonical[4096], detail[8192];
    int fd = -1;
    enum perm_result pr = perm_open(ss->rules, &ss->user, t->path, &fd, canonical,
                                    sizeof canonical, detail, sizeof detail);
    uint8_t st = WIRE_FILE_OK;
    err_t e;
    err_clear(&e);
    if (pr != PERM_OK) {
        st = session_report_refusal(ss, asked, detail);
    } else {
        /* Reopening the descriptor's magic link gives the exec/ input the
         * very file that was checked, whatever happens to the path. */
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        LOG_INFO("Start reading|%s|%s", canonical, t->source_id);
        input_t *in = input_open(link, &e);
        file_counts_t n = {WIRE_COUNT_NONE, WIRE_COUNT_NONE};
        if (!in || fn(ss, ctx, in, t, index, &n, &e) < 0) {
            st = WIRE_FILE_ERROR;
            LOG_WARN("Reading failed|%s|%s", canonical, e.msg);
            /* The file passed the permission check, so why its reading
             * failed (e.g. it was truncated) is the client's to know; e.msg
             * names the /proc link, the client knows the file by its name. */
            char why[sizeof e.msg + 4096];
            const char *at = strstr(e.msg, link);
            if (at)
                snprintf(why, sizeof why, "%.*s%s%s", (int)(at - e.msg), e.msg, t->path,
                         at + strlen(link));
            else
                snprintf(why, sizeof why, "Unable to read file: %s", e.msg);
            send_file_counts(ss, st, t->path, why, n);
        } else {
            LOG_INFO("File processing complete|%s", canonical);
            send_file_counts(ss, st, t->path, "", n);
        }
        if (in)
            input_close(in);
        close(fd);
    }
    if (env->limits) {
        pthread_mutex_lock(&ss->slot_mu);
        if (ss->cat_slot)
            server_limits_release(env->limits, LIMIT_CAT, env->user);
        ss->cat_slot = ss->yielded = 0;
        ss->slot_gen++;
        pthread_mutex_unlock(&ss->slot_mu);
    }
    return st;
}

/* stream_t.on_stall: the transport's writer waits on the client. */
static void session_on_stall(void *owner, int stalled)
{
    session_t *ss = owner;
    server_limits_t *l = ss->env->limits;
    if (!l)
        return;
    pthread_mutex_lock(&ss->slot_mu);
    if (stalled) {
        if (ss->cat_slot) {
            server_limits_release(l, LIMIT_CAT, ss->env->user);
            ss->cat_slot = 0;
            ss->yielded = 1;
        }
        pthread_mutex_unlock(&ss->slot_mu);
        return;
    }
    int take = ss->yielded;
    unsigned gen = ss->slot_gen;
    ss->yielded = 0;
    pthread_mutex_unlock(&ss->slot_mu);
    if (!take || server_limits_acquire(l, LIMIT_CAT, ss->env->user, ss->env->stopping, 0) < 0)
        return;
    pthread_mutex_lock(&ss->slot_mu);
    if (ss->slot_gen == gen)
        ss->cat_slot = 1;
    else
        server_limits_release(l, LIMIT_CAT, ss->env->user);   /* the file ended meanwhile */
    pthread_mutex_unlock(&ss->slot_mu);
}

static void note_miss(void *ctx, const err_t *e)
{
    (void)e;
    *(int *)ctx = 1;
}

/* Drops the matches of a glob (tl's items from `from` on) that the user
 * may not read, so that they are counted and told nowhere: a glob that
 * matches only such files is one that matches nothing, and the cut of
 * MaxGlobTargets counts the others only. known(ctx, path): a path the
 * caller follows already (a tail's), not checked again on its later looks
 * (without tell; they come every second, and their refusals go to the log
 * at debug level). The first look checks every match: a path the request
 * also names, and follows though it is refused, must not count for a glob. */
static void keep_allowed(session_t *ss, target_list_t *tl, size_t from, int tell,
                         int (*known)(void *ctx, const char *path), void *known_ctx)
{
    size_t kept = from;
    for (size_t i = from; i < tl->n; i++) {
        target_t *t = &tl->items[i];
        int ok = !tell && known && known(known_ctx, t->path);
        if (!ok) {
            char canonical[4096], detail[8192];
            int fd;
            enum perm_result pr = perm_open(ss->rules, &ss->user, t->path, &fd, canonical,
                                            sizeof canonical, detail, sizeof detail);
            ok = pr == PERM_OK;
            if (ok)
                close(fd);
            else
                log_refusal(ss, tell ? LOG_WARN : LOG_DEBUG, t->path, detail);
        }
        if (ok) {
            tl->items[kept++] = *t;
        } else {
            free(t->path);
            free(t->source_id);
        }
    }
    tl->n = kept;
}

/* Server.MaxGlobTargets: files one spec may expand to. */
static size_t session_max_targets(const session_t *ss)
{
    const config_t *cfg = ss->env->cfg;
    return cfg && cfg->max_glob_targets > 0 ? (size_t)cfg->max_glob_targets : 1000;
}

/* Keeps at most that many of what a spec expanded to, telling the client
 * as DTail does when it cuts. */
static void session_cap_targets(session_t *ss, target_list_t *tl)
{
    size_t max = session_max_targets(ss);
    if (tl->n <= max)
        return;
    char msg[160];
    snprintf(msg, sizeof msg,
             "Glob expansion exceeded server limit, only first targets served|limit|%zu|matched|%zu",
             max, tl->n);
    LOG_MSG(LOG_WARN, msg);
    session_send_message(ss, LOG_WARN, msg);
    target_list_truncate(tl, max);
}

int session_expand_spec(session_t *ss, const char *spec, target_list_t *tl, int tell,
                        int (*known)(void *ctx, const char *path), void *known_ctx)
{
    int missed = 0;
    size_t from = tl->n;
    err_t e;
    if (strcmp(spec, "-") == 0 || target_list_add_spec(tl, spec, note_miss, &missed, &e) < 0) {
        missed = 1;
    } else if (strpbrk(spec, "*?[")) {
        keep_allowed(ss, tl, from, tell, known, known_ctx);
        missed = tl->n == from;
    }
    if (missed && tell) {
        log_refusal(ss, LOG_WARN, spec, strcmp(spec, "-") == 0 ? "stdin is not served"
                                                               : "no file it may read matches");
        session_send_file_status(ss, WIRE_FILE_NOT_FOUND, spec, session_refused_text);
    }
    /* The cut is told only when the spec is: tail's later expansions cut quietly. */
    if (tell)
        session_cap_targets(ss, tl);
    else
        target_list_truncate(tl, session_max_targets(ss));
    return missed;
}

/* Runs fn over every file of the comma list `files`; returns the number of
 * files that failed (missing, denied, unreadable), or -1 if the client is
 * gone or the server stops. */
static int for_each_file(session_t *ss, const char *files, file_fn_t fn, void *ctx)
{
    int failed = 0;
    unsigned index = 0;
    const char *p = files;
    char *s;
    int got;
    while ((got = session_next_spec(&p, &s)) > 0) {
        if (ss->broken || session_stopping(ss)) {
            free(s);
            return -1;
        }
        target_list_t tl;
        target_list_init(&tl);
        failed += session_expand_spec(ss, s, &tl, 1, NULL, NULL);
        for (size_t i = 0; i < tl.n && !ss->broken; i++)
            failed += serve_target(ss, &tl.items[i], s, index++, fn, ctx) != WIRE_FILE_OK;
        target_list_free(&tl);
        free(s);
    }
    if (got < 0) {
        session_send_message(ss, LOG_ERROR, "out of memory reading the file list");
        failed++;
    }
    return ss->broken ? -1 : failed;
}

/* cat and grep */

typedef struct scan_ctx {
    const wire_request_t *rq;    /* the request */
    linescan_opts_t lo;          /* plan */
    linescan_t scan;             /* reusable state */
    line_sink_t sink;            /* renders lines */
    outbuf_t out;                /* 64 KiB blocks into the batch */
    wire_batch_t batch;          /* LINES frames */
    int n_threads;               /* for the parallel scan */
} scan_ctx_t;

static int scan_file(session_t *ss, void *ctx, input_t *in, const target_t *t, unsigned index,
                     file_counts_t *n, err_t *e)
{
    (void)index;
    scan_ctx_t *sc = ctx;
    linescan_stats_t stats = {0};
    line_sink_set_source(&sc->sink, t->source_id);
    int rc = linescan_run_auto(&sc->scan, in, t->path, &sc->sink, sc->n_threads, &stats, e);
    n->bytes = stats.bytes_read;   /* lines are counted only when shown */
    outbuf_flush(&sc->out);
    if (sc->out.failed) {
        ss->broken = 1;
        ss->send_err = sc->batch.err;
    }
    return rc;
}

int session_n_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int run_scan(session_t *ss, const wire_request_t *rq, err_t *e)
{
    scan_ctx_t sc;
    memset(&sc, 0, sizeof sc);
    sc.rq = rq;
    sc.n_threads = session_n_cpus();
    matcher_t m;
    if (matcher_init(&m, rq->kind == WIRE_KIND_GREP ? rq->regex : "", e) < 0)
        return session_send_end(ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 0;
    LOG_INFO("Using %s matching for pattern:|%s", matcher_strategy(&m), m.pattern);
    int zlevel = session_zlevel(rq);
    int rc = -1;
    sc.lo = (linescan_opts_t){
        .matcher = &m,
        .invert = (rq->flags & WIRE_REQ_INVERT) != 0,
        .before = linescan_context(rq->before),
        .after = linescan_context(rq->after),
        .max = rq->max,
        .max_line_len = session_max_line_len(ss),
    };
    if (wire_batch_init(&sc.batch, ss->s, &ss->send_mu, zlevel, e) < 0)
        goto out_m;
    if (outbuf_init_sink(&sc.out, LINE_BATCH, wire_batch_sink, &sc.batch, e) < 0)
        goto out_b;
    if (line_sink_init(&sc.sink, &sc.out, (enum line_format)rq->render, ss->env->hostname) < 0) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out_o;
    }
    if (linescan_init(&sc.scan, &sc.lo, e) < 0)
        goto out_s;
    int failed = for_each_file(ss, rq->files, scan_file, &sc);
    if (failed >= 0 && wire_batch_finish(&sc.batch, e) < 0)
        failed = -1;
    if (ss->env->counters) {
        atomic_fetch_add(&ss->env->counters->lines_served, sc.sink.n_lines);
        atomic_fetch_add(&ss->env->counters->bytes_served, sc.batch.bytes);
    }
    if (failed < 0) {
        rc = ss->broken ? err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg) : 0;
        if (!ss->broken)
            rc = session_send_end(ss, WIRE_END_FAILED, "server is shutting down");
    } else {
        rc = session_send_end(ss, failed ? WIRE_END_PARTIAL : WIRE_END_OK, "");
    }
    linescan_free(&sc.scan);
out_s:
    line_sink_free(&sc.sink);
out_o:
    outbuf_free(&sc.out);
out_b:
    wire_batch_free(&sc.batch);
out_m:
    matcher_free(&m);
    return rc;
}

/* map */

typedef struct map_ctx {
    session_t *ss;               /* for sending partials */
    const plan_t *plan;          /* the query */
    mapscan_t ms;                /* the engine */
    int cut;                     /* the request's deadline stopped reading */
} map_ctx_t;

typedef struct agg_args {
    const unsigned char *p;      /* serialized table (part) */
    size_t len;                  /* bytes */
    uint8_t flags;               /* WIRE_AGG_* */
} agg_args_t;

static void enc_aggregate(session_t *ss, void *a)
{
    agg_args_t *x = a;
    wire_encode_aggregate(&ss->small, x->flags, x->p, x->len);
}

/* Sends table t in parts of at most SESSION_AGG_PART bytes, so that a
 * table of many groups stays under the frame limit (the client joins
 * them); more_after: parts of the same table follow in another call. */
static int send_table_parts(session_t *ss, const agg_table_t *t, int final, int more_after)
{
    size_t from = 0;
    int rc = 0;
    do {
        size_t next, len;
        unsigned char *p = agg_table_serialize_part(t, from, SESSION_AGG_PART, &next, &len);
        if (!p)
            return session_send_message(ss, LOG_ERROR, "out of memory serializing the result");
        uint8_t flags = (uint8_t)((final ? WIRE_AGG_FINAL : 0) |
                                  (next < t->n_groups || more_after ? WIRE_AGG_MORE : 0));
        rc = send_small(ss, enc_aggregate, &(agg_args_t){p, len, flags});
        free(p);
        from = next;
    } while (rc == 0 && from < t->n_groups);
    return rc;
}

/* Sends table t: the whole result so far (it replaces the previous one). */
int session_send_table(session_t *ss, const agg_table_t *t, int final)
{
    return send_table_parts(ss, t, final, 0);
}

/* The final result of a map whose groups spilled (Server.MapMemoryLimit):
 * the spill's runs merged key by key and sent a part at a time, so memory
 * holds one part, never the whole result. */
static int send_spilled(session_t *ss, mapscan_t *ms)
{
    err_t e;
    err_clear(&e);
    spill_t *sp = mapscan_spill_rest(ms, &e);
    if (!sp)
        return session_send_message(ss, LOG_ERROR, e.msg);
    size_t n_specs;
    const agg_spec_t *specs = spill_specs(sp, &n_specs);
    agg_table_t part, acc;
    int have_part = agg_table_init(&part, specs, n_specs, &e) == 0;
    int have_acc = have_part && agg_table_init(&acc, specs, n_specs, &e) == 0;
    spill_iter_t *it = have_acc ? spill_iter_open(sp, &e) : NULL;
    int rc = 0, got = -1;
    while (it && rc == 0 && (got = spill_iter_next(it, &acc, &e)) > 0) {
        if (agg_table_merge(&part, &acc) < 0) {
            err_set(&e, ERR_NOMEM, "out of memory sending the spilled result");
            got = -1;
            break;
        }
        /* What the part holds, not what it has allocated: a cleared
         * table keeps its arrays, and clearing it for every key would
         * wipe them each time. */
        if (part.keys_len + part.n_groups * part.state_size >= SESSION_AGG_PART) {
            rc = send_table_parts(ss, &part, 1, 1);
            agg_table_clear(&part);
        }
    }
    if (rc == 0 && got < 0)
        rc = session_send_message(ss, LOG_ERROR, e.msg);
    if (rc == 0 && have_part)
        rc = send_table_parts(ss, &part, 1, 0);   /* the last part, maybe empty */
    spill_iter_close(it);
    if (have_acc)
        agg_table_free(&acc);
    if (have_part)
        agg_table_free(&part);
    return rc;
}

static void enc_fields(session_t *ss, void *a)
{
    agg_args_t *x = a;
    wire_encode_fields(&ss->small, x->p, x->len);
}

/* The field report of the run, for the client's warnings; a report that
 * cannot be made only costs the client its warnings. */
static int send_fields(session_t *ss, const mapscan_t *ms)
{
    field_report_t fr;
    err_t e;
    if (mapscan_fields(ms, &fr, &e) < 0)
        return 0;
    size_t len = 0;
    unsigned char *p = field_report_encode(&fr, &len);
    field_report_free(&fr);
    int rc = p ? send_small(ss, enc_fields, &(agg_args_t){p, len, 0}) : 0;
    free(p);
    return rc;
}

static void send_interim(const agg_table_t *snap, void *arg)
{
    session_send_table(arg, snap, 0);
}

static int map_file(session_t *ss, void *ctx, input_t *in, const target_t *t, unsigned index,
                    file_counts_t *n, err_t *e)
{
    (void)ss;
    map_ctx_t *mc = ctx;
    /* Past the request's deadline what was read is the result: the files
     * left, and the rest of this one, are not read. */
    if (mapscan_timed_out(&mc->ms)) {
        mc->cut = 1;
        *n = (file_counts_t){0, 0};
        return 0;
    }
    map_stats_t before, after;
    mapscan_stats(&mc->ms, &before);
    int rc = mapscan_run(&mc->ms, in, t->path, t->source_id, index, e);
    mapscan_stats(&mc->ms, &after);
    *n = (file_counts_t){after.bytes_read - before.bytes_read, after.lines_read - before.lines_read};
    if (rc < 0 && mapscan_timed_out(&mc->ms)) {
        mc->cut = 1;
        return 0;
    }
    return rc;
}

int session_parse_query(session_t *ss, const char *text, query_t **q)
{
    err_t e;
    *q = NULL;
    if (query_parse(text, strlen(text), NULL, q, &e) == 0)
        return 0;
    char buf[4096];
    query_error_format(text, strlen(text), &e, buf, sizeof buf);
    return session_send_end(ss, WIRE_END_FAILED, buf) < 0 ? -1 : 1;
}

void session_map_opts(const session_t *ss, const plan_t *plan, session_zone_t *z, int n_threads,
                      map_opts_t *mo)
{
    mapscan_local_zone(z->tz, sizeof z->tz, z->tzoff, sizeof z->tzoff);
    *mo = (map_opts_t){
        .plan = plan,
        .max_line_len = session_max_line_len(ss),
        .env = {.hostname = ss->env->hostname, .timezone = z->tz, .timeoffset = z->tzoff},
        .n_threads = n_threads,
        /* Beyond it groups spill to a temporary SQLite database, and the
         * final table is streamed from there (send_spilled). */
        .memory_limit = ss->env->cfg ? ss->env->cfg->map_memory_limit : 0,
    };
}

static int run_map(session_t *ss, const wire_request_t *rq, err_t *e)
{
    query_t *q;
    int parsed = session_parse_query(ss, rq->query, &q);
    if (parsed != 0)
        return parsed < 0 ? err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg) : 0;
    map_ctx_t mc;
    memset(&mc, 0, sizeof mc);
    mc.ss = ss;
    mc.plan = query_plan(q);
    session_zone_t zone;
    map_opts_t mo;
    session_map_opts(ss, mc.plan, &zone, session_n_cpus(), &mo);
    mo.deadline_ms = rq->timeout_s ? clock_now_ms() + rq->timeout_s * 1000LL : 0;
    ss->deadline_ms = mo.deadline_ms;
    ss->deadline_hit = 0;
    if (mapscan_init(&mc.ms, &mo, e) < 0) {
        mapscan_free(&mc.ms);
        query_free(q);
        return session_send_end(ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 0;
    }
    mapscan_reporter_t rep;
    mapscan_reporter_start(&rep, &mc.ms, mc.plan, mc.plan->interval > 0 ? mc.plan->interval : 5,
                           send_interim, ss);
    int failed = for_each_file(ss, rq->files, map_file, &mc);
    mapscan_reporter_stop(&rep);
    if (ss->deadline_hit)
        mc.cut = 1;
    ss->deadline_ms = 0;
    int rc;
    if (mc.ms.result.failed)
        session_send_message(ss, LOG_ERROR, "out of memory: the result is incomplete");
    if (mc.cut)
        session_send_message(ss, LOG_WARN, "timeout reached: the result covers only what was "
                                           "read until then");
    if (failed < 0 && ss->broken) {
        rc = err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
    } else {
        /* The final table goes out even on shutdown: what was read counts. */
        rc = send_fields(ss, &mc.ms);
        if (rc == 0 && mapscan_spilled(&mc.ms)) {
            LOG_INFO("Map spilled|%s|over Server.MapMemoryLimit", rq->files);
            rc = send_spilled(ss, &mc.ms);
        } else if (rc == 0) {
            rc = session_send_table(ss, &mc.ms.result, 1);
        }
        if (rc == 0)
            rc = session_send_end(ss, failed < 0 ? WIRE_END_FAILED : failed ? WIRE_END_PARTIAL : WIRE_END_OK,
                          failed < 0 ? "server is shutting down" : "");
        if (rc < 0)
            err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
    }
    if (ss->env->counters) {
        map_stats_t st;
        mapscan_stats(&mc.ms, &st);
        atomic_fetch_add(&ss->env->counters->lines_served, st.lines_read);
    }
    mapscan_free(&mc.ms);
    query_free(q);
    return rc;
}

static int run_request(session_t *ss, const wire_request_t *rq, err_t *e)
{
    if (ss->env->counters)
        atomic_fetch_add(&ss->env->counters->requests, 1);
    LOG_INFO("Request|%s@%s|%s|%s", ss->env->user, ss->env->hostname, wire_kind_name(rq->kind),
             rq->files);
    /* The health user logs in with a well-known password: it may ask how
     * the server is, nothing else (DTail gives it the health handler only). */
    if (strcmp(ss->env->user, AUTH_HEALTH_USER) == 0 && rq->kind != WIRE_KIND_HEALTH)
        return session_send_end(ss, WIRE_END_FAILED,
                                "user " AUTH_HEALTH_USER " may only ask for health");
    switch (rq->kind) {
    case WIRE_KIND_HEALTH: {
        health_inputs_t hi;
        char verdict[300];
        health_gather(ss->env->limits, ss->env->conns,
                      ss->env->cfg ? ss->env->cfg->max_connections : 0, &hi);
        health_judge(&hi, verdict, sizeof verdict);
        if (session_send_message(ss, verdict[0] == 'O' ? LOG_INFO : LOG_WARN, verdict) < 0)
            return err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
        return session_send_end(ss, WIRE_END_OK, "");
    }
    case WIRE_KIND_CAT:
    case WIRE_KIND_GREP:
        return run_scan(ss, rq, e);
    case WIRE_KIND_MAP:
        return run_map(ss, rq, e);
    case WIRE_KIND_TAIL:
        return session_run_tail(ss, rq, e);
    default:
        return session_send_end(ss, WIRE_END_FAILED, "unknown request kind");
    }
}

static void enc_hello(session_t *ss, void *a)
{
    wire_encode_hello(&ss->small, a);
}

/* A DTail 4.1 client starts with the text "protocol 4.1 base64 ...;". */
static int is_dtail_text(const wire_decoder_t *d)
{
    static const char prefix[] = "protocol ";
    size_t have = d->len - d->off;
    size_t n = have < sizeof prefix - 1 ? have : sizeof prefix - 1;
    return n > 0 && memcmp(d->buf + d->off, prefix, n) == 0;
}

/* The client's first frame was not a HELLO we can serve: it still gets
 * ours, so that it can read what follows, then the error as MESSAGE and
 * END (docs/protocol.md), not only a line in our log. Returns -1. */
static int hello_refused(session_t *ss, err_t *e)
{
    char msg[sizeof e->msg + 32];
    snprintf(msg, sizeof msg, "protocol error: %s", e->msg);
    wire_hello_t mine;
    wire_hello_init(&mine, ss->env->hostname);
    if (send_small(ss, enc_hello, &mine) == 0 && session_send_message(ss, LOG_ERROR, msg) == 0)
        session_send_end(ss, WIRE_END_FAILED, msg);
    return -1;
}

static int handshake(session_t *ss, wire_reader_t *r, err_t *e)
{
    wire_frame_t f;
    int rc = wire_read_frame(r, &f, e);
    if (rc == 0)
        return err_set(e, ERR_INPUT, "client closed the connection before HELLO");
    if (rc < 0) {
        if (is_dtail_text(&r->dec)) {
            static const char msg[] = "SERVER|dserver|ERROR|this dserver speaks the DTail C wire "
                                      "protocol (docs/protocol.md), not DTail protocol 4.1\n\xac";
            err_t ignored;
            stream_write(ss->s, msg, sizeof msg - 1, &ignored);
            return err_set(e, ERR_INPUT, "a DTail 4.1 client connected; its protocol is not served yet");
        }
        return hello_refused(ss, e);
    }
    wire_hello_t client;
    if (wire_decode_hello(&f, &client, e) < 0)
        return hello_refused(ss, e);
    wire_hello_t mine;
    wire_hello_init(&mine, ss->env->hostname);
    if (send_small(ss, enc_hello, &mine) < 0)
        return err_set(e, ERR_IO, "sending HELLO: %s", ss->send_err.msg);
    return 0;
}

/* Over a limit: the client's first request ends FAILED with the limit in
 * words (the clients show it and may retry later). */
static int refuse(session_t *ss, wire_reader_t *r, err_t *e)
{
    wire_frame_t f;
    int got = wire_read_frame(r, &f, e);
    if (got <= 0)
        return got;
    return session_send_end(ss, WIRE_END_FAILED, ss->env->refusal) < 0 ? -1 : 0;
}

int session_serve(stream_t *s, const session_env_t *env, err_t *e)
{
    session_t ss;
    memset(&ss, 0, sizeof ss);
    ss.s = s;
    ss.env = env;
    pthread_mutex_init(&ss.send_mu, NULL);
    pthread_mutex_init(&ss.slot_mu, NULL);
    s->on_stall = session_on_stall;
    s->owner = &ss;
    perm_user_lookup(env->user, &ss.user);
    wire_reader_t r;
    int rc = -1;
    if (wire_reader_init(&r, s, env->cfg && env->cfg->max_command_frame_size
                                    ? env->cfg->max_command_frame_size : WIRE_MAX_PAYLOAD, e) < 0)
        goto out;
    r.chunk = REQUEST_READ;
    ss.rules = perm_rules_new(env->cfg, env->user, e);
    if (!ss.rules) {
        /* Still answer, without the reason: it may quote the server's
         * rules, which are the server's (the log has it). */
        handshake(&ss, &r, &(err_t){0});
        session_send_message(&ss, LOG_ERROR, "server error: cannot check file permissions");
        goto out_r;
    }
    if (handshake(&ss, &r, e) < 0)
        goto out_r;
    ss.r = &r;
    if (env->refusal) {
        rc = refuse(&ss, &r, e);
        goto out_r;
    }
    for (;;) {
        wire_frame_t f;
        int got;
        if (ss.pending) {   /* read while a tail ran */
            ss.pending = 0;
            got = ss.pending_rc;
            f = ss.pending_frame;
            *e = ss.pending_err;
        } else {
            got = wire_read_frame(&r, &f, e);
        }
        if (got == 0) {
            rc = 0;
            break;
        }
        /* Optional extension frames the server does not know are skipped
         * (docs/protocol.md); none is defined from client to server yet. */
        if (got > 0 && f.type >= WIRE_OPTIONAL_FIRST && f.type <= WIRE_OPTIONAL_LAST)
            continue;
        wire_request_t rq;
        if (got < 0 || wire_decode_request(&f, &rq, e) < 0) {
            char msg[1100];
            snprintf(msg, sizeof msg, "protocol error: %s", e->msg);
            session_send_end(&ss, WIRE_END_FAILED, msg);   /* the client shows its text */
            break;
        }
        stream_busy(s, 1);
        rc = run_request(&ss, &rq, e);
        stream_busy(s, 0);
        wire_request_free(&rq);
        if (rc < 0 || (env->stopping && *env->stopping))
            break;
    }
out_r:
    perm_rules_free(ss.rules);
    wire_reader_free(&r);
out:
    s->on_stall = NULL;
    s->owner = NULL;
    wire_buf_free(&ss.small);
    pthread_mutex_destroy(&ss.send_mu);
    pthread_mutex_destroy(&ss.slot_mu);
    return rc;
}
