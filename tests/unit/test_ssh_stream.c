/* test_ssh_stream.c: the shared SSH stream adapter (transport/ssh_stream.h)
 * over a fake libssh: buffered and direct reads, the end of the stream,
 * read_ends, writes in pieces, and the stall policy (told, timed out,
 * recovered). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "transport/ssh_stream.h"

/* The fake channel: bytes to read, what writes accept. */
static struct {
    const char *in;        /* unread input */
    size_t in_len;
    int eof;               /* after the input */
    int reads;             /* calls */
    uint32_t last_want;    /* count asked by the last read */
    char out[1 << 20];
    size_t out_len;
    int write_limit;       /* bytes a write takes at most (0: all) */
    int writes_blocked;    /* writes take nothing */
    int flush_rc;          /* what blocking_flush answers */
    int closed;
    int stall_told[2];     /* tell(0), tell(1) counts */
} fake;

static int f_read(ssh_channel ch, void *dest, uint32_t count, int is_stderr, int timeout)
{
    (void)ch, (void)is_stderr, (void)timeout;
    fake.reads++;
    fake.last_want = count;
    size_t k = fake.in_len < count ? fake.in_len : count;
    memcpy(dest, fake.in, k);
    fake.in += k;
    fake.in_len -= k;
    return (int)k;
}
static int f_write(ssh_channel ch, const void *data, uint32_t len)
{
    (void)ch;
    if (fake.writes_blocked)
        return 0;
    uint32_t k = fake.write_limit && len > (uint32_t)fake.write_limit ? (uint32_t)fake.write_limit : len;
    memcpy(fake.out + fake.out_len, data, k);
    fake.out_len += k;
    return (int)k;
}
static int f_eof(ssh_channel ch) { (void)ch; return fake.eof && fake.in_len == 0; }
static int f_closed(ssh_channel ch) { (void)ch; return fake.closed; }
static socket_t f_fd(ssh_session s) { (void)s; return -1; }   /* poll on -1 returns at once */
static const char *f_error(void *s) { (void)s; return "fake error"; }
static int f_flush(ssh_session s, int timeout) { (void)s, (void)timeout; return fake.flush_rc; }

static const ssh_stream_calls_t calls = {f_read, f_write, f_eof, f_closed, f_fd, f_error, f_flush};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void setup_stream(ssh_stream_t *st, size_t read_max)
{
    memset(&fake, 0, sizeof fake);
    memset(st, 0, sizeof *st);
    st->api = &calls;
    st->mu = &mu;
    snprintf(st->who, sizeof st->who, "the fake");
    st->read_max = read_max;
    err_t e;
    assert_int_equal(ssh_stream_init(st, &e), 0);
}

static void test_buffered_reads(void **state)
{
    (void)state;
    ssh_stream_t st;
    setup_stream(&st, 64);
    fake.in = "hello world";
    fake.in_len = 11;
    fake.eof = 1;
    char b[4];
    err_t e;
    /* One libssh read of read_max bytes serves the small reads. */
    assert_int_equal(ssh_stream_read(&st, b, 4, &e), 4);
    assert_memory_equal(b, "hell", 4);
    assert_int_equal(fake.last_want, 64);
    assert_int_equal(ssh_stream_read(&st, b, 4, &e), 4);
    assert_int_equal(ssh_stream_read(&st, b, 4, &e), 3);
    assert_memory_equal(b, "rld", 3);
    assert_int_equal(fake.reads, 1);
    assert_int_equal(ssh_stream_read(&st, b, 4, &e), 0);   /* end of stream */
    ssh_stream_free(&st);
}

static int ends(void *ctx)
{
    int *n = ctx;
    return ++*n >= 3;
}

static void test_direct_reads_and_ends(void **state)
{
    (void)state;
    ssh_stream_t st;
    setup_stream(&st, 0);
    fake.in = "abc";
    fake.in_len = 3;
    char b[100];
    err_t e;
    assert_int_equal(ssh_stream_read(&st, b, sizeof b, &e), 3);
    assert_int_equal(fake.last_want, sizeof b);
    /* Nothing there and no end: read_ends decides. */
    static int asked;
    asked = 0;
    st.read_ends = ends;
    st.read_ends_ctx = &asked;
    assert_int_equal(ssh_stream_read(&st, b, sizeof b, &e), 0);
    assert_int_equal(asked, 3);
    ssh_stream_free(&st);
}

static void test_write_pieces(void **state)
{
    (void)state;
    ssh_stream_t st;
    setup_stream(&st, 0);
    static char big[200 * 1024];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)i;
    fake.write_limit = 5000;   /* short writes: a client just goes on */
    err_t e;
    assert_int_equal(ssh_stream_write(&st, big, sizeof big, &e), 0);
    assert_int_equal(fake.out_len, sizeof big);
    assert_memory_equal(fake.out, big, sizeof big);
    fake.closed = 1;
    fake.writes_blocked = 1;
    assert_int_equal(ssh_stream_write(&st, "x", 1, &e), -1);
    assert_string_equal(e.msg, "writing to the fake: channel closed");
    ssh_stream_free(&st);
}

static void tell(void *ctx, int stalled)
{
    (void)ctx;
    fake.stall_told[stalled]++;
}

static void test_stall_policy(void **state)
{
    (void)state;
    ssh_stream_t st;
    setup_stream(&st, 0);
    static volatile int stopping = 0;
    ssh_stream_stall_t sp = {.timeout_ms = 300, .stopping = &stopping, .peer_name = "client bob",
                             .tell = tell};
    st.stall = &sp;
    err_t e;
    /* A peer that reads nothing: told once, the write fails after the timeout. */
    fake.writes_blocked = 1;
    fake.flush_rc = SSH_AGAIN;
    assert_int_equal(ssh_stream_write(&st, "abc", 3, &e), -1);
    assert_string_equal(e.msg, "client bob stopped reading for 0 s (WriteTimeoutSeconds)");
    assert_int_equal(fake.stall_told[1], 1);
    assert_int_equal(fake.stall_told[0], 1);   /* and untold at the end */
    /* A short piece then progress: told stalled and back, all bytes out. */
    fake.writes_blocked = 0;
    fake.write_limit = 2;
    fake.flush_rc = SSH_OK;
    fake.stall_told[0] = fake.stall_told[1] = 0;
    assert_int_equal(ssh_stream_write(&st, "abcdef", 6, &e), 0);
    assert_memory_equal(fake.out + fake.out_len - 6, "abcdef", 6);
    assert_true(fake.stall_told[1] >= 1);
    assert_int_equal(fake.stall_told[0], fake.stall_told[1]);
    /* Stopping: a stalled write fails at once. */
    stopping = 1;
    fake.writes_blocked = 1;
    assert_int_equal(ssh_stream_write(&st, "abc", 3, &e), -1);
    assert_string_equal(e.msg, "client bob stopped reading while the server stops");
    ssh_stream_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffered_reads),
        cmocka_unit_test(test_direct_reads_and_ends),
        cmocka_unit_test(test_write_pieces),
        cmocka_unit_test(test_stall_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
