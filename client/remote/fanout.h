/* fanout.h: one request to many servers at once (docs/fanout.md).
 *
 * One thread per server with blocking I/O (a small stack: FANOUT_STACK),
 * so a slow server only slows its own thread and the blocking SSH write is
 * the backpressure. At most cpc x CPUs handshakes (TCP connect, key
 * exchange, authentication, channel) are in flight at once, as DTail, so
 * bursts are not dropped by sshd-style MaxStartups limits; each has the
 * connect timeout Common.SSHConnectTimeoutMs.
 *
 * Each host's failure is reported as it happens on stderr
 * (`CLIENT|<me>|ERROR|<server>|<why>`); the others carry on. At the end a
 * summary names the hosts that failed and why (unless --quiet). The run
 * ends when every host is done, at the client deadline, on SIGTERM, SIGHUP
 * or SIGQUIT, or on a second Ctrl-C within 3 s (the first prints the
 * connection stats). Hosts still running then are left to the process
 * exit (their output is dropped from then on). */
#ifndef DTAIL_CLIENT_FANOUT_H
#define DTAIL_CLIENT_FANOUT_H

#include <pthread.h>
#include <stddef.h>

#include "base/config.h"
#include "client/tools/cli.h"
#include "client/tools/common.h"
#include "client/remote/targets.h"
#include "client/remote/session.h"

#define FANOUT_STACK (256 * 1024)     /* per host thread */
#define FANOUT_DEFAULT_CPC 10         /* handshakes in flight per CPU */

enum fanout_state {
    FANOUT_WAITING = 0,   /* for a handshake slot or a retry */
    FANOUT_CONNECTING,    /* handshake in flight */
    FANOUT_CONNECTED,     /* request running */
    FANOUT_DONE,          /* the request ended (END received) */
    FANOUT_FAILED,        /* could not connect, or the connection broke */
};

typedef struct fanout fanout_t;

typedef struct fanout_host {
    fanout_t *f;                  /* the run */
    const fanout_target_t *t;     /* which server */
    remote_conn_t c;              /* the connection while connected */
    client_run_t rs;              /* what the server reported (file problems) */
    int state;                    /* enum fanout_state, under f->mu */
    int finished;                 /* the thread ended, under f->mu */
    unsigned connects;            /* successful connections */
    int handshaken;               /* the first handshake ended */
    char why[1024];               /* the last failure, under f->mu */
    int ok;                       /* the summary counted it as ok, under f->mu */
    void *user;                   /* for the request's callbacks */
    pthread_t thread;
} fanout_host_t;

typedef struct fanout_ops {
    void *ctx;
    /* Runs the request on a connected host (h->c) until its END; 0, or -1
     * with e set when the connection or the protocol failed. */
    int (*run)(void *ctx, fanout_host_t *h, err_t *e);
    /* From the main thread about every 100 ms while the run goes on
     * (interval reports); may be NULL. */
    void (*tick)(void *ctx);
    /* At the end, for every host, once its ok and why are decided (under
     * the run's lock: no blocking); may be NULL. */
    void (*done)(void *ctx, const fanout_host_t *h);
    int retry;                    /* follow: reconnect with backoff after a
                                     failure or an END, until the run ends */
    /* The request run sends first on every connection (NULL: none
     * known): it goes out with the HELLO (remote_connect). */
    const wire_request_t *early;
} fanout_ops_t;

typedef struct fanout_opts {
    const cli_opts_t *o;          /* --port, --user, --key, --cpc, ... */
    const config_t *cfg;          /* SSHConnectTimeoutMs */
    fanout_targets_t *targets;    /* the servers (fanout_targets_of); the run sets
                                     their read_max; hosts are indexed like them */
    long long deadline_s;         /* client deadline from the start; 0 = none */
    int deadline_is_end;          /* reaching it is the normal end (dtail) */
} fanout_opts_t;

struct fanout {
    const fanout_opts_t *opts;    /* &opts_copy, &ops_copy: hosts left running */
    const fanout_ops_t *ops;      /* at the end outlive the caller's frame */
    fanout_opts_t opts_copy;
    fanout_ops_t ops_copy;
    char me[256];                 /* this client's host name (CLIENT|me|...) */
    fanout_targets_t targets;     /* *fo->targets (its items are the caller's) */
    fanout_host_t *hosts;         /* one per target, in their order */
    pthread_mutex_t mu;           /* host states, counters */
    pthread_cond_t cv;            /* a host finished */
    pthread_mutex_t out_mu;       /* one batch of lines at a time on stdout */
    int stopping;                 /* the run ended: drop further output */
    int out_failed;               /* stdout is gone */
    size_t n_connected;           /* hosts connected now */
    size_t n_finished;            /* threads ended */
    size_t n_throttled;           /* waiting for a handshake slot */
    size_t n_handshakes;          /* hosts whose first handshake ended (either way) */
    long long start_ms;           /* when the run began (monotonic) */
    pthread_mutex_t slot_mu;      /* handshake slots */
    pthread_cond_t slot_cv;
    int slots;                    /* free handshake slots */
};

/* The servers of --servers and --discovery, with the default port
 * (--port, Common.SSHPort): read once per run (a FILE is read and a
 * /regex/ compiled once), so callers size per-host state by out->n. */
int fanout_targets_of(const cli_opts_t *o, const config_t *cfg, fanout_targets_t *out, err_t *e);
/* What each fan-out tool sets up first: the files to ask for
 * (remote_files(o, skip)) and the servers (fanout_targets_of). 0, or -1
 * with e set (a usage error) and nothing left to free. */
int fanout_files_and_targets(const cli_opts_t *o, const config_t *cfg, int skip, char **files,
                             fanout_targets_t *tl, err_t *e);

/* Runs ops on every server of fo->targets (at least one). Returns the
 * exit status: 0 when every host ended its request without a problem, 1
 * when a host failed (connect, authentication, broken connection,
 * deadline) or reported a file problem, or stdout failed. *abandoned is set when hosts were still
 * running at the end: their callbacks may still run, so ops->ctx and
 * fo->targets must stay allocated (the process is about to exit). */
int fanout_run(const fanout_opts_t *fo, const fanout_ops_t *ops, client_run_t *rs,
               int *abandoned);

/* Writes whole lines (one LINES payload) to stdout as one block. */
int fanout_write_lines(fanout_host_t *h, const char *p, size_t n, err_t *e);
/* Whether the run has ended (a request should stop). */
int fanout_stopping(fanout_t *f);

#endif
