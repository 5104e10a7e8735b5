/* test_session_tail.c: TAIL requests over a socketpair (session_serve in a
 * thread, a collector thread reading the client's end): appended lines and
 * a 100k-line burst arrive whole; a rename rotation is followed; a file a
 * rotation swaps in that the rules deny is refused and told; a glob picks
 * up a file created later; the request's timeout ends it with END; a
 * second request ends the tail and is served; the client's close ends the
 * session cleanly; a map query over followed files sends deltas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec/agg/eval.h"
#include "exec/sink/result.h"
#include "parser/parser.h"
#include "server/session.h"
#include "tests/support/sockstream.h"
#include "wire/frame.h"
#include "wire/msg.h"

static char dir[256];
static char user[256];

typedef struct server {
    int fd;                      /* server end */
    config_t cfg;                /* with the test's permissions */
    server_limits_t *limits;     /* process-wide */
    server_counters_t counters;  /* process-wide */
    int rc;                      /* session_serve's result */
    err_t e;                     /* its error */
    pthread_t th;                /* serving thread */
} server_t;

/* What the client end received so far, filled by a collector thread. */
typedef struct got {
    pthread_mutex_t mu;
    char *lines;                 /* LINES bytes */
    size_t len;
    char statuses[4096];         /* "STATUS name|" per FILE_STATUS */
    int n_end;                   /* ENDs seen */
    int end[8];                  /* their statuses */
    int n_agg;                   /* AGGREGATE frames */
    long long agg_count;         /* sum of count($line) over the deltas */
    int final_seen;              /* an AGGREGATE marked final */
    int health_ok;               /* a MESSAGE "OK" */
    int closed;                  /* the server closed its end */
} got_t;

typedef struct client {
    int fd;                      /* client end */
    stream_t s;
    wire_reader_t r;
    got_t g;
    pthread_t th;                /* collector */
    const plan_t *plan;          /* map: to decode the deltas */
} client_t;

static void *serve(void *arg)
{
    server_t *sv = arg;
    stream_t s = sock_stream(&sv->fd);
    session_env_t env = {.user = user, .hostname = "testhost", .cfg = &sv->cfg,
                         .limits = sv->limits, .counters = &sv->counters, .stopping = NULL};
    sv->rc = session_serve(&s, &env, &sv->e);
    close(sv->fd);
    return NULL;
}

static long long agg_count(const plan_t *plan, const wire_msg_t *m)
{
    agg_spec_t specs[8];
    eval_specs(plan, specs);
    agg_table_t t;
    err_t e;
    assert_int_equal(agg_table_init(&t, specs, plan->n_select, &e), 0);
    assert_int_equal(agg_table_merge_serialized(&t, (const unsigned char *)m->data.p, m->data.len, &e), 0);
    result_t res;
    assert_int_equal(result_build(plan, &t, -1, &res, &e), 0);
    long long n = res.n_rows ? atoll(result_cell(&res, 0, 0)) : 0;
    result_free(&res);
    agg_table_free(&t);
    return n;
}

static void *collect(void *arg)
{
    client_t *c = arg;
    wire_frame_t f;
    err_t e;
    while (wire_read_frame(&c->r, &f, &e) == 1) {
        wire_msg_t m;
        assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
        pthread_mutex_lock(&c->g.mu);
        if (m.type == WIRE_LINES) {
            c->g.lines = realloc(c->g.lines, c->g.len + m.data.len + 1);
            memcpy(c->g.lines + c->g.len, m.data.p, m.data.len);
            c->g.len += m.data.len;
            c->g.lines[c->g.len] = '\0';
        } else if (m.type == WIRE_FILE_STATUS) {
            size_t l = strlen(c->g.statuses);
            snprintf(c->g.statuses + l, sizeof c->g.statuses - l, "%d %.*s|", m.status,
                     (int)m.name.len, m.name.p);
        } else if (m.type == WIRE_END && c->g.n_end < 8) {
            c->g.end[c->g.n_end++] = m.status;
        } else if (m.type == WIRE_AGGREGATE) {
            c->g.n_agg++;
            c->g.final_seen |= m.status;
            if (c->plan)
                c->g.agg_count += agg_count(c->plan, &m);
        } else if (m.type == WIRE_MESSAGE && m.text.len == 2 && memcmp(m.text.p, "OK", 2) == 0) {
            c->g.health_ok = 1;
        }
        pthread_mutex_unlock(&c->g.mu);
    }
    pthread_mutex_lock(&c->g.mu);
    c->g.closed = 1;
    pthread_mutex_unlock(&c->g.mu);
    return NULL;
}

static void send_request(client_t *c, const wire_request_t *rq)
{
    wire_buf_t b = {0};
    wire_encode_request(&b, rq);
    err_t e;
    assert_int_equal(wire_buf_send(&b, &c->s, &e), 0);
    wire_buf_free(&b);
}

/* Starts a server and a client that said HELLO and sent rq. */
static void start(server_t *sv, client_t *c, const wire_request_t *rq)
{
    memset(sv, 0, sizeof *sv);
    memset(c, 0, sizeof *c);
    config_defaults(&sv->cfg);
    snprintf(sv->cfg.permissions, sizeof sv->cfg.permissions,
             "{\"Default\":[\"^%s/allowed/\",\"!^%s/allowed/secret\"]}", dir, dir);
    err_t e;
    sv->limits = server_limits_create(&sv->cfg, &e);
    int p[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
    sv->fd = p[0];
    c->fd = p[1];
    pthread_create(&sv->th, NULL, serve, sv);
    c->s = sock_stream(&c->fd);
    assert_int_equal(wire_reader_init(&c->r, &c->s, 0, &e), 0);
    wire_buf_t b = {0};
    wire_hello_t h;
    wire_hello_init(&h, "client");
    wire_encode_hello(&b, &h);
    assert_int_equal(wire_buf_send(&b, &c->s, &e), 0);
    wire_buf_free(&b);
    wire_frame_t f;
    assert_int_equal(wire_read_frame(&c->r, &f, &e), 1);
    pthread_mutex_init(&c->g.mu, NULL);
    send_request(c, rq);
    pthread_create(&c->th, NULL, collect, c);
}

/* The client closes; the session must end without an error. */
static void finish(server_t *sv, client_t *c)
{
    shutdown(c->fd, SHUT_WR);
    pthread_join(sv->th, NULL);
    pthread_join(c->th, NULL);
    close(c->fd);
    wire_reader_free(&c->r);
    server_limits_free(sv->limits);
    assert_int_equal(sv->rc, 0);
    free(c->g.lines);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits (at most ms) until the lines received hold want n times. Each
 * look scans only what came since the last (frames hold whole lines). */
static int wait_lines_ms(client_t *c, const char *want, int n, int ms)
{
    size_t off = 0;
    int k = 0;
    for (int i = 0; i < ms / 10; i++) {
        pthread_mutex_lock(&c->g.mu);
        /* memmem, not strstr: ASan's strstr measures the whole rest each call. */
        const char *p = c->g.lines ? c->g.lines + off : NULL, *end = p ? c->g.lines + c->g.len : NULL;
        size_t wl = strlen(want);
        while (p && (p = memmem(p, (size_t)(end - p), want, wl)) != NULL) {
            k++;
            p += wl;
        }
        off = c->g.len;
        pthread_mutex_unlock(&c->g.mu);
        if (k >= n)
            return k;
        sleep_ms(10);
    }
    return 0;
}

static int wait_lines(client_t *c, const char *want, int n)
{
    return wait_lines_ms(c, want, n, 10000);
}

static int wait_end(client_t *c, int n)
{
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&c->g.mu);
        int k = c->g.n_end;
        pthread_mutex_unlock(&c->g.mu);
        if (k >= n)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Waits (at most ms) until the statuses received hold needle. */
static int wait_status(client_t *c, const char *needle, int ms)
{
    for (int i = 0; i < ms / 10; i++) {
        pthread_mutex_lock(&c->g.mu);
        int k = strstr(c->g.statuses, needle) != NULL;
        pthread_mutex_unlock(&c->g.mu);
        if (k)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

static void append(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void test_appended_lines_and_burst(void **state)
{
    (void)state;
    char path[512];
    path_of(path, sizeof path, "allowed/follow.log");
    append(path, "old line, before the tail\n");
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .render = WIRE_RENDER_PLAIN, .files = path,
                         .regex = "", .query = ""};
    server_t sv;
    client_t c;
    start(&sv, &c, &rq);
    /* Lines appended until the follower is there: the first that arrives
     * says it is. */
    int ready = 0;
    for (int i = 0; i < 100 && !ready; i++) {
        append(path, "probe\n");
        ready = wait_lines_ms(&c, "probe\n", 1, 200) > 0;
    }
    assert_true(ready);
    FILE *f = fopen(path, "a");
    for (int i = 0; i < 100000; i++)
        fprintf(f, "burst line %06d with some padding to make it about a hundred bytes long.....\n", i);
    fclose(f);
    assert_int_equal(wait_lines(&c, "burst line", 100000), 100000);
    assert_null(strstr(c.g.lines, "old line"));
    assert_non_null(strstr(c.g.lines, "burst line 099999 with"));
    finish(&sv, &c);
    unlink(path);
}

static void test_rotation_and_denied_swap(void **state)
{
    (void)state;
    char path[512], rotated[512], outside[512];
    path_of(path, sizeof path, "allowed/rot.log");
    path_of(rotated, sizeof rotated, "allowed/rot.log.1");
    path_of(outside, sizeof outside, "outside/other.log");
    append(path, "");
    append(outside, "outside secret line\n");
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .render = WIRE_RENDER_REMOTE, .files = path,
                         .regex = "keep", .query = ""};
    server_t sv;
    client_t c;
    start(&sv, &c, &rq);
    int ready = 0;
    for (int i = 0; i < 100 && !ready; i++) {
        append(path, "keep probe\n");
        ready = wait_lines_ms(&c, "keep probe", 1, 200) > 0;
    }
    assert_true(ready);
    append(path, "drop this\nkeep before rotation\n");
    assert_int_equal(rename(path, rotated), 0);
    append(path, "keep after rotation\n");
    assert_true(wait_lines(&c, "|rot.log|keep after rotation\n", 1));
    assert_true(wait_lines(&c, "REMOTE|testhost|100|", 1));
    assert_null(strstr(c.g.lines, "drop this"));
    assert_non_null(strstr(c.g.lines, "keep before rotation"));
    /* A rotation that brings a symlink out of the allowed tree. */
    assert_int_equal(rename(path, rotated), 0);
    assert_int_equal(symlink(outside, path), 0);
    append(outside, "keep outside line\n");
    assert_true(wait_status(&c, "2 ", 3000));
    sleep_ms(500);
    pthread_mutex_lock(&c.g.mu);
    assert_null(strstr(c.g.lines, "outside"));
    pthread_mutex_unlock(&c.g.mu);
    finish(&sv, &c);
    unlink(path);
    unlink(rotated);
}

static void test_glob_new_file_and_timeout(void **state)
{
    (void)state;
    char glob[512], later[512];
    path_of(glob, sizeof glob, "allowed/g*.log");
    path_of(later, sizeof later, "allowed/glater.log");
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .render = WIRE_RENDER_PLAIN, .files = glob,
                         .regex = "", .query = "", .timeout_s = 3};
    server_t sv;
    client_t c;
    start(&sv, &c, &rq);
    assert_true(wait_status(&c, "1 ", 3000));   /* nothing matches yet */
    append(later, "written before it was seen\n");
    assert_true(wait_lines(&c, "written before it was seen\n", 1));   /* from its start */
    assert_true(wait_end(&c, 1));   /* the timeout */
    assert_int_equal(c.g.end[0], WIRE_END_PARTIAL);
    finish(&sv, &c);
    unlink(later);
}

static void test_next_request_ends_tail(void **state)
{
    (void)state;
    char path[512];
    path_of(path, sizeof path, "allowed/next.log");
    append(path, "");
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .files = path, .regex = "", .query = ""};
    server_t sv;
    client_t c;
    start(&sv, &c, &rq);
    sleep_ms(100);
    wire_request_t health = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
    send_request(&c, &health);
    assert_true(wait_end(&c, 2));
    assert_int_equal(c.g.end[0], WIRE_END_OK);
    assert_int_equal(c.g.end[1], WIRE_END_OK);
    assert_true(c.g.health_ok);
    finish(&sv, &c);
    unlink(path);
}

static void test_map_deltas(void **state)
{
    (void)state;
    char path[512];
    path_of(path, sizeof path, "allowed/stats.log");
    append(path, "");
    const char *query = "from STATS select count($line) interval 1";
    query_t *q = NULL;
    err_t e;
    assert_int_equal(query_parse(query, strlen(query), NULL, &q, &e), 0);
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .files = path, .regex = "", .query = (char *)query,
                         .timeout_s = 3};
    server_t sv;
    client_t c;
    c.plan = NULL;
    start(&sv, &c, &rq);
    pthread_mutex_lock(&c.g.mu);
    c.plan = query_plan(q);
    pthread_mutex_unlock(&c.g.mu);
    sleep_ms(300);
    static const char line[] = "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
                               "MAPREDUCE:STATS|currentConnections=0|lifetimeConnections=1\n";
    for (int i = 0; i < 7; i++)
        append(path, line);
    sleep_ms(1300);
    for (int i = 0; i < 5; i++)
        append(path, line);
    assert_true(wait_end(&c, 1));
    assert_int_equal(c.g.end[0], WIRE_END_OK);
    assert_true(c.g.final_seen);
    assert_true(c.g.n_agg >= 2);
    /* Deltas: their sum is every line once. */
    assert_int_equal(c.g.agg_count, 12);
    finish(&sv, &c);
    query_free(q);
    unlink(path);
}

static int setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/test_session_tail.XXXXXX");
    assert_non_null(mkdtemp(dir));
    struct passwd *pw = getpwuid(getuid());
    snprintf(user, sizeof user, "%s", pw->pw_name);
    char p[512];
    path_of(p, sizeof p, "allowed");
    mkdir(p, 0755);
    path_of(p, sizeof p, "outside");
    mkdir(p, 0755);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appended_lines_and_burst),
        cmocka_unit_test(test_rotation_and_denied_swap),
        cmocka_unit_test(test_glob_new_file_and_timeout),
        cmocka_unit_test(test_next_request_ends_tail),
        cmocka_unit_test(test_map_deltas),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
