/* frame.h: the framing of the wire protocol (docs/protocol.md).
 *
 * Every message is one frame: a 6-byte header (type, flags, payload length
 * as a big-endian u32) and the payload. There is no delimiter byte inside
 * or between frames (DTail's defect D12), so payloads are arbitrary bytes.
 *
 * The decoder accepts bytes in any chunking and hands out whole frames; it
 * rejects an unknown type or flag, or a length above the maximum, as soon
 * as the header is in, before buffering the payload, with an error naming
 * the byte offset in the stream. zstd-compressed LINES payloads are
 * decompressed here, bounded by the same maximum. */
#ifndef DTAIL_WIRE_FRAME_H
#define DTAIL_WIRE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "wire/stream.h"

#define WIRE_HEADER_LEN 6
#define WIRE_LEN_AT 2         /* header offset of the payload length */

/* Big-endian u32, as every length and number on the wire. */
static inline void wire_be32_put(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static inline uint32_t wire_be32_get(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
#define WIRE_MAX_PAYLOAD (16u * 1024 * 1024)   /* default bound on a frame */

enum wire_type {
    WIRE_REQUEST = 0x01,      /* client -> server: one request */
    WIRE_LINES = 0x02,        /* server -> client: whole rendered lines */
    WIRE_AGGREGATE = 0x03,    /* server -> client: a serialized partial table */
    WIRE_MESSAGE = 0x04,      /* server -> client: a server message with a level */
    WIRE_FILE_STATUS = 0x05,  /* server -> client: per requested file */
    WIRE_END = 0x06,          /* server -> client: end of a request's stream */
    WIRE_HELLO = 0xD7,        /* both: first frame of a connection */
};
/* Types 0xE0..0xEF are optional extensions: a receiver that does not know
 * one skips it. Any other unknown type is a protocol error. */
#define WIRE_OPTIONAL_FIRST 0xE0
#define WIRE_OPTIONAL_LAST 0xEF
/* server -> client, optional: what a map request learnt of the query's
 * fields (exec/fieldreport.h's encoding), before the final AGGREGATE. */
#define WIRE_FIELDS 0xE0

#define WIRE_FLAG_ZSTD 0x01   /* payload is one zstd frame (LINES only) */

typedef struct wire_frame {
    uint8_t type;              /* enum wire_type or an optional type */
    uint8_t flags;             /* WIRE_FLAG_*, already applied */
    const unsigned char *p;    /* payload, valid until the next decoder call */
    size_t len;                /* payload bytes */
} wire_frame_t;

/* The byte a client sends right after its HELLO. A DTail 4.1 server
 * reads commands up to ';': it takes the HELLO for one, refuses it in
 * 4.1 and goes on, so the client learns from the first bytes of the
 * answer which protocol the server speaks (docs/protocol.md,
 * "Handshake"). Our server skips it. */
#define WIRE_HELLO_END ';'

typedef struct wire_decoder {
    unsigned char *buf;        /* received bytes */
    size_t off;                /* start of the first unconsumed byte */
    size_t len;                /* end of received bytes */
    size_t cap;                /* bytes allocated */
    size_t max_payload;        /* larger frames are rejected */
    unsigned long long pos;    /* stream offset of buf[0], for messages */
    unsigned char *zbuf;       /* decompressed payload */
    size_t zcap;               /* its size */
    void *zd;                  /* ZSTD_DCtx, created on first use */
    int skip_hello_end;        /* the next byte, if WIRE_HELLO_END, is
                                  dropped (set by a server after HELLO) */
} wire_decoder_t;

int wire_decoder_init(wire_decoder_t *d, size_t max_payload, err_t *e);
void wire_decoder_free(wire_decoder_t *d);
/* Free space for at least `want` more bytes (the caller reads into it and
 * then commits); NULL when out of memory. */
unsigned char *wire_decoder_space(wire_decoder_t *d, size_t want, size_t *avail);
void wire_decoder_commit(wire_decoder_t *d, size_t n);
/* Copies n bytes in (for callers that already hold them). */
int wire_decoder_feed(wire_decoder_t *d, const void *p, size_t n, err_t *e);
/* 1: *f is the next frame; 0: more bytes are needed; -1: malformed (e set;
 * the stream cannot be resynchronised and should be closed). */
int wire_decoder_next(wire_decoder_t *d, wire_frame_t *f, err_t *e);
/* The received bytes not yet decoded (a client that found a DTail 4.1
 * server hands them to that protocol's reader). */
static inline size_t wire_decoder_unread(const wire_decoder_t *d, const unsigned char **p)
{
    *p = d->buf + d->off;
    return d->len - d->off;
}
/* Whether bytes of an incomplete frame are pending (EOF there is an error). */
static inline int wire_decoder_pending(const wire_decoder_t *d) { return d->len > d->off; }

/* Reads frames from a stream: large reads (so an SSH channel's window
 * grows), then the decoder. 1: a frame; 0: clean end of stream; -1: error. */
typedef struct wire_reader {
    stream_t *s;               /* borrowed */
    wire_decoder_t dec;        /* framing state */
    size_t chunk;              /* bytes asked of the stream at once (0: 16 MiB);
                                  smaller keeps the buffer small when a client
                                  reads from many servers */
} wire_reader_t;

int wire_reader_init(wire_reader_t *r, stream_t *s, size_t max_payload, err_t *e);
void wire_reader_free(wire_reader_t *r);
int wire_read_frame(wire_reader_t *r, wire_frame_t *f, err_t *e);
/* Reads until a byte is there and stores it in *first without taking it:
 * 1, or 0 at the end of the stream, or -1. */
int wire_reader_peek(wire_reader_t *r, unsigned char *first, err_t *e);

/* A growable byte buffer for encoding; `failed` is set on allocation
 * failure and makes later puts no-ops. */
typedef struct wire_buf {
    unsigned char *p;          /* bytes */
    size_t len;                /* used */
    size_t cap;                /* allocated */
    int failed;                /* out of memory */
} wire_buf_t;

void wire_buf_free(wire_buf_t *b);
/* Room for n more bytes after b's: returns where they go (the caller
 * writes them there and adds what it wrote to len), or NULL with failed
 * set when out of memory. */
unsigned char *wire_buf_reserve(wire_buf_t *b, size_t n);
void wire_put_bytes(wire_buf_t *b, const void *p, size_t n);
void wire_put_u8(wire_buf_t *b, uint8_t v);
void wire_put_u16(wire_buf_t *b, uint16_t v);
void wire_put_u32(wire_buf_t *b, uint32_t v);
void wire_put_u64(wire_buf_t *b, uint64_t v);
/* A string: u32 length, then the bytes (no NUL). NULL is the empty string. */
void wire_put_str(wire_buf_t *b, const char *s);
/* Starts a frame of `type` in b (after what b holds); returns its offset
 * for wire_frame_end, which fills in the payload length. */
size_t wire_frame_begin(wire_buf_t *b, uint8_t type, uint8_t flags);
void wire_frame_end(wire_buf_t *b, size_t start);
/* Writes b's bytes to s and empties b; -1 with e set on failure. */
int wire_buf_send(wire_buf_t *b, stream_t *s, err_t *e);

/* Reading a payload: bounds-checked; any read past the end sets `bad`. */
typedef struct wire_cursor {
    const unsigned char *p;    /* next byte */
    const unsigned char *end;  /* end of payload */
    int bad;                   /* a read ran past the end */
} wire_cursor_t;

static inline wire_cursor_t wire_cursor(const wire_frame_t *f)
{
    return (wire_cursor_t){f->p, f->p + f->len, 0};
}
uint8_t wire_get_u8(wire_cursor_t *c);
uint16_t wire_get_u16(wire_cursor_t *c);
uint32_t wire_get_u32(wire_cursor_t *c);
uint64_t wire_get_u64(wire_cursor_t *c);
/* A string view (not NUL-terminated) into the payload. */
const char *wire_get_str(wire_cursor_t *c, size_t *len);
/* A malloc'd NUL-terminated copy; NULL (bad set) when it would contain a
 * NUL byte or run past the end. */
char *wire_get_strdup(wire_cursor_t *c);

const char *wire_type_name(uint8_t type);

#endif
