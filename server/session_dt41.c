/* session_dt41.c: a Go DTail client's session (DTail protocol 4.1,
 * docs/protocol-dt41.md), served by the same request layer as ours.
 *
 * Each 4.1 command is translated once into exec_request_t and run as a
 * REQUEST of ours is: cat and grep through run_lines over the session's
 * files (session_files.c: permission checks, read slots), into a line
 * sink whose render writes 4.1 REMOTE lines. What our protocol sends as
 * FILE_STATUS, MESSAGE and END goes out as 4.1 server messages
 * (session_dt41_file_status, _message, _end), so the shared code needs
 * no 4.1 of its own.
 *
 * The Go dserver runs the commands of a session side by side and ends the
 * session when one finishes while nothing else runs. We run them one after
 * another: a reader thread takes the client's frames as they come, and a
 * finished command with no frame waiting (after a short grace, as a Go
 * client sends its per-file commands together) ends the session: ".syn
 * close connection", then the client's ".ack close connection" or close. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/base64.h"
#include "base/clock.h"
#include "base/outbuf.h"
#include "server/auth.h"
#include "server/health.h"
#include "server/session_int.h"
#include "wire/dt41.h"

#define DT41_READ (64 * 1024)
#define DT41_LINE_BATCH (64 * 1024)
/* How long a finished command waits for the client's next one before the
 * session ends: a Go client sends its commands at once. */
#define DT41_GRACE_MS 100
/* How long the session waits for ".ack close connection". */
#define DT41_ACK_WAIT_MS 5000

typedef struct dt41_piece {
    struct dt41_piece *next;
    int update;                  /* a SESSION UPDATE frame (counted in updates) */
    int spec;                    /* a SESSION spec's command, decoded: parsed as
                                    Go parses those, on runs of white space */
    size_t n;
    char p[];
} dt41_piece_t;

struct dt41_session {
    session_t *ss;
    const char *host;
    char who[300];               /* user@peer in the logger's lines */
    wire_buf_t buf;              /* encoding (under ss->send_mu) */
    /* the client's frames, from the reader thread */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    dt41_piece_t *head, *tail;
    int eof;                     /* the reader is done: closed, failed, oversize */
    dt41_splitter_t fr;
    dt41_cmd_t peek;             /* the reader's parse of a frame it queues */
    int updates;                 /* SESSION UPDATE frames queued: ss->cancel */
    /* The SESSION (interactive query reload): its generation, 0 before a
     * START. A started session stays open when its commands finish. */
    uint64_t generation;
    /* the session's options: those of the first command that has any */
    int have_opts;
    dt41_opts_t opts;
    int woke;                    /* ".output wake" was sent */
    int mapped;                  /* a map command came: later reads are its own */
    dt41_cmd_t cmd;
};

typedef struct dt41_session dt41_t;

/* ---- sending ------------------------------------------------------------- */

/* Writes what d->buf holds; called with send_mu held. */
static int flush_locked(dt41_t *d)
{
    session_t *ss = d->ss;
    if (ss->broken) {
        d->buf.len = 0;
        return -1;
    }
    if (wire_buf_send(&d->buf, ss->s, &ss->send_err) < 0) {
        ss->broken = 1;
        return -1;
    }
    return 0;
}

static int put_log(dt41_t *d, const char *level, const char *text, size_t n, bool newline)
{
    session_t *ss = d->ss;
    pthread_mutex_lock(&ss->send_mu);
    dt41_put_server_log(&d->buf, d->host, d->opts.plain, level, time(NULL), d->who, text, n,
                        newline);
    int rc = flush_locked(d);
    pthread_mutex_unlock(&ss->send_mu);
    return rc;
}

static int put_server(dt41_t *d, const char *text, size_t n)
{
    session_t *ss = d->ss;
    pthread_mutex_lock(&ss->send_mu);
    dt41_put_server(&d->buf, d->host, text, n, d->opts.plain);
    int rc = flush_locked(d);
    pthread_mutex_unlock(&ss->send_mu);
    return rc;
}

static const char *level_word(enum log_level level)
{
    switch (level) {
    case LOG_FATAL: return "FATAL";
    case LOG_ERROR: return "ERROR";
    case LOG_WARN: return "WARN";
    case LOG_DEBUG: return "DEBUG";
    case LOG_TRACE: return "TRACE";
    default: return "INFO";
    }
}

int session_dt41_message(session_t *ss, enum log_level level, const char *text)
{
    if (ss->cancel)   /* a superseded workload says nothing more */
        return 0;
    return put_log(ss->dt41, level_word(level), text, strlen(text), true);
}

/* A file it cannot read is told as the Go dserver tells it (the log has
 * why); a file read says nothing. */
int session_dt41_file_status(session_t *ss, uint8_t st, const char *name, const char *detail)
{
    dt41_t *d = ss->dt41;
    if (st == WIRE_FILE_OK || ss->cancel)
        return 0;
    if (st == WIRE_FILE_NOT_FOUND || st == WIRE_FILE_DENIED) {
        static const char unable[] = "Unable to read file(s), check server logs";
        static const char giving_up[] = "Giving up to read file(s)";
        if (put_log(d, "WARN", unable, sizeof unable - 1, true) < 0)
            return -1;
        return put_log(d, "WARN", giving_up, sizeof giving_up - 1, true);
    }
    char text[4096 + 1100];
    snprintf(text, sizeof text, "%s: %s", name, detail && *detail ? detail : "read failed");
    return put_log(d, "WARN", text, strlen(text), true);
}

int session_dt41_end(session_t *ss, uint8_t st, const char *message)
{
    if (st == WIRE_END_FAILED && message && *message && !ss->cancel)
        return put_log(ss->dt41, "ERROR", message, strlen(message), true);
    return 0;
}

/* ".output wake", where the Go dserver's output starts, before the first
 * line or aggregate: 1 when it was appended to d->buf now. Called with
 * send_mu held. */
static int put_wake_locked(dt41_t *d)
{
    if (d->woke)
        return 0;
    d->woke = 1;
    dt41_put_hidden(&d->buf, ".output wake\n", 13);
    return 1;
}

/* The lines of a cat or grep, in 64 KiB writes of whole messages, the
 * first after ".output wake". */
int session_dt41_lines(void *ctx, const char *p, size_t n, int *err)
{
    session_t *ss = ctx;
    dt41_t *d = ss->dt41;
    if (ss->cancel) {   /* superseded: not sent, and the run stops */
        *err = ECANCELED;
        return -1;
    }
    pthread_mutex_lock(&ss->send_mu);
    int rc = -1;
    if (put_wake_locked(d))
        flush_locked(d);
    if (!ss->broken) {
        rc = stream_write(ss->s, p, n, &ss->send_err);
        if (rc < 0)
            ss->broken = 1;
    }
    pthread_mutex_unlock(&ss->send_mu);
    if (rc < 0)
        *err = EPIPE;
    return rc;
}

int session_dt41_table(session_t *ss, const plan_t *plan, const agg_table_t *t,
                       const agg_table_t *latest)
{
    dt41_t *d = ss->dt41;
    if (ss->cancel)   /* a superseded query's groups are not sent */
        return 0;
    dt41_aggout_t o;
    dt41_aggout_init(&o, d->host, plan);
    o.latest = latest;
    pthread_mutex_lock(&ss->send_mu);
    size_t before = d->buf.len;
    int woke = put_wake_locked(d), sent = 0, rc = 0;
    for (size_t g = 0; g < t->n_groups && rc == 0; g++) {
        int put = dt41_aggout_put(&o, &d->buf, t, g);
        sent |= put > 0;
        if (put < 0)
            rc = -2;
        else if (d->buf.len >= DT41_LINE_BATCH)
            rc = flush_locked(d);
    }
    if (rc == -2)
        d->buf.len = 0;    /* what did not fit is not sent half */
    if (woke && !sent) {   /* nothing went out: the wake waits for what does */
        d->buf.len = before;
        d->woke = 0;
    }
    if (rc == 0 && d->buf.len)
        rc = flush_locked(d);
    pthread_mutex_unlock(&ss->send_mu);
    dt41_aggout_free(&o);
    if (rc == -2)
        return session_send_message(ss, LOG_ERROR, "out of memory: the result is incomplete");
    return rc;
}

/* ---- the client's frames ---------------------------------------------------- */

static dt41_piece_t *new_piece(const char *p, size_t n)
{
    dt41_piece_t *pc = malloc(sizeof *pc + n);
    if (pc) {
        memset(pc, 0, sizeof *pc);
        pc->n = n;
        memcpy(pc->p, p, n);
    }
    return pc;
}

static int is_valid_update(dt41_t *d, const char *p, size_t n);

static void push_piece(dt41_t *d, const char *p, size_t n)
{
    dt41_piece_t *pc = new_piece(p, n);
    int update = pc && is_valid_update(d, p, n);
    pthread_mutex_lock(&d->mu);
    if (pc) {
        if (update) {
            pc->update = 1;
            d->updates++;
            d->ss->cancel = 1;
        }
        if (d->tail)
            d->tail->next = pc;
        else
            d->head = pc;
        d->tail = pc;
    } else {
        d->eof = 1;   /* a frame lost is a session that cannot go on */
    }
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

/* The acknowledgement every Go client sends last (base64 is canonical). */
static int is_ack_close(const char *p, size_t n)
{
    static const char ack[] = "protocol 4.1 base64 LmFjayBjbG9zZSBjb25uZWN0aW9u";
    return n == sizeof ack - 1 && memcmp(p, ack, n) == 0;
}

/* Splits bytes into frames; 1 when the reader is done (the ack came, or
 * a frame too long: the Go dserver closes such a session). */
static int take_bytes(dt41_t *d, const char *p, size_t n)
{
    while (n > 0) {
        size_t used;
        dt41_str_t piece;
        unsigned long long at;
        err_t e;
        int got = dt41_split(&d->fr, p, n, &used, &piece, &at, &e);
        if (got < 0) {
            LOG_WARN("4.1 client|%s", e.msg);
            return 1;
        }
        p += used;
        n -= used;
        if (got == 1) {
            push_piece(d, piece.p, piece.n);
            if (is_ack_close(piece.p, piece.n))
                return 1;
        }
    }
    return 0;
}

static void *reader_main(void *arg)
{
    dt41_t *d = arg;
    char *buf = malloc(DT41_READ);
    while (buf) {
        err_t e;
        ssize_t got = stream_read(d->ss->s, buf, DT41_READ, &e);
        if (got <= 0 || take_bytes(d, buf, (size_t)got))
            break;
    }
    free(buf);
    pthread_mutex_lock(&d->mu);
    d->eof = 1;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Whether a wait for the client is over: a frame came (update_only: a
 * SESSION UPDATE, which ends a SESSION's workload; other frames wait
 * their turn), or the client is done. Called with d->mu held. */
static int frame_came(const dt41_t *d, int update_only)
{
    return update_only ? d->updates > 0 : d->head != NULL;
}

static int client_spoke(const dt41_t *d, int update_only)
{
    return d->eof || frame_came(d, update_only);
}

/* Waits at most wait_ms (< 0: until the server stops or *stop is set)
 * until client_spoke; the first frame queued, or NULL when none came or
 * the client is done. Called with d->mu held. */
static dt41_piece_t *wait_piece(dt41_t *d, long long wait_ms, volatile int *stop, int update_only)
{
    long long until = wait_ms >= 0 ? clock_now_ms() + wait_ms : -1;
    while (!client_spoke(d, update_only) && !session_stopping(d->ss) && !(stop && *stop)) {
        long long now = clock_now_ms();
        if (until >= 0 && now >= until)
            break;
        /* in slices, so that a server that stops is seen */
        long long slice = until >= 0 && until - now < 100 ? until - now : 100;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)slice * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&d->cv, &d->mu, &ts);
    }
    return d->head;
}

/* The next frame, taken off the queue (the caller frees it); NULL as
 * wait_piece. */
static dt41_piece_t *next_piece(dt41_t *d, long long wait_ms)
{
    pthread_mutex_lock(&d->mu);
    dt41_piece_t *pc = wait_piece(d, wait_ms, NULL, 0);
    if (pc) {
        d->head = pc->next;
        if (!d->head)
            d->tail = NULL;
        if (pc->update && --d->updates == 0)
            d->ss->cancel = 0;
    }
    pthread_mutex_unlock(&d->mu);
    return pc;
}

/* The next frame, left on the queue (only this thread takes frames). */
static dt41_piece_t *peek_piece(dt41_t *d, long long wait_ms)
{
    pthread_mutex_lock(&d->mu);
    dt41_piece_t *pc = wait_piece(d, wait_ms, NULL, 0);
    pthread_mutex_unlock(&d->mu);
    return pc;
}

int session_dt41_wait(session_t *ss, volatile int *stop)
{
    dt41_t *d = ss->dt41;
    pthread_mutex_lock(&d->mu);
    int update_only = d->generation > 0;   /* a SESSION's run ends only at an UPDATE */
    wait_piece(d, -1, stop, update_only);
    int rc = frame_came(d, update_only) ? 1 : d->eof ? 0 : -1;
    pthread_mutex_unlock(&d->mu);
    return rc;
}

/* ---- commands ------------------------------------------------------------------ */

/* Parses a queued piece: a frame as it came, or a SESSION spec's command
 * as Go's dispatch of a spec parses it (strings.Fields). */
static int parse_piece(dt41_t *d, const dt41_piece_t *pc, dt41_reject_t *r, err_t *e)
{
    if (pc->spec)
        return dt41_cmd_parse_text(&d->cmd, pc->p, pc->n, true, r, e);
    return dt41_cmd_parse(&d->cmd, pc->p, pc->n, r, e);
}

/* The session's options come from the first command that has any. */
static void take_opts(dt41_t *d, const dt41_cmd_t *c)
{
    if (c->has_opts && !d->have_opts) {
        d->have_opts = 1;
        d->opts = c->opts;
    }
}

static unsigned long long non_negative(long long v)
{
    return v > 0 ? (unsigned long long)v : 0;
}

/* The one translation of a 4.1 cat, grep or tail into the engine's
 * request (strings borrowed from c). */
static void request_of(const dt41_t *d, const dt41_cmd_t *c, exec_request_t *rq, char *pattern,
                       size_t cap)
{
    memset(rq, 0, sizeof *rq);
    rq->kind = c->kind == DT41_CMD_GREP ? EXEC_GREP : c->kind == DT41_CMD_TAIL ? EXEC_TAIL : EXEC_CAT;
    size_t pn = c->regex.pattern.n < cap - 1 ? c->regex.pattern.n : cap - 1;
    pattern[0] = '\0';
    if (c->has_regex && c->regex.match != DT41_MATCH_NOOP) {
        memcpy(pattern, c->regex.pattern.p, pn);
        pattern[pn] = '\0';
        if (c->regex.match == DT41_MATCH_INVERT)
            rq->flags |= EXEC_REQ_INVERT;
    }
    /* A regex:default of "" or "." selects every line: as cat. */
    if (rq->kind == EXEC_GREP && !pattern[0])
        rq->kind = EXEC_CAT;
    rq->regex = pattern;
    rq->query = "";
    rq->before = non_negative(d->opts.before);
    rq->after = non_negative(d->opts.after);
    rq->max = non_negative(d->opts.max);
    if (d->opts.quiet)
        rq->flags |= EXEC_REQ_QUIET;
    rq->timeout_s = c->has_timeout ? c->timeout : 0;
    int tail = rq->kind == EXEC_TAIL;
    rq->render = d->opts.plain ? (tail ? LINE_DT41_PLAIN_NONL : LINE_DT41_PLAIN)
                               : (tail ? LINE_DT41_REMOTE_NONL : LINE_DT41_REMOTE);
}

/* session_files_t.before_status: a file's lines go out before its status. */
static void flush_lines(void *ctx)
{
    outbuf_flush(ctx);
}

/* cat and grep: the session's run of the request into 4.1 lines. */
static int serve_scan(dt41_t *d, const exec_request_t *rq, err_t *e)
{
    session_t *ss = d->ss;
    outbuf_t out;
    if (outbuf_init_sink(&out, DT41_LINE_BATCH, session_dt41_lines, ss, e) < 0)
        return -1;
    int failed = 0, rc;
    int stopped = session_run_lines(ss, rq, &out, flush_lines, &out, &failed, e);
    if (stopped < 0) {
        rc = session_send_end(ss, WIRE_END_FAILED, e->msg);
    } else {
        if (!stopped)
            outbuf_flush(&out);
        if (ss->broken)
            rc = err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
        else if (stopped)
            rc = session_send_end(ss, WIRE_END_FAILED, "server is shutting down");
        else
            rc = 0;
    }
    outbuf_free(&out);
    return rc;
}

/* A map run's sending in a 4.1 session (session_map_out_t). */
typedef struct dt41_map {
    session_t *ss;
    /* Every group so far, kept once a report went out of a query with
     * last() or len() (dt41_aggout_t.latest). */
    agg_table_t latest;
    int have_latest;
    int reported;                /* an interim report went out */
    int refused;                 /* an item DTail 4.1 lacks was told of */
} dt41_map_t;

static int has_last(const plan_t *plan)
{
    for (size_t s = 0; s < plan->n_select; s++)
        if (plan->select[s].agg == PLAN_AGG_LAST || plan->select[s].agg == PLAN_AGG_LEN)
            return 1;
    return 0;
}

/* session_map_out_t.table: a delta's groups as AGGREGATE messages. */
static int put_map_table(void *ctx, const plan_t *plan, const agg_table_t *t, int final, int more)
{
    (void)more;
    dt41_map_t *m = ctx;
    for (size_t i = 0; i < plan->n_select && !m->refused; i++)
        if (plan->select[i].agg == PLAN_AGG_COUNT_DISTINCT || plan->select[i].agg == PLAN_AGG_TOP) {
            /* Go's client could not read them: said once, the column stays empty */
            char msg[512];
            snprintf(msg, sizeof msg, "%s is not in DTail 4.1: a DTail 4.1 client cannot "
                     "receive it (use the client of DTail in C)", plan->select[i].name);
            m->refused = 1;
            session_send_message(m->ss, LOG_ERROR, msg);
        }
    m->reported |= !final;
    if (m->reported && has_last(plan)) {
        err_t e;
        if (!m->have_latest && agg_table_init(&m->latest, t->specs, t->n_specs, &e) < 0)
            return session_send_message(m->ss, LOG_ERROR, e.msg);
        m->have_latest = 1;
        if (agg_table_merge(&m->latest, t) < 0)
            session_send_message(m->ss, LOG_ERROR, "out of memory: last() may be an older value");
    }
    return session_dt41_table(m->ss, plan, t, m->have_latest ? &m->latest : NULL);
}

/* A query of a DTail 4.1 client that this build reads otherwise than DTail
 * does (arithmetic, or, having, escapes): refused, said (1), not run. */
static int refuse_extension(session_t *ss, const exec_request_t *rq)
{
    query_t *q;
    err_t e, de;
    if (query_parse(rq->query, strlen(rq->query), NULL, &q, &e) < 0)
        return 0;   /* session_run_map says what is wrong */
    int rc = query_check_dtail_dialect(query_plan(q), "this server reads it otherwise than the "
                                                      "DTail 4.1 client that sent it", &de);
    query_free(q);
    if (rc == 0)
        return 0;
    char buf[4096];
    query_error_format(rq->query, strlen(rq->query), &de, buf, sizeof buf);
    return session_send_end(ss, WIRE_END_FAILED, buf) < 0 ? -1 : 1;
}

/* A map over whole files: deltas every interval, the last at the end. */
static int run_map_request(dt41_t *d, const exec_request_t *rq, err_t *e)
{
    session_t *ss = d->ss;
    dt41_map_t m = {.ss = ss};
    session_map_out_t out = {.table = put_map_table, .ctx = &m, .deltas = 1};
    int failed = 0, stopped = 0;
    int rc = session_run_map(ss, rq, &out, &failed, &stopped, e);
    if (m.have_latest)
        agg_table_free(&m.latest);
    if (rc != 0)
        return rc < 0 ? -1 : 0;   /* 1: an invalid query, said */
    return stopped ? session_send_end(ss, WIRE_END_FAILED, "server is shutting down") : 0;
}

static const char *request_name(const exec_request_t *rq)
{
    switch (rq->kind) {
    case EXEC_GREP: return "grep";
    case EXEC_TAIL: return "tail";
    case EXEC_MAP: return "map";
    default: return "cat";
    }
}

/* Runs rq, one request of the session, logged and counted as ours are. */
static int run_request(dt41_t *d, const exec_request_t *rq, err_t *e)
{
    session_t *ss = d->ss;
    LOG_INFO("Request|%s@%s|4.1 %s|%s", ss->env->user, ss->env->hostname, request_name(rq),
             rq->files);
    if (ss->env->counters)
        atomic_fetch_add(&ss->env->counters->requests, 1);
    wire_request_t wq;   /* as the tail's LINES frames would ask: none here */
    memset(&wq, 0, sizeof wq);
    int refused = rq->query && *rq->query ? refuse_extension(ss, rq) : 0;
    if (refused != 0)
        return refused < 0 ? err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg) : 0;
    stream_busy(ss->s, 1);
    int rc = rq->kind == EXEC_TAIL ? session_run_tail(ss, &wq, rq, e)
             : rq->kind == EXEC_MAP ? run_map_request(d, rq, e)
                                    : serve_scan(d, rq, e);
    stream_busy(ss->s, 0);
    return rc;
}

/* The pattern of the first of the tails that go together. */
typedef struct tail_match {
    enum dt41_match match;
    const char *pattern;
} tail_match_t;

/* Whether c, just parsed, is a tail of the same pattern as the first. */
static int same_tail(const dt41_cmd_t *c, const void *ctx)
{
    const tail_match_t *tm = ctx;
    if (c->kind != DT41_CMD_TAIL)
        return 0;
    enum dt41_match m = c->has_regex ? c->regex.match : DT41_MATCH_NOOP;
    if (m != tm->match)
        return 0;
    return m == DT41_MATCH_NOOP ||
           (c->regex.pattern.n == strlen(tm->pattern) &&
            memcmp(c->regex.pattern.p, tm->pattern, c->regex.pattern.n) == 0);
}

/* Appends path to the comma list *files (NULL: none yet); -1 out of memory. */
static int add_path(char **files, dt41_str_t path)
{
    size_t fl = *files ? strlen(*files) : 0, sep = *files && fl ? 1 : 0;
    char *more = realloc(*files, fl + sep + path.n + 1);
    if (!more)
        return -1;
    if (sep)
        more[fl] = ',';
    memcpy(more + fl + sep, path.p, path.n);
    more[fl + sep + path.n] = '\0';
    *files = more;
    return 0;
}

/* A Go client sends one read command per file, to run side by side: the
 * frames that come next (within the grace) and go together (together(c,
 * ctx)) add their files to *files. The first that does not stays queued,
 * to be parsed again as the next command. */
static void gather_reads(dt41_t *d, char **files, int (*together)(const dt41_cmd_t *c, const void *ctx),
                         const void *ctx)
{
    dt41_piece_t *pc;
    while ((pc = peek_piece(d, DT41_GRACE_MS)) != NULL) {
        dt41_reject_t r;
        err_t pe;
        if (parse_piece(d, pc, &r, &pe) < 0 || !together(&d->cmd, ctx) ||
            add_path(files, d->cmd.path) < 0)
            return;
        free(next_piece(d, 0));
    }
}

/* tail: the tails that come together with the same pattern are one
 * follow run of ours over all their files (session_tail.c), until the
 * client closes. */
static int serve_tail(dt41_t *d, const dt41_cmd_t *c, err_t *e)
{
    session_t *ss = d->ss;
    size_t cap = c->regex.pattern.n + 1;
    char *pattern = malloc(cap);
    char *files = strndup(c->path.p, c->path.n);
    if (!pattern || !files) {
        free(pattern);
        free(files);
        return session_send_end(ss, WIRE_END_FAILED, "out of memory");
    }
    exec_request_t rq;
    request_of(d, c, &rq, pattern, cap);
    const char *raw = c->has_regex ? c->regex.pattern.p : "";
    size_t raw_n = c->has_regex ? c->regex.pattern.n : 0;
    char *first = strndup(raw, raw_n);   /* c's spans go with the next parse */
    tail_match_t tm = {c->has_regex ? c->regex.match : DT41_MATCH_NOOP, first};
    if (first)
        gather_reads(d, &files, same_tail, &tm);
    free(first);
    rq.files = files;
    int rc = run_request(d, &rq, e);
    free(files);
    free(pattern);
    return rc;
}

static int serve_read(dt41_t *d, const dt41_cmd_t *c, err_t *e)
{
    session_t *ss = d->ss;
    if (d->mapped)   /* the files of a map query: not read as lines */
        return 0;
    if (c->kind == DT41_CMD_TAIL)
        return serve_tail(d, c, e);
    char *files = strndup(c->path.p, c->path.n);
    char *pattern = malloc(c->regex.pattern.n + 1);
    int rc;
    if (!files || !pattern) {
        rc = session_send_end(ss, WIRE_END_FAILED, "out of memory");
    } else {
        exec_request_t rq;
        request_of(d, c, &rq, pattern, c->regex.pattern.n + 1);
        rq.files = files;
        rc = run_request(d, &rq, e);
    }
    free(files);
    free(pattern);
    return rc;
}

/* Whether c reads files: the commands a map's input comes from. */
static int is_read(const dt41_cmd_t *c)
{
    return c->kind == DT41_CMD_CAT || c->kind == DT41_CMD_GREP || c->kind == DT41_CMD_TAIL;
}

/* Whether c goes with the reads of a map before it: followed (tail) as
 * they are, or read (cat, grep) as they are. */
static int same_reading(const dt41_cmd_t *c, const void *ctx)
{
    const int *tail = ctx;
    return is_read(c) && (c->kind == DT41_CMD_TAIL) == *tail;
}

/* map: its input is the read commands that come with it, a cat per file
 * (dmap, "timeout N cat" with --timeout) or a tail per file (dtail
 * --query). Their patterns are not applied: the query's table filters
 * its lines, as in our protocol. */
static int serve_map(dt41_t *d, const dt41_cmd_t *c, err_t *e)
{
    session_t *ss = d->ss;
    d->mapped = 1;   /* reads that come later are not read as lines */
    char *query = strndup(c->query.p, c->query.n);   /* c's spans go with the next parse */
    char *files = NULL;
    if (!query || add_path(&files, (dt41_str_t){"", 0}) < 0) {
        free(query);
        return session_send_end(ss, WIRE_END_FAILED, "out of memory");
    }
    exec_request_t rq = {.kind = EXEC_MAP, .regex = "", .query = query};
    dt41_piece_t *pc = peek_piece(d, DT41_GRACE_MS);
    dt41_reject_t r;
    err_t pe;
    if (pc && parse_piece(d, pc, &r, &pe) == 0 && is_read(&d->cmd) &&
        add_path(&files, d->cmd.path) == 0) {
        free(next_piece(d, 0));
        take_opts(d, &d->cmd);
        int tail = d->cmd.kind == DT41_CMD_TAIL;
        rq.kind = tail ? EXEC_TAIL : EXEC_MAP;
        rq.timeout_s = d->cmd.has_timeout ? d->cmd.timeout : 0;
        gather_reads(d, &files, same_reading, &tail);
    }
    rq.files = files;
    int rc = run_request(d, &rq, e);
    free(files);
    free(query);
    return rc;
}

static int serve_health(dt41_t *d)
{
    const session_env_t *env = d->ss->env;
    health_inputs_t hi;
    char verdict[300];
    health_gather(env->limits, env->conns, env->cfg ? env->cfg->max_connections : 0, &hi);
    health_judge(&hi, verdict, sizeof verdict);
    return put_server(d, verdict, strlen(verdict));
}

/* AUTHKEY: the key is registered for the session's user (server/auth.h),
 * answered in the Go dserver's words and order of checks. */
static int serve_authkey(dt41_t *d, const dt41_cmd_t *c)
{
    authkey_store_t *store = d->ss->env->authkeys;
    const char *why = NULL;
    err_t e;
    err_clear(&e);
    if (store && !authkey_store_enabled(store))
        why = "feature disabled";
    else if (c->authkey_err)
        why = c->authkey_err;   /* missing public key, invalid base64 */
    else if (auth_key_register(store, d->ss->env->user, c->authkey_blob.p, c->authkey_blob.n,
                               &e) < 0)
        why = e.code == ERR_INPUT ? "invalid public key" : "internal key store unavailable";
    if (why && e.code == ERR_IO)
        LOG_WARN("%s|AUTHKEY not registered: %s", d->who, e.msg);
    char text[128];
    if (why)
        snprintf(text, sizeof text, "AUTHKEY ERR %s\n", why);
    else
        snprintf(text, sizeof text, "AUTHKEY OK\n");
    return put_server(d, text, strlen(text));
}

/* Answers a refused command as the Go dserver does. */
static int refuse(dt41_t *d, const dt41_reject_t *r, const err_t *e)
{
    size_t n = strlen(e->msg);
    if (r->reply == DT41_REPLY_SESSION_ERR) {
        session_t *ss = d->ss;
        pthread_mutex_lock(&ss->send_mu);
        dt41_put_session_ack(&d->buf, DT41_ACK_ERROR, 0, e->msg, n);
        int rc = flush_locked(d);
        pthread_mutex_unlock(&ss->send_mu);
        return rc;
    }
    return put_log(d, r->reply == DT41_REPLY_WARN ? "WARN" : "ERROR", e->msg, n, r->newline);
}

enum step { STEP_GO_ON = 0, STEP_FINISHED = 1, STEP_CLOSE = 2 };

/* ---- SESSION: interactive query reload ------------------------------------------- */

static int session_err(dt41_t *d, const char *why)
{
    err_t no;
    err_set(&no, ERR_INPUT, "%s", why);
    return refuse(d, &(dt41_reject_t){.reply = DT41_REPLY_SESSION_ERR}, &no);
}

/* Whether the engine takes rq's pattern and query, as Go's check of a
 * spec compiles them. */
static int compiles(const dt41_t *d, const exec_request_t *rq)
{
    exec_env_t env = session_exec_env(d->ss, 0);
    exec_plan_t p;
    err_t e;
    if (exec_plan_init(&p, rq, &env, &e) < 0)
        return 0;
    exec_plan_free(&p);
    return 1;
}

/* The spec's query and pattern (Go refuses what does not compile as an
 * invalid spec); the codec checked the rest. */
static int spec_compiles(const dt41_t *d, const dt41_spec_t *s)
{
    /* an absent field is {NULL, 0}: strndup must not get NULL */
    char *query = strndup(s->query.p ? s->query.p : "", s->query.n);
    char *regex = strndup(s->regex.p ? s->regex.p : "", s->regex.n);
    int ok = query && regex;
    if (ok && *query)
        ok = compiles(d, &(exec_request_t){.kind = EXEC_MAP, .files = "", .regex = "", .query = query});
    if (ok && *regex)
        ok = compiles(d, &(exec_request_t){.kind = EXEC_GREP, .files = "", .regex = regex, .query = ""});
    free(query);
    free(regex);
    return ok;
}

/* Whether a frame is a SESSION UPDATE that will be served: the reader
 * tells at once, so that the workload it supersedes ends while the frame
 * waits its turn, and one that is refused leaves it running. */
static int is_valid_update(dt41_t *d, const char *p, size_t n)
{
    dt41_reject_t r;
    err_t e;
    return dt41_cmd_parse(&d->peek, p, n, &r, &e) == 0 &&
           d->peek.kind == DT41_CMD_SESSION_UPDATE && spec_compiles(d, &d->peek.spec);
}

/* The spec's commands, in order, before they go to the queue. */
typedef struct spec_queue {
    dt41_piece_t *head, *tail;
} spec_queue_t;

static int queue_command(void *ctx, const char *cmd, size_t n, err_t *e)
{
    spec_queue_t *q = ctx;
    dt41_piece_t *pc = new_piece(cmd, n);
    if (!pc)
        return err_set(e, ERR_NOMEM, "out of memory");
    pc->spec = 1;
    if (q->tail)
        q->tail->next = pc;
    else
        q->head = pc;
    q->tail = pc;
    return 0;
}

/* The spec's commands go to the front of the queue, served next as if
 * they had come as frames: one run path for both. */
static int queue_spec(dt41_t *d, const dt41_spec_t *s)
{
    spec_queue_t q = {0};
    err_t e;
    if (dt41_spec_commands(s, queue_command, &q, &e) < 0) {
        while (q.head) {
            dt41_piece_t *pc = q.head;
            q.head = pc->next;
            free(pc);
        }
        return -1;
    }
    if (!q.head)
        return 0;
    pthread_mutex_lock(&d->mu);
    q.tail->next = d->head;
    d->head = q.head;
    if (!d->tail)
        d->tail = q.tail;
    pthread_mutex_unlock(&d->mu);
    return 0;
}

/* SESSION START and UPDATE, as Go's sessioncommand.go: the spec checked,
 * then the session's state; the ack, then the spec's commands. The
 * workload an UPDATE supersedes ended before this frame's turn (its
 * arrival set ss->cancel), what it still had to say unsent. Each
 * generation starts afresh: its own ".output wake", map and reads. */
static int serve_session(dt41_t *d, const dt41_cmd_t *c)
{
    int update = c->kind == DT41_CMD_SESSION_UPDATE;
    if (!spec_compiles(d, &c->spec))
        return session_err(d, "invalid session spec");
    if (update && !d->generation)
        return session_err(d, "session not started");
    if (!update && d->generation)
        return session_err(d, "session already started");
    uint64_t gen = !update ? 1 : c->generation ? c->generation : d->generation + 1;
    if (queue_spec(d, &c->spec) < 0)
        return session_err(d, "invalid session spec");
    pthread_mutex_lock(&d->mu);
    d->generation = gen;
    pthread_mutex_unlock(&d->mu);
    d->woke = 0;
    d->mapped = 0;
    session_t *ss = d->ss;
    pthread_mutex_lock(&ss->send_mu);
    dt41_put_session_ack(&d->buf, update ? DT41_ACK_UPDATE : DT41_ACK_START, gen, NULL, 0);
    int rc = flush_locked(d);
    pthread_mutex_unlock(&ss->send_mu);
    return rc;
}

/* One frame: 1 when it counts as a command that finished (the session may
 * end), 0 when the session goes on, -1 when the client is gone. */
static int serve_frame(dt41_t *d, const dt41_piece_t *pc, err_t *e)
{
    dt41_cmd_t *c = &d->cmd;
    dt41_reject_t r;
    err_t pe;
    if (pc->spec && d->ss->cancel)   /* a superseded generation's command */
        return STEP_GO_ON;
    if (parse_piece(d, pc, &r, &pe) < 0) {
        if (refuse(d, &r, &pe) < 0)
            return -1;
        return r.finishes ? STEP_FINISHED : STEP_GO_ON;
    }
    take_opts(d, c);
    int rc;
    switch (c->kind) {
    case DT41_CMD_CAT:
    case DT41_CMD_GREP:
    case DT41_CMD_TAIL:
        rc = serve_read(d, c, e);
        return rc < 0 ? -1 : STEP_FINISHED;
    case DT41_CMD_HEALTH:
        return serve_health(d) < 0 ? -1 : STEP_FINISHED;
    case DT41_CMD_MAP:
        rc = serve_map(d, c, e);
        return rc < 0 ? -1 : STEP_FINISHED;
    case DT41_CMD_ACK:
        return c->close ? STEP_CLOSE : STEP_GO_ON;
    case DT41_CMD_AUTHKEY:
        return serve_authkey(d, c) < 0 ? -1 : STEP_GO_ON;
    case DT41_CMD_SESSION_START:
    case DT41_CMD_SESSION_UPDATE:
        return serve_session(d, c) < 0 ? -1 : STEP_GO_ON;
    }
    return STEP_GO_ON;
}

/* ".syn close connection", then the client's ack (or its close). */
static void close_session(dt41_t *d)
{
    session_t *ss = d->ss;
    pthread_mutex_lock(&ss->send_mu);
    dt41_put_close(&d->buf);
    int rc = flush_locked(d);
    pthread_mutex_unlock(&ss->send_mu);
    if (rc < 0)
        return;
    long long until = clock_now_ms() + DT41_ACK_WAIT_MS;
    for (;;) {
        long long left = until - clock_now_ms();
        dt41_piece_t *pc = left > 0 ? next_piece(d, left) : NULL;
        if (!pc)
            return;
        int ack = is_ack_close(pc->p, pc->n);
        free(pc);
        if (ack)
            return;
    }
}

static void dt41_init(dt41_t *d, session_t *ss)
{
    memset(d, 0, sizeof *d);
    d->ss = ss;
    d->host = ss->env->hostname ? ss->env->hostname : "";
    snprintf(d->who, sizeof d->who, "%s", ss->env->user ? ss->env->user : "");
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    dt41_framer_init(&d->fr, ss->env->cfg && ss->env->cfg->max_command_frame_size
                                 ? ss->env->cfg->max_command_frame_size : 0);
    dt41_cmd_init(&d->cmd);
    dt41_cmd_init(&d->peek);
    d->cmd.health_handler = ss->env->user && strcmp(ss->env->user, AUTH_HEALTH_USER) == 0;
    d->peek.health_handler = d->cmd.health_handler;
}

static void dt41_free(dt41_t *d)
{
    while (d->head) {
        dt41_piece_t *pc = d->head;
        d->head = pc->next;
        free(pc);
    }
    dt41_cmd_free(&d->cmd);
    dt41_cmd_free(&d->peek);
    dt41_splitter_free(&d->fr);
    wire_buf_free(&d->buf);
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
}

/* The commands, one after another, until one finishes with none waiting. */
static int serve_commands(dt41_t *d, err_t *e)
{
    session_t *ss = d->ss;
    for (;;) {
        dt41_piece_t *pc = next_piece(d, -1);
        if (!pc)
            return 0;   /* the client closed, or the server stops */
        int step = serve_frame(d, pc, e);
        free(pc);
        if (step < 0)
            return ss->broken ? err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg) : -1;
        if (step == STEP_CLOSE)
            return 0;
        if (step == STEP_FINISHED && !d->generation) {
            /* Nothing else runs: the session ends unless a command waits. */
            pthread_mutex_lock(&d->mu);
            int waiting = d->head != NULL;
            pthread_mutex_unlock(&d->mu);
            dt41_piece_t *next = waiting ? NULL : next_piece(d, DT41_GRACE_MS);
            if (!waiting && !next) {
                /* A client that closed already (the end of a tail) hears nothing. */
                pthread_mutex_lock(&d->mu);
                int gone = d->eof;
                pthread_mutex_unlock(&d->mu);
                if (!gone)
                    close_session(d);
                return 0;
            }
            if (next) {   /* back to the front of the queue */
                pthread_mutex_lock(&d->mu);
                next->next = d->head;
                d->head = next;
                if (!d->tail)
                    d->tail = next;
                pthread_mutex_unlock(&d->mu);
            }
        }
    }
}

int session_serve_dt41(session_t *ss, wire_reader_t *r, err_t *e)
{
    dt41_t d;
    dt41_init(&d, ss);
    ss->dt41 = &d;
    int rc = 0;
    /* The bytes our HELLO's decoder read already are the first frames. */
    const wire_decoder_t *dec = &r->dec;
    int done = take_bytes(&d, (const char *)dec->buf + dec->off, dec->len - dec->off);
    if (done)
        d.eof = 1;
    /* At once: a Go client waits 250 ms for it before its interactive
     * session gives up. The health handler sends none. */
    if (!d.cmd.health_handler) {
        pthread_mutex_lock(&ss->send_mu);
        dt41_put_capabilities(&d.buf, journal_available(NULL));
        rc = flush_locked(&d);
        pthread_mutex_unlock(&ss->send_mu);
    }
    pthread_t reader;
    int reading = !done && rc == 0 && pthread_create(&reader, NULL, reader_main, &d) == 0;
    if (rc == 0 && (reading || done)) {
        if (ss->env->refusal) {
            dt41_piece_t *pc = next_piece(&d, -1);
            free(pc);
            if (pc)
                put_log(&d, "ERROR", ss->env->refusal, strlen(ss->env->refusal), true);
            close_session(&d);
        } else {
            rc = serve_commands(&d, e);
        }
    } else if (rc < 0) {
        err_set(e, ERR_IO, "client gone: %s", ss->send_err.msg);
    }
    /* The reader ends with the client's ack or close. */
    if (reading)
        pthread_join(reader, NULL);
    ss->dt41 = NULL;
    dt41_free(&d);
    return rc;
}
