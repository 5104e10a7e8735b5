/* test_wire.c: frames and messages: round trips of every message, the
 * decoder fed byte by byte and in random chunks, malformed and oversized
 * frames rejected with messages naming what and where, whole-line LINES
 * batches (with and without zstd) over a socketpair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "base/outbuf.h"
#include "tests/support/rng.h"
#include "wire/batch.h"
#include "tests/support/sockstream.h"
#include "wire/frame.h"
#include "wire/msg.h"

/* Every message once, in one buffer. */
static void encode_all(wire_buf_t *b)
{
    wire_hello_t h;
    wire_hello_init(&h, "web1.example.org");
    wire_encode_hello(b, &h);
    wire_request_t rq = {.kind = WIRE_KIND_GREP, .render = WIRE_RENDER_COLOR,
                         .flags = WIRE_REQ_INVERT | WIRE_REQ_ZSTD, .before = 2, .after = 3,
                         .max = 1ull << 40, .timeout_s = 7, .files = "/var/log/*.log,/tmp/x",
                         .regex = "a|b\xac", .query = ""};
    wire_encode_request(b, &rq);
    wire_encode_lines_head(b, 12, 0);
    wire_put_bytes(b, "line\xac" "one\nx\n", 12);
    wire_encode_aggregate(b, WIRE_AGG_FINAL, "\x01\x02\x00\x03", 4);
    wire_encode_message(b, LOG_WARN, "Unable to read file(s)");
    wire_encode_file_status(b, WIRE_FILE_DENIED, "/etc/shadow", "No permission", 14015021,
                            WIRE_COUNT_NONE);
    wire_encode_end(b, WIRE_END_PARTIAL, "done");
}

static void check_all(wire_frame_t *frames, int n)
{
    assert_int_equal(n, 7);
    err_t e;
    wire_hello_t h;
    assert_int_equal(wire_decode_hello(&frames[0], &h, &e), 0);
    assert_int_equal(h.version, WIRE_VERSION);
    assert_string_equal(h.host, "web1");
    assert_true(h.caps & WIRE_CAP_ZSTD);
    assert_true(h.caps & WIRE_CAP_FILE_COUNTS);
    wire_request_t rq;
    assert_int_equal(wire_decode_request(&frames[1], &rq, &e), 0);
    assert_int_equal(rq.kind, WIRE_KIND_GREP);
    assert_int_equal(rq.render, WIRE_RENDER_COLOR);
    assert_int_equal(rq.flags, WIRE_REQ_INVERT | WIRE_REQ_ZSTD);
    assert_int_equal(rq.before, 2);
    assert_int_equal(rq.after, 3);
    assert_true(rq.max == 1ull << 40);
    assert_int_equal(rq.timeout_s, 7);
    assert_string_equal(rq.files, "/var/log/*.log,/tmp/x");
    assert_string_equal(rq.regex, "a|b\xac");
    assert_string_equal(rq.query, "");
    wire_request_free(&rq);
    wire_msg_t m;
    assert_int_equal(wire_decode_msg(&frames[2], &m, &e), 0);
    assert_int_equal(m.type, WIRE_LINES);
    assert_int_equal(m.data.len, 12);
    assert_memory_equal(m.data.p, "line\xac" "one\nx\n", 12);
    assert_int_equal(wire_decode_msg(&frames[3], &m, &e), 0);
    assert_int_equal(m.status, 1);
    assert_int_equal(m.data.len, 4);
    assert_memory_equal(m.data.p, "\x01\x02\x00\x03", 4);
    assert_int_equal(wire_decode_msg(&frames[4], &m, &e), 0);
    assert_int_equal(m.level, LOG_WARN);
    assert_int_equal(m.text.len, strlen("Unable to read file(s)"));
    assert_int_equal(wire_decode_msg(&frames[5], &m, &e), 0);
    assert_int_equal(m.status, WIRE_FILE_DENIED);
    assert_memory_equal(m.name.p, "/etc/shadow", 11);
    assert_true(m.has_counts);
    assert_true(m.bytes == 14015021);
    assert_true(m.lines == WIRE_COUNT_NONE);
    assert_int_equal(wire_decode_msg(&frames[6], &m, &e), 0);
    assert_int_equal(m.status, WIRE_END_PARTIAL);
    assert_memory_equal(m.text.p, "done", 4);
}

/* Feeds bytes in chunks chosen by next_len and collects the frames
 * (payloads copied, since they live only until the next decoder call). */
static int decode_chunked(const unsigned char *p, size_t n, size_t (*next_len)(uint64_t *),
                          uint64_t *rng, wire_frame_t *out, unsigned char **copies)
{
    wire_decoder_t d;
    err_t e;
    assert_int_equal(wire_decoder_init(&d, 0, &e), 0);
    int k = 0;
    size_t off = 0;
    while (off < n) {
        size_t c = next_len(rng);
        if (c > n - off)
            c = n - off;
        assert_int_equal(wire_decoder_feed(&d, p + off, c, &e), 0);
        off += c;
        wire_frame_t f;
        int rc;
        while ((rc = wire_decoder_next(&d, &f, &e)) == 1) {
            copies[k] = malloc(f.len + 1);
            memcpy(copies[k], f.p, f.len);
            out[k] = f;
            out[k].p = copies[k];
            k++;
        }
        assert_int_equal(rc, 0);
    }
    assert_false(wire_decoder_pending(&d));
    wire_decoder_free(&d);
    return k;
}

static size_t one(uint64_t *rng)
{
    (void)rng;
    return 1;
}

static size_t random_len(uint64_t *rng)
{
    return 1 + rng_next(rng) % 40;
}

static void test_round_trip_byte_by_byte(void **state)
{
    (void)state;
    wire_buf_t b = {0};
    encode_all(&b);
    wire_frame_t frames[16];
    unsigned char *copies[16];
    uint64_t rng = 1;
    int n = decode_chunked(b.p, b.len, one, &rng, frames, copies);
    check_all(frames, n);
    for (int i = 0; i < n; i++)
        free(copies[i]);
    wire_buf_free(&b);
}

static void test_round_trip_random_chunks(void **state)
{
    (void)state;
    wire_buf_t b = {0};
    encode_all(&b);
    for (uint64_t seed = 1; seed < 200; seed++) {
        wire_frame_t frames[16];
        unsigned char *copies[16];
        uint64_t rng = seed * 7919;
        int n = decode_chunked(b.p, b.len, random_len, &rng, frames, copies);
        check_all(frames, n);
        for (int i = 0; i < n; i++)
            free(copies[i]);
    }
    wire_buf_free(&b);
}

/* Decodes bytes expected to be rejected; returns the error message. */
static const char *reject(const void *p, size_t n, size_t max, err_t *e)
{
    wire_decoder_t d;
    assert_int_equal(wire_decoder_init(&d, max, e), 0);
    assert_int_equal(wire_decoder_feed(&d, p, n, e), 0);
    wire_frame_t f;
    int rc = wire_decoder_next(&d, &f, e);
    wire_decoder_free(&d);
    assert_int_equal(rc, -1);
    assert_true(e->msg[0]);
    return e->msg;
}

static void test_malformed_frames(void **state)
{
    (void)state;
    err_t e;
    /* An unknown type. */
    assert_non_null(strstr(reject("\x42\x00\x00\x00\x00\x00", 6, 0, &e), "unknown frame type 0x42 at byte 0"));
    /* Unknown flags. */
    assert_non_null(strstr(reject("\x02\x80\x00\x00\x00\x00", 6, 0, &e), "unknown flags 0x80"));
    /* Compression on a frame that may not be compressed. */
    assert_non_null(strstr(reject("\x06\x01\x00\x00\x00\x00", 6, 0, &e), "only LINES"));
    /* Oversized: rejected from the header alone, before any payload. */
    assert_non_null(strstr(reject("\x02\x00\x7f\xff\xff\xff", 6, 0, &e), "oversized LINES frame at byte 0"));
    assert_non_null(strstr(reject("\x02\x00\x00\x00\x01\x01", 6, 256, &e), "257 bytes, the maximum is 256"));
    /* A bad compressed payload. */
    assert_non_null(strstr(reject("\x02\x01\x00\x00\x00\x03" "abc", 9, 0, &e), "LINES frame at byte 0"));
    /* The offset counts across frames. */
    wire_buf_t b = {0};
    wire_encode_end(&b, 0, "x");
    wire_put_bytes(&b, "\x99\x00\x00\x00\x00\x00", 6);
    char want[64];
    snprintf(want, sizeof want, "at byte %zu", b.len - 6);
    wire_decoder_t d;
    assert_int_equal(wire_decoder_init(&d, 0, &e), 0);
    assert_int_equal(wire_decoder_feed(&d, b.p, b.len, &e), 0);
    wire_frame_t f;
    assert_int_equal(wire_decoder_next(&d, &f, &e), 1);
    assert_int_equal(wire_decoder_next(&d, &f, &e), -1);
    assert_non_null(strstr(e.msg, want));
    wire_decoder_free(&d);
    wire_buf_free(&b);
}

/* --timezone travels in the REQUEST (flag 0x20, a string after the
 * palette); an empty or too long one is refused, and without the flag
 * there is none. */
static void test_request_timezone(void **state)
{
    (void)state;
    err_t e;
    wire_buf_t b = {0};
    wire_request_t rq = {.kind = WIRE_KIND_MAP, .files = "a", .regex = "", .query = "select a",
                         .flags = WIRE_REQ_TIMEZONE, .timezone = "Europe/Berlin"};
    wire_encode_request(&b, &rq);
    wire_frame_t f = {WIRE_REQUEST, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    wire_request_t got;
    assert_int_equal(wire_decode_request(&f, &got, &e), 0);
    assert_string_equal(got.timezone, "Europe/Berlin");
    assert_string_equal(got.query, "select a");
    wire_request_free(&got);
    const char *bad[] = {"", "0123456789012345678901234567890123456789012345678901234567890123"};
    for (int k = 0; k < 2; k++) {
        b.len = 0;
        rq.timezone = (char *)bad[k];
        wire_encode_request(&b, &rq);
        f = (wire_frame_t){WIRE_REQUEST, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
        assert_int_equal(wire_decode_request(&f, &got, &e), -1);
        assert_non_null(strstr(e.msg, "timezone"));
    }
    b.len = 0;
    rq.flags = 0;
    wire_encode_request(&b, &rq);
    f = (wire_frame_t){WIRE_REQUEST, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_request(&f, &got, &e), 0);
    assert_null(got.timezone);
    wire_request_free(&got);
    wire_buf_free(&b);
}

static void test_malformed_messages(void **state)
{
    (void)state;
    err_t e;
    /* Truncated fields. */
    wire_frame_t f = {WIRE_REQUEST, 0, (const unsigned char *)"\x02\x00\x00", 3};
    wire_request_t rq;
    assert_int_equal(wire_decode_request(&f, &rq, &e), -1);
    assert_non_null(strstr(e.msg, "malformed REQUEST"));
    /* A string length past the end. */
    wire_buf_t b = {0};
    size_t at = wire_frame_begin(&b, WIRE_MESSAGE, 0);
    wire_put_u8(&b, LOG_INFO);
    wire_put_u32(&b, 1000);
    wire_put_bytes(&b, "short", 5);
    wire_frame_end(&b, at);
    f = (wire_frame_t){WIRE_MESSAGE, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    wire_msg_t m;
    assert_int_equal(wire_decode_msg(&f, &m, &e), -1);
    assert_non_null(strstr(e.msg, "malformed MESSAGE"));
    /* A string with a NUL where a path is expected. */
    b.len = 0;
    wire_request_t bad = {.kind = WIRE_KIND_CAT, .files = "a", .regex = "", .query = ""};
    wire_encode_request(&b, &bad);
    /* The files string "a" is at the end minus two empty strings (8 bytes). */
    b.p[b.len - 9] = '\0';
    f = (wire_frame_t){WIRE_REQUEST, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_request(&f, &rq, &e), -1);
    /* Unknown kind and render. */
    b.len = 0;
    bad.kind = 9;
    wire_encode_request(&b, &bad);
    f = (wire_frame_t){WIRE_REQUEST, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_request(&f, &rq, &e), -1);
    assert_non_null(strstr(e.msg, "unknown kind 9"));
    /* AGGREGATE flags: final and more (a part) are known, others not. */
    b.len = 0;
    wire_encode_aggregate(&b, WIRE_AGG_FINAL | WIRE_AGG_MORE, "DTAG", 4);
    f = (wire_frame_t){WIRE_AGGREGATE, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
    assert_int_equal(m.status, WIRE_AGG_FINAL | WIRE_AGG_MORE);
    b.len = 0;
    wire_encode_aggregate(&b, 4, "DTAG", 4);
    f = (wire_frame_t){WIRE_AGGREGATE, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_msg(&f, &m, &e), -1);
    assert_non_null(strstr(e.msg, "malformed AGGREGATE"));
    /* HELLO without magic or with another version. */
    f = (wire_frame_t){WIRE_HELLO, 0, (const unsigned char *)"protocol", 8};
    wire_hello_t h;
    assert_int_equal(wire_decode_hello(&f, &h, &e), -1);
    assert_non_null(strstr(e.msg, "magic"));
    b.len = 0;
    wire_hello_init(&h, "x");
    h.version = 99;
    wire_encode_hello(&b, &h);
    f = (wire_frame_t){WIRE_HELLO, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_hello(&f, &h, &e), -1);
    assert_non_null(strstr(e.msg, "version 99"));
    /* Trailing bytes are ignored (later minor versions append fields). */
    b.len = 0;
    at = wire_frame_begin(&b, WIRE_END, 0);
    wire_put_u8(&b, 0);
    wire_put_str(&b, "ok");
    wire_put_u64(&b, 42);
    wire_frame_end(&b, at);
    f = (wire_frame_t){WIRE_END, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
    wire_buf_free(&b);
}

typedef struct reader_arg {
    int fd;                      /* read end */
    unsigned char *got;          /* concatenated LINES payloads */
    size_t len;                  /* bytes */
    int frames;                  /* LINES frames */
    int all_whole;               /* every frame ended in '\n' */
} reader_arg_t;

static void *collect(void *arg)
{
    reader_arg_t *ra = arg;
    stream_t s = sock_stream(&ra->fd);
    wire_reader_t r;
    err_t e;
    assert_int_equal(wire_reader_init(&r, &s, 0, &e), 0);
    wire_frame_t f;
    ra->all_whole = 1;
    while (wire_read_frame(&r, &f, &e) == 1) {
        wire_msg_t m;
        assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
        ra->got = realloc(ra->got, ra->len + m.data.len);
        memcpy(ra->got + ra->len, m.data.p, m.data.len);
        ra->len += m.data.len;
        ra->frames++;
        if (!m.data.len || m.data.p[m.data.len - 1] != '\n')
            ra->all_whole = 0;
    }
    wire_reader_free(&r);
    return NULL;
}

static void batch_case(int zlevel)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    reader_arg_t ra = {.fd = sv[1]};
    pthread_t th;
    pthread_create(&th, NULL, collect, &ra);
    stream_t s = sock_stream(&sv[0]);
    wire_batch_t b;
    err_t e;
    assert_int_equal(wire_batch_init(&b, &s, NULL, zlevel, &e), 0);
    outbuf_t out;
    assert_int_equal(outbuf_init_sink(&out, 1000, wire_batch_sink, &b, &e), 0);
    /* Lines of random lengths, appended in random pieces, plus one large
     * direct write: whole lines arrive, in order, nothing lost. */
    size_t cap = 4 << 20, n = 0;
    char *want = malloc(cap);
    uint64_t rng = 99;
    while (n < 300000) {
        size_t ll = rng_next(&rng) % 700;
        for (size_t i = 0; i < ll; i++)
            want[n + i] = (char)('a' + rng_next(&rng) % 26);
        want[n + ll] = '\n';
        size_t pos = 0;
        while (pos <= ll) {
            size_t piece = 1 + rng_next(&rng) % 300;
            if (piece > ll + 1 - pos)
                piece = ll + 1 - pos;
            outbuf_append(&out, want + n + pos, piece);
            pos += piece;
        }
        n += ll + 1;
    }
    size_t big = 2000000;
    for (size_t i = 0; i < big; i++)
        want[n + i] = (i % 100 == 99) ? '\n' : 'z';
    outbuf_write_direct(&out, want + n, big);
    n += big;
    outbuf_flush(&out);
    assert_false(out.failed);
    assert_int_equal(wire_batch_finish(&b, &e), 0);
    close(sv[0]);
    pthread_join(th, NULL);
    assert_int_equal(ra.len, n);
    assert_memory_equal(ra.got, want, n);
    assert_true(ra.all_whole);
    assert_true(ra.frames > 10);
    outbuf_free(&out);
    wire_batch_free(&b);
    free(ra.got);
    free(want);
    close(sv[1]);
}

/* FILE_STATUS as a server before the counts sends it (status, name,
 * detail): decoded with has_counts 0; the counts as they are sent. */
static void test_file_status_counts(void **state)
{
    (void)state;
    err_t e;
    wire_buf_t b = {0};
    size_t at = wire_frame_begin(&b, WIRE_FILE_STATUS, 0);
    wire_put_u8(&b, WIRE_FILE_OK);
    wire_put_str(&b, "/var/log/a.log");
    wire_put_str(&b, "");
    wire_frame_end(&b, at);
    wire_frame_t f = {WIRE_FILE_STATUS, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    wire_msg_t m;
    assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
    assert_int_equal(m.status, WIRE_FILE_OK);
    assert_false(m.has_counts);
    assert_true(m.bytes == WIRE_COUNT_NONE && m.lines == WIRE_COUNT_NONE);
    b.len = 0;
    wire_encode_file_status(&b, WIRE_FILE_ERROR, "/var/log/b.log", "truncated", 4096, 77);
    f = (wire_frame_t){WIRE_FILE_STATUS, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
    assert_true(m.has_counts);
    assert_true(m.bytes == 4096 && m.lines == 77);
    assert_memory_equal(m.text.p, "truncated", 9);
    wire_buf_free(&b);
}

static void test_batch_whole_lines(void **state)
{
    (void)state;
    batch_case(0);
}

static void test_batch_zstd(void **state)
{
    (void)state;
    batch_case(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_byte_by_byte),
        cmocka_unit_test(test_round_trip_random_chunks),
        cmocka_unit_test(test_malformed_frames),
        cmocka_unit_test(test_malformed_messages),
        cmocka_unit_test(test_request_timezone),
        cmocka_unit_test(test_file_status_counts),
        cmocka_unit_test(test_batch_whole_lines),
        cmocka_unit_test(test_batch_zstd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
