/* test_session_tail.c: TAIL requests over a socketpair (session_serve in a
 * thread, a collector thread reading the client's end): appended lines and
 * a 100k-line burst arrive whole; a rename rotation is followed; a file a
 * rotation swaps in that the rules deny is refused and told (as not found,
 * as every refusal); a missing and a refused path are told alike; a glob picks
 * up a file created later; the request's timeout ends it with END; a
 * second request ends the tail and is served; the client's close ends the
 * session cleanly; a map query over followed files sends deltas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parser/parser.h"
#include "tests/support/session_harness.h"

static char dir[256];
static char user[256];

typedef struct client {
    sh_conn_t conn;              /* the server and the client's end */
    pthread_mutex_t mu;          /* guards g and agg_count */
    sh_got_t g;                  /* what the client end received so far */
    long long agg_count;         /* sum of count($line) over the deltas */
    pthread_t th;                /* collector */
    const plan_t *plan;          /* map: to decode the deltas; set before the collector starts */
} client_t;

/* count($line) of an aggregate delta (its first column), 0 if no rows. */
static long long agg_count(const plan_t *plan, const sh_got_t *g)
{
    result_t res;
    sh_agg_result(plan, g->table, g->table_len, &res);
    long long n = res.n_rows ? atoll(result_cell(&res, 0, 0)) : 0;
    result_free(&res);
    return n;
}

static void *collect(void *arg)
{
    client_t *c = arg;
    wire_frame_t f;
    err_t e;
    while (wire_read_frame(&c->conn.r, &f, &e) == 1) {
        wire_msg_t m;
        assert_int_equal(wire_decode_msg(&f, &m, &e), 0);
        pthread_mutex_lock(&c->mu);
        sh_got_add(&c->g, &m);
        if (m.type == WIRE_AGGREGATE && c->plan)
            c->agg_count += agg_count(c->plan, &c->g);
        pthread_mutex_unlock(&c->mu);
    }
    return NULL;
}

/* Starts a server and a client that said HELLO, sent rq and collects what
 * comes back (deltas of plan's query decoded, if plan is not NULL). */
static void start(client_t *c, const wire_request_t *rq, const plan_t *plan)
{
    memset(c, 0, sizeof *c);
    sh_config(&c->conn, dir, NULL);
    sh_start(&c->conn, user, "testhost");
    sh_hello(&c->conn);
    pthread_mutex_init(&c->mu, NULL);
    sh_got_init(&c->g);
    c->plan = plan;
    sh_send_request(&c->conn, rq);
    assert_int_equal(pthread_create(&c->th, NULL, collect, c), 0);
}

/* The client closes; the session must end without an error. */
static void finish(client_t *c)
{
    shutdown(c->conn.fd, SHUT_WR);
    pthread_join(c->th, NULL);   /* ends when the server closes its end */
    sh_stop(&c->conn);
    assert_int_equal(c->conn.rc, 0);
    sh_got_free(&c->g);
    pthread_mutex_destroy(&c->mu);
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
        pthread_mutex_lock(&c->mu);
        /* memmem, not strstr: ASan's strstr measures the whole rest each call. */
        const char *p = c->g.lines ? c->g.lines + off : NULL, *end = p ? c->g.lines + c->g.len : NULL;
        size_t wl = strlen(want);
        while (p && (p = memmem(p, (size_t)(end - p), want, wl)) != NULL) {
            k++;
            p += wl;
        }
        off = c->g.len;
        pthread_mutex_unlock(&c->mu);
        if (k >= n)
            return k;
        sleep_ms(10);
    }
    return 0;
}

/* Every wait is for an event; its bound only guards against a hang, and is
 * generous for a sanitizer build on a loaded machine. */
#define WAIT_MS 30000

static int wait_lines(client_t *c, const char *want, int n)
{
    return wait_lines_ms(c, want, n, WAIT_MS);
}

static int wait_end(client_t *c, int n)
{
    for (int i = 0; i < WAIT_MS / 10; i++) {
        pthread_mutex_lock(&c->mu);
        int k = c->g.n_end;
        pthread_mutex_unlock(&c->mu);
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
        pthread_mutex_lock(&c->mu);
        int k = strstr(c->g.statuses, needle) != NULL;
        pthread_mutex_unlock(&c->mu);
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

/* Whether this process (the session runs in it) has path open with its
 * offset at the file's size: a follower there has gone to the end, so what
 * is appended from now on is new to it. */
static int holds_at_end(const char *path)
{
    struct stat st;
    char want[PATH_MAX];
    if (stat(path, &st) < 0 || !realpath(path, want))
        return 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    int found = 0;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
        char link[320], target[PATH_MAX], info[320];
        snprintf(link, sizeof link, "/proc/self/fd/%s", de->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = 0;
        if (strcmp(target, want) != 0)
            continue;
        snprintf(info, sizeof info, "/proc/self/fdinfo/%s", de->d_name);
        FILE *f = fopen(info, "r");
        long long pos = -1;
        if (f) {
            if (fscanf(f, "pos: %lld", &pos) != 1)
                pos = -1;
            fclose(f);
        }
        found = pos == (long long)st.st_size;
    }
    closedir(d);
    return found;
}

static int wait_at_end(const char *path)
{
    for (int i = 0; i < WAIT_MS / 10; i++) {
        if (holds_at_end(path))
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Waits until the deltas received count n lines in all. */
static int wait_agg_count(client_t *c, long long n)
{
    for (int i = 0; i < WAIT_MS / 10; i++) {
        pthread_mutex_lock(&c->mu);
        long long k = c->agg_count;
        pthread_mutex_unlock(&c->mu);
        if (k >= n)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Appends probe to path until it arrives: the tail is following path. */
static int wait_following(client_t *c, const char *path, const char *probe)
{
    for (int i = 0; i < 100; i++) {
        append(path, probe);
        if (wait_lines_ms(c, probe, 1, 200) > 0)
            return 1;
    }
    return 0;
}

/* Whether the lines received so far hold needle. */
static int lines_hold(client_t *c, const char *needle)
{
    pthread_mutex_lock(&c->mu);
    int k = c->g.lines && strstr(c->g.lines, needle) != NULL;
    pthread_mutex_unlock(&c->mu);
    return k;
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
    client_t c;
    start(&c, &rq, NULL);
    /* Lines appended until the follower is there: the first that arrives
     * says it is. */
    assert_true(wait_following(&c, path, "probe\n"));
    FILE *f = fopen(path, "a");
    for (int i = 0; i < 100000; i++)
        fprintf(f, "burst line %06d with some padding to make it about a hundred bytes long.....\n", i);
    fclose(f);
    assert_int_equal(wait_lines(&c, "burst line", 100000), 100000);
    assert_false(lines_hold(&c, "old line"));
    assert_true(lines_hold(&c, "burst line 099999 with"));
    finish(&c);
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
    client_t c;
    start(&c, &rq, NULL);
    assert_true(wait_following(&c, path, "keep probe\n"));
    append(path, "drop this\nkeep before rotation\n");
    assert_int_equal(rename(path, rotated), 0);
    append(path, "keep after rotation\n");
    assert_true(wait_lines(&c, "|rot.log|keep after rotation\n", 1));
    assert_true(wait_lines(&c, "REMOTE|testhost|100|", 1));
    assert_false(lines_hold(&c, "drop this"));
    assert_true(lines_hold(&c, "keep before rotation"));
    /* A rotation that brings a symlink out of the allowed tree. */
    assert_int_equal(rename(path, rotated), 0);
    assert_int_equal(symlink(outside, path), 0);
    append(outside, "keep outside line\n");
    assert_true(wait_status(&c, "1 ", WAIT_MS));
    sleep_ms(500);   /* a negative check: the outside line must not come */
    assert_false(lines_hold(&c, "outside"));
    finish(&c);
    unlink(path);
    unlink(rotated);
}

/* A missing path, a refused one and a glob that matches only refused
 * files are each told once, alike; then each waits as for a missing file,
 * and a file that appears later is followed. */
static void test_missing_and_refused_alike(void **state)
{
    (void)state;
    char missing[512], outside[512], glob[512], files[2048], want[1024];
    path_of(missing, sizeof missing, "allowed/later.log");
    path_of(outside, sizeof outside, "outside/other.log");
    path_of(glob, sizeof glob, "outside/*.log");
    append(outside, "");
    snprintf(files, sizeof files, "%s,%s,%s", missing, outside, glob);
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .render = WIRE_RENDER_PLAIN, .files = files,
                         .regex = "", .query = "", .timeout_s = 8};
    client_t c;
    start(&c, &rq, NULL);
    snprintf(want, sizeof want, "1 %s|", glob);
    assert_true(wait_status(&c, want, WAIT_MS));
    snprintf(want, sizeof want, "1 %s|", missing);
    assert_true(wait_status(&c, want, WAIT_MS));
    snprintf(want, sizeof want, "1 %s|", outside);
    assert_true(wait_status(&c, want, WAIT_MS));
    append(missing, "came later\n");
    assert_true(wait_lines(&c, "came later\n", 1));
    assert_true(wait_end(&c, 1));   /* the timeout */
    assert_int_equal(c.g.end[0], WIRE_END_PARTIAL);
    /* Told once each (one FILE_STATUS ends with '|'). */
    int told = 0;
    for (const char *q = c.g.statuses; *q; q++)
        told += *q == '|';
    assert_int_equal(told, 3);
    finish(&c);
    unlink(missing);
}

static void test_glob_new_file_and_timeout(void **state)
{
    (void)state;
    char glob[512], later[512];
    path_of(glob, sizeof glob, "allowed/g*.log");
    path_of(later, sizeof later, "allowed/glater.log");
    /* The timeout ends the request; it leaves the glob's look for new
     * files (every second) time on a loaded machine. */
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .render = WIRE_RENDER_PLAIN, .files = glob,
                         .regex = "", .query = "", .timeout_s = 8};
    client_t c;
    start(&c, &rq, NULL);
    assert_true(wait_status(&c, "1 ", WAIT_MS));   /* nothing matches yet */
    append(later, "written before it was seen\n");
    assert_true(wait_lines(&c, "written before it was seen\n", 1));   /* from its start */
    assert_true(wait_end(&c, 1));   /* the timeout */
    assert_int_equal(c.g.end[0], WIRE_END_PARTIAL);
    finish(&c);
    unlink(later);
}

static void test_next_request_ends_tail(void **state)
{
    (void)state;
    char path[512];
    path_of(path, sizeof path, "allowed/next.log");
    append(path, "");
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .files = path, .regex = "", .query = ""};
    client_t c;
    start(&c, &rq, NULL);
    assert_true(wait_at_end(path));   /* the tail runs */
    wire_request_t health = {.kind = WIRE_KIND_HEALTH, .files = "", .regex = "", .query = ""};
    sh_send_request(&c.conn, &health);
    assert_true(wait_end(&c, 2));
    assert_int_equal(c.g.end[0], WIRE_END_OK);
    assert_int_equal(c.g.end[1], WIRE_END_OK);
    assert_true(sh_got_message(&c.g, "OK"));
    finish(&c);
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
    /* The timeout (the request's end) is a guard: both batches are
     * waited for before it. */
    wire_request_t rq = {.kind = WIRE_KIND_TAIL, .files = path, .regex = "", .query = (char *)query,
                         .timeout_s = 8};
    client_t c;
    start(&c, &rq, query_plan(q));
    assert_true(wait_at_end(path));
    static const char line[] = "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
                               "MAPREDUCE:STATS|currentConnections=0|lifetimeConnections=1\n";
    for (int i = 0; i < 7; i++)
        append(path, line);
    /* The first batch's delta is out before the second batch is written,
     * so there are two deltas whatever the machine's speed. */
    assert_true(wait_agg_count(&c, 7));
    for (int i = 0; i < 5; i++)
        append(path, line);
    assert_true(wait_agg_count(&c, 12));
    assert_true(wait_end(&c, 1));
    assert_int_equal(c.g.end[0], WIRE_END_OK);
    assert_true(c.g.final_seen);
    assert_true(c.g.n_agg >= 2);
    /* Deltas: their sum is every line once. */
    assert_int_equal(c.agg_count, 12);
    finish(&c);
    query_free(q);
    unlink(path);
}

static int setup(void **state)
{
    (void)state;
    sh_tree_make(dir, sizeof dir, "test_session_tail", user, sizeof user);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appended_lines_and_burst),
        cmocka_unit_test(test_rotation_and_denied_swap),
        cmocka_unit_test(test_missing_and_refused_alike),
        cmocka_unit_test(test_glob_new_file_and_timeout),
        cmocka_unit_test(test_next_request_ends_tail),
        cmocka_unit_test(test_map_deltas),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
