/* conn_table.c: the connection list and its admission rules. */
#include "server/conn_table.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/clock.h"

struct conn_table {
    pthread_mutex_t mu;        /* guards the list and the counts */
    conn_entry_t *head;        /* oldest first */
    conn_entry_t *tail;
    int max_preauth, max_per_source, max_sessions;
    long long idle_timeout_ms; /* 0: never */
    unsigned long long dropped_preauth, dropped_idle;
};

conn_table_t *conn_table_new(const config_t *cfg)
{
    conn_table_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->mu, NULL);
    t->max_preauth = cfg->max_preauth_connections;
    t->max_per_source = cfg->max_preauth_per_source;
    t->max_sessions = cfg->max_connections;
    t->idle_timeout_ms = (long long)cfg->idle_timeout_s * 1000;
    return t;
}

void conn_table_free(conn_table_t *t)
{
    if (!t)
        return;
    pthread_mutex_destroy(&t->mu);
    free(t);
}

const char *conn_drop_name(int drop)
{
    switch (drop) {
    case CONN_DROP_PREAUTH: return "displaced from the pre-auth budget (MaxPreauthConnections/MaxPreauthPerSource)";
    case CONN_DROP_IDLE_YIELD: return "idle session yielded its slot to a new one (MaxConnections)";
    case CONN_DROP_IDLE: return "idle for IdleTimeoutSeconds";
    case CONN_DROP_HEALTH: return "replaced by a newer health session";
    default: return "kept";
    }
}

static void link_tail(conn_table_t *t, conn_entry_t *c)
{
    c->next = NULL;
    c->prev = t->tail;
    if (t->tail)
        t->tail->next = c;
    else
        t->head = c;
    t->tail = c;
}

static void unlink_entry(conn_table_t *t, conn_entry_t *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        t->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        t->tail = c->prev;
    c->prev = c->next = NULL;
}

/* A pre-auth connection has nothing to lose: its socket is shut down so
 * its thread wakes at once. A session ends by itself (conn_read sees the
 * flag within its poll step) so that its client gets an orderly close. */
static void drop_entry(conn_table_t *t, conn_entry_t *c, enum conn_drop why)
{
    if (atomic_load(&c->drop) != CONN_KEEP)
        return;
    atomic_store(&c->drop, why);
    if (!c->session) {
        shutdown(c->fd, SHUT_RDWR);
        t->dropped_preauth++;
    } else {
        t->dropped_idle++;
    }
}

static int live_preauth(const conn_entry_t *c)
{
    return !c->session && atomic_load(&c->drop) == CONN_KEEP;
}

/* Counts source's pre-auth entries; *victim is the one to drop first: the
 * oldest that has sent nothing, else the oldest. */
static int count_preauth_from(const conn_table_t *t, const char *source, conn_entry_t **victim)
{
    int n = 0;
    conn_entry_t *oldest = NULL, *silent = NULL;
    for (conn_entry_t *c = t->head; c; c = c->next) {
        if (live_preauth(c) && strcmp(c->source, source) == 0) {
            if (!oldest)
                oldest = c;
            if (!silent && !atomic_load(&c->spoke))
                silent = c;
            n++;
        }
    }
    *victim = silent ? silent : oldest;
    return n;
}

/* The oldest pre-auth entry of the address with the most of them. */
static conn_entry_t *busiest_source_oldest(const conn_table_t *t, int *total)
{
    conn_entry_t *best = NULL;
    int best_n = 0;
    *total = 0;
    for (conn_entry_t *c = t->head; c; c = c->next) {
        if (!live_preauth(c))
            continue;
        (*total)++;
        conn_entry_t *first;
        int n = count_preauth_from(t, c->source, &first);
        if (n > best_n) {
            best_n = n;
            best = first;
        }
    }
    return best;
}

void conn_table_add_preauth(conn_table_t *t, conn_entry_t *c)
{
    c->session = 0;
    c->start_ms = clock_now_ms();
    atomic_store(&c->drop, CONN_KEEP);
    atomic_store(&c->in_flight, 0);
    atomic_store(&c->spoke, 0);
    pthread_mutex_lock(&t->mu);
    conn_entry_t *oldest;
    if (count_preauth_from(t, c->source, &oldest) >= t->max_per_source) {
        drop_entry(t, oldest, CONN_DROP_PREAUTH);
    } else {
        int total;
        conn_entry_t *victim = busiest_source_oldest(t, &total);
        if (total >= t->max_preauth && victim)
            drop_entry(t, victim, CONN_DROP_PREAUTH);
    }
    link_tail(t, c);
    pthread_mutex_unlock(&t->mu);
}

/* The session with no request in flight that has been idle longest,
 * among the health user's sessions only with health_only. */
static conn_entry_t *longest_idle(const conn_table_t *t, int health_only, int *count)
{
    conn_entry_t *best = NULL;
    long long best_since = 0;
    *count = 0;
    for (conn_entry_t *c = t->head; c; c = c->next) {
        if (!c->session || atomic_load(&c->drop) != CONN_KEEP || (health_only && !c->health))
            continue;
        (*count)++;
        if (atomic_load(&c->in_flight))
            continue;
        long long since = atomic_load(&c->idle_since_ms);
        if (!best || since < best_since) {
            best = c;
            best_since = since;
        }
    }
    return best;
}

int conn_table_promote(conn_table_t *t, conn_entry_t *c, int health, char *why, size_t cap)
{
    int rc = 0;
    pthread_mutex_lock(&t->mu);
    int n;
    if (health) {
        conn_entry_t *v = longest_idle(t, 1, &n);
        if (n >= CONN_MAX_HEALTH) {
            /* Health requests take milliseconds: an in-flight one is
             * nearly done, so the oldest gives way even when busy. */
            if (!v)
                for (v = t->head; v && !(v->session && v->health &&
                                         atomic_load(&v->drop) == CONN_KEEP); v = v->next) {
                }
            if (v)
                drop_entry(t, v, CONN_DROP_HEALTH);
        }
    }
    conn_entry_t *v = longest_idle(t, 0, &n);
    if (n >= t->max_sessions) {
        if (v) {
            drop_entry(t, v, CONN_DROP_IDLE_YIELD);
        } else {
            snprintf(why, cap, "dserver at MaxConnections=%d: every session has a request in "
                               "flight, try again later", t->max_sessions);
            rc = -1;
        }
    }
    if (rc == 0) {
        c->session = 1;
        c->health = health;
        c->start_ms = clock_now_ms();
        atomic_store(&c->idle_since_ms, c->start_ms);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void conn_table_remove(conn_table_t *t, conn_entry_t *c)
{
    pthread_mutex_lock(&t->mu);
    unlink_entry(t, c);
    pthread_mutex_unlock(&t->mu);
}

void conn_entry_busy(conn_entry_t *c, int busy)
{
    if (!busy)
        atomic_store(&c->idle_since_ms, clock_now_ms());
    atomic_store(&c->in_flight, busy);
}

void conn_table_sweep(conn_table_t *t)
{
    if (t->idle_timeout_ms <= 0)
        return;
    long long now = clock_now_ms();
    pthread_mutex_lock(&t->mu);
    for (conn_entry_t *c = t->head; c; c = c->next) {
        if (c->session && !atomic_load(&c->in_flight) &&
            now - atomic_load(&c->idle_since_ms) >= t->idle_timeout_ms)
            drop_entry(t, c, CONN_DROP_IDLE);
    }
    pthread_mutex_unlock(&t->mu);
}

void conn_table_stats(conn_table_t *t, conn_table_stats_t *st, int reset)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&t->mu);
    for (conn_entry_t *c = t->head; c; c = c->next) {
        if (atomic_load(&c->drop) != CONN_KEEP)
            continue;
        if (!c->session) {
            st->preauth++;
            continue;
        }
        st->sessions++;
        st->health += c->health;
        st->busy += atomic_load(&c->in_flight) != 0;
    }
    st->dropped_preauth = t->dropped_preauth;
    st->dropped_idle = t->dropped_idle;
    if (reset)
        t->dropped_preauth = t->dropped_idle = 0;
    pthread_mutex_unlock(&t->mu);
}
