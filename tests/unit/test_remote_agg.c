/* test_remote_agg.c: the client's side of AGGREGATE frames (client/remote/session.c)
 * over a socketpair: a table a server sends in parts (flag `more` on all but
 * the last) reaches the handler once, joined, equal to the table sent; a
 * whole table passes as it is; a table cut off by another frame is dropped;
 * a server whose parts pass the client's bound is an error naming it, not
 * memory without end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/remote/session.h"
#include "exec/agg/table.h"
#include "tests/support/sockstream.h"
#include "wire/msg.h"

static const agg_spec_t specs[] = {{PLAN_AGG_COUNT, 0, 0, false, 0}, {PLAN_AGG_SUM, 0, 0, false, 0}};
enum { N_SPECS = 2 };

/* A table of n groups "key<i>" with count i + 1 and sum 2 i. */
static void make_table(agg_table_t *t, size_t n)
{
    err_t e;
    assert_int_equal(agg_table_init(t, specs, N_SPECS, &e), 0);
    for (size_t i = 0; i < n; i++) {
        char key[32];
        uint32_t kl = (uint32_t)snprintf(key + 4, sizeof key - 4, "key%zu", i);
        memcpy(key, &kl, 4);
        long g = agg_table_group(t, key, kl + 4, agg_key_hash(key, kl + 4));
        assert_true(g >= 0);
        uint32_t gid = (uint32_t)g;
        char val[32];
        sv_t v = {val, (uint32_t)snprintf(val, sizeof val, "%zu", 2 * i)};
        for (size_t k = 0; k <= i; k++)
            agg_table_update(t, 0, &gid, &v, NULL, 1);
        agg_table_update(t, 1, &gid, &v, NULL, 1);
    }
}

/* Appends table t as AGGREGATE frames of at most part_max bytes each. */
static void encode_table(wire_buf_t *b, const agg_table_t *t, size_t part_max, int final)
{
    size_t from = 0;
    do {
        size_t next, len;
        unsigned char *p = agg_table_serialize_part(t, from, part_max, &next, &len);
        assert_non_null(p);
        uint8_t flags = (uint8_t)((final ? WIRE_AGG_FINAL : 0) |
                                  (next < t->n_groups ? WIRE_AGG_MORE : 0));
        wire_encode_aggregate(b, flags, p, len);
        free(p);
        from = next;
    } while (from < t->n_groups);
}

typedef struct writer {
    int fd;                 /* the server's end */
    wire_buf_t b;           /* what it sends */
} writer_t;

static void *write_all(void *arg)
{
    writer_t *w = arg;
    stream_t s = sock_stream(&w->fd);
    err_t e;
    wire_buf_send(&w->b, &s, &e);
    close(w->fd);
    return NULL;
}

typedef struct seen {
    int calls;              /* on_aggregate calls */
    int finals;             /* of them with final set */
    unsigned char *last;    /* the last table, serialized again */
    size_t last_len;
} seen_t;

static int on_aggregate(void *ctx, const unsigned char *p, size_t len, int final, err_t *e)
{
    seen_t *s = ctx;
    agg_table_t t;
    if (agg_table_init(&t, specs, N_SPECS, e) < 0 || agg_table_merge_serialized(&t, p, len, e) < 0)
        return -1;
    free(s->last);
    s->last = agg_table_serialize(&t, &s->last_len);
    agg_table_free(&t);
    s->calls++;
    s->finals += final;
    return 0;
}

/* The handler's last table is t, byte for byte; seen starts over. */
static void assert_last_is(seen_t *seen, const agg_table_t *t)
{
    size_t len;
    unsigned char *want = agg_table_serialize(t, &len);
    assert_non_null(seen->last);
    assert_int_equal(seen->last_len, len);
    assert_memory_equal(seen->last, want, len);
    free(want);
    free(seen->last);
    *seen = (seen_t){0};
}

/* Serves wire bytes b to remote_request on a socketpair (agg_max as
 * given) and returns its result; *seen gets what the handler saw. */
static int serve(wire_buf_t *b, size_t agg_max, seen_t *seen, err_t *e)
{
    int fds[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    writer_t w = {fds[1], *b};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, write_all, &w), 0);
    remote_conn_t c;
    memset(&c, 0, sizeof c);
    c.s = sock_stream(&fds[0]);
    c.agg_max = agg_max;
    assert_int_equal(wire_reader_init(&c.r, &c.s, 0, e), 0);
    remote_handler_t h = {.ctx = seen, .on_aggregate = on_aggregate};
    client_run_t rs = {"test", 0};
    int rc = remote_request(&c, NULL, NULL, &h, &rs, e);
    wire_reader_free(&c.r);
    close(fds[0]);   /* a writer still sending sees the close and ends */
    pthread_join(th, NULL);
    return rc;
}

static void test_parts_reach_the_handler_joined(void **state)
{
    (void)state;
    agg_table_t a, b;
    make_table(&a, 700);
    make_table(&b, 3);
    wire_buf_t buf = {0};
    encode_table(&buf, &a, 500, 0);   /* many parts */
    encode_table(&buf, &b, 1 << 20, 1);   /* one frame */
    wire_encode_end(&buf, WIRE_END_OK, "");
    seen_t seen = {0};
    err_t e;
    err_clear(&e);
    assert_int_equal(serve(&buf, 0, &seen, &e), 0);
    assert_int_equal(seen.calls, 2);
    assert_int_equal(seen.finals, 1);
    assert_last_is(&seen, &b);
    /* The first table alone, in parts and final: equal to what was sent. */
    buf.len = 0;
    encode_table(&buf, &a, 500, 1);
    wire_encode_end(&buf, WIRE_END_OK, "");
    assert_int_equal(serve(&buf, 0, &seen, &e), 0);
    assert_int_equal(seen.calls, 1);
    assert_last_is(&seen, &a);
    wire_buf_free(&buf);
    agg_table_free(&a);
    agg_table_free(&b);
}

/* A table cut off (a MESSAGE where its next part was due: the server ran
 * out of memory) is dropped; the next table is not joined to its parts. */
static void test_unfinished_parts_are_dropped(void **state)
{
    (void)state;
    agg_table_t a, b;
    make_table(&a, 700);
    make_table(&b, 3);
    wire_buf_t buf = {0};
    size_t next, len;
    unsigned char *p = agg_table_serialize_part(&a, 0, 500, &next, &len);
    assert_true(next < a.n_groups);
    wire_encode_aggregate(&buf, WIRE_AGG_MORE, p, len);
    free(p);
    wire_encode_message(&buf, LOG_ERROR, "out of memory serializing the result");
    encode_table(&buf, &b, 1 << 20, 1);
    wire_encode_end(&buf, WIRE_END_OK, "");
    seen_t seen = {0};
    err_t e;
    err_clear(&e);
    assert_int_equal(serve(&buf, 0, &seen, &e), 0);
    assert_int_equal(seen.calls, 1);
    assert_last_is(&seen, &b);
    wire_buf_free(&buf);
    agg_table_free(&a);
    agg_table_free(&b);
}

static void test_parts_past_the_bound_are_an_error(void **state)
{
    (void)state;
    agg_table_t a;
    make_table(&a, 700);
    wire_buf_t buf = {0};
    encode_table(&buf, &a, 500, 1);
    wire_encode_end(&buf, WIRE_END_OK, "");
    seen_t seen = {0};
    err_t e;
    err_clear(&e);
    assert_int_equal(serve(&buf, 4 << 10, &seen, &e), -1);
    assert_non_null(strstr(e.msg, "the server's result is over"));
    assert_int_equal(seen.calls, 0);
    wire_buf_free(&buf);
    agg_table_free(&a);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);   /* a writer meeting the closed end gets EPIPE */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_reach_the_handler_joined),
        cmocka_unit_test(test_unfinished_parts_are_dropped),
        cmocka_unit_test(test_parts_past_the_bound_are_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
