/* ssh_conn.c: handshake, authentication, the shell channel as a stream. */
#include "server/ssh_conn.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libssh/callbacks.h>

#include "base/clock.h"
#include "base/log.h"
#include "transport/ssh_stream.h"
#include "server/auth.h"
#include "server/authlog.h"
#include "server/conn_table.h"


typedef struct conn {
    const ssh_server_opts_t *o;              /* server options */
    ssh_session sess;                        /* the libssh session */
    ssh_channel chan;                        /* the one session channel, NULL until opened */
    int authed;                              /* authentication succeeded */
    int shell;                               /* the channel has its shell */
    char user[256];                          /* authenticated user */
    pthread_mutex_t mu;                      /* one libssh call at a time on sess */
    conn_entry_t *entry;                     /* in the server's connection table */
    authlog_t *authlog;                      /* where failures are counted */
    int auth_failures;                       /* failed attempts on this connection */
    int auth_cut;                            /* reached Server.MaxAuthTries */
    stream_t *st;                            /* the channel's stream, once served */
    ssh_stream_t io;                         /* the channel through the shared adapter */
    ssh_stream_stall_t stall;                /* its write policy */
    char stall_peer[300];                    /* "client NAME" in its messages */
    struct ssh_server_callbacks_struct scb;  /* auth and channel-open callbacks */
    struct ssh_channel_callbacks_struct ccb; /* channel request callbacks */
} conn_t;

/* Each refused attempt counts, probes included (as sshd counts offered
 * keys): at Server.MaxAuthTries the connection is cut. */
static void auth_failed(conn_t *c, const char *user, const char *reason)
{
    c->auth_failures++;
    if (c->auth_failures >= c->o->cfg->max_auth_tries)
        c->auth_cut = 1;
    /* auth.c's messages start with "user|": the user is logged apart. */
    const char *bar = strchr(reason, '|');
    /* The log escapes the name, so even one that is not allowed (a
     * newline in it) is shown as it came. */
    authlog_failure(c->authlog, c->entry->source, user, bar ? bar + 1 : reason);
}

static int on_pubkey(ssh_session s, const char *user, struct ssh_key_struct *key,
                     char state, void *ud)
{
    conn_t *c = ud;
    (void)s;
    if (state != SSH_PUBLICKEY_STATE_NONE && state != SSH_PUBLICKEY_STATE_VALID)
        return SSH_AUTH_DENIED;   /* a wrong signature */
    err_t e;
    err_clear(&e);
    /* The probe and the signed attempt are both checked: a client must not
     * be told "this key would do" for a key that is not listed. A key the
     * user registered with AUTHKEY comes first, as in DTail (its log line
     * is the one DTail's tests count). */
    const char *by = "in-memory auth key store";
    if (!auth_key_stored(c->o->authkeys, user, key)) {
        by = "public key";
        if (!auth_key_authorized(c->o->cfg->cache_dir, user, key, c->entry->source, &e)) {
            auth_failed(c, user, e.msg);
            return SSH_AUTH_DENIED;
        }
    }
    if (state == SSH_PUBLICKEY_STATE_VALID) {
        snprintf(c->user, sizeof c->user, "%s", user);
        c->authed = 1;
        LOG_INFO("%s|Authorized by %s", user, by);
    }
    return SSH_AUTH_SUCCESS;
}

static int on_password(ssh_session s, const char *user, const char *password, void *ud)
{
    conn_t *c = ud;
    (void)s;
    if (auth_password_ok(user, password)) {
        snprintf(c->user, sizeof c->user, "%s", user);
        c->authed = 1;
        LOG_DEBUG("%s|Authorized by password (health check user)", user);
        return SSH_AUTH_SUCCESS;
    }
    auth_failed(c, user, "password authentication refused: only public keys are accepted");
    return SSH_AUTH_DENIED;
}

static int on_shell(ssh_session s, ssh_channel ch, void *ud)
{
    conn_t *c = ud;
    (void)s;
    (void)ch;
    if (c->shell)
        return -1;
    c->shell = 1;
    return 0;
}

static int on_pty(ssh_session s, ssh_channel ch, const char *term, int w, int h, int pxw,
                  int pxh, void *ud)
{
    (void)s; (void)ch; (void)term; (void)w; (void)h; (void)pxw; (void)pxh; (void)ud;
    LOG_DEBUG("Refusing SSH request|pty-req");
    return -1;
}

static int on_exec(ssh_session s, ssh_channel ch, const char *cmd, void *ud)
{
    (void)s; (void)ch; (void)ud;
    LOG_INFO("Refusing SSH request|exec|%.200s", cmd);
    return -1;
}

static int on_env(ssh_session s, ssh_channel ch, const char *name, const char *val, void *ud)
{
    (void)s; (void)ch; (void)val; (void)ud;
    LOG_DEBUG("Refusing SSH request|env|%.200s", name);
    return -1;
}

static int on_subsystem(ssh_session s, ssh_channel ch, const char *name, void *ud)
{
    (void)s; (void)ch; (void)ud;
    LOG_INFO("Refusing SSH request|subsystem|%.200s", name);
    return -1;
}

static ssh_channel on_channel_open(ssh_session s, void *ud)
{
    conn_t *c = ud;
    if (!c->authed || c->chan)
        return NULL;   /* one session channel per connection */
    c->chan = ssh_channel_new(s);
    if (!c->chan)
        return NULL;
    ssh_callbacks_init(&c->ccb);
    c->ccb.userdata = c;
    c->ccb.channel_shell_request_function = on_shell;
    c->ccb.channel_pty_request_function = on_pty;
    c->ccb.channel_exec_request_function = on_exec;
    c->ccb.channel_env_request_function = on_env;
    c->ccb.channel_subsystem_request_function = on_subsystem;
    ssh_set_channel_callbacks(c->chan, &c->ccb);
    return c->chan;
}

/* libssh keeps one error per session and a later one overwrites it:
 * when the client's identification line and KEXINIT arrive in one read
 * (OpenSSH's do when dserver is slow to its first read), a failed
 * negotiation closes the socket with our KEXINIT still unsent, and the
 * failed flush replaces "no match for method ..." with "Socket error:
 * Success". Every error libssh sets also goes to the thread's log
 * callback at SSH_LOG_WARN, so the key exchange keeps the last one that
 * is not about the socket ("Socket error", "Socket exception") as the
 * cause. */
static _Thread_local char kex_cause[256];

static void on_kex_log(int priority, const char *function, const char *msg, void *ud)
{
    (void)ud;
    if (priority > SSH_LOG_WARN)
        return;
    size_t fl = function ? strlen(function) : 0;
    if (fl && strncmp(msg, function, fl) == 0 && strncmp(msg + fl, ": ", 2) == 0)
        msg += fl + 2;
    if (strncmp(msg, "Socket ", 7) != 0)
        snprintf(kex_cause, sizeof kex_cause, "%s", msg);
}

/* The key exchange runs non-blocking so that the deadline and a
 * shutdown are noticed while a client dawdles in it. */
static int kex_exchange(conn_t *c, long long deadline, const char **why)
{
    ssh_set_blocking(c->sess, 0);
    for (;;) {
        int rc = ssh_handle_key_exchange(c->sess);
        if (rc == SSH_OK)
            return 0;
        if (rc == SSH_ERROR) {
            const char *err = ssh_get_error(c->sess);
            if (err && strncmp(err, "Socket error", 12) == 0 && kex_cause[0])
                err = kex_cause;
            *why = err && *err ? err : "key exchange failed (client closed)";
            return -1;
        }
        long long left = deadline - clock_now_ms();
        if (left <= 0 || *c->o->stopping || atomic_load(&c->entry->drop)) {
            *why = left <= 0 ? "handshake deadline passed"
                 : *c->o->stopping ? "server stopping" : conn_drop_name(atomic_load(&c->entry->drop));
            return -1;
        }
        struct pollfd p = {.fd = ssh_get_fd(c->sess), .events = POLLIN};
        int pr = poll(&p, 1, left < 100 ? (int)left : 100);
        if (pr < 0 && errno != EINTR) {
            *why = "poll failed during the key exchange";
            return -1;
        }
        if (pr > 0)
            atomic_store(&c->entry->spoke, 1);
    }
}

/* Key exchange, authentication, channel and shell, all before the
 * deadline. Returns 0 when the shell is up. */
static int handshake(conn_t *c, int timeout_ms, const char **why)
{
    long long deadline = clock_now_ms() + timeout_ms;
    kex_cause[0] = 0;
    ssh_set_log_callback(on_kex_log);
    ssh_set_log_level(SSH_LOG_WARN);
    int rc = kex_exchange(c, deadline, why);
    ssh_set_log_level(SSH_LOG_NOLOG);
    if (rc < 0)
        return -1;
    ssh_set_blocking(c->sess, 1);
    ssh_event ev = ssh_event_new();
    if (!ev || ssh_event_add_session(ev, c->sess) != SSH_OK) {
        if (ev)
            ssh_event_free(ev);
        *why = "cannot poll the session";
        return -1;
    }
    *why = NULL;
    while (!(c->authed && c->shell)) {
        long long left = deadline - clock_now_ms();
        if (left <= 0) {
            *why = "handshake deadline passed";
            break;
        }
        if (*c->o->stopping) {
            *why = "server stopping";
            break;
        }
        if (atomic_load(&c->entry->drop)) {
            *why = conn_drop_name(atomic_load(&c->entry->drop));
            break;
        }
        if (c->auth_cut) {
            *why = "too many authentication attempts (MaxAuthTries)";
            break;
        }
        if (ssh_event_dopoll(ev, left < 100 ? (int)left : 100) == SSH_ERROR ||
            !ssh_is_connected(c->sess)) {
            *why = "client went away";
            break;
        }
    }
    ssh_event_remove_session(ev, c->sess);
    ssh_event_free(ev);
    return *why ? -1 : 0;
}

/* The shared adapter's hooks (transport/ssh_stream.h): a waiting read
 * ends when the server stops or the connection table dropped us. */
static int conn_read_ends(void *ctx)
{
    conn_t *c = ctx;
    if (*c->o->stopping)
        return 1;
    if (atomic_load(&c->entry->drop)) {
        LOG_INFO("%s|Closing session|%s", c->user, conn_drop_name(atomic_load(&c->entry->drop)));
        return 1;
    }
    return 0;
}

static ssize_t conn_read(void *ctx, void *buf, size_t n, err_t *e)
{
    return ssh_stream_read(&((conn_t *)ctx)->io, buf, n, e);
}

static void conn_stalled(void *ctx, int stalled);

static const ssh_stream_calls_t server_calls = {
    .channel_read_timeout = ssh_channel_read_timeout,
    .channel_write = ssh_channel_write,
    .channel_is_eof = ssh_channel_is_eof,
    .channel_is_closed = ssh_channel_is_closed,
    .get_fd = ssh_get_fd,
    .get_error = ssh_get_error,
    .blocking_flush = ssh_blocking_flush,
};

static void conn_stream_setup(conn_t *c)
{
    snprintf(c->stall_peer, sizeof c->stall_peer, "client %s", c->user);
    c->stall = (ssh_stream_stall_t){
        .timeout_ms = (long long)c->o->cfg->write_timeout_s * 1000,
        .stopping = c->o->stopping,
        .tell = conn_stalled,
        .ctx = c,
        .peer_name = c->stall_peer,
    };
    c->io = (ssh_stream_t){
        .api = &server_calls,
        .sess = c->sess,
        .ch = c->chan,
        .mu = &c->mu,
        .read_ends = conn_read_ends,
        .read_ends_ctx = c,
        .stall = &c->stall,
    };
    snprintf(c->io.who, sizeof c->io.who, "the SSH channel of %s", c->user);
}

static void conn_busy(void *ctx, int busy)
{
    conn_t *c = ctx;
    conn_entry_busy(c->entry, busy);
}

/* Tells the session that a write waits on the client (or goes through
 * again); the adapter calls it without the lock, as the session may wait
 * for a slot. */
static void conn_stalled(void *ctx, int stalled)
{
    conn_t *c = ctx;
    if (c->st && c->st->on_stall)
        c->st->on_stall(c->st->owner, stalled);
}

/* Blocking writes with the client's window as backpressure (the adapter's
 * stall policy): each libssh write waits at most 1 s (SSH_OPTIONS_TIMEOUT)
 * for the window and the socket; without progress for
 * Server.WriteTimeoutSeconds the request ends: a client that stops reading
 * must not hold the server. */
static int conn_write(void *ctx, const void *buf, size_t n, err_t *e)
{
    return ssh_stream_write(&((conn_t *)ctx)->io, buf, n, e);
}

/* EOF, exit status and close; then wait briefly for the client's close so
 * our last bytes are not cut off by a reset of unread input. */
static void finish_channel(conn_t *c, int status)
{
    pthread_mutex_lock(&c->mu);
    if (!ssh_channel_is_closed(c->chan)) {
        ssh_channel_send_eof(c->chan);
        ssh_channel_request_send_exit_status(c->chan, status);
        /* CLOSE goes out at once, as sshd sends it when its command ends:
         * OpenSSH's client answers a CLOSE at once, but sends one of its
         * own only after its stdin ended, so waiting for the client's
         * close first held every OpenSSH session for the whole bound. */
        ssh_channel_close(c->chan);
        /* Then the client reads what is left and goes; disconnecting
         * before it has would make a libssh client drop data it has not
         * read yet. Reads do not process packets on a closed channel, so
         * poll the session itself. */
        long long deadline = clock_now_ms() + 2000;
        ssh_event ev = ssh_event_new();
        if (ev && ssh_event_add_session(ev, c->sess) == SSH_OK) {
            while (ssh_is_connected(c->sess) && clock_now_ms() < deadline) {
                if (ssh_event_dopoll(ev, 100) == SSH_ERROR)
                    break;
            }
            ssh_event_remove_session(ev, c->sess);
        }
        if (ev)
            ssh_event_free(ev);
    }
    pthread_mutex_unlock(&c->mu);
}

static void count_move(const ssh_server_opts_t *o, atomic_ullong *from, atomic_ullong *to)
{
    if (from)
        atomic_fetch_sub(from, 1);
    if (to)
        atomic_fetch_add(to, 1);
    if (o->changed)
        o->changed(o->tick_ctx);
}

void ssh_conn_run(ssh_session sess, const ssh_server_opts_t *o, conn_table_t *table,
                  conn_entry_t *entry, authlog_t *authlog)
{
    conn_t c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.sess = sess;
    c.entry = entry;
    c.authlog = authlog;
    pthread_mutex_init(&c.mu, NULL);
    ssh_callbacks_init(&c.scb);
    c.scb.userdata = &c;
    c.scb.auth_pubkey_function = on_pubkey;
    c.scb.auth_password_function = on_password;
    c.scb.channel_open_request_session_function = on_channel_open;
    ssh_set_server_callbacks(sess, &c.scb);
    ssh_set_auth_methods(sess, SSH_AUTH_METHOD_PUBLICKEY | SSH_AUTH_METHOD_PASSWORD);

    const char *why = NULL;
    int timeout_ms = o->handshake_timeout_ms > 0 ? o->handshake_timeout_ms : 10000;
    char refusal[200] = "";
    if (handshake(&c, timeout_ms, &why) < 0) {
        /* Displaced ones are summarized by the accept loop, not one line each. */
        if (atomic_load(&entry->drop))
            LOG_DEBUG("Closing SSH connection before the session started|%s", why ? why : "?");
        else
            LOG_INFO("Closing SSH connection before the session started|%s|%s", entry->source,
                     why ? why : "?");
        count_move(o, &o->counters->preauth_connections, NULL);
        conn_table_remove(table, entry);
    } else {
        if (conn_table_promote(table, entry, strcmp(c.user, AUTH_HEALTH_USER) == 0, refusal,
                               sizeof refusal) < 0) {
            conn_table_remove(table, entry);
            LOG_WARN("%s|Refusing session|%s", c.user, refusal);
        }
        count_move(o, &o->counters->preauth_connections, &o->counters->connections);
        LOG_DEBUG("Creating new server handler|%s", c.user);
        /* From here a blocking write waits at most 1 s for the window before
         * checking whether the server stops (see conn_write). */
        long one = 1;
        ssh_options_set(sess, SSH_OPTIONS_TIMEOUT, &one);
        stream_t st = {.ctx = &c, .read = conn_read, .write = conn_write, .close = NULL,
                       .busy = conn_busy};
        c.st = &st;
        conn_stream_setup(&c);
        err_t e;
        err_clear(&e);
        int rc = o->serve(o->serve_ctx, &st, c.user, refusal[0] ? refusal : NULL, &e);
        if (rc < 0)
            LOG_WARN("%s|session ended with an error|%s", c.user, e.msg);
        finish_channel(&c, rc < 0 ? 1 : 0);
        c.st = NULL;
        count_move(o, &o->counters->connections, NULL);
        if (!refusal[0])
            conn_table_remove(table, entry);
    }
    LOG_INFO("Good bye Mister!");
    ssh_disconnect(sess);
    ssh_free(sess);
    pthread_mutex_destroy(&c.mu);
}
