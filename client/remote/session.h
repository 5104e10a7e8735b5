/* session.h: the clients' side of the wire protocol (docs/protocol.md):
 * connect to a dserver over SSH (client/remote/ssh.h), exchange HELLO,
 * send one REQUEST and receive its frames until END, rendering them as
 * DTail does in server mode (shared reference §4.8): LINES are written to
 * stdout as they come (the server rendered them in the format asked for:
 * plain, REMOTE|host|..., or coloured), server messages and per-file
 * problems go to stderr as `SERVER|host|LEVEL|text` (plain mode: the text
 * only) and raise the exit status, AGGREGATE partials go to a callback.
 *
 * The connection is a value: client/remote/fanout.h runs one per server, each in
 * its own thread. */
#ifndef DTAIL_CLIENT_REMOTE_H
#define DTAIL_CLIENT_REMOTE_H

#include <stddef.h>

#include "base/config.h"
#include "base/err.h"
#include "base/outbuf.h"
#include "client/tools/cli.h"
#include "exec/run/request.h"
#include "client/tools/common.h"
#include "client/remote/targets.h"
#include "exec/agg/table.h"
#include "wire/frame.h"
#include "wire/msg.h"
#include "wire/stream.h"

typedef struct remote_conn {
    stream_t s;                  /* the SSH channel */
    wire_reader_t r;             /* frames from it */
    wire_hello_t server;         /* the server's HELLO */
    int plain;                   /* --plain: messages without SERVER|host| */
    char peer_tag[200];          /* user@ip:port of our end as the server
                                    sees it ("": unknown); a Go dserver's
                                    plain-mode messages carry it */
    int zstd;                    /* ask for compressed LINES: --compress and the
                                    server offers zstd (docs/protocol.md) */
    int open;                    /* s and r need closing */
    int dt41;                    /* the server speaks DTail 4.1 (a Go dserver):
                                    requests go through client/remote/dt41.h */
    size_t agg_max;              /* bytes a table sent in parts may reach;
                                    0: REMOTE_AGG_MAX */
    int escape;                  /* stdout is a terminal: LINES are escaped
                                    (base/term.h) before they are handed on */
    uint8_t render;              /* the last request's render (how to escape) */
    palette_t palette;           /* and its paint */
    outbuf_t term;               /* the escaped LINES (escape; data NULL until used) */
    /* The stream's read deadline (ssh_client_read_deadline; NULL: none),
     * and how long the handshake may wait (SSHConnectTimeoutMs). */
    void (*read_deadline)(stream_t *s, long long deadline_ms);
    int hello_wait_ms;
    int cannot_serve;            /* a request was not sent: the server lacks what it
                                    needs (journal-v1); a retry would not change that */
    const wire_request_t *early_taken; /* the request the server took with the
                                    HELLO: remote_request does not send it again */
} remote_conn_t;

/* The largest table a server may send in parts (AGGREGATE flag `more`):
 * a bound on what one server can make the client hold. */
#define REMOTE_AGG_MAX ((size_t)4 << 30)

typedef struct remote_handler {
    void *ctx;                                        /* passed back */
    /* A partial table: the whole result so far of this server (replaces
     * the previous one); final marks the end of input. */
    int (*on_aggregate)(void *ctx, const unsigned char *p, size_t len, int final, err_t *e);
    /* Instead of on_aggregate: each part as it came (flags WIRE_AGG_*;
     * a table is its parts up to one without WIRE_AGG_MORE), never
     * joined, so the handler bounds what it holds. */
    int (*on_aggregate_part)(void *ctx, const unsigned char *p, size_t len, uint8_t flags,
                             err_t *e);
    /* A LINES payload (whole lines); NULL: appended to the outbuf. */
    int (*on_lines)(void *ctx, const char *p, size_t len, err_t *e);
    /* Called first for every message (type: WIRE_*); 0 drops it. Lets an
     * interactive run drop what an earlier request still sends after the
     * next one went out (client/interactive/remote.c). May be NULL. */
    int (*accept)(void *ctx, uint8_t type);
    /* A FIELDS payload (an encoded field report); NULL: skipped as any
     * extension is. */
    int (*on_fields)(void *ctx, const unsigned char *p, size_t len, err_t *e);
    /* Every FILE_STATUS, after a problem was reported; counted: the
     * server sends the file's counts (HELLO `file_counts`) and m has them.
     * May be NULL. */
    void (*on_file)(void *ctx, const wire_msg_t *m, int counted);
    int keep_open;              /* END does not end remote_request: the next
                                   request's frames follow on the same stream */
} remote_handler_t;

/* Whether --servers or --discovery asks for server mode (--servers not
 * empty and not "serverless"). */
int remote_wanted(const cli_opts_t *o);
/* --files and the positional arguments (except index skip) as one comma
 * list for the server to expand; malloc'd. NULL with e set when empty. */
char *remote_files(const cli_opts_t *o, int skip, err_t *e);

/* Connects to server t and exchanges HELLO. The HELLO carries early, the
 * first request this connection will run (NULL: none), when the server
 * can take it that way (wire/hello_early.h): remote_request of that very
 * pointer then only reads its frames. */
int remote_connect(remote_conn_t *c, const fanout_target_t *t, const cli_opts_t *o,
                   const config_t *cfg, const wire_request_t *early, err_t *e);
void remote_close(remote_conn_t *c);
/* The wire REQUEST of rq over files (referenced, not copied), without a
 * server deadline: a client that wants one sets timeout_s. */
wire_request_t remote_build_request(const exec_request_t *rq, char *files);
/* Sends rq, asking for compressed LINES when c->zstd. */
int remote_send(remote_conn_t *c, const wire_request_t *rq, err_t *e);
/* An AGGREGATE message as remote_request handles it (and the wire fuzz
 * target, which runs this very code): a table flagged `more` is joined in
 * *parts (at most agg_max bytes; 0: REMOTE_AGG_MAX) until its last part,
 * then the whole table goes to h->on_aggregate. The caller empties *parts
 * on any other message: a table cut off is dropped. */
int remote_aggregate_frame(size_t agg_max, const remote_handler_t *h, agg_bytes_t *parts,
                           const wire_msg_t *m, err_t *e);

/* The text DTail's client shows (as an ERROR of the server) for journal
 * targets asked of a server without the capability. */
#define REMOTE_NO_JOURNAL "journal file targets require server capability journal-v1"
/* A request naming journal targets (files) for a server that cannot read
 * them (journal: it has the capability): REMOTE_NO_JOURNAL is shown as the
 * server's error, rs->status raised to 1, c->cannot_serve set, and 1
 * returned: the request must not be sent. Else 0. */
int remote_journal_refused(remote_conn_t *c, const char *files, int journal, client_run_t *rs);

/* Sends rq (unless NULL: sent already) and handles frames until END; LINES go to h->on_lines, else
 * to out (NULL when on_lines is given). Problems the
 * server reports are printed and raise rs->status. Returns 0, or -1 with e
 * set when the connection or protocol failed. */
int remote_request(remote_conn_t *c, const wire_request_t *rq, outbuf_t *out,
                   const remote_handler_t *h, client_run_t *rs, err_t *e);

/* dcat and dgrep through servers (after the flags and the pattern were
 * checked); returns the exit status. */
int remote_scan_main(const cli_opts_t *o, const exec_request_t *rq, const config_t *cfg,
                     client_run_t *rs);

/* The lines requests (cat, grep, tail) through every server: rq, a
 * client deadline (0: none), follow (tail: reconnect with backoff; the
 * deadline is the normal end). Returns the exit status. */
int remote_lines_run(const cli_opts_t *o, const exec_request_t *rq, const config_t *cfg,
                     long long deadline_s, int follow, client_run_t *rs);

/* dtail through servers: follow the files on every server, reconnecting
 * with backoff; returns the exit status. */
int remote_tail_main(const cli_opts_t *o, const config_t *cfg, client_run_t *rs);
/* dtail --query through servers (client/remote/query.c): the servers' deltas
 * reported every interval as serverless dtail --query does. Query errors
 * exit 2 before connecting. Returns the exit status. */
int remote_query_main(const cli_opts_t *o, const config_t *cfg, client_run_t *rs);
/* --interactive-query through servers (client/interactive/remote.c):
 * dcat, dgrep, dtail and dtail --query, reloaded on the open sessions.
 * Returns the exit status (1 when the control terminal cannot be opened). */
int interactive_remote_main(const cli_opts_t *o, const config_t *cfg, client_run_t *rs);

#include "parser/plan.h"

/* dmap through servers: the plan was parsed here (errors exit 2 before
 * connecting); each server runs it and sends partial tables; the latest
 * table of every server is merged and rendered (every interval, and at the
 * end) or written to the outfile as serverless. Returns the exit status. */
int remote_map_main(const cli_opts_t *o, const config_t *cfg, const plan_t *plan,
                    const char *query, int query_pos, const palette_t *color,
                    client_run_t *rs);

#endif
