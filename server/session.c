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
    uint64_t bytes, lines;       /* FILE_STATUS: what was read */
} status_args_t;

static void enc_file_status(session_t *ss, void *a)
{
    status_args_t *x = a;
    wire_encode_file_status(&ss->small, x->status, x->name, x->text, x->bytes, x->lines);
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

int session_send_file_counts(session_t *ss, uint8_t st, const char *name, const char *detail,
                             uint64_t bytes, uint64_t lines)
{
    if (ss->dt41)
        return session_dt41_file_status(ss, st, name, detail);
    if (ss->local) {
        ss->local->file_status(ss->local->ctx, st, name, detail, bytes, lines);
        return 0;
    }
    return send_small(ss, enc_file_status, &(status_args_t){st, name, detail, bytes, lines});
}

int session_send_file_status(session_t *ss, uint8_t st, const char *name, const char *detail)
{
    return session_send_file_counts(ss, st, name, detail, WIRE_COUNT_NONE, WIRE_COUNT_NONE);
}

int session_send_end(session_t *ss, uint8_t st, const char *message)
{
    if (ss->dt41)
        return session_dt41_end(ss, st, message);
    if (ss->local) {
        ss->local->end(ss->local->ctx, st, message);
        return 0;
    }
    return send_small(ss, enc_end, &(status_args_t){.status = st, .text = message});
}

int session_send_message(session_t *ss, enum log_level level, const char *text)
{
    if (ss->dt41)
        return session_dt41_message(ss, level, text);
    if (ss->local) {
        ss->local->message(ss->local->ctx, level, text);
        return 0;
    }
    return send_small(ss, enc_message, &(status_args_t){.status = (uint8_t)level, .text = text});
}

int session_stopping(const session_t *ss)
{
    return ss->env->stopping && *ss->env->stopping;
}

int session_zlevel(const wire_request_t *rq)
{
    return (rq->flags & WIRE_REQ_ZSTD) ? ZSTD_LEVEL : 0;
}

exec_env_t session_exec_env(const session_t *ss, int map_memory)
{
    const config_t *cfg = ss->env->cfg;
    return (exec_env_t){
        .host = ss->env->hostname,
        .max_line_len = cfg ? cfg->max_line_len : 1024 * 1024,
        /* Beyond it groups spill to a temporary SQLite database, and the
         * final table is streamed from there (send_spilled). */
        .memory_limit = map_memory && cfg ? cfg->map_memory_limit : 0,
        .n_threads = session_n_cpus(),
        .cancel = &ss->cancel,
        .default_logformat = exec_default_logformat(cfg),
        .rescan_ms = cfg ? cfg->glob_retry_ms : 0,
    };
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

/* cat and grep */

typedef struct scan_out {
    session_t *ss;
    outbuf_t out;                /* 64 KiB blocks into the batch */
    wire_batch_t batch;          /* LINES frames */
} scan_out_t;

/* session_files_t.before_status: a file's lines go out before its status. */
static void scan_flush(void *ctx)
{
    scan_out_t *so = ctx;
    outbuf_flush(&so->out);
    if (so->out.failed) {
        so->ss->broken = 1;
        so->ss->send_err = so->batch.err;
    }
}

int session_n_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int session_run_lines(session_t *ss, const exec_request_t *rq, outbuf_t *out,
                      void (*before_status)(void *ctx), void *before_ctx, int *failed, err_t *e)
{
    exec_env_t env = session_exec_env(ss, 0);
    exec_plan_t p;
    if (exec_plan_init(&p, rq, &env, e) < 0)
        return -1;
    LOG_INFO("Using %s matching for pattern:|%s", matcher_strategy(&p.m), p.m.pattern);
    line_sink_t sink;
    if (line_sink_init(&sink, out, rq->render, env.host, rq->palette) < 0) {
        exec_plan_free(&p);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    session_files_t sf;
    session_files_init(&sf, ss, rq->files);
    sf.before_status = before_status;
    sf.before_ctx = before_ctx;
    run_inputs_t ins = session_files_inputs(&sf);
    int stopped = run_lines(&p, &ins, &sink, env.n_threads, NULL, e) < 0 || ss->broken;
    *failed = sf.failed;
    session_files_free(&sf);
    if (ss->env->counters)
        atomic_fetch_add(&ss->env->counters->lines_served, sink.n_lines);
    line_sink_free(&sink);
    exec_plan_free(&p);
    return stopped;
}

static int serve_scan(session_t *ss, const wire_request_t *wq, const exec_request_t *rq, err_t *e)
{
    scan_out_t so = {.ss = ss};
    if (wire_batch_init(&so.batch, ss->s, &ss->send_mu, session_zlevel(wq), e) < 0)
        return -1;
    if (outbuf_init_sink(&so.out, LINE_BATCH, wire_batch_sink, &so.batch, e) < 0) {
        wire_batch_free(&so.batch);
        return -1;
    }
    int failed = 0, rc;
    int stopped = session_run_lines(ss, rq, &so.out, scan_flush, &so, &failed, e);
    if (stopped < 0) {   /* an invalid pattern: said, the session goes on */
        rc = session_send_end(ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 0;
    } else {
        if (!stopped && wire_batch_finish(&so.batch, e) < 0)
            stopped = 1;
        if (ss->env->counters)
            atomic_fetch_add(&ss->env->counters->bytes_served, so.batch.bytes);
        if (ss->broken)
            rc = err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
        else if (stopped)
            rc = session_send_end(ss, WIRE_END_FAILED, "server is shutting down");
        else
            rc = session_send_end(ss, failed ? WIRE_END_PARTIAL : WIRE_END_OK, "");
    }
    outbuf_free(&so.out);
    wire_batch_free(&so.batch);
    return rc;
}

/* map */

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
static int send_spilled(session_t *ss, mapscan_t *ms, const plan_t *plan,
                        const session_map_out_t *out)
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
            rc = out->table(out->ctx, plan, &part, 1, 1);
            agg_table_clear(&part);
        }
    }
    if (rc == 0 && got < 0)
        rc = session_send_message(ss, LOG_ERROR, e.msg);
    if (rc == 0 && have_part)
        rc = out->table(out->ctx, plan, &part, 1, 0);   /* the last part, maybe empty */
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
static int send_fields(void *ctx, const mapscan_t *ms)
{
    session_t *ss = ctx;
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

/* session_map_out_t.table of our protocol: AGGREGATE frames. */
static int send_map_table(void *ctx, const plan_t *plan, const agg_table_t *t, int final,
                          int more)
{
    (void)plan;
    return send_table_parts(ctx, t, final, more);
}

typedef struct map_report {
    const session_map_out_t *out;
    const plan_t *plan;
} map_report_t;

static void send_interim(const agg_table_t *snap, void *arg)
{
    const map_report_t *mr = arg;
    mr->out->table(mr->out->ctx, mr->plan, snap, 0, 0);
}

int session_plan(session_t *ss, exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env)
{
    err_t e;
    if (exec_plan_init(p, rq, env, &e) == 0)
        return 0;
    char buf[4096];
    exec_plan_error(rq, &e, buf, sizeof buf);
    return session_send_end(ss, WIRE_END_FAILED, buf) < 0 ? -1 : 1;
}

/* After a deadline: the files not read still get their status (read: 0
 * bytes), each through the permission check as if it were read. */
static void drain_files(session_files_t *sf)
{
    run_input_t it;
    run_counts_t none = {.lines_counted = 1};
    while (session_files_next(sf, &it) > 0)
        session_files_done(sf, &it, 0, &none, NULL);
}

/* The final result of a run: the field report, then the table (from the
 * spill when groups spilled). */
static int send_final(session_t *ss, mapscan_t *ms, const plan_t *plan, const exec_request_t *rq,
                      const session_map_out_t *out)
{
    if (out->final)
        return out->final(out->ctx, ms, plan);
    int rc = out->fields ? out->fields(out->ctx, ms) : 0;
    if (rc == 0 && mapscan_spilled(ms)) {
        LOG_INFO("Map spilled|%s|over Server.MapMemoryLimit", rq->files);
        rc = send_spilled(ss, ms, plan, out);
    } else if (rc == 0) {
        rc = out->table(out->ctx, plan, &ms->result, 1, 0);
    }
    return rc;
}

int session_run_map(session_t *ss, const exec_request_t *rq, const session_map_out_t *out,
                    int *failed, int *stopped, err_t *e)
{
    exec_env_t env = session_exec_env(ss, 1);
    exec_plan_t p;
    int planned = session_plan_map(ss, &p, rq, &env);
    if (planned != 0)
        return planned < 0 ? err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg) : 1;
    const plan_t *plan = p.map;
    ss->deadline_ms = p.mo.deadline_ms;
    ss->deadline_hit = 0;
    mapscan_t ms;
    if (mapscan_init(&ms, &p.mo, e) < 0) {
        mapscan_free(&ms);
        exec_plan_free(&p);
        return session_send_end(ss, WIRE_END_FAILED, e->msg) < 0 ? -1 : 1;
    }
    mapscan_reporter_t rep = {0};
    map_report_t mr = {out, plan};
    int seconds = plan->interval > 0 ? plan->interval : 5;
    if (out->table && out->deltas)
        mapscan_reporter_start_deltas(&rep, &ms, plan, seconds, send_interim, &mr);
    else if (out->table)
        mapscan_reporter_start(&rep, &ms, plan, seconds, send_interim, &mr);
    session_files_t sf;
    session_files_init(&sf, ss, rq->files);
    run_inputs_t ins = session_files_inputs(&sf);
    enum run_end end = run_map(&ms, &ins);
    if (end == RUN_END_TIMEOUT)
        drain_files(&sf);
    mapscan_reporter_stop(&rep);
    int cut = end == RUN_END_TIMEOUT || ss->deadline_hit;
    *stopped = end == RUN_END_STOPPED || ss->broken;
    *failed = sf.failed;
    session_files_free(&sf);
    ss->deadline_ms = 0;
    int rc = 0;
    if (ms.result.failed)
        session_send_message(ss, LOG_ERROR, "out of memory: the result is incomplete");
    if (cut)
        session_send_message(ss, LOG_WARN, "timeout reached: the result covers only what was "
                                           "read until then");
    /* The final table goes out even on shutdown: what was read counts. */
    if (ss->broken || send_final(ss, &ms, plan, rq, out) < 0)
        rc = err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
    if (ss->env->counters) {
        map_stats_t st;
        mapscan_stats(&ms, &st);
        atomic_fetch_add(&ss->env->counters->lines_served, st.lines_read);
    }
    mapscan_free(&ms);
    exec_plan_free(&p);
    return rc;
}

static int serve_map(session_t *ss, const exec_request_t *rq, err_t *e)
{
    session_map_out_t out = {.table = send_map_table, .fields = send_fields, .ctx = ss};
    int failed = 0, stopped = 0;
    int rc = session_run_map(ss, rq, &out, &failed, &stopped, e);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (session_send_end(ss, stopped ? WIRE_END_FAILED : failed ? WIRE_END_PARTIAL : WIRE_END_OK,
                         stopped ? "server is shutting down" : "") < 0)
        return err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
    return 0;
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
    if (rq->kind == WIRE_KIND_HEALTH) {
        health_inputs_t hi;
        char verdict[300];
        health_gather(ss->env->limits, ss->env->conns,
                      ss->env->cfg ? ss->env->cfg->max_connections : 0, &hi);
        health_judge(&hi, verdict, sizeof verdict);
        if (session_send_message(ss, verdict[0] == 'O' ? LOG_INFO : LOG_WARN, verdict) < 0)
            return err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
        return session_send_end(ss, WIRE_END_OK, "");
    }
    exec_request_t x;   /* the one translation of the wire's request */
    palette_t palette;
    err_t te;
    if (exec_request_from_wire(rq, &x, &palette, &te) < 0)
        return session_send_end(ss, WIRE_END_FAILED, te.msg);
    switch (x.kind) {
    case EXEC_CAT:
    case EXEC_GREP:
        return serve_scan(ss, rq, &x, e);
    case EXEC_MAP:
        return serve_map(ss, &x, e);
    case EXEC_TAIL:
        return session_run_tail(ss, rq, &x, e);
    }
    return session_send_end(ss, WIRE_END_FAILED, "unknown request kind");
}

void session_local_init(session_t *ss, const session_env_t *env, const session_local_t *local,
                        perm_rules_t *rules)
{
    memset(ss, 0, sizeof *ss);
    ss->env = env;
    ss->local = local;
    ss->rules = rules;
    perm_user_self(&ss->user);
    pthread_mutex_init(&ss->send_mu, NULL);
    pthread_mutex_init(&ss->slot_mu, NULL);
}

void session_local_free(session_t *ss)
{
    perm_rules_free(ss->rules);
    ss->rules = NULL;
    pthread_mutex_destroy(&ss->send_mu);
    pthread_mutex_destroy(&ss->slot_mu);
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

/* handshake's result for a DTail 4.1 client: its bytes are in r. */
#define HANDSHAKE_DT41 1

static int handshake(session_t *ss, wire_reader_t *r, err_t *e)
{
    wire_frame_t f;
    int rc = wire_read_frame(r, &f, e);
    if (rc == 0)
        return err_set(e, ERR_INPUT, "client closed the connection before HELLO");
    if (rc < 0) {
        if (is_dtail_text(&r->dec))
            return HANDSHAKE_DT41;
        return hello_refused(ss, e);
    }
    wire_hello_t client;
    if (wire_decode_hello(&f, &client, e) < 0)
        return hello_refused(ss, e);
    int early = wire_hello_early_request(&f, r->dec.max_payload, &ss->early, e);
    if (early < 0)
        return hello_refused(ss, e);
    r->dec.skip_hello_end = 1;   /* after a client's HELLO, for a 4.1 server */
    wire_hello_t mine;
    wire_hello_init(&mine, ss->env->hostname);
    if (journal_available(NULL))
        mine.caps |= WIRE_CAP_JOURNAL;
    if (early) {
        mine.caps |= WIRE_CAP_EARLY_REQUEST;
        LOG_DEBUG("The request came with the HELLO|%s", ss->env->user ? ss->env->user : "");
    }
    if (send_small(ss, enc_hello, &mine) < 0)
        return err_set(e, ERR_IO, "sending HELLO: %s", ss->send_err.msg);
    return 0;
}

/* Over a limit: the client's first request ends FAILED with the limit in
 * words (the clients show it and may retry later). */
static int refuse(session_t *ss, wire_reader_t *r, err_t *e)
{
    wire_frame_t f;
    int got = ss->early.buf ? 1 : wire_read_frame(r, &f, e);
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
    int early_served = 0;
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
    int shaken = handshake(&ss, &r, e);
    if (shaken < 0)
        goto out_r;
    ss.r = &r;
    if (shaken == HANDSHAKE_DT41) {
        rc = session_serve_dt41(&ss, &r, e);
        goto out_r;
    }
    if (env->refusal) {
        rc = refuse(&ss, &r, e);
        goto out_r;
    }
    for (;;) {
        wire_frame_t f;
        int got;
        if (ss.early.buf && !early_served) {   /* it came with the HELLO */
            early_served = 1;
            got = 1;
            f = ss.early.frame;
        } else if (ss.pending) {   /* read while a tail ran */
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
    free(ss.early.buf);
    s->on_stall = NULL;
    s->owner = NULL;
    wire_buf_free(&ss.small);
    pthread_mutex_destroy(&ss.send_mu);
    pthread_mutex_destroy(&ss.slot_mu);
    return rc;
}
