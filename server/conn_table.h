/* conn_table.h: every open connection of dserver and the admission rules
 * that keep one peer from taking the server out of service (docs/dserver.md,
 * "Hardening").
 *
 * Two budgets, counted apart:
 *  - pre-auth (accepted, not yet authenticated): Server.MaxPreauthConnections
 *    at once, Server.MaxPreauthPerSource of them from one address. A new
 *    connection is never refused for these: it drops the oldest pre-auth
 *    connection of its own address when that address is at its share, else,
 *    when the whole budget is taken, the oldest of the address holding the
 *    most; among those, one whose peer has sent nothing yet goes first.
 *    Half-open sockets then only displace each other, and a client that
 *    talks gets through (sshd's
 *    MaxStartups drops the new connection instead, which an attacker who
 *    renews faster than the client retries turns into a refusal).
 *  - sessions (authenticated): Server.MaxConnections. At the limit the
 *    session idle longest (no request in flight) yields its slot to the new
 *    one; only when every session has a request in flight is the new one
 *    refused. The health user, whose password is public, has at most
 *    CONN_MAX_HEALTH sessions; a further one replaces its oldest.
 * A session with no request in flight for Server.IdleTimeoutSeconds is
 * closed (conn_table_sweep).
 *
 * Entries belong to their connection's thread; the table only links them
 * and sets their drop flag, which the thread polls (and a shutdown of the
 * socket wakes it at once). */
#ifndef DTAIL_SERVER_CONN_TABLE_H
#define DTAIL_SERVER_CONN_TABLE_H

#include <stdatomic.h>

#include "base/config.h"

#define CONN_MAX_HEALTH 2   /* sessions of the health user at once */

enum conn_drop {
    CONN_KEEP = 0,
    CONN_DROP_PREAUTH,     /* displaced from the pre-auth budget */
    CONN_DROP_IDLE_YIELD,  /* idle, yielded its slot to a new session */
    CONN_DROP_IDLE,        /* idle for Server.IdleTimeoutSeconds */
    CONN_DROP_HEALTH,      /* replaced by a newer health session */
};

typedef struct conn_entry {
    char source[64];             /* peer address, no port */
    int fd;                      /* the socket, shut down to wake the thread */
    long long start_ms;          /* accepted (pre-auth) or authenticated (session) */
    int session;                 /* 0: pre-auth, 1: authenticated */
    int health;                  /* the health user's session */
    atomic_int in_flight;        /* a request is being served */
    atomic_llong idle_since_ms;  /* when the last request ended */
    atomic_int drop;             /* enum conn_drop: the thread must end */
    atomic_int spoke;            /* the peer has sent something (pre-auth) */
    struct conn_entry *prev, *next;
} conn_entry_t;

typedef struct conn_table conn_table_t;

conn_table_t *conn_table_new(const config_t *cfg);
void conn_table_free(conn_table_t *t);

/* Adds a pre-auth entry (source and fd filled in by the caller), dropping
 * another one first when the budgets say so. */
void conn_table_add_preauth(conn_table_t *t, conn_entry_t *c);
/* Moves c to the sessions. Returns 0, or -1 when every session has a
 * request in flight at MaxConnections (c stays pre-auth: remove it), with
 * the limit in words in why. */
int conn_table_promote(conn_table_t *t, conn_entry_t *c, int health, char *why, size_t cap);
void conn_table_remove(conn_table_t *t, conn_entry_t *c);
/* Marks c busy or idle (from the session's thread). */
void conn_entry_busy(conn_entry_t *c, int busy);
/* Drops the sessions idle longer than the idle timeout; called now and then. */
void conn_table_sweep(conn_table_t *t);
/* Counts now, and how many were dropped since the last call (then zero). */
typedef struct conn_table_stats {
    int preauth, sessions, health, busy;
    unsigned long long dropped_preauth, dropped_idle;
} conn_table_stats_t;
void conn_table_stats(conn_table_t *t, conn_table_stats_t *st, int reset);
/* The words for a drop reason, for the log. */
const char *conn_drop_name(int drop);

#endif
