/* request.h: one request of any kind, as the engine runs it.
 *
 * The CLI flags (client/tools/request.c) and a wire REQUEST
 * (exec_request_from_wire) are each translated into this struct once; from
 * it every run builds its plan the same way, serverless or in dserver
 * (exec/run/plan.h). A new request option is a field here, its flag, its
 * wire field and the code that uses it, nothing else. */
#ifndef DTAIL_EXEC_RUN_REQUEST_H
#define DTAIL_EXEC_RUN_REQUEST_H

#include <signal.h>
#include <stddef.h>

#include "base/config.h"
#include "base/err.h"
#include "exec/sink/lines.h"
#include "wire/msg.h"

enum exec_kind {
    EXEC_CAT = 1,    /* every line */
    EXEC_GREP = 2,   /* the lines the pattern selects */
    EXEC_TAIL = 3,   /* follow, lines or (with a query) map */
    EXEC_MAP = 4,    /* a mapreduce query over whole files */
};

/* exec_request_t.flags */
#define EXEC_REQ_INVERT 0x1u   /* select the lines that do not match */
#define EXEC_REQ_QUIET 0x2u    /* --quiet */
#define EXEC_REQ_ICASE 0x4u    /* the pattern ignores case (-i) */

typedef struct exec_request {
    enum exec_kind kind;
    unsigned flags;                  /* EXEC_REQ_* */
    const char *files;               /* comma list of paths and globs (borrowed) */
    const char *regex;               /* the pattern, "" for none (borrowed) */
    const char *query;               /* the map query, "" for none (borrowed) */
    unsigned long long before, after;/* context lines around a selected line */
    unsigned long long max;          /* stop a file after this many selected lines; 0: all */
    long long timeout_s;             /* reading ends after this; 0: none */
    enum line_format render;         /* how lines are written */
    const palette_t *palette;        /* LINE_COLOR's paint; NULL: DTail's (borrowed) */
    const char *timezone;            /* the zone $time and bucket() write times in
                                        (exec/extract/logzone.h: "UTC", "+02:00",
                                        "Europe/Berlin"); NULL: UTC (borrowed) */
    /* Multi-line records (exec/scan/records.h): a line this pattern
     * matches starts a record; "" or NULL: every line is one (borrowed;
     * set with exec_request_set_multiline). */
    const char *multiline;
} exec_request_t;

/* What the place a request runs in adds to it: its host name, its limits,
 * its cores and its default log format. */
typedef struct exec_env {
    const char *host;                /* $hostname, REMOTE lines */
    size_t max_line_len;             /* longer lines are split */
    size_t memory_limit;             /* map: bytes of groups before they spill; 0: none */
    int n_threads;                   /* workers for large plain files */
    const volatile sig_atomic_t *cancel; /* map: set to stop; may be NULL */
    const char *default_logformat;   /* a `from` query's without a logformat
                                        clause: exec_default_logformat of the
                                        config, NULL for the parser's */
    int rescan_ms;                   /* follow: how often the specs are looked
                                        at again for new files; 0: the default
                                        (Server.ReadGlobRetryIntervalMs) */
} exec_env_t;

/* The request a wire REQUEST asks for (strings borrowed from w; the
 * palette, if w has one, decoded into *palette). A kind the engine does
 * not run (health) is an error. */
int exec_request_from_wire(const wire_request_t *w, exec_request_t *rq, palette_t *palette,
                           err_t *e);
/* The wire REQUEST of rq (strings borrowed from rq, files given apart:
 * a fan-out sends its own list). */
wire_request_t exec_request_to_wire(const exec_request_t *rq, char *files);

/* Makes rq read multi-line records started by the lines pattern matches
 * (dgrep --multiline, a query's `logformat NAME multiline "RE"`):
 * pattern is checked here (ERR_PATTERN naming it) and borrowed; "" turns
 * records off. */
int exec_request_set_multiline(exec_request_t *rq, const char *pattern, err_t *e);

/* The log format a `from` query without a logformat clause gets:
 * Server.MapreduceLogFormat, or NULL for the parser's (default). Runs on
 * a server use the server's config; a client sending a query to servers
 * parses it with NULL (as DTail's client, which cannot know theirs). */
const char *exec_default_logformat(const config_t *cfg);
/* What of cfg only the engine can check (a log format's name): 0, or -1
 * with ERR_CONFIG naming the file, line and key. */
int exec_config_check(const config_t *cfg, err_t *e);

#endif
