/* codec.c: little-endian writers into a growable buffer and bounds-checked
 * readers. */
#include "wire/codec.h"

#include <stdarg.h>
#include <stdio.h>

/* n bytes stored by `store` at the end of b. */
#define PUT_LE(b, n, store, v)                           \
    do {                                                 \
        unsigned char *at_ = wire_buf_reserve((b), (n)); \
        if (at_) {                                       \
            store(at_, (v));                             \
            (b)->len += (n);                             \
        }                                                \
    } while (0)

void wire_put_le16(wire_buf_t *b, uint16_t v)
{
    PUT_LE(b, 2, wire_le16_store, v);
}

void wire_put_le32(wire_buf_t *b, uint32_t v)
{
    PUT_LE(b, 4, wire_le32_store, v);
}

void wire_put_le64(wire_buf_t *b, uint64_t v)
{
    PUT_LE(b, 8, wire_le64_store, v);
}

void wire_put_lef64(wire_buf_t *b, double v)
{
    PUT_LE(b, 8, wire_lef64_store, v);
}

void wire_put_lestr(wire_buf_t *b, const void *p, uint32_t len)
{
    wire_put_le32(b, len);
    wire_put_bytes(b, p, len);
}

/* The n bytes of `field` at the read position, consumed; NULL with e set
 * when fewer are left. */
static const unsigned char *take(wire_le_reader_t *r, size_t n, const char *field, err_t *e)
{
    if (wire_le_left(r) < n) {
        err_set_at(e, ERR_INPUT, (long)r->pos, "%s: %s truncated at byte %zu (%zu bytes, %zu left)",
                   r->what, field, r->pos, n, wire_le_left(r));
        return NULL;
    }
    const unsigned char *at = r->p + r->pos;
    r->pos += n;
    return at;
}

/* A getter of n bytes decoded by `load`. */
#define GET_LE(name, T, n, load)                                            \
    int name(wire_le_reader_t *r, T *v, const char *field, err_t *e)        \
    {                                                                       \
        const unsigned char *at = take(r, (n), field, e);                   \
        if (!at)                                                            \
            return -1;                                                      \
        *v = load(at);                                                      \
        return 0;                                                           \
    }

static inline uint8_t le8_load(const unsigned char *p)
{
    return p[0];
}

GET_LE(wire_le_get_u8, uint8_t, 1, le8_load)
GET_LE(wire_le_get_u16, uint16_t, 2, wire_le16_load)
GET_LE(wire_le_get_u32, uint32_t, 4, wire_le32_load)
GET_LE(wire_le_get_u64, uint64_t, 8, wire_le64_load)
GET_LE(wire_le_get_f64, double, 8, wire_lef64_load)

int wire_le_get_bytes(wire_le_reader_t *r, const unsigned char **p, size_t n, const char *field,
                   err_t *e)
{
    *p = take(r, n, field, e);
    return *p ? 0 : -1;
}

int wire_le_get_str(wire_le_reader_t *r, const unsigned char **p, uint32_t *len, const char *field,
                 err_t *e)
{
    if (wire_le_get_u32(r, len, field, e) < 0)
        return -1;
    return wire_le_get_bytes(r, p, *len, field, e);
}

int wire_le_fail(const wire_le_reader_t *r, size_t at, err_t *e, const char *fmt, ...)
{
    char msg[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set_at(e, ERR_INPUT, (long)at, "%s: %s at byte %zu", r->what, msg, at);
}
