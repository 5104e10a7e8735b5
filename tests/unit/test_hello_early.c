/* test_hello_early.c: a REQUEST carried in the HELLO: it decodes back to
 * the same request, no byte of the HELLO is the ';' a DTail 4.1 server
 * would cut its command at (for every payload length around the pad's
 * choice and a 59-byte host), a plain HELLO has no early request, and a
 * damaged one is refused naming what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "wire/frame.h"
#include "wire/hello_early.h"
#include "wire/msg.h"

static wire_frame_t frame_of(const wire_buf_t *b)
{
    assert_true(b->len >= WIRE_HEADER_LEN);
    return (wire_frame_t){.type = b->p[0], .flags = b->p[1], .p = b->p + WIRE_HEADER_LEN,
                          .len = b->len - WIRE_HEADER_LEN};
}

static void test_round_trip(void **state)
{
    (void)state;
    wire_hello_t h;
    wire_hello_init(&h, "client1.example.org");
    wire_request_t rq = {.kind = WIRE_KIND_GREP, .render = WIRE_RENDER_REMOTE,
                         .flags = WIRE_REQ_INVERT, .before = 1, .after = 2, .max = 3,
                         .files = "/var/log/a.log,/var/log/b;c.log", .regex = "x;y",
                         .query = ""};
    wire_buf_t b = {0};
    assert_int_equal(wire_encode_hello_early(&b, &h, &rq), 1);
    assert_null(memchr(b.p, WIRE_HELLO_END, b.len));
    wire_frame_t f = frame_of(&b);
    err_t e;
    wire_hello_t back;
    assert_int_equal(wire_decode_hello(&f, &back, &e), 0);
    assert_string_equal(back.host, "client1");
    wire_early_t early;
    assert_int_equal(wire_hello_early_request(&f, WIRE_MAX_PAYLOAD, &early, &e), 1);
    wire_request_t got;
    assert_int_equal(wire_decode_request(&early.frame, &got, &e), 0);
    assert_int_equal(got.kind, WIRE_KIND_GREP);
    assert_int_equal(got.flags, WIRE_REQ_INVERT);
    assert_int_equal(got.after, 2);
    assert_string_equal(got.files, rq.files);
    assert_string_equal(got.regex, "x;y");
    wire_request_free(&got);
    free(early.buf);
    /* Over a server's frame limit: refused by size. */
    assert_int_equal(wire_hello_early_request(&f, 10, &early, &e), -1);
    assert_non_null(strstr(e.msg, "over the limit of 10"));
    wire_buf_free(&b);
}

/* Every payload length over a range of 300 bytes, so that the low length
 * byte passes ';' (0x3B) more than once, and a 59-byte host. */
static void test_no_hello_end_byte(void **state)
{
    (void)state;
    char files[400];
    for (int host59 = 0; host59 < 2; host59++) {
        for (size_t n = 1; n < 300; n++) {
            memset(files, 'f', n);
            files[n] = 0;
            wire_hello_t h;
            wire_hello_init(&h, host59 ? "h2345678901234567890123456789012345678901234567890123456789"
                                       : "web1");
            wire_request_t rq = {.kind = WIRE_KIND_CAT, .files = files, .regex = "", .query = ""};
            wire_buf_t b = {0};
            assert_int_equal(wire_encode_hello_early(&b, &h, &rq), 1);
            assert_null(memchr(b.p, WIRE_HELLO_END, b.len));
            wire_frame_t f = frame_of(&b);
            err_t e;
            wire_hello_t back;
            assert_int_equal(wire_decode_hello(&f, &back, &e), 0);
            assert_true(strlen(back.host) != WIRE_HELLO_END);
            wire_early_t early;
            assert_int_equal(wire_hello_early_request(&f, WIRE_MAX_PAYLOAD, &early, &e), 1);
            free(early.buf);
            wire_buf_free(&b);
        }
    }
}

static void test_plain_and_too_large(void **state)
{
    (void)state;
    wire_hello_t h;
    wire_hello_init(&h, "web1");
    wire_buf_t b = {0};
    wire_encode_hello(&b, &h);
    wire_frame_t f = frame_of(&b);
    err_t e;
    wire_early_t early;
    assert_int_equal(wire_hello_early_request(&f, WIRE_MAX_PAYLOAD, &early, &e), 0);
    assert_null(early.buf);
    wire_buf_free(&b);
    /* A request too large to ride along: a plain HELLO, sent on its own. */
    size_t n = WIRE_EARLY_MAX;
    char *big = malloc(n + 1);
    memset(big, 'q', n);
    big[n] = 0;
    wire_request_t rq = {.kind = WIRE_KIND_MAP, .files = "/x", .regex = "", .query = big};
    assert_int_equal(wire_encode_hello_early(&b, &h, &rq), 0);
    f = frame_of(&b);
    assert_int_equal(wire_hello_early_request(&f, WIRE_MAX_PAYLOAD, &early, &e), 0);
    free(big);
    wire_buf_free(&b);
}

/* A HELLO with the early field as given (base64 text). */
static void hello_with(wire_buf_t *b, const char *early)
{
    size_t at = wire_frame_begin(b, WIRE_HELLO, 0);
    wire_put_bytes(b, WIRE_MAGIC, WIRE_MAGIC_LEN);
    wire_put_u16(b, WIRE_VERSION);
    wire_put_u32(b, 0);
    wire_put_str(b, "h");
    wire_put_str(b, "s");
    wire_put_str(b, early);
    wire_frame_end(b, at);
}

static void test_damaged(void **state)
{
    (void)state;
    struct {
        const char *early;
        const char *says;
    } cases[] = {
        {"!!!!", "not base64 (at character 0)"},
        {"AQAAAA==", "not one whole REQUEST frame"},    /* 4 bytes: no header */
        {"AgAAAAAA", "not one whole REQUEST frame"},    /* type LINES */
        {"AQAAAAAF", "not one whole REQUEST frame"},    /* length 5, nothing */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wire_buf_t b = {0};
        hello_with(&b, cases[i].early);
        wire_frame_t f = frame_of(&b);
        err_t e;
        wire_early_t early;
        assert_int_equal(wire_hello_early_request(&f, WIRE_MAX_PAYLOAD, &early, &e), -1);
        if (!strstr(e.msg, cases[i].says))
            fail_msg("case %zu: %s", i, e.msg);
        assert_null(early.buf);
        wire_buf_free(&b);
    }
    /* A truncated early field. */
    wire_buf_t b = {0};
    hello_with(&b, "AQAAAAAA");
    wire_frame_t f = frame_of(&b);
    f.len -= 3;
    err_t e;
    wire_early_t early;
    assert_int_equal(wire_hello_early_request(&f, WIRE_MAX_PAYLOAD, &early, &e), -1);
    assert_non_null(strstr(e.msg, "truncated"));
    wire_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_no_hello_end_byte),
        cmocka_unit_test(test_plain_and_too_large),
        cmocka_unit_test(test_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
