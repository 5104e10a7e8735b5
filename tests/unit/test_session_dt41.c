/* test_session_dt41.c: a Go DTail 4.1 client's session, byte for byte.
 * The frames a Go client sent to the Go dserver (tests/fixtures/dt41/
 * server/NAME.in) go to our session_serve over a socketpair, as the
 * recorder sent them: every frame, and the ".ack close connection" only
 * once the server said ".syn close connection". What comes back must be
 * the Go dserver's answer (NAME.out), up to what differs by nature: the
 * host name, the paths of the recording, the logger's time and who
 * (user@ip:port), and the documented differences (docs/protocol-dt41.md):
 * journal-v1 only where libsystemd loads (the cases below that spell the
 * capabilities out take them without it: caps_normalise), a last line
 * without '\n' gets one. The cases
 * that read DTail's mapr_testdata.log skip without ../shared/compat. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/clock.h"
#include "exec/scan/journal.h"
#include "tests/support/session_harness.h"
#include "wire/dt41.h"

#ifndef DT41_FIXTURES
#error "DT41_FIXTURES must name tests/fixtures/dt41"
#endif

#define RECORDED_DATA "/tmp/dt41-record/data/"

static char dir[256];
static char user[256];
static char data[512];   /* dir/allowed/, where the recording's data/ is */

/* A growable byte string. */
typedef struct bytes {
    char *p;
    size_t n, cap;
} bytes_t;

static void b_add(bytes_t *b, const void *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void b_adds(bytes_t *b, const char *s) { b_add(b, s, strlen(s)); }

/* All of f, which is closed. */
static bytes_t read_all(FILE *f)
{
    bytes_t b = {0};
    b_add(&b, "", 0);
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        b_add(&b, buf, got);
    fclose(f);
    return b;
}

static bytes_t read_fixture_in(const char *sub, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", DT41_FIXTURES, sub, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    return read_all(f);
}

static bytes_t read_fixture(const char *name)
{
    return read_fixture_in("server", name);
}

/* s with every from replaced by to. */
static bytes_t replace(const char *s, size_t n, const char *from, const char *to)
{
    bytes_t b = {0};
    b_add(&b, "", 0);
    size_t fl = strlen(from);
    const char *end = s + n;
    while (s < end) {
        const char *hit = memmem(s, (size_t)(end - s), from, fl);
        if (!hit) {
            b_add(&b, s, (size_t)(end - s));
            break;
        }
        b_add(&b, s, (size_t)(hit - s));
        b_adds(&b, to);
        s = hit + fl;
    }
    return b;
}

static void replace_in(bytes_t *b, const char *from, const char *to)
{
    bytes_t r = replace(b->p, b->n, from, to);
    free(b->p);
    *b = r;
}

/* The capabilities say journal-v1 exactly when this build can read
 * journals; they are then made the ones without it, as the cases spell
 * them. */
#define CAPS_JOURNAL ".syn capabilities query-update-v1 journal-v1\xac"
#define CAPS_PLAIN ".syn capabilities query-update-v1\xac"
static void caps_normalise(bytes_t *got)
{
    int sent = got->p && memmem(got->p, got->n, CAPS_JOURNAL, sizeof CAPS_JOURNAL - 1) != NULL;
    assert_int_equal(sent, journal_available(NULL));
    if (sent)
        replace_in(got, CAPS_JOURNAL, CAPS_PLAIN);
}

/* A SESSION command with the recording's paths in its spec (the base64
 * of JSON, its last word) made ours. */
static bytes_t session_paths(const char *cmd, size_t n)
{
    const char *sp = cmd + n;
    while (sp > cmd && sp[-1] != ' ')
        sp--;
    size_t hn = (size_t)(sp - cmd), bn = n - hn, jl, bad;
    char *json = malloc(base64_decoded_max(bn) + 1);
    assert_non_null(json);
    bytes_t out = {0};
    b_add(&out, cmd, hn);
    if (base64_decode(json, &jl, sp, bn, &bad) == 0) {
        bytes_t j = replace(json, jl, RECORDED_DATA, data);
        char *b64 = malloc(base64_encoded_len(j.n) + 1);
        assert_non_null(b64);
        base64_encode(b64, j.p, j.n);
        b_add(&out, b64, base64_encoded_len(j.n));
        free(b64);
        free(j.p);
    } else {
        b_add(&out, sp, bn);
    }
    free(json);
    return out;
}

/* A recorded frame with the recording's paths made ours: a 4.1 frame's
 * command is decoded, rewritten and framed again; others go as they are. */
static void add_frame(bytes_t *out, const char *p, size_t n)
{
    static const char head[] = "protocol 4.1 base64 ";
    size_t hl = sizeof head - 1;
    char *cmd = malloc(base64_decoded_max(n) + 1);
    assert_non_null(cmd);
    size_t cl, bad;
    if (n > hl && memcmp(p, head, hl) == 0 && base64_decode(cmd, &cl, p + hl, n - hl, &bad) == 0) {
        bytes_t c = strncasecmp(cmd, "session ", 8) == 0 ? session_paths(cmd, cl)
                                                         : replace(cmd, cl, RECORDED_DATA, data);
        wire_buf_t w = {0};
        dt41_put_frame(&w, c.p, c.n);
        b_add(out, w.p, w.len);
        wire_buf_free(&w);
        free(c.p);
    } else {
        b_add(out, p, n);
        b_add(out, ";", 1);
    }
    free(cmd);
}

/* The logger's "LEVEL|MMDD-HHMMSS|who|" made "LEVEL|T|W|". */
static void normalise_log(bytes_t *b)
{
    static const char *levels[] = {"|ERROR|", "|WARN|", "|INFO|"};
    bytes_t r = {0};
    b_add(&r, "", 0);
    const char *s = b->p, *end = b->p + b->n;
    while (s < end) {
        const char *best = NULL;
        size_t bl = 0;
        for (size_t i = 0; i < 3; i++) {
            const char *h = memmem(s, (size_t)(end - s), levels[i], strlen(levels[i]));
            if (h && (!best || h < best)) {
                best = h;
                bl = strlen(levels[i]);
            }
        }
        if (!best) {
            b_add(&r, s, (size_t)(end - s));
            break;
        }
        const char *t = best + bl;
        const char *t_end = memchr(t, '|', (size_t)(end - t));
        const char *w_end = t_end ? memchr(t_end + 1, '|', (size_t)(end - t_end - 1)) : NULL;
        b_add(&r, s, (size_t)(t - s));
        if (t_end && w_end && t_end - t == 11 && t[4] == '-') {
            b_adds(&r, "T|W|");
            s = w_end + 1;
        } else {
            s = t;
        }
    }
    free(b->p);
    *b = r;
}

/* Whether a message has a field whose item counts the lines it
 * aggregated in our tables (count, sum and the items sent as sums): then
 * its samples are what Go's are (see session_dt41_agg.c); without one
 * (last, len, min, max alone) ours are 1, and the Go client reads the
 * samples only to divide avg's sum. */
static int counts_lines(const dt41_agg_t *a)
{
    static const char *counted[] = {"count(", "sum(", "avg(", "percentage(", "percentile("};
    for (size_t i = 0; i < a->nfields; i++)
        for (size_t k = 0; k < sizeof counted / sizeof counted[0]; k++)
            if (a->fields[i].key.n >= strlen(counted[k]) &&
                memcmp(a->fields[i].key.p, counted[k], strlen(counted[k])) == 0)
                return 1;
    return 0;
}

static int cmp_text(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* An AGGREGATE message as the Go client's merge reads it: the fields
 * (each "key≔value") sorted, as Go writes them in its maps' random order,
 * and the samples "S" where they do not count (counts_lines). */
static void canonical_aggregate(bytes_t *out, const char *m, size_t n)
{
    dt41_agg_t a;
    dt41_agg_init(&a);
    err_t e;
    assert_int_equal(dt41_agg_parse(&a, m, n, &e), 0);
    char **parts = calloc(a.nfields + 1, sizeof *parts);
    assert_non_null(parts);
    for (size_t i = 0; i < a.nfields; i++) {
        const dt41_field_t *f = &a.fields[i];
        size_t len = f->key.n + f->s.n + 8;
        parts[i] = malloc(len);
        assert_non_null(parts[i]);
        snprintf(parts[i], len, "%.*s=%.*s", (int)f->key.n, f->key.p, (int)f->s.n, f->s.p);
    }
    qsort(parts, a.nfields, sizeof *parts, cmp_text);
    char head[512];
    if (counts_lines(&a))
        snprintf(head, sizeof head, "AGG|%.*s|%.*s|%lld", (int)a.host.n, a.host.p, (int)a.group.n,
                 a.group.p, a.samples);
    else
        snprintf(head, sizeof head, "AGG|%.*s|%.*s|S", (int)a.host.n, a.host.p, (int)a.group.n,
                 a.group.p);
    b_adds(out, head);
    for (size_t i = 0; i < a.nfields; i++) {
        b_adds(out, "|");
        b_adds(out, parts[i]);
        free(parts[i]);
    }
    free(parts);
    dt41_agg_free(&a);
}

/* The AGGREGATE messages of b made canonical and, within each run of
 * them, sorted by group: the Go dserver sends its groups in its map's
 * random order, and the client merges each on its own. */
static void normalise_aggregates(bytes_t *b)
{
    static const char head[] = "AGGREGATE|";
    bytes_t r = {0};
    b_add(&r, "", 0);
    char **run = NULL;
    size_t nrun = 0;
    const char *s = b->p, *end = b->p + b->n;
    while (s <= end) {
        const char *m_end = s < end ? memchr(s, 0xac, (size_t)(end - s)) : NULL;
        size_t n = m_end ? (size_t)(m_end - s) : (size_t)(end - s);
        int agg = m_end && n >= sizeof head - 1 && memcmp(s, head, sizeof head - 1) == 0;
        if (agg) {
            bytes_t c = {0};
            b_add(&c, "", 0);
            canonical_aggregate(&c, s, n);
            run = realloc(run, (nrun + 1) * sizeof *run);
            assert_non_null(run);
            run[nrun++] = c.p;
        } else {
            if (nrun > 1)
                qsort(run, nrun, sizeof *run, cmp_text);
            for (size_t i = 0; i < nrun; i++) {
                b_adds(&r, run[i]);
                b_add(&r, "\xac", 1);
                free(run[i]);
            }
            nrun = 0;
            b_add(&r, s, n);
            if (m_end)
                b_add(&r, "\xac", 1);
        }
        if (!m_end)
            break;
        s = m_end + 1;
    }
    free(run);
    free(b->p);
    *b = r;
}

static int wait_readable(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, ms) > 0;
}

/* Reads into got until it holds until (NULL: until end of stream). */
static void read_until(int fd, bytes_t *got, const char *until)
{
    char buf[65536];
    while (!until || !got->p || !memmem(got->p, got->n, until, strlen(until))) {
        assert_true(wait_readable(fd, 10000));
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        b_add(got, buf, (size_t)n);
    }
}

/* Plays server/NAME.in to our session as user u and checks NAME.out;
 * between, if not NULL, runs once the frames are sent (the client's fd
 * and what it received so far). */
/* The store the next play's session registers AUTHKEY keys in: a new
 * enabled one, a disabled one (Server.AuthKeyEnabled false), or none. */
static enum { AUTHKEYS_ON, AUTHKEYS_OFF, AUTHKEYS_NONE } authkeys;

/* One recorded exchange: the folder, the names of what the client sent
 * and what the Go dserver answered. */
typedef struct exchange {
    const char *sub;
    const char *in, *out;
    int paced;                   /* each frame once the answer to the last is out */
} exchange_t;

static int quiet_for(int fd, bytes_t *got, int ms);

static void play_exchange(const exchange_t *x, const char *name, const char *u,
                          void (*between)(int fd, bytes_t *got))
{
    char in_name[256], out_name[256];
    snprintf(in_name, sizeof in_name, "%s.%s", name, x->in);
    snprintf(out_name, sizeof out_name, "%s.%s", name, x->out);
    bytes_t in = read_fixture_in(x->sub, in_name), want = read_fixture_in(x->sub, out_name);
    static const char ack[] = "protocol 4.1 base64 LmFjayBjbG9zZSBjb25uZWN0aW9u";
    bytes_t frames = {0};
    int acks = 0;
    sh_conn_t c;
    sh_config(&c, dir, NULL);
    err_t e;
    authkey_store_t *store = NULL;
    if (authkeys != AUTHKEYS_NONE) {
        store = authkey_store_new(&(authkey_store_cfg_t){.enabled = authkeys == AUTHKEYS_ON,
                                                         .ttl_ms = 60000, .max_per_user = 5},
                                  &e);
        assert_non_null(store);
    }
    c.authkeys = store;
    sh_start(&c, u, "testhost");
    bytes_t got = {0};
    b_add(&got, "", 0);
    for (const char *p = in.p, *end = in.p + in.n; p < end;) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        assert_non_null(semi);
        if ((size_t)(semi - p) == sizeof ack - 1 && memcmp(p, ack, sizeof ack - 1) == 0)
            acks = 1;   /* sent once the server says close */
        else
            add_frame(&frames, p, (size_t)(semi - p));
        p = semi + 1;
        if (x->paced && frames.n) {
            assert_int_equal(write(c.fd, frames.p, frames.n), (ssize_t)frames.n);
            frames.n = 0;
            quiet_for(c.fd, &got, 300);
        }
    }
    if (frames.n)
        assert_int_equal(write(c.fd, frames.p, frames.n), (ssize_t)frames.n);
    if (between)
        between(c.fd, &got);
    if (acks) {
        read_until(c.fd, &got, ".syn close connection\xac");
        assert_int_equal(write(c.fd, ack, sizeof ack - 1), (ssize_t)(sizeof ack - 1));
        assert_int_equal(write(c.fd, ";", 1), 1);
    } else {
        /* A session without a close ends with the client's. */
        for (;;) {
            if (!wait_readable(c.fd, 1000))
                break;
            char buf[65536];
            ssize_t n = read(c.fd, buf, sizeof buf);
            if (n <= 0)
                break;
            b_add(&got, buf, (size_t)n);
        }
        shutdown(c.fd, SHUT_WR);
    }
    read_until(c.fd, &got, NULL);
    sh_stop(&c);
    assert_int_equal(c.rc, 0);

    replace_in(&want, "integrationtest", "testhost");
    replace_in(&want, RECORDED_DATA, data);
    if (!journal_available(NULL))
        replace_in(&want, ".syn capabilities query-update-v1 journal-v1", ".syn capabilities query-update-v1");
    replace_in(&want, "last line, no newline\xac", "last line, no newline\n\xac");
    /* A key the Go dserver took is in our store too. */
    if (strstr(want.p, "AUTHKEY OK\n") && authkeys == AUTHKEYS_ON)
        assert_int_equal(authkey_store_count(store, u, clock_now_ms()), 1);
    /* Disabled comes first: every AUTHKEY gets it. */
    static const char *const answers[] = {"AUTHKEY OK\n", "AUTHKEY ERR missing public key\n",
                                          "AUTHKEY ERR invalid base64\n",
                                          "AUTHKEY ERR invalid public key\n"};
    for (size_t i = 0; authkeys == AUTHKEYS_OFF && i < sizeof answers / sizeof answers[0]; i++)
        replace_in(&want, answers[i], "AUTHKEY ERR feature disabled\n");
    if (authkeys == AUTHKEYS_NONE)
        replace_in(&want, "AUTHKEY OK\n", "AUTHKEY ERR internal key store unavailable\n");
    authkey_store_free(store);
    normalise_log(&want);
    normalise_log(&got);
    normalise_aggregates(&want);
    normalise_aggregates(&got);
    if (got.n != want.n || memcmp(got.p, want.p, got.n) != 0) {
        fprintf(stderr, "%s: got %zu bytes:\n%s\nwant %zu bytes:\n%s\n", name, got.n, got.p, want.n,
                want.p);
        fail();
    }
    free(in.p);
    free(want.p);
    free(got.p);
    free(frames.p);
}

static void play_with(const char *name, const char *u, void (*between)(int fd, bytes_t *got))
{
    play_exchange(&(exchange_t){"server", "in", "out", 0}, name, u, between);
}

static void play(const char *name, const char *u) { play_with(name, u, NULL); }

/* A Go client's exchange with the Go dserver (client/NAME.c2s, .s2c). */
static void play_client(const char *name, const char *u)
{
    play_exchange(&(exchange_t){"client", "c2s", "s2c", 0}, name, u, NULL);
}

static void put_file_mode(const char *name, const char *text, size_t n, const char *mode)
{
    char p[1024];
    snprintf(p, sizeof p, "%s%s", data, name);
    FILE *f = fopen(p, mode);
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
}

static void put_file(const char *name, const char *text, size_t n)
{
    put_file_mode(name, text, n, "wb");
}

/* As the recorder: 1.5 s after the tail, two lines appended. */
static void append_follow(int fd, bytes_t *got)
{
    usleep(1500 * 1000);
    put_file_mode("follow.log", "second\n", 7, "ab");
    put_file_mode("follow.log", "third\n", 6, "ab");
    read_until(fd, got, "|third\xac");
}

/* mapr_testdata.log from DTail's acceptance data, or skip. */
static void need_mapr(void)
{
    const char *compat = getenv("DTAIL_COMPAT_DIR");
    char src[1024];
    snprintf(src, sizeof src, "%s/mapr_testdata.log", compat ? compat : "");
    FILE *f = compat ? fopen(src, "rb") : NULL;
    if (!f)
        skip();
    bytes_t b = read_all(f);
    put_file("mapr_testdata.log", b.p, b.n);
    free(b.p);
}

static void test_cat(void **state)
{
    (void)state;
    play("cat", user);
    play("cat_plain", user);
    play("timeout_cat", user);
}

static void test_cat_missing_and_refusals(void **state)
{
    (void)state;
    play("cat_missing", user);
    play("cat_short", user);
    play("unknown_command", user);
    play("health_as_user", user);
}

static void test_version_mismatch(void **state)
{
    (void)state;
    play("mismatch", user);
}

static void test_grep(void **state)
{
    (void)state;
    need_mapr();
    play("grep_context", user);
    play("grep_max_quiet", user);
    play("grep_invert_plain", user);
}

static void test_tail(void **state)
{
    (void)state;
    put_file("follow.log", "first\n", 6);
    play_with("tail", user, append_follow);
}

/* map: the recorded queries' AGGREGATE messages, group by group, and
 * the session's end, as the Go dserver's. */
static void test_map(void **state)
{
    (void)state;
    need_mapr();
    play("map", user);
    play("map_sums", user);
}

/* Each number of floats.log as the Go dserver prints it: max, min and sum
 * as shortest floats, last as the text read, the group key as read. */
static void test_map_floats(void **state)
{
    (void)state;
    static const char *nums[] = {
        "0.1", "0.2", "0.3", "3.0", "1e21", "1e22", "1e23", "1e-7", "123456789012345678",
        "9007199254740993", "2.5e-300", "1.7976931348623157e308", "5e-324",
        "7.120236347223045e-307", "-0", "-1.5", "0.000001", "100", "1e15", "1e16", "1e17",
        "33.333333333333336", "4.35", "1.005", "-123.456e-10"};
    bytes_t b = {0};
    b_add(&b, "", 0);
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        b_adds(&b, "INFO|1002-071143|1|stats.go:56|8|13|7|");
        b_adds(&b, nums[i]);
        b_adds(&b, "|471h0m21s|MAPREDUCE:STATS|currentConnections=0|lifetimeConnections=1\n");
    }
    put_file("floats.log", b.p, b.n);
    free(b.p);
    play("map_floats", user);
}

/* The Go dmap's own sessions: AUTHKEY, map, a cat per file (with
 * --timeout: "timeout 5 cat"), the ack. */
static void test_map_dmap(void **state)
{
    (void)state;
    need_mapr();
    play_client("dmap", user);
    play_client("dmap_groups", user);
    play_client("dmap_strings", user);
    play_client("dmap_timeout", user);
}

/* A query that does not parse: said as an ERROR server message (our
 * parser's words, not Go's "failed to parse query tokens: ..."), the
 * files not read, then the session's end as Go ends it. */
static void test_map_bad_query(void **state)
{
    (void)state;
    need_mapr();
    bytes_t in = read_fixture("map_bad_query.in");
    bytes_t frames = {0};
    for (const char *p = in.p, *end = in.p + in.n; p < end;) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        assert_non_null(semi);
        if (!memmem(p, (size_t)(semi - p), "LmFjayBjbG9zZSBjb25uZWN0aW9u", 28))
            add_frame(&frames, p, (size_t)(semi - p));
        p = semi + 1;
    }
    sh_conn_t c;
    sh_config(&c, dir, NULL);
    sh_start(&c, user, "testhost");
    assert_int_equal(write(c.fd, frames.p, frames.n), (ssize_t)frames.n);
    bytes_t got = {0};
    b_add(&got, "", 0);
    read_until(c.fd, &got, ".syn close connection\xac");
    static const char ack[] = "protocol 4.1 base64 LmFjayBjbG9zZSBjb25uZWN0aW9u;";
    assert_int_equal(write(c.fd, ack, sizeof ack - 1), (ssize_t)(sizeof ack - 1));
    read_until(c.fd, &got, NULL);
    sh_stop(&c);
    assert_int_equal(c.rc, 0);
    normalise_log(&got);
    caps_normalise(&got);
    static const char want_head[] = ".syn capabilities query-update-v1\xacSERVER|testhost|ERROR|T|W|";
    if (got.n < sizeof want_head - 1 || memcmp(got.p, want_head, sizeof want_head - 1) != 0 ||
        !memmem(got.p, got.n, "from", 4) || memmem(got.p, got.n, "AGGREGATE|", 10) ||
        memmem(got.p, got.n, "REMOTE|", 7)) {
        fprintf(stderr, "map_bad_query: got %zu bytes:\n%s\n", got.n, got.p);
        fail();
    }
    static const char want_tail[] = "\n\xac.syn close connection\xac";
    assert_true(got.n > sizeof want_tail - 1);
    assert_memory_equal(got.p + got.n - (sizeof want_tail - 1), want_tail, sizeof want_tail - 1);
    free(in.p);
    free(frames.p);
    free(got.p);
}

/* AUTHKEY registers the key and answers as the Go dserver; disabled, and
 * without a store, in Go's words for those. */
static void test_authkey(void **state)
{
    (void)state;
    play("authkey", user);
    authkeys = AUTHKEYS_OFF;
    play("authkey", user);
    authkeys = AUTHKEYS_NONE;
    play("authkey", user);
    authkeys = AUTHKEYS_ON;
}

static void test_health(void **state)
{
    (void)state;
    play("health", "DTAIL-HEALTH");
}

/* ---- SESSION: interactive query reload (docs/protocol-dt41.md) ----------
 * The frames are written here from the description: "SESSION START <b64
 * json>" and "SESSION UPDATE [gen] <b64 json>", the JSON of Go's
 * session.Spec, each command framed "protocol 4.1 base64 <b64>;". */

/* Appends text in base64. */
static void b_add_base64(bytes_t *b, const char *text)
{
    size_t n = strlen(text);
    char *b64 = malloc(base64_encoded_len(n) + 1);
    assert_non_null(b64);
    base64_encode(b64, text, n);
    b_add(b, b64, base64_encoded_len(n));
    free(b64);
}

/* Sends one 4.1 command frame holding text. */
static void send_command(int fd, const char *text)
{
    bytes_t f = {0};
    b_adds(&f, "protocol 4.1 base64 ");
    b_add_base64(&f, text);
    b_adds(&f, ";");
    assert_int_equal(write(fd, f.p, f.n), (ssize_t)f.n);
    free(f.p);
}

/* "SESSION <action> <b64 of json>". */
static void send_session(int fd, const char *action, const char *json)
{
    bytes_t cmd = {0};
    b_adds(&cmd, "SESSION ");
    b_adds(&cmd, action);
    b_adds(&cmd, " ");
    b_add_base64(&cmd, json);
    send_command(fd, cmd.p);
    free(cmd.p);
}

/* A spec's JSON as Go marshals it: mode, files (one, in data/), then the
 * query and the raw pattern when not empty. */
static void spec_json(char *out, size_t cap, int mode, const char *file, const char *query,
                      const char *regex)
{
    int n = snprintf(out, cap, "{\"mode\":%d,\"files\":[\"%s%s\"]", mode, data, file);
    if (query && *query)
        n += snprintf(out + n, cap - (size_t)n, ",\"query\":\"%s\"", query);
    if (regex && *regex)
        n += snprintf(out + n, cap - (size_t)n, ",\"regex\":\"%s\"", regex);
    snprintf(out + n, cap - (size_t)n, "}");
}

/* Reads for ms and returns whether nothing more came. */
static int quiet_for(int fd, bytes_t *got, int ms)
{
    size_t before = got->n;
    char buf[65536];
    while (wait_readable(fd, ms)) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        b_add(got, buf, (size_t)n);
    }
    return got->n == before;
}

/* got, from its start, must be want; then got is emptied. */
static void expect_taken(bytes_t *got, const char *want, const char *what)
{
    if (got->p && memmem(got->p, got->n, ".syn capabilities ", 18))
        caps_normalise(got);
    if (got->n != strlen(want) || memcmp(got->p, want, got->n) != 0) {
        fprintf(stderr, "%s: got %zu bytes:\n%s\nwant:\n%s\n", what, got->n, got->p, want);
        fail();
    }
    got->n = 0;
    got->p[0] = '\0';
}

/* What comes until until and then nothing for quiet_ms must be want. */
static void expect_answer(int fd, bytes_t *got, const char *until, int quiet_ms, const char *want,
                          const char *what)
{
    read_until(fd, got, until);
    assert_true(quiet_for(fd, got, quiet_ms));
    expect_taken(got, want, what);
}

/* A 4.1 client's session; got is what it received. */
static void open_client(sh_conn_t *c, bytes_t *got)
{
    sh_config(c, dir, NULL);
    sh_start(c, user, "testhost");
    *got = (bytes_t){0};
    b_add(got, "", 0);
}

/* A client's session that STARTs with the spec, until the ack. */
static void start_session(sh_conn_t *c, bytes_t *got, int mode, const char *file, const char *query)
{
    open_client(c, got);
    char json[2048];
    spec_json(json, sizeof json, mode, file, query, "");
    send_session(c->fd, "START", json);
    read_until(c->fd, got, "start ok 1\xac");
}

/* The client closes; the session ends without a word more. */
static void close_client(sh_conn_t *c, bytes_t *got)
{
    shutdown(c->fd, SHUT_WR);
    read_until(c->fd, got, NULL);
    sh_stop(c);
    assert_int_equal(c->rc, 0);
    expect_taken(got, "", "the end");
    free(got->p);
}

#define SMALL_LINES                                                                        \
    ".output wake\n\xac"                                                                   \
    "REMOTE|testhost|100|1|small.log|one|two|three\n\xac"                                  \
    "REMOTE|testhost|100|2|small.log|not \xc2\xac"                                         \
    " so simple\n\xac"                                                                     \
    "REMOTE|testhost|100|3|small.log|ERROR something failed\n\xac"                         \
    "REMOTE|testhost|100|4|small.log|last line, no newline\n\xac"

/* START runs the spec's commands and the session stays open after them
 * (no ".syn close connection"); UPDATE without a generation is the next
 * one and runs its spec; refusals are Go's words; the client's close
 * ends it. */
static void test_session_start_update(void **state)
{
    (void)state;
    sh_conn_t c;
    bytes_t got;
    start_session(&c, &got, 4, "small.log", "");   /* grep, no pattern: all */
    char json[2048];
    read_until(c.fd, &got, "no newline\n\xac");
    assert_true(quiet_for(c.fd, &got, 500));   /* kept open: no close */
    expect_taken(&got, ".syn capabilities query-update-v1\xac.syn session start ok 1\xac" SMALL_LINES,
                 "start");
    spec_json(json, sizeof json, 4, "small.log", "", "ERROR");
    send_session(c.fd, "update", json);
    expect_answer(c.fd, &got, "failed\n\xac", 300,
                 ".syn session update ok 2\xac.output wake\n\xac"
                 "REMOTE|testhost|100|3|small.log|ERROR something failed\n\xac",
                 "update");
    send_session(c.fd, "START", json);
    spec_json(json, sizeof json, 5, "small.log", "select nothing from", "");
    send_session(c.fd, "UPDATE 9", json);
    spec_json(json, sizeof json, 3, "small.log", "from STATS select count($line)", "");
    send_session(c.fd, "UPDATE", json);
    expect_answer(c.fd, &got, "require map or tail mode\xac", 300,
                  ".syn session err session already started\xac"
                 ".syn session err invalid session spec\xac"
                 ".syn session err query sessions require map or tail mode\xac",
                 "refusals");
    close_client(&c, &got);
}

/* An UPDATE before a START is refused, and a session that did not start
 * ends as a command stream does. */
static void test_session_not_started(void **state)
{
    (void)state;
    sh_conn_t c;
    bytes_t got;
    open_client(&c, &got);
    char json[2048];
    spec_json(json, sizeof json, 3, "small.log", "", "ERROR");
    send_session(c.fd, "UPDATE 2", json);
    expect_answer(c.fd, &got, "not started\xac", 300,
                  ".syn capabilities query-update-v1\xac.syn session err session not started\xac",
                  "not started");
    close_client(&c, &got);
}

/* An UPDATE ends a running tail at once: the ack with the generation
 * sent, the new spec's lines, and none of the old tail's after it. */
static void test_session_update_ends_tail(void **state)
{
    (void)state;
    put_file("reload.log", "first\n", 6);
    sh_conn_t c;
    bytes_t got;
    start_session(&c, &got, 2, "reload.log", "");
    char json[2048];
    usleep(500 * 1000);   /* the follower at the file's end */
    put_file_mode("reload.log", "second\n", 7, "ab");
    read_until(c.fd, &got, "|second\xac");
    expect_taken(&got,
                 ".syn capabilities query-update-v1\xac.syn session start ok 1\xac"
                 ".output wake\n\xacREMOTE|testhost|100|1|reload.log|second\xac",
                 "tail");
    spec_json(json, sizeof json, 4, "small.log", "", "ERROR");
    send_session(c.fd, "UPDATE 7", json);
    read_until(c.fd, &got, "failed\n\xac");
    put_file_mode("reload.log", "third\n", 6, "ab");
    assert_true(quiet_for(c.fd, &got, 1500));   /* the old tail is gone */
    expect_taken(&got,
                 ".syn session update ok 7\xac.output wake\n\xac"
                 "REMOTE|testhost|100|3|small.log|ERROR something failed\n\xac",
                 "after the update");
    close_client(&c, &got);
}

/* dtail --query --interactive-query: a map over a tail, whose deltas
 * stop at the UPDATE (its last delta is not sent: the new query's state
 * starts empty); the new query's map over cat reads the whole file. */
static void test_session_update_ends_map(void **state)
{
    (void)state;
    static const char line[] = "INFO|1002-071143|1|stats.go:56|8|13|7|4|471h0m21s|MAPREDUCE:STATS|"
                               "currentConnections=0|lifetimeConnections=1\n";
    put_file("stats.log", "", 0);
    sh_conn_t c;
    bytes_t got;
    start_session(&c, &got, 2, "stats.log", "from STATS select count($line) interval 1");
    char json[2048];
    usleep(500 * 1000);
    put_file_mode("stats.log", line, sizeof line - 1, "ab");
    read_until(c.fd, &got, "count($line)\xe2\x89\x94" "1\xe2\x88\xa5\xac");
    expect_taken(&got,
                 ".syn capabilities query-update-v1\xac.syn session start ok 1\xac"
                 ".output wake\n\xac"
                 "AGGREGATE|testhost|\xe2\x88\xa5" "1\xe2\x88\xa5" "count($line)\xe2\x89\x94" "1\xe2\x88\xa5\xac",
                 "tail query");
    put_file_mode("stats.log", line, sizeof line - 1, "ab");   /* in the old query's next delta */
    spec_json(json, sizeof json, 5, "stats.log", "from STATS select sum($goroutines)", "");
    send_session(c.fd, "UPDATE", json);
    read_until(c.fd, &got, "\xac");
    expect_answer(c.fd, &got, "\xe2\x88\xa5\xac", 1500,
                 ".syn session update ok 2\xac.output wake\n\xac"
                 "AGGREGATE|testhost|\xe2\x88\xa5" "2\xe2\x88\xa5sum($goroutines)\xe2\x89\x94" "26\xe2\x88\xa5\xac",
                 "map after the update");
    close_client(&c, &got);
}

/* The Go dserver's own answers to a session (server/session.in): a cat,
 * an UPDATE 7 to a map, an UPDATE without generation (8), refusals; each
 * frame once the last one's answer is out, as a user reloads (an UPDATE
 * supersedes a generation still running at once, docs/protocol-dt41.md). */
static void test_session_recorded(void **state)
{
    (void)state;
    need_mapr();
    play_exchange(&(exchange_t){"server", "in", "out", 1}, "session", user, NULL);
}

static int setup(void **state)
{
    (void)state;
    sh_tree_make(dir, sizeof dir, "dt41", user, sizeof user);
    snprintf(data, sizeof data, "%s/allowed/", dir);
    static const char small[] = "one|two|three\nnot \302\254 so simple\nERROR something failed\n"
                                "last line, no newline";
    put_file("small.log", small, sizeof small - 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tmpdir_remove(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cat),
        cmocka_unit_test(test_cat_missing_and_refusals),
        cmocka_unit_test(test_version_mismatch),
        cmocka_unit_test(test_grep),
        cmocka_unit_test(test_tail),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_map_floats),
        cmocka_unit_test(test_map_dmap),
        cmocka_unit_test(test_map_bad_query),
        cmocka_unit_test(test_authkey),
        cmocka_unit_test(test_health),
        cmocka_unit_test(test_session_start_update),
        cmocka_unit_test(test_session_not_started),
        cmocka_unit_test(test_session_update_ends_tail),
        cmocka_unit_test(test_session_update_ends_map),
        cmocka_unit_test(test_session_recorded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
