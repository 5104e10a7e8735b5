/* ssh_server.c: listening socket, accept loop, connection limit, threads. */
#include "server/ssh_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "server/authlog.h"
#include "server/conn_table.h"
#include "server/hostkey.h"
#include "server/ssh_conn.h"

struct ssh_server {
    ssh_server_opts_t o;   /* copy of the options */
    ssh_bind bind;         /* host keys and algorithms for new sessions */
    int listen_fd;         /* our listening socket */
    int port;              /* the port it listens on */
    pthread_mutex_t mu;    /* guards n_threads */
    pthread_cond_t idle;   /* signalled when n_threads drops */
    int n_threads;         /* connection threads still running */
    struct conn_start *threads; /* started, not joined (accept loop only) */
    conn_table_t *table;   /* open connections and their budgets */
    authlog_t *authlog;    /* authentication failures, summarized */
    long long last_sweep_ms; /* last idle sweep and log summary */
};

/* One connection thread. Threads are joined, not detached: a thread's
 * thread-local state (OpenSSL's per-thread random generator among it) is
 * released only once it has fully ended, which join waits for. */
typedef struct conn_start {
    ssh_server_t *srv;           /* the server */
    ssh_session sess;            /* bound to the accepted socket */
    conn_entry_t entry;          /* its place in the connection table */
    pthread_t th;                /* the thread */
    atomic_int done;             /* the thread is about to return */
    struct conn_start *next;     /* list of threads not joined yet */
} conn_start_t;

static int listen_on(const char *addr, int port, int *fd_out, int *port_out, err_t *e)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int g = getaddrinfo(addr && *addr ? addr : NULL, ps, &hints, &res);
    if (g != 0)
        return err_set(e, ERR_CONFIG, "cannot resolve bind address %s: %s", addr, gai_strerror(g));
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
            break;
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return err_set(e, ERR_IO, "cannot listen on %s:%d: %s", addr, port, strerror(err));
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    *port_out = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    *fd_out = fd;
    return 0;
}

/* Server.KeyExchanges, Ciphers, MACs onto the listener (sessions
 * accepted from it negotiate only these). Each name is tried alone
 * first: libssh drops the names it does not know from a list, and a
 * misspelt cipher must not leave a server running with fewer algorithms
 * than its operator thinks. */
static int set_algorithms(ssh_bind bind, const config_t *cfg, err_t *e)
{
    static const struct {
        const char *key;
        size_t offset;
        int n_opts;   /* key exchange has one option, the others one per direction */
        enum ssh_bind_options_e opts[2];
    } sets[] = {
        {"KeyExchanges", offsetof(config_t, key_exchanges), 1, {SSH_BIND_OPTIONS_KEY_EXCHANGE}},
        {"Ciphers", offsetof(config_t, ciphers), 2,
         {SSH_BIND_OPTIONS_CIPHERS_C_S, SSH_BIND_OPTIONS_CIPHERS_S_C}},
        {"MACs", offsetof(config_t, macs), 2, {SSH_BIND_OPTIONS_HMAC_C_S, SSH_BIND_OPTIONS_HMAC_S_C}},
    };
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        const char *list = (const char *)cfg + sets[k].offset;
        if (!*list)
            continue;
        char where[4200];
        config_where(cfg, (const char *const[]){"Server", sets[k].key, NULL}, where, sizeof where);
        char one[1024];
        for (const char *p = list; *p;) {
            size_t n = strcspn(p, ",");
            snprintf(one, sizeof one, "%.*s", (int)n, p);
            if (ssh_bind_options_set(bind, sets[k].opts[0], one) != SSH_OK)
                return err_set(e, ERR_CONFIG, "%s: Server.%s: \"%s\" is not an algorithm this "
                                              "libssh supports", where, sets[k].key, one);
            p += n + (p[n] == ',');
        }
        for (int d = 0; d < sets[k].n_opts; d++)
            if (ssh_bind_options_set(bind, sets[k].opts[d], list) != SSH_OK)
                return err_set(e, ERR_CONFIG, "%s: Server.%s: libssh refused \"%s\": %s", where,
                               sets[k].key, list, ssh_get_error(bind));
    }
    return 0;
}

int ssh_server_open(ssh_server_t **out, const ssh_server_opts_t *o, err_t *e)
{
    *out = NULL;
    ssh_server_t *s = calloc(1, sizeof *s);
    if (!s)
        return err_set(e, ERR_NOMEM, "out of memory");
    s->o = *o;
    s->listen_fd = -1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->idle, NULL);
    s->bind = ssh_bind_new();
    s->table = conn_table_new(o->cfg);
    s->authlog = authlog_new();
    if (!s->bind || !s->table || !s->authlog) {
        ssh_server_free(s);
        return err_set(e, ERR_NOMEM, "ssh_bind_new failed");
    }
    if (set_algorithms(s->bind, o->cfg, e) < 0 || hostkey_setup(s->bind, o->cfg, e) < 0 ||
        listen_on(o->cfg->ssh_bind_address, o->cfg->ssh_port, &s->listen_fd, &s->port, e) < 0) {
        ssh_server_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

conn_table_t *ssh_server_conns(ssh_server_t *s)
{
    return s->table;
}

int ssh_server_port(const ssh_server_t *s)
{
    return s->port;
}

static void *conn_thread(void *arg)
{
    conn_start_t *cs = arg;
    ssh_server_t *srv = cs->srv;
    ssh_conn_run(cs->sess, &srv->o, srv->table, &cs->entry, srv->authlog);
    pthread_mutex_lock(&srv->mu);
    srv->n_threads--;
    atomic_store(&cs->done, 1);
    pthread_cond_broadcast(&srv->idle);
    pthread_mutex_unlock(&srv->mu);
    return NULL;
}

/* Joins the threads that have finished (all of them with wait_all). */
static void reap_threads(ssh_server_t *s, int wait_all)
{
    conn_start_t **pp = &s->threads;
    while (*pp) {
        conn_start_t *cs = *pp;
        if (wait_all || atomic_load(&cs->done)) {
            pthread_join(cs->th, NULL);
            *pp = cs->next;
            free(cs);
        } else {
            pp = &cs->next;
        }
    }
}

/* The peer's address without the port: what the pre-auth budget and the
 * authentication log count by. */
static void peer_source(const struct sockaddr_storage *sa, socklen_t len, char *out, size_t cap)
{
    if (getnameinfo((const struct sockaddr *)sa, len, out, (socklen_t)cap, NULL, 0,
                    NI_NUMERICHOST) != 0)
        snprintf(out, cap, "?");
}

static void accept_one(ssh_server_t *s)
{
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    int fd = accept4(s->listen_fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
            LOG_ERROR("accept failed: %s", strerror(errno));
        if (errno == EMFILE || errno == ENFILE) {
            clock_sleep_ms(100);   /* out of descriptors: do not spin */
        }
        return;
    }
    server_counters_t *c = s->o.counters;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ssh_session sess = ssh_new();
    if (!sess || ssh_bind_accept_fd(s->bind, sess, fd) != SSH_OK) {
        LOG_ERROR("cannot start an SSH session: %s", sess ? ssh_get_error(s->bind) : "out of memory");
        if (sess)
            ssh_free(sess);
        close(fd);
        return;
    }
    atomic_fetch_add(&c->preauth_connections, 1);
    atomic_fetch_add(&c->lifetime_connections, 1);
    if (s->o.changed)
        s->o.changed(s->o.tick_ctx);
    conn_start_t *cs = calloc(1, sizeof *cs);
    pthread_mutex_lock(&s->mu);
    s->n_threads++;
    pthread_mutex_unlock(&s->mu);
    if (cs) {
        cs->srv = s;
        cs->sess = sess;
        peer_source(&sa, sl, cs->entry.source, sizeof cs->entry.source);
        cs->entry.fd = fd;
        conn_table_add_preauth(s->table, &cs->entry);
        /* SSH clients send their banner without waiting for ours: often
         * it is there already, and the connection counts as talking
         * before its thread has even started. */
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, 0) > 0)
            atomic_store(&cs->entry.spoke, 1);
    }
    if (!cs || pthread_create(&cs->th, NULL, conn_thread, cs) != 0) {
        LOG_ERROR("cannot start a connection thread");
        if (cs)
            conn_table_remove(s->table, &cs->entry);
        free(cs);
        ssh_free(sess);   /* closes fd */
        atomic_fetch_sub(&c->preauth_connections, 1);
        pthread_mutex_lock(&s->mu);
        s->n_threads--;
        pthread_mutex_unlock(&s->mu);
        return;
    }
    cs->next = s->threads;
    s->threads = cs;
}

/* Once a second: idle sessions closed, drops and authentication failures
 * summarized in the log (one line per cause, not one per connection). */
static void housekeeping(ssh_server_t *s)
{
    long long now = clock_now_ms();
    if (now - s->last_sweep_ms < 1000)
        return;
    s->last_sweep_ms = now;
    conn_table_sweep(s->table);
    conn_table_stats_t st;
    conn_table_stats(s->table, &st, 1);
    if (st.dropped_preauth)
        LOG_WARN("Dropped %llu pre-auth connections|budget MaxPreauthConnections=%d "
                 "MaxPreauthPerSource=%d|open pre-auth %d",
                 st.dropped_preauth, s->o.cfg->max_preauth_connections,
                 s->o.cfg->max_preauth_per_source, st.preauth);
    if (st.dropped_idle)
        LOG_INFO("Closed %llu idle sessions|MaxConnections=%d IdleTimeoutSeconds=%d",
                 st.dropped_idle, s->o.cfg->max_connections, s->o.cfg->idle_timeout_s);
    authlog_flush(s->authlog, now, 0);
}

int ssh_server_run(ssh_server_t *s, err_t *e)
{
    (void)e;
    while (!*s->o.stopping) {
        struct pollfd p = {.fd = s->listen_fd, .events = POLLIN};
        int r = poll(&p, 1, 100);
        if (r > 0 && !*s->o.stopping)
            accept_one(s);
        if (s->o.tick)
            s->o.tick(s->o.tick_ctx);
        reap_threads(s, 0);
        housekeeping(s);
    }
    close(s->listen_fd);
    s->listen_fd = -1;
    /* Sessions see the stopping flag within 100 ms when idle and within
     * about a second when blocked on a client; a handshake ends by its
     * deadline (which also ends when the server stops). Wait for them, but
     * not longer than a shutdown may take: what is still open after 5 s is
     * ended by the process exit, and said in the log. */
    long long until = clock_now_ms() + 5000;
    pthread_mutex_lock(&s->mu);
    while (s->n_threads > 0) {
        pthread_mutex_unlock(&s->mu);
        if (s->o.tick)
            s->o.tick(s->o.tick_ctx);
        pthread_mutex_lock(&s->mu);
        struct timespec step;
        clock_abs_in(&step, 100);
        pthread_cond_timedwait(&s->idle, &s->mu, &step);
        if (clock_now_ms() > until)
            break;
    }
    int left = s->n_threads;
    pthread_mutex_unlock(&s->mu);
    if (left > 0)
        LOG_WARN("%d connections still open at shutdown", left);
    else
        reap_threads(s, 1);
    authlog_flush(s->authlog, clock_now_ms(), 1);
    return 0;
}

void ssh_server_free(ssh_server_t *s)
{
    if (!s)
        return;
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    pthread_mutex_lock(&s->mu);
    int left = s->n_threads;
    pthread_mutex_unlock(&s->mu);
    /* Threads still running use bind's options and s: leak rather than
     * free under them (only after the bounded wait above gave up). */
    if (left == 0) {
        reap_threads(s, 1);
        if (s->bind)
            ssh_bind_free(s->bind);
        conn_table_free(s->table);
        authlog_free(s->authlog);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->idle);
        free(s);
    }
}
