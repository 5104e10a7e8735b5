/* session.h: one client connection's requests, served with the same exec/
 * plans as the serverless clients (docs/protocol.md).
 *
 * The connection starts with HELLO both ways; then each REQUEST runs to
 * completion and ends with END, whatever happened (files denied or missing
 * are FILE_STATUS frames, a bad regex or query an END that says so). The
 * client may send another REQUEST or close. A malformed frame ends the
 * session with an error message to the client and -1 here; the server
 * process carries on. */
#ifndef DTAIL_SERVER_SESSION_H
#define DTAIL_SERVER_SESSION_H

#include "base/config.h"
#include "base/err.h"
#include "server/conn_table.h"
#include "server/counters.h"
#include "server/limits.h"
#include "wire/stream.h"

typedef struct session_env {
    const char *user;              /* authenticated SSH user name */
    const char *hostname;          /* this server's short host name (DTAIL_HOSTNAME_OVERRIDE honoured by SSH helper when filling it) */
    const config_t *cfg;           /* dtail.json (base/config.h) */
    server_limits_t *limits;       /* process-wide */
    server_counters_t *counters;   /* process-wide */
    const volatile int *stopping;  /* becomes 1 on shutdown: end requests promptly, still send end-of-stream */
    conn_table_t *conns;           /* the server's connections (health), may be NULL */
    const char *refusal;           /* non-NULL: over a limit, say this (which limit) to every request */
} session_env_t;

/* Serves one connection's stream until the client is done or the stream
 * fails; never exits the process; returns 0 or -1 with e set. */
int session_serve(stream_t *s, const session_env_t *env, err_t *e);

#endif
