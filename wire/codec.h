/* codec.h: the little-endian byte layer of the payloads the engine writes
 * (AGGREGATE tables and their sketches, FIELDS reports; docs/protocol.md,
 * "Layout of AGGREGATE").
 *
 * Every integer goes out least significant byte first and every double as
 * its IEEE-754 bits in that order, whatever the host's byte order, so the
 * bytes are the same on every platform and can be pinned by a test. (The
 * frame header and the message fields of wire/msg.h are big-endian; these
 * payloads kept the order they always had on the hosts we run on.)
 *
 * Writers append to a growable buffer and remember a failed allocation
 * instead of failing each call, so an encoder checks once at its end.
 * Readers check every field against what is left and fail with an error
 * naming the payload, the field and its byte offset. */
#ifndef DTAIL_WIRE_CODEC_H
#define DTAIL_WIRE_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "wire/frame.h"

/* Stores and loads at a known place (the caller checked the room). */
static inline void wire_le16_store(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static inline void wire_le32_store(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}
static inline void wire_le64_store(unsigned char *p, uint64_t v)
{
    wire_le32_store(p, (uint32_t)v);
    wire_le32_store(p + 4, (uint32_t)(v >> 32));
}
static inline void wire_lef64_store(unsigned char *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    wire_le64_store(p, bits);
}
static inline uint16_t wire_le16_load(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t wire_le32_load(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t wire_le64_load(const unsigned char *p)
{
    return (uint64_t)wire_le32_load(p) | (uint64_t)wire_le32_load(p + 4) << 32;
}
static inline double wire_lef64_load(const unsigned char *p)
{
    uint64_t bits = wire_le64_load(p);
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

/* Writers append to a wire_buf_t (wire/frame.h). */
void wire_put_le16(wire_buf_t *b, uint16_t v);
void wire_put_le32(wire_buf_t *b, uint32_t v);
void wire_put_le64(wire_buf_t *b, uint64_t v);
void wire_put_lef64(wire_buf_t *b, double v);
/* A byte string: u32 length, then the bytes. */
void wire_put_lestr(wire_buf_t *b, const void *p, uint32_t len);

/* A payload being read. */
typedef struct wire_le_reader {
    const unsigned char *p; /* data */
    size_t len, pos;        /* size, read position */
    const char *what;       /* names the payload in errors ("partial aggregate") */
} wire_le_reader_t;

static inline wire_le_reader_t wire_le_reader(const void *p, size_t len, const char *what)
{
    return (wire_le_reader_t){p, len, 0, what};
}
static inline size_t wire_le_left(const wire_le_reader_t *r)
{
    return r->len - r->pos;
}

/* Each reads the field named `field` or fails (-1, ERR_INPUT) with
 * "WHAT: FIELD truncated at byte POS (N bytes, M left)". */
int wire_le_get_u8(wire_le_reader_t *r, uint8_t *v, const char *field, err_t *e);
int wire_le_get_u16(wire_le_reader_t *r, uint16_t *v, const char *field, err_t *e);
int wire_le_get_u32(wire_le_reader_t *r, uint32_t *v, const char *field, err_t *e);
int wire_le_get_u64(wire_le_reader_t *r, uint64_t *v, const char *field, err_t *e);
int wire_le_get_f64(wire_le_reader_t *r, double *v, const char *field, err_t *e);
/* n bytes in place: *p points into the payload. */
int wire_le_get_bytes(wire_le_reader_t *r, const unsigned char **p, size_t n, const char *field,
                   err_t *e);
/* A byte string as wire_put_lestr writes it, in place. */
int wire_le_get_str(wire_le_reader_t *r, const unsigned char **p, uint32_t *len, const char *field,
                 err_t *e);
/* An error about a value that is there but wrong, read at byte `at`:
 * "WHAT: MESSAGE at byte AT". */
int wire_le_fail(const wire_le_reader_t *r, size_t at, err_t *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
