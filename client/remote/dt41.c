/* dt41.c: see dt41.h. */
#include "client/remote/dt41.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/term.h"
#include "client/remote/dt41_fold.h"
#include "exec/agg/eval.h"
#include "exec/scan/journal_spec.h"
#include "exec/sink/lines.h"
#include "parser/parser.h"
#include "wire/dt41.h"

#define READ_CHUNK (64 * 1024)

/* The Go dserver's answer to our HELLO, which it reads as a command of
 * an unknown protocol version: dropped, the handshake expected it. */
static int refuses_hello(const dt41_str_t *text)
{
    static const char *const words[] = {"does not match client protocol version",
                                        "unable to determine protocol version",
                                        "nable to decode client message"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t k = strlen(words[i]);
        for (size_t j = 0; j + k <= text->n; j++)
            if (memcmp(text->p + j, words[i], k) == 0)
                return 1;
    }
    return 0;
}

/* ---- The request as 4.1 commands ----------------------------------------- */

static enum dt41_mode mode_of(uint8_t kind)
{
    switch (kind) {
    case WIRE_KIND_CAT: return DT41_MODE_CAT;
    case WIRE_KIND_GREP: return DT41_MODE_GREP;
    case WIRE_KIND_TAIL: return DT41_MODE_TAIL;
    default: return DT41_MODE_UNKNOWN;
    }
}

/* rq's files as spans into the copy *store (freed by the caller). */
static dt41_str_t *split_files(const char *files, char **store, size_t *n, err_t *e)
{
    size_t cap = 1;
    for (const char *p = files; *p; p++)
        cap += *p == ',';
    *store = strdup(files);
    dt41_str_t *v = calloc(cap, sizeof *v);
    if (!*store || !v) {
        free(v);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    *n = 0;
    for (char *p = *store; p;) {
        char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len)
            v[(*n)++] = (dt41_str_t){p, len};
        p = comma ? comma + 1 : NULL;
    }
    return v;
}

/* The pattern of the read commands of a query, as DTail's client makes it
 * from the table (shared reference §2.10): a Go dserver's log format
 * takes lines of any table, the pattern picks the table's. */
static void table_pattern(wire_buf_t *b, const plan_t *plan)
{
    const char *t = plan->table;
    if (!t || strcmp(t, ".") == 0 || strcmp(t, "*") == 0)
        return;   /* "*": every table (DTail sends a pattern that matches none, D10) */
    wire_put_bytes(b, "\\|MAPREDUCE:", 12);
    wire_put_bytes(b, t, strlen(t));
    wire_put_bytes(b, "\\|", 2);
}

/* plan: the query's, or NULL. */
static int send_request(remote_conn_t *c, const wire_request_t *rq, const plan_t *plan, err_t *e)
{
    if (!rq)
        return err_set(e, ERR_USAGE, "an interactive reload is not supported yet through a "
                                     "DTail 4.1 server");
    dt41_spec_t s = {.mode = mode_of(rq->kind)};
    if (rq->query && *rq->query) {
        s.query = (dt41_str_t){rq->query, strlen(rq->query)};
        if (rq->kind == WIRE_KIND_MAP)
            s.mode = DT41_MODE_MAP;
    }
    if (s.mode == DT41_MODE_UNKNOWN)
        return err_set(e, ERR_USAGE, "request kind %u cannot be sent to a DTail 4.1 server",
                       rq->kind);
    /* DTail has no records: its lines would come back one by one. */
    if (rq->flags & WIRE_REQ_MULTILINE)
        return err_set(e, ERR_USAGE, "--multiline is not supported by a DTail 4.1 server");
    char *store = NULL;
    dt41_str_t *files = split_files(rq->files ? rq->files : "", &store, &s.nfiles, e);
    if (!files) {
        free(store);
        return -1;
    }
    s.files = files;
    dt41_opts_t o = {.after = (long long)rq->after, .before = (long long)rq->before,
                     .max = (long long)rq->max, .plain = rq->render == WIRE_RENDER_PLAIN,
                     .quiet = (rq->flags & WIRE_REQ_QUIET) != 0};
    wire_buf_t opts = {0}, regex = {0}, b = {0};
    if (!plan)   /* a query's commands go without options, as Go's */
        dt41_opts_encode(&opts, &o);
    s.options = (dt41_str_t){(const char *)opts.p, opts.len};
    if (plan) {
        table_pattern(&regex, plan);
    } else {
        /* Go's regexp (RE2) takes the case flag inside the pattern. */
        if ((rq->flags & WIRE_REQ_ICASE) && rq->regex && *rq->regex)
            wire_put_bytes(&regex, "(?i)", 4);
        if (rq->regex)
            wire_put_bytes(&regex, rq->regex, strlen(rq->regex));
    }
    s.regex = (dt41_str_t){(const char *)regex.p, regex.len};
    s.regex_invert = (rq->flags & WIRE_REQ_INVERT) != 0;
    int rc = dt41_put_spec_frames(&b, &s, e);
    if (rc == 0 && (opts.failed || regex.failed || b.failed))
        rc = err_set(e, ERR_NOMEM, "out of memory");
    if (rc == 0)
        rc = wire_buf_send(&b, &c->s, e);
    wire_buf_free(&opts);
    wire_buf_free(&regex);
    wire_buf_free(&b);
    free(files);
    free(store);
    return rc;
}

/* ---- The answer ------------------------------------------------------------ */

typedef struct answer {
    remote_conn_t *c;
    const remote_handler_t *h;
    outbuf_t *out;
    client_run_t *rs;
    int plain;                /* the lines come as raw content */
    enum line_format format;
    palette_t palette;        /* the sink's paint (the request's) */
    line_sink_t sink;         /* REMOTE lines rendered as our dserver does */
    int sink_open;
    char *host;               /* the sink's host */
    char *source;             /* the sink's source id */
    outbuf_t lines;           /* rendered lines, handed on per read */
    dt41_splitter_t split;
    wire_buf_t carry;         /* a message cut inside a UTF-8 character */
    int closed;               /* the server said .syn close connection */
    int told;                 /* messages read so far, but for the refusal of
                                 our HELLO */
    int caps;                 /* its .syn capabilities came */
    int journal;              /* ... and have journal-v1 */
    /* a query: the server's AGGREGATE messages folded into table */
    query_t *query;
    agg_spec_t *specs;
    agg_table_t table;
    dt41_fold_t fold;
    dt41_agg_t agg;
    field_report_t report;    /* dmap: what the messages tell of the fields */
    int have_report;
    int deltas;               /* dtail --query: each batch goes on as a delta */
    int dirty;                /* folded since the table last went on */
    long long sent_ms;        /* when it last went on (map: once a second) */
} answer_t;

static int same_str(const char *s, const dt41_str_t *v)
{
    return s && strlen(s) == v->n && memcmp(s, v->p, v->n) == 0;
}

static char *dup_str(const dt41_str_t *v)
{
    char *s = malloc(v->n + 1);
    if (s) {
        memcpy(s, v->p, v->n);
        s[v->n] = 0;
    }
    return s;
}

/* A REMOTE line through the sink, opened again when the host changes. */
static int remote_line(answer_t *a, const dt41_msg_t *m, err_t *e)
{
    if (!a->sink_open || !same_str(a->host, &m->host)) {
        if (a->sink_open)
            line_sink_free(&a->sink);
        a->sink_open = 0;
        free(a->host);
        free(a->source);
        a->source = NULL;
        a->host = dup_str(&m->host);
        if (!a->host || line_sink_init(&a->sink, &a->lines, a->format, a->host, &a->palette) < 0)
            return err_set(e, ERR_NOMEM, "out of memory");
        a->sink_open = 1;
    }
    if (!same_str(a->source, &m->source)) {
        free(a->source);
        a->source = dup_str(&m->source);
        if (!a->source)
            return err_set(e, ERR_NOMEM, "out of memory");
        line_sink_set_source(&a->sink, a->source);
    }
    size_t n = m->text.n;
    if (n && m->text.p[n - 1] == '\n')
        n--;
    line_sink_put(&a->sink, m->text.p, n, m->lineno);
    return 0;
}

/* A plain-mode line: the content, and '\n' if it has none (as Go's client). */
static void plain_line(answer_t *a, const dt41_str_t *t)
{
    outbuf_append_data(&a->lines, t->p, t->n, 0);
    if (!t->n || t->p[t->n - 1] != '\n')
        outbuf_putc(&a->lines, '\n');
}

/* The level of a Go logger line "LEVEL|MMDD-HHMMSS|...", or -1. */
static int logger_level(const dt41_str_t *t)
{
    static const struct { const char *w; enum log_level l; } levels[] = {
        {"FATAL|", LOG_ERROR}, {"ERROR|", LOG_ERROR}, {"WARN|", LOG_WARN},
        {"INFO|", LOG_INFO}, {"DEBUG|", LOG_DEBUG}, {"TRACE|", LOG_TRACE}};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        size_t k = strlen(levels[i].w);
        if (t->n >= k && memcmp(t->p, levels[i].w, k) == 0)
            return (int)levels[i].l;
    }
    return -1;
}

/* In plain mode the Go dserver sends its messages as bare text, worded
 * "LEVEL|MMDD-HHMMSS|user@ip:port|text" with the user and address of this
 * connection's end: only a line with exactly that head is taken for one.
 * A log line in DTail's own format ("INFO|1002-071143|...") is content,
 * and so is everything when our end's address is unknown (tag ""): a
 * message shown as a line is better than a line lost to stderr. */
static int from_server(const dt41_str_t *t, const char *tag)
{
    size_t tl = strlen(tag);
    if (!tl || logger_level(t) < 0)
        return 0;
    const char *bar = memchr(t->p, '|', t->n);
    size_t rest = t->n - (size_t)(bar + 1 - t->p);
    if (rest < 13 + tl + 1 || bar[12] != '|' || bar[5] != '-')
        return 0;
    for (int i = 1; i <= 11; i++)
        if (i != 5 && (bar[i] < '0' || bar[i] > '9'))
            return 0;
    return memcmp(bar + 13, tag, tl) == 0 && bar[13 + tl] == '|';
}

/* A server message: on stderr as the Go client shows it (SERVER|host|text;
 * plain: the text), at the levels our client shows; an error raises the
 * exit status. */
static void server_message(answer_t *a, const dt41_str_t *raw, const dt41_str_t *text)
{
    if (refuses_hello(text))
        return;
    int level = logger_level(text);
    /* Go warns of a file it cannot read; ours exits 1 for it, so does
     * this client through a Go dserver (docs/dcat-dgrep.md) */
    static const char unreadable[] = "|Unable to read file(s)";
    int file_failed = 0;
    for (size_t j = 0; !file_failed && j + sizeof unreadable - 1 <= text->n; j++)
        file_failed = memcmp(text->p + j, unreadable, sizeof unreadable - 1) == 0;
    if (((level >= 0 && level <= LOG_ERROR) || file_failed) && a->rs->status < 1)
        a->rs->status = 1;
    if (level >= 0 && (unsigned)level > (unsigned)(log_level > LOG_WARN ? log_level : LOG_WARN))
        return;
    const dt41_str_t *shown = a->plain ? text : raw;
    size_t n = shown->n;
    while (n && shown->p[n - 1] == '\n')
        n--;
    if (!n)
        return;
    if (a->out)
        outbuf_flush(a->out);
    term_fprintf(stderr, "%.*s\n", (int)n, shown->p);
}

static int ack_close(answer_t *a, err_t *e)
{
    wire_buf_t b = {0};
    dt41_put_ack_close_frame(&b);
    int rc = wire_buf_send(&b, &a->c->s, e);
    wire_buf_free(&b);
    a->closed = 1;
    return rc;
}

/* Whether the capability names have the word w. */
static int has_word(const dt41_str_t *names, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= names->n; i++)
        if ((i == 0 || names->p[i - 1] == ' ') && memcmp(names->p + i, w, k) == 0 &&
            (i + k == names->n || names->p[i + k] == ' '))
            return 1;
    return 0;
}

static int message(answer_t *a, const char *p, size_t n, err_t *e)
{
    dt41_msg_t m;
    dt41_msg_classify(p, n, &m);
    if (!refuses_hello(&m.raw))
        a->told++;
    switch (m.kind) {
    case DT41_MSG_CAPABILITIES:
        a->caps = 1;
        a->journal = has_word(&m.text, "journal-v1");
        return 0;
    case DT41_MSG_CLOSE:
        return ack_close(a, e);
    case DT41_MSG_SERVER:
        server_message(a, &m.raw, &m.text);
        return 0;
    case DT41_MSG_REMOTE:
        if (a->plain) {
            plain_line(a, &m.raw);
            return 0;
        }
        return remote_line(a, &m, e);
    case DT41_MSG_PLAIN:
        if (a->plain && from_server(&m.raw, a->c->peer_tag))
            server_message(a, &m.raw, &m.raw);
        else
            plain_line(a, &m.raw);
        return 0;
    case DT41_MSG_AGGREGATE:
        if (!a->query)
            return 0;   /* no request of ours asked for it */
        if (dt41_agg_parse(&a->agg, p, n, e) < 0 || dt41_fold(&a->fold, &a->agg, e) < 0)
            return -1;
        a->dirty = 1;
        return 0;
    default:
        /* hidden messages, capabilities, session and AUTHKEY answers */
        return 0;
    }
}

/* Hands the lines rendered so far on, as LINES of our dserver would go. */
static int hand_on(answer_t *a, err_t *e)
{
    if (a->lines.failed)
        return err_set(e, ERR_NOMEM, "out of memory rendering lines");
    if (!a->lines.len)
        return 0;
    int rc = 0;
    if (a->h && a->h->on_lines)
        rc = a->h->on_lines(a->h->ctx, a->lines.data, a->lines.len, e);
    else if (a->out)
        outbuf_append(a->out, a->lines.data, a->lines.len);
    outbuf_reset(&a->lines);
    return rc;
}

/* The folded table on to the handler as our servers' AGGREGATE would go:
 * for dmap the whole result so far (at most once a second, and at the
 * end with final), for dtail --query what came since the last one. */
static int deliver(answer_t *a, int final, err_t *e)
{
    if (!a->query || (!a->dirty && !final))
        return 0;
    long long now = clock_now_ms();
    if (!final && !a->deltas && now - a->sent_ms < 1000)
        return 0;
    size_t len;
    int rc = 0;
    if (final && a->have_report) {
        /* before the final table, as our servers send theirs */
        unsigned char *r = field_report_encode(&a->report, &len);
        if (!r)
            return err_set(e, ERR_NOMEM, "out of memory sending on a DTail 4.1 result");
        rc = a->h->on_fields(a->h->ctx, r, len, e);
        free(r);
        if (rc < 0)
            return -1;
    }
    unsigned char *p = agg_table_serialize(&a->table, &len);
    if (!p)
        return err_set(e, ERR_NOMEM, "out of memory sending on a DTail 4.1 result");
    if (a->h && a->h->on_aggregate_part)
        rc = a->h->on_aggregate_part(a->h->ctx, p, len, final ? WIRE_AGG_FINAL : 0, e);
    else if (a->h && a->h->on_aggregate)
        rc = a->h->on_aggregate(a->h->ctx, p, len, final, e);
    free(p);
    if (a->deltas)
        agg_table_clear(&a->table);
    a->dirty = 0;
    a->sent_ms = now;
    return rc;
}

/* Whether a message ending in p[0..n) was cut by the 0xAC of a UTF-8
 * character (defect D12 of DTail: "¬" is C2 AC): its last bytes begin a
 * character that 0xAC continues. A Go dserver never ends a message so
 * (its lines end in '\n' or whole characters), but for a line whose last
 * byte is such an invalid fragment, which then takes the next message in. */
static int cut_in_char(const char *p, size_t n)
{
    size_t i = n, back = 0;
    while (i > 0 && back < 3 && ((unsigned char)p[i - 1] & 0xC0) == 0x80) {
        i--;
        back++;
    }
    if (i == 0)
        return 0;
    unsigned char lead = (unsigned char)p[i - 1];
    size_t have = n - i + 1;
    size_t need = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                  : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
    if (need <= have)
        return 0;
    /* the second byte of these is bounded below 0xAC */
    if (have == 1 && (lead == 0xED || lead == 0xF4))
        return 0;
    return 1;
}

/* A whole piece of the split, joined again to the pieces before it when
 * those were cut inside a character. */
static int piece(answer_t *a, const char *p, size_t n, err_t *e)
{
    const unsigned char delim = DT41_DELIM;
    if (cut_in_char(p, n)) {
        if (a->carry.len + n + 1 > DT41_MAX_MESSAGE)
            return err_set(e, ERR_INPUT, "a message of the DTail 4.1 server is over %u MiB",
                           DT41_MAX_MESSAGE >> 20);
        wire_put_bytes(&a->carry, p, n);
        wire_put_bytes(&a->carry, &delim, 1);
        return a->carry.failed ? err_set(e, ERR_NOMEM, "out of memory") : 0;
    }
    if (!a->carry.len)
        return message(a, p, n, e);
    wire_put_bytes(&a->carry, p, n);
    if (a->carry.failed)
        return err_set(e, ERR_NOMEM, "out of memory");
    int rc = message(a, (const char *)a->carry.p, a->carry.len, e);
    a->carry.len = 0;
    return rc;
}

static int feed(answer_t *a, const char *p, size_t n, err_t *e)
{
    while (n && !a->closed) {
        size_t used;
        dt41_str_t got;
        unsigned long long at;
        int rc = dt41_split(&a->split, p, n, &used, &got, &at, e);
        p += used;
        n -= used;
        if (rc < 0)
            return -1;
        if (rc == 1 && piece(a, got.p, got.n, e) < 0)
            return -1;
    }
    if (deliver(a, a->closed && !a->deltas, e) < 0)
        return -1;
    return hand_on(a, e);
}

/* What the handshake read past the HELLO: the answer's start. */
static int feed_early(answer_t *a, err_t *e)
{
    const unsigned char *early;
    size_t n = wire_decoder_unread(&a->c->r.dec, &early);
    a->c->r.dec.off = a->c->r.dec.len;
    return feed(a, (const char *)early, n, e);
}

/* Reads until the server's capabilities came: a Go dserver sends them at
 * once, before it answers a command, our HELLO included. A server that
 * said something else first (DTail before 4.3 has no capabilities), or
 * nothing more within the connect timeout (c->read_deadline, where the
 * stream has one), has none. The messages read are the answer's. 0, or
 * -1 with e set. */
static int read_capabilities(answer_t *a, err_t *e)
{
    char buf[4096];
    if (feed_early(a, e) < 0)
        return -1;
    remote_conn_t *c = a->c;
    if (c->read_deadline)
        c->read_deadline(&c->s, clock_now_ms() + c->hello_wait_ms);
    int rc = 0;
    while (!a->caps && !a->told && !a->closed) {
        ssize_t got = stream_read(&c->s, buf, sizeof buf, e);
        if (got < 0 || (got > 0 && feed(a, buf, (size_t)got, e) < 0)) {
            rc = -1;
            break;
        }
        if (got == 0)
            break;   /* the deadline, or the end (the request's send says so) */
    }
    if (c->read_deadline)
        c->read_deadline(&c->s, 0);
    return rc;
}

static int answer_loop(answer_t *a, err_t *e)
{
    if (feed_early(a, e) < 0)
        return -1;
    char *buf = malloc(READ_CHUNK);
    if (!buf)
        return err_set(e, ERR_NOMEM, "out of memory");
    int rc = 0;
    while (!a->closed) {
        ssize_t got = stream_read(&a->c->s, buf, READ_CHUNK, e);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0) {
            rc = err_set(e, ERR_IO, "the connection ended before the DTail 4.1 server closed "
                                    "the session");
            break;
        }
        if (feed(a, buf, (size_t)got, e) < 0) {
            rc = -1;
            break;
        }
    }
    free(buf);
    return rc;
}

/* The query's plan (the client checked it before connecting) and the
 * table the server's results fold into. */
static int start_query(answer_t *a, const wire_request_t *rq, err_t *e)
{
    if (query_parse(rq->query, strlen(rq->query), NULL, &a->query, e) < 0)
        return -1;
    const plan_t *plan = query_plan(a->query);
    for (size_t i = 0; i < plan->n_select; i++)
        if (plan->select[i].agg == PLAN_AGG_COUNT_DISTINCT || plan->select[i].agg == PLAN_AGG_TOP)
            return err_set(e, ERR_QUERY, "%s: DTail 4.1 has no %s, so a Go dserver cannot "
                           "compute it (ask dservers of DTail in C)", plan->select[i].name,
                           plan->select[i].agg == PLAN_AGG_TOP ? "top()" : "count(distinct)");
    err_t de;
    if (query_check_dtail_dialect(plan, "a DTail 4.1 server cannot run it (ask servers of "
                                        "this build)", &de) < 0) {
        char buf[2048];
        query_error_format(rq->query, strlen(rq->query), &de, buf, sizeof buf);
        return err_set(e, ERR_USAGE, "invalid query: %s", buf);
    }
    a->specs = calloc(plan->n_select ? plan->n_select : 1, sizeof *a->specs);
    if (!a->specs)
        return err_set(e, ERR_NOMEM, "out of memory");
    eval_specs(plan, a->specs);
    if (agg_table_init(&a->table, a->specs, plan->n_select, e) < 0) {
        free(a->specs);
        a->specs = NULL;
        return -1;
    }
    dt41_fold_init(&a->fold, plan, &a->table);
    if (rq->kind == WIRE_KIND_MAP && a->h && a->h->on_fields) {
        if (field_report_init(&a->report, plan, e) < 0)
            return -1;
        a->have_report = 1;
        a->fold.report = &a->report;
    }
    dt41_agg_init(&a->agg);
    a->deltas = rq->kind == WIRE_KIND_TAIL;
    a->sent_ms = clock_now_ms();
    return 0;
}

static void end_query(answer_t *a)
{
    if (!a->query)
        return;
    if (a->specs) {
        dt41_fold_free(&a->fold);
        dt41_agg_free(&a->agg);
        agg_table_free(&a->table);
        free(a->specs);
    }
    if (a->have_report)
        field_report_free(&a->report);
    query_free(a->query);
    a->query = NULL;
}

int remote_dt41_request(remote_conn_t *c, const wire_request_t *rq, outbuf_t *out,
                        const remote_handler_t *h, client_run_t *rs, err_t *e)
{
    if (h && h->keep_open)
        return err_set(e, ERR_USAGE, "an interactive session is not supported yet through a "
                                     "DTail 4.1 server");
    if (!rq)
        return send_request(c, rq, NULL, e);   /* refused */
    answer_t a = {.c = c, .h = h, .out = out, .rs = rs, .plain = rq->render == WIRE_RENDER_PLAIN,
                  .format = line_format_of_render(rq->render)};
    wire_request_palette(rq, &a.palette);
    if (rq->query && *rq->query && start_query(&a, rq, e) < 0) {
        end_query(&a);
        return -1;
    }
    if (outbuf_init_mem(&a.lines, 256 * 1024, e) < 0) {
        end_query(&a);
        return -1;
    }
    a.lines.escape_data = c->escape;
    dt41_msgsplit_init(&a.split, 0);
    int rc = 0;
    if (journal_spec_in_list(rq->files)) {
        /* journal targets need journal-v1: the capabilities first, as
         * DTail's client waits for them */
        rc = read_capabilities(&a, e);
        if (rc == 0 && remote_journal_refused(c, rq->files, a.journal, rs))
            rc = 1;
    }
    if (rc == 0)
        rc = send_request(c, rq, a.query ? query_plan(a.query) : NULL, e);
    if (rc == 0)
        rc = answer_loop(&a, e);
    rc = rc > 0 ? 0 : rc;
    if (rc == 0 && out)
        outbuf_flush(out);
    if (a.sink_open)
        line_sink_free(&a.sink);
    free(a.host);
    free(a.source);
    outbuf_free(&a.lines);
    dt41_splitter_free(&a.split);
    wire_buf_free(&a.carry);
    end_query(&a);
    return rc;
}

/* ---- Health ---------------------------------------------------------------- */

int remote_dt41_health(stream_t *s, wire_reader_t *r, err_t *e)
{
    wire_buf_t b = {0};
    dt41_put_frame(&b, "health", 6);
    int rc = wire_buf_send(&b, s, e);
    wire_buf_free(&b);
    if (rc < 0)
        return -1;
    dt41_splitter_t sp;
    dt41_msgsplit_init(&sp, 0);
    char buf[4096];
    const unsigned char *early;
    size_t n = wire_decoder_unread(&r->dec, &early);
    const char *p = (const char *)early;
    r->dec.off = r->dec.len;
    int verdict = -2;
    while (verdict == -2) {
        while (n && verdict == -2) {
            size_t used;
            dt41_str_t piece;
            unsigned long long at;
            int got = dt41_split(&sp, p, n, &used, &piece, &at, e);
            p += used;
            n -= used;
            if (got < 0) {
                verdict = -1;
                break;
            }
            if (got == 0)
                break;
            dt41_msg_t m;
            dt41_msg_classify(piece.p, piece.n, &m);
            if (m.kind != DT41_MSG_SERVER || refuses_hello(&m.text))
                continue;
            if (m.text.n == 2 && memcmp(m.text.p, "OK", 2) == 0) {
                verdict = 1;
            } else {
                err_set(e, ERR_IO, "%.*s", (int)m.text.n, m.text.p);
                verdict = 0;
            }
        }
        if (verdict != -2)
            break;
        ssize_t got = stream_read(s, buf, sizeof buf, e);
        if (got <= 0) {
            if (got == 0)
                err_set(e, ERR_IO, "the server closed the connection before it answered");
            verdict = -1;
            break;
        }
        p = buf;
        n = (size_t)got;
    }
    dt41_splitter_free(&sp);
    return verdict;
}
