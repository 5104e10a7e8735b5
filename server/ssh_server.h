/* ssh_server.h: dserver's SSH layer on libssh.
 *
 * One accept loop of our own (libssh's ssh_bind_accept_fd on sockets we
 * accepted, with TCP_NODELAY: without it every session pays two delayed-ACK
 * stalls), one thread per connection with blocking channel writes, which
 * are the backpressure: a client that reads slowly slows the session that
 * writes to it, and nothing is dropped.
 *
 * Per connection: key exchange and authentication must finish within the
 * handshake deadline (10 s); public keys are checked on both the probe and
 * the signed attempt (server/auth.h); one "session" channel is accepted and
 * only its "shell" request; pty-req, exec, env, subsystem and the rest are
 * refused without ending the connection (DTail closes it: its defect D23).
 * The shell channel is handed to serve() as a stream_t; when serve returns,
 * the channel gets EOF, an exit status and a close, and the connection ends.
 *
 * Admission (server/conn_table.h): pre-auth connections have a budget of
 * their own in which a new one displaces the oldest of the busiest
 * address; MaxConnections counts authenticated sessions, where an idle one
 * yields its slot to a new one. A session refused because every slot has
 * a request in flight is told so in its protocol (see serve) and closed.
 * DTail counts both kinds against MaxConnections and refuses before the
 * SSH banner; that lets half-open sockets lock everyone out. */
#ifndef DTAIL_SERVER_SSH_SERVER_H
#define DTAIL_SERVER_SSH_SERVER_H

#include "base/config.h"
#include "base/err.h"
#include "server/authkey_store.h"
#include "server/counters.h"
#include "wire/stream.h"

/* Serves one authenticated shell channel; returns 0 or -1 with e set.
 * With refusal set the session is over a limit: it only tells the client
 * so (refusal says which limit) and ends. */
typedef int (*ssh_server_serve_fn)(void *ctx, stream_t *s, const char *user, const char *refusal,
                                   err_t *e);

typedef struct ssh_server_opts {
    const config_t *cfg;            /* bind address and port, MaxConnections, keys, CacheDir */
    server_counters_t *counters;    /* connection counts are kept here */
    const volatile int *stopping;   /* 1: stop accepting, end sessions, return */
    ssh_server_serve_fn serve;      /* the session handler */
    void *serve_ctx;                /* its context */
    void (*tick)(void *ctx);        /* called about every 100 ms by the accept loop */
    void (*changed)(void *ctx);     /* connection counts changed (from any thread) */
    void *tick_ctx;                 /* context of tick and changed */
    int handshake_timeout_ms;       /* 0: 10000 */
    authkey_store_t *authkeys;      /* keys registered with AUTHKEY, accepted first; may be NULL */
} ssh_server_opts_t;

typedef struct ssh_server ssh_server_t;

/* Loads or creates the host keys and listens (port 0 picks a free port). */
int ssh_server_open(ssh_server_t **out, const ssh_server_opts_t *o, err_t *e);
/* The port actually listened on. */
int ssh_server_port(const ssh_server_t *s);
/* The connection table (server/conn_table.h), for the health check. */
struct conn_table *ssh_server_conns(ssh_server_t *s);
/* Accepts until *stopping, then waits (bounded) for connections to end. */
int ssh_server_run(ssh_server_t *s, err_t *e);
void ssh_server_free(ssh_server_t *s);

#endif
