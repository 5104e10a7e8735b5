/* hello.c: see hello.h. */
#include "client/remote/hello.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "client/remote/ssh.h"
#include "wire/hello_early.h"

/* The first bytes of a DTail 4.1 server's messages. */
static int dt41_start(unsigned char c)
{
    return c == '.' || c == 'S' || c == 'R' || c == 'A';
}

/* The first bytes of an answer in neither protocol, shown in a message. */
static void shown(const wire_reader_t *r, char *out, size_t cap)
{
    const unsigned char *p;
    size_t n = wire_decoder_unread(&r->dec, &p);
    size_t k = 0;
    for (size_t i = 0; i < n && i < 24 && k + 5 < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, isprint(p[i]) && p[i] != '\\' ? "%c" : "\\x%02x", p[i]);
    out[k] = 0;
}

int remote_hello(stream_t *s, wire_reader_t *r, const char *me, int timeout_ms,
                 const wire_request_t *early, int *early_taken, wire_hello_t *server, err_t *e)
{
    wire_buf_t b = {0};
    wire_hello_t mine;
    wire_hello_init(&mine, me);
    int carried = wire_encode_hello_early(&b, &mine, early);
    if (early_taken)
        *early_taken = 0;
    wire_put_u8(&b, WIRE_HELLO_END);
    int rc = wire_buf_send(&b, s, e);
    wire_buf_free(&b);
    if (rc < 0)
        return -1;
    long long wait = timeout_ms > 0 ? timeout_ms : 2000;
    long long deadline = clock_now_ms() + wait;
    ssh_client_read_deadline(s, deadline);
    unsigned char first = 0;
    rc = wire_reader_peek(r, &first, e);
    ssh_client_read_deadline(s, 0);
    if (rc == 0 && clock_now_ms() >= deadline)
        return err_set(e, ERR_IO, "the server said nothing within %lld ms (the connect timeout): "
                                  "it speaks neither the DTail C protocol nor DTail 4.1", wait);
    if (rc == 0)
        return err_set(e, ERR_IO, "the server closed the connection before its HELLO");
    if (rc < 0)
        return -1;
    if (first == WIRE_HELLO) {
        wire_frame_t f;
        rc = wire_read_frame(r, &f, e);
        if (rc == 0)
            return err_set(e, ERR_IO, "the server closed the connection inside its HELLO");
        if (rc < 0 || wire_decode_hello(&f, server, e) < 0)
            return -1;
        if (early_taken)
            *early_taken = carried && (server->caps & WIRE_CAP_EARLY_REQUEST);
        return REMOTE_PROTO_C;
    }
    if (dt41_start(first))
        return REMOTE_PROTO_DT41;
    char text[128];
    shown(r, text, sizeof text);
    return err_set(e, ERR_IO, "the server speaks neither the DTail C protocol nor DTail 4.1: "
                              "it answered \"%s\"", text);
}
