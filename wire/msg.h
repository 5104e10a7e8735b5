/* msg.h: the messages of the wire protocol and their payload layouts
 * (docs/protocol.md). Encoders append a whole frame to a wire_buf_t;
 * decoders read a frame's payload and reject anything short, malformed or
 * out of range with an error naming the message and the field.
 *
 * Forward compatibility: a decoder ignores bytes after the fields it knows,
 * so a later minor version may append fields to any message. */
#ifndef DTAIL_WIRE_MSG_H
#define DTAIL_WIRE_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/palette.h"
#include "wire/frame.h"

#define WIRE_MAGIC "DTAIL-W"          /* first bytes of a HELLO payload */
#define WIRE_MAGIC_LEN 7
#define WIRE_VERSION 1                /* incompatible changes bump it */

#define WIRE_STR_(x) #x
#define WIRE_STR(x) WIRE_STR_(x)
/* What --version prints and dserver logs at its start: our version and the
 * protocol this build speaks, the C wire protocol of WIRE_VERSION ("c1"),
 * not DTail's 4.1, which it does not speak. */
#define WIRE_VERSION_LINE \
    "DTail " DTAIL_VERSION "-c Protocol c" WIRE_STR(WIRE_VERSION) " Have a lot of fun!"

/* HELLO capabilities (bits). */
#define WIRE_CAP_ZSTD 0x1u            /* can send/receive compressed LINES */
#define WIRE_CAP_FILE_COUNTS 0x2u     /* its FILE_STATUS frames carry the bytes
                                         and lines read of the file */
#define WIRE_CAP_JOURNAL 0x4u         /* a server that reads journal targets
                                         (`journal:<unit>`; DTail's journal-v1) */
#define WIRE_CAP_EARLY_REQUEST 0x8u   /* server: it took the REQUEST the client's
                                         HELLO carried (wire/hello_early.h) */

typedef struct wire_hello {
    uint16_t version;         /* WIRE_VERSION of the sender */
    uint32_t caps;            /* WIRE_CAP_* */
    char host[256];           /* sender's short host name (server: shown in output) */
    char software[64];        /* e.g. "DTail 4.3.2-c" */
} wire_hello_t;

enum wire_kind {
    WIRE_KIND_CAT = 1,
    WIRE_KIND_GREP = 2,
    WIRE_KIND_TAIL = 3,
    WIRE_KIND_MAP = 4,
    WIRE_KIND_HEALTH = 5,
};

/* How the server renders LINES. The wire's own numbers: exec/sink/lines.h
 * maps them to its line_format (line_format_of_render and back). */
enum wire_render {
    WIRE_RENDER_PLAIN = 0,    /* raw line + '\n' */
    WIRE_RENDER_REMOTE = 1,   /* REMOTE|host|100|n|source|line */
    WIRE_RENDER_COLOR = 2,    /* the same in DTail's colours */
};

/* REQUEST flags. */
#define WIRE_REQ_INVERT 0x1u   /* select lines that do not match */
#define WIRE_REQ_QUIET 0x2u    /* --quiet */
#define WIRE_REQ_ZSTD 0x4u     /* compress LINES (only if the server has WIRE_CAP_ZSTD) */
#define WIRE_REQ_ICASE 0x8u    /* the pattern ignores case (-i) */
#define WIRE_REQ_PALETTE 0x10u /* coloured lines use the palette field (Client.TermColors) */
#define WIRE_REQ_TIMEZONE 0x20u /* times are written in the timezone field's zone (--timezone) */
/* multi-line records: the multiline field holds the start pattern
 * (issue 19) */
#define WIRE_REQ_MULTILINE 0x40u
/* The flags this build knows: a REQUEST with any other is refused, so a
 * client never gets a result that silently ignored what it asked for. */
#define WIRE_REQ_KNOWN (WIRE_REQ_INVERT | WIRE_REQ_QUIET | WIRE_REQ_ZSTD | WIRE_REQ_ICASE | \
                        WIRE_REQ_PALETTE | WIRE_REQ_TIMEZONE | WIRE_REQ_MULTILINE)
#define WIRE_TIMEZONE_MAX 63   /* bytes of the timezone field */

typedef struct wire_request {
    uint8_t kind;             /* enum wire_kind */
    uint8_t render;           /* enum wire_render */
    uint32_t flags;           /* WIRE_REQ_* */
    uint64_t before;          /* context lines before a hit */
    uint64_t after;           /* context lines after a hit */
    uint64_t max;             /* stop a file after this many hits; 0 = all */
    uint32_t timeout_s;       /* server deadline; 0 = none */
    char *files;              /* comma list of paths/globs (owned) */
    char *regex;              /* grep/tail pattern, "" for none (owned) */
    /* WIRE_REQ_PALETTE: the paint of coloured lines (base/palette.h),
     * after query on the wire. */
    uint8_t palette[PAL_PALETTE_WIRE_LEN];
    char *query;              /* map query text, "" for none (owned) */
    char *timezone;           /* WIRE_REQ_TIMEZONE: the zone times are
                                 written in ("Europe/Berlin", "+02:00"),
                                 after the palette on the wire; else NULL
                                 (owned) */
    /* WIRE_REQ_MULTILINE: a line this pattern matches starts a record
     * (owned; NULL without the flag), after the timezone on the wire. */
    char *multiline;
} wire_request_t;

enum wire_file_status {
    WIRE_FILE_OK = 0,         /* opened and read */
    WIRE_FILE_NOT_FOUND = 1,  /* no such file, or a glob matched nothing */
    WIRE_FILE_DENIED = 2,     /* by rule or OS permission; says nothing of existence */
    WIRE_FILE_ERROR = 3,      /* failed while reading, or not a regular file */
};

enum wire_end_status {
    WIRE_END_OK = 0,          /* every file read */
    WIRE_END_PARTIAL = 1,     /* some files failed (see FILE_STATUS) */
    WIRE_END_FAILED = 2,      /* the request could not run (see message) */
};

/* FILE_STATUS counts: not counted (a cat or grep counts no lines). */
#define WIRE_COUNT_NONE UINT64_MAX

typedef struct wire_view {
    const char *p;            /* into the frame payload */
    size_t len;               /* bytes */
} wire_view_t;

/* Decoded server->client messages: views into the frame payload. */
typedef struct wire_msg {
    uint8_t type;             /* the frame type */
    uint8_t level;            /* MESSAGE: enum log_level */
    uint8_t status;           /* FILE_STATUS / END status; AGGREGATE: WIRE_AGG_* flags */
    wire_view_t name;         /* FILE_STATUS: the name asked for */
    wire_view_t text;         /* MESSAGE text, FILE_STATUS detail, END message */
    wire_view_t data;         /* LINES bytes, AGGREGATE serialized table */
    int has_counts;           /* FILE_STATUS: bytes and lines were sent */
    uint64_t bytes;           /* ... input bytes read of the file (decoded) */
    uint64_t lines;           /* ... lines read; either may be WIRE_COUNT_NONE */
} wire_msg_t;

void wire_hello_init(wire_hello_t *h, const char *host);
void wire_encode_hello(wire_buf_t *b, const wire_hello_t *h);
int wire_decode_hello(const wire_frame_t *f, wire_hello_t *h, err_t *e);

/* The paint r asks coloured lines to have: its palette field, else
 * DTail's (wire_decode_request has checked the field). */
void wire_request_palette(const wire_request_t *r, palette_t *out);
void wire_encode_request(wire_buf_t *b, const wire_request_t *r);
/* Fills r (strings owned: wire_request_free). */
int wire_decode_request(const wire_frame_t *f, wire_request_t *r, err_t *e);
void wire_request_free(wire_request_t *r);
const char *wire_kind_name(uint8_t kind);

/* LINES: the header of a frame whose `len` payload bytes (whole lines)
 * the caller sends next, so large batches go out without a copy. */
void wire_encode_lines_head(wire_buf_t *b, size_t len, uint8_t flags);
/* AGGREGATE flags: the table after the end of input; more frames of the
 * same table follow (a table larger than a frame goes in parts, each a
 * serialized partial of some of its groups). */
enum { WIRE_AGG_FINAL = 1, WIRE_AGG_MORE = 2 };
void wire_encode_aggregate(wire_buf_t *b, uint8_t flags, const void *table, size_t len);
/* FIELDS (optional extension): an encoded field report. */
void wire_encode_fields(wire_buf_t *b, const void *report, size_t len);
void wire_encode_message(wire_buf_t *b, uint8_t level, const char *text);
/* FILE_STATUS with the bytes and lines read of the file (WIRE_COUNT_NONE:
 * not counted), appended after detail: a peer that predates them ignores
 * them, and one that finds them absent sets has_counts 0. */
void wire_encode_file_status(wire_buf_t *b, uint8_t status, const char *name, const char *detail,
                             uint64_t bytes, uint64_t lines);
void wire_encode_end(wire_buf_t *b, uint8_t status, const char *message);
/* Decodes LINES, AGGREGATE, MESSAGE, FILE_STATUS and END. */
int wire_decode_msg(const wire_frame_t *f, wire_msg_t *m, err_t *e);

#endif
