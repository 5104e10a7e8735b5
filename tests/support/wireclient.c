/* wireclient.c: a bare client of the wire protocol over the real SSH
 * transport (client/remote/ssh.h), for the server-mode e2e tests and the
 * benchmarks: it sends what the real clients never send.
 *
 *   wireclient SERVER KEY raw HEX       HELLO, then the bytes HEX as they
 *                                      are; prints each MESSAGE and END
 *                                      text on stdout until the server
 *                                      closes
 *   wireclient SERVER KEY idle -        HELLO, prints "ready", then sends
 *                                      nothing and prints what the server
 *                                      says until it closes ("closed");
 *                                      KEY "health" logs in as the health
 *                                      user with its password
 *   wireclient SERVER KEY exthealth -   an optional extension frame (0xE5),
 *                                      then a HEALTH request; prints the
 *                                      MESSAGE frames, exits at END
 *   wireclient SERVER KEY tail FILES [REGEX [TIMEOUT_S]]
 *                                      a plain-rendered TAIL request: LINES
 *                                      to stdout as they come, FILE_STATUS
 *                                      and END to stderr; exits at END
 *
 * Exit status: 0 after END (raw: after the server closed), 1 on errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/remote/ssh.h"
#include "wire/frame.h"
#include "wire/msg.h"

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int write_out(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Prints frames until END (stop_at_end) or the stream ends. */
static int receive(wire_reader_t *r, int stop_at_end, err_t *e)
{
    for (;;) {
        wire_frame_t f;
        int rc = wire_read_frame(r, &f, e);
        if (rc <= 0)
            return rc;
        wire_msg_t m;
        if (wire_decode_msg(&f, &m, e) < 0)
            return -1;
        switch (m.type) {
        case WIRE_LINES:
            if (write_out(STDOUT_FILENO, m.data.p, m.data.len) < 0)
                return err_set(e, ERR_IO, "stdout: write failed");
            break;
        case WIRE_MESSAGE:
            printf("MESSAGE %d %.*s\n", m.level, (int)m.text.len, m.text.p);
            fflush(stdout);
            break;
        case WIRE_FILE_STATUS:
            fprintf(stderr, "FILE_STATUS %d %.*s|%.*s\n", m.status, (int)m.name.len, m.name.p,
                    (int)m.text.len, m.text.p);
            break;
        case WIRE_END:
            fprintf(stderr, "END %d %.*s\n", m.status, (int)m.text.len, m.text.p);
            if (!stop_at_end)
                printf("END %d %.*s\n", m.status, (int)m.text.len, m.text.p);
            fflush(stdout);
            if (stop_at_end)
                return 1;
            break;
        default:
            break;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: wireclient HOST:PORT KEY raw HEX | tail FILES [REGEX [TIMEOUT_S]]\n");
        return 2;
    }
    err_t e;
    err_clear(&e);
    char host[256];
    int port;
    if (ssh_client_parse_server(argv[1], 2222, host, sizeof host, &port, &e) < 0) {
        fprintf(stderr, "wireclient: %s\n", e.msg);
        return 2;
    }
    ssh_client_opts_t so = {.key_path = argv[2], .trust_all_hosts = 1, .connect_timeout_ms = 30000};
    if (strcmp(argv[2], "health") == 0)
        so = (ssh_client_opts_t){.user = "DTAIL-HEALTH", .password = "DTAIL-HEALTH",
                                 .no_host_key_check = 1, .connect_timeout_ms = 30000};
    stream_t s;
    if (ssh_client_open(host, port, &so, &s, &e) < 0) {
        fprintf(stderr, "wireclient: %s\n", e.msg);
        return 1;
    }
    wire_reader_t r;
    wire_buf_t b = {0};
    wire_hello_t h;
    wire_frame_t f;
    int rc = wire_reader_init(&r, &s, 0, &e);
    if (rc == 0) {
        wire_hello_init(&h, "wireclient");
        wire_encode_hello(&b, &h);
        rc = wire_buf_send(&b, &s, &e);
    }
    if (rc == 0 && (rc = wire_read_frame(&r, &f, &e)) == 1)
        rc = 0;
    else if (rc == 0)
        rc = err_set(&e, ERR_IO, "no HELLO from the server");
    if (rc == 0 && strcmp(argv[3], "raw") == 0) {
        size_t n = strlen(argv[4]) / 2;
        unsigned char *bytes = malloc(n + 1);
        for (size_t i = 0; bytes && i < n; i++) {
            int hi = hexval(argv[4][2 * i]), lo = hexval(argv[4][2 * i + 1]);
            bytes[i] = (unsigned char)(hi < 0 || lo < 0 ? 0 : hi * 16 + lo);
        }
        rc = bytes ? stream_write(&s, bytes, n, &e) : err_set(&e, ERR_NOMEM, "out of memory");
        free(bytes);
        if (rc == 0)
            rc = receive(&r, 0, &e) < 0 ? -1 : 0;
    } else if (rc == 0 && strcmp(argv[3], "idle") == 0) {
        printf("ready\n");
        fflush(stdout);
        rc = receive(&r, 0, &e) < 0 ? -1 : 0;
        printf("closed\n");
    } else if (rc == 0 && strcmp(argv[3], "exthealth") == 0) {
        static const unsigned char ext[] = {0xE5, 0, 0, 0, 0, 1, 'x'};
        wire_request_t rq = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
        b.len = 0;
        wire_encode_request(&b, &rq);
        rc = stream_write(&s, ext, sizeof ext, &e);
        if (rc == 0)
            rc = wire_buf_send(&b, &s, &e);
        if (rc == 0) {
            int got = receive(&r, 1, &e);
            rc = got < 0 ? -1 : got == 0 ? err_set(&e, ERR_IO, "the stream ended before END") : 0;
        }
    } else if (rc == 0 && strcmp(argv[3], "tail") == 0) {
        wire_request_t rq = {.kind = WIRE_KIND_TAIL, .render = WIRE_RENDER_PLAIN, .files = argv[4],
                             .regex = argc > 5 ? argv[5] : "", .query = "",
                             .timeout_s = argc > 6 ? (uint32_t)atoi(argv[6]) : 0};
        b.len = 0;
        wire_encode_request(&b, &rq);
        rc = wire_buf_send(&b, &s, &e);
        if (rc == 0) {
            int got = receive(&r, 1, &e);
            rc = got < 0 ? -1 : got == 0 ? err_set(&e, ERR_IO, "the stream ended before END") : 0;
        }
    } else if (rc == 0) {
        rc = err_set(&e, ERR_USAGE, "unknown mode %s", argv[3]);
    }
    if (rc < 0)
        fprintf(stderr, "wireclient: %s\n", e.msg);
    wire_buf_free(&b);
    wire_reader_free(&r);
    stream_close(&s);
    return rc < 0 ? 1 : 0;
}
