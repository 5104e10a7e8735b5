/* session.c: connection, request, frame loop and rendering. */
#include "client/remote/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/log.h"
#include "base/term.h"
#include "client/remote/dt41.h"
#include "client/remote/hello.h"
#include "client/remote/ssh.h"
#include "exec/scan/journal_spec.h"
#include "exec/sink/lines.h"

int remote_wanted(const cli_opts_t *o)
{
    return (o->discovery && *o->discovery) ||
           (o->servers && *o->servers && strcasecmp(o->servers, "serverless") != 0);
}

char *remote_files(const cli_opts_t *o, int skip, err_t *e)
{
    size_t n = o->files ? strlen(o->files) + 1 : 1;
    for (int i = 0; i < o->n_positional; i++)
        n += strlen(o->positional[i]) + 1;
    char *s = calloc(1, n);
    if (!s) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (o->files)
        strcpy(s, o->files);
    for (int i = 0; i < o->n_positional; i++) {
        if (i == skip)
            continue;
        if (*s)
            strcat(s, ",");
        strcat(s, o->positional[i]);
    }
    if (!*s) {
        free(s);
        err_set(e, ERR_USAGE, "no input: give the files to read on the server with --files or as "
                              "arguments (stdin cannot be read through a server)");
        return NULL;
    }
    return s;
}

int remote_connect(remote_conn_t *c, const fanout_target_t *t, const cli_opts_t *o,
                   const config_t *cfg, const wire_request_t *early, err_t *e)
{
    memset(c, 0, sizeof *c);
    c->plain = o->plain;
    c->escape = term_escapes(STDOUT_FILENO);
    ssh_client_opts_t so = {
        .user = o->user,
        .key_path = client_key_path(o, cfg),
        .trust_all_hosts = o->trust_all_hosts,
        .agent_key_pick = (int)o->agent_key_index + 1,
        .connect_timeout_ms = cfg->ssh_connect_timeout_ms,
        .read_max = t->read_max,
    };
    if (ssh_client_open(t->host, t->port, &so, &c->s, e) < 0)
        return -1;
    if (wire_reader_init(&c->r, &c->s, 0, e) < 0) {
        stream_close(&c->s);
        return -1;
    }
    c->r.chunk = t->read_max;
    c->open = 1;
    char me[256];
    cli_host_name(me, sizeof me);
    c->read_deadline = ssh_client_read_deadline;
    c->hello_wait_ms = cfg->ssh_connect_timeout_ms > 0 ? cfg->ssh_connect_timeout_ms : 2000;
    /* The first request rides in the HELLO, unless the server's answer
     * must be seen first: journal targets need its capability. */
    wire_request_t w;
    const wire_request_t *carry = NULL;
    if (early && !journal_spec_in_list(early->files)) {
        w = *early;
        if (o->compress)
            w.flags |= WIRE_REQ_ZSTD;   /* every server that takes it has zstd */
        carry = &w;
    }
    int taken = 0;
    int proto = remote_hello(&c->s, &c->r, me, c->hello_wait_ms, carry, &taken, &c->server, e);
    if (proto < 0) {
        remote_close(c);
        return -1;
    }
    if (proto == REMOTE_PROTO_DT41) {
        /* a Go dserver: no HELLO, the name asked for stands for it */
        c->dt41 = 1;
        snprintf(c->server.host, sizeof c->server.host, "%s", t->host);
        ssh_client_peer_tag(&c->s, c->peer_tag, sizeof c->peer_tag);
        return 0;
    }
    c->zstd = o->compress && (c->server.caps & WIRE_CAP_ZSTD);
    c->early_taken = taken ? early : NULL;
    return 0;
}

wire_request_t remote_build_request(const exec_request_t *rq, char *files)
{
    wire_request_t w = exec_request_to_wire(rq, files);
    w.timeout_s = 0;
    return w;
}

/* What the frames of rq need to be shown (escaped on a terminal). */
static void note_request(remote_conn_t *c, const wire_request_t *rq)
{
    c->render = rq->render;
    wire_request_palette(rq, &c->palette);
}

int remote_send(remote_conn_t *c, const wire_request_t *rq, err_t *e)
{
    if (c->dt41)
        return err_set(e, ERR_USAGE, "an interactive reload is not supported yet through a "
                                     "DTail 4.1 server");
    wire_request_t w = *rq;
    note_request(c, rq);
    if (c->zstd)
        w.flags |= WIRE_REQ_ZSTD;
    wire_buf_t b = {0};
    wire_encode_request(&b, &w);
    int rc = wire_buf_send(&b, &c->s, e);
    wire_buf_free(&b);
    return rc;
}

void remote_close(remote_conn_t *c)
{
    if (!c->open)
        return;
    wire_reader_free(&c->r);
    stream_close(&c->s);
    outbuf_free(&c->term);
    c->open = 0;
}

/* SERVER|host|LEVEL|text on stderr (plain: the text only, empty dropped);
 * the host and text are the server's, escaped on a terminal. */
static void print_server(const remote_conn_t *c, enum log_level level, const char *text, size_t len)
{
    if (c->plain) {
        if (len)
            term_fprintf(stderr, "%.*s\n", (int)len, text);
        return;
    }
    term_fprintf(stderr, "SERVER|%s|%s|%.*s\n", c->server.host, log_level_name(level), (int)len,
                 text);
}

/* A LINES payload as it is shown: escaped, on a terminal, into c->term
 * (as the server's line sink would have written it to one). 0, or -1 when
 * out of memory. */
static int shown_lines(remote_conn_t *c, const char **p, size_t *len, err_t *e)
{
    if (!c->escape)
        return 0;
    if (!c->term.data && outbuf_init_mem(&c->term, 64 * 1024, e) < 0)
        return -1;
    outbuf_reset(&c->term);
    line_sink_escape_rendered(&c->term, line_format_of_render(c->render), &c->palette, *p,
                              *len);
    if (c->term.failed)
        return err_set(e, ERR_NOMEM, "out of memory escaping lines for the terminal");
    *p = c->term.data;
    *len = c->term.len;
    return 0;
}

int remote_journal_refused(remote_conn_t *c, const char *files, int journal, client_run_t *rs)
{
    if (journal || !journal_spec_in_list(files))
        return 0;
    print_server(c, LOG_ERROR, REMOTE_NO_JOURNAL, sizeof REMOTE_NO_JOURNAL - 1);
    if (rs->status < 1)
        rs->status = 1;
    c->cannot_serve = 1;
    return 1;
}

static void file_problem(const remote_conn_t *c, const wire_msg_t *m, client_run_t *rs)
{
    char text[8192];
    snprintf(text, sizeof text, "%.*s|%.*s", (int)m->text.len, m->text.p, (int)m->name.len, m->name.p);
    if (log_level >= LOG_ERROR)
        print_server(c, LOG_ERROR, text, strlen(text));
    if (rs->status < 1)
        rs->status = 1;   /* as a local input that cannot be read */
}

int remote_aggregate_frame(size_t agg_max, const remote_handler_t *h, agg_bytes_t *parts,
                           const wire_msg_t *m, err_t *e)
{
    const unsigned char *p = (const unsigned char *)m->data.p;
    size_t len = m->data.len;
    if (h && h->on_aggregate_part)
        return h->on_aggregate_part(h->ctx, p, len, m->status, e);
    if ((m->status & WIRE_AGG_MORE) || parts->len) {
        size_t max = agg_max ? agg_max : REMOTE_AGG_MAX;
        if (parts->len + len > max)
            return err_set(e, ERR_INPUT, "the server's result is over %zu MiB", max >> 20);
        if (agg_serialized_join(parts, p, len, e) < 0)
            return -1;
        if (m->status & WIRE_AGG_MORE)
            return 0;
        p = parts->p;
        len = parts->len;
    }
    int rc = 0;
    if (h && h->on_aggregate)
        rc = h->on_aggregate(h->ctx, p, len, m->status & WIRE_AGG_FINAL, e);
    parts->len = 0;
    return rc;
}

static int request_frames(remote_conn_t *c, outbuf_t *out, const remote_handler_t *h,
                          client_run_t *rs, agg_bytes_t *parts, err_t *e);

int remote_request(remote_conn_t *c, const wire_request_t *rq, outbuf_t *out,
                   const remote_handler_t *h, client_run_t *rs, err_t *e)
{
    if (c->dt41)
        return remote_dt41_request(c, rq, out, h, rs, e);
    if (rq && rq == c->early_taken) {   /* the server has it from the HELLO */
        c->early_taken = NULL;
        note_request(c, rq);
    } else {
        if (rq && remote_journal_refused(c, rq->files, (c->server.caps & WIRE_CAP_JOURNAL) != 0,
                                         rs))
            return 0;
        if (rq && remote_send(c, rq, e) < 0)
            return -1;
    }
    agg_bytes_t parts = {0};
    int rc = request_frames(c, out, h, rs, &parts, e);
    free(parts.p);
    return rc;
}

/* The frames of the request until its END (or, keep_open, until the
 * connection ends). */
static int request_frames(remote_conn_t *c, outbuf_t *out, const remote_handler_t *h,
                          client_run_t *rs, agg_bytes_t *parts, err_t *e)
{
    int rc;
    for (;;) {
        wire_frame_t f;
        rc = wire_read_frame(&c->r, &f, e);
        if (rc == 0)
            return err_set(e, ERR_IO, "the connection ended before the end of the stream");
        if (rc < 0)
            return -1;
        if (f.type == WIRE_FIELDS && h && h->on_fields) {
            if (h->on_fields(h->ctx, f.p, f.len, e) < 0)
                return -1;
            continue;
        }
        if (f.type >= WIRE_OPTIONAL_FIRST && f.type <= WIRE_OPTIONAL_LAST)
            continue;   /* an extension this client does not know */
        wire_msg_t m;
        if (wire_decode_msg(&f, &m, e) < 0)
            return -1;
        /* The parts of a table are consecutive frames: anything else (the
         * server's error when it could not send the rest, END) leaves the
         * table unfinished, and it is dropped, never joined to the next. */
        if (m.type != WIRE_AGGREGATE)
            parts->len = 0;
        if (h && h->accept && !h->accept(h->ctx, m.type))
            continue;
        switch (m.type) {
        case WIRE_LINES: {
            const char *p = m.data.p;
            size_t len = m.data.len;
            if (shown_lines(c, &p, &len, e) < 0)
                return -1;
            if (h && h->on_lines) {
                if (h->on_lines(h->ctx, p, len, e) < 0)
                    return -1;
            } else if (len >= out->cap / 2)
                outbuf_write_direct(out, p, len);
            else
                outbuf_append(out, p, len);
            break;
        }
        case WIRE_MESSAGE:
            if (m.level <= (log_level > LOG_WARN ? log_level : LOG_WARN)) {
                if (out)
                    outbuf_flush(out);
                print_server(c, m.level, m.text.p, m.text.len);
            }
            if (m.level <= LOG_ERROR && rs->status < 1)
                rs->status = 1;
            break;
        case WIRE_FILE_STATUS:
            if (m.status != WIRE_FILE_OK) {
                if (out)
                    outbuf_flush(out);
                file_problem(c, &m, rs);
            }
            if (h && h->on_file)
                h->on_file(h->ctx, &m, (c->server.caps & WIRE_CAP_FILE_COUNTS) && m.has_counts);
            break;
        case WIRE_AGGREGATE:
            if (remote_aggregate_frame(c->agg_max, h, parts, &m, e) < 0)
                return -1;
            break;
        case WIRE_END:
            if (out)
                outbuf_flush(out);
            if (m.status == WIRE_END_FAILED) {
                if (log_level >= LOG_ERROR)
                    print_server(c, LOG_ERROR, m.text.p, m.text.len);
                if (rs->status < 1)
                    rs->status = 1;
            }
            if (h && h->keep_open)
                break;
            return 0;
        }
    }
}
