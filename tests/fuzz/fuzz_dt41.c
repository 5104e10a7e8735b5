/* fuzz_dt41.c: libFuzzer target over both parsers of DTail 4.1
 * (wire/dt41.h). The first byte picks the chunk size the bytes are fed
 * in, the health handler, and small bounds; the rest goes through
 *  - the server side: framer, command parser, and for what parses, the
 *    options and SESSION spec encoded again must parse to the same;
 *  - the client side: message splitter, classifier, AGGREGATE parser, and
 *    for what parses, formatting is idempotent (format, parse, format
 *    gives the same bytes).
 * Each frame is also parsed as a decoded command (as a SESSION spec's
 * command when the selector's low bit is set).
 * Any input must end in pieces or errors with a message: never a crash,
 * a leak, a loop or a broken property (abort). Seeds: the recorded
 * exchanges (tests/fixtures/dt41/), one selector byte in front. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/dt41.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool str_eq(dt41_str_t a, dt41_str_t b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static void check_opts(const dt41_opts_t *o)
{
    wire_buf_t b = {0};
    dt41_opts_encode(&b, o);
    dt41_opts_t again;
    err_t e;
    if (b.failed || dt41_opts_parse((const char *)b.p, b.len, &again, &e) < 0)
        abort();
    if (again.after != o->after || again.before != o->before || again.max != o->max ||
        again.plain != o->plain || again.quiet != o->quiet || again.serverless != o->serverless)
        abort();
    wire_buf_free(&b);
}

/* The spec encoded again (our JSON, as Go's) reads back as the same. */
static void check_session(const dt41_cmd_t *c)
{
    wire_buf_t b = {0};
    dt41_put_session_frame(&b, c->kind == DT41_CMD_SESSION_UPDATE, c->generation, &c->spec);
    if (b.failed || b.len == 0)
        abort();
    dt41_cmd_t d;
    dt41_cmd_init(&d);
    dt41_reject_t r;
    err_t e;
    if (dt41_cmd_parse(&d, (const char *)b.p, b.len - 1, &r, &e) < 0)
        abort();
    const dt41_spec_t *s = &c->spec, *t = &d.spec;
    if (d.kind != c->kind || d.generation != c->generation || t->mode != s->mode || t->nfiles != s->nfiles ||
        t->timeout != s->timeout || t->regex_invert != s->regex_invert || !str_eq(t->query, s->query) ||
        !str_eq(t->regex, s->regex) || !str_eq(t->options, s->options) || (t->files == NULL) != (s->files == NULL))
        abort();
    for (size_t i = 0; i < s->nfiles; i++)
        if (!str_eq(t->files[i], s->files[i]))
            abort();
    dt41_cmd_free(&d);
    wire_buf_free(&b);
}

/* After a parse: an error has a message; what parsed keeps its properties. */
static void after_parse(const dt41_cmd_t *c, int rc, const err_t *e)
{
    if (rc < 0) {
        if (!e->msg[0])
            abort();
        return;
    }
    if (c->has_opts)
        check_opts(&c->opts);
    if (c->kind == DT41_CMD_SESSION_START || c->kind == DT41_CMD_SESSION_UPDATE)
        check_session(c);
}

typedef struct server_ctx {
    dt41_cmd_t cmd;
    bool fields;
} server_ctx_t;

/* A frame as a frame, and its bytes as a decoded command (seeds hold
 * both kinds: base64 hides the words from the fuzzer). */
static void command(server_ctx_t *x, dt41_str_t frame)
{
    dt41_reject_t r;
    err_t e;
    e.msg[0] = '\0';
    after_parse(&x->cmd, dt41_cmd_parse(&x->cmd, frame.p, frame.n, &r, &e), &e);
    e.msg[0] = '\0';
    after_parse(&x->cmd, dt41_cmd_parse_text(&x->cmd, frame.p, frame.n, x->fields, &r, &e), &e);
}

static void aggregate(dt41_agg_t *a, dt41_str_t m)
{
    err_t e;
    e.msg[0] = '\0';
    if (dt41_agg_parse(a, m.p, m.n, &e) < 0) {
        if (!e.msg[0])
            abort();
        return;
    }
    wire_buf_t once = {0}, twice = {0};
    dt41_put_aggregate(&once, a);
    dt41_agg_t b;
    dt41_agg_init(&b);
    if (once.failed || dt41_agg_parse(&b, (const char *)once.p, once.len - 1, &e) < 0 || b.nfields != a->nfields)
        abort();
    dt41_put_aggregate(&twice, &b);
    if (twice.len != once.len || memcmp(twice.p, once.p, once.len) != 0)
        abort();
    dt41_agg_free(&b);
    wire_buf_free(&once);
    wire_buf_free(&twice);
}

/* Feeds data to s in chunks; each whole piece to each. */
static void split_all(dt41_splitter_t *s, const uint8_t *data, size_t size, size_t chunk,
                      void (*each)(void *ctx, dt41_str_t piece), void *ctx)
{
    for (size_t at = 0; at < size;) {
        size_t n = chunk < size - at ? chunk : size - at;
        const char *p = (const char *)data + at;
        while (n) {
            size_t used;
            dt41_str_t piece;
            unsigned long long where;
            err_t e;
            int r = dt41_split(s, p, n, &used, &piece, &where, &e);
            if (r < 0)
                return;   /* the stream cannot go on */
            if (used == 0 || used > n)
                abort();
            p += used;
            n -= used;
            at += used;
            if (r == 1)
                each(ctx, piece);
        }
    }
}

static void on_frame(void *ctx, dt41_str_t piece)
{
    command(ctx, piece);
}

static void on_message(void *ctx, dt41_str_t piece)
{
    dt41_msg_t m;
    dt41_msg_classify(piece.p, piece.n, &m);
    if (m.raw.p != piece.p || m.raw.n != piece.n)
        abort();
    if (m.kind == DT41_MSG_AGGREGATE)
        aggregate(ctx, piece);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned sel = data[0];
    data++;
    size--;
    size_t chunk = 1 + (sel & 0x3f) * 37;
    bool small = sel & 0x80;

    dt41_splitter_t s;
    server_ctx_t x;
    dt41_cmd_init(&x.cmd);
    x.cmd.health_handler = (sel & 0x40) != 0;
    x.fields = (sel & 1) != 0;
    dt41_framer_init(&s, small ? 300 : 0);
    split_all(&s, data, size, chunk, on_frame, &x);
    dt41_splitter_free(&s);
    dt41_cmd_free(&x.cmd);

    dt41_agg_t a;
    dt41_agg_init(&a);
    dt41_msgsplit_init(&s, small ? 300 : 0);
    split_all(&s, data, size, chunk, on_message, &a);
    dt41_splitter_free(&s);
    dt41_agg_free(&a);
    return 0;
}
