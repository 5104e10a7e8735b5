/* test_session.c: session_serve on one end of a socketpair (in a thread),
 * a minimal client on the other: cat, grep and map give what the
 * serverless plans give; denials by rule, by mode bits and through a
 * symlink out of the allowed tree are reported by the name asked for, as a
 * missing file is (one status, one text, no counts); a
 * client that disconnects mid-stream, a malformed frame and a DTail 4.1
 * client end the session with an error, and the server carries on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outbuf.h"
#include "exec/linescan.h"
#include "exec/scan/journal.h"
#include "parser/parser.h"
#include "tests/support/session_harness.h"

static char dir[256];
static char user[256];
static int glob_limit;   /* Server.MaxGlobTargets for the next start(); 0: default */

/* Starts a server with the permissions JSON perms (NULL: the tree's
 * allowed/ without its secret*); the client's reader is ready. */
static void start(sh_conn_t *c, const char *perms)
{
    sh_config(c, dir, perms);
    if (glob_limit)
        c->cfg.max_glob_targets = glob_limit;
    sh_start(c, user, "testhost.example");
}

/* A server and a client that said HELLO. */
static void open_session(sh_conn_t *c, const char *perms)
{
    start(c, perms);
    sh_hello(c);
}

/* Sends rq and collects the replies up to its END. */
static void request(sh_conn_t *c, const wire_request_t *rq, sh_got_t *out)
{
    sh_got_init(out);
    sh_send_request(c, rq);
    wire_frame_t f;
    err_t e;
    while (out->n_end == 0 && wire_read_frame(&c->r, &f, &e) == 1) {
        if (f.type >= WIRE_OPTIONAL_FIRST && f.type <= WIRE_OPTIONAL_LAST)
            continue;   /* extensions (FIELDS) are skipped, as a client may */
        wire_msg_t m;
        assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
        sh_got_add(out, &m);
    }
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
    assert_int_equal(line_sink_init(&sink, &out, (enum line_format)render, "testhost.example", NULL), 0);
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
    sh_tree_make(dir, sizeof dir, "test_session", user, sizeof user);
    char p[512];
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
    return tmpdir_remove(dir);
}

static void scan_case(uint8_t kind, const char *regex, int render, unsigned before, unsigned after,
                      uint32_t flags)
{
    sh_conn_t conn;
    open_session(&conn, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/app.log", dir);
    wire_request_t rq = {.kind = kind, .render = (uint8_t)render, .flags = flags, .before = before,
                         .after = after, .files = path, .regex = (char *)regex, .query = ""};
    sh_got_t rep;
    request(&conn, &rq, &rep);
    assert_int_equal(rep.end[0], WIRE_END_OK);
    size_t want_len;
    char *want = serverless(path, "app.log", regex, render, before, after, &want_len);
    assert_int_equal(rep.len, want_len);
    assert_memory_equal(rep.lines, want, want_len);
    { char ok[600]; snprintf(ok, sizeof ok, "0 %s|", path); assert_string_equal(rep.statuses, ok); }
    free(want);
    sh_got_free(&rep);
    /* A second request on the same session. */
    request(&conn, &rq, &rep);
    assert_int_equal(rep.end[0], WIRE_END_OK);
    assert_int_equal(rep.len, want_len);
    sh_got_free(&rep);
    sh_stop(&conn);
    assert_int_equal(conn.rc, 0);
    assert_true(conn.counters.requests == 2);
    assert_true(conn.counters.bytes_served >= want_len * 2);
    if (render != WIRE_RENDER_PLAIN)   /* plain cat does not count lines */
        assert_true(conn.counters.lines_served > 0);
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
    sh_conn_t conn;
    open_session(&conn, NULL);
    char files[4096], want[4096];
    snprintf(files, sizeof files,
             "%s/allowed/secret.log,%s/outside/other.log,%s/outside/missing.log,"
             "%s/allowed/writeonly.log,%s/allowed/escape.log,%s/allowed/missing.log,%s/allowed/app.log",
             dir, dir, dir, dir, dir, dir, dir);
    /* Every refusal is "not found": nothing tells a missing file from a
     * refused one. */
    snprintf(want, sizeof want, "1 %s/allowed/secret.log|1 %s/outside/other.log|1 %s/outside/missing.log|"
             "1 %s/allowed/writeonly.log|1 %s/allowed/escape.log|1 %s/allowed/missing.log|0 %s/allowed/app.log|",
             dir, dir, dir, dir, dir, dir, dir);
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_PLAIN, .files = files,
                         .regex = "", .query = ""};
    sh_got_t rep;
    request(&conn, &rq, &rep);
    assert_string_equal(rep.statuses, want);
    assert_int_equal(rep.end[0], WIRE_END_PARTIAL);
    /* Only app.log's lines: nothing of the denied files leaked. */
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/app.log", dir);
    size_t want_len;
    char *app = serverless(path, "app.log", "", WIRE_RENDER_PLAIN, 0, 0, &want_len);
    assert_int_equal(rep.len, want_len);
    /* Refused files were not read, nothing was counted; a cat counts the
     * bytes, not the lines. */
    snprintf(want, sizeof want, "- -|- -|- -|- -|- -|- -|%zu -|", want_len);
    assert_string_equal(rep.counts, want);
    free(app);
    sh_got_free(&rep);
    /* A glob outside the rules that matches nothing, and one that matches
     * only refused files, are told alike. */
    snprintf(files, sizeof files, "%s/outside/*.nothing", dir);
    request(&conn, &rq, &rep);
    snprintf(want, sizeof want, "1 %s/outside/*.nothing|", dir);
    assert_string_equal(rep.statuses, want);
    sh_got_free(&rep);
    snprintf(files, sizeof files, "%s/allowed/[esw]*.log", dir);
    request(&conn, &rq, &rep);
    snprintf(want, sizeof want, "1 %s/allowed/[esw]*.log|", dir);
    assert_string_equal(rep.statuses, want);
    assert_int_equal(rep.len, 0);
    sh_got_free(&rep);
    sh_stop(&conn);
}

static void test_map_equals_serverless(void **state)
{
    (void)state;
    const char *compat = getenv("DTAIL_COMPAT_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/mapr_testdata.log", compat ? compat : "../shared/compat");
    if (access(path, R_OK) != 0) {
        print_message("SKIP test_map_equals_serverless: needs DTail's acceptance data %s\n", path);
        skip();
    }
    sh_conn_t conn;
    open_session(&conn, "{\"Default\":[\"^/\"]}");
    const char *query = "from STATS select count($line),last($time),avg($goroutines),"
                        "min(concurrentConnections),max(lifetimeConnections) group by $hostname";
    char rp[4096];
    assert_non_null(realpath(path, rp));
    wire_request_t rq = {.kind = WIRE_KIND_MAP, .files = rp, .regex = "", .query = (char *)query};
    sh_got_t rep;
    request(&conn, &rq, &rep);
    assert_int_equal(rep.end[0], WIRE_END_OK);
    assert_true(rep.final_seen);
    /* The file's FILE_STATUS says what was read of it: all its bytes and
     * lines (docs/protocol.md, FILE_STATUS counts). */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    char counts[64];
    snprintf(counts, sizeof counts, "%lld 597|", (long long)sb.st_size);
    assert_string_equal(rep.counts, counts);
    query_t *q = NULL;
    err_t e;
    assert_int_equal(query_parse(query, strlen(query), NULL, &q, &e), 0);
    result_t res;
    sh_agg_result(query_plan(q), rep.table, rep.table_len, &res);
    assert_int_equal(res.n_rows, 1);
    const char *want[] = {"597", "1002-071949", "11.628141", "0.000000", "6.000000"};
    for (size_t c = 0; c < 5; c++)
        assert_string_equal(result_cell(&res, 0, c), want[c]);
    result_free(&res);
    sh_got_free(&rep);
    /* A bad query ends the request with the parser's message. */
    rq.query = "from STATS select count($line) group by";
    request(&conn, &rq, &rep);
    assert_int_equal(rep.end[0], WIRE_END_FAILED);
    assert_true(rep.end_text[0]);
    sh_got_free(&rep);
    query_free(q);
    sh_stop(&conn);
}

static void test_health(void **state)
{
    (void)state;
    sh_conn_t conn;
    open_session(&conn, NULL);
    wire_request_t rq = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
    sh_got_t rep;
    request(&conn, &rq, &rep);
    assert_string_equal(rep.messages, "OK|");
    assert_int_equal(rep.end[0], WIRE_END_OK);
    sh_got_free(&rep);
    sh_stop(&conn);
}

/* The health user (a well-known password) may ask for health only. */
static void test_health_user_reads_nothing(void **state)
{
    (void)state;
    char saved[sizeof user];
    memcpy(saved, user, sizeof user);
    snprintf(user, sizeof user, "DTAIL-HEALTH");
    sh_conn_t conn;
    open_session(&conn, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/app.log", dir);
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .files = path, .regex = "", .query = ""};
    sh_got_t rep;
    request(&conn, &rq, &rep);
    assert_int_equal(rep.end[0], WIRE_END_FAILED);
    assert_int_equal(rep.len, 0);
    sh_got_free(&rep);
    wire_request_t hq = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
    request(&conn, &hq, &rep);
    assert_int_equal(rep.end[0], WIRE_END_OK);
    sh_got_free(&rep);
    sh_stop(&conn);
    memcpy(user, saved, sizeof user);
}

/* A spec that expands to more than Server.MaxGlobTargets files serves the
 * first of them and says so, as DTail does; only files the user may read
 * are counted (allowed/ holds three it may not). */
static void test_glob_limit(void **state)
{
    (void)state;
    char more[512];
    snprintf(more, sizeof more, "%s/allowed/more.log", dir);
    write_lines(more, 3, 0644);
    glob_limit = 1;
    sh_conn_t conn;
    open_session(&conn, NULL);
    glob_limit = 0;
    char spec[512];
    snprintf(spec, sizeof spec, "%s/allowed/*.log", dir);   /* app.log first of two */
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_PLAIN, .files = spec,
                         .regex = "", .query = ""};
    sh_got_t rep;
    request(&conn, &rq, &rep);
    assert_non_null(strstr(rep.messages, "Glob expansion exceeded server limit, only first "
                                         "targets served|limit|1|matched|2"));
    char app[512];
    snprintf(app, sizeof app, "0 %s/allowed/app.log|", dir);
    assert_string_equal(rep.statuses, app);   /* only the first file was served */
    sh_got_free(&rep);
    sh_stop(&conn);
    unlink(more);
}

static void test_disconnect_mid_stream(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/allowed/big.log", dir);
    write_lines(path, 400000, 0644);
    sh_conn_t conn;
    open_session(&conn, NULL);
    wire_request_t rq = {.kind = WIRE_KIND_CAT, .render = WIRE_RENDER_REMOTE, .files = path,
                         .regex = "", .query = ""};
    sh_send_request(&conn, &rq);
    wire_frame_t f;
    err_t e;
    assert_int_equal(wire_read_frame(&conn.r, &f, &e), 1);
    assert_int_equal(f.type, WIRE_LINES);
    sh_stop(&conn);   /* closes mid-stream */
    assert_int_equal(conn.rc, -1);
    assert_non_null(strstr(conn.e.msg, "client gone"));
    unlink(path);
}

static void raw_case(const void *bytes, size_t n, int send_hello, const char *want)
{
    sh_conn_t conn;
    start(&conn, NULL);
    if (send_hello)
        sh_hello(&conn);
    err_t e;
    assert_int_equal(sp_write(&conn.fd, bytes, n, &e), 0);
    shutdown(conn.fd, SHUT_WR);
    char got[4096] = "";
    if (send_hello) {
        /* The request fails with an END whose text (the client shows it)
         * names the error. */
        sh_got_t g;
        sh_got_init(&g);
        wire_frame_t f;
        while (wire_read_frame(&conn.r, &f, &e) == 1) {
            wire_msg_t m;
            assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
            sh_got_add(&g, &m);
        }
        assert_int_equal(g.n_end, 1);
        assert_int_equal(g.end[0], WIRE_END_FAILED);
        snprintf(got, sizeof got, "%s", g.end_text);
        sh_got_free(&g);
    } else {
        ssize_t k = read(conn.fd, got, sizeof got - 1);
        got[k > 0 ? k : 0] = '\0';
    }
    assert_non_null(strstr(got, want));
    sh_stop(&conn);
    assert_int_equal(conn.rc, -1);
}

static void test_malformed_frame(void **state)
{
    (void)state;
    raw_case("\x42\x00\x00\x00\x00\x01x", 7, 1, "unknown frame type 0x42");
    raw_case("\x01\x00\x7f\x00\x00\x00", 6, 1, "oversized REQUEST frame");
    raw_case("\x01\x00\x00\x00\x00\x02xy", 8, 1, "malformed REQUEST");
}

/* A DTail 4.1 client is served in its protocol (test_session_dt41.c has
 * the exchanges): its capabilities come first, at once. */
static void test_dtail41_client(void **state)
{
    (void)state;
    sh_conn_t conn;
    start(&conn, NULL);
    err_t e;
    assert_int_equal(sp_write(&conn.fd, "protocol 4.1 base64 Y2F0;", 25, &e), 0);
    shutdown(conn.fd, SHUT_WR);
    char got[4096] = "";
    size_t n = 0;
    ssize_t k;
    while (n < sizeof got - 1 && (k = read(conn.fd, got + n, sizeof got - 1 - n)) > 0)
        n += (size_t)k;
    got[n] = '\0';
    /* journal-v1 where this build reads journals (libsystemd loads) */
    const char *caps = journal_available(NULL) ? ".syn capabilities query-update-v1 journal-v1\xac"
                                               : ".syn capabilities query-update-v1\xac";
    assert_true(strncmp(got, caps, strlen(caps)) == 0);
    sh_stop(&conn);
    assert_int_equal(conn.rc, 0);
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
