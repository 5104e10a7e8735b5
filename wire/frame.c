/* frame.c: frame decoder, stream reader, encoding buffer. */
#include "wire/frame.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base/grow.h"

/* Reads ask for this much at once: an SSH channel grows its window only
 * for readers that ask for a lot (lessons.md, library notes). */
#define READ_CHUNK (16u * 1024 * 1024)

const char *wire_type_name(uint8_t type)
{
    switch (type) {
    case WIRE_HELLO: return "HELLO";
    case WIRE_REQUEST: return "REQUEST";
    case WIRE_LINES: return "LINES";
    case WIRE_AGGREGATE: return "AGGREGATE";
    case WIRE_MESSAGE: return "MESSAGE";
    case WIRE_FILE_STATUS: return "FILE_STATUS";
    case WIRE_END: return "END";
    default: return "unknown";
    }
}

static int type_known(uint8_t t)
{
    return (t >= WIRE_REQUEST && t <= WIRE_END) || t == WIRE_HELLO ||
           (t >= WIRE_OPTIONAL_FIRST && t <= WIRE_OPTIONAL_LAST);
}

int wire_decoder_init(wire_decoder_t *d, size_t max_payload, err_t *e)
{
    memset(d, 0, sizeof *d);
    d->max_payload = max_payload ? max_payload : WIRE_MAX_PAYLOAD;
    d->cap = 64 * 1024;
    d->buf = malloc(d->cap);
    if (!d->buf)
        return err_set(e, ERR_NOMEM, "out of memory for the frame decoder");
    return 0;
}

void wire_decoder_free(wire_decoder_t *d)
{
    free(d->buf);
    free(d->zbuf);
    ZSTD_freeDCtx(d->zd);
    memset(d, 0, sizeof *d);
}

unsigned char *wire_decoder_space(wire_decoder_t *d, size_t want, size_t *avail)
{
    if (d->off == d->len) {   /* everything consumed: start over */
        d->pos += d->off;
        d->off = d->len = 0;
    }
    if (d->cap - d->len < want && d->off > 0) {
        memmove(d->buf, d->buf + d->off, d->len - d->off);
        d->pos += d->off;
        d->len -= d->off;
        d->off = 0;
    }
    if (GROW_ARRAY(d->buf, d->cap, d->len + want, 1) < 0)
        return NULL;
    *avail = d->cap - d->len;
    return d->buf + d->len;
}

void wire_decoder_commit(wire_decoder_t *d, size_t n)
{
    d->len += n;
}

int wire_decoder_feed(wire_decoder_t *d, const void *p, size_t n, err_t *e)
{
    size_t avail;
    unsigned char *dst = wire_decoder_space(d, n, &avail);
    if (!dst)
        return err_set(e, ERR_NOMEM, "out of memory buffering %zu received bytes", n);
    memcpy(dst, p, n);
    wire_decoder_commit(d, n);
    return 0;
}

static int decompress(wire_decoder_t *d, wire_frame_t *f, unsigned long long at, err_t *e)
{
    unsigned long long size = ZSTD_getFrameContentSize(f->p, f->len);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        return err_set_at(e, ERR_INPUT, (long)at,
                          "malformed %s frame at byte %llu: compressed payload has no valid size",
                          wire_type_name(f->type), at);
    if (size > d->max_payload)
        return err_set_at(e, ERR_INPUT, (long)at,
                          "%s frame at byte %llu decompresses to %llu bytes, more than the maximum %zu",
                          wire_type_name(f->type), at, size, d->max_payload);
    if (!d->zd && !(d->zd = ZSTD_createDCtx()))
        return err_set(e, ERR_NOMEM, "out of memory for zstd");
    if (d->zcap < size || !d->zbuf) {
        size_t cap = size ? (size_t)size : 1;
        unsigned char *nb = realloc(d->zbuf, cap);
        if (!nb)
            return err_set(e, ERR_NOMEM, "out of memory decompressing %llu bytes", size);
        d->zbuf = nb;
        d->zcap = cap;
    }
    size_t got = ZSTD_decompressDCtx(d->zd, d->zbuf, d->zcap, f->p, f->len);
    if (ZSTD_isError(got) || got != size)
        return err_set_at(e, ERR_INPUT, (long)at, "malformed %s frame at byte %llu: %s",
                          wire_type_name(f->type), at,
                          ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size mismatch");
    f->p = d->zbuf;
    f->len = got;
    return 0;
}

int wire_decoder_next(wire_decoder_t *d, wire_frame_t *f, err_t *e)
{
    if (d->skip_hello_end && d->len > d->off) {
        if (d->buf[d->off] == WIRE_HELLO_END)
            d->off++;
        d->skip_hello_end = 0;
    }
    size_t have = d->len - d->off;
    if (have < WIRE_HEADER_LEN)
        return 0;
    const unsigned char *h = d->buf + d->off;
    unsigned long long at = d->pos + d->off;
    uint32_t plen = wire_be32_get(h + WIRE_LEN_AT);
    if (!type_known(h[0]))
        return err_set_at(e, ERR_INPUT, (long)at, "unknown frame type 0x%02x at byte %llu", h[0], at);
    if (h[1] & ~WIRE_FLAG_ZSTD)
        return err_set_at(e, ERR_INPUT, (long)at, "unknown flags 0x%02x in %s frame at byte %llu",
                          h[1], wire_type_name(h[0]), at);
    if ((h[1] & WIRE_FLAG_ZSTD) && h[0] != WIRE_LINES)
        return err_set_at(e, ERR_INPUT, (long)at, "compressed %s frame at byte %llu: only LINES may be compressed",
                          wire_type_name(h[0]), at);
    if (plen > d->max_payload)
        return err_set_at(e, ERR_INPUT, (long)at,
                          "oversized %s frame at byte %llu: %u bytes, the maximum is %zu",
                          wire_type_name(h[0]), at, plen, d->max_payload);
    if (have - WIRE_HEADER_LEN < plen)
        return 0;
    f->type = h[0];
    f->flags = h[1];
    f->p = h + WIRE_HEADER_LEN;
    f->len = plen;
    d->off += WIRE_HEADER_LEN + plen;
    if ((f->flags & WIRE_FLAG_ZSTD) && decompress(d, f, at, e) < 0)
        return -1;
    return 1;
}

int wire_reader_init(wire_reader_t *r, stream_t *s, size_t max_payload, err_t *e)
{
    r->s = s;
    r->chunk = 0;
    return wire_decoder_init(&r->dec, max_payload, e);
}

void wire_reader_free(wire_reader_t *r)
{
    wire_decoder_free(&r->dec);
}

/* One read from the stream into the decoder: 1, 0 at its end, -1. */
static int read_more(wire_reader_t *r, err_t *e)
{
    size_t avail;
    unsigned char *p = wire_decoder_space(&r->dec, r->chunk ? r->chunk : READ_CHUNK, &avail);
    if (!p)
        return err_set(e, ERR_NOMEM, "out of memory reading frames");
    ssize_t n = stream_read(r->s, p, avail, e);
    if (n < 0)
        return -1;
    if (n == 0)
        return 0;
    wire_decoder_commit(&r->dec, (size_t)n);
    return 1;
}

int wire_reader_peek(wire_reader_t *r, unsigned char *first, err_t *e)
{
    while (r->dec.len == r->dec.off) {
        int rc = read_more(r, e);
        if (rc <= 0)
            return rc;
    }
    *first = r->dec.buf[r->dec.off];
    return 1;
}

int wire_read_frame(wire_reader_t *r, wire_frame_t *f, err_t *e)
{
    for (;;) {
        int rc = wire_decoder_next(&r->dec, f, e);
        if (rc != 0)
            return rc;
        rc = read_more(r, e);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            if (wire_decoder_pending(&r->dec))
                return err_set(e, ERR_INPUT, "connection ended inside a frame (%zu bytes pending)",
                               r->dec.len - r->dec.off);
            return 0;
        }
    }
}

/* Encoding */

void wire_buf_free(wire_buf_t *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

unsigned char *wire_buf_reserve(wire_buf_t *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (GROW_ARRAY(b->p, b->cap, b->len + n, 256) < 0) {
        b->failed = 1;
        return NULL;
    }
    return b->p + b->len;
}

void wire_put_bytes(wire_buf_t *b, const void *p, size_t n)
{
    unsigned char *dst = wire_buf_reserve(b, n);
    if (!dst)
        return;
    if (n)
        memcpy(dst, p, n);
    b->len += n;
}

void wire_put_u8(wire_buf_t *b, uint8_t v)
{
    wire_put_bytes(b, &v, 1);
}

void wire_put_u16(wire_buf_t *b, uint16_t v)
{
    unsigned char x[2] = {(unsigned char)(v >> 8), (unsigned char)v};
    wire_put_bytes(b, x, 2);
}

void wire_put_u32(wire_buf_t *b, uint32_t v)
{
    unsigned char x[4];
    wire_be32_put(x, v);
    wire_put_bytes(b, x, 4);
}

void wire_put_u64(wire_buf_t *b, uint64_t v)
{
    wire_put_u32(b, (uint32_t)(v >> 32));
    wire_put_u32(b, (uint32_t)v);
}

void wire_put_str(wire_buf_t *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    wire_put_u32(b, (uint32_t)n);
    wire_put_bytes(b, s, n);
}

size_t wire_frame_begin(wire_buf_t *b, uint8_t type, uint8_t flags)
{
    size_t start = b->len;
    unsigned char h[WIRE_HEADER_LEN] = {type, flags, 0, 0, 0, 0};
    wire_put_bytes(b, h, sizeof h);
    return start;
}

void wire_frame_end(wire_buf_t *b, size_t start)
{
    if (b->failed)
        return;
    wire_be32_put(b->p + start + WIRE_LEN_AT, (uint32_t)(b->len - start - WIRE_HEADER_LEN));
}

int wire_buf_send(wire_buf_t *b, stream_t *s, err_t *e)
{
    if (b->failed) {
        b->len = 0;
        b->failed = 0;
        return err_set(e, ERR_NOMEM, "out of memory encoding a frame");
    }
    int rc = stream_write(s, b->p, b->len, e);
    b->len = 0;
    return rc;
}

/* Decoding payloads */

static const unsigned char *take(wire_cursor_t *c, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = 1;
        return NULL;
    }
    const unsigned char *p = c->p;
    c->p += n;
    return p;
}

uint8_t wire_get_u8(wire_cursor_t *c)
{
    const unsigned char *p = take(c, 1);
    return p ? p[0] : 0;
}

uint16_t wire_get_u16(wire_cursor_t *c)
{
    const unsigned char *p = take(c, 2);
    return p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
}

uint32_t wire_get_u32(wire_cursor_t *c)
{
    const unsigned char *p = take(c, 4);
    return p ? wire_be32_get(p) : 0;
}

uint64_t wire_get_u64(wire_cursor_t *c)
{
    uint64_t hi = wire_get_u32(c);
    return hi << 32 | wire_get_u32(c);
}

const char *wire_get_str(wire_cursor_t *c, size_t *len)
{
    uint32_t n = wire_get_u32(c);
    const unsigned char *p = take(c, n);
    *len = p ? n : 0;
    return p ? (const char *)p : "";
}

char *wire_get_strdup(wire_cursor_t *c)
{
    size_t n;
    const char *s = wire_get_str(c, &n);
    if (c->bad || memchr(s, '\0', n)) {
        c->bad = 1;
        return NULL;
    }
    char *d = malloc(n + 1);
    if (!d) {
        c->bad = 1;
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}
