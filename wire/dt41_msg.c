/* dt41_msg.c: server messages of DTail 4.1: what the Go client makes of
 * each (clients/handlers/basehandler.go, maprhandler.go) and how the Go
 * dserver writes them (server/handlers/basehandler.go,
 * protocol_formatter.go). */
#include <stdio.h>
#include <string.h>

#include "wire/dt41.h"
#include "wire/dt41_go.h"

/* The i-th '|' field of s when it has more than i fields: the rest of s
 * from there when last, else up to the next '|'. */
static bool field_at(dt41_str_t s, size_t i, bool last, dt41_str_t *out)
{
    const char *p = s.p, *end = s.p + s.n;
    for (; i > 0; i--) {
        const char *bar = memchr(p, '|', (size_t)(end - p));
        if (!bar)
            return false;
        p = bar + 1;
    }
    const char *bar = last ? NULL : memchr(p, '|', (size_t)(end - p));
    *out = (dt41_str_t){p, (size_t)((bar ? bar : end) - p)};
    return true;
}

static bool classify_remote(dt41_str_t s, dt41_msg_t *m)
{
    dt41_str_t f[6];
    for (size_t i = 0; i < 6; i++)
        if (!field_at(s, i, i == 5, &f[i]))
            return false;
    if (go_parse_u64(f[3].p, f[3].n, &m->lineno) != GO_NUM_OK)
        return false;
    m->kind = DT41_MSG_REMOTE;
    m->host = f[1];
    m->pct = f[2];
    m->source = f[4];
    m->text = f[5];
    return true;
}

/* The Go client's test: the last '|' field, trimmed, is "AUTHKEY OK" or
 * starts "AUTHKEY ERR". */
static bool classify_authkey(dt41_str_t s, dt41_msg_t *m)
{
    dt41_str_t t = go_trim(s);
    const char *bar = NULL;
    for (const char *p = t.p; p < t.p + t.n; p++)
        if (*p == '|')
            bar = p;
    dt41_str_t last = bar ? go_trim((dt41_str_t){bar + 1, (size_t)(t.p + t.n - bar - 1)}) : go_trim(t);
    if (go_eq(last, "AUTHKEY OK")) {
        m->ok = true;
        m->text = (dt41_str_t){last.p + last.n, 0};
    } else if (go_prefix(last, "AUTHKEY ERR")) {
        m->ok = false;
        m->text = go_trim((dt41_str_t){last.p + 11, last.n - 11});
    } else {
        return false;
    }
    m->kind = DT41_MSG_AUTHKEY;
    dt41_str_t host;
    if (go_prefix(s, "SERVER|") && field_at(s, 1, false, &host) && host.p + host.n < s.p + s.n)
        m->host = host;
    return true;
}

static bool session_ack(dt41_str_t s, dt41_msg_t *m)
{
    dt41_str_t t = go_trim(s);
    static const char start[] = ".syn session start ok", update[] = ".syn session update ok",
                      err[] = ".syn session err ";
    if (go_prefix(t, err)) {
        m->ack = DT41_ACK_ERROR;
        m->text = go_trim((dt41_str_t){t.p + sizeof err - 1, t.n - (sizeof err - 1)});
        return true;
    }
    size_t skip = go_prefix(t, start) ? sizeof start - 1 : go_prefix(t, update) ? sizeof update - 1 : 0;
    if (!skip)
        return false;
    dt41_str_t g = go_trim((dt41_str_t){t.p + skip, t.n - skip});
    if (go_parse_u64(g.p, g.n, &m->generation) != GO_NUM_OK)
        return false;   /* Go warns and drops it */
    m->ack = skip == sizeof start - 1 ? DT41_ACK_START : DT41_ACK_UPDATE;
    return true;
}

static void classify_hidden(dt41_str_t s, dt41_msg_t *m)
{
    static const char caps[] = ".syn capabilities ";
    m->kind = DT41_MSG_HIDDEN;
    m->text = s;
    if (go_prefix(s, caps)) {
        m->kind = DT41_MSG_CAPABILITIES;
        m->text = (dt41_str_t){s.p + sizeof caps - 1, s.n - (sizeof caps - 1)};
    } else if (go_prefix(s, ".syn session ") && session_ack(s, m)) {
        m->kind = DT41_MSG_SESSION_ACK;
    } else if (go_prefix(s, ".syn close connection")) {
        m->kind = DT41_MSG_CLOSE;
    }
}

void dt41_msg_classify(const char *p, size_t n, dt41_msg_t *m)
{
    dt41_str_t s = {p, n};
    memset(m, 0, sizeof *m);
    m->raw = s;
    m->kind = DT41_MSG_PLAIN;
    m->text = s;
    if (n && p[0] == '.') {
        classify_hidden(s, m);
        return;
    }
    if (go_prefix(s, "AGGREGATE|")) {
        m->kind = DT41_MSG_AGGREGATE;
        dt41_str_t host = {p + n, 0}, data = {p + n, 0};
        if (field_at(s, 1, false, &host))
            field_at(s, 2, true, &data);
        m->host = host;
        m->text = data;
        return;
    }
    if (go_prefix(s, "REMOTE|") && classify_remote(s, m))
        return;
    if (classify_authkey(s, m))
        return;
    dt41_str_t host, text;
    if (go_prefix(s, "SERVER|") && field_at(s, 1, false, &host) && field_at(s, 2, true, &text)) {
        m->kind = DT41_MSG_SERVER;
        m->host = host;
        m->text = text;
    }
}

/* ---- the server's writers ----------------------------------------------------- */

static void put_cstr(wire_buf_t *b, const char *s)
{
    wire_put_bytes(b, s, strlen(s));
}

static void put_end(wire_buf_t *b)
{
    wire_put_u8(b, DT41_DELIM);
}

void dt41_put_server(wire_buf_t *b, const char *host, const char *text, size_t n, bool plain)
{
    if (!plain) {
        put_cstr(b, "SERVER|");
        put_cstr(b, host);
        put_cstr(b, "|");
    }
    wire_put_bytes(b, text, n);
    put_end(b);
}

void dt41_put_server_log(wire_buf_t *b, const char *host, bool plain, const char *level, time_t t,
                         const char *who, const char *text, size_t n, bool newline)
{
    struct tm tm;
    char when[32];
    localtime_r(&t, &tm);
    strftime(when, sizeof when, "%m%d-%H%M%S", &tm);
    if (!plain) {
        put_cstr(b, "SERVER|");
        put_cstr(b, host);
        put_cstr(b, "|");
    }
    put_cstr(b, level);
    put_cstr(b, "|");
    put_cstr(b, when);
    put_cstr(b, "|");
    put_cstr(b, who);
    put_cstr(b, "|");
    wire_put_bytes(b, text, n);
    if (newline)
        put_cstr(b, "\n");
    put_end(b);
}

void dt41_put_hidden(wire_buf_t *b, const char *text, size_t n)
{
    wire_put_bytes(b, text, n);
    put_end(b);
}

void dt41_put_capabilities(wire_buf_t *b, bool journal)
{
    put_cstr(b, journal ? ".syn capabilities query-update-v1 journal-v1" : ".syn capabilities query-update-v1");
    put_end(b);
}

void dt41_put_close(wire_buf_t *b)
{
    put_cstr(b, ".syn close connection");
    put_end(b);
}

void dt41_put_session_ack(wire_buf_t *b, enum dt41_ack ack, uint64_t generation, const char *err,
                          size_t n)
{
    char head[64];
    if (ack == DT41_ACK_ERROR) {
        put_cstr(b, ".syn session err ");
        wire_put_bytes(b, err, n);
    } else {
        snprintf(head, sizeof head, ".syn session %s ok %llu", ack == DT41_ACK_START ? "start" : "update",
                 (unsigned long long)generation);
        put_cstr(b, head);
    }
    put_end(b);
}

void dt41_put_remote(wire_buf_t *b, const char *host, const char *pct, uint64_t lineno,
                     const char *source, const char *content, size_t n, bool plain)
{
    if (!plain) {
        char num[24];
        snprintf(num, sizeof num, "%llu", (unsigned long long)lineno);
        put_cstr(b, "REMOTE|");
        put_cstr(b, host);
        put_cstr(b, "|");
        put_cstr(b, pct);
        put_cstr(b, "|");
        put_cstr(b, num);
        put_cstr(b, "|");
        put_cstr(b, source);
        put_cstr(b, "|");
    }
    wire_put_bytes(b, content, n);
    put_end(b);
}
