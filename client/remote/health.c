/* health.c: one HEALTH request through the wire protocol. */
#include "client/remote/health.h"

#include <string.h>

#include "client/remote/dt41.h"
#include "client/remote/hello.h"
#include "client/remote/ssh.h"
#include "wire/frame.h"
#include "wire/msg.h"

static int says_ok(const wire_view_t *t)
{
    size_t i = t->len;
    while (i > 0 && t->p[i - 1] != '|')
        i--;
    return t->len - i == 2 && memcmp(t->p + i, "OK", 2) == 0;
}

/* "WARNING|why" or "CRITICAL|why" from a dserver whose limits are
 * saturated or wedged: the status, with why in e. */
static int says_trouble(const wire_view_t *t, enum health_status *st, err_t *e)
{
    static const struct { const char *word; enum health_status st; } kinds[] = {
        {"WARNING|", HEALTH_WARNING}, {"CRITICAL|", HEALTH_CRITICAL}};
    for (size_t k = 0; k < 2; k++) {
        size_t n = strlen(kinds[k].word);
        if (t->len >= n && memcmp(t->p, kinds[k].word, n) == 0) {
            *st = kinds[k].st;
            err_set(e, ERR_IO, "%.*s", (int)(t->len - n), t->p + n);
            return 1;
        }
    }
    return 0;
}

static enum health_status converse(stream_t *s, int timeout_ms, err_t *e)
{
    wire_reader_t r;
    if (wire_reader_init(&r, s, 0, e) < 0)
        return HEALTH_CRITICAL;
    wire_hello_t server;
    wire_request_t rq = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
    int taken;
    int proto = remote_hello(s, &r, "dtailhealth", timeout_ms, &rq, &taken, &server, e);
    if (proto == REMOTE_PROTO_DT41) {
        int ok = remote_dt41_health(s, &r, e);
        wire_reader_free(&r);
        return ok == 1 ? HEALTH_OK : HEALTH_CRITICAL;
    }
    int rc = proto < 0 ? -1 : 0;
    if (rc == 0 && !taken) {
        wire_buf_t b = {0};
        wire_encode_request(&b, &rq);
        rc = wire_buf_send(&b, s, e);
        wire_buf_free(&b);
    }
    if (rc < 0) {
        wire_reader_free(&r);
        return HEALTH_CRITICAL;
    }
    enum health_status st = HEALTH_CRITICAL;
    int trouble = 0;
    for (;;) {
        wire_frame_t f;
        int got = wire_read_frame(&r, &f, e);
        if (got <= 0) {
            if (got == 0)
                err_set(e, ERR_IO, "the server closed the connection before END");
            st = HEALTH_CRITICAL;
            break;
        }
        if (f.type == WIRE_HELLO)
            continue;
        wire_msg_t m;
        if (wire_decode_msg(&f, &m, e) < 0) {
            st = HEALTH_CRITICAL;
            break;
        }
        if (m.type == WIRE_MESSAGE && !trouble && says_ok(&m.text))
            st = HEALTH_OK;
        if (m.type == WIRE_MESSAGE && says_trouble(&m.text, &st, e))
            trouble = 1;
        if (m.type == WIRE_END) {
            if (st != HEALTH_OK && !trouble)
                err_set(e, ERR_IO, "the server did not answer OK");
            break;
        }
    }
    wire_reader_free(&r);
    return st;
}

enum health_status health_check_run(const char *host, int port, int connect_timeout_ms, err_t *e)
{
    ssh_client_opts_t o = {.user = "DTAIL-HEALTH", .password = "DTAIL-HEALTH",
                           .no_host_key_check = 1, .connect_timeout_ms = connect_timeout_ms};
    stream_t s;
    if (ssh_client_open(host, port, &o, &s, e) < 0)
        return HEALTH_CRITICAL;
    enum health_status st = converse(&s, connect_timeout_ms, e);
    stream_close(&s);
    return st;
}
