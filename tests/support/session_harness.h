/* session_harness.h: session_serve on one end of a socketpair (in a
 * thread), a client on the other, for the session unit tests
 * (tests/unit/test_session*.c): a tree with allowed/ and outside/, the
 * server's config and thread, the HELLO exchange, what the client received
 * (LINES, FILE_STATUS, MESSAGE, AGGREGATE, END) and an aggregate's rows.
 * Include after <cmocka.h>. Header-only so each test binary stays one file. */
#ifndef DTAIL_TESTS_SESSION_HARNESS_H
#define DTAIL_TESTS_SESSION_HARNESS_H

#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/agg/eval.h"
#include "exec/sink/result.h"
#include "server/session.h"
#include "tests/support/sockstream.h"
#include "tests/support/tmpdir.h"
#include "wire/frame.h"
#include "wire/msg.h"

/* A session_serve thread and the client's end of its socketpair. Set up by
 * sh_start; do not move it afterwards (s points at fd). */
typedef struct sh_conn {
    int server_fd;               /* the server's end */
    config_t cfg;                /* complete before the thread starts */
    server_limits_t *limits;     /* process-wide */
    server_counters_t counters;  /* process-wide */
    const char *user;            /* the authenticated user */
    const char *hostname;        /* the server's host name */
    authkey_store_t *authkeys;   /* where AUTHKEY registers, NULL: none */
    int rc;                      /* session_serve's result */
    err_t e;                     /* and error */
    pthread_t th;                /* serving thread */
    int fd;                      /* the client's end */
    stream_t s;                  /* over fd */
    wire_reader_t r;             /* frames from fd */
} sh_conn_t;

/* Makes the test tree: a new temporary directory (tmpdir_make) in dir
 * (cap bytes) with allowed/ and outside/; remove it with tmpdir_remove; user gets the current user's name. SIGPIPE is
 * ignored, as the server ignores it. */
static inline void sh_tree_make(char *dir, size_t cap, const char *name, char *user, size_t user_cap)
{
    signal(SIGPIPE, SIG_IGN);
    assert_int_equal(tmpdir_make(dir, cap, name), 0);
    struct passwd *pw = getpwuid(getuid());
    assert_non_null(pw);
    snprintf(user, user_cap, "%s", pw->pw_name);
    char p[1024];
    snprintf(p, sizeof p, "%s/allowed", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/outside", dir);
    assert_int_equal(mkdir(p, 0755), 0);
}

/* c->cfg: the defaults with permissions perms, or if perms is NULL the
 * tree dir's allowed/ except allowed/secret*. */
static inline void sh_config(sh_conn_t *c, const char *dir, const char *perms)
{
    memset(c, 0, sizeof *c);
    config_defaults(&c->cfg);
    if (perms)
        snprintf(c->cfg.permissions, sizeof c->cfg.permissions, "%s", perms);
    else
        snprintf(c->cfg.permissions, sizeof c->cfg.permissions,
                 "{\"Default\":[\"^%s/allowed/\",\"!^%s/allowed/secret\"]}", dir, dir);
}

static inline void *sh_serve(void *arg)
{
    sh_conn_t *c = arg;
    stream_t s = sock_stream(&c->server_fd);
    session_env_t env = {.user = c->user, .hostname = c->hostname, .cfg = &c->cfg,
                         .limits = c->limits, .counters = &c->counters, .stopping = NULL,
                         .authkeys = c->authkeys};
    c->rc = session_serve(&s, &env, &c->e);
    close(c->server_fd);
    return NULL;
}

/* Starts session_serve for user as hostname with c->cfg (sh_config and
 * any changes made before: the session compiles its rules at once); the
 * client's reader is ready, nothing is sent yet. */
static inline void sh_start(sh_conn_t *c, const char *user, const char *hostname)
{
    c->user = user;
    c->hostname = hostname;
    err_t e;
    c->limits = server_limits_create(&c->cfg, &e);
    assert_non_null(c->limits);
    int p[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
    c->server_fd = p[0];
    c->fd = p[1];
    c->s = sock_stream(&c->fd);
    assert_int_equal(wire_reader_init(&c->r, &c->s, 0, &e), 0);
    assert_int_equal(pthread_create(&c->th, NULL, sh_serve, c), 0);
}

/* The client's HELLO and the server's: its short name is "testhost". */
static inline void sh_hello(sh_conn_t *c)
{
    wire_buf_t b = {0};
    wire_hello_t h;
    wire_hello_init(&h, "client");
    wire_encode_hello(&b, &h);
    err_t e;
    assert_int_equal(wire_buf_send(&b, &c->s, &e), 0);
    wire_buf_free(&b);
    wire_frame_t f;
    assert_int_equal(wire_read_frame(&c->r, &f, &e), 1);
    assert_int_equal(wire_decode_hello(&f, &h, &e), 0);
    assert_string_equal(h.host, "testhost");
}

/* The client closes its end; waits for the session to end. */
static inline void sh_stop(sh_conn_t *c)
{
    close(c->fd);
    pthread_join(c->th, NULL);
    wire_reader_free(&c->r);
    server_limits_free(c->limits);
}

static inline void sh_send_request(sh_conn_t *c, const wire_request_t *rq)
{
    wire_buf_t b = {0};
    wire_encode_request(&b, rq);
    err_t e;
    assert_int_equal(wire_buf_send(&b, &c->s, &e), 0);
    wire_buf_free(&b);
}

/* What the client received. */
typedef struct sh_got {
    char *lines;                 /* LINES bytes, NUL-terminated */
    size_t len;                  /* their length */
    char statuses[4096];         /* "STATUS name|" per FILE_STATUS */
    char counts[4096];           /* "bytes lines|" per FILE_STATUS with counts
                                    ("-" for WIRE_COUNT_NONE) */
    char messages[4096];         /* "text|" per MESSAGE */
    unsigned char *table;        /* the last AGGREGATE's bytes */
    size_t table_len;            /* their length */
    int n_agg;                   /* AGGREGATE frames */
    int final_seen;              /* an AGGREGATE marked final */
    int n_end;                   /* ENDs seen */
    int end[8];                  /* their statuses; -1: none */
    char end_text[1024];         /* the last END's message */
} sh_got_t;

static inline void sh_got_init(sh_got_t *g)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < sizeof g->end / sizeof g->end[0]; i++)
        g->end[i] = -1;
}

static inline void sh_got_free(sh_got_t *g)
{
    free(g->lines);
    free(g->table);
}

/* Adds the decoded message m to g. */
static inline void sh_got_add(sh_got_t *g, const wire_msg_t *m)
{
    if (m->type == WIRE_LINES) {
        g->lines = realloc(g->lines, g->len + m->data.len + 1);
        assert_non_null(g->lines);
        memcpy(g->lines + g->len, m->data.p, m->data.len);
        g->len += m->data.len;
        g->lines[g->len] = '\0';
    } else if (m->type == WIRE_FILE_STATUS) {
        size_t l = strlen(g->statuses);
        snprintf(g->statuses + l, sizeof g->statuses - l, "%d %.*s|", m->status,
                 (int)m->name.len, m->name.p);
        l = strlen(g->counts);
        if (m->has_counts && m->bytes == WIRE_COUNT_NONE)
            snprintf(g->counts + l, sizeof g->counts - l, "- ");
        else if (m->has_counts)
            snprintf(g->counts + l, sizeof g->counts - l, "%llu ", (unsigned long long)m->bytes);
        l = strlen(g->counts);
        if (m->has_counts && m->lines == WIRE_COUNT_NONE)
            snprintf(g->counts + l, sizeof g->counts - l, "-|");
        else if (m->has_counts)
            snprintf(g->counts + l, sizeof g->counts - l, "%llu|", (unsigned long long)m->lines);
    } else if (m->type == WIRE_MESSAGE) {
        size_t l = strlen(g->messages);
        snprintf(g->messages + l, sizeof g->messages - l, "%.*s|", (int)m->text.len, m->text.p);
    } else if (m->type == WIRE_AGGREGATE) {
        free(g->table);
        g->table = malloc(m->data.len ? m->data.len : 1);
        assert_non_null(g->table);
        memcpy(g->table, m->data.p, m->data.len);
        g->table_len = m->data.len;
        g->n_agg++;
        g->final_seen |= m->status;
    } else if (m->type == WIRE_END) {
        if (g->n_end < (int)(sizeof g->end / sizeof g->end[0]))
            g->end[g->n_end] = m->status;
        g->n_end++;
        snprintf(g->end_text, sizeof g->end_text, "%.*s", (int)m->text.len, m->text.p);
    }
}

/* Whether one of the MESSAGEs received was exactly text. */
static inline int sh_got_message(const sh_got_t *g, const char *text)
{
    size_t n = strlen(text);
    for (const char *p = g->messages; (p = strstr(p, text)) != NULL; p++)
        if ((p == g->messages || p[-1] == '|') && p[n] == '|')
            return 1;
    return 0;
}

/* The rows of a serialized aggregate table of plan's query, as the client
 * renders them (result_free res). */
static inline void sh_agg_result(const plan_t *plan, const unsigned char *bytes, size_t len,
                                 result_t *res)
{
    agg_spec_t specs[64];
    assert_true(plan->n_select <= sizeof specs / sizeof specs[0]);
    eval_specs(plan, specs);
    agg_table_t t;
    err_t e;
    assert_int_equal(agg_table_init(&t, specs, plan->n_select, &e), 0);
    assert_int_equal(agg_table_merge_serialized(&t, bytes, len, &e), 0);
    assert_int_equal(result_build(plan, &t, -1, res, &e), 0);
    agg_table_free(&t);
}

#endif
