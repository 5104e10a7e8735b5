/* test_dt41.c: the DTail 4.1 codec (wire/dt41.h) against the exchanges
 * recorded from the Go DTail 4.3.2-ng (tests/fixtures/dt41/, record.sh):
 *  - every command a Go client sent parses, and encoding what was parsed
 *    gives the client's bytes back (the legacy stream through
 *    dt41_put_spec_frames, AUTHKEY, SESSION with its JSON, .ack);
 *  - every stream a Go dserver sent splits into messages that classify,
 *    and every AGGREGATE message parses and formats back byte for byte;
 *  - what the Go dserver said to the malformed frames we sent it is what
 *    the parser refuses them with, text, level and newline;
 *  - the framer's limit (a frame of exactly 1 MiB is taken, one byte more
 *    is refused), the version texts, options, patterns, the writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "tests/support/rng.h"
#include "wire/dt41.h"

#include "tests/support/dt41_fixture.h"

/* The fixture names in DIR with ending EXT, sorted, NULL-terminated. */
static char **fixtures(const char *dir, const char *ext)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DT41_FIXTURES, dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    char **names = calloc(256, sizeof *names);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 255) {
        size_t len = strlen(de->d_name), el = strlen(ext);
        if (len > el && strcmp(de->d_name + len - el, ext) == 0) {
            names[n] = malloc(strlen(dir) + len + 2);
            sprintf(names[n++], "%s/%s", dir, de->d_name);
        }
    }
    closedir(d);
    for (size_t i = 0; i < n; i++)   /* sorted, for stable messages */
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    assert_true(n > 0);
    return names;
}

static void free_names(char **names)
{
    for (char **p = names; *p; p++)
        free(*p);
    free(names);
}

/* The pieces of a stream, split in chunks of random sizes (so pieces are
 * found whatever the chunking); *n their count. The spans are copies. */
static dt41_str_t *pieces(dt41_splitter_t *s, blob_t b, uint64_t seed, size_t *count)
{
    dt41_str_t *out = NULL;
    size_t n = 0, cap = 0, at = 0;
    while (at < b.n) {
        size_t chunk = 1 + rng_next(&seed) % 700;
        if (chunk > b.n - at)
            chunk = b.n - at;
        const char *p = b.p + at;
        size_t left = chunk;
        while (left) {
            size_t used;
            dt41_str_t piece;
            unsigned long long where;
            err_t e;
            int r = dt41_split(s, p, left, &used, &piece, &where, &e);
            if (r < 0)
                fail_msg("split: %s", e.msg);
            p += used;
            left -= used;
            if (r == 1) {
                if (n == cap) {
                    cap = cap ? cap * 2 : 64;
                    out = realloc(out, cap * sizeof *out);
                }
                char *copy = malloc(piece.n + 1);
                memcpy(copy, piece.p, piece.n);
                copy[piece.n] = '\0';
                out[n++] = (dt41_str_t){copy, piece.n};
            }
        }
        at += chunk;
    }
    *count = n;
    return out;
}

static void free_pieces(dt41_str_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)p[i].p);
    free(p);
}

/* The frames of a recorded client stream, found in chunks from seed. */
static dt41_str_t *frames_of(const char *name, uint64_t seed, size_t *n)
{
    blob_t b = slurp(name);
    dt41_splitter_t s;
    dt41_framer_init(&s, 0);
    dt41_str_t *f = pieces(&s, b, seed, n);
    assert_false(dt41_split_pending(&s));
    dt41_splitter_free(&s);
    free(b.p);
    return f;
}

static bool same(dt41_str_t s, const char *lit)
{
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static void expect_bytes(const char *what, const void *got, size_t gn, const void *want, size_t wn)
{
    if (gn != wn || memcmp(got, want, gn) != 0)
        fail_msg("%s:\n got  %.*s\n want %.*s", what, (int)gn, (const char *)got, (int)wn, (const char *)want);
}

/* ---- client -> server: what Go clients sent ------------------------------------ */

/* The legacy command stream of one client run, rebuilt as a spec. */
typedef struct legacy {
    dt41_spec_t spec;
    dt41_str_t files[16];
    wire_buf_t frames;        /* the run's frames as recorded */
    wire_buf_t options;       /* the spec's options, re-encoded */
    wire_buf_t patterns;      /* the pattern, kept past the parse */
    int reads;
} legacy_t;

static void legacy_add(legacy_t *l, const dt41_cmd_t *c, dt41_str_t frame)
{
    wire_put_bytes(&l->frames, frame.p, frame.n);
    wire_put_bytes(&l->frames, ";", 1);
    if (c->has_opts && l->options.len == 0)
        dt41_opts_encode(&l->options, &c->opts);
    if (c->kind == DT41_CMD_MAP) {
        char *q = malloc(c->query.n);
        memcpy(q, c->query.p, c->query.n);
        l->spec.query = (dt41_str_t){q, c->query.n};
        l->spec.mode = DT41_MODE_MAP;
        return;
    }
    assert_true(l->reads < 16);
    char *f = malloc(c->path.n + 1);
    memcpy(f, c->path.p, c->path.n);
    l->files[l->reads++] = (dt41_str_t){f, c->path.n};
    if (l->patterns.len == 0 && c->regex.match != DT41_MATCH_NOOP) {
        wire_put_bytes(&l->patterns, c->regex.pattern.p, c->regex.pattern.n);
        l->spec.regex_invert = c->regex.match == DT41_MATCH_INVERT;
    }
    if (c->has_timeout)
        l->spec.timeout = c->timeout;
    long long mode = c->kind == DT41_CMD_TAIL ? DT41_MODE_TAIL : c->kind == DT41_CMD_GREP ? DT41_MODE_GREP
                                                                                         : DT41_MODE_CAT;
    if (l->spec.mode != DT41_MODE_MAP || mode == DT41_MODE_TAIL)
        l->spec.mode = mode;   /* dtail --query: a map, then tail reads */
}

static void legacy_check(const char *name, legacy_t *l)
{
    if (!l->frames.len)
        return;
    l->spec.files = l->files;
    l->spec.nfiles = (size_t)l->reads;
    l->spec.options = (dt41_str_t){(const char *)l->options.p, l->options.len};
    l->spec.regex = (dt41_str_t){(const char *)l->patterns.p, l->patterns.len};
    wire_buf_t again = {0};
    err_t e;
    assert_int_equal(dt41_put_spec_frames(&again, &l->spec, &e), 0);
    char what[256];
    snprintf(what, sizeof what, "%s: the legacy commands re-encoded", name);
    expect_bytes(what, again.p, again.len, l->frames.p, l->frames.len);
    wire_buf_free(&again);
    for (int i = 0; i < l->reads; i++)
        free((char *)l->files[i].p);
    free((char *)l->spec.query.p);
    wire_buf_free(&l->frames);
    wire_buf_free(&l->options);
    wire_buf_free(&l->patterns);
}

static void check_reencoded(const char *name, const dt41_cmd_t *c, dt41_str_t frame)
{
    wire_buf_t again = {0};
    if (c->kind == DT41_CMD_AUTHKEY) {
        assert_null(c->authkey_err);
        dt41_put_authkey_frame(&again, c->authkey.p, c->authkey.n);
    } else if (c->kind == DT41_CMD_ACK) {
        assert_true(c->close);
        dt41_put_ack_close_frame(&again);
    } else if (c->kind == DT41_CMD_HEALTH) {
        dt41_put_frame(&again, "health", 6);
    } else {
        dt41_put_session_frame(&again, c->kind == DT41_CMD_SESSION_UPDATE, c->generation, &c->spec);
    }
    char what[256];
    snprintf(what, sizeof what, "%s: a frame re-encoded", name);
    expect_bytes(what, again.p, again.len - 1, frame.p, frame.n);   /* without the ';' */
    wire_buf_free(&again);
}

static void test_client_commands_reencode(void **state)
{
    (void)state;
    char **names = fixtures("client", ".c2s");
    int frames = 0, sessions = 0;
    for (char **name = names; *name; name++) {
        size_t n;
        dt41_str_t *f = frames_of(*name, 0x41, &n);
        legacy_t l = {0};
        dt41_cmd_t c;
        dt41_cmd_init(&c);
        c.health_handler = strstr(*name, "health") != NULL;
        for (size_t i = 0; i < n; i++) {
            dt41_reject_t r;
            err_t e;
            if (dt41_cmd_parse(&c, f[i].p, f[i].n, &r, &e) < 0)
                fail_msg("%s, frame %zu: %s", *name, i, e.msg);
            frames++;
            switch (c.kind) {
            case DT41_CMD_MAP:
            case DT41_CMD_CAT:
            case DT41_CMD_GREP:
            case DT41_CMD_TAIL:
                legacy_add(&l, &c, f[i]);
                break;
            case DT41_CMD_SESSION_START:
            case DT41_CMD_SESSION_UPDATE:
                sessions++;
                /* fallthrough */
            default:
                check_reencoded(*name, &c, f[i]);
            }
        }
        legacy_check(*name, &l);
        dt41_cmd_free(&c);
        free_pieces(f, n);
    }
    free_names(names);
    assert_true(frames >= 50);
    assert_true(sessions >= 4);
}

/* What the recorded clients sent, by the meaning of its parts. */
static void test_client_commands_meaning(void **state)
{
    (void)state;
    size_t n;
    dt41_str_t *f = frames_of("client/dgrep_context.c2s", 7, &n);
    assert_int_equal(n, 3);   /* AUTHKEY, grep, .ack */
    dt41_cmd_t c;
    dt41_cmd_init(&c);
    dt41_reject_t r;
    err_t e;
    assert_int_equal(dt41_cmd_parse(&c, f[0].p, f[0].n, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_AUTHKEY);
    assert_true(c.authkey_blob.n > 11 && memcmp(c.authkey_blob.p, "\0\0\0\x0bssh-ed25519", 15) == 0);
    assert_int_equal(dt41_cmd_parse(&c, f[1].p, f[1].n, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_GREP);
    assert_true(c.has_opts);
    assert_int_equal(c.opts.after, 3);
    assert_int_equal(c.opts.before, 2);
    assert_int_equal(c.opts.max, 0);
    assert_true(same(c.path, "/tmp/dt41-record/data/mapr_testdata.log"));
    assert_int_equal(c.regex.match, DT41_MATCH_DEFAULT);
    assert_true(c.regex.literal);
    assert_true(same(c.regex.pattern, "1002-071947"));
    assert_int_equal(dt41_cmd_parse(&c, f[2].p, f[2].n, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_ACK);
    assert_true(c.close);
    free_pieces(f, n);

    f = frames_of("client/dmap_timeout.c2s", 9, &n);
    assert_int_equal(n, 5);   /* AUTHKEY, map, timeout 5 cat x2, .ack */
    assert_int_equal(dt41_cmd_parse(&c, f[1].p, f[1].n, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_MAP);
    assert_false(c.has_opts);
    assert_true(same(c.query, "from STATS select count($line),last($time),avg($goroutines),"
                              "min(concurrentConnections),max(lifetimeConnections) group by $hostname"));
    assert_int_equal(dt41_cmd_parse(&c, f[2].p, f[2].n, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_CAT);
    assert_true(c.has_timeout);
    assert_int_equal(c.timeout, 5);
    assert_true(same(c.regex.pattern, "\\|MAPREDUCE:STATS\\|"));
    assert_false(c.regex.literal);
    free_pieces(f, n);

    /* a session started, then updated to generation 2 with the other query
     * (the order of the two queries is the Go client's race, see record.sh) */
    f = frames_of("client/dmap_interactive_direct.c2s", 11, &n);
    char started[512] = "";
    bool update = false;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(dt41_cmd_parse(&c, f[i].p, f[i].n, &r, &e), 0);
        if (c.kind == DT41_CMD_SESSION_START)
            snprintf(started, sizeof started, "%.*s", (int)c.spec.query.n, c.spec.query.p);
        if (c.kind == DT41_CMD_SESSION_UPDATE) {
            update = true;
            assert_true(started[0]);
            assert_int_equal(c.generation, 2);
            assert_int_equal(c.spec.mode, DT41_MODE_MAP);
            assert_int_equal(c.spec.nfiles, 1);
            assert_false(same(c.spec.query, started));
            assert_true(same(c.spec.regex, "\\|MAPREDUCE:STATS\\|"));
            assert_int_equal(c.spec.options.n, 0);
        }
    }
    assert_true(update);
    free_pieces(f, n);
    dt41_cmd_free(&c);
}

/* ---- server -> client: what the Go dserver sent ------------------------------- */

static void check_aggregate(const char *name, dt41_str_t m, int *floats)
{
    dt41_agg_t a;
    dt41_agg_init(&a);
    err_t e;
    if (dt41_agg_parse(&a, m.p, m.n, &e) < 0)
        fail_msg("%s: %s: %.*s", name, e.msg, (int)m.n, m.p);
    assert_true(same(a.host, "integrationtest"));
    assert_true(a.trailing);
    assert_true(a.samples > 0);
    for (size_t i = 0; i < a.nfields; i++) {
        assert_int_not_equal(a.fields[i].type, DT41_FIELD_BARE);
        *floats += a.fields[i].type == DT41_FIELD_FLOAT;
    }
    wire_buf_t again = {0};
    dt41_put_aggregate(&again, &a);
    char what[256];
    snprintf(what, sizeof what, "%s: an AGGREGATE re-formatted", name);
    expect_bytes(what, again.p, again.len - 1, m.p, m.n);
    assert_int_equal(again.p[again.len - 1], DT41_DELIM);
    wire_buf_free(&again);
    dt41_agg_free(&a);
}

typedef struct tally {
    int by_kind[16];
    int floats;
    int streams, health;
} tally_t;

static void classify_stream(const char *name, tally_t *t)
{
    blob_t b = slurp(name);
    dt41_splitter_t s;
    dt41_msgsplit_init(&s, 0);
    size_t n;
    dt41_str_t *m = pieces(&s, b, 0x2254, &n);
    assert_false(dt41_split_pending(&s));   /* every stream ends in 0xAC */
    t->streams++;
    t->health += strstr(name, "health.") != NULL;
    for (size_t i = 0; i < n; i++) {
        dt41_msg_t msg;
        dt41_msg_classify(m[i].p, m[i].n, &msg);
        t->by_kind[msg.kind]++;
        if (msg.kind == DT41_MSG_REMOTE || msg.kind == DT41_MSG_SERVER)
            assert_true(same(msg.host, "integrationtest"));
        if (msg.kind == DT41_MSG_AGGREGATE)
            check_aggregate(name, m[i], &t->floats);
    }
    free_pieces(m, n);
    dt41_splitter_free(&s);
    free(b.p);
}

static void test_server_streams_classify(void **state)
{
    (void)state;
    tally_t t = {{0}, 0, 0, 0};
    char **names = fixtures("server", ".out");
    for (char **name = names; *name; name++)
        classify_stream(*name, &t);
    free_names(names);
    names = fixtures("client", ".s2c");
    for (char **name = names; *name; name++)
        classify_stream(*name, &t);
    free_names(names);
    /* one per session but the health handler's; not always the first message
     * (the Go dserver's output path is read before its messages) */
    print_message("streams %d: remote %d server %d aggregate %d (floats %d) close %d hidden %d plain %d\n",
                  t.streams, t.by_kind[DT41_MSG_REMOTE], t.by_kind[DT41_MSG_SERVER], t.by_kind[DT41_MSG_AGGREGATE],
                  t.floats, t.by_kind[DT41_MSG_CLOSE], t.by_kind[DT41_MSG_HIDDEN], t.by_kind[DT41_MSG_PLAIN]);
    assert_int_equal(t.by_kind[DT41_MSG_CAPABILITIES], t.streams - t.health);
    assert_true(t.by_kind[DT41_MSG_REMOTE] > 50);
    assert_true(t.by_kind[DT41_MSG_PLAIN] > 500);   /* grep_invert_plain alone: 587 */
    assert_true(t.by_kind[DT41_MSG_AGGREGATE] > 400);   /* dmap_groups alone: 203 */
    assert_true(t.floats > 1000);
    assert_true(t.by_kind[DT41_MSG_CLOSE] > 30);
    assert_true(t.by_kind[DT41_MSG_SESSION_ACK] >= 5);
    assert_true(t.by_kind[DT41_MSG_AUTHKEY] > 10);
    assert_true(t.by_kind[DT41_MSG_SERVER] > 20);
    assert_true(t.by_kind[DT41_MSG_HIDDEN] > 30);   /* ".output wake\n" */
}

/* The messages of one recorded stream. */
typedef struct recording {
    blob_t b;
    dt41_splitter_t s;
    dt41_str_t *m;
    size_t n;
} recording_t;

static void rec_open(recording_t *st, const char *name)
{
    st->b = slurp(name);
    dt41_msgsplit_init(&st->s, 0);
    st->m = pieces(&st->s, st->b, 3, &st->n);
}

static void rec_close(recording_t *st)
{
    free_pieces(st->m, st->n);
    dt41_splitter_free(&st->s);
    free(st->b.p);
}

static dt41_msg_t msg_at(const recording_t *st, size_t i)
{
    dt41_msg_t m;
    assert_true(i < st->n);
    dt41_msg_classify(st->m[i].p, st->m[i].n, &m);
    return m;
}

/* cat of small.log: "not ¬ so simple" is cut at the 0xAC of "¬" (D12);
 * the last line keeps having no newline. */
static void test_cat_stream(void **state)
{
    (void)state;
    recording_t st;
    rec_open(&st, "server/cat.out");
    assert_int_equal(st.n, 8);
    dt41_msg_t m = msg_at(&st, 0);
    assert_int_equal(m.kind, DT41_MSG_CAPABILITIES);
    assert_true(same(m.text, "query-update-v1 journal-v1"));
    m = msg_at(&st, 1);
    assert_int_equal(m.kind, DT41_MSG_HIDDEN);
    assert_true(same(m.text, ".output wake\n"));
    m = msg_at(&st, 2);
    assert_int_equal(m.kind, DT41_MSG_REMOTE);
    assert_true(same(m.pct, "100"));
    assert_int_equal(m.lineno, 1);
    assert_true(same(m.source, "small.log"));
    assert_true(same(m.text, "one|two|three\n"));
    m = msg_at(&st, 3);
    assert_int_equal(m.kind, DT41_MSG_REMOTE);
    assert_true(same(m.text, "not \xc2"));
    m = msg_at(&st, 4);
    assert_int_equal(m.kind, DT41_MSG_PLAIN);
    assert_true(same(m.text, " so simple\n"));
    m = msg_at(&st, 6);
    assert_int_equal(m.lineno, 4);
    assert_true(same(m.text, "last line, no newline"));
    assert_int_equal(msg_at(&st, 7).kind, DT41_MSG_CLOSE);

    rec_close(&st);

    /* the writers give both recordings back */
    for (int plain = 0; plain < 2; plain++) {
        rec_open(&st, plain ? "server/cat_plain.out" : "server/cat.out");
        static const char *const lines[] = {"one|two|three\n", "not \xc2\xac so simple\n",
                                            "ERROR something failed\n", "last line, no newline"};
        wire_buf_t b = {0};
        dt41_put_capabilities(&b, true);
        dt41_put_hidden(&b, ".output wake\n", 13);
        for (int i = 0; i < 4; i++)
            dt41_put_remote(&b, "integrationtest", "100", (uint64_t)i + 1, "small.log", lines[i], strlen(lines[i]),
                            plain);
        dt41_put_close(&b);
        expect_bytes(plain ? "cat_plain.out written" : "cat.out written", b.p, b.len, st.b.p, st.b.n);
        wire_buf_free(&b);
        rec_close(&st);
    }
}

static void test_control_messages(void **state)
{
    (void)state;
    recording_t st;
    rec_open(&st, "server/health.out");
    dt41_msg_t m = msg_at(&st, 0);   /* the health handler sends no capabilities */
    assert_int_equal(m.kind, DT41_MSG_SERVER);
    assert_true(same(m.text, "OK"));
    assert_int_equal(msg_at(&st, 1).kind, DT41_MSG_CLOSE);
    rec_close(&st);

    rec_open(&st, "server/authkey.out");
    assert_int_equal(st.n, 5);
    static const char *const reasons[] = {"", "missing public key", "invalid base64", "invalid public key"};
    for (size_t i = 1; i < 5; i++) {
        m = msg_at(&st, i);
        assert_int_equal(m.kind, DT41_MSG_AUTHKEY);
        assert_int_equal(m.ok, i == 1);
        assert_true(same(m.host, "integrationtest"));
        assert_true(same(m.text, reasons[i - 1]));
    }
    rec_close(&st);

    rec_open(&st, "server/authkey_plain.out");
    m = msg_at(&st, 1);   /* plain mode: no SERVER|host| */
    assert_int_equal(m.kind, DT41_MSG_AUTHKEY);
    assert_true(m.ok);
    assert_int_equal(m.host.n, 0);
    assert_true(same(m.raw, "AUTHKEY OK\n"));
    rec_close(&st);

    rec_open(&st, "server/session.out");
    enum dt41_ack acks[8];
    uint64_t gens[8];
    size_t k = 0;
    for (size_t i = 0; i < st.n; i++) {
        m = msg_at(&st, i);
        if (m.kind == DT41_MSG_SESSION_ACK && k < 8) {
            acks[k] = m.ack;
            gens[k++] = m.generation;
            wire_buf_t b = {0};
            dt41_put_session_ack(&b, m.ack, m.generation, m.text.p, m.text.n);
            expect_bytes("a session ack written", b.p, b.len - 1, st.m[i].p, st.m[i].n);
            wire_buf_free(&b);
        }
    }
    assert_int_equal(k, 5);
    assert_int_equal(acks[0], DT41_ACK_START);
    assert_int_equal(gens[0], 1);
    assert_int_equal(acks[1], DT41_ACK_UPDATE);
    assert_int_equal(gens[1], 7);   /* the generation the client sent */
    assert_int_equal(acks[2], DT41_ACK_UPDATE);
    assert_int_equal(gens[2], 8);   /* none sent: one more */
    assert_int_equal(acks[3], DT41_ACK_ERROR);
    assert_int_equal(acks[4], DT41_ACK_ERROR);
    rec_close(&st);
}

/* An AGGREGATE built from parts is the Go dserver's message, and the
 * numbers the Go dserver wrote read as FLOAT fields. */
static void test_aggregate_build(void **state)
{
    (void)state;
    recording_t st;
    rec_open(&st, "server/map.out");
    dt41_msg_t m = msg_at(&st, 2);
    assert_int_equal(m.kind, DT41_MSG_AGGREGATE);
    dt41_agg_t a;
    dt41_agg_init(&a);
    err_t e;
    assert_int_equal(dt41_agg_parse(&a, m.raw.p, m.raw.n, &e), 0);
    assert_true(same(a.group, "integrationtest"));
    assert_int_equal(a.samples, 597);

    dt41_agg_t b;
    dt41_agg_init(&b);
    b.host = (dt41_str_t){"integrationtest", 15};
    b.group = (dt41_str_t){"integrationtest", 15};
    b.samples = 597;
    for (size_t i = 0; i < a.nfields; i++) {   /* Go's map order, as recorded */
        const dt41_field_t *f = &a.fields[i];
        if (same(f->key, "last($time)")) {
            assert_int_equal(f->type, DT41_FIELD_STRING);
            dt41_agg_add_string(&b, f->key.p, f->key.n, "1002-071949", 11);
        } else {
            assert_int_equal(f->type, DT41_FIELD_FLOAT);
            double v = same(f->key, "avg($goroutines)") ? 6942 : same(f->key, "count($line)") ? 597 : 6;
            assert_true(f->f == v);
            dt41_agg_add_float(&b, f->key.p, f->key.n, v);
        }
    }
    wire_buf_t w = {0};
    dt41_put_aggregate(&w, &b);
    expect_bytes("map.out's AGGREGATE built", w.p, w.len - 1, m.raw.p, m.raw.n);
    wire_buf_free(&w);
    dt41_agg_free(&b);
    rec_close(&st);

    /* max($loadavg) of the hard floats: the Go dserver's own formatting */
    rec_open(&st, "server/map_floats.out");
    int seen = 0;
    for (size_t i = 0; i < st.n; i++) {
        m = msg_at(&st, i);
        if (m.kind != DT41_MSG_AGGREGATE)
            continue;
        assert_int_equal(dt41_agg_parse(&a, m.raw.p, m.raw.n, &e), 0);
        for (size_t j = 0; j < a.nfields; j++)
            if (same(a.fields[j].key, "max($loadavg)")) {
                assert_int_equal(a.fields[j].type, DT41_FIELD_FLOAT);
                seen++;
                if (same(a.group, "7.120236347223045e-307"))   /* 2^-1017 */
                    assert_true(a.fields[j].f == 0x1p-1017);
            }
    }
    assert_int_equal(seen, 25);
    rec_close(&st);

    /* len() sends its key twice: the length, then the string */
    rec_open(&st, "server/map_sums.out");
    m = msg_at(&st, 2);
    assert_int_equal(dt41_agg_parse(&a, m.raw.p, m.raw.n, &e), 0);
    int lens = 0;
    for (size_t j = 0; j < a.nfields; j++)
        if (same(a.fields[j].key, "len($caller)"))
            lens += a.fields[j].type == DT41_FIELD_FLOAT ? 1 : 10;
    assert_int_equal(lens, 11);
    assert_true(memchr(a.group.p, ',', a.group.n) != NULL);   /* group by $time,$cpus */
    rec_close(&st);
    dt41_agg_free(&a);
}

static void test_aggregate_errors(void **state)
{
    (void)state;
    dt41_agg_t a;
    dt41_agg_init(&a);
    err_t e;
    static const char *const few[] = {"AGGREGATE|h|g\xe2\x88\xa5" "1\xe2\x88\xa5", "AGGREGATE|h|",
                                      "AGGREGATE|h|g\xe2\x88\xa5" "1"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(dt41_agg_parse(&a, few[i], strlen(few[i]), &e), -1);
        assert_string_equal(e.msg, "aggregate message without any real data");
    }
    const char *bad = "AGGREGATE|h|g\xe2\x88\xa5x1\xe2\x88\xa5k\xe2\x89\x94" "1\xe2\x88\xa5";
    assert_int_equal(dt41_agg_parse(&a, bad, strlen(bad), &e), -1);
    assert_string_equal(e.msg, "unable to parse sample count 'x1': strconv.Atoi: parsing \"x1\": invalid syntax");
    assert_int_equal(dt41_agg_parse(&a, "AGGREGATE|h", 11, &e), -1);
    assert_int_equal(dt41_agg_parse(&a, "REMOTE|h|x", 10, &e), -1);
    /* a part without '≔' is kept (Go skips it) and written back */
    const char *bare = "AGGREGATE|h|g\xe2\x88\xa5" "2\xe2\x88\xa5junk\xe2\x88\xa5k\xe2\x89\x94v\xe2\x88\xa5";
    assert_int_equal(dt41_agg_parse(&a, bare, strlen(bare), &e), 0);
    assert_int_equal(a.nfields, 2);
    assert_int_equal(a.fields[0].type, DT41_FIELD_BARE);
    assert_int_equal(a.fields[1].type, DT41_FIELD_STRING);
    wire_buf_t w = {0};
    dt41_put_aggregate(&w, &a);
    expect_bytes("bare part written back", w.p, w.len - 1, bare, strlen(bare));
    wire_buf_free(&w);
    /* "1.50" is a string to us (Go would not write it), "1.5" a float */
    const char *nums = "AGGREGATE|h|\xe2\x88\xa5" "1\xe2\x88\xa5" "a\xe2\x89\x94" "1.50\xe2\x88\xa5"
                       "b\xe2\x89\x94" "1.5" "\xe2\x88\xa5";
    assert_int_equal(dt41_agg_parse(&a, nums, strlen(nums), &e), 0);
    assert_int_equal(a.group.n, 0);
    assert_int_equal(a.fields[0].type, DT41_FIELD_STRING);
    assert_int_equal(a.fields[1].type, DT41_FIELD_FLOAT);
    dt41_agg_free(&a);
}

/* ---- what the Go dserver said to what we sent it ------------------------------ */

/* The text of a refusal as the Go dserver sent it: the logger line's text
 * after "LEVEL|MMDD-HHMMSS|who|" for ERROR and WARN, the ack's reason for
 * session errors. */
static bool refusal_text(const dt41_msg_t *m, enum dt41_reply *reply, dt41_str_t *text)
{
    if (m->kind == DT41_MSG_SESSION_ACK && m->ack == DT41_ACK_ERROR) {
        *reply = DT41_REPLY_SESSION_ERR;
        *text = m->text;
        return true;
    }
    if (m->kind != DT41_MSG_SERVER)
        return false;
    dt41_str_t t = m->text;
    bool error = t.n > 6 && memcmp(t.p, "ERROR|", 6) == 0, warn = t.n > 5 && memcmp(t.p, "WARN|", 5) == 0;
    if (!error && !warn)
        return false;
    *reply = error ? DT41_REPLY_ERROR : DT41_REPLY_WARN;
    const char *p = t.p, *end = t.p + t.n;
    for (int bars = 0; bars < 3; bars++) {
        p = memchr(p, '|', (size_t)(end - p));
        assert_non_null(p);
        p++;
    }
    *text = (dt41_str_t){p, (size_t)(end - p)};
    return true;
}

/* Every frame of server/NAME.in that the parser refuses, in order, is a
 * refusal in server/NAME.out with the same text, level and newline; and
 * there are no others. */
static void expect_refusals(const char *name, bool health, int want)
{
    char in[256], out[256];
    snprintf(in, sizeof in, "server/%s.in", name);
    snprintf(out, sizeof out, "server/%s.out", name);
    size_t nf;
    dt41_str_t *f = frames_of(in, 5, &nf);
    recording_t st;
    rec_open(&st, out);
    size_t next = 0;
    int refused = 0;
    dt41_cmd_t c;
    dt41_cmd_init(&c);
    c.health_handler = health;
    for (size_t i = 0; i < nf; i++) {
        dt41_reject_t r;
        err_t e;
        if (dt41_cmd_parse(&c, f[i].p, f[i].n, &r, &e) == 0) {
            if (c.kind == DT41_CMD_ACK && c.close)
                continue;
            if (c.kind != DT41_CMD_AUTHKEY || !c.authkey_err)
                continue;
            snprintf(e.msg, sizeof e.msg, "AUTHKEY ERR %s", c.authkey_err);
            r.reply = DT41_REPLY_ERROR;
            r.newline = true;
        }
        refused++;
        for (; next < st.n; next++) {
            dt41_msg_t m = msg_at(&st, next);
            enum dt41_reply reply;
            dt41_str_t text;
            if (m.kind == DT41_MSG_AUTHKEY && !m.ok) {
                reply = DT41_REPLY_ERROR;
                const char *at = memmem(m.raw.p, m.raw.n, "AUTHKEY", 7);
                text = (dt41_str_t){at, (size_t)(m.raw.p + m.raw.n - at)};
            } else if (!refusal_text(&m, &reply, &text)) {
                continue;
            }
            char want_text[2048];
            int wn = snprintf(want_text, sizeof want_text, "%s%s", e.msg, r.newline ? "\n" : "");
            char what[300];
            snprintf(what, sizeof what, "%s, frame %zu: the refusal", name, i);
            expect_bytes(what, text.p, text.n, want_text, (size_t)wn);
            assert_int_equal(reply, r.reply);
            next++;
            break;
        }
    }
    for (; next < st.n; next++) {   /* none left over */
        dt41_msg_t m = msg_at(&st, next);
        enum dt41_reply reply;
        dt41_str_t text;
        if (m.kind == DT41_MSG_AUTHKEY && same(m.text, "invalid public key"))
            continue;   /* the key's check is the server's */
        if (refusal_text(&m, &reply, &text) || (m.kind == DT41_MSG_AUTHKEY && !m.ok))
            fail_msg("%s: a refusal the parser does not make: %.*s", name, (int)m.raw.n, m.raw.p);
    }
    assert_int_equal(refused, want);
    dt41_cmd_free(&c);
    rec_close(&st);
    free_pieces(f, nf);
}

static void test_go_refusals(void **state)
{
    (void)state;
    expect_refusals("mismatch", false, 9);
    expect_refusals("garbage", false, 15);
    expect_refusals("unknown_command", false, 1);
    expect_refusals("ack_short", false, 1);
    expect_refusals("cat_bad_regex", false, 1);
    expect_refusals("cat_short", false, 1);
    expect_refusals("health_as_user", false, 1);
    expect_refusals("session", false, 2);
    expect_refusals("authkey", false, 2);   /* invalid public key: the server's */
}

/* The version texts and the newline rule, case by case. */
static void test_version_texts(void **state)
{
    (void)state;
    static const struct {
        const char *v;
        const char *update;
        bool newline;
    } cases[] = {
        {"4.0", "client", false}, {"3", "client", true},   {"3.9", "client", true},
        {"5", "server", false},   {"4.2", "server", false}, {"4", "client", false},
        {"abc", "client", true},  {"4.1.0", "client", false}, {"41", "server", false},
        {"", "client", true},     {"-1", "client", true},  {"99999999999999999999", "server", false},
        {"4.x", "client", false}, {"4.10", "server", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool nl = !cases[i].newline;
        err_t e;
        assert_int_equal(dt41_version_check(cases[i].v, strlen(cases[i].v), &nl, &e), -1);
        char want[300];
        snprintf(want, sizeof want,
                 "the DTail server protocol version '4.1' does not match client protocol version '%s', "
                 "please update DTail %s",
                 cases[i].v, cases[i].update);
        assert_string_equal(e.msg, want);
        if (nl != cases[i].newline)
            fail_msg("version '%s': newline %d", cases[i].v, nl);
    }
    bool nl = true;
    err_t e;
    assert_int_equal(dt41_version_check("4.1", 3, &nl, &e), 0);
    assert_false(nl);
}

/* ---- the framer's limit ---------------------------------------------------------- */

static void test_frame_limit(void **state)
{
    (void)state;
    /* server/frame_1mib: exactly 1 MiB before the ';', taken */
    const char *head = "grep: /tmp/dt41-record/data/small.log regex:default ";
    size_t dn = 786417, hn = strlen(head);
    char *cmd = malloc(dn);
    memcpy(cmd, head, hn);
    memset(cmd + hn, 'x', dn - hn);
    wire_buf_t fb = {0};
    dt41_put_frame(&fb, cmd, dn);
    assert_int_equal(fb.len, DT41_MAX_FRAME + 1);
    dt41_splitter_t s;
    dt41_framer_init(&s, 0);
    size_t n;
    dt41_str_t *f = pieces(&s, (blob_t){(char *)fb.p, fb.len}, 1, &n);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].n, DT41_MAX_FRAME);
    dt41_cmd_t c;
    dt41_cmd_init(&c);
    dt41_reject_t r;
    err_t e;
    assert_int_equal(dt41_cmd_parse(&c, f[0].p, f[0].n, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_GREP);
    assert_int_equal(c.regex.pattern.n, dn - hn);
    free_pieces(f, n);
    dt41_splitter_free(&s);
    wire_buf_free(&fb);
    free(cmd);

    /* server/oversize: one byte more and no ';': refused, whatever the chunks */
    size_t big = DT41_MAX_FRAME + 1;
    char *as = malloc(big);
    memset(as, 'A', big);
    uint64_t seed = 5;
    for (int round = 0; round < 3; round++) {
        dt41_framer_init(&s, 0);
        size_t at = 0;
        int rc = 0;
        while (at < big && rc >= 0) {
            size_t chunk = round == 0 ? big : 1 + rng_next(&seed) % 100000;
            if (chunk > big - at)
                chunk = big - at;
            size_t used;
            dt41_str_t piece;
            unsigned long long where;
            rc = dt41_split(&s, as + at, chunk, &used, &piece, &where, &e);
            at += used;
        }
        assert_int_equal(rc, -1);
        assert_string_equal(e.msg, "command frame at byte 0 exceeds the maximum of 1048576 bytes: "
                                   "1048577 bytes and no ';'");
        dt41_splitter_free(&s);
    }
    free(as);
    /* the Go dserver closed the session after its capabilities */
    recording_t st;
    rec_open(&st, "server/oversize.out");
    assert_int_equal(st.n, 1);
    rec_close(&st);
    dt41_cmd_free(&c);

    /* a message splitter has its own bound and text */
    dt41_msgsplit_init(&s, 8);
    size_t used;
    dt41_str_t piece;
    unsigned long long where;
    assert_int_equal(dt41_split(&s, "abc\xac" "defghijkl", 13, &used, &piece, &where, &e), 1);
    assert_int_equal(used, 4);
    assert_int_equal(dt41_split(&s, "defghijkl", 9, &used, &piece, &where, &e), -1);
    assert_string_equal(e.msg, "server message at byte 4 exceeds the maximum of 8 bytes: 9 bytes and no 0xAC");
    dt41_splitter_free(&s);
}

/* ---- refusals by construction ------------------------------------------------------ */

static int parse_text(dt41_cmd_t *c, const char *text, bool fields, dt41_reject_t *r, err_t *e)
{
    return dt41_cmd_parse_text(c, text, strlen(text), fields, r, e);
}

static void expect_refused(dt41_cmd_t *c, const char *text, const char *msg, enum dt41_reply reply,
                           bool newline, bool finishes)
{
    dt41_reject_t r;
    err_t e;
    if (parse_text(c, text, false, &r, &e) == 0)
        fail_msg("\"%s\": taken", text);
    if (strcmp(e.msg, msg) != 0)
        fail_msg("\"%s\":\n got  %s\n want %s", text, e.msg, msg);
    assert_int_equal(r.reply, reply);
    assert_int_equal(r.newline, newline);
    assert_int_equal(r.finishes, finishes);
}

static void test_command_refusals(void **state)
{
    (void)state;
    dt41_cmd_t c;
    dt41_cmd_init(&c);
    expect_refused(&c, "foo bar", "Received unknown user command|foo|2|[foo bar]", DT41_REPLY_ERROR, true, true);
    expect_refused(&c, "", "Received unknown user command||1|[]", DT41_REPLY_ERROR, true, true);
    expect_refused(&c, "CAT: /x regex:noop ", "Received unknown user command|CAT|4|[CAT: /x regex:noop ]",
                   DT41_REPLY_ERROR, true, true);
    expect_refused(&c, "timeout 5 foo x y", "Received unknown user command|foo|3|[foo x y]", DT41_REPLY_ERROR,
                   true, true);
    expect_refused(&c, "cat:quiet /x regex:noop ", "Unable to parse options: [quiet]", DT41_REPLY_ERROR, true,
                   false);
    expect_refused(&c, "cat:a=1::b=2 /x regex:noop ", "Unable to parse options: []", DT41_REPLY_ERROR, true,
                   false);
    expect_refused(&c, "grep:before=x2 /x regex:noop ", "strconv.Atoi: parsing \"x2\": invalid syntax",
                   DT41_REPLY_ERROR, true, false);
    expect_refused(&c, "grep:max=99999999999999999999 /x regex:noop ",
                   "strconv.Atoi: parsing \"99999999999999999999\": value out of range", DT41_REPLY_ERROR, true,
                   false);
    expect_refused(&c, "cat:plain=base64%Zm9v! /x regex:noop ", "illegal base64 data at input byte 4",
                   DT41_REPLY_ERROR, true, false);
    expect_refused(&c, "timeout 1x cat /x regex:noop ",
                   "invalid timeout value \"1x\": strconv.Atoi: parsing \"1x\": invalid syntax", DT41_REPLY_ERROR,
                   true, false);
    expect_refused(&c, "timeout 86401 cat /x regex:noop ", "timeout value 86401 exceeds maximum of 86400 seconds",
                   DT41_REPLY_ERROR, true, false);
    expect_refused(&c, "cat:", "Unable to parse command|[cat:]|1", DT41_REPLY_WARN, true, true);
    expect_refused(&c, "cat: /x rgx x", "Unable to parse command|unable to deserialize regex 'rgx x': "
                                          "should start with string 'regex'",
                   DT41_REPLY_ERROR, true, true);
    expect_refused(&c, "tail: /x regex: x", "Unable to parse command|unknown regex flag \"\": unknown regex "
                                            "flag '', setting to 'undefined'",
                   DT41_REPLY_ERROR, true, true);
    expect_refused(&c, ".ack close", "Unable to parse command|[.ack close]|2", DT41_REPLY_WARN, true, true);
    expect_refused(&c, "SESSION START", "invalid SESSION command", DT41_REPLY_SESSION_ERR, false, false);
    expect_refused(&c, "SESSION UPDATE e30=", "unsupported session mode", DT41_REPLY_SESSION_ERR, false, false);
    expect_refused(&c, "SESSION UPDATE x e30= y", "invalid session generation", DT41_REPLY_SESSION_ERR, false,
                   false);
    expect_refused(&c, "SESSION START !!", "invalid session payload", DT41_REPLY_SESSION_ERR, false, false);
    /* {"mode":3,"query":"q"}, {"mode":5}, {"mode":"3"}, {"mode":3,"options":"quiet"}, [] */
    expect_refused(&c, "SESSION START eyJtb2RlIjozLCJxdWVyeSI6InEifQ==", "query sessions require map or tail mode",
                   DT41_REPLY_SESSION_ERR, false, false);
    expect_refused(&c, "SESSION START eyJtb2RlIjo1fQ==", "missing session query", DT41_REPLY_SESSION_ERR, false,
                   false);
    expect_refused(&c, "SESSION START eyJtb2RlIjoiMyJ9", "invalid session spec", DT41_REPLY_SESSION_ERR, false,
                   false);
    expect_refused(&c, "SESSION START eyJtb2RlIjozLCJvcHRpb25zIjoicXVpZXQifQ==", "invalid session spec",
                   DT41_REPLY_SESSION_ERR, false, false);
    expect_refused(&c, "SESSION START W10=", "invalid session spec", DT41_REPLY_SESSION_ERR, false, false);
    expect_refused(&c, "SESSION RESTART eyJtb2RlIjozfQ==", "unknown action", DT41_REPLY_SESSION_ERR, false, false);
    expect_refused(&c, "SESSION START bnVsbA==", "unsupported session mode", DT41_REPLY_SESSION_ERR, false, false);

    c.health_handler = true;
    expect_refused(&c, "cat: /x regex:noop ", "Received unknown health command|cat|4|[cat: /x regex:noop ]",
                   DT41_REPLY_ERROR, false, true);
    dt41_reject_t r;
    err_t e;
    assert_int_equal(parse_text(&c, "health", false, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_HEALTH);
    assert_int_equal(parse_text(&c, ".ack close connection", false, &r, &e), 0);
    assert_true(c.close);
    dt41_cmd_free(&c);
}

static void test_command_details(void **state)
{
    (void)state;
    dt41_cmd_t c;
    dt41_cmd_init(&c);
    dt41_reject_t r;
    err_t e;
    /* options: escaped values, unknown keys kept silently, "+1", only "true" is true */
    assert_int_equal(parse_text(&c, "cat:plain=base64%dHJ1ZQ==:quiet=yes:zzz=1:=2:before=+1 /x regex:noop ",
                                false, &r, &e), 0);
    assert_true(c.has_opts);
    assert_true(c.opts.plain);
    assert_false(c.opts.quiet);
    assert_int_equal(c.opts.before, 1);
    assert_true(c.has_regex);   /* "regex:noop " and the empty word after it */
    assert_int_equal(c.regex.match, DT41_MATCH_NOOP);
    /* a value of any length (Go has no bound), and no options at all */
    char longer[3100] = "cat:zzz=base64%";
    memset(longer + 15, 'A', 3000);   /* 2250 bytes once decoded */
    strcpy(longer + 3015, " /x regex:noop ");
    assert_int_equal(parse_text(&c, longer, false, &r, &e), 0);
    memcpy(longer, "cat:max", 7);
    assert_int_equal(parse_text(&c, longer, false, &r, &e), -1);
    static const char zeros[] = "strconv.Atoi: parsing \"\\x00\\x00";
    assert_true(strncmp(e.msg, zeros, sizeof zeros - 1) == 0);
    dt41_opts_t none;
    assert_int_equal(dt41_opts_parse(NULL, 0, &none, &e), 0);
    assert_int_equal(parse_text(&c, "cat:\t /x", false, &r, &e), -1);   /* argc 2 */
    assert_int_equal(parse_text(&c, "cat: /x y", false, &r, &e), 0);   /* 3 words: no pattern */
    assert_false(c.has_regex);
    assert_int_equal(c.regex.match, DT41_MATCH_NOOP);
    /* timeout 0 or less: no timeout */
    assert_int_equal(parse_text(&c, "timeout -3 tail /x regex:noop ", false, &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_TAIL);
    assert_false(c.has_timeout);
    /* the pattern: words after the path joined again, spaces kept */
    assert_int_equal(parse_text(&c, "grep: /x regex:invert,literal a  b ", false, &r, &e), 0);
    assert_int_equal(c.regex.match, DT41_MATCH_INVERT);
    assert_true(c.regex.literal);
    assert_true(same(c.regex.pattern, "a  b "));
    assert_int_equal(parse_text(&c, "grep: /x regex:noop,default a", false, &r, &e), 0);
    assert_int_equal(c.regex.match, DT41_MATCH_NOOP);   /* the first flag counts */
    assert_int_equal(parse_text(&c, "grep: /x regex a", false, &r, &e), 0);
    assert_int_equal(c.regex.match, DT41_MATCH_DEFAULT);
    /* a SESSION spec's commands go through strings.Fields */
    assert_int_equal(parse_text(&c, "  grep:max=2\t/x   regex:default  a \xc2\xa0 b  ", true, &r, &e), 0);
    assert_int_equal(c.opts.max, 2);
    assert_true(same(c.path, "/x"));
    assert_true(same(c.regex.pattern, "a b"));
    assert_int_equal(parse_text(&c, " \t ", true, &r, &e), -1);
    assert_string_equal(e.msg, "empty command");
    /* AUTHKEY */
    assert_int_equal(parse_text(&c, "authkey", false, &r, &e), 0);
    assert_string_equal(c.authkey_err, "missing public key");
    assert_int_equal(parse_text(&c, "AUTHKEY  x", false, &r, &e), 0);   /* args[1] is "" */
    assert_string_equal(c.authkey_err, "missing public key");
    assert_int_equal(parse_text(&c, "AUTHKEY Zm9v!", false, &r, &e), 0);
    assert_string_equal(c.authkey_err, "invalid base64");
    assert_int_equal(parse_text(&c, "AUTHKEY Zm9v", false, &r, &e), 0);
    assert_null(c.authkey_err);
    assert_true(same(c.authkey_blob, "foo"));
    /* .ack without close connection: an ack of nothing */
    assert_int_equal(parse_text(&c, ".ack x y", false, &r, &e), 0);
    assert_false(c.close);
    /* map: the rest of the words */
    assert_int_equal(parse_text(&c, "map:quiet=true from STATS  select x", false, &r, &e), 0);
    assert_true(c.opts.quiet);
    assert_true(same(c.query, "from STATS  select x"));
    /* SESSION: case of the action, null, case of the keys, a gen of 0 */
    assert_int_equal(parse_text(&c, "session update 0 eyJNT0RFIjoyLCJGaWxlcyI6bnVsbCwicmVnZXgiOm51bGx9", false, &r,
                                &e), 0);   /* {"MODE":2,"Files":null,"regex":null} */
    assert_int_equal(c.kind, DT41_CMD_SESSION_UPDATE);
    assert_int_equal(c.generation, 0);
    assert_int_equal(c.spec.mode, DT41_MODE_TAIL);
    assert_null(c.spec.files);
    dt41_cmd_free(&c);

    /* a frame's words */
    dt41_cmd_init(&c);
    const char *frame = "protocol 4.1 base64 Y2F0OiAveCByZWdleDpub29wIA==";
    assert_int_equal(dt41_cmd_parse(&c, frame, strlen(frame), &r, &e), 0);
    assert_int_equal(c.kind, DT41_CMD_CAT);
    assert_true(same(c.text, "cat: /x regex:noop "));
    frame = "protocol 4.1 base64 Y2F0O!==";
    assert_int_equal(dt41_cmd_parse(&c, frame, strlen(frame), &r, &e), -1);
    assert_string_equal(e.msg, "illegal base64 data at input byte 5");
    assert_int_equal(e.offset, 25);
    assert_true(r.newline);
    frame = "\nprotocol 4.1 base64 Y2F0";   /* a newline between frames is not skipped */
    assert_int_equal(dt41_cmd_parse(&c, frame, strlen(frame), &r, &e), -1);
    assert_string_equal(e.msg, "unable to determine protocol version");
    assert_false(r.newline);
    dt41_cmd_free(&c);
}

/* ---- encoders by construction ------------------------------------------------------ */

static void test_encoders(void **state)
{
    (void)state;
    wire_buf_t b = {0};
    dt41_opts_t o = {.after = 3, .before = 2, .max = -1, .plain = true, .quiet = true, .serverless = true};
    dt41_opts_encode(&b, &o);
    expect_bytes("options", b.p, b.len, "after=3:before=2:max=-1:plain=true:quiet=true:serverless=true", 61);
    b.len = 0;
    dt41_opts_encode(&b, &(dt41_opts_t){0});
    assert_int_equal(b.len, 0);

    static const struct {
        const char *pattern;
        bool invert;
        const char *want;
    } re[] = {
        {"", true, "regex:noop "},           {".", false, "regex:noop "},
        {".*", true, "regex:noop "},         {"ERROR", false, "regex:default,literal ERROR"},
        {"a b", true, "regex:invert,literal a b"}, {"a|b", false, "regex:default a|b"},
        {"x\\y", true, "regex:invert x\\y"},  {"..", false, "regex:default .."},
    };
    for (size_t i = 0; i < sizeof re / sizeof re[0]; i++) {
        b.len = 0;
        dt41_regex_encode(&b, re[i].pattern, strlen(re[i].pattern), re[i].invert);
        expect_bytes(re[i].pattern, b.p, b.len, re[i].want, strlen(re[i].want));
    }

    /* Go's json.Marshal of awkward strings */
    dt41_str_t files[] = {{"a<b>&c", 6}, {"\"\\\b\f\n\r\t\x01\x7f", 9}, {"\xe2\x80\xa8\xe2\x80\xa9\xff\xc3\xa9", 9}};
    dt41_spec_t spec = {.mode = DT41_MODE_GREP, .files = files, .nfiles = 3, .regex_invert = true, .timeout = 5,
                        .regex = {"x", 1}};
    b.len = 0;
    dt41_spec_json(&b, &spec);
    const char *want = "{\"mode\":4,\"files\":[\"a\\u003cb\\u003e\\u0026c\",\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\x7f\","
                       "\"\\u2028\\u2029\\ufffd\xc3\xa9\"],\"regex\":\"x\",\"regex_invert\":true,\"timeout\":5}";
    expect_bytes("spec json", b.p, b.len, want, strlen(want));
    b.len = 0;
    dt41_spec_json(&b, &(dt41_spec_t){.mode = DT41_MODE_CAT});
    expect_bytes("empty spec json", b.p, b.len, "{\"mode\":3,\"files\":null}", 23);
    b.len = 0;
    dt41_spec_json(&b, &(dt41_spec_t){.mode = DT41_MODE_CAT, .files = files, .nfiles = 0});
    expect_bytes("no files json", b.p, b.len, "{\"mode\":3,\"files\":[]}", 21);

    /* the legacy commands */
    err_t e;
    b.len = 0;
    assert_int_equal(dt41_put_spec_frames(&b, &(dt41_spec_t){.mode = DT41_MODE_HEALTH}, &e), 0);
    expect_bytes("health", b.p, b.len, "protocol 4.1 base64 aGVhbHRo;", 29);
    b.len = 0;
    assert_int_equal(dt41_put_spec_frames(&b, &(dt41_spec_t){.mode = DT41_MODE_MAP}, &e), -1);
    assert_string_equal(e.msg, "unsupported session mode map");
    assert_int_equal(dt41_put_spec_frames(&b, &(dt41_spec_t){.mode = DT41_MODE_GREP, .query = {"q", 1}}, &e), -1);
    assert_string_equal(e.msg, "session spec query mode requires map or tail mode, got grep");
    /* a timeout without a query is not sent (Go drops it) */
    dt41_str_t one[] = {{"/x", 2}};
    b.len = 0;
    assert_int_equal(dt41_put_spec_frames(&b, &(dt41_spec_t){.mode = DT41_MODE_CAT, .files = one, .nfiles = 1,
                                                             .timeout = 9}, &e), 0);
    wire_buf_t w = {0};
    dt41_put_frame(&w, "cat: /x regex:noop ", 19);
    expect_bytes("cat with a timeout", b.p, b.len, w.p, w.len);
    wire_buf_free(&w);

    /* the server's logger lines */
    b.len = 0;
    time_t t = 0;
    dt41_put_server_log(&b, "h", false, "WARN", t, "u@1.2.3.4:5", "Unable|x", 8, true);
    struct tm tm;
    char when[32], line[128];
    localtime_r(&t, &tm);
    strftime(when, sizeof when, "%m%d-%H%M%S", &tm);
    int n = snprintf(line, sizeof line, "SERVER|h|WARN|%s|u@1.2.3.4:5|Unable|x\n\xac", when);
    expect_bytes("a logger line", b.p, b.len, line, (size_t)n);
    b.len = 0;
    dt41_put_server(&b, "h", "AUTHKEY OK\n", 11, true);
    expect_bytes("plain server message", b.p, b.len, "AUTHKEY OK\n\xac", 12);
    wire_buf_free(&b);
}

/* A REMOTE line ending "|AUTHKEY OK" is content (Go's client swallows it),
 * a SERVER one is the ack; odd shapes are PLAIN. */
static void test_classify_edges(void **state)
{
    (void)state;
    dt41_msg_t m;
    const char *s = "REMOTE|h|100|7|f|a|AUTHKEY OK\n";
    dt41_msg_classify(s, strlen(s), &m);
    assert_int_equal(m.kind, DT41_MSG_REMOTE);
    assert_int_equal(m.lineno, 7);
    s = "REMOTE|h|100|x|f|a";
    dt41_msg_classify(s, strlen(s), &m);
    assert_int_equal(m.kind, DT41_MSG_PLAIN);
    s = "SERVER|h|WARN|x|AUTHKEY ERR  invalid base64 \n";
    dt41_msg_classify(s, strlen(s), &m);
    assert_int_equal(m.kind, DT41_MSG_AUTHKEY);
    assert_true(same(m.text, "invalid base64"));
    s = "SERVER|h";
    dt41_msg_classify(s, strlen(s), &m);
    assert_int_equal(m.kind, DT41_MSG_PLAIN);
    dt41_msg_classify("", 0, &m);
    assert_int_equal(m.kind, DT41_MSG_PLAIN);
    s = ".syn session start ok x";
    dt41_msg_classify(s, strlen(s), &m);
    assert_int_equal(m.kind, DT41_MSG_HIDDEN);   /* Go warns and drops it */
    s = ".syn close connection now";
    dt41_msg_classify(s, strlen(s), &m);
    assert_int_equal(m.kind, DT41_MSG_CLOSE);
    s = "AGGREGATE|h";
    dt41_msg_classify(s, strlen(s), &m);
    assert_int_equal(m.kind, DT41_MSG_AGGREGATE);
    assert_true(same(m.host, "h"));
    assert_int_equal(m.text.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_commands_reencode),
        cmocka_unit_test(test_client_commands_meaning),
        cmocka_unit_test(test_server_streams_classify),
        cmocka_unit_test(test_cat_stream),
        cmocka_unit_test(test_control_messages),
        cmocka_unit_test(test_aggregate_build),
        cmocka_unit_test(test_aggregate_errors),
        cmocka_unit_test(test_go_refusals),
        cmocka_unit_test(test_version_texts),
        cmocka_unit_test(test_frame_limit),
        cmocka_unit_test(test_command_refusals),
        cmocka_unit_test(test_command_details),
        cmocka_unit_test(test_encoders),
        cmocka_unit_test(test_classify_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
