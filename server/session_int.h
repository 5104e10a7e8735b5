/* session_int.h: what the parts of a session share (session.c: handshake,
 * cat/grep/map; session_tail.c: tail). Not for use outside server/session*.c. */
#ifndef DTAIL_SERVER_SESSION_INT_H
#define DTAIL_SERVER_SESSION_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "base/err.h"
#include "base/log.h"
#include "exec/agg/table.h"
#include "exec/mapscan.h"
#include "exec/run/plan.h"
#include "exec/run/request.h"
#include "exec/run/runner.h"
#include "exec/scan/journal.h"
#include "exec/scan/journal_spec.h"
#include "exec/scan/targets.h"
#include "parser/parser.h"
#include "server/permissions.h"
#include "server/session.h"
#include "wire/dt41.h"
#include "wire/frame.h"
#include "wire/hello_early.h"
#include "wire/msg.h"

/* A session without a client: a job of the server's own (session_job.c).
 * What a session would send its client is handed to these instead. */
typedef struct session_local {
    /* A file's FILE_STATUS (WIRE_FILE_*, with the bytes and lines read
     * or WIRE_COUNT_NONE). */
    void (*file_status)(void *ctx, uint8_t st, const char *name, const char *detail,
                        uint64_t bytes, uint64_t lines);
    /* A MESSAGE, and the END of the request. */
    void (*message)(void *ctx, enum log_level level, const char *text);
    void (*end)(void *ctx, uint8_t st, const char *text);
    /* A tail's AGGREGATE: what the interval read (final: after the run's
     * end). */
    void (*table)(void *ctx, const plan_t *plan, const agg_table_t *t, int final);
    void *ctx;
} session_local_t;

typedef struct session {
    stream_t *s;                 /* the connection */
    const session_env_t *env;    /* process-wide state */
    pthread_mutex_t send_mu;     /* one frame at a time on s */
    wire_buf_t small;            /* encoding of small frames (under send_mu) */
    perm_rules_t *rules;         /* the user's Permissions rules */
    perm_user_t user;            /* for the OS check */
    volatile int broken;         /* a write failed: the client is gone */
    err_t send_err;              /* why */
    wire_reader_t *r;            /* frames from the client */
    /* A frame read while a tail ran (the client's next request, or its
     * close): session_serve handles it before reading again. */
    int pending;                 /* pending_rc and pending_frame hold one */
    int pending_rc;              /* wire_read_frame's result */
    wire_frame_t pending_frame;  /* the frame (into r's buffer) */
    err_t pending_err;           /* its error */
    wire_early_t early;          /* the REQUEST the client's HELLO carried
                                    (early.buf NULL: none, or served) */
    /* The read slot (LIMIT_CAT) of the file being served. A write stalled
     * on the client gives it up and takes it back once the client reads
     * again (session_on_stall), so that clients who stop reading cannot
     * hold every slot. */
    pthread_mutex_t slot_mu;     /* guards the three below */
    int cat_slot;                /* the slot is held */
    int yielded;                 /* given up by a stalled write */
    unsigned slot_gen;           /* bumped when a file's slot is released */
    /* The running map request's deadline (clock_now_ms, 0: none): a file
     * still waiting for a read slot then is not read (deadline_hit). */
    long long deadline_ms;
    int deadline_hit;
    /* A DTail 4.1 client's session (session_dt41.c), NULL for ours: the
     * status and message senders below speak 4.1 then. */
    struct dt41_session *dt41;
    /* Set while a DTail 4.1 SESSION UPDATE waits: the running workload is
     * superseded and must end now, saying nothing more (session_dt41.c). */
    volatile sig_atomic_t cancel;
    /* A session without a client (a job), NULL for a connection's: the
     * senders below hand what they would send to it. */
    const session_local_t *local;
} session_t;

/* A session without a client for env (env->user names the job's kind in
 * the log and in the read queues): it reads with rules (taken: freed by
 * session_local_free) as dserver's own user, and tells local what it
 * would send. */
void session_local_init(session_t *ss, const session_env_t *env, const session_local_t *local,
                        perm_rules_t *rules);
void session_local_free(session_t *ss);

int session_send_file_status(session_t *ss, uint8_t st, const char *name, const char *detail);
/* FILE_STATUS with the bytes and lines read (WIRE_COUNT_NONE: not counted). */
int session_send_file_counts(session_t *ss, uint8_t st, const char *name, const char *detail,
                             uint64_t bytes, uint64_t lines);
int session_send_end(session_t *ss, uint8_t st, const char *message);
int session_send_message(session_t *ss, enum log_level level, const char *text);
/* Expands one entry of a request's file list into tl (the caller inits
 * and frees it), keeping at most Server.MaxGlobTargets files. The matches
 * of a glob that the user may not read are dropped (see keep_allowed in
 * session.c; known: paths not to check again, may be NULL). Returns 1 when
 * it gives no file (or is "-", which a server does not read). With tell
 * the client hears of that, in the words of every refusal; and of the cut,
 * as DTail tells it. */
int session_expand_spec(session_t *ss, const char *spec, target_list_t *tl, int tell,
                        int (*known)(void *ctx, const char *path), void *known_ctx);
/* Tells the client that perm_open refused a file, by the name it asked
 * for (asked: the spec), as every refusal is told: as not found, in words
 * that do not say whether it exists; the log gets perm_open's detail, which
 * says why. Returns the FILE_STATUS sent. */
uint8_t session_report_refusal(session_t *ss, const char *asked, const char *detail);
/* Whether the user's rules allow the journal target ("journal:<unit>",
 * matched whole, as DTail's): 1 (logged as a start of reading), or 0
 * after the refusal was told as every refusal is (asked: the spec). */
int session_journal_allowed(session_t *ss, const char *target, const char *asked);
/* AGGREGATE with t serialized. */
int session_send_table(session_t *ss, const agg_table_t *t, int final);

/* stream_t.on_stall: the transport's writer waits on the client (or
 * no longer); the read slot is given up meanwhile (session_files.c). */
void session_on_stall(void *owner, int stalled);

/* The files of a cat, grep or map request for exec's runner, one at a
 * time (session_files.c). */
typedef struct session_files {
    session_t *ss;
    const char *p;               /* the rest of the comma list */
    char *spec;                  /* the entry being served, as asked */
    target_list_t tl;            /* what it expanded to */
    size_t next_item;            /* the next of tl */
    unsigned index;              /* files tried (orders last()) */
    int failed;                  /* files missing, denied or unreadable */
    int fd;                      /* the checked descriptor of the file open now */
    char link[64];               /* its /proc link, the input's path */
    char canonical[4096];        /* its real path (the log) */
    /* Called before a file's FILE_STATUS goes out (the lines written of
     * it first), may be NULL. */
    void (*before_status)(void *ctx);
    void *before_ctx;
} session_files_t;

void session_files_init(session_files_t *sf, session_t *ss, const char *files);
void session_files_free(session_files_t *sf);
run_inputs_t session_files_inputs(session_files_t *sf);
/* run_inputs_t.next and .done (done also for a file that could not be
 * opened: it->in NULL). */
int session_files_next(void *ctx, run_input_t *it);
void session_files_done(void *ctx, run_input_t *it, int rc, const run_counts_t *n, const err_t *e);

/* The next entry of the comma list *p, trimmed of blanks as
 * target_list_add_spec trims, into *spec (malloc'd, the caller frees it),
 * moving *p past it: 1, or 0 at the end of the list, -1 out of memory.
 * Empty entries are skipped. */
int session_next_spec(const char **p, char **spec);
/* Whether the server stops: a request must end now. */
int session_stopping(const session_t *ss);
int session_n_cpus(void);
/* Zstd level for LINES of this request (0: off). */
int session_zlevel(const wire_request_t *rq);
/* Where this server runs requests: its host name, MaxLineLength, cores;
 * map_memory: Server.MapMemoryLimit, else none. */
exec_env_t session_exec_env(const session_t *ss, int map_memory);
/* The cat/grep run of rq over its files, written through out (whose flush
 * sends the protocol's line frames), the same for both protocols:
 * before_status runs before each file's status goes out. Returns 0 when
 * every file was read (*failed: how many could not be), 1 when the run
 * stopped early (ss->broken: the client is gone; else the server stops),
 * -1 when it could not start (an invalid pattern: e says why). */
int session_run_lines(session_t *ss, const exec_request_t *rq, outbuf_t *out,
                      void (*before_status)(void *ctx), void *before_ctx, int *failed, err_t *e);
/* The plan of rq in env (exec_plan_init): 0, 1 when the pattern or query
 * is invalid (the client got an END saying why), -1 when the client is
 * gone. */
int session_plan(session_t *ss, exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env);
/* session_plan for a map: a query with neither logformat nor from reads
 * the format detected on the request's files (session_detect.c), told to
 * the client in a MESSAGE. */
int session_plan_map(session_t *ss, exec_plan_t *p, const exec_request_t *rq,
                     const exec_env_t *env);
/* How a map run's results go out: the protocol's part of session_run_map. */
typedef struct session_map_out {
    /* Sends table t of the result (plan names its items): an interim
     * report, or with final the result of the run; more: parts of the
     * same final table follow. 0, or -1 when the client is gone. NULL:
     * no interim reports (then final must be given). */
    int (*table)(void *ctx, const plan_t *plan, const agg_table_t *t, int final, int more);
    /* Sends the run's field report before the final table; may be NULL. */
    int (*fields)(void *ctx, const mapscan_t *ms);
    /* Takes the run's whole result instead of fields and table: the scan,
     * whose result is ms->result or, when it spilled, its spill (an
     * outfile is written from either). NULL: fields and table. */
    int (*final)(void *ctx, mapscan_t *ms, const plan_t *plan);
    void *ctx;
    /* Interim reports are deltas, what was read since the previous one
     * (DTail's clients add them up), and the final table what came after
     * the last; else each is the whole result so far (ours replace it). */
    int deltas;
} session_map_out_t;
/* The map run of rq over its files, the same for both protocols: the
 * query parsed, the scan with a report every interval, the messages of a
 * timeout or an incomplete result, the final table (streamed from the
 * spill when groups spilled); the end of the request is the caller's.
 * Returns 0 when the final table went out (*failed: files that could not
 * be read; *stopped: the server stopped the run early), 1 when the run did
 * not start (an invalid query: the client got an END saying why), -1 when
 * the client is gone (e says so). */
int session_run_map(session_t *ss, const exec_request_t *rq, const session_map_out_t *out,
                    int *failed, int *stopped, err_t *e);

/* TAIL: follows the files until the client closes or sends another frame,
 * the request's timeout passes, or the server stops (session_tail.c).
 * wq is the request as it came (compression), rq the engine's. */
int session_run_tail(session_t *ss, const wire_request_t *wq, const exec_request_t *rq, err_t *e);

/* ---- DTail protocol 4.1 (session_dt41.c) ----------------------------------
 * A Go DTail client's session: its commands are translated into
 * exec_request_t and run as ours are; only the framing differs. */

/* Serves the session whose first bytes, already read into r, are 4.1
 * text; returns as session_serve does. */
int session_serve_dt41(session_t *ss, wire_reader_t *r, err_t *e);
/* What session_send_file_counts, _end and _message send in a 4.1 session. */
int session_dt41_file_status(session_t *ss, uint8_t st, const char *name, const char *detail);
int session_dt41_end(session_t *ss, uint8_t st, const char *message);
int session_dt41_message(session_t *ss, enum log_level level, const char *text);
/* An outbuf sink (ctx: the session) writing a 4.1 line sink's messages. */
int session_dt41_lines(void *ss, const char *p, size_t n, int *err);
/* A map's table (plan names its items) as AGGREGATE messages of one per
 * group, after ".output wake" if nothing was sent yet: what a 4.1 session
 * sends for our AGGREGATE frames. latest: see dt41_aggout_t. */
int session_dt41_table(session_t *ss, const plan_t *plan, const agg_table_t *t,
                       const agg_table_t *latest);

/* Builds the AGGREGATE messages of a table's groups (session_dt41_agg.c). */
typedef struct dt41_aggout {
    const char *host;            /* this server's */
    const plan_t *plan;          /* names the select items */
    /* NULL, or every group so far: last() and len() of a group are taken
     * from there, as the value of a delta may be an older line's (read
     * after a newer one by another worker) and the Go client takes the
     * last value it hears. */
    const agg_table_t *latest;
    dt41_agg_t msg;              /* the message being built */
    char *key;                   /* its group key's text */
    size_t key_cap;
} dt41_aggout_t;

void dt41_aggout_init(dt41_aggout_t *o, const char *host, const plan_t *plan);
void dt41_aggout_free(dt41_aggout_t *o);
/* Appends group g of t to b as the Go dserver's message of it: 1, or 0 when
 * nothing of the group aggregated (Go has no set then and sends none), -1
 * when out of memory. */
int dt41_aggout_put(dt41_aggout_t *o, wire_buf_t *b, const agg_table_t *t, size_t g);
/* Waits for the client's next frame (left queued): 1, or 0 when the
 * client closed, -1 when *stop was set first. */
int session_dt41_wait(session_t *ss, volatile int *stop);

#endif
