/* test_dt41_client.c: our client's side of DTail 4.1 (client/remote/dt41.h,
 * dt41_fold.h) against the exchanges recorded from the Go DTail 4.3.2-ng
 * (tests/fixtures/dt41/client/, record.sh), so a clone without the Go
 * binaries still checks it:
 *  - a request of ours goes out as the very commands the Go client sent
 *    for the same command line (after its AUTHKEY, which we do not send),
 *    and the session ends with the Go client's `.ack close connection`;
 *  - the Go dserver's answer, fed in small pieces, comes out as the lines
 *    our own dserver would have sent (REMOTE lines, one '\n' each);
 *  - its AGGREGATE messages fold into the values DTail computes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/remote/dt41.h"
#include "client/remote/dt41_fold.h"
#include "exec/agg/eval.h"
#include "parser/parser.h"

#include "tests/support/dt41_fixture.h"

/* ---- A stream that answers with a recording, 7 bytes at a time --------- */
typedef struct mem_stream {
    blob_t in;
    size_t off;
    wire_buf_t sent;
} mem_stream_t;

static ssize_t mem_read(void *ctx, void *buf, size_t n, err_t *e)
{
    (void)e;
    mem_stream_t *m = ctx;
    size_t k = m->in.n - m->off;
    if (k > 7)
        k = 7;
    if (k > n)
        k = n;
    memcpy(buf, m->in.p + m->off, k);
    m->off += k;
    return (ssize_t)k;
}

static int mem_write(void *ctx, const void *buf, size_t n, err_t *e)
{
    (void)e;
    mem_stream_t *m = ctx;
    wire_put_bytes(&m->sent, buf, n);
    return 0;
}

static int capture_lines(void *ctx, const char *p, size_t len, err_t *e)
{
    (void)e;
    wire_put_bytes(ctx, p, len);
    return 0;
}

/* A connection whose handshake found a 4.1 server, over m. */
static void open_conn(remote_conn_t *c, mem_stream_t *m, err_t *e)
{
    memset(c, 0, sizeof *c);
    c->s = (stream_t){.ctx = m, .read = mem_read, .write = mem_write};
    err_clear(e);
    assert_int_equal(wire_reader_init(&c->r, &c->s, 0, e), 0);
    c->dt41 = 1;
}

/* The Go client's frames after its AUTHKEY (the first frame). */
static blob_t go_frames_after_authkey(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "client/%s.c2s", name);
    blob_t b = slurp(rel);
    char *semi = memchr(b.p, ';', b.n);
    assert_non_null(semi);
    size_t skip = (size_t)(semi + 1 - b.p);
    memmove(b.p, b.p + skip, b.n - skip);
    b.n -= skip;
    return b;
}

/* The REMOTE messages of a recording, each with one '\n': what our
 * dserver's LINES would hold. */
static wire_buf_t remote_lines_of(const blob_t *s2c)
{
    wire_buf_t want = {0};
    const char *p = s2c->p, *end = s2c->p + s2c->n;
    while (p < end) {
        const char *d = memchr(p, 0xAC, (size_t)(end - p));
        size_t n = d ? (size_t)(d - p) : (size_t)(end - p);
        if (n > 7 && memcmp(p, "REMOTE|", 7) == 0) {
            size_t k = n && p[n - 1] == '\n' ? n - 1 : n;
            wire_put_bytes(&want, p, k);
            wire_put_bytes(&want, "\n", 1);
        }
        p += n + 1;
    }
    return want;
}

/* want: NULL for the REMOTE messages of the recording. */
static void run_recorded(const char *name, wire_request_t *rq, const char *want_text)
{
    char rel[256];
    snprintf(rel, sizeof rel, "client/%s.s2c", name);
    mem_stream_t m = {.in = slurp(rel)};
    remote_conn_t c;
    err_t e;
    open_conn(&c, &m, &e);
    wire_buf_t got = {0};
    remote_handler_t h = {.ctx = &got, .on_lines = capture_lines};
    client_run_t rs;
    memset(&rs, 0, sizeof rs);
    int rc = remote_dt41_request(&c, rq, NULL, &h, &rs, &e);
    if (rc != 0)
        fail_msg("%s: %s", name, e.msg);
    assert_int_equal(rs.status, 0);

    wire_buf_t want = {0};
    if (want_text)
        wire_put_bytes(&want, want_text, strlen(want_text));
    else
        want = remote_lines_of(&m.in);
    assert_true(want.len > 0);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.p, want.p, want.len);

    blob_t go = go_frames_after_authkey(name);
    if (m.sent.len != go.n || memcmp(m.sent.p, go.p, go.n) != 0)
        fail_msg("%s: sent %.*s\nwant %.*s", name, (int)m.sent.len, (const char *)m.sent.p,
                 (int)go.n, go.p);
    wire_reader_free(&c.r);
    wire_buf_free(&got);
    wire_buf_free(&want);
    wire_buf_free(&m.sent);
    free(go.p);
    free(m.in.p);
}

static void dcat_remote(void **state)
{
    (void)state;
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_REMOTE,
                         .files = "/tmp/dt41-record/data/small.log", .regex = "", .query = ""};
    /* "not ¬ so simple" arrives cut at the 0xAC of "¬" (DTail's D12) and
     * is joined again */
    run_recorded("dcat", &rq,
                 "REMOTE|integrationtest|100|1|small.log|one|two|three\n"
                 "REMOTE|integrationtest|100|2|small.log|not \xc2\xac so simple\n"
                 "REMOTE|integrationtest|100|3|small.log|ERROR something failed\n"
                 "REMOTE|integrationtest|100|4|small.log|last line, no newline\n");
}

/* Plain mode: the Go dserver sends content and its messages alike as
 * bare text. A line in DTail's log format is content (on stdout, exit 0
 * for it); only a message headed with this connection's user@ip:port is
 * the server's (not a line; "Unable to read file(s)" raises the status). */
static void plain_log_lines(void **state)
{
    (void)state;
    static const char s2c[] =
        ".syn capabilities query-update-v1 journal-v1\xac"
        "INFO|1002-071143|Disk usage high on /var/log|used=94%\n\xac"
        "WARN|1203-062004|dtail@127.0.0.1:45996|Unable to read file(s), check server logs\n\xac"
        "ERROR|1002-071146|Rejecting request: user quota exceeded|limit=127\n\xac"
        "INFO|1203-062004|dtail@127.0.0.1:40000|a line of another connection's log\n\xac"
        ".syn close connection\xac";
    mem_stream_t m = {.in = {.p = malloc(sizeof s2c), .n = sizeof s2c - 1}};
    assert_non_null(m.in.p);
    memcpy(m.in.p, s2c, sizeof s2c);
    remote_conn_t c;
    err_t e;
    open_conn(&c, &m, &e);
    c.plain = 1;
    snprintf(c.peer_tag, sizeof c.peer_tag, "dtail@127.0.0.1:45996");
    wire_buf_t got = {0};
    remote_handler_t h = {.ctx = &got, .on_lines = capture_lines};
    client_run_t rs;
    memset(&rs, 0, sizeof rs);
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_PLAIN,
                         .files = "/var/log/x.log", .regex = "", .query = ""};
    if (remote_dt41_request(&c, &rq, NULL, &h, &rs, &e) != 0)
        fail_msg("plain: %s", e.msg);
    static const char want[] =
        "INFO|1002-071143|Disk usage high on /var/log|used=94%\n"
        "ERROR|1002-071146|Rejecting request: user quota exceeded|limit=127\n"
        "INFO|1203-062004|dtail@127.0.0.1:40000|a line of another connection's log\n";
    assert_int_equal(got.len, sizeof want - 1);
    assert_memory_equal(got.p, want, sizeof want - 1);
    assert_int_equal(rs.status, 1);
    wire_reader_free(&c.r);
    wire_buf_free(&got);
    wire_buf_free(&m.sent);
    free(m.in.p);
}

static void dgrep_context(void **state)
{
    (void)state;
    wire_request_t rq = {.kind = WIRE_KIND_GREP, .render = WIRE_RENDER_REMOTE, .before = 2,
                         .after = 3, .files = "/tmp/dt41-record/data/mapr_testdata.log",
                         .regex = "1002-071947", .query = ""};
    run_recorded("dgrep_context", &rq, NULL);
}

#define Q1 "from STATS select count($line),last($time),avg($goroutines)," \
           "min(concurrentConnections),max(lifetimeConnections) group by $hostname"

static int skip_part(void *ctx, const unsigned char *p, size_t len, uint8_t flags, err_t *e)
{
    (void)p, (void)len, (void)e;
    *(uint8_t *)ctx |= flags | 0x80;
    return 0;
}

/* dmap: the query, then the file with the table's pattern, as Go sends
 * them; the final table goes on at the session's close. */
static void dmap_request(void **state)
{
    (void)state;
    mem_stream_t m = {.in = slurp("client/dmap.s2c")};
    remote_conn_t c;
    err_t e;
    open_conn(&c, &m, &e);
    uint8_t seen = 0;
    remote_handler_t h = {.ctx = &seen, .on_aggregate_part = skip_part};
    client_run_t rs;
    memset(&rs, 0, sizeof rs);
    wire_request_t rq = {.kind = WIRE_KIND_MAP, .files = "/tmp/dt41-record/data/mapr_testdata.log",
                         .regex = "", .query = Q1 " outfile /tmp/dt41-record/home/dmap1a.csv"};
    if (remote_dt41_request(&c, &rq, NULL, &h, &rs, &e) != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(seen, 0x80 | WIRE_AGG_FINAL);
    blob_t go = go_frames_after_authkey("dmap");
    if (m.sent.len != go.n || memcmp(m.sent.p, go.p, go.n) != 0)
        fail_msg("sent %.*s\nwant %.*s", (int)m.sent.len, (const char *)m.sent.p, (int)go.n, go.p);
    wire_reader_free(&c.r);
    wire_buf_free(&m.sent);
    free(go.p);
    free(m.in.p);
}

/* ---- Folding AGGREGATE messages ---------------------------------------- */
typedef struct folded {
    query_t *q;
    const plan_t *plan;
    agg_spec_t specs[16];
    agg_table_t t;
    dt41_fold_t f;
    field_report_t r;
} folded_t;

/* Folds every AGGREGATE message of recording name, times times over. */
static void fold_recorded(folded_t *x, const char *query, const char *name, int times)
{
    err_t e;
    err_clear(&e);
    assert_int_equal(query_parse(query, strlen(query), NULL, &x->q, &e), 0);
    x->plan = query_plan(x->q);
    assert_true(x->plan->n_select <= 16);
    eval_specs(x->plan, x->specs);
    assert_int_equal(agg_table_init(&x->t, x->specs, x->plan->n_select, &e), 0);
    assert_int_equal(field_report_init(&x->r, x->plan, &e), 0);
    dt41_fold_init(&x->f, x->plan, &x->t);
    x->f.report = &x->r;
    char rel[256];
    snprintf(rel, sizeof rel, "client/%s.s2c", name);
    blob_t b = slurp(rel);
    dt41_agg_t a;
    dt41_agg_init(&a);
    for (int k = 0; k < times; k++) {
        const char *p = b.p, *end = b.p + b.n;
        while (p < end) {
            const char *d = memchr(p, 0xAC, (size_t)(end - p));
            size_t n = d ? (size_t)(d - p) : (size_t)(end - p);
            if (n > 10 && memcmp(p, "AGGREGATE|", 10) == 0) {
                assert_int_equal(dt41_agg_parse(&a, p, n, &e), 0);
                assert_int_equal(dt41_fold(&x->f, &a, &e), 0);
            }
            p += n + 1;
        }
    }
    dt41_agg_free(&a);
    free(b.p);
}

static void folded_free(folded_t *x)
{
    dt41_fold_free(&x->f);
    field_report_free(&x->r);
    agg_table_free(&x->t);
    query_free(x->q);
}

static long group_of(const agg_table_t *t, const char *value)
{
    unsigned char key[256];
    size_t n = strlen(value);
    wire_le32_store(key, (uint32_t)n);
    memcpy(key + 4, value, n);
    size_t slot;
    return agg_table_find(t, 0, (const char *)key, n + 4, agg_key_hash((const char *)key, n + 4),
                          &slot);
}

static double number(const folded_t *x, long g, size_t item)
{
    return agg_state_number(&x->t.specs[item], agg_table_state(&x->t, (size_t)g, item));
}

static void fold_dmap(void **state)
{
    (void)state;
    folded_t x;
    fold_recorded(&x, Q1, "dmap", 1);
    assert_int_equal(x.t.n_groups, 1);
    long g = group_of(&x.t, "integrationtest");
    assert_true(g >= 0);
    assert_true(number(&x, g, 0) == 597);
    const agg_last_t *l = (const void *)agg_table_state(&x.t, (size_t)g, 1);
    assert_int_equal(l->len, 11);
    assert_memory_equal(l->p, "1002-071949", 11);
    assert_true(fabs(number(&x, g, 2) - 6942.0 / 597) < 1e-12);
    /* min(concurrentConnections) never came: no number, and the field
     * report says no parsed line had it (rendered 0, as DTail does) */
    assert_true(agg_state_no_number(&x.t.specs[3], agg_table_state(&x.t, (size_t)g, 3)));
    long k = field_report_find(&x.r, "concurrentConnections");
    assert_true(k >= 0);
    assert_int_equal(x.r.seen[k], 0);
    k = field_report_find(&x.r, "lifetimeConnections");
    assert_true(k >= 0 && x.r.seen[k]);
    assert_true(number(&x, g, 4) == 6);
    assert_int_equal(x.r.lines_parsed, 597);
    folded_free(&x);
}

/* Two deltas of the same group add up: counts and sums, the mean stays. */
static void fold_adds_deltas(void **state)
{
    (void)state;
    folded_t x;
    fold_recorded(&x, Q1, "dmap", 2);
    long g = group_of(&x.t, "integrationtest");
    assert_true(number(&x, g, 0) == 1194);
    assert_true(fabs(number(&x, g, 2) - 6942.0 / 597) < 1e-12);
    assert_true(number(&x, g, 4) == 6);
    folded_free(&x);
}

static void fold_groups(void **state)
{
    (void)state;
    folded_t x;
    fold_recorded(&x, "from STATS select count($time),$time,max($goroutines),avg($goroutines),"
                      "min($goroutines) group by $time order by count($time)",
                  "dmap_groups", 1);
    assert_int_equal(x.t.n_groups, 203);
    double total = 0;
    for (size_t g = 0; g < x.t.n_groups; g++)
        total += number(&x, (long)g, 0);
    assert_true(total == 597);
    long g = group_of(&x.t, "1002-071208");
    assert_true(g >= 0);
    assert_true(number(&x, g, 0) == 3);
    assert_true(number(&x, g, 2) == 11);
    assert_true(number(&x, g, 3) == 11);
    assert_true(number(&x, g, 4) == 11);
    folded_free(&x);
}

static void fold_strings(void **state)
{
    (void)state;
    folded_t x;
    fold_recorded(&x, "from STATS select $mask,$md5,$foo,$bar,$baz,last($time), set $mask = "
                      "maskdigits($time), $md5 = md5sum($time), $foo = 42, $bar = \"baz\", "
                      "$baz = $time group by $hostname",
                  "dmap_strings", 1);
    long g = group_of(&x.t, "integrationtest");
    assert_true(g >= 0);
    const agg_last_t *l = (const void *)agg_table_state(&x.t, (size_t)g, 0);
    assert_int_equal(l->len, 11);
    assert_memory_equal(l->p, "....-......", 11);
    l = (const void *)agg_table_state(&x.t, (size_t)g, 2);
    assert_int_equal(l->len, 2);
    assert_memory_equal(l->p, "42", 2);
    folded_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dcat_remote),
        cmocka_unit_test(plain_log_lines),
        cmocka_unit_test(dgrep_context),
        cmocka_unit_test(dmap_request),
        cmocka_unit_test(fold_dmap),
        cmocka_unit_test(fold_adds_deltas),
        cmocka_unit_test(fold_groups),
        cmocka_unit_test(fold_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
