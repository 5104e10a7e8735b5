/* test_session.c: session_serve on one end of a socketpair (in a thread),
 * a minimal client on the other: cat, grep and map give what the
 * serverless plans give; denials by rule, by mode bits and through a
 * symlink out of the allowed tree are reported by the name asked for; a
 * client that disconnects mid-stream, a malformed frame and a DTail 4.1
 * client end the session with an error, and the server carries on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/outbuf.h"
#include "exec/agg/eval.h"
#include "exec/linescan.h"
#include "exec/sink/result.h"
#include "parser/parser.h"
#include "server/session.h"
#include "tests/support/sockstream.h"
#include "wire/frame.h"
#include "wire/msg.h"

static char dir[256];
static char user[256];
static int glob_limit;   /* Server.MaxGlobTargets for the next start(); 0: default */

typedef struct server {
    int fd;                      /* server end */
    config_t cfg;                /* with the test's permissions */
    server_limits_t *limits;     /* process-wide */
    server_counters_t counters;  /* process-wide */
    int rc;                      /* session_serve's result */
    err_t e;                     /* and error */
    pthread_t th;                /* serving thread */
} server_t;

static void *serve(void *arg)
{
    server_t *sv = arg;
    stream_t s = sock_stream(&sv->fd);
    session_env_t env = {.user = user, .hostname = "testhost.example", .cfg = &sv->cfg,
                         .limits = sv->limits, .counters = &sv->counters, .stopping = NULL};
    sv->rc = session_serve(&s, &env, &sv->e);
    close(sv->fd);
    return NULL;
}

/* Starts a server with the permissions JSON perms (NULL: the tree's
 * allowed/ without its secret*); returns the client's end. The config is
 * complete before the thread starts: the session compiles the rules at once. */
static int start_with(server_t *sv, const char *perms)
{
    memset(sv, 0, sizeof *sv);
    config_defaults(&sv->cfg);
    if (glob_limit)
        sv->cfg.max_glob_targets = glob_limit;
    if (perms)
        snprintf(sv->cfg.permissions, sizeof sv->cfg.permissions, "%s", perms);
    else
        snprintf(sv->cfg.permissions, sizeof sv->cfg.permissions,
                 "{\"Default\":[\"^%s/allowed/\",\"!^%s/allowed/secret\"]}", dir, dir);
    err_t e;
    sv->limits = server_limits_create(&sv->cfg, &e);
    int p[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
    sv->fd = p[0];
    pthread_create(&sv->th, NULL, serve, sv);
    return p[1];
}

static int start(server_t *sv)
{
    return start_with(sv, NULL);
}

static void stop(server_t *sv, int fd)
{
    close(fd);
    pthread_join(sv->th, NULL);
    server_limits_free(sv->limits);
}

/* What a client received for one request. */
typedef struct reply {
    char *lines;                 /* LINES bytes */
    size_t len;                  /* their length */
    char statuses[4096];         /* "STATUS name|" per FILE_STATUS */
    char messages[4096];         /* MESSAGE texts */
    unsigned char *table;        /* the last AGGREGATE */
    size_t table_len;            /* its bytes */
    int final_seen;              /* an AGGREGATE marked final */
    int end;                     /* END status, -1 if none */
    char end_text[1024];         /* END message */
} reply_t;

static void hello(stream_t *s, wire_reader_t *r)
{
    wire_buf_t b = {0};
    wire_hello_t h;
    wire_hello_init(&h, "client");
    wire_encode_hello(&b, &h);
    err_t e;
    assert_int_equal(wire_buf_send(&b, s, &e), 0);
    wire_buf_free(&b);
    wire_frame_t f;
    assert_int_equal(wire_read_frame(r, &f, &e), 1);
    assert_int_equal(wire_decode_hello(&f, &h, &e), 0);
    assert_string_equal(h.host, "testhost");
}

/* The client's reader and HELLO exchange. */
static void open_session(stream_t *s, wire_reader_t *r)
{
    err_t e;
    assert_int_equal(wire_reader_init(r, s, 0, &e), 0);
    hello(s, r);
}

static void request(stream_t *s, wire_reader_t *r, const wire_request_t *rq, reply_t *out)
{
    memset(out, 0, sizeof *out);
    out->end = -1;
    wire_buf_t b = {0};
    wire_encode_request(&b, rq);
    err_t e;
    assert_int_equal(wire_buf_send(&b, s, &e), 0);
    wire_buf_free(&b);
    wire_frame_t f;
    while (out->end < 0 && wire_read_frame(r, &f, &e) == 1) {
        wire_msg_t m;
        assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
        if (m.type == WIRE_LINES) {
            out->lines = realloc(out->lines, out->len + m.data.len + 1);
            memcpy(out->lines + out->len, m.data.p, m.data.len);
            out->len += m.data.len;
            out->lines[out->len] = '\0';
        } else if (m.type == WIRE_FILE_STATUS) {
            size_t l = strlen(out->statuses);
            snprintf(out->statuses + l, sizeof out->statuses - l, "%d %.*s|", m.status,
                     (int)m.name.len, m.name.p);
        } else if (m.type == WIRE_MESSAGE) {
            size_t l = strlen(out->messages);
            snprintf(out->messages + l, sizeof out->messages - l, "%.*s|", (int)m.text.len, m.text.p);
        } else if (m.type == WIRE_AGGREGATE) {
            free(out->table);
            out->table = malloc(m.data.len);
            memcpy(out->table, m.data.p, m.data.len);
            out->table_len = m.data.len;
            out->final_seen |= m.status;
        } else if (m.type == WIRE_END) {
            out->end = m.status;
            snprintf(out->end_text, sizeof out->end_text, "%.*s", (int)m.text.len, m.text.p);
        }
    }
}

static void reply_free(reply_t *r)
{
    free(r->lines);
    free(r->table);
}

/* The serverless plan's output for one file. */
static char *serverless(const char *path, const char *source, const char *regex, int render,
                        unsigned before, unsigned after, size_t *len)
{
    err_t e;
    matcher_t m;
    assert_int_equal(matcher_init(&m, regex, &e), 0);
    outbuf_t out;
    assert_int_equal(outbuf_init_mem(&out, 4096, &e), 0);
    line_sink_t sink;
    assert_int_equal(line_sink_init(&sink, &out, (enum line_format)render, "testhost.example"), 0);
    line_sink_set_source(&sink, source);
    linescan_opts_t lo = {.matcher = &m, .before = before, .after = after, .max_line_len = 1 << 20};
    linescan_t ls;
    assert_int_equal(linescan_init(&ls, &lo, &e), 0);
    input_t *in = input_open(path, &e);
    assert_non_null(in);
    linescan_stats_t st = {0};
    assert_int_equal(linescan_run(&ls, in, path, &sink, &st, &e), 0);
    input_close(in);
    linescan_free(&ls);
    line_sink_free(&sink);
    matcher_free(&m);
    *len = out.len;
    return out.data;
}

static void write_lines(const char *path, int n, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s line %d of the log\n", i % 7 == 0 ? "ERROR" : "INFO", i);
    fclose(f);
    chmod(path, mode);
}

static int setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/test_session.XXXXXX");
    assert_non_null(mkdtemp(dir));
    struct passwd *pw = getpwuid(getuid());
    snprintf(user, sizeof user, "%s", pw->pw_name);
    char p[512];
    snprintf(p, sizeof p, "%s/allowed", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/outside", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/allowed/app.log", dir);
    write_lines(p, 5000, 0644);
    snprintf(p, sizeof p, "%s/allowed/secret.log", dir);
    write_lines(p, 10, 0644);
    snprintf(p, sizeof p, "%s/allowed/writeonly.log", dir);
    write_lines(p, 10, 0200);
    snprintf(p, sizeof p, "%s/outside/other.log", dir);
    write_lines(p, 10, 0644);
    char link[512];
    snprintf(link, sizeof link, "%s/allowed/escape.log", dir);
    assert_int_equal(symlink(p, link), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

static void scan_case(uint8_t kind, const char *regex, int render, unsigned before, unsigned after,
                      uint32_t flags)
{
    server_t sv;
    int fd = start(&sv);
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    open_session(&s, &r);
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/app.log", dir);
    wire_request_t rq = {.kind = kind, .render = (uint8_t)render, .flags = flags, .before = before,
                         .after = after, .files = path, .regex = (char *)regex, .query = ""};
    reply_t rep;
    request(&s, &r, &rq, &rep);
    assert_int_equal(rep.end, WIRE_END_OK);
    size_t want_len;
    char *want = serverless(path, "app.log", regex, render, before, after, &want_len);
    assert_int_equal(rep.len, want_len);
    assert_memory_equal(rep.lines, want, want_len);
    { char ok[600]; snprintf(ok, sizeof ok, "0 %s|", path); assert_string_equal(rep.statuses, ok); }
    free(want);
    reply_free(&rep);
    /* A second request on the same session. */
    request(&s, &r, &rq, &rep);
    assert_int_equal(rep.end, WIRE_END_OK);
    assert_int_equal(rep.len, want_len);
    reply_free(&rep);
    wire_reader_free(&r);
    stop(&sv, fd);
    assert_int_equal(sv.rc, 0);
    assert_true(sv.counters.requests == 2);
    assert_true(sv.counters.bytes_served >= want_len * 2);
    if (render != WIRE_RENDER_PLAIN)   /* plain cat does not count lines */
        assert_true(sv.counters.lines_served > 0);
}

static void test_cat_plain(void **state)
{
    (void)state;
    scan_case(WIRE_KIND_CAT, "", WIRE_RENDER_PLAIN, 0, 0, 0);
}

static void test_cat_remote(void **state)
{
    (void)state;
    scan_case(WIRE_KIND_CAT, "", WIRE_RENDER_REMOTE, 0, 0, 0);
}

static void test_cat_color_zstd(void **state)
{
    (void)state;
    scan_case(WIRE_KIND_CAT, "", WIRE_RENDER_COLOR, 0, 0, WIRE_REQ_ZSTD);
}

static void test_grep_context(void **state)
{
    (void)state;
    scan_case(WIRE_KIND_GREP, "ERROR line [0-9]*3 ", WIRE_RENDER_REMOTE, 2, 3, 0);
}

static void test_denials(void **state)
{
    (void)state;
    server_t sv;
    int fd = start(&sv);
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    open_session(&s, &r);
    char files[4096], want[4096];
    snprintf(files, sizeof files,
             "%s/allowed/secret.log,%s/outside/other.log,%s/outside/missing.log,"
             "%s/allowed/writeonly.log,%s/allowed/escape.log,%s/allowed/missing.log,%s/allowed/app.log",
             dir, dir, dir, dir, dir, dir, dir);
    snprintf(want, sizeof want, "2 %s/allowed/secret.log|2 %s/outside/other.log|2 %s/outside/missing.log|"
             "2 %s/allowed/writeonly.log|2 %s/allowed/escape.log|1 %s/allowed/missing.log|0 %s/allowed/app.log|",
             dir, dir, dir, dir, dir, dir, dir);
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_PLAIN, .files = files,
                         .regex = "", .query = ""};
    reply_t rep;
    request(&s, &r, &rq, &rep);
    assert_string_equal(rep.statuses, want);
    assert_int_equal(rep.end, WIRE_END_PARTIAL);
    /* Only app.log's lines: nothing of the denied files leaked. */
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/app.log", dir);
    size_t want_len;
    char *app = serverless(path, "app.log", "", WIRE_RENDER_PLAIN, 0, 0, &want_len);
    assert_int_equal(rep.len, want_len);
    free(app);
    reply_free(&rep);
    /* A glob outside the rules that matches nothing is a denial too. */
    snprintf(files, sizeof files, "%s/outside/*.nothing", dir);
    request(&s, &r, &rq, &rep);
    snprintf(want, sizeof want, "2 %s/outside/*.nothing|", dir);
    assert_string_equal(rep.statuses, want);
    reply_free(&rep);
    wire_reader_free(&r);
    stop(&sv, fd);
}

static void test_map_equals_serverless(void **state)
{
    (void)state;
    const char *compat = getenv("DTAIL_COMPAT_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/mapr_testdata.log", compat ? compat : "../shared/compat");
    if (access(path, R_OK) != 0)
        skip();
    server_t sv;
    int fd = start_with(&sv, "{\"Default\":[\"^/\"]}");
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    err_t e;
    assert_int_equal(wire_reader_init(&r, &s, 0, &e), 0);
    hello(&s, &r);
    const char *query = "from STATS select count($line),last($time),avg($goroutines),"
                        "min(concurrentConnections),max(lifetimeConnections) group by $hostname";
    char rp[4096];
    assert_non_null(realpath(path, rp));
    wire_request_t rq = {.kind = WIRE_KIND_MAP, .files = rp, .regex = "", .query = (char *)query};
    reply_t rep;
    request(&s, &r, &rq, &rep);
    assert_int_equal(rep.end, WIRE_END_OK);
    assert_true(rep.final_seen);
    query_t *q = NULL;
    assert_int_equal(query_parse(query, strlen(query), NULL, &q, &e), 0);
    const plan_t *plan = query_plan(q);
    agg_spec_t specs[16];
    eval_specs(plan, specs);
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, specs, plan->n_select, &e), 0);
    assert_int_equal(agg_table_merge_serialized(&t, rep.table, rep.table_len, &e), 0);
    result_t res;
    assert_int_equal(result_build(plan, &t, -1, &res, &e), 0);
    assert_int_equal(res.n_rows, 1);
    const char *want[] = {"597", "1002-071949", "11.628141", "0.000000", "6.000000"};
    for (size_t c = 0; c < 5; c++)
        assert_string_equal(result_cell(&res, 0, c), want[c]);
    result_free(&res);
    agg_table_free(&t);
    reply_free(&rep);
    /* A bad query ends the request with the parser's message. */
    rq.query = "from STATS select count($line) group by";
    request(&s, &r, &rq, &rep);
    assert_int_equal(rep.end, WIRE_END_FAILED);
    assert_true(rep.end_text[0]);
    reply_free(&rep);
    query_free(q);
    wire_reader_free(&r);
    stop(&sv, fd);
}

static void test_health(void **state)
{
    (void)state;
    server_t sv;
    int fd = start(&sv);
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    open_session(&s, &r);
    wire_request_t rq = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
    reply_t rep;
    request(&s, &r, &rq, &rep);
    assert_string_equal(rep.messages, "OK|");
    assert_int_equal(rep.end, WIRE_END_OK);
    reply_free(&rep);
    wire_reader_free(&r);
    stop(&sv, fd);
}

/* The health user (a well-known password) may ask for health only. */
static void test_health_user_reads_nothing(void **state)
{
    (void)state;
    char saved[sizeof user];
    memcpy(saved, user, sizeof user);
    snprintf(user, sizeof user, "DTAIL-HEALTH");
    server_t sv;
    int fd = start(&sv);
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    open_session(&s, &r);
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/app.log", dir);
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .files = path, .regex = "", .query = ""};
    reply_t rep;
    request(&s, &r, &rq, &rep);
    assert_int_equal(rep.end, WIRE_END_FAILED);
    assert_int_equal(rep.len, 0);
    reply_free(&rep);
    wire_request_t hq = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
    request(&s, &r, &hq, &rep);
    assert_int_equal(rep.end, WIRE_END_OK);
    reply_free(&rep);
    wire_reader_free(&r);
    stop(&sv, fd);
    memcpy(user, saved, sizeof user);
}

/* A spec that expands to more than Server.MaxGlobTargets files serves the
 * first of them and says so, as DTail does. */
static void test_glob_limit(void **state)
{
    (void)state;
    glob_limit = 1;
    server_t sv;
    int fd = start(&sv);
    glob_limit = 0;
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    open_session(&s, &r);
    char spec[512];
    snprintf(spec, sizeof spec, "%s/allowed/*.log", dir);   /* app.log first of four */
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_PLAIN, .files = spec,
                         .regex = "", .query = ""};
    reply_t rep;
    request(&s, &r, &rq, &rep);
    assert_non_null(strstr(rep.messages, "Glob expansion exceeded server limit, only first "
                                         "targets served|limit|1|matched|4"));
    char app[512];
    snprintf(app, sizeof app, "0 %s/allowed/app.log|", dir);
    assert_string_equal(rep.statuses, app);   /* only the first file was served */
    reply_free(&rep);
    wire_reader_free(&r);
    stop(&sv, fd);
}

static void test_disconnect_mid_stream(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/big.log", dir);
    write_lines(path, 400000, 0644);
    server_t sv;
    int fd = start(&sv);
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    open_session(&s, &r);
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_REMOTE, .files = path,
                         .regex = "", .query = ""};
    err_t e;
    wire_buf_t b = {0};
    wire_encode_request(&b, &rq);
    assert_int_equal(wire_buf_send(&b, &s, &e), 0);
    wire_buf_free(&b);
    wire_frame_t f;
    assert_int_equal(wire_read_frame(&r, &f, &e), 1);
    assert_int_equal(f.type, WIRE_LINES);
    wire_reader_free(&r);
    stop(&sv, fd);   /* closes mid-stream */
    assert_int_equal(sv.rc, -1);
    assert_non_null(strstr(sv.e.msg, "client gone"));
    unlink(path);
}

static void raw_case(const void *bytes, size_t n, int send_hello, const char *want)
{
    server_t sv;
    int fd = start(&sv);
    stream_t s = sock_stream(&fd);
    wire_reader_t r;
    err_t e;
    assert_int_equal(wire_reader_init(&r, &s, 0, &e), 0);
    if (send_hello)
        hello(&s, &r);
    assert_int_equal(sp_write(&fd, bytes, n, &e), 0);
    shutdown(fd, SHUT_WR);
    char got[4096] = "";
    if (send_hello) {
        wire_frame_t f;
        while (wire_read_frame(&r, &f, &e) == 1) {
            wire_msg_t m;
            if (wire_decode_msg(&f, &m, &e) == 0 && m.type == WIRE_MESSAGE)
                snprintf(got, sizeof got, "%.*s", (int)m.text.len, m.text.p);
        }
    } else {
        ssize_t k = read(fd, got, sizeof got - 1);
        got[k > 0 ? k : 0] = '\0';
    }
    assert_non_null(strstr(got, want));
    wire_reader_free(&r);
    stop(&sv, fd);
    assert_int_equal(sv.rc, -1);
}

static void test_malformed_frame(void **state)
{
    (void)state;
    raw_case("\x42\x00\x00\x00\x00\x01x", 7, 1, "unknown frame type 0x42");
    raw_case("\x01\x00\x7f\x00\x00\x00", 6, 1, "oversized REQUEST frame");
    raw_case("\x01\x00\x00\x00\x00\x02xy", 8, 1, "malformed REQUEST");
}

static void test_dtail41_client(void **state)
{
    (void)state;
    raw_case("protocol 4.1 base64 Y2F0;", 25, 0, "not DTail protocol 4.1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cat_plain),
        cmocka_unit_test(test_cat_remote),
        cmocka_unit_test(test_cat_color_zstd),
        cmocka_unit_test(test_grep_context),
        cmocka_unit_test(test_denials),
        cmocka_unit_test(test_map_equals_serverless),
        cmocka_unit_test(test_health),
        cmocka_unit_test(test_health_user_reads_nothing),
        cmocka_unit_test(test_glob_limit),
        cmocka_unit_test(test_disconnect_mid_stream),
        cmocka_unit_test(test_malformed_frame),
        cmocka_unit_test(test_dtail41_client),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
