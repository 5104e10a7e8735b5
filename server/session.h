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
#include "server/authkey_store.h"
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
    authkey_store_t *authkeys;     /* where a 4.1 client's AUTHKEY registers; NULL: none */
} session_env_t;

/* Serves one connection's stream until the client is done or the stream
 * fails; never exits the process; returns 0 or -1 with e set. */
int session_serve(stream_t *s, const session_env_t *env, err_t *e);

/* ---- a job of the server's own (server/jobs.h), run without a client --- */

/* One run of a job: its query over its files on this server, through the
 * same runs as a client's request (session_job.c). Every file the
 * secrets allow may be read (DTail's job users skip Server.Permissions),
 * as dserver's own user; env->user names the kind of job in the log and
 * in the read queues. */
typedef struct session_job {
    const char *name;            /* the job's, for the log */
    const char *files;           /* comma list of paths and globs, dates filled in */
    const char *query;           /* the query with its outfile clause */
    long long timeout_s;         /* a continuous run ends after this; 0: never */
} session_job_t;

/* What a run did, for its line in the log. */
typedef struct session_job_result {
    int files_read;              /* files read to their end */
    int files_failed;            /* missing, refused or unreadable */
    unsigned long long lines;    /* lines read (a scheduled run) */
    size_t rows;                 /* rows of the outfile written last */
    int writes;                  /* outfiles written */
    int errors;                  /* errors, each logged */
} session_job_result_t;

/* A scheduled job's run: the map over every file, whose whole result is
 * written to the outfile (the groups spill past Server.MapMemoryLimit as
 * a client's map does). None is written when the server stopped the run,
 * nor when none of the files could be read. Returns 0 when the run was
 * made (res says how it went), -1 with e set when it could not start. */
int session_job_map(const session_env_t *env, const session_job_t *job, session_job_result_t *res,
                    err_t *e);
/* A continuous job's run: the files followed as a tail request follows
 * them, from their end, and each interval's result replacing the outfile
 * (an empty interval keeps the result written before it in the run),
 * until timeout_s passes or the server stops. Returns as session_job_map. */
int session_job_tail(const session_env_t *env, const session_job_t *job,
                     session_job_result_t *res, err_t *e);

#endif
