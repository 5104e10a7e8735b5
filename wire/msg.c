/* msg.c: encoding and decoding of each message's payload. */
#include "wire/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

static int bad(err_t *e, const char *what)
{
    return err_set(e, ERR_INPUT, "malformed %s message: truncated or invalid field", what);
}

static void copy_str(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

void wire_hello_init(wire_hello_t *h, const char *host)
{
    memset(h, 0, sizeof *h);
    h->version = WIRE_VERSION;
    h->caps = WIRE_CAP_ZSTD | WIRE_CAP_FILE_COUNTS;
    snprintf(h->host, sizeof h->host, "%.*s", (int)strcspn(host ? host : "", "."), host ? host : "");
    snprintf(h->software, sizeof h->software, "DTail %s-c", DTAIL_VERSION);
}

void wire_encode_hello(wire_buf_t *b, const wire_hello_t *h)
{
    size_t at = wire_frame_begin(b, WIRE_HELLO, 0);
    wire_put_bytes(b, WIRE_MAGIC, WIRE_MAGIC_LEN);
    wire_put_u16(b, h->version);
    wire_put_u32(b, h->caps);
    wire_put_str(b, h->host);
    wire_put_str(b, h->software);
    wire_frame_end(b, at);
}

int wire_decode_hello(const wire_frame_t *f, wire_hello_t *h, err_t *e)
{
    if (f->type != WIRE_HELLO)
        return err_set(e, ERR_INPUT, "expected a HELLO frame, got %s (0x%02x)",
                       wire_type_name(f->type), f->type);
    if (f->len < WIRE_MAGIC_LEN || memcmp(f->p, WIRE_MAGIC, WIRE_MAGIC_LEN) != 0)
        return err_set(e, ERR_INPUT, "HELLO without the protocol magic \"%s\"", WIRE_MAGIC);
    wire_cursor_t c = wire_cursor(f);
    c.p += WIRE_MAGIC_LEN;
    memset(h, 0, sizeof *h);
    h->version = wire_get_u16(&c);
    h->caps = wire_get_u32(&c);
    size_t n;
    const char *s = wire_get_str(&c, &n);
    copy_str(h->host, sizeof h->host, s, n);
    s = wire_get_str(&c, &n);
    copy_str(h->software, sizeof h->software, s, n);
    if (c.bad)
        return bad(e, "HELLO");
    if (h->version != WIRE_VERSION)
        return err_set(e, ERR_INPUT, "wire protocol version %u is not supported (this side speaks %u; %s)",
                       h->version, WIRE_VERSION, h->software);
    return 0;
}

const char *wire_kind_name(uint8_t kind)
{
    static const char *names[] = {"?", "cat", "grep", "tail", "map", "health"};
    return kind <= WIRE_KIND_HEALTH ? names[kind] : "?";
}

void wire_request_palette(const wire_request_t *r, palette_t *out)
{
    if (!(r->flags & WIRE_REQ_PALETTE) || palette_decode(out, r->palette, sizeof r->palette) < 0)
        palette_defaults(out);
}

void wire_encode_request(wire_buf_t *b, const wire_request_t *r)
{
    size_t at = wire_frame_begin(b, WIRE_REQUEST, 0);
    wire_put_u8(b, r->kind);
    wire_put_u8(b, r->render);
    wire_put_u32(b, r->flags);
    wire_put_u64(b, r->before);
    wire_put_u64(b, r->after);
    wire_put_u64(b, r->max);
    wire_put_u32(b, r->timeout_s);
    wire_put_str(b, r->files);
    wire_put_str(b, r->regex);
    wire_put_str(b, r->query);
    if (r->flags & WIRE_REQ_PALETTE) {
        wire_put_u32(b, PAL_PALETTE_WIRE_LEN);
        wire_put_bytes(b, r->palette, PAL_PALETTE_WIRE_LEN);
    }
    if (r->flags & WIRE_REQ_TIMEZONE)
        wire_put_str(b, r->timezone ? r->timezone : "");
    if (r->flags & WIRE_REQ_MULTILINE)
        wire_put_str(b, r->multiline ? r->multiline : "");
    wire_frame_end(b, at);
}

void wire_request_free(wire_request_t *r)
{
    free(r->files);
    free(r->regex);
    free(r->query);
    free(r->timezone);
    free(r->multiline);
    r->files = r->regex = r->query = r->timezone = r->multiline = NULL;
}

int wire_decode_request(const wire_frame_t *f, wire_request_t *r, err_t *e)
{
    memset(r, 0, sizeof *r);
    if (f->type != WIRE_REQUEST)
        return err_set(e, ERR_INPUT, "expected a REQUEST frame, got %s (0x%02x)",
                       wire_type_name(f->type), f->type);
    wire_cursor_t c = wire_cursor(f);
    r->kind = wire_get_u8(&c);
    r->render = wire_get_u8(&c);
    r->flags = wire_get_u32(&c);
    r->before = wire_get_u64(&c);
    r->after = wire_get_u64(&c);
    r->max = wire_get_u64(&c);
    r->timeout_s = wire_get_u32(&c);
    r->files = wire_get_strdup(&c);
    r->regex = wire_get_strdup(&c);
    r->query = wire_get_strdup(&c);
    if (r->flags & WIRE_REQ_PALETTE) {
        size_t n;
        const char *p = wire_get_str(&c, &n);
        palette_t check;
        if (!c.bad && palette_decode(&check, (const uint8_t *)p, n) < 0) {
            wire_request_free(r);
            return err_set(e, ERR_INPUT, "REQUEST with an invalid palette (%zu bytes)", n);
        }
        if (!c.bad)
            memcpy(r->palette, p, PAL_PALETTE_WIRE_LEN);
    }
    if (r->flags & WIRE_REQ_TIMEZONE) {
        r->timezone = wire_get_strdup(&c);
        if (!c.bad && (!r->timezone[0] || strlen(r->timezone) > WIRE_TIMEZONE_MAX)) {
            wire_request_free(r);
            return err_set(e, ERR_INPUT, "REQUEST with an empty or too long timezone");
        }
    }
    if (r->flags & WIRE_REQ_MULTILINE)
        r->multiline = wire_get_strdup(&c);
    if (c.bad) {
        wire_request_free(r);
        return bad(e, "REQUEST");
    }
    if (r->kind < WIRE_KIND_CAT || r->kind > WIRE_KIND_HEALTH) {
        uint8_t k = r->kind;
        wire_request_free(r);
        return err_set(e, ERR_INPUT, "REQUEST of unknown kind %u", k);
    }
    if (r->render > WIRE_RENDER_COLOR) {
        uint8_t k = r->render;
        wire_request_free(r);
        return err_set(e, ERR_INPUT, "REQUEST with unknown render format %u", k);
    }
    if (r->flags & ~WIRE_REQ_KNOWN) {
        uint32_t k = r->flags & ~WIRE_REQ_KNOWN;
        wire_request_free(r);
        return err_set(e, ERR_INPUT, "REQUEST with unknown flags 0x%x (the server is older than "
                                     "the client)", (unsigned)k);
    }
    return 0;
}

void wire_encode_lines_head(wire_buf_t *b, size_t len, uint8_t flags)
{
    size_t at = wire_frame_begin(b, WIRE_LINES, flags);
    /* The length covers the bytes the caller sends next. */
    if (!b->failed)
        wire_be32_put(b->p + at + WIRE_LEN_AT, (uint32_t)len);
}

void wire_encode_aggregate(wire_buf_t *b, uint8_t flags, const void *table, size_t len)
{
    size_t at = wire_frame_begin(b, WIRE_AGGREGATE, 0);
    wire_put_u8(b, flags);
    wire_put_bytes(b, table, len);
    wire_frame_end(b, at);
}

void wire_encode_fields(wire_buf_t *b, const void *report, size_t len)
{
    size_t at = wire_frame_begin(b, WIRE_FIELDS, 0);
    wire_put_bytes(b, report, len);
    wire_frame_end(b, at);
}

void wire_encode_message(wire_buf_t *b, uint8_t level, const char *text)
{
    size_t at = wire_frame_begin(b, WIRE_MESSAGE, 0);
    wire_put_u8(b, level);
    wire_put_str(b, text);
    wire_frame_end(b, at);
}

void wire_encode_file_status(wire_buf_t *b, uint8_t status, const char *name, const char *detail,
                             uint64_t bytes, uint64_t lines)
{
    size_t at = wire_frame_begin(b, WIRE_FILE_STATUS, 0);
    wire_put_u8(b, status);
    wire_put_str(b, name);
    wire_put_str(b, detail);
    wire_put_u64(b, bytes);
    wire_put_u64(b, lines);
    wire_frame_end(b, at);
}

void wire_encode_end(wire_buf_t *b, uint8_t status, const char *message)
{
    size_t at = wire_frame_begin(b, WIRE_END, 0);
    wire_put_u8(b, status);
    wire_put_str(b, message);
    wire_frame_end(b, at);
}

static wire_view_t get_view(wire_cursor_t *c)
{
    wire_view_t v;
    v.p = wire_get_str(c, &v.len);
    return v;
}

int wire_decode_msg(const wire_frame_t *f, wire_msg_t *m, err_t *e)
{
    memset(m, 0, sizeof *m);
    m->type = f->type;
    wire_cursor_t c = wire_cursor(f);
    switch (f->type) {
    case WIRE_LINES:
        m->data.p = (const char *)c.p;
        m->data.len = c.bad ? 0 : (size_t)(c.end - c.p);
        break;
    case WIRE_AGGREGATE:
        m->status = wire_get_u8(&c);
        m->data.p = (const char *)c.p;
        m->data.len = c.bad ? 0 : (size_t)(c.end - c.p);
        if (m->status & ~(WIRE_AGG_FINAL | WIRE_AGG_MORE))
            c.bad = 1;
        break;
    case WIRE_MESSAGE:
        m->level = wire_get_u8(&c);
        m->text = get_view(&c);
        if (m->level > LOG_TRACE)
            c.bad = 1;
        break;
    case WIRE_FILE_STATUS:
        m->status = wire_get_u8(&c);
        m->name = get_view(&c);
        m->text = get_view(&c);
        /* A server before the counts ends here (protocol.md). */
        m->bytes = m->lines = WIRE_COUNT_NONE;
        if (!c.bad && c.end - c.p >= 16) {
            m->has_counts = 1;
            m->bytes = wire_get_u64(&c);
            m->lines = wire_get_u64(&c);
        }
        if (m->status > WIRE_FILE_ERROR)
            c.bad = 1;
        break;
    case WIRE_END:
        m->status = wire_get_u8(&c);
        m->text = get_view(&c);
        if (m->status > WIRE_END_FAILED)
            c.bad = 1;
        break;
    default:
        return err_set(e, ERR_INPUT, "unexpected %s frame (0x%02x) from the server",
                       wire_type_name(f->type), f->type);
    }
    if (c.bad)
        return bad(e, wire_type_name(f->type));
    return 0;
}
