/* dt41.h: the bytes of DTail's own protocol 4.1 (docs/protocol-dt41.md),
 * both ways, so that dserver can serve Go DTail clients and our clients
 * can talk to Go dservers. Only the codec: no SSH, no sessions.
 *
 *   client -> server  "protocol 4.1 base64 <base64 of a command>;" per
 *                     command (cat, grep, tail, map, timeout-wrapped
 *                     cat/tail, health, .ack close connection, AUTHKEY,
 *                     SESSION START/UPDATE);
 *   server -> client  text messages, each ended by the byte 0xAC:
 *                     REMOTE|..., SERVER|host|..., AGGREGATE|host|...,
 *                     hidden ".syn ..." messages, AUTHKEY OK/ERR.
 *
 * Every parser works on bytes it is handed in any chunking, never reads
 * past them, and fails with an err_t (byte offset and message); where the
 * Go dserver answers a malformed command with a message, the err_t's
 * message is that text (the argument Go gives its logger) and a
 * dt41_reject_t says how Go sends it. Spans (dt41_str_t) point into the
 * caller's bytes or into the object that returned them, valid until its
 * next call. Behaviour follows the Go DTail at snonux/dtail 3004a71, as
 * recorded in tests/fixtures/dt41/. */
#ifndef DTAIL_WIRE_DT41_H
#define DTAIL_WIRE_DT41_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/err.h"
#include "wire/frame.h"

#define DT41_VERSION "4.1"
#define DT41_DELIM 0xAC                       /* ends every server message */
#define DT41_MAX_FRAME (1024u * 1024)         /* Server.MaxCommandFrameSize default */
#define DT41_MAX_MESSAGE (64u * 1024 * 1024)  /* our bound on one server message */
#define DT41_MAX_TIMEOUT 86400                /* "timeout N": a larger N is refused */

typedef struct dt41_str {
    const char *p;
    size_t n;
} dt41_str_t;

/* ---- Splitting a byte stream at a delimiter ----------------------------
 * Server side: client commands end in ';' (at most DT41_MAX_FRAME bytes
 * before it, as the Go dserver allows). Client side: server messages end
 * in 0xAC. The delimiter is not part of the piece. */
typedef struct dt41_splitter {
    char *buf;                 /* the piece being received */
    size_t len, cap;
    size_t max;                /* longest piece taken */
    unsigned char delim;
    unsigned long long pos;    /* stream offset of the next byte */
    unsigned long long start;  /* stream offset of the piece's first byte */
} dt41_splitter_t;

/* A framer of client commands (';'; max 0 means DT41_MAX_FRAME). */
void dt41_framer_init(dt41_splitter_t *s, size_t max);
/* A splitter of server messages (0xAC; max 0 means DT41_MAX_MESSAGE). */
void dt41_msgsplit_init(dt41_splitter_t *s, size_t max);
void dt41_splitter_free(dt41_splitter_t *s);
/* Takes bytes of p[0..n) up to and including the next delimiter; *used is
 * how many were taken. 1: *piece is a whole piece (at stream offset *at);
 * 0: all n bytes taken, no whole piece yet; -1: the piece is longer than
 * max (e names its offset and size; the stream cannot be resynchronised,
 * and the Go dserver closes the session). */
int dt41_split(dt41_splitter_t *s, const char *p, size_t n, size_t *used, dt41_str_t *piece,
               unsigned long long *at, err_t *e);
/* Bytes of an unfinished piece are pending (an end of stream drops them:
 * the Go peers never act on a command or message without its delimiter). */
static inline bool dt41_split_pending(const dt41_splitter_t *s) { return s->len > 0; }

/* ---- Options: "k=v:k=v" after "cat:", "grep:", ... ----------------------
 * Keys in sorted order: after before max plain quiet serverless. A value
 * holding ':', '=' or '|', or starting "base64%", goes as "base64%<b64>".
 * The Go dserver applies the options of the first command that has any,
 * once per session; other keys are kept by Go and never read. */
typedef struct dt41_opts {
    long long after, before, max;   /* 0 when absent */
    bool plain, quiet, serverless;  /* the value was exactly "true" */
} dt41_opts_t;

/* Parses options text (after the command name and ':') as the Go dserver
 * does; -1 with e's message Go's text ("Unable to parse options: [x]",
 * strconv's, base64's). */
int dt41_opts_parse(const char *p, size_t n, dt41_opts_t *o, err_t *e);
/* Appends o as the Go client serializes it (nothing when all are off). */
void dt41_opts_encode(wire_buf_t *b, const dt41_opts_t *o);

/* ---- The grep pattern: "regex:<flags> <pattern>" -------------------------- */
enum dt41_match {
    DT41_MATCH_DEFAULT = 1,   /* lines that match */
    DT41_MATCH_INVERT,        /* lines that do not */
    DT41_MATCH_NOOP,          /* every line, whatever the pattern */
};

typedef struct dt41_regex {
    enum dt41_match match;    /* the first flag (Go matches by that one) */
    bool literal;             /* the sender's hint: no metacharacter in it */
    dt41_str_t pattern;
} dt41_regex_t;

/* Parses a serialized pattern (Go's regex.Deserialize, without compiling). */
int dt41_regex_parse(const char *p, size_t n, dt41_regex_t *r, err_t *e);
/* Appends the pattern as the Go client serializes it: "regex:noop " for
 * "", "." and ".*" (inverted or not), else
 * "regex:default|invert[,literal] <pattern>". */
void dt41_regex_encode(wire_buf_t *b, const char *pattern, size_t n, bool invert);

/* ---- SESSION specs (interactive query reload, JSON) ----------------------- */
enum dt41_mode {   /* DTail's omode numbers */
    DT41_MODE_UNKNOWN = 0,
    DT41_MODE_SERVER = 1,
    DT41_MODE_TAIL = 2,
    DT41_MODE_CAT = 3,
    DT41_MODE_GREP = 4,
    DT41_MODE_MAP = 5,
    DT41_MODE_HEALTH = 6,
};

typedef struct dt41_spec {
    long long mode;           /* enum dt41_mode, or what was sent */
    const dt41_str_t *files;  /* nfiles paths or globs; NULL is JSON null */
    size_t nfiles;
    dt41_str_t options;       /* serialized options, empty when none */
    dt41_str_t query;
    dt41_str_t regex;         /* the raw pattern, not serialized */
    bool regex_invert;
    long long timeout;
} dt41_spec_t;

/* Appends the spec as Go's encoding/json marshals it: field order, empty
 * fields omitted, "files":null, <, >, &, U+2028/9 and invalid UTF-8
 * escaped as Go escapes them. */
void dt41_spec_json(wire_buf_t *b, const dt41_spec_t *s);

/* ---- Commands, client -> server ------------------------------------------- */
enum dt41_kind {
    DT41_CMD_CAT = 1,
    DT41_CMD_GREP,
    DT41_CMD_TAIL,
    DT41_CMD_MAP,
    DT41_CMD_HEALTH,          /* only the health handler (user DTAIL-HEALTH) has it */
    DT41_CMD_ACK,             /* ".ack ..."; close is set for ".ack close connection" */
    DT41_CMD_AUTHKEY,         /* "AUTHKEY" or "authkey" */
    DT41_CMD_SESSION_START,   /* "SESSION START <b64 json>" ("session", START in any case) */
    DT41_CMD_SESSION_UPDATE,  /* "SESSION UPDATE [gen] <b64 json>" */
};

typedef struct dt41_cmd {
    bool health_handler;      /* in: parse as the Go health handler does (user
                                 DTAIL-HEALTH): "health" and ".ack" only */
    enum dt41_kind kind;
    bool has_opts;            /* "name:<opts>" with opts not empty: Go applies
                                 them if no earlier command had any */
    dt41_opts_t opts;
    bool has_timeout;         /* a "timeout N" prefix with N > 0 */
    long long timeout;        /* N */
    dt41_str_t path;          /* cat, grep, tail: the file, glob or comma list */
    bool has_regex;           /* cat, grep, tail: a pattern follows the path */
    dt41_regex_t regex;       /* noop when none */
    dt41_str_t query;         /* map: the query text */
    bool close;               /* ack: ".ack close connection" */
    dt41_str_t authkey;       /* AUTHKEY: the base64 key blob as sent */
    dt41_str_t authkey_blob;  /* ... decoded */
    const char *authkey_err;  /* NULL, or the reason for Go's "AUTHKEY ERR <reason>":
                                 "missing public key", "invalid base64" */
    uint64_t generation;      /* SESSION UPDATE: the generation sent, 0 if none */
    dt41_spec_t spec;         /* SESSION: the decoded spec */
    dt41_str_t text;          /* the decoded command */
    /* storage the spans point into, reused by the next parse */
    char *store;
    size_t store_len, store_cap;
    dt41_str_t *args;         /* the command's words */
    size_t nargs, args_cap;
    dt41_str_t *files;        /* the SESSION spec's files */
    size_t files_cap;
} dt41_cmd_t;

/* How the Go dserver answers a command it refuses. */
enum dt41_reply {
    DT41_REPLY_ERROR = 1,     /* a SERVER message, its text a logger line at
                                 ERROR: "ERROR|MMDD-HHMMSS|user@addr|<text>" */
    DT41_REPLY_WARN,          /* the same at WARN */
    DT41_REPLY_SESSION_ERR,   /* hidden ".syn session err <text>" */
};

typedef struct dt41_reject {
    enum dt41_reply reply;
    bool newline;             /* Go appends "\n" to the text */
    bool finishes;            /* the command counted as run: with no other
                                 command active the Go dserver ends the session
                                 (".syn close connection"); else it goes on */
} dt41_reject_t;

/* A user's parser (set health_handler after init for DTAIL-HEALTH's). */
void dt41_cmd_init(dt41_cmd_t *c);
void dt41_cmd_free(dt41_cmd_t *c);
/* Parses one frame (without its ';'). 0: *c is the command. -1: refused;
 * e's message is the text the Go dserver sends, its offset a byte offset
 * into the frame (or, past the base64 stage, into the decoded command),
 * *r how Go sends it. What needs more than bytes is the server's: compiling
 * the pattern and the query, checking the key, what a user may read, the
 * session's state. */
int dt41_cmd_parse(dt41_cmd_t *c, const char *frame, size_t n, dt41_reject_t *r, err_t *e);
/* Parses a decoded command; fields: split on runs of white space, as Go
 * does for the commands of a SESSION spec (otherwise on single spaces). */
int dt41_cmd_parse_text(dt41_cmd_t *c, const char *text, size_t n, bool fields, dt41_reject_t *r,
                        err_t *e);
/* The Go dserver's check of a frame's version word: 0 for 4.1, else -1
 * with e's message Go's text ("... please update DTail client|server") and
 * *newline whether Go appends "\n" (client major <= 3). */
int dt41_version_check(const char *v, size_t n, bool *newline, err_t *e);

/* Appends one command frame, "protocol 4.1 base64 <b64>;". */
void dt41_put_frame(wire_buf_t *b, const char *cmd, size_t n);
/* Calls each with the commands a Go client sends for spec, in order (Go's
 * Spec.Commands; the Go dserver's SESSION path runs the same): "health";
 * or "map:<opts> <query>" then per file "cat|tail:<opts> <file> <regex>"
 * ("timeout N cat|tail <file> <regex>" with a timeout); or per file
 * "cat|grep|tail:<opts> <file> <regex>". -1 for a mode without commands
 * (e's message Go's), or when each fails. */
int dt41_spec_commands(const dt41_spec_t *s, int (*each)(void *ctx, const char *cmd, size_t n, err_t *e),
                       void *ctx, err_t *e);
/* Appends the frames of dt41_spec_commands. */
int dt41_put_spec_frames(wire_buf_t *b, const dt41_spec_t *s, err_t *e);
/* "SESSION START <b64 json>", "SESSION UPDATE [gen ]<b64 json>". */
void dt41_put_session_frame(wire_buf_t *b, bool update, uint64_t generation, const dt41_spec_t *s);
/* "AUTHKEY <blob>". */
void dt41_put_authkey_frame(wire_buf_t *b, const char *blob_b64, size_t n);
/* ".ack close connection". */
void dt41_put_ack_close_frame(wire_buf_t *b);

/* ---- Messages, server -> client -------------------------------------------- */
enum dt41_msg_kind {
    DT41_MSG_REMOTE = 1,      /* REMOTE|host|pct|lineno|source|content */
    DT41_MSG_SERVER,          /* SERVER|host|text */
    DT41_MSG_AGGREGATE,       /* AGGREGATE|host|data */
    DT41_MSG_CAPABILITIES,    /* .syn capabilities <name> ... */
    DT41_MSG_CLOSE,           /* .syn close connection: answer .ack close connection */
    DT41_MSG_SESSION_ACK,     /* .syn session start ok N | update ok N | err <text> */
    DT41_MSG_HIDDEN,          /* any other message starting with '.' (.output wake) */
    DT41_MSG_AUTHKEY,         /* AUTHKEY OK | AUTHKEY ERR <reason>, alone or in SERVER|host| */
    DT41_MSG_PLAIN,           /* anything else: a plain-mode line or server text */
};

enum dt41_ack {
    DT41_ACK_START = 1,
    DT41_ACK_UPDATE,
    DT41_ACK_ERROR,
};

typedef struct dt41_msg {
    enum dt41_msg_kind kind;
    dt41_str_t raw;           /* the whole message */
    dt41_str_t host;          /* REMOTE, SERVER, AGGREGATE, AUTHKEY in SERVER| */
    dt41_str_t text;          /* SERVER: the text; AGGREGATE: the data; REMOTE:
                                 the content; PLAIN, HIDDEN: the message;
                                 CAPABILITIES: the names; AUTHKEY: the reason;
                                 SESSION_ACK error: the reason */
    dt41_str_t pct;           /* REMOTE: transmitted percentage ("100", or %3d) */
    uint64_t lineno;          /* REMOTE */
    dt41_str_t source;        /* REMOTE: the source id */
    bool ok;                  /* AUTHKEY OK */
    enum dt41_ack ack;        /* SESSION_ACK */
    uint64_t generation;      /* SESSION_ACK start, update */
} dt41_msg_t;

/* Classifies one message (without its 0xAC) as the Go client does: hidden
 * ('.') first, then AGGREGATE|, then AUTHKEY (judged by the last '|' field,
 * trimmed), REMOTE|, SERVER|. Except that a REMOTE line is content whatever
 * its last field says (Go's client swallows a line ending "|AUTHKEY OK";
 * docs/protocol-dt41.md). Never fails: what has no known shape is PLAIN. */
void dt41_msg_classify(const char *p, size_t n, dt41_msg_t *m);

/* The server's writers; each message ends in 0xAC. */
/* "SERVER|host|text" (plain: the text alone, as Go's plain mode). */
void dt41_put_server(wire_buf_t *b, const char *host, const char *text, size_t n, bool plain);
/* A server message worded as Go's logger words it,
 * "LEVEL|MMDD-HHMMSS|who|text" (local time), then "\n" if newline. */
void dt41_put_server_log(wire_buf_t *b, const char *host, bool plain, const char *level, time_t t,
                         const char *who, const char *text, size_t n, bool newline);
/* A hidden message (".syn ...", ".output wake\n"): the text as given. */
void dt41_put_hidden(wire_buf_t *b, const char *text, size_t n);
/* ".syn capabilities query-update-v1[ journal-v1]". */
void dt41_put_capabilities(wire_buf_t *b, bool journal);
/* ".syn close connection". */
void dt41_put_close(wire_buf_t *b);
/* ".syn session start ok N", ".syn session update ok N", ".syn session err <text>". */
void dt41_put_session_ack(wire_buf_t *b, enum dt41_ack ack, uint64_t generation, const char *err,
                          size_t n);
/* "REMOTE|host|pct|lineno|source|content" (the content as read, with its
 * '\n' if it has one); plain: the content alone. */
void dt41_put_remote(wire_buf_t *b, const char *host, const char *pct, uint64_t lineno,
                     const char *source, const char *content, size_t n, bool plain);

/* ---- AGGREGATE messages ----------------------------------------------------
 * AGGREGATE|<host>|<group key>∥<samples>∥<key>≔<value>∥...∥ : one group of
 * a map request's partial result, what the Go dserver aggregated since it
 * last sent the group. Numbers are written shortest-exact
 * (base/numfmt_short.h), strings raw. A value's type is not on the wire:
 * the receiver's query says it (count, sum, ... take floats, last takes
 * strings; len sends its key twice, the length then the string). */
enum dt41_field_type {
    DT41_FIELD_FLOAT = 1,     /* a number as Go writes it: formatting gives it back */
    DT41_FIELD_STRING,        /* any other value, kept as it is */
    DT41_FIELD_BARE,          /* a part without '≔' (Go's client skips it) */
};

typedef struct dt41_field {
    dt41_str_t key;           /* BARE: the whole part */
    enum dt41_field_type type;
    double f;                 /* FLOAT */
    dt41_str_t s;             /* FLOAT, STRING: the value's text */
} dt41_field_t;

typedef struct dt41_agg {
    dt41_str_t host;
    dt41_str_t group;         /* group-by values joined by ',' ("" without group by) */
    long long samples;
    dt41_field_t *fields;
    size_t nfields, cap;
    bool trailing;            /* the data ends in '∥', as the Go dserver writes it */
} dt41_agg_t;

void dt41_agg_init(dt41_agg_t *a);
void dt41_agg_free(dt41_agg_t *a);
/* Parses a whole message "AGGREGATE|host|data" (without its 0xAC) with the
 * Go client's errors ("aggregate message without any real data", "unable
 * to parse sample count ..."). Spans point into msg. */
int dt41_agg_parse(dt41_agg_t *a, const char *msg, size_t n, err_t *e);
/* Building one: clear, set host, group and samples, add fields (keys and
 * strings are referenced and must outlive the object). */
void dt41_agg_clear(dt41_agg_t *a);
int dt41_agg_add_float(dt41_agg_t *a, const char *key, size_t kn, double v);
int dt41_agg_add_string(dt41_agg_t *a, const char *key, size_t kn, const char *s, size_t sn);
/* Appends the message, 0xAC included, as the Go dserver writes it. */
void dt41_put_aggregate(wire_buf_t *b, const dt41_agg_t *a);

#endif
