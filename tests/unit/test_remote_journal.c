/* test_remote_journal.c: a request with journal targets goes only to a
 * server that reads them: ours with HELLO capability `journal`, a Go
 * dserver whose `.syn capabilities` say journal-v1. To one without, the
 * client sends nothing, shows DTail's error as the server's and exits 1
 * (DTail's MissingJournalCapability), and marks the connection so that a
 * follow does not try again. Over a socketpair, with the real
 * remote_request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/remote/session.h"
#include "tests/support/sockstream.h"
#include "wire/msg.h"

typedef struct peer {
    int fds[2];                  /* [0] the client's end, [1] the server's */
    remote_conn_t c;
    char err[4096];              /* what the client wrote to stderr */
} peer_t;

static void peer_open(peer_t *p, int dt41, uint32_t caps)
{
    memset(p, 0, sizeof *p);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, p->fds), 0);
    p->c.s = sock_stream(&p->fds[0]);
    err_t e;
    assert_int_equal(wire_reader_init(&p->c.r, &p->c.s, 0, &e), 0);
    p->c.dt41 = dt41;
    p->c.server.caps = caps;
    snprintf(p->c.server.host, sizeof p->c.server.host, "srv");
}

static void peer_close(peer_t *p)
{
    wire_reader_free(&p->c.r);
    close(p->fds[0]);
    close(p->fds[1]);
}

/* What the server's end has received (without waiting). */
static size_t received(peer_t *p, char *buf, size_t cap)
{
    fcntl(p->fds[1], F_SETFL, O_NONBLOCK);
    ssize_t n = read(p->fds[1], buf, cap - 1);
    n = n < 0 ? 0 : n;
    buf[n] = 0;
    return (size_t)n;
}

/* remote_request of files through p, stderr caught in p->err. */
static int request(peer_t *p, const char *files, client_run_t *rs)
{
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_PLAIN,
                         .files = (char *)files, .regex = "", .query = ""};
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fileno(tmp), STDERR_FILENO);
    err_t e;
    err_clear(&e);
    int rc = remote_request(&p->c, &rq, NULL, NULL, rs, &e);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    size_t n = fread(p->err, 1, sizeof p->err - 1, tmp);
    p->err[n] = 0;
    fclose(tmp);
    if (rc != 0)
        fail_msg("remote_request: %s", e.msg);
    return rc;
}

static const char refusal[] = "SERVER|srv|ERROR|journal file targets require server capability "
                              "journal-v1\n";

static void test_ours_without_capability(void **state)
{
    (void)state;
    peer_t p;
    peer_open(&p, 0, WIRE_CAP_ZSTD | WIRE_CAP_FILE_COUNTS);
    client_run_t rs = {"test", 0};
    request(&p, "/var/log/a.log, journal:test.service", &rs);
    assert_int_equal(rs.status, 1);
    assert_true(p.c.cannot_serve);
    assert_string_equal(p.err, refusal);
    char got[4096];
    assert_int_equal(received(&p, got, sizeof got), 0);   /* nothing was sent */
    peer_close(&p);
}

/* With the capability, or without journal targets, the REQUEST goes. */
static void request_goes(uint32_t caps, const char *files)
{
    peer_t p;
    peer_open(&p, 0, caps);
    wire_buf_t end = {0};
    wire_encode_end(&end, WIRE_END_OK, "");
    assert_int_equal(write(p.fds[1], end.p, end.len), (ssize_t)end.len);
    wire_buf_free(&end);
    client_run_t rs = {"test", 0};
    request(&p, files, &rs);
    assert_int_equal(rs.status, 0);
    assert_false(p.c.cannot_serve);
    assert_string_equal(p.err, "");
    char got[4096];
    assert_true(received(&p, got, sizeof got) > 0);
    assert_int_equal((unsigned char)got[0], WIRE_REQUEST);
    peer_close(&p);
}

static void test_ours_with_capability(void **state)
{
    (void)state;
    request_goes(WIRE_CAP_FILE_COUNTS | WIRE_CAP_JOURNAL, "journal:test.service");
    request_goes(WIRE_CAP_FILE_COUNTS, "/var/log/a.log,/var/log/journal:x");
}

/* A Go dserver: its first message says what it can. */
static void go_server(const char *first, int want_sent)
{
    peer_t p;
    peer_open(&p, 1, 0);
    static const char close_msg[] = ".syn close connection\xac";
    assert_int_equal(write(p.fds[1], first, strlen(first)), (ssize_t)strlen(first));
    if (want_sent)
        assert_int_equal(write(p.fds[1], close_msg, sizeof close_msg - 1),
                         (ssize_t)(sizeof close_msg - 1));
    client_run_t rs = {"test", 0};
    request(&p, "journal:test.service", &rs);
    char got[4096];
    size_t n = received(&p, got, sizeof got);
    if (want_sent) {
        assert_int_equal(rs.status, 0);
        assert_false(p.c.cannot_serve);
        assert_non_null(strstr(got, "protocol 4.1 base64 "));   /* the cat command */
    } else {
        assert_int_equal(rs.status, 1);
        assert_true(p.c.cannot_serve);
        assert_non_null(strstr(p.err, refusal));   /* after what the server said */
        assert_int_equal(n, 0);
    }
    peer_close(&p);
}

static void test_go_capabilities(void **state)
{
    (void)state;
    go_server(".syn capabilities query-update-v1 journal-v1\xac", 1);
    go_server(".syn capabilities journal-v1 query-update-v1\xac", 1);
    go_server(".syn capabilities query-update-v1\xac", 0);
    go_server(".syn capabilities query-update-v1 journal-v10\xac", 0);
    /* the refusal of our HELLO does not count: the capabilities after it do */
    go_server("SERVER|srv|ERROR|the DTail server protocol version '4.1' does not match client "
              "protocol version 'x'\xac.syn capabilities query-update-v1 journal-v1\xac", 1);
    /* an upstream dserver has none: its first message is something else */
    go_server("SERVER|srv|ERROR|unknown protocol version\xac", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ours_without_capability),
        cmocka_unit_test(test_ours_with_capability),
        cmocka_unit_test(test_go_capabilities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
